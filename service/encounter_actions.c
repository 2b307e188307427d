/* Encounters: the action kinds (attack and attack of opportunity, move, 5-foot step, facing,
 * forced movement, fall, condition, stand up), each ruled by the stateless endpoint that rules
 * it, once enc_resolve's resolve_action has checked the actor's turn and budget. Each takes the
 * state before the event, the input and the event's number, and returns {"result": ...,
 * "effects": [...]} or NULL after adding errors (the model: encounter_internal.h). */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "codec.h"
#include "encounter_internal.h"
#include "hp.h"
#include "movement.h"
#include "reaction.h"

/* The other combatants as a movement request sees them, sides relative to `me`. */
json_t *enc_map_creatures(json_t *state, json_t *me)
{
    json_t *list = json_array();
    size_t i;
    json_t *c;
    json_array_foreach(combatants(state), i, c)
    {
        if (c == me)
            continue;
        json_t *o = enc_placement(c);
        json_object_set_new(o, "id", json_string(str(c, "id")));
        json_object_set_new(
            o, "side",
            json_string(strcmp(str(c, "side"), str(me, "side")) == 0 ? "ally" : "enemy"));
        json_object_set_new(o, "conscious", json_boolean(!enc_is_down(c)));
        /* 004 Flat-Footed: "A flat-footed combatant can't make attacks of opportunity." */
        json_object_set_new(o, "can_threaten", json_boolean(!has_condition(c, "flat_footed")));
        json_object_set_new(o, "combat_reflexes",
                            json_boolean(json_is_true(json_object_get(c, "combat_reflexes"))));
        json_t *a0 = json_array_get(json_object_get(c, "attacks"), 0);
        json_object_set_new(o, "attack_bonus", json_integer(a0 ? num(a0, "attack_bonus") : 0));
        json_array_append_new(list, o);
    }
    return list;
}

json_t *enc_mover_of(json_t *c, json_t *turn)
{
    json_t *o = enc_placement(c);
    static const char *const keys[] = {"speeds", "armor",      "load", "constitution",
                                       "runner", "darkvision", NULL};
    for (int i = 0; keys[i]; i++) {
        json_t *v = json_object_get(c, keys[i]);
        if (v != NULL)
            json_object_set(o, keys[i], v);
    }
    json_object_set_new(o, "prone", json_boolean(has_condition(c, "prone")));
    json_object_set_new(o, "moved_this_round",
                        json_boolean(json_is_true(json_object_get(turn, "moved"))));
    json_object_set_new(o, "ran_this_round",
                        json_boolean(json_is_true(json_object_get(turn, "ran"))));
    return o;
}

/* Whether actor's melee attack can reach target: 004 Threatened Area and 001 Reach (its
 * reach, or only the ring of its reach weapon). On its own action a combatant swings whether
 * or not it could make attacks of opportunity (flat-footed). */
bool enc_reaches(json_t *state, json_t *actor, json_t *target)
{
    struct rules_options o;
    enc_state_rules(state, &o);
    struct svc_errors scratch;
    svc_errors_init(&scratch);
    struct rules_creature a, t;
    json_t *pa = enc_placement(actor), *pt = enc_placement(target);
    svc_decode_creature(pa, "", &o, true, NULL, &a, &scratch);
    svc_decode_creature(pt, "", &o, true, NULL, &t, &scratch);
    json_decref(pa);
    json_decref(pt);
    svc_errors_free(&scratch);
    a.can_threaten = true;
    return rules_threatens_creature(&o, &a, &t);
}

/* Engine 2: the open reaction of `by` to `mover`'s last move (set by action_move), or NULL.
 * *at gets its index in the state's reactions. */
static json_t *open_reaction(json_t *state, const char *mover, const char *by, size_t *at)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(state, "reactions"), i, r)
    {
        if (strcmp(str(r, "mover"), mover) == 0 && strcmp(str(r, "by"), by) == 0) {
            *at = i;
            return r;
        }
    }
    return NULL;
}

/* Whether open reaction r is one the encounter waits for (its reactor's policy, or the mover's
 * decision, is ask). Reactions opened with no policy (engine 2's) lapse at the next event. */
static bool is_asked(json_t *r)
{
    return strcmp(str(r, "policy"), "ask") == 0;
}

/* The earliest step of mover's move with an asked reaction open in list, other than the one at
 * index `except` (pass SIZE_MAX for none); LLONG_MAX when there is none. */
static long long first_asked_step(json_t *list, size_t except)
{
    long long first = LLONG_MAX;
    size_t i;
    json_t *r;
    json_array_foreach(list, i, r)
    {
        if (i != except && is_asked(r) && num(r, "step") < first)
            first = num(r, "step");
    }
    return first;
}

/* The effect that leaves `list` (stolen) as the open reactions, with awaiting_reactions set
 * when it changes: true while an asked reaction is open. */
static json_t *reactions_effect(json_t *state, json_t *list)
{
    bool awaiting = first_asked_step(list, SIZE_MAX) != LLONG_MAX;
    json_t *fields = json_pack("{s:o}", "reactions", list);
    if (awaiting != flag(state, "awaiting_reactions"))
        json_object_set_new(fields, "awaiting_reactions", json_boolean(awaiting));
    return effect_set("encounter", fields);
}

/* Refuses (false, after adding an error) to settle reaction r, at index `at` of the open
 * reactions, while an asked one is open at an earlier step of the move: the mover reached r's
 * square only after that one (rules_aoo_may_settle). */
