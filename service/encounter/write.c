/* Encounters over HTTP: auth, If-Match, idempotency and replays, the write path every event
 * after creation takes (write_event), and the handlers for get, delete and the writes (the
 * events and the state: read.c). The model, and which file does what: internal.h. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "service/encounter/encounter.h"
#include "service/encounter/internal.h"
#include "service/encounter/state_cache.h"
#include "service/http/http.h"
#include "service/http/hub.h"
#include "service/http/problem.h"
#include "service/http/request.h"
#include "service/json/errors.h"
#include "service/json/fields.h"
#include "service/json/reader.h"
#include "text/text.h"

#define MAX_PAGE     500
#define DEFAULT_PAGE 100

/* ---- HTTP plumbing: auth, versions, replays ---- */

void enc_etag_of(int64_t version, char *out, size_t n)
{
    snprintf(out, n, "\"v%lld\"", (long long)version);
}

/* The If-Match version: >= 0, -1 when absent, -2 when unreadable. Readable is exactly the ETag
 * this service sends, "v" and the version's digits in quotes (at most 18 digits, so no number
 * overflows; no leading zero), with optional spaces or tabs around it (RFC 9110's OWS): anything
 * else (a weak tag, a list, "*", a sign, a missing quote) is not a version, and fails the check
 * (412). */
static int64_t if_match(const struct svc_request *req)
{
    const char *h = svc_request_header(req, "If-Match");
    if (h == NULL)
        return -1;
    h += strspn(h, " \t");
    if (h[0] != '"' || h[1] != 'v')
        return -2;
    h += 2;
    size_t n = strspn(h, "0123456789");
    if (n == 0 || n > 18 || (n > 1 && h[0] == '0') || h[n] != '"' ||
        h[n + 1 + strspn(h + n + 1, " \t")] != '\0')
        return -2; /* "v02" is not "v2": ETags compare byte for byte (RFC 9110 8.8.3.2) */
    int64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (h[i] - '0');
    return v;
}

/* The bearer token's hash; false (with the 401 in res) when absent or malformed. */
bool enc_bearer(const struct svc_request *req, struct svc_response *res,
                unsigned char hash[AUTH_HASH_LEN])
{
    size_t n = 0;
    const char *t = auth_bearer(svc_request_header(req, "Authorization"), &n);
    if (t == NULL) {
        svc_problem(res, SVC_PROBLEM_UNAUTHORIZED,
                    "send Authorization: Bearer <the token you got when creating the encounter>",
                    NULL);
        svc_response_add_header(res, "WWW-Authenticate", "Bearer realm=\"tactics\"");
        return false;
    }
    auth_sha256(t, n, hash);
    return true;
}

/* A token the client chose for a new encounter (create, import): its hash, or false after
 * answering 401 (malformed) or 422 (weaker than 128 bits, auth_token_bits). */
bool enc_client_token(const struct svc_request *req, struct svc_response *res,
                      unsigned char hash[AUTH_HASH_LEN])
{
    size_t n = 0;
    const char *t = auth_bearer(svc_request_header(req, "Authorization"), &n);
    if (t != NULL && auth_token_bits(t, n) < 128) {
        struct svc_errors e;
        svc_errors_init(&e);
        svc_errors_add(&e, "",
                       "header Authorization: a token you choose needs at least 128 bits (e.g. 32 "
                       "random hex characters, or 22 of A-Za-z0-9._~-), and no character may make "
                       "up half of it; leave Authorization out to be given one");
        svc_errors_respond(&e, res);
        return false;
    }
    return enc_bearer(req, res, hash);
}

/* Whether the request carries the loaded encounter's own token (reads answer more to it). */
bool enc_is_owner(const struct svc_request *req, const struct db_encounter *enc)
{
    size_t n = 0;
    const char *t = auth_bearer(svc_request_header(req, "Authorization"), &n);
    if (t == NULL)
        return false;
    unsigned char hash[AUTH_HASH_LEN];
    auth_sha256(t, n, hash);
    return auth_equal(hash, enc->token_hash, AUTH_HASH_LEN);
}

bool enc_db_failed(struct svc_response *res, int rc)
{
    if (rc == DB_OK)
        return false;
    if (rc == DB_ERR_NOT_FOUND)
        svc_problem(res, SVC_PROBLEM_NOT_FOUND, "no such encounter", NULL);
    else
        svc_problem(res, SVC_PROBLEM_NOT_READY, "the database did not answer; try again", NULL);
    return true;
}

