/* The attack request's ruling (attack.h): POST /v1/attacks/modifiers (the breakdown, no dice)
 * and /resolve (rolled) on rules/attack/, and their answer with every positional modifier and its
 * source. Its decoders are in attack_decode.c. */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/attack/attack.h"
#include "rules/attack/roll.h"
#include "rules/sources.h"
#include "service/codec/answer.h"
#include "service/codec/attack.h"
#include "service/codec/creature.h"
#include "service/codec/dice.h"
#include "service/codec/rule_options.h"
#include "service/codec/ruling.h"
#include "service/explain/explain.h"
#include "service/http/http.h"
#include "service/http/request.h"
#include "service/json/errors.h"
#include "service/json/fields.h"
#include "service/json/writer.h"
#include "text/decimal.h"

static const char *applies_name(enum rules_applies a)
{
    return a == RULES_APPLIES_ATTACK ? "attack" : "defense";
}

/* The kind of AC the target number is, as words: "normal AC", or "touch", "flat-footed" and
 * "shieldless" in that order before "AC" (cut to len with its NUL). Picked whole from the
 * eight, rather than put together with strncat for every attack. */
static void ac_kind(const struct rules_attack_eval *ev, char *buf, size_t len)
{
    static const char *const kinds[8] = {"normal AC",
                                         "shieldless AC",
                                         "flat-footed AC",
                                         "flat-footed shieldless AC",
                                         "touch AC",
                                         "touch shieldless AC",
                                         "touch flat-footed AC",
                                         "touch flat-footed shieldless AC"};
    assert(len > 0);
    const char *kind =
        kinds[(ev->touch ? 4 : 0) | (ev->flat_footed ? 2 : 0) | (ev->shieldless ? 1 : 0)];
    size_t n = strlen(kind);
    n = n < len ? n : len - 1;
    memcpy(buf, kind, n);
    buf[n] = '\0';
}

/* "source_title" beside a source that cites the rule documents: the titles of those it names
 * (rules_source_titles; GET /v1/rules/sources lists them). Added, not replacing: a source that
 * names no document ("attacker", "defender") gains nothing. */
static void write_source_title(struct jw *w, const char *source)
{
    char titles[256];
    if (rules_source_titles(source, titles, sizeof titles) > 0) {
        JW_STRING(w, "source_title", titles);
    }
}

/* A modifier as written (as text: not in tree mode), kept per thread for the next modifier with
 * the same applies_to, reason and source (rules/ gives a few dozen of these, and escaping them
 * and looking up the titles was half of writing an attack's answer): the whole object, put as
 * one copy when its value and applied are the same too, else its members from "applies_to" to
 * "source_title" between the value and applied written anew. Found by the texts' addresses,
 * and used only when the texts are still the same. */
#define MOD_TEXTS 32
#define MOD_WAYS  8 /* the slots a modifier may be kept in, from its hash on */
static _Thread_local struct mod_text {
    const char *reason_at, *source_at; /* NULL: empty */
    int applies;
    int value;
    bool applied;
    char reason[128], source[64]; /* the texts it was written from */
    char json[512];               /* {"value":...,"applies_to":...,"applied":...} */
    size_t len;
    size_t mid_at, mid_len; /* in json: "applies_to":...,"source_title":"..." */
} mod_texts[MOD_TEXTS];
static _Thread_local unsigned mod_victim; /* turns through the ways when all are taken */

/* The slot keeping m's texts (*texts true), else the one to keep them in. An attack lists up
 * to a dozen modifiers: with one slot for each hash, two of the seven of the bench's attack
 * shared a slot in one build and not in another (the texts' addresses move with the code),
 * and missed each other on every request. */
static struct mod_text *mod_text_slot(const struct rules_modifier *m, bool *texts)
{
    uint64_t h = ((uintptr_t)m->reason ^ ((uintptr_t)m->source << 1) ^ (unsigned)m->applies_to) *
                 0x9e3779b97f4a7c15u;
    size_t at = (size_t)(h >> 59); /* 5 bits: MOD_TEXTS slots */
    static_assert(MOD_TEXTS == 32, "the hash's bits");
    struct mod_text *free_slot = NULL;
    for (size_t i = 0; i < MOD_WAYS; i++) {
        struct mod_text *t = &mod_texts[(at + i) % MOD_TEXTS];
        if (t->reason_at == m->reason && t->source_at == m->source &&
            t->applies == (int)m->applies_to) {
            *texts = strcmp(t->reason, m->reason) == 0 && strcmp(t->source, m->source) == 0;
            return t; /* the same addresses: kept here, or to be kept here anew */
        }
        if (t->reason_at == NULL && free_slot == NULL)
            free_slot = t;
    }
    *texts = false;
    return free_slot != NULL ? free_slot : &mod_texts[(at + mod_victim++ % MOD_WAYS) % MOD_TEXTS];
}

