/* Encounters: a move (any mode), a 5-foot step and forced movement, as data (DESIGN.md, "One
 * encounter action"). The stored state is read straight into the movement request's structs
 * (enc_move_req: the encounter's rules and map, every other combatant as the mover sees it, the
 * mover with what its turn has spent), the action's own members by the path endpoint's codec (the
 * steps, the end facing, a withdraw), and rules_encounter_move rules it: the charge's opponent, the
 * path, the charge's line, what the move leaves. The ruling is encoded once, by the path endpoint's
 * own writer, and stored as the event's result; the effects come from the ruling's structs.
 * The reactions the move opens are encounter_reactions.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/encounter/apply.h"
#include "rules/encounter/event.h"
#include "service/codec/answer.h"
#include "service/codec/move_req.h"
#include "service/codec/ruling.h"
#include "service/encounter/internal.h"
#include "service/json/errors.h"
#include "service/json/fields.h"

/* The part of a movement request the stored state makes for me (a combatant of x->state) that
 * every movement ruling shares: the encounter's rules and map, and every other combatant as me
 * sees it (its side, whether it is up, whether it may make an attack of opportunity now, and
 * with what bonus). The stored combatants were placed by enc_check_place when they were added
 * or changed, under the engine of those events, so their places are not ruled again here (as
 * the path endpoint does not rule them again on a map decoded beforehand). False when the map
 * cannot be decoded (why gets the reasons, as the path endpoint gives them) or memory ran
 * out. */
static bool enc_move_base(struct resolve_ctx *x, json_t *me, struct move_req *r,
                          struct svc_errors *why)
{
    r->rules = *enc_svc_rules_of(x);
    r->o = &r->rules.options;
    r->primary = -1;
    move_budgets_init(r, enc_config(x));
    const struct rules_map *map = enc_state_map(x);
    if (map != NULL) {
        r->map = *map;
        r->map_ok = r->map_borrowed = true;
    } else { /* not decodable (say, a budget lowered since): why, as the endpoint would say */
        move_decode_map(x->state, enc_config(x), r, why);
        if (r->spent != NULL) /* r->spent stays for a query to answer too-expensive */
            svc_errors_add(why, "/map", "needs more than the %s budget (%lld; reached %lld)",
                           r->spent, r->spent_budget, r->spent_reached);
        r->map_ok = r->map_ok && !svc_errors_any(why);
    }
    const struct rules_encounter *te = enc_typed(x);
    int at = -1;
    if (te == NULL || enc_typed_of(x, me, &at) == NULL)
        return false;
    size_t n = (size_t)te->count;
    r->cs = calloc(n + 1, sizeof *r->cs);
    r->ids = calloc(n + 1, sizeof *r->ids);
    r->no_attack = calloc(n + 1, sizeof *r->no_attack);
    r->profiles = calloc(n + 1, sizeof *r->profiles);
    int *index = calloc(n + 1, sizeof *index);
    bool ok = r->map_ok && r->cs != NULL && r->ids != NULL && r->no_attack != NULL &&
              r->profiles != NULL && index != NULL;
    if (ok) {
        /* Every other combatant as me sees it (rules_encounter_board). A stored combatant was
         * placed when it was added or changed, so only a forged state leaves one out. */
        r->nc = rules_encounter_board(te, at, r->cs, index);
        ok = r->nc == te->count - 1;
        for (int k = 0; k < r->nc; k++)
            r->ids[k] = te->combatants[index[k]].id;
    }
    free(index);
    return ok;
}

/* The movement request the stored state makes for mover moving in mode (enc_move_base, and the
 * mover with its burdens and what turn, its turn or NULL for a traded step that "does not count
 * as movement", has spent); false only when memory ran out. */
static bool enc_move_req(struct resolve_ctx *x, json_t *mover, json_t *turn,
                         enum rules_move_mode mode, struct move_req *r, struct svc_errors *why);

bool enc_move_request(struct resolve_ctx *x, json_t *mover, enum rules_move_mode mode,
                      struct move_req *r, struct svc_errors *why)
{
    return enc_move_req(x, mover, json_object_get(mover, "turn"), mode, r, why);
}

/* Adds from's errors to x->e: at their own pointers when prefix is NULL, else at prefix as
 * "POINTER: message" (an inner request's errors, as enc_answer words them). */