bool enc_id_ok(const char *id)
{
    size_t n = strlen(id);
    if (n == 0 || n > 64)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((id[i] >= 'a' && id[i] <= 'z') || (id[i] >= '0' && id[i] <= '9')))
            return false;
    return true;
}

/* Loads the encounter named by the path. */
bool enc_load(const struct svc_request *req, struct svc_response *res, struct db_encounter *enc,
              json_t **state, size_t *text_len)
{
    const char *id = req->params[0];
    if (!enc_id_ok(id)) {
        svc_problem(res, SVC_PROBLEM_NOT_FOUND, "no such encounter", NULL);
        return false;
    }
    if (enc_db_failed(res, db_encounter_get(req->ctx->db, id, enc)))
        return false;
    *state = jsonr_load(enc->state_json, strlen(enc->state_json));
    if (text_len != NULL)
        *text_len = strlen(enc->state_json);
    free(enc->state_json);
    enc->state_json = NULL;
    if (*state == NULL) {
        svc_problem(res, SVC_PROBLEM_INTERNAL, NULL, NULL);
        return false;
    }
    return true;
}

/* An attack action's result as its writer wrote it (enc_cache's result_text and the rest:
 * enc_attack_on): taken from the write's cache. */
struct result_text {
    char *text;
    size_t len, kept;
    const json_t *of;
};

/* The result's text: written once by an attack's writer (rt, when it is this result's), with
 * the members added to its value since; else dumped from the value. */
static char *result_of(json_t *ev, const struct result_text *rt, size_t *n)
{
    json_t *rv = json_object_get(ev, "result");
    /* The value holds only the members read: it must be the one the text was written for (the
     * tag is written first, so enc_tag_result never builds the object again). */
    assert(rt->text == NULL || rt->of == rv);
    if (rt->text != NULL && rt->of != rv)
        return NULL; /* never store a value that may hold only the kept members: no append */
    if (rt->text == NULL || !json_is_object(rv))
        return jw_dump(rv, n);
    return jw_dump_after(rt->text, rt->len, rv, rt->kept, n);
}

#ifndef NDEBUG
/* Debug builds, for a result whose value holds only the members its readers read (rt): whether
 * the text holds each of them as the value has it, and the sentence told from the whole text
 * is the one told from the value (told): what is stored, and what a read of the log tells. */
static bool result_text_holds(const char *text, size_t n, json_t *before, const char *kind,
                              json_t *in, json_t *ev, const struct enc_explain *told)
{
    json_t *parsed = jsonr_load(text, n), *rv = json_object_get(ev, "result");
    bool same = json_is_object(parsed);
    const char *k;
    json_t *v;
    json_object_foreach(rv, k, v)
    {
        same = same && json_equal(v, json_object_get(parsed, k));
    }
    struct enc_explain again;
    enc_explain_parts(before, kind, in, parsed, json_object_get(ev, "effects"), &again);
    same = same && strcmp(again.plain, told->plain) == 0 &&
           strcmp(again.markdown, told->markdown) == 0;
    json_decref(parsed);
    return same;
}
#endif

/* A write's three texts, each value written once: the event's payload {input, result,
 * effects} for the log, the new state, and the answer {id, version, event {seq, kind, result,
 * explain, explain_markdown}, state, summary, summary_markdown}, which embeds the result and
 * the state already written (minimal: without the state; summary NULL: without the summary);
 * *state_len gets the state text's length. All NULL when out of memory, or when result (the
 * event's result as text, result_of, result[0..rn)) is NULL. */
