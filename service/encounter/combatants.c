/* Encounters: a combatant checked against the state it joins or changes (its id and names, its
 * defense, hit points and Dexterity, attacks and conditions, what it was taken to have), the
 * others a placement must leave room for, and its place re-checked. Split from state.c. */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/attack/ability.h"
#include "rules/dice/dice.h"
#include "rules/encounter/engine.h"
#include "rules/encounter/event.h"
#include "rules/encounter/hp.h"
#include "service/codec/answer.h"
#include "service/codec/creature.h"
#include "service/codec/dice.h"
#include "service/codec/encounter_state.h"
#include "service/codec/map.h"
#include "service/codec/move_req.h"
#include "service/codec/rule_options.h"
#include "service/codec/ruling.h"
#include "service/encounter/internal.h"
#include "service/http/http.h"
#include "service/http/problem.h"
#include "service/json/errors.h"
#include "service/json/fields.h"
#include "service/json/reader.h"
#include "text/text.h"

#define MAX_ATTACKS 16

/* The Dexterity score a combatant that states none is taken to have: 10, whose modifier is +0
 * (d20 3.5 SRD, Ability Modifiers: 10-11 gives +0). */
#define ASSUMED_DEX 10

/* Appends {member, said} to assumed (when not NULL): what a combatant was taken to have. */
static void say_assumed(json_t *assumed, const char *member, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void say_assumed(json_t *assumed, const char *member, const char *fmt, ...)
{
    if (assumed == NULL)
        return;
    char said[400];
    va_list ap;
    va_start(ap, fmt);
    text_vformat(said, sizeof said, fmt, ap);
    va_end(ap);
    json_array_append_new(assumed, json_pack("{s:s, s:s}", "member", member, "said", said));
}

/* A combatant's AC given whole (`ac`, or `defense: {total}` alone, as a stat block
 * writes it) into c's defense parts: its Dexterity modifier (from dex, or the score it is taken
 * to have), its size modifier under the size table in force, and the rest as armor, shield or
 * natural armor (a rest below 0 as other), so that 10 plus the parts is the AC given. Touch and
 * flat-footed AC then follow from the parts (d20 3.5 SRD, Armor Class: touch leaves out armor,
 * shield and natural armor; flat-footed the Dexterity bonus), which a whole AC cannot say: the
 * answer says what was taken. rc: the decoded creature (NULL for an update: the stored one's
 * size). */
static void whole_ac(json_t *state, json_t *in, json_t *c, const char *ptr, const char *keep_id,
                     const struct rules_options *o, const struct rules_creature *rc,
                     json_t *assumed, struct svc_errors *e)
{
    char ap[CODEC_PTR_MAX], dp[CODEC_PTR_MAX];
    codec_pointer(ap, ptr, "ac");
    codec_pointer(dp, ptr, "defense");
    json_t *def = json_object_get(in, "defense");
    bool by_total = json_object_get(in, "ac") == NULL;
    if (!by_total && def != NULL) {
        svc_errors_add(e, ap, "give the AC whole (ac) or in parts (defense), not both");
        return;
    }
    long long ac = 0;
    /* The bounds of defense.total where it is given in parts (svc_decode_defense), and of ac. */
    if (!codec_get_int(by_total ? def : in, by_total ? dp : ptr, by_total ? "total" : "ac", true,
                       by_total ? -100 : -50, by_total ? 500 : 300, &ac, e))
        return;
    json_t *old = keep_id != NULL ? enc_find(state, keep_id, NULL) : NULL;
    json_t *dex_v = json_object_get(in, "dex");
    if (dex_v == NULL && old != NULL)
        dex_v = json_object_get(old, "dex");
    long long dex = json_is_integer(dex_v) ? json_integer_value(dex_v) : ASSUMED_DEX;
    if (dex < 1 || dex > 100)
        return; /* its own error is at /dex */
    enum rules_size size = rc != NULL ? rc->size : RULES_SIZE_MEDIUM;
    if (rc == NULL) {
        int sz = rules_size_from_name(enc_str(json_object_get(in, "size") ? in : old, "size"));
        size = sz >= 0 ? (enum rules_size)sz : RULES_SIZE_MEDIUM;
    }
    int atk = 0, size_ac = 0;
    json_t *pc = json_object_get(in, "player_character");
    if (pc == NULL && old != NULL)
        pc = json_object_get(old, "player_character");
    if (rules_size_modifiers(o, size, json_is_true(pc), &atk, &size_ac) != RULES_SIZE_OK) {
        svc_errors_add(e, by_total ? dp : ap,
                       "the size table in force gives this size no modifier: give defense in "
                       "parts");
        return;
    }
    int dex_mod = rules_ability_modifier((int)dex);
    long long rest = ac - 10 - dex_mod - size_ac;
    if (rest < -100 || rest > 100) {
        svc_errors_add(e, by_total ? dp : ap,
                       "leaves %lld for armor, shield and natural armor: give defense in parts",
                       rest);
        return;
    }
    json_t *parts = json_pack("{s:i, s:i, s:I}", "dex", dex_mod, "size", size_ac,
                              rest >= 0 ? "armor" : "other", (json_int_t)rest);
    json_object_set_new(c, "defense", parts);
    json_object_del(c, "ac");
    int touch = 10 + dex_mod + size_ac + (rest < 0 ? (int)rest : 0);
    say_assumed(assumed, by_total ? "defense" : "ac",
                "AC %lld given whole: taken as 10 + Dexterity %+d + size %+d + %+lld %s, so touch "
                "AC %d and flat-footed AC %lld (d20 3.5 SRD, Armor Class); give defense in parts "
                "where they differ",
                ac, dex_mod, size_ac, rest, rest >= 0 ? "armor, shield or natural armor" : "other",
                touch, dex_mod > 0 ? ac - dex_mod : ac);
}

/* The combatant's id (a new one, keep_id NULL): 1 to 64 of A-Za-z0-9_-, not "encounter" and
 * not already in state. Returns the id (in's own string, or keep_id) or NULL when absent; the
 * errors go to e. */
static const char *check_id(json_t *state, json_t *in, const char *ptr, const char *keep_id,
                            struct svc_errors *e)
{
    const char *id = keep_id;
    if (keep_id != NULL || !codec_get_string(in, ptr, "id", true, 64, &id, e))
        return id;
    assert(id != NULL);
    for (const char *p = id; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '-' || *p == '_')) {
            char ip[CODEC_PTR_MAX];
            codec_pointer(ip, ptr, "id");
            svc_errors_add(e, ip, "must be 1 to 64 of A-Za-z0-9_-");
            break;
        }
    /* "encounter" names the encounter itself in a set effect (enc_fold). */
    if (*id == '\0' || enc_find(state, id, NULL) != NULL || strcmp(id, "encounter") == 0) {
        char ip[CODEC_PTR_MAX];
        codec_pointer(ip, ptr, "id");
        svc_errors_add(e, ip,
                       !*id                           ? "must not be empty"
                       : strcmp(id, "encounter") == 0 ? "is reserved: it names the encounter"
                                                      : "is already in the encounter");
    }
    return id;
}

