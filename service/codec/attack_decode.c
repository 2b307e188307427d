/* The attack request's decoders (attack.h): the attacker, the defender with its conditions,
 * the allies, what the caller declared, and whether facing is required. Split from attack.c,
 * which rules the decoded request and writes its answer. */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/attack/attack.h"
#include "rules/attack/roll.h"
#include "rules/sources.h"
#include "service/codec/answer.h"
#include "service/codec/attack.h"
#include "service/codec/creature.h"
#include "service/codec/dice.h"
#include "service/codec/rule_options.h"
#include "service/codec/ruling.h"
#include "service/explain/explain.h"
#include "service/http/http.h"
#include "service/http/request.h"
#include "service/json/errors.h"
#include "service/json/fields.h"
#include "service/json/writer.h"
#include "text/decimal.h"

/* A set of names as a bit mask (bit i for names[i]); unknown names are errors at their index. */
static unsigned name_set_of(json_t *obj, json_t *v, const char *base, const char *key,
                            const char *const *names, struct svc_errors *e)
{
    json_t *list = NULL;
    unsigned bits = 0;
    if (!codec_array_of(obj, v, base, key, false, 32, &list, e))
        return 0;
    size_t i;
    json_t *item;
    json_array_foreach(list, i, item)
    {
        int found = -1;
        const char *text = json_string_value(item); /* NULL: not a string */
        for (int k = 0; names[k] != NULL && text != NULL && found < 0; k++)
            if (strcmp(names[k], text) == 0)
                found = k; /* the names of a set are distinct: the first is the only one */
        if (found < 0) {
            char ptr[CODEC_PTR_MAX];
            snprintf(ptr, sizeof ptr, "%s/%s/%zu", base, key, i);
            char list_text[300] = "";
            size_t used = 0;
            for (int k = 0; names[k] != NULL && used < sizeof list_text; k++)
                used += (size_t)snprintf(list_text + used, sizeof list_text - used, "%s%s",
                                         k ? ", " : "", names[k]);
            svc_errors_add(e, ptr, "must be one of %s", list_text);
        } else {
            assert(found < 32); /* the set is an unsigned mask */
            bits |= 1u << found;
        }
    }
    return bits;
}

static unsigned name_set(json_t *obj, const char *base, const char *key, const char *const *names,
                         struct svc_errors *e)
{
    return name_set_of(obj, codec_member(obj, key), base, key, names, e);
}

static const char *const attacker_features[] = {
    "whirlwind_attack", "combat_reflexes", "flank_attack", "rear_attack", "mounted_combat", NULL};
static const char *const attacker_conditions[] = {"prone",         "invisible", "squeezing",
                                                  "higher_ground", "charging",  NULL};
static const char *const defender_conditions[] = {
    "sitting",   "prone",  "stunned",  "climbing",  "flat_footed", "running",
    "grappling", "pinned", "helpless", "squeezing", "charging",    NULL};

static_assert(sizeof defender_conditions / sizeof defender_conditions[0] - 1 <= 32,
              "defender conditions fit an unsigned mask");
unsigned svc_defender_condition_bit(const char *name)
{
    for (int k = 0; defender_conditions[k] != NULL; k++)
        if (strcmp(defender_conditions[k], name) == 0)
            return 1u << k;
    return 0;
}

/* The attacker's members beyond a creature's, in the order of its table (AK_ names them). */
#define ATTACKER_KEYS(X)                                                                           \
    X(attack_bonus)                                                                                \
    X(size_included)                                                                               \
    X(player_character)                                                                            \
    X(attack)                                                                                      \
    X(touch)                                                                                       \
    X(kind)                                                                                        \
    X(features)                                                                                    \
    X(steed)                                                                                       \
    X(sneak_attack_dice)                                                                           \
    X(rogue_level)                                                                                 \
    X(conditions) X(pack_bonus) X(shifts_bands) X(damage) X(crit_range) X(crit_multiplier) X(name)
enum {
#define X(key) AK_##key,
    ATTACKER_KEYS(X)
#undef X
        AK_COUNT
};

