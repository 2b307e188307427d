/* An encounter's move on plain structs (rules_encounter_move): the charge (d20 3.5 SRD, Combat:
 * Charge), a run's marks (001 Run), the 5-foot step (001 5-Foot Step), and what each engine
 * rules, with the documents' figures. */
#include <criterion/criterion.h>

#include "rules/encounter/encounter.h"
#include "tests/rules/move_fixtures.h"
#include "tests/rules/referee.h"

/* One move by a Medium walker (30 ft) at (0, 5) on an open 12 x 12 map, with the creatures
 * given, under `engine`, at round 1, slot 2. */
struct move_case {
    struct rules_options o;
    struct rules_map map;
    struct rules_map_creature cs[4];
    int nc;
    struct rules_mover mover;
    struct rules_encounter e;
    struct rules_step_result results[32];
    struct rules_aoo aoos[4];
    struct rules_enc_move_ruling out;
};

static void setup(struct move_case *c, int engine)
{
    *c = (struct move_case){0};
    c->o = preset("d20-3.5");
    c->map = open_map(12, 12);
    c->mover = mover_at(0, 5, 30);
    c->e = (struct rules_encounter){
        .engine = engine, .rules = &c->o, .started = true, .round = 1, .turn = 2};
}

/* Moves in mode along path (n squares), a charge at creature `target` (-1: none named). */
static int move(struct move_case *c, enum rules_move_mode mode, const int (*path)[2], int n,
                int target)
{
    struct rules_move_query q = referee_query(&c->o, &c->map, c->cs, c->nc, &c->mover, mode);
    c->out = (struct rules_enc_move_ruling){.path = {.steps = c->results, .aoos = c->aoos}};
    return referee_rule_move(
        &c->e,
        (struct rules_enc_move){
            .q = &q, .target_named = target >= 0, .target = target, .has_melee = true},
        path, n, &c->out);
}

static const int straight_in[][2] = {{1, 5}, {2, 5}, {3, 5}, {4, 5}};

/* SRD, Charge: "You must move at least 10 feet (2 squares) and may move up to double your speed
 * directly toward the designated opponent"; "you must move to the closest space from which you
 * can attack the opponent"; "take a -2 penalty to your AC until the start of your next turn". */
/* setup, with one enemy at (x, y). */
static void setup_with_enemy(struct move_case *c, int engine, int x, int y)
{
    setup(c, engine);
    c->cs[0] = enemy_at(x, y);
    c->nc = 1;
}

Test(encounter_move, a_charge_goes_straight_in_and_is_charging_until_its_next_turn)
{
    struct move_case c;
    setup_with_enemy(&c, 3, 5, 5);
    cr_assert_eq(move(&c, RULES_MODE_CHARGE, straight_in, 4, 0), RULES_ENC_MOVE_OK);
    cr_assert(c.out.path.legal);
    cr_assert_eq(c.out.path.total_ft, 20);
    cr_assert_eq(c.out.end_x, 4);
    cr_assert_eq(c.out.end_y, 5);
    cr_assert(c.out.marks.moved);
    cr_assert_not(c.out.marks.ran);
    cr_assert_not(c.out.marks.flat_footed);
    /* Begun at round 1, slot 2: ends just before slot 2 of round 2 (004 durations). */
    cr_assert(c.out.charging);
    cr_assert_eq(c.out.charging_end_round, 2);
    cr_assert_eq(c.out.charging_end_turn, 2);
    /* Three squares leave it a square short of where it can attack; five go past it. */
    cr_assert_eq(move(&c, RULES_MODE_CHARGE, straight_in, 3, 0), RULES_ENC_MOVE_CHARGE);
    cr_assert_eq(c.out.charge, RULES_CHARGE_AFAR);
    cr_assert_eq(move(&c, RULES_MODE_CHARGE, straight_in, 1, 0), RULES_ENC_MOVE_CHARGE);
    cr_assert_eq(c.out.charge, RULES_CHARGE_SHORT);
    static const int past[][2] = {{1, 5}, {2, 5}, {3, 5}, {4, 5}, {4, 4}};
    cr_assert_eq(move(&c, RULES_MODE_CHARGE, past, 5, 0), RULES_ENC_MOVE_CHARGE);
    cr_assert_eq(c.out.charge, RULES_CHARGE_PAST);
    cr_assert_eq(c.out.charge_at, 4);
    /* "directly toward": a step to (1, 6) is no nearer than (1, 5) was. */
    static const int aside[][2] = {{1, 5}, {1, 6}, {2, 6}, {3, 6}, {4, 6}};
    cr_assert_eq(move(&c, RULES_MODE_CHARGE, aside, 5, 0), RULES_ENC_MOVE_CHARGE);
    cr_assert_eq(c.out.charge, RULES_CHARGE_AWAY);
    cr_assert_eq(c.out.charge_at, 1);
    /* A charger already charging keeps its timed -2 AC as it is: no second one begins. */
    struct rules_move_query q = {.o = &c.o,
                                 .map = &c.map,
                                 .creatures = c.cs,
                                 .creature_count = 1,
                                 .mover = &c.mover,
                                 .mode = RULES_MODE_CHARGE,
                                 .primary_target = -1};
    struct rules_step in[4];
    for (int i = 0; i < 4; i++)
        in[i] = (struct rules_step){straight_in[i][0], straight_in[i][1], -1};
    struct rules_enc_move again = {.q = &q,
                                   .steps = in,
                                   .n = 4,
                                   .end_facing = -1,
                                   .target_named = true,
                                   .target = 0,
                                   .has_melee = true,
                                   .charging = true};
    cr_assert_eq(rules_encounter_move(&c.e, &again, &c.out), RULES_ENC_MOVE_OK);
    cr_assert_not(c.out.charging);
    rules_map_free(&c.map);
}

