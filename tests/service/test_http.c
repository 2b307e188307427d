/* The HTTP skeleton, against the real server: every status it can send, headers, logs. */
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/service/builders.h"
#include "tests/service/harness.h"

#define JSON_CT "Content-Type: application/json\r\n"

static struct server srv;

static void start_default(void)
{
    static const char *const args[] = {"--cors-origin", "http://app.example", "--max-body", "4096",
                                       NULL};
    server_start(&srv, args);
}

static void stop(void)
{
    server_stop(&srv);
}

TestSuite(http, .init = start_default, .fini = stop, .timeout = 60);

/* Parses a problem+json body and checks its RFC 9457 members. Returns it (caller decrefs). */
static json_t *expect_problem(const struct http_response *r, int status)
{
    cr_assert_eq(r->status, status, "status %d, body %s", r->status, r->body);
    char ct[128];
    cr_assert(http_header(r, "Content-Type", ct, sizeof ct));
    cr_assert_str_eq(ct, "application/problem+json");
    json_error_t err;
    json_t *doc = json_loads(r->body, 0, &err);
    cr_assert_not_null(doc, "problem body is not JSON: %s", r->body);
    cr_assert(json_is_string(json_object_get(doc, "type")));
    cr_assert(json_is_string(json_object_get(doc, "title")));
    cr_assert(json_is_string(json_object_get(doc, "detail")));
    cr_assert_eq(json_integer_value(json_object_get(doc, "status")), status);
    return doc;
}

Test(http, healthz_answers_ok_with_a_generated_request_id)
{
    struct http_response r;
    http_request(&srv, "GET", "/healthz", NULL, NULL, &r);
    cr_assert_eq(r.status, 200);
    cr_assert_str_eq(r.body, "{\"status\":\"ok\"}");
    char id[200];
    cr_assert(http_header(&r, "X-Request-Id", id, sizeof id));
    cr_assert_eq(strlen(id), 32);
    cr_assert_eq(strspn(id, "0123456789abcdef"), 32);
    http_response_free(&r);
}

Test(http, request_id_from_the_client_is_echoed_and_unsafe_ones_replaced)
{
    struct http_response r;
    http_request(&srv, "GET", "/healthz", "X-Request-Id: bot-42.a:b_c\r\n", NULL, &r);
    char id[200];
    cr_assert(http_header(&r, "X-Request-Id", id, sizeof id));
    cr_assert_str_eq(id, "bot-42.a:b_c");
    http_response_free(&r);
    http_request(&srv, "GET", "/healthz", "X-Request-Id: <script>\r\n", NULL, &r);
    cr_assert(http_header(&r, "X-Request-Id", id, sizeof id));
    cr_assert_eq(strlen(id), 32);
    http_response_free(&r);
}

Test(http, readyz_reports_the_migrated_schema)
{
    struct http_response r;
    http_request(&srv, "GET", "/readyz", NULL, NULL, &r);
    cr_assert_eq(r.status, 200);
    cr_assert_str_eq(r.body, "{\"status\":\"ready\",\"schema_version\":4}");
    http_response_free(&r);
}

Test(http, metrics_count_requests_by_route_and_status)
{
    struct http_response r;
    http_request(&srv, "GET", "/healthz", NULL, NULL, &r);
    http_response_free(&r);
    http_request(&srv, "GET", "/nope", NULL, NULL, &r);
    http_response_free(&r);
    http_request(&srv, "GET", "/metrics", NULL, NULL, &r);
    cr_assert_eq(r.status, 200);
    char ct[128];
    http_header(&r, "Content-Type", ct, sizeof ct);
    cr_assert_str_eq(ct, "text/plain; version=0.0.4; charset=utf-8");
    cr_assert_not_null(strstr(
        r.body,
        "tactics_http_requests_total{method=\"GET\",route=\"/healthz\",status=\"200\"} 1\n"));
    cr_assert_not_null(strstr(
        r.body, "tactics_http_requests_total{method=\"\",route=\"unmatched\",status=\"404\"} 1\n"));
    cr_assert_not_null(
        strstr(r.body, "tactics_http_request_duration_seconds_bucket{le=\"+Inf\"} 2\n"));
    cr_assert_not_null(strstr(r.body, "tactics_http_request_duration_seconds_count 2\n"));
    /* The connection carrying this very request is open while the gauge is read; the two
     * before it may still be closing, since the close is reported after the client's EOF. */
    const char *gauge = strstr(r.body, "\ntactics_http_connections_open ");
    cr_assert_not_null(gauge);
    int open_now = atoi(gauge + strlen("\ntactics_http_connections_open "));
    cr_assert(open_now >= 1 && open_now <= 3, "connections_open %d", open_now);
    cr_assert_not_null(strstr(r.body, "tactics_db_errors_total 0\n"));
    http_response_free(&r);
}

