/* Encounters as a whole log: verify re-resolves every event, export writes the log out, import
 * rebuilds an exported one as the live endpoints would have (the model:
 * encounter_internal.h). */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/codec/move.h"
#include "service/encounter/encounter.h"
#include "service/encounter/internal.h"
#include "service/encounter/state_cache.h"
#include "service/http/http.h"
#include "service/http/problem.h"
#include "service/http/request.h"
#include "service/json/errors.h"
#include "service/json/fields.h"
#include "service/json/reader.h"

#define MAX_IMPORT 100000

/* The engine an event was ruled under: its payload's stamp, 1 for events from before stamps. */
static int engine_of(json_t *payload)
{
    json_t *v = json_object_get(payload, "engine");
    if (v == NULL)
        return 1;
    return json_is_integer(v) && json_integer_value(v) >= 1 &&
                   json_integer_value(v) <= RULES_ENGINE_VERSION
               ? (int)json_integer_value(v)
               : -1;
}

/* The members that tell a ruling for a human (explain, explain_markdown): sentences made from
 * the ruling's figures, which a later build may word better. They are not the ruling: verify
 * and import compare everything else, and an import stores this server's sentences. */
static bool is_prose(const char *key)
{
    return strcmp(key, "explain") == 0 || strcmp(key, "explain_markdown") == 0;
}

/* Whether a stored ruling is the fresh one, prose aside: exact, member for member; else whether
 * it still holds: every member it has is in the fresh ruling with the same value (arrays item by
 * item, of the same length), so that a member an answer gained since the event was stored does
 * not break it while a changed or lost one does. */
static bool ruling_same(json_t *stored, json_t *fresh, bool exact)
{
    if (json_is_object(stored)) {
        if (!json_is_object(fresh))
            return false;
        const char *k;
        json_t *v;
        json_object_foreach(stored, k, v)
        {
            if (!is_prose(k) && !ruling_same(v, json_object_get(fresh, k), exact))
                return false;
        }
        json_object_foreach(fresh, k, v)
        {
            if (exact && !is_prose(k) && json_object_get(stored, k) == NULL)
                return false;
        }
        return true;
    }
    if (json_is_array(stored)) {
        if (!json_is_array(fresh) || json_array_size(stored) != json_array_size(fresh))
            return false;
        for (size_t i = 0; i < json_array_size(stored); i++)
            if (!ruling_same(json_array_get(stored, i), json_array_get(fresh, i), exact))
                return false;
        return true;
    }
    return json_equal(stored, fresh);
}

/* A stored ruling against a fresh one of the same engine (ruling_same): exact when the event
 * was ruled by this build's engine; for an older engine's event, every member it has (an answer
 * may have gained members since). */
static bool ruling_matches(json_t *stored, json_t *fresh, int engine)
{
    return ruling_same(stored, fresh, engine >= RULES_ENGINE_VERSION);
}

/* A log held in memory: the one an import has rebuilt so far, or the one verify read (its
 * events' kinds and payloads as stored), for an undo to read (enc_history). */
struct import_log {
    const char **kinds;
    char **payloads;
    size_t n;   /* events held */
    size_t cap; /* import_log_add's arrays (0: the caller's) */
};

static int import_log_events(void *ud, int64_t after, int64_t upto, db_event_fn fn, void *fn_ud)
{
    const struct import_log *l = ud;
    for (int64_t seq = after + 1; seq <= upto; seq++) {
        if (seq < 1 || (size_t)seq > l->n || l->payloads[seq - 1] == NULL)
            return DB_ERR_NOT_FOUND;
        fn(fn_ud, seq, l->kinds[seq - 1], l->payloads[seq - 1], "");
    }
    return DB_OK;
}

/* A db_events callback that copies each event into the log (ud); a copy that fails leaves a
 * NULL payload, which reads as missing. */
static int import_log_add(void *ud, int64_t seq, const char *kind, const char *payload,
                          const char *created_at)
{
    (void)seq, (void)created_at;
    struct import_log *l = ud;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        const char **k = realloc(l->kinds, cap * sizeof *k);
        if (k != NULL)
            l->kinds = k;
        char **p = realloc(l->payloads, cap * sizeof *p);
        if (p != NULL)
            l->payloads = p;
        if (k == NULL || p == NULL)
            return DB_ERR_NOMEM;
        l->cap = cap;
    }
    l->kinds[l->n] = strdup(kind);
    l->payloads[l->n] = l->kinds[l->n] != NULL ? strdup(payload) : NULL;
    l->n++;
    return 0;
}

