/* Encounters: stored in SQLite, acted on, logged, replayable.
 *
 * The model. An encounter's state is a JSON document (rules, map, seed, round, turn, order,
 * combatants); every change is an event holding what was asked (`input`), the ruling
 * (`result`) and the changes it made (`effects`). Effects are merges: "set these fields of
 * the encounter or of one combatant", "add this combatant", "remove that one". The stored
 * state is the fold of every event's effects, so the state after any event is rebuilt by
 * folding the log up to it, and `verify` re-resolves every event from the state before it
 * and checks that the ruling and the effects come out the same.
 *
 * The rulings are the stateless endpoints' own code: an attack is the request
 * /v1/attacks/resolve would get, built from the stored combatants and answered by its handler
 * (likewise /v1/movement/path, /v1/movement/forced and /v1/falling), so an encounter never
 * rules differently from the API. Dice come from the encounter's seed mixed with the event's
 * number, or from results the caller rolled. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "codec.h"
#include "db.h"
#include "dice.h"
#include "hp.h"
#include "jsonw.h"
#include "movement.h"
#include "rules_codec.h"
#include "state_cache.h"
#include "svc.h"
#include "turn.h"

#define MAX_COMBATANTS 500
/* The rules an event is ruled under, stamped on every event ("engine" in its payload), so that
 * verify and import re-resolve it as it was ruled: 1, events without a stamp, from before the
 * action economy; 2, the action economy (rules/turn.h), hit point states (rules/hp.h),
 * attacks of opportunity only in answer to a provoking move, the hp event. */
#define ENGINE_VERSION 2
#define MAX_ATTACKS    16
#define MAX_PAGE       500
#define DEFAULT_PAGE   100
#define MAX_IMPORT     100000
#define SEED_MAX       9007199254740991LL

/* ---- small helpers ---- */

static const char *str(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static long long num(json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

static json_t *combatants(json_t *state)
{
    return json_object_get(state, "combatants");
}

static json_t *find(json_t *state, const char *id, size_t *index)
{
    size_t i;
    json_t *c;
    json_array_foreach(combatants(state), i, c)
    {
        if (strcmp(str(c, "id"), id) == 0) {
            if (index)
                *index = i;
            return c;
        }
    }
    return NULL;
}

static bool has_condition(json_t *c, const char *cond)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(c, "conditions"), i, v)
    {
        if (json_is_string(v) && strcmp(json_string_value(v), cond) == 0)
            return true;
    }
    return false;
}

/* A copy of c's conditions with cond added (add) or removed. */
static json_t *conditions_with(json_t *c, const char *cond, bool add)
{
    json_t *out = json_array();
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(c, "conditions"), i, v)
    {
        if (json_is_string(v) && strcmp(json_string_value(v), cond) != 0)
            json_array_append(out, v);
    }
    if (add)
        json_array_append_new(out, json_string(cond));
    return out;
}

/* The ruling seed of event seq: a splitmix64 step of the encounter's seed and the number,
 * kept within the dice API's seed range. */
static long long event_seed(json_t *state, long long seq)
{
    uint64_t z = (uint64_t)num(state, "seed") + (uint64_t)seq * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (long long)(z % (uint64_t)(SEED_MAX + 1));
}

/* ---- effects and the fold ---- */

static json_t *effect_set(const char *target, json_t *fields)
{
    return json_pack("{s:s, s:s, s:o}", "op", "set", "target", target, "fields", fields);
}

/* Applies one event's effects to state. */
static void fold(json_t *state, json_t *effects)
{
    size_t i;
    json_t *e;
    json_array_foreach(effects, i, e)
    {
        const char *op = str(e, "op");
        if (strcmp(op, "init") == 0) {
            json_object_clear(state);
            json_object_update(state, json_object_get(e, "state"));
        } else if (strcmp(op, "set") == 0) {
            const char *t = str(e, "target");
            json_t *obj = strcmp(t, "encounter") == 0 ? state : find(state, t, NULL);
            if (obj != NULL)
                json_object_update(obj, json_object_get(e, "fields"));
        } else if (strcmp(op, "add") == 0) {
            json_array_append(combatants(state), json_object_get(e, "combatant"));
        } else if (strcmp(op, "remove") == 0) {
            size_t at;
            if (find(state, str(e, "id"), &at) != NULL)
                json_array_remove(combatants(state), at);
            json_t *order = json_object_get(state, "order");
            for (size_t k = 0; k < json_array_size(order); k++)
                if (strcmp(json_string_value(json_array_get(order, k)), str(e, "id")) == 0) {
                    json_array_remove(order, k);
                    break;
                }
        }
    }
}

/* ---- calling the stateless rulings ---- */

/* Compact JSON text (malloc'd) or NULL. */
static char *dump(const json_t *v)
{
    size_t n;
    return jw_dump(v, &n);
}

/* A request for a stateless handler, as if it came over HTTP: the body is handed over parsed,
 * as svc_parse_json_body would have made it (borrowed). */
static struct svc_request internal_request(const struct svc_request *outer, const char *path,
                                           json_t *body, const struct rules_map *map)
{
    return (struct svc_request){
        .method = "POST", .path = path, .body = "", .parsed = body, .map = map, .ctx = outer->ctx};
}

/* Runs handler h on body (stolen); returns the parsed answer and its status. */
static json_t *rule(const struct svc_request *outer, svc_handler h, const char *path, json_t *body,
                    const struct rules_map *map, unsigned *status)
{
    struct svc_request req = internal_request(outer, path, body, map);
    struct svc_response res;
    memset(&res, 0, sizeof res);
    h(&req, &res);
    json_decref(body);
    *status = res.status;
    json_t *doc = res.body ? json_loadb(res.body, res.body_len, 0, NULL) : NULL;
    svc_response_clear(&res);
    return doc;
}

/* Moves a ruling's field errors into e under prefix. */
static void take_errors(json_t *problem, const char *prefix, struct svc_errors *e)
{
    size_t i;
    json_t *err;
    json_array_foreach(json_object_get(problem, "errors"), i, err)
    {
        svc_errors_add(e, prefix, "%s: %s", str(err, "pointer"), str(err, "message"));
    }
    if (json_array_size(json_object_get(problem, "errors")) == 0)
        svc_errors_add(e, prefix, "%s", str(problem, "detail"));
}

/* The members of a stored combatant that place it (CombatantFields). */
static json_t *placement(json_t *c)
{
    static const char *const keys[] = {
        "x", "y", "z", "size", "facing", "faceless", "reach_ft", "reach_weapon", NULL};
    json_t *o = json_object();
    for (int i = 0; keys[i]; i++) {
        json_t *v = json_object_get(c, keys[i]);
        if (v != NULL)
            json_object_set(o, keys[i], v);
    }
    return o;
}

/* Unconscious, helpless, or (engine 2, rules/hp.h) dying or dead: it threatens nobody and
 * helps nobody flank. The hp_state member is written only by engine 2 events. */
static bool is_down(json_t *c)
{
    const char *hs = str(c, "hp_state");
    return has_condition(c, "unconscious") || has_condition(c, "helpless") ||
           strcmp(hs, "dying") == 0 || strcmp(hs, "dead") == 0;
}

/* The other combatants as a movement request sees them, sides relative to `me`. */
static json_t *map_creatures(json_t *state, json_t *me)
{
    json_t *list = json_array();
    size_t i;
    json_t *c;
    json_array_foreach(combatants(state), i, c)
    {
        if (c == me)
            continue;
        json_t *o = placement(c);
        json_object_set_new(o, "id", json_string(str(c, "id")));
        json_object_set_new(
            o, "side",
            json_string(strcmp(str(c, "side"), str(me, "side")) == 0 ? "ally" : "enemy"));
        json_object_set_new(o, "conscious", json_boolean(!is_down(c)));
        /* 004 Flat-Footed: "A flat-footed combatant can't make attacks of opportunity." */
        json_object_set_new(o, "can_threaten", json_boolean(!has_condition(c, "flat_footed")));
        json_object_set_new(o, "combat_reflexes",
                            json_boolean(json_is_true(json_object_get(c, "combat_reflexes"))));
        json_t *a0 = json_array_get(json_object_get(c, "attacks"), 0);
        json_object_set_new(o, "attack_bonus", json_integer(a0 ? num(a0, "attack_bonus") : 0));
        json_array_append_new(list, o);
    }
    return list;
}

