/* What the encounter fuzz targets share: the service context on a database in a temporary
 * folder (removed when the fuzzer exits), the encounter the inputs write to (its id, and the
 * token and version a request names), and a handler called in process as POST. */
#ifndef TACTICS_FUZZ_ENCOUNTER_HARNESS_H
#define TACTICS_FUZZ_ENCOUNTER_HARNESS_H

#include <stddef.h>

#include "service/http/http.h"

extern struct svc_context fuzz_ctx;
/* The encounter's id; "Bearer <token>" (empty: no Authorization); the If-Match sent. */
extern char fuzz_id[64], fuzz_auth[128], fuzz_if_match[64];

/* Opens the database in a new folder made from dir_template (mkdtemp's), with the state cache,
 * and removes the folder at exit; aborts when it cannot. */
void fuzz_open(char *dir_template);

/* A request's header lookup (svc_request.header): the Authorization and If-Match above. */
const char *fuzz_header(void *cookie, const char *name);

/* Calls h as a POST on /v1/encounters with the path parameters param0 and param1 (may be
 * NULL), body[0..len), the Authorization and If-Match above; returns the status and, when out
 * is not NULL, the answer's body (NULL when empty; free it). */
unsigned fuzz_post(svc_handler h, const char *param0, const char *param1, const char *body,
                   size_t len, char **out);

/* The 12 x 12 map of the seed corpus (a door, a wall, an obstacle, hindering and water), seed 7,
 * with more members (`extra`: "" or ",\"name\":..."): creates the encounter, takes its id and
 * token, and sets If-Match to its version 1. Aborts unless it is created. */
void fuzz_create_encounter(const char *extra);

#endif
