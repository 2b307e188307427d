/* Drawing a scene: the board, terrain, overlays, creatures and the legend, in that order, so
 * that marks lie over the ground they describe and creatures over every mark.
 *
 * Every fact drawn comes from rules/: footprints (rules_hex_members and body.side), threatened
 * squares (rules_threatens_square), facing areas (rules_facing_area), the reach search
 * (rules_move_reach), a path's price and its attacks of opportunity (rules_move_path) and
 * flanking (rules_flanking). The cover overlay decides nothing either: 002 Cover leaves the
 * degree of cover to the GM ("not a strict mathematical calculation"), so it draws lines from
 * the centre of the attacker's space to the centre and corners of the target's and marks the
 * squares in the way (walls, pillars, other creatures) that a line crosses, for the GM to
 * judge. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facing.h"
#include "flanking.h"
#include "render_internal.h"

#define SQRT3 1.7320508075688772
#define PI    3.141592653589793

/* Colours (0xRRGGBB). Sides: blue, red, green, orange, purple, teal. */
static const uint32_t side_colours[RENDER_SIDE_COLOURS] = {0x2f6fd6, 0xd23a2f, 0x2e9e4f,
                                                           0xe08a1e, 0x8a4fc7, 0x1f9e9e};
#define C_PAPER     0xffffffu
#define C_FLOOR     0xf4f1e8u
#define C_GRID      0xc4bca8u
#define C_INK       0x222222u
#define C_WALL      0x3b3b3bu
#define C_DIFFICULT 0xe2d2a4u
#define C_IMPEDED   0xc9a66bu
#define C_HAZARD    0xf3b38fu
#define C_WATER     0x8fc1e3u
#define C_AIR       0xe3edf5u
#define C_EARTH     0x8a6f4du
#define C_DARK      0x1b1b3au
#define C_MOVER     0xf2c200u
#define C_PATH      0x111111u
#define C_ILLEGAL   0xe00000u
#define C_AOO       0xc0001au
#define C_FLANK     0xd81b90u
#define C_COVER     0xe07b00u
#define C_AREA      0x8e44adu
#define C_FORCED    0xb34700u
#define C_FRONT     0x2fa84fu
#define C_SIDEAREA  0xe6c229u
#define C_REAR      0xd7263du

enum legend_kind {
    LEG_SIDE,
    LEG_MOVER,
    LEG_TERRAIN, /* arg: enum rules_map_terrain, or RULES_MAP_COUNT for a pillar */
    LEG_DARK,
    LEG_HP,
    LEG_FACING,
    LEG_COND, /* arg: bit index of RENDER_COND_* */
    LEG_THREAT,
    LEG_REACH,
    LEG_REACH_PROVOKES,
    LEG_PATH,
    LEG_PROVOKE,
    LEG_AOO,
    LEG_ILLEGAL,
    LEG_FLANKING,
    LEG_COVER,
    LEG_BLOCKING,
    LEG_AREA,
    LEG_FORCED,
    LEG_AREA_FRONT,
    LEG_AREA_FLANK,
    LEG_AREA_SIDE,
    LEG_AREA_REAR,
};

static const char *const cond_names[] = {"prone", "flat-footed", "dying", "unconscious"};
static const char cond_letters[] = "PFDU";
static const uint32_t cond_colours[] = {0x555555, 0xc98a00, 0xb00020, 0x283593};

struct ctx {
    const struct render_scene *s;
    struct render_layout l;
    struct pen pen;
    int rc;
    /* The searches' view of the others: everyone but the mover, allies by the mover's side. */
    struct rules_map_creature *others;
    int *other_index; /* scene index of others[i] */
    int other_count;
    /* Marks that must stay readable over the creatures, drawn after them. */
    struct {
        double x, y;
        uint32_t rgb;
    } late[64];
    int late_count;
};

static uint32_t side_colour(int side)
{
    return side_colours[(side < 0 ? 0 : side) % RENDER_SIDE_COLOURS];
}

/* Charges n units of work; false once the budget has run out. */
static bool charge(struct ctx *c, long long n)
{
    struct rules_work *w = c->s->work;
    if (w == NULL)
        return true;
    w->used += n;
    if (w->limit > 0 && w->used > w->limit) {
        if (c->rc == RENDER_OK)
            c->rc = RENDER_ERR_TOO_EXPENSIVE;
        return false;
    }
    return true;
}

static bool in_view(const struct render_layout *l, int x, int y)
{
    return x >= l->x0 && y >= l->y0 && x < l->x0 + l->cols && y < l->y0 + l->rows;
}

/* The corners of a square or hex, clockwise: 4 or 6 points into xy. */
static int cell_polygon(const struct render_layout *l, int x, int y, double shrink, double *xy)
{
    double cx, cy;
    render_square_centre(l, x, y, &cx, &cy);
    if (l->grid == RULES_GRID_HEX) {
        double r = l->cell / SQRT3 * (1 - shrink);
        for (int i = 0; i < 6; i++) {
            xy[2 * i] = cx + r * cos(PI / 3 * i);
            xy[2 * i + 1] = cy + r * sin(PI / 3 * i);
        }
        return 6;
    }
    double h = l->cell / 2 * (1 - shrink);
    double pts[8] = {cx - h, cy - h, cx + h, cy - h, cx + h, cy + h, cx - h, cy + h};
    memcpy(xy, pts, sizeof pts);
    return 4;
}

static void fill_cell(struct ctx *c, int x, int y, uint32_t rgb, double a)
{
    if (c->l.grid == RULES_GRID_SQUARE) {
        double px = c->l.ox + (x - c->l.x0) * c->l.cell, py = c->l.oy + (y - c->l.y0) * c->l.cell;
        pen_fill_rect(&c->pen, px, py, c->l.cell, c->l.cell, rgb, a);
        return;
    }
    double xy[12];
    int n = cell_polygon(&c->l, x, y, 0, xy);
    pen_polygon(&c->pen, xy, n, rgb, a, 0, 0, 0);
}

/* The squares of a body (1..side^2 on squares, 1 or 3 hexes) through a callback. */
static int body_cells(const struct rules_options *o, const struct rules_body *b, int *xs, int *ys,
                      int max)
{
    if (o->grid == RULES_GRID_HEX) {
        int q[3], r[3];
        int n = rules_hex_members(b, q, r);
        for (int i = 0; i < n && i < max; i++)
            xs[i] = q[i], ys[i] = r[i];
        return n;
    }
    int n = 0;
    for (int dy = 0; dy < b->side; dy++)
        for (int dx = 0; dx < b->side && n < max; dx++)
            xs[n] = b->x + dx, ys[n++] = b->y + dy;
    return n;
}

/* The pixel centre of a body: the middle of its space, or of its three hexes. */
static void body_centre(const struct ctx *c, const struct rules_body *b, double *px, double *py)
{
    if (c->l.grid == RULES_GRID_HEX) {
        int q[3], r[3];
        int n = rules_hex_members(b, q, r);
        double sx = 0, sy = 0;
        for (int i = 0; i < n; i++) {
            double x, y;
            render_square_centre(&c->l, q[i], r[i], &x, &y);
            sx += x, sy += y;
        }
        *px = sx / n, *py = sy / n;
        return;
    }
    render_square_centre(&c->l, b->x, b->y, px, py);
    *px += (b->side - 1) * c->l.cell / 2;
    *py += (b->side - 1) * c->l.cell / 2;
}

/* A body of the same size placed with its reference square at (x, y). */
static void body_centre_at(const struct ctx *c, const struct rules_body *b, int x, int y,
                           double *px, double *py)
{
    struct rules_body moved = *b;
    moved.x = x, moved.y = y;
    body_centre(c, &moved, px, py);
}

