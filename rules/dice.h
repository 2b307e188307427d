/* Dice: a seedable generator, dice notation, and rolls that report every die.
 *
 * Notation (case-insensitive, spaces allowed between terms):
 *   expr     := ['+'|'-'] term (('+'|'-') term)*
 *   term     := constant | [count] 'd' sides [keep] [per_die]
 *   sides    := integer | '%'                       ('%' is 100)
 *   keep     := ('k' | 'kh') N   keep the N highest
 *             | 'kl' N           keep the N lowest
 *             | ('d' | 'dl') N   drop the N lowest
 *             | 'dh' N           drop the N highest
 *   per_die  := '[' ('+'|'-') N ']'                 added to every kept die (001's "+1 per die")
 * Examples: "1d20+5", "2d6+1d4+3", "4d6kh3", "d%", "3d6[+2]", "20d6[-1]".
 * Limits: at most RULES_DICE_MAX_DICE dice in all, sides 2..RULES_DICE_MAX_SIDES, constants
 * up to RULES_DICE_MAX_CONSTANT, per-die modifiers up to RULES_DICE_MAX_PER_DIE in size,
 * at most RULES_DICE_MAX_TERMS terms. Within these limits no total can overflow an int. */
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

struct rules_dice_term {
    int sign;  /* +1 or -1 */
    int count; /* dice; 0 for a constant term */
    int sides; /* 0 for a constant term */
    int value; /* the constant, for a constant term */
    enum rules_dice_keep keep;
    int keep_n;
    int per_die; /* added to each kept die */
};

struct rules_dice_expr {
    struct rules_dice_term terms[RULES_DICE_MAX_TERMS];
    int term_count;
    int dice_count; /* all dice of all terms */
};

/* Parses text. On error returns a status and sets *err_offset to the byte where it is. */
int rules_dice_parse(const char *text, struct rules_dice_expr *expr, size_t *err_offset);

/* One rolled die. */
struct rules_die {
    int term; /* index of its term */
    int sides;
    int value; /* the face rolled */
    bool kept; /* false when dropped by keep/drop */
};

/* A roll: every die, each term's subtotal, the total. Large (about 12 KB): callers keep it
 * off small stacks. */
struct rules_roll {
    struct rules_die dice[RULES_DICE_MAX_DICE];
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

/* The smallest and largest totals expr can produce. */
void rules_dice_range(const struct rules_dice_expr *expr, int *min, int *max);

/* English text for a status, for error messages. */
const char *rules_dice_strerror(int status);

#endif