static bool settles_in_order(struct resolve_ctx *x, json_t *r, size_t at)
{
    json_t *list = json_object_get(x->state, "reactions");
    long long asked = first_asked_step(list, at);
    if (asked == LLONG_MAX || rules_aoo_may_settle((int)num(r, "step"), (int)asked))
        return true;
    size_t i;
    json_t *o, *first = NULL;
    json_array_foreach(list, i, o)
    {
        if (i != at && is_asked(o) && num(o, "step") == asked) {
            first = o;
            break;
        }
    }
    svc_errors_add(x->e, "/actor",
                   "the reaction of '%s' to step %lld of '%s''s move comes first: the mover left "
                   "that square before this one, so it is answered or declined first (%s)",
                   first != NULL ? str(first, "by") : "another combatant", asked, str(r, "mover"),
                   RULES_REACTION_SOURCE);
    return false;
}

/* Attacks of opportunity a combatant may make a round: one (004 Making an Attack of
 * Opportunity: "a combatant can only make one per round"); with Combat Reflexes one more per
 * point of Dexterity bonus (d20 3.5 SRD, Combat Reflexes; 000 Combat Reflexes only adds flank
 * attacks without penalty). */
static long long aoo_allowed(json_t *c)
{
    long long dex = json_object_get(c, "dex") ? num(c, "dex") : 10;
    long long bonus = dex >= 10 ? (dex - 10) / 2 : 0;
    return flag(c, "combat_reflexes") ? 1 + bonus : 1;
}

static json_t *action_attack_on(struct resolve_ctx *x, json_t *in, json_t *actor, json_t *target,
                                json_t *reaction, size_t reaction_at);
static json_t *action_full_attack(struct resolve_ctx *x, json_t *in, json_t *actor);
static json_t *action_attack(struct resolve_ctx *x, json_t *in, json_t *actor);

/* Whether any open reaction is one the engine makes itself once it may (policy always). */
static bool any_made_by_engine(json_t *state)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(state, "reactions"), i, r)
    {
        if (strcmp(str(r, "policy"), "always") == 0)
            return true;
    }
    return false;
}

/* The attacks of opportunity the engine makes itself (the reactor's policy always, or the
 * mover's decision take) open in scratch's reactions against mover that may be settled now (no
 * asked reaction open at an earlier step: rules_aoo_may_settle), in step order: each as the
 * reactor's answer, at the square being left (action_attack), with its first attack profile and
 * dice of its own from the event's seed, or results[by] (the caller's dice). Each is folded into
 * scratch, its effects appended to `effects` and a record ({by, step, x, y, outcome: made,
 * attack, stopped when it dropped the mover}) to `records`. A reaction whose attack is refused
 * (its reactor has made its attacks of opportunity this round) is closed and recorded as
 * refused, with why. 004 Attacks of Opportunity; the move goes on unless the mover drops
 * (action_attack_on closes the reactions to later steps and puts it back). */
static void settle_reactions(struct resolve_ctx *x, json_t *scratch, const char *mover,
                             json_t *results, json_t *effects, json_t *records)
{
    for (int k = 0; k < MAX_COMBATANTS; k++) {
        json_t *list = json_object_get(scratch, "reactions");
        long long asked = first_asked_step(list, SIZE_MAX);
        json_t *r = NULL;
        size_t at = 0, i;
        json_t *o;
        json_array_foreach(list, i, o)
        {
            if (strcmp(str(o, "policy"), "always") == 0 && strcmp(str(o, "mover"), mover) == 0 &&
                (asked == LLONG_MAX || rules_aoo_may_settle((int)num(o, "step"), (int)asked))) {
                r = o;
                at = i;
                break;
            }
        }
        if (r == NULL)
            return;
        const char *by = str(r, "by");
        json_t *record =
            json_pack("{s:s, s:O, s:O, s:O}", "by", by, "step", json_object_get(r, "step"), "x",
                      json_object_get(r, "x"), "y", json_object_get(r, "y"));
        json_t *reactor = find(scratch, by, NULL);
        bool was_down = enc_is_down(find(scratch, mover, NULL));
        json_t *in = json_pack("{s:s, s:s, s:s, s:s}", "type", "attack", "kind",
                               "attack_of_opportunity", "actor", by, "target", mover);
        if (json_object_get(results, by) != NULL)
            json_object_set(in, "results", json_object_get(results, by));
        struct svc_errors why;
        svc_errors_init(&why);
        struct resolve_ctx each = *x;
        each.state = scratch;
        each.result_text = NULL;
        each.e = &why;
        each.settling = true;
        each.seq = x->seq + ((long long)(k + 1) << 32); /* each attack its own dice */
        json_t *out = reactor != NULL ? action_attack(&each, in, reactor) : NULL;
        json_t *made = out != NULL ? json_object_get(out, "effects") : json_array();
        if (out != NULL) {
            json_object_set_new(record, "outcome", json_string("made"));
            json_object_set(record, "attack", json_object_get(out, "result"));
            json_incref(made);
        } else {
            /* Closed unmade: the reactions but this one. */
            json_t *left = json_array();
            json_array_foreach(list, i, o)
            {
                if (i != at)
                    json_array_append(left, o);
            }
            json_array_append_new(made, reactions_effect(scratch, left));
            json_object_set_new(record, "outcome", json_string("refused"));
            const char *msg =
                json_string_value(json_object_get(json_array_get(why.list, 0), "message"));
            json_object_set_new(record, "why",
                                json_string(msg ? msg : "the attacker is no longer there"));
        }
        enc_fold(scratch, made);
        json_array_extend(effects, made);
        json_decref(made);
        if (out != NULL && !was_down && enc_is_down(find(scratch, mover, NULL)))
            json_object_set_new(record, "stopped", json_true());
        json_array_append_new(records, record);
        json_decref(out);
        json_decref(in);
        svc_errors_free(&why);
    }
}

