/* POST /v1/attacks/modifiers (the breakdown, no dice) and POST /v1/attacks/resolve (rolled):
 * every positional modifier of an attack with its source (rules/attack.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attack.h"
#include "attack_ruling.h"
#include "codec.h"
#include "impact.h"
#include "jsonw.h"
#include "rules_codec.h"
#include "svc.h"

#define MAX_ALLIES 256

/* A set of names as a bit mask (bit i for names[i]); unknown names are errors at their index. */
static unsigned name_set(json_t *obj, const char *base, const char *key, const char *const *names,
                         struct svc_errors *e)
{
    json_t *list = NULL;
    unsigned bits = 0;
    if (!codec_get_array(obj, base, key, false, 32, &list, e))
        return 0;
    size_t i;
    json_t *item;
    json_array_foreach(list, i, item)
    {
        int found = -1;
        for (int k = 0; names[k] != NULL && json_is_string(item); k++)
            if (strcmp(names[k], json_string_value(item)) == 0)
                found = k;
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
            bits |= 1u << found;
        }
    }
    return bits;
}

static const char *const attacker_features[] = {
    "whirlwind_attack", "combat_reflexes", "flank_attack", "rear_attack", "mounted_combat", NULL};
static const char *const attacker_conditions[] = {"prone", "invisible", "squeezing",
                                                  "higher_ground", NULL};
static const char *const defender_conditions[] = {
    "sitting",   "prone",  "stunned",  "climbing",  "flat_footed", "running",
    "grappling", "pinned", "helpless", "squeezing", NULL};
static const char *const covers[] = {"none",        "quarter", "half", "three_quarters",
                                     "nine_tenths", "total",   NULL};
static const char *const concealments[] = {"none",        "quarter", "half", "three_quarters",
                                           "nine_tenths", "total",   NULL};

/* Everything an attack request carries, decoded. */
struct attack_request {
    struct svc_rules rules;
    struct rules_attacker a;
    struct rules_defender d;
    struct rules_creature *allies;
    int ally_count;
    enum rules_cover cover;
    enum rules_concealment conceal[8];
    int conceal_count;
    bool has_cover_creature;
    int cover_ac, cover_dex_dodge;
    bool cover_applies_dex_dodge;
    const char *damage; /* dice notation, or NULL */
    struct rules_dice_expr damage_expr;
    int damage_reduction;
};