/* SRD, Charge: "a designated opponent"; "you can make a single melee attack". The opponent is an
 * enemy that is up, and the charger needs a melee attack; a move that is no charge names no
 * target (engine 3). Engine 2 charged as a double move and checked none of it. */
Test(encounter_move, a_charge_needs_an_enemy_that_is_up_and_a_melee_attack)
{
    struct move_case c;
    setup(&c, 3);
    c.cs[0] = enemy_at(5, 5);
    c.cs[1] = enemy_at(5, 7);
    c.cs[1].ally = true;
    c.cs[2] = enemy_at(5, 3);
    c.cs[2].conscious = false;
    c.nc = 3;
    cr_assert_eq(move(&c, RULES_MODE_CHARGE, straight_in, 4, -1), RULES_ENC_MOVE_NO_OPPONENT);
    cr_assert_eq(move(&c, RULES_MODE_CHARGE, straight_in, 4, 1), RULES_ENC_MOVE_NO_OPPONENT);
    cr_assert_eq(move(&c, RULES_MODE_CHARGE, straight_in, 4, 2), RULES_ENC_MOVE_NO_OPPONENT);
    cr_assert_eq(move(&c, RULES_MODE_MOVE, straight_in, 4, 0), RULES_ENC_MOVE_TARGET);
    struct rules_move_query q = {.o = &c.o,
                                 .mover = &c.mover,
                                 .mode = RULES_MODE_CHARGE,
                                 .creatures = c.cs,
                                 .creature_count = c.nc};
    struct rules_enc_move m = {.q = &q, .target = 0, .target_named = true, .has_melee = false};
    cr_assert_eq(rules_encounter_move_target(&c.e, &m), RULES_ENC_MOVE_NO_MELEE);
    c.e.engine = 2;
    cr_assert_eq(move(&c, RULES_MODE_CHARGE, straight_in, 3, -1), RULES_ENC_MOVE_OK);
    cr_assert_not(c.out.charging);
    cr_assert_eq(move(&c, RULES_MODE_MOVE, straight_in, 4, 0), RULES_ENC_MOVE_OK);
    rules_map_free(&c.map);
}

/* SRD, Charge: with one action "you can still charge, but you are only allowed to move up to
 * your speed (instead of up to double your speed)": 35 ft of charge is past a 30-ft speed. */
