#include "movement.h"
#include "movement_internal.h"

#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ---- */

static const char *const terrain_names[RULES_MAP_COUNT] = {
    "clear", "difficult", "impeded", "blocked", "hazardous", "water", "air", "earth"};

const char *rules_map_terrain_name(enum rules_map_terrain t)
{
    return terrain_names[t];
}

static const char *const type_names[RULES_MOVE_TYPES] = {"walk", "swim", "climb", "fly", "burrow"};

const char *rules_move_type_name(enum rules_move_type t)
{
    return type_names[t];
}

static const char *const mode_names[RULES_MODE_COUNT] = {
    "move", "double_move", "run", "charge", "five_foot_step", "withdraw", "crawl"};

const char *rules_move_mode_name(enum rules_move_mode m)
{
    return mode_names[m];
}

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

/* ---- the map ---- */

int rules_map_init(struct rules_map *m, int width, int height)
{
    size_t n = (size_t)width * (size_t)height;
    *m = (struct rules_map){.width = width, .height = height};
    m->terrain = calloc(n ? n : 1, 1);
    m->flags = calloc(n ? n : 1, 1);
    if (m->terrain == NULL || m->flags == NULL) {
        rules_map_free(m);
        return -1;
    }
    return 0;
}

void rules_map_free(struct rules_map *m)
{
    free(m->terrain);
    free(m->flags);
    free(m->gap_in);
    free(m->elevation);
    *m = (struct rules_map){0};
}

/* ---- speed (001 Encumbrance, Run) ---- */

/* 001 Encumbrance: medium "reduces your movement by five feet if your base move is above 20
 * feet" (at 20 or less, RULES.md 8: the option); heavy "by ten feet if your Walk speed is
 * above 20 feet and five feet otherwise". Armor works "exactly as" load, and they stack. */
static int burden_penalty(const struct rules_options *o, enum rules_burden b, int walk)
{
    if (b == RULES_BURDEN_MEDIUM)
        return walk > 20 ? 5 : o->slow_medium_penalty_ft;
    if (b == RULES_BURDEN_HEAVY)
        return walk > 20 ? 10 : 5;
    return 0;
}

void rules_speed_eval(const struct rules_options *o, const struct rules_mover *m,
                      struct rules_speed *out)
{
    int walk = m->speed[RULES_MOVE_WALK];
    *out = (struct rules_speed){.base_walk_ft = walk};
    out->armor_penalty_ft = burden_penalty(o, m->armor, walk);
    out->load_penalty_ft = burden_penalty(o, m->load, walk);
    int eff = walk - out->armor_penalty_ft - out->load_penalty_ft;
    out->walk_ft = eff > 0 ? eff : 0;
    out->move_action = walk == 0 || out->walk_ft > 0;
    if (o->run == RULES_RUN_X4) {
        /* 001 Run: "four times their listed speed (or three times ... heavy armor)". */
        out->run_multiplier = m->armor == RULES_BURDEN_HEAVY ? 3 : 4;
        out->run_rule = "001 Run: x4, x3 in heavy armor";
    } else {
        /* 001 Encumbrance: x5, -1 for medium and -2 for heavy load or armor, stacking. */
        int mult = 5 - (int)m->armor - (int)m->load;
        out->run_multiplier = mult < 1 ? 1 : mult;
        out->run_rule = "001 Encumbrance: x5, less 1 per medium and 2 per heavy load or armor";
    }
    out->run_ft = out->run_multiplier * out->walk_ft;
    out->run_rounds = m->constitution; /* 001 Run: "a number of rounds equal to their
                                          Constitution score" */
    out->step_possible = true;
    out->step_reason = "a 5-foot step is possible (001 5-Foot Step)";
    int fastest = 0;
    for (int t = 0; t < RULES_MOVE_TYPES; t++) {
        int s = t == RULES_MOVE_WALK ? out->walk_ft : m->speed[t];
        fastest = s > fastest ? s : fastest;
    }
    if (fastest <= 5) {
        out->step_possible = false;
        out->step_violation = RULES_MV_STEP_SLOW;
        out->step_reason = violations[RULES_MV_STEP_SLOW].text;
    } else if ((m->moved || m->ran) && m->extra_steps <= 0) {
        out->step_possible = false;
        out->step_violation = RULES_MV_STEP_MOVED;
        out->step_reason = violations[RULES_MV_STEP_MOVED].text;
    }
}

int rules_run_check_dc(int n)
{
    return 30 + 2 * n; /* 001 Run: "DC 30 ... increases by +2 for each check ... previously" */
}

/* ---- the search context (struct ctx: movement_internal.h) ---- */

static const int sq_dirs[8][2] = {{0, -1}, {1, -1}, {1, 0},  {1, 1},
                                  {0, 1},  {-1, 1}, {-1, 0}, {-1, -1}};

const int (*dirs_of(const struct ctx *c))[2]
{
    return c->hex ? rules_hex_dirs : sq_dirs;
}

static int dir_index(const struct ctx *c, int dx, int dy)
{
    const int(*d)[2] = dirs_of(c);
    for (int i = 0; i < c->ndirs; i++)
        if (d[i][0] == dx && d[i][1] == dy)
            return i;
    return -1;
}

static bool in_window(const struct ctx *c, int x, int y)
{
    return x >= c->wx0 && y >= c->wy0 && x < c->wx0 + c->ww && y < c->wy0 + c->wh;
}

static size_t wcell(const struct ctx *c, int x, int y)
{
    return (size_t)(y - c->wy0) * (size_t)c->ww + (size_t)(x - c->wx0);
}

static bool on_map(const struct rules_map *map, int x, int y)
{
    return x >= 0 && y >= 0 && x < map->width && y < map->height;
}

static size_t mcell(const struct rules_map *map, int x, int y)
{
    return (size_t)y * (size_t)map->width + (size_t)x;
}

/* The squares (or hexes) of a body of the mover's shape at (x, y). */
static int footprint(const struct ctx *c, int x, int y, int *fx, int *fy)
{
    if (c->hex) {
        struct rules_body b = c->m->c.body;
        b.x = x, b.y = y;
        int q[3], r[3];
        int n = rules_hex_members(&b, q, r);
        for (int i = 0; i < n; i++)
            fx[i] = q[i], fy[i] = r[i];
        return n;
    }
    int n = 0;
    for (int dy = 0; dy < c->side; dy++)
        for (int dx = 0; dx < c->side; dx++)
            fx[n] = x + dx, fy[n++] = y + dy;
    return n;
}

/* Charges n units of work to the query's budget; false once it is spent. */
bool charge(const struct rules_move_query *q, long long n)
{
    if (q->work == NULL)
        return true;
    q->work->used += n;
    return q->work->limit <= 0 || q->work->used <= q->work->limit;
}

static bool eligible_attacker(const struct rules_move_query *q, int i)
{
    const struct rules_map_creature *k = &q->creatures[i];
    if (k->ally || !k->conscious || !k->c.can_threaten)
        return false;
    if (q->mode == RULES_MODE_WITHDRAW && i == q->primary_target)
        return false; /* 001 Withdraw: "the primary target may not make any attacks" */
    return q->no_attack == NULL || !q->no_attack[i];
}

void ctx_free(struct ctx *c)
{
    free(c->info);
    c->info = NULL;
    free(c->occ);
    free(c->thr_off);
    free(c->thr_idx);
    c->occ = NULL, c->thr_off = NULL, c->thr_idx = NULL;
}

/* Budgets per movement type for the action (001 Walk, Double Move, Run, 5-Foot Step,
 * Crawling, Withdraw). unlimited: the route search ignores them. */
static void set_budgets(struct ctx *c, bool unlimited)
{
    struct rules_speed sp;
    rules_speed_eval(c->o, c->m, &sp);
    c->max_budget = 0;
    c->speed_types = 0;
    for (int t = 0; t < RULES_MOVE_TYPES; t++) {
        int s = t == RULES_MOVE_WALK ? sp.walk_ft : c->m->speed[t];
        int b = 0;
        switch (c->q->mode) {
        case RULES_MODE_MOVE:
        case RULES_MODE_WITHDRAW:
            b = s;
            break;
        case RULES_MODE_DOUBLE:
        case RULES_MODE_CHARGE:
            b = 2 * s;
            break;
        case RULES_MODE_RUN:
            b = sp.run_multiplier * s;
            break;
        case RULES_MODE_STEP:
            b = s > 0 ? 5 : 0;
            break;
        case RULES_MODE_CRAWL:
            b = t == RULES_MOVE_WALK && s > 0 ? 5 : 0;
            break;
        case RULES_MODE_COUNT:
            break;
        }
        if (unlimited && s > 0)
            b = INT32_MAX / 4;
        c->budget[t] = b;
        c->max_budget = b > c->max_budget ? b : c->max_budget;
        if (b > 0)
            c->speed_types |= 1u << t;
    }
    c->impeded_cost = 2 * sp.walk_ft > 5 ? 2 * sp.walk_ft : 5;
    for (unsigned set = 0; set < (1u << RULES_MOVE_TYPES); set++) {
        c->type_budget[set] = -1;
        for (int t = 0; t < RULES_MOVE_TYPES; t++)
            if ((set & 1u << t) && c->budget[t] > c->type_budget[set])
                c->type_budget[set] = c->budget[t];
    }
}

