/* The attack roll (rules/attack_roll.h), with supplied results so every die is exact. Critical
 * hits come from the d20 3.5 SRD (Combat: Automatic Misses and Hits; Combat: Critical Hits);
 * cover and concealment from 002. */
#include <criterion/criterion.h>
#include <string.h>

#include "rules/attack/roll.h"

/* An attack at +5 against AC 16, evaluated; sneak attack off. */
static struct rules_attack_eval plain_attack(void)
{
    struct rules_attack_eval ev;
    memset(&ev, 0, sizeof ev);
    ev.attack_total = 5;
    ev.target_number = 16;
    ev.target_without_cover = 16;
    return ev;
}

static struct rules_attack_roll_params crits_on(void)
{
    return (struct rules_attack_roll_params){.critical_hits = true,
                                             .crit_range = RULES_CRIT_RANGE_DEFAULT,
                                             .crit_multiplier = RULES_CRIT_MULTIPLIER_DEFAULT};
}

static struct rules_dice_expr parse(const char *text)
{
    struct rules_dice_expr e;
    size_t at = 0;
    cr_assert_eq(rules_dice_parse(text, &e, &at), RULES_DICE_OK);
    return e;
}

/* Large (a whole rules_roll inside): one per test, off the stack. */
static struct rules_attack_rolled out;

static int roll(const struct rules_attack_eval *ev, const struct rules_attack_roll_params *p,
                const char *damage, const int *results, size_t count)
{
    struct rules_dice d;
    rules_dice_from_supplied(&d, results, count);
    struct rules_dice_expr e;
    if (damage != NULL)
        e = parse(damage);
    return rules_attack_roll(ev, p, damage ? &e : NULL, &d, &out);
}

/* "A natural 20 (the d20 comes up 20) is always a hit." (d20 3.5 SRD, Combat: Automatic
 * Misses and Hits) Against AC 60 a +5 attack needs 55; the 20 hits all the same, is a threat,
 * and the confirmation (a natural 1) misses: a normal hit. */
Test(attack_roll, natural_20_hits_an_impossible_ac)
{
    struct rules_attack_eval ev = plain_attack();
    ev.target_number = ev.target_without_cover = 60;
    struct rules_attack_roll_params p = crits_on();
    const int results[] = {20, 1, 4};
    cr_assert_eq(roll(&ev, &p, "1d6+1", results, 3), RULES_ATTACK_ROLL_OK);
    cr_assert_eq(out.natural, RULES_NATURAL_HIT);
    cr_assert(out.hit && out.lands && out.threat && out.confirm_rolled);
    cr_assert_eq(out.confirm_natural, RULES_NATURAL_MISS);
    cr_assert(!out.confirmed && !out.critical);
    cr_assert_eq(out.weapon_rolls, 1);
    cr_assert_eq(out.dealt, 5);
    /* Without the option the same 20 is 25 against 60: a miss, and nothing more is drawn. */
    p.critical_hits = false;
    cr_assert_eq(roll(&ev, &p, "1d6+1", results, 1), RULES_ATTACK_ROLL_OK);
    cr_assert(!out.hit && !out.threat && !out.damage_rolled);
    cr_assert_eq(out.natural, RULES_NATURAL_NONE);
}

/* "A natural 1 (the d20 comes up 1) on an attack roll is always a miss." (d20 3.5 SRD, Combat:
 * Automatic Misses and Hits) At +30 against AC 16 the 1 totals 31, and misses; it strikes no
 * cover either, being a miss whatever the total. */
Test(attack_roll, natural_1_misses)
{
    struct rules_attack_eval ev = plain_attack();
    ev.attack_total = 30;
    ev.cover = RULES_COVER_HALF;
    ev.target_without_cover = 12;
    struct rules_attack_roll_params p = crits_on();
    const int results[] = {1};
    cr_assert_eq(roll(&ev, &p, "1d6", results, 1), RULES_ATTACK_ROLL_OK);
    cr_assert_eq(out.total, 31);
    cr_assert_eq(out.natural, RULES_NATURAL_MISS);
    cr_assert(!out.hit && !out.lands && !out.cover_struck && !out.damage_rolled);
    cr_assert_eq(out.struck, RULES_STRUCK_NONE);
    /* The option off: 31 against 16 hits. */
    p.critical_hits = false;
    const int off[] = {1, 3};
    cr_assert_eq(roll(&ev, &p, "1d6", off, 2), RULES_ATTACK_ROLL_OK);
    cr_assert(out.hit && out.damage_rolled);
}

/* "Sometimes your threat range is greater than 20. That is, you can score a threat on a lower
 * number." and "To find out if it's a critical hit, you immediately make an attempt to
 * 'confirm' the critical hit - another attack roll with all the same modifiers as the attack
 * roll you just made. If the confirmation roll also results in a hit against the target's AC,
 * your original hit is a critical hit." (d20 3.5 SRD, Combat: Critical Hits) With crit_range
 * 19, a 19 (24 against 16) threatens; 12 (17) confirms, 2 (7) does not. */
