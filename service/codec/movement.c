/* The movement rulings (ruling.h: svc_rule_move_*; reach and route also serve the encounter's
 * queries, and an encounter's moves rule the same structs through rules_encounter_move and write
 * the same answers), and the gate that admits searches by their predicted cost. Each decodes
 * (move.c), calls rules/move/ and answers (move_answer.c). */
#include <stdatomic.h>
#include <stdlib.h>

#include "rules/encounter/encounter.h"
#include "rules/encounter/engine.h"
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

/* Searches (reach, route, pictures) run on libmicrohttpd's worker threads, and a worker inside
 * one answers none of its other connections meanwhile: eight heavy searches on four workers
 * stalled /healthz for 5 s. So the gate admits by predicted cost (svc_cost_us, from the
 * request's estimate, before any work): a request predicted to take under GATE_CHEAP_US is
 * admitted whatever runs, as it holds its worker no longer than a cheap request does (a reach of
 * half a millisecond never waits behind two long searches); a costlier one takes one of the places,
 * half the workers (at least one), and when none is free it is answered 503 with Retry-After at
 * once, leaving the other workers to accept and answer cheap requests. With the budgets bounding
 * each request (well under a second), a client retrying after 1 s finds a free place.
 * bench/budget.sh measures /healthz while the heaviest requests run, and bench/load.sh that no
 * cheap search is turned away (bench/README.md). A gate was chosen over a separate pool for cheap
 * requests because it needs no change to how server.c hands requests to handlers. */
#define GATE_CHEAP_US 2000LL
#define GATE_FULL_US  500000LL /* the most a request at its budgets is predicted to take */
static atomic_uint searches_running;

/* Nanoseconds of CPU per unit of each budget on this project's machine, rounded up from what
 * bench/cost_bench measures (bench/README.md): a state set up or expanded (16 to 22 ns), a
 * square tested for a threat (7), a pixel painted (2 to 3: canvas, shapes, the encoding). */
#define NS_PER_STATE  25
#define NS_PER_THREAT 8
#define NS_PER_PIXEL  3

long long svc_cost_us(const struct svc_cost *c)
{
    double ns = (double)c->states * NS_PER_STATE + (double)c->threat_tests * NS_PER_THREAT +
                (double)c->pixels * NS_PER_PIXEL;
    return ns / 1000 > (double)GATE_FULL_US ? GATE_FULL_US : (long long)(ns / 1000);
}

/* Admits a request of predicted cost c (NULL: the most one may cost); false (and a 503 in out)
 * when it needs a place and none is free. *held says whether it took one, for search_end. */
static bool search_begin(const struct svc_config *cfg, const struct svc_cost *c, long long *held,
                         struct svc_answer *out)
{
    *held = 0;
    if (c != NULL && svc_cost_us(c) < GATE_CHEAP_US)
        return true;
    unsigned threads = cfg->threads;
    unsigned places = threads / 2 > 0 ? threads / 2 : 1;
    if (atomic_fetch_add(&searches_running, 1) < places) {
        *held = 1;
        return true;
    }
    atomic_fetch_sub(&searches_running, 1);
    svc_answer_problem(out, SVC_PROBLEM_BUSY,
                       "every place for a costly search is taken; retry after a second");
    out->retry_after = true;
    return false;
}

static void search_end(long long held)
{
    if (held)
        atomic_fetch_sub(&searches_running, 1);
}

/* The predicted cost of a reach request decoded into r; false when what it must set up is
 * already past a budget (then charged to r->work, as the search would have). */
static bool reach_cost(struct move_req *r, int prefer, struct svc_cost *c)
{
    struct rules_move_query q = move_query_of(r);
    struct rules_move_estimate m;
    rules_move_reach_estimate(&q, prefer != MOVE_PREFER_COST, &m);
    *c = (struct svc_cost){.states = m.states * (1 + m.expand_units),
                           .threat_tests = m.threat_tests};
    struct rules_work *w = &r->work;
    if (w->limit > 0 && w->used + m.states > w->limit) {
        w->used += m.states;
        return false;
    }
    if (w->threat_limit > 0 && w->threat_used + m.threat_tests > w->threat_limit) {
        w->threat_used += m.threat_tests;
        return false;
    }
    return true;
}

static struct svc_cost route_cost(struct move_req *r)
{
    struct rules_move_query q = move_query_of(r);
    struct rules_move_estimate m;
    rules_move_route_estimate(&q, &m);
    return (struct svc_cost){.states = m.states * (1 + m.expand_units)};
}

