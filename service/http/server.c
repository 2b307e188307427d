/* The server's wiring: each request's callbacks, from its first byte to its answer. The jobs
 * they call on live one a file (server_internal.h lists them); what is left here is their
 * order. A request is checked before routing (framing.c), its body read under the limit, then
 * routed: 404, 405, OPTIONS, 413 and 415 are answered here, anything else by its handler; the
 * answer carries the request's id and its CORS headers, and is counted when queued. */
#include "service/http/server.h"

#include <arpa/inet.h>
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "service/http/hub.h"
#include "service/http/problem.h"
#include "service/http/server_internal.h"
#include "service/json/fields.h"

static const char *header_lookup(void *cookie, const char *name)
{
    return MHD_lookup_connection_value((struct MHD_Connection *)cookie, MHD_HEADER_KIND, name);
}

static const char *query_lookup(void *cookie, const char *name)
{
    return MHD_lookup_connection_value((struct MHD_Connection *)cookie, MHD_GET_ARGUMENT_KIND,
                                       name);
}

/* The libmicrohttpd response for res: its body, or its live feed (taken from res). */
static struct MHD_Response *response_of(struct MHD_Connection *conn, struct svc_response *res)
{
    if (res->stream != NULL)
        return svc__feed_response(conn, res);
    struct MHD_Response *r =
        res->static_body != NULL
            ? MHD_create_response_from_buffer(res->body_len, (void *)res->static_body,
                                              MHD_RESPMEM_PERSISTENT)
            : MHD_create_response_from_buffer_with_free_callback(res->body_len, res->body, free);
    if (r != NULL)
        res->body = NULL; /* now owned by r */
    return r;
}

/* Turns res into a libmicrohttpd response and queues it. Takes the body from res. */
static enum MHD_Result send_response(struct svc_server *s, struct MHD_Connection *conn,
                                     struct svc__request_state *rs, struct svc_response *res,
                                     bool preflight)
{
    assert(res->status >= 100 && res->status <= 599);
    bool streaming = res->stream != NULL;
    struct MHD_Response *r = response_of(conn, res);
    if (r == NULL) {
        svc_response_clear(res);
        return MHD_NO;
    }
    if (res->content_type != NULL)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, res->content_type);
    MHD_add_response_header(r, "X-Request-Id", rs->request_id);
    /* no-store unless the handler chose otherwise (the board's pictures revalidate by ETag). */
    bool cache_control = false;
    for (int i = 0; i < res->header_count; i++)
        cache_control |= strcasecmp(res->headers[i].name, "Cache-Control") == 0;
    if (!cache_control)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (res->allow != NULL)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, res->allow);
    for (int i = 0; i < res->header_count; i++)
        MHD_add_response_header(r, res->headers[i].name, res->headers[i].value);
    svc__cors_headers(s->ctx->config, conn, r, preflight, res->allow);
    rs->status = res->status;
    /* Counted when queued, not when the connection reports completion: a client that has read
     * this response and asks /metrics next must already see it counted. */
    svc_metrics_observe(s->ctx->metrics, rs->match.route_index, rs->method, rs->status,
                        svc__now_us() - rs->start_us);
    enum MHD_Result ok = MHD_queue_response(conn, res->status, r);
    svc__watch_mark(s, conn, streaming ? SVC__WATCH_STREAMING : SVC__WATCH_SENDING);
    MHD_destroy_response(r);
    svc_response_clear(res);
    return ok;
}

/* The request as plain C (http.h), its client's address in client (INET6_ADDRSTRLEN bytes). */
static void request_of(struct svc_server *s, struct MHD_Connection *conn,
                       struct svc__request_state *rs, struct svc_request *req, char *client)
{
    client[0] = '\0';
    svc__client_address(conn, client, INET6_ADDRSTRLEN);
    *req = (struct svc_request){
        .method = rs->method,
        .path = rs->path,
        .body = rs->body ? rs->body : "",
        .body_len = rs->len,
        .header = header_lookup,
        .query = query_lookup,
        .header_cookie = conn,
        .ctx = s->ctx,
        .client = client,
    };
    memcpy(req->params, rs->match.params, sizeof req->params);
}

/* Under defer_lock: tells a shutdown waiting for deferred answers when none is left. */
static void defer_idle_check(struct svc_server *s)
{
    if (atomic_load(&s->deferring) == 0 && s->suspended == 0)
        pthread_cond_broadcast(&s->defer_idle);
}

/* A handler allowed to defer is done with it: its connection suspended (counted there first)
 * or its answer under way. Sequentially consistent with the shutdown's store of no_defer and
 * its read of the count: one of the two sees the other, so the last release wakes it. */
static void deferral_release(struct svc_server *s)
{
    if (atomic_fetch_sub(&s->deferring, 1) == 1 && atomic_load(&s->no_defer)) {
        pthread_mutex_lock(&s->defer_lock);
        defer_idle_check(s);
        pthread_mutex_unlock(&s->defer_lock);
    }
}

