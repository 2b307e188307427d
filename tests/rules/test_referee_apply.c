/* What an event leaves on the typed encounter, applied to the structs (rules/encounter/apply.h):
 * a combatant's derived flags, the start of its turn, a combatant leaving the fight under way.
 * The service rules the turn after a removal on a copy changed so (turns.c) rather than on a
 * folded copy of its JSON, and begins each turn with the same function as the referee here.
 * Each case quotes the sentence it checks. */
#include <criterion/criterion.h>

#include "rules/encounter/apply.h"
#include "rules/encounter/engine.h"
#include "tests/rules/referee.h"

enum { GOBLIN = 0, FIGHTER = 1, ORC = 2 };

/* The goblin, the fighter and the orc, in that initiative order, under engine, before the
 * first turn; every one flat-footed, as initiative leaves them. */
static void three(struct referee *r, int engine)
{
    referee_init(r, engine, 12, 12);
    referee_add(r, "goblin", "monsters", 6, 5);
    referee_add(r, "fighter", "party", 5, 5);
    referee_add(r, "orc", "monsters", 7, 7);
    for (int c = 0; c < 3; c++)
        referee_condition(r, c, RULES_CONDITION_FLAT_FOOTED, true);
}

/* 004 Flat-Footed: "At the start of a battle each combatant is flat-footed" (d20 3.5 SRD,
 * Flat-Footed: "until you first act"); 004 The Combat Round: each turn its own budget. Beginning
 * the goblin's turn ends its flat-footedness and no one else's, and gives it a fresh turn with
 * no charge. */
Test(referee_apply, a_turn_ends_only_its_own_combatants_flat_footedness)
{
    struct referee r;
    three(&r, 4);
    r.c[GOBLIN].turn.standard = r.c[GOBLIN].turn.moved = true;
    r.c[GOBLIN].charge_target = FIGHTER;
    cr_assert_eq(referee_next_turn(&r), RULES_ENC_OK);
    cr_assert_eq(r.next.combatant, GOBLIN);
    cr_assert_eq(r.e.turn, 0);
    cr_assert_eq(r.e.round, 1);
    cr_assert_not(r.c[GOBLIN].flat_footed);
    cr_assert_not(r.c[GOBLIN].conditions & (1u << RULES_CONDITION_FLAT_FOOTED));
    cr_assert(r.c[FIGHTER].flat_footed && r.c[ORC].flat_footed, "their turns have not begun");
    cr_assert_not(r.c[GOBLIN].turn.standard || r.c[GOBLIN].turn.moved, "a fresh turn");
    cr_assert_eq(r.c[GOBLIN].charge_target, -1, "no charge yet this turn");
}

/* 001 Forced Movement: "a creature which was made prone involuntarily gains no such resistance
 * to forced movement until it has had an opportunity to stand up": its own turn is that
 * opportunity; prone by its own will, nothing changes. Without the rule condition_sources no
 * source is kept, and none changes. */
Test(referee_apply, a_turn_is_the_opportunity_to_act_on_a_forced_condition)
{
    struct referee r;
    three(&r, 4);
    referee_condition(&r, GOBLIN, RULES_CONDITION_PRONE, true);
    r.c[GOBLIN].sources[RULES_CONDITION_PRONE] =
        (struct rules_condition_source){.event = 7, .involuntary = true};
    r.c[GOBLIN].sources[RULES_CONDITION_SITTING] =
        (struct rules_condition_source){.event = 5, .involuntary = false};
    r.c[FIGHTER].sources[RULES_CONDITION_PRONE] =
        (struct rules_condition_source){.event = 6, .involuntary = true};
    cr_assert_not(rules_encounter_resists_forced(&r.e, GOBLIN));
    cr_assert_eq(referee_next_turn(&r), RULES_ENC_OK);
    cr_assert(r.c[GOBLIN].sources[RULES_CONDITION_PRONE].had_turn);
    cr_assert_eq(r.c[GOBLIN].sources[RULES_CONDITION_PRONE].event, 7);
    cr_assert(r.c[GOBLIN].prone, "still prone: it has not stood up");
    cr_assert(rules_encounter_resists_forced(&r.e, GOBLIN), "it had its opportunity");
    cr_assert_not(r.c[GOBLIN].sources[RULES_CONDITION_SITTING].had_turn, "its own doing");
    cr_assert_not(r.c[FIGHTER].sources[RULES_CONDITION_PRONE].had_turn, "not its turn");

    struct rules_enc_combatant c = r.c[FIGHTER];
    rules_enc_combatant_begin_turn(3, &c); /* engine 3: no condition_sources */
    cr_assert_not(c.sources[RULES_CONDITION_PRONE].had_turn);
    rules_enc_combatant_begin_turn(4, &c);
    cr_assert(c.sources[RULES_CONDITION_PRONE].had_turn);
}

