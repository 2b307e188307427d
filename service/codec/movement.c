/* The movement rulings (ruling.h: svc_rule_move_*; reach and route also serve the encounter's
 * queries, and an encounter's moves rule the same structs through rules_encounter_move and write
 * the same answers), and the gate that keeps searches to half the workers. Each decodes
 * (move.c), calls rules/move/ and answers (move_answer.c). */
#include <stdatomic.h>
#include <stdlib.h>

#include "service/codec/answer.h"
#include "service/codec/move.h"
#include "service/codec/move_req.h"
#include "service/http/http.h"
#include "service/http/problem.h"
#include "service/http/request.h"
#include "service/json/errors.h"
#include "service/json/fields.h"

void svc_rule_move_path(json_t *body, const struct svc_config *cfg, const struct rules_map *map,
                        struct svc_answer *out)
{
    static const char *const allowed[] = {"rules",    "map",  "creatures",  "mover", "mode",
                                          "withdraw", "path", "end_facing", "odds",  NULL};
    struct svc_errors e;
    struct move_req r = {0};
    struct rules_step *steps = NULL;
    if (!move_begin(body, cfg, map, allowed, &e, &r, out))
        return;
    int n = 0;
    steps = move_decode_steps(body, "path", RULES_MAX_PATH, &r, r.mover.c.body.x, r.mover.c.body.y,
                              true, &n, &e);
    long long end_facing = -1;
    if (CODEC_WITHIN(codec_get_int(body, "", "end_facing", false, 0, rules_facing_count(r.o) - 1,
                                   &end_facing, &e)) &&
        !rules_has_facing(r.o, &r.mover.c))
        svc_errors_add(&e, "/end_facing", "the mover has no facing");
    if (svc_errors_any(&e))
        svc_answer_errors(out, &e);
    else
        move_answer_path(out, &r, steps, n, (int)end_facing, 0, false);
    svc_errors_free(&e);
    free(steps);
    move_req_free(&r);
}

/* Searches (reach, route) run on libmicrohttpd's worker threads, and a worker inside one
 * answers none of its other connections meanwhile: eight heavy searches on four workers
 * stalled /healthz for 5 s. So at most half the workers (at least one) search at once, and a
 * search beyond that is answered 503 with Retry-After straight away, leaving the other
 * workers to accept and answer cheap requests. With the work budget bounding each search
 * (well under 2 s), a client retrying after 1 s finds a free place. bench/budget.sh measures
 * /healthz while eight of the heaviest searches are sent at once (bench/README.md). A bounded
 * gate was chosen over a separate pool for cheap requests because it needs no change to
 * how server.c hands requests to handlers. */
static atomic_uint searches_running;

/* Takes a place for a search; false (and a 503 in out) when all are taken. */
static bool search_begin(const struct svc_config *cfg, struct svc_answer *out)
{
    unsigned threads = cfg->threads;
    unsigned places = threads / 2 > 0 ? threads / 2 : 1;
    if (atomic_fetch_add(&searches_running, 1) < places)
        return true;
    atomic_fetch_sub(&searches_running, 1);
    svc_answer_problem(out, SVC_PROBLEM_BUSY,
                       "every place for a movement search is taken; retry after a second");
    out->retry_after = true;
    return false;
}

static void search_end(void)
{
    atomic_fetch_sub(&searches_running, 1);
}

static void reach_ruled(struct move_req *r, int prefer, struct svc_answer *out);
static void route_ruled(struct move_req *r, const struct rules_route_goal *goal,
                        struct svc_answer *out);

static void move_reach(json_t *body, const struct svc_config *cfg, const struct rules_map *map,
                       struct svc_answer *out)
{
    static const char *const allowed[] = {"rules", "map",      "creatures", "mover",
                                          "mode",  "withdraw", "prefer",    NULL};
    struct svc_errors e;
    struct move_req r = {0};
    if (!move_begin(body, cfg, map, allowed, &e, &r, out))
        return;
    int prefer = codec_get_enum(body, "", "prefer", move_prefer_names, false, 0, &e);
    if (svc_errors_any(&e))
        svc_answer_errors(out, &e);
    else
        reach_ruled(&r, prefer, out);
    svc_errors_free(&e);
    move_req_free(&r);
}

/* The search and answer of a reach request decoded into r. */
static void reach_ruled(struct move_req *r, int prefer, struct svc_answer *out)
{
    struct rules_reach *reach = NULL;
    struct rules_move_query q = move_query_of(r);
    q.work = &r->work;
    /* safest ranks the fewest-attacks search's squares by the damage expected on the way. */
    int rc = rules_move_reach(&q, prefer != MOVE_PREFER_COST, &reach);
    if (rc == RULES_MOVE_TOO_EXPENSIVE)
        svc_answer_too_expensive(out, "search_states", r->work.limit, r->work.used);
    else if (rc != RULES_MOVE_OK)
        svc_answer_problem(out, SVC_PROBLEM_INTERNAL, NULL);
    else
        move_answer_reach(out, r, reach, prefer);
    rules_reach_free(reach);
}

