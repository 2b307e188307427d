/* Whether an encounter's attack may be made (rules_encounter_attack_check): reach (004
 * Threatened Area; 001 Reach), what an attack of opportunity needs (004 Attacks of Opportunity,
 * Flat-Footed; d20 3.5 SRD, Combat Reflexes, Stunned), and the charge's one attack (SRD, Charge);
 * who may make an attack of opportunity, with which profile, and who helps flank.
 * Pure: no allocation, no I/O. A full attack's plan checked item by item. */
#include <assert.h>

#include "rules/attack/attack.h"
#include "rules/attack/roll.h"
#include "rules/board/threat.h"
#include "rules/encounter/encounter.h"
#include "rules/encounter/engine.h"

bool rules_encounter_reaches(const struct rules_options *o, const struct rules_creature *attacker,
                             const struct rules_creature *target)
{
    struct rules_creature me = *attacker;
    me.can_threaten = true;
    return rules_threatens_creature(o, &me, target);
}

int rules_encounter_attack_check(const struct rules_encounter *e,
                                 const struct rules_enc_combatant *attacker,
                                 const struct rules_enc_attack *a,
                                 struct rules_enc_attack_gate *out)
{
    *out = (struct rules_enc_attack_gate){0};
    if (a->melee && !rules_encounter_reaches(e->rules, a->attacker, a->target))
        return RULES_ENC_ATTACK_REACH;
    if (a->aoo && rules_engine_has(e->engine, RULES_ENGINE_MELEE_AOO) && !a->melee)
        return RULES_ENC_ATTACK_AOO_MELEE;
    if (a->aoo) {
        int rc = rules_encounter_aoo_check(e, attacker, &out->made, &out->allowed);
        if (rc == RULES_AOO_STUNNED)
            return RULES_ENC_ATTACK_AOO_STUNNED;
        if (rc == RULES_AOO_FLAT_FOOTED)
            return RULES_ENC_ATTACK_AOO_FLAT_FOOTED;
        if (rc == RULES_AOO_SPENT)
            return RULES_ENC_ATTACK_AOO_SPENT;
        return RULES_ENC_ATTACK_OK;
    }
    /* SRD, Charge: "After moving, you may make a single melee attack. You get a +2 bonus on the
     * attack roll" (rules_turn_left's charge_attack: charged, not yet attacked). */
    struct rules_turn_left left;
    rules_turn_left(&attacker->turn, &(struct rules_turn_limits){.charge_attack = true}, &left);
    out->charge_attack = rules_engine_has(e->engine, RULES_ENGINE_CHARGE) && left.charge_attack;
    if (out->charge_attack && a->charge_elsewhere)
        return RULES_ENC_ATTACK_CHARGE_TARGET;
    if (out->charge_attack && !a->melee)
        return RULES_ENC_ATTACK_CHARGE_MELEE;
    return RULES_ENC_ATTACK_OK;
}

int rules_encounter_aoo_profile(int engine, const bool *melee, int n)
{
    if (!rules_engine_has(engine, RULES_ENGINE_MELEE_AOO))
        return n > 0 ? 0 : -1;
    for (int i = 0; i < n; i++)
        if (melee[i])
            return i;
    return -1;
}

bool rules_encounter_has_melee(int engine, const bool *melee, int n)
{
    return !rules_engine_has(engine, RULES_ENGINE_MELEE_AOO) || n == 0 ||
           rules_encounter_aoo_profile(engine, melee, n) >= 0;
}

bool rules_encounter_may_aoo(const struct rules_encounter *e, const struct rules_enc_combatant *c,
                             bool has_melee)
{
    if (!rules_engine_has(e->engine, RULES_ENGINE_MELEE_AOO))
        return rules_encounter_makes_aoo(e->engine, c);
    int made = 0, allowed = 0;
    return rules_encounter_aoo_check(e, c, &made, &allowed) == RULES_AOO_OK && has_melee;
}

bool rules_encounter_flanks(int engine, const struct rules_enc_combatant *c, bool has_melee)
{
    if (c->down)
        return false;
    return rules_engine_has(engine, RULES_ENGINE_FLANKING_ALLY) ? !c->stunned && has_melee
                                                                : !c->flat_footed;
}