/* 004 The Combat Round: "Effects that last a certain number of rounds end just before the same
 * initiative count that they began on": a one-round stun the orc took on the goblin's count of
 * round 1 ends as the goblin's turn of round 2 begins, and the orc is no longer stunned. */
Test(referee_apply, a_timed_condition_leaves_as_its_count_comes_round)
{
    struct referee r;
    three(&r, 4);
    long long end_round = 0;
    int end_turn = 0;
    rules_duration_end(1, 0, 1, &end_round, &end_turn);
    struct rules_enc_timed stun = {end_round, end_turn, RULES_CONDITION_STUNNED};
    r.c[ORC].timed = &stun;
    r.c[ORC].timed_count = 1;
    referee_condition(&r, ORC, RULES_CONDITION_STUNNED, true);
    r.e.turn = 0; /* the goblin's turn of round 1 */
    cr_assert_eq(referee_next_turn(&r), RULES_ENC_OK);
    cr_assert_eq(referee_next_turn(&r), RULES_ENC_OK);
    cr_assert(r.c[ORC].stunned, "the orc's own count comes before the stun ends");
    cr_assert_eq(r.next.ended_count, 0);
    cr_assert_eq(referee_next_turn(&r), RULES_ENC_OK); /* round 2, the goblin */
    cr_assert_eq(r.e.round, 2);
    cr_assert_eq(r.next.ended_count, 1);
    cr_assert_not(r.c[ORC].stunned);
    cr_assert_not(r.c[ORC].conditions & (1u << RULES_CONDITION_STUNNED));
}

/* d20 3.5 SRD, Unconscious: "knocked out and helpless"; Disabled: "can take only a single move
 * or standard action each turn"; Dying: "unconscious and can take no actions"; Stable: "no
 * longer dying, but is still unconscious". Down is who takes no actions; dropped (an attack's
 * stopping test) counts a stable creature as up, as every engine so far has ruled it. */
Test(referee_apply, down_is_who_takes_no_actions_and_stable_is_not_dropped)
{
    struct referee r;
    three(&r, 4);
    referee_hp(&r, GOBLIN, 0);
    cr_assert_eq(r.c[GOBLIN].hp_state, RULES_HP_DISABLED);
    cr_assert_not(r.c[GOBLIN].down, "disabled still acts");
    cr_assert_not(rules_enc_combatant_dropped(&r.c[GOBLIN]));
    referee_hp(&r, GOBLIN, -3);
    cr_assert(r.c[GOBLIN].down && rules_enc_combatant_dropped(&r.c[GOBLIN]), "dying");
    r.c[GOBLIN].hp_state = RULES_HP_STABLE;
    rules_enc_combatant_derive(&r.c[GOBLIN]);
    cr_assert(r.c[GOBLIN].down, "stable is still unconscious");
    cr_assert_not(rules_enc_combatant_dropped(&r.c[GOBLIN]));
    referee_condition(&r, FIGHTER, RULES_CONDITION_UNCONSCIOUS, true);
    cr_assert(r.c[FIGHTER].down && rules_enc_combatant_dropped(&r.c[FIGHTER]));
    cr_assert(r.c[FIGHTER].hp_state == RULES_HP_UP, "knocked out at full hit points");
    referee_condition(&r, ORC, RULES_CONDITION_PRONE, true);
    cr_assert(r.c[ORC].prone && !r.c[ORC].down, "prone is not down");
}

