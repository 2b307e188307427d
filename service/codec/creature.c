/* The creature shapes the endpoints share (creature.h): a creature's place, size and combat
 * fields, its Defense, and its weapon's damage. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/attack/attack.h"
#include "rules/attack/roll.h"
#include "rules/board/facing.h"
#include "rules/board/flanking.h"
#include "rules/board/grid.h"
#include "rules/board/size.h"
#include "service/codec/answer.h"
#include "service/codec/creature.h"
#include "service/codec/rule_options.h"
#include "service/codec/ruling.h"
#include "service/http/http.h"
#include "service/http/problem.h"
#include "service/http/request.h"
#include "service/json/errors.h"
#include "service/json/fields.h"

/* Decodes one creature at `ptr` (a JSON pointer) from obj: its place {"x","y","z"?} on squares
 * or {"q","r"} on hexes, and its "size" (default medium). With `combat`, also what threat and
 * flanking need: "reach_ft" (default the size's natural reach, 001 Reach), "reach_weapon",
 * "can_threaten" (default true), "cannot_be_flanked", "facing" (required when a facing
 * variant is in force and the creature has one), "faceless", and the perception features
 * "combat_awareness" and "all_around_vision" (read by the caller). */
/* The members a creature's decoder knows, in the order of its table of them (keys_of): the
 * place's three (x, y, z on squares; q, r, triangle on hexes), size and name, then in combat
 * COMBAT_KEYS, then the caller's extra keys. */
enum { KEY_A, KEY_B, KEY_C, KEY_SIZE, KEY_NAME, PLACE_KEYS };
#define COMBAT_KEYS(X)                                                                             \
    X(facing)                                                                                      \
    X(faceless)                                                                                    \
    X(combat_awareness)                                                                            \
    X(all_around_vision) X(reach_ft) X(reach_weapon) X(can_threaten) X(cannot_be_flanked)
enum {
#define X(name) KEY_##name,
    COMBAT_KEYS(X)
#undef X
        COMBAT_KEY_COUNT
};

void svc_decode_creature_with(json_t *obj, const char *ptr, const struct rules_options *o,
                              bool combat, const char *const *extra_keys, json_t **extra_values,
                              struct rules_creature *out, struct svc_errors *e)
{
    /* "name" is for the sentences a bot posts (names, not ids); nothing rules on it. */
    static const char *const square_keys[] = {"x", "y", "z", "size", "name", NULL};
    static const char *const hex_keys[] = {"q", "r", "triangle", "size", "name", NULL};
    /* And in combat (a creature that may threaten), its facing, perception and reach. */
    static const char *const combat_keys[] = {
#define X(name) #name,
        COMBAT_KEYS(X)
#undef X
            NULL};
    static_assert(sizeof square_keys / sizeof square_keys[0] == PLACE_KEYS + 1, "place keys");
    static_assert(sizeof hex_keys / sizeof hex_keys[0] == PLACE_KEYS + 1, "place keys");
    static_assert(sizeof combat_keys / sizeof combat_keys[0] == COMBAT_KEY_COUNT + 1, "combat");
    if (!codec_expect_object(obj, ptr, e)) {
        rules_creature_init(out, RULES_SIZE_MEDIUM, 0, 0, 0);
        for (size_t i = 0; extra_values != NULL && extra_keys != NULL && extra_keys[i] != NULL; i++)
            extra_values[i] = NULL;
        return;
    }
    bool hex = o->grid == RULES_GRID_HEX;
    const char *const *parts[] = {hex ? hex_keys : square_keys, combat ? combat_keys : NULL,
                                  extra_keys};
    /* Every member in one walk of obj, the unknown ones reported (fields.h). */
    json_t *v[CODEC_MEMBERS_MAX];
    size_t nv = codec_members_in(obj, ptr, parts, sizeof parts / sizeof parts[0], v,
                                 sizeof v / sizeof v[0], e);
    json_t **cv = v + PLACE_KEYS; /* combat's, when combat */
    size_t xi = PLACE_KEYS + (combat ? COMBAT_KEY_COUNT : 0), xn = nv - xi;
    if (extra_values != NULL && extra_keys != NULL) /* the extra keys' values: v's last xn */
        memcpy(extra_values, v + xi, xn * sizeof *v);
    long long a = 0, b = 0, z = 0;
    codec_int_of(obj, v[KEY_A], ptr, hex ? "q" : "x", true, -RULES_COORD_MAX, RULES_COORD_MAX, &a,
                 e);
    codec_int_of(obj, v[KEY_B], ptr, hex ? "r" : "y", true, -RULES_COORD_MAX, RULES_COORD_MAX, &b,
                 e);
    if (!hex)
        codec_int_of(obj, v[KEY_C], ptr, "z", false, -RULES_COORD_MAX, RULES_COORD_MAX, &z, e);
    const char *size_name = "medium";
    char sptr[CODEC_PTR_MAX]; /* pointers are built only for errors: this runs per creature */
    codec_string_of(obj, v[KEY_SIZE], ptr, "size", false, 32, &size_name, e); /* absent: medium */
    int size = v[KEY_SIZE] == NULL ? RULES_SIZE_MEDIUM : rules_size_from_name(size_name);
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
        bool given = codec_int_of(obj, v[KEY_C], ptr, "triangle", three, 0, 5, &tri, e);
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
    codec_int_of(obj, cv[KEY_reach_ft], ptr, "reach_ft", false, 0, 1000, &reach, e);
    out->reach_ft = (int)reach;
    codec_bool_of(cv[KEY_reach_weapon], ptr, "reach_weapon", false, &out->reach_weapon, e);
    codec_bool_of(cv[KEY_can_threaten], ptr, "can_threaten", false, &out->can_threaten, e);
    codec_bool_of(cv[KEY_cannot_be_flanked], ptr, "cannot_be_flanked", false,
                  &out->cannot_be_flanked, e);
    codec_bool_of(cv[KEY_faceless], ptr, "faceless", false, &out->faceless, e);
    long long facing = -1;
    if (CODEC_WITHIN(codec_int_of(obj, cv[KEY_facing], ptr, "facing", false, 0,
                                  rules_facing_count(o) - 1, &facing, e))) {
        if (out->faceless) {
            char fptr[CODEC_PTR_MAX];
            codec_pointer(fptr, ptr, "facing");
            svc_errors_add(e, fptr, "a faceless creature has no facing (000 Faceless Creatures)");
        }
        out->facing = (int)facing;
    }
}