/* Sets up the window [x0, x1) x [y0, y1) (clipped to the map), the occupancy of every
 * creature and the squares each eligible enemy threatens there. */
int ctx_init(struct ctx *c, const struct rules_move_query *q, int x0, int y0, int x1, int y1,
             bool unlimited, bool threats)
{
    *c = (struct ctx){.q = q, .o = q->o, .map = q->map, .m = q->mover};
    c->hex = q->o->grid == RULES_GRID_HEX;
    c->ndirs = c->hex ? 6 : 8;
    c->side = c->hex ? 1 : q->mover->c.body.side;
    c->facing_cost = q->o->facing == RULES_FACING_000 && rules_has_facing(q->o, &q->mover->c);
    set_budgets(c, unlimited);
    x0 = x0 < 0 ? 0 : x0, y0 = y0 < 0 ? 0 : y0;
    x1 = x1 > q->map->width ? q->map->width : x1;
    y1 = y1 > q->map->height ? q->map->height : y1;
    if (x1 <= x0 || y1 <= y0)
        x1 = x0 + 1, y1 = y0 + 1;
    c->wx0 = x0, c->wy0 = y0, c->ww = x1 - x0, c->wh = y1 - y0;
    /* off[d] must follow the grid's own directions: the searches step with dirs_of(c)[d]
     * and off[d] together, and square offsets on hexes land off the window at its edge. */
    const int(*dirs)[2] = dirs_of(c);
    for (int d = 0; d < 8; d++)
        c->off[d] = d < c->ndirs ? (ptrdiff_t)dirs[d][1] * c->ww + dirs[d][0] : 0;
    size_t n = (size_t)c->ww * (size_t)c->wh;
    c->occ = calloc(n, sizeof *c->occ);
    c->thr_off = calloc(threats ? n + 1 : 1, sizeof *c->thr_off);
    c->info = malloc(n * sizeof *c->info);
    if (c->occ == NULL || c->thr_off == NULL || c->info == NULL)
        goto fail;
    /* Squares without flags or gaps take their bits from a table by terrain. */
    uint32_t plain[256] = {0};
    for (int t = 0; t < RULES_MAP_COUNT; t++) {
        struct rules_map one = {.width = 1, .height = 1};
        uint8_t terrain = (uint8_t)t, flags = 0;
        one.terrain = &terrain, one.flags = &flags;
        struct ctx probe = *c;
        probe.map = &one;
        plain[t] = terrain_info(&probe, 0);
    }
    for (int y = y0; y < y1; y++) {
        uint32_t *row = c->info + (size_t)(y - y0) * (size_t)c->ww;
        size_t mi = mcell(q->map, x0, y);
        const uint8_t *tr = q->map->terrain + mi, *fl = q->map->flags + mi;
        for (int x = 0; x < c->ww; x++)
            row[x] = fl[x] == 0 && q->map->gap_in == NULL ? plain[tr[x]]
                                                          : terrain_info(c, mi + (size_t)x);
    }
    int z = q->mover->c.body.z;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < q->creature_count; i++) {
            const struct rules_creature *k = &q->creatures[i].c;
            int fx[MAX_FOOT], fy[MAX_FOOT], fn;
            if (c->hex) {
                int hq[3], hr[3];
                fn = rules_hex_members(&k->body, hq, hr);
                for (int j = 0; j < fn; j++)
                    fx[j] = hq[j], fy[j] = hr[j];
            } else {
                fn = 0;
                for (int dy = 0; dy < k->body.side; dy++)
                    for (int dx = 0; dx < k->body.side; dx++)
                        fx[fn] = k->body.x + dx, fy[fn++] = k->body.y + dy;
            }
            if (pass == 0)
                for (int j = 0; j < fn; j++)
                    if (in_window(c, fx[j], fy[j])) {
                        c->occ[wcell(c, fx[j], fy[j])] = i + 1;
                        c->info[wcell(c, fx[j], fy[j])] |= creature_info(c, i);
                    }
            if (!threats || !eligible_attacker(q, i))
                continue;
            int r = k->reach_ft / 5 + 1;
            int bx0 = k->body.x - r - 1, by0 = k->body.y - r - 1;
            int bx1 = k->body.x + k->body.side + r + 1, by1 = k->body.y + k->body.side + r + 1;
            for (int y = by0 < y0 ? y0 : by0; y < (by1 > y1 ? y1 : by1); y++)
                for (int x = bx0 < x0 ? x0 : bx0; x < (bx1 > x1 ? x1 : bx1); x++) {
                    if (!rules_threatens_square(q->o, k, x, y, z))
                        continue;
                    size_t w = wcell(c, x, y);
                    if (pass == 0)
                        c->thr_off[w + 1]++;
                    else
                        c->thr_idx[c->thr_off[w]++] = i;
                }
        }
        if (!threats)
            return 0;
        if (pass == 0) {
            for (size_t w = 0; w < n; w++)
                c->thr_off[w + 1] += c->thr_off[w];
            c->thr_idx = malloc((c->thr_off[n] ? c->thr_off[n] : 1) * sizeof *c->thr_idx);
            if (c->thr_idx == NULL)
                goto fail;
        }
    }
    /* The fill pass advanced each start to the next one's: shift back. */
    for (size_t w = n; w > 0; w--)
        c->thr_off[w] = c->thr_off[w - 1];
    c->thr_off[0] = 0;
    return 0;
fail:
    ctx_free(c);
    return RULES_MOVE_ERR_NOMEM;
}

/* True when some eligible enemy threatens some square of the window. */
static bool any_threat(const struct ctx *c)
{
    return c->thr_idx != NULL && c->thr_off[(size_t)c->ww * (size_t)c->wh] > 0;
}

static bool square_threatened(const struct ctx *c, int x, int y)
{
    if (c->thr_idx == NULL || !in_window(c, x, y))
        return false;
    size_t w = wcell(c, x, y);
    return c->thr_off[w + 1] > c->thr_off[w];
}

/* True when leaving the footprint at (x, y) on step `step` provokes (001 Walk, Threatened
 * Area; 004 Provoking an Attack of Opportunity by Moving). */
static bool step_provokes(const struct ctx *c, int x, int y, int step)
{
    enum rules_move_mode mode = c->q->mode;
    if (mode == RULES_MODE_STEP)
        return false; /* 001 5-Foot Step: "without provoking attacks of opportunity" */
    /* 004: "If all a combatant does is take a normal move or a double move (not a run), the
     * space that the combatant started out in is not considered threatened." */
    if (step == 0 && c->o->start_square == RULES_START_SQUARE_SAFE &&
        (mode == RULES_MODE_MOVE || mode == RULES_MODE_DOUBLE))
        return false;
    if (c->side == 1 || c->hex) {
        int fx[3], fy[3];
        int n = footprint(c, x, y, fx, fy);
        for (int i = 0; i < n; i++)
            if (square_threatened(c, fx[i], fy[i]))
                return true;
        return false;
    }
    for (int dy = 0; dy < c->side; dy++)
        for (int dx = 0; dx < c->side; dx++)
            if (square_threatened(c, x + dx, y + dy))
                return true;
    return false;
}

static int creature_at(const struct ctx *c, int x, int y)
{
    if (in_window(c, x, y))
        return c->occ[wcell(c, x, y)] - 1;
    /* Outside the window (paths reaching past it): look through the list. */
    for (int i = 0; i < c->q->creature_count; i++) {
        const struct rules_body *b = &c->q->creatures[i].c.body;
        if (c->hex) {
            int hq[3], hr[3];
            int n = rules_hex_members(b, hq, hr);
            for (int j = 0; j < n; j++)
                if (hq[j] == x && hr[j] == y)
                    return i;
        } else if (x >= b->x && x < b->x + b->side && y >= b->y && y < b->y + b->side) {
            return i;
        }
    }
    return -1;
}

