/* An attack request decoded and evaluated exactly as POST /v1/attacks/resolve does, without
 * rolling it: for the operations that answer about the same attack (odds_api.c). */
#ifndef TACTICS_SVC_ATTACK_RULING_H
#define TACTICS_SVC_ATTACK_RULING_H

#include "attack.h"
#include "dice.h"
#include "rules_codec.h"
#include "svc.h"

struct svc_attack_ruling {
    struct svc_rules rules;
    struct rules_attack_eval ev;
    char ac_kind[64]; /* "flat-footed AC", "normal AC", ... */
    int attack_bonus; /* the attacker's, already in ev.attack_total */
    int sneak_dice;   /* the attacker's; dealt only when ev.sneak_attack */
    bool has_damage;
    struct rules_dice_expr damage; /* the weapon's, when has_damage */
    int damage_reduction;          /* the defender's */
    bool has_cover_creature;
    int cover_ac, cover_dex_dodge;
    bool cover_applies_dex_dodge;
    int crit_range, crit_multiplier; /* the attacker's; used when rules.options.critical_hits */
};

/* Decodes body's attack members (rules, attacker, defender, allies, cover, cover_creature,
 * concealment; the caller checks which top-level members it accepts) and evaluates the
 * attack. Returns false with every problem in e. */
bool svc_attack_rule_request(json_t *body, struct svc_attack_ruling *out, struct svc_errors *e);

#endif
