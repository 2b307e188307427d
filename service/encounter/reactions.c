/* Encounters: the reactions a move opens (the rule reactions). A move that provokes attacks of
 * opportunity opens one reaction for each, decided by the mover's decisions or the reactor's
 * aoo_policy (ask, always, never); the engine makes the ones it makes itself in step order
 * (settle_reactions), a reactor answers an open one with an attack of opportunity
 * (encounter_attacks.c) or declines it (decline_reaction), and the encounter awaits the asked
 * ones (awaiting_reactions). Also the checks of a move's decisions and of reaction_results. */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/encounter/apply.h"
#include "rules/encounter/engine.h"
#include "rules/encounter/event.h"
#include "rules/encounter/opportunity.h"
#include "rules/encounter/reaction.h"
#include "service/encounter/internal.h"
#include "service/json/errors.h"
#include "service/json/fields.h"

const struct rules_enc_reaction *enc_open_reaction(struct resolve_ctx *x, const char *mover,
                                                   const char *by, size_t *at)
{
    const struct rules_encounter *te = enc_typed(x);
    int i = te != NULL ? rules_encounter_reaction_of(te, rules_encounter_find(te, mover),
                                                     rules_encounter_find(te, by))
                       : -1;
    *at = i >= 0 ? (size_t)i : 0;
    return i >= 0 ? &te->reactions[i] : NULL;
}

/* The effect that leaves `list` (stolen) as the open reactions of te's state, awaiting_reactions
 * set when it changes: `awaiting`, whether an asked reaction stays open among them
 * (rules_reactions_awaited, decided by the caller on the typed reactions). */
json_t *enc_reactions_effect(const struct rules_encounter *te, json_t *list, bool awaiting)
{
    json_t *fields = json_pack("{s:o}", "reactions", list);
    if (awaiting != te->awaiting_reactions)
        json_object_set_new(fields, "awaiting_reactions", json_boolean(awaiting));
    return enc_effect_set("encounter", fields);
}

/* The id of combatant i of te, "" for none (a reaction of one that left). */
static const char *id_of(const struct rules_encounter *te, int i)
{
    return i >= 0 && i < te->count ? te->combatants[i].id : "";
}

json_t *enc_reaction_json(const struct rules_encounter *te, int i)
{
    assert(te != NULL && i >= 0 && i < te->reaction_count);
    const struct rules_enc_reaction *r = &te->reactions[i];
    json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:i, s:o}", "mover", id_of(te, r->mover), "by",
                          id_of(te, r->by), "step", r->step, "x", r->x, "y", r->y, "facing",
                          r->facing >= 0 ? json_integer(r->facing) : json_null());
    if (r->policy == RULES_AOO_POLICY_ASK || r->policy == RULES_AOO_POLICY_ALWAYS)
        json_object_set_new(o, "policy", json_string(rules_aoo_policy_name(r->policy)));
    return o;
}

/* The effect that closes reaction `at` of te's open reactions: the others stay, encoded from the
 * typed state, the encounter awaiting while an asked one is among them. */
static json_t *reactions_but_effect(const struct rules_encounter *te, size_t at)
{
    json_t *left = json_array();
    for (int i = 0; i < te->reaction_count; i++)
        if (i != (int)at)
            json_array_append_new(left, enc_reaction_json(te, i));
    bool awaiting =
        rules_reactions_first_asked(te->reactions, te->reaction_count, -1, (int)at) >= 0;
    return enc_reactions_effect(te, left, awaiting);
}

/* Refuses (false, after adding an error) to settle reaction `at` of the open reactions while an
 * asked one is open at an earlier step of the move: the mover reached its square only after that
 * one (rules_reactions_may_settle, on the typed state). */
bool enc_settles_in_order(struct resolve_ctx *x, size_t at)
{
    const struct rules_encounter *te = enc_typed(x);
    if (te == NULL)
        return false;
    int blocking = -1;
    if ((int)at >= te->reaction_count ||
        rules_reactions_may_settle(te->reactions, te->reaction_count, (int)at, &blocking))
        return true;
    const struct rules_enc_reaction *first = &te->reactions[blocking];
    svc_errors_add(x->e, "/actor",
                   "the reaction of '%s' to step %lld of '%s''s move comes first: the mover left "
                   "that square before this one, so it is answered or declined first (%s)",
                   id_of(te, first->by), (long long)first->step, id_of(te, te->reactions[at].mover),
                   RULES_REACTION_SOURCE);
    return false;
}

