/* Command-line and environment configuration of tacticsd. */
#ifndef TACTICS_SVC_CONFIG_H
#define TACTICS_SVC_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SVC_MAX_CORS_ORIGINS 16
/* The most --max-map-side may be: no server takes a wider or taller map (map_codec.c). */
#define SVC_MAP_SIDE_LIMIT 10000

struct svc_config {
    unsigned port;               /* --port, TACTICS_PORT; 0 picks an ephemeral port */
    char bind[64];               /* --bind, TACTICS_BIND */
    char db_path[1024];          /* --db, TACTICS_DB */
    unsigned threads;            /* --threads, TACTICS_THREADS */
    size_t max_body;             /* --max-body, TACTICS_MAX_BODY, bytes */
    unsigned max_connections;    /* --max-connections, TACTICS_MAX_CONNECTIONS */
    unsigned per_ip_connections; /* --per-ip-connections, TACTICS_PER_IP_CONNECTIONS */
    unsigned timeout_s;          /* --timeout, TACTICS_TIMEOUT: idle seconds before closing */
    size_t connection_memory;    /* --connection-memory, TACTICS_CONNECTION_MEMORY, bytes */
    unsigned max_map_side;       /* --max-map-side, TACTICS_MAX_MAP_SIDE, squares */
    unsigned idempotency_ttl_s;  /* --idempotency-ttl, TACTICS_IDEMPOTENCY_TTL, seconds */
    unsigned header_timeout_s;   /* --header-timeout, TACTICS_HEADER_TIMEOUT: seconds for a head */
    uint64_t max_db_size;        /* --max-db-size, TACTICS_MAX_DB_SIZE, bytes; 0: no cap */
    unsigned budget_scale; /* --budget-scale, TACTICS_BUDGET_SCALE: multiplies each SVC_BUDGET_* */
    unsigned budget_divisor; /* no option: divides them (0 or 1: unchanged). The fuzz targets set
                              * it, whose instrumented builds run a budget ~100x slower */
    unsigned keepalive_s;    /* --keepalive, TACTICS_KEEPALIVE: seconds between a feed's comments */
    unsigned max_subscribers; /* --max-subscribers, TACTICS_MAX_SUBSCRIBERS: live feeds open */
    unsigned max_subscribers_per_encounter; /* --max-subscribers-per-encounter, likewise */
    unsigned max_subscribers_per_address;   /* --max-subscribers-per-address, likewise */
    bool group_commit;         /* --group-commit, TACTICS_GROUP_COMMIT: on (db_set_group_commit) */
    unsigned feed_coalesce_ms; /* --feed-coalesce, TACTICS_FEED_COALESCE: least ms between wakes */
    unsigned feed_poll_s; /* --feed-poll, TACTICS_FEED_POLL: seconds between the feeds' reads of
                           * the database for other processes' writes, without a listener */
    bool feed_listen;     /* --feed-listen, TACTICS_FEED_LISTEN: PostgreSQL LISTEN/NOTIFY on */
    char cors_origins[SVC_MAX_CORS_ORIGINS][256]; /* --cors-origin, TACTICS_CORS_ORIGIN */
    int cors_origin_count;
    /* --discord-public-key, TACTICS_DISCORD_PUBLIC_KEY: the Discord application's Ed25519
     * public key, 64 hex characters; empty: POST /v1/discord/interactions answers 404. */
    char discord_public_key[65];
    /* --discord-api, TACTICS_DISCORD_API: where followups to deferred interactions go
     * (default https://discord.com/api/v10; the tests point it at a local listener). */
    char discord_api[256];
    /* --discord-defer-ms, TACTICS_DISCORD_DEFER_MS: how long a command may take before the
     * interaction is answered DEFERRED and finished by a followup (Discord waits 3 s). */
    unsigned discord_defer_ms;
    /* --record-bounds, TACTICS_RECORD_BOUNDS: a file the request decoders' bounds are appended
     * to (codec.h), for the contract test; "" (the default) records nothing */
    char record_bounds[1024];
};

/* Work budgets of one request (README "Limits and budgets"), each multiplied by
 * --budget-scale. Past one, the request is answered 422 too-expensive. They are sized so that
 * the documented limits fit (a 1,000 x 1,000 map painted from rows and rectangles; a reach or
 * route over the whole of it without facing) while the heaviest search is refused in well
 * under 2 s of CPU. */
#define SVC_BUDGET_SEARCH_STATES  8000000LL    /* states set up and expanded, path steps listed */
#define SVC_BUDGET_MAP_SQUARES    10000000LL   /* map squares painted, rows rectangles visit */
#define SVC_BUDGET_ANSWER_BYTES   (16LL << 20) /* bytes of the answer */
#define SVC_BUDGET_THREAT_SQUARES 16000000LL   /* squares tested for a threat */
#define SVC_BUDGET_PIXELS         32000000LL   /* a picture's pixels: canvas twice, shapes */

/* base times --budget-scale, over budget_divisor: one request's budget of that kind. */
long long svc_config_budget(const struct svc_config *cfg, long long base);

enum svc_config_action {
    SVC_CONFIG_RUN = 0,
    SVC_CONFIG_HELP = 1,
    SVC_CONFIG_VERSION = 2,
    SVC_CONFIG_ERROR = -1,
};

typedef const char *(*svc_getenv_fn)(const char *name);

/* Fills cfg from defaults, then the environment (through getenv_fn), then argv, which wins.
 * Returns what main should do; on SVC_CONFIG_ERROR, err holds a one-line message. */
enum svc_config_action svc_config_parse(int argc, char **argv, svc_getenv_fn getenv_fn,
                                        struct svc_config *cfg, char *err, size_t errlen);

/* The --help text, made from the settings' rows. */
const char *svc_config_usage(void);

/* What a setting's value is. */
enum svc_setting_type {
    SVC_SETTING_COUNT,   /* a whole number from min to max (or 0, when zero_is_off) */
    SVC_SETTING_SWITCH,  /* on or off */
    SVC_SETTING_TEXT,    /* a text, not empty, shorter than its field */
    SVC_SETTING_ORIGINS, /* origins, comma-separated; each use adds to the list */
    SVC_SETTING_HEX_KEY, /* exactly max hex digits */
    SVC_SETTING_URL,     /* an http:// or https:// URL shorter than its field */
};

/* One setting: a row of the one table (config.c) from which the options, the environment's
 * reading, --help and the bounds all come. */
struct svc_setting {
    const char *name; /* the option, without its "--" */
    const char *env;  /* its environment variable */
    const char *arg;  /* what its value is, for --help and the README: N, BYTES, on|off, ... */
    enum svc_setting_type type;
    size_t offset, size;         /* the field of struct svc_config it fills */
    unsigned long long min, max; /* a COUNT's bounds; a HEX_KEY's digits (max) */
    bool zero_is_off;            /* a COUNT that takes 0 too, below min: "none" */
    const char *fallback;        /* the default, written as a value; NULL: none */
    const char *help;            /* what it sets, for --help */
};

/* The settings, in the order --help and the README list them; *count rows. */
const struct svc_setting *svc_config_settings(size_t *count);

/* --db as it may be logged: a postgres:// or postgresql:// URL with its password (in the user
 * part, or a password= parameter) replaced by ***; anything else as it is. Truncated to cap. */
void svc_config_db_for_log(const char *db, char *out, size_t cap);

#endif
