/* What the referee derives from where everyone stands, on structs: who helps flank
 * (rules_encounter_attack_sides), forced movement and where a prone condition came from
 * (rules_encounter_resists_forced with rules_move_forced), the charge's -2 to AC and its end
 * (rules_encounter_move, rules_encounter_next_turn), and cover, concealment and Dexterity from the
 * state (rules_sight_between with rules_attack_evaluate). Each case is one the HTTP tests play
 * (tests/service/test_encounter_qa.c, test_engine4.c, test_encounter_referee.c,
 * test_encounter_derived.c), with the sentence it checks. */
#include <criterion/criterion.h>

#include "rules/attack/ability.h"
#include "tests/rules/referee.h"

enum { FIGHTER = 0, GOBLIN = 1, ROGUE = 2 };

/* The fighter (5, 5) and the rogue (7, 5) of the party either side of the goblin (6, 5), under
 * engine; round 1, before anyone's turn. */
static void either_side(struct referee *r, int engine)
{
    referee_init(r, engine, 12, 12);
    referee_add(r, "fighter", "party", 5, 5);
    referee_add(r, "goblin", "monsters", 6, 5);
    referee_add(r, "rogue", "party", 7, 5);
}

/* The fighter's swing at the goblin: flanked, and its attack total (the club's +2, and +2 more
 * flanking). */
static bool flanked(const struct referee *r, int *total)
{
    struct rules_attack_eval ev;
    cr_assert_eq(referee_evaluate(r, FIGHTER, GOBLIN, RULES_COVER_NONE, &ev), RULES_ATTACK_OK);
    *total = ev.attack_total;
    return ev.flanked;
}

/* 004 Flanking: "an ally directly opposite the combatant is threatening the opponent"; "A
 * combatant gains a +2 flanking bonus on the attack roll"; 004 Threatened Area: a combatant
 * threatens "the area into which it can make a melee attack, even when it is not a combatant's
 * action", and 004 Flat-Footed bars only attacks of opportunity: the rogue, flat-footed before its
 * first turn, still flanks (the rule flanking_ally); engine 2 said it did not. */
Test(referee_board, a_flat_footed_ally_still_flanks)
{
    struct referee r;
    either_side(&r, 4);
    referee_condition(&r, ROGUE, RULES_CONDITION_FLAT_FOOTED, true);
    int total = 0;
    cr_assert(flanked(&r, &total));
    cr_assert_eq(total, 4);
    r.e.engine = 2;
    cr_assert_not(flanked(&r, &total));
    cr_assert_eq(total, 2);
}

/* 004 Flanking needs an ally that is "threatening the opponent": d20 3.5 SRD, Stunned: "can't
 * take actions", so a stunned rogue threatens nothing; 004 Threatened Area: "the area into which
 * it can make a melee attack", so a rogue with a bow alone threatens nothing; a dying rogue "is
 * unconscious" (SRD, Dying). None of them flanks. */
Test(referee_board, a_stunned_a_dying_or_an_unarmed_ally_flanks_for_nobody)
{
    struct referee r;
    int total = 0;
    either_side(&r, 4);
    cr_assert(flanked(&r, &total), "the rogue as it is flanks");
    referee_condition(&r, ROGUE, RULES_CONDITION_STUNNED, true);
    cr_assert_not(flanked(&r, &total));
    either_side(&r, 4);
    r.c[ROGUE].attacks = &r.bow;
    cr_assert_not(flanked(&r, &total));
    either_side(&r, 4);
    referee_hp(&r, ROGUE, -1);
    cr_assert_not(flanked(&r, &total));
    cr_assert_eq(total, 2);
}

/* 000 Sneak Attacks: a rogue sneak attacks "the foe is flat-footed"; 004 Flanking: "A rogue in
 * this position can also sneak attack the target". The rogue (2d6 of sneak attack) at (7, 5)
 * strikes the goblin: flat-footed before its first turn, a sneak attack; once the goblin has
 * acted, none from where the rogue stands alone (the fighter moved off to (5, 3)); with the
 * fighter opposite at (5, 5), flanking, a sneak attack again. */
