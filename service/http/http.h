/* The HTTP face's plain C view of one exchange: what every handler reads (the request, the
 * context) and fills in (the response). Handlers never see libmicrohttpd types: the server
 * (server.c) decodes the request, calls the handler, and encodes what it leaves in the
 * response. */
#ifndef TACTICS_SVC_HTTP_H
#define TACTICS_SVC_HTTP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "service/http/config.h"
#include "service/http/metrics.h"

struct db;

#define SVC_MAX_PARAMS  4
#define SVC_MAX_HEADERS 4

/* What every handler can reach: configuration, storage, counters. */
struct svc_state_cache;
struct svc_hub;
struct svc_stream;
struct svc_stream_ops;
struct svc_route;
struct svc_discord;

struct svc_context {
    const struct svc_config *config;
    struct db *db;
    struct svc_metrics *metrics;
    struct svc_state_cache *states; /* may be NULL: no cache (service/encounter/state_cache.h) */
    /* Fold checkpoints (service/encounter/state_cache.h), one cache for /events pages and one for
     * state?at, so that a reader of either does not evict the other's; each may be NULL. */
    struct svc_state_cache *folds[2];
    /* The fold of each encounter at the last version a verify found whole (every event re-ruled
     * as stored, the fold the stored state), so the next verify re-rules only the events after
     * it; may be NULL. */
    struct svc_state_cache *verified;
    struct svc_hub *hub; /* the live feeds' subscribers (service/http/hub.h); may be NULL: none */
    /* Reads the version of every encounter with subscribers from the database and tells the
     * hub (how a feed sees events written by another process); the server runs it every
     * --feed-poll seconds. NULL: no poll. */
    void (*feeds_poll)(struct svc_context *ctx);
    const struct svc_route *routes; /* the route table (service/routes.h) and its rows */
    int route_count;
    /* Discord interactions' state (service/discord/discord.h); NULL when they are off. */
    struct svc_discord *discord;
};

/* Looks up a request header; returns NULL when absent. */
typedef const char *(*svc_header_fn)(void *cookie, const char *name);

struct svc_request {
    const char *method;
    const char *path;
    const char *params[SVC_MAX_PARAMS]; /* path parameters, in pattern order */
    const char *body;                   /* NUL-terminated copy; body_len excludes the NUL */
    size_t body_len;
    svc_header_fn header;
    svc_header_fn query; /* the query string's arguments, by name (may be NULL) */
    void *header_cookie;
    struct svc_context *ctx;
    const char *client; /* the client's address as text ("" when unknown): per-address caps */
    /* Set (by server.c only) when the handler may defer its answer (svc_response_defer):
     * NULL for the Discord transport's calls, which must answer before they return. */
    struct svc_deferral *deferral;
};

/* A response the handler fills in. body is owned (malloc) and freed by the server. */
struct svc_response {
    unsigned status;
    const char *content_type; /* a static string */
    char *body;
    size_t body_len;
    const unsigned char *static_body; /* used instead of body when set: never freed or copied */
    const char *allow;                /* static; sent as Allow when set */
    /* A live feed, sent as text/event-stream instead of body: owned with its operations
     * (svc_stream_ops below); the server takes it, and svc_response_clear frees one never sent. */
    struct svc_stream *stream;
    const struct svc_stream_ops *stream_ops;
    struct {
        const char *name; /* static */
        char *value;      /* owned */
    } headers[SVC_MAX_HEADERS];
    int header_count;
};

typedef void (*svc_handler)(const struct svc_request *req, struct svc_response *res);

/* Reads a header by name (case-insensitive), NULL when absent. */
const char *svc_request_header(const struct svc_request *req, const char *name);

/* Reads a query-string argument by name, NULL when absent. */
const char *svc_request_query(const struct svc_request *req, const char *name);

/* Sets status and a JSON body (compact, keys in insertion order). Steals `doc`. */
void svc_respond_json(struct svc_response *res, unsigned status, json_t *doc);

/* Sets status and a copied body with the given static content type. */
void svc_respond_raw(struct svc_response *res, unsigned status, const char *content_type,
                     const char *body, size_t len);

/* Sets status and a body the response now owns (malloc'd); text NULL (out of memory) gives a
 * 500 problem instead. */
void svc_respond_owned(struct svc_response *res, unsigned status, const char *content_type,
                       char *text, size_t len);

/* Sets status 200 and the JSON text the streaming writer w holds (service/json/writer.h),
 * finishing it; a writer that failed (out of memory) gives a 500 problem instead. */
struct jw;
void svc_respond_writer(struct svc_response *res, struct jw *w);

/* Adds a response header; value is copied. Silently ignores headers past SVC_MAX_HEADERS,
 * which is an internal invariant (asserted in debug builds). */
void svc_response_add_header(struct svc_response *res, const char *name, const char *value);

/* Frees what the response owns and resets it. */
void svc_response_clear(struct svc_response *res);

/* A deferred answer: a handler whose work completes later on another thread (a write waiting
 * for its group commit, db_encounter_append_async) frees its worker thread meanwhile. It
 * arranges for svc_deferral_complete(req->deferral) to be called exactly once, from any thread,
 * when the work is done (it may be before the handler returns), then calls svc_response_defer
 * and returns with res untouched. The server suspends the connection until the completion,
 * and then calls finish(ud, req, res) on a worker thread, with the same request (its headers,
 * body and parameters), to fill res, which it sends as a handler's. finish must free ud: it is
 * called exactly once, even when the client has gone meanwhile (its answer is then dropped).
 * Only after svc_deferral_start said yes. */
typedef void (*svc_finish_fn)(void *ud, const struct svc_request *req, struct svc_response *res);
/* Asked by a handler before it starts the work it may defer: false when it may not (no deferral
 * on this path, or the server is stopping), and it must then answer before it returns. After
 * true it may call svc_response_defer, or answer as usual. */
bool svc_deferral_start(const struct svc_request *req);
void svc_response_defer(const struct svc_request *req, struct svc_response *res,
                        svc_finish_fn finish, void *ud);
/* The deferred work of the request that deferral (req->deferral) belongs to is done: its
 * connection resumes, or the handler's return finishes at once. Any thread, exactly once. */
void svc_deferral_complete(void *deferral);

/* What the server does with a live feed a handler answered with (the encounter's feed,
 * service/encounter/stream.c): it attaches the feed to its connection, reads its bytes as
 * libmicrohttpd asks for them, and frees it with the connection. */
#define SVC_STREAM_END   (-1) /* the feed ends cleanly (server stopping, encounter deleted) */
#define SVC_STREAM_ERROR (-2) /* the client is gone, or the database failed: close at once */
struct svc_stream_ops {
    /* wake(cookie) resumes the feed once parked; fd is its socket (watched for a hang-up). */
    void (*attach)(struct svc_stream *st, void (*wake)(void *), void *cookie, int fd);
    /* Fills buf (max bytes) with the feed's next bytes: a byte count > 0, SVC_STREAM_END or
     * SVC_STREAM_ERROR; 0 only after parking the feed through park(cookie) (which suspends
     * the connection), until it is woken. */
    long (*read)(struct svc_stream *st, char *buf, size_t max, void (*park)(void *), void *cookie);
    void (*free)(struct svc_stream *st);
};

#endif