static void event_texts(const char *id, int64_t seq, const char *kind, json_t *in, json_t *ev,
                        const char *result, size_t rn, const struct enc_explain *told,
                        const struct enc_summary *summary, json_t *state, bool minimal,
                        char **payload, char **state_text, size_t *state_len, char **answer)
{
    size_t sn = 0, n = 0;
    *state_text = jw_dump(state, &sn);
    *payload = *answer = NULL;
    if (result != NULL && *state_text != NULL) {
        struct jw w;
        jw_init(&w, rn + 512);
        jw_object_begin(&w);
        JW_KEY(&w, "engine");
        jw_int(&w, RULES_ENGINE_VERSION);
        JW_KEY(&w, "input");
        jw_json(&w, in);
        JW_KEY(&w, "result");
        jw_raw(&w, result, rn);
        JW_KEY(&w, "effects");
        jw_json(&w, json_object_get(ev, "effects"));
        jw_object_end(&w);
        *payload = jw_finish(&w, &n);
        jw_init(&w, rn + (minimal ? 0 : sn) + 256);
        jw_object_begin(&w);
        JW_KEY(&w, "id");
        jw_string(&w, id);
        JW_KEY(&w, "version");
        jw_int(&w, seq);
        JW_KEY(&w, "event");
        jw_object_begin(&w);
        JW_KEY(&w, "seq");
        jw_int(&w, seq);
        JW_KEY(&w, "kind");
        jw_string(&w, kind);
        JW_KEY(&w, "result");
        jw_raw(&w, result, rn);
        JW_KEY(&w, "explain");
        jw_string(&w, told->plain);
        JW_KEY(&w, "explain_markdown");
        jw_string(&w, told->markdown);
        jw_object_end(&w);
        if (summary != NULL) {
            JW_KEY(&w, "summary");
            jw_string(&w, summary->plain);
            JW_KEY(&w, "summary_markdown");
            jw_string(&w, summary->markdown);
        }
        if (!minimal) {
            size_t tn = 0;
            char *served = enc_served_state_text(state, *state_text, sn, &tn);
            JW_KEY(&w, "state");
            if (served != NULL)
                jw_raw(&w, served, tn);
            else
                jw_null(&w);
            free(served);
        }
        jw_object_end(&w);
        *answer = jw_finish(&w, &n);
    }
    if (*payload == NULL || *answer == NULL) {
        free(*payload);
        free(*state_text);
        free(*answer);
        *payload = *state_text = *answer = NULL;
        sn = 0;
    }
    *state_len = sn;
}

void enc_respond_with_etag(struct svc_response *res, unsigned status, json_t *doc, int64_t version)
{
    svc_respond_json(res, status, doc);
    char etag[32];
    enc_etag_of(version, etag, sizeof etag);
    svc_response_add_header(res, "ETag", etag);
}

/* The hash of what was asked: method, path and body. */
static void request_hash(const struct svc_request *req, unsigned char out[AUTH_HASH_LEN])
{
    size_t n = strlen(req->method) + strlen(req->path) + req->body_len + 2;
    char *buf = malloc(n + 1);
    if (buf == NULL) {
        memset(out, 0, AUTH_HASH_LEN);
        return;
    }
    int k = snprintf(buf, n + 1, "%s %s\n", req->method, req->path);
    memcpy(buf + k, req->body, req->body_len);
    auth_sha256(buf, (size_t)k + req->body_len, out);
    free(buf);
}

void enc_preference_applied(const struct svc_request *req, struct svc_response *res)
{
    if (svc_request_prefers_minimal(req))
        svc_response_add_header(res, "Preference-Applied", "return=minimal");
}

struct replay_acc {
    json_t *state;  /* the fold so far */
    json_t *result; /* the last event's ruling */
    char kind[32];
    int64_t upto;             /* the event replayed */
    struct enc_explain *told; /* its sentence, told from the state before it */
    json_t *events;           /* a create's: every event after created, as create answers it */
};

static int replay_item(void *ud, int64_t seq, const char *kind, const char *payload,
                       const char *created_at)
{
    (void)created_at;
    struct replay_acc *a = ud;
    json_t *p = jsonr_load(payload, strlen(payload));
    if (seq == a->upto && p != NULL)
        enc_explain_event(a->state, kind, p, a->told);
    if (a->events != NULL && seq > 1 && p != NULL) {
        struct enc_explain told;
        enc_explain_event(a->state, kind, p, &told);
        json_array_append_new(a->events,
                              enc_event_answer(seq, kind, json_object_get(p, "result"), &told));
    }
    if (a->events != NULL) { /* the fold must not share what the answer lists */
        json_t *copy = json_deep_copy(json_object_get(p, "effects"));
        enc_fold(a->state, copy);
        json_decref(copy);
    } else {
        enc_fold(a->state, json_object_get(p, "effects"));
    }
    json_decref(a->result);
    a->result = json_incref(json_object_get(p, "result"));
    snprintf(a->kind, sizeof a->kind, "%s", kind);
    json_decref(p);
    return 0;
}