Test(referee_board, a_rogue_sneak_attacks_a_flat_footed_or_flanked_foe)
{
    struct referee r;
    either_side(&r, 4);
    struct rules_enc_profile rapier = r.club;
    rapier.sneak_dice = 2, rapier.rogue_level = 3;
    r.c[ROGUE].attacks = &rapier;
    r.c[FIGHTER].body.body.y = 3;
    referee_condition(&r, GOBLIN, RULES_CONDITION_FLAT_FOOTED, true);
    struct rules_attack_eval ev;
    cr_assert_eq(referee_evaluate(&r, ROGUE, GOBLIN, RULES_COVER_NONE, &ev), RULES_ATTACK_OK);
    cr_assert(ev.sneak_attack, "flat-footed");
    referee_condition(&r, GOBLIN, RULES_CONDITION_FLAT_FOOTED, false);
    cr_assert_eq(referee_evaluate(&r, ROGUE, GOBLIN, RULES_COVER_NONE, &ev), RULES_ATTACK_OK);
    cr_assert_not(ev.sneak_attack, "neither flat-footed nor flanked");
    cr_assert_not(ev.flanked);
    r.c[FIGHTER].body.body.y = 5;
    cr_assert_eq(referee_evaluate(&r, ROGUE, GOBLIN, RULES_COVER_NONE, &ev), RULES_ATTACK_OK);
    cr_assert(ev.flanked);
    cr_assert(ev.sneak_attack, "flanked");
}

/* Kroh (party) at (5, 5) pushes the orc (monsters) at (8, 8) one square east, to (9, 8): the push
 * as the encounter rules it, with the resistance the state decides. Returns the stop. */
static enum rules_forced_stop push(struct referee *r, int kroh, int orc, int to_x)
{
    int n = rules_encounter_board(&r->e, orc, r->board, r->board_index);
    const struct rules_step path[] = {{to_x, 8, -1}};
    struct rules_forced_query q = {.o = &r->o,
                                   .map = &r->map,
                                   .creatures = r->board,
                                   .creature_count = n,
                                   .target = r->c[orc].body,
                                   .attacker = r->c[kroh].body,
                                   .kind = RULES_FORCED_PUSH,
                                   .squares = 1,
                                   .voluntarily_prone = rules_encounter_resists_forced(&r->e, orc),
                                   .fall_prone_at = -1,
                                   .path = path,
                                   .path_len = 1};
    struct rules_forced_result res;
    rules_move_forced(&q, &res);
    if (res.moved > 0)
        r->c[orc].body.body.x = res.x;
    return res.stop;
}

/* 001 Forced Movement: "A creature which has voluntarily dropped to Prone can elect to ignore
 * any forced movement inflicted upon it as long as it remains prone. However, a creature which
 * was made prone involuntarily gains no such resistance to forced movement until it has had an
 * opportunity to stand up." The orc knocked prone by a fall (event 7) is pushed all the same;
 * once its own turn has begun it ignores the next push. An orc that dropped prone of its own
 * will ignores it at once. */
Test(referee_board, a_creature_made_prone_resists_forced_movement_only_after_its_turn)
{
    struct referee r;
    referee_init(&r, 4, 12, 12);
    const int kroh = referee_add(&r, "kroh", "party", 5, 5);
    const int orc = referee_add(&r, "orc", "monsters", 8, 8);
    referee_next_turn(&r); /* kroh's turn */
    referee_condition(&r, orc, RULES_CONDITION_PRONE, true);
    r.c[orc].sources[RULES_CONDITION_PRONE] =
        (struct rules_condition_source){7, rules_condition_involuntary(RULES_CAUSE_FALL), false};
    cr_assert(rules_encounter_prone_known(&r.e, orc));
    cr_assert_eq(push(&r, kroh, orc, 9), RULES_FORCED_COMPLETE);
    cr_assert_eq(r.c[orc].body.body.x, 9);
    cr_assert_eq(referee_next_turn(&r), RULES_ENC_OK); /* the orc's: its chance to stand */
    cr_assert_eq(r.next.combatant, orc);
    cr_assert(r.c[orc].sources[RULES_CONDITION_PRONE].had_turn);
    referee_next_turn(&r); /* kroh's again */
    cr_assert_eq(push(&r, kroh, orc, 10), RULES_FORCED_IGNORED);
    cr_assert_eq(r.c[orc].body.body.x, 9);
    r.c[orc].sources[RULES_CONDITION_PRONE] =
        (struct rules_condition_source){8, rules_condition_involuntary(RULES_CAUSE_OWN), false};
    cr_assert_eq(push(&r, kroh, orc, 10), RULES_FORCED_IGNORED, "dropped of its own will");
}

