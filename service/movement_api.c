/* Movement endpoints: POST /v1/movement/{path,reach,route,forced,speed}. Decoding and
 * encoding only; every ruling comes from rules/movement.c. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "jsonw.h"
#include "move_codec.h"
#include "movement.h"
#include "rules_codec.h"
#include "svc.h"

#define MAX_CREATURES  2000
#define MAX_SQUARES    100000
#define MAX_ROW_ERRORS 20
#define MAX_NO_ATTACK  MAX_CREATURES
#define MAX_CHECK_ROWS 20
#define DEFAULT_CHECKS 5

/* Row legend of map.rows. */
static const char legend[] = ".dioh#wae";
static const enum rules_map_terrain legend_terrain[] = {
    RULES_MAP_CLEAR,   RULES_MAP_DIFFICULT, RULES_MAP_IMPEDED,
    RULES_MAP_BLOCKED, RULES_MAP_HAZARDOUS, RULES_MAP_BLOCKED,
    RULES_MAP_WATER,   RULES_MAP_AIR,       RULES_MAP_EARTH};

static const char *const terrain_names[] = {"clear", "difficult", "impeded", "blocked", "hazardous",
                                            "water", "air",       "earth",   NULL};
static const char *const mode_names[] = {"move",           "double_move", "run",   "charge",
                                         "five_foot_step", "withdraw",    "crawl", NULL};
static const char *const armor_names[] = {"none", "light", "medium", "heavy", NULL};
static const char *const load_names[] = {"light", "medium", "heavy", NULL};
static const char *const forced_names[] = {"push", "pull", "slide", NULL};
static const char *const prefer_names[] = {"cost", "fewest_attacks", NULL};

struct move_req {
    struct svc_rules rules;
    const struct rules_options *o;
    struct rules_map map;
    bool map_ok;
    bool map_borrowed; /* map is the request's pre-decoded one (svc_request.map): not freed */
    struct rules_map_creature *cs;
    const char **ids;
    int nc;
    struct rules_mover mover;
    bool has_constitution;
    enum rules_move_mode mode;
    int primary;
    bool *no_attack;
    /* Work budgets (config.h SVC_BUDGET_*, times --budget-scale). */
    struct rules_work work; /* search states; the searches advance it */
    long long paint_limit;  /* map squares painted and rows rectangles visit */
    long long answer_limit; /* bytes */
    const char *spent;      /* the budget that ran out while decoding, or NULL */
    long long spent_budget, spent_reached;
};

/* Sets the request's budgets from the configuration. */
static void budgets_init(struct move_req *r, const struct svc_config *cfg)
{
    long long scale = cfg->budget_scale > 0 ? cfg->budget_scale : 1;
    r->work = (struct rules_work){.limit = SVC_BUDGET_SEARCH_STATES * scale};
    r->paint_limit = SVC_BUDGET_MAP_SQUARES * scale;
    r->answer_limit = SVC_BUDGET_ANSWER_BYTES * scale;
}

static void req_free(struct move_req *r)
{
    if (!r->map_borrowed)
        rules_map_free(&r->map);
    free(r->cs);
    free(r->ids);
    free(r->no_attack);
}

static bool hex(const struct move_req *r)
{
    return r->o->grid == RULES_GRID_HEX;
}

/* The squares (hexes) of a body, at most MAX... written to xs, ys; returns the count. */
static int body_squares(const struct rules_options *o, const struct rules_body *b, int *xs, int *ys,
                        int max)
{
    if (o->grid == RULES_GRID_HEX) {
        int q[3], r[3];
        int n = rules_hex_members(b, q, r);
        for (int i = 0; i < n; i++)
            xs[i] = q[i], ys[i] = r[i];
        return n;
    }
    int n = 0;
    for (int dy = 0; dy < b->side; dy++)
        for (int dx = 0; dx < b->side && n < max; dx++)
            xs[n] = b->x + dx, ys[n++] = b->y + dy;
    return n;
}

static bool body_on_map(const struct rules_options *o, const struct rules_map *m,
                        const struct rules_body *b)
{
    if (o->grid != RULES_GRID_HEX)
        return b->x >= 0 && b->y >= 0 && b->x + b->side <= m->width && b->y + b->side <= m->height;
    int xs[3], ys[3];
    int n = body_squares(o, b, xs, ys, 3);
    for (int i = 0; i < n; i++)
        if (xs[i] < 0 || ys[i] < 0 || xs[i] >= m->width || ys[i] >= m->height)
            return false;
    return true;
}

static bool bodies_overlap(const struct rules_options *o, const struct rules_body *a,
                           const struct rules_body *b)
{
    if (o->grid != RULES_GRID_HEX)
        return a->x < b->x + b->side && b->x < a->x + a->side && a->y < b->y + b->side &&
               b->y < a->y + a->side;
    int ax[3], ay[3], bx[3], by[3];
    int an = body_squares(o, a, ax, ay, 3), bn = body_squares(o, b, bx, by, 3);
    for (int i = 0; i < an; i++)
        for (int j = 0; j < bn; j++)
            if (ax[i] == bx[j] && ay[i] == by[j])
                return true;
    return false;
}

/* 001 Stepover: creatures two size categories apart may share squares. */
static bool may_share(enum rules_size a, enum rules_size b)
{
    int d = (int)a - (int)b;
    return d >= 2 || d <= -2;
}

/* One entry of map.squares: a rectangle and the fields it sets (-1: leaves alone). */
struct map_rect {
    int x, y, w, h;
    int terrain, corners, concealed; /* enum index; corners 0 solid 1 cuttable; concealed 0/1 */
    int gap;                         /* inches, or -1 */
    int elevation;
    bool has_elevation;
};

enum map_field { FIELD_TERRAIN, FIELD_CORNERS, FIELD_CONCEALED, FIELD_GAP, FIELD_ELEVATION };

static bool rect_sets(const struct map_rect *q, enum map_field f)
{
    switch (f) {
    case FIELD_TERRAIN:
        return q->terrain >= 0;
    case FIELD_CORNERS:
        return q->corners >= 0;
    case FIELD_CONCEALED:
        return q->concealed >= 0;
    case FIELD_GAP:
        return q->gap >= 0;
    case FIELD_ELEVATION:
        return q->has_elevation;
    }
    return false;
}

static void rect_paint(struct rules_map *m, const struct map_rect *q, enum map_field f, size_t k)
{
    switch (f) {
    case FIELD_TERRAIN:
        m->terrain[k] = (uint8_t)q->terrain;
        break;
    case FIELD_CORNERS:
        m->flags[k] = q->corners ? (uint8_t)(m->flags[k] | RULES_SQUARE_CUTTABLE)
                                 : (uint8_t)(m->flags[k] & ~RULES_SQUARE_CUTTABLE);
        break;
    case FIELD_CONCEALED:
        m->flags[k] = q->concealed ? (uint8_t)(m->flags[k] | RULES_SQUARE_CONCEALED)
                                   : (uint8_t)(m->flags[k] & ~RULES_SQUARE_CONCEALED);
        break;
    case FIELD_GAP:
        m->gap_in[k] = (uint16_t)q->gap;
        break;
    case FIELD_ELEVATION:
        m->elevation[k] = (int16_t)q->elevation;
        break;
    }
}

/* The first index >= i not yet painted, in a "next unpainted" forest (path halving). */
static int32_t next_free(int32_t *next, int32_t i)
{
    while (next[i] != i) {
        next[i] = next[next[i]];
        i = next[i];
    }
    return i;
}

/* Paints the rectangles onto the map, each field last-writer-wins on its own, in time
 * proportional to rectangles, rows visited and squares painted rather than to the rectangles'
 * total area (16,600 rectangles each covering a 1,000 x 1,000 map took 19.5 s painted in
 * order). For each field, rectangles that set it are painted latest first, and a square once
 * painted is never painted again: a "next unpainted square" forest per row skips painted
 * runs, and one over rows skips rows painted whole. Every row visited and square painted is
 * charged to *used; returns false, having stopped, once that passes limit. */
