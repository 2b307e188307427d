/* Service-test harness: starts the real tacticsd on an ephemeral port with a temporary
 * database, and speaks HTTP/1.1 to it over plain sockets (so tests can also send what no
 * well-behaved client would). When TACTICS_EXCHANGE_LOG names a file, every exchange made
 * through http_raw or http_request is appended to it as one JSON line for the contract check. */
#ifndef TACTICS_TEST_HARNESS_H
#define TACTICS_TEST_HARNESS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct server {
    pid_t pid;
    unsigned port;
    char dir[64];
    char log_path[128];
    char db_path[128]; /* a SQLite file, or on PostgreSQL the URL of the server's own schema */
    char pg_name[48];  /* on PostgreSQL: that schema (in the database tactics), dropped by
                        * server_stop */
};

/* Whether the suite runs on PostgreSQL (TACTICS_TEST_PG set, the server reached through PGHOST
 * and PGUSER): then every server_start gets a fresh schema there instead of a file. */
bool server_on_postgres(void);

/* Starts tacticsd with extra arguments (NULL-terminated list, may be NULL). Asserts. */
void server_start(struct server *s, const char *const *extra_args);
/* Sends SIGTERM, waits, asserts exit status 0, removes the temporary folder. */
void server_stop(struct server *s);
/* server_stop, returning what the server logged (the caller frees). */
char *server_stop_log(struct server *s);
/* Reads the server's stderr (its JSON log) so far; caller frees. */
char *server_log(const struct server *s);

struct http_response {
    int status;
    char *head; /* status line and headers */
    char *body;
    size_t body_len;
};

/* Sends a complete request (raw bytes) and reads the response until the server closes.
 * Returns 0, or -1 when the connection failed or closed without a response. */
int http_raw(unsigned port, const char *request, size_t len, struct http_response *r);

/* Sends method path with optional extra header lines ("Name: value\r\n"...) and a body
 * (Content-Length is added when body is not NULL), with Connection: close. Asserts that a
 * response arrived and records the exchange. */
void http_request(const struct server *s, const char *method, const char *path, const char *headers,
                  const char *body, struct http_response *r);

/* Copies the value of header `name` (case-insensitive) into buf; false when absent. */
bool http_header(const struct http_response *r, const char *name, char *buf, size_t len);

void http_response_free(struct http_response *r);

/* Connects to 127.0.0.1:port and returns the socket, asserting success. */
int http_connect(unsigned port);

/* Reads from fd until EOF into r (as http_raw does after sending). */
int http_read_response(int fd, struct http_response *r);

/* Appends one exchange (the raw request sent, the response read) to $TACTICS_EXCHANGE_LOG for
 * the contract check, as http_raw does for its own; for answers read another way (a feed). */
void http_record_exchange(const char *raw, size_t len, const struct http_response *r);

/* POSTs body as application/json to path, asserts the status, returns the parsed response
 * (the caller decrefs). */
json_t *http_post_json(const struct server *s, const char *path, const char *body, int status);

/* An encounter as a test client holds it: its id, its write token, and the version its next
 * write names in If-Match. */
struct enc {
    char id[64];
    char token[80];
    long long version;
};

/* A request on /v1/encounters/{id}{suffix} with the encounter's token and If-Match, extra
 * header lines (may be NULL) and a JSON body (NULL: none). Asserts the status; returns the
 * parsed body (NULL when empty; the caller decrefs) and, after a 2xx write, takes its version. */
json_t *enc_call(const struct server *s, struct enc *e, const char *method, const char *suffix,
                 const char *extra, const char *body, int status);

/* Creates an encounter from body without Authorization (a token is minted) and fills e. */
void enc_create(const struct server *s, struct enc *e, const char *body);

/* Imports the exported log doc (borrowed; asserts 201) and fills e with the new encounter. */
void enc_import(const struct server *s, struct enc *e, json_t *doc);

/* POST /v1/encounters/{id}{suffix} with body: asserts 200 (ok) or a 422 whose detail holds
 * needle (the rule it names). */
void enc_post_ok(const struct server *s, struct enc *e, const char *suffix, const char *body);
void enc_post_refused(const struct server *s, struct enc *e, const char *suffix, const char *body,
                      const char *needle);

/* GET /v1/encounters/{id}{suffix}: asserts a 422 whose first error is at pointer. */
void enc_get_refused(const struct server *s, struct enc *e, const char *suffix,
                     const char *pointer);

/* Combatant `id` of a state, or of a document that holds one as "state"; NULL if absent. */
json_t *enc_combatant(json_t *doc, const char *id);

/* The server of the running test's SERVER_TEST_SUITE (its srv), set by the suite's init;
 * NULL in a suite that starts its own. */
extern const struct server *suite_server;

/* Declares `srv` and a Criterion suite `name` whose every test gets a fresh default server,
 * which is also suite_server. */
#define SERVER_TEST_SUITE(name)                                                                    \
    static struct server srv;                                                                      \
    static void name##_start(void)                                                                 \
    {                                                                                              \
        server_start(&srv, NULL);                                                                  \
        suite_server = &srv;                                                                       \
    }                                                                                              \
    static void name##_stop(void)                                                                  \
    {                                                                                              \
        server_stop(&srv);                                                                         \
    }                                                                                              \
    TestSuite(name, .init = name##_start, .fini = name##_stop, .timeout = 60)

/* tests/service/fixtures/<name> parsed (asserts it is there and is JSON); the caller frees it. */
json_t *load_fixture(const char *name);

#endif
