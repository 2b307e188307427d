/* What the encounter's reads tell a human: the state's summary in the shape of
 * Avrae's `!init list`, and the `explain` of GET .../state, /threats, /flanking and /verify.
 * Each is made from the typed state (struct rules_encounter, svc_enc_typed_decode) or from the
 * answer the handler built, so it states what the answer carries; nothing here rules.
 * Combatants are said as every encounter text says them (enc_say_named: a name as written, or
 * the id as written when there is none).
 *
 * The summary follows Avrae's `!init list` (cogs5e/initiative/combat.py get_summary and
 * combatant.py get_summary): a header "Current initiative: 16 (round 1)" (the encounter's name
 * in place of "Current initiative" when it has one) underlined with '=', then one line for each
 * place in the initiative order, "# " before the one whose turn it is, else two spaces:
 * "16: Kroh <20/20 HP> (dying, prone [ends round 3])". The markdown is that text in a ```md
 * code block, as Avrae posts it; the plain text is the same lines without the fences. Decisions
 * where the issue is silent:
 *  - the parenthesis holds the hit point state unless up (disabled, dying, stable, dead) and the
 *    conditions ("flat-footed" for flat_footed), a timed one with the round it ends in, where
 *    Avrae shows its effects and their durations;
 *  - before initiative (or for a combatant not in the order) the initiative column reads "--";
 *  - names are shown as written, but a control character (a line break) shows as a space, so
 *    that one combatant keeps one line, and in markdown a run of backticks is broken by a
 *    zero-width space, so that a name cannot close the code block;
 *  - the markdown fits one Discord message (2,000 characters, counted as Discord counts them:
 *    UTF-16 code units); lines that do not fit are left out, and a last line says how many. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/encounter/internal.h"
#include "service/explain/explain.h"
#include "text/buf.h"
#include "text/text.h"

/* Discord's limit on a message's content. */
#define DISCORD_MESSAGE_MAX 2000
/* Room for the summary's texts: 2,000 UTF-16 units are at most 6,000 bytes of UTF-8. */
#define SUMMARY_BYTES 8192
/* The reads' sentences. */
#define TOLD_BYTES 4096

/* ---- the summary ---- */

/* User text (a name) as the summary shows it: as written, a control character as a space. */
static void put_user(struct text_buf *b, const char *s)
{
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        text_buf_put(b, c < 0x20 || c == 0x7f ? " " : p, 1);
    }
}

/* The length Discord counts: UTF-16 code units (a character past U+FFFF counts 2). */
static size_t utf16_units(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        k += (c & 0xc0) != 0x80;
        k += c >= 0xf0;
    }
    return k;
}

/* The n bytes at s for a markdown code block: a zero-width space after each backtick that a
 * backtick follows, so that no run of three closes the block. */
static void put_code(struct text_buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        text_buf_put(b, s + i, 1);
        if (s[i] == '`' && i + 1 < n && s[i + 1] == '`')
            text_buf_put(b, "\xe2\x80\x8b", 3);
    }
}

/* The end of a timed condition k of combatant c: the latest round one of its timed effects of
 * that condition ends in, or -1 when none is timed. */
static long long ends_in(const struct rules_enc_combatant *c, int k)
{
    long long end = -1;
    for (int i = 0; i < c->timed_count; i++)
        if (c->timed[i].condition == k && c->timed[i].end_round > end)
            end = c->timed[i].end_round;
    return end;
}

/* One combatant's line, without its marker: "16: Kroh <20/20 HP> (dying, prone)". */
static void summary_line(struct text_buf *b, const struct rules_enc_combatant *c, bool in_order)
{
    if (in_order && c->has_initiative)
        text_buf_printf(b, "%2d: ", c->initiative);
    else
        text_buf_printf(b, "--: ");
    put_user(b, *c->name ? c->name : c->id);
    text_buf_printf(b, " <%d/%d HP>", c->hp, c->max_hp);
    int said = 0;
    if (c->hp_state != RULES_HP_UP)
        text_buf_printf(b, "%s%s", said++ ? ", " : " (", rules_hp_state_name(c->hp_state));
    for (int k = 0; k < RULES_CONDITION_COUNT; k++) {
        if (!(c->conditions & 1u << k))
            continue;
        text_buf_printf(b, "%s", said++ ? ", " : " (");
        for (const char *p = rules_condition_names[k]; *p; p++)
            text_buf_put(b, *p == '_' ? "-" : p, 1);
        long long end = ends_in(c, k);
        if (end >= 0)
            text_buf_printf(b, " [ends round %lld]", end);
    }
    if (said)
        text_buf_printf(b, ")");
}

