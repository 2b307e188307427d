/* The encounter's turn machinery (rules/encounter.h) on plain structs: initiative, the
 * surprise round, turns and rounds, durations, hit points from outside the fight. Each test
 * cites the sentence it pins. */
#include <criterion/criterion.h>

#include "rules/board/size.h"
#include "rules/board/threat.h"
#include "rules/dice/dice.h"
#include "rules/encounter/encounter.h"
#include "rules/encounter/reaction.h"

static const struct rules_options srd = {.hp_states = RULES_HP_STATES_SRD};

/* Four combatants, slots in that order, all aware unless told. */
struct table {
    struct rules_enc_combatant c[4];
    struct rules_enc_slot order[4];
    struct rules_encounter e;
};

static void table_init(struct table *t, int engine)
{
    for (int i = 0; i < 4; i++) {
        t->c[i] = (struct rules_enc_combatant){.hp = 10, .max_hp = 10};
        t->order[i] = (struct rules_enc_slot){.combatant = i, .aware = true};
    }
    t->e = (struct rules_encounter){.engine = engine,
                                    .rules = &srd,
                                    .started = true,
                                    .round = 1,
                                    .turn = -1,
                                    .count = 4,
                                    .combatants = t->c,
                                    .slots = 4,
                                    .order = t->order};
}

static int roll(struct table *t, const int *results, size_t n, int aware,
                struct rules_initiative_roll *rolls, bool *surprise)
{
    struct rules_dice d;
    rules_dice_from_supplied(&d, results, n);
    return rules_encounter_initiative(&t->e, aware, &d, rolls, surprise);
}

/* 004 Initiative Check: "If two or more combatants have the same initiative check result,
 * the combatants who are tied go in order of Dexterity (highest first). If there is still a
 * tie, flip a coin." Step One: "In initiative order (highest to lowest)". Dice: a d20 then a
 * coin, per combatant in order. */
/* The engine 2 table with combatant `turn`'s turn begun. */
static void table_at_turn(struct table *t, int turn)
{
    table_init(t, 2);
    t->e.turn = turn;
}

Test(encounter, initiative_orders_by_total_then_dexterity_then_the_coin)
{
    struct table t;
    table_init(&t, 2);
    t.e.started = false;
    t.c[0].initiative_modifier = 2, t.c[0].dex = 14; /* 12 + 2 = 14 */
    t.c[1].initiative_modifier = 0, t.c[1].dex = 16; /* 14: ties 0, more Dex */
    t.c[2].initiative_modifier = 4, t.c[2].dex = 14; /* 10 + 4 = 14: ties 0 on Dex, coin 2 */
    t.c[3].initiative_modifier = -1, t.c[3].dex = 8; /* 20 - 1 = 19 */
    const int dice[] = {12, 1, 14, 1, 10, 2, 20, 1};
    struct rules_initiative_roll r[4];
    bool surprise = true;
    cr_assert_eq(roll(&t, dice, 8, 0, r, &surprise), RULES_ENC_OK);
    cr_assert_eq(r[0].combatant, 3);
    cr_assert_eq(r[0].total, 19);
    cr_assert_eq(r[1].combatant, 1); /* 14, Dex 16 */
    cr_assert_eq(r[2].combatant, 2); /* 14, Dex 14, coin 2 */
    cr_assert_eq(r[3].combatant, 0); /* 14, Dex 14, coin 1 */
    cr_assert_eq(r[3].d20, 12);
    cr_assert_eq(r[3].modifier, 2);
    cr_assert(!surprise);
}

/* 004 Step One: "If no one or everyone starts the battle aware, there is no surprise round." */
Test(encounter, a_surprise_round_only_when_some_but_not_all_are_aware)
{
    const int dice[] = {5, 1, 6, 1, 7, 1, 8, 1};
    struct rules_initiative_roll r[4];
    for (int aware = 0; aware <= 4; aware++) {
        struct table t;
        table_init(&t, 2);
        t.e.started = false;
        bool surprise = false;
        cr_assert_eq(roll(&t, dice, 8, aware, r, &surprise), RULES_ENC_OK);
        cr_assert_eq(surprise, aware > 0 && aware < 4, "aware %d", aware);
    }
}

Test(encounter, initiative_is_rolled_once_for_someone_with_every_die_used)
{
    struct table t;
    table_init(&t, 2);
    struct rules_initiative_roll r[4];
    bool s;
    const int dice[] = {5, 1, 6, 1, 7, 1, 8, 1, 9};
    cr_assert_eq(roll(&t, dice, 8, 0, r, &s), RULES_ENC_STARTED);
    t.e.started = false;
    cr_assert_eq(roll(&t, dice, 7, 0, r, &s), RULES_ENC_DICE); /* the last coin missing */
    cr_assert_eq(roll(&t, dice, 9, 0, r, &s), RULES_ENC_EXTRA_DICE);
    const int coin3[] = {5, 3, 6, 1, 7, 1, 8, 1};
    cr_assert_eq(roll(&t, coin3, 8, 0, r, &s), RULES_ENC_DICE); /* a coin shows 1 or 2 */
    t.e.count = 0;
    cr_assert_eq(roll(&t, dice, 0, 0, r, &s), RULES_ENC_NO_COMBATANTS);
}

