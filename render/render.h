/* render: draws a board (a scene) to PNG or SVG with cairo.
 *
 * The scene holds what the rules work on (rules_options, rules_map, creatures as
 * rules_map_creature) plus what only a picture needs (ids, labels, sides, hit points,
 * condition marks) and the overlays asked for. Every fact drawn comes from rules/: footprints,
 * threatened squares, facing areas, the reach search, a path's price and its attacks of
 * opportunity, flanking lines. render decides nothing; it knows no JSON and no HTTP.
 *
 * The same scene gives the same bytes: the PNG has no timestamp, the SVG no counter that
 * outlives a call. */
#ifndef TACTICS_RENDER_H
#define TACTICS_RENDER_H

#include <stdbool.h>
#include <stddef.h>

#include "rules/move/move.h"

enum render_status {
    RENDER_OK = 0,
    RENDER_ERR_NOMEM = -1,
    RENDER_ERR_TOO_EXPENSIVE = -2, /* the scene's work budget ran out (scene.work) */
    RENDER_ERR_DRAW = -3,          /* cairo failed */
};

enum render_format { RENDER_PNG = 0, RENDER_SVG = 1 };

/* Condition marks (bits): a creature's conditions and its hit point state, each a badge and a
 * legend entry. Dying, dead, unconscious and stable creatures are drawn faded: down. */
#define RENDER_COND_PRONE       0x1u
#define RENDER_COND_FLAT_FOOTED 0x2u
#define RENDER_COND_DYING       0x4u
#define RENDER_COND_UNCONSCIOUS 0x8u
#define RENDER_COND_DEAD        0x10u
#define RENDER_COND_DISABLED    0x20u
#define RENDER_COND_STUNNED     0x40u
#define RENDER_COND_STABLE      0x80u
#define RENDER_COND_COUNT       8
#define RENDER_COND_DOWN                                                                           \
    (RENDER_COND_DYING | RENDER_COND_UNCONSCIOUS | RENDER_COND_DEAD | RENDER_COND_STABLE)

/* Sides are coloured by index; more sides than colours reuse them. */
#define RENDER_SIDE_COLOURS 6

/* The default and largest picture side, in pixels (RENDER_DEFAULT_SIZE fits Discord's preview). */
#define RENDER_DEFAULT_SIZE 1024
#define RENDER_MIN_SIZE     128
#define RENDER_MAX_SIZE     4096
/* The grid cell is at least this many pixels, unless the crop cannot fit (see render_layout). */
#define RENDER_MIN_CELL 24

struct render_creature {
    const char *id;    /* borrowed: the SVG group carries it */
    const char *label; /* borrowed: its first RENDER_LABEL_MAX characters are drawn (text.h) */
    int side;          /* index into scene.side_names */
    /* Body, size, reach, facing, and for the searches conscious, combat_reflexes and
     * attack_bonus; `ally` is ignored (render sets it: same side as the mover). */
    struct rules_map_creature mc;
    /* It threatens now (the threatened and flanking overlays): conscious and can_threaten for a
     * scene described square by square, the encounter's own ruling for its frames. */
    bool threatens;
    bool hp_known;
    int hp, max_hp;
    unsigned conditions; /* RENDER_COND_* */
};

#define RENDER_LABEL_MAX 4
/* The most bytes of a label drawn: four characters of up to 31 bytes each (an emoji sequence,
 * a letter with several marks); fewer when they are longer. */
#define RENDER_LABEL_BYTES 128

/* An attacker and its target, for the cover overlay. */
struct render_pair {
    int attacker, target; /* indexes into creatures */
    bool melee;           /* a melee attack (adjacent or with reach); false: ranged */
};

/* An attack as an event ruled it, for the picture of that event: a line from the attacker to
 * its target, solid and ending in an arrow where it hit, dashed where it missed, dotted onto
 * the creature a charge was made at; labelled. */
enum render_strike_outcome {
    RENDER_STRIKE_HIT = 0,
    RENDER_STRIKE_MISS = 1,
    RENDER_STRIKE_CHARGE = 2
};
struct render_strike {
    int attacker, target; /* indexes into creatures */
    enum render_strike_outcome outcome;
    const char *label; /* borrowed: drawn by the target ("hit, 9 damage"); NULL: none */
};