/* The combatant's name, owner and side (side required on creation, keep_id NULL). */
static void check_names(json_t *in, const char *ptr, const char *keep_id, struct svc_errors *e)
{
    const char *s = NULL;
    codec_get_string(in, ptr, "name", false, 100, &s, e);
    /* The Discord user who runs it (service/discord/): a snowflake, read nowhere else. */
    if (codec_get_string(in, ptr, "owner", false, 20, &s, e) &&
        (*s == '\0' || strspn(s, "0123456789") != strlen(s))) {
        char op[CODEC_PTR_MAX];
        codec_pointer(op, ptr, "owner");
        svc_errors_add(e, op, "must be a Discord user id: 1 to 20 digits");
    }
    if (codec_get_string(in, ptr, "side", keep_id == NULL, 64, &s, e) && *s == '\0') {
        char sp[CODEC_PTR_MAX];
        codec_pointer(sp, ptr, "side");
        svc_errors_add(e, sp, "must not be empty");
    }
}

/* The combatant's AC: whole (whole_ac) or in parts (svc_decode_defense), one of them required
 * on creation. c is the normalized copy, rc the decoded creature (NULL for an update). */
static void check_defense(json_t *state, json_t *in, json_t *c, const char *ptr,
                          const char *keep_id, const struct rules_options *o,
                          const struct rules_creature *rc, json_t *assumed, struct svc_errors *e)
{
    json_t *def = json_object_get(in, "defense");
    char dp[CODEC_PTR_MAX];
    codec_pointer(dp, ptr, "defense");
    bool whole = json_object_get(in, "ac") != NULL ||
                 (json_is_object(def) && json_object_get(def, "total") != NULL &&
                  json_object_size(def) == 1);
    if (whole)
        whole_ac(state, in, c, ptr, keep_id, o, rc, assumed, e);
    else if (def == NULL && keep_id == NULL)
        svc_errors_add(e, dp,
                       "is required: the AC whole (ac) or in parts, as /v1/attacks/resolve "
                       "takes it");
    else if (def != NULL && codec_expect_object(def, dp, e)) {
        /* In parts; a total beside them must be 10 plus the parts (svc_decode_defense), and is
         * not kept: the parts say it. */
        struct rules_defense parts = {0};
        svc_decode_defense(def, dp, &parts, e);
        json_object_del(json_object_get(c, "defense"), "total");
    }
}