bool enc_summary_of(const struct rules_encounter *e, const char *title, struct enc_summary *out)
{
    struct text_buf head = {0}, lines = {0}, md = {0};
    *out = (struct enc_summary){0};
    /* The header, as Avrae's: "Current initiative: 16 (round 1)". */
    put_user(&head, title != NULL && *title ? title : "Current initiative");
    int current = e->turn >= 0 && e->turn < e->slots ? e->order[e->turn].combatant : -1;
    if (!e->started)
        text_buf_printf(&head, ": not rolled yet");
    else if (current < 0)
        text_buf_printf(&head, ": rolled, no turn yet");
    else if (e->round == 0)
        text_buf_printf(&head, ": %d (surprise round)", e->combatants[current].initiative);
    else
        text_buf_printf(&head, ": %d (round %d)", e->combatants[current].initiative, e->round);
    size_t cols = head.failed ? 0 : text_columns(head.s, head.n);
    text_buf_printf(&head, "\n");
    for (size_t i = 0; i < cols; i++)
        text_buf_printf(&head, "=");
    /* The lines: the order, then anyone not in it; as many as one message holds. */
    bool *listed = calloc((size_t)e->count + 1, sizeof *listed);
    struct text_buf head_code = {0};
    put_code(&head_code, head.s ? head.s : "", head.n);
    /* Counted as the code block shows the header (a zero-width space after a backtick counts).
     * The fences take 9 units; the header under 1,000 (a name of 200 characters, each at most
     * 2 units and 2 columns, a zero-width space after each, its words and its underline). */
    size_t head_units = utf16_units(head_code.s ? head_code.s : "", head_code.n);
    assert(head_units + 9 < DISCORD_MESSAGE_MAX);
    size_t room = DISCORD_MESSAGE_MAX - 9 - head_units;
    int shown = 0, total = 0;
    for (int pass = 0; pass < 2 && listed != NULL; pass++) {
        int n = pass == 0 ? e->slots : e->count;
        for (int i = 0; i < n; i++) {
            int c = pass == 0 ? e->order[i].combatant : i;
            if (c < 0 || c >= e->count || listed[c])
                continue;
            listed[c] = true;
            total++;
            struct text_buf line = {0};
            text_buf_printf(&line, "%s", pass == 0 && i == e->turn ? "# " : "  ");
            summary_line(&line, &e->combatants[c], pass == 0);
            struct text_buf code = {0};
            put_code(&code, line.s ? line.s : "", line.n);
            /* A last line saying how many are left out needs 40 units at most. */
            size_t need = utf16_units(code.s ? code.s : "", code.n) + 1;
            if (total == shown + 1 && !line.failed && !code.failed && need + 40 <= room) {
                room -= need;
                text_buf_printf(&lines, "\n");
                text_buf_put(&lines, line.s, line.n);
                text_buf_printf(&md, "\n");
                text_buf_put(&md, code.s, code.n);
                shown++;
            }
            free(line.s);
            free(code.s);
        }
    }
    if (shown < total) {
        text_buf_printf(&lines, "\n  ... and %d more", total - shown);
        text_buf_printf(&md, "\n  ... and %d more", total - shown);
    }
    struct text_buf plain = {0}, mark = {0};
    text_buf_put(&plain, head.s ? head.s : "", head.n);
    text_buf_put(&plain, lines.s ? lines.s : "", lines.n);
    text_buf_printf(&mark, "```md\n");
    text_buf_put(&mark, head_code.s ? head_code.s : "", head_code.n);
    text_buf_put(&mark, md.s ? md.s : "", md.n);
    text_buf_printf(&mark, "```");
    bool ok = listed != NULL && !head.failed && !head_code.failed && !lines.failed && !md.failed &&
              !plain.failed && !mark.failed;
    free(listed);
    free(head.s);
    free(head_code.s);
    free(lines.s);
    free(md.s);
    if (!ok) {
        free(plain.s);
        free(mark.s);
        return false;
    }
    out->plain = plain.s;
    out->markdown = mark.s;
    return true;
}

void enc_summary_free(struct enc_summary *s)
{
    free(s->plain);
    free(s->markdown);
    *s = (struct enc_summary){0};
}

bool enc_state_summary(json_t *state, const struct svc_config *cfg, struct enc_summary *out)
{
    struct svc_enc_typed t;
    *out = (struct enc_summary){0};
    bool ok =
        svc_enc_typed_decode(state, RULES_ENGINE_VERSION, cfg, NULL, &t) == SVC_ENC_TYPED_OK &&
        enc_summary_of(&t.e, json_string_value(json_object_get(state, "name")), out);
    svc_enc_typed_free(&t);
    return ok;
}

