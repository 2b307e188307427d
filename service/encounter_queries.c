/* Asking in encounter terms (issue 18): GET /v1/encounters/{id}/reach, /route, /threats and
 * /flanking run the stateless rules on the stored map and combatants, so a bot never re-sends
 * them. Each reads the state after ?at=N (default: now) as the state endpoint does, builds the
 * stateless request of the same facts the encounter's own moves read into structs
 * (encounter_move.c: each other combatant's side, whether it is up and may make an attack of
 * opportunity, its melee bonus; the mover's burdens and turn), and hands it to the stateless
 * endpoint's own ruling (ruling.h), so the two answers cannot differ.
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

#include "encounter_internal.h"

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

/* The other combatants as a movement request sees them, sides relative to `me`. */
static json_t *enc_map_creatures(json_t *state, json_t *me, int engine)
{
    json_t *list = json_array();
    size_t i;
    json_t *c;
    json_array_foreach(combatants(state), i, c)
    {
        if (c == me)
            continue;
        json_t *o = enc_placement(c);
        json_object_set_new(o, "id", json_string(str(c, "id")));
        json_object_set_new(
            o, "side",
            json_string(strcmp(str(c, "side"), str(me, "side")) == 0 ? "ally" : "enemy"));
        json_object_set_new(o, "conscious", json_boolean(!enc_is_down(c)));
        json_object_set_new(o, "can_threaten", json_boolean(enc_makes_aoo(state, c, engine)));
        json_object_set_new(o, "combat_reflexes",
                            json_boolean(json_is_true(json_object_get(c, "combat_reflexes"))));
        json_t *a0 = enc_reaction_attack(c, engine);
        json_object_set_new(o, "attack_bonus", json_integer(a0 ? num(a0, "attack_bonus") : 0));
        json_array_append_new(list, o);
    }
    return list;
}

/* Combatant c as a movement request's mover, with what its turn has spent (new ref). */
static json_t *enc_mover_of(json_t *c, json_t *turn)
{
    json_t *o = enc_placement(c);
    static const char *const keys[] = {"speeds", "armor",      "load", "constitution",
                                       "runner", "darkvision", NULL};
    for (int i = 0; keys[i]; i++) {
        json_t *v = json_object_get(c, keys[i]);
        if (v != NULL)
            json_object_set(o, keys[i], v);
    }
    json_object_set_new(o, "prone", json_boolean(has_condition(c, "prone")));
    json_object_set_new(o, "moved_this_round",
                        json_boolean(json_is_true(json_object_get(turn, "moved"))));
    json_object_set_new(o, "ran_this_round",
                        json_boolean(json_is_true(json_object_get(turn, "ran"))));
    return o;
}

/* The actor as a mover for a query: enc_mover_of, plus what a move's odds read (its Defense,
 * hit points above 0 and damage reduction). */
static json_t *query_mover(json_t *actor)
{
    json_t *m = enc_mover_of(actor, json_object_get(actor, "turn"));
    static const char *const keys[] = {"defense", "damage_reduction", NULL};
    for (int k = 0; keys[k]; k++)
        if (json_object_get(actor, keys[k]) != NULL)
            json_object_set(m, keys[k], json_object_get(actor, keys[k]));
    if (json_object_get(actor, "hp") != NULL && num(actor, "hp") > 0)
        json_object_set(m, "hp", json_object_get(actor, "hp"));
    return m;
}

/* The encounter's own map, decoded into cache (the caller frees it): handed to the movement
 * rulings as decoded beforehand, so they rule moves on it and leave the combatants' places, ruled
 * when they were made, as they are (move_codec.c). NULL when it cannot be decoded: the ruling
 * then decodes the body's map and says why. */
static const struct rules_map *encounter_map(const struct svc_request *req, json_t *state,
                                             struct enc_cache *cache)
{
    struct svc_errors none;
    svc_errors_init(&none);
    struct resolve_ctx x = {.req = req, .cache = cache, .state = state, .e = &none};
    const struct rules_map *m = enc_state_map(&x);
    svc_errors_free(&none);
    return m;
}

/* The other combatants for a query: enc_map_creatures, each with the damage of the profile its
 * attacks of opportunity are made with (enc_reaction_attack: its first melee one; 004 "a single
 * melee attack"), whose bonus enc_map_creatures gives, for a move's odds. */
static json_t *query_creatures(json_t *state, json_t *actor)
{
    json_t *list = enc_map_creatures(state, actor, ENGINE_VERSION);
    size_t i;
    json_t *o;
    json_array_foreach(list, i, o)
    {
        json_t *c = find(state, str(o, "id"), NULL);
        json_t *a0 = enc_reaction_attack(c, ENGINE_VERSION);
        static const char *const keys[] = {"damage", "crit_range", "crit_multiplier", NULL};
        for (int k = 0; a0 != NULL && keys[k]; k++)
            if (json_object_get(a0, keys[k]) != NULL)
                json_object_set(o, keys[k], json_object_get(a0, keys[k]));
    }
    return list;
}

static json_t *move_body(json_t *state, json_t *actor, const char *mode)
{
    return json_pack("{s:o, s:O, s:o, s:o, s:s}", "rules", enc_rules_json(state), "map",
                     json_object_get(state, "map"), "creatures", query_creatures(state, actor),
                     "mover", query_mover(actor), "mode", mode);
}

