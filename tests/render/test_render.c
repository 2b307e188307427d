/* render/: pictures checked on what they show, not on file hashes. PNGs are read back with
 * cairo and sampled at the centre of known squares; SVGs are checked for well-formedness and
 * for one group per creature carrying its id. */
#include <cairo.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "rules/options.h"
#include "tests/render/harness.h"

/* Every test runs in its own process: let each one's leak check see cairo's and fontconfig's
 * process-wide caches released. */
__attribute__((destructor)) static void release_caches(void)
{
    render_release_caches();
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
    struct render_image img = png_of(&b);
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
    board_free(&b, &img, s);
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
    struct render_image img = png_of(&b);
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
    board_free(&b, &img, s);
}

Test(render_png, large_creature_fills_its_true_footprint)
{
    struct board b;
    board_with(&b, 8, 8, "ogre", 1, 3, 3, RULES_SIZE_LARGE);
    struct render_image img = png_of(&b);
    cairo_surface_t *s = decode(&img);
    /* Each of its four squares is inside its footprint (tinted, not floor). */
    for (int y = 3; y <= 4; y++)
        for (int x = 3; x <= 4; x++)
            cr_assert(!near(centre(s, &img.layout, x, y), FLOOR, 8), "(%d, %d)", x, y);
    assert_colour(centre(s, &img.layout, 5, 3), FLOOR, "beside it");
    board_free(&b, &img, s);
}

Test(render_png, large_map_is_cropped_to_the_action_at_readable_size)
{
    struct board b;
    hero_and_orc(&b, 200, 150, 100, 70, 104, 72);
    struct render_image img = png_of(&b);
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
    board_free(&b, &img, s);
}

Test(render_png, focus_crops_to_one_creature)
{
    struct board b;
    hero_and_orc(&b, 300, 300, 10, 10, 250, 260);
    b.s.focus = ORC;
    struct render_image img = png_of(&b);
    const struct render_layout *l = &img.layout;
    cr_assert(l->cropped);
    cr_assert_geq(l->cell, RENDER_MIN_CELL);
    cr_assert(250 >= l->x0 && 250 < l->x0 + l->cols && 260 >= l->y0 && 260 < l->y0 + l->rows);
    cr_assert(!(10 >= l->x0 && 10 < l->x0 + l->cols), "the far creature is cropped out");
    board_free(&b, &img, NULL);
}

Test(render_png, size_option_bounds_the_picture)
{
    struct board b;
    board_with(&b, 40, 40, "hero", 0, 5, 5, RULES_SIZE_MEDIUM);
    b.s.max_width = b.s.max_height = 400;
    struct render_image img = png_of(&b);
    cairo_surface_t *s = decode(&img);
    cr_assert_leq(cairo_image_surface_get_width(s), 400);
    cr_assert_leq(cairo_image_surface_get_height(s), 400);
    board_free(&b, &img, s);
}

Test(render_png, same_scene_gives_the_same_bytes)
{
    struct board b;
    hero_and_orc(&b, 10, 10, 2, 2, 5, 5);
    b.cs[HERO].label = "Hero";
    make_mover(&b, HERO, 30);
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
    struct render_image img = png_of(&b);
    cairo_surface_t *s = decode(&img);
    /* On the border between the attacker's square and the target's, between the two discs. */
    const struct render_layout *l = &img.layout;
    double x = l->ox + (3 - l->x0) * l->cell, y = l->oy + (3.5 - l->y0) * l->cell;
    uint32_t got = pixel(s, x, y);
    cr_assert(near(got, 0xd81b90, 60), "the flanking line, got #%06x", got);
    board_free(&b, &img, s);
}

Test(render_png, path_shows_where_it_provokes)
{
    struct board b;
    hero_and_orc(&b, 10, 6, 1, 2, 3, 1);
    make_mover(&b, HERO, 30);
    struct rules_step path[] = {{2, 2, -1}, {3, 2, -1}, {4, 2, -1}, {5, 2, -1}};
    b.s.ov.path = path;
    b.s.ov.path_len = 4;
    struct render_image img = png_of(&b);
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
    board_free(&b, &img, s);
}

