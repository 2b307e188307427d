/* What the files of render/ share: the pen, one drawing interface with two backends (cairo for
 * PNG, hand-written SVG text, so that every creature is a group carrying its id, which cairo's
 * own SVG surface cannot emit). */
#ifndef TACTICS_RENDER_INTERNAL_H
#define TACTICS_RENDER_INTERNAL_H

#include <cairo.h>
#include <stdint.h>

#include "render/render.h"
#include "rules/board/cover.h"

struct pen {
    enum render_format format;
    cairo_surface_t *surface; /* PNG: the picture; SVG: a 1x1 scratch for measuring text */
    cairo_t *cr;
    char *svg; /* SVG text so far */
    size_t len, cap;
    bool failed;                  /* out of memory or a cairo error: the picture is dropped */
    struct render_budget *budget; /* NULL: none (render.h) */
    bool over;                    /* a budget ran out: nothing more is drawn */
    /* PNG: opaque straight lines along an axis (the grid's) of one colour, gathered into one
     * path of rectangles and filled at once when anything else is drawn (pen.c) */
    bool lines;
    uint32_t lines_rgb;
};

/* Colours are 0xRRGGBB. The budget (may be NULL) is charged the canvas of a PNG first, then
 * every shape (render.h); once it runs out, calls draw nothing and pen_close refuses. */
int pen_open(struct pen *p, enum render_format f, int width, int height,
             struct render_budget *budget);
/* Whether n more shapes of about `pixels` pixels each fit the budget: true, and nothing is
 * charged (each shape is as it is drawn); false, and they are charged at once, so the budget
 * says what was asked, and nothing more is drawn. */
bool pen_reserve(struct pen *p, long long n, double pixels);
/* Finishes the picture into out (data and len); frees the pen either way. */
int pen_close(struct pen *p, struct render_image *out);
void pen_abandon(struct pen *p);

void pen_fill_rect(struct pen *p, double x, double y, double w, double h, uint32_t rgb, double a);
/* A polygon of n points xy[2n]: filled when fill_a > 0, outlined when width > 0. */
void pen_polygon(struct pen *p, const double *xy, int n, uint32_t fill, double fill_a,
                 uint32_t stroke, double stroke_a, double width);
/* An open polyline; dash > 0 draws it dashed with that dash length. */
void pen_polyline(struct pen *p, const double *xy, int n, uint32_t rgb, double a, double width,
                  double dash);
void pen_circle(struct pen *p, double cx, double cy, double r, uint32_t fill, double fill_a,
                uint32_t stroke, double width);
/* Text in DejaVu Sans and, for what it lacks, the fonts fontconfig offers after it (fonts.c),
 * anchored at its left (anchor 0) or centre (1) on baseline y, with an
 * outline of halo colour when halo_w > 0. */
void pen_text(struct pen *p, double x, double y, double size, bool bold, int anchor,
              const char *text, uint32_t rgb, uint32_t halo, double halo_w);
double pen_text_width(struct pen *p, double size, bool bold, const char *text);
/* Calls fn with each run of text (n bytes, not NUL-terminated) that one face draws: DejaVu
 * Sans (bold or not), or for the characters it lacks the first font fontconfig offers that has
 * them; a character no font has comes as U+FFFD, a malformed byte too, and control characters
 * not at all (fonts.c). The faces stay valid until render_release_caches. */
typedef void (*render_run_fn)(void *ud, const char *s, size_t n, cairo_font_face_t *face);
void render_text_runs(const char *text, bool bold, render_run_fn fn, void *ud);
/* Releases the font lists (render_release_caches). */
void render_fonts_release(void);

/* SVG groups (ignored on PNG): id and class may be NULL. */
void pen_group_begin(struct pen *p, const char *id_prefix, const char *id, const char *cls);
void pen_group_end(struct pen *p);
/* An SVG group <g class="cls" data-NAME="VALUE"...> with n data- attributes (names[i] after
 * "data-", values escaped); ignored on PNG. Closed by pen_group_end. */
void pen_group_begin_data(struct pen *p, const char *cls, int n, const char *const *names,
                          const char *const *values);
/* Clips what follows to a rectangle until pen_clip_end. */
void pen_clip_begin(struct pen *p, double x, double y, double w, double h);
void pen_clip_end(struct pen *p);

/* The cover overlay's rulings (draw_cover.c): one per pair of the scene's cover overlay. */
struct render_cover_ruling {
    int rc; /* RULES_COVER_OK, or why the rules rule nothing and the GM judges (hex grid, too
               large) */
    struct rules_sight sight;
    int judged_crossed, judged_lines; /* rc != RULES_COVER_OK: what the GM's lines crossed */
};