/* d20 3.5 SRD, Dead: "When your character's current hit points drop to -10 or lower, he's
 * dead"; healing does not reach the dead. The state the hp event reads is the one the hit
 * points give now (the rule hp_states), whatever was stored: nothing without the rule. */
Test(referee_apply, the_hp_state_is_the_one_the_hit_points_give)
{
    struct referee r;
    three(&r, 4);
    r.c[GOBLIN].hp = -10; /* stored with no state, as before the rule join_state */
    cr_assert_eq(r.c[GOBLIN].hp_state, RULES_HP_UP);
    cr_assert_eq(rules_encounter_hp_state(&r.e, GOBLIN), RULES_HP_DEAD);
    cr_assert_not(rules_hp_healable(rules_encounter_hp_state(&r.e, GOBLIN)));
    r.c[GOBLIN].hp = -9;
    cr_assert_eq(rules_encounter_hp_state(&r.e, GOBLIN), RULES_HP_DYING);
    r.e.engine = 1; /* before hp_states */
    r.c[GOBLIN].hp = -10;
    cr_assert_eq(rules_encounter_hp_state(&r.e, GOBLIN), RULES_HP_UP);
}

/* The three of three() as a work copy, with each one's initiative turn spent and the turn at
 * slot `turn` of round 1. */
static void work_of(struct referee *r, int turn, struct rules_encounter_work *w)
{
    r->e.turn = turn;
    cr_assert(rules_encounter_work_copy(&r->e, w));
    cr_assert_neq(w->e.combatants, r->e.combatants, "a copy, not the original");
}

/* The rule leaving (004 The Combat Round: "Combatants act in initiative order"): the goblin
 * leaves before the orc's turn: the order closes up, the turn stays with the orc (one slot
 * earlier), an effect that ends at the orc's count still ends there, and what named the orc by
 * its index names it still. The original is unchanged. */
Test(referee_apply, leaving_before_the_turn_keeps_the_turn_and_the_counts)
{
    struct referee r;
    three(&r, 4);
    struct rules_enc_timed charge = {2, 2, RULES_CONDITION_CHARGING};
    r.c[ORC].timed = &charge;
    r.c[ORC].timed_count = 1;
    r.c[FIGHTER].charge_target = ORC;
    struct rules_encounter_work w;
    work_of(&r, 2, &w);
    struct rules_enc_left left;
    rules_encounter_leave(&w, GOBLIN, true, &left);
    cr_assert_eq(left.slot, 0);
    cr_assert_not(left.passes);
    cr_assert_eq(w.e.count, 2);
    cr_assert_eq(w.e.slots, 2);
    cr_assert_str_eq(w.e.combatants[0].id, "fighter");
    cr_assert_eq(w.e.order[1].combatant, 1);
    cr_assert_eq(w.e.turn, 1, "the orc's turn, one slot earlier");
    cr_assert_str_eq(w.e.combatants[w.e.order[w.e.turn].combatant].id, "orc");
    cr_assert_eq(w.e.combatants[1].timed[0].end_turn, 1, "the orc's count, one slot earlier");
    cr_assert_eq(w.e.combatants[0].charge_target, 1);
    cr_assert_eq(charge.end_turn, 2, "the original's effect is unchanged");
    cr_assert_eq(r.e.count, 3);
    rules_encounter_work_free(&w);
}

/* The rule leaving on its own turn: the turn goes back to the slot before and passes on, so the
 * next turn is the following combatant's, which begins properly (004 Flat-Footed ends with it).
 * The first in the order leaving on its turn leaves nobody's turn before it. A combatant leaving
 * after the turn's slot changes neither the turn nor any count. */
