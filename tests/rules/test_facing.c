/* Facing areas: the documents' counts, and properties that hold for every facing and size. */
#include <criterion/criterion.h>

#include "rules/board/facing.h"
#include "rules/board/flanking.h"

static struct rules_options v000, v003, hex003, hex000;

static void setup(void)
{
    cr_assert_eq(rules_preset_apply("d20-3.5-facing", &v000), RULES_OPTION_OK);
    v003 = v000;
    v003.facing = RULES_FACING_003;
    hex003 = v003;
    hex003.grid = RULES_GRID_HEX;
    hex000 = hex003;
    hex000.facing = RULES_FACING_000;
}

TestSuite(facing, .init = setup);

struct counts {
    int front, middle, rear, other;
};

/* Counts the areas of the ring of squares around c (every square at distance 1). */
static struct counts ring(const struct rules_options *o, const struct rules_creature *c)
{
    struct counts n = {0};
    const struct rules_body *b = &c->body;
    for (int y = b->y - 1; y <= b->y + b->side; y++) {
        for (int x = b->x - 1; x <= b->x + b->side; x++) {
            bool inside = x >= b->x && x < b->x + b->side && y >= b->y && y < b->y + b->side;
            if (inside)
                continue;
            enum rules_area a = rules_facing_area(o, c, x, y);
            if (a == RULES_AREA_FRONT)
                n.front++;
            else if (a == RULES_AREA_FLANK || a == RULES_AREA_SIDE)
                n.middle++;
            else if (a == RULES_AREA_REAR)
                n.rear++;
            else
                n.other++;
        }
    }
    return n;
}

static struct rules_creature facing_creature(enum rules_size size, int facing)
{
    struct rules_creature c;
    rules_creature_init(&c, size, 10, 10, 0);
    c.facing = facing;
    return c;
}

#define ASSERT_RING(O, SIZE, FACING, F, M, R)                                                      \
    do {                                                                                           \
        struct rules_creature c_ = facing_creature((SIZE), (FACING));                              \
        struct counts n_ = ring((O), &c_);                                                         \
        cr_assert(n_.front == (F) && n_.middle == (M) && n_.rear == (R) && n_.other == 0,          \
                  "size %d facing %d: %d/%d/%d (+%d), wanted %d/%d/%d", (SIZE), (FACING),          \
                  n_.front, n_.middle, n_.rear, n_.other, (F), (M), (R));                          \
    } while (0)

/* 000 Facing Direction: "The three squares a Small or Medium character is pointing toward are
 * its front area. The three squares behind it are its rear area. The squares to its left and
 * right are its flanks." Eight possible facings. */
Test(facing, medium_000_has_3_front_2_flank_3_rear_in_all_8_facings)
{
    for (int f = 0; f < 8; f++) {
        ASSERT_RING(&v000, RULES_SIZE_MEDIUM, f, 3, 2, 3);
        ASSERT_RING(&v000, RULES_SIZE_SMALL, f, 3, 2, 3);
    }
}

/* 000: larger creatures' front areas are "the squares in front of them (including those on
 * the front corners)", rear likewise, flanks "the squares directly to their sides". */
Test(facing, larger_000_creatures_keep_rows_with_corners_and_flanks_beside)
{
    for (int f = 0; f < 8; f += 2) {
        ASSERT_RING(&v000, RULES_SIZE_LARGE, f, 4, 4, 4);
        ASSERT_RING(&v000, RULES_SIZE_HUGE, f, 5, 6, 5);
        ASSERT_RING(&v000, RULES_SIZE_GARGANTUAN, f, 6, 8, 6);
        ASSERT_RING(&v000, RULES_SIZE_COLOSSAL, f, 7, 10, 7);
    }
    /* Diagonal facings split the ring symmetrically about the diagonal. */
    ASSERT_RING(&v000, RULES_SIZE_LARGE, 1, 3, 6, 3);
    ASSERT_RING(&v000, RULES_SIZE_HUGE, 3, 5, 6, 5);
}

/* 003: "a creature that takes up 1 space will have 8 spaces bordering it: 3 front-facing
 * spaces, 4 side spaces (2 on each side), and 1 rear space. A large sized-creature ... would
 * have 4 front-facing spaces, 6 side spaces (3 on each side), and 2 rear spaces." */
