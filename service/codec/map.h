/* The movement map shape ({width, height, rows?, squares?}). */
#ifndef TACTICS_SVC_CODEC_MAP_H
#define TACTICS_SVC_CODEC_MAP_H

#include <jansson.h>
#include <stdbool.h>

#include "service/http/config.h"
#include "service/json/errors.h"

/* Decodes a movement map (the "map" member of body: {width, height, rows?, squares?}) as the
 * movement endpoints do, within --max-map-side and the map_squares budget. 0, or -1 after
 * adding errors under /map. out is the caller's to free with rules_map_free. */
struct rules_map;
int svc_decode_map(json_t *body, const struct svc_config *cfg, bool hex_grid, struct rules_map *out,
                   struct svc_errors *e);

#endif
