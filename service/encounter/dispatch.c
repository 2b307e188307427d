/* Encounters: resolving each kind of event but the turn machinery's (encounter_turns.c) and
 * the actions' own kinds (encounter_actions.c),
 * with the action economy and hit point states (action_economy, hp_states), the shape of each
 * event's input (check_input), and enc_resolve, which every write, verify and import goes through
 * (the model: encounter_internal.h). */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/dice/dice.h"
#include "rules/encounter/apply.h"
#include "rules/encounter/encounter.h"
#include "rules/encounter/engine.h"
#include "rules/encounter/event.h"
#include "rules/encounter/hp.h"
#include "rules/encounter/turn.h"
#include "service/codec/map.h"
#include "service/codec/ruling.h"
#include "service/encounter/internal.h"
#include "service/http/http.h"
#include "service/json/errors.h"
#include "service/json/fields.h"

/* ---- hit point states and the action economy (rules/hp.h, rules/turn.h) ---- */

/* The typed state the request keeps for the state it follows (enc_cache.follow), decoded the
 * first time; NULL when x rules another state, or when it could not be decoded (rc says why). */
static struct enc_kept *kept_of(struct resolve_ctx *x, int *rc)
{
    struct enc_cache *c = x->cache;
    *rc = SVC_ENC_TYPED_OK;
    if (c == NULL || c->follow == NULL || c->follow != x->state)
        return NULL;
    if (c->kept == NULL) {
        struct enc_kept *k = calloc(1, sizeof *k);
        if (k == NULL) {
            *rc = SVC_ENC_TYPED_NOMEM;
            return NULL;
        }
        struct svc_errors scratch;
        svc_errors_init(&scratch);
        k->map_ok = svc_decode_map(x->state, enc_config(x), false, &k->map, &scratch) == 0;
        svc_errors_free(&scratch);
        *rc = svc_enc_typed_decode_memo(x->state, x->engine, enc_config(x),
                                        k->map_ok ? &k->map : NULL, &c->rules, &k->t);
        if (*rc != SVC_ENC_TYPED_OK) {
            enc_kept_free(k);
            return NULL;
        }
        c->kept = k;
    }
    c->kept->t.e.engine = x->engine; /* the event's own: the same state, ruled as it was */
#ifndef NDEBUG
    /* Debug builds (every test suite) check each refreshed typed state against a fresh decode
     * of the state it follows. */
    if (!c->kept->checked) {
        struct svc_enc_typed fresh;
        if (svc_enc_typed_decode(x->state, x->engine, enc_config(x), c->kept->t.e.map, &fresh) ==
            SVC_ENC_TYPED_OK) {
            const char *why = svc_enc_typed_differs(&c->kept->t.e, &fresh.e);
            if (why != NULL)
                fprintf(stderr, "kept typed state differs from a fresh decode: %s\n", why);
            assert(why == NULL);
        }
        svc_enc_typed_free(&fresh);
        c->kept->checked = true;
    }
#endif
    return c->kept;
}

/* The rules in force, decoded once per event (or read from the kept typed state, which
 * decoded the same echo the same way). */
const struct svc_rules *enc_svc_rules_of(struct resolve_ctx *x)
{
    if (!x->rules_ok) {
        int rc;
        struct enc_kept *k = kept_of(x, &rc);
        if (k != NULL)
            x->rules = k->t.rules;
        else
            enc_state_svc_rules(x->state, &x->rules);
        x->rules_ok = true;
    }
    return &x->rules;
}

const struct rules_encounter *enc_typed(struct resolve_ctx *x)
{
    if (x->work != NULL)
        return &x->work->e;
    int rc = SVC_ENC_TYPED_OK;
    struct enc_kept *k = kept_of(x, &rc);
    if (k != NULL)
        return &k->t.e;
    if (!x->typed_tried) {
        x->typed_tried = true;
        if (rc == SVC_ENC_TYPED_OK)
            rc = svc_enc_typed_decode_memo(x->state, x->engine, enc_config(x), enc_state_map(x),
                                           x->cache != NULL ? &x->cache->rules : NULL, &x->typed);
        x->typed_ok = rc == SVC_ENC_TYPED_OK;
        if (!x->typed_ok)
            svc_errors_add(x->e, "", "the encounter's state could not be read (%s)",
                           rc == SVC_ENC_TYPED_NOMEM ? "out of memory" : "malformed");
    }
    return x->typed_ok ? &x->typed.e : NULL;
}

