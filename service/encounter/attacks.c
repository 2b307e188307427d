/* Encounters: the attack actions (an attack, an attack of opportunity; the full attack's own
 * plan is full_attack.c, which makes each of its attacks here, enc_attack_on): the attack set up
 * on the typed state (rules_encounter_attack_setup) into POST /v1/attacks/resolve's request
 * structs (enc_attack_req, shared with the encounter's odds), admitted and ruled by rules/
 * (rules_encounter_attack_gate, rules_encounter_attack), the answer written by the endpoint's
 * own writer (svc_attack_answer_ruled). An attack of opportunity (the rule reactions) answers a
 * reaction a move opened (reactions.c); the ones the engine makes itself are ruled from the
 * reaction by rules_encounter_opportunity (enc_opportunity). Each returns {"result": ...,
 * "effects": [...]} or NULL after adding errors (the model: internal.h). */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/attack/ability.h"
#include "rules/board/cover.h"
#include "rules/encounter/apply.h"
#include "rules/encounter/engine.h"
#include "rules/encounter/event.h"
#include "rules/encounter/hp.h"
#include "rules/encounter/kind.h"
#include "rules/encounter/opportunity.h"
#include "rules/encounter/reaction.h"
#include "service/codec/answer.h"
#include "service/codec/attack.h"
#include "service/codec/creature.h"
#include "service/codec/dice.h"
#include "service/encounter/internal.h"
#include "service/http/problem.h"
#include "service/json/errors.h"
#include "service/json/fields.h"

/* The attack profile named `name` of a combatant (its first when name is empty), or NULL. */
json_t *enc_find_attack(json_t *actor, const char *name)
{
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(actor, "attacks"), i, a)
    {
        if (*name == '\0' || strcmp(enc_str(a, "name"), name) == 0)
            return a;
    }
    return NULL;
}

/* The squares of sight's list as [{x, y, combatant?}] to w. A square's creature is the setup's
 * others[creature], whose combatant index is index[creature]. */
static void write_squares(struct jw *w, const struct rules_encounter *te,
                          const struct rules_cover_square *sq, int n, const int *index)
{
    jw_array_begin(w);
    for (int i = 0; i < n; i++) {
        jw_object_begin(w);
        JW_INT(w, "x", sq[i].x);
        JW_INT(w, "y", sq[i].y);
        if (sq[i].creature >= 0)
            JW_STRING(w, "combatant", te->combatants[index[sq[i].creature]].id);
        jw_object_end(w);
    }
    jw_array_end(w);
}

/* With derived_defense: what the encounter derived for the attack ask set up as s, telling where
 * each came from: {"defense_dex"?, "cover"?, "concealment"?}, to w: as a value, or as text for
 * an attack whose answer is kept as text (json_pack read its format at every attack, ~15k
 * instructions of an action, and the value was then dumped and freed). */
static void write_derived(struct jw *w, const struct rules_encounter *te,
                          const struct rules_enc_attack_ask *ask,
                          const struct rules_enc_attack_setup *s, const int *index)
{
    jw_object_begin(w);
    if (s->derived_dex) {
        JW_KEY(w, "defense_dex");
        jw_object_begin(w);
        JW_INT(w, "value", s->dex);
        JW_INT(w, "from_dex", s->dex_score);
        JW_STRING(w, "source", RULES_ABILITY_MODIFIER_SOURCE);
        jw_object_end(w);
    }
    if (s->sighted && s->sight_rc != RULES_COVER_OK) {
        JW_KEY(w, "cover");
        jw_object_begin(w);
        JW_STRING(w, "derived", "no");
        JW_STRING(w, "why",
                  s->sight_rc == RULES_COVER_ERR_HEX
                      ? "the SRD's lines are drawn on squares, and this map is hexes"
                      : "the creatures are too large to rule");
        jw_object_end(w);
    } else if (s->sighted) {
        const struct rules_sight *v = &s->sight;
        JW_KEY(w, "cover");
        jw_object_begin(w);
        JW_STRING(w, "value", rules_degree_names[v->cover]);
        JW_STRING(w, "rule", v->melee_adjacent ? "melee" : "ranged");
        JW_KEY(w, "blocking");
        write_squares(w, te, v->blocking, v->blocking_count, index);
        JW_KEY(w, "corner");
        jw_array_begin(w);
        jw_int(w, v->corner_x);
        jw_int(w, v->corner_y);
        jw_array_end(w);
        JW_INT(w, "lines", v->lines);
        JW_INT(w, "lines_blocked", v->lines_blocked);
        JW_BOOL(w, "declared", ask->cover_declared);
        JW_STRING(w, "source", RULES_COVER_SOURCE);
        jw_object_end(w);
        JW_KEY(w, "concealment");
        jw_object_begin(w);
        JW_STRING(w, "value", rules_degree_names[v->concealment]);
        JW_KEY(w, "concealing");
        write_squares(w, te, v->concealing, v->concealing_count, index);
        JW_BOOL(w, "darkvision", te->combatants[ask->a].darkvision);
        JW_BOOL(w, "declared", ask->concealment_declared);
        JW_STRING(w, "source", RULES_CONCEALMENT_SOURCE);
        jw_object_end(w);
    }
    jw_object_end(w);
}

