/* Encounters: debug builds check a typed state that a caller kept up to date step after step
 * (applied on the structs, rules/encounter/apply.h, or refreshed from a step's effects) against a
 * fresh decode of the JSON it stands for, so that every suite proves the two the same. */
#include <stdio.h>
#include <stdlib.h>

#include "service/codec/encounter_state.h"
#include "service/encounter/internal.h"

/* Debug builds: te must be what a fresh decode of state reads, and the typed state a step was
 * applied to (rules/encounter/apply.h) what a fresh decode of the state the event's effects so
 * far leave reads; a difference aborts, naming the member. Release builds check nothing. */
void enc_check_typed(struct resolve_ctx *x, json_t *state, const struct rules_encounter *te)
{
#ifdef NDEBUG
    (void)x, (void)state, (void)te;
#else
    struct svc_enc_typed fresh;
    int rc = svc_enc_typed_decode(state, x->engine, enc_config(x), enc_state_map(x), &fresh);
    const char *why = rc == SVC_ENC_TYPED_OK ? svc_enc_typed_differs(te, &fresh.e) : NULL;
    if (why != NULL) {
        fprintf(stderr, "enc_check_typed: the typed state differs in %s\n", why);
        abort();
    }
    svc_enc_typed_free(&fresh);
#endif
}

void enc_check_applied(struct resolve_ctx *x, json_t *effects, const struct rules_encounter *te)
{
#ifdef NDEBUG
    (void)x, (void)effects, (void)te;
#else
    json_t *folded = json_deep_copy(x->state);
    enc_fold(folded, effects);
    enc_check_typed(x, folded, te);
    json_decref(folded);
#endif
}
