/* The sentence a chat bot posts for one encounter event (issue #18): made from the state before
 * the event and the event's stored payload {input, result, effects} alone, so that it is the
 * same whether the write answers it or the event log is read years later, and so that old logs
 * (engine 1, the v1 fixture) get one too without storing anything. Nothing here rules: every
 * figure is read from the stored ruling or its effects.
 *
 * Two texts come out of one walk: `plain`, with no markup, for a bot to post as it is, and
 * `markdown`, Discord markdown, with totals in bold and the damage dice shown Avrae style (a die
 * that keep/drop dropped struck through, a 1 or the top face in bold: rules/dice_text.c). */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/encounter/internal.h"
#include "service/explain/explain.h"
#include "text/text.h"

/* A total: bare in plain, bold in markdown. */
static void total(struct svc_told *t, long long v)
{
    svc_told_bold_int(t, v);
}

/* Whether the text so far is empty or ends a sentence: what is written next opens one. The
 * sentences' own words are written capitalised; a name that opens one is capitalised as it is
 * written (enc_say_named). */
static bool sentence_start(const struct svc_told *t)
{
    return t->pl == 0 || (t->pl >= 2 && t->plain[t->pl - 2] == '.' && t->plain[t->pl - 1] == ' ');
}

/* A combatant as the sentences call it (issues 18 and 31): its name as written, its first letter
 * capitalised when it opens a sentence ("The gnoll hits", "Round 1: the gnoll's turn"); or, when
 * it has none, its id as written, everywhere the same and never capitalised ("kroh", which a
 * request names it by), in markdown as code (`kroh`). An id is A-Za-z0-9_- (enc_check_combatant),
 * so nothing in it needs escaping in code. */
void enc_say_named(struct svc_told *t, const char *name, const char *id)
{
    if (name == NULL || *name == '\0') {
        svc_told_plain_str(t, id);
        svc_told_md_str(t, "`");
        svc_told_md_str(t, id);
        svc_told_md_str(t, "`");
        return;
    }
    size_t n = strlen(name);
    char *cap = sentence_start(t) ? malloc(n + 1) : NULL;
    if (cap == NULL) {
        svc_told_user(t, name);
        return;
    }
    memcpy(cap, name, n + 1);
    text_upcase_first(cap, n);
    svc_told_user(t, cap);
    free(cap);
}

/* Combatant id of state, as enc_say_named says it. */
static void say_who(struct svc_told *t, json_t *state, const char *id)
{
    json_t *c = enc_find(state, id, NULL);
    enc_say_named(t, c != NULL ? json_string_value(json_object_get(c, "name")) : NULL, id);
}

/* The combatant's hit points and state after the event, from the event's effects (the last
 * set of "hp" on it), or from the state before when the event did not change them. */
static bool hp_after(json_t *before, json_t *effects, const char *id, long long *hp,
                     const char **hp_state)
{
    bool found = false;
    json_t *c = enc_find(before, id, NULL), *v = c != NULL ? json_object_get(c, "hp") : NULL;
    if (v != NULL) {
        *hp = json_integer_value(v);
        *hp_state = enc_str(c, "hp_state");
        found = true;
    }
    size_t i;
    json_t *ef;
    json_array_foreach(effects, i, ef)
    {
        json_t *f = json_object_get(ef, "fields");
        if (strcmp(enc_str(ef, "op"), "set") == 0 && strcmp(enc_str(ef, "target"), id) == 0 &&
            (v = json_object_get(f, "hp")) != NULL) {
            *hp = json_integer_value(v);
            *hp_state = enc_str(f, "hp_state"); /* "" when absent */
            found = true;
        }
    }
    return found;
}

/* "the gnoll is at -3 hp, dying" (state "" or "up": no state said). */
static void say_at_hp(struct svc_told *t, json_t *before, const char *id, long long hp,
                      const char *state)
{
    say_who(t, before, id);
    svc_told_text(t, " is at ");
    total(t, hp);
    svc_told_str(t, " hp");
    svc_told_str(t, *state && strcmp(state, "up") != 0 ? ", " : "");
    svc_told_str(t, strcmp(state, "up") != 0 ? state : "");
}

/* lead, then "the gnoll is at -3 hp, dying"; nothing when effects is NULL (an attack inside a full
 * attack, whose hit points are told once at its end). */
static void say_hp(struct svc_told *t, json_t *before, json_t *effects, const char *id,
                   const char *lead)
{
    long long hp = 0;
    const char *state = "";
    if (effects == NULL || !hp_after(before, effects, id, &hp, &state))
        return;
    svc_told_str(t, lead);
    say_at_hp(t, before, id, hp, state);
}

/* Dice terms [from, to) of a roll, Avrae style for markdown: "1d8 (4) + 3". */
static void md_terms(struct svc_told *t, json_t *terms, size_t from, size_t to)
{
    assert(from <= to && to <= json_array_size(terms));
    for (size_t i = from; i < to; i++) {
        json_t *term = json_array_get(terms, i);
        bool minus = strcmp(enc_str(term, "sign"), "-") == 0;
        if (i > from)
            svc_told_md_str(t, minus ? " - " : " + ");
        else if (minus)
            svc_told_md_str(t, "-");
        if (strcmp(enc_str(term, "kind"), "dice") != 0) {
            svc_told_md_int(t, enc_num(term, "value"));
            continue;
        }
        long long sides = enc_num(term, "sides");
        svc_told_md_int(t, enc_num(term, "count"));
        svc_told_md_str(t, "d");
        svc_told_md_int(t, sides);
        svc_told_md_str(t, " (");
        size_t k;
        json_t *die;
        json_array_foreach(json_object_get(term, "dice"), k, die)
        {
            long long v = enc_num(die, "value");
            bool bold = v == 1 || v == sides, struck = !enc_flag(die, "kept");
            svc_told_md_str(t, k ? ", " : "");
            svc_told_md_str(t, struck ? "~~" : "");
            svc_told_md_str(t, bold ? "**" : "");
            svc_told_md_int(t, v);
            svc_told_md_str(t, bold ? "**" : "");
            svc_told_md_str(t, struck ? "~~" : "");
        }
        svc_told_md_str(t, ")");
    }
}

