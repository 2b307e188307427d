#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "rules/dice/dice.h"

/* pcg32-demo (pcg-c-basic), seed 42, sequence 54, "Round 1": the published reference. */
Test(rng, matches_pcg32_reference_outputs)
{
    static const uint32_t expected[] = {0xa15c02b7, 0x7b47f409, 0xba1d3330,
                                        0x83d2f293, 0xbfa4784b, 0xcbed606e};
    struct rules_rng rng;
    rules_rng_seed(&rng, 42, 54);
    for (size_t i = 0; i < 6; i++)
        cr_assert_eq(rules_rng_next(&rng), expected[i], "output %zu", i);
}

/* The same demo continues with 65 coins (boundedrand(2)) and 33 d6 (boundedrand(6) + 1). */
Test(rng, bounded_draws_match_pcg32_reference_coins_and_rolls)
{
    const char *coins = "HHTTTHTHHHTHTTTHHHHHTTTHHHTHTHTHTTHTTTHHHHHHTTTTHHTTTTTHTTTTTTTHT";
    static const int rolls[] = {3, 4, 1, 1, 2, 2, 3, 2, 4, 3, 2, 4, 3, 3, 5, 2, 3,
                                1, 3, 1, 5, 1, 4, 1, 5, 6, 4, 6, 6, 2, 6, 3, 3};
    struct rules_rng rng;
    rules_rng_seed(&rng, 42, 54);
    for (int i = 0; i < 6; i++)
        rules_rng_next(&rng);
    for (size_t i = 0; i < strlen(coins); i++)
        cr_assert_eq(rules_rng_below(&rng, 2) ? 'H' : 'T', coins[i], "coin %zu", i);
    for (size_t i = 0; i < sizeof rolls / sizeof rolls[0]; i++)
        cr_assert_eq((int)rules_rng_below(&rng, 6) + 1, rolls[i], "roll %zu", i);
}

static int parse_ok(const char *text, struct rules_dice_expr *e)
{
    size_t at = 99;
    int rc = rules_dice_parse(text, e, &at);
    cr_assert_eq(rc, RULES_DICE_OK, "'%s' should parse, got %d at %zu", text, rc, at);
    return rc;
}

static void parse_fails(const char *text, int status, size_t offset)
{
    struct rules_dice_expr e;
    size_t at = 99;
    cr_assert_eq(rules_dice_parse(text, &e, &at), status, "'%s'", text);
    cr_assert_eq(at, offset, "'%s' error offset %zu, wanted %zu", text, at, offset);
}

Test(dice_parse, reads_terms_constants_and_signs)
{
    struct rules_dice_expr e;
    parse_ok("2d6+1d4+3", &e);
    cr_assert_eq(e.term_count, 3);
    cr_assert_eq(e.dice_count, 3);
    cr_assert_eq(e.terms[0].count, 2);
    cr_assert_eq(e.terms[0].sides, 6);
    cr_assert_eq(e.terms[1].sides, 4);
    cr_assert_eq(e.terms[2].value, 3);
    parse_ok(" -1d4 - 2 ", &e);
    cr_assert_eq(e.terms[0].sign, -1);
    cr_assert_eq(e.terms[1].sign, -1);
    cr_assert_eq(e.terms[1].value, 2);
    parse_ok("d%", &e);
    cr_assert_eq(e.terms[0].count, 1);
    cr_assert_eq(e.terms[0].sides, 100);
    parse_ok("D20", &e);
    cr_assert_eq(e.terms[0].sides, 20);
}

Test(dice_parse, reads_keep_drop_and_per_die_modifiers)
{
    struct rules_dice_expr e;
    parse_ok("4d6kh3", &e);
    cr_assert_eq(e.terms[0].keep, RULES_KEEP_HIGHEST);
    cr_assert_eq(e.terms[0].keep_n, 3);
    parse_ok("2d20kl1", &e);
    cr_assert_eq(e.terms[0].keep, RULES_KEEP_LOWEST);
    parse_ok("4d6d1", &e);
    cr_assert_eq(e.terms[0].keep, RULES_DROP_LOWEST);
    parse_ok("4d6dh1", &e);
    cr_assert_eq(e.terms[0].keep, RULES_DROP_HIGHEST);
    parse_ok("3d6{+2}", &e); /* 001 Falling: jagged obsidian "+2 per die" */
    cr_assert_eq(e.terms[0].per_die, 2);
    parse_ok("20d6{-1}", &e); /* 001 Falling: soft loam "-1 per die" */
    cr_assert_eq(e.terms[0].per_die, -1);
}

