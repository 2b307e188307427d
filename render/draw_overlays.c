/* The overlays: facing areas, threatened squares, the reach heat map, a spell area, the mover's
 * path and a forced movement path, drawn over the ground and under the creatures, and flanking
 * lines, drawn over the creatures. What the legend must know of them (the flanking lines, the
 * path's ruling) is ruled before the picture is laid out (render_rule_marks). The cover
 * overlay has its own file (draw_cover.c). */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_internal.h"
#include "rules/board/facing.h"
#include "rules/board/flanking.h"

/* --- overlays --- */

void render_draw_facing_areas(struct render_ctx *c)
{
    const struct render_scene *s = c->s;
    if (s->ov.facing_of < 0)
        return;
    assert(s->ov.facing_of < s->creature_count);
    const struct rules_creature *k = &s->creatures[s->ov.facing_of].mc.c;
    if (!rules_has_facing(s->o, k))
        return;
    int range = k->reach_ft / 5 + 2;
    if (range < 3)
        range = 3;
    int side = s->o->grid == RULES_GRID_HEX ? 2 : k->body.side;
    for (int y = k->body.y - range; y < k->body.y + side + range; y++)
        for (int x = k->body.x - range; x < k->body.x + side + range; x++) {
            if (!render_in_view(&c->l, x, y) || !render_charge(c, 1))
                continue;
            enum rules_area a = rules_facing_area(s->o, k, x, y);
            uint32_t col = a == RULES_AREA_FRONT                             ? C_FRONT
                           : a == RULES_AREA_REAR                            ? C_REAR
                           : (a == RULES_AREA_FLANK || a == RULES_AREA_SIDE) ? C_SIDEAREA
                                                                             : 0;
            if (col != 0)
                render_fill_cell(c, x, y, col, 0.32);
        }
}

/* A creature as the threat and flanking overlays take it: threatening exactly when the scene
 * says it threatens now (render_creature.threatens). */
static struct rules_creature threat_body(const struct render_creature *k)
{
    struct rules_creature c = k->mc.c;
    c.can_threaten = k->threatens;
    return c;
}

/* Fills c->threat_bits: for each side, a bit per view square some creature of that side
 * threatens (render_threat_drawn's creatures, each over its box within the view: the tests
 * were charged before the picture began). */
static int threat_bits(struct render_ctx *c)
{
    const struct render_scene *s = c->s;
    const struct rules_map *m = s->map;
    const struct render_layout *l = &c->l;
    int sides = 1;
    for (int i = 0; i < s->creature_count; i++)
        sides = s->creatures[i].side + 1 > sides ? s->creatures[i].side + 1 : sides;
    size_t cells = (size_t)l->cols * (size_t)l->rows;
    c->threat_stride = (cells + 7) / 8;
    c->threat_bits = calloc((size_t)sides * c->threat_stride + 1, 1);
    if (c->threat_bits == NULL)
        return RENDER_ERR_NOMEM;
    for (int i = 0; i < s->creature_count; i++) {
        if (!render_threat_drawn(s, i))
            continue;
        const struct render_creature *k = &s->creatures[i];
        uint8_t *bits = c->threat_bits + (size_t)k->side * c->threat_stride;
        int x0, y0, x1, y1;
        render_threat_box(s, i, &x0, &y0, &x1, &y1);
        x0 = x0 < l->x0 ? l->x0 : x0, y0 = y0 < l->y0 ? l->y0 : y0;
        x1 = x1 > l->x0 + l->cols ? l->x0 + l->cols : x1;
        y1 = y1 > l->y0 + l->rows ? l->y0 + l->rows : y1;
        for (int y = y0; y < y1; y++)
            for (int x = x0; x < x1; x++) {
                size_t cell = (size_t)(y - l->y0) * (size_t)l->cols + (size_t)(x - l->x0);
                if (bits[cell / 8] & (1u << (cell % 8)))
                    continue;
                int z = m->elevation ? m->elevation[(size_t)y * (size_t)m->width + (size_t)x] : 0;
                struct rules_creature threat = threat_body(k);
                if (rules_threatens_square(s->o, &threat, x, y, z))
                    bits[cell / 8] |= (uint8_t)(1u << (cell % 8));
            }
    }
    return RENDER_OK;
}

