/* The ground under every mark: floor and terrain, the grid, and the column and row numbers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_internal.h"

/* --- the ground --- */

uint32_t render_terrain_colour(int t)
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
void render_terrain_mark(struct render_ctx *c, double cx, double cy, double size, int t,
                         bool pillar)
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

void render_draw_ground(struct render_ctx *c)
{
    const struct rules_map *m = c->s->map;
    const struct render_layout *l = &c->l;
    if (!render_charge(c, (long long)l->cols * l->rows))
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
                render_fill_cell(c, x, y, pillar ? C_FLOOR : render_terrain_colour(t), 1);
            if (t != RULES_MAP_CLEAR && t != RULES_MAP_BLOCKED && l->cell < 6)
                continue;
            if (t != RULES_MAP_CLEAR) {
                double cx, cy;
                render_square_centre(l, x, y, &cx, &cy);
                render_terrain_mark(c, cx, cy, l->cell, t, pillar);
            }
        }
    for (int y = l->y0; y < l->y0 + l->rows; y++)
        for (int x = l->x0; x < l->x0 + l->cols; x++)
            if (m->flags[(size_t)y * (size_t)m->width + (size_t)x] & RULES_SQUARE_CONCEALED)
                render_fill_cell(c, x, y, C_DARK, 0.38);
}

void render_draw_grid(struct render_ctx *c)
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
            int n = render_cell_polygon(l, x, y, 0, xy);
            pen_polygon(&c->pen, xy, n, 0, 0, C_GRID, 1, lw);
        }
}

/* Column and row numbers along the top and left, so a ruling can name a square. */
void render_draw_numbers(struct render_ctx *c)
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
        pen_text(&c->pen, l->ox + (x - l->x0 + 0.5) * l->cell, l->oy - 6, 10, false, 1, t, 0x666666,
                 0, 0);
    }
    for (int y = l->y0; y < l->y0 + l->rows; y++) {
        if (y % every != 0)
            continue;
        snprintf(t, sizeof t, "%d", y);
        pen_text(&c->pen, l->ox - 12, l->oy + (y - l->y0 + 0.5) * l->cell + 3.5, 10, false, 1, t,
                 0x666666, 0, 0);
    }
}