/* write_derived as a new value. */
static json_t *derived_json(const struct rules_encounter *te,
                            const struct rules_enc_attack_ask *ask,
                            const struct rules_enc_attack_setup *s, const int *index)
{
    struct jw w;
    jw_init_tree(&w);
    write_derived(&w, te, ask, s, index);
    return jw_finish_tree(&w);
}

/* text[0..*len), an object's text (malloc'd), with the member "name": value[0..n) added last:
 * the new text (the old is freed), or NULL when out of memory (text freed too). */
static char *with_member(char *text, size_t *len, const char *name, const char *value, size_t n)
{
    size_t k = strlen(name), at = *len - 1; /* at the closing brace */
    bool comma = *len > 2;
    char *t = realloc(text, *len + k + n + 5);
    if (t == NULL) {
        free(text);
        return NULL;
    }
    char *o = t + at;
    if (comma)
        *o++ = ',';
    *o++ = '"';
    memcpy(o, name, k), o += k;
    *o++ = '"', *o++ = ':';
    memcpy(o, value, n), o += n;
    *o++ = '}';
    *o = '\0';
    *len = (size_t)(o - t);
    return t;
}

/* The refusal of an attack the state puts behind total cover, at /target (x->e). */
static void total_cover(struct resolve_ctx *x, const char *attacker)
{
    svc_errors_add(x->e, "/target",
                   "has total cover from '%s': every line from its square to the target's "
                   "crosses a wall (d20 3.5 SRD, Combat: Total Cover; 002 Table: Cover, "
                   "Total)",
                   attacker);
}

/* The attack set up as s (rules_encounter_attack_setup) as POST /v1/attacks/resolve's request
 * structs, for its writer, with what that endpoint's decoder would still refuse in e (the
 * bounds of a bonus, a damage that is no dice expression, a missing Defense): the encounter's
 * rules, both sides, the allies (borrowed), the derived cover and concealment, the damage and
 * its threat range, the defender's damage reduction. The cover and concealment the action
 * declares are the caller's to decode next (svc_attack_decode_declared), then what the setup
 * derived (derived_into). */
static void request_of(struct resolve_ctx *x, const struct rules_enc_combatant *whom,
                       const struct rules_enc_attack_setup *s, struct rules_creature *allies,
                       struct attack_request *r, struct svc_errors *e)
{
    r->rules = *enc_svc_rules_of(x);
    r->a = s->attacker;
    r->d = s->defender;
    r->allies = allies;
    r->ally_count = s->ally_count;
    if (r->a.attack_bonus < -100 || r->a.attack_bonus > 100) /* the endpoint's bound */
        svc_errors_add(e, "/attacker/attack_bonus", "must be from -100 to 100");
    r->crit_range = s->params.crit_range;
    r->crit_multiplier = s->params.crit_multiplier;
    r->damage = s->damage;
    if (s->damage != NULL)
        r->damage_expr = s->damage_expr;
    if (s->damage_rc != RULES_DICE_OK)
        svc_errors_add(e, "/attacker/damage", "%s (at character %zu)",
                       rules_dice_strerror(s->damage_rc), s->damage_at);
    if (!whom->has_defense)
        svc_errors_add(e, "/defender/defense", "is required (its parts: armor, shield, ...)");
    r->damage_reduction = s->params.damage_reduction;
}

/* What the setup derived and the action did not declare, into r (after the declared ones). */
static void derived_into(const struct rules_enc_attack_setup *s, struct attack_request *r)
{
    if (s->cover != RULES_COVER_NONE)
        r->cover = s->cover;
    if (s->concealment != RULES_CONCEAL_NONE) {
        r->conceal[0] = s->concealment;
        r->conceal_count = 1;
    }
}

/* The place of profile atk (an object of actor's attacks) among them, or -1. */
static int profile_at(json_t *actor, json_t *atk)
{
    json_t *list = json_object_get(actor, "attacks");
    for (size_t i = 0; i < json_array_size(list); i++)
        if (json_array_get(list, i) == atk)
            return (int)i;
    return -1;
}

/* The setup's arrays (rules_enc_attack_room) for te: allies, others and index, each with room
 * for every combatant; false when out of memory (none allocated). */
static bool room_alloc(const struct rules_encounter *te, struct rules_enc_attack_room *room)
{
    size_t n = (size_t)te->count + 1;
    room->allies = calloc(n, sizeof *room->allies);
    room->others = calloc(n, sizeof *room->others);
    room->index = calloc(n, sizeof *room->index);
    if (room->allies != NULL && room->others != NULL && room->index != NULL)
        return true;
    free(room->allies), free(room->others), free(room->index);
    *room = (struct rules_enc_attack_room){0};
    return false;
}