Test(http, unknown_path_is_404_problem)
{
    struct http_response r;
    http_request(&srv, "GET", "/v1/nothing-here", NULL, NULL, &r);
    json_t *p = expect_problem(&r, 404);
    cr_assert_str_eq(json_string_value(json_object_get(p, "type")),
                     "tag:tactics.dev,2026:problem:not-found");
    json_decref(p);
    http_response_free(&r);
}

Test(http, wrong_method_is_405_with_allow)
{
    struct http_response r;
    http_request(&srv, "DELETE", "/healthz", NULL, NULL, &r);
    json_decref(expect_problem(&r, 405));
    char allow[128];
    cr_assert(http_header(&r, "Allow", allow, sizeof allow));
    cr_assert_str_eq(allow, "GET, HEAD, OPTIONS");
    http_response_free(&r);
    http_request(&srv, "GET", "/v1/dice/roll", NULL, NULL, &r);
    json_decref(expect_problem(&r, 405));
    cr_assert(http_header(&r, "Allow", allow, sizeof allow));
    cr_assert_str_eq(allow, "POST, OPTIONS");
    http_response_free(&r);
}

Test(http, head_is_answered_like_get_without_a_body)
{
    struct http_response r;
    http_request(&srv, "HEAD", "/healthz", NULL, NULL, &r);
    cr_assert_eq(r.status, 200);
    cr_assert_eq(r.body_len, 0);
    http_response_free(&r);
}

Test(http, malformed_json_is_400_with_the_parser_offset)
{
    struct http_response r;
    http_request(&srv, "POST", "/v1/dice/roll", JSON_CT, "{\"expression\": \"1d6\",", &r);
    json_t *p = expect_problem(&r, 400);
    json_t *e = json_array_get(json_object_get(p, "errors"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(e, "pointer")), "");
    cr_assert_eq(json_integer_value(json_object_get(e, "offset")), 21);
    json_decref(p);
    http_response_free(&r);
}

Test(http, duplicate_keys_trailing_data_and_empty_bodies_are_400)
{
    static const char *const bodies[] = {"{\"expression\":\"1d6\",\"expression\":\"1d8\"}",
                                         "{\"expression\":\"1d6\"} {}", "", "[1,2"};
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        struct http_response r;
        http_request(&srv, "POST", "/v1/dice/roll", JSON_CT, bodies[i], &r);
        json_decref(expect_problem(&r, 400));
        http_response_free(&r);
    }
}

Test(http, wrong_or_missing_content_type_is_415)
{
    struct http_response r;
    http_request(&srv, "POST", "/v1/dice/roll", "Content-Type: text/plain\r\n",
                 "{\"expression\":\"1d6\"}", &r);
    json_decref(expect_problem(&r, 415));
    http_response_free(&r);
    http_request(&srv, "POST", "/v1/dice/roll", NULL, "{\"expression\":\"1d6\"}", &r);
    json_decref(expect_problem(&r, 415));
    http_response_free(&r);
    /* Parameters after the media type are fine. */
    http_request(&srv, "POST", "/v1/dice/roll", "Content-Type: application/json; charset=utf-8\r\n",
                 "{\"expression\":\"1d6\",\"seed\":1}", &r);
    cr_assert_eq(r.status, 200, "%s", r.body);
    http_response_free(&r);
}

Test(http, declared_body_over_the_limit_is_413_before_it_is_sent)
{
    /* Only the headers go out: the server must answer without waiting for 10 MB. */
    const char *req = "POST /v1/dice/roll HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      "Content-Length: 10000000\r\n\r\n";
    struct http_response r;
    cr_assert_eq(http_raw(srv.port, req, strlen(req), &r), 0);
    json_decref(expect_problem(&r, 413));
    http_response_free(&r);
    /* A client waiting for 100 Continue gets the 413 instead, however small the excess. */
    req = "POST /v1/dice/roll HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
          "Expect: 100-continue\r\nContent-Length: 5000\r\n\r\n";
    cr_assert_eq(http_raw(srv.port, req, strlen(req), &r), 0);
    json_decref(expect_problem(&r, 413));
    http_response_free(&r);
}