json_t *enc_event_answer(int64_t seq, const char *kind, json_t *result,
                         const struct enc_explain *told)
{
    return json_pack("{s:I, s:s, s:O, s:s, s:s}", "seq", (json_int_t)seq, "kind", kind, "result",
                     result ? result : json_null(), "explain", told->plain, "explain_markdown",
                     told->markdown);
}

/* Answers a retry from its key: the first answer, rebuilt from the event it made and the state
 * after it (the fold of the log up to it), or 409 when the key came with another request; as
 * create answers (create) or as any later write, either asked with Prefer: return=minimal, the
 * retry's own preference. Always true (it answered). */
bool enc_replayed(const struct svc_request *req, struct svc_response *res, struct db_replay *r,
                  bool create)
{
    unsigned char h[AUTH_HASH_LEN];
    request_hash(req, h);
    if (!auth_equal(h, r->request_hash, AUTH_HASH_LEN)) {
        svc_problem(res, SVC_PROBLEM_CONFLICT,
                    "this Idempotency-Key was used with a different request", NULL);
        return true;
    }
    struct enc_explain told = {.plain = "", .markdown = ""};
    struct replay_acc a = {.state = json_object(),
                           .upto = r->version,
                           .told = &told,
                           .events = create && r->version > 1 ? json_array() : NULL};
    int rc = db_events(req->ctx->db, r->encounter_id, 0, r->version, INT32_MAX, replay_item, &a);
    if (rc == DB_OK && a.result == NULL)
        rc = DB_ERR_NOT_FOUND;
    if (!enc_db_failed(res, rc)) {
        json_t *doc =
            json_pack("{s:s, s:I}", "id", r->encounter_id, "version", (json_int_t)r->version);
        struct enc_summary summary = {0};
        if (!create)
            json_object_set_new(doc, "event",
                                enc_event_answer(r->version, a.kind, a.result, &told));
        else if (a.events != NULL)
            json_object_set(doc, "events", a.events);
        if (!create && strcmp(a.kind, "next_turn") == 0 &&
            enc_state_summary(a.state, req->ctx->config, &summary)) {
            json_object_set_new(doc, "summary", json_string(summary.plain));
            json_object_set_new(doc, "summary_markdown", json_string(summary.markdown));
        }
        enc_summary_free(&summary);
        if (!svc_request_prefers_minimal(req)) {
            enc_serve_state(a.state);
            json_object_set(doc, "state", a.state);
        }
        enc_respond_with_etag(res, (unsigned)r->status, doc, r->version);
        svc_response_add_header(res, "Idempotent-Replayed", "true");
        enc_preference_applied(req, res);
    }
    json_decref(a.state);
    json_decref(a.result);
    json_decref(a.events);
    return true;
}

bool enc_idempotency(const struct svc_request *req, struct svc_response *res,
                     const unsigned char scope[AUTH_HASH_LEN], struct db_replay *r, bool *use,
                     bool create)
{
    const char *key = svc_request_header(req, "Idempotency-Key");
    *use = key != NULL;
    if (key == NULL)
        return true;
    size_t n = strlen(key);
    if (!text_utf8_valid(key, n)) {
        /* Stored as text: PostgreSQL refuses bytes that are not UTF-8 (that was a 503) where
         * SQLite kept them; neither is a key a client can name again reliably. */
        svc_problem(
            res, SVC_PROBLEM_BAD_REQUEST,
            "header Idempotency-Key is not UTF-8 text; a key is kept as text, so it must be", NULL);
        return false;
    }
    if (n == 0 || n > 128) {
        struct svc_errors e;
        svc_errors_init(&e);
        svc_errors_add(&e, "", "Idempotency-Key must be 1 to 128 characters");
        svc_errors_respond(&e, res);
        return false;
    }
    memset(r, 0, sizeof *r);
    memcpy(r->scope, scope, AUTH_HASH_LEN);
    r->key = key;
    int rc = db_replay_get(req->ctx->db, r);
    if (rc == DB_OK)
        return !enc_replayed(req, res, r, create);
    if (rc != DB_ERR_NOT_FOUND) {
        enc_db_failed(res, rc);
        return false;
    }
    request_hash(req, r->request_hash);
    return true;
}

/* Authorizes a write to the loaded encounter: its own token. No bearer credentials at all is
 * a 401 (send one); bearer credentials that are not the owner's, malformed ones included, are
 * a 403: the client did authenticate, with a token that does not own this encounter. */
