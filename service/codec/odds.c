/* The odds answers' shapes (odds.h): for POST /v1/dice/odds and POST /v1/attacks/odds:
 * the exact chance of every outcome, before anyone rolls (rules/odds.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/attack/odds.h"
#include "rules/encounter/hp.h"
#include "service/codec/answer.h"
#include "service/codec/attack.h"
#include "service/codec/dice.h"
#include "service/codec/odds.h"
#include "service/codec/ruling.h"
#include "service/explain/explain.h"
#include "service/http/http.h"
#include "service/http/problem.h"
#include "service/http/request.h"
#include "service/json/errors.h"
#include "service/json/fields.h"
#include "service/json/writer.h"

/* Multiply-adds one odds request may cost, times --budget-scale: about 0.2 s. 20d6kh10 needs
 * 80,000, an attack with 5d6 sneak attack and a x2 critical a few thousand; 1000d20 about
 * 2 x 10^8; 1000d1000 (5 x 10^11) is refused. */
#define ODDS_BUDGET_WORK 200000000LL

struct rules_odds_budget svc_odds_budget(const struct svc_request *req)
{
    return svc_odds_budget_of(req->ctx != NULL ? req->ctx->config : NULL);
}

struct rules_odds_budget svc_odds_budget_of(const struct svc_config *cfg)
{
    return (struct rules_odds_budget){svc_config_budget(cfg, ODDS_BUDGET_WORK), 0};
}

void svc_odds_failure_answer(struct svc_answer *out, int rc, const struct rules_odds_budget *b)
{
    if (rc == RULES_ODDS_ERR_TOO_EXPENSIVE)
        svc_answer_too_expensive(out, "odds_work", b->limit, b->used);
    else
        svc_answer_problem(out, SVC_PROBLEM_INTERNAL, NULL);
}

/* A number to 15 significant digits. The computation is good to about 1e-13 relative
 * (rules/odds.h), so digits past the 15th would carry only its rounding, and 15 digits make
 * 1/6 read 0.166666666666667 rather than 0.16666666666666669. */
void svc_odds_write_double(struct jw *w, double v)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%.15g", v);
    jw_raw(w, buf, (size_t)n);
}

/* A probability (0..1) to 15 significant digits in svc_odds_write_double's form, without printf,
 * which cost 0.3-0.4 us a number: a distribution writes two numbers a total, and the answer's time
 * was mostly printf. Scaling by a power of ten may be an ulp off, so the 15th digit may differ
 * from printf's by one (a relative 1e-14 at most), inside the computation's own error; values
 * under 1e-280 go through printf. */
void svc_odds_write_probability(struct jw *w, double v)
{
    if (!(v > 1e-280 && v < 1.0)) {
        svc_odds_write_double(w, v);
        return;
    }
    int e = (int)floor(log10(v)); /* v = d.ddd x 10^e */
    double scaled = v * pow(10.0, 14 - e);
    unsigned long long m = (unsigned long long)llround(scaled);
    if (m >= 1000000000000000ULL) /* rounded up to the next power of ten */
        m /= 10, e++;
    else if (m < 100000000000000ULL) /* log10 rounded the other way */
        m = (unsigned long long)llround(scaled * 10.0), e--;
    char digits[16];
    for (int i = 14; i >= 0; i--, m /= 10)
        digits[i] = (char)('0' + m % 10);
    int len = 15;
    while (len > 1 && digits[len - 1] == '0')
        len--;
    char buf[40];
    int n = 0;
    if (e >= -4) { /* 0.000ddd, as %g writes it */
        buf[n++] = '0', buf[n++] = '.';
        for (int z = 0; z < -e - 1; z++)
            buf[n++] = '0';
        memcpy(buf + n, digits, (size_t)len);
        n += len;
    } else { /* d.ddde-XX */
        buf[n++] = digits[0];
        if (len > 1) {
            buf[n++] = '.';
            memcpy(buf + n, digits + 1, (size_t)len - 1);
            n += len - 1;
        }
        n += snprintf(buf + n, sizeof buf - (size_t)n, "e-%02d", -e);
    }
    jw_raw(w, buf, (size_t)n);
}