/* The state an event's effects so far leave, for the engine's attacks after a move, a stand-up
 * or an answer: the typed state as a work copy (rules/encounter/apply.h) that the code writing
 * each effect changed on the structs as it wrote it (the move's own in move.c, the answer's in
 * attacks.c, each step's after that here: ctx.work), nothing folded into JSON; the stored state
 * beside it, unfolded, read only for what no step changes (ids, profiles, facings given, the
 * seed). ctx rules on the work copy, its errors in `none` unless the caller points ctx.e
 * elsewhere for a step. */
struct scratch {
    json_t *state;
    struct resolve_ctx base; /* decoded state's typed state, which work borrows from */
    struct rules_encounter_work work;
    struct resolve_ctx ctx;
    struct svc_errors none;
#ifndef NDEBUG
    json_t *applied; /* debug builds: every effect so far, for enc_check_applied */
#endif
};

/* A scratch for the engine's attacks after a move, a stand-up, an answer or a decline: w (taken
 * over) is the typed state the event's effects so far (borrowed) leave, applied on the structs
 * by the code that wrote them; the stored state x->state stands beside it unfolded, read only
 * for what no step changes. Nothing is folded or decoded (but by debug builds' check). */
static void scratch_on(struct scratch *sc, struct resolve_ctx *x, struct rules_encounter_work *w,
                       json_t *effects)
{
    sc->state = json_incref(x->state);
    sc->base = enc_ctx_on(x, sc->state); /* decodes nothing: ctx reads the work copy */
    svc_errors_init(&sc->none);
    sc->base.e = &sc->none;
    sc->work = *w;
    memset(w, 0, sizeof *w);
    sc->ctx = sc->base;
    sc->ctx.work = &sc->work;
    /* base has no work copy: it must never find the typed state of before the event in the
     * request's cache and rule on it (only ctx, which reads the work copy, rules). */
    sc->base.cache = NULL;
#ifndef NDEBUG
    sc->applied = json_deep_copy(effects);
    enc_check_applied(x, sc->applied, &sc->work.e);
#else
    (void)effects;
#endif
}

/* After a step's effects (borrowed) were applied to the work copy by the code that wrote them:
 * debug builds check it against a fresh decode of the stored state with every effect so far
 * folded in (enc_check_applied). */
static void scratch_applied(struct resolve_ctx *x, struct scratch *sc, json_t *effects)
{
#ifndef NDEBUG
    json_t *copy = json_deep_copy(effects);
    json_array_extend(sc->applied, copy);
    json_decref(copy);
    enc_check_applied(x, sc->applied, &sc->work.e);
#else
    (void)x, (void)sc, (void)effects;
#endif
}

/* The scratch state's combatant id as the typed state has it, or NULL. */
static const struct rules_enc_combatant *scratch_combatant(struct scratch *sc, const char *id)
{
    const struct rules_encounter *te = enc_typed(&sc->ctx);
    int i = te != NULL ? rules_encounter_find(te, id) : -1;
    return i >= 0 ? &te->combatants[i] : NULL;
}

/* Whether combatant id of the scratch state counts as dropped (rules_enc_combatant_dropped). */
static bool scratch_dropped(struct scratch *sc, const char *id)
{
    const struct rules_enc_combatant *c = scratch_combatant(sc, id);
    return c != NULL && rules_enc_combatant_dropped(c);
}

static void scratch_close(struct scratch *sc)
{
    rules_encounter_work_free(&sc->work);
    enc_ctx_release(&sc->base);
    svc_errors_free(&sc->none);
    json_decref(sc->state);
#ifndef NDEBUG
    json_decref(sc->applied);
#endif
}

/* The attacks of opportunity the engine makes itself (the reactor's policy always, or the
 * mover's decision take) open in scratch's reactions against mover that may be settled now (no
 * asked reaction open at an earlier step: rules_aoo_may_settle), in step order: each ruled on
 * the typed state from the reaction itself (enc_opportunity, rules_encounter_opportunity: the
 * reactor's answer at the square being left, with its first melee profile), with dice of its
 * own from the event's seed, or results[by] (the caller's dice). Each is applied to scratch's
 * work copy, its effects appended to `effects` and a record ({by, step, x, y, outcome: made,
 * attack, stopped when it dropped the mover}) to `records`. A reaction whose attack is refused
 * (its reactor has made its attacks of opportunity this round) is closed and recorded as
 * refused, with why. 004 Attacks of Opportunity; the move goes on unless the mover drops
 * (encounter_attacks.c closes the reactions to later steps and puts it back). */