static void errors_under(struct resolve_ctx *x, struct svc_errors *from, const char *prefix)
{
    size_t i;
    json_t *err;
    json_array_foreach(from->list, i, err)
    {
        if (prefix == NULL)
            svc_errors_add(x->e, enc_str(err, "pointer"), "%s", enc_str(err, "message"));
        else
            svc_errors_add(x->e, prefix, "%s: %s", enc_str(err, "pointer"),
                           enc_str(err, "message"));
    }
}

static bool enc_move_req(struct resolve_ctx *x, json_t *mover, json_t *turn,
                         enum rules_move_mode mode, struct move_req *r, struct svc_errors *why)
{
    r->mode = mode;
    if (!enc_move_base(x, mover, r, why))
        return false;
    int me = -1;
    const struct rules_enc_combatant *who = enc_typed_of(x, mover, &me);
    if (who == NULL || !who->placed)
        return false;
    struct rules_turn spent;
    svc_enc_turn_decode(turn, &spent);
    rules_encounter_mover_of(enc_typed(x), me, turn != NULL ? &spent : NULL, mode, &r->mover);
    r->has_constitution = json_object_get(mover, "constitution") != NULL;
    return true;
}

/* Adds a path ruling's violations (rules_move_path's, in the order its answer lists them: the
 * action's, then each step's) as errors: at path_ptr/STEP, or at mode_ptr when one names no step
 * (or path_ptr is NULL). */
static void path_errors(struct resolve_ctx *x, const struct rules_path_result *p, int n,
                        const char *path_ptr, const char *mode_ptr)
{
    for (int i = -1; i < n; i++) {
        uint32_t bits = i < 0 ? p->action_violations : p->steps[i].violations;
        char ptr[64];
        if (i >= 0 && path_ptr != NULL)
            snprintf(ptr, sizeof ptr, "%s/%d", path_ptr, i);
        else
            snprintf(ptr, sizeof ptr, "%s", mode_ptr);
        for (int v = 0; v < RULES_MV_COUNT; v++)
            if (bits & (1u << v))
                svc_errors_add(x->e, ptr, "%s (%s)",
                               rules_move_violation_text((enum rules_move_violation)v),
                               rules_move_violation_source((enum rules_move_violation)v));
    }
}

/* Why rules_encounter_move refused a charge (at foe, named at /target), in words at the step or
 * member that breaks it. */
static void charge_refusal(struct resolve_ctx *x, json_t *actor, const char *foe, int rc,
                           const struct rules_enc_move_ruling *m, int n)
{
    char why[400];
    move_charge_why(rc, m->charge, enc_str(actor, "id"), foe, why, sizeof why);
    char ptr[32] = "/target";
    if (rc == RULES_ENC_MOVE_NO_MELEE)
        snprintf(ptr, sizeof ptr, "/mode");
    else if (rc == RULES_ENC_MOVE_CHARGE && m->charge == RULES_CHARGE_SHORT)
        snprintf(ptr, sizeof ptr, "/path");
    else if (rc == RULES_ENC_MOVE_CHARGE)
        snprintf(ptr, sizeof ptr, "/path/%d", m->charge_at >= 0 ? m->charge_at : n > 0 ? n - 1 : 0);
    svc_errors_add(x->e, ptr, "%s", why);
}

/* The fields a legal move leaves on its mover (a new object): its square and facing, its turn's
 * marks and charge target, a run's flat-footed condition, a charge's timed -2 AC. */
static json_t *move_fields(json_t *actor, const struct rules_enc_move_ruling *m, const char *foe)
{
    json_t *fields = json_pack("{s:i, s:i}", "x", m->end_x, "y", m->end_y);
    if (m->end_facing >= 0)
        json_object_set_new(fields, "facing", json_integer(m->end_facing));
    json_t *turn = json_deep_copy(json_object_get(actor, "turn"));
    if (turn == NULL)
        turn = json_object();
    if (m->marks.stepped)
        json_object_set_new(turn, "stepped", json_true());
    if (m->marks.moved)
        json_object_set_new(turn, "moved", json_true());
    if (m->marks.ran)
        json_object_set_new(turn, "ran", json_true());
    if (foe != NULL) /* its one attack is at this opponent */
        json_object_set_new(turn, "charge_target", json_string(foe));
    json_object_set_new(fields, "turn", turn);
    if (m->marks.flat_footed)
        json_object_set_new(fields, "conditions", enc_conditions_with(actor, "flat_footed", true));
    if (m->charging)
        enc_timed_fields(actor, "charging", m->charging_end_round, m->charging_end_turn, fields);
    return fields;
}

