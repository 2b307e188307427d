/* Decoding the movement requests (move_req.h) and, for other endpoints that take the same
 * shapes, their board (move_codec.h): rules, creatures, mover, mode, withdraw, steps, a route's
 * target, forced movement and speed. body.map is map_codec.c's. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/encounter/encounter.h"
#include "service/codec/answer.h"
#include "service/codec/creature.h"
#include "service/codec/map.h"
#include "service/codec/move.h"
#include "service/codec/move_req.h"
#include "service/codec/odds.h"
#include "service/codec/ruling.h"
#include "service/http/http.h"
#include "service/json/errors.h"
#include "service/json/fields.h"

#define MAX_CREATURES  2000
#define MAX_NO_ATTACK  MAX_CREATURES
#define MAX_CHECK_ROWS 20
#define DEFAULT_CHECKS 5

const char *const move_forced_names[] = {"push", "pull", "slide", NULL};
const char *const move_prefer_names[] = {"cost", "fewest_attacks", "safest", NULL};
static const char *const armor_names[] = {"none", "light", "medium", "heavy", NULL};
static const char *const load_names[] = {"light", "medium", "heavy", NULL};

void move_budgets_init(struct move_req *r, const struct svc_config *cfg)
{
    r->work =
        (struct rules_work){.limit = svc_config_budget(cfg, SVC_BUDGET_SEARCH_STATES),
                            .threat_limit = svc_config_budget(cfg, SVC_BUDGET_THREAT_SQUARES)};
    r->paint_limit = svc_config_budget(cfg, SVC_BUDGET_MAP_SQUARES);
    r->answer_limit = svc_config_budget(cfg, SVC_BUDGET_ANSWER_BYTES);
}

void move_req_free(struct move_req *r)
{
    if (!r->map_borrowed)
        rules_map_free(&r->map);
    free(r->cs);
    free(r->ids);
    free(r->no_attack);
    free(r->profiles);
}

/* Where creature c (at ptr) stands: on the map and (unless the map was an encounter's) out of
 * blocked terrain, when the map could be read, and sharing its space with none of the first `upto`
 * creatures but by 001 Stepover (rules_place_conflict). Each problem goes to e; false when it is
 * off the map. */
static bool check_place(const struct move_req *r, const struct rules_creature *c,
                        unsigned move_types, const char *ptr, int upto, struct svc_errors *e)
{
    int bx = 0, by = 0;
    int rc = r->map_ok ? rules_place_conflict(r->o, &r->map, c, move_types, NULL, 0, &bx, &by)
                       : RULES_PLACE_OK;
    if (rc == RULES_PLACE_OFF_MAP) {
        svc_errors_add(e, ptr, "is off the map: its whole space must lie on it");
        return false;
    }
    /* A map decoded beforehand is a caller's that placed the creatures itself (an encounter's
     * combatants were placed when they were added or changed, enc_check_place): not ruled
     * again. */
    if (rc == RULES_PLACE_BLOCKED && !r->map_borrowed)
        svc_errors_add(e, ptr, "stands in blocked terrain at (%d, %d) (%s)", bx, by,
                       RULES_BLOCKED_SOURCE);
    if (rc == RULES_PLACE_TERRAIN && !r->map_borrowed)
        svc_errors_add(e, ptr, "stands in %s at (%d, %d), which none of its speeds enters (%s)",
                       rules_map_terrain_name(
                           (enum rules_map_terrain)
                               r->map.terrain[(size_t)by * (size_t)r->map.width + (size_t)bx]),
                       bx, by, RULES_TERRAIN_SOURCE);
    for (int i = 0; i < upto; i++)
        if (rules_bodies_clash(r->o, &r->cs[i].c, c))
            svc_errors_add(e, ptr, "overlaps /creatures/%d ('%s')", i, r->ids[i]);
    return true;
}