void svc_decode_creature(json_t *obj, const char *ptr, const struct rules_options *o, bool combat,
                         const char *const *extra_keys, struct rules_creature *out,
                         struct svc_errors *e)
{
    svc_decode_creature_with(obj, ptr, o, combat, extra_keys, NULL, out, e);
}

json_t *svc_decode_member_with(json_t *body, const char *key, const struct rules_options *o,
                               bool combat, const char *const *extra_keys, json_t **extra_values,
                               struct rules_creature *out, struct svc_errors *e)
{
    char ptr[CODEC_PTR_MAX];
    codec_pointer(ptr, "", key);
    json_t *obj = codec_member(body, key);
    if (obj == NULL) {
        svc_errors_add(e, ptr, "is required");
        rules_creature_init(out, RULES_SIZE_MEDIUM, 0, 0, 0);
        for (size_t i = 0; extra_values != NULL && extra_keys != NULL && extra_keys[i] != NULL; i++)
            extra_values[i] = NULL;
        return NULL;
    }
    svc_decode_creature_with(obj, ptr, o, combat, extra_keys, extra_values, out, e);
    return json_is_object(obj) ? obj : NULL;
}

/* Decodes body[key] as a creature, reporting a missing one. */
json_t *svc_decode_member(json_t *body, const char *key, const struct rules_options *o, bool combat,
                          const char *const *extra_keys, struct rules_creature *out,
                          struct svc_errors *e)
{
    return svc_decode_member_with(body, key, o, combat, extra_keys, NULL, out, e);
}

/* body[member].name when it is a string (for the sentences), else NULL. */
const char *svc_member_name(json_t *body, const char *member)
{
    return json_string_value(json_object_get(json_object_get(body, member), "name"));
}

/* The last damage text this thread parsed without error, and what it parsed to: a creature's
 * weapon is the same from one request to the next, and a copy costs a fraction of a parse. */
static _Thread_local struct {
    size_t len; /* 0: none kept */
    char text[RULES_DICE_MAX_EXPRESSION + 1];
    struct rules_dice_expr expr;
} damage_kept;

