/* Encounters: the state and what rules on it. Small helpers over the state JSON, effects and
 * the fold, calling the stateless rulings (and the map they share for a request), combatant
 * validation, the initial state with the seed's commitment, and what a reader without the
 * token sees of a state (the model: encounter_internal.h). */
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

/* ---- small helpers ---- */

/* A copy of c's conditions with cond added (add) or removed. */
json_t *enc_conditions_with(json_t *c, const char *cond, bool add)
{
    json_t *out = json_array();
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(c, "conditions"), i, v)
    {
        if (json_is_string(v) && strcmp(json_string_value(v), cond) != 0)
            json_array_append(out, v);
    }
    if (add)
        json_array_append_new(out, json_string(cond));
    return out;
}

/* v in decimal at out (room for 20 characters); returns its length. */
static size_t decimal(char *out, long long v)
{
    char num[24], *p = num + sizeof num;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (v < 0)
        *--p = '-';
    size_t n = (size_t)(num + sizeof num - p);
    memcpy(out, p, n);
    return n;
}

/* "<salt>:<seed>:<seq>" at text (cap bytes), as snprintf's "%s:%lld:%lld" writes it, without
 * printf (it is on every action's path); returns the length snprintf would return. */
static size_t seed_text(char *text, size_t cap, const char *salt, long long seed, long long seq)
{
    size_t sl = strlen(salt);
    if (sl + 2 * 21 + 1 > cap) { /* a salt longer than any the service makes: cut as printf */
        int n = snprintf(text, cap, "%s:%lld:%lld", salt, seed, seq);
        return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
    }
    memcpy(text, salt, sl);
    size_t n = sl;
    text[n++] = ':';
    n += decimal(text + n, seed);
    text[n++] = ':';
    n += decimal(text + n, seq);
    text[n] = '\0';
    return n;
}

/* The ruling seed of event seq, within the dice API's seed range. Rulings echo the seed they
 * rolled with, and every reader sees rulings, so an event's seed must not give the encounter's
 * away: it is the first 8 bytes of SHA-256("<seed_salt>:<seed>:<seq>"), which nobody can
 * invert to the seed without the salt. (An encounter from before seed commitments has no
 * salt and no secret: its events keep the splitmix64 step they were rolled with.) */
long long enc_event_seed(json_t *state, long long seq)
{
    const char *salt = json_string_value(json_object_get(state, "seed_salt"));
    if (salt != NULL) {
        char text[160];
        size_t n = seed_text(text, sizeof text, salt, enc_num(state, "seed"), seq);
        unsigned char h[AUTH_HASH_LEN];
        auth_sha256(text, n, h);
        uint64_t v = 0;
        for (int i = 0; i < 8; i++)
            v = v << 8 | h[i];
        return (long long)(v % (uint64_t)(SEED_MAX + 1));
    }
    uint64_t z = (uint64_t)enc_num(state, "seed") + (uint64_t)seq * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (long long)(z % (uint64_t)(SEED_MAX + 1));
}

/* ---- effects and the fold ---- */

/* Applies one event's effects to state. */
void enc_fold(json_t *state, json_t *effects)
{
    size_t i;
    json_t *e;
    json_array_foreach(effects, i, e)
    {
        const char *op = enc_str(e, "op");
        if (strcmp(op, "init") == 0) {
            json_object_clear(state);
            json_object_update(state, json_object_get(e, "state"));
        } else if (strcmp(op, "set") == 0) {
            const char *t = enc_str(e, "target");
            json_t *obj = strcmp(t, "encounter") == 0 ? state : enc_find(state, t, NULL);
            if (obj != NULL)
                json_object_update(obj, json_object_get(e, "fields"));
        } else if (strcmp(op, "add") == 0) {
            json_array_append(enc_combatants(state), json_object_get(e, "combatant"));
        } else if (strcmp(op, "remove") == 0) {
            size_t at;
            if (enc_find(state, enc_str(e, "id"), &at) != NULL)
                json_array_remove(enc_combatants(state), at);
            json_t *order = json_object_get(state, "order");
            for (size_t k = 0; k < json_array_size(order); k++)
                if (strcmp(json_string_value(json_array_get(order, k)), enc_str(e, "id")) == 0) {
                    json_array_remove(order, k);
                    break;
                }
        }
    }
}

/* ---- calling the stateless rulings ---- */

