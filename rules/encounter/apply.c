/* What an event leaves on the typed encounter, applied to the structs (apply.h). */
#include "rules/encounter/apply.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "rules/encounter/engine.h"
#include "rules/encounter/event.h"
#include "rules/encounter/hp.h"
#include "rules/encounter/opportunity.h"

bool rules_encounter_work_copy(const struct rules_encounter *from, struct rules_encounter_work *out)
{
    assert(from != NULL && out != NULL && from->count >= 0 && from->slots >= 0);
    memset(out, 0, sizeof *out);
    size_t timed = 0;
    for (int i = 0; i < from->count; i++)
        timed += (size_t)from->combatants[i].timed_count;
    out->combatants = malloc(((size_t)from->count + 1) * sizeof *out->combatants);
    out->timed = malloc((timed + 1) * sizeof *out->timed);
    out->order = malloc(((size_t)from->slots + 1) * sizeof *out->order);
    out->reactions = malloc(((size_t)from->reaction_count + 1) * sizeof *out->reactions);
    if (out->combatants == NULL || out->timed == NULL || out->order == NULL ||
        out->reactions == NULL) {
        rules_encounter_work_free(out);
        return false;
    }
    size_t nt = 0;
    for (int i = 0; i < from->count; i++) {
        const struct rules_enc_combatant *c = &from->combatants[i];
        out->combatants[i] = *c;
        if (c->timed_count > 0)
            memcpy(out->timed + nt, c->timed, (size_t)c->timed_count * sizeof *out->timed);
        out->combatants[i].timed = out->timed + nt;
        nt += (size_t)c->timed_count;
    }
    if (from->slots > 0)
        memcpy(out->order, from->order, (size_t)from->slots * sizeof *out->order);
    if (from->reaction_count > 0)
        memcpy(out->reactions, from->reactions,
               (size_t)from->reaction_count * sizeof *out->reactions);
    out->e = *from;
    out->e.combatants = out->combatants;
    out->e.order = out->order;
    out->e.reactions = out->reactions;
    return true;
}

void rules_encounter_work_free(struct rules_encounter_work *w)
{
    if (w == NULL)
        return;
    free(w->combatants);
    free(w->timed);
    free(w->order);
    free(w->reactions);
    memset(w, 0, sizeof *w);
}

void rules_enc_combatant_derive(struct rules_enc_combatant *c)
{
    assert(c != NULL);
    c->prone = c->conditions & (1u << RULES_CONDITION_PRONE);
    c->flat_footed = c->conditions & (1u << RULES_CONDITION_FLAT_FOOTED);
    c->stunned = c->conditions & (1u << RULES_CONDITION_STUNNED);
    c->down = (c->conditions &
               (1u << RULES_CONDITION_UNCONSCIOUS | 1u << RULES_CONDITION_HELPLESS)) != 0 ||
              !rules_hp_acts(c->hp_state);
}

bool rules_enc_combatant_dropped(const struct rules_enc_combatant *c)
{
    assert(c != NULL);
    return (c->conditions & (1u << RULES_CONDITION_UNCONSCIOUS | 1u << RULES_CONDITION_HELPLESS)) !=
               0 ||
           c->hp_state == RULES_HP_DYING || c->hp_state == RULES_HP_DEAD;
}

enum rules_hp_state rules_encounter_hp_state(const struct rules_encounter *e, int c)
{
    assert(e != NULL && c >= 0 && c < e->count);
    return rules_encounter_hp_state_at(e->engine, e->rules, e->combatants[c].hp);
}

void rules_enc_combatant_begin_turn(int engine, struct rules_enc_combatant *c)
{
    assert(c != NULL);
    c->turn = (struct rules_turn){0};
    c->charge_target = -1;
    c->conditions &= ~(1u << RULES_CONDITION_FLAT_FOOTED);
    if (rules_encounter_keeps_sources(engine))
        for (int k = 0; k < RULES_CONDITION_COUNT; k++)
            c->sources[k] = rules_condition_source_at_turn(c->sources[k]);
    rules_enc_combatant_derive(c);
}

