/* POST /v1/geometry/flanking's ruling (ruling.h): its request decoded, rules_flanking, and
 * the answer with each ally's line. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "rules/board/facing.h"
#include "rules/board/flanking.h"
#include "rules/board/grid.h"
#include "rules/board/size.h"
#include "service/codec/answer.h"
#include "service/codec/creature.h"
#include "service/codec/rule_options.h"
#include "service/codec/ruling.h"
#include "service/explain/explain.h"
#include "service/http/http.h"
#include "service/http/problem.h"
#include "service/http/request.h"
#include "service/json/errors.h"
#include "service/json/fields.h"

static const char *how_name(enum rules_flank_how how)
{
    switch (how) {
    case RULES_FLANK_OPPOSITE_SIDES:
        return "opposite_sides";
    case RULES_FLANK_OPPOSITE_CORNERS:
        return "opposite_corners";
    case RULES_FLANK_INTERNAL:
        return "internal";
    case RULES_FLANK_NONE:
        break;
    }
    return "none";
}

static const char *why_not_name(enum rules_flank_why_not w, const char **explanation)
{
    assert(explanation != NULL);
    switch (w) {
    case RULES_FLANK_OK:
        *explanation = "an ally that threatens the target is opposite the attacker";
        return "flanked";
    case RULES_FLANK_FACING_IN_FORCE:
        *explanation = "the facing variant in force replaces flanking with facing areas";
        return "facing_in_force";
    case RULES_FLANK_TARGET_IMMUNE:
        *explanation = "the target cannot be flanked";
        return "target_cannot_be_flanked";
    case RULES_FLANK_ATTACKER_NOT_THREATENING:
        *explanation = "the attacker does not threaten the target, and only a threatening "
                       "creature can flank";
        return "attacker_not_threatening";
    case RULES_FLANK_NO_THREATENING_ALLY:
        *explanation = "no ally threatens the target";
        return "no_threatening_ally";
    case RULES_FLANK_NO_LINE:
        *explanation = "allies threaten the target, but none is opposite the attacker";
        return "no_ally_opposite";
    }
    *explanation = "";
    return "";
}

/* A flanking line as [[x, y], [x, y]] in squares (centres fall on .5), or hexes as given. */
static json_t *encode_line(const struct rules_options *o, const struct rules_flank_line *l)
{
    if (o->grid == RULES_GRID_HEX)
        return json_pack("[[i,i],[i,i]]", l->x0, l->y0, l->x1, l->y1);
    return json_pack("[[f,f],[f,f]]", l->x0 / 2.0, l->y0 / 2.0, l->x1 / 2.0, l->y1 / 2.0);
}

void svc_rule_flanking(json_t *body, struct svc_answer *out)
{
    static const char *const known[] = {"rules", "attacker", "target", "allies", NULL};
    struct svc_errors e;
    struct svc_rules rules;
    struct rules_creature attacker, target;
    struct rules_creature *allies = NULL;
    const char **names = NULL;
    json_t *list = NULL;
    size_t n = 0;
    if (!svc_decode_body(body, known, &e))
        goto fail;
    if (!svc_decode_rules(body, &rules, &e))
        goto fail;
    svc_decode_member(body, "attacker", &rules.options, true, NULL, &attacker, &e);
    svc_decode_member(body, "target", &rules.options, true, NULL, &target, &e);
    if (codec_get_array(body, "", "allies", true, SVC_MAX_ALLIES, &list, &e)) {
        n = json_array_size(list);
        allies = calloc(n ? n : 1, sizeof *allies);
        names = calloc(n ? n : 1, sizeof *names);
        if (allies == NULL || names == NULL) {
            svc_answer_problem(out, SVC_PROBLEM_INTERNAL, NULL);
            goto out;
        }
        for (size_t i = 0; i < n; i++) {
            char ptr[CODEC_PTR_MAX];
            snprintf(ptr, sizeof ptr, "/allies/%zu", i);
            svc_decode_creature(json_array_get(list, i), ptr, &rules.options, true, NULL,
                                &allies[i], &e);
            names[i] = json_string_value(json_object_get(json_array_get(list, i), "name"));
        }
    }
    if (svc_errors_any(&e))
        goto fail;
    svc_rule_flanking_decoded(&rules, &attacker, &target, allies, (int)n,
                              svc_member_name(body, "attacker"), svc_member_name(body, "target"),
                              names, out);
    goto out;
fail:
    svc_answer_errors(out, &e);
out:
    svc_errors_free(&e);
    free(allies);
    free(names);
}

void svc_rule_flanking_decoded(const struct svc_rules *rules, const struct rules_creature *attacker,
                               const struct rules_creature *target,
                               const struct rules_creature *allies, int n,
                               const char *attacker_name, const char *target_name,
                               const char *const *ally_names, struct svc_answer *out)
{
    struct rules_flank_ally *per_ally = calloc(n > 0 ? (size_t)n : 1, sizeof *per_ally);
    if (per_ally == NULL) {
        svc_answer_problem(out, SVC_PROBLEM_INTERNAL, NULL);
        return;
    }
    struct rules_flank_result r;
    rules_flanking(&rules->options, attacker, target, allies, n, per_ally, &r);
    const char *explanation = NULL;
    const char *reason = why_not_name(r.why_not, &explanation);
    json_t *doc = json_pack("{s:o, s:b, s:i, s:s, s:s, s:s}", "rules", svc_encode_rules(rules),
                            "flanked", r.flanked, "bonus", r.bonus, "reason", reason, "explanation",
                            explanation, "rule", r.rule);
    json_object_set_new(doc, "by", r.flanked ? json_integer(r.ally) : json_null());
    json_object_set_new(doc, "how", json_string(how_name(r.how)));
    json_t *report = json_array();
    for (int i = 0; i < n && r.why_not != RULES_FLANK_FACING_IN_FORCE &&
                    r.why_not != RULES_FLANK_TARGET_IMMUNE &&
                    r.why_not != RULES_FLANK_ATTACKER_NOT_THREATENING;
         i++) {
        json_t *a = json_pack("{s:i, s:b, s:b, s:s}", "index", i, "threatens",
                              per_ally[i].threatens, "flanks", per_ally[i].how != RULES_FLANK_NONE,
                              "how", how_name(per_ally[i].how));
        if (per_ally[i].how == RULES_FLANK_OPPOSITE_SIDES ||
            per_ally[i].how == RULES_FLANK_OPPOSITE_CORNERS)
            json_object_set_new(a, "line", encode_line(&rules->options, &per_ally[i].line));
        json_array_append_new(report, a);
    }
    json_object_set_new(doc, "allies", report);
    svc_explain_flanking(doc, attacker_name, target_name,
                         r.flanked && ally_names != NULL ? ally_names[r.ally] : NULL);
    svc_answer_json(out, doc);
    free(per_ally);
}