static bool paint_rects(struct rules_map *m, const struct map_rect *rects, size_t n,
                        long long limit, long long *used)
{
    int w = m->width, h = m->height;
    size_t stride = (size_t)w + 1;
    int32_t *next = malloc(stride * (size_t)h * sizeof *next);
    int32_t *next_row = malloc(((size_t)h + 1) * sizeof *next_row);
    int32_t *left = malloc((size_t)h * sizeof *left);
    bool ok = next != NULL && next_row != NULL && left != NULL;
    for (int f = FIELD_TERRAIN; ok && f <= FIELD_ELEVATION; f++) {
        bool any = false;
        for (size_t i = 0; i < n && !any; i++)
            any = rect_sets(&rects[i], (enum map_field)f);
        if (!any)
            continue;
        for (int y = 0; y < h; y++) {
            int32_t *row = next + (size_t)y * stride;
            for (int x = 0; x <= w; x++)
                row[x] = x;
            next_row[y] = y;
            left[y] = w;
        }
        next_row[h] = h;
        for (size_t i = n; i-- > 0 && ok;) {
            const struct map_rect *q = &rects[i];
            if (!rect_sets(q, (enum map_field)f))
                continue;
            for (int y = next_free(next_row, q->y); ok && y < q->y + q->h;
                 y = next_free(next_row, y + 1)) {
                int32_t *row = next + (size_t)y * stride;
                long long painted = 1; /* the row visited */
                for (int x = next_free(row, q->x); x < q->x + q->w; x = next_free(row, x + 1)) {
                    rect_paint(m, q, (enum map_field)f, (size_t)y * (size_t)w + (size_t)x);
                    row[x] = x + 1;
                    left[y]--;
                    painted++;
                }
                if (left[y] == 0)
                    next_row[y] = y + 1;
                *used += painted;
                ok = *used <= limit;
            }
        }
    }
    bool allocated = next != NULL && next_row != NULL && left != NULL;
    free(next);
    free(next_row);
    free(left);
    return allocated ? ok : false;
}

/* map: {width, height, rows?, squares?} */
static void decode_map(json_t *body, const struct svc_config *cfg, struct move_req *r,
                       struct svc_errors *e)
{
    static const char *const keys[] = {"width", "height", "rows", "squares", NULL};
    unsigned max_side = cfg->max_map_side;
    json_t *m = json_object_get(body, "map");
    if (m == NULL) {
        svc_errors_add(e, "/map", "is required");
        return;
    }
    if (!codec_expect_object(m, "/map", e))
        return;
    codec_reject_unknown(m, "/map", keys, e);
    long long w = 0, h = 0;
    bool ok = codec_get_int(m, "/map", "width", true, 1, 1000000, &w, e);
    ok &= codec_get_int(m, "/map", "height", true, 1, 1000000, &h, e);
    if (ok && w > max_side) {
        svc_errors_add(e, "/map/width", "exceeds the configured limit of %u squares", max_side);
        ok = false;
    }
    if (ok && h > max_side) {
        svc_errors_add(e, "/map/height", "exceeds the configured limit of %u squares", max_side);
        ok = false;
    }
    if (!ok)
        return;
    if (rules_map_init(&r->map, (int)w, (int)h) != 0) {
        svc_errors_add(e, "/map", "could not be allocated");
        return;
    }
    r->map_ok = true;
    long long painted = 0;
    json_t *rows = NULL;
    if (codec_get_array(m, "/map", "rows", false, (size_t)h, &rows, e)) {
        int bad = 0;
        if (json_array_size(rows) != (size_t)h)
            svc_errors_add(e, "/map/rows", "must hold one string per row (%lld)", h);
        for (size_t y = 0; y < json_array_size(rows) && bad < MAX_ROW_ERRORS; y++) {
            json_t *row = json_array_get(rows, y);
            char ptr[CODEC_PTR_MAX];
            snprintf(ptr, sizeof ptr, "/map/rows/%zu", y);
            if (!json_is_string(row) || json_string_length(row) != (size_t)w) {
                svc_errors_add(e, ptr, "must be a string of %lld squares", w);
                bad++;
                continue;
            }
            const char *s = json_string_value(row);
            for (long long x = 0; x < w; x++) {
                const char *p = s[x] != '\0' ? strchr(legend, s[x]) : NULL;
                if (p == NULL) {
                    svc_errors_add(e, ptr,
                                   "square %lld: '%c' is not in the legend . d i o h # w a e", x,
                                   s[x] >= 32 && s[x] < 127 ? s[x] : '?');
                    bad++;
                    break;
                }
                size_t i = (size_t)y * (size_t)w + (size_t)x;
                r->map.terrain[i] = (uint8_t)legend_terrain[p - legend];
                if (*p == 'o')
                    r->map.flags[i] |= RULES_SQUARE_CUTTABLE;
            }
            painted += w;
        }
    }
    if (painted > r->paint_limit) {
        r->spent = "map_squares";
        r->spent_budget = r->paint_limit;
        r->spent_reached = painted;
        return;
    }
    json_t *squares = NULL;
    if (!codec_get_array(m, "/map", "squares", false, MAX_SQUARES, &squares, e))
        return;
    struct map_rect *rects = malloc((json_array_size(squares) + 1) * sizeof *rects);
    if (rects == NULL) {
        svc_errors_add(e, "/map/squares", "could not be allocated");
        return;
    }
    size_t n = 0, i;
    bool gaps = false, elevations = false;
    json_t *sq;
    json_array_foreach(squares, i, sq)
    {
        static const char *const skeys[] = {"x",         "y",      "q",         "r",
                                            "width",     "height", "terrain",   "corners",
                                            "concealed", "gap_in", "elevation", NULL};
        static const char *const corners[] = {"solid", "cuttable", NULL};
        char ptr[CODEC_PTR_MAX];
        snprintf(ptr, sizeof ptr, "/map/squares/%zu", i);
        if (!codec_expect_object(sq, ptr, e))
            continue;
        codec_reject_unknown(sq, ptr, skeys, e);
        long long x = 0, y = 0, sw = 1, sh = 1, gap = 0, elev = 0;
        bool placed = codec_get_int(sq, ptr, hex(r) ? "q" : "x", true, 0, w - 1, &x, e);
        placed &= codec_get_int(sq, ptr, hex(r) ? "r" : "y", true, 0, h - 1, &y, e);
        codec_get_int(sq, ptr, "width", false, 1, w, &sw, e);
        codec_get_int(sq, ptr, "height", false, 1, h, &sh, e);
        if (placed && (x + sw > w || y + sh > h)) {
            svc_errors_add(e, ptr, "reaches past the map's edge");
            placed = false;
        }
        int t = codec_get_enum(sq, ptr, "terrain", terrain_names, false, -1, e);
        int corner = codec_get_enum(sq, ptr, "corners", corners, false, -1, e);
        bool concealed = false,
             has_conc = codec_get_bool(sq, ptr, "concealed", false, &concealed, e);
        bool has_gap = codec_get_int(sq, ptr, "gap_in", false, 0, 65535, &gap, e);
        bool has_elev = codec_get_int(sq, ptr, "elevation", false, -100000, 100000, &elev, e);
        if (!placed)
            continue;
        gaps |= has_gap, elevations |= has_elev;
        rects[n++] = (struct map_rect){.x = (int)x,
                                       .y = (int)y,
                                       .w = (int)sw,
                                       .h = (int)sh,
                                       .terrain = t,
                                       .corners = corner,
                                       .concealed = has_conc ? concealed : -1,
                                       .gap = has_gap ? (int)gap : -1,
                                       .elevation = (int)elev,
                                       .has_elevation = has_elev};
    }
    size_t cells = (size_t)w * (size_t)h;
    if (svc_errors_any(e) || n == 0) {
        /* An invalid request is answered 422 unpainted. */
    } else if ((gaps && (r->map.gap_in = calloc(cells, 2)) == NULL) ||
               (elevations && (r->map.elevation = calloc(cells, 2)) == NULL)) {
        svc_errors_add(e, "/map", "could not be allocated");
    } else if (!paint_rects(&r->map, rects, n, r->paint_limit, &painted)) {
        if (painted > r->paint_limit) {
            r->spent = "map_squares";
            r->spent_budget = r->paint_limit;
            r->spent_reached = painted;
        } else {
            svc_errors_add(e, "/map", "could not be allocated");
        }
    }
    free(rects);
}