/* Shared start: the state at ?at and the actor of ?actor; false when res is answered. */
static bool begin(const struct svc_request *req, struct svc_response *res, json_t **state,
                  json_t **actor, struct svc_errors *e)
{
    int64_t at = 0, version = 0;
    *state = svc_encounter_state_at(req, res, &at, &version);
    svc_errors_init(e);
    if (*state == NULL)
        return false;
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
    json_t *state, *actor = NULL;
    struct svc_errors e;
    if (!begin(req, res, &state, &actor, &e))
        return;
    if (finish_errors(res, state, &e))
        return;
    const char *mode = svc_request_query(req, "mode");
    const char *prefer = svc_request_query(req, "prefer");
    json_t *body = move_body(state, actor, mode ? mode : "move");
    if (prefer != NULL)
        json_object_set_new(body, "prefer", json_string(prefer));
    static const struct svc_query_member map[] = {
        {"/mode", "mode"}, {"/prefer", "prefer"}, {NULL, NULL}};
    struct svc_answer a = {0};
    struct enc_cache cache = {0};
    svc_rule_move_reach(body, req->ctx->config, encounter_map(req, state, &cache), &a);
    enc_cache_free(&cache);
    json_decref(body);
    answer(&a, map, res);
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
    json_t *state, *actor = NULL;
    struct svc_errors e;
    if (!begin(req, res, &state, &actor, &e))
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
    const char *mode = svc_request_query(req, "mode");
    json_t *body = move_body(state, actor, mode ? mode : "move");
    json_object_set_new(body, "target", target);
    if (odds != NULL && strcmp(odds, "true") == 0)
        json_object_set_new(body, "odds", json_true());
    static const struct svc_query_member map[] = {
        {"/mode", "mode"}, {"/target", "to"}, {NULL, NULL}};
    struct svc_answer a = {0};
    struct enc_cache cache = {0};
    svc_rule_move_route(body, req->ctx->config, encounter_map(req, state, &cache), &a);
    enc_cache_free(&cache);
    json_decref(body);
    answer(&a, map, res);
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
    size_t i, j;
    json_t *a, *b;
    json_array_foreach(combatants(state), i, a)
    {
        json_t *threatens = json_array(), *by = json_array();
        json_array_foreach(combatants(state), j, b)
        {
            if (!opposed(a, b))
                continue;
            /* A combatant that is down threatens nothing (004 Threatened Area: the area into
             * which it can make a melee attack). */
            if (!enc_is_down(a) && enc_reaches(&o, a, b))
                json_array_append_new(threatens, json_string(str(b, "id")));
            if (!enc_is_down(b) && enc_reaches(&o, b, a))
                json_array_append_new(by, json_string(str(b, "id")));
        }
        json_array_append_new(list,
                              json_pack("{s:s, s:o, s:o, s:b}", "id", str(a, "id"), "threatens",
                                        threatens, "threatened_by", by,
                                        "can_make_attacks_of_opportunity", can_make_aoo(state, a)));
    }
    json_t *doc =
        json_pack("{s:s, s:I, s:o, s:s}", "id", req->params[0], "at", (json_int_t)at, "combatants",
                  list, "source", "004 Threatened Area; 001 Reach; 004 Flat-Footed");
    enc_respond_with_etag(res, 200, doc, version);
    json_decref(state);
}

/* c's placement with its name (else its id), for the flanking answer's sentence. */
static json_t *named_placement(json_t *c)
{
    json_t *p = enc_placement(c);
    const char *name = str(c, "name");
    json_object_set_new(p, "name", json_string(*name ? name : str(c, "id")));
    return p;
}

/* The encounter passes a whole side as allies: the flanking ruling must take as many. */
_Static_assert(SVC_MAX_ALLIES >= MAX_COMBATANTS, "a side of an encounter must fit in allies");

/* {attacker, flanking}: the flanking endpoint's answer for attacker on target, with attacker's
 * side as allies; NULL when the ruling refused, its refusal left in *refusal (to be sent or
 * freed by the caller). */
static json_t *flank_of(json_t *state, json_t *attacker, json_t *target, struct svc_answer *refusal)
{
    json_t *allies = json_array();
    size_t i;
    json_t *c;
    json_array_foreach(combatants(state), i, c)
    {
        if (c != attacker && c != target && strcmp(str(c, "side"), str(attacker, "side")) == 0 &&
            !enc_is_down(c)) {
            json_t *p = named_placement(c);
            json_object_set_new(p, "can_threaten", json_boolean(enc_flanks(c, ENGINE_VERSION)));
            json_array_append_new(allies, p);
        }
    }
    json_t *body =
        json_pack("{s:o, s:o, s:o, s:o}", "rules", enc_rules_json(state), "attacker",
                  named_placement(attacker), "target", named_placement(target), "allies", allies);
    struct svc_answer a = {0};
    svc_rule_flanking(body, &a);
    json_decref(body);
    if (a.status != 200) {
        *refusal = a;
        return NULL;
    }
    json_t *doc = json_pack("{s:s, s:O}", "attacker", str(attacker, "id"), "flanking", a.doc);
    svc_answer_free(&a);
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
