/* Encounters: the action kinds but moves, forced movement, attacks and reactions (facing, fall,
 * condition, stand up; a fall is ruled by the falling endpoint's own ruling), and the dispatcher
 * of every action kind (enc_resolve_action_kind), once enc_resolve's resolve_action has checked
 * the actor's turn and budget. Moves and forced movement are in encounter_move.c, attacks in
 * encounter_attacks.c, the reactions a move opens in encounter_reactions.c. Each takes the state
 * before the event, the input and the event's number, and returns {"result": ..., "effects": [...]}
 * or NULL after adding errors (the model: encounter_internal.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/board/cover.h"
#include "rules/encounter/apply.h"
#include "rules/encounter/encounter.h"
#include "rules/encounter/event.h"
#include "rules/move/move.h"
#include "rules/world/impact.h"
#include "service/codec/answer.h"
#include "service/codec/dice.h"
#include "service/codec/move_req.h"
#include "service/codec/rule_options.h"
#include "service/codec/ruling.h"
#include "service/encounter/internal.h"
#include "service/json/errors.h"
#include "service/json/fields.h"

void enc_timed_fields(json_t *c, const char *cond, long long end_round, int end_turn,
                      json_t *fields)
{
    json_object_set_new(fields, "conditions", enc_conditions_with(c, cond, true));
    json_t *list = json_deep_copy(json_object_get(c, "timed"));
    if (list == NULL)
        list = json_array();
    json_array_append_new(list, json_pack("{s:s, s:I, s:i}", "condition", cond, "ends_round",
                                          end_round, "ends_turn", end_turn));
    json_object_set_new(fields, "timed", list);
}

void enc_gain_condition(struct resolve_ctx *x, json_t *c, const char *cond,
                        enum rules_condition_cause cause, json_t *fields)
{
    json_object_set_new(fields, "conditions", enc_conditions_with(c, cond, true));
    if (!rules_encounter_keeps_sources(x->engine))
        return;
    json_t *sources = json_deep_copy(json_object_get(c, "condition_sources"));
    if (!json_is_object(sources)) {
        json_decref(sources);
        sources = json_object();
    }
    json_object_set_new(sources, cond,
                        json_pack("{s:I, s:b, s:b}", "event", (json_int_t)x->seq, "involuntary",
                                  rules_condition_involuntary(cause), "had_turn", 0));
    json_object_set_new(fields, "condition_sources", sources);
}

/* Puts condition cond on combatant c into fields (its conditions, and for rounds > 0 its timed
 * effects): 004, "Effects that last a certain number of rounds end just before the same
 * initiative count that they began on" (rules_duration_end). */
static void condition_fields(struct resolve_ctx *x, json_t *c, const char *cond, int rounds,
                             enum rules_condition_cause cause, json_t *fields)
{
    enc_gain_condition(x, c, cond, cause, fields);
    if (rounds <= 0)
        return;
    json_t *turn = json_object_get(x->state, "turn");
    long long end_round = 0;
    int end_turn = 0;
    rules_duration_end((int)enc_num(x->state, "round"),
                       json_is_integer(turn) ? (int)json_integer_value(turn) : -1, rounds,
                       &end_round, &end_turn);
    enc_timed_fields(c, cond, end_round, end_turn, fields);
}

/* stand_up_provokes: standing up provokes (004 Provoking an Attack of Opportunity by Taking an
 * Action: "as described in the rules for each action type"; d20 3.5 SRD, Actions in Combat:
 * standing up from prone provokes). Each enemy that threatens the actor and may make an attack of
 * opportunity now is a reaction, decided as a move's are (enc_open_reactions), struck while
 * the actor is still prone; it stands once they are settled, unless one drops it; asked ones
 * pause it where it lies (paused_move with stands). */