Test(dice_parse, refuses_nonsense_with_the_offending_position)
{
    parse_fails("d0", RULES_DICE_ERR_SIDES, 1);
    parse_fails("1d1", RULES_DICE_ERR_SIDES, 2);
    parse_fails("0d6", RULES_DICE_ERR_ZERO_COUNT, 0);
    parse_fails("1001d6", RULES_DICE_ERR_TOO_MANY_DICE, 0);
    parse_fails("600d6+600d6", RULES_DICE_ERR_TOO_MANY_DICE, 6);
    parse_fails("1d1001", RULES_DICE_ERR_SIDES, 2);
    parse_fails("99999999999999999999", RULES_DICE_ERR_TOO_LARGE, 0);
    parse_fails("1d6x", RULES_DICE_ERR_SYNTAX, 3);
    parse_fails("1d6+", RULES_DICE_ERR_SYNTAX, 4);
    parse_fails("", RULES_DICE_ERR_SYNTAX, 0);
    parse_fails("d", RULES_DICE_ERR_SYNTAX, 1);
    parse_fails("4d6kh5", RULES_DICE_ERR_KEEP, 3);
    parse_fails("4d6d4", RULES_DICE_ERR_KEEP, 3);
    parse_fails("4d6kh0", RULES_DICE_ERR_KEEP, 3);
    parse_fails("3d6{2}", RULES_DICE_ERR_PER_DIE, 3);
    parse_fails("3d6{+2", RULES_DICE_ERR_PER_DIE, 3);
    parse_fails("3d6[fire", RULES_DICE_ERR_LABEL, 3);
}

/* The old per-die syntax now reads as a label and would silently lose its +2: refused. */
Test(dice_parse, refuses_the_old_per_die_brackets_rather_than_dropping_them)
{
    parse_fails("3d6[+2]", RULES_DICE_ERR_OLD_PER_DIE, 3);
    parse_fails("20d6[-1]", RULES_DICE_ERR_OLD_PER_DIE, 4);
    parse_fails("3d6 [ +2 ]", RULES_DICE_ERR_OLD_PER_DIE, 4);
    struct rules_dice_expr e;
    parse_ok("3d6[2]", &e); /* unsigned: a label, as in Avrae */
    cr_assert_eq(e.terms[0].per_die, 0);
}

Test(dice_parse, reads_rerolls_minimums_explosions_and_labels)
{
    struct rules_dice_expr e;
    parse_ok("2d6ro<3", &e);
    cr_assert_eq(e.terms[0].reroll, RULES_REROLL_ONCE);
    cr_assert_eq(e.terms[0].reroll_on.cmp, RULES_SELECT_BELOW);
    cr_assert_eq(e.terms[0].reroll_on.n, 3);
    parse_ok("10d20rr<20", &e);
    cr_assert_eq(e.terms[0].reroll, RULES_REROLL_WHILE);
    parse_ok("2d6r1", &e); /* Roll20's reroll */
    cr_assert_eq(e.terms[0].reroll, RULES_REROLL_WHILE);
    cr_assert_eq(e.terms[0].reroll_on.n, 1);
    parse_ok("8d6mi2", &e);
    cr_assert_eq(e.terms[0].min_face, 2);
    parse_ok("8d6ma5mi2", &e);
    cr_assert_eq(e.terms[0].max_face, 5);
    parse_ok("3d6e6", &e);
    cr_assert(e.terms[0].explode);
    cr_assert_eq(e.terms[0].explode_on.n, 6);
    parse_ok("3d6!", &e); /* Roll20's: the top face */
    cr_assert_eq(e.terms[0].explode_on.cmp, RULES_SELECT_EQUAL);
    cr_assert_eq(e.terms[0].explode_on.n, 6);
    parse_ok("4d6e>4", &e);
    cr_assert_eq(e.terms[0].explode_on.cmp, RULES_SELECT_ABOVE);
    parse_ok("4d6rr1mi2kh3{+1} [str]", &e);
    cr_assert_eq(e.terms[0].keep, RULES_KEEP_HIGHEST);
    cr_assert_eq(e.terms[0].per_die, 1);
    cr_assert_eq(e.terms[0].label_len, 5);
    parse_ok("3d6 [fire] + 1d4 [piercing] + 2 [bless]", &e);
    cr_assert_eq(e.term_count, 3);
    cr_assert_eq(e.terms[2].label_len, 7);
}

