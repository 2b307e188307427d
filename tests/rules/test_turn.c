/* The action economy (rules/turn.h) and hit point states (rules/hp.h), each test citing the
 * sentence it pins. */
#include <criterion/criterion.h>
#include <string.h>

#include "rules/encounter/hp.h"
#include "rules/encounter/reaction.h"
#include "rules/encounter/turn.h"
#include "rules/options.h"

static const struct rules_turn_limits normal = {.partial = false};
static const struct rules_turn_limits partial = {.partial = true};

static int spend(struct rules_turn *t, const struct rules_turn_limits *lim, enum rules_action a)
{
    struct rules_turn_refusal why = {0};
    return rules_turn_spend(t, lim, a, &why);
}

/* Spends each action in turn on t under lim: each answers its expected RULES_TURN_*. */
struct spend_step {
    enum rules_action action;
    int want;
};
static void spends(struct rules_turn *t, const struct rules_turn_limits *lim,
                   const struct spend_step *steps, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(spend(t, lim, steps[i].action), steps[i].want, "step %zu", i);
}
#define SPENDS(t, lim, ...)                                                                        \
    spends((t), (lim), (const struct spend_step[]){__VA_ARGS__},                                   \
           sizeof((const struct spend_step[]){__VA_ARGS__}) / sizeof(struct spend_step))

/* 004/001: one standard and one move action a turn. The goblin attacked, then made
 * four 5-foot steps, a 30-ft move and a double move, all accepted. */
Test(turn, an_attack_then_one_step_and_nothing_more_moves)
{
    struct rules_turn t = {0};
    SPENDS(&t, &normal, {RULES_ACTION_ATTACK, RULES_TURN_OK},
           {RULES_ACTION_FIVE_FOOT_STEP, RULES_TURN_OK});
    struct rules_turn_refusal why = {0};
    /* 001: "Creatures cannot take more than one of these sorts of 5-foot steps in a round." */
    cr_assert_eq(rules_turn_spend(&t, &normal, RULES_ACTION_FIVE_FOOT_STEP, &why),
                 RULES_TURN_REFUSED);
    cr_assert_str_eq(why.rule, "001 5-Foot Step");
    /* 001: a 5-foot step only "in any round in which they don't perform any other kind of
     * movement": after it, no move. */
    cr_assert_eq(rules_turn_spend(&t, &normal, RULES_ACTION_MOVE, &why), RULES_TURN_REFUSED);
    cr_assert_not_null(strstr(why.message, "5-foot step"));
    cr_assert_eq(rules_turn_spend(&t, &normal, RULES_ACTION_DOUBLE_MOVE, &why), RULES_TURN_REFUSED);
}

Test(turn, a_move_and_a_standard_action_but_not_two_of_either)
{
    struct rules_turn t = {0};
    SPENDS(&t, &normal, {RULES_ACTION_MOVE, RULES_TURN_OK}, {RULES_ACTION_MOVE, RULES_TURN_REFUSED},
           {RULES_ACTION_ATTACK, RULES_TURN_OK});
    struct rules_turn_refusal why = {0};
    cr_assert_eq(rules_turn_spend(&t, &normal, RULES_ACTION_ATTACK, &why), RULES_TURN_REFUSED);
    cr_assert_str_eq(why.rule, "001 Types of Movement; 004 The Combat Round");
    struct rules_turn_left left;
    rules_turn_left(&t, &normal, &left);
    cr_assert(!left.standard && !left.move && !left.full_round && !left.five_foot_step);
}

/* 001 Double Move: "A double move allows a creature to move up to twice its listed speed"; it
 * takes the whole turn, as 001 Run ("Type of Action: Full-Round Action") does. */
