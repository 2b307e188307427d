/* The cover overlay: what rules_sight_between rules for each attacker and target, drawn.
 *
 * On a square grid the picture shows the ruling the encounter's attack makes (its
 * derived.cover and derived.concealment): the lines from the corner of the attacker's square
 * the ruling chose to the corners of the target's square it used (under the melee rule, from
 * every corner of the attacker's square chosen), the blocked ones dashed; the squares that gave
 * the cover, crossed out; the squares that gave concealment, ringed; and a label with the degree
 * in 002's names, its AC bonus or miss chance, and the lines blocked. render decides nothing
 * here: every line, mark and number comes from the ruling. Concealment is the map's alone (dim
 * light, darkness, fog): the picture does not know who has darkvision, so it rules as for an
 * attacker without it.
 *
 * Where the rules rule nothing (a hex grid: the SRD's lines are drawn on squares; bodies too
 * large to rule), 002 (Cover; Table: Cover) leaves the degree to the GM ("not a strict mathematical
 * calculation"): the overlay then draws lines from the centre of the attacker's space to the
 * centre and corners of the target's, marks the walls, pillars and creatures they cross, and
 * says that the degree is the GM's judgment. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_internal.h"

/* 002's name for a degree (rules_degree_names, as the encounter's derived.cover and
 * derived.concealment give them), with spaces for underscores. */
static const char *degree_words(unsigned degree, char *out, size_t n)
{
    assert(degree <= RULES_COVER_TOTAL);
    snprintf(out, n, "%s", rules_degree_names[degree]);
    for (char *p = out; *p; p++)
        if (*p == '_')
            *p = ' ';
    return out;
}

_Static_assert((int)RULES_CONCEAL_TOTAL == (int)RULES_COVER_TOTAL, "concealment shares the names");

/* --- the rulings --- */

/* The work of one ruling, at most: the choices of the attacker (its corners, or its squares
 * under the melee rule, times the target's squares), 16 lines each, every line walking the
 * columns and rows between the two spaces. */
static long long ruling_work(const struct rules_creature *a, const struct rules_creature *t)
{
    long long sa = a->body.side, st = t->body.side;
    long long dx = llabs((long long)a->body.x - t->body.x) + sa + st;
    long long dy = llabs((long long)a->body.y - t->body.y) + sa + st;
    return (sa + 1) * (sa + 1) * st * st * 16 * (dx + dy);
}

int render_cover_rule(const struct render_scene *s, struct render_cover_ruling **out)
{
    *out = NULL;
    const struct render_overlays *ov = &s->ov;
    if (ov->cover == NULL || ov->cover_count <= 0)
        return RENDER_OK;
    struct render_cover_ruling *r = calloc((size_t)ov->cover_count, sizeof *r);
    struct rules_creature *others = calloc((size_t)s->creature_count + 1, sizeof *others);
    int rc = RENDER_OK;
    if (r == NULL || others == NULL) {
        rc = RENDER_ERR_NOMEM;
        goto out;
    }
    for (int p = 0; p < ov->cover_count; p++) {
        int ai = ov->cover[p].attacker, ti = ov->cover[p].target;
        assert(ai >= 0 && ai < s->creature_count && ti >= 0 && ti < s->creature_count);
        const struct rules_creature *a = &s->creatures[ai].mc.c, *t = &s->creatures[ti].mc.c;
        r[p].rc = RULES_COVER_ERR_HEX;
        if (s->o->grid == RULES_GRID_HEX)
            continue;
        if (a->body.side > RULES_COVER_MAX_SIDE || t->body.side > RULES_COVER_MAX_SIDE) {
            r[p].rc = RULES_COVER_ERR_BOUNDS;
            continue;
        }
        if (s->work != NULL) {
            s->work->used += ruling_work(a, t);
            if (s->work->limit > 0 && s->work->used > s->work->limit) {
                rc = RENDER_ERR_TOO_EXPENSIVE;
                goto out;
            }
        }
        /* Soft cover: every creature on the map but the two (as the encounter's attack). */
        int k = 0;
        for (int i = 0; i < s->creature_count; i++)
            if (i != ai && i != ti)
                others[k++] = s->creatures[i].mc.c;
        r[p].rc = rules_sight_between(s->o, s->map, a, t, others, k, ov->cover[p].melee, false,
                                      &r[p].sight);
    }
out:
    free(others);
    if (rc != RENDER_OK) {
        free(r);
        r = NULL;
    }
    *out = r;
    return rc;
}