static bool body_in_view(const struct ctx *c, const struct rules_body *b)
{
    int xs[3], ys[3];
    if (c->l.grid == RULES_GRID_HEX) {
        int n = body_cells(c->s->o, b, xs, ys, 3);
        for (int i = 0; i < n; i++)
            if (in_view(&c->l, xs[i], ys[i]))
                return true;
        return false;
    }
    return b->x < c->l.x0 + c->l.cols && b->y < c->l.y0 + c->l.rows && b->x + b->side > c->l.x0 &&
           b->y + b->side > c->l.y0;
}

static bool hostile(const struct render_scene *s, int a, int b)
{
    return s->creatures[a].side != s->creatures[b].side;
}

/* --- the legend --- */

static void legend_add(struct render_legend *lg, int kind, int arg)
{
    for (int i = 0; i < lg->count; i++)
        if (lg->items[i].kind == kind && lg->items[i].arg == arg)
            return;
    if (lg->count < RENDER_LEGEND_MAX)
        lg->items[lg->count++] = (struct render_legend_item){kind, arg};
}

static void legend_text(const struct render_scene *s, const struct render_legend_item *it,
                        char *out, size_t n)
{
    static const char *const terrain[] = {"clear",     "difficult", "impeded", "wall",
                                          "hazardous", "water",     "air",     "earth"};
    switch (it->kind) {
    case LEG_SIDE:
        snprintf(out, n, "%s",
                 it->arg < s->side_count && s->side_names ? s->side_names[it->arg] : "side");
        break;
    case LEG_MOVER:
        snprintf(out, n, "mover");
        break;
    case LEG_TERRAIN:
        snprintf(out, n, "%s", it->arg == RULES_MAP_COUNT ? "pillar" : terrain[it->arg]);
        break;
    case LEG_DARK:
        snprintf(out, n, "darkness");
        break;
    case LEG_HP:
        snprintf(out, n, "hit points");
        break;
    case LEG_FACING:
        snprintf(out, n, "facing");
        break;
    case LEG_COND:
        snprintf(out, n, "%s", cond_names[it->arg]);
        break;
    case LEG_THREAT:
        snprintf(out, n, "threatened by %s",
                 it->arg < s->side_count && s->side_names ? s->side_names[it->arg] : "side");
        break;
    case LEG_REACH:
        snprintf(out, n, "reachable (ft spent)");
        break;
    case LEG_REACH_PROVOKES:
        snprintf(out, n, "reached past a threat");
        break;
    case LEG_PATH:
        snprintf(out, n, "path (ft spent)");
        break;
    case LEG_PROVOKE:
        snprintf(out, n, "provokes leaving");
        break;
    case LEG_AOO:
        snprintf(out, n, "attack of opportunity");
        break;
    case LEG_ILLEGAL:
        snprintf(out, n, "illegal step");
        break;
    case LEG_FLANKING:
        snprintf(out, n, "flanking (+2)");
        break;
    case LEG_COVER:
        snprintf(out, n, "line to target");
        break;
    case LEG_BLOCKING:
        snprintf(out, n, "in the way");
        break;
    case LEG_AREA:
        snprintf(out, n, "area");
        break;
    case LEG_FORCED:
        snprintf(out, n, "forced movement");
        break;
    case LEG_AREA_FRONT:
        snprintf(out, n, "front");
        break;
    case LEG_AREA_FLANK:
        snprintf(out, n, "flank");
        break;
    case LEG_AREA_SIDE:
        snprintf(out, n, "side");
        break;
    case LEG_AREA_REAR:
        snprintf(out, n, "rear");
        break;
    default:
        snprintf(out, n, "?");
    }
}

#define LEGEND_FONT   12.0
#define LEGEND_ROW    20
#define LEGEND_PAD    8
#define LEGEND_SWATCH 14

/* Text widths for the legend's layout come from a fixed advance, wider than DejaVu Sans's
 * average at this size, so the layout needs no font and never overflows. */
static double legend_item_width(const struct render_scene *s, const struct render_legend_item *it)
{
    char text[96];
    legend_text(s, it, text, sizeof text);
    return LEGEND_SWATCH + 6 + 7.4 * (double)strlen(text) + 16;
}

/* Lays the items out in rows; writes each item's position when xs is not NULL. Returns rows. */
static int legend_flow(const struct render_scene *s, const struct render_legend *lg, int width,
                       double *xs, int *row)
{
    double x = LEGEND_PAD;
    int r = 0;
    for (int i = 0; i < lg->count; i++) {
        double w = legend_item_width(s, &lg->items[i]);
        if (x > LEGEND_PAD && x + w > width - LEGEND_PAD)
            x = LEGEND_PAD, r++;
        if (xs != NULL)
            xs[i] = x, row[i] = r;
        x += w;
    }
    return lg->count > 0 ? r + 1 : 0;
}

int render_legend_height(const struct render_scene *s, const struct render_legend *lg, int width)
{
    int rows = legend_flow(s, lg, width, NULL, NULL);
    return rows > 0 ? LEGEND_PAD + rows * LEGEND_ROW + LEGEND_PAD / 2 : 0;
}

int render_legend_height_estimate(const struct render_scene *s, int width)
{
    struct render_legend lg;
    render_legend_collect(s, NULL, &lg);
    return render_legend_height(s, &lg, width);
}

void render_legend_collect(const struct render_scene *s, const struct render_layout *l,
                           struct render_legend *out)
{
    out->count = 0;
    const struct render_overlays *ov = &s->ov;
    int mw = s->map->width, mh = s->map->height;
    int x0 = l ? l->x0 : 0, y0 = l ? l->y0 : 0;
    int x1 = l ? l->x0 + l->cols : mw, y1 = l ? l->y0 + l->rows : mh;
    bool seen_side[RENDER_SIDE_COLOURS * 8] = {false};
    for (int i = 0; i < s->creature_count; i++) {
        const struct render_creature *k = &s->creatures[i];
        int sd = k->side;
        if (sd >= 0 && sd < (int)(sizeof seen_side) && !seen_side[sd])
            seen_side[sd] = true;
    }
    for (int sd = 0; sd < (int)(sizeof seen_side); sd++)
        if (seen_side[sd])
            legend_add(out, LEG_SIDE, sd);
    if (s->mover >= 0)
        legend_add(out, LEG_MOVER, 0);
    bool terrain[RULES_MAP_COUNT + 1] = {false}, dark = false;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            size_t k = (size_t)y * (size_t)mw + (size_t)x;
            int t = s->map->terrain[k];
            if (t == RULES_MAP_BLOCKED && (s->map->flags[k] & RULES_SQUARE_CUTTABLE))
                t = RULES_MAP_COUNT;
            terrain[t] = true;
            dark |= (s->map->flags[k] & RULES_SQUARE_CONCEALED) != 0;
        }
    for (int t = 1; t <= RULES_MAP_COUNT; t++)
        if (terrain[t])
            legend_add(out, LEG_TERRAIN, t);
    if (dark)
        legend_add(out, LEG_DARK, 0);
    unsigned conds = 0;
    bool hp = false, facing = false;
    for (int i = 0; i < s->creature_count; i++) {
        conds |= s->creatures[i].conditions;
        hp |= s->creatures[i].hp_known;
        facing |= rules_has_facing(s->o, &s->creatures[i].mc.c);
    }
    if (hp)
        legend_add(out, LEG_HP, 0);
    if (facing)
        legend_add(out, LEG_FACING, 0);
    for (int b = 0; b < 4; b++)
        if (conds & (1u << b))
            legend_add(out, LEG_COND, b);
    if (ov->facing_of >= 0 && rules_has_facing(s->o, &s->creatures[ov->facing_of].mc.c)) {
        legend_add(out, LEG_AREA_FRONT, 0);
        legend_add(out, s->o->facing == RULES_FACING_003 ? LEG_AREA_SIDE : LEG_AREA_FLANK, 0);
        legend_add(out, LEG_AREA_REAR, 0);
    }
    if (ov->threatened)
        for (int i = 0; i < s->creature_count; i++)
            if (s->mover < 0 || hostile(s, i, s->mover))
                legend_add(out, LEG_THREAT, s->creatures[i].side);
    if (ov->reach && s->mover >= 0) {
        legend_add(out, LEG_REACH, 0);
        legend_add(out, LEG_REACH_PROVOKES, 0);
    }
    if (ov->area != NULL)
        legend_add(out, LEG_AREA, 0);
    if (ov->cover != NULL && ov->cover_count > 0) {
        legend_add(out, LEG_COVER, 0);
        legend_add(out, LEG_BLOCKING, 0);
    }
    if (ov->flanking)
        legend_add(out, LEG_FLANKING, 0);
    if (ov->path != NULL && s->mover >= 0) {
        legend_add(out, LEG_PATH, 0);
        legend_add(out, LEG_PROVOKE, 0);
        legend_add(out, LEG_AOO, 0);
        legend_add(out, LEG_ILLEGAL, 0);
    }
    if (ov->forced != NULL)
        legend_add(out, LEG_FORCED, 0);
}

