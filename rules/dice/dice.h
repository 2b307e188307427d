/* Dice: a seedable generator, dice notation, and rolls that report every die.
 *
 * Notation (case-insensitive, spaces allowed between terms and before a label):
 *   expr     := ['+'|'-'] term (('+'|'-') term)*
 *   term     := (constant | [count] 'd' sides ops [per_die]) [label]
 *   sides    := integer | '%'                       ('%' is 100)
 *   ops      := [reroll] [minmax] [explode] [keep]  (in this order, each at most once)
 *   reroll   := 'ro' sel        reroll once (Avrae, Roll20)
 *             | 'rr' sel        reroll while the die matches (Avrae), at most
 *                               RULES_DICE_MAX_REROLLS times a die
 *             | 'r' N           the same, Roll20's spelling
 *   minmax   := ['mi' N] ['ma' N]                    each die at least / at most N (Avrae)
 *   explode  := 'e' [sel] | '!' [N]  roll another die for each die that matches (default: the
 *                                    top face), up to RULES_DICE_EXPLODE_DEPTH more per die
 *   keep     := ('k' | 'kh') N | 'kl' N | ('d' | 'dl') N | 'dh' N
 *   sel      := N | '<' N | '>' N   Avrae's selectors: equal to, less than, more than N
 *   per_die  := '{' ('+'|'-') N '}'                  added to every kept die (001's "+1 per die")
 *   label    := '[' text ']'                         shown, never counted (Avrae, Roll20)
 * Examples: "1d20+5", "4d6kh3", "2d6ro<3", "8d6mi2", "3d6e6", "3d6{+2}", "3d6 [fire] + 1d4".
 *
 * Refused, with the part named: a label holding only a signed integer ("[+2]": the old per-die
 * syntax, which would otherwise silently lose its +2), Roll20's '<'/'>' after 'r' or '!' (they
 * include N, Avrae's do not), a selector that matches every face of 'rr' or an explosion (it
 * would never stop), keep/drop together with an explosion, and the notation neither supports
 * here ('ra', 'p', '!!', '!p', 'h'/'l' selectors, groups, arithmetic beyond + and -).
 *
 * Limits: at most RULES_DICE_MAX_DICE dice in all, sides 2..RULES_DICE_MAX_SIDES, constants
 * up to RULES_DICE_MAX_CONSTANT, per-die modifiers up to RULES_DICE_MAX_PER_DIE in size,
 * at most RULES_DICE_MAX_TERMS terms, and at most RULES_DICE_MAX_DRAWS dice drawn in the worst
 * case (every reroll and explosion to its cap), checked when parsing. Within these limits no
 * total can overflow an int and no roll loops or allocates without bound. */
#ifndef TACTICS_RULES_DICE_H
#define TACTICS_RULES_DICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RULES_DICE_MAX_DICE       1000
#define RULES_DICE_MAX_SIDES      1000
#define RULES_DICE_MAX_TERMS      32
#define RULES_DICE_MAX_CONSTANT   1000000
#define RULES_DICE_MAX_PER_DIE    1000
#define RULES_DICE_MAX_EXPRESSION 256
/* A reroll-while ('rr', 'r') rerolls one die at most this many times, then keeps the last. */
#define RULES_DICE_MAX_REROLLS 100
/* An explosion adds at most this many dice to one die of the count; the last may match. */
#define RULES_DICE_EXPLODE_DEPTH 20
/* Dice drawn by one expression in the worst case, rerolls and explosions included. */
#define RULES_DICE_MAX_DRAWS 4096