bool svc_modifier_kept(const struct rules_modifier *m)
{
    bool texts = false;
    struct mod_text *t = mod_text_slot(m, &texts);
    return texts && t->value == m->value && t->applied == m->applied;
}

static void write_modifier_text(struct jw *w, const struct rules_modifier *m)
{
    bool texts = false;
    struct mod_text *t = jw_is_tree(w) ? NULL : mod_text_slot(m, &texts);
    if (texts && t->value == m->value && t->applied == m->applied) {
        jw_raw(w, t->json, t->len); /* the whole object, as a value */
        return;
    }
    jw_object_begin(w);
    size_t obj = w->len - 1; /* at its '{' (when not failed) */
    JW_INT(w, "value", m->value);
    size_t start = w->len; /* at the comma before "applies_to" */
    if (texts) {
        jw_raw(w, t->json + t->mid_at, t->mid_len); /* members, after the comma jw_raw places */
    } else {
        JW_STRING(w, "applies_to", applies_name(m->applies_to));
        JW_STRING(w, "reason", m->reason);
        JW_STRING(w, "source", m->source);
        write_source_title(w, m->source);
    }
    size_t mid_len = w->len - start - 1;
    JW_BOOL(w, "applied", m->applied);
    jw_object_end(w);
    if (t == NULL)
        return;
    size_t len = w->len - obj;
    bool keep =
        !w->failed && w->buf[obj] == '{' && w->buf[start] == ',' && len < sizeof t->json &&
        (texts || (strlen(m->reason) < sizeof t->reason && strlen(m->source) < sizeof t->source));
    if (!keep) {
        t->reason_at = NULL;
        return;
    }
    memcpy(t->json, w->buf + obj, len);
    t->len = len;
    t->mid_at = start + 1 - obj;
    t->mid_len = mid_len;
    t->value = m->value;
    t->applied = m->applied;
    if (!texts) {
        strcpy(t->reason, m->reason);
        strcpy(t->source, m->source);
        t->reason_at = m->reason;
        t->source_at = m->source;
        t->applies = (int)m->applies_to;
    }
}

/* In a tee writer's kept member (an encounter's attack answer) a modifier is a shared value
 * (jw_shared_begin): its text from the cache above, its value the one kept for its text (built
 * anew, with its text escaped and its titles looked up, it was 3.7k instructions a modifier). */
void svc_write_modifier(struct jw *w, const struct rules_modifier *m)
{
    struct jw_shared shared = jw_shared_begin(w);
    write_modifier_text(w, m);
    jw_shared_end(w, &shared);
}

static const char *struck_name(enum rules_struck s)
{
    static const char *const names[] = {"none", "defender", "cover", "cover_creature"};
    assert((unsigned)s < sizeof names / sizeof names[0]);
    return names[s];
}

static const char *natural_name(enum rules_natural n)
{
    return n == RULES_NATURAL_HIT ? "hit" : n == RULES_NATURAL_MISS ? "miss" : "none";
}

/* The damage expression as rolled (rules_attack_rolled.damage_expr): the weapon's damage text
 * weapon_rolls times, then the sneak attack d6s. With one weapon roll this is the request's
 * text with "+Nd6" after it, as before critical hits. */
#define DAMAGE_TEXT_MAX (RULES_CRIT_MULTIPLIER_MAX * (RULES_DICE_MAX_EXPRESSION + 1) + 16)

/* Appends n bytes of s to buf (of len bytes, used so far), cut to fit with its NUL. */
static size_t append(char *buf, size_t len, size_t used, const char *s, size_t n)
{
    size_t room = len - 1 - used;
    n = n < room ? n : room;
    memcpy(buf + used, s, n);
    buf[used + n] = '\0';
    return used + n;
}

