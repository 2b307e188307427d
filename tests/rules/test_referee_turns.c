/* The action economy as the referee rules it on structs (rules_encounter_admit,
 * rules_encounter_next_turn, rules_encounter_move): what a turn may still spend, the surprise
 * round's and the disabled creature's partial action, the full attack, standing up and crawling,
 * and what may be done out of turn. Each case is one the HTTP tests play
 * (tests/service/test_encounter_referee.c), decided here by the rules functions alone, with the
 * sentence it checks. */
#include <criterion/criterion.h>

#include "tests/rules/referee.h"

/* The goblin (monsters) at (6, 5), first in the order, and the fighter (party) at (5, 5), under
 * engine; the goblin's turn of round 1 begun. */
static void skirmish(struct referee *r, int engine)
{
    referee_init(r, engine, 12, 12);
    cr_assert_eq(referee_add(r, "goblin", "monsters", 6, 5), 0);
    cr_assert_eq(referee_add(r, "fighter", "party", 5, 5), 1);
    cr_assert_eq(referee_next_turn(r), RULES_ENC_OK);
    cr_assert_eq(r->next.combatant, 0);
}

enum { GOBLIN = 0, FIGHTER = 1 };

/* The same two, the goblin alone aware (004 Step One): the surprise round, its turn begun. */
static void surprise(struct referee *r)
{
    referee_init(r, 4, 12, 12);
    referee_add(r, "goblin", "monsters", 6, 5);
    referee_add(r, "fighter", "party", 5, 5);
    r->order[FIGHTER].aware = false;
    r->e.surprise = true;
    r->e.round = 0;
    cr_assert_eq(referee_next_turn(r), RULES_ENC_OK);
}

/* 004 The Combat Round and 001 Types of Movement: one standard action and one move action a
 * turn, or one full-round action; 001 5-Foot Step: "A creature can take a 5-foot step as a free
 * action in any round in which they don't perform any other kind of movement. Creatures cannot
 * take more than one of these sorts of 5-foot steps in a round." The goblin attacked,
 * then stepped four times, moved and double moved. */