/* [{"total", "p", "at_least"}] for every total with a chance, at_least summed from the top. */
static void write_distribution(struct jw *w, const struct rules_dist *d)
{
    double *at_least = malloc((size_t)d->len * sizeof *at_least);
    double run = 0.0;
    for (int i = d->len - 1; i >= 0; i--) {
        run += d->p[i];
        if (at_least != NULL)
            at_least[i] = run < 1.0 ? run : 1.0; /* rounding can pass 1 by an ulp or two */
    }
    jw_array_begin(w);
    for (int i = 0; i < d->len; i++) {
        if (d->p[i] == 0.0)
            continue;
        jw_object_begin(w);
        JW_INT(w, "total", d->min + i);
        SVC_ODDS_P(w, "p", d->p[i]);
        SVC_ODDS_P(w, "at_least",
                   at_least != NULL ? at_least[i] : rules_dist_at_least(d, d->min + i));
        jw_object_end(w);
    }
    jw_array_end(w);
    free(at_least);
}

void svc_odds_write_summary(struct jw *w, const struct rules_dist *d)
{
    JW_INT(w, "min", d->min);
    JW_INT(w, "max", d->min + d->len - 1);
    SVC_ODDS_D(w, "mean", rules_dist_mean(d));
    SVC_ODDS_D(w, "sd", rules_dist_sd(d));
    JW_KEY(w, "distribution");
    write_distribution(w, d);
}

/* Answers 422 too-expensive or 500 for a failed odds computation. */
void svc_odds_failure(struct svc_response *res, int rc, const struct rules_odds_budget *b)
{
    if (rc == RULES_ODDS_ERR_TOO_EXPENSIVE)
        svc_problem_too_expensive(res, "odds_work", b->limit, b->used);
    else
        svc_problem(res, SVC_PROBLEM_INTERNAL, NULL, NULL);
}

/* The members of an attack-odds request beyond /resolve's: read here, then removed from a
 * shallow copy so that the shared decoder sees exactly /resolve's request. */
static json_t *take_extras(json_t *body, struct svc_odds_extras *x, struct svc_errors *e)
{
    json_t *copy = json_copy(body);
    if (copy == NULL)
        return NULL;
    json_t *list = NULL;
    if (codec_get_array(body, "", "attacks", false, SVC_ODDS_MAX_ATTACKS, &list, e)) {
        if (json_array_size(list) == 0)
            svc_errors_add(e, "/attacks", "list at least one attack bonus (e.g. [6, 1])");
        size_t i;
        json_t *item;
        json_array_foreach(list, i, item)
        {
            if (!json_is_integer(item) || json_integer_value(item) < -100 ||
                json_integer_value(item) > 100) {
                char ptr[CODEC_PTR_MAX];
                snprintf(ptr, sizeof ptr, "/attacks/%zu", i);
                svc_errors_add(e, ptr, "must be an attack bonus from -100 to 100");
            } else {
                x->attacks[x->attack_count++] = (int)json_integer_value(item);
            }
        }
    }
    json_object_del(copy, "attacks");
    json_t *def = json_object_get(body, "defender");
    if (json_is_object(def) && json_object_get(def, "hp") != NULL) {
        long long hp = 0;
        if (codec_get_int(def, "/defender", "hp", false, 1, RULES_HP_MAX, &hp, e))
            x->hp = (int)hp;
        json_t *dcopy = json_copy(def);
        json_object_del(dcopy, "hp");
        json_object_set_new(copy, "defender", dcopy);
    }
    return copy;
}

