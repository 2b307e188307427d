#include "rules/dice/dice.h"

#include <assert.h>
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
    size_t err_at, err_len; /* the refused part, on an error */
    bool said;              /* rules_dice_parse_said: trailing words allowed */
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

/* A refused part: sets where it starts and how long it is, returns rc. */
static int refuse(struct cursor *c, size_t at, size_t end, int rc)
{
    c->err_at = at;
    c->err_len = end > at ? end - at : 0;
    return rc;
}

/* Reads a selector after an operator: N, <N or >N (Avrae). `roll20` refuses '<' and '>'
 * (Roll20's include N). Avrae's h/l selectors pick dice by rank, not by face, and are refused. */
static int parse_select(struct cursor *c, size_t op_at, bool roll20, struct rules_dice_select *sel)
{
    char ch = lower(c->s[c->i]);
    sel->cmp = RULES_SELECT_EQUAL;
    if (ch == '<' || ch == '>') {
        if (roll20)
            return refuse(c, op_at, c->i + 1, RULES_DICE_ERR_ROLL20_COMPARE);
        sel->cmp = ch == '<' ? RULES_SELECT_BELOW : RULES_SELECT_ABOVE;
        c->i++;
    } else if (ch == 'h' || ch == 'l') {
        return refuse(c, op_at, c->i + 1, RULES_DICE_ERR_UNSUPPORTED);
    }
    size_t at = c->i;
    int rc = read_number(c, RULES_DICE_MAX_CONSTANT, &sel->n);
    if (rc != RULES_DICE_OK)
        return refuse(c, at, c->i + 1, rc);
    return RULES_DICE_OK;
}

bool rules_dice_selects(const struct rules_dice_select *sel, int v)
{
    switch (sel->cmp) {
    case RULES_SELECT_BELOW:
        return v < sel->n;
    case RULES_SELECT_ABOVE:
        return v > sel->n;
    case RULES_SELECT_EQUAL:
        break;
    }
    return v == sel->n;
}

/* True when sel matches every face 1..sides. */
static bool selects_every_face(const struct rules_dice_select *sel, int sides)
{
    for (int v = 1; v <= sides; v++)
        if (!rules_dice_selects(sel, v))
            return false;
    return true;
}

/* Operators in the order they apply; each may appear once, after those before it. */
enum op_phase { PHASE_NONE, PHASE_REROLL, PHASE_MIN, PHASE_MAX, PHASE_EXPLODE, PHASE_KEEP };

/* Takes one phase for the operator at op_at, refusing a repeat or a step back. */
static int enter_phase(struct cursor *c, enum op_phase *phase, enum op_phase next, size_t op_at,
                       size_t op_end)
{
    /* mi and ma may come in either order (one clamp); every other step goes forward. */
    bool minmax =
        (*phase == PHASE_MIN && next == PHASE_MAX) || (*phase == PHASE_MAX && next == PHASE_MIN);
    if (next <= *phase && !minmax)
        return refuse(c, op_at, op_end, RULES_DICE_ERR_ORDER);
    *phase = next > *phase ? next : *phase;
    return RULES_DICE_OK;
}

/* Parses the keep/drop operator at the cursor (a, b: its first two letters, lower case). */
static int parse_keep(struct cursor *c, struct rules_dice_term *t, char a, char b)
{
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
    } else {
        t->keep = RULES_DROP_LOWEST, len = 1;
    }
    size_t at = c->i;
    c->i += len;
    char s = c->s[c->i];
    if (s == '<' || s == '>') /* Avrae's k>3: keep by face, not by rank */
        return refuse(c, at, c->i + 1, RULES_DICE_ERR_UNSUPPORTED);
    int rc = read_number(c, RULES_DICE_MAX_DICE, &t->keep_n);
    if (rc != RULES_DICE_OK)
        return refuse(c, c->i, c->i + 1, rc);
    bool drop = t->keep == RULES_DROP_LOWEST || t->keep == RULES_DROP_HIGHEST;
    int hi = drop ? t->count - 1 : t->count;
    if (t->keep_n < 1 || t->keep_n > hi)
        return refuse(c, at, c->i, RULES_DICE_ERR_KEEP);
    return RULES_DICE_OK;
}