/* The sum of terms [from, to). */
static long long terms_total(json_t *terms, size_t from, size_t to)
{
    assert(from <= to && to <= json_array_size(terms));
    long long s = 0;
    for (size_t i = from; i < to; i++) {
        s += enc_num(json_array_get(terms, i), "total"); /* signed: a subtracted term's is < 0 */
    }
    return s;
}

/* The members of an attack ruling the sentence reads, taken in one walk (enc_members). */
enum {
    R_HIT,
    R_STRUCK,
    R_CRITICAL,
    R_CRITICAL_HIT,
    R_CONCEALMENT,
    R_DAMAGE,
    R_STRAIN,
    R_ATTACK_TOTAL,
    R_D20,
    R_MODIFIERS,
    R_ROLL_TOTAL,
    R_TARGET_NUMBER,
    R_AC_KIND,
    R_SNEAK_ATTACK,
    R_COUNT
};
/* The attack ruling's members the sentence reads. At a write, an attack's result holds as values
 * only the members attacks.c's attack_keep names (and strain, added after), so a member read here
 * must be named there too (debug builds check the sentence told from the whole text at every
 * such write: write.c, result_text_holds). */
static const char *const ruling_names[R_COUNT] = {[R_HIT] = "hit",
                                                  [R_STRUCK] = "struck",
                                                  [R_CRITICAL] = "critical",
                                                  [R_CRITICAL_HIT] = "critical_hit",
                                                  [R_CONCEALMENT] = "concealment",
                                                  [R_DAMAGE] = "damage",
                                                  [R_STRAIN] = "strain",
                                                  [R_ATTACK_TOTAL] = "attack_total",
                                                  [R_D20] = "d20",
                                                  [R_MODIFIERS] = "modifiers",
                                                  [R_ROLL_TOTAL] = "roll_total",
                                                  [R_TARGET_NUMBER] = "target_number",
                                                  [R_AC_KIND] = "ac_kind",
                                                  [R_SNEAK_ATTACK] = "sneak_attack"};

static const char *str_of(json_t *v)
{
    const char *s = json_string_value(v);
    return s ? s : "";
}

/* "12 damage (1d8+3 = 7, sneak attack 2d6 = 5)": the weapon's dice and the sneak attack's, which
 * the ruling rolled as one expression with the sneak attack dice last. */
static void say_damage(struct svc_told *t, json_t *const *r)
{
    json_t *dmg = r[R_DAMAGE];
    json_t *roll = json_object_get(dmg, "roll");
    json_t *terms = json_object_get(roll, "terms");
    size_t n = json_array_size(terms);
    json_t *sneak = r[R_SNEAK_ATTACK];
    long long sneak_dice =
        json_object_get(dmg, "sneak_attack_dice")
            ? enc_num(dmg, "sneak_attack_dice")
            : (enc_flag(sneak, "eligible") && strcmp(enc_str(dmg, "to"), "defender") == 0
                   ? enc_num(sneak, "dice")
                   : 0);
    json_t *last = json_array_get(terms, n ? n - 1 : 0);
    char suffix[32];
    snprintf(suffix, sizeof suffix, "+%lldd6", sneak_dice);
    const char *expr = enc_str(roll, "expression");
    size_t el = strlen(expr), sl = strlen(suffix);
    bool split = sneak_dice > 0 && n >= 2 && strcmp(enc_str(last, "kind"), "dice") == 0 &&
                 enc_num(last, "count") == sneak_dice && enc_num(last, "sides") == 6 && el > sl &&
                 strcmp(expr + el - sl, suffix) == 0;
    size_t weapon_terms = split ? n - 1 : n;
    long long dealt = enc_num(dmg, "dealt"), dr = enc_num(dmg, "damage_reduction");
    total(t, dealt);
    svc_told_text(t, " damage");
    if (dr > 0)
        svc_told_text(t, " after DR %lld", dr);
    if (strcmp(enc_str(dmg, "to"), "cover_creature") == 0)
        svc_told_text(t, " to the creature in the way");
    long long weapon = terms_total(terms, 0, weapon_terms);
    svc_told_plain_str(t, " (");
    svc_told_plain_strn(t, expr, split ? el - sl : el);
    svc_told_plain_str(t, " = ");
    svc_told_plain_int(t, weapon);
    svc_told_md_str(t, " (");
    md_terms(t, terms, 0, weapon_terms);
    svc_told_md_str(t, " = ");
    svc_told_md_int(t, weapon);
    if (split) {
        svc_told_plain(t, ", sneak attack %lldd6 = %lld", sneak_dice, terms_total(terms, n - 1, n));
        svc_told_md(t, ", sneak attack ");
        md_terms(t, terms, n - 1, n);
        svc_told_md(t, " = %lld", terms_total(terms, n - 1, n));
    }
    svc_told_text(t, ")");
}

