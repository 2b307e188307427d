/* The impact requests' shapes and rulings: POST /v1/falling, /v1/collisions and
 * /v1/objects/dropped (ruling.h). The rules decide the dice (rules/world/impact.h); these
 * decode the request, roll with the request's dice source, and report every die and the rule
 * used. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/world/impact.h"
#include "service/codec/answer.h"
#include "service/codec/dice.h"
#include "service/codec/rule_options.h"
#include "service/codec/ruling.h"
#include "service/explain/explain.h"
#include "service/http/http.h"
#include "service/http/problem.h"
#include "service/http/request.h"
#include "service/json/errors.h"
#include "service/json/fields.h"

#define MAX_TARGETS 64
#define MAX_DR      1000

/* Rolls an impact's dice (none: a null "dice") and adds the damage to doc. Returns the damage
 * after reduction, or -1 with the problem in e (supplied results that do not fit). */
static int roll_impact(const struct rules_impact *im, struct rules_dice *d, int dr, json_t *doc,
                       struct svc_errors *e)
{
    int raw = 0, damage = 0;
    if (im->expression[0] == '\0') {
        json_object_set_new(doc, "dice", json_null());
    } else {
        struct rules_dice_expr expr;
        size_t at = 0;
        struct rules_roll *roll = malloc(sizeof *roll);
        if (roll == NULL || rules_dice_parse(im->expression, &expr, &at) != RULES_DICE_OK) {
            free(roll);
            svc_errors_add(e, "", "cannot roll %s", im->expression);
            return -1;
        }
        int rc = rules_dice_roll(&expr, d, roll);
        if (rc != RULES_DICE_OK) {
            char ptr[CODEC_PTR_MAX];
            if (rc == RULES_DICE_ERR_SUPPLIED_RANGE)
                snprintf(ptr, sizeof ptr, "/results/%zu", d->supplied_used);
            else
                snprintf(ptr, sizeof ptr, "/results");
            svc_errors_add(e, ptr, "%s (this ruling rolls %s first)", rules_dice_strerror(rc),
                           im->expression);
            free(roll);
            return -1;
        }
        raw = rules_impact_total(roll, im->per_die, 0);
        damage = rules_impact_total(roll, im->per_die, dr);
        json_object_set_new(doc, "dice", svc_encode_roll(im->expression, &expr, roll));
        free(roll);
    }
    json_object_set_new(doc, "per_die", json_integer(im->per_die));
    json_object_set_new(doc, "capped", json_boolean(im->capped));
    json_object_set_new(doc, "damage_before_reduction", json_integer(raw));
    json_object_set_new(doc, "damage_reduction", json_integer(dr));
    json_object_set_new(doc, "damage", json_integer(damage));
    return damage;
}

/* Supplied results must all be used: the count must match exactly. */
static bool all_used(const struct rules_dice *d, struct svc_errors *e)
{
    if (!rules_dice_all_used(d)) {
        svc_errors_add(e, "/results", "%zu results were supplied but this ruling rolls %zu dice",
                       d->supplied_count, d->supplied_used);
        return false;
    }
    return true;
}

static const char *const surfaces[] = {"ground", "obsidian", "stone", "soft", "water", NULL};

/* An impact's answer, sent (out takes *doc, and *doc is NULL after): the rule cited, where its
 * dice came from, and its prose. */
static void answer_impact(struct svc_answer *out, json_t **doc, const char *rule,
                          const struct svc_dice_source *src, void (*explain)(json_t *doc))
{
    assert(doc != NULL && *doc != NULL && rule != NULL && explain != NULL);
    json_object_set_new(*doc, "rule", json_string(rule));
    svc_dice_source_describe(src, *doc);
    explain(*doc);
    svc_answer_json(out, *doc);
    *doc = NULL;
}

/* What a ruling holds until it has answered: its document, its errors, its dice's source. */
static void release(json_t *doc, struct svc_errors *e, struct svc_dice_source *src)
{
    json_decref(doc);
    svc_errors_free(e);
    free(src);
}

void svc_decode_fall(json_t *body, struct rules_fall *f, bool *has_depth, struct svc_errors *e)
{
    long long height = 0, per_die = 0, depth = 0;
    *f = (struct rules_fall){0};
    codec_get_int(body, "", "height_ft", true, 0, RULES_IMPACT_MAX_FT, &height, e);
    f->surface = (enum rules_surface)codec_get_enum(body, "", "surface", surfaces, false,
                                                    RULES_SURFACE_GROUND, e);
    codec_get_int(body, "", "per_die", false, -100, 100, &per_die, e);
    codec_get_bool(body, "", "deliberate", false, &f->deliberate, e);
    codec_get_bool(body, "", "acrobatics_success", false, &f->acrobatics_success, e);
    *has_depth =
        codec_get_int(body, "", "water_depth_ft", false, 0, RULES_IMPACT_MAX_FT, &depth, e);
    codec_get_bool(body, "", "dive", false, &f->dive, e);
    codec_get_bool(body, "", "dive_success", false, &f->dive_success, e);
    f->height_ft = (int)height;
    f->custom_per_die = (int)per_die;
    f->water_depth_ft = (int)depth;
}

