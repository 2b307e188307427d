/* Writing the movement endpoints' answers (move_req.h): the path checker's per-step answer
 * (path and route), the reach's squares, forced movement's end and speed's figures, each within
 * the request's answer budget. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/encounter/encounter.h"
#include "service/codec/answer.h"
#include "service/codec/move_odds.h"
#include "service/codec/move_req.h"
#include "service/codec/odds.h"
#include "service/explain/explain.h"
#include "service/http/problem.h"
#include "service/json/writer.h"

static void write_pos(struct jw *w, const struct rules_options *o, int x, int y)
{
    bool hx = o->grid == RULES_GRID_HEX;
    jw_key(w, hx ? "q" : "x");
    jw_int(w, x);
    jw_key(w, hx ? "r" : "y");
    jw_int(w, y);
}

static void write_rules(struct jw *w, const struct svc_rules *rules)
{
    JW_KEY(w, "rules");
    svc_write_rules(w, rules);
}

static void write_speeds(struct jw *w, const char *key, const int *ft)
{
    jw_key(w, key);
    jw_object_begin(w);
    for (int t = 0; t < RULES_MOVE_TYPES; t++) {
        jw_key(w, rules_move_type_name((enum rules_move_type)t));
        jw_int(w, ft[t]);
    }
    jw_object_end(w);
}

static const struct {
    unsigned bit;
    const char *code, *source;
} whys[] = {
    {RULES_COST_DIAGONAL_DOUBLE, "diagonal_counts_double",
     "000: every other diagonal counts double (RULES.md 1, option diagonals)"},
    {RULES_COST_DIFFICULT, "difficult_terrain", "001 Difficult Terrain: counts as two squares"},
    {RULES_COST_SQUEEZE, "squeezing", "001 Squeezing: counts as difficult terrain"},
    {RULES_COST_IMPEDED, "impeded_terrain", "001 Impeded Terrain: a full-round action per 5 ft"},
    {RULES_COST_BACKWARD, "flank_or_rear_square",
     "000 Facing and Movement: entering a flank or rear square costs two squares"},
    {RULES_COST_HAZARDOUS, "hazardous_terrain", "001 Hazardous Terrain: entered freely"},
    {RULES_COST_STEPOVER, "stepover", "001 Stepover: a creature two sizes smaller is ignored"},
    {RULES_COST_FIVE_FOOT, "five_foot_step", "001 5-Foot Step: one square, 5 ft"},
};

static void write_modifiers(struct jw *w, const struct rules_attack_eval *ev)
{
    JW_KEY(w, "modifiers");
    jw_array_begin(w);
    for (int i = 0; i < ev->mod_count; i++)
        if (ev->mods[i].applies_to == RULES_APPLIES_ATTACK)
            svc_write_modifier(w, &ev->mods[i]);
    jw_array_end(w);
}

/* One violation of the path: at step (-1: of the action as a whole). */
static void write_violation(struct jw *w, int step, enum rules_move_violation v)
{
    jw_object_begin(w);
    JW_KEY(w, "step");
    if (step < 0)
        jw_null(w);
    else
        jw_int(w, step);
    JW_STRING(w, "code", rules_move_violation_code(v));
    JW_STRING(w, "message", rules_move_violation_text(v));
    JW_STRING(w, "source", rules_move_violation_source(v));
    jw_object_end(w);
}

/* The first violation found, and at which step (-1: the action's; RULES_MV_COUNT: none). */
struct first_violation {
    enum rules_move_violation v;
    int step;
};

/* "violations": the action's, then each step's in order. False past the answer limit. */
static bool write_violations(struct jw *w, const struct move_req *r,
                             const struct rules_path_result *p, int n, struct first_violation *f)
{
    *f = (struct first_violation){RULES_MV_COUNT, -2};
    JW_KEY(w, "violations");
    jw_array_begin(w);
    for (int i = -1; i < n; i++) {
        if (i >= 0 && (long long)w->len > r->answer_limit)
            return false;
        uint32_t bits = i < 0 ? p->action_violations : p->steps[i].violations;
        for (int v = 0; v < RULES_MV_COUNT; v++) {
            if (!(bits & (1u << v)))
                continue;
            write_violation(w, i, (enum rules_move_violation)v);
            if (f->v == RULES_MV_COUNT)
                *f = (struct first_violation){(enum rules_move_violation)v, i};
        }
    }
    jw_array_end(w);
    return true;
}

