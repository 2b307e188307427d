/* Encounters: the full attack (action_economy), a full-round action: its iterative attacks (d20 3.5
 * SRD, Full Attack), each ruled as a single attack (enc_attack_on, attacks.c) on the state the
 * items before it left, and its plan: 5-foot steps traded for attacks (001 Trade Away Attacks)
 * and, with full_attack_plans, a facing change and another target between attacks (000's Kroh),
 * checked by rules_encounter_full_attack_plan. Split from attacks.c by what it does. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/encounter/apply.h"
#include "rules/encounter/encounter.h"
#include "rules/encounter/engine.h"
#include "rules/encounter/event.h"
#include "service/encounter/internal.h"
#include "service/json/errors.h"
#include "service/json/fields.h"

#define FULL_ATTACK_RULE                                                                           \
    "d20 3.5 SRD, Full Attack: iterative attacks at -5 each, from the base attack bonus"

/* A full attack's plan as decoded: the rules' items (rules_encounter_full_attack_plan), with
 * each attack's target id (NULL: the action's) and each step's square. */
struct plan_item {
    struct rules_plan_item it;
    const char *target;
    json_t *square;
};

/* Reads in's plan into items (count attacks when it has none): "attack" or {"step": {x, y}};
 * with full_attack_plans also {"attack": {"target": ID}} and
 * {"facing": F}. Returns how many items, or -1 after errors at /plan. Its shape only: the
 * rules check what the items ask (rules_encounter_full_attack_plan). */
static int decode_plan(json_t *in, int count, int engine, struct plan_item items[RULES_PLAN_MAX],
                       struct svc_errors *e)
{
    static const struct plan_item attack = {{RULES_PLAN_ATTACK, -1, -1}, NULL, NULL};
    json_t *plan = json_object_get(in, "plan");
    if (plan == NULL) {
        for (int i = 0; i < count && i < RULES_PLAN_MAX; i++)
            items[i] = attack;
        return count < RULES_PLAN_MAX ? count : RULES_PLAN_MAX;
    }
    bool wider = rules_encounter_full_attack_plans(engine);
    size_t max = wider ? RULES_PLAN_MAX : RULES_PLAN_MAX_NARROW;
    if (!json_is_array(plan) || json_array_size(plan) == 0 || json_array_size(plan) > max) {
        svc_errors_add(e, "/plan",
                       wider ? "must be a list of 1 to 8 items, each \"attack\", {\"attack\": "
                               "{\"target\": ID}}, {\"step\": {\"x\", \"y\"}} or "
                               "{\"facing\": F}"
                             : "must be a list of 1 to 4 items, each \"attack\" or {\"step\": "
                               "{\"x\", \"y\"}}");
        return -1;
    }
    size_t i;
    json_t *item;
    json_array_foreach(plan, i, item)
    {
        char p[32];
        snprintf(p, sizeof p, "/plan/%zu", i);
        json_t *sq = json_object_get(item, "step");
        json_t *at = json_object_get(item, "attack");
        json_t *f = json_object_get(item, "facing");
        bool one = json_is_object(item) && json_object_size(item) == 1;
        items[i] = attack;
        if (json_is_string(item) && strcmp(json_string_value(item), "attack") == 0)
            continue;
        if (one && json_is_object(sq) && json_object_size(sq) == 2 &&
            json_is_integer(json_object_get(sq, "x")) &&
            json_is_integer(json_object_get(sq, "y"))) {
            items[i] = (struct plan_item){{RULES_PLAN_STEP, -1, -1}, NULL, sq};
            continue;
        }
        if (wider && one && json_is_object(at) && json_object_size(at) == 1 &&
            json_is_string(json_object_get(at, "target"))) {
            items[i].target = json_string_value(json_object_get(at, "target"));
            continue;
        }
        if (wider && one && json_is_integer(f) && json_integer_value(f) >= 0 &&
            json_integer_value(f) <= 7) {
            items[i] =
                (struct plan_item){{RULES_PLAN_FACING, -1, (int)json_integer_value(f)}, NULL, NULL};
            continue;
        }
        svc_errors_add(e, p,
                       wider ? "must be \"attack\", {\"attack\": {\"target\": ID}}, "
                               "{\"step\": {\"x\": X, \"y\": Y}} or {\"facing\": 0 to 7}"
                             : "must be \"attack\" or {\"step\": {\"x\": X, \"y\": Y}}");
    }
    return svc_errors_any(e) ? -1 : (int)json_array_size(plan);
}

