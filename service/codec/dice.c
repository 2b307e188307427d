/* The dice members every rolling endpoint shares, and a roll as JSON (dice.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "rules/rules.h"
#include "service/codec/dice.h"
#include "service/http/http.h"
#include "service/http/problem.h"
#include "service/http/request.h"
#include "service/json/errors.h"
#include "service/json/fields.h"
#include "service/json/writer.h"
#include "text/text.h"

/* Seeds are kept within JSON's exactly representable integers so every client can echo them. */
#define SEED_MAX 9007199254740991LL

static const char *keep_name(enum rules_dice_keep k)
{
    switch (k) {
    case RULES_KEEP_HIGHEST:
        return "keep_highest";
    case RULES_KEEP_LOWEST:
        return "keep_lowest";
    case RULES_DROP_LOWEST:
        return "drop_lowest";
    case RULES_DROP_HIGHEST:
        return "drop_highest";
    case RULES_KEEP_ALL:
        break;
    }
    return "all";
}

static const char *compare_name(enum rules_dice_compare c)
{
    switch (c) {
    case RULES_SELECT_BELOW:
        return "below";
    case RULES_SELECT_ABOVE:
        return "above";
    case RULES_SELECT_EQUAL:
        break;
    }
    return "equal";
}

/* A select's members (a reroll's or an explosion's): what it compares and the face. */
static void write_select(struct jw *w, const struct rules_dice_select *sel)
{
    JW_STRING(w, "compare", compare_name(sel->cmp));
    JW_INT(w, "face", sel->n);
}

/* The members of a dice term beyond the original notation's, each only when used, so that an
 * answer to the old notation is unchanged. */
static void write_term_extras(struct jw *w, const struct rules_dice_term *t)
{
    if (t->reroll != RULES_REROLL_NONE) {
        JW_KEY(w, "reroll");
        jw_object_begin(w);
        write_select(w, &t->reroll_on);
        JW_INT(w, "times", t->reroll == RULES_REROLL_ONCE ? 1 : RULES_DICE_MAX_REROLLS);
        jw_object_end(w);
    }
    if (t->min_face != 0)
        JW_INT(w, "min_face", t->min_face);
    if (t->max_face != 0)
        JW_INT(w, "max_face", t->max_face);
    if (t->explode) {
        JW_KEY(w, "explode");
        jw_object_begin(w);
        write_select(w, &t->explode_on);
        JW_INT(w, "depth", RULES_DICE_EXPLODE_DEPTH);
        jw_object_end(w);
    }
}

static void write_die(struct jw *w, const struct rules_die *x)
{
    jw_object_begin(w);
    JW_INT(w, "value", x->value);
    JW_BOOL(w, "kept", x->kept);
    if (x->rolled != x->value)
        JW_INT(w, "rolled", x->rolled);
    if (x->rerolled)
        JW_BOOL(w, "rerolled", true);
    if (x->exploded)
        JW_BOOL(w, "exploded", true);
    jw_object_end(w);
}

/* The roll's text (rules_dice_text) as the member "text", in a buffer of its own length. */
static void write_text(struct jw *w, const char *text, const struct rules_dice_expr *expr,
                       const struct rules_roll *roll)
{
    char small[512];
    size_t n = rules_dice_text(text, expr, roll, small, sizeof small);
    if (n < sizeof small) {
        JW_KEY(w, "text");
        jw_stringn(w, small, n);
        return;
    }
    char *big = malloc(n + 1);
    if (big == NULL)
        return; /* out of memory: the answer lacks text */
    rules_dice_text(text, expr, roll, big, n + 1);
    JW_KEY(w, "text");
    jw_stringn(w, big, n);
    free(big);
}

void svc_write_roll(struct jw *w, const char *text, const struct rules_dice_expr *expr,
                    const struct rules_roll *roll)
{
    int min = 0, max = 0;
    rules_dice_range(expr, &min, &max);
    jw_object_begin(w);
    JW_STRING(w, "expression", text);
    JW_KEY(w, "terms");
    jw_array_begin(w);
    int next_die = 0;
    for (int ti = 0; ti < expr->term_count; ti++) {
        const struct rules_dice_term *t = &expr->terms[ti];
        jw_object_begin(w);
        JW_STRING(w, "sign", t->sign < 0 ? "-" : "+");
        if (t->sides == 0) {
            JW_STRING(w, "kind", "constant");
            JW_INT(w, "value", t->value);
        } else {
            JW_STRING(w, "kind", "dice");
            JW_INT(w, "count", t->count);
            JW_INT(w, "sides", t->sides);
            JW_STRING(w, "keep", keep_name(t->keep));
            if (t->keep != RULES_KEEP_ALL)
                JW_INT(w, "keep_count", t->keep_n);
            JW_INT(w, "per_die", t->per_die);
            write_term_extras(w, t);
            JW_KEY(w, "dice");
            jw_array_begin(w);
            for (; next_die < roll->dice_count && roll->dice[next_die].term == ti; next_die++)
                write_die(w, &roll->dice[next_die]);
            jw_array_end(w);
        }
        if (t->label_len >= 2) { /* without its brackets */
            JW_KEY(w, "label");
            jw_stringn(w, text + t->label_at + 1, (size_t)t->label_len - 2u);
        }
        JW_INT(w, "total", roll->term_totals[ti]);
        jw_object_end(w);
    }
    jw_array_end(w);
    JW_INT(w, "total", roll->total);
    JW_INT(w, "min", min);
    JW_INT(w, "max", max);
    write_text(w, text, expr, roll);
    /* Avrae's habits (rules_dice_parse_said): only when typed, so other answers are unchanged. */
    if (expr->advantage != RULES_ADV_NONE)
        JW_STRING(w, "advantage",
                  expr->advantage == RULES_ADV_ADVANTAGE ? "advantage" : "disadvantage");
    if (expr->comment_len > 0) {
        JW_KEY(w, "comment");
        jw_stringn(w, text + expr->comment_at, (size_t)expr->comment_len);
    }
    jw_object_end(w);
}