/* The request's map: an internal caller's pre-decoded one (borrowed), or the body's. */
static void request_map(json_t *body, const struct svc_request *req, struct move_req *r,
                        struct svc_errors *e)
{
    if (req->map != NULL) {
        r->map = *req->map;
        r->map_ok = r->map_borrowed = true;
        return;
    }
    decode_map(body, req->ctx->config, r, e);
}

int svc_decode_map(json_t *body, const struct svc_config *cfg, bool hex_grid, struct rules_map *out,
                   struct svc_errors *e)
{
    struct rules_options o = {.grid = hex_grid ? RULES_GRID_HEX : RULES_GRID_SQUARE};
    struct move_req r = {.o = &o};
    budgets_init(&r, cfg);
    size_t before = json_array_size(e->list);
    decode_map(body, cfg, &r, e);
    if (r.spent != NULL)
        svc_errors_add(e, "/map", "needs more than the %s budget (%lld; reached %lld)", r.spent,
                       r.spent_budget, r.spent_reached);
    if (!r.map_ok || json_array_size(e->list) > before) {
        rules_map_free(&r.map);
        return -1;
    }
    *out = r.map;
    return 0;
}

/* Writes base then extra (either may be NULL) into out, NULL-terminated, at most max - 1. */
static void join_keys(const char **out, size_t max, const char *const *base,
                      const char *const *extra)
{
    size_t n = 0;
    for (size_t i = 0; base != NULL && base[i] != NULL && n + 1 < max; i++)
        out[n++] = base[i];
    for (size_t i = 0; extra != NULL && extra[i] != NULL && n + 1 < max; i++)
        out[n++] = extra[i];
    out[n] = NULL;
}

static const char *const creature_keys[] = {"id",           "side", "conscious", "combat_reflexes",
                                            "attack_bonus", NULL};

/* creatures: [{id, side, conscious, combat_reflexes, attack_bonus, ...creature}], and the
 * members named in extra (NULL-terminated, may be NULL) that the caller reads itself. */
static void decode_creatures(json_t *body, struct move_req *r, const char *const *extra,
                             struct svc_errors *e)
{
    static const char *const sides[] = {"enemy", "ally", NULL};
    json_t *list = NULL;
    if (!codec_get_array(body, "", "creatures", false, MAX_CREATURES, &list, e))
        return;
    const char *keys[32];
    join_keys(keys, 32, creature_keys, extra);
    size_t n = json_array_size(list);
    r->cs = calloc(n + 1, sizeof *r->cs);
    r->ids = calloc(n + 1, sizeof *r->ids);
    r->no_attack = calloc(n + 1, sizeof *r->no_attack);
    if (r->cs == NULL || r->ids == NULL || r->no_attack == NULL) {
        svc_errors_add(e, "/creatures", "could not be allocated");
        return;
    }
    size_t i;
    json_t *c;
    json_array_foreach(list, i, c)
    {
        char ptr[CODEC_PTR_MAX];
        snprintf(ptr, sizeof ptr, "/creatures/%zu", i);
        struct rules_map_creature *k = &r->cs[i];
        svc_decode_creature(c, ptr, r->o, true, keys, &k->c, e);
        k->conscious = true;
        r->ids[i] = "";
        if (!json_is_object(c))
            continue;
        if (codec_get_string(c, ptr, "id", true, 64, &r->ids[i], e) && r->ids[i][0] == '\0') {
            char ip[CODEC_PTR_MAX];
            codec_pointer(ip, ptr, "id");
            svc_errors_add(e, ip, "must not be empty");
        }
        k->ally = codec_get_enum(c, ptr, "side", sides, false, 0, e) == 1;
        codec_get_bool(c, ptr, "conscious", false, &k->conscious, e);
        codec_get_bool(c, ptr, "combat_reflexes", false, &k->combat_reflexes, e);
        long long ab = 0;
        codec_get_int(c, ptr, "attack_bonus", false, -100, 100, &ab, e);
        k->attack_bonus = (int)ab;
        for (size_t j = 0; j < i; j++)
            if (strcmp(r->ids[j], r->ids[i]) == 0 && r->ids[i][0] != '\0')
                svc_errors_add(e, ptr, "id '%s' is already used by /creatures/%zu", r->ids[i], j);
        if (r->map_ok && !body_on_map(r->o, &r->map, &k->c.body)) {
            svc_errors_add(e, ptr, "is off the map: its whole space must lie on it");
            continue;
        }
        for (size_t j = 0; j < i; j++)
            if (bodies_overlap(r->o, &r->cs[j].c.body, &k->c.body) &&
                !may_share(r->cs[j].c.size, k->c.size))
                svc_errors_add(e, ptr, "overlaps /creatures/%zu ('%s')", j, r->ids[j]);
    }
    r->nc = (int)n;
}

static int find_id(const struct move_req *r, const char *id)
{
    for (int i = 0; i < r->nc; i++)
        if (strcmp(r->ids[i], id) == 0)
            return i;
    return -1;
}

static const char *const mover_keys[] = {"speeds",
                                         "armor",
                                         "load",
                                         "constitution",
                                         "runner",
                                         "darkvision",
                                         "blinded",
                                         "prone",
                                         "moved_this_round",
                                         "ran_this_round",
                                         "turned_this_turn",
                                         "extra_five_foot_steps",
                                         NULL};

/* The movement fields of a mover (speeds and burdens); creature fields are the caller's. */
static void decode_mover_fields(json_t *m, const char *ptr, struct move_req *r,
                                struct svc_errors *e)
{
    struct rules_mover *mv = &r->mover;
    char sptr[CODEC_PTR_MAX];
    codec_pointer(sptr, ptr, "speeds");
    json_t *speeds = json_object_get(m, "speeds");
    if (speeds == NULL) {
        svc_errors_add(e, sptr, "is required");
    } else if (codec_expect_object(speeds, sptr, e)) {
        static const char *const types[] = {"walk", "swim", "climb", "fly", "burrow", NULL};
        codec_reject_unknown(speeds, sptr, types, e);
        for (int t = 0; t < RULES_MOVE_TYPES; t++) {
            long long v = 0;
            codec_get_int(speeds, sptr, types[t], false, 0, 10000, &v, e);
            mv->speed[t] = (int)v;
        }
    }
    int armor = codec_get_enum(m, ptr, "armor", armor_names, false, 0, e);
    mv->armor = armor <= 1 ? RULES_BURDEN_LIGHT : (enum rules_burden)(armor - 1);
    mv->load = (enum rules_burden)codec_get_enum(m, ptr, "load", load_names, false, 0, e);
    long long con = 0;
    r->has_constitution = codec_get_int(m, ptr, "constitution", false, 0, 100, &con, e);
    mv->constitution = (int)con;
    codec_get_bool(m, ptr, "runner", false, &mv->runner, e);
    codec_get_bool(m, ptr, "darkvision", false, &mv->darkvision, e);
    codec_get_bool(m, ptr, "blinded", false, &mv->blinded, e);
    codec_get_bool(m, ptr, "prone", false, &mv->prone, e);
    codec_get_bool(m, ptr, "moved_this_round", false, &mv->moved, e);
    codec_get_bool(m, ptr, "ran_this_round", false, &mv->ran, e);
    codec_get_bool(m, ptr, "turned_this_turn", false, &mv->turned, e);
    long long steps = 0;
    codec_get_int(m, ptr, "extra_five_foot_steps", false, 0, 10, &steps, e);
    mv->extra_steps = (int)steps;
}