static void decode_attacker(json_t *body, struct attack_request *r, struct svc_errors *e)
{
    static const char *const extra[] = {"attack_bonus", "size_included", "player_character",
                                        "attack",       "touch",         "kind",
                                        "features",     "steed",         "sneak_attack_dice",
                                        "rogue_level",  "conditions",    "pack_bonus",
                                        "shifts_bands", "damage",        NULL};
    static const char *const forms[] = {"melee", "ranged", "spell", NULL};
    static const char *const kinds[] = {"normal", "attack_of_opportunity", "cleave", NULL};
    struct rules_attacker *a = &r->a;
    memset(a, 0, sizeof *a);
    json_t *obj = svc_decode_member(body, "attacker", &r->rules.options, true, extra, &a->c, e);
    if (obj == NULL)
        return;
    long long v = 0;
    if (codec_get_int(obj, "/attacker", "attack_bonus", true, -100, 100, &v, e))
        a->attack_bonus = (int)v;
    codec_get_bool(obj, "/attacker", "size_included", false, &a->size_included, e);
    codec_get_bool(obj, "/attacker", "player_character", false, &a->player_character, e);
    int form = codec_get_enum(obj, "/attacker", "attack", forms, false, 0, e);
    a->ranged = form >= 1;
    a->spell = form == 2;
    codec_get_bool(obj, "/attacker", "touch", false, &a->touch, e);
    a->kind = (enum rules_attack_kind)codec_get_enum(obj, "/attacker", "kind", kinds, false, 0, e);
    unsigned f = name_set(obj, "/attacker", "features", attacker_features, e);
    a->whirlwind_attack = f & 1, a->combat_reflexes = f & 2, a->flank_attack = f & 4;
    a->rear_attack = f & 8, a->mounted_combat = f & 16;
    json_t *steed = json_object_get(obj, "steed");
    if (steed != NULL) {
        a->has_steed = true;
        svc_decode_creature(steed, "/attacker/steed", &r->rules.options, true, NULL, &a->steed, e);
    }
    if (a->mounted_combat && !a->has_steed)
        svc_errors_add(e, "/attacker/steed", "is required with the mounted_combat feature");
    if (codec_get_int(obj, "/attacker", "sneak_attack_dice", false, 0, 40, &v, e))
        a->sneak_dice = (int)v;
    if (codec_get_int(obj, "/attacker", "rogue_level", false, 0, 100, &v, e))
        a->rogue_level = (int)v;
    unsigned c = name_set(obj, "/attacker", "conditions", attacker_conditions, e);
    a->prone = c & 1, a->invisible = c & 2, a->squeezing = c & 4, a->higher_ground = c & 8;
    if (codec_get_int(obj, "/attacker", "pack_bonus", false, 0, 20, &v, e))
        a->pack_bonus = (int)v;
    codec_get_bool(obj, "/attacker", "shifts_bands", false, &a->shifts_bands, e);
    if (codec_get_string(obj, "/attacker", "damage", false, RULES_DICE_MAX_EXPRESSION, &r->damage,
                         e)) {
        size_t at = 0;
        int rc = rules_dice_parse(r->damage, &r->damage_expr, &at);
        if (rc != RULES_DICE_OK) {
            svc_errors_add(e, "/attacker/damage", "%s (at character %zu)", rules_dice_strerror(rc),
                           at);
            r->damage = NULL;
        }
    }
}

static void decode_defender(json_t *body, struct attack_request *r, struct svc_errors *e)
{
    static const char *const extra[] = {
        "defense",       "player_character",  "shield_spell",
        "shield_side",   "conditions",        "improved_uncanny_dodge_level",
        "uncanny_dodge", "all_around_vision", "immune_sneak_attack",
        "invisible",     "damage_reduction",  NULL};
    static const char *const sides[] = {"none", "left", "right", NULL};
    struct rules_defender *d = &r->d;
    memset(d, 0, sizeof *d);
    json_t *obj = svc_decode_member(body, "defender", &r->rules.options, true, extra, &d->c, e);
    if (obj == NULL)
        return;
    json_t *def = json_object_get(obj, "defense");
    if (def == NULL) {
        svc_errors_add(e, "/defender/defense", "is required (its parts: armor, shield, ...)");
    } else if (codec_expect_object(def, "/defender/defense", e)) {
        static const char *const parts[] = {"armor",      "shield", "shield_enhancement",
                                            "natural",    "dex",    "dodge",
                                            "deflection", "size",   "other",
                                            "total",      NULL};
        codec_reject_unknown(def, "/defender/defense", parts, e);
        int *fields[] = {&d->ac.armor,      &d->ac.shield, &d->ac.shield_enhancement,
                         &d->ac.natural,    &d->ac.dex,    &d->ac.dodge,
                         &d->ac.deflection, &d->ac.size,   &d->ac.other};
        for (int i = 0; i < 9; i++) {
            long long v = 0;
            if (codec_get_int(def, "/defender/defense", parts[i], false, -100, 100, &v, e)) {
                *fields[i] = (int)v;
                if (i == 7)
                    d->ac.size_given = true;
            }
        }
        long long total = 0;
        if (codec_get_int(def, "/defender/defense", "total", false, -100, 500, &total, e)) {
            int sum = 10 + d->ac.armor + d->ac.shield + d->ac.shield_enhancement + d->ac.natural +
                      d->ac.dex + d->ac.dodge + d->ac.deflection + d->ac.size + d->ac.other;
            if (!d->ac.size_given)
                svc_errors_add(e, "/defender/defense/total",
                               "give the size part too when stating a total");
            else if (sum != total)
                svc_errors_add(e, "/defender/defense/total", "is %lld but 10 plus the parts is %d",
                               total, sum);
        }
    }
    long long v = 0;
    codec_get_bool(obj, "/defender", "player_character", false, &d->player_character, e);
    if (codec_get_int(obj, "/defender", "shield_spell", false, 0, 20, &v, e))
        d->shield_spell = (int)v;
    d->shield_side =
        (enum rules_shield_side)codec_get_enum(obj, "/defender", "shield_side", sides, false, 0, e);
    d->conditions = name_set(obj, "/defender", "conditions", defender_conditions, e);
    if (codec_get_int(obj, "/defender", "improved_uncanny_dodge_level", false, 1, 100, &v, e)) {
        d->improved_uncanny_dodge = true;
        d->iud_level = (int)v;
    }
    codec_get_bool(obj, "/defender", "uncanny_dodge", false, &d->uncanny_dodge, e);
    codec_get_bool(obj, "/defender", "all_around_vision", false, &d->all_around_vision, e);
    codec_get_bool(obj, "/defender", "immune_sneak_attack", false, &d->immune_sneak_attack, e);
    codec_get_bool(obj, "/defender", "invisible", false, &d->invisible, e);
    if (codec_get_int(obj, "/defender", "damage_reduction", false, 0, 1000, &v, e))
        r->damage_reduction = (int)v;
}

