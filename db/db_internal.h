/* What db.c and encounters.c share: the handle and the per-thread connections. */
#ifndef TACTICS_DB_INTERNAL_H
#define TACTICS_DB_INTERNAL_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "db.h"

/* Statements each thread's connection prepares once and keeps (encounters.c). */
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

struct db {
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

void db_close_thread_conns(struct db *db);

/* Remembers sqlite_rc when it is a storage refusal (full, read-only, I/O error, cannot open);
 * other codes (busy, constraint) say nothing about the storage and are ignored. */
void db_note_failure(struct db *db, int sqlite_rc, bool at_start);

/* A write committed: the storage takes writes again. */
void db_note_write_ok(struct db *db);

#endif
