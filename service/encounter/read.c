/* Reading an encounter's log over HTTP: the events page by page (with the fold checkpoint a
 * page's states start from) and the state as of any event (GET .../state?at=). Split from
 * write.c, which keeps the write path; which file does what: internal.h. */
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

int enc_event_item(void *ud, int64_t seq, const char *kind, const char *payload,
                   const char *created_at)
{
    struct events_acc *a = ud;
    bool listed = a->list != NULL && seq > a->list_after;
    if (!listed) {
        /* Only folded: its effects alone are parsed (most of a replay's time went to
         * building, then freeing, the input and the ruling). */
        if (a->state != NULL) {
            json_t *effects = jsonr_load_member(payload, strlen(payload), "effects");
            enc_fold(a->state, effects);
            json_decref(effects);
        }
        a->last = seq;
        return 0;
    }
    json_t *p = jsonr_load(payload, strlen(payload));
    json_t *shown = p ? enc_public_payload(kind, p, a->full) : json_null();
    json_t *item = json_pack("{s:I, s:s, s:s, s:o}", "seq", (json_int_t)seq, "kind", kind,
                             "created_at", created_at, "payload", shown);
    if (a->state != NULL && p != NULL) {
        struct enc_explain told;
        enc_explain_event(a->state, kind, p, &told);
        json_object_set_new(item, "explain", json_string(told.plain));
        json_object_set_new(item, "explain_markdown", json_string(told.markdown));
    }
    json_array_append_new(a->list, item);
    if (a->state != NULL) {
        /* The fold keeps references to what it adds (the created state, a new combatant) and
         * later events change those in place: the listed payload must not be among them. */
        json_t *copy = json_deep_copy(json_object_get(p, "effects"));
        enc_fold(a->state, copy);
        json_decref(copy);
    }
    json_decref(p);
    a->last = seq;
    return 0;
}

enum { FOLDS_EVENTS = 0, FOLDS_STATES = 1 }; /* svc_context.folds */

json_t *enc_fold_checkpoint(struct svc_context *ctx, const char *id, int64_t upto, int64_t *from)
{
    int best = -1;
    int64_t v[2];
    for (int k = 0; k < 2; k++) {
        v[k] = svc_state_cache_version(ctx->folds[k], id);
        if (v[k] > 0 && v[k] <= upto && (best < 0 || v[k] > v[best]))
            best = k;
    }
    *from = 0;
    json_t *copy = best >= 0 ? svc_state_cache_copy_upto(ctx->folds[best], id, upto, from) : NULL;
    if (copy == NULL)
        *from = 0; /* replaced in between: fold from the start */
    return copy;
}

void svc_handle_encounter_events(const struct svc_request *req, struct svc_response *res)
{
    struct db_encounter enc;
    json_t *state;
    size_t text_len = 0;
    if (!enc_load(req, res, &enc, &state, &text_len))
        return;
    struct svc_errors e;
    svc_errors_init(&e);
    int limit = enc_page_limit(req, &e);
    long long after = 0;
    codec_query_whole(req, "after", 0, SEED_MAX, 0, "must be an event number", &after, &e);
    if (svc_errors_any(&e)) {
        svc_errors_respond(&e, res);
        json_decref(state);
        return;
    }
    svc_errors_free(&e);
    /* Each event's explain is told from the state before it, so the log is folded from its
     * start, or from the latest fold checkpoint at or before `after` (a page ends by leaving
     * one, so paging on folds each event once): the events up to `after` are read and folded,
     * not listed. */
    int64_t from = 0;
    json_t *start = after > 0 ? enc_fold_checkpoint(req->ctx, enc.id, after, &from) : NULL;
    struct events_acc acc = {.list = json_array(),
                             .state = start != NULL ? start : json_object(),
                             .list_after = after,
                             .last = from,
                             .full = enc_is_owner(req, &enc) ||
                                     json_is_true(json_object_get(state, "revealed"))};
    size_t state_len = text_len;
    json_decref(state);
    long long reach = after < enc.version ? after + limit - from : 0;
    int rc = reach > 0 ? db_events(req->ctx->db, enc.id, from, INT64_MAX,
                                   reach < INT32_MAX ? (int)reach : INT32_MAX, enc_event_item, &acc)
                       : DB_OK;
    if (rc == DB_OK && acc.last > from)
        svc_state_cache_put(req->ctx->folds[FOLDS_EVENTS], enc.id, acc.last, enc.token_hash,
                            acc.state, state_len);
    else
        json_decref(acc.state);
    if (enc_db_failed(res, rc)) {
        json_decref(acc.list);
        return;
    }
    json_t *next = acc.last < enc.version && json_array_size(acc.list) > 0 ? json_integer(acc.last)
                                                                           : json_null();
    enc_respond_with_etag(res, 200,
                          json_pack("{s:s, s:I, s:o, s:o}", "id", enc.id, "version",
                                    (json_int_t)enc.version, "events", acc.list, "next_after",
                                    next),
                          enc.version);
}

/* The fold of events 1..upto, from the latest fold checkpoint at or before upto, and left as
 * one (size: the current state's text, an estimate for the cache's byte budget). */