const struct svc_config *enc_config(const struct resolve_ctx *x)
{
    return x->req->ctx->config;
}

/* Where an inner ruling's error pointer lands: under one of own's members, renamed to its
 * outer pointer (the member the action's input names itself); else NULL. */
static const char *own_pointer(const char *ptr, const struct enc_member *own, char *out, size_t n)
{
    assert(ptr != NULL && out != NULL && n > 0);
    for (int i = 0; own != NULL && own[i].inner != NULL; i++) {
        size_t k = strlen(own[i].inner);
        if (strncmp(ptr, own[i].inner, k) == 0 && (ptr[k] == '\0' || ptr[k] == '/')) {
            snprintf(out, n, "%s%s", own[i].outer, ptr + k);
            return out;
        }
    }
    return NULL;
}

/* The answer of a stateless ruling as a value, or NULL after its refusal's field errors (else
 * its detail) went to x->e: at the action's own member for those under own, else under
 * prefix. A ruling asked for its answer as a value (want_doc) gives it without text, so that
 * nothing is parsed back; one that wrote text is parsed. */
json_t *enc_answer_own(struct resolve_ctx *x, struct svc_answer *a, const char *prefix,
                       const struct enc_member *own, const char *what)
{
    json_t *v = NULL;
    if (a->status == 200) {
        v = a->doc != NULL ? json_incref(a->doc) : jsonr_load(a->text, a->len);
        if (v == NULL)
            svc_errors_add(x->e, "", "the %s could not be ruled", what);
    } else if (json_array_size(a->errors) > 0) {
        size_t i;
        json_t *err;
        json_array_foreach(a->errors, i, err)
        {
            char mine[CODEC_PTR_MAX];
            const char *at = own_pointer(enc_str(err, "pointer"), own, mine, sizeof mine);
            if (at != NULL)
                svc_errors_add(x->e, at, "%s", enc_str(err, "message"));
            else
                svc_errors_add(x->e, prefix, "%s: %s", enc_str(err, "pointer"),
                               enc_str(err, "message"));
        }
    } else {
        char detail[640];
        svc_errors_add(x->e, prefix, "%s", svc_answer_detail(a, detail, sizeof detail));
    }
    svc_answer_free(a);
    return v;
}

json_t *enc_answer(struct resolve_ctx *x, struct svc_answer *a, const char *prefix,
                   const char *what)
{
    return enc_answer_own(x, a, prefix, NULL, what);
}

struct svc_dice_source *enc_dice_source(struct resolve_ctx *x, json_t *in, struct svc_errors *e)
{
    struct svc_dice_source *src = enc_dice_seeded(x, e);
    if (src != NULL && json_object_get(in, "results") != NULL)
        svc_decode_dice_source(in, src, e);
    return src;
}

struct svc_dice_source *enc_dice_seeded(struct resolve_ctx *x, struct svc_errors *e)
{
    /* Not zeroed: its 16 KiB of results are read only up to count, which is set here
     * (zeroing them was a tenth of an attack action's instructions). */
    struct svc_dice_source *src = malloc(sizeof *src);
    if (src == NULL) {
        svc_errors_add(e, "", "the dice could not be readied");
        return NULL;
    }
    src->seed = enc_event_seed(x->state, x->seq);
    src->count = 0;
    src->supplied = false;
    return src;
}

/* The members of a stored combatant that place it (CombatantFields). */
json_t *enc_placement(json_t *c)
{
    static const char *const keys[] = {
        "x", "y", "z", "size", "facing", "faceless", "reach_ft", "reach_weapon", NULL};
    json_t *o = json_object();
    for (int i = 0; keys[i]; i++) {
        json_t *v = json_object_get(c, keys[i]);
        if (v != NULL)
            json_object_set(o, keys[i], v);
    }
    return o;
}

bool enc_creature_of(const struct rules_options *o, json_t *c, struct rules_creature *out)
{
    struct svc_errors scratch;
    svc_errors_init(&scratch);
    json_t *p = enc_placement(c);
    svc_decode_creature(p, "", o, true, NULL, out, &scratch);
    json_decref(p);
    bool ok = !svc_errors_any(&scratch);
    svc_errors_free(&scratch);
    return ok;
}

