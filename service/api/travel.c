/* POST /v1/travel: how long a journey takes and what it costs (001 Overland Travel). Decoded
 * and encoded by service/codec/travel.c, ruled by rules/world/travel.c. */
#include <stdlib.h>

#include "rules/world/travel.h"
#include "service/api/api.h"
#include "service/codec/travel.h"
#include "service/explain/explain.h"
#include "service/http/http.h"
#include "service/http/problem.h"
#include "service/http/request.h"
#include "service/json/errors.h"

/* Rules t's journey with its dice source; a journey too long or dice that do not fit go to e. */
static void travel(struct svc_travel *t, struct svc_errors *e)
{
    struct rules_dice d;
    svc_dice_source_open(&t->src, &d);
    int rc = rules_travel(&t->journey, &d, &t->result);
    if (rc == RULES_TRAVEL_ERR_TOO_LONG)
        svc_errors_add(e, "/legs", "the journey takes more than %d days of travel",
                       RULES_TRAVEL_MAX_DAYS);
    else if (rc == RULES_TRAVEL_ERR_DICE || !rules_dice_all_used(&d))
        svc_errors_add(e, "/results",
                       "supply exactly 2 d6 for each forced-march hour (this journey needs %zu)",
                       (size_t)t->result.dice_count + (rc == RULES_TRAVEL_ERR_DICE ? 2 : 0));
}

void svc_handle_travel(const struct svc_request *req, struct svc_response *res)
{
    json_t *body = NULL;
    struct svc_errors e;
    struct svc_travel *t = calloc(1, sizeof *t);
    if (t == NULL) {
        svc_problem(res, SVC_PROBLEM_INTERNAL, NULL, NULL);
        return;
    }
    if (svc_decode_begin(req, res, svc_travel_members, &body, &e)) {
        svc_decode_travel(body, t, &e);
        if (!svc_errors_any(&e))
            travel(t, &e);
        if (svc_errors_any(&e)) {
            svc_errors_respond(&e, res);
        } else {
            json_t *doc = svc_encode_travel(t);
            svc_dice_source_describe(&t->src, doc);
            svc_explain_travel(doc);
            svc_respond_json(res, 200, doc);
        }
    }
    svc_errors_free(&e);
    json_decref(body);
    free(t);
}