static void settle_reactions(struct resolve_ctx *x, struct scratch *sc, const char *mover,
                             json_t *results, json_t *effects, json_t *records)
{
    for (int k = 0; k < MAX_COMBATANTS; k++) {
        const struct rules_encounter *te = enc_typed(&sc->ctx);
        if (te == NULL) {
            svc_errors_add(x->e, "", "the reactions could not be settled");
            return;
        }
        /* The next the engine makes (rules_reactions_next_made, on the typed reactions). */
        int m = rules_encounter_find(te, mover);
        int next = m >= 0 ? rules_reactions_next_made(te->reactions, te->reaction_count, m) : -1;
        if (next < 0)
            return;
        size_t at = (size_t)next;
        const struct rules_enc_reaction *r = &te->reactions[at];
        const char *by = id_of(te, r->by);
        json_t *record =
            json_pack("{s:s, s:i, s:i, s:i}", "by", by, "step", r->step, "x", r->x, "y", r->y);
        bool was_down = scratch_dropped(sc, mover);
        /* Ruled on the typed state (rules_encounter_opportunity), each attack its own dice. */
        struct svc_errors why;
        svc_errors_init(&why);
        sc->ctx.e = &why;
        sc->ctx.seq = x->seq + ((long long)(k + 1) << 32);
        json_t *out = enc_opportunity(&sc->ctx, at, json_object_get(results, by));
        sc->ctx.e = &sc->none;
        sc->ctx.seq = x->seq;
        json_t *made = out != NULL ? json_object_get(out, "effects") : json_array();
        if (out != NULL) {
            json_object_set_new(record, "outcome", json_string("made"));
            json_object_set(record, "attack", json_object_get(out, "result"));
            json_incref(made);
        } else if (rules_encounter_refuses_unfit_reaction_dice(x->engine) &&
                   json_object_get(results, by) != NULL &&
                   strncmp(enc_str(json_array_get(why.list, 0), "pointer"), "/results", 8) == 0) {
            /* paused_moves: dice the table supplied that do not fit this attack are its mistake, a
             * 422 under /reaction_results/<by>, not an attack of opportunity lost. */
            char p[CODEC_PTR_MAX + 16];
            codec_pointer(p, "/reaction_results", by);
            size_t w;
            json_t *err;
            json_array_foreach(why.list, w, err)
            {
                char q[CODEC_PTR_MAX + 48];
                snprintf(q, sizeof q, "%s%s", p, enc_str(err, "pointer") + 8);
                svc_errors_add(x->e, q, "%s", enc_str(err, "message"));
            }
            json_decref(made);
            json_decref(record);
            svc_errors_free(&why);
            return;
        } else {
            /* Closed unmade: the reactions but this one. */
            json_array_append_new(made, reactions_but_effect(te, at));
            rules_encounter_settle_reaction(&sc->work, (int)at, false);
            json_object_set_new(record, "outcome", json_string("refused"));
            const char *msg =
                json_string_value(json_object_get(json_array_get(why.list, 0), "message"));
            json_object_set_new(record, "why",
                                json_string(msg ? msg : "the attacker is no longer there"));
        }
        scratch_applied(x, sc, made);
        json_array_extend(effects, made);
        json_decref(made);
        if (out != NULL && !was_down && scratch_dropped(sc, mover))
            json_object_set_new(record, "stopped", json_true());
        json_array_append_new(records, record);
        json_decref(out);
        svc_errors_free(&why);
    }
}

/* paused_moves: where the mover of a move with asked reactions stands meanwhile. "A move that
 * provokes pauses at the square being left" (004 Attacks of Opportunity: the attack
 * is made as the mover leaves the square): while an asked reaction to its move is open, the
 * mover stands in the square of the earliest such step, and the state's paused_move keeps
 * where the move ends ({mover, x, y, facing}). Given scratch (the state the event's effects so
 * far leave, as its work copy), appends to `effects` what puts the mover where it now belongs:
 * the next asked step's square while one is open; else the move's end, the pause over; or
 * nowhere when it was dropped (its move stopped where the attack found it). */