/* --- the ground --- */

static uint32_t terrain_colour(int t)
{
    switch (t) {
    case RULES_MAP_DIFFICULT:
        return C_DIFFICULT;
    case RULES_MAP_IMPEDED:
        return C_IMPEDED;
    case RULES_MAP_BLOCKED:
        return C_WALL;
    case RULES_MAP_HAZARDOUS:
        return C_HAZARD;
    case RULES_MAP_WATER:
        return C_WATER;
    case RULES_MAP_AIR:
        return C_AIR;
    case RULES_MAP_EARTH:
        return C_EARTH;
    default:
        return C_FLOOR;
    }
}

/* The small mark inside a square that tells terrains apart without colour: hatching for
 * difficult and impeded, a warning triangle for hazardous, ripples for water, a pillar's disc. */
static void terrain_mark(struct ctx *c, double cx, double cy, double size, int t, bool pillar)
{
    double h = size / 2;
    if (pillar) {
        pen_circle(&c->pen, cx, cy, size * 0.36, C_WALL, 1, 0x111111, 1);
        return;
    }
    if (t == RULES_MAP_DIFFICULT || t == RULES_MAP_IMPEDED) {
        double w = size >= 20 ? 1.2 : 0.8;
        uint32_t ink = t == RULES_MAP_DIFFICULT ? 0xa88f5au : 0x7d5a2eu;
        for (int i = -1; i <= 1; i++) {
            double o = i * size * 0.22; /* three strokes, all inside the square */
            double seg[4] = {cx - h * 0.5 + o, cy + h * 0.5, cx + h * 0.5 + o, cy - h * 0.5};
            pen_polyline(&c->pen, seg, 2, ink, 0.8, w, 0);
            if (t == RULES_MAP_IMPEDED) {
                double back[4] = {cx - h * 0.5 + o, cy - h * 0.5, cx + h * 0.5 + o, cy + h * 0.5};
                pen_polyline(&c->pen, back, 2, ink, 0.8, w, 0);
            }
        }
    } else if (t == RULES_MAP_HAZARDOUS) {
        double tri[6] = {cx,           cy - h * 0.55, cx + h * 0.55, cy + h * 0.45, cx - h * 0.55,
                         cy + h * 0.45};
        pen_polygon(&c->pen, tri, 3, 0xd84315, 0.9, 0, 0, 0);
    } else if (t == RULES_MAP_WATER && size >= 12) {
        for (int i = -1; i <= 1; i += 2) {
            double y = cy + i * size * 0.15;
            double wave[8] = {
                cx - h * 0.6, y, cx - h * 0.2, y - size * 0.06, cx + h * 0.2, y + size * 0.06,
                cx + h * 0.6, y};
            pen_polyline(&c->pen, wave, 4, 0x3c7fb0, 0.9, 1, 0);
        }
    }
}

static void draw_ground(struct ctx *c)
{
    const struct rules_map *m = c->s->map;
    const struct render_layout *l = &c->l;
    if (!charge(c, (long long)l->cols * l->rows))
        return;
    if (l->grid == RULES_GRID_SQUARE) {
        pen_fill_rect(&c->pen, l->ox, l->oy, l->cols * l->cell, l->rows * l->cell, C_FLOOR, 1);
    }
    for (int y = l->y0; y < l->y0 + l->rows; y++)
        for (int x = l->x0; x < l->x0 + l->cols; x++) {
            size_t k = (size_t)y * (size_t)m->width + (size_t)x;
            int t = m->terrain[k];
            bool pillar = t == RULES_MAP_BLOCKED && (m->flags[k] & RULES_SQUARE_CUTTABLE);
            if (l->grid == RULES_GRID_HEX || t != RULES_MAP_CLEAR)
                fill_cell(c, x, y, pillar ? C_FLOOR : terrain_colour(t), 1);
            if (t != RULES_MAP_CLEAR && t != RULES_MAP_BLOCKED && l->cell < 6)
                continue;
            if (t != RULES_MAP_CLEAR) {
                double cx, cy;
                render_square_centre(l, x, y, &cx, &cy);
                terrain_mark(c, cx, cy, l->cell, t, pillar);
            }
        }
    for (int y = l->y0; y < l->y0 + l->rows; y++)
        for (int x = l->x0; x < l->x0 + l->cols; x++)
            if (m->flags[(size_t)y * (size_t)m->width + (size_t)x] & RULES_SQUARE_CONCEALED)
                fill_cell(c, x, y, C_DARK, 0.38);
}

static void draw_grid(struct ctx *c)
{
    const struct render_layout *l = &c->l;
    double lw = l->cell >= 16 ? 1 : 0.5;
    if (l->cell < 4)
        return;
    if (l->grid == RULES_GRID_SQUARE) {
        for (int i = 0; i <= l->cols; i++) {
            double x = l->ox + i * l->cell;
            double seg[4] = {x, l->oy, x, l->oy + l->rows * l->cell};
            pen_polyline(&c->pen, seg, 2, C_GRID, 1, lw, 0);
        }
        for (int j = 0; j <= l->rows; j++) {
            double y = l->oy + j * l->cell;
            double seg[4] = {l->ox, y, l->ox + l->cols * l->cell, y};
            pen_polyline(&c->pen, seg, 2, C_GRID, 1, lw, 0);
        }
        return;
    }
    for (int y = l->y0; y < l->y0 + l->rows; y++)
        for (int x = l->x0; x < l->x0 + l->cols; x++) {
            double xy[12];
            int n = cell_polygon(l, x, y, 0, xy);
            pen_polygon(&c->pen, xy, n, 0, 0, C_GRID, 1, lw);
        }
}

/* Column and row numbers along the top and left, so a ruling can name a square. */
static void draw_numbers(struct ctx *c)
{
    const struct render_layout *l = &c->l;
    if (l->grid != RULES_GRID_SQUARE || l->ox < 20 || l->cell < 14)
        return;
    int every = l->cell >= 20 ? 1 : 5;
    char t[16];
    for (int x = l->x0; x < l->x0 + l->cols; x++) {
        if (x % every != 0)
            continue;
        snprintf(t, sizeof t, "%d", x);
        pen_text(&c->pen, l->ox + (x - l->x0 + 0.5) * l->cell, l->oy - 6, 10, false, 1, t, 0x777777,
                 0, 0);
    }
    for (int y = l->y0; y < l->y0 + l->rows; y++) {
        if (y % every != 0)
            continue;
        snprintf(t, sizeof t, "%d", y);
        pen_text(&c->pen, l->ox - 12, l->oy + (y - l->y0 + 0.5) * l->cell + 3.5, 10, false, 1, t,
                 0x777777, 0, 0);
    }
}

/* --- overlays --- */