static bool authorize_owner(const struct svc_request *req, struct svc_response *res,
                            const struct db_encounter *enc, unsigned char hash[AUTH_HASH_LEN])
{
    const char *h = svc_request_header(req, "Authorization");
    if (h == NULL || strncasecmp(h, "Bearer ", 7) != 0)
        return enc_bearer(req, res, hash); /* answers the 401 */
    size_t n = 0;
    const char *t = auth_bearer(h, &n);
    if (t != NULL) {
        auth_sha256(t, n, hash);
        if (auth_equal(hash, enc->token_hash, AUTH_HASH_LEN))
            return true;
    }
    svc_problem(res, SVC_PROBLEM_FORBIDDEN, "this token does not own the encounter", NULL);
    return false;
}

/* Checks If-Match, v as if_match read it, against the loaded encounter's version. */
static bool check_if_match_of(int64_t v, struct svc_response *res, const struct db_encounter *enc)
{
    if (v == -1) {
        svc_problem(res, SVC_PROBLEM_PRECONDITION_REQUIRED, NULL, NULL);
        return false;
    }
    if (v != enc->version) {
        char detail[256];
        if (v == -2) /* not a version at all: say so, rather than only which one is current */
            snprintf(detail, sizeof detail,
                     "If-Match must be one ETag of this encounter, \"v<version>\" in quotes (not "
                     "a list, * or a weak tag); the encounter is at version %lld",
                     (long long)enc->version);
        else
            snprintf(detail, sizeof detail, "the encounter is at version %lld",
                     (long long)enc->version);
        svc_problem(res, SVC_PROBLEM_PRECONDITION_FAILED, detail, NULL);
        char etag[32];
        enc_etag_of(enc->version, etag, sizeof etag);
        svc_response_add_header(res, "ETag", etag);
        return false;
    }
    return true;
}

/* Checks If-Match against the loaded encounter's version. */
static bool check_if_match(const struct svc_request *req, struct svc_response *res,
                           const struct db_encounter *enc)
{
    return check_if_match_of(if_match(req), res, enc);
}

/* The encounter a write acts on, with its state: from the state cache when it holds the
 * version If-Match names, v (no read, no parse; with the typed state the last write kept,
 * *kept, or NULL), else from the database. False after answering. */
static bool load_for_write(const struct svc_request *req, struct svc_response *res, int64_t v,
                           struct db_encounter *enc, json_t **state, size_t *text_len,
                           struct enc_kept **kept)
{
    const char *id = req->params[0];
    *kept = NULL;
    if (v > 0 && enc_id_ok(id) && strlen(id) < sizeof enc->id) {
        memset(enc, 0, sizeof *enc);
        void *extra = NULL;
        *state =
            svc_state_cache_take_with(req->ctx->states, id, v, enc->token_hash, text_len, &extra);
        *kept = extra;
        if (*state != NULL) {
            memcpy(enc->id, id, strlen(id) + 1);
            enc->version = v;
            return true;
        }
    }
    return enc_load(req, res, enc, state, text_len);
}

/* The answer to a write's append, rc: the event's answer (answer_text) with the ETag of seq, the
 * first answer of a retried Idempotency-Key (replay), 412 with the ETag of the version another
 * write reached first (current), or the storage's problem. */
static void respond_appended(const struct svc_request *req, struct svc_response *res, int rc,
                             unsigned status, const char *id, int64_t seq, int64_t current,
                             const char *answer_text, struct db_replay *replay)
{
    char etag[32];
    if (rc == DB_OK) {
        svc_hub_appended(req->ctx->hub, id, seq); /* wakes the live feeds (hub.h) */
        svc_respond_raw(res, status, "application/json", answer_text, strlen(answer_text));
        enc_etag_of(seq, etag, sizeof etag);
        svc_response_add_header(res, "ETag", etag);
        enc_preference_applied(req, res);
    } else if (rc == DB_ERR_REPLAY) {
        enc_replayed(req, res, replay, false);
    } else if (rc == DB_ERR_CONFLICT) {
        char detail[128];
        snprintf(detail, sizeof detail, "the encounter is at version %lld", (long long)current);
        svc_problem(res, SVC_PROBLEM_PRECONDITION_FAILED, detail, NULL);
        enc_etag_of(current, etag, sizeof etag);
        svc_response_add_header(res, "ETag", etag);
    } else {
        enc_db_failed(res, rc);
    }
}

/* One write's state, from its load to its answer: everything that must outlive the append when
 * it completes later (db_encounter_append_async; then it lives on the heap, the continuation of
 * a deferred answer), and what its end frees. */