static void import_log_free(struct import_log *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free((char *)l->kinds[i]);
        free(l->payloads[i]);
    }
    free(l->kinds);
    free(l->payloads);
}

struct verify_acc {
    const struct svc_request *req;
    struct enc_cache cache;
    json_t *state;
    json_t *mismatches;
    int64_t checked;
};

static int verify_item(void *ud, int64_t seq, const char *kind, const char *payload,
                       const char *created_at)
{
    (void)created_at;
    struct verify_acc *a = ud;
    json_t *p = jsonr_load(payload, strlen(payload));
    if (p == NULL) {
        json_array_append_new(a->mismatches,
                              json_pack("{s:I, s:s}", "seq", (json_int_t)seq, "why", "unreadable"));
        return 0;
    }
    if (strcmp(kind, "imported") == 0) {
        /* An import's own event: its dice are drawn, not ruled; its commitment must hold. */
        struct svc_errors e;
        svc_errors_init(&e);
        json_t *again = enc_check_imported(a->state, p, "", &e);
        if (again == NULL ||
            !json_equal(json_object_get(again, "effects"), json_object_get(p, "effects")))
            json_array_append_new(a->mismatches,
                                  json_pack("{s:I, s:s, s:s}", "seq", (json_int_t)seq, "kind", kind,
                                            "why", "the copy's seed does not hold"));
        json_decref(again);
        svc_errors_free(&e);
    } else if (strcmp(kind, "created") != 0) {
        struct svc_errors e;
        svc_errors_init(&e);
        json_t *again = enc_resolve(a->req, &a->cache, a->state, kind, json_object_get(p, "input"),
                                    seq, engine_of(p), &e);
        const char *why = NULL;
        if (again == NULL)
            why = "the event no longer resolves against the state before it";
        else if (!ruling_matches(json_object_get(p, "result"), json_object_get(again, "result"),
                                 engine_of(p)))
            why = "the ruling differs";
        else if (!json_equal(json_object_get(again, "effects"), json_object_get(p, "effects")))
            why = "the effects differ";
        if (why != NULL)
            json_array_append_new(
                a->mismatches,
                json_pack("{s:I, s:s, s:s}", "seq", (json_int_t)seq, "kind", kind, "why", why));
        json_decref(again);
        svc_errors_free(&e);
    }
    enc_fold(a->state, json_object_get(p, "effects"));
    enc_cache_folded(&a->cache, json_object_get(p, "effects"));
    json_decref(p);
    a->checked++;
    return 0;
}

/* Re-resolves every event from the state before it with the same dice. A verify that found the
 * log whole leaves its fold in the verified cache (svc_context.verified): the log is append-only,
 * so the next verify starts from it and re-rules only the events written since, and a verify of
 * a long log costs its re-ruling once rather than at every request (anyone may ask, and one
 * request could otherwise cost seconds of CPU again and again). The re-ruling itself takes a
 * place at the searches' gate (svc_search_begin). The answer counts every event checked, and
 * says how many this request re-ruled. */
void svc_handle_encounter_verify(const struct svc_request *req, struct svc_response *res)
{
    struct db_encounter enc;
    json_t *stored;
    size_t size = 0;
    if (!enc_load(req, res, &enc, &stored, &size))
        return;
    int64_t from = 0;
    json_t *start = svc_state_cache_copy_upto(req->ctx->verified, enc.id, enc.version, &from);
    if (start == NULL)
        from = 0;
    bool gated = from < enc.version;
    long long held = 0;
    if (gated && !svc_search_begin(req, NULL, &held, res)) {
        json_decref(start);
        json_decref(stored);
        return;
    }
    struct verify_acc a = {
        .req = req, .state = start != NULL ? start : json_object(), .mismatches = json_array()};
    /* The log is read whole first: an undo reads the events before it (enc_history), which a
     * read nested in db_events' own could not. */
    struct import_log log = {0};
    struct enc_history history = {.events = import_log_events, .ud = &log};
    a.cache.history = &history;
    a.cache.follow = a.state; /* its typed state follows the events (enc_cache_folded) */
    int rc = db_events(req->ctx->db, enc.id, 0, enc.version, INT32_MAX, import_log_add, &log);
    for (size_t k = (size_t)from; rc == DB_OK && k < log.n; k++)
        rc = log.payloads[k] != NULL
                 ? verify_item(&a, (int64_t)k + 1, log.kinds[k], log.payloads[k], "")
                 : DB_ERR_NOMEM;
    import_log_free(&log);
    if (gated)
        svc_search_end(held);
    if (!enc_db_failed(res, rc)) {
        bool state_ok = json_equal(a.state, stored);
        bool ok = state_ok && json_array_size(a.mismatches) == 0 && from + a.checked == enc.version;
        if (ok && gated)
            svc_state_cache_put(req->ctx->verified, enc.id, enc.version, enc.token_hash,
                                json_deep_copy(a.state), size);
        json_t *doc = json_pack(
            "{s:s, s:I, s:b, s:I, s:I, s:b, s:O}", "id", enc.id, "version", (json_int_t)enc.version,
            "ok", ok, "events_checked", (json_int_t)(from + a.checked), "events_reruled",
            (json_int_t)a.checked, "state_matches", state_ok, "mismatches", a.mismatches);
        enc_told_verify(doc);
        enc_respond_with_etag(res, 200, doc, enc.version);
    }
    enc_cache_free(&a.cache);
    json_decref(a.state);
    json_decref(a.mismatches);
    json_decref(stored);
}