/* Parses the operators after the sides: rerolls, mi/ma, an explosion, keep/drop. */
static int parse_ops(struct cursor *c, struct rules_dice_term *t)
{
    enum op_phase phase = PHASE_NONE;
    size_t start = c->i;
    for (;;) {
        size_t at = c->i;
        char a = lower(c->s[c->i]);
        char b = a != '\0' ? lower(c->s[c->i + 1]) : '\0'; /* never read past the NUL */
        int rc = RULES_DICE_OK;
        if (a == 'r' && (b == 'a')) {
            return refuse(c, at, at + 2, RULES_DICE_ERR_UNSUPPORTED); /* reroll and add */
        } else if (a == 'r') {
            bool roll20 = b != 'o' && b != 'r';
            rc = enter_phase(c, &phase, PHASE_REROLL, at, at + (roll20 ? 1 : 2));
            if (rc != RULES_DICE_OK)
                return rc;
            c->i += roll20 ? 1 : 2;
            t->reroll = b == 'o' ? RULES_REROLL_ONCE : RULES_REROLL_WHILE;
            rc = parse_select(c, at, roll20, &t->reroll_on);
            if (rc == RULES_DICE_OK && t->reroll == RULES_REROLL_WHILE &&
                selects_every_face(&t->reroll_on, t->sides))
                rc = refuse(c, at, c->i, RULES_DICE_ERR_EVERY_FACE);
        } else if (a == 'm' && (b == 'i' || b == 'a')) {
            rc = enter_phase(c, &phase, b == 'i' ? PHASE_MIN : PHASE_MAX, at, at + 2);
            if (rc != RULES_DICE_OK)
                return rc;
            c->i += 2;
            int n = 0;
            rc = read_number(c, RULES_DICE_MAX_CONSTANT, &n);
            if (rc != RULES_DICE_OK)
                return refuse(c, c->i, c->i + 1, rc);
            if (n < 1 || n > t->sides)
                return refuse(c, at, c->i, RULES_DICE_ERR_MIN_MAX);
            *(b == 'i' ? &t->min_face : &t->max_face) = n;
            if (t->min_face != 0 && t->max_face != 0 && t->min_face > t->max_face)
                return refuse(c, at, c->i, RULES_DICE_ERR_MIN_MAX);
        } else if (a == 'e' || a == '!') {
            if (a == '!' && (b == '!' || b == 'p'))
                return refuse(c, at, at + 2, RULES_DICE_ERR_UNSUPPORTED); /* compound, penetrate */
            rc = enter_phase(c, &phase, PHASE_EXPLODE, at, at + 1);
            if (rc != RULES_DICE_OK)
                return rc;
            c->i++;
            t->explode = true;
            t->explode_on = (struct rules_dice_select){RULES_SELECT_EQUAL, t->sides};
            char n = c->s[c->i];
            if (is_digit(n) || n == '<' || n == '>' || lower(n) == 'h' || lower(n) == 'l')
                rc = parse_select(c, at, a == '!', &t->explode_on);
            if (rc == RULES_DICE_OK && selects_every_face(&t->explode_on, t->sides))
                rc = refuse(c, at, c->i, RULES_DICE_ERR_EVERY_FACE);
        } else if (a == 'k' || a == 'd') {
            rc = enter_phase(c, &phase, PHASE_KEEP, at, at + 1);
            if (rc == RULES_DICE_OK)
                rc = parse_keep(c, t, a, b);
        } else if (a == 'p') {
            return refuse(c, at, at + 1, RULES_DICE_ERR_UNSUPPORTED); /* Avrae's drop */
        } else {
            break;
        }
        if (rc != RULES_DICE_OK)
            return rc;
    }
    if (t->explode && t->keep != RULES_KEEP_ALL)
        return refuse(c, start, c->i, RULES_DICE_ERR_EXPLODE_KEEP);
    t->ops_at = (unsigned short)start;
    t->ops_len = (unsigned short)(c->i - start);
    return RULES_DICE_OK;
}