/* Written without snprintf: it is on the path of every attack that rolls damage. */
static void damage_text(const char *damage, const struct rules_attack_rolled *o, char *buf,
                        size_t len)
{
    size_t used = 0, n = strlen(damage);
    assert(damage != NULL && len > 0 && o->weapon_rolls >= 1);
    const char *lead = damage + strspn(damage, " ");
    bool signed_text = *lead == '+' || *lead == '-';
    buf[0] = '\0';
    for (int k = 0; k < o->weapon_rolls; k++) {
        if (k > 0 && !signed_text)
            used = append(buf, len, used, "+", 1);
        used = append(buf, len, used, damage, n);
    }
    if (o->sneak_dice > 0) {
        char num[TEXT_DECIMAL_MAX];
        size_t dn;
        const char *d = text_decimal(num, o->sneak_dice, false, &dn);
        used = append(buf, len, used, "+", 1);
        used = append(buf, len, used, d, dn);
        append(buf, len, used, "d6", 2);
    }
}

/* One rule that decided the roll, as the answer's roll_rules itemise them. */
static void write_roll_rule(struct jw *w, const char *rule, const char *source)
{
    jw_object_begin(w);
    JW_STRING(w, "rule", rule);
    JW_STRING(w, "source", source);
    write_source_title(w, source);
    jw_object_end(w);
}

/* The critical_hits option's part of a rolled answer: the threat, its confirmation and every
 * rule that decided the roll with its source. Written only when the option is on, so that an
 * answer without it stays as it was. */
static void write_critical(struct jw *w, const struct attack_request *r,
                           const struct rules_attack_rolled *o)
{
    JW_BOOL(w, "critical", o->critical);
    JW_KEY(w, "critical_hit");
    struct jw_shared shared = jw_shared_begin(w); /* the same for most attacks: kept */
    jw_object_begin(w);
    JW_INT(w, "threat_range", r->crit_range);
    JW_INT(w, "multiplier", r->crit_multiplier);
    JW_STRING(w, "natural", natural_name(o->natural));
    JW_BOOL(w, "threat", o->threat);
    JW_KEY(w, "confirmation");
    if (!o->confirm_rolled) {
        jw_null(w);
    } else {
        jw_object_begin(w);
        JW_INT(w, "d20", o->confirm_d20);
        JW_INT(w, "total", o->confirm_total);
        JW_STRING(w, "natural", natural_name(o->confirm_natural));
        JW_BOOL(w, "hit", o->confirmed);
        jw_object_end(w);
    }
    JW_BOOL(w, "confirmed", o->confirmed);
    JW_STRING(w, "source", RULES_SRC_CRITICAL_HITS);
    jw_object_end(w);
    jw_shared_end(w, &shared);

    JW_KEY(w, "roll_rules");
    jw_array_begin(w);
    if (o->natural == RULES_NATURAL_HIT)
        write_roll_rule(w, "a natural 20 is always a hit", RULES_SRC_AUTOMATIC_HIT_MISS);
    else if (o->natural == RULES_NATURAL_MISS)
        write_roll_rule(w, "a natural 1 is always a miss", RULES_SRC_AUTOMATIC_HIT_MISS);
    if (o->threat) {
        char text[160];
        snprintf(text, sizeof text,
                 "a hit with a natural %d (threat range %d-20) is a threat: confirmed by a "
                 "second attack roll against the same AC",
                 o->d20, r->crit_range);
        write_roll_rule(w, text, RULES_SRC_CRITICAL_HITS);
    }
    if (o->confirm_natural != RULES_NATURAL_NONE)
        write_roll_rule(w,
                        o->confirm_natural == RULES_NATURAL_HIT
                            ? "the confirmation roll is an attack roll: its natural 20 hits"
                            : "the confirmation roll is an attack roll: its natural 1 misses",
                        RULES_SRC_AUTOMATIC_HIT_MISS);
    if (o->confirmed && !o->lands)
        write_roll_rule(w, "a confirmed threat lost to concealment deals nothing",
                        RULES_SRC_CONCEALMENT);
    if (o->critical && o->damage_rolled) {
        char text[160];
        snprintf(text, sizeof text,
                 "critical hit: the weapon's damage, bonuses included, rolled %d times and added",
                 o->weapon_rolls);
        write_roll_rule(w, text, RULES_SRC_CRITICAL_HITS);
        if (o->sneak_dice > 0)
            write_roll_rule(w, "sneak attack dice are extra damage: not multiplied",
                            RULES_SRC_CRITICAL_HITS);
        if (o->damage_reduction > 0)
            write_roll_rule(w, "damage reduction applies once, to the multiplied total",
                            "defender");
    }
    jw_array_end(w);
}

