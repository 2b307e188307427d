/* POST /v1/travel's shape and answer (001 Overland Travel): the request decoded into the
 * journey rules_travel takes, and the journey it ruled encoded as the answer. */
#ifndef TACTICS_SVC_CODEC_TRAVEL_H
#define TACTICS_SVC_CODEC_TRAVEL_H

#include <jansson.h>

#include "rules/world/travel.h"
#include "service/codec/dice.h"
#include "service/codec/rule_options.h"
#include "service/json/errors.h"

/* The members a travel request may have. */
extern const char *const svc_travel_members[];

/* One journey, from its request to its answer (large: allocate it). */
struct svc_travel {
    struct svc_rules rules;
    struct svc_dice_source src;
    struct rules_journey journey;
    struct rules_pace pace;
    int64_t total_units; /* the legs' length, in 1/RULES_MILE_UNITS mile */
    struct rules_travel_result result;
    struct rules_travel_day days[RULES_TRAVEL_MAX_DAYS];
};

/* Decodes body (an object whose members are svc_travel_members) into t: its rules, legs,
 * party (and from it, through rules_travel_pace, the pace), plan and dice source. Every
 * problem goes to e, by JSON pointer. */
void svc_decode_travel(json_t *body, struct svc_travel *t, struct svc_errors *e);

/* The answer for t, ruled by rules_travel (t->result): its rules, pace, legs, days, totals and
 * the rule; the dice source and the explanation are the caller's to add. */
json_t *svc_encode_travel(const struct svc_travel *t);

#endif