/* The request's map: an internal caller's pre-decoded one (borrowed), or the body's. */
static void request_map(json_t *body, const struct svc_config *cfg, const struct rules_map *map,
                        struct move_req *r, struct svc_errors *e)
{
    if (map != NULL) {
        r->map = *map;
        r->map_ok = r->map_borrowed = true;
        return;
    }
    move_decode_map(body, cfg, r, e);
}

int svc_decode_map(json_t *body, const struct svc_config *cfg, bool hex_grid, struct rules_map *out,
                   struct svc_errors *e)
{
    struct rules_options o = {.grid = hex_grid ? RULES_GRID_HEX : RULES_GRID_SQUARE};
    struct move_req r = {.o = &o};
    move_budgets_init(&r, cfg);
    size_t before = json_array_size(e->list);
    move_decode_map(body, cfg, &r, e);
    if (r.spent != NULL)
        svc_errors_add(e, "/map", "needs more than the %s budget (%lld; reached %lld)", r.spent,
                       r.spent_budget, r.spent_reached);
    if (!r.map_ok || json_array_size(e->list) > before) {
        rules_map_free(&r.map);
        return -1;
    }
    *out = r.map;
    return 0;
}

/* Writes base then extra (either may be NULL) into out, NULL-terminated, at most max - 1. */
static void join_keys(const char **out, size_t max, const char *const *base,
                      const char *const *extra)
{
    size_t n = 0;
    for (size_t i = 0; base != NULL && base[i] != NULL && n + 1 < max; i++)
        out[n++] = base[i];
    for (size_t i = 0; extra != NULL && extra[i] != NULL && n + 1 < max; i++)
        out[n++] = extra[i];
    out[n] = NULL;
}

static const char *const creature_keys[] = {"id",
                                            "side",
                                            "conscious",
                                            "combat_reflexes",
                                            "attack_bonus",
                                            "damage",
                                            "crit_range",
                                            "crit_multiplier",
                                            NULL};

/* creatures: [{id, side, conscious, combat_reflexes, attack_bonus, ...creature}], and the
 * members named in extra (NULL-terminated, may be NULL) that the caller reads itself. */
static void decode_creatures(json_t *body, struct move_req *r, const char *const *extra,
                             struct svc_errors *e)
{
    static const char *const sides[] = {"enemy", "ally", NULL};
    json_t *list = NULL;
    if (!codec_get_array(body, "", "creatures", false, MAX_CREATURES, &list, e))
        return;
    const char *keys[32];
    join_keys(keys, 32, creature_keys, extra);
    size_t n = json_array_size(list);
    r->cs = calloc(n + 1, sizeof *r->cs);
    r->ids = calloc(n + 1, sizeof *r->ids);
    r->no_attack = calloc(n + 1, sizeof *r->no_attack);
    r->profiles = calloc(n + 1, sizeof *r->profiles);
    if (r->cs == NULL || r->ids == NULL || r->no_attack == NULL || r->profiles == NULL) {
        svc_errors_add(e, "/creatures", "could not be allocated");
        return;
    }
    size_t i;
    json_t *c;
    json_array_foreach(list, i, c)
    {
        char ptr[CODEC_PTR_MAX];
        snprintf(ptr, sizeof ptr, "/creatures/%zu", i);
        struct rules_map_creature *k = &r->cs[i];
        svc_decode_creature(c, ptr, r->o, true, keys, &k->c, e);
        k->conscious = true;
        r->ids[i] = "";
        if (!json_is_object(c))
            continue;
        if (codec_get_string(c, ptr, "id", true, 64, &r->ids[i], e) && r->ids[i][0] == '\0') {
            char ip[CODEC_PTR_MAX];
            codec_pointer(ip, ptr, "id");
            svc_errors_add(e, ip, "must not be empty");
        }
        k->ally = codec_get_enum(c, ptr, "side", sides, false, 0, e) == 1;
        codec_get_bool(c, ptr, "conscious", false, &k->conscious, e);
        codec_get_bool(c, ptr, "combat_reflexes", false, &k->combat_reflexes, e);
        long long ab = 0;
        codec_get_int(c, ptr, "attack_bonus", false, -100, 100, &ab, e);
        k->attack_bonus = (int)ab;
        struct move_attack_profile *pf = &r->profiles[i];
        svc_decode_damage(c, ptr, &pf->damage, &pf->damage_expr, &pf->crit_range,
                          &pf->crit_multiplier, e);
        for (size_t j = 0; j < i; j++)
            if (strcmp(r->ids[j], r->ids[i]) == 0 && r->ids[i][0] != '\0')
                svc_errors_add(e, ptr, "id '%s' is already used by /creatures/%zu", r->ids[i], j);
        check_place(r, &k->c, RULES_ANY_MOVE_TYPE, ptr, (int)i, e);
    }
    r->nc = (int)n;
}