static json_t *stand_up(struct resolve_ctx *x, json_t *in, json_t *actor)
{
    json_t *s = x->state;
    const char *id = enc_str(actor, "id");
    enc_check_decisions(s, in, x->e);
    if (svc_errors_any(x->e))
        return NULL;
    struct enc_provoked *provoked =
        calloc(json_array_size(enc_combatants(s)) + 1, sizeof *provoked);
    int n = 0;
    if (provoked == NULL) {
        svc_errors_add(x->e, "", "standing up could not be ruled");
        return NULL;
    }
    const struct rules_encounter *te = enc_typed(x);
    int me = -1;
    const struct rules_enc_combatant *who = enc_typed_of(x, actor, &me);
    for (int i = 0; who != NULL && who->placed && i < te->count; i++) {
        const struct rules_enc_combatant *t = &te->combatants[i];
        if (i != me && rules_encounter_enemies(te, i, me) && t->placed &&
            rules_encounter_stand_up_provokes(te, t, rules_encounter_melee_of(te, i), &t->body,
                                              &who->body))
            provoked[n++] = (struct enc_provoked){t->id, 0, (int)enc_num(actor, "x"),
                                                  (int)enc_num(actor, "y"), -1};
    }
    /* No effect of its own comes before its reactions: they start from the state as it is. */
    struct rules_encounter_work w;
    if (te == NULL || !rules_encounter_work_copy(te, &w)) {
        free(provoked);
        svc_errors_add(x->e, "", "the reactions could not be opened");
        return NULL;
    }
    json_t *ruling = json_object();
    json_t *effects = json_array();
    struct enc_reactions_left left;
    struct enc_acted acted = {&w, json_is_integer(json_object_get(actor, "facing"))};
    enc_open_reactions(x, acted, in, actor, provoked, n, ruling, effects, &left);
    free(provoked);
    if (svc_errors_any(x->e)) {
        json_decref(ruling);
        json_decref(effects);
        return NULL;
    }
    /* Standing up paused for an asked reaction, or dropped by an engine's attack. */
    bool paused = left.paused, dropped = left.dropped;
    size_t k;
    json_t *ef;
    json_array_foreach(effects, k, ef)
    {
        json_t *pm = json_object_get(json_object_get(ef, "fields"), "paused_move");
        if (paused && json_is_object(pm)) /* it stands when the pause is over */
            json_object_set_new(pm, "stands", json_true());
    }
    if (!paused && !dropped)
        json_array_append_new(
            effects, enc_effect_set(id, json_pack("{s:o}", "conditions",
                                                  enc_conditions_with(actor, "prone", false))));
    json_t *result = json_pack("{s:s, s:s}", "stood_up", id, "rule",
                               "001 Part of a Move Action: standing up from Prone takes a move "
                               "action; it provokes attacks of opportunity (004 Provoking an "
                               "Attack of Opportunity by Taking an Action; d20 3.5 SRD, Actions "
                               "in Combat)");
    json_t *records = json_object_get(ruling, "reactions");
    if (json_array_size(records) > 0)
        json_object_set(result, "reactions", records);
    json_decref(ruling);
    return enc_outcome(result, effects);
}

/* A fall (001 Falling) of actor, as data: the action's own members by POST /v1/falling's
 * decoder, the encounter's rules, the faller's damage reduction and the event's dice, ruled by
 * its own code (rules_fall). */
static json_t *action_fall(struct resolve_ctx *x, json_t *in, json_t *actor)
{
    const struct svc_rules *rules = enc_svc_rules_of(x);
    struct rules_fall f;
    struct svc_errors e;
    svc_errors_init(&e);
    bool has_depth = false;
    svc_decode_fall(in, &f, &has_depth, &e);
    struct svc_dice_source *src = enc_dice_source(x, in, &e);
    svc_check_fall(&f, has_depth, &e);
    struct svc_answer a = {0};
    struct svc_fall_facts facts = {0};
    if (src == NULL)
        svc_answer_errors(&a, &e);
    else
        svc_rule_fall_decoded(rules, &f, (int)enc_num(actor, "damage_reduction"), src, &e, &a,
                              &facts);
    svc_errors_free(&e);
    free(src);
    static const struct enc_member own[] = {{"/height_ft", "/height_ft"},
                                            {"/surface", "/surface"},
                                            {"/per_die", "/per_die"},
                                            {"/deliberate", "/deliberate"},
                                            {"/acrobatics_success", "/acrobatics_success"},
                                            {"/water_depth_ft", "/water_depth_ft"},
                                            {"/dive", "/dive"},
                                            {"/dive_success", "/dive_success"},
                                            {"/results", "/results"},
                                            {NULL, NULL}};
    json_t *ans = enc_answer_own(x, &a, "", own, "fall");
    if (ans == NULL)
        return NULL;
    json_t *fields = enc_hp_fields(x, enc_num(actor, "hp") - facts.damage);
    if (facts.prone)
        enc_gain_condition(x, actor, "prone", RULES_CAUSE_FALL, fields);
    return enc_outcome(ans, json_pack("[o]", enc_effect_set(enc_str(actor, "id"), fields)));
}

