/* svc_write_modifier keeps each modifier's escaped members per thread (issue 33). What it
 * writes must be what the texts say now: the same address holding another reason, another
 * source or another applies_to is written afresh, and a text it cannot keep is written whole. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/attack/attack.h"
#include "service/codec/rule_options.h"
#include "service/json/writer.h"

static char *written(const struct rules_modifier *m)
{
    struct jw w;
    jw_init(&w, 64);
    svc_write_modifier(&w, m);
    size_t len = 0;
    return jw_finish(&w, &len);
}

static void assert_written(const struct rules_modifier *m, const char *want)
{
    for (int i = 0; i < 2; i++) { /* written, then from what was kept */
        char *got = written(m);
        cr_assert_str_eq(got, want);
        free(got);
    }
}

Test(modifier_text, follows_the_texts_not_their_addresses)
{
    char reason[64] = "armor bonus", source[64] = "defender";
    struct rules_modifier m = {.value = 4,
                               .applies_to = RULES_APPLIES_DEFENSE,
                               .reason = reason,
                               .source = source,
                               .applied = true};
    assert_written(&m, "{\"value\":4,\"applies_to\":\"defense\",\"reason\":\"armor bonus\","
                       "\"source\":\"defender\",\"applied\":true}");
    strcpy(reason, "a \"shield\" bonus");
    m.applied = false;
    m.value = -1;
    assert_written(&m, "{\"value\":-1,\"applies_to\":\"defense\",\"reason\":\"a \\\"shield\\\" "
                       "bonus\",\"source\":\"defender\",\"applied\":false}");
    strcpy(source, "002 Table: Cover");
    assert_written(&m, "{\"value\":-1,\"applies_to\":\"defense\",\"reason\":\"a \\\"shield\\\" "
                       "bonus\",\"source\":\"002 Table: Cover\",\"source_title\":\"Position "
                       "Modifiers (d20 Modern SRD)\",\"applied\":false}");
    m.applies_to = RULES_APPLIES_ATTACK;
    assert_written(&m, "{\"value\":-1,\"applies_to\":\"attack\",\"reason\":\"a \\\"shield\\\" "
                       "bonus\",\"source\":\"002 Table: Cover\",\"source_title\":\"Position "
                       "Modifiers (d20 Modern SRD)\",\"applied\":false}");
}

Test(modifier_text, a_reason_too_long_to_keep_is_written_whole)
{
    char reason[400];
    memset(reason, 'r', sizeof reason - 1);
    reason[sizeof reason - 1] = '\0';
    struct rules_modifier m = {.value = 1,
                               .applies_to = RULES_APPLIES_ATTACK,
                               .reason = reason,
                               .source = "attacker",
                               .applied = true};
    char want[600];
    snprintf(want, sizeof want,
             "{\"value\":1,\"applies_to\":\"attack\",\"reason\":\"%s\",\"source\":\"attacker\","
             "\"applied\":true}",
             reason);
    assert_written(&m, want);
}

/* The whole object is kept too, with its value and applied: the same texts with another value
 * or another applied are written with those, and then the first again with its own. */
Test(modifier_text, the_same_texts_with_another_value_or_applied)
{
    static const char reason[] = "flanking", source[] = "001 Flanking";
    struct rules_modifier m = {.value = 2,
                               .applies_to = RULES_APPLIES_ATTACK,
                               .reason = reason,
                               .source = source,
                               .applied = true};
    char middle[256], want[400];
    char *first = written(&m); /* its title, however rules_source_titles gives it */
    const char *from = strstr(first, ",\"applies_to\""), *to = strstr(first, ",\"applied\"");
    cr_assert(from != NULL && to != NULL && from < to, "%s", first);
    snprintf(middle, sizeof middle, "%.*s", (int)(to - from), from);
    free(first);
    int values[] = {2, 2, -3, -3, 2, 12345};
    bool applied[] = {true, false, false, true, true, false};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        m.value = values[i];
        m.applied = applied[i];
        snprintf(want, sizeof want, "{\"value\":%d%s,\"applied\":%s}", values[i], middle,
                 applied[i] ? "true" : "false");
        assert_written(&m, want);
    }
}

/* Kept whole, a modifier is still placed as a value: a comma between two in an array. */
Test(modifier_text, kept_whole_between_commas)
{
    struct rules_modifier m = {.value = 1,
                               .applies_to = RULES_APPLIES_DEFENSE,
                               .reason = "dodge",
                               .source = "defender",
                               .applied = true};
    for (int round = 0; round < 2; round++) {
        struct jw w;
        jw_init(&w, 64);
        jw_array_begin(&w);
        svc_write_modifier(&w, &m);
        svc_write_modifier(&w, &m);
        jw_array_end(&w);
        size_t len = 0;
        char *got = jw_finish(&w, &len);
        cr_assert_str_eq(got, "[{\"value\":1,\"applies_to\":\"defense\",\"reason\":\"dodge\","
                              "\"source\":\"defender\",\"applied\":true},{\"value\":1,"
                              "\"applies_to\":\"defense\",\"reason\":\"dodge\",\"source\":"
                              "\"defender\",\"applied\":true}]");
        free(got);
    }
}