/* One step: where it lands, facing, cost, and why it cost what it did. */
static void write_step(struct jw *w, const struct rules_options *o,
                       const struct rules_step_result *s)
{
    jw_object_begin(w);
    write_pos(w, o, s->x, s->y);
    JW_KEY(w, "facing");
    if (s->facing >= 0)
        jw_int(w, s->facing);
    else
        jw_null(w);
    JW_INT(w, "cost_ft", s->cost_ft);
    JW_INT(w, "spent_ft", s->spent_ft);
    JW_STRING(w, "movement_type", rules_move_type_name(s->type));
    JW_KEY(w, "why");
    jw_array_begin(w);
    for (size_t k = 0; k < sizeof whys / sizeof whys[0]; k++)
        if (s->why & whys[k].bit) {
            jw_object_begin(w);
            JW_STRING(w, "rule", whys[k].code);
            JW_STRING(w, "source", whys[k].source);
            jw_object_end(w);
        }
    jw_array_end(w);
    jw_object_end(w);
}

/* The budget, what is left of it, and where the move ends. */
static void write_totals(struct jw *w, const struct move_req *r, const struct rules_path_result *p,
                         int n)
{
    JW_INT(w, "total_ft", p->total_ft);
    write_speeds(w, "budget_ft", p->budget_ft);
    write_speeds(w, "remaining_ft", p->remaining_ft);
    JW_INT(w, "steps_in_budget", p->steps_in_budget);
    JW_KEY(w, "end");
    jw_object_begin(w);
    write_pos(w, r->o, n > 0 ? p->steps[n - 1].x : r->mover.c.body.x,
              n > 0 ? p->steps[n - 1].y : r->mover.c.body.y);
    JW_KEY(w, "facing");
    if (p->end_facing >= 0)
        jw_int(w, p->end_facing);
    else
        jw_null(w);
    jw_object_end(w);
}

/* One attack of opportunity the move provokes (its odds when asked for). */
static void write_aoo(struct jw *w, const struct move_req *r, const struct rules_aoo *a, int i,
                      const struct move_odds *odds)
{
    jw_object_begin(w);
    JW_STRING(w, "creature", r->ids[a->creature]);
    JW_INT(w, "step", a->step);
    JW_KEY(w, "leaving");
    jw_object_begin(w);
    write_pos(w, r->o, a->from_x, a->from_y);
    jw_object_end(w);
    JW_KEY(w, "mover_facing");
    if (a->facing >= 0)
        jw_int(w, a->facing);
    else
        jw_null(w);
    JW_INT(w, "attack_total", a->eval.attack_total);
    JW_STRING(w, "attacker_area", rules_area_name(a->eval.attacker_area));
    JW_STRING(w, "target_area", rules_area_name(a->eval.target_area));
    write_modifiers(w, &a->eval);
    if (odds != NULL)
        move_odds_write_aoo(w, odds, i);
    jw_object_end(w);
}

/* The path's sentence: legal and what it provokes, or its first violation. */
static void tell_path(const struct move_req *r, const struct rules_path_result *p,
                      const struct first_violation *f, struct svc_told *told)
{
    if (f->v != RULES_MV_COUNT && f->step < 0) {
        svc_told_figures(told, "Illegal: %s (%s).", rules_move_violation_text(f->v),
                         rules_move_violation_source(f->v));
        return;
    }
    if (f->v != RULES_MV_COUNT) {
        svc_told_figures(told, "Illegal at step %d: %s (%s).", f->step,
                         rules_move_violation_text(f->v), rules_move_violation_source(f->v));
        return;
    }
    svc_told_figures(told, "Legal: %d ft", p->total_ft);
    if (p->aoo_count == 0) {
        svc_told_figures(told, ", provokes nothing.");
        return;
    }
    svc_told_figures(told, ", provokes %d attack%s of opportunity (", p->aoo_count,
                     p->aoo_count == 1 ? "" : "s");
    for (int i = 0; i < p->aoo_count && told->pl + 8 < told->plain_cap; i++) {
        svc_told_text(told, "%s", i ? ", " : "");
        svc_told_user(told, r->ids[p->aoos[i].creature]);
    }
    if (told->pl + 3 < told->plain_cap)
        svc_told_figures(told, ").");
}