static void draw_facing_areas(struct ctx *c)
{
    const struct render_scene *s = c->s;
    if (s->ov.facing_of < 0)
        return;
    const struct rules_creature *k = &s->creatures[s->ov.facing_of].mc.c;
    if (!rules_has_facing(s->o, k))
        return;
    int range = k->reach_ft / 5 + 2;
    if (range < 3)
        range = 3;
    int side = s->o->grid == RULES_GRID_HEX ? 2 : k->body.side;
    for (int y = k->body.y - range; y < k->body.y + side + range; y++)
        for (int x = k->body.x - range; x < k->body.x + side + range; x++) {
            if (!in_view(&c->l, x, y) || !charge(c, 1))
                continue;
            enum rules_area a = rules_facing_area(s->o, k, x, y);
            uint32_t col = a == RULES_AREA_FRONT                             ? C_FRONT
                           : a == RULES_AREA_REAR                            ? C_REAR
                           : (a == RULES_AREA_FLANK || a == RULES_AREA_SIDE) ? C_SIDEAREA
                                                                             : 0;
            if (col != 0)
                fill_cell(c, x, y, col, 0.32);
        }
}

/* The squares each side hostile to the mover threatens (every side's, with no mover), tinted
 * in that side's colour. */
static void draw_threatened(struct ctx *c, bool outline)
{
    const struct render_scene *s = c->s;
    const struct rules_map *m = s->map;
    for (int i = 0; i < s->creature_count && c->rc == RENDER_OK; i++) {
        const struct render_creature *k = &s->creatures[i];
        if (i == s->mover || (s->mover >= 0 && !hostile(s, i, s->mover)) || !k->mc.conscious)
            continue;
        const struct rules_creature *cr = &k->mc.c;
        int range = cr->reach_ft / 5 + 1;
        int side = s->o->grid == RULES_GRID_HEX ? 2 : cr->body.side;
        for (int y = cr->body.y - range; y < cr->body.y + side + range; y++)
            for (int x = cr->body.x - range; x < cr->body.x + side + range; x++) {
                if (!in_view(&c->l, x, y) || !charge(c, 1))
                    continue;
                int z = m->elevation ? m->elevation[(size_t)y * (size_t)m->width + (size_t)x] : 0;
                if (!rules_threatens_square(s->o, cr, x, y, z))
                    continue;
                if (!outline) {
                    fill_cell(c, x, y, side_colour(k->side), 0.26);
                    continue;
                }
                /* And an inset outline, which the reach heat map cannot hide. */
                double xy[12];
                int np = cell_polygon(&c->l, x, y, 0.1, xy);
                pen_polygon(&c->pen, xy, np, 0, 0, side_colour(k->side), 0.85,
                            c->l.cell >= 24 ? 2 : 1);
            }
    }
}

static uint32_t lerp_colour(uint32_t a, uint32_t b, double t)
{
    uint32_t out = 0;
    for (int sh = 16; sh >= 0; sh -= 8) {
        double va = (a >> sh) & 0xff, vb = (b >> sh) & 0xff;
        out |= (uint32_t)lround(va + (vb - va) * t) << sh;
    }
    return out;
}

/* Cheap squares green, dear ones orange, through yellow. */
static uint32_t heat(int cost, int max)
{
    double t = max > 0 ? (double)cost / max : 0;
    return t < 0.5 ? lerp_colour(0x7fd77f, 0xf2e15c, t * 2)
                   : lerp_colour(0xf2e15c, 0xf08a3c, (t - 0.5) * 2);
}

static struct rules_move_query query_of(const struct ctx *c)
{
    const struct render_scene *s = c->s;
    return (struct rules_move_query){.o = s->o,
                                     .map = s->map,
                                     .creatures = c->others,
                                     .creature_count = c->other_count,
                                     .mover = s->stats,
                                     .mode = s->mode,
                                     .primary_target = -1,
                                     .work = s->work};
}

static void draw_reach(struct ctx *c)
{
    const struct render_scene *s = c->s;
    struct rules_move_query q = query_of(c);
    struct rules_reach *r = NULL;
    int rc = rules_move_reach(&q, s->ov.reach_fewest_aoo, &r);
    if (rc != RULES_MOVE_OK) {
        c->rc = rc == RULES_MOVE_TOO_EXPENSIVE ? RENDER_ERR_TOO_EXPENSIVE : RENDER_ERR_NOMEM;
        return;
    }
    int n = rules_reach_count(r), max = 0;
    for (int i = 0; i < n; i++) {
        struct rules_reach_square sq;
        rules_reach_get(r, i, &sq);
        if (sq.cost_ft > max)
            max = sq.cost_ft;
    }
    bool labels = c->l.cell >= 22;
    for (int i = 0; i < n && charge(c, 1); i++) {
        struct rules_reach_square sq;
        rules_reach_get(r, i, &sq);
        if (!in_view(&c->l, sq.x, sq.y))
            continue;
        fill_cell(c, sq.x, sq.y, heat(sq.cost_ft, max), 0.62);
        double cx, cy;
        render_square_centre(&c->l, sq.x, sq.y, &cx, &cy);
        double h = c->l.cell / 2;
        if (sq.provoking_steps > 0) {
            double tri[6] = {cx - h + 1, cy - h + 1, cx - h * 0.35,
                             cy - h + 1, cx - h + 1, cy - h * 0.35};
            pen_polygon(&c->pen, tri, 3, C_AOO, 0.85, 0, 0, 0);
        }
        if (labels && sq.cost_ft > 0) {
            char t[16];
            snprintf(t, sizeof t, "%d", sq.cost_ft);
            pen_text(&c->pen, cx, cy + h * 0.84, c->l.cell * 0.25, false, 1, t, 0x444444, 0xffffff,
                     2);
        }
    }
    rules_reach_free(r);
}

static void draw_area(struct ctx *c)
{
    const struct render_overlays *ov = &c->s->ov;
    for (int i = 0; i < ov->area_len; i++) {
        if (!in_view(&c->l, ov->area[i].x, ov->area[i].y))
            continue;
        fill_cell(c, ov->area[i].x, ov->area[i].y, C_AREA, 0.33);
        double xy[12];
        int n = cell_polygon(&c->l, ov->area[i].x, ov->area[i].y, 0.08, xy);
        pen_polygon(&c->pen, xy, n, 0, 0, C_AREA, 0.9, 1.5);
    }
}

/* An arrowhead at (x1, y1) pointing away from (x0, y0). */
static void arrowhead(struct ctx *c, double x0, double y0, double x1, double y1, double size,
                      uint32_t rgb)
{
    double dx = x1 - x0, dy = y1 - y0, len = hypot(dx, dy);
    if (len < 1e-6)
        return;
    dx /= len, dy /= len;
    double tri[6] = {x1,
                     y1,
                     x1 - dx * size - dy * size * 0.55,
                     y1 - dy * size + dx * size * 0.55,
                     x1 - dx * size + dy * size * 0.55,
                     y1 - dy * size - dx * size * 0.55};
    pen_polygon(&c->pen, tri, 3, rgb, 1, 0, 0, 0);
}

/* Separating axes: whether segment (ax, ay)-(bx, by) crosses the convex polygon's inside. */
static bool segment_crosses(const double *poly, int n, double ax, double ay, double bx, double by)
{
    double axes[8][2];
    int na = 0;
    for (int i = 0; i < n && na < 7; i++) {
        int j = (i + 1) % n;
        axes[na][0] = -(poly[2 * j + 1] - poly[2 * i + 1]);
        axes[na++][1] = poly[2 * j] - poly[2 * i];
    }
    axes[na][0] = -(by - ay), axes[na++][1] = bx - ax;
    for (int k = 0; k < na; k++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int i = 0; i < n; i++) {
            double v = axes[k][0] * poly[2 * i] + axes[k][1] * poly[2 * i + 1];
            lo = fmin(lo, v), hi = fmax(hi, v);
        }
        double sa = axes[k][0] * ax + axes[k][1] * ay, sb = axes[k][0] * bx + axes[k][1] * by;
        if (fmax(sa, sb) <= lo || fmin(sa, sb) >= hi)
            return false;
    }
    return true;
}