Test(referee_apply, leaving_on_its_own_turn_passes_the_turn_on)
{
    struct referee r;
    three(&r, 4);
    struct rules_encounter_work w;
    work_of(&r, 1, &w);
    struct rules_enc_left left;
    rules_encounter_leave(&w, FIGHTER, true, &left);
    cr_assert(left.passes);
    cr_assert_eq(w.e.turn, 0);
    struct rules_enc_skip skips[3];
    struct rules_enc_ended ended[3];
    struct rules_next_turn next = {.skipped = skips, .ended = ended};
    cr_assert_eq(rules_encounter_next_turn(&w.e, &next), RULES_ENC_OK);
    cr_assert_str_eq(w.e.combatants[next.combatant].id, "orc");
    cr_assert_eq(next.round, 1);
    rules_encounter_begin_turn(&w.e, w.combatants, &next);
    cr_assert_not(w.e.combatants[next.combatant].flat_footed);
    rules_encounter_work_free(&w);

    work_of(&r, 0, &w);
    rules_encounter_leave(&w, GOBLIN, true, &left);
    cr_assert(left.passes);
    cr_assert_eq(w.e.turn, -1, "between turns, before the first");
    rules_encounter_work_free(&w);

    work_of(&r, 0, &w);
    rules_encounter_leave(&w, ORC, true, &left);
    cr_assert_not(left.passes);
    cr_assert_eq(left.slot, 2);
    cr_assert_eq(w.e.turn, 0);
    rules_encounter_work_free(&w);

    work_of(&r, 1, &w); /* without the rule leaving: only out of the lists */
    rules_encounter_leave(&w, GOBLIN, false, &left);
    cr_assert_eq(left.slot, -1);
    cr_assert_eq(w.e.turn, 1);
    cr_assert_eq(w.e.slots, 2);
    rules_encounter_work_free(&w);
}

/* d20 3.5 SRD, Injury and Death: "disabled" at 0 hit points, "dying" from -1 to -9, "dead" at
 * -10; Dying: "unconscious and can take no actions". Setting a combatant's hit points on a work
 * copy (a full attack's damage) sets its hit point state with them under the rule hp_states, and
 * what it derives: down once it can take no actions. The original is unchanged. */
Test(referee_apply, setting_hit_points_sets_the_state_they_give)
{
    struct referee r;
    three(&r, 4);
    struct rules_encounter_work w;
    work_of(&r, 0, &w);
    rules_encounter_set_hp(&w, GOBLIN, 0);
    cr_assert_eq(w.e.combatants[GOBLIN].hp, 0);
    cr_assert_eq(w.e.combatants[GOBLIN].hp_state, RULES_HP_DISABLED);
    cr_assert_not(w.e.combatants[GOBLIN].down, "disabled still acts");
    rules_encounter_set_hp(&w, GOBLIN, -3);
    cr_assert_eq(w.e.combatants[GOBLIN].hp_state, RULES_HP_DYING);
    cr_assert(w.e.combatants[GOBLIN].down && rules_enc_combatant_dropped(&w.e.combatants[GOBLIN]));
    rules_encounter_set_hp(&w, GOBLIN, -10);
    cr_assert_eq(w.e.combatants[GOBLIN].hp_state, RULES_HP_DEAD);
    rules_encounter_set_hp(&w, GOBLIN, -5000000); /* as a stored state is read */
    cr_assert_eq(w.e.combatants[GOBLIN].hp, -1000000);
    cr_assert_eq(r.c[GOBLIN].hp, 10, "the original keeps its hit points");
    cr_assert_eq(r.c[GOBLIN].hp_state, RULES_HP_UP);
    rules_encounter_work_free(&w);
    /* Without the rule (engine 1), or with the option hp_states none, hit points are a number
     * only: the state stays as it was stored. */
    three(&r, 1);
    work_of(&r, 0, &w);
    rules_encounter_set_hp(&w, FIGHTER, -10);
    cr_assert_eq(w.e.combatants[FIGHTER].hp, -10);
    cr_assert_eq(w.e.combatants[FIGHTER].hp_state, RULES_HP_UP);
    cr_assert_not(w.e.combatants[FIGHTER].down);
    rules_encounter_work_free(&w);
    three(&r, 4);
    r.o.hp_states = RULES_HP_STATES_NONE;
    work_of(&r, 0, &w);
    rules_encounter_set_hp(&w, FIGHTER, -3);
    cr_assert_eq(w.e.combatants[FIGHTER].hp_state, RULES_HP_UP);
    rules_encounter_work_free(&w);
}