static json_t *mover_of(json_t *c, json_t *turn)
{
    json_t *o = placement(c);
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

struct resolve_ctx;
static json_t *ruled(struct resolve_ctx *x, svc_handler h, const char *path, json_t *body,
                     const char *prefix, const char *what, bool with_map);

/* ---- resolving each kind of event ----
 * Each takes the state before the event, the input and the event's number, and returns
 * {"result": ..., "effects": [...]} or NULL after adding errors. */

/* What one request decodes once and reuses for every event it rules: the stored map, which no
 * event changes after creation. A write rules one event; verify and import rule the whole log,
 * and would otherwise decode the map again for every move. */
struct enc_cache {
    struct rules_map map;
    bool map_ok, map_tried;
};

static void enc_cache_free(struct enc_cache *c)
{
    if (c->map_ok)
        rules_map_free(&c->map);
}

struct resolve_ctx {
    const struct svc_request *req;
    struct enc_cache *cache;
    json_t *state;
    long long seq;
    int engine; /* ENGINE_VERSION for a new event; a stored event's own stamp on replay */
    struct rules_options rules;
    bool rules_ok;
    struct svc_errors *e;
    /* When set, a ruling may hand its result over as the text the handler wrote (owned by the
     * caller) and leave "result" out of its outcome: the write path stores the text as it is
     * rather than parsing it and writing it again. NULL: the result is always a value. */
    char **result_text;
};

/* The state's map, decoded on first use for the request (enc_cache); NULL when it cannot be,
 * and then the movement handler decodes it from the body and reports why. */
static const struct rules_map *state_map(struct resolve_ctx *x)
{
    struct enc_cache *c = x->cache;
    if (c == NULL || c->map_tried)
        return c != NULL && c->map_ok ? &c->map : NULL;
    c->map_tried = true;
    struct svc_errors scratch;
    svc_errors_init(&scratch);
    c->map_ok = svc_decode_map(x->state, x->req->ctx->config, false, &c->map, &scratch) == 0;
    svc_errors_free(&scratch);
    return c->map_ok ? &c->map : NULL;
}

/* An event's outcome; result NULL when it was handed over as text (resolve_ctx). */
static json_t *outcome(json_t *result, json_t *effects)
{
    json_t *o = json_pack("{s:o}", "effects", effects);
    if (result != NULL)
        json_object_set_new(o, "result", result);
    return o;
}

static const char *const defender_conditions[] = {
    "sitting",   "prone",  "stunned",  "climbing",  "flat_footed", "running",
    "grappling", "pinned", "helpless", "squeezing", "unconscious", NULL};

/* The rules in force, from the state's echo of them (stored at creation, always valid). */
static void state_rules(json_t *state, struct rules_options *o)
{
    struct svc_rules rules;
    struct svc_errors scratch;
    svc_errors_init(&scratch);
    json_t *doc = json_pack("{s:O}", "rules", json_object_get(state, "rules"));
    svc_decode_rules(doc, &rules, &scratch);
    json_decref(doc);
    svc_errors_free(&scratch);
    *o = rules.options;
}

/* ---- engine 2: hit point states and the action economy (rules/hp.h, rules/turn.h) ---- */

/* The rules in force, decoded once per event. */
static const struct rules_options *rules_of(struct resolve_ctx *x)
{
    if (!x->rules_ok) {
        state_rules(x->state, &x->rules);
        x->rules_ok = true;
    }
    return &x->rules;
}

/* The fields that set a combatant's hit points to hp: under engine 2 with hp_states on, its
 * hp_state too (d20 3.5 SRD: disabled at 0, dying below, dead at -10). */
static json_t *hp_fields(struct resolve_ctx *x, long long hp)
{
    json_t *f = json_pack("{s:I}", "hp", hp);
    const struct rules_options *o = rules_of(x);
    if (x->engine >= 2 && o->hp_states != RULES_HP_STATES_NONE)
        json_object_set_new(
            f, "hp_state",
            json_string(rules_hp_state_name(rules_hp_state_of(o, hp < INT32_MIN   ? INT32_MIN
                                                                 : hp > INT32_MAX ? INT32_MAX
                                                                                  : (int)hp))));
    return f;
}

static enum rules_hp_state hp_state_of(struct resolve_ctx *x, json_t *c)
{
    long long hp = num(c, "hp");
    return x->engine < 2 ? RULES_HP_UP
                         : rules_hp_state_of(rules_of(x), hp < -1000000 ? -1000000 : (int)hp);
}

static bool flag(json_t *o, const char *k)
{
    return json_is_true(json_object_get(o, k));
}

/* A combatant's turn as the action economy keeps it (members written by turn_fields; an
 * engine 1 turn's "attacked" counts as its standard action). */
static void turn_decode(json_t *turn, struct rules_turn *t)
{
    *t = (struct rules_turn){.standard = flag(turn, "standard") || flag(turn, "attacked"),
                             .move = flag(turn, "move"),
                             .full_round = flag(turn, "full_round"),
                             .moved = flag(turn, "moved"),
                             .stepped = flag(turn, "stepped"),
                             .free_facing = flag(turn, "free_facing")};
}

/* 004 Step One: a partial action in the surprise round; SRD: disabled, the same. */
static void turn_limits(struct resolve_ctx *x, json_t *c, struct rules_turn_limits *lim)
{
    lim->partial = (flag(x->state, "started") && num(x->state, "round") == 0) ||
                   hp_state_of(x, c) == RULES_HP_DISABLED;
}

/* The budget members of a turn: what was spent and what is left. */
static json_t *turn_fields(const struct rules_turn *t, const struct rules_turn_limits *lim)
{
    struct rules_turn_left l;
    rules_turn_left(t, lim, &l);
    return json_pack("{s:b, s:b, s:b, s:b, s:b, s:b, s:{s:b, s:b, s:b, s:b, s:b}}", "standard",
                     t->standard, "move", t->move, "full_round", t->full_round, "moved", t->moved,
                     "stepped", t->stepped, "free_facing", t->free_facing, "left", "standard",
                     l.standard, "move", l.move, "full_round", l.full_round, "five_foot_step",
                     l.five_foot_step, "free_facing", l.free_facing);
}

/* "a standard action, a move action, a 5-foot step" or "free actions only". */
static void describe_left(const struct rules_turn *t, const struct rules_turn_limits *lim,
                          char *out, size_t cap)
{
    struct rules_turn_left l;
    rules_turn_left(t, lim, &l);
    const char *parts[5];
    int n = 0;
    if (l.full_round)
        parts[n++] = "a full-round action";
    if (l.standard)
        parts[n++] = "a standard action";
    if (l.move)
        parts[n++] = "a move action";
    if (l.five_foot_step)
        parts[n++] = "a 5-foot step";
    if (l.free_facing)
        parts[n++] = "a free facing change";
    size_t used = (size_t)snprintf(out, cap, "%s", n ? "" : "free actions only");
    for (int i = 0; i < n && used < cap; i++)
        used += (size_t)snprintf(out + used, cap - used, "%s%s", i ? ", " : "", parts[i]);
}

/* Spends action a from the actor's turn (engine 2, once combat has started). Returns the
 * budget members to merge into its turn, or NULL after a refusal naming the rule and what
 * is left. */
static json_t *spend_action(struct resolve_ctx *x, json_t *actor, enum rules_action a)
{
    struct rules_turn t;
    struct rules_turn_limits lim;
    turn_decode(json_object_get(actor, "turn"), &t);
    turn_limits(x, actor, &lim);
    struct rules_turn_refusal why;
    if (rules_turn_spend(&t, &lim, a, &why) != RULES_TURN_OK) {
        char left[160];
        describe_left(&t, &lim, left, sizeof left);
        svc_errors_add(x->e, "/type", "%s is refused: %s (%s); left this turn: %s",
                       rules_action_name(a), why.message, why.rule, left);
        return NULL;
    }
    return turn_fields(&t, &lim);
}

/* Merges the turn budget into the actor's turn in the outcome's effects (an action may set its
 * turn already: moved, ran), or adds an effect that does. */
static void stamp_turn(json_t *outcome, json_t *actor, json_t *budget)
{
    json_t *effects = json_object_get(outcome, "effects");
    const char *id = str(actor, "id");
    size_t i;
    json_t *ef;
    json_array_foreach(effects, i, ef)
    {
        json_t *fields = json_object_get(ef, "fields");
        json_t *turn = json_object_get(fields, "turn");
        if (strcmp(str(ef, "target"), id) == 0 && json_is_object(turn)) {
            json_object_update(turn, budget);
            json_decref(budget);
            return;
        }
    }
    json_t *turn = json_deep_copy(json_object_get(actor, "turn"));
    if (!json_is_object(turn)) {
        json_decref(turn);
        turn = json_object();
    }
    json_object_update(turn, budget);
    json_decref(budget);
    json_array_append_new(effects, effect_set(id, json_pack("{s:o}", "turn", turn)));
}

/* Validates a combatant object (ptr names it) against the state: every member known and in
 * range, placed on the map and not overlapping. Returns a normalized copy or NULL. */
static json_t *check_combatant(json_t *state, json_t *in, const char *ptr, const char *keep_id,
                               struct svc_errors *e)
{
    static const char *const keys[] = {"id",
                                       "name",
                                       "side",
                                       "x",
                                       "y",
                                       "z",
                                       "size",
                                       "facing",
                                       "faceless",
                                       "reach_ft",
                                       "reach_weapon",
                                       "speeds",
                                       "armor",
                                       "load",
                                       "constitution",
                                       "runner",
                                       "darkvision",
                                       "defense",
                                       "damage_reduction",
                                       "hp",
                                       "max_hp",
                                       "initiative_modifier",
                                       "dex",
                                       "attacks",
                                       "combat_reflexes",
                                       "conditions",
                                       NULL};
    size_t before = json_array_size(e->list); /* errors counted from here on refuse it */
    if (!codec_expect_object(in, ptr, e))
        return NULL;
    codec_reject_unknown(in, ptr, keys, e);
    json_t *c = json_deep_copy(in);
    const char *id = keep_id;
    if (keep_id == NULL && codec_get_string(in, ptr, "id", true, 64, &id, e)) {
        for (const char *p = id; *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                  (*p >= '0' && *p <= '9') || *p == '-' || *p == '_')) {
                char ip[CODEC_PTR_MAX];
                codec_pointer(ip, ptr, "id");
                svc_errors_add(e, ip, "must be 1 to 64 of A-Za-z0-9_-");
                break;
            }
        if (*id == '\0' || find(state, id, NULL) != NULL) {
            char ip[CODEC_PTR_MAX];
            codec_pointer(ip, ptr, "id");
            svc_errors_add(e, ip, *id ? "is already in the encounter" : "must not be empty");
        }
    }
    if (id != NULL)
        json_object_set_new(c, "id", json_string(id));
    const char *s = NULL;
    codec_get_string(in, ptr, "name", false, 100, &s, e);
    if (codec_get_string(in, ptr, "side", keep_id == NULL, 64, &s, e) && *s == '\0') {
        char sp[CODEC_PTR_MAX];
        codec_pointer(sp, ptr, "side");
        svc_errors_add(e, sp, "must not be empty");
    }
    /* Placement, size, facing and reach: the geometry decoder's own checks. */
    struct rules_options o;
    state_rules(state, &o);
    struct rules_creature rc;

    if (keep_id == NULL) {
        json_t *probe = json_deep_copy(c);
        svc_decode_creature(probe, ptr, &o, true, keys, &rc, e); /* keys: the rest are ours */
        json_decref(probe);
    } /* an update's placement is checked on the merged combatant by check_place */
    json_t *speeds = json_object_get(c, "speeds");
    char sp[CODEC_PTR_MAX];
    codec_pointer(sp, ptr, "speeds");
    if (speeds == NULL && keep_id == NULL)
        svc_errors_add(e, sp, "is required");
    else if (speeds != NULL && codec_expect_object(speeds, sp, e)) {
        static const char *const types[] = {"walk", "swim", "climb", "fly", "burrow", NULL};
        codec_reject_unknown(speeds, sp, types, e);
        long long v;
        for (int t = 0; types[t]; t++)
            codec_get_int(speeds, sp, types[t], false, 0, 10000, &v, e);
    }
    static const char *const armors[] = {"none", "light", "medium", "heavy", NULL};
    static const char *const loads[] = {"light", "medium", "heavy", NULL};
    codec_get_enum(in, ptr, "armor", armors, false, 0, e);
    codec_get_enum(in, ptr, "load", loads, false, 0, e);
    long long v = 0;
    bool b;
    codec_get_int(in, ptr, "constitution", false, 0, 100, &v, e);
    codec_get_bool(in, ptr, "runner", false, &b, e);
    codec_get_bool(in, ptr, "darkvision", false, &b, e);
    codec_get_bool(in, ptr, "combat_reflexes", false, &b, e);
    codec_get_int(in, ptr, "damage_reduction", false, 0, 1000, &v, e);
    json_t *def = json_object_get(in, "defense");
    char dp[CODEC_PTR_MAX];
    codec_pointer(dp, ptr, "defense");
    if (def == NULL && keep_id == NULL)
        svc_errors_add(e, dp, "is required (AC in parts, as /v1/attacks/resolve takes it)");
    else if (def != NULL && codec_expect_object(def, dp, e)) {
        static const char *const parts[] = {"armor", "shield", "shield_enhancement", "natural",
                                            "dex",   "dodge",  "deflection",         "size",
                                            "other", NULL};
        codec_reject_unknown(def, dp, parts, e);
        for (int i = 0; parts[i]; i++)
            codec_get_int(def, dp, parts[i], false, -100, 100, &v, e);
    }
    long long max_hp = 1, hp = 1;
    bool has_max = codec_get_int(in, ptr, "max_hp", keep_id == NULL, 1, 100000, &max_hp, e);
    if (codec_get_int(in, ptr, "hp", false, -100000, 100000, &hp, e)) {
        if (has_max && hp > max_hp) {
            char hp_ptr[CODEC_PTR_MAX];
            codec_pointer(hp_ptr, ptr, "hp");
            svc_errors_add(e, hp_ptr, "is above max_hp");
        }
    } else if (has_max && keep_id == NULL) {
        json_object_set_new(c, "hp", json_integer(max_hp));
    }
    long long dex = 10;
    bool has_dex = codec_get_int(in, ptr, "dex", keep_id == NULL, 1, 100, &dex, e);
    if (!codec_get_int(in, ptr, "initiative_modifier", false, -100, 100, &v, e) && has_dex) {
        /* 004: "An initiative check is a Dexterity check": the Dexterity modifier. */
        long long mod = dex >= 10 ? (dex - 10) / 2 : -((11 - dex) / 2);
        json_object_set_new(c, "initiative_modifier", json_integer(mod));
    }
    json_t *attacks = NULL;
    if (codec_get_array(in, ptr, "attacks", false, MAX_ATTACKS, &attacks, e)) {
        size_t i;
        json_t *a;
        json_array_foreach(attacks, i, a)
        {
            char ap[CODEC_PTR_MAX + 24];
            snprintf(ap, sizeof ap, "%s/attacks/%zu", ptr, i);
            static const char *const akeys[] = {
                "name",  "attack_bonus",      "damage",      "attack",
                "touch", "sneak_attack_dice", "rogue_level", NULL};
            static const char *const forms[] = {"melee", "ranged", "spell", NULL};
            if (!codec_expect_object(a, ap, e))
                continue;
            codec_reject_unknown(a, ap, akeys, e);
            codec_get_string(a, ap, "name", true, 64, &s, e);
            codec_get_int(a, ap, "attack_bonus", true, -100, 100, &v, e);
            if (codec_get_string(a, ap, "damage", false, RULES_DICE_MAX_EXPRESSION, &s, e)) {
                struct rules_dice_expr expr;
                size_t off = 0;
                if (rules_dice_parse(s, &expr, &off) != RULES_DICE_OK) {
                    char dmg[CODEC_PTR_MAX + 32];
                    snprintf(dmg, sizeof dmg, "%s/damage", ap);
                    svc_errors_add(e, dmg, "is not dice notation (at character %zu)", off);
                }
            }
            codec_get_enum(a, ap, "attack", forms, false, 0, e);
            codec_get_bool(a, ap, "touch", false, &b, e);
            codec_get_int(a, ap, "sneak_attack_dice", false, 0, 40, &v, e);
            codec_get_int(a, ap, "rogue_level", false, 0, 100, &v, e);
        }
    }
    json_t *conds = NULL;
    if (codec_get_array(in, ptr, "conditions", false, 16, &conds, e)) {
        size_t i;
        json_t *cv;
        json_array_foreach(conds, i, cv)
        {
            bool ok = false;
            for (int k = 0; defender_conditions[k] && json_is_string(cv); k++)
                ok |= strcmp(defender_conditions[k], json_string_value(cv)) == 0;
            if (!ok) {
                char cp[CODEC_PTR_MAX + 24];
                snprintf(cp, sizeof cp, "%s/conditions/%zu", ptr, i);
                svc_errors_add(e, cp, "is not a condition this service tracks");
            }
        }
    } else if (keep_id == NULL) {
        json_object_set_new(c, "conditions", json_array());
    }
    if (json_array_size(e->list) > before) {
        json_decref(c);
        return NULL;
    }
    return c;
}

/* Whether c, at its own position, fits the map and overlaps nobody (except itself). */
static bool check_place(json_t *state, json_t *c, const char *ptr, struct svc_errors *e)
{
    struct rules_options o;
    state_rules(state, &o);
    struct svc_errors scratch;
    svc_errors_init(&scratch);
    struct rules_creature me, other;
    json_t *probe = placement(c);
    size_t before = json_array_size(e->list);
    svc_decode_creature(probe, ptr, &o, true, NULL, &me, e);
    json_decref(probe);
    bool ok = json_array_size(e->list) == before;
    json_t *map = json_object_get(state, "map");
    if (ok && (me.body.x < 0 || me.body.y < 0 || me.body.x + me.body.side > num(map, "width") ||
               me.body.y + me.body.side > num(map, "height"))) {
        svc_errors_add(e, ptr, "is off the map: its whole space must lie on it");
        ok = false;
    }
    size_t i;
    json_t *k;
    json_array_foreach(combatants(state), i, k)
    {
        if (!ok || strcmp(str(k, "id"), str(c, "id")) == 0)
            continue;
        json_t *p = placement(k);
        svc_decode_creature(p, ptr, &o, true, NULL, &other, &scratch);
        json_decref(p);
        int d = (int)me.size - (int)other.size;
        bool overlap =
            me.body.x < other.body.x + other.body.side && other.body.x < me.body.x + me.body.side &&
            me.body.y < other.body.y + other.body.side && other.body.y < me.body.y + me.body.side;
        if (overlap && d < 2 && d > -2) {
            svc_errors_add(e, ptr, "overlaps '%s' (001 Walk: never end in an occupied space)",
                           str(k, "id"));
            ok = false;
        }
    }
    svc_errors_free(&scratch);
    return ok;
}

static json_t *resolve_add(struct resolve_ctx *x, json_t *in)
{
    if (json_array_size(combatants(x->state)) >= MAX_COMBATANTS) {
        svc_errors_add(x->e, "", "an encounter holds at most %d combatants", MAX_COMBATANTS);
        return NULL;
    }
    json_t *c = check_combatant(x->state, in, "", NULL, x->e);
    if (c == NULL)
        return NULL;
    if (!check_place(x->state, c, "", x->e)) {
        json_decref(c);
        return NULL;
    }
    json_object_set_new(c, "turn", json_object());
    return outcome(json_pack("{s:s}", "added", str(c, "id")),
                   json_pack("[{s:s, s:o}]", "op", "add", "combatant", c));
}

static json_t *resolve_update(struct resolve_ctx *x, json_t *in)
{
    const char *id = str(in, "id");
    json_t *old = find(x->state, id, NULL);
    if (old == NULL) {
        svc_errors_add(x->e, "", "no combatant '%s'", id);
        return NULL;
    }
    json_t *fields = json_object_get(in, "fields");
    if (json_object_get(fields, "id") != NULL) {
        svc_errors_add(x->e, "/id", "cannot be changed");
        return NULL;
    }
    json_t *c = check_combatant(x->state, fields, "", id, x->e);
    if (c == NULL)
        return NULL;
    json_decref(c);
    json_t *merged = json_deep_copy(old);
    json_object_update(merged, fields);
    bool ok = check_place(x->state, merged, "", x->e);
    json_decref(merged);
    if (!ok)
        return NULL;
    json_t *set = json_deep_copy(fields);
    if (x->engine >= 2 && json_is_integer(json_object_get(fields, "hp"))) {
        json_t *hf = hp_fields(x, num(fields, "hp"));
        json_object_update(set, hf);
        json_decref(hf);
    }
    return outcome(json_pack("{s:s}", "updated", id), json_pack("[o]", effect_set(id, set)));
}

static json_t *resolve_remove(struct resolve_ctx *x, json_t *in)
{
    const char *id = str(in, "id");
    if (find(x->state, id, NULL) == NULL) {
        svc_errors_add(x->e, "", "no combatant '%s'", id);
        return NULL;
    }
    return outcome(json_pack("{s:s}", "removed", id),
                   json_pack("[{s:s, s:s}]", "op", "remove", "id", id));
}

/* Draws one die from the event's seed or the caller's results. */
static bool draw(struct rules_dice *d, int sides, int *out, struct svc_errors *e)
{
    if (rules_dice_draw(d, sides, out) != RULES_DICE_OK) {
        svc_errors_add(e, "/results", "too few results, or one outside 1..%d", sides);
        return false;
    }
    return true;
}

