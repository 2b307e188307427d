/* Asking in encounter terms (issue 18): GET /v1/encounters/{id}/reach, /route, /threats and
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/codec/move_req.h"
#include "service/codec/odds.h"
#include "service/codec/rule_options.h"
#include "service/codec/ruling.h"
#include "service/encounter/internal.h"
#include "service/json/fields.h"

void enc_bad_query(struct svc_errors *e, const char *name, const char *msg)
{
    char ptr[64];
    snprintf(ptr, sizeof ptr, "?%s", name);
    svc_errors_add(e, ptr, "%s", msg);
}

json_t *enc_combatant_query(const struct svc_request *req, json_t *state, const char *name,
                            struct svc_errors *e)
{
    const char *id = svc_request_query(req, name);
    json_t *c = id ? find(state, id, NULL) : NULL;
    if (id == NULL)
        enc_bad_query(e, name, "is required: a combatant id");
    else if (c == NULL)
        enc_bad_query(e, name, "names no combatant of the encounter");
    return c;
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
 * made with, enc_reaction_attack), and the query's own members (q: mode, and withdraw's absence)
 * by the movement endpoints' decoders. False after errors in e. */
static bool query_req(const struct svc_request *req, json_t *state, json_t *actor, json_t *q,
                      struct enc_cache *cache, struct move_req *r, struct svc_errors *e)
{
    int mode = codec_get_enum(q, "", "mode", rules_move_mode_names, true, 0, e);
    if (svc_errors_any(e))
        return false;
    struct svc_errors none;
    svc_errors_init(&none);
    struct resolve_ctx x = {
        .req = req, .cache = cache, .state = state, .engine = ENGINE_VERSION, .e = &none};
    bool ok = enc_move_request(&x, actor, (enum rules_move_mode)mode, r, e);
    svc_errors_free(&none);
    if (!ok) {
        if (!svc_errors_any(e))
            svc_errors_add(e, "", "the encounter's board could not be read");
        return false;
    }
    move_decode_withdraw(q, r, e);
    json_t *def = json_object_get(actor, "defense");
    if (def != NULL)
        svc_decode_defense(def, "/mover/defense", &r->mover.ac, e);
    r->mover_dr = (int)num(actor, "damage_reduction");
    long long hp = num(actor, "hp");
    r->mover_hp = json_object_get(actor, "hp") != NULL && hp > 0 && hp <= 1000000 ? (int)hp : 0;
    json_t *none_given = json_object();
    for (int k = 0; k < r->nc; k++) {
        json_t *a0 = enc_reaction_attack(find(state, r->ids[k], NULL), ENGINE_VERSION);
        struct move_attack_profile *pf = &r->profiles[k];
        svc_decode_damage(a0 != NULL ? a0 : none_given, "/creatures", &pf->damage, &pf->damage_expr,
                          &pf->crit_range, &pf->crit_multiplier, e);
    }
    json_decref(none_given);
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
    if (query_req(req, state, actor, q, &cache, &r, &e)) {
        int p = codec_get_enum(q, "", "prefer", move_prefer_names, false, 0, &e);
        if (!svc_errors_any(&e))
            svc_rule_move_reach_req(&r, p, req->ctx->config, &a);
    }
    if (r.spent != NULL) /* the stored map is past a budget lowered since: as the endpoint says */
        svc_answer_too_expensive(&a, r.spent, r.spent_budget, r.spent_reached);
    else if (svc_errors_any(&e))
        svc_answer_errors(&a, &e);
    move_req_free(&r);
    enc_cache_free(&cache);
    json_decref(q);
    answer(&a, map, res);
    if (key[0] != '\0')
        svc_refusal_put(key, res); /* kept when refused too-expensive */
    svc_errors_free(&e);
    json_decref(state);
}

/* ?to: "x,y" (a square) or a combatant id (a creature to threaten). */
static json_t *route_target(const char *to, json_t *state, bool hex, struct svc_errors *e)
{
    long long a = 0, b = 0;
    char tail = 0;
    if (sscanf(to, "%lld,%lld%c", &a, &b, &tail) == 2)
        return hex ? json_pack("{s:I, s:I}", "q", (json_int_t)a, "r", (json_int_t)b)
                   : json_pack("{s:I, s:I}", "x", (json_int_t)a, "y", (json_int_t)b);
    if (find(state, to, NULL) != NULL)
        return json_pack("{s:s}", "creature", to);
    enc_bad_query(e, "to", "must be a square \"x,y\" (\"q,r\" on hexes) or a combatant id");
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
    if (query_req(req, state, actor, q, &cache, &r, &e)) {
        r.odds = odds != NULL && strcmp(odds, "true") == 0;
        if (r.mode == RULES_MODE_STEP)
            svc_errors_add(&e, "/mode", "a 5-foot step is one square: ask /v1/movement/path");
        struct rules_route_goal goal;
        move_decode_target(q, &r, &goal, &e);
        if (!svc_errors_any(&e))
            svc_rule_move_route_req(&r, &goal, req->ctx->config, &a);
    }
    if (r.spent != NULL) /* the stored map is past a budget lowered since: as the endpoint says */
        svc_answer_too_expensive(&a, r.spent, r.spent_budget, r.spent_reached);
    else if (svc_errors_any(&e))
        svc_answer_errors(&a, &e);
    move_req_free(&r);
    enc_cache_free(&cache);
    json_decref(q);
    answer(&a, map, res);
    if (key[0] != '\0')
        svc_refusal_put(key, res); /* kept when refused too-expensive */
    svc_errors_free(&e);
    json_decref(state);
}

/* Whether c can make attacks of opportunity now (enc_makes_aoo) and is up. */
static bool can_make_aoo(json_t *state, json_t *c)
{
    return !enc_is_down(c) && enc_makes_aoo(state, c, ENGINE_VERSION);
}

