/* The engines on plain structs (rules/encounter/engine.h): the table of every rule an engine
 * brought, and engine 4's rules, each quoting its sentence: where prone came from and forced
 * movement (001), the SRD's dying rounds, and a full attack that turns and changes target
 * between its attacks (000's Kroh). */
#include <criterion/criterion.h>

#include "rules/encounter/encounter.h"
#include "rules/encounter/engine.h"
#include "rules/encounter/state.h"
#include "tests/rules/move_fixtures.h"

/* Each rule names the engine that brought it, among those this server rules, the enum in the
 * order of the engines, and every engine after the first brought at least one. */
Test(engine, every_rule_belongs_to_one_engine_in_order)
{
    int brought[RULES_ENGINE_VERSION + 1] = {0};
    for (int r = 0; r < RULES_ENGINE_RULE_COUNT; r++) {
        const struct rules_engine_rule_row *row = &rules_engine_rules[r];
        cr_assert_not_null(row->name, "rule %d has a row", r);
        cr_assert(row->since >= 2 && row->since <= RULES_ENGINE_VERSION, "%s", row->name);
        cr_assert(r == 0 || rules_engine_rules[r - 1].since <= row->since, "%s", row->name);
        cr_assert(rules_engine_has(row->since, r), "%s", row->name);
        cr_assert_not(rules_engine_has(row->since - 1, r), "%s", row->name);
        brought[row->since]++;
    }
    for (int v = 2; v <= RULES_ENGINE_VERSION; v++)
        cr_assert_gt(brought[v], 0, "engine %d brought a rule", v);
    cr_assert(rules_engine_known(1) && rules_engine_known(RULES_ENGINE_VERSION));
    cr_assert_not(rules_engine_known(0) || rules_engine_known(RULES_ENGINE_VERSION + 1));
    cr_assert_not(rules_engine_has(RULES_ENGINE_VERSION, RULES_ENGINE_RULE_COUNT));
}

/* One combatant, prone, under engine `engine` on the d20 3.5 preset. */
struct one {
    struct rules_options o;
    struct rules_enc_combatant k;
    struct rules_enc_slot slot;
    struct rules_encounter e;
};

static void one_prone(struct one *c, int engine)
{
    *c = (struct one){0};
    c->o = preset("d20-3.5");
    c->k = (struct rules_enc_combatant){.id = "orc", .side = "monsters", .hp = 10, .max_hp = 10};
    rules_creature_init(&c->k.body, RULES_SIZE_MEDIUM, 3, 3, 0);
    c->k.placed = true;
    c->k.prone = true;
    c->k.conditions = 1u << RULES_CONDITION_PRONE;
    c->slot = (struct rules_enc_slot){0, true};
    c->e = (struct rules_encounter){.engine = engine,
                                    .rules = &c->o,
                                    .started = true,
                                    .round = 1,
                                    .turn = 0,
                                    .count = 1,
                                    .combatants = &c->k,
                                    .slots = 1,
                                    .order = &c->slot};
}

/* 001 Forced Movement: "A creature which has voluntarily dropped to Prone can elect to ignore
 * any forced movement inflicted upon it as long as it remains prone. However, a creature which
 * was made prone involuntarily gains no such resistance to forced movement until it has had an
 * opportunity to stand up." */
Test(engine, a_creature_made_prone_resists_forced_movement_once_it_had_a_turn)
{
    struct one c;
    one_prone(&c, 4);
    /* Knocked prone by a fall at event 7, no turn since: no resistance. */
    c.k.sources[RULES_CONDITION_PRONE] = (struct rules_condition_source){7, true, false};
    cr_assert(rules_encounter_prone_known(&c.e, 0));
    cr_assert_not(rules_encounter_resists_forced(&c.e, 0));
    /* Its own turn has begun since: it had the opportunity to stand. */
    c.k.sources[RULES_CONDITION_PRONE].had_turn = true;
    cr_assert(rules_encounter_resists_forced(&c.e, 0));
    /* Dropped prone of its own will: at once. */
    c.k.sources[RULES_CONDITION_PRONE] = (struct rules_condition_source){7, false, false};
    cr_assert(rules_encounter_resists_forced(&c.e, 0));
    /* How a fall and a push leave prone: forced; dropping: not. */
    cr_assert(rules_condition_involuntary(RULES_CAUSE_FALL));
    cr_assert(rules_condition_involuntary(RULES_CAUSE_FORCED));
    cr_assert_not(rules_condition_involuntary(RULES_CAUSE_OWN));
    /* Its turn begins (rules_condition_source_at_turn): the forced prone has had its
     * opportunity to stand; the one taken of its own will stays as it was. */
    struct rules_condition_source fell = {7, true, false}, dropped = {7, false, false};
    cr_assert(rules_condition_source_at_turn(fell).had_turn);
    cr_assert_eq(rules_condition_source_at_turn(fell).event, 7);
    cr_assert_not(rules_condition_source_at_turn(dropped).had_turn);
    c.k.sources[RULES_CONDITION_PRONE] = rules_condition_source_at_turn(fell);
    cr_assert(rules_encounter_resists_forced(&c.e, 0));
    /* Engine 3 kept no source: the encounter does not know, the action says. */
    one_prone(&c, 3);
    c.k.sources[RULES_CONDITION_PRONE] = (struct rules_condition_source){7, true, true};
    cr_assert_not(rules_encounter_prone_known(&c.e, 0));
    cr_assert_not(rules_encounter_resists_forced(&c.e, 0));
}