bool rules_encounter_stand_up_provokes(const struct rules_encounter *e,
                                       const struct rules_enc_combatant *c, bool has_melee,
                                       const struct rules_creature *body,
                                       const struct rules_creature *whom)
{
    /* Its reach, rules_encounter_reaches; whether it may strike now, rules_encounter_may_aoo. */
    return !c->down && rules_encounter_may_aoo(e, c, has_melee) &&
           rules_encounter_reaches(e->rules, body, whom);
}

int rules_encounter_attack(const struct rules_encounter *e,
                           const struct rules_enc_combatant *attacker,
                           const struct rules_enc_combatant *target, bool aoo,
                           const struct rules_enc_attack_gate *gate,
                           const struct rules_enc_attack_roll *roll, struct rules_dice *d,
                           struct rules_enc_attack_ruling *out)
{
    struct rules_attacker a = *roll->attacker;
    a.charging = gate->charge_attack;            /* SRD, Charge: +2 on the attack roll */
    out->after = (struct rules_attack_after){0}; /* nothing left, unless it is rolled */
    out->roll_rc = RULES_ATTACK_ROLL_OK;
    out->evaluate_rc =
        rules_attack_evaluate(e->rules, &a, roll->defender, roll->allies, roll->ally_count,
                              roll->cover, roll->concealments, roll->concealment_count, &out->ev);
    if (out->evaluate_rc != RULES_ATTACK_OK)
        return RULES_ENC_ATTACK_EVALUATE;
    out->roll_rc = rules_attack_roll(&out->ev, roll->params, roll->damage, d, &out->rolled);
    if (out->roll_rc != RULES_ATTACK_ROLL_OK)
        return RULES_ENC_ATTACK_ROLL;
    const struct rules_attack_rolled *o = &out->rolled;
    rules_encounter_attack_after(e, attacker, target, aoo, gate->made, o->damage_rolled && o->lands,
                                 o->dealt, &out->after);
    return RULES_ENC_ATTACK_OK;
}

int rules_encounter_full_attack_plan(const struct rules_encounter *e, int actor, int target,
                                     const struct rules_plan_item *items, int n,
                                     struct rules_turn *turn,
                                     const struct rules_turn_limits *limits,
                                     struct rules_full_attack_plan *out)
{
    assert(actor >= 0 && actor < e->count && out != NULL && turn != NULL);
    const struct rules_enc_combatant *c = &e->combatants[actor];
    bool wider = rules_engine_has(e->engine, RULES_ENGINE_FULL_ATTACK_PLANS);
    *out = (struct rules_full_attack_plan){.item = -1};
    int bab = c->base_attack_bonus < 0 ? 0 : c->base_attack_bonus;
    out->iterative = rules_iterative_attacks(bab > 1000 ? 1000 : bab);
    if (n < 1 || n > (wider ? RULES_PLAN_MAX : RULES_PLAN_MAX_NARROW))
        return RULES_PLAN_LENGTH;
    for (int i = 0; i < n; i++) {
        const struct rules_plan_item *it = &items[i];
        out->attack_of[i] = -1;
        out->item = i;
        if (!wider &&
            (it->kind == RULES_PLAN_FACING || (it->kind == RULES_PLAN_ATTACK && it->target >= 0)))
            return RULES_PLAN_WIDER;
        if (it->kind == RULES_PLAN_STEP) {
            out->steps++;
        } else if (it->kind == RULES_PLAN_ATTACK) {
            int t = it->target >= 0 ? it->target : target;
            if (t == actor)
                return RULES_PLAN_SELF;
            out->attack_of[i] = out->attacks++;
        } else {
            if (!rules_has_facing(e->rules, &c->body) || it->facing < 0 ||
                it->facing >= rules_facing_count(e->rules))
                return RULES_PLAN_NO_FACING;
            struct rules_turn_refusal why;
            if (rules_turn_spend(turn, limits, RULES_ACTION_FACING, &why) != RULES_TURN_OK)
                return RULES_PLAN_FACING_SPENT;
            out->facings++;
        }
    }
    out->item = -1;
    int rc = rules_full_attack_trade(out->iterative, out->attacks, out->steps, c->player_character);
    return rc == RULES_TRADE_MONSTER    ? RULES_PLAN_MONSTER
           : rc == RULES_TRADE_TOO_MANY ? RULES_PLAN_TOO_MANY
                                        : RULES_PLAN_OK;
}
