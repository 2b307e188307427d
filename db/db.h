/* db: storage for tactics, documents (an encounter's row) and events (its append-only log),
 * behind one interface with two backends: SQLite (a file path; the embedded default) and
 * PostgreSQL through libpq (a postgres:// or postgresql:// URL; for several instances on several
 * machines). Both keep every promise below. One handle per process, safe to share between
 * threads. */
#ifndef TACTICS_DB_H
#define TACTICS_DB_H

#include <stdbool.h>
#include <stdint.h>

/* Every db_ function returns DB_OK (0) or one of these negative codes. */
enum db_status {
    DB_OK = 0,
    DB_ERR_OPEN = -1,           /* the file could not be opened or created, or no connection */
    DB_ERR_MIGRATE = -2,        /* a migration failed; nothing of it was kept */
    DB_ERR_SCHEMA_TOO_NEW = -3, /* the file was written by a newer tacticsd */
    DB_ERR_NOT_READY = -4,      /* open, but not at the latest schema version */
    DB_ERR_IO = -5,             /* any other failure of the database */
    DB_ERR_NOMEM = -6,
    DB_ERR_NOT_FOUND = -7,    /* no such encounter */
    DB_ERR_CONFLICT = -8,     /* the version was not the one expected (the current one is given) */
    DB_ERR_REPLAY = -9,       /* the idempotency key was used already (its record is given) */
    DB_ERR_UNSUPPORTED = -10, /* this backend does not do that (db_listen_start on SQLite) */
    DB_PENDING = 1, /* not an error: db_encounter_append_async queued the append; it completes
                     * later */
};

struct db;

/* The schema version this build migrates to, the same on both backends. */
#define DB_SCHEMA_VERSION 4

/* Opens (creating if needed) the database at path, applies pending migrations inside one
 * transaction each, and returns the handle through *out. On error *out is NULL, nothing is
 * left open, and the file holds whatever migrations had fully committed before.
 * A path starting postgres:// or postgresql:// is a libpq URL (its parameters, and libpq's
 * environment variables PGHOST, PGUSER, PGPASSWORD... for what it leaves out); the database
 * must exist, and its tables are created by the migrations (version in tactics_schema_version,
 * taken under an advisory lock, so instances starting together migrate once). */
int db_open(const char *path, struct db **out);

/* Closes the handle; NULL is accepted. */
void db_close(struct db *db);

/* DB_OK when the database answers a query and stands at db_latest_version(). */
int db_check_ready(struct db *db);

/* The schema version stored in the database (SQLite: PRAGMA user_version; PostgreSQL: the
 * tactics_schema_version table). */
int db_schema_version(struct db *db, int *out);

/* The schema version this build migrates to. */
int db_latest_version(void);

/* Caps the database file at max_bytes (rounded down to whole pages; 0: no cap) on every
 * connection, through PRAGMA max_page_count: a write that would grow it further fails as on a
 * full disk. Call before the handle is shared between threads. */
int db_limit_size(struct db *db, uint64_t max_bytes);

/* Whether the storage takes writes, as far as the last write shows. */
struct db_write_health {
    bool failing;     /* a write failed for want of storage and none has committed since */
    bool at_start;    /* the failure was db_open's write probe */
    bool read_only;   /* SQLite opened the file read-only */
    const char *code; /* the failure's code: "SQLITE_FULL", "SQLITE_READONLY", ..., or on
                       * PostgreSQL a SQLSTATE: "08006" (no connection), "53100" (disk full),
                       * "57P01" (shutting down), "25006" (read-only) */
    const char *text; /* the English for it (static) */
    uint64_t age_s;   /* seconds since the failure */
};

void db_write_health(struct db *db, struct db_write_health *out);

/* How many database calls have failed since db_open (exported as a metric). */
uint64_t db_error_count(const struct db *db);

/* A short English text for a status code, for logs (never for HTTP bodies). */
const char *db_strerror(int status);

/* ---- encounters ----
 * Every call uses the calling thread's own connection, opened on first use and kept for the
 * life of the handle with its prepared statements, except SQLite's group commit, whose batches
 * all run on one connection of their own, whichever thread leads them. SQLite
 * (sqlite_encounters.c): WAL, synchronous=FULL, a 5 s busy timeout, foreign keys; writes run in
 * BEGIN IMMEDIATE, and appends made at once share one (db_set_group_commit). PostgreSQL (pg.c):
 * READ COMMITTED, the encounter's row locked (FOR UPDATE) before its version is compared;
 * serialization failures, deadlocks and a connection lost before COMMIT are retried; a broken
 * connection is reset on its next use. An acknowledged write is durable on both (SQLite: the WAL
 * synced; PostgreSQL: synchronous_commit=on, its default). */

