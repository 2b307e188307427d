/* The attack of opportunity the engine makes for an open reaction, on structs
 * (rules_encounter_opportunity, rules/encounter/opportunity.h), each case with its sentence from
 * 004 Attacks of Opportunity and the d20 3.5 SRD. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "rules/encounter/encounter.h"
#include "rules/encounter/opportunity.h"
#include "tests/rules/move_fixtures.h"

/* An orc at (1, 0) with a shortbow (+3, ranged) listed before its greataxe (+5 melee, 1d12+3),
 * and Kroh, who left (2, 0) at step 1 of his move and now stands at (5, 0): armor 4, no
 * Dexterity part in his Defense but a Dexterity score of 14, 12 hit points. Round 2. */
struct opp_case {
    struct rules_options o;
    struct rules_encounter e;
    struct rules_enc_combatant c[2];
    struct rules_enc_profile orc_attacks[2];
    struct rules_enc_reaction r;
    struct rules_creature allies[3], others[3];
    int index[3];
    struct rules_enc_attack_room room;
    struct rules_enc_opportunity *out;
};

static void setup(struct opp_case *k, int engine)
{
    struct rules_enc_opportunity *out = k->out != NULL ? k->out : malloc(sizeof *out);
    cr_assert_not_null(out);
    *k = (struct opp_case){0};
    k->out = out;
    k->o = preset("d20-3.5");
    k->orc_attacks[0] = (struct rules_enc_profile){
        .name = "shortbow", .attack_bonus = 3, .form = RULES_FORM_RANGED, .damage = "1d6"};
    k->orc_attacks[1] = (struct rules_enc_profile){.name = "greataxe",
                                                   .attack_bonus = 5,
                                                   .form = RULES_FORM_MELEE,
                                                   .crit_range = 20,
                                                   .crit_multiplier = 3,
                                                   .damage = "1d12+3"};
    k->c[0] = (struct rules_enc_combatant){.id = "orc",
                                           .side = "orcs",
                                           .placed = true,
                                           .dex = 10,
                                           .has_dex = true,
                                           .has_defense = true,
                                           .defense_dex = true,
                                           .hp = 15,
                                           .max_hp = 15,
                                           .attack_count = 2,
                                           .attacks = k->orc_attacks,
                                           .charge_target = -1,
                                           .aoo_round = -1};
    rules_creature_init(&k->c[0].body, RULES_SIZE_MEDIUM, 1, 0, 0);
    k->c[1] = (struct rules_enc_combatant){.id = "kroh",
                                           .side = "heroes",
                                           .placed = true,
                                           .defense = {.armor = 4},
                                           .has_defense = true,
                                           .dex = 14,
                                           .has_dex = true,
                                           .hp = 12,
                                           .max_hp = 12,
                                           .charge_target = -1,
                                           .aoo_round = -1};
    rules_creature_init(&k->c[1].body, RULES_SIZE_MEDIUM, 5, 0, 0);
    k->r = (struct rules_enc_reaction){.mover = 1,
                                       .by = 0,
                                       .step = 1,
                                       .x = 2,
                                       .y = 0,
                                       .facing = -1,
                                       .policy = RULES_AOO_POLICY_ALWAYS};
    k->e = (struct rules_encounter){.engine = engine,
                                    .rules = &k->o,
                                    .started = true,
                                    .round = 2,
                                    .turn = 0,
                                    .count = 2,
                                    .combatants = k->c,
                                    .reaction_count = 1,
                                    .reactions = &k->r,
                                    .paused = {.mover = -1}};
    k->room = (struct rules_enc_attack_room){k->allies, k->others, k->index};
}

static int opportunity(struct opp_case *k, const int *dice, size_t n)
{
    struct rules_dice d;
    rules_dice_from_supplied(&d, dice, n);
    return rules_encounter_opportunity(&k->e, 0, dice != NULL ? &d : NULL, &k->room, k->out);
}

/* 004 Provoking an Attack of Opportunity by Moving: the mover provokes as it moves "out of a
 * threatened area", so the attack finds it in the square it was leaving, (2, 0), next to the
 * orc, though it now stands at (5, 0). 004 Making an Attack of Opportunity: "a single melee
 * attack" (engine 3: the greataxe, not the shortbow listed first) "at a combatant's normal
 * attack bonus" (+5). SRD Ability Modifiers: Dexterity 14 is +2, so Kroh's AC is 10 + 4 armor
 * + 2 = 16. A d20 of 11 makes 16, which hits; the greataxe's 1d12+3 with a 7 deals 10, leaving
 * 12 - 10 = 2 hit points. */
