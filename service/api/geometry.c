/* Rules presets and geometry endpoints: GET /v1/rules/presets, POST /v1/geometry/distance,
 * POST /v1/geometry/flanking, POST /v1/geometry/areas. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "rules/board/facing.h"
#include "rules/board/flanking.h"
#include "rules/board/grid.h"
#include "rules/board/size.h"
#include "rules/sources.h"
#include "service/api/api.h"
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

void svc_handle_presets(const struct svc_request *req, struct svc_response *res)
{
    (void)req;
    int count = 0;
    const struct rules_option_info *table = rules_option_table(&count);
    json_t *options = json_array();
    for (int i = 0; i < count; i++) {
        const struct rules_option_info *info = &table[i];
        json_t *o = json_pack("{s:s, s:s}", "name", info->name, "description", info->description);
        if (info->kind == RULES_OPTION_ENUM) {
            json_object_set_new(o, "type", json_string("enum"));
            json_t *values = json_array();
            for (int v = 0; v < RULES_OPTION_MAX_VALUES && info->values[v]; v++)
                json_array_append_new(values, json_pack("{s:s, s:s}", "value", info->values[v],
                                                        "description", info->value_docs[v]));
            json_object_set_new(o, "values", values);
        } else if (info->kind == RULES_OPTION_BOOL) {
            json_object_set_new(o, "type", json_string("boolean"));
        } else {
            json_object_set_new(o, "type", json_string("integer"));
            json_object_set_new(o, "minimum", json_integer(info->min));
            json_object_set_new(o, "maximum", json_integer(info->max));
        }
        json_array_append_new(options, o);
    }
    int npresets = 0;
    const struct rules_preset *presets = rules_presets(&npresets);
    json_t *list = json_array();
    for (int i = 0; i < npresets; i++)
        json_array_append_new(list, json_pack("{s:s, s:s, s:o}", "name", presets[i].name,
                                              "description", presets[i].description, "options",
                                              svc_encode_options(&presets[i].options)));
    svc_respond_json(res, 200,
                     json_pack("{s:s, s:o, s:o}", "default", RULES_DEFAULT_PRESET, "options",
                               options, "presets", list));
}

/* Sends doc (the ruling's answer), or e's errors when doc is NULL; frees e. */
static void answer(struct svc_answer *out, json_t *doc, struct svc_errors *e)
{
    assert(doc != NULL || svc_errors_any(e));
    if (doc != NULL)
        svc_answer_json(out, doc);
    else
        svc_answer_errors(out, e);
    svc_errors_free(e);
}

static json_t *rule_distance(json_t *body, struct svc_errors *e)
{
    struct svc_rules rules;
    struct rules_creature from, to;
    if (!svc_decode_rules(body, &rules, e))
        return NULL;
    svc_decode_member(body, "from", &rules.options, false, NULL, &from, e);
    svc_decode_member(body, "to", &rules.options, false, NULL, &to, e);
    if (svc_errors_any(e))
        return NULL;

    struct rules_distance d;
    rules_distance(&rules.options, &from.body, &to.body, &d);
    json_t *doc = json_pack("{s:o, s:i, s:i, s:i, s:i}", "rules", svc_encode_rules(&rules),
                            "squares", d.squares, "feet", d.feet, "horizontal_squares",
                            d.horizontal_squares, "vertical_squares", d.vertical_squares);
    if (rules.options.grid == RULES_GRID_SQUARE) {
        json_object_set_new(doc, "straight_steps", json_integer(d.straight_steps));
        json_object_set_new(doc, "diagonal_steps", json_integer(d.diagonal_steps));
    }
    json_object_set_new(doc, "rule", json_string(d.rule));
    svc_explain_distance(doc, svc_member_name(body, "from"), svc_member_name(body, "to"));
    return doc;
}

static void answer_distance(json_t *body, struct svc_answer *out)
{
    static const char *const known[] = {"rules", "from", "to", NULL};
    struct svc_errors e;
    answer(out, svc_decode_body(body, known, &e) ? rule_distance(body, &e) : NULL, &e);
}