static bool opposed(json_t *a, json_t *b)
{
    return a != b && strcmp(str(a, "side"), str(b, "side")) != 0;
}

void svc_handle_encounter_threats(const struct svc_request *req, struct svc_response *res)
{
    int64_t at = 0, version = 0;
    json_t *state = svc_encounter_state_at(req, res, &at, &version);
    if (state == NULL)
        return;
    struct rules_options o;
    enc_state_rules(state, &o);
    json_t *list = json_array();
    /* Each combatant read once (as enc_reaches reads it), then every pair asked of the rules: a
     * board of 500 read each pair's two combatants from JSON again, 0.5 s of CPU. */
    size_t n = json_array_size(combatants(state));
    struct rules_creature *cr = calloc(n + 1, sizeof *cr);
    bool *ok = calloc(n + 1, sizeof *ok), *down = calloc(n + 1, sizeof *down);
    if (cr == NULL || ok == NULL || down == NULL) {
        free(cr), free(ok), free(down);
        json_decref(list), json_decref(state);
        svc_problem(res, SVC_PROBLEM_INTERNAL, NULL, NULL);
        return;
    }
    size_t i, j;
    json_t *a, *b;
    json_array_foreach(combatants(state), i, a)
    {
        ok[i] = enc_creature_of(&o, a, &cr[i]);
        down[i] = enc_is_down(a);
    }
    json_array_foreach(combatants(state), i, a)
    {
        json_t *threatens = json_array(), *by = json_array();
        json_array_foreach(combatants(state), j, b)
        {
            if (!opposed(a, b) || !ok[i] || !ok[j])
                continue;
            /* A combatant that is down threatens nothing (004 Threatened Area: the area into
             * which it can make a melee attack). */
            if (!down[i] && rules_encounter_reaches(&o, &cr[i], &cr[j]))
                json_array_append_new(threatens, json_string(str(b, "id")));
            if (!down[j] && rules_encounter_reaches(&o, &cr[j], &cr[i]))
                json_array_append_new(by, json_string(str(b, "id")));
        }
        json_array_append_new(list,
                              json_pack("{s:s, s:o, s:o, s:b}", "id", str(a, "id"), "threatens",
                                        threatens, "threatened_by", by,
                                        "can_make_attacks_of_opportunity", can_make_aoo(state, a)));
    }
    free(cr);
    free(ok);
    free(down);
    json_t *doc =
        json_pack("{s:s, s:I, s:o, s:s}", "id", req->params[0], "at", (json_int_t)at, "combatants",
                  list, "source", "004 Threatened Area; 001 Reach; 004 Flat-Footed");
    enc_respond_with_etag(res, 200, doc, version);
    json_decref(state);
}

/* The name a sentence tells c by: its name, or its id. */
static const char *name_of(json_t *c)
{
    const char *name = str(c, "name");
    return *name ? name : str(c, "id");
}

/* {attacker, flanking}: the flanking endpoint's answer for attacker on target, with attacker's
 * side as allies (each up, threatening as enc_flanks says), the stored creatures read straight
 * into its structs; NULL when the ruling refused, its refusal left in *refusal (to be sent or
 * freed by the caller). */
static json_t *flank_of(json_t *state, json_t *attacker, json_t *target, struct svc_answer *refusal)
{
    struct svc_rules rules;
    enc_state_svc_rules(state, &rules);
    const struct rules_options *o = &rules.options;
    size_t n = json_array_size(combatants(state));
    struct rules_creature a, t, *allies = calloc(n + 1, sizeof *allies);
    const char **names = calloc(n + 1, sizeof *names);
    struct svc_answer ans = {0};
    int k = 0;
    if (allies == NULL || names == NULL || !enc_creature_of(o, attacker, &a) ||
        !enc_creature_of(o, target, &t)) {
        svc_answer_problem(&ans, SVC_PROBLEM_INTERNAL, NULL);
    } else {
        size_t i;
        json_t *c;
        json_array_foreach(combatants(state), i, c)
        {
            if (c != attacker && c != target &&
                strcmp(str(c, "side"), str(attacker, "side")) == 0 && !enc_is_down(c) &&
                enc_creature_of(o, c, &allies[k])) {
                allies[k].can_threaten = enc_flanks(c, ENGINE_VERSION);
                names[k++] = name_of(c);
            }
        }
        svc_rule_flanking_decoded(&rules, &a, &t, allies, k, name_of(attacker), name_of(target),
                                  names, &ans);
    }
    free(allies);
    free(names);
    if (ans.status != 200) {
        *refusal = ans;
        return NULL;
    }
    json_t *doc = json_pack("{s:s, s:O}", "attacker", str(attacker, "id"), "flanking", ans.doc);
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
    json_t *list = json_array();
    size_t i;
    json_t *c;
    json_array_foreach(combatants(state), i, c)
    {
        if (attacker != NULL ? c != attacker : (!opposed(c, target) || enc_is_down(c)))
            continue;
        struct svc_answer refusal = {0};
        json_t *one = flank_of(state, c, target, &refusal);
        if (one == NULL) { /* the ruling's own refusal (422 ...), never a 500 of ours */
            json_decref(list);
            json_decref(state);
            svc_errors_free(&e);
            svc_answer_respond(&refusal, res);
            return;
        }
        json_array_append_new(list, one);
    }
    json_t *doc = json_pack("{s:s, s:I, s:s, s:o}", "id", req->params[0], "at", (json_int_t)at,
                            "target", str(target, "id"), "attackers", list);
    enc_respond_with_etag(res, 200, doc, version);
    svc_errors_free(&e);
    json_decref(state);
}
