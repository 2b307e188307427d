/* svc_enc_typed_differs (service/codec/encounter_state.h): the debug check of a refreshed typed
 * state against a fresh decode names the rules in force when only they differ. */
#include <criterion/criterion.h>
#include <string.h>

#include "rules/options.h"
#include "service/codec/encounter_state.h"

Test(typed_differs, the_rules_in_force)
{
    struct rules_options a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.falling_max_dice = b.falling_max_dice = 20;
    struct rules_encounter x = {.rules = &a, .turn = -1}, y = {.rules = &b, .turn = -1};
    cr_assert_null(svc_enc_typed_differs(&x, &y), "the same options, held apart");
    b.critical_hits = true;
    cr_assert_str_eq(svc_enc_typed_differs(&x, &y), "rules");
    b.critical_hits = false;
    b.facing = RULES_FACING_003;
    cr_assert_str_eq(svc_enc_typed_differs(&x, &y), "rules");
    y.rules = NULL;
    cr_assert_str_eq(svc_enc_typed_differs(&x, &y), "rules");
}
