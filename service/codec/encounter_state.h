/* The stored encounter state's JSON shape read into the typed encounter (rules/encounter/
 * state.h), once per version: the whole of it, map and combatants included, so that every
 * ruling and every view of that version reads the same structs. */
#ifndef TACTICS_SVC_CODEC_ENCOUNTER_STATE_H
#define TACTICS_SVC_CODEC_ENCOUNTER_STATE_H

#include <jansson.h>
#include <stdbool.h>

#include "rules/encounter/state.h"
#include "service/codec/rule_options.h"
#include "service/http/config.h"

/* A decoded state and what it owns. The strings of the typed encounter point into doc, which
 * it holds (a reference), so it lives as long as this. */
struct svc_enc_typed {
    json_t *doc;
    struct rules_encounter e;
    struct svc_rules rules; /* e.rules points at rules.options */
    struct rules_map map;   /* e.map points here when map_ok */
    bool map_ok;
    struct rules_enc_combatant *combatants;
    struct rules_enc_profile *profiles;
    struct rules_enc_timed *timed;
    struct rules_enc_slot *order;
    struct rules_enc_reaction *reactions;
};

enum svc_enc_typed_status {
    SVC_ENC_TYPED_OK = 0,
    SVC_ENC_TYPED_NOMEM = -1,
    SVC_ENC_TYPED_BAD = -2, /* a member the stored state must have is missing or malformed */
};

/* Reads state (borrowed; a reference is taken) into out, zeroed first, with engine as the
 * engine its events are ruled under. map, when not NULL, is the state's map decoded already
 * (borrowed: it must outlive out); else the map is decoded within cfg's budgets, and one that
 * cannot be (a budget lowered since the encounter was created) leaves map_ok false and e.map
 * NULL. Returns SVC_ENC_TYPED_OK, or an error after which out holds nothing
 * (svc_enc_typed_free is still safe). */
int svc_enc_typed_decode(json_t *state, int engine, const struct svc_config *cfg,
                         const struct rules_map *map, struct svc_enc_typed *out);
void svc_enc_typed_free(struct svc_enc_typed *t);

/* Brings t up to date after effects (an event's effects: borrowed) were folded into the state
 * it was decoded from (t->doc, enc_fold), without decoding that state again: each combatant a
 * set effect names is read again in the parts its members belong to, and the encounter's own
 * members when a set names the encounter. The result is what svc_enc_typed_decode of the
 * folded state gives. False when the effects are not ones it reads so (init, add, remove; a
 * combatant's id, attacks or timed effects; the encounter's rules, map or combatants): the
 * caller then decodes the state again (t is left to be freed). */
bool svc_enc_typed_refresh(struct svc_enc_typed *t, json_t *effects);

/* The first member in which typed encounters a and b differ (in words), or NULL when every
 * member each rule reads is the same (strings by their text): how a kept typed state is checked
 * against a fresh decode of the same state. */
const char *svc_enc_typed_differs(const struct rules_encounter *a, const struct rules_encounter *b);

/* The rules in force as one decode last read them: the state's echo it read (a copy) and what
 * it gave. A caller that decodes many states of one encounter (a verify or an import re-rules
 * every event) keeps one, zeroed at first, and the rules are decoded again only when the echo
 * differs; it then cost more than a third of each event's decode. */
struct svc_enc_rules_memo {
    json_t *echo;
    struct svc_rules rules;
};

/* svc_enc_typed_decode, reading the rules through memo (NULL: decoded every time). */
int svc_enc_typed_decode_memo(json_t *state, int engine, const struct svc_config *cfg,
                              const struct rules_map *map, struct svc_enc_rules_memo *memo,
                              struct svc_enc_typed *out);
void svc_enc_rules_memo_free(struct svc_enc_rules_memo *memo);

/* The rules in force as a rules object (a new reference): state's echo of them, with any
 * option added since the encounter was created set to the value it was ruled under then
 * (critical_hits false, hp_states none), so that its rules stay fixed for its life. */
json_t *svc_enc_rules_json(json_t *state);

/* Those rules decoded into out, or memo's when its echo is the state's (memo NULL: decoded). */
void svc_enc_rules_decode(json_t *state, struct svc_enc_rules_memo *memo, struct svc_rules *out);

/* One stored combatant object, as svc_enc_typed_decode reads each: every member but its
 * attack profiles and timed effects (attacks and timed are left empty), under the rules o. */
void svc_enc_combatant_decode(json_t *c, const struct rules_options *o,
                              struct rules_enc_combatant *out);

/* A stored turn object (the members enc_turn_fields writes) into t. */
void svc_enc_turn_decode(json_t *turn, struct rules_turn *t);

#endif
