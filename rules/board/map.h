/* The map: terrain and features per square (or hex), which movement, cover and pictures read
 * (map.c). */
#ifndef TACTICS_RULES_BOARD_MAP_H
#define TACTICS_RULES_BOARD_MAP_H

#include <stdint.h>

enum rules_map_terrain {
    RULES_MAP_CLEAR = 0,
    RULES_MAP_DIFFICULT,
    RULES_MAP_IMPEDED,
    RULES_MAP_BLOCKED,
    RULES_MAP_HAZARDOUS,
    RULES_MAP_WATER,
    RULES_MAP_AIR,
    RULES_MAP_EARTH,
    RULES_MAP_COUNT
};

const char *rules_map_terrain_name(enum rules_map_terrain t);

/* Square flags. */
#define RULES_SQUARE_CUTTABLE  0x1u /* blocked, but not completely filled: corners can be cut */
#define RULES_SQUARE_CONCEALED 0x2u /* dim light, darkness, fog */

/* A map: width x height squares (hexes: q in [0, width), r in [0, height)), row-major. */
struct rules_map {
    int width, height;
    uint8_t *terrain;   /* enum rules_map_terrain per square */
    uint8_t *flags;     /* RULES_SQUARE_* per square */
    uint16_t *gap_in;   /* NULL, or the narrowest gap in the square in inches (0: none) */
    int16_t *elevation; /* NULL, or the ground's height in 5-ft cubes */
};

/* Allocates a clear map. Returns -1 when out of memory. */
int rules_map_init(struct rules_map *m, int width, int height);
void rules_map_free(struct rules_map *m);

#endif
