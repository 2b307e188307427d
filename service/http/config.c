#include "service/http/config.h"

#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every setting, one row each (Redis's standardConfig): its option, environment variable, the
 * kind and bounds of its value, its default and its help. getopt's table, the environment's
 * reading, --help and the bounds checks all come from these rows, and a test holds the README's
 * settings table to them (tests/service/test_config.c). */
#define FIELD(f)                                                                                   \
    .offset = offsetof(struct svc_config, f), .size = sizeof(((struct svc_config *)0)->f)
#define COUNT(lo, hi) .type = SVC_SETTING_COUNT, .min = (lo), .max = (hi)

static const struct svc_setting settings[] = {
    {.name = "port",
     .env = "TACTICS_PORT",
     .arg = "N",
     COUNT(0, 65535),
     FIELD(port),
     .fallback = "8080",
     .help = "TCP port; 0 picks a free one"},
    {.name = "bind",
     .env = "TACTICS_BIND",
     .arg = "ADDR",
     .type = SVC_SETTING_TEXT,
     FIELD(bind),
     .fallback = "127.0.0.1",
     .help = "listen address, IPv4 or IPv6"},
    {.name = "db",
     .env = "TACTICS_DB",
     .arg = "PATH|URL",
     .type = SVC_SETTING_TEXT,
     FIELD(db_path),
     .fallback = "./tactics.db",
     .help = "SQLite file, or postgres:// URL"},
    {.name = "threads",
     .env = "TACTICS_THREADS",
     .arg = "N",
     COUNT(1, 256),
     FIELD(threads),
     .fallback = "4",
     .help = "worker threads"},
    {.name = "max-body",
     .env = "TACTICS_MAX_BODY",
     .arg = "BYTES",
     COUNT(1, 64ull << 20),
     FIELD(max_body),
     .fallback = "1048576",
     .help = "largest request body"},
    {.name = "max-connections",
     .env = "TACTICS_MAX_CONNECTIONS",
     .arg = "N",
     COUNT(1, 100000),
     FIELD(max_connections),
     .fallback = "1024",
     .help = "open connections"},
    {.name = "per-ip-connections",
     .env = "TACTICS_PER_IP_CONNECTIONS",
     .arg = "N",
     COUNT(1, 100000),
     FIELD(per_ip_connections),
     .fallback = "256",
     .help = "open connections per client address"},
    {.name = "timeout",
     .env = "TACTICS_TIMEOUT",
     .arg = "SECONDS",
     COUNT(1, 3600),
     FIELD(timeout_s),
     .fallback = "30",
     .help = "idle timeout, and the longest to send one request or to read one answer"},
    {.name = "header-timeout",
     .env = "TACTICS_HEADER_TIMEOUT",
     .arg = "SECONDS",
     COUNT(1, 3600),
     FIELD(header_timeout_s),
     .fallback = "10",
     .help = "the longest to send one request's head, at most --timeout"},
    /* 0 (no cap), or at least 64 KiB: the schema alone takes several pages. */
    {.name = "max-db-size",
     .env = "TACTICS_MAX_DB_SIZE",
     .arg = "BYTES",
     COUNT(65536, 1ull << 50),
     .zero_is_off = true,
     FIELD(max_db_size),
     .fallback = "0",
     .help = "cap on the database file, 0 for none; writes past it fail as on a full disk"},
    /* libmicrohttpd zeroes the whole pool before each request on a kept-alive connection: at
     * 64 KiB that memset was 5% of the CPU of POST /v1/attacks/resolve under load. 16 KiB holds
     * any sane request head (bodies go to our own buffer, not this pool). */
    {.name = "connection-memory",
     .env = "TACTICS_CONNECTION_MEMORY",
     .arg = "BYTES",
     COUNT(8192, 16ull << 20),
     FIELD(connection_memory),
     .fallback = "16384",
     .help = "per-connection buffer"},
    {.name = "cors-origin",
     .env = "TACTICS_CORS_ORIGIN",
     .arg = "LIST",
     .type = SVC_SETTING_ORIGINS,
     FIELD(cors_origins),
     .help = "allowed browser origins, comma-separated or repeated, or *"},
    {.name = "max-map-side",
     .env = "TACTICS_MAX_MAP_SIDE",
     .arg = "N",
     COUNT(1, SVC_MAP_SIDE_LIMIT),
     FIELD(max_map_side),
     .fallback = "1000",
     .help = "widest and tallest map, in squares"},
    {.name = "budget-scale",
     .env = "TACTICS_BUDGET_SCALE",
     .arg = "N",
     COUNT(1, 1000),
     FIELD(budget_scale),
     .fallback = "1",
     .help = "multiplies every request's work budgets"},
    {.name = "group-commit",
     .env = "TACTICS_GROUP_COMMIT",
     .arg = "on|off",
     .type = SVC_SETTING_SWITCH,
     FIELD(group_commit),
     .fallback = "on",
     .help = "SQLite: writes made at once share one commit (one sync)"},
    {.name = "idempotency-ttl",
     .env = "TACTICS_IDEMPOTENCY_TTL",
     .arg = "SECONDS",
     COUNT(1, 30ull * 86400),
     FIELD(idempotency_ttl_s),
     .fallback = "86400",
     .help = "how long an Idempotency-Key is kept"},
    {.name = "keepalive",
     .env = "TACTICS_KEEPALIVE",
     .arg = "SECONDS",
     COUNT(1, 3600),
     FIELD(keepalive_s),
     .fallback = "15",
     .help = "a live feed's keep-alive comment after this long without a write"},
    /* A feed holds a connection for as long as it is open: by default at most half of
     * --max-connections, so that feeds never starve the requests that write. */
    {.name = "max-subscribers",
     .env = "TACTICS_MAX_SUBSCRIBERS",
     .arg = "N",
     COUNT(0, 100000),
     FIELD(max_subscribers),
     .fallback = "512",
     .help = "live feeds open in all"},
    {.name = "max-subscribers-per-encounter",
     .env = "TACTICS_MAX_SUBSCRIBERS_PER_ENCOUNTER",
     .arg = "N",
     COUNT(0, 100000),
     FIELD(max_subscribers_per_encounter),
     .fallback = "128",
     .help = "live feeds open on one encounter"},
    {.name = "max-subscribers-per-address",
     .env = "TACTICS_MAX_SUBSCRIBERS_PER_ADDRESS",
     .arg = "N",
     COUNT(0, 100000),
     FIELD(max_subscribers_per_address),
     .fallback = "32",
     .help = "live feeds open from one client address"},
    {.name = "feed-coalesce",
     .env = "TACTICS_FEED_COALESCE",
     .arg = "MS",
     COUNT(0, 1000),
     FIELD(feed_coalesce_ms),
     .fallback = "25",
     .help = "live feeds are woken at most this often (milliseconds), so that a feed behind "
             "a burst of writes gets its events in one send"},
    {.name = "feed-listen",
     .env = "TACTICS_FEED_LISTEN",
     .arg = "on|off",
     .type = SVC_SETTING_SWITCH,
     FIELD(feed_listen),
     .fallback = "on",
     .help = "PostgreSQL: live feeds hear other instances' writes through LISTEN/NOTIFY"},
    {.name = "feed-poll",
     .env = "TACTICS_FEED_POLL",
     .arg = "SECONDS",
     COUNT(1, 3600),
     FIELD(feed_poll_s),
     .fallback = "1",
     .help = "live feeds read the database for other processes' writes this often; while "
             "LISTEN is up, every 30 s or this if longer"},
    {.name = "record-bounds",
     .env = "TACTICS_RECORD_BOUNDS",
     .arg = "FILE",
     .type = SVC_SETTING_TEXT,
     FIELD(record_bounds),
     .help = "append the bound of every request field a decoder reads to FILE, for the "
             "contract test"},
    /* 32 bytes in hex, as the Developer Portal shows it. */
    {.name = "discord-public-key",
     .env = "TACTICS_DISCORD_PUBLIC_KEY",
     .arg = "HEX",
     .type = SVC_SETTING_HEX_KEY,
     .max = 64,
     FIELD(discord_public_key),
     .help = "the Discord application's public key (64 hex digits); turns on POST "
             "/v1/discord/interactions"},
    {.name = "discord-api",
     .env = "TACTICS_DISCORD_API",
     .arg = "URL",
     .type = SVC_SETTING_URL,
     FIELD(discord_api),
     .fallback = "https://discord.com/api/v10",
     .help = "where followups to deferred interactions are sent"},
    {.name = "discord-defer-ms",
     .env = "TACTICS_DISCORD_DEFER_MS",
     .arg = "MS",
     COUNT(0, 2900),
     FIELD(discord_defer_ms),
     .fallback = "2000",
     .help = "a command still working after this long is answered DEFERRED and finished by a "
             "followup (Discord waits 3000)"},
};