/* The cover: its degree, AC bonus, Reflex bonus (and footnote), and the target without it. */
static void write_cover(struct jw *w, const struct rules_attack_eval *ev)
{
    JW_KEY(w, "cover");
    jw_object_begin(w);
    JW_STRING(w, "degree", rules_degree_names[ev->cover]);
    JW_INT(w, "bonus", ev->cover_bonus);
    JW_INT(w, "reflex_bonus", rules_cover_reflex(ev->cover));
    const char *footnote = rules_cover_reflex_footnote(ev->cover);
    if (footnote != NULL) {
        JW_STRING(w, "reflex_footnote", footnote);
        JW_STRING(w, "reflex_footnote_source", RULES_SRC_COVER_FOOTNOTE);
    }
    JW_INT(w, "target_without_cover", ev->target_without_cover);
    jw_object_end(w);
}

/* 002: "use the one that would produce the highest miss chance. Do not add the miss chances
 * together": say which one was used and which were dropped, and, rolled, the percentile. */
static void write_concealment(struct jw *w, const struct attack_request *r,
                              const struct rules_attack_eval *ev,
                              const struct rules_attack_rolled *o)
{
    JW_KEY(w, "concealment");
    struct jw_shared shared = jw_shared_begin(w); /* the same for most attacks: kept */
    jw_object_begin(w);
    JW_INT(w, "miss_chance", ev->miss_chance);
    JW_BOOL(w, "guess_square", ev->guess_square);
    JW_STRING(w, "used", rules_degree_names[ev->concealment]);
    JW_KEY(w, "dropped");
    jw_array_begin(w);
    bool used_seen = false;
    for (int i = 0; i < r->conceal_count; i++) {
        if (r->conceal[i] == ev->concealment && !used_seen) {
            used_seen = true;
            continue;
        }
        jw_string(w, rules_degree_names[r->conceal[i]]);
    }
    jw_array_end(w);
    if (o != NULL && o->pct_rolled) {
        JW_INT(w, "roll", o->pct);
        JW_BOOL(w, "missed", o->missed);
    }
    jw_object_end(w);
    jw_shared_end(w, &shared);
}

/* Sneak attack's eligibility, why, and the dice it adds; the modifiers, the areas, flanking. */
static void write_position(struct jw *w, const struct attack_request *r,
                           const struct rules_attack_eval *ev)
{
    JW_KEY(w, "sneak_attack");
    struct jw_shared shared = jw_shared_begin(w); /* the same for most attacks: kept */
    jw_object_begin(w);
    JW_BOOL(w, "eligible", ev->sneak_attack);
    JW_STRING(w, "reason", ev->sneak_reason ? ev->sneak_reason : "");
    JW_INT(w, "dice", ev->sneak_attack ? r->a.sneak_dice : 0);
    jw_object_end(w);
    jw_shared_end(w, &shared);

    JW_KEY(w, "modifiers");
    jw_array_begin(w);
    for (int i = 0; i < ev->mod_count; i++)
        svc_write_modifier(w, &ev->mods[i]);
    jw_array_end(w);
    JW_STRING(w, "attacker_area", rules_area_name(ev->attacker_area));
    JW_STRING(w, "target_area", rules_area_name(ev->target_area));
    JW_BOOL(w, "flanked", ev->flanked);
}

/* A rolled attack's damage: null when none was rolled, else the roll, what reduction took and
 * who was dealt the rest; minimal, without the damage's dice. */
static void write_damage(struct jw *w, const struct attack_request *r,
                         const struct rules_attack_rolled *o, bool crits, bool minimal)
{
    JW_KEY(w, "damage");
    if (!o->damage_rolled) {
        jw_null(w);
        return;
    }
    /* A weapon's few dice roll the same damage again and again: its value is kept. */
    struct jw_shared shared = jw_shared_begin(w);
    jw_object_begin(w);
    if (!minimal) {
        char text[DAMAGE_TEXT_MAX];
        damage_text(r->damage, o, text, sizeof text);
        JW_KEY(w, "roll");
        svc_write_roll(w, text, &o->damage_expr, &o->damage);
    }
    JW_INT(w, "total", o->damage.total);
    if (crits && !minimal) {
        JW_INT(w, "weapon_rolls", o->weapon_rolls);
        JW_INT(w, "sneak_attack_dice", o->sneak_dice);
    }
    JW_INT(w, "damage_reduction", o->damage_reduction);
    JW_INT(w, "dealt", o->dealt);
    JW_STRING(w, "to", o->lands ? "defender" : "cover_creature");
    jw_object_end(w);
    jw_shared_end(w, &shared);
}

