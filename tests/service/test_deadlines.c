/* Deadlines against slow clients (server.c's watchdog): an answer must be read in whole within
 * --timeout of being queued, and a request's head must arrive within --header-timeout.
 * The tests wait for the server to act (the connection cut) rather than for a time: in each,
 * the other deadline is set far beyond the test (an hour), so only the one under test can cut,
 * and a loaded machine only makes the cut come later (each test's 60 s timeout only ends a
 * hang). What is timed is a lower bound: not cut before its deadline. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tests/service/harness.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* A socket to the server with a small receive buffer set before connecting, so the TCP window
 * stays small and the server cannot push a large answer into kernel buffers at once. */
static int connect_small_window(unsigned port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    int rcvbuf = 4096;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0, "%s", strerror(errno));
    return fd;
}

/* True when the server has ended the connection (reset or FIN), judged from TCP's state rather
 * than by reading: data already in our small buffer would take minutes to read at this pace.
 * Reads at most one byte, never waiting; *got counts what was read. */
static bool ended(int fd, size_t *got)
{
    char c;
    if (recv(fd, &c, 1, MSG_DONTWAIT) == 1)
        (*got)++;
    struct tcp_info ti;
    socklen_t len = sizeof ti;
    cr_assert_eq(getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len), 0);
    return ti.tcpi_state != TCP_ESTABLISHED;
}

Test(deadlines, a_slow_reader_is_cut_when_its_answer_is_not_read_within_the_timeout, .timeout = 60)
{
    struct server s;
    static const char *const args[] = {"--timeout", "2", NULL};
    server_start(&s, args);
    int fd = connect_small_window(s.port);
    const char *req = "GET /docs HTTP/1.1\r\nHost: x\r\n\r\n"; /* about 1 MB of HTML */
    cr_assert_eq(send(fd, req, strlen(req), 0), (ssize_t)strlen(req));
    /* 20 bytes a second, each read restarting libmicrohttpd's idle timer: the cut can come only
     * from the watchdog's whole-answer deadline (at 20 B/s the answer would take 14 hours). */
    double start = now_s();
    size_t got = 0;
    while (!ended(fd, &got))
        sleep_ms(50);
    double after = now_s() - start;
    close(fd);
    server_stop(&s);
    cr_assert(after >= 1.5, "cut after only %.1f s", after);
    cr_assert_lt(got, 100000, "%zu bytes read", got);
}

Test(deadlines, a_reader_that_keeps_up_gets_the_whole_answer, .timeout = 60)
{
    struct server s;
    static const char *const args[] = {"--timeout", "2", NULL};
    server_start(&s, args);
    struct http_response r;
    http_request(&s, "GET", "/docs", NULL, NULL, &r);
    cr_assert_eq(r.status, 200);
    cr_assert_gt(r.body_len, 500000);
    http_response_free(&r);
    server_stop(&s);
}

/* A head trickled in a header line every 300 ms restarts libmicrohttpd's idle timer each time;
 * --header-timeout cuts it. --timeout is an hour, so nothing else could. */
Test(deadlines, a_head_not_sent_within_the_header_timeout_is_cut, .timeout = 60)
{
    struct server s;
    static const char *const args[] = {"--header-timeout", "1", "--timeout", "3600", NULL};
    server_start(&s, args);
    int fd = http_connect(s.port);
    const char *start = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
    cr_assert_eq(send(fd, start, strlen(start), MSG_NOSIGNAL), (ssize_t)strlen(start));
    double t0 = now_s();
    size_t got = 0;
    bool cut = false;
    while (!cut) {
        sleep_ms(300);
        cut = send(fd, "X-A: 1\r\n", 8, MSG_NOSIGNAL) != 8 || ended(fd, &got);
    }
    double after = now_s() - t0;
    close(fd);
    server_stop(&s);
    cr_assert(after >= 0.9, "cut after only %.1f s", after);
}

/* The header deadline covers the head only: a body that takes longer is held to --timeout
 * (here an hour, so that a loaded machine's slow sends cannot reach it). */
Test(deadlines, a_body_may_take_longer_than_the_header_timeout, .timeout = 60)
{
    struct server s;
    static const char *const args[] = {"--header-timeout", "1", "--timeout", "3600", NULL};
    server_start(&s, args);
    const char *body = "{\"expression\":\"1d6\",\"seed\":1}";
    char head[256];
    snprintf(head, sizeof head,
             "POST /v1/dice/roll HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: "
             "application/json\r\nContent-Length: %zu\r\n\r\n",
             strlen(body));
    int fd = http_connect(s.port);
    cr_assert_eq(send(fd, head, strlen(head), 0), (ssize_t)strlen(head));
    for (size_t i = 0; i < strlen(body); i += 3) { /* about 2 s in all */
        sleep_ms(200);
        size_t n = strlen(body) - i < 3 ? strlen(body) - i : 3;
        cr_assert_eq(send(fd, body + i, n, MSG_NOSIGNAL), (ssize_t)n, "cut mid-body");
    }
    struct http_response r;
    cr_assert_eq(http_read_response(fd, &r), 0);
    close(fd);
    cr_assert_eq(r.status, 200, "%s", r.body);
    http_response_free(&r);
    server_stop(&s);
}