static bool threat_bit(const struct render_ctx *c, int side, int x, int y)
{
    /* A square in view, of a side threat_bits made room for. */
    assert(x >= c->l.x0 && x < c->l.x0 + c->l.cols && y >= c->l.y0 && y < c->l.y0 + c->l.rows);
    assert(c->threat_bits != NULL && side >= 0);
    size_t cell = (size_t)(y - c->l.y0) * (size_t)c->l.cols + (size_t)(x - c->l.x0);
    unsigned byte = c->threat_bits[(size_t)side * c->threat_stride + cell / 8];
    return (byte >> (cell % 8)) & 1u;
}

/* The end of the run of side's threatened squares starting at (x, y) in its row. */
static int run_end(const struct render_ctx *c, int side, int x, int y)
{
    int end = c->l.x0 + c->l.cols;
    while (x < end && threat_bit(c, side, x, y))
        x++;
    return x;
}

/* In SVG, each side's threatened squares are one group, for readers of the picture (a test, a
 * bot) to tell them without reading shapes: the tint pass's is
 * <g class="threatened" data-side="SIDE" data-squares="x,y x,y ...">, the squares in view in
 * rows from the top, each row from the left ("q,r" on hexes), and the outline pass's
 * <g class="threatened-outline" data-side="SIDE">. False when side threatens no square in view
 * (no group), or when the list could not be made (c->rc set). */
static bool threat_group_begin(struct render_ctx *c, int side, bool outline)
{
    const struct render_scene *s = c->s;
    const struct render_layout *l = &c->l;
    size_t n = 0, cap = 64, used = 0;
    for (int y = l->y0; y < l->y0 + l->rows; y++)
        for (int x = l->x0; x < l->x0 + l->cols; x++)
            n += threat_bit(c, side, x, y);
    if (n == 0)
        return false;
    const char *name = s->side_names != NULL && side < s->side_count ? s->side_names[side] : "";
    if (outline) {
        const char *names[] = {"side"}, *values[] = {name};
        pen_group_begin_data(&c->pen, "threatened-outline", 1, names, values);
        return true;
    }
    cap += n * 24; /* "x,y " of two ints */
    char *list = malloc(cap);
    if (list == NULL) {
        c->rc = RENDER_ERR_NOMEM;
        return false;
    }
    list[0] = '\0';
    for (int y = l->y0; y < l->y0 + l->rows; y++)
        for (int x = l->x0; x < l->x0 + l->cols; x++)
            if (threat_bit(c, side, x, y))
                used += (size_t)snprintf(list + used, cap - used, "%s%d,%d", used ? " " : "", x, y);
    const char *names[] = {"side", "squares"}, *values[] = {name, list};
    pen_group_begin_data(&c->pen, "threatened", 2, names, values);
    free(list);
    return true;
}

/* The squares each side hostile to the mover threatens (every side's, with no mover), tinted
 * in that side's colour; with outline, an inset outline the reach heat map cannot hide. A
 * square threatened by several creatures of one side is drawn once, and on squares a row's
 * run of threatened squares is one shape: what is drawn is bounded by the view, not by the
 * creatures, and its shapes are counted and reserved before the first is drawn. */