/* Rules mover's move in mode along in.path (with the rule charge: a charge at in.target), and
 * encodes its answer: the answer when legal (a new reference; *ruling filled), else NULL after
 * errors: the action's own members at their pointers, a violation at path_ptr/STEP or mode_ptr. A
 * traded step (path_ptr NULL) reports everything at mode_ptr, its own pointer first. */
static json_t *rule_move(struct resolve_ctx *x, json_t *in, json_t *mover, json_t *turn,
                         enum rules_move_mode mode, const char *path_ptr, const char *mode_ptr,
                         struct rules_enc_move_ruling *ruling, struct enc_provoked **provoked)
{
    json_t *ans = NULL;
    struct move_req r = {0};
    struct rules_step *steps = NULL;
    struct svc_errors de;
    svc_errors_init(&de);
    const char *prefix = path_ptr != NULL ? path_ptr : mode_ptr;
    const char *what = path_ptr != NULL ? "move" : "5-foot step";
    if (!enc_move_req(x, mover, turn, mode, &r, &de)) {
        if (svc_errors_any(&de))
            errors_under(x, &de, prefix);
        else
            svc_errors_add(x->e, prefix, "the %s could not be ruled", what);
        goto out;
    }
    const struct rules_encounter *te = enc_typed(x);
    int mi = -1;
    const struct rules_enc_combatant *who = enc_typed_of(x, mover, &mi);
    struct rules_move_query q = move_query_of(&r);
    const char *target = enc_str(in, "target");
    struct rules_enc_move m = {.q = &q,
                               .end_facing = -1,
                               .target_named = json_object_get(in, "target") != NULL,
                               .target = -1,
                               .has_melee = rules_encounter_melee_of(te, mi),
                               .runner = who->runner,
                               .charging = who->conditions & 1u << RULES_CONDITION_CHARGING};
    for (int k = 0; k < r.nc && *target; k++)
        if (strcmp(r.ids[k], target) == 0)
            m.target = k;
    int rc = rules_encounter_move_target(te, &m);
    if (rc != RULES_ENC_MOVE_OK) {
        charge_refusal(x, mover, target, rc, ruling, 0);
        goto out;
    }
    /* The action's own members, by the path endpoint's codec and in its order. */
    move_decode_withdraw(in, &r, &de);
    steps = move_decode_steps(in, "path", RULES_MAX_PATH, &r, r.mover.c.body.x, r.mover.c.body.y,
                              true, &m.n, &de);
    long long end_facing = -1;
    if (CODEC_WITHIN(codec_get_int(in, "", "end_facing", false, 0, rules_facing_count(r.o) - 1,
                                   &end_facing, &de)) &&
        !rules_has_facing(r.o, &r.mover.c))
        svc_errors_add(&de, "/end_facing", "the mover has no facing");
    if (svc_errors_any(&de)) {
        errors_under(x, &de, path_ptr != NULL ? NULL : mode_ptr);
        goto out;
    }
    q.primary_target = r.primary;
    m.steps = steps;
    m.end_facing = (int)end_facing;
    ruling->path.steps = calloc((size_t)m.n + 1, sizeof *ruling->path.steps);
    ruling->path.aoos = calloc((size_t)r.nc + 1, sizeof *ruling->path.aoos);
    rc = ruling->path.steps == NULL || ruling->path.aoos == NULL
             ? RULES_ENC_MOVE_NOMEM
             : rules_encounter_move(te, &m, ruling);
    if (rc == RULES_ENC_MOVE_NOMEM) {
        svc_errors_add(x->e, prefix, "the %s could not be ruled", what);
        goto out;
    }
    /* The answer POST /v1/movement/path gives, from the same ruling. */
    struct svc_answer a = {0};
    move_answer_path_ruled(&a, &r, m.n, &ruling->path, 0, false);
    ans = enc_answer(x, &a, prefix, what);
    if (ans != NULL && rc == RULES_ENC_MOVE_ILLEGAL)
        path_errors(x, &ruling->path, m.n, path_ptr, mode_ptr);
    else if (ans != NULL && rc != RULES_ENC_MOVE_OK)
        charge_refusal(x, mover, target, rc, ruling, m.n);
    if (rc != RULES_ENC_MOVE_OK) {
        json_decref(ans);
        ans = NULL;
    }
    /* The attacks of opportunity it provoked, by their reactors' ids (for the reactions). */
    if (ans != NULL && provoked != NULL) {
        *provoked = calloc((size_t)ruling->path.aoo_count + 1, sizeof **provoked);
        if (*provoked == NULL) {
            svc_errors_add(x->e, prefix, "the %s could not be ruled", what);
            json_decref(ans);
            ans = NULL;
            goto out;
        }
        for (int i = 0; i < ruling->path.aoo_count; i++) {
            const struct rules_aoo *aoo = &ruling->path.aoos[i];
            (*provoked)[i] = (struct enc_provoked){r.ids[aoo->creature], aoo->step, aoo->from_x,
                                                   aoo->from_y, aoo->facing};
        }
    }
out:
    svc_errors_free(&de);
    free(steps);
    move_req_free(&r);
    return ans;
}

