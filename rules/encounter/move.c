/* The encounter's move (rules_encounter_move): a move action in any mode or a 5-foot step, ruled
 * on the state before it. The path is rules_move_path's, as POST /v1/movement/path rules it; what
 * is the encounter's own is here: the charge's designated opponent and straight line (d20 3.5
 * SRD, Combat: Charge), and what the move leaves on the mover (its turn's marks, a run's
 * flat-footed condition, a charge's -2 AC). Pure: no I/O (the path ruling it calls allocates its
 * search). */
#include <stddef.h>

#include "rules/encounter/encounter.h"
#include "rules/encounter/engine.h"

void rules_encounter_mover(int engine, enum rules_move_mode mode, bool single_action,
                           struct rules_mover *mv)
{
    if (!rules_engine_has(engine, RULES_ENGINE_CRAWL) && mode != RULES_MODE_CRAWL)
        mv->prone = false;
    mv->single_action =
        rules_engine_has(engine, RULES_ENGINE_CHARGE) && mode == RULES_MODE_CHARGE && single_action;
}

int rules_encounter_move_target(const struct rules_encounter *e, const struct rules_enc_move *m)
{
    const struct rules_move_query *q = m->q;
    bool charge = rules_engine_has(e->engine, RULES_ENGINE_CHARGE) && q->mode == RULES_MODE_CHARGE;
    const struct rules_map_creature *foe = m->target >= 0 ? &q->creatures[m->target] : NULL;
    if (charge && (foe == NULL || foe->ally || !foe->conscious))
        return RULES_ENC_MOVE_NO_OPPONENT;
    if (charge && !m->has_melee)
        return RULES_ENC_MOVE_NO_MELEE;
    if (rules_engine_has(e->engine, RULES_ENGINE_CHARGE) && !charge && m->target_named)
        return RULES_ENC_MOVE_TARGET;
    return RULES_ENC_MOVE_OK;
}

int rules_encounter_move(const struct rules_encounter *e, const struct rules_enc_move *m,
                         struct rules_enc_move_ruling *out)
{
    const struct rules_move_query *q = m->q;
    bool charge = rules_engine_has(e->engine, RULES_ENGINE_CHARGE) && q->mode == RULES_MODE_CHARGE;
    const struct rules_map_creature *foe = m->target >= 0 ? &q->creatures[m->target] : NULL;
    out->charge = RULES_CHARGE_OK;
    out->charge_at = -1;
    out->charging = false;
    int rc = rules_encounter_move_target(e, m);
    if (rc != RULES_ENC_MOVE_OK)
        return rc;
    if (rules_move_path(q, m->steps, m->n, m->end_facing, &out->path) != RULES_MOVE_OK)
        return RULES_ENC_MOVE_NOMEM;
    if (!out->path.legal)
        return RULES_ENC_MOVE_ILLEGAL;
    const struct rules_creature *me = &q->mover->c;
    out->end_x = m->n > 0 ? out->path.steps[m->n - 1].x : me->body.x;
    out->end_y = m->n > 0 ? out->path.steps[m->n - 1].y : me->body.y;
    out->end_facing = out->path.end_facing;
    /* The charge's path: each step nearer its opponent, stopping where it can first attack. */
    if (charge) {
        out->charge = rules_charge_check(q->o, me, m->steps, m->n, &foe->c, &out->charge_at);
        if (out->charge != RULES_CHARGE_OK)
            return RULES_ENC_MOVE_CHARGE;
    }
    rules_move_marks_of(q->mode, m->runner, &out->marks);
    /* d20 3.5 SRD, Charge: "take a -2 penalty to your AC until the start of your next turn": a
     * one-round condition, which ends as its next turn begins (004 durations). */
    if (charge && !m->charging) {
        out->charging = true;
        rules_duration_end(e->round, e->turn, 1, &out->charging_end_round, &out->charging_end_turn);
    }
    return RULES_ENC_MOVE_OK;
}