/* The per-step answer shared by path and route, and its sentence begun in told (the creatures'
 * ids as the request wrote them). Returns false when the answer passes the request's limit. */
static bool write_path_answer(struct jw *w, const struct move_req *r,
                              const struct rules_path_result *p, int n,
                              const struct move_odds *odds, struct svc_told *told)
{
    assert(n == 0 || p->steps != NULL);
    JW_STRING(w, "mode", rules_move_mode_names[r->mode]);
    JW_BOOL(w, "legal", p->legal);
    struct first_violation first;
    if (!write_violations(w, r, p, n, &first))
        return false;
    JW_KEY(w, "steps");
    jw_array_begin(w);
    for (int i = 0; i < n; i++) {
        if ((long long)w->len > r->answer_limit)
            return false;
        write_step(w, r->o, &p->steps[i]);
    }
    jw_array_end(w);
    write_totals(w, r, p, n);
    JW_KEY(w, "attacks_of_opportunity");
    jw_array_begin(w);
    for (int i = 0; i < p->aoo_count; i++)
        write_aoo(w, r, &p->aoos[i], i, odds);
    jw_array_end(w);
    JW_KEY(w, "provokes_source");
    jw_string(w, "004 Provoking an Attack of Opportunity by Moving; 001 Double Move (one per "
                 "enemy per action)");
    tell_path(r, p, &first, told);
    return (long long)w->len <= r->answer_limit;
}

static void respond_jw(struct svc_answer *ans, struct jw *w)
{
    size_t len = 0;
    char *text = jw_finish(w, &len);
    svc_answer_text(ans, text, len);
}

/* Drops a partly written answer that has passed the answer budget, for a 422. */
static void answer_too_large(struct svc_answer *ans, const struct move_req *r, struct jw *w)
{
    size_t len = 0;
    long long reached = (long long)w->len;
    free(jw_finish(w, &len));
    svc_answer_too_expensive(ans, "answer_bytes", r->answer_limit, reached);
}

/* Runs the path checker and writes the whole answer (path and route). */
void move_answer_path(struct svc_answer *ans, struct move_req *r, const struct rules_step *steps,
                      int n, int end_facing, int route_cost, bool route)
{
    struct rules_path_result p = {0};
    p.steps = calloc((size_t)n + 1, sizeof *p.steps);
    p.aoos = calloc((size_t)r->nc + 1, sizeof *p.aoos);
    struct rules_move_query q = move_query_of(r);
    q.work = &r->work; /* its threats set up over the path's box, its attacks looked through */
    int rc = p.steps == NULL || p.aoos == NULL ? RULES_MOVE_ERR_NOMEM
                                               : rules_move_path(&q, steps, n, end_facing, &p);
    long long limit = 0, reached = 0;
    const char *spent = rules_work_spent(&r->work, &limit, &reached);
    if (rc == RULES_MOVE_TOO_EXPENSIVE && spent != NULL)
        svc_answer_too_expensive(ans, spent, limit, reached);
    else if (rc != RULES_MOVE_OK)
        svc_answer_problem(ans, SVC_PROBLEM_INTERNAL, NULL);
    else
        move_answer_path_ruled(ans, r, n, &p, route_cost, route);
    free(p.steps);
    free(p.aoos);
}

