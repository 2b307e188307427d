/* Odds for a move: path and route with `odds: true`. Each attack of opportunity
 * the move provokes is an attack already evaluated by the path checker (rules_aoo.eval: the
 * attacker's bonus, the mover's Defense, cover and concealment as they stand at that step),
 * so its odds are rules_attack_odds of that evaluation with the attacker's damage profile.
 * The mover then takes them one after another and stops taking them once dropped
 * (rules_dist_gauntlet), which gives the chance it is dropped on the way and the hit points it
 * arrives with.
 *
 * Decisions where the issue is silent (also in openapi.yaml):
 *  - An attacker's profile is the creature's `attack_bonus` (as today), `damage`,
 *    `crit_range` and `crit_multiplier`; without `damage` its attacks get chances, no damage.
 *  - The mover's `hp` and `damage_reduction` are read from `mover`; without `hp` there is no
 *    drop chance or arrival, only the damage taken.
 *  - Dropped means at 0 hit points or below, as /v1/attacks/odds's drop_chance: under the
 *    SRD's hit point states a creature at exactly 0 is disabled and could go on, but a table
 *    asking "is it worth running past the fighter" counts it down; kill_chance (under
 *    hp_states srd) is -10 or below. */
#include <stdio.h>
#include <stdlib.h>

#include "rules/encounter/hp.h"
#include "service/codec/move_odds.h"
#include "service/codec/odds.h"

void move_odds_free(struct move_odds *m)
{
    for (int i = 0; i < m->n; i++)
        rules_dist_free(&m->each[i].damage);
    free(m->each);
    free(m->hits);
    rules_dist_free(&m->taken);
    *m = (struct move_odds){0};
}

int move_odds_of_aoo(const struct move_req *r, int creature, const struct rules_attack_eval *ev,
                     struct rules_odds_budget *b, struct rules_attack_odds *out)
{
    const struct rules_options *o = r->o;
    const struct move_attack_profile *pf = &r->profiles[creature];
    struct rules_attack_odds_in in = {
        .attack_total = ev->attack_total,
        .target_number = ev->target_number,
        .natural_1_and_20 = o->critical_hits,
        .cover = ev->cover,
        .target_without_cover = ev->target_without_cover,
        .miss_chance = ev->miss_chance,
        .damage = pf->damage != NULL ? &pf->damage_expr : NULL,
        .damage_reduction = r->mover_dr,
        .crit = o->critical_hits ? (struct rules_crit){.threat_min = pf->crit_range,
                                                       .multiplier = pf->crit_multiplier,
                                                       .confirm = true}
                                 : (struct rules_crit){.threat_min = RULES_CRIT_NONE},
    };
    return rules_attack_odds(&in, b, out);
}

int move_odds_compute(const struct move_req *r, const struct rules_path_result *p,
                      struct rules_odds_budget *b, struct move_odds *m)
{
    *m = (struct move_odds){0};
    m->each = calloc((size_t)p->aoo_count + 1, sizeof *m->each);
    m->hits = calloc((size_t)p->aoo_count + 1, sizeof *m->hits);
    if (m->each == NULL || m->hits == NULL) {
        move_odds_free(m);
        return RULES_ODDS_ERR_NOMEM;
    }
    int rc = RULES_ODDS_OK;
    for (int i = 0; i < p->aoo_count && rc == RULES_ODDS_OK; i++) {
        rc = move_odds_of_aoo(r, p->aoos[i].creature, &p->aoos[i].eval, b, &m->each[i]);
        if (rc == RULES_ODDS_OK) {
            m->hits[i] = m->each[i].damage;
            m->n = i + 1;
        }
    }
    if (rc == RULES_ODDS_OK)
        rc = rules_dist_gauntlet(m->hits, p->aoo_count, r->mover_hp, b, &m->taken);
    if (rc != RULES_ODDS_OK)
        move_odds_free(m);
    return rc;
}

void move_odds_write_aoo(struct jw *w, const struct move_odds *m, int i)
{
    const struct rules_attack_odds *a = &m->each[i];
    JW_KEY(w, "odds");
    jw_object_begin(w);
    SVC_ODDS_P(w, "hit", a->hit);
    SVC_ODDS_P(w, "lands", a->lands);
    SVC_ODDS_P(w, "critical", a->critical);
    SVC_ODDS_D(w, "expected_damage", a->expected_damage);
    jw_object_end(w);
}

/* P(taken <= t), summed from the bottom. */
static double at_most(const struct rules_dist *d, int t)
{
    double run = 0.0;
    for (int i = 0; i < d->len && d->min + i <= t; i++)
        run += d->p[i];
    return run < 1.0 ? run : 1.0;
}

