#include "service/http/config.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *svc_config_usage(void)
{
    return "Usage: tacticsd [options]\n"
           "Adjudicates d20 tactical combat over HTTP.\n"
           "\n"
           "  --port N               TCP port (TACTICS_PORT, default 8080; 0 = ephemeral)\n"
           "  --bind ADDR            listen address (TACTICS_BIND, default 127.0.0.1)\n"
           "  --db PATH|URL          SQLite file, or postgres:// URL (TACTICS_DB, default\n"
           "                         ./tactics.db)\n"
           "  --threads N            worker threads (TACTICS_THREADS, default 4)\n"
           "  --max-body BYTES       largest request body (TACTICS_MAX_BODY, default 1048576)\n"
           "  --max-connections N    open connections (TACTICS_MAX_CONNECTIONS, default 1024)\n"
           "  --per-ip-connections N per client address (TACTICS_PER_IP_CONNECTIONS, "
           "default 256)\n"
           "  --timeout SECONDS      idle timeout, and the longest to send one request or to\n"
           "                         read one answer (TACTICS_TIMEOUT, default 30)\n"
           "  --header-timeout SECONDS  the longest to send one request's head, at most\n"
           "                         --timeout (TACTICS_HEADER_TIMEOUT, default 10)\n"
           "  --max-db-size BYTES    cap on the database file; writes past it fail as on a full\n"
           "                         disk (TACTICS_MAX_DB_SIZE, default 0: no cap)\n"
           "  --connection-memory BYTES  per-connection buffer (TACTICS_CONNECTION_MEMORY, "
           "default 16384)\n"
           "  --max-map-side N       widest and tallest map, in squares (TACTICS_MAX_MAP_SIDE, "
           "default 1000)\n"
           "  --idempotency-ttl SECONDS  how long an Idempotency-Key is kept "
           "(TACTICS_IDEMPOTENCY_TTL,\n"
           "                         default 86400)\n"
           "  --budget-scale N       multiplies every request's work budgets "
           "(TACTICS_BUDGET_SCALE,\n"
           "                         default 1)\n"
           "  --keepalive SECONDS    a live feed's keep-alive comment after this long without\n"
           "                         a write (TACTICS_KEEPALIVE, default 15)\n"
           "  --max-subscribers N    live feeds open in all (TACTICS_MAX_SUBSCRIBERS, default "
           "512)\n"
           "  --max-subscribers-per-encounter N  live feeds open on one encounter\n"
           "                         (TACTICS_MAX_SUBSCRIBERS_PER_ENCOUNTER, default 128)\n"
           "  --max-subscribers-per-address N  live feeds open from one client address\n"
           "                         (TACTICS_MAX_SUBSCRIBERS_PER_ADDRESS, default 32)\n"
           "  --group-commit on|off  SQLite: writes made at once share one commit (one sync)\n"
           "                         (TACTICS_GROUP_COMMIT, default on)\n"
           "  --feed-listen on|off   PostgreSQL: live feeds hear other instances' writes through\n"
           "                         LISTEN/NOTIFY (TACTICS_FEED_LISTEN, default on)\n"
           "  --feed-poll SECONDS    live feeds read the database for other processes' writes\n"
           "                         this often; while LISTEN is up, every 30 s or this\n"
           "                         if longer\n"
           "                         (TACTICS_FEED_POLL, default 1)\n"
           "  --cors-origin LIST     allowed browser origins, comma-separated or repeated, or *\n"
           "                         (TACTICS_CORS_ORIGIN, default none)\n"
           "  --discord-public-key HEX  the Discord application's public key (64 hex characters);\n"
           "                         turns on POST /v1/discord/interactions\n"
           "                         (TACTICS_DISCORD_PUBLIC_KEY, default none)\n"
           "  --discord-api URL      where followups to deferred interactions are sent\n"
           "                         (TACTICS_DISCORD_API, default https://discord.com/api/v10)\n"
           "  --discord-defer-ms MS  a command still working after this long is answered\n"
           "                         DEFERRED and finished by a followup "
           "(TACTICS_DISCORD_DEFER_MS,\n"
           "                         default 2000; Discord waits 3000)\n"
           "  --record-bounds FILE   append the bound of every request field a decoder reads\n"
           "                         to FILE, for the contract test (TACTICS_RECORD_BOUNDS,\n"
           "                         default none)\n"
           "  --help                 this text\n"
           "  --version              the version\n";
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

static bool copy_str(char *dst, size_t cap, const char *src)
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

enum opt_id {
    OPT_PORT = 'p',
    OPT_HELP = 'h',
    OPT_VERSION = 'V',
    OPT_BIND = 1000,
    OPT_DB,
    OPT_THREADS,
    OPT_MAX_BODY,
    OPT_MAX_CONNECTIONS,
    OPT_PER_IP,
    OPT_TIMEOUT,
    OPT_CONN_MEMORY,
    OPT_CORS,
    OPT_MAX_MAP_SIDE,
    OPT_IDEMPOTENCY_TTL,
    OPT_HEADER_TIMEOUT,
    OPT_MAX_DB_SIZE,
    OPT_BUDGET_SCALE,
    OPT_KEEPALIVE,
    OPT_MAX_SUBSCRIBERS,
    OPT_MAX_SUBSCRIBERS_PER_ENCOUNTER,
    OPT_MAX_SUBSCRIBERS_PER_ADDRESS,
    OPT_GROUP_COMMIT,
    OPT_FEED_LISTEN,
    OPT_FEED_POLL,
    OPT_DISCORD_KEY,
    OPT_DISCORD_API,
    OPT_DISCORD_DEFER,
    OPT_RECORD_BOUNDS,
};

/* One setting: its option, environment variable, and how to store it. */
struct setting {
    int id;
    const char *env;
};

static const struct setting settings[] = {
    {OPT_PORT, "TACTICS_PORT"},
    {OPT_BIND, "TACTICS_BIND"},
    {OPT_DB, "TACTICS_DB"},
    {OPT_THREADS, "TACTICS_THREADS"},
    {OPT_MAX_BODY, "TACTICS_MAX_BODY"},
    {OPT_MAX_CONNECTIONS, "TACTICS_MAX_CONNECTIONS"},
    {OPT_PER_IP, "TACTICS_PER_IP_CONNECTIONS"},
    {OPT_TIMEOUT, "TACTICS_TIMEOUT"},
    {OPT_CONN_MEMORY, "TACTICS_CONNECTION_MEMORY"},
    {OPT_CORS, "TACTICS_CORS_ORIGIN"},
    {OPT_MAX_MAP_SIDE, "TACTICS_MAX_MAP_SIDE"},
    {OPT_IDEMPOTENCY_TTL, "TACTICS_IDEMPOTENCY_TTL"},
    {OPT_HEADER_TIMEOUT, "TACTICS_HEADER_TIMEOUT"},
    {OPT_MAX_DB_SIZE, "TACTICS_MAX_DB_SIZE"},
    {OPT_GROUP_COMMIT, "TACTICS_GROUP_COMMIT"},
    {OPT_BUDGET_SCALE, "TACTICS_BUDGET_SCALE"},
    {OPT_KEEPALIVE, "TACTICS_KEEPALIVE"},
    {OPT_MAX_SUBSCRIBERS, "TACTICS_MAX_SUBSCRIBERS"},
    {OPT_MAX_SUBSCRIBERS_PER_ENCOUNTER, "TACTICS_MAX_SUBSCRIBERS_PER_ENCOUNTER"},
    {OPT_MAX_SUBSCRIBERS_PER_ADDRESS, "TACTICS_MAX_SUBSCRIBERS_PER_ADDRESS"},
    {OPT_FEED_LISTEN, "TACTICS_FEED_LISTEN"},
    {OPT_FEED_POLL, "TACTICS_FEED_POLL"},
    {OPT_DISCORD_KEY, "TACTICS_DISCORD_PUBLIC_KEY"},
    {OPT_DISCORD_API, "TACTICS_DISCORD_API"},
    {OPT_DISCORD_DEFER, "TACTICS_DISCORD_DEFER_MS"},
    {OPT_RECORD_BOUNDS, "TACTICS_RECORD_BOUNDS"},
};

static const struct option long_options[] = {
    {"port", required_argument, NULL, OPT_PORT},
    {"bind", required_argument, NULL, OPT_BIND},
    {"db", required_argument, NULL, OPT_DB},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"max-body", required_argument, NULL, OPT_MAX_BODY},
    {"max-connections", required_argument, NULL, OPT_MAX_CONNECTIONS},
    {"per-ip-connections", required_argument, NULL, OPT_PER_IP},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"connection-memory", required_argument, NULL, OPT_CONN_MEMORY},
    {"cors-origin", required_argument, NULL, OPT_CORS},
    {"max-map-side", required_argument, NULL, OPT_MAX_MAP_SIDE},
    {"idempotency-ttl", required_argument, NULL, OPT_IDEMPOTENCY_TTL},
    {"header-timeout", required_argument, NULL, OPT_HEADER_TIMEOUT},
    {"max-db-size", required_argument, NULL, OPT_MAX_DB_SIZE},
    {"budget-scale", required_argument, NULL, OPT_BUDGET_SCALE},
    {"keepalive", required_argument, NULL, OPT_KEEPALIVE},
    {"max-subscribers", required_argument, NULL, OPT_MAX_SUBSCRIBERS},
    {"max-subscribers-per-encounter", required_argument, NULL, OPT_MAX_SUBSCRIBERS_PER_ENCOUNTER},
    {"max-subscribers-per-address", required_argument, NULL, OPT_MAX_SUBSCRIBERS_PER_ADDRESS},
    {"group-commit", required_argument, NULL, OPT_GROUP_COMMIT},
    {"feed-listen", required_argument, NULL, OPT_FEED_LISTEN},
    {"feed-poll", required_argument, NULL, OPT_FEED_POLL},
    {"discord-public-key", required_argument, NULL, OPT_DISCORD_KEY},
    {"discord-api", required_argument, NULL, OPT_DISCORD_API},
    {"discord-defer-ms", required_argument, NULL, OPT_DISCORD_DEFER},
    {"record-bounds", required_argument, NULL, OPT_RECORD_BOUNDS},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