static json_t *action_attack(struct resolve_ctx *x, json_t *in, json_t *actor)
{
    json_t *s = x->state;
    json_t *target = find(s, str(in, "target"), NULL);
    if (target == NULL) {
        svc_errors_add(x->e, "/target", "names no combatant");
        return NULL;
    }
    bool is_aoo = strcmp(str(in, "kind"), "attack_of_opportunity") == 0;
    /* Engine 2: an attack of opportunity answers a move that provoked it from this attacker,
     * before any other event, and strikes the mover in the square it was leaving (004
     * Provoking an Attack of Opportunity by Moving). */
    json_t *reaction = NULL;
    size_t reaction_at = 0;
    json_t *where = NULL; /* the target where the attack finds it */
    if (x->engine >= 2 && is_aoo) {
        reaction = open_reaction(s, str(target, "id"), str(actor, "id"), &reaction_at);
        if (reaction == NULL) {
            svc_errors_add(x->e, "/kind",
                           "'%s' provoked no attack of opportunity from '%s': one answers a move "
                           "that provoked it, before any other event (004 Attacks of "
                           "Opportunity)",
                           str(target, "id"), str(actor, "id"));
            return NULL;
        }
        if (!settles_in_order(x, reaction, reaction_at))
            return NULL;
        where = json_copy(target);
        json_object_set(where, "x", json_object_get(reaction, "x"));
        json_object_set(where, "y", json_object_get(reaction, "y"));
        if (json_is_integer(json_object_get(reaction, "facing")))
            json_object_set(where, "facing", json_object_get(reaction, "facing"));
        target = where;
    }
    /* Answered, the move goes on: the attacks the engine makes itself that waited for this
     * one are made now, and this event's ruling lists them (so it is a value, not text). */
    bool settles = reaction != NULL && !x->settling && any_made_by_engine(s);
    struct resolve_ctx here = *x;
    if (settles)
        here.result_text = NULL;
    json_t *out = action_attack_on(&here, in, actor, target, reaction, reaction_at);
    if (out != NULL && settles) {
        json_t *scratch = json_deep_copy(s);
        json_t *records = json_array();
        enc_fold(scratch, json_object_get(out, "effects"));
        settle_reactions(x, scratch, str(reaction, "mover"),
                         json_object_get(in, "reaction_results"), json_object_get(out, "effects"),
                         records);
        if (json_array_size(records) > 0)
            json_object_set(json_object_get(out, "result"), "reactions", records);
        json_decref(records);
        json_decref(scratch);
    }
    json_decref(where);
    return out;
}

/* A reactor declines the reaction open to it (action decline_reaction): the reaction is
 * closed, and the move goes on, the attacks the engine makes itself that waited for it made
 * now (settle_reactions). It spends nothing of the reactor's turn. */
static json_t *action_decline(struct resolve_ctx *x, json_t *in, json_t *actor)
{
    json_t *s = x->state;
    const char *mover = str(in, "target");
    size_t at = 0;
    json_t *r = open_reaction(s, mover, str(actor, "id"), &at);
    if (r == NULL) {
        svc_errors_add(x->e, "/target",
                       "'%s' has no reaction open to a move of '%s': only an open reaction can be "
                       "declined (%s)",
                       str(actor, "id"), mover, RULES_REACTION_SOURCE);
        return NULL;
    }
    if (!settles_in_order(x, r, at))
        return NULL;
    json_t *left = json_array();
    size_t i;
    json_t *o;
    json_array_foreach(json_object_get(s, "reactions"), i, o)
    {
        if (i != at)
            json_array_append(left, o);
    }
    json_t *effects = json_pack("[o]", reactions_effect(s, left));
    json_t *result = json_pack("{s:s, s:s, s:O, s:O, s:O, s:s}", "declined_by", str(actor, "id"),
                               "mover", mover, "step", json_object_get(r, "step"), "x",
                               json_object_get(r, "x"), "y", json_object_get(r, "y"), "rule",
                               "004 Making an Attack of Opportunity: the threatening enemy may "
                               "make the attack; this one does not");
    json_t *scratch = json_deep_copy(s);
    json_t *records = json_array();
    enc_fold(scratch, effects);
    settle_reactions(x, scratch, mover, json_object_get(in, "reaction_results"), effects, records);
    if (json_array_size(records) > 0)
        json_object_set(result, "reactions", records);
    json_decref(records);
    json_decref(scratch);
    return outcome(result, effects);
}

/* The attacks a full attack makes: one, and one more for each of base attack bonus +6, +11 and
 * +16 (d20 3.5 SRD, Full Attack). */
int enc_iterative_attacks(json_t *actor)
{
    long long bab =
        json_object_get(actor, "base_attack_bonus") ? num(actor, "base_attack_bonus") : 0;
    return bab >= 16 ? 4 : bab >= 11 ? 3 : bab >= 6 ? 2 : 1;
}

/* Engine 2: a full attack, a full-round action (its budget is spent by resolve_action): the
 * attack named (or the first) at its bonus, then again at -5 for each further iterative attack
 * the combatant's base attack bonus gives (d20 3.5 SRD, Full Attack: "an additional attack at
 * base attack bonus +6, +11 and +16", each 5 less), against the same target, each ruled as a
 * single attack on the state the attacks before it left, with its own dice (results: one array
 * per attack). The attacks stop early when the target drops. */
