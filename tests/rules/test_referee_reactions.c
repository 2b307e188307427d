/* Attacks of opportunity as the referee rules them on structs: who is offered one when a move
 * leaves a threatened square (rules_encounter_board, rules_encounter_mover_of,
 * rules_encounter_move), whether an attack of opportunity may be made
 * (rules_encounter_attack_gate, rules_encounter_aoo_check) and what it leaves
 * (rules_encounter_attack), and standing up. Each case is one the HTTP tests play
 * (tests/service/test_encounter_referee.c, test_encounter_reactions.c, test_engine4.c,
 * test_encounter_qa.c), with the sentence it checks. */
#include <criterion/criterion.h>

#include "rules/board/size.h"
#include "tests/rules/referee.h"

enum { FIGHTER = 0, GOBLIN = 1, ORC = 2 };

/* The fighter (party) at (5, 5), the goblin (monsters) at (6, 5) and, with orc, the orc
 * (monsters) at (3, 9), in that order of initiative, under engine; round 2 begun with the
 * fighter's turn, so that nobody is flat-footed (004 Flat-Footed). */
static void fight(struct referee *r, int engine, bool orc)
{
    referee_init(r, engine, 12, 12);
    referee_add(r, "fighter", "party", 5, 5);
    referee_add(r, "goblin", "monsters", 6, 5);
    if (orc)
        referee_add(r, "orc", "monsters", 3, 9);
    for (int i = 0; i <= r->e.count; i++)
        cr_assert_eq(referee_next_turn(r), RULES_ENC_OK);
    cr_assert_eq(r->e.round, 2);
    cr_assert_eq(r->next.combatant, FIGHTER);
}

/* The fighter's walk round the goblin's side and past the orc. */
static const int walk[][2] = {{5, 6}, {4, 7}, {4, 8}, {5, 9}};

/* The fighter, from (5, 5), walks the first two squares of walk, round the goblin's side: the
 * attacks of opportunity it provokes from the goblin. */
static int walk_past(struct referee *r)
{
    r->c[FIGHTER].body.body = (struct rules_body){.x = 5, .y = 5, .side = 1};
    cr_assert_eq(referee_move(r, FIGHTER, RULES_MODE_MOVE, walk, 2, -1), RULES_ENC_MOVE_OK);
    return referee_provoked_by(r, GOBLIN);
}

/* 004 Attacks of Opportunity: "If all a combatant does is take a normal move or a double move
 * (not a run), the space that the combatant started out in is not considered threatened";
 * moving out of a threatened square provokes, and the attack strikes the mover in the square it
 * was leaving: (5, 6) beside the goblin at step 1, then (4, 8) beside the orc at step 3. */
Test(referee_reactions, a_walk_provokes_at_each_threatened_square_it_leaves_but_its_start)
{
    struct referee r;
    fight(&r, 4, true);
    cr_assert_eq(referee_move(&r, FIGHTER, RULES_MODE_MOVE, walk, 4, -1), RULES_ENC_MOVE_OK);
    cr_assert_eq(r.move.path.aoo_count, 2);
    cr_assert_eq(r.aoos[0].creature, GOBLIN);
    cr_assert_eq(r.aoos[0].step, 1);
    cr_assert_eq(r.aoos[0].from_x, 5);
    cr_assert_eq(r.aoos[0].from_y, 6);
    cr_assert_eq(r.aoos[1].creature, ORC);
    cr_assert_eq(r.aoos[1].step, 3);
    cr_assert_eq(r.aoos[1].from_x, 4);
    cr_assert_eq(r.aoos[1].from_y, 8);
}

/* 004 Provoking an Attack of Opportunity by Moving: the goblin strikes the fighter in (5, 6), the
 * square it was leaving, within its reach though the fighter now stands at (4, 7), out of it;
 * 004 Making an Attack of Opportunity: "a combatant can only make one per round", so once made a
 * second is refused. */
