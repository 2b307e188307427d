#include "dice.h"

#include <string.h>

/* The stream every seeded roll uses ("tactics" in ASCII), so a seed alone fixes the rolls. */
#define TACTICS_STREAM 0x0074616374696373ULL

/* pcg32_srandom_r from pcg-c-basic (pcg_basic.c). */
void rules_rng_seed(struct rules_rng *rng, uint64_t initstate, uint64_t initseq)
{
    rng->state = 0u;
    rng->inc = (initseq << 1u) | 1u;
    rules_rng_next(rng);
    rng->state += initstate;
    rules_rng_next(rng);
}

/* pcg32_random_r: advance the LCG, output the XSH-RR permutation of the old state. */
uint32_t rules_rng_next(struct rules_rng *rng)
{
    uint64_t old = rng->state;
    rng->state = old * 6364136223846793005ULL + rng->inc;
    uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = (uint32_t)(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31u));
}

/* pcg32_boundedrand_r: reject the lowest (2^32 mod bound) outputs so every residue is
 * equally likely. */
uint32_t rules_rng_below(struct rules_rng *rng, uint32_t bound)
{
    uint32_t threshold = -bound % bound;
    for (;;) {
        uint32_t r = rules_rng_next(rng);
        if (r >= threshold)
            return r % bound;
    }
}

void rules_dice_from_seed(struct rules_dice *d, uint64_t seed)
{
    memset(d, 0, sizeof *d);
    rules_rng_seed(&d->rng, seed, TACTICS_STREAM);
}

void rules_dice_from_supplied(struct rules_dice *d, const int *results, size_t count)
{
    memset(d, 0, sizeof *d);
    d->supplied = results;
    d->supplied_count = count;
}

int rules_dice_draw(struct rules_dice *d, int sides, int *out)
{
    if (d->supplied != NULL) {
        if (d->supplied_used >= d->supplied_count)
            return RULES_DICE_ERR_SUPPLIED_COUNT;
        int v = d->supplied[d->supplied_used];
        if (v < 1 || v > sides)
            return RULES_DICE_ERR_SUPPLIED_RANGE;
        d->supplied_used++;
        *out = v;
        return RULES_DICE_OK;
    }
    *out = (int)rules_rng_below(&d->rng, (uint32_t)sides) + 1;
    return RULES_DICE_OK;
}

/* --- parsing --- */

struct cursor {
    const char *s;
    size_t i;
};

static void skip_space(struct cursor *c)
{
    while (c->s[c->i] == ' ' || c->s[c->i] == '\t')
        c->i++;
}

static bool is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