/* Which creature stands on each square of the view (index + 1; 0: nobody). */
static int *occupancy(struct ctx *c)
{
    const struct render_layout *l = &c->l;
    int *occ = calloc((size_t)l->cols * (size_t)l->rows, sizeof *occ);
    if (occ == NULL) {
        c->rc = RENDER_ERR_NOMEM;
        return NULL;
    }
    for (int i = 0; i < c->s->creature_count; i++) {
        const struct rules_body *b = &c->s->creatures[i].mc.c.body;
        if (!body_in_view(c, b))
            continue;
        if (l->grid == RULES_GRID_HEX) {
            int xs[3], ys[3];
            int n = body_cells(c->s->o, b, xs, ys, 3);
            for (int k = 0; k < n; k++)
                if (in_view(l, xs[k], ys[k]))
                    occ[(size_t)(ys[k] - l->y0) * (size_t)l->cols + (size_t)(xs[k] - l->x0)] =
                        i + 1;
            continue;
        }
        for (int y = b->y; y < b->y + b->side; y++)
            for (int x = b->x; x < b->x + b->side; x++)
                if (in_view(l, x, y) && charge(c, 1))
                    occ[(size_t)(y - l->y0) * (size_t)l->cols + (size_t)(x - l->x0)] = i + 1;
    }
    return occ;
}

/* Lines from the centre of the attacker's space to the centre and corners of the target's,
 * and the squares in the way that they cross (see the top of this file). */
static void draw_cover(struct ctx *c)
{
    const struct render_scene *s = c->s;
    const struct render_layout *l = &c->l;
    int *occ = occupancy(c);
    if (occ == NULL)
        return;
    for (int p = 0; p < s->ov.cover_count && c->rc == RENDER_OK; p++) {
        int ai = s->ov.cover[p].attacker, ti = s->ov.cover[p].target;
        const struct rules_body *a = &s->creatures[ai].mc.c.body;
        const struct rules_body *t = &s->creatures[ti].mc.c.body;
        double ax, ay, ends[14][2];
        int ne = 0;
        body_centre(c, a, &ax, &ay);
        body_centre(c, t, &ends[0][0], &ends[0][1]);
        ne = 1;
        double xy[12];
        int tx[3], ty[3];
        body_cells(s->o, t, tx, ty, 3);
        if (l->grid == RULES_GRID_HEX) {
            int n = cell_polygon(l, tx[0], ty[0], 0, xy);
            for (int i = 0; i < n; i++)
                ends[ne][0] = xy[2 * i], ends[ne++][1] = xy[2 * i + 1];
        } else {
            double x0 = l->ox + (t->x - l->x0) * l->cell, y0 = l->oy + (t->y - l->y0) * l->cell;
            double w = t->side * l->cell;
            double corners[4][2] = {{x0, y0}, {x0 + w, y0}, {x0 + w, y0 + w}, {x0, y0 + w}};
            for (int i = 0; i < 4; i++)
                ends[ne][0] = corners[i][0], ends[ne++][1] = corners[i][1];
        }
        /* The squares between, in grid coordinates (axial coordinates are linear in the
         * picture, so a line's squares lie within its ends' range, plus one). */
        int ax0[3], ay0[3];
        body_cells(s->o, a, ax0, ay0, 3);
        int side_a = l->grid == RULES_GRID_HEX ? 1 : a->side;
        int side_t = l->grid == RULES_GRID_HEX ? 1 : t->side;
        int gx0 = (a->x < t->x ? a->x : t->x) - 1, gy0 = (a->y < t->y ? a->y : t->y) - 1;
        int gx1 = (a->x + side_a > t->x + side_t ? a->x + side_a : t->x + side_t) + 1;
        int gy1 = (a->y + side_a > t->y + side_t ? a->y + side_a : t->y + side_t) + 1;
        int crossed = 0;
        bool line_blocked[14] = {false};
        for (int y = gy0; y <= gy1 && c->rc == RENDER_OK; y++)
            for (int x = gx0; x <= gx1; x++) {
                if (!in_view(l, x, y) || !charge(c, ne))
                    continue;
                size_t k = (size_t)y * (size_t)s->map->width + (size_t)x;
                int who = occ[(size_t)(y - l->y0) * (size_t)l->cols + (size_t)(x - l->x0)] - 1;
                bool wall = s->map->terrain[k] == RULES_MAP_BLOCKED;
                if (!wall && (who < 0 || who == ai || who == ti))
                    continue;
                int n = cell_polygon(l, x, y, 0.03, xy);
                bool hit = false;
                for (int e = 0; e < ne; e++)
                    if (segment_crosses(xy, n, ax, ay, ends[e][0], ends[e][1]))
                        hit = line_blocked[e] = true;
                if (!hit)
                    continue;
                crossed++;
                int m = cell_polygon(l, x, y, 0.12, xy);
                pen_polygon(&c->pen, xy, m, 0, 0, C_COVER, 1, 2.5);
                double cx, cy, h = l->cell * 0.25;
                render_square_centre(l, x, y, &cx, &cy);
                double d1[4] = {cx - h, cy - h, cx + h, cy + h},
                       d2[4] = {cx - h, cy + h, cx + h, cy - h};
                pen_polyline(&c->pen, d1, 2, C_COVER, 1, 2, 0);
                pen_polyline(&c->pen, d2, 2, C_COVER, 1, 2, 0);
            }
        int blocked = 0;
        for (int e = 0; e < ne; e++) {
            double seg[4] = {ax, ay, ends[e][0], ends[e][1]};
            blocked += line_blocked[e];
            pen_polyline(&c->pen, seg, 2, C_COVER, e == 0 ? 1 : 0.75, e == 0 ? 2 : 1,
                         line_blocked[e] ? 4 : 0);
        }
        char text[48];
        snprintf(text, sizeof text, "%d/%d lines crossed", blocked, ne);
        double tx_, ty_;
        body_centre(c, t, &tx_, &ty_);
        pen_text(&c->pen, tx_, ty_ - t->side * l->cell * 0.5 - 4, 11, true, 1, text, C_COVER,
                 0xffffff, 3);
        (void)crossed;
    }
    free(occ);
}

/* Flanking lines, each pair once, from rules_flanking's own line (half-squares on a square
 * grid, the two hexes on a hex grid). With facing in force there are none: 000 and 003 replace
 * flanking by the areas. */