static void open_dice(struct resolve_ctx *x, json_t *in, struct rules_dice *d, int *buf, size_t cap)
{
    json_t *results = json_object_get(in, "results");
    if (results == NULL) {
        rules_dice_from_seed(d, (uint64_t)event_seed(x->state, x->seq));
        return;
    }
    size_t n = 0;
    for (; n < json_array_size(results) && n < cap; n++)
        buf[n] = (int)json_integer_value(json_array_get(results, n));
    rules_dice_from_supplied(d, buf, n);
}

struct init_roll {
    json_t *c;
    int d20, total, dex, coin;
};

static int by_initiative(const void *pa, const void *pb)
{
    const struct init_roll *a = pa, *b = pb;
    /* 004: highest first; ties by Dexterity (highest first); then a coin. */
    if (a->total != b->total)
        return b->total - a->total;
    if (a->dex != b->dex)
        return b->dex - a->dex;
    return b->coin - a->coin;
}

/* 004 Initiative Check, the surprise round (Step One) and flat-footed. */
static json_t *resolve_initiative(struct resolve_ctx *x, json_t *in)
{
    if (json_is_true(json_object_get(x->state, "started"))) {
        svc_errors_add(x->e, "", "initiative has been rolled already");
        return NULL;
    }
    size_t n = json_array_size(combatants(x->state));
    if (n == 0) {
        svc_errors_add(x->e, "", "add combatants first");
        return NULL;
    }
    json_t *aware = json_object_get(in, "aware");
    size_t i;
    json_t *a;
    json_array_foreach(aware, i, a)
    {
        if (find(x->state, json_string_value(a), NULL) == NULL) {
            char p[48];
            snprintf(p, sizeof p, "/aware/%zu", i);
            svc_errors_add(x->e, p, "names no combatant");
        }
    }
    if (svc_errors_any(x->e))
        return NULL;
    struct init_roll *rolls = calloc(n, sizeof *rolls);
    int buf[2 * MAX_COMBATANTS];
    struct rules_dice d;
    open_dice(x, in, &d, buf, sizeof buf / sizeof buf[0]);
    json_t *c;
    json_array_foreach(combatants(x->state), i, c)
    {
        rolls[i].c = c;
        rolls[i].dex = (int)num(c, "dex");
        if (!draw(&d, 20, &rolls[i].d20, x->e) || !draw(&d, 2, &rolls[i].coin, x->e)) {
            free(rolls);
            return NULL;
        }
        rolls[i].total = rolls[i].d20 + (int)num(c, "initiative_modifier");
    }
    if (json_object_get(in, "results") && !rules_dice_all_used(&d)) {
        svc_errors_add(x->e, "/results", "more results than dice (a d20 and a coin each)");
        free(rolls);
        return NULL;
    }
    qsort(rolls, n, sizeof *rolls, by_initiative);
    /* "If no one or everyone starts the battle aware, there is no surprise round." */
    size_t na = json_array_size(aware);
    bool surprise = na > 0 && na < n;
    json_t *order = json_array(), *list = json_array(), *effects = json_array();
    for (i = 0; i < n; i++) {
        const char *id = str(rolls[i].c, "id");
        json_array_append_new(order, json_string(id));
        json_array_append_new(
            list, json_pack("{s:s, s:i, s:i, s:i, s:i, s:i}", "id", id, "d20", rolls[i].d20,
                            "modifier", (int)num(rolls[i].c, "initiative_modifier"), "total",
                            rolls[i].total, "dex", rolls[i].dex, "coin", rolls[i].coin));
        /* 004: "At the start of a battle each combatant is flat-footed." */
        json_array_append_new(
            effects,
            effect_set(id, json_pack("{s:o, s:i, s:o}", "conditions",
                                     conditions_with(rolls[i].c, "flat_footed", true), "initiative",
                                     rolls[i].total, "turn", json_object())));
    }
    json_t *aware_ids = json_array();
    json_array_foreach(aware, i, a)
    {
        json_array_append(aware_ids, a);
    }
    json_array_append_new(
        effects,
        effect_set("encounter", json_pack("{s:b, s:i, s:n, s:O, s:b, s:o}", "started", 1, "round",
                                          surprise ? 0 : 1, "turn", "order", order, "surprise",
                                          surprise, "aware", aware_ids)));
    free(rolls);
    return outcome(json_pack("{s:o, s:o, s:b, s:s}", "rolls", list, "order", order, "surprise",
                             surprise, "rule",
                             "004 Initiative Check: a Dexterity check; ties by Dexterity, then a "
                             "coin. Surprise round only when some but not all are aware."),
                   effects);
}

/* Whether the combatant at order index i acts in this round. */
static bool acts(json_t *state, size_t i)
{
    if (num(state, "round") != 0)
        return true;
    const char *id = json_string_value(json_array_get(json_object_get(state, "order"), i));
    size_t k;
    json_t *a;
    json_array_foreach(json_object_get(state, "aware"), k, a)
    {
        if (strcmp(json_string_value(a), id) == 0)
            return true;
    }
    return false;
}

/* 004 The Combat Round: the next combatant in initiative order; after the last, the highest
 * acts again in a new round. Its first turn ends its flat-footedness; effects that last a
 * number of rounds end just before the count they began on. */
static json_t *resolve_next_turn(struct resolve_ctx *x, json_t *in)
{
    (void)in;
    json_t *s = x->state;
    if (!json_is_true(json_object_get(s, "started"))) {
        svc_errors_add(x->e, "", "roll initiative first");
        return NULL;
    }
    size_t n = json_array_size(json_object_get(s, "order"));
    json_t *turn_v = json_object_get(s, "turn");
    long long round = num(s, "round");
    long long t = json_is_integer(turn_v) ? json_integer_value(turn_v) : -1;
    json_t *skipped = json_array();
    bool found = false;
    for (size_t guard = 0; guard <= 2 * n + 2 && !found; guard++) {
        t++;
        if (t >= (long long)n) {
            t = 0;
            round++;
        }
        json_t *probe =
            json_pack("{s:I, s:O}", "round", round, "aware", json_object_get(s, "aware"));
        json_object_set(probe, "order", json_object_get(s, "order"));
        found = acts(probe, (size_t)t);
        json_decref(probe);
        /* Engine 2: a dying or dead combatant's turn is skipped (d20 3.5 SRD: a dying
         * character "is unconscious and can take no actions"). */
        json_t *c =
            found && x->engine >= 2
                ? find(s, json_string_value(json_array_get(json_object_get(s, "order"), (size_t)t)),
                       NULL)
                : NULL;
        if (c != NULL && !rules_hp_acts(hp_state_of(x, c))) {
            found = false;
            if (json_array_size(skipped) < n)
                json_array_append_new(skipped,
                                      json_pack("{s:s, s:s}", "id", str(c, "id"), "hp_state",
                                                rules_hp_state_name(hp_state_of(x, c))));
        }
    }
    if (!found && x->engine >= 2) {
        json_decref(skipped);
        svc_errors_add(x->e, "", "no combatant can act: every one is dying or dead (%s)",
                       RULES_HP_SOURCE);
        return NULL;
    }
    const char *id = json_string_value(json_array_get(json_object_get(s, "order"), (size_t)t));
    json_t *effects = json_array();
    json_array_append_new(
        effects, effect_set("encounter", json_pack("{s:I, s:I}", "round", round, "turn", t)));
    json_t *ended = json_array();
    size_t i;
    json_t *c;
    json_array_foreach(combatants(s), i, c)
    {
        json_t *fields = json_object();
        json_t *conds = json_deep_copy(json_object_get(c, "conditions"));
        json_t *timed = json_array();
        size_t k;
        json_t *tm;
        json_array_foreach(json_object_get(c, "timed"), k, tm)
        {
            /* "end just before the same initiative count that they began on" */
            if (round > num(tm, "ends_round") ||
                (round == num(tm, "ends_round") && t >= num(tm, "ends_turn"))) {
                json_t *tmp = json_pack("{s:O}", "conditions", conds);
                json_decref(conds);
                conds = conditions_with(tmp, str(tm, "condition"), false);
                json_decref(tmp);
                json_array_append_new(ended, json_pack("{s:s, s:s}", "id", str(c, "id"),
                                                       "condition", str(tm, "condition")));
            } else {
                json_array_append(timed, tm);
            }
        }
        if (strcmp(str(c, "id"), id) == 0) {
            /* Its turn begins: no longer flat-footed; a new round of movement. */
            json_t *tmp = json_pack("{s:O}", "conditions", conds);
            json_decref(conds);
            conds = conditions_with(tmp, "flat_footed", false);
            json_decref(tmp);
            if (x->engine >= 2) {
                /* A fresh turn, with what it may spend: a partial action in the surprise
                 * round (004 Step One) or while disabled. */
                struct rules_turn fresh = {0};
                struct rules_turn_limits lim = {.partial = round == 0 ||
                                                           hp_state_of(x, c) == RULES_HP_DISABLED};
                json_object_set_new(fields, "turn", turn_fields(&fresh, &lim));
            } else {
                json_object_set_new(fields, "turn", json_object());
            }
        }
        if (!json_equal(conds, json_object_get(c, "conditions")))
            json_object_set(fields, "conditions", conds);
        if (json_array_size(timed) != json_array_size(json_object_get(c, "timed")))
            json_object_set(fields, "timed", timed);
        json_decref(conds);
        json_decref(timed);
        if (json_object_size(fields) > 0)
            json_array_append_new(effects, effect_set(str(c, "id"), fields));
        else
            json_decref(fields);
    }
    json_t *result =
        json_pack("{s:I, s:s, s:o, s:s}", "round", round, "turn_of", id, "ended", ended, "rule",
                  "004 The Combat Round: initiative order, then the highest again; "
                  "effects end just before the count they began on; 004 Flat-Footed "
                  "ends with one's first turn");
    if (x->engine >= 2)
        json_object_set_new(result, "skipped", skipped);
    else
        json_decref(skipped);
    return outcome(result, effects);
}

/* Engine 2: damage or healing from outside the fight, posted by the owner at any time (the
 * hp event). Healing stops at max_hp (d20 3.5 SRD, Healing: "can't restore hit points past
 * your full normal hit point total"). */
static json_t *resolve_hp(struct resolve_ctx *x, json_t *in)
{
    if (x->engine < 2) {
        svc_errors_add(x->e, "", "the hp event is ruled from engine 2 on");
        return NULL;
    }
    json_t *target = find(x->state, str(in, "target"), NULL);
    if (target == NULL) {
        svc_errors_add(x->e, "/target", "names no combatant");
        return NULL;
    }
    long long before = num(target, "hp"), max = num(target, "max_hp");
    long long after = json_object_get(in, "set") ? num(in, "set") : before + num(in, "change");
    bool capped = after > max && after > before;
    if (capped)
        after = before > max ? before : max;
    if (after < -100000)
        after = -100000;
    json_t *fields = hp_fields(x, after);
    json_t *result =
        json_pack("{s:s, s:I, s:I, s:b, s:s}", "target", str(target, "id"), "hp_before", before,
                  "hp", after, "capped_at_max", capped, "rule",
                  "hit points changed from outside the fight by the encounter's owner; "
                  "healing stops at max_hp (d20 3.5 SRD, Healing)");
    if (json_object_get(fields, "hp_state"))
        json_object_set(result, "hp_state", json_object_get(fields, "hp_state"));
    if (json_object_get(in, "reason"))
        json_object_set(result, "reason", json_object_get(in, "reason"));
    return outcome(result, json_pack("[o]", effect_set(str(target, "id"), fields)));
}

/* The combatant acting must be the one whose turn it is, once combat has started. */
static bool check_turn(struct resolve_ctx *x, const char *actor, bool out_of_turn)
{
    json_t *s = x->state;
    if (!json_is_true(json_object_get(s, "started")) || out_of_turn)
        return true;
    json_t *turn = json_object_get(s, "turn");
    const char *now = json_is_integer(turn)
                          ? json_string_value(json_array_get(json_object_get(s, "order"),
                                                             (size_t)json_integer_value(turn)))
                          : NULL;
    if (now == NULL || strcmp(now, actor) != 0) {
        svc_errors_add(x->e, "/actor", "it is %s's turn (004 The Combat Round)",
                       now ? now : "nobody");
        return false;
    }
    return true;
}

/* Asks a stateless endpoint's handler; on a refusal its errors go to x->e under prefix. */
/* A ruling's refusal (status not 200): its field errors go to x->e under prefix. */
static void refused(struct resolve_ctx *x, json_t *problem, const char *prefix, const char *what)
{
    if (problem != NULL)
        take_errors(problem, prefix, x->e);
    else
        svc_errors_add(x->e, "", "the %s could not be ruled", what);
}

/* Asks a stateless endpoint's handler; on a refusal its errors go to x->e under prefix. */
static json_t *ruled(struct resolve_ctx *x, svc_handler h, const char *path, json_t *body,
                     const char *prefix, const char *what, bool with_map)
{
    unsigned status = 0;
    json_t *ans = rule(x->req, h, path, body, with_map ? state_map(x) : NULL, &status);
    if (ans != NULL && status == 200)
        return ans;
    refused(x, ans, prefix, what);
    json_decref(ans);
    return NULL;
}

/* Rules an attack (body stolen) through POST /v1/attacks/resolve's handler. Returns its result
 * (NULL when handed over as text, see resolve_ctx) and fills f; false after a refusal. */
static bool ruled_attack(struct resolve_ctx *x, json_t *body, json_t **result,
                         struct svc_attack_facts *f)
{
    struct svc_request req = internal_request(x->req, "/v1/attacks/resolve", body, NULL);
    struct svc_response res;
    memset(&res, 0, sizeof res);
    svc_attack_resolve_facts(&req, &res, f);
    json_decref(body);
    *result = NULL;
    bool ok = res.status == 200 && res.body != NULL;
    if (ok && x->result_text != NULL) {
        *x->result_text = res.body; /* the handler's text, NUL-terminated (jw_finish) */
        res.body = NULL;
    } else {
        json_t *doc = res.body ? json_loadb(res.body, res.body_len, 0, NULL) : NULL;
        if (ok && doc != NULL)
            *result = doc;
        else {
            refused(x, doc, "/attack", "attack");
            json_decref(doc);
            ok = false;
        }
    }
    svc_response_clear(&res);
    return ok;
}

/* Whether actor's melee attack can reach target: 004 Threatened Area and 001 Reach (its
 * reach, or only the ring of its reach weapon). On its own action a combatant swings whether
 * or not it could make attacks of opportunity (flat-footed). */
static bool reaches(json_t *state, json_t *actor, json_t *target)
{
    struct rules_options o;
    state_rules(state, &o);
    struct svc_errors scratch;
    svc_errors_init(&scratch);
    struct rules_creature a, t;
    json_t *pa = placement(actor), *pt = placement(target);
    svc_decode_creature(pa, "", &o, true, NULL, &a, &scratch);
    svc_decode_creature(pt, "", &o, true, NULL, &t, &scratch);
    json_decref(pa);
    json_decref(pt);
    svc_errors_free(&scratch);
    a.can_threaten = true;
    return rules_threatens_creature(&o, &a, &t);
}

