/* GET /v1/encounters/{id}/odds?actor=A&target=T: the odds of A's attack on T before
 * anyone rolls, from the stored state, so a bot never re-sends the map, the placements, the
 * profiles or the hit points. The request is the one the encounter's own attack action rules
 * (enc_attack_req: the stored combatants read into the attack request's structs), answered by
 * POST /v1/attacks/odds's code, so the two can never differ.
 *
 * Decisions where the issue is silent (also in openapi.yaml):
 *  - ?attack names the actor's attack profile (default its first); ?full=true asks for the
 *    full attack's iterative attacks from its base attack bonus, as the full_attack action
 *    makes them (d20 3.5 SRD, Full Attack: each 5 less).
 *  - ?cover and ?concealment are declared the way the attack action takes them (the seeds
 *    leave cover to the table): cover=half, concealment=darkness,fog.
 *  - ?at=N asks about the board after event N (default: now), as state and map do.
 *  - The target's hit points give drop_chance (and kill_chance under hp_states srd) when they
 *    are above 0; a target already at 0 or below gets kill_chance only through its own
 *    numbers, so none is given.
 *  - A melee attack the actor cannot reach from where it stands is refused as the action
 *    would be: odds of an attack that cannot be made would mislead. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "rules/encounter/event.h"
#include "rules/encounter/hp.h"
#include "service/codec/attack.h"
#include "service/codec/odds.h"
#include "service/encounter/encounter.h"
#include "service/encounter/internal.h"
#include "service/http/http.h"
#include "service/http/problem.h"
#include "service/json/errors.h"

/* ?concealment=a,b as the attack request's list of names. */
static json_t *name_list(const char *q)
{
    json_t *list = json_array();
    const char *p = q;
    while (*p != '\0') {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        json_t *name = json_stringn(p, n);
        if (name == NULL) { /* not UTF-8 */
            json_decref(list);
            return NULL;
        }
        json_array_append_new(list, name);
        p += n + (comma != NULL);
    }
    return list;
}

/* The query's actor, target and attack (the actor's profile it names, or its first) and
 * whether it asks for a full attack; the errors go to e (the query parameter named). */
static void odds_subject(const struct svc_request *req, json_t *state, json_t **actor,
                         json_t **target, json_t **atk, bool *full_attack, struct svc_errors *e)
{
    const char *attack = svc_request_query(req, "attack");
    const char *full = svc_request_query(req, "full");
    *actor = enc_combatant_query(req, state, "actor", e);
    *target = enc_combatant_query(req, state, "target", e);
    if (*actor != NULL && *actor == *target)
        enc_bad_query(e, "target", "must be another combatant than the actor");
    *full_attack = false;
    if (full != NULL && strcmp(full, "true") != 0 && strcmp(full, "false") != 0)
        enc_bad_query(e, "full", "must be true or false");
    else
        *full_attack = full != NULL && strcmp(full, "true") == 0;
    *atk = NULL;
    if (*actor != NULL) {
        *atk = enc_find_attack(*actor, attack ? attack : "");
        if (*atk == NULL)
            enc_bad_query(e, "attack",
                          attack ? "names no attack of the actor"
                                 : "the actor has no attack profile");
    }
}

/* Whether the action could make it (rules_encounter_attack_check, as the attack action asks):
 * odds of an attack that cannot be made would mislead. Fills gate and *iterative (the attacks a
 * full attack of the actor makes: rules_encounter_iterative_of); the refusal goes to e. */
static void odds_gate(const struct svc_request *req, json_t *state, json_t *actor, json_t *target,
                      json_t *atk, struct rules_enc_attack_gate *gate, int *iterative,
                      struct svc_errors *e)
{
    assert(actor != NULL && target != NULL && atk != NULL && actor != target);
    struct svc_enc_typed typed = {0};
    int ai = -1, ti = -1, p = -1, rc = RULES_ENC_ATTACK_REACH;
    if (svc_enc_typed_decode(state, RULES_ENGINE_VERSION, req->ctx->config, NULL, &typed) ==
        SVC_ENC_TYPED_OK) {
        ai = rules_encounter_find(&typed.e, enc_str(actor, "id"));
        ti = rules_encounter_find(&typed.e, enc_str(target, "id"));
        p = ai >= 0 ? rules_encounter_profile(&typed.combatants[ai], enc_str(atk, "name")) : -1;
    }
    if (ai >= 0 && ti >= 0 && p >= 0) {
        rc = rules_encounter_attack_gate(&typed.e, ai, ti, p, false, NULL, gate);
        *iterative = rules_encounter_iterative_of(&typed.e, ai);
    }
    if (rc == RULES_ENC_ATTACK_REACH)
        enc_bad_query(e, "target", "is out of reach of the attack: " ENC_REACH_RULE);
    else if (rc == RULES_ENC_ATTACK_CHARGE_TARGET)
        enc_bad_query(e, "target",
                      "the charge's attack is at its designated opponent (" RULES_SRC_CHARGE ")");
    else if (rc == RULES_ENC_ATTACK_CHARGE_MELEE)
        enc_bad_query(e, "attack",
                      "a charge ends in a melee attack, and this is not one (" RULES_SRC_CHARGE
                      ")");
    svc_enc_typed_free(&typed);
}