bool enc_attack_req(struct resolve_ctx *x, json_t *in, json_t *actor, json_t *target, json_t *atk,
                    bool aoo, bool charging, const struct rules_creature *target_at,
                    struct attack_request *r, struct svc_errors *e, struct jw *derived)
{
    memset(r, 0, sizeof *r);
    const struct rules_encounter *te = enc_typed(x);
    int ai = -1, ti = -1, p = profile_at(actor, atk);
    if (te == NULL || enc_typed_of(x, actor, &ai) == NULL || enc_typed_of(x, target, &ti) == NULL ||
        p < 0) {
        svc_errors_add(e, "", "the attack could not be read from the encounter");
        return true;
    }
    struct rules_enc_attack_room room;
    struct rules_enc_attack_setup *s = malloc(sizeof *s);
    if (s == NULL || !room_alloc(te, &room)) {
        free(s);
        svc_errors_add(e, "/allies", "could not be allocated");
        return true;
    }
    struct rules_enc_attack_ask ask = {.a = ai,
                                       .t = ti,
                                       .p = p,
                                       .aoo = aoo,
                                       .target_at = target_at,
                                       .iterative = x->iterative,
                                       .charging = charging,
                                       .cover_declared = json_object_get(in, "cover") != NULL,
                                       .concealment_declared =
                                           json_object_get(in, "concealment") != NULL};
    int rc = rules_encounter_attack_setup(te, &ask, &room, s);
    /* derived_defense: Dex to AC, cover and concealment from what the encounter stores (without
     * it, rulings took only what the action declared). */
    bool ok = rc != RULES_ENC_ATTACK_TOTAL_COVER;
    if (!ok)
        total_cover(x, te->combatants[ai].id);
    else {
        if (derived != NULL && rules_encounter_derives_defense(x->engine))
            write_derived(derived, te, &ask, s, room.index);
        request_of(x, &te->combatants[ti], s, room.allies, r, e);
        svc_attack_decode_declared(in, r, e);
        derived_into(s, r);
        svc_attack_facing_required(r, json_object_get(actor, "facing") != NULL,
                                   json_object_get(target, "facing") != NULL, e);
        room.allies = NULL; /* r's now */
    }
    free(room.allies);
    free(room.others);
    free(room.index);
    free(s);
    return ok;
}

/* Adds to x->e why the attack gate refused (rules_encounter_attack_gate's rc), in words; false
 * when it did not refuse. made is the attacks of opportunity the actor made this round, foe the
 * id of a charge's designated opponent. */
static bool attack_gate_refused(struct resolve_ctx *x, const char *actor, const char *attack,
                                int rc, int made, const char *foe)
{
    switch (rc) {
    case RULES_ENC_ATTACK_REACH:
        svc_errors_add(x->e, "/target", "is out of reach of '%s': " ENC_REACH_RULE, attack);
        return true;
    case RULES_ENC_ATTACK_AOO_MELEE:
        svc_errors_add(x->e, "/attack",
                       "'%s' is not a melee attack, and an attack of opportunity is a single "
                       "melee attack (004 Attacks of Opportunity)",
                       attack);
        return true;
    case RULES_ENC_ATTACK_AOO_STUNNED:
        svc_errors_add(x->e, "/kind",
                       "a stunned combatant can't take actions, attacks of opportunity "
                       "included (d20 3.5 SRD, Stunned)");
        return true;
    case RULES_ENC_ATTACK_AOO_FLAT_FOOTED:
        svc_errors_add(x->e, "/kind",
                       "a flat-footed combatant can't make attacks of opportunity (004 "
                       "Flat-Footed)");
        return true;
    case RULES_ENC_ATTACK_AOO_SPENT:
        if (rules_encounter_counts_aoo(x->engine))
            svc_errors_add(x->e, "/kind",
                           "'%s' has made its %d attack%s of opportunity this round (004 "
                           "Making an Attack of Opportunity; d20 3.5 SRD, Combat Reflexes)",
                           actor, made, made == 1 ? "" : "s");
        else
            svc_errors_add(x->e, "/kind",
                           "one attack of opportunity a round (004 Making an Attack of "
                           "Opportunity)");
        return true;
    case RULES_ENC_ATTACK_CHARGE_TARGET:
        svc_errors_add(x->e, "/target",
                       "the charge's attack is at its designated opponent, '%s' (%s)", foe,
                       RULES_SRC_CHARGE);
        return true;
    case RULES_ENC_ATTACK_CHARGE_MELEE:
        svc_errors_add(x->e, "/attack", "a charge ends in a melee attack, and '%s' is not one (%s)",
                       attack, RULES_SRC_CHARGE);
        return true;
    default:
        return false;
    }
}

/* An attack's ruling (~100 KB) is kept per thread for its next attack, as the key's value (freed
 * when the thread ends): jemalloc's thread cache keeps blocks up to 32 KB, and allocating and
 * freeing one this large cost ~4k instructions an attack. Not zeroed either way (below). */