Test(encounter_move, a_partial_action_charges_up_to_speed)
{
    struct move_case c;
    setup_with_enemy(&c, 3, 8, 5);
    static const int seven[][2] = {{1, 5}, {2, 5}, {3, 5}, {4, 5}, {5, 5}, {6, 5}, {7, 5}};
    cr_assert_eq(move(&c, RULES_MODE_CHARGE, seven, 7, 0), RULES_ENC_MOVE_OK);
    /* "up to double your speed": 60 ft, and no more. */
    static const int twelve[][2] = {{1, 5}, {2, 5}, {3, 5}, {4, 5},  {5, 5},  {6, 5},
                                    {7, 5}, {8, 5}, {9, 5}, {10, 5}, {11, 5}, {12, 5}};
    c.cs[0] = enemy_at(11, 5);
    cr_assert_eq(move(&c, RULES_MODE_CHARGE, twelve, 10, 0), RULES_ENC_MOVE_OK);
    cr_assert_eq(c.out.path.total_ft, 50);
    rules_map_free(&c.map);
    c.map = open_map(16, 12);
    c.cs[0] = enemy_at(13, 5);
    cr_assert_eq(move(&c, RULES_MODE_CHARGE, twelve, 12, 0), RULES_ENC_MOVE_OK);
    cr_assert_eq(c.out.path.total_ft, 60);
    c.cs[0] = enemy_at(14, 5);
    static const int thirteen[][2] = {{1, 5}, {2, 5}, {3, 5},  {4, 5},  {5, 5},  {6, 5}, {7, 5},
                                      {8, 5}, {9, 5}, {10, 5}, {11, 5}, {12, 5}, {13, 5}};
    cr_assert_eq(move(&c, RULES_MODE_CHARGE, thirteen, 13, 0), RULES_ENC_MOVE_ILLEGAL);
    c.cs[0] = enemy_at(8, 5);
    rules_encounter_mover(3, RULES_MODE_CHARGE, true, &c.mover);
    cr_assert(c.mover.single_action);
    cr_assert_eq(move(&c, RULES_MODE_CHARGE, seven, 7, 0), RULES_ENC_MOVE_ILLEGAL);
    cr_assert_not(c.out.path.legal);
    /* Only a charge is so halved, and only from engine 3. */
    rules_encounter_mover(3, RULES_MODE_DOUBLE, true, &c.mover);
    cr_assert_not(c.mover.single_action);
    rules_encounter_mover(2, RULES_MODE_CHARGE, true, &c.mover);
    cr_assert_not(c.mover.single_action);
    rules_map_free(&c.map);
}

/* 001 Crawling: "While Quelled, Prone, or Splayed, you can crawl 5 feet"; before engine 3 a
 * prone creature was ruled standing for any other move (its stored rulings keep that). */
Test(encounter_move, the_mover_is_prone_from_engine_3_or_when_it_crawls)
{
    struct rules_mover mv = mover_at(0, 0, 30);
    mv.prone = true;
    rules_encounter_mover(2, RULES_MODE_MOVE, false, &mv);
    cr_assert_not(mv.prone);
    mv.prone = true;
    rules_encounter_mover(2, RULES_MODE_CRAWL, false, &mv);
    cr_assert(mv.prone);
    rules_encounter_mover(3, RULES_MODE_MOVE, false, &mv);
    cr_assert(mv.prone);
}

/* 001 Run: runners "gain the flat-footed condition until the start of their next turn, unless
 * they have the Runner (Feat)"; 001 5-Foot Step: the step is no movement (the turn marks it
 * stepped). A path past the move's budget is illegal: 35 ft of a 30-ft move. */
Test(encounter_move, a_run_leaves_its_runner_flat_footed_and_a_step_marks_a_step)
{
    struct move_case c;
    setup(&c, 3);
    static const int run[][2] = {{1, 5}, {2, 5}, {3, 5}, {4, 5}, {5, 5}, {6, 5}, {7, 5}, {8, 5}};
    cr_assert_eq(move(&c, RULES_MODE_RUN, run, 8, -1), RULES_ENC_MOVE_OK);
    cr_assert(c.out.marks.ran && c.out.marks.moved && c.out.marks.flat_footed);
    cr_assert_eq(c.out.end_x, 8);
    cr_assert_not(c.out.charging);
    /* "unless they have the Runner (Feat)" */
    struct rules_move_marks marks;
    rules_move_marks_of(RULES_MODE_RUN, true, &marks);
    cr_assert(marks.ran && !marks.flat_footed);
    cr_assert_eq(move(&c, RULES_MODE_STEP, run, 1, -1), RULES_ENC_MOVE_OK);
    cr_assert(c.out.marks.stepped);
    cr_assert_not(c.out.marks.moved);
    cr_assert_eq(move(&c, RULES_MODE_MOVE, run, 7, -1), RULES_ENC_MOVE_ILLEGAL);
    cr_assert_eq(move(&c, RULES_MODE_MOVE, run, 6, -1), RULES_ENC_MOVE_OK);
    cr_assert_eq(c.out.path.total_ft, 30);
    rules_map_free(&c.map);
}

