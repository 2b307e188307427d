/* Which part of the map a picture shows and how large its cells are (render.h,
 * render_layout_of), and where a square lies in it. */
#include <math.h>

#include "render/render_internal.h"

#define SQRT3       1.7320508075688772
#define MAX_CELL    64.0
#define PAD         8
#define PAD_LEFT    26 /* room for the row numbers */
#define PAD_TOP     20 /* room for the column numbers */
#define CROP_MARGIN 3

struct box {
    int x0, y0, x1, y1; /* inclusive; x0 > x1 when empty */
};

static void box_add(struct box *b, int x, int y)
{
    if (b->x0 > b->x1) {
        *b = (struct box){x, y, x, y};
        return;
    }
    if (x < b->x0)
        b->x0 = x;
    if (x > b->x1)
        b->x1 = x;
    if (y < b->y0)
        b->y0 = y;
    if (y > b->y1)
        b->y1 = y;
}

static void box_add_creature(struct box *b, const struct rules_options *o,
                             const struct rules_creature *c)
{
    if (o->grid == RULES_GRID_HEX) {
        int q[3], r[3];
        int n = rules_hex_members(&c->body, q, r);
        for (int i = 0; i < n; i++)
            box_add(b, q[i], r[i]);
        return;
    }
    box_add(b, c->body.x, c->body.y);
    box_add(b, c->body.x + c->body.side - 1, c->body.y + c->body.side - 1);
}

static void box_add_steps(struct box *b, const struct rules_step *s, int n)
{
    for (int i = 0; s != NULL && i < n; i++)
        box_add(b, s[i].x, s[i].y);
}

/* The creatures and the action: what a crop must keep in view. */
static struct box interest_of(const struct render_scene *s)
{
    struct box b = {1, 1, 0, 0};
    const struct render_overlays *ov = &s->ov;
    if (s->focus >= 0) {
        box_add_creature(&b, s->o, &s->creatures[s->focus].mc.c);
    } else {
        for (int i = 0; i < s->creature_count; i++)
            box_add_creature(&b, s->o, &s->creatures[i].mc.c);
    }
    if (s->mover >= 0)
        box_add_creature(&b, s->o, &s->creatures[s->mover].mc.c);
    box_add_steps(&b, ov->path, ov->path_len);
    box_add_steps(&b, ov->area, ov->area_len);
    box_add_steps(&b, ov->forced, ov->forced_len);
    for (int i = 0; ov->cover != NULL && i < ov->cover_count; i++) {
        box_add_creature(&b, s->o, &s->creatures[ov->cover[i].attacker].mc.c);
        box_add_creature(&b, s->o, &s->creatures[ov->cover[i].target].mc.c);
    }
    for (int i = 0; ov->strikes != NULL && i < ov->strike_count; i++) {
        box_add_creature(&b, s->o, &s->creatures[ov->strikes[i].attacker].mc.c);
        box_add_creature(&b, s->o, &s->creatures[ov->strikes[i].target].mc.c);
    }
    if (b.x0 > b.x1) /* nothing at all: the map's corner */
        b = (struct box){0, 0, 0, 0};
    return b;
}

/* The board's size in pixels for a view of cols x rows at a given cell. */
static void board_size(enum rules_grid g, int cols, int rows, double cell, double *w, double *h)
{
    if (g == RULES_GRID_HEX) {
        double radius = cell / SQRT3;
        *w = radius * (1.5 * cols + 0.5);
        *h = cell * (rows + (cols - 1) / 2.0);
        return;
    }
    *w = cell * cols;
    *h = cell * rows;
}

/* The largest cell at which cols x rows fit in w x h. */
static double fit_cell(enum rules_grid g, int cols, int rows, double w, double h)
{
    double bw, bh;
    board_size(g, cols, rows, 1.0, &bw, &bh);
    double c = fmin(w / bw, h / bh);
    return c > MAX_CELL ? MAX_CELL : c;
}

/* The most squares along one axis that fit in `avail` pixels at `cell` (squares), given the
 * other axis' count for hexes' skew. */
static int fit_count_x(enum rules_grid g, double avail, double cell)
{
    if (g == RULES_GRID_HEX)
        return (int)floor((avail / (cell / SQRT3) - 0.5) / 1.5);
    return (int)floor(avail / cell);
}

static int fit_count_y(enum rules_grid g, double avail, double cell, int cols)
{
    if (g == RULES_GRID_HEX)
        return (int)floor(avail / cell - (cols - 1) / 2.0);
    return (int)floor(avail / cell);
}

