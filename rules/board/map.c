/* The map (map.h): allocation and the terrains' names. */
#include <assert.h>
#include <stdlib.h>

#include "rules/board/map.h"

static const char *const terrain_names[RULES_MAP_COUNT] = {
    "clear", "difficult", "impeded", "blocked", "hazardous", "water", "air", "earth"};

const char *rules_map_terrain_name(enum rules_map_terrain t)
{
    assert((unsigned)t < RULES_MAP_COUNT);
    return terrain_names[t];
}

int rules_map_init(struct rules_map *m, int width, int height)
{
    size_t n = (size_t)width * (size_t)height;
    *m = (struct rules_map){.width = width, .height = height};
    m->terrain = calloc(n ? n : 1, 1);
    m->flags = calloc(n ? n : 1, 1);
    if (m->terrain == NULL || m->flags == NULL) {
        rules_map_free(m);
        return -1;
    }
    return 0;
}

void rules_map_free(struct rules_map *m)
{
    free(m->terrain);
    free(m->flags);
    free(m->gap_in);
    free(m->elevation);
    *m = (struct rules_map){0};
}