void svc_check_fall(const struct rules_fall *f, bool has_depth, struct svc_errors *e)
{
    bool water = f->surface == RULES_SURFACE_WATER;
    if (f->acrobatics_success && !f->deliberate)
        svc_errors_add(e, "/acrobatics_success",
                       "the DC 15 Acrobatics check applies to a deliberate jump (001 Falling)");
    if (water && !has_depth)
        svc_errors_add(e, "/water_depth_ft", "is required when surface is water");
    if (!water && has_depth)
        svc_errors_add(e, "/water_depth_ft", "applies only when surface is water");
    if (f->dive && !water)
        svc_errors_add(e, "/dive", "a dive is into water (surface water)");
    if (f->dive_success && !f->dive)
        svc_errors_add(e, "/dive_success", "applies only to a dive");
}

/* A ruling's dice source (malloc'd: it holds a seed's whole draw), or NULL after answering 500. */
static struct svc_dice_source *new_source(struct svc_answer *out)
{
    struct svc_dice_source *src = malloc(sizeof *src);
    if (src == NULL)
        svc_answer_problem(out, SVC_PROBLEM_INTERNAL, NULL);
    return src;
}

void svc_rule_falling(json_t *body, struct svc_answer *out)
{
    static const char *const known[] = {"rules", SVC_FALL_MEMBERS, "damage_reduction",
                                        "seed",  "results",        NULL};
    struct svc_errors e;
    struct svc_rules rules;
    struct svc_dice_source *src = new_source(out);
    if (src == NULL)
        return;
    if (!svc_decode_body(body, known, &e)) {
        svc_answer_errors(out, &e);
    } else {
        svc_decode_rules(body, &rules, &e);
        struct rules_fall f;
        bool has_depth = false;
        svc_decode_fall(body, &f, &has_depth, &e);
        long long dr = 0;
        codec_get_int(body, "", "damage_reduction", false, 0, MAX_DR, &dr, &e);
        svc_decode_dice_source(body, src, &e);
        svc_check_fall(&f, has_depth, &e);
        svc_rule_fall_decoded(&rules, &f, (int)dr, src, &e, out, NULL);
    }
    svc_errors_free(&e);
    free(src);
}

void svc_rule_fall_decoded(const struct svc_rules *rules, const struct rules_fall *fall, int dr,
                           struct svc_dice_source *src, struct svc_errors *e,
                           struct svc_answer *out, struct svc_fall_facts *facts)
{
    json_t *doc = NULL;
    const struct rules_fall f = *fall;
    if (svc_errors_any(e))
        goto fail;
    struct rules_fall_outcome o;
    rules_fall(&rules->options, &f, &o);
    struct rules_dice d;
    svc_dice_source_open(src, &d);
    doc = json_pack("{s:o, s:i, s:s, s:i, s:b}", "rules", svc_encode_rules(rules), "height_ft",
                    f.height_ft, "surface", surfaces[f.surface], "free_ft", o.dice.free_ft, "water",
                    o.water);
    int damage = roll_impact(&o.dice, &d, dr, doc, e);
    if (damage < 0 || !all_used(&d, e))
        goto fail;
    if (f.dive)
        json_object_set_new(doc, "dive",
                            json_pack("{s:i, s:b, s:b}", "dc", o.dive_dc, "deep_enough",
                                      o.dive_deep_enough, "unharmed", o.dive_unharmed));
    /* 001 Falling: "Creatures that sustain damage from a fall (after any mitigation they might
     * have, such as DR) also gains the prone condition." (A fall onto solid ground.) */
    json_t *conditions = json_array();
    if (damage > 0 && !o.water)
        json_array_append_new(conditions, json_string("prone"));
    if (facts != NULL)
        *facts = (struct svc_fall_facts){.damage = damage, .prone = damage > 0 && !o.water};
    json_object_set_new(doc, "conditions", conditions);
    answer_impact(out, &doc, o.dice.rule, src, svc_explain_falling);
    return;
fail:
    json_decref(doc);
    svc_answer_errors(out, e);
}