void svc_handle_encounter_export(const struct svc_request *req, struct svc_response *res)
{
    struct db_encounter enc;
    json_t *stored;
    if (!enc_load(req, res, &enc, &stored, NULL))
        return;
    /* The owner's export carries the seed (it is what moves an encounter between servers);
     * anyone else's shows the commitment, as every public read does. */
    bool full = enc_is_owner(req, &enc) || json_is_true(json_object_get(stored, "revealed"));
    struct events_acc acc = {.list = json_array(), .state = json_object(), .full = full};
    if (!full) {
        json_t *pub = enc_public_state(stored);
        json_decref(stored);
        stored = pub;
    }
    int rc = db_events(req->ctx->db, enc.id, 0, enc.version, INT32_MAX, enc_event_item, &acc);
    json_decref(acc.state);
    if (enc_db_failed(res, rc)) {
        json_decref(acc.list);
        json_decref(stored);
        return;
    }
    json_t *events = json_array();
    size_t i;
    json_t *ev;
    json_array_foreach(acc.list, i, ev)
    {
        json_array_append_new(events, json_pack("{s:O, s:O, s:O, s:O*, s:O*}", "seq",
                                                json_object_get(ev, "seq"), "kind",
                                                json_object_get(ev, "kind"), "payload",
                                                json_object_get(ev, "payload"), "explain",
                                                json_object_get(ev, "explain"), "explain_markdown",
                                                json_object_get(ev, "explain_markdown")));
    }
    json_decref(acc.list);
    enc_serve_state(stored);
    json_t *doc =
        json_pack("{s:s, s:s, s:I, s:o, s:o}", "format", "tactics-encounter/1", "id", enc.id,
                  "version", (json_int_t)enc.version, "events", events, "state", stored);
    enc_respond_with_etag(res, 200, doc, enc.version);
}

/* Checks that an exported event (at pointer p) is {seq, kind, payload: {input, result,
 * effects}} and is event number `seq`; returns its payload or NULL after adding errors. */
static json_t *import_payload(json_t *ev, const char *p, size_t seq, struct svc_errors *e)
{
    /* explain and explain_markdown are read, not stored: the sentence is told again from the
     * log whenever it is read (encounter_explain.c), so an edited one changes nothing. */
    static const char *const ekeys[] = {"seq", "kind", "payload", "explain", "explain_markdown",
                                        NULL};
    static const char *const pkeys[] = {"input", "result", "effects", "engine", NULL};
    size_t before = json_array_size(e->list);
    if (!codec_expect_object(ev, p, e))
        return NULL;
    codec_reject_unknown(ev, p, ekeys, e);
    long long n = 0;
    const char *kind = NULL;
    if (codec_get_int(ev, p, "seq", true, 1, MAX_IMPORT, &n, e) && (size_t)n != seq) {
        char sp[CODEC_PTR_MAX];
        codec_pointer(sp, p, "seq");
        svc_errors_add(e, sp, "must be %zu: the events are numbered from 1 without gaps", seq);
    }
    if (codec_get_string(ev, p, "kind", true, 64, &kind, e) &&
        (seq == 1) != !strcmp(kind, "created")) {
        char kp[CODEC_PTR_MAX];
        codec_pointer(kp, p, "kind");
        svc_errors_add(e, kp,
                       seq == 1 ? "must be created: the log starts with the encounter's "
                                  "creation"
                                : "created comes only first");
    }
    char pp[CODEC_PTR_MAX];
    codec_pointer(pp, p, "payload");
    json_t *payload = json_object_get(ev, "payload");
    if (payload == NULL)
        svc_errors_add(e, pp, "is required");
    else if (codec_expect_object(payload, pp, e)) {
        codec_reject_unknown(payload, pp, pkeys, e);
        long long engine = 1;
        codec_get_int(payload, pp, "engine", false, 1, RULES_ENGINE_VERSION, &engine, e);
        for (int k = 0; k < 3; k++) /* input, result, effects */
            if (json_object_get(payload, pkeys[k]) == NULL) {
                char kp[CODEC_PTR_MAX];
                codec_pointer(kp, pp, pkeys[k]);
                svc_errors_add(e, kp, "is required");
            }
    }
    return json_array_size(e->list) == before ? payload : NULL;
}