/* d20 3.5 SRD, Dying: "roll d% to see whether the dying character becomes stable. The
 * character has a 10% chance of becoming stable. If he doesn't, he loses 1 hit point"; Dead
 * at -10. On by default for the d20 3.5 preset (the option dying srd). */
Test(engine, a_dying_creature_becomes_stable_one_time_in_ten_or_loses_a_hit_point)
{
    struct rules_options o = preset("d20-3.5");
    cr_assert_eq(o.dying, RULES_DYING_SRD);
    bool stable = false;
    long long hp = 0;
    enum rules_hp_state st;
    rules_hp_dying_round(&o, -2, 10, &stable, &hp, &st);
    cr_assert(stable, "10 on the d%%: stable");
    rules_hp_dying_round(&o, -2, 11, &stable, &hp, &st);
    cr_assert_not(stable);
    cr_assert_eq(hp, -3);
    cr_assert_eq(st, RULES_HP_DYING);
    rules_hp_dying_round(&o, -9, 100, &stable, &hp, &st);
    cr_assert_eq(hp, -10);
    cr_assert_eq(st, RULES_HP_DEAD, "dead at the threshold in force");

    /* Who bleeds as its turn comes up: dying, not stable, under engine 4 and the option. */
    struct one c;
    one_prone(&c, 4);
    c.k.hp = -2;
    c.k.hp_state = RULES_HP_DYING;
    cr_assert(rules_encounter_bleeds(&c.e, 0));
    c.k.hp_state = RULES_HP_STABLE;
    cr_assert_not(rules_encounter_bleeds(&c.e, 0), "a stable creature loses no more");
    c.k.hp_state = RULES_HP_DYING;
    c.o.dying = RULES_DYING_STEADY;
    cr_assert_not(rules_encounter_bleeds(&c.e, 0), "the option steady: it stays as it is");
    c.o.dying = RULES_DYING_SRD;
    c.e.engine = 3;
    cr_assert_not(rules_encounter_bleeds(&c.e, 0), "engine 3 logs re-rule as they were");
}

/* Kroh, a player character with base attack bonus 6 (two attacks: d20 3.5 SRD, Full Attack),
 * facing east at (5, 5), between the bugbear (4, 5) and the goblin (6, 5), under the d20 3.5
 * preset with facing on. */
struct kroh {
    struct rules_options o;
    struct rules_enc_combatant k[3];
    struct rules_enc_slot slots[3];
    struct rules_encounter e;
    struct rules_turn turn;
    struct rules_turn_limits limits;
};

static void kroh(struct kroh *c, int engine)
{
    *c = (struct kroh){0};
    c->o = preset("d20-3.5");
    c->o.facing = RULES_FACING_000;
    const char *ids[] = {"kroh", "bugbear", "goblin"};
    const int xs[] = {5, 4, 6};
    for (int i = 0; i < 3; i++) {
        c->k[i] = (struct rules_enc_combatant){
            .id = ids[i], .side = i == 0 ? "party" : "monsters", .hp = 10, .max_hp = 10};
        rules_creature_init(&c->k[i].body, RULES_SIZE_MEDIUM, xs[i], 5, 2);
        c->k[i].placed = true;
        c->slots[i] = (struct rules_enc_slot){i, true};
    }
    c->k[0].base_attack_bonus = 6;
    c->k[0].player_character = true;
    c->e = (struct rules_encounter){.engine = engine,
                                    .rules = &c->o,
                                    .started = true,
                                    .round = 1,
                                    .turn = 0,
                                    .count = 3,
                                    .combatants = c->k,
                                    .slots = 3,
                                    .order = c->slots};
    /* The full attack's own cost, as the gate spends it. */
    cr_assert_eq(rules_turn_spend(&c->turn, &c->limits, RULES_ACTION_FULL_ATTACK,
                                  &(struct rules_turn_refusal){0}),
                 RULES_TURN_OK);
}