enum rules_dice_status {
    RULES_DICE_OK = 0,
    RULES_DICE_ERR_SYNTAX = -1,        /* not dice notation at `offset` */
    RULES_DICE_ERR_ZERO_COUNT = -2,    /* 0dM */
    RULES_DICE_ERR_SIDES = -3,         /* d0, d1, or more than RULES_DICE_MAX_SIDES */
    RULES_DICE_ERR_TOO_MANY_DICE = -4, /* more than RULES_DICE_MAX_DICE in the expression */
    RULES_DICE_ERR_TOO_LARGE = -5,     /* a number beyond its limit (would overflow) */
    RULES_DICE_ERR_KEEP = -6,          /* keep/drop count outside 1..count (drop: count-1) */
    RULES_DICE_ERR_TOO_MANY_TERMS = -7,
    RULES_DICE_ERR_TOO_LONG = -8,        /* longer than RULES_DICE_MAX_EXPRESSION */
    RULES_DICE_ERR_SUPPLIED_COUNT = -9,  /* caller-supplied results: too few or too many */
    RULES_DICE_ERR_SUPPLIED_RANGE = -10, /* a caller-supplied result is not 1..sides */
    RULES_DICE_ERR_UNSUPPORTED = -11,    /* notation we know but do not support */
    RULES_DICE_ERR_OLD_PER_DIE = -12,    /* "[+2]": a label holding only a signed integer */
    RULES_DICE_ERR_ROLL20_COMPARE = -13, /* 'r<' 'r>' '!<' '!>': Roll20's inclusive compare */
    RULES_DICE_ERR_ORDER = -14,          /* an operator out of order or repeated */
    RULES_DICE_ERR_EVERY_FACE = -15,     /* 'rr' or an explosion matching every face */
    RULES_DICE_ERR_EXPLODE_KEEP = -16,   /* keep/drop with an explosion */
    RULES_DICE_ERR_MIN_MAX = -17,        /* mi/ma outside 1..sides, or mi above ma */
    RULES_DICE_ERR_TOO_MANY_DRAWS = -18, /* more than RULES_DICE_MAX_DRAWS in the worst case */
    RULES_DICE_ERR_LABEL = -19,          /* an unclosed label, a second one, or '[' inside */
    RULES_DICE_ERR_PER_DIE = -20,        /* '{' not followed by a sign, a number and '}' */
    RULES_DICE_ERR_ADVANTAGE = -21,      /* adv/dis without a plain 1d20 to roll twice */
    RULES_DICE_ERR_COMMENT = -22,        /* a comment holding a control character */
};

/* Advantage as Avrae reads "adv" and "dis" after a roll: the expression's first 1d20 is rolled
 * twice, the higher (adv) or the lower (dis) die kept, so "1d20+5 adv" rolls as 2d20kh1+5. */
enum rules_dice_advantage {
    RULES_ADV_NONE = 0,
    RULES_ADV_ADVANTAGE,    /* "adv": 2d20kh1 */
    RULES_ADV_DISADVANTAGE, /* "dis": 2d20kl1 */
};

/* PCG32 (PCG-XSH-RR 64/32), M. E. O'Neill, pcg-random.org, as in pcg-c-basic. */
struct rules_rng {
    uint64_t state;
    uint64_t inc;
};

/* pcg32_srandom_r: initstate is the seed, initseq picks one of 2^63 streams. */
void rules_rng_seed(struct rules_rng *rng, uint64_t initstate, uint64_t initseq);
uint32_t rules_rng_next(struct rules_rng *rng);
/* pcg32_boundedrand_r: uniform in [0, bound) without modulo bias; bound >= 1. */
uint32_t rules_rng_below(struct rules_rng *rng, uint32_t bound);

/* Where die results come from: the generator, or results the caller rolled at the table. */
struct rules_dice {
    struct rules_rng rng;
    const int *supplied; /* NULL: use rng */
    size_t supplied_count;
    size_t supplied_used;
};

void rules_dice_from_seed(struct rules_dice *d, uint64_t seed);
void rules_dice_from_supplied(struct rules_dice *d, const int *results, size_t count);

/* Draws one die of `sides`. With supplied results, takes the next one and checks 1..sides. */
int rules_dice_draw(struct rules_dice *d, int sides, int *out);

enum rules_dice_keep {
    RULES_KEEP_ALL = 0,
    RULES_KEEP_HIGHEST,
    RULES_KEEP_LOWEST,
    RULES_DROP_LOWEST,
    RULES_DROP_HIGHEST,
};

enum rules_dice_reroll {
    RULES_REROLL_NONE = 0,
    RULES_REROLL_ONCE,  /* 'ro' */
    RULES_REROLL_WHILE, /* 'rr', 'r' */
};

/* Avrae's value selectors: a face equal to, less than, or more than n. */
enum rules_dice_compare {
    RULES_SELECT_EQUAL = 0,
    RULES_SELECT_BELOW,
    RULES_SELECT_ABOVE,
};

struct rules_dice_select {
    enum rules_dice_compare cmp;
    int n;
};

/* True when face v matches sel. */
bool rules_dice_selects(const struct rules_dice_select *sel, int v);

struct rules_dice_term {
    int sign;  /* +1 or -1 */
    int count; /* dice; 0 for a constant term */
    int sides; /* 0 for a constant term */
    int value; /* the constant, for a constant term */
    enum rules_dice_keep keep;
    int keep_n;
    int per_die; /* added to each kept die */
    enum rules_dice_reroll reroll;
    struct rules_dice_select reroll_on;
    int min_face, max_face; /* mi/ma: 0 when absent */
    bool explode;
    struct rules_dice_select explode_on;
    int max_draws; /* the dice this term draws in the worst case */
    /* Where the term's operators ("kh3", "ro<3e6") and its label ("[fire]", brackets
     * included) are in the parsed text; length 0 when absent. For the roll's text. */
    unsigned short ops_at, ops_len, label_at, label_len;
};

