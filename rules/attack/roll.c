#include "rules/attack/roll.h"

#include <stddef.h>
#include <string.h>

/* The damage expression actually rolled: damage's terms `times` times (d20 3.5 SRD, Combat:
 * Critical Hits: "roll your damage more than once, with all your usual bonuses, and add the
 * rolls together"), then `sneak` d6s once (Critical Hits, Exception: "Extra damage over and
 * above a weapon's normal damage is not multiplied when you score a critical hit"). Returns
 * false when the result would pass the dice limits of rules/dice.h. */
static bool damage_fits(const struct rules_dice_expr *damage, int times, int sneak)
{
    return damage->term_count * times + (sneak > 0) <= RULES_DICE_MAX_TERMS &&
           damage->dice_count * times + sneak <= RULES_DICE_MAX_DICE;
}

static bool build_damage(const struct rules_dice_expr *damage, int times, int sneak,
                         struct rules_dice_expr *out)
{
    if (!damage_fits(damage, times, sneak))
        return false;
    /* Only the terms written are read (term_count): the rest of the 32 are left as they are. */
    out->term_count = out->dice_count = 0;
    out->advantage = RULES_ADV_NONE;
    out->advantage_term = 0;
    out->comment_at = out->comment_len = 0;
    for (int k = 0; k < times; k++)
        for (int t = 0; t < damage->term_count; t++)
            out->terms[out->term_count++] = damage->terms[t];
    out->dice_count = damage->dice_count * times;
    if (sneak > 0) {
        out->terms[out->term_count++] =
            (struct rules_dice_term){.sign = 1, .count = sneak, .sides = 6};
        out->dice_count += sneak;
    }
    return true;
}

/* The natural roll's verdict under the critical_hits option (d20 3.5 SRD, Combat: Automatic
 * Misses and Hits): "A natural 1 (the d20 comes up 1) on an attack roll is always a miss. A
 * natural 20 (the d20 comes up 20) is always a hit." */
static enum rules_natural natural_of(bool critical_hits, int d20)
{
    if (!critical_hits)
        return RULES_NATURAL_NONE;
    return d20 == 20 ? RULES_NATURAL_HIT : d20 == 1 ? RULES_NATURAL_MISS : RULES_NATURAL_NONE;
}

static bool hits(enum rules_natural natural, int total, int target)
{
    if (natural != RULES_NATURAL_NONE)
        return natural == RULES_NATURAL_HIT;
    return total >= target;
}

/* 002 Striking the Cover Instead of a Missed Target: a roll that missed the target with its
 * cover but would have hit it without struck the cover; when the cover is a creature and the
 * roll reaches its Defense, the creature takes the damage, unless its Dexterity or dodge
 * bonus kept it from being hit: then "the original target is hit instead". A natural 1 strikes
 * nothing, as it is "always a miss". */
static void strike_cover(const struct rules_attack_eval *ev, const struct rules_cover_creature *cc,
                         struct rules_attack_rolled *o)
{
    o->cover_struck = o->natural != RULES_NATURAL_MISS && ev->cover != RULES_COVER_NONE &&
                      o->total >= ev->target_without_cover;
    if (!o->cover_struck)
        return;
    o->struck = RULES_STRUCK_COVER;
    if (cc == NULL)
        return;
    int ac = cc->ac - (cc->applies_dex_and_dodge ? 0 : cc->dex_and_dodge);
    if (o->total >= ac) {
        o->struck = RULES_STRUCK_COVER_CREATURE;
    } else if (o->total >= cc->ac - cc->dex_and_dodge) {
        o->struck = RULES_STRUCK_DEFENDER; /* "the covering character has dodged" */
        o->hit = true;
    }
}

