#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "service/http/config.h"

static const char *env_none(const char *name)
{
    (void)name;
    return NULL;
}

static const char *env_some(const char *name)
{
    if (strcmp(name, "TACTICS_PORT") == 0)
        return "9000";
    if (strcmp(name, "TACTICS_DB") == 0)
        return "/var/lib/tactics/x.db";
    if (strcmp(name, "TACTICS_CORS_ORIGIN") == 0)
        return "http://a.example,http://b.example";
    return NULL;
}

static const char *env_bad(const char *name)
{
    return strcmp(name, "TACTICS_THREADS") == 0 ? "many" : NULL;
}

Test(config, defaults_match_the_documented_values)
{
    struct svc_config c;
    char err[256];
    char *argv[] = {"tacticsd", NULL};
    cr_assert_eq(svc_config_parse(1, argv, env_none, &c, err, sizeof err), SVC_CONFIG_RUN);
    cr_assert_eq(c.port, 8080);
    cr_assert_str_eq(c.bind, "127.0.0.1");
    cr_assert_str_eq(c.db_path, "./tactics.db");
    cr_assert_eq(c.max_body, 1024 * 1024);
    cr_assert_eq(c.timeout_s, 30);
    cr_assert_eq(c.header_timeout_s, 10);
    cr_assert_eq(c.cors_origin_count, 0);
}

Test(config, flags_override_the_environment)
{
    struct svc_config c;
    char err[256];
    char *argv[] = {"tacticsd", "--port", "7000", "--cors-origin", "http://c.example", NULL};
    cr_assert_eq(svc_config_parse(5, argv, env_some, &c, err, sizeof err), SVC_CONFIG_RUN);
    cr_assert_eq(c.port, 7000);
    cr_assert_str_eq(c.db_path, "/var/lib/tactics/x.db");
    cr_assert_eq(c.cors_origin_count, 1);
    cr_assert_str_eq(c.cors_origins[0], "http://c.example");
    char *argv2[] = {"tacticsd", NULL};
    cr_assert_eq(svc_config_parse(1, argv2, env_some, &c, err, sizeof err), SVC_CONFIG_RUN);
    cr_assert_eq(c.cors_origin_count, 2);
}

Test(config, bad_values_name_their_source)
{
    struct svc_config c;
    char err[256];
    char *argv[] = {"tacticsd", "--max-body", "0", NULL};
    cr_assert_eq(svc_config_parse(3, argv, env_none, &c, err, sizeof err), SVC_CONFIG_ERROR);
    cr_assert_str_eq(err, "invalid value for --max-body: '0'");
    char *argv2[] = {"tacticsd", NULL};
    cr_assert_eq(svc_config_parse(1, argv2, env_bad, &c, err, sizeof err), SVC_CONFIG_ERROR);
    cr_assert_str_eq(err, "invalid value for TACTICS_THREADS: 'many'");
    char *argv3[] = {"tacticsd", "stray", NULL};
    cr_assert_eq(svc_config_parse(2, argv3, env_none, &c, err, sizeof err), SVC_CONFIG_ERROR);
}

Test(config, help_and_version)
{
    struct svc_config c;
    char err[256];
    char *argv[] = {"tacticsd", "--help", NULL};
    cr_assert_eq(svc_config_parse(2, argv, env_none, &c, err, sizeof err), SVC_CONFIG_HELP);
    char *argv2[] = {"tacticsd", "--version", NULL};
    cr_assert_eq(svc_config_parse(2, argv2, env_none, &c, err, sizeof err), SVC_CONFIG_VERSION);
}

static const char *env_budget(const char *name)
{
    return strcmp(name, "TACTICS_BUDGET_SCALE") == 0 ? "4" : NULL;
}

/* The work budgets are 1x by default, raised by TACTICS_BUDGET_SCALE or --budget-scale (which
 * wins), and never lowered below 1x. */
Test(config, budget_scale_raises_the_work_budgets)
{
    struct svc_config c;
    char err[256];
    char *plain[] = {"tacticsd", NULL};
    cr_assert_eq(svc_config_parse(1, plain, env_none, &c, err, sizeof err), SVC_CONFIG_RUN);
    cr_assert_eq(c.budget_scale, 1);
    cr_assert_eq(svc_config_parse(1, plain, env_budget, &c, err, sizeof err), SVC_CONFIG_RUN);
    cr_assert_eq(c.budget_scale, 4);
    char *flag[] = {"tacticsd", "--budget-scale", "10", NULL};
    cr_assert_eq(svc_config_parse(3, flag, env_budget, &c, err, sizeof err), SVC_CONFIG_RUN);
    cr_assert_eq(c.budget_scale, 10);
    char *zero[] = {"tacticsd", "--budget-scale", "0", NULL};
    cr_assert_eq(svc_config_parse(3, zero, env_none, &c, err, sizeof err), SVC_CONFIG_ERROR);
}