/* The created event of a live encounter, as copies_live_original reads it. */
static int first_event(void *ud, int64_t seq, const char *kind, const char *payload,
                       const char *created_at)
{
    (void)seq, (void)kind, (void)created_at;
    json_t **out = ud;
    *out = jsonr_load(payload, strlen(payload));
    return 1; /* the first is enough */
}

/* Whether an import whose created event (rebuilt: input and effects as create makes them)
 * names encounter id may: when id is an encounter of this server, its log must start with the
 * same created event (the same input and initial state, seed included), so that an import
 * claims to copy only what it copies. An id this server does not hold is taken as given. */
static bool copies_live_original(const struct svc_request *req, const char *id, json_t *rebuilt)
{
    json_t *original = NULL;
    int rc = db_events(req->ctx->db, id, 0, 1, 1, first_event, &original);
    bool ok =
        rc != DB_OK || original == NULL ||
        (json_equal(json_object_get(original, "input"), json_object_get(rebuilt, "input")) &&
         json_equal(json_object_get(original, "effects"), json_object_get(rebuilt, "effects")));
    json_decref(original);
    return ok;
}

/* Rebuilds the created event of an import from its input, through create's own validation
 * (enc_initial_state): its initial state must be the one create makes from that input. Returns
 * the payload to store (a new reference) or NULL after adding errors under p. */
static json_t *import_created(const struct svc_request *req, json_t *payload, const char *p,
                              struct svc_errors *e)
{
    char ip[CODEC_PTR_MAX], sp[CODEC_PTR_MAX + 32];
    snprintf(ip, sizeof ip, "%s/payload/input", p);
    snprintf(sp, sizeof sp, "%s/payload/effects/0/state", p);
    json_t *effects = json_object_get(payload, "effects");
    json_t *given = json_object_get(json_array_get(effects, 0), "state");
    if (json_object_get(given, "seed_commitment") != NULL &&
        json_object_get(given, "seed") == NULL) {
        svc_errors_add(e, sp,
                       "holds no seed: this export was read without the encounter's token, so "
                       "its rolls cannot be replayed; export it with Authorization");
        return NULL;
    }
    json_t *state = enc_initial_state(req, json_object_get(payload, "input"), ip, given, e);
    if (state == NULL)
        return NULL;
    /* An encounter created before an option existed echoes the rules without it: the same
     * rules, as long as every option it lists has the value create gives it now, and every
     * option it leaves out came after its engine (rules_engine_option_since). */
    json_t *given_rules = json_object_get(given, "rules");
    json_t *engine = json_object_get(payload, "engine");
    long long created_under = json_is_integer(engine) ? json_integer_value(engine) : 1;
    bool older =
        given_rules != NULL && ruling_same(given_rules, json_object_get(state, "rules"), false);
    const char *name;
    json_t *v;
    json_object_foreach(json_object_get(json_object_get(state, "rules"), "options"), name, v)
    {
        if (json_object_get(json_object_get(given_rules, "options"), name) == NULL &&
            rules_engine_option_since(name) <= created_under)
            older = false;
    }
    if (older)
        json_object_set(state, "rules", given_rules);
    json_t *result = json_object_get(payload, "result");
    const char *old_id = json_string_value(json_object_get(result, "created"));
    json_t *rebuilt = json_pack("{s:O, s:{s:s}, s:[{s:s, s:o}]}", "input",
                                json_object_get(payload, "input"), "result", "created",
                                old_id ? old_id : "", "effects", "op", "init", "state", state);
    if (json_object_get(payload, "engine") != NULL)
        json_object_set(rebuilt, "engine", json_object_get(payload, "engine"));
    char rp[CODEC_PTR_MAX];
    snprintf(rp, sizeof rp, "%s/payload/result", p);
    if (old_id == NULL || json_object_size(result) != 1) {
        svc_errors_add(e, rp, "must be {\"created\": the exported encounter's id}");
    } else if (!enc_id_minted_shape(old_id)) {
        /* Create names an encounter with AUTH_ID_LEN hex characters it drew, nothing else. */
        svc_errors_add(e, rp,
                       "must name the exported encounter by an id create makes (%d lowercase hex "
                       "characters)",
                       AUTH_ID_LEN);
    } else if (!json_equal(json_object_get(rebuilt, "effects"), effects)) {
        svc_errors_add(e, sp,
                       "is not the initial state create makes from this input: an import "
                       "starts where a live encounter would have");
    } else if (!copies_live_original(req, old_id, rebuilt)) {
        svc_errors_add(e, rp,
                       "names encounter %s of this server, whose log does not start with this "
                       "created event: an import names only the encounter it copies",
                       old_id);
    }
    if (svc_errors_any(e)) {
        json_decref(rebuilt);
        return NULL;
    }
    return rebuilt;
}