int enc_move_mode(json_t *in, struct svc_errors *e)
{
    int m = codec_get_enum(in, "", "mode", rules_move_mode_names, false, RULES_MODE_MOVE, e);
    if (m == RULES_MODE_STEP) {
        svc_errors_add(e, "/mode", "a 5-foot step is its own action: type five_foot_step");
        return -1;
    }
    return m;
}

/* The dice v (an action's results, or one attack's of a full attack) checked as
 * /v1/attacks/resolve reads its results (svc_decode_dice_source), its errors at ptr. */
static void check_dice(json_t *v, const char *ptr, struct svc_errors *e)
{
    struct svc_dice_source *src = malloc(sizeof *src);
    json_t *probe = json_pack("{s:O}", "results", v);
    struct svc_errors mine;
    svc_errors_init(&mine);
    if (src == NULL || probe == NULL)
        svc_errors_add(e, ptr, "could not be read (out of memory)");
    else
        svc_decode_dice_source(probe, src, &mine);
    size_t i;
    json_t *err;
    json_array_foreach(mine.list, i, err)
    {
        char at[CODEC_PTR_MAX];
        snprintf(at, sizeof at, "%s%s", ptr, enc_str(err, "pointer") + strlen("/results"));
        svc_errors_add(e, at, "%s", enc_str(err, "message"));
    }
    svc_errors_free(&mine);
    json_decref(probe);
    free(src);
}

/* An attack's declared cover and concealment, by /v1/attacks/resolve's names. */
static void check_cover(json_t *in, struct svc_errors *e)
{
    codec_get_enum(in, "", "cover", rules_degree_names, false, 0, e);
    json_t *list = NULL;
    if (!codec_get_array(in, "", "concealment", false, 32, &list, e))
        return;
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v)
    {
        int k = 0;
        while (json_is_string(v) && rules_degree_names[k] != NULL &&
               strcmp(rules_degree_names[k], json_string_value(v)) != 0)
            k++;
        if (!json_is_string(v) || rules_degree_names[k] == NULL) {
            char p[CODEC_PTR_MAX];
            snprintf(p, sizeof p, "/concealment/%zu", i);
            svc_errors_add(e, p, "must be a concealment name (none, light, ...)");
        }
    }
}

/* ---- each action kind: its members' shape, and its ruling ----
 * One row per kind of rules/encounter/kind.h's table (rules_action_kinds, the same enum): `shape`
 * checks the kind's own members (types, enums, ranges: what needs no state) before the turn's gate,
 * with the rule shapes (enc_check_action_shape); `rule` decodes the rest once the turn allows it,
 * has rules/ rule it and encodes the outcome (enc_resolve_action_kind). */

/* The target an action names, another combatant than its actor (an attack's, a full attack's). */
static void shape_other_target(json_t *in, struct svc_errors *e)
{
    const char *t = NULL;
    if (codec_get_string(in, "", "target", true, 64, &t, e) && strcmp(t, enc_str(in, "actor")) == 0)
        svc_errors_add(e, "/target", "must be another combatant than the actor");
}

static void shape_attack(json_t *in, enum rules_action_type type, int engine, struct svc_errors *e)
{
    (void)type, (void)engine;
    /* 004 Attacks of Opportunity: an attack is normal or the answer to a reaction. */
    static const char *const kinds[] = {"normal", "attack_of_opportunity", NULL};
    codec_get_enum(in, "", "kind", kinds, false, 0, e);
    shape_other_target(in, e);
    enc_check_reaction_results(in, e);
    if (json_object_get(in, "results") != NULL)
        check_dice(json_object_get(in, "results"), "/results", e);
    check_cover(in, e);
}