/* One request's budget: the base times the scale, over the divisor the fuzz targets set (a
 * parsed configuration leaves it 0: unchanged). */
Test(config, a_budget_is_the_base_scaled_then_divided)
{
    struct svc_config c;
    char err[256];
    char *flag[] = {"tacticsd", "--budget-scale", "3", NULL};
    cr_assert_eq(svc_config_parse(3, flag, env_none, &c, err, sizeof err), SVC_CONFIG_RUN);
    cr_assert_eq(c.budget_divisor, 0);
    cr_assert_eq(svc_config_budget(&c, 1000), 3000);
    c.budget_divisor = 20;
    cr_assert_eq(svc_config_budget(&c, 200000000LL), 30000000LL);
    cr_assert_eq(svc_config_budget(NULL, 1000), 1000);
}

static const char *env_feeds(const char *name)
{
    if (strcmp(name, "TACTICS_MAX_SUBSCRIBERS") == 0)
        return "2000";
    if (strcmp(name, "TACTICS_MAX_SUBSCRIBERS_PER_ENCOUNTER") == 0)
        return "1500";
    if (strcmp(name, "TACTICS_MAX_SUBSCRIBERS_PER_ADDRESS") == 0)
        return "40";
    return strcmp(name, "TACTICS_KEEPALIVE") == 0 ? "5" : NULL;
}

/* The live feeds' settings (issue 20): a keep-alive every 15 s, at most 512 feeds, 128 on one
 * encounter and 32 from one address (issue 28: two addresses could hold all 512) by default;
 * the environment sets them, a flag wins; a keep-alive of 0 is refused. */
Test(config, live_feed_settings_come_from_flags_and_the_environment)
{
    struct svc_config c;
    char err[256];
    char *plain[] = {"tacticsd", NULL};
    cr_assert_eq(svc_config_parse(1, plain, env_none, &c, err, sizeof err), SVC_CONFIG_RUN);
    cr_assert_eq(c.keepalive_s, 15);
    cr_assert_eq(c.max_subscribers, 512);
    cr_assert_eq(c.max_subscribers_per_encounter, 128);
    cr_assert_eq(c.max_subscribers_per_address, 32);
    cr_assert_eq(svc_config_parse(1, plain, env_feeds, &c, err, sizeof err), SVC_CONFIG_RUN);
    cr_assert_eq(c.keepalive_s, 5);
    cr_assert_eq(c.max_subscribers, 2000);
    cr_assert_eq(c.max_subscribers_per_encounter, 1500);
    cr_assert_eq(c.max_subscribers_per_address, 40);
    char *flags[] = {"tacticsd", "--keepalive",
                     "1",        "--max-subscribers",
                     "3",        "--max-subscribers-per-encounter",
                     "2",        "--max-subscribers-per-address",
                     "1",        NULL};
    cr_assert_eq(svc_config_parse(9, flags, env_feeds, &c, err, sizeof err), SVC_CONFIG_RUN);
    cr_assert_eq(c.keepalive_s, 1);
    cr_assert_eq(c.max_subscribers, 3);
    cr_assert_eq(c.max_subscribers_per_encounter, 2);
    cr_assert_eq(c.max_subscribers_per_address, 1);
    char *zero[] = {"tacticsd", "--keepalive", "0", NULL};
    cr_assert_eq(svc_config_parse(3, zero, env_none, &c, err, sizeof err), SVC_CONFIG_ERROR);
    cr_assert_not_null(strstr(svc_config_usage(), "--max-subscribers-per-encounter"));
    cr_assert_not_null(strstr(svc_config_usage(), "--max-subscribers-per-address"));
}

static const char *env_group_off(const char *name)
{
    return strcmp(name, "TACTICS_GROUP_COMMIT") == 0 ? "off" : NULL;
}

/* Group commit is on by default, off through TACTICS_GROUP_COMMIT or --group-commit (which
 * wins), and nothing but on or off is taken. */
Test(config, group_commit_is_on_unless_turned_off)
{
    struct svc_config c;
    char err[256];
    char *plain[] = {"tacticsd", NULL};
    cr_assert_eq(svc_config_parse(1, plain, env_none, &c, err, sizeof err), SVC_CONFIG_RUN);
    cr_assert(c.group_commit);
    cr_assert_eq(svc_config_parse(1, plain, env_group_off, &c, err, sizeof err), SVC_CONFIG_RUN);
    cr_assert_not(c.group_commit);
    char *on[] = {"tacticsd", "--group-commit", "on", NULL};
    cr_assert_eq(svc_config_parse(3, on, env_group_off, &c, err, sizeof err), SVC_CONFIG_RUN);
    cr_assert(c.group_commit);
    char *bad[] = {"tacticsd", "--group-commit", "yes", NULL};
    cr_assert_eq(svc_config_parse(3, bad, env_none, &c, err, sizeof err), SVC_CONFIG_ERROR);
    cr_assert(strstr(err, "--group-commit") != NULL, "%s", err);
}

