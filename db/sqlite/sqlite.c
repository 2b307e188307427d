/* The SQLite backend: opening, migrations (PRAGMA user_version), readiness. */
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/sqlite/internal.h"

/* Schema migrations, applied in order; migration i brings user_version from i to i + 1.
 * Never edit a migration that has shipped: append a new one. */
static const char *const migrations[] = {
    /* 1: encounters and their append-only event log. */
    "CREATE TABLE encounters ("
    "  id TEXT PRIMARY KEY,"
    "  created_at TEXT NOT NULL,"
    "  rules_json TEXT NOT NULL,"
    "  version INTEGER NOT NULL DEFAULT 0,"
    "  token_hash BLOB NOT NULL"
    ") STRICT;"
    "CREATE TABLE events ("
    "  encounter_id TEXT NOT NULL REFERENCES encounters(id),"
    "  seq INTEGER NOT NULL,"
    "  kind TEXT NOT NULL,"
    "  payload_json TEXT NOT NULL,"
    "  created_at TEXT NOT NULL,"
    "  PRIMARY KEY (encounter_id, seq)"
    ") STRICT;",
    /* 2: the folded state beside its log, listing by token, and idempotent requests. */
    "ALTER TABLE encounters ADD COLUMN state_json TEXT NOT NULL DEFAULT '{}';"
    "CREATE INDEX encounters_by_token ON encounters(token_hash, id);"
    "CREATE TABLE idempotency ("
    "  scope BLOB NOT NULL,"
    "  key TEXT NOT NULL,"
    "  request_hash BLOB NOT NULL,"
    "  status INTEGER NOT NULL,"
    "  version INTEGER NOT NULL,"
    "  body TEXT NOT NULL,"
    "  encounter_id TEXT,"
    "  created_at TEXT NOT NULL,"
    "  PRIMARY KEY (scope, key)"
    ") STRICT;",
    /* 3: idempotency keys keep what a retry needs, not a copy of the answer (which held the
     * whole state, megabytes for a large encounter): the answer is rebuilt from the event.
     * Keys expire (db_set_replay_ttl); created_at is in Unix seconds so that the expiry can
     * use an index. Keys from before keep their encounter and event. */
    "CREATE TABLE idempotency_keys ("
    "  scope BLOB NOT NULL,"
    "  key TEXT NOT NULL,"
    "  request_hash BLOB NOT NULL,"
    "  status INTEGER NOT NULL,"
    "  encounter_id TEXT NOT NULL,"
    "  version INTEGER NOT NULL,"
    "  created_at INTEGER NOT NULL,"
    "  PRIMARY KEY (scope, key)"
    ") STRICT;"
    "CREATE INDEX idempotency_keys_by_age ON idempotency_keys(created_at);"
    "CREATE INDEX idempotency_keys_by_encounter ON idempotency_keys(encounter_id);"
    "INSERT INTO idempotency_keys SELECT scope, key, request_hash, status, encounter_id, version,"
    "  CAST(strftime('%s', created_at) AS INTEGER) FROM idempotency"
    "  WHERE encounter_id IS NOT NULL;"
    "DROP TABLE idempotency;",
    /* 4: Discord channels bound to encounters (service/discord/), with the token they write by. */
    "CREATE TABLE discord_channels ("
    "  channel_id TEXT PRIMARY KEY,"
    "  encounter_id TEXT NOT NULL,"
    "  token TEXT NOT NULL,"
    "  game_master TEXT NOT NULL,"
    "  bound_at TEXT NOT NULL"
    ") STRICT;",
};

#define MIGRATION_COUNT ((int)(sizeof migrations / sizeof migrations[0]))
_Static_assert(MIGRATION_COUNT == DB_SCHEMA_VERSION, "one schema version on both backends");

static int exec(struct db_sqlite *db, const char *sql)
{
    if (sqlite3_exec(db->conn, sql, NULL, NULL, NULL) != SQLITE_OK) {
        atomic_fetch_add(&db->errors, 1);
        return DB_ERR_IO;
    }
    return DB_OK;
}