Test(referee_reactions, an_attack_of_opportunity_strikes_the_square_left_once_a_round)
{
    struct referee r;
    fight(&r, 4, false);
    static const int two[][2] = {{5, 6}, {4, 7}};
    cr_assert_eq(referee_move(&r, FIGHTER, RULES_MODE_MOVE, two, 2, -1), RULES_ENC_MOVE_OK);
    cr_assert_eq(referee_provoked_by(&r, GOBLIN), 1);
    cr_assert_eq(r.c[FIGHTER].body.body.x, 4);
    struct rules_creature left = r.c[FIGHTER].body;
    left.body.x = r.aoos[0].from_x, left.body.y = r.aoos[0].from_y;
    struct rules_enc_attack_gate gate;
    cr_assert_eq(rules_encounter_attack_gate(&r.e, GOBLIN, FIGHTER, 0, true, &left, &gate),
                 RULES_ENC_ATTACK_OK);
    cr_assert_eq(gate.made, 0);
    cr_assert_eq(gate.allowed, 1);
    cr_assert_eq(rules_encounter_attack_gate(&r.e, GOBLIN, FIGHTER, 0, true, NULL, &gate),
                 RULES_ENC_ATTACK_REACH, "where the fighter stands now is out of reach");
    r.c[GOBLIN].aoo_round = r.e.round, r.c[GOBLIN].aoo_made = 1;
    cr_assert_eq(rules_encounter_attack_gate(&r.e, GOBLIN, FIGHTER, 0, true, &left, &gate),
                 RULES_ENC_ATTACK_AOO_SPENT);
    cr_assert_eq(gate.made, 1);
}

/* The same sentence, the rule start_square: after an attack not all the fighter does is move, so
 * leaving (5, 5), beside the goblin, provokes at step 0. Engine 3 exempted the first square of
 * every move action. */
Test(referee_reactions, an_attack_then_a_move_out_of_a_threatened_square_provokes)
{
    static const int away[][2] = {{4, 5}, {3, 5}};
    struct referee r;
    fight(&r, 4, false);
    cr_assert_eq(referee_admit(&r, RULES_ACT_ATTACK, FIGHTER, RULES_MODE_MOVE), RULES_ADMIT_OK);
    cr_assert_eq(referee_move(&r, FIGHTER, RULES_MODE_MOVE, away, 2, -1), RULES_ENC_MOVE_OK);
    cr_assert_eq(referee_provoked_by(&r, GOBLIN), 1);
    cr_assert_eq(r.aoos[0].step, 0, "it provokes leaving its starting square");
    cr_assert_eq(r.aoos[0].from_x, 5);
    cr_assert_eq(r.aoos[0].from_y, 5);
    fight(&r, 3, false);
    cr_assert_eq(referee_admit(&r, RULES_ACT_ATTACK, FIGHTER, RULES_MODE_MOVE), RULES_ADMIT_OK);
    cr_assert_eq(referee_move(&r, FIGHTER, RULES_MODE_MOVE, away, 2, -1), RULES_ENC_MOVE_OK);
    cr_assert_eq(referee_provoked_by(&r, GOBLIN), 0);
}

/* The same sentence: one move out of (5, 5) to (5, 4), still beside the goblin, is all the
 * fighter has done, so its start is safe; the second move action leaves (5, 4) as any square,
 * and provokes, as the same path sent as one double move does at its second square. */
Test(referee_reactions, a_second_move_action_leaves_its_start_as_any_square)
{
    static const int up[][2] = {{5, 4}}, on[][2] = {{4, 3}}, both[][2] = {{5, 4}, {4, 3}};
    struct referee r;
    fight(&r, 4, false);
    cr_assert_eq(referee_move(&r, FIGHTER, RULES_MODE_MOVE, up, 1, -1), RULES_ENC_MOVE_OK);
    cr_assert_eq(r.move.path.aoo_count, 0);
    cr_assert_eq(referee_admit(&r, RULES_ACT_MOVE, FIGHTER, RULES_MODE_MOVE), RULES_ADMIT_OK);
    cr_assert_eq(referee_move(&r, FIGHTER, RULES_MODE_MOVE, on, 1, -1), RULES_ENC_MOVE_OK);
    cr_assert_eq(referee_provoked_by(&r, GOBLIN), 1);
    cr_assert_eq(r.aoos[0].step, 0);
    fight(&r, 4, false);
    cr_assert_eq(referee_move(&r, FIGHTER, RULES_MODE_DOUBLE, both, 2, -1), RULES_ENC_MOVE_OK);
    cr_assert_eq(referee_provoked_by(&r, GOBLIN), 1);
    cr_assert_eq(r.aoos[0].step, 1, "the double move provokes leaving (5, 4)");
}