void move_answer_path_ruled(struct svc_answer *ans, struct move_req *r, int n,
                            const struct rules_path_result *p, int route_cost, bool route)
{
    struct move_odds odds = {0};
    if (r->odds) {
        int rc = move_odds_compute(r, p, &r->odds_work, &odds);
        if (rc != RULES_ODDS_OK) {
            svc_odds_failure_answer(ans, rc, &r->odds_work);
            goto out;
        }
    }
    struct jw w;
    char explain[640], markdown[2 * sizeof explain];
    struct svc_told told;
    svc_told_init(&told, explain, sizeof explain, markdown, sizeof markdown);
    jw_init(&w, 4096 + (size_t)n * 160);
    jw_object_begin(&w);
    write_rules(&w, &r->rules);
    if (route) {
        JW_BOOL(&w, "found", true);
        JW_INT(&w, "route_cost_ft", route_cost);
    }
    if (!write_path_answer(&w, r, p, n, r->odds ? &odds : NULL, &told)) {
        answer_too_large(ans, r, &w);
        goto out;
    }
    if (r->odds) {
        move_odds_write(&w, r, &odds);
        char said[256];
        move_odds_explain(said, sizeof said, r, &odds);
        svc_told_figures(&told, "%s", said);
    }
    if (route) {
        char more[160];
        snprintf(more, sizeof more, " Route: %d steps, %d ft; this %s covers %d of them.", n,
                 route_cost, rules_move_mode_names[r->mode], p->steps_in_budget);
        svc_told_figures(&told, "%s", more);
    }
    svc_write_told(&w, &told);
    jw_object_end(&w);
    respond_jw(ans, &w);
out:
    move_odds_free(&odds);
}

/* Reach's prefer "safest": the squares ranked by the damage expected on the way,
 * then by cost, then as the search listed them. */
struct safest {
    int *order;
    double *expected, *drop;
};

struct ranked {
    double expected;
    int index;
};

static int by_safety(const void *pa, const void *pb)
{
    const struct ranked *a = pa, *b = pb;
    if (a->expected != b->expected)
        return a->expected < b->expected ? -1 : 1;
    return a->index - b->index; /* the search lists cheaper squares first */
}

static bool rank_safest(struct svc_answer *ans, const struct move_req *r, struct rules_reach *reach,
                        int count, struct safest *safe)
{
    safe->order = calloc((size_t)count + 1, sizeof *safe->order);
    safe->expected = calloc((size_t)count + 1, sizeof *safe->expected);
    safe->drop = calloc((size_t)count + 1, sizeof *safe->drop);
    struct rules_odds_budget b = r->odds_work;
    int rc = safe->order && safe->expected && safe->drop
                 ? move_odds_reach(r, reach, &b, safe->expected, safe->drop)
                 : RULES_ODDS_ERR_NOMEM;
    if (rc != RULES_ODDS_OK) {
        svc_odds_failure_answer(ans, rc, &b);
        return false;
    }
    struct ranked *rank = calloc((size_t)count + 1, sizeof *rank);
    if (rank == NULL) {
        svc_answer_problem(ans, SVC_PROBLEM_INTERNAL, NULL);
        return false;
    }
    for (int i = 0; i < count; i++)
        rank[i] = (struct ranked){safe->expected[i], i};
    qsort(rank, (size_t)count, sizeof *rank, by_safety);
    for (int i = 0; i < count; i++)
        safe->order[i] = rank[i].index;
    free(rank);
    return true;
}

/* The fewest bytes a reach answer's square takes:
 * {"x":0,"y":0,"cost_ft":5,"provoking_steps":0,"facings":[],"attacks_of_opportunity":[]}, */
#define REACH_ENTRY_MIN 86