/* The label of a ruling: the cover's degree in 002's names with its AC bonus and the lines
 * blocked of those drawn ("half cover +4 (2/4 lines)", "no cover (0/16 lines, melee)"), and the
 * concealment's with its miss chance ("half concealment 20%"), or "" without concealment. */
static void ruling_label(const struct rules_sight *s, char *cover, size_t cover_n,
                         char *concealment, size_t concealment_n)
{
    concealment[0] = '\0';
    char lines[32];
    snprintf(lines, sizeof lines, "(%d/%d lines%s)", s->lines_blocked, s->lines,
             s->melee_adjacent ? ", melee" : "");
    if (s->cover == RULES_COVER_NONE)
        snprintf(cover, cover_n, "no cover %s", lines);
    else if (s->cover == RULES_COVER_TOTAL)
        snprintf(cover, cover_n, "total cover %s", lines);
    char words[16]; /* the longest, "three quarters" */
    if (s->cover != RULES_COVER_NONE && s->cover != RULES_COVER_TOTAL)
        snprintf(cover, cover_n, "%s cover +%d %s", degree_words(s->cover, words, sizeof words),
                 rules_cover_bonus(s->cover), lines);
    if (s->concealment != RULES_CONCEAL_NONE)
        snprintf(concealment, concealment_n, "%s concealment %d%%",
                 degree_words(s->concealment, words, sizeof words),
                 rules_concealment_miss_chance(s->concealment));
}

/* --- drawing a ruling --- */

/* The pixel position of lattice point (x, y) of a square grid: a corner of squares. */
static void corner_at(const struct render_layout *l, long long x, long long y, double *px,
                      double *py)
{
    *px = l->ox + (double)(x - l->x0) * l->cell;
    *py = l->oy + (double)(y - l->y0) * l->cell;
}

/* Opens the SVG group of a square of pair's ruling ("cover-PAIR-KIND-X-Y", class cls); false,
 * and nothing opened, when the square is out of view. */
static bool mark_open(struct render_ctx *c, int pair, const struct rules_cover_square *q,
                      const char *kind, const char *cls)
{
    if (!render_in_view(&c->l, q->x, q->y))
        return false;
    char prefix[48], id[32];
    snprintf(prefix, sizeof prefix, "cover-%d-%s-", pair, kind);
    snprintf(id, sizeof id, "%d-%d", q->x, q->y);
    pen_group_begin(&c->pen, prefix, id, cls);
    return true;
}

/* A square that gave the cover: an inset outline and a cross, in an SVG group naming it. */
static void mark_blocking(struct render_ctx *c, int pair, const struct rules_cover_square *q)
{
    const struct render_layout *l = &c->l;
    if (!mark_open(c, pair, q, "blocking",
                   q->creature >= 0 ? "cover-blocking creature" : "cover-blocking wall"))
        return;
    double xy[12];
    int m = render_cell_polygon(l, q->x, q->y, 0.12, xy);
    pen_polygon(&c->pen, xy, m, 0, 0, C_COVER, 1, 2.5);
    double cx, cy, h = l->cell * 0.25;
    render_square_centre(l, q->x, q->y, &cx, &cy);
    double d1[4] = {cx - h, cy - h, cx + h, cy + h}, d2[4] = {cx - h, cy + h, cx + h, cy - h};
    pen_polyline(&c->pen, d1, 2, C_COVER, 1, 2, 0);
    pen_polyline(&c->pen, d2, 2, C_COVER, 1, 2, 0);
    pen_group_end(&c->pen);
}