/* 004 Flat-Footed: "A flat-footed combatant can't make attacks of opportunity"; d20 3.5 SRD,
 * Combat Reflexes: "you may also make attacks of opportunity while flat-footed" (the rule
 * reflexes_flat). The goblin that has not acted yet lets the fighter walk past, unless it has
 * Combat Reflexes; engine 2 let none strike while flat-footed. */
Test(referee_reactions, a_flat_footed_enemy_strikes_only_with_combat_reflexes)
{
    struct referee r;
    fight(&r, 4, false);
    referee_condition(&r, GOBLIN, RULES_CONDITION_FLAT_FOOTED, true);
    cr_assert(rules_encounter_threatens(&r.e, GOBLIN, FIGHTER),
              "it threatens all the same (004 Threatened Area)");
    cr_assert_eq(walk_past(&r), 0);
    fight(&r, 4, false);
    referee_condition(&r, GOBLIN, RULES_CONDITION_FLAT_FOOTED, true);
    r.c[GOBLIN].combat_reflexes = true;
    cr_assert_eq(walk_past(&r), 1);
    fight(&r, 2, false);
    referee_condition(&r, GOBLIN, RULES_CONDITION_FLAT_FOOTED, true);
    r.c[GOBLIN].combat_reflexes = true;
    cr_assert_eq(walk_past(&r), 0);
}

/* d20 3.5 SRD, Stunned: "A stunned creature ... can't take actions" (the rule stunned): a
 * stunned goblin threatens nobody and strikes nobody; engine 2 kept no such rule. */
Test(referee_reactions, a_stunned_enemy_threatens_nobody)
{
    struct referee r;
    fight(&r, 4, false);
    referee_condition(&r, GOBLIN, RULES_CONDITION_STUNNED, true);
    cr_assert_not(rules_encounter_threatens(&r.e, GOBLIN, FIGHTER));
    cr_assert_eq(walk_past(&r), 0);
    int made = 0, allowed = 0;
    cr_assert_eq(rules_encounter_aoo_check(&r.e, &r.c[GOBLIN], &made, &allowed), RULES_AOO_STUNNED);
    fight(&r, 2, false);
    referee_condition(&r, GOBLIN, RULES_CONDITION_STUNNED, true);
    cr_assert_eq(walk_past(&r), 1);
}

/* d20 3.5 SRD, Dying: "A dying character is unconscious and can take no actions"; 004
 * Threatened Area: the area "into which it can make a melee attack". The goblin at -9 hp (6 - 15)
 * threatens nobody: walking past it provokes nothing. */
Test(referee_reactions, a_dying_enemy_threatens_nobody)
{
    struct referee r;
    fight(&r, 4, false);
    referee_hp(&r, GOBLIN, -9);
    cr_assert_eq(r.c[GOBLIN].hp_state, RULES_HP_DYING);
    cr_assert_not(rules_encounter_threatens(&r.e, GOBLIN, FIGHTER));
    cr_assert_not(rules_encounter_aoo_now(&r.e, GOBLIN));
    cr_assert_eq(referee_move(&r, FIGHTER, RULES_MODE_MOVE, walk, 2, -1), RULES_ENC_MOVE_OK);
    cr_assert_eq(r.move.path.aoo_count, 0);
}

/* 004: "An attack of opportunity is a single melee attack" (the rule melee_aoo); 004 Threatened
 * Area: the area "into which it can make a melee attack". Of two archers beside the mover's
 * path, r1 (a bow, then a dagger) threatens and strikes with its dagger; r2 (a bow alone)
 * threatens nobody; r1's bow is refused as an attack of opportunity. Engine 2 let both strike
 * with their first profile. */