/* 001 Stepover: two size categories or more larger. */
static bool steps_over(const struct ctx *c, int k)
{
    return (int)c->m->c.size >= (int)c->q->creatures[k].c.size + 2;
}

static bool in_footprint(const int *fx, const int *fy, int n, int x, int y)
{
    for (int i = 0; i < n; i++)
        if (fx[i] == x && fy[i] == y)
            return true;
    return false;
}

/* Movement types able to enter each terrain (see movement.h). */
static unsigned terrain_types(uint8_t t)
{
    switch (t) {
    case RULES_MAP_WATER:
        return 1u << RULES_MOVE_SWIM | 1u << RULES_MOVE_FLY;
    case RULES_MAP_AIR:
        return 1u << RULES_MOVE_FLY;
    case RULES_MAP_EARTH:
        return 1u << RULES_MOVE_BURROW;
    case RULES_MAP_BLOCKED:
        return 0;
    default:
        return 1u << RULES_MOVE_WALK | 1u << RULES_MOVE_FLY;
    }
}

/* The bits of map square mi that depend on the terrain and the mover's size. */
uint32_t terrain_info(const struct ctx *c, size_t mi)
{
    const struct rules_map *map = c->map;
    uint8_t t = map->terrain[mi];
    uint32_t ci = terrain_types(t);
    if (t == RULES_MAP_BLOCKED)
        ci |= CI_BLOCKED;
    if ((t == RULES_MAP_BLOCKED || t == RULES_MAP_EARTH) &&
        !(map->flags[mi] & RULES_SQUARE_CUTTABLE))
        ci |= CI_SOLID;
    if (t == RULES_MAP_DIFFICULT)
        ci |= CI_DIFF;
    if (t == RULES_MAP_IMPEDED)
        ci |= CI_IMP;
    if (t == RULES_MAP_HAZARDOUS)
        ci |= CI_HAZ;
    if (map->flags[mi] & RULES_SQUARE_CONCEALED)
        ci |= CI_CONC;
    if (map->gap_in != NULL && map->gap_in[mi] != 0) {
        const struct rules_size_info *sz = rules_size_info(c->m->c.size);
        int g = map->gap_in[mi];
        if (g < sz->impeded_gap_in)
            ci |= CI_GAP;
        else if (g < sz->squeeze_gap_in)
            ci |= CI_SQUEEZE | CI_IMP; /* "considered impeded terrain, in addition to ..." */
        else if (g < sz->fit_gap_in)
            ci |= CI_SQUEEZE;
    }
    return ci;
}

/* The bits creature k puts on its squares for this mover. */
uint32_t creature_info(const struct ctx *c, int k)
{
    const struct rules_map_creature *mc = &c->q->creatures[k];
    if (steps_over(c, k))
        return CI_OVER;
    return !mc->ally && mc->conscious ? CI_OCC | CI_ENEMY : CI_OCC;
}

static uint32_t compute_info(const struct ctx *c, int x, int y)
{
    if (!on_map(c->map, x, y))
        return CI_OFFMAP;
    uint32_t ci = terrain_info(c, mcell(c->map, x, y));
    int k = creature_at(c, x, y);
    return k >= 0 ? ci | creature_info(c, k) : ci;
}

static uint32_t cell_info(const struct ctx *c, int x, int y)
{
    return in_window(c, x, y) ? c->info[wcell(c, x, y)] : compute_info(c, x, y);
}

/* Prices the step from (x, y) to (x + dx, y + dy) with `parity` diagonals counted so far
 * (000's alternating rule). Budget checks are the caller's: they depend on the type. */
void eval_step(const struct ctx *c, int x, int y, int dx, int dy, int parity, int step,
               struct step_eval *e)
{
    enum rules_move_mode mode = c->q->mode;
    *e = (struct step_eval){0};
    int tx = x + dx, ty = y + dy;
    uint32_t all = 0, types = CI_TYPES;
    if (c->side == 1 && !c->hex) {
        all = cell_info(c, tx, ty);
        types = all;
    } else {
        int ox[MAX_FOOT], oy[MAX_FOOT], nx[MAX_FOOT], ny[MAX_FOOT];
        int on = footprint(c, x, y, ox, oy), nn = footprint(c, tx, ty, nx, ny);
        for (int i = 0; i < nn; i++) {
            if (in_footprint(ox, oy, on, nx[i], ny[i]))
                continue; /* 001: "Leaving a square is always free"; squares entered count */
            uint32_t ci = cell_info(c, nx[i], ny[i]);
            all |= ci;
            types &= ci;
        }
    }
    if (all & CI_OFFMAP)
        e->bad |= BIT(RULES_MV_OFF_MAP);
    if (all & CI_BLOCKED)
        e->bad |= BIT(RULES_MV_BLOCKED);
    if (all & CI_GAP)
        e->bad |= BIT(RULES_MV_GAP);
    if (all & CI_ENEMY)
        e->bad |= BIT(RULES_MV_ENEMY_SQUARE);
    bool diff = all & CI_DIFF, squeeze = all & CI_SQUEEZE, imp = all & CI_IMP;
    bool haz = all & CI_HAZ, conc = all & CI_CONC, over = all & CI_OVER;
    e->diagonal = !c->hex && dx != 0 && dy != 0;
    if (e->diagonal) {
        /* 001 Cutting Corners: the two squares beside the diagonal, outside both spaces. */
        int n = c->side;
        int c1x = dx > 0 ? x + n : x - 1, c1y = dy > 0 ? y : y + n - 1;
        int c2x = dx > 0 ? x : x + n - 1, c2y = dy > 0 ? y + n : y - 1;
        if ((cell_info(c, c1x, c1y) | cell_info(c, c2x, c2y)) & CI_SOLID)
            e->bad |= BIT(RULES_MV_CORNER);
    }
    unsigned with_speed = types & c->speed_types;
    e->types = with_speed;
    if (with_speed == 0 && !(e->bad & BIT(RULES_MV_BLOCKED)) && !(e->bad & BIT(RULES_MV_OFF_MAP)))
        e->bad |= BIT(RULES_MV_NO_SPEED);
    if (over)
        e->why |= RULES_COST_STEPOVER;
    if (haz)
        e->why |= RULES_COST_HAZARDOUS;
    int base = 5;
    if (mode == RULES_MODE_STEP) {
        /* 001 5-Foot Step: one square, into "any adjacent square" (000), never doubled. */
        e->why |= RULES_COST_FIVE_FOOT;
        if (diff || imp || squeeze)
            e->bad |= BIT(RULES_MV_STEP_TERRAIN);
        if (conc && !c->m->darkvision)
            e->bad |= BIT(RULES_MV_STEP_CONCEALED);
        if (step > 0)
            e->bad |= BIT(RULES_MV_STEP_LENGTH);
        e->cost_front = e->cost_back = 5;
        return;
    }
    if (e->diagonal && c->o->diagonals == RULES_DIAGONALS_ALTERNATING && parity) {
        base = 10; /* 000: "every other diagonal counts double" */
        e->why |= RULES_COST_DIAGONAL_DOUBLE;
    }
    if (diff)
        e->why |= RULES_COST_DIFFICULT;
    if (squeeze)
        e->why |= RULES_COST_SQUEEZE;
    if (diff || squeeze)
        base *= 2; /* 001 Difficult Terrain: "counts as two squares"; Squeezing: "difficult" */
    if ((mode == RULES_MODE_RUN || mode == RULES_MODE_CHARGE) && (diff || imp || squeeze))
        e->bad |= BIT(RULES_MV_RUN_TERRAIN);
    e->cost_front = base;
    e->cost_back = c->facing_cost ? 2 * base : base; /* 000: "costs two squares" */
    if (imp) {
        e->impeded = true;
        e->why |= RULES_COST_IMPEDED;
        e->cost_front = e->cost_back = c->impeded_cost;
        if (mode != RULES_MODE_DOUBLE || step > 0)
            e->bad |= BIT(RULES_MV_IMPEDED);
    }
    if (mode == RULES_MODE_WITHDRAW && c->q->primary_target >= 0) {
        const struct rules_creature *pt = &c->q->creatures[c->q->primary_target].c;
        struct rules_body from = c->m->c.body, to = c->m->c.body;
        from.x = x, from.y = y, to.x = tx, to.y = ty;
        struct rules_distance d0, d1;
        rules_distance(c->o, &from, &pt->body, &d0);
        rules_distance(c->o, &to, &pt->body, &d1);
        if (d1.squares <= d0.squares)
            e->bad |= BIT(RULES_MV_WITHDRAW_CLOSER);
    }
}

/* Chooses the type that enters at `cost` after `spent` (001 Combining Movement Types: every
 * price comes off every type; a type at 0 can no longer be used). -1: none can. */