Test(turn, a_double_move_or_a_run_takes_the_whole_turn)
{
    static const enum rules_action whole[] = {RULES_ACTION_DOUBLE_MOVE, RULES_ACTION_RUN,
                                              RULES_ACTION_CHARGE, RULES_ACTION_FULL_ATTACK};
    for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++) {
        struct rules_turn t = {0};
        cr_assert_eq(spend(&t, &normal, whole[i]), RULES_TURN_OK, "%s",
                     rules_action_name(whole[i]));
        SPENDS(&t, &normal, {RULES_ACTION_ATTACK, RULES_TURN_REFUSED},
               {RULES_ACTION_MOVE, RULES_TURN_REFUSED});
        struct rules_turn after = {0};
        cr_assert_eq(spend(&after, &normal, RULES_ACTION_ATTACK), RULES_TURN_OK);
        cr_assert_eq(spend(&after, &normal, whole[i]), RULES_TURN_REFUSED);
    }
    /* A full attack moves nobody, so the free 5-foot step is still there; a run is movement. */
    struct rules_turn t = {0};
    SPENDS(&t, &normal, {RULES_ACTION_FULL_ATTACK, RULES_TURN_OK},
           {RULES_ACTION_FIVE_FOOT_STEP, RULES_TURN_OK});
    t = (struct rules_turn){0};
    SPENDS(&t, &normal, {RULES_ACTION_RUN, RULES_TURN_OK},
           {RULES_ACTION_FIVE_FOOT_STEP, RULES_TURN_REFUSED});
}

/* 004 Step One: the aware "each take a partial action during the surprise round": the issue's
 * combatant moved 40 ft, attacked twice and moved again. */
Test(turn, the_surprise_round_allows_one_partial_action)
{
    struct rules_turn t = {0};
    struct rules_turn_refusal why = {0};
    cr_assert_eq(rules_turn_spend(&t, &partial, RULES_ACTION_DOUBLE_MOVE, &why),
                 RULES_TURN_REFUSED);
    cr_assert_str_eq(why.rule, "004 Step One (a partial action); d20 3.5 SRD, Disabled");
    cr_assert_eq(spend(&t, &partial, RULES_ACTION_MOVE), RULES_TURN_OK);
    cr_assert_eq(rules_turn_spend(&t, &partial, RULES_ACTION_ATTACK, &why), RULES_TURN_REFUSED);
    cr_assert_not_null(strstr(why.message, "partial"));
    t = (struct rules_turn){0};
    SPENDS(&t, &partial, {RULES_ACTION_ATTACK, RULES_TURN_OK},
           {RULES_ACTION_MOVE, RULES_TURN_REFUSED});
    /* A free action is still free: the 5-foot step. */
    cr_assert_eq(spend(&t, &partial, RULES_ACTION_FIVE_FOOT_STEP), RULES_TURN_OK);
}

/* 000 Changing Facing: "If you do not move during your turn, or if your movement is limited
 * to a 5-foot step, you may change facing once ... as a free action"; otherwise a move action. */
Test(turn, facing_is_free_once_without_movement_then_a_move_action)
{
    struct rules_turn t = {0};
    SPENDS(&t, &normal, {RULES_ACTION_FIVE_FOOT_STEP, RULES_TURN_OK},
           {RULES_ACTION_FACING, RULES_TURN_OK});
    cr_assert(t.free_facing && !t.move);
    cr_assert_eq(spend(&t, &normal, RULES_ACTION_FACING), RULES_TURN_OK); /* the move action */
    cr_assert(t.move);
    struct rules_turn_refusal why = {0};
    cr_assert_eq(rules_turn_spend(&t, &normal, RULES_ACTION_FACING, &why), RULES_TURN_REFUSED);
    cr_assert_str_eq(why.rule, "000 Changing Facing");
    t = (struct rules_turn){0};
    cr_assert_eq(spend(&t, &normal, RULES_ACTION_MOVE), RULES_TURN_OK);
    cr_assert_eq(rules_turn_spend(&t, &normal, RULES_ACTION_FACING, &why), RULES_TURN_REFUSED);
}

/* 001 Withdraw: "you can't perform a 5-foot step during the same round in which you
 * withdraw"; a standing up takes a move action but is no movement. */