void rules_encounter_begin_turn(struct rules_encounter *e, struct rules_enc_combatant *cs,
                                const struct rules_next_turn *next)
{
    assert(e != NULL && next != NULL && cs == e->combatants);
    e->round = next->round;
    e->turn = next->turn;
    for (int k = 0; k < next->ended_count; k++) {
        const struct rules_enc_ended *end = &next->ended[k];
        assert(end->combatant >= 0 && end->combatant < e->count);
        struct rules_enc_combatant *c = &cs[end->combatant];
        assert(end->timed >= 0 && end->timed < c->timed_count);
        int cond = c->timed[end->timed].condition;
        if (cond >= 0)
            c->conditions &= ~(1u << cond);
        rules_enc_combatant_derive(c);
    }
    if (next->combatant >= 0) {
        assert(next->combatant < e->count);
        rules_enc_combatant_begin_turn(e->engine, &cs[next->combatant]);
    }
}

void rules_encounter_set_hp(struct rules_encounter_work *w, int c, long long hp)
{
    assert(w != NULL && c >= 0 && c < w->e.count);
    struct rules_enc_combatant *k = &w->combatants[c];
    k->hp = hp < -1000000 ? -1000000 : hp > 1000000 ? 1000000 : (int)hp;
    if (rules_encounter_stores_hp_state(w->e.engine, w->e.rules))
        k->hp_state = rules_hp_state_of(w->e.rules, hp);
    rules_enc_combatant_derive(k);
}

void rules_encounter_set_place(struct rules_encounter_work *w, int c, int x, int y, int facing)
{
    assert(w != NULL && c >= 0 && c < w->e.count);
    struct rules_enc_combatant *k = &w->combatants[c];
    k->body.body.x = x;
    k->body.body.y = y;
    if (facing >= 0)
        k->body.facing = facing;
}

void rules_encounter_set_attacked(struct rules_encounter_work *w, int c)
{
    assert(w != NULL && c >= 0 && c < w->e.count);
    struct rules_enc_combatant *k = &w->combatants[c];
    k->turn = (struct rules_turn){.standard = true, .moved = k->turn.moved, .ran = k->turn.ran};
    k->charge_target = -1;
}

void rules_encounter_set_aoo(struct rules_encounter_work *w, int c, long long round, int made)
{
    assert(w != NULL && c >= 0 && c < w->e.count);
    w->combatants[c].aoo_round = round;
    w->combatants[c].aoo_made = made;
}

void rules_encounter_settle_reaction(struct rules_encounter_work *w, int at, bool stopped)
{
    assert(w != NULL && at >= 0 && at < w->e.reaction_count);
    struct rules_encounter *e = &w->e;
    /* Each stays or goes as rules_encounter_reaction_stays rules it against the settled one
     * (kept aside, as the list closes up in place). */
    struct rules_enc_reaction pair[2] = {w->reactions[at]};
    struct rules_encounter view = *e;
    view.reactions = pair;
    view.reaction_count = 2;
    int n = 0;
    for (int i = 0; i < e->reaction_count; i++) {
        pair[1] = w->reactions[i];
        if (i != at && rules_encounter_reaction_stays(&view, 0, stopped, 1))
            w->reactions[n++] = pair[1];
    }
    e->reaction_count = n;
    e->awaiting_reactions = rules_reactions_awaited(w->reactions, n);
}

void rules_encounter_pause_move(struct rules_encounter_work *w, int mover, int x, int y, int facing)
{
    assert(w != NULL && mover >= 0 && mover < w->e.count);
    w->e.paused = (struct rules_enc_pause){.mover = mover,
                                           .x = x,
                                           .y = y,
                                           .has_facing = facing >= 0,
                                           .facing = facing >= 0 ? facing : 0};
}

void rules_encounter_end_pause(struct rules_encounter_work *w)
{
    assert(w != NULL);
    w->e.paused = (struct rules_enc_pause){.mover = -1};
}

void rules_encounter_stand(struct rules_encounter_work *w, int c)
{
    assert(w != NULL && c >= 0 && c < w->e.count);
    w->combatants[c].conditions &= ~(1u << RULES_CONDITION_PRONE);
    rules_enc_combatant_derive(&w->combatants[c]);
}

/* Adds t after combatant c's timed effects: w's timed array is made anew, every combatant's
 * effects in combatant order, each combatant pointed at its own. False when out of memory. */
static bool add_timed(struct rules_encounter_work *w, int c, struct rules_enc_timed t)
{
    size_t total = 1;
    for (int i = 0; i < w->e.count; i++)
        total += (size_t)w->combatants[i].timed_count;
    struct rules_enc_timed *all = malloc(total * sizeof *all);
    if (all == NULL)
        return false;
    size_t n = 0;
    for (int i = 0; i < w->e.count; i++) {
        struct rules_enc_combatant *k = &w->combatants[i];
        if (k->timed_count > 0)
            memcpy(all + n, k->timed, (size_t)k->timed_count * sizeof *all);
        k->timed = all + n;
        n += (size_t)k->timed_count;
        if (i == c) {
            all[n++] = t;
            k->timed_count++;
        }
    }
    free(w->timed);
    w->timed = all;
    return true;
}