Test(referee_reactions, only_a_melee_attack_threatens_and_makes_attacks_of_opportunity)
{
    struct referee r;
    fight(&r, 4, false); /* the goblin stands in for r1 */
    const int r2 = referee_add(&r, "r2", "monsters", 4, 5);
    const struct rules_enc_profile bow_then_club[] = {r.bow, r.club};
    r.c[GOBLIN].attacks = bow_then_club, r.c[GOBLIN].attack_count = 2;
    r.c[r2].attacks = &r.bow;
    cr_assert(rules_encounter_threatens(&r.e, GOBLIN, FIGHTER));
    cr_assert_not(rules_encounter_threatens(&r.e, r2, FIGHTER));
    cr_assert_eq(rules_encounter_aoo_profile_of(&r.e, GOBLIN), 1, "its dagger (the club here)");
    static const int down[][2] = {{5, 6}, {5, 7}}; /* leaves (5, 6), beside both */
    cr_assert_eq(referee_move(&r, FIGHTER, RULES_MODE_MOVE, down, 2, -1), RULES_ENC_MOVE_OK);
    cr_assert_eq(referee_provoked_by(&r, GOBLIN), 1);
    cr_assert_eq(referee_provoked_by(&r, r2), 0);
    struct rules_creature left = r.c[FIGHTER].body;
    left.body.y = 6;
    struct rules_enc_attack_gate gate;
    cr_assert_eq(rules_encounter_attack_gate(&r.e, GOBLIN, FIGHTER, 0, true, &left, &gate),
                 RULES_ENC_ATTACK_AOO_MELEE);
    cr_assert_eq(rules_encounter_attack_gate(&r.e, GOBLIN, FIGHTER, 1, true, &left, &gate),
                 RULES_ENC_ATTACK_OK);
    r.e.engine = 2;
    r.c[FIGHTER].body.body = (struct rules_body){.x = 5, .y = 5, .side = 1};
    cr_assert_eq(referee_move(&r, FIGHTER, RULES_MODE_MOVE, down, 2, -1), RULES_ENC_MOVE_OK);
    cr_assert_eq(referee_provoked_by(&r, r2), 1);
}

/* 004 Making an Attack of Opportunity: "a combatant can only make one per round"; d20 3.5 SRD,
 * Combat Reflexes: "a number of additional attacks of opportunity equal to your Dexterity
 * bonus". A goblin that made its one this round is not offered another; with Combat Reflexes
 * and Dex 16 (+3) it makes four, and is offered none after the fourth. */
Test(referee_reactions, the_rounds_attacks_of_opportunity_are_counted_with_combat_reflexes)
{
    struct referee r;
    fight(&r, 4, false);
    r.c[GOBLIN].aoo_round = r.e.round, r.c[GOBLIN].aoo_made = 1;
    cr_assert_eq(walk_past(&r), 0);
    fight(&r, 4, false);
    r.c[GOBLIN].combat_reflexes = true, r.c[GOBLIN].dex = 16;
    r.c[GOBLIN].aoo_round = r.e.round, r.c[GOBLIN].aoo_made = 3;
    int made = 0, allowed = 0;
    cr_assert_eq(rules_encounter_aoo_check(&r.e, &r.c[GOBLIN], &made, &allowed), RULES_AOO_OK);
    cr_assert_eq(made, 3);
    cr_assert_eq(allowed, 4);
    cr_assert_eq(walk_past(&r), 1);
    r.c[GOBLIN].aoo_made = 4;
    cr_assert_eq(walk_past(&r), 0);
    r.e.round = 3; /* a new round: none made yet */
    cr_assert_eq(walk_past(&r), 1);
}

/* 004: the attack of opportunity strikes the mover as it leaves the square; d20 3.5 SRD, Dying:
 * "A dying character is unconscious and can take no actions", so a mover it drops goes no
 * further. The fighter at 2 hp: the goblin's d20 19 + 2 = 21 hits AC 12, 1d6 rolls 6, and the
 * fighter lies dying at -4. */