void svc_rule_collision(json_t *body, struct svc_answer *out)
{
    static const char *const known[] = {
        "rules", "speed_ft", "motion", "deliberate", "damage_reduction", "seed", "results", NULL};
    static const char *const motions[] = {"walk",       "double_move", "run", "charge",
                                          "swept_away", "thrown",      NULL};
    json_t *doc = NULL;
    struct svc_errors e;
    struct svc_rules rules;
    struct svc_dice_source *src = new_source(out);
    if (src == NULL)
        return;
    if (!svc_decode_body(body, known, &e))
        goto fail;
    svc_decode_rules(body, &rules, &e);
    long long speed = 0, dr = 0;
    struct rules_collision c = {0};
    codec_get_int(body, "", "speed_ft", true, 0, RULES_IMPACT_MAX_FT, &speed, &e);
    if (json_object_get(body, "motion") == NULL)
        svc_errors_add(&e, "/motion", "is required");
    c.motion = (enum rules_motion)codec_get_enum(body, "", "motion", motions, false,
                                                 RULES_MOTION_WALK, &e);
    codec_get_bool(body, "", "deliberate", false, &c.deliberate, &e);
    codec_get_int(body, "", "damage_reduction", false, 0, MAX_DR, &dr, &e);
    svc_decode_dice_source(body, src, &e);
    if (svc_errors_any(&e))
        goto fail;
    c.speed_ft = (int)speed;
    struct rules_impact im;
    rules_collision(&rules.options, &c, &im);
    struct rules_dice d;
    svc_dice_source_open(src, &d);
    doc = json_pack("{s:o, s:i, s:s, s:b}", "rules", svc_encode_rules(&rules), "speed_ft",
                    c.speed_ft, "motion", motions[c.motion], "deliberate", c.deliberate);
    if (roll_impact(&im, &d, (int)dr, doc, &e) < 0 || !all_used(&d, &e))
        goto fail;
    json_object_set_new(doc, "conditions", json_array());
    answer_impact(out, &doc, im.rule, src, svc_explain_collision);
    goto out;
fail:
    svc_answer_errors(out, &e);
out:
    release(doc, &e, src);
}

/* A dropped object request as decoded: the object, its range and its targets. */
struct dropped {
    struct svc_rules rules;
    const char *size_name;
    int size; /* -1 until a size the table lists is read */
    int distance_ft, per_die, range_ft, penalty, bonus, material;
    bool attack; /* targets were given: each is struck by a ranged touch attack */
    struct {
        int touch_ac, dr;
    } targets[MAX_TARGETS];
    size_t target_count;
};

static const char *const materials[] = {"normal", "feathers", "brush", "dense", "harmful", NULL};
static_assert(sizeof materials / sizeof materials[0] == RULES_MATERIAL_HARMFUL + 2,
              "one name per material");

/* /size: a size the Object Size Damage table lists. */
static void decode_object_size(json_t *body, struct dropped *q, struct svc_errors *e)
{
    q->size = -1;
    if (!codec_get_string(body, "", "size", true, 32, &q->size_name, e))
        return;
    int size = rules_size_from_name(q->size_name);
    if (size < 0 || rules_object_size_dice((enum rules_size)size) < 0)
        svc_errors_add(e, "/size", "the Object Size Damage table lists tiny to titanic and larger");
    else
        q->size = size;
}

/* /targets: each a touch AC and a damage reduction; with them, the attack bonus, and only an
 * object that fills an area strikes more than one. */
static void decode_targets(json_t *body, struct dropped *q, bool has_bonus, struct svc_errors *e)
{
    json_t *list = NULL, *t;
    if (!codec_get_array(body, "", "targets", false, MAX_TARGETS, &list, e))
        return;
    q->attack = true;
    size_t i;
    json_array_foreach(list, i, t)
    {
        static const char *const keys[] = {"touch_ac", "damage_reduction", NULL};
        char ptr[CODEC_PTR_MAX];
        snprintf(ptr, sizeof ptr, "/targets/%zu", i);
        long long ac = 0, dr = 0;
        if (codec_expect_object(t, ptr, e)) {
            codec_reject_unknown(t, ptr, keys, e);
            codec_get_int(t, ptr, "touch_ac", true, -100, 200, &ac, e);
            codec_get_int(t, ptr, "damage_reduction", false, 0, MAX_DR, &dr, e);
        }
        assert(q->target_count < MAX_TARGETS);
        q->targets[q->target_count].touch_ac = (int)ac;
        q->targets[q->target_count++].dr = (int)dr;
    }
    if (q->target_count == 0)
        svc_errors_add(e, "/targets", "must name at least one target, or be left out");
    if (!has_bonus)
        svc_errors_add(e, "/attack_bonus", "is required to make the ranged touch attack");
    if (q->target_count > 1 && q->size >= 0 && !rules_dropped_fills_area((enum rules_size)q->size))
        svc_errors_add(e, "/targets",
                       "only a Large or larger object fills an area and may strike several "
                       "targets");
}

