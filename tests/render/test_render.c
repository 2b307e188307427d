/* render/: pictures checked on what they show, not on file hashes. PNGs are read back with
 * cairo and sampled at the centre of known squares; SVGs are checked for well-formedness and
 * for one group per creature carrying its id. */
#include <cairo.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "render.h"

/* Every test runs in its own process: let each one's leak check see cairo's and fontconfig's
 * process-wide caches released. */
__attribute__((destructor)) static void release_caches(void)
{
    render_release_caches();
}

/* The colours render draws with (draw.c), as a reader of the picture expects them. */
#define FLOOR 0xf4f1e8u
#define WALL  0x3b3b3bu
#define BLUE  0x2f6fd6u
#define RED   0xd23a2fu

struct board {
    struct rules_options o;
    struct rules_map map;
    struct render_creature cs[8];
    int n;
    const char *sides[2];
    struct rules_mover stats;
    struct render_scene s;
};

static void board_init(struct board *b, enum rules_grid grid, int w, int h)
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

static int add(struct board *b, const char *id, int side, int x, int y, enum rules_size size)
{
    struct render_creature *k = &b->cs[b->n];
    k->id = id;
    k->label = "";
    k->side = side;
    rules_creature_init(&k->mc.c, size, x, y, 0);
    k->mc.conscious = true;
    b->s.creature_count = ++b->n;
    return b->n - 1;
}

static void make_mover(struct board *b, int i, int walk)
{
    b->s.mover = i;
    b->stats.c = b->cs[i].mc.c;
    b->stats.speed[RULES_MOVE_WALK] = walk;
    b->s.stats = &b->stats;
}

struct png {
    cairo_surface_t *surface;
    const unsigned char *at;
    size_t left;
};

static cairo_status_t read_png(void *closure, unsigned char *data, unsigned int length)
{
    struct png *p = closure;
    if (length > p->left)
        return CAIRO_STATUS_READ_ERROR;
    memcpy(data, p->at, length);
    p->at += length;
    p->left -= length;
    return CAIRO_STATUS_SUCCESS;
}

static cairo_surface_t *decode(const struct render_image *img)
{
    struct png p = {.at = img->data, .left = img->len};
    cairo_surface_t *s = cairo_image_surface_create_from_png_stream(read_png, &p);
    cr_assert_eq(cairo_surface_status(s), CAIRO_STATUS_SUCCESS, "the PNG does not decode");
    return s;
}

static uint32_t pixel(cairo_surface_t *s, double x, double y)
{
    cairo_surface_flush(s);
    int stride = cairo_image_surface_get_stride(s);
    const unsigned char *d = cairo_image_surface_get_data(s);
    const uint32_t *row = (const uint32_t *)(const void *)(d + (size_t)stride * (size_t)y);
    return row[(size_t)x] & 0xffffffu;
}

static uint32_t centre(cairo_surface_t *s, const struct render_layout *l, int x, int y)
{
    double px, py;
    render_square_centre(l, x, y, &px, &py);
    return pixel(s, px, py);
}

static uint32_t blend(uint32_t under, uint32_t over, double a)
{
    uint32_t out = 0;
    for (int sh = 16; sh >= 0; sh -= 8) {
        double u = (under >> sh) & 0xff, o = (over >> sh) & 0xff;
        out |= (uint32_t)(u + (o - u) * a + 0.5) << sh;
    }
    return out;
}

static bool near(uint32_t a, uint32_t b, int tol)
{
    for (int sh = 16; sh >= 0; sh -= 8) {
        int d = (int)((a >> sh) & 0xff) - (int)((b >> sh) & 0xff);
        if (d > tol || d < -tol)
            return false;
    }
    return true;
}

#define assert_colour(got, want, what)                                                             \
    cr_assert(near((got), (want), 8), "%s: got #%06x, want #%06x", (what), (got), (want))

static void render_png(struct board *b, struct render_image *img)
{
    cr_assert_eq(render_draw(&b->s, RENDER_PNG, img), RENDER_OK);
    cr_assert_gt(img->len, 8u);
    cr_assert_eq(memcmp(img->data, "\x89PNG", 4), 0);
}