/* Calls the route's handler with the request as plain C (http.h); it may defer its answer
 * (svc_deferral_start, then rs->deferral.finish set). */
static void call_handler(struct svc_server *s, struct MHD_Connection *conn,
                         struct svc__request_state *rs, struct svc_response *res)
{
    const struct svc_match *m = &rs->match;
    char client[INET6_ADDRSTRLEN];
    struct svc_request req;
    request_of(s, conn, rs, &req, client);
    rs->deferral = (struct svc_deferral){.s = s, .conn = conn, .state = SVC__DEFER_OPEN};
    req.deferral = &rs->deferral;
    codec_request_begin(m->route->method, m->route->pattern);
    m->route->handler(&req, res);
    codec_request_end();
}

bool svc_deferral_start(const struct svc_request *req)
{
    struct svc_deferral *d = req->deferral;
    if (d == NULL)
        return false;
    /* Counted before no_defer is read: a shutdown that set it first is seen here, and one that
     * sets it after sees the count (deferral_release). Only the writes that may defer pay. */
    atomic_fetch_add(&d->s->deferring, 1);
    if (atomic_load(&d->s->no_defer)) {
        deferral_release(d->s);
        return false;
    }
    d->counted = true;
    return true;
}

void svc_response_defer(const struct svc_request *req, struct svc_response *res,
                        svc_finish_fn finish, void *ud)
{
    assert(req->deferral != NULL && req->deferral->counted && finish != NULL && res->status == 0 &&
           res->body == NULL);
    (void)res;
    req->deferral->finish = finish;
    req->deferral->ud = ud;
}

void svc_deferral_complete(void *deferral)
{
    struct svc_deferral *d = deferral;
    struct svc_server *s = d->s;
    struct MHD_Connection *conn = d->conn;
    pthread_mutex_lock(&s->defer_lock);
    bool resume = d->state == SVC__DEFER_SUSPENDED;
    d->state = SVC__DEFER_COMPLETED;
    pthread_mutex_unlock(&s->defer_lock);
    /* Not suspended: the handler has not returned yet, and its dispatch finishes the answer;
     * d may be gone already. Suspended: the connection stays until it is resumed, and a
     * shutdown waits for this count before it stops libmicrohttpd and frees s. */
    if (resume) {
        MHD_resume_connection(conn);
        pthread_mutex_lock(&s->defer_lock);
        s->suspended--;
        defer_idle_check(s);
        pthread_mutex_unlock(&s->defer_lock);
    }
}

/* Calls the deferred answer's continuation with the request as plain C into res. */
static void deferral_finish(struct svc_server *s, struct MHD_Connection *conn,
                            struct svc__request_state *rs, struct svc_response *res)
{
    svc_finish_fn finish = rs->deferral.finish;
    rs->deferral.finish = NULL;
    char client[INET6_ADDRSTRLEN];
    struct svc_request req;
    request_of(s, conn, rs, &req, client);
    codec_request_begin(rs->match.route->method, rs->match.route->pattern);
    finish(rs->deferral.ud, &req, res);
    codec_request_end();
}

static enum MHD_Result send_response(struct svc_server *s, struct MHD_Connection *conn,
                                     struct svc__request_state *rs, struct svc_response *res,
                                     bool preflight);

/* The handler deferred its answer: the connection is suspended until the completion resumes it
 * (libmicrohttpd then calls on_request again: deferral_resumed), or, when the completion came
 * first, the answer is finished and sent at once. The watch stays at HANDLING meanwhile: a
 * connection waiting for its handler's work is never cut. */
static enum MHD_Result deferral_suspend(struct svc_server *s, struct MHD_Connection *conn,
                                        struct svc__request_state *rs)
{
    pthread_mutex_lock(&s->defer_lock);
    if (rs->deferral.state == SVC__DEFER_COMPLETED) {
        pthread_mutex_unlock(&s->defer_lock);
        deferral_release(s);
        struct svc_response res;
        memset(&res, 0, sizeof res);
        deferral_finish(s, conn, rs, &res);
        return send_response(s, conn, rs, &res, false);
    }
    rs->deferral.state = SVC__DEFER_SUSPENDED;
    s->suspended++;
    MHD_suspend_connection(conn);
    pthread_mutex_unlock(&s->defer_lock);
    deferral_release(s);
    return MHD_YES;
}

/* libmicrohttpd calls the access handler again for a resumed connection: the completion came,
 * and the answer is finished and sent. */