/* body.mover (required): its creature and movement fields, on the map and overlapping nobody
 * it may not share with; extra as for decode_creatures. Returns the member, or NULL. */
static json_t *decode_mover(json_t *body, struct move_req *r, const char *const *extra,
                            struct svc_errors *e)
{
    const char *keys[32];
    join_keys(keys, 32, mover_keys, extra);
    json_t *m = svc_decode_member(body, "mover", r->o, true, keys, &r->mover.c, e);
    if (m != NULL) {
        decode_mover_fields(m, "/mover", r, e);
        if (r->map_ok && !body_on_map(r->o, &r->map, &r->mover.c.body))
            svc_errors_add(e, "/mover", "is off the map: its whole space must lie on it");
        for (int i = 0; i < r->nc; i++)
            if (bodies_overlap(r->o, &r->cs[i].c.body, &r->mover.c.body) &&
                !may_share(r->cs[i].c.size, r->mover.c.size))
                svc_errors_add(e, "/mover", "overlaps /creatures/%d ('%s')", i, r->ids[i]);
    }
    return m;
}

/* rules, map, creatures, mover, mode and withdraw: what path, reach and route share. */
static void decode_move(json_t *body, const struct svc_request *req, struct move_req *r,
                        struct svc_errors *e)
{
    svc_decode_rules(body, &r->rules, e);
    r->o = &r->rules.options;
    r->primary = -1;
    budgets_init(r, req->ctx->config);
    request_map(body, req, r, e);
    decode_creatures(body, r, NULL, e);
    decode_mover(body, r, NULL, e);
    r->mode = (enum rules_move_mode)codec_get_enum(body, "", "mode", mode_names, true, 0, e);
    json_t *wd = json_object_get(body, "withdraw");
    if (r->mode != RULES_MODE_WITHDRAW) {
        if (wd != NULL)
            svc_errors_add(e, "/withdraw", "is only for mode withdraw");
        return;
    }
    if (wd == NULL) {
        svc_errors_add(e, "/withdraw", "is required with mode withdraw (its primary_target)");
        return;
    }
    static const char *const wkeys[] = {"primary_target", "no_attack", NULL};
    if (!codec_expect_object(wd, "/withdraw", e))
        return;
    codec_reject_unknown(wd, "/withdraw", wkeys, e);
    const char *pt = NULL;
    if (codec_get_string(wd, "/withdraw", "primary_target", true, 64, &pt, e)) {
        r->primary = find_id(r, pt);
        if (r->primary < 0)
            svc_errors_add(e, "/withdraw/primary_target", "names no creature");
    }
    json_t *na = NULL;
    if (codec_get_array(wd, "/withdraw", "no_attack", false, MAX_NO_ATTACK, &na, e)) {
        size_t i;
        json_t *v;
        json_array_foreach(na, i, v)
        {
            char ptr[CODEC_PTR_MAX];
            snprintf(ptr, sizeof ptr, "/withdraw/no_attack/%zu", i);
            int k = json_is_string(v) ? find_id(r, json_string_value(v)) : -1;
            if (k < 0)
                svc_errors_add(e, ptr, "must be the id of a creature");
            else if (r->no_attack != NULL)
                r->no_attack[k] = true;
        }
    }
}

static struct rules_move_query query_of(const struct move_req *r)
{
    return (struct rules_move_query){.o = r->o,
                                     .map = &r->map,
                                     .creatures = r->cs,
                                     .creature_count = r->nc,
                                     .mover = &r->mover,
                                     .mode = r->mode,
                                     .primary_target = r->primary,
                                     .no_attack = r->no_attack};
}

static bool adjacent(const struct rules_options *o, int x0, int y0, int x1, int y1)
{
    int dx = x1 - x0, dy = y1 - y0;
    if (o->grid == RULES_GRID_HEX) {
        for (int d = 0; d < 6; d++)
            if (rules_hex_dirs[d][0] == dx && rules_hex_dirs[d][1] == dy)
                return true;
        return false;
    }
    return (dx || dy) && dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1;
}

/* path: [{x, y, facing?}], each adjacent to the one before (the first to `from`). */
static struct rules_step *decode_steps(json_t *body, const char *key, size_t max,
                                       const struct move_req *r, int from_x, int from_y,
                                       bool facings, int *n, struct svc_errors *e)
{
    json_t *list = NULL;
    char base[CODEC_PTR_MAX];
    codec_pointer(base, "", key);
    *n = 0;
    if (!codec_get_array(body, "", key, true, max, &list, e))
        return NULL;
    if (json_array_size(list) == 0) {
        svc_errors_add(e, base, "must hold at least one step");
        return NULL;
    }
    struct rules_step *s = calloc(json_array_size(list), sizeof *s);
    if (s == NULL) {
        svc_errors_add(e, base, "could not be allocated");
        return NULL;
    }
    static const char *const square_keys[] = {"x", "y", "facing", NULL};
    static const char *const hex_keys[] = {"q", "r", "facing", NULL};
    bool hx = hex(r), mover_faces = rules_has_facing(r->o, &r->mover.c);
    int px = from_x, py = from_y;
    bool chain = true;
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v)
    {
        char ptr[CODEC_PTR_MAX + 24];
        snprintf(ptr, sizeof ptr, "%s/%zu", base, i);
        s[i] = (struct rules_step){.facing = -1};
        if (!codec_expect_object(v, ptr, e)) {
            chain = false;
            continue;
        }
        codec_reject_unknown(v, ptr, hx ? hex_keys : square_keys, e);
        long long x = 0, y = 0, f = -1;
        bool ok =
            codec_get_int(v, ptr, hx ? "q" : "x", true, -RULES_COORD_MAX, RULES_COORD_MAX, &x, e);
        ok &= codec_get_int(v, ptr, hx ? "r" : "y", true, -RULES_COORD_MAX, RULES_COORD_MAX, &y, e);
        if (codec_get_int(v, ptr, "facing", false, 0, rules_facing_count(r->o) - 1, &f, e) &&
            (!facings || !mover_faces)) {
            char fptr[CODEC_PTR_MAX];
            codec_pointer(fptr, ptr, "facing");
            svc_errors_add(e, fptr,
                           facings ? "the mover has no facing (no facing variant, faceless, or "
                                     "Tiny and smaller: 000)"
                                   : "forced movement does not set facing");
        }
        s[i] = (struct rules_step){(int)x, (int)y, (int)f};
        if (ok && chain && !adjacent(r->o, px, py, (int)x, (int)y))
            svc_errors_add(e, ptr, "is not adjacent to the %s",
                           i == 0 ? "starting square" : "step before");
        chain = ok;
        px = (int)x, py = (int)y;
    }
    *n = (int)json_array_size(list);
    return s;
}

/* ---- writing ---- */

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

/* The per-step answer shared by path and route. Returns the first violation's text for
 * explain (static), or NULL when legal. */