struct resolve_ctx enc_ctx_on(const struct resolve_ctx *x, json_t *scratch)
{
    struct resolve_ctx sub = *x;
    sub.state = scratch;
    sub.work = NULL;
    memset(&sub.typed, 0, sizeof sub.typed);
    sub.typed_tried = sub.typed_ok = false;
    return sub;
}

void enc_ctx_release(struct resolve_ctx *x)
{
    svc_enc_typed_free(&x->typed);
    x->typed_tried = x->typed_ok = false;
}

const struct rules_enc_combatant *enc_typed_of(struct resolve_ctx *x, json_t *c, int *at)
{
    const struct rules_encounter *e = enc_typed(x);
    int i = e != NULL ? rules_encounter_find(e, enc_str(c, "id")) : -1;
    if (at != NULL)
        *at = i;
    return i >= 0 ? &e->combatants[i] : NULL;
}

const struct rules_options *enc_rules_of(struct resolve_ctx *x)
{
    return &enc_svc_rules_of(x)->options;
}

/* The fields that set a combatant's hit points to hp: with the rule hp_states and the option on,
 * its hp_state too (d20 3.5 SRD: disabled at 0, dying below, dead at -10). */
json_t *enc_hp_fields(struct resolve_ctx *x, long long hp)
{
    json_t *f = json_pack("{s:I}", "hp", hp);
    const struct rules_options *o = enc_rules_of(x);
    if (rules_encounter_stores_hp_state(x->engine, o))
        json_object_set_new(f, "hp_state",
                            json_string(rules_hp_state_name(rules_hp_state_of(o, hp))));
    return f;
}

/* The budget members of a turn: what was spent and what is left. */
json_t *enc_turn_fields(const struct rules_turn *t, const struct rules_turn_limits *lim)
{
    struct rules_turn_left l;
    rules_turn_left(t, lim, &l);
    json_t *f = json_pack("{s:b, s:b, s:b, s:b, s:b, s:b, s:{s:b, s:b, s:b, s:b, s:b}}", "standard",
                          t->standard, "move", t->move, "full_round", t->full_round, "moved",
                          t->moved, "stepped", t->stepped, "free_facing", t->free_facing, "left",
                          "standard", l.standard, "move", l.move, "full_round", l.full_round,
                          "five_foot_step", l.five_foot_step, "free_facing", l.free_facing);
    /* The rule charge's (never set without it, so earlier turns encode as they did). */
    if (t->charged) {
        json_object_set_new(f, "charged", json_true());
        json_object_set_new(f, "charge_attacked", json_boolean(t->charge_attacked));
        json_object_set_new(json_object_get(f, "left"), "charge_attack",
                            json_boolean(l.charge_attack));
    }
    return f;
}

/* Merges the turn budget into the actor's turn in the outcome's effects (an action may set its
 * turn already: moved, ran), or adds an effect that does. */
static void stamp_turn(json_t *outcome, json_t *actor, json_t *budget)
{
    json_t *effects = json_object_get(outcome, "effects");
    const char *id = enc_str(actor, "id");
    size_t i;
    json_t *ef;
    json_array_foreach(effects, i, ef)
    {
        json_t *fields = json_object_get(ef, "fields");
        json_t *turn = json_object_get(fields, "turn");
        if (strcmp(enc_str(ef, "target"), id) == 0 && json_is_object(turn)) {
            json_object_update(turn, budget);
            json_decref(budget);
            return;
        }
    }
    json_t *turn = json_deep_copy(json_object_get(actor, "turn"));
    if (!json_is_object(turn)) {
        json_decref(turn);
        turn = json_object();
    }
    json_object_update(turn, budget);
    json_decref(budget);
    json_array_append_new(effects, enc_effect_set(id, json_pack("{s:o}", "turn", turn)));
}

/* ---- resolving each kind of event ----
 * Each takes the state before the event, the input and the event's number, and returns
 * {"result": ..., "effects": [...]} or NULL after adding errors. */