Test(encounter_opportunity, the_reactor_strikes_the_square_left_with_its_melee_attack)
{
    struct opp_case k = {0};
    setup(&k, 4);
    static const int dice[] = {11, 7};
    cr_assert_eq(opportunity(&k, dice, 2), RULES_ENC_ATTACK_OK);
    cr_assert_eq(k.out->profile, 1);
    cr_assert_eq(k.out->target_at.body.x, 2);
    cr_assert_eq(k.out->target_at.body.y, 0);
    cr_assert(k.out->setup.derived_dex);
    cr_assert_eq(k.out->setup.dex, 2);
    cr_assert_eq(k.out->ruling.ev.attack_total, 5);
    cr_assert_eq(k.out->ruling.ev.target_number, 16);
    cr_assert_eq(k.out->ruling.rolled.total, 16);
    cr_assert(k.out->ruling.rolled.hit);
    cr_assert_eq(k.out->ruling.rolled.dealt, 10);
    cr_assert(k.out->ruling.after.damaged);
    cr_assert_eq(k.out->ruling.after.target_hp, 2);
    cr_assert_eq(k.out->ruling.after.aoo_made, 1);
    /* A 10 makes 15, short of 16: a miss, and nothing dealt. */
    static const int low[] = {10};
    cr_assert_eq(opportunity(&k, low, 1), RULES_ENC_ATTACK_OK);
    cr_assert_not(k.out->ruling.rolled.hit);
    cr_assert_not(k.out->ruling.after.damaged);
    free(k.out);
}

/* Before engine 3 an attack of opportunity was made with the first profile listed (the
 * shortbow), as those logs were ruled; from engine 3 a combatant with no melee attack makes
 * none (004: "a single melee attack"). */
Test(encounter_opportunity, only_a_melee_attack_from_engine_3)
{
    struct opp_case k = {0};
    setup(&k, 2);
    cr_assert_eq(opportunity(&k, NULL, 0), RULES_ENC_ATTACK_OK);
    cr_assert_eq(k.out->profile, 0);
    cr_assert_not(k.out->rolled);
    setup(&k, 3);
    k.c[0].attack_count = 1; /* the shortbow only */
    cr_assert_eq(opportunity(&k, NULL, 0), RULES_ENC_ATTACK_NO_PROFILE);
    free(k.out);
}

/* 004 Flat-Footed: "A flat-footed combatant can't make attacks of opportunity"; 004 Making an
 * Attack of Opportunity: "a combatant can only make one per round"; 004 Threatened Area: "A
 * combatant normally threatens all adjacent spaces", so a square left two squares away is out
 * of its reach. None of them is rolled. */
Test(encounter_opportunity, the_gate_refuses_before_any_die)
{
    struct opp_case k = {0};
    static const int dice[] = {20, 12};
    setup(&k, 4);
    k.c[0].flat_footed = true;
    cr_assert_eq(opportunity(&k, dice, 2), RULES_ENC_ATTACK_AOO_FLAT_FOOTED);
    cr_assert_not(k.out->rolled);
    setup(&k, 4);
    k.c[0].aoo_round = 2;
    k.c[0].aoo_made = 1;
    cr_assert_eq(opportunity(&k, dice, 2), RULES_ENC_ATTACK_AOO_SPENT);
    cr_assert_eq(k.out->gate.made, 1);
    setup(&k, 4);
    k.r.x = 3;
    cr_assert_eq(opportunity(&k, dice, 2), RULES_ENC_ATTACK_REACH);
    setup(&k, 4);
    k.r.by = -1; /* the reactor has left the encounter */
    cr_assert_eq(opportunity(&k, dice, 2), RULES_ENC_ATTACK_GONE);
    free(k.out);
}

/* Kroh's move provoked the orc at step 1, the wolf at the same square and the goblin at step 3;
 * Aria's, the ogre at step 2. 004 Provoking an Attack of Opportunity by Moving: the mover
 * provokes as it moves "out of a threatened area", square by square; d20 3.5 SRD Dying: a dying
 * creature "can take no actions". Answered, the orc's reaction closes; if its attack dropped
 * Kroh, he leaves no further square, so the goblin's (step 3) closes with it, while the wolf's,
 * at the same square, and the ogre's, at another's move, stay open. */