/* The rules-level input for one attack with `bonus` in place of the attacker's own. */
static struct rules_attack_odds_in odds_input(const struct svc_attack_ruling *r, int bonus)
{
    const struct rules_attack_eval *ev = &r->ev;
    return (struct rules_attack_odds_in){
        .attack_total = ev->attack_total - r->attack_bonus + bonus,
        .target_number = ev->target_number,
        .cover = ev->cover,
        .target_without_cover = ev->target_without_cover,
        .has_cover_creature = r->has_cover_creature,
        .cover_ac = r->cover_ac,
        .cover_dex_dodge = r->cover_dex_dodge,
        .cover_applies_dex_dodge = r->cover_applies_dex_dodge,
        .miss_chance = ev->miss_chance,
        .damage = r->has_damage ? &r->damage : NULL,
        .sneak_dice = ev->sneak_attack ? r->sneak_dice : 0,
        .damage_reduction = r->damage_reduction,
        /* Under the critical_hits option, as /resolve rolls it (rules/attack_roll.h): natural
         * 1 and 20, the attacker's threat range and multiplier, a confirmation roll. */
        .natural_1_and_20 = r->rules.options.critical_hits,
        .crit = r->rules.options.critical_hits
                    ? (struct rules_crit){.threat_min = r->crit_range,
                                          .multiplier = r->crit_multiplier,
                                          .confirm = true}
                    : (struct rules_crit){.threat_min = RULES_CRIT_NONE},
    };
}

/* The chances of one attack, as members of the object being written. */
static void write_chances(struct jw *w, const struct rules_attack_odds *o, bool criticals)
{
    SVC_ODDS_P(w, "hit", o->hit);
    SVC_ODDS_P(w, "concealment_miss", o->concealment_miss);
    SVC_ODDS_P(w, "lands", o->lands);
    SVC_ODDS_P(w, "cover_struck", o->cover_struck);
    SVC_ODDS_P(w, "cover_creature", o->cover_creature);
    /* null when the rules in force have no critical hits (option critical_hits off). */
    JW_KEY(w, "critical");
    if (criticals)
        svc_odds_write_probability(w, o->critical);
    else
        jw_null(w);
}

/* Given the defender's hit points: the chance the damage drops it to 0 or below, and where
 * the hp_states option is "srd", the chance it kills it (d20 3.5 SRD, Injury and Death: "Dead
 * (-10 hit points or lower)"), that is damage of hp + 10 or more. */
static void write_hp_chances(struct jw *w, const struct svc_attack_ruling *r,
                             const struct rules_dist *damage, int hp)
{
    if (hp <= 0)
        return;
    SVC_ODDS_P(w, "drop_chance", rules_dist_at_least(damage, hp));
    if (r->rules.options.hp_states == RULES_HP_STATES_SRD) {
        JW_KEY(w, "kill_chance");
        svc_odds_write_probability(w,
                                   rules_dist_at_least(damage, (int)rules_hp_damage_to_kill(hp)));
        JW_STRING(w, "kill_source", RULES_HP_SOURCE);
    }
}

static void write_damage(struct jw *w, const struct svc_attack_ruling *r,
                         const struct rules_attack_odds *o, int hp)
{
    JW_KEY(w, "damage");
    if (!r->has_damage) {
        jw_null(w);
        return;
    }
    jw_object_begin(w);
    JW_INT(w, "damage_reduction", r->damage_reduction);
    SVC_ODDS_D(w, "expected", o->expected_damage);
    SVC_ODDS_D(w, "expected_on_landing", o->expected_on_landing);
    write_hp_chances(w, r, &o->damage, hp);
    svc_odds_write_summary(w, &o->damage);
    jw_object_end(w);
}

/* "Lands 55% of the time for 7.5 average damage; 30% to drop the defender (12 hp).", the chance
 * to land bold in markdown. */
