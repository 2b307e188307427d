/* Whether an encounter's attack may be made (rules_encounter_attack_check), each case with its
 * sentence: reach (004 Threatened Area; 001 Reach), attacks of opportunity (004 Attacks of
 * Opportunity, Flat-Footed; d20 3.5 SRD, Combat Reflexes, Stunned), the charge's attack (SRD,
 * Charge). */
#include <criterion/criterion.h>

#include "rules/encounter/encounter.h"
#include "tests/rules/move_fixtures.h"

struct attack_case {
    struct rules_options o;
    struct rules_encounter e;
    struct rules_enc_combatant me;
    struct rules_creature here, there;
    struct rules_enc_attack a;
    struct rules_enc_attack_gate gate;
};

/* A Medium attacker at (0, 0) and a Medium target at (tx, 0), in round 2 under engine. */
static void setup(struct attack_case *c, int engine, int tx, bool aoo, bool melee)
{
    *c = (struct attack_case){0};
    c->o = preset("d20-3.5");
    c->e = (struct rules_encounter){.engine = engine, .rules = &c->o, .started = true, .round = 2};
    c->me = (struct rules_enc_combatant){.dex = 10, .aoo_round = -1};
    rules_creature_init(&c->here, RULES_SIZE_MEDIUM, 0, 0, 0);
    rules_creature_init(&c->there, RULES_SIZE_MEDIUM, tx, 0, 0);
    c->a = (struct rules_enc_attack){
        .attacker = &c->here, .target = &c->there, .aoo = aoo, .melee = melee};
}

static int check(struct attack_case *c)
{
    return rules_encounter_attack_check(&c->e, &c->me, &c->a, &c->gate);
}

/* 004 Threatened Area: "all spaces within 5 feet" for a Medium creature; 001 Reach: a reach
 * weapon threatens at 10 feet but not adjacent. A ranged attack needs no reach. A flat-footed
 * attacker still swings on its own action. */
Test(encounter_attack, a_melee_attack_reaches_what_its_attacker_threatens)
{
    struct attack_case c;
    setup(&c, 3, 1, false, true);
    c.me.flat_footed = true;
    c.here.can_threaten = false;
    cr_assert_eq(check(&c), RULES_ENC_ATTACK_OK);
    setup(&c, 3, 2, false, true);
    cr_assert_eq(check(&c), RULES_ENC_ATTACK_REACH);
    c.here.reach_ft = 10;
    c.here.reach_weapon = true;
    cr_assert_eq(check(&c), RULES_ENC_ATTACK_OK);
    c.there.body.x = 1;
    cr_assert_eq(check(&c), RULES_ENC_ATTACK_REACH);
    setup(&c, 3, 9, false, false);
    cr_assert_eq(check(&c), RULES_ENC_ATTACK_OK);
}

/* 004: "An attack of opportunity is a single melee attack" (engine 3); "A flat-footed
 * combatant can't make attacks of opportunity"; SRD, Stunned: "can't take actions" (engine 3);
 * SRD, Combat Reflexes: while flat-footed too (engine 3). */
Test(encounter_attack, an_attack_of_opportunity_is_melee_and_not_flat_footed_nor_stunned)
{
    struct attack_case c;
    setup(&c, 3, 1, true, false);
    cr_assert_eq(check(&c), RULES_ENC_ATTACK_AOO_MELEE);
    c.e.engine = 2;
    cr_assert_eq(check(&c), RULES_ENC_ATTACK_OK);
    setup(&c, 3, 1, true, true);
    c.me.flat_footed = true;
    cr_assert_eq(check(&c), RULES_ENC_ATTACK_AOO_FLAT_FOOTED);
    c.me.combat_reflexes = true;
    cr_assert_eq(check(&c), RULES_ENC_ATTACK_OK);
    c.e.engine = 2;
    cr_assert_eq(check(&c), RULES_ENC_ATTACK_AOO_FLAT_FOOTED);
    setup(&c, 3, 1, true, true);
    c.me.stunned = true;
    cr_assert_eq(check(&c), RULES_ENC_ATTACK_AOO_STUNNED);
}

/* 004: "a combatant can only make one per round"; SRD, Combat Reflexes: "a number of additional
 * attacks of opportunity equal to your Dexterity bonus": Dex 14 (+2) makes three. */