void move_answer_reach(struct svc_answer *ans, const struct move_req *r, struct rules_reach *reach,
                       int prefer)
{
    struct safest safe = {0};
    int *who = calloc((size_t)r->nc + 1, sizeof *who);
    int *fx = calloc((size_t)r->nc + 1, sizeof *fx);
    int *fy = calloc((size_t)r->nc + 1, sizeof *fy);
    if (who == NULL || fx == NULL || fy == NULL) {
        svc_answer_problem(ans, SVC_PROBLEM_INTERNAL, NULL);
        goto out;
    }
    int count = rules_reach_count(reach);
    /* Each square's entry takes at least REACH_ENTRY_MIN bytes: an answer that cannot fit is
     * refused before a byte of it is written. */
    if ((long long)count * REACH_ENTRY_MIN > r->answer_limit) {
        svc_answer_too_expensive(ans, "answer_bytes", r->answer_limit,
                                 (long long)count * REACH_ENTRY_MIN);
        goto out;
    }
    if (prefer == MOVE_PREFER_SAFEST && !rank_safest(ans, r, reach, count, &safe))
        goto out;
    struct jw w;
    jw_init(&w, 4096 + (size_t)count * 96);
    jw_object_begin(&w);
    write_rules(&w, &r->rules);
    JW_STRING(&w, "mode", rules_move_mode_names[r->mode]);
    JW_STRING(&w, "prefer", move_prefer_names[prefer]);
    JW_INT(&w, "count", count);
    JW_KEY(&w, "squares");
    jw_array_begin(&w);
    int facings = rules_facing_count(r->o);
    for (int i = 0; i < count; i++) {
        /* Listing walks each square's path (charged to the work) and writes its entry. */
        if (r->work.used > r->work.limit) {
            size_t len = 0;
            free(jw_finish(&w, &len));
            svc_answer_too_expensive(ans, "search_states", r->work.limit, r->work.used);
            goto out;
        }
        if ((long long)w.len > r->answer_limit) {
            answer_too_large(ans, r, &w);
            goto out;
        }
        int at = safe.order != NULL ? safe.order[i] : i;
        struct rules_reach_square s;
        rules_reach_get(reach, at, &s);
        jw_object_begin(&w);
        write_pos(&w, r->o, s.x, s.y);
        JW_INT(&w, "cost_ft", s.cost_ft);
        JW_INT(&w, "provoking_steps", s.provoking_steps);
        JW_KEY(&w, "facings");
        jw_array_begin(&w);
        for (int f = 0; f < facings; f++)
            if (s.facings & (1u << f))
                jw_int(&w, f);
        jw_array_end(&w);
        if (safe.order != NULL) {
            JW_KEY(&w, "expected_damage");
            svc_odds_write_double(&w, safe.expected[at]);
            if (r->mover_hp > 0) {
                JW_KEY(&w, "drop_chance");
                svc_odds_write_probability(&w, safe.drop[at]);
            }
        }
        int na = rules_reach_aoos(reach, at, who, fx, fy);
        JW_KEY(&w, "attacks_of_opportunity");
        jw_array_begin(&w);
        for (int k = 0; k < na; k++) {
            jw_object_begin(&w);
            JW_STRING(&w, "creature", r->ids[who[k]]);
            JW_KEY(&w, "leaving");
            jw_object_begin(&w);
            write_pos(&w, r->o, fx[k], fy[k]);
            jw_object_end(&w);
            jw_object_end(&w);
        }
        jw_array_end(&w);
        jw_object_end(&w);
    }
    jw_array_end(&w);
    char explain[256];
    snprintf(explain, sizeof explain, "%d square%s reachable with a %s%s.", count,
             count == 1 ? "" : "s", rules_move_mode_names[r->mode],
             prefer == MOVE_PREFER_FEWEST ? ", fewest provoking steps first"
             : prefer == MOVE_PREFER_SAFEST
                 ? ", safest first (least damage expected from attacks of opportunity)"
                 : "");
    svc_write_explains(&w, explain);
    jw_object_end(&w);
    respond_jw(ans, &w);
out:
    free(safe.order);
    free(safe.expected);
    free(safe.drop);
    free(who);
    free(fx);
    free(fy);
}

const char *move_charge_why(int status, int charge, const char *actor, const char *foe, char *buf,
                            size_t n)
{
    /* rules_charge_check's answers: the code, and the words before and after the opponent. */
    static const char *const checks[][3] = {
        [-RULES_CHARGE_SHORT] = {"short", "a charge moves at least 10 feet (2 squares)", NULL},
        [-RULES_CHARGE_AWAY] = {"away", "a charge moves directly toward",
                                ": this square is no nearer"},
        [-RULES_CHARGE_AFAR] = {"afar", "a charge ends where it can attack",
                                ", and this square is not one"},
        [-RULES_CHARGE_PAST] = {"past",
                                "a charge stops at the closest space from which it can attack",
                                ", reached before this square"},
    };
    if (status == RULES_ENC_MOVE_NO_OPPONENT) {
        snprintf(buf, n, "a charge names its designated opponent: an enemy that is up (%s)",
                 RULES_CHARGE_SOURCE);
        return "no_opponent";
    }
    if (status == RULES_ENC_MOVE_NO_MELEE) {
        snprintf(buf, n, "a charge ends in a single melee attack, and '%s' has none (%s)", actor,
                 RULES_CHARGE_SOURCE);
        return "no_melee";
    }
    if (status == RULES_ENC_MOVE_TARGET) {
        snprintf(buf, n, "only a charge names a target");
        return "target";
    }
    if (charge > RULES_CHARGE_OK || charge < RULES_CHARGE_PAST)
        charge = RULES_CHARGE_AFAR;
    const char *const *w = checks[-charge];
    if (w[2] == NULL)
        snprintf(buf, n, "%s (%s)", w[1], RULES_CHARGE_SOURCE);
    else
        snprintf(buf, n, "%s '%s'%s (%s)", w[1], foe, w[2], RULES_CHARGE_SOURCE);
    return w[0];
}