static char lower(char ch)
{
    return (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ch;
}

/* Reads a decimal number no larger than max. Returns OK, SYNTAX (no digits) or TOO_LARGE. */
static int read_number(struct cursor *c, int max, int *out)
{
    if (!is_digit(c->s[c->i]))
        return RULES_DICE_ERR_SYNTAX;
    long long v = 0;
    while (is_digit(c->s[c->i])) {
        v = v * 10 + (c->s[c->i] - '0');
        if (v > max)
            return RULES_DICE_ERR_TOO_LARGE;
        c->i++;
    }
    *out = (int)v;
    return RULES_DICE_OK;
}

/* Parses the keep/drop suffix after the sides, if any. */
static int parse_keep(struct cursor *c, struct rules_dice_term *t, size_t *err_offset)
{
    char a = lower(c->s[c->i]);
    char b = a != '\0' ? lower(c->s[c->i + 1]) : '\0'; /* never read past the NUL */
    size_t len = 0;
    if (a == 'k' && b == 'h') {
        t->keep = RULES_KEEP_HIGHEST, len = 2;
    } else if (a == 'k' && b == 'l') {
        t->keep = RULES_KEEP_LOWEST, len = 2;
    } else if (a == 'k') {
        t->keep = RULES_KEEP_HIGHEST, len = 1;
    } else if (a == 'd' && b == 'h') {
        t->keep = RULES_DROP_HIGHEST, len = 2;
    } else if (a == 'd' && b == 'l') {
        t->keep = RULES_DROP_LOWEST, len = 2;
    } else if (a == 'd') {
        t->keep = RULES_DROP_LOWEST, len = 1;
    } else {
        return RULES_DICE_OK;
    }
    size_t at = c->i;
    c->i += len;
    int rc = read_number(c, RULES_DICE_MAX_DICE, &t->keep_n);
    if (rc != RULES_DICE_OK) {
        *err_offset = c->i;
        return rc;
    }
    bool drop = t->keep == RULES_DROP_LOWEST || t->keep == RULES_DROP_HIGHEST;
    int hi = drop ? t->count - 1 : t->count;
    if (t->keep_n < 1 || t->keep_n > hi) {
        *err_offset = at;
        return RULES_DICE_ERR_KEEP;
    }
    return RULES_DICE_OK;
}

/* Parses "[+N]" or "[-N]" after a dice term, if present. */
static int parse_per_die(struct cursor *c, struct rules_dice_term *t, size_t *err_offset)
{
    if (c->s[c->i] != '[')
        return RULES_DICE_OK;
    c->i++;
    int sign = 0;
    if (c->s[c->i] == '+')
        sign = 1;
    else if (c->s[c->i] == '-')
        sign = -1;
    if (sign == 0) {
        *err_offset = c->i;
        return RULES_DICE_ERR_SYNTAX;
    }
    c->i++;
    int v = 0;
    int rc = read_number(c, RULES_DICE_MAX_PER_DIE, &v);
    if (rc != RULES_DICE_OK || c->s[c->i] != ']') {
        *err_offset = c->i;
        return rc != RULES_DICE_OK ? rc : RULES_DICE_ERR_SYNTAX;
    }
    c->i++;
    t->per_die = sign * v;
    return RULES_DICE_OK;
}

static int parse_term(struct cursor *c, struct rules_dice_term *t, size_t *err_offset)
{
    size_t start = c->i;
    int count = 1;
    bool has_count = is_digit(c->s[c->i]);
    if (has_count) {
        int rc = read_number(c, RULES_DICE_MAX_CONSTANT, &count);
        if (rc != RULES_DICE_OK) {
            *err_offset = start;
            return rc;
        }
    }
    if (lower(c->s[c->i]) != 'd') {
        if (!has_count) {
            *err_offset = c->i;
            return RULES_DICE_ERR_SYNTAX;
        }
        t->value = count; /* a constant */
        return RULES_DICE_OK;
    }
    if (count == 0) {
        *err_offset = start;
        return RULES_DICE_ERR_ZERO_COUNT;
    }
    if (count > RULES_DICE_MAX_DICE) {
        *err_offset = start;
        return RULES_DICE_ERR_TOO_MANY_DICE;
    }
    c->i++; /* the 'd' */
    size_t sides_at = c->i;
    int sides = 0;
    if (c->s[c->i] == '%') {
        sides = 100;
        c->i++;
    } else {
        int rc = read_number(c, RULES_DICE_MAX_SIDES, &sides);
        if (rc != RULES_DICE_OK) {
            *err_offset = sides_at;
            return rc == RULES_DICE_ERR_TOO_LARGE ? RULES_DICE_ERR_SIDES : rc;
        }
    }
    if (sides < 2) {
        *err_offset = sides_at;
        return RULES_DICE_ERR_SIDES;
    }
    t->count = count;
    t->sides = sides;
    int rc = parse_keep(c, t, err_offset);
    if (rc == RULES_DICE_OK)
        rc = parse_per_die(c, t, err_offset);
    return rc;
}

int rules_dice_parse(const char *text, struct rules_dice_expr *expr, size_t *err_offset)
{
    memset(expr, 0, sizeof *expr);
    *err_offset = 0;
    size_t len = strnlen(text, RULES_DICE_MAX_EXPRESSION + 1);
    if (len > RULES_DICE_MAX_EXPRESSION) {
        *err_offset = RULES_DICE_MAX_EXPRESSION;
        return RULES_DICE_ERR_TOO_LONG;
    }
    struct cursor c = {text, 0};
    skip_space(&c);
    int sign = 1;
    if (text[c.i] == '+' || text[c.i] == '-') {
        sign = text[c.i] == '-' ? -1 : 1;
        c.i++;
        skip_space(&c);
    }
    for (;;) {
        if (expr->term_count >= RULES_DICE_MAX_TERMS) {
            *err_offset = c.i;
            return RULES_DICE_ERR_TOO_MANY_TERMS;
        }
        struct rules_dice_term *t = &expr->terms[expr->term_count];
        t->sign = sign;
        size_t term_at = c.i;
        int rc = parse_term(&c, t, err_offset);
        if (rc != RULES_DICE_OK)
            return rc;
        if (expr->dice_count + t->count > RULES_DICE_MAX_DICE) {
            *err_offset = term_at;
            return RULES_DICE_ERR_TOO_MANY_DICE;
        }
        expr->dice_count += t->count;
        expr->term_count++;
        skip_space(&c);
        if (text[c.i] == '\0')
            return RULES_DICE_OK;
        if (text[c.i] != '+' && text[c.i] != '-') {
            *err_offset = c.i;
            return RULES_DICE_ERR_SYNTAX;
        }
        sign = text[c.i] == '-' ? -1 : 1;
        c.i++;
        skip_space(&c);
    }
}

/* --- rolling --- */

/* Marks which of the term's dice (dice[0..n)) count, per its keep rule. Ties keep the die
 * rolled later for "highest" rules and the one rolled earlier for "lowest", deterministically. */
static void mark_kept(const struct rules_dice_term *t, struct rules_die *dice, int n)
{
    for (int i = 0; i < n; i++)
        dice[i].kept = true;
    if (t->keep == RULES_KEEP_ALL)
        return;
    /* order[] holds die indices sorted by value, then index (insertion sort: n <= 1000). */
    int order[RULES_DICE_MAX_DICE];
    for (int i = 0; i < n; i++) {
        int j = i;
        while (j > 0 && dice[order[j - 1]].value > dice[i].value)
            order[j] = order[j - 1], j--;
        order[j] = i;
    }
    int lo_drop = 0, hi_drop = 0; /* how many to drop from the low and high ends */
    switch (t->keep) {
    case RULES_KEEP_HIGHEST:
        lo_drop = n - t->keep_n;
        break;
    case RULES_KEEP_LOWEST:
        hi_drop = n - t->keep_n;
        break;
    case RULES_DROP_LOWEST:
        lo_drop = t->keep_n;
        break;
    case RULES_DROP_HIGHEST:
        hi_drop = t->keep_n;
        break;
    case RULES_KEEP_ALL:
        break;
    }
    for (int i = 0; i < lo_drop; i++)
        dice[order[i]].kept = false;
    for (int i = 0; i < hi_drop; i++)
        dice[order[n - 1 - i]].kept = false;
}

int rules_dice_roll(const struct rules_dice_expr *expr, struct rules_dice *d,
                    struct rules_roll *out)
{
    out->dice_count = 0;
    out->total = 0;
    if (d->supplied != NULL && d->supplied_count - d->supplied_used < (size_t)expr->dice_count)
        return RULES_DICE_ERR_SUPPLIED_COUNT;
    for (int ti = 0; ti < expr->term_count; ti++) {
        const struct rules_dice_term *t = &expr->terms[ti];
        int subtotal = 0;
        if (t->sides == 0) {
            subtotal = t->value;
        } else {
            struct rules_die *first = &out->dice[out->dice_count];
            for (int k = 0; k < t->count; k++) {
                struct rules_die *die = &out->dice[out->dice_count];
                int rc = rules_dice_draw(d, t->sides, &die->value);
                if (rc != RULES_DICE_OK)
                    return rc;
                die->term = ti;
                die->sides = t->sides;
                out->dice_count++;
            }
            mark_kept(t, first, t->count);
            for (int k = 0; k < t->count; k++)
                if (first[k].kept)
                    subtotal += first[k].value + t->per_die;
        }
        out->term_totals[ti] = t->sign * subtotal;
        out->total += out->term_totals[ti];
    }
    return RULES_DICE_OK;
}

bool rules_dice_all_used(const struct rules_dice *d)
{
    return d->supplied == NULL || d->supplied_used == d->supplied_count;
}

void rules_dice_range(const struct rules_dice_expr *expr, int *min, int *max)
{
    *min = *max = 0;
    for (int ti = 0; ti < expr->term_count; ti++) {
        const struct rules_dice_term *t = &expr->terms[ti];
        int lo = t->value, hi = t->value;
        if (t->sides != 0) {
            int kept = t->count;
            if (t->keep == RULES_KEEP_HIGHEST || t->keep == RULES_KEEP_LOWEST)
                kept = t->keep_n;
            else if (t->keep != RULES_KEEP_ALL)
                kept = t->count - t->keep_n;
            lo = kept * (1 + t->per_die);
            hi = kept * (t->sides + t->per_die);
        }
        if (t->sign < 0) {
            *min -= hi;
            *max -= lo;
        } else {
            *min += lo;
            *max += hi;
        }
    }
}

const char *rules_dice_strerror(int status)
{
    switch (status) {
    case RULES_DICE_OK:
        return "ok";
    case RULES_DICE_ERR_SYNTAX:
        return "not dice notation";
    case RULES_DICE_ERR_ZERO_COUNT:
        return "a dice term must roll at least one die";
    case RULES_DICE_ERR_SIDES:
        return "a die must have from 2 to 1000 sides";
    case RULES_DICE_ERR_TOO_MANY_DICE:
        return "at most 1000 dice may be rolled in one expression";
    case RULES_DICE_ERR_TOO_LARGE:
        return "a number is larger than allowed (constants up to 1000000, per-die up to 1000)";
    case RULES_DICE_ERR_KEEP:
        return "keep must be 1..count and drop 1..count-1";
    case RULES_DICE_ERR_TOO_MANY_TERMS:
        return "at most 32 terms";
    case RULES_DICE_ERR_TOO_LONG:
        return "the expression is longer than 256 characters";
    case RULES_DICE_ERR_SUPPLIED_COUNT:
        return "the supplied results do not match the number of dice in the expression";
    case RULES_DICE_ERR_SUPPLIED_RANGE:
        return "a supplied result is outside 1..sides of its die";
    default:
        return "dice error";
    }
}