static json_t *action_full_attack(struct resolve_ctx *x, json_t *in, json_t *actor)
{
    int count = enc_iterative_attacks(actor);
    json_t *results = json_object_get(in, "results");
    if (results != NULL && (!json_is_array(results) || json_array_size(results) > (size_t)count)) {
        svc_errors_add(x->e, "/results",
                       "a full attack takes one array of results per attack (%d here)", count);
        return NULL;
    }
    json_t *scratch = json_deep_copy(x->state);
    json_t *rulings = json_array(), *effects = json_array();
    bool ok = true;
    int made = 0;
    for (int i = 0; i < count && ok; i++) {
        json_t *me = find(scratch, str(actor, "id"), NULL);
        json_t *target = find(scratch, str(in, "target"), NULL);
        if (target == NULL || (i > 0 && enc_is_down(target)))
            break;
        /* The profile at its iterative bonus. */
        json_t *self = json_deep_copy(me);
        size_t k;
        json_t *a;
        json_array_foreach(json_object_get(self, "attacks"), k, a)
        {
            json_object_set_new(a, "attack_bonus", json_integer(num(a, "attack_bonus") - 5 * i));
        }
        json_t *one = json_pack("{s:s, s:s, s:s}", "type", "attack", "actor", str(me, "id"),
                                "target", str(target, "id"));
        static const char *const pass[] = {"attack", "cover", "concealment", NULL};
        for (int p = 0; pass[p]; p++)
            if (json_object_get(in, pass[p]))
                json_object_set(one, pass[p], json_object_get(in, pass[p]));
        if (json_array_get(results, (size_t)i) != NULL)
            json_object_set(one, "results", json_array_get(results, (size_t)i));
        struct resolve_ctx each = *x;
        each.state = scratch;
        each.result_text = NULL;
        each.seq = x->seq + ((long long)(i + 1) << 32); /* each attack its own dice */
        json_t *out = action_attack_on(&each, one, self, target, NULL, 0);
        if (out != NULL) {
            json_array_append(rulings, json_object_get(out, "result"));
            enc_fold(scratch, json_object_get(out, "effects"));
            /* The actor's turn is the full attack's (resolve_action stamps its budget), not
             * each single attack's. */
            size_t n;
            json_t *ef;
            json_array_foreach(json_object_get(out, "effects"), n, ef)
            {
                json_t *fields = json_object_get(ef, "fields");
                if (strcmp(str(ef, "target"), str(actor, "id")) == 0)
                    json_object_del(fields, "turn");
                if (fields == NULL || json_object_size(fields) > 0)
                    json_array_append(effects, ef);
            }
            made++;
        } else {
            ok = false;
            svc_errors_add(x->e, "", "attack %d of the full attack (at %+lld) was refused", i + 1,
                           -5LL * i);
        }
        json_decref(out);
        json_decref(one);
        json_decref(self);
    }
    json_decref(scratch);
    if (!ok) {
        json_decref(rulings);
        json_decref(effects);
        return NULL;
    }
    json_t *result = json_pack("{s:o, s:i, s:i, s:s}", "attacks", rulings, "attacks_made", made,
                               "iterative_attacks", count, "rule",
                               "d20 3.5 SRD, Full Attack: iterative attacks at -5 each, from the "
                               "base attack bonus");
    return outcome(result, effects);
}

/* The attack profile named `name` of a combatant (its first when name is empty), or NULL. */
json_t *enc_find_attack(json_t *actor, const char *name)
{
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(actor, "attacks"), i, a)
    {
        if (*name == '\0' || strcmp(str(a, "name"), name) == 0)
            return a;
    }
    return NULL;
}

/* The attack of actor's profile atk on target, as /v1/attacks/resolve (and /odds) take it:
 * the rules of the encounter, both placements, the defender's defense and conditions, and the
 * allies that can flank. No seed and no dice. New reference. */
json_t *enc_attack_request(json_t *s, json_t *actor, json_t *target, json_t *atk, bool aoo)
{
    size_t i;
    json_t *a;
    json_t *attacker = enc_placement(actor);
    json_object_set(attacker, "attack_bonus", json_object_get(atk, "attack_bonus"));
    static const char *const akeys[] = {"damage",      "attack", "touch", "sneak_attack_dice",
                                        "rogue_level", NULL};
    for (int k = 0; akeys[k]; k++)
        if (json_object_get(atk, akeys[k]))
            json_object_set(attacker, akeys[k], json_object_get(atk, akeys[k]));
    if (aoo)
        json_object_set_new(attacker, "kind", json_string("attack_of_opportunity"));
    if (json_is_true(json_object_get(actor, "combat_reflexes")))
        json_object_set_new(attacker, "features", json_pack("[s]", "combat_reflexes"));
    if (has_condition(actor, "prone"))
        json_object_set_new(attacker, "conditions", json_pack("[s]", "prone"));
    json_t *defender = enc_placement(target);
    json_object_set(defender, "defense", json_object_get(target, "defense"));
    if (json_object_get(target, "damage_reduction"))
        json_object_set(defender, "damage_reduction", json_object_get(target, "damage_reduction"));
    json_t *dconds = json_array();
    json_array_foreach(json_object_get(target, "conditions"), i, a)
    {
        /* Unconscious is tracked by the encounter; 002 rules it as helpless. */
        const char *cv = json_string_value(a);
        json_array_append_new(dconds,
                              json_string(strcmp(cv, "unconscious") == 0 ? "helpless" : cv));
    }
    json_object_set_new(defender, "conditions", dconds);
    json_t *allies = json_array();
    json_t *c;
    json_array_foreach(combatants(s), i, c)
    {
        if (strcmp(str(c, "id"), str(actor, "id")) != 0 &&
            strcmp(str(c, "id"), str(target, "id")) != 0 &&
            strcmp(str(c, "side"), str(actor, "side")) == 0 && !enc_is_down(c)) {
            json_t *p = enc_placement(c);
            json_object_set_new(p, "can_threaten", json_boolean(!has_condition(c, "flat_footed")));
            json_array_append_new(allies, p);
        }
    }
    return json_pack("{s:o, s:o, s:o, s:o}", "rules", enc_rules_json(s), "attacker", attacker,
                     "defender", defender, "allies", allies);
}

/* The attack of actor on target (for an attack of opportunity under engine 2, the target as it
 * stood in the square it was leaving, and the reaction it answers). */