struct write_job {
    struct db_append_wait wait; /* the append's result: wait.rc and wait.current */
    struct db_encounter enc;
    json_t *state, *ev, *in;
    /* The typed state of `state`, kept from the last write beside it in the cache, or decoded
     * by this one (enc_typed), refreshed by the event's effects, and kept again. */
    struct enc_kept *kept;
    struct db_replay replay;
    bool use_replay, folded, heap;
    struct result_text rt;
    char *result_text, *answer_text, *payload_text, *state_text;
    size_t state_len;
    unsigned status;
    int64_t seq;
};

/* The end of every write, answered or not: the state goes back to the cache (the new one after
 * a commit, the unchanged one after a refusal, none when it was changed but not stored), and
 * the rest is freed, the job too when it is on the heap. */
static void write_job_end(struct write_job *j, const struct svc_request *req)
{
    if (j->state != NULL && (!j->folded || j->wait.rc == DB_OK)) {
        svc_state_cache_put_with(req->ctx->states, j->enc.id,
                                 j->folded ? j->enc.version + 1 : j->enc.version, j->enc.token_hash,
                                 j->state, j->state_len, j->kept, enc_kept_bytes(j->kept),
                                 enc_kept_free);
        j->state = NULL;
        j->kept = NULL;
    }
    enc_kept_free(j->kept);
    free(j->rt.text);
    free(j->result_text);
    free(j->answer_text);
    free(j->payload_text);
    free(j->state_text);
    json_decref(j->ev);
    json_decref(j->state);
    json_decref(j->in);
    if (j->heap)
        free(j);
}

/* The answer to a write's append and its end: at once, or as the continuation of an answer
 * deferred until its group commit (svc_finish_fn). */
static void write_job_finish(void *ud, const struct svc_request *req, struct svc_response *res)
{
    struct write_job *j = ud;
    respond_appended(req, res, j->wait.rc, j->status, j->enc.id, j->seq, j->wait.current,
                     j->answer_text, &j->replay);
    write_job_end(j, req);
}

/* Appends the job's event. Where the request may defer its answer (HTTP), the append waits for
 * its group commit without holding this thread: the job moves to the heap, and when the append
 * is queued behind another writer's batch the answer is deferred to write_job_finish, which
 * the commit's completion brings back. True when it was deferred (j is then the
 * continuation's), false when the append completed here. */
static bool write_job_append(struct write_job *j, const struct svc_request *req,
                             struct svc_response *res, const char *kind)
{
    struct write_job *heap = svc_deferral_start(req) ? malloc(sizeof *heap) : NULL;
    if (heap == NULL) {
        j->wait.rc =
            db_encounter_append(req->ctx->db, j->enc.id, j->enc.version, kind, j->payload_text,
                                j->state_text, j->use_replay ? &j->replay : NULL, &j->wait.current);
        return false;
    }
    *heap = *j;
    heap->heap = true;
    heap->wait.done = svc_deferral_complete;
    heap->wait.ud = req->deferral;
    int rc = db_encounter_append_async(req->ctx->db, &heap->wait, heap->enc.id, heap->enc.version,
                                       kind, heap->payload_text, heap->state_text,
                                       heap->use_replay ? &heap->replay : NULL);
    if (rc == DB_PENDING) {
        svc_response_defer(req, res, write_job_finish, heap);
        return true;
    }
    *j = *heap;
    j->heap = false;
    free(heap);
    return false;
}

/* Resolves one event on the stored encounter and appends it: the common path of every write
 * after creation. `in` is stolen. */