static void shape_full_attack(json_t *in, enum rules_action_type type, int engine,
                              struct svc_errors *e)
{
    (void)type;
    shape_other_target(in, e);
    enc_check_plan(in, engine, e);
    json_t *list = NULL;
    if (codec_get_array(in, "", "results", false, 4, &list, e)) {
        size_t i;
        json_t *one;
        json_array_foreach(list, i, one)
        {
            char p[CODEC_PTR_MAX];
            snprintf(p, sizeof p, "/results/%zu", i);
            check_dice(one, p, e);
        }
    }
    check_cover(in, e);
}

static void shape_decline(json_t *in, enum rules_action_type type, int engine, struct svc_errors *e)
{
    (void)type, (void)engine;
    const char *t = NULL;
    codec_get_string(in, "", "target", true, 64, &t, e);
    enc_check_reaction_results(in, e);
}

/* A move, a 5-foot step and forced movement: a path (a move may give `to` instead). */
static void shape_path(json_t *in, enum rules_action_type type, int engine, struct svc_errors *e)
{
    (void)engine;
    json_t *path = NULL;
    /* A move may give `to` (a square or a combatant) instead of its path. */
    json_t *to = type == RULES_ACT_MOVE ? json_object_get(in, "to") : NULL;
    codec_get_array(in, "", "path", to == NULL, RULES_MAX_PATH, &path, e);
    if (to != NULL && !json_is_string(to) && !json_is_object(to))
        svc_errors_add(e, "/to", "must be a square {\"x\", \"y\"} or a combatant");
    if (type != RULES_ACT_MOVE && json_object_get(in, "to") != NULL)
        svc_errors_add(e, "/to", "only a move takes to");
    if (type != RULES_ACT_FORCED)
        return;
    const char *t = NULL;
    long long v = 0;
    if (codec_get_string(in, "", "target", true, 64, &t, e) && strcmp(t, enc_str(in, "actor")) == 0)
        svc_errors_add(e, "/target",
                       "must be another combatant than the actor: forced "
                       "movement is done to a creature by another (001 "
                       "Forced Movement)");
    codec_get_int(in, "", "squares", true, 1, RULES_FORCED_MAX, &v, e);
    codec_get_enum(in, "", "kind", move_forced_names, true, 0, e);
}

static void shape_facing(json_t *in, enum rules_action_type type, int engine, struct svc_errors *e)
{
    (void)type, (void)engine;
    long long v = 0;
    codec_get_int(in, "", "facing", true, 0, 7, &v, e);
}

static void shape_fall(json_t *in, enum rules_action_type type, int engine, struct svc_errors *e)
{
    (void)type, (void)engine;
    long long v = 0;
    codec_get_int(in, "", "height_ft", true, 0, RULES_IMPACT_MAX_FT, &v, e);
}

static void shape_condition(json_t *in, enum rules_action_type type, int engine,
                            struct svc_errors *e)
{
    (void)type, (void)engine;
    long long v = 0;
    codec_get_enum(in, "", "condition", enc_defender_conditions, true, -1, e);
    codec_get_int(in, "", "rounds", false, 1, 1000, &v, e);
}

/* An attack's or a decline's members read before it is ruled: whom it names, and the table's
 * dice for the reactions it may settle. */
static bool target_and_reaction_results(struct resolve_ctx *x, json_t *in)
{
    const char *t = NULL;
    return codec_get_string(in, "", "target", true, 64, &t, x->e) &&
           enc_check_reaction_results(in, x->e);
}

static json_t *rule_attack(struct resolve_ctx *x, json_t *in, json_t *actor,
                           enum rules_action_type type)
{
    (void)type;
    return target_and_reaction_results(x, in) ? enc_action_attack(x, in, actor) : NULL;
}

static json_t *rule_full_attack(struct resolve_ctx *x, json_t *in, json_t *actor,
                                enum rules_action_type type)
{
    (void)type;
    const char *t = NULL;
    if (!codec_get_string(in, "", "target", true, 64, &t, x->e))
        return NULL;
    if (enc_find(x->state, t, NULL) == NULL) {
        svc_errors_add(x->e, "/target", "names no combatant");
        return NULL;
    }
    return enc_action_full_attack(x, in, actor);
}

static json_t *rule_decline(struct resolve_ctx *x, json_t *in, json_t *actor,
                            enum rules_action_type type)
{
    (void)type;
    return target_and_reaction_results(x, in) ? enc_action_decline(x, in, actor) : NULL;
}

