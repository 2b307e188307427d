/* Rules presets and geometry endpoints: GET /v1/rules/presets, POST /v1/geometry/distance,
 * POST /v1/geometry/flanking, POST /v1/geometry/areas. */
#include <stdio.h>
#include <stdlib.h>

#include "codec.h"
#include "facing.h"
#include "flanking.h"
#include "grid.h"
#include "rules_codec.h"
#include "ruling.h"
#include "size.h"
#include "sources.h"
#include "svc.h"

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

/* Decodes one creature at `ptr` (a JSON pointer) from obj: its place {"x","y","z"?} on squares
 * or {"q","r"} on hexes, and its "size" (default medium). With `combat`, also what threat and
 * flanking need: "reach_ft" (default the size's natural reach, 001 Reach), "reach_weapon",
 * "can_threaten" (default true), "cannot_be_flanked", "facing" (required when a facing
 * variant is in force and the creature has one), "faceless", and the perception features
 * "combat_awareness" and "all_around_vision" (read by the caller). */
void svc_decode_creature(json_t *obj, const char *ptr, const struct rules_options *o, bool combat,
                         const char *const *extra_keys, struct rules_creature *out,
                         struct svc_errors *e)
{
    /* "name" is for the sentences a bot posts (issue 18: names, not ids); nothing rules on it. */
    static const char *const square_keys[] = {"x", "y", "z", "size", "name", NULL};
    static const char *const hex_keys[] = {"q", "r", "size", "triangle", "name", NULL};
    static const char *const square_combat[] = {"facing",
                                                "faceless",
                                                "combat_awareness",
                                                "all_around_vision",
                                                "x",
                                                "y",
                                                "z",
                                                "size",
                                                "reach_ft",
                                                "reach_weapon",
                                                "can_threaten",
                                                "cannot_be_flanked",
                                                "name",
                                                NULL};
    static const char *const hex_combat[] = {"triangle",
                                             "facing",
                                             "faceless",
                                             "combat_awareness",
                                             "all_around_vision",
                                             "q",
                                             "r",
                                             "size",
                                             "reach_ft",
                                             "reach_weapon",
                                             "can_threaten",
                                             "cannot_be_flanked",
                                             "name",
                                             NULL};
    rules_creature_init(out, RULES_SIZE_MEDIUM, 0, 0, 0);
    if (!codec_expect_object(obj, ptr, e))
        return;
    bool hex = o->grid == RULES_GRID_HEX;
    const char *const *base =
        hex ? (combat ? hex_combat : hex_keys) : (combat ? square_combat : square_keys);
    const char *keys[64];
    size_t nk = 0;
    for (; base[nk] != NULL && nk < 63; nk++)
        keys[nk] = base[nk];
    for (size_t i = 0; extra_keys != NULL && extra_keys[i] != NULL && nk < 63; i++)
        keys[nk++] = extra_keys[i];
    keys[nk] = NULL;
    codec_reject_unknown(obj, ptr, keys, e);
    long long a = 0, b = 0, z = 0;
    codec_get_int(obj, ptr, hex ? "q" : "x", true, -RULES_COORD_MAX, RULES_COORD_MAX, &a, e);
    codec_get_int(obj, ptr, hex ? "r" : "y", true, -RULES_COORD_MAX, RULES_COORD_MAX, &b, e);
    if (!hex)
        codec_get_int(obj, ptr, "z", false, -RULES_COORD_MAX, RULES_COORD_MAX, &z, e);
    const char *size_name = "medium";
    char sptr[CODEC_PTR_MAX]; /* pointers are built only for errors: this runs per creature */
    codec_get_string(obj, ptr, "size", false, 32, &size_name, e); /* absent: medium */
    int size = rules_size_from_name(size_name);
    if (size < 0 || (hex && rules_size_info((enum rules_size)size)->hexes == 0))
        codec_pointer(sptr, ptr, "size");
    if (size < 0) {
        svc_errors_add(e, sptr,
                       "is not a size of 001 Space and Reach (fine ... "
                       "titanic-three-plus)");
        size = RULES_SIZE_MEDIUM;
    } else if (hex && rules_size_info((enum rules_size)size)->hexes == 0) {
        svc_errors_add(e, sptr,
                       "on a hex grid creatures cover one hex (medium and smaller) or three "
                       "(large, 003); no document gives larger hex footprints");
        size = RULES_SIZE_MEDIUM;
    }
    rules_creature_init(out, (enum rules_size)size, (int)a, (int)b, (int)z);
    if (hex) {
        long long tri = 0;
        bool three = rules_size_info((enum rules_size)size)->hexes == 3;
        bool given = codec_get_int(obj, ptr, "triangle", three, 0, 5, &tri, e);
        if (given && !three) {
            char tptr[CODEC_PTR_MAX];
            codec_pointer(tptr, ptr, "triangle");
            svc_errors_add(e, tptr, "only a three-hex (large) creature has a triangle");
        }
        rules_creature_on_hexes(out, (int)tri);
    }
    if (!combat)
        return;
    long long reach = out->reach_ft;
    codec_get_int(obj, ptr, "reach_ft", false, 0, 1000, &reach, e);
    out->reach_ft = (int)reach;
    codec_get_bool(obj, ptr, "reach_weapon", false, &out->reach_weapon, e);
    codec_get_bool(obj, ptr, "can_threaten", false, &out->can_threaten, e);
    codec_get_bool(obj, ptr, "cannot_be_flanked", false, &out->cannot_be_flanked, e);
    codec_get_bool(obj, ptr, "faceless", false, &out->faceless, e);
    long long facing = -1;
    if (CODEC_WITHIN(
            codec_get_int(obj, ptr, "facing", false, 0, rules_facing_count(o) - 1, &facing, e))) {
        if (out->faceless) {
            char fptr[CODEC_PTR_MAX];
            codec_pointer(fptr, ptr, "facing");
            svc_errors_add(e, fptr, "a faceless creature has no facing (000 Faceless Creatures)");
        }
        out->facing = (int)facing;
    }
}