Test(attack_roll, threat_on_19_confirmed_and_not)
{
    struct rules_attack_eval ev = plain_attack();
    struct rules_attack_roll_params p = crits_on();
    p.crit_range = 19;
    const int confirmed[] = {19, 12, 5, 6};
    cr_assert_eq(roll(&ev, &p, "1d8+2", confirmed, 4), RULES_ATTACK_ROLL_OK);
    cr_assert(out.threat && out.confirm_rolled && out.confirmed && out.critical);
    cr_assert_eq(out.confirm_d20, 12);
    cr_assert_eq(out.confirm_total, 17);
    cr_assert_eq(out.weapon_rolls, 2);
    cr_assert_eq(out.damage.total, (5 + 2) + (6 + 2));

    const int not_confirmed[] = {19, 2, 5};
    cr_assert_eq(roll(&ev, &p, "1d8+2", not_confirmed, 3), RULES_ATTACK_ROLL_OK);
    cr_assert(out.threat && out.confirm_rolled && !out.confirmed && !out.critical);
    cr_assert(out.lands);
    cr_assert_eq(out.weapon_rolls, 1);
    cr_assert_eq(out.dealt, 7);

    /* "a roll of lower than 20 is not an automatic hit. Any attack roll that doesn't result in
     * a hit is not a threat." Against AC 25 the 19 (24) misses: no confirmation is drawn. */
    ev.target_number = ev.target_without_cover = 25;
    const int miss[] = {19};
    cr_assert_eq(roll(&ev, &p, "1d8+2", miss, 1), RULES_ATTACK_ROLL_OK);
    cr_assert(!out.hit && !out.threat && !out.confirm_rolled);
    /* And with the default range a 19 is no threat. */
    ev = plain_attack();
    p.crit_range = 20;
    const int plain19[] = {19, 5};
    cr_assert_eq(roll(&ev, &p, "1d8+2", plain19, 2), RULES_ATTACK_ROLL_OK);
    cr_assert(out.hit && !out.threat);
}

/* "A critical hit means that you roll your damage more than once, with all your usual bonuses,
 * and add the rolls together." and "Exception: Extra damage over and above a weapon's normal
 * damage is not multiplied when you score a critical hit." (d20 3.5 SRD, Combat: Critical
 * Hits); the Rogue's Sneak Attack: "Should the rogue score a critical hit with a sneak
 * attack, this extra damage is not multiplied." At x3, 1d6+1 is rolled three times (dice and
 * the +1), the 2d6 of sneak attack once, after them. */
Test(attack_roll, critical_multiplies_weapon_dice_and_bonus_not_sneak_dice)
{
    struct rules_attack_eval ev = plain_attack();
    ev.sneak_attack = true;
    struct rules_attack_roll_params p = crits_on();
    p.crit_multiplier = 3;
    p.sneak_dice = 2;
    const int results[] = {20, 15, 1, 2, 3, 4, 5};
    cr_assert_eq(roll(&ev, &p, "1d6+1", results, 7), RULES_ATTACK_ROLL_OK);
    cr_assert(out.critical);
    cr_assert_eq(out.weapon_rolls, 3);
    cr_assert_eq(out.sneak_dice, 2);
    cr_assert_eq(out.damage_expr.term_count, 3 * 2 + 1);
    cr_assert_eq(out.damage_expr.dice_count, 3 + 2);
    cr_assert_eq(out.damage.total, (1 + 1) + (2 + 1) + (3 + 1) + (4 + 5));
    /* The sneak attack's d6s are the last term, drawn last. */
    cr_assert_eq(out.damage.term_totals[6], 4 + 5);
}

/* Damage reduction comes off the multiplied total, once: (1d8+2) x2 with 5 and 6 is 15, less
 * DR 5 is 10. 002's covering creature gets the weapon's damage, no DR of its own known. */
Test(attack_roll, damage_reduction_applies_after_the_multiplication)
{
    struct rules_attack_eval ev = plain_attack();
    struct rules_attack_roll_params p = crits_on();
    p.damage_reduction = 5;
    const int results[] = {20, 16, 5, 6};
    cr_assert_eq(roll(&ev, &p, "1d8+2", results, 4), RULES_ATTACK_ROLL_OK);
    cr_assert(out.critical);
    cr_assert_eq(out.damage.total, 15);
    cr_assert_eq(out.damage_reduction, 5);
    cr_assert_eq(out.dealt, 10);
    p.damage_reduction = 40;
    cr_assert_eq(roll(&ev, &p, "1d8+2", results, 4), RULES_ATTACK_ROLL_OK);
    cr_assert_eq(out.dealt, 0); /* never below 0 */
}

