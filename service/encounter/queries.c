/* Asking in encounter terms: GET /v1/encounters/{id}/reach, /route, /threats and
 * /flanking run the stateless rules on the stored map and combatants, so a bot never re-sends
 * them. Each reads the state after ?at=N (default: now) as the state endpoint does, reads it
 * into the stateless endpoint's request structs as the encounter's own actions do
 * (enc_move_request: each other combatant's side, whether it is up and may make an attack of
 * opportunity, its melee bonus; the mover's burdens and turn; the flanking creatures), and
 * hands them to the endpoint's own ruling split after its decoder (svc_rule_move_reach_req,
 * _route_req, svc_rule_flanking_decoded), so the two answers cannot differ.
 *
 * Decisions where the issue is silent (also in openapi.yaml):
 *  - reach and route take ?mode (default move) and reach ?prefer, as their POST bodies do; the
 *    mover's turn so far (moved, ran) is the stored one.
 *  - route's ?to is a square "x,y" ("q,r" on hexes) or a combatant id to threaten;
 *    ?odds=true adds the move's odds, from the melee profile each enemy makes its attacks of
 *    opportunity with (004) and the actor's
 *    Defense, hit points and damage reduction.
 *  - threats lists, for every combatant, whom it threatens and who threatens it (004
 *    Threatened Area, 001 Reach), and whether it can make attacks of opportunity now (not
 *    down, not flat-footed: 004 Flat-Footed).
 *  - flanking answers for ?target against ?attacker, or against each combatant of another
 *    side that can attack it, with the flanking endpoint's answer for each.
 *  - Errors in the query name the parameter (?actor, ?to, ...). */
#include <assert.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/encounter/hp.h"
#include "service/codec/answer.h"
#include "service/codec/creature.h"
#include "service/codec/move_req.h"
#include "service/codec/names.h"
#include "service/codec/odds.h"
#include "service/codec/rule_options.h"
#include "service/codec/ruling.h"
#include "service/encounter/encounter.h"
#include "service/encounter/internal.h"
#include "service/http/http.h"
#include "service/http/problem.h"
#include "service/http/refusals.h"
#include "service/json/errors.h"
#include "service/json/fields.h"
#include "text/text.h"

void enc_bad_query(struct svc_errors *e, const char *name, const char *msg)
{
    char ptr[64];
    snprintf(ptr, sizeof ptr, "?%s", name);
    svc_errors_add(e, ptr, "%s", msg);
}

json_t *enc_combatant_query(const struct svc_request *req, json_t *state, const char *name,
                            struct svc_errors *e)
{
    const char *said = svc_request_query(req, name);
    json_t *c = NULL;
    char who[480], msg[640];
    if (said == NULL) {
        enc_bad_query(e, name, "is required: a combatant's id or name");
        return NULL;
    }
    /* An id, a name in any case, or the start of one. */
    switch (svc_combatant_named(json_object_get(state, "combatants"), said, &c, who, sizeof who)) {
    case SVC_NAMED_ONE:
        return c;
    case SVC_NAMED_AMBIGUOUS:
        text_format(msg, sizeof msg, "'%s' could be any of %s: give more of the name, or the id",
                    said, who);
        enc_bad_query(e, name, msg);
        return NULL;
    default:
        enc_bad_query(e, name, "names no combatant of the encounter");
        return NULL;
    }
}

/* Sends a's answer into res. A validation problem about a member that came from the query
 * (map, may be NULL) names the parameter instead; other answers pass as they are. */
static void answer(struct svc_answer *a, const struct svc_query_member *map,
                   struct svc_response *res)
{
    if (a->status == 422 && map != NULL && json_array_size(a->errors) > 0) {
        struct svc_errors e = {.list = a->errors};
        svc_errors_as_query(&e, map);
    }
    svc_answer_respond(a, res);
}

/* The query's movement request, the board read as the encounter's own moves read it
 * (enc_move_request: the other combatants as the actor sees them, the actor as the mover with
 * its turn so far), with what a move's odds read (the actor's Defense, damage reduction and hit
 * points above 0; each other combatant's damage with the profile its attacks of opportunity are
 * made with, aoo_profile), and the query's own members (q: mode, and withdraw's absence)
 * by the movement endpoints' decoders. False after errors in e. */