Test(referee_turns, an_attack_leaves_one_five_foot_step_and_no_other_movement)
{
    struct referee r;
    skirmish(&r, 4);
    cr_assert_eq(referee_admit(&r, RULES_ACT_ATTACK, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_OK);
    cr_assert(r.adm.spends && r.adm.cost == RULES_ACTION_ATTACK);
    cr_assert_eq(referee_admit(&r, RULES_ACT_ATTACK, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_BUDGET,
                 "one standard action a turn");
    cr_assert_str_eq(r.adm.why.rule, "001 Types of Movement; 004 The Combat Round");
    cr_assert_eq(referee_admit(&r, RULES_ACT_FIVE_FOOT_STEP, GOBLIN, RULES_MODE_STEP),
                 RULES_ADMIT_OK);
    cr_assert_eq(referee_admit(&r, RULES_ACT_FIVE_FOOT_STEP, GOBLIN, RULES_MODE_STEP),
                 RULES_ADMIT_BUDGET, "not more than one 5-foot step in a round");
    cr_assert_str_eq(r.adm.why.rule, "001 5-Foot Step");
    cr_assert_eq(referee_admit(&r, RULES_ACT_MOVE, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_BUDGET,
                 "the step is allowed only in a round without other movement");
    cr_assert_str_eq(r.adm.why.rule, "001 5-Foot Step");
    cr_assert_eq(referee_admit(&r, RULES_ACT_MOVE, GOBLIN, RULES_MODE_DOUBLE), RULES_ADMIT_BUDGET,
                 "a double move needs the whole turn");
    struct rules_turn_left left;
    rules_turn_left(&r.c[GOBLIN].turn, &r.adm.limits, &left);
    cr_assert(left.move && !left.standard && !left.full_round && !left.five_foot_step);
}

/* 001 Double Move ("Type of Action: Full Attack Action": the whole turn) and 000 Changing
 * Facing: "If you do not move during your turn, or if your movement is limited to a 5-foot step,
 * you may change facing once ... as a free action"; otherwise a move action, which a double move
 * leaves none of. A new turn brings a new budget. */
Test(referee_turns, a_double_move_takes_the_turn_and_the_free_facing_change)
{
    struct referee r;
    skirmish(&r, 4);
    cr_assert_eq(referee_admit(&r, RULES_ACT_ATTACK, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_OK);
    cr_assert_eq(referee_next_turn(&r), RULES_ENC_OK); /* the fighter */
    cr_assert_eq(referee_next_turn(&r), RULES_ENC_OK); /* round 2: the goblin, a fresh turn */
    cr_assert_eq(r.e.round, 2);
    cr_assert_eq(r.next.combatant, GOBLIN);
    cr_assert_eq(referee_admit(&r, RULES_ACT_MOVE, GOBLIN, RULES_MODE_DOUBLE), RULES_ADMIT_OK);
    cr_assert(r.c[GOBLIN].turn.full_round && r.c[GOBLIN].turn.moved);
    cr_assert_eq(referee_admit(&r, RULES_ACT_FACING, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_BUDGET);
    cr_assert_str_eq(r.adm.why.rule, "000 Changing Facing");
    cr_assert_eq(referee_admit(&r, RULES_ACT_FIVE_FOOT_STEP, GOBLIN, RULES_MODE_STEP),
                 RULES_ADMIT_BUDGET, "it moved this round");
}

/* 004 Step One: "combatants who started the battle aware of their opponents each take a partial
 * action during the surprise round"; "Combatants who were unaware do not get to act in the
 * surprise round". The combatant moved 40 ft, attacked twice and moved again. Round 1
 * gives the goblin a whole turn. */
Test(referee_turns, the_surprise_round_is_one_partial_action)
{
    struct referee r;
    surprise(&r);
    cr_assert_eq(r.next.combatant, GOBLIN);
    cr_assert_eq(r.next.round, 0);
    cr_assert(r.next.limits.partial);
    cr_assert_eq(referee_admit(&r, RULES_ACT_MOVE, GOBLIN, RULES_MODE_DOUBLE), RULES_ADMIT_BUDGET);
    cr_assert_str_eq(r.adm.why.rule, "004 Step One (a partial action); d20 3.5 SRD, Disabled");
    cr_assert_eq(referee_admit(&r, RULES_ACT_MOVE, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_OK);
    cr_assert_eq(referee_admit(&r, RULES_ACT_ATTACK, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_BUDGET,
                 "a move or a standard action, not both");
    /* The unaware fighter is passed over: round 1 begins with the goblin again, whole. */
    cr_assert_eq(referee_next_turn(&r), RULES_ENC_OK);
    cr_assert_eq(r.next.round, 1);
    cr_assert_eq(r.next.combatant, GOBLIN);
    cr_assert_not(r.next.limits.partial);
    cr_assert_eq(referee_admit(&r, RULES_ACT_MOVE, GOBLIN, RULES_MODE_DOUBLE), RULES_ADMIT_OK);
}

/* d20 3.5 SRD, Disabled: "He can take only a single move action or standard action each turn
 * (but not both, nor can he take full-round actions)". The goblin at exactly 0 hit points. */
Test(referee_turns, a_disabled_combatant_takes_a_move_or_a_standard_action)
{
    struct referee r;
    skirmish(&r, 4);
    referee_hp(&r, GOBLIN, 0);
    cr_assert_eq(r.c[GOBLIN].hp_state, RULES_HP_DISABLED);
    cr_assert_eq(referee_admit(&r, RULES_ACT_FULL_ATTACK, GOBLIN, RULES_MODE_MOVE),
                 RULES_ADMIT_BUDGET, "no full-round actions");
    cr_assert(r.adm.limits.partial);
    cr_assert_eq(referee_admit(&r, RULES_ACT_MOVE, GOBLIN, RULES_MODE_RUN), RULES_ADMIT_BUDGET);
    cr_assert_eq(referee_admit(&r, RULES_ACT_ATTACK, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_OK);
    cr_assert_eq(referee_admit(&r, RULES_ACT_MOVE, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_BUDGET,
                 "not both");
    /* Its next turn begins partial as well. */
    cr_assert_eq(referee_next_turn(&r), RULES_ENC_OK);
    cr_assert_eq(referee_next_turn(&r), RULES_ENC_OK);
    cr_assert_eq(r.next.combatant, GOBLIN);
    cr_assert(r.next.limits.partial);
    referee_hp(&r, GOBLIN, 1); /* at 1 hp it is up: a whole turn */
    cr_assert_eq(referee_admit(&r, RULES_ACT_MOVE, GOBLIN, RULES_MODE_DOUBLE), RULES_ADMIT_OK);
}

/* d20 3.5 SRD, Full Attack: a full attack is a full-round action, so not after a move and
 * nothing after it but free actions; it moves nobody, so the free 5-foot step is still there
 * (001 5-Foot Step: "in any round in which they don't perform any other kind of movement"). */
Test(referee_turns, a_full_attack_takes_the_whole_turn_but_leaves_the_5_foot_step)
{
    struct referee r;
    skirmish(&r, 4);
    cr_assert_eq(referee_admit(&r, RULES_ACT_FULL_ATTACK, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_OK);
    cr_assert_eq(r.adm.cost, RULES_ACTION_FULL_ATTACK);
    cr_assert_eq(referee_admit(&r, RULES_ACT_ATTACK, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_BUDGET);
    cr_assert_str_eq(r.adm.why.message,
                     "a full-round action was taken this turn: only free actions are left");
    cr_assert_eq(referee_admit(&r, RULES_ACT_FIVE_FOOT_STEP, GOBLIN, RULES_MODE_STEP),
                 RULES_ADMIT_OK);
    /* Next round, a move first: the full attack no longer fits. */
    referee_next_turn(&r);
    referee_next_turn(&r);
    cr_assert_eq(referee_admit(&r, RULES_ACT_MOVE, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_OK);
    cr_assert_eq(referee_admit(&r, RULES_ACT_FULL_ATTACK, GOBLIN, RULES_MODE_MOVE),
                 RULES_ADMIT_BUDGET);
    cr_assert_str_eq(r.adm.why.message,
                     "a full-round action needs the whole turn, and part of it is spent");
}

/* 001 Part of a Move Action: "standing up from Prone" takes a move action; 001 Double Move:
 * "converting your standard action to a move action and moving twice" (the rule
 * standard_as_move), so the goblin stands and still walks, and then has free actions only. One
 * that is not prone has nothing to stand up from. */
Test(referee_turns, standing_up_takes_the_move_action_and_a_standard_may_move)
{
    struct referee r;
    skirmish(&r, 4);
    cr_assert_eq(referee_admit(&r, RULES_ACT_STAND_UP, GOBLIN, RULES_MODE_MOVE),
                 RULES_ADMIT_NOT_PRONE);
    referee_condition(&r, GOBLIN, RULES_CONDITION_PRONE, true);
    cr_assert_eq(referee_admit(&r, RULES_ACT_STAND_UP, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_OK);
    cr_assert(r.c[GOBLIN].turn.move && !r.c[GOBLIN].turn.standard);
    referee_condition(&r, GOBLIN, RULES_CONDITION_PRONE, false);
    cr_assert_eq(referee_admit(&r, RULES_ACT_MOVE, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_OK);
    cr_assert(r.c[GOBLIN].turn.standard && r.c[GOBLIN].turn.move);
    cr_assert_eq(referee_admit(&r, RULES_ACT_MOVE, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_BUDGET);
    cr_assert_str_eq(r.adm.why.message,
                     "the move action of this turn is spent (one standard and one move action a "
                     "turn)");
    /* Engine 2, before standard_as_move: the walk after standing up was refused. */
    skirmish(&r, 2);
    referee_condition(&r, GOBLIN, RULES_CONDITION_PRONE, true);
    cr_assert_eq(referee_admit(&r, RULES_ACT_STAND_UP, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_OK);
    cr_assert_eq(referee_admit(&r, RULES_ACT_MOVE, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_BUDGET);
}

/* 001 Crawling: "While Quelled, Prone, or Splayed, you can crawl 5 feet as a move action." A
 * prone goblin's walk is refused (the rule crawl); its crawl of one square is ruled, a crawl of
 * two is past its 5 feet. */
Test(referee_turns, a_prone_creature_moves_only_by_crawling_5_feet)
{
    struct referee r;
    skirmish(&r, 4);
    referee_condition(&r, GOBLIN, RULES_CONDITION_PRONE, true);
    static const int east[][2] = {{7, 5}, {8, 5}};
    cr_assert_eq(referee_move(&r, GOBLIN, RULES_MODE_MOVE, east, 1, -1), RULES_ENC_MOVE_ILLEGAL);
    cr_assert_not(r.move.path.legal);
    cr_assert_eq(referee_move(&r, GOBLIN, RULES_MODE_CRAWL, east, 2, -1), RULES_ENC_MOVE_ILLEGAL);
    cr_assert_eq(referee_move(&r, GOBLIN, RULES_MODE_CRAWL, east, 1, -1), RULES_ENC_MOVE_OK);
    cr_assert_eq(r.move.path.total_ft, 5);
    cr_assert_eq(r.move.end_x, 7);
    cr_assert_eq(referee_admit(&r, RULES_ACT_MOVE, GOBLIN, RULES_MODE_CRAWL), RULES_ADMIT_OK);
    cr_assert_eq(r.adm.cost, RULES_ACTION_CRAWL);
    cr_assert(r.c[GOBLIN].turn.move);
    /* Nor a 5-foot step: it waits for standing up. */
    cr_assert_eq(referee_move(&r, GOBLIN, RULES_MODE_STEP, east + 1, 1, -1),
                 RULES_ENC_MOVE_ILLEGAL);
    cr_assert(r.move.path.action_violations & (1u << RULES_MV_PRONE));
}

/* Kroh, a player character with base attack bonus 6 (two attacks: d20 3.5 SRD, Full Attack), at
 * (5, 5) beside the orc at (6, 5), on his turn; the full attack admitted. */
static void kroh_and_orc(struct referee *r)
{
    referee_init(r, 4, 12, 12);
    const int kroh = referee_add(r, "kroh", "party", 5, 5);
    referee_add(r, "orc", "monsters", 6, 5);
    r->c[kroh].base_attack_bonus = 6;
    r->c[kroh].player_character = true;
    cr_assert_eq(referee_next_turn(r), RULES_ENC_OK);
    cr_assert_eq(referee_admit(r, RULES_ACT_FULL_ATTACK, kroh, RULES_MODE_MOVE), RULES_ADMIT_OK);
}

/* 001 Trade Away Attacks From A Full Attack Action: the steps "'use up' the worst to-hit
 * numbers", and "5-foot steps taken by trading away attacks from a full attack action do not
 * count as movement, and may therefore be combined with a free-action 5-foot step". Kroh trades
 * his +1 attack for a step and attacks at +6 (the best bonus, iterative penalty 0); his free
 * 5-foot step is still his to take. A monster cannot trade. */
Test(referee_turns, a_traded_step_is_no_movement_and_the_free_step_remains)
{
    struct referee r;
    kroh_and_orc(&r);
    const struct rules_plan_item plan[] = {{RULES_PLAN_STEP, -1, -1}, {RULES_PLAN_ATTACK, -1, -1}};
    struct rules_full_attack_plan out;
    cr_assert_eq(
        rules_encounter_full_attack_plan(&r.e, 0, 1, plan, 2, &r.c[0].turn, &r.adm.limits, &out),
        RULES_PLAN_OK);
    cr_assert_eq(out.iterative, 2);
    cr_assert_eq(out.steps, 1);
    cr_assert_eq(rules_iterative_penalty(out.attack_of[1]), 0, "the attack made is at +6");
    cr_assert_not(r.c[0].turn.stepped);
    cr_assert_eq(referee_admit(&r, RULES_ACT_FIVE_FOOT_STEP, 0, RULES_MODE_STEP), RULES_ADMIT_OK);
    kroh_and_orc(&r);
    r.c[0].player_character = false;
    cr_assert_eq(
        rules_encounter_full_attack_plan(&r.e, 0, 1, plan, 2, &r.c[0].turn, &r.adm.limits, &out),
        RULES_PLAN_MONSTER);
}

/* 004 Combat Sequence, Step Three: "Combatants act in initiative order": the goblin leaving on its
 * own turn (its slot gone, the turn between turns) passes the turn on as the next turn would: to
 * the fighter in round 1, its turn begun (no longer flat-footed, 004 Flat-Footed) with a whole
 * budget. When nobody left can act (every one dying or dead: d20 3.5 SRD, Dying), there is no
 * next turn to give. */
Test(referee_turns, a_combatant_leaving_on_its_own_turn_passes_the_turn_on)
{
    struct referee r;
    skirmish(&r, 4);
    referee_condition(&r, FIGHTER, RULES_CONDITION_FLAT_FOOTED, true);
    r.order[0] = r.order[1]; /* the order closed up around the goblin */
    r.e.slots = 1;
    r.e.turn = -1;
    cr_assert_eq(referee_next_turn(&r), RULES_ENC_OK);
    cr_assert_eq(r.next.round, 1);
    cr_assert_eq(r.next.combatant, FIGHTER);
    cr_assert_not(r.next.limits.partial);
    cr_assert_not(r.c[FIGHTER].flat_footed);
    cr_assert_eq(referee_admit(&r, RULES_ACT_MOVE, FIGHTER, RULES_MODE_DOUBLE), RULES_ADMIT_OK);
    referee_hp(&r, FIGHTER, -3);
    r.e.turn = -1;
    cr_assert_eq(rules_encounter_next_turn(&r.e, &r.next), RULES_ENC_NO_ONE_ACTS);
}

/* 004 The Combat Round: "Each round, each combatant gets a turn to act"; out of turn, only what
 * happens to a creature. Under condition_free the game master applies a condition at any time,
 * to anyone, spending nobody's turn; engine 1 took it on the actor's own turn. */
Test(referee_turns, a_condition_is_applied_out_of_turn_and_spends_nothing)
{
    struct referee r;
    skirmish(&r, 4); /* the goblin's turn */
    cr_assert_eq(referee_admit(&r, RULES_ACT_CONDITION, FIGHTER, RULES_MODE_MOVE), RULES_ADMIT_OK);
    cr_assert_not(r.adm.spends);
    cr_assert_eq(referee_admit(&r, RULES_ACT_ATTACK, FIGHTER, RULES_MODE_MOVE),
                 RULES_ADMIT_NOT_ITS_TURN);
    cr_assert_eq(r.adm.turn_of, GOBLIN);
    /* The goblin's turn is untouched: a double move still fits. */
    cr_assert_eq(referee_admit(&r, RULES_ACT_MOVE, GOBLIN, RULES_MODE_DOUBLE), RULES_ADMIT_OK);
    skirmish(&r, 1);
    cr_assert_eq(referee_admit(&r, RULES_ACT_CONDITION, FIGHTER, RULES_MODE_MOVE),
                 RULES_ADMIT_NOT_ITS_TURN);
}

/* d20 3.5 SRD, Charge: "Charging is a special full-round action"; "After moving, you may make a
 * single melee attack". The charge admitted, its one attack is admitted (the turn marks it), and
 * a second attack finds the full-round action taken. */
Test(referee_turns, a_charge_takes_the_turn_and_allows_one_attack)
{
    struct referee r;
    skirmish(&r, 4);
    cr_assert_eq(referee_admit(&r, RULES_ACT_MOVE, GOBLIN, RULES_MODE_CHARGE), RULES_ADMIT_OK);
    cr_assert_eq(r.adm.cost, RULES_ACTION_CHARGE);
    cr_assert(r.c[GOBLIN].turn.charged && r.c[GOBLIN].turn.full_round);
    cr_assert_eq(referee_admit(&r, RULES_ACT_ATTACK, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_OK);
    cr_assert(r.c[GOBLIN].turn.charge_attacked);
    cr_assert_eq(referee_admit(&r, RULES_ACT_ATTACK, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_BUDGET);
    cr_assert_str_eq(r.adm.why.message,
                     "a full-round action was taken this turn: only free actions are left");
    /* Engine 2 had no charge attack: the charge was a full-round move and nothing followed. */
    skirmish(&r, 2);
    cr_assert_eq(referee_admit(&r, RULES_ACT_MOVE, GOBLIN, RULES_MODE_CHARGE), RULES_ADMIT_OK);
    cr_assert_eq(referee_admit(&r, RULES_ACT_ATTACK, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_BUDGET);
}

/* 004 Step One with d20 3.5 SRD, Charge: "If you are able to take only a standard action or a
 * move action on your turn, you can still charge": in the surprise round the charge is the one
 * action, and its attack follows; nothing else does. */
Test(referee_turns, a_partial_action_may_be_a_charge_with_its_attack)
{
    struct referee r;
    surprise(&r);
    cr_assert_eq(referee_admit(&r, RULES_ACT_MOVE, GOBLIN, RULES_MODE_CHARGE), RULES_ADMIT_OK);
    cr_assert(r.adm.limits.partial);
    cr_assert_eq(referee_admit(&r, RULES_ACT_ATTACK, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_OK);
    cr_assert_eq(referee_admit(&r, RULES_ACT_MOVE, GOBLIN, RULES_MODE_MOVE), RULES_ADMIT_BUDGET);
}
