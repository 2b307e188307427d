/* The path checker (movement.h, rules_move_path): prices a given path step by step, names
 * every rule it breaks, and lists the attacks of opportunity it provokes. The violations'
 * codes, texts and sources live here. */
#include <assert.h>
#include <stdlib.h>

#include "rules/move/internal.h"
#include "rules/move/move.h"

static const struct {
    const char *code, *text, *source;
} violations[RULES_MV_COUNT] = {
    [RULES_MV_OFF_MAP] = {"off_map", "the creature's space would leave the map", "the map"},
    [RULES_MV_NOT_ADJACENT] = {"not_adjacent", "each step must enter an adjacent square (or hex)",
                               "001 General Movement Rules"},
    [RULES_MV_BLOCKED] = {"blocked", "blocked terrain cannot be entered", "001 Blocked Terrain"},
    [RULES_MV_CORNER] = {"corner",
                         "cuts the corner of a completely filled blocked square, which cannot "
                         "be cut",
                         "001 Cutting Corners"},
    [RULES_MV_ENEMY_SQUARE] = {"enemy_square",
                               "enters an enemy's square: walking passes only unoccupied "
                               "spaces or allies' spaces, and stepover needs two size "
                               "categories more",
                               "001 Walk; 001 Stepover"},
    [RULES_MV_GAP] = {"gap_too_narrow", "the gap is narrower than this size can squeeze through",
                      "001 Space and Reach; 001 Squeezing"},
    [RULES_MV_NO_SPEED] = {"no_speed",
                           "no listed speed of a movement type that can enter this terrain",
                           "001 Alternative Movement Types; 001 5-Foot Step"},
    [RULES_MV_OUT_OF_MOVEMENT] = {"out_of_movement",
                                  "not enough movement left for this square with any usable "
                                  "movement type",
                                  "001 General Movement Rules; 001 Combining Movement Types"},
    [RULES_MV_RUN_TERRAIN] = {"run_through_difficult",
                              "running or charging cannot cross difficult or impeded terrain "
                              "(squeezing counts as difficult)",
                              "001 Run; 001 Difficult Terrain; 001 Impeded Terrain"},
    [RULES_MV_IMPEDED] = {"impeded_needs_full_round",
                          "impeded terrain takes a full-round action per 5 ft: only as the "
                          "whole of a double move",
                          "001 Impeded Terrain"},
    [RULES_MV_STEP_TERRAIN] = {"step_into_difficult",
                               "a 5-foot step cannot enter difficult or impeded terrain",
                               "001 5-Foot Step, Other Considerations"},
    [RULES_MV_STEP_CONCEALED] = {"step_into_concealed",
                                 "a 5-foot step cannot enter a concealed square without a way "
                                 "to see normally there (such as darkvision)",
                                 "001 5-Foot Step, Other Considerations"},
    [RULES_MV_STEP_SLOW] = {"step_speed_too_low",
                            "a creature with a speed of 5 ft or less can never take a 5-foot "
                            "step",
                            "001 5-Foot Step, Other Considerations"},
    [RULES_MV_STEP_MOVED] = {"step_after_movement",
                             "a 5-foot step is allowed only in a round with no other movement "
                             "(no run either) unless a feature grants one",
                             "001 5-Foot Step; 001 Run"},
    [RULES_MV_STEP_LENGTH] = {"step_too_long", "a 5-foot step moves one square", "001 5-Foot Step"},
    [RULES_MV_STEP_FACING] = {"step_changes_facing",
                              "a 5-foot step does not change facing (one free change a turn, "
                              "already used)",
                              "000 Facing and Movement, 5-Foot Steps"},
    [RULES_MV_WITHDRAW_CLOSER] = {"withdraw_not_farther",
                                  "each square of a withdraw must be farther from the primary "
                                  "target than the one before",
                                  "001 Withdraw"},
    [RULES_MV_WITHDRAW_TARGET] = {"withdraw_target",
                                  "the primary target must be an enemy threatening the mover",
                                  "001 Withdraw"},
    [RULES_MV_BLIND] = {"cannot_see", "a creature that cannot see may not run or withdraw",
                        "001 Run; 001 Withdraw"},
    [RULES_MV_NOT_PRONE] = {"not_prone", "only a prone (quelled, splayed) creature crawls",
                            "001 Crawling"},
    [RULES_MV_PRONE] = {"prone_moves",
                        "a prone creature moves only by crawling 5 ft; to move otherwise it "
                        "stands up first, a move action",
                        "001 Crawling; 001 Part of a Move Action"},
    [RULES_MV_END_OCCUPIED] = {"ends_occupied",
                               "a move must end in an unoccupied space (stepover excepted)",
                               "001 Walk; 001 Stepover"},
    [RULES_MV_NO_MOVE_ACTION] = {"no_move_action",
                                 "armor and load reduce Walk to 0: moving 5 ft takes a standard "
                                 "action",
                                 "001 Encumbrance"},
};