/* Decodes body[key] as a creature, reporting a missing one. */
json_t *svc_decode_member(json_t *body, const char *key, const struct rules_options *o, bool combat,
                          const char *const *extra_keys, struct rules_creature *out,
                          struct svc_errors *e)
{
    char ptr[CODEC_PTR_MAX];
    codec_pointer(ptr, "", key);
    json_t *obj = json_object_get(body, key);
    if (obj == NULL) {
        svc_errors_add(e, ptr, "is required");
        rules_creature_init(out, RULES_SIZE_MEDIUM, 0, 0, 0);
        return NULL;
    }
    svc_decode_creature(obj, ptr, o, combat, extra_keys, out, e);
    return json_is_object(obj) ? obj : NULL;
}

/* body[member].name when it is a string (for the sentences), else NULL. */
static const char *member_name(json_t *body, const char *member)
{
    return json_string_value(json_object_get(json_object_get(body, member), "name"));
}

void svc_handle_distance(const struct svc_request *req, struct svc_response *res)
{
    static const char *const known[] = {"rules", "from", "to", NULL};
    json_t *body;
    struct svc_errors e;
    struct svc_rules rules;
    struct rules_creature from, to;
    if (!svc_decode_begin(req, res, known, &body, &e))
        goto out;
    if (!svc_decode_rules(body, &rules, &e))
        goto fail;
    svc_decode_member(body, "from", &rules.options, false, NULL, &from, &e);
    svc_decode_member(body, "to", &rules.options, false, NULL, &to, &e);
    if (svc_errors_any(&e))
        goto fail;

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
    svc_explain_distance(doc, member_name(body, "from"), member_name(body, "to"));
    svc_respond_json(res, 200, doc);
    goto out;
fail:
    svc_errors_respond(&e, res);
out:
    svc_errors_free(&e);
    json_decref(body);
}

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
                              member_name(body, "attacker"), member_name(body, "target"), names,
                              out);
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

void svc_handle_flanking(const struct svc_request *req, struct svc_response *res)
{
    json_t *body = svc_parse_json_body(req, res);
    if (body == NULL)
        return;
    struct svc_answer ans = {0};
    svc_rule_flanking(body, &ans);
    svc_answer_respond(&ans, res);
    json_decref(body);
}

#define MAX_RADIUS_FT 250

/* Appends one square of the areas answer. */
static void add_square(json_t *list, int counts[6], int ring[6], const struct rules_options *o,
                       const struct rules_creature *c, bool awareness, bool all_around, int x,
                       int y, int *threatened)
{
    struct rules_body sq = {.x = x, .y = y, .z = c->body.z, .side = 1};
    struct rules_distance d;
    rules_distance(o, &c->body, &sq, &d);
    enum rules_area area = rules_facing_area(o, c, x, y);
    struct rules_perception p;
    rules_perception(o, area, awareness, all_around, &p);
    bool threat = rules_threatens_square(o, c, x, y, c->body.z);
    *threatened += threat;
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

void svc_handle_areas(const struct svc_request *req, struct svc_response *res)
{
    static const char *const known[] = {"rules", "creature", "radius_ft", NULL};
    json_t *body;
    struct svc_errors e;
    struct svc_rules rules;
    struct rules_creature c;
    long long radius_ft = 0;
    bool awareness = false, all_around = false;
    if (!svc_decode_begin(req, res, known, &body, &e))
        goto out;
    if (!svc_decode_rules(body, &rules, &e))
        goto fail;
    json_t *cobj = svc_decode_member(body, "creature", &rules.options, true, NULL, &c, &e);
    if (cobj != NULL) {
        codec_get_bool(cobj, "/creature", "combat_awareness", false, &awareness, &e);
        codec_get_bool(cobj, "/creature", "all_around_vision", false, &all_around, &e);
    }
    codec_get_int(body, "", "radius_ft", true, 0, MAX_RADIUS_FT, &radius_ft, &e);
    if (cobj != NULL && json_object_get(cobj, "facing") == NULL &&
        rules_has_facing(&rules.options, &c))
        svc_errors_add(&e, "/creature/facing",
                       "is required under facing %s for a creature larger than Tiny that is not "
                       "faceless (0 = north, clockwise, %d facings)",
                       rules.options.facing == RULES_FACING_000 ? "000" : "003",
                       rules_facing_count(&rules.options));
    if (svc_errors_any(&e))
        goto fail;

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
    svc_respond_json(res, 200, doc);
    goto out;
fail:
    svc_errors_respond(&e, res);
out:
    svc_errors_free(&e);
    json_decref(body);
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