/* Opens the answer of a route not found: {rules, found: false, mode, ... */
static void begin_not_found(struct jw *w, const struct move_req *r)
{
    jw_init(w, 2048);
    jw_object_begin(w);
    write_rules(w, &r->rules);
    JW_BOOL(w, "found", false);
    JW_STRING(w, "mode", rules_move_mode_names[r->mode]);
}

/* A route not found for a reason the action would give too: {rules, found: false, mode,
 * <member>: {code, step (when >= 0), why}} and the explain "<lead>: <why>.". */
static void answer_not_found(struct svc_answer *ans, const struct move_req *r, const char *member,
                             const char *code, const char *why, int step, const char *lead)
{
    assert(member != NULL && code != NULL && why != NULL);
    struct jw w;
    begin_not_found(&w, r);
    jw_key(&w, member);
    jw_object_begin(&w);
    JW_STRING(&w, "code", code);
    if (step >= 0) {
        JW_INT(&w, "step", step);
    }
    JW_STRING(&w, "why", why);
    jw_object_end(&w);
    char explain[600];
    snprintf(explain, sizeof explain, "%s: %s.", lead, why);
    svc_write_explains(&w, explain);
    jw_object_end(&w);
    respond_jw(ans, &w);
}

void move_answer_no_charge(struct svc_answer *ans, const struct move_req *r, const char *code,
                           const char *why, int step)
{
    answer_not_found(ans, r, "charge", code, why, step, "No charge");
}

void move_answer_refused(struct svc_answer *ans, const struct move_req *r, const char *code,
                         const char *why)
{
    answer_not_found(ans, r, "refused", code, why, -1, "No route now");
}

void move_answer_no_route(struct svc_answer *ans, const struct move_req *r)
{
    struct jw w;
    begin_not_found(&w, r);
    svc_write_explains(&w, "No legal route: every way is blocked for this mover and mode.");
    jw_object_end(&w);
    respond_jw(ans, &w);
}

void move_answer_forced(struct svc_answer *ans, const struct move_req *r,
                        const struct rules_forced_query *q, const struct rules_forced_result *out,
                        const struct rules_step *path)
{
    struct jw w;
    jw_init(&w, 2048);
    jw_object_begin(&w);
    write_rules(&w, &r->rules);
    JW_STRING(&w, "kind", move_forced_names[q->kind]);
    JW_INT(&w, "moved", out->moved);
    JW_KEY(&w, "end");
    jw_object_begin(&w);
    write_pos(&w, r->o, out->x, out->y);
    JW_INT(&w, "z", out->z);
    jw_object_end(&w);
    JW_BOOL(&w, "vertical", out->vertical);
    JW_INT(&w, "dz", out->dz);
    JW_KEY(&w, "stop");
    jw_object_begin(&w);
    JW_STRING(&w, "code", rules_forced_stop_code(out->stop));
    JW_STRING(&w, "message", rules_forced_stop_text(out->stop));
    JW_KEY(&w, "step");
    if (out->stop_step >= 0)
        jw_int(&w, out->stop_step);
    else
        jw_null(&w);
    JW_KEY(&w, "obstacle");
    if (out->obstacle >= 0)
        jw_string(&w, r->ids[out->obstacle]);
    else
        jw_null(&w);
    jw_object_end(&w);
    JW_BOOL(&w, "prone", out->prone);
    JW_KEY(&w, "hazards");
    jw_array_begin(&w);
    for (int i = 0; i < out->hazard_count; i++) {
        jw_object_begin(&w);
        JW_INT(&w, "step", out->hazards[i]);
        write_pos(&w, r->o, path[out->hazards[i]].x, path[out->hazards[i]].y);
        jw_object_end(&w);
    }
    jw_array_end(&w);
    JW_BOOL(&w, "provokes", false);
    JW_STRING(&w, "provokes_source", "001 Forced Movement: never provokes attacks of opportunity");
    char explain[320];
    snprintf(explain, sizeof explain, "%s %d of %d square%s%s; %s.",
             q->kind == RULES_FORCED_PUSH   ? "Pushed"
             : q->kind == RULES_FORCED_PULL ? "Pulled"
                                            : "Slid",
             out->moved, q->squares, q->squares == 1 ? "" : "s",
             out->vertical ? (out->dz < 0 ? " straight down" : " straight up") : "",
             rules_forced_stop_text(out->stop));
    svc_write_explains(&w, explain);
    jw_object_end(&w);
    respond_jw(ans, &w);
}

