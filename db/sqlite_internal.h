/* The SQLite backend (sqlite.c, sqlite_encounters.c): its handle, its per-thread connections,
 * and the functions db.c dispatches to. Each db_sqlite_X keeps the contract of db_X in db.h. */
#ifndef TACTICS_SQLITE_INTERNAL_H
#define TACTICS_SQLITE_INTERNAL_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "db.h"

/* Statements each thread's connection prepares once and keeps (sqlite_encounters.c). */
enum db_stmt {
    ST_BEGIN,
    ST_COMMIT,
    ST_ROLLBACK,
    ST_ENC_INSERT,
    ST_ENC_GET,
    ST_ENC_VERSION,
    ST_ENC_UPDATE,
    ST_ENC_DELETE,
    ST_ENC_LIST,
    ST_EV_INSERT,
    ST_EV_PAGE,
    ST_EV_DELETE,
    ST_IDEM_GET,
    ST_IDEM_INSERT,
    ST_IDEM_DELETE,
    ST_IDEM_EXPIRE,
    ST_COUNT
};

struct db_conn {
    sqlite3 *conn;
    sqlite3_stmt *st[ST_COUNT];
    struct db_conn *next;
};

struct db_sqlite {
    sqlite3 *conn; /* migrations and readiness */
    atomic_uint_fast64_t errors;
    char *path;
    pthread_key_t key; /* this thread's struct db_conn */
    bool key_made;
    pthread_mutex_t lock; /* guards conns */
    struct db_conn *conns;
    _Atomic int64_t replay_ttl; /* seconds an idempotency key is kept (db_set_replay_ttl) */
    unsigned max_pages;         /* PRAGMA max_page_count of every connection; 0: SQLite's own */
    /* The last storage failure (db_write_health): when (monotonic microseconds; 0 while writes
     * succeed), its primary SQLite code, and whether it was the start-up probe. */
    atomic_uint_fast64_t write_failed_us;
    atomic_int write_failed_code;
    atomic_bool write_failed_at_start;
};

int db_sqlite_open(const char *path, struct db_sqlite **out);
void db_sqlite_close(struct db_sqlite *db);
int db_sqlite_check_ready(struct db_sqlite *db);
int db_sqlite_schema_version(struct db_sqlite *db, int *out);
int db_sqlite_limit_size(struct db_sqlite *db, uint64_t max_bytes);
void db_sqlite_write_health(struct db_sqlite *db, struct db_write_health *out);
uint64_t db_sqlite_error_count(const struct db_sqlite *db);
void db_sqlite_set_replay_ttl(struct db_sqlite *db, int64_t seconds);
int db_sqlite_replay_get(struct db_sqlite *db, struct db_replay *r);
int db_sqlite_encounter_create(struct db_sqlite *db, const char *id,
                               const unsigned char *token_hash, const char *rules_json,
                               const char *state_json, const char *kind, const char *payload_json,
                               struct db_replay *replay);
int db_sqlite_encounter_get(struct db_sqlite *db, const char *id, struct db_encounter *out);
int db_sqlite_encounter_append(struct db_sqlite *db, const char *id, int64_t expected,
                               const char *kind, const char *payload_json, const char *state_json,
                               struct db_replay *replay, int64_t *current);
int db_sqlite_encounter_delete(struct db_sqlite *db, const char *id, int64_t expected,
                               int64_t *current);
int db_sqlite_encounter_list(struct db_sqlite *db, const unsigned char *token_hash,
                             const char *after, int limit, db_encounter_fn fn, void *ud);
int db_sqlite_events(struct db_sqlite *db, const char *id, int64_t after, int64_t upto, int limit,
                     db_event_fn fn, void *ud);
int db_sqlite_encounter_import(struct db_sqlite *db, const char *id,
                               const unsigned char *token_hash, const char *rules_json,
                               const char *state_json, int count, const char *const *kinds,
                               const char *const *payloads);

void db_sqlite_close_thread_conns(struct db_sqlite *db);

/* Remembers sqlite_rc when it is a storage refusal (full, read-only, I/O error, cannot open);
 * other codes (busy, constraint) say nothing about the storage and are ignored. */
void db_sqlite_note_failure(struct db_sqlite *db, int sqlite_rc, bool at_start);

/* A write committed: the storage takes writes again. */
void db_sqlite_note_write_ok(struct db_sqlite *db);

#endif