#define SETTING_COUNT (sizeof settings / sizeof settings[0])
/* getopt_long's values: a setting's row index plus OPT_FIRST; --help and --version apart. */
enum { OPT_HELP = 'h', OPT_VERSION = 'V', OPT_FIRST = 1000 };

const struct svc_setting *svc_config_settings(size_t *count)
{
    assert(count != NULL);
    *count = SETTING_COUNT;
    return settings;
}

static bool parse_uint(const char *s, unsigned long long lo, unsigned long long hi,
                       unsigned long long *out)
{
    if (s == NULL || *s == '\0' || *s == '-' || *s == '+')
        return false;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static bool copy_text(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n == 0 || n >= cap)
        return false;
    memcpy(dst, src, n + 1);
    return true;
}

/* Adds each comma-separated origin of list to cfg. */
static bool add_origins(struct svc_config *cfg, const char *list)
{
    const char *p = list;
    while (*p != '\0') {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (n > 0) {
            if (cfg->cors_origin_count >= SVC_MAX_CORS_ORIGINS || n >= sizeof cfg->cors_origins[0])
                return false;
            memcpy(cfg->cors_origins[cfg->cors_origin_count], p, n);
            cfg->cors_origins[cfg->cors_origin_count][n] = '\0';
            cfg->cors_origin_count++;
        }
        p += n;
        if (*p == ',')
            p++;
    }
    return true;
}