/* Decodes the whole request; false when any error was found. */
static bool decode(json_t *body, struct attack_request *r, struct svc_errors *e)
{
    svc_decode_rules(body, &r->rules, e);
    decode_attacker(body, r, e);
    decode_defender(body, r, e);
    json_t *list = NULL;
    if (codec_get_array(body, "", "allies", false, MAX_ALLIES, &list, e)) {
        r->ally_count = (int)json_array_size(list);
        r->allies = calloc(r->ally_count ? (size_t)r->ally_count : 1, sizeof *r->allies);
        for (int i = 0; r->allies != NULL && i < r->ally_count; i++) {
            char ptr[CODEC_PTR_MAX];
            snprintf(ptr, sizeof ptr, "/allies/%d", i);
            svc_decode_creature(json_array_get(list, (size_t)i), ptr, &r->rules.options, true, NULL,
                                &r->allies[i], e);
        }
    }
    r->cover = (enum rules_cover)codec_get_enum(body, "", "cover", covers, false, 0, e);
    if (r->cover == RULES_COVER_TOTAL)
        svc_errors_add(e, "/cover",
                       "no attack reaches a target with total cover (002 Table: "
                       "Cover)");
    json_t *cc = json_object_get(body, "cover_creature");
    if (cc != NULL && codec_expect_object(cc, "/cover_creature", e)) {
        static const char *const ckeys[] = {"ac", "dex_and_dodge", "apply_dex_and_dodge", NULL};
        codec_reject_unknown(cc, "/cover_creature", ckeys, e);
        long long v = 0;
        r->has_cover_creature = true;
        if (codec_get_int(cc, "/cover_creature", "ac", true, -100, 500, &v, e))
            r->cover_ac = (int)v;
        if (codec_get_int(cc, "/cover_creature", "dex_and_dodge", false, 0, 100, &v, e))
            r->cover_dex_dodge = (int)v;
        r->cover_applies_dex_dodge = true;
        codec_get_bool(cc, "/cover_creature", "apply_dex_and_dodge", false,
                       &r->cover_applies_dex_dodge, e);
        if (r->cover == RULES_COVER_NONE)
            svc_errors_add(e, "/cover",
                           "state the cover the creature gives (002: half behind a "
                           "creature of the same size)");
    }
    unsigned cs = name_set(body, "", "concealment", concealments, e);
    for (int i = 1; i < 6; i++)
        if (cs & (1u << i))
            r->conceal[r->conceal_count++] = (enum rules_concealment)i;
    if (!svc_errors_any(e) && rules_has_facing(&r->rules.options, &r->d.c) &&
        json_object_get(json_object_get(body, "defender"), "facing") == NULL)
        svc_errors_add(e, "/defender/facing", "is required under the facing variant in force");
    if (!svc_errors_any(e) && r->rules.options.facing == RULES_FACING_000 &&
        rules_has_facing(&r->rules.options, &r->a.c) &&
        json_object_get(json_object_get(body, "attacker"), "facing") == NULL)
        svc_errors_add(e, "/attacker/facing", "is required under 000 Combat Facing");
    return !svc_errors_any(e);
}

