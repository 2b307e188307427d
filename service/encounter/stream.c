/* The live feed of an encounter: GET /v1/encounters/{id}/events/stream, server-sent events.
 *
 * One SSE event per appended encounter event: `id:` its number, `data:` {seq, kind, etag,
 * event, explain?, explain_markdown?}, where event is the object GET /v1/encounters/{id}/events
 * lists (made by the same enc_event_item, so the two never differ) and etag the encounter's ETag
 * once it was appended. A feed starts after Last-Event-ID (the header EventSource sends when it
 * reconnects) or else ?after=N (0 by default: the whole log), and so resumes with nothing missed or
 * repeated. A comment line (": keep-alive") goes out when nothing was written for --keepalive
 * seconds.
 *
 * No thread waits for a feed. The server sends it through libmicrohttpd's content-reader
 * callback, which calls svc_stream_read; with nothing to send, the read parks the feed in the
 * hub (hub.h), which suspends the connection, and the hub resumes it when a write commits a new
 * event (svc_hub_appended), when its keep-alive is due or its client hangs up (svc_hub_tick),
 * or when the server stops. Writes made by other processes on the same database are told to
 * the hub by PostgreSQL's LISTEN/NOTIFY (db_listen_start, run by server.c), or else seen by
 * svc_stream_poll, which the server runs every --feed-poll seconds (every 30 s while the
 * listener listens). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "service/encounter/encounter.h"
#include "service/encounter/internal.h"
#include "service/http/http.h"
#include "service/http/hub.h"
#include "service/http/problem.h"
#include "service/http/request.h"
#include "service/json/errors.h"
#include "service/json/fields.h"

#define BATCH 64 /* events read from the database at once */

struct svc_stream {
    struct svc_context *ctx;
    struct svc_hub_sub *sub;
    char id[SVC_HUB_ID_MAX + 1];
    bool full;     /* the reader sees the seed (owner, or revealed): the events list's `full` */
    int64_t sent;  /* the last event sent */
    int64_t known; /* the hub's generation this feed has caught up with */
    /* Behind the memo: this feed's own fold of events 1..own_seq, so that each batch folds on
     * from where the last ended rather than from the log's start; NULL at the memo. */
    json_t *own;
    int64_t own_seq;
    char *out; /* bytes formatted, not yet handed to the server: the greeting, keep-alives */
    size_t out_len, out_off;
    /* Then the events' frames to send, shared with the hub's frame cache and every other
     * subscriber (each frame is formatted once and its bytes go from the one copy
     * straight to the server, not copied for each subscriber): frames[frame_at] is sent from
     * byte frame_off. At most BATCH, as each catch-up adds at most that many. */
    struct svc_hub_frame *frames[BATCH];
    int nframes, frame_at;
    size_t frame_off;
    uint64_t last_write_us;
};

static void stream_attach(struct svc_stream *st, void (*wake)(void *), void *cookie, int fd);
static long stream_read(struct svc_stream *st, char *buf, size_t max, void (*park)(void *),
                        void *cookie);