Test(facing, variant_003_counts_for_one_space_and_large)
{
    for (int f = 0; f < 8; f++)
        ASSERT_RING(&v003, RULES_SIZE_MEDIUM, f, 3, 4, 1);
    for (int f = 0; f < 8; f += 2)
        ASSERT_RING(&v003, RULES_SIZE_LARGE, f, 4, 6, 2);
    /* "Larger creatures will have their facing spaces broken down in a similar way." */
    ASSERT_RING(&v003, RULES_SIZE_HUGE, 0, 5, 8, 3);
}

/* 003: "Using a hex grid, a creature that takes up 1 hex will have 6 spaces bordering it: 3
 * front-facing spaces, 2 side spaces (1 on each side), and 1 rear space." */
Test(facing, one_hex_creature_has_3_front_2_side_1_rear)
{
    static const int nq[6] = {0, 1, 1, 0, -1, -1}, nr[6] = {-1, -1, 0, 1, 1, 0};
    for (int f = 0; f < 6; f++) {
        struct rules_creature c = facing_creature(RULES_SIZE_MEDIUM, f);
        int front = 0, side = 0, rear = 0;
        for (int k = 0; k < 6; k++) {
            enum rules_area a = rules_facing_area(&hex003, &c, 10 + nq[k], 10 + nr[k]);
            front += a == RULES_AREA_FRONT;
            side += a == RULES_AREA_SIDE;
            rear += a == RULES_AREA_REAR;
        }
        cr_assert(front == 3 && side == 2 && rear == 1, "facing %d: %d/%d/%d", f, front, side,
                  rear);
        /* The hex straight ahead is front; the one straight behind is rear. */
        cr_assert_eq(rules_facing_area(&hex003, &c, 10 + nq[f], 10 + nr[f]), RULES_AREA_FRONT);
        cr_assert_eq(rules_facing_area(&hex000, &c, 10 - nq[f], 10 - nr[f]), RULES_AREA_REAR);
    }
}

/* 000: "Some creatures simply have no facing"; "Tiny and smaller creatures don't have
 * facing"; without a facing variant nobody has one. */
Test(facing, faceless_tiny_and_no_variant_have_no_areas)
{
    struct rules_creature ooze = facing_creature(RULES_SIZE_LARGE, 0);
    ooze.faceless = true;
    cr_assert_eq(ring(&v000, &ooze).other, 12);
    struct rules_creature rat = facing_creature(RULES_SIZE_TINY, 0);
    cr_assert_eq(rules_facing_area(&v000, &rat, 10, 9), RULES_AREA_NONE);
    struct rules_options plain = v000;
    plain.facing = RULES_FACING_NONE;
    struct rules_creature guard = facing_creature(RULES_SIZE_MEDIUM, 0);
    cr_assert_eq(rules_facing_area(&plain, &guard, 10, 9), RULES_AREA_NONE);
    cr_assert_eq(rules_facing_area(&v000, &guard, 10, 10), RULES_AREA_SELF);
}

/* Squares beyond an area belong to it: 000 "the squares beyond it, if you have a reach or
 * ranged weapon". Straight ahead, straight behind, straight out to the side, any distance. */
Test(facing, squares_beyond_take_the_area_of_their_direction)
{
    struct rules_creature c = facing_creature(RULES_SIZE_MEDIUM, 0); /* north */
    for (int d = 1; d <= 30; d++) {
        cr_assert_eq(rules_facing_area(&v000, &c, 10, 10 - d), RULES_AREA_FRONT);
        cr_assert_eq(rules_facing_area(&v000, &c, 10, 10 + d), RULES_AREA_REAR);
        cr_assert_eq(rules_facing_area(&v000, &c, 10 + d, 10), RULES_AREA_FLANK);
        cr_assert_eq(rules_facing_area(&v003, &c, 10 - d, 10 + d), RULES_AREA_SIDE);
        cr_assert_eq(rules_facing_area(&v000, &c, 10 - d, 10 + d), RULES_AREA_REAR);
    }
}

