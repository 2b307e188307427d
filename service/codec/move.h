/* The movement endpoints' decoders, for other endpoints that take the same shapes (POST
 * /v1/render, the encounter's pictures): one decoder per shape, with the same limits and work
 * budgets (README "Limits and budgets"). Implemented in move_codec.c. */
#ifndef TACTICS_SVC_MOVE_CODEC_H
#define TACTICS_SVC_MOVE_CODEC_H

#include "rules/move/move.h"
#include "service/codec/rule_options.h"
#include "service/http/http.h"
#include "service/json/errors.h"
#include "service/json/fields.h"

struct svc_board {
    struct svc_rules rules;
    struct rules_map map;
    bool map_ok;
    struct rules_map_creature *creatures; /* body.creatures, decoded as the movement endpoints do */
    const char **ids;                     /* their ids (borrowed from body) */
    int creature_count;
    json_t *mover_json;       /* body.mover when present (borrowed), else NULL */
    struct rules_mover mover; /* decoded from it */
    enum rules_move_mode mode;
    struct rules_work work; /* the search budget, for the caller's searches */
    /* When a budget ran out while decoding (the map's painting): its name, budget and the
     * figure reached, for svc_problem_too_expensive; NULL otherwise. */
    const char *spent;
    long long spent_budget, spent_reached;
};

/* Decodes body's rules, map, creatures, optional mover and optional mode (default "move") as
 * the movement endpoints do. creature_extra and mover_extra (NULL-terminated, may be NULL)
 * name further members the caller reads itself. Problems go to e; b is always filled and must
 * be released with svc_board_free. */
void svc_decode_board(json_t *body, const struct svc_request *req,
                      const char *const *creature_extra, const char *const *mover_extra,
                      struct svc_board *b, struct svc_errors *e);
void svc_board_free(struct svc_board *b);

/* Step i of a path (the array at pointer base): {x, y, facing} ({q, r, facing} on hexes),
 * facing optional (-1 when absent) and within the rules' facings. Writes the step's pointer to
 * ptr and fills *out; returns whether it is an object whose x and y were read, and *faced says
 * whether a facing within range was given (the caller says whether one may be). Problems go
 * to e. */
#define SVC_STEP_PTR_MAX (CODEC_PTR_MAX + 24)
bool svc_decode_step(json_t *v, const char *base, size_t i, const struct rules_options *o,
                     struct rules_step *out, bool *faced, char ptr[SVC_STEP_PTR_MAX],
                     struct svc_errors *e);

/* What a request will cost, from its estimate before any work (rules_move_reach_estimate,
 * rules_move_route_estimate, render_estimate), in its budgets' units. */
struct svc_cost {
    long long states;       /* search states set up and expanded */
    long long threat_tests; /* squares tested for a threat */
    long long pixels;       /* a picture's canvas */
};

/* Its predicted CPU time in microseconds: each unit at the time bench/cost_bench measures
 * for it on this project's machine, at most what a request at its budgets may take. */
long long svc_cost_us(const struct svc_cost *c);

/* The searches' gate (movement.c): a request predicted to be cheap is always admitted; a
 * costlier one (c NULL: the most a request may cost) takes one of the places, half the
 * workers. False, with a 503 busy in res, when none is free; otherwise call
 * svc_search_end(*held) afterwards. */
bool svc_search_begin(const struct svc_request *req, const struct svc_cost *c, long long *held,
                      struct svc_response *res);
void svc_search_end(long long held);

#endif