/* Rules the cover and concealment of every pair of s's cover overlay with rules_sight_between
 * (the map, every other creature as soft cover, the pair's melee flag, no darkvision) into a
 * new array (*out, NULL when the scene has no cover overlay; free it). Charges each ruling's
 * work to s->work: RENDER_ERR_TOO_EXPENSIVE when it runs out, RENDER_ERR_NOMEM; *out is NULL
 * on error. */
int render_cover_rule(const struct render_scene *s, struct render_cover_ruling **out);

/* Chooses the view and the cell size: the whole map when its cells can be RENDER_MIN_CELL
 * pixels or more; otherwise the creatures and the action (the focus creature, the path, the
 * area, the forced path, cover lines and the mover) with a margin of 3 squares, widened to
 * fill the picture, with cells of RENDER_MIN_CELL pixels or, when even that crop cannot fit,
 * as large as fits. Cells are never larger than 64 pixels. cover is render_cover_rule's
 * answer (the legend's cover marks depend on it). */
int render_layout_of(const struct render_scene *s, const struct render_cover_ruling *cover,
                     struct render_layout *out);

/* What the flanking and path overlays draw, ruled before the legend is laid out
 * (render_rule_marks), so that the legend lists only what is drawn. */
struct render_marks {
    bool ruled;        /* false: unknown, the legend lists all that may be */
    int flank_lines;   /* flanking lines drawn */
    int path_steps;    /* the path's steps drawn */
    bool path_illegal; /* one of them is illegal */
    int path_aoos;     /* attacks of opportunity it provokes */
};

/* The legend: the marks in use, in the order drawn (legend.c). */
#define RENDER_LEGEND_MAX 48

struct render_legend_item {
    int kind; /* enum legend_kind in legend.c */
    int arg;  /* a side, a terrain, ... */
};

struct render_legend {
    struct render_legend_item items[RENDER_LEGEND_MAX];
    int count;
};

/* The marks a picture of the scene shows in layout l's view (l NULL: anywhere on the map);
 * cover is render_cover_rule's answer, marks render_rule_marks's (NULL, or not ruled: every
 * mark the overlays asked for may draw, so a legend at least as tall as the one drawn). */
void render_legend_collect(const struct render_scene *s, const struct render_cover_ruling *cover,
                           const struct render_layout *l, const struct render_marks *marks,
                           struct render_legend *out);
/* Its height in pixels when laid out `width` pixels wide (0 for no items). */
int render_legend_height(const struct render_scene *s, const struct render_legend *lg, int width);
/* The most the legend of any view of s can take at `width`. */
int render_legend_height_estimate(const struct render_scene *s,
                                  const struct render_cover_ruling *cover, int width);

/* --- drawing a scene, shared by draw.c (the whole picture and the geometry every layer uses),
 * draw_board.c, draw_overlays.c, draw_creatures.c and legend.c --- */

#define PI 3.141592653589793

/* Colours (0xRRGGBB). */
#define C_PAPER     0xffffffu
#define C_FLOOR     0xf4f1e8u
#define C_GRID      0xc4bca8u
#define C_INK       0x222222u
#define C_WALL      0x3b3b3bu
#define C_DIFFICULT 0xe2d2a4u
#define C_IMPEDED   0xc9a66bu
#define C_HAZARD    0xf3b38fu
#define C_WATER     0x8fc1e3u
#define C_AIR       0xe3edf5u
#define C_EARTH     0x8a6f4du
#define C_DARK      0x1b1b3au
#define C_MOVER     0xf2c200u
#define C_PATH      0x111111u
#define C_ILLEGAL   0xe00000u
#define C_AOO       0xc0001au
#define C_FLANK     0xd81b90u
#define C_COVER     0xe07b00u
#define C_CONCEAL   0x3d4fc4u
#define C_AREA      0x8e44adu
#define C_FORCED    0xb34700u
#define C_HIT       0xb0001au
#define C_MISS      0x5a5a5au
#define C_CHARGE    0x1f5fbfu
#define C_FRONT     0x2fa84fu
#define C_SIDEAREA  0xe6c229u
#define C_REAR      0xd7263du

/* A flanking line (rules_flanking's own, in pixels), between two flankers of a target. */
struct render_flank_line {
    double x0, y0, x1, y1;
    int attacker, target; /* scene indexes: the ends are in the attacker's side's colour */
};