/* d20 3.5 SRD, Charge: "After moving, you may make a single melee attack. You get a +2 bonus on
 * the attack roll and take a -2 penalty to your AC until the start of your next turn." The
 * goblin at (8, 5) charges the fighter at (5, 5) straight in; its attack (at the fighter, its
 * designated opponent) gets the +2, another target is refused; the fighter's swing finds its AC
 * 12 - 2 = 10; the penalty ends as the goblin's next turn begins (004: effects "end just before
 * the same initiative count that they began on"). */
Test(referee_board, a_charger_strikes_at_plus_2_and_is_at_minus_2_until_its_next_turn)
{
    struct referee r;
    referee_init(&r, 4, 12, 12);
    const int goblin = referee_add(&r, "goblin", "monsters", 8, 5);
    const int fighter = referee_add(&r, "fighter", "party", 5, 5);
    const int other = referee_add(&r, "other", "party", 6, 6);
    referee_next_turn(&r); /* the goblin's, round 1, slot 0 */
    static const int in[][2] = {{7, 5}, {6, 5}};
    cr_assert_eq(referee_move(&r, goblin, RULES_MODE_CHARGE, in, 2, fighter), RULES_ENC_MOVE_OK);
    cr_assert_eq(referee_admit(&r, RULES_ACT_MOVE, goblin, RULES_MODE_CHARGE), RULES_ADMIT_OK);
    cr_assert(r.move.charging);
    cr_assert_eq(r.move.charging_end_round, 2);
    cr_assert_eq(r.move.charging_end_turn, 0);
    r.c[goblin].charge_target = fighter;
    struct rules_enc_attack_gate gate;
    cr_assert_eq(rules_encounter_attack_gate(&r.e, goblin, fighter, 0, false, NULL, &gate),
                 RULES_ENC_ATTACK_OK);
    cr_assert(gate.charge_attack, "the charge's attack: +2");
    struct rules_attack_eval ev;
    cr_assert_eq(referee_evaluate(&r, goblin, fighter, RULES_COVER_NONE, &ev), RULES_ATTACK_OK);
    cr_assert(referee_has_modifier(&ev, "attacker charging", 2));
    cr_assert_eq(ev.attack_total, 4, "the club's +2 and the charge's +2");
    cr_assert_eq(rules_encounter_attack_gate(&r.e, goblin, other, 0, false, NULL, &gate),
                 RULES_ENC_ATTACK_CHARGE_TARGET);
    referee_condition(&r, goblin, RULES_CONDITION_CHARGING, true);
    const struct rules_enc_timed charging = {r.move.charging_end_round, r.move.charging_end_turn,
                                             RULES_CONDITION_CHARGING};
    r.c[goblin].timed = &charging, r.c[goblin].timed_count = 1;
    cr_assert_eq(referee_evaluate(&r, fighter, goblin, RULES_COVER_NONE, &ev), RULES_ATTACK_OK);
    cr_assert(referee_has_modifier(&ev, "defender charged since its turn began", -2));
    cr_assert_eq(ev.target_number, 10);
    cr_assert_eq(referee_next_turn(&r), RULES_ENC_OK); /* the fighter's */
    cr_assert_eq(r.next.ended_count, 0);
    referee_next_turn(&r);                             /* the other's */
    cr_assert_eq(referee_next_turn(&r), RULES_ENC_OK); /* round 2: the goblin's */
    cr_assert_eq(r.next.combatant, goblin);
    cr_assert_eq(r.next.ended_count, 1);
    cr_assert_eq(r.ended[0].combatant, goblin);
}

enum { ARCHER = 0, TARGET = 1 };

/* The archer (a bow, +6) at (0, y) and the target (AC 10 + armor 2, Dex 14) at (4, y) on an
 * 8 x 3 map; the archer's turn in round 1, so the target has not acted: flat-footed (004
 * Flat-Footed). Its Dexterity part of its Defense derived from its Dex by the d20 3.5 SRD's
 * Ability Modifiers: +2. */
static void range_at(struct referee *r, int y)
{
    referee_init(r, 4, 8, 3);
    referee_add(r, "archer", "a", 0, y);
    referee_add(r, "target", "b", 4, y);
    r->c[ARCHER].attacks = &r->bow;
    r->c[TARGET].dex = 14;
    r->c[TARGET].defense.dex = rules_ability_modifier(r->c[TARGET].dex);
    cr_assert_eq(r->c[TARGET].defense.dex, 2);
    referee_condition(r, TARGET, RULES_CONDITION_FLAT_FOOTED, true);
    referee_next_turn(r);
}

/* What the archer sees of the target: the SRD's corner-to-corner lines through the map's walls
 * and the other combatants. */