Test(turn, withdraw_is_a_standard_action_and_movement)
{
    struct rules_turn t = {0};
    SPENDS(&t, &normal, {RULES_ACTION_WITHDRAW, RULES_TURN_OK},
           {RULES_ACTION_FIVE_FOOT_STEP, RULES_TURN_REFUSED},
           {RULES_ACTION_ATTACK, RULES_TURN_REFUSED});
    t = (struct rules_turn){0};
    SPENDS(&t, &normal, {RULES_ACTION_STAND_UP, RULES_TURN_OK},
           {RULES_ACTION_FIVE_FOOT_STEP, RULES_TURN_OK}, {RULES_ACTION_CRAWL, RULES_TURN_REFUSED});
}

/* d20 3.5 SRD, Injury and Death: "exactly 0 ... disabled", "between -1 and -9 inclusive ...
 * dying", "-10 or lower ... dead". The goblin at -9 hp took its turn and attacked. */
Test(hp, states_follow_the_srd_thresholds_when_on)
{
    struct rules_options srd = {.hp_states = RULES_HP_STATES_SRD};
    struct rules_options none = {.hp_states = RULES_HP_STATES_NONE};
    cr_assert_eq(rules_hp_state_of(&srd, 1), RULES_HP_UP);
    cr_assert_eq(rules_hp_state_of(&srd, 0), RULES_HP_DISABLED);
    cr_assert_eq(rules_hp_state_of(&srd, -1), RULES_HP_DYING);
    cr_assert_eq(rules_hp_state_of(&srd, -9), RULES_HP_DYING);
    cr_assert_eq(rules_hp_state_of(&srd, -10), RULES_HP_DEAD);
    cr_assert_eq(rules_hp_state_of(&none, -50), RULES_HP_UP);
    cr_assert(!rules_hp_acts(RULES_HP_DYING) && !rules_hp_acts(RULES_HP_DEAD));
    cr_assert(rules_hp_acts(RULES_HP_DISABLED) && rules_hp_threatens(RULES_HP_DISABLED));
    cr_assert(!rules_hp_threatens(RULES_HP_DYING));
    cr_assert_str_eq(rules_hp_state_name(RULES_HP_DYING), "dying");
}

/* 004 Making an Attack of Opportunity: the threatening enemy "may" make the attack; whether it
 * does is its policy's, unless the mover's request decides for that move. */