/* Rotating the scene by 90 degrees about the creature's centre rotates the answer: the square
 * at offset (u, v) from the centre under facing f has the area of (-v, u) under facing f + 2. */
Test(facing, rotating_the_scene_rotates_the_answer)
{
    const struct rules_options *variants[] = {&v000, &v003};
    for (int vi = 0; vi < 2; vi++) {
        for (int size = RULES_SIZE_SMALL; size <= RULES_SIZE_COLOSSAL; size++) {
            for (int f = 0; f < 8; f++) {
                struct rules_creature a = facing_creature((enum rules_size)size, f);
                struct rules_creature b = facing_creature((enum rules_size)size, (f + 2) % 8);
                int s = a.body.side;
                /* In half-squares, centre 2*10 + s; a square's centre is 2x + 1. */
                for (int y = 10 - 8; y < 10 + s + 8; y++) {
                    for (int x = 10 - 8; x < 10 + s + 8; x++) {
                        int u = 2 * x + 1 - (20 + s), v = 2 * y + 1 - (20 + s);
                        /* Clockwise by 90 (y grows south): (u, v) -> (-v, u). */
                        int rx = (-v + 20 + s - 1) / 2, ry = (u + 20 + s - 1) / 2;
                        cr_assert_eq(rules_facing_area(variants[vi], &a, x, y),
                                     rules_facing_area(variants[vi], &b, rx, ry),
                                     "size %d facing %d at (%d,%d)", size, f, x, y);
                    }
                }
            }
        }
    }
}

/* Left and right are mirror images: reflecting across the facing axis keeps every area. */
Test(facing, left_and_right_are_mirror_images)
{
    for (int size = RULES_SIZE_SMALL; size <= RULES_SIZE_COLOSSAL; size++) {
        for (int f = 0; f < 8; f++) {
            struct rules_creature c = facing_creature((enum rules_size)size, f);
            int s = c.body.side;
            for (int y = 10 - 8; y < 10 + s + 8; y++) {
                for (int x = 10 - 8; x < 10 + s + 8; x++) {
                    int u = 2 * x + 1 - (20 + s), v = 2 * y + 1 - (20 + s);
                    int mu, mv; /* reflection of (u, v) across the facing's axis */
                    switch (f % 4) {
                    case 0: /* north-south axis */
                        mu = -u, mv = v;
                        break;
                    case 2: /* east-west axis */
                        mu = u, mv = -v;
                        break;
                    case 1: /* NE-SW axis: (1,-1) */
                        mu = -v, mv = -u;
                        break;
                    default: /* NW-SE axis: (1,1) */
                        mu = v, mv = u;
                        break;
                    }
                    int mx = (mu + 20 + s - 1) / 2, my = (mv + 20 + s - 1) / 2;
                    cr_assert_eq(rules_facing_area(&v000, &c, x, y),
                                 rules_facing_area(&v000, &c, mx, my), "size %d facing %d", size,
                                 f);
                    cr_assert_eq(rules_facing_area(&v003, &c, x, y),
                                 rules_facing_area(&v003, &c, mx, my));
                }
            }
        }
    }
}

/* 000 Spot Checks and Combat Awareness; 000 Readied Actions; 003 concealment from behind. */
Test(facing, perception_by_area)
{
    struct rules_perception p;
    rules_perception(&v000, RULES_AREA_FLANK, false, false, &p);
    cr_assert_eq(p.spot, -5);
    cr_assert(p.visual_trigger);
    rules_perception(&v000, RULES_AREA_REAR, false, false, &p);
    cr_assert_eq(p.spot, -10);
    cr_assert_not(p.visual_trigger);
    rules_perception(&v000, RULES_AREA_FLANK, true, false, &p);
    cr_assert_eq(p.spot, 0);
    rules_perception(&v000, RULES_AREA_REAR, true, false, &p);
    cr_assert_eq(p.spot, -5);
    rules_perception(&v000, RULES_AREA_REAR, false, true, &p);
    cr_assert_eq(p.spot, 0);
    rules_perception(&v000, RULES_AREA_FRONT, false, false, &p);
    cr_assert_eq(p.spot, 0);
    rules_perception(&v003, RULES_AREA_REAR, false, false, &p);
    cr_assert(p.concealment);
    rules_perception(&v003, RULES_AREA_SIDE, false, false, &p);
    cr_assert_not(p.concealment);
}