static json_t *resolve_add(struct resolve_ctx *x, json_t *in)
{
    if (json_array_size(enc_combatants(x->state)) >= MAX_COMBATANTS) {
        svc_errors_add(x->e, "", "an encounter holds at most %d combatants", MAX_COMBATANTS);
        return NULL;
    }
    json_t *assumed = json_array();
    json_t *c = enc_check_combatant(x->state, in, "", NULL, x->engine, assumed, x->e);
    if (c == NULL || !enc_check_place(x, c, "")) {
        json_decref(c);
        json_decref(assumed);
        return NULL;
    }
    json_object_set_new(c, "turn", json_object());
    /* join_state: its hit point state from the start, so that one joining at 0 hp or below is
     * disabled, dying or dead at once (before, only from its first change). */
    if (rules_encounter_joins_with_hp_state(x->engine, enc_rules_of(x))) {
        json_t *hf = enc_hp_fields(x, enc_num(c, "hp"));
        json_object_update(c, hf);
        json_decref(hf);
    }
    json_t *result = json_pack("{s:s}", "added", enc_str(c, "id"));
    /* What it was taken to have where it stated nothing or its AC whole. */
    if (json_array_size(assumed) > 0)
        json_object_set_new(result, "assumed", assumed);
    else
        json_decref(assumed);
    return enc_outcome(result, json_pack("[{s:s, s:o}]", "op", "add", "combatant", c));
}

static json_t *resolve_update(struct resolve_ctx *x, json_t *in)
{
    const char *id = enc_str(in, "id");
    json_t *old = enc_find(x->state, id, NULL);
    if (old == NULL) {
        svc_errors_add(x->e, "", "no combatant '%s'", id);
        return NULL;
    }
    json_t *fields = json_object_get(in, "fields");
    if (json_object_get(fields, "id") != NULL) {
        svc_errors_add(x->e, "/id", "cannot be changed");
        return NULL;
    }
    json_t *c = enc_check_combatant(x->state, fields, "", id, x->engine, NULL, x->e);
    if (c == NULL)
        return NULL;
    json_decref(c);
    /* Its place is ruled again when the change touches it; with placing only then, so that one
     * pushed where its speeds do not go (forced movement) can still have its other members
     * changed. */
    bool touches = false;
    for (int k = 0; rules_encounter_place_members[k] != NULL && !touches; k++)
        touches = json_object_get(fields, rules_encounter_place_members[k]) != NULL;
    bool moved = rules_encounter_update_checks_place(x->engine, touches);
    json_t *merged = json_deep_copy(old);
    json_object_update(merged, fields);
    bool ok = !moved || enc_check_place(x, merged, "");
    json_decref(merged);
    if (!ok)
        return NULL;
    json_t *set = json_deep_copy(fields);
    if (rules_encounter_stores_hp_state(x->engine, enc_rules_of(x)) &&
        json_is_integer(json_object_get(fields, "hp"))) {
        json_t *hf = enc_hp_fields(x, enc_num(fields, "hp"));
        json_object_update(set, hf);
        json_decref(hf);
    }
    return enc_outcome(json_pack("{s:s}", "updated", id),
                       json_pack("[o]", enc_effect_set(id, set)));
}

/* The turn gate's refusal as the action answers it, shared with GET .../route (internal.h). */
const char *enc_admit_refusal(const struct rules_encounter *te, const struct rules_enc_action *act,
                              int rc, const struct rules_admission *adm, const char *now,
                              struct svc_errors *e)
{
    const struct rules_enc_combatant *c = &te->combatants[act->actor];
    switch (rc) {
    case RULES_ADMIT_NOT_ITS_TURN:
        svc_errors_add(e, "/actor", "it is %s's turn (004 The Combat Round)", now ? now : "nobody");
        return "not_its_turn";
    case RULES_ADMIT_DOWN:
        if (!rules_hp_acts(adm->hp_state))
            svc_errors_add(e, "/actor", "is %s at %d hp: it takes no actions (%s)",
                           rules_hp_state_name(adm->hp_state), c->hp, RULES_HP_SOURCE);
        else
            svc_errors_add(e, "/actor", "is unconscious or helpless");
        return "down";
    case RULES_ADMIT_STUNNED:
        svc_errors_add(e, "/actor", "is stunned: it can't take actions (d20 3.5 SRD, Stunned)");
        return "stunned";
    case RULES_ADMIT_ENGINE:
        svc_errors_add(e, "/type", "%s is ruled from engine %d on",
                       rules_action_type_names[act->type], adm->kind.from_engine);
        return "engine";
    case RULES_ADMIT_NOT_PRONE:
        svc_errors_add(e, "/actor", "is not prone");
        return "not_prone";
    case RULES_ADMIT_BUDGET: {
        char left[160];
        rules_turn_describe_left(&adm->turn, &adm->limits, left, sizeof left);
        svc_errors_add(e, "/type", "%s is refused: %s (%s); left this turn: %s",
                       rules_action_name(adm->cost), adm->why.message, adm->why.rule, left);
        return "turn_spent";
    }
    default:
        return NULL;
    }
}