/* A square that gave the concealment: a dashed inset outline and a ring, in an SVG group. */
static void mark_concealing(struct render_ctx *c, int pair, const struct rules_cover_square *q)
{
    const struct render_layout *l = &c->l;
    if (!mark_open(c, pair, q, "concealing", "cover-concealing"))
        return;
    double xy[12];
    int m = render_cell_polygon(l, q->x, q->y, 0.2, xy);
    double dash = l->cell * 0.08 < 3 ? 3 : l->cell * 0.08;
    for (int i = 0; i < m; i++) {
        int j = (i + 1) % m;
        double seg[4] = {xy[2 * i], xy[2 * i + 1], xy[2 * j], xy[2 * j + 1]};
        pen_polyline(&c->pen, seg, 2, C_CONCEAL, 1, 2, dash);
    }
    double cx, cy;
    render_square_centre(l, q->x, q->y, &cx, &cy);
    pen_circle(&c->pen, cx, cy, l->cell * 0.12, 0, 0, C_CONCEAL, 2);
    pen_group_end(&c->pen);
}

/* A label line centred over the target's space at height y, kept on the board: moved in from
 * its sides, and below the space when there is no room above. */
static void label_line(struct render_ctx *c, const struct rules_body *t, int line, const char *text,
                       uint32_t rgb)
{
    const struct render_layout *l = &c->l;
    double tx, ty, size = 11, w = pen_text_width(&c->pen, size, true, text);
    render_body_centre(c, t, &tx, &ty);
    int side = l->grid == RULES_GRID_HEX ? 1 : t->side;
    double half = side * l->cell * 0.5;
    double y = ty - half - 4 - 13 * line;
    if (y - size < l->oy)
        y = ty + half + size + 2 + 13 * line;
    double lo = l->ox + w / 2 + 2, hi = l->ox + l->board_w - w / 2 - 2;
    double x = tx < lo ? lo : tx;
    x = x > hi ? (hi > lo ? hi : lo) : x;
    pen_text(&c->pen, x, y, size, true, 1, text, rgb, 0xffffff, 3);
}

void render_draw_cover_labels(struct render_ctx *c)
{
    const struct render_scene *s = c->s;
    for (int p = 0; p < s->ov.cover_count; p++) {
        const struct render_cover_ruling *r = &c->cover[p];
        const struct rules_body *t = &s->creatures[s->ov.cover[p].target].mc.c.body;
        char cover[96], conc[64];
        if (r->rc != RULES_COVER_OK) {
            snprintf(cover, sizeof cover, "GM's judgment: %d/%d lines crossed", r->judged_crossed,
                     r->judged_lines);
            label_line(c, t, 0, cover, C_COVER);
            continue;
        }
        ruling_label(&r->sight, cover, sizeof cover, conc, sizeof conc);
        label_line(c, t, 0, cover, C_COVER);
        if (conc[0] != '\0')
            label_line(c, t, 1, conc, C_CONCEAL);
    }
}

