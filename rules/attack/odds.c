/* The odds of one attack (odds.h): every outcome /v1/attacks/resolve can rule, exactly.
 *
 * The attack's own randomness is three independent rolls: the d20, the concealment percentile
 * (rolled only when the d20 hits) and, with critical hits that need confirming, a second d20.
 * So every chance below is a count out of 20 x 100 x 20 = 40,000 equally likely triples, kept
 * in integers and divided once. The damage is a mixture of three distributions: nothing (the
 * attack does not land), a normal hit, a critical hit. Each hit's damage is the weapon's dice,
 * plus sneak attack's d6s when eligible, minus damage reduction, clamped at 0 as /resolve
 * clamps it. */
#include <stdlib.h>
#include <string.h>

#include "rules/attack/odds.h"

#define D20_FACES 20
#define PCT_FACES 100
#define OUTCOMES  (D20_FACES * PCT_FACES * D20_FACES)

/* Whether a d20 showing `face` with `total` reaches `target` (natural 1 and 20 when on). */
static bool reaches(const struct rules_attack_odds_in *in, int face, int total, int target)
{
    if (in->natural_1_and_20 && face == 1)
        return false;
    if (in->natural_1_and_20 && face == 20)
        return true;
    return total >= target;
}

/* What one face of the d20 does, as /resolve's roll rules it (002 Striking the Cover Instead of
 * a Missed Target; the covering creature's "dodged out of the way" hits the target). */
struct face_ruling {
    bool hit;            /* reaches the defender, before concealment */
    bool cover_struck;   /* the blow goes to the cover (object or creature) */
    bool cover_creature; /* ... and the covering creature takes it */
};

static struct face_ruling rule_face(const struct rules_attack_odds_in *in, int face)
{
    struct face_ruling r = {false, false, false};
    int total = face + in->attack_total;
    r.hit = reaches(in, face, total, in->target_number);
    if (r.hit || in->cover == RULES_COVER_NONE || total < in->target_without_cover)
        return r;
    r.cover_struck = true;
    if (in->has_cover_creature) {
        int ac = in->cover_ac - (in->cover_applies_dex_dodge ? 0 : in->cover_dex_dodge);
        if (total >= ac) {
            r.cover_creature = true;
        } else if (total >= in->cover_ac - in->cover_dex_dodge) {
            r.cover_struck = false; /* dodged: the defender is hit */
            r.hit = true;
        }
    }
    return r;
}

/* max(0, x - dr) for every x of d: the mass at or below dr collects at 0. */
static int clamp_after_reduction(const struct rules_dist *d, int dr, struct rules_dist *out)
{
    int lo = d->min - dr, hi = d->min + d->len - 1 - dr;
    int min = lo > 0 ? lo : 0, max = hi > 0 ? hi : 0;
    out->p = calloc((size_t)(max - min + 1), sizeof *out->p);
    if (out->p == NULL)
        return RULES_ODDS_ERR_NOMEM;
    out->min = min;
    out->len = max - min + 1;
    for (int i = 0; i < d->len; i++) {
        int x = d->min + i - dr;
        out->p[(x > 0 ? x : 0) - min] += d->p[i];
    }
    return RULES_ODDS_OK;
}

/* The damage of a hit on the defender: `copies` rolls of the weapon, plus sneak, minus DR. */
static int hit_damage(const struct rules_dist *weapon, const struct rules_dist *sneak, int copies,
                      int dr, struct rules_odds_budget *b, struct rules_dist *out)
{
    struct rules_dist acc = {0, 0, NULL};
    int rc = RULES_ODDS_OK;
    acc.p = malloc(sizeof *acc.p);
    if (acc.p == NULL)
        return RULES_ODDS_ERR_NOMEM;
    acc.len = 1, acc.p[0] = 1.0;
    for (int i = 0; i < copies + 1 && rc == RULES_ODDS_OK; i++) {
        const struct rules_dist *add = i < copies ? weapon : sneak;
        struct rules_dist next;
        rc = rules_dist_convolve(&acc, add, b, &next);
        if (rc == RULES_ODDS_OK) {
            rules_dist_free(&acc);
            acc = next;
        }
    }
    if (rc == RULES_ODDS_OK)
        rc = clamp_after_reduction(&acc, dr, out);
    rules_dist_free(&acc);
    return rc;
}

/* out = sum of w[i] d[i] over the n distributions (any may have weight 0). */
static int mixture(const struct rules_dist *const *d, const double *w, int n,
                   struct rules_dist *out)
{
    int min = 0, max = 0;
    bool any = false;
    for (int i = 0; i < n; i++) {
        if (w[i] == 0.0)
            continue;
        int hi = d[i]->min + d[i]->len - 1;
        min = !any || d[i]->min < min ? d[i]->min : min;
        max = !any || hi > max ? hi : max;
        any = true;
    }
    out->p = calloc((size_t)(max - min + 1), sizeof *out->p);
    if (out->p == NULL)
        return RULES_ODDS_ERR_NOMEM;
    out->min = min;
    out->len = max - min + 1;
    for (int i = 0; i < n; i++)
        for (int k = 0; w[i] != 0.0 && k < d[i]->len; k++)
            out->p[d[i]->min + k - min] += w[i] * d[i]->p[k];
    return RULES_ODDS_OK;
}

