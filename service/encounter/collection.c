/* /v1/encounters itself: create, with the encounter's combatants and its initiative in the same
 * call, and the list of a token's encounters (the model: encounter_internal.h).
 *
 * Create with combatants logs exactly what the separate calls would: the created event (its
 * input the body without `combatants` and `initiative`), one combatant_added per combatant
 * (each ruled by the same enc_resolve as POST .../combatants, as event number i + 2, so that
 * its dice come from the seed and its number as the separate call's would) and the initiative
 * event, all appended in one transaction (db_encounter_create_log). So verify, export, import,
 * replays and state?at=N read such an encounter as any other. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/encounter/encounter.h"
#include "service/encounter/internal.h"
#include "service/http/http.h"
#include "service/http/problem.h"
#include "service/http/request.h"
#include "service/json/errors.h"
#include "service/json/fields.h"

/* The log create writes: kinds and payload texts, events 1..n, and each event after created as
 * the answer lists it. */
struct create_log {
    const char *kinds[MAX_COMBATANTS + 2];
    char *payloads[MAX_COMBATANTS + 2];
    int n;
    json_t *events; /* [{seq, kind, result, explain, explain_markdown}] after created */
};

static void create_log_free(struct create_log *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->payloads[i]);
    json_decref(l->events);
}

/* Rules one event of kind with input `in` (borrowed) as event seq on state, which it then
 * folds; the payload's text goes to the log and its sentence to the answer. Errors land under
 * ptr. False after adding them. */
static bool log_event(const struct svc_request *req, struct enc_cache *cache, json_t *state,
                      const char *kind, json_t *in, const char *ptr, struct create_log *l,
                      struct svc_errors *e)
{
    struct svc_errors re;
    svc_errors_init(&re);
    int seq = l->n + 1;
    json_t *ev = enc_resolve(req, cache, state, kind, in, seq, RULES_ENGINE_VERSION, &re);
    if (ev == NULL && !svc_errors_any(&re))
        svc_errors_add(&re, "", "cannot be applied");
    enc_errors_under(&re, ptr, e);
    svc_errors_free(&re);
    if (ev == NULL)
        return false;
    json_t *payload =
        json_pack("{s:i, s:O, s:O, s:O}", "engine", RULES_ENGINE_VERSION, "input", in, "result",
                  json_object_get(ev, "result"), "effects", json_object_get(ev, "effects"));
    /* The text is taken before the fold, which changes what it adds in place later on. */
    char *text = enc_dump(payload);
    struct enc_explain told;
    enc_explain_event(state, kind, payload, &told);
    json_array_append_new(l->events,
                          enc_event_answer(seq, kind, json_object_get(ev, "result"), &told));
    json_t *copy = json_deep_copy(json_object_get(ev, "effects"));
    enc_fold(state, copy);
    json_decref(copy);
    json_decref(payload);
    json_decref(ev);
    if (text == NULL) {
        svc_errors_add(e, ptr, "could not be stored");
        return false;
    }
    l->kinds[l->n] = kind;
    l->payloads[l->n++] = text;
    return true;
}

/* Create's body: the encounter (enc_initial_state, on the body without combatants and
 * initiative), then each combatant and the initiative ruled in turn on the state so far. l->n
 * stays 1 free for the created event, whose payload needs the id. Returns the final state (a new
 * reference), *input, the created event's input, and *initial, the state it starts (new
 * references), or NULL after adding errors to e. */
static json_t *create_state(const struct svc_request *req, json_t *body, json_t **input,
                            json_t **initial, struct create_log *l, struct svc_errors *e)
{
    json_t *list = NULL, *initiative = json_object_get(body, "initiative");
    *input = json_is_object(body) ? json_copy(body) : json_incref(body);
    if (json_is_object(body)) {
        codec_get_array(body, "", "combatants", false, MAX_COMBATANTS, &list, e);
        if (initiative != NULL)
            codec_expect_object(initiative, "/initiative", e);
        json_object_del(*input, "combatants");
        json_object_del(*input, "initiative");
    }
    json_t *state = enc_initial_state(req, *input, "", NULL, e);
    if (state == NULL || svc_errors_any(e))
        goto fail;
    *initial = json_deep_copy(state);
    l->n = 1;
    struct enc_cache cache = {0};
    size_t i;
    json_t *c;
    json_array_foreach(list, i, c)
    {
        char p[48];
        snprintf(p, sizeof p, "/combatants/%zu", i);
        log_event(req, &cache, state, "combatant_added", c, p, l, e);
    }
    if (initiative != NULL && !svc_errors_any(e))
        log_event(req, &cache, state, "initiative", initiative, "/initiative", l, e);
    enc_cache_free(&cache);
    if (!svc_errors_any(e))
        return state;
fail:
    json_decref(state);
    json_decref(*input);
    json_decref(*initial);
    *input = *initial = NULL;
    return NULL;
}