/* Engine 2: the open reaction of `by` to `mover`'s last move (set by action_move), or NULL.
 * *at gets its index in the state's reactions. */
static json_t *open_reaction(json_t *state, const char *mover, const char *by, size_t *at)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(state, "reactions"), i, r)
    {
        if (strcmp(str(r, "mover"), mover) == 0 && strcmp(str(r, "by"), by) == 0) {
            *at = i;
            return r;
        }
    }
    return NULL;
}

/* Attacks of opportunity a combatant may make a round: one (004 Making an Attack of
 * Opportunity: "a combatant can only make one per round"); with Combat Reflexes one more per
 * point of Dexterity bonus (d20 3.5 SRD, Combat Reflexes; 000 Combat Reflexes only adds flank
 * attacks without penalty). */
static long long aoo_allowed(json_t *c)
{
    long long dex = json_object_get(c, "dex") ? num(c, "dex") : 10;
    long long bonus = dex >= 10 ? (dex - 10) / 2 : 0;
    return flag(c, "combat_reflexes") ? 1 + bonus : 1;
}

static json_t *action_attack_on(struct resolve_ctx *x, json_t *in, json_t *actor, json_t *target,
                                json_t *reaction, size_t reaction_at);

static json_t *action_attack(struct resolve_ctx *x, json_t *in, json_t *actor)
{
    json_t *s = x->state;
    json_t *target = find(s, str(in, "target"), NULL);
    if (target == NULL) {
        svc_errors_add(x->e, "/target", "names no combatant");
        return NULL;
    }
    bool is_aoo = strcmp(str(in, "kind"), "attack_of_opportunity") == 0;
    /* Engine 2: an attack of opportunity answers a move that provoked it from this attacker,
     * before any other event, and strikes the mover in the square it was leaving (004
     * Provoking an Attack of Opportunity by Moving). */
    json_t *reaction = NULL;
    size_t reaction_at = 0;
    json_t *where = NULL; /* the target where the attack finds it */
    if (x->engine >= 2 && is_aoo) {
        reaction = open_reaction(s, str(target, "id"), str(actor, "id"), &reaction_at);
        if (reaction == NULL) {
            svc_errors_add(x->e, "/kind",
                           "'%s' provoked no attack of opportunity from '%s': one answers a move "
                           "that provoked it, before any other event (004 Attacks of "
                           "Opportunity)",
                           str(target, "id"), str(actor, "id"));
            return NULL;
        }
        where = json_copy(target);
        json_object_set(where, "x", json_object_get(reaction, "x"));
        json_object_set(where, "y", json_object_get(reaction, "y"));
        if (json_is_integer(json_object_get(reaction, "facing")))
            json_object_set(where, "facing", json_object_get(reaction, "facing"));
        target = where;
    }
    json_t *out = action_attack_on(x, in, actor, target, reaction, reaction_at);
    json_decref(where);
    return out;
}

/* The attack of actor on target (for an attack of opportunity under engine 2, the target as it
 * stood in the square it was leaving, and the reaction it answers). */
static json_t *action_attack_on(struct resolve_ctx *x, json_t *in, json_t *actor, json_t *target,
                                json_t *reaction, size_t reaction_at)
{
    json_t *s = x->state;
    json_t *attacks = json_object_get(actor, "attacks");
    json_t *atk = NULL;
    const char *name = str(in, "attack");
    size_t i;
    json_t *a;
    json_array_foreach(attacks, i, a)
    {
        if (*name == '\0' || strcmp(str(a, "name"), name) == 0) {
            atk = a;
            break;
        }
    }
    if (atk == NULL) {
        svc_errors_add(x->e, "/attack", "the actor has no such attack");
        return NULL;
    }
    const char *form = str(atk, "attack");
    if (strcmp(form, "ranged") != 0 && strcmp(form, "spell") != 0 && !reaches(s, actor, target)) {
        svc_errors_add(x->e, "/target",
                       "is out of reach of '%s': a melee attack reaches the squares its attacker "
                       "threatens (004 Threatened Area; 001 Reach)",
                       str(in, "attack")[0] ? str(in, "attack") : str(atk, "name"));
        return NULL;
    }
    bool aoo = strcmp(str(in, "kind"), "attack_of_opportunity") == 0;
    json_t *turn = json_object_get(actor, "turn");
    if (aoo) {
        /* 004: "a combatant can only make one per round"; flat-footed, none. */
        if (has_condition(actor, "flat_footed")) {
            svc_errors_add(x->e, "/kind",
                           "a flat-footed combatant can't make attacks of "
                           "opportunity (004 Flat-Footed)");
            return NULL;
        }
        if (x->engine >= 2) {
            long long made =
                json_object_get(actor, "aoo_round") && num(actor, "aoo_round") == num(s, "round")
                    ? (json_object_get(actor, "aoo_made") ? num(actor, "aoo_made") : 1)
                    : 0;
            if (made >= aoo_allowed(actor)) {
                svc_errors_add(x->e, "/kind",
                               "'%s' has made its %lld attack%s of opportunity this round (004 "
                               "Making an Attack of Opportunity; d20 3.5 SRD, Combat Reflexes)",
                               str(actor, "id"), made, made == 1 ? "" : "s");
                return NULL;
            }
        } else if (num(actor, "aoo_round") == num(s, "round") &&
                   json_object_get(actor, "aoo_round") &&
                   !json_is_true(json_object_get(actor, "combat_reflexes"))) {
            svc_errors_add(x->e, "/kind",
                           "one attack of opportunity a round (004 Making an "
                           "Attack of Opportunity)");
            return NULL;
        }
    }
    json_t *attacker = placement(actor);
    json_object_set(attacker, "attack_bonus", json_object_get(atk, "attack_bonus"));
    static const char *const akeys[] = {"damage",      "attack", "touch", "sneak_attack_dice",
                                        "rogue_level", NULL};
    for (int k = 0; akeys[k]; k++)
        if (json_object_get(atk, akeys[k]))
            json_object_set(attacker, akeys[k], json_object_get(atk, akeys[k]));
    if (aoo)
        json_object_set_new(attacker, "kind", json_string("attack_of_opportunity"));
    if (json_is_true(json_object_get(actor, "combat_reflexes")))
        json_object_set_new(attacker, "features", json_pack("[s]", "combat_reflexes"));
    if (has_condition(actor, "prone"))
        json_object_set_new(attacker, "conditions", json_pack("[s]", "prone"));
    json_t *defender = placement(target);
    json_object_set(defender, "defense", json_object_get(target, "defense"));
    if (json_object_get(target, "damage_reduction"))
        json_object_set(defender, "damage_reduction", json_object_get(target, "damage_reduction"));
    json_t *dconds = json_array();
    json_array_foreach(json_object_get(target, "conditions"), i, a)
    {
        /* Unconscious is tracked by the encounter; 002 rules it as helpless. */
        const char *cv = json_string_value(a);
        json_array_append_new(dconds,
                              json_string(strcmp(cv, "unconscious") == 0 ? "helpless" : cv));
    }
    json_object_set_new(defender, "conditions", dconds);
    json_t *allies = json_array();
    json_t *c;
    json_array_foreach(combatants(s), i, c)
    {
        if (c != actor && strcmp(str(c, "id"), str(target, "id")) != 0 &&
            strcmp(str(c, "side"), str(actor, "side")) == 0 && !is_down(c)) {
            json_t *p = placement(c);
            json_object_set_new(p, "can_threaten", json_boolean(!has_condition(c, "flat_footed")));
            json_array_append_new(allies, p);
        }
    }
    json_t *body = json_pack("{s:O, s:o, s:o, s:o}", "rules", json_object_get(s, "rules"),
                             "attacker", attacker, "defender", defender, "allies", allies);
    static const char *const pass[] = {"cover", "concealment", "results", NULL};
    for (int k = 0; pass[k]; k++)
        if (json_object_get(in, pass[k]))
            json_object_set(body, pass[k], json_object_get(in, pass[k]));
    if (!json_object_get(in, "results"))
        json_object_set_new(body, "seed", json_integer(event_seed(s, x->seq)));
    json_t *ans = NULL;
    struct svc_attack_facts facts = {0};
    if (!ruled_attack(x, body, &ans, &facts))
        return NULL;
    json_t *effects = json_array();
    long long hp_after = num(target, "hp") - (facts.to_defender ? facts.dealt : 0);
    if (facts.to_defender)
        json_array_append_new(effects, effect_set(str(target, "id"), hp_fields(x, hp_after)));
    if (aoo && x->engine >= 2) {
        long long made =
            json_object_get(actor, "aoo_round") && num(actor, "aoo_round") == num(s, "round")
                ? (json_object_get(actor, "aoo_made") ? num(actor, "aoo_made") : 1)
                : 0;
        json_array_append_new(
            effects,
            effect_set(str(actor, "id"), json_pack("{s:I, s:I}", "aoo_round", num(s, "round"),
                                                   "aoo_made", made + 1)));
        /* The reaction is answered. If the attack drops the mover (it no longer acts), its move
         * stops in the square it was leaving, and the reactions to later steps go with it. */
        bool stopped = !rules_hp_acts(
            rules_hp_state_of(rules_of(x), hp_after < -1000000 ? -1000000 : (int)hp_after));
        json_t *left = json_array();
        size_t k;
        json_t *r;
        json_array_foreach(json_object_get(s, "reactions"), k, r)
        {
            bool later = stopped && strcmp(str(r, "mover"), str(target, "id")) == 0 &&
                         num(r, "step") > num(reaction, "step");
            if (k != reaction_at && !later)
                json_array_append(left, r);
        }
        json_array_append_new(effects,
                              effect_set("encounter", json_pack("{s:o}", "reactions", left)));
        if (stopped)
            json_array_append_new(
                effects, effect_set(str(target, "id"),
                                    json_pack("{s:O, s:O}", "x", json_object_get(target, "x"), "y",
                                              json_object_get(target, "y"))));
    } else if (aoo) {
        json_array_append_new(effects, effect_set(str(actor, "id"), json_pack("{s:I}", "aoo_round",
                                                                              num(s, "round"))));
    } else
        json_array_append_new(
            effects,
            effect_set(
                str(actor, "id"),
                json_pack("{s:o}", "turn",
                          json_pack("{s:O, s:O, s:b}", "moved",
                                    json_object_get(turn, "moved") ? json_object_get(turn, "moved")
                                                                   : json_false(),
                                    "ran",
                                    json_object_get(turn, "ran") ? json_object_get(turn, "ran")
                                                                 : json_false(),
                                    "attacked", 1))));
    return outcome(ans, effects);
}

static json_t *action_move(struct resolve_ctx *x, json_t *in, json_t *actor, const char *mode)
{
    json_t *s = x->state;
    json_t *body = json_pack("{s:O, s:O, s:o, s:o, s:s, s:O}", "rules", json_object_get(s, "rules"),
                             "map", json_object_get(s, "map"), "creatures", map_creatures(s, actor),
                             "mover", mover_of(actor, json_object_get(actor, "turn")), "mode", mode,
                             "path", json_object_get(in, "path"));
    if (json_object_get(in, "end_facing"))
        json_object_set(body, "end_facing", json_object_get(in, "end_facing"));
    if (json_object_get(in, "withdraw"))
        json_object_set(body, "withdraw", json_object_get(in, "withdraw"));
    json_t *ans = ruled(x, svc_handle_move_path, "/v1/movement/path", body, "/path", "move", true);
    if (ans == NULL)
        return NULL;
    if (!json_is_true(json_object_get(ans, "legal"))) {
        size_t i;
        json_t *v;
        json_array_foreach(json_object_get(ans, "violations"), i, v)
        {
            char p[48];
            json_t *step = json_object_get(v, "step");
            if (json_is_integer(step))
                snprintf(p, sizeof p, "/path/%lld", json_integer_value(step));
            else
                snprintf(p, sizeof p, "/mode");
            svc_errors_add(x->e, p, "%s (%s)", str(v, "message"), str(v, "source"));
        }
        json_decref(ans);
        return NULL;
    }
    json_t *end = json_object_get(ans, "end");
    json_t *fields = json_object();
    bool hex = json_object_get(end, "q") != NULL;
    json_object_set(fields, "x", json_object_get(end, hex ? "q" : "x"));
    json_object_set(fields, "y", json_object_get(end, hex ? "r" : "y"));
    if (json_is_integer(json_object_get(end, "facing")))
        json_object_set(fields, "facing", json_object_get(end, "facing"));
    json_t *turn = json_deep_copy(json_object_get(actor, "turn"));
    if (turn == NULL)
        turn = json_object();
    if (strcmp(mode, "five_foot_step") == 0) {
        json_object_set_new(turn, "stepped", json_true());
    } else {
        json_object_set_new(turn, "moved", json_true());
        if (strcmp(mode, "run") == 0)
            json_object_set_new(turn, "ran", json_true());
    }
    json_object_set_new(fields, "turn", turn);
    /* 001 Run: flat-footed until the start of its next turn, unless it has Runner. */
    if (strcmp(mode, "run") == 0 && !json_is_true(json_object_get(actor, "runner")))
        json_object_set_new(fields, "conditions", conditions_with(actor, "flat_footed", true));
    json_t *effects = json_pack("[o]", effect_set(str(actor, "id"), fields));
    if (x->engine >= 2) {
        /* Each attack of opportunity the move provoked (004 Provoking an Attack of Opportunity
         * by Moving, under the start_square option, withdraw's primary target excluded by the
         * ruling) is open until the next event: the enemy may answer it then, striking the
         * mover in the square it was leaving. */
        json_t *open = json_array();
        size_t i;
        json_t *a;
        json_array_foreach(json_object_get(ans, "attacks_of_opportunity"), i, a)
        {
            json_t *leaving = json_object_get(a, "leaving");
            json_array_append_new(
                open,
                json_pack("{s:s, s:O, s:I, s:O, s:O, s:O}", "mover", str(actor, "id"), "by",
                          json_object_get(a, "creature"), "step", num(a, "step"), "x",
                          json_object_get(leaving, "x"), "y", json_object_get(leaving, "y"),
                          "facing",
                          json_object_get(a, "mover_facing") ? json_object_get(a, "mover_facing")
                                                             : json_null()));
        }
        json_array_append_new(effects,
                              effect_set("encounter", json_pack("{s:o}", "reactions", open)));
    }
    return outcome(ans, effects);
}

