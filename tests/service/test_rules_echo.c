/* svc_write_rules keeps the last echo written on its thread: an echo must always be the one of
 * the rules asked for, whichever came before, and the same as svc_encode_rules gives. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "service/codec/rule_options.h"

/* Writes rules with svc_write_rules and asserts it reads back as svc_encode_rules' object. */
static void assert_echo(const struct svc_rules *rules)
{
    struct jw w;
    jw_init(&w, 16);
    svc_write_rules(&w, rules);
    size_t len = 0;
    char *text = jw_finish(&w, &len);
    cr_assert_not_null(text);
    json_t *written = json_loads(text, 0, NULL);
    json_t *expected = svc_encode_rules(rules);
    cr_assert(json_equal(written, expected), "%s", text);
    json_decref(written);
    json_decref(expected);
    free(text);
}

static struct svc_rules preset(const char *name)
{
    struct svc_rules r;
    memset(&r, 0, sizeof r);
    strcpy(r.preset, name);
    cr_assert_eq(rules_preset_apply(name, &r.options), RULES_OPTION_OK);
    return r;
}

Test(rules_echo, each_echo_is_of_the_rules_asked_for)
{
    struct svc_rules plain = preset("d20-3.5"), facing = preset("d20-3.5-facing");
    struct svc_rules overridden = facing;
    overridden.options.falling_max_dice = 7; /* same preset name, one option changed */
    const struct svc_rules *order[] = {&plain,      &plain, &facing, &overridden,
                                       &overridden, &plain, &facing, &facing};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        assert_echo(order[i]);
}
