/* Hit points at 0 and below as the referee rules them on structs (d20 3.5 SRD, Combat: Injury
 * and Death): who acts, who is passed over, the dying creature's round, healing, the disabled
 * creature's strain, and a dying defender. Each case is one the HTTP tests play
 * (tests/service/test_encounter_referee.c, test_encounter_qa.c), decided here by the
 * rules/encounter functions alone, with the sentence it checks. */
#include <criterion/criterion.h>

#include "rules/encounter/engine.h"
#include "tests/rules/referee.h"

enum { GOBLIN = 0, FIGHTER = 1 };

/* The goblin (monsters, 6 hp of 6) at (6, 5), first in the order, and the fighter (party) at
 * (5, 5), under engine; the goblin's turn of round 1 begun. */
static void skirmish(struct referee *r, int engine)
{
    referee_init(r, engine, 12, 12);
    referee_add(r, "goblin", "monsters", 6, 5);
    referee_add(r, "fighter", "party", 5, 5);
    r->c[GOBLIN].hp = r->c[GOBLIN].max_hp = 6;
    cr_assert_eq(referee_next_turn(r), RULES_ENC_OK);
    cr_assert_eq(r->next.combatant, GOBLIN);
}

/* Damage from outside the fight: the goblin's hit points changed by `change` (rules_hp_after),
 * and its state ruled again. */
static void hurt(struct referee *r, int c, int change)
{
    bool capped = false;
    referee_hp(r, c, (int)rules_hp_after(r->c[c].hp, r->c[c].max_hp, false, change, &capped));
}

/* Combatant c's dying round with d% d100 (rules_hp_dying_round), stored as the service stores
 * it: its hit points and the state the round ruled. Returns whether it became stable. */
static bool dying_round(struct referee *r, int c, int d100)
{
    bool stable = false;
    long long hp = 0;
    enum rules_hp_state now = RULES_HP_UP;
    rules_hp_dying_round(&r->o, r->c[c].hp, d100, &stable, &hp, &now);
    referee_hp(r, c, (int)hp);
    r->c[c].hp_state = now;
    return stable;
}

/* d20 3.5 SRD, Injury and Death: "between -1 and -9 inclusive, you're dying"; Dying: "A dying
 * character is unconscious and can take no actions"; "At the end of each round ... roll d% to
 * see whether the dying character becomes stable. The character has a 10% chance of becoming
 * stable" (the option dying srd: as its turn comes up). The goblin, 6 hp, takes 15 from a falling
 * rock: -9, dying; its attack is refused; its turn is passed over and rolls its round: d% 05
 * makes it stable at -9, and a stable goblin rolls no more. */