static pthread_key_t ruling_key;
static bool ruling_key_ok; /* false if no key could be made: every attack allocates */
static pthread_once_t ruling_once = PTHREAD_ONCE_INIT;

static void ruling_key_init(void)
{
    ruling_key_ok = pthread_key_create(&ruling_key, free) == 0;
}

static struct rules_enc_attack_ruling *ruling_take(void)
{
    pthread_once(&ruling_once, ruling_key_init);
    struct rules_enc_attack_ruling *r = ruling_key_ok ? pthread_getspecific(ruling_key) : NULL;
    if (r == NULL)
        return malloc(sizeof *r);
    pthread_setspecific(ruling_key, NULL); /* an attack ruled within this one takes another */
#ifndef NDEBUG
    memset(r, 0xa5, sizeof *r); /* a read before a write shows, as in a fresh malloc under ASan */
#endif
    return r;
}

static void ruling_give(struct rules_enc_attack_ruling *r)
{
    if (r != NULL && ruling_key_ok && pthread_getspecific(ruling_key) == NULL &&
        pthread_setspecific(ruling_key, r) == 0)
        return;
    free(r);
}

/* The answer of an attack ruled (rules_encounter_attack's rc and ruling) on request r with dice
 * src: its refusal in e, or POST /v1/attacks/resolve's own answer, written once, in a. */
static void answer_ruled(const struct attack_request *r, int rc,
                         const struct rules_enc_attack_ruling *ruled,
                         const struct svc_dice_source *src, struct svc_errors *e,
                         struct svc_answer *a)
{
    if (rc == RULES_ENC_ATTACK_EVALUATE)
        svc_attack_evaluate_refusal(ruled->evaluate_rc, e);
    else if (rc == RULES_ENC_ATTACK_ROLL)
        svc_attack_roll_refusal(ruled->roll_rc, r, &ruled->rolled, e);
    else
        svc_attack_answer_ruled(r, &ruled->ev, &ruled->rolled, src, a);
}

/* The attack as POST /v1/attacks/resolve rules it, from the stored combatants' structs: the
 * action's dice (or the event's seed), what it declares, what the encounter derives. Writes the
 * answer (or its refusal) to *a and what the attack leaves to *after, and what the encounter
 * derived to `derived` (enc_attack_req). False when the request could not be built (the errors
 * are in x->e). */
static bool rule_attack(struct resolve_ctx *x, json_t *in, json_t *actor, json_t *target,
                        json_t *atk, bool aoo, const struct rules_creature *there,
                        const struct rules_enc_combatant *who,
                        const struct rules_enc_combatant *whom,
                        const struct rules_enc_attack_gate *gate, struct svc_answer *a,
                        struct rules_attack_after *after, struct jw *derived)
{
    assert(who != NULL && whom != NULL && gate != NULL);
    struct attack_request req;
    struct svc_errors e;
    svc_errors_init(&e);
    struct svc_dice_source *src = enc_dice_source(x, in, &e);
    if (!enc_attack_req(x, in, actor, target, atk, aoo, gate->charge_attack, there, &req, &e,
                        derived)) {
        svc_errors_free(&e);
        free(src);
        free(req.allies);
        return false;
    }
    /* rules_encounter_attack: the modifiers, the roll and what it leaves, on those structs; the
     * answer is POST /v1/attacks/resolve's own, written once from the ruling. */
    struct rules_attack_roll_params params = svc_attack_roll_params(&req);
    struct rules_enc_attack_roll roll = {.attacker = &req.a,
                                         .defender = &req.d,
                                         .allies = req.allies,
                                         .ally_count = req.ally_count,
                                         .cover = req.cover,
                                         .concealments = req.conceal,
                                         .concealment_count = req.conceal_count,
                                         .params = &params,
                                         .damage = req.damage != NULL ? &req.damage_expr : NULL};
    /* Not zeroed: rules_encounter_attack writes every member it is read for (the rolled dice
     * up to the damage; the dice slots past them stay unread), and calloc cleared ~100 KB of
     * slots at every attack, 12% of the action's instructions. */
    struct rules_enc_attack_ruling *ruled = ruling_take();
    if (ruled == NULL || src == NULL) {
        svc_answer_problem(a, SVC_PROBLEM_INTERNAL, NULL);
    } else if (!svc_errors_any(&e)) {
        struct rules_dice d;
        svc_dice_source_open(src, &d);
        int ruled_rc = rules_encounter_attack(enc_typed(x), who, whom, aoo, gate, &roll, &d, ruled);
        answer_ruled(&req, ruled_rc, ruled, src, &e, a);
        *after = ruled->after;
    }
    if (svc_errors_any(&e))
        svc_answer_errors(a, &e);
    svc_errors_free(&e);
    ruling_give(ruled);
    free(src);
    free(req.allies);
    return true;
}

/* Under the reactions engine, what an attack of opportunity does to the reaction it answers
 * (reaction_at in the state's reactions): it is answered, and if the attack stopped the mover,
 * the reactions to its later steps go too and it stays where it was. Appends to effects. */