static int pick_type(const struct ctx *c, unsigned types, int spent, int cost)
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

/* True when the mover may end with its space at (x, y). */
bool end_ok(const struct ctx *c, int x, int y)
{
    if (c->side == 1 && !c->hex)
        return !(cell_info(c, x, y) & CI_OCC);
    int fx[MAX_FOOT], fy[MAX_FOOT];
    int n = footprint(c, x, y, fx, fy);
    for (int i = 0; i < n; i++)
        if (cell_info(c, fx[i], fy[i]) & CI_OCC)
            return false;
    return true;
}

/* Whether facing `dir` (a step direction) lies in the front of facing f: within 45 degrees on
 * squares, 60 on hexes (the angle rule of facing.h). */
static bool dir_in_front(const struct ctx *c, int dir, int f)
{
    int n = c->ndirs;
    int d = dir - f + n; /* both in [0, n) */
    d = d >= n ? d - n : d;
    return d == 0 || d == 1 || d == n - 1;
}

/* ---- checking a path ---- */

static uint32_t action_checks(const struct ctx *c)
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
    if (q->mode != RULES_MODE_STEP && q->mode != RULES_MODE_CRAWL && !sp.move_action)
        bad |= BIT(RULES_MV_NO_MOVE_ACTION);
    return bad;
}

/* The attack of opportunity of creature k on the mover leaving (x, y) facing f, with its
 * positional modifiers (000 Attacks of Opportunity figures; 003; 002). */