static void write_event(const struct svc_request *req, struct svc_response *res, const char *kind,
                        json_t *in, unsigned status)
{
    assert(kind != NULL && (status == 200 || status == 201));
    struct write_job j = {.in = in, .status = status, .wait.rc = DB_ERR_NOMEM};
    unsigned char hash[AUTH_HASH_LEN];
    struct svc_errors e;
    svc_errors_init(&e);
    /* A retry with its Idempotency-Key gets its first answer even though the version has
     * moved on since: the key is looked up before If-Match is checked. */
    int64_t v = if_match(req); /* read once: the cache's version, then the check */
    if (!load_for_write(req, res, v, &j.enc, &j.state, &j.state_len, &j.kept))
        goto out;
    if (!authorize_owner(req, res, &j.enc, hash) ||
        !enc_idempotency(req, res, hash, &j.replay, &j.use_replay, false) ||
        !check_if_match_of(v, res, &j.enc))
        goto out;
    j.seq = j.enc.version + 1;
    struct enc_db_history log = {.db = req->ctx->db, .id = j.enc.id};
    struct enc_history history = {.events = enc_db_history_events, .ud = &log};
    /* An attack action's result is written as text once, beside a value of what is read. */
    struct enc_cache cache = {
        .history = &history, .follow = j.state, .kept = j.kept, .want_result_text = true};
    /* Combatants as players name them: the log stores the ids they name. */
    enc_names_to_ids(j.state, kind, in, &e);
    j.ev = svc_errors_any(&e)
               ? NULL
               : enc_resolve(req, &cache, j.state, kind, in, j.seq, RULES_ENGINE_VERSION, &e);
    j.kept = cache.kept; /* the request's cache ends here; the typed state goes on with state */
    cache.kept = NULL;
    j.rt = (struct result_text){cache.result_text, cache.result_len, cache.result_kept,
                                cache.result_of};
    cache.result_text = NULL;
    enc_cache_free(&cache);
    if (j.ev == NULL) {
        if (!svc_errors_any(&e))
            svc_errors_add(&e, "", "the request cannot be applied");
        svc_errors_respond(&e, res);
        goto out;
    }
    /* The sentence is told from the state before the event and the payload as stored, as a
     * read of the log tells it (enc_event_item). */
    struct enc_explain told;
    enc_explain_parts(j.state, kind, in, json_object_get(j.ev, "result"),
                      json_object_get(j.ev, "effects"), &told);
    size_t rn = 0;
    j.result_text = result_of(j.ev, &j.rt, &rn);
    assert(j.rt.text == NULL || j.result_text == NULL ||
           result_text_holds(j.result_text, rn, j.state, kind, in, j.ev, &told));
    enc_fold(j.state, json_object_get(j.ev, "effects"));
    j.kept = enc_kept_folded(j.kept, json_object_get(j.ev, "effects"));
    j.folded = true;
    /* A combatant's size and reach set what every query on the board costs: refused here,
     * once, rather than on every read after. */
    if ((strcmp(kind, "combatant_added") == 0 || strcmp(kind, "combatant_updated") == 0) &&
        !enc_board_within_budgets(req, j.state, res))
        goto out;
    /* A turn begun answers the order as it now stands too (Avrae's !init list). */
    struct enc_summary summary = {0};
    bool summarised =
        strcmp(kind, "next_turn") == 0 && enc_state_summary(j.state, req->ctx->config, &summary);
    if (strcmp(kind, "next_turn") != 0 || summarised)
        event_texts(j.enc.id, j.seq, kind, in, j.ev, j.result_text, rn, &told,
                    summarised ? &summary : NULL, j.state, svc_request_prefers_minimal(req),
                    &j.payload_text, &j.state_text, &j.state_len, &j.answer_text);
    enc_summary_free(&summary);
    svc_errors_free(&e);
    if (j.payload_text && j.state_text && j.answer_text) {
        j.replay.status = (int)status;
        j.replay.version = j.seq;
        if (write_job_append(&j, req, res, kind))
            return; /* answered by write_job_finish once the batch holding it has committed */
    }
    write_job_finish(&j, req, res);
    return;
out:
    svc_errors_free(&e);
    write_job_end(&j, req);
}

/* Parses a write's JSON body (an object). NULL after answering. */
static json_t *body_object(const struct svc_request *req, struct svc_response *res, bool optional)
{
    if (optional && req->body_len == 0)
        return json_object();
    json_t *body = svc_parse_json_body(req, res);
    if (body != NULL && !json_is_object(body)) {
        struct svc_errors e;
        svc_errors_init(&e);
        svc_errors_add(&e, "", "must be a JSON object");
        svc_errors_respond(&e, res);
        json_decref(body);
        return NULL;
    }
    return body;
}

/* ---- handlers (create and list: encounter_collection.c) ---- */

void svc_handle_encounter_get(const struct svc_request *req, struct svc_response *res)
{
    struct db_encounter enc;
    json_t *state;
    if (!enc_load(req, res, &enc, &state, NULL))
        return;
    if (!enc_is_owner(req, &enc)) {
        json_t *pub = enc_public_state(state);
        json_decref(state);
        state = pub;
    }
    enc_serve_state(state);
    json_t *doc = json_pack("{s:s, s:I, s:s, s:o}", "id", enc.id, "version",
                            (json_int_t)enc.version, "created_at", enc.created_at, "state", state);
    enc_respond_with_etag(res, 200, doc, enc.version);
}