static struct rules_next_turn next_of(struct table *t, struct rules_enc_skip *skips)
{
    struct rules_next_turn n = {.skipped = skips};
    cr_assert_eq(rules_encounter_next_turn(&t->e, &n), RULES_ENC_OK);
    t->e.round = n.round;
    t->e.turn = n.turn;
    return n;
}

/* 004 Combat Sequence, Step Three: "Combatants act in initiative order." Step Four: "When
 * everyone has had a turn, the combatant with the highest initiative acts again" - after the
 * last slot, slot 0 of a new round. */
Test(encounter, turns_go_down_the_order_then_a_new_round_begins)
{
    struct table t;
    table_init(&t, 2);
    struct rules_enc_skip skips[4];
    for (int want = 0; want < 4; want++) {
        struct rules_next_turn n = next_of(&t, skips);
        cr_assert_eq(n.turn, want);
        cr_assert_eq(n.combatant, want);
        cr_assert_eq(n.round, 1);
        cr_assert(!n.limits.partial);
        cr_assert_eq(n.skipped_count, 0);
    }
    struct rules_next_turn n = next_of(&t, skips);
    cr_assert_eq(n.round, 2);
    cr_assert_eq(n.turn, 0);
    t.e.started = false;
    cr_assert_eq(rules_encounter_next_turn(&t.e, &n), RULES_ENC_NOT_STARTED);
}

/* 004 Step One: "combatants who started the battle aware of their opponents each take a
 * partial action during the surprise round. Combatants who were unaware do not get to act in
 * the surprise round." After it, everyone acts in round 1. */
Test(encounter, the_surprise_round_passes_over_the_unaware_and_is_partial)
{
    struct table t;
    table_init(&t, 2);
    t.e.round = 0;
    t.order[0].aware = false;
    t.order[2].aware = false;
    struct rules_enc_skip skips[4];
    struct rules_next_turn n = next_of(&t, skips);
    cr_assert_eq(n.turn, 1);
    cr_assert(n.limits.partial);
    cr_assert_eq(n.skipped_count, 0); /* passed over, not skipped for its hit points */
    n = next_of(&t, skips);
    cr_assert_eq(n.turn, 3);
    n = next_of(&t, skips);
    cr_assert_eq(n.round, 1);
    cr_assert_eq(n.turn, 0);
    cr_assert(!n.limits.partial);
}

/* d20 3.5 SRD, Dying: "A dying character is unconscious and can take no actions"; Dead; and
 * Disabled: "He can take only a single move action or standard action each turn". Engine 1,
 * from before hit point states, skips nobody. */
Test(encounter, engine_2_skips_the_dying_and_the_dead_and_limits_the_disabled)
{
    struct table t;
    table_init(&t, 2);
    t.c[0].hp = -3;  /* dying */
    t.c[1].hp = -10; /* dead */
    t.c[2].hp = 0;   /* disabled */
    struct rules_enc_skip skips[4];
    struct rules_next_turn n = next_of(&t, skips);
    cr_assert_eq(n.turn, 2);
    cr_assert(n.limits.partial);
    cr_assert_eq(n.skipped_count, 2);
    cr_assert_eq(skips[0].combatant, 0);
    cr_assert_eq(skips[0].state, RULES_HP_DYING);
    cr_assert_eq(skips[1].combatant, 1);
    cr_assert_eq(skips[1].state, RULES_HP_DEAD);
    t.c[2].hp = -1;
    t.c[3].hp = -20;
    cr_assert_eq(rules_encounter_next_turn(&t.e, &n), RULES_ENC_NO_ONE_ACTS);
    t.e.engine = 1;
    t.e.turn = -1;
    n = next_of(&t, skips);
    cr_assert_eq(n.turn, 0);
    cr_assert_eq(n.skipped_count, 0);
}

/* A combatant removed after initiative keeps its slot in the stored order; under engine 2 the
 * slot has no turn (there is nobody to take it). */
Test(encounter, a_combatant_that_has_left_has_no_turn)
{
    struct table t;
    table_init(&t, 2);
    t.order[1].combatant = -1;
    struct rules_enc_skip skips[4];
    t.e.turn = 0;
    struct rules_next_turn n = next_of(&t, skips);
    cr_assert_eq(n.turn, 2);
    cr_assert_eq(n.skipped_count, 0);
}

/* 004: "Effects that last a certain number of rounds end just before the same initiative
 * count that they began on." A 3-round effect begun on slot 2 of round 1 lasts through slot 1
 * of round 4 and is gone when slot 2 of round 4 begins. */
Test(encounter, a_duration_ends_just_before_the_count_it_began_on)
{
    long long end_round = 0;
    int end_turn = 0;
    rules_duration_end(1, 2, 3, &end_round, &end_turn);
    cr_assert_eq(end_round, 4);
    cr_assert_eq(end_turn, 2);
    cr_assert(!rules_duration_ended(end_round, end_turn, 4, 1));
    cr_assert(rules_duration_ended(end_round, end_turn, 4, 2));
    cr_assert(rules_duration_ended(end_round, end_turn, 5, 0));
    cr_assert(!rules_duration_ended(end_round, end_turn, 3, 3));
    /* Before anyone's turn (no slot yet) it counts from the first slot. */
    rules_duration_end(0, -1, 1, &end_round, &end_turn);
    cr_assert_eq(end_round, 1);
    cr_assert_eq(end_turn, 0);
}