int rules_attack_roll(const struct rules_attack_eval *ev, const struct rules_attack_roll_params *p,
                      const struct rules_dice_expr *damage, struct rules_dice *d,
                      struct rules_attack_rolled *out)
{
    /* Zeroed up to the damage: the damage expression and roll are about 100 KB, almost all of
     * it dice slots that are read only as far as the roll fills them (dice_count); zeroing
     * them would be half the instructions of POST /v1/attacks/resolve (bench/README.md). */
    memset(out, 0, offsetof(struct rules_attack_rolled, damage_expr));
    out->damage_expr.term_count = out->damage_expr.dice_count = 0;
    out->damage.dice_count = out->damage.total = 0;
    if (p->critical_hits && (p->crit_range < RULES_CRIT_RANGE_MIN || p->crit_range > 20 ||
                             p->crit_multiplier < RULES_CRIT_MULTIPLIER_MIN ||
                             p->crit_multiplier > RULES_CRIT_MULTIPLIER_MAX))
        return RULES_ATTACK_ROLL_ERR_PARAMS;
    /* The largest damage this attack can roll, checked before any die. */
    int sneak = ev->sneak_attack && p->sneak_dice > 0 ? p->sneak_dice : 0;
    if (damage != NULL && !damage_fits(damage, p->critical_hits ? p->crit_multiplier : 1, sneak))
        return RULES_ATTACK_ROLL_ERR_TOO_LARGE;

    if (rules_dice_draw(d, 20, &out->d20) != RULES_DICE_OK)
        return RULES_ATTACK_ROLL_ERR_D20;
    out->total = out->d20 + ev->attack_total;
    out->natural = natural_of(p->critical_hits, out->d20);
    out->hit = hits(out->natural, out->total, ev->target_number);
    out->struck = out->hit ? RULES_STRUCK_DEFENDER : RULES_STRUCK_NONE;
    if (!out->hit)
        strike_cover(ev, p->cover_creature, out);

    /* d20 3.5 SRD, Combat: Critical Hits: a hit whose natural roll is in the threat range is a
     * threat ("Any attack roll that doesn't result in a hit is not a threat"); "you immediately
     * make an attempt to 'confirm' the critical hit - another attack roll with all the same
     * modifiers", against the same target number. Being an attack roll, its natural 20 and 1
     * decide it too. */
    out->threat = p->critical_hits && out->hit && out->d20 >= p->crit_range;
    if (out->threat) {
        if (rules_dice_draw(d, 20, &out->confirm_d20) != RULES_DICE_OK)
            return RULES_ATTACK_ROLL_ERR_CONFIRMATION;
        out->confirm_rolled = true;
        out->confirm_total = out->confirm_d20 + ev->attack_total;
        out->confirm_natural = natural_of(true, out->confirm_d20);
        out->confirmed = hits(out->confirm_natural, out->confirm_total, ev->target_number);
    }

    /* 002 Concealment: "If the attacker hits, the defender must make a miss chance percentile
     * roll to avoid being struck." */
    out->lands = out->hit;
    if (out->hit && ev->miss_chance > 0) {
        if (rules_dice_draw(d, 100, &out->pct) != RULES_DICE_OK)
            return RULES_ATTACK_ROLL_ERR_PERCENTILE;
        out->pct_rolled = true;
        out->missed = out->pct <= ev->miss_chance;
        if (out->missed) {
            out->lands = false;
            out->struck = RULES_STRUCK_NONE;
        }
    }
    out->critical = out->confirmed && out->lands;

    /* The damage: to the defender when it lands, or to a covering creature, which "takes the
     * damage intended for the target" (002): the weapon's, since sneak attack eligibility was
     * the target's; the covering creature's own damage reduction is not known here. */
    bool to_cover = out->struck == RULES_STRUCK_COVER_CREATURE;
    if (damage != NULL && (out->lands || to_cover)) {
        out->weapon_rolls = out->critical ? p->crit_multiplier : 1;
        out->sneak_dice = out->lands ? sneak : 0;
        if (!build_damage(damage, out->weapon_rolls, out->sneak_dice, &out->damage_expr))
            return RULES_ATTACK_ROLL_ERR_TOO_LARGE; /* not reached: checked above */
        if (rules_dice_roll(&out->damage_expr, d, &out->damage) != RULES_DICE_OK)
            return RULES_ATTACK_ROLL_ERR_DAMAGE;
        out->damage_rolled = true;
        out->damage_reduction = out->lands ? p->damage_reduction : 0;
        out->dealt = out->damage.total - out->damage_reduction;
        if (out->dealt < 0)
            out->dealt = 0;
    }
    if (!rules_dice_all_used(d))
        return RULES_ATTACK_ROLL_ERR_LEFTOVER;
    return RULES_ATTACK_ROLL_OK;
}