Test(render_png, wall_sides_and_threat_at_their_squares)
{
    struct board b;
    board_init(&b, RULES_GRID_SQUARE, 10, 8);
    b.map.terrain[1 * 10 + 5] = RULES_MAP_BLOCKED;
    int hero = add(&b, "hero", 0, 2, 5, RULES_SIZE_MEDIUM);
    add(&b, "friend", 0, 1, 1, RULES_SIZE_MEDIUM);
    add(&b, "orc", 1, 7, 5, RULES_SIZE_MEDIUM);
    make_mover(&b, hero, 30);
    b.s.ov.threatened = true;
    struct render_image img;
    render_png(&b, &img);
    cairo_surface_t *s = decode(&img);
    cr_assert_eq(cairo_image_surface_get_width(s), img.layout.width);
    cr_assert_eq(cairo_image_surface_get_height(s), img.layout.height);
    cr_assert(!img.layout.cropped);
    cr_assert_geq(img.layout.cell, RENDER_MIN_CELL);
    assert_colour(centre(s, &img.layout, 5, 1), WALL, "the wall");
    assert_colour(centre(s, &img.layout, 2, 5), BLUE, "the mover (ally side)");
    assert_colour(centre(s, &img.layout, 1, 1), BLUE, "the ally");
    assert_colour(centre(s, &img.layout, 7, 5), RED, "the enemy");
    /* The orc threatens the squares around it (natural reach 5 ft), in its side's colour. */
    assert_colour(centre(s, &img.layout, 8, 4), blend(FLOOR, RED, 0.26), "a threatened square");
    assert_colour(centre(s, &img.layout, 4, 2), FLOOR, "an unthreatened square");
    cairo_surface_destroy(s);
    render_image_free(&img);
    rules_map_free(&b.map);
}

Test(render_png, reached_square_is_heat_coloured_and_walls_are_not_reached)
{
    struct board b;
    board_init(&b, RULES_GRID_SQUARE, 12, 6);
    for (int y = 0; y < 6; y++)
        b.map.terrain[y * 12 + 6] = RULES_MAP_BLOCKED; /* a wall across the map */
    int hero = add(&b, "hero", 0, 1, 2, RULES_SIZE_MEDIUM);
    make_mover(&b, hero, 30);
    b.s.ov.reach = true;
    struct render_image img;
    render_png(&b, &img);
    cairo_surface_t *s = decode(&img);
    uint32_t reached = centre(s, &img.layout, 3, 2);
    cr_assert(!near(reached, FLOOR, 8), "a reached square is coloured, got #%06x", reached);
    /* Beyond the wall nothing is reached: plain floor. */
    assert_colour(centre(s, &img.layout, 8, 2), FLOOR, "beyond the wall");
    assert_colour(centre(s, &img.layout, 6, 2), WALL, "the wall");
    /* The cheapest squares are greener than the dearest. */
    uint32_t near_sq = centre(s, &img.layout, 2, 2), far_sq = centre(s, &img.layout, 5, 0);
    cr_assert_geq((near_sq >> 8) & 0xff, (far_sq >> 8) & 0xff);
    cr_assert_lt((near_sq >> 16) & 0xff, (far_sq >> 16) & 0xff);
    cairo_surface_destroy(s);
    render_image_free(&img);
    rules_map_free(&b.map);
}

Test(render_png, large_creature_fills_its_true_footprint)
{
    struct board b;
    board_init(&b, RULES_GRID_SQUARE, 8, 8);
    add(&b, "ogre", 1, 3, 3, RULES_SIZE_LARGE);
    struct render_image img;
    render_png(&b, &img);
    cairo_surface_t *s = decode(&img);
    /* Each of its four squares is inside its footprint (tinted, not floor). */
    for (int y = 3; y <= 4; y++)
        for (int x = 3; x <= 4; x++)
            cr_assert(!near(centre(s, &img.layout, x, y), FLOOR, 8), "(%d, %d)", x, y);
    assert_colour(centre(s, &img.layout, 5, 3), FLOOR, "beside it");
    cairo_surface_destroy(s);
    render_image_free(&img);
    rules_map_free(&b.map);
}