static json_t *action_attack_on(struct resolve_ctx *x, json_t *in, json_t *actor, json_t *target,
                                json_t *reaction, size_t reaction_at)
{
    json_t *s = x->state;
    json_t *atk = enc_find_attack(actor, str(in, "attack"));
    if (atk == NULL) {
        svc_errors_add(x->e, "/attack", "the actor has no such attack");
        return NULL;
    }
    const char *form = str(atk, "attack");
    if (strcmp(form, "ranged") != 0 && strcmp(form, "spell") != 0 &&
        !enc_reaches(s, actor, target)) {
        svc_errors_add(x->e, "/target",
                       "is out of reach of '%s': a melee attack reaches the squares its attacker "
                       "threatens (004 Threatened Area; 001 Reach)",
                       str(in, "attack")[0] ? str(in, "attack") : str(atk, "name"));
        return NULL;
    }
    bool aoo = strcmp(str(in, "kind"), "attack_of_opportunity") == 0;
    json_t *turn = json_object_get(actor, "turn");
    if (aoo) {
        /* 004: "a combatant can only make one per round"; flat-footed, none. */
        if (has_condition(actor, "flat_footed")) {
            svc_errors_add(x->e, "/kind",
                           "a flat-footed combatant can't make attacks of "
                           "opportunity (004 Flat-Footed)");
            return NULL;
        }
        if (x->engine >= 2) {
            long long made =
                json_object_get(actor, "aoo_round") && num(actor, "aoo_round") == num(s, "round")
                    ? (json_object_get(actor, "aoo_made") ? num(actor, "aoo_made") : 1)
                    : 0;
            if (made >= aoo_allowed(actor)) {
                svc_errors_add(x->e, "/kind",
                               "'%s' has made its %lld attack%s of opportunity this round (004 "
                               "Making an Attack of Opportunity; d20 3.5 SRD, Combat Reflexes)",
                               str(actor, "id"), made, made == 1 ? "" : "s");
                return NULL;
            }
        } else if (num(actor, "aoo_round") == num(s, "round") &&
                   json_object_get(actor, "aoo_round") &&
                   !json_is_true(json_object_get(actor, "combat_reflexes"))) {
            svc_errors_add(x->e, "/kind",
                           "one attack of opportunity a round (004 Making an "
                           "Attack of Opportunity)");
            return NULL;
        }
    }
    json_t *body = enc_attack_request(s, actor, target, atk, aoo);
    static const char *const pass[] = {"cover", "concealment", "results", NULL};
    for (int k = 0; pass[k]; k++)
        if (json_object_get(in, pass[k]))
            json_object_set(body, pass[k], json_object_get(in, pass[k]));
    if (!json_object_get(in, "results"))
        json_object_set_new(body, "seed", json_integer(enc_event_seed(s, x->seq)));
    json_t *ans = NULL;
    struct svc_attack_facts facts = {0};
    if (!enc_ruled_attack(x, body, &ans, &facts))
        return NULL;
    json_t *effects = json_array();
    long long hp_after = num(target, "hp") - (facts.to_defender ? facts.dealt : 0);
    if (facts.to_defender)
        json_array_append_new(effects, effect_set(str(target, "id"), enc_hp_fields(x, hp_after)));
    if (aoo && x->engine >= 2) {
        long long made =
            json_object_get(actor, "aoo_round") && num(actor, "aoo_round") == num(s, "round")
                ? (json_object_get(actor, "aoo_made") ? num(actor, "aoo_made") : 1)
                : 0;
        json_array_append_new(
            effects,
            effect_set(str(actor, "id"), json_pack("{s:I, s:I}", "aoo_round", num(s, "round"),
                                                   "aoo_made", made + 1)));
        /* The reaction is answered. If the attack drops the mover (it no longer acts), its move
         * stops in the square it was leaving, and the reactions to later steps go with it. */
        bool stopped = !rules_hp_acts(
            rules_hp_state_of(enc_rules_of(x), hp_after < -1000000 ? -1000000 : (int)hp_after));
        json_t *left = json_array();
        size_t k;
        json_t *r;
        json_array_foreach(json_object_get(s, "reactions"), k, r)
        {
            bool later = stopped && strcmp(str(r, "mover"), str(target, "id")) == 0 &&
                         num(r, "step") > num(reaction, "step");
            if (k != reaction_at && !later)
                json_array_append(left, r);
        }
        json_array_append_new(effects, reactions_effect(s, left));
        if (stopped)
            json_array_append_new(
                effects, effect_set(str(target, "id"),
                                    json_pack("{s:O, s:O}", "x", json_object_get(target, "x"), "y",
                                              json_object_get(target, "y"))));
    } else if (aoo) {
        json_array_append_new(effects, effect_set(str(actor, "id"), json_pack("{s:I}", "aoo_round",
                                                                              num(s, "round"))));
    } else
        json_array_append_new(
            effects,
            effect_set(
                str(actor, "id"),
                json_pack("{s:o}", "turn",
                          json_pack("{s:O, s:O, s:b}", "moved",
                                    json_object_get(turn, "moved") ? json_object_get(turn, "moved")
                                                                   : json_false(),
                                    "ran",
                                    json_object_get(turn, "ran") ? json_object_get(turn, "ran")
                                                                 : json_false(),
                                    "attacked", 1))));
    return outcome(ans, effects);
}

/* Engine 2: the reactions to a move (ruling ans, its effects so far in `effects`). Each attack
 * of opportunity the move provoked (004 Provoking an Attack of Opportunity by Moving, under the
 * start_square option, withdraw's primary target excluded by the ruling) is decided by the
 * mover's decision for its reactor (in's reactions) or the reactor's aoo_policy
 * (rules_aoo_outcome_of):
 *   - none (engine 2's rule): open until the next event; the enemy may answer it then,
 *     striking the mover in the square it was leaving;
 *   - ask: open, and the encounter awaits it (awaiting_reactions): the answer or a decline;
 *   - always, or take: made by the engine within this move (settle_reactions), unless an asked
 *     one at an earlier step must be settled first: then it waits for that one;
 *   - never, or decline: not opened.
 * With no policy and no decision, the effects are exactly engine 2's. Otherwise the ruling
 * gains `reactions`: what became of each decided one, in step order. */