Test(dice_parse, refuses_unsupported_notation_naming_the_part)
{
    struct rules_dice_expr e;
    size_t at = 0, len = 0;
    cr_assert_eq(rules_dice_parse_part("1d20ra1", &e, &at, &len), RULES_DICE_ERR_UNSUPPORTED);
    cr_assert_eq(at, 4);
    cr_assert_eq(len, 2);
    parse_fails("2d6r<2", RULES_DICE_ERR_ROLL20_COMPARE, 3); /* Roll20's <2 includes 2 */
    parse_fails("3d6!>5", RULES_DICE_ERR_ROLL20_COMPARE, 3);
    parse_fails("3d6!!", RULES_DICE_ERR_UNSUPPORTED, 3);
    parse_fails("3d6!p", RULES_DICE_ERR_UNSUPPORTED, 3);
    parse_fails("4d6pl1", RULES_DICE_ERR_UNSUPPORTED, 3);
    parse_fails("4d6rol1", RULES_DICE_ERR_UNSUPPORTED, 3);
    parse_fails("4d6k>3", RULES_DICE_ERR_UNSUPPORTED, 3);
    parse_fails("(1d4, 3)kh1", RULES_DICE_ERR_UNSUPPORTED, 0);
    parse_fails("{4d6+3d8}kh1", RULES_DICE_ERR_UNSUPPORTED, 0);
    parse_fails("2d6*2", RULES_DICE_ERR_UNSUPPORTED, 3);
    parse_fails("1d6rr<7", RULES_DICE_ERR_EVERY_FACE, 3);
    parse_fails("1d6e>0", RULES_DICE_ERR_EVERY_FACE, 3);
    parse_fails("4d6e6kh3", RULES_DICE_ERR_EXPLODE_KEEP, 3);
    parse_fails("8d6kh3mi2", RULES_DICE_ERR_ORDER, 6);
    parse_fails("8d6e6ro1", RULES_DICE_ERR_ORDER, 5);
    parse_fails("8d6mi2mi3", RULES_DICE_ERR_ORDER, 6);
    parse_fails("8d6mi7", RULES_DICE_ERR_MIN_MAX, 3);
    parse_fails("8d6mi4ma3", RULES_DICE_ERR_MIN_MAX, 6);
    parse_fails("3d6 [a] [b]", RULES_DICE_ERR_LABEL, 8);
    parse_fails("41d6rr1", RULES_DICE_ERR_TOO_MANY_DRAWS, 0); /* 41 x 101 > 4096 */
}

Test(dice_parse, refuses_more_than_the_term_and_length_limits)
{
    char text[400] = "1";
    for (int i = 0; i < RULES_DICE_MAX_TERMS; i++)
        strcat(text, "+1");
    parse_fails(text, RULES_DICE_ERR_TOO_MANY_TERMS, 2 * RULES_DICE_MAX_TERMS); /* term k at 2k */
    memset(text, ' ', 300);
    text[300] = '\0';
    text[0] = '1';
    parse_fails(text, RULES_DICE_ERR_TOO_LONG, RULES_DICE_MAX_EXPRESSION);
}

Test(dice_roll, supplied_results_are_used_in_order_and_kept_by_rule)
{
    struct rules_dice_expr e;
    parse_ok("4d6kh3+2", &e);
    int faces[] = {1, 5, 3, 6};
    struct rules_dice d;
    rules_dice_from_supplied(&d, faces, 4);
    struct rules_roll *r = malloc(sizeof *r);
    cr_assert_eq(rules_dice_roll(&e, &d, r), RULES_DICE_OK);
    cr_assert_eq(r->dice_count, 4);
    cr_assert_not(r->dice[0].kept); /* the 1 is dropped */
    cr_assert(r->dice[1].kept && r->dice[2].kept && r->dice[3].kept);
    cr_assert_eq(r->term_totals[0], 14);
    cr_assert_eq(r->total, 16);
    free(r);
}