Test(render_png, large_map_is_cropped_to_the_action_at_readable_size)
{
    struct board b;
    board_init(&b, RULES_GRID_SQUARE, 200, 150);
    add(&b, "hero", 0, 100, 70, RULES_SIZE_MEDIUM);
    add(&b, "orc", 1, 104, 72, RULES_SIZE_MEDIUM);
    struct render_image img;
    render_png(&b, &img);
    const struct render_layout *l = &img.layout;
    cr_assert(l->cropped);
    cr_assert_geq(l->cell, RENDER_MIN_CELL);
    cr_assert_leq(l->width, RENDER_DEFAULT_SIZE);
    cr_assert_leq(l->height, RENDER_DEFAULT_SIZE);
    cr_assert_lt(l->cols, 200);
    /* Both creatures are in view with the margin, and drawn where the layout says. */
    cr_assert_leq(l->x0, 97);
    cr_assert_geq(l->x0 + l->cols, 108);
    cr_assert_leq(l->y0, 67);
    cr_assert_geq(l->y0 + l->rows, 76);
    cairo_surface_t *s = decode(&img);
    cr_assert_eq(cairo_image_surface_get_width(s), l->width);
    assert_colour(centre(s, l, 100, 70), BLUE, "the hero");
    assert_colour(centre(s, l, 104, 72), RED, "the orc");
    cairo_surface_destroy(s);
    render_image_free(&img);
    rules_map_free(&b.map);
}

Test(render_png, focus_crops_to_one_creature)
{
    struct board b;
    board_init(&b, RULES_GRID_SQUARE, 300, 300);
    add(&b, "hero", 0, 10, 10, RULES_SIZE_MEDIUM);
    add(&b, "orc", 1, 250, 260, RULES_SIZE_MEDIUM);
    b.s.focus = 1;
    struct render_image img;
    render_png(&b, &img);
    const struct render_layout *l = &img.layout;
    cr_assert(l->cropped);
    cr_assert_geq(l->cell, RENDER_MIN_CELL);
    cr_assert(250 >= l->x0 && 250 < l->x0 + l->cols && 260 >= l->y0 && 260 < l->y0 + l->rows);
    cr_assert(!(10 >= l->x0 && 10 < l->x0 + l->cols), "the far creature is cropped out");
    render_image_free(&img);
    rules_map_free(&b.map);
}

Test(render_png, size_option_bounds_the_picture)
{
    struct board b;
    board_init(&b, RULES_GRID_SQUARE, 40, 40);
    add(&b, "hero", 0, 5, 5, RULES_SIZE_MEDIUM);
    b.s.max_width = b.s.max_height = 400;
    struct render_image img;
    render_png(&b, &img);
    cairo_surface_t *s = decode(&img);
    cr_assert_leq(cairo_image_surface_get_width(s), 400);
    cr_assert_leq(cairo_image_surface_get_height(s), 400);
    cairo_surface_destroy(s);
    render_image_free(&img);
    rules_map_free(&b.map);
}

Test(render_png, same_scene_gives_the_same_bytes)
{
    struct board b;
    board_init(&b, RULES_GRID_SQUARE, 10, 10);
    int hero = add(&b, "hero", 0, 2, 2, RULES_SIZE_MEDIUM);
    add(&b, "orc", 1, 5, 5, RULES_SIZE_MEDIUM);
    b.cs[0].label = "Hero";
    make_mover(&b, hero, 30);
    b.s.ov.reach = b.s.ov.threatened = true;
    struct render_image one, two;
    render_png(&b, &one);
    render_png(&b, &two);
    cr_assert_eq(one.len, two.len);
    cr_assert_eq(memcmp(one.data, two.data, one.len), 0);
    cr_assert_null(memmem(one.data, one.len, "tIME", 4), "no timestamp chunk");
    render_image_free(&one);
    render_image_free(&two);
    rules_map_free(&b.map);
}