/* d20 3.5 SRD, Healing: healing "can't restore hit points past your full normal hit point
 * total"; damage has no cap. */
Test(encounter, healing_stops_at_the_full_total)
{
    bool capped = true;
    cr_assert_eq(rules_hp_after(5, 12, false, -9, &capped), -4);
    cr_assert(!capped);
    cr_assert_eq(rules_hp_after(5, 12, false, 20, &capped), 12);
    cr_assert(capped);
    cr_assert_eq(rules_hp_after(15, 12, false, 3, &capped), 15); /* above it keeps it */
    cr_assert(capped);
    cr_assert_eq(rules_hp_after(15, 12, false, -2, &capped), 13); /* damage is not capped */
    cr_assert(!capped);
    cr_assert_eq(rules_hp_after(5, 12, true, 7, &capped), 7);
    cr_assert_eq(rules_hp_after(5, 12, true, 40, &capped), 12);
    cr_assert(capped);
    cr_assert_eq(rules_hp_after(5, 12, false, -1000000000LL, &capped), RULES_HP_MIN);
}

/* The event kinds and action types are named once, here; the service decodes by these names. */
Test(encounter, event_kinds_and_action_types_by_name)
{
    cr_assert_eq(rules_event_kind_of("next_turn"), RULES_EVENT_NEXT_TURN);
    cr_assert_eq(rules_event_kind_of("hp"), RULES_EVENT_HP);
    cr_assert_eq(rules_event_kind_of("turn"), -1);
    cr_assert_eq(rules_event_kind_of(NULL), -1);
    cr_assert_str_eq(rules_action_type_names[RULES_ACT_DECLINE_REACTION], "decline_reaction");
    cr_assert_null(rules_action_type_names[RULES_ACT_TYPE_COUNT]);
    cr_assert_null(rules_event_kind_names[RULES_EVENT_KIND_COUNT]);
}

/* 004 Attacks of Opportunity: "An attack of opportunity is a single melee attack" taken when
 * another provokes it, out of turn; it spends nothing of the attacker's turn. d20 3.5 SRD,
 * Attack: an attack is a standard action. Forced movement and falls happen to a creature; under
 * engine 2 a condition is the game master's to apply at any time. */
Test(encounter, what_each_action_costs_and_when_it_may_be_taken)
{
    struct rules_action_kind k;
    rules_action_kind_of(2, RULES_ACT_ATTACK, false, &k);
    cr_assert(k.spends && !k.reaction && !k.anytime && !k.while_down);
    cr_assert_eq(k.cost, RULES_ACTION_ATTACK);
    rules_action_kind_of(2, RULES_ACT_ATTACK, true, &k);
    cr_assert(k.reaction && !k.spends && !k.while_down);
    rules_action_kind_of(2, RULES_ACT_DECLINE_REACTION, false, &k);
    cr_assert(k.reaction && !k.spends && k.while_down);
    rules_action_kind_of(2, RULES_ACT_FALL, false, &k);
    cr_assert(k.anytime && k.while_down && !k.spends);
    rules_action_kind_of(2, RULES_ACT_CONDITION, false, &k);
    cr_assert(k.anytime && !k.spends);
    rules_action_kind_of(1, RULES_ACT_CONDITION, false, &k); /* engine 1: on its turn */
    cr_assert(!k.anytime && !k.spends);
    rules_action_kind_of(1, RULES_ACT_MOVE, false, &k); /* engine 1: no action economy */
    cr_assert(!k.spends);
    rules_action_kind_of(1, RULES_ACT_FULL_ATTACK, false, &k);
    cr_assert_eq(k.from_engine, 2);
    rules_action_kind_of(2, RULES_ACT_STAND_UP, false, &k);
    cr_assert_eq(k.cost, RULES_ACTION_STAND_UP);
    cr_assert_eq(k.from_engine, 2);
    /* 001 Double Move ("Type of Action: Full Attack Action": the whole turn), Run ("a
     * full-round action"), Withdraw ("Standard Action"), Crawling ("as a move action"). */
    cr_assert_eq(rules_move_cost(RULES_MODE_MOVE), RULES_ACTION_MOVE);
    cr_assert_eq(rules_move_cost(RULES_MODE_DOUBLE), RULES_ACTION_DOUBLE_MOVE);
    cr_assert_eq(rules_move_cost(RULES_MODE_RUN), RULES_ACTION_RUN);
    cr_assert_eq(rules_move_cost(RULES_MODE_CHARGE), RULES_ACTION_CHARGE);
    cr_assert_eq(rules_move_cost(RULES_MODE_WITHDRAW), RULES_ACTION_WITHDRAW);
    cr_assert_eq(rules_move_cost(RULES_MODE_CRAWL), RULES_ACTION_CRAWL);
}

/* d20 3.5 SRD, Full Attack: "an additional attack at base attack bonus +6, +11 and +16". */
Test(encounter, iterative_attacks_come_at_6_11_and_16)
{
    static const int bab[] = {0, 5, 6, 10, 11, 15, 16, 20};
    static const int want[] = {1, 1, 2, 2, 3, 3, 4, 4};
    for (size_t i = 0; i < sizeof bab / sizeof bab[0]; i++)
        cr_assert_eq(rules_iterative_attacks(bab[i]), want[i], "bab %d", bab[i]);
}