long long enc_board_threat_tests(json_t *state)
{
    struct rules_options o;
    enc_state_rules(state, &o);
    json_t *map = json_object_get(state, "map");
    long long w = enc_num(map, "width"), h = enc_num(map, "height"), n = 0;
    size_t i;
    json_t *c;
    json_array_foreach(enc_combatants(state), i, c)
    {
        struct rules_creature rc;
        if (!enc_creature_of(&o, c, &rc))
            continue;
        long long box = rc.body.side + 2 * (rc.reach_ft / 5 + 1) + 2;
        n += (box < w ? box : w) * (box < h ? box : h);
    }
    return 2 * n;
}

bool enc_board_within_budgets(const struct svc_request *req, json_t *state,
                              struct svc_response *res)
{
    long long limit = svc_config_budget(req->ctx->config, SVC_BUDGET_THREAT_SQUARES);
    long long n = enc_board_threat_tests(state);
    if (limit <= 0 || n <= limit)
        return true;
    svc_problem_too_expensive(res, "threatened_squares", limit, n);
    return false;
}

void enc_cache_free(struct enc_cache *c)
{
    if (c->map_ok)
        rules_map_free(&c->map);
    svc_enc_rules_memo_free(&c->rules);
    enc_kept_free(c->kept);
    c->kept = NULL;
}

void enc_kept_free(void *kept)
{
    struct enc_kept *k = kept;
    if (k == NULL)
        return;
    svc_enc_typed_free(&k->t);
    if (k->map_ok)
        rules_map_free(&k->map);
    free(k);
}

struct enc_kept *enc_kept_folded(struct enc_kept *k, json_t *effects)
{
    if (k != NULL && !svc_enc_typed_refresh(&k->t, effects)) {
        enc_kept_free(k);
        return NULL;
    }
    if (k != NULL)
        k->checked = false;
    return k;
}

static size_t map_bytes(const struct rules_map *m)
{
    size_t squares = (size_t)m->width * (size_t)m->height;
    size_t per = 2u + (m->gap_in != NULL ? 2u : 0u) + (m->elevation != NULL ? 2u : 0u);
    return squares * per;
}

size_t enc_kept_bytes(const struct enc_kept *k)
{
    if (k == NULL)
        return 0;
    const struct rules_encounter *e = &k->t.e;
    size_t n = sizeof *k + (size_t)e->count * sizeof *k->t.combatants +
               (size_t)e->slots * sizeof *k->t.order +
               (size_t)e->reaction_count * sizeof *k->t.reactions;
    for (int i = 0; i < e->count; i++)
        n += (size_t)e->combatants[i].attack_count * sizeof *k->t.profiles +
             (size_t)e->combatants[i].timed_count * sizeof *k->t.timed;
    return n + (k->map_ok ? map_bytes(&k->map) : 0) + (k->t.map_ok ? map_bytes(&k->t.map) : 0);
}

void enc_cache_folded(struct enc_cache *c, json_t *effects)
{
    c->kept = enc_kept_folded(c->kept, effects);
}

/* The state's map, decoded on first use for the request (enc_cache); NULL when it cannot be,
 * and then the movement ruling decodes it again to report why. */
const struct rules_map *enc_state_map(struct resolve_ctx *x)
{
    struct enc_cache *c = x->cache;
    if (c != NULL && !c->map_tried && c->kept != NULL && c->kept->map_ok)
        return &c->kept->map; /* the same map: no event changes it after creation */
    if (c == NULL || c->map_tried)
        return c != NULL && c->map_ok ? &c->map : NULL;
    c->map_tried = true;
    struct svc_errors scratch;
    svc_errors_init(&scratch);
    c->map_ok = svc_decode_map(x->state, x->req->ctx->config, false, &c->map, &scratch) == 0;
    svc_errors_free(&scratch);
    return c->map_ok ? &c->map : NULL;
}

const char *const enc_defender_conditions[] = {
    "sitting", "prone",    "stunned",   "climbing",    "flat_footed", "running", "grappling",
    "pinned",  "helpless", "squeezing", "unconscious", "charging",    NULL};

json_t *enc_rules_json(json_t *state)
{
    return svc_enc_rules_json(state);
}

/* The rules in force, from the state's echo of them (stored at creation, always valid). */
void enc_state_svc_rules(json_t *state, struct svc_rules *out)
{
    svc_enc_rules_decode(state, NULL, out);
}

void enc_state_rules(json_t *state, struct rules_options *o)
{
    struct svc_rules rules;
    enc_state_svc_rules(state, &rules);
    *o = rules.options;
}

