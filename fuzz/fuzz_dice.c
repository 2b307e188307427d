/* libFuzzer target: the dice parser, roller and the roll's text. Any input either is refused
 * with an error offset inside it, or parses, rolls (rerolls and explosions within their caps),
 * totals within the expression's own range, and writes a text of the length it measured. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules/dice/dice.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char text[RULES_DICE_MAX_EXPRESSION + 8];
    size_t n = size < sizeof text - 1 ? size : sizeof text - 1;
    memcpy(text, data, n);
    text[n] = '\0';
    struct rules_dice_expr e;
    size_t at = 0;
    if (rules_dice_parse(text, &e, &at) != RULES_DICE_OK) {
        if (at > strlen(text) + 1)
            abort();
        return 0;
    }
    static struct rules_roll roll;
    struct rules_dice d;
    rules_dice_from_seed(&d, n);
    if (rules_dice_roll(&e, &d, &roll) != RULES_DICE_OK)
        abort();
    int min = 0, max = 0;
    rules_dice_range(&e, &min, &max);
    if (roll.total < min || roll.total > max || roll.dice_count > RULES_DICE_MAX_DRAWS)
        abort();
    /* The text measures itself as snprintf does and never writes past its buffer. */
    static char buf[1 << 17];
    size_t need = rules_dice_text(text, &e, &roll, buf, sizeof buf);
    if (need >= sizeof buf || strlen(buf) != need)
        abort();
    return 0;
}