void move_odds_write(struct jw *w, const struct move_req *r, const struct move_odds *m)
{
    const struct rules_dist *t = &m->taken;
    JW_KEY(w, "odds");
    jw_object_begin(w);
    JW_STRING(w, "probabilities", "double");
    JW_INT(w, "attacks", m->n);
    JW_KEY(w, "hit_at_least_once");
    double none = 1.0; /* every attack misses: a product, nothing subtracted */
    for (int i = 0; i < m->n; i++)
        none *= 1.0 - m->each[i].lands;
    svc_odds_write_probability(w, 1.0 - none);
    SVC_ODDS_D(w, "expected_damage", rules_dist_mean(t));
    if (r->mover_hp > 0) {
        JW_INT(w, "hp", r->mover_hp);
        SVC_ODDS_P(w, "drop_chance", rules_dist_at_least(t, r->mover_hp));
        if (r->o->hp_states == RULES_HP_STATES_SRD) {
            JW_KEY(w, "kill_chance");
            svc_odds_write_probability(
                w, rules_dist_at_least(t, (int)rules_hp_damage_to_kill(r->mover_hp)));
        }
        /* [{hp, at_least}]: the chance to arrive with at least hp, for each hp it can arrive
         * with, most first. */
        JW_KEY(w, "arrives");
        jw_array_begin(w);
        for (int i = 0; i < t->len; i++) {
            int taken = t->min + i;
            if (taken >= r->mover_hp)
                break;
            if (t->p[i] == 0.0)
                continue;
            jw_object_begin(w);
            JW_INT(w, "hp", r->mover_hp - taken);
            SVC_ODDS_P(w, "at_least", at_most(t, taken));
            jw_object_end(w);
        }
        jw_array_end(w);
    }
    JW_KEY(w, "damage_taken");
    jw_object_begin(w);
    svc_odds_write_summary(w, t);
    jw_object_end(w);
    JW_KEY(w, "source");
    jw_string(w, "004 Attacks of Opportunity; " RULES_HP_SOURCE);
    jw_object_end(w);
}

size_t move_odds_explain(char *buf, size_t len, const struct move_req *r, const struct move_odds *m)
{
    if (m->n == 0)
        return (size_t)snprintf(buf, len, " Odds: no attack of opportunity to fear.");
    double none = 1.0;
    for (int i = 0; i < m->n; i++)
        none *= 1.0 - m->each[i].lands;
    size_t used = (size_t)snprintf(buf, len, " Odds: %.0f%% to be hit, %.1f damage expected",
                                   100.0 * (1.0 - none), rules_dist_mean(&m->taken));
    if (r->mover_hp > 0 && used < len)
        used += (size_t)snprintf(buf + used, len - used, ", %.0f%% to be dropped (%d hp)",
                                 100.0 * rules_dist_at_least(&m->taken, r->mover_hp), r->mover_hp);
    if (used < len)
        used += (size_t)snprintf(buf + used, len - used, ".");
    return used;
}

int move_odds_reach(const struct move_req *r, struct rules_reach *reach,
                    struct rules_odds_budget *b, double *expected, double *drop)
{
    int count = rules_reach_count(reach);
    struct rules_move_query q = move_query_of(r);
    struct rules_creature *allies = calloc((size_t)r->nc + 1, sizeof *allies);
    int *who = calloc((size_t)r->nc + 1, sizeof *who);
    int *fx = calloc((size_t)r->nc + 1, sizeof *fx);
    int *fy = calloc((size_t)r->nc + 1, sizeof *fy);
    struct rules_attack_odds *each = calloc((size_t)r->nc + 1, sizeof *each);
    struct rules_dist *hits = calloc((size_t)r->nc + 1, sizeof *hits);
    int rc = allies && who && fx && fy && each && hits ? RULES_ODDS_OK : RULES_ODDS_ERR_NOMEM;
    for (int i = 0; i < count && rc == RULES_ODDS_OK; i++) {
        int na = rules_reach_aoos(reach, i, who, fx, fy);
        int made = 0;
        for (int k = 0; k < na && rc == RULES_ODDS_OK; k++) {
            struct rules_attack_eval ev;
            rules_move_aoo_evaluate(&q, who[k], fx[k], fy[k], r->mover.c.facing, allies, &ev);
            rc = move_odds_of_aoo(r, who[k], &ev, b, &each[k]);
            if (rc == RULES_ODDS_OK)
                hits[made++] = each[k].damage;
        }
        struct rules_dist taken = {0, 0, NULL};
        if (rc == RULES_ODDS_OK)
            rc = rules_dist_gauntlet(hits, made, r->mover_hp, b, &taken);
        if (rc == RULES_ODDS_OK) {
            expected[i] = rules_dist_mean(&taken);
            drop[i] = r->mover_hp > 0 ? rules_dist_at_least(&taken, r->mover_hp) : 0.0;
        }
        rules_dist_free(&taken);
        for (int k = 0; k < made; k++)
            rules_dist_free(&each[k].damage);
    }
    free(allies);
    free(who);
    free(fx);
    free(fy);
    free(each);
    free(hits);
    return rc;
}