/* Stores one value; `from` names its origin ("--port" or "TACTICS_PORT") for errors. */
static bool apply(struct svc_config *cfg, int id, const char *v, const char *from, char *err,
                  size_t errlen)
{
    unsigned long long n = 0;
    bool ok = true;
    switch (id) {
    case OPT_PORT:
        ok = parse_uint(v, 0, 65535, &n);
        cfg->port = (unsigned)n;
        break;
    case OPT_BIND:
        ok = copy_str(cfg->bind, sizeof cfg->bind, v);
        break;
    case OPT_DB:
        ok = copy_str(cfg->db_path, sizeof cfg->db_path, v);
        break;
    case OPT_THREADS:
        ok = parse_uint(v, 1, 256, &n);
        cfg->threads = (unsigned)n;
        break;
    case OPT_MAX_BODY:
        ok = parse_uint(v, 1, 64ull * 1024 * 1024, &n);
        cfg->max_body = (size_t)n;
        break;
    case OPT_MAX_CONNECTIONS:
        ok = parse_uint(v, 1, 100000, &n);
        cfg->max_connections = (unsigned)n;
        break;
    case OPT_PER_IP:
        ok = parse_uint(v, 1, 100000, &n);
        cfg->per_ip_connections = (unsigned)n;
        break;
    case OPT_TIMEOUT:
        ok = parse_uint(v, 1, 3600, &n);
        cfg->timeout_s = (unsigned)n;
        break;
    case OPT_CONN_MEMORY:
        ok = parse_uint(v, 8192, 16ull * 1024 * 1024, &n);
        cfg->connection_memory = (size_t)n;
        break;
    case OPT_CORS:
        ok = add_origins(cfg, v);
        break;
    case OPT_MAX_MAP_SIDE:
        ok = parse_uint(v, 1, SVC_MAP_SIDE_LIMIT, &n);
        cfg->max_map_side = (unsigned)n;
        break;
    case OPT_IDEMPOTENCY_TTL:
        ok = parse_uint(v, 1, 30ull * 86400, &n);
        cfg->idempotency_ttl_s = (unsigned)n;
        break;
    case OPT_MAX_DB_SIZE:
        /* 0 (no cap), or at least 64 KiB: the schema alone takes several pages. */
        ok = parse_uint(v, 0, 1ull << 50, &n) && (n == 0 || n >= 65536);
        cfg->max_db_size = (uint64_t)n;
        break;
    case OPT_HEADER_TIMEOUT:
        ok = parse_uint(v, 1, 3600, &n);
        cfg->header_timeout_s = (unsigned)n;
        break;
    case OPT_BUDGET_SCALE:
        ok = parse_uint(v, 1, 1000, &n);
        cfg->budget_scale = (unsigned)n;
        break;
    case OPT_KEEPALIVE:
        ok = parse_uint(v, 1, 3600, &n);
        cfg->keepalive_s = (unsigned)n;
        break;
    case OPT_MAX_SUBSCRIBERS:
        ok = parse_uint(v, 0, 100000, &n);
        cfg->max_subscribers = (unsigned)n;
        break;
    case OPT_MAX_SUBSCRIBERS_PER_ENCOUNTER:
        ok = parse_uint(v, 0, 100000, &n);
        cfg->max_subscribers_per_encounter = (unsigned)n;
        break;
    case OPT_MAX_SUBSCRIBERS_PER_ADDRESS:
        ok = parse_uint(v, 0, 100000, &n);
        cfg->max_subscribers_per_address = (unsigned)n;
        break;
    case OPT_GROUP_COMMIT:
        ok = strcmp(v, "on") == 0 || strcmp(v, "off") == 0;
        cfg->group_commit = strcmp(v, "on") == 0;
        break;
    case OPT_FEED_LISTEN:
        ok = strcmp(v, "on") == 0 || strcmp(v, "off") == 0;
        cfg->feed_listen = strcmp(v, "on") == 0;
        break;
    case OPT_FEED_POLL:
        ok = parse_uint(v, 1, 3600, &n);
        cfg->feed_poll_s = (unsigned)n;
        break;
    case OPT_DISCORD_KEY: /* 32 bytes in hex, as the Developer Portal shows it */
        ok = strlen(v) == 64 && strspn(v, "0123456789abcdefABCDEF") == 64 &&
             copy_str(cfg->discord_public_key, sizeof cfg->discord_public_key, v);
        break;
    case OPT_DISCORD_API:
        ok = (strncmp(v, "https://", 8) == 0 || strncmp(v, "http://", 7) == 0) &&
             copy_str(cfg->discord_api, sizeof cfg->discord_api, v);
        break;
    case OPT_DISCORD_DEFER:
        ok = parse_uint(v, 0, 2900, &n);
        cfg->discord_defer_ms = (unsigned)n;
        break;
    case OPT_RECORD_BOUNDS:
        ok = copy_str(cfg->record_bounds, sizeof cfg->record_bounds, v);
        break;
    default:
        ok = false;
        break;
    }
    if (!ok)
        snprintf(err, errlen, "invalid value for %s: '%s'", from, v);
    return ok;
}