/* 003: "A large-sized creature (which takes up 3 hexes) ... If the large creature is using 1
 * hex as its front side, it will have 4 front-facing spaces, 4 side-facing spaces (2 on each
 * side), and 1 rear space. If ... 2 hexes as its front side, ... 3 front-facing spaces, 4
 * side-facing spaces (2 on each side), and 2 rear spaces." Every triangle, every facing. */
Test(facing, three_hex_large_creature_has_4_4_1_or_3_4_2)
{
    for (int t = 0; t < 6; t++) {
        int corner_facings = 0, edge_facings = 0;
        for (int f = 0; f < 6; f++) {
            struct rules_creature c;
            rules_creature_init(&c, RULES_SIZE_LARGE, 10, 10, 0);
            rules_creature_on_hexes(&c, t);
            c.facing = f;
            int hq[3], hr[3];
            cr_assert_eq(rules_hex_members(&c.body, hq, hr), 3);
            int front = 0, side = 0, rear = 0, self = 0;
            for (int q = 6; q <= 14; q++) {
                for (int r = 6; r <= 14; r++) {
                    struct rules_body h = {.x = q, .y = r, .side = 1};
                    struct rules_distance d;
                    rules_distance(&hex003, &c.body, &h, &d);
                    enum rules_area a = rules_facing_area(&hex003, &c, q, r);
                    self += a == RULES_AREA_SELF;
                    if (d.squares != 1)
                        continue;
                    front += a == RULES_AREA_FRONT;
                    side += a == RULES_AREA_SIDE;
                    rear += a == RULES_AREA_REAR;
                }
            }
            cr_assert_eq(self, 3);
            bool corner = front == 4 && side == 4 && rear == 1;
            bool edge = front == 3 && side == 4 && rear == 2;
            cr_assert(corner || edge, "triangle %d facing %d: %d/%d/%d", t, f, front, side, rear);
            corner_facings += corner;
            edge_facings += edge;
        }
        cr_assert_eq(corner_facings, 3);
        cr_assert_eq(edge_facings, 3);
    }
}

Test(facing, three_hex_creatures_measure_and_flank_from_their_nearest_hexes)
{
    struct rules_creature big;
    rules_creature_init(&big, RULES_SIZE_LARGE, 0, 0, 0);
    rules_creature_on_hexes(&big, 0); /* (0,0), (0,-1) north, (1,-1) north-east */
    struct rules_body far = {.x = 0, .y = -4, .side = 1};
    struct rules_distance d;
    rules_distance(&hex003, &big.body, &far, &d);
    cr_assert_eq(d.squares, 3); /* from (0,-1) */
    /* A three-hex target between two one-hex creatures on a line through its centre. */
    struct rules_options hex = hex003;
    hex.facing = RULES_FACING_NONE;
    struct rules_creature tri, a, b;
    rules_creature_init(&tri, RULES_SIZE_LARGE, 5, 5, 0);
    rules_creature_on_hexes(&tri, 1); /* (5,5), (6,4), (6,5): centroid (17/3, 14/3) */
    /* West of it at (4,5) and east at (7,4): offsets from its centre (-5,1)/3 and (4,-2)/3,
     * 161 degrees apart. */
    rules_creature_init(&a, RULES_SIZE_MEDIUM, 4, 5, 0);
    rules_creature_init(&b, RULES_SIZE_MEDIUM, 7, 4, 0);
    struct rules_flank_result r;
    rules_flanking(&hex, &a, &tri, &b, 1, NULL, &r);
    cr_assert(r.flanked);
    /* North of it at (5,4) and east at (7,4): (-2,-2)/3 and (4,-2)/3, 120 degrees apart. */
    rules_creature_init(&a, RULES_SIZE_MEDIUM, 5, 4, 0);
    rules_flanking(&hex, &a, &tri, &b, 1, NULL, &r);
    cr_assert_not(r.flanked);
    cr_assert_eq(r.why_not, RULES_FLANK_NO_LINE);
}