const char *rules_move_violation_code(enum rules_move_violation v)
{
    return violations[v].code;
}

const char *rules_move_violation_text(enum rules_move_violation v)
{
    return violations[v].text;
}

const char *rules_move_violation_source(enum rules_move_violation v)
{
    return violations[v].source;
}

static int dir_index(const struct rules__move_ctx *c, int dx, int dy)
{
    const int(*d)[2] = rules__dirs_of(c);
    for (int i = 0; i < c->ndirs; i++)
        if (d[i][0] == dx && d[i][1] == dy)
            return i;
    return -1;
}

/* Chooses the type that enters at `cost` after `spent` (001 Combining Movement Types: every
 * price comes off every type; a type at 0 can no longer be used). -1: none can. */
static int pick_type(const struct rules__move_ctx *c, unsigned types, int spent, int cost)
{
    int best = -1, best_left = -1;
    for (int t = 0; t < RULES_MOVE_TYPES; t++) {
        if (!(types & 1u << t))
            continue;
        int left = c->budget[t] - spent;
        if (left >= cost && left > best_left)
            best = t, best_left = left;
    }
    return best;
}

/* ---- checking a path ---- */

uint32_t rules__action_checks(const struct rules__move_ctx *c)
{
    const struct rules_mover *m = c->m;
    const struct rules_move_query *q = c->q;
    uint32_t bad = 0;
    struct rules_speed sp;
    rules_speed_eval(c->o, m, &sp);
    switch (q->mode) {
    case RULES_MODE_STEP:
        /* rules_speed_eval judges the round: speed 5 ft or less, other movement, a run. */
        if (!sp.step_possible)
            bad |= BIT(sp.step_violation);
        break;
    case RULES_MODE_RUN:
        if (m->blinded)
            bad |= BIT(RULES_MV_BLIND);
        break;
    case RULES_MODE_WITHDRAW: {
        if (m->blinded)
            bad |= BIT(RULES_MV_BLIND);
        int p = q->primary_target;
        if (p < 0 || p >= q->creature_count || q->creatures[p].ally || !q->creatures[p].conscious ||
            !rules_threatens_creature(c->o, &q->creatures[p].c, &m->c))
            bad |= BIT(RULES_MV_WITHDRAW_TARGET);
        break;
    }
    case RULES_MODE_CRAWL:
        if (!m->prone)
            bad |= BIT(RULES_MV_NOT_PRONE);
        break;
    default:
        break;
    }
    /* 001 Crawling: "While Quelled, Prone, or Splayed, you can crawl 5 feet as a move action";
     * any other movement, a 5-foot step too, waits for standing up, a move action of its own
     * (001 Part of a Move Action). */
    if (m->prone && q->mode != RULES_MODE_CRAWL)
        bad |= BIT(RULES_MV_PRONE);
    if (q->mode != RULES_MODE_STEP && q->mode != RULES_MODE_CRAWL && !sp.move_action)
        bad |= BIT(RULES_MV_NO_MOVE_ACTION);
    return bad;
}

void rules_move_aoo_evaluate(const struct rules_move_query *q, int k, int x, int y, int f,
                             struct rules_creature *allies, struct rules_attack_eval *out)
{
    const struct rules_map_creature *e = &q->creatures[k];
    struct rules_attacker a = {.c = e->c,
                               .attack_bonus = e->attack_bonus,
                               .kind = RULES_ATTACK_OF_OPPORTUNITY,
                               .combat_reflexes = e->combat_reflexes};
    struct rules_defender d = {.c = q->mover->c, .ac = q->mover->ac};
    d.c.body.x = x, d.c.body.y = y;
    d.c.facing = f;
    if (q->mode == RULES_MODE_CRAWL)
        d.conditions |= RULES_COND_PRONE;
    if (q->mode == RULES_MODE_RUN)
        d.conditions |= RULES_COND_RUNNING;
    int na = 0;
    for (int i = 0; i < q->creature_count; i++)
        if (i != k && !q->creatures[i].ally && q->creatures[i].conscious)
            allies[na++] = q->creatures[i].c;
    if (rules_attack_evaluate(q->o, &a, &d, allies, na, RULES_COVER_NONE, NULL, 0, out) !=
        RULES_ATTACK_OK)
        out->mod_count = 0;
}

