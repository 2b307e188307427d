/* What the render tests share: a small scene of creatures on a map (struct board), and
 * readers of the pictures drawn (a PNG's pixels, an SVG's text). */
#ifndef TACTICS_TEST_RENDER_HARNESS_H
#define TACTICS_TEST_RENDER_HARNESS_H

#include <cairo.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "render/render.h"

/* The colours render draws with (draw.c), as a reader of the picture expects them. */
#define FLOOR 0xf4f1e8u
#define WALL  0x3b3b3bu
#define BLUE  0x2f6fd6u
#define RED   0xd23a2fu
#define GRID  0xc4bca8u

struct board {
    struct rules_options o;
    struct rules_map map;
    struct render_creature cs[8];
    int n;
    const char *sides[2];
    struct rules_mover stats;
    struct render_scene s;
};

/* A scene of no creature on a w x h map of the default rules, sides "ally" and "enemy", the
 * legend on. */
void board_init(struct board *b, enum rules_grid grid, int w, int h);
/* Adds a conscious, threatening creature without a label; returns its index. */
int add(struct board *b, const char *id, int side, int x, int y, enum rules_size size);
/* A w x h square board (board_init) with one creature (as add); returns its index. */
int board_with(struct board *b, int w, int h, const char *id, int side, int x, int y,
               enum rules_size size);
/* A w x h square board (board_init) with two Medium creatures: the hero, creature HERO of side
 * "ally", at (hx, hy), and an orc, creature ORC of side "enemy", at (ox, oy). */
enum { HERO, ORC };
void hero_and_orc(struct board *b, int w, int h, int hx, int hy, int ox, int oy);
/* Makes creature i the mover, with a walk speed. */
void make_mover(struct board *b, int i, int walk);

/* The PNG read back (destroy it with cairo_surface_destroy), its pixel at (x, y) as 0xRRGGBB,
 * and the pixel at the centre of square (x, y). */
cairo_surface_t *decode(const struct render_image *img);
uint32_t pixel(cairo_surface_t *s, double x, double y);
uint32_t centre(cairo_surface_t *s, const struct render_layout *l, int x, int y);
/* over painted at opacity a on under; whether two colours are within tol a channel. */
uint32_t blend(uint32_t under, uint32_t over, double a);
bool near(uint32_t a, uint32_t b, int tol);
#define assert_colour(got, want, what)                                                             \
    cr_assert(near((got), (want), 8), "%s: got #%06x, want #%06x", (what), (got), (want))

/* Draws the scene as PNG into img (asserting it is one). */
void render_png(struct board *b, struct render_image *img);

/* The scene drawn as SVG (asserting it is drawn), and as PNG (as render_png). */
struct render_image svg_of(struct board *b);
struct render_image png_of(struct board *b);
/* Frees what a test made: the PNG read back s and the image img (either may be NULL), then the
 * board's map. */
void board_free(struct board *b, struct render_image *img, cairo_surface_t *s);

/* The SVG's elements when it is well-formed (tags nest and close, attributes are quoted), else
 * -1; how often needle occurs in it; how many text elements read `text`. */
int xml_elements(const char *s, size_t len);
int occurrences(const char *hay, size_t len, const char *needle);
int text_count(const struct render_image *img, const char *text);

#endif