/* "1d20 (13) + 9 = 22 vs AC 16 (flat-footed)", with the bonus itemised when it has more than
 * one part: "1d20 (13) + 11 (attack bonus +9, flanking the defender +2) = 24 vs AC 14"; the
 * total bold in markdown, as every d20 the service writes (one style, Avrae's). */
static void say_roll(struct svc_told *t, json_t *const *r)
{
    long long bonus = json_integer_value(r[R_ATTACK_TOTAL]), d20 = json_integer_value(r[R_D20]);
    svc_told_d20_rolled(t, (int)d20, (int)bonus);
    int parts = 0;
    size_t i;
    json_t *m;
    json_array_foreach(r[R_MODIFIERS], i, m)
    {
        if (strcmp(enc_str(m, "applies_to"), "attack") == 0 && enc_flag(m, "applied") &&
            enc_num(m, "value") != 0)
            parts++;
    }
    if (parts > 1) {
        int k = 0;
        svc_told_text(t, " (");
        json_array_foreach(r[R_MODIFIERS], i, m)
        {
            if (strcmp(enc_str(m, "applies_to"), "attack") == 0 && enc_flag(m, "applied") &&
                enc_num(m, "value") != 0) {
                svc_told_str(t, k++ ? ", " : "");
                svc_told_str(t, enc_str(m, "reason"));
                svc_told_str(t, " ");
                svc_told_signed(t, enc_num(m, "value"));
            }
        }
        svc_told_text(t, ")");
    }
    svc_told_str(t, " = ");
    total(t, json_integer_value(r[R_ROLL_TOTAL]));
    svc_told_str(t, " vs AC ");
    svc_told_int(t, json_integer_value(r[R_TARGET_NUMBER]));
    const char *kind = str_of(r[R_AC_KIND]);
    size_t kl = strlen(kind);
    if (kl > 3 && strcmp(kind + kl - 3, " AC") == 0 && strncmp(kind, "normal", 6) != 0)
        svc_told_text(t, " (%.*s)", (int)(kl - 3), kind);
    json_t *crit = r[R_CRITICAL_HIT];
    const char *natural = enc_str(crit, "natural");
    if (strcmp(natural, "hit") == 0)
        svc_told_text(t, ", a natural 20");
    else if (strcmp(natural, "miss") == 0 || (d20 == 1 && !crit))
        svc_told_text(t, ", a natural 1");
}

/* The rule strain (d20 3.5 SRD, Disabled: "If he performs any strenuous action, he takes 1 point of
 * damage after completing the act"): a disabled attacker's strain, as the ruling's `strain`
 * gives it (NULL: none). "Kroh was disabled, and an attack is a strenuous action: 1 damage; Kroh
 * is at -1 hp, dying." */
static void say_strain(struct svc_told *t, json_t *before, json_t *strain)
{
    if (!json_is_object(strain))
        return;
    const char *who = enc_str(strain, "combatant");
    svc_told_text(t, " ");
    say_who(t, before, who);
    svc_told_text(t, " was disabled, and an attack is a strenuous action: ");
    total(t, enc_num(strain, "damage"));
    svc_told_text(t, " damage; ");
    say_at_hp(t, before, who, enc_num(strain, "hp"), enc_str(strain, "hp_state"));
    svc_told_text(t, ".");
}

/* One attack ruling: "Kroh hits the gnoll: d20 ... . 12 damage (...); the gnoll is at 3 hp." */
static void say_attack(struct svc_told *t, json_t *before, json_t *effects, const char *actor,
                       const char *target, json_t *result, bool aoo)
{
    const char *who = actor, *whom = target;
    json_t *r[R_COUNT];
    enc_members(result, ruling_names, r, R_COUNT);
    bool hit = json_is_true(r[R_HIT]);
    const char *struck = str_of(r[R_STRUCK]);
    json_t *crit = r[R_CRITICAL_HIT];
    json_t *conceal = r[R_CONCEALMENT];
    say_who(t, before, who);
    svc_told_str(t, aoo ? "'s attack of opportunity " : " ");
    svc_told_str(t, !hit ? "misses " : json_is_true(r[R_CRITICAL]) ? "critically hits " : "hits ");
    say_who(t, before, whom);
    svc_told_str(t, ": ");
    say_roll(t, r);
    svc_told_text(t, ".");
    if (enc_flag(crit, "threat")) {
        json_t *c = json_object_get(crit, "confirmation");
        /* The confirmation roll adds the attack's own bonus (d20 3.5 SRD, Critical Hits). */
        svc_told_text(t, " A threat: confirmation ");
        svc_told_d20(t, (int)enc_num(c, "d20"), (int)enc_num(c, "total") - (int)enc_num(c, "d20"),
                     (int)enc_num(c, "total"));
        svc_told_text(t, ", %s.", enc_flag(crit, "confirmed") ? "confirmed" : "not confirmed");
    }
    if (!hit && enc_flag(conceal, "missed"))
        svc_told_text(t, " It would have hit, but the %lld%% concealment roll missed.",
                      enc_num(conceal, "miss_chance"));
    else if (!hit && strcmp(struck, "cover") == 0)
        svc_told_text(t, " The cover takes the blow.");
    else if (!hit && strcmp(struck, "cover_creature") == 0)
        svc_told_text(t, " The creature in the way takes the blow.");
    if (json_is_object(r[R_DAMAGE])) {
        svc_told_text(t, " ");
        say_damage(t, r);
        say_hp(t, before, effects, target, "; ");
        svc_told_text(t, ".");
    }
    say_strain(t, before, r[R_STRAIN]);
}

/* What became of the attacks of opportunity a policy or the mover decided (a ruling's
 * reactions): "The goblin's attack of opportunity hits Kroh: ... The orc lets it pass." */