/* 004 Making an Attack of Opportunity: "a combatant can only make one per round"; d20 3.5 SRD,
 * Combat Reflexes: "a number of additional attacks of opportunity equal to your Dexterity
 * bonus". */
Test(encounter, one_attack_of_opportunity_a_round_more_with_combat_reflexes)
{
    cr_assert_eq(rules_aoo_per_round(false, 18), 1);
    cr_assert_eq(rules_aoo_per_round(true, 18), 5); /* Dex 18: +4 */
    cr_assert_eq(rules_aoo_per_round(true, 10), 1);
    cr_assert_eq(rules_aoo_per_round(true, 7), 1); /* a penalty takes none away */
}

/* 004: "Effects that last a certain number of rounds end just before the same initiative count
 * that they began on": the next turn lists the effects ending as it begins. Combatant 1 has a
 * 1-round effect begun on slot 2 of round 1 and a 2-round one; combatant 3 one begun on slot 0
 * of round 2. */
Test(encounter, the_next_turn_names_the_effects_that_end_before_it)
{
    struct table t;
    table_init(&t, 2);
    struct rules_enc_timed one[2] = {{2, 2, -1}, {3, 2, -1}}, three[1] = {{2, 0, -1}};
    t.c[1].timed = one, t.c[1].timed_count = 2;
    t.c[3].timed = three, t.c[3].timed_count = 1;
    t.e.round = 2, t.e.turn = 0;
    struct rules_enc_skip skips[4];
    struct rules_enc_ended ended[3];
    struct rules_next_turn n = {.skipped = skips, .ended = ended};
    cr_assert_eq(rules_encounter_next_turn(&t.e, &n), RULES_ENC_OK); /* slot 1 of round 2 */
    cr_assert_eq(n.ended_count, 1);
    cr_assert_eq(ended[0].combatant, 3);
    t.e.turn = 1;
    cr_assert_eq(rules_encounter_next_turn(&t.e, &n), RULES_ENC_OK); /* slot 2 of round 2 */
    cr_assert_eq(n.ended_count, 2);
    cr_assert_eq(ended[0].combatant, 1);
    cr_assert_eq(ended[0].timed, 0);
    cr_assert_eq(ended[1].combatant, 3); /* still listed: the caller removes what is there */
}

/* 001 Walk: a move never ends in an occupied space; 001 Stepover: "If a creature is 2 size
 * categories or larger than a nearby creature, it can effectively ignore that creature when
 * moving ... ending its move either on or past the smaller creature." The same holds for where
 * a combatant is placed; and its whole space lies on the map. */
Test(encounter, a_combatant_stands_on_the_map_and_shares_no_space_but_by_stepover)
{
    struct rules_options o = {0};
    struct rules_map m;
    cr_assert_eq(rules_map_init(&m, 10, 10), 0);
    struct rules_creature others[2], me;
    rules_creature_init(&others[0], RULES_SIZE_MEDIUM, 2, 2, 0);
    rules_creature_init(&others[1], RULES_SIZE_SMALL, 6, 6, 0);
    rules_creature_init(&me, RULES_SIZE_MEDIUM, 3, 2, 0);
    cr_assert_eq(rules_place_conflict(&o, &m, &me, RULES_ANY_MOVE_TYPE, others, 2, NULL, NULL),
                 RULES_PLACE_OK);
    rules_creature_init(&me, RULES_SIZE_LARGE, 1, 1, 0); /* 1..2 x 1..2: over (2, 2) */
    cr_assert_eq(rules_place_conflict(&o, &m, &me, RULES_ANY_MOVE_TYPE, others, 2, NULL, NULL), 0);
    rules_creature_init(&me, RULES_SIZE_HUGE, 5, 5, 0); /* Huge over Small: 2 sizes larger */
    cr_assert_eq(rules_place_conflict(&o, &m, &me, RULES_ANY_MOVE_TYPE, others, 2, NULL, NULL),
                 RULES_PLACE_OK);
    rules_creature_init(&me, RULES_SIZE_HUGE, 0, 0, 0); /* Huge over Medium: 2 sizes */
    cr_assert_eq(rules_place_conflict(&o, &m, &me, RULES_ANY_MOVE_TYPE, others, 2, NULL, NULL),
                 RULES_PLACE_OK);
    rules_creature_init(&me, RULES_SIZE_SMALL, 2, 2, 0); /* Small under Medium: 1 size */
    cr_assert_eq(rules_place_conflict(&o, &m, &me, RULES_ANY_MOVE_TYPE, others, 2, NULL, NULL), 0);
    rules_creature_init(&me, RULES_SIZE_LARGE, 9, 4, 0); /* 9..10: past the edge */
    cr_assert_eq(rules_place_conflict(&o, &m, &me, RULES_ANY_MOVE_TYPE, others, 2, NULL, NULL),
                 RULES_PLACE_OFF_MAP);
    rules_creature_init(&me, RULES_SIZE_MEDIUM, -1, 0, 0);
    cr_assert_eq(rules_place_conflict(&o, &m, &me, RULES_ANY_MOVE_TYPE, others, 2, NULL, NULL),
                 RULES_PLACE_OFF_MAP);
    rules_map_free(&m);
}