static const char *applies_name(enum rules_applies a)
{
    return a == RULES_APPLIES_ATTACK ? "attack" : "defense";
}

/* The kind of AC the target number is, as words. */
static void ac_kind(const struct rules_attack_eval *ev, char *buf, size_t len)
{
    buf[0] = '\0'; /* strncat rather than snprintf: this runs for every attack */
    strncat(buf, ev->touch ? "touch " : "", len - 1);
    strncat(buf, ev->flat_footed ? "flat-footed " : "", len - 1 - strlen(buf));
    strncat(buf, ev->shieldless ? "shieldless " : "", len - 1 - strlen(buf));
    strncat(buf, ev->touch || ev->flat_footed || ev->shieldless ? "AC" : "normal AC",
            len - 1 - strlen(buf));
}

/* What a rolled attack came to. */
struct outcome {
    int d20, total;
    bool hit;   /* it would hit the defender, before concealment */
    bool lands; /* it lands on the defender */
    bool cover_struck, cover_hit;
    const char *struck; /* defender, cover, cover_creature, none */
    bool pct_rolled, missed;
    int pct;
    bool damage; /* damage was rolled */
    char damage_text[RULES_DICE_MAX_EXPRESSION + 32];
    struct rules_dice_expr damage_expr;
    int dealt;
};

/* Writes the answer in one pass (jsonw.h): the breakdown, then, for a rolled attack, the
 * rolls and their consequences. */
void svc_write_modifier(struct jw *w, const struct rules_modifier *m)
{
    jw_object_begin(w);
    JW_KEY(w, "value");
    jw_int(w, m->value);
    JW_KEY(w, "applies_to");
    jw_string(w, applies_name(m->applies_to));
    JW_KEY(w, "reason");
    jw_string(w, m->reason);
    JW_KEY(w, "source");
    jw_string(w, m->source);
    JW_KEY(w, "applied");
    jw_bool(w, m->applied);
    jw_object_end(w);
}

