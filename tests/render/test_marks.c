/* render/: the marks a bot posts as they are (issue 31, "Frames worth posting"): the flanking
 * line drawn over the tokens that hid it, and a legend that lists only what the picture
 * draws. PNGs are sampled where the marks lie; SVGs are read for their order and their
 * legend's text. */
#include <cairo.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "render/render.h"
#include "rules/options.h"
#include "tests/render/harness.h"

#define FLANK 0xd81b90u /* the flanking line (draw.c's C_FLANK) */

/* A flanks an orc with b, on a line through the three squares' centres (004 Flanking): a at
 * (2, 3), the orc at (3, 3), b at (4, 3), each labelled. */
static void flank_scene(struct board *b)
{
    board_init(b, RULES_GRID_SQUARE, 9, 7);
    add(b, "a", 0, 2, 3, RULES_SIZE_MEDIUM);
    add(b, "orc", 1, 3, 3, RULES_SIZE_MEDIUM);
    add(b, "b", 0, 4, 3, RULES_SIZE_MEDIUM);
    b->cs[0].label = "a";
    b->cs[1].label = "O";
    b->cs[2].label = "b";
    b->s.ov.flanking = true;
}

/* Tokens are discs 0.86 of a cell wide, so a line between the flankers' centres drawn under
 * them showed only in the slivers between the discs. Over them, it crosses the orc's disc
 * beside its label (a third of a cell left of its centre, where the disc is and the "O" is
 * not), and breaks at the label, so that the "O" stays readable: inside the O the disc
 * shows. */
Test(render_png, flanking_line_runs_over_the_tokens_and_around_their_labels)
{
    struct board b;
    flank_scene(&b);
    struct render_image img = png_of(&b);
    cairo_surface_t *s = decode(&img);
    const struct render_layout *l = &img.layout;
    double px, py;
    render_square_centre(l, 3, 3, &px, &py);
    uint32_t got = pixel(s, px - l->cell / 3, py);
    cr_assert(near(got, blend(RED, FLANK, 0.9), 16),
              "the flanking line over the orc's disc: got #%06x, want #%06x", got,
              blend(RED, FLANK, 0.9));
    got = pixel(s, px, py);
    assert_colour(got, RED, "inside the orc's O, its disc");
    board_free(&b, &img, s);
}

/* In SVG the lines are one group, after every creature's. */
Test(render_svg, flanking_lines_follow_the_creatures)
{
    struct board b;
    flank_scene(&b);
    struct render_image img = svg_of(&b);
    const char *t = (const char *)img.data;
    cr_assert_gt(xml_elements(t, img.len), 0, "well-formed XML");
    const char *lines = strstr(t, "<g class=\"flanking\">");
    cr_assert_not_null(lines, "a group of flanking lines");
    const char *last = NULL;
    for (const char *p = t; (p = strstr(p, "class=\"creature")) != NULL; p++)
        last = p;
    cr_assert_not_null(last);
    cr_assert_gt(lines, last, "the lines come after the last creature");
    const char *end = strstr(lines, "</g>");
    cr_assert_not_null(end);
    cr_assert_eq(occurrences(lines, (size_t)(end - lines), "<polyline"), 2,
                 "one line, in two parts between the three labels");
    board_free(&b, &img, NULL);
}

/* With nothing flanked the overlay draws nothing: the legend does not list "flanking", and is
 * as tall as the legend drawn without the overlay (no room kept for it). With the flank, it
 * lists it. */
Test(render_svg, legend_lists_flanking_only_when_a_line_is_drawn)
{
    struct board b;
    board_init(&b, RULES_GRID_SQUARE, 9, 7);
    add(&b, "a", 0, 2, 3, RULES_SIZE_MEDIUM);
    add(&b, "orc", 1, 3, 3, RULES_SIZE_MEDIUM);
    b.s.max_width = b.s.max_height = 240; /* a narrow legend: one or two entries a row */
    struct render_image plain, asked;
    cr_assert_eq(render_draw(&b.s, RENDER_SVG, &plain), RENDER_OK);
    b.s.ov.flanking = true;
    cr_assert_eq(render_draw(&b.s, RENDER_SVG, &asked), RENDER_OK);
    cr_assert_eq(text_count(&asked, "flanking (+2)"), 0, "nothing is flanked");
    cr_assert_eq(asked.layout.height - asked.layout.board_height,
                 plain.layout.height - plain.layout.board_height, "no room kept for it");
    render_image_free(&asked);
    add(&b, "b", 0, 4, 3, RULES_SIZE_MEDIUM);
    cr_assert_eq(render_draw(&b.s, RENDER_SVG, &asked), RENDER_OK);
    cr_assert_eq(text_count(&asked, "flanking (+2)"), 1, "a is flanking the orc with b");
    render_image_free(&asked);
    render_image_free(&plain);
    rules_map_free(&b.map);
}

/* The path's entries follow its ruling: a 10-foot walk far from the orc lists the path alone;
 * a walk past the orc (leaving (3, 2), which it threatens: 004 Attacks of Opportunity) lists
 * where it provokes and the attack; one past the hero's 30 ft lists the illegal step. */
Test(render_svg, legend_lists_illegal_steps_and_attacks_only_when_drawn)
{
    struct board b;
    hero_and_orc(&b, 12, 6, 1, 4, 4, 1);
    make_mover(&b, HERO, 30);
    static const struct {
        struct rules_step path[8];
        int n;
        int provokes, illegal;
    } cases[] = {
        {{{2, 4, -1}, {3, 4, -1}}, 2, 0, 0},
        {{{2, 3, -1}, {3, 2, -1}, {4, 2, -1}, {5, 3, -1}}, 4, 1, 0},
        {{{2, 4, -1}, {3, 4, -1}, {4, 4, -1}, {5, 4, -1}, {6, 4, -1}, {7, 4, -1}, {8, 4, -1}},
         7,
         0,
         1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        b.s.ov.path = cases[k].path;
        b.s.ov.path_len = cases[k].n;
        struct render_image img = svg_of(&b);
        cr_assert_eq(text_count(&img, "path (ft spent)"), 1, "path %zu", k);
        cr_assert_eq(text_count(&img, "provokes leaving"), cases[k].provokes, "path %zu", k);
        cr_assert_eq(text_count(&img, "attack of opportunity"), cases[k].provokes, "path %zu", k);
        cr_assert_eq(text_count(&img, "illegal step"), cases[k].illegal, "path %zu", k);
        render_image_free(&img);
    }
    rules_map_free(&b.map);
}

/* A picture cropped to the hero (a 200 by 150 map) shows no creature of the far side: the
 * legend names the hero's side and not that one, nor its prone mark. */
Test(render_svg, legend_names_only_the_creatures_in_view)
{
    struct board b;
    hero_and_orc(&b, 200, 150, 20, 20, 180, 130);
    b.cs[ORC].conditions = RENDER_COND_PRONE;
    b.s.focus = HERO;
    struct render_image img = svg_of(&b);
    cr_assert(img.layout.cropped);
    cr_assert_eq(text_count(&img, "ally"), 1);
    cr_assert_eq(text_count(&img, "enemy"), 0, "no enemy in view");
    cr_assert_eq(text_count(&img, "prone"), 0, "no prone creature in view");
    board_free(&b, &img, NULL);
}