/* A rolled attack's d20, total and hit, what it struck, the critical hit and the damage;
 * minimal, whether it was a critical hit rather than its itemised rules. */
static void write_rolled(struct jw *w, const struct attack_request *r,
                         const struct rules_attack_rolled *o, bool minimal)
{
    bool crits = r->rules.options.critical_hits;
    JW_INT(w, "d20", o->d20);
    JW_INT(w, "roll_total", o->total);
    JW_BOOL(w, "hit", o->lands);
    JW_STRING(w, "struck", struck_name(o->struck));
    if (crits && minimal) {
        JW_BOOL(w, "critical", o->critical);
    } else if (crits) {
        write_critical(w, r, o);
    }
    write_damage(w, r, o, crits, minimal);
}

/* Writes the answer in one pass (jsonw.h): the breakdown, then, for a rolled attack, the
 * rolls and their consequences. Minimal (Prefer: return=minimal): the totals, the roll, the
 * damage dealt and the sentence, without the rules echo, the breakdown, the critical hit's
 * itemised rules or the damage's dice. */
static void write_answer(struct jw *w, const struct attack_request *r,
                         const struct rules_attack_eval *ev, const char *kind,
                         const struct rules_attack_rolled *o, const struct svc_dice_source *src,
                         const struct svc_told *told, bool minimal, const char *tag)
{
    assert(o == NULL || src != NULL);
    jw_object_begin(w);
    if (tag != NULL)
        JW_STRING(w, "type", tag);
    if (!minimal) {
        JW_KEY(w, "rules");
        svc_write_rules(w, &r->rules);
    }
    JW_INT(w, "attack_total", ev->attack_total);
    JW_INT(w, "target_number", ev->target_number);
    JW_STRING(w, "ac_kind", kind);
    if (!minimal) { /* the breakdown */
        write_cover(w, ev);
        write_concealment(w, r, ev, o);
        write_position(w, r, ev);
    }
    if (o != NULL)
        write_rolled(w, r, o, minimal);
    svc_write_told(w, told);
    if (o != NULL) {
        JW_STRING(w, "source", src->supplied ? "supplied" : "seed");
        if (!src->supplied) {
            JW_INT(w, "seed", src->seed);
        }
    }
    jw_object_end(w);
}

struct rules_attack_roll_params svc_attack_roll_params(const struct attack_request *r)
{
    return (struct rules_attack_roll_params){
        .critical_hits = r->rules.options.critical_hits,
        .crit_range = r->crit_range,
        .crit_multiplier = r->crit_multiplier,
        .sneak_dice = r->a.sneak_dice,
        .damage_reduction = r->damage_reduction,
        .cover_creature = r->has_cover_creature ? &r->cover_creature : NULL,
    };
}

void svc_attack_roll_refusal(int rc, const struct attack_request *r,
                             const struct rules_attack_rolled *o, struct svc_errors *e)
{
    bool crits = r->rules.options.critical_hits;
    char text[DAMAGE_TEXT_MAX];
    switch (rc) {
    case RULES_ATTACK_ROLL_OK:
        return;
    case RULES_ATTACK_ROLL_ERR_PARAMS: /* not reached: the decoder keeps both in bounds */
        svc_errors_add(e, "/attacker/crit_range", "or crit_multiplier is out of bounds");
        return;
    case RULES_ATTACK_ROLL_ERR_TOO_LARGE:
        svc_errors_add(e, "/attacker/damage",
                       "%s passes the dice limits (at most %d dice and %d terms in all)",
                       crits ? "rolled crit_multiplier times on a critical hit, with the sneak "
                               "attack dice,"
                             : "with the sneak attack dice",
                       RULES_DICE_MAX_DICE, RULES_DICE_MAX_TERMS);
        return;
    case RULES_ATTACK_ROLL_ERR_D20:
        svc_errors_add(e, "/results", "supply the d20 first");
        return;
    case RULES_ATTACK_ROLL_ERR_CONFIRMATION:
        svc_errors_add(e, "/results",
                       "supply the confirmation d20 after the d20: a natural %d is a threat (%s)",
                       o->d20, RULES_SRC_CRITICAL_HITS);
        return;
    case RULES_ATTACK_ROLL_ERR_PERCENTILE:
        svc_errors_add(e, "/results", "supply the miss-chance percentile after the d20%s",
                       o->confirm_rolled ? " and the confirmation d20" : "");
        return;
    case RULES_ATTACK_ROLL_ERR_DAMAGE:
        damage_text(r->damage, o, text, sizeof text);
        svc_errors_add(e, "/results",
                       "supply the damage dice after the d20%s and any "
                       "miss-chance roll (%s)",
                       o->confirm_rolled ? ", the confirmation d20" : "", text);
        return;
    default:
        svc_errors_add(e, "/results", "more results than this attack rolls");
        return;
    }
}