/* 001 Trade Away Attacks: a player character's 5-foot step between the attacks of a full attack
 * leaves it in the square it stepped to, facing the way it stepped; 000 Changing Facing: a free
 * change of facing between two attacks (Kroh turning from the bugbear to the goblin) leaves it
 * where it stands, facing the new way. A step with no facing keeps the one it had. */
Test(referee_apply, a_step_or_a_turn_between_attacks_moves_or_turns_the_attacker)
{
    struct referee r;
    three(&r, 4);
    r.c[FIGHTER].body.facing = 2;
    struct rules_encounter_work w;
    work_of(&r, 0, &w);
    rules_encounter_set_place(&w, FIGHTER, 5, 6, 4);
    cr_assert_eq(w.e.combatants[FIGHTER].body.body.x, 5);
    cr_assert_eq(w.e.combatants[FIGHTER].body.body.y, 6);
    cr_assert_eq(w.e.combatants[FIGHTER].body.facing, 4);
    rules_encounter_set_place(&w, FIGHTER, 4, 6, -1);
    cr_assert_eq(w.e.combatants[FIGHTER].body.body.x, 4);
    cr_assert_eq(w.e.combatants[FIGHTER].body.facing, 4, "no facing given: the one it had");
    cr_assert_eq(r.c[FIGHTER].body.body.y, 5, "the original stays where it was");
    cr_assert_eq(r.c[FIGHTER].body.facing, 2);
    rules_encounter_work_free(&w);
}

/* d20 3.5 SRD, Attack: "Making an attack is a standard action". What a single attack records on
 * its attacker's turn ({moved, ran, attacked}) counts as its standard action, keeps whether it
 * moved or ran, and nothing else: no 5-foot step, no free facing, no charge opponent, until the
 * action's budget is stamped onto it. */
Test(referee_apply, an_attack_records_its_standard_action_and_keeps_the_move)
{
    struct referee r;
    three(&r, 4);
    r.c[FIGHTER].turn = (struct rules_turn){
        .moved = true, .ran = true, .stepped = true, .free_facing = true, .move = true};
    r.c[FIGHTER].charge_target = ORC;
    struct rules_encounter_work w;
    work_of(&r, 1, &w);
    rules_encounter_set_attacked(&w, FIGHTER);
    const struct rules_turn *t = &w.e.combatants[FIGHTER].turn;
    cr_assert(t->standard, "the attack is its standard action");
    cr_assert(t->moved && t->ran, "it moved and ran this turn still");
    cr_assert_not(t->stepped || t->free_facing || t->move || t->full_round || t->charged);
    cr_assert_eq(w.e.combatants[FIGHTER].charge_target, -1);
    cr_assert_not(r.c[FIGHTER].turn.standard, "the original's turn is unchanged");
    rules_encounter_work_free(&w);
}

/* The three with reactions open to the goblin's move: the fighter's at step 1 (made by the
 * engine), the orc's at step 3 (asked); and the fighter's to the orc's move at step 2 (asked). */
static void reactions_of(struct referee *r, struct rules_enc_reaction *list)
{
    list[0] = (struct rules_enc_reaction){GOBLIN, FIGHTER, 1, 6, 5, 2, RULES_AOO_POLICY_ALWAYS};
    list[1] = (struct rules_enc_reaction){GOBLIN, ORC, 3, 6, 7, 4, RULES_AOO_POLICY_ASK};
    list[2] = (struct rules_enc_reaction){ORC, FIGHTER, 2, 7, 6, -1, RULES_AOO_POLICY_ASK};
    r->e.reactions = list;
    r->e.reaction_count = 3;
    r->e.awaiting_reactions = true;
}