static void explain_attack(struct svc_told *t, const struct svc_attack_ruling *r,
                           const struct rules_attack_odds *o, int hp, const struct rules_dist *full,
                           int attack_count, double full_expected)
{
    int need = r->ev.target_number - r->ev.attack_total;
    svc_told_text(t, "Lands ");
    svc_told_bold(t, "%.0f%%", 100.0 * o->lands);
    svc_told_text(t, " of the time (needs %d on the d20: ", need);
    svc_told_d20(t, 0, r->ev.attack_total, 0);
    svc_told_str(t, " against ");
    svc_attack_told_ac(t, &r->ev);
    svc_told_str(t, r->ev.miss_chance ? ", then the concealment miss chance)" : ")");
    if (r->has_damage)
        svc_told_text(t, " for %.1f average damage", o->expected_on_landing);
    if (r->has_damage && hp > 0)
        svc_told_text(t, "; %.0f%% to drop the defender (%d hp)",
                      100.0 * rules_dist_at_least(&o->damage, hp), hp);
    if (full != NULL && r->has_damage) {
        svc_told_text(t, ". The full attack (%d attacks) deals %.1f on average", attack_count,
                      full_expected);
        if (hp > 0)
            svc_told_text(t, "; %.0f%% to drop it this turn",
                          100.0 * rules_dist_at_least(full, hp));
    }
    svc_told_text(t, ".");
}

/* Where the odds of a stored encounter's attack came from: written as "encounter". */
static void write_context(struct jw *w, const struct svc_odds_context *c)
{
    JW_KEY(w, "encounter");
    jw_object_begin(w);
    JW_STRING(w, "id", c->id);
    JW_INT(w, "at", c->at);
    JW_STRING(w, "actor", c->actor);
    JW_STRING(w, "target", c->target);
    JW_STRING(w, "attack", c->attack);
    JW_BOOL(w, "full_attack", c->full_attack);
    jw_object_end(w);
}

static void answer_ruled(const struct svc_request *req, bool ok, const struct svc_attack_ruling *r,
                         const struct svc_odds_extras *xp, const struct svc_odds_context *ctx,
                         struct svc_errors *e, struct svc_response *res);

void svc_attack_odds_answer(const struct svc_request *req, json_t *body,
                            const struct svc_odds_context *ctx, struct svc_errors *e,
                            struct svc_response *res)
{
    struct svc_odds_extras x = {0};
    struct svc_attack_ruling *r = malloc(sizeof *r);
    json_t *plain = take_extras(body, &x, e);
    if (r == NULL || plain == NULL)
        svc_problem(res, SVC_PROBLEM_INTERNAL, NULL, NULL);
    else
        answer_ruled(req, svc_attack_rule_request(plain, r, e), r, &x, ctx, e, res);
    free(r);
    json_decref(plain);
}

void svc_attack_odds_answer_req(const struct svc_request *req, const struct attack_request *ar,
                                const struct svc_odds_extras *x, const struct svc_odds_context *ctx,
                                struct svc_errors *e, struct svc_response *res)
{
    struct svc_attack_ruling *r = malloc(sizeof *r);
    if (r == NULL)
        svc_problem(res, SVC_PROBLEM_INTERNAL, NULL, NULL);
    else
        answer_ruled(req, svc_attack_evaluate(ar, r, e), r, x, ctx, e, res);
    free(r);
}