/* Hit points (max_hp required on creation, hp at most max_hp and max_hp when not given), then
 * Dexterity (an average score when not given) and the initiative modifier it implies. */
static void check_hp_dex(json_t *in, json_t *c, const char *ptr, const char *keep_id,
                         json_t *assumed, struct svc_errors *e)
{
    long long max_hp = 1, hp = 1;
    bool has_max = codec_get_int(in, ptr, "max_hp", keep_id == NULL, 1, RULES_HP_MAX, &max_hp, e);
    if (codec_get_int(in, ptr, "hp", false, RULES_HP_MIN, RULES_HP_MAX, &hp, e)) {
        if (has_max && hp > max_hp) {
            char hp_ptr[CODEC_PTR_MAX];
            codec_pointer(hp_ptr, ptr, "hp");
            svc_errors_add(e, hp_ptr, "is above max_hp");
        }
    } else if (has_max && keep_id == NULL) {
        json_object_set_new(c, "hp", json_integer(max_hp));
    }
    long long dex = 10, v = 0;
    bool has_dex = codec_get_int(in, ptr, "dex", false, 1, 100, &dex, e);
    if (!has_dex && keep_id == NULL && json_object_get(in, "dex") == NULL) {
        /* Not given: the average score, and said so (a stat block with its AC whole
         * need not state Dexterity). */
        json_object_set_new(c, "dex", json_integer(ASSUMED_DEX));
        has_dex = true;
        say_assumed(assumed, "dex", "%s: %d, an average score (modifier +0: %s)", "dex not given",
                    ASSUMED_DEX, RULES_ABILITY_MODIFIER_SOURCE);
    }
    if (!codec_get_int(in, ptr, "initiative_modifier", false, -100, 100, &v, e) && has_dex) {
        /* 004: "An initiative check is a Dexterity check": the Dexterity modifier. */
        long long mod = rules_ability_modifier((int)dex);
        json_object_set_new(c, "initiative_modifier", json_integer(mod));
    }
}

/* One attack profile, attacks[i] at ap: its members known, its name unique among the ones
 * before it (with the rule shapes), and its damage and threat as /v1/attacks/resolve takes them. */
static void check_attack(json_t *attacks, size_t i, const char *ap, int engine,
                         struct svc_errors *e)
{
    static const char *const akeys[] = {
        "name",        "attack_bonus", "damage",          "attack", "touch", "sneak_attack_dice",
        "rogue_level", "crit_range",   "crit_multiplier", NULL};
    static const char *const forms[] = {"melee", "ranged", "spell", NULL};
    assert(i < json_array_size(attacks)); /* attacks[i] is the profile checked */
    json_t *a = json_array_get(attacks, i);
    assert(a != NULL);
    const char *s = NULL;
    long long v = 0;
    bool b;
    if (!codec_expect_object(a, ap, e))
        return;
    codec_reject_unknown(a, ap, akeys, e);
    if (codec_get_string(a, ap, "name", true, 64, &s, e) && rules_encounter_checks_shapes(engine)) {
        /* An attack names its profile (enc_find_attack): two of one name would make the second
         * unreachable (refused with the rule shapes). */
        for (size_t j = 0; j < i; j++)
            if (strcmp(enc_str(json_array_get(attacks, j), "name"), s) == 0) {
                char np[CODEC_PTR_MAX + 32];
                snprintf(np, sizeof np, "%s/name", ap);
                svc_errors_add(e, np, "is the name of attacks/%zu already", j);
                break;
            }
    }
    codec_get_int(a, ap, "attack_bonus", true, -100, 100, &v, e);
    /* damage, crit_range and crit_multiplier: the stateless attacker's own decoder, so a profile
     * takes what /v1/attacks/resolve's attacker takes (each attack profile has a
     * threat range and multiplier, default 20/x2). */
    struct rules_dice_expr expr;
    int crit_range, crit_multiplier;
    svc_decode_damage(a, ap, &s, &expr, &crit_range, &crit_multiplier, e);
    codec_get_enum(a, ap, "attack", forms, false, 0, e);
    codec_get_bool(a, ap, "touch", false, &b, e);
    codec_get_int(a, ap, "sneak_attack_dice", false, 0, 40, &v, e);
    codec_get_int(a, ap, "rogue_level", false, 0, 100, &v, e);
}