/* Parses "{+N}" or "{-N}" after a dice term's operators, if present. */
static int parse_per_die(struct cursor *c, struct rules_dice_term *t)
{
    if (c->s[c->i] != '{')
        return RULES_DICE_OK;
    size_t at = c->i++;
    int sign = c->s[c->i] == '+' ? 1 : c->s[c->i] == '-' ? -1 : 0;
    if (sign == 0)
        return refuse(c, at, c->i + 1, RULES_DICE_ERR_PER_DIE);
    c->i++;
    int v = 0;
    int rc = read_number(c, RULES_DICE_MAX_PER_DIE, &v);
    if (rc == RULES_DICE_ERR_TOO_LARGE)
        return refuse(c, at, c->i + 1, rc);
    if (rc != RULES_DICE_OK || c->s[c->i] != '}')
        return refuse(c, at, c->i + 1, RULES_DICE_ERR_PER_DIE);
    c->i++;
    t->per_die = sign * v;
    return RULES_DICE_OK;
}

/* True when s[0..n) is, spaces around it aside, a sign and digits: "+2", " -1 ". */
static bool is_signed_integer(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && s[i] == ' ')
        i++;
    if (i == n || (s[i] != '+' && s[i] != '-'))
        return false;
    i++;
    size_t digits = 0;
    while (i < n && is_digit(s[i]))
        i++, digits++;
    while (i < n && s[i] == ' ')
        i++;
    return digits > 0 && i == n;
}

/* Parses a label "[text]" after a term, spaces before it allowed; at most one. */
static int parse_label(struct cursor *c, struct rules_dice_term *t)
{
    size_t before = c->i;
    skip_space(c);
    if (c->s[c->i] != '[') {
        c->i = before; /* the spaces belong to whatever follows */
        return RULES_DICE_OK;
    }
    size_t at = c->i++;
    while (c->s[c->i] != ']') {
        unsigned char ch = (unsigned char)c->s[c->i];
        if (ch == '\0' || ch == '[' || ch < 0x20)
            return refuse(c, at, c->i + (ch != '\0'), RULES_DICE_ERR_LABEL);
        c->i++;
    }
    c->i++;
    if (is_signed_integer(c->s + at + 1, c->i - at - 2))
        return refuse(c, at, c->i, RULES_DICE_ERR_OLD_PER_DIE);
    t->label_at = (unsigned short)at;
    t->label_len = (unsigned short)(c->i - at);
    size_t after = c->i;
    skip_space(c);
    if (c->s[c->i] == '[') {
        size_t end = c->i;
        while (c->s[end] != '\0' && c->s[end] != ']')
            end++;
        return refuse(c, c->i, end + (c->s[end] == ']'), RULES_DICE_ERR_LABEL);
    }
    c->i = after;
    return RULES_DICE_OK;
}

/* Worst-case draws of one die of t: itself, its rerolls, its explosions. */
static int draws_per_die(const struct rules_dice_term *t)
{
    int n = 1;
    if (t->reroll == RULES_REROLL_ONCE)
        n += 1;
    else if (t->reroll == RULES_REROLL_WHILE)
        n += RULES_DICE_MAX_REROLLS;
    if (t->explode)
        n += RULES_DICE_EXPLODE_DEPTH;
    return n;
}