static enum MHD_Result deferral_resumed(struct svc_server *s, struct MHD_Connection *conn,
                                        struct svc__request_state *rs)
{
    pthread_mutex_lock(&s->defer_lock);
    bool completed = rs->deferral.state == SVC__DEFER_COMPLETED;
    pthread_mutex_unlock(&s->defer_lock);
    assert(completed);
    if (!completed)
        return MHD_YES; /* not resumed by the completion: it will be */
    struct svc_response res;
    memset(&res, 0, sizeof res);
    deferral_finish(s, conn, rs, &res);
    return send_response(s, conn, rs, &res, false);
}

/* Routes a fully received request to its handler, or answers 400/404/405/413/415/OPTIONS. */
static enum MHD_Result dispatch(struct svc_server *s, struct MHD_Connection *conn,
                                struct svc__request_state *rs)
{
    svc__watch_mark(s, conn, SVC__WATCH_HANDLING);
    struct svc_response res;
    memset(&res, 0, sizeof res);
    const struct svc_match *m = &rs->match;

    if (rs->refusal != NULL) {
        svc_problem(&res, SVC_PROBLEM_BAD_REQUEST, rs->refusal, NULL);
    } else if (rs->too_large) {
        svc_problem(&res, SVC_PROBLEM_BODY_TOO_LARGE, NULL, NULL);
    } else if (m->route == NULL && !m->path_known) {
        svc_problem(&res, SVC_PROBLEM_NOT_FOUND, NULL, NULL);
    } else if (m->route == NULL && strcmp(rs->method, "OPTIONS") == 0) {
        res.status = 204;
        res.allow = m->allow;
        return send_response(s, conn, rs, &res, true);
    } else if (m->route == NULL) {
        char detail[160];
        snprintf(detail, sizeof detail, "%s is not allowed here; allowed: %s", rs->method,
                 m->allow);
        svc_problem(&res, SVC_PROBLEM_METHOD_NOT_ALLOWED, detail, NULL);
        res.allow = m->allow;
    } else if ((m->route->body == SVC_BODY_JSON ||
                (m->route->body == SVC_BODY_OPTIONAL && rs->len > 0)) &&
               !svc__is_json_content_type(header_lookup(conn, MHD_HTTP_HEADER_CONTENT_TYPE))) {
        svc_problem(&res, SVC_PROBLEM_UNSUPPORTED_MEDIA_TYPE,
                    "send the body with Content-Type: application/json", NULL);
    } else if (m->route->body == SVC_BODY_NONE && rs->len > 0) {
        svc_problem(&res, SVC_PROBLEM_UNSUPPORTED_MEDIA_TYPE, "this operation takes no body", NULL);
    } else {
        call_handler(s, conn, rs, &res);
        if (rs->deferral.finish != NULL)
            return deferral_suspend(s, conn, rs);
        if (rs->deferral.counted)
            deferral_release(s); /* allowed to defer, it answered before it returned */
    }
    return send_response(s, conn, rs, &res, false);
}

/* The first call of a request: its head has arrived. Makes its state, and answers at once a
 * request refused before routing or a body declared too large to read. */