/* The export's envelope: its format, its id (the one its created event names), its events (at
 * least the created one) and its version (their number). Returns the events (borrowed from
 * body, NULL when absent) and sets *created_id to the id the created event names (or NULL);
 * the errors go to e. */
static json_t *import_envelope(json_t *body, const char **created_id, struct svc_errors *e)
{
    const char *format = NULL;
    if (codec_get_string(body, "", "format", true, 64, &format, e) &&
        strcmp(format, "tactics-encounter/1") != 0)
        svc_errors_add(e, "/format", "must be tactics-encounter/1");
    const char *old_id = NULL;
    codec_get_string(body, "", "id", false, 64, &old_id, e);
    *created_id = json_string_value(json_object_get(
        json_object_get(
            json_object_get(json_array_get(json_object_get(body, "events"), 0), "payload"),
            "result"),
        "created"));
    if (old_id != NULL && *created_id != NULL && strcmp(old_id, *created_id) != 0)
        svc_errors_add(e, "/id", "must be the id the created event names (%s)", *created_id);
    json_t *events = NULL;
    codec_get_array(body, "", "events", true, MAX_IMPORT, &events, e);
    size_t n = json_array_size(events);
    if (events != NULL && n == 0)
        svc_errors_add(e, "/events", "must hold at least the created event");
    long long version = 0;
    if (codec_get_int(body, "", "version", false, 1, MAX_IMPORT, &version, e) &&
        (size_t)version != n)
        svc_errors_add(e, "/version", "must be the number of events (%zu)", n);
    return events;
}

/* Event i (at p, i > 0, neither created nor imported) re-resolved from the state before it:
 * its ruling and effects must be the ones this server makes. Returns the event as this server
 * rules it (a new reference), its effects folded into state, or NULL after adding errors. */
static json_t *import_rule_again(const struct svc_request *req, struct enc_cache *cache,
                                 json_t *state, size_t i, const char *kind, json_t *payload,
                                 const char *p, struct svc_errors *e)
{
    assert(i > 0);
    json_t *stored = NULL;
    struct svc_errors re;
    svc_errors_init(&re);
    json_t *again = enc_resolve(req, cache, state, kind, json_object_get(payload, "input"),
                                (long long)i + 1, engine_of(payload), &re);
    char ip[80];
    snprintf(ip, sizeof ip, "%s/payload/input", p);
    enc_errors_under(&re, ip, e);
    svc_errors_free(&re);
    if (again != NULL && !svc_errors_any(e)) {
        const char *differs =
            !ruling_matches(json_object_get(payload, "result"), json_object_get(again, "result"),
                            engine_of(payload))
                ? "result"
            : !json_equal(json_object_get(again, "effects"), json_object_get(payload, "effects"))
                ? "effects"
                : NULL;
        if (differs != NULL)
            svc_errors_add(e, p,
                           "its %s differs from the ruling this server makes "
                           "from the state before it (/events/%zu/payload/%s)",
                           differs, i, differs);
        else {
            /* Stored as this server rules it: the given ruling only had to match it, so no
             * member the export left out or worded its own way is kept. */
            stored = json_deep_copy(payload);
            json_object_set(stored, "result", json_object_get(again, "result"));
        }
    } else if (!svc_errors_any(e)) {
        svc_errors_add(e, p, "does not resolve against the state before it");
    }
    if (stored != NULL) {
        enc_fold(state, json_object_get(again, "effects"));
        enc_cache_folded(cache, json_object_get(again, "effects"));
    }
    json_decref(again);
    return stored;
}

