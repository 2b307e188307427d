/* The stateless rulings as functions (DESIGN.md: no handler calls another handler). Each takes
 * a request body already parsed (borrowed), with what its handler took from the HTTP request
 * (the configuration, for the work budgets and the search gate; a map decoded beforehand, or
 * NULL), decodes it with its endpoint's one codec, calls rules/ and leaves its answer, or its
 * refusal, in a struct svc_answer; the handler sends it (svc_answer_respond). Where a stored
 * encounter rules the same thing, the ruling is split after its decoder (the *_decoded and
 * *_req functions here, in move_req.h and attack_ruling.h): the encounter reads its state into
 * the same structs and writes the same answer. */
#ifndef TACTICS_SVC_RULING_H
#define TACTICS_SVC_RULING_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "service/codec/answer.h"
#include "service/codec/dice.h"
#include "service/http/config.h"
#include "service/json/errors.h"

struct rules_map;

/* The most allies an attack (/v1/attacks/resolve, /odds, /modifiers) or a flanking question
 * (/v1/geometry/flanking) takes: at least every other combatant of a stored encounter's side
 * (MAX_COMBATANTS, 500), so that a client may ask about any side an encounter holds. One place
 * for both endpoints and the contract's maxItems. */
#define SVC_MAX_ALLIES 512

/* POST /v1/movement/path, /reach, /route and /forced (movement_api.c). map: the body's map
 * decoded beforehand with svc_decode_map (borrowed), or NULL to decode body.map. reach and
 * route take a place at the searches' gate (svc_search_begin) first: 503 busy without one. */
void svc_rule_move_path(json_t *body, const struct svc_config *cfg, const struct rules_map *map,
                        struct svc_answer *out);
void svc_rule_move_reach(json_t *body, const struct svc_config *cfg, const struct rules_map *map,
                         struct svc_answer *out);
void svc_rule_move_route(json_t *body, const struct svc_config *cfg, const struct rules_map *map,
                         struct svc_answer *out);
void svc_rule_move_forced(json_t *body, const struct svc_config *cfg, const struct rules_map *map,
                          struct svc_answer *out);

/* POST /v1/falling, /v1/collisions and /v1/objects/dropped (impact.c): the answer as a value. */
void svc_rule_falling(json_t *body, struct svc_answer *out);
void svc_rule_collision(json_t *body, struct svc_answer *out);
void svc_rule_dropped(json_t *body, struct svc_answer *out);
/* A fall's own members, as POST /v1/falling and an encounter's fall action both take them. */
#define SVC_FALL_MEMBERS                                                                           \
    "height_ft", "surface", "per_die", "deliberate", "acrobatics_success", "water_depth_ft",       \
        "dive", "dive_success"
/* Its own members of a fall (SVC_FALL_MEMBERS) from body into f (*has_depth: water_depth_ft given);
 * then, once the dice are read too, how they go together (svc_check_fall). */
struct rules_fall;
void svc_decode_fall(json_t *body, struct rules_fall *f, bool *has_depth, struct svc_errors *e);
void svc_check_fall(const struct rules_fall *f, bool has_depth, struct svc_errors *e);
/* The same ruling of a fall already decoded (rules, f, the faller's damage reduction dr, the
 * dice src): the answer, or e's errors when it holds any; facts (when not NULL) gets what an
 * encounter applies: the damage after reduction, and whether the faller lands prone (001
 * Falling). */
struct svc_rules;
struct svc_dice_source;
struct svc_fall_facts {
    int damage;
    bool prone;
};
void svc_rule_fall_decoded(const struct svc_rules *rules, const struct rules_fall *f, int dr,
                           struct svc_dice_source *src, struct svc_errors *e,
                           struct svc_answer *out, struct svc_fall_facts *facts);

/* POST /v1/geometry/flanking (geometry_api.c): the answer as a value. */
void svc_rule_flanking(json_t *body, struct svc_answer *out);
/* The same for creatures already decoded: attacker on target with n allies, and the names the
 * sentence tells (NULL: "the attacker", "the target", none; ally_names may be NULL). */
struct rules_creature;
void svc_rule_flanking_decoded(const struct svc_rules *rules, const struct rules_creature *attacker,
                               const struct rules_creature *target,
                               const struct rules_creature *allies, int n,
                               const char *attacker_name, const char *target_name,
                               const char *const *ally_names, struct svc_answer *out);

/* POST /v1/attacks/resolve (attack_api.c): the answer as text. (An encounter rolls its attacks
 * with rules_encounter_attack and writes this same answer with svc_attack_answer_ruled.) */
void svc_rule_attack(json_t *body, struct svc_answer *out);
/* POST /v1/attacks/modifiers: the same request, evaluated without dice. */
void svc_rule_attack_modifiers(json_t *body, struct svc_answer *out);

#endif