Test(dice_roll, per_die_modifier_applies_to_each_kept_die_and_negatives_subtract)
{
    struct rules_dice_expr e;
    parse_ok("3d6{+2}-1d4", &e);
    int faces[] = {1, 2, 3, 4};
    struct rules_dice d;
    rules_dice_from_supplied(&d, faces, 4);
    struct rules_roll *r = malloc(sizeof *r);
    cr_assert_eq(rules_dice_roll(&e, &d, r), RULES_DICE_OK);
    cr_assert_eq(r->term_totals[0], (1 + 2) + (2 + 2) + (3 + 2));
    cr_assert_eq(r->term_totals[1], -4);
    cr_assert_eq(r->total, 8);
    int min, max;
    rules_dice_range(&e, &min, &max);
    cr_assert_eq(min, 9 - 4);
    cr_assert_eq(max, 24 - 1);
    free(r);
}

Test(dice_roll, supplied_results_must_fit_the_expression)
{
    struct rules_dice_expr e;
    parse_ok("2d6", &e);
    struct rules_roll *r = malloc(sizeof *r);
    struct rules_dice d;
    int too_few[] = {3};
    rules_dice_from_supplied(&d, too_few, 1);
    cr_assert_eq(rules_dice_roll(&e, &d, r), RULES_DICE_ERR_SUPPLIED_COUNT);
    int too_many[] = {3, 4, 5};
    rules_dice_from_supplied(&d, too_many, 3);
    cr_assert_eq(rules_dice_roll(&e, &d, r), RULES_DICE_OK); /* takes the first two */
    cr_assert_not(rules_dice_all_used(&d));                  /* and one is left over */
    int exact[] = {3, 4};
    rules_dice_from_supplied(&d, exact, 2);
    cr_assert_eq(rules_dice_roll(&e, &d, r), RULES_DICE_OK);
    cr_assert(rules_dice_all_used(&d));
    int seven[] = {3, 7};
    rules_dice_from_supplied(&d, seven, 2);
    cr_assert_eq(rules_dice_roll(&e, &d, r), RULES_DICE_ERR_SUPPLIED_RANGE);
    free(r);
}

Test(dice_roll, same_seed_gives_same_dice_and_stays_in_range)
{
    struct rules_dice_expr e;
    parse_ok("10d20+1d4", &e);
    struct rules_roll *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    struct rules_dice d1, d2;
    rules_dice_from_seed(&d1, 123456789);
    rules_dice_from_seed(&d2, 123456789);
    cr_assert_eq(rules_dice_roll(&e, &d1, a), RULES_DICE_OK);
    cr_assert_eq(rules_dice_roll(&e, &d2, b), RULES_DICE_OK);
    cr_assert_eq(a->total, b->total);
    for (int i = 0; i < a->dice_count; i++) {
        cr_assert_eq(a->dice[i].value, b->dice[i].value);
        cr_assert(a->dice[i].value >= 1 && a->dice[i].value <= a->dice[i].sides);
    }
    free(a);
    free(b);
}

/* A d20 over 1e6 seeded rolls shows every face with roughly equal frequency: a chi-square
 * test at 19 degrees of freedom; 43.82 is the 0.001 critical value, so a fair die fails this
 * once in a thousand seeds (the seed is fixed, so the test is deterministic). A die showing
 * one face 5.5% of the time instead of 5% would give about 525 and fail. */
Test(dice_roll, d20_faces_are_uniform)
{
    struct rules_dice d;
    rules_dice_from_seed(&d, 2026);
    int counts[21] = {0};
    const int n = 1000000;
    for (int i = 0; i < n; i++) {
        int v = 0;
        cr_assert_eq(rules_dice_draw(&d, 20, &v), RULES_DICE_OK);
        counts[v]++;
    }
    double expected = n / 20.0, chi = 0;
    for (int f = 1; f <= 20; f++)
        chi += (counts[f] - expected) * (counts[f] - expected) / expected;
    cr_assert_lt(chi, 43.82, "chi-square %f", chi);
}

/* Rolls text with the given faces and checks its text. */
static void text_is(const char *text, const int *faces, size_t n, const char *want)
{
    struct rules_dice_expr e;
    parse_ok(text, &e);
    struct rules_dice d;
    rules_dice_from_supplied(&d, faces, n);
    struct rules_roll *r = malloc(sizeof *r);
    cr_assert_eq(rules_dice_roll(&e, &d, r), RULES_DICE_OK, "%s", text);
    cr_assert(rules_dice_all_used(&d), "%s: faces left over", text);
    char buf[512];
    size_t len = rules_dice_text(text, &e, r, buf, sizeof buf);
    cr_assert_str_eq(buf, want);
    cr_assert_eq(len, strlen(want));
    free(r);
}

