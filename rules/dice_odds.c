/* The exact distribution of a dice expression (odds.h).
 *
 * Every dice term is built from the distribution of ONE of its dice (die_pmf). Today that is
 * uniform on 1..sides; a reroll-once or an explosion to a stated depth changes only die_pmf
 * (a reroll of faces R: f'(v) = f(v) [v not in R] + P(R) f(v); an explosion to depth D: the
 * top face continues into another die, D times, which widens the support past `sides`). The
 * sum of N dice and the keep/drop dynamic programme below take any pmf over positive values,
 * so both slot in without touching them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "odds.h"

void rules_dist_free(struct rules_dist *d)
{
    free(d->p);
    d->p = NULL;
    d->len = 0;
    d->min = 0;
}

static int dist_alloc(struct rules_dist *d, int min, int len)
{
    d->p = calloc((size_t)len, sizeof *d->p);
    if (d->p == NULL)
        return RULES_ODDS_ERR_NOMEM;
    d->min = min;
    d->len = len;
    return RULES_ODDS_OK;
}

static int charge(struct rules_odds_budget *b, long long work)
{
    if (work < 0 || b->used + work > b->limit)
        return RULES_ODDS_ERR_TOO_EXPENSIVE;
    b->used += work;
    return RULES_ODDS_OK;
}

int rules_dist_convolve(const struct rules_dist *a, const struct rules_dist *b,
                        struct rules_odds_budget *budget, struct rules_dist *out)
{
    out->p = NULL;
    int rc = charge(budget, (long long)a->len * b->len);
    if (rc == RULES_ODDS_OK)
        rc = dist_alloc(out, a->min + b->min, a->len + b->len - 1);
    if (rc != RULES_ODDS_OK)
        return rc;
    for (int i = 0; i < a->len; i++) {
        double pa = a->p[i];
        if (pa == 0.0)
            continue;
        double *o = out->p + i;
        for (int j = 0; j < b->len; j++)
            o[j] += pa * b->p[j];
    }
    return RULES_ODDS_OK;
}

/* The pmf of one die of term t, before its per-die modifier: uniform on 1..sides. The one
 * place a reroll or an explosion will change (see the top of this file). */
static int die_pmf(const struct rules_dice_term *t, struct rules_dist *out)
{
    int rc = dist_alloc(out, 1, t->sides);
    if (rc != RULES_ODDS_OK)
        return rc;
    for (int v = 0; v < t->sides; v++)
        out->p[v] = 1.0 / t->sides;
    return RULES_ODDS_OK;
}

/* The sum of n dice of pmf f, by repeated convolution. */
static int sum_of_dice(const struct rules_dist *f, int n, struct rules_odds_budget *b,
                       struct rules_dist *out)
{
    /* Refuse up front rather than after most of the work: step t costs t len x len. */
    long long len = f->len, steps = (long long)n * (n - 1) / 2;
    if (b->used + len * len * steps > b->limit)
        return RULES_ODDS_ERR_TOO_EXPENSIVE;
    struct rules_dist acc = {0, 0, NULL};
    int rc = dist_alloc(&acc, f->min, f->len);
    if (rc != RULES_ODDS_OK)
        return rc;
    memcpy(acc.p, f->p, (size_t)f->len * sizeof *f->p);
    for (int i = 1; i < n; i++) {
        struct rules_dist next;
        rc = rules_dist_convolve(&acc, f, b, &next);
        rules_dist_free(&acc);
        if (rc != RULES_ODDS_OK)
            return rc;
        acc = next;
    }
    *out = acc;
    return RULES_ODDS_OK;
}