/* Stores a whole number in the field of width size at field. */
static void store_count(void *field, size_t size, unsigned long long v)
{
    if (size == sizeof(uint32_t)) {
        assert(v <= UINT32_MAX);
        uint32_t n = (uint32_t)v;
        memcpy(field, &n, sizeof n);
    } else {
        assert(size == sizeof(uint64_t));
        uint64_t n = v;
        memcpy(field, &n, sizeof n);
    }
}

/* Stores v as the setting s; false when v is not a value s takes. */
static bool store(struct svc_config *cfg, const struct svc_setting *s, const char *v)
{
    assert(s->offset + s->size <= sizeof *cfg);
    char *field = (char *)cfg + s->offset;
    unsigned long long n = 0;
    switch (s->type) {
    case SVC_SETTING_COUNT:
        if (!parse_uint(v, s->zero_is_off ? 0 : s->min, s->max, &n) || (n != 0 && n < s->min))
            return false;
        store_count(field, s->size, n);
        return true;
    case SVC_SETTING_SWITCH:
        assert(s->size == sizeof(bool));
        if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0)
            return false;
        *(bool *)(void *)field = strcmp(v, "on") == 0;
        return true;
    case SVC_SETTING_TEXT:
        return copy_text(field, s->size, v);
    case SVC_SETTING_ORIGINS:
        return add_origins(cfg, v);
    case SVC_SETTING_HEX_KEY:
        assert(s->max < s->size);
        return strlen(v) == s->max && strspn(v, "0123456789abcdefABCDEF") == s->max &&
               copy_text(field, s->size, v);
    case SVC_SETTING_URL:
        return (strncmp(v, "https://", 8) == 0 || strncmp(v, "http://", 7) == 0) &&
               copy_text(field, s->size, v);
    }
    assert(0 && "a setting of no known type");
    return false;
}

