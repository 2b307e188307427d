/* The one interface of db.h, dispatched to its backend: SQLite for a file path, PostgreSQL for
 * a postgres:// or postgresql:// URL. Each backend keeps the whole contract of db.h. */
#include "db/db.h"

#include <stdlib.h>
#include <string.h>

#include "db/pg/internal.h"
#include "db/sqlite/internal.h"

/* Exactly one of the two is set. */
struct db {
    struct db_sqlite *sqlite;
    struct db_pg *pg;
    struct db_pg_listener *listener; /* db_listen_start's, on PostgreSQL */
};

static bool is_postgres_url(const char *path)
{
    return strncmp(path, "postgres://", 11) == 0 || strncmp(path, "postgresql://", 13) == 0;
}

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
    default:
        return "database error";
    }
}

int db_open(const char *path, struct db **out)
{
    *out = NULL;
    struct db *db = calloc(1, sizeof *db);
    if (db == NULL)
        return DB_ERR_NOMEM;
    int rc = is_postgres_url(path) ? db_pg_open(path, &db->pg) : db_sqlite_open(path, &db->sqlite);
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
    if (db->pg != NULL)
        db_pg_close(db->pg);
    else
        db_sqlite_close(db->sqlite);
    free(db);
}

int db_check_ready(struct db *db)
{
    return db->pg ? db_pg_check_ready(db->pg) : db_sqlite_check_ready(db->sqlite);
}

int db_schema_version(struct db *db, int *out)
{
    return db->pg ? db_pg_schema_version(db->pg, out) : db_sqlite_schema_version(db->sqlite, out);
}

/* PostgreSQL's size is the operator's to cap (quotas, tablespaces): nothing to do there. */
int db_limit_size(struct db *db, uint64_t max_bytes)
{
    return db->pg ? DB_OK : db_sqlite_limit_size(db->sqlite, max_bytes);
}

void db_write_health(struct db *db, struct db_write_health *out)
{
    if (db->pg)
        db_pg_write_health(db->pg, out);
    else
        db_sqlite_write_health(db->sqlite, out);
}

uint64_t db_error_count(const struct db *db)
{
    return db->pg ? db_pg_error_count(db->pg) : db_sqlite_error_count(db->sqlite);
}

void db_set_replay_ttl(struct db *db, int64_t seconds)
{
    if (db->pg)
        db_pg_set_replay_ttl(db->pg, seconds);
    else
        db_sqlite_set_replay_ttl(db->sqlite, seconds);
}

int db_replay_get(struct db *db, struct db_replay *r)
{
    return db->pg ? db_pg_replay_get(db->pg, r) : db_sqlite_replay_get(db->sqlite, r);
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
    if (db->pg)
        return db_pg_encounter_create(db->pg, id, token_hash, rules_json, state_json, count, kinds,
                                      payloads, replay);
    return db_sqlite_encounter_create(db->sqlite, id, token_hash, rules_json, state_json, count,
                                      kinds, payloads, replay);
}

int db_encounter_get(struct db *db, const char *id, struct db_encounter *out)
{
    return db->pg ? db_pg_encounter_get(db->pg, id, out)
                  : db_sqlite_encounter_get(db->sqlite, id, out);
}

int db_encounter_append(struct db *db, const char *id, int64_t expected, const char *kind,
                        const char *payload_json, const char *state_json, struct db_replay *replay,
                        int64_t *current)
{
    if (db->pg)
        return db_pg_encounter_append(db->pg, id, expected, kind, payload_json, state_json, replay,
                                      current);
    return db_sqlite_encounter_append(db->sqlite, id, expected, kind, payload_json, state_json,
                                      replay, current);
}

void db_set_group_commit(struct db *db, bool on)
{
    if (db->sqlite)
        db->sqlite->group_commit = on;
}

void db_group_commit_stats(struct db *db, struct db_group_stats *out)
{
    memset(out, 0, sizeof *out);
    if (db->sqlite)
        db_sqlite_group_stats(db->sqlite, out);
}

int db_encounter_delete(struct db *db, const char *id, int64_t expected, int64_t *current)
{
    return db->pg ? db_pg_encounter_delete(db->pg, id, expected, current)
                  : db_sqlite_encounter_delete(db->sqlite, id, expected, current);
}

int db_encounter_list(struct db *db, const unsigned char *token_hash, const char *after, int limit,
                      db_encounter_fn fn, void *ud)
{
    return db->pg ? db_pg_encounter_list(db->pg, token_hash, after, limit, fn, ud)
                  : db_sqlite_encounter_list(db->sqlite, token_hash, after, limit, fn, ud);
}

int db_events(struct db *db, const char *id, int64_t after, int64_t upto, int limit, db_event_fn fn,
              void *ud)
{
    return db->pg ? db_pg_events(db->pg, id, after, upto, limit, fn, ud)
                  : db_sqlite_events(db->sqlite, id, after, upto, limit, fn, ud);
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
    if (db->pg == NULL)
        return DB_ERR_UNSUPPORTED;
    if (db->listener != NULL)
        return DB_ERR_IO;
    return db_pg_listen_start(db_pg_conninfo(db->pg), fn, ud, &db->listener);
}

void db_listen_stop(struct db *db)
{
    if (db == NULL)
        return;
    db_pg_listen_stop(db->listener);
    db->listener = NULL;
}
