/* The exact distribution of a dice expression (odds.h).
 *
 * Every dice term is built from the distribution of ONE of its dice (die_pmf): uniform on
 * 1..sides, changed by a reroll-once, a reroll-while (to its cap), mi/ma and an explosion (to
 * its stated depth, which widens the support past `sides`), exactly as rules_dice_roll rolls
 * them. The sum of N dice and the keep/drop dynamic programme below take any pmf over positive
 * values. Dice keep/drop does not meet explosions: the parser refuses the two together. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rules/dice/odds.h"

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

int rules_dist_gauntlet(const struct rules_dist *hits, int n, int stop,
                        struct rules_odds_budget *budget, struct rules_dist *out)
{
    out->p = NULL;
    long long top = 0; /* the largest total reachable */
    for (int i = 0; i < n; i++) {
        if (hits[i].min < 0 || hits[i].len < 1)
            return RULES_ODDS_ERR_INVALID;
        top += hits[i].min + hits[i].len - 1;
    }
    if (top > 100000000)
        return RULES_ODDS_ERR_TOO_EXPENSIVE;
    int rc = dist_alloc(out, 0, (int)top + 1);
    double *next = rc == RULES_ODDS_OK ? calloc((size_t)top + 1, sizeof *next) : NULL;
    if (rc == RULES_ODDS_OK && next == NULL)
        rc = RULES_ODDS_ERR_NOMEM;
    if (rc != RULES_ODDS_OK) {
        rules_dist_free(out);
        return rc == RULES_ODDS_OK ? RULES_ODDS_ERR_NOMEM : rc;
    }
    out->p[0] = 1.0;
    int reach = 0; /* totals 0..reach may have mass */
    for (int i = 0; i < n && rc == RULES_ODDS_OK; i++) {
        const struct rules_dist *h = &hits[i];
        rc = charge(budget, (long long)(reach + 1) * h->len);
        if (rc != RULES_ODDS_OK)
            break;
        memset(next, 0, ((size_t)top + 1) * sizeof *next);
        for (int v = 0; v <= reach; v++) {
            double pv = out->p[v];
            if (pv == 0.0)
                continue;
            if (stop > 0 && v >= stop) { /* dropped: takes no more */
                next[v] += pv;
                continue;
            }
            double *o = next + v + h->min;
            for (int j = 0; j < h->len; j++)
                o[j] += pv * h->p[j];
        }
        reach += h->min + h->len - 1;
        memcpy(out->p, next, ((size_t)top + 1) * sizeof *next);
    }
    free(next);
    if (rc != RULES_ODDS_OK) {
        rules_dist_free(out);
        return rc;
    }
    /* Totals a dropped creature never goes on to take have no mass: trim them. */
    while (out->len > 1 && out->p[out->len - 1] == 0.0)
        out->len--;
    int lead = 0;
    while (lead < out->len - 1 && out->p[lead] == 0.0)
        lead++;
    memmove(out->p, out->p + lead, (size_t)(out->len - lead) * sizeof *out->p);
    out->min += lead;
    out->len -= lead;
    return RULES_ODDS_OK;
}

/* The pmf of one die of term t before any explosion, split in two: ok[v], the chance it ends on
 * v as its rule says, and capped[v], the chance it ends on v because a reroll-while used all
 * its RULES_DICE_MAX_REROLLS rerolls and kept a face that still matched. Both are indexed by
 * v - 1, v in 1..sides.
 *
 * With u uniform and r = u(R) the chance of a face the reroll matches (R):
 *   reroll once:  ok(v) = u(v) [v not in R] + r u(v)      (the reroll lands anywhere)
 *   reroll while: ok(v) = u(v) [v not in R] (1 + r + ... + r^C), capped(v) = u(v) [v in R] r^C
 *                 (the first face outside R among C + 1 draws; else the last draw)
 * then mi/ma move the mass of the faces below mi (above ma) onto mi (ma). Nothing is
 * subtracted: the geometric sum is summed term by term. */
static void die_before_explosion(const struct rules_dice_term *t, double *ok, double *capped)
{
    int n = t->sides;
    double u = 1.0 / n;
    int matched = 0;
    for (int v = 1; v <= n; v++)
        matched += t->reroll != RULES_REROLL_NONE && rules_dice_selects(&t->reroll_on, v);
    double r = (double)matched / n;
    double keep = 1.0, rc = 1.0; /* rc: r^C */
    if (t->reroll == RULES_REROLL_ONCE) {
        keep = 1.0 + r;
    } else if (t->reroll == RULES_REROLL_WHILE) {
        double pow_r = 1.0;
        keep = 0.0;
        for (int j = 0; j <= RULES_DICE_MAX_REROLLS; j++)
            keep += pow_r, pow_r *= r;
        rc = pow(r, RULES_DICE_MAX_REROLLS);
    }
    for (int v = 1; v <= n; v++) {
        bool in_r = t->reroll != RULES_REROLL_NONE && rules_dice_selects(&t->reroll_on, v);
        capped[v - 1] = 0.0;
        if (t->reroll == RULES_REROLL_ONCE)
            ok[v - 1] = in_r ? r * u : keep * u;
        else if (t->reroll == RULES_REROLL_WHILE)
            ok[v - 1] = in_r ? 0.0 : keep * u, capped[v - 1] = in_r ? rc * u : 0.0;
        else
            ok[v - 1] = u;
    }
    for (int v = 1; v <= n; v++) {
        int to = v;
        if (t->min_face != 0 && to < t->min_face)
            to = t->min_face;
        if (t->max_face != 0 && to > t->max_face)
            to = t->max_face;
        if (to != v) {
            ok[to - 1] += ok[v - 1], ok[v - 1] = 0.0;
            capped[to - 1] += capped[v - 1], capped[v - 1] = 0.0;
        }
    }
}