static void write_answer(struct jw *w, const struct attack_request *r,
                         const struct rules_attack_eval *ev, const char *kind,
                         const struct outcome *o, const struct rules_roll *dmg,
                         const struct svc_dice_source *src, const char *explain)
{
    jw_object_begin(w);
    JW_KEY(w, "rules");
    svc_write_rules(w, &r->rules);
    JW_KEY(w, "attack_total");
    jw_int(w, ev->attack_total);
    JW_KEY(w, "target_number");
    jw_int(w, ev->target_number);
    JW_KEY(w, "ac_kind");
    jw_string(w, kind);

    JW_KEY(w, "cover");
    jw_object_begin(w);
    JW_KEY(w, "degree");
    jw_string(w, covers[ev->cover]);
    JW_KEY(w, "bonus");
    jw_int(w, ev->cover_bonus);
    JW_KEY(w, "reflex_bonus");
    jw_int(w, rules_cover_reflex(ev->cover));
    JW_KEY(w, "target_without_cover");
    jw_int(w, ev->target_without_cover);
    jw_object_end(w);

    /* 002: "use the one that would produce the highest miss chance. Do not add the miss
     * chances together": say which one was used and which were dropped. */
    JW_KEY(w, "concealment");
    jw_object_begin(w);
    JW_KEY(w, "miss_chance");
    jw_int(w, ev->miss_chance);
    JW_KEY(w, "guess_square");
    jw_bool(w, ev->guess_square);
    JW_KEY(w, "used");
    jw_string(w, concealments[ev->concealment]);
    JW_KEY(w, "dropped");
    jw_array_begin(w);
    bool used_seen = false;
    for (int i = 0; i < r->conceal_count; i++) {
        if (r->conceal[i] == ev->concealment && !used_seen) {
            used_seen = true;
            continue;
        }
        jw_string(w, concealments[r->conceal[i]]);
    }
    jw_array_end(w);
    if (o != NULL && o->pct_rolled) {
        JW_KEY(w, "roll");
        jw_int(w, o->pct);
        JW_KEY(w, "missed");
        jw_bool(w, o->missed);
    }
    jw_object_end(w);

    JW_KEY(w, "sneak_attack");
    jw_object_begin(w);
    JW_KEY(w, "eligible");
    jw_bool(w, ev->sneak_attack);
    JW_KEY(w, "reason");
    jw_string(w, ev->sneak_reason ? ev->sneak_reason : "");
    JW_KEY(w, "dice");
    jw_int(w, ev->sneak_attack ? r->a.sneak_dice : 0);
    jw_object_end(w);

    JW_KEY(w, "modifiers");
    jw_array_begin(w);
    for (int i = 0; i < ev->mod_count; i++)
        svc_write_modifier(w, &ev->mods[i]);
    jw_array_end(w);
    JW_KEY(w, "attacker_area");
    jw_string(w, rules_area_name(ev->attacker_area));
    JW_KEY(w, "target_area");
    jw_string(w, rules_area_name(ev->target_area));
    JW_KEY(w, "flanked");
    jw_bool(w, ev->flanked);

    if (o != NULL) {
        JW_KEY(w, "d20");
        jw_int(w, o->d20);
        JW_KEY(w, "roll_total");
        jw_int(w, o->total);
        JW_KEY(w, "hit");
        jw_bool(w, o->lands);
        JW_KEY(w, "struck");
        jw_string(w, o->struck);
        JW_KEY(w, "damage");
        if (!o->damage) {
            jw_null(w);
        } else {
            jw_object_begin(w);
            json_t *roll = svc_encode_roll(o->damage_text, &o->damage_expr, dmg);
            JW_KEY(w, "roll");
            jw_json(w, roll);
            json_decref(roll);
            JW_KEY(w, "total");
            jw_int(w, dmg->total);
            JW_KEY(w, "damage_reduction");
            jw_int(w, o->lands ? r->damage_reduction : 0);
            JW_KEY(w, "dealt");
            jw_int(w, o->dealt);
            JW_KEY(w, "to");
            jw_string(w, o->lands ? "defender" : "cover_creature");
            jw_object_end(w);
        }
    }
    JW_KEY(w, "explain");
    jw_string(w, explain);
    if (o != NULL) {
        JW_KEY(w, "source");
        jw_string(w, src->supplied ? "supplied" : "seed");
        if (!src->supplied) {
            JW_KEY(w, "seed");
            jw_int(w, src->seed);
        }
    }
    jw_object_end(w);
}

/* Rolls the attack: the d20, the concealment percentile only when it would hit, the cover
 * struck, and the damage only when it lands. Returns false with the problem in e. */