int db_sqlite_schema_version(struct db_sqlite *db, int *out)
{
    sqlite3_stmt *st = NULL;
    int rc = DB_ERR_IO;
    if (sqlite3_prepare_v2(db->conn, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
        goto out;
    if (sqlite3_step(st) != SQLITE_ROW)
        goto out;
    *out = sqlite3_column_int(st, 0);
    rc = DB_OK;
out:
    if (rc != DB_OK)
        atomic_fetch_add(&db->errors, 1);
    sqlite3_finalize(st);
    return rc;
}

/* Applies migration `index` and bumps user_version in one transaction, so a failure leaves
 * the file exactly as it was before this migration. */
static int apply_migration(struct db_sqlite *db, int index)
{
    char pragma[64];
    if (exec(db, "BEGIN IMMEDIATE") != DB_OK)
        return DB_ERR_MIGRATE;
    if (exec(db, migrations[index]) != DB_OK)
        goto fail;
    sqlite3_snprintf((int)sizeof pragma, pragma, "PRAGMA user_version = %d", index + 1);
    if (exec(db, pragma) != DB_OK)
        goto fail;
    if (exec(db, "COMMIT") != DB_OK)
        goto fail;
    return DB_OK;
fail:
    exec(db, "ROLLBACK");
    return DB_ERR_MIGRATE;
}

static int migrate(struct db_sqlite *db)
{
    int version = 0;
    int rc = db_sqlite_schema_version(db, &version);
    if (rc != DB_OK)
        return rc;
    if (version > MIGRATION_COUNT)
        return DB_ERR_SCHEMA_TOO_NEW;
    for (int i = version; i < MIGRATION_COUNT; i++) {
        rc = apply_migration(db, i);
        if (rc != DB_OK)
            return rc;
    }
    return DB_OK;
}

static uint64_t monotonic_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void db_sqlite_note_failure(struct db_sqlite *db, int sqlite_rc, bool at_start)
{
    int primary = sqlite_rc & 0xff;
    if (primary != SQLITE_FULL && primary != SQLITE_READONLY && primary != SQLITE_IOERR &&
        primary != SQLITE_CANTOPEN)
        return;
    atomic_store(&db->write_failed_code, primary);
    atomic_store(&db->write_failed_at_start, at_start);
    uint64_t now = monotonic_us();
    atomic_store(&db->write_failed_us, now ? now : 1);
}

void db_sqlite_note_write_ok(struct db_sqlite *db)
{
    if (atomic_load(&db->write_failed_us) != 0)
        atomic_store(&db->write_failed_us, 0);
}

/* Writes one page (the schema version, unchanged) and commits, so that a file that cannot
 * take writes (read-only, full disk) is known from the start rather than at the first
 * client's write. A failure is remembered, not returned: reads may still be served. */
static void probe_write(struct db_sqlite *db)
{
    char sql[96];
    sqlite3_snprintf((int)sizeof sql, sql, "BEGIN IMMEDIATE; PRAGMA user_version = %d; COMMIT",
                     MIGRATION_COUNT);
    int rc = sqlite3_exec(db->conn, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        atomic_fetch_add(&db->errors, 1);
        db_sqlite_note_failure(db, sqlite3_extended_errcode(db->conn), true);
        sqlite3_exec(db->conn, "ROLLBACK", NULL, NULL, NULL);
    }
}

static const char *code_name(int primary)
{
    switch (primary) {
    case SQLITE_FULL:
        return "SQLITE_FULL";
    case SQLITE_READONLY:
        return "SQLITE_READONLY";
    case SQLITE_IOERR:
        return "SQLITE_IOERR";
    case SQLITE_CANTOPEN:
        return "SQLITE_CANTOPEN";
    default:
        return "SQLITE_ERROR";
    }
}

void db_sqlite_write_health(struct db_sqlite *db, struct db_write_health *out)
{
    memset(out, 0, sizeof *out);
    out->read_only = sqlite3_db_readonly(db->conn, "main") == 1;
    uint64_t at = atomic_load(&db->write_failed_us);
    if (at == 0)
        return;
    int code = atomic_load(&db->write_failed_code);
    out->failing = true;
    out->at_start = atomic_load(&db->write_failed_at_start);
    out->code = code_name(code);
    out->text = sqlite3_errstr(code);
    uint64_t now = monotonic_us();
    out->age_s = now > at ? (now - at) / 1000000u : 0;
}

int db_sqlite_limit_size(struct db_sqlite *db, uint64_t max_bytes)
{
    sqlite3_stmt *st = NULL;
    int page = 4096;
    if (sqlite3_prepare_v2(db->conn, "PRAGMA page_size", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        page = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    uint64_t pages = page > 0 ? max_bytes / (uint64_t)page : 0;
    db->max_pages = pages > 0xffffffffu ? 0xffffffffu : (unsigned)pages;
    if (max_bytes == 0 || db->max_pages == 0)
        return DB_OK;
    char pragma[64];
    sqlite3_snprintf((int)sizeof pragma, pragma, "PRAGMA max_page_count = %u", db->max_pages);
    return exec(db, pragma);
}

int db_sqlite_open(const char *path, struct db_sqlite **out)
{
    int rc = DB_OK;
    *out = NULL;
    struct db_sqlite *db = calloc(1, sizeof *db);
    if (db == NULL)
        return DB_ERR_NOMEM;
    atomic_init(&db->errors, 0);
    atomic_init(&db->write_failed_us, 0);
    atomic_init(&db->write_failed_code, 0);
    atomic_init(&db->write_failed_at_start, false);
    db->path = strdup(path);
    atomic_init(&db->replay_ttl, DB_REPLAY_TTL_DEFAULT);
    pthread_mutex_init(&db->lock, NULL);
    pthread_mutex_init(&db->group_lock, NULL);
    pthread_cond_init(&db->committer_wake, NULL);
    db->group_commit = true;
    if (db->path == NULL || pthread_key_create(&db->key, NULL) != 0) {
        free(db->path);
        free(db);
        return DB_ERR_NOMEM;
    }
    db->key_made = true;

    /* FULLMUTEX: the handle is shared by the HTTP worker threads. */
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX;
    if (sqlite3_open_v2(path, &db->conn, flags, NULL) != SQLITE_OK) {
        rc = DB_ERR_OPEN;
        goto out;
    }
    sqlite3_extended_result_codes(db->conn, 1);
    sqlite3_busy_timeout(db->conn, 5000);
    /* WAL lets readers run beside the writer; synchronous=FULL makes an acknowledged
     * commit survive a crash of the process and of the machine. */
    if (exec(db, "PRAGMA journal_mode=WAL") != DB_OK ||
        exec(db, "PRAGMA synchronous=FULL") != DB_OK ||
        exec(db, "PRAGMA foreign_keys=ON") != DB_OK) {
        rc = DB_ERR_OPEN;
        goto out;
    }
    rc = migrate(db);
    if (rc == DB_OK)
        probe_write(db);
out:
    if (rc != DB_OK) {
        db_sqlite_close(db);
        return rc;
    }
    *out = db;
    return DB_OK;
}

void db_sqlite_close(struct db_sqlite *db)
{
    if (db == NULL)
        return;
    db_sqlite_group_stop(db);
    db_sqlite_close_thread_conns(db);
    if (db->key_made)
        pthread_key_delete(db->key);
    pthread_mutex_destroy(&db->lock);
    pthread_mutex_destroy(&db->group_lock);
    pthread_cond_destroy(&db->committer_wake);
    sqlite3_close(db->conn);
    free(db->path);
    free(db);
}

int db_sqlite_check_ready(struct db_sqlite *db)
{
    int version = 0;
    int rc = db_sqlite_schema_version(db, &version);
    if (rc != DB_OK)
        return rc;
    return version == MIGRATION_COUNT ? DB_OK : DB_ERR_NOT_READY;
}

uint64_t db_sqlite_error_count(const struct db_sqlite *db)
{
    return (uint64_t)atomic_load(&db->errors);
}