static bool write_path_answer(struct jw *w, const struct move_req *r,
                              const struct rules_path_result *p, int n, char *explain,
                              size_t explain_len)
{
    JW_KEY(w, "mode");
    jw_string(w, mode_names[r->mode]);
    JW_KEY(w, "legal");
    jw_bool(w, p->legal);
    JW_KEY(w, "violations");
    jw_array_begin(w);
    int first_step = -2;
    enum rules_move_violation first = RULES_MV_COUNT;
    for (int v = 0; v < RULES_MV_COUNT; v++)
        if (p->action_violations & (1u << v)) {
            jw_object_begin(w);
            JW_KEY(w, "step");
            jw_null(w);
            JW_KEY(w, "code");
            jw_string(w, rules_move_violation_code((enum rules_move_violation)v));
            JW_KEY(w, "message");
            jw_string(w, rules_move_violation_text((enum rules_move_violation)v));
            JW_KEY(w, "source");
            jw_string(w, rules_move_violation_source((enum rules_move_violation)v));
            jw_object_end(w);
            if (first == RULES_MV_COUNT)
                first = (enum rules_move_violation)v, first_step = -1;
        }
    for (int i = 0; i < n; i++) {
        if ((long long)w->len > r->answer_limit)
            return false;
        for (int v = 0; v < RULES_MV_COUNT; v++)
            if (p->steps[i].violations & (1u << v)) {
                jw_object_begin(w);
                JW_KEY(w, "step");
                jw_int(w, i);
                JW_KEY(w, "code");
                jw_string(w, rules_move_violation_code((enum rules_move_violation)v));
                JW_KEY(w, "message");
                jw_string(w, rules_move_violation_text((enum rules_move_violation)v));
                JW_KEY(w, "source");
                jw_string(w, rules_move_violation_source((enum rules_move_violation)v));
                jw_object_end(w);
                if (first == RULES_MV_COUNT)
                    first = (enum rules_move_violation)v, first_step = i;
            }
    }
    jw_array_end(w);
    JW_KEY(w, "steps");
    jw_array_begin(w);
    for (int i = 0; i < n; i++) {
        if ((long long)w->len > r->answer_limit)
            return false;
        const struct rules_step_result *s = &p->steps[i];
        jw_object_begin(w);
        write_pos(w, r->o, s->x, s->y);
        JW_KEY(w, "facing");
        if (s->facing >= 0)
            jw_int(w, s->facing);
        else
            jw_null(w);
        JW_KEY(w, "cost_ft");
        jw_int(w, s->cost_ft);
        JW_KEY(w, "spent_ft");
        jw_int(w, s->spent_ft);
        JW_KEY(w, "movement_type");
        jw_string(w, rules_move_type_name(s->type));
        JW_KEY(w, "why");
        jw_array_begin(w);
        for (size_t k = 0; k < sizeof whys / sizeof whys[0]; k++)
            if (s->why & whys[k].bit) {
                jw_object_begin(w);
                JW_KEY(w, "rule");
                jw_string(w, whys[k].code);
                JW_KEY(w, "source");
                jw_string(w, whys[k].source);
                jw_object_end(w);
            }
        jw_array_end(w);
        jw_object_end(w);
    }
    jw_array_end(w);
    JW_KEY(w, "total_ft");
    jw_int(w, p->total_ft);
    write_speeds(w, "budget_ft", p->budget_ft);
    write_speeds(w, "remaining_ft", p->remaining_ft);
    JW_KEY(w, "steps_in_budget");
    jw_int(w, p->steps_in_budget);
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
    JW_KEY(w, "attacks_of_opportunity");
    jw_array_begin(w);
    for (int i = 0; i < p->aoo_count; i++) {
        const struct rules_aoo *a = &p->aoos[i];
        jw_object_begin(w);
        JW_KEY(w, "creature");
        jw_string(w, r->ids[a->creature]);
        JW_KEY(w, "step");
        jw_int(w, a->step);
        JW_KEY(w, "leaving");
        jw_object_begin(w);
        write_pos(w, r->o, a->from_x, a->from_y);
        jw_object_end(w);
        JW_KEY(w, "mover_facing");
        if (a->facing >= 0)
            jw_int(w, a->facing);
        else
            jw_null(w);
        JW_KEY(w, "attack_total");
        jw_int(w, a->eval.attack_total);
        JW_KEY(w, "attacker_area");
        jw_string(w, rules_area_name(a->eval.attacker_area));
        JW_KEY(w, "target_area");
        jw_string(w, rules_area_name(a->eval.target_area));
        write_modifiers(w, &a->eval);
        jw_object_end(w);
    }
    jw_array_end(w);
    JW_KEY(w, "provokes_source");
    jw_string(w, "004 Provoking an Attack of Opportunity by Moving; 001 Double Move (one per "
                 "enemy per action)");
    if (first == RULES_MV_COUNT) {
        int used = snprintf(explain, explain_len, "Legal: %d ft", p->total_ft);
        if (p->aoo_count == 0) {
            snprintf(explain + used, explain_len - (size_t)used, ", provokes nothing.");
        } else {
            used += snprintf(explain + used, explain_len - (size_t)used,
                             ", provokes %d attack%s of opportunity (", p->aoo_count,
                             p->aoo_count == 1 ? "" : "s");
            for (int i = 0; i < p->aoo_count && used < (int)explain_len - 8; i++)
                used += snprintf(explain + used, explain_len - (size_t)used, "%s%s", i ? ", " : "",
                                 r->ids[p->aoos[i].creature]);
            if (used < (int)explain_len - 3)
                snprintf(explain + used, explain_len - (size_t)used, ").");
        }
    } else if (first_step < 0) {
        snprintf(explain, explain_len, "Illegal: %s (%s).", rules_move_violation_text(first),
                 rules_move_violation_source(first));
    } else {
        snprintf(explain, explain_len, "Illegal at step %d: %s (%s).", first_step,
                 rules_move_violation_text(first), rules_move_violation_source(first));
    }
    return (long long)w->len <= r->answer_limit;
}

static void respond_jw(struct svc_response *res, struct jw *w)
{
    size_t len = 0;
    char *text = jw_finish(w, &len);
    svc_respond_owned(res, 200, "application/json", text, len);
}

/* Drops a partly written answer that has passed the answer budget, for a 422. */
static void answer_too_large(struct svc_response *res, const struct move_req *r, struct jw *w)
{
    size_t len = 0;
    long long reached = (long long)w->len;
    free(jw_finish(w, &len));
    svc_problem_too_expensive(res, "answer_bytes", r->answer_limit, reached);
}

/* Runs the path checker and writes the whole answer (path and route). */
static void answer_path(struct svc_response *res, struct move_req *r,
                        const struct rules_step *steps, int n, int end_facing, int route_cost,
                        bool route)
{
    struct rules_path_result p = {0};
    p.steps = calloc((size_t)n + 1, sizeof *p.steps);
    p.aoos = calloc((size_t)r->nc + 1, sizeof *p.aoos);
    struct rules_move_query q = query_of(r);
    if (p.steps == NULL || p.aoos == NULL ||
        rules_move_path(&q, steps, n, end_facing, &p) != RULES_MOVE_OK) {
        svc_problem(res, SVC_PROBLEM_INTERNAL, NULL, NULL);
        goto out;
    }
    struct jw w;
    char explain[512];
    jw_init(&w, 4096 + (size_t)n * 160);
    jw_object_begin(&w);
    write_rules(&w, &r->rules);
    if (route) {
        JW_KEY(&w, "found");
        jw_bool(&w, true);
        JW_KEY(&w, "route_cost_ft");
        jw_int(&w, route_cost);
    }
    if (!write_path_answer(&w, r, &p, n, explain, sizeof explain)) {
        answer_too_large(res, r, &w);
        goto out;
    }
    if (route) {
        char more[160];
        snprintf(more, sizeof more, " Route: %d steps, %d ft; this %s covers %d of them.", n,
                 route_cost, mode_names[r->mode], p.steps_in_budget);
        size_t used = strlen(explain);
        snprintf(explain + used, sizeof explain - used, "%s", more);
    }
    JW_KEY(&w, "explain");
    jw_string(&w, explain);
    jw_object_end(&w);
    respond_jw(res, &w);
out:
    free(p.steps);
    free(p.aoos);
}