static void say_reactions(struct svc_told *t, json_t *before, json_t *effects, const char *mover,
                          json_t *records)
{
    size_t i;
    json_t *r;
    json_array_foreach(records, i, r)
    {
        const char *by = enc_str(r, "by"), *outcome = enc_str(r, "outcome");
        if (strcmp(outcome, "made") == 0) {
            struct enc_explain part;
            struct svc_told p;
            svc_told_init(&p, part.plain, sizeof part.plain, part.markdown, sizeof part.markdown);
            say_attack(&p, before, effects, enc_str(r, "by"), mover, json_object_get(r, "attack"),
                       true);
            svc_told_plain(t, " %s", part.plain);
            svc_told_md(t, " %s", part.markdown);
            if (enc_flag(r, "stopped")) {
                svc_told_text(t, " ");
                say_who(t, before, mover);
                svc_told_text(t, " drops at (%lld, %lld): the move stops there.", enc_num(r, "x"),
                              enc_num(r, "y"));
            }
        } else if (strcmp(outcome, "declined") == 0 || strcmp(outcome, "awaiting") == 0 ||
                   strcmp(outcome, "waiting") == 0 || strcmp(outcome, "refused") == 0 ||
                   strcmp(outcome, "closed") == 0) {
            /* The reactor named, then what became of its reaction. */
            svc_told_text(t, strcmp(outcome, "awaiting") == 0 ? " The encounter awaits " : " ");
            say_who(t, before, by);
            long long x = enc_num(r, "x"), y = enc_num(r, "y");
            if (strcmp(outcome, "declined") == 0)
                svc_told_text(t, " lets it pass.");
            else if (strcmp(outcome, "awaiting") == 0)
                svc_told_text(t, "'s reaction at (%lld, %lld).", x, y);
            else if (strcmp(outcome, "waiting") == 0)
                svc_told_text(t,
                              "'s attack of opportunity at (%lld, %lld) waits for the reactions "
                              "before it.",
                              x, y);
            else if (strcmp(outcome, "refused") == 0)
                svc_told_text(t, " makes no attack of opportunity (%s).", enc_str(r, "why"));
            else
                svc_told_text(t,
                              "'s attack of opportunity at (%lld, %lld) never comes: the mover "
                              "did not get there.",
                              x, y);
        }
    }
}

/* The last value the effects set for member `key` of `target` ("encounter" for the encounter's
 * own), or NULL when they set none. */
static json_t *last_set(json_t *effects, const char *target, const char *key)
{
    json_t *v = NULL;
    size_t i;
    json_t *ef;
    json_array_foreach(effects, i, ef)
    {
        json_t *f = json_object_get(ef, "fields");
        if (strcmp(enc_str(ef, "op"), "set") == 0 && strcmp(enc_str(ef, "target"), target) == 0 &&
            json_object_get(f, key) != NULL)
            v = json_object_get(f, key);
    }
    return v;
}

/* Whether a reaction record in records dropped the mover (its move stopped there). */
static bool any_stopped(json_t *records)
{
    size_t i;
    json_t *r;
    json_array_foreach(records, i, r)
    {
        if (enc_flag(r, "stopped"))
            return true;
    }
    return false;
}

/* Whether mover's move is paused after the event (paused_moves: an asked reaction to it is open,
 * and the mover waits where it was leaving a square; reactions.c place_paused): the pause the
 * effects last set, else the one before. */
static bool left_paused(json_t *before, json_t *effects, const char *mover)
{
    json_t *pause = last_set(effects, "encounter", "paused_move");
    if (pause == NULL)
        pause = json_object_get(before, "paused_move");
    return json_is_object(pause) && strcmp(enc_str(pause, "mover"), mover) == 0;
}

/* Where combatant id stands after the event: where the effects last put it, else where it
 * stood before. */
static void where_after(json_t *before, json_t *effects, const char *id, long long *x, long long *y)
{
    json_t *c = enc_find(before, id, NULL);
    json_t *ex = last_set(effects, id, "x"), *ey = last_set(effects, id, "y");
    *x = ex != NULL ? json_integer_value(ex) : enc_num(c, "x");
    *y = ey != NULL ? json_integer_value(ey) : enc_num(c, "y");
}

/* A move: "Kroh moves 10 ft to (4, 5), provoking nothing."; a charge names its opponent: "The
 * goblin charges Kroh: 25 ft to (2, 4), ...". A move that does not arrive says so: an
 * attack of opportunity dropped the mover on the way (say_reactions tells where), or it paused
 * for an asked reaction: "Kroh sets out to move 20 ft to (5, 9), ...", then where the mover
 * waits (say_paused_mover). */