/* The query's cover and concealment, declared into in as the action's own are; the errors go
 * to e. */
static void odds_declared(const struct svc_request *req, json_t *in, struct svc_errors *e)
{
    const char *cover = svc_request_query(req, "cover");
    json_t *v = cover ? json_string(cover) : NULL;
    if (cover != NULL && v == NULL)
        enc_bad_query(e, "cover", "must be a cover name (none, quarter, half, ...)");
    else if (v != NULL)
        json_object_set_new(in, "cover", v);
    const char *conc = svc_request_query(req, "concealment");
    v = conc ? name_list(conc) : NULL;
    if (conc != NULL && v == NULL)
        enc_bad_query(e, "concealment", "must be a comma-separated list of concealment names");
    else if (v != NULL)
        json_object_set_new(in, "concealment", v);
}

/* The attack the action would rule (enc_attack_req: the stored combatants as structs, with what
 * the action would derive: Dex to AC, cover and concealment from the map), into ar. What the
 * request itself refuses goes to mine, answered with the odds; total cover goes to e, named by
 * the query. */
static void odds_request(const struct svc_request *req, json_t *state, json_t *in, json_t *actor,
                         json_t *target, json_t *atk, const struct rules_enc_attack_gate *gate,
                         struct attack_request *ar, struct svc_errors *mine, struct svc_errors *e)
{
    struct enc_cache cache = {0};
    struct resolve_ctx x = {
        .req = req, .cache = &cache, .state = state, .engine = RULES_ENGINE_VERSION, .e = e};
    bool charging = gate->charge_attack; /* the charge's +2, as the action rules it */
    if (!enc_attack_req(&x, in, actor, target, atk, false, charging, NULL, ar, mine, NULL)) {
        /* total cover: as the action, but named by the query */
        json_t *item = json_array_get(e->list, json_array_size(e->list) - 1);
        if (item != NULL)
            json_object_set_new(item, "pointer", json_string("?target"));
    }
    enc_ctx_release(&x);
    enc_cache_free(&cache);
}

/* The target's hit points above 0 (drop and kill chances), and a full attack's bonuses (of its
 * `iterative` attacks), into extras; the errors go to e. */
static void odds_extras(json_t *target, json_t *atk, bool full_attack, int iterative,
                        struct svc_odds_extras *extras, struct svc_errors *e)
{
    long long hp = enc_num(target, "hp");
    if (json_object_get(target, "hp") != NULL && hp > 0 && hp <= RULES_HP_MAX)
        extras->hp = (int)hp;
    else if (hp > RULES_HP_MAX)
        svc_errors_add(e, "/defender/hp", "must be from 1 to %d", RULES_HP_MAX);
    for (int i = 0; full_attack && i < iterative; i++) {
        long long bonus = enc_num(atk, "attack_bonus") + rules_iterative_penalty(i);
        if (bonus < -100 || bonus > 100) {
            char ptr[32];
            snprintf(ptr, sizeof ptr, "/attacks/%d", i);
            svc_errors_add(e, ptr, "must be an attack bonus from -100 to 100");
        }
        assert(extras->attack_count < (int)(sizeof extras->attacks / sizeof extras->attacks[0]));
        extras->attacks[extras->attack_count++] = (int)bonus;
    }
}

void svc_handle_encounter_odds(const struct svc_request *req, struct svc_response *res)
{
    int64_t at = 0, version = 0;
    json_t *state = svc_encounter_state_at(req, res, &at, &version);
    if (state == NULL)
        return;
    struct svc_errors e, mine; /* mine: what the attack request itself refuses */
    svc_errors_init(&e);
    svc_errors_init(&mine);
    json_t *actor, *target, *atk;
    bool full_attack;
    odds_subject(req, state, &actor, &target, &atk, &full_attack, &e);
    struct rules_enc_attack_gate gate = {0};
    int iterative = 1;
    if (atk != NULL && target != NULL && actor != target)
        odds_gate(req, state, actor, target, atk, &gate, &iterative, &e);
    struct attack_request ar = {0};
    if (!svc_errors_any(&e)) {
        /* The query's cover and concealment are declared as the action's own are, and win. */
        json_t *in = json_object();
        odds_declared(req, in, &e);
        if (!svc_errors_any(&e))
            odds_request(req, state, in, actor, target, atk, &gate, &ar, &mine, &e);
        json_decref(in);
    }
    if (svc_errors_any(&e)) {
        svc_errors_respond(&e, res);
    } else {
        struct svc_odds_extras extras = {0};
        odds_extras(target, atk, full_attack, iterative, &extras, &e);
        json_array_extend(e.list, mine.list);
        struct svc_odds_context ctx = {.id = req->params[0],
                                       .actor = enc_str(actor, "id"),
                                       .target = enc_str(target, "id"),
                                       .attack = enc_str(atk, "name"),
                                       .at = at,
                                       .full_attack = full_attack};
        svc_attack_odds_answer_req(req, &ar, &extras, &ctx, &e, res);
    }
    svc_errors_free(&e);
    svc_errors_free(&mine);
    free(ar.allies);
    json_decref(state);
}