static void stream_free(struct svc_stream *st);
/* What the server does with a feed (service/http/http.h). */
static const struct svc_stream_ops stream_ops = {stream_attach, stream_read, stream_free};

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void svc_handle_encounter_stream(const struct svc_request *req, struct svc_response *res)
{
    struct db_encounter enc;
    json_t *state;
    if (!enc_load(req, res, &enc, &state, NULL))
        return;
    bool full = enc_is_owner(req, &enc) || json_is_true(json_object_get(state, "revealed"));
    json_decref(state);
    /* EventSource reconnects to the same URL, ?after included, with Last-Event-ID: the header,
     * the newer of the two, wins. */
    struct svc_errors e;
    svc_errors_init(&e);
    long long after = 0;
    const char *last = svc_request_header(req, "Last-Event-ID");
    char msg[64];
    snprintf(msg, sizeof msg, "must be an event number from 0 to %lld", (long long)enc.version);
    if (last != NULL) {
        if (!codec_parse_whole(last, 0, enc.version, &after))
            svc_errors_add(&e, "", "header Last-Event-ID %s (the last event seen)", msg);
    } else {
        CODEC_WITHIN(codec_query_whole(req, "after", 0, enc.version, 0, msg, &after, &e));
    }
    if (svc_errors_any(&e)) {
        svc_errors_respond(&e, res);
        return;
    }
    svc_errors_free(&e);
    if (req->ctx->hub == NULL) {
        svc_problem(res, SVC_PROBLEM_NOT_READY, "live feeds are off", NULL);
        return;
    }
    struct svc_stream *st = calloc(1, sizeof *st);
    if (st == NULL) {
        svc_problem(res, SVC_PROBLEM_INTERNAL, NULL, NULL);
        return;
    }
    int rc = svc_hub_join(req->ctx->hub, enc.id, enc.version, req->client, &st->sub);
    if (rc != SVC_HUB_OK) {
        free(st);
        if (rc == SVC_HUB_NOMEM) {
            svc_problem(res, SVC_PROBLEM_INTERNAL, NULL, NULL);
            return;
        }
        svc_problem(res,
                    rc == SVC_HUB_CLOSING ? SVC_PROBLEM_NOT_READY : SVC_PROBLEM_SUBSCRIBERS_FULL,
                    rc == SVC_HUB_FULL ? "the server holds --max-subscribers live feeds"
                    : rc == SVC_HUB_FULL_ENCOUNTER
                        ? "this encounter has --max-subscribers-per-encounter live feeds"
                    : rc == SVC_HUB_FULL_ADDRESS
                        ? "your address holds --max-subscribers-per-address live feeds"
                        : "the server is stopping",
                    NULL);
        svc_response_add_header(res, "Retry-After", "5");
        return;
    }
    st->ctx = req->ctx;
    memcpy(st->id, enc.id, strlen(enc.id) + 1);
    st->full = full;
    st->sent = st->known = after;
    /* A first comment, so that the client sees the feed open before any event. */
    static const char hello[] = ": tactics live feed\n\n";
    st->out = malloc(sizeof hello);
    if (st->out != NULL) {
        memcpy(st->out, hello, sizeof hello);
        st->out_len = sizeof hello - 1;
    }
    st->last_write_us = now_us();
    res->status = 200;
    res->content_type = "text/event-stream";
    res->stream = st;
    res->stream_ops = &stream_ops;
}

static void stream_attach(struct svc_stream *st, void (*wake)(void *), void *cookie, int fd)
{
    svc_hub_attach(st->sub, wake, cookie, fd);
}

static void stream_free(struct svc_stream *st)
{
    if (st == NULL)
        return;
    svc_hub_leave(st->ctx->hub, st->sub);
    json_decref(st->own);
    free(st->out);
    for (int i = st->frame_at; i < st->nframes; i++)
        svc_hub_frame_unref(st->frames[i]);
    free(st);
}

/* Queues a frame (a reference the feed now holds) after those pending; false when the queue
 * is full (never: a catch-up adds at most BATCH to an empty queue), the reference then given
 * back. */
static bool frame_add(struct svc_stream *st, struct svc_hub_frame *f)
{
    if (st->frame_at == st->nframes)
        st->frame_at = st->nframes = 0, st->frame_off = 0;
    if (st->nframes == BATCH) {
        svc_hub_frame_unref(f);
        return false;
    }
    st->frames[st->nframes++] = f;
    return true;
}

static bool frames_pending(const struct svc_stream *st)
{
    return st->frame_at < st->nframes;
}

/* Appends n bytes to the feed's pending output; false when out of memory. */
static bool out_add(struct svc_stream *st, const char *text, size_t n)
{
    if (st->out_off == st->out_len) {
        st->out_off = st->out_len = 0;
    }
    char *p = realloc(st->out, st->out_len + n + 1);
    if (p == NULL)
        return false;
    memcpy(p + st->out_len, text, n);
    st->out_len += n;
    p[st->out_len] = '\0';
    st->out = p;
    return true;
}

