/* The kinds of action as one table (rules/encounter/kind.h): each kind's name, what it spends,
 * the first engine that rules it and how it is taken, and what the referee reads from it under
 * each engine, each quoting its sentence. */
#include <criterion/criterion.h>
#include <string.h>

#include "rules/encounter/engine.h"
#include "rules/encounter/kind.h"

/* One row per action type, its name the one the codec reads (rules_action_type_names, in the
 * enum's order, NULL after the last), a first engine this server rules, a source, and a cost
 * exactly when it is taken on the actor's turn. */
Test(action_kinds, one_row_per_kind_with_its_name_cost_and_first_engine)
{
    for (int t = 0; t < RULES_ACT_TYPE_COUNT; t++) {
        const struct rules_action_kind_row *row = &rules_action_kinds[t];
        cr_assert_not_null(row->name, "kind %d has a row", t);
        cr_assert_str_eq(rules_action_type_names[t], row->name);
        cr_assert(rules_engine_known(row->since), "%s", row->name);
        cr_assert(row->source != NULL && *row->source != '\0', "%s", row->name);
        cr_assert_eq(row->taken == RULES_TAKEN_ON_TURN, row->cost != RULES_SPENDS_NOTHING, "%s",
                     row->name);
    }
    cr_assert_null(rules_action_type_names[RULES_ACT_TYPE_COUNT]);
    cr_assert_str_eq(rules_action_type_names[RULES_ACT_FULL_ATTACK], "full_attack");
    /* d20 3.5 SRD, Attack: "Making an attack is a standard action"; Full Attack: a full-round
     * action; 001 Part of a Move Action: "standing up from Prone"; 001 5-Foot Step. */
    cr_assert_eq(rules_action_kinds[RULES_ACT_ATTACK].cost, RULES_ACTION_ATTACK);
    cr_assert_eq(rules_action_kinds[RULES_ACT_FULL_ATTACK].cost, RULES_ACTION_FULL_ATTACK);
    cr_assert_eq(rules_action_kinds[RULES_ACT_STAND_UP].cost, RULES_ACTION_STAND_UP);
    cr_assert_eq(rules_action_kinds[RULES_ACT_FIVE_FOOT_STEP].cost, RULES_ACTION_FIVE_FOOT_STEP);
    /* Standing up and the full attack are ruled from engine 2 (the gate's RULES_ADMIT_ENGINE),
     * every other kind from the first. */
    for (int t = 0; t < RULES_ACT_TYPE_COUNT; t++)
        cr_assert_eq(rules_action_kinds[t].since,
                     t == RULES_ACT_STAND_UP || t == RULES_ACT_FULL_ATTACK ? 2 : 1, "%s",
                     rules_action_kinds[t].name);
}

/* engine.h, action_economy: "each action spends its cost from the turn's budget (004 Actions In
 * Combat), and its result names its kind". Before it no action named its kind. */
Test(action_kinds, results_name_their_kind_with_action_economy)
{
    struct rules_action_kind k;
    for (int t = 0; t < RULES_ACT_TYPE_COUNT; t++) {
        rules_action_kind_of(1, (enum rules_action_type)t, false, &k);
        cr_assert_not(k.named, "engine 1: %s", rules_action_type_names[t]);
        rules_action_kind_of(2, (enum rules_action_type)t, false, &k);
        cr_assert(k.named, "engine 2: %s", rules_action_type_names[t]);
    }
}

/* engine.h, shapes: "an action's members (its reactors, the ids it lists) ... are checked before
 * it is ruled: no duplicates, no strays", from engine 3; an engine 2 log re-rules as it was. */
Test(action_kinds, members_checked_first_with_shapes)
{
    struct rules_action_kind k;
    rules_action_kind_of(2, RULES_ACT_MOVE, false, &k);
    cr_assert_not(k.shaped);
    rules_action_kind_of(3, RULES_ACT_MOVE, false, &k);
    cr_assert(k.shaped);
    rules_action_kind_of(RULES_ENGINE_VERSION, RULES_ACT_ATTACK, true, &k);
    cr_assert(k.shaped);
}

/* 004 Attacks of Opportunity: an attack of opportunity answers another's move, out of turn, and
 * spends nothing of the attacker's turn; 001 Forced Movement is done to a creature by another,
 * so it spends no action of its own: what the table's "taken" column says under action_economy.
 */
Test(action_kinds, only_what_is_taken_on_the_turn_spends)
{
    struct rules_action_kind k;
    for (int t = 0; t < RULES_ACT_TYPE_COUNT; t++) {
        rules_action_kind_of(2, (enum rules_action_type)t, false, &k);
        cr_assert_eq(k.spends, rules_action_kinds[t].taken == RULES_TAKEN_ON_TURN, "%s",
                     rules_action_type_names[t]);
        if (k.spends)
            cr_assert_eq(k.cost, rules_action_kinds[t].cost);
    }
    rules_action_kind_of(2, RULES_ACT_ATTACK, true, &k);
    cr_assert(k.reaction && !k.spends);
    rules_action_kind_of(2, RULES_ACT_FORCED, false, &k);
    cr_assert(k.anytime && k.while_down && !k.spends && !k.reaction);
}

/* 004 Attacks of Opportunity: while a reaction is open only its answer is ruled, "an attack of
 * opportunity" or declining it: the kinds read by their names are reactions exactly when they
 * are such an answer, under every engine. */
Test(action_kinds, the_answers_to_a_reaction_by_name)
{
    cr_assert_eq(rules_action_type_of("decline_reaction"), RULES_ACT_DECLINE_REACTION);
    cr_assert_eq(rules_action_type_of("attack"), RULES_ACT_ATTACK);
    cr_assert_eq(rules_action_type_of("attack_of_opportunity"), -1);
    cr_assert_eq(rules_action_type_of(""), -1);
    cr_assert_eq(rules_action_type_of(NULL), -1);
    for (int engine = 1; engine <= RULES_ENGINE_VERSION; engine++)
        for (int t = 0; t < RULES_ACT_TYPE_COUNT; t++)
            for (int aoo = 0; aoo < 2; aoo++) {
                struct rules_action_kind k;
                rules_action_kind_of(engine, (enum rules_action_type)t, aoo, &k);
                bool answer = (t == RULES_ACT_ATTACK && aoo) || t == RULES_ACT_DECLINE_REACTION;
                cr_assert_eq(k.reaction, answer, "engine %d, %s, aoo %d", engine,
                             rules_action_type_names[t], aoo);
            }
}
