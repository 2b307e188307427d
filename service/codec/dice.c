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

static json_t *encode_select(const struct rules_dice_select *sel)
{
    return json_pack("{s:s, s:i}", "compare", compare_name(sel->cmp), "face", sel->n);
}

/* The members of a dice term beyond the original notation's, each only when used, so that an
 * answer to the old notation is unchanged. */
static void encode_term_extras(const struct rules_dice_term *t, json_t *term)
{
    if (t->reroll != RULES_REROLL_NONE) {
        json_t *r = encode_select(&t->reroll_on);
        json_object_set_new(
            r, "times", json_integer(t->reroll == RULES_REROLL_ONCE ? 1 : RULES_DICE_MAX_REROLLS));
        json_object_set_new(term, "reroll", r);
    }
    if (t->min_face != 0)
        json_object_set_new(term, "min_face", json_integer(t->min_face));
    if (t->max_face != 0)
        json_object_set_new(term, "max_face", json_integer(t->max_face));
    if (t->explode) {
        json_t *x = encode_select(&t->explode_on);
        json_object_set_new(x, "depth", json_integer(RULES_DICE_EXPLODE_DEPTH));
        json_object_set_new(term, "explode", x);
    }
}

static json_t *encode_die(const struct rules_die *x)
{
    json_t *die = json_pack("{s:i, s:b}", "value", x->value, "kept", x->kept);
    if (x->rolled != x->value)
        json_object_set_new(die, "rolled", json_integer(x->rolled));
    if (x->rerolled)
        json_object_set_new(die, "rerolled", json_true());
    if (x->exploded)
        json_object_set_new(die, "exploded", json_true());
    return die;
}

/* The roll's text (rules_dice_text), in a buffer of its own length. */
static json_t *encode_text(const char *text, const struct rules_dice_expr *expr,
                           const struct rules_roll *roll)
{
    char small[512];
    size_t n = rules_dice_text(text, expr, roll, small, sizeof small);
    if (n < sizeof small)
        return json_stringn(small, n);
    char *big = malloc(n + 1);
    if (big == NULL)
        return NULL; /* jansson's setters refuse a NULL value; the answer lacks text */
    rules_dice_text(text, expr, roll, big, n + 1);
    json_t *s = json_stringn(big, n);
    free(big);
    return s;
}

json_t *svc_encode_roll(const char *text, const struct rules_dice_expr *expr,
                        const struct rules_roll *roll)
{
    int min = 0, max = 0;
    rules_dice_range(expr, &min, &max);
    json_t *terms = json_array();
    int next_die = 0;
    for (int ti = 0; ti < expr->term_count; ti++) {
        const struct rules_dice_term *t = &expr->terms[ti];
        json_t *term = json_object();
        json_object_set_new(term, "sign", json_string(t->sign < 0 ? "-" : "+"));
        if (t->sides == 0) {
            json_object_set_new(term, "kind", json_string("constant"));
            json_object_set_new(term, "value", json_integer(t->value));
        } else {
            json_object_set_new(term, "kind", json_string("dice"));
            json_object_set_new(term, "count", json_integer(t->count));
            json_object_set_new(term, "sides", json_integer(t->sides));
            json_object_set_new(term, "keep", json_string(keep_name(t->keep)));
            if (t->keep != RULES_KEEP_ALL)
                json_object_set_new(term, "keep_count", json_integer(t->keep_n));
            json_object_set_new(term, "per_die", json_integer(t->per_die));
            encode_term_extras(t, term);
            json_t *dice = json_array();
            for (; next_die < roll->dice_count && roll->dice[next_die].term == ti; next_die++)
                json_array_append_new(dice, encode_die(&roll->dice[next_die]));
            json_object_set_new(term, "dice", dice);
        }
        if (t->label_len >= 2) /* without its brackets */
            json_object_set_new(term, "label",
                                json_stringn(text + t->label_at + 1, (size_t)t->label_len - 2u));
        json_object_set_new(term, "total", json_integer(roll->term_totals[ti]));
        json_array_append_new(terms, term);
    }
    json_t *doc = json_pack("{s:s, s:o, s:i, s:i, s:i}", "expression", text, "terms", terms,
                            "total", roll->total, "min", min, "max", max);
    json_object_set_new(doc, "text", encode_text(text, expr, roll));
    /* Avrae's habits (rules_dice_parse_said): only when typed, so other answers are unchanged. */
    if (expr->advantage != RULES_ADV_NONE)
        json_object_set_new(
            doc, "advantage",
            json_string(expr->advantage == RULES_ADV_ADVANTAGE ? "advantage" : "disadvantage"));
    if (expr->comment_len > 0)
        json_object_set_new(doc, "comment",
                            json_stringn(text + expr->comment_at, (size_t)expr->comment_len));
    return doc;
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
        char ptr[CODEC_PTR_MAX];
        snprintf(ptr, sizeof ptr, "/results/%zu", i);
        if (!json_is_integer(item) || json_integer_value(item) < 1 ||
            json_integer_value(item) > RULES_DICE_MAX_SIDES)
            svc_errors_add(e, ptr, "must be an integer die result from 1 to %d",
                           RULES_DICE_MAX_SIDES);
        else
            src->results[src->count++] = (int)json_integer_value(item);
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