#define DB_HASH_LEN 32

/* The room struct db_append_wait keeps for a backend's queued append. */
#define DB_APPEND_ITEM_BYTES 160

/* What an Idempotency-Key keeps: enough for a retry to get its first answer back (rebuilt
 * from the event it made) and write nothing. */
struct db_replay {
    unsigned char scope[DB_HASH_LEN]; /* whose key (the token's hash, or zeros) */
    const char *key;
    unsigned char request_hash[DB_HASH_LEN]; /* what was asked (method, path, body) */
    int status;
    int64_t version;       /* the event the request made */
    char encounter_id[40]; /* filled by a lookup */
};

/* How long a key is kept, in seconds; DB_REPLAY_TTL_DEFAULT (24 hours, as payment APIs keep
 * theirs) until set. An older key is never replayed, and may be used again. */
#define DB_REPLAY_TTL_DEFAULT 86400
void db_set_replay_ttl(struct db *db, int64_t seconds);

/* Looks a live key up by scope and key: DB_OK (filled) or DB_ERR_NOT_FOUND. */
int db_replay_get(struct db *db, struct db_replay *r);

struct db_encounter {
    char id[40];
    int64_t version;
    unsigned char token_hash[DB_HASH_LEN];
    char created_at[40];
    char *state_json; /* malloc'd; the caller frees it */
};

/* Creates an encounter with its first event (seq 1, version 1). replay, when given, is stored
 * in the same transaction; DB_ERR_REPLAY when its key is taken (then *replay is filled). */
int db_encounter_create(struct db *db, const char *id, const unsigned char *token_hash,
                        const char *rules_json, const char *state_json, const char *kind,
                        const char *payload_json, struct db_replay *replay);

/* Creates an encounter with its first `count` events at once (seq 1..count, version count;
 * kinds[0] is "created"), state_json the fold of them all, in one transaction: what create with
 * its combatants stores, the log the separate calls would have made. replay as above, its
 * version the last event's. */
int db_encounter_create_log(struct db *db, const char *id, const unsigned char *token_hash,
                            const char *rules_json, const char *state_json, int count,
                            const char *const *kinds, const char *const *payloads,
                            struct db_replay *replay);

int db_encounter_get(struct db *db, const char *id, struct db_encounter *out);

/* Appends event version + 1 and stores the new state, if the encounter is at `expected`;
 * DB_ERR_CONFLICT with *current set otherwise. replay as in db_encounter_create. */
int db_encounter_append(struct db *db, const char *id, int64_t expected, const char *kind,
                        const char *payload_json, const char *state_json, struct db_replay *replay,
                        int64_t *current);

/* An append that waits for its group commit without holding its thread: the caller owns w,
 * sets w->done and w->ud, and keeps w, the strings and replay alive until the append completes.
 * DB_PENDING when the append was queued behind another writer's batch: then w->done(w->ud) is
 * called exactly once, later, from the thread that committed (or failed) the batch, after the
 * commit and with no lock of the database held, and w->rc and w->current hold what
 * db_encounter_append would have returned and set. Any other return is that result, the
 * append completed (w->rc and w->current set as well), and done is never called. Only the
 * SQLite backend with group commit on ever answers DB_PENDING: a writer that finds no batch
 * running leads one at once, on its own thread, as db_encounter_append does; PostgreSQL, or
 * SQLite with group commit off, run db_encounter_append. */
struct db_append_wait {
    void (*done)(void *ud);
    void *ud;
    int rc;
    int64_t current;
    /* The backend's own: the queued append (SQLite's struct db_sqlite_append). */
    _Alignas(16) unsigned char item[DB_APPEND_ITEM_BYTES];
};
int db_encounter_append_async(struct db *db, struct db_append_wait *w, const char *id,
                              int64_t expected, const char *kind, const char *payload_json,
                              const char *state_json, struct db_replay *replay);

/* Group commit (SQLite; on by default): appends made at once by several threads of this
 * process share one transaction and one COMMIT (one sync of the WAL), each under its own
 * savepoint, so that one writer's conflict, replay or error undoes only its own event. Every
 * db_encounter_append still returns only after the transaction holding its event has committed
 * (or failed), and db_encounter_append_async tells its result only then, so an acknowledged
 * append is as durable as before. A lone writer leads at once: no wait is added. PostgreSQL groups
 * commits itself (see bench/README.md): there the setting does nothing. Call before the handle is
 * shared between threads. */