static void say_move(struct svc_told *t, json_t *before, json_t *in, json_t *result,
                     json_t *effects, bool step)
{
    const char *who = enc_str(in, "actor");
    json_t *end = json_object_get(result, "end");
    const char *mode = enc_str(result, "mode");
    static const struct {
        const char *mode, *verb, *base;
    } verbs[] = {{"move", "moves", "move"},
                 {"double", "double-moves", "double-move"},
                 {"double_move", "double-moves", "double-move"},
                 {"run", "runs", "run"},
                 {"charge", "charges", "charge"},
                 {"withdraw", "withdraws", "withdraw"},
                 {"crawl", "crawls", "crawl"},
                 {NULL, NULL, NULL}};
    int v = 0;
    for (int i = 0; verbs[i].mode; i++)
        if (strcmp(mode, verbs[i].mode) == 0)
            v = i;
    bool arrives =
        !any_stopped(json_object_get(result, "reactions")) && !left_paused(before, effects, who);
    say_who(t, before, who);
    if (step)
        svc_told_text(t, " %s a 5-foot step to (%lld, %lld)",
                      arrives ? "takes" : "sets out to take", enc_num(end, "x"), enc_num(end, "y"));
    else {
        svc_told_text(t, " %s%s", arrives ? "" : "sets out to ",
                      arrives ? verbs[v].verb : verbs[v].base);
        /* The charge's opponent: the one the ruling took (the mover's charge_target). */
        const char *foe =
            json_string_value(json_object_get(last_set(effects, who, "turn"), "charge_target"));
        if (strcmp(mode, "charge") == 0 && (foe != NULL || *enc_str(in, "target"))) {
            svc_told_text(t, " ");
            say_who(t, before, foe != NULL ? foe : enc_str(in, "target"));
            svc_told_text(t, ":");
        }
        svc_told_text(t, " %lld ft to (%lld, %lld)", enc_num(result, "total_ft"), enc_num(end, "x"),
                      enc_num(end, "y"));
    }
    json_t *aoos = json_object_get(result, "attacks_of_opportunity");
    if (json_array_size(aoos) == 0) {
        svc_told_text(t, ", provoking nothing.");
        return;
    }
    svc_told_text(t, ", provoking %s from ",
                  json_array_size(aoos) == 1 ? "an attack of opportunity"
                                             : "attacks of opportunity");
    size_t i;
    json_t *a;
    json_array_foreach(aoos, i, a)
    {
        svc_told_text(t, "%s", i == 0 ? "" : i + 1 == json_array_size(aoos) ? " and " : ", ");
        say_who(t, before, enc_str(a, "creature"));
    }
    svc_told_text(t, ".");
}

/* A move's mover that waits for the reactions to it (the move left paused): " Kroh waits at
 * (5, 6), the square it was leaving, until the reactions to its move are settled." */
static void say_paused_mover(struct svc_told *t, json_t *before, json_t *effects, const char *mover)
{
    if (!left_paused(before, effects, mover))
        return;
    long long x = 0, y = 0;
    where_after(before, effects, mover, &x, &y);
    svc_told_text(t, " ");
    say_who(t, before, mover);
    svc_told_text(t,
                  " waits at (%lld, %lld), the square it was leaving, until the reactions to its "
                  "move are settled.",
                  x, y);
}

/* Whether a combatant in hit point state `state` ("" when none is kept) acts, and so goes on
 * moving (rules_hp_acts: not dying, stable or dead). */
static bool acts(const char *state)
{
    int s = rules_hp_state_from(state);
    return s < 0 || rules_hp_acts((enum rules_hp_state)s);
}

/* After an event that answered or declined a reaction to mover's move (an attack of
 * opportunity, a decline, each with the attacks the engine then made, records): what became of
 * the move. The answer dropped the mover: " Kroh drops at (5, 6): the move stops there." (an
 * engine's attack that dropped it is told with its record). The move was paused (paused_moves) and
 * goes on: " Kroh's move goes on to (5, 9)." (a stand-up's: " Kroh stands up."), or, another
 * asked reaction still open, to the square where the mover waits for it. */
static void say_move_after(struct svc_told *t, json_t *before, json_t *effects, const char *mover,
                           json_t *records)
{
    json_t *pause = json_object_get(before, "paused_move");
    bool paused = json_is_object(pause) && strcmp(enc_str(pause, "mover"), mover) == 0;
    json_t *x = last_set(effects, mover, "x"), *y = last_set(effects, mover, "y");
    long long hp = 0;
    const char *state = "";
    bool dropped = acts(enc_str(enc_find(before, mover, NULL), "hp_state")) &&
                   hp_after(before, effects, mover, &hp, &state) && !acts(state);
    if (any_stopped(records))
        return;
    long long at_x = 0, at_y = 0;
    where_after(before, effects, mover, &at_x, &at_y);
    if (dropped && x != NULL && y != NULL) {
        svc_told_text(t, " ");
        say_who(t, before, mover);
        svc_told_text(t, " drops at (%lld, %lld): the move stops there.", at_x, at_y);
        return;
    }
    if (!paused || dropped)
        return;
    svc_told_text(t, " ");
    say_who(t, before, mover);
    if (left_paused(before, effects, mover) && (x != NULL || y != NULL))
        svc_told_text(t,
                      "'s move goes on to (%lld, %lld), where it waits until the reactions to it "
                      "are settled.",
                      at_x, at_y);
    else if (left_paused(before, effects, mover))
        svc_told_text(t, " waits at (%lld, %lld) until the reactions to its move are settled.",
                      at_x, at_y);
    else if (enc_flag(pause, "stands"))
        svc_told_text(t, " stands up.");
    else
        svc_told_text(t, "'s move goes on to (%lld, %lld).", at_x, at_y);
}

/* An attack (an attack of opportunity among them), the reactions to it, and, for an attack of
 * opportunity, what became of the move it answered. */
static void say_attack_action(struct svc_told *t, json_t *before, json_t *in, json_t *result,
                              json_t *effects)
{
    bool aoo = strcmp(enc_str(in, "kind"), "attack_of_opportunity") == 0;
    json_t *records = json_object_get(result, "reactions");
    say_attack(t, before, effects, enc_str(in, "actor"), enc_str(in, "target"), result, aoo);
    say_reactions(t, before, effects, enc_str(in, "target"), records);
    if (aoo)
        say_move_after(t, before, effects, enc_str(in, "target"), records);
}