/* Rolls the attack through rules_attack_roll (rules/attack_roll.h, where the order of the dice
 * is). Returns false with the problem in e. */
static bool roll_attack(const struct attack_request *r, const struct rules_attack_eval *ev,
                        struct rules_dice *d, struct rules_attack_rolled *o, struct svc_errors *e)
{
    struct rules_attack_roll_params p = svc_attack_roll_params(r);
    int rc = rules_attack_roll(ev, &p, r->damage != NULL ? &r->damage_expr : NULL, d, o);
    svc_attack_roll_refusal(rc, r, o, e);
    return rc == RULES_ATTACK_ROLL_OK;
}

/* Tells a name: the request's (user text, escaped in markdown) or, without one, dflt. */
static void say_name(struct svc_told *t, const char *name, const char *dflt)
{
    if (name != NULL)
        svc_told_user(t, name);
    else
        svc_told_str(t, dflt);
}

/* The defender conditions' words in a sentence, by bit (RULES_COND_*; the request's names). */
static const char *const condition_words[] = {"sitting",     "prone",     "stunned",   "climbing",
                                              "flat-footed", "running",   "grappling", "pinned",
                                              "helpless",    "squeezing", "charging"};

void svc_attack_told_ac(struct svc_told *t, const struct rules_attack_eval *ev)
{
    if (ev->touch)
        svc_told_str(t, "touch ");
    if (ev->shieldless)
        svc_told_str(t, "shieldless ");
    svc_told_str(t, "AC ");
    svc_told_int(t, ev->target_number);
    int listed = 0;
    for (int i = 0; i < ev->mod_count; i++) {
        const struct rules_modifier *m = &ev->mods[i];
        if (m->condition == 0 || !m->applied)
            continue;
        int bit = __builtin_ctz(m->condition);
        if (bit >= (int)(sizeof condition_words / sizeof *condition_words))
            continue;
        svc_told_str(t, listed++ ? ", " : " (");
        svc_told_str(t, condition_words[bit]);
        if (m->value != 0) {
            svc_told_str(t, " ");
            svc_told_signed(t, m->value);
        }
    }
    /* Without a condition that says why (an invisible attacker), the Dexterity lost is
     * flat-footed's. */
    if (ev->flat_footed && listed == 0) {
        svc_told_str(t, " (flat-footed");
        listed++;
    }
    if (listed > 0)
        svc_told_str(t, ")");
}

/* The rolled answer's explain: the d20 against the target, what took the blow, and with the
 * critical_hits option the natural roll, the threat and its confirmation; each d20 in Avrae's
 * form (svc_told_d20: the total bold in markdown, and a natural 1 or 20), the AC with its
 * reasons (svc_attack_told_ac), the creatures' names as the request wrote them. Written
 * without printf: it is on every attack's path. */
static void explain_roll(const struct attack_request *r, const struct rules_attack_eval *ev,
                         const struct rules_attack_rolled *o, struct svc_told *t)
{
    if (r->attacker_name != NULL || r->defender_name != NULL) {
        say_name(t, r->attacker_name, "The attacker");
        svc_told_str(t, o->lands ? " hits " : " misses ");
        say_name(t, r->defender_name, "the target");
        svc_told_str(t, ": ");
    } else {
        svc_told_str(t, o->lands ? "Hit: " : "Miss: ");
    }
    svc_told_d20(t, o->d20, ev->attack_total, o->total);
    svc_told_str(t, " against ");
    svc_attack_told_ac(t, ev);
    svc_told_str(t, o->natural == RULES_NATURAL_HIT    ? "; a natural 20 always hits"
                    : o->natural == RULES_NATURAL_MISS ? "; a natural 1 always misses"
                                                       : "");
    svc_told_str(t, !o->hit && o->cover_struck ? "; the cover took the blow" : "");
    svc_told_str(t, o->hit && !o->lands ? "; lost to concealment" : "");
    svc_told_str(t, ".");
    if (o->threat) {
        svc_told_str(t, " Threat (");
        svc_told_int(t, r->crit_range);
        svc_told_str(t, "-20): confirmation ");
        svc_told_d20(t, o->confirm_d20, ev->attack_total, o->confirm_total);
        svc_told_str(t, !o->confirmed ? ", not confirmed: a normal hit."
                        : o->lands    ? ", a critical hit."
                                      : ", confirmed, but lost to concealment.");
    }
    if (o->damage_rolled) {
        svc_told_str(t, " ");
        svc_told_bold_int(t, o->dealt);
        svc_told_str(t, " damage to ");
        if (o->lands)
            say_name(t, r->defender_name, "the target");
        else
            svc_told_str(t, "the covering creature");
        svc_told_str(t, o->lands && ev->sneak_attack ? " with sneak attack" : "");
        svc_told_str(t, o->critical
                            ? " (weapon damage rolled more than once, sneak attack dice once)."
                            : ".");
    }
}