struct rules_dice_expr {
    struct rules_dice_term terms[RULES_DICE_MAX_TERMS];
    int term_count;
    int dice_count; /* all dice of all terms */
    /* Only rules_dice_parse_said sets these (0 otherwise): adv/dis, the term it doubled, and
     * where the comment is in the text (length 0: none). */
    enum rules_dice_advantage advantage;
    int advantage_term;
    unsigned short comment_at, comment_len;
};

/* Parses text. On error returns a status and sets *err_offset to the byte where it is. */
int rules_dice_parse(const char *text, struct rules_dice_expr *expr, size_t *err_offset);

/* rules_dice_parse, also giving the length of the refused part (at least 1 byte, unless at
 * the end of the text), so that a message can quote it. */
int rules_dice_parse_part(const char *text, struct rules_dice_expr *expr, size_t *err_offset,
                          size_t *err_len);

/* rules_dice_parse_part for a roll as players type it at the table (Avrae's habits): the
 * notation, then optionally the word "adv" or "dis" (any case), then optionally a comment, the
 * rest of the text (trimmed), which is echoed and never counted: "1d20+5 adv to hit",
 * "8d6 fire". The words must be set off from the notation by a space and begin with a letter,
 * so that "1d20x" and "1d20 * 2" are still refused where they stand. adv/dis turns the first
 * plain 1d20 (no keep or explosion) into 2d20kh1 or 2d20kl1 (RULES_DICE_ERR_ADVANTAGE when
 * there is none); a comment may not hold control characters (RULES_DICE_ERR_COMMENT). */
int rules_dice_parse_said(const char *text, struct rules_dice_expr *expr, size_t *err_offset,
                          size_t *err_len);

/* One die drawn. A reroll is drawn as another rules_die of the same slot, right after the
 * one it replaces; an explosion adds a slot after the term's count. Order: a term's dice of
 * the count in order, each followed by its rerolls, then the explosions round by round; this
 * is the order supplied results are taken in and the order the roll's text shows. */
struct rules_die {
    int term; /* index of its term */
    int sides;
    int value;     /* the face that counts: after mi/ma */
    int rolled;    /* the face rolled: differs from value when mi/ma moved it */
    int slot;      /* the die of its term this draw belongs to */
    bool kept;     /* false when dropped by keep/drop or replaced by a reroll */
    bool rerolled; /* replaced by the next draw of its slot */
    bool exploded; /* made its term roll another die */
};

/* A roll: every die, each term's subtotal, the total. Large (about 100 KB): callers keep it
 * off small stacks. */
struct rules_roll {
    struct rules_die dice[RULES_DICE_MAX_DRAWS];
    int dice_count;
    int term_totals[RULES_DICE_MAX_TERMS]; /* signed contribution of each term */
    int total;
};

/* Rolls expr with d. Deterministic for a given generator state or supplied list. With
 * supplied results, at least expr's dice must remain (RULES_DICE_ERR_SUPPLIED_COUNT
 * otherwise); a ruling that rolls several times takes them in order and checks with
 * rules_dice_all_used at the end that none was left over. */
int rules_dice_roll(const struct rules_dice_expr *expr, struct rules_dice *d,
                    struct rules_roll *out);

/* True unless supplied results remain unused. */
bool rules_dice_all_used(const struct rules_dice *d);

/* The roll as tabletop users know it, in Avrae's markdown (avrae/d20, MarkdownStringifier):
 * "4d6kh3 (4, 4, **6**, ~~3~~) = `14`". Each term is its notation, its dice in parentheses
 * and its label; a die's 1 and top face are bold, a dropped die and a rerolled draw are
 * struck through, a face mi/ma moved reads "1 -> 2", an exploded draw ends in '!'. `text` is
 * the string expr was parsed from. Writes at most cap bytes, NUL included (cap may be 0), and
 * returns the length the whole text needs, without its NUL, as snprintf does. */
size_t rules_dice_text(const char *text, const struct rules_dice_expr *expr,
                       const struct rules_roll *roll, char *buf, size_t cap);

/* The smallest and largest totals expr can produce. */
void rules_dice_range(const struct rules_dice_expr *expr, int *min, int *max);

/* English text for a status, for error messages. */
const char *rules_dice_strerror(int status);

#endif