/* Why the move action the route stands for would be refused now, as the action refuses it: the
 * encounter awaits an asked reaction, or the turn's gate (rules_encounter_admit: the actor is
 * down or stunned, or its turn has no room for the mode's cost). Asked only for the combatant
 * whose turn it is (any, before initiative); another's route is a plan for its turn to come.
 * The code (enc_admit_refusal's, or awaiting_reactions) and its sentence into why; NULL when
 * the action would be ruled. */
static const char *move_refusal(json_t *state, const struct rules_encounter *te, int mi,
                                enum rules_move_mode mode, char *why, size_t n)
{
    assert(why != NULL && n > 0);
    if (te == NULL || mi < 0 || (te->started && rules_encounter_turn_of(te) != mi))
        return NULL;
    struct svc_errors e;
    svc_errors_init(&e);
    const char *code = NULL;
    if (!enc_awaits_no_reaction(te, &e)) {
        code = "awaiting_reactions";
    } else {
        struct rules_enc_action act = {.type = RULES_ACT_MOVE, .actor = mi, .mode = mode};
        struct rules_admission adm;
        int rc = rules_encounter_admit(te, &act, &adm);
        if (rc != RULES_ADMIT_OK)
            code = enc_admit_refusal(te, &act, rc, &adm, enc_turn_of(state), &e);
    }
    json_t *first = json_array_get(e.list, 0);
    if (code != NULL && first != NULL) {
        /* The sentence as the action words it, its subject named when its pointer is /actor. */
        const char *ptr = json_string_value(json_object_get(first, "pointer"));
        const char *msg = json_string_value(json_object_get(first, "message"));
        if (ptr != NULL && strcmp(ptr, "/actor") == 0)
            snprintf(why, n, "'%s' %s", te->combatants[mi].id, msg ? msg : "");
        else
            snprintf(why, n, "%s", msg ? msg : "");
    }
    svc_errors_free(&e);
    return first != NULL ? code : NULL;
}

/* The stored profile combatant `id` makes its attacks of opportunity with, as the typed state
 * te says (rules_encounter_aoo_profile_of), or NULL. */
static json_t *aoo_profile(const struct rules_encounter *te, json_t *state, const char *id)
{
    int c = te != NULL ? rules_encounter_find(te, id) : -1;
    int p = c >= 0 ? rules_encounter_aoo_profile_of(te, c) : -1;
    json_t *list = json_object_get(enc_find(state, id, NULL), "attacks");
    return p >= 0 ? json_array_get(list, (size_t)p) : NULL;
}

static bool query_req(const struct svc_request *req, json_t *state, json_t *actor, json_t *q,
                      struct enc_cache *cache, struct move_req *r, struct svc_errors *e,
                      const char **refused, char *why, size_t why_n)
{
    int mode = codec_get_enum(q, "", "mode", rules_move_mode_names, true, 0, e);
    if (svc_errors_any(e))
        return false;
    struct svc_errors none;
    svc_errors_init(&none);
    struct resolve_ctx x = {
        .req = req, .cache = cache, .state = state, .engine = RULES_ENGINE_VERSION, .e = &none};
    bool ok = enc_move_request(&x, actor, (enum rules_move_mode)mode, r, e);
    const struct rules_encounter *te = NULL;
    if (ok) {
        int mi = -1;
        te = enc_typed(&x);
        if (te != NULL)
            enc_typed_of(&x, actor, &mi);
        r->mover_id = enc_str(actor, "id");
        r->no_melee = mi < 0 || !rules_encounter_melee_of(te, mi);
        if (refused != NULL)
            *refused = move_refusal(state, te, mi, (enum rules_move_mode)mode, why, why_n);
    }
    if (!ok) {
        enc_ctx_release(&x);
        svc_errors_free(&none);
        if (!svc_errors_any(e))
            svc_errors_add(e, "", "the encounter's board could not be read");
        return false;
    }
    move_decode_withdraw(q, r, e);
    json_t *def = json_object_get(actor, "defense");
    if (def != NULL)
        svc_decode_defense(def, "/mover/defense", &r->mover.ac, e);
    r->mover_dr = (int)enc_num(actor, "damage_reduction");
    long long hp = enc_num(actor, "hp");
    r->mover_hp =
        json_object_get(actor, "hp") != NULL && hp > 0 && hp <= RULES_HP_MAX ? (int)hp : 0;
    json_t *none_given = json_object();
    for (int k = 0; k < r->nc; k++) {
        json_t *a0 = aoo_profile(te, state, r->ids[k]);
        struct move_attack_profile *pf = &r->profiles[k];
        svc_decode_damage(a0 != NULL ? a0 : none_given, "/creatures", &pf->damage, &pf->damage_expr,
                          &pf->crit_range, &pf->crit_multiplier, e);
    }
    json_decref(none_given);
    enc_ctx_release(&x); /* te's */
    svc_errors_free(&none);
    r->odds_work = svc_odds_budget_of(req->ctx->config);
    return !svc_errors_any(e);
}