/* Decodes the attacker; *facing_given says whether it has a "facing" member. */
static void decode_attacker(json_t *body, struct attack_request *r, bool *facing_given,
                            struct svc_errors *e)
{
    static const char *const extra[] = {
#define X(key) #key,
        ATTACKER_KEYS(X)
#undef X
            "facing", /* the creature's own, asked again: present or not */
        NULL};
    static const char *const forms[] = {"melee", "ranged", "spell", NULL};
    static const char *const kinds[] = {"normal", "attack_of_opportunity", "cleave", NULL};
    struct rules_attacker *a = &r->a;
    memset(a, 0, sizeof *a);
    json_t *v[AK_COUNT + 1];
    json_t *obj =
        svc_decode_member_with(body, "attacker", &r->rules.options, true, extra, v, &a->c, e);
    *facing_given = v[AK_COUNT] != NULL;
    if (obj == NULL)
        return;
    long long n = 0;
    const char *at = "/attacker";
    codec_string_of(obj, v[AK_name], at, "name", false, 64, &r->attacker_name, e);
    if (codec_int_of(obj, v[AK_attack_bonus], at, "attack_bonus", true, -100, 100, &n, e))
        a->attack_bonus = (int)n;
    codec_bool_of(v[AK_size_included], at, "size_included", false, &a->size_included, e);
    codec_bool_of(v[AK_player_character], at, "player_character", false, &a->player_character, e);
    int form = codec_enum_of(obj, v[AK_attack], at, "attack", forms, false, 0, e);
    a->ranged = form >= 1;
    a->spell = form == 2;
    codec_bool_of(v[AK_touch], at, "touch", false, &a->touch, e);
    a->kind =
        (enum rules_attack_kind)codec_enum_of(obj, v[AK_kind], at, "kind", kinds, false, 0, e);
    unsigned f = name_set_of(obj, v[AK_features], at, "features", attacker_features, e);
    a->whirlwind_attack = f & 1, a->combat_reflexes = f & 2, a->flank_attack = f & 4;
    a->rear_attack = f & 8, a->mounted_combat = f & 16;
    json_t *steed = v[AK_steed];
    if (steed != NULL) {
        a->has_steed = true;
        svc_decode_creature(steed, "/attacker/steed", &r->rules.options, true, NULL, &a->steed, e);
    }
    if (a->mounted_combat && !a->has_steed)
        svc_errors_add(e, "/attacker/steed", "is required with the mounted_combat feature");
    if (codec_int_of(obj, v[AK_sneak_attack_dice], at, "sneak_attack_dice", false, 0, 40, &n, e))
        a->sneak_dice = (int)n;
    if (codec_int_of(obj, v[AK_rogue_level], at, "rogue_level", false, 0, 100, &n, e))
        a->rogue_level = (int)n;
    unsigned c = name_set_of(obj, v[AK_conditions], at, "conditions", attacker_conditions, e);
    a->prone = c & 1, a->invisible = c & 2, a->squeezing = c & 4, a->higher_ground = c & 8;
    a->charging = c & 16;
    if (codec_int_of(obj, v[AK_pack_bonus], at, "pack_bonus", false, 0, 20, &n, e))
        a->pack_bonus = (int)n;
    codec_bool_of(v[AK_shifts_bands], at, "shifts_bands", false, &a->shifts_bands, e);
    svc_decode_damage_of(obj, at, v[AK_damage], v[AK_crit_range], v[AK_crit_multiplier], &r->damage,
                         &r->damage_expr, &r->crit_range, &r->crit_multiplier, e);
}

/* The defender's members beyond a creature's, in the order of its table (DK_ names them). */
#define DEFENDER_KEYS(X)                                                                           \
    X(defense)                                                                                     \
    X(player_character)                                                                            \
    X(shield_spell)                                                                                \
    X(shield_side)                                                                                 \
    X(conditions)                                                                                  \
    X(improved_uncanny_dodge_level)                                                                \
    X(uncanny_dodge)                                                                               \
    X(all_around_vision) X(immune_sneak_attack) X(invisible) X(damage_reduction) X(name)
enum {
#define X(key) DK_##key,
    DEFENDER_KEYS(X)
#undef X
        DK_COUNT
};

/* Decodes the defender; *facing_given says whether it has a "facing" member. */
static void decode_defender(json_t *body, struct attack_request *r, bool *facing_given,
                            struct svc_errors *e)
{
    static const char *const extra[] = {
#define X(key) #key,
        DEFENDER_KEYS(X)
#undef X
            "facing", /* the creature's own, asked again: present or not */
        NULL};
    static const char *const sides[] = {"none", "left", "right", NULL};
    struct rules_defender *d = &r->d;
    memset(d, 0, sizeof *d);
    json_t *v[DK_COUNT + 1];
    json_t *obj =
        svc_decode_member_with(body, "defender", &r->rules.options, true, extra, v, &d->c, e);
    *facing_given = v[DK_COUNT] != NULL;
    if (obj == NULL)
        return;
    const char *at = "/defender";
    codec_string_of(obj, v[DK_name], at, "name", false, 64, &r->defender_name, e);
    json_t *def = v[DK_defense];
    if (def == NULL)
        svc_errors_add(e, "/defender/defense", "is required (its parts: armor, shield, ...)");
    else
        svc_decode_defense(def, "/defender/defense", &d->ac, e);
    long long n = 0;
    codec_bool_of(v[DK_player_character], at, "player_character", false, &d->player_character, e);
    if (codec_int_of(obj, v[DK_shield_spell], at, "shield_spell", false, 0, 20, &n, e))
        d->shield_spell = (int)n;
    d->shield_side = (enum rules_shield_side)codec_enum_of(obj, v[DK_shield_side], at,
                                                           "shield_side", sides, false, 0, e);
    d->conditions = name_set_of(obj, v[DK_conditions], at, "conditions", defender_conditions, e);
    if (codec_int_of(obj, v[DK_improved_uncanny_dodge_level], at, "improved_uncanny_dodge_level",
                     false, 1, 100, &n, e)) {
        d->improved_uncanny_dodge = true;
        d->iud_level = (int)n;
    }
    codec_bool_of(v[DK_uncanny_dodge], at, "uncanny_dodge", false, &d->uncanny_dodge, e);
    codec_bool_of(v[DK_all_around_vision], at, "all_around_vision", false, &d->all_around_vision,
                  e);
    codec_bool_of(v[DK_immune_sneak_attack], at, "immune_sneak_attack", false,
                  &d->immune_sneak_attack, e);
    codec_bool_of(v[DK_invisible], at, "invisible", false, &d->invisible, e);
    if (codec_int_of(obj, v[DK_damage_reduction], at, "damage_reduction", false, 0, 1000, &n, e))
        r->damage_reduction = (int)n;
}