bool enc_check_plan(json_t *in, int engine, struct svc_errors *e)
{
    struct plan_item items[RULES_PLAN_MAX];
    return decode_plan(in, 0, engine, items, e) >= 0;
}

/* Why rules_encounter_full_attack_plan refused a plan (rc), at the item it names. */
static void plan_refusal(struct resolve_ctx *x, json_t *actor, bool has_facing, int rc,
                         const struct rules_full_attack_plan *plan)
{
    char p[48];
    switch (rc) {
    case RULES_PLAN_MONSTER:
        svc_errors_add(x->e, "/plan",
                       "only a player character may trade attacks for 5-foot steps; '%s' is not "
                       "one (player_character) (%s: \"Monsters cannot trade attack actions for "
                       "5-foot steps\")",
                       enc_str(actor, "id"), RULES_TRADE_SOURCE);
        return;
    case RULES_PLAN_TOO_MANY:
        svc_errors_add(x->e, "/plan",
                       "%d attacks and 5-foot steps, but the full attack has %d (%s: each step "
                       "uses up one of its attacks)",
                       plan->attacks + plan->steps, plan->iterative, RULES_TRADE_SOURCE);
        return;
    case RULES_PLAN_NO_FACING:
    case RULES_PLAN_FACING_SPENT:
        snprintf(p, sizeof p, "/plan/%d/facing", plan->item);
        svc_errors_add(x->e, p, "%s",
                       rc == RULES_PLAN_FACING_SPENT
                           ? "its one free facing change is spent, and a further one takes a "
                             "move action, which a full attack leaves none of (000 Changing "
                             "Facing)"
                       : has_facing ? "is not a facing of this grid"
                                    : "the actor has no facing under these rules (000 Combat "
                                      "Facing)");
        return;
    case RULES_PLAN_SELF:
        snprintf(p, sizeof p, "/plan/%d/attack/target", plan->item);
        svc_errors_add(x->e, p, "must be another combatant than the actor");
        return;
    default:
        svc_errors_add(x->e, "/plan", "is not a plan this engine rules");
    }
}

/* Moves the errors of attack i of a full attack (from, left empty) into `to`, each message
 * saying which attack it was: its dice (the attack's /results) are the full attack's
 * /results/i, its other members the full attack's own. */
static void refused_attack(struct svc_errors *from, int i, struct svc_errors *to)
{
    size_t k;
    json_t *err;
    json_array_foreach(from->list, k, err)
    {
        const char *p = enc_str(err, "pointer");
        char at[CODEC_PTR_MAX];
        if (strncmp(p, "/results", 8) == 0 && (p[8] == '\0' || p[8] == '/'))
            snprintf(at, sizeof at, "/results/%d%s", i, p + 8);
        else
            snprintf(at, sizeof at, "%s", p);
        svc_errors_add(to, at, "attack %d of the full attack (at %+d): %s", i + 1,
                       rules_iterative_penalty(i), enc_str(err, "message"));
    }
    svc_errors_free(from);
}

/* A full attack, a full-round action (its budget is spent by resolve_action): the
 * attack named (or the first) at its bonus, then again at -5 for each further iterative attack
 * the combatant's base attack bonus gives (d20 3.5 SRD, Full Attack: "an additional attack at
 * base attack bonus +6, +11 and +16", each 5 less), against the same target, each ruled as a
 * single attack on the state the attacks before it left, with its own dice (results: one array
 * per attack). Once the target drops, no more attacks. A player character's plan may trade
 * attacks for 5-foot steps before, between or after them (001 Trade Away Attacks: each step
 * uses up the worst attack left, so the attacks made keep the best bonuses; the steps do not
 * count as movement and provoke nothing). */