/* 001 Blocked Terrain: "Blocked terrain is terrain it is impossible to move into": no creature
 * stands with any part of its space in it (a Large creature's four squares all count). Other
 * terrain, difficult or hazardous, may be stood in. */
Test(encounter, no_creature_stands_in_blocked_terrain)
{
    struct rules_options o = {0};
    struct rules_map m;
    cr_assert_eq(rules_map_init(&m, 10, 10), 0);
    m.terrain[4 * 10 + 5] = RULES_MAP_BLOCKED; /* (5, 4) */
    m.terrain[1 * 10 + 1] = RULES_MAP_DIFFICULT;
    m.terrain[1 * 10 + 2] = RULES_MAP_HAZARDOUS;
    struct rules_creature me;
    int bx = -1, by = -1;
    rules_creature_init(&me, RULES_SIZE_MEDIUM, 5, 4, 0);
    cr_assert_eq(rules_place_conflict(&o, &m, &me, RULES_ANY_MOVE_TYPE, NULL, 0, &bx, &by),
                 RULES_PLACE_BLOCKED);
    cr_assert_eq(bx, 5);
    cr_assert_eq(by, 4);
    rules_creature_init(&me, RULES_SIZE_LARGE, 4, 3, 0); /* 4..5 x 3..4 covers (5, 4) */
    cr_assert_eq(rules_place_conflict(&o, &m, &me, RULES_ANY_MOVE_TYPE, NULL, 0, &bx, &by),
                 RULES_PLACE_BLOCKED);
    rules_creature_init(&me, RULES_SIZE_LARGE, 3, 3, 0); /* 3..4 x 3..4: beside it */
    cr_assert_eq(rules_place_conflict(&o, &m, &me, RULES_ANY_MOVE_TYPE, NULL, 0, &bx, &by),
                 RULES_PLACE_OK);
    rules_creature_init(&me, RULES_SIZE_LARGE, 1, 1, 0); /* difficult and hazardous: fine */
    cr_assert_eq(rules_place_conflict(&o, &m, &me, RULES_ANY_MOVE_TYPE, NULL, 0, &bx, &by),
                 RULES_PLACE_OK);
    rules_map_free(&m);
}

/* Nobody left in the order: no turn to give. */
Test(encounter, an_empty_order_has_no_next_turn)
{
    struct table t;
    table_init(&t, 2);
    t.e.slots = 0;
    struct rules_next_turn n = {0};
    cr_assert_eq(rules_encounter_next_turn(&t.e, &n), RULES_ENC_NO_COMBATANTS);
    t.e.engine = 1;
    cr_assert_eq(rules_encounter_next_turn(&t.e, &n), RULES_ENC_NO_COMBATANTS);
}

/* 001 Run: "After any turn in which a character performs the run action, they gain the
 * flat-footed condition until the start of their next turn, unless they have the Runner
 * (Feat)"; 001 5-Foot Step: the step is not "any other kind of movement". */
Test(encounter, a_run_leaves_the_runner_flat_footed_unless_it_has_runner)
{
    struct rules_move_marks k;
    rules_move_marks_of(RULES_MODE_RUN, false, &k);
    cr_assert(k.moved && k.ran && k.flat_footed && !k.stepped);
    rules_move_marks_of(RULES_MODE_RUN, true, &k);
    cr_assert(k.moved && k.ran && !k.flat_footed);
    rules_move_marks_of(RULES_MODE_STEP, false, &k);
    cr_assert(k.stepped && !k.moved && !k.ran && !k.flat_footed);
    rules_move_marks_of(RULES_MODE_DOUBLE, false, &k);
    cr_assert(k.moved && !k.ran && !k.flat_footed);
}

/* 001 Trade Away Attacks From A Full Attack Action: "up to a maximum number of times equal to
 * the number of attack actions" (the fighter's four attacks: four steps at most, or three and
 * an attack...); "Monsters cannot trade attack actions for 5-foot steps". */
Test(encounter, a_player_character_trades_attacks_for_steps_and_a_monster_cannot)
{
    cr_assert_eq(rules_full_attack_trade(4, 4, 0, false), RULES_TRADE_OK);
    cr_assert_eq(rules_full_attack_trade(4, 0, 4, true), RULES_TRADE_OK);
    cr_assert_eq(rules_full_attack_trade(4, 3, 1, true), RULES_TRADE_OK);
    cr_assert_eq(rules_full_attack_trade(4, 3, 2, true), RULES_TRADE_TOO_MANY);
    cr_assert_eq(rules_full_attack_trade(2, 1, 1, false), RULES_TRADE_MONSTER);
    cr_assert_eq(rules_full_attack_trade(1, 2, 0, false), RULES_TRADE_TOO_MANY);
}

static int admit(struct table *t, enum rules_action_type type, int actor, bool aoo,
                 enum rules_move_mode mode, struct rules_admission *out)
{
    struct rules_enc_action a = {.type = type, .actor = actor, .aoo = aoo, .mode = mode};
    return rules_encounter_admit(&t->e, &a, out);
}