/* The query's own members as the movement endpoints' decoders read them: {mode} (move when not
 * given). NULL after an error at ?mode (not UTF-8). */
static json_t *query_members(const struct svc_request *req, struct svc_errors *e)
{
    const char *mode = svc_request_query(req, "mode");
    json_t *v = json_string(mode != NULL ? mode : "move");
    if (v == NULL) {
        enc_bad_query(e, "mode", "must be a move mode (move, double_move, run, ...)");
        return NULL;
    }
    return json_pack("{s:o}", "mode", v);
}

/* Shared start: the state at ?at and the actor of ?actor; false when res is answered: also
 * when this read of this board was refused before (svc_refusal_get), from its key, made of the
 * query parameters `params` (svc_refusal_key; "" when it has none, and then nothing is kept). */
static bool begin(const struct svc_request *req, struct svc_response *res, json_t **state,
                  json_t **actor, struct svc_errors *e, const char *const *params, char *key,
                  size_t key_n)
{
    int64_t at = 0, version = 0;
    *state = svc_encounter_state_at(req, res, &at, &version);
    svc_errors_init(e);
    if (*state == NULL)
        return false;
    if (!svc_refusal_key(req, at, params, key, key_n))
        key[0] = '\0';
    if (key[0] != '\0' && svc_refusal_get(key, res)) {
        svc_errors_free(e);
        json_decref(*state);
        return false;
    }
    *actor = enc_combatant_query(req, *state, "actor", e);
    return true;
}

static bool finish_errors(struct svc_response *res, json_t *state, struct svc_errors *e)
{
    if (!svc_errors_any(e))
        return false;
    svc_errors_respond(e, res);
    svc_errors_free(e);
    json_decref(state);
    return true;
}

/* A movement query's end, reach's and route's alike: a stored map past a budget lowered since
 * answers as the endpoint says, else the errors, else the ruling in a; then every part of the
 * query is freed and a refusal kept under key (when it has one). */
static void query_end(struct svc_answer *a, struct move_req *r, struct enc_cache *cache, json_t *q,
                      struct svc_errors *e, const struct svc_query_member *map, const char *key,
                      json_t *state, struct svc_response *res)
{
    if (r->spent != NULL)
        svc_answer_too_expensive(a, r->spent, r->spent_budget, r->spent_reached);
    else if (svc_errors_any(e))
        svc_answer_errors(a, e);
    move_req_free(r);
    enc_cache_free(cache);
    json_decref(q);
    answer(a, map, res);
    if (key[0] != '\0')
        svc_refusal_put(key, res); /* kept when refused too-expensive */
    svc_errors_free(e);
    json_decref(state);
}

