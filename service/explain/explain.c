/* The stateless answers told for a human (issue #18): `explain`, one plain-text sentence a chat
 * bot can post as it is, and `explain_markdown`, the same in Discord markdown (totals in bold,
 * dice Avrae style from the roll's own `text`: dropped dice struck through). Each is made from
 * the answer document the handler built, so it states exactly the figures the answer carries;
 * nothing here rules. */
#include <assert.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/explain/explain.h"
#include "service/json/writer.h"
#include "text/decimal.h"
#include "text/text.h"

#define EXPLAIN_MAX 2048

/* Appends the n bytes at s to buf (cap bytes, cap > 0) at *len as far as whole characters fit
 * (text.h: a name is never cut inside a letter, its marks or an emoji); a text cut here ends
 * the buffer: *len becomes cap - 1, so that nothing is appended after the cut, and buf stays a
 * string. */
static void put_chars(char *buf, size_t cap, size_t *len, const char *s, size_t n)
{
    if (*len + 1 >= cap)
        return;
    size_t room = cap - 1 - *len;
    size_t take = n <= room ? n : text_prefix(s, n, SIZE_MAX, room);
    memcpy(buf + *len, s, take);
    *len += take;
    buf[*len] = '\0';
    if (take < n)
        *len = cap - 1;
}

/* Appends fmt's text to buf as put_chars does. */
static void vput(char *buf, size_t cap, size_t *len, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

static void vput(char *buf, size_t cap, size_t *len, const char *fmt, va_list ap)
{
    if (*len + 1 >= cap)
        return;
    if (strchr(fmt, '%') == NULL) {
        put_chars(buf, cap, len, fmt, strlen(fmt));
        return;
    }
    char small[512];
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n >= 0 && (size_t)n < sizeof small) {
        put_chars(buf, cap, len, small, (size_t)n);
    } else if (n > 0) {
        char *big = malloc((size_t)n + 1);
        if (big != NULL) {
            vsnprintf(big, (size_t)n + 1, fmt, aq);
            put_chars(buf, cap, len, big, (size_t)n);
        }
        free(big);
    }
    va_end(aq);
}

/* Appends n bytes of s to buf as vput does; with `whole`, only when all n fit, so that an
 * escape is never cut from the character it escapes. A text cut here ends at its NUL and *len
 * becomes cap - 1, as vput leaves a cut text, so that nothing is appended after the cut. */
static void putn(char *buf, size_t cap, size_t *len, const char *s, size_t n, bool whole)
{
    if (whole && *len + n >= cap) {
        buf[*len] = '\0';
        *len = cap - 1;
        return;
    }
    put_chars(buf, cap, len, s, n);
}

static bool digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Characters Discord markdown reads as markup wherever they stand: emphasis and underline (*, _),
 * strikethrough (~), code (`), spoilers (|), quotes (>), headings (#), masked links ([x](y)),
 * mentions and their like (<@id>, @everyone), emoji codes and web links (:), and the escape
 * itself. Discord's parser takes a backslash before any character but a letter, a digit or a
 * space as that character (simple-markdown's escape rule), so escaping one too many shows
 * nothing. */
static bool md_markup(char c)
{
    return c != '\0' && strchr("\\*_~`|>#[]()<@:", c) != NULL;
}

/* Escapes user text for Discord markdown into buf: each markup character above; and at the
 * start of the text or of one of its lines, past any spaces, what would open a list: '-' or '+'
 * ("- x", "-# x"), or the '.' after a number ("1. x"). */
static void put_escaped(char *buf, size_t cap, size_t *len, const char *text, size_t n)
{
    bool line_start = true, number = false;
    /* Escaped a character at a time (text.h), each whole or not at all. */
    char stack[256], *starts = n <= sizeof stack ? stack : malloc(n);
    if (starts == NULL)
        return;
    text_char_starts(text, n, starts);
    char out[64];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char c = text[i];
        bool escape =
            md_markup(c) || (line_start && (c == '-' || c == '+')) || (number && c == '.');
        if (escape)
            out[k++] = '\\';
        out[k++] = c;
        if (i + 1 == n || starts[i + 1] || k + 2 >= sizeof out) {
            putn(buf, cap, len, out, k, true);
            k = 0;
        }
        if (c == '\n' || c == '\r') {
            line_start = true, number = false;
        } else if (c == ' ' && line_start) {
        } else if (digit(c) && (line_start || number)) {
            line_start = false, number = true;
        } else {
            line_start = number = false;
        }
    }
    if (starts != stack)
        free(starts);
}