void svc_handle_distance(const struct svc_request *req, struct svc_response *res)
{
    svc_answer_handle(req, res, answer_distance);
}

void svc_handle_flanking(const struct svc_request *req, struct svc_response *res)
{
    svc_answer_handle(req, res, svc_rule_flanking);
}

static_assert(RULES_AREA_REAR + 1 == 6, "counts[6] and ring[6] hold one count per rules_area");
#define MAX_RADIUS_FT 250

/* Appends one square of the areas answer. */
static void add_square(json_t *list, int counts[6], int ring[6], const struct rules_options *o,
                       const struct rules_creature *c, bool awareness, bool all_around, int x,
                       int y, int *threatened)
{
    assert(list != NULL && threatened != NULL);
    struct rules_body sq = {.x = x, .y = y, .z = c->body.z, .side = 1};
    struct rules_distance d;
    rules_distance(o, &c->body, &sq, &d);
    enum rules_area area = rules_facing_area(o, c, x, y);
    struct rules_perception p;
    rules_perception(o, area, awareness, all_around, &p);
    bool threat = rules_threatens_square(o, c, x, y, c->body.z);
    *threatened += threat;
    assert(area >= RULES_AREA_NONE && area <= RULES_AREA_REAR);
    counts[area]++;
    if (d.squares == 1)
        ring[area]++; /* the adjacent ring, which is what the documents count */
    bool hex = o->grid == RULES_GRID_HEX;
    json_t *item =
        json_pack("{s:i, s:i, s:s, s:i, s:b, s:i, s:b, s:b}", hex ? "q" : "x", x, hex ? "r" : "y",
                  y, "area", rules_area_name(area), "distance_ft", d.feet, "threatened", threat,
                  "spot", p.spot, "visual_trigger", p.visual_trigger, "concealment", p.concealment);
    json_array_append_new(list, item);
}

static json_t *rule_areas(json_t *body, struct svc_errors *e)
{
    struct svc_rules rules;
    struct rules_creature c;
    long long radius_ft = 0;
    bool awareness = false, all_around = false;
    if (!svc_decode_rules(body, &rules, e))
        return NULL;
    json_t *cobj = svc_decode_member(body, "creature", &rules.options, true, NULL, &c, e);
    if (cobj != NULL) {
        codec_get_bool(cobj, "/creature", "combat_awareness", false, &awareness, e);
        codec_get_bool(cobj, "/creature", "all_around_vision", false, &all_around, e);
    }
    codec_get_int(body, "", "radius_ft", true, 0, MAX_RADIUS_FT, &radius_ft, e);
    if (cobj != NULL && json_object_get(cobj, "facing") == NULL &&
        rules_has_facing(&rules.options, &c))
        svc_errors_add(e, "/creature/facing",
                       "is required under facing %s for a creature larger than Tiny that is not "
                       "faceless (0 = north, clockwise, %d facings)",
                       rules.options.facing == RULES_FACING_000 ? "000" : "003",
                       rules_facing_count(&rules.options));
    if (svc_errors_any(e))
        return NULL;

    const struct rules_options *o = &rules.options;
    int r = (int)radius_ft / 5, counts[6] = {0}, ring[6] = {0}, threatened = 0;
    json_t *squares = json_array();
    if (o->grid == RULES_GRID_HEX) {
        /* Around the anchor hex, one further for a triangle's other hexes. */
        int reach = r + (c.body.tri ? 1 : 0);
        for (int dq = -reach; dq <= reach; dq++) {
            int lo = -reach > -dq - reach ? -reach : -dq - reach;
            int hi = reach < -dq + reach ? reach : -dq + reach;
            for (int dr = lo; dr <= hi; dr++) {
                struct rules_body h = {.x = c.body.x + dq, .y = c.body.y + dr, .side = 1};
                struct rules_distance d;
                rules_distance(o, &c.body, &h, &d);
                if (d.feet <= radius_ft)
                    add_square(squares, counts, ring, o, &c, awareness, all_around, h.x, h.y,
                               &threatened);
            }
        }
    } else {
        const struct rules_body *b = &c.body;
        for (int y = b->y - r; y < b->y + b->side + r; y++) {
            for (int x = b->x - r; x < b->x + b->side + r; x++) {
                struct rules_body sq = {.x = x, .y = y, .z = b->z, .side = 1};
                struct rules_distance d;
                rules_distance(o, b, &sq, &d);
                if (d.feet <= radius_ft)
                    add_square(squares, counts, ring, o, &c, awareness, all_around, x, y,
                               &threatened);
            }
        }
    }
    json_t *count_doc = json_object(), *ring_doc = json_object();
    for (int a = 0; a < 6; a++) {
        json_object_set_new(count_doc, rules_area_name((enum rules_area)a),
                            json_integer(counts[a]));
        json_object_set_new(ring_doc, rules_area_name((enum rules_area)a), json_integer(ring[a]));
    }
    json_t *doc = json_pack("{s:o, s:I, s:b, s:o, s:o, s:i, s:o}", "rules",
                            svc_encode_rules(&rules), "radius_ft", (json_int_t)radius_ft,
                            "has_facing", rules_has_facing(o, &c), "counts", count_doc, "ring",
                            ring_doc, "threatened_count", threatened, "squares", squares);
    json_object_set_new(doc, "rule",
                        json_string(o->facing == RULES_FACING_000   ? "000 Combat Facing"
                                    : o->facing == RULES_FACING_003 ? "003 facing variant"
                                                                    : "no facing in force"));
    svc_explain_areas(doc);
    return doc;
}