/* The sum of the k highest of n dice of pmf f (all values positive), exactly.
 *
 * Order statistics by dynamic programming over face values, from the highest down. Before
 * value x is processed, the state is (j, s): j dice are known to show more than x, all of them
 * kept (j < k), with sum s, and the other n - j show at most x. The chance that c of those
 * n - j show exactly x, given that each shows at most x, is binomial with q = f(x) / F(x) and
 * r = F(x-) / F(x) (F the cumulative pmf; r is a ratio, not 1 - q, so nothing is subtracted).
 * When j + c reaches k the kept sum is settled, s + (k - j) x, whatever the lower dice show,
 * and the mass goes to the answer. States: k x (k max + 1) sums; each value costs at most
 * (n - j + 1) moves a state. 20d6kh10 is 6 values x 10 x 61 x 21: about 80,000 steps. */
static int keep_highest(const struct rules_dist *f, int n, int k, struct rules_odds_budget *b,
                        struct rules_dist *out)
{
    int xmax = f->min + f->len - 1;
    int width = k * xmax + 1; /* sums 0..k xmax */
    long long work = (long long)f->len * k * width * (n + 1);
    int rc = charge(b, work);
    if (rc != RULES_ODDS_OK)
        return rc;
    double *cur = calloc((size_t)k * (size_t)width, sizeof *cur);
    double *nxt = calloc((size_t)k * (size_t)width, sizeof *nxt);
    double *lfact = malloc((size_t)(n + 1) * sizeof *lfact);
    double *cdf = malloc((size_t)f->len * sizeof *cdf);
    double *w = malloc((size_t)(n + 1) * sizeof *w);
    struct rules_dist res = {0, 0, NULL};
    rc = RULES_ODDS_ERR_NOMEM;
    if (cur == NULL || nxt == NULL || lfact == NULL || cdf == NULL || w == NULL ||
        dist_alloc(&res, 0, width) != RULES_ODDS_OK)
        goto out;
    for (int i = 0; i <= n; i++)
        lfact[i] = lgamma((double)i + 1.0);
    double run = 0.0;
    for (int i = 0; i < f->len; i++)
        cdf[i] = run += f->p[i];
    cur[0] = 1.0; /* j = 0, s = 0 */
    for (int i = f->len - 1; i >= 0; i--) {
        if (f->p[i] == 0.0)
            continue;
        int x = f->min + i;
        double below = i > 0 ? cdf[i - 1] : 0.0; /* F(x-): the mass of the faces under x */
        double logq = log(f->p[i] / cdf[i]);
        double logr = below > 0.0 ? log(below / cdf[i]) : -INFINITY;
        memset(nxt, 0, (size_t)k * (size_t)width * sizeof *nxt);
        for (int j = 0; j < k; j++) {
            int m = n - j;
            /* w[c] = C(m, c) q^c r^(m - c); with no faces below x, only c = m. */
            for (int c = 0; c <= m; c++) {
                if (below == 0.0)
                    w[c] = c == m ? 1.0 : 0.0;
                else
                    w[c] = exp(lfact[m] - lfact[c] - lfact[m - c] + c * logq + (m - c) * logr);
            }
            /* The j placed dice show more than x, at most xmax each. */
            int s_lo = j * (x + 1), s_hi = j * xmax;
            double *row = cur + (size_t)j * (size_t)width;
            for (int s = s_lo; s <= s_hi; s++) {
                double mass = row[s];
                if (mass == 0.0)
                    continue;
                for (int c = 0; c <= m; c++) {
                    double pm = mass * w[c];
                    if (j + c >= k)
                        res.p[s + (k - j) * x] += pm;
                    else
                        nxt[(size_t)(j + c) * (size_t)width + (size_t)(s + c * x)] += pm;
                }
            }
        }
        double *t = cur;
        cur = nxt;
        nxt = t;
    }
    /* Trim the sums no kept set can make (below k times the lowest face). */
    int lo = k * f->min;
    memmove(res.p, res.p + lo, (size_t)(width - lo) * sizeof *res.p);
    res.min = lo;
    res.len = width - lo;
    *out = res;
    res.p = NULL;
    rc = RULES_ODDS_OK;
out:
    free(res.p);
    free(cur);
    free(nxt);
    free(lfact);
    free(cdf);
    free(w);
    return rc;
}