/* 002 Concealment: "If the attacker hits, the defender must make a miss chance percentile
 * roll"; the confirmation d20 comes first, right after the threat, then the percentile. A
 * confirmed threat lost to concealment deals nothing and is no critical hit. */
Test(attack_roll, dice_order_d20_confirmation_percentile_damage)
{
    struct rules_attack_eval ev = plain_attack();
    ev.miss_chance = 20;
    struct rules_attack_roll_params p = crits_on();
    const int lost[] = {20, 18, 7};
    cr_assert_eq(roll(&ev, &p, "1d6", lost, 3), RULES_ATTACK_ROLL_OK);
    cr_assert(out.confirmed && out.pct_rolled && out.missed && !out.lands && !out.critical);
    cr_assert(!out.damage_rolled);
    const int landed[] = {20, 18, 77, 2, 3};
    cr_assert_eq(roll(&ev, &p, "1d6", landed, 5), RULES_ATTACK_ROLL_OK);
    cr_assert_eq(out.pct, 77);
    cr_assert(out.critical);
    cr_assert_eq(out.damage.total, 5);
    /* Too few results: the status names the die that was missing. */
    cr_assert_eq(roll(&ev, &p, "1d6", landed, 1), RULES_ATTACK_ROLL_ERR_CONFIRMATION);
    cr_assert_eq(roll(&ev, &p, "1d6", landed, 2), RULES_ATTACK_ROLL_ERR_PERCENTILE);
    cr_assert_eq(roll(&ev, &p, "1d6", landed, 4), RULES_ATTACK_ROLL_ERR_DAMAGE);
    const int extra[] = {20, 18, 77, 2, 3, 4};
    cr_assert_eq(roll(&ev, &p, "1d6", extra, 6), RULES_ATTACK_ROLL_ERR_LEFTOVER);
    cr_assert_eq(roll(&ev, &p, "1d6", landed, 0), RULES_ATTACK_ROLL_ERR_D20); /* none */
}

/* 002 Striking the Cover Instead of a Missed Target: between the AC with and without cover
 * the cover is struck; a covering creature hit takes the damage, one whose Dexterity or dodge
 * kept it from being hit has "dodged out of the way" and the target is hit instead. */
Test(attack_roll, cover_struck_and_covering_creature)
{
    struct rules_attack_eval ev = plain_attack();
    ev.cover = RULES_COVER_HALF;
    ev.target_number = 20;
    ev.target_without_cover = 16;
    struct rules_attack_roll_params p = crits_on();
    const int results[] = {12, 4}; /* 17: misses 20, would hit 16 */
    cr_assert_eq(roll(&ev, &p, "1d6", results, 1), RULES_ATTACK_ROLL_OK);
    cr_assert(out.cover_struck && !out.hit);
    cr_assert_eq(out.struck, RULES_STRUCK_COVER);
    struct rules_cover_creature cc = {.ac = 15, .dex_and_dodge = 3, .applies_dex_and_dodge = true};
    p.cover_creature = &cc;
    cr_assert_eq(roll(&ev, &p, "1d6", results, 2), RULES_ATTACK_ROLL_OK);
    cr_assert_eq(out.struck, RULES_STRUCK_COVER_CREATURE);
    cr_assert(out.damage_rolled && !out.lands);
    cr_assert_eq(out.damage_reduction, 0);
    cc.ac = 19; /* 17 misses 19 only thanks to its +3: it dodged, the target is hit */
    cr_assert_eq(roll(&ev, &p, "1d6", results, 2), RULES_ATTACK_ROLL_OK);
    cr_assert_eq(out.struck, RULES_STRUCK_DEFENDER);
    cr_assert(out.hit && out.lands);
}

/* The limits of rules/dice.h hold for the multiplied damage, checked before any die: the
 * status never depends on the roll. Bounds of the attacker's figures are checked too. */
Test(attack_roll, multiplied_damage_within_the_dice_limits)
{
    struct rules_attack_eval ev = plain_attack();
    struct rules_attack_roll_params p = crits_on();
    p.crit_multiplier = 3;
    const int results[] = {2};
    cr_assert_eq(roll(&ev, &p, "400d6", results, 1), RULES_ATTACK_ROLL_ERR_TOO_LARGE);
    p.crit_multiplier = 2;
    cr_assert_eq(roll(&ev, &p, "400d6", results, 1), RULES_ATTACK_ROLL_OK);
    p.crit_multiplier = RULES_CRIT_MULTIPLIER_MAX + 1;
    cr_assert_eq(roll(&ev, &p, "1d6", results, 1), RULES_ATTACK_ROLL_ERR_PARAMS);
    p.crit_multiplier = 2;
    p.crit_range = 1;
    cr_assert_eq(roll(&ev, &p, "1d6", results, 1), RULES_ATTACK_ROLL_ERR_PARAMS);
}