Test(encounter_opportunity, a_dropped_mover_leaves_no_later_square)
{
    struct rules_options o = preset("d20-3.5");
    const struct rules_enc_reaction r[] = {
        {.mover = 0, .by = 2, .step = 1, .policy = RULES_AOO_POLICY_ALWAYS},
        {.mover = 0, .by = 3, .step = 3, .policy = RULES_AOO_POLICY_ASK},
        {.mover = 0, .by = 4, .step = 1, .policy = RULES_AOO_POLICY_ASK},
        {.mover = 1, .by = 5, .step = 2, .policy = RULES_AOO_POLICY_ASK}};
    struct rules_encounter e = {
        .engine = 4, .rules = &o, .reaction_count = 4, .reactions = r, .paused = {.mover = -1}};
    bool stopped = true;
    cr_assert_not(rules_encounter_reaction_stays(&e, 0, stopped, 0));
    cr_assert_not(rules_encounter_reaction_stays(&e, 0, stopped, 1));
    cr_assert(rules_encounter_reaction_stays(&e, 0, stopped, 2));
    cr_assert(rules_encounter_reaction_stays(&e, 0, stopped, 3));
    stopped = false; /* still up, Kroh goes on to step 3 */
    cr_assert_not(rules_encounter_reaction_stays(&e, 0, stopped, 0));
    cr_assert(rules_encounter_reaction_stays(&e, 0, stopped, 1));
}

/* The same reactions: an attack of opportunity (or a decline) answers the one reaction its
 * reactor has open to that mover's move (004 Attacks of Opportunity: "one answers a move that
 * provoked it"): the goblin's to Kroh's, the ogre's to Aria's; the ogre has none open to Kroh,
 * and one that left the encounter has none. */
Test(encounter_opportunity, an_answer_finds_the_reaction_its_reactor_has_open_to_the_mover)
{
    struct rules_options o = preset("d20-3.5");
    const struct rules_enc_reaction r[] = {
        {.mover = 0, .by = 2, .step = 1, .policy = RULES_AOO_POLICY_ALWAYS},
        {.mover = 0, .by = 3, .step = 3, .policy = RULES_AOO_POLICY_ASK},
        {.mover = 0, .by = 4, .step = 1, .policy = RULES_AOO_POLICY_ASK},
        {.mover = 1, .by = 5, .step = 2, .policy = RULES_AOO_POLICY_ASK}};
    struct rules_encounter e = {
        .engine = 4, .rules = &o, .reaction_count = 4, .reactions = r, .paused = {.mover = -1}};
    cr_assert_eq(rules_encounter_reaction_of(&e, 0, 3), 1);
    cr_assert_eq(rules_encounter_reaction_of(&e, 1, 5), 3);
    cr_assert_eq(rules_encounter_reaction_of(&e, 0, 5), -1);
    cr_assert_eq(rules_encounter_reaction_of(&e, 1, 2), -1);
    cr_assert_eq(rules_encounter_reaction_of(&e, 0, -1), -1);
    cr_assert_eq(rules_encounter_reaction_of(&e, -1, 2), -1);
}

/* The same reactions: once the orc's is answered the encounter still awaits the asked ones that
 * stay (004 Attacks of Opportunity: each reactor decides its own), the wolf's and the ogre's;
 * once those are settled too, and the goblin's closed with a dropped Kroh, it awaits nothing,
 * although the goblin's would still be awaited had Kroh stayed up. */
Test(encounter_opportunity, the_encounter_awaits_the_asked_reactions_that_stay)
{
    struct rules_options o = preset("d20-3.5");
    struct rules_enc_reaction r[] = {
        {.mover = 0, .by = 2, .step = 1, .policy = RULES_AOO_POLICY_ALWAYS},
        {.mover = 0, .by = 3, .step = 3, .policy = RULES_AOO_POLICY_ASK},
        {.mover = 0, .by = 4, .step = 1, .policy = RULES_AOO_POLICY_ASK},
        {.mover = 1, .by = 5, .step = 2, .policy = RULES_AOO_POLICY_ASK}};
    struct rules_encounter e = {
        .engine = 4, .rules = &o, .reaction_count = 4, .reactions = r, .paused = {.mover = -1}};
    cr_assert(rules_encounter_awaits_after_answer(&e, 0, true));
    r[2].policy = RULES_AOO_POLICY_UNSET; /* the wolf's and the ogre's settled */
    r[3].policy = RULES_AOO_POLICY_ALWAYS;
    cr_assert_not(rules_encounter_awaits_after_answer(&e, 0, true));
    cr_assert(rules_encounter_awaits_after_answer(&e, 0, false)); /* the goblin's stays */
    /* Answering the asked one itself leaves nothing asked. */
    cr_assert_not(rules_encounter_awaits_after_answer(&e, 1, false));
}

/* 004 Making an Attack of Opportunity: "The combatant does not have to make an attack of
 * opportunity if the combatant doesn't want to": a reactor whose policy is always has the
 * engine make it as soon as the reactions before it are settled, so answering one lets the move
 * go on; from engine 3 an asked reaction pauses the move, which answering one also lets go on.
 * Under engine 2 an asked reaction did not pause anything, and with neither there is nothing
 * to go on with. */