/* The frame of one listed event (an item of the events list): its SSE text, malloc'd. */
static char *frame_of(json_t *item, size_t *len)
{
    int64_t seq = json_integer_value(json_object_get(item, "seq"));
    char etag[32];
    enc_etag_of(seq, etag, sizeof etag);
    json_t *data = json_pack("{s:I, s:O, s:s, s:O}", "seq", (json_int_t)seq, "kind",
                             json_object_get(item, "kind"), "etag", etag, "event", item);
    /* The event's explanation, plain and in markdown, wherever the event object carries it,
     * also at the top. */
    static const char *const told[] = {"explain", "explain_markdown"};
    for (size_t k = 0; k < sizeof told / sizeof told[0]; k++) {
        json_t *explain = json_object_get(item, told[k]);
        if (explain == NULL)
            explain = json_object_get(json_object_get(item, "payload"), told[k]);
        if (explain != NULL)
            json_object_set(data, told[k], explain);
    }
    char *text = data ? enc_dump(data) : NULL;
    json_decref(data);
    if (text == NULL)
        return NULL;
    /* Compact JSON holds no line break, so one data: line carries it. */
    size_t tlen = strlen(text);
    size_t cap = tlen + 64;
    char *frame = malloc(cap);
    if (frame != NULL)
        *len = (size_t)snprintf(frame, cap, "id: %lld\ndata: %s\n\n", (long long)seq, text);
    free(text);
    return frame;
}

static void state_free(void *state)
{
    json_decref(state);
}

static void *state_ref(void *state)
{
    return json_incref(state);
}

/* Sends what the frame cache holds of the events after st->sent; true when it sent anything
 * or the feed is up to date. */
static bool from_cache(struct svc_stream *st, int64_t generation, int *rc)
{
    struct svc_hub *hub = st->ctx->hub;
    *rc = DB_OK;
    for (int i = 0; i < BATCH && st->sent < generation; i++) {
        struct svc_hub_frame *f = svc_hub_frame_ref(hub, st->sub, st->sent + 1, st->full);
        if (f == NULL)
            break;
        if (!frame_add(st, f)) {
            *rc = DB_ERR_NOMEM;
            return true;
        }
        st->sent++;
    }
    if (st->sent >= generation)
        st->known = generation;
    return st->sent >= generation || st->out_len > st->out_off || frames_pending(st);
}

/* A catch-up's read: the events folded (enc_event_item), counted, and a checkpoint of the fold
 * offered to the hub every SVC_HUB_CHECKPOINT_EVERY events, for the feeds that resume later. */
struct catch_acc {
    struct events_acc acc;
    struct svc_stream *st;
    uint64_t folded;
};

static int catch_item(void *ud, int64_t seq, const char *kind, const char *payload,
                      const char *created_at)
{
    struct catch_acc *c = ud;
    int rc = enc_event_item(&c->acc, seq, kind, payload, created_at);
    c->folded++;
    struct svc_hub *hub = c->st->ctx->hub;
    if (rc == 0 && seq % SVC_HUB_CHECKPOINT_EVERY == 0 &&
        svc_hub_checkpoint_wanted(hub, c->st->sub, seq)) {
        json_t *copy = json_deep_copy(c->acc.state);
        if (copy != NULL)
            svc_hub_checkpoint_put(hub, c->st->sub, copy, seq,
                                   json_dumpb(copy, NULL, 0, JSON_COMPACT), state_free);
    }
    return rc;
}

/* The fold this feed starts from when it is behind the memo and has none of its own: the latest
 * checkpoint at or before where it stands (the hub's, or the fold caches' that /events pages
 * and state?at leave), else the empty state before event 1. */
static json_t *start_fold(struct svc_stream *st, int64_t *seq)
{
    int64_t hub_seq = 0, cache_seq = 0;
    json_t *shared = svc_hub_checkpoint_get(st->ctx->hub, st->sub, st->sent, &hub_seq, state_ref);
    json_t *cached = enc_fold_checkpoint(st->ctx, st->id, st->sent, &cache_seq);
    json_t *start = NULL;
    if (cached != NULL && cache_seq >= hub_seq) {
        start = cached, *seq = cache_seq;
        cached = NULL;
    } else if (shared != NULL) {
        start = json_deep_copy(shared), *seq = hub_seq; /* the checkpoint stays as it is */
    }
    json_decref(shared);
    json_decref(cached);
    if (start == NULL)
        start = json_object(), *seq = 0;
    return start;
}