void svc_handle_encounter_reach(const struct svc_request *req, struct svc_response *res)
{
    static const char *const params[] = {"actor", "mode", "prefer", NULL};
    json_t *state, *actor = NULL;
    struct svc_errors e;
    char key[512];
    if (!begin(req, res, &state, &actor, &e, params, key, sizeof key))
        return;
    if (finish_errors(res, state, &e))
        return;
    json_t *q = query_members(req, &e);
    if (q == NULL) {
        finish_errors(res, state, &e);
        return;
    }
    const char *prefer = svc_request_query(req, "prefer");
    json_t *pv = prefer != NULL ? json_string(prefer) : NULL;
    if (pv != NULL)
        json_object_set_new(q, "prefer", pv);
    static const struct svc_query_member map[] = {
        {"/mode", "mode"}, {"/prefer", "prefer"}, {NULL, NULL}};
    struct svc_answer a = {0};
    struct enc_cache cache = {0};
    struct move_req r = {0};
    if (query_req(req, state, actor, q, &cache, &r, &e, NULL, NULL, 0)) {
        int p = codec_get_enum(q, "", "prefer", move_prefer_names, false, 0, &e);
        if (!svc_errors_any(&e))
            svc_rule_move_reach_req(&r, p, req->ctx->config, &a);
    }
    query_end(&a, &r, &cache, q, &e, map, key, state, res);
}

/* "x,y": two whole numbers (codec_parse_whole's: an optional '-', at most 18 digits, so none
 * overflows) and a comma between them, nothing else. */
static bool square_of(const char *to, long long *a, long long *b)
{
    const char *comma = strchr(to, ',');
    char first[24];
    if (comma == NULL || (size_t)(comma - to) >= sizeof first)
        return false;
    memcpy(first, to, (size_t)(comma - to));
    first[comma - to] = '\0';
    return codec_parse_whole(first, LLONG_MIN, LLONG_MAX, a) &&
           codec_parse_whole(comma + 1, LLONG_MIN, LLONG_MAX, b);
}

/* ?to: "x,y" (a square) or a combatant id (a creature to threaten). */
static json_t *route_target(const char *to, json_t *state, bool hex, struct svc_errors *e)
{
    long long a = 0, b = 0;
    if (square_of(to, &a, &b))
        return hex ? json_pack("{s:I, s:I}", "q", (json_int_t)a, "r", (json_int_t)b)
                   : json_pack("{s:I, s:I}", "x", (json_int_t)a, "y", (json_int_t)b);
    json_t *c = NULL;
    char who[480], msg[640];
    enum svc_named named =
        svc_combatant_named(json_object_get(state, "combatants"), to, &c, who, sizeof who);
    if (named == SVC_NAMED_ONE)
        return json_pack("{s:s}", "creature", json_string_value(json_object_get(c, "id")));
    if (named == SVC_NAMED_AMBIGUOUS) {
        text_format(msg, sizeof msg, "'%s' could be any of %s: give more of the name, or the id",
                    to, who);
        enc_bad_query(e, "to", msg);
        return NULL;
    }
    enc_bad_query(e, "to",
                  "must be a square \"x,y\" (\"q,r\" on hexes) or a combatant's id or name");
    return NULL;
}

void svc_handle_encounter_route(const struct svc_request *req, struct svc_response *res)
{
    static const char *const params[] = {"actor", "to", "mode", "odds", NULL};
    json_t *state, *actor = NULL;
    struct svc_errors e;
    char key[512];
    if (!begin(req, res, &state, &actor, &e, params, key, sizeof key))
        return;
    const char *to = svc_request_query(req, "to");
    const char *odds = svc_request_query(req, "odds");
    json_t *target = NULL;
    if (to == NULL)
        enc_bad_query(&e, "to", "is required: a square \"x,y\" or a combatant id to threaten");
    else {
        struct rules_options o;
        enc_state_rules(state, &o);
        target = route_target(to, state, o.grid == RULES_GRID_HEX, &e);
    }
    if (odds != NULL && strcmp(odds, "true") != 0 && strcmp(odds, "false") != 0)
        enc_bad_query(&e, "odds", "must be true or false");
    if (finish_errors(res, state, &e)) {
        json_decref(target);
        return;
    }
    json_t *q = query_members(req, &e);
    if (q == NULL) {
        json_decref(target);
        finish_errors(res, state, &e);
        return;
    }
    json_object_set_new(q, "target", target);
    static const struct svc_query_member map[] = {
        {"/mode", "mode"}, {"/target", "to"}, {NULL, NULL}};
    struct svc_answer a = {0};
    struct enc_cache cache = {0};
    struct move_req r = {0};
    const char *refused = NULL;
    char why[600] = "";
    if (query_req(req, state, actor, q, &cache, &r, &e, &refused, why, sizeof why)) {
        r.odds = odds != NULL && strcmp(odds, "true") == 0;
        if (r.mode == RULES_MODE_STEP)
            svc_errors_add(&e, "/mode", "a 5-foot step is one square: ask /v1/movement/path");
        struct rules_route_goal goal;
        move_decode_target(q, &r, &goal, &e);
        /* The move its action would refuse is no route, whatever the board allows: a
         * route the query calls legal is accepted as an action. */
        if (!svc_errors_any(&e) && refused != NULL)
            move_answer_refused(&a, &r, refused, why);
        else if (!svc_errors_any(&e))
            svc_rule_move_route_req(&r, &goal, req->ctx->config, &a);
    }
    query_end(&a, &r, &cache, q, &e, map, key, state, res);
}