static int find_id(const struct move_req *r, const char *id)
{
    for (int i = 0; i < r->nc; i++)
        if (strcmp(r->ids[i], id) == 0)
            return i;
    return -1;
}

static const char *const mover_keys[] = {"speeds",
                                         "armor",
                                         "load",
                                         "constitution",
                                         "runner",
                                         "darkvision",
                                         "blinded",
                                         "prone",
                                         "moved_this_round",
                                         "ran_this_round",
                                         "single_action",
                                         "turned_this_turn",
                                         "acted_this_turn",
                                         "extra_five_foot_steps",
                                         "hp",
                                         "damage_reduction",
                                         "defense",
                                         NULL};

void move_decode_burdens(json_t *m, const char *ptr, bool speeds_required, struct move_req *r,
                         struct svc_errors *e)
{
    struct rules_mover *mv = &r->mover;
    char sptr[CODEC_PTR_MAX];
    codec_pointer(sptr, ptr, "speeds");
    json_t *speeds = json_object_get(m, "speeds");
    if (speeds == NULL) {
        if (speeds_required)
            svc_errors_add(e, sptr, "is required");
    } else if (codec_expect_object(speeds, sptr, e)) {
        codec_reject_unknown(speeds, sptr, rules_move_type_names, e);
        for (int t = 0; t < RULES_MOVE_TYPES; t++) {
            long long v = 0;
            codec_get_int(speeds, sptr, rules_move_type_names[t], false, 0, 10000, &v, e);
            mv->speed[t] = (int)v;
        }
    }
    int armor = codec_get_enum(m, ptr, "armor", armor_names, false, 0, e);
    mv->armor = armor <= 1 ? RULES_BURDEN_LIGHT : (enum rules_burden)(armor - 1);
    mv->load = (enum rules_burden)codec_get_enum(m, ptr, "load", load_names, false, 0, e);
    long long con = 0;
    r->has_constitution = codec_get_int(m, ptr, "constitution", false, 0, 100, &con, e);
    mv->constitution = (int)con;
    codec_get_bool(m, ptr, "runner", false, &mv->runner, e);
    codec_get_bool(m, ptr, "darkvision", false, &mv->darkvision, e);
}

/* The movement fields of a mover (its burdens, then what it has done and what its odds read);
 * creature fields are the caller's. */
static void decode_mover_fields(json_t *m, const char *ptr, struct move_req *r,
                                struct svc_errors *e)
{
    struct rules_mover *mv = &r->mover;
    move_decode_burdens(m, ptr, true, r, e);
    codec_get_bool(m, ptr, "blinded", false, &mv->blinded, e);
    codec_get_bool(m, ptr, "prone", false, &mv->prone, e);
    codec_get_bool(m, ptr, "moved_this_round", false, &mv->moved, e);
    codec_get_bool(m, ptr, "ran_this_round", false, &mv->ran, e);
    codec_get_bool(m, ptr, "single_action", false, &mv->single_action, e);
    codec_get_bool(m, ptr, "turned_this_turn", false, &mv->turned, e);
    codec_get_bool(m, ptr, "acted_this_turn", false, &mv->acted, e);
    long long steps = 0;
    codec_get_int(m, ptr, "extra_five_foot_steps", false, 0, 10, &steps, e);
    mv->extra_steps = (int)steps;
    /* For a move's odds: what the attacks of opportunity would take from. */
    long long hp = 0, dr = 0;
    if (codec_get_int(m, ptr, "hp", false, 1, RULES_HP_MAX, &hp, e))
        r->mover_hp = (int)hp;
    if (codec_get_int(m, ptr, "damage_reduction", false, 0, 1000, &dr, e))
        r->mover_dr = (int)dr;
    json_t *def = json_object_get(m, "defense");
    if (def != NULL) {
        char dp[CODEC_PTR_MAX];
        codec_pointer(dp, ptr, "defense");
        svc_decode_defense(def, dp, &mv->ac, e);
    }
}