/* A declined attack of opportunity: " Ash declines its attack of opportunity on Kroh at (5, 6).",
 * then the reactions still made and what became of the move. */
static void say_decline(struct svc_told *t, json_t *before, json_t *in, json_t *result,
                        json_t *effects)
{
    say_who(t, before, enc_str(in, "actor"));
    svc_told_text(t, " declines its attack of opportunity on ");
    say_who(t, before, enc_str(in, "target"));
    svc_told_text(t, " at (%lld, %lld).", enc_num(result, "x"), enc_num(result, "y"));
    say_reactions(t, before, effects, enc_str(in, "target"), json_object_get(result, "reactions"));
    say_move_after(t, before, effects, enc_str(in, "target"), json_object_get(result, "reactions"));
}

/* A full attack's opening: who attacks whom, how many attacks, and the 5-foot steps traded for
 * some of them (001 Trade Away Attacks: each step took the place of an attack). */
static void say_full_attack_plan(struct svc_told *t, json_t *before, json_t *in, json_t *result)
{
    json_t *list = json_object_get(result, "attacks");
    json_t *steps = json_object_get(result, "steps");
    say_who(t, before, enc_str(in, "actor"));
    svc_told_text(t, " makes a full attack on ");
    say_who(t, before, enc_str(in, "target"));
    svc_told_text(t, " (%zu attack%s", json_array_size(list),
                  json_array_size(list) == 1 ? "" : "s");
    size_t i;
    json_t *one;
    json_array_foreach(steps, i, one)
    {
        svc_told_text(t, "%s (%lld, %lld)",
                      i == 0 ? (json_array_size(steps) == 1 ? ", trading one for a 5-foot step to"
                                                            : ", trading some for 5-foot steps to")
                      : i + 1 == json_array_size(steps) ? " and"
                                                        : ",",
                      enc_num(one, "x"), enc_num(one, "y"));
    }
    svc_told_text(t, ").");
}

/* A full attack: its plan, each attack numbered, then the target's hit points once, after the
 * last attack. */
static void say_full_attack(struct svc_told *t, json_t *before, json_t *in, json_t *result,
                            json_t *effects)
{
    say_full_attack_plan(t, before, in, result);
    size_t i;
    json_t *one;
    json_array_foreach(json_object_get(result, "attacks"), i, one)
    {
        /* Each attack's hit points after: only the effects up to the last one matter, and
         * the last set of hp wins, so the whole list gives the end of the full attack. */
        struct enc_explain part;
        struct svc_told p;
        svc_told_init(&p, part.plain, sizeof part.plain, part.markdown, sizeof part.markdown);
        say_attack(&p, before, NULL, enc_str(in, "actor"), enc_str(in, "target"), one, false);
        svc_told_plain(t, " %zu: %s", i + 1, part.plain);
        svc_told_md(t, " %zu: %s", i + 1, part.markdown);
    }
    /* Hit points once, after the last attack: the last set of them in the effects. */
    say_hp(t, before, effects, enc_str(in, "target"), " ");
    svc_told_text(t, ".");
}

/* A forced movement: " Ash pushes Kroh 2 squares to (5, 8); Kroh falls prone.", with what stopped
 * it short when something did. */
static void say_forced(struct svc_told *t, json_t *before, json_t *in, json_t *result)
{
    const char *target = enc_str(in, "target");
    json_t *end = json_object_get(result, "end");
    say_who(t, before, enc_str(in, "actor"));
    svc_told_text(t, " %s ",
                  strcmp(enc_str(result, "kind"), "pull") == 0    ? "pulls"
                  : strcmp(enc_str(result, "kind"), "slide") == 0 ? "slides"
                                                                  : "pushes");
    say_who(t, before, target);
    svc_told_text(t, " %lld square%s to (%lld, %lld)", enc_num(result, "moved"),
                  enc_num(result, "moved") == 1 ? "" : "s", enc_num(end, "x"), enc_num(end, "y"));
    if (*enc_str(result, "stop"))
        svc_told_text(t, " (stopped: %s)", enc_str(result, "stop"));
    if (enc_flag(result, "prone")) {
        svc_told_text(t, "; ");
        say_who(t, before, target);
        svc_told_text(t, " falls prone");
    }
    svc_told_text(t, ".");
}

/* A fall: its height, its damage with the dice that made it, the hit points after, and whether
 * the faller lands prone. */
static void say_fall(struct svc_told *t, json_t *before, json_t *in, json_t *result,
                     json_t *effects)
{
    const char *actor = enc_str(in, "actor");
    json_t *dice = json_object_get(result, "dice");
    say_who(t, before, actor);
    svc_told_text(t, " falls %lld ft", enc_num(result, "height_ft"));
    if (enc_flag(result, "water"))
        svc_told_text(t, " into water");
    svc_told_text(t, ": ");
    total(t, enc_num(result, "damage"));
    svc_told_text(t, " damage");
    if (json_is_object(dice)) {
        svc_told_plain(t, " (%s = %lld)", enc_str(dice, "expression"), enc_num(dice, "total"));
        svc_told_md(t, " (");
        md_terms(t, json_object_get(dice, "terms"), 0,
                 json_array_size(json_object_get(dice, "terms")));
        svc_told_md(t, " = %lld)", enc_num(dice, "total"));
    }
    say_hp(t, before, effects, actor, "; ");
    if (json_array_size(json_object_get(result, "conditions")) > 0) {
        svc_told_text(t, "; ");
        say_who(t, before, actor);
        svc_told_text(t, " lands prone");
    }
    svc_told_text(t, ".");
}