static const char *env_feed(const char *name)
{
    if (strcmp(name, "TACTICS_FEED_LISTEN") == 0)
        return "off";
    return strcmp(name, "TACTICS_FEED_POLL") == 0 ? "5" : NULL;
}

/* LISTEN/NOTIFY is on and the feeds' poll runs every second by default; both come from the
 * environment or the command line (which wins), within their bounds. */
Test(config, feed_listen_and_poll_have_defaults_and_bounds)
{
    struct svc_config c;
    char err[256];
    char *plain[] = {"tacticsd", NULL};
    cr_assert_eq(svc_config_parse(1, plain, env_none, &c, err, sizeof err), SVC_CONFIG_RUN);
    cr_assert(c.feed_listen);
    cr_assert_eq(c.feed_poll_s, 1);
    cr_assert_eq(svc_config_parse(1, plain, env_feed, &c, err, sizeof err), SVC_CONFIG_RUN);
    cr_assert_not(c.feed_listen);
    cr_assert_eq(c.feed_poll_s, 5);
    char *args[] = {"tacticsd", "--feed-listen", "on", "--feed-poll", "3600", NULL};
    cr_assert_eq(svc_config_parse(5, args, env_feed, &c, err, sizeof err), SVC_CONFIG_RUN);
    cr_assert(c.feed_listen);
    cr_assert_eq(c.feed_poll_s, 3600);
    char *zero[] = {"tacticsd", "--feed-poll", "0", NULL};
    cr_assert_eq(svc_config_parse(3, zero, env_none, &c, err, sizeof err), SVC_CONFIG_ERROR);
    cr_assert(strstr(err, "--feed-poll") != NULL, "%s", err);
    char *long_poll[] = {"tacticsd", "--feed-poll", "3601", NULL};
    cr_assert_eq(svc_config_parse(3, long_poll, env_none, &c, err, sizeof err), SVC_CONFIG_ERROR);
    char *bad[] = {"tacticsd", "--feed-listen", "yes", NULL};
    cr_assert_eq(svc_config_parse(3, bad, env_none, &c, err, sizeof err), SVC_CONFIG_ERROR);
    cr_assert(strstr(err, "--feed-listen") != NULL, "%s", err);
}

/* The feeds' waker runs at most every 25 ms by default (bench/README.md, "Live feed"), 0 to
 * wake at each write, never more than a second. */
Test(config, feed_coalesce_has_a_default_and_bounds)
{
    struct svc_config c;
    char err[256];
    char *plain[] = {"tacticsd", NULL};
    cr_assert_eq(svc_config_parse(1, plain, env_none, &c, err, sizeof err), SVC_CONFIG_RUN);
    cr_assert_eq(c.feed_coalesce_ms, 25);
    char *off[] = {"tacticsd", "--feed-coalesce", "0", NULL};
    cr_assert_eq(svc_config_parse(3, off, env_none, &c, err, sizeof err), SVC_CONFIG_RUN);
    cr_assert_eq(c.feed_coalesce_ms, 0);
    char *slow[] = {"tacticsd", "--feed-coalesce", "1001", NULL};
    cr_assert_eq(svc_config_parse(3, slow, env_none, &c, err, sizeof err), SVC_CONFIG_ERROR);
    cr_assert(strstr(err, "--feed-coalesce") != NULL, "%s", err);
}