/* 004 Attacks of Opportunity: leaving a square an enemy threatens provokes; the ruling lists it
 * with the step that leaves and the square left, for the reactions the encounter opens. */
Test(encounter_move, a_move_out_of_a_threatened_square_provokes)
{
    struct move_case c;
    setup_with_enemy(&c, 3, 0, 4);
    /* (1, 5) is threatened, and (2, 5) is not: the second step leaves a threatened square (the
     * preset does not count the starting square, 004's option). */
    static const int away[][2] = {{1, 5}, {2, 5}};
    cr_assert_eq(move(&c, RULES_MODE_MOVE, away, 2, -1), RULES_ENC_MOVE_OK);
    cr_assert_eq(c.out.path.aoo_count, 1);
    cr_assert_eq(c.out.path.aoos[0].creature, 0);
    cr_assert_eq(c.out.path.aoos[0].step, 1);
    cr_assert_eq(c.out.path.aoos[0].from_x, 1);
    cr_assert_eq(c.out.path.aoos[0].from_y, 5);
    rules_map_free(&c.map);
}

/* 004 Attacks of Opportunity: "If all a combatant does is take a normal move or a double move
 * (not a run), the space that the combatant started out in is not considered threatened."
 * Engine 4: a mover that has taken another action this turn (rules_mover.acted) leaves its
 * starting square as any other, and provokes. */
Test(encounter_move, the_starting_square_is_safe_only_when_all_the_turn_does_is_move)
{
    struct move_case c;
    setup_with_enemy(&c, 4, 0, 4); /* it threatens the starting square (0, 5) */
    static const int away[][2] = {{0, 6}, {0, 7}};
    cr_assert_eq(move(&c, RULES_MODE_MOVE, away, 2, -1), RULES_ENC_MOVE_OK);
    cr_assert_eq(c.out.path.aoo_count, 0, "all it does is move: the start is safe");
    c.mover.acted = true;
    cr_assert_eq(move(&c, RULES_MODE_MOVE, away, 2, -1), RULES_ENC_MOVE_OK);
    cr_assert_eq(c.out.path.aoo_count, 1, "after another action the start square is threatened");
    cr_assert_eq(c.out.path.aoos[0].step, 0);
    cr_assert_eq(c.out.path.aoos[0].from_x, 0);
    cr_assert_eq(c.out.path.aoos[0].from_y, 5);
    rules_map_free(&c.map);
}

/* What the mover has done this turn, from the typed state (rules_encounter_mover_of): under
 * engine 4 an attack (its standard action) or an earlier move action marks it as having acted;
 * a free facing change does not; engine 3 knew none of it. */
Test(encounter_move, the_turn_so_far_tells_whether_the_mover_has_acted)
{
    struct rules_options o = preset("d20-3.5");
    struct rules_enc_combatant k = {.id = "kroh", .side = "party", .hp = 10, .max_hp = 10};
    rules_creature_init(&k.body, RULES_SIZE_MEDIUM, 0, 5, 0);
    k.placed = true;
    k.speed[RULES_MOVE_WALK] = 30;
    struct rules_enc_slot slot = {0, true};
    struct rules_encounter e = {.engine = 4,
                                .rules = &o,
                                .started = true,
                                .round = 1,
                                .turn = 0,
                                .count = 1,
                                .combatants = &k,
                                .slots = 1,
                                .order = &slot};
    struct rules_mover mv;
    struct rules_turn attacked = {.standard = true}, moved = {.move = true},
                      turned = {.free_facing = true}, nothing = {0};
    rules_encounter_mover_of(&e, 0, &attacked, RULES_MODE_MOVE, &mv);
    cr_assert(mv.acted);
    rules_encounter_mover_of(&e, 0, &moved, RULES_MODE_MOVE, &mv);
    cr_assert(mv.acted);
    rules_encounter_mover_of(&e, 0, &turned, RULES_MODE_MOVE, &mv);
    cr_assert_not(mv.acted);
    rules_encounter_mover_of(&e, 0, &nothing, RULES_MODE_DOUBLE, &mv);
    cr_assert_not(mv.acted);
    e.engine = 3;
    rules_encounter_mover_of(&e, 0, &attacked, RULES_MODE_MOVE, &mv);
    cr_assert_not(mv.acted, "engine 3 exempted the first square of every move action");
}