/* 000: Kroh may "attack the bugbear, take his free action to change facing towards the goblin,
 * then attack the goblin". The second attack is the iterative one, 5 lower (SRD, Full Attack),
 * and a second facing change would take a move action the full attack leaves none of. */
Test(engine, kroh_attacks_the_bugbear_turns_and_attacks_the_goblin)
{
    struct kroh c;
    kroh(&c, 4);
    struct rules_plan_item plan[] = {
        {RULES_PLAN_ATTACK, -1, -1}, {RULES_PLAN_FACING, -1, 2}, {RULES_PLAN_ATTACK, 2, -1}};
    struct rules_full_attack_plan out;
    cr_assert_eq(rules_encounter_full_attack_plan(&c.e, 0, 1, plan, 3, &c.turn, &c.limits, &out),
                 RULES_PLAN_OK);
    cr_assert_eq(out.iterative, 2);
    cr_assert_eq(out.attacks, 2);
    cr_assert_eq(out.facings, 1);
    cr_assert_eq(out.attack_of[0], 0);
    cr_assert_eq(out.attack_of[1], -1);
    cr_assert_eq(out.attack_of[2], 1);
    cr_assert_eq(rules_iterative_penalty(out.attack_of[2]), -5);
    cr_assert(c.turn.free_facing, "the turn's free facing change is spent");

    kroh(&c, 4);
    struct rules_plan_item twice[] = {
        {RULES_PLAN_FACING, -1, 6}, {RULES_PLAN_ATTACK, -1, -1}, {RULES_PLAN_FACING, -1, 2}};
    cr_assert_eq(rules_encounter_full_attack_plan(&c.e, 0, 1, twice, 3, &c.turn, &c.limits, &out),
                 RULES_PLAN_FACING_SPENT);
    cr_assert_eq(out.item, 2);

    /* Engine 3 held one target and no facing change: its logs re-rule so. */
    kroh(&c, 3);
    cr_assert_eq(rules_encounter_full_attack_plan(&c.e, 0, 1, plan, 3, &c.turn, &c.limits, &out),
                 RULES_PLAN_WIDER);
    cr_assert_eq(out.item, 1);
}

/* 001 Trade Away Attacks From A Full Attack Action: a step "uses up" an attack, "Monsters
 * cannot trade attack actions for 5-foot steps"; and an attack is on another creature. */
Test(engine, a_plan_trades_attacks_for_steps_within_the_iterative_attacks)
{
    struct kroh c;
    kroh(&c, 4);
    struct rules_full_attack_plan out;
    struct rules_plan_item three[] = {
        {RULES_PLAN_ATTACK, -1, -1}, {RULES_PLAN_STEP, -1, -1}, {RULES_PLAN_ATTACK, -1, -1}};
    cr_assert_eq(rules_encounter_full_attack_plan(&c.e, 0, 1, three, 3, &c.turn, &c.limits, &out),
                 RULES_PLAN_TOO_MANY, "two attacks and a step, of two iterative attacks");
    struct rules_plan_item two[] = {{RULES_PLAN_STEP, -1, -1}, {RULES_PLAN_ATTACK, -1, -1}};
    cr_assert_eq(rules_encounter_full_attack_plan(&c.e, 0, 1, two, 2, &c.turn, &c.limits, &out),
                 RULES_PLAN_OK);
    cr_assert_eq(out.attack_of[1], 0, "the attack made keeps the best bonus");
    c.k[0].player_character = false;
    cr_assert_eq(rules_encounter_full_attack_plan(&c.e, 0, 1, two, 2, &c.turn, &c.limits, &out),
                 RULES_PLAN_MONSTER);
    struct rules_plan_item self[] = {{RULES_PLAN_ATTACK, 0, -1}};
    cr_assert_eq(rules_encounter_full_attack_plan(&c.e, 0, 1, self, 1, &c.turn, &c.limits, &out),
                 RULES_PLAN_SELF);
}