Test(referee_reactions, an_attack_of_opportunity_that_drops_the_mover_stops_its_move)
{
    struct referee r;
    fight(&r, 4, false);
    referee_hp(&r, FIGHTER, 2);
    struct rules_creature left = r.c[FIGHTER].body;
    left.body.y = 6;
    struct rules_enc_attack_gate gate;
    cr_assert_eq(rules_encounter_attack_gate(&r.e, GOBLIN, FIGHTER, 0, true, &left, &gate),
                 RULES_ENC_ATTACK_OK);
    struct rules_attacker a;
    struct rules_defender d;
    struct rules_creature allies[REFEREE_MAX];
    int ally_count = 0;
    rules_encounter_attack_sides(&r.e, GOBLIN, FIGHTER, &left, &a, &d, allies, &ally_count);
    a.attack_bonus = r.club.attack_bonus;
    a.kind = RULES_ATTACK_OF_OPPORTUNITY;
    struct rules_dice_expr damage;
    size_t at = 0;
    cr_assert_eq(rules_dice_parse(r.club.damage, &damage, &at), RULES_DICE_OK);
    struct rules_attack_roll_params params = {.crit_range = RULES_CRIT_RANGE_DEFAULT,
                                              .crit_multiplier = RULES_CRIT_MULTIPLIER_DEFAULT};
    struct rules_enc_attack_roll roll = {.attacker = &a,
                                         .defender = &d,
                                         .allies = allies,
                                         .ally_count = ally_count,
                                         .params = &params,
                                         .damage = &damage};
    static const int dice[] = {19, 6};
    struct rules_dice rd;
    rules_dice_from_supplied(&rd, dice, 2);
    static struct rules_enc_attack_ruling out;
    cr_assert_eq(
        rules_encounter_attack(&r.e, &r.c[GOBLIN], &r.c[FIGHTER], true, &gate, &roll, &rd, &out),
        RULES_ENC_ATTACK_OK);
    cr_assert_eq(out.ev.attack_total, 2);
    cr_assert_eq(out.ev.target_number, 12);
    cr_assert(out.rolled.hit);
    cr_assert_eq(out.after.target_hp, -4);
    cr_assert_eq(rules_hp_state_of(&r.o, out.after.target_hp), RULES_HP_DYING);
    cr_assert(out.after.stopped, "its move stops in the square it was leaving");
    cr_assert_eq(out.after.aoo_made, 1);
}

/* 004 Provoking an Attack of Opportunity by Taking an Action; d20 3.5 SRD, Actions in Combat:
 * standing up from prone provokes. The goblin beside the prone fighter may strike, the orc
 * three squares off may not; and the blow lands while the fighter is still prone (002 Table:
 * Defense Modifiers: prone, -4 against melee): AC 12 becomes 8. */
Test(referee_reactions, standing_up_provokes_and_is_struck_while_prone)
{
    struct referee r;
    fight(&r, 4, true);
    referee_condition(&r, FIGHTER, RULES_CONDITION_PRONE, true);
    cr_assert(rules_encounter_stand_up_provokes(&r.e, &r.c[GOBLIN], true, &r.c[GOBLIN].body,
                                                &r.c[FIGHTER].body));
    cr_assert_not(rules_encounter_stand_up_provokes(&r.e, &r.c[ORC], true, &r.c[ORC].body,
                                                    &r.c[FIGHTER].body));
    struct rules_attack_eval ev;
    cr_assert_eq(referee_evaluate(&r, GOBLIN, FIGHTER, RULES_COVER_NONE, &ev), RULES_ATTACK_OK);
    cr_assert(referee_has_modifier(&ev, "defender prone", -4));
    cr_assert_eq(ev.target_number, 8);
    referee_condition(&r, FIGHTER, RULES_CONDITION_PRONE, false);
    cr_assert_eq(referee_evaluate(&r, GOBLIN, FIGHTER, RULES_COVER_NONE, &ev), RULES_ATTACK_OK);
    cr_assert_eq(ev.target_number, 12, "standing, AC 12");
}