struct answered {
    size_t at;      /* its index in the state's reactions */
    long long step; /* the step of the mover's move it answers */
    long long x, y; /* the square the mover was leaving */
};
static void answer_reaction(struct resolve_ctx *x, const char *actor, const char *target,
                            const struct answered *reaction, const struct rules_attack_after *after,
                            json_t *effects)
{
    const struct rules_encounter *te = enc_typed(x);
    assert(te != NULL);
    json_array_append_new(effects,
                          enc_effect_set(actor, json_pack("{s:i, s:i}", "aoo_round", te->round,
                                                          "aoo_made", after->aoo_made)));
    /* The reaction is answered. If the attack drops the mover, its move stops in the square
     * it was leaving, and the reactions to later steps go with it. */
    bool stopped = after->stopped;
    json_t *left = json_array();
    for (int k = 0; k < te->reaction_count; k++) /* encoded from the typed state */
        if (rules_encounter_reaction_stays(te, (int)reaction->at, stopped, k))
            json_array_append_new(left, enc_reaction_json(te, k));
    json_array_append_new(effects, enc_reactions_effect(te, left,
                                                        rules_encounter_awaits_after_answer(
                                                            te, (int)reaction->at, stopped)));
    if (stopped)
        json_array_append_new(
            effects,
            enc_effect_set(target, json_pack("{s:I, s:I}", "x", reaction->x, "y", reaction->y)));
    /* Within the engine's attacks after a move (reactions.c), the same changes on its typed
     * state (x->work). */
    struct rules_encounter_work *w = x->work;
    if (w != NULL) {
        int ai = rules_encounter_find(te, actor), ti = rules_encounter_find(te, target);
        if (ai >= 0)
            rules_encounter_set_aoo(w, ai, te->round, after->aoo_made);
        rules_encounter_settle_reaction(w, (int)reaction->at, stopped);
        if (stopped && ti >= 0)
            rules_encounter_set_place(w, ti, (int)reaction->x, (int)reaction->y, -1);
    }
}

/* What the attack does to the encounter (rules_encounter_attack's after), as effects: the
 * target's and the attacker's hit points, and the attack of opportunity or the turn it spends
 * (the round and the turn so far read from the typed state, who being the attacker's). The
 * attacker's strain is told in ans. Returns the new effects array. */
static json_t *attack_effects(struct resolve_ctx *x, json_t *ans, json_t *actor,
                              const struct rules_enc_combatant *who, const char *target, bool aoo,
                              const struct answered *reaction,
                              const struct rules_attack_after *after)
{
    const struct rules_encounter *te = enc_typed(x);
    assert(te != NULL && who != NULL);
    /* A step of a full attack: each change is applied to its typed state too (x->work). */
    struct rules_encounter_work *w = x->work;
    assert(w == NULL || !aoo || rules_encounter_aoo_answers_reaction(x->engine));
    /* Found by id, as the target is, not by who's place in the work copy's array, so that a
     * who from another state could never index past it. */
    int ai = w != NULL ? rules_encounter_find(&w->e, who->id) : -1;
    assert(w == NULL || ai >= 0);
    json_t *effects = json_array();
    if (after->damaged) {
        json_array_append_new(effects, enc_effect_set(target, enc_hp_fields(x, after->target_hp)));
        int ti = w != NULL ? rules_encounter_find(&w->e, target) : -1;
        if (ti >= 0)
            rules_encounter_set_hp(w, ti, after->target_hp);
    }
    if (after->strain > 0) {
        json_t *fields = enc_hp_fields(x, after->attacker_hp);
        json_t *told =
            json_pack("{s:s, s:i, s:I, s:s}", "combatant", enc_str(actor, "id"), "damage",
                      after->strain, "hp", after->attacker_hp, "source", RULES_HP_STRAIN_SOURCE);
        if (json_object_get(fields, "hp_state"))
            json_object_set(told, "hp_state", json_object_get(fields, "hp_state"));
        json_object_set_new(ans, "strain", told);
        json_array_append_new(effects, enc_effect_set(enc_str(actor, "id"), fields));
        if (ai >= 0)
            rules_encounter_set_hp(w, ai, after->attacker_hp);
    }
    if (aoo && rules_encounter_aoo_answers_reaction(x->engine)) {
        assert(reaction != NULL); /* under this engine an attack of opportunity answers one */
        answer_reaction(x, enc_str(actor, "id"), target, reaction, after, effects);
    } else if (aoo) {
        json_array_append_new(effects, enc_effect_set(enc_str(actor, "id"),
                                                      json_pack("{s:i}", "aoo_round", te->round)));
    } else {
        /* {"turn": {moved, ran, attacked: true}}, set directly: json_pack read its format at
         * every attack (3k instructions). */
        json_t *turn = json_object(), *fields = json_object();
        json_object_set_new_nocheck(turn, "moved", json_boolean(who->turn.moved));
        json_object_set_new_nocheck(turn, "ran", json_boolean(who->turn.ran));
        json_object_set_new_nocheck(turn, "attacked", json_true());
        json_object_set_new_nocheck(fields, "turn", turn);
        json_array_append_new(effects, enc_effect_set(enc_str(actor, "id"), fields));
        if (ai >= 0)
            rules_encounter_set_attacked(w, ai);
    }
    return effects;
}