Test(render_png, hex_grid_draws_creatures_on_their_hexes)
{
    struct board b;
    board_init(&b, RULES_GRID_HEX, 8, 6);
    b.map.terrain[2 * 8 + 4] = RULES_MAP_BLOCKED;
    add(&b, "elf", 0, 1, 1, RULES_SIZE_MEDIUM);
    int ogre = add(&b, "ogre", 1, 5, 2, RULES_SIZE_LARGE);
    rules_creature_on_hexes(&b.cs[ogre].mc.c, 0);
    struct render_image img = png_of(&b);
    cairo_surface_t *s = decode(&img);
    assert_colour(centre(s, &img.layout, 1, 1), BLUE, "the elf");
    assert_colour(centre(s, &img.layout, 4, 2), WALL, "the wall hex");
    int q[3], r[3];
    int n = rules_hex_members(&b.cs[ogre].mc.c.body, q, r);
    for (int i = 0; i < n; i++)
        cr_assert(!near(centre(s, &img.layout, q[i], r[i]), FLOOR, 8), "ogre hex %d", i);
    board_free(&b, &img, s);
}

Test(render_png, work_budget_refuses_an_expensive_picture)
{
    struct board b;
    int hero = board_with(&b, 40, 40, "hero", 0, 20, 20, RULES_SIZE_MEDIUM);
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
    struct render_image img = svg_of(&b);
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
    board_free(&b, &img, NULL);
}

/* --- the cover overlay: the ruling of rules_sight_between, drawn ---
 *
 * Each expectation below is worked out by hand from the d20 3.5 SRD's sentence it cites
 * (Combat: Cover, Soft Cover, Total Cover, Concealment), with the lines as rules/cover.h draws
 * them: a line "passes through" a square when it crosses its interior; one along a grid line
 * passes a border that blocks when the squares on both its sides do. Corners are numbered
 * north-west, north-east, south-east, south-west; the attacker's corners are tried in the
 * order (x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1), and the first with the fewest blocked
 * lines is the one ruled from. */

static struct render_image cover_svg(struct board *b, int attacker, int target, bool melee)
{
    static struct render_pair pair;
    pair = (struct render_pair){attacker, target, melee};
    b->s.ov.cover = &pair;
    b->s.ov.cover_count = 1;
    struct render_image img;
    cr_assert_eq(render_draw(&b->s, RENDER_SVG, &img), RENDER_OK);
    cr_assert_gt(xml_elements((const char *)img.data, img.len), 0, "well-formed XML");
    return img;
}

/* The text of the group that starts with `head`, up to its closing tag (no nested groups). */
static size_t group_text(const struct render_image *img, const char *head, const char **at)
{
    const char *t = (const char *)img->data;
    *at = memmem(t, img->len, head, strlen(head));
    cr_assert_not_null(*at, "no group %s", head);
    const char *end = memmem(*at, img->len - (size_t)(*at - t), "</g>", 4);
    cr_assert_not_null(end);
    return (size_t)(end - *at);
}

/* Pair 0's lines: how many are drawn, and how many of them dashed (blocked). */
static void cover_lines(const struct render_image *img, int *drawn, int *dashed)
{
    const char *g;
    size_t n = group_text(img, "<g id=\"cover-0\" data-id=\"0\" class=\"cover-lines\">", &g);
    *drawn = occurrences(g, n, "<polyline");
    *dashed = occurrences(g, n, "stroke-dasharray");
}

static bool marked(const struct render_image *img, const char *kind, int x, int y, const char *cls)
{
    char want[160];
    snprintf(want, sizeof want, "<g id=\"cover-0-%s-%d-%d\" data-id=\"%d-%d\" class=\"%s\">", kind,
             x, y, x, y, cls);
    return occurrences((const char *)img->data, img->len, want) == 1;
}

static int marks(const struct render_image *img, const char *cls)
{
    char want[64];
    snprintf(want, sizeof want, "class=\"%s", cls);
    return occurrences((const char *)img->data, img->len, want);
}