/* The bounding box of the start and the path, one square wider for corners. */
static void path_box(const struct rules_mover *m, const struct rules_step *s, int n, int *x0,
                     int *y0, int *x1, int *y1)
{
    int side = m->c.body.side + 1;
    *x0 = m->c.body.x - 2, *y0 = m->c.body.y - 2;
    *x1 = m->c.body.x + side + 2, *y1 = m->c.body.y + side + 2;
    for (int i = 0; i < n; i++) {
        *x0 = s[i].x - 2 < *x0 ? s[i].x - 2 : *x0;
        *y0 = s[i].y - 2 < *y0 ? s[i].y - 2 : *y0;
        *x1 = s[i].x + side + 2 > *x1 ? s[i].x + side + 2 : *x1;
        *y1 = s[i].y + side + 2 > *y1 ? s[i].y + side + 2 : *y1;
    }
}

/* The facing the mover holds on step s (dir: the step's direction, -1 when not adjacent;
 * facing: the one it held before). A facing changed on a 5-foot step is a violation in r. */
static int step_facing(const struct rules_move_query *q, const struct rules_step *s, int dir,
                       int facing, bool has_facing, struct rules_step_result *r)
{
    int f = facing;
    if (has_facing && q->mode != RULES_MODE_STEP)
        f = s->facing >= 0 ? s->facing : (dir >= 0 ? dir : facing);
    if (has_facing && q->mode == RULES_MODE_STEP && s->facing >= 0 && s->facing != facing)
        r->violations |= BIT(RULES_MV_STEP_FACING); /* 000: no facing change on a step */
    if (q->o->facing == RULES_FACING_003 && has_facing && dir >= 0 && q->mode != RULES_MODE_STEP)
        f = dir; /* 003: facing is declared at the end; moving, it faces its way */
    return f;
}

/* The attacks of opportunity step i provokes, leaving (x, y) facing f: one from each enemy
 * threatening a square left, once per enemy over the move (seen), appended to out. False when
 * the query's work budget runs out. */
static bool step_aoos(const struct rules__move_ctx *c, int x, int y, int i, int f, bool has_facing,
                      struct rules_creature *allies, unsigned char *seen,
                      struct rules_path_result *out)
{
    if (!rules__step_provokes(c, x, y, i))
        return true;
    int fx[MAX_FOOT], fy[MAX_FOOT];
    int fnum = rules__footprint(c, x, y, fx, fy);
    for (int j = 0; j < fnum; j++) {
        if (!in_window(c, fx[j], fy[j]))
            continue;
        size_t w = wcell(c, fx[j], fy[j]);
        /* Each enemy looked at counts: a crowd threatening every square of a long path is
         * looked through at every step. */
        if (!rules__charge(c->q, (long long)(c->thr_off[w + 1] - c->thr_off[w])))
            return false;
        for (uint32_t t = c->thr_off[w]; t < c->thr_off[w + 1]; t++) {
            int k = c->thr_idx[t];
            if (seen[k])
                continue;
            seen[k] = 1;
            assert(out->aoo_count < c->q->creature_count);
            struct rules_aoo *a = &out->aoos[out->aoo_count++];
            *a = (struct rules_aoo){
                .creature = k, .step = i, .from_x = x, .from_y = y, .facing = out->steps[i].facing};
            rules_move_aoo_evaluate(c->q, k, x, y, has_facing ? f : 0, allies, &a->eval);
        }
    }
    return true;
}

/* The movement type step i is paid from, having spent `spent` before it; out of movement
 * when none has the budget left (the first such step ends the steps in budget). */
static void step_type(const struct rules__move_ctx *c, const struct rules__step_eval *e, int i,
                      int spent, int cost, struct rules_path_result *out)
{
    struct rules_step_result *r = &out->steps[i];
    int type = pick_type(c, e->types, spent, cost);
    if (type < 0) {
        if (e->types != 0)
            r->violations |= BIT(RULES_MV_OUT_OF_MOVEMENT);
        for (int t = 0; t < RULES_MOVE_TYPES; t++)
            if (e->types & 1u << t) {
                type = t;
                break;
            }
    }
    if ((r->violations & BIT(RULES_MV_OUT_OF_MOVEMENT)) && out->steps_in_budget < 0)
        out->steps_in_budget = i;
    r->type = type < 0 ? RULES_MOVE_WALK : (enum rules_move_type)type;
}