/* body.mover (required): its creature and movement fields, on the map and overlapping nobody
 * it may not share with; extra as for decode_creatures. Returns the member, or NULL. */
static json_t *decode_mover(json_t *body, struct move_req *r, const char *const *extra,
                            struct svc_errors *e)
{
    const char *keys[32];
    join_keys(keys, 32, mover_keys, extra);
    json_t *m = svc_decode_member(body, "mover", r->o, true, keys, &r->mover.c, e);
    if (m != NULL) {
        decode_mover_fields(m, "/mover", r, e);
        /* A mover may have been put where its speeds do not go (pushed into water, say): its
         * steps are ruled by their terrain, so only a wall refuses it here. */
        check_place(r, &r->mover.c, RULES_ANY_MOVE_TYPE, "/mover", r->nc, e);
    }
    return m;
}

/* rules, map, creatures, mover, mode and withdraw: what path, reach and route share. */
static void decode_move(json_t *body, const struct svc_config *cfg, const struct rules_map *map,
                        struct move_req *r, struct svc_errors *e)
{
    svc_decode_rules(body, &r->rules, e);
    r->o = &r->rules.options;
    r->primary = -1;
    move_budgets_init(r, cfg);
    request_map(body, cfg, map, r, e);
    decode_creatures(body, r, NULL, e);
    decode_mover(body, r, NULL, e);
    r->mode =
        (enum rules_move_mode)codec_get_enum(body, "", "mode", rules_move_mode_names, true, 0, e);
    move_decode_withdraw(body, r, e);
}

void move_decode_withdraw(json_t *body, struct move_req *r, struct svc_errors *e)
{
    json_t *wd = json_object_get(body, "withdraw");
    if (r->mode != RULES_MODE_WITHDRAW) {
        if (wd != NULL)
            svc_errors_add(e, "/withdraw", "is only for mode withdraw");
        return;
    }
    if (wd == NULL) {
        svc_errors_add(e, "/withdraw", "is required with mode withdraw (its primary_target)");
        return;
    }
    static const char *const wkeys[] = {"primary_target", "no_attack", NULL};
    if (!codec_expect_object(wd, "/withdraw", e))
        return;
    codec_reject_unknown(wd, "/withdraw", wkeys, e);
    const char *pt = NULL;
    if (codec_get_string(wd, "/withdraw", "primary_target", true, 64, &pt, e)) {
        r->primary = find_id(r, pt);
        if (r->primary < 0)
            svc_errors_add(e, "/withdraw/primary_target", "names no creature");
    }
    json_t *na = NULL;
    if (codec_get_array(wd, "/withdraw", "no_attack", false, MAX_NO_ATTACK, &na, e)) {
        size_t i;
        json_t *v;
        json_array_foreach(na, i, v)
        {
            char ptr[CODEC_PTR_MAX];
            snprintf(ptr, sizeof ptr, "/withdraw/no_attack/%zu", i);
            int k = json_is_string(v) ? find_id(r, json_string_value(v)) : -1;
            if (k < 0)
                svc_errors_add(e, ptr, "must be the id of a creature");
            else if (r->no_attack != NULL)
                r->no_attack[k] = true;
        }
    }
}