/* The archer at (1,2) and the orc at (7,2) of the ranged cases, on a 10 x 5 board, with a wall
 * between them on (4, wall_y) (none when wall_y is -1). */
enum { ARCHER = HERO };
static void archer_and_orc(struct board *b, enum rules_grid grid, int wall_y)
{
    board_init(b, grid, 10, 5);
    if (wall_y >= 0)
        b->map.terrain[wall_y * 10 + 4] = RULES_MAP_BLOCKED;
    add(b, "archer", 0, 1, 2, RULES_SIZE_MEDIUM);
    add(b, "orc", 1, 7, 2, RULES_SIZE_MEDIUM);
}

/* Asserts pair 0's ruling as the legend reads it, its lines drawn and dashed, and how many
 * squares are marked as blocking. */
static void assert_ruling(const struct render_image *img, const char *ruling, int drawn, int dashed,
                          int blocking)
{
    cr_assert_eq(text_count(img, ruling), 1, "%s", ruling);
    int got_drawn, got_dashed;
    cover_lines(img, &got_drawn, &got_dashed);
    cr_assert_eq(got_drawn, drawn, "%s", ruling);
    cr_assert_eq(got_dashed, dashed, "%s", ruling);
    cr_assert_eq(marks(img, "cover-blocking"), blocking, "%s", ruling);
}

/* SRD Cover: "choose a corner of your square. If any line from this corner to any corner of
 * the target's square passes through a square ... that blocks line of effect ..., the target
 * has cover (+4 to AC)." Archer (1,2), orc (7,2) (corners (7,2), (8,2), (8,3), (7,3)), wall
 * (4,2) = [4,5] x [2,3]. From (1,2): the lines to (7,2) and (8,2) run along y = 2, and (4,1)
 * is no wall, so that border is open; the line to (8,3) is at heights 2 3/7 to 2 4/7 over
 * column 4, the one to (7,3) at 2.5 to 2 2/3: both through the wall. Every other corner also
 * has two such lines ((1,3) and (2,3) symmetrically, (2,2) as (1,2)), so (1,2) is ruled from:
 * 2 of 4 lines blocked, +4 (002's one-half), and the wall alone is marked. */
Test(render_cover, a_wall_between_gives_half_cover_plus_four)
{
    struct board b;
    archer_and_orc(&b, RULES_GRID_SQUARE, 2);
    struct render_image img = cover_svg(&b, ARCHER, ORC, false);
    assert_ruling(&img, "half cover +4 (2/4 lines)", 4, 2, 1);
    cr_assert(marked(&img, "blocking", 4, 2, "cover-blocking wall"));
    cr_assert_eq(marks(&img, "cover-concealing"), 0);
    cr_assert_eq(text_count(&img, "gives cover"), 1, "the legend names the mark");
    cr_assert_eq(text_count(&img, "corner-to-corner line (dashed: blocked)"), 1);
    board_free(&b, &img, NULL);
}

/* SRD Soft Cover: "Creatures, even your enemies, can provide you with cover against ranged
 * attacks, giving you a +4 bonus to AC." The same lines as above, with a goblin on (4,2) in
 * place of the wall: 2 of 4 lines through it, +4, and its square is marked as a creature. */
Test(render_cover, a_creature_between_gives_soft_cover_against_ranged)
{
    struct board b;
    archer_and_orc(&b, RULES_GRID_SQUARE, -1);
    add(&b, "goblin", 1, 4, 2, RULES_SIZE_MEDIUM);
    struct render_image img = cover_svg(&b, ARCHER, ORC, false);
    assert_ruling(&img, "half cover +4 (2/4 lines)", 4, 2, 1);
    cr_assert(marked(&img, "blocking", 4, 2, "cover-blocking creature"));
    board_free(&b, &img, NULL);
}