/* What rules_sight_between ruled for pair p (see the top of this file). */
static void draw_ruled(struct render_ctx *c, int p, const struct render_cover_ruling *r)
{
    const struct render_layout *l = &c->l;
    const struct rules_sight *s = &r->sight;
    if (!render_charge(c, s->lines + s->blocking_count + s->concealing_count))
        return;
    long long ax[4], ay[4], tx = s->target_x, ty = s->target_y;
    int na = 1;
    ax[0] = s->corner_x, ay[0] = s->corner_y;
    if (s->melee_adjacent) { /* the corners of the attacker's square chosen */
        long long x = s->corner_x, y = s->corner_y;
        long long xs[4] = {x, x + 1, x + 1, x}, ys[4] = {y, y, y + 1, y + 1};
        memcpy(ax, xs, sizeof xs);
        memcpy(ay, ys, sizeof ys);
        na = 4;
    }
    long long cx[4] = {tx, tx + 1, tx + 1, tx}, cy[4] = {ty, ty, ty + 1, ty + 1};
    char id[16];
    snprintf(id, sizeof id, "%d", p);
    pen_group_begin(&c->pen, "cover-", id, "cover-lines");
    for (int i = 0; i < na; i++)
        for (int j = 0; j < 4; j++) {
            bool blocked = (s->line_mask >> (4 * i + j)) & 1u;
            double seg[4];
            corner_at(l, ax[i], ay[i], &seg[0], &seg[1]);
            corner_at(l, cx[j], cy[j], &seg[2], &seg[3]);
            pen_polyline(&c->pen, seg, 2, C_COVER, blocked ? 1 : 0.8, blocked ? 1.5 : 1.25,
                         blocked ? 4 : 0);
        }
    if (!s->melee_adjacent) {
        double px, py;
        corner_at(l, s->corner_x, s->corner_y, &px, &py);
        pen_circle(&c->pen, px, py, 3.5, C_COVER, 1, 0xffffff, 1);
    }
    pen_group_end(&c->pen);
    for (int i = 0; i < s->blocking_count; i++)
        mark_blocking(c, p, &s->blocking[i]);
    for (int i = 0; i < s->concealing_count; i++)
        mark_concealing(c, p, &s->concealing[i]);
}

/* --- the GM's judgment: where the rules rule nothing --- */

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
static int *occupancy(struct render_ctx *c)
{
    const struct render_layout *l = &c->l;
    int *occ = calloc((size_t)l->cols * (size_t)l->rows, sizeof *occ);
    if (occ == NULL) {
        c->rc = RENDER_ERR_NOMEM;
        return NULL;
    }
    for (int i = 0; i < c->s->creature_count; i++) {
        const struct rules_body *b = &c->s->creatures[i].mc.c.body;
        if (!render_body_in_view(c, b))
            continue;
        if (l->grid == RULES_GRID_HEX) {
            int xs[3], ys[3];
            int n = rules_body_squares(c->s->o, b, xs, ys, 3);
            for (int k = 0; k < n; k++)
                if (render_in_view(l, xs[k], ys[k]))
                    occ[(size_t)(ys[k] - l->y0) * (size_t)l->cols + (size_t)(xs[k] - l->x0)] =
                        i + 1;
            continue;
        }
        for (int y = b->y; y < b->y + b->side; y++)
            for (int x = b->x; x < b->x + b->side; x++)
                if (render_in_view(l, x, y) && render_charge(c, 1))
                    occ[(size_t)(y - l->y0) * (size_t)l->cols + (size_t)(x - l->x0)] = i + 1;
    }
    return occ;
}

/* Lines from the centre of the attacker's space to the centre and corners of the target's, and
 * the squares in the way that they cross, for the GM to judge. occ is occupancy()'s grid. */
