/* Rules presets and geometry endpoints: GET /v1/rules/presets, POST /v1/geometry/distance. */
#include <stdio.h>

#include "codec.h"
#include "grid.h"
#include "rules_codec.h"
#include "size.h"
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

/* Decodes one positioned creature: {"x","y","z"?, "size"?} on squares, {"q","r","size"?} on
 * hexes. Size defaults to medium. */
static void decode_body(json_t *body, const char *key, const struct rules_options *o,
                        struct rules_body *out, struct svc_errors *e)
{
    static const char *const square_keys[] = {"x", "y", "z", "size", NULL};
    static const char *const hex_keys[] = {"q", "r", "size", NULL};
    char ptr[CODEC_PTR_MAX];
    codec_pointer(ptr, "", key);
    json_t *obj = json_object_get(body, key);
    if (obj == NULL) {
        svc_errors_add(e, ptr, "is required");
        return;
    }
    if (!codec_expect_object(obj, ptr, e))
        return;
    bool hex = o->grid == RULES_GRID_HEX;
    codec_reject_unknown(obj, ptr, hex ? hex_keys : square_keys, e);
    long long a = 0, b = 0, z = 0;
    codec_get_int(obj, ptr, hex ? "q" : "x", true, -RULES_COORD_MAX, RULES_COORD_MAX, &a, e);
    codec_get_int(obj, ptr, hex ? "r" : "y", true, -RULES_COORD_MAX, RULES_COORD_MAX, &b, e);
    if (!hex)
        codec_get_int(obj, ptr, "z", false, -RULES_COORD_MAX, RULES_COORD_MAX, &z, e);
    out->x = (int)a;
    out->y = (int)b;
    out->z = (int)z;
    out->side = 1;
    const char *size_name = "medium";
    char sptr[CODEC_PTR_MAX];
    codec_pointer(sptr, ptr, "size");
    codec_get_string(obj, ptr, "size", false, 32, &size_name, e); /* absent: medium */
    int size = rules_size_from_name(size_name);
    if (size < 0) {
        svc_errors_add(e, sptr,
                       "is not a size of 001 Space and Reach (fine ... "
                       "titanic-three-plus)");
    } else if (hex && rules_size_info((enum rules_size)size)->hexes != 1) {
        svc_errors_add(e, sptr,
                       "on a hex grid only creatures of one hex (medium and smaller) have a "
                       "defined position; 003 gives Large 3 hexes but no anchor rule");
    } else {
        out->side = rules_size_info((enum rules_size)size)->squares;
    }
}

void svc_handle_distance(const struct svc_request *req, struct svc_response *res)
{
    static const char *const known[] = {"rules", "from", "to", NULL};
    json_t *body = svc_parse_json_body(req, res);
    if (body == NULL)
        return;
    struct svc_errors e;
    svc_errors_init(&e);
    struct svc_rules rules;
    struct rules_body from, to;
    if (!codec_expect_object(body, "", &e))
        goto fail;
    codec_reject_unknown(body, "", known, &e);
    if (!svc_decode_rules(body, &rules, &e))
        goto fail;
    decode_body(body, "from", &rules.options, &from, &e);
    decode_body(body, "to", &rules.options, &to, &e);
    if (svc_errors_any(&e))
        goto fail;

    struct rules_distance d;
    rules_distance(&rules.options, &from, &to, &d);
    json_t *doc = json_pack("{s:o, s:i, s:i, s:i, s:i}", "rules", svc_encode_rules(&rules),
                            "squares", d.squares, "feet", d.feet, "horizontal_squares",
                            d.horizontal_squares, "vertical_squares", d.vertical_squares);
    if (rules.options.grid == RULES_GRID_SQUARE) {
        json_object_set_new(doc, "straight_steps", json_integer(d.straight_steps));
        json_object_set_new(doc, "diagonal_steps", json_integer(d.diagonal_steps));
    }
    json_object_set_new(doc, "rule", json_string(d.rule));
    svc_respond_json(res, 200, doc);
    svc_errors_free(&e);
    json_decref(body);
    return;
fail:
    svc_errors_respond(&e, res);
    svc_errors_free(&e);
    json_decref(body);
}
