/* The creatures, drawn over every mark: each one's footprint, side, label, hit points,
 * facing and condition marks. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_internal.h"
#include "text/text.h"

/* Prone, Flat-footed, Dying, Unconscious, X dead, Z disabled (0 hit points), Stunned, sTable. */
const char render_cond_letters[RENDER_COND_COUNT + 1] = "PFDUXZST";
const uint32_t render_cond_colours[RENDER_COND_COUNT] = {0x555555, 0xc98a00, 0xb00020, 0x283593,
                                                         0x000000, 0x8d6e00, 0x6a1b9a, 0x00695c};

/* --- creatures --- */

/* The radius of creature i's disc (a token of one square or less: the width of its space, 001
 * Space and Reach), or for a larger space or a hex triangle the radius its label and marks are
 * sized by. */
static double token_radius(const struct render_ctx *c, int i)
{
    assert(i >= 0 && i < c->s->creature_count);
    const struct rules_creature *cr = &c->s->creatures[i].mc.c;
    const struct render_layout *l = &c->l;
    if (l->grid == RULES_GRID_HEX && cr->body.tri > 0)
        return l->cell * 0.45;
    int side = l->grid == RULES_GRID_HEX ? 1 : cr->body.side;
    if (side > 1)
        return side * l->cell * 0.36;
    double space = rules_size_info(cr->size)->space_in / 60.0;
    return l->cell * 0.43 * (space < 1 ? (space < 0.3 ? 0.3 : space) : 1);
}

/* Creature i's label as drawn: the first RENDER_LABEL_MAX characters (text.h: a letter with
 * its marks, an emoji sequence, a flag), never a part of one; sized by their count, then shrunk
 * to fit the disc if its glyphs are wider (CJK, emoji). */
bool render_label_of(struct render_ctx *c, int i, struct render_label *out)
{
    const struct render_creature *k = &c->s->creatures[i];
    if (k->label == NULL || k->label[0] == '\0' || c->l.cell < 12)
        return false;
    double cx, cy, r = token_radius(c, i);
    render_body_centre(c, &k->mc.c.body, &cx, &cy);
    size_t n = text_copy(out->text, sizeof out->text, k->label, RENDER_LABEL_MAX);
    size_t chars = text_chars(out->text, n);
    double size = r * (chars <= 2 ? 0.95 : chars == 3 ? 0.72 : 0.58);
    double w = pen_text_width(&c->pen, size, true, out->text), room = r * 1.8;
    if (w > room)
        size *= room / w, w = room;
    out->x = cx, out->y = cy + size * 0.36, out->size = size, out->width = w;
    return true;
}

void render_draw_creature(struct render_ctx *c, int i)
{
    const struct render_scene *s = c->s;
    const struct render_creature *k = &s->creatures[i];
    const struct rules_creature *cr = &k->mc.c;
    const struct render_layout *l = &c->l;
    if (!render_body_in_view(c, &cr->body))
        return;
    uint32_t col = render_side_colour(k->side);
    bool down = (k->conditions & RENDER_COND_DOWN) != 0;
    double alpha = down ? 0.5 : 1;
    double cx, cy;
    render_body_centre(c, &cr->body, &cx, &cy);
    int side = l->grid == RULES_GRID_HEX ? 1 : cr->body.side;
    double span = side * l->cell; /* the footprint's width */
    pen_group_begin(&c->pen, "creature-", k->id, i == s->mover ? "creature mover" : "creature");
    double r = token_radius(c, i);
    if (l->grid == RULES_GRID_HEX && cr->body.tri > 0) {
        int q[3], rr[3];
        int n = rules_hex_members(&cr->body, q, rr);
        for (int h = 0; h < n; h++) {
            double xy[12];
            int m = render_cell_polygon(l, q[h], rr[h], 0.08, xy);
            pen_polygon(&c->pen, xy, m, col, 0.35 * alpha, col, alpha, 1.5);
        }
    } else if (side > 1) {
        /* A space larger than one square: the whole footprint, rounded. */
        double inset = l->cell * 0.08, x0 = cx - span / 2 + inset, y0 = cy - span / 2 + inset;
        double w = span - 2 * inset;
        double xy[8] = {x0, y0, x0 + w, y0, x0 + w, y0 + w, x0, y0 + w};
        pen_polygon(&c->pen, xy, 4, col, 0.35 * alpha, col, alpha, 2);
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
    struct render_label lb;
    if (render_label_of(c, i, &lb))
        pen_text(&c->pen, lb.x, lb.y, lb.size, true, 1, lb.text, 0xffffff, C_INK,
                 RENDER_LABEL_HALO);
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
    for (int b = 0; b < RENDER_COND_COUNT && l->cell >= 12; b++) {
        if (!(k->conditions & (1u << b)))
            continue;
        char t[2] = {render_cond_letters[b], '\0'};
        pen_circle(&c->pen, bx, by, badge, render_cond_colours[b], 1, 0xffffff, 1);
        pen_text(&c->pen, bx, by + badge * 0.45, badge * 1.25, true, 1, t, 0xffffff, 0, 0);
        bx -= badge * 2.1;
    }
    pen_group_end(&c->pen);
}