static void draw_flanking(struct ctx *c)
{
    const struct render_scene *s = c->s;
    int n = s->creature_count;
    struct rules_creature *allies = calloc((size_t)n + 1, sizeof *allies);
    int *ally_index = calloc((size_t)n + 1, sizeof *ally_index);
    int *attackers = calloc((size_t)n + 1, sizeof *attackers);
    struct rules_flank_ally *per = calloc((size_t)n + 1, sizeof *per);
    if (allies == NULL || ally_index == NULL || attackers == NULL || per == NULL) {
        c->rc = RENDER_ERR_NOMEM;
        goto out;
    }
    for (int t = 0; t < n && c->rc == RENDER_OK; t++) {
        const struct rules_creature *target = &s->creatures[t].mc.c;
        if (!body_in_view(c, &target->body) || !charge(c, n))
            continue;
        int na = 0;
        for (int a = 0; a < n; a++)
            if (a != t && hostile(s, a, t) && s->creatures[a].mc.conscious &&
                rules_threatens_creature(s->o, &s->creatures[a].mc.c, target))
                attackers[na++] = a;
        for (int i = 0; i < na && charge(c, na); i++) {
            int a = attackers[i], nal = 0;
            for (int j = 0; j < na; j++)
                if (attackers[j] != a && !hostile(s, attackers[j], a)) {
                    ally_index[nal] = attackers[j];
                    allies[nal++] = s->creatures[attackers[j]].mc.c;
                }
            if (nal == 0)
                continue;
            struct rules_flank_result fr;
            rules_flanking(s->o, &s->creatures[a].mc.c, target, allies, nal, per, &fr);
            if (!fr.flanked)
                continue;
            for (int k = 0; k < nal; k++) {
                if (per[k].how == RULES_FLANK_NONE || ally_index[k] < a)
                    continue; /* each pair once: from the lower index */
                double x0, y0, x1, y1;
                if (per[k].how == RULES_FLANK_INTERNAL) {
                    body_centre(c, &s->creatures[a].mc.c.body, &x0, &y0);
                    body_centre(c, &allies[k].body, &x1, &y1);
                } else if (c->l.grid == RULES_GRID_HEX) {
                    render_square_centre(&c->l, per[k].line.x0, per[k].line.y0, &x0, &y0);
                    render_square_centre(&c->l, per[k].line.x1, per[k].line.y1, &x1, &y1);
                } else {
                    x0 = c->l.ox + (per[k].line.x0 / 2.0 - c->l.x0) * c->l.cell;
                    y0 = c->l.oy + (per[k].line.y0 / 2.0 - c->l.y0) * c->l.cell;
                    x1 = c->l.ox + (per[k].line.x1 / 2.0 - c->l.x0) * c->l.cell;
                    y1 = c->l.oy + (per[k].line.y1 / 2.0 - c->l.y0) * c->l.cell;
                }
                double seg[4] = {x0, y0, x1, y1};
                double w = c->l.cell * 0.08 < 2 ? 2 : c->l.cell * 0.08;
                /* The line, its ends in the flankers' colour, and +2 at the target's corner. */
                pen_polyline(&c->pen, seg, 2, C_FLANK, 0.9, w, 0);
                uint32_t ends = side_colour(s->creatures[a].side);
                pen_circle(&c->pen, x0, y0, w * 1.5, ends, 1, C_FLANK, 1.5);
                pen_circle(&c->pen, x1, y1, w * 1.5, ends, 1, C_FLANK, 1.5);
                double tx, ty;
                body_centre(c, &target->body, &tx, &ty);
                double half = (c->l.grid == RULES_GRID_HEX ? 1 : target->body.side) * c->l.cell / 2;
                if (c->late_count < (int)(sizeof c->late / sizeof c->late[0]))
                    c->late[c->late_count].x = tx - half + 11,
                    c->late[c->late_count].y = ty - half + 13,
                    c->late[c->late_count++].rgb = C_FLANK;
            }
        }
    }
out:
    free(allies);
    free(ally_index);
    free(attackers);
    free(per);
}

/* The mover's path through rules_move_path: the line, each step's total in feet, illegal
 * steps, the squares where leaving provokes and the attacks of opportunity taken. */
static void draw_path(struct ctx *c)
{
    const struct render_scene *s = c->s;
    const struct render_overlays *ov = &s->ov;
    int n = ov->path_len;
    struct rules_path_result p = {0};
    p.steps = calloc((size_t)n + 1, sizeof *p.steps);
    p.aoos = calloc((size_t)c->other_count + 1, sizeof *p.aoos);
    double *xy = calloc(2 * ((size_t)n + 1), sizeof *xy);
    struct rules_move_query q = query_of(c);
    if (p.steps == NULL || p.aoos == NULL || xy == NULL ||
        rules_move_path(&q, ov->path, n, ov->path_end_facing, &p) != RULES_MOVE_OK) {
        c->rc = RENDER_ERR_NOMEM;
        goto out;
    }
    if (!charge(c, n))
        goto out;
    const struct rules_body *b = &s->creatures[s->mover].mc.c.body;
    body_centre(c, b, &xy[0], &xy[1]);
    for (int i = 0; i < n; i++)
        body_centre_at(c, b, ov->path[i].x, ov->path[i].y, &xy[2 * i + 2], &xy[2 * i + 3]);
    double w = c->l.cell * 0.09 < 2.5 ? 2.5 : c->l.cell * 0.09;
    for (int i = 0; i < n; i++) {
        bool bad = p.steps[i].violations != 0;
        pen_polyline(&c->pen, &xy[2 * i], 2, bad ? C_ILLEGAL : C_PATH, 0.9, w, bad ? w * 2 : 0);
    }
    if (n > 0)
        arrowhead(c, xy[2 * n - 2], xy[2 * n - 1], xy[2 * n], xy[2 * n + 1], w * 3.2,
                  p.steps[n - 1].violations ? C_ILLEGAL : C_PATH);
    for (int k = 0; k < p.aoo_count; k++) {
        double fx, fy, ax, ay;
        body_centre_at(c, b, p.aoos[k].from_x, p.aoos[k].from_y, &fx, &fy);
        pen_circle(&c->pen, fx, fy, c->l.cell * 0.42, 0, 0, C_AOO, w);
        int who = c->other_index[p.aoos[k].creature];
        body_centre(c, &s->creatures[who].mc.c.body, &ax, &ay);
        double dx = fx - ax, dy = fy - ay, len = hypot(dx, dy);
        double cut = c->l.cell * 0.44;
        if (len > 2 * cut) {
            double seg[4] = {ax + dx / len * cut, ay + dy / len * cut, fx - dx / len * cut,
                             fy - dy / len * cut};
            pen_polyline(&c->pen, seg, 2, C_AOO, 1, w * 0.8, w * 1.6);
            arrowhead(c, seg[0], seg[1], seg[2], seg[3], w * 3, C_AOO);
        }
    }
    if (c->l.cell >= 18) {
        for (int i = 0; i < n; i++) {
            char t[16];
            snprintf(t, sizeof t, "%d", p.steps[i].spent_ft);
            pen_text(&c->pen, xy[2 * i + 2], xy[2 * i + 3] - c->l.cell * 0.16,
                     c->l.cell * 0.3 < 10 ? 10 : c->l.cell * 0.3, true, 1, t,
                     p.steps[i].violations ? C_ILLEGAL : C_PATH, 0xffffff, 3);
        }
    }
out:
    free(p.steps);
    free(p.aoos);
    free(xy);
}

static void draw_forced(struct ctx *c)
{
    const struct render_scene *s = c->s;
    const struct render_overlays *ov = &s->ov;
    if (ov->forced_creature < 0 || ov->forced_len <= 0)
        return;
    const struct rules_body *b = &s->creatures[ov->forced_creature].mc.c.body;
    double px, py;
    body_centre(c, b, &px, &py);
    double w = c->l.cell * 0.08 < 2.5 ? 2.5 : c->l.cell * 0.08;
    for (int i = 0; i < ov->forced_len; i++) {
        double x, y;
        body_centre_at(c, b, ov->forced[i].x, ov->forced[i].y, &x, &y);
        double seg[4] = {px, py, x, y};
        pen_polyline(&c->pen, seg, 2, C_FORCED, 1, w, w * 1.5);
        arrowhead(c, px, py, x, y, w * 3.4, C_FORCED);
        px = x, py = y;
    }
    pen_circle(&c->pen, px, py, c->l.cell * 0.4 * (s->o->grid == RULES_GRID_HEX ? 1 : b->side), 0,
               0, C_FORCED, w);
}

/* --- creatures --- */