static json_t *action_forced(struct resolve_ctx *x, json_t *in, json_t *actor)
{
    json_t *s = x->state;
    json_t *target = find(s, str(in, "target"), NULL);
    if (target == NULL) {
        svc_errors_add(x->e, "/target", "names no combatant");
        return NULL;
    }
    json_t *others = map_creatures(s, target); /* everyone else, as /v1/movement takes them */
    json_t *t = placement(target);
    static const char *const tkeys[] = {"reduction_squares", "fall_prone_at", "voluntarily_prone",
                                        NULL};
    for (int k = 0; tkeys[k]; k++)
        if (json_object_get(in, tkeys[k]))
            json_object_set(t, tkeys[k], json_object_get(in, tkeys[k]));
    json_t *body =
        json_pack("{s:O, s:O, s:o, s:o, s:o, s:O, s:O, s:O}", "rules", json_object_get(s, "rules"),
                  "map", json_object_get(s, "map"), "creatures", others, "target", t, "attacker",
                  placement(actor), "kind", json_object_get(in, "kind"), "squares",
                  json_object_get(in, "squares"), "path", json_object_get(in, "path"));
    json_t *ans =
        ruled(x, svc_handle_move_forced, "/v1/movement/forced", body, "", "forced movement", true);
    if (ans == NULL)
        return NULL;
    json_t *end = json_object_get(ans, "end");
    json_t *fields = json_object();
    bool hex = json_object_get(end, "q") != NULL;
    json_object_set(fields, "x", json_object_get(end, hex ? "q" : "x"));
    json_object_set(fields, "y", json_object_get(end, hex ? "r" : "y"));
    json_object_set(fields, "z", json_object_get(end, "z"));
    if (json_is_true(json_object_get(ans, "prone")))
        json_object_set_new(fields, "conditions", conditions_with(target, "prone", true));
    return outcome(ans, json_pack("[o]", effect_set(str(target, "id"), fields)));
}

static json_t *action_fall(struct resolve_ctx *x, json_t *in, json_t *actor)
{
    json_t *s = x->state;
    json_t *body = json_pack("{s:O}", "rules", json_object_get(s, "rules"));
    static const char *const keys[] = {
        "height_ft",      "surface", "per_die",      "deliberate", "acrobatics_success",
        "water_depth_ft", "dive",    "dive_success", "results",    NULL};
    for (int k = 0; keys[k]; k++)
        if (json_object_get(in, keys[k]))
            json_object_set(body, keys[k], json_object_get(in, keys[k]));
    if (json_object_get(actor, "damage_reduction"))
        json_object_set(body, "damage_reduction", json_object_get(actor, "damage_reduction"));
    if (!json_object_get(in, "results"))
        json_object_set_new(body, "seed", json_integer(event_seed(s, x->seq)));
    json_t *ans = ruled(x, svc_handle_falling, "/v1/falling", body, "", "fall", false);
    if (ans == NULL)
        return NULL;
    json_t *fields = hp_fields(x, num(actor, "hp") - num(ans, "damage"));
    size_t i;
    json_t *cv;
    json_array_foreach(json_object_get(ans, "conditions"), i, cv)
    {
        if (strcmp(json_string_value(cv), "prone") == 0)
            json_object_set_new(fields, "conditions", conditions_with(actor, "prone", true));
    }
    return outcome(ans, json_pack("[o]", effect_set(str(actor, "id"), fields)));
}

static json_t *resolve_action_kind(struct resolve_ctx *x, json_t *in, json_t *actor, int type);

static json_t *resolve_action(struct resolve_ctx *x, json_t *in)
{
    static const char *const types[] = {"attack", "move",      "five_foot_step", "facing", "forced",
                                        "fall",   "condition", "stand_up",       NULL};
    static const char *const known[] = {"type",
                                        "actor",
                                        "target",
                                        "attack",
                                        "kind",
                                        "cover",
                                        "concealment",
                                        "results",
                                        "path",
                                        "mode",
                                        "end_facing",
                                        "withdraw",
                                        "facing",
                                        "squares",
                                        "reduction_squares",
                                        "fall_prone_at",
                                        "voluntarily_prone",
                                        "height_ft",
                                        "surface",
                                        "per_die",
                                        "deliberate",
                                        "acrobatics_success",
                                        "water_depth_ft",
                                        "dive",
                                        "dive_success",
                                        "condition",
                                        "rounds",
                                        NULL};
    codec_reject_unknown(in, "", known, x->e);
    int type = codec_get_enum(in, "", "type", types, true, -1, x->e);
    const char *actor_id = NULL;
    codec_get_string(in, "", "actor", true, 64, &actor_id, x->e);
    json_t *actor = actor_id ? find(x->state, actor_id, NULL) : NULL;
    if (actor_id != NULL && actor == NULL)
        svc_errors_add(x->e, "/actor", "names no combatant");
    if (svc_errors_any(x->e) || type < 0 || actor == NULL)
        return NULL;
    bool aoo = type == 0 && strcmp(str(in, "kind"), "attack_of_opportunity") == 0;
    /* Forced movement and falls happen to a creature whenever they happen. */
    if (!check_turn(x, actor_id, aoo || type == 4 || type == 5))
        return NULL;
    if (type != 4 && type != 5 && is_down(actor)) {
        enum rules_hp_state hs = hp_state_of(x, actor);
        if (!rules_hp_acts(hs))
            svc_errors_add(x->e, "/actor", "is %s at %lld hp: it takes no actions (%s)",
                           rules_hp_state_name(hs), num(actor, "hp"), RULES_HP_SOURCE);
        else
            svc_errors_add(x->e, "/actor", "is unconscious or helpless");
        return NULL;
    }
    if (type == 7 && x->engine < 2) {
        svc_errors_add(x->e, "/type", "stand_up is ruled from engine 2 on");
        return NULL;
    }
    if (type == 7 && !has_condition(actor, "prone")) {
        svc_errors_add(x->e, "/actor", "is not prone");
        return NULL;
    }
    /* Engine 2: the action economy, once initiative has been rolled. Attacks of opportunity
     * are reactions, and forced movement, falls and conditions happen to a creature: none of
     * them spends the actor's turn. */
    json_t *budget = NULL;
    if (x->engine >= 2 && flag(x->state, "started") && !aoo && type != 4 && type != 5 &&
        type != 6) {
        static const char *const modes[] = {"move",     "double_move", "run", "charge",
                                            "withdraw", "crawl",       NULL};
        static const enum rules_action by_mode[] = {RULES_ACTION_MOVE,     RULES_ACTION_DOUBLE_MOVE,
                                                    RULES_ACTION_RUN,      RULES_ACTION_CHARGE,
                                                    RULES_ACTION_WITHDRAW, RULES_ACTION_CRAWL};
        enum rules_action a = RULES_ACTION_ATTACK;
        if (type == 1) {
            int m = codec_get_enum(in, "", "mode", modes, false, 0, x->e);
            if (m < 0)
                return NULL;
            a = by_mode[m];
        } else if (type == 2) {
            a = RULES_ACTION_FIVE_FOOT_STEP;
        } else if (type == 3) {
            a = RULES_ACTION_FACING;
        } else if (type == 7) {
            a = RULES_ACTION_STAND_UP;
        }
        if ((budget = spend_action(x, actor, a)) == NULL)
            return NULL;
    }
    json_t *out = resolve_action_kind(x, in, actor, type);
    if (budget != NULL && out != NULL)
        stamp_turn(out, actor, budget);
    else
        json_decref(budget);
    return out;
}

/* The action of `type` (resolve_action's types) by actor, once its turn and budget allow it. */
static json_t *resolve_action_kind(struct resolve_ctx *x, json_t *in, json_t *actor, int type)
{
    const char *actor_id = str(actor, "id");
    switch (type) {
    case 0: {
        const char *t = NULL;
        if (!codec_get_string(in, "", "target", true, 64, &t, x->e))
            return NULL;
        return action_attack(x, in, actor);
    }
    case 1:
    case 2:
    case 4: {
        json_t *path = NULL;
        codec_get_array(in, "", "path", true, RULES_MAX_PATH, &path, x->e);
        if (type == 4) {
            long long sq = 0;
            codec_get_string(in, "", "target", true, 64, &actor_id, x->e);
            codec_get_int(in, "", "squares", true, 1, RULES_FORCED_MAX, &sq, x->e);
            static const char *const kinds[] = {"push", "pull", "slide", NULL};
            codec_get_enum(in, "", "kind", kinds, true, 0, x->e);
        }
        if (svc_errors_any(x->e))
            return NULL;
        if (type == 2)
            return action_move(x, in, actor, "five_foot_step");
        if (type == 4)
            return action_forced(x, in, actor);
        static const char *const modes[] = {"move",     "double_move", "run", "charge",
                                            "withdraw", "crawl",       NULL};
        int m = codec_get_enum(in, "", "mode", modes, false, 0, x->e);
        if (svc_errors_any(x->e))
            return NULL;
        return action_move(x, in, actor, modes[m]);
    }
    case 3: {
        long long f = 0;
        if (!codec_get_int(in, "", "facing", true, 0, 7, &f, x->e))
            return NULL;
        /* 000 Changing Facing: once as a free action, or as a move action. */
        return outcome(json_pack("{s:I, s:s}", "facing", f, "rule", "000 Changing Facing"),
                       json_pack("[o]", effect_set(actor_id, json_pack("{s:I}", "facing", f))));
    }
    case 5: {
        long long h = 0;
        if (!codec_get_int(in, "", "height_ft", true, 0, 1000000, &h, x->e))
            return NULL;
        return action_fall(x, in, actor);
    }
    case 6: {
        /* A condition for a number of rounds: 004's "Effects that last a certain number of
         * rounds end just before the same initiative count that they began on." */
        json_t *target = find(x->state, str(in, "target"), NULL);
        int ci = codec_get_enum(in, "", "condition", defender_conditions, true, -1, x->e);
        long long rounds = 0;
        bool timed = codec_get_int(in, "", "rounds", false, 1, 1000, &rounds, x->e);
        if (target == NULL)
            svc_errors_add(x->e, "/target", "names no combatant");
        if (svc_errors_any(x->e) || ci < 0 || target == NULL)
            return NULL;
        json_t *fields = json_pack("{s:o}", "conditions",
                                   conditions_with(target, defender_conditions[ci], true));
        if (timed) {
            json_t *list = json_deep_copy(json_object_get(target, "timed"));
            if (list == NULL)
                list = json_array();
            json_t *turn = json_object_get(x->state, "turn");
            json_array_append_new(
                list, json_pack("{s:s, s:I, s:I}", "condition", defender_conditions[ci],
                                "ends_round", num(x->state, "round") + rounds, "ends_turn",
                                json_is_integer(turn) ? json_integer_value(turn) : 0));
            json_object_set_new(fields, "timed", list);
        }
        return outcome(json_pack("{s:s, s:s, s:I, s:s}", "target", str(target, "id"), "condition",
                                 defender_conditions[ci], "rounds", rounds, "rule",
                                 "004: effects that last a number of rounds end just before the "
                                 "same initiative count that they began on"),
                       json_pack("[o]", effect_set(str(target, "id"), fields)));
    }
    case 7: {
        /* 001 Part of a Move Action: "standing up from Prone" takes a move action (its budget
         * and the prone check come first, in resolve_action). */
        return outcome(
            json_pack("{s:s, s:s}", "stood_up", actor_id, "rule",
                      "001 Part of a Move Action: standing up from Prone takes a move "
                      "action"),
            json_pack("[o]",
                      effect_set(actor_id, json_pack("{s:o}", "conditions",
                                                     conditions_with(actor, "prone", false)))));
    }
    default:
        return NULL;
    }
}

/* Reveals the seed and the salt of its commitment, so that anyone can check every roll of the
 * log (provably fair dice). It ends the encounter: with the seed known, every roll to come
 * could be predicted, so resolve() refuses any event after it. */
static json_t *resolve_reveal(struct resolve_ctx *x)
{
    json_t *s = x->state;
    json_t *result = json_pack("{s:O, s:s}", "seed", json_object_get(s, "seed"), "rule",
                               "the seed behind every roll; SHA-256 of \"<seed_salt>:<seed>\" is "
                               "the seed_commitment shown since creation");
    if (json_object_get(s, "seed_salt") != NULL) {
        json_object_set(result, "seed_salt", json_object_get(s, "seed_salt"));
        json_object_set(result, "seed_commitment", json_object_get(s, "seed_commitment"));
    }
    return outcome(result,
                   json_pack("[o]", effect_set("encounter", json_pack("{s:b}", "revealed", 1))));
}

/* The shape of each event kind's input, checked before it is resolved, wherever it came from:
 * a live request (whose handler built it from the body and the path), an imported log, or
 * the stored log that verify re-resolves. So an import can only hold what the live operations
 * would have accepted, and no resolver meets a member of the wrong type. */
static bool check_input(const char *kind, json_t *in, struct svc_errors *e)
{
    size_t before = json_array_size(e->list);
    if (!codec_expect_object(in, "", e))
        return false;
    const char *s = NULL;
    if (strcmp(kind, "combatant_added") == 0 || strcmp(kind, "action") == 0) {
        /* check_combatant and resolve_action check every member themselves. */
    } else if (strcmp(kind, "combatant_updated") == 0) {
        static const char *const known[] = {"id", "fields", NULL};
        codec_reject_unknown(in, "", known, e);
        codec_get_string(in, "", "id", true, 64, &s, e);
        json_t *fields = json_object_get(in, "fields");
        if (fields == NULL)
            svc_errors_add(e, "/fields", "is required");
        else
            codec_expect_object(fields, "/fields", e);
    } else if (strcmp(kind, "combatant_removed") == 0) {
        static const char *const known[] = {"id", NULL};
        codec_reject_unknown(in, "", known, e);
        codec_get_string(in, "", "id", true, 64, &s, e);
    } else if (strcmp(kind, "initiative") == 0) {
        static const char *const known[] = {"aware", "results", NULL};
        codec_reject_unknown(in, "", known, e);
        json_t *list;
        if (codec_get_array(in, "", "aware", false, MAX_COMBATANTS, &list, e)) {
            size_t i;
            json_t *v;
            json_array_foreach(list, i, v)
            {
                if (!json_is_string(v)) {
                    char p[32];
                    snprintf(p, sizeof p, "/aware/%zu", i);
                    svc_errors_add(e, p, "must be a combatant id");
                }
            }
        }
        if (codec_get_array(in, "", "results", false, 2 * MAX_COMBATANTS, &list, e)) {
            size_t i;
            json_t *v;
            json_array_foreach(list, i, v)
            {
                if (!json_is_integer(v) || json_integer_value(v) < 1 ||
                    json_integer_value(v) > 20) {
                    char p[32];
                    snprintf(p, sizeof p, "/results/%zu", i);
                    svc_errors_add(e, p, "must be a die result");
                }
            }
        }
    } else if (strcmp(kind, "hp") == 0) {
        static const char *const known[] = {"target", "change", "set", "reason", NULL};
        codec_reject_unknown(in, "", known, e);
        long long v = 0;
        codec_get_string(in, "", "target", true, 64, &s, e);
        bool change = codec_get_int(in, "", "change", false, -100000, 100000, &v, e);
        bool set = codec_get_int(in, "", "set", false, -100000, 100000, &v, e);
        if (change == set && json_object_get(in, "change") == NULL &&
            json_object_get(in, "set") == NULL)
            svc_errors_add(e, "", "give change (damage below 0, healing above) or set");
        else if (json_object_get(in, "change") != NULL && json_object_get(in, "set") != NULL)
            svc_errors_add(e, "/set", "give change or set, not both");
        codec_get_string(in, "", "reason", false, 200, &s, e);
    } else if (strcmp(kind, "next_turn") == 0 || strcmp(kind, "revealed") == 0) {
        if (json_object_size(in) > 0)
            svc_errors_add(e, "", "takes no members");
    } else {
        svc_errors_add(e, "", "unknown event kind '%s'", kind);
    }
    return json_array_size(e->list) == before;
}