void move_answer_speed(struct svc_answer *ans, const struct move_req *r,
                       const struct rules_speed *sp, int checks)
{
    struct jw w;
    jw_init(&w, 2048);
    jw_object_begin(&w);
    write_rules(&w, &r->rules);
    JW_KEY(&w, "walk");
    jw_object_begin(&w);
    JW_INT(&w, "base_ft", sp->base_walk_ft);
    JW_INT(&w, "armor_penalty_ft", sp->armor_penalty_ft);
    JW_INT(&w, "load_penalty_ft", sp->load_penalty_ft);
    JW_INT(&w, "effective_ft", sp->walk_ft);
    JW_KEY(&w, "source");
    jw_string(&w,
              "001 Encumbrance: medium -5 ft above 20 ft (docs/rules.md 8 at 20 or less), heavy "
              "-10 ft above 20 ft and -5 ft otherwise; armor as load; they stack");
    jw_object_end(&w);
    int eff[RULES_MOVE_TYPES];
    for (int t = 0; t < RULES_MOVE_TYPES; t++)
        eff[t] = t == RULES_MOVE_WALK ? sp->walk_ft : r->mover.speed[t];
    write_speeds(&w, "speeds_ft", eff);
    JW_BOOL(&w, "move_action", sp->move_action);
    JW_INT(&w, "double_move_ft", 2 * sp->walk_ft);
    JW_KEY(&w, "run");
    jw_object_begin(&w);
    JW_INT(&w, "multiplier", sp->run_multiplier);
    JW_INT(&w, "feet", sp->run_ft);
    JW_STRING(&w, "source", sp->run_rule);
    JW_KEY(&w, "flat_footed_after");
    struct rules_move_marks run;
    rules_move_marks_of(RULES_MODE_RUN, r->mover.runner, &run);
    jw_bool(&w, run.flat_footed);
    JW_KEY(&w, "rounds_before_checks");
    if (r->has_constitution)
        jw_int(&w, sp->run_rounds);
    else
        jw_null(&w);
    JW_KEY(&w, "check_dcs");
    jw_array_begin(&w);
    for (int i = 0; i < checks; i++)
        jw_int(&w, rules_run_check_dc(i));
    jw_array_end(&w);
    JW_STRING(&w, "checks_source",
              "001 Run: Constitution-score rounds, then DC 30 Might, +2 per check before");
    jw_object_end(&w);
    JW_KEY(&w, "five_foot_step");
    jw_object_begin(&w);
    JW_BOOL(&w, "possible", sp->step_possible);
    JW_STRING(&w, "reason", sp->step_reason);
    JW_STRING(&w, "source", "001 5-Foot Step");
    jw_object_end(&w);
    char explain[256];
    snprintf(explain, sizeof explain,
             "Walk %d ft (base %d, armor -%d, load -%d); run x%d = %d ft%s.", sp->walk_ft,
             sp->base_walk_ft, sp->armor_penalty_ft, sp->load_penalty_ft, sp->run_multiplier,
             sp->run_ft, sp->step_possible ? "; a 5-foot step is possible" : "; no 5-foot step");
    svc_write_explains(&w, explain);
    jw_object_end(&w);
    respond_jw(ans, &w);
}