static void draw_judged(struct render_ctx *c, int p, const int *occ)
{
    const struct render_scene *s = c->s;
    const struct render_layout *l = &c->l;
    int ai = s->ov.cover[p].attacker, ti = s->ov.cover[p].target;
    const struct rules_body *a = &s->creatures[ai].mc.c.body;
    const struct rules_body *t = &s->creatures[ti].mc.c.body;
    double ax, ay, ends[14][2];
    int ne = 0;
    render_body_centre(c, a, &ax, &ay);
    render_body_centre(c, t, &ends[0][0], &ends[0][1]);
    ne = 1;
    double xy[12];
    int tx[3], ty[3];
    rules_body_squares(s->o, t, tx, ty, 3);
    if (l->grid == RULES_GRID_HEX) {
        int n = render_cell_polygon(l, tx[0], ty[0], 0, xy);
        for (int i = 0; i < n; i++)
            ends[ne][0] = xy[2 * i], ends[ne++][1] = xy[2 * i + 1];
    } else {
        double x0 = l->ox + (t->x - l->x0) * l->cell, y0 = l->oy + (t->y - l->y0) * l->cell;
        double w = t->side * l->cell;
        double corners[4][2] = {{x0, y0}, {x0 + w, y0}, {x0 + w, y0 + w}, {x0, y0 + w}};
        for (int i = 0; i < 4; i++)
            ends[ne][0] = corners[i][0], ends[ne++][1] = corners[i][1];
    }
    /* The squares between, in grid coordinates (axial coordinates are linear in the picture,
     * so a line's squares lie within its ends' range, plus one). */
    int side_a = l->grid == RULES_GRID_HEX ? 1 : a->side;
    int side_t = l->grid == RULES_GRID_HEX ? 1 : t->side;
    int gx0 = (a->x < t->x ? a->x : t->x) - 1, gy0 = (a->y < t->y ? a->y : t->y) - 1;
    int gx1 = (a->x + side_a > t->x + side_t ? a->x + side_a : t->x + side_t) + 1;
    int gy1 = (a->y + side_a > t->y + side_t ? a->y + side_a : t->y + side_t) + 1;
    bool line_blocked[14] = {false};
    for (int y = gy0; y <= gy1 && c->rc == RENDER_OK; y++)
        for (int x = gx0; x <= gx1; x++) {
            if (!render_in_view(l, x, y) || !render_charge(c, ne))
                continue;
            size_t k = (size_t)y * (size_t)s->map->width + (size_t)x;
            int who = occ[(size_t)(y - l->y0) * (size_t)l->cols + (size_t)(x - l->x0)] - 1;
            bool wall = s->map->terrain[k] == RULES_MAP_BLOCKED;
            if (!wall && (who < 0 || who == ai || who == ti))
                continue;
            int n = render_cell_polygon(l, x, y, 0.03, xy);
            bool hit = false;
            for (int e = 0; e < ne; e++)
                if (segment_crosses(xy, n, ax, ay, ends[e][0], ends[e][1]))
                    hit = line_blocked[e] = true;
            if (!hit)
                continue;
            char prefix[48], id[32];
            snprintf(prefix, sizeof prefix, "cover-%d-in-the-way-", p);
            snprintf(id, sizeof id, "%d-%d", x, y);
            pen_group_begin(&c->pen, prefix, id, "cover-in-the-way");
            int m = render_cell_polygon(l, x, y, 0.12, xy);
            pen_polygon(&c->pen, xy, m, 0, 0, C_COVER, 1, 2.5);
            double cx, cy, h = l->cell * 0.25;
            render_square_centre(l, x, y, &cx, &cy);
            double d1[4] = {cx - h, cy - h, cx + h, cy + h},
                   d2[4] = {cx - h, cy + h, cx + h, cy - h};
            pen_polyline(&c->pen, d1, 2, C_COVER, 1, 2, 0);
            pen_polyline(&c->pen, d2, 2, C_COVER, 1, 2, 0);
            pen_group_end(&c->pen);
        }
    int blocked = 0;
    for (int e = 0; e < ne; e++) {
        double seg[4] = {ax, ay, ends[e][0], ends[e][1]};
        blocked += line_blocked[e];
        pen_polyline(&c->pen, seg, 2, C_COVER, e == 0 ? 1 : 0.75, e == 0 ? 2 : 1,
                     line_blocked[e] ? 4 : 0);
    }
    c->cover[p].judged_crossed = blocked;
    c->cover[p].judged_lines = ne;
}

void render_draw_cover(struct render_ctx *c)
{
    const struct render_scene *s = c->s;
    int *occ = NULL;
    for (int p = 0; p < s->ov.cover_count && c->rc == RENDER_OK; p++) {
        const struct render_cover_ruling *r = &c->cover[p];
        if (r->rc == RULES_COVER_OK) {
            draw_ruled(c, p, r);
            continue;
        }
        if (occ == NULL && (occ = occupancy(c)) == NULL)
            return;
        draw_judged(c, p, occ);
    }
    free(occ);
}