static void ruling_free(struct rules_enc_move_ruling *m)
{
    free(m->path.steps);
    free(m->path.aoos);
}

json_t *enc_rule_traded_step(struct resolve_ctx *x, json_t *mover, json_t *square, const char *ptr,
                             json_t **fields)
{
    /* No turn: a traded step "does not count as movement" (001 Trade Away Attacks). */
    json_t *in = json_pack("{s:[O]}", "path", square);
    struct rules_enc_move_ruling m = {0};
    json_t *ans = rule_move(x, in, mover, NULL, RULES_MODE_STEP, NULL, ptr, &m, NULL);
    *fields = NULL;
    if (ans != NULL) { /* where the step leaves it: the ruling's end square and facing */
        *fields = json_pack("{s:i, s:i}", "x", m.end_x, "y", m.end_y);
        if (m.end_facing >= 0)
            json_object_set_new(*fields, "facing", json_integer(m.end_facing));
        /* Within a full attack, the same change on its typed state (x->work). */
        int me = x->work != NULL ? rules_encounter_find(&x->work->e, enc_str(mover, "id")) : -1;
        if (me >= 0)
            rules_encounter_set_place(x->work, me, m.end_x, m.end_y, m.end_facing);
    }
    ruling_free(&m);
    json_decref(in);
    return ans;
}

/* A move given `to` and no path (players say "to (3, 4)" or "toward the orc"): the
 * path the route query finds (GET .../route: the cheapest legal way for this mover, mode and
 * turn, to the square or to the first square threatening the creature) is put in in.path, and
 * the action is ruled along it as if sent so; the log stores it, so replay and verify read the
 * path. A charge toward a creature with no target names it. False after errors at /to. */
static bool route_to(struct resolve_ctx *x, json_t *in, json_t *actor, enum rules_move_mode mode)
{
    json_t *to = json_object_get(in, "to");
    struct move_req r = {0};
    struct svc_errors de;
    svc_errors_init(&de);
    struct rules_step *steps = NULL;
    bool ok = false;
    if (!enc_move_req(x, actor, json_object_get(actor, "turn"), mode, &r, &de)) {
        if (svc_errors_any(&de))
            errors_under(x, &de, "/to");
        else
            svc_errors_add(x->e, "/to", "the route could not be searched");
        goto out;
    }
    json_t *body = json_is_string(to) ? json_pack("{s:{s:O}}", "target", "creature", to)
                                      : json_pack("{s:O}", "target", to);
    struct rules_route_goal goal;
    move_decode_target(body, &r, &goal, &de);
    json_decref(body);
    if (svc_errors_any(&de)) {
        errors_under(x, &de, "/to");
        goto out;
    }
    struct rules_move_query q = move_query_of(&r);
    q.work = &r.work;
    int max = r.map.width * r.map.height + 1;
    max = max > RULES_MAX_PATH ? RULES_MAX_PATH : max;
    steps = calloc((size_t)max + 1, sizeof *steps);
    int cost = 0;
    int n =
        steps == NULL ? RULES_MOVE_ERR_NOMEM - 1 : rules_move_route(&q, &goal, steps, max, &cost);
    if (n == RULES_MOVE_TOO_EXPENSIVE - 1) {
        svc_errors_add(x->e, "/to", "the route search needs more than its budget (%lld states)",
                       r.work.limit);
    } else if (n < -1) {
        svc_errors_add(x->e, "/to", "the route could not be searched");
    } else if (n < 0) {
        svc_errors_add(x->e, "/to",
                       "no legal route there: every way is blocked for this mover "
                       "and mode");
    } else {
        json_t *path = json_array();
        for (int i = 0; i < n; i++)
            json_array_append_new(
                path, move_hex(&r) ? json_pack("{s:i, s:i}", "q", steps[i].x, "r", steps[i].y)
                                   : json_pack("{s:i, s:i}", "x", steps[i].x, "y", steps[i].y));
        json_object_set_new(in, "path", path);
        if (mode == RULES_MODE_CHARGE && json_is_string(to) &&
            json_object_get(in, "target") == NULL)
            json_object_set(in, "target", to);
        ok = true;
    }
out:
    free(steps);
    move_req_free(&r);
    svc_errors_free(&de);
    return ok;
}

