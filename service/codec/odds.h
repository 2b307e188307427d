/* What the odds answers share (odds_api.c): the work budget of a request, and numbers and
 * distributions written as /v1/dice/odds writes them. */
#ifndef TACTICS_SVC_ODDS_CODEC_H
#define TACTICS_SVC_ODDS_CODEC_H

#include "rules/attack/odds.h"
#include "service/codec/answer.h"
#include "service/http/http.h"
#include "service/json/errors.h"
#include "service/json/writer.h"

/* The multiply-adds one request may cost (about 0.2 s), times --budget-scale. */
struct rules_odds_budget svc_odds_budget(const struct svc_request *req);
/* The same from the configuration (NULL: the defaults). */
struct rules_odds_budget svc_odds_budget_of(const struct svc_config *cfg);

/* A number, or a probability, to 15 significant digits. */
void svc_odds_write_double(struct jw *w, double v);
void svc_odds_write_probability(struct jw *w, double v);
/* A member of a literal key and a probability or an expectation, in one line. */
#define SVC_ODDS_P(w, literal, v) (JW_KEY(w, literal), svc_odds_write_probability((w), (v)))
#define SVC_ODDS_D(w, literal, v) (JW_KEY(w, literal), svc_odds_write_double((w), (v)))

/* min, max, mean, sd and distribution [{total, p, at_least}] as members of the open object. */
void svc_odds_write_summary(struct jw *w, const struct rules_dist *d);

/* 422 too-expensive (odds_work) or 500 for a failed computation. */
void svc_odds_failure(struct svc_response *res, int rc, const struct rules_odds_budget *b);
struct svc_answer;
void svc_odds_failure_answer(struct svc_answer *out, int rc, const struct rules_odds_budget *b);

/* A stored encounter's attack whose odds are asked for (GET /v1/encounters/{id}/odds). */
struct svc_odds_context {
    const char *id, *actor, *target, *attack;
    long long at;
    bool full_attack;
};

/* Answers /v1/attacks/odds's body (decoded, its members checked) into res: the odds, or the
 * errors in e with those the body adds. ctx, when not NULL, is written as "encounter". The
 * caller frees e and body. */
void svc_attack_odds_answer(const struct svc_request *req, json_t *body,
                            const struct svc_odds_context *ctx, struct svc_errors *e,
                            struct svc_response *res);

#endif