static json_t *resolve_action(struct resolve_ctx *x, json_t *in)
{
    static const char *const known[] = {"type",
                                        "actor",
                                        "target",
                                        "attack",
                                        "kind",
                                        "cover",
                                        "concealment",
                                        "results",
                                        "path",
                                        "mode",
                                        "end_facing",
                                        "withdraw",
                                        "facing",
                                        "squares",
                                        "reduction_squares",
                                        "fall_prone_at",
                                        "voluntarily_prone",
                                        SVC_FALL_MEMBERS,
                                        "condition",
                                        "rounds",
                                        "reactions",
                                        "reaction_results",
                                        "plan",
                                        "to",
                                        "bonus",
                                        NULL};
    codec_reject_unknown(in, "", known, x->e);
    int type = codec_get_enum(in, "", "type", rules_action_type_names, true, -1, x->e);
    const char *actor_id = NULL;
    codec_get_string(in, "", "actor", true, 64, &actor_id, x->e);
    json_t *actor = actor_id ? enc_find(x->state, actor_id, NULL) : NULL;
    if (actor_id != NULL && actor == NULL)
        svc_errors_add(x->e, "/actor", "names no combatant");
    if (svc_errors_any(x->e) || type < 0 || actor == NULL)
        return NULL;
    /* The turn's gate (rules_encounter_admit): whose turn, who is down, what it spends. */
    struct rules_enc_action act = {.type = (enum rules_action_type)type,
                                   .aoo = strcmp(enc_str(in, "kind"), "attack_of_opportunity") == 0,
                                   .mode = RULES_MODE_MOVE};
    if (type == RULES_ACT_MOVE) {
        int m = enc_move_mode(in, x->e);
        if (m < 0)
            return NULL;
        act.mode = (enum rules_move_mode)m;
    }
    if (!enc_check_action_shape(in, act.type, x->engine, x->e)) /* whatever the turn */
        return NULL;
    /* The turn's gate on the typed state: whose turn, who is down, what it spends. */
    const struct rules_encounter *te = enc_typed(x);
    if (te == NULL)
        return NULL;
    act.actor = rules_encounter_find(te, actor_id);
    struct rules_admission adm;
    int rc = rules_encounter_admit(te, &act, &adm);
    if (rc != RULES_ADMIT_OK)
        enc_admit_refusal(te, &act, rc, &adm, enc_turn_of(x->state), x->e);
    if (rc != RULES_ADMIT_OK)
        return NULL;
    /* The action may spend more of the turn as it is ruled (x->turn); its budget is stamped
     * once it is. */
    x->turn = adm.spends ? &adm.turn : NULL;
    x->limits = &adm.limits;
    json_t *out = enc_resolve_action_kind(x, in, actor, (enum rules_action_type)type);
    x->turn = NULL;
    if (out != NULL && adm.kind.named)
        enc_tag_result(out, rules_action_type_names[type]);
    if (adm.spends && out != NULL)
        stamp_turn(out, actor, enc_turn_fields(&adm.turn, &adm.limits));
    return out;
}

/* Reveals the seed and the salt of its commitment, so that anyone can check every roll of the
 * log (provably fair dice). It ends the encounter: with the seed known, every roll to come
 * could be predicted, so enc_resolve() refuses any event after it. */
static json_t *resolve_reveal(struct resolve_ctx *x, json_t *in)
{
    (void)in;
    json_t *s = x->state;
    json_t *result = json_pack("{s:O, s:s}", "seed", json_object_get(s, "seed"), "rule",
                               "the seed behind every roll; SHA-256 of \"<seed_salt>:<seed>\" is "
                               "the seed_commitment shown since creation");
    if (json_object_get(s, "seed_salt") != NULL) {
        json_object_set(result, "seed_salt", json_object_get(s, "seed_salt"));
        json_object_set(result, "seed_commitment", json_object_get(s, "seed_commitment"));
    }
    return enc_outcome(
        result, json_pack("[o]", enc_effect_set("encounter", json_pack("{s:b}", "revealed", 1))));
}

/* The shape of each event kind's input, checked before it is resolved, wherever it came from:
 * a live request (whose handler built it from the body and the path), an imported log, or
 * the stored log that verify re-resolves. So an import can only hold what the live operations
 * would have accepted, and no resolver meets a member of the wrong type. */