/* A full attack as it is made: what each item of its plan rules and leaves. Each item is ruled
 * on a typed work copy of the state that the items before it changed (rules/encounter/apply.h:
 * the ruling code that writes each effect applies the same change to it), never on a copy of
 * the stored JSON with their effects folded in. */
struct full_attack_run {
    struct rules_encounter_work work; /* the typed state as the items so far leave it */
    struct resolve_ctx ctx;           /* rules on work (ctx.work), x's stored state beside it */
    json_t *rulings;                  /* each attack's ruling */
    json_t *effects;                  /* the effects so far */
    json_t *stepped;                  /* {x, y, at} of each 5-foot step */
    json_t *turned;                   /* {facing, at} of each change of facing */
    json_t *aimed;                    /* the target of each attack */
    int made;                         /* attacks made */
#ifndef NDEBUG
    /* Debug builds: every effect as the work copy took it (an attack's turn too, which the
     * full attack's own effects leave to resolve_action), checked after each item against a
     * fresh decode of the stored state with them folded in (enc_check_applied). */
    json_t *applied;
#endif
};

/* After an item applied effects (borrowed) to the run's work copy: debug builds check it. */
static void run_applied(struct resolve_ctx *x, struct full_attack_run *run, json_t *effects)
{
#ifndef NDEBUG
    json_t *copy = json_deep_copy(effects); /* the caller may take the turn out of its own */
    json_array_extend(run->applied, copy);
    json_decref(copy);
    enc_check_applied(x, run->applied, &run->work.e);
#else
    (void)x, (void)run, (void)effects;
#endif
}

/* The plan's items as rules/ takes them (plain), each named target found in the encounter;
 * false after adding the error of a target that names no combatant. */
static bool plan_targets(struct resolve_ctx *x, const struct rules_encounter *te,
                         const struct plan_item *items, struct rules_plan_item *plain, int n_items)
{
    assert(n_items >= 0 && n_items <= RULES_PLAN_MAX);
    for (int i = 0; i < n_items; i++) {
        plain[i] = items[i].it;
        if (items[i].target == NULL)
            continue;
        plain[i].target = rules_encounter_find(te, items[i].target);
        if (plain[i].target < 0) {
            char p[48];
            snprintf(p, sizeof p, "/plan/%d/attack/target", i);
            svc_errors_add(x->e, p, "names no combatant");
            return false;
        }
    }
    return true;
}

/* Appends one item's effects (a new array) to the run, the work copy changed by them already. */
static void run_effects(struct resolve_ctx *x, struct full_attack_run *run, json_t *ef)
{
    run_applied(x, run, ef);
    json_array_extend(run->effects, ef);
    json_decref(ef);
}

/* The plan's 5-foot step (item, to square) by me, the actor as the run left it; false after
 * adding errors. */
static bool run_step(struct resolve_ctx *x, struct full_attack_run *run, json_t *actor, json_t *me,
                     int item, json_t *square)
{
    char p[32];
    snprintf(p, sizeof p, "/plan/%d/step", item);
    json_t *fields = NULL;
    run->ctx.e = x->e;
    json_t *ans = enc_rule_traded_step(&run->ctx, me, square, p, &fields);
    if (ans == NULL)
        return false;
    json_array_append_new(run->stepped,
                          json_pack("{s:O, s:O, s:i}", "x", json_object_get(fields, "x"), "y",
                                    json_object_get(fields, "y"), "at", item));
    run_effects(x, run, json_pack("[o]", enc_effect_set(enc_str(actor, "id"), fields)));
    json_decref(ans);
    return true;
}

/* The plan's attack (item, the i-th of the full attack) by me at target_id: ruled as a single
 * attack (enc_attack_on) on the run's work copy, with its own dice and iterative bonus; an
 * attack at a target that dropped is not made. me and the target are the stored combatants
 * before the event (their ids and profiles, which no item changes). False after adding
 * errors. */
