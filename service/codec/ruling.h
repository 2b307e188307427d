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

#include "service/svc.h"

struct rules_map;

/* The most allies an attack (/v1/attacks/resolve, /odds, /modifiers) or a flanking question
 * (/v1/geometry/flanking) takes: at least every other combatant of a stored encounter's side
 * (MAX_COMBATANTS, 500), so that a client may ask about any side an encounter holds. One place
 * for both endpoints and the contract's maxItems. */
#define SVC_MAX_ALLIES 512

/* A ruling's answer before HTTP: 200 with the answer, as text (the streaming writer's) or as
 * a value (the rulings that build a jansson tree), or a refusal as the problem it is sent as.
 * Start with {0}; release with svc_answer_free (svc_answer_respond releases it too). */
struct svc_answer {
    unsigned status;            /* 200 for an answer; else the problem's status */
    char *text;                 /* 200: the answer's JSON text (malloc'd, NUL-terminated), or */
    size_t len;                 /*      its length */
    json_t *doc;                /* 200: the answer as a value (owned) */
    enum svc_problem_kind kind; /* a refusal's kind */
    json_t *errors;             /* a 422 validation refusal's field errors [{pointer, message}] */
    char detail[320];           /* a refusal's detail without field errors ("": the title) */
    const char *limit;          /* 422 too-expensive: the budget that ran out (static), */
    long long budget, reached;  /*   its figure and the work reached */
    bool retry_after;           /* 503 busy: sent with Retry-After: 1 */
};

/* 200 with text (taken; NULL, out of memory, becomes a 500 internal problem). */
void svc_answer_text(struct svc_answer *a, char *text, size_t len);
/* 200 with doc (stolen; NULL becomes a 500 internal problem). */
void svc_answer_json(struct svc_answer *a, json_t *doc);
/* A refusal of kind with detail (NULL: the kind's title), and no field errors. */
void svc_answer_problem(struct svc_answer *a, enum svc_problem_kind kind, const char *detail);
/* 422 validation with e's errors (taken: e is left empty). */
void svc_answer_errors(struct svc_answer *a, struct svc_errors *e);
/* 422 too-expensive, as svc_problem_too_expensive. */
void svc_answer_too_expensive(struct svc_answer *a, const char *limit, long long budget,
                              long long reached);
/* The detail the refusal is sent with when it has no field errors. */
const char *svc_answer_detail(const struct svc_answer *a, char *buf, size_t n);
/* Sends a's answer or problem into res, and releases a. */
void svc_answer_respond(struct svc_answer *a, struct svc_response *res);
void svc_answer_free(struct svc_answer *a);

/* Checks that body is an object whose members are all named in known (NULL-terminated): the
 * decoding start every ruling shares with svc_decode_begin. Initialises e. False when body is
 * not an object (the error is in e, and decoding stops); unknown members go to e and decoding
 * goes on, so that every error is reported at once. */
bool svc_decode_body(json_t *body, const char *const *known, struct svc_errors *e);

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

/* POST /v1/falling (impact_api.c): the answer as a value. */
void svc_rule_falling(json_t *body, struct svc_answer *out);
/* Its own members of a fall (height_ft, surface, per_die, deliberate, acrobatics_success,
 * water_depth_ft, dive, dive_success) from body into f (*has_depth: water_depth_ft given); then,
 * once the dice are read too, how they go together (svc_check_fall). */
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

#endif