struct rules_move_query move_query_of(const struct move_req *r)
{
    return (struct rules_move_query){.o = r->o,
                                     .map = &r->map,
                                     .creatures = r->cs,
                                     .creature_count = r->nc,
                                     .mover = &r->mover,
                                     .mode = r->mode,
                                     .primary_target = r->primary,
                                     .no_attack = r->no_attack};
}

static bool adjacent(const struct rules_options *o, int x0, int y0, int x1, int y1)
{
    int dx = x1 - x0, dy = y1 - y0;
    if (o->grid == RULES_GRID_HEX) {
        for (int d = 0; d < 6; d++)
            if (rules_hex_dirs[d][0] == dx && rules_hex_dirs[d][1] == dy)
                return true;
        return false;
    }
    return (dx || dy) && dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1;
}

bool svc_decode_step(json_t *v, const char *base, size_t i, const struct rules_options *o,
                     struct rules_step *out, bool *faced, char ptr[SVC_STEP_PTR_MAX],
                     struct svc_errors *e)
{
    assert(base != NULL && out != NULL && faced != NULL && ptr != NULL);
    static const char *const square_keys[] = {"x", "y", "facing", NULL};
    static const char *const hex_keys[] = {"q", "r", "facing", NULL};
    snprintf(ptr, SVC_STEP_PTR_MAX, "%s/%zu", base, i);
    *out = (struct rules_step){.facing = -1};
    *faced = false;
    if (!codec_expect_object(v, ptr, e))
        return false;
    bool hex = o->grid == RULES_GRID_HEX;
    codec_reject_unknown(v, ptr, hex ? hex_keys : square_keys, e);
    long long x = 0, y = 0, f = -1;
    bool ok =
        codec_get_int(v, ptr, hex ? "q" : "x", true, -RULES_COORD_MAX, RULES_COORD_MAX, &x, e);
    ok &= codec_get_int(v, ptr, hex ? "r" : "y", true, -RULES_COORD_MAX, RULES_COORD_MAX, &y, e);
    *faced =
        CODEC_WITHIN(codec_get_int(v, ptr, "facing", false, 0, rules_facing_count(o) - 1, &f, e));
    *out = (struct rules_step){(int)x, (int)y, (int)f};
    return ok;
}

/* path: [{x, y, facing?}], each adjacent to the one before (the first to `from`). */
struct rules_step *move_decode_steps(json_t *body, const char *key, size_t max,
                                     const struct move_req *r, int from_x, int from_y, bool facings,
                                     int *n, struct svc_errors *e)
{
    json_t *list = NULL;
    char base[CODEC_PTR_MAX];
    codec_pointer(base, "", key);
    *n = 0;
    if (!codec_get_array(body, "", key, true, max, &list, e))
        return NULL;
    if (json_array_size(list) == 0) {
        svc_errors_add(e, base, "must hold at least one step");
        return NULL;
    }
    struct rules_step *s = calloc(json_array_size(list), sizeof *s);
    if (s == NULL) {
        svc_errors_add(e, base, "could not be allocated");
        return NULL;
    }
    bool mover_faces = rules_has_facing(r->o, &r->mover.c);
    int px = from_x, py = from_y;
    bool chain = true;
    for (size_t i = 0; i < json_array_size(list); i++) {
        char ptr[SVC_STEP_PTR_MAX];
        bool faced = false;
        bool ok = svc_decode_step(json_array_get(list, i), base, i, r->o, &s[i], &faced, ptr, e);
        if (faced && (!facings || !mover_faces)) {
            char fptr[CODEC_PTR_MAX];
            codec_pointer(fptr, ptr, "facing");
            svc_errors_add(e, fptr,
                           facings ? "the mover has no facing (no facing variant, faceless, or "
                                     "Tiny and smaller: 000)"
                                   : "forced movement does not set facing");
        }
        if (ok && chain && !adjacent(r->o, px, py, s[i].x, s[i].y))
            svc_errors_add(e, ptr, "is not adjacent to the %s",
                           i == 0 ? "starting square" : "step before");
        chain = ok;
        px = s[i].x, py = s[i].y;
    }
    *n = (int)json_array_size(list);
    return s;
}

