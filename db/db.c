/* The one interface of db.h, dispatched through its backend's table of functions
 * (db/backend.h): SQLite for a file path, PostgreSQL for a postgres:// or postgresql:// URL.
 * Each backend keeps the whole contract of db.h. */
#include "db/db.h"

#include <stdlib.h>
#include <string.h>

#include <assert.h>

#include "db/backend.h"

/* The backends, asked in order which one a path names (db/backend.h). */
static const struct db_backend_ops *const backends[] = {&db_pg_ops, &db_sqlite_ops};

struct db {
    const struct db_backend_ops *ops; /* the backend that opened it */
    void *b;                          /* its handle */
    void *listener;                   /* db_listen_start's, when listening */
};

int db_latest_version(void)
{
    return DB_SCHEMA_VERSION;
}

const char *db_strerror(int status)
{
    switch (status) {
    case DB_OK:
        return "ok";
    case DB_ERR_OPEN:
        return "cannot open the database";
    case DB_ERR_MIGRATE:
        return "schema migration failed";
    case DB_ERR_SCHEMA_TOO_NEW:
        return "database schema is newer than this build";
    case DB_ERR_NOT_READY:
        return "database is not at the latest schema version";
    case DB_ERR_NOMEM:
        return "out of memory";
    case DB_ERR_NOT_FOUND:
        return "no such encounter";
    case DB_ERR_CONFLICT:
        return "version conflict";
    case DB_ERR_REPLAY:
        return "idempotency key already used";
    case DB_ERR_UNSUPPORTED:
        return "not supported by this database";
    case DB_PENDING:
        return "queued; completes later";
    default:
        return "database error";
    }
}

int db_open(const char *path, struct db **out)
{
    assert(path != NULL && out != NULL);
    *out = NULL;
    const struct db_backend_ops *ops = NULL;
    for (size_t i = 0; ops == NULL && i < sizeof backends / sizeof backends[0]; i++)
        if (backends[i]->claims(path))
            ops = backends[i];
    if (ops == NULL)
        return DB_ERR_OPEN;
    struct db *db = calloc(1, sizeof *db);
    if (db == NULL)
        return DB_ERR_NOMEM;
    db->ops = ops;
    int rc = ops->open(path, &db->b);
    if (rc != DB_OK) {
        free(db);
        return rc;
    }
    *out = db;
    return DB_OK;
}

void db_close(struct db *db)
{
    if (db == NULL)
        return;
    db_listen_stop(db);
    db->ops->close(db->b);
    free(db);
}

int db_check_ready(struct db *db)
{
    return db->ops->check_ready(db->b);
}

int db_schema_version(struct db *db, int *out)
{
    assert(out != NULL);
    return db->ops->schema_version(db->b, out);
}

int db_limit_size(struct db *db, uint64_t max_bytes)
{
    return db->ops->limit_size != NULL ? db->ops->limit_size(db->b, max_bytes) : DB_OK;
}

void db_write_health(struct db *db, struct db_write_health *out)
{
    assert(out != NULL);
    db->ops->write_health(db->b, out);
}

uint64_t db_error_count(const struct db *db)
{
    return db->ops->error_count(db->b);
}

void db_set_replay_ttl(struct db *db, int64_t seconds)
{
    assert(seconds >= 0);
    db->ops->set_replay_ttl(db->b, seconds);
}

int db_replay_get(struct db *db, struct db_replay *r)
{
    assert(r != NULL);
    return db->ops->replay_get(db->b, r);
}

int db_encounter_create(struct db *db, const char *id, const unsigned char *token_hash,
                        const char *rules_json, const char *state_json, const char *kind,
                        const char *payload_json, struct db_replay *replay)
{
    return db_encounter_create_log(db, id, token_hash, rules_json, state_json, 1, &kind,
                                   &payload_json, replay);
}

