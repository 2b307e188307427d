/* Encounters: the attack actions (an attack, an attack of opportunity, a full attack): the stored
 * combatants read into POST /v1/attacks/resolve's request structs (enc_attack_req, shared with
 * the encounter's odds), admitted and ruled by rules/ (rules_encounter_attack_check,
 * rules_encounter_attack), the answer written by the endpoint's own writer
 * (svc_attack_answer_ruled). An attack of opportunity under engine 2 answers a reaction a move
 * opened (encounter_reactions.c). Each returns {"result": ..., "effects": [...]} or NULL after
 * adding errors (the model: encounter_internal.h). */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/attack/ability.h"
#include "rules/board/cover.h"
#include "rules/encounter/engine.h"
#include "rules/encounter/hp.h"
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

bool enc_is_melee(json_t *atk)
{
    const char *form = enc_str(atk, "attack");
    return strcmp(form, "ranged") != 0 && strcmp(form, "spell") != 0;
}

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

/* Whether each of c's attack profiles (at most 64) is a melee attack; returns how many. */
static int melee_profiles(json_t *c, bool melee[64])
{
    json_t *list = json_object_get(c, "attacks");
    int n = 0;
    for (; n < 64 && n < (int)json_array_size(list); n++)
        melee[n] = enc_is_melee(json_array_get(list, (size_t)n));
    return n;
}

json_t *enc_reaction_attack(json_t *c, int engine)
{
    bool melee[64];
    int n = melee_profiles(c, melee);
    int i = rules_encounter_aoo_profile(engine, melee, n);
    return i >= 0 ? json_array_get(json_object_get(c, "attacks"), (size_t)i) : NULL;
}

/* The squares of sight's list as [{x, y, combatant?}]: a new array. A square's creature is the
 * setup's others[creature], whose combatant index is index[creature]. */
static json_t *squares_json(const struct rules_encounter *te, const struct rules_cover_square *sq,
                            int n, const int *index)
{
    json_t *list = json_array();
    for (int i = 0; i < n; i++) {
        json_t *o = json_pack("{s:i, s:i}", "x", sq[i].x, "y", sq[i].y);
        if (sq[i].creature >= 0)
            json_object_set_new(o, "combatant",
                                json_string(te->combatants[index[sq[i].creature]].id));
        json_array_append_new(list, o);
    }
    return list;
}

/* Engine 2: what the encounter derived for the attack ask set up as s (issue 17), telling where
 * each came from: {"defense_dex"?, "cover"?, "concealment"?} (a new object). */