/* With action_economy: an action's ruling names its type first ("type": "attack"), the key of the
 * ActionResult union. */
void enc_tag_result(json_t *out, const char *type)
{
    json_t *result = json_object_get(out, "result");
    if (result == NULL || json_object_get(result, "type") != NULL)
        return;
    json_t *tagged = json_object();
    json_object_set_new_nocheck(tagged, "type", json_string(type));
    /* json_object_update's copy, through the iterators (it finds each member's iterator from
     * its key twice and measures the key again). */
    for (void *it = json_object_iter(result); it != NULL; it = json_object_iter_next(result, it))
        json_object_setn_nocheck(tagged, json_object_iter_key(it), json_object_iter_key_len(it),
                                 json_object_iter_value(it));
    json_object_set_new(out, "result", tagged);
}

/* ---- combatants: validation against the state ---- */

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

/* ---- the initial state and the seed's commitment ---- */

#define SALT_HEX ENC_SALT_HEX

void enc_seed_commitment(const char *salt, long long seed, char out[2 * AUTH_HASH_LEN + 1])
{
    char text[SALT_HEX + 32];
    int n = snprintf(text, sizeof text, "%s:%lld", salt, seed);
    unsigned char h[AUTH_HASH_LEN];
    auth_sha256(text, (size_t)n, h);
    auth_hex(h, sizeof h, out);
}

bool enc_salt_ok(const char *s)
{
    if (s == NULL || strlen(s) != SALT_HEX)
        return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return false;
    return true;
}

/* Moves the errors of `from` into `to`, each pointer under base. */
void enc_errors_under(struct svc_errors *from, const char *base, struct svc_errors *to)
{
    size_t i;
    json_t *err;
    json_array_foreach(from->list, i, err)
    {
        char ptr[CODEC_PTR_MAX + 64];
        snprintf(ptr, sizeof ptr, "%s%s", base, enc_str(err, "pointer"));
        json_array_append_new(to->list, json_pack("{s:s, s:O}", "pointer", ptr, "message",
                                                  json_object_get(err, "message")));
    }
    json_array_clear(from->list);
}

/* Create's validation of its body, and the state it starts: members known and valid, the map
 * within the movement endpoints' limits, a square grid. Shared by create and import, so that
 * an import starts only from a state create would have made. Error pointers go under base.
 * The seed is the body's; else, on import, the one of `given` (the exported initial state);
 * else a fresh one. Likewise the salt of the seed's commitment. NULL after adding errors. */
json_t *enc_initial_state(const struct svc_request *req, json_t *body, const char *base,
                          json_t *given, struct svc_errors *out)
{
    static const char *const known[] = {"rules", "name", "map", "seed", NULL};
    struct svc_errors e;
    svc_errors_init(&e);
    json_t *state = NULL;
    if (!codec_expect_object(body, "", &e))
        goto out;
    codec_reject_unknown(body, "", known, &e);
    struct svc_rules rules;
    if (svc_decode_rules(body, &rules, &e) && rules.options.grid == RULES_GRID_HEX)
        svc_errors_add(&e, "/rules/options/grid",
                       "encounters are played on square grids for now; hexes are ruled by the "
                       "stateless endpoints (/v1/movement, /v1/attacks, /v1/geometry)");
    const char *name = "";
    codec_get_string(body, "", "name", false, 200, &name, &e);
    long long seed = -1;
    codec_get_int(body, "", "seed", false, 0, SEED_MAX, &seed, &e);
    /* The map: the movement endpoints' own decoder checks it (limits and budget included). */
    struct rules_map decoded;
    json_t *map = json_object_get(body, "map");
    if (map == NULL)
        svc_errors_add(&e, "/map", "is required");
    else if (svc_decode_map(body, req->ctx->config, false, &decoded, &e) == 0)
        rules_map_free(&decoded);
    if (svc_errors_any(&e))
        goto out;
    json_t *gs = json_object_get(given, "seed");
    if (seed < 0 && json_is_integer(gs) && json_integer_value(gs) >= 0 &&
        json_integer_value(gs) <= SEED_MAX)
        seed = json_integer_value(gs);
    if (seed < 0) {
        uint64_t r = 0;
        if (!auth_random(&r, sizeof r)) {
            svc_errors_add(&e, "", "no random seed could be drawn; try again");
            goto out;
        }
        seed = (long long)(r % (uint64_t)(SEED_MAX + 1));
    }
    char salt[SALT_HEX + 1], commitment[2 * AUTH_HASH_LEN + 1];
    const char *gsalt = json_string_value(json_object_get(given, "seed_salt"));
    bool legacy = given != NULL && json_object_get(given, "seed_salt") == NULL;
    if (enc_salt_ok(gsalt)) {
        memcpy(salt, gsalt, sizeof salt);
    } else {
        unsigned char b[SALT_HEX / 2];
        if (!auth_random(b, sizeof b)) {
            svc_errors_add(&e, "", "no random salt could be drawn; try again");
            goto out;
        }
        auth_hex(b, sizeof b, salt);
    }
    enc_seed_commitment(salt, seed, commitment);
    state = json_pack("{s:s, s:o, s:O, s:I, s:s, s:s, s:i, s:n, s:b, s:[], s:b, s:[], s:[]}",
                      "name", name, "rules", svc_encode_rules(&rules), "map", map, "seed",
                      (json_int_t)seed, "seed_salt", salt, "seed_commitment", commitment, "round",
                      0, "turn", "started", 0, "order", "surprise", 0, "aware", "combatants");
    if (legacy) { /* exported before seeds were committed to: no salt, no commitment */
        json_object_del(state, "seed_salt");
        json_object_del(state, "seed_commitment");
    }
out:
    enc_errors_under(&e, base, out);
    svc_errors_free(&e);
    return state;
}

