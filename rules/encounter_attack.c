/* Whether an encounter's attack may be made (rules_encounter_attack_check): reach (004
 * Threatened Area; 001 Reach), what an attack of opportunity needs (004 Attacks of Opportunity,
 * Flat-Footed; d20 3.5 SRD, Combat Reflexes, Stunned), and the charge's one attack (SRD, Charge).
 * Pure: no allocation, no I/O. */
#include "encounter.h"
#include "threat.h"

int rules_encounter_attack_check(const struct rules_encounter *e,
                                 const struct rules_enc_combatant *attacker,
                                 const struct rules_enc_attack *a,
                                 struct rules_enc_attack_gate *out)
{
    *out = (struct rules_enc_attack_gate){0};
    if (a->melee) {
        struct rules_creature me = *a->attacker;
        me.can_threaten = true; /* its own swing, flat-footed or not */
        if (!rules_threatens_creature(e->rules, &me, a->target))
            return RULES_ENC_ATTACK_REACH;
    }
    if (a->aoo && e->engine >= 3 && !a->melee)
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
    out->charge_attack = e->engine >= 3 && left.charge_attack;
    if (out->charge_attack && a->charge_elsewhere)
        return RULES_ENC_ATTACK_CHARGE_TARGET;
    if (out->charge_attack && !a->melee)
        return RULES_ENC_ATTACK_CHARGE_MELEE;
    return RULES_ENC_ATTACK_OK;
}