static void draw_creature(struct ctx *c, int i)
{
    const struct render_scene *s = c->s;
    const struct render_creature *k = &s->creatures[i];
    const struct rules_creature *cr = &k->mc.c;
    const struct render_layout *l = &c->l;
    if (!body_in_view(c, &cr->body))
        return;
    uint32_t col = side_colour(k->side);
    bool down = (k->conditions & (RENDER_COND_UNCONSCIOUS | RENDER_COND_DYING)) != 0;
    double alpha = down ? 0.5 : 1;
    double cx, cy;
    body_centre(c, &cr->body, &cx, &cy);
    int side = l->grid == RULES_GRID_HEX ? 1 : cr->body.side;
    double span = side * l->cell; /* the footprint's width */
    pen_group_begin(&c->pen, "creature-", k->id, i == s->mover ? "creature mover" : "creature");
    double r;
    if (l->grid == RULES_GRID_HEX && cr->body.tri > 0) {
        int q[3], rr[3];
        int n = rules_hex_members(&cr->body, q, rr);
        for (int h = 0; h < n; h++) {
            double xy[12];
            int m = cell_polygon(l, q[h], rr[h], 0.08, xy);
            pen_polygon(&c->pen, xy, m, col, 0.35 * alpha, col, alpha, 1.5);
        }
        r = l->cell * 0.45;
    } else if (side > 1) {
        /* A space larger than one square: the whole footprint, rounded. */
        double inset = l->cell * 0.08, x0 = cx - span / 2 + inset, y0 = cy - span / 2 + inset;
        double w = span - 2 * inset;
        double xy[8] = {x0, y0, x0 + w, y0, x0 + w, y0 + w, x0, y0 + w};
        pen_polygon(&c->pen, xy, 4, col, 0.35 * alpha, col, alpha, 2);
        r = span * 0.36;
    } else {
        /* One square or less: a disc the width of its space (001 Space and Reach). */
        double space = rules_size_info(cr->size)->space_in / 60.0;
        r = l->cell * 0.43 * (space < 1 ? (space < 0.3 ? 0.3 : space) : 1);
    }
    pen_circle(&c->pen, cx, cy, r, col, alpha, i == s->mover ? C_MOVER : 0xffffff,
               i == s->mover ? (r * 0.16 < 2.5 ? 2.5 : r * 0.16) : 1.5);
    if (rules_has_facing(s->o, cr)) {
        double ang = (s->o->grid == RULES_GRID_HEX ? 60.0 : 45.0) * cr->facing;
        if (s->o->grid == RULES_GRID_HEX && cr->body.tri > 0)
            ang += 30; /* a triangle's facing lies between two neighbour directions (facing.h) */
        double a = ang * PI / 180, dx = sin(a), dy = -cos(a);
        double tip = r + l->cell * 0.2, base = r * 0.86, half = r * 0.42;
        double tri[6] = {cx + dx * tip,
                         cy + dy * tip,
                         cx + dx * base - dy * half,
                         cy + dy * base + dx * half,
                         cx + dx * base + dy * half,
                         cy + dy * base - dx * half};
        pen_polygon(&c->pen, tri, 3, C_INK, 1, 0xffffff, 1, 1);
    }
    if (k->label != NULL && k->label[0] != '\0' && l->cell >= 12) {
        char t[RENDER_LABEL_MAX * 4 + 1];
        /* The first RENDER_LABEL_MAX characters, whole UTF-8 sequences. */
        size_t n = 0, chars = 0;
        while (k->label[n] != '\0' && chars < RENDER_LABEL_MAX && n < sizeof t - 4) {
            n++;
            while ((k->label[n] & 0xC0) == 0x80 && n < sizeof t - 1)
                n++;
            chars++;
        }
        memcpy(t, k->label, n);
        t[n] = '\0';
        double size = r * (chars <= 2 ? 0.95 : chars == 3 ? 0.72 : 0.58);
        pen_text(&c->pen, cx, cy + size * 0.36, size, true, 1, t, 0xffffff, C_INK, 2.2);
    }
    if (k->hp_known && k->max_hp > 0 && l->cell >= 10) {
        double frac = (double)k->hp / k->max_hp;
        frac = frac < 0 ? 0 : frac > 1 ? 1 : frac;
        double bw = span * 0.78, bh = l->cell * 0.11 < 3 ? 3 : l->cell * 0.11;
        double bx = cx - bw / 2, by = cy + span / 2 - bh - l->cell * 0.04;
        pen_fill_rect(&c->pen, bx - 1, by - 1, bw + 2, bh + 2, C_INK, 0.85);
        uint32_t hc = frac > 0.5 ? 0x3cc45a : frac > 0.25 ? 0xf2b705 : 0xe53935;
        pen_fill_rect(&c->pen, bx, by, bw * frac, bh, hc, 1);
    }
    double badge = l->cell * 0.17 < 5 ? 5 : l->cell * 0.17;
    double bx = cx + span / 2 - badge - 1, by = cy - span / 2 + badge + 1;
    for (int b = 0; b < 4 && l->cell >= 12; b++) {
        if (!(k->conditions & (1u << b)))
            continue;
        char t[2] = {cond_letters[b], '\0'};
        pen_circle(&c->pen, bx, by, badge, cond_colours[b], 1, 0xffffff, 1);
        pen_text(&c->pen, bx, by + badge * 0.45, badge * 1.25, true, 1, t, 0xffffff, 0, 0);
        bx -= badge * 2.1;
    }
    pen_group_end(&c->pen);
}

/* --- the legend, drawn --- */