void svc_attack_decode_declared(json_t *body, struct attack_request *r, struct svc_errors *e)
{
    r->cover = (enum rules_cover)codec_get_enum(body, "", "cover", rules_degree_names, false, 0, e);
    if (r->cover == RULES_COVER_TOTAL)
        svc_errors_add(e, "/cover",
                       "no attack reaches a target with total cover (002 Table: "
                       "Cover)");
    json_t *cc = codec_member(body, "cover_creature");
    if (cc != NULL && codec_expect_object(cc, "/cover_creature", e)) {
        static const char *const ckeys[] = {"ac", "dex_and_dodge", "apply_dex_and_dodge", NULL};
        codec_reject_unknown(cc, "/cover_creature", ckeys, e);
        long long v = 0;
        r->has_cover_creature = true;
        struct rules_cover_creature *c = &r->cover_creature;
        if (codec_get_int(cc, "/cover_creature", "ac", true, -100, 500, &v, e))
            c->ac = (int)v;
        if (codec_get_int(cc, "/cover_creature", "dex_and_dodge", false, 0, 100, &v, e))
            c->dex_and_dodge = (int)v;
        c->applies_dex_and_dodge = true;
        codec_get_bool(cc, "/cover_creature", "apply_dex_and_dodge", false,
                       &c->applies_dex_and_dodge, e);
        if (r->cover == RULES_COVER_NONE)
            svc_errors_add(e, "/cover",
                           "state the cover the creature gives (002: half behind a "
                           "creature of the same size)");
    }
    long long bonus = 0; /* the table's situational bonus, as Avrae's -b */
    if (codec_get_int(body, "", "bonus", false, -100, 100, &bonus, e))
        r->a.situational = (int)bonus;
    unsigned cs = name_set(body, "", "concealment", rules_degree_names, e);
    for (int i = 1; i < 6; i++)
        if (cs & (1u << i))
            r->conceal[r->conceal_count++] = (enum rules_concealment)i;
}

void svc_attack_facing_required(const struct attack_request *r, bool attacker_facing,
                                bool defender_facing, struct svc_errors *e)
{
    if (!svc_errors_any(e) && rules_has_facing(&r->rules.options, &r->d.c) && !defender_facing)
        svc_errors_add(e, "/defender/facing", "is required under the facing variant in force");
    if (!svc_errors_any(e) && r->rules.options.facing == RULES_FACING_000 &&
        rules_has_facing(&r->rules.options, &r->a.c) && !attacker_facing)
        svc_errors_add(e, "/attacker/facing", "is required under 000 Combat Facing");
}

/* Decodes the whole request; false when any error was found. Each creature's members are found
 * in one walk of it (codec_members), the body's through the caller's index of them. */
bool svc_attack_decode(json_t *body, struct attack_request *r, struct svc_errors *e)
{
    svc_decode_rules(body, &r->rules, e);
    bool attacker_facing = false, defender_facing = false;
    decode_attacker(body, r, &attacker_facing, e);
    decode_defender(body, r, &defender_facing, e);
    json_t *list = NULL;
    if (codec_get_array(body, "", "allies", false, SVC_MAX_ALLIES, &list, e)) {
        r->ally_count = (int)json_array_size(list);
        r->allies = calloc(r->ally_count ? (size_t)r->ally_count : 1, sizeof *r->allies);
        for (int i = 0; r->allies != NULL && i < r->ally_count; i++) {
            char ptr[CODEC_PTR_MAX] = "/allies/", num[TEXT_DECIMAL_MAX]; /* and i, per ally */
            size_t n;
            const char *d = text_decimal(num, i, false, &n);
            memcpy(ptr + 8, d, n);
            ptr[8 + n] = '\0';
            json_t *ally = json_array_get(list, (size_t)i);
            svc_decode_creature(ally, ptr, &r->rules.options, true, NULL, &r->allies[i], e);
        }
    }
    svc_attack_decode_declared(body, r, e);
    svc_attack_facing_required(r, attacker_facing, defender_facing, e);
    return !svc_errors_any(e);
}