void render_draw_threatened(struct render_ctx *c, bool outline)
{
    const struct render_scene *s = c->s;
    const struct render_layout *l = &c->l;
    if (c->threat_bits == NULL && (c->rc = threat_bits(c)) != RENDER_OK)
        return;
    int sides = 0;
    for (int i = 0; i < s->creature_count; i++)
        sides = s->creatures[i].side + 1 > sides ? s->creatures[i].side + 1 : sides;
    bool hex = l->grid == RULES_GRID_HEX;
    long long shapes = 0;
    double area = 0;
    for (int side = 0; side < sides; side++)
        for (int y = l->y0; y < l->y0 + l->rows; y++)
            for (int x = l->x0; x < l->x0 + l->cols; x++) {
                if (!threat_bit(c, side, x, y))
                    continue;
                int end = hex ? x + 1 : run_end(c, side, x, y);
                shapes++;
                area += (end - x) * l->cell * l->cell;
                x = end - 1;
            }
    if (shapes == 0)
        return;
    if (!pen_reserve(&c->pen, shapes, area / (double)shapes)) {
        c->rc = RENDER_ERR_TOO_EXPENSIVE;
        return;
    }
    double inset = l->cell * 0.05, lw = l->cell >= 24 ? 2 : 1;
    for (int side = 0; side < sides && !c->pen.over; side++) {
        uint32_t colour = render_side_colour(side);
        bool grouped = c->pen.format == RENDER_SVG && threat_group_begin(c, side, outline);
        for (int y = l->y0; y < l->y0 + l->rows; y++)
            for (int x = l->x0; x < l->x0 + l->cols; x++) {
                if (!threat_bit(c, side, x, y))
                    continue;
                if (hex) {
                    if (!outline) {
                        render_fill_cell(c, x, y, colour, 0.26);
                        continue;
                    }
                    double xy[12];
                    int np = render_cell_polygon(l, x, y, 0.1, xy);
                    pen_polygon(&c->pen, xy, np, 0, 0, colour, 0.85, lw);
                    continue;
                }
                int end = run_end(c, side, x, y);
                double px = l->ox + (x - l->x0) * l->cell, py = l->oy + (y - l->y0) * l->cell;
                double w = (end - x) * l->cell;
                x = end - 1;
                if (!outline) {
                    pen_fill_rect(&c->pen, px, py, w, l->cell, colour, 0.26);
                    continue;
                }
                double xy[8] = {px + inset, py + inset,          px + w - inset,
                                py + inset, px + w - inset,      py + l->cell - inset,
                                px + inset, py + l->cell - inset};
                pen_polygon(&c->pen, xy, 4, 0, 0, colour, 0.85, lw);
            }
        if (grouped)
            pen_group_end(&c->pen);
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
uint32_t render_heat(int cost, int max)
{
    double t = max > 0 ? (double)cost / max : 0;
    return t < 0.5 ? lerp_colour(0x7fd77f, 0xf2e15c, t * 2)
                   : lerp_colour(0xf2e15c, 0xf08a3c, (t - 0.5) * 2);
}

void render_draw_reach(struct render_ctx *c)
{
    const struct render_scene *s = c->s;
    struct rules_move_query q = render_move_query(c);
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
    for (int i = 0; i < n && render_charge(c, 1); i++) {
        struct rules_reach_square sq;
        rules_reach_get(r, i, &sq);
        if (!render_in_view(&c->l, sq.x, sq.y))
            continue;
        render_fill_cell(c, sq.x, sq.y, render_heat(sq.cost_ft, max), 0.62);
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

void render_draw_area(struct render_ctx *c)
{
    const struct render_overlays *ov = &c->s->ov;
    for (int i = 0; i < ov->area_len; i++) {
        if (!render_in_view(&c->l, ov->area[i].x, ov->area[i].y))
            continue;
        render_fill_cell(c, ov->area[i].x, ov->area[i].y, C_AREA, 0.33);
        double xy[12];
        int n = render_cell_polygon(&c->l, ov->area[i].x, ov->area[i].y, 0.08, xy);
        pen_polygon(&c->pen, xy, n, 0, 0, C_AREA, 0.9, 1.5);
    }
}

/* An arrowhead at (x1, y1) pointing away from (x0, y0). */
void render_arrowhead(struct render_ctx *c, double x0, double y0, double x1, double y1, double size,
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

/* --- the marks ruled before the legend: flanking lines and the path --- */

/* Adds a flanking line to c->flank (grown as needed); false when out of memory. */
static bool flank_add(struct render_ctx *c, int *cap, struct render_flank_line line)
{
    if (c->flank_count == *cap) {
        int more = *cap ? *cap * 2 : 8;
        struct render_flank_line *p = realloc(c->flank, (size_t)more * sizeof *p);
        if (p == NULL)
            return false;
        c->flank = p, *cap = more;
    }
    c->flank[c->flank_count++] = line;
    return true;
}

/* Flanking lines onto every target in view, each pair once, from rules_flanking's own line
 * (half-squares on a square grid, the two hexes on a hex grid). With facing in force there
 * are none: 000 and 003 replace flanking by the areas. */
static void rule_flanking(struct render_ctx *c)
{
    const struct render_scene *s = c->s;
    int n = s->creature_count, cap = 0;
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
        if (!render_body_in_view(c, &target->body) || !render_charge(c, n))
            continue;
        int na = 0;
        for (int a = 0; a < n; a++) {
            struct rules_creature by = threat_body(&s->creatures[a]);
            if (a != t && render_hostile(s, a, t) && rules_threatens_creature(s->o, &by, target))
                attackers[na++] = a;
        }
        for (int i = 0; i < na && render_charge(c, na); i++) {
            int a = attackers[i], nal = 0;
            for (int j = 0; j < na; j++)
                if (attackers[j] != a && !render_hostile(s, attackers[j], a)) {
                    ally_index[nal] = attackers[j];
                    allies[nal++] = threat_body(&s->creatures[attackers[j]]);
                }
            if (nal == 0)
                continue;
            struct rules_flank_result fr;
            struct rules_creature attacker = threat_body(&s->creatures[a]);
            rules_flanking(s->o, &attacker, target, allies, nal, per, &fr);
            if (!fr.flanked)
                continue;
            for (int k = 0; k < nal; k++) {
                if (per[k].how == RULES_FLANK_NONE || ally_index[k] < a)
                    continue; /* each pair once: from the lower index */
                struct render_flank_line line = {.attacker = a, .target = t};
                if (per[k].how == RULES_FLANK_INTERNAL) {
                    render_body_centre(c, &s->creatures[a].mc.c.body, &line.x0, &line.y0);
                    render_body_centre(c, &allies[k].body, &line.x1, &line.y1);
                } else if (c->l.grid == RULES_GRID_HEX) {
                    render_square_centre(&c->l, per[k].line.x0, per[k].line.y0, &line.x0, &line.y0);
                    render_square_centre(&c->l, per[k].line.x1, per[k].line.y1, &line.x1, &line.y1);
                } else {
                    line.x0 = c->l.ox + (per[k].line.x0 / 2.0 - c->l.x0) * c->l.cell;
                    line.y0 = c->l.oy + (per[k].line.y0 / 2.0 - c->l.y0) * c->l.cell;
                    line.x1 = c->l.ox + (per[k].line.x1 / 2.0 - c->l.x0) * c->l.cell;
                    line.y1 = c->l.oy + (per[k].line.y1 / 2.0 - c->l.y0) * c->l.cell;
                }
                if (!flank_add(c, &cap, line)) {
                    c->rc = RENDER_ERR_NOMEM;
                    goto out;
                }
            }
        }
    }
out:
    free(allies);
    free(ally_index);
    free(attackers);
    free(per);
}

/* The mover's path through rules_move_path: each step's total and violations, and the
 * attacks of opportunity it provokes. */
static void rule_path(struct render_ctx *c)
{
    const struct render_overlays *ov = &c->s->ov;
    int n = ov->path_len;
    struct rules_path_result *p = &c->path;
    *p = (struct rules_path_result){0};
    p->steps = calloc((size_t)n + 1, sizeof *p->steps);
    p->aoos = calloc((size_t)c->other_count + 1, sizeof *p->aoos);
    struct rules_move_query q = render_move_query(c);
    int rc = p->steps == NULL || p->aoos == NULL
                 ? RULES_MOVE_ERR_NOMEM
                 : rules_move_path(&q, ov->path, n, ov->path_end_facing, p);
    if (rc != RULES_MOVE_OK) {
        c->rc = rc == RULES_MOVE_TOO_EXPENSIVE ? RENDER_ERR_TOO_EXPENSIVE : RENDER_ERR_NOMEM;
        return;
    }
    if (render_charge(c, n))
        c->path_ruled = true;
}

int render_rule_marks(struct render_ctx *c)
{
    const struct render_scene *s = c->s;
    const struct render_overlays *ov = &s->ov;
    struct render_marks *m = &c->marks;
    *m = (struct render_marks){0};
    if (c->rc == RENDER_OK && ov->flanking)
        rule_flanking(c);
    if (c->rc == RENDER_OK && ov->path != NULL && s->mover >= 0 && s->stats != NULL)
        rule_path(c);
    if (c->rc != RENDER_OK)
        return c->rc;
    m->flank_lines = c->flank_count;
    if (c->path_ruled) {
        m->path_steps = ov->path_len;
        for (int i = 0; i < ov->path_len; i++)
            m->path_illegal |= c->path.steps[i].violations != 0;
        m->path_aoos = c->path.aoo_count;
    }
    m->ruled = true;
    if (ov->legend) {
        struct render_legend lg;
        render_legend_collect(s, c->cover, &c->l, m, &lg);
        c->l.height = c->l.board_height + render_legend_height(s, &lg, c->l.width);
    }
    return RENDER_OK;
}

void render_marks_free(struct render_ctx *c)
{
    free(c->flank);
    free(c->path.steps);
    free(c->path.aoos);
    c->flank = NULL, c->flank_count = 0;
    c->path = (struct rules_path_result){0};
    c->path_ruled = false;
}

/* --- flanking lines, drawn over the creatures --- */

/* Where the segment from (x0, y0) to (x1, y1) runs inside box b (x0, y0, x1, y1): its
 * parameters [*t0, *t1] within [0, 1] (Liang and Barsky's clipping); false when it misses. */
static bool segment_in_box(const double seg[4], const double b[4], double *t0, double *t1)
{
    double dx = seg[2] - seg[0], dy = seg[3] - seg[1];
    double p[4] = {-dx, dx, -dy, dy};
    double q[4] = {seg[0] - b[0], b[2] - seg[0], seg[1] - b[1], b[3] - seg[1]};
    *t0 = 0, *t1 = 1;
    for (int i = 0; i < 4; i++) {
        if (fabs(p[i]) < 1e-9) {
            if (q[i] < 0)
                return false;
            continue;
        }
        double t = q[i] / p[i];
        if (p[i] < 0 && t > *t0)
            *t0 = t;
        else if (p[i] > 0 && t < *t1)
            *t1 = t;
    }
    return *t0 < *t1;
}

static int by_start(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Draws one flanking line over the tokens, broken where it crosses one of the boxes (the
 * labels: the creatures' names stay readable), with a dot at each end of what shows. cut:
 * room for 2 * (nbox + 1) parameters. */
static void draw_flank_line(struct render_ctx *c, const struct render_flank_line *f,
                            const double (*boxes)[4], int nbox, double *cut)
{
    double seg[4] = {f->x0, f->y0, f->x1, f->y1};
    int nc = 0;
    for (int b = 0; b < nbox; b++)
        if (segment_in_box(seg, boxes[b], &cut[2 * nc], &cut[2 * nc + 1]))
            nc++;
    qsort(cut, (size_t)nc, 2 * sizeof *cut, by_start);
    double w = c->l.cell * 0.08 < 2 ? 2 : c->l.cell * 0.08;
    double dx = f->x1 - f->x0, dy = f->y1 - f->y0, from = 0;
    double shown[2][2] = {{-1, -1}, {-1, -1}}; /* the first and the last part drawn */
    for (int k = 0; k <= nc; k++) {
        double to = k < nc ? cut[2 * k] : 1;
        if (to > from) {
            double part[4] = {f->x0 + dx * from, f->y0 + dy * from, f->x0 + dx * to,
                              f->y0 + dy * to};
            pen_polyline(&c->pen, part, 2, C_FLANK, 0.9, w, 0);
            if (shown[0][0] < 0)
                shown[0][0] = from, shown[0][1] = to;
            shown[1][0] = from, shown[1][1] = to;
        }
        if (k < nc && cut[2 * k + 1] > from)
            from = cut[2 * k + 1];
    }
    if (shown[0][0] < 0)
        return;
    /* Its ends in the flankers' colour: a dot wholly on the first part drawn and one on the
     * last (clear of the labels), or in the middle of a part too short to hold one. */
    uint32_t ends = render_side_colour(c->s->creatures[f->attacker].side);
    double len = hypot(dx, dy), r = w * 1.5, in = len > 0 ? r / len : 0;
    double at[2] = {shown[0][0] + in, shown[1][1] - in};
    for (int e = 0; e < 2; e++) {
        if (shown[e][1] - shown[e][0] < 2 * in)
            at[e] = (shown[e][0] + shown[e][1]) / 2;
        pen_circle(&c->pen, f->x0 + dx * at[e], f->y0 + dy * at[e], r, ends, 1, C_FLANK, 1.5);
    }
}

void render_draw_flanking(struct render_ctx *c)
{
    const struct render_scene *s = c->s;
    if (c->flank_count == 0)
        return;
    double(*boxes)[4] = calloc((size_t)s->creature_count + 1, sizeof *boxes);
    double *cut = calloc(2 * ((size_t)s->creature_count + 1), sizeof *cut);
    if (boxes == NULL || cut == NULL) {
        c->rc = RENDER_ERR_NOMEM;
        goto out;
    }
    /* The labels' boxes: the glyphs (ascender and descender), their halo and a gap. */
    int nbox = 0;
    for (int i = 0; i < s->creature_count; i++) {
        struct render_label lb;
        if (!render_body_in_view(c, &s->creatures[i].mc.c.body) || !render_label_of(c, i, &lb))
            continue;
        double m = RENDER_LABEL_HALO / 2 + 2;
        boxes[nbox][0] = lb.x - lb.width / 2 - m, boxes[nbox][2] = lb.x + lb.width / 2 + m;
        boxes[nbox][1] = lb.y - lb.size * 0.76 - m, boxes[nbox][3] = lb.y + lb.size * 0.24 + m;
        nbox++;
    }
    pen_group_begin(&c->pen, NULL, NULL, "flanking");
    for (int i = 0; i < c->flank_count; i++) {
        const struct render_flank_line *f = &c->flank[i];
        draw_flank_line(c, f, (const double(*)[4])boxes, nbox, cut);
        /* +2 at the target's corner, drawn after the lines. */
        const struct rules_body *tb = &s->creatures[f->target].mc.c.body;
        double tx, ty;
        render_body_centre(c, tb, &tx, &ty);
        double half = (c->l.grid == RULES_GRID_HEX ? 1 : tb->side) * c->l.cell / 2;
        if (c->late_count < (int)(sizeof c->late / sizeof c->late[0]))
            c->late[c->late_count].x = tx - half + 11, c->late[c->late_count].y = ty - half + 13,
            c->late[c->late_count++].rgb = C_FLANK;
    }
    pen_group_end(&c->pen);
out:
    free(boxes);
    free(cut);
}

/* --- the mover's path --- */

/* The mover's path as rule_path ruled it: the line, each step's total in feet, illegal
 * steps, the squares where leaving provokes and the attacks of opportunity taken. */
void render_draw_path(struct render_ctx *c)
{
    const struct render_scene *s = c->s;
    const struct render_overlays *ov = &s->ov;
    if (!c->path_ruled)
        return;
    int n = ov->path_len;
    const struct rules_path_result *p = &c->path;
    double *xy = calloc(2 * ((size_t)n + 1), sizeof *xy);
    if (xy == NULL) {
        c->rc = RENDER_ERR_NOMEM;
        return;
    }
    const struct rules_body *b = &s->creatures[s->mover].mc.c.body;
    render_body_centre(c, b, &xy[0], &xy[1]);
    for (int i = 0; i < n; i++)
        render_body_centre_at(c, b, ov->path[i].x, ov->path[i].y, &xy[2 * i + 2], &xy[2 * i + 3]);
    double w = c->l.cell * 0.09 < 2.5 ? 2.5 : c->l.cell * 0.09;
    for (int i = 0; i < n; i++) {
        bool bad = p->steps[i].violations != 0;
        pen_polyline(&c->pen, &xy[2 * i], 2, bad ? C_ILLEGAL : C_PATH, 0.9, w, bad ? w * 2 : 0);
    }
    if (n > 0)
        render_arrowhead(c, xy[2 * n - 2], xy[2 * n - 1], xy[2 * n], xy[2 * n + 1], w * 3.2,
                         p->steps[n - 1].violations ? C_ILLEGAL : C_PATH);
    for (int k = 0; k < p->aoo_count; k++) {
        double fx, fy, ax, ay;
        render_body_centre_at(c, b, p->aoos[k].from_x, p->aoos[k].from_y, &fx, &fy);
        pen_circle(&c->pen, fx, fy, c->l.cell * 0.42, 0, 0, C_AOO, w);
        int who = c->other_index[p->aoos[k].creature];
        render_body_centre(c, &s->creatures[who].mc.c.body, &ax, &ay);
        double dx = fx - ax, dy = fy - ay, len = hypot(dx, dy);
        double cut = c->l.cell * 0.44;
        if (len > 2 * cut) {
            double seg[4] = {ax + dx / len * cut, ay + dy / len * cut, fx - dx / len * cut,
                             fy - dy / len * cut};
            pen_polyline(&c->pen, seg, 2, C_AOO, 1, w * 0.8, w * 1.6);
            render_arrowhead(c, seg[0], seg[1], seg[2], seg[3], w * 3, C_AOO);
        }
    }
    if (c->l.cell >= 18) {
        for (int i = 0; i < n; i++) {
            char t[16];
            snprintf(t, sizeof t, "%d", p->steps[i].spent_ft);
            pen_text(&c->pen, xy[2 * i + 2], xy[2 * i + 3] - c->l.cell * 0.16,
                     c->l.cell * 0.3 < 10 ? 10 : c->l.cell * 0.3, true, 1, t,
                     p->steps[i].violations ? C_ILLEGAL : C_PATH, 0xffffff, 3);
        }
    }
    free(xy);
}

void render_draw_forced(struct render_ctx *c)
{
    const struct render_scene *s = c->s;
    const struct render_overlays *ov = &s->ov;
    if (ov->forced_creature < 0 || ov->forced_len <= 0)
        return;
    assert(ov->forced_creature < s->creature_count && ov->forced != NULL);
    const struct rules_body *b = &s->creatures[ov->forced_creature].mc.c.body;
    double px, py;
    render_body_centre(c, b, &px, &py);
    double w = c->l.cell * 0.08 < 2.5 ? 2.5 : c->l.cell * 0.08;
    for (int i = 0; i < ov->forced_len; i++) {
        double x, y;
        render_body_centre_at(c, b, ov->forced[i].x, ov->forced[i].y, &x, &y);
        double seg[4] = {px, py, x, y};
        pen_polyline(&c->pen, seg, 2, C_FORCED, 1, w, w * 1.5);
        render_arrowhead(c, px, py, x, y, w * 3.4, C_FORCED);
        px = x, py = y;
    }
    pen_circle(&c->pen, px, py, c->l.cell * 0.4 * (s->o->grid == RULES_GRID_HEX ? 1 : b->side), 0,
               0, C_FORCED, w);
}

/* Each attack as its event ruled it: a line from the edge of the attacker's token to the edge
 * of the target's, solid with an arrow where it hit, dashed where it missed, dotted onto a
 * charge's target, and its label by the target, on its side away from the attacker (kept on the
 * board). The lines are drawn before the tokens, which they stop at, so that a condition
 * badge on a token's edge stays readable; the labels (labels: true) after them. */
void render_draw_strikes(struct render_ctx *c, bool labels)
{
    const struct render_scene *s = c->s;
    const struct render_overlays *ov = &s->ov;
    double w = c->l.cell * 0.07 < 2.5 ? 2.5 : c->l.cell * 0.07;
    for (int i = 0; i < ov->strike_count && c->rc == RENDER_OK; i++) {
        const struct render_strike *k = &ov->strikes[i];
        assert(k->attacker >= 0 && k->attacker < s->creature_count);
        assert(k->target >= 0 && k->target < s->creature_count);
        const struct rules_body *a = &s->creatures[k->attacker].mc.c.body;
        const struct rules_body *t = &s->creatures[k->target].mc.c.body;
        bool hit = k->outcome == RENDER_STRIKE_HIT;
        uint32_t rgb = hit ? C_HIT : k->outcome == RENDER_STRIKE_MISS ? C_MISS : C_CHARGE;
        double dash = hit ? 0 : k->outcome == RENDER_STRIKE_MISS ? w * 2 : w * 0.8;
        double ax, ay, tx, ty;
        render_body_centre(c, a, &ax, &ay);
        render_body_centre(c, t, &tx, &ty);
        double dx = tx - ax, dy = ty - ay, len = sqrt(dx * dx + dy * dy);
        bool hex = s->o->grid == RULES_GRID_HEX;
        int side = hex ? 1 : t->side;
        double stop = c->l.cell * 0.42 * side;              /* the target token's edge */
        double go = c->l.cell * 0.42 * (hex ? 1 : a->side); /* and the attacker's */
        if (len <= stop + go || !render_charge(c, 1))
            continue;
        char id[16];
        snprintf(id, sizeof id, "%d", i);
        static const char *const cls[] = {"strike hit", "strike miss", "strike charge"};
        static_assert(sizeof cls / sizeof cls[0] == RENDER_STRIKE_CHARGE + 1, "one per outcome");
        assert((unsigned)k->outcome <= RENDER_STRIKE_CHARGE);
        if (labels && k->label != NULL) {
            /* On the target's side away from the attacker, so the line does not cross it. */
            double half = c->l.cell * 0.5 * side, above = ty - half - 4, below = ty + half + 13;
            bool under = ay < ty ? below < c->l.oy + c->l.board_h : above - 11 < c->l.oy;
            pen_group_begin(&c->pen, "strike-label-", id, "strike-label");
            pen_text(&c->pen, tx, under ? below : above, 11, true, 1, k->label, rgb, 0xffffff, 3);
            pen_group_end(&c->pen);
        } else if (!labels) {
            double seg[4] = {ax + dx / len * go, ay + dy / len * go, tx - dx / len * stop,
                             ty - dy / len * stop};
            pen_group_begin(&c->pen, "strike-", id, cls[k->outcome]);
            pen_polyline(&c->pen, seg, 2, rgb, 1, w, dash);
            render_arrowhead(c, seg[0], seg[1], seg[2], seg[3], w * 3.4, rgb);
            pen_group_end(&c->pen);
        }
    }
}