Test(render_png, flanking_line_runs_between_the_flankers)
{
    struct board b;
    board_init(&b, RULES_GRID_SQUARE, 9, 7);
    add(&b, "a", 0, 2, 3, RULES_SIZE_MEDIUM);
    add(&b, "orc", 1, 3, 3, RULES_SIZE_MEDIUM);
    add(&b, "b", 0, 4, 3, RULES_SIZE_MEDIUM);
    b.s.ov.flanking = true;
    struct render_image img;
    render_png(&b, &img);
    cairo_surface_t *s = decode(&img);
    /* On the border between the attacker's square and the target's, between the two discs. */
    const struct render_layout *l = &img.layout;
    double x = l->ox + (3 - l->x0) * l->cell, y = l->oy + (3.5 - l->y0) * l->cell;
    uint32_t got = pixel(s, x, y);
    cr_assert(near(got, 0xd81b90, 60), "the flanking line, got #%06x", got);
    cairo_surface_destroy(s);
    render_image_free(&img);
    rules_map_free(&b.map);
}

Test(render_png, path_shows_where_it_provokes)
{
    struct board b;
    board_init(&b, RULES_GRID_SQUARE, 10, 6);
    int hero = add(&b, "hero", 0, 1, 2, RULES_SIZE_MEDIUM);
    add(&b, "orc", 1, 3, 1, RULES_SIZE_MEDIUM);
    make_mover(&b, hero, 30);
    struct rules_step path[] = {{2, 2, -1}, {3, 2, -1}, {4, 2, -1}, {5, 2, -1}};
    b.s.ov.path = path;
    b.s.ov.path_len = 4;
    struct render_image img;
    render_png(&b, &img);
    cairo_surface_t *s = decode(&img);
    /* Leaving (3, 2) or (4, 2), both threatened by the orc, provokes: a red ring is drawn
     * around one of them, 0.42 of a cell from its centre. */
    const struct render_layout *l = &img.layout;
    bool ring = false;
    for (int x = 2; x <= 4 && !ring; x++) {
        double px, py;
        render_square_centre(l, x, 2, &px, &py);
        ring = near(pixel(s, px, py + l->cell * 0.42), 0xc0001a, 40);
    }
    cr_assert(ring, "a provoking square is ringed");
    cairo_surface_destroy(s);
    render_image_free(&img);
    rules_map_free(&b.map);
}

Test(render_png, hex_grid_draws_creatures_on_their_hexes)
{
    struct board b;
    board_init(&b, RULES_GRID_HEX, 8, 6);
    b.map.terrain[2 * 8 + 4] = RULES_MAP_BLOCKED;
    add(&b, "elf", 0, 1, 1, RULES_SIZE_MEDIUM);
    int ogre = add(&b, "ogre", 1, 5, 2, RULES_SIZE_LARGE);
    rules_creature_on_hexes(&b.cs[ogre].mc.c, 0);
    struct render_image img;
    render_png(&b, &img);
    cairo_surface_t *s = decode(&img);
    assert_colour(centre(s, &img.layout, 1, 1), BLUE, "the elf");
    assert_colour(centre(s, &img.layout, 4, 2), WALL, "the wall hex");
    int q[3], r[3];
    int n = rules_hex_members(&b.cs[ogre].mc.c.body, q, r);
    for (int i = 0; i < n; i++)
        cr_assert(!near(centre(s, &img.layout, q[i], r[i]), FLOOR, 8), "ogre hex %d", i);
    cairo_surface_destroy(s);
    render_image_free(&img);
    rules_map_free(&b.map);
}

Test(render_png, work_budget_refuses_an_expensive_picture)
{
    struct board b;
    board_init(&b, RULES_GRID_SQUARE, 40, 40);
    int hero = add(&b, "hero", 0, 20, 20, RULES_SIZE_MEDIUM);
    make_mover(&b, hero, 60);
    b.s.ov.reach = true;
    struct rules_work work = {.limit = 100};
    b.s.work = &work;
    struct render_image img;
    cr_assert_eq(render_draw(&b.s, RENDER_PNG, &img), RENDER_ERR_TOO_EXPENSIVE);
    cr_assert_null(img.data);
    cr_assert_gt(work.used, 100);
    rules_map_free(&b.map);
}

/* --- SVG --- */

/* A small well-formedness check: tags nest and close, attributes are quoted. Returns the
 * number of elements, or -1. */