int db_encounter_create_log(struct db *db, const char *id, const unsigned char *token_hash,
                            const char *rules_json, const char *state_json, int count,
                            const char *const *kinds, const char *const *payloads,
                            struct db_replay *replay)
{
    assert(id != NULL && token_hash != NULL);
    assert(count >= 1 && kinds != NULL && payloads != NULL);
    return db->ops->encounter_create(db->b, id, token_hash, rules_json, state_json, count, kinds,
                                     payloads, replay);
}

int db_encounter_get(struct db *db, const char *id, struct db_encounter *out)
{
    assert(id != NULL && out != NULL);
    return db->ops->encounter_get(db->b, id, out);
}

int db_encounter_append(struct db *db, const char *id, int64_t expected, const char *kind,
                        const char *payload_json, const char *state_json, struct db_replay *replay,
                        int64_t *current)
{
    assert(id != NULL && kind != NULL);
    assert(expected >= 0);
    return db->ops->encounter_append(db->b, id, expected, kind, payload_json, state_json, replay,
                                     current);
}

int db_encounter_append_async(struct db *db, struct db_append_wait *w, const char *id,
                              int64_t expected, const char *kind, const char *payload_json,
                              const char *state_json, struct db_replay *replay)
{
    assert(w != NULL && w->done != NULL && id != NULL && kind != NULL);
    assert(expected >= 0);
    w->current = 0;
    /* Once pending, w is the committing thread's until done: not written here any more. */
    if (db->ops->encounter_append_async != NULL)
        return db->ops->encounter_append_async(db->b, w, id, expected, kind, payload_json,
                                               state_json, replay);
    w->rc = db->ops->encounter_append(db->b, id, expected, kind, payload_json, state_json, replay,
                                      &w->current);
    return w->rc;
}

void db_set_group_commit(struct db *db, bool on)
{
    if (db->ops->set_group_commit != NULL)
        db->ops->set_group_commit(db->b, on);
}

void db_group_commit_stats(struct db *db, struct db_group_stats *out)
{
    assert(out != NULL);
    memset(out, 0, sizeof *out);
    if (db->ops->group_stats != NULL)
        db->ops->group_stats(db->b, out);
}

int db_encounter_delete(struct db *db, const char *id, int64_t expected, int64_t *current)
{
    assert(id != NULL);
    return db->ops->encounter_delete(db->b, id, expected, current);
}

int db_encounter_list(struct db *db, const unsigned char *token_hash, const char *after, int limit,
                      db_encounter_fn fn, void *ud)
{
    assert(fn != NULL && limit >= 0);
    return db->ops->encounter_list(db->b, token_hash, after, limit, fn, ud);
}

int db_events(struct db *db, const char *id, int64_t after, int64_t upto, int limit, db_event_fn fn,
              void *ud)
{
    assert(id != NULL && fn != NULL && limit >= 0);
    return db->ops->events(db->b, id, after, upto, limit, fn, ud);
}

int db_channel_put(struct db *db, const struct db_channel *c)
{
    assert(c != NULL && c->channel_id[0] != '\0');
    return db->ops->channel_put(db->b, c);
}

int db_channel_get(struct db *db, const char *channel_id, struct db_channel *out)
{
    assert(channel_id != NULL && out != NULL);
    return db->ops->channel_get(db->b, channel_id, out);
}

int db_encounter_import(struct db *db, const char *id, const unsigned char *token_hash,
                        const char *rules_json, const char *state_json, int count,
                        const char *const *kinds, const char *const *payloads)
{
    return db_encounter_create_log(db, id, token_hash, rules_json, state_json, count, kinds,
                                   payloads, NULL);
}

int db_listen_start(struct db *db, db_change_fn fn, void *ud)
{
    assert(fn != NULL);
    if (db->ops->listen_start == NULL)
        return DB_ERR_UNSUPPORTED;
    if (db->listener != NULL)
        return DB_ERR_IO;
    return db->ops->listen_start(db->b, fn, ud, &db->listener);
}

void db_listen_stop(struct db *db)
{
    if (db == NULL || db->listener == NULL)
        return;
    db->ops->listen_stop(db->listener);
    db->listener = NULL;
}