/* Shared by both operations: evaluate and (with src) roll a request decoded into r; the answer
 * (as text) or the refusal goes to out. */
static void rule_decoded(struct attack_request *r, struct svc_dice_source *src,
                         struct svc_errors *e, struct svc_answer *out);

/* Both operations: decode body (borrowed), then rule_decoded; `roll` decides whether dice are
 * rolled. */
static void rule(json_t *body, bool roll, struct svc_answer *out)
{
    static const char *const known[] = {"rules",   "attacker",       "defender",    "allies",
                                        "cover",   "cover_creature", "concealment", "seed",
                                        "results", "bonus",          NULL};
    struct svc_errors e;
    /* About 24 KB, on the worker thread's stack rather than the heap: these are per request,
     * and allocating and freeing them cost more than the ruling (seen with perf). */
    struct attack_request req_state, *r = &req_state;
    struct svc_dice_source src_state, *src = &src_state;
    /* Zeroed but for the damage's expression (2 KB: its 32 terms), which the damage's decoder
     * writes whole when the request gives a damage, and which is read only then (r->damage). */
    size_t expr_end = offsetof(struct attack_request, damage_expr) + sizeof r->damage_expr;
    memset(r, 0, offsetof(struct attack_request, damage_expr));
    memset((char *)r + expr_end, 0, sizeof *r - expr_end);
    /* The body's members, read once (fields.h): the unknown ones are found in the index too. */
    codec_index_begin(body);
    if (!svc_decode_body(body, known, &e)) {
        codec_index_end();
        goto fail;
    }
    if (roll)
        svc_decode_dice_source(body, src, &e);
    else if (codec_member(body, "seed") || codec_member(body, "results"))
        svc_errors_add(&e, codec_member(body, "seed") ? "/seed" : "/results",
                       "this operation rolls no dice; use /v1/attacks/resolve");
    bool decoded = svc_attack_decode(body, r, &e);
    codec_index_end();
    if (!decoded)
        goto fail;
    rule_decoded(r, roll ? src : NULL, &e, out);
    goto out;
fail:
    svc_answer_errors(out, &e);
out:
    svc_errors_free(&e);
    free(r->allies);
}

bool svc_attack_evaluate_refusal(int rc, struct svc_errors *e)
{
    if (rc == RULES_ATTACK_ERR_SPELL_INTO_REAR)
        svc_errors_add(e, "/defender",
                       "a spellcaster can't target anything in his rear area "
                       "with a spell (000 Spellcasting)");
    else if (rc == RULES_ATTACK_ERR_NO_SIZE_MODIFIER)
        svc_errors_add(e, "/rules/options/size_table",
                       "004's size table stops at Colossal: use size_table 001, or give the "
                       "size part and size_included");
    return rc != RULES_ATTACK_OK;
}