/* Widens [lo, hi] to `want` squares within [0, limit), as evenly as the edges allow. */
static void widen(int *lo, int *hi, int want, int limit)
{
    int have = *hi - *lo + 1;
    if (want > limit)
        want = limit;
    if (want <= have)
        return;
    int extra = want - have;
    *lo -= extra / 2;
    *hi += extra - extra / 2;
    if (*lo < 0) {
        *hi -= *lo;
        *lo = 0;
    }
    if (*hi > limit - 1) {
        *lo -= *hi - (limit - 1);
        *hi = limit - 1;
    }
    if (*lo < 0)
        *lo = 0;
}

int render_layout_of(const struct render_scene *s, const struct render_cover_ruling *cover,
                     struct render_layout *out)
{
    enum rules_grid g = s->o->grid;
    int max_w = s->max_width > 0 ? s->max_width : RENDER_DEFAULT_SIZE;
    int max_h = s->max_height > 0 ? s->max_height : RENDER_DEFAULT_SIZE;
    int legend_w = max_w < 420 ? max_w : 420;
    int legend_h = s->ov.legend ? render_legend_height_estimate(s, cover, legend_w) : 0;
    bool numbers = g == RULES_GRID_SQUARE;
    double pad_l = numbers ? PAD_LEFT : PAD, pad_t = numbers ? PAD_TOP : PAD;
    double avail_w = max_w - pad_l - PAD, avail_h = max_h - pad_t - PAD - legend_h;
    if (avail_w < 16 || avail_h < 16)
        avail_w = avail_w < 16 ? 16 : avail_w, avail_h = avail_h < 16 ? 16 : avail_h;
    int mw = s->map->width, mh = s->map->height;
    struct render_layout l = {.grid = g, .x0 = 0, .y0 = 0, .cols = mw, .rows = mh};
    double cell = fit_cell(g, mw, mh, avail_w, avail_h);
    if (cell < RENDER_MIN_CELL) {
        struct box b = interest_of(s);
        b.x0 -= CROP_MARGIN, b.y0 -= CROP_MARGIN, b.x1 += CROP_MARGIN, b.y1 += CROP_MARGIN;
        b.x0 = b.x0 < 0 ? 0 : b.x0, b.y0 = b.y0 < 0 ? 0 : b.y0;
        b.x1 = b.x1 > mw - 1 ? mw - 1 : b.x1, b.y1 = b.y1 > mh - 1 ? mh - 1 : b.y1;
        int cols = b.x1 - b.x0 + 1, rows = b.y1 - b.y0 + 1;
        cell = fit_cell(g, cols, rows, avail_w, avail_h);
        if (cell >= RENDER_MIN_CELL) {
            /* The action fits at the minimum cell: show as much around it as fits. */
            cell = RENDER_MIN_CELL;
            widen(&b.x0, &b.x1, fit_count_x(g, avail_w, cell), mw);
            cols = b.x1 - b.x0 + 1;
            widen(&b.y0, &b.y1, fit_count_y(g, avail_h, cell, cols), mh);
        }
        l.x0 = b.x0, l.y0 = b.y0, l.cols = b.x1 - b.x0 + 1, l.rows = b.y1 - b.y0 + 1;
        l.cropped = true;
    }
    if (cell < 1)
        cell = 1;
    if (cell < 14)
        numbers = false, pad_l = PAD, pad_t = PAD;
    l.cell = floor(cell);
    double bw, bh;
    board_size(g, l.cols, l.rows, l.cell, &bw, &bh);
    int width = (int)ceil(bw + pad_l + PAD);
    if (s->ov.legend && width < legend_w)
        width = legend_w;
    l.board_w = bw, l.board_h = bh;
    l.ox = pad_l + floor((width - pad_l - PAD - bw) / 2);
    l.oy = pad_t;
    l.width = width;
    l.board_height = (int)ceil(bh + pad_t + PAD);
    l.height = l.board_height;
    if (s->ov.legend) {
        struct render_legend lg;
        render_legend_collect(s, cover, &l, NULL, &lg);
        l.height += render_legend_height(s, &lg, l.width);
    }
    *out = l;
    return RENDER_OK;
}

void render_square_centre(const struct render_layout *l, int x, int y, double *px, double *py)
{
    double dx = x - l->x0, dy = y - l->y0;
    if (l->grid == RULES_GRID_HEX) {
        double radius = l->cell / SQRT3;
        *px = l->ox + radius + 1.5 * radius * dx;
        *py = l->oy + l->cell / 2 + l->cell * (dy + dx / 2);
        return;
    }
    *px = l->ox + (dx + 0.5) * l->cell;
    *py = l->oy + (dy + 0.5) * l->cell;
}