/* 004 Provoking an Attack of Opportunity by Moving: the attack is made as the mover leaves each
 * threatened square, in the order it leaves them; d20 3.5 SRD, Dying: a creature dropped "can
 * take no actions", so a mover the fighter's attack dropped leaves no later square and the orc's
 * reaction (step 3) closes with the fighter's; the reaction to the orc's own move stays, and the
 * encounter still awaits it. Not stopped, the orc's stays too. The original keeps all three. */
Test(referee_apply, a_settled_reaction_closes_with_the_later_steps_of_a_stopped_move)
{
    struct referee r;
    three(&r, 4);
    struct rules_enc_reaction list[3];
    reactions_of(&r, list);
    struct rules_encounter_work w;
    work_of(&r, 0, &w);
    rules_encounter_settle_reaction(&w, 0, true);
    cr_assert_eq(w.e.reaction_count, 1);
    cr_assert_eq(w.e.reactions[0].mover, ORC);
    cr_assert_eq(w.e.reactions[0].step, 2);
    cr_assert(w.e.awaiting_reactions, "the one to the orc's move is asked");
    cr_assert_eq(r.e.reaction_count, 3);
    rules_encounter_work_free(&w);
    work_of(&r, 0, &w);
    rules_encounter_settle_reaction(&w, 0, false);
    cr_assert_eq(w.e.reaction_count, 2);
    cr_assert_eq(w.e.reactions[0].by, ORC, "in their order");
    cr_assert_eq(w.e.reactions[1].by, FIGHTER);
    /* Both asked ones declined in turn: nothing is awaited any more (004: each reactor decides
     * its own). */
    rules_encounter_settle_reaction(&w, 1, false);
    cr_assert(w.e.awaiting_reactions);
    rules_encounter_settle_reaction(&w, 0, false);
    cr_assert_eq(w.e.reaction_count, 0);
    cr_assert_not(w.e.awaiting_reactions);
    rules_encounter_work_free(&w);
    /* The asked ones settled first: the one the engine makes is still open, and awaits no one. */
    work_of(&r, 0, &w);
    rules_encounter_settle_reaction(&w, 1, false);
    rules_encounter_settle_reaction(&w, 1, false);
    cr_assert_eq(w.e.reaction_count, 1);
    cr_assert_eq(w.e.reactions[0].policy, RULES_AOO_POLICY_ALWAYS);
    cr_assert_not(w.e.awaiting_reactions);
    rules_encounter_work_free(&w);
}

/* 004 Making an Attack of Opportunity: "a combatant can only make one per round"; the count
 * is the round's (d20 3.5 SRD, Combat Reflexes: more with it). paused_moves (004 Provoking an
 * Attack of Opportunity by Moving: the attack is made as the mover leaves the square): the goblin's
 * move pauses with its end kept, then the pause ends; a stand-up's pause leaves it standing (001
 * Part of a Move Action). */
Test(referee_apply, an_attack_of_opportunity_counts_and_a_pause_keeps_the_move_end)
{
    struct referee r;
    three(&r, 4);
    referee_condition(&r, GOBLIN, RULES_CONDITION_PRONE, true);
    struct rules_encounter_work w;
    work_of(&r, 0, &w);
    rules_encounter_set_aoo(&w, FIGHTER, 2, 1);
    cr_assert_eq(w.e.combatants[FIGHTER].aoo_round, 2);
    cr_assert_eq(w.e.combatants[FIGHTER].aoo_made, 1);
    rules_encounter_set_aoo(&w, FIGHTER, 2, 2); /* Combat Reflexes: its second this round */
    cr_assert_eq(w.e.combatants[FIGHTER].aoo_made, 2);
    rules_encounter_pause_move(&w, GOBLIN, 8, 5, 2);
    cr_assert_eq(w.e.paused.mover, GOBLIN);
    cr_assert_eq(w.e.paused.x, 8);
    cr_assert_eq(w.e.paused.y, 5);
    cr_assert(w.e.paused.has_facing && w.e.paused.facing == 2);
    cr_assert_not(w.e.paused.stands);
    rules_encounter_pause_move(&w, GOBLIN, 8, 6, -1);
    cr_assert_not(w.e.paused.has_facing, "a mover with no facing");
    rules_encounter_end_pause(&w);
    cr_assert_eq(w.e.paused.mover, -1);
    cr_assert(w.e.combatants[GOBLIN].prone);
    rules_encounter_stand(&w, GOBLIN);
    cr_assert_not(w.e.combatants[GOBLIN].prone);
    cr_assert_not(w.e.combatants[GOBLIN].conditions & (1u << RULES_CONDITION_PRONE));
    cr_assert(r.c[GOBLIN].prone, "the original is still prone");
    cr_assert_eq(r.c[FIGHTER].aoo_round, -1);
    rules_encounter_work_free(&w);
}