static json_t *derived_json(const struct rules_encounter *te,
                            const struct rules_enc_attack_ask *ask,
                            const struct rules_enc_attack_setup *s, const int *index)
{
    json_t *derived = json_object();
    if (s->derived_dex)
        json_object_set_new(derived, "defense_dex",
                            json_pack("{s:i, s:i, s:s}", "value", s->dex, "from_dex", s->dex_score,
                                      "source", RULES_ABILITY_MODIFIER_SOURCE));
    if (!s->sighted)
        return derived;
    if (s->sight_rc != RULES_COVER_OK) {
        const char *why = s->sight_rc == RULES_COVER_ERR_HEX
                              ? "the SRD's lines are drawn on squares, and this map is hexes"
                              : "the creatures are too large to rule";
        json_object_set_new(derived, "cover", json_pack("{s:s, s:s}", "derived", "no", "why", why));
        return derived;
    }
    const struct rules_sight *v = &s->sight;
    json_t *cov =
        json_pack("{s:s, s:s, s:o, s:[i, i], s:i, s:i, s:b, s:s}", "value",
                  rules_degree_names[v->cover], "rule", v->melee_adjacent ? "melee" : "ranged",
                  "blocking", squares_json(te, v->blocking, v->blocking_count, index), "corner",
                  v->corner_x, v->corner_y, "lines", v->lines, "lines_blocked", v->lines_blocked,
                  "declared", ask->cover_declared, "source", RULES_COVER_SOURCE);
    json_object_set_new(derived, "cover", cov);
    json_object_set_new(derived, "concealment",
                        json_pack("{s:s, s:o, s:b, s:b, s:s}", "value",
                                  rules_degree_names[v->concealment], "concealing",
                                  squares_json(te, v->concealing, v->concealing_count, index),
                                  "darkvision", te->combatants[ask->a].darkvision, "declared",
                                  ask->concealment_declared, "source", RULES_CONCEALMENT_SOURCE));
    return derived;
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
                    struct attack_request *r, struct svc_errors *e, json_t **derived)
{
    *derived = NULL;
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
    /* Engine 2 derives Dex to AC, cover and concealment from what the encounter stores (engine
     * 1 rulings, stored before, took only what the action declared). */
    bool ok = rc != RULES_ENC_ATTACK_TOTAL_COVER;
    if (!ok)
        total_cover(x, te->combatants[ai].id);
    else {
        if (rules_engine_has(x->engine, RULES_ENGINE_DERIVED_DEFENSE))
            *derived = derived_json(te, &ask, s, room.index);
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

/* The attacks a full attack makes (rules_iterative_attacks). */
int enc_iterative_attacks(json_t *actor)
{
    long long bab = enc_num(actor, "base_attack_bonus");
    return rules_iterative_attacks(bab > 1000 ? 1000 : bab < 0 ? 0 : (int)bab);
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
        if (rules_engine_has(x->engine, RULES_ENGINE_AOO_PER_ROUND))
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
 * answer (or its refusal) to *a and what the attack leaves to *after; *derived receives what the
 * encounter derived (a new reference, or NULL). False when the request could not be built (the
 * errors are in x->e). */
static bool rule_attack(struct resolve_ctx *x, json_t *in, json_t *actor, json_t *target,
                        json_t *atk, bool aoo, const struct rules_creature *there,
                        const struct rules_enc_combatant *who,
                        const struct rules_enc_combatant *whom,
                        const struct rules_enc_attack_gate *gate, struct svc_answer *a,
                        struct rules_attack_after *after, json_t **derived)
{
    assert(who != NULL && whom != NULL && gate != NULL);
    struct attack_request req;
    struct svc_errors e;
    svc_errors_init(&e);
    struct svc_dice_source *src = enc_dice_source(x, in, &e);
    *derived = NULL;
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
    struct rules_enc_attack_ruling *ruled = malloc(sizeof *ruled);
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
    free(ruled);
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
    json_t *s = x->state;
    const struct rules_encounter *te = enc_typed(x);
    json_array_append_new(
        effects, enc_effect_set(actor, json_pack("{s:I, s:i}", "aoo_round", enc_num(s, "round"),
                                                 "aoo_made", after->aoo_made)));
    /* The reaction is answered. If the attack drops the mover, its move stops in the square
     * it was leaving, and the reactions to later steps go with it. */
    bool stopped = after->stopped;
    json_t *left = json_array();
    size_t k;
    json_t *r;
    json_array_foreach(json_object_get(s, "reactions"), k, r)
    {
        /* The typed state's reactions are the stored list, in its order (rules_encounter_
         * reaction_stays: the answered one closes, and a stopped mover's later steps). */
        assert(te != NULL && k < (size_t)te->reaction_count);
        if (rules_encounter_reaction_stays(te, (int)reaction->at, stopped, (int)k))
            json_array_append(left, r);
    }
    json_array_append_new(effects, enc_reactions_effect(s, left));
    if (stopped)
        json_array_append_new(
            effects,
            enc_effect_set(target, json_pack("{s:I, s:I}", "x", reaction->x, "y", reaction->y)));
}

/* What the attack does to the encounter (rules_encounter_attack's after), as effects: the
 * target's and the attacker's hit points, and the attack of opportunity or the turn it spends.
 * The attacker's strain is told in ans. Returns the new effects array. */
static json_t *attack_effects(struct resolve_ctx *x, json_t *ans, json_t *actor, const char *target,
                              bool aoo, const struct answered *reaction,
                              const struct rules_attack_after *after)
{
    json_t *s = x->state;
    json_t *turn = json_object_get(actor, "turn");
    json_t *effects = json_array();
    if (after->damaged)
        json_array_append_new(effects, enc_effect_set(target, enc_hp_fields(x, after->target_hp)));
    if (after->strain > 0) {
        json_t *fields = enc_hp_fields(x, after->attacker_hp);
        json_t *told =
            json_pack("{s:s, s:i, s:I, s:s}", "combatant", enc_str(actor, "id"), "damage",
                      after->strain, "hp", after->attacker_hp, "source", RULES_HP_STRAIN_SOURCE);
        if (json_object_get(fields, "hp_state"))
            json_object_set(told, "hp_state", json_object_get(fields, "hp_state"));
        json_object_set_new(ans, "strain", told);
        json_array_append_new(effects, enc_effect_set(enc_str(actor, "id"), fields));
    }
    if (aoo && rules_engine_has(x->engine, RULES_ENGINE_REACTIONS)) {
        assert(reaction != NULL); /* under this engine an attack of opportunity answers one */
        answer_reaction(x, enc_str(actor, "id"), target, reaction, after, effects);
    } else if (aoo) {
        json_array_append_new(effects,
                              enc_effect_set(enc_str(actor, "id"),
                                             json_pack("{s:I}", "aoo_round", enc_num(s, "round"))));
    } else
        json_array_append_new(
            effects,
            enc_effect_set(
                enc_str(actor, "id"),
                json_pack("{s:o}", "turn",
                          json_pack("{s:O, s:O, s:b}", "moved",
                                    json_object_get(turn, "moved") ? json_object_get(turn, "moved")
                                                                   : json_false(),
                                    "ran",
                                    json_object_get(turn, "ran") ? json_object_get(turn, "ran")
                                                                 : json_false(),
                                    "attacked", 1))));
    return effects;
}

/* The attack of actor on target (for an attack of opportunity under engine 2, the target as it
 * stood in the square it was leaving, and the reaction it answers). */
static json_t *action_attack_on(struct resolve_ctx *x, json_t *in, json_t *actor, json_t *target,
                                json_t *reaction, size_t reaction_at)
{
    bool aoo = strcmp(enc_str(in, "kind"), "attack_of_opportunity") == 0;
    const struct rules_encounter *te = enc_typed(x);
    int ai = -1, ti = -1;
    const struct rules_enc_combatant *who = enc_typed_of(x, actor, &ai);
    /* Engine 3: an attack of opportunity that names no profile is made with the first melee
     * one (rules_encounter_aoo_profile_of). */
    bool first_melee = aoo && rules_engine_has(x->engine, RULES_ENGINE_MELEE_AOO) &&
                       *enc_str(in, "attack") == '\0';
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
        there.body.x = (int)enc_num(reaction, "x");
        there.body.y = (int)enc_num(reaction, "y");
        if (json_is_integer(json_object_get(reaction, "facing")))
            there.facing = (int)enc_num(reaction, "facing");
    }
    struct rules_enc_attack_gate gate = {0};
    int rc = rules_encounter_attack_gate(te, ai, ti, p, aoo, &there, &gate);
    if (attack_gate_refused(x, enc_str(actor, "id"), enc_str(atk, "name"), rc, gate.made, foe))
        return NULL;
    struct svc_answer a = {0};
    struct rules_attack_after after = {0};
    json_t *derived = NULL;
    if (!rule_attack(x, in, actor, target, atk, aoo, reaction != NULL ? &there : NULL, who, whom,
                     &gate, &a, &after, &derived))
        return NULL;
    /* What the action itself gave keeps its own pointer; the rest the encounter built. */
    static const struct enc_member own[] = {{"/results", "/results"},
                                            {"/cover", "/cover"},
                                            {"/concealment", "/concealment"},
                                            {NULL, NULL}};
    json_t *ans = enc_answer_own(x, &a, "/attack", own, "attack");
    if (ans == NULL) {
        json_decref(derived);
        return NULL;
    }
    if (derived != NULL)
        json_object_set_new(ans, "derived", derived);
    struct answered answered = {reaction_at, enc_num(reaction, "step"), enc_num(reaction, "x"),
                                enc_num(reaction, "y")};
    json_t *effects = attack_effects(x, ans, actor, enc_str(target, "id"), aoo,
                                     reaction != NULL ? &answered : NULL, &after);
    json_t *out = enc_outcome(ans, effects);
    if (rules_engine_has(
            x->engine,
            RULES_ENGINE_ACTION_ECONOMY)) /* inside a full attack or a reaction record too */
        enc_tag_result(out, "attack");
    return out;
}

/* The dice of an attack of opportunity the engine makes (calloc'd; NULL after an error in e):
 * the table's `results` (borrowed), or else the seed of the event's attack x->seq. */
static struct svc_dice_source *opportunity_dice(struct resolve_ctx *x, json_t *results,
                                                struct svc_errors *e)
{
    struct svc_dice_source *src = calloc(1, sizeof *src);
    if (src == NULL)
        svc_errors_add(e, "", "the dice could not be readied");
    else if (results != NULL)
        svc_decode_dice_results(results, src, e);
    else
        *src = (struct svc_dice_source){.seed = enc_event_seed(x->state, x->seq)};
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
        struct svc_answer a = {0};
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
            if (rules_engine_has(x->engine, RULES_ENGINE_DERIVED_DEFENSE)) {
                struct rules_enc_attack_ask ask = {.a = o->by, .t = o->mover, .p = o->profile};
                json_object_set_new(ans, "derived", derived_json(te, &ask, &o->setup, room.index));
            }
            struct answered answered = {at, re->step, re->x, re->y};
            json_t *effects =
                attack_effects(x, ans, actor, mover->id, true, &answered, &o->ruling.after);
            out = enc_outcome(ans, effects);
            if (rules_engine_has(x->engine, RULES_ENGINE_ACTION_ECONOMY))
                enc_tag_result(out, "attack");
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
    /* Engine 2: an attack of opportunity answers a move that provoked it from this attacker,
     * before any other event, and strikes the mover in the square it was leaving (004
     * Provoking an Attack of Opportunity by Moving). */
    json_t *reaction = NULL;
    size_t reaction_at = 0;
    json_t *where = NULL; /* the target where the attack finds it */
    if (rules_engine_has(x->engine, RULES_ENGINE_REACTIONS) && is_aoo) {
        reaction = enc_open_reaction(s, enc_str(target, "id"), enc_str(actor, "id"), &reaction_at);
        if (reaction == NULL) {
            svc_errors_add(x->e, "/kind",
                           "'%s' provoked no attack of opportunity from '%s': one answers a move "
                           "that provoked it, before any other event (004 Attacks of "
                           "Opportunity)",
                           enc_str(target, "id"), enc_str(actor, "id"));
            return NULL;
        }
        if (!enc_settles_in_order(x, reaction, reaction_at))
            return NULL;
        where = json_copy(target);
        json_object_set(where, "x", json_object_get(reaction, "x"));
        json_object_set(where, "y", json_object_get(reaction, "y"));
        if (json_is_integer(json_object_get(reaction, "facing")))
            json_object_set(where, "facing", json_object_get(reaction, "facing"));
        target = where;
    }
    /* Answered, the move goes on: the attacks the engine makes itself that waited for this
     * one are made now, and this event's ruling lists them. */
    const struct rules_encounter *te = reaction != NULL ? enc_typed(x) : NULL;
    bool settles = te != NULL && rules_encounter_settles_on_answer(te);
    json_t *out = action_attack_on(x, in, actor, target, reaction, reaction_at);
    if (out != NULL && settles)
        enc_settle_waiting(x, enc_str(reaction, "mover"), json_object_get(in, "reaction_results"),
                           json_object_get(out, "effects"), json_object_get(out, "result"));
    if (out != NULL && svc_errors_any(x->e)) { /* the table's dice for an engine attack */
        json_decref(out);
        out = NULL;
    }
    json_decref(where);
    return out;
}

#define FULL_ATTACK_RULE                                                                           \
    "d20 3.5 SRD, Full Attack: iterative attacks at -5 each, from the base attack bonus"

/* A full attack's plan as decoded: the rules' items (rules_encounter_full_attack_plan), with
 * each attack's target id (NULL: the action's) and each step's square. */
struct plan_item {
    struct rules_plan_item it;
    const char *target;
    json_t *square;
};

/* Reads in's plan into items (count attacks when it has none): "attack" or {"step": {x, y}};
 * from engine 4 (RULES_ENGINE_FULL_ATTACK_PLANS) also {"attack": {"target": ID}} and
 * {"facing": F}. Returns how many items, or -1 after errors at /plan. Its shape only: the
 * rules check what the items ask (rules_encounter_full_attack_plan). */
static int decode_plan(json_t *in, int count, int engine, struct plan_item items[RULES_PLAN_MAX],
                       struct svc_errors *e)
{
    static const struct plan_item attack = {{RULES_PLAN_ATTACK, -1, -1}, NULL, NULL};
    json_t *plan = json_object_get(in, "plan");
    if (plan == NULL) {
        for (int i = 0; i < count && i < RULES_PLAN_MAX; i++)
            items[i] = attack;
        return count < RULES_PLAN_MAX ? count : RULES_PLAN_MAX;
    }
    bool wider = rules_engine_has(engine, RULES_ENGINE_FULL_ATTACK_PLANS);
    size_t max = wider ? RULES_PLAN_MAX : RULES_PLAN_MAX_ENGINE_3;
    if (!json_is_array(plan) || json_array_size(plan) == 0 || json_array_size(plan) > max) {
        svc_errors_add(e, "/plan",
                       wider ? "must be a list of 1 to 8 items, each \"attack\", {\"attack\": "
                               "{\"target\": ID}}, {\"step\": {\"x\", \"y\"}} or "
                               "{\"facing\": F}"
                             : "must be a list of 1 to 4 items, each \"attack\" or {\"step\": "
                               "{\"x\", \"y\"}}");
        return -1;
    }
    size_t i;
    json_t *item;
    json_array_foreach(plan, i, item)
    {
        char p[32];
        snprintf(p, sizeof p, "/plan/%zu", i);
        json_t *sq = json_object_get(item, "step");
        json_t *at = json_object_get(item, "attack");
        json_t *f = json_object_get(item, "facing");
        bool one = json_is_object(item) && json_object_size(item) == 1;
        items[i] = attack;
        if (json_is_string(item) && strcmp(json_string_value(item), "attack") == 0)
            continue;
        if (one && json_is_object(sq) && json_object_size(sq) == 2 &&
            json_is_integer(json_object_get(sq, "x")) &&
            json_is_integer(json_object_get(sq, "y"))) {
            items[i] = (struct plan_item){{RULES_PLAN_STEP, -1, -1}, NULL, sq};
            continue;
        }
        if (wider && one && json_is_object(at) && json_object_size(at) == 1 &&
            json_is_string(json_object_get(at, "target"))) {
            items[i].target = json_string_value(json_object_get(at, "target"));
            continue;
        }
        if (wider && one && json_is_integer(f) && json_integer_value(f) >= 0 &&
            json_integer_value(f) <= 7) {
            items[i] =
                (struct plan_item){{RULES_PLAN_FACING, -1, (int)json_integer_value(f)}, NULL, NULL};
            continue;
        }
        svc_errors_add(e, p,
                       wider ? "must be \"attack\", {\"attack\": {\"target\": ID}}, "
                               "{\"step\": {\"x\": X, \"y\": Y}} or {\"facing\": 0 to 7}"
                             : "must be \"attack\" or {\"step\": {\"x\": X, \"y\": Y}}");
    }
    return svc_errors_any(e) ? -1 : (int)json_array_size(plan);
}

bool enc_check_plan(json_t *in, int engine, struct svc_errors *e)
{
    struct plan_item items[RULES_PLAN_MAX];
    return decode_plan(in, 0, engine, items, e) >= 0;
}

/* Why rules_encounter_full_attack_plan refused a plan (rc), at the item it names. */
static void plan_refusal(struct resolve_ctx *x, json_t *actor, bool has_facing, int rc,
                         const struct rules_full_attack_plan *plan)
{
    char p[48];
    switch (rc) {
    case RULES_PLAN_MONSTER:
        svc_errors_add(x->e, "/plan",
                       "only a player character may trade attacks for 5-foot steps; '%s' is not "
                       "one (player_character) (%s: \"Monsters cannot trade attack actions for "
                       "5-foot steps\")",
                       enc_str(actor, "id"), RULES_TRADE_SOURCE);
        return;
    case RULES_PLAN_TOO_MANY:
        svc_errors_add(x->e, "/plan",
                       "%d attacks and 5-foot steps, but the full attack has %d (%s: each step "
                       "uses up one of its attacks)",
                       plan->attacks + plan->steps, plan->iterative, RULES_TRADE_SOURCE);
        return;
    case RULES_PLAN_NO_FACING:
    case RULES_PLAN_FACING_SPENT:
        snprintf(p, sizeof p, "/plan/%d/facing", plan->item);
        svc_errors_add(x->e, p, "%s",
                       rc == RULES_PLAN_FACING_SPENT
                           ? "its one free facing change is spent, and a further one takes a "
                             "move action, which a full attack leaves none of (000 Changing "
                             "Facing)"
                       : has_facing ? "is not a facing of this grid"
                                    : "the actor has no facing under these rules (000 Combat "
                                      "Facing)");
        return;
    case RULES_PLAN_SELF:
        snprintf(p, sizeof p, "/plan/%d/attack/target", plan->item);
        svc_errors_add(x->e, p, "must be another combatant than the actor");
        return;
    default:
        svc_errors_add(x->e, "/plan", "is not a plan this engine rules");
    }
}

/* Moves the errors of attack i of a full attack (from, left empty) into `to`, each message
 * saying which attack it was: its dice (the attack's /results) are the full attack's
 * /results/i, its other members the full attack's own. */
static void refused_attack(struct svc_errors *from, int i, struct svc_errors *to)
{
    size_t k;
    json_t *err;
    json_array_foreach(from->list, k, err)
    {
        const char *p = enc_str(err, "pointer");
        char at[CODEC_PTR_MAX];
        if (strncmp(p, "/results", 8) == 0 && (p[8] == '\0' || p[8] == '/'))
            snprintf(at, sizeof at, "/results/%d%s", i, p + 8);
        else
            snprintf(at, sizeof at, "%s", p);
        svc_errors_add(to, at, "attack %d of the full attack (at %+d): %s", i + 1,
                       rules_iterative_penalty(i), enc_str(err, "message"));
    }
    svc_errors_free(from);
}

/* Engine 2: a full attack, a full-round action (its budget is spent by resolve_action): the
 * attack named (or the first) at its bonus, then again at -5 for each further iterative attack
 * the combatant's base attack bonus gives (d20 3.5 SRD, Full Attack: "an additional attack at
 * base attack bonus +6, +11 and +16", each 5 less), against the same target, each ruled as a
 * single attack on the state the attacks before it left, with its own dice (results: one array
 * per attack). Once the target drops, no more attacks. A player character's plan may trade
 * attacks for 5-foot steps before, between or after them (001 Trade Away Attacks: each step
 * uses up the worst attack left, so the attacks made keep the best bonuses; the steps do not
 * count as movement and provoke nothing). */
/* A full attack as it is made, on a scratch copy of the state: what each item of its plan
 * rules and leaves. */
struct full_attack_run {
    json_t *scratch; /* the state as the items so far leave it */
    json_t *rulings; /* each attack's ruling */
    json_t *effects; /* the effects so far */
    json_t *stepped; /* {x, y, at} of each 5-foot step */
    json_t *turned;  /* {facing, at} of each change of facing */
    json_t *aimed;   /* the target of each attack */
    int made;        /* attacks made */
};

/* The plan's items as rules/ takes them (plain), each named target found in the encounter;
 * false after adding the error of a target that names no combatant. */
static bool plan_targets(struct resolve_ctx *x, const struct rules_encounter *te,
                         const struct plan_item *items, struct rules_plan_item *plain, int n_items)
{
    assert(n_items >= 0 && n_items <= RULES_PLAN_MAX);
    for (int i = 0; i < n_items; i++) {
        plain[i] = items[i].it;
        if (items[i].target == NULL)
            continue;
        plain[i].target = rules_encounter_find(te, items[i].target);
        if (plain[i].target < 0) {
            char p[48];
            snprintf(p, sizeof p, "/plan/%d/attack/target", i);
            svc_errors_add(x->e, p, "names no combatant");
            return false;
        }
    }
    return true;
}

/* Appends one item's effects (a new array) to the run: folded into its scratch state. */
static void run_effects(struct full_attack_run *run, json_t *ef)
{
    enc_fold(run->scratch, ef);
    json_array_extend(run->effects, ef);
    json_decref(ef);
}

/* The plan's 5-foot step (item, to square) by me, the actor as the run left it; false after
 * adding errors. */
static bool run_step(struct resolve_ctx *x, struct full_attack_run *run, json_t *actor, json_t *me,
                     int item, json_t *square)
{
    char p[32];
    snprintf(p, sizeof p, "/plan/%d/step", item);
    json_t *fields = NULL;
    struct resolve_ctx each = enc_ctx_on(x, run->scratch);
    json_t *ans = enc_rule_traded_step(&each, me, square, p, &fields);
    enc_ctx_release(&each);
    if (ans == NULL)
        return false;
    json_array_append_new(run->stepped,
                          json_pack("{s:O, s:O, s:i}", "x", json_object_get(fields, "x"), "y",
                                    json_object_get(fields, "y"), "at", item));
    run_effects(run, json_pack("[o]", enc_effect_set(enc_str(actor, "id"), fields)));
    json_decref(ans);
    return true;
}

/* The plan's attack (item, the i-th of the full attack) by me at target_id: ruled as a single
 * attack (action_attack_on) on the scratch state, with its own dice and iterative bonus; an
 * attack at a target that dropped is not made. False after adding errors. */
static bool run_attack(struct resolve_ctx *x, struct full_attack_run *run, json_t *in,
                       json_t *actor, json_t *me, int item, int i, const char *target_id)
{
    json_t *target = enc_find(run->scratch, target_id, NULL);
    if (target == NULL) {
        char p[48];
        snprintf(p, sizeof p, "/plan/%d/attack/target", item);
        svc_errors_add(x->e, p, "names no combatant");
        return false;
    }
    if (run->made > 0 && enc_is_down(target))
        return true; /* no more attacks at a target that dropped; others may still follow */
    json_t *one = json_pack("{s:s, s:s, s:s}", "type", "attack", "actor", enc_str(me, "id"),
                            "target", enc_str(target, "id"));
    static const char *const pass[] = {"attack", "cover", "concealment", "bonus", NULL};
    for (int p = 0; pass[p]; p++)
        if (json_object_get(in, pass[p]))
            json_object_set(one, pass[p], json_object_get(in, pass[p]));
    json_t *results = json_object_get(in, "results");
    if (json_array_get(results, (size_t)i) != NULL)
        json_object_set(one, "results", json_array_get(results, (size_t)i));
    struct resolve_ctx each = enc_ctx_on(x, run->scratch);
    each.seq = x->seq + ((long long)(i + 1) << 32); /* each attack its own dice */
    each.iterative = i;                             /* its profile at its iterative bonus */
    struct svc_errors mine;
    svc_errors_init(&mine);
    each.e = &mine;
    json_t *out = action_attack_on(&each, one, me, target, NULL, 0);
    enc_ctx_release(&each);
    refused_attack(&mine, i, x->e);
    if (out != NULL) {
        json_array_append(run->rulings, json_object_get(out, "result"));
        json_array_append_new(run->aimed, json_string(enc_str(target, "id")));
        enc_fold(run->scratch, json_object_get(out, "effects"));
        /* The actor's turn is the full attack's (resolve_action stamps its budget), not each
         * single attack's. */
        size_t n;
        json_t *ef;
        json_array_foreach(json_object_get(out, "effects"), n, ef)
        {
            json_t *fields = json_object_get(ef, "fields");
            if (strcmp(enc_str(ef, "target"), enc_str(actor, "id")) == 0)
                json_object_del(fields, "turn");
            if (fields == NULL || json_object_size(fields) > 0)
                json_array_append(run->effects, ef);
        }
        run->made++;
    }
    json_decref(out);
    json_decref(one);
    return out != NULL;
}

/* Makes the plan's n_items items in order on the run; false after adding errors (the first
 * item refused ends it). */
static bool run_plan(struct resolve_ctx *x, struct full_attack_run *run, json_t *in, json_t *actor,
                     const struct plan_item *items, int n_items,
                     const struct rules_full_attack_plan *plan)
{
    for (int item = 0; item < n_items; item++) {
        json_t *me = enc_find(run->scratch, enc_str(actor, "id"), NULL);
        if (items[item].it.kind == RULES_PLAN_STEP) {
            if (!run_step(x, run, actor, me, item, items[item].square))
                return false;
        } else if (items[item].it.kind == RULES_PLAN_FACING) {
            /* 000 Changing Facing, between two attacks: its one free change, spent on the turn
             * by the plan's check, as Kroh turns from the bugbear to the goblin (000). */
            int facing = items[item].it.facing;
            run_effects(run,
                        json_pack("[o]", enc_effect_set(enc_str(me, "id"),
                                                        json_pack("{s:i}", "facing", facing))));
            json_array_append_new(run->turned,
                                  json_pack("{s:i, s:i}", "facing", facing, "at", item));
        } else {
            assert(plan->attack_of[item] >= 0);
            const char *target_id =
                items[item].target != NULL ? items[item].target : enc_str(in, "target");
            if (!run_attack(x, run, in, actor, me, item, plan->attack_of[item], target_id))
                return false;
        }
    }
    return true;
}

json_t *enc_action_full_attack(struct resolve_ctx *x, json_t *in, json_t *actor)
{
    const struct rules_encounter *te = enc_typed(x);
    int ai = -1, ti = -1;
    if (te == NULL || enc_typed_of(x, actor, &ai) == NULL)
        return NULL;
    ti = rules_encounter_find(te, enc_str(in, "target"));
    const struct rules_enc_combatant *me0 = &te->combatants[ai];
    int count = rules_iterative_attacks(me0->base_attack_bonus < 0      ? 0
                                        : me0->base_attack_bonus > 1000 ? 1000
                                                                        : me0->base_attack_bonus);
    struct plan_item items[RULES_PLAN_MAX];
    struct rules_plan_item plain[RULES_PLAN_MAX];
    int n_items = decode_plan(in, count, x->engine, items, x->e);
    if (n_items < 0 || !plan_targets(x, te, items, plain, n_items))
        return NULL;
    struct rules_turn spare = {0};
    struct rules_turn_limits none = {0};
    struct rules_full_attack_plan plan;
    int rc = rules_encounter_full_attack_plan(te, ai, ti, plain, n_items,
                                              x->turn != NULL ? x->turn : &spare,
                                              x->limits != NULL ? x->limits : &none, &plan);
    if (rc != RULES_PLAN_OK) {
        plan_refusal(x, actor, rules_has_facing(enc_rules_of(x), &me0->body), rc, &plan);
        return NULL;
    }
    int steps = plan.steps, facings = plan.facings, attacks = plan.attacks;
    bool targets = false;
    for (int i = 0; i < n_items; i++)
        targets |= items[i].target != NULL;
    json_t *results = json_object_get(in, "results");
    if (results != NULL &&
        (!json_is_array(results) || json_array_size(results) > (size_t)attacks)) {
        svc_errors_add(x->e, "/results",
                       "a full attack takes one array of results per attack (%d here)", attacks);
        return NULL;
    }
    struct full_attack_run run = {.scratch = json_deep_copy(x->state),
                                  .rulings = json_array(),
                                  .effects = json_array(),
                                  .stepped = json_array(),
                                  .turned = json_array(),
                                  .aimed = json_array()};
    bool ok = run_plan(x, &run, in, actor, items, n_items, &plan);
    json_decref(run.scratch);
    if (!ok) {
        json_decref(run.rulings);
        json_decref(run.effects);
        json_decref(run.stepped);
        json_decref(run.turned);
        json_decref(run.aimed);
        return NULL;
    }
    json_t *result =
        json_pack("{s:o, s:i, s:i, s:s}", "attacks", run.rulings, "attacks_made", run.made,
                  "iterative_attacks", count, "rule",
                  steps > 0 ? FULL_ATTACK_RULE "; " RULES_TRADE_SOURCE
                                               ": each 5-foot step uses up the worst attack left"
                            : FULL_ATTACK_RULE);
    /* Only when the plan has them: full attacks without a plan rule as before. */
    if (steps > 0)
        json_object_set_new(result, "steps", run.stepped);
    else
        json_decref(run.stepped);
    if (facings > 0)
        json_object_set_new(result, "facings", run.turned);
    else
        json_decref(run.turned);
    if (targets || facings > 0)
        json_object_set_new(result, "targets", run.aimed);
    else
        json_decref(run.aimed);
    return enc_outcome(result, run.effects);
}