/* The examples of Avrae's dice engine documentation (github.com/avrae/d20, README.md:
 * "Quickstart", "Examples", "Annotations and Comments", "Traversing Dice Results"), byte for
 * byte, with the dice the README shows supplied as results. */
Test(dice_text, reproduces_avraes_readme_byte_for_byte)
{
    /* Quickstart: roll("1d20+5") -> '1d20 (10) + 5 = `15`' */
    text_is("1d20+5", (int[]){10}, 1, "1d20 (10) + 5 = `15`");
    /* Examples: roll("4d6kh3") -> '4d6kh3 (4, 4, **6**, ~~3~~) = `14`' */
    text_is("4d6kh3", (int[]){4, 4, 6, 3}, 4, "4d6kh3 (4, 4, **6**, ~~3~~) = `14`");
    /* Examples: roll("2d6ro<3") -> '2d6ro<3 (**~~1~~**, 3, **6**) = `9`' */
    text_is("2d6ro<3", (int[]){1, 3, 6}, 3, "2d6ro<3 (**~~1~~**, 3, **6**) = `9`");
    /* Examples: roll("8d6mi2") -> '8d6mi2 (1 -> 2, **6**, 4, 2, **6**, 2, 5, **6**) = `33`' */
    text_is("8d6mi2", (int[]){1, 6, 4, 2, 6, 2, 5, 6}, 8,
            "8d6mi2 (1 -> 2, **6**, 4, 2, **6**, 2, 5, **6**) = `33`");
    /* Annotations: roll("3d6 [fire] + 1d4 [piercing]") ->
     * '3d6 (3, 2, 2) [fire] + 1d4 (3) [piercing] = `10`' */
    text_is("3d6 [fire] + 1d4 [piercing]", (int[]){3, 2, 2, 3}, 4,
            "3d6 (3, 2, 2) [fire] + 1d4 (3) [piercing] = `10`");
    /* Traversing: roll("3d6 + 1d4 + 3") -> '3d6 (4, **6**, **6**) + 1d4 (**1**) + 3 = `20`' */
    text_is("3d6 + 1d4 + 3", (int[]){4, 6, 6, 1}, 4,
            "3d6 (4, **6**, **6**) + 1d4 (**1**) + 3 = `20`");
}

/* Avrae's rules where its README shows no example: an exploded draw ends in '!' (d20/
 * stringifiers.py, _str_literal) and its new die comes after the term's dice (models.py,
 * Dice.roll_another); a reroll-while strikes every replaced draw; a dropped die is struck as a
 * whole; natural 20s and 1s are bold like every top face and 1. */
Test(dice_text, shows_explosions_rerolls_drops_and_natural_twenties)
{
    text_is("3d6e6", (int[]){6, 2, 6, 3, 1}, 5, "3d6e6 (**6!**, 2, **6!**, 3, **1**) = `18`");
    text_is("1d4!", (int[]){4, 4, 2}, 3, "1d4! (**4!**, **4!**, 2) = `10`");
    text_is("1d6rr1", (int[]){1, 1, 5}, 3, "1d6rr1 (**~~1~~**, **~~1~~**, 5) = `5`");
    text_is("2d20kh1+5", (int[]){20, 1}, 2, "2d20kh1 (**20**, ~~**1**~~) + 5 = `25`");
    text_is("2d6ro1kl1", (int[]){1, 4, 6}, 3, "2d6ro1kl1 (**~~1~~**, 4, ~~**6**~~) = `4`");
    text_is("3d6{+2}", (int[]){1, 5, 6}, 3, "3d6{+2} (**1**, 5, **6**) = `18`");
    text_is("-1d8+4", (int[]){8}, 1, "-1d8 (**8**) + 4 = `-4`");
    text_is("4D6KH3", (int[]){4, 4, 6, 3}, 4, "4d6kh3 (4, 4, **6**, ~~3~~) = `14`");
}

/* Numbers as printf's "%d" and "%+d" write them (the text writes its digits by hand): a minus
 * sign, several digits, zero, and a per-die modifier's sign either way. */