/* A move (in its mode), a 5-foot step, forced movement. */
static json_t *rule_path(struct resolve_ctx *x, json_t *in, json_t *actor,
                         enum rules_action_type type)
{
    const char *actor_id = enc_str(actor, "id");
    json_t *path = NULL;
    bool routed = type == RULES_ACT_MOVE && json_object_get(in, "to") != NULL;
    codec_get_array(in, "", "path", !routed, RULES_MAX_PATH, &path, x->e);
    if (type == RULES_ACT_MOVE)
        enc_check_decisions(x->state, in, x->e);
    if (type == RULES_ACT_FORCED) {
        long long sq = 0;
        codec_get_string(in, "", "target", true, 64, &actor_id, x->e);
        codec_get_int(in, "", "squares", true, 1, RULES_FORCED_MAX, &sq, x->e);
        codec_get_enum(in, "", "kind", move_forced_names, true, 0, x->e);
    }
    if (svc_errors_any(x->e))
        return NULL;
    if (type == RULES_ACT_FIVE_FOOT_STEP)
        return enc_action_move(x, in, actor, RULES_MODE_STEP);
    if (type == RULES_ACT_FORCED)
        return enc_action_forced(x, in, actor);
    int m = enc_move_mode(in, x->e);
    if (m < 0)
        return NULL;
    return enc_action_move(x, in, actor, (enum rules_move_mode)m);
}

static json_t *rule_facing(struct resolve_ctx *x, json_t *in, json_t *actor,
                           enum rules_action_type type)
{
    (void)type;
    long long f = 0;
    if (!codec_get_int(in, "", "facing", true, 0, 7, &f, x->e))
        return NULL;
    /* 000 Changing Facing: once as a free action, or as a move action. */
    return enc_outcome(
        json_pack("{s:I, s:s}", "facing", f, "rule", "000 Changing Facing"),
        json_pack("[o]", enc_effect_set(enc_str(actor, "id"), json_pack("{s:I}", "facing", f))));
}

static json_t *rule_fall(struct resolve_ctx *x, json_t *in, json_t *actor,
                         enum rules_action_type type)
{
    (void)type;
    long long h = 0;
    if (!codec_get_int(in, "", "height_ft", true, 0, RULES_IMPACT_MAX_FT, &h, x->e))
        return NULL;
    return action_fall(x, in, actor);
}

static json_t *rule_condition(struct resolve_ctx *x, json_t *in, json_t *actor,
                              enum rules_action_type type)
{
    (void)type;
    /* A condition for a number of rounds: 004's "Effects that last a certain number of
     * rounds end just before the same initiative count that they began on." */
    json_t *target = enc_find(x->state, enc_str(in, "target"), NULL);
    int ci = codec_get_enum(in, "", "condition", enc_defender_conditions, true, -1, x->e);
    long long rounds = 0;
    bool timed = codec_get_int(in, "", "rounds", false, 1, 1000, &rounds, x->e);
    if (target == NULL)
        svc_errors_add(x->e, "/target", "names no combatant");
    if (svc_errors_any(x->e) || ci < 0 || target == NULL)
        return NULL;
    json_t *fields = json_object();
    /* Its own doing when the actor puts it on itself (dropping prone), else forced on it. */
    condition_fields(x, target, enc_defender_conditions[ci], timed ? (int)rounds : 0,
                     target == actor ? RULES_CAUSE_OWN : RULES_CAUSE_OTHER, fields);
    return enc_outcome(json_pack("{s:s, s:s, s:I, s:s}", "target", enc_str(target, "id"),
                                 "condition", enc_defender_conditions[ci], "rounds", rounds, "rule",
                                 "004: effects that last a number of rounds end just before the "
                                 "same initiative count that they began on"),
                       json_pack("[o]", enc_effect_set(enc_str(target, "id"), fields)));
}