int rules_attack_odds(const struct rules_attack_odds_in *in, struct rules_odds_budget *b,
                      struct rules_attack_odds *out)
{
    memset(out, 0, sizeof *out);
    bool crits = in->crit.threat_min <= 20;
    if (in->miss_chance < 0 || in->miss_chance > 100 || in->sneak_dice < 0 ||
        in->damage_reduction < 0 ||
        (crits && (in->crit.threat_min < 2 || in->crit.multiplier < 2 || in->crit.multiplier > 10)))
        return RULES_ODDS_ERR_INVALID;

    /* Confirmation faces out of 20 (all of them when no confirmation is needed). */
    int confirming = D20_FACES;
    if (crits && in->crit.confirm) {
        confirming = 0;
        for (int e = 1; e <= D20_FACES; e++)
            confirming +=
                reaches(in, e, e + in->attack_total + in->crit.confirm_bonus, in->target_number);
    }
    long long hit = 0, lands = 0, critical = 0, cover = 0, creature = 0;
    int stays = PCT_FACES - in->miss_chance; /* percentiles that keep a hit */
    for (int face = 1; face <= D20_FACES; face++) {
        struct face_ruling r = rule_face(in, face);
        hit += r.hit ? PCT_FACES * D20_FACES : 0;
        lands += r.hit ? (long long)stays * D20_FACES : 0;
        critical +=
            r.hit && crits && face >= in->crit.threat_min ? (long long)stays * confirming : 0;
        cover += r.cover_struck ? PCT_FACES * D20_FACES : 0;
        creature += r.cover_creature ? PCT_FACES * D20_FACES : 0;
    }
    out->hit = (double)hit / OUTCOMES;
    out->lands = (double)lands / OUTCOMES;
    out->concealment_miss = (double)(hit - lands) / OUTCOMES; /* integers: exact */
    out->critical = (double)critical / OUTCOMES;
    out->cover_struck = (double)cover / OUTCOMES;
    out->cover_creature = (double)creature / OUTCOMES;
    out->sneak_attack = in->sneak_dice > 0 ? out->lands : 0.0;

    /* The damage on the defender: none / a normal hit / a critical hit. */
    struct rules_dist zero = {0, 1, (double[]){1.0}};
    struct rules_dist weapon = {0, 1, NULL}, sneak = {0, 1, NULL}, normal = {0, 0, NULL},
                      crit = {0, 0, NULL};
    int rc = RULES_ODDS_OK;
    if (in->damage == NULL) {
        out->damage.p = malloc(sizeof *out->damage.p);
        if (out->damage.p == NULL)
            return RULES_ODDS_ERR_NOMEM;
        out->damage.len = 1, out->damage.p[0] = 1.0;
        return RULES_ODDS_OK;
    }
    rc = rules_dist_of_expr(in->damage, b, &weapon);
    if (rc == RULES_ODDS_OK) {
        struct rules_dice_expr d6s = {.term_count = 1, .dice_count = in->sneak_dice};
        d6s.terms[0] = (struct rules_dice_term){.sign = 1, .count = in->sneak_dice, .sides = 6};
        if (in->sneak_dice == 0)
            d6s.term_count = 0; /* the empty sum: a point mass at 0 */
        rc = rules_dist_of_expr(&d6s, b, &sneak);
    }
    if (rc == RULES_ODDS_OK)
        rc = hit_damage(&weapon, &sneak, 1, in->damage_reduction, b, &normal);
    if (rc == RULES_ODDS_OK && critical > 0)
        rc = hit_damage(&weapon, &sneak, in->crit.multiplier, in->damage_reduction, b, &crit);
    if (rc == RULES_ODDS_OK) {
        const struct rules_dist *parts[3] = {&zero, &normal, &crit};
        double w[3] = {(double)(OUTCOMES - lands) / OUTCOMES, (double)(lands - critical) / OUTCOMES,
                       (double)critical / OUTCOMES};
        rc = mixture(parts, w, 3, &out->damage);
    }
    if (rc == RULES_ODDS_OK) {
        out->expected_damage = rules_dist_mean(&out->damage);
        if (lands > 0)
            out->expected_on_landing =
                ((double)(lands - critical) * rules_dist_mean(&normal) +
                 (critical > 0 ? (double)critical * rules_dist_mean(&crit) : 0.0)) /
                (double)lands;
    }
    rules_dist_free(&weapon);
    rules_dist_free(&sneak);
    rules_dist_free(&normal);
    rules_dist_free(&crit);
    return rc;
}