static json_t *state_at(const struct svc_request *req, const struct db_encounter *enc, int64_t upto,
                        size_t size, int *rc)
{
    int64_t from = 0;
    json_t *start = enc_fold_checkpoint(req->ctx, enc->id, upto, &from);
    struct events_acc acc = {.state = start != NULL ? start : json_object(), .last = from};
    *rc = from < upto
              ? db_events(req->ctx->db, enc->id, from, upto, INT32_MAX, enc_event_item, &acc)
              : DB_OK;
    if (*rc == DB_OK && acc.last > from)
        svc_state_cache_put(req->ctx->folds[FOLDS_STATES], enc->id, acc.last, enc->token_hash,
                            json_deep_copy(acc.state), size);
    return acc.state;
}

/* Event `at` as its reader may see it ({seq, kind, created_at, payload}) and the state after the
 * event before it (an empty object before event 1), into *event and *before. */
static int event_and_before(const struct svc_request *req, const struct db_encounter *enc,
                            int64_t at, size_t size, bool full, json_t **event, json_t **before)
{
    int rc = DB_OK;
    *before = at > 1 ? state_at(req, enc, at - 1, size, &rc) : json_object();
    struct events_acc acc = {.list = json_array(), .list_after = at - 1, .full = full};
    if (rc == DB_OK)
        rc = db_events(req->ctx->db, enc->id, at - 1, at, 1, enc_event_item, &acc);
    *event = json_incref(json_array_get(acc.list, 0));
    json_decref(acc.list);
    if (rc == DB_OK && *event == NULL)
        rc = DB_ERR_IO; /* the log ends before its own version */
    return rc;
}

static json_t *state_query(const struct svc_request *req, struct svc_response *res, int64_t *at_out,
                           int64_t *version, json_t **event, json_t **before)
{
    struct db_encounter enc;
    json_t *stored;
    size_t size = 0;
    if (!enc_load(req, res, &enc, &stored, &size))
        return NULL;
    long long at = enc.version;
    char msg[64];
    snprintf(msg, sizeof msg, "must be an event number from 1 to %lld", (long long)enc.version);
    struct svc_errors e;
    svc_errors_init(&e);
    if (!CODEC_WITHIN(codec_query_whole(req, "at", 1, enc.version, enc.version, msg, &at, &e))) {
        svc_errors_respond(&e, res);
        json_decref(stored);
        return NULL;
    }
    svc_errors_free(&e);
    int rc = DB_OK;
    json_t *state = at == enc.version ? json_incref(stored) : state_at(req, &enc, at, size, &rc);
    bool full = enc_is_owner(req, &enc) || json_is_true(json_object_get(stored, "revealed"));
    if (rc == DB_OK && event != NULL)
        rc = event_and_before(req, &enc, at, size, full, event, before);
    if (enc_db_failed(res, rc)) {
        if (event != NULL) {
            json_decref(*event);
            json_decref(*before);
            *event = *before = NULL;
        }
        json_decref(state);
        json_decref(stored);
        return NULL;
    }
    if (!full) {
        json_t *pub = enc_public_state(state);
        json_decref(state);
        state = pub;
        if (event != NULL) {
            pub = enc_public_state(*before);
            json_decref(*before);
            *before = pub;
        }
    }
    json_decref(stored);
    *at_out = at;
    *version = enc.version;
    return state;
}

json_t *svc_encounter_state_at(const struct svc_request *req, struct svc_response *res,
                               int64_t *at_out, int64_t *version)
{
    return state_query(req, res, at_out, version, NULL, NULL);
}

json_t *svc_encounter_event_at(const struct svc_request *req, struct svc_response *res,
                               int64_t *at_out, int64_t *version, json_t **event, json_t **before)
{
    *event = *before = NULL;
    return state_query(req, res, at_out, version, event, before);
}

void svc_handle_encounter_state(const struct svc_request *req, struct svc_response *res)
{
    int64_t at = 0, version = 0;
    json_t *state = svc_encounter_state_at(req, res, &at, &version);
    if (state == NULL)
        return;
    /* Told for a human too: a sentence, and the summary in the shape of Avrae's
     * !init list, from the state read as every view reads it. */
    struct svc_enc_typed typed;
    struct enc_summary summary = {0};
    if (svc_enc_typed_decode(state, RULES_ENGINE_VERSION, req->ctx->config, NULL, &typed) !=
            SVC_ENC_TYPED_OK ||
        !enc_summary_of(&typed.e, json_string_value(json_object_get(state, "name")), &summary)) {
        svc_enc_typed_free(&typed);
        json_decref(state);
        svc_problem(res, SVC_PROBLEM_INTERNAL, "the encounter's state could not be read", NULL);
        return;
    }
    json_t *doc = json_pack("{s:s, s:I, s:I, s:O, s:s, s:s}", "id", req->params[0], "at",
                            (json_int_t)at, "version", (json_int_t)version, "state", state,
                            "summary", summary.plain, "summary_markdown", summary.markdown);
    enc_told_state(&typed.e, at, version, doc);
    enc_serve_state(state);
    enc_respond_with_etag(res, 200, doc, version);
    enc_summary_free(&summary);
    svc_enc_typed_free(&typed);
    json_decref(state);
}
