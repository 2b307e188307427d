/* The legend: which marks a picture shows (collected from the scene and its view), how
 * much room they take, and drawing them under the board. */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_internal.h"
#include "text/text.h"

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
    LEG_COVER,    /* the ruled lines */
    LEG_BLOCKING, /* a square that gives cover */
    LEG_CONCEALING,
    LEG_COVER_GM, /* lines for the GM to judge */
    LEG_IN_THE_WAY,
    LEG_AREA,
    LEG_FORCED,
    LEG_HIT,
    LEG_MISS,
    LEG_CHARGE,
    LEG_AREA_FRONT,
    LEG_AREA_FLANK,
    LEG_AREA_SIDE,
    LEG_AREA_REAR,
};

static const char *const cond_names[RENDER_COND_COUNT] = {
    "prone", "flat-footed", "dying", "unconscious", "dead", "disabled", "stunned", "stable"};

/* --- the legend --- */

static void legend_add(struct render_legend *lg, int kind, int arg)
{
    assert(lg->count >= 0 && lg->count <= RENDER_LEGEND_MAX);
    for (int i = 0; i < lg->count; i++)
        if (lg->items[i].kind == kind && lg->items[i].arg == arg)
            return;
    if (lg->count < RENDER_LEGEND_MAX)
        lg->items[lg->count++] = (struct render_legend_item){kind, arg};
}

/* Room for a legend item's text: "threatened by " and a side's name (64 characters). */
#define LEGEND_TEXT 320