Test(dice_text, writes_numbers_as_printf_does)
{
    text_is("1d4-10", (int[]){3}, 1, "1d4 (3) - 10 = `-7`");
    text_is("2d6{-1}", (int[]){1, 6}, 2, "2d6{-1} (**1**, **6**) = `5`");
    text_is("1d100+120", (int[]){100}, 1, "1d100 (**100**) + 120 = `220`");
    text_is("1d10{+10}-20", (int[]){10}, 1, "1d10{+10} (**10**) - 20 = `0`");
    text_is("1d20mi10-1", (int[]){1}, 1, "1d20mi10 (1 -> 10) - 1 = `9`");
}

Test(dice_text, measures_like_snprintf)
{
    struct rules_dice_expr e;
    parse_ok("1d20+5", &e);
    struct rules_dice d;
    rules_dice_from_supplied(&d, (int[]){10}, 1);
    struct rules_roll *r = malloc(sizeof *r);
    cr_assert_eq(rules_dice_roll(&e, &d, r), RULES_DICE_OK);
    char small[6];
    cr_assert_eq(rules_dice_text("1d20+5", &e, r, NULL, 0), strlen("1d20 (10) + 5 = `15`"));
    rules_dice_text("1d20+5", &e, r, small, sizeof small);
    cr_assert_str_eq(small, "1d20 ");
    free(r);
}

/* Bounds: a reroll-while stops after RULES_DICE_MAX_REROLLS rerolls and keeps the last face;
 * an explosion stops RULES_DICE_EXPLODE_DEPTH dice deep. */
Test(dice_roll, rerolls_and_explosions_stop_at_their_caps)
{
    int ones[1 + RULES_DICE_MAX_REROLLS];
    for (int i = 0; i <= RULES_DICE_MAX_REROLLS; i++)
        ones[i] = 1;
    struct rules_dice_expr e;
    parse_ok("1d6rr1", &e);
    struct rules_dice d;
    rules_dice_from_supplied(&d, ones, 1 + RULES_DICE_MAX_REROLLS);
    struct rules_roll *r = malloc(sizeof *r);
    cr_assert_eq(rules_dice_roll(&e, &d, r), RULES_DICE_OK);
    cr_assert(rules_dice_all_used(&d));
    cr_assert_eq(r->total, 1);
    cr_assert_eq(r->dice_count, 1 + RULES_DICE_MAX_REROLLS);
    int twos[1 + RULES_DICE_EXPLODE_DEPTH];
    for (int i = 0; i <= RULES_DICE_EXPLODE_DEPTH; i++)
        twos[i] = 2;
    parse_ok("1d2e2", &e);
    rules_dice_from_supplied(&d, twos, 1 + RULES_DICE_EXPLODE_DEPTH);
    cr_assert_eq(rules_dice_roll(&e, &d, r), RULES_DICE_OK);
    cr_assert(rules_dice_all_used(&d));
    cr_assert_eq(r->total, 2 * (1 + RULES_DICE_EXPLODE_DEPTH));
    cr_assert(!r->dice[RULES_DICE_EXPLODE_DEPTH].exploded);
    int lo = 0, hi = 0;
    rules_dice_range(&e, &lo, &hi);
    cr_assert_eq(lo, 1);
    cr_assert_eq(hi, 2 * (1 + RULES_DICE_EXPLODE_DEPTH));
    parse_ok("4d6mi3ma5{+1}", &e);
    rules_dice_range(&e, &lo, &hi);
    cr_assert_eq(lo, 16);
    cr_assert_eq(hi, 24);
    free(r);
}

static int parse_said(const char *text, struct rules_dice_expr *e, size_t *at)
{
    size_t len = 0;
    return rules_dice_parse_said(text, e, at, &len);
}

/* Issue 31: "1d20+5 adv" rolls the d20 twice and keeps the higher (Avrae's 2d20kh1), "dis"
 * the lower, and the roll's text shows the kept die and the struck one. */