/* SRD Cover: "When making a melee attack against an adjacent target, your target has cover if
 * any line from your square to the target's square goes through a wall". Fighter (1,1), orc
 * diagonally adjacent at (2,2); every line from a corner of (1,1) to a corner of (2,2): 16.
 * With a goblin on (2,1) no line goes through a wall: no cover, nothing marked, though the line
 * (1,1)-(3,2) crosses the goblin's square. With a wall on (2,1) = [2,3] x [1,2] instead, three
 * lines go through it: (1,1)-(3,2) (heights 1.5 to 2 over column 2), (2,1)-(3,2) and
 * (2,1)-(3,3) (both down column 2 from height 1); the others stay in the fighter's or the orc's
 * square, or run along borders with an open side ((1,1) or (1,2) or (2,2) is no wall): cover,
 * +4, 3 of 16 lines, the wall marked. */
Test(render_cover, a_creature_beside_an_adjacent_target_is_no_cover_in_melee)
{
    struct board b;
    board_init(&b, RULES_GRID_SQUARE, 6, 5);
    int fighter = add(&b, "fighter", 0, 1, 1, RULES_SIZE_MEDIUM);
    int orc = add(&b, "orc", 1, 2, 2, RULES_SIZE_MEDIUM);
    add(&b, "goblin", 1, 2, 1, RULES_SIZE_MEDIUM);
    struct render_image img = cover_svg(&b, fighter, orc, true);
    assert_ruling(&img, "no cover (0/16 lines, melee)", 16, 0, 0);
    cr_assert_eq(text_count(&img, "gives cover"), 0, "no mark, no legend entry");
    render_image_free(&img);

    b.s.creature_count = b.n = 2; /* the goblin leaves; a wall stands there */
    b.map.terrain[1 * 6 + 2] = RULES_MAP_BLOCKED;
    img = cover_svg(&b, fighter, orc, true);
    assert_ruling(&img, "half cover +4 (3/16 lines, melee)", 16, 3, 1);
    cr_assert(marked(&img, "blocking", 2, 1, "cover-blocking wall"));
    board_free(&b, &img, NULL);
}

/* SRD Total Cover: "If you don't have line of effect to your target he is considered to have
 * total cover from you." A wall down the whole of column 4: every line from the archer's
 * corners (heights 2 and 3) to the orc's (2 and 3) crosses column 4 between heights 2 and 3,
 * through (4,2) or along the border of two wall squares. From (1,2), the first corner: the
 * lines along y = 2 pass the border between (4,1) and (4,2), the two slanting ones cross
 * (4,2): 4 of 4 lines, and exactly (4,1) and (4,2) marked. */
Test(render_cover, a_full_wall_gives_total_cover)
{
    struct board b;
    archer_and_orc(&b, RULES_GRID_SQUARE, -1);
    for (int y = 0; y < 5; y++)
        b.map.terrain[y * 10 + 4] = RULES_MAP_BLOCKED;
    struct render_image img = cover_svg(&b, ARCHER, ORC, false);
    assert_ruling(&img, "total cover (4/4 lines)", 4, 4, 2);
    cr_assert(marked(&img, "blocking", 4, 1, "cover-blocking wall"));
    cr_assert(marked(&img, "blocking", 4, 2, "cover-blocking wall"));
    board_free(&b, &img, NULL);
}

/* Clear lines: the wall on (4,0) lies above every line from the archer's corners (heights 2
 * and 3) to the orc's, so the first corner has no blocked line: no cover, nothing marked. */
Test(render_cover, clear_lines_give_no_cover)
{
    struct board b;
    archer_and_orc(&b, RULES_GRID_SQUARE, 0);
    struct render_image img = cover_svg(&b, ARCHER, ORC, false);
    assert_ruling(&img, "no cover (0/4 lines)", 4, 0, 0);
    board_free(&b, &img, NULL);
}

/* SRD Concealment: "If any line from this corner to any corner of the target's square passes
 * through a square or border that provides concealment, the target has concealment." The orc
 * stands in darkness on (7,2): from (1,2) the line to (8,3) crosses column 7 at heights
 * 2 6/7 to 3, inside (7,2); from every other corner a line to the far corners does the same.
 * So: concealment (20%, 002's one-half), (7,2) ringed, and still no cover. */