/* The distribution of -X from that of X, in place. */
static void negate(struct rules_dist *d)
{
    for (int i = 0, j = d->len - 1; i < j; i++, j--) {
        double t = d->p[i];
        d->p[i] = d->p[j];
        d->p[j] = t;
    }
    d->min = -(d->min + d->len - 1);
}

/* One term's signed contribution. Keep lowest k of faces 1..M is (M + 1) k minus keep
 * highest k of the mirrored faces; drops are keeps of the rest. The per-die modifier adds
 * (kept dice) x per_die. */
static int term_dist(const struct rules_dice_term *t, struct rules_odds_budget *b,
                     struct rules_dist *out)
{
    int rc;
    if (t->sides == 0) {
        rc = dist_alloc(out, t->sign * t->value, 1);
        if (rc == RULES_ODDS_OK)
            out->p[0] = 1.0;
        return rc;
    }
    int kept = t->count;
    bool lowest = false;
    switch (t->keep) {
    case RULES_KEEP_ALL:
        break;
    case RULES_KEEP_HIGHEST:
        kept = t->keep_n;
        break;
    case RULES_DROP_LOWEST:
        kept = t->count - t->keep_n;
        break;
    case RULES_KEEP_LOWEST:
        kept = t->keep_n, lowest = true;
        break;
    case RULES_DROP_HIGHEST:
        kept = t->count - t->keep_n, lowest = true;
        break;
    }
    struct rules_dist f = {0, 0, NULL};
    rc = die_pmf(t, &f);
    if (rc != RULES_ODDS_OK)
        return rc;
    if (kept == t->count) {
        rc = sum_of_dice(&f, t->count, b, out);
    } else {
        /* Mirror the faces for "lowest": value v becomes (lo + hi) - v, still positive. */
        int mirror = 2 * f.min + f.len - 1;
        if (lowest)
            negate(&f), f.min += mirror;
        rc = keep_highest(&f, t->count, kept, b, out);
        if (rc == RULES_ODDS_OK && lowest)
            negate(out), out->min += kept * mirror;
    }
    rules_dist_free(&f);
    if (rc != RULES_ODDS_OK)
        return rc;
    out->min += kept * t->per_die;
    if (t->sign < 0)
        negate(out);
    return RULES_ODDS_OK;
}

int rules_dist_of_expr(const struct rules_dice_expr *expr, struct rules_odds_budget *b,
                       struct rules_dist *out)
{
    struct rules_dist acc = {0, 0, NULL};
    int rc = dist_alloc(&acc, 0, 1);
    if (rc != RULES_ODDS_OK)
        return rc;
    acc.p[0] = 1.0;
    for (int i = 0; i < expr->term_count; i++) {
        struct rules_dist term, next;
        rc = term_dist(&expr->terms[i], b, &term);
        if (rc != RULES_ODDS_OK)
            break;
        rc = rules_dist_convolve(&acc, &term, b, &next);
        rules_dist_free(&term);
        if (rc != RULES_ODDS_OK)
            break;
        rules_dist_free(&acc);
        acc = next;
    }
    if (rc != RULES_ODDS_OK) {
        rules_dist_free(&acc);
        return rc;
    }
    *out = acc;
    return RULES_ODDS_OK;
}

double rules_dist_mean(const struct rules_dist *d)
{
    double m = 0.0;
    for (int i = 0; i < d->len; i++)
        m += d->p[i] * (double)(d->min + i);
    return m;
}

double rules_dist_sd(const struct rules_dist *d)
{
    double m = rules_dist_mean(d), v = 0.0;
    for (int i = 0; i < d->len; i++) {
        double dx = (double)(d->min + i) - m;
        v += d->p[i] * dx * dx;
    }
    return sqrt(v);
}

double rules_dist_at_least(const struct rules_dist *d, int t)
{
    double s = 0.0;
    for (int i = d->len - 1; i >= 0 && d->min + i >= t; i--)
        s += d->p[i];
    return s < 1.0 ? s : 1.0; /* the whole sum can pass 1 by a rounding error */
}