static void draw_swatch(struct ctx *c, const struct render_legend_item *it, double x, double y)
{
    double sz = LEGEND_SWATCH, cx = x + sz / 2, cy = y + sz / 2;
    switch (it->kind) {
    case LEG_SIDE:
        pen_circle(&c->pen, cx, cy, sz * 0.45, side_colour(it->arg), 1, 0xffffff, 1);
        break;
    case LEG_MOVER:
        pen_circle(&c->pen, cx, cy, sz * 0.4, 0x999999, 1, C_MOVER, 2.5);
        break;
    case LEG_TERRAIN:
        pen_fill_rect(&c->pen, x, y, sz, sz,
                      it->arg == RULES_MAP_COUNT ? C_FLOOR : terrain_colour(it->arg), 1);
        terrain_mark(c, cx, cy, sz, it->arg == RULES_MAP_COUNT ? RULES_MAP_BLOCKED : it->arg,
                     it->arg == RULES_MAP_COUNT);
        break;
    case LEG_DARK:
        pen_fill_rect(&c->pen, x, y, sz, sz, C_FLOOR, 1);
        pen_fill_rect(&c->pen, x, y, sz, sz, C_DARK, 0.38);
        break;
    case LEG_HP:
        pen_fill_rect(&c->pen, x, cy - 3, sz, 6, C_INK, 0.85);
        pen_fill_rect(&c->pen, x + 1, cy - 2, sz * 0.6, 4, 0x3cc45a, 1);
        break;
    case LEG_FACING: {
        double tri[6] = {cx, y, x + sz * 0.85, y + sz, x + sz * 0.15, y + sz};
        pen_polygon(&c->pen, tri, 3, C_INK, 1, 0xffffff, 1, 1);
        break;
    }
    case LEG_COND: {
        char t[2] = {cond_letters[it->arg], '\0'};
        pen_circle(&c->pen, cx, cy, sz / 2, cond_colours[it->arg], 1, 0xffffff, 1);
        pen_text(&c->pen, cx, cy + 4, 10, true, 1, t, 0xffffff, 0, 0);
        break;
    }
    case LEG_THREAT: {
        pen_fill_rect(&c->pen, x, y, sz, sz, C_FLOOR, 1);
        pen_fill_rect(&c->pen, x, y, sz, sz, side_colour(it->arg), 0.26);
        double xy[8] = {x + 1.5,      y + 1.5,      x + sz - 1.5, y + 1.5,
                        x + sz - 1.5, y + sz - 1.5, x + 1.5,      y + sz - 1.5};
        pen_polygon(&c->pen, xy, 4, 0, 0, side_colour(it->arg), 0.85, 1.5);
        break;
    }
    case LEG_REACH:
        pen_fill_rect(&c->pen, x, y, sz / 3, sz, heat(0, 2), 0.8);
        pen_fill_rect(&c->pen, x + sz / 3, y, sz / 3, sz, heat(1, 2), 0.8);
        pen_fill_rect(&c->pen, x + 2 * sz / 3, y, sz / 3, sz, heat(2, 2), 0.8);
        break;
    case LEG_REACH_PROVOKES: {
        pen_fill_rect(&c->pen, x, y, sz, sz, heat(1, 2), 0.62);
        double tri[6] = {x, y, x + sz * 0.6, y, x, y + sz * 0.6};
        pen_polygon(&c->pen, tri, 3, C_AOO, 0.85, 0, 0, 0);
        break;
    }
    case LEG_PATH:
    case LEG_ILLEGAL: {
        bool bad = it->kind == LEG_ILLEGAL;
        double seg[4] = {x, cy, x + sz, cy};
        pen_polyline(&c->pen, seg, 2, bad ? C_ILLEGAL : C_PATH, 1, 2.5, bad ? 4 : 0);
        break;
    }
    case LEG_PROVOKE:
        pen_circle(&c->pen, cx, cy, sz * 0.42, 0, 0, C_AOO, 2.5);
        break;
    case LEG_AOO: {
        double seg[4] = {x, cy, x + sz - 3, cy};
        pen_polyline(&c->pen, seg, 2, C_AOO, 1, 2, 0);
        arrowhead(c, x, cy, x + sz, cy, 7, C_AOO);
        break;
    }
    case LEG_FLANKING: {
        double seg[4] = {x, cy, x + sz, cy};
        pen_polyline(&c->pen, seg, 2, C_FLANK, 1, 3, 0);
        break;
    }
    case LEG_COVER: {
        double seg[4] = {x, y + sz, x + sz, y};
        pen_polyline(&c->pen, seg, 2, C_COVER, 1, 2, 0);
        break;
    }
    case LEG_BLOCKING: {
        double xy[8] = {x + 1, y + 1, x + sz - 1, y + 1, x + sz - 1, y + sz - 1, x + 1, y + sz - 1};
        pen_polygon(&c->pen, xy, 4, 0, 0, C_COVER, 1, 2);
        double d1[4] = {x + 4, y + 4, x + sz - 4, y + sz - 4};
        double d2[4] = {x + 4, y + sz - 4, x + sz - 4, y + 4};
        pen_polyline(&c->pen, d1, 2, C_COVER, 1, 1.5, 0);
        pen_polyline(&c->pen, d2, 2, C_COVER, 1, 1.5, 0);
        break;
    }
    case LEG_AREA:
        pen_fill_rect(&c->pen, x, y, sz, sz, C_FLOOR, 1);
        pen_fill_rect(&c->pen, x, y, sz, sz, C_AREA, 0.33);
        break;
    case LEG_FORCED: {
        double seg[4] = {x, cy, x + sz - 4, cy};
        pen_polyline(&c->pen, seg, 2, C_FORCED, 1, 2.5, 0);
        arrowhead(c, x, cy, x + sz, cy, 7, C_FORCED);
        break;
    }
    case LEG_AREA_FRONT:
    case LEG_AREA_FLANK:
    case LEG_AREA_SIDE:
    case LEG_AREA_REAR: {
        uint32_t col = it->kind == LEG_AREA_FRONT  ? C_FRONT
                       : it->kind == LEG_AREA_REAR ? C_REAR
                                                   : C_SIDEAREA;
        pen_fill_rect(&c->pen, x, y, sz, sz, C_FLOOR, 1);
        pen_fill_rect(&c->pen, x, y, sz, sz, col, 0.32);
        break;
    }
    default:
        break;
    }
}

static void draw_legend(struct ctx *c)
{
    struct render_legend lg;
    render_legend_collect(c->s, &c->l, &lg);
    if (lg.count == 0)
        return;
    double xs[RENDER_LEGEND_MAX];
    int rows[RENDER_LEGEND_MAX];
    legend_flow(c->s, &lg, c->l.width, xs, rows);
    double top = c->l.board_height;
    double line[4] = {LEGEND_PAD, top + 1, c->l.width - LEGEND_PAD, top + 1};
    pen_polyline(&c->pen, line, 2, 0xdddddd, 1, 1, 0);
    pen_group_begin(&c->pen, NULL, NULL, "legend");
    for (int i = 0; i < lg.count; i++) {
        double x = xs[i], y = top + LEGEND_PAD + rows[i] * LEGEND_ROW;
        draw_swatch(c, &lg.items[i], x, y);
        char text[96];
        legend_text(c->s, &lg.items[i], text, sizeof text);
        pen_text(&c->pen, x + LEGEND_SWATCH + 6, y + 11.5, LEGEND_FONT, false, 0, text, C_INK, 0,
                 0);
    }
    pen_group_end(&c->pen);
}

/* --- the whole picture --- */

static int others_of(struct ctx *c)
{
    const struct render_scene *s = c->s;
    c->others = calloc((size_t)s->creature_count + 1, sizeof *c->others);
    c->other_index = calloc((size_t)s->creature_count + 1, sizeof *c->other_index);
    if (c->others == NULL || c->other_index == NULL)
        return RENDER_ERR_NOMEM;
    for (int i = 0; i < s->creature_count; i++) {
        if (i == s->mover)
            continue;
        c->others[c->other_count] = s->creatures[i].mc;
        c->others[c->other_count].ally = s->mover >= 0 && !hostile(s, i, s->mover);
        c->other_index[c->other_count++] = i;
    }
    return RENDER_OK;
}

int render_draw(const struct render_scene *s, enum render_format f, struct render_image *out)
{
    memset(out, 0, sizeof *out);
    struct ctx c = {.s = s, .rc = RENDER_OK};
    render_layout_of(s, &c.l);
    int rc = others_of(&c);
    if (rc == RENDER_OK)
        rc = pen_open(&c.pen, f, c.l.width, c.l.height);
    if (rc != RENDER_OK)
        goto out;
    pen_fill_rect(&c.pen, 0, 0, c.l.width, c.l.height, C_PAPER, 1);
    draw_numbers(&c);
    /* Everything on the board stays on it: a creature half out of a crop is cut at its edge. */
    pen_clip_begin(&c.pen, c.l.ox - 1, c.l.oy - 1, c.l.board_w + 2, c.l.board_h + 2);
    draw_ground(&c);
    const struct render_overlays *ov = &s->ov;
    bool moving = s->mover >= 0 && s->stats != NULL;
    if (c.rc == RENDER_OK)
        draw_facing_areas(&c);
    if (c.rc == RENDER_OK && ov->threatened)
        draw_threatened(&c, false);
    if (c.rc == RENDER_OK && ov->reach && moving)
        draw_reach(&c);
    if (c.rc == RENDER_OK && ov->threatened)
        draw_threatened(&c, true);
    if (c.rc == RENDER_OK && ov->area != NULL)
        draw_area(&c);
    if (c.rc == RENDER_OK)
        draw_grid(&c);
    if (c.rc == RENDER_OK && ov->cover != NULL)
        draw_cover(&c);
    if (c.rc == RENDER_OK && ov->flanking)
        draw_flanking(&c);
    if (c.rc == RENDER_OK && ov->path != NULL && moving)
        draw_path(&c);
    if (c.rc == RENDER_OK && ov->forced != NULL)
        draw_forced(&c);
    for (int i = 0; i < s->creature_count && c.rc == RENDER_OK; i++)
        if (charge(&c, 1))
            draw_creature(&c, i);
    for (int i = 0; i < c.late_count; i++)
        pen_text(&c.pen, c.late[i].x, c.late[i].y, 13, true, 1, "+2", c.late[i].rgb, 0xffffff, 3);
    pen_clip_end(&c.pen);
    if (c.rc == RENDER_OK && ov->legend)
        draw_legend(&c);
    if (c.rc != RENDER_OK) {
        rc = c.rc;
        pen_abandon(&c.pen);
        goto out;
    }
    rc = pen_close(&c.pen, out);
    out->layout = c.l;
out:
    free(c.others);
    free(c.other_index);
    return rc;
}

void render_image_free(struct render_image *img)
{
    free(img->data);
    img->data = NULL;
    img->len = 0;
}