static void decode_dropped(json_t *body, struct dropped *q, struct svc_errors *e)
{
    svc_decode_rules(body, &q->rules, e);
    decode_object_size(body, q, e);
    long long distance = 0, per_die = 0, range = 0, penalty = 0, bonus = 0;
    codec_get_int(body, "", "distance_ft", true, 0, RULES_IMPACT_MAX_FT, &distance, e);
    q->material = codec_get_enum(body, "", "material", materials, false, RULES_MATERIAL_NORMAL, e);
    codec_get_int(body, "", "per_die", false, -100, 100, &per_die, e);
    codec_get_int(body, "", "range_ft", false, 0, RULES_IMPACT_MAX_FT, &range, e);
    bool has_penalty =
        codec_get_int(body, "", "range_penalty_per_increment", false, 0, 100, &penalty, e);
    bool has_bonus = codec_get_int(body, "", "attack_bonus", false, -100, 100, &bonus, e);
    q->distance_ft = (int)distance;
    q->per_die = (int)per_die;
    q->range_ft = (int)range;
    q->penalty = (int)penalty;
    q->bonus = (int)bonus;
    decode_targets(body, q, has_bonus, e);
    if (q->attack && rules_dropped_range_increment(q->range_ft) > 1 && !has_penalty)
        svc_errors_add(e, "/range_penalty_per_increment",
                       "is required beyond the first 20-ft range increment (the documents give "
                       "no penalty per increment)");
}

/* Strikes every target of q with damage (rolled once), one d20 each from d, into doc's
 * "targets" and "range". False with the problem in e when the d20s do not fit. */
static bool strike_targets(const struct dropped *q, int damage, struct rules_dice *d, json_t *doc,
                           struct svc_errors *e)
{
    json_t *hits = json_array();
    json_object_set_new(doc, "targets", hits);
    if (!q->attack)
        return true;
    int penalty = rules_dropped_range_penalty(q->range_ft, q->penalty);
    json_object_set_new(doc, "range",
                        json_pack("{s:i, s:i, s:i}", "range_ft", q->range_ft, "increment",
                                  rules_dropped_range_increment(q->range_ft), "penalty", -penalty));
    for (size_t i = 0; i < q->target_count; i++) {
        int d20 = 0;
        int rc = rules_dice_draw(d, 20, &d20);
        if (rc != RULES_DICE_OK) {
            svc_errors_add(e, "/results", "%s (the damage dice, then one d20 per target)",
                           rules_dice_strerror(rc));
            return false;
        }
        struct rules_dropped_strike s;
        rules_dropped_strike(d20, q->bonus, penalty, q->targets[i].touch_ac, damage,
                             q->targets[i].dr, &s);
        json_array_append_new(
            hits, json_pack("{s:i, s:i, s:i, s:i, s:i, s:b, s:i}", "index", (int)i, "d20", d20,
                            "attack_total", s.attack_total, "roll_total", s.roll_total, "touch_ac",
                            q->targets[i].touch_ac, "hit", s.hit, "damage", s.damage));
    }
    return true;
}

void svc_rule_dropped(json_t *body, struct svc_answer *out)
{
    static const char *const known[] = {"rules",
                                        "size",
                                        "distance_ft",
                                        "material",
                                        "per_die",
                                        "range_ft",
                                        "range_penalty_per_increment",
                                        "attack_bonus",
                                        "targets",
                                        "seed",
                                        "results",
                                        NULL};
    json_t *doc = NULL;
    struct svc_errors e;
    struct dropped q = {0};
    struct svc_dice_source *src = new_source(out);
    if (src == NULL)
        return;
    if (svc_decode_body(body, known, &e)) {
        decode_dropped(body, &q, &e);
        svc_decode_dice_source(body, src, &e);
    }
    if (svc_errors_any(&e))
        goto fail;
    struct rules_impact im;
    rules_dropped_object(&q.rules.options, (enum rules_size)q.size, q.distance_ft,
                         (enum rules_material)q.material, q.per_die, &im);
    struct rules_dice d;
    svc_dice_source_open(src, &d);
    doc = json_pack("{s:o, s:s, s:i, s:s}", "rules", svc_encode_rules(&q.rules), "size",
                    q.size_name, "distance_ft", q.distance_ft, "material", materials[q.material]);
    /* The damage is rolled once and struck on every target hit; each target's DR applies. */
    int damage = roll_impact(&im, &d, 0, doc, &e);
    if (damage < 0 || !strike_targets(&q, damage, &d, doc, &e) || !all_used(&d, &e))
        goto fail;
    answer_impact(out, &doc, im.rule, src, svc_explain_dropped);
    goto out;
fail:
    svc_answer_errors(out, &e);
out:
    release(doc, &e, src);
}