/* Every modifier of an attack stays kept, whatever its texts' addresses: up to 8 modifiers each
 * find a slot (a slot of its own among the 8 from its hash on). Before, each hash had one
 * slot, and the same texts applying to the attack and to the defense always shared it (their
 * hashes differed by 1 before a shift by 3), so that each write threw the other out. */
Test(modifier_text, every_modifier_of_an_attack_stays_kept)
{
    static _Alignas(16) char reasons[8][32], sources[8][32];
    struct rules_modifier mods[8];
    for (int i = 0; i < 8; i++) {
        snprintf(reasons[i / 2], sizeof reasons[0], "reason %d", i / 2);
        snprintf(sources[i / 2], sizeof sources[0], "source %d", i / 2);
        mods[i] = (struct rules_modifier){
            .value = i,
            .applies_to = i % 2 ? RULES_APPLIES_DEFENSE : RULES_APPLIES_ATTACK,
            .reason = reasons[i / 2], /* the same texts, to the attack and to the defense */
            .source = sources[i / 2],
            .applied = true};
    }
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 8; i++) {
            char want[256];
            snprintf(want, sizeof want,
                     "{\"value\":%d,\"applies_to\":\"%s\",\"reason\":\"reason %d\",\"source\":"
                     "\"source %d\",\"applied\":true}",
                     i, i % 2 ? "defense" : "attack", i / 2, i / 2);
            char *got = written(&mods[i]);
            cr_assert_str_eq(got, want);
            free(got);
        }
        for (int i = 0; round > 0 && i < 8; i++)
            cr_assert(svc_modifier_kept(&mods[i]), "modifier %d thrown out (round %d)", i, round);
    }
}

/* m written by a tee writer that keeps "modifiers": the text, and the value it built. */
static char *written_tee(const struct rules_modifier *m, json_t **value)
{
    static const char *const keep[] = {"modifiers", NULL};
    struct jw w;
    jw_init_tee(&w, 64, keep);
    jw_object_begin(&w);
    JW_KEY(&w, "modifiers");
    jw_array_begin(&w);
    svc_write_modifier(&w, m);
    jw_array_end(&w);
    jw_object_end(&w);
    json_t *v = jw_finish_tree(&w);
    size_t len = 0;
    char *text = jw_finish(&w, &len);
    cr_assert_not_null(v);
    cr_assert_not_null(text);
    *value = json_incref(json_array_get(json_object_get(v, "modifiers"), 0));
    json_decref(v);
    json_t *back = json_loads(text, 0, NULL);
    cr_assert(json_equal(*value, json_array_get(json_object_get(back, "modifiers"), 0)), "%s",
              text);
    json_decref(back);
    return text;
}

/* In a tee writer (an encounter's attack answer) a modifier is a shared value: the next answer
 * with the same text shares the first one's value; whatever changes the text (another value, or
 * a text writer's answer with another value) gives a value of the new text, never the old one. */
Test(modifier_text, a_tee_writer_shares_the_value_of_the_same_text)
{
    char reason[64] = "tee armor bonus", source[64] = "defender";
    struct rules_modifier m = {.value = 4,
                               .applies_to = RULES_APPLIES_DEFENSE,
                               .reason = reason,
                               .source = source,
                               .applied = true};
    const char *four = "{\"modifiers\":[{\"value\":4,\"applies_to\":\"defense\",\"reason\":\"tee "
                       "armor bonus\",\"source\":\"defender\",\"applied\":true}]}";
    json_t *a, *b, *c, *d;
    char *ta = written_tee(&m, &a), *tb = written_tee(&m, &b);
    cr_assert_str_eq(ta, four);
    cr_assert_str_eq(tb, four);
    cr_assert_eq(a, b); /* shared */
    m.value = 5;
    char *tc = written_tee(&m, &c);
    cr_assert_neq(c, a);
    cr_assert_eq(json_integer_value(json_object_get(c, "value")), 5);
    m.value = 4;
    free(written(&m)); /* a text writer's answer rewrites the kept text */
    m.value = 6;
    free(written(&m));
    m.value = 4;
    char *td = written_tee(&m, &d);
    cr_assert_str_eq(td, four);
    cr_assert_eq(json_integer_value(json_object_get(d, "value")), 4);
    free(ta);
    free(tb);
    free(tc);
    free(td);
    json_decref(a);
    json_decref(b);
    json_decref(c);
    json_decref(d);
}