static json_t *rule_stand_up(struct resolve_ctx *x, json_t *in, json_t *actor,
                             enum rules_action_type type)
{
    (void)type;
    const char *actor_id = enc_str(actor, "id");
    /* 001 Part of a Move Action: "standing up from Prone" takes a move action (its budget
     * and the prone check come first, in resolve_action). */
    if (rules_encounter_stand_up_opens_reactions(x->engine))
        return stand_up(x, in, actor);
    return enc_outcome(
        json_pack("{s:s, s:s}", "stood_up", actor_id, "rule",
                  "001 Part of a Move Action: standing up from Prone takes a move "
                  "action"),
        json_pack("[o]",
                  enc_effect_set(actor_id, json_pack("{s:o}", "conditions",
                                                     enc_conditions_with(actor, "prone", false)))));
}

static const struct {
    void (*shape)(json_t *in, enum rules_action_type type, int engine, struct svc_errors *e);
    json_t *(*rule)(struct resolve_ctx *x, json_t *in, json_t *actor, enum rules_action_type type);
} kinds[RULES_ACT_TYPE_COUNT] = {
    [RULES_ACT_ATTACK] = {shape_attack, rule_attack},
    [RULES_ACT_MOVE] = {shape_path, rule_path},
    [RULES_ACT_FIVE_FOOT_STEP] = {shape_path, rule_path},
    [RULES_ACT_FACING] = {shape_facing, rule_facing},
    [RULES_ACT_FORCED] = {shape_path, rule_path},
    [RULES_ACT_FALL] = {shape_fall, rule_fall},
    [RULES_ACT_CONDITION] = {shape_condition, rule_condition},
    [RULES_ACT_STAND_UP] = {NULL, rule_stand_up}, /* no members of its own */
    [RULES_ACT_FULL_ATTACK] = {shape_full_attack, rule_full_attack},
    [RULES_ACT_DECLINE_REACTION] = {shape_decline, rule_decline},
};

bool enc_check_action_shape(json_t *in, enum rules_action_type type, int engine,
                            struct svc_errors *e)
{
    /* With the rule shapes (the kind's `shaped`); without it these were checked, and some
     * accepted, as each action was ruled (enc_resolve_action_kind), and its stored events re-rule
     * so. */
    struct rules_action_kind kind;
    rules_action_kind_of(engine, type, false, &kind);
    if (!kind.shaped)
        return true;
    size_t before = json_array_size(e->list);
    if (json_object_get(in, "bonus") != NULL && type != RULES_ACT_ATTACK &&
        type != RULES_ACT_FULL_ATTACK)
        svc_errors_add(e, "/bonus", "only an attack takes a situational bonus");
    if (kinds[type].shape != NULL)
        kinds[type].shape(in, type, engine, e);
    return json_array_size(e->list) == before;
}

/* The reactors an action's input names: each of reaction_results a combatant (as a move's
 * reactions are), and none of reactions the mover itself (it does not react to its own
 * move). Errors at the member's pointer in e. */
static void check_reactors(json_t *state, json_t *in, json_t *actor, struct svc_errors *e)
{
    const char *k;
    json_t *v;
    json_t *all = json_object_get(in, "reaction_results");
    if (json_is_object(all))
        json_object_foreach(all, k, v)
        {
            char p[CODEC_PTR_MAX];
            codec_pointer(p, "/reaction_results", k);
            if (enc_find(state, k, NULL) == NULL)
                svc_errors_add(e, p, "names no combatant");
            else if (strcmp(k, enc_str(actor, "id")) == 0)
                svc_errors_add(e, p, "is the mover: it makes no attack of opportunity on itself");
        }
    all = json_object_get(in, "reactions");
    if (json_is_object(all) && json_object_get(all, enc_str(actor, "id")) != NULL) {
        char p[CODEC_PTR_MAX];
        codec_pointer(p, "/reactions", enc_str(actor, "id"));
        svc_errors_add(e, p, "is the mover: it makes no attack of opportunity on itself");
    }
}

/* The action of `type` (rules/encounter.h) by actor, once its turn and budget allow it. */

json_t *enc_resolve_action_kind(struct resolve_ctx *x, json_t *in, json_t *actor,
                                enum rules_action_type type)
{
    if (rules_encounter_checks_shapes(x->engine)) /* as enc_check_action_shape */
        check_reactors(x->state, in, actor, x->e);
    if (svc_errors_any(x->e) || (unsigned)type >= RULES_ACT_TYPE_COUNT)
        return NULL;
    return kinds[type].rule(x, in, actor, type);
}