/* The conditions: each one this service tracks, none twice (with the rule shapes); an empty list on
 * creation when not given. */
static void check_conditions(json_t *in, json_t *c, const char *ptr, const char *keep_id,
                             int engine, struct svc_errors *e)
{
    json_t *conds = NULL;
    if (!codec_get_array(in, ptr, "conditions", false, 16, &conds, e)) {
        if (keep_id == NULL)
            json_object_set_new(c, "conditions", json_array());
        return;
    }
    size_t i;
    json_t *cv;
    json_array_foreach(conds, i, cv)
    {
        bool ok = false;
        for (int k = 0; enc_defender_conditions[k] && json_is_string(cv); k++)
            ok |= strcmp(enc_defender_conditions[k], json_string_value(cv)) == 0;
        char cp[CODEC_PTR_MAX + 24];
        snprintf(cp, sizeof cp, "%s/conditions/%zu", ptr, i);
        if (!ok)
            svc_errors_add(e, cp, "is not a condition this service tracks");
        for (size_t j = 0; ok && rules_encounter_checks_shapes(engine) && j < i; j++)
            if (json_equal(json_array_get(conds, j), cv)) {
                svc_errors_add(e, cp, "is listed already (conditions/%zu)", j);
                break;
            }
    }
}

/* Validates a combatant object (ptr names it) against the state: every member known and in
 * range, placed on the map and not overlapping. Returns a normalized copy or NULL. */
json_t *enc_check_combatant(json_t *state, json_t *in, const char *ptr, const char *keep_id,
                            int engine, json_t *assumed, struct svc_errors *e)
{
    static const char *const keys[] = {"id",
                                       "name",
                                       "owner",
                                       "side",
                                       "x",
                                       "y",
                                       "z",
                                       "size",
                                       "facing",
                                       "faceless",
                                       "reach_ft",
                                       "reach_weapon",
                                       "speeds",
                                       "armor",
                                       "load",
                                       "constitution",
                                       "runner",
                                       "player_character",
                                       "darkvision",
                                       "defense",
                                       "ac",
                                       "damage_reduction",
                                       "hp",
                                       "max_hp",
                                       "initiative_modifier",
                                       "dex",
                                       "attacks",
                                       "combat_reflexes",
                                       "aoo_policy",
                                       "base_attack_bonus",
                                       "conditions",
                                       NULL};
    assert(state != NULL && ptr != NULL && e != NULL);
    size_t before = json_array_size(e->list); /* errors counted from here on refuse it */
    if (!codec_expect_object(in, ptr, e))
        return NULL;
    codec_reject_unknown(in, ptr, keys, e);
    json_t *c = json_deep_copy(in);
    const char *id = check_id(state, in, ptr, keep_id, e);
    if (id != NULL)
        json_object_set_new(c, "id", json_string(id));
    check_names(in, ptr, keep_id, e);
    /* Placement, size, facing and reach: the geometry decoder's own checks. */
    struct rules_options o;
    enc_state_rules(state, &o);
    struct rules_creature rc;

    if (keep_id == NULL) {
        json_t *probe = json_deep_copy(c);
        svc_decode_creature(probe, ptr, &o, true, keys, &rc, e); /* keys: the rest are ours */
        json_decref(probe);
    } /* an update's placement is checked on the merged combatant by enc_check_place */
    /* Speeds (required on creation), armor, load, constitution, runner, darkvision: the movement
     * endpoints' own decoder of a mover's burdens. */
    struct move_req burdens = {0};
    move_decode_burdens(in, ptr, keep_id == NULL, &burdens, e);
    long long v = 0;
    bool b;
    codec_get_bool(in, ptr, "player_character", false, &b, e);
    codec_get_bool(in, ptr, "combat_reflexes", false, &b, e);
    /* Who decides whether it takes the attacks of opportunity it is given (rules/reaction.h):
     * none set, each stays open until the next event. */
    static const char *const policies[] = {"ask", "always", "never", NULL};
    codec_get_enum(in, ptr, "aoo_policy", policies, false, 0, e);
    codec_get_int(in, ptr, "base_attack_bonus", false, 0, 100, &v, e);
    codec_get_int(in, ptr, "damage_reduction", false, 0, 1000, &v, e);
    check_defense(state, in, c, ptr, keep_id, &o, keep_id == NULL ? &rc : NULL, assumed, e);
    check_hp_dex(in, c, ptr, keep_id, assumed, e);
    json_t *attacks = NULL;
    if (codec_get_array(in, ptr, "attacks", false, MAX_ATTACKS, &attacks, e))
        for (size_t i = 0; i < json_array_size(attacks); i++) {
            char ap[CODEC_PTR_MAX + 24];
            snprintf(ap, sizeof ap, "%s/attacks/%zu", ptr, i);
            check_attack(attacks, i, ap, engine, e);
        }
    check_conditions(in, c, ptr, keep_id, engine, e);
    if (json_array_size(e->list) > before) {
        json_decref(c);
        return NULL;
    }
    return c;
}