const char *enc_turn_of(json_t *state)
{
    json_t *turn = json_object_get(state, "turn");
    if (!json_is_integer(turn) || json_integer_value(turn) < 0)
        return NULL;
    return json_string_value(
        json_array_get(json_object_get(state, "order"), (size_t)json_integer_value(turn)));
}

void enc_serve_state(json_t *state)
{
    const char *id = enc_turn_of(state);
    json_object_set_new(state, "turn_of", id ? json_string(id) : json_null());
}

char *enc_served_state_text(json_t *state, const char *text, size_t n, size_t *out_len)
{
    const char *id = enc_turn_of(state);
    json_t *v = id ? json_string(id) : json_null();
    size_t vn = 0;
    char *value = jw_dump(v, &vn);
    json_decref(v);
    char *out = value != NULL && n >= 2 && text[n - 1] == '}' ? malloc(n + vn + 16) : NULL;
    if (out != NULL) {
        size_t k = n - 1;
        memcpy(out, text, k);
        k += (size_t)sprintf(out + k, "%s\"turn_of\":%s}", n > 2 ? "," : "", value);
        *out_len = k;
    }
    free(value);
    return out;
}

/* What a reader without the encounter's token sees of a state: the seed and its salt stay
 * private until the owner reveals them (the commitment shows), so no player can predict the
 * rolls to come. Returns a new reference. */
json_t *enc_public_state(json_t *state)
{
    if (json_is_true(json_object_get(state, "revealed")) ||
        (json_object_get(state, "seed") == NULL && json_object_get(state, "seed_salt") == NULL))
        return json_incref(state);
    json_t *copy = json_copy(state);
    json_object_del(copy, "seed");
    json_object_del(copy, "seed_salt");
    return copy;
}

/* An event's payload as a reader without the token sees it: the created event's input seed
 * and initial state are kept private as enc_public_state does (unless `revealed`). New ref. */
json_t *enc_public_payload(const char *kind, json_t *payload, bool revealed)
{
    if (revealed || !json_is_object(payload))
        return json_incref(payload);
    if (strcmp(kind, "imported") == 0) { /* the copy's own seed, set by its one effect */
        json_t *copy = json_deep_copy(payload);
        json_t *f = json_object_get(json_array_get(json_object_get(copy, "effects"), 0), "fields");
        json_object_del(f, "seed");
        json_object_del(f, "seed_salt");
        return copy;
    }
    /* An undo's init effect holds a whole state too (undo.c). */
    if (strcmp(kind, "created") != 0 && strcmp(kind, "undone") != 0)
        return json_incref(payload);
    json_t *copy = json_deep_copy(payload);
    json_object_del(json_object_get(copy, "input"), "seed");
    json_t *init = json_array_get(json_object_get(copy, "effects"), 0);
    json_t *st = json_object_get(init, "state");
    if (json_is_object(st)) {
        json_object_del(st, "seed");
        json_object_del(st, "seed_salt");
    }
    return copy;
}