bool rules_encounter_set_moved(struct rules_encounter_work *w, int c,
                               const struct rules_enc_move_ruling *m, int foe)
{
    assert(w != NULL && m != NULL && c >= 0 && c < w->e.count && foe < w->e.count);
    rules_encounter_set_place(w, c, m->end_x, m->end_y, m->end_facing);
    struct rules_enc_combatant *k = &w->combatants[c];
    k->turn.stepped |= m->marks.stepped;
    k->turn.moved |= m->marks.moved;
    k->turn.ran |= m->marks.ran;
    if (foe >= 0)
        k->charge_target = foe;
    if (m->marks.flat_footed)
        k->conditions |= 1u << RULES_CONDITION_FLAT_FOOTED;
    bool ok = true;
    if (m->charging) {
        k->conditions |= 1u << RULES_CONDITION_CHARGING;
        ok = add_timed(w, c,
                       (struct rules_enc_timed){m->charging_end_round, m->charging_end_turn,
                                                RULES_CONDITION_CHARGING});
    }
    rules_enc_combatant_derive(&w->combatants[c]);
    return ok;
}

bool rules_encounter_open_reactions(struct rules_encounter_work *w,
                                    const struct rules_enc_reaction *list, int n)
{
    assert(w != NULL && n >= 0 && (n == 0 || list != NULL));
    struct rules_enc_reaction *room = realloc(w->reactions, ((size_t)n + 1) * sizeof *room);
    if (room == NULL)
        return false;
    if (n > 0)
        memcpy(room, list, (size_t)n * sizeof *room);
    w->reactions = room;
    w->e.reactions = room;
    w->e.reaction_count = n;
    w->e.awaiting_reactions = rules_reactions_awaited(room, n);
    return true;
}

/* Index i after combatant c left: -1 for c itself, one less past it. */
static int index_after(int i, int c)
{
    return i == c ? -1 : i > c ? i - 1 : i;
}

void rules_encounter_leave(struct rules_encounter_work *w, int c, bool leaving,
                           struct rules_enc_left *out)
{
    assert(w != NULL && out != NULL && c >= 0 && c < w->e.count);
    struct rules_encounter *e = &w->e;
    *out = (struct rules_enc_left){.slot = -1};
    int k = -1;
    for (int s = 0; s < e->slots && k < 0; s++)
        if (e->order[s].combatant == c)
            k = s;
    int cur = e->turn;
    /* Out of the combatants, and out of the order (the fold of its remove effect). */
    memmove(&w->combatants[c], &w->combatants[c + 1],
            (size_t)(e->count - c - 1) * sizeof *w->combatants);
    e->count--;
    if (k >= 0) {
        memmove(&w->order[k], &w->order[k + 1], (size_t)(e->slots - k - 1) * sizeof *w->order);
        e->slots--;
    }
    for (int i = 0; i < e->count; i++)
        if (w->combatants[i].charge_target >= 0)
            w->combatants[i].charge_target = index_after(w->combatants[i].charge_target, c);
    for (int s = 0; s < e->slots; s++)
        if (w->order[s].combatant >= 0)
            w->order[s].combatant = index_after(w->order[s].combatant, c);
    for (int r = 0; r < e->reaction_count; r++) {
        if (w->reactions[r].mover >= 0)
            w->reactions[r].mover = index_after(w->reactions[r].mover, c);
        if (w->reactions[r].by >= 0)
            w->reactions[r].by = index_after(w->reactions[r].by, c);
    }
    if (e->paused.mover >= 0)
        e->paused.mover = index_after(e->paused.mover, c);
    if (!leaving || !e->started || k < 0)
        return;
    /* The rule leaving: the order closes up around its place. */
    out->slot = k;
    for (int i = 0; i < e->count; i++) {
        struct rules_enc_combatant *x = &w->combatants[i];
        /* Its timed effects are w's own (rules_encounter_work_copy). */
        struct rules_enc_timed *t = w->timed + (x->timed - w->timed);
        for (int n = 0; n < x->timed_count; n++)
            if (t[n].end_turn > k)
                t[n].end_turn--;
    }
    if (k < cur)
        e->turn = cur - 1;
    else if (k == cur) {
        e->turn = k > 0 ? k - 1 : -1;
        out->passes = true;
    }
}
