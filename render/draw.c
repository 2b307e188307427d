/* Drawing a scene: the board, terrain, overlays, creatures, flanking lines and the legend, in
 * that order, so that marks lie over the ground they describe and creatures over every mark but
 * the flanking lines, which tokens would hide. This file holds
 * the whole picture (render_draw) and the geometry every layer shares; the layers live in
 * draw_board.c, draw_overlays.c, draw_creatures.c and legend.c.
 *
 * Every fact drawn comes from rules/: footprints (rules_body_squares), threatened
 * squares (rules_threatens_square), facing areas (rules_facing_area), the reach search
 * (rules_move_reach), a path's price and its attacks of opportunity (rules_move_path) and
 * flanking (rules_flanking). */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_internal.h"

#define SQRT3 1.7320508075688772

/* Colours (0xRRGGBB). Sides: blue, red, green, orange, purple, teal. */
static const uint32_t side_colours[RENDER_SIDE_COLOURS] = {0x2f6fd6, 0xd23a2f, 0x2e9e4f,
                                                           0xe08a1e, 0x8a4fc7, 0x1f9e9e};

uint32_t render_side_colour(int side)
{
    return side_colours[(side < 0 ? 0 : side) % RENDER_SIDE_COLOURS];
}

/* Charges n units of work; false once the budget has run out. */
bool render_charge(struct render_ctx *c, long long n)
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

bool render_in_view(const struct render_layout *l, int x, int y)
{
    return x >= l->x0 && y >= l->y0 && x < l->x0 + l->cols && y < l->y0 + l->rows;
}

/* The corners of a square or hex, clockwise: 4 or 6 points into xy. */
int render_cell_polygon(const struct render_layout *l, int x, int y, double shrink, double *xy)
{
    assert(xy != NULL && (l->grid == RULES_GRID_SQUARE || l->grid == RULES_GRID_HEX));
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

void render_fill_cell(struct render_ctx *c, int x, int y, uint32_t rgb, double a)
{
    if (c->l.grid == RULES_GRID_SQUARE) {
        double px = c->l.ox + (x - c->l.x0) * c->l.cell, py = c->l.oy + (y - c->l.y0) * c->l.cell;
        pen_fill_rect(&c->pen, px, py, c->l.cell, c->l.cell, rgb, a);
        return;
    }
    double xy[12];
    int n = render_cell_polygon(&c->l, x, y, 0, xy);
    pen_polygon(&c->pen, xy, n, rgb, a, 0, 0, 0);
}

/* The pixel centre of a body: the middle of its space, or of its three hexes. */
void render_body_centre(const struct render_ctx *c, const struct rules_body *b, double *px,
                        double *py)
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
void render_body_centre_at(const struct render_ctx *c, const struct rules_body *b, int x, int y,
                           double *px, double *py)
{
    struct rules_body moved = *b;
    moved.x = x, moved.y = y;
    render_body_centre(c, &moved, px, py);
}

bool render_body_in_view(const struct render_ctx *c, const struct rules_body *b)
{
    int xs[3], ys[3];
    if (c->l.grid == RULES_GRID_HEX) {
        int n = rules_body_squares(c->s->o, b, xs, ys, 3);
        for (int i = 0; i < n; i++)
            if (render_in_view(&c->l, xs[i], ys[i]))
                return true;
        return false;
    }
    return b->x < c->l.x0 + c->l.cols && b->y < c->l.y0 + c->l.rows && b->x + b->side > c->l.x0 &&
           b->y + b->side > c->l.y0;
}

bool render_hostile(const struct render_scene *s, int a, int b)
{
    assert(a >= 0 && a < s->creature_count && b >= 0 && b < s->creature_count);
    return s->creatures[a].side != s->creatures[b].side;
}

/* --- the whole picture --- */

struct rules_move_query render_move_query(const struct render_ctx *c)
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

static int others_of(struct render_ctx *c)
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
        c->others[c->other_count].ally = s->mover >= 0 && !render_hostile(s, i, s->mover);
        c->other_index[c->other_count++] = i;
    }
    return RENDER_OK;
}

/* Whether creature i's threatened squares are drawn: conscious, and hostile to the mover
 * (everyone, with no mover). */
bool render_threat_drawn(const struct render_scene *s, int i)
{
    return i != s->mover && (s->mover < 0 || render_hostile(s, i, s->mover)) &&
           s->creatures[i].threatens;
}

/* The squares creature i's threatened overlay looks at: [x0, x1) x [y0, y1). */
void render_threat_box(const struct render_scene *s, int i, int *x0, int *y0, int *x1, int *y1)
{
    assert(i >= 0 && i < s->creature_count);
    const struct rules_creature *cr = &s->creatures[i].mc.c;
    int range = cr->reach_ft / 5 + 1;
    int side = s->o->grid == RULES_GRID_HEX ? 2 : cr->body.side;
    *x0 = cr->body.x - range, *y0 = cr->body.y - range;
    *x1 = cr->body.x + side + range, *y1 = cr->body.y + side + range;
}

static long long overlap(int a0, int a1, int b0, int b1)
{
    int lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
    return hi > lo ? hi - lo : 0;
}

/* The squares the threatened overlay tests within [vx0, vx1) x [vy0, vy1). */
static long long threat_tests(const struct render_scene *s, int vx0, int vy0, int vx1, int vy1)
{
    long long n = 0;
    for (int i = 0; s->ov.threatened && i < s->creature_count; i++) {
        if (!render_threat_drawn(s, i))
            continue;
        int x0, y0, x1, y1;
        render_threat_box(s, i, &x0, &y0, &x1, &y1);
        n += overlap(x0, x1, vx0, vx1) * overlap(y0, y1, vy0, vy1);
    }
    return n;
}