/* A move with both `to` and a path (as the log stores a routed one): the path ends at `to`'s
 * square (a creature's is checked by the path's own rules, for a charge). */
static bool path_reaches(struct resolve_ctx *x, json_t *in)
{
    json_t *to = json_object_get(in, "to");
    json_t *path = json_object_get(in, "path");
    if (!json_is_object(to) || json_array_size(path) == 0)
        return true;
    json_t *last = json_array_get(path, json_array_size(path) - 1);
    bool hex = json_object_get(to, "q") != NULL;
    const char *kx = hex ? "q" : "x", *ky = hex ? "r" : "y";
    if (json_equal(json_object_get(last, kx), json_object_get(to, kx)) &&
        json_equal(json_object_get(last, ky), json_object_get(to, ky)))
        return true;
    svc_errors_add(x->e, "/to",
                   "the path ends elsewhere: give to or path, or a path that ends "
                   "there");
    return false;
}

json_t *enc_action_move(struct resolve_ctx *x, json_t *in, json_t *actor, enum rules_move_mode mode)
{
    bool routed = json_object_get(in, "to") != NULL;
    if (routed && json_object_get(in, "path") == NULL ? !route_to(x, in, actor, mode)
                                                      : !path_reaches(x, in))
        return NULL;
    struct rules_enc_move_ruling m = {0};
    struct enc_provoked *provoked = NULL;
    /* A violation of no step names the mode, or the action for a 5-foot step (it has none). */
    json_t *ans = rule_move(x, in, actor, json_object_get(actor, "turn"), mode, "/path",
                            mode == RULES_MODE_STEP ? "/type" : "/mode", &m, &provoked);
    json_t *effects = NULL;
    if (ans != NULL) {
        bool charge = rules_encounter_move_names_opponent(x->engine, mode);
        effects = json_pack(
            "[o]", enc_effect_set(enc_str(actor, "id"),
                                  move_fields(actor, &m, charge ? enc_str(in, "target") : NULL)));
        if (rules_encounter_move_opens_reactions(x->engine)) {
            /* The reactions start from what the move leaves, the same change made on a work
             * copy of the typed state (rules_encounter_set_moved) as move_fields wrote it. */
            const struct rules_encounter *te = enc_typed(x);
            struct rules_encounter_work w;
            int me = te != NULL ? rules_encounter_find(te, enc_str(actor, "id")) : -1;
            if (me < 0 || !rules_encounter_work_copy(te, &w)) {
                svc_errors_add(x->e, "", "the reactions could not be opened");
            } else if (!rules_encounter_set_moved(
                           &w, me, &m,
                           charge ? rules_encounter_find(te, enc_str(in, "target")) : -1)) {
                rules_encounter_work_free(&w);
                svc_errors_add(x->e, "", "the reactions could not be opened");
            } else {
                struct enc_acted acted = {&w, json_is_integer(json_object_get(actor, "facing")) ||
                                                  m.end_facing >= 0};
                enc_open_reactions(x, acted, in, actor, provoked, m.path.aoo_count, ans, effects,
                                   NULL);
            }
        }
        if (routed) /* said so: the path is the route query's, not the player's */
            json_object_set_new(
                ans, "routed",
                json_pack("{s:O, s:s}", "to", json_object_get(in, "to"), "rule",
                          "the path is the route query's (GET .../route) for this mover, mode "
                          "and turn: the cheapest legal way there"));
    }
    free(provoked);
    ruling_free(&m);
    if (ans == NULL ||
        svc_errors_any(x->e)) { /* the table's dice for an engine attack did not fit */
        json_decref(ans);
        json_decref(effects);
        return NULL;
    }
    return enc_outcome(ans, effects);
}

