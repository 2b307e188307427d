/* Encounters: the state and what rules on it. Small helpers over the state JSON, effects and
 * the fold, calling the stateless rulings (and the map they share for a request), the initial
 * state with the seed's commitment, and what a reader without the token sees of a state (the
 * model: internal.h). Combatant validation is in combatants.c. */
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
#include "text/decimal.h"
#include "text/text.h"

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

/* v in decimal at out (room for TEXT_DECIMAL_MAX characters); returns its length. */
static size_t decimal(char *out, long long v)
{
    char num[TEXT_DECIMAL_MAX];
    size_t n;
    const char *p = text_decimal(num, v, false, &n);
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
    free(c->result_text);
    c->result_text = NULL;
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
