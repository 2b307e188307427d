/* The PostgreSQL backend's table of functions (db/backend.h): a postgres:// or postgresql://
 * URL names its database. */
#include <string.h>

#include "db/backend.h"
#include "db/pg/internal.h"

static bool claims(const char *path)
{
    return strncmp(path, "postgres://", 11) == 0 || strncmp(path, "postgresql://", 13) == 0;
}

static int open_db(const char *path, void **out)
{
    struct db_pg *db = NULL;
    int rc = db_pg_open(path, &db);
    *out = db;
    return rc;
}

static void close_db(void *b)
{
    db_pg_close(b);
}

static int check_ready(void *b)
{
    return db_pg_check_ready(b);
}

static int schema_version(void *b, int *out)
{
    return db_pg_schema_version(b, out);
}

static void write_health(void *b, struct db_write_health *out)
{
    db_pg_write_health(b, out);
}

static uint64_t error_count(const void *b)
{
    return db_pg_error_count(b);
}

static void set_replay_ttl(void *b, int64_t seconds)
{
    db_pg_set_replay_ttl(b, seconds);
}

static int replay_get(void *b, struct db_replay *r)
{
    return db_pg_replay_get(b, r);
}

static int encounter_create(void *b, const char *id, const unsigned char *token_hash,
                            const char *rules_json, const char *state_json, int count,
                            const char *const *kinds, const char *const *payloads,
                            struct db_replay *replay)
{
    return db_pg_encounter_create(b, id, token_hash, rules_json, state_json, count, kinds, payloads,
                                  replay);
}

static int encounter_get(void *b, const char *id, struct db_encounter *out)
{
    return db_pg_encounter_get(b, id, out);
}

static int encounter_append(void *b, const char *id, int64_t expected, const char *kind,
                            const char *payload_json, const char *state_json,
                            struct db_replay *replay, int64_t *current)
{
    return db_pg_encounter_append(b, id, expected, kind, payload_json, state_json, replay, current);
}

static int encounter_delete(void *b, const char *id, int64_t expected, int64_t *current)
{
    return db_pg_encounter_delete(b, id, expected, current);
}

static int encounter_list(void *b, const unsigned char *token_hash, const char *after, int limit,
                          db_encounter_fn fn, void *ud)
{
    return db_pg_encounter_list(b, token_hash, after, limit, fn, ud);
}

static int channel_put(void *b, const struct db_channel *c)
{
    return db_pg_channel_put(b, c);
}

static int channel_get(void *b, const char *channel_id, struct db_channel *out)
{
    return db_pg_channel_get(b, channel_id, out);
}

static int events(void *b, const char *id, int64_t after, int64_t upto, int limit, db_event_fn fn,
                  void *ud)
{
    return db_pg_events(b, id, after, upto, limit, fn, ud);
}

static int listen_start(void *b, db_change_fn fn, void *ud, void **listener)
{
    struct db_pg_listener *l = NULL;
    int rc = db_pg_listen_start(db_pg_conninfo(b), fn, ud, &l);
    *listener = l;
    return rc;
}

static void listen_stop(void *listener)
{
    db_pg_listen_stop(listener);
}

const struct db_backend_ops db_pg_ops = {
    .name = "postgresql",
    .claims = claims,
    .open = open_db,
    .close = close_db,
    .check_ready = check_ready,
    .schema_version = schema_version,
    .limit_size = NULL,
    .write_health = write_health,
    .error_count = error_count,
    .set_replay_ttl = set_replay_ttl,
    .replay_get = replay_get,
    .encounter_create = encounter_create,
    .encounter_get = encounter_get,
    .encounter_append = encounter_append,
    .encounter_delete = encounter_delete,
    .encounter_list = encounter_list,
    .events = events,
    .channel_put = channel_put,
    .channel_get = channel_get,
    .set_group_commit = NULL,
    .group_stats = NULL,
    .listen_start = listen_start,
    .listen_stop = listen_stop,
};