/* A condition put on: " Kroh is stunned for 2 rounds." */
static void say_condition(struct svc_told *t, json_t *before, json_t *result)
{
    say_who(t, before, enc_str(result, "target"));
    svc_told_text(t, " is %s", enc_str(result, "condition"));
    if (enc_num(result, "rounds") > 0)
        svc_told_text(t, " for %lld round%s", enc_num(result, "rounds"),
                      enc_num(result, "rounds") == 1 ? "" : "s");
    svc_told_text(t, ".");
}

/* A stand-up: it stood if an effect took its prone away; else its attacks of opportunity are
 * awaited, or one dropped it (stand_up_provokes). */
static void say_stand_up(struct svc_told *t, json_t *before, json_t *in, json_t *result,
                         json_t *effects)
{
    const char *actor = enc_str(in, "actor");
    bool stood = false;
    size_t k;
    json_t *ef;
    json_array_foreach(effects, k, ef)
    {
        stood |= strcmp(enc_str(ef, "target"), actor) == 0 &&
                 json_object_get(json_object_get(ef, "fields"), "conditions") != NULL;
    }
    say_who(t, before, actor);
    svc_told_text(t, stood ? " stands up." : " starts to stand up.");
    say_reactions(t, before, effects, actor, json_object_get(result, "reactions"));
}

/* An action event, told by its type. */
static void say_action(struct svc_told *t, json_t *before, json_t *in, json_t *result,
                       json_t *effects)
{
    const char *type = enc_str(in, "type"), *actor = enc_str(in, "actor");
    if (strcmp(type, "attack") == 0)
        say_attack_action(t, before, in, result, effects);
    else if (strcmp(type, "decline_reaction") == 0)
        say_decline(t, before, in, result, effects);
    else if (strcmp(type, "full_attack") == 0)
        say_full_attack(t, before, in, result, effects);
    else if (strcmp(type, "move") == 0 || strcmp(type, "five_foot_step") == 0) {
        say_move(t, before, in, result, effects, strcmp(type, "five_foot_step") == 0);
        say_reactions(t, before, effects, actor, json_object_get(result, "reactions"));
        say_paused_mover(t, before, effects, actor);
    } else if (strcmp(type, "facing") == 0) {
        say_who(t, before, actor);
        svc_told_text(t, " turns to facing %lld.", enc_num(result, "facing"));
    } else if (strcmp(type, "forced") == 0)
        say_forced(t, before, in, result);
    else if (strcmp(type, "fall") == 0)
        say_fall(t, before, in, result, effects);
    else if (strcmp(type, "condition") == 0)
        say_condition(t, before, result);
    else if (strcmp(type, "stand_up") == 0)
        say_stand_up(t, before, in, result, effects);
    else {
        say_who(t, before, actor);
        svc_told_text(t, " acts (%s).", type);
    }
}

static void say_initiative(struct svc_told *t, json_t *before, json_t *result)
{
    svc_told_text(t, "Initiative: ");
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(result, "rolls"), i, r)
    {
        long long m = enc_num(r, "modifier");
        svc_told_text(t, "%s", i ? ", " : "");
        say_who(t, before, enc_str(r, "id"));
        svc_told_text(t, " ");
        total(t, enc_num(r, "total"));
        svc_told_text(t, " (");
        svc_told_d20_rolled(t, (int)enc_num(r, "d20"), (int)m);
        svc_told_text(t, ")");
    }
    json_t *order = json_object_get(result, "order");
    if (json_array_size(order) > 0) {
        svc_told_text(t, ". ");
        say_who(t, before, json_string_value(json_array_get(order, 0)));
        svc_told_text(t, " goes first");
    }
    svc_told_text(t, enc_flag(result, "surprise") ? "; a surprise round begins." : ".");
}

static void say_next_turn(struct svc_told *t, json_t *before, json_t *result)
{
    long long round = enc_num(result, "round");
    if (round == 0)
        svc_told_text(t, "Surprise round: ");
    else
        svc_told_text(t, "Round %lld: ", round);
    say_who(t, before, enc_str(result, "turn_of"));
    svc_told_text(t, "'s turn.");
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(result, "skipped"), i, s)
    {
        svc_told_text(t, " ");
        say_who(t, before, enc_str(s, "id"));
        svc_told_text(t, " is skipped (%s)", enc_str(s, "hp_state"));
        json_t *d = json_object_get(s, "dying");
        if (json_is_object(d) && json_is_true(json_object_get(d, "stable")))
            svc_told_text(t, ": d%% %lld, it becomes stable at %lld hp.", enc_num(d, "d100"),
                          enc_num(d, "hp"));
        else if (json_is_object(d))
            svc_told_text(t, ": d%% %lld, not stable, so it loses 1 hit point and is at %lld hp%s.",
                          enc_num(d, "d100"), enc_num(d, "hp"),
                          strcmp(enc_str(d, "hp_state"), "dead") == 0 ? ", dead" : "");
        else
            svc_told_text(t, ".");
    }
    json_array_foreach(json_object_get(result, "ended"), i, s)
    {
        svc_told_text(t, " ");
        say_who(t, before, enc_str(s, "id"));
        svc_told_text(t, " is no longer %s.", enc_str(s, "condition"));
    }
}