void svc_handle_encounter_create(const struct svc_request *req, struct svc_response *res)
{
    json_t *body = NULL, *input = NULL, *initial = NULL, *state = NULL, *answer = NULL;
    struct svc_errors e;
    svc_errors_init(&e);
    struct create_log log = {.events = json_array()};
    char *state_text = NULL, *answer_text = NULL;
    unsigned char hash[AUTH_HASH_LEN];
    char token[AUTH_TOKEN_LEN + 1] = "";
    bool minted = svc_request_header(req, "Authorization") == NULL;
    if (!minted && !enc_client_token(req, res, hash))
        goto out;
    struct db_replay replay;
    bool use_replay = false;
    if (minted && svc_request_header(req, "Idempotency-Key") != NULL) {
        /* The answer holds the new token, and tokens are only ever stored hashed. */
        svc_errors_add(&e, "",
                       "an idempotent create needs Authorization with a token you hold (at least "
                       "128 bits, up to 128 of A-Za-z0-9._~-): the answer to replay must not "
                       "hold a new token");
        svc_errors_respond(&e, res);
        goto out;
    }
    if ((body = svc_parse_json_body(req, res)) == NULL)
        goto out;
    if (!minted && !enc_idempotency(req, res, hash, &replay, &use_replay, true))
        goto out;
    state = create_state(req, body, &input, &initial, &log, &e);
    if (state == NULL) {
        svc_errors_respond(&e, res);
        goto out;
    }
    if (!enc_board_within_budgets(req, state, res)) /* the queries it would buy */
        goto out;
    char id[AUTH_ID_LEN + 1];
    if (!enc_new_identity(res, id, minted ? token : NULL, hash))
        goto out;
    /* The created event holds the state it started, before any combatant. */
    json_t *payload =
        json_pack("{s:i, s:O, s:{s:s}, s:[{s:s, s:O}]}", "engine", RULES_ENGINE_VERSION, "input",
                  input, "result", "created", id, "effects", "op", "init", "state", initial);
    log.kinds[0] = "created";
    log.payloads[0] = enc_dump(payload);
    json_decref(payload);
    int64_t version = log.n;
    answer = json_pack("{s:s, s:I}", "id", id, "version", (json_int_t)version);
    if (minted)
        json_object_set_new(answer, "token", json_string(token));
    if (json_array_size(log.events) > 0)
        json_object_set(answer, "events", log.events);
    state_text = enc_dump(state);
    if (!svc_request_prefers_minimal(req)) {
        json_t *served = json_copy(state);
        enc_serve_state(served);
        json_object_set_new(answer, "state", served);
    }
    answer_text = enc_dump(answer);
    char *rules_text = enc_dump(json_object_get(state, "rules"));
    int rc = DB_ERR_NOMEM;
    if (state_text && answer_text && log.payloads[0] && rules_text) {
        if (use_replay)
            replay.status = 201, replay.version = version;
        rc = db_encounter_create_log(req->ctx->db, id, hash, rules_text, state_text, log.n,
                                     log.kinds, (const char *const *)log.payloads,
                                     use_replay ? &replay : NULL);
    }
    free(rules_text);
    if (rc == DB_ERR_REPLAY) {
        enc_replayed(req, res, &replay, true);
    } else if (!enc_db_failed(res, rc)) {
        svc_respond_raw(res, 201, "application/json", answer_text, strlen(answer_text));
        char etag[32], loc[96];
        enc_etag_of(version, etag, sizeof etag);
        snprintf(loc, sizeof loc, "/v1/encounters/%s", id);
        svc_response_add_header(res, "ETag", etag);
        svc_response_add_header(res, "Location", loc);
        enc_preference_applied(req, res);
    }
out:
    create_log_free(&log);
    free(state_text);
    free(answer_text);
    json_decref(input);
    json_decref(initial);
    json_decref(state);
    json_decref(answer);
    svc_errors_free(&e);
    json_decref(body);
}

/* ---- the list ---- */

struct list_acc {
    json_t *items;
};

static int list_item(void *ud, const struct db_encounter_summary *s)
{
    struct list_acc *a = ud;
    json_t *turn = s->turn_of == NULL ? json_null()
                                      : json_pack("{s:s, s:s}", "id", s->turn_of, "name",
                                                  s->turn_name ? s->turn_name : s->turn_of);
    json_array_append_new(a->items,
                          json_pack("{s:s, s:s, s:I, s:s, s:I, s:o, s:I}", "id", s->id,
                                    "created_at", s->created_at, "version", (json_int_t)s->version,
                                    "name", s->name ? s->name : "", "round", (json_int_t)s->round,
                                    "turn_of", turn, "combatants", (json_int_t)s->combatants));
    return 0;
}

/* The encounters of the bearer's token, by id, a page at a time: `next` is the next page's URL
 * (as Open5e and dnd5eapi page), `next_after` its cursor alone (kept for older clients). */
void svc_handle_encounter_list(const struct svc_request *req, struct svc_response *res)
{
    unsigned char hash[AUTH_HASH_LEN];
    if (!enc_bearer(req, res, hash))
        return;
    struct svc_errors e;
    svc_errors_init(&e);
    int limit = enc_page_limit(req, &e);
    const char *after = svc_request_query(req, "after");
    if (after != NULL && !enc_id_ok(after))
        svc_errors_add(&e, "?after", "query after must be an encounter id");
    if (svc_errors_any(&e)) {
        svc_errors_respond(&e, res);
        return;
    }
    svc_errors_free(&e);
    struct list_acc a = {json_array()};
    if (enc_db_failed(res,
                      db_encounter_list(req->ctx->db, hash, after, limit + 1, list_item, &a))) {
        json_decref(a.items);
        return;
    }
    json_t *next_after = json_null(), *next = json_null();
    if (json_array_size(a.items) > (size_t)limit) {
        json_array_remove(a.items, (size_t)limit);
        const char *last = enc_str(json_array_get(a.items, (size_t)limit - 1), "id");
        char url[160];
        /* The ids are a-z0-9 (enc_id_ok): nothing to escape. */
        if (svc_request_query(req, "limit") != NULL)
            snprintf(url, sizeof url, "/v1/encounters?limit=%d&after=%s", limit, last);
        else
            snprintf(url, sizeof url, "/v1/encounters?after=%s", last);
        next_after = json_string(last);
        next = json_string(url);
    }
    svc_respond_json(res, 200,
                     json_pack("{s:o, s:o, s:o}", "encounters", a.items, "next", next, "next_after",
                               next_after));
}