static json_t *resolve_hp(struct resolve_ctx *x, json_t *in);

/* Resolves an event of `kind` against state (the state before it), after checking its input
 * (check_input). With result_text, the result may come back as text there instead of in the
 * outcome (resolve_ctx). */
static json_t *resolve(const struct svc_request *req, struct enc_cache *cache, json_t *state,
                       const char *kind, json_t *in, long long seq, int engine,
                       struct svc_errors *e, char **result_text)
{
    struct resolve_ctx x = {.req = req,
                            .cache = cache,
                            .state = state,
                            .seq = seq,
                            .engine = engine,
                            .e = e,
                            .result_text = result_text};
    if (engine < 1 || engine > ENGINE_VERSION) {
        svc_errors_add(e, "", "engine %d is not one this server rules (1 to %d)", engine,
                       ENGINE_VERSION);
        return NULL;
    }
    if (!check_input(kind, in, e))
        return NULL;
    if (json_is_true(json_object_get(state, "revealed"))) {
        svc_errors_add(e, "",
                       "the encounter is finished: its seed was revealed, so its rolls are no "
                       "longer secret");
        return NULL;
    }
    json_t *out = NULL;
    if (strcmp(kind, "revealed") == 0)
        out = resolve_reveal(&x);
    else if (strcmp(kind, "combatant_added") == 0)
        out = resolve_add(&x, in);
    else if (strcmp(kind, "combatant_updated") == 0)
        out = resolve_update(&x, in);
    else if (strcmp(kind, "combatant_removed") == 0)
        out = resolve_remove(&x, in);
    else if (strcmp(kind, "initiative") == 0)
        out = resolve_initiative(&x, in);
    else if (strcmp(kind, "next_turn") == 0)
        out = resolve_next_turn(&x, in);
    else if (strcmp(kind, "action") == 0)
        out = resolve_action(&x, in);
    else if (strcmp(kind, "hp") == 0)
        out = resolve_hp(&x, in);
    else
        svc_errors_add(e, "", "unknown event kind '%s'", kind);
    /* Engine 2: the reactions a move left open last only until the next event that is not one
     * of them (an attack of opportunity consumes its own). */
    bool answers = strcmp(kind, "action") == 0 && strcmp(str(in, "type"), "attack") == 0 &&
                   strcmp(str(in, "kind"), "attack_of_opportunity") == 0;
    if (out != NULL && engine >= 2 && !answers &&
        json_array_size(json_object_get(state, "reactions")) > 0)
        json_array_insert_new(json_object_get(out, "effects"), 0,
                              effect_set("encounter", json_pack("{s:[]}", "reactions")));
    return out;
}

/* ---- HTTP plumbing: auth, versions, replays ---- */

static void etag_of(int64_t version, char *out, size_t n)
{
    snprintf(out, n, "\"v%lld\"", (long long)version);
}

/* The If-Match version: >= 0, -1 when absent, -2 when unreadable. */
static int64_t if_match(const struct svc_request *req)
{
    const char *h = svc_request_header(req, "If-Match");
    if (h == NULL)
        return -1;
    long long v = -1;
    char tail = 0;
    if (sscanf(h, "\"v%lld\"%c", &v, &tail) != 1 || v < 0)
        return -2;
    return v;
}

