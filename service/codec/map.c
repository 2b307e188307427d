/* Decoding body.map (move_req.h): its size, rows by legend and rectangles of squares, painted
 * within the request's paint budget. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/codec/move_req.h"
#include "service/json/errors.h"
#include "service/json/fields.h"

#define MAX_SQUARES    100000
#define MAX_ROW_ERRORS 20

/* Row legend of map.rows. */
static const char legend[] = ".dioh#wae";
static const enum rules_map_terrain legend_terrain[] = {
    RULES_MAP_CLEAR,   RULES_MAP_DIFFICULT, RULES_MAP_IMPEDED,
    RULES_MAP_BLOCKED, RULES_MAP_HAZARDOUS, RULES_MAP_BLOCKED,
    RULES_MAP_WATER,   RULES_MAP_AIR,       RULES_MAP_EARTH};

static const char *const terrain_names[] = {"clear", "difficult", "impeded", "blocked", "hazardous",
                                            "water", "air",       "earth",   NULL};

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

/* /map/width and /map/height: at most the side any configuration allows, then at most this
 * server's --max-map-side. False (the errors in e) when either is refused. */
static bool decode_map_sides(json_t *m, unsigned max_side, long long *w, long long *h,
                             struct svc_errors *e)
{
    bool ok = codec_get_int(m, "/map", "width", true, 1, SVC_MAP_SIDE_LIMIT, w, e);
    ok &= codec_get_int(m, "/map", "height", true, 1, SVC_MAP_SIDE_LIMIT, h, e);
    if (ok && *w > max_side) {
        svc_errors_add(e, "/map/width", "exceeds the configured limit of %u squares", max_side);
        ok = false;
    }
    if (ok && *h > max_side) {
        svc_errors_add(e, "/map/height", "exceeds the configured limit of %u squares", max_side);
        ok = false;
    }
    return ok;
}

/* /map/rows: one string of legend characters per row, painted onto r->map. Returns the squares
 * painted (each row read counts whole). */
static long long decode_rows(json_t *m, struct move_req *r, struct svc_errors *e)
{
    long long w = r->map.width, h = r->map.height, painted = 0;
    json_t *rows = NULL;
    if (!CODEC_WITHIN(codec_get_array(m, "/map", "rows", false, (size_t)h, &rows, e)))
        return 0;
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
                svc_errors_add(e, ptr, "square %lld: '%c' is not in the legend . d i o h # w a e",
                               x, s[x] >= 32 && s[x] < 127 ? s[x] : '?');
                bad++;
                break;
            }
            size_t i = (size_t)y * (size_t)w + (size_t)x;
            assert(i < (size_t)w * (size_t)h);
            r->map.terrain[i] = (uint8_t)legend_terrain[p - legend];
            if (*p == 'o')
                r->map.flags[i] |= RULES_SQUARE_CUTTABLE;
        }
        painted += w;
    }
    return painted;
}

/* One member of /map/squares at ptr into *out. False when it does not lie on the map (its
 * errors in e). */
static bool decode_rect(json_t *sq, const char *ptr, const struct move_req *r, struct map_rect *out,
                        struct svc_errors *e)
{
    static const char *const keys[] = {"x",         "y",      "q",         "r",
                                       "width",     "height", "terrain",   "corners",
                                       "concealed", "gap_in", "elevation", NULL};
    static const char *const corners[] = {"solid", "cuttable", NULL};
    long long w = r->map.width, h = r->map.height;
    if (!codec_expect_object(sq, ptr, e))
        return false;
    codec_reject_unknown(sq, ptr, keys, e);
    long long x = 0, y = 0, sw = 1, sh = 1, gap = 0, elev = 0;
    /* Each within the map's own sides (CODEC_WITHIN: a bound the request sets). */
    bool placed =
        CODEC_WITHIN(codec_get_int(sq, ptr, move_hex(r) ? "q" : "x", true, 0, w - 1, &x, e));
    placed &= CODEC_WITHIN(codec_get_int(sq, ptr, move_hex(r) ? "r" : "y", true, 0, h - 1, &y, e));
    CODEC_WITHIN(codec_get_int(sq, ptr, "width", false, 1, w, &sw, e));
    CODEC_WITHIN(codec_get_int(sq, ptr, "height", false, 1, h, &sh, e));
    if (placed && (x + sw > w || y + sh > h)) {
        svc_errors_add(e, ptr, "reaches past the map's edge");
        placed = false;
    }
    int t = codec_get_enum(sq, ptr, "terrain", terrain_names, false, -1, e);
    int corner = codec_get_enum(sq, ptr, "corners", corners, false, -1, e);
    bool concealed = false, has_conc = codec_get_bool(sq, ptr, "concealed", false, &concealed, e);
    bool has_gap = codec_get_int(sq, ptr, "gap_in", false, 0, 65535, &gap, e);
    bool has_elev = codec_get_int(sq, ptr, "elevation", false, -100000, 100000, &elev, e);
    *out = (struct map_rect){.x = (int)x,
                             .y = (int)y,
                             .w = (int)sw,
                             .h = (int)sh,
                             .terrain = t,
                             .corners = corner,
                             .concealed = has_conc ? concealed : -1,
                             .gap = has_gap ? (int)gap : -1,
                             .elevation = (int)elev,
                             .has_elevation = has_elev};
    return placed;
}

