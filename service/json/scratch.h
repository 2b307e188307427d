/* Each worker thread's scratch for a request's parsed body, kept from request to request.
 * jansson allocates through json_set_alloc_funcs; this module's pair is installed
 * before main (a constructor) and serves, on a thread inside svc_json_scratch_begin ... _end,
 * from that thread's own 64 KB, one bump of a pointer an allocation; everything else, and
 * whatever does not fit, comes from malloc as before. Freeing scratch memory does nothing: it
 * is all taken back at the thread's next svc_json_scratch_begin.
 *
 * So a value made in scratch must not be used once its thread begins the next scratch: use it
 * only for a body whose ruling keeps nothing past the request (the stateless rulings of
 * svc_answer_handle). Under AddressSanitizer the scratch is poisoned when it is taken back, so
 * a value read after that (by the project's code: jansson itself is not instrumented) is
 * reported as a use after poison. Nothing that is later given to
 * free() may be made inside (json_dumps's text is): begin, parse, end. */
#ifndef TACTICS_SVC_JSON_SCRATCH_H
#define TACTICS_SVC_JSON_SCRATCH_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Takes back this thread's scratch (whatever an earlier begin made there is gone) and makes
 * jansson's allocations on this thread come from it until svc_json_scratch_end. Does not nest. */
void svc_json_scratch_begin(void);
/* jansson's allocations on this thread come from malloc again; what was made stays readable
 * until the next svc_json_scratch_begin on this thread. Returns true when everything made
 * since the begin fit in the scratch (nothing of it came from malloc). */
bool svc_json_scratch_end(void);
/* Lets go of v, a value parsed into scratch (or not): json_decref, except that a value wholly
 * in this thread's scratch (nothing of the last scratch spilled to malloc) has nothing to give
 * back, and is left for the next svc_json_scratch_begin without walking it. */
void svc_json_scratch_drop(json_t *v);
/* Whether p lies in this thread's scratch (for tests). */
bool svc_json_scratch_owns(const void *p);

#endif
