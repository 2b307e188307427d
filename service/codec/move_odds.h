/* Odds for a move's attacks of opportunity (move_odds.c), private to the movement files. */
#ifndef TACTICS_SVC_MOVE_ODDS_H
#define TACTICS_SVC_MOVE_ODDS_H

#include <stddef.h>

#include "rules/attack/odds.h"
#include "service/codec/move_req.h"
#include "service/json/writer.h"

struct move_odds {
    struct rules_attack_odds *each; /* one per attack of opportunity, in the path's order */
    struct rules_dist *hits;        /* each one's damage (borrowed from each) */
    int n;
    struct rules_dist taken; /* the damage the mover takes, stopping once dropped */
};

/* The odds of one attack of opportunity by creature (ruled as ev) on r's mover. */
int move_odds_of_aoo(const struct move_req *r, int creature, const struct rules_attack_eval *ev,
                     struct rules_odds_budget *b, struct rules_attack_odds *out);

/* The odds of p's attacks of opportunity on r's mover. RULES_ODDS_OK, or a failure with m
 * empty. */
int move_odds_compute(const struct move_req *r, const struct rules_path_result *p,
                      struct rules_odds_budget *b, struct move_odds *m);
void move_odds_free(struct move_odds *m);

/* For reach's prefer "safest": each listed square's expected damage taken from the attacks of
 * opportunity on its way, and with the mover's hp the chance to be dropped on it (0 without),
 * into arrays of rules_reach_count entries. The mover's facing as given is the one it leaves
 * each square with. */
int move_odds_reach(const struct move_req *r, struct rules_reach *reach,
                    struct rules_odds_budget *b, double *expected, double *drop);

/* "odds" of attack of opportunity i, as a member of its open object. */
void move_odds_write_aoo(struct jw *w, const struct move_odds *m, int i);
/* The move's "odds", as a member of the open answer. */
void move_odds_write(struct jw *w, const struct move_req *r, const struct move_odds *m);
/* Appends the odds' sentence to an explain; returns the length written. */
size_t move_odds_explain(char *buf, size_t len, const struct move_req *r,
                         const struct move_odds *m);

#endif