json_t *enc_action_forced(struct resolve_ctx *x, json_t *in, json_t *actor)
{
    json_t *target = enc_find(x->state, enc_str(in, "target"), NULL);
    if (target == NULL) {
        svc_errors_add(x->e, "/target", "names no combatant");
        return NULL;
    }
    /* 001 Forced Movement, on the stored board: everyone but the target, as it sees them. */
    struct move_req r = {0};
    struct rules_forced_query q = {.fall_prone_at = -1};
    struct rules_step *path = NULL;
    json_t *ans = NULL;
    struct svc_errors why;
    svc_errors_init(&why);
    if (!enc_move_base(x, target, &r, &why) || !enc_creature_of(r.o, target, &q.target) ||
        !enc_creature_of(r.o, actor, &q.attacker)) {
        if (svc_errors_any(&why))
            errors_under(x, &why, "");
        else
            svc_errors_add(x->e, "", "the forced movement could not be ruled");
        goto out;
    }
    /* The action's own members, as POST /v1/movement/forced reads them. */
    long long red = 0, fall = -1, squares = 1;
    /* Whether the target resists as a prone creature: when the encounter knows how it became
     * prone (rules_encounter_prone_known), it rules it and the action may not claim it. */
    int ti = -1;
    bool known =
        enc_typed_of(x, target, &ti) != NULL && rules_encounter_prone_known(enc_typed(x), ti);
    if (known && json_object_get(in, "voluntarily_prone") != NULL)
        svc_errors_add(x->e, "/voluntarily_prone",
                       "is the encounter's to know: it keeps how each creature became prone (001 "
                       "Forced Movement)");
    else if (known)
        q.voluntarily_prone = rules_encounter_resists_forced(enc_typed(x), ti);
    else
        codec_get_bool(in, "", "voluntarily_prone", false, &q.voluntarily_prone, x->e);
    codec_get_int(in, "", "reduction_squares", false, 0, RULES_FORCED_MAX, &red, x->e);
    codec_get_int(in, "", "fall_prone_at", false, 0, RULES_FORCED_MAX, &fall, x->e);
    q.kind =
        (enum rules_forced_kind)codec_get_enum(in, "", "kind", move_forced_names, true, 0, x->e);
    codec_get_int(in, "", "squares", true, 1, RULES_FORCED_MAX, &squares, x->e);
    int n = 0;
    path = move_decode_steps(in, "path", RULES_FORCED_MAX, &r, q.target.body.x, q.target.body.y,
                             false, &n, x->e);
    if (n > squares)
        svc_errors_add(x->e, "/path", "is longer than the %lld squares of the forced movement",
                       squares);
    if (svc_errors_any(x->e))
        goto out;
    q.o = r.o, q.map = &r.map, q.creatures = r.cs, q.creature_count = r.nc;
    q.reduction = (int)red, q.fall_prone_at = (int)fall, q.squares = (int)squares;
    q.path = path, q.path_len = n;
    struct rules_forced_result res;
    rules_move_forced(&q, &res);
    struct svc_answer a = {0};
    move_answer_forced(&a, &r, &q, &res, path);
    ans = enc_answer(x, &a, "", "forced movement");
    if (ans == NULL)
        goto out;
    json_t *fields = json_pack("{s:i, s:i, s:i}", "x", res.x, "y", res.y, "z", res.z);
    if (res.prone)
        enc_gain_condition(x, target, "prone", RULES_CAUSE_FORCED, fields);
    ans = enc_outcome(ans, json_pack("[o]", enc_effect_set(enc_str(target, "id"), fields)));
out:
    svc_errors_free(&why);
    free(path);
    move_req_free(&r);
    return ans;
}
