/* POST /v1/discord/interactions: the signature first, then PING, autocomplete (answered at
 * once: Discord allows no deferral for it) and commands, each run on a worker thread and
 * answered within --discord-defer-ms, or else deferred and finished by a followup. */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "service/discord/internal.h"
#include "service/http/log.h"
#include "service/http/problem.h"
#include "service/http/request.h"
#include "service/json/fields.h"

struct job {
    struct svc_discord *d;
    struct svc_context *ctx;
    json_t *interaction;
    struct discord_reply reply;
    bool done, deferred;
    int refs;
    pthread_cond_t cv;
};

static void job_release(struct job *j)
{
    pthread_mutex_lock(&j->d->lock);
    assert(j->refs > 0);
    bool last = --j->refs == 0;
    pthread_mutex_unlock(&j->d->lock);
    if (!last)
        return;
    pthread_cond_destroy(&j->cv);
    json_decref(j->interaction);
    discord_reply_free(&j->reply);
    free(j);
}

static void *work(void *arg)
{
    struct job *j = arg;
    struct svc_discord *d = j->d;
    discord_run(j->ctx, j->interaction, &j->reply);
    pthread_mutex_lock(&d->lock);
    j->done = true;
    bool followup = j->deferred;
    pthread_cond_signal(&j->cv);
    pthread_mutex_unlock(&d->lock);
    if (followup) {
        const char *ct = NULL;
        size_t len = 0;
        char *body = discord_reply_body(&j->reply, true, &ct, &len);
        const char *app = json_string_value(json_object_get(j->interaction, "application_id"));
        const char *token = json_string_value(json_object_get(j->interaction, "token"));
        int rc = body != NULL && app != NULL && token != NULL
                     ? d->sender.send(d->sender.ud, d->api, app, token, ct, body, len)
                     : -1;
        if (rc != 0)
            svc_log("warn", "discord_followup_failed",
                    json_pack("{s:s}", "application_id", app ? app : ""));
        free(body);
    }
    job_release(j);
    pthread_mutex_lock(&d->lock);
    assert(d->running > 0); /* run_command counted this worker */
    if (--d->running == 0)
        pthread_cond_broadcast(&d->idle);
    pthread_mutex_unlock(&d->lock);
    return NULL;
}

static void respond_reply(struct svc_response *res, const struct discord_reply *r)
{
    const char *ct = NULL;
    size_t len = 0;
    char *body = discord_reply_body(r, false, &ct, &len);
    svc_respond_owned(res, 200, ct != NULL ? ct : "application/json", body, len);
}

/* Runs a command on a worker; its reply when it finishes within the deadline, else DEFERRED. */
static void run_command(struct svc_discord *d, const struct svc_request *req, json_t *interaction,
                        struct svc_response *res)
{
    assert(interaction != NULL);
    struct job *j = calloc(1, sizeof *j);
    if (j == NULL) {
        json_decref(interaction);
        svc_problem(res, SVC_PROBLEM_INTERNAL, NULL, NULL);
        return;
    }
    /* --discord-defer-ms 0 defers every command, decided before the worker starts so that the
     * answer does not depend on which thread is faster (the worker sends the followup). */
    *j = (struct job){.d = d,
                      .ctx = req->ctx,
                      .interaction = interaction,
                      .refs = 2,
                      .deferred = d->defer_ms == 0};
    pthread_cond_init(&j->cv, NULL);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_mutex_lock(&d->lock);
    d->running++;
    pthread_mutex_unlock(&d->lock);
    pthread_t t;
    if (pthread_create(&t, &attr, work, j) != 0) { /* run it here, answered late if it must be */
        pthread_attr_destroy(&attr);
        j->refs = 1;
        discord_run(j->ctx, j->interaction, &j->reply);
        respond_reply(res, &j->reply);
        pthread_mutex_lock(&d->lock);
        if (--d->running == 0)
            pthread_cond_broadcast(&d->idle);
        pthread_mutex_unlock(&d->lock);
        job_release(j);
        return;
    }
    pthread_attr_destroy(&attr);
    /* Discord's deadline is wall-clock time: the wait is one, unlike anything a test waits on. */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    long ns = until.tv_nsec + (long)(d->defer_ms % 1000) * 1000000L;
    until.tv_sec += (time_t)(d->defer_ms / 1000) + ns / 1000000000L;
    until.tv_nsec = ns % 1000000000L;
    pthread_mutex_lock(&d->lock);
    while (!j->done && d->defer_ms > 0)
        if (pthread_cond_timedwait(&j->cv, &d->lock, &until) == ETIMEDOUT)
            break;
    bool done = j->done && !j->deferred;
    if (!done)
        j->deferred = true;
    pthread_mutex_unlock(&d->lock);
    if (done)
        respond_reply(res, &j->reply);
    else
        respond_reply(res, &(struct discord_reply){.type = 5});
    job_release(j);
}