/* One picture being drawn: the scene, its layout, the pen, and the first error. */
struct render_ctx {
    const struct render_scene *s;
    struct render_layout l;
    struct pen pen;
    int rc;
    /* The searches' view of the others: everyone but the mover, allies by the mover's side. */
    struct rules_map_creature *others;
    int *other_index; /* scene index of others[i] */
    int other_count;
    struct render_cover_ruling *cover; /* render_cover_rule's, one per cover pair */
    /* The threatened overlay: per side, a bit per view square threatened by that side
     * (render_draw_threatened fills it on its first call); NULL until then. */
    uint8_t *threat_bits;
    size_t threat_stride; /* bytes per side */
    /* The flanking lines and the path's ruling (render_rule_marks), what the legend learns
     * from them, and their drawing. */
    struct render_flank_line *flank;
    int flank_count;
    struct rules_path_result path;
    bool path_ruled;
    struct render_marks marks;
    /* Marks that must stay readable over the creatures, drawn after them. */
    struct {
        double x, y;
        uint32_t rgb;
    } late[64];
    int late_count;
};

/* Condition marks, in the order of the RENDER_COND_* bits (draw_creatures.c). */
extern const char render_cond_letters[];
extern const uint32_t render_cond_colours[];

uint32_t render_side_colour(int side);
/* Charges n units of work; false once the budget has run out (c->rc says so). */
bool render_charge(struct render_ctx *c, long long n);
bool render_in_view(const struct render_layout *l, int x, int y);
/* The corners of a square or hex, clockwise: 4 or 6 points into xy. */
int render_cell_polygon(const struct render_layout *l, int x, int y, double shrink, double *xy);
void render_fill_cell(struct render_ctx *c, int x, int y, uint32_t rgb, double a);
/* The pixel centre of a body: the middle of its space, or of its three hexes. */
void render_body_centre(const struct render_ctx *c, const struct rules_body *b, double *px,
                        double *py);
/* A body of the same size placed with its reference square at (x, y). */
void render_body_centre_at(const struct render_ctx *c, const struct rules_body *b, int x, int y,
                           double *px, double *py);
bool render_body_in_view(const struct render_ctx *c, const struct rules_body *b);
bool render_hostile(const struct render_scene *s, int a, int b);
/* The searches' query of the scene: its mover among the others (reach and path overlays). */
struct rules_move_query render_move_query(const struct render_ctx *c);
/* Whether creature i's threatened squares are drawn, and the box of squares looked at. */
bool render_threat_drawn(const struct render_scene *s, int i);
void render_threat_box(const struct render_scene *s, int i, int *x0, int *y0, int *x1, int *y1);

/* The ground (draw_board.c). */
uint32_t render_terrain_colour(int t);
/* The mark inside a square that tells terrains apart without colour. */
void render_terrain_mark(struct render_ctx *c, double cx, double cy, double size, int t,
                         bool pillar);
void render_draw_ground(struct render_ctx *c);
void render_draw_grid(struct render_ctx *c);
void render_draw_numbers(struct render_ctx *c);

/* The overlays (draw_overlays.c). */
/* Cheap squares green, dear ones orange, through yellow. */
uint32_t render_heat(int cost, int max);
/* An arrowhead at (x1, y1) pointing away from (x0, y0). */
void render_arrowhead(struct render_ctx *c, double x0, double y0, double x1, double y1, double size,
                      uint32_t rgb);
void render_draw_facing_areas(struct render_ctx *c);
void render_draw_threatened(struct render_ctx *c, bool outline);
void render_draw_reach(struct render_ctx *c);
void render_draw_area(struct render_ctx *c);
void render_draw_cover(struct render_ctx *c);
/* The cover overlay's labels, drawn over the creatures so that none hides them. */
void render_draw_cover_labels(struct render_ctx *c);
/* Rules what the flanking and path overlays draw in c's view (charging s->work as drawing
 * them did), so that the legend lists only that, and sets c->l.height to the board
 * and that legend. Call it after the layout and before the pen opens; render_marks_free
 * releases what it kept. RENDER_OK, RENDER_ERR_TOO_EXPENSIVE or RENDER_ERR_NOMEM (c->rc too). */
int render_rule_marks(struct render_ctx *c);
void render_marks_free(struct render_ctx *c);
/* The flanking lines, drawn over the creatures (after them) so that no token hides them, each
 * broken where it would cross a creature's label. */
void render_draw_flanking(struct render_ctx *c);
void render_draw_path(struct render_ctx *c);
void render_draw_forced(struct render_ctx *c);
void render_draw_strikes(struct render_ctx *c, bool labels);

/* The creatures (draw_creatures.c) and the legend under the board (legend.c). */
void render_draw_creature(struct render_ctx *c, int i);
/* Creature i's label as drawn on its token: the text, its centre on the baseline (x, y), its
 * font size and width; false when none is drawn (no label, or cells under 12 pixels). */
#define RENDER_LABEL_HALO 2.2
struct render_label {
    char text[RENDER_LABEL_BYTES];
    double x, y, size, width;
};
bool render_label_of(struct render_ctx *c, int i, struct render_label *out);
void render_draw_legend(struct render_ctx *c);

#endif
