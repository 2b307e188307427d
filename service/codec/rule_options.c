#include "service/codec/rule_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/json/errors.h"
#include "service/json/fields.h"

json_t *svc_encode_options(const struct rules_options *o)
{
    int count = 0;
    const struct rules_option_info *table = rules_option_table(&count);
    json_t *doc = json_object();
    for (int i = 0; i < count; i++) {
        const char *s;
        long long n;
        rules_option_get(o, i, &s, &n);
        json_t *v = table[i].kind == RULES_OPTION_ENUM   ? json_string(s)
                    : table[i].kind == RULES_OPTION_BOOL ? json_boolean(n)
                                                         : json_integer(n);
        json_object_set_new(doc, table[i].name, v);
    }
    return doc;
}

json_t *svc_encode_rules(const struct svc_rules *rules)
{
    return json_pack("{s:s, s:o}", "preset", rules->preset, "options",
                     svc_encode_options(&rules->options));
}

static void write_rules(struct jw *w, const struct svc_rules *rules)
{
    int count = 0;
    const struct rules_option_info *table = rules_option_table(&count);
    jw_object_begin(w);
    JW_KEY(w, "preset");
    jw_string(w, rules->preset);
    JW_KEY(w, "options");
    jw_object_begin(w);
    for (int i = 0; i < count; i++) {
        const char *s;
        long long n;
        rules_option_get(&rules->options, i, &s, &n);
        jw_key(w, table[i].name);
        if (table[i].kind == RULES_OPTION_ENUM)
            jw_string(w, s);
        else if (table[i].kind == RULES_OPTION_BOOL)
            jw_bool(w, n != 0);
        else
            jw_int(w, n);
    }
    jw_object_end(w);
    jw_object_end(w);
}

/* The last echo written on this thread. The same preset and options always give the same text,
 * and a client sends the same rules request after request; writing the 10 options anew was 4%
 * of /v1/attacks/resolve's handler. Compared byte for byte: a struct with other padding only
 * misses, it never matches wrongly. */
static _Thread_local struct {
    bool valid;
    struct svc_rules rules;
    size_t len;
    char text[1024];
} last_echo;

void svc_write_rules(struct jw *w, const struct svc_rules *rules)
{
    if (jw_is_tree(w)) { /* a value, not text to parse back */
        write_rules(w, rules);
        return;
    }
    if (last_echo.valid && memcmp(&last_echo.rules, rules, sizeof *rules) == 0) {
        jw_raw(w, last_echo.text, last_echo.len);
        return;
    }
    struct jw mine;
    jw_init(&mine, sizeof last_echo.text);
    write_rules(&mine, rules);
    size_t len = 0;
    char *text = jw_finish(&mine, &len);
    if (text == NULL) {
        write_rules(w, rules); /* out of memory here: w says so in its own jw_finish */
        return;
    }
    last_echo.valid = len < sizeof last_echo.text;
    if (last_echo.valid) {
        memcpy(&last_echo.rules, rules, sizeof *rules); /* padding too */
        memcpy(last_echo.text, text, len);
        last_echo.len = len;
    }
    jw_raw(w, text, len);
    free(text);
}

/* Lists an option's accepted values for an error message. */
static void describe_values(const struct rules_option_info *info, char *buf, size_t len)
{
    if (info->kind == RULES_OPTION_BOOL) {
        snprintf(buf, len, "true or false");
        return;
    }
    if (info->kind == RULES_OPTION_INT) {
        snprintf(buf, len, "an integer from %d to %d", info->min, info->max);
        return;
    }
    size_t n = 0;
    buf[0] = '\0';
    for (int v = 0; v < RULES_OPTION_MAX_VALUES && info->values[v] && n < len; v++)
        n += (size_t)snprintf(buf + n, len - n, "%s\"%s\"", v ? ", " : "one of ", info->values[v]);
}

static void decode_option(struct svc_rules *out, const char *key, json_t *value,
                          struct svc_errors *e)
{
    char ptr[CODEC_PTR_MAX];
    codec_pointer(ptr, "/rules/options", key);
    int count = 0;
    const struct rules_option_info *table = rules_option_table(&count);
    const struct rules_option_info *info = NULL;
    for (int i = 0; i < count; i++)
        if (strcmp(table[i].name, key) == 0)
            info = &table[i];
    if (info == NULL) {
        svc_errors_add(e, ptr, "is not a known rule option (GET /v1/rules/presets lists them)");
        return;
    }
    int rc;
    if (json_is_string(value))
        rc = rules_option_set(&out->options, key, true, json_string_value(value), 0);
    else if (json_is_integer(value) && info->kind == RULES_OPTION_INT)
        rc = rules_option_set(&out->options, key, false, NULL, json_integer_value(value));
    else if (json_is_boolean(value) && info->kind == RULES_OPTION_BOOL)
        rc = rules_option_set(&out->options, key, false, NULL, json_is_true(value));
    else
        rc = RULES_OPTION_ERR_TYPE;
    if (rc != RULES_OPTION_OK) {
        char allowed[256];
        describe_values(info, allowed, sizeof allowed);
        svc_errors_add(e, ptr, "must be %s", allowed);
    }
}

bool svc_decode_rules(json_t *body, struct svc_rules *out, struct svc_errors *e)
{
    static const char *const known[] = {"preset", "options", NULL};
    size_t before = json_array_size(e->list);
    strncpy(out->preset, RULES_DEFAULT_PRESET,
            sizeof out->preset - 1); /* no snprintf per request */
    out->preset[sizeof out->preset - 1] = '\0';
    rules_preset_apply(out->preset, &out->options);
    json_t *rules = codec_member(body, "rules");
    if (rules == NULL)
        return true;
    if (!codec_expect_object(rules, "/rules", e))
        return false;
    json_t *given[2]; /* preset, options: found in one walk, the unknown reported */
    codec_members(rules, "/rules", known, given, sizeof given / sizeof given[0], e);
    const char *preset = NULL;
    if (codec_string_of(rules, given[0], "/rules", "preset", false, 31, &preset, e)) {
        if (rules_preset_apply(preset, &out->options) != RULES_OPTION_OK) {
            int n = 0;
            const struct rules_preset *p = rules_presets(&n);
            char names[256] = "";
            size_t used = 0;
            for (int i = 0; i < n && used < sizeof names; i++)
                used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                         p[i].name);
            svc_errors_add(e, "/rules/preset", "is not a known preset; presets: %s", names);
        } else {
            strncpy(out->preset, preset, sizeof out->preset - 1); /* at most 31: checked above */
            out->preset[sizeof out->preset - 1] = '\0';
        }
    }
    json_t *options = given[1];
    if (options != NULL && codec_expect_object(options, "/rules/options", e)) {
        const char *key;
        json_t *value;
        json_object_foreach(options, key, value)
        {
            decode_option(out, key, value, e);
        }
    }
    return json_array_size(e->list) == before;
}