static const char *const move_known[] = {"rules",  "map",      "creatures", "mover",
                                         "mode",   "withdraw", "path",      "end_facing",
                                         "prefer", "target",   "odds",      NULL};

/* Checks that body holds only `allowed` among the movement request's members. */
static void only(json_t *body, const char *const *allowed, struct svc_errors *e)
{
    for (const char *const *k = move_known; *k != NULL; k++) {
        bool ok = false;
        for (const char *const *a = allowed; *a != NULL && !ok; a++)
            ok = strcmp(*a, *k) == 0;
        if (!ok && json_object_get(body, *k) != NULL) {
            char ptr[CODEC_PTR_MAX];
            codec_pointer(ptr, "", *k);
            svc_errors_add(e, ptr, "is not a member of this request");
        }
    }
}

/* Starts a path, reach or route request: the body's members, and what they share. False
 * when the answer is already in out. */
bool move_begin(json_t *body, const struct svc_config *cfg, const struct rules_map *map,
                const char *const *allowed, struct svc_errors *e, struct move_req *r,
                struct svc_answer *out)
{
    if (!svc_decode_body(body, move_known, e)) {
        svc_answer_errors(out, e);
        svc_errors_free(e);
        return false;
    }
    only(body, allowed, e);
    decode_move(body, cfg, map, r, e);
    codec_get_bool(body, "", "odds", false, &r->odds, e);
    r->odds_work = svc_odds_budget_of(cfg);
    if (r->spent != NULL) {
        svc_answer_too_expensive(out, r->spent, r->spent_budget, r->spent_reached);
        svc_errors_free(e);
        move_req_free(r);
        return false;
    }
    return true;
}

/* body.target: {x, y} ({q, r} on hexes) on the map, or {creature}. */
void move_decode_target(json_t *body, const struct move_req *r, struct rules_route_goal *goal,
                        struct svc_errors *e)
{
    *goal = (struct rules_route_goal){.creature = -1};
    json_t *t = json_object_get(body, "target");
    if (t == NULL) {
        svc_errors_add(e, "/target", "is required: a square or a creature to threaten");
    } else if (codec_expect_object(t, "/target", e)) {
        static const char *const square_keys[] = {"x", "y", "creature", NULL};
        static const char *const hex_keys[] = {"q", "r", "creature", NULL};
        codec_reject_unknown(t, "/target", move_hex(r) ? hex_keys : square_keys, e);
        const char *id = NULL;
        if (codec_get_string(t, "/target", "creature", false, 64, &id, e)) {
            goal->creature = find_id(r, id);
            if (goal->creature < 0)
                svc_errors_add(e, "/target/creature", "names no creature");
            if (json_object_get(t, move_hex(r) ? "q" : "x") != NULL)
                svc_errors_add(e, "/target", "give a square or a creature, not both");
        } else {
            long long x = 0, y = 0;
            CODEC_WITHIN(codec_get_int(t, "/target", move_hex(r) ? "q" : "x", true, 0,
                                       r->map_ok ? r->map.width - 1 : 0, &x, e));
            CODEC_WITHIN(codec_get_int(t, "/target", move_hex(r) ? "r" : "y", true, 0,
                                       r->map_ok ? r->map.height - 1 : 0, &y, e));
            goal->x = (int)x, goal->y = (int)y;
        }
    }
}

