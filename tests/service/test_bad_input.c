/* Issue 9's bad-input corpus: every malformed message gets a 4xx problem+json or a closed
 * connection, never a crash or a 5xx, and the server answers a normal request right after. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/service/harness.h"

SERVER_TEST_SUITE(bad_input);

/* The server still answers: GET /healthz on a new connection. */
static void still_answers(void)
{
    struct http_response r;
    http_request(&srv, "GET", "/healthz", NULL, NULL, &r);
    cr_assert_eq(r.status, 200);
    http_response_free(&r);
}

/* Sends a POST with the given body bytes and content type to path; checks the answer. */
static void post_bytes(const char *path, const char *ctype, const char *body, size_t len,
                       const char *what)
{
    size_t cap = len + 512;
    char *req = malloc(cap);
    int n =
        snprintf(req, cap,
                 "POST %s HTTP/1.1\r\nHost: t\r\nConnection: close\r\n%s%s%sContent-Length: "
                 "%zu\r\n\r\n",
                 path, ctype ? "Content-Type: " : "", ctype ? ctype : "", ctype ? "\r\n" : "", len);
    memcpy(req + n, body, len);
    struct http_response r;
    int rc = http_raw(srv.port, req, (size_t)n + len, &r);
    free(req);
    if (rc == 0) {
        cr_assert(r.status >= 400 && r.status < 500, "%s: status %d", what, r.status);
        char ct[64] = "";
        cr_assert(http_header(&r, "Content-Type", ct, sizeof ct), "%s: no Content-Type", what);
        cr_assert_str_eq(ct, "application/problem+json", "%s", what);
        http_response_free(&r);
    }
    still_answers();
}

static void post_json(const char *body, const char *what)
{
    post_bytes("/v1/dice/roll", "application/json", body, strlen(body), what);
}

Test(bad_input, malformed_json_of_every_kind)
{
    static const char *const cases[][2] = {
        {"{\"expression\": \"1d6\"", "truncated"},
        {"{\"expression\": 5}", "wrong type"},
        {"{\"expression\": \"1d6\", \"seed\": 123456789012345678901234567890}", "beyond 64 bits"},
        {"{\"expression\": \"1d6\", \"seed\": -99999999999999999999}", "below 64 bits"},
        {"{\"expression\": \"1d6\", \"seed\": NaN}", "NaN"},
        {"{\"expression\": \"1d6\", \"seed\": Infinity}", "Infinity"},
        {"{\"expression\": \"1d6\", \"seed\": -Infinity}", "-Infinity"},
        {"{\"expression\": \"1d6\", \"seed\": 1e999}", "real overflow"},
        {"{\"expression\": \"1d6\", \"expression\": \"2d6\"}", "duplicate keys"},
        {"{\"expression\": \"1d6\\u0000\"}", "escaped NUL"},
        {"[1, 2]", "not an object"},
        {"", "empty"},
        {"{} {}", "trailing data"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        post_json(cases[i][0], cases[i][1]);
    /* Raw bytes: invalid UTF-8 and a NUL inside a string. */
    post_bytes("/v1/dice/roll", "application/json", "{\"expression\": \"\xff\xfe\"}", 20,
               "invalid UTF-8");
    post_bytes("/v1/dice/roll", "application/json", "{\"expression\": \"1d6\0\"}", 21, "raw NUL");
}

Test(bad_input, nesting_100000_deep)
{
    size_t n = 100000;
    char *body = malloc(2 * n + 1);
    memset(body, '[', n);
    memset(body + n, ']', n);
    body[2 * n] = '\0';
    post_json(body, "deep arrays");
    for (size_t i = 0; i < n; i++)
        body[i] = i % 2 ? '{' : '[';
    post_json(body, "deep mixed");
    free(body);
}

Test(bad_input, huge_bodies_and_strings)
{
    /* A 10 MB string: over --max-body (1 MiB), refused whole. */
    size_t n = 10u << 20;
    char *body = malloc(n + 32);
    memcpy(body, "{\"expression\": \"", 16);
    memset(body + 16, 'a', n);
    memcpy(body + 16 + n, "\"}", 3);
    post_bytes("/v1/dice/roll", "application/json", body, n + 18, "10 MB string");
    /* Just under the limit, one long string: a 422 (too long), not a crash. */
    size_t m = (1u << 20) - 64;
    memset(body + 16, '1', m);
    memcpy(body + 16 + m, "\"}", 3);
    post_bytes("/v1/dice/roll", "application/json", body, m + 18, "1 MB expression");
    free(body);
    /* A Content-Length over the limit is refused before the body arrives. */
    struct http_response r;
    const char *big =
        "POST /v1/dice/roll HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Type: "
        "application/json\r\nContent-Length: 99999999\r\n\r\n{";
    if (http_raw(srv.port, big, strlen(big), &r) == 0) {
        cr_assert_eq(r.status, 413);
        http_response_free(&r);
    }
    still_answers();
}

Test(bad_input, content_types_and_chunked_bodies)
{
    const char *ok = "{\"expression\": \"1d6\", \"seed\": 1}";
    post_bytes("/v1/dice/roll", "text/plain", ok, strlen(ok), "text/plain");
    post_bytes("/v1/dice/roll", NULL, ok, strlen(ok), "no content type");
    post_bytes("/v1/dice/roll", "application/json; charset=latin1x", "{", 1, "odd charset");
    /* Chunked: a well-formed chunked JSON body is read whole and answered. */
    const char *chunked =
        "POST /v1/dice/roll HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Type: "
        "application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        "10\r\n{\"expression\": \"\r\n11\r\n1d6\", \"seed\": 1}\r\n0\r\n\r\n";
    struct http_response r;
    cr_assert_eq(http_raw(srv.port, chunked, strlen(chunked), &r), 0);
    cr_assert_eq(r.status, 200, "%s", r.body);
    http_response_free(&r);
    /* A broken chunk size: refused or closed. That is HTTP framing, answered by libmicrohttpd
     * itself (a plain 400) before any route sees it, so it is not an API exchange and is not
     * recorded for the contract check. */
    const char *broken =
        "POST /v1/dice/roll HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Type: "
        "application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n";
    int fd = http_connect(srv.port);
    cr_assert_eq(send(fd, broken, strlen(broken), MSG_NOSIGNAL), (ssize_t)strlen(broken));
    int rc = http_read_response(fd, &r);
    close(fd);
    if (rc == 0) {
        cr_assert(r.status >= 400 && r.status < 500, "broken chunk: %d", r.status);
        http_response_free(&r);
    }
    still_answers();
}

/* A client that sends one byte a second is cut off by the idle timeout (here 2 s), and others
 * are served meanwhile. */
Test(bad_input, a_client_sending_one_byte_a_second)
{
    server_stop(&srv);
    const char *args[] = {"--timeout", "2", NULL};
    server_start(&srv, args);
    int fd = http_connect(srv.port);
    const char *req = "POST /v1/dice/roll HTTP/1.1\r\nHost: t\r\n";
    bool closed = false;
    for (size_t i = 0; i < strlen(req) && !closed; i++) {
        if (send(fd, req + i, 1, MSG_NOSIGNAL) != 1)
            closed = true;
        still_answers();
        sleep(1);
        char c;
        if (i > 3 && recv(fd, &c, 1, MSG_DONTWAIT) == 0)
            closed = true;
    }
    close(fd);
    cr_assert(closed, "the slow client was never cut off");
    still_answers();
}