/* 001 Run: "After any turn in which a character performs the run action, they gain the
 * flat-footed condition until the start of their next turn, unless they have the Runner
 * (Feat)"; a run is movement and marks the turn as run, and what the turn spent before stays.
 * 001 5-Foot Step: a 5-foot step is the turn's free step, no movement. d20 3.5 SRD, Charge:
 * "take a -2 penalty to your AC until the start of your next turn": a one-round charging
 * condition begins, ending just before the charger's own count comes round (004 The Combat
 * Round), kept after the timed effects it had, and the charge names its opponent. Everyone
 * else's timed effects stay theirs. The original is unchanged. */
Test(referee_apply, a_move_leaves_its_square_marks_and_conditions_on_the_mover)
{
    struct referee r;
    three(&r, 4);
    referee_condition(&r, FIGHTER, RULES_CONDITION_FLAT_FOOTED, false);
    struct rules_enc_timed stun = {2, 0, RULES_CONDITION_STUNNED};
    struct rules_enc_timed sit = {3, 1, RULES_CONDITION_SITTING};
    r.c[GOBLIN].timed = &stun;
    r.c[GOBLIN].timed_count = 1;
    r.c[ORC].timed = &sit;
    r.c[ORC].timed_count = 1;
    r.c[FIGHTER].turn.standard = true;
    struct rules_encounter_work w;
    work_of(&r, 1, &w);

    struct rules_enc_move_ruling run = {.end_x = 9, .end_y = 5, .end_facing = -1};
    rules_move_marks_of(RULES_MODE_RUN, false, &run.marks);
    cr_assert(rules_encounter_set_moved(&w, FIGHTER, &run, -1));
    const struct rules_enc_combatant *f = &w.e.combatants[FIGHTER];
    cr_assert_eq(f->body.body.x, 9);
    cr_assert_eq(f->body.body.y, 5);
    cr_assert(f->turn.moved && f->turn.ran, "a run is movement, and run");
    cr_assert(f->turn.standard, "what its turn spent before stays");
    cr_assert_not(f->turn.stepped);
    cr_assert(f->flat_footed, "a run leaves it flat-footed");
    cr_assert(f->conditions & (1u << RULES_CONDITION_FLAT_FOOTED));
    cr_assert_eq(f->timed_count, 0);
    cr_assert_eq(f->charge_target, -1);
    cr_assert_not(r.c[FIGHTER].flat_footed, "the original did not run");
    cr_assert_eq(r.c[FIGHTER].body.body.x, 5);
    rules_encounter_work_free(&w);

    work_of(&r, 1, &w); /* a Runner runs and stays ready */
    rules_move_marks_of(RULES_MODE_RUN, true, &run.marks);
    cr_assert(rules_encounter_set_moved(&w, FIGHTER, &run, -1));
    cr_assert(w.e.combatants[FIGHTER].turn.ran);
    cr_assert_not(w.e.combatants[FIGHTER].flat_footed, "unless they have the Runner (Feat)");
    rules_encounter_work_free(&w);

    work_of(&r, 1, &w); /* a 5-foot step: its free step, no movement */
    struct rules_enc_move_ruling step = {.end_x = 5, .end_y = 6, .end_facing = 3};
    rules_move_marks_of(RULES_MODE_STEP, false, &step.marks);
    cr_assert(rules_encounter_set_moved(&w, FIGHTER, &step, -1));
    cr_assert(w.e.combatants[FIGHTER].turn.stepped);
    cr_assert_not(w.e.combatants[FIGHTER].turn.moved || w.e.combatants[FIGHTER].turn.ran);
    cr_assert_eq(w.e.combatants[FIGHTER].body.facing, 3);
    rules_encounter_work_free(&w);

    work_of(&r, 1, &w); /* a charge at the orc on the fighter's count (slot 1) of round 1 */
    struct rules_enc_move_ruling charge = {.end_x = 6, .end_y = 7, .end_facing = -1};
    rules_move_marks_of(RULES_MODE_CHARGE, false, &charge.marks);
    charge.charging = true;
    rules_duration_end(1, 1, 1, &charge.charging_end_round, &charge.charging_end_turn);
    cr_assert(rules_encounter_set_moved(&w, FIGHTER, &charge, ORC));
    f = &w.e.combatants[FIGHTER];
    cr_assert_eq(f->charge_target, ORC);
    cr_assert(f->conditions & (1u << RULES_CONDITION_CHARGING));
    cr_assert_eq(f->timed_count, 1);
    cr_assert_eq(f->timed[0].condition, RULES_CONDITION_CHARGING);
    cr_assert_eq(f->timed[0].end_round, 2, "until the start of its next turn: round 2");
    cr_assert_eq(f->timed[0].end_turn, 1, "at its own count");
    cr_assert_not(f->flat_footed, "a charge is no run");
    cr_assert_eq(w.e.combatants[GOBLIN].timed_count, 1);
    cr_assert_eq(w.e.combatants[GOBLIN].timed[0].condition, RULES_CONDITION_STUNNED);
    cr_assert_eq(w.e.combatants[ORC].timed_count, 1);
    cr_assert_eq(w.e.combatants[ORC].timed[0].condition, RULES_CONDITION_SITTING);
    cr_assert_eq(w.e.combatants[ORC].timed[0].end_round, 3);
    cr_assert_eq(r.c[FIGHTER].timed_count, 0, "the original has no charge");
    rules_encounter_work_free(&w);
}