static void open_reactions(struct resolve_ctx *x, json_t *in, json_t *actor, json_t *ans,
                           json_t *effects)
{
    json_t *s = x->state;
    json_t *decisions = json_object_get(in, "reactions");
    json_t *open = json_array(), *declined = json_array();
    bool decided = false;
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(ans, "attacks_of_opportunity"), i, a)
    {
        const char *by = str(a, "creature");
        int p = rules_aoo_policy_from(str(find(s, by, NULL), "aoo_policy"));
        const char *d = str(decisions, by);
        enum rules_aoo_decision dec = strcmp(d, "take") == 0      ? RULES_AOO_DECISION_TAKE
                                      : strcmp(d, "decline") == 0 ? RULES_AOO_DECISION_DECLINE
                                                                  : RULES_AOO_DECISION_NONE;
        enum rules_aoo_outcome o =
            rules_aoo_outcome_of(p < 0 ? RULES_AOO_POLICY_UNSET : (enum rules_aoo_policy)p, dec);
        json_t *leaving = json_object_get(a, "leaving");
        json_t *r = json_pack(
            "{s:s, s:s, s:I, s:O, s:O, s:O}", "mover", str(actor, "id"), "by", by, "step",
            num(a, "step"), "x", json_object_get(leaving, "x"), "y", json_object_get(leaving, "y"),
            "facing",
            json_object_get(a, "mover_facing") ? json_object_get(a, "mover_facing") : json_null());
        decided |= o != RULES_AOO_LAPSING;
        if (o == RULES_AOO_ASKED || o == RULES_AOO_MADE)
            json_object_set_new(r, "policy", json_string(o == RULES_AOO_ASKED ? "ask" : "always"));
        if (o == RULES_AOO_DECLINED) {
            json_object_del(r, "mover");
            json_object_del(r, "facing");
            json_object_set_new(r, "outcome", json_string("declined"));
            json_array_append_new(declined, r);
        } else {
            json_array_append_new(open, r);
        }
    }
    if (!decided) {
        json_decref(declined);
        json_array_append_new(effects,
                              effect_set("encounter", json_pack("{s:o}", "reactions", open)));
        return;
    }
    json_array_append_new(effects, reactions_effect(s, json_incref(open)));
    json_t *scratch = json_deep_copy(s);
    json_t *made = json_array();
    enc_fold(scratch, effects);
    settle_reactions(x, scratch, str(actor, "id"), json_object_get(in, "reaction_results"), effects,
                     made);
    /* What became of each decided reaction, in step order. */
    json_t *records = json_array();
    json_array_foreach(json_object_get(ans, "attacks_of_opportunity"), i, a)
    {
        const char *by = str(a, "creature");
        json_t *rec = NULL;
        size_t k;
        json_t *c;
        json_array_foreach(declined, k, c)
        {
            if (strcmp(str(c, "by"), by) == 0)
                rec = json_incref(c);
        }
        json_array_foreach(made, k, c)
        {
            if (strcmp(str(c, "by"), by) == 0)
                rec = json_incref(c);
        }
        json_t *orig = NULL;
        json_array_foreach(open, k, c)
        {
            if (strcmp(str(c, "by"), by) == 0)
                orig = c;
        }
        if (rec == NULL && orig != NULL && *str(orig, "policy")) {
            /* Still open (awaiting, or an engine's attack waiting behind an asked one), or
             * closed because the mover dropped before it got there. */
            size_t at;
            json_t *still = open_reaction(scratch, str(actor, "id"), by, &at);
            rec = json_pack("{s:s, s:O, s:O, s:O, s:s}", "by", by, "step",
                            json_object_get(orig, "step"), "x", json_object_get(orig, "x"), "y",
                            json_object_get(orig, "y"), "outcome",
                            still == NULL     ? "closed"
                            : is_asked(still) ? "awaiting"
                                              : "waiting");
        }
        if (rec != NULL)
            json_array_append_new(records, rec);
    }
    json_object_set_new(ans, "reactions", records);
    json_decref(made);
    json_decref(scratch);
    json_decref(declined);
    json_decref(open);
}

static json_t *action_move(struct resolve_ctx *x, json_t *in, json_t *actor, const char *mode)
{
    json_t *s = x->state;
    json_t *body = json_pack("{s:o, s:O, s:o, s:o, s:s, s:O}", "rules", enc_rules_json(s), "map",
                             json_object_get(s, "map"), "creatures", enc_map_creatures(s, actor),
                             "mover", enc_mover_of(actor, json_object_get(actor, "turn")), "mode",
                             mode, "path", json_object_get(in, "path"));
    if (json_object_get(in, "end_facing"))
        json_object_set(body, "end_facing", json_object_get(in, "end_facing"));
    if (json_object_get(in, "withdraw"))
        json_object_set(body, "withdraw", json_object_get(in, "withdraw"));
    json_t *ans =
        enc_ruled(x, svc_handle_move_path, "/v1/movement/path", body, "/path", "move", true);
    if (ans == NULL)
        return NULL;
    if (!json_is_true(json_object_get(ans, "legal"))) {
        size_t i;
        json_t *v;
        json_array_foreach(json_object_get(ans, "violations"), i, v)
        {
            char p[48];
            json_t *step = json_object_get(v, "step");
            if (json_is_integer(step))
                snprintf(p, sizeof p, "/path/%lld", json_integer_value(step));
            else
                snprintf(p, sizeof p, "/mode");
            svc_errors_add(x->e, p, "%s (%s)", str(v, "message"), str(v, "source"));
        }
        json_decref(ans);
        return NULL;
    }
    json_t *end = json_object_get(ans, "end");
    json_t *fields = json_object();
    bool hex = json_object_get(end, "q") != NULL;
    json_object_set(fields, "x", json_object_get(end, hex ? "q" : "x"));
    json_object_set(fields, "y", json_object_get(end, hex ? "r" : "y"));
    if (json_is_integer(json_object_get(end, "facing")))
        json_object_set(fields, "facing", json_object_get(end, "facing"));
    json_t *turn = json_deep_copy(json_object_get(actor, "turn"));
    if (turn == NULL)
        turn = json_object();
    if (strcmp(mode, "five_foot_step") == 0) {
        json_object_set_new(turn, "stepped", json_true());
    } else {
        json_object_set_new(turn, "moved", json_true());
        if (strcmp(mode, "run") == 0)
            json_object_set_new(turn, "ran", json_true());
    }
    json_object_set_new(fields, "turn", turn);
    /* 001 Run: flat-footed until the start of its next turn, unless it has Runner. */
    if (strcmp(mode, "run") == 0 && !json_is_true(json_object_get(actor, "runner")))
        json_object_set_new(fields, "conditions", enc_conditions_with(actor, "flat_footed", true));
    json_t *effects = json_pack("[o]", effect_set(str(actor, "id"), fields));
    if (x->engine >= 2)
        open_reactions(x, in, actor, ans, effects);
    return outcome(ans, effects);
}