Test(dice_said, adv_and_dis_roll_the_d20_twice_keeping_the_higher_or_the_lower)
{
    struct rules_dice_expr e;
    size_t at = 99;
    cr_assert_eq(parse_said("1d20+5 adv", &e, &at), RULES_DICE_OK);
    cr_assert_eq(e.advantage, RULES_ADV_ADVANTAGE);
    cr_assert_eq(e.terms[0].count, 2);
    cr_assert_eq(e.terms[0].keep, RULES_KEEP_HIGHEST);
    cr_assert_eq(e.terms[0].keep_n, 1);
    cr_assert_eq(e.dice_count, 2);
    struct rules_dice d;
    struct rules_roll *r = malloc(sizeof *r);
    rules_dice_from_supplied(&d, (int[]){4, 17}, 2);
    cr_assert_eq(rules_dice_roll(&e, &d, r), RULES_DICE_OK);
    cr_assert(rules_dice_all_used(&d));
    cr_assert_eq(r->total, 22); /* 17 kept, + 5 */
    char buf[256];
    rules_dice_text("1d20+5 adv", &e, r, buf, sizeof buf);
    cr_assert_str_eq(buf, "2d20kh1 (~~4~~, 17) + 5 = `22`");

    cr_assert_eq(parse_said("1d20+5 DIS", &e, &at), RULES_DICE_OK);
    cr_assert_eq(e.advantage, RULES_ADV_DISADVANTAGE);
    rules_dice_from_supplied(&d, (int[]){4, 17}, 2);
    cr_assert_eq(rules_dice_roll(&e, &d, r), RULES_DICE_OK);
    cr_assert_eq(r->total, 9); /* 4 kept, + 5 */
    rules_dice_text("1d20+5 DIS", &e, r, buf, sizeof buf);
    cr_assert_str_eq(buf, "2d20kl1 (4, ~~17~~) + 5 = `9`");
    int min = 0, max = 0;
    rules_dice_range(&e, &min, &max);
    cr_assert_eq(min, 6);
    cr_assert_eq(max, 25);
    /* The first plain 1d20 only: a d6 before it is left alone. */
    cr_assert_eq(parse_said("1d6 + 1d20 adv", &e, &at), RULES_DICE_OK);
    cr_assert_eq(e.terms[0].count, 1);
    cr_assert_eq(e.terms[1].count, 2);
    cr_assert_eq(e.advantage_term, 1);
    free(r);
}

Test(dice_said, trailing_words_are_a_comment_echoed_and_not_counted)
{
    struct rules_dice_expr e;
    size_t at = 99;
    const char *text = "8d6 fire";
    cr_assert_eq(parse_said(text, &e, &at), RULES_DICE_OK);
    cr_assert_eq(e.term_count, 1);
    cr_assert_eq(e.dice_count, 8);
    cr_assert_eq(e.advantage, RULES_ADV_NONE);
    cr_assert_eq(e.comment_len, 4);
    cr_assert_eq(strncmp(text + e.comment_at, "fire", 4), 0);
    text = "1d20+5 adv  to hit the gnoll  ";
    cr_assert_eq(parse_said(text, &e, &at), RULES_DICE_OK);
    cr_assert_eq(e.advantage, RULES_ADV_ADVANTAGE);
    cr_assert_eq(e.comment_len, strlen("to hit the gnoll"));
    cr_assert_eq(strncmp(text + e.comment_at, "to hit the gnoll", e.comment_len), 0);
    /* "advantage" is a comment, not the keyword. */
    cr_assert_eq(parse_said("1d20 advantage", &e, &at), RULES_DICE_OK);
    cr_assert_eq(e.advantage, RULES_ADV_NONE);
    cr_assert_eq(e.terms[0].count, 1);
}

Test(dice_said, words_must_be_set_apart_and_adv_needs_a_plain_d20)
{
    struct rules_dice_expr e;
    size_t at = 99;
    cr_assert_eq(parse_said("1d20x", &e, &at), RULES_DICE_ERR_SYNTAX);
    cr_assert_eq(at, 4);
    cr_assert_eq(parse_said("1d20 * 2", &e, &at), RULES_DICE_ERR_UNSUPPORTED);
    cr_assert_eq(parse_said("1d20 2", &e, &at), RULES_DICE_ERR_SYNTAX);
    cr_assert_eq(parse_said("8d6 adv", &e, &at), RULES_DICE_ERR_ADVANTAGE);
    cr_assert_eq(at, 4);
    cr_assert_eq(parse_said("2d20kh1 adv", &e, &at), RULES_DICE_ERR_ADVANTAGE);
    cr_assert_eq(parse_said("1d20 fire\x01", &e, &at), RULES_DICE_ERR_COMMENT);
    cr_assert_eq(at, 9);
    /* The strict parser (damage, impacts) still refuses every word. */
    cr_assert_eq(rules_dice_parse("8d6 fire", &e, &at), RULES_DICE_ERR_SYNTAX);
    cr_assert_eq(rules_dice_parse("1d20 adv", &e, &at), RULES_DICE_ERR_SYNTAX);
}