/* 004 Making an Attack of Opportunity: "The combatant does not have to make an attack of
 * opportunity if the combatant doesn't want to": the reactions a move opens replace the ones
 * open before it, and the encounter awaits an answer while an asked one is among them; none
 * asked (a lapsing one, or one the engine makes), it awaits nobody. */
Test(referee_apply, the_reactions_a_move_opens_are_the_open_ones_and_an_asked_one_is_awaited)
{
    struct referee r;
    three(&r, 4);
    struct rules_enc_reaction before[3];
    reactions_of(&r, before);
    struct rules_encounter_work w;
    work_of(&r, 1, &w);
    struct rules_enc_reaction opened[2] = {
        {FIGHTER, GOBLIN, 1, 5, 5, -1, RULES_AOO_POLICY_UNSET},
        {FIGHTER, ORC, 2, 6, 6, -1, RULES_AOO_POLICY_ALWAYS},
    };
    cr_assert(rules_encounter_open_reactions(&w, opened, 2));
    cr_assert_eq(w.e.reaction_count, 2);
    cr_assert_eq(w.e.reactions[0].by, GOBLIN);
    cr_assert_eq(w.e.reactions[1].by, ORC);
    cr_assert_eq(w.e.reactions[1].policy, RULES_AOO_POLICY_ALWAYS);
    cr_assert_not(w.e.awaiting_reactions, "none asked: no one is awaited");
    opened[0].policy = RULES_AOO_POLICY_ASK;
    cr_assert(rules_encounter_open_reactions(&w, opened, 2));
    cr_assert(w.e.awaiting_reactions, "the goblin is asked");
    cr_assert(rules_encounter_open_reactions(&w, opened, 0));
    cr_assert_eq(w.e.reaction_count, 0);
    cr_assert_not(w.e.awaiting_reactions);
    cr_assert_eq(r.e.reaction_count, 3, "the original keeps its own");
    rules_encounter_work_free(&w);
}