Test(encounter_attack, one_attack_of_opportunity_a_round_or_more_with_combat_reflexes)
{
    struct attack_case c;
    setup(&c, 3, 1, true, true);
    c.me.aoo_round = 2;
    c.me.aoo_made = 1;
    cr_assert_eq(check(&c), RULES_ENC_ATTACK_AOO_SPENT);
    cr_assert_eq(c.gate.made, 1);
    cr_assert_eq(c.gate.allowed, 1);
    c.me.aoo_round = 1; /* last round's does not count */
    cr_assert_eq(check(&c), RULES_ENC_ATTACK_OK);
    cr_assert_eq(c.gate.made, 0);
    c.me.aoo_round = 2;
    c.me.combat_reflexes = true;
    c.me.dex = 14;
    c.me.aoo_made = 2;
    cr_assert_eq(check(&c), RULES_ENC_ATTACK_OK);
    cr_assert_eq(c.gate.allowed, 3);
    c.me.aoo_made = 3;
    cr_assert_eq(check(&c), RULES_ENC_ATTACK_AOO_SPENT);
}

/* SRD, Charge: "After moving, you may make a single melee attack. You get a +2 bonus on the
 * attack roll": once, at the designated opponent, in melee (engine 3). */
Test(encounter_attack, the_charge_allows_one_melee_attack_at_its_opponent)
{
    struct attack_case c;
    setup(&c, 3, 1, false, true);
    c.me.turn = (struct rules_turn){.full_round = true, .moved = true, .charged = true};
    cr_assert_eq(check(&c), RULES_ENC_ATTACK_OK);
    cr_assert(c.gate.charge_attack);
    c.a.charge_elsewhere = true;
    cr_assert_eq(check(&c), RULES_ENC_ATTACK_CHARGE_TARGET);
    setup(&c, 3, 1, false, false);
    c.me.turn = (struct rules_turn){.full_round = true, .moved = true, .charged = true};
    cr_assert_eq(check(&c), RULES_ENC_ATTACK_CHARGE_MELEE);
    c.me.turn.charge_attacked = true; /* made: no second charge attack */
    cr_assert_eq(check(&c), RULES_ENC_ATTACK_OK);
    cr_assert_not(c.gate.charge_attack);
    setup(&c, 2, 1, false, true);
    c.me.turn = (struct rules_turn){.full_round = true, .moved = true, .charged = true};
    cr_assert_eq(check(&c), RULES_ENC_ATTACK_OK);
    cr_assert_not(c.gate.charge_attack);
}

/* 004: "An attack of opportunity is a single melee attack": from engine 3 the first melee
 * profile (a bow first, a sword second: the sword); before it the first of any kind; with no
 * melee profile none, and such a combatant threatens nobody (004 Threatened Area: "the area into
 * which it can make a melee attack"); one listing no profile is taken to have one. */
Test(encounter_attack, attacks_of_opportunity_use_the_first_melee_profile)
{
    const bool bow_then_sword[] = {false, true}, bow[] = {false};
    cr_assert_eq(rules_encounter_aoo_profile(3, bow_then_sword, 2), 1);
    cr_assert_eq(rules_encounter_aoo_profile(2, bow_then_sword, 2), 0);
    cr_assert_eq(rules_encounter_aoo_profile(3, bow, 1), -1);
    cr_assert_not(rules_encounter_has_melee(3, bow, 1));
    cr_assert(rules_encounter_has_melee(2, bow, 1));
    cr_assert(rules_encounter_has_melee(3, NULL, 0));
}

/* 004 Flanking needs an ally that threatens: down, none (SRD Dying: unconscious); before engine
 * 3 a flat-footed ally did not; from engine 3 it does (004 Threatened Area: "even when it is
 * not a combatant's action"), but a stunned one does not (SRD, Stunned), nor one with no melee
 * attack. */
Test(encounter_attack, who_helps_flank)
{
    struct rules_enc_combatant c = {.flat_footed = true};
    cr_assert_not(rules_encounter_flanks(2, &c, true));
    cr_assert(rules_encounter_flanks(3, &c, true));
    cr_assert_not(rules_encounter_flanks(3, &c, false));
    c.stunned = true;
    cr_assert_not(rules_encounter_flanks(3, &c, true));
    c = (struct rules_enc_combatant){.down = true};
    cr_assert_not(rules_encounter_flanks(3, &c, true));
    cr_assert_not(rules_encounter_flanks(2, &c, true));
}

/* d20 3.5 SRD, Actions in Combat: standing up from prone provokes, from each enemy that
 * threatens the creature and may make an attack of opportunity now (004): not one a square too
 * far, not a flat-footed one, not one that has made its one this round, not one that is down. */