/* The state after ?at as the typed encounter, for a view; false after answering 500. */
static bool typed_view(const struct svc_request *req, struct svc_response *res, json_t *state,
                       struct svc_enc_typed *t)
{
    if (svc_enc_typed_decode(state, RULES_ENGINE_VERSION, req->ctx->config, NULL, t) ==
        SVC_ENC_TYPED_OK)
        return true;
    svc_enc_typed_free(t);
    svc_problem(res, SVC_PROBLEM_INTERNAL, "the encounter's state could not be read", NULL);
    return false;
}

void svc_handle_encounter_threats(const struct svc_request *req, struct svc_response *res)
{
    int64_t at = 0, version = 0;
    json_t *state = svc_encounter_state_at(req, res, &at, &version);
    struct svc_enc_typed t;
    if (state == NULL || !typed_view(req, res, state, &t)) {
        json_decref(state);
        return;
    }
    /* Who threatens whom, and who may strike back: the rules' one reading of the state
     * (rules_encounter_threatens, rules_encounter_aoo_now), as every action and picture. */
    const struct rules_encounter *e = &t.e;
    json_t *list = json_array();
    for (int a = 0; a < e->count; a++) {
        json_t *threatens = json_array(), *by = json_array();
        for (int b = 0; b < e->count; b++) {
            if (b == a || !rules_encounter_enemies(e, a, b))
                continue;
            if (rules_encounter_threatens(e, a, b))
                json_array_append_new(threatens, json_string(e->combatants[b].id));
            if (rules_encounter_threatens(e, b, a))
                json_array_append_new(by, json_string(e->combatants[b].id));
        }
        json_array_append_new(list, json_pack("{s:s, s:o, s:o, s:b}", "id", e->combatants[a].id,
                                              "threatens", threatens, "threatened_by", by,
                                              "can_make_attacks_of_opportunity",
                                              rules_encounter_aoo_now(e, a)));
    }
    static const char source[] = "004 Threatened Area; 001 Reach; 004 Flat-Footed";
    json_t *doc = json_pack("{s:s, s:I, s:o, s:s}", "id", req->params[0], "at", (json_int_t)at,
                            "combatants", list, "source", source);
    enc_told_threats(e, doc, source);
    enc_respond_with_etag(res, 200, doc, version);
    svc_enc_typed_free(&t);
    json_decref(state);
}

/* {attacker, flanked_by, allies, flanking}: the flanking endpoint's answer for combatant a on
 * combatant t of the typed state, with a's side as allies (each up, threatening as
 * rules_encounter_flanker says), their ids in the order the answer's indices count them, and
 * the id of the ally that flanks (the answer's `by` is an index among them); NULL when
 * the ruling refused, its refusal left in *refusal (to be sent or freed by the caller). */
