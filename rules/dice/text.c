/* The roll's text, as tabletop users know it (dice.h, rules_dice_text).
 *
 * This follows Avrae's dice engine, avrae/d20 (d20/stringifiers.py, MarkdownStringifier, with
 * the models of d20/models.py): a term is "{count}d{sides}{operators} ({dice})" followed by its
 * label; the dice of a term are shown in the order they were drawn, joined by ", ". A draw is
 * its face, or "rolled -> value" when mi/ma moved it, with '!' when it exploded; a draw that a
 * reroll replaced is struck through ("~~1~~"); a draw whose value is 1 or the die's top face is
 * bold outside that ("**~~1~~**"); a die that keep/drop dropped is struck through as a whole,
 * its draws inside unstruck. Terms are joined by " + " or " - ", and the total follows as
 * " = `total`": Avrae's documentation shows the total in backticks, and so do we. */
#include <stdbool.h>
#include <string.h>

#include "rules/dice/dice.h"

/* A bounded writer that counts what it could not write, like snprintf. */
struct text_out {
    char *buf;
    size_t cap;
    size_t len;
};

static void put(struct text_out *o, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++, o->len++)
        if (o->len + 1 < o->cap)
            o->buf[o->len] = s[i];
}

static void put_str(struct text_out *o, const char *s)
{
    put(o, s, strlen(s));
}

/* v as "%d" writes it (with_plus: "%+d"), by hand: snprintf was ~600 instructions a number,
 * and a rolled attack's damage text has about ten. */
static void put_signed(struct text_out *o, int v, bool with_plus)
{
    char num[16];
    char *p = num + sizeof num;
    unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (v < 0)
        *--p = '-';
    else if (with_plus)
        *--p = '+';
    put(o, p, (size_t)(num + sizeof num - p));
}

static void put_int(struct text_out *o, int v)
{
    put_signed(o, v, false);
}

/* One draw: "4", "1 -> 2", "6!", struck when a reroll replaced it (unless its whole die is
 * already struck), bold when its value is 1 or the top face. */
static void put_draw(struct text_out *o, const struct rules_die *x, bool in_dropped)
{
    bool bold = x->value == 1 || x->value == x->sides;
    bool struck = x->rerolled && !in_dropped;
    if (bold)
        put_str(o, "**");
    if (struck)
        put_str(o, "~~");
    if (x->rolled != x->value) {
        put_int(o, x->rolled);
        put_str(o, " -> ");
    }
    put_int(o, x->value);
    if (x->exploded)
        put_str(o, "!");
    if (struck)
        put_str(o, "~~");
    if (bold)
        put_str(o, "**");
}

/* The dice of one term, draws [from, to) of the roll, grouped by slot. */
static void put_dice(struct text_out *o, const struct rules_roll *roll, int from, int to)
{
    for (int i = from; i < to;) {
        int end = i; /* the slot's draws are [i, end] */
        while (end + 1 < to && roll->dice[end + 1].slot == roll->dice[i].slot)
            end++;
        bool dropped = !roll->dice[end].kept && !roll->dice[end].rerolled;
        if (i > from)
            put_str(o, ", ");
        if (dropped)
            put_str(o, "~~");
        for (int j = i; j <= end; j++) {
            if (j > i)
                put_str(o, ", ");
            put_draw(o, &roll->dice[j], dropped);
        }
        if (dropped)
            put_str(o, "~~");
        i = end + 1;
    }
}

static void put_lower(struct text_out *o, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (ch >= 'A' && ch <= 'Z')
            ch = (char)(ch - 'A' + 'a');
        put(o, &ch, 1);
    }
}

size_t rules_dice_text(const char *text, const struct rules_dice_expr *expr,
                       const struct rules_roll *roll, char *buf, size_t cap)
{
    struct text_out o = {buf, cap, 0};
    int next = 0; /* the first draw of the term */
    for (int ti = 0; ti < expr->term_count; ti++) {
        const struct rules_dice_term *t = &expr->terms[ti];
        if (ti > 0)
            put_str(&o, t->sign < 0 ? " - " : " + ");
        else if (t->sign < 0)
            put_str(&o, "-");
        if (t->sides == 0) {
            put_int(&o, t->value);
        } else {
            put_int(&o, t->count);
            put_str(&o, "d");
            put_int(&o, t->sides);
            put_lower(&o, text + t->ops_at, t->ops_len);
            if (expr->advantage != RULES_ADV_NONE && expr->advantage_term == ti)
                put_str(&o, expr->advantage == RULES_ADV_ADVANTAGE ? "kh1" : "kl1");
            if (t->per_die != 0) {
                put_str(&o, "{");
                put_signed(&o, t->per_die, true);
                put_str(&o, "}");
            }
            int end = next;
            while (end < roll->dice_count && roll->dice[end].term == ti)
                end++;
            put_str(&o, " (");
            put_dice(&o, roll, next, end);
            put_str(&o, ")");
            next = end;
        }
        if (t->label_len > 0) {
            put_str(&o, " ");
            put(&o, text + t->label_at, t->label_len);
        }
    }
    put_str(&o, " = `");
    put_int(&o, roll->total);
    put_str(&o, "`");

    if (cap > 0)
        buf[o.len < cap ? o.len : cap - 1] = '\0';
    return o.len;
}
