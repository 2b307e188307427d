/* The SQLite backend (sqlite.c, sqlite_encounters.c): its handle, its per-thread connections,
 * and the functions db.c dispatches to. Each db_sqlite_X keeps the contract of db_X in db.h. */
#ifndef TACTICS_SQLITE_INTERNAL_H
#define TACTICS_SQLITE_INTERNAL_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "db/db.h"

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
    ST_SAVEPOINT,
    ST_RELEASE,
    ST_ROLLBACK_TO,
    ST_CH_PUT,
    ST_CH_GET,
    ST_COUNT
};

struct db_conn {
    sqlite3 *conn;
    sqlite3_stmt *st[ST_COUNT];
    struct db_conn *next;
};

/* One writer's append (db_sqlite_encounter_append's arguments and results), as the group
 * commit queues it (sqlite_group.c). The strings and replay belong to the writer, which waits
 * until done is set; or, for an asynchronous append (async set; the item then lives in
 * async->item), which is told through async->done. */
struct db_sqlite_append {
    const char *id;
    int64_t expected;
    const char *kind, *payload_json, *state_json;
    struct db_replay *replay;
    int64_t current;
    int rc;
    bool done;           /* rc and current are final: the batch committed or failed */
    pthread_cond_t wake; /* signalled when done, or when the writer may lead */
    struct db_sqlite_append *next;
    struct db_append_wait *async; /* NULL: a thread waits on wake */
};

struct db_sqlite {
    sqlite3 *conn; /* migrations and readiness */
    atomic_uint_fast64_t errors;
    char *path;
    pthread_key_t key; /* this thread's struct db_conn */
    bool key_made;
    pthread_mutex_t lock; /* guards conns */
    struct db_conn *conns;
    /* The group commit leaders' connection (db_sqlite_leader_conn), one of conns: only the
     * writer that leads uses it, and leaders follow one another under group_lock. */
    struct db_conn *leader;
    _Atomic int64_t replay_ttl; /* seconds an idempotency key is kept (db_set_replay_ttl) */
    unsigned max_pages;         /* PRAGMA max_page_count of every connection; 0: SQLite's own */
    /* The last storage failure (db_write_health): when (monotonic microseconds; 0 while writes
     * succeed), its primary SQLite code, and whether it was the start-up probe. */
    atomic_uint_fast64_t write_failed_us;
    atomic_int write_failed_code;
    atomic_bool write_failed_at_start;
    /* Group commit (sqlite_group.c): appends waiting for a leader, whether one is leading, and
     * counts for db_group_commit_stats. */
    bool group_commit;
    pthread_mutex_t group_lock;
    struct db_sqlite_append *queue_head, *queue_tail;
    unsigned queued;
    bool leading;
    uint64_t group_commits, group_writes, group_largest;
    /* The committer (sqlite_group.c): the thread that leads when the queue's head is an
     * asynchronous append, which has no thread of its own waiting to lead. Started on the first
     * such append; stopped by db_sqlite_close. */
    pthread_t committer;
    bool committer_started, committer_stop;
    pthread_cond_t committer_wake;
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
                               const char *state_json, int count, const char *const *kinds,
                               const char *const *payloads, struct db_replay *replay);
int db_sqlite_encounter_get(struct db_sqlite *db, const char *id, struct db_encounter *out);
int db_sqlite_encounter_append(struct db_sqlite *db, const char *id, int64_t expected,
                               const char *kind, const char *payload_json, const char *state_json,
                               struct db_replay *replay, int64_t *current);
int db_sqlite_encounter_append_async(struct db_sqlite *db, struct db_append_wait *w, const char *id,
                                     int64_t expected, const char *kind, const char *payload_json,
                                     const char *state_json, struct db_replay *replay);
int db_sqlite_channel_put(struct db_sqlite *db, const struct db_channel *ch);
int db_sqlite_channel_get(struct db_sqlite *db, const char *channel_id, struct db_channel *out);
int db_sqlite_encounter_delete(struct db_sqlite *db, const char *id, int64_t expected,
                               int64_t *current);
int db_sqlite_encounter_list(struct db_sqlite *db, const unsigned char *token_hash,
                             const char *after, int limit, db_encounter_fn fn, void *ud);
int db_sqlite_events(struct db_sqlite *db, const char *id, int64_t after, int64_t upto, int limit,
                     db_event_fn fn, void *ud);

void db_sqlite_close_thread_conns(struct db_sqlite *db);

/* ---- shared by sqlite_encounters.c and sqlite_group.c ---- */

/* This thread's connection, opened on first use; NULL on failure (counted). */
struct db_conn *db_sqlite_conn(struct db_sqlite *db);

/* The connection every group commit batch is written on, whichever thread leads it, opened on
 * first use; NULL on failure (counted). Called only by the leader. One connection and not the
 * leader's own: SQLite empties a connection's page cache when it finds that another connection
 * wrote since its last transaction, so leaders on four threads' connections read again, a
 * batch after another's, the pages the last batch had just written (7 preads an append, 100
 * encounters on 4 threads), where one connection keeps them. */
struct db_conn *db_sqlite_leader_conn(struct db_sqlite *db);

/* Runs one of the connection's statements that take no parameters and return no rows
 * (ST_BEGIN, ST_COMMIT, ST_ROLLBACK, ST_SAVEPOINT, ST_RELEASE, ST_ROLLBACK_TO). */
int db_sqlite_exec(struct db_sqlite *db, struct db_conn *c, enum db_stmt which);

/* Inside a transaction: a's idempotency check, version check, event, state and key, leaving
 * a->current at the encounter's version (DB_OK: the new one). A failure may leave some of it
 * written: the caller rolls back (the whole transaction, or a's savepoint). */
int db_sqlite_append_in_tx(struct db_sqlite *db, struct db_conn *c, struct db_sqlite_append *a);

/* The group commit's append (sqlite_group.c): a joins the queue; the first writer to find no
 * leader leads, running every queued append under its own savepoint in one transaction and one
 * COMMIT; a returns once the transaction holding it has committed or failed. */
int db_sqlite_group_append(struct db_sqlite *db, struct db_sqlite_append *a);
/* The same for a->async's append: DB_PENDING when a joined the queue behind a leader (a->async
 * is told when its batch has committed or failed), else its result (a led, as above). */
int db_sqlite_group_append_async(struct db_sqlite *db, struct db_sqlite_append *a);
/* Stops the committer, once the queue is empty; nothing when none was started. */
void db_sqlite_group_stop(struct db_sqlite *db);
void db_sqlite_group_stats(struct db_sqlite *db, struct db_group_stats *out);

/* Remembers sqlite_rc when it is a storage refusal (full, read-only, I/O error, cannot open);
 * other codes (busy, constraint) say nothing about the storage and are ignored. */
void db_sqlite_note_failure(struct db_sqlite *db, int sqlite_rc, bool at_start);

/* A write committed: the storage takes writes again. */
void db_sqlite_note_write_ok(struct db_sqlite *db);

#endif