static bool run_attack(struct resolve_ctx *x, struct full_attack_run *run, json_t *in,
                       json_t *actor, json_t *me, int item, int i, const char *target_id)
{
    json_t *target = enc_find(x->state, target_id, NULL);
    if (target == NULL) {
        char p[48];
        snprintf(p, sizeof p, "/plan/%d/attack/target", item);
        svc_errors_add(x->e, p, "names no combatant");
        return false;
    }
    run->ctx.e = x->e;
    const struct rules_enc_combatant *whom = enc_typed_of(&run->ctx, target, NULL);
    if (whom == NULL)
        return false; /* the state could not be read: x->e says why */
    if (run->made > 0 && rules_enc_combatant_dropped(whom))
        return true; /* no more attacks at a target that dropped; others may still follow */
    json_t *one = json_pack("{s:s, s:s, s:s}", "type", "attack", "actor", enc_str(me, "id"),
                            "target", enc_str(target, "id"));
    static const char *const pass[] = {"attack", "cover", "concealment", "bonus", NULL};
    for (int p = 0; pass[p]; p++)
        if (json_object_get(in, pass[p]))
            json_object_set(one, pass[p], json_object_get(in, pass[p]));
    json_t *results = json_object_get(in, "results");
    if (json_array_get(results, (size_t)i) != NULL)
        json_object_set(one, "results", json_array_get(results, (size_t)i));
    struct resolve_ctx *each = &run->ctx;
    each->seq = x->seq + ((long long)(i + 1) << 32); /* each attack its own dice */
    each->iterative = i;                             /* its profile at its iterative bonus */
    struct svc_errors mine;
    svc_errors_init(&mine);
    each->e = &mine;
    json_t *out = enc_attack_on(each, one, me, target, NULL, 0);
    each->e = x->e;
    each->seq = x->seq;
    each->iterative = 0;
    refused_attack(&mine, i, x->e);
    if (out != NULL) {
        json_array_append(run->rulings, json_object_get(out, "result"));
        json_array_append_new(run->aimed, json_string(enc_str(target, "id")));
        run_applied(x, run, json_object_get(out, "effects"));
        /* The actor's turn is the full attack's (resolve_action stamps its budget), not each
         * single attack's. */
        size_t n;
        json_t *ef;
        json_array_foreach(json_object_get(out, "effects"), n, ef)
        {
            json_t *fields = json_object_get(ef, "fields");
            if (strcmp(enc_str(ef, "target"), enc_str(actor, "id")) == 0)
                json_object_del(fields, "turn");
            if (fields == NULL || json_object_size(fields) > 0)
                json_array_append(run->effects, ef);
        }
        run->made++;
    }
    json_decref(out);
    json_decref(one);
    return out != NULL;
}

/* Makes the plan's n_items items in order on the run; false after adding errors (the first
 * item refused ends it). */
static bool run_plan(struct resolve_ctx *x, struct full_attack_run *run, json_t *in, json_t *actor,
                     const struct plan_item *items, int n_items,
                     const struct rules_full_attack_plan *plan)
{
    int ai = rules_encounter_find(&run->work.e, enc_str(actor, "id"));
    for (int item = 0; item < n_items; item++) {
        json_t *me = actor;
        if (items[item].it.kind == RULES_PLAN_STEP) {
            if (!run_step(x, run, actor, me, item, items[item].square))
                return false;
        } else if (items[item].it.kind == RULES_PLAN_FACING) {
            /* 000 Changing Facing, between two attacks: its one free change, spent on the turn
             * by the plan's check, as Kroh turns from the bugbear to the goblin (000). */
            int facing = items[item].it.facing;
            const struct rules_enc_combatant *c = &run->work.e.combatants[ai];
            rules_encounter_set_place(&run->work, ai, c->body.body.x, c->body.body.y, facing);
            run_effects(x, run,
                        json_pack("[o]", enc_effect_set(enc_str(me, "id"),
                                                        json_pack("{s:i}", "facing", facing))));
            json_array_append_new(run->turned,
                                  json_pack("{s:i, s:i}", "facing", facing, "at", item));
        } else {
            assert(plan->attack_of[item] >= 0);
            const char *target_id =
                items[item].target != NULL ? items[item].target : enc_str(in, "target");
            if (!run_attack(x, run, in, actor, me, item, plan->attack_of[item], target_id))
                return false;
        }
    }
    return true;
}

