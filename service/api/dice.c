/* POST /v1/dice/roll: a fair, explained, reproducible roll for bots. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "rules/rules.h"
#include "service/api/api.h"
#include "service/codec/dice.h"
#include "service/explain/explain.h"
#include "service/http/http.h"
#include "service/http/problem.h"
#include "service/http/request.h"
#include "service/json/errors.h"
#include "service/json/fields.h"

void svc_handle_dice_roll(const struct svc_request *req, struct svc_response *res)
{
    static const char *const known[] = {"expression", "seed", "results", NULL};
    json_t *body;
    struct svc_errors e;
    struct rules_roll *roll = NULL;
    struct svc_dice_source *src = NULL;
    const char *text = NULL;
    struct rules_dice_expr expr;

    if (!svc_decode_begin(req, res, known, &body, &e))
        goto out;
    if (codec_get_string(body, "", "expression", true, RULES_DICE_MAX_EXPRESSION, &text, &e)) {
        if (!svc_parse_dice(text, &expr, &e))
            text = NULL;
    }
    src = malloc(sizeof *src);
    roll = malloc(sizeof *roll);
    if (src == NULL || roll == NULL) {
        svc_problem(res, SVC_PROBLEM_INTERNAL, NULL, NULL);
        goto out;
    }
    svc_decode_dice_source(body, src, &e);
    if (svc_errors_any(&e) || text == NULL)
        goto respond;

    struct rules_dice dice;
    svc_dice_source_open(src, &dice);
    int rc = rules_dice_roll(&expr, &dice, roll);
    if (rc == RULES_DICE_OK && !rules_dice_all_used(&dice))
        rc = RULES_DICE_ERR_SUPPLIED_COUNT;
    if (rc != RULES_DICE_OK) {
        /* Only supplied results can fail here: the wrong number, or a face the die lacks. */
        char ptr[CODEC_PTR_MAX];
        assert(rc == RULES_DICE_ERR_SUPPLIED_RANGE || rc == RULES_DICE_ERR_SUPPLIED_COUNT);
        if (rc == RULES_DICE_ERR_SUPPLIED_RANGE)
            snprintf(ptr, sizeof ptr, "/results/%zu", dice.supplied_used);
        else
            snprintf(ptr, sizeof ptr, "/results");
        svc_errors_add(&e, ptr, "%s (the expression rolls %d dice, before any reroll or explosion)",
                       rules_dice_strerror(rc), expr.dice_count);
        goto respond;
    }
    json_t *doc = svc_encode_roll(text, &expr, roll);
    svc_dice_source_describe(src, doc);
    svc_explain_roll(doc);
    svc_respond_json(res, 200, doc);
    goto out;
respond:
    svc_errors_respond(&e, res);
out:
    svc_errors_free(&e);
    free(roll);
    free(src);
    json_decref(body);
}