json_t *svc_encode_roll(const char *text, const struct rules_dice_expr *expr,
                        const struct rules_roll *roll)
{
    struct jw w;
    jw_init_tree(&w);
    svc_write_roll(&w, text, expr, roll);
    return jw_finish_tree(&w);
}

bool svc_parse_dice(const char *text, struct rules_dice_expr *expr, struct svc_errors *e)
{
    size_t at = 0, len = 0;
    int rc = rules_dice_parse_said(text, expr, &at, &len);
    if (rc == RULES_DICE_OK)
        return true;
    /* The parser counts bytes; the message counts characters and quotes whole ones (text.h),
     * so that a refused label in any script is quoted as written. */
    size_t n = strlen(text), from = at;
    while (from > 0 && ((unsigned char)text[from] & 0xc0) == 0x80)
        from--;
    size_t chars = text_chars_before(text, n, from);
    size_t quote = text_prefix(text + from, n - from, SIZE_MAX, at + len - from);
    if (quote < at + len - from)
        quote = text_prefix(text + from, n - from, text_chars(text + from, quote) + 1, n - from);
    if (len > 0)
        svc_errors_add(e, "/expression", "%s (at character %zu: '%.*s')", rules_dice_strerror(rc),
                       chars, (int)quote, text + from);
    else
        svc_errors_add(e, "/expression", "%s (at character %zu)", rules_dice_strerror(rc), chars);
    return false;
}

static long long fresh_seed(void)
{
    uint64_t raw = 0;
    if (getrandom(&raw, sizeof raw, 0) != (ssize_t)sizeof raw)
        raw = (uint64_t)(uintptr_t)&raw; /* not reached in practice; still a valid seed */
    return (long long)(raw & (uint64_t)SEED_MAX);
}

void svc_decode_dice_source(json_t *body, struct svc_dice_source *src, struct svc_errors *e)
{
    src->seed = -1;
    src->count = 0;
    src->supplied = false;
    json_t *results = NULL;
    codec_get_int(body, "", "seed", false, 0, SEED_MAX, &src->seed, e);
    if (!codec_get_array(body, "", "results", false, RULES_DICE_MAX_DRAWS, &results, e))
        return;
    svc_decode_dice_results(results, src, e);
    if (src->seed >= 0)
        svc_errors_add(e, "/results", "give either seed or results, not both");
}

void svc_decode_dice_results(json_t *results, struct svc_dice_source *src, struct svc_errors *e)
{
    src->supplied = true;
    size_t i;
    json_t *item;
    json_array_foreach(results, i, item)
    {
        if (src->count >= RULES_DICE_MAX_DRAWS) {
            svc_errors_add(e, "/results", "at most %d results", RULES_DICE_MAX_DRAWS);
            return;
        }
        if (!json_is_integer(item) || json_integer_value(item) < 1 ||
            json_integer_value(item) > RULES_DICE_MAX_SIDES) {
            char ptr[CODEC_PTR_MAX]; /* only for the error: snprintf per result showed */
            snprintf(ptr, sizeof ptr, "/results/%zu", i);
            svc_errors_add(e, ptr, "must be an integer die result from 1 to %d",
                           RULES_DICE_MAX_SIDES);
        } else {
            src->results[src->count++] = (int)json_integer_value(item);
        }
    }
}

void svc_dice_source_open(struct svc_dice_source *src, struct rules_dice *d)
{
    if (src->supplied) {
        rules_dice_from_supplied(d, src->results, src->count);
        return;
    }
    if (src->seed < 0)
        src->seed = fresh_seed();
    rules_dice_from_seed(d, (uint64_t)src->seed);
}

void svc_dice_source_describe(const struct svc_dice_source *src, json_t *doc)
{
    json_object_set_new(doc, "source", json_string(src->supplied ? "supplied" : "seed"));
    if (!src->supplied)
        json_object_set_new(doc, "seed", json_integer(src->seed));
}