/* Whether an attack's result names its kind ("type": "attack"), as the kind table says (the
 * rule action_economy), also where it is ruled inside a full attack or a reaction. */
static bool attack_named(int engine)
{
    struct rules_action_kind k;
    rules_action_kind_of(engine, RULES_ACT_ATTACK, false, &k);
    return k.named;
}

/* The members of an attack's answer that are read as values after it is ruled, when its text
 * is kept for the write (x->result_text): "type" by enc_tag_result, the rest by the event's
 * sentence (explain.c's ruling_names: a member added there must be added here). The others (the
 * rules, the cover and position breakdowns, the answer's own sentence, the dice's source) are only
 * written. */
static const char *const attack_keep[] = {
    "type",        "attack_total", "target_number", "ac_kind",  "d20",
    "roll_total",  "hit",          "struck",        "critical", "critical_hit",
    "concealment", "sneak_attack", "modifiers",     "damage",   NULL};

json_t *enc_attack_on(struct resolve_ctx *x, json_t *in, json_t *actor, json_t *target,
                      const struct rules_enc_reaction *reaction, size_t reaction_at)
{
    bool aoo = strcmp(enc_str(in, "kind"), "attack_of_opportunity") == 0;
    const struct rules_encounter *te = enc_typed(x);
    int ai = -1, ti = -1;
    const struct rules_enc_combatant *who = enc_typed_of(x, actor, &ai);
    /* melee_aoo: an attack of opportunity that names no profile is made with the first melee
     * one (rules_encounter_aoo_profile_of). */
    bool first_melee =
        aoo && rules_encounter_aoo_first_melee(x->engine) && *enc_str(in, "attack") == '\0';
    int melee = first_melee && who != NULL ? rules_encounter_aoo_profile_of(te, ai) : -1;
    json_t *atk = !first_melee ? enc_find_attack(actor, enc_str(in, "attack"))
                  : melee >= 0 ? json_array_get(json_object_get(actor, "attacks"), (size_t)melee)
                               : NULL;
    if (atk == NULL) {
        svc_errors_add(x->e, "/attack", "the actor has no such attack");
        return NULL;
    }
    /* Whether it may be made (rules_encounter_attack_check), in words. */
    const struct rules_enc_combatant *whom = enc_typed_of(x, target, &ti);
    int p = who != NULL ? rules_encounter_profile(who, enc_str(atk, "name")) : -1;
    if (whom == NULL || p < 0)
        return NULL;
    const char *foe = who->charge_target >= 0 ? te->combatants[who->charge_target].id : "";
    /* An attack of opportunity finds its target where it was, in the square it was leaving. */
    struct rules_creature there = whom->body;
    if (reaction != NULL) {
        there.body.x = reaction->x;
        there.body.y = reaction->y;
        if (reaction->facing >= 0)
            there.facing = reaction->facing;
    }
    struct rules_enc_attack_gate gate = {0};
    int rc = rules_encounter_attack_gate(te, ai, ti, p, aoo, &there, &gate);
    if (attack_gate_refused(x, enc_str(actor, "id"), enc_str(atk, "name"), rc, gate.made, foe))
        return NULL;
    /* Built as a value: nothing is parsed back. Its kind is written first when the result names
     * it (rather than the object built again by enc_tag_result, 11k instructions an attack). */
    struct svc_answer a = {.want_doc = true,
                           .tag = attack_named(x->engine) ? "attack" : NULL,
                           .keep = x->result_text ? attack_keep : NULL};
    struct rules_attack_after after = {0};
    /* What the encounter derived: text beside an answer kept as text, else a value. */
    struct jw dw;
    if (a.keep != NULL)
        jw_init(&dw, 512);
    else
        jw_init_tree(&dw);
    bool ruled = rule_attack(x, in, actor, target, atk, aoo, reaction != NULL ? &there : NULL, who,
                             whom, &gate, &a, &after, &dw);
    size_t dn = 0;
    char *dtext = a.keep != NULL ? jw_finish(&dw, &dn) : NULL;
    json_t *derived = a.keep != NULL ? NULL : jw_finish_tree(&dw);
    if (!ruled) {
        free(dtext);
        json_decref(derived);
        return NULL;
    }
    /* What the action itself gave keeps its own pointer; the rest the encounter built. */
    static const struct enc_member own[] = {{"/results", "/results"},
                                            {"/cover", "/cover"},
                                            {"/concealment", "/concealment"},
                                            {NULL, NULL}};
    /* Kept as text (x->result_text): the answer's text, which the value's members come first in. */
    char *text = a.keep != NULL && a.status == 200 ? a.text : NULL;
    size_t text_len = a.len;
    if (text != NULL)
        a.text = NULL;
    if (text != NULL && dn > 0) /* after the answer's members, as the value had it */
        text = with_member(text, &text_len, "derived", dtext, dn);
    if (a.keep != NULL && a.status == 200 && (text == NULL || dtext == NULL)) {
        svc_answer_problem(&a, SVC_PROBLEM_INTERNAL, NULL); /* out of memory */
    }
    free(dtext);
    json_t *ans = enc_answer_own(x, &a, "/attack", own, "attack");
    if (ans == NULL) {
        free(text);
        json_decref(derived);
        return NULL;
    }
    size_t kept = json_object_size(ans);
    if (derived != NULL)
        json_object_set_new(ans, "derived", derived);
    struct answered answered = {reaction_at, reaction != NULL ? reaction->step : 0,
                                reaction != NULL ? reaction->x : 0,
                                reaction != NULL ? reaction->y : 0};
    json_t *effects = attack_effects(x, ans, actor, who, enc_str(target, "id"), aoo,
                                     reaction != NULL ? &answered : NULL, &after);
    /* Named (a.tag) inside a full attack or a reaction record too. */
    json_t *out = enc_outcome(ans, effects);
    if (text != NULL && out != NULL) {
        struct enc_cache *c = x->cache;
        free(c->result_text);
        c->result_text = text, c->result_len = text_len, c->result_kept = kept, c->result_of = ans;
    } else {
        free(text);
    }
    return out;
}