Test(render_cover, a_target_in_darkness_is_concealed)
{
    struct board b;
    archer_and_orc(&b, RULES_GRID_SQUARE, -1);
    b.map.flags[2 * 10 + 7] |= RULES_SQUARE_CONCEALED;
    struct render_image img = cover_svg(&b, ARCHER, ORC, false);
    cr_assert_eq(text_count(&img, "no cover (0/4 lines)"), 1);
    cr_assert_eq(text_count(&img, "half concealment 20%"), 1);
    cr_assert_eq(marks(&img, "cover-concealing"), 1);
    cr_assert(marked(&img, "concealing", 7, 2, "cover-concealing"));
    cr_assert_eq(text_count(&img, "gives concealment"), 1);
    board_free(&b, &img, NULL);
}

/* The rulings count against the scene's work budget like the searches do: at most 4 choices
 * of corner, 16 lines each, over the 8 + 2 columns and rows between the two spaces: 640. */
Test(render_cover, rulings_are_charged_to_the_work_budget)
{
    struct board b;
    archer_and_orc(&b, RULES_GRID_SQUARE, -1);
    struct rules_work work = {.limit = 600};
    b.s.work = &work;
    struct render_image img;
    cr_assert_eq(render_draw(&b.s, RENDER_SVG, &img), RENDER_OK, "the board alone fits");
    render_image_free(&img);
    struct render_pair pair = {ARCHER, ORC, false};
    b.s.ov.cover = &pair;
    b.s.ov.cover_count = 1;
    work.used = 0;
    cr_assert_eq(render_draw(&b.s, RENDER_SVG, &img), RENDER_ERR_TOO_EXPENSIVE);
    cr_assert_geq(work.used, 640);
    rules_map_free(&b.map);
}

/* On hexes the SRD's lines rule nothing (they are drawn on squares), so 002 Cover's GM judges:
 * the lines from centre to centre and corners are drawn and say so. */
Test(render_cover, hex_grids_leave_cover_to_the_gm)
{
    struct board b;
    archer_and_orc(&b, RULES_GRID_HEX, 2);
    struct render_image img = cover_svg(&b, ARCHER, ORC, false);
    cr_assert_eq(occurrences((const char *)img.data, img.len, ">GM&apos;s judgment: "), 1);
    cr_assert_eq(text_count(&img, "line to target (cover: GM&apos;s judgment)"), 1);
    cr_assert_gt(marks(&img, "cover-in-the-way"), 0, "the wall hex in the way is marked");
    cr_assert_eq(marks(&img, "cover-blocking"), 0);
    board_free(&b, &img, NULL);
}

/* Issue 28: a label is cut by character, never by byte (text.h), and draws in any script: a
 * label of CJK, emoji and combining marks gave a cairo error (a 500) in the PNG and invalid
 * UTF-8 in the SVG when cut mid-character. */