enum svc_config_action svc_config_parse(int argc, char **argv, svc_getenv_fn getenv_fn,
                                        struct svc_config *cfg, char *err, size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->port = 8080;
    strcpy(cfg->bind, "127.0.0.1");
    strcpy(cfg->db_path, "./tactics.db");
    cfg->threads = 4;
    cfg->max_body = 1024 * 1024;
    cfg->max_connections = 1024;
    cfg->per_ip_connections = 256;
    cfg->timeout_s = 30;
    cfg->header_timeout_s = 10;
    /* libmicrohttpd zeroes the whole pool before each request on a kept-alive connection: at
     * 64 KiB that memset was 5% of the CPU of POST /v1/attacks/resolve under load. 16 KiB holds
     * any sane request head (bodies go to our own buffer, not this pool). */
    cfg->connection_memory = 16 * 1024;
    cfg->max_map_side = 1000;
    cfg->idempotency_ttl_s = 86400;
    cfg->budget_scale = 1;
    /* A feed holds a connection for as long as it is open: by default at most half of
     * --max-connections, so that feeds never starve the requests that write. */
    cfg->keepalive_s = 15;
    cfg->max_subscribers = 512;
    cfg->max_subscribers_per_encounter = 128;
    cfg->max_subscribers_per_address = 32;
    cfg->group_commit = true;
    cfg->feed_listen = true;
    cfg->feed_poll_s = 1;
    strcpy(cfg->discord_api, "https://discord.com/api/v10");
    cfg->discord_defer_ms = 2000;
    err[0] = '\0';

    for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++) {
        const char *v = getenv_fn ? getenv_fn(settings[i].env) : NULL;
        if (v != NULL && !apply(cfg, settings[i].id, v, settings[i].env, err, errlen))
            return SVC_CONFIG_ERROR;
    }

    /* Options given on the command line replace the environment's CORS list, not extend it. */
    bool cors_from_argv = false;
    optind = 0; /* glibc: full re-initialisation, so tests can parse several times */
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
        switch (c) {
        case OPT_HELP:
            return SVC_CONFIG_HELP;
        case OPT_VERSION:
            return SVC_CONFIG_VERSION;
        case '?':
            snprintf(err, errlen, "unknown option or missing value: '%s'", argv[optind - 1]);
            return SVC_CONFIG_ERROR;
        default: {
            if (c == OPT_CORS && !cors_from_argv) {
                cfg->cors_origin_count = 0;
                cors_from_argv = true;
            }
            char from[64];
            const char *name = "option";
            for (const struct option *o = long_options; o->name; o++)
                if (o->val == c)
                    name = o->name;
            snprintf(from, sizeof from, "--%s", name);
            if (!apply(cfg, c, optarg, from, err, errlen))
                return SVC_CONFIG_ERROR;
        }
        }
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