static void aoo_eval(const struct ctx *c, int k, int x, int y, int f, struct rules_creature *allies,
                     struct rules_attack_eval *out)
{
    const struct rules_move_query *q = c->q;
    const struct rules_map_creature *e = &q->creatures[k];
    struct rules_attacker a = {.c = e->c,
                               .attack_bonus = e->attack_bonus,
                               .kind = RULES_ATTACK_OF_OPPORTUNITY,
                               .combat_reflexes = e->combat_reflexes};
    struct rules_defender d = {.c = c->m->c};
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
    if (rules_attack_evaluate(c->o, &a, &d, allies, na, RULES_COVER_NONE, NULL, 0, out) !=
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

int rules_move_path(const struct rules_move_query *q, const struct rules_step *steps, int n,
                    int end_facing, struct rules_path_result *out)
{
    struct ctx c;
    int x0, y0, x1, y1;
    path_box(q->mover, steps, n, &x0, &y0, &x1, &y1);
    if (ctx_init(&c, q, x0, y0, x1, y1, false, true) != 0)
        return RULES_MOVE_ERR_NOMEM;
    struct rules_creature *allies = malloc(((size_t)q->creature_count + 1) * sizeof *allies);
    unsigned char *seen = calloc((size_t)q->creature_count + 1, 1);
    if (allies == NULL || seen == NULL) {
        free(allies);
        free(seen);
        ctx_free(&c);
        return RULES_MOVE_ERR_NOMEM;
    }
    const struct rules_mover *m = q->mover;
    bool has_facing = rules_has_facing(q->o, &m->c);
    out->action_violations = action_checks(&c);
    out->aoo_count = 0;
    out->steps_in_budget = -1;
    int x = m->c.body.x, y = m->c.body.y, facing = m->c.facing, parity = 0, spent = 0;
    for (int t = 0; t < RULES_MOVE_TYPES; t++)
        out->budget_ft[t] = c.budget[t];
    for (int i = 0; i < n; i++) {
        struct rules_step_result *r = &out->steps[i];
        int dx = steps[i].x - x, dy = steps[i].y - y;
        int dir = dir_index(&c, dx, dy);
        *r = (struct rules_step_result){.x = steps[i].x, .y = steps[i].y};
        int f = facing;
        if (has_facing && q->mode != RULES_MODE_STEP)
            f = steps[i].facing >= 0 ? steps[i].facing : (dir >= 0 ? dir : facing);
        if (has_facing && q->mode == RULES_MODE_STEP && steps[i].facing >= 0 &&
            steps[i].facing != facing)
            r->violations |= BIT(RULES_MV_STEP_FACING); /* 000: no facing change on a step */
        if (q->o->facing == RULES_FACING_003 && has_facing && dir >= 0 &&
            q->mode != RULES_MODE_STEP)
            f = dir; /* 003: facing is declared at the end; moving, it faces its way */
        r->facing = has_facing ? f : -1;
        struct step_eval e;
        int cost = 5;
        if (dir < 0) {
            r->violations |= BIT(RULES_MV_NOT_ADJACENT);
            e = (struct step_eval){.types = 1u << RULES_MOVE_WALK, .cost_front = 5};
        } else {
            eval_step(&c, x, y, dx, dy, parity, i, &e);
            bool back = c.facing_cost && q->mode != RULES_MODE_STEP && !dir_in_front(&c, dir, f);
            cost = back ? e.cost_back : e.cost_front;
            if (back)
                e.why |= RULES_COST_BACKWARD;
        }
        r->violations |= e.bad;
        r->why = e.why;
        /* The step provokes from each enemy threatening the squares left (once per enemy). */
        if (step_provokes(&c, x, y, i)) {
            int fx[MAX_FOOT], fy[MAX_FOOT];
            int fnum = footprint(&c, x, y, fx, fy);
            for (int j = 0; j < fnum; j++) {
                if (!in_window(&c, fx[j], fy[j]))
                    continue;
                size_t w = wcell(&c, fx[j], fy[j]);
                for (uint32_t t = c.thr_off[w]; t < c.thr_off[w + 1]; t++) {
                    int k = c.thr_idx[t];
                    if (seen[k])
                        continue;
                    seen[k] = 1;
                    struct rules_aoo *a = &out->aoos[out->aoo_count++];
                    *a = (struct rules_aoo){
                        .creature = k, .step = i, .from_x = x, .from_y = y, .facing = r->facing};
                    aoo_eval(&c, k, x, y, has_facing ? f : 0, allies, &a->eval);
                }
            }
        }
        if (e.impeded && !(e.bad & BIT(RULES_MV_IMPEDED)))
            cost = c.max_budget - spent > cost ? c.max_budget - spent : cost;
        int type = pick_type(&c, e.types, spent, cost);
        if (type < 0) {
            if (e.types != 0)
                r->violations |= BIT(RULES_MV_OUT_OF_MOVEMENT);
            for (int t = 0; t < RULES_MOVE_TYPES; t++)
                if (e.types & 1u << t) {
                    type = t;
                    break;
                }
        }
        if ((r->violations & BIT(RULES_MV_OUT_OF_MOVEMENT)) && out->steps_in_budget < 0)
            out->steps_in_budget = i;
        r->type = type < 0 ? RULES_MOVE_WALK : (enum rules_move_type)type;
        r->cost_ft = cost;
        spent += cost;
        r->spent_ft = spent;
        if (e.diagonal)
            parity ^= 1;
        x = steps[i].x, y = steps[i].y, facing = f;
    }
    if (out->steps_in_budget < 0)
        out->steps_in_budget = n;
    if (n > 0 && !end_ok(&c, x, y))
        out->steps[n - 1].violations |= BIT(RULES_MV_END_OCCUPIED);
    out->total_ft = spent;
    for (int t = 0; t < RULES_MOVE_TYPES; t++) {
        int left = c.budget[t] - spent;
        out->remaining_ft[t] = left > 0 ? left : 0;
    }
    out->end_facing = has_facing ? (end_facing >= 0 ? end_facing : facing) : -1;
    if (has_facing && q->mode == RULES_MODE_STEP && end_facing >= 0 && end_facing != facing &&
        m->turned)
        out->action_violations |= BIT(RULES_MV_STEP_FACING);
    out->legal = out->action_violations == 0;
    for (int i = 0; i < n; i++)
        out->legal &= out->steps[i].violations == 0;
    free(allies);
    free(seen);
    ctx_free(&c);
    return RULES_MOVE_OK;
}

/* ---- the searches ----
 *
 * Reach is Dijkstra's algorithm over states (square, facing, diagonal parity):
 *  - facing is part of the state only under 000 for a mover with a facing, because only there
 *    does it change a price: entering a square of one's flank or rear costs double. 000 lets a
 *    mover turn freely "before you step into each new square", so from (s, f) every facing f'
 *    may be taken for the next step, and the step costs single when it goes into the front of
 *    f', double otherwise; the state reached is (next square, f'). Facing changes therefore
 *    cost through the step they allow: keeping a facing toward an enemy while backing away is
 *    the double-priced move of 000's figure 2. At the end a mover may turn again, so every
 *    facing is possible on every square reached (except after a 5-foot step, where 000 allows
 *    one free change a turn);
 *  - parity is part of the state under the alternating diagonal rule (000), since the next
 *    diagonal's price depends on how many came before.
 * All prices are multiples of 5 ft and at most a small bound, so the queue is a ring of
 * buckets (Dial's algorithm): each push and pop is O(1).
 *
 * Preferring fewest attacks of opportunity runs the search in layers: layer k holds the
 * cheapest price of every state over paths with at most k provoking steps. Layer 0 never
 * takes a provoking step; the provoking steps out of layer k seed layer k + 1, which starts
 * from layer k's prices. A square's answer is the first layer that reaches it, at that
 * layer's price: fewest provoking steps, then cheapest. Budgets are respected throughout, so
 * every answer is a legal move. */

struct bucket {
    uint32_t *v;
    size_t n, cap;
};

struct queue {
    struct bucket *b;
    size_t nb; /* a power of two */
    size_t size;
    uint32_t cur; /* the smallest key that may be queued */
};

static int queue_init(struct queue *qu, int max_step_units)
{
    size_t nb = 16;
    while (nb <= (size_t)max_step_units + 2)
        nb *= 2;
    qu->b = calloc(nb, sizeof *qu->b);
    qu->nb = nb, qu->size = 0, qu->cur = 0;
    return qu->b == NULL ? -1 : 0;
}

static void queue_free(struct queue *qu)
{
    for (size_t i = 0; qu->b != NULL && i < qu->nb; i++)
        free(qu->b[i].v);
    free(qu->b);
    qu->b = NULL;
}

static int queue_push(struct queue *qu, uint32_t key, uint32_t state)
{
    struct bucket *b = &qu->b[key & (qu->nb - 1)];
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        uint32_t *v = realloc(b->v, cap * 2 * sizeof *v);
        if (v == NULL)
            return -1;
        b->v = v, b->cap = cap;
    }
    b->v[2 * b->n] = key, b->v[2 * b->n + 1] = state;
    b->n++;
    qu->size++;
    return 0;
}

/* Pops an entry of the smallest key. */
static bool queue_pop(struct queue *qu, uint32_t *key, uint32_t *state)
{
    if (qu->size == 0)
        return false;
    for (;;) {
        struct bucket *b = &qu->b[qu->cur & (qu->nb - 1)];
        for (size_t i = b->n; i > 0; i--) {
            if (b->v[2 * (i - 1)] != qu->cur)
                continue;
            *key = b->v[2 * (i - 1)], *state = b->v[2 * (i - 1) + 1];
            b->v[2 * (i - 1)] = b->v[2 * (b->n - 1)];
            b->v[2 * (i - 1) + 1] = b->v[2 * (b->n - 1) + 1];
            b->n--;
            qu->size--;
            return true;
        }
        qu->cur++;
    }
}

struct search {
    struct ctx c;
    int nf, np; /* facings and parities in the state */
    size_t cells, states;
    uint32_t start;
    int layers;
    uint32_t **dist; /* per layer */
    int32_t **pred;  /* per layer: prev state * 2 + (1 when it came from the layer before) */
    /* answers, per cell */
    uint32_t *best_cost;
    uint32_t *best_state;
    uint16_t *best_layer;
    /* the squares reached, in the order found */
    uint32_t *found;
    size_t found_n;
    /* scratch for the attack listing */
    uint32_t *seen_epoch;
    uint32_t epoch;
    uint32_t *expanded; /* facing searches: cheapest price expanded per (square, parity) */
    bool fast;          /* fast_step applies */
    uint8_t *sc;        /* one-square movers without facing: step_classes */
    bool split;         /* layered by provoking steps */
    int capped_layer;   /* the last layer, which relaxed every step; -1 */
};

struct rules_reach {
    struct search s;
};

static uint32_t state_of(const struct search *s, size_t cell, int f, int p)
{
    return (uint32_t)((cell * (size_t)s->nf + (size_t)f) * (size_t)s->np + (size_t)p);
}

static void search_free(struct search *s)
{
    for (int i = 0; i < s->layers; i++) {
        free(s->dist[i]);
        free(s->pred[i]);
    }
    free(s->dist);
    free(s->pred);
    free(s->best_cost);
    free(s->best_state);
    free(s->best_layer);
    free(s->found);
    free(s->seen_epoch);
    free(s->expanded);
    free(s->sc);
    ctx_free(&s->c);
}

/* Adds a layer of prices and predecessors, charging its states to the work budget first:
 * setting up and copying a layer costs about what expanding its states would, and a window
 * of 16 million states took a second to set up before the first expansion. */
static int add_layer(struct search *s)
{
    if (!charge(s->c.q, (long long)s->states))
        return RULES_MOVE_TOO_EXPENSIVE;
    uint32_t **d = realloc(s->dist, (size_t)(s->layers + 1) * sizeof *d);
    if (d == NULL)
        return -1;
    s->dist = d;
    int32_t **p = realloc(s->pred, (size_t)(s->layers + 1) * sizeof *p);
    if (p == NULL)
        return -1;
    s->pred = p;
    s->dist[s->layers] = malloc(s->states * sizeof **s->dist);
    s->pred[s->layers] = malloc(s->states * sizeof **s->pred);
    s->layers++;
    if (s->dist[s->layers - 1] == NULL || s->pred[s->layers - 1] == NULL)
        return -1;
    if (s->layers == 1)
        memset(s->dist[0], 0xff, s->states * sizeof **s->dist);
    else
        memcpy(s->dist[s->layers - 1], s->dist[s->layers - 2], s->states * sizeof **s->dist);
    memset(s->pred[s->layers - 1], 0xff, s->states * sizeof **s->pred);
    return 0;
}

struct seed {
    uint32_t state, cost;
    int32_t pred;
};

struct seeds {
    struct seed *v;
    size_t n, cap;
};

static int seeds_add(struct seeds *sd, uint32_t state, uint32_t cost, int32_t pred)
{
    if (sd->n == sd->cap) {
        size_t cap = sd->cap ? sd->cap * 2 : 256;
        struct seed *v = realloc(sd->v, cap * sizeof *v);
        if (v == NULL)
            return -1;
        sd->v = v, sd->cap = cap;
    }
    sd->v[sd->n++] = (struct seed){state, cost, pred};
    return 0;
}

static void state_pos(const struct search *s, uint32_t st, int *x, int *y, int *f, int *p)
{
    size_t v = st;
    *p = (int)(v % (size_t)s->np);
    v /= (size_t)s->np;
    *f = (int)(v % (size_t)s->nf);
    v /= (size_t)s->nf;
    *x = s->c.wx0 + (int)(v % (size_t)s->c.ww);
    *y = s->c.wy0 + (int)(v / (size_t)s->c.ww);
}

/* The common case in one place: a one-square mover on squares, any mode but a 5-foot step
 * or a withdraw, into a square that is not impeded. Gives the same answer as eval_step (the
 * tests run both through rules_move_path and the searches); returns -1 when the step is
 * illegal, 0 when eval_step must decide, 1 with the prices and the types that may enter. */
static inline __attribute__((always_inline)) int fast_step(const struct ctx *c, size_t cell, int d,
                                                           int parity, int *front, int *back,
                                                           unsigned *types, bool *diagonal)
{
    int dx = sq_dirs[d][0], dy = sq_dirs[d][1];
    uint32_t ci = c->info[(size_t)((ptrdiff_t)cell + c->off[d])];
    if (ci & (CI_OFFMAP | CI_BLOCKED | CI_GAP | CI_ENEMY))
        return -1;
    if (ci & CI_IMP)
        return 0;
    *types = ci & c->speed_types;
    if (*types == 0)
        return -1;
    bool diag = dx != 0 && dy != 0;
    if (diag && ((c->info[(size_t)((ptrdiff_t)cell + dx)] |
                  c->info[(size_t)((ptrdiff_t)cell + (ptrdiff_t)dy * c->ww)]) &
                 CI_SOLID))
        return -1;
    int base = diag && parity && c->o->diagonals == RULES_DIAGONALS_ALTERNATING ? 10 : 5;
    if (ci & (CI_DIFF | CI_SQUEEZE)) {
        if (c->q->mode == RULES_MODE_RUN || c->q->mode == RULES_MODE_CHARGE)
            return -1;
        base *= 2;
    }
    *front = base;
    *back = c->facing_cost ? 2 * base : base;
    *diagonal = diag;
    return 1;
}

/* One byte a window square for the search's inner loop: the movement types that may enter
 * (CI_TYPES), the price class (0 closed to this mover and mode, 1 single, 2 double, 3
 * impeded: decided by eval_step) and SC_SOLID for a corner that cannot be cut. */
#define SC_SOLID 0x80u

/* The class byte of one square's bits. */
static uint8_t classify(const struct ctx *c, uint32_t ci)
{
    bool runlike = c->q->mode == RULES_MODE_RUN || c->q->mode == RULES_MODE_CHARGE;
    unsigned types = ci & c->speed_types, cls = 1;
    if ((ci & (CI_OFFMAP | CI_BLOCKED | CI_GAP | CI_ENEMY)) || types == 0)
        cls = 0;
    else if (ci & CI_IMP)
        cls = 3;
    else if (ci & (CI_DIFF | CI_SQUEEZE))
        cls = runlike ? 0 : 2;
    return (uint8_t)(types | cls << 5 | (ci & CI_SOLID ? SC_SOLID : 0));
}

static int step_classes(struct search *s)
{
    const struct ctx *c = &s->c;
    s->sc = malloc(s->cells);
    if (s->sc == NULL)
        return -1;
    for (size_t i = 0; i < s->cells; i++)
        s->sc[i] = classify(c, c->info[i]);
    return 0;
}

/* One layer of the search from the queued states. With `split`, provoking steps go to next
 * instead of being relaxed here. Route mode (goal != NULL) uses A* keys. */
static int run_layer(struct search *s, struct queue *qu, bool split, struct seeds *next)
{
    struct ctx *c = &s->c;
    if (s->expanded != NULL)
        memset(s->expanded, 0xff, s->cells * (size_t)s->np * sizeof *s->expanded);
    int L = s->layers - 1;
    uint32_t *dist = s->dist[L];
    int32_t *pred = s->pred[L];
    const int(*dirs)[2] = dirs_of(c);
    uint32_t key, st;
    while (queue_pop(qu, &key, &st)) {
        if (key != dist[st] / 5)
            continue;
        /* An expansion relaxes the successors of every facing at once (see below), so it
         * counts as nf states: a reach with facing costs its squares times 8. */
        if (!charge(c->q, s->nf))
            return RULES_MOVE_TOO_EXPENSIVE;
        int x, y, f, p;
        state_pos(s, st, &x, &y, &f, &p);
        int spent = (int)dist[st];
        if (spent >= c->max_budget)
            continue;
        if (s->nf > 1) {
            /* Turning is free while moving (000), so every facing at this square and parity
             * has the same successors: only the cheapest one is expanded. */
            size_t ek = (st / (uint32_t)(s->nf * s->np)) * (size_t)s->np + (size_t)p;
            if ((uint32_t)spent >= s->expanded[ek])
                continue;
            s->expanded[ek] = (uint32_t)spent;
        }
        bool first = st == s->start;
        int step = first ? 0 : 1;
        bool provokes = split && step_provokes(c, x, y, step);
        size_t cell0 = st / (uint32_t)(s->nf * s->np);
        /* Squares on the window's edge may look past it: those take the general path. */
        bool inner = x > c->wx0 && y > c->wy0 && x + 1 < c->wx0 + c->ww && y + 1 < c->wy0 + c->wh;
        bool slow = false;
        if (inner && s->sc != NULL && !provokes) {
            /* The common case, one byte a square (see step_classes): the same rules as
             * fast_step, without the general bookkeeping. */
            bool alt = s->np > 1 && p;
            for (int d = 0; d < 8; d++) {
                size_t tc = (size_t)((ptrdiff_t)cell0 + c->off[d]);
                unsigned k = s->sc[tc], cls = (k >> 5) & 3u;
                if (cls == 0)
                    continue;
                int cost = 5, np = p;
                if (d & 1) { /* odd directions are the diagonals */
                    size_t c1 = (size_t)((ptrdiff_t)cell0 + sq_dirs[d][0]);
                    size_t c2 = (size_t)((ptrdiff_t)cell0 + (ptrdiff_t)sq_dirs[d][1] * c->ww);
                    if ((s->sc[c1] | s->sc[c2]) & SC_SOLID)
                        continue;
                    cost = alt ? 10 : 5;
                    np = s->np > 1 ? p ^ 1 : 0;
                }
                if (cls == 3) {
                    slow = true; /* impeded: the general loop below decides */
                    break;
                }
                cost *= (int)cls;
                if (spent + cost > c->type_budget[k & CI_TYPES])
                    continue;
                uint32_t nd = (uint32_t)(spent + cost),
                         ns = (uint32_t)(tc * (size_t)s->np) + (uint32_t)np;
                if (nd >= dist[ns])
                    continue;
                dist[ns] = nd;
                pred[ns] = (int32_t)st * 2;
                if (queue_push(qu, nd / 5, ns) != 0)
                    return -1;
            }
            if (!slow)
                continue;
        }
        for (int d = 0; d < c->ndirs; d++) {
            int tx = x + dirs[d][0], ty = y + dirs[d][1];
            if (!in_window(c, tx, ty))
                continue;
            struct step_eval e = {0};
            int fs = s->fast && inner ? fast_step(c, cell0, d, p, &e.cost_front, &e.cost_back,
                                                  &e.types, &e.diagonal)
                                      : 0;
            if (fs < 0)
                continue;
            if (fs == 0)
                eval_step(c, x, y, dirs[d][0], dirs[d][1], p, step, &e);
            if (e.bad)
                continue;
            int np = c->o->diagonals == RULES_DIAGONALS_ALTERNATING && e.diagonal ? p ^ 1 : p;
            if (s->np == 1)
                np = 0;
            size_t cell = (size_t)((ptrdiff_t)cell0 + c->off[d]);
            assert(cell == wcell(c, tx, ty));
            for (int nf = 0; nf < s->nf; nf++) {
                int cost = e.cost_front;
                if (s->nf > 1 && !dir_in_front(c, d, nf))
                    cost = e.cost_back;
                if (e.impeded)
                    cost = c->max_budget - spent;
                if (spent + cost > c->type_budget[e.types])
                    continue; /* no type that may enter has the price left (pick_type) */
                uint32_t nd = (uint32_t)(spent + cost);
                uint32_t ns = state_of(s, cell, nf, np);
                if (provokes) {
                    if (nd < dist[ns] && seeds_add(next, ns, nd, (int32_t)st * 2 + 1) != 0)
                        return -1;
                    continue;
                }
                if (nd >= dist[ns])
                    continue;
                dist[ns] = nd;
                pred[ns] = (int32_t)st * 2;
                if (queue_push(qu, nd / 5, ns) != 0)
                    return -1;
            }
        }
    }
    return 0;
}

/* Records, for every cell, the first layer that reaches it where the mover may end. */
static int record_layer(struct search *s)
{
    int L = s->layers - 1;
    size_t start_cell = s->start / (uint32_t)(s->nf * s->np);
    for (size_t cell = 0; cell < s->cells; cell++) {
        if (s->best_layer[cell] != UINT16_MAX || cell == start_cell)
            continue;
        uint32_t best = UNREACHED, bst = 0;
        for (int f = 0; f < s->nf; f++)
            for (int p = 0; p < s->np; p++) {
                uint32_t st = state_of(s, cell, f, p);
                if (s->dist[L][st] < best)
                    best = s->dist[L][st], bst = st;
            }
        if (best == UNREACHED)
            continue;
        int x = s->c.wx0 + (int)(cell % (size_t)s->c.ww),
            y = s->c.wy0 + (int)(cell / (size_t)s->c.ww);
        if (!end_ok(&s->c, x, y))
            continue;
        s->best_cost[cell] = best;
        s->best_state[cell] = bst;
        s->best_layer[cell] = (uint16_t)L;
        s->found[s->found_n++] = (uint32_t)cell;
    }
    return 0;
}

/* Layers of the fewest-attacks search: at most 64, and at most 256 MB of prices and
 * predecessors. The last layer allowed relaxes every step, so every reachable square is
 * still found; its squares report the provoking steps of the path they got. */
#define MAX_LAYERS  64
#define LAYER_BYTES (256u * 1024 * 1024)

int rules_move_reach(const struct rules_move_query *q, bool prefer_fewest_aoo,
                     struct rules_reach **out)
{
    *out = NULL;
    struct rules_reach *r = calloc(1, sizeof *r);
    if (r == NULL)
        return RULES_MOVE_ERR_NOMEM;
    struct search *s = &r->s;
    const struct rules_body *b = &q->mover->c.body;
    /* The budget bounds the window: every step costs at least 5 ft. */
    struct ctx probe = {.q = q, .o = q->o, .m = q->mover};
    set_budgets(&probe, false);
    int radius = probe.max_budget / 5 + 1;
    int rc = ctx_init(&s->c, q, b->x - radius, b->y - radius, b->x + b->side + radius,
                      b->y + b->side + radius, false, true);
    if (rc != 0) {
        free(r);
        return rc;
    }
    s->split = prefer_fewest_aoo;
    s->fast =
        s->c.side == 1 && !s->c.hex && q->mode != RULES_MODE_STEP && q->mode != RULES_MODE_WITHDRAW;
    s->capped_layer = -1;
    s->nf = s->c.facing_cost ? s->c.ndirs : 1;
    s->np = !s->c.hex && q->o->diagonals == RULES_DIAGONALS_ALTERNATING ? 2 : 1;
    s->cells = (size_t)s->c.ww * (size_t)s->c.wh;
    s->states = s->cells * (size_t)s->nf * (size_t)s->np;
    s->best_cost = malloc(s->cells * sizeof *s->best_cost);
    s->best_state = malloc(s->cells * sizeof *s->best_state);
    s->best_layer = malloc(s->cells * sizeof *s->best_layer);
    s->found = malloc(s->cells * sizeof *s->found);
    s->seen_epoch = calloc((size_t)q->creature_count + 1, sizeof *s->seen_epoch);
    struct queue qu = {0};
    struct seeds sd = {0}, nsd = {0};
    if (s->nf > 1)
        s->expanded = malloc(s->cells * (size_t)s->np * sizeof *s->expanded);
    if (s->fast && s->nf == 1 && step_classes(s) != 0)
        goto nomem;
    if (s->best_cost == NULL || s->best_state == NULL || s->best_layer == NULL ||
        (s->nf > 1 && s->expanded == NULL) || s->found == NULL || s->seen_epoch == NULL)
        goto nomem;
    rc = add_layer(s);
    if (rc != 0)
        goto fail;
    if (queue_init(&qu, s->c.max_budget / 5 + 8) != 0)
        goto nomem;
    memset(s->best_layer, 0xff, s->cells * sizeof *s->best_layer);
    bool blocked = action_checks(&s->c) != 0;
    int start_f = s->nf > 1 ? q->mover->c.facing % s->nf : 0;
    s->start = state_of(s, wcell(&s->c, b->x, b->y), start_f, 0);
    if (!blocked) {
        s->dist[0][s->start] = 0;
        if (queue_push(&qu, 0, s->start) != 0)
            goto nomem;
    }
    size_t per_layer = s->states * (sizeof **s->dist + sizeof **s->pred);
    int max_layers = (int)(LAYER_BYTES / (per_layer ? per_layer : 1));
    max_layers = max_layers < 2 ? 2 : max_layers > MAX_LAYERS ? MAX_LAYERS : max_layers;
    for (;;) {
        bool last = s->layers >= max_layers;
        if (last)
            s->capped_layer = s->layers - 1;
        rc = run_layer(s, &qu, prefer_fewest_aoo && !last, &nsd);
        if (rc != 0)
            goto fail;
        record_layer(s);
        if (!prefer_fewest_aoo || nsd.n == 0 || last)
            break;
        struct seeds t = sd;
        sd = nsd, nsd = t;
        nsd.n = 0;
        rc = add_layer(s);
        if (rc != 0)
            goto fail;
        int L = s->layers - 1;
        bool any = false;
        qu.cur = UINT32_MAX;
        for (size_t i = 0; i < sd.n; i++) {
            struct seed *e = &sd.v[i];
            if (e->cost >= s->dist[L][e->state])
                continue;
            s->dist[L][e->state] = e->cost;
            s->pred[L][e->state] = e->pred;
            qu.cur = e->cost / 5 < qu.cur ? e->cost / 5 : qu.cur;
            if (queue_push(&qu, e->cost / 5, e->state) != 0)
                goto nomem;
            any = true;
        }
        if (!any)
            break;
    }
    free(sd.v);
    free(nsd.v);
    queue_free(&qu);
    *out = r;
    return RULES_MOVE_OK;
nomem:
    rc = RULES_MOVE_ERR_NOMEM;
fail:
    free(sd.v);
    free(nsd.v);
    queue_free(&qu);
    search_free(s);
    free(r);
    return rc;
}

static int walk_back(const struct search *s, int i, uint32_t *states, int max);

/* Steps of the path found to square i that leave a threatened square. */
static int provoking_steps(const struct search *s, int i)
{
    if (!any_threat(&s->c))
        return 0;
    int max = s->c.max_budget / 5 + 2;
    uint32_t *states = malloc((size_t)max * sizeof *states);
    if (states == NULL)
        return 0;
    int n = walk_back(s, i, states, max), count = 0, x, y, f, p;
    charge(s->c.q, n);
    state_pos(s, s->start, &x, &y, &f, &p);
    for (int j = n; j > 0; j--) {
        count += step_provokes(&s->c, x, y, n - j);
        state_pos(s, states[j - 1], &x, &y, &f, &p);
    }
    free(states);
    return count;
}

int rules_reach_count(const struct rules_reach *r)
{
    return (int)r->s.found_n;
}

void rules_reach_get(const struct rules_reach *r, int i, struct rules_reach_square *out)
{
    const struct search *s = &r->s;
    uint32_t cell = s->found[i];
    out->x = s->c.wx0 + (int)(cell % (uint32_t)s->c.ww);
    out->y = s->c.wy0 + (int)(cell / (uint32_t)s->c.ww);
    out->cost_ft = (int)s->best_cost[cell];
    out->provoking_steps = s->split && s->best_layer[cell] != s->capped_layer
                               ? s->best_layer[cell]
                               : provoking_steps(s, i);
    const struct rules_mover *m = s->c.q->mover;
    out->facings = 0;
    if (rules_has_facing(s->c.o, &m->c)) {
        int nf = rules_facing_count(s->c.o);
        if (s->c.q->mode == RULES_MODE_STEP && m->turned)
            out->facings = (uint8_t)(1u << m->c.facing);
        else
            out->facings = (uint8_t)((1u << nf) - 1);
    }
}

/* Walks the predecessors of square i back to the start: states in reverse order. */
static int walk_back(const struct search *s, int i, uint32_t *states, int max)
{
    uint32_t cell = s->found[i];
    uint32_t st = s->best_state[cell];
    int L = s->best_layer[cell], n = 0;
    while (st != s->start && n < max) {
        states[n++] = st;
        int l = L;
        while (l > 0 && s->pred[l][st] < 0)
            l--;
        int32_t pr = s->pred[l][st];
        if (pr < 0)
            break;
        st = (uint32_t)pr >> 1;
        L = l - (pr & 1);
    }
    return n;
}

int rules_reach_path(const struct rules_reach *r, int i, struct rules_step *steps, int max)
{
    const struct search *s = &r->s;
    uint32_t *states = malloc((size_t)(max > 0 ? max : 1) * sizeof *states);
    if (states == NULL)
        return 0;
    int n = walk_back(s, i, states, max);
    for (int j = 0; j < n; j++) {
        int x, y, f, p;
        state_pos(s, states[n - 1 - j], &x, &y, &f, &p);
        steps[j] = (struct rules_step){.x = x, .y = y, .facing = s->nf > 1 ? f : -1};
    }
    free(states);
    return n;
}

int rules_reach_aoos(struct rules_reach *r, int i, int *creatures, int *from_x, int *from_y)
{
    struct search *s = &r->s;
    struct ctx *c = &s->c;
    if (!any_threat(c))
        return 0; /* nobody threatens a square: no path provokes */
    int max = c->max_budget / 5 + 2;
    uint32_t *states = malloc((size_t)max * sizeof *states);
    if (states == NULL)
        return 0;
    int n = walk_back(s, i, states, max);
    charge(c->q, n);
    if (++s->epoch == 0)
        s->epoch = 1;
    int count = 0, x, y, f, p;
    state_pos(s, s->start, &x, &y, &f, &p);
    for (int j = n; j > 0; j--) {
        int step = n - j;
        if (step_provokes(c, x, y, step)) {
            int fx[MAX_FOOT], fy[MAX_FOOT];
            int fn = footprint(c, x, y, fx, fy);
            for (int k = 0; k < fn; k++) {
                if (!in_window(c, fx[k], fy[k]))
                    continue;
                size_t w = wcell(c, fx[k], fy[k]);
                for (uint32_t t = c->thr_off[w]; t < c->thr_off[w + 1]; t++) {
                    int e = c->thr_idx[t];
                    if (s->seen_epoch[e] == s->epoch)
                        continue;
                    s->seen_epoch[e] = s->epoch;
                    creatures[count] = e, from_x[count] = x, from_y[count] = y;
                    count++;
                }
            }
        }
        state_pos(s, states[j - 1], &x, &y, &f, &p);
    }
    free(states);
    return count;
}

void rules_reach_free(struct rules_reach *r)
{
    if (r == NULL)
        return;
    search_free(&r->s);
    free(r);
}

/* ---- route: rules/route.c ---- */

/* ---- forced movement (001 Forced Movement, Push, Pull, Slide, Forced Movement In 3-D) ---- */

static const struct {
    const char *code, *text;
} forced_stops[] = {
    [RULES_FORCED_COMPLETE] = {"complete", "moved every square"},
    [RULES_FORCED_OBSTRUCTED] = {"obstructed",
                                 "a creature (friend or foe) occupies the next square: it ends "
                                 "in the square before (001 Push, Pull, Slide)"},
    [RULES_FORCED_BLOCKED] = {"blocked",
                              "blocked terrain in the way: it ends in the square before; forced "
                              "movement never enters blocked terrain (001 Forced Movement In "
                              "3-D)"},
    [RULES_FORCED_NO_ROOM] = {"no_room",
                              "no unoccupied squares of its size and shape there (001 Forced "
                              "Movement)"},
    [RULES_FORCED_DIRECTION] = {"direction",
                                "each square of a push must be farther from the attacker's "
                                "squares, of a pull closer (or, once adjacent, another square "
                                "adjacent to the attacker) (001 Push, Pull)"},
    [RULES_FORCED_PRONE] = {"fell_prone",
                            "the target elected to fall prone, ending the forced movement (001 "
                            "Forced Movement)"},
    [RULES_FORCED_RESISTED] = {"resisted",
                               "its reductions to forced movement took every square (001 Forced "
                               "Movement)"},
    [RULES_FORCED_IGNORED] = {"ignored", "a creature that dropped prone voluntarily ignores forced "
                                         "movement while prone (001 Forced Movement)"},
    [RULES_FORCED_GROUND] = {"ground",
                             "moved straight down as far as the ground (001 Forced Movement In "
                             "3-D)"},
};

const char *rules_forced_stop_code(enum rules_forced_stop s)
{
    return forced_stops[s].code;
}

const char *rules_forced_stop_text(enum rules_forced_stop s)
{
    return forced_stops[s].text;
}

static int forced_distance(const struct rules_options *o, const struct rules_body *a,
                           const struct rules_body *b)
{
    struct rules_distance d;
    rules_distance(o, a, b, &d);
    return d.squares;
}

/* What stops the target's space at (x, y): blocked terrain, the map's edge or a creature. */
static enum rules_forced_stop forced_room(const struct rules_forced_query *q, int x, int y,
                                          int *obstacle)
{
    bool hex = q->o->grid == RULES_GRID_HEX;
    struct rules_body b = q->target.body;
    b.x = x, b.y = y;
    int fx[MAX_FOOT], fy[MAX_FOOT], fn = 0;
    if (hex) {
        int hq[3], hr[3];
        fn = rules_hex_members(&b, hq, hr);
        for (int i = 0; i < fn; i++)
            fx[i] = hq[i], fy[i] = hr[i];
    } else {
        for (int dy = 0; dy < b.side; dy++)
            for (int dx = 0; dx < b.side; dx++)
                fx[fn] = x + dx, fy[fn++] = y + dy;
    }
    for (int i = 0; i < fn; i++) {
        if (!on_map(q->map, fx[i], fy[i]))
            return RULES_FORCED_NO_ROOM;
        uint8_t t = q->map->terrain[mcell(q->map, fx[i], fy[i])];
        if (t == RULES_MAP_BLOCKED || t == RULES_MAP_EARTH)
            return RULES_FORCED_BLOCKED;
    }
    for (int k = 0; k < q->creature_count; k++) {
        const struct rules_creature *o = &q->creatures[k].c;
        /* 001 Stepover: a larger creature forced along may step over ones two sizes smaller. */
        if ((int)q->target.size >= (int)o->size + 2)
            continue;
        bool overlap = false;
        if (hex) {
            int oq[3], orr[3];
            int on = rules_hex_members(&o->body, oq, orr);
            for (int i = 0; i < fn && !overlap; i++)
                overlap = in_footprint(oq, orr, on, fx[i], fy[i]);
        } else {
            overlap = b.x < o->body.x + o->body.side && o->body.x < b.x + b.side &&
                      b.y < o->body.y + o->body.side && o->body.y < b.y + b.side;
        }
        if (overlap) {
            *obstacle = k;
            return RULES_FORCED_OBSTRUCTED;
        }
    }
    return RULES_FORCED_COMPLETE;
}

void rules_move_forced(const struct rules_forced_query *q, struct rules_forced_result *out)
{
    const struct rules_body *t = &q->target.body;
    *out = (struct rules_forced_result){.x = t->x,
                                        .y = t->y,
                                        .z = t->z,
                                        .stop = RULES_FORCED_COMPLETE,
                                        .stop_step = -1,
                                        .obstacle = -1};
    if (q->voluntarily_prone) {
        out->stop = RULES_FORCED_IGNORED;
        out->prone = true;
        return;
    }
    if (q->fall_prone_at == 0) {
        out->stop = RULES_FORCED_PRONE, out->stop_step = 0, out->prone = true;
        return;
    }
    /* 001: "forced movement reductions stack ... the sum of the reductions". */
    int n = q->squares - q->reduction;
    if (n <= 0) {
        out->stop = RULES_FORCED_RESISTED;
        return;
    }
    /* 001 Forced Movement In 3-D: a creature in the air moves "nearly always directly down";
     * a push that could not go down (from below) moves it "directly up". */
    int ground = 0;
    if (on_map(q->map, t->x, t->y) && q->map->elevation != NULL)
        ground = q->map->elevation[mcell(q->map, t->x, t->y)];
    bool airborne = t->z > ground || (on_map(q->map, t->x, t->y) &&
                                      q->map->terrain[mcell(q->map, t->x, t->y)] == RULES_MAP_AIR);
    if (airborne) {
        out->vertical = true;
        bool up = q->kind == RULES_FORCED_PUSH && q->attacker.body.z < t->z;
        if (up) {
            out->dz = n;
        } else {
            int room = t->z - ground;
            out->dz = -(n < room ? n : room);
            if (n > room)
                out->stop = RULES_FORCED_GROUND;
        }
        if (q->fall_prone_at > 0 && q->fall_prone_at <= (out->dz < 0 ? -out->dz : out->dz)) {
            out->dz = out->dz < 0 ? -(q->fall_prone_at - 1) : q->fall_prone_at - 1;
            out->stop = RULES_FORCED_PRONE, out->stop_step = q->fall_prone_at;
            out->prone = true;
        }
        out->z = t->z + out->dz;
        out->moved = out->dz < 0 ? -out->dz : out->dz;
        return;
    }
    struct rules_body cur = *t;
    const struct rules_body *att = &q->attacker.body;
    int limit = q->path_len < n ? q->path_len : n;
    for (int i = 0; i < limit; i++) {
        if (q->fall_prone_at == i + 1) {
            out->stop = RULES_FORCED_PRONE, out->stop_step = i + 1, out->prone = true;
            break;
        }
        struct rules_body next = cur;
        next.x = q->path[i].x, next.y = q->path[i].y;
        int before = forced_distance(q->o, &cur, att), after = forced_distance(q->o, &next, att);
        bool ok = true;
        if (q->kind == RULES_FORCED_PUSH)
            ok = after > before;
        else if (q->kind == RULES_FORCED_PULL)
            ok = after < before || (before <= 1 && after == 1);
        if (!ok) {
            out->stop = RULES_FORCED_DIRECTION, out->stop_step = i;
            break;
        }
        int obstacle = -1;
        enum rules_forced_stop why = forced_room(q, next.x, next.y, &obstacle);
        if (why != RULES_FORCED_COMPLETE) {
            out->stop = why, out->stop_step = i, out->obstacle = obstacle;
            break;
        }
        /* The squares entered that are hazardous: forced movement may carry it in (001
         * Hazardous Terrain; falling prone is the way to avoid it). */
        if (on_map(q->map, next.x, next.y) &&
            q->map->terrain[mcell(q->map, next.x, next.y)] == RULES_MAP_HAZARDOUS &&
            out->hazard_count < (int)(sizeof out->hazards / sizeof out->hazards[0]))
            out->hazards[out->hazard_count++] = i;
        cur = next;
        out->moved++;
    }
    if (out->stop == RULES_FORCED_COMPLETE && limit < q->path_len)
        out->stop = RULES_FORCED_RESISTED; /* the reductions shortened it */
    out->x = cur.x, out->y = cur.y;
}
