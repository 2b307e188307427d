/* Speed (movement.h): walk speed under armor and load, the run multiplier and the rounds a run
 * lasts, whether a 5-foot step is possible, and the budget of each movement type for an action
 * (001 Encumbrance, Run, Walk, Double Move, 5-Foot Step, Crawling, Withdraw). */
#include "rules/move/internal.h"
#include "rules/move/move.h"

#include <assert.h>

const char *const rules_move_mode_names[RULES_MODE_COUNT + 1] = {
    "move", "double_move", "run", "charge", "five_foot_step", "withdraw", "crawl", NULL};

const char *rules_move_mode_name(enum rules_move_mode m)
{
    assert((unsigned)m < RULES_MODE_COUNT);
    return rules_move_mode_names[m];
}

/* 001 Encumbrance: medium "reduces your movement by five feet if your base move is above 20
 * feet" (at 20 or less, RULES.md 8: the option); heavy "by ten feet if your Walk speed is
 * above 20 feet and five feet otherwise". Armor works "exactly as" load, and they stack. */
static int burden_penalty(const struct rules_options *o, enum rules_burden b, int walk)
{
    if (b == RULES_BURDEN_MEDIUM)
        return walk > 20 ? 5 : o->slow_medium_penalty_ft;
    if (b == RULES_BURDEN_HEAVY)
        return walk > 20 ? 10 : 5;
    return 0;
}

void rules_speed_eval(const struct rules_options *o, const struct rules_mover *m,
                      struct rules_speed *out)
{
    int walk = m->speed[RULES_MOVE_WALK];
    *out = (struct rules_speed){.base_walk_ft = walk};
    out->armor_penalty_ft = burden_penalty(o, m->armor, walk);
    out->load_penalty_ft = burden_penalty(o, m->load, walk);
    int eff = walk - out->armor_penalty_ft - out->load_penalty_ft;
    out->walk_ft = eff > 0 ? eff : 0;
    out->move_action = walk == 0 || out->walk_ft > 0;
    if (o->run == RULES_RUN_X4) {
        /* 001 Run: "four times their listed speed (or three times ... heavy armor)". */
        out->run_multiplier = m->armor == RULES_BURDEN_HEAVY ? 3 : 4;
        out->run_rule = "001 Run: x4, x3 in heavy armor";
    } else {
        /* 001 Encumbrance: x5, -1 for medium and -2 for heavy load or armor, stacking. */
        int mult = 5 - (int)m->armor - (int)m->load;
        out->run_multiplier = mult < 1 ? 1 : mult;
        out->run_rule = "001 Encumbrance: x5, less 1 per medium and 2 per heavy load or armor";
    }
    out->run_ft = out->run_multiplier * out->walk_ft;
    out->run_rounds = m->constitution; /* 001 Run: "a number of rounds equal to their
                                          Constitution score" */
    out->step_possible = true;
    out->step_reason = "a 5-foot step is possible (001 5-Foot Step)";
    int fastest = 0;
    for (int t = 0; t < RULES_MOVE_TYPES; t++) {
        int s = t == RULES_MOVE_WALK ? out->walk_ft : m->speed[t];
        fastest = s > fastest ? s : fastest;
    }
    if (fastest <= 5) {
        out->step_possible = false;
        out->step_violation = RULES_MV_STEP_SLOW;
        out->step_reason = rules_move_violation_text(RULES_MV_STEP_SLOW);
    } else if ((m->moved || m->ran) && m->extra_steps <= 0) {
        out->step_possible = false;
        out->step_violation = RULES_MV_STEP_MOVED;
        out->step_reason = rules_move_violation_text(RULES_MV_STEP_MOVED);
    }
}

int rules_run_check_dc(int n)
{
    return 30 + 2 * n; /* 001 Run: "DC 30 ... increases by +2 for each check ... previously" */
}

/* Budgets per movement type for the action (001 Walk, Double Move, Run, 5-Foot Step,
 * Crawling, Withdraw). unlimited: the route search ignores them. */
void rules__set_budgets(struct rules__move_ctx *c, bool unlimited)
{
    struct rules_speed sp;
    rules_speed_eval(c->o, c->m, &sp);
    c->max_budget = 0;
    c->speed_types = 0;
    for (int t = 0; t < RULES_MOVE_TYPES; t++) {
        int s = t == RULES_MOVE_WALK ? sp.walk_ft : c->m->speed[t];
        int b = 0;
        switch (c->q->mode) {
        case RULES_MODE_MOVE:
        case RULES_MODE_WITHDRAW:
            b = s;
            break;
        case RULES_MODE_DOUBLE:
            b = 2 * s;
            break;
        case RULES_MODE_CHARGE:
            /* d20 3.5 SRD, Charge: "If you are able to take only a standard action or a move
             * action on your turn, you can still charge, but you are only allowed to move up
             * to your speed (instead of up to double your speed)." */
            b = c->m->single_action ? s : 2 * s;
            break;
        case RULES_MODE_RUN:
            b = sp.run_multiplier * s;
            break;
        case RULES_MODE_STEP:
            b = s > 0 ? 5 : 0;
            break;
        case RULES_MODE_CRAWL:
            b = t == RULES_MOVE_WALK && s > 0 ? 5 : 0;
            break;
        case RULES_MODE_COUNT:
            break;
        }
        if (unlimited && s > 0)
            b = INT32_MAX / 4;
        c->budget[t] = b;
        c->max_budget = b > c->max_budget ? b : c->max_budget;
        if (b > 0)
            c->speed_types |= 1u << t;
    }
    c->impeded_cost = 2 * sp.walk_ft > 5 ? 2 * sp.walk_ft : 5;
    for (unsigned set = 0; set < (1u << RULES_MOVE_TYPES); set++) {
        c->type_budget[set] = -1;
        for (int t = 0; t < RULES_MOVE_TYPES; t++)
            if ((set & 1u << t) && c->budget[t] > c->type_budget[set])
                c->type_budget[set] = c->budget[t];
    }
}