/* ---- the reads' sentences ---- */

struct told {
    struct svc_told t;
    char plain[TOLD_BYTES], md[2 * TOLD_BYTES];
};

static void told_init(struct told *x)
{
    svc_told_init(&x->t, x->plain, sizeof x->plain, x->md, sizeof x->md);
}

static void told_set(struct told *x, json_t *doc)
{
    svc_told_seal(&x->t);
    json_object_set_new(doc, "explain", json_string(x->plain));
    json_object_set_new(doc, "explain_markdown", json_string(x->md));
}

static void say(struct svc_told *t, const struct rules_encounter *e, int c)
{
    enc_say_named(t, e->combatants[c].name, e->combatants[c].id);
}

/* Combatant id of e as say says it (its id alone when e has none such). */
static void say_id(struct svc_told *t, const struct rules_encounter *e, const char *id)
{
    int c = rules_encounter_find(e, id);
    if (c >= 0)
        say(t, e, c);
    else
        enc_say_named(t, NULL, id);
}

/* ", " between the items of a list, " and " before its last. */
static void list_sep(struct svc_told *t, int i, int n, const char *last)
{
    if (i > 0)
        svc_told_text(t, "%s", i + 1 == n ? last : ", ");
}

/* Whether the text is long enough that the rest of a list is better left to the answer's
 * members (a sentence a chat bot posts stays within one message). */
static bool long_enough(const struct svc_told *t)
{
    return t->pl > DISCORD_MESSAGE_MAX - 400;
}

void enc_told_state(const struct rules_encounter *e, int64_t at, int64_t version, json_t *doc)
{
    struct told x;
    told_init(&x);
    struct svc_told *t = &x.t;
    if (at < version)
        svc_told_text(t, "The state after event %lld of %lld. ", (long long)at, (long long)version);
    int current = e->turn >= 0 && e->turn < e->slots ? e->order[e->turn].combatant : -1;
    if (!e->started) {
        svc_told_text(t, "Initiative is not rolled yet: %d combatant%s.", e->count,
                      e->count == 1 ? "" : "s");
    } else if (current < 0) {
        svc_told_text(t, "Initiative is rolled; no turn has begun.");
    } else {
        if (e->round == 0)
            svc_told_text(t, "Surprise round: ");
        else
            svc_told_text(t, "Round %d: ", e->round);
        say(t, e, current);
        svc_told_text(t, "'s turn.");
    }
    /* The asked reactions the encounter awaits, and where a paused move's mover waits. */
    for (int i = 0; i < e->reaction_count; i++) {
        const struct rules_enc_reaction *r = &e->reactions[i];
        if (r->policy != RULES_AOO_POLICY_ASK || r->by < 0 || r->mover < 0)
            continue;
        svc_told_text(t, " The encounter awaits ");
        say(t, e, r->by);
        svc_told_text(t, "'s reaction to ");
        say(t, e, r->mover);
        svc_told_text(t, "'s move at (%d, %d).", r->x, r->y);
    }
    if (e->paused.mover >= 0) {
        svc_told_text(t, " ");
        say(t, e, e->paused.mover);
        svc_told_text(t, " waits at (%d, %d) until the reactions to its %s are settled.",
                      e->combatants[e->paused.mover].body.body.x,
                      e->combatants[e->paused.mover].body.body.y,
                      e->paused.stands ? "standing up" : "move");
    }
    if (e->revealed)
        svc_told_text(t, " The seed is revealed: the encounter takes no more writes.");
    told_set(&x, doc);
}

void enc_told_threats(const struct rules_encounter *e, json_t *doc, const char *source)
{
    struct told x;
    told_init(&x);
    struct svc_told *t = &x.t;
    int threatening = 0, cut = 0;
    for (int a = 0; a < e->count; a++) {
        int n = 0;
        for (int b = 0; b < e->count; b++)
            n += b != a && rules_encounter_enemies(e, a, b) && rules_encounter_threatens(e, a, b);
        if (n == 0)
            continue;
        if (long_enough(t)) {
            cut++;
            continue;
        }
        svc_told_text(t, "%s", threatening++ ? "; " : "");
        say(t, e, a);
        svc_told_text(t, " threatens ");
        for (int b = 0, k = 0; b < e->count; b++) {
            if (b == a || !rules_encounter_enemies(e, a, b) || !rules_encounter_threatens(e, a, b))
                continue;
            list_sep(t, k++, n, " and ");
            say(t, e, b);
        }
        if (!rules_encounter_aoo_now(e, a))
            svc_told_text(t, " but can make no attack of opportunity now");
    }
    if (threatening == 0)
        svc_told_text(t, "Nobody threatens anybody");
    else if (cut > 0)
        svc_told_text(t, "; and %d more (see combatants)", cut);
    svc_told_text(t, " (%s).", source);
    told_set(&x, doc);
}