/* Marks r's request refused for painting more map squares than its budget. */
static void map_over_budget(struct move_req *r, long long painted)
{
    r->spent = "map_squares";
    r->spent_budget = r->paint_limit;
    r->spent_reached = painted;
}

/* /map/squares: rectangles painted over the rows, later ones over earlier ones, within the
 * budget (painted so far: *painted). */
static void decode_squares(json_t *m, struct move_req *r, long long *painted, struct svc_errors *e)
{
    json_t *squares = NULL, *sq;
    if (!codec_get_array(m, "/map", "squares", false, MAX_SQUARES, &squares, e))
        return;
    struct map_rect *rects = malloc((json_array_size(squares) + 1) * sizeof *rects);
    if (rects == NULL) {
        svc_errors_add(e, "/map/squares", "could not be allocated");
        return;
    }
    size_t n = 0, i;
    bool gaps = false, elevations = false;
    json_array_foreach(squares, i, sq)
    {
        char ptr[CODEC_PTR_MAX];
        snprintf(ptr, sizeof ptr, "/map/squares/%zu", i);
        if (!decode_rect(sq, ptr, r, &rects[n], e))
            continue;
        gaps |= rects[n].gap >= 0, elevations |= rects[n].has_elevation;
        n++;
    }
    size_t cells = (size_t)r->map.width * (size_t)r->map.height;
    if (svc_errors_any(e) || n == 0) {
        /* An invalid request is answered 422 unpainted. */
    } else if ((gaps && (r->map.gap_in = calloc(cells, 2)) == NULL) ||
               (elevations && (r->map.elevation = calloc(cells, 2)) == NULL)) {
        svc_errors_add(e, "/map", "could not be allocated");
    } else if (!paint_rects(&r->map, rects, n, r->paint_limit, painted)) {
        if (*painted > r->paint_limit)
            map_over_budget(r, *painted);
        else
            svc_errors_add(e, "/map", "could not be allocated");
    }
    free(rects);
}

/* map: {width, height, rows?, squares?} */
void move_decode_map(json_t *body, const struct svc_config *cfg, struct move_req *r,
                     struct svc_errors *e)
{
    static const char *const keys[] = {"width", "height", "rows", "squares", NULL};
    assert(cfg != NULL && r != NULL && !r->map_ok);
    json_t *m = json_object_get(body, "map");
    if (m == NULL) {
        svc_errors_add(e, "/map", "is required");
        return;
    }
    if (!codec_expect_object(m, "/map", e))
        return;
    codec_reject_unknown(m, "/map", keys, e);
    long long w = 0, h = 0;
    if (!decode_map_sides(m, cfg->max_map_side, &w, &h, e))
        return;
    if (rules_map_init(&r->map, (int)w, (int)h) != 0) {
        svc_errors_add(e, "/map", "could not be allocated");
        return;
    }
    r->map_ok = true;
    long long painted = decode_rows(m, r, e);
    if (painted > r->paint_limit) {
        map_over_budget(r, painted);
        return;
    }
    decode_squares(m, r, &painted, e);
}
