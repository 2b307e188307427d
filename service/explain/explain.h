/* Answers told for a human: `explain`, one plain-text sentence a chat bot can post as it is,
 * and `explain_markdown`, the same in Discord markdown (explain.c). */
#ifndef TACTICS_SVC_EXPLAIN_EXPLAIN_H
#define TACTICS_SVC_EXPLAIN_EXPLAIN_H

#include <jansson.h>
#include <stddef.h>

/* The stateless answers told for a human (explain.c): each sets `explain` (plain text, no
 * markup) and `explain_markdown` (Discord markdown) on the answer document doc, from the
 * figures doc already holds. */
void svc_explain_roll(json_t *doc);
/* With the creatures' names when the request gives them (NULL: "the two", "the target"). */
void svc_explain_distance(json_t *doc, const char *from, const char *to);
void svc_explain_flanking(json_t *doc, const char *attacker, const char *target, const char *by);
void svc_explain_areas(json_t *doc);
void svc_explain_falling(json_t *doc);
void svc_explain_collision(json_t *doc);
void svc_explain_dropped(json_t *doc);
void svc_explain_travel(json_t *doc);
/* Writes "explain" (plain) and "explain_markdown" (the same in Discord markdown: markdown's
 * characters escaped, each figure and the verdicts Legal/Illegal in bold) as members of the
 * open object; for answers whose sentence is written as plain text. */
struct jw;
void svc_write_explains(struct jw *w, const char *plain);

/* User text (a name, a dice label, anything a request supplied) escaped for Discord markdown,
 * so that it shows as written and never formats, links or mentions: a backslash before each of
 * \ * _ ~ ` | > # [ ] ( ) < @ : and, at the start of the text or of one of its lines, before a
 * '-' or '+' or the '.' after a number (a list). Writes at most cap bytes, NUL included, never
 * cutting an escape from its character; returns the length written. */
size_t svc_md_escape(const char *text, char *out, size_t cap);

/* One answer's sentence, built once as both texts a human reads: `plain` (explain: no markup)
 * and `md` (explain_markdown: Discord markdown). Each append goes to both, so that the two
 * cannot drift; a text that does not fit its buffer is cut, never overrun, and nothing is
 * appended to it after the cut (its length is then its buffer's less one). The buffers are the
 * caller's (svc_told_init); give md room for escapes (twice plain's is enough). */
struct svc_told {
    char *plain, *md;
    size_t plain_cap, md_cap;
    size_t pl, ml; /* lengths so far */
};
void svc_told_init(struct svc_told *t, char *plain, size_t plain_cap, char *md, size_t md_cap);
/* The answer's own words, the same in both (no markup characters in them; never user text). */
void svc_told_text(struct svc_told *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The answer's own words without a format (no markup characters, never user text): the
 * string s, or n bytes of it. */
void svc_told_str(struct svc_told *t, const char *s);
void svc_told_textn(struct svc_told *t, const char *s, size_t n);
/* A number in both, without printf: v, or v with its sign always ("+9", "-2", "+0"). */
void svc_told_int(struct svc_told *t, long long v);
void svc_told_signed(struct svc_told *t, long long v);
/* A number bare in plain, bold in md. */
void svc_told_bold_int(struct svc_told *t, long long v);
/* A d20 in Avrae's form, as rules_dice_text writes a roll (avrae/d20's stringifiers): rolled
 * (d20 1..20) "1d20 (13) + 9 = 22", the die bold in md when it is a natural 1 or 20 and the
 * total bold in md (a roll's explain_markdown shows Avrae's backticked total in bold); not
 * rolled (d20 0) "1d20 + 9" (total unused). A bonus of 0 is left out ("1d20 (13) = 13"), a
 * negative one subtracted ("1d20 - 2"). */
void svc_told_d20(struct svc_told *t, int d20, int bonus, int total);
/* svc_told_d20 up to its bonus, without " = total": for a roll whose bonus is itemised or whose
 * total is told elsewhere ("1d20 (14) + 2"). */
void svc_told_d20_rolled(struct svc_told *t, int d20, int bonus);
/* To one of the two only, without a format: the string s, or the number v in decimal. */
void svc_told_plain_str(struct svc_told *t, const char *s);
void svc_told_plain_strn(struct svc_told *t, const char *s, size_t n);
void svc_told_plain_int(struct svc_told *t, long long v);
void svc_told_md_str(struct svc_told *t, const char *s);
void svc_told_md_int(struct svc_told *t, long long v);
/* To one of the two only (markup in md, its words in plain). */
void svc_told_plain(struct svc_told *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void svc_told_md(struct svc_told *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A figure: bare in plain, in bold in md. */
void svc_told_bold(struct svc_told *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* User text: as written in plain, escaped (svc_md_escape) in md. */
void svc_told_user(struct svc_told *t, const char *text);
/* Ends each text at its last whole character (a text cut a byte at a time may end inside one);
 * svc_write_told does it. */
void svc_told_seal(struct svc_told *t);
void svc_told_usern(struct svc_told *t, const char *text, size_t n);
/* The answer's own sentence, marked up as svc_write_explains does: in md each figure and the
 * verdicts Legal/Illegal bold, markdown's characters escaped. */
void svc_told_figures(struct svc_told *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Writes "explain" and "explain_markdown" as members of the open object. */
void svc_write_told(struct jw *w, const struct svc_told *t);

#endif