/* The bearer token's hash; false (with the 401 in res) when absent or malformed. */
static bool bearer(const struct svc_request *req, struct svc_response *res,
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
static bool client_token(const struct svc_request *req, struct svc_response *res,
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
    return bearer(req, res, hash);
}

/* Whether the request carries the loaded encounter's own token (reads answer more to it). */
static bool is_owner(const struct svc_request *req, const struct db_encounter *enc)
{
    size_t n = 0;
    const char *t = auth_bearer(svc_request_header(req, "Authorization"), &n);
    if (t == NULL)
        return false;
    unsigned char hash[AUTH_HASH_LEN];
    auth_sha256(t, n, hash);
    return auth_equal(hash, enc->token_hash, AUTH_HASH_LEN);
}

static bool db_failed(struct svc_response *res, int rc)
{
    if (rc == DB_OK)
        return false;
    if (rc == DB_ERR_NOT_FOUND)
        svc_problem(res, SVC_PROBLEM_NOT_FOUND, "no such encounter", NULL);
    else
        svc_problem(res, SVC_PROBLEM_NOT_READY, "the database did not answer; try again", NULL);
    return true;
}

static bool id_ok(const char *id)
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
static bool load(const struct svc_request *req, struct svc_response *res, struct db_encounter *enc,
                 json_t **state, size_t *text_len)
{
    const char *id = req->params[0];
    if (!id_ok(id)) {
        svc_problem(res, SVC_PROBLEM_NOT_FOUND, "no such encounter", NULL);
        return false;
    }
    if (db_failed(res, db_encounter_get(req->ctx->db, id, enc)))
        return false;
    *state = json_loads(enc->state_json, 0, NULL);
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

/* A write's three texts, each value written once: the event's payload {input, result,
 * effects} for the log, the new state, and the answer {id, version, event {seq, kind, result},
 * state}, which embeds the result and the state already written. The result is ev's, or
 * result_text when the ruling handed it over as text; *state_len gets the state text's length.
 * All NULL when out of memory. */
static void event_texts(const char *id, int64_t seq, const char *kind, json_t *in, json_t *ev,
                        const char *result_text, json_t *state, char **payload, char **state_text,
                        size_t *state_len, char **answer)
{
    size_t rn = 0, sn = 0, n = 0;
    char *dumped = result_text ? NULL : jw_dump(json_object_get(ev, "result"), &rn);
    const char *result = result_text ? result_text : dumped;
    if (result_text != NULL)
        rn = strlen(result_text);
    *state_text = jw_dump(state, &sn);
    *payload = *answer = NULL;
    if (result != NULL && *state_text != NULL) {
        struct jw w;
        jw_init(&w, rn + 512);
        jw_object_begin(&w);
        JW_KEY(&w, "engine");
        jw_int(&w, ENGINE_VERSION);
        JW_KEY(&w, "input");
        jw_json(&w, in);
        JW_KEY(&w, "result");
        jw_raw(&w, result, rn);
        JW_KEY(&w, "effects");
        jw_json(&w, json_object_get(ev, "effects"));
        jw_object_end(&w);
        *payload = jw_finish(&w, &n);
        jw_init(&w, rn + sn + 256);
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
        jw_object_end(&w);
        JW_KEY(&w, "state");
        jw_raw(&w, *state_text, sn);
        jw_object_end(&w);
        *answer = jw_finish(&w, &n);
    }
    free(dumped);
    if (*payload == NULL || *answer == NULL) {
        free(*payload);
        free(*state_text);
        free(*answer);
        *payload = *state_text = *answer = NULL;
        sn = 0;
    }
    *state_len = sn;
}

static void respond_with_etag(struct svc_response *res, unsigned status, json_t *doc,
                              int64_t version)
{
    svc_respond_json(res, status, doc);
    char etag[32];
    etag_of(version, etag, sizeof etag);
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

struct replay_acc {
    json_t *state;  /* the fold so far */
    json_t *result; /* the last event's ruling */
    char kind[32];
};

static int replay_item(void *ud, int64_t seq, const char *kind, const char *payload,
                       const char *created_at)
{
    (void)seq, (void)created_at;
    struct replay_acc *a = ud;
    json_t *p = json_loads(payload, 0, NULL);
    fold(a->state, json_object_get(p, "effects"));
    json_decref(a->result);
    a->result = json_incref(json_object_get(p, "result"));
    snprintf(a->kind, sizeof a->kind, "%s", kind);
    json_decref(p);
    return 0;
}

/* Answers a retry from its key: the first answer, rebuilt from the event it made and the state
 * after it (the fold of the log up to it), or 409 when the key came with another request.
 * Always true (it answered). */
static bool replayed(const struct svc_request *req, struct svc_response *res, struct db_replay *r)
{
    unsigned char h[AUTH_HASH_LEN];
    request_hash(req, h);
    if (!auth_equal(h, r->request_hash, AUTH_HASH_LEN)) {
        svc_problem(res, SVC_PROBLEM_CONFLICT,
                    "this Idempotency-Key was used with a different request", NULL);
        return true;
    }
    struct replay_acc a = {.state = json_object()};
    int rc = db_events(req->ctx->db, r->encounter_id, 0, r->version, INT32_MAX, replay_item, &a);
    if (rc == DB_OK && a.result == NULL)
        rc = DB_ERR_NOT_FOUND;
    if (!db_failed(res, rc)) {
        json_t *doc =
            json_pack("{s:s, s:I}", "id", r->encounter_id, "version", (json_int_t)r->version);
        if (strcmp(a.kind, "created") != 0)
            json_object_set_new(doc, "event",
                                json_pack("{s:I, s:s, s:O}", "seq", (json_int_t)r->version, "kind",
                                          a.kind, "result", a.result));
        json_object_set(doc, "state", a.state);
        respond_with_etag(res, (unsigned)r->status, doc, r->version);
        svc_response_add_header(res, "Idempotent-Replayed", "true");
    }
    json_decref(a.state);
    json_decref(a.result);
    return true;
}

/* Reads Idempotency-Key into r (scope: the token's hash). Returns false after answering
 * (a replay, a bad key, or a database failure); *use says whether a key was given. */
static bool idempotency(const struct svc_request *req, struct svc_response *res,
                        const unsigned char scope[AUTH_HASH_LEN], struct db_replay *r, bool *use)
{
    const char *key = svc_request_header(req, "Idempotency-Key");
    *use = key != NULL;
    if (key == NULL)
        return true;
    size_t n = strlen(key);
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
        return !replayed(req, res, r);
    if (rc != DB_ERR_NOT_FOUND) {
        db_failed(res, rc);
        return false;
    }
    request_hash(req, r->request_hash);
    return true;
}

/* Authorizes a write to the loaded encounter: its own token. */
static bool authorize_owner(const struct svc_request *req, struct svc_response *res,
                            const struct db_encounter *enc, unsigned char hash[AUTH_HASH_LEN])
{
    if (!bearer(req, res, hash))
        return false;
    if (!auth_equal(hash, enc->token_hash, AUTH_HASH_LEN)) {
        svc_problem(res, SVC_PROBLEM_FORBIDDEN, NULL, NULL);
        return false;
    }
    return true;
}

/* Checks If-Match against the loaded encounter's version. */
static bool check_if_match(const struct svc_request *req, struct svc_response *res,
                           const struct db_encounter *enc)
{
    int64_t v = if_match(req);
    if (v == -1) {
        svc_problem(res, SVC_PROBLEM_PRECONDITION_REQUIRED, NULL, NULL);
        return false;
    }
    if (v != enc->version) {
        char detail[128];
        snprintf(detail, sizeof detail, "the encounter is at version %lld",
                 (long long)enc->version);
        svc_problem(res, SVC_PROBLEM_PRECONDITION_FAILED, detail, NULL);
        char etag[32];
        etag_of(enc->version, etag, sizeof etag);
        svc_response_add_header(res, "ETag", etag);
        return false;
    }
    return true;
}

/* The encounter a write acts on, with its state: from the state cache when it holds the
 * version If-Match names (no read, no parse), else from the database. False after answering. */
static bool load_for_write(const struct svc_request *req, struct svc_response *res,
                           struct db_encounter *enc, json_t **state, size_t *text_len)
{
    int64_t v = if_match(req);
    const char *id = req->params[0];
    if (v > 0 && id_ok(id) && strlen(id) < sizeof enc->id) {
        memset(enc, 0, sizeof *enc);
        *state = svc_state_cache_take(req->ctx->states, id, v, enc->token_hash, text_len);
        if (*state != NULL) {
            memcpy(enc->id, id, strlen(id) + 1);
            enc->version = v;
            return true;
        }
    }
    return load(req, res, enc, state, text_len);
}

/* Resolves one event on the stored encounter and appends it: the common path of every write
 * after creation. `in` is stolen. The state goes back to the cache afterwards: the new one
 * after a commit, the unchanged one after a refusal, none when it was changed but not stored. */
static void write_event(const struct svc_request *req, struct svc_response *res, const char *kind,
                        json_t *in, unsigned status)
{
    struct db_encounter enc;
    json_t *state = NULL, *ev = NULL;
    unsigned char hash[AUTH_HASH_LEN];
    struct db_replay replay;
    bool use_replay = false, folded = false;
    char *answer_text = NULL, *result_text = NULL;
    size_t state_len = 0;
    int rc = DB_ERR_NOMEM;
    struct svc_errors e;
    svc_errors_init(&e);
    /* A retry with its Idempotency-Key gets its first answer even though the version has
     * moved on since: the key is looked up before If-Match is checked. */
    if (!load_for_write(req, res, &enc, &state, &state_len))
        goto out;
    if (!authorize_owner(req, res, &enc, hash) ||
        !idempotency(req, res, hash, &replay, &use_replay) || !check_if_match(req, res, &enc))
        goto out;
    int64_t seq = enc.version + 1, current = 0;
    struct enc_cache cache = {0};
    ev = resolve(req, &cache, state, kind, in, seq, ENGINE_VERSION, &e, &result_text);
    enc_cache_free(&cache);
    if (ev == NULL) {
        if (!svc_errors_any(&e))
            svc_errors_add(&e, "", "the request cannot be applied");
        svc_errors_respond(&e, res);
        goto out;
    }
    fold(state, json_object_get(ev, "effects"));
    folded = true;
    char *payload_text = NULL, *state_text = NULL;
    event_texts(enc.id, seq, kind, in, ev, result_text, state, &payload_text, &state_text,
                &state_len, &answer_text);
    if (payload_text && state_text && answer_text) {
        replay.status = (int)status;
        replay.version = seq;
        rc = db_encounter_append(req->ctx->db, enc.id, enc.version, kind, payload_text, state_text,
                                 use_replay ? &replay : NULL, &current);
    }
    free(payload_text);
    free(state_text);
    if (rc == DB_OK) {
        svc_respond_raw(res, status, "application/json", answer_text, strlen(answer_text));
        char etag[32];
        etag_of(seq, etag, sizeof etag);
        svc_response_add_header(res, "ETag", etag);
    } else if (rc == DB_ERR_REPLAY) {
        replayed(req, res, &replay);
    } else if (rc == DB_ERR_CONFLICT) {
        char detail[128];
        snprintf(detail, sizeof detail, "the encounter is at version %lld", (long long)current);
        svc_problem(res, SVC_PROBLEM_PRECONDITION_FAILED, detail, NULL);
        char etag[32];
        etag_of(current, etag, sizeof etag);
        svc_response_add_header(res, "ETag", etag);
    } else {
        db_failed(res, rc);
    }
out:
    if (state != NULL && (!folded || rc == DB_OK)) {
        svc_state_cache_put(req->ctx->states, enc.id, folded ? enc.version + 1 : enc.version,
                            enc.token_hash, state, state_len);
        state = NULL;
    }
    free(answer_text);
    free(result_text);
    svc_errors_free(&e);
    json_decref(ev);
    json_decref(state);
    json_decref(in);
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

/* ---- handlers ---- */

/* ---- the initial state and the seed's commitment ---- */

#define SALT_HEX 32 /* hex characters of a 128-bit salt */

/* The seed's commitment: SHA-256 of "<salt>:<seed in decimal>", in hex. Anyone holding the
 * seed and the salt can check it with `printf '%s:%s' SALT SEED | sha256sum`. A bare hash of
 * a 53-bit seed could be brute-forced; the 128-bit salt makes that hopeless. */
static void seed_commitment(const char *salt, long long seed, char out[2 * AUTH_HASH_LEN + 1])
{
    char text[SALT_HEX + 32];
    int n = snprintf(text, sizeof text, "%s:%lld", salt, seed);
    unsigned char h[AUTH_HASH_LEN];
    auth_sha256(text, (size_t)n, h);
    auth_hex(h, sizeof h, out);
}

static bool salt_ok(const char *s)
{
    if (s == NULL || strlen(s) != SALT_HEX)
        return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return false;
    return true;
}

/* Moves the errors of `from` into `to`, each pointer under base. */
static void errors_under(struct svc_errors *from, const char *base, struct svc_errors *to)
{
    size_t i;
    json_t *err;
    json_array_foreach(from->list, i, err)
    {
        char ptr[CODEC_PTR_MAX + 64];
        snprintf(ptr, sizeof ptr, "%s%s", base, str(err, "pointer"));
        json_array_append_new(to->list, json_pack("{s:s, s:O}", "pointer", ptr, "message",
                                                  json_object_get(err, "message")));
    }
    json_array_clear(from->list);
}

/* Create's validation of its body, and the state it starts: members known and valid, the map
 * within the movement endpoints' limits, a square grid. Shared by create and import, so that
 * an import starts only from a state create would have made. Error pointers go under base.
 * The seed is the body's; else, on import, the one of `given` (the exported initial state);
 * else a fresh one. Likewise the salt of the seed's commitment. NULL after adding errors. */
static json_t *initial_state(const struct svc_request *req, json_t *body, const char *base,
                             json_t *given, struct svc_errors *out)
{
    static const char *const known[] = {"rules", "name", "map", "seed", NULL};
    struct svc_errors e;
    svc_errors_init(&e);
    json_t *state = NULL;
    if (!codec_expect_object(body, "", &e))
        goto out;
    codec_reject_unknown(body, "", known, &e);
    struct svc_rules rules;
    if (svc_decode_rules(body, &rules, &e) && rules.options.grid == RULES_GRID_HEX)
        svc_errors_add(&e, "/rules/options/grid",
                       "encounters are played on square grids for now; hexes are ruled by the "
                       "stateless endpoints (/v1/movement, /v1/attacks, /v1/geometry)");
    const char *name = "";
    codec_get_string(body, "", "name", false, 200, &name, &e);
    long long seed = -1;
    codec_get_int(body, "", "seed", false, 0, SEED_MAX, &seed, &e);
    /* The map: the movement endpoints' own decoder checks it (limits included). */
    json_t *map = json_object_get(body, "map");
    if (map == NULL) {
        svc_errors_add(&e, "/map", "is required");
    } else {
        json_t *rules_in = json_object_get(body, "rules");
        json_t *probe = json_pack("{s:o, s:O, s:{s:i, s:i, s:{s:i}}, s:s}", "rules",
                                  rules_in ? json_incref(rules_in) : json_object(), "map", map,
                                  "mover", "x", 0, "y", 0, "speeds", "walk", 0, "mode", "move");
        unsigned status = 0;
        json_t *ans = rule(req, svc_handle_move_reach, "/v1/movement/reach", probe, NULL, &status);
        size_t i;
        json_t *err;
        json_array_foreach(json_object_get(ans, "errors"), i, err)
        {
            const char *p = str(err, "pointer");
            if (strncmp(p, "/map", 4) == 0)
                svc_errors_add(&e, p, "%s", str(err, "message"));
        }
        if (ans == NULL || (status != 200 && json_array_size(json_object_get(ans, "errors")) == 0))
            svc_errors_add(&e, "/map", "could not be checked (%u)", status);
        json_decref(ans);
    }
    if (svc_errors_any(&e))
        goto out;
    json_t *gs = json_object_get(given, "seed");
    if (seed < 0 && json_is_integer(gs) && json_integer_value(gs) >= 0 &&
        json_integer_value(gs) <= SEED_MAX)
        seed = json_integer_value(gs);
    if (seed < 0) {
        uint64_t r = 0;
        if (!auth_random(&r, sizeof r)) {
            svc_errors_add(&e, "", "no random seed could be drawn; try again");
            goto out;
        }
        seed = (long long)(r % (uint64_t)(SEED_MAX + 1));
    }
    char salt[SALT_HEX + 1], commitment[2 * AUTH_HASH_LEN + 1];
    const char *gsalt = json_string_value(json_object_get(given, "seed_salt"));
    bool legacy = given != NULL && json_object_get(given, "seed_salt") == NULL;
    if (salt_ok(gsalt)) {
        memcpy(salt, gsalt, sizeof salt);
    } else {
        unsigned char b[SALT_HEX / 2];
        if (!auth_random(b, sizeof b)) {
            svc_errors_add(&e, "", "no random salt could be drawn; try again");
            goto out;
        }
        auth_hex(b, sizeof b, salt);
    }
    seed_commitment(salt, seed, commitment);
    state = json_pack("{s:s, s:o, s:O, s:I, s:s, s:s, s:i, s:n, s:b, s:[], s:b, s:[], s:[]}",
                      "name", name, "rules", svc_encode_rules(&rules), "map", map, "seed",
                      (json_int_t)seed, "seed_salt", salt, "seed_commitment", commitment, "round",
                      0, "turn", "started", 0, "order", "surprise", 0, "aware", "combatants");
    if (legacy) { /* exported before seeds were committed to: no salt, no commitment */
        json_object_del(state, "seed_salt");
        json_object_del(state, "seed_commitment");
    }
out:
    errors_under(&e, base, out);
    svc_errors_free(&e);
    return state;
}

/* What a reader without the encounter's token sees of a state: the seed and its salt stay
 * private until the owner reveals them (the commitment shows), so no player can predict the
 * rolls to come. Returns a new reference. */
static json_t *public_state(json_t *state)
{
    if (json_is_true(json_object_get(state, "revealed")) ||
        (json_object_get(state, "seed") == NULL && json_object_get(state, "seed_salt") == NULL))
        return json_incref(state);
    json_t *copy = json_copy(state);
    json_object_del(copy, "seed");
    json_object_del(copy, "seed_salt");
    return copy;
}

/* An event's payload as a reader without the token sees it: the created event's input seed
 * and initial state are kept private as public_state does (unless `revealed`). New ref. */
static json_t *public_payload(const char *kind, json_t *payload, bool revealed)
{
    if (revealed || strcmp(kind, "created") != 0 || !json_is_object(payload))
        return json_incref(payload);
    json_t *copy = json_deep_copy(payload);
    json_object_del(json_object_get(copy, "input"), "seed");
    json_t *init = json_array_get(json_object_get(copy, "effects"), 0);
    json_t *st = json_object_get(init, "state");
    if (json_is_object(st)) {
        json_object_del(st, "seed");
        json_object_del(st, "seed_salt");
    }
    return copy;
}

void svc_handle_encounter_create(const struct svc_request *req, struct svc_response *res)
{
    json_t *body = NULL;
    struct svc_errors e;
    svc_errors_init(&e);
    json_t *state = NULL, *payload = NULL, *answer = NULL;
    char *state_text = NULL, *payload_text = NULL, *answer_text = NULL;
    unsigned char hash[AUTH_HASH_LEN];
    char token[AUTH_TOKEN_LEN + 1] = "";
    bool minted = svc_request_header(req, "Authorization") == NULL;
    if (!minted && !client_token(req, res, hash))
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
    if (!minted && !idempotency(req, res, hash, &replay, &use_replay))
        goto out;
    state = initial_state(req, body, "", NULL, &e);
    if (state == NULL) {
        svc_errors_respond(&e, res);
        goto out;
    }
    char id[AUTH_ID_LEN + 1];
    if (!auth_new_id(id) || (minted && !auth_new_token(token))) {
        svc_problem(res, SVC_PROBLEM_INTERNAL, NULL, NULL);
        goto out;
    }
    if (minted)
        auth_sha256(token, strlen(token), hash);
    json_t *effects = json_pack("[{s:s, s:O}]", "op", "init", "state", state);
    payload = json_pack("{s:i, s:O, s:{s:s}, s:o}", "engine", ENGINE_VERSION, "input", body,
                        "result", "created", id, "effects", effects);
    answer = json_pack("{s:s, s:i, s:O}", "id", id, "version", 1, "state", state);
    if (minted)
        json_object_set_new(answer, "token", json_string(token));
    state_text = dump(state);
    answer_text = dump(answer);
    payload_text = dump(payload);
    char *rules_text = dump(json_object_get(state, "rules"));
    int rc = DB_ERR_NOMEM;
    if (state_text && answer_text && payload_text && rules_text) {
        if (use_replay)
            replay.status = 201, replay.version = 1;
        rc = db_encounter_create(req->ctx->db, id, hash, rules_text, state_text, "created",
                                 payload_text, use_replay ? &replay : NULL);
    }
    free(rules_text);
    if (rc == DB_ERR_REPLAY) {
        replayed(req, res, &replay);
    } else if (!db_failed(res, rc)) {
        svc_respond_raw(res, 201, "application/json", answer_text, strlen(answer_text));
        char etag[32], loc[96];
        etag_of(1, etag, sizeof etag);
        snprintf(loc, sizeof loc, "/v1/encounters/%s", id);
        svc_response_add_header(res, "ETag", etag);
        svc_response_add_header(res, "Location", loc);
    }
out:
    free(state_text);
    free(payload_text);
    free(answer_text);
    json_decref(state);
    json_decref(payload);
    json_decref(answer);
    svc_errors_free(&e);
    json_decref(body);
}

void svc_handle_encounter_get(const struct svc_request *req, struct svc_response *res)
{
    struct db_encounter enc;
    json_t *state;
    if (!load(req, res, &enc, &state, NULL))
        return;
    if (!is_owner(req, &enc)) {
        json_t *pub = public_state(state);
        json_decref(state);
        state = pub;
    }
    json_t *doc = json_pack("{s:s, s:I, s:s, s:o}", "id", enc.id, "version",
                            (json_int_t)enc.version, "created_at", enc.created_at, "state", state);
    respond_with_etag(res, 200, doc, enc.version);
}

void svc_handle_encounter_delete(const struct svc_request *req, struct svc_response *res)
{
    struct db_encounter enc;
    json_t *state;
    unsigned char hash[AUTH_HASH_LEN];
    if (!load(req, res, &enc, &state, NULL))
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
    if (db_failed(res, rc))
        return;
    svc_state_cache_drop(req->ctx->states, enc.id);
    res->status = 204;
}

struct list_acc {
    json_t *items;
};

static int list_item(void *ud, const char *id, const char *created_at, int64_t version)
{
    struct list_acc *a = ud;
    json_array_append_new(a->items, json_pack("{s:s, s:s, s:I}", "id", id, "created_at", created_at,
                                              "version", (json_int_t)version));
    return 0;
}

/* ?limit (1..500, default 100) */
static int page_limit(const struct svc_request *req, struct svc_errors *e)
{
    const char *l = svc_request_query(req, "limit");
    if (l == NULL)
        return DEFAULT_PAGE;
    char *end = NULL;
    long v = strtol(l, &end, 10);
    if (end == l || *end != '\0' || v < 1 || v > MAX_PAGE) {
        svc_errors_add(e, "", "query limit must be 1 to %d", MAX_PAGE);
        return DEFAULT_PAGE;
    }
    return (int)v;
}

void svc_handle_encounter_list(const struct svc_request *req, struct svc_response *res)
{
    unsigned char hash[AUTH_HASH_LEN];
    if (!bearer(req, res, hash))
        return;
    struct svc_errors e;
    svc_errors_init(&e);
    int limit = page_limit(req, &e);
    const char *after = svc_request_query(req, "after");
    if (after != NULL && !id_ok(after))
        svc_errors_add(&e, "", "query after must be an encounter id");
    if (svc_errors_any(&e)) {
        svc_errors_respond(&e, res);
        return;
    }
    svc_errors_free(&e);
    struct list_acc a = {json_array()};
    if (db_failed(res, db_encounter_list(req->ctx->db, hash, after, limit + 1, list_item, &a))) {
        json_decref(a.items);
        return;
    }
    json_t *next = json_null();
    if (json_array_size(a.items) > (size_t)limit) {
        json_array_remove(a.items, (size_t)limit);
        next = json_string(str(json_array_get(a.items, (size_t)limit - 1), "id"));
    }
    svc_respond_json(res, 200, json_pack("{s:o, s:o}", "encounters", a.items, "next_after", next));
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

struct events_acc {
    json_t *list;
    json_t *state; /* folding: the state so far */
    int64_t last;
    bool full; /* list the created event as it is (the owner, or the seed revealed) */
};

static int event_item(void *ud, int64_t seq, const char *kind, const char *payload,
                      const char *created_at)
{
    struct events_acc *a = ud;
    json_t *p = json_loads(payload, 0, NULL);
    if (a->state != NULL)
        fold(a->state, json_object_get(p, "effects"));
    if (a->list != NULL) {
        json_t *shown = p ? public_payload(kind, p, a->full) : json_null();
        json_array_append_new(a->list,
                              json_pack("{s:I, s:s, s:s, s:o}", "seq", (json_int_t)seq, "kind",
                                        kind, "created_at", created_at, "payload", shown));
    }
    json_decref(p);
    a->last = seq;
    return 0;
}

void svc_handle_encounter_events(const struct svc_request *req, struct svc_response *res)
{
    struct db_encounter enc;
    json_t *state;
    if (!load(req, res, &enc, &state, NULL))
        return;
    struct svc_errors e;
    svc_errors_init(&e);
    int limit = page_limit(req, &e);
    long long after = 0;
    const char *a = svc_request_query(req, "after");
    if (a != NULL) {
        char *end = NULL;
        after = strtoll(a, &end, 10);
        if (end == a || *end != '\0' || after < 0)
            svc_errors_add(&e, "", "query after must be an event number");
    }
    if (svc_errors_any(&e)) {
        svc_errors_respond(&e, res);
        json_decref(state);
        return;
    }
    svc_errors_free(&e);
    struct events_acc acc = {.list = json_array(),
                             .full = is_owner(req, &enc) ||
                                     json_is_true(json_object_get(state, "revealed"))};
    json_decref(state);
    if (db_failed(res,
                  db_events(req->ctx->db, enc.id, after, INT64_MAX, limit, event_item, &acc))) {
        json_decref(acc.list);
        return;
    }
    json_t *next = acc.last < enc.version && json_array_size(acc.list) > 0 ? json_integer(acc.last)
                                                                           : json_null();
    respond_with_etag(res, 200,
                      json_pack("{s:s, s:I, s:o, s:o}", "id", enc.id, "version",
                                (json_int_t)enc.version, "events", acc.list, "next_after", next),
                      enc.version);
}

/* The fold of events 1..upto. */
static json_t *state_at(const struct svc_request *req, const char *id, int64_t upto, int *rc)
{
    struct events_acc acc = {.state = json_object()};
    *rc = db_events(req->ctx->db, id, 0, upto, INT32_MAX, event_item, &acc);
    return acc.state;
}

json_t *svc_encounter_state_at(const struct svc_request *req, struct svc_response *res,
                               int64_t *at_out, int64_t *version)
{
    struct db_encounter enc;
    json_t *stored;
    if (!load(req, res, &enc, &stored, NULL))
        return NULL;
    long long at = enc.version;
    const char *q = svc_request_query(req, "at");
    if (q != NULL) {
        char *end = NULL;
        at = strtoll(q, &end, 10);
        if (end == q || *end != '\0' || at < 1 || at > enc.version) {
            struct svc_errors e;
            svc_errors_init(&e);
            svc_errors_add(&e, "/at", "query at must be an event number from 1 to %lld",
                           (long long)enc.version);
            svc_errors_respond(&e, res);
            json_decref(stored);
            return NULL;
        }
    }
    int rc = DB_OK;
    json_t *state = at == enc.version ? json_incref(stored) : state_at(req, enc.id, at, &rc);
    if (db_failed(res, rc)) {
        json_decref(state);
        json_decref(stored);
        return NULL;
    }
    if (!is_owner(req, &enc) && !json_is_true(json_object_get(stored, "revealed"))) {
        json_t *pub = public_state(state);
        json_decref(state);
        state = pub;
    }
    json_decref(stored);
    *at_out = at;
    *version = enc.version;
    return state;
}

void svc_handle_encounter_state(const struct svc_request *req, struct svc_response *res)
{
    int64_t at = 0, version = 0;
    json_t *state = svc_encounter_state_at(req, res, &at, &version);
    if (state == NULL)
        return;
    json_t *doc = json_pack("{s:s, s:I, s:I, s:o}", "id", req->params[0], "at", (json_int_t)at,
                            "version", (json_int_t)version, "state", state);
    respond_with_etag(res, 200, doc, version);
}

/* The engine an event was ruled under: its payload's stamp, 1 for events from before stamps. */
static int engine_of(json_t *payload)
{
    json_t *v = json_object_get(payload, "engine");
    if (v == NULL)
        return 1;
    return json_is_integer(v) && json_integer_value(v) >= 1 &&
                   json_integer_value(v) <= ENGINE_VERSION
               ? (int)json_integer_value(v)
               : -1;
}

/* Whether a stored ruling still holds: every member it has is in the fresh ruling with the
 * same value (arrays item by item, of the same length). A member an answer gained since the
 * event was stored does not break it; a changed or lost one does. */
static bool ruling_holds(json_t *stored, json_t *fresh)
{
    if (json_is_object(stored)) {
        if (!json_is_object(fresh))
            return false;
        const char *k;
        json_t *v;
        json_object_foreach(stored, k, v)
        {
            if (!ruling_holds(v, json_object_get(fresh, k)))
                return false;
        }
        return true;
    }
    if (json_is_array(stored)) {
        if (!json_is_array(fresh) || json_array_size(stored) != json_array_size(fresh))
            return false;
        for (size_t i = 0; i < json_array_size(stored); i++)
            if (!ruling_holds(json_array_get(stored, i), json_array_get(fresh, i)))
                return false;
        return true;
    }
    return json_equal(stored, fresh);
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
    json_t *p = json_loads(payload, 0, NULL);
    if (p == NULL) {
        json_array_append_new(a->mismatches,
                              json_pack("{s:I, s:s}", "seq", (json_int_t)seq, "why", "unreadable"));
        return 0;
    }
    if (strcmp(kind, "created") != 0) {
        struct svc_errors e;
        svc_errors_init(&e);
        json_t *again = resolve(a->req, &a->cache, a->state, kind, json_object_get(p, "input"), seq,
                                engine_of(p), &e, NULL);
        const char *why = NULL;
        if (again == NULL)
            why = "the event no longer resolves against the state before it";
        else if (!ruling_holds(json_object_get(p, "result"), json_object_get(again, "result")))
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
    fold(a->state, json_object_get(p, "effects"));
    json_decref(p);
    a->checked++;
    return 0;
}

/* Re-resolves every event from the state before it with the same dice. */
void svc_handle_encounter_verify(const struct svc_request *req, struct svc_response *res)
{
    struct db_encounter enc;
    json_t *stored;
    if (!load(req, res, &enc, &stored, NULL))
        return;
    struct verify_acc a = {.req = req, .state = json_object(), .mismatches = json_array()};
    int rc = db_events(req->ctx->db, enc.id, 0, enc.version, INT32_MAX, verify_item, &a);
    if (!db_failed(res, rc)) {
        bool state_ok = json_equal(a.state, stored);
        bool ok = state_ok && json_array_size(a.mismatches) == 0 && a.checked == enc.version;
        json_t *doc =
            json_pack("{s:s, s:I, s:b, s:I, s:b, s:O}", "id", enc.id, "version",
                      (json_int_t)enc.version, "ok", ok, "events_checked", (json_int_t)a.checked,
                      "state_matches", state_ok, "mismatches", a.mismatches);
        respond_with_etag(res, 200, doc, enc.version);
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
    if (!load(req, res, &enc, &stored, NULL))
        return;
    /* The owner's export carries the seed (it is what moves an encounter between servers);
     * anyone else's shows the commitment, as every public read does. */
    bool full = is_owner(req, &enc) || json_is_true(json_object_get(stored, "revealed"));
    struct events_acc acc = {.list = json_array(), .full = full};
    if (!full) {
        json_t *pub = public_state(stored);
        json_decref(stored);
        stored = pub;
    }
    int rc = db_events(req->ctx->db, enc.id, 0, enc.version, INT32_MAX, event_item, &acc);
    if (db_failed(res, rc)) {
        json_decref(acc.list);
        json_decref(stored);
        return;
    }
    json_t *events = json_array();
    size_t i;
    json_t *ev;
    json_array_foreach(acc.list, i, ev)
    {
        json_array_append_new(events,
                              json_pack("{s:O, s:O, s:O}", "seq", json_object_get(ev, "seq"),
                                        "kind", json_object_get(ev, "kind"), "payload",
                                        json_object_get(ev, "payload")));
    }
    json_decref(acc.list);
    json_t *doc =
        json_pack("{s:s, s:s, s:I, s:o, s:o}", "format", "tactics-encounter/1", "id", enc.id,
                  "version", (json_int_t)enc.version, "events", events, "state", stored);
    respond_with_etag(res, 200, doc, enc.version);
}

/* Checks that an exported event (at pointer p) is {seq, kind, payload: {input, result,
 * effects}} and is event number `seq`; returns its payload or NULL after adding errors. */
static json_t *import_payload(json_t *ev, const char *p, size_t seq, struct svc_errors *e)
{
    static const char *const ekeys[] = {"seq", "kind", "payload", NULL};
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
        codec_get_int(payload, pp, "engine", false, 1, ENGINE_VERSION, &engine, e);
        for (int k = 0; k < 3; k++) /* input, result, effects */
            if (json_object_get(payload, pkeys[k]) == NULL) {
                char kp[CODEC_PTR_MAX];
                codec_pointer(kp, pp, pkeys[k]);
                svc_errors_add(e, kp, "is required");
            }
    }
    return json_array_size(e->list) == before ? payload : NULL;
}

/* Rebuilds the created event of an import from its input, through create's own validation
 * (initial_state): its initial state must be the one create makes from that input. Returns
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
    json_t *state = initial_state(req, json_object_get(payload, "input"), ip, given, e);
    if (state == NULL)
        return NULL;
    /* An encounter created before an option existed echoes the rules without it: the same
     * rules, as long as every option it lists has the value create gives it now. */
    json_t *given_rules = json_object_get(given, "rules");
    if (given_rules != NULL && ruling_holds(given_rules, json_object_get(state, "rules")))
        json_object_set(state, "rules", given_rules);
    json_t *result = json_object_get(payload, "result");
    const char *old_id = json_string_value(json_object_get(result, "created"));
    json_t *rebuilt = json_pack("{s:O, s:{s:s}, s:[{s:s, s:o}]}", "input",
                                json_object_get(payload, "input"), "result", "created",
                                old_id ? old_id : "", "effects", "op", "init", "state", state);
    if (json_object_get(payload, "engine") != NULL)
        json_object_set(rebuilt, "engine", json_object_get(payload, "engine"));
    if (old_id == NULL || json_object_size(result) != 1) {
        char rp[CODEC_PTR_MAX];
        snprintf(rp, sizeof rp, "%s/payload/result", p);
        svc_errors_add(e, rp, "must be {\"created\": the exported encounter's id}");
    } else if (!json_equal(json_object_get(rebuilt, "effects"), effects)) {
        svc_errors_add(e, sp,
                       "is not the initial state create makes from this input: an import "
                       "starts where a live encounter would have");
    }
    if (svc_errors_any(e)) {
        json_decref(rebuilt);
        return NULL;
    }
    return rebuilt;
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
    if (!svc_decode_begin(req, res, known, &body, &e)) {
        svc_errors_free(&e);
        json_decref(body);
        return;
    }
    unsigned char hash[AUTH_HASH_LEN];
    char token[AUTH_TOKEN_LEN + 1] = "";
    bool minted = svc_request_header(req, "Authorization") == NULL;
    json_t *state = json_object();
    struct enc_cache cache = {0};
    const char **kinds = NULL;
    char **payloads = NULL;
    size_t n = 0;
    if (!minted && !client_token(req, res, hash))
        goto out;
    const char *format = NULL;
    if (codec_get_string(body, "", "format", true, 64, &format, &e) &&
        strcmp(format, "tactics-encounter/1") != 0)
        svc_errors_add(&e, "/format", "must be tactics-encounter/1");
    const char *old_id = NULL;
    codec_get_string(body, "", "id", false, 64, &old_id, &e);
    json_t *events = NULL;
    codec_get_array(body, "", "events", true, MAX_IMPORT, &events, &e);
    n = json_array_size(events);
    if (events != NULL && n == 0)
        svc_errors_add(&e, "/events", "must hold at least the created event");
    long long version = 0;
    if (codec_get_int(body, "", "version", false, 1, MAX_IMPORT, &version, &e) &&
        (size_t)version != n)
        svc_errors_add(&e, "/version", "must be the number of events (%zu)", n);
    kinds = calloc(n + 1, sizeof *kinds);
    payloads = calloc(n + 1, sizeof *payloads);
    if (kinds == NULL || payloads == NULL)
        svc_errors_add(&e, "/events", "could not be allocated");
    for (size_t i = 0; i < n && !svc_errors_any(&e); i++) {
        char p[48];
        snprintf(p, sizeof p, "/events/%zu", i);
        json_t *ev = json_array_get(events, i);
        json_t *payload = import_payload(ev, p, i + 1, &e);
        if (payload == NULL)
            break;
        const char *kind = str(ev, "kind");
        json_t *stored = NULL, *effects = NULL;
        if (i == 0) {
            stored = import_created(req, payload, p, &e);
            effects = json_object_get(stored, "effects");
        } else {
            struct svc_errors re;
            svc_errors_init(&re);
            json_t *again = resolve(req, &cache, state, kind, json_object_get(payload, "input"),
                                    (long long)i + 1, engine_of(payload), &re, NULL);
            char ip[80];
            snprintf(ip, sizeof ip, "%s/payload/input", p);
            errors_under(&re, ip, &e);
            svc_errors_free(&re);
            if (again != NULL && !svc_errors_any(&e)) {
                const char *differs = !ruling_holds(json_object_get(payload, "result"),
                                                    json_object_get(again, "result"))
                                          ? "result"
                                      : !json_equal(json_object_get(again, "effects"),
                                                    json_object_get(payload, "effects"))
                                          ? "effects"
                                          : NULL;
                if (differs != NULL)
                    svc_errors_add(&e, p,
                                   "its %s differs from the ruling this server makes "
                                   "from the state before it (/events/%zu/payload/%s)",
                                   differs, i, differs);
                else
                    stored = json_incref(payload);
            } else if (!svc_errors_any(&e)) {
                svc_errors_add(&e, p, "does not resolve against the state before it");
            }
            effects = json_object_get(again, "effects");
            if (stored != NULL)
                fold(state, effects);
            json_decref(again);
        }
        if (stored == NULL)
            break;
        if (i == 0)
            fold(state, effects);
        kinds[i] = kind;
        payloads[i] = dump(stored);
        json_decref(stored);
        if (payloads[i] == NULL)
            svc_errors_add(&e, p, "could not be stored");
    }
    if (!svc_errors_any(&e) && json_object_get(body, "state") &&
        !json_equal(json_object_get(body, "state"), state))
        svc_errors_add(&e, "/state", "is not the fold of the events");
    if (svc_errors_any(&e)) {
        svc_errors_respond(&e, res);
        goto out;
    }
    char id[AUTH_ID_LEN + 1];
    if (!auth_new_id(id) || (minted && !auth_new_token(token))) {
        svc_problem(res, SVC_PROBLEM_INTERNAL, NULL, NULL);
        goto out;
    }
    if (minted)
        auth_sha256(token, strlen(token), hash);
    char *state_text = dump(state);
    char *rules_text = dump(json_object_get(state, "rules"));
    int rc = state_text && rules_text
                 ? db_encounter_import(req->ctx->db, id, hash, rules_text, state_text, (int)n,
                                       kinds, (const char *const *)payloads)
                 : DB_ERR_NOMEM;
    free(state_text);
    free(rules_text);
    if (!db_failed(res, rc)) {
        json_t *doc =
            json_pack("{s:s, s:I, s:O}", "id", id, "version", (json_int_t)n, "state", state);
        if (minted)
            json_object_set_new(doc, "token", json_string(token));
        respond_with_etag(res, 201, doc, (int64_t)n);
        char loc[96];
        snprintf(loc, sizeof loc, "/v1/encounters/%s", id);
        svc_response_add_header(res, "Location", loc);
    }
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