/* Formats the events after st->sent (from the frame cache, else the database, at most BATCH)
 * into the pending output. Each event's explain is told from the state before it, as the event
 * log tells it, so the feed folds the log up to where it stands. The encounter's feeds share
 * the fold so far (the hub's memo), and one at a time reads the database: the others wait for
 * it and then find its frames cached, so a live feed reads and folds each new event once. A
 * feed behind the memo folds on its own, from its own fold of the last batch, or to begin with
 * from the latest checkpoint before where it resumes: each event once, where every batch folded
 * the log from its start before (8 feeds at after=1..8 on a 5,201-event log: 20 s of CPU).
 * DB_OK, or the database's error. */
static int catch_up(struct svc_stream *st, int64_t generation)
{
    struct svc_hub *hub = st->ctx->hub;
    int rc;
    if (from_cache(st, generation, &rc))
        return rc;
    int64_t memo_seq = 0;
    json_t *memo = svc_hub_memo_take(hub, st->sub, &memo_seq);
    if (from_cache(st, generation, &rc)) { /* the one before us formatted them */
        svc_hub_memo_put(hub, st->sub, memo, memo_seq, state_free);
        return rc;
    }
    json_t *base;
    int64_t from;
    bool held = memo_seq <= st->sent && (st->own == NULL || memo_seq >= st->own_seq);
    if (held) { /* the shared fold, at or behind this feed and no further than its own */
        base = memo != NULL ? memo : json_object();
        from = memo != NULL ? memo_seq : 0;
        json_decref(st->own);
        st->own = NULL;
        if (from < st->sent) { /* far behind: a checkpoint nearer this feed serves better */
            int64_t near = 0;
            json_t *start = start_fold(st, &near);
            if (near > from) {
                json_decref(base);
                base = start, from = near;
            } else {
                json_decref(start);
            }
        }
    } else {
        svc_hub_memo_put(hub, st->sub, memo, memo_seq, state_free);
        if (st->own == NULL)
            st->own = start_fold(st, &st->own_seq);
        base = st->own, from = st->own_seq;
        st->own = NULL;
    }
    struct catch_acc c = {.acc = {.list = json_array(),
                                  .state = base,
                                  .last = from,
                                  .list_after = st->sent,
                                  .full = st->full},
                          .st = st};
    long long upto = st->sent - from + BATCH;
    rc = db_events(st->ctx->db, st->id, from, INT64_MAX, upto < INT32_MAX ? (int)upto : INT32_MAX,
                   catch_item, &c);
    svc_hub_count_folded(hub, c.folded);
    size_t i;
    json_t *item;
    json_array_foreach(c.acc.list, i, item)
    {
        if (rc != DB_OK)
            break;
        size_t len = 0;
        char *frame = frame_of(item, &len);
        int64_t seq = json_integer_value(json_object_get(item, "seq"));
        /* Kept in the hub for the other subscribers, and queued here from the same copy. */
        struct svc_hub_frame *f =
            frame != NULL ? svc_hub_frame_put(hub, st->sub, seq, st->full, frame, len) : NULL;
        free(frame);
        if (f == NULL || !frame_add(st, f)) {
            rc = DB_ERR_NOMEM;
            break;
        }
        st->sent = seq;
    }
    /* Frames first, then the memo: a subscriber waiting for it finds them cached. */
    if (held && rc == DB_OK && c.acc.last > 0)
        svc_hub_memo_put(hub, st->sub, c.acc.state, c.acc.last, state_free);
    else if (held)
        svc_hub_memo_put(hub, st->sub, NULL, 0, state_free), json_decref(c.acc.state);
    else if (rc == DB_OK && c.acc.last == st->sent)
        st->own = c.acc.state, st->own_seq = c.acc.last;
    else
        json_decref(c.acc.state); /* a fold past what was sent (or failed): begin again */
    /* A short batch read the whole log: the feed has caught up with whatever the hub knew. */
    if (rc == DB_OK && json_array_size(c.acc.list) < BATCH)
        st->known = generation > st->sent ? generation : st->sent;
    json_decref(c.acc.list);
    /* Caught up on its own: its fold becomes the shared one if that is behind it, else goes,
     * so that a feed at the head holds no state of its own. */
    if (st->own != NULL && st->sent >= generation) {
        json_t *m = svc_hub_memo_take(hub, st->sub, &memo_seq);
        if (memo_seq < st->own_seq) {
            svc_hub_memo_put(hub, st->sub, st->own, st->own_seq, state_free);
            json_decref(m);
        } else {
            svc_hub_memo_put(hub, st->sub, m, memo_seq, state_free);
            json_decref(st->own);
        }
        st->own = NULL;
    }
    return rc;
}