static int parse_term(struct cursor *c, struct rules_dice_term *t)
{
    size_t start = c->i;
    int count = 1;
    bool has_count = is_digit(c->s[c->i]);
    if (has_count) {
        int rc = read_number(c, RULES_DICE_MAX_CONSTANT, &count);
        if (rc != RULES_DICE_OK)
            return refuse(c, start, c->i + 1, rc);
    }
    if (lower(c->s[c->i]) != 'd') {
        if (!has_count) {
            char ch = c->s[c->i];
            bool known = ch == '(' || ch == '{'; /* Avrae's sets, Roll20's groups */
            return refuse(c, c->i, c->i + 1,
                          known ? RULES_DICE_ERR_UNSUPPORTED : RULES_DICE_ERR_SYNTAX);
        }
        t->value = count; /* a constant */
        return parse_label(c, t);
    }
    if (count == 0)
        return refuse(c, start, c->i + 1, RULES_DICE_ERR_ZERO_COUNT);
    if (count > RULES_DICE_MAX_DICE)
        return refuse(c, start, c->i, RULES_DICE_ERR_TOO_MANY_DICE);
    c->i++; /* the 'd' */
    size_t sides_at = c->i;
    int sides = 0;
    if (c->s[c->i] == '%') {
        sides = 100;
        c->i++;
    } else {
        int rc = read_number(c, RULES_DICE_MAX_SIDES, &sides);
        if (rc != RULES_DICE_OK)
            return refuse(c, sides_at, c->i + 1,
                          rc == RULES_DICE_ERR_TOO_LARGE ? RULES_DICE_ERR_SIDES : rc);
    }
    if (sides < 2)
        return refuse(c, sides_at, c->i, RULES_DICE_ERR_SIDES);
    t->count = count;
    t->sides = sides;
    int rc = parse_ops(c, t);
    if (rc == RULES_DICE_OK)
        rc = parse_per_die(c, t);
    if (rc == RULES_DICE_OK)
        rc = parse_label(c, t);
    t->max_draws = count * draws_per_die(t);
    return rc;
}

int rules_dice_parse(const char *text, struct rules_dice_expr *expr, size_t *err_offset)
{
    size_t len = 0;
    return rules_dice_parse_part(text, expr, err_offset, &len);
}

/* Whether the text at the cursor is the word w (lower case), any case, ending there. */
static bool word_is(const struct cursor *c, const char *w)
{
    size_t n = strlen(w);
    for (size_t k = 0; k < n; k++)
        if (lower(c->s[c->i + k]) != w[k])
            return false;
    char end = c->s[c->i + n];
    return end == '\0' || end == ' ' || end == '\t';
}

/* Rolls the first plain 1d20 of expr twice, keeping the higher or the lower (Avrae's adv and
 * dis); false when there is none. */
static bool apply_advantage(struct rules_dice_expr *expr, enum rules_dice_advantage adv)
{
    for (int ti = 0; ti < expr->term_count; ti++) {
        struct rules_dice_term *t = &expr->terms[ti];
        if (t->count != 1 || t->sides != 20 || t->keep != RULES_KEEP_ALL || t->explode)
            continue;
        int per_die = t->max_draws;
        t->count = 2;
        t->keep = adv == RULES_ADV_ADVANTAGE ? RULES_KEEP_HIGHEST : RULES_KEEP_LOWEST;
        t->keep_n = 1;
        t->max_draws = 2 * per_die;
        expr->dice_count += 1;
        expr->advantage = adv;
        expr->advantage_term = ti;
        return true;
    }
    return false;
}

/* The words after a roll (rules_dice_parse_said): adv or dis, then a comment. */
static int parse_words(struct cursor *c, struct rules_dice_expr *expr)
{
    size_t at = c->i;
    enum rules_dice_advantage adv = RULES_ADV_NONE;
    if (word_is(c, "adv") || word_is(c, "dis")) {
        adv = lower(c->s[c->i]) == 'a' ? RULES_ADV_ADVANTAGE : RULES_ADV_DISADVANTAGE;
        c->i += 3;
        if (!apply_advantage(expr, adv))
            return refuse(c, at, c->i, RULES_DICE_ERR_ADVANTAGE);
        skip_space(c);
    }
    size_t start = c->i, end = c->i;
    for (size_t k = start; c->s[k] != '\0'; k++) {
        unsigned char ch = (unsigned char)c->s[k];
        if (ch < 0x20 || ch == 0x7f)
            return refuse(c, k, k + 1, RULES_DICE_ERR_COMMENT);
        if (ch != ' ' && ch != '\t')
            end = k + 1;
    }
    expr->comment_at = (unsigned short)start;
    expr->comment_len = (unsigned short)(end - start);
    int draws = 0;
    for (int ti = 0; ti < expr->term_count; ti++)
        draws += expr->terms[ti].max_draws;
    if (expr->dice_count > RULES_DICE_MAX_DICE)
        return refuse(c, at, at + 3, RULES_DICE_ERR_TOO_MANY_DICE);
    if (draws > RULES_DICE_MAX_DRAWS)
        return refuse(c, at, at + 3, RULES_DICE_ERR_TOO_MANY_DRAWS);
    return RULES_DICE_OK;
}