struct rules_step *move_decode_forced(json_t *body, const struct svc_config *cfg,
                                      const struct rules_map *map, struct move_req *r,
                                      struct rules_forced_query *q, int *n, struct svc_errors *e)
{
    static const char *const target_keys[] = {"voluntarily_prone", "reduction_squares",
                                              "fall_prone_at", NULL};
    svc_decode_rules(body, &r->rules, e);
    r->o = &r->rules.options;
    move_budgets_init(r, cfg);
    request_map(body, cfg, map, r, e);
    decode_creatures(body, r, NULL, e);
    *q = (struct rules_forced_query){.o = r->o, .fall_prone_at = -1};
    json_t *t = svc_decode_member(body, "target", r->o, true, target_keys, &q->target, e);
    svc_decode_member(body, "attacker", r->o, true, NULL, &q->attacker, e);
    if (t != NULL) {
        codec_get_bool(t, "/target", "voluntarily_prone", false, &q->voluntarily_prone, e);
        long long red = 0, fall = -1;
        codec_get_int(t, "/target", "reduction_squares", false, 0, RULES_FORCED_MAX, &red, e);
        codec_get_int(t, "/target", "fall_prone_at", false, 0, RULES_FORCED_MAX, &fall, e);
        q->reduction = (int)red, q->fall_prone_at = (int)fall;
        check_place(r, &q->target, RULES_ANY_MOVE_TYPE, "/target", r->nc, e);
    }
    q->kind =
        (enum rules_forced_kind)codec_get_enum(body, "", "kind", move_forced_names, true, 0, e);
    long long squares = 1;
    codec_get_int(body, "", "squares", true, 1, RULES_FORCED_MAX, &squares, e);
    q->squares = (int)squares;
    struct rules_step *path = move_decode_steps(body, "path", RULES_FORCED_MAX, r, q->target.body.x,
                                                q->target.body.y, false, n, e);
    if (*n > q->squares)
        svc_errors_add(e, "/path", "is longer than the %d squares of the forced movement",
                       q->squares);
    q->map = &r->map, q->creatures = r->cs, q->creature_count = r->nc;
    q->path = path, q->path_len = *n;
    return path;
}

void move_decode_speed(json_t *body, struct move_req *r, long long *checks, struct svc_errors *e)
{
    svc_decode_rules(body, &r->rules, e);
    r->o = &r->rules.options;
    json_t *m = json_object_get(body, "mover");
    if (m == NULL)
        svc_errors_add(e, "/mover", "is required");
    else if (codec_expect_object(m, "/mover", e)) {
        codec_reject_unknown(m, "/mover", mover_keys, e);
        decode_mover_fields(m, "/mover", r, e);
    }
    *checks = DEFAULT_CHECKS;
    codec_get_int(body, "", "checks", false, 0, MAX_CHECK_ROWS, checks, e);
}

/* --- for other parts of the service (move_codec.h) --- */

void svc_decode_board(json_t *body, const struct svc_request *req,
                      const char *const *creature_extra, const char *const *mover_extra,
                      struct svc_board *b, struct svc_errors *e)
{
    struct move_req r = {0};
    svc_decode_rules(body, &r.rules, e);
    r.o = &r.rules.options;
    r.primary = -1;
    move_budgets_init(&r, req->ctx->config);
    move_decode_map(body, req->ctx->config, &r, e);
    if (r.spent == NULL) {
        decode_creatures(body, &r, creature_extra, e);
        if (json_object_get(body, "mover") != NULL)
            b->mover_json = decode_mover(body, &r, mover_extra, e);
        r.mode = (enum rules_move_mode)codec_get_enum(body, "", "mode", rules_move_mode_names,
                                                      false, 0, e);
    }
    b->rules = r.rules;
    b->map = r.map;
    b->map_ok = r.map_ok;
    b->creatures = r.cs;
    b->ids = r.ids;
    b->creature_count = r.nc;
    b->mover = r.mover;
    b->mode = r.mode;
    b->work = r.work;
    b->spent = r.spent;
    b->spent_budget = r.spent_budget;
    b->spent_reached = r.spent_reached;
    free(r.no_attack);
    free(r.profiles);
}

void svc_board_free(struct svc_board *b)
{
    rules_map_free(&b->map);
    free(b->creatures);
    free(b->ids);
    memset(b, 0, sizeof *b);
}
