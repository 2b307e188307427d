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
};

void db_close_thread_conns(struct db *db);

#endif