void svc_attack_answer_ruled(const struct attack_request *r, const struct rules_attack_eval *ev,
                             const struct rules_attack_rolled *o, const struct svc_dice_source *src,
                             struct svc_answer *out)
{
    char kind[64], explain[640], markdown[1400];
    ac_kind(ev, kind, sizeof kind);
    struct svc_told told;
    svc_told_init(&told, explain, sizeof explain, markdown, sizeof markdown);
    if (o != NULL) {
        explain_roll(r, ev, o, &told);
    } else {
        svc_told_str(&told, "Needs ");
        svc_told_bold_int(&told, ev->target_number - ev->attack_total);
        svc_told_str(&told, " on the d20: ");
        svc_told_d20(&told, 0, ev->attack_total, 0);
        svc_told_str(&told, " against ");
        svc_attack_told_ac(&told, ev);
        svc_told_str(&told, ev->miss_chance ? ", then a concealment miss chance." : ".");
    }
    bool minimal = out->prefer_minimal;
    struct jw w;
    if (out->want_doc && out->keep != NULL) { /* the text, and a value of the members kept */
        jw_init_tee(&w, minimal ? 1024 : 4096, out->keep);
        write_answer(&w, r, ev, kind, o, src, &told, minimal, out->tag);
        json_t *doc = jw_finish_tree(&w);
        size_t len = 0;
        char *text = jw_finish(&w, &len);
        if (doc == NULL || text == NULL) {
            json_decref(doc);
            free(text);
            svc_answer_problem(out, SVC_PROBLEM_INTERNAL, NULL);
        } else {
            svc_answer_text(out, text, len);
            out->doc = doc;
        }
    } else if (out->want_doc) { /* the value itself, not text the caller would parse back */
        jw_init_tree(&w);
        write_answer(&w, r, ev, kind, o, src, &told, minimal, out->tag);
        svc_answer_json(out, jw_finish_tree(&w));
    } else {
        /* An answer with its damage roll passes 2 KB: one allocation, no growth. */
        jw_init(&w, minimal ? 1024 : 4096);
        write_answer(&w, r, ev, kind, o, src, &told, minimal, out->tag);
        size_t len = 0;
        char *text = jw_finish(&w, &len);
        svc_answer_text(out, text, len);
    }
    out->minimal_applied = minimal && out->status == 200;
}

static void rule_decoded(struct attack_request *r, struct svc_dice_source *src,
                         struct svc_errors *e, struct svc_answer *out)
{
    struct rules_attack_eval ev_state, *ev = &ev_state;
    struct rules_attack_rolled rolled;
    int rc = rules_attack_evaluate(&r->rules.options, &r->a, &r->d, r->allies, r->ally_count,
                                   r->cover, r->conceal, r->conceal_count, ev);
    if (svc_attack_evaluate_refusal(rc, e)) {
        svc_answer_errors(out, e);
        return;
    }
    const struct rules_attack_rolled *o = NULL;
    if (src != NULL) {
        struct rules_dice d;
        svc_dice_source_open(src, &d);
        if (!roll_attack(r, ev, &d, &rolled, e)) {
            svc_answer_errors(out, e);
            return;
        }
        o = &rolled;
    }
    svc_attack_answer_ruled(r, ev, o, src, out);
}

void svc_rule_attack_modifiers(json_t *body, struct svc_answer *out)
{
    rule(body, false, out);
}

void svc_rule_attack(json_t *body, struct svc_answer *out)
{
    rule(body, true, out);
}

bool svc_attack_rule_request(json_t *body, struct svc_attack_ruling *out, struct svc_errors *e)
{
    struct attack_request req_state, *r = &req_state;
    memset(r, 0, sizeof *r);
    bool ok = svc_attack_decode(body, r, e) && svc_attack_evaluate(r, out, e);
    free(r->allies);
    return ok;
}

bool svc_attack_evaluate(const struct attack_request *r, struct svc_attack_ruling *out,
                         struct svc_errors *e)
{
    bool ok = !svc_errors_any(e);
    if (ok) {
        int rc = rules_attack_evaluate(&r->rules.options, &r->a, &r->d, r->allies, r->ally_count,
                                       r->cover, r->conceal, r->conceal_count, &out->ev);
        ok = !svc_attack_evaluate_refusal(rc, e);
    }
    if (ok) {
        out->rules = r->rules;
        ac_kind(&out->ev, out->ac_kind, sizeof out->ac_kind);
        out->attack_bonus = r->a.attack_bonus;
        out->sneak_dice = r->a.sneak_dice;
        out->has_damage = r->damage != NULL;
        out->damage = r->damage_expr;
        out->damage_reduction = r->damage_reduction;
        out->has_cover_creature = r->has_cover_creature;
        out->cover_ac = r->cover_creature.ac;
        out->cover_dex_dodge = r->cover_creature.dex_and_dodge;
        out->cover_applies_dex_dodge = r->cover_creature.applies_dex_and_dodge;
        out->crit_range = r->crit_range;
        out->crit_multiplier = r->crit_multiplier;
    }
    return ok;
}