static void sight(const struct referee *r, struct rules_sight *s)
{
    struct rules_creature others[REFEREE_MAX];
    int k = 0;
    for (int i = 0; i < r->e.count; i++)
        if (i != ARCHER && i != TARGET)
            others[k++] = r->c[i].body;
    cr_assert_eq(rules_sight_between(&r->o, &r->map, &r->c[ARCHER].body, &r->c[TARGET].body, others,
                                     k, false, false, s),
                 RULES_COVER_OK);
}

/* d20 3.5 SRD, Combat: Cover: a wall square at (2, 0) between them gives cover, 002 Table:
 * Cover's one-half, +4; the target, flat-footed, loses its Dexterity bonus (004 Flat-Footed):
 * AC 10 + 2 + 4 = 16, the wall's square named. A third combatant in that square gives the same
 * cover and is named. */
Test(referee_board, a_wall_or_a_combatant_between_gives_half_cover)
{
    struct referee r;
    range_at(&r, 0);
    r.map.terrain[2] = RULES_MAP_BLOCKED; /* (2, 0) */
    struct rules_sight s;
    sight(&r, &s);
    cr_assert_eq(s.cover, RULES_COVER_HALF);
    cr_assert_eq(s.blocking_count, 1);
    cr_assert_eq(s.blocking[0].x, 2);
    cr_assert_eq(s.blocking[0].y, 0);
    cr_assert_eq(s.blocking[0].creature, -1);
    struct rules_attack_eval ev;
    cr_assert_eq(referee_evaluate(&r, ARCHER, TARGET, s.cover, &ev), RULES_ATTACK_OK);
    cr_assert(ev.dex_lost);
    cr_assert_eq(ev.cover_bonus, 4);
    cr_assert_eq(ev.target_number, 16);
    range_at(&r, 0);
    const int ally = referee_add(&r, "ally", "a", 2, 0);
    sight(&r, &s);
    cr_assert_eq(s.cover, RULES_COVER_HALF);
    cr_assert_eq(s.blocking[0].creature, 0, "the first of the others: the ally");
    cr_assert_eq(ally, 2);
    cr_assert_eq(referee_evaluate(&r, ARCHER, TARGET, s.cover, &ev), RULES_ATTACK_OK);
    cr_assert_eq(ev.target_number, 16);
    /* Not flat-footed, its Dexterity counts: 18. */
    referee_condition(&r, TARGET, RULES_CONDITION_FLAT_FOOTED, false);
    cr_assert_eq(referee_evaluate(&r, ARCHER, TARGET, s.cover, &ev), RULES_ATTACK_OK);
    cr_assert_eq(ev.target_number, 18);
}

/* d20 3.5 SRD, Combat: Total Cover; 002 Table: Cover, Total ("on the other side of a solid
 * wall"): a wall across the map at x = 2, every line crossing it: total cover, and the attack is
 * refused. */
Test(referee_board, a_wall_across_the_map_gives_total_cover)
{
    struct referee r;
    range_at(&r, 1);
    for (int y = 0; y < 3; y++)
        r.map.terrain[y * 8 + 2] = RULES_MAP_BLOCKED;
    struct rules_sight s;
    sight(&r, &s);
    cr_assert_eq(s.cover, RULES_COVER_TOTAL);
    struct rules_attack_eval ev;
    cr_assert_eq(referee_evaluate(&r, ARCHER, TARGET, s.cover, &ev), RULES_ATTACK_ERR_TOTAL_COVER);
}

/* d20 3.5 SRD, Combat: Concealment; 002 Table: Concealment: the target in a concealed square
 * (darkness) has one-half concealment, a 20% miss chance, and no cover: AC 10 + 2 = 12. */
Test(referee_board, a_target_in_darkness_is_concealed)
{
    struct referee r;
    range_at(&r, 0);
    r.map.flags[4] |= RULES_SQUARE_CONCEALED; /* (4, 0) */
    struct rules_sight s;
    sight(&r, &s);
    cr_assert_eq(s.concealment, RULES_CONCEAL_HALF);
    cr_assert_eq(s.cover, RULES_COVER_NONE);
    cr_assert_eq(rules_concealment_miss_chance(s.concealment), 20);
    struct rules_attack_eval ev;
    cr_assert_eq(referee_evaluate(&r, ARCHER, TARGET, s.cover, &ev), RULES_ATTACK_OK);
    cr_assert_eq(ev.target_number, 12);
}