static void place_paused(struct resolve_ctx *x, struct scratch *sc, const char *mover,
                         json_t *effects)
{
    json_t *m = enc_find(sc->state, mover, NULL);
    if (m == NULL)
        return;
    const struct rules_encounter *te = &sc->work.e;
    int mi = rules_encounter_find(te, mover);
    struct rules_enc_pause_place at;
    if (!rules_encounter_pause_place(te, mi, &at))
        return;
    json_t *add = json_array();
    if (at.set) {
        json_t *fields = json_pack("{s:i, s:i}", "x", at.x, "y", at.y);
        if (at.has_facing)
            json_object_set_new(fields, "facing", json_integer(at.facing));
        /* A creature that stood up provoking (actions.c stand_up) stands once it's over. */
        if (at.stands)
            json_object_set_new(fields, "conditions", enc_conditions_with(m, "prone", false));
        json_array_append_new(add, enc_effect_set(mover, fields));
        rules_encounter_set_place(&sc->work, mi, at.x, at.y, at.has_facing ? at.facing : -1);
        if (at.stands)
            rules_encounter_stand(&sc->work, mi);
    }
    if (at.over) {
        json_array_append_new(add, enc_effect_set("encounter", json_pack("{s:n}", "paused_move")));
        rules_encounter_end_pause(&sc->work);
    }
    scratch_applied(x, sc, add);
    json_array_extend(effects, add);
    json_decref(add);
}

/* Once a reaction to mover's move is answered or declined (the event's effects so far in
 * `effects`, on top of x->state, and applied to w, a work copy of its typed state that this
 * takes over), the move goes on: the attacks the engine makes itself that
 * waited for it are made now (settle_reactions, with the caller's dice `results` by reactor,
 * borrowed, or NULL), their effects appended to `effects`, and listed in result's "reactions"
 * when there are any. */
void enc_settle_waiting(struct resolve_ctx *x, struct rules_encounter_work *w, const char *mover,
                        json_t *results, json_t *effects, json_t *result)
{
    struct scratch sc;
    scratch_on(&sc, x, w, effects);
    json_t *records = json_array();
    settle_reactions(x, &sc, mover, results, effects, records);
    if (rules_encounter_move_pauses(x->engine))
        place_paused(x, &sc, mover, effects);
    if (json_array_size(records) > 0)
        json_object_set(result, "reactions", records);
    json_decref(records);
    scratch_close(&sc);
}

/* A reactor declines the reaction open to it (action decline_reaction): the reaction is
 * closed, and the move goes on, the attacks the engine makes itself that waited for it made
 * now (settle_reactions). It spends nothing of the reactor's turn. */
json_t *enc_action_decline(struct resolve_ctx *x, json_t *in, json_t *actor)
{
    const char *mover = enc_str(in, "target");
    size_t at = 0;
    const struct rules_enc_reaction *r = enc_open_reaction(x, mover, enc_str(actor, "id"), &at);
    if (r == NULL) {
        svc_errors_add(x->e, "/target",
                       "'%s' has no reaction open to a move of '%s': only an open reaction can be "
                       "declined (%s)",
                       enc_str(actor, "id"), mover, RULES_REACTION_SOURCE);
        return NULL;
    }
    const struct rules_encounter *te = enc_typed(x);
    if (te == NULL || !enc_settles_in_order(x, at))
        return NULL;
    struct rules_encounter_work w; /* the typed state the decline leaves */
    if (!rules_encounter_work_copy(te, &w)) {
        svc_errors_add(x->e, "", "the reactions could not be settled");
        return NULL;
    }
    json_t *effects = json_pack("[o]", reactions_but_effect(te, at));
    rules_encounter_settle_reaction(&w, (int)at, false);
    json_t *result =
        json_pack("{s:s, s:s, s:i, s:i, s:i, s:s}", "declined_by", enc_str(actor, "id"), "mover",
                  mover, "step", r->step, "x", r->x, "y", r->y, "rule",
                  "004 Making an Attack of Opportunity: the threatening enemy may "
                  "make the attack; this one does not");
    enc_settle_waiting(x, &w, mover, json_object_get(in, "reaction_results"), effects, result);
    if (svc_errors_any(x->e)) { /* the table's dice for an engine attack did not fit */
        json_decref(result);
        json_decref(effects);
        return NULL;
    }
    return enc_outcome(result, effects);
}

/* After the engine's attacks of a move (settle_reactions on sc): while asked reactions are open
 * the move pauses (place_paused), to go on once they are settled; its end is where the move's
 * own effect put the mover, with its facing when the move gave one (faced). */