/* Event i of an import (at p, its payload checked) rebuilt on state: the created event through
 * create's own validation, an earlier import's event drawn as it is, any other ruled again.
 * Returns the event to store (a new reference), its effects folded into state, or NULL after
 * adding errors. */
static json_t *import_event(const struct svc_request *req, struct enc_cache *cache, json_t *state,
                            size_t i, const char *kind, json_t *payload, const char *p,
                            struct svc_errors *e)
{
    json_t *stored;
    if (i == 0)
        stored = import_created(req, payload, p, e);
    else if (strcmp(kind, "imported") == 0)
        /* An earlier import's event (this is a copy of a copy): drawn, not ruled. */
        stored = enc_check_imported(state, payload, p, e);
    else
        return import_rule_again(req, cache, state, i, kind, payload, p, e);
    if (stored != NULL) {
        enc_fold(state, json_object_get(stored, "effects"));
        enc_cache_folded(cache, json_object_get(stored, "effects"));
    }
    return stored;
}

/* A state the export gives beside its events must be their fold; turn_of is served beside
 * each state, never stored (enc_serve_state): an export from before it has none, one since
 * has it; either way it must name order[turn]. */
static void import_check_state(json_t *body, json_t *state, struct svc_errors *e)
{
    if (svc_errors_any(e) || json_object_get(body, "state") == NULL)
        return;
    json_t *given = json_copy(json_object_get(body, "state"));
    json_t *turn_of = json_object_get(given, "turn_of");
    const char *expected = enc_turn_of(state);
    if (turn_of != NULL &&
        !(expected ? json_is_string(turn_of) && strcmp(json_string_value(turn_of), expected) == 0
                   : json_is_null(turn_of)))
        svc_errors_add(e, "/state/turn_of", "must be %s%s%s, whose turn it is",
                       expected ? "\"" : "", expected ? expected : "null", expected ? "\"" : "");
    else if (json_object_del(given, "turn_of"), !json_equal(given, state))
        svc_errors_add(e, "/state", "is not the fold of the events");
    json_decref(given);
}

/* Stores the rebuilt encounter (its n events' kinds and payloads, its state) under a new id
 * and answers 201 with it, or answers the refusal: a board past the query budgets, or the
 * database's failure. The token is minted (its hash into hash) when the client gave none;
 * otherwise hash is the client's. */
static void import_store(const struct svc_request *req, struct svc_response *res, json_t *state,
                         size_t n, const char **kinds, char **payloads, bool minted,
                         unsigned char hash[AUTH_HASH_LEN])
{
    assert(n >= 2);                                 /* the created event and the copy's own */
    if (!enc_board_within_budgets(req, state, res)) /* as create refuses it */
        return;
    char id[AUTH_ID_LEN + 1];
    char token[AUTH_TOKEN_LEN + 1] = "";
    if (!enc_new_identity(res, id, minted ? token : NULL, hash))
        return;
    char *state_text = enc_dump(state);
    char *rules_text = enc_dump(json_object_get(state, "rules"));
    int rc = state_text && rules_text
                 ? db_encounter_import(req->ctx->db, id, hash, rules_text, state_text, (int)n,
                                       kinds, (const char *const *)payloads)
                 : DB_ERR_NOMEM;
    free(state_text);
    free(rules_text);
    if (enc_db_failed(res, rc))
        return;
    enc_serve_state(state);
    json_t *doc = json_pack("{s:s, s:I, s:O}", "id", id, "version", (json_int_t)n, "state", state);
    if (minted)
        json_object_set_new(doc, "token", json_string(token));
    enc_respond_with_etag(res, 201, doc, (int64_t)n);
    char loc[96];
    snprintf(loc, sizeof loc, "/v1/encounters/%s", id);
    svc_response_add_header(res, "Location", loc);
}