Test(referee_hp, a_dying_combatant_takes_no_actions_and_may_become_stable)
{
    struct referee r;
    skirmish(&r, 4);
    hurt(&r, GOBLIN, -15);
    cr_assert_eq(r.c[GOBLIN].hp, -9);
    cr_assert_eq(r.c[GOBLIN].hp_state, RULES_HP_DYING);
    cr_assert_eq(referee_admit(&r, RULES_ACT_ATTACK, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_DOWN);
    cr_assert_eq(r.adm.hp_state, RULES_HP_DYING);
    cr_assert_eq(referee_next_turn(&r), RULES_ENC_OK); /* the fighter */
    cr_assert_eq(referee_next_turn(&r), RULES_ENC_OK); /* round 2: the goblin passed over */
    cr_assert_eq(r.next.round, 2);
    cr_assert_eq(r.next.combatant, FIGHTER);
    cr_assert_eq(r.next.skipped_count, 1);
    cr_assert_eq(r.skips[0].combatant, GOBLIN);
    cr_assert_eq(r.skips[0].state, RULES_HP_DYING);
    cr_assert(rules_encounter_bleeds(&r.e, GOBLIN));
    cr_assert(dying_round(&r, GOBLIN, 5));
    cr_assert_eq(r.c[GOBLIN].hp, -9);
    cr_assert_eq(r.c[GOBLIN].hp_state, RULES_HP_STABLE);
    cr_assert_not(rules_encounter_bleeds(&r.e, GOBLIN));
    /* Stable is still unconscious: its next turn is passed over too. */
    cr_assert_eq(referee_next_turn(&r), RULES_ENC_OK);
    cr_assert_eq(r.next.combatant, FIGHTER);
    cr_assert_eq(r.next.skipped_count, 1);
}

/* d20 3.5 SRD, Dying: "If he doesn't [become stable], he loses 1 hit point"; Injury and Death:
 * "When your character's current hit points drop to -10 or lower, he's dead." The goblin at -8
 * rolls 50 (not stable) and drops to -9, then 11 (10 or less is stable) and dies at -10; a dead
 * goblin is passed over and rolls no more. */
Test(referee_hp, a_dying_combatant_loses_a_hit_point_a_round_until_stable_or_dead)
{
    struct referee r;
    skirmish(&r, 4);
    hurt(&r, GOBLIN, -14);
    cr_assert_eq(r.c[GOBLIN].hp, -8);
    cr_assert(rules_encounter_bleeds(&r.e, GOBLIN));
    cr_assert_not(dying_round(&r, GOBLIN, 50));
    cr_assert_eq(r.c[GOBLIN].hp, -9);
    cr_assert_eq(r.c[GOBLIN].hp_state, RULES_HP_DYING);
    cr_assert(rules_encounter_bleeds(&r.e, GOBLIN));
    cr_assert_not(dying_round(&r, GOBLIN, 11));
    cr_assert_eq(r.c[GOBLIN].hp, -10);
    cr_assert_eq(r.c[GOBLIN].hp_state, RULES_HP_DEAD);
    cr_assert_not(rules_encounter_bleeds(&r.e, GOBLIN), "the dead roll no more");
    referee_next_turn(&r);
    referee_next_turn(&r);
    cr_assert_eq(r.next.skipped_count, 1);
    cr_assert_eq(r.skips[0].state, RULES_HP_DEAD);
    /* Engine 3's goblin stayed at -8 forever. */
    skirmish(&r, 3);
    hurt(&r, GOBLIN, -14);
    cr_assert_not(rules_encounter_bleeds(&r.e, GOBLIN));
}

/* d20 3.5 SRD, Healing: healing "can't restore hit points past your full normal hit point
 * total"; Injury and Death: above 0 a creature is up, and acts again. The dying goblin (-9 of 6)
 * healed by 40 stands at 6. */
Test(referee_hp, healing_stops_at_the_full_total_and_the_healed_act_again)
{
    struct referee r;
    skirmish(&r, 4);
    hurt(&r, GOBLIN, -15);
    cr_assert(r.c[GOBLIN].down);
    cr_assert(rules_hp_healable(r.c[GOBLIN].hp_state));
    bool capped = false;
    cr_assert_eq(rules_hp_after(r.c[GOBLIN].hp, r.c[GOBLIN].max_hp, false, 40, &capped), 6);
    cr_assert(capped);
    hurt(&r, GOBLIN, 40);
    cr_assert_eq(r.c[GOBLIN].hp_state, RULES_HP_UP);
    cr_assert_not(r.c[GOBLIN].down);
    cr_assert_eq(referee_admit(&r, RULES_ACT_ATTACK, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_OK);
}

/* d20 3.5 SRD, Disabled: "If he performs any strenuous action, he takes 1 point of damage after
 * completing the act" (the rule strain): the goblin at 0 hp attacks (its one action) and is
 * then at -1, dying. Dead: "Dead characters cannot benefit from normal or magical healing": at
 * -12 healing does not reach it (the rule no_healing_dead); the dying, the disabled and the
 * stable are healed. */
Test(referee_hp, the_disabled_strain_into_dying_and_healing_does_not_reach_the_dead)
{
    struct referee r;
    skirmish(&r, 4);
    referee_hp(&r, GOBLIN, 0);
    cr_assert_eq(referee_admit(&r, RULES_ACT_ATTACK, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_OK);
    struct rules_attack_after after;
    rules_encounter_attack_after(&r.e, &r.c[GOBLIN], &r.c[FIGHTER], false, 0, false, 0, &after);
    cr_assert_eq(after.strain, 1);
    cr_assert_eq(after.attacker_hp, -1);
    cr_assert_eq(rules_hp_state_of(&r.o, after.attacker_hp), RULES_HP_DYING);
    referee_hp(&r, GOBLIN, -12);
    cr_assert_eq(r.c[GOBLIN].hp_state, RULES_HP_DEAD);
    cr_assert_not(rules_hp_healable(r.c[GOBLIN].hp_state));
    cr_assert(rules_engine_has(r.e.engine, RULES_ENGINE_NO_HEALING_DEAD));
    cr_assert(rules_hp_healable(RULES_HP_DYING));
    cr_assert(rules_hp_healable(RULES_HP_DISABLED));
    cr_assert(rules_hp_healable(RULES_HP_STABLE));
    /* Engine 2 strained nobody. */
    skirmish(&r, 2);
    referee_hp(&r, GOBLIN, 0);
    rules_encounter_attack_after(&r.e, &r.c[GOBLIN], &r.c[FIGHTER], false, 0, false, 0, &after);
    cr_assert_eq(after.strain, 0);
    cr_assert_eq(after.attacker_hp, 0);
}

/* d20 3.5 SRD, Dying: a character at -1 to -9 "is unconscious"; the rule join_state rules a
 * combatant's state from the moment it joins: one added at -3 hp is dying at once, threatens
 * nobody, flanks for nobody, and its turn is passed over. */
Test(referee_hp, a_combatant_joining_at_minus_3_is_dying_at_once)
{
    struct referee r;
    skirmish(&r, 4);
    const int c = referee_add(&r, "c", "party", 7, 5);
    referee_hp(&r, c, -3);
    cr_assert_eq(r.c[c].hp_state, RULES_HP_DYING);
    cr_assert_not(rules_encounter_threatening(&r.e, c));
    cr_assert_not(rules_encounter_flanker(&r.e, c));
    struct rules_attack_eval ev;
    cr_assert_eq(referee_evaluate(&r, FIGHTER, GOBLIN, RULES_COVER_NONE, &ev), RULES_ATTACK_OK);
    cr_assert_not(ev.flanked, "c at (7, 5) stands opposite the fighter, but flanks for no one");
    referee_next_turn(&r); /* the fighter */
    cr_assert_eq(referee_next_turn(&r), RULES_ENC_OK);
    cr_assert_eq(r.next.combatant, GOBLIN);
    cr_assert_eq(r.next.skipped_count, 1);
    cr_assert_eq(r.skips[0].combatant, c);
}

/* d20 3.5 SRD, Dying: a dying character "is unconscious", so helpless (the rule down_helpless);
 * 002 Table: Defense Modifiers, "Defender helpless (such as paralyzed, sleeping, or bound)",
 * footnote 2: "The defender loses any Dexterity bonus to Defense." The goblin with Dex +3 to its
 * AC, dying at -2: the fighter's swing finds AC 10 + armor 2 = 12, not 15. Engine 2 ruled the
 * conditions stored alone. */
Test(referee_hp, a_dying_defender_is_helpless_and_loses_its_dexterity)
{
    struct referee r;
    skirmish(&r, 3);
    r.c[GOBLIN].defense.dex = 3;
    struct rules_attack_eval ev;
    cr_assert_eq(referee_evaluate(&r, FIGHTER, GOBLIN, RULES_COVER_NONE, &ev), RULES_ATTACK_OK);
    cr_assert_eq(ev.target_number, 15, "up, its Dexterity counts");
    referee_hp(&r, GOBLIN, -2);
    cr_assert_eq(referee_evaluate(&r, FIGHTER, GOBLIN, RULES_COVER_NONE, &ev), RULES_ATTACK_OK);
    cr_assert(ev.dex_lost);
    cr_assert_eq(ev.target_number, 12);
    r.e.engine = 2;
    cr_assert_eq(referee_evaluate(&r, FIGHTER, GOBLIN, RULES_COVER_NONE, &ev), RULES_ATTACK_OK);
    cr_assert_eq(ev.target_number, 15);
}