int svc_damage_parse_kept(const char *text, struct rules_dice_expr *expr, size_t *at)
{
    size_t len = strnlen(text, RULES_DICE_MAX_EXPRESSION + 1);
    if (len != 0 && len == damage_kept.len && memcmp(text, damage_kept.text, len) == 0) {
        memcpy(expr, &damage_kept.expr, sizeof *expr); /* all of it, padding too */
        *at = 0;
        return RULES_DICE_OK;
    }
    int rc = rules_dice_parse(text, expr, at);
    if (rc == RULES_DICE_OK && len <= RULES_DICE_MAX_EXPRESSION) {
        memcpy(damage_kept.text, text, len);
        damage_kept.len = len;
        memcpy(&damage_kept.expr, expr, sizeof *expr);
    }
    return rc;
}

void svc_decode_damage_of(json_t *obj, const char *ptr, json_t *damage_v, json_t *range_v,
                          json_t *multiplier_v, const char **damage, struct rules_dice_expr *expr,
                          int *crit_range, int *crit_multiplier, struct svc_errors *e)
{
    /* Taken whatever the rules; they matter only under the critical_hits option. */
    long long v = 0;
    *crit_range = RULES_CRIT_RANGE_DEFAULT;
    *crit_multiplier = RULES_CRIT_MULTIPLIER_DEFAULT;
    *damage = NULL;
    if (codec_int_of(obj, range_v, ptr, "crit_range", false, RULES_CRIT_RANGE_MIN, 20, &v, e))
        *crit_range = (int)v;
    if (codec_int_of(obj, multiplier_v, ptr, "crit_multiplier", false, RULES_CRIT_MULTIPLIER_MIN,
                     RULES_CRIT_MULTIPLIER_MAX, &v, e))
        *crit_multiplier = (int)v;
    if (codec_string_of(obj, damage_v, ptr, "damage", false, RULES_DICE_MAX_EXPRESSION, damage,
                        e)) {
        size_t at = 0;
        int rc = svc_damage_parse_kept(*damage, expr, &at);
        if (rc != RULES_DICE_OK) {
            char dp[CODEC_PTR_MAX];
            codec_pointer(dp, ptr, "damage");
            svc_errors_add(e, dp, "%s (at character %zu)", rules_dice_strerror(rc), at);
            *damage = NULL;
        }
    }
}

void svc_decode_damage(json_t *obj, const char *ptr, const char **damage,
                       struct rules_dice_expr *expr, int *crit_range, int *crit_multiplier,
                       struct svc_errors *e)
{
    svc_decode_damage_of(obj, ptr, codec_member(obj, "damage"), codec_member(obj, "crit_range"),
                         codec_member(obj, "crit_multiplier"), damage, expr, crit_range,
                         crit_multiplier, e);
}

void svc_decode_defense(json_t *def, const char *ptr, struct rules_defense *ac,
                        struct svc_errors *e)
{
    if (!codec_expect_object(def, ptr, e))
        return;
    static const char *const parts[] = {"armor",      "shield", "shield_enhancement",
                                        "natural",    "dex",    "dodge",
                                        "deflection", "size",   "other",
                                        "total",      NULL};
    json_t *given[sizeof parts / sizeof parts[0] - 1];
    codec_members(def, ptr, parts, given, sizeof given / sizeof given[0],
                  e); /* one walk of def, the unknown reported */
    int *fields[] = {&ac->armor,      &ac->shield, &ac->shield_enhancement,
                     &ac->natural,    &ac->dex,    &ac->dodge,
                     &ac->deflection, &ac->size,   &ac->other};
    for (int i = 0; i < 9; i++) {
        long long v = 0;
        if (codec_int_of(def, given[i], ptr, parts[i], false, -100, 100, &v, e)) {
            *fields[i] = (int)v;
            if (i == 7)
                ac->size_given = true;
        }
    }
    long long total = 0;
    if (codec_int_of(def, given[9], ptr, "total", false, -100, 500, &total, e)) {
        char tp[CODEC_PTR_MAX];
        codec_pointer(tp, ptr, "total");
        int sum = 10 + ac->armor + ac->shield + ac->shield_enhancement + ac->natural + ac->dex +
                  ac->dodge + ac->deflection + ac->size + ac->other;
        if (!ac->size_given)
            svc_errors_add(e, tp, "give the size part too when stating a total");
        else if (sum != total)
            svc_errors_add(e, tp, "is %lld but 10 plus the parts is %d", total, sum);
    }
}