/* Prices step i from (x, y) facing f, with `parity` diagonals so far: its cost in r's. */
static int step_cost(const struct rules__move_ctx *c, const struct rules_step *s, int x, int y,
                     int f, int parity, int i, struct rules__step_eval *e,
                     struct rules_step_result *r)
{
    int dx = s->x - x, dy = s->y - y;
    int dir = dir_index(c, dx, dy);
    int cost = 5;
    if (dir < 0) {
        r->violations |= BIT(RULES_MV_NOT_ADJACENT);
        *e = (struct rules__step_eval){.types = 1u << RULES_MOVE_WALK, .cost_front = 5};
    } else {
        rules__eval_step(c, x, y, dx, dy, parity, i, e);
        bool back = c->facing_cost && c->q->mode != RULES_MODE_STEP && !dir_in_front(c, dir, f);
        cost = back ? e->cost_back : e->cost_front;
        if (back)
            e->why |= RULES_COST_BACKWARD;
    }
    r->violations |= e->bad;
    r->why = e->why;
    return cost;
}

/* The move as a whole once its n steps are priced: where it ends, what is left, its end
 * facing, and whether it is legal. */
static void path_finish(const struct rules__move_ctx *c, int n, int x, int y, int facing, int spent,
                        int end_facing, struct rules_path_result *out)
{
    const struct rules_move_query *q = c->q;
    bool has_facing = rules_has_facing(q->o, &q->mover->c);
    if (out->steps_in_budget < 0)
        out->steps_in_budget = n;
    if (n > 0 && !rules__end_ok(c, x, y))
        out->steps[n - 1].violations |= BIT(RULES_MV_END_OCCUPIED);
    out->total_ft = spent;
    for (int t = 0; t < RULES_MOVE_TYPES; t++) {
        int left = c->budget[t] - spent;
        out->remaining_ft[t] = left > 0 ? left : 0;
    }
    out->end_facing = has_facing ? (end_facing >= 0 ? end_facing : facing) : -1;
    if (has_facing && q->mode == RULES_MODE_STEP && end_facing >= 0 && end_facing != facing &&
        q->mover->turned)
        out->action_violations |= BIT(RULES_MV_STEP_FACING);
    out->legal = out->action_violations == 0;
    for (int i = 0; i < n; i++)
        out->legal &= out->steps[i].violations == 0;
}

int rules_move_path(const struct rules_move_query *q, const struct rules_step *steps, int n,
                    int end_facing, struct rules_path_result *out)
{
    assert(q != NULL && q->mover != NULL && out != NULL && (n == 0 || steps != NULL));
    struct rules__move_ctx c;
    int x0, y0, x1, y1;
    path_box(q->mover, steps, n, &x0, &y0, &x1, &y1);
    int rc = rules__ctx_init(&c, q, x0, y0, x1, y1, false, true);
    if (rc != 0)
        return rc;
    struct rules_creature *allies = malloc(((size_t)q->creature_count + 1) * sizeof *allies);
    unsigned char *seen = calloc((size_t)q->creature_count + 1, 1);
    if (allies == NULL || seen == NULL) {
        rc = RULES_MOVE_ERR_NOMEM;
        goto out;
    }
    const struct rules_mover *m = q->mover;
    bool has_facing = rules_has_facing(q->o, &m->c);
    out->action_violations = rules__action_checks(&c);
    out->aoo_count = 0;
    out->steps_in_budget = -1;
    int x = m->c.body.x, y = m->c.body.y, facing = m->c.facing, parity = 0, spent = 0;
    for (int t = 0; t < RULES_MOVE_TYPES; t++)
        out->budget_ft[t] = c.budget[t];
    for (int i = 0; i < n; i++) {
        struct rules_step_result *r = &out->steps[i];
        *r = (struct rules_step_result){.x = steps[i].x, .y = steps[i].y};
        int f = step_facing(q, &steps[i], dir_index(&c, steps[i].x - x, steps[i].y - y), facing,
                            has_facing, r);
        r->facing = has_facing ? f : -1;
        struct rules__step_eval e;
        int cost = step_cost(&c, &steps[i], x, y, f, parity, i, &e, r);
        if (!step_aoos(&c, x, y, i, f, has_facing, allies, seen, out)) {
            rc = RULES_MOVE_TOO_EXPENSIVE;
            goto out;
        }
        if (e.impeded && !(e.bad & BIT(RULES_MV_IMPEDED)))
            cost = c.max_budget - spent > cost ? c.max_budget - spent : cost;
        step_type(&c, &e, i, spent, cost, out);
        r->cost_ft = cost;
        spent += cost;
        r->spent_ft = spent;
        if (e.diagonal)
            parity ^= 1;
        x = steps[i].x, y = steps[i].y, facing = f;
    }
    path_finish(&c, n, x, y, facing, spent, end_facing, out);
out:
    free(allies);
    free(seen);
    rules__ctx_free(&c);
    return rc;
}