/* 422 too-expensive naming the search budget that ran out. */
static void search_too_expensive(struct svc_answer *out, const struct rules_work *w)
{
    long long limit = 0, reached = 0;
    const char *name = rules_work_spent(w, &limit, &reached);
    if (name == NULL) /* cannot happen: the search said which ran out */
        name = "search_states", limit = w->limit, reached = w->used;
    svc_answer_too_expensive(out, name, limit, reached);
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
        svc_rule_move_reach_req(&r, prefer, cfg, out);
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
        search_too_expensive(out, &r->work);
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
        svc_rule_move_route_req(&r, &goal, cfg, out);
    svc_errors_free(&e);
    move_req_free(&r);
}

/* The search and answer of a route request decoded into r, to goal. */
static void route_ruled(struct move_req *r, const struct rules_route_goal *goal,
                        struct svc_answer *out)
{
    struct rules_move_query q = move_query_of(r);
    q.work = &r->work;
    /* A charge at a creature is the charge an action would take: its opponent is an
     * enemy that is up and it ends in a melee attack (rules_encounter_move_target, before the
     * search), and the route found is checked as its path would be (rules_charge_check). */
    bool charge = r->mode == RULES_MODE_CHARGE && goal->creature >= 0;
    const char *foe = charge ? r->ids[goal->creature] : NULL;
    char why[400];
    if (charge) {
        struct rules_encounter e = {.engine = RULES_ENGINE_VERSION, .rules = r->o};
        struct rules_enc_move m = {.q = &q,
                                   .end_facing = -1,
                                   .target_named = true,
                                   .target = goal->creature,
                                   .has_melee = !r->no_melee};
        int rc = rules_encounter_move_target(&e, &m);
        if (rc != RULES_ENC_MOVE_OK) {
            const char *code = move_charge_why(rc, RULES_CHARGE_OK,
                                               r->mover_id != NULL ? r->mover_id : "the mover", foe,
                                               why, sizeof why);
            move_answer_no_charge(out, r, code, why, -1);
            return;
        }
    }
    int max = r->map.width * r->map.height + 1;
    if (max > RULES_MAX_PATH * 100)
        max = RULES_MAX_PATH * 100;
    struct rules_step *steps = calloc((size_t)max, sizeof *steps);
    int cost = 0, rc = RULES_CHARGE_OK, at = -1;
    int n =
        steps == NULL ? RULES_MOVE_ERR_NOMEM - 1 : rules_move_route(&q, goal, steps, max, &cost);
    if (n == RULES_MOVE_TOO_EXPENSIVE - 1)
        search_too_expensive(out, &r->work);
    else if (n < -1)
        svc_answer_problem(out, SVC_PROBLEM_INTERNAL, NULL);
    else if (n < 0)
        move_answer_no_route(out, r);
    else if (charge &&
             (rc = rules_charge_check(r->o, &r->mover.c, steps, n, &r->cs[goal->creature].c,
                                      &at)) != RULES_CHARGE_OK) {
        const char *code =
            move_charge_why(RULES_ENC_MOVE_CHARGE, rc,
                            r->mover_id != NULL ? r->mover_id : "the mover", foe, why, sizeof why);
        move_answer_no_charge(out, r, code, why, rc == RULES_CHARGE_SHORT ? -1 : at);
    } else
        move_answer_path(out, r, steps, n, -1, cost, true);
    free(steps);
}

void svc_rule_move_reach(json_t *body, const struct svc_config *cfg, const struct rules_map *map,
                         struct svc_answer *out)
{
    move_reach(body, cfg, map, out);
}

void svc_rule_move_route(json_t *body, const struct svc_config *cfg, const struct rules_map *map,
                         struct svc_answer *out)
{
    move_route(body, cfg, map, out);
}

/* Each search is estimated before any work: refused at once when its estimate alone is past a
 * budget (rules_move_reach charges the same figures first, before setting anything up), else
 * admitted by the gate by that estimate. */
void svc_rule_move_reach_req(struct move_req *r, int prefer, const struct svc_config *cfg,
                             struct svc_answer *out)
{
    long long held;
    struct svc_cost c;
    if (!reach_cost(r, prefer, &c)) {
        search_too_expensive(out, &r->work);
        return;
    }
    if (!search_begin(cfg, &c, &held, out))
        return;
    reach_ruled(r, prefer, out);
    search_end(held);
}

void svc_rule_move_route_req(struct move_req *r, const struct rules_route_goal *goal,
                             const struct svc_config *cfg, struct svc_answer *out)
{
    long long held;
    struct svc_cost c = route_cost(r);
    if (!search_begin(cfg, &c, &held, out))
        return;
    route_ruled(r, goal, out);
    search_end(held);
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

bool svc_search_begin(const struct svc_request *req, const struct svc_cost *c, long long *held,
                      struct svc_response *res)
{
    struct svc_answer busy = {0};
    if (search_begin(req->ctx->config, c, held, &busy))
        return true;
    svc_answer_respond(&busy, res);
    return false;
}

void svc_search_end(long long held)
{
    search_end(held);
}