json_t *enc_action_full_attack(struct resolve_ctx *x, json_t *in, json_t *actor)
{
    const struct rules_encounter *te = enc_typed(x);
    int ai = -1, ti = -1;
    if (te == NULL || enc_typed_of(x, actor, &ai) == NULL)
        return NULL;
    ti = rules_encounter_find(te, enc_str(in, "target"));
    const struct rules_enc_combatant *me0 = &te->combatants[ai];
    int count = rules_iterative_attacks(me0->base_attack_bonus < 0      ? 0
                                        : me0->base_attack_bonus > 1000 ? 1000
                                                                        : me0->base_attack_bonus);
    struct plan_item items[RULES_PLAN_MAX];
    struct rules_plan_item plain[RULES_PLAN_MAX];
    int n_items = decode_plan(in, count, x->engine, items, x->e);
    if (n_items < 0 || !plan_targets(x, te, items, plain, n_items))
        return NULL;
    struct rules_turn spare = {0};
    struct rules_turn_limits none = {0};
    struct rules_full_attack_plan plan;
    int rc = rules_encounter_full_attack_plan(te, ai, ti, plain, n_items,
                                              x->turn != NULL ? x->turn : &spare,
                                              x->limits != NULL ? x->limits : &none, &plan);
    if (rc != RULES_PLAN_OK) {
        plan_refusal(x, actor, rules_has_facing(enc_rules_of(x), &me0->body), rc, &plan);
        return NULL;
    }
    int steps = plan.steps, facings = plan.facings, attacks = plan.attacks;
    bool targets = false;
    for (int i = 0; i < n_items; i++)
        targets |= items[i].target != NULL;
    json_t *results = json_object_get(in, "results");
    if (results != NULL &&
        (!json_is_array(results) || json_array_size(results) > (size_t)attacks)) {
        svc_errors_add(x->e, "/results",
                       "a full attack takes one array of results per attack (%d here)", attacks);
        return NULL;
    }
    struct full_attack_run run = {.rulings = json_array(),
                                  .effects = json_array(),
                                  .stepped = json_array(),
                                  .turned = json_array(),
                                  .aimed = json_array()};
#ifndef NDEBUG
    run.applied = json_array();
#endif
    bool ok = rules_encounter_work_copy(te, &run.work);
    if (!ok)
        svc_errors_add(x->e, "", "the full attack could not be ruled");
    else {
        run.ctx = *x;
        run.ctx.work = &run.work;
        ok = run_plan(x, &run, in, actor, items, n_items, &plan);
    }
    rules_encounter_work_free(&run.work);
#ifndef NDEBUG
    json_decref(run.applied);
#endif
    if (!ok) {
        json_decref(run.rulings);
        json_decref(run.effects);
        json_decref(run.stepped);
        json_decref(run.turned);
        json_decref(run.aimed);
        return NULL;
    }
    json_t *result =
        json_pack("{s:o, s:i, s:i, s:s}", "attacks", run.rulings, "attacks_made", run.made,
                  "iterative_attacks", count, "rule",
                  steps > 0 ? FULL_ATTACK_RULE "; " RULES_TRADE_SOURCE
                                               ": each 5-foot step uses up the worst attack left"
                            : FULL_ATTACK_RULE);
    /* Only when the plan has them: full attacks without a plan rule as before. */
    if (steps > 0)
        json_object_set_new(result, "steps", run.stepped);
    else
        json_decref(run.stepped);
    if (facings > 0)
        json_object_set_new(result, "facings", run.turned);
    else
        json_decref(run.turned);
    if (targets || facings > 0)
        json_object_set_new(result, "targets", run.aimed);
    else
        json_decref(run.aimed);
    return enc_outcome(result, run.effects);
}