static json_t *action_forced(struct resolve_ctx *x, json_t *in, json_t *actor)
{
    json_t *s = x->state;
    json_t *target = find(s, str(in, "target"), NULL);
    if (target == NULL) {
        svc_errors_add(x->e, "/target", "names no combatant");
        return NULL;
    }
    json_t *others = enc_map_creatures(s, target); /* everyone else, as /v1/movement takes them */
    json_t *t = enc_placement(target);
    static const char *const tkeys[] = {"reduction_squares", "fall_prone_at", "voluntarily_prone",
                                        NULL};
    for (int k = 0; tkeys[k]; k++)
        if (json_object_get(in, tkeys[k]))
            json_object_set(t, tkeys[k], json_object_get(in, tkeys[k]));
    json_t *body =
        json_pack("{s:o, s:O, s:o, s:o, s:o, s:O, s:O, s:O}", "rules", enc_rules_json(s), "map",
                  json_object_get(s, "map"), "creatures", others, "target", t, "attacker",
                  enc_placement(actor), "kind", json_object_get(in, "kind"), "squares",
                  json_object_get(in, "squares"), "path", json_object_get(in, "path"));
    json_t *ans = enc_ruled(x, svc_handle_move_forced, "/v1/movement/forced", body, "",
                            "forced movement", true);
    if (ans == NULL)
        return NULL;
    json_t *end = json_object_get(ans, "end");
    json_t *fields = json_object();
    bool hex = json_object_get(end, "q") != NULL;
    json_object_set(fields, "x", json_object_get(end, hex ? "q" : "x"));
    json_object_set(fields, "y", json_object_get(end, hex ? "r" : "y"));
    json_object_set(fields, "z", json_object_get(end, "z"));
    if (json_is_true(json_object_get(ans, "prone")))
        json_object_set_new(fields, "conditions", enc_conditions_with(target, "prone", true));
    return outcome(ans, json_pack("[o]", effect_set(str(target, "id"), fields)));
}

static json_t *action_fall(struct resolve_ctx *x, json_t *in, json_t *actor)
{
    json_t *s = x->state;
    json_t *body = json_pack("{s:o}", "rules", enc_rules_json(s));
    static const char *const keys[] = {
        "height_ft",      "surface", "per_die",      "deliberate", "acrobatics_success",
        "water_depth_ft", "dive",    "dive_success", "results",    NULL};
    for (int k = 0; keys[k]; k++)
        if (json_object_get(in, keys[k]))
            json_object_set(body, keys[k], json_object_get(in, keys[k]));
    if (json_object_get(actor, "damage_reduction"))
        json_object_set(body, "damage_reduction", json_object_get(actor, "damage_reduction"));
    if (!json_object_get(in, "results"))
        json_object_set_new(body, "seed", json_integer(enc_event_seed(s, x->seq)));
    json_t *ans = enc_ruled(x, svc_handle_falling, "/v1/falling", body, "", "fall", false);
    if (ans == NULL)
        return NULL;
    json_t *fields = enc_hp_fields(x, num(actor, "hp") - num(ans, "damage"));
    size_t i;
    json_t *cv;
    json_array_foreach(json_object_get(ans, "conditions"), i, cv)
    {
        if (strcmp(json_string_value(cv), "prone") == 0)
            json_object_set_new(fields, "conditions", enc_conditions_with(actor, "prone", true));
    }
    return outcome(ans, json_pack("[o]", effect_set(str(actor, "id"), fields)));
}

/* reaction_results: the dice of the attacks of opportunity the engine makes in this event, by
 * reactor: {"<id>": [d20, damage dice...]}, each die 1..1000 as /v1/attacks/resolve takes them.
 * False after adding errors. */
static bool check_reaction_results(json_t *in, struct svc_errors *e)
{
    json_t *all = json_object_get(in, "reaction_results");
    if (all == NULL)
        return true;
    size_t before = json_array_size(e->list);
    if (!codec_expect_object(all, "/reaction_results", e))
        return false;
    if (json_object_size(all) > MAX_COMBATANTS)
        svc_errors_add(e, "/reaction_results", "at most %d reactors", MAX_COMBATANTS);
    const char *k;
    json_t *v;
    json_object_foreach(all, k, v)
    {
        char p[CODEC_PTR_MAX];
        codec_pointer(p, "/reaction_results", k);
        json_t *list = NULL;
        if (!codec_get_array(all, "/reaction_results", k, true, 64, &list, e))
            continue;
        size_t i;
        json_t *d;
        json_array_foreach(list, i, d)
        {
            if (!json_is_integer(d) || json_integer_value(d) < 1 || json_integer_value(d) > 1000) {
                char dp[CODEC_PTR_MAX + 24];
                snprintf(dp, sizeof dp, "%s/%zu", p, i);
                svc_errors_add(e, dp, "must be a die result (1 to 1000)");
            }
        }
    }
    return json_array_size(e->list) == before;
}