Test(reaction, the_movers_decision_overrides_the_reactors_policy)
{
    static const struct {
        enum rules_aoo_policy policy;
        enum rules_aoo_decision decision;
        enum rules_aoo_outcome outcome;
    } cases[] = {
        {RULES_AOO_POLICY_UNSET, RULES_AOO_DECISION_NONE, RULES_AOO_LAPSING},
        {RULES_AOO_POLICY_ASK, RULES_AOO_DECISION_NONE, RULES_AOO_ASKED},
        {RULES_AOO_POLICY_ALWAYS, RULES_AOO_DECISION_NONE, RULES_AOO_MADE},
        {RULES_AOO_POLICY_NEVER, RULES_AOO_DECISION_NONE, RULES_AOO_DECLINED},
        {RULES_AOO_POLICY_NEVER, RULES_AOO_DECISION_TAKE, RULES_AOO_MADE},
        {RULES_AOO_POLICY_ALWAYS, RULES_AOO_DECISION_DECLINE, RULES_AOO_DECLINED},
        {RULES_AOO_POLICY_ASK, RULES_AOO_DECISION_TAKE, RULES_AOO_MADE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_assert_eq(rules_aoo_outcome_of(cases[i].policy, cases[i].decision), cases[i].outcome,
                     "case %zu", i);
    cr_assert_eq(rules_aoo_policy_from("always"), RULES_AOO_POLICY_ALWAYS);
    cr_assert_eq(rules_aoo_policy_from("sometimes"), -1);
    cr_assert_str_eq(rules_aoo_outcome_name(RULES_AOO_ASKED), "awaiting");
}

/* 004 Provoking an Attack of Opportunity by Moving: the mover reaches a later square only once
 * the reactions at the earlier one are settled. */
Test(reaction, a_later_step_waits_for_an_earlier_asked_one)
{
    cr_assert(rules_aoo_may_settle(1, 2));
    cr_assert(rules_aoo_may_settle(2, 2));
    cr_assert_not(rules_aoo_may_settle(3, 2));
}

/* The same, over a move's open reactions: mover 0's move provoked A at step 1 (made by the
 * engine), B at step 2 (asked), C at step 4 (made): A is made at once, C waits for B's answer
 * (the mover reaches C's square only after B's), and B itself may be answered now; the mover
 * stands meanwhile at B's square, the earliest asked one. */
Test(reaction, the_engine_makes_reactions_in_step_order_up_to_the_first_asked)
{
    struct rules_enc_reaction list[] = {
        {.mover = 0, .step = 4, .policy = RULES_AOO_POLICY_ALWAYS},
        {.mover = 0, .step = 2, .policy = RULES_AOO_POLICY_ASK},
        {.mover = 0, .step = 1, .policy = RULES_AOO_POLICY_ALWAYS},
    };
    int blocking = 9;
    cr_assert_eq(rules_reactions_first_asked(list, 3, 0, -1), 1);
    cr_assert_eq(rules_reactions_first_asked(list, 3, 5, -1), -1); /* another mover's */
    cr_assert_eq(rules_reactions_first_asked(list, 3, -1, 1), -1);
    cr_assert_eq(rules_reactions_next_made(list, 3, 0), 2);
    cr_assert(rules_reactions_may_settle(list, 3, 1, &blocking));
    cr_assert_eq(blocking, -1);
    cr_assert_not(rules_reactions_may_settle(list, 3, 0, &blocking));
    cr_assert_eq(blocking, 1);
    /* Once A is made and B answered, C is next. */
    list[2].policy = RULES_AOO_POLICY_UNSET;
    list[1].policy = RULES_AOO_POLICY_UNSET;
    cr_assert_eq(rules_reactions_next_made(list, 3, 0), 0);
    cr_assert_eq(rules_reactions_next_made(list, 3, 1), -1);
}

/* 004 Making an Attack of Opportunity: the threatening enemy "does not have to make an attack of
 * opportunity if the combatant doesn't want to": an open reaction whose reactor's policy (or the
 * mover's decision) is ask is awaited, one that is always is made by the engine, one with no
 * policy lapses; the encounter awaits while one asked reaction is open, whoever's move it is. */
Test(reaction, an_open_reaction_is_awaited_made_or_lapsing_by_its_policy)
{
    struct rules_enc_reaction list[] = {
        {.mover = 0, .by = 1, .step = 1, .policy = RULES_AOO_POLICY_UNSET},
        {.mover = 0, .by = 2, .step = 2, .policy = RULES_AOO_POLICY_ALWAYS},
        {.mover = 3, .by = 1, .step = 5, .policy = RULES_AOO_POLICY_ASK},
    };
    cr_assert_eq(rules_reaction_outcome(&list[0]), RULES_AOO_LAPSING);
    cr_assert_eq(rules_reaction_outcome(&list[1]), RULES_AOO_MADE);
    cr_assert_eq(rules_reaction_outcome(&list[2]), RULES_AOO_ASKED);
    cr_assert(rules_reactions_awaited(list, 3));
    cr_assert_not(rules_reactions_awaited(list, 2)); /* no asked one among the first two */
    cr_assert_not(rules_reactions_awaited(list, 0));
    /* The mover's move goes on once it is answered: the one made by the engine comes next. */
    cr_assert_eq(rules_reactions_next_made(list, 3, 0), 1);
    cr_assert_eq(rules_reactions_next_made(list, 3, 3), -1);
}

/* A refusal says what is left of the turn, in words. */
Test(turn, what_is_left_in_words)
{
    struct rules_turn t = {0};
    char left[160];
    rules_turn_describe_left(&t, &normal, left, sizeof left);
    cr_assert_str_eq(left, "a full-round action, a standard action, a move action, a 5-foot step, "
                           "a free facing change");
    cr_assert_eq(spend(&t, &normal, RULES_ACTION_RUN), RULES_TURN_OK);
    rules_turn_describe_left(&t, &normal, left, sizeof left);
    cr_assert_str_eq(left, "free actions only");
}

/* 001 Double Move: "a double-move (converting your standard action to a move action and moving
 * twice)": with standard_as_move (engine 3) a second move action takes the standard action's
 * place, and then no attack is left; without it (engine 2) the second move is refused. In the
 * surprise round the partial action stays one action. */
Test(turn, a_standard_action_can_be_taken_as_a_move_action)
{
    const struct rules_turn_limits convert = {.standard_as_move = true};
    struct rules_turn t = {0};
    cr_assert_eq(spend(&t, &convert, RULES_ACTION_STAND_UP), RULES_TURN_OK);
    struct rules_turn_left l;
    rules_turn_left(&t, &convert, &l);
    cr_assert(l.move && l.standard);
    char words[160];
    rules_turn_describe_left(&t, &convert, words, sizeof words);
    cr_assert_str_eq(words, "a standard action (or a move action in its place), a 5-foot step, a "
                            "free facing change");
    cr_assert_eq(spend(&t, &convert, RULES_ACTION_MOVE), RULES_TURN_OK);
    cr_assert(t.standard && t.move && t.moved);
    SPENDS(&t, &convert, {RULES_ACTION_ATTACK, RULES_TURN_REFUSED},
           {RULES_ACTION_MOVE, RULES_TURN_REFUSED});
    struct rules_turn u = {0};
    SPENDS(&u, &normal, {RULES_ACTION_STAND_UP, RULES_TURN_OK},
           {RULES_ACTION_MOVE, RULES_TURN_REFUSED});
    const struct rules_turn_limits surprise = {.partial = true, .standard_as_move = true};
    struct rules_turn v = {0};
    SPENDS(&v, &surprise, {RULES_ACTION_MOVE, RULES_TURN_OK},
           {RULES_ACTION_MOVE, RULES_TURN_REFUSED});
}

/* d20 3.5 SRD, Charge: "Charging is a special full-round action that allows you to move up to
 * twice your speed and attack during the action ... After moving, you may make a single melee
 * attack." With charge_attack (engine 3) one attack follows the charge; before it, none did. */
Test(turn, a_charge_ends_in_one_attack)
{
    const struct rules_turn_limits charge = {.charge_attack = true};
    struct rules_turn t = {0};
    cr_assert_eq(spend(&t, &charge, RULES_ACTION_CHARGE), RULES_TURN_OK);
    struct rules_turn_left l;
    rules_turn_left(&t, &charge, &l);
    cr_assert(l.charge_attack && !l.standard && !l.move);
    cr_assert_eq(spend(&t, &charge, RULES_ACTION_ATTACK), RULES_TURN_OK);
    cr_assert(t.charge_attacked);
    cr_assert_eq(spend(&t, &charge, RULES_ACTION_ATTACK), RULES_TURN_REFUSED);
    struct rules_turn u = {0};
    SPENDS(&u, &charge, {RULES_ACTION_DOUBLE_MOVE, RULES_TURN_OK},
           {RULES_ACTION_ATTACK, RULES_TURN_REFUSED});
    struct rules_turn v = {0};
    SPENDS(&v, &normal, {RULES_ACTION_CHARGE, RULES_TURN_OK},
           {RULES_ACTION_ATTACK, RULES_TURN_REFUSED});
}

/* d20 3.5 SRD, Charge: "If you are able to take only a standard action or a move action on your
 * turn, you can still charge, but you are only allowed to move up to your speed": with a
 * partial action and charge_attack (engine 3) the charge is that action, and its attack
 * follows; without charge_attack (engine 2) a partial turn never charges. */
Test(turn, a_partial_action_can_still_charge)
{
    const struct rules_turn_limits surprise = {.partial = true, .charge_attack = true};
    struct rules_turn t = {0};
    SPENDS(&t, &surprise, {RULES_ACTION_CHARGE, RULES_TURN_OK},
           {RULES_ACTION_ATTACK, RULES_TURN_OK}, {RULES_ACTION_MOVE, RULES_TURN_REFUSED});
    struct rules_turn u = {0};
    SPENDS(&u, &surprise, {RULES_ACTION_MOVE, RULES_TURN_OK},
           {RULES_ACTION_CHARGE, RULES_TURN_REFUSED});
    struct rules_turn v = {0};
    cr_assert_eq(spend(&v, &partial, RULES_ACTION_CHARGE), RULES_TURN_REFUSED);
}