/* The table's dice an event may give (in.results, at most max): each a whole 1 to sides, else
 * msg at its pointer. */
static void check_results(json_t *in, size_t max, long long sides, const char *msg,
                          struct svc_errors *e)
{
    json_t *list;
    if (!codec_get_array(in, "", "results", false, max, &list, e))
        return;
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v)
    {
        if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > sides) {
            char p[32];
            snprintf(p, sizeof p, "/results/%zu", i);
            svc_errors_add(e, p, "%s", msg);
        }
    }
}

static bool check_input(const char *kind, json_t *in, int engine, struct svc_errors *e)
{
    size_t before = json_array_size(e->list);
    if (!codec_expect_object(in, "", e))
        return false;
    const char *s = NULL;
    if (strcmp(kind, "combatant_added") == 0 || strcmp(kind, "action") == 0) {
        /* enc_check_combatant and resolve_action check every member themselves. */
    } else if (strcmp(kind, "combatant_updated") == 0) {
        static const char *const known[] = {"id", "fields", NULL};
        codec_reject_unknown(in, "", known, e);
        codec_get_string(in, "", "id", true, 64, &s, e);
        json_t *fields = json_object_get(in, "fields");
        if (fields == NULL)
            svc_errors_add(e, "/fields", "is required");
        else
            codec_expect_object(fields, "/fields", e);
    } else if (strcmp(kind, "combatant_removed") == 0) {
        static const char *const known[] = {"id", NULL};
        codec_reject_unknown(in, "", known, e);
        codec_get_string(in, "", "id", true, 64, &s, e);
    } else if (strcmp(kind, "initiative") == 0) {
        static const char *const known[] = {"aware", "results", NULL};
        codec_reject_unknown(in, "", known, e);
        json_t *list;
        if (codec_get_array(in, "", "aware", false, MAX_COMBATANTS, &list, e)) {
            size_t i;
            json_t *v;
            json_array_foreach(list, i, v)
            {
                char p[32];
                snprintf(p, sizeof p, "/aware/%zu", i);
                if (!json_is_string(v))
                    svc_errors_add(e, p, "must be a combatant id");
                for (size_t j = 0;
                     rules_encounter_checks_shapes(engine) && json_is_string(v) && j < i; j++)
                    if (json_equal(json_array_get(list, j), v)) {
                        svc_errors_add(e, p, "is listed already (aware/%zu)", j);
                        break;
                    }
            }
        }
        check_results(in, 2 * MAX_COMBATANTS, 20, "must be a die result", e);
    } else if (strcmp(kind, "hp") == 0) {
        static const char *const known[] = {"target", "change", "set", "reason", NULL};
        codec_reject_unknown(in, "", known, e);
        long long v = 0;
        codec_get_string(in, "", "target", true, 64, &s, e);
        bool change = codec_get_int(in, "", "change", false, RULES_HP_MIN, RULES_HP_MAX, &v, e);
        bool set = codec_get_int(in, "", "set", false, RULES_HP_MIN, RULES_HP_MAX, &v, e);
        if (change == set && json_object_get(in, "change") == NULL &&
            json_object_get(in, "set") == NULL)
            svc_errors_add(e, "", "give change (damage below 0, healing above) or set");
        else if (json_object_get(in, "change") != NULL && json_object_get(in, "set") != NULL)
            svc_errors_add(e, "/set", "give change or set, not both");
        codec_get_string(in, "", "reason", false, 200, &s, e);
    } else if (strcmp(kind, "next_turn") == 0 && rules_encounter_keeps_sources(engine)) {
        /* srd_dying: the table's d% for the dying whose turns come up (rules_hp_dying_round). */
        static const char *const known[] = {"results", NULL};
        codec_reject_unknown(in, "", known, e);
        check_results(in, MAX_COMBATANTS, 100, "must be a d% result, 1 to 100", e);
    } else if (strcmp(kind, "next_turn") == 0 || strcmp(kind, "revealed") == 0 ||
               strcmp(kind, "undone") == 0) {
        if (json_object_size(in) > 0)
            svc_errors_add(e, "", "takes no members");
    } else {
        svc_errors_add(e, "", "unknown event kind '%s'", kind);
    }
    return json_array_size(e->list) == before;
}

/* Whether event `kind` with input in answers an open reaction (rules_encounter_answers_reaction:
 * an attack of opportunity, or a decline). */