static enum MHD_Result request_begin(struct svc_server *s, struct MHD_Connection *conn,
                                     const char *url, const char *method, const char *version,
                                     void **con_cls)
{
    struct svc__request_state *rs = svc__request_state_take();
    if (rs == NULL)
        return MHD_NO;
    *con_cls = rs;
    svc__watch_mark(s, conn, SVC__WATCH_HEAD_READ);
    atomic_fetch_add(&s->in_flight, 1);
    rs->start_us = svc__now_us();
    svc__copy_printable(rs->method, sizeof rs->method, method);
    svc__copy_printable(rs->path, sizeof rs->path, url);
    svc__request_id_assign(conn, rs->request_id);
    svc_route_match(s->ctx->routes, s->ctx->route_count, method, url, &rs->match);
    struct svc__watch *w = svc__watch_of(conn);
    rs->refusal = w != NULL ? w->target_refusal : NULL;
    if (rs->refusal == NULL)
        rs->refusal = svc__head_refusal(conn, version, rs->refusal_text, sizeof rs->refusal_text);
    if (rs->refusal != NULL)
        return dispatch(s, conn, rs); /* before any body is read; the connection closes */
    if (svc__body_refused_early(conn, rs, s->ctx->config->max_body))
        return dispatch(s, conn, rs); /* unread; libmicrohttpd then closes */
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
    struct svc_server *s = cls;
    struct svc__request_state *rs = *con_cls;
    if (rs == NULL)
        return request_begin(s, conn, url, method, version, con_cls);
    if (rs->deferral.finish != NULL)
        return deferral_resumed(s, conn, rs);
    if (*upload_data_size > 0) {
        svc__body_append(rs, upload_data, *upload_data_size, s->ctx->config->max_body);
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (rs->status != 0)
        return MHD_YES; /* already answered (early 400 or 413) */
    return dispatch(s, conn, rs);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct svc_server *s = cls;
    svc__watch_mark(s, conn, SVC__WATCH_READING);
    struct svc__request_state *rs = *con_cls;
    if (rs == NULL)
        return;
    if (rs->deferral.finish != NULL) {
        /* Resumed, but closed before its answer was finished (the client went away): the
         * continuation still runs, for what it does besides answering, and frees its own. A
         * suspended connection is never reported complete: this one's completion came. */
        assert(rs->deferral.state == SVC__DEFER_COMPLETED);
        struct svc_response res;
        memset(&res, 0, sizeof res);
        deferral_finish(s, conn, rs, &res);
        svc_response_clear(&res);
    }
    svc__access_log(rs, toe);
    svc__request_state_give(rs);
    *con_cls = NULL;
    atomic_fetch_sub(&s->in_flight, 1);
}

int svc_server_start(struct svc_context *ctx, struct svc_server **out)
{
    assert(ctx != NULL && ctx->config != NULL && out != NULL);
    const struct svc_config *cfg = ctx->config;
    *out = NULL;
    struct svc_server *s = calloc(1, sizeof *s);
    if (s == NULL)
        return SVC_SERVER_ERR_NOMEM;
    s->ctx = ctx;
    atomic_init(&s->in_flight, 0);
    atomic_init(&s->stopping, false);
    atomic_init(&s->closing, false);
    atomic_init(&s->listening, false);
    atomic_init(&s->poll_now, false);
    pthread_mutex_init(&s->watch_lock, NULL);
    pthread_mutex_init(&s->tick_lock, NULL);
    pthread_mutex_init(&s->defer_lock, NULL);
    pthread_cond_init(&s->defer_idle, NULL);
    atomic_init(&s->deferring, 0);
    atomic_init(&s->no_defer, false);
    pthread_condattr_t monotonic;
    pthread_condattr_init(&monotonic);
    pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
    pthread_cond_init(&s->tick, &monotonic);
    pthread_condattr_destroy(&monotonic);
    int rc = svc__daemon_start(s, cfg, on_request, on_completed);
    if (rc != SVC_SERVER_OK) {
        pthread_cond_destroy(&s->defer_idle);
        pthread_mutex_destroy(&s->defer_lock);
        pthread_mutex_destroy(&s->watch_lock);
        pthread_cond_destroy(&s->tick);
        pthread_mutex_destroy(&s->tick_lock);
        free(s);
        return rc;
    }
    /* On SQLite there is no listener (DB_ERR_UNSUPPORTED): the poll does it all. */
    if (ctx->hub != NULL && cfg->feed_listen)
        db_listen_start(ctx->db, svc__on_change, s);
    s->watchdog_started = pthread_create(&s->watchdog, NULL, svc__watchdog_run, s) == 0;
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    s->port = info ? info->port : cfg->port;
    *out = s;
    return SVC_SERVER_OK;
}

unsigned svc_server_port(const struct svc_server *s)
{
    return s->port;
}

int svc_server_shutdown(struct svc_server *s, int timeout_ms)
{
    atomic_store(&s->closing, true);
    atomic_store(&s->no_defer, true); /* keep-alive clients still send writes: answered at once */
    /* The live feeds end first: each is a request in flight for as long as it is open, and
     * libmicrohttpd must not be stopped with a connection suspended. The listener stops
     * before them, as its calls reach this server. */
    db_listen_stop(s->ctx->db);
    if (s->ctx->hub != NULL)
        svc_hub_close(s->ctx->hub);
    int waited = 0;
    while (atomic_load(&s->in_flight) > 0 && waited < timeout_ms) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
        waited += 10;
    }
    int left = atomic_load(&s->in_flight);
    pthread_mutex_lock(&s->tick_lock);
    atomic_store(&s->stopping, true);
    pthread_cond_signal(&s->tick);
    pthread_mutex_unlock(&s->tick_lock);
    if (s->watchdog_started)
        pthread_join(s->watchdog, NULL);
    /* A write waiting for its group commit holds its connection suspended, and libmicrohttpd
     * aborts when stopped with one (or with a handler about to suspend one): no handler may
     * defer from the start of the shutdown, and those that could are waited for past the
     * timeout, as a handler blocked in the append would be. Their completions always come (the
     * database tells every queued append once its batch has committed or failed). */
    pthread_mutex_lock(&s->defer_lock);
    while (atomic_load(&s->deferring) > 0 || s->suspended > 0)
        pthread_cond_wait(&s->defer_idle, &s->defer_lock);
    pthread_mutex_unlock(&s->defer_lock);
    MHD_stop_daemon(s->daemon);
    pthread_cond_destroy(&s->defer_idle);
    pthread_mutex_destroy(&s->defer_lock);
    pthread_mutex_destroy(&s->watch_lock);
    pthread_cond_destroy(&s->tick);
    pthread_mutex_destroy(&s->tick_lock);
    free(s);
    return left;
}