static void pause_if_awaited(struct resolve_ctx *x, struct scratch *sc, const char *mover,
                             bool faced, json_t *effects)
{
    const struct rules_encounter *now = enc_typed(&sc->ctx);
    if (!rules_encounter_move_pauses(x->engine) || now == NULL ||
        !rules_reactions_awaited(now->reactions, now->reaction_count))
        return;
    int mi = rules_encounter_find(now, mover);
    const struct rules_creature *body = &now->combatants[mi].body;
    json_t *pause =
        json_pack("{s:s, s:i, s:i}", "mover", mover, "x", body->body.x, "y", body->body.y);
    if (faced) /* no step gives a facing */
        json_object_set_new(pause, "facing", json_integer(body->facing));
    json_t *add =
        json_pack("[o]", enc_effect_set("encounter", json_pack("{s:o}", "paused_move", pause)));
    rules_encounter_pause_move(&sc->work, mi, body->body.x, body->body.y,
                               faced ? body->facing : -1);
    scratch_applied(x, sc, add);
    json_array_extend(effects, add);
    json_decref(add);
    place_paused(x, sc, mover, effects);
}

/* What became of each decided reaction of mover's move, in step order (a new array): declined,
 * made (made: the engine's attacks' records), or, when still open in sc, awaiting or waiting,
 * and closed when the mover dropped before it got there. */
static json_t *reaction_records(struct scratch *sc, const char *mover,
                                const struct enc_provoked *provoked, int n, json_t *open,
                                json_t *declined, json_t *made)
{
    json_t *records = json_array();
    for (int i = 0; i < n; i++) {
        const char *by = provoked[i].by;
        json_t *rec = NULL;
        size_t k;
        json_t *c;
        json_array_foreach(declined, k, c)
        {
            if (strcmp(enc_str(c, "by"), by) == 0)
                rec = json_incref(c);
        }
        json_array_foreach(made, k, c)
        {
            if (strcmp(enc_str(c, "by"), by) == 0)
                rec = json_incref(c);
        }
        json_t *orig = NULL;
        json_array_foreach(open, k, c)
        {
            if (strcmp(enc_str(c, "by"), by) == 0)
                orig = c;
        }
        if (rec == NULL && orig != NULL && *enc_str(orig, "policy")) {
            /* Still open (awaiting, or an engine's attack waiting behind an asked one), or
             * closed because the mover dropped before it got there. */
            size_t at;
            const struct rules_enc_reaction *still = enc_open_reaction(&sc->ctx, mover, by, &at);
            bool asked = still != NULL && rules_reaction_outcome(still) == RULES_AOO_ASKED;
            rec = json_pack("{s:s, s:O, s:O, s:O, s:s}", "by", by, "step",
                            json_object_get(orig, "step"), "x", json_object_get(orig, "x"), "y",
                            json_object_get(orig, "y"), "outcome",
                            still == NULL ? "closed"
                            : asked       ? "awaiting"
                                          : "waiting");
        }
        if (rec != NULL)
            json_array_append_new(records, rec);
    }
    return records;
}

/* The reactions to a move (ruling ans, its effects so far in `effects`). Each attack
 * of opportunity the move provoked (004 Provoking an Attack of Opportunity by Moving, under the
 * start_square option, withdraw's primary target excluded by the ruling) is decided by the
 * mover's decision for its reactor (in's reactions) or the reactor's aoo_policy
 * (rules_aoo_outcome_of):
 *   - none: open until the next event; the enemy may answer it then,
 *     striking the mover in the square it was leaving;
 *   - ask: open, and the encounter awaits it (awaiting_reactions): the answer or a decline;
 *   - always, or take: made by the engine within this move (settle_reactions), unless an asked
 *     one at an earlier step must be settled first: then it waits for that one;
 *   - never, or decline: not opened.
 * With no policy and no decision, the effects are those of no policy at all (the rule reactions
 * alone). Otherwise the ruling gains `reactions`: what became of each decided one, in step order.
 */