static long stream_read(struct svc_stream *st, char *buf, size_t max, void (*park)(void *),
                        void *cookie)
{
    for (;;) {
        if (st->out_off < st->out_len) {
            size_t n = st->out_len - st->out_off;
            if (n > max)
                n = max;
            memcpy(buf, st->out + st->out_off, n);
            st->out_off += n;
            st->last_write_us = now_us();
            return (long)n;
        }
        if (frames_pending(st)) { /* as many frames as fit, straight from the shared copies */
            size_t n = 0;
            while (n < max && frames_pending(st)) {
                struct svc_hub_frame *f = st->frames[st->frame_at];
                size_t k = f->len - st->frame_off;
                if (k > max - n)
                    k = max - n;
                memcpy(buf + n, f->text + st->frame_off, k);
                n += k;
                st->frame_off += k;
                if (st->frame_off == f->len) {
                    svc_hub_frame_unref(f);
                    st->frame_at++;
                    st->frame_off = 0;
                }
            }
            st->last_write_us = now_us();
            return (long)n;
        }
        struct svc_hub_view v;
        svc_hub_look(st->ctx->hub, st->sub, &v);
        if (v.hung_up)
            return SVC_STREAM_ERROR;
        if (v.closing || v.deleted)
            return SVC_STREAM_END;
        if (v.version > st->known) {
            int rc = catch_up(st, v.version);
            if (rc == DB_ERR_NOT_FOUND)
                return SVC_STREAM_END;
            if (rc != DB_OK)
                return SVC_STREAM_ERROR; /* the client reconnects with Last-Event-ID */
            continue;
        }
        uint64_t now = now_us();
        uint64_t keepalive = (uint64_t)st->ctx->config->keepalive_s * 1000000u;
        if (now - st->last_write_us >= keepalive) {
            static const char ping[] = ": keep-alive\n\n";
            if (!out_add(st, ping, sizeof ping - 1))
                return SVC_STREAM_ERROR;
            continue;
        }
        if (svc_hub_park(st->ctx->hub, st->sub, st->known, st->last_write_us, park, cookie))
            return 0;
    }
}

void svc_stream_poll(struct svc_context *ctx)
{
    enum { MAX_POLLED = 4096 };
    if (ctx->hub == NULL)
        return;
    char(*ids)[SVC_HUB_ID_MAX + 1] = malloc(MAX_POLLED * sizeof *ids);
    if (ids == NULL)
        return;
    size_t n = svc_hub_ids(ctx->hub, ids, MAX_POLLED);
    for (size_t i = 0; i < n; i++) {
        struct db_encounter enc;
        int rc = db_encounter_get(ctx->db, ids[i], &enc);
        if (rc == DB_OK) {
            free(enc.state_json);
            svc_hub_appended(ctx->hub, ids[i], enc.version);
        } else if (rc == DB_ERR_NOT_FOUND) {
            svc_hub_deleted(ctx->hub, ids[i]);
        }
    }
    free(ids);
}