static void answer_areas(json_t *body, struct svc_answer *out)
{
    static const char *const known[] = {"rules", "creature", "radius_ft", NULL};
    struct svc_errors e;
    answer(out, svc_decode_body(body, known, &e) ? rule_areas(body, &e) : NULL, &e);
}

void svc_handle_areas(const struct svc_request *req, struct svc_response *res)
{
    svc_answer_handle(req, res, answer_areas);
}

void svc_handle_sizes(const struct svc_request *req, struct svc_response *res)
{
    (void)req;
    json_t *list = json_array();
    for (int i = 0; i < RULES_SIZE_COUNT; i++) {
        const struct rules_size_info *s = rules_size_info((enum rules_size)i);
        json_t *pc = json_pack("{s:i, s:i, s:i, s:i, s:i}", "ac", s->pc_ac_001, "stealth",
                               s->pc_ac_001, "maneuver_defense", s->pc_maneuver_001, "might",
                               s->pc_maneuver_001, "walk_ft", s->pc_walk_ft_001);
        json_t *item = json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:o}", "name", s->name,
                                 "space_in", s->space_in, "squares", s->squares, "natural_reach_ft",
                                 s->natural_reach_ft, "fit_gap_in", s->fit_gap_in, "squeeze_gap_in",
                                 s->squeeze_gap_in, "impeded_gap_in", s->impeded_gap_in,
                                 "per_square", s->per_square, "player_character_001", pc);
        json_object_set_new(item, "hexes", s->hexes ? json_integer(s->hexes) : json_null());
        json_object_set_new(item, "modifier_004",
                            s->has_mod_004 ? json_integer(s->mod_004) : json_null());
        json_array_append_new(list, item);
    }
    svc_respond_json(res, 200, json_pack("{s:o}", "sizes", list));
}

/* GET /v1/rules/sources: the documents every citation points into, by number, with their
 * titles and sections (rules/sources.h; docs/rules.md is the glossary of the citations). */
void svc_handle_sources(const struct svc_request *req, struct svc_response *res)
{
    (void)req;
    json_t *list = json_array();
    for (int i = 0; i < RULES_SOURCE_DOC_COUNT; i++) {
        const struct rules_source_doc *d = &rules_source_docs[i];
        json_t *sections = json_array();
        for (int k = 0; d->sections[k] != NULL; k++)
            json_array_append_new(sections, json_string(d->sections[k]));
        json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:s, s:o}", "number", d->number,
                                              "file", d->file, "title", d->title, "covers",
                                              d->covers, "sections", sections));
    }
    svc_respond_json(res, 200,
                     json_pack("{s:o, s:s}", "documents", list, "glossary", "docs/rules.md"));
}
