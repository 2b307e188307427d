/* POST /v1/dice/odds and POST /v1/attacks/odds: the exact chance of every outcome,
 * before anyone rolls (rules/odds.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/attack/odds.h"
#include "service/api/api.h"
#include "service/codec/answer.h"
#include "service/codec/attack.h"
#include "service/codec/dice.h"
#include "service/codec/odds.h"
#include "service/codec/ruling.h"
#include "service/explain/explain.h"
#include "service/http/http.h"
#include "service/http/problem.h"
#include "service/http/request.h"
#include "service/json/errors.h"
#include "service/json/fields.h"
#include "service/json/writer.h"

/* Multiply-adds one odds request may cost, times --budget-scale: about 0.2 s. 20d6kh10 needs
 * 80,000, an attack with 5d6 sneak attack and a x2 critical a few thousand; 1000d20 about
 * 2 x 10^8; 1000d1000 (5 x 10^11) is refused. */
#define ODDS_BUDGET_WORK 200000000LL

void svc_handle_dice_odds(const struct svc_request *req, struct svc_response *res)
{
    static const char *const known[] = {"expression", NULL};
    json_t *body;
    struct svc_errors e;
    const char *text = NULL;
    struct rules_dice_expr expr;
    struct rules_dist d = {0, 0, NULL};
    if (!svc_decode_begin(req, res, known, &body, &e))
        goto out;
    if (codec_get_string(body, "", "expression", true, RULES_DICE_MAX_EXPRESSION, &text, &e)) {
        svc_parse_dice(text, &expr, &e);
    }
    if (svc_errors_any(&e)) {
        svc_errors_respond(&e, res);
        goto out;
    }
    struct rules_odds_budget b = svc_odds_budget(req);
    int rc = rules_dist_of_expr(&expr, &b, &d);
    if (rc != RULES_ODDS_OK) {
        svc_odds_failure(res, rc, &b);
        goto out;
    }
    int likeliest = 0;
    for (int i = 1; i < d.len; i++)
        likeliest = d.p[i] > d.p[likeliest] ? i : likeliest;
    /* The distribution is the capped roll's; remainder is where a reroll-while or an
     * explosion reached its cap (rules_dice_cap_chance). */
    double remainder = rules_dice_cap_chance(&expr);
    /* The sentence: the expression as the user wrote it (escaped in markdown), its mean and
     * likeliest total bold in markdown. */
    char explain[RULES_DICE_MAX_EXPRESSION + 340], markdown[2 * sizeof explain];
    struct svc_told told;
    svc_told_init(&told, explain, sizeof explain, markdown, sizeof markdown);
    svc_told_user(&told, text);
    svc_told_text(&told, ": %d to %d, mean ", d.min, d.min + d.len - 1);
    svc_told_bold(&told, "%.2f", rules_dist_mean(&d));
    svc_told_text(&told, ", sd %.2f; the likeliest total is ", rules_dist_sd(&d));
    svc_told_bold(&told, "%d", d.min + likeliest);
    svc_told_text(&told, " (%.1f%%).", 100.0 * d.p[likeliest]);
    if (remainder > 0.0)
        svc_told_text(&told,
                      " Rerolls stop after %d a die and explosions %d dice deep, as the roll "
                      "does; the chance of reaching a cap is %.3g.",
                      RULES_DICE_MAX_REROLLS, RULES_DICE_EXPLODE_DEPTH, remainder);
    struct jw w;
    jw_init(&w, 4096);
    jw_object_begin(&w);
    JW_STRING(&w, "expression", text);
    JW_STRING(&w, "probabilities", "double");
    svc_odds_write_summary(&w, &d);
    JW_KEY(&w, "remainder");
    svc_odds_write_probability(&w, remainder);
    svc_write_told(&w, &told);
    jw_object_end(&w);
    svc_respond_writer(res, &w);
out:
    rules_dist_free(&d);
    svc_errors_free(&e);
    json_decref(body);
}

void svc_handle_attack_odds(const struct svc_request *req, struct svc_response *res)
{
    static const char *const known[] = {"rules", "attacker",       "defender",    "allies",
                                        "cover", "cover_creature", "concealment", "attacks",
                                        "seed",  "results",        NULL};
    json_t *body;
    struct svc_errors e;
    if (!svc_decode_begin(req, res, known, &body, &e))
        return;
    if (json_object_get(body, "seed") || json_object_get(body, "results"))
        svc_errors_add(&e, json_object_get(body, "seed") ? "/seed" : "/results",
                       "this operation rolls no dice; use /v1/attacks/resolve");
    svc_attack_odds_answer(req, body, NULL, &e, res);
    svc_errors_free(&e);
    json_decref(body);
}