static const char *const move_known[] = {"rules",  "map",      "creatures", "mover",
                                         "mode",   "withdraw", "path",      "end_facing",
                                         "prefer", "target",   NULL};

/* Checks that body holds only `allowed` among the movement request's members. */
static void only(json_t *body, const char *const *allowed, struct svc_errors *e)
{
    for (const char *const *k = move_known; *k != NULL; k++) {
        bool ok = false;
        for (const char *const *a = allowed; *a != NULL && !ok; a++)
            ok = strcmp(*a, *k) == 0;
        if (!ok && json_object_get(body, *k) != NULL) {
            char ptr[CODEC_PTR_MAX];
            codec_pointer(ptr, "", *k);
            svc_errors_add(e, ptr, "is not a member of this request");
        }
    }
}

/* Starts a path, reach or route request: the body, its members, and what they share. False
 * when the answer is already in res. */
static bool begin_move(const struct svc_request *req, struct svc_response *res,
                       const char *const *allowed, json_t **body, struct svc_errors *e,
                       struct move_req *r)
{
    if (!svc_decode_begin(req, res, move_known, body, e)) {
        svc_errors_free(e);
        json_decref(*body);
        return false;
    }
    only(*body, allowed, e);
    decode_move(*body, req, r, e);
    if (r->spent != NULL) {
        svc_problem_too_expensive(res, r->spent, r->spent_budget, r->spent_reached);
        svc_errors_free(e);
        req_free(r);
        json_decref(*body);
        return false;
    }
    return true;
}