void svc_handle_discord_interactions(const struct svc_request *req, struct svc_response *res)
{
    const struct svc_config *cfg = req->ctx->config;
    struct svc_discord *d = req->ctx->discord;
    /* Off unless configured: 404, as for any path this server does not serve (the endpoint
     * does not exist here), rather than 503, which says "try again later" when nothing will
     * change until the operator restarts with a key. */
    if (cfg->discord_public_key[0] == '\0') {
        svc_problem(res, SVC_PROBLEM_NOT_FOUND,
                    "Discord interactions are off: start tacticsd with --discord-public-key (or "
                    "TACTICS_DISCORD_PUBLIC_KEY) set to the application's public key",
                    NULL);
        return;
    }
    if (d == NULL) {
        svc_problem(res, SVC_PROBLEM_NOT_READY, "Discord interactions could not be set up", NULL);
        return;
    }
    static const char *const why[] = {
        [DISCORD_UNSIGNED] = "send X-Signature-Ed25519 (128 hex characters) and "
                             "X-Signature-Timestamp (Unix seconds)",
        [DISCORD_FORGED] = "the signature does not verify with the application's public key",
        [DISCORD_STALE] = "X-Signature-Timestamp is more than 300 seconds from this server's "
                          "clock",
        [DISCORD_REPLAYED] = "this signed request was received already",
    };
    enum discord_verdict v = discord_verify(d, svc_request_header(req, "X-Signature-Ed25519"),
                                            svc_request_header(req, "X-Signature-Timestamp"),
                                            req->body, req->body_len, (int64_t)time(NULL));
    if (v == DISCORD_SEEN_FULL) {
        svc_problem(res, SVC_PROBLEM_NOT_READY, "too many interactions at once; try again", NULL);
        return;
    }
    if (v != DISCORD_OK) {
        svc_problem(res, SVC_PROBLEM_UNAUTHORIZED, why[v], NULL);
        return;
    }
    json_t *in = svc_parse_json_body(req, res);
    if (in == NULL)
        return;
    json_t *type = json_object_get(in, "type");
    long long t = json_is_integer(type) ? json_integer_value(type) : 0;
    if (t == 1) { /* PING: PONG */
        json_decref(in);
        respond_reply(res, &(struct discord_reply){.type = 1});
    } else if (t == 4) { /* APPLICATION_COMMAND_AUTOCOMPLETE */
        struct discord_reply r = {0};
        discord_run(req->ctx, in, &r);
        json_decref(in);
        respond_reply(res, &r);
        discord_reply_free(&r);
    } else if (t == 2) { /* APPLICATION_COMMAND */
        run_command(d, req, in, res);
    } else {
        json_decref(in);
        struct svc_errors e;
        svc_errors_init(&e);
        svc_errors_add(&e, "/type",
                       "must be 1 (PING), 2 (APPLICATION_COMMAND) or 4 "
                       "(APPLICATION_COMMAND_AUTOCOMPLETE): this application has no components "
                       "or modals");
        svc_errors_respond(&e, res);
    }
}