static void move_route(json_t *body, const struct svc_config *cfg, const struct rules_map *map,
                       struct svc_answer *out)
{
    static const char *const allowed[] = {"rules",    "map",    "creatures", "mover", "mode",
                                          "withdraw", "target", "odds",      NULL};
    struct svc_errors e;
    struct move_req r = {0};
    if (!move_begin(body, cfg, map, allowed, &e, &r, out))
        return;
    if (r.mode == RULES_MODE_STEP)
        svc_errors_add(&e, "/mode", "a 5-foot step is one square: ask /v1/movement/path");
    struct rules_route_goal goal;
    move_decode_target(body, &r, &goal, &e);
    if (svc_errors_any(&e))
        svc_answer_errors(out, &e);
    else
        route_ruled(&r, &goal, out);
    svc_errors_free(&e);
    move_req_free(&r);
}

/* The search and answer of a route request decoded into r, to goal. */
static void route_ruled(struct move_req *r, const struct rules_route_goal *goal,
                        struct svc_answer *out)
{
    struct rules_move_query q = move_query_of(r);
    q.work = &r->work;
    int max = r->map.width * r->map.height + 1;
    if (max > RULES_MAX_PATH * 100)
        max = RULES_MAX_PATH * 100;
    struct rules_step *steps = calloc((size_t)max, sizeof *steps);
    int cost = 0;
    int n =
        steps == NULL ? RULES_MOVE_ERR_NOMEM - 1 : rules_move_route(&q, goal, steps, max, &cost);
    if (n == RULES_MOVE_TOO_EXPENSIVE - 1)
        svc_answer_too_expensive(out, "search_states", r->work.limit, r->work.used);
    else if (n < -1)
        svc_answer_problem(out, SVC_PROBLEM_INTERNAL, NULL);
    else if (n < 0)
        move_answer_no_route(out, r);
    else
        move_answer_path(out, r, steps, n, -1, cost, true);
    free(steps);
}

void svc_rule_move_reach(json_t *body, const struct svc_config *cfg, const struct rules_map *map,
                         struct svc_answer *out)
{
    if (!search_begin(cfg, out))
        return;
    move_reach(body, cfg, map, out);
    search_end();
}

void svc_rule_move_route(json_t *body, const struct svc_config *cfg, const struct rules_map *map,
                         struct svc_answer *out)
{
    if (!search_begin(cfg, out))
        return;
    move_route(body, cfg, map, out);
    search_end();
}

void svc_rule_move_reach_req(struct move_req *r, int prefer, const struct svc_config *cfg,
                             struct svc_answer *out)
{
    if (!search_begin(cfg, out))
        return;
    reach_ruled(r, prefer, out);
    search_end();
}

void svc_rule_move_route_req(struct move_req *r, const struct rules_route_goal *goal,
                             const struct svc_config *cfg, struct svc_answer *out)
{
    if (!search_begin(cfg, out))
        return;
    route_ruled(r, goal, out);
    search_end();
}

void svc_rule_move_forced(json_t *body, const struct svc_config *cfg, const struct rules_map *map,
                          struct svc_answer *out)
{
    static const char *const known[] = {"rules", "map",     "creatures", "target", "attacker",
                                        "kind",  "squares", "path",      NULL};
    struct svc_errors e;
    struct move_req r = {0};
    if (!svc_decode_body(body, known, &e)) {
        svc_answer_errors(out, &e);
        svc_errors_free(&e);
        return;
    }
    struct rules_forced_query q;
    int n = 0;
    struct rules_step *path = move_decode_forced(body, cfg, map, &r, &q, &n, &e);
    if (r.spent != NULL) {
        svc_answer_too_expensive(out, r.spent, r.spent_budget, r.spent_reached);
    } else if (svc_errors_any(&e)) {
        svc_answer_errors(out, &e);
    } else {
        struct rules_forced_result res;
        rules_move_forced(&q, &res);
        move_answer_forced(out, &r, &q, &res, path);
    }
    free(path);
    svc_errors_free(&e);
    move_req_free(&r);
}

bool svc_search_begin(const struct svc_request *req, struct svc_response *res)
{
    struct svc_answer busy = {0};
    if (search_begin(req->ctx->config, &busy))
        return true;
    svc_answer_respond(&busy, res);
    return false;
}

void svc_search_end(void)
{
    search_end();
}
