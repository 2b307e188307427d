/* What the render tests share (harness.h). */
#include <cairo.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "rules/options.h"
#include "tests/render/harness.h"
#include "tests/support/png.h"

void board_init(struct board *b, enum rules_grid grid, int w, int h)
{
    memset(b, 0, sizeof *b);
    cr_assert_eq(rules_preset_apply(RULES_DEFAULT_PRESET, &b->o), 0);
    b->o.grid = grid;
    cr_assert_eq(rules_map_init(&b->map, w, h), 0);
    b->sides[0] = "ally";
    b->sides[1] = "enemy";
    b->s = (struct render_scene){
        .o = &b->o,
        .map = &b->map,
        .creatures = b->cs,
        .side_names = b->sides,
        .side_count = 2,
        .mover = -1,
        .focus = -1,
        .ov = {.facing_of = -1, .forced_creature = -1, .path_end_facing = -1, .legend = true}};
}

int add(struct board *b, const char *id, int side, int x, int y, enum rules_size size)
{
    struct render_creature *k = &b->cs[b->n];
    k->id = id;
    k->label = "";
    k->side = side;
    rules_creature_init(&k->mc.c, size, x, y, 0);
    k->mc.conscious = true;
    k->threatens = true;
    b->s.creature_count = ++b->n;
    return b->n - 1;
}

int board_with(struct board *b, int w, int h, const char *id, int side, int x, int y,
               enum rules_size size)
{
    board_init(b, RULES_GRID_SQUARE, w, h);
    return add(b, id, side, x, y, size);
}

void hero_and_orc(struct board *b, int w, int h, int hx, int hy, int ox, int oy)
{
    board_init(b, RULES_GRID_SQUARE, w, h);
    add(b, "hero", 0, hx, hy, RULES_SIZE_MEDIUM);
    add(b, "orc", 1, ox, oy, RULES_SIZE_MEDIUM);
}

void make_mover(struct board *b, int i, int walk)
{
    b->s.mover = i;
    b->stats.c = b->cs[i].mc.c;
    b->stats.speed[RULES_MOVE_WALK] = walk;
    b->s.stats = &b->stats;
}

cairo_surface_t *decode(const struct render_image *img)
{
    return test_png_decode(img->data, img->len);
}

uint32_t pixel(cairo_surface_t *s, double x, double y)
{
    cairo_surface_flush(s);
    int stride = cairo_image_surface_get_stride(s);
    const unsigned char *d = cairo_image_surface_get_data(s);
    const uint32_t *row = (const uint32_t *)(const void *)(d + (size_t)stride * (size_t)y);
    return row[(size_t)x] & 0xffffffu;
}

uint32_t centre(cairo_surface_t *s, const struct render_layout *l, int x, int y)
{
    double px, py;
    render_square_centre(l, x, y, &px, &py);
    return pixel(s, px, py);
}

uint32_t blend(uint32_t under, uint32_t over, double a)
{
    uint32_t out = 0;
    for (int sh = 16; sh >= 0; sh -= 8) {
        double u = (under >> sh) & 0xff, o = (over >> sh) & 0xff;
        out |= (uint32_t)(u + (o - u) * a + 0.5) << sh;
    }
    return out;
}

bool near(uint32_t a, uint32_t b, int tol)
{
    for (int sh = 16; sh >= 0; sh -= 8) {
        int d = (int)((a >> sh) & 0xff) - (int)((b >> sh) & 0xff);
        if (d > tol || d < -tol)
            return false;
    }
    return true;
}

void render_png(struct board *b, struct render_image *img)
{
    cr_assert_eq(render_draw(&b->s, RENDER_PNG, img), RENDER_OK);
    cr_assert_gt(img->len, 8u);
    cr_assert_eq(memcmp(img->data, "\x89PNG", 4), 0);
}

struct render_image svg_of(struct board *b)
{
    struct render_image img;
    cr_assert_eq(render_draw(&b->s, RENDER_SVG, &img), RENDER_OK);
    return img;
}

struct render_image png_of(struct board *b)
{
    struct render_image img;
    render_png(b, &img);
    return img;
}

void board_free(struct board *b, struct render_image *img, cairo_surface_t *s)
{
    if (s != NULL)
        cairo_surface_destroy(s);
    if (img != NULL)
        render_image_free(img);
    rules_map_free(&b->map);
}

/* A small well-formedness check: tags nest and close, attributes are quoted. Returns the
 * number of elements, or -1. */
int xml_elements(const char *s, size_t len)
{
    const char *stack[64];
    size_t lens[64];
    int depth = 0, count = 0;
    const char *end = s + len;
    while (s < end) {
        const char *lt = memchr(s, '<', (size_t)(end - s));
        if (lt == NULL)
            break;
        const char *gt = memchr(lt, '>', (size_t)(end - lt));
        if (gt == NULL)
            return -1;
        if (lt[1] == '?') {
            s = gt + 1;
            continue;
        }
        if (lt[1] == '/') {
            size_t n = (size_t)(gt - lt - 2);
            if (depth == 0 || lens[depth - 1] != n || memcmp(stack[depth - 1], lt + 2, n) != 0)
                return -1;
            depth--;
        } else {
            const char *name = lt + 1;
            size_t n = strcspn(name, " />");
            int quotes = 0;
            for (const char *p = lt; p < gt; p++)
                quotes += *p == '"';
            if (quotes % 2 != 0)
                return -1;
            count++;
            if (gt[-1] != '/') {
                if (depth == 64)
                    return -1;
                stack[depth] = name, lens[depth++] = n;
            }
        }
        s = gt + 1;
    }
    return depth == 0 ? count : -1;
}

int occurrences(const char *hay, size_t len, const char *needle)
{
    int n = 0;
    size_t k = strlen(needle);
    for (const char *p = hay; (p = memmem(p, len - (size_t)(p - hay), needle, k)) != NULL; p += k)
        n++;
    return n;
}

int text_count(const struct render_image *img, const char *text)
{
    char want[128];
    snprintf(want, sizeof want, ">%s</text>", text);
    return occurrences((const char *)img->data, img->len, want);
}