static int xml_elements(const char *s, size_t len)
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

static int occurrences(const char *hay, size_t len, const char *needle)
{
    int n = 0;
    size_t k = strlen(needle);
    for (const char *p = hay; (p = memmem(p, len - (size_t)(p - hay), needle, k)) != NULL; p += k)
        n++;
    return n;
}

Test(render_svg, one_group_per_creature_carrying_its_id)
{
    struct board b;
    board_init(&b, RULES_GRID_SQUARE, 10, 8);
    int hero = add(&b, "hero", 0, 2, 5, RULES_SIZE_MEDIUM);
    add(&b, "orc-1", 1, 7, 5, RULES_SIZE_MEDIUM);
    add(&b, "a<b&\"c\"", 1, 7, 2, RULES_SIZE_LARGE);
    b.cs[0].label = "Hero";
    b.cs[1].hp_known = true, b.cs[1].hp = 3, b.cs[1].max_hp = 9;
    b.cs[1].conditions = RENDER_COND_PRONE;
    make_mover(&b, hero, 30);
    b.s.ov.threatened = b.s.ov.reach = b.s.ov.flanking = true;
    struct render_image img;
    cr_assert_eq(render_draw(&b.s, RENDER_SVG, &img), RENDER_OK);
    const char *t = (const char *)img.data;
    cr_assert_gt(xml_elements(t, img.len), 10, "well-formed XML");
    cr_assert_eq(occurrences(t, img.len, "class=\"creature"), 3);
    cr_assert_eq(occurrences(t, img.len,
                             "<g id=\"creature-hero\" data-id=\"hero\" "
                             "class=\"creature mover\""),
                 1);
    cr_assert_eq(occurrences(t, img.len, "id=\"creature-orc-1\" data-id=\"orc-1\""), 1);
    cr_assert_eq(occurrences(t, img.len, "data-id=\"a&lt;b&amp;&quot;c&quot;\""), 1);
    cr_assert_eq(occurrences(t, img.len, ">Hero</text>"), 1);
    /* The legend names the sides, the marks and the overlays in use. */
    cr_assert_eq(occurrences(t, img.len, ">threatened by enemy</text>"), 1);
    cr_assert_eq(occurrences(t, img.len, ">prone</text>"), 1);
    cr_assert_eq(occurrences(t, img.len, ">hit points</text>"), 1);
    cr_assert_eq(occurrences(t, img.len, ">reachable (ft spent)</text>"), 1);
    char head[128];
    snprintf(head, sizeof head, "width=\"%d\" height=\"%d\"", img.layout.width, img.layout.height);
    cr_assert_eq(occurrences(t, img.len, head), 1);
    struct render_image again;
    cr_assert_eq(render_draw(&b.s, RENDER_SVG, &again), RENDER_OK);
    cr_assert(again.len == img.len && memcmp(again.data, img.data, img.len) == 0);
    render_image_free(&again);
    render_image_free(&img);
    rules_map_free(&b.map);
}

Test(render_svg, cover_marks_what_stands_in_the_way)
{
    struct board b;
    board_init(&b, RULES_GRID_SQUARE, 10, 5);
    b.map.terrain[2 * 10 + 4] = RULES_MAP_BLOCKED;
    add(&b, "archer", 0, 1, 2, RULES_SIZE_MEDIUM);
    add(&b, "orc", 1, 7, 2, RULES_SIZE_MEDIUM);
    struct render_pair pair = {0, 1};
    b.s.ov.cover = &pair;
    b.s.ov.cover_count = 1;
    struct render_image img;
    cr_assert_eq(render_draw(&b.s, RENDER_SVG, &img), RENDER_OK);
    const char *t = (const char *)img.data;
    cr_assert_gt(xml_elements(t, img.len), 0);
    /* The centre line and the lines to the corners on the wall's side cross the wall. */
    cr_assert_eq(occurrences(t, img.len, ">5/5 lines crossed</text>"), 1);
    cr_assert_eq(occurrences(t, img.len, ">in the way</text>"), 1);
    render_image_free(&img);
    rules_map_free(&b.map);
}