Test(http, chunked_body_over_the_limit_is_413)
{
    char req[16384];
    int n = snprintf(req, sizeof req,
                     "POST /v1/dice/roll HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                     "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
    for (int i = 0; i < 5; i++) /* 5 chunks of 1000 bytes: 5000 > --max-body 4096 */
        n += snprintf(req + n, sizeof req - (size_t)n, "3e8\r\n%01000d\r\n", 0);
    n += snprintf(req + n, sizeof req - (size_t)n, "0\r\n\r\n");
    struct http_response r;
    cr_assert_eq(http_raw(srv.port, req, (size_t)n, &r), 0);
    json_decref(expect_problem(&r, 413));
    http_response_free(&r);
}

Test(http, invalid_values_are_422_naming_each_field_by_pointer)
{
    struct http_response r;
    http_request(&srv, "POST", "/v1/dice/roll", JSON_CT,
                 "{\"expression\":\"2d0\",\"seed\":-1,\"colour\":\"red\"}", &r);
    json_t *p = expect_problem(&r, 422);
    json_t *errors = json_object_get(p, "errors");
    cr_assert_eq(json_array_size(errors), 3, "%s", r.body);
    const char *want[] = {"/colour", "/expression", "/seed"};
    for (size_t i = 0; i < 3; i++) {
        bool found = false;
        for (size_t k = 0; k < 3; k++)
            found |=
                strcmp(json_string_value(json_object_get(json_array_get(errors, k), "pointer")),
                       want[i]) == 0;
        cr_assert(found, "no error for %s in %s", want[i], r.body);
    }
    json_decref(p);
    http_response_free(&r);
}

/* Connects and sends the head of a POST /v1/dice/roll for body (not sent), with the extra
 * header lines; returns the socket. */
static int send_roll_head(const char *body, const char *extra)
{
    char head[256];
    snprintf(head, sizeof head,
             "POST /v1/dice/roll HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" JSON_CT
             "%sContent-Length: %zu\r\n\r\n",
             extra, strlen(body));
    int fd = http_connect(srv.port);
    cr_assert_eq(send(fd, head, strlen(head), 0), (ssize_t)strlen(head));
    return fd;
}

Test(http, body_split_across_many_writes_is_reassembled)
{
    const char *body = "{\"expression\":\"3d6+2\",\"seed\":7}";
    int fd = send_roll_head(body, "");
    for (size_t i = 0; i < strlen(body); i += 4) { /* 4 bytes at a time, 5 ms apart */
        size_t n = strlen(body) - i < 4 ? strlen(body) - i : 4;
        cr_assert_eq(send(fd, body + i, n, 0), (ssize_t)n);
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    struct http_response r;
    cr_assert_eq(http_read_response(fd, &r), 0);
    close(fd);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_not_null(strstr(r.body, "\"expression\":\"3d6+2\""));
    http_response_free(&r);
}

Test(http, cors_preflight_lists_methods_and_headers_for_an_allowed_origin)
{
    struct http_response r;
    http_request(&srv, "OPTIONS", "/v1/dice/roll",
                 "Origin: http://app.example\r\nAccess-Control-Request-Method: POST\r\n", NULL, &r);
    cr_assert_eq(r.status, 204);
    char v[256];
    cr_assert(http_header(&r, "Access-Control-Allow-Origin", v, sizeof v));
    cr_assert_str_eq(v, "http://app.example");
    cr_assert(http_header(&r, "Access-Control-Allow-Methods", v, sizeof v));
    cr_assert_str_eq(v, "POST, OPTIONS");
    cr_assert(http_header(&r, "Access-Control-Allow-Headers", v, sizeof v));
    cr_assert_not_null(strstr(v, "If-Match"));
    cr_assert_not_null(strstr(v, "Idempotency-Key"));
    cr_assert_not_null(strstr(v, "Authorization"));
    http_response_free(&r);
}

Test(http, cors_headers_only_for_allowed_origins)
{
    struct http_response r;
    char v[256];
    http_request(&srv, "GET", "/healthz", "Origin: http://app.example\r\n", NULL, &r);
    cr_assert(http_header(&r, "Access-Control-Allow-Origin", v, sizeof v));
    cr_assert_str_eq(v, "http://app.example");
    cr_assert(http_header(&r, "Access-Control-Expose-Headers", v, sizeof v));
    cr_assert_not_null(strstr(v, "X-Request-Id"));
    http_response_free(&r);
    http_request(&srv, "GET", "/healthz", "Origin: http://evil.example\r\n", NULL, &r);
    cr_assert_not(http_header(&r, "Access-Control-Allow-Origin", v, sizeof v));
    http_response_free(&r);
}

/* Issue 31: a browser app that sends Prefer (the README recommends return=minimal) passes the
 * preflight, and reads every header the API answers with, not only ETag and Location. */
Test(http, cors_allows_prefer_and_exposes_every_answer_header)
{
    struct http_response r;
    char v[256];
    http_request(&srv, "OPTIONS", "/v1/encounters",
                 "Origin: http://app.example\r\nAccess-Control-Request-Method: POST\r\n"
                 "Access-Control-Request-Headers: prefer, content-type\r\n",
                 NULL, &r);
    cr_assert_eq(r.status, 204);
    cr_assert(http_header(&r, "Access-Control-Allow-Headers", v, sizeof v));
    cr_assert_not_null(strstr(v, "Prefer"), "%s", v);
    http_response_free(&r);
    http_request(&srv, "GET", "/healthz", "Origin: http://app.example\r\n", NULL, &r);
    cr_assert(http_header(&r, "Access-Control-Expose-Headers", v, sizeof v));
    static const char *const exposed[] = {
        "ETag",        "Location", "Preference-Applied", "Retry-After", "Idempotent-Replayed",
        "X-Request-Id"};
    for (size_t i = 0; i < sizeof exposed / sizeof exposed[0]; i++)
        cr_assert_not_null(strstr(v, exposed[i]), "%s not in %s", exposed[i], v);
    http_response_free(&r);
}

Test(http, every_request_writes_one_json_access_log_line)
{
    struct http_response r;
    http_request(&srv, "GET", "/healthz", "X-Request-Id: log-check-1\r\n", NULL, &r);
    http_response_free(&r);
    /* The line is written when the request completes, just after the response is sent: read
     * the log until it is there. */
    json_t *line = NULL;
    while (line == NULL) {
        char *log = server_log(&srv);
        char *at = strstr(log, "\"request_id\":\"log-check-1\"");
        if (at != NULL) {
            while (at > log && at[-1] != '\n')
                at--;
            line = json_loadb(at, strcspn(at, "\n"), 0, NULL);
        }
        free(log);
        if (line == NULL) {
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    cr_assert_str_eq(json_string_value(json_object_get(line, "method")), "GET");
    cr_assert_str_eq(json_string_value(json_object_get(line, "path")), "/healthz");
    cr_assert_eq(json_integer_value(json_object_get(line, "status")), 200);
    cr_assert(json_is_integer(json_object_get(line, "duration_us")));
    cr_assert(json_is_string(json_object_get(line, "time")));
    json_decref(line);
}

/* SIGTERM mid-body: the request is in flight (the server has read its head and asked for the
 * body: 100 Continue), the signal is taken (the log's "stopping"), then the rest of the body
 * comes, and the answer is still a 200. Each step waits for the one before it. */
Test(http, sigterm_finishes_the_request_in_flight_then_exits_zero)
{
    const char *body = "{\"expression\":\"1d20\",\"seed\":3}";
    int fd = send_roll_head(body, "Expect: 100-continue\r\n");
    char cont[64] = "";
    size_t got = 0;
    while (strstr(cont, "\r\n\r\n") == NULL) {
        ssize_t n = recv(fd, cont + got, sizeof cont - 1 - got, 0);
        cr_assert_gt(n, 0, "no 100 Continue: %s", cont);
        got += (size_t)n;
        cont[got] = '\0';
    }
    cr_assert_not_null(strstr(cont, " 100 "), "%s", cont);
    cr_assert_eq(send(fd, body, 5, 0), 5);
    kill(srv.pid, SIGTERM); /* mid-body */
    for (;;) {
        char *log = server_log(&srv);
        bool stopping = strstr(log, "\"event\":\"stopping\"") != NULL;
        free(log);
        if (stopping)
            break;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    cr_assert_eq(send(fd, body + 5, strlen(body) - 5, 0), (ssize_t)(strlen(body) - 5));
    struct http_response r;
    cr_assert_eq(http_read_response(fd, &r), 0);
    close(fd);
    cr_assert_eq(r.status, 200, "%s", r.body);
    http_response_free(&r);
    int status = 0;
    cr_assert_eq(waitpid(srv.pid, &status, 0), srv.pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
    /* New connections are refused once it has stopped. */
    srv.pid = 0;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", srv.dir);
    cr_assert_eq(system(cmd), 0);
}

static int run_tacticsd(const char *arg, char *out, size_t len)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", TACTICSD_PATH, arg);
    FILE *p = popen(cmd, "r");
    size_t n = fread(out, 1, len - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Test(cli, help_version_and_bad_flags)
{
    char out[16384]; /* all of --help: a reader that stops early kills it with SIGPIPE */
    cr_assert_eq(run_tacticsd("--help", out, sizeof out), 0);
    cr_assert_not_null(strstr(out, "--max-body"));
    cr_assert_not_null(strstr(out, "TACTICS_PORT"));
    cr_assert_eq(run_tacticsd("--version", out, sizeof out), 0);
    cr_assert_not_null(strstr(out, "tacticsd "));
    cr_assert_eq(run_tacticsd("--port 70000", out, sizeof out), 2);
    cr_assert_not_null(strstr(out, "invalid value for --port"));
    cr_assert_eq(run_tacticsd("--frobnicate", out, sizeof out), 2);
    cr_assert_eq(
        run_tacticsd("--bind not-an-address --port 0 --db /tmp/tactics-cli.db", out, sizeof out),
        1);
    cr_assert_not_null(strstr(out, "listen_failed"));
    unlink("/tmp/tactics-cli.db");
    unlink("/tmp/tactics-cli.db-wal");
    unlink("/tmp/tactics-cli.db-shm");
}

Test(http, openapi_json_is_the_bundled_contract)
{
    struct http_response r;
    tb_get_typed(&srv, "/openapi.json", "application/json", &r);
    json_t *doc = json_loadb(r.body, r.body_len, 0, NULL);
    cr_assert_not_null(doc);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "openapi")), "3.1.0");
    json_t *paths = json_object_get(doc, "paths");
    cr_assert_not_null(json_object_get(paths, "/v1/dice/roll"));
    cr_assert_not_null(json_object_get(paths, "/healthz"));
    json_decref(doc);
    http_response_free(&r);
}

Test(http, docs_page_is_self_contained_html)
{
    struct http_response r;
    tb_get_typed(&srv, "/docs", "text/html; charset=utf-8", &r);
    cr_assert_not_null(strstr(r.body, "<html"));
    cr_assert_not_null(strstr(r.body, "Roll dice")); /* rendered from openapi.yaml */
    /* Redoc is inlined: no script, stylesheet or font is fetched from elsewhere. */
    cr_assert_null(strstr(r.body, "<script src=\"http"));
    cr_assert_null(strstr(r.body, "fonts.googleapis.com"));
    cr_assert_gt(r.body_len, 500000);
    http_response_free(&r);
}

/* The browser view: one page, script and style inline, nothing from elsewhere, and a policy that
 * lets it call this server only and run its own script only (tests/browser checks the hash). */
Test(http, play_page_is_self_contained_and_calls_only_its_own_origin)
{
    struct http_response r;
    http_request(&srv, "GET", "/play?encounter=abc&at=2", NULL, NULL, &r);
    cr_assert_eq(r.status, 200);
    char ct[128], csp[512];
    http_header(&r, "Content-Type", ct, sizeof ct);
    cr_assert_str_eq(ct, "text/html; charset=utf-8");
    cr_assert(http_header(&r, "Content-Security-Policy", csp, sizeof csp));
    cr_assert_not_null(strstr(csp, "connect-src 'self'"), "%s", csp);
    cr_assert_not_null(strstr(csp, "default-src 'none'"), "%s", csp);
    cr_assert_not_null(strstr(csp, "script-src 'sha256-"), "%s", csp);
    cr_assert_null(strstr(csp, "script-src 'unsafe-inline'"), "%s", csp);
    cr_assert_not_null(strstr(r.body, "<main id=\"main\""));
    cr_assert_not_null(strstr(r.body, "type=\"range\""));
    cr_assert_not_null(strstr(r.body, "EventSource"));
    cr_assert_not_null(strstr(r.body, "prefers-color-scheme: dark"));
    /* Nothing is loaded from another origin. */
    cr_assert_null(strstr(r.body, "src=\"http"));
    cr_assert_null(strstr(r.body, "href=\"http"));
    cr_assert_null(strstr(r.body, "://"), "an absolute URL in the page");
    http_response_free(&r);
}

/* A dice request padded with spaces inside its object to `size` bytes (malloc'd). */
static char *padded_roll(const char *expression, size_t size)
{
    char *b = malloc(size + 1);
    int n = snprintf(b, size + 1, "{\"expression\":\"%s\",\"seed\":7", expression);
    memset(b + n, ' ', size - (size_t)n - 1);
    b[size - 1] = '}';
    b[size] = '\0';
    return b;
}

/* Each worker thread keeps its last request's state, and its body buffer when that is at most
 * 16 KB, for its next request (server.c). Requests on one keep-alive connection are served by
 * one thread: after a kept 3 KB body, a 20 KB one that is not kept, a small one and an empty
 * one, each answer must come from its own body. */
Test(http, each_request_on_a_connection_is_read_from_its_own_body)
{
    char *kept = padded_roll("3d6+2", 3000), *dropped = padded_roll("1d8", 20000);
    const char *bodies[] = {kept, dropped, "{\"expression\":\"1d4\",\"seed\":1}", "",
                            "{\"expression\":\"2d8\",\"seed\":3}"};
    const int statuses[] = {200, 200, 200, 400, 200};
    const char *expect[] = {"\"expression\":\"3d6+2\"", "\"expression\":\"1d8\"",
                            "\"expression\":\"1d4\"", "application/problem+json",
                            "\"expression\":\"2d8\""};
    size_t cap = 64 * 1024, len = 0;
    char *req = malloc(cap);
    for (int i = 0; i < 5; i++)
        len += (size_t)snprintf(
            req + len, cap - len,
            "POST /v1/dice/roll HTTP/1.1\r\nHost: x\r\n%s" JSON_CT "Content-Length: %zu\r\n\r\n%s",
            i == 4 ? "Connection: close\r\n" : "", strlen(bodies[i]), bodies[i]);
    struct server own; /* this suite's server takes 4 KB bodies */
    static const char *const args[] = {"--max-body", "65536", NULL};
    server_start(&own, args);
    int fd = http_connect(own.port);
    for (size_t sent = 0; sent < len;) {
        ssize_t n = send(fd, req + sent, len - sent, 0);
        cr_assert_gt(n, 0);
        sent += (size_t)n;
    }
    struct http_response r;
    cr_assert_eq(http_read_response(fd, &r), 0);
    close(fd);
    /* The answers one after another: the first's head, then everything read after it. */
    size_t all_len = strlen(r.head) + 4 + r.body_len;
    char *all = malloc(all_len + 1);
    snprintf(all, all_len + 1, "%s\r\n\r\n%s", r.head, r.body);
    const char *answers[6] = {all};
    for (int i = 1; i <= 5; i++)
        answers[i] = answers[i - 1] ? strstr(answers[i - 1] + 1, "HTTP/1.1 ") : NULL;
    cr_assert_null(answers[5], "more answers than requests: %s", all);
    for (int i = 0; i < 5; i++) {
        cr_assert_not_null(answers[i], "answer %d missing: %s", i, all);
        const char *end = answers[i + 1] ? answers[i + 1] : all + all_len;
        char *one = strndup(answers[i], (size_t)(end - answers[i]));
        int status = 0;
        cr_assert_eq(sscanf(one, "HTTP/1.%*d %d", &status), 1);
        cr_assert_eq(status, statuses[i], "request %d: %s", i, one);
        cr_assert_not_null(strstr(one, expect[i]), "request %d: %s", i, one);
        free(one);
    }
    free(all);
    server_stop(&own);
    http_response_free(&r);
    free(req);
    free(kept);
    free(dropped);
}

/* Framing a proxy in front of us could read differently from libmicrohttpd is refused with a
 * 400 problem, before any body is read. */
static void expect_refused(const char *request, const char *what)
{
    struct http_response r;
    cr_assert_eq(http_raw(srv.port, request, strlen(request), &r), 0, "%s: no answer", what);
    json_t *p = expect_problem(&r, 400);
    cr_assert_str_eq(json_string_value(json_object_get(p, "type")),
                     "tag:tactics.dev,2026:problem:bad-request", "%s", what);
    json_decref(p);
    http_response_free(&r);
}

Test(http, an_encoded_nul_or_slash_in_the_path_is_400)
{
    expect_refused("GET /healthz%00 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "%00");
    expect_refused("GET /healthz%00.json?x=1 HTTP/1.1\r\nHost: x\r\n\r\n", "%00 mid-path");
    expect_refused("GET /healthz?x=a%00b HTTP/1.1\r\nHost: x\r\n\r\n", "%00 in the query");
    expect_refused("GET /v1/encounters/a%2Fb HTTP/1.1\r\nHost: x\r\n\r\n", "%2F");
    expect_refused("GET /v1/encounters/a%2fb/events HTTP/1.1\r\nHost: x\r\n\r\n", "%2f");
    /* A stored encounter is not reachable by its id with a NUL after it. */
    json_t *created =
        http_post_json(&srv, "/v1/encounters", "{\"map\":{\"width\":5,\"height\":5}}", 201);
    char req[256];
    snprintf(req, sizeof req, "GET /v1/encounters/%s%%00 HTTP/1.1\r\nHost: x\r\n\r\n",
             json_string_value(json_object_get(created, "id")));
    json_decref(created);
    expect_refused(req, "id%00");
    /* An encoded slash in the query is an ordinary character there. */
    struct http_response r;
    http_request(&srv, "GET", "/healthz?next=a%2Fb", NULL, NULL, &r);
    cr_assert_eq(r.status, 200, "%s", r.body);
    http_response_free(&r);
}

Test(http, conflicting_content_lengths_or_transfer_encoding_with_a_length_are_400)
{
    const char *body = "{\"expression\":\"1d6\",\"seed\":1}"; /* 29 bytes */
    char req[512];
    snprintf(req, sizeof req,
             "POST /v1/dice/roll HTTP/1.1\r\nHost: x\r\n" JSON_CT
             "Content-Length: 29\r\nContent-Length: 5\r\n\r\n%s",
             body);
    expect_refused(req, "two lengths");
    snprintf(req, sizeof req,
             "POST /v1/dice/roll HTTP/1.1\r\nHost: x\r\n" JSON_CT
             "Content-Length: 29\r\nTransfer-Encoding: chunked\r\n\r\n1d\r\n%s\r\n0\r\n\r\n",
             body);
    expect_refused(req, "chunked and a length");
    /* The same length twice frames the message one way only (RFC 9112 section 6.3). */
    snprintf(req, sizeof req,
             "POST /v1/dice/roll HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" JSON_CT
             "Content-Length: 29\r\nContent-Length: 29\r\n\r\n%s",
             body);
    struct http_response r;
    cr_assert_eq(http_raw(srv.port, req, strlen(req), &r), 0);
    cr_assert_eq(r.status, 200, "%s", r.body);
    http_response_free(&r);
}

/* A client that sends its whole body before reading (as Python's http.client does) must see
 * the 413, not a reset: a body declared up to 1 MiB over --max-body is read and discarded
 * before the answer. */
Test(http, a_body_sent_whole_over_the_limit_gets_its_413_not_a_reset)
{
    size_t len = 1000 * 1000;
    char *req = malloc(len + 256);
    int n = snprintf(req, 256,
                     "POST /v1/dice/roll HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" JSON_CT
                     "Content-Length: %zu\r\n\r\n",
                     len);
    memset(req + n, ' ', len);
    for (int i = 0; i < 10; i++) {
        /* The head first, then the body, as http.client writes them: the server has read the
         * head (and, before the fix, answered and closed) by the time the body follows. */
        int fd = http_connect(srv.port);
        cr_assert_eq(send(fd, req, (size_t)n, MSG_NOSIGNAL), n);
        struct timespec pause = {0, 20 * 1000 * 1000};
        nanosleep(&pause, NULL);
        for (size_t sent = (size_t)n; sent < (size_t)n + len;) {
            ssize_t k = send(fd, req + sent, (size_t)n + len - sent, MSG_NOSIGNAL);
            cr_assert_gt(k, 0, "try %d: sending the body failed after %zu bytes: %s", i, sent,
                         strerror(errno));
            sent += (size_t)k;
        }
        struct http_response r;
        cr_assert_eq(http_read_response(fd, &r), 0, "try %d: no answer", i);
        close(fd);
        json_decref(expect_problem(&r, 413));
        http_response_free(&r);
    }
    free(req);
}

/* Errors libmicrohttpd would let through or write itself in HTML, shaped here: an HTTP/1.1
 * request without a Host header, or with two (RFC 9112 section 3.2), is a 400 problem. */
Test(http, an_http_1_1_request_without_one_host_header_is_a_400_problem)
{
    expect_refused("GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n", "no Host");
    expect_refused("GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n",
                   "two Host");
    /* HTTP/1.0 has no Host requirement. */
    const char *req = "GET /healthz HTTP/1.0\r\n\r\n";
    struct http_response r;
    cr_assert_eq(http_raw(srv.port, req, strlen(req), &r), 0);
    cr_assert_eq(r.status, 200, "%s", r.body);
    http_response_free(&r);
}

/* A header whose value holds a NUL byte (issue 28): libmicrohttpd ends the value at the NUL, so
 * "Bearer TOKEN\0junk" would be read as the token. Any such header is a 400 problem naming it,
 * before routing: wherever it stands in the head, with CRLF or bare LF line ends. */
static void expect_nul_refused(const char *request, size_t len, const char *header)
{
    struct http_response r;
    cr_assert_eq(http_raw(srv.port, request, len, &r), 0, "%s: no answer", header);
    json_t *p = expect_problem(&r, 400);
    const char *detail = json_string_value(json_object_get(p, "detail"));
    cr_assert_not_null(detail, "%s", header);
    cr_assert_not_null(strstr(detail, header), "%s: %s", header, detail);
    cr_assert_not_null(strstr(detail, "NUL"), "%s: %s", header, detail);
    json_decref(p);
    http_response_free(&r);
}

#define RAW(s) s, sizeof s - 1

Test(http, a_header_holding_a_nul_byte_is_400_naming_it)
{
    expect_nul_refused(RAW("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Note: a\0b\r\n"
                           "Connection: close\r\n\r\n"),
                       "X-Note");
    expect_nul_refused(RAW("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                           "X-Last: a\0b\r\n\r\n"),
                       "X-Last");
    expect_nul_refused(RAW("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Two: a\0\0b\r\n"
                           "Connection: close\r\n\r\n"),
                       "X-Two");
    expect_nul_refused(RAW("GET /healthz HTTP/1.1\r\nX-First:\0b\r\nHost: x\r\n"
                           "Connection: close\r\n\r\n"),
                       "X-First");
    expect_nul_refused(RAW("GET /healthz HTTP/1.1\nHost: x\nX-Lf: a\0b\nConnection: close\n\n"),
                       "X-Lf");
    expect_nul_refused(RAW("GET /healthz HTTP/1.1\r\nHost: x\r\nX-End: a\0\r\n"
                           "Connection: close\r\n\r\n"),
                       "X-End");
    expect_nul_refused(RAW("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                           "X-Last-Two: a\0\0b\r\n\r\n"),
                       "X-Last-Two");
    /* A value folded over lines (obs-fold) is refused too (RFC 9112 section 5.2). */
    expect_nul_refused(RAW("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Fold: a\r\n b\r\n"
                           "Connection: close\r\n\r\n"),
                       "folded");
    /* Heads without a NUL are read as before: bare LF line ends, trailing spaces, a last header
     * with nothing after it. */
    const char *fine[] = {
        "GET /healthz HTTP/1.1\nHost: x\nConnection: close\n\n",
        "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Spaces: a  \r\nConnection: close\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Empty:\r\n\r\n",
        "GET /healthz HTTP/1.0\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++) {
        struct http_response r;
        cr_assert_eq(http_raw(srv.port, fine[i], strlen(fine[i]), &r), 0);
        cr_assert_eq(r.status, 200, "%zu: %s", i, r.body);
        http_response_free(&r);
    }
}

/* The probe: a write token followed by a NUL and more is not the token. The encounter
 * is still there after the refused DELETE, and the token alone deletes it. */
Test(http, a_bearer_token_cut_by_a_nul_byte_is_refused)
{
    struct enc e;
    enc_create(&srv, &e, "{\"map\":{\"width\":5,\"height\":5}}");
    char req[512];
    int n = snprintf(req, sizeof req,
                     "DELETE /v1/encounters/%s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                     "Authorization: Bearer %s",
                     e.id, e.token);
    memcpy(req + n, "\0junk\r\n\r\n", 9);
    expect_nul_refused(req, (size_t)n + 9, "Authorization");
    char path[128];
    snprintf(path, sizeof path, "/v1/encounters/%s", e.id);
    struct http_response r;
    http_request(&srv, "GET", path, NULL, NULL, &r);
    cr_assert_eq(r.status, 200, "%s", r.body);
    http_response_free(&r);
    json_decref(enc_call(&srv, &e, "DELETE", "", NULL, NULL, 204));
}