/* The parse proper; sets c->err_at and c->err_len on an error. */
static int parse_expr(struct cursor *c, struct rules_dice_expr *expr)
{
    const char *text = c->s;
    skip_space(c);
    int sign = 1;
    if (text[c->i] == '+' || text[c->i] == '-') {
        sign = text[c->i] == '-' ? -1 : 1;
        c->i++;
        skip_space(c);
    }
    int draws = 0;
    for (;;) {
        if (expr->term_count >= RULES_DICE_MAX_TERMS)
            return refuse(c, c->i, c->i + 1, RULES_DICE_ERR_TOO_MANY_TERMS);
        struct rules_dice_term *t = &expr->terms[expr->term_count];
        t->sign = sign;
        size_t term_at = c->i;
        int rc = parse_term(c, t);
        if (rc != RULES_DICE_OK)
            return rc;
        if (expr->dice_count + t->count > RULES_DICE_MAX_DICE)
            return refuse(c, term_at, c->i, RULES_DICE_ERR_TOO_MANY_DICE);
        if (draws + t->max_draws > RULES_DICE_MAX_DRAWS)
            return refuse(c, term_at, c->i, RULES_DICE_ERR_TOO_MANY_DRAWS);
        draws += t->max_draws;
        expr->dice_count += t->count;
        expr->term_count++;
        size_t term_end = c->i;
        skip_space(c);
        if (text[c->i] == '\0')
            return RULES_DICE_OK;
        char first = lower(text[c->i]);
        if (c->said && c->i > term_end && first >= 'a' && first <= 'z')
            return parse_words(c, expr);
        if (text[c->i] != '+' && text[c->i] != '-') {
            char ch = text[c->i];
            bool known = ch == '*' || ch == '/' || ch == '%' || ch == '<' || ch == '>' ||
                         ch == '=' || ch == '!' || ch == '(' || ch == '{' || ch == '[';
            return refuse(c, c->i, c->i + 1,
                          known ? RULES_DICE_ERR_UNSUPPORTED : RULES_DICE_ERR_SYNTAX);
        }
        sign = text[c->i] == '-' ? -1 : 1;
        c->i++;
        skip_space(c);
    }
}

static int parse_text(const char *text, bool said, struct rules_dice_expr *expr, size_t *err_offset,
                      size_t *err_len);

int rules_dice_parse_part(const char *text, struct rules_dice_expr *expr, size_t *err_offset,
                          size_t *err_len)
{
    return parse_text(text, false, expr, err_offset, err_len);
}

int rules_dice_parse_said(const char *text, struct rules_dice_expr *expr, size_t *err_offset,
                          size_t *err_len)
{
    return parse_text(text, true, expr, err_offset, err_len);
}

static int parse_text(const char *text, bool said, struct rules_dice_expr *expr, size_t *err_offset,
                      size_t *err_len)
{
    memset(expr, 0, sizeof *expr);
    *err_offset = 0;
    *err_len = 0;
    size_t len = strnlen(text, RULES_DICE_MAX_EXPRESSION + 1);
    if (len > RULES_DICE_MAX_EXPRESSION) {
        *err_offset = RULES_DICE_MAX_EXPRESSION;
        return RULES_DICE_ERR_TOO_LONG;
    }
    struct cursor c = {text, 0, 0, 0, said};
    int rc = parse_expr(&c, expr);
    if (rc != RULES_DICE_OK) {
        /* Never past the end of the text, whatever the lengths above assumed. */
        *err_offset = c.err_at < len ? c.err_at : len;
        size_t end = c.err_at + c.err_len;
        *err_len = (end < len ? end : len) - *err_offset;
    }
    return rc;
}
/* --- rolling --- */