void svc_handle_encounter_delete(const struct svc_request *req, struct svc_response *res)
{
    struct db_encounter enc;
    json_t *state;
    unsigned char hash[AUTH_HASH_LEN];
    if (!enc_load(req, res, &enc, &state, NULL))
        return;
    json_decref(state);
    if (!authorize_owner(req, res, &enc, hash) || !check_if_match(req, res, &enc))
        return;
    int64_t current = 0;
    int rc = db_encounter_delete(req->ctx->db, enc.id, enc.version, &current);
    if (rc == DB_ERR_CONFLICT) {
        svc_problem(res, SVC_PROBLEM_PRECONDITION_FAILED, "the encounter changed meanwhile", NULL);
        return;
    }
    if (enc_db_failed(res, rc))
        return;
    svc_state_cache_drop(req->ctx->states, enc.id);
    svc_state_cache_drop(req->ctx->folds[0], enc.id);
    svc_state_cache_drop(req->ctx->folds[1], enc.id);
    svc_state_cache_drop(req->ctx->verified, enc.id);
    svc_hub_deleted(req->ctx->hub, enc.id); /* its live feeds end */
    res->status = 204;
}

/* ?limit (1..500, default 100) */
int enc_page_limit(const struct svc_request *req, struct svc_errors *e)
{
    char msg[40];
    snprintf(msg, sizeof msg, "must be 1 to %d", MAX_PAGE);
    long long v = DEFAULT_PAGE;
    return codec_query_whole(req, "limit", 1, MAX_PAGE, DEFAULT_PAGE, msg, &v, e) ? (int)v
                                                                                  : DEFAULT_PAGE;
}

void svc_handle_encounter_add_combatant(const struct svc_request *req, struct svc_response *res)
{
    json_t *body = body_object(req, res, false);
    if (body != NULL)
        write_event(req, res, "combatant_added", body, 201);
}

void svc_handle_encounter_update_combatant(const struct svc_request *req, struct svc_response *res)
{
    json_t *body = body_object(req, res, false);
    if (body != NULL)
        write_event(req, res, "combatant_updated",
                    json_pack("{s:s, s:o}", "id", req->params[1], "fields", body), 200);
}

void svc_handle_encounter_remove_combatant(const struct svc_request *req, struct svc_response *res)
{
    write_event(req, res, "combatant_removed", json_pack("{s:s}", "id", req->params[1]), 200);
}

void svc_handle_encounter_initiative(const struct svc_request *req, struct svc_response *res)
{
    json_t *body = body_object(req, res, true);
    if (body != NULL)
        write_event(req, res, "initiative", body, 200); /* check_input checks its members */
}

void svc_handle_encounter_next_turn(const struct svc_request *req, struct svc_response *res)
{
    json_t *body = body_object(req, res, true);
    if (body != NULL)
        write_event(req, res, "next_turn", body, 200); /* check_input: no members */
}

void svc_handle_encounter_action(const struct svc_request *req, struct svc_response *res)
{
    json_t *body = body_object(req, res, false);
    if (body != NULL)
        write_event(req, res, "action", body, 200);
}

void svc_handle_encounter_hp(const struct svc_request *req, struct svc_response *res)
{
    json_t *body = body_object(req, res, false);
    if (body != NULL)
        write_event(req, res, "hp", body, 200); /* check_input checks its members */
}

void svc_handle_encounter_reveal(const struct svc_request *req, struct svc_response *res)
{
    write_event(req, res, "revealed", json_object(), 200);
}

void svc_handle_encounter_undo(const struct svc_request *req, struct svc_response *res)
{
    write_event(req, res, "undone", json_object(), 200); /* undo.c */
}

bool enc_new_identity(struct svc_response *res, char id[AUTH_ID_LEN + 1],
                      char token[AUTH_TOKEN_LEN + 1], unsigned char hash[AUTH_HASH_LEN])
{
    if (!auth_new_id(id) || (token != NULL && !auth_new_token(token))) {
        svc_problem(res, SVC_PROBLEM_INTERNAL, NULL, NULL);
        return false;
    }
    if (token != NULL)
        auth_sha256(token, strlen(token), hash);
    return true;
}