Test(encounter_opportunity, answering_a_reaction_lets_the_move_go_on)
{
    struct rules_options o = preset("d20-3.5");
    struct rules_enc_reaction r[] = {
        {.mover = 0, .by = 1, .step = 1, .policy = RULES_AOO_POLICY_ASK},
        {.mover = 0, .by = 2, .step = 2, .policy = RULES_AOO_POLICY_ALWAYS}};
    struct rules_encounter e = {.engine = 3,
                                .rules = &o,
                                .reaction_count = 2,
                                .reactions = r,
                                .awaiting_reactions = true,
                                .paused = {.mover = -1}};
    cr_assert(rules_encounter_settles_on_answer(&e));
    e.reaction_count = 1; /* the asked one only */
    cr_assert(rules_encounter_settles_on_answer(&e));
    e.engine = 2;
    cr_assert_not(rules_encounter_settles_on_answer(&e));
    e.reaction_count = 2;
    cr_assert(rules_encounter_settles_on_answer(&e));
    e.engine = 3;
    e.awaiting_reactions = false;
    r[0].policy = RULES_AOO_POLICY_UNSET;
    r[1].policy = RULES_AOO_POLICY_UNSET; /* engine 2's lapsing reactions */
    cr_assert_not(rules_encounter_settles_on_answer(&e));
}

/* 004 Provoking an Attack of Opportunity by Moving: "If a combatant moves through (not simply
 * into) or out of a threatened area, a combatant usually provokes an attack of opportunity", so
 * the attack is made as the mover leaves each square, in the order it leaves them. Kroh's move
 * to (5, 0), facing 2, is paused for the goblin's asked reaction at step 1, (1, 0), and the
 * orc's at step 3, (3, 0), facing 2 there; the wolf's at step 2 the engine makes. He waits at
 * (1, 0) until the goblin answers, then at (3, 0); with no asked reaction left he ends at (5, 0)
 * facing 2 and the pause is over (a stand-up's pause leaves him standing); dropped meanwhile
 * (d20 3.5 SRD Dying: "can take no actions"), he stays where he fell. */
Test(encounter_opportunity, a_paused_mover_waits_at_the_earliest_asked_square)
{
    struct rules_options o = preset("d20-3.5");
    struct rules_enc_combatant c[2] = {{.id = "kroh", .charge_target = -1},
                                       {.id = "goblin", .charge_target = -1}};
    struct rules_enc_reaction r[] = {{.mover = 0,
                                      .by = 1,
                                      .step = 3,
                                      .x = 3,
                                      .y = 0,
                                      .facing = 2,
                                      .policy = RULES_AOO_POLICY_ASK},
                                     {.mover = 0,
                                      .by = 1,
                                      .step = 1,
                                      .x = 1,
                                      .y = 0,
                                      .facing = -1,
                                      .policy = RULES_AOO_POLICY_ASK},
                                     {.mover = 0,
                                      .by = 1,
                                      .step = 2,
                                      .x = 2,
                                      .y = 0,
                                      .facing = -1,
                                      .policy = RULES_AOO_POLICY_ALWAYS}};
    struct rules_encounter e = {
        .engine = 4,
        .rules = &o,
        .count = 2,
        .combatants = c,
        .reaction_count = 3,
        .reactions = r,
        .awaiting_reactions = true,
        .paused = {.mover = 0, .x = 5, .y = 0, .has_facing = true, .facing = 2}};
    struct rules_enc_pause_place at;
    cr_assert(rules_encounter_pause_place(&e, 0, &at));
    cr_assert(at.set);
    cr_assert_eq(at.x, 1);
    cr_assert_not(at.has_facing);
    cr_assert_not(at.over);
    r[1].policy = RULES_AOO_POLICY_UNSET; /* the goblin answered at (1, 0) */
    cr_assert(rules_encounter_pause_place(&e, 0, &at));
    cr_assert_eq(at.x, 3);
    cr_assert(at.has_facing);
    cr_assert_eq(at.facing, 2);
    cr_assert_not(at.over);
    e.reaction_count = 0; /* every reaction settled */
    cr_assert(rules_encounter_pause_place(&e, 0, &at));
    cr_assert(at.set && at.over);
    cr_assert_eq(at.x, 5);
    cr_assert_eq(at.facing, 2);
    cr_assert_not(at.stands);
    e.paused.stands = true;
    cr_assert(rules_encounter_pause_place(&e, 0, &at));
    cr_assert(at.stands);
    c[0].down = true;
    cr_assert(rules_encounter_pause_place(&e, 0, &at));
    cr_assert_not(at.set);
    cr_assert(at.over);
    cr_assert_not(rules_encounter_pause_place(&e, 1, &at)); /* the goblin has no paused move */
}