/* The gate on an ordinary action (not an attack of opportunity; a move is a plain move). */
static int act(struct table *t, enum rules_action_type type, int actor, struct rules_admission *out)
{
    return admit(t, type, actor, false, RULES_MODE_MOVE, out);
}

/* 004 The Combat Round: "Each round, each combatant gets a turn to act"; Step Three:
 * "Combatants act in initiative order". Out of turn only a reaction (004 Attacks of
 * Opportunity) or what happens to a creature (forced movement, a fall); before initiative
 * anyone acts, and nothing is spent. */
Test(encounter, only_the_combatant_whose_turn_it_is_acts_but_reactions_and_forced_movement)
{
    struct table t;
    table_at_turn(&t, 1);
    struct rules_admission a;
    cr_assert_eq(act(&t, RULES_ACT_ATTACK, 0, &a), RULES_ADMIT_NOT_ITS_TURN);
    cr_assert_eq(a.turn_of, 1);
    cr_assert_eq(act(&t, RULES_ACT_ATTACK, 1, &a), RULES_ADMIT_OK);
    cr_assert(a.spends);
    cr_assert(a.turn.standard && !a.turn.move);
    cr_assert_eq(admit(&t, RULES_ACT_ATTACK, 0, true, RULES_MODE_MOVE, &a), RULES_ADMIT_OK);
    cr_assert(!a.spends); /* a reaction spends nobody's turn */
    cr_assert_eq(act(&t, RULES_ACT_FORCED, 3, &a), RULES_ADMIT_OK);
    cr_assert_eq(act(&t, RULES_ACT_DECLINE_REACTION, 2, &a), RULES_ADMIT_OK);
    t.e.turn = -1; /* initiative rolled, no turn begun: nobody's */
    cr_assert_eq(act(&t, RULES_ACT_MOVE, 0, &a), RULES_ADMIT_NOT_ITS_TURN);
    cr_assert_eq(a.turn_of, -1);
    t.e.started = false; /* before initiative: no turns, no budget */
    cr_assert_eq(admit(&t, RULES_ACT_MOVE, 0, false, RULES_MODE_RUN, &a), RULES_ADMIT_OK);
    cr_assert(!a.spends);
}

/* d20 3.5 SRD, Dying: "A dying character is unconscious and can take no actions"; Dead; an
 * unconscious or helpless creature neither. What happens to it (a fall, forced movement) and
 * declining a reaction still may be ruled. */
Test(encounter, a_creature_down_takes_no_actions)
{
    struct table t;
    table_init(&t, 2);
    t.e.turn = 0;
    t.c[0].down = true;
    t.c[0].hp = -3;
    struct rules_admission a;
    cr_assert_eq(act(&t, RULES_ACT_ATTACK, 0, &a), RULES_ADMIT_DOWN);
    cr_assert_eq(a.hp_state, RULES_HP_DYING);
    t.c[0].hp = -10;
    act(&t, RULES_ACT_MOVE, 0, &a);
    cr_assert_eq(a.hp_state, RULES_HP_DEAD);
    t.c[0].hp = 5; /* unconscious at 5 hp: down, but its hit points are up */
    cr_assert_eq(act(&t, RULES_ACT_FACING, 0, &a), RULES_ADMIT_DOWN);
    cr_assert_eq(a.hp_state, RULES_HP_UP);
    cr_assert_eq(act(&t, RULES_ACT_FALL, 0, &a), RULES_ADMIT_OK);
    cr_assert_eq(act(&t, RULES_ACT_DECLINE_REACTION, 0, &a), RULES_ADMIT_OK);
}

/* 001 Part of a Move Action: "standing up from Prone" (from engine 2, with the full attack);
 * 001 Types of Movement: a double move "uses both actions", a run is "a full-round action";
 * 004 Step One: "each take a partial action" in the surprise round. */
Test(encounter, the_gate_spends_the_cost_and_refuses_what_does_not_fit)
{
    struct table t;
    table_at_turn(&t, 2);
    struct rules_admission a;
    cr_assert_eq(act(&t, RULES_ACT_STAND_UP, 2, &a), RULES_ADMIT_NOT_PRONE);
    t.c[2].prone = true;
    cr_assert_eq(act(&t, RULES_ACT_STAND_UP, 2, &a), RULES_ADMIT_OK);
    cr_assert(a.turn.move && !a.turn.standard);
    t.c[2].turn = a.turn; /* stood up: a double move no longer fits */
    cr_assert_eq(admit(&t, RULES_ACT_MOVE, 2, false, RULES_MODE_DOUBLE, &a), RULES_ADMIT_BUDGET);
    cr_assert_eq(a.cost, RULES_ACTION_DOUBLE_MOVE);
    cr_assert(a.turn.move && !a.turn.standard); /* unchanged */
    cr_assert_str_eq(a.why.rule, "001 Types of Movement; 004 The Combat Round");
    cr_assert_eq(act(&t, RULES_ACT_ATTACK, 2, &a), RULES_ADMIT_OK);
    t.c[2].turn = (struct rules_turn){0};
    t.e.round = 0; /* the surprise round: a move or a standard action, not both */
    cr_assert_eq(admit(&t, RULES_ACT_MOVE, 2, false, RULES_MODE_RUN, &a), RULES_ADMIT_BUDGET);
    cr_assert(a.limits.partial);
    t.e.engine = 1; /* engine 1: no stand_up, no budget */
    t.e.round = 1;
    cr_assert_eq(act(&t, RULES_ACT_STAND_UP, 2, &a), RULES_ADMIT_ENGINE);
    cr_assert_eq(a.kind.from_engine, 2);
    cr_assert_eq(admit(&t, RULES_ACT_MOVE, 2, false, RULES_MODE_RUN, &a), RULES_ADMIT_OK);
    cr_assert(!a.spends);
}