void db_set_group_commit(struct db *db, bool on);

/* What the group commit has done since db_open (zeros on PostgreSQL or with it off). */
struct db_group_stats {
    uint64_t commits; /* transactions committed or failed by a leader */
    uint64_t writes;  /* appends they held */
    uint64_t largest; /* the most appends in one of them */
    unsigned queued;  /* appends waiting for a leader right now */
};
void db_group_commit_stats(struct db *db, struct db_group_stats *out);

/* Deletes an encounter, its events and its replays, if it is at `expected`. */
int db_encounter_delete(struct db *db, const char *id, int64_t expected, int64_t *current);

/* One encounter as the list shows it. The members after version are read from the stored state
 * by the database's own JSON functions (SQLite's json_extract, PostgreSQL's jsonb), so that a
 * page never carries the states themselves (a map alone may be a megabyte): its name, round,
 * number of combatants, and the combatant whose turn it is (order[turn]) with that one's name.
 * Strings are NULL when the state has none; valid only during the callback. */
struct db_encounter_summary {
    const char *id;
    const char *created_at;
    int64_t version;
    const char *name;
    int64_t round;
    int64_t combatants;
    const char *turn_of;
    const char *turn_name;
};

/* The encounters of a token, by id after `after` (NULL: from the start), at most limit. */
typedef int (*db_encounter_fn)(void *ud, const struct db_encounter_summary *e);
int db_encounter_list(struct db *db, const unsigned char *token_hash, const char *after, int limit,
                      db_encounter_fn fn, void *ud);

/* Events of an encounter with seq in (after, upto], in order, at most limit. The callback
 * returns non-zero to stop. */
typedef int (*db_event_fn)(void *ud, int64_t seq, const char *kind, const char *payload_json,
                           const char *created_at);
int db_events(struct db *db, const char *id, int64_t after, int64_t upto, int limit, db_event_fn fn,
              void *ud);

/* A Discord channel bound to an encounter (service/discord/): the channel's id, the encounter
 * it plays, that encounter's write token (kept so that the channel's commands can write: the
 * README says so), and the game master, the Discord user who bound it. Ids are snowflakes. */
struct db_channel {
    char channel_id[24];
    char encounter_id[40];
    char token[80];
    char game_master[24];
};

/* Binds c->channel_id to its encounter, replacing any binding it had. */
int db_channel_put(struct db *db, const struct db_channel *c);

/* The binding of channel_id into *out, or DB_ERR_NOT_FOUND. */
int db_channel_get(struct db *db, const char *channel_id, struct db_channel *out);

/* Imports a whole encounter: its row and every event, in one transaction
 * (db_encounter_create_log without a replay). */
int db_encounter_import(struct db *db, const char *id, const unsigned char *token_hash,
                        const char *rules_json, const char *state_json, int count,
                        const char *const *kinds, const char *const *payloads);

/* ---- changes committed by other processes ----
 * PostgreSQL: every append and delete sends a notification (NOTIFY, on the channel
 * "tactics_events") inside its own transaction, so that it is delivered when the write commits
 * and never for a write that rolled back, to every instance listening on the same database.
 * SQLite has no such thing: there, a process learns of other processes' writes by reading. */

enum db_change {
    DB_CHANGE_APPENDED,      /* event `version` of encounter id was committed */
    DB_CHANGE_DELETED,       /* encounter id was deleted */
    DB_CHANGE_LISTENING,     /* the listener (re)connected and listens (id NULL): whatever was
                              * committed while it did not listen was not told, read it */
    DB_CHANGE_NOT_LISTENING, /* the listener lost its connection (id NULL); it reconnects */
};

/* Called on the listener's own thread, one call at a time, in commit order; must not block
 * for long (notifications queue behind it). */
typedef void (*db_change_fn)(void *ud, enum db_change what, const char *id, int64_t version);

/* Starts the listener: a thread with a connection of its own that LISTENs and calls fn for each
 * change committed by anyone (this process included), reconnecting after a pause that grows
 * from 100 ms to 2 s when the connection fails (PostgreSQL restarted). DB_OK; DB_ERR_UNSUPPORTED
 * on SQLite; DB_ERR_IO if one is running already. DB_OK does not mean connected: fn hears
 * DB_CHANGE_LISTENING when it is. */
int db_listen_start(struct db *db, db_change_fn fn, void *ud);

/* Stops the listener and waits for its thread (no call of fn after it returns); nothing when
 * none runs (NULL is accepted). db_close stops it too. */
void db_listen_stop(struct db *db);

#endif