Test(encounter_attack, standing_up_provokes_from_enemies_that_threaten_and_may_strike)
{
    struct attack_case c;
    setup(&c, 3, 1, true, true);
    struct rules_enc_combatant foe = {.dex = 10, .aoo_round = -1};
    cr_assert(rules_encounter_stand_up_provokes(&c.e, &foe, true, &c.there, &c.here));
    cr_assert_not(rules_encounter_stand_up_provokes(&c.e, &foe, false, &c.there, &c.here));
    struct rules_creature far = c.there;
    far.body.x = 2;
    cr_assert_not(rules_encounter_stand_up_provokes(&c.e, &foe, true, &far, &c.here));
    foe.flat_footed = true;
    cr_assert_not(rules_encounter_stand_up_provokes(&c.e, &foe, true, &c.there, &c.here));
    foe = (struct rules_enc_combatant){.dex = 10, .aoo_round = 2, .aoo_made = 1};
    cr_assert_not(rules_encounter_stand_up_provokes(&c.e, &foe, true, &c.there, &c.here));
    foe = (struct rules_enc_combatant){.dex = 10, .aoo_round = -1, .down = true};
    cr_assert_not(rules_encounter_stand_up_provokes(&c.e, &foe, true, &c.there, &c.here));
}

/* Large (the rolled dice inside): one per test, off the stack. */
static struct rules_enc_attack_ruling ruled;

/* A longsword-less brawl: +5, 1d6, against AC 12 (armor 2), on the table's dice. */
static int brawl(struct attack_case *c, const struct rules_enc_combatant *target,
                 const int *results, size_t n)
{
    static struct rules_attacker a;
    static struct rules_defender d;
    a = (struct rules_attacker){.c = c->here, .attack_bonus = 5};
    d = (struct rules_defender){.c = c->there, .ac = {.armor = 2}};
    size_t at = 0;
    static struct rules_dice_expr damage;
    cr_assert_eq(rules_dice_parse("1d6", &damage, &at), RULES_DICE_OK);
    struct rules_attack_roll_params params = {.critical_hits = true,
                                              .crit_range = RULES_CRIT_RANGE_DEFAULT,
                                              .crit_multiplier = RULES_CRIT_MULTIPLIER_DEFAULT};
    struct rules_enc_attack_roll roll = {
        .attacker = &a, .defender = &d, .params = &params, .damage = &damage};
    struct rules_dice dice;
    rules_dice_from_supplied(&dice, results, n);
    return rules_encounter_attack(&c->e, &c->me, target, c->a.aoo, &c->gate, &roll, &dice, &ruled);
}

/* The attack event on structs: SRD, Charge: "+2 bonus on the attack roll", so a 5 on the d20
 * (5 + 5 + 2 = 12) hits AC 12 after a charge and misses without; the 4 on the d6 takes the
 * target from 10 hp to 6. SRD, Disabled: "if he performs any strenuous action, he takes 1 point
 * of damage after completing the act": a disabled attacker at 0 hp ends at -1. */
Test(encounter_attack, the_attack_event_rolls_and_says_what_it_leaves)
{
    struct attack_case c;
    setup(&c, 3, 1, false, true);
    struct rules_enc_combatant target = {.hp = 10, .max_hp = 10, .dex = 10, .aoo_round = -1};
    c.me.hp = c.me.max_hp = 10;
    const int dice[] = {5, 4};
    c.me.turn = (struct rules_turn){.full_round = true, .moved = true, .charged = true};
    cr_assert_eq(check(&c), RULES_ENC_ATTACK_OK);
    cr_assert(c.gate.charge_attack);
    cr_assert_eq(brawl(&c, &target, dice, 2), RULES_ENC_ATTACK_OK);
    cr_assert_eq(ruled.ev.attack_total, 7);
    cr_assert(ruled.rolled.hit);
    cr_assert(ruled.after.damaged);
    cr_assert_eq(ruled.after.target_hp, 6);
    /* Too few of the table's dice: the roll refuses, and nothing is left on the encounter. */
    cr_assert_eq(brawl(&c, &target, dice, 1), RULES_ENC_ATTACK_ROLL);
    cr_assert_eq(ruled.roll_rc, RULES_ATTACK_ROLL_ERR_DAMAGE);
    cr_assert_not(ruled.after.damaged);
    cr_assert_eq(ruled.after.target_hp, 0);
    c.me.turn = (struct rules_turn){0};
    cr_assert_eq(check(&c), RULES_ENC_ATTACK_OK);
    cr_assert_eq(brawl(&c, &target, dice, 1), RULES_ENC_ATTACK_OK);
    cr_assert_eq(ruled.ev.attack_total, 5);
    cr_assert_not(ruled.rolled.hit);
    cr_assert_not(ruled.after.damaged);
    /* Disabled: the strain. */
    c.me = (struct rules_enc_combatant){.hp = 0, .max_hp = 10, .dex = 10, .aoo_round = -1};
    cr_assert_eq(check(&c), RULES_ENC_ATTACK_OK);
    cr_assert_eq(brawl(&c, &target, dice, 1), RULES_ENC_ATTACK_OK);
    cr_assert_eq(ruled.after.strain, 1);
    cr_assert_eq(ruled.after.attacker_hp, -1);
}