void svc_handle_move_path(const struct svc_request *req, struct svc_response *res)
{
    static const char *const allowed[] = {"rules",    "map",  "creatures",  "mover", "mode",
                                          "withdraw", "path", "end_facing", NULL};
    json_t *body;
    struct svc_errors e;
    struct move_req r = {0};
    struct rules_step *steps = NULL;
    if (!begin_move(req, res, allowed, &body, &e, &r))
        return;
    int n = 0;
    steps = decode_steps(body, "path", RULES_MAX_PATH, &r, r.mover.c.body.x, r.mover.c.body.y, true,
                         &n, &e);
    long long end_facing = -1;
    if (codec_get_int(body, "", "end_facing", false, 0, rules_facing_count(r.o) - 1, &end_facing,
                      &e) &&
        !rules_has_facing(r.o, &r.mover.c))
        svc_errors_add(&e, "/end_facing", "the mover has no facing");
    if (svc_errors_any(&e))
        svc_errors_respond(&e, res);
    else
        answer_path(res, &r, steps, n, (int)end_facing, 0, false);
    svc_errors_free(&e);
    free(steps);
    req_free(&r);
    json_decref(body);
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

/* Takes a place for a search; false (and a 503 in res) when all are taken. */
static bool search_begin(const struct svc_request *req, struct svc_response *res)
{
    unsigned threads = req->ctx->config->threads;
    unsigned places = threads / 2 > 0 ? threads / 2 : 1;
    if (atomic_fetch_add(&searches_running, 1) < places)
        return true;
    atomic_fetch_sub(&searches_running, 1);
    svc_problem(res, SVC_PROBLEM_BUSY,
                "every place for a movement search is taken; retry after a second", NULL);
    svc_response_add_header(res, "Retry-After", "1");
    return false;
}

static void search_end(void)
{
    atomic_fetch_sub(&searches_running, 1);
}

static void move_reach(const struct svc_request *req, struct svc_response *res)
{
    static const char *const allowed[] = {"rules", "map",      "creatures", "mover",
                                          "mode",  "withdraw", "prefer",    NULL};
    json_t *body;
    struct svc_errors e;
    struct move_req r = {0};
    struct rules_reach *reach = NULL;
    int *who = NULL, *fx = NULL, *fy = NULL;
    if (!begin_move(req, res, allowed, &body, &e, &r))
        return;
    int prefer = codec_get_enum(body, "", "prefer", prefer_names, false, 0, &e);
    if (svc_errors_any(&e)) {
        svc_errors_respond(&e, res);
        goto out;
    }
    struct rules_move_query q = query_of(&r);
    who = calloc((size_t)r.nc + 1, sizeof *who);
    fx = calloc((size_t)r.nc + 1, sizeof *fx);
    fy = calloc((size_t)r.nc + 1, sizeof *fy);
    q.work = &r.work;
    int rc = who == NULL || fx == NULL || fy == NULL ? RULES_MOVE_ERR_NOMEM
                                                     : rules_move_reach(&q, prefer == 1, &reach);
    if (rc == RULES_MOVE_TOO_EXPENSIVE) {
        svc_problem_too_expensive(res, "search_states", r.work.limit, r.work.used);
        goto out;
    }
    if (rc != RULES_MOVE_OK) {
        svc_problem(res, SVC_PROBLEM_INTERNAL, NULL, NULL);
        goto out;
    }
    int count = rules_reach_count(reach);
    struct jw w;
    jw_init(&w, 4096 + (size_t)count * 96);
    jw_object_begin(&w);
    write_rules(&w, &r.rules);
    JW_KEY(&w, "mode");
    jw_string(&w, mode_names[r.mode]);
    JW_KEY(&w, "prefer");
    jw_string(&w, prefer_names[prefer]);
    JW_KEY(&w, "count");
    jw_int(&w, count);
    JW_KEY(&w, "squares");
    jw_array_begin(&w);
    int facings = rules_facing_count(r.o);
    for (int i = 0; i < count; i++) {
        /* Listing walks each square's path (charged to the work) and writes its entry. */
        if (r.work.used > r.work.limit) {
            size_t len = 0;
            free(jw_finish(&w, &len));
            svc_problem_too_expensive(res, "search_states", r.work.limit, r.work.used);
            goto out;
        }
        if ((long long)w.len > r.answer_limit) {
            answer_too_large(res, &r, &w);
            goto out;
        }
        struct rules_reach_square s;
        rules_reach_get(reach, i, &s);
        jw_object_begin(&w);
        write_pos(&w, r.o, s.x, s.y);
        JW_KEY(&w, "cost_ft");
        jw_int(&w, s.cost_ft);
        JW_KEY(&w, "provoking_steps");
        jw_int(&w, s.provoking_steps);
        JW_KEY(&w, "facings");
        jw_array_begin(&w);
        for (int f = 0; f < facings; f++)
            if (s.facings & (1u << f))
                jw_int(&w, f);
        jw_array_end(&w);
        int na = rules_reach_aoos(reach, i, who, fx, fy);
        JW_KEY(&w, "attacks_of_opportunity");
        jw_array_begin(&w);
        for (int k = 0; k < na; k++) {
            jw_object_begin(&w);
            JW_KEY(&w, "creature");
            jw_string(&w, r.ids[who[k]]);
            JW_KEY(&w, "leaving");
            jw_object_begin(&w);
            write_pos(&w, r.o, fx[k], fy[k]);
            jw_object_end(&w);
            jw_object_end(&w);
        }
        jw_array_end(&w);
        jw_object_end(&w);
    }
    jw_array_end(&w);
    char explain[256];
    snprintf(explain, sizeof explain, "%d square%s reachable with a %s%s.", count,
             count == 1 ? "" : "s", mode_names[r.mode],
             prefer == 1 ? ", fewest provoking steps first" : "");
    JW_KEY(&w, "explain");
    jw_string(&w, explain);
    jw_object_end(&w);
    respond_jw(res, &w);
out:
    rules_reach_free(reach);
    free(who);
    free(fx);
    free(fy);
    svc_errors_free(&e);
    req_free(&r);
    json_decref(body);
}

static void move_route(const struct svc_request *req, struct svc_response *res)
{
    static const char *const allowed[] = {"rules", "map",      "creatures", "mover",
                                          "mode",  "withdraw", "target",    NULL};
    json_t *body;
    struct svc_errors e;
    struct move_req r = {0};
    struct rules_step *steps = NULL;
    if (!begin_move(req, res, allowed, &body, &e, &r))
        return;
    if (r.mode == RULES_MODE_STEP)
        svc_errors_add(&e, "/mode", "a 5-foot step is one square: ask /v1/movement/path");
    struct rules_route_goal goal = {.creature = -1};
    json_t *t = json_object_get(body, "target");
    if (t == NULL) {
        svc_errors_add(&e, "/target", "is required: a square or a creature to threaten");
    } else if (codec_expect_object(t, "/target", &e)) {
        static const char *const square_keys[] = {"x", "y", "creature", NULL};
        static const char *const hex_keys[] = {"q", "r", "creature", NULL};
        codec_reject_unknown(t, "/target", hex(&r) ? hex_keys : square_keys, &e);
        const char *id = NULL;
        if (codec_get_string(t, "/target", "creature", false, 64, &id, &e)) {
            goal.creature = find_id(&r, id);
            if (goal.creature < 0)
                svc_errors_add(&e, "/target/creature", "names no creature");
            if (json_object_get(t, hex(&r) ? "q" : "x") != NULL)
                svc_errors_add(&e, "/target", "give a square or a creature, not both");
        } else {
            long long x = 0, y = 0;
            codec_get_int(t, "/target", hex(&r) ? "q" : "x", true, 0,
                          r.map_ok ? r.map.width - 1 : 0, &x, &e);
            codec_get_int(t, "/target", hex(&r) ? "r" : "y", true, 0,
                          r.map_ok ? r.map.height - 1 : 0, &y, &e);
            goal.x = (int)x, goal.y = (int)y;
        }
    }
    if (svc_errors_any(&e)) {
        svc_errors_respond(&e, res);
        goto out;
    }
    struct rules_move_query q = query_of(&r);
    q.work = &r.work;
    int max = r.map.width * r.map.height + 1;
    if (max > RULES_MAX_PATH * 100)
        max = RULES_MAX_PATH * 100;
    steps = calloc((size_t)max, sizeof *steps);
    int cost = 0;
    int n =
        steps == NULL ? RULES_MOVE_ERR_NOMEM - 1 : rules_move_route(&q, &goal, steps, max, &cost);
    if (n == RULES_MOVE_TOO_EXPENSIVE - 1) {
        svc_problem_too_expensive(res, "search_states", r.work.limit, r.work.used);
        goto out;
    }
    if (n < -1) {
        svc_problem(res, SVC_PROBLEM_INTERNAL, NULL, NULL);
        goto out;
    }
    if (n < 0) {
        struct jw w;
        jw_init(&w, 2048);
        jw_object_begin(&w);
        write_rules(&w, &r.rules);
        JW_KEY(&w, "found");
        jw_bool(&w, false);
        JW_KEY(&w, "mode");
        jw_string(&w, mode_names[r.mode]);
        JW_KEY(&w, "explain");
        jw_string(&w, "No legal route: every way is blocked for this mover and mode.");
        jw_object_end(&w);
        respond_jw(res, &w);
        goto out;
    }
    answer_path(res, &r, steps, n, -1, cost, true);
out:
    free(steps);
    svc_errors_free(&e);
    req_free(&r);
    json_decref(body);
}

void svc_handle_move_reach(const struct svc_request *req, struct svc_response *res)
{
    if (!search_begin(req, res))
        return;
    move_reach(req, res);
    search_end();
}

void svc_handle_move_route(const struct svc_request *req, struct svc_response *res)
{
    if (!search_begin(req, res))
        return;
    move_route(req, res);
    search_end();
}

void svc_handle_move_forced(const struct svc_request *req, struct svc_response *res)
{
    static const char *const known[] = {"rules", "map",     "creatures", "target", "attacker",
                                        "kind",  "squares", "path",      NULL};
    static const char *const target_keys[] = {"voluntarily_prone", "reduction_squares",
                                              "fall_prone_at", NULL};
    json_t *body;
    struct svc_errors e;
    struct move_req r = {0};
    struct rules_step *path = NULL;
    if (!svc_decode_begin(req, res, known, &body, &e)) {
        svc_errors_free(&e);
        json_decref(body);
        return;
    }
    svc_decode_rules(body, &r.rules, &e);
    r.o = &r.rules.options;
    budgets_init(&r, req->ctx->config);
    request_map(body, req, &r, &e);
    decode_creatures(body, &r, NULL, &e);
    struct rules_forced_query q = {.o = r.o, .fall_prone_at = -1};
    json_t *t = svc_decode_member(body, "target", r.o, true, target_keys, &q.target, &e);
    svc_decode_member(body, "attacker", r.o, true, NULL, &q.attacker, &e);
    if (t != NULL) {
        codec_get_bool(t, "/target", "voluntarily_prone", false, &q.voluntarily_prone, &e);
        long long red = 0, fall = -1;
        codec_get_int(t, "/target", "reduction_squares", false, 0, RULES_FORCED_MAX, &red, &e);
        codec_get_int(t, "/target", "fall_prone_at", false, 0, RULES_FORCED_MAX, &fall, &e);
        q.reduction = (int)red, q.fall_prone_at = (int)fall;
        if (r.map_ok && !body_on_map(r.o, &r.map, &q.target.body))
            svc_errors_add(&e, "/target", "is off the map: its whole space must lie on it");
        for (int i = 0; i < r.nc; i++)
            if (bodies_overlap(r.o, &r.cs[i].c.body, &q.target.body) &&
                !may_share(r.cs[i].c.size, q.target.size))
                svc_errors_add(&e, "/target", "overlaps /creatures/%d ('%s')", i, r.ids[i]);
    }
    q.kind = (enum rules_forced_kind)codec_get_enum(body, "", "kind", forced_names, true, 0, &e);
    long long squares = 1;
    codec_get_int(body, "", "squares", true, 1, RULES_FORCED_MAX, &squares, &e);
    q.squares = (int)squares;
    int n = 0;
    path = decode_steps(body, "path", RULES_FORCED_MAX, &r, q.target.body.x, q.target.body.y, false,
                        &n, &e);
    if (n > q.squares)
        svc_errors_add(&e, "/path", "is longer than the %d squares of the forced movement",
                       q.squares);
    if (r.spent != NULL) {
        svc_problem_too_expensive(res, r.spent, r.spent_budget, r.spent_reached);
        goto out;
    }
    if (svc_errors_any(&e)) {
        svc_errors_respond(&e, res);
        goto out;
    }
    q.map = &r.map, q.creatures = r.cs, q.creature_count = r.nc;
    q.path = path, q.path_len = n;
    struct rules_forced_result out;
    rules_move_forced(&q, &out);
    struct jw w;
    jw_init(&w, 2048);
    jw_object_begin(&w);
    write_rules(&w, &r.rules);
    JW_KEY(&w, "kind");
    jw_string(&w, forced_names[q.kind]);
    JW_KEY(&w, "moved");
    jw_int(&w, out.moved);
    JW_KEY(&w, "end");
    jw_object_begin(&w);
    write_pos(&w, r.o, out.x, out.y);
    JW_KEY(&w, "z");
    jw_int(&w, out.z);
    jw_object_end(&w);
    JW_KEY(&w, "vertical");
    jw_bool(&w, out.vertical);
    JW_KEY(&w, "dz");
    jw_int(&w, out.dz);
    JW_KEY(&w, "stop");
    jw_object_begin(&w);
    JW_KEY(&w, "code");
    jw_string(&w, rules_forced_stop_code(out.stop));
    JW_KEY(&w, "message");
    jw_string(&w, rules_forced_stop_text(out.stop));
    JW_KEY(&w, "step");
    if (out.stop_step >= 0)
        jw_int(&w, out.stop_step);
    else
        jw_null(&w);
    JW_KEY(&w, "obstacle");
    if (out.obstacle >= 0)
        jw_string(&w, r.ids[out.obstacle]);
    else
        jw_null(&w);
    jw_object_end(&w);
    JW_KEY(&w, "prone");
    jw_bool(&w, out.prone);
    JW_KEY(&w, "hazards");
    jw_array_begin(&w);
    for (int i = 0; i < out.hazard_count; i++) {
        jw_object_begin(&w);
        JW_KEY(&w, "step");
        jw_int(&w, out.hazards[i]);
        write_pos(&w, r.o, path[out.hazards[i]].x, path[out.hazards[i]].y);
        jw_object_end(&w);
    }
    jw_array_end(&w);
    JW_KEY(&w, "provokes");
    jw_bool(&w, false);
    JW_KEY(&w, "provokes_source");
    jw_string(&w, "001 Forced Movement: never provokes attacks of opportunity");
    char explain[320];
    snprintf(explain, sizeof explain, "%s %d of %d square%s%s; %s.",
             q.kind == RULES_FORCED_PUSH   ? "Pushed"
             : q.kind == RULES_FORCED_PULL ? "Pulled"
                                           : "Slid",
             out.moved, q.squares, q.squares == 1 ? "" : "s",
             out.vertical ? (out.dz < 0 ? " straight down" : " straight up") : "",
             rules_forced_stop_text(out.stop));
    JW_KEY(&w, "explain");
    jw_string(&w, explain);
    jw_object_end(&w);
    respond_jw(res, &w);
out:
    free(path);
    svc_errors_free(&e);
    req_free(&r);
    json_decref(body);
}

void svc_handle_move_speed(const struct svc_request *req, struct svc_response *res)
{
    static const char *const known[] = {"rules", "mover", "checks", NULL};
    json_t *body;
    struct svc_errors e;
    struct move_req r = {0};
    if (!svc_decode_begin(req, res, known, &body, &e)) {
        svc_errors_free(&e);
        json_decref(body);
        return;
    }
    svc_decode_rules(body, &r.rules, &e);
    r.o = &r.rules.options;
    json_t *m = json_object_get(body, "mover");
    if (m == NULL)
        svc_errors_add(&e, "/mover", "is required");
    else if (codec_expect_object(m, "/mover", &e)) {
        codec_reject_unknown(m, "/mover", mover_keys, &e);
        decode_mover_fields(m, "/mover", &r, &e);
    }
    long long checks = DEFAULT_CHECKS;
    codec_get_int(body, "", "checks", false, 0, MAX_CHECK_ROWS, &checks, &e);
    if (svc_errors_any(&e)) {
        svc_errors_respond(&e, res);
        goto out;
    }
    struct rules_speed sp;
    rules_speed_eval(r.o, &r.mover, &sp);
    struct jw w;
    jw_init(&w, 2048);
    jw_object_begin(&w);
    write_rules(&w, &r.rules);
    JW_KEY(&w, "walk");
    jw_object_begin(&w);
    JW_KEY(&w, "base_ft");
    jw_int(&w, sp.base_walk_ft);
    JW_KEY(&w, "armor_penalty_ft");
    jw_int(&w, sp.armor_penalty_ft);
    JW_KEY(&w, "load_penalty_ft");
    jw_int(&w, sp.load_penalty_ft);
    JW_KEY(&w, "effective_ft");
    jw_int(&w, sp.walk_ft);
    JW_KEY(&w, "source");
    jw_string(&w, "001 Encumbrance: medium -5 ft above 20 ft (RULES.md 8 at 20 or less), heavy "
                  "-10 ft above 20 ft and -5 ft otherwise; armor as load; they stack");
    jw_object_end(&w);
    int eff[RULES_MOVE_TYPES];
    for (int t = 0; t < RULES_MOVE_TYPES; t++)
        eff[t] = t == RULES_MOVE_WALK ? sp.walk_ft : r.mover.speed[t];
    write_speeds(&w, "speeds_ft", eff);
    JW_KEY(&w, "move_action");
    jw_bool(&w, sp.move_action);
    JW_KEY(&w, "double_move_ft");
    jw_int(&w, 2 * sp.walk_ft);
    JW_KEY(&w, "run");
    jw_object_begin(&w);
    JW_KEY(&w, "multiplier");
    jw_int(&w, sp.run_multiplier);
    JW_KEY(&w, "feet");
    jw_int(&w, sp.run_ft);
    JW_KEY(&w, "source");
    jw_string(&w, sp.run_rule);
    JW_KEY(&w, "flat_footed_after");
    jw_bool(&w, !r.mover.runner);
    JW_KEY(&w, "rounds_before_checks");
    if (r.has_constitution)
        jw_int(&w, sp.run_rounds);
    else
        jw_null(&w);
    JW_KEY(&w, "check_dcs");
    jw_array_begin(&w);
    for (int i = 0; i < (int)checks; i++)
        jw_int(&w, rules_run_check_dc(i));
    jw_array_end(&w);
    JW_KEY(&w, "checks_source");
    jw_string(&w, "001 Run: Constitution-score rounds, then DC 30 Might, +2 per check before");
    jw_object_end(&w);
    JW_KEY(&w, "five_foot_step");
    jw_object_begin(&w);
    JW_KEY(&w, "possible");
    jw_bool(&w, sp.step_possible);
    JW_KEY(&w, "reason");
    jw_string(&w, sp.step_reason);
    JW_KEY(&w, "source");
    jw_string(&w, "001 5-Foot Step");
    jw_object_end(&w);
    char explain[256];
    snprintf(explain, sizeof explain,
             "Walk %d ft (base %d, armor -%d, load -%d); run x%d = %d ft%s.", sp.walk_ft,
             sp.base_walk_ft, sp.armor_penalty_ft, sp.load_penalty_ft, sp.run_multiplier, sp.run_ft,
             sp.step_possible ? "; a 5-foot step is possible" : "; no 5-foot step");
    JW_KEY(&w, "explain");
    jw_string(&w, explain);
    jw_object_end(&w);
    respond_jw(res, &w);
out:
    svc_errors_free(&e);
    req_free(&r);
    json_decref(body);
}

/* --- for other parts of the service (move_codec.h) --- */

void svc_decode_board(json_t *body, const struct svc_request *req,
                      const char *const *creature_extra, const char *const *mover_extra,
                      struct svc_board *b, struct svc_errors *e)
{
    struct move_req r = {0};
    svc_decode_rules(body, &r.rules, e);
    r.o = &r.rules.options;
    r.primary = -1;
    budgets_init(&r, req->ctx->config);
    decode_map(body, req->ctx->config, &r, e);
    if (r.spent == NULL) {
        decode_creatures(body, &r, creature_extra, e);
        if (json_object_get(body, "mover") != NULL)
            b->mover_json = decode_mover(body, &r, mover_extra, e);
        r.mode = (enum rules_move_mode)codec_get_enum(body, "", "mode", mode_names, false, 0, e);
    }
    b->rules = r.rules;
    b->map = r.map;
    b->map_ok = r.map_ok;
    b->creatures = r.cs;
    b->ids = r.ids;
    b->creature_count = r.nc;
    b->mover = r.mover;
    b->mode = r.mode;
    b->work = r.work;
    b->spent = r.spent;
    b->spent_budget = r.spent_budget;
    b->spent_reached = r.spent_reached;
    free(r.no_attack);
}

void svc_board_free(struct svc_board *b)
{
    rules_map_free(&b->map);
    free(b->creatures);
    free(b->ids);
    memset(b, 0, sizeof *b);
}

bool svc_search_begin(const struct svc_request *req, struct svc_response *res)
{
    return search_begin(req, res);
}

void svc_search_end(void)
{
    search_end();
}