/* The dice of an attack of opportunity the engine makes (malloc'd; NULL after an error in e):
 * the table's `results` (borrowed; its seed is then 0, as it was stored), or else the seed of
 * the event's attack x->seq. */
static struct svc_dice_source *opportunity_dice(struct resolve_ctx *x, json_t *results,
                                                struct svc_errors *e)
{
    struct svc_dice_source *src = enc_dice_seeded(x, e);
    if (src != NULL && results != NULL) {
        src->seed = 0;
        svc_decode_dice_results(results, src, e);
    }
    return src;
}

/* Adds to x->e why rules_encounter_opportunity did not make the attack (rc) when it is a
 * refusal before the attack's request (the gate, no profile, total cover); false otherwise. */
static bool opportunity_refused(struct resolve_ctx *x, const struct rules_encounter *te, int rc,
                                const struct rules_enc_opportunity *o)
{
    const struct rules_enc_combatant *by = o->by >= 0 ? &te->combatants[o->by] : NULL;
    switch (rc) {
    case RULES_ENC_ATTACK_GONE:
        return true; /* nothing to tell: the caller's record says it */
    case RULES_ENC_ATTACK_NO_TARGET:
        svc_errors_add(x->e, "/target", "names no combatant");
        return true;
    case RULES_ENC_ATTACK_NO_PROFILE:
        svc_errors_add(x->e, "/attack", "the actor has no such attack");
        return true;
    case RULES_ENC_ATTACK_TOTAL_COVER:
        total_cover(x, by->id);
        return true;
    default:
        return by != NULL && o->profile >= 0 &&
               attack_gate_refused(x, by->id, by->attacks[o->profile].name, rc, o->gate.made,
                                   by->charge_target >= 0 ? te->combatants[by->charge_target].id
                                                          : "");
    }
}

json_t *enc_opportunity(struct resolve_ctx *x, size_t at, json_t *results)
{
    const struct rules_encounter *te = enc_typed(x);
    if (te == NULL || at >= (size_t)te->reaction_count)
        return NULL;
    struct svc_errors e;
    svc_errors_init(&e);
    struct svc_dice_source *src = opportunity_dice(x, results, &e);
    struct rules_enc_opportunity *o = malloc(sizeof *o);
    struct rules_enc_attack_room room = {0};
    if (o == NULL || src == NULL || !room_alloc(te, &room)) {
        svc_errors_add(x->e, "", "the attack of opportunity could not be ruled");
        free(o), free(src), svc_errors_free(&e);
        return NULL;
    }
    /* Ruled on the typed state: the dice only when the table's fit (else their errors). */
    struct rules_dice d;
    bool dice = !svc_errors_any(&e);
    if (dice)
        svc_dice_source_open(src, &d);
    int rc = rules_encounter_opportunity(te, (int)at, dice ? &d : NULL, &room, o);
    json_t *out = NULL;
    if (!opportunity_refused(x, te, rc, o)) {
        const struct rules_enc_combatant *by = &te->combatants[o->by];
        const struct rules_enc_combatant *mover = &te->combatants[o->mover];
        const struct rules_enc_reaction *re = &te->reactions[at];
        json_t *actor = enc_find(x->state, by->id, NULL);
        json_t *target = enc_find(x->state, mover->id, NULL);
        /* Encoded as the attack action's own answer: the request the endpoint's writer takes,
         * what its decoder would refuse, the ruling or its refusal. */
        struct attack_request req;
        memset(&req, 0, sizeof req);
        request_of(x, mover, &o->setup, room.allies, &req, &e);
        derived_into(&o->setup, &req);
        svc_attack_facing_required(&req, json_object_get(actor, "facing") != NULL,
                                   json_object_get(target, "facing") != NULL || re->facing >= 0,
                                   &e);
        struct svc_answer a = {.want_doc = true, .tag = attack_named(x->engine) ? "attack" : NULL};
        if (!svc_errors_any(&e))
            answer_ruled(&req, rc, &o->ruling, src, &e, &a);
        if (svc_errors_any(&e))
            svc_answer_errors(&a, &e);
        static const struct enc_member own[] = {{"/results", "/results"},
                                                {"/cover", "/cover"},
                                                {"/concealment", "/concealment"},
                                                {NULL, NULL}};
        json_t *ans = enc_answer_own(x, &a, "/attack", own, "attack");
        if (ans != NULL) {
            if (rules_encounter_derives_defense(x->engine)) {
                struct rules_enc_attack_ask ask = {.a = o->by, .t = o->mover, .p = o->profile};
                json_object_set_new(ans, "derived", derived_json(te, &ask, &o->setup, room.index));
            }
            struct answered answered = {at, re->step, re->x, re->y};
            json_t *effects =
                attack_effects(x, ans, actor, by, mover->id, true, &answered, &o->ruling.after);
            out = enc_outcome(ans, effects); /* named by a.tag */
        }
    }
    svc_errors_free(&e);
    free(room.allies), free(room.others), free(room.index);
    free(o);
    free(src);
    return out;
}