size_t svc_md_escape(const char *text, char *out, size_t cap)
{
    size_t len = 0;
    if (cap == 0)
        return 0;
    out[0] = '\0';
    put_escaped(out, cap, &len, text, strlen(text));
    return strlen(out);
}

void svc_told_init(struct svc_told *t, char *plain, size_t plain_cap, char *md, size_t md_cap)
{
    assert(plain_cap > 0 && md_cap > 0);
    *t = (struct svc_told){plain, md, plain_cap, md_cap, 0, 0};
    plain[0] = md[0] = '\0';
}

void svc_told_plain(struct svc_told *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vput(t->plain, t->plain_cap, &t->pl, fmt, ap);
    va_end(ap);
}

void svc_told_md(struct svc_told *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vput(t->md, t->md_cap, &t->ml, fmt, ap);
    va_end(ap);
}

/* fmt's text, formatted once for both texts (plain and markdown): into small when it fits, else
 * into *big (malloc'd, the caller frees it; NULL when out of memory, and then the length is 0). A
 * format without '%' is its own text. */
static const char *format_once(char *small, size_t cap, char **big, size_t *n, const char *fmt,
                               va_list ap) __attribute__((format(printf, 5, 0)));

static const char *format_once(char *small, size_t cap, char **big, size_t *n, const char *fmt,
                               va_list ap)
{
    *big = NULL;
    *n = 0;
    if (strchr(fmt, '%') == NULL) {
        *n = strlen(fmt);
        return fmt;
    }
    va_list aq;
    va_copy(aq, ap);
    int len = vsnprintf(small, cap, fmt, ap);
    const char *text = small;
    if (len >= 0 && (size_t)len >= cap) {
        *big = malloc((size_t)len + 1);
        text = *big;
        if (*big != NULL)
            vsnprintf(*big, (size_t)len + 1, fmt, aq);
    }
    va_end(aq);
    if (len > 0 && text != NULL)
        *n = (size_t)len;
    return text != NULL ? text : "";
}

void svc_told_textn(struct svc_told *t, const char *s, size_t n)
{
    if (n == 0) /* nothing to put (an attack's sentence tells a few empty clauses): both texts */
        return; /* already end in their NUL */
    put_chars(t->plain, t->plain_cap, &t->pl, s, n);
    put_chars(t->md, t->md_cap, &t->ml, s, n);
}

void svc_told_str(struct svc_told *t, const char *s)
{
    svc_told_textn(t, s, strlen(s));
}

static void bold_n(struct svc_told *t, const char *s, size_t n);