void enc_open_reactions(struct resolve_ctx *x, struct enc_acted acted, json_t *in, json_t *actor,
                        const struct enc_provoked *provoked, int n, json_t *result, json_t *effects,
                        struct enc_reactions_left *left)
{
    assert(acted.w != NULL);
    /* The state before the event: ids, profiles and policies, which the action changes not. */
    const struct rules_encounter *te = enc_typed(x);
    /* The reactions opened, as the typed state will hold them (whether one is awaited). */
    struct rules_enc_reaction *opened = malloc(((size_t)n + 1) * sizeof *opened);
    if (te == NULL || opened == NULL) {
        free(opened);
        rules_encounter_work_free(acted.w);
        svc_errors_add(x->e, "", "the reactions could not be opened");
        return;
    }
    int n_open = 0;
    json_t *decisions = json_object_get(in, "reactions");
    json_t *open = json_array(), *declined = json_array();
    bool decided = false;
    for (int i = 0; i < n; i++) {
        const struct enc_provoked *a = &provoked[i];
        const char *by = a->by;
        int bi = rules_encounter_find(te, by);
        enum rules_aoo_policy p = bi >= 0 ? te->combatants[bi].aoo_policy : RULES_AOO_POLICY_UNSET;
        const char *d = enc_str(decisions, by);
        enum rules_aoo_decision dec = strcmp(d, "take") == 0      ? RULES_AOO_DECISION_TAKE
                                      : strcmp(d, "decline") == 0 ? RULES_AOO_DECISION_DECLINE
                                                                  : RULES_AOO_DECISION_NONE;
        enum rules_aoo_outcome o = rules_aoo_outcome_of(p, dec);
        json_t *r = json_pack("{s:s, s:s, s:i, s:i, s:i, s:o}", "mover", enc_str(actor, "id"), "by",
                              by, "step", a->step, "x", a->x, "y", a->y, "facing",
                              a->facing >= 0 ? json_integer(a->facing) : json_null());
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
            opened[n_open++] = (struct rules_enc_reaction){
                .mover = rules_encounter_find(te, enc_str(actor, "id")),
                .by = bi,
                .step = a->step,
                .x = a->x,
                .y = a->y,
                .facing = a->facing >= 0 ? a->facing : -1,
                .policy = o == RULES_AOO_ASKED  ? RULES_AOO_POLICY_ASK
                          : o == RULES_AOO_MADE ? RULES_AOO_POLICY_ALWAYS
                                                : RULES_AOO_POLICY_UNSET};
        }
    }
    bool awaiting = rules_reactions_awaited(opened, n_open);
    /* Decided ones: the engine's attacks are ruled on the work copy, the reactions open on it. */
    bool opens = decided && rules_encounter_open_reactions(acted.w, opened, n_open);
    free(opened);
    if (decided && !opens) {
        json_decref(declined);
        json_decref(open);
        rules_encounter_work_free(acted.w);
        svc_errors_add(x->e, "", "the reactions could not be opened");
        return;
    }
    if (!decided) {
        rules_encounter_work_free(acted.w);
        json_decref(declined);
        json_array_append_new(effects,
                              enc_effect_set("encounter", json_pack("{s:o}", "reactions", open)));
        if (left != NULL) /* nothing made, nothing paused */
        {
            const struct rules_enc_combatant *a = enc_typed_of(x, actor, NULL);
            *left = (struct enc_reactions_left){false, a != NULL && rules_enc_combatant_dropped(a)};
        }
        return;
    }
    json_array_append_new(effects, enc_reactions_effect(te, json_incref(open), awaiting));
    struct scratch sc;
    scratch_on(&sc, x, acted.w, effects);
    json_t *made = json_array();
    settle_reactions(x, &sc, enc_str(actor, "id"), json_object_get(in, "reaction_results"), effects,
                     made);
    pause_if_awaited(x, &sc, enc_str(actor, "id"), acted.faced, effects);
    json_object_set_new(
        result, "reactions",
        reaction_records(&sc, enc_str(actor, "id"), provoked, n, open, declined, made));
    if (left != NULL) {
        /* Its move is paused (the typed state's paused move is its own). */
        const struct rules_encounter *now = enc_typed(&sc.ctx);
        int me = now != NULL ? rules_encounter_find(now, enc_str(actor, "id")) : -1;
        left->paused = me >= 0 && now->paused.mover == me;
        left->dropped = scratch_dropped(&sc, enc_str(actor, "id"));
    }
    json_decref(made);
    scratch_close(&sc);
    json_decref(declined);
    json_decref(open);
}

/* reaction_results: the dice of the attacks of opportunity the engine makes in this event, by
 * reactor: {"<id>": [d20, damage dice...]}, each die 1..1000 as /v1/attacks/resolve takes them.
 * False after adding errors. */
bool enc_check_reaction_results(json_t *in, struct svc_errors *e)
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
void enc_check_decisions(json_t *state, json_t *in, struct svc_errors *e)
{
    enc_check_reaction_results(in, e);
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
        if (enc_find(state, k, NULL) == NULL)
            svc_errors_add(e, p, "names no combatant");
        else
            codec_get_enum(all, "/reactions", k, decisions, true, -1, e);
    }
}
