/* The dice members every rolling endpoint shares: an expression, and where the dice come from
 * (seed or results); and a roll as JSON. */
#ifndef TACTICS_SVC_CODEC_DICE_H
#define TACTICS_SVC_CODEC_DICE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "rules/dice/dice.h"
#include "service/json/errors.h"

/* Where a ruling's dice come from: "seed" (given, or drawn and reported so the ruling can be
 * reproduced) or "results" the caller rolled at the table, used in order. */
struct svc_dice_source {
    long long seed; /* -1 until known */
    int results[RULES_DICE_MAX_DRAWS];
    size_t count;
    bool supplied;
};

/* Parses a request's "expression" as players type it (rules_dice_parse_said: adv/dis and a
 * trailing comment allowed); on a refusal adds an error at /expression that names the
 * refused part, and returns false. */
bool svc_parse_dice(const char *text, struct rules_dice_expr *expr, struct svc_errors *e);

/* Reads body's "seed" and "results" (mutually exclusive); problems go to e. */
void svc_decode_dice_source(json_t *body, struct svc_dice_source *src, struct svc_errors *e);

/* Reads a "results" array (already known to be one) into src, as svc_decode_dice_source does:
 * errors at /results/N. */
void svc_decode_dice_results(json_t *results, struct svc_dice_source *src, struct svc_errors *e);

/* Prepares d from src, drawing a seed when none was given. */
void svc_dice_source_open(struct svc_dice_source *src, struct rules_dice *d);

/* Adds "source" and, for a seed, "seed" to doc. */
void svc_dice_source_describe(const struct svc_dice_source *src, json_t *doc);

/* Encodes a roll: each term, each die (value, kept), term totals, total, min and max; with
 * "advantage" (advantage or disadvantage) and "comment" when the expression said them. */
struct rules_dice_expr;
struct rules_roll;
json_t *svc_encode_roll(const char *text, const struct rules_dice_expr *expr,
                        const struct rules_roll *roll);
/* The same roll written by w (service/json/writer.h), text or value: svc_encode_roll is this
 * in the writer's tree mode. */
struct jw;
void svc_write_roll(struct jw *w, const char *text, const struct rules_dice_expr *expr,
                    const struct rules_roll *roll);

#endif