static void legend_text(const struct render_scene *s, const struct render_legend_item *it,
                        char *out, size_t n)
{
    static const char *const terrain[] = {"clear",     "difficult", "impeded", "wall",
                                          "hazardous", "water",     "air",     "earth"};
    switch (it->kind) {
    case LEG_SIDE: /* a side's name, in any script: cut, if at all, where a character ends */
        text_copy(out, n,
                  it->arg < s->side_count && s->side_names ? s->side_names[it->arg] : "side",
                  SIZE_MAX);
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
        snprintf(out, n, "threatened by ");
        text_copy(out + strlen(out), n - strlen(out),
                  it->arg < s->side_count && s->side_names ? s->side_names[it->arg] : "side",
                  SIZE_MAX);
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
        snprintf(out, n, "corner-to-corner line (dashed: blocked)");
        break;
    case LEG_BLOCKING:
        snprintf(out, n, "gives cover");
        break;
    case LEG_CONCEALING:
        snprintf(out, n, "gives concealment");
        break;
    case LEG_COVER_GM:
        snprintf(out, n, "line to target (cover: GM's judgment)");
        break;
    case LEG_IN_THE_WAY:
        snprintf(out, n, "in the way");
        break;
    case LEG_AREA:
        snprintf(out, n, "area");
        break;
    case LEG_FORCED:
        snprintf(out, n, "forced movement");
        break;
    case LEG_HIT:
        snprintf(out, n, "attack: hit");
        break;
    case LEG_MISS:
        snprintf(out, n, "attack: missed");
        break;
    case LEG_CHARGE:
        snprintf(out, n, "charged at");
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

/* Text widths for the legend's layout come from a fixed advance per column, wider than DejaVu
 * Sans's average at this size, so the layout needs no font and never overflows: a side's name
 * in any script counts its characters' columns (text.h: 2 for CJK and emoji, 0 for a
 * combining mark), not its bytes. */
static double legend_item_width(const struct render_scene *s, const struct render_legend_item *it)
{
    char text[LEGEND_TEXT];
    legend_text(s, it, text, sizeof text);
    return LEGEND_SWATCH + 6 + 7.4 * (double)text_columns(text, strlen(text)) + 16;
}

/* Lays the items out in rows; writes each item's position when xs is not NULL. Returns rows. */
static int legend_flow(const struct render_scene *s, const struct render_legend *lg, int width,
                       double *xs, int *row, double *ws)
{
    double x = LEGEND_PAD;
    int r = 0;
    for (int i = 0; i < lg->count; i++) {
        double w = legend_item_width(s, &lg->items[i]);
        if (x > LEGEND_PAD && x + w > width - LEGEND_PAD)
            x = LEGEND_PAD, r++;
        if (xs != NULL)
            xs[i] = x, row[i] = r, ws[i] = w;
        x += w;
    }
    return lg->count > 0 ? r + 1 : 0;
}

int render_legend_height(const struct render_scene *s, const struct render_legend *lg, int width)
{
    int rows = legend_flow(s, lg, width, NULL, NULL, NULL);
    return rows > 0 ? LEGEND_PAD + rows * LEGEND_ROW + LEGEND_PAD / 2 : 0;
}

int render_legend_height_estimate(const struct render_scene *s,
                                  const struct render_cover_ruling *cover, int width)
{
    struct render_legend lg;
    render_legend_collect(s, cover, NULL, NULL, &lg);
    return render_legend_height(s, &lg, width);
}

void render_legend_collect(const struct render_scene *s, const struct render_cover_ruling *cover,
                           const struct render_layout *l, const struct render_marks *marks,
                           struct render_legend *out)
{
    out->count = 0;
    const struct render_overlays *ov = &s->ov;
    int mw = s->map->width, mh = s->map->height;
    int x0 = l ? l->x0 : 0, y0 = l ? l->y0 : 0;
    int x1 = l ? l->x0 + l->cols : mw, y1 = l ? l->y0 + l->rows : mh;
    /* The creatures drawn: those in the view (everyone, with no view yet). */
    struct render_ctx view = {.s = s};
    if (l != NULL)
        view.l = *l;
    bool seen_side[RENDER_SIDE_COLOURS * 8] = {false};
    for (int i = 0; i < s->creature_count; i++) {
        const struct render_creature *k = &s->creatures[i];
        if (l != NULL && !render_body_in_view(&view, &k->mc.c.body))
            continue;
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
        if (l != NULL && !render_body_in_view(&view, &s->creatures[i].mc.c.body))
            continue;
        /* Marks and hit point bars are drawn on cells of 12 and 10 pixels or more. */
        conds |= l == NULL || l->cell >= 12 ? s->creatures[i].conditions : 0;
        hp |= s->creatures[i].hp_known && (l == NULL || l->cell >= 10);
        facing |= rules_has_facing(s->o, &s->creatures[i].mc.c);
    }
    if (hp)
        legend_add(out, LEG_HP, 0);
    if (facing)
        legend_add(out, LEG_FACING, 0);
    for (int b = 0; b < RENDER_COND_COUNT; b++)
        if (conds & (1u << b))
            legend_add(out, LEG_COND, b);
    if (ov->facing_of >= 0 && rules_has_facing(s->o, &s->creatures[ov->facing_of].mc.c)) {
        legend_add(out, LEG_AREA_FRONT, 0);
        legend_add(out, s->o->facing == RULES_FACING_003 ? LEG_AREA_SIDE : LEG_AREA_FLANK, 0);
        legend_add(out, LEG_AREA_REAR, 0);
    }
    if (ov->threatened)
        for (int i = 0; i < s->creature_count; i++)
            if (s->mover < 0 || render_hostile(s, i, s->mover))
                legend_add(out, LEG_THREAT, s->creatures[i].side);
    if (ov->reach && s->mover >= 0) {
        legend_add(out, LEG_REACH, 0);
        legend_add(out, LEG_REACH_PROVOKES, 0);
    }
    if (ov->area != NULL)
        legend_add(out, LEG_AREA, 0);
    for (int p = 0; cover != NULL && p < ov->cover_count; p++) {
        const struct rules_sight *sight = &cover[p].sight;
        if (cover[p].rc != RULES_COVER_OK) {
            legend_add(out, LEG_COVER_GM, 0);
            legend_add(out, LEG_IN_THE_WAY, 0);
            continue;
        }
        legend_add(out, LEG_COVER, 0);
        if (sight->blocking_count > 0)
            legend_add(out, LEG_BLOCKING, 0);
        if (sight->concealing_count > 0)
            legend_add(out, LEG_CONCEALING, 0);
    }
    /* The flanking lines and the path's marks as ruled (render_rule_marks), else all that the
     * overlays may draw. */
    bool ruled = marks != NULL && marks->ruled;
    if (ov->flanking && (!ruled || marks->flank_lines > 0))
        legend_add(out, LEG_FLANKING, 0);
    if (ov->path != NULL && s->mover >= 0 && (!ruled || marks->path_steps > 0)) {
        legend_add(out, LEG_PATH, 0);
        if (!ruled || marks->path_aoos > 0) {
            legend_add(out, LEG_PROVOKE, 0);
            legend_add(out, LEG_AOO, 0);
        }
        if (!ruled || marks->path_illegal)
            legend_add(out, LEG_ILLEGAL, 0);
    }
    if (ov->forced != NULL && ov->forced_creature >= 0 && ov->forced_len > 0)
        legend_add(out, LEG_FORCED, 0);
    for (int i = 0; ov->strikes != NULL && i < ov->strike_count; i++)
        legend_add(out,
                   ov->strikes[i].outcome == RENDER_STRIKE_HIT    ? LEG_HIT
                   : ov->strikes[i].outcome == RENDER_STRIKE_MISS ? LEG_MISS
                                                                  : LEG_CHARGE,
                   0);
}

/* --- the legend, drawn --- */

/* A token's swatch: a side, the mover, a terrain, darkness, hit points, facing, a condition. */
static void swatch_token(struct render_ctx *c, const struct render_legend_item *it, double x,
                         double y)
{
    double sz = LEGEND_SWATCH, cx = x + sz / 2, cy = y + sz / 2;
    switch (it->kind) {
    case LEG_SIDE:
        pen_circle(&c->pen, cx, cy, sz * 0.45, render_side_colour(it->arg), 1, 0xffffff, 1);
        break;
    case LEG_MOVER:
        pen_circle(&c->pen, cx, cy, sz * 0.4, 0x999999, 1, C_MOVER, 2.5);
        break;
    case LEG_TERRAIN:
        assert(it->arg >= 0 && it->arg <= RULES_MAP_COUNT); /* a terrain, or a pillar */
        pen_fill_rect(&c->pen, x, y, sz, sz,
                      it->arg == RULES_MAP_COUNT ? C_FLOOR : render_terrain_colour(it->arg), 1);
        render_terrain_mark(c, cx, cy, sz, it->arg == RULES_MAP_COUNT ? RULES_MAP_BLOCKED : it->arg,
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
        assert(it->arg >= 0 && it->arg < RENDER_COND_COUNT); /* its table index */
        char t[2] = {render_cond_letters[it->arg], '\0'};
        pen_circle(&c->pen, cx, cy, sz / 2, render_cond_colours[it->arg], 1, 0xffffff, 1);
        pen_text(&c->pen, cx, cy + 4, 10, true, 1, t, 0xffffff, 0, 0);
        break;
    }
    default:
        assert(0 && "a legend item of another group");
        break;
    }
}

/* An area's swatch: threatened squares, reach, an area, facing areas. */
static void swatch_area(struct render_ctx *c, const struct render_legend_item *it, double x,
                        double y)
{
    double sz = LEGEND_SWATCH;
    switch (it->kind) {
    case LEG_THREAT: {
        pen_fill_rect(&c->pen, x, y, sz, sz, C_FLOOR, 1);
        pen_fill_rect(&c->pen, x, y, sz, sz, render_side_colour(it->arg), 0.26);
        double xy[8] = {x + 1.5,      y + 1.5,      x + sz - 1.5, y + 1.5,
                        x + sz - 1.5, y + sz - 1.5, x + 1.5,      y + sz - 1.5};
        pen_polygon(&c->pen, xy, 4, 0, 0, render_side_colour(it->arg), 0.85, 1.5);
        break;
    }
    case LEG_REACH:
        pen_fill_rect(&c->pen, x, y, sz / 3, sz, render_heat(0, 2), 0.8);
        pen_fill_rect(&c->pen, x + sz / 3, y, sz / 3, sz, render_heat(1, 2), 0.8);
        pen_fill_rect(&c->pen, x + 2 * sz / 3, y, sz / 3, sz, render_heat(2, 2), 0.8);
        break;
    case LEG_REACH_PROVOKES: {
        pen_fill_rect(&c->pen, x, y, sz, sz, render_heat(1, 2), 0.62);
        double tri[6] = {x, y, x + sz * 0.6, y, x, y + sz * 0.6};
        pen_polygon(&c->pen, tri, 3, C_AOO, 0.85, 0, 0, 0);
        break;
    }
    case LEG_AREA:
        pen_fill_rect(&c->pen, x, y, sz, sz, C_FLOOR, 1);
        pen_fill_rect(&c->pen, x, y, sz, sz, C_AREA, 0.33);
        break;
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
        assert(0 && "a legend item of another group");
        break;
    }
}

/* A line's swatch: a path, a provoking step, an attack of opportunity, flanking, a forced move, a
 * strike. */
static void swatch_line(struct render_ctx *c, const struct render_legend_item *it, double x,
                        double y)
{
    double sz = LEGEND_SWATCH, cx = x + sz / 2, cy = y + sz / 2;
    switch (it->kind) {
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
        render_arrowhead(c, x, cy, x + sz, cy, 7, C_AOO);
        break;
    }
    case LEG_FLANKING: {
        double seg[4] = {x, cy, x + sz, cy};
        pen_polyline(&c->pen, seg, 2, C_FLANK, 1, 3, 0);
        break;
    }
    case LEG_FORCED: {
        double seg[4] = {x, cy, x + sz - 4, cy};
        pen_polyline(&c->pen, seg, 2, C_FORCED, 1, 2.5, 0);
        render_arrowhead(c, x, cy, x + sz, cy, 7, C_FORCED);
        break;
    }
    case LEG_HIT:
    case LEG_MISS:
    case LEG_CHARGE: {
        uint32_t rgb = it->kind == LEG_HIT ? C_HIT : it->kind == LEG_MISS ? C_MISS : C_CHARGE;
        double seg[4] = {x, cy, x + sz - 4, cy};
        pen_polyline(&c->pen, seg, 2, rgb, 1, 2.5,
                     it->kind == LEG_HIT    ? 0
                     : it->kind == LEG_MISS ? 4
                                            : 2);
        render_arrowhead(c, x, cy, x + sz, cy, 7, rgb);
        break;
    }
    default:
        assert(0 && "a legend item of another group");
        break;
    }
}

/* A line of sight's swatch: cover, concealment, what blocks or is in the way. */
static void swatch_sight(struct render_ctx *c, const struct render_legend_item *it, double x,
                         double y)
{
    double sz = LEGEND_SWATCH, cx = x + sz / 2, cy = y + sz / 2;
    switch (it->kind) {
    case LEG_COVER: {
        double seg[4] = {x, y + sz, x + sz, y}, dashed[4] = {x + 5, y + sz, x + sz, y + 5};
        pen_circle(&c->pen, x, y + sz, 3, C_COVER, 1, 0xffffff, 1);
        pen_polyline(&c->pen, seg, 2, C_COVER, 1, 1.5, 0);
        pen_polyline(&c->pen, dashed, 2, C_COVER, 1, 1.5, 3);
        break;
    }
    case LEG_COVER_GM: {
        double seg[4] = {x, y + sz, x + sz, y};
        pen_polyline(&c->pen, seg, 2, C_COVER, 1, 2, 0);
        break;
    }
    case LEG_CONCEALING: {
        double xy[8] = {x + 1, y + 1, x + sz - 1, y + 1, x + sz - 1, y + sz - 1, x + 1, y + sz - 1};
        for (int i = 0; i < 4; i++) {
            int j = (i + 1) % 4;
            double seg[4] = {xy[2 * i], xy[2 * i + 1], xy[2 * j], xy[2 * j + 1]};
            pen_polyline(&c->pen, seg, 2, C_CONCEAL, 1, 2, 3);
        }
        pen_circle(&c->pen, cx, cy, 2.5, 0, 0, C_CONCEAL, 1.5);
        break;
    }
    case LEG_BLOCKING:
    case LEG_IN_THE_WAY: {
        double xy[8] = {x + 1, y + 1, x + sz - 1, y + 1, x + sz - 1, y + sz - 1, x + 1, y + sz - 1};
        pen_polygon(&c->pen, xy, 4, 0, 0, C_COVER, 1, 2);
        double d1[4] = {x + 4, y + 4, x + sz - 4, y + sz - 4};
        double d2[4] = {x + 4, y + sz - 4, x + sz - 4, y + 4};
        pen_polyline(&c->pen, d1, 2, C_COVER, 1, 1.5, 0);
        pen_polyline(&c->pen, d2, 2, C_COVER, 1, 1.5, 0);
        break;
    }
    default:
        assert(0 && "a legend item of another group");
        break;
    }
}

static void draw_swatch(struct render_ctx *c, const struct render_legend_item *it, double x,
                        double y)
{
    switch (it->kind) {
    case LEG_SIDE:
    case LEG_MOVER:
    case LEG_TERRAIN:
    case LEG_DARK:
    case LEG_HP:
    case LEG_FACING:
    case LEG_COND:
        swatch_token(c, it, x, y);
        break;
    case LEG_THREAT:
    case LEG_REACH:
    case LEG_REACH_PROVOKES:
    case LEG_AREA:
    case LEG_AREA_FRONT:
    case LEG_AREA_FLANK:
    case LEG_AREA_SIDE:
    case LEG_AREA_REAR:
        swatch_area(c, it, x, y);
        break;
    case LEG_PATH:
    case LEG_ILLEGAL:
    case LEG_PROVOKE:
    case LEG_AOO:
    case LEG_FLANKING:
    case LEG_FORCED:
    case LEG_HIT:
    case LEG_MISS:
    case LEG_CHARGE:
        swatch_line(c, it, x, y);
        break;
    case LEG_COVER:
    case LEG_COVER_GM:
    case LEG_CONCEALING:
    case LEG_BLOCKING:
    case LEG_IN_THE_WAY:
        swatch_sight(c, it, x, y);
        break;
    default:
        break;
    }
}

void render_draw_legend(struct render_ctx *c)
{
    struct render_legend lg;
    render_legend_collect(c->s, c->cover, &c->l, &c->marks, &lg);
    if (lg.count == 0)
        return;
    double xs[RENDER_LEGEND_MAX], ws[RENDER_LEGEND_MAX];
    int rows[RENDER_LEGEND_MAX];
    legend_flow(c->s, &lg, c->l.width, xs, rows, ws);
    double top = c->l.board_height;
    double line[4] = {LEGEND_PAD, top + 1, c->l.width - LEGEND_PAD, top + 1};
    pen_polyline(&c->pen, line, 2, 0xdddddd, 1, 1, 0);
    /* On SVG each item is a group telling where it was flowed and how wide it is, and the
     * legend how it flows (its top, its padding from either edge, its rows' height), so that a
     * page showing the board narrower than drawn can flow the legend again at its own width, as
     * /play does at phone width. */
    bool svg = c->pen.format == RENDER_SVG;
    char num[3][32] = {"", "", ""};
    if (svg) {
        snprintf(num[0], sizeof num[0], "%.0f", top);
        snprintf(num[1], sizeof num[1], "%d", LEGEND_PAD);
        snprintf(num[2], sizeof num[2], "%d", LEGEND_ROW);
    }
    pen_group_begin_data(&c->pen, "legend", 3, (const char *const[]){"top", "pad", "row"},
                         (const char *const[]){num[0], num[1], num[2]});
    for (int i = 0; i < lg.count; i++) {
        double x = xs[i], y = top + LEGEND_PAD + rows[i] * LEGEND_ROW;
        if (svg) {
            snprintf(num[0], sizeof num[0], "%.1f", x);
            snprintf(num[1], sizeof num[1], "%.1f", y);
            snprintf(num[2], sizeof num[2], "%.1f", ws[i]);
        }
        pen_group_begin_data(&c->pen, "legend-item", 3, (const char *const[]){"x", "y", "w"},
                             (const char *const[]){num[0], num[1], num[2]});
        draw_swatch(c, &lg.items[i], x, y);
        char text[LEGEND_TEXT];
        legend_text(c->s, &lg.items[i], text, sizeof text);
        pen_text(&c->pen, x + LEGEND_SWATCH + 6, y + 11.5, LEGEND_FONT, false, 0, text, C_INK, 0,
                 0);
        pen_group_end(&c->pen);
    }
    pen_group_end(&c->pen);
}