/* 004 Flat-Footed: "A flat-footed combatant can't make attacks of opportunity"; Making an
 * Attack of Opportunity: "a combatant can only make one per round"; d20 3.5 SRD, Combat
 * Reflexes: one more per point of Dexterity bonus (engine 2); engine 1 let Combat Reflexes
 * make any number. */
Test(encounter, attacks_of_opportunity_left_this_round)
{
    struct table t;
    table_init(&t, 2);
    struct rules_enc_combatant c = {.aoo_round = -1, .dex = 14};
    int made = -1, allowed = -1;
    cr_assert_eq(rules_encounter_aoo_check(&t.e, &c, &made, &allowed), RULES_AOO_OK);
    cr_assert_eq(made, 0);
    cr_assert_eq(allowed, 1);
    c.aoo_round = 1, c.aoo_made = 1; /* one this round (t.e.round is 1) */
    cr_assert_eq(rules_encounter_aoo_check(&t.e, &c, &made, &allowed), RULES_AOO_SPENT);
    c.combat_reflexes = true; /* Dex 14: +2, so 3 a round */
    cr_assert_eq(rules_encounter_aoo_check(&t.e, &c, &made, &allowed), RULES_AOO_OK);
    cr_assert_eq(allowed, 3);
    c.aoo_made = 3;
    cr_assert_eq(rules_encounter_aoo_check(&t.e, &c, &made, &allowed), RULES_AOO_SPENT);
    t.e.round = 2; /* a new round: none made yet */
    cr_assert_eq(rules_encounter_aoo_check(&t.e, &c, &made, &allowed), RULES_AOO_OK);
    cr_assert_eq(made, 0);
    t.e.engine = 1, t.e.round = 1;
    cr_assert_eq(rules_encounter_aoo_check(&t.e, &c, &made, &allowed), RULES_AOO_OK);
    c.combat_reflexes = false;
    cr_assert_eq(rules_encounter_aoo_check(&t.e, &c, &made, &allowed), RULES_AOO_SPENT);
    c.flat_footed = true;
    t.e.round = 5;
    cr_assert_eq(rules_encounter_aoo_check(&t.e, &c, &made, &allowed), RULES_AOO_FLAT_FOOTED);
}

/* Engine 3: SRD, Stunned: "can't take actions", attacks of opportunity included; SRD, Combat
 * Reflexes: "you may also make attacks of opportunity while flat-footed". Engine 2 kept
 * neither. */
Test(encounter, engine_3_stuns_and_lets_combat_reflexes_strike_while_flat_footed)
{
    struct table t;
    table_init(&t, 3);
    t.e.turn = 0;
    t.c[0].stunned = true;
    struct rules_admission a;
    cr_assert_eq(act(&t, RULES_ACT_ATTACK, 0, &a), RULES_ADMIT_STUNNED);
    cr_assert_eq(act(&t, RULES_ACT_FALL, 0, &a), RULES_ADMIT_OK);
    int made = 0, allowed = 0;
    cr_assert_eq(rules_encounter_aoo_check(&t.e, &t.c[0], &made, &allowed), RULES_AOO_STUNNED);
    t.c[1] = (struct rules_enc_combatant){.flat_footed = true, .aoo_round = -1, .dex = 12};
    cr_assert_eq(rules_encounter_aoo_check(&t.e, &t.c[1], &made, &allowed), RULES_AOO_FLAT_FOOTED);
    t.c[1].combat_reflexes = true;
    cr_assert_eq(rules_encounter_aoo_check(&t.e, &t.c[1], &made, &allowed), RULES_AOO_OK);
    t.e.engine = 2;
    cr_assert_eq(rules_encounter_aoo_check(&t.e, &t.c[1], &made, &allowed), RULES_AOO_FLAT_FOOTED);
    cr_assert_eq(act(&t, RULES_ACT_ATTACK, 0, &a), RULES_ADMIT_OK);
}

/* What an attack leaves on the encounter. 004: a mover struck as it leaves a square and dropped
 * (d20 3.5 SRD, Dying: "can take no actions") goes no further; an attack of opportunity counts
 * toward the round's one; engine 3, SRD Disabled: "If he performs any strenuous action, he takes
 * 1 point of damage after completing the act". */