/* Stores v as s, or writes why not (naming from, "--port" or "TACTICS_PORT") into err. */
static bool apply(struct svc_config *cfg, const struct svc_setting *s, const char *v,
                  const char *from, char *err, size_t errlen)
{
    if (store(cfg, s, v))
        return true;
    snprintf(err, errlen, "invalid value for %s: '%s'", from, v);
    return false;
}

/* The --help text, made once from the rows. */
static char usage_text[8192];
static pthread_once_t usage_once = PTHREAD_ONCE_INIT;

/* Where --help's texts start, and how wide its lines are. */
#define USAGE_INDENT 25
#define USAGE_WIDTH  79

/* Appends fmt's text at *len, keeping *len within usage_text. */
static void usage_put(size_t *len, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void usage_put(size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(usage_text + *len, sizeof usage_text - *len, fmt, ap);
    va_end(ap);
    assert(n >= 0 && *len + (size_t)n < sizeof usage_text);
    *len += (size_t)n;
}

/* Appends text's words, a line broken before a word that would pass USAGE_WIDTH and continued
 * at USAGE_INDENT; *col is the column reached, *fresh whether nothing follows the indent yet. */
static void usage_words(size_t *len, size_t *col, bool *fresh, const char *text)
{
    for (const char *w = text; *w != '\0';) {
        size_t n = strcspn(w, " ");
        if (!*fresh && *col + 1 + n > USAGE_WIDTH) {
            usage_put(len, "\n%*s", USAGE_INDENT, "");
            *col = USAGE_INDENT;
            *fresh = true;
        }
        usage_put(len, "%s%.*s", *fresh ? "" : " ", (int)n, w);
        *col += n + (*fresh ? 0 : 1);
        *fresh = false;
        w += n;
        while (*w == ' ')
            w++;
    }
}

static void usage_make(void)
{
    size_t len = 0;
    usage_put(&len, "Usage: tacticsd [options]\nAdjudicates d20 tactical combat over HTTP.\n\n");
    for (size_t i = 0; i < SETTING_COUNT; i++) {
        const struct svc_setting *s = &settings[i];
        size_t start = len;
        usage_put(&len, "  --%s %s", s->name, s->arg);
        size_t col = len - start;
        int pad = col + 2 <= USAGE_INDENT ? (int)(USAGE_INDENT - col) : 2;
        usage_put(&len, "%*s", pad, "");
        col += (size_t)pad;
        bool fresh = true;
        char tail[160];
        snprintf(tail, sizeof tail, "(%s, default %s)", s->env,
                 s->fallback != NULL ? s->fallback : "none");
        usage_words(&len, &col, &fresh, s->help);
        usage_words(&len, &col, &fresh, tail);
        usage_put(&len, "\n");
    }
    usage_put(&len, "  --help%*sthis text\n  --version%*sthe version\n", USAGE_INDENT - 8, "",
              USAGE_INDENT - 11, "");
}

const char *svc_config_usage(void)
{
    pthread_once(&usage_once, usage_make);
    return usage_text;
}

enum svc_config_action svc_config_parse(int argc, char **argv, svc_getenv_fn getenv_fn,
                                        struct svc_config *cfg, char *err, size_t errlen)
{
    assert(cfg != NULL && err != NULL && errlen > 0);
    memset(cfg, 0, sizeof *cfg);
    err[0] = '\0';
    for (size_t i = 0; i < SETTING_COUNT; i++) {
        const struct svc_setting *s = &settings[i];
        bool ok = s->fallback == NULL || store(cfg, s, s->fallback);
        assert(ok); /* a default is a value its own row takes */
        (void)ok;
    }
    for (size_t i = 0; i < SETTING_COUNT; i++) {
        const char *v = getenv_fn ? getenv_fn(settings[i].env) : NULL;
        if (v != NULL && !apply(cfg, &settings[i], v, settings[i].env, err, errlen))
            return SVC_CONFIG_ERROR;
    }

    struct option options[SETTING_COUNT + 3];
    for (size_t i = 0; i < SETTING_COUNT; i++)
        options[i] = (struct option){settings[i].name, required_argument, NULL, OPT_FIRST + (int)i};
    options[SETTING_COUNT] = (struct option){"help", no_argument, NULL, OPT_HELP};
    options[SETTING_COUNT + 1] = (struct option){"version", no_argument, NULL, OPT_VERSION};
    options[SETTING_COUNT + 2] = (struct option){NULL, 0, NULL, 0};

    /* Options given on the command line replace the environment's CORS list, not extend it. */
    bool cors_from_argv = false;
    optind = 0; /* glibc: full re-initialisation, so tests can parse several times */
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        if (c == OPT_HELP)
            return SVC_CONFIG_HELP;
        if (c == OPT_VERSION)
            return SVC_CONFIG_VERSION;
        if (c < OPT_FIRST || (size_t)(c - OPT_FIRST) >= SETTING_COUNT) {
            snprintf(err, errlen, "unknown option or missing value: '%s'", argv[optind - 1]);
            return SVC_CONFIG_ERROR;
        }
        const struct svc_setting *s = &settings[c - OPT_FIRST];
        if (s->type == SVC_SETTING_ORIGINS && !cors_from_argv) {
            cfg->cors_origin_count = 0;
            cors_from_argv = true;
        }
        char from[64];
        snprintf(from, sizeof from, "--%s", s->name);
        if (!apply(cfg, s, optarg, from, err, errlen))
            return SVC_CONFIG_ERROR;
    }
    if (optind < argc) {
        snprintf(err, errlen, "unexpected argument: '%s'", argv[optind]);
        return SVC_CONFIG_ERROR;
    }
    return SVC_CONFIG_RUN;
}