static bool roll_attack(const struct attack_request *r, const struct rules_attack_eval *ev,
                        struct rules_dice *d, struct outcome *o, struct rules_roll *dmg,
                        struct svc_errors *e)
{
    memset(o, 0, sizeof *o);
    if (rules_dice_draw(d, 20, &o->d20) != RULES_DICE_OK) {
        svc_errors_add(e, "/results", "supply the d20 first");
        return false;
    }
    o->total = o->d20 + ev->attack_total;
    o->hit = o->total >= ev->target_number;
    o->struck = o->hit ? "defender" : "none";
    /* 002 Striking the Cover Instead of a Missed Target. */
    o->cover_struck =
        !o->hit && ev->cover != RULES_COVER_NONE && o->total >= ev->target_without_cover;
    if (o->cover_struck) {
        o->struck = "cover";
        if (r->has_cover_creature) {
            int ac = r->cover_ac - (r->cover_applies_dex_dodge ? 0 : r->cover_dex_dodge);
            if (o->total >= ac) {
                o->struck = "cover_creature";
            } else if (o->total >= r->cover_ac - r->cover_dex_dodge) {
                /* "the covering character has dodged out of the way": the target is hit */
                o->struck = "defender";
                o->hit = true;
            }
        }
    }
    o->lands = o->hit;
    if (o->hit && ev->miss_chance > 0) {
        if (rules_dice_draw(d, 100, &o->pct) != RULES_DICE_OK) {
            svc_errors_add(e, "/results", "supply the miss-chance percentile after the d20");
            return false;
        }
        o->pct_rolled = true;
        o->missed = o->pct <= ev->miss_chance;
        if (o->missed) {
            o->lands = false;
            o->struck = "none";
        }
    }
    o->cover_hit = strcmp(o->struck, "cover_creature") == 0;
    if ((o->lands || o->cover_hit) && r->damage != NULL) {
        /* The weapon's dice, then the sneak attack's d6s. A covering creature "takes the
         * damage intended for the target" (002): the weapon's, since sneak attack eligibility
         * was the target's; its own damage reduction is not known here. */
        snprintf(o->damage_text, sizeof o->damage_text, "%s", r->damage);
        if (o->lands && ev->sneak_attack && r->a.sneak_dice > 0)
            snprintf(o->damage_text + strlen(o->damage_text),
                     sizeof o->damage_text - strlen(o->damage_text), "+%dd6", r->a.sneak_dice);
        size_t at = 0;
        if (rules_dice_parse(o->damage_text, &o->damage_expr, &at) != RULES_DICE_OK ||
            rules_dice_roll(&o->damage_expr, d, dmg) != RULES_DICE_OK) {
            svc_errors_add(e, "/results",
                           "supply the damage dice after the d20 and any "
                           "miss-chance roll (%s)",
                           o->damage_text);
            return false;
        }
        o->damage = true;
        o->dealt = dmg->total - (o->lands ? r->damage_reduction : 0);
        if (o->dealt < 0)
            o->dealt = 0;
    }
    if (!rules_dice_all_used(d)) {
        svc_errors_add(e, "/results", "more results than this attack rolls");
        return false;
    }
    return true;
}

/* Shared by both handlers: decode, evaluate; `roll` decides whether dice are rolled. facts,
 * when given, gets the figures an encounter applies. */