/* Rebuilds an import's events on state in order (import_event), each at /events/i, into log's
 * kinds and payloads (log->n: those before the one being ruled, as its history reads them);
 * stops at the first refused, its errors in e. The live service stamps every event with its
 * engine, which never goes back: an unstamped (engine 1) or older event after a newer one was
 * not made by it. */
static void import_events(const struct svc_request *req, struct enc_cache *cache, json_t *state,
                          json_t *events, struct import_log *log, struct svc_errors *e)
{
    int last_engine = 1;
    size_t n = json_array_size(events);
    for (size_t i = 0; i < n && !svc_errors_any(e); i++) {
        log->n = i;
        char p[48];
        snprintf(p, sizeof p, "/events/%zu", i);
        json_t *ev = json_array_get(events, i);
        json_t *payload = import_payload(ev, p, i + 1, e);
        if (payload == NULL)
            return;
        int engine = engine_of(payload);
        if (engine < last_engine) {
            svc_errors_add(e, p, "is ruled under engine %d after an event of engine %d", engine,
                           last_engine);
            return;
        }
        last_engine = engine;
        json_t *stored = import_event(req, cache, state, i, enc_str(ev, "kind"), payload, p, e);
        if (stored == NULL)
            return;
        log->kinds[i] = enc_str(ev, "kind");
        log->payloads[i] = enc_dump(stored);
        json_decref(stored);
        if (log->payloads[i] == NULL)
            svc_errors_add(e, p, "could not be stored");
    }
}

/* The copy's own event, after the n rebuilt: marked as a copy, with dice of its own (copy.c),
 * folded into state and added to log as event n. Returns the events held. */
static size_t import_append_copy(json_t *state, const char *created_id, struct import_log *log,
                                 size_t n, struct svc_errors *e)
{
    json_t *copy = enc_imported_event(state, created_id, e);
    if (copy == NULL)
        return n;
    enc_fold(state, json_object_get(copy, "effects"));
    log->kinds[n] = "imported";
    log->payloads[n] = enc_dump(copy);
    json_decref(copy);
    if (log->payloads[n] == NULL)
        svc_errors_add(e, "/events", "could not be stored");
    return n + 1;
}

/* Imports an exported encounter under a new id, rebuilding it as the live endpoints would
 * have: the created event's state comes from its input through create's own validation, and
 * every later event's input passes the same checks as the live operation that made it and is
 * re-resolved from the state before it, its ruling and effects compared with the exported
 * ones. So an import cannot smuggle in a state or a ruling this server would not make; any
 * difference is a 422 naming the event (/events/N/...). */
void svc_handle_encounter_import(const struct svc_request *req, struct svc_response *res)
{
    static const char *const known[] = {"format", "id", "version", "events", "state", NULL};
    json_t *body;
    struct svc_errors e;
    if (!svc_decode_begin(req, res, known, &body, &e))
        return;
    unsigned char hash[AUTH_HASH_LEN];
    bool minted = svc_request_header(req, "Authorization") == NULL;
    json_t *state = json_object();
    /* Its typed state follows the events (enc_cache_folded). */
    struct enc_cache cache = {.follow = state};
    const char **kinds = NULL;
    char **payloads = NULL;
    size_t n = 0;
    if (!minted && !enc_client_token(req, res, hash))
        goto out;
    const char *created_id = NULL;
    json_t *events = import_envelope(body, &created_id, &e);
    n = json_array_size(events);
    kinds = calloc(n + 1, sizeof *kinds);
    payloads = calloc(n + 1, sizeof *payloads);
    if (kinds == NULL || payloads == NULL)
        svc_errors_add(&e, "/events", "could not be allocated");
    struct import_log log = {.kinds = kinds, .payloads = payloads};
    struct enc_history history = {.events = import_log_events, .ud = &log};
    cache.history = &history;
    import_events(req, &cache, state, events, &log, &e);
    import_check_state(body, state, &e);
    if (!svc_errors_any(&e))
        n = import_append_copy(state, created_id, &log, n, &e);
    if (svc_errors_any(&e))
        svc_errors_respond(&e, res);
    else
        import_store(req, res, state, n, kinds, payloads, minted, hash);
out:
    enc_cache_free(&cache);
    for (size_t i = 0; payloads && i < n; i++)
        free(payloads[i]);
    free(payloads);
    free(kinds);
    json_decref(state);
    svc_errors_free(&e);
    json_decref(body);
}