json_t *enc_action_attack(struct resolve_ctx *x, json_t *in, json_t *actor)
{
    json_t *s = x->state;
    json_t *target = enc_find(s, enc_str(in, "target"), NULL);
    if (target == NULL) {
        svc_errors_add(x->e, "/target", "names no combatant");
        return NULL;
    }
    bool is_aoo = strcmp(enc_str(in, "kind"), "attack_of_opportunity") == 0;
    /* The rule reactions: an attack of opportunity answers a move that provoked it from this
     * attacker, before any other event, and strikes the mover in the square it was leaving (004
     * Provoking an Attack of Opportunity by Moving). */
    const struct rules_enc_reaction *reaction = NULL;
    size_t reaction_at = 0;
    json_t *where = NULL; /* the target where the attack finds it */
    if (rules_encounter_aoo_answers_reaction(x->engine) && is_aoo) {
        reaction = enc_open_reaction(x, enc_str(target, "id"), enc_str(actor, "id"), &reaction_at);
        if (reaction == NULL) {
            svc_errors_add(x->e, "/kind",
                           "'%s' provoked no attack of opportunity from '%s': one answers a move "
                           "that provoked it, before any other event (004 Attacks of "
                           "Opportunity)",
                           enc_str(target, "id"), enc_str(actor, "id"));
            return NULL;
        }
        if (!enc_settles_in_order(x, reaction_at))
            return NULL;
        where = json_copy(target);
        json_object_set_new(where, "x", json_integer(reaction->x));
        json_object_set_new(where, "y", json_integer(reaction->y));
        if (reaction->facing >= 0)
            json_object_set_new(where, "facing", json_integer(reaction->facing));
        target = where;
    }
    /* Answered, the move goes on: the attacks the engine makes itself that waited for this
     * one are made now, and this event's ruling lists them. */
    const struct rules_encounter *te = reaction != NULL ? enc_typed(x) : NULL;
    bool settles = te != NULL && rules_encounter_settles_on_answer(te);
    /* Then the attack is ruled on a work copy of the typed state, which its effects change as
     * they are written (x->work), and the engine's attacks go on from there. */
    struct rules_encounter_work w;
    if (settles && !rules_encounter_work_copy(te, &w)) {
        svc_errors_add(x->e, "", "the attack of opportunity could not be ruled");
        json_decref(where);
        return NULL;
    }
    x->work = settles ? &w : NULL;
    /* A write's own attack keeps its answer as text (the sentence reads the members it keeps as
     * values); not one whose engine attacks follow, which read and extend its result. */
    x->result_text = !settles && x->cache != NULL && x->cache->want_result_text;
    json_t *out = enc_attack_on(x, in, actor, target, reaction, reaction_at);
    x->result_text = false;
    x->work = NULL;
    if (out != NULL && settles)
        enc_settle_waiting(x, &w, te->combatants[reaction->mover].id,
                           json_object_get(in, "reaction_results"), json_object_get(out, "effects"),
                           json_object_get(out, "result"));
    else if (settles)
        rules_encounter_work_free(&w);
    if (out != NULL && svc_errors_any(x->e)) { /* the table's dice for an engine attack */
        json_decref(out);
        out = NULL;
    }
    if (out == NULL && x->cache != NULL) { /* no text for a result that is gone */
        free(x->cache->result_text);
        x->cache->result_text = NULL;
    }
    json_decref(where);
    return out;
}