/* Whether c, at its own position, fits the map and overlaps nobody (except itself). */
int enc_others(json_t *state, const struct rules_options *o, const char *skip_a, const char *skip_b,
               struct rules_creature **others, json_t ***who)
{
    size_t n = json_array_size(enc_combatants(state));
    *others = calloc(n + 1, sizeof **others);
    *who = calloc(n + 1, sizeof **who);
    if (*others == NULL || *who == NULL) {
        free(*others), free(*who);
        *others = NULL, *who = NULL;
        return -1;
    }
    struct svc_errors scratch;
    svc_errors_init(&scratch);
    int count = 0;
    size_t i;
    json_t *k;
    json_array_foreach(enc_combatants(state), i, k)
    {
        const char *id = enc_str(k, "id");
        if ((skip_a != NULL && strcmp(id, skip_a) == 0) ||
            (skip_b != NULL && strcmp(id, skip_b) == 0))
            continue;
        json_t *p = enc_placement(k);
        svc_decode_creature(p, "", o, true, NULL, &(*others)[count], &scratch);
        json_decref(p);
        (*who)[count++] = k;
    }
    bool bad = svc_errors_any(&scratch);
    svc_errors_free(&scratch);
    if (bad) {
        free(*others), free(*who);
        *others = NULL, *who = NULL;
        return -1;
    }
    return count;
}

bool enc_check_place(struct resolve_ctx *x, json_t *c, const char *ptr)
{
    json_t *state = x->state;
    struct svc_errors *e = x->e;
    const struct rules_options *o = enc_rules_of(x);
    struct rules_creature me;
    json_t *probe = enc_placement(c);
    size_t before = json_array_size(e->list);
    svc_decode_creature(probe, ptr, o, true, NULL, &me, e);
    json_decref(probe);
    if (json_array_size(e->list) != before)
        return false;
    const struct rules_map *map = enc_state_map(x);
    struct rules_creature *others;
    json_t **who;
    int count = enc_others(state, o, enc_str(c, "id"), NULL, &others, &who);
    int bx = 0, by = 0;
    /* Its movement types: the speeds it has (rules_terrain_move_types), or any when none. */
    unsigned types = 0;
    for (int t = 0; t < RULES_MOVE_TYPES; t++)
        if (enc_num(json_object_get(c, "speeds"), rules_move_type_name((enum rules_move_type)t)) >
            0)
            types |= 1u << t;
    int at = count >= 0 && map != NULL
                 ? rules_place_conflict(o, map, &me, types ? types : RULES_ANY_MOVE_TYPE, others,
                                        count, &bx, &by)
                 : RULES_PLACE_OFF_MAP;
    /* With the rule placing: 001 Blocked Terrain, 001 Alternative Movement Types. */
    if ((at == RULES_PLACE_BLOCKED || at == RULES_PLACE_TERRAIN) &&
        !rules_encounter_place_refuses_terrain(x->engine))
        at = RULES_PLACE_OK;
    if (count < 0 || map == NULL)
        svc_errors_add(e, ptr, "the map or the other combatants could not be read");
    else if (at == RULES_PLACE_OFF_MAP)
        svc_errors_add(e, ptr, "is off the map: its whole space must lie on it");
    else if (at == RULES_PLACE_BLOCKED)
        svc_errors_add(e, ptr, "stands in blocked terrain at (%d, %d) (%s)", bx, by,
                       RULES_BLOCKED_SOURCE);
    else if (at == RULES_PLACE_TERRAIN)
        svc_errors_add(
            e, ptr, "stands in %s at (%d, %d), which none of its speeds enters (%s)",
            rules_map_terrain_name(
                (enum rules_map_terrain)map->terrain[(size_t)by * (size_t)map->width + (size_t)bx]),
            bx, by, RULES_TERRAIN_SOURCE);
    else if (at >= 0)
        svc_errors_add(e, ptr, "overlaps '%s' (001 Walk: never end in an occupied space)",
                       enc_str(who[at], "id"));
    free(others);
    free(who);
    return count >= 0 && map != NULL && at == RULES_PLACE_OK;
}
