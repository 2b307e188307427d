/* JSON for the `rules` object every computing endpoint accepts and echoes:
 *   "rules": {"preset": "epic-path", "options": {"diagonals": "alternating", ...}}
 * Both members are optional: the preset defaults to RULES_DEFAULT_PRESET, and options override
 * single values of the preset. The echo always lists every option with its effective value. */
#ifndef TACTICS_SVC_RULES_CODEC_H
#define TACTICS_SVC_RULES_CODEC_H

#include "rules/attack/attack.h"
#include "rules/options.h"
#include "service/json/errors.h"
#include "service/json/writer.h"

struct svc_rules {
    char preset[32];
    struct rules_options options;
};

/* Decodes body["rules"] into out; problems are added to e. Returns false when any were. */
bool svc_decode_rules(json_t *body, struct svc_rules *out, struct svc_errors *e);

/* {"preset": ..., "options": {every option: its value}} */
json_t *svc_encode_rules(const struct svc_rules *rules);

/* The same echo written straight into w (for the answers written with jsonw). */
void svc_write_rules(struct jw *w, const struct svc_rules *rules);

/* The options of a rules_options as a JSON object (shared by the echo and the preset list). */
json_t *svc_encode_options(const struct rules_options *o);

/* One modifier of an attack: {value, applies_to, reason, source, applied} (attack_api.c). */
void svc_write_modifier(struct jw *w, const struct rules_modifier *m);
/* Whether this thread keeps m as written, value and applied included, so that writing it
 * again is one copy (for tests). */
bool svc_modifier_kept(const struct rules_modifier *m);

#endif