static void handle(const struct svc_request *req, struct svc_response *res, bool roll,
                   struct svc_attack_facts *facts)
{
    static const char *const known[] = {
        "rules",          "attacker",    "defender", "allies",  "cover",
        "cover_creature", "concealment", "seed",     "results", NULL};
    json_t *body;
    struct svc_errors e;
    /* About 24 KB, on the worker thread's stack rather than the heap: these are per request,
     * and allocating and freeing them cost more than the ruling (seen with perf). */
    struct attack_request req_state, *r = &req_state;
    struct svc_dice_source src_state, *src = &src_state;
    struct rules_attack_eval ev_state, *ev = &ev_state;
    struct rules_roll dmg_state, *dmg = &dmg_state;
    struct outcome outcome;
    memset(r, 0, sizeof *r);
    if (!svc_decode_begin(req, res, known, &body, &e))
        goto out;
    if (roll)
        svc_decode_dice_source(body, src, &e);
    else if (json_object_get(body, "seed") || json_object_get(body, "results"))
        svc_errors_add(&e, json_object_get(body, "seed") ? "/seed" : "/results",
                       "this operation rolls no dice; use /v1/attacks/resolve");
    if (!decode(body, r, &e))
        goto fail;
    int rc = rules_attack_evaluate(&r->rules.options, &r->a, &r->d, r->allies, r->ally_count,
                                   r->cover, r->conceal, r->conceal_count, ev);
    if (rc == RULES_ATTACK_ERR_SPELL_INTO_REAR) {
        svc_errors_add(&e, "/defender",
                       "a spellcaster can't target anything in his rear area "
                       "with a spell (000 Spellcasting)");
        goto fail;
    }
    if (rc == RULES_ATTACK_ERR_NO_SIZE_MODIFIER) {
        svc_errors_add(&e, "/rules/options/size_table",
                       "004's size table stops at Colossal: use size_table 001, or give the "
                       "size part and size_included");
        goto fail;
    }
    char kind[64], explain[320];
    ac_kind(ev, kind, sizeof kind);
    const struct outcome *o = NULL;
    if (roll) {
        struct rules_dice d;
        svc_dice_source_open(src, &d);
        if (!roll_attack(r, ev, &d, &outcome, dmg, &e))
            goto fail;
        o = &outcome;
        snprintf(explain, sizeof explain, "%s: d20 %d %+d = %d against %s %d%s%s.",
                 o->lands ? "Hit" : "Miss", o->d20, ev->attack_total, o->total, kind,
                 ev->target_number, !o->hit && o->cover_struck ? "; the cover took the blow" : "",
                 o->hit && !o->lands ? "; lost to concealment" : "");
        if (o->damage)
            snprintf(explain + strlen(explain), sizeof explain - strlen(explain),
                     " %d damage to %s%s.", o->dealt,
                     o->lands ? "the target" : "the covering creature",
                     o->lands && ev->sneak_attack ? " with sneak attack" : "");
    } else {
        snprintf(explain, sizeof explain, "Needs %d on the d20: %+d against %s %d%s.",
                 ev->target_number - ev->attack_total, ev->attack_total, kind, ev->target_number,
                 ev->miss_chance ? ", then a concealment miss chance" : "");
    }
    struct jw w;
    jw_init(&w, 2048);
    write_answer(&w, r, ev, kind, o, dmg, src, explain);
    size_t len = 0;
    char *text = jw_finish(&w, &len);
    svc_respond_owned(res, 200, "application/json", text, len);
    if (facts != NULL) {
        facts->to_defender = o != NULL && o->damage && o->lands;
        facts->dealt = o != NULL ? o->dealt : 0;
    }
    goto out;
fail:
    svc_errors_respond(&e, res);
out:
    svc_errors_free(&e);
    free(r->allies);
    json_decref(body);
}

void svc_handle_attack_modifiers(const struct svc_request *req, struct svc_response *res)
{
    handle(req, res, false, NULL);
}

void svc_handle_attack_resolve(const struct svc_request *req, struct svc_response *res)
{
    handle(req, res, true, NULL);
}

void svc_attack_resolve_facts(const struct svc_request *req, struct svc_response *res,
                              struct svc_attack_facts *f)
{
    handle(req, res, true, f);
}

bool svc_attack_rule_request(json_t *body, struct svc_attack_ruling *out, struct svc_errors *e)
{
    struct attack_request req_state, *r = &req_state;
    memset(r, 0, sizeof *r);
    bool ok = decode(body, r, e);
    if (ok) {
        int rc = rules_attack_evaluate(&r->rules.options, &r->a, &r->d, r->allies, r->ally_count,
                                       r->cover, r->conceal, r->conceal_count, &out->ev);
        if (rc == RULES_ATTACK_ERR_SPELL_INTO_REAR)
            svc_errors_add(e, "/defender",
                           "a spellcaster can't target anything in his rear area "
                           "with a spell (000 Spellcasting)");
        else if (rc == RULES_ATTACK_ERR_NO_SIZE_MODIFIER)
            svc_errors_add(e, "/rules/options/size_table",
                           "004's size table stops at Colossal: use size_table 001, or give the "
                           "size part and size_included");
        ok = rc == RULES_ATTACK_OK;
    }
    if (ok) {
        out->rules = r->rules;
        ac_kind(&out->ev, out->ac_kind, sizeof out->ac_kind);
        out->attack_bonus = r->a.attack_bonus;
        out->sneak_dice = r->a.sneak_dice;
        out->has_damage = r->damage != NULL;
        out->damage = r->damage_expr;
        out->damage_reduction = r->damage_reduction;
        out->has_cover_creature = r->has_cover_creature;
        out->cover_ac = r->cover_ac;
        out->cover_dex_dodge = r->cover_dex_dodge;
        out->cover_applies_dex_dodge = r->cover_applies_dex_dodge;
    }
    free(r->allies);
    return ok;
}