Test(render, labels_in_any_script_are_cut_by_character)
{
    static const struct {
        const char *label, *drawn;
    } cases[] = {
        {"龍王の影王", "龍王の影"},
        {"e\xcc\x81le\xcc\x80ve", "e\xcc\x81le\xcc\x80v"},
        {"\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91\xa7"
         "\xf0\x9f\x87\xba\xf0\x9f\x87\xb8"
         "abc",
         "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91\xa7"
         "\xf0\x9f\x87\xba\xf0\x9f\x87\xb8"
         "ab"},
        {"Дракон", "Драк"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct board b;
        int i = board_with(&b, 4, 4, "k", 0, 1, 1, RULES_SIZE_MEDIUM);
        b.cs[i].label = cases[k].label;
        struct render_image img = {0};
        cr_assert_eq(render_draw(&b.s, RENDER_SVG, &img), RENDER_OK);
        char needle[256];
        snprintf(needle, sizeof needle, ">%s</text>", cases[k].drawn);
        cr_assert_not_null(strstr((const char *)img.data, needle), "label %zu", k);
        render_image_free(&img);
        cr_assert_eq(render_draw(&b.s, RENDER_PNG, &img), RENDER_OK, "label %zu as PNG", k);
        board_free(&b, &img, NULL);
    }
}

/* --- what a picture costs (issue 28) --- */

/* Eight orcs (side "enemy") in a block of 4 x 2 from (5, 5) on a 14 x 12 board, their
 * threatened squares drawn as SVG. */
static struct render_image orc_block(struct board *b)
{
    board_init(b, RULES_GRID_SQUARE, 14, 12);
    for (int i = 0; i < 8; i++)
        add(b, "orc", 1, 5 + i % 4, 5 + i / 4, RULES_SIZE_MEDIUM);
    b->s.ov.threatened = true;
    return svg_of(b);
}

/* Eight creatures of one side, in a block of 4 x 2 from (5, 5), each threatening the squares
 * around it: the squares any of them threatens, x 4..9 by y 4..7, are tinted once each, one
 * shape a row (four, and the legend's swatch), and outlined likewise; before, every creature
 * drew its own nine squares twice (72 tints). */
Test(render_svg, a_square_threatened_by_many_is_drawn_once)
{
    struct board b;
    struct render_image img = orc_block(&b);
    const char *t = (const char *)img.data;
    cr_assert_eq(occurrences(t, img.len, "fill-opacity=\"0.26\""), 4 + 1);
    cr_assert_eq(occurrences(t, img.len, "stroke-opacity=\"0.85\""), 4 + 1);
    board_free(&b, &img, NULL);
}

/* Each side's threatened squares are one SVG group that names them (draw_overlays.c), so that a
 * reader need not decode shapes: the 24 squares x 4..9 by y 4..7 around the block of orcs
 * (side "enemy"), row by row; the creatures' own squares among them, each threatened by a
 * neighbour. The picture with a mover shows only the sides hostile to it: none here. */
Test(render_svg, the_threatened_squares_are_listed_on_their_group)
{
    struct board b;
    struct render_image img = orc_block(&b);
    char want[512] = "<g class=\"threatened\" data-side=\"enemy\" data-squares=\"";
    for (int y = 4; y <= 7; y++)
        for (int x = 4; x <= 9; x++)
            snprintf(want + strlen(want), sizeof want - strlen(want), "%s%d,%d",
                     y == 4 && x == 4 ? "" : " ", x, y);
    strcat(want, "\">");
    const char *t = (const char *)img.data;
    cr_assert_eq(occurrences(t, img.len, want), 1, "%s", want);
    cr_assert_eq(occurrences(t, img.len, "<g class=\"threatened-outline\" data-side=\"enemy\">"),
                 1);
    cr_assert_eq(occurrences(t, img.len, "data-side=\"ally\""), 0);
    render_image_free(&img);
    b.s.mover = 0; /* an orc moving: its own side's squares are not its threats */
    cr_assert_eq(render_draw(&b.s, RENDER_SVG, &img), RENDER_OK);
    cr_assert_eq(occurrences((const char *)img.data, img.len, "class=\"threatened"), 0);
    board_free(&b, &img, NULL);
}

/* The threatened overlay's tests are counted before anything is drawn: each creature's reach
 * box (its space and 2 squares around it for 5 ft of reach) within the view, here the whole
 * 14 x 12 map. Past the budget the picture is refused with no pixel painted, the canvas not
 * even made. */
Test(render_png, threat_tests_are_charged_before_drawing)
{
    struct board b;
    board_with(&b, 14, 12, "orc", 1, 5, 5, RULES_SIZE_MEDIUM); /* 5 x 5 squares looked at */
    add(&b, "ogre", 1, 0, 0, RULES_SIZE_LARGE); /* x and y -3..4 (10 ft), 5 x 5 on the map */
    b.s.ov.threatened = true;
    struct rules_work work = {.threat_limit = 40};
    struct render_budget budget = {0};
    b.s.work = &work;
    b.s.budget = &budget;
    struct render_image img;
    cr_assert_eq(render_draw(&b.s, RENDER_PNG, &img), RENDER_ERR_TOO_EXPENSIVE);
    cr_assert_null(img.data);
    cr_assert_eq(work.threat_used, 25 + 25);
    cr_assert_eq(budget.pixels, 0);
    long long limit = 0, reached = 0;
    cr_assert_str_eq(rules_work_spent(&work, &limit, &reached), "threatened_squares");
    work = (struct rules_work){.threat_limit = 50};
    cr_assert_eq(render_draw(&b.s, RENDER_PNG, &img), RENDER_OK);
    board_free(&b, &img, NULL);
}

/* A PNG's canvas counts twice its pixels before it is made; every shape then its box. */
Test(render_png, the_canvas_is_charged_before_it_is_made)
{
    struct board b;
    board_with(&b, 10, 10, "orc", 1, 5, 5, RULES_SIZE_MEDIUM);
    struct render_budget budget = {0};
    b.s.budget = &budget;
    struct render_image img;
    cr_assert_eq(render_draw(&b.s, RENDER_PNG, &img), RENDER_OK);
    long long canvas = 2LL * img.layout.width * img.layout.height;
    cr_assert_gt(budget.pixels, canvas, "the shapes count too");
    render_image_free(&img);
    budget = (struct render_budget){.pixel_limit = canvas - 1};
    cr_assert_eq(render_draw(&b.s, RENDER_PNG, &img), RENDER_ERR_TOO_EXPENSIVE);
    cr_assert_eq(budget.pixels, canvas);
    long long limit = 0, reached = 0;
    cr_assert_str_eq(render_budget_spent(&budget, &limit, &reached), "pixels");
    cr_assert_eq(reached, canvas);
    rules_map_free(&b.map);
}

/* An SVG counts its text as it is written and stops at its byte budget, not after the
 * picture: the refusal reports the bytes written when it stopped. */
Test(render_svg, the_text_stops_at_its_byte_budget)
{
    struct board b;
    board_with(&b, 40, 40, "orc", 1, 5, 5, RULES_SIZE_MEDIUM);
    struct render_budget budget = {0};
    b.s.budget = &budget;
    struct render_image img = svg_of(&b);
    long long whole = (long long)img.len;
    render_image_free(&img);
    budget = (struct render_budget){.byte_limit = 4000};
    cr_assert_eq(render_draw(&b.s, RENDER_SVG, &img), RENDER_ERR_TOO_EXPENSIVE);
    cr_assert_gt(budget.bytes, 4000);
    cr_assert_lt(budget.bytes, 4400, "stopped at the budget, not after %lld bytes", whole);
    cr_assert_gt(whole, 2 * 4400);
    rules_map_free(&b.map);
}

/* The grid (issue 33): its lines, a whole pixel wide and along the axes, lie on whole pixels,
 * the grid's colour itself, where each was two pixels of half its colour; and they are drawn
 * when they were, beneath what comes after: a Large ally at (1, 1) covers the crossing of the
 * lines between its four squares. A 6 x 4 board. */
Test(render_png, grid_lines_are_whole_pixels_under_what_follows)
{
    struct board b;
    board_with(&b, 6, 4, "big", 0, 1, 1, RULES_SIZE_LARGE);
    struct render_image img = png_of(&b);
    cairo_surface_t *s = decode(&img);
    const struct render_layout *l = &img.layout;
    /* The vertical line at x = ox + 4 cells, in the middle of row 0. */
    double x = l->ox + 4 * l->cell, y = l->oy + 0.5 * l->cell;
    int col = (int)(x + 0.5); /* the pixel after the line's edge, whole */
    assert_colour(pixel(s, col, y), GRID, "the line's pixel");
    assert_colour(pixel(s, col - 1, y), FLOOR, "the pixel before it");
    assert_colour(pixel(s, col + 1, y), FLOOR, "the pixel after it");
    /* The crossing at the Large ally's centre is the ally's. */
    assert_colour(pixel(s, l->ox + 2 * l->cell, l->oy + 2 * l->cell), BLUE, "under the ally");
    board_free(&b, &img, s);
}