static void say_hp_event(struct svc_told *t, json_t *before, json_t *in, json_t *result,
                         json_t *effects)
{
    const char *target = enc_str(result, "target");
    long long from = enc_num(result, "hp_before"), to = enc_num(result, "hp");
    const char *who = target;
    say_who(t, before, who);
    if (json_object_get(in, "set") != NULL)
        svc_told_text(t, "'s hit points are set to %lld", to);
    else if (to < from)
        svc_told_text(t, " takes %lld damage", from - to);
    else
        svc_told_text(t, " heals %lld hp%s", to - from,
                      enc_flag(result, "capped_at_max") ? " (up to max_hp)" : "");
    if (*enc_str(result, "reason")) {
        svc_told_text(t, " (");
        svc_told_user(t, enc_str(result, "reason"));
        svc_told_text(t, ")");
    }
    say_hp(t, before, effects, target, "; ");
    svc_told_text(t, ".");
}

static void say_created(struct svc_told *t, json_t *in, json_t *effects)
{
    json_t *state = json_object_get(json_array_get(effects, 0), "state");
    json_t *map = json_object_get(state, "map");
    const char *name = json_string_value(json_object_get(in, "name"));
    svc_told_text(t, "Encounter");
    if (name && *name) {
        svc_told_text(t, " \"");
        svc_told_user(t, name);
        svc_told_text(t, "\"");
    }
    svc_told_text(t, " created on a %lld by %lld map", enc_num(map, "width"),
                  enc_num(map, "height"));
    size_t n = json_array_size(enc_combatants(state));
    if (n > 0)
        svc_told_text(t, " with %zu combatant%s", n, n == 1 ? "" : "s");
    svc_told_text(t, ".");
}

static void say_added(struct svc_told *t, json_t *effects)
{
    json_t *c = json_object_get(json_array_get(effects, 0), "combatant");
    const char *name = enc_str(c, "name");
    long long hp = json_object_get(c, "hp") ? enc_num(c, "hp") : enc_num(c, "max_hp");
    enc_say_named(t, name, enc_str(c, "id"));
    svc_told_text(t, " joins");
    if (*enc_str(c, "side")) {
        svc_told_text(t, " the ");
        svc_told_user(t, enc_str(c, "side"));
        svc_told_text(t, " side");
    }
    svc_told_text(t, " at (%lld, %lld) with ", enc_num(c, "x"), enc_num(c, "y"));
    total(t, hp);
    svc_told_text(t, " hp.");
}

/* "Imported as a copy of encounter 125477d9...: the rolls from here on come from a new secret
 * seed (commitment 1a2b3c4d...)." A log from before commitments is told why too. */
static void say_imported(struct svc_told *t, json_t *before, json_t *result)
{
    svc_told_text(t, "Imported as a copy of encounter %s", enc_str(result, "copy_of"));
    if (!enc_flag(result, "reseeded")) {
        svc_told_text(t, "; its seed was revealed, so it rolls no more.");
        return;
    }
    if (json_object_get(before, "seed_salt") == NULL)
        svc_told_text(t, ". Its seed had no commitment and could be worked out from its rulings,"
                         " so the");
    else
        svc_told_text(t, ": the");
    svc_told_text(t, " rolls from here on come from a new secret seed of its own (commitment %s).",
                  enc_str(result, "seed_commitment"));
}

void enc_explain_event(json_t *before, const char *kind, json_t *payload, struct enc_explain *out)
{
    enc_explain_parts(before, kind, json_object_get(payload, "input"),
                      json_object_get(payload, "result"), json_object_get(payload, "effects"), out);
}

void enc_explain_parts(json_t *before, const char *kind, json_t *in, json_t *result,
                       json_t *effects, struct enc_explain *out)
{
    struct svc_told t;
    svc_told_init(&t, out->plain, sizeof out->plain, out->markdown, sizeof out->markdown);
    if (strcmp(kind, "created") == 0)
        say_created(&t, in, effects);
    else if (strcmp(kind, "combatant_added") == 0)
        say_added(&t, effects);
    else if (strcmp(kind, "combatant_updated") == 0) {
        say_who(&t, before, enc_str(in, "id"));
        svc_told_text(&t, " is updated:");
        const char *k;
        json_t *v;
        int i = 0;
        json_object_foreach(json_object_get(in, "fields"), k, v)
        {
            svc_told_text(&t, "%s %s", i++ ? "," : "", k);
        }
        svc_told_text(&t, ".");
    } else if (strcmp(kind, "combatant_removed") == 0) {
        say_who(&t, before, enc_str(in, "id"));
        svc_told_text(&t, " leaves the encounter.");
        if (json_object_get(result, "next_turn") != NULL) {
            svc_told_text(&t, " ");
            say_next_turn(&t, before, json_object_get(result, "next_turn"));
        }
    } else if (strcmp(kind, "initiative") == 0)
        say_initiative(&t, before, result);
    else if (strcmp(kind, "next_turn") == 0)
        say_next_turn(&t, before, result);
    else if (strcmp(kind, "action") == 0)
        say_action(&t, before, in, result, effects);
    else if (strcmp(kind, "hp") == 0)
        say_hp_event(&t, before, in, result, effects);
    else if (strcmp(kind, "imported") == 0)
        say_imported(&t, before, result);
    else if (strcmp(kind, "revealed") == 0)
        svc_told_text(&t,
                      "The seed is revealed: %lld. Every roll of the encounter can now be checked, "
                      "and it takes no more writes.",
                      enc_num(result, "seed"));
    else if (strcmp(kind, "undone") == 0)
        svc_told_text(&t,
                      "Event %lld (%s) is taken back: the encounter is as it was before it. Its "
                      "dice are not rolled again; what comes next rolls its own.",
                      enc_num(result, "undone"), enc_str(result, "kind"));
    else
        svc_told_text(&t, "Event %s.", kind);
    svc_told_seal(&t);
}
