/* An attack request decoded and evaluated exactly as POST /v1/attacks/resolve does: the request
 * as structs (struct attack_request, which an encounter fills from its stored combatants), and
 * the ruling without its roll for the operations that answer about the same attack
 * (odds_api.c). */
#ifndef TACTICS_SVC_ATTACK_RULING_H
#define TACTICS_SVC_ATTACK_RULING_H

#include "rules/attack/attack.h"
#include "rules/attack/roll.h"
#include "rules/dice/dice.h"
#include "service/codec/answer.h"
#include "service/codec/dice.h"
#include "service/codec/odds.h"
#include "service/codec/rule_options.h"
#include "service/http/http.h"
#include "service/json/errors.h"

/* Everything an attack request carries, decoded. */
struct attack_request {
    struct svc_rules rules;
    struct rules_attacker a;
    struct rules_defender d;
    struct rules_creature *allies;
    int ally_count;
    enum rules_cover cover;
    enum rules_concealment conceal[8];
    int conceal_count;
    bool has_cover_creature;
    struct rules_cover_creature cover_creature;
    const char *damage; /* dice notation, or NULL */
    /* Names for the sentences (names, not ids); NULL: "the attacker"/"the target". */
    const char *attacker_name, *defender_name;
    struct rules_dice_expr damage_expr;
    int damage_reduction;
    int crit_range, crit_multiplier; /* the attacker's; used under the critical_hits option */
};

/* The members of a request body beside the attacker, defender and allies that an attack
 * declares (cover, cover_creature, concealment) into r; problems go to e. */
void svc_attack_decode_declared(json_t *body, struct attack_request *r, struct svc_errors *e);

/* Decodes the whole request into r (the rules, attacker, defender, allies, what was declared,
 * and whether facing is required; attack_decode.c); false when any error was found. Each
 * creature's members are found in one walk of it (codec_members). */
bool svc_attack_decode(json_t *body, struct attack_request *r, struct svc_errors *e);

/* The facings a request must give (attacker_facing, defender_facing: whether it gave them):
 * the defender's under a facing variant that gives it one, the attacker's under 000 Combat
 * Facing. Added to e only when e holds no error yet. */
void svc_attack_facing_required(const struct attack_request *r, bool attacker_facing,
                                bool defender_facing, struct svc_errors *e);

/* The bit of defender condition `name` in rules_defender.conditions, or 0 when it is none. */
unsigned svc_defender_condition_bit(const char *name);

struct svc_answer;
struct svc_told;

/* The AC the d20 is against, with its reasons, as the answers' sentences tell it: "AC 16",
 * "touch AC 12 (helpless)", "AC 14 (charging -2)", "AC 13 (prone -4, flat-footed)": the kind
 * (touch, shieldless) and each defender condition that applied (002 Table: Defense Modifiers,
 * 001 Squeezing, the SRD's Charge) with its modifier when not 0; "flat-footed" alone when the
 * defender lost its Dexterity bonus for no condition of its own (an invisible attacker). */
void svc_attack_told_ac(struct svc_told *t, const struct rules_attack_eval *ev);

/* What POST /v1/attacks/odds reads beside the attack: the defender's hit points (0: not given)
 * and a full attack's bonuses. */
#define SVC_ODDS_MAX_ATTACKS 10
struct svc_odds_extras {
    int hp;
    int attacks[SVC_ODDS_MAX_ATTACKS];
    int attack_count;
};

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

struct svc_request;
struct svc_response;
struct svc_odds_context;

/* svc_attack_odds_answer (svc.h) for a request already decoded into ar, with its extras x. */
void svc_attack_odds_answer_req(const struct svc_request *req, const struct attack_request *ar,
                                const struct svc_odds_extras *x, const struct svc_odds_context *ctx,
                                struct svc_errors *e, struct svc_response *res);

/* The pieces of POST /v1/attacks/resolve's ruling, for an encounter that evaluates and rolls an
 * attack itself (rules_encounter_attack): the roll's parameters of a request; the words of a
 * refused evaluation (rules_attack_evaluate's rc; false when it is OK) or roll
 * (rules_attack_roll's rc, with what was rolled o); and the answer of an attack evaluated (ev)
 * and rolled (o; NULL: the modifiers only) with dice src. */
struct rules_attack_roll_params svc_attack_roll_params(const struct attack_request *r);
bool svc_attack_evaluate_refusal(int rc, struct svc_errors *e);
void svc_attack_roll_refusal(int rc, const struct attack_request *r,
                             const struct rules_attack_rolled *o, struct svc_errors *e);
void svc_attack_answer_ruled(const struct attack_request *r, const struct rules_attack_eval *ev,
                             const struct rules_attack_rolled *o, const struct svc_dice_source *src,
                             struct svc_answer *out);

/* The same evaluation of a request already decoded into r (false at once when e holds errors). */
bool svc_attack_evaluate(const struct attack_request *r, struct svc_attack_ruling *out,
                         struct svc_errors *e);

#endif
