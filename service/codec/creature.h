/* The creature shapes the endpoints share: a creature's place, size and combat fields, its
 * Defense, and its weapon's damage. */
#ifndef TACTICS_SVC_CODEC_CREATURE_H
#define TACTICS_SVC_CODEC_CREATURE_H

#include <jansson.h>
#include <stdbool.h>

#include "service/json/errors.h"

/* Decodes a creature at ptr (geometry_api.c): its place and size, and with `combat` its
 * reach, threat, facing and flanking fields; extra_keys (NULL-terminated, may be NULL) are
 * further members the caller reads itself. Problems go to e. */
struct rules_options;
struct rules_creature;
/* A Defense object {armor, shield, ..., size, other, total?} at ptr into ac. */
struct rules_defense;
void svc_decode_defense(json_t *def, const char *ptr, struct rules_defense *ac,
                        struct svc_errors *e);

/* obj's damage (dice notation, parsed into expr; *damage NULL when absent or refused),
 * crit_range and crit_multiplier (the SRD's 20 and x2 when absent), errors under ptr. */
struct rules_dice_expr;
void svc_decode_damage(json_t *obj, const char *ptr, const char **damage,
                       struct rules_dice_expr *expr, int *crit_range, int *crit_multiplier,
                       struct svc_errors *e);
void svc_decode_creature(json_t *obj, const char *ptr, const struct rules_options *o, bool combat,
                         const char *const *extra_keys, struct rules_creature *out,
                         struct svc_errors *e);
/* As svc_decode_creature, and extra_values[i] (when not NULL) is obj's member extra_keys[i],
 * NULL when absent, found in the same walk of obj as the creature's own (codec_members). */
void svc_decode_creature_with(json_t *obj, const char *ptr, const struct rules_options *o,
                              bool combat, const char *const *extra_keys, json_t **extra_values,
                              struct rules_creature *out, struct svc_errors *e);
/* Decodes body[key] as a creature (as svc_decode_creature), reporting it missing with an
 * "is required" error at /key and a default Medium creature in *out. Returns the member when
 * it is an object, so the caller can read its extra_keys; NULL otherwise. */
json_t *svc_decode_member(json_t *body, const char *key, const struct rules_options *o, bool combat,
                          const char *const *extra_keys, struct rules_creature *out,
                          struct svc_errors *e);

/* As svc_decode_member, with svc_decode_creature_with's extra_values. */
json_t *svc_decode_member_with(json_t *body, const char *key, const struct rules_options *o,
                               bool combat, const char *const *extra_keys, json_t **extra_values,
                               struct rules_creature *out, struct svc_errors *e);
/* rules_dice_parse(text, expr, at), the same expr to the byte, but the last text this thread
 * parsed without error is copied instead of parsed again (svc_decode_damage's). */
int svc_damage_parse_kept(const char *text, struct rules_dice_expr *expr, size_t *at);

/* As svc_decode_damage, given obj's members damage, crit_range and crit_multiplier already
 * found (NULL when absent). */
void svc_decode_damage_of(json_t *obj, const char *ptr, json_t *damage_v, json_t *range_v,
                          json_t *multiplier_v, const char **damage, struct rules_dice_expr *expr,
                          int *crit_range, int *crit_multiplier, struct svc_errors *e);

/* body[member].name when it is a string (for the sentences), else NULL. */
const char *svc_member_name(json_t *body, const char *member);

#endif