void svc_config_db_for_log(const char *db, char *out, size_t cap)
{
    size_t n = 0;
    bool url = strncmp(db, "postgres://", 11) == 0 || strncmp(db, "postgresql://", 13) == 0;
    const char *p = db;
    /* The user part ends at '@' before the host; a ':' in it starts the password. */
    const char *at = url ? strchr(p, '@') : NULL;
    const char *scheme_end = url ? strstr(p, "://") + 3 : NULL;
    const char *colon = at ? memchr(scheme_end, ':', (size_t)(at - scheme_end)) : NULL;
    while (*p != '\0' && n + 1 < cap) {
        if (colon != NULL && p == colon + 1) {
            for (const char *m = "***"; *m && n + 1 < cap; m++)
                out[n++] = *m;
            p = at;
            continue;
        }
        if (url && strncmp(p, "password=", 9) == 0 && (p[-1] == '?' || p[-1] == '&')) {
            for (const char *m = "password=***"; *m && n + 1 < cap; m++)
                out[n++] = *m;
            p += 9;
            while (*p != '\0' && *p != '&')
                p++;
            continue;
        }
        out[n++] = *p++;
    }
    out[n] = '\0';
}

long long svc_config_budget(const struct svc_config *cfg, long long base)
{
    if (cfg == NULL)
        return base;
    long long scaled = base * (cfg->budget_scale > 0 ? cfg->budget_scale : 1);
    return cfg->budget_divisor > 1 ? scaled / cfg->budget_divisor : scaled;
}