/* A password in a PostgreSQL URL never reaches the log: in the user part or as a parameter. */
Test(config, the_database_url_is_logged_without_its_password)
{
    static const char *const cases[][2] = {
        {"postgres://tactics:s3cret@db.example:5432/tactics",
         "postgres://tactics:***@db.example:5432/tactics"},
        {"postgresql://u:p%40ss@h/d?sslmode=require", "postgresql://u:***@h/d?sslmode=require"},
        {"postgres:///tactics?host=/run/pg&password=hunter2&user=t",
         "postgres:///tactics?host=/run/pg&password=***&user=t"},
        {"postgres://tactics@h/d", "postgres://tactics@h/d"},
        {"./tactics.db", "./tactics.db"},
        {"/tmp/user:pass@x.db", "/tmp/user:pass@x.db"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[256];
        svc_config_db_for_log(cases[i][0], out, sizeof out);
        cr_assert_str_eq(out, cases[i][1], "%s", cases[i][0]);
    }
}

/* The bounds every whole-number setting had before the settings became one table, and still
 * has: the lowest and highest value taken; one below and one above are refused. */
Test(config, each_number_setting_takes_its_documented_range_and_nothing_outside)
{
    static const struct {
        const char *option;
        unsigned long long lo, hi;
    } bounds[] = {
        {"--port", 0, 65535},
        {"--threads", 1, 256},
        {"--max-body", 1, 64ull << 20},
        {"--max-connections", 1, 100000},
        {"--per-ip-connections", 1, 100000},
        {"--timeout", 1, 3600},
        {"--header-timeout", 1, 3600},
        {"--connection-memory", 8192, 16ull << 20},
        {"--max-map-side", 1, SVC_MAP_SIDE_LIMIT},
        {"--idempotency-ttl", 1, 30ull * 86400},
        {"--budget-scale", 1, 1000},
        {"--keepalive", 1, 3600},
        {"--max-subscribers", 0, 100000},
        {"--max-subscribers-per-encounter", 0, 100000},
        {"--max-subscribers-per-address", 0, 100000},
        {"--feed-poll", 1, 3600},
        {"--discord-defer-ms", 0, 2900},
        {"--max-db-size", 65536, 1ull << 50}, /* and 0, no cap: below */
    };
    struct svc_config c;
    char err[256], value[32];
    for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
        unsigned long long tries[4] = {bounds[i].lo, bounds[i].hi, bounds[i].hi + 1,
                                       bounds[i].lo - 1};
        for (int t = 0; t < (bounds[i].lo > 0 ? 4 : 3); t++) {
            snprintf(value, sizeof value, "%llu", tries[t]);
            char *argv[] = {"tacticsd", (char *)bounds[i].option, value, NULL};
            enum svc_config_action want = t < 2 ? SVC_CONFIG_RUN : SVC_CONFIG_ERROR;
            cr_assert_eq(svc_config_parse(3, argv, env_none, &c, err, sizeof err), want, "%s %s",
                         bounds[i].option, value);
        }
    }
    char *none[] = {"tacticsd", "--max-db-size", "0", NULL};
    cr_assert_eq(svc_config_parse(3, none, env_none, &c, err, sizeof err), SVC_CONFIG_RUN);
    cr_assert_eq(c.max_db_size, 0);
}

/* One cell of a Markdown table row from *p ("| a | b |"), its "\|" read as "|", into out. */
static bool readme_cell(const char **p, char *out, size_t cap)
{
    const char *s = *p;
    while (*s == ' ' || *s == '|')
        s++;
    size_t n = 0;
    for (; *s != '\0' && *s != '\n' && !(*s == '|' && s[-1] != '\\'); s++)
        if (!(*s == '\\' && s[1] == '|') && n + 1 < cap)
            out[n++] = *s;
    while (n > 0 && out[n - 1] == ' ')
        n--;
    out[n] = '\0';
    *p = s;
    return n > 0;
}

/* The README's table of settings ("Running tacticsd") is held to the settings' rows: one row
 * each, in their order, with the same option, value, environment variable and default. */
Test(config, the_readme_lists_every_setting_as_the_table_has_it)
{
    FILE *f = fopen(README_PATH, "r");
    cr_assert_not_null(f, "%s", README_PATH);
    size_t count = 0;
    const struct svc_setting *rows = svc_config_settings(&count);
    cr_assert_gt(count, 20);
    size_t seen = 0;
    char line[4096];
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "| `--", 5) != 0)
            continue;
        const char *p = line;
        char flag[128], env[128], fallback[256], want[160];
        cr_assert(readme_cell(&p, flag, sizeof flag) && readme_cell(&p, env, sizeof env) &&
                      readme_cell(&p, fallback, sizeof fallback),
                  "%s", line);
        cr_assert_lt(seen, count, "a README row for no setting: %s", flag);
        const struct svc_setting *s = &rows[seen++];
        snprintf(want, sizeof want, "`--%s %s`", s->name, s->arg);
        cr_assert_str_eq(flag, want);
        snprintf(want, sizeof want, "`%s`", s->env);
        cr_assert_str_eq(env, want, "%s", flag);
        const char *d = s->fallback != NULL ? s->fallback : "none";
        size_t n = strlen(d);
        cr_assert(strncmp(fallback, d, n) == 0 && (fallback[n] == '\0' || fallback[n] == ' '),
                  "%s: the README says %s, the table %s", flag, fallback, d);
    }
    fclose(f);
    cr_assert_eq(seen, count, "the README lists %zu settings of %zu", seen, count);
}
