/* The stateless answers told for a human (issue #18): `explain`, one plain-text sentence a chat
 * bot can post as it is, and `explain_markdown`, the same in Discord markdown (totals in bold,
 * dice Avrae style from the roll's own `text`: dropped dice struck through). Each is made from
 * the answer document the handler built, so it states exactly the figures the answer carries;
 * nothing here rules. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "jsonw.h"
#include "svc.h"

#define EXPLAIN_MAX 2048

struct told {
    char plain[EXPLAIN_MAX], md[EXPLAIN_MAX];
    size_t pl, ml;
};

static void vput(char *buf, size_t *len, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

static void vput(char *buf, size_t *len, const char *fmt, va_list ap)
{
    if (*len + 1 >= EXPLAIN_MAX)
        return;
    int n = vsnprintf(buf + *len, EXPLAIN_MAX - *len, fmt, ap);
    if (n > 0)
        *len = *len + (size_t)n < EXPLAIN_MAX ? *len + (size_t)n : EXPLAIN_MAX - 1;
}

static void plain(struct told *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void plain(struct told *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vput(t->plain, &t->pl, fmt, ap);
    va_end(ap);
}

static void md(struct told *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void md(struct told *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vput(t->md, &t->ml, fmt, ap);
    va_end(ap);
}

static void both(struct told *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void both(struct told *t, const char *fmt, ...)
{
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    vput(t->plain, &t->pl, fmt, ap);
    vput(t->md, &t->ml, fmt, aq);
    va_end(aq);
    va_end(ap);
}

/* A figure: bare in plain, bold in markdown; unit may be "". */
static void bold(struct told *t, long long v, const char *unit)
{
    plain(t, "%lld%s", v, unit);
    md(t, "**%lld%s**", v, unit);
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

static void finish(struct told *t, json_t *doc)
{
    json_object_set_new(doc, "explain", json_string(t->plain));
    json_object_set_new(doc, "explain_markdown", json_string(t->md));
}

/* A roll, Avrae style from the roll's own text ("4d6kh3 (5, 5, ~~3~~, **6**) + 2 = `18`"):
 * in markdown with the total in bold instead of backticks; in plain text with no markup, a
 * struck die (dropped, or replaced by a reroll) said in words ("4d6kh3 (5, 5, 3 not counted,
 * 6) + 2 = 18"). */
static void say_roll(struct told *t, json_t *roll)
{
    const char *text = str(roll, "text");
    if (*text == '\0') {
        both(t, "%s = ", str(roll, "expression"));
        bold(t, num(roll, "total"), "");
        return;
    }
    bool struck = false;
    for (const char *p = text; *p; p++) {
        if (p[0] == '*' && p[1] == '*') {
            md(t, "**");
            p++;
        } else if (p[0] == '~' && p[1] == '~') {
            md(t, "~~");
            if (struck)
                plain(t, " not counted");
            struck = !struck;
            p++;
        } else if (*p == '`') {
            md(t, "**");
        } else {
            both(t, "%c", *p);
        }
    }
}

void svc_explain_roll(json_t *doc)
{
    struct told t = {.pl = 0};
    both(&t, "Rolled ");
    say_roll(&t, doc);
    both(&t, ".");
    finish(&t, doc);
}

void svc_explain_distance(json_t *doc, const char *from, const char *to)
{
    struct told t = {.pl = 0};
    long long squares = num(doc, "squares");
    if (from != NULL || to != NULL)
        both(&t, "%s and %s are ", from ? from : "The first", to ? to : "the second");
    else
        both(&t, "The two are ");
    bold(&t, num(doc, "feet"), " ft");
    both(&t, " apart (%lld square%s", squares, squares == 1 ? "" : "s");
    if (json_object_get(doc, "diagonal_steps") != NULL && num(doc, "diagonal_steps") > 0)
        both(&t, ": %lld straight and %lld diagonal step%s", num(doc, "straight_steps"),
             num(doc, "diagonal_steps"), num(doc, "diagonal_steps") == 1 ? "" : "s");
    if (num(doc, "vertical_squares") != 0)
        both(&t, ", %lld up or down", num(doc, "vertical_squares"));
    both(&t, "; %s).", str(doc, "rule"));
    finish(&t, doc);
}

void svc_explain_flanking(json_t *doc, const char *attacker, const char *target, const char *by)
{
    struct told t = {.pl = 0};
    char target_text[80];
    snprintf(target_text, sizeof target_text, "%s", target ? target : "The target");
    if (json_is_true(json_object_get(doc, "flanked"))) {
        char how[64];
        snprintf(how, sizeof how, "%s", str(doc, "how"));
        for (char *p = how; *p; p++)
            if (*p == '_')
                *p = ' ';
        if (by != NULL)
            both(&t, "%s is flanked by %s (%s): ", target_text, by, how);
        else
            both(&t, "%s is flanked by ally %lld (%s): ", target_text, num(doc, "by"), how);
        plain(&t, "%+lld", num(doc, "bonus"));
        md(&t, "**%+lld**", num(doc, "bonus"));
        if (attacker != NULL)
            both(&t, " on %s's melee attack (%s).", attacker, str(doc, "rule"));
        else
            both(&t, " on the attacker's melee attack (%s).", str(doc, "rule"));
    } else {
        both(&t, "%s is not flanked: %s (%s).", target_text, str(doc, "explanation"),
             str(doc, "rule"));
    }
    finish(&t, doc);
}

void svc_explain_areas(json_t *doc)
{
    struct told t = {.pl = 0};
    size_t n = json_array_size(json_object_get(doc, "squares"));
    both(&t, "Within %lld ft: ", num(doc, "radius_ft"));
    bold(&t, (long long)n, "");
    both(&t, " square%s", n == 1 ? "" : "s");
    if (json_is_true(json_object_get(doc, "has_facing"))) {
        const char *k;
        json_t *v;
        int i = 0;
        json_object_foreach(json_object_get(doc, "counts"), k, v)
        {
            if (json_integer_value(v) > 0 && strcmp(k, "none") != 0)
                both(&t, "%s%lld %s", i++ ? ", " : " (", json_integer_value(v), k);
        }
        if (i > 0)
            both(&t, ")");
    }
    both(&t, ", %lld threatened; %s.", num(doc, "threatened_count"), str(doc, "rule"));
    finish(&t, doc);
}

/* ": 8 damage (2d6 = 8 (dice 6, 2))" after DR when any. */
static void say_impact(struct told *t, json_t *doc)
{
    json_t *dice = json_object_get(doc, "dice");
    both(t, ": ");
    bold(t, num(doc, "damage"), "");
    both(t, " damage");
    if (num(doc, "damage_reduction") > 0)
        both(t, " after DR %lld", num(doc, "damage_reduction"));
    if (json_is_object(dice)) {
        both(t, " (");
        say_roll(t, dice);
        both(t, ")");
    }
    if (json_is_true(json_object_get(doc, "capped")))
        both(t, ", the dice capped");
}

void svc_explain_falling(json_t *doc)
{
    struct told t = {.pl = 0};
    both(&t, "A fall of %lld ft onto %s", num(doc, "height_ft"), str(doc, "surface"));
    if (json_is_true(json_object_get(doc, "water")))
        both(&t, " (water)");
    say_impact(&t, doc);
    json_t *conds = json_object_get(doc, "conditions");
    size_t i;
    json_t *c;
    json_array_foreach(conds, i, c)
    {
        both(&t, "%s%s", i ? " and " : "; the faller lands ", json_string_value(c));
    }
    both(&t, " (%s).", str(doc, "rule"));
    finish(&t, doc);
}

void svc_explain_collision(json_t *doc)
{
    struct told t = {.pl = 0};
    both(&t, "A %s collision at %lld ft", str(doc, "motion"), num(doc, "speed_ft"));
    if (json_is_true(json_object_get(doc, "deliberate")))
        both(&t, ", deliberate");
    say_impact(&t, doc);
    both(&t, " (%s).", str(doc, "rule"));
    finish(&t, doc);
}

void svc_explain_dropped(json_t *doc)
{
    struct told t = {.pl = 0};
    both(&t, "A %s %s object dropped %lld ft", str(doc, "size"), str(doc, "material"),
         num(doc, "distance_ft"));
    say_impact(&t, doc);
    size_t i;
    json_t *h;
    json_array_foreach(json_object_get(doc, "targets"), i, h)
    {
        both(&t, "; target %lld: d20 %lld, total ", num(h, "index"), num(h, "d20"));
        bold(&t, num(h, "roll_total"), "");
        both(&t, " vs touch AC %lld, %s", num(h, "touch_ac"),
             json_is_true(json_object_get(h, "hit")) ? "hit" : "miss");
        if (json_is_true(json_object_get(h, "hit")))
            both(&t, " for %lld", num(h, "damage"));
    }
    both(&t, " (%s).", str(doc, "rule"));
    finish(&t, doc);
}

void svc_explain_travel(json_t *doc)
{
    struct told t = {.pl = 0};
    json_t *total = json_object_get(doc, "total");
    json_t *pace = json_object_get(doc, "pace");
    double miles = json_real_value(json_object_get(total, "miles"));
    long long days = num(total, "travel_days");
    plain(&t, "%.1f miles", miles);
    md(&t, "**%.1f miles**", miles);
    both(&t,
         " in %lld day%s of travel (%.1f hours on the move, %.1f elapsed), at %.2f miles an "
         "hour",
         days, days == 1 ? "" : "s", json_real_value(json_object_get(total, "hours_travelled")),
         json_real_value(json_object_get(total, "elapsed_hours")),
         json_real_value(json_object_get(pace, "miles_per_hour")));
    if (num(total, "hustle_damage") > 0)
        both(&t, "; hustling dealt %lld", num(total, "hustle_damage"));
    if (num(total, "forced_march_damage") > 0)
        both(&t, "; the forced march dealt %lld", num(total, "forced_march_damage"));
    if (json_is_true(json_object_get(total, "fatigued")))
        both(&t, "; the travellers end fatigued");
    both(&t, " (%s).", str(doc, "rule"));
    finish(&t, doc);
}

struct mdbuf {
    char *out;
    size_t cap, n;
};

static void put(struct mdbuf *m, const char *text, size_t len)
{
    for (size_t i = 0; i < len && m->n + 1 < m->cap; i++)
        m->out[m->n++] = text[i];
}

static bool letter(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static bool digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Discord markdown of a plain sentence: characters markdown would read escaped with a
 * backslash, and each figure in bold: a number with its unit when one follows ("30 ft",
 * "55%", "2d6"), and the verdicts Legal and Illegal. */
static void markdown_of(const char *plain, char *out, size_t cap)
{
    struct mdbuf m = {out, cap, 0};
    for (const char *p = plain; *p != '\0';) {
        bool after_word =
            p > plain && (letter(p[-1]) || digit(p[-1]) || p[-1] == '.' || p[-1] == '_');
        size_t verdict = strncmp(p, "Legal", 5) == 0 ? 5 : strncmp(p, "Illegal", 7) == 0 ? 7 : 0;
        if (verdict > 0 && !after_word) {
            put(&m, "**", 2);
            put(&m, p, verdict);
            put(&m, "**", 2);
            p += verdict;
            continue;
        }
        bool negative = *p == '-' && digit(p[1]);
        if ((digit(*p) || negative) && !after_word) {
            const char *q = p + negative;
            while (digit(*q) || ((*q == '.' || *q == 'd') && digit(q[1])))
                q++;
            if (*q == '%')
                q++;
            else if (strncmp(q, " ft", 3) == 0 && !letter(q[3]))
                q += 3;
            put(&m, "**", 2);
            put(&m, p, (size_t)(q - p));
            put(&m, "**", 2);
            p = q;
            continue;
        }
        if (strchr("*_~`|>\\", *p) != NULL)
            put(&m, "\\", 1);
        put(&m, p, 1);
        p++;
    }
    out[m.n] = '\0';
}

void svc_write_explains(struct jw *w, const char *plain)
{
    char md[EXPLAIN_MAX * 2];
    markdown_of(plain, md, sizeof md);
    JW_KEY(w, "explain");
    jw_string(w, plain);
    JW_KEY(w, "explain_markdown");
    jw_string(w, md);
}
