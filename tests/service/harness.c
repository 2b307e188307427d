#include "tests/service/harness.h"
#include "tests/service/builders.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return strdup("");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, f);
    buf[got] = '\0';
    fclose(f);
    return buf;
}

char *server_log(const struct server *s)
{
    return slurp(s->log_path);
}

bool server_on_postgres(void)
{
    return getenv("TACTICS_TEST_PG") != NULL;
}

/* Runs one statement in the PostgreSQL server's database `tactics` (PGHOST, PGUSER). */
static void pg_admin(const char *sql)
{
    PGconn *c = PQconnectdb("postgresql:///tactics");
    cr_assert_eq(PQstatus(c), CONNECTION_OK, "%s", PQerrorMessage(c));
    PGresult *res = PQexec(c, sql);
    cr_assert_eq(PQresultStatus(res), PGRES_COMMAND_OK, "%s: %s", sql, PQresultErrorMessage(res));
    PQclear(res);
    PQfinish(c);
}

void server_start(struct server *s, const char *const *extra_args)
{
    memset(s, 0, sizeof *s);
    snprintf(s->dir, sizeof s->dir, "/tmp/tactics-svc-XXXXXX");
    cr_assert_not_null(mkdtemp(s->dir));
    snprintf(s->log_path, sizeof s->log_path, "%s/stderr.log", s->dir);
    snprintf(s->db_path, sizeof s->db_path, "%s/t.db", s->dir);
    if (server_on_postgres()) {
        /* A fresh, empty schema of its own, named after the folder (unique on this machine),
         * which the server's every connection searches first (libpq's options=-csearch_path=):
         * its tables are made there by its own migrations, and no other test's are visible.
         * A schema rather than a database: CREATE DATABASE copies template1 (7 MB of WAL) and
         * DROP DATABASE removes it, 0.23 s a server quiet and several seconds loaded, for each
         * of some 350 servers; a schema costs milliseconds. What they share is the database's
         * LISTEN/NOTIFY channel (a server may hear another test's encounter ids, which no feed
         * of its own follows) and its migration lock (servers migrate one after another). */
        snprintf(s->pg_name, sizeof s->pg_name, "svc_%d_%s", (int)getpid(),
                 strrchr(s->dir, '-') + 1);
        for (char *p = s->pg_name; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        char sql[96];
        snprintf(sql, sizeof sql, "CREATE SCHEMA %s", s->pg_name);
        pg_admin(sql);
        snprintf(s->db_path, sizeof s->db_path, "postgresql:///tactics?options=-csearch_path%%3D%s",
                 s->pg_name);
    }

    const char *argv[32] = {TACTICSD_PATH, "--port", "0", "--db", s->db_path, "--threads", "2"};
    int argc = 7;
    for (int i = 0; extra_args && extra_args[i] && argc < 31; i++)
        argv[argc++] = extra_args[i];
    argv[argc] = NULL;

    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        /* A test that fails an assertion exits without stopping its servers: take them along. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        int fd = open(s->log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(fd, 2);
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 1);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    s->pid = pid;
    /* Wait for the "listening" log line, which carries the bound port, or for the server to
     * exit: however long a loaded machine takes to start it (and, on PostgreSQL, to migrate). */
    for (;;) {
        char *log = server_log(s);
        const char *line = strstr(log, "\"event\":\"listening\"");
        if (line != NULL) {
            const char *p = strstr(line, "\"port\":");
            cr_assert_not_null(p);
            s->port = (unsigned)atoi(p + 7);
            free(log);
            return;
        }
        free(log);
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid)
            cr_assert_fail("tacticsd exited during start-up (status %d)", status);
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

/* server_stop, and what the server logged (the caller frees; NULL if it was not running). */
char *server_stop_log(struct server *s)
{
    if (s->pid <= 0)
        return NULL;
    kill(s->pid, SIGTERM);
    int status = 0;
    cr_assert_eq(waitpid(s->pid, &status, 0), s->pid);
    s->pid = 0;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", s->dir);
    char *log = server_log(s);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        cr_log_error("tacticsd log:\n%s", log);
        free(log);
        cr_assert_fail("tacticsd did not exit 0 on SIGTERM (status %d)", status);
    }
    cr_assert_eq(system(cmd), 0);
    if (s->pg_name[0] != '\0') {
        char sql[96];
        snprintf(sql, sizeof sql, "DROP SCHEMA %s CASCADE", s->pg_name);
        pg_admin(sql);
    }
    return log;
}

void server_stop(struct server *s)
{
    free(server_stop_log(s));
}

/* A socket connected to 127.0.0.1:port, or -1. Never asserts: a writer forked by a test
 * (the SIGKILL test) must not report to Criterion, whose runner rejects messages from
 * processes it did not start, and must simply stop when the server is gone (its socket then
 * ends). No receive timeout: an answer is waited for however long a loaded machine takes (a
 * heavy search under ASan takes seconds quiet); a test that hangs is ended by its timeout. */
static int try_connect(unsigned port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int http_connect(unsigned port)
{
    int fd = try_connect(port);
    cr_assert_geq(fd, 0, "connect: %s", strerror(errno));
    return fd;
}

int http_read_response(int fd, struct http_response *r)
{
    memset(r, 0, sizeof *r);
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (len + 4096 > cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
        ssize_t n = recv(fd, buf + len, cap - len - 1, 0);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    char *sep = strstr(buf, "\r\n\r\n");
    if (len == 0 || sep == NULL || sscanf(buf, "HTTP/1.%*d %d", &r->status) != 1) {
        free(buf);
        return -1;
    }
    *sep = '\0';
    r->head = buf;
    r->body_len = len - (size_t)(sep + 4 - buf);
    r->body = malloc(r->body_len + 1);
    memcpy(r->body, sep + 4, r->body_len);
    r->body[r->body_len] = '\0';
    return 0;
}

int http_raw(unsigned port, const char *request, size_t len, struct http_response *r)
{
    int fd = try_connect(port);
    if (fd < 0) {
        memset(r, 0, sizeof *r);
        return -1;
    }
    size_t sent = 0;
    while (sent < len) {
        ssize_t n = send(fd, request + sent, len - sent, MSG_NOSIGNAL);
        if (n <= 0)
            break;
        sent += (size_t)n;
    }
    int rc = http_read_response(fd, r);
    close(fd);
    if (rc == 0)
        http_record_exchange(request, len, r);
    return rc;
}

bool http_header(const struct http_response *r, const char *name, char *buf, size_t len)
{
    size_t n = strlen(name);
    for (const char *line = strstr(r->head, "\r\n"); line != NULL;
         line = strstr(line + 2, "\r\n")) {
        const char *h = line + 2;
        if (strncasecmp(h, name, n) == 0 && h[n] == ':') {
            const char *v = h + n + 1;
            while (*v == ' ')
                v++;
            size_t vl = strcspn(v, "\r\n");
            if (vl >= len)
                vl = len - 1;
            memcpy(buf, v, vl);
            buf[vl] = '\0';
            return true;
        }
    }
    return false;
}

void http_response_free(struct http_response *r)
{
    free(r->head);
    free(r->body);
    memset(r, 0, sizeof *r);
}

/* Appends one exchange to $TACTICS_EXCHANGE_LOG for the OpenAPI contract check: the request's
 * method and path (from its request line), the status, every response header (names in lower
 * case), the body, the request body when one was sent whole, and the Criterion test sending it. */
void http_record_exchange(const char *raw, size_t len, const struct http_response *r)
{
    const char *log = getenv("TACTICS_EXCHANGE_LOG");
    if (log == NULL || *log == '\0')
        return;
    char *request = strndup(raw, len); /* the request is bytes with a length, not a string */
    char method[16] = "", path[2048] = "";
    if (sscanf(request, "%15s %2047s", method, path) != 2) {
        free(request);
        return;
    }
    json_t *headers = json_object();
    for (const char *line = strstr(r->head, "\r\n"); line != NULL;
         line = strstr(line + 2, "\r\n")) {
        const char *h = line + 2;
        const char *colon = strchr(h, ':');
        size_t end = strcspn(h, "\r\n");
        if (colon == NULL || (size_t)(colon - h) > end)
            continue;
        char name[128];
        size_t n = (size_t)(colon - h) < sizeof name - 1 ? (size_t)(colon - h) : sizeof name - 1;
        for (size_t i = 0; i < n; i++)
            name[i] = (char)tolower((unsigned char)h[i]);
        name[n] = '\0';
        const char *v = colon + 1;
        while (*v == ' ')
            v++;
        json_object_set_new(headers, name, json_stringn_nocheck(v, (size_t)(h + end - v)));
    }
    char ct[128] = "";
    http_header(r, "Content-Type", ct, sizeof ct);
    json_t *line = json_pack("{s:s, s:s, s:i, s:s, s:o}", "method", method, "path", path, "status",
                             r->status, "content_type", ct, "headers", headers);
    /* A body that is not UTF-8 text (a PNG) is recorded by its length: the contract check
     * then checks its media type only. */
    json_t *body = json_stringn(r->body, r->body_len);
    if (body != NULL)
        json_object_set_new(line, "body", body);
    else
        json_object_set_new(line, "body_length", json_integer((json_int_t)r->body_len));
    /* The test that sent it, so openapi/examples.json can say where each example comes from. */
    const struct criterion_test *test = criterion_current_test;
    if (test != NULL && test->category != NULL && test->name != NULL) {
        char name[256];
        snprintf(name, sizeof name, "%s/%s", test->category, test->name);
        json_object_set_new(line, "test", json_string(name));
    }
    /* The request body, when sent whole (not chunked), for the request-schema check. */
    const char *sep = strstr(request, "\r\n\r\n");
    if (sep != NULL && strcasestr(request, "Transfer-Encoding: chunked") == NULL && sep[4] != '\0')
        json_object_set_new(line, "request_body", json_string_nocheck(sep + 4));
    char *text = json_dumps(line, JSON_COMPACT);
    json_decref(line);
    /* O_APPEND with one write per line keeps lines whole across parallel test workers. */
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0 && text != NULL) {
        size_t n = strlen(text);
        text[n] = '\n';
        ssize_t w = write(fd, text, n + 1);
        (void)w;
        text[n] = '\0';
    }
    if (fd >= 0)
        close(fd);
    free(text);
    free(request);
}

void http_request(const struct server *s, const char *method, const char *path, const char *headers,
                  const char *body, struct http_response *r)
{
    size_t blen = body ? strlen(body) : 0;
    size_t cap = strlen(path) + (headers ? strlen(headers) : 0) + blen + 256;
    char *req = malloc(cap);
    int n = snprintf(req, cap, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n%s",
                     method, path, headers ? headers : "");
    if (body != NULL)
        n += snprintf(req + n, cap - (size_t)n, "Content-Length: %zu\r\n", blen);
    n += snprintf(req + n, cap - (size_t)n, "\r\n");
    if (body != NULL) {
        memcpy(req + n, body, blen);
        n += (int)blen;
    }
    int rc = http_raw(s->port, req, (size_t)n, r);
    free(req);
    cr_assert_eq(rc, 0, "no HTTP response to %s %s", method, path);
}

json_t *http_post_json(const struct server *s, const char *path, const char *body, int status)
{
    struct http_response r;
    http_request(s, "POST", path, "Content-Type: application/json\r\n", body, &r);
    cr_assert_eq(r.status, status, "%s %s -> %d %s", path, body, r.status, r.body);
    json_t *doc = json_loadb(r.body, r.body_len, 0, NULL);
    cr_assert_not_null(doc, "response is not JSON: %s", r.body);
    http_response_free(&r);
    return doc;
}

json_t *enc_call(const struct server *s, struct enc *e, const char *method, const char *suffix,
                 const char *extra, const char *body, int status)
{
    char path[160], headers[512];
    snprintf(path, sizeof path, "/v1/encounters/%s%s", e->id, suffix);
    snprintf(headers, sizeof headers, "Authorization: Bearer %s\r\nIf-Match: \"v%lld\"\r\n%s%s",
             e->token, e->version, body ? "Content-Type: application/json\r\n" : "",
             extra ? extra : "");
    struct http_response r;
    http_request(s, method, path, headers, body, &r);
    cr_assert_eq(r.status, status, "%s %s %s: %d %s", method, path, body ? body : "", r.status,
                 r.body);
    json_t *doc = r.body_len ? json_loads(r.body, 0, NULL) : NULL;
    if (status < 300 && doc != NULL && json_object_get(doc, "version") != NULL &&
        strcmp(method, "GET") != 0)
        e->version = json_integer_value(json_object_get(doc, "version"));
    http_response_free(&r);
    return doc;
}

const struct server *suite_server;

void enc_create(const struct server *s, struct enc *e, const char *body)
{
    json_t *doc = http_post_json(s, "/v1/encounters", body, 201);
    snprintf(e->id, sizeof e->id, "%s", json_string_value(json_object_get(doc, "id")));
    snprintf(e->token, sizeof e->token, "%s", json_string_value(json_object_get(doc, "token")));
    e->version = json_integer_value(json_object_get(doc, "version"));
    cr_assert_eq(strlen(e->token), 64);
    cr_assert_eq(strlen(e->id), 32);
    json_decref(doc);
}

void enc_import(const struct server *s, struct enc *e, json_t *doc)
{
    char *text = json_dumps(doc, JSON_COMPACT);
    json_t *ans = http_post_json(s, "/v1/encounters/import", text, 201);
    free(text);
    snprintf(e->id, sizeof e->id, "%s", json_string_value(json_object_get(ans, "id")));
    snprintf(e->token, sizeof e->token, "%s", json_string_value(json_object_get(ans, "token")));
    e->version = json_integer_value(json_object_get(ans, "version"));
    json_decref(ans);
}

json_t *enc_combatant(json_t *doc, const char *id)
{
    json_t *state = json_object_get(doc, "state") ? json_object_get(doc, "state") : doc;
    return tb_find_by(json_object_get(state, "combatants"), "id", id);
}

void enc_get_refused(const struct server *s, struct enc *e, const char *suffix, const char *pointer)
{
    json_t *doc = enc_call(s, e, "GET", suffix, NULL, NULL, 422);
    json_t *first = json_array_get(json_object_get(doc, "errors"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(first, "pointer")), pointer, "%s", suffix);
    json_decref(doc);
}

void enc_post_ok(const struct server *s, struct enc *e, const char *suffix, const char *body)
{
    json_decref(enc_call(s, e, "POST", suffix, NULL, body, 200));
}

void enc_post_refused(const struct server *s, struct enc *e, const char *suffix, const char *body,
                      const char *needle)
{
    json_t *doc = enc_call(s, e, "POST", suffix, NULL, body, 422);
    const char *detail = json_string_value(json_object_get(doc, "detail"));
    cr_assert_not_null(detail);
    cr_assert_not_null(strstr(detail, needle), "%s: %s", body ? body : "", detail);
    json_decref(doc);
}

json_t *load_fixture(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", FIXTURES, name);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "no fixture %s", path);
    json_error_t err;
    json_t *doc = json_loadf(f, 0, &err);
    fclose(f);
    cr_assert_not_null(doc, "%s: %s", path, err.text);
    return doc;
}