/* Marks which of the term's dice count, per its keep rule: dice[idx[0..n)] are the last draw
 * of each slot. Ties keep the die rolled later for "highest" rules and the one rolled earlier
 * for "lowest", deterministically. */
static void mark_kept(const struct rules_dice_term *t, struct rules_die *dice, const int *idx,
                      int n)
{
    if (t->keep == RULES_KEEP_ALL)
        return;
    /* order[] holds slots sorted by value, then slot (insertion sort: n <= 1000). */
    int order[RULES_DICE_MAX_DICE];
    for (int i = 0; i < n; i++) {
        int j = i;
        while (j > 0 && dice[idx[order[j - 1]]].value > dice[idx[i]].value)
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
        dice[idx[order[i]]].kept = false;
    for (int i = 0; i < hi_drop; i++)
        dice[idx[order[n - 1 - i]]].kept = false;
}

/* Draws one die into out->dice as slot `slot` of term ti. */
static int draw_into(struct rules_dice *d, const struct rules_dice_term *t, int ti, int slot,
                     struct rules_roll *out, struct rules_die **die)
{
    assert(out->dice_count < RULES_DICE_MAX_DRAWS); /* parse bounds the worst case */
    struct rules_die *x = &out->dice[out->dice_count];
    int rc = rules_dice_draw(d, t->sides, &x->rolled);
    if (rc != RULES_DICE_OK)
        return rc;
    x->term = ti;
    x->sides = t->sides;
    x->value = x->rolled;
    x->slot = slot;
    x->kept = true;
    x->rerolled = x->exploded = false;
    out->dice_count++;
    *die = x;
    return RULES_DICE_OK;
}

/* Rolls one dice term: each die of the count with its rerolls and mi/ma, then the explosions
 * round by round (the new dice are plain: they come after the term's other operators, as in
 * Avrae, which applies operators in the order written), then keep/drop. Returns the term's
 * unsigned subtotal through *subtotal. */
static int roll_term(const struct rules_dice_term *t, int ti, struct rules_dice *d,
                     struct rules_roll *out, int *subtotal)
{
    int first = out->dice_count;
    /* at[k]: the draw that counts for slot k; depth[k]: the explosions above slot k. */
    int at[RULES_DICE_MAX_DRAWS];
    unsigned char depth[RULES_DICE_MAX_DRAWS];
    int rc;
    struct rules_die *x;
    for (int k = 0; k < t->count; k++) {
        if ((rc = draw_into(d, t, ti, k, out, &x)) != RULES_DICE_OK)
            return rc;
        int rerolls = t->reroll == RULES_REROLL_ONCE    ? 1
                      : t->reroll == RULES_REROLL_WHILE ? RULES_DICE_MAX_REROLLS
                                                        : 0;
        while (rerolls-- > 0 && rules_dice_selects(&t->reroll_on, x->value)) {
            x->rerolled = true;
            x->kept = false;
            if ((rc = draw_into(d, t, ti, k, out, &x)) != RULES_DICE_OK)
                return rc;
        }
        if (t->min_face != 0 && x->value < t->min_face)
            x->value = t->min_face;
        if (t->max_face != 0 && x->value > t->max_face)
            x->value = t->max_face;
        at[k] = (int)(x - out->dice);
        depth[k] = 0;
    }
    /* Each explosion appends a slot after the dice that made it, so one pass over the growing
     * list of slots explodes round by round. */
    for (int k = 0, slots = t->count; t->explode && k < slots; k++) {
        struct rules_die *y = &out->dice[at[k]];
        if (depth[k] >= RULES_DICE_EXPLODE_DEPTH || !rules_dice_selects(&t->explode_on, y->value))
            continue;
        y->exploded = true;
        if ((rc = draw_into(d, t, ti, slots, out, &x)) != RULES_DICE_OK)
            return rc;
        at[slots] = (int)(x - out->dice);
        depth[slots++] = (unsigned char)(depth[k] + 1);
    }
    mark_kept(t, out->dice, at, t->count);
    int sum = 0;
    for (int i = first; i < out->dice_count; i++)
        if (out->dice[i].kept)
            sum += out->dice[i].value;
    for (int k = 0; k < t->count; k++)
        if (out->dice[at[k]].kept)
            sum += t->per_die;
    *subtotal = sum;
    return RULES_DICE_OK;
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
        int subtotal = t->value;
        if (t->sides != 0) {
            int rc = roll_term(t, ti, d, out, &subtotal);
            if (rc != RULES_DICE_OK)
                return rc;
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

/* The lowest (want_max false) or highest face one die of t can end on after its rerolls and
 * mi/ma, before any explosion: every face can, since a reroll may land anywhere and a
 * reroll-while stops at its cap on whatever it shows. */
static int face_bound(const struct rules_dice_term *t, bool want_max)
{
    int lo = t->min_face != 0 ? t->min_face : 1;
    int hi = t->max_face != 0 ? t->max_face : t->sides;
    if (t->min_face != 0 && hi < lo)
        hi = lo;
    return want_max ? hi : lo;
}

/* The extreme (largest if want_max, else smallest) of v + (v explodes ? chain : 0) over
 * faces lo..hi. */
static int extreme_over(const struct rules_dice_term *t, int lo, int hi, int chain, bool want_max)
{
    int best = 0;
    for (int v = lo; v <= hi; v++) {
        int total = v + (rules_dice_selects(&t->explode_on, v) ? chain : 0);
        if (v == lo || (want_max ? total > best : total < best))
            best = total;
    }
    return best;
}

/* The extreme total of one die of t with its explosions. chain is the extreme total of a plain
 * die that may explode k more times, for k = 0 .. depth - 1; the die of the count explodes
 * into such a die with depth - 1 left. */
static int die_extreme(const struct rules_dice_term *t, bool want_max)
{
    int lo = face_bound(t, false), hi = face_bound(t, true);
    if (!t->explode)
        return want_max ? hi : lo;
    int chain = want_max ? t->sides : 1;
    for (int k = 1; k < RULES_DICE_EXPLODE_DEPTH; k++)
        chain = extreme_over(t, 1, t->sides, chain, want_max);
    return extreme_over(t, lo, hi, chain, want_max);
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
            lo = kept * (die_extreme(t, false) + t->per_die);
            hi = kept * (die_extreme(t, true) + t->per_die);
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
    case RULES_DICE_ERR_UNSUPPORTED:
        return "this notation is not supported (see the README's Dice notation)";
    case RULES_DICE_ERR_OLD_PER_DIE:
        return "a label may not hold only a signed number: a per-die modifier is now written "
               "in braces, 3d6{+2}";
    case RULES_DICE_ERR_ROLL20_COMPARE:
        return "Roll20's < and > after r or ! include the number and Avrae's do not: write "
               "rr<N or e>N (Avrae's, N itself excluded) or list the face (r1, !6)";
    case RULES_DICE_ERR_ORDER:
        return "dice operators go in this order, each once: ro/rr/r, mi/ma, e/!, keep/drop";
    case RULES_DICE_ERR_EVERY_FACE:
        return "a reroll-while or an explosion may not match every face of the die";
    case RULES_DICE_ERR_EXPLODE_KEEP:
        return "keep/drop together with an explosion is not supported";
    case RULES_DICE_ERR_MIN_MAX:
        return "mi and ma must be 1..sides, mi no more than ma";
    case RULES_DICE_ERR_TOO_MANY_DRAWS:
        return "at most 4096 dice may be drawn, every reroll (100 a die for rr) and explosion "
               "(20 a die) counted";
    case RULES_DICE_ERR_LABEL:
        return "a label is one [text] after a term, without [ inside, closed by ]";
    case RULES_DICE_ERR_PER_DIE:
        return "a per-die modifier is a sign and a number in braces: {+2} or {-1}";
    case RULES_DICE_ERR_ADVANTAGE:
        return "adv and dis roll the expression's 1d20 twice: it needs a plain 1d20 (no keep "
               "or explosion)";
    case RULES_DICE_ERR_COMMENT:
        return "a comment may not hold control characters";
    default:
        return "dice error";
    }
}