/* fmt's text with ap, told bare or (bold) as a figure. */
static void told_formatted(struct svc_told *t, bool bold, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static void told_formatted(struct svc_told *t, bool bold, const char *fmt, va_list ap)
{
    char small[512], *big;
    size_t n;
    const char *s = format_once(small, sizeof small, &big, &n, fmt, ap);
    if (bold)
        bold_n(t, s, n);
    else
        svc_told_textn(t, s, n);
    free(big);
}

void svc_told_text(struct svc_told *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    told_formatted(t, false, fmt, ap);
    va_end(ap);
}

/* A figure already written: bare in plain, bold in md. */
static void bold_n(struct svc_told *t, const char *s, size_t n)
{
    put_chars(t->plain, t->plain_cap, &t->pl, s, n);
    putn(t->md, t->md_cap, &t->ml, "**", 2, false);
    put_chars(t->md, t->md_cap, &t->ml, s, n);
    putn(t->md, t->md_cap, &t->ml, "**", 2, false);
}

void svc_told_bold(struct svc_told *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    told_formatted(t, true, fmt, ap);
    va_end(ap);
}

void svc_told_int(struct svc_told *t, long long v)
{
    char num[TEXT_DECIMAL_MAX];
    size_t n;
    const char *s = text_decimal(num, v, false, &n);
    svc_told_textn(t, s, n);
}

void svc_told_signed(struct svc_told *t, long long v)
{
    char num[TEXT_DECIMAL_MAX];
    size_t n;
    const char *s = text_decimal(num, v, true, &n);
    svc_told_textn(t, s, n);
}

void svc_told_plain_str(struct svc_told *t, const char *s)
{
    put_chars(t->plain, t->plain_cap, &t->pl, s, strlen(s));
}

void svc_told_plain_strn(struct svc_told *t, const char *s, size_t n)
{
    put_chars(t->plain, t->plain_cap, &t->pl, s, n);
}

void svc_told_plain_int(struct svc_told *t, long long v)
{
    char num[TEXT_DECIMAL_MAX];
    size_t n;
    const char *s = text_decimal(num, v, false, &n);
    put_chars(t->plain, t->plain_cap, &t->pl, s, n);
}

void svc_told_md_str(struct svc_told *t, const char *s)
{
    put_chars(t->md, t->md_cap, &t->ml, s, strlen(s));
}

void svc_told_md_int(struct svc_told *t, long long v)
{
    char num[TEXT_DECIMAL_MAX];
    size_t n;
    const char *s = text_decimal(num, v, false, &n);
    put_chars(t->md, t->md_cap, &t->ml, s, n);
}

void svc_told_bold_int(struct svc_told *t, long long v)
{
    char num[TEXT_DECIMAL_MAX];
    size_t n;
    const char *s = text_decimal(num, v, false, &n);
    bold_n(t, s, n);
}

void svc_told_d20_rolled(struct svc_told *t, int d20, int bonus)
{
    svc_told_textn(t, "1d20", 4);
    if (d20 > 0) {
        /* rules_dice_text's draw: bold when it is the die's 1 or its top face. */
        bool edge = d20 == 1 || d20 == 20;
        svc_told_textn(t, " (", 2);
        if (edge)
            putn(t->md, t->md_cap, &t->ml, "**", 2, false);
        svc_told_int(t, d20);
        if (edge)
            putn(t->md, t->md_cap, &t->ml, "**", 2, false);
        svc_told_textn(t, ")", 1);
    }
    if (bonus != 0) {
        svc_told_textn(t, bonus < 0 ? " - " : " + ", 3);
        svc_told_int(t, bonus < 0 ? -(long long)bonus : bonus);
    }
}

void svc_told_d20(struct svc_told *t, int d20, int bonus, int total)
{
    svc_told_d20_rolled(t, d20, bonus);
    if (d20 > 0) {
        /* The total: Avrae's backticks, bold here as in every roll's explain_markdown. */
        svc_told_textn(t, " = ", 3);
        svc_told_bold_int(t, total);
    }
}

void svc_told_usern(struct svc_told *t, const char *text, size_t n)
{
    put_chars(t->plain, t->plain_cap, &t->pl, text, n);
    put_escaped(t->md, t->md_cap, &t->ml, text, n);
}

void svc_told_user(struct svc_told *t, const char *text)
{
    svc_told_usern(t, text, strlen(text));
}

void svc_told_seal(struct svc_told *t)
{
    /* A text put a byte at a time (markdown_of) may end inside a character at the cap; one
     * that never reached its cap was put whole characters at a time. */
    if (t->pl + 1 >= t->plain_cap)
        t->plain[text_valid_prefix(t->plain, strlen(t->plain))] = '\0';
    if (t->ml + 1 >= t->md_cap)
        t->md[text_valid_prefix(t->md, strlen(t->md))] = '\0';
}

void svc_write_told(struct jw *w, const struct svc_told *t)
{
    struct svc_told sealed = *t;
    svc_told_seal(&sealed);
    JW_KEY(w, "explain");
    jw_string(w, t->plain);
    JW_KEY(w, "explain_markdown");
    jw_string(w, t->md);
}

/* The answers below tell their sentence into these: markdown may be twice as long as the plain
 * text where user text is escaped. */
struct told {
    struct svc_told t;
    char plain[EXPLAIN_MAX], md[2 * EXPLAIN_MAX];
};

#define TOLD_INIT(x) svc_told_init(&(x).t, (x).plain, sizeof(x).plain, (x).md, sizeof(x).md)

/* A figure: bare in plain, bold in markdown; unit may be "". */
static void bold(struct svc_told *t, long long v, const char *unit)
{
    svc_told_bold(t, "%lld%s", v, unit);
}

static long long num(json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

static const char *str(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static void finish(struct svc_told *t, json_t *doc)
{
    json_object_set_new(doc, "explain", json_string(t->plain));
    json_object_set_new(doc, "explain_markdown", json_string(t->md));
}

/* A roll, Avrae style from the roll's own text ("4d6kh3 (5, 5, ~~3~~, **6**) + 2 = `18`"):
 * in markdown with the total in bold instead of backticks; in plain text with no markup, a
 * struck die (dropped, or replaced by a reroll) said in words ("4d6kh3 (5, 5, 3 not counted,
 * 6) + 2 = 18"). A label ("[fire]") is the user's text, the only '[' the text holds (a label
 * holds no '[' or ']': rules/dice.c): shown as written in plain, escaped in markdown, and never
 * read as the roll's markup. */
static void say_roll(struct svc_told *t, json_t *roll)
{
    const char *text = str(roll, "text");
    if (*text == '\0') {
        svc_told_user(t, str(roll, "expression"));
        svc_told_text(t, " = ");
        bold(t, num(roll, "total"), "");
        return;
    }
    bool struck = false;
    for (const char *p = text; *p; p++) {
        if (*p == '[') {
            size_t n = strcspn(p, "]");
            n += p[n] == ']';
            svc_told_usern(t, p, n);
            p += n - 1;
        } else if (p[0] == '*' && p[1] == '*') {
            svc_told_md(t, "**");
            p++;
        } else if (p[0] == '~' && p[1] == '~') {
            svc_told_md(t, "~~");
            if (struck)
                svc_told_plain(t, " not counted");
            struck = !struck;
            p++;
        } else if (*p == '`') {
            svc_told_md(t, "**");
        } else {
            svc_told_text(t, "%c", *p);
        }
    }
}

void svc_explain_roll(json_t *doc)
{
    struct told x;
    TOLD_INIT(x);
    struct svc_told *t = &x.t;
    svc_told_text(t, "Rolled ");
    say_roll(t, doc);
    const char *adv = str(doc, "advantage");
    if (*adv != '\0') /* the d20 rolled twice shows as 2d20kh1 or 2d20kl1 in the roll */
        svc_told_text(t, " with %s", adv);
    if (json_object_get(doc, "comment") != NULL) {
        svc_told_text(t, " (");
        svc_told_user(t, str(doc, "comment"));
        svc_told_text(t, ")");
    }
    svc_told_text(t, ".");
    finish(t, doc);
}

void svc_explain_distance(json_t *doc, const char *from, const char *to)
{
    struct told x;
    TOLD_INIT(x);
    struct svc_told *t = &x.t;
    long long squares = num(doc, "squares");
    if (from != NULL || to != NULL) {
        if (from != NULL)
            svc_told_user(t, from);
        else
            svc_told_text(t, "The first");
        svc_told_text(t, " and ");
        if (to != NULL)
            svc_told_user(t, to);
        else
            svc_told_text(t, "the second");
        svc_told_text(t, " are ");
    } else
        svc_told_text(t, "The two are ");
    bold(t, num(doc, "feet"), " ft");
    svc_told_text(t, " apart (%lld square%s", squares, squares == 1 ? "" : "s");
    if (json_object_get(doc, "diagonal_steps") != NULL && num(doc, "diagonal_steps") > 0)
        svc_told_text(t, ": %lld straight and %lld diagonal step%s", num(doc, "straight_steps"),
                      num(doc, "diagonal_steps"), num(doc, "diagonal_steps") == 1 ? "" : "s");
    if (num(doc, "vertical_squares") != 0)
        svc_told_text(t, ", %lld up or down", num(doc, "vertical_squares"));
    svc_told_text(t, "; %s).", str(doc, "rule"));
    finish(t, doc);
}

/* A name: the user's (escaped in markdown) when given, else the sentence's own words. */
static void say_name(struct svc_told *t, const char *name, bool from_user)
{
    if (from_user)
        svc_told_user(t, name);
    else
        svc_told_text(t, "%s", name);
}

void svc_explain_flanking(json_t *doc, const char *attacker, const char *target, const char *by)
{
    struct told x;
    TOLD_INIT(x);
    struct svc_told *t = &x.t;
    char target_text[512];
    text_copy(target_text, sizeof target_text, target ? target : "The target", SIZE_MAX);
    if (json_is_true(json_object_get(doc, "flanked"))) {
        char how[64];
        snprintf(how, sizeof how, "%s", str(doc, "how"));
        for (char *p = how; *p; p++)
            if (*p == '_')
                *p = ' ';
        say_name(t, target_text, target != NULL);
        svc_told_text(t, " is flanked by ");
        if (by != NULL)
            svc_told_user(t, by);
        else
            svc_told_text(t, "ally %lld", num(doc, "by"));
        svc_told_text(t, " (%s): ", how);
        svc_told_bold(t, "%+lld", num(doc, "bonus"));
        svc_told_text(t, " on ");
        if (attacker != NULL) {
            svc_told_user(t, attacker);
            svc_told_text(t, "'s");
        } else {
            svc_told_text(t, "the attacker's");
        }
        svc_told_text(t, " melee attack (%s).", str(doc, "rule"));
    } else {
        say_name(t, target_text, target != NULL);
        svc_told_text(t, " is not flanked: %s (%s).", str(doc, "explanation"), str(doc, "rule"));
    }
    finish(t, doc);
}

void svc_explain_areas(json_t *doc)
{
    struct told x;
    TOLD_INIT(x);
    struct svc_told *t = &x.t;
    size_t n = json_array_size(json_object_get(doc, "squares"));
    svc_told_text(t, "Within %lld ft: ", num(doc, "radius_ft"));
    bold(t, (long long)n, "");
    svc_told_text(t, " square%s", n == 1 ? "" : "s");
    if (json_is_true(json_object_get(doc, "has_facing"))) {
        const char *k;
        json_t *v;
        int i = 0;
        json_object_foreach(json_object_get(doc, "counts"), k, v)
        {
            if (json_integer_value(v) > 0 && strcmp(k, "none") != 0)
                svc_told_text(t, "%s%lld %s", i++ ? ", " : " (", json_integer_value(v), k);
        }
        if (i > 0)
            svc_told_text(t, ")");
    }
    svc_told_text(t, ", %lld threatened; %s.", num(doc, "threatened_count"), str(doc, "rule"));
    finish(t, doc);
}

/* ": 8 damage (2d6 = 8 (dice 6, 2))" after DR when any. */
static void say_impact(struct svc_told *t, json_t *doc)
{
    json_t *dice = json_object_get(doc, "dice");
    svc_told_text(t, ": ");
    bold(t, num(doc, "damage"), "");
    svc_told_text(t, " damage");
    if (num(doc, "damage_reduction") > 0)
        svc_told_text(t, " after DR %lld", num(doc, "damage_reduction"));
    if (json_is_object(dice)) {
        svc_told_text(t, " (");
        say_roll(t, dice);
        svc_told_text(t, ")");
    }
    if (json_is_true(json_object_get(doc, "capped")))
        svc_told_text(t, ", the dice capped");
}

void svc_explain_falling(json_t *doc)
{
    struct told x;
    TOLD_INIT(x);
    struct svc_told *t = &x.t;
    svc_told_text(t, "A fall of %lld ft onto %s", num(doc, "height_ft"), str(doc, "surface"));
    if (json_is_true(json_object_get(doc, "water")))
        svc_told_text(t, " (water)");
    say_impact(t, doc);
    json_t *conds = json_object_get(doc, "conditions");
    size_t i;
    json_t *c;
    json_array_foreach(conds, i, c)
    {
        svc_told_text(t, "%s%s", i ? " and " : "; the faller lands ", json_string_value(c));
    }
    svc_told_text(t, " (%s).", str(doc, "rule"));
    finish(t, doc);
}

void svc_explain_collision(json_t *doc)
{
    struct told x;
    TOLD_INIT(x);
    struct svc_told *t = &x.t;
    svc_told_text(t, "A %s collision at %lld ft", str(doc, "motion"), num(doc, "speed_ft"));
    if (json_is_true(json_object_get(doc, "deliberate")))
        svc_told_text(t, ", deliberate");
    say_impact(t, doc);
    svc_told_text(t, " (%s).", str(doc, "rule"));
    finish(t, doc);
}

void svc_explain_dropped(json_t *doc)
{
    struct told x;
    TOLD_INIT(x);
    struct svc_told *t = &x.t;
    svc_told_text(t, "A %s %s object dropped %lld ft", str(doc, "size"), str(doc, "material"),
                  num(doc, "distance_ft"));
    say_impact(t, doc);
    size_t i;
    json_t *h;
    json_array_foreach(json_object_get(doc, "targets"), i, h)
    {
        svc_told_text(t, "; target %lld: d20 %lld, total ", num(h, "index"), num(h, "d20"));
        bold(t, num(h, "roll_total"), "");
        svc_told_text(t, " vs touch AC %lld, %s", num(h, "touch_ac"),
                      json_is_true(json_object_get(h, "hit")) ? "hit" : "miss");
        if (json_is_true(json_object_get(h, "hit")))
            svc_told_text(t, " for %lld", num(h, "damage"));
    }
    svc_told_text(t, " (%s).", str(doc, "rule"));
    finish(t, doc);
}

void svc_explain_travel(json_t *doc)
{
    struct told x;
    TOLD_INIT(x);
    struct svc_told *t = &x.t;
    json_t *total = json_object_get(doc, "total");
    json_t *pace = json_object_get(doc, "pace");
    double miles = json_real_value(json_object_get(total, "miles"));
    long long days = num(total, "travel_days");
    svc_told_plain(t, "%.1f miles", miles);
    svc_told_md(t, "**%.1f miles**", miles);
    svc_told_text(
        t,
        " in %lld day%s of travel (%.1f hours on the move, %.1f elapsed), at %.2f miles an "
        "hour",
        days, days == 1 ? "" : "s", json_real_value(json_object_get(total, "hours_travelled")),
        json_real_value(json_object_get(total, "elapsed_hours")),
        json_real_value(json_object_get(pace, "miles_per_hour")));
    if (num(total, "hustle_damage") > 0)
        svc_told_text(t, "; hustling dealt %lld", num(total, "hustle_damage"));
    if (num(total, "forced_march_damage") > 0)
        svc_told_text(t, "; the forced march dealt %lld", num(total, "forced_march_damage"));
    if (json_is_true(json_object_get(total, "fatigued")))
        svc_told_text(t, "; the travellers end fatigued");
    svc_told_text(t, " (%s).", str(doc, "rule"));
    finish(t, doc);
}

static bool letter(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* Discord markdown of the plain sentence's text from `from` on (the text before it is read only
 * to tell whether a figure starts a word), appended to t's markdown: characters markdown would
 * read escaped with a backslash, and each figure in bold: a number with its unit when one
 * follows ("30 ft", "55%", "2d6"), and the verdicts Legal and Illegal. */
static void markdown_of(struct svc_told *t, size_t from)
{
    const char *plain = t->plain;
    for (const char *p = plain + from; *p != '\0';) {
        bool after_word =
            p > plain && (letter(p[-1]) || digit(p[-1]) || p[-1] == '.' || p[-1] == '_');
        size_t verdict = strncmp(p, "Legal", 5) == 0 ? 5 : strncmp(p, "Illegal", 7) == 0 ? 7 : 0;
        size_t figure = 0;
        bool negative = *p == '-' && digit(p[1]);
        if (verdict == 0 && (digit(*p) || negative) && !after_word) {
            const char *q = p + negative;
            while (digit(*q) || ((*q == '.' || *q == 'd') && digit(q[1])))
                q++;
            if (*q == '%')
                q++;
            else if (strncmp(q, " ft", 3) == 0 && !letter(q[3]))
                q += 3;
            figure = (size_t)(q - p);
        }
        size_t bold = !after_word ? (verdict > 0 ? verdict : figure) : 0;
        if (bold > 0) {
            putn(t->md, t->md_cap, &t->ml, "**", 2, false);
            putn(t->md, t->md_cap, &t->ml, p, bold, false);
            putn(t->md, t->md_cap, &t->ml, "**", 2, false);
            p += bold;
            continue;
        }
        if (strchr("*_~`|>\\", *p) != NULL)
            putn(t->md, t->md_cap, &t->ml, "\\", 1, false);
        putn(t->md, t->md_cap, &t->ml, p, 1, false);
        p++;
    }
}

void svc_told_figures(struct svc_told *t, const char *fmt, ...)
{
    size_t from = t->pl;
    va_list ap;
    va_start(ap, fmt);
    vput(t->plain, t->plain_cap, &t->pl, fmt, ap);
    va_end(ap);
    markdown_of(t, from);
}

void svc_write_explains(struct jw *w, const char *plain)
{
    struct told x;
    TOLD_INIT(x);
    svc_told_figures(&x.t, "%s", plain);
    svc_write_told(w, &x.t);
}