/* The pmf of one die of term t, before its per-die modifier (see the top of this file).
 *
 * Without an explosion it is die_before_explosion's ok + capped. An explosion adds a plain
 * die (uniform: the term's other operators came before it) for each die whose face matches
 * E, up to RULES_DICE_EXPLODE_DEPTH (D) dice more per die of the count, as rules_dice_roll
 * does. With T_k the pmf of a plain die that may explode k more times,
 *   T_0 = u,   T_k(v) = u(v) [v not in E] + sum over e in E of u(e) T_(k-1)(v - e),
 * the die is f(v) [v not in E] + sum over e in E of f(e) T_(D-1)(v - e). Work: D x |E| x
 * (D + 1) sides, charged to the budget. */
static int die_pmf(const struct rules_dice_term *t, struct rules_odds_budget *b,
                   struct rules_dist *out)
{
    int n = t->sides;
    int len = t->explode ? (RULES_DICE_EXPLODE_DEPTH + 1) * n : n;
    double *f = calloc((size_t)n, sizeof *f), *capped = calloc((size_t)n, sizeof *capped);
    double *tk = calloc((size_t)len, sizeof *tk), *next = calloc((size_t)len, sizeof *next);
    int rc = RULES_ODDS_ERR_NOMEM;
    if (f == NULL || capped == NULL || tk == NULL || next == NULL)
        goto out;
    die_before_explosion(t, f, capped);
    for (int v = 0; v < n; v++)
        f[v] += capped[v];
    if (!t->explode) {
        rc = dist_alloc(out, 1, n);
        if (rc == RULES_ODDS_OK)
            memcpy(out->p, f, (size_t)n * sizeof *f);
        goto out;
    }
    int matched = 0;
    for (int v = 1; v <= n; v++)
        matched += rules_dice_selects(&t->explode_on, v);
    rc = charge(b, (long long)RULES_DICE_EXPLODE_DEPTH * matched * len + len);
    if (rc != RULES_ODDS_OK)
        goto out;
    double u = 1.0 / n;
    /* tk holds T_k over totals 1..len (index total - 1); T_0 = u. */
    for (int v = 0; v < n; v++)
        tk[v] = u;
    for (int k = 1; k <= RULES_DICE_EXPLODE_DEPTH; k++) {
        /* The last step builds the die itself from f and T_(D-1) rather than T_D. */
        const double *first = k < RULES_DICE_EXPLODE_DEPTH ? NULL : f;
        memset(next, 0, (size_t)len * sizeof *next);
        for (int e = 1; e <= n; e++) {
            double pe = first != NULL ? first[e - 1] : u;
            if (!rules_dice_selects(&t->explode_on, e)) {
                next[e - 1] += pe;
                continue;
            }
            for (int v = 0; v + e < len; v++)
                next[v + e] += pe * tk[v];
        }
        double *swap = tk;
        tk = next;
        next = swap;
    }
    rc = dist_alloc(out, 1, len);
    if (rc == RULES_ODDS_OK)
        memcpy(out->p, tk, (size_t)len * sizeof *tk);
out:
    free(f);
    free(capped);
    free(tk);
    free(next);
    return rc;
}

double rules_dice_cap_chance(const struct rules_dice_expr *expr)
{
    /* log of the chance that no die reaches a cap: the terms' dice are independent. */
    double log_none = 0.0;
    for (int ti = 0; ti < expr->term_count; ti++) {
        const struct rules_dice_term *t = &expr->terms[ti];
        if (t->sides == 0 || (t->reroll != RULES_REROLL_WHILE && !t->explode))
            continue;
        double ok[RULES_DICE_MAX_SIDES], capped[RULES_DICE_MAX_SIDES];
        die_before_explosion(t, ok, capped);
        /* A die reaches a cap when its reroll-while does, or else when its explosion goes
         * D dice deep and the last still matches: it starts on a face of E (chance f(E)), then
         * D plain dice match, each with chance |E| / sides. */
        double q = 0.0, start = 0.0;
        int matched = 0;
        for (int v = 1; v <= t->sides; v++) {
            q += capped[v - 1];
            if (t->explode && rules_dice_selects(&t->explode_on, v))
                start += ok[v - 1], matched++;
        }
        if (t->explode)
            q += start * pow((double)matched / t->sides, RULES_DICE_EXPLODE_DEPTH);
        log_none += t->count * log1p(-q);
    }
    return -expm1(log_none);
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
    rc = die_pmf(t, b, &f);
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