/* A move's decisions for the attacks of opportunity it may provoke, overriding each reactor's
 * aoo_policy for this move: {"<id>": "take" | "decline"}, each id a combatant. */
static void check_decisions(json_t *state, json_t *in, struct svc_errors *e)
{
    check_reaction_results(in, e);
    json_t *all = json_object_get(in, "reactions");
    if (all == NULL || !codec_expect_object(all, "/reactions", e))
        return;
    static const char *const decisions[] = {"take", "decline", NULL};
    const char *k;
    json_t *v;
    json_object_foreach(all, k, v)
    {
        char p[CODEC_PTR_MAX];
        codec_pointer(p, "/reactions", k);
        if (find(state, k, NULL) == NULL)
            svc_errors_add(e, p, "names no combatant");
        else
            codec_get_enum(all, "/reactions", k, decisions, true, -1, e);
    }
}

/* The action of `type` (resolve_action's types) by actor, once its turn and budget allow it. */
json_t *enc_resolve_action_kind(struct resolve_ctx *x, json_t *in, json_t *actor, int type)
{
    const char *actor_id = str(actor, "id");
    switch (type) {
    case 0: {
        const char *t = NULL;
        if (!codec_get_string(in, "", "target", true, 64, &t, x->e) ||
            !check_reaction_results(in, x->e))
            return NULL;
        return action_attack(x, in, actor);
    }
    case 8: {
        const char *t = NULL;
        if (!codec_get_string(in, "", "target", true, 64, &t, x->e))
            return NULL;
        if (find(x->state, t, NULL) == NULL) {
            svc_errors_add(x->e, "/target", "names no combatant");
            return NULL;
        }
        return action_full_attack(x, in, actor);
    }
    case 9: {
        const char *t = NULL;
        if (!codec_get_string(in, "", "target", true, 64, &t, x->e) ||
            !check_reaction_results(in, x->e))
            return NULL;
        return action_decline(x, in, actor);
    }
    case 1:
    case 2:
    case 4: {
        json_t *path = NULL;
        codec_get_array(in, "", "path", true, RULES_MAX_PATH, &path, x->e);
        if (type == 1)
            check_decisions(x->state, in, x->e);
        if (type == 4) {
            long long sq = 0;
            codec_get_string(in, "", "target", true, 64, &actor_id, x->e);
            codec_get_int(in, "", "squares", true, 1, RULES_FORCED_MAX, &sq, x->e);
            static const char *const kinds[] = {"push", "pull", "slide", NULL};
            codec_get_enum(in, "", "kind", kinds, true, 0, x->e);
        }
        if (svc_errors_any(x->e))
            return NULL;
        if (type == 2)
            return action_move(x, in, actor, "five_foot_step");
        if (type == 4)
            return action_forced(x, in, actor);
        static const char *const modes[] = {"move",     "double_move", "run", "charge",
                                            "withdraw", "crawl",       NULL};
        int m = codec_get_enum(in, "", "mode", modes, false, 0, x->e);
        if (svc_errors_any(x->e))
            return NULL;
        return action_move(x, in, actor, modes[m]);
    }
    case 3: {
        long long f = 0;
        if (!codec_get_int(in, "", "facing", true, 0, 7, &f, x->e))
            return NULL;
        /* 000 Changing Facing: once as a free action, or as a move action. */
        return outcome(json_pack("{s:I, s:s}", "facing", f, "rule", "000 Changing Facing"),
                       json_pack("[o]", effect_set(actor_id, json_pack("{s:I}", "facing", f))));
    }
    case 5: {
        long long h = 0;
        if (!codec_get_int(in, "", "height_ft", true, 0, 1000000, &h, x->e))
            return NULL;
        return action_fall(x, in, actor);
    }
    case 6: {
        /* A condition for a number of rounds: 004's "Effects that last a certain number of
         * rounds end just before the same initiative count that they began on." */
        json_t *target = find(x->state, str(in, "target"), NULL);
        int ci = codec_get_enum(in, "", "condition", enc_defender_conditions, true, -1, x->e);
        long long rounds = 0;
        bool timed = codec_get_int(in, "", "rounds", false, 1, 1000, &rounds, x->e);
        if (target == NULL)
            svc_errors_add(x->e, "/target", "names no combatant");
        if (svc_errors_any(x->e) || ci < 0 || target == NULL)
            return NULL;
        json_t *fields = json_pack("{s:o}", "conditions",
                                   enc_conditions_with(target, enc_defender_conditions[ci], true));
        if (timed) {
            json_t *list = json_deep_copy(json_object_get(target, "timed"));
            if (list == NULL)
                list = json_array();
            json_t *turn = json_object_get(x->state, "turn");
            json_array_append_new(
                list, json_pack("{s:s, s:I, s:I}", "condition", enc_defender_conditions[ci],
                                "ends_round", num(x->state, "round") + rounds, "ends_turn",
                                json_is_integer(turn) ? json_integer_value(turn) : 0));
            json_object_set_new(fields, "timed", list);
        }
        return outcome(json_pack("{s:s, s:s, s:I, s:s}", "target", str(target, "id"), "condition",
                                 enc_defender_conditions[ci], "rounds", rounds, "rule",
                                 "004: effects that last a number of rounds end just before the "
                                 "same initiative count that they began on"),
                       json_pack("[o]", effect_set(str(target, "id"), fields)));
    }
    case 7: {
        /* 001 Part of a Move Action: "standing up from Prone" takes a move action (its budget
         * and the prone check come first, in resolve_action). */
        return outcome(
            json_pack("{s:s, s:s}", "stood_up", actor_id, "rule",
                      "001 Part of a Move Action: standing up from Prone takes a move "
                      "action"),
            json_pack("[o]",
                      effect_set(actor_id, json_pack("{s:o}", "conditions",
                                                     enc_conditions_with(actor, "prone", false)))));
    }
    default:
        return NULL;
    }
}