Test(encounter, an_attack_leaves_hit_points_the_count_and_the_strain)
{
    struct table t;
    table_init(&t, 3);
    struct rules_attack_after a;
    t.c[1].hp = 3;
    rules_encounter_attack_after(&t.e, &t.c[0], &t.c[1], true, 0, true, 5, &a);
    cr_assert(a.damaged);
    cr_assert_eq(a.target_hp, -2);
    cr_assert(a.stopped);
    cr_assert_eq(a.aoo_made, 1);
    cr_assert_eq(a.strain, 0);
    rules_encounter_attack_after(&t.e, &t.c[0], &t.c[1], true, 1, true, 3, &a);
    cr_assert(!a.stopped); /* at 0, disabled: it still acts */
    cr_assert_eq(a.aoo_made, 2);
    rules_encounter_attack_after(&t.e, &t.c[0], &t.c[1], false, 0, false, 4, &a);
    cr_assert(!a.damaged && !a.stopped);
    cr_assert_eq(a.target_hp, 3);
    t.c[0].hp = 0; /* disabled */
    rules_encounter_attack_after(&t.e, &t.c[0], &t.c[1], false, 0, false, 0, &a);
    cr_assert_eq(a.strain, 1);
    cr_assert_eq(a.attacker_hp, -1);
    t.e.engine = 2;
    rules_encounter_attack_after(&t.e, &t.c[0], &t.c[1], false, 0, false, 0, &a);
    cr_assert_eq(a.strain, 0);
    cr_assert_eq(a.attacker_hp, 0);
}

/* d20 3.5 SRD, Combat: Charge: "You must move at least 10 feet (2 squares) and may move up to
 * double your speed directly toward the designated opponent", "to the closest space from which
 * you can attack the opponent". A Medium charger at (0,5) and its target at (5,5). */
Test(encounter, a_charge_goes_straight_in_and_stops_where_it_can_attack)
{
    struct rules_options o = {0};
    struct rules_creature me, foe;
    rules_creature_init(&me, RULES_SIZE_MEDIUM, 0, 5, 0);
    rules_creature_init(&foe, RULES_SIZE_MEDIUM, 5, 5, 0);
    struct rules_step in[] = {{1, 5, -1}, {2, 5, -1}, {3, 5, -1}, {4, 5, -1}};
    int at = -9;
    cr_assert_eq(rules_charge_check(&o, &me, in, 4, &foe, &at), RULES_CHARGE_OK);
    cr_assert_eq(rules_charge_check(&o, &me, in, 1, &foe, &at), RULES_CHARGE_SHORT);
    cr_assert_eq(rules_charge_check(&o, &me, in, 3, &foe, &at), RULES_CHARGE_AFAR);
    struct rules_step aside[] = {{1, 5, -1}, {1, 6, -1}, {2, 6, -1}};
    cr_assert_eq(rules_charge_check(&o, &me, aside, 3, &foe, &at), RULES_CHARGE_AWAY);
    cr_assert_eq(at, 1);
    /* (4,5) threatens it already: a square beyond is past the closest space. */
    struct rules_step past[] = {{1, 5, -1}, {2, 5, -1}, {3, 5, -1}, {4, 5, -1}, {4, 4, -1}};
    cr_assert_eq(rules_charge_check(&o, &me, past, 5, &foe, &at), RULES_CHARGE_PAST);
    cr_assert_eq(at, 4);
    /* Diagonally in along row 4 is nearer at every step, and (4,4) is the first to threaten. */
    struct rules_step slant[] = {{1, 4, -1}, {2, 4, -1}, {3, 4, -1}, {4, 4, -1}};
    cr_assert_eq(rules_charge_check(&o, &me, slant, 4, &foe, &at), RULES_CHARGE_OK);
}

/* 001 Alternative Movement Types: "these movement types do not provide any useful benefits to
 * movement outside of their native element"; 001 Blocked Terrain: earth is entered by
 * "burrowing". A creature stands only where one of its movement types can be: earth needs a
 * burrow speed, water a swim or fly speed. */
Test(encounter, a_creature_stands_where_one_of_its_speeds_can_be)
{
    struct rules_options o = {0};
    struct rules_map m;
    cr_assert_eq(rules_map_init(&m, 6, 6), 0);
    m.terrain[2 * 6 + 2] = RULES_MAP_EARTH; /* (2, 2) */
    m.terrain[3 * 6 + 3] = RULES_MAP_WATER; /* (3, 3) */
    struct rules_creature me;
    const unsigned walk = 1u << RULES_MOVE_WALK, burrow = 1u << RULES_MOVE_BURROW,
                   swim = 1u << RULES_MOVE_SWIM;
    int bx = -1, by = -1;
    rules_creature_init(&me, RULES_SIZE_MEDIUM, 2, 2, 0);
    cr_assert_eq(rules_place_conflict(&o, &m, &me, walk, NULL, 0, &bx, &by), RULES_PLACE_TERRAIN);
    cr_assert_eq(bx, 2);
    cr_assert_eq(rules_place_conflict(&o, &m, &me, walk | burrow, NULL, 0, &bx, &by),
                 RULES_PLACE_OK);
    rules_creature_init(&me, RULES_SIZE_MEDIUM, 3, 3, 0);
    cr_assert_eq(rules_place_conflict(&o, &m, &me, walk, NULL, 0, &bx, &by), RULES_PLACE_TERRAIN);
    cr_assert_eq(rules_place_conflict(&o, &m, &me, walk | swim, NULL, 0, &bx, &by), RULES_PLACE_OK);
    cr_assert_eq(rules_place_conflict(&o, &m, &me, RULES_ANY_MOVE_TYPE, NULL, 0, &bx, &by),
                 RULES_PLACE_OK);
    rules_map_free(&m);
}