static json_t *flank_of(const struct svc_enc_typed *typed, int a, int t, struct svc_answer *refusal)
{
    const struct rules_encounter *e = &typed->e;
    assert(a >= 0 && a < e->count && t >= 0 && t < e->count);
    struct rules_creature *allies = calloc((size_t)e->count + 1, sizeof *allies);
    const char **names = calloc((size_t)e->count + 1, sizeof *names);
    struct svc_answer ans = {0};
    json_t *ids = json_array();
    int k = 0;
    if (allies == NULL || names == NULL) {
        svc_answer_problem(&ans, SVC_PROBLEM_INTERNAL, NULL);
    } else {
        for (int i = 0; i < e->count; i++) {
            const struct rules_enc_combatant *c = &e->combatants[i];
            if (i == a || i == t || rules_encounter_enemies(e, i, a) || c->down || !c->placed)
                continue;
            allies[k] = c->body;
            allies[k].can_threaten = rules_encounter_flanker(e, i);
            json_array_append_new(ids, json_string(c->id));
            names[k++] = *c->name ? c->name : c->id;
        }
        const struct rules_enc_combatant *ca = &e->combatants[a], *ct = &e->combatants[t];
        svc_rule_flanking_decoded(&typed->rules, &ca->body, &ct->body, allies, k,
                                  *ca->name ? ca->name : ca->id, *ct->name ? ct->name : ct->id,
                                  names, &ans);
    }
    free(allies);
    free(names);
    if (ans.status != 200) {
        json_decref(ids);
        *refusal = ans;
        return NULL;
    }
    json_t *by = json_object_get(ans.doc, "by");
    json_t *ally = json_is_integer(by) ? json_array_get(ids, (size_t)json_integer_value(by)) : NULL;
    json_t *doc = json_pack("{s:s, s:O, s:o, s:O}", "attacker", e->combatants[a].id, "flanked_by",
                            ally != NULL ? ally : json_null(), "allies", ids, "flanking", ans.doc);
    svc_answer_free(&ans);
    return doc;
}

void svc_handle_encounter_flanking(const struct svc_request *req, struct svc_response *res)
{
    int64_t at = 0, version = 0;
    json_t *state = svc_encounter_state_at(req, res, &at, &version);
    if (state == NULL)
        return;
    struct svc_errors e;
    svc_errors_init(&e);
    json_t *target = enc_combatant_query(req, state, "target", &e);
    json_t *attacker = NULL;
    if (svc_request_query(req, "attacker") != NULL) {
        attacker = enc_combatant_query(req, state, "attacker", &e);
        if (attacker != NULL && attacker == target)
            enc_bad_query(&e, "attacker", "must be another combatant than the target");
    }
    if (finish_errors(res, state, &e))
        return;
    struct svc_enc_typed typed;
    if (!typed_view(req, res, state, &typed)) {
        svc_errors_free(&e);
        json_decref(state);
        return;
    }
    const struct rules_encounter *te = &typed.e;
    int t = rules_encounter_find(te, enc_str(target, "id"));
    int only = attacker != NULL ? rules_encounter_find(te, enc_str(attacker, "id")) : -1;
    json_t *list = json_array();
    for (int a = 0; a < te->count; a++) {
        /* Each who could attack it: an enemy that is up, or the one asked about. */
        if (attacker != NULL
                ? a != only
                : (a == t || !rules_encounter_enemies(te, a, t) || te->combatants[a].down))
            continue;
        struct svc_answer refusal = {0};
        json_t *one = flank_of(&typed, a, t, &refusal);
        if (one == NULL) { /* the ruling's own refusal (422 ...), never a 500 of ours */
            json_decref(list);
            svc_enc_typed_free(&typed);
            json_decref(state);
            svc_errors_free(&e);
            svc_answer_respond(&refusal, res);
            return;
        }
        json_array_append_new(list, one);
    }
    json_t *doc = json_pack("{s:s, s:I, s:s, s:o}", "id", req->params[0], "at", (json_int_t)at,
                            "target", enc_str(target, "id"), "attackers", list);
    enc_told_flanking(te, t, doc);
    enc_respond_with_etag(res, 200, doc, version);
    svc_errors_free(&e);
    svc_enc_typed_free(&typed);
    json_decref(state);
}