void enc_told_flanking(const struct rules_encounter *e, int target, json_t *doc)
{
    struct told x;
    told_init(&x);
    struct svc_told *t = &x.t;
    json_t *list = json_object_get(doc, "attackers"), *first = NULL;
    size_t n = json_array_size(list), flanked = 0;
    size_t i;
    json_t *a;
    json_array_foreach(list, i, a)
    {
        json_t *f = json_object_get(a, "flanking");
        if (json_is_true(json_object_get(f, "flanked")) && flanked++ == 0)
            first = f;
    }
    if (n == 0) {
        svc_told_text(t, "No combatant of another side that is up can attack ");
        say(t, e, target);
        svc_told_text(t, ", so it is not flanked.");
        told_set(&x, doc);
        return;
    }
    if (flanked == 0) {
        say(t, e, target);
        svc_told_text(t, " is not flanked against ");
    }
    /* "The goblin (with orc) and orc (with the goblin) flank Kroh: +2 on their melee attacks
     * (004 Flanking). The hyena does not." Each flanks with the ally its answer names. */
    for (int pass = 0; pass < 2; pass++) {
        size_t count = pass == 0 ? flanked : n - flanked, k = 0;
        if (count == 0)
            continue;
        if (pass == 1 && flanked > 0)
            svc_told_text(t, " ");
        json_array_foreach(list, i, a)
        {
            if (json_is_true(json_object_get(json_object_get(a, "flanking"), "flanked")) !=
                (pass == 0))
                continue;
            if (long_enough(t)) {
                svc_told_text(t, "%s%zu more", k ? " and " : "", count - k);
                break;
            }
            list_sep(t, (int)k++, (int)count, pass == 1 && flanked == 0 ? " or " : " and ");
            say_id(t, e, enc_str(a, "attacker"));
            if (pass == 0) {
                svc_told_text(t, " (with ");
                say_id(t, e, enc_str(a, "flanked_by"));
                svc_told_text(t, ")");
            }
        }
        if (pass == 0) {
            svc_told_text(t, " flank%s ", flanked == 1 ? "s" : "");
            say(t, e, target);
            svc_told_text(t, ": %+lld on %s melee attacks (%s).", enc_num(first, "bonus"),
                          flanked == 1 ? "its" : "their", enc_str(first, "rule"));
        } else {
            svc_told_text(t, "%s", flanked == 0 ? "." : count == 1 ? " does not." : " do not.");
        }
    }
    told_set(&x, doc);
}

void enc_told_verify(json_t *doc)
{
    struct told x;
    told_init(&x);
    struct svc_told *t = &x.t;
    long long checked = enc_num(doc, "events_checked"), reruled = enc_num(doc, "events_reruled");
    json_t *mismatches = json_object_get(doc, "mismatches");
    if (enc_flag(doc, "ok")) {
        svc_told_figures(t,
                         "The log verifies: its %lld event%s, each ruled again from the state "
                         "before it with its own dice, give the stored rulings and effects, and "
                         "fold to the stored state.",
                         checked, checked == 1 ? "" : "s");
        if (reruled == 0)
            svc_told_figures(t, " An earlier verify checked them all; no event is new since.");
        else if (reruled < checked)
            svc_told_figures(t,
                             " This request ruled the last %lld again; the %lld before them "
                             "were verified by an earlier one.",
                             reruled, checked - reruled);
    } else {
        svc_told_figures(t, "The log does not verify");
        size_t i;
        json_t *m;
        json_array_foreach(mismatches, i, m)
        {
            if (long_enough(t)) {
                svc_told_figures(t, "; and %zu more", json_array_size(mismatches) - i);
                break;
            }
            svc_told_figures(t, "%s event %lld", i ? ";" : ":", enc_num(m, "seq"));
            if (*enc_str(m, "kind"))
                svc_told_figures(t, " (%s)", enc_str(m, "kind"));
            svc_told_figures(t, ": %s", enc_str(m, "why"));
        }
        svc_told_figures(t, ".");
        if (!enc_flag(doc, "state_matches"))
            svc_told_figures(t, " Its events fold to a state other than the stored one.");
        else if (json_array_size(mismatches) == 0)
            svc_told_figures(t, " Of its %lld events, %lld were checked.", enc_num(doc, "version"),
                             checked);
    }
    told_set(&x, doc);
}