int render_estimate(const struct render_scene *s, enum render_format f, struct render_estimate *out)
{
    /* The view as render_draw lays it out (the cover rulings change only the legend's height,
     * and so at most a few rows of the view). */
    struct render_layout l;
    render_layout_of(s, NULL, &l);
    out->width = l.width, out->height = l.height;
    out->canvas_pixels = f == RENDER_PNG ? (long long)l.width * l.height : 0;
    out->threat_tests = threat_tests(s, l.x0, l.y0, l.x0 + l.cols, l.y0 + l.rows);
    out->search_states = 0;
    if (!s->ov.reach || s->mover < 0 || s->stats == NULL)
        return RENDER_OK;
    struct render_ctx c = {.s = s};
    int rc = others_of(&c);
    if (rc == RENDER_OK) {
        struct rules_move_query q = render_move_query(&c);
        struct rules_move_estimate m;
        rules_move_reach_estimate(&q, s->ov.reach_fewest_aoo, &m);
        out->search_states = m.states * (1 + m.expand_units);
        out->threat_tests += m.threat_tests;
    }
    free(c.others);
    free(c.other_index);
    return rc;
}

/* Charges the threatened overlay's tests within the view before any; false when they are past
 * the budget. */
static bool charge_threat_tests(struct render_ctx *c)
{
    struct rules_work *w = c->s->work;
    if (w == NULL || !c->s->ov.threatened)
        return true;
    w->threat_used +=
        threat_tests(c->s, c->l.x0, c->l.y0, c->l.x0 + c->l.cols, c->l.y0 + c->l.rows);
    return w->threat_limit <= 0 || w->threat_used <= w->threat_limit;
}

int render_draw(const struct render_scene *s, enum render_format f, struct render_image *out)
{
    memset(out, 0, sizeof *out);
    struct render_ctx c = {.s = s, .rc = RENDER_OK};
    int rc = render_cover_rule(s, &c.cover);
    if (rc != RENDER_OK)
        goto out;
    render_layout_of(s, c.cover, &c.l);
    /* What is known before drawing is charged before drawing: the overlay's threat tests, then
     * (pen_open) the canvas. */
    if (!charge_threat_tests(&c)) {
        rc = RENDER_ERR_TOO_EXPENSIVE;
        goto out;
    }
    rc = others_of(&c);
    if (rc == RENDER_OK)
        rc = render_rule_marks(&c); /* what the legend lists, and so the picture's height */
    if (rc == RENDER_OK)
        rc = pen_open(&c.pen, f, c.l.width, c.l.height, s->budget);
    if (rc != RENDER_OK)
        goto out;
    pen_fill_rect(&c.pen, 0, 0, c.l.width, c.l.height, C_PAPER, 1);
    render_draw_numbers(&c);
    /* Everything on the board stays on it: a creature half out of a crop is cut at its edge. */
    pen_clip_begin(&c.pen, c.l.ox - 1, c.l.oy - 1, c.l.board_w + 2, c.l.board_h + 2);
    render_draw_ground(&c);
    const struct render_overlays *ov = &s->ov;
    bool moving = s->mover >= 0 && s->stats != NULL;
    if (c.rc == RENDER_OK)
        render_draw_facing_areas(&c);
    if (c.rc == RENDER_OK && ov->threatened)
        render_draw_threatened(&c, false);
    if (c.rc == RENDER_OK && ov->reach && moving)
        render_draw_reach(&c);
    if (c.rc == RENDER_OK && ov->threatened)
        render_draw_threatened(&c, true);
    if (c.rc == RENDER_OK && ov->area != NULL)
        render_draw_area(&c);
    if (c.rc == RENDER_OK)
        render_draw_grid(&c);
    if (c.rc == RENDER_OK && c.cover != NULL)
        render_draw_cover(&c);
    if (c.rc == RENDER_OK && ov->path != NULL && moving)
        render_draw_path(&c);
    if (c.rc == RENDER_OK && ov->forced != NULL)
        render_draw_forced(&c);
    /* Under the tokens, which the strikes stop at: a condition badge on a token's edge stays
     * readable over an arrowhead. */
    if (c.rc == RENDER_OK && ov->strikes != NULL)
        render_draw_strikes(&c, false);
    for (int i = 0; i < s->creature_count && c.rc == RENDER_OK; i++)
        if (render_charge(&c, 1))
            render_draw_creature(&c, i);
    if (c.rc == RENDER_OK && ov->flanking)
        render_draw_flanking(&c);
    if (c.rc == RENDER_OK && ov->strikes != NULL)
        render_draw_strikes(&c, true);
    for (int i = 0; i < c.late_count; i++)
        pen_text(&c.pen, c.late[i].x, c.late[i].y, 13, true, 1, "+2", c.late[i].rgb, 0xffffff, 3);
    if (c.rc == RENDER_OK && c.cover != NULL)
        render_draw_cover_labels(&c);
    pen_clip_end(&c.pen);
    if (c.rc == RENDER_OK && ov->legend)
        render_draw_legend(&c);
    if (c.rc == RENDER_OK && c.pen.over)
        c.rc = RENDER_ERR_TOO_EXPENSIVE;
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
    free(c.cover);
    free(c.threat_bits);
    render_marks_free(&c);
    return rc;
}

void render_image_free(struct render_image *img)
{
    free(img->data);
    img->data = NULL;
    img->len = 0;
}