struct render_overlays {
    bool threatened; /* squares threatened by the mover's enemies (with no mover: by everyone) */
    bool reach;      /* every square the mover can end on, with its cost (needs a mover) */
    bool reach_fewest_aoo;
    const struct rules_step *path; /* the mover's path, start excluded; NULL: none */
    int path_len;
    int path_end_facing;             /* -1 keeps the last facing */
    bool flanking;                   /* flanking lines onto every creature */
    const struct render_pair *cover; /* cover lines; NULL: none */
    int cover_count;
    const struct rules_step *area; /* a spell area's squares; NULL: none */
    int area_len;
    const struct rules_step *forced; /* a forced movement path, start excluded; NULL: none */
    int forced_len;
    int forced_creature;                 /* who is moved (index), -1 */
    int facing_of;                       /* creature whose 000/003 areas are shaded, -1: none */
    const struct render_strike *strikes; /* attacks as ruled; NULL: none */
    int strike_count;
    bool legend; /* explain every mark in use (on by default in the service) */
};

/* What a picture may cost besides the searches and rulings (scene.work): pixels painted and
 * bytes written, each with a limit (0: none). A PNG counts its canvas twice (allocated, then
 * encoded: charged before the surface exists) and every shape by the pixels of its box, at
 * least RENDER_SHAPE_PIXELS (what cairo spends on a shape however small); an SVG counts its
 * text as it is written, and a PNG its encoded bytes. Past a limit nothing more is drawn and
 * render_draw answers RENDER_ERR_TOO_EXPENSIVE. */
struct render_budget {
    long long pixel_limit, pixels;
    long long byte_limit, bytes;
};

/* A shape's fixed cost in pixels: bench/cost_bench measures a small shape at about the time
 * of filling this many pixels. */
#define RENDER_SHAPE_PIXELS 256

/* Which count of b is past its limit ("pixels" or "answer_bytes"), its limit and the figure
 * reached; NULL when neither is. */
const char *render_budget_spent(const struct render_budget *b, long long *limit,
                                long long *reached);

struct render_scene {
    const struct rules_options *o;
    const struct rules_map *map;
    const struct render_creature *creatures;
    int creature_count;
    const char *const *side_names; /* side_count names, for the legend */
    int side_count;
    int mover;                       /* index of the creature that moves, -1: none */
    const struct rules_mover *stats; /* the mover's speeds and burdens (mover >= 0) */
    enum rules_move_mode mode;
    int focus; /* crop to this creature and the action around it, -1: the whole action */
    struct render_overlays ov;
    int max_width, max_height; /* pixels; 0 gives RENDER_DEFAULT_SIZE */
    /* NULL: no budget. The searches, the rulings and the squares tested for a threat (the
     * threatened overlay's, all of them charged before the first test) count. */
    struct rules_work *work;
    struct render_budget *budget; /* NULL: no budget. Pixels and bytes */
};

/* Which part of the map the picture shows, and where: square (x, y)'s top-left corner is at
 * (ox + (x - x0) * cell, oy + (y - y0) * cell); hexes as render_square_centre says. */
struct render_layout {
    enum rules_grid grid;
    int x0, y0, cols, rows; /* the view, in squares (q and r on hexes) */
    double cell;            /* square side, or a hex's width across its flats, in pixels */
    double ox, oy;
    double board_w, board_h; /* the board's extent from (ox, oy) */
    int width, height;       /* the whole picture */
    int board_height;        /* the board's part of it; the legend lies below */
    bool cropped;            /* the view is smaller than the map */
};

struct render_image {
    unsigned char *data; /* PNG bytes or SVG text (not NUL-terminated); malloc'd */
    size_t len;
    struct render_layout layout;
};

/* The pixel centre of square (or hex) (x, y) in a layout. */
void render_square_centre(const struct render_layout *l, int x, int y, double *px, double *py);

/* What drawing the scene will cost, known before drawing it: the picture's size and canvas
 * pixels (a PNG's; 0 for an SVG), the squares tested for a threat (the threatened overlay's,
 * each creature's reach box within the view, and the reach overlay's search's), and the states
 * the reach overlay's search sets up and may expand (rules_move_reach_estimate). */
struct render_estimate {
    int width, height;
    long long canvas_pixels;
    long long threat_tests;
    long long search_states;
};
int render_estimate(const struct render_scene *s, enum render_format f,
                    struct render_estimate *out);

/* Draws the scene. On RENDER_OK out->data holds the picture (free with render_image_free);
 * otherwise nothing is left to free. RENDER_ERR_TOO_EXPENSIVE leaves the figure reached in
 * s->work (rules_work_spent) or s->budget (render_budget_spent); what is known up front (the
 * canvas, the threatened overlay's tests) is refused before anything is drawn. */
int render_draw(const struct render_scene *s, enum render_format f, struct render_image *out);

void render_image_free(struct render_image *img);

/* Releases the caches cairo and fontconfig keep for the whole process (fonts found, glyphs),
 * so a leak checker at exit sees nothing: call it once, at exit, when no drawing runs. */
void render_release_caches(void);

#endif