/* The odds answer of an attack evaluated into r (ok: without errors). */
static void answer_ruled(const struct svc_request *req, bool ok, const struct svc_attack_ruling *r,
                         const struct svc_odds_extras *xp, const struct svc_odds_context *ctx,
                         struct svc_errors *e, struct svc_response *res)
{
    const struct svc_odds_extras x = *xp;
    struct rules_attack_odds one = {0}, each[SVC_ODDS_MAX_ATTACKS];
    struct rules_dist full = {0, 0, NULL};
    int computed = 0;
    if (!ok || svc_errors_any(e)) {
        /* An encounter's odds take cover and concealment from its query. */
        static const struct svc_query_member from_query[] = {
            {"/cover", "cover"}, {"/concealment", "concealment"}, {NULL, NULL}};
        if (ctx != NULL)
            svc_errors_as_query(e, from_query);
        svc_errors_respond(e, res);
        goto out;
    }
    struct rules_odds_budget b = svc_odds_budget(req);
    struct rules_attack_odds_in in = odds_input(r, r->attack_bonus);
    int rc = rules_attack_odds(&in, &b, &one);
    /* A full attack: each attack's damage, then their sum (damage reduction applies to each). */
    double full_expected = 0.0;
    if (rc == RULES_ODDS_OK && x.attack_count > 0) {
        full = (struct rules_dist){0, 1, malloc(sizeof(double))};
        rc = full.p != NULL ? RULES_ODDS_OK : RULES_ODDS_ERR_NOMEM;
        if (rc == RULES_ODDS_OK)
            full.p[0] = 1.0;
        for (; rc == RULES_ODDS_OK && computed < x.attack_count; computed++) {
            in = odds_input(r, x.attacks[computed]);
            rc = rules_attack_odds(&in, &b, &each[computed]);
            struct rules_dist next = {0, 0, NULL};
            if (rc == RULES_ODDS_OK)
                rc = rules_dist_convolve(&full, &each[computed].damage, &b, &next);
            rules_dist_free(&full);
            full = next;
            full_expected += each[computed].expected_damage;
        }
    }
    if (rc != RULES_ODDS_OK) {
        svc_odds_failure(res, rc, &b);
        goto out;
    }
    char explain[512], markdown[540];
    struct svc_told told;
    svc_told_init(&told, explain, sizeof explain, markdown, sizeof markdown);
    explain_attack(&told, r, &one, x.hp, x.attack_count ? &full : NULL, x.attack_count,
                   full_expected);

    struct jw w;
    jw_init(&w, 4096);
    jw_object_begin(&w);
    if (ctx != NULL)
        write_context(&w, ctx);
    JW_KEY(&w, "rules");
    svc_write_rules(&w, &r->rules);
    JW_INT(&w, "attack_total", r->ev.attack_total);
    JW_INT(&w, "target_number", r->ev.target_number);
    JW_STRING(&w, "ac_kind", r->ac_kind);
    JW_KEY(&w, "modifiers");
    jw_array_begin(&w);
    for (int i = 0; i < r->ev.mod_count; i++)
        svc_write_modifier(&w, &r->ev.mods[i]);
    jw_array_end(&w);
    JW_STRING(&w, "probabilities", "double");
    write_chances(&w, &one, r->rules.options.critical_hits);
    JW_KEY(&w, "sneak_attack");
    jw_object_begin(&w);
    JW_BOOL(&w, "eligible", r->ev.sneak_attack);
    JW_INT(&w, "dice", r->ev.sneak_attack ? r->sneak_dice : 0);
    JW_KEY(&w, "chance");
    svc_odds_write_probability(&w, one.sneak_attack);
    jw_object_end(&w);
    write_damage(&w, r, &one, x.hp);
    if (x.attack_count > 0) {
        JW_KEY(&w, "full_attack");
        jw_object_begin(&w);
        JW_KEY(&w, "attacks");
        jw_array_begin(&w);
        for (int i = 0; i < x.attack_count; i++) {
            jw_object_begin(&w);
            JW_INT(&w, "attack_bonus", x.attacks[i]);
            JW_INT(&w, "attack_total", r->ev.attack_total - r->attack_bonus + x.attacks[i]);
            write_chances(&w, &each[i], r->rules.options.critical_hits);
            JW_KEY(&w, "expected_damage");
            svc_odds_write_double(&w, each[i].expected_damage);
            jw_object_end(&w);
        }
        jw_array_end(&w);
        JW_KEY(&w, "damage");
        if (!r->has_damage) {
            jw_null(&w);
        } else {
            jw_object_begin(&w);
            JW_KEY(&w, "expected");
            svc_odds_write_double(&w, full_expected);
            write_hp_chances(&w, r, &full, x.hp);
            svc_odds_write_summary(&w, &full);
            jw_object_end(&w);
        }
        jw_object_end(&w);
    }
    svc_write_told(&w, &told);
    jw_object_end(&w);
    svc_respond_writer(res, &w);
out:
    for (int i = 0; i < computed; i++)
        rules_dist_free(&each[i].damage);
    rules_dist_free(&one.damage);
    rules_dist_free(&full);
}