static bool answers_reaction(const char *kind, json_t *in, int engine)
{
    int type = strcmp(kind, "action") == 0 ? rules_action_type_of(enc_str(in, "type")) : -1;
    return rules_encounter_answers_reaction(
        engine, type, strcmp(enc_str(in, "kind"), "attack_of_opportunity") == 0);
}

bool enc_awaits_no_reaction(const struct rules_encounter *te, struct svc_errors *e)
{
    char open[400];
    size_t used = 0;
    int n = 0;
    for (int i = 0; i < te->reaction_count; i++) {
        const struct rules_enc_reaction *r = &te->reactions[i];
        if (!rules_encounter_awaits_reaction((int)r->policy) || used >= sizeof open)
            continue;
        used += (size_t)snprintf(open + used, sizeof open - used,
                                 "%s'%s' against '%s' (step %lld, leaving %lld,%lld)",
                                 n++ ? "; " : "", r->by >= 0 ? te->combatants[r->by].id : "",
                                 r->mover >= 0 ? te->combatants[r->mover].id : "",
                                 (long long)r->step, (long long)r->x, (long long)r->y);
    }
    if (n == 0)
        return true;
    svc_errors_add(e, "",
                   "the encounter is awaiting reactions: %s. Each reactor answers with an attack "
                   "of opportunity or declines it (type decline_reaction) before anything else "
                   "(004 Attacks of Opportunity)",
                   open);
    return false;
}

/* Resolves an event of `kind` against state (the state before it), after checking its input
 * (check_input). */
json_t *enc_resolve(const struct svc_request *req, struct enc_cache *cache, json_t *state,
                    const char *kind, json_t *in, long long seq, int engine, struct svc_errors *e)
{
    struct resolve_ctx x = {
        .req = req, .cache = cache, .state = state, .seq = seq, .engine = engine, .e = e};
    if (!rules_engine_known(engine)) {
        svc_errors_add(e, "", "engine %d is not one this server rules (1 to %d)", engine,
                       RULES_ENGINE_VERSION);
        return NULL;
    }
    if (!check_input(kind, in, engine, e))
        return NULL;
    if (json_is_true(json_object_get(state, "revealed"))) {
        svc_errors_add(e, "",
                       "the encounter is finished: its seed was revealed, so its rolls are no "
                       "longer secret");
        return NULL;
    }
    /* An undo may take back the move that opened the reactions. While a reaction the encounter
     * waits for is open (a reactor's aoo_policy or the mover's decision was ask), only an answer
     * or a decline is ruled (enc_awaits_no_reaction, on the typed state). */
    bool undo = strcmp(kind, "undone") == 0;
    bool answers = answers_reaction(kind, in, engine);
    const struct rules_encounter *te = undo ? NULL : enc_typed(&x);
    if (!undo && (te == NULL || (!answers && !enc_awaits_no_reaction(te, e)))) {
        enc_ctx_release(&x);
        return NULL;
    }
    /* One resolver per kind of event (created is made by enc_initial_state, never resolved). */
    static json_t *(*const resolver[RULES_EVENT_KIND_COUNT])(struct resolve_ctx *, json_t *) = {
        [RULES_EVENT_COMBATANT_ADDED] = resolve_add,
        [RULES_EVENT_COMBATANT_UPDATED] = resolve_update,
        [RULES_EVENT_COMBATANT_REMOVED] = enc_resolve_remove,
        [RULES_EVENT_INITIATIVE] = enc_resolve_initiative,
        [RULES_EVENT_NEXT_TURN] = enc_resolve_next_turn,
        [RULES_EVENT_ACTION] = resolve_action,
        [RULES_EVENT_REVEALED] = resolve_reveal,
        [RULES_EVENT_HP] = enc_resolve_hp,
        [RULES_EVENT_UNDONE] = enc_resolve_undo,
    };
    int k = rules_event_kind_of(kind);
    json_t *out = NULL;
    if (k >= 0 && resolver[k] != NULL)
        out = resolver[k](&x, in);
    else
        svc_errors_add(e, "", "unknown event kind '%s'", kind);
    /* The reactions a move left open last only until the next event that is not one
     * of them (an attack of opportunity consumes its own, a decline too). */
    int open = te != NULL ? te->reaction_count : 0; /* an undo closes none */
    if (out != NULL && rules_encounter_event_closes_reactions(engine, open, answers, undo))
        json_array_insert_new(json_object_get(out, "effects"), 0,
                              enc_effect_set("encounter", json_pack("{s:[]}", "reactions")));
    enc_ctx_release(&x);
    return out;
}
