/* Encounters and their append-only event log. SQL only through bound parameters. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/sqlite/internal.h"

static const char *const sql[ST_COUNT] = {
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_ENC_INSERT] = "INSERT INTO encounters (id, created_at, rules_json, version, token_hash, "
                      "state_json) VALUES (?1, strftime('%Y-%m-%dT%H:%M:%fZ','now'), ?2, ?3, ?4, "
                      "?5)",
    [ST_ENC_GET] = "SELECT version, token_hash, created_at, state_json FROM encounters WHERE "
                   "id = ?1",
    [ST_ENC_VERSION] = "SELECT version FROM encounters WHERE id = ?1",
    [ST_ENC_UPDATE] = "UPDATE encounters SET version = ?2, state_json = ?3 WHERE id = ?1",
    [ST_ENC_DELETE] = "DELETE FROM encounters WHERE id = ?1",
    [ST_ENC_LIST] =
        "SELECT id, created_at, version, json_extract(state_json, '$.name'), "
        "json_extract(state_json, '$.round'), json_array_length(state_json, '$.combatants'), "
        "turn_of, (SELECT json_extract(c.value, '$.name') FROM json_each(state_json, "
        "'$.combatants') c WHERE json_extract(c.value, '$.id') = turn_of) FROM (SELECT id, "
        "created_at, version, state_json, json_extract(state_json, '$.order[' || "
        "json_extract(state_json, '$.turn') || ']') AS turn_of FROM encounters WHERE token_hash "
        "= ?1 AND id > ?2 ORDER BY id LIMIT ?3)",
    [ST_EV_INSERT] = "INSERT INTO events (encounter_id, seq, kind, payload_json, created_at) "
                     "VALUES (?1, ?2, ?3, ?4, strftime('%Y-%m-%dT%H:%M:%fZ','now'))",
    [ST_EV_PAGE] = "SELECT seq, kind, payload_json, created_at FROM events WHERE encounter_id = "
                   "?1 AND seq > ?2 AND seq <= ?3 ORDER BY seq LIMIT ?4",
    [ST_EV_DELETE] = "DELETE FROM events WHERE encounter_id = ?1",
    /* A key older than the period (?3 seconds) is as good as gone: never replayed, and
     * replaced when used again (INSERT OR REPLACE), so it needs no sweep to be reusable. */
    [ST_IDEM_GET] = "SELECT request_hash, status, version, encounter_id FROM idempotency_keys "
                    "WHERE scope = ?1 AND key = ?2 AND created_at > unixepoch() - ?3",
    [ST_IDEM_INSERT] = "INSERT OR REPLACE INTO idempotency_keys (scope, key, request_hash, status, "
                       "encounter_id, version, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
                       "unixepoch())",
    [ST_IDEM_DELETE] = "DELETE FROM idempotency_keys WHERE encounter_id = ?1",
    /* Each keyed write sweeps a few expired keys, so the table holds about one period's keys
     * without a background job. */
    [ST_IDEM_EXPIRE] = "DELETE FROM idempotency_keys WHERE rowid IN (SELECT rowid FROM "
                       "idempotency_keys WHERE created_at <= unixepoch() - ?1 LIMIT 8)",
    /* One writer's part of a group commit's transaction (sqlite_group.c). */
    [ST_SAVEPOINT] = "SAVEPOINT w",
    [ST_RELEASE] = "RELEASE w",
    [ST_ROLLBACK_TO] = "ROLLBACK TO w",
    [ST_CH_PUT] = "INSERT OR REPLACE INTO discord_channels (channel_id, encounter_id, token, "
                  "game_master, bound_at) VALUES (?1, ?2, ?3, ?4, "
                  "strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
    [ST_CH_GET] = "SELECT encounter_id, token, game_master FROM discord_channels WHERE "
                  "channel_id = ?1",
};

static void conn_close(struct db_conn *c)
{
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(c->st[i]);
    sqlite3_close(c->conn);
    free(c);
}

void db_sqlite_close_thread_conns(struct db_sqlite *db)
{
    pthread_mutex_lock(&db->lock);
    struct db_conn *c = db->conns;
    db->conns = NULL;
    db->leader = NULL;
    pthread_mutex_unlock(&db->lock);
    while (c != NULL) {
        struct db_conn *next = c->next;
        conn_close(c);
        c = next;
    }
}

/* A new connection on db's file, with the service's pragmas and every statement prepared, on
 * db's list of connections (closed with it). */
static struct db_conn *conn_open(struct db_sqlite *db)
{
    struct db_conn *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(db->path, &c->conn, flags, NULL) != SQLITE_OK)
        goto fail;
    sqlite3_extended_result_codes(c->conn, 1);
    sqlite3_busy_timeout(c->conn, 5000);
    /* synchronous=FULL: an acknowledged commit survives the process being killed, and in WAL
     * mode a power loss too (the WAL is synced on every commit). */
    if (sqlite3_exec(c->conn,
                     "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON",
                     NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    if (db->max_pages > 0) {
        char pragma[64];
        sqlite3_snprintf((int)sizeof pragma, pragma, "PRAGMA max_page_count = %u", db->max_pages);
        if (sqlite3_exec(c->conn, pragma, NULL, NULL, NULL) != SQLITE_OK)
            goto fail;
    }
    for (int i = 0; i < ST_COUNT; i++)
        if (sqlite3_prepare_v3(c->conn, sql[i], -1, SQLITE_PREPARE_PERSISTENT, &c->st[i], NULL) !=
            SQLITE_OK)
            goto fail;
    pthread_mutex_lock(&db->lock);
    c->next = db->conns;
    db->conns = c;
    pthread_mutex_unlock(&db->lock);
    return c;
fail:
    atomic_fetch_add(&db->errors, 1);
    db_sqlite_note_failure(db, sqlite3_errcode(c->conn), false);
    conn_close(c);
    return NULL;
}

/* This thread's connection, opened on first use. */
struct db_conn *db_sqlite_conn(struct db_sqlite *db)
{
    struct db_conn *c = pthread_getspecific(db->key);
    if (c == NULL && (c = conn_open(db)) != NULL)
        pthread_setspecific(db->key, c);
    return c;
}

struct db_conn *db_sqlite_leader_conn(struct db_sqlite *db)
{
    assert(db->leading); /* read by its only writer: the leader */
    if (db->leader == NULL)
        db->leader = conn_open(db);
    return db->leader;
}

static sqlite3_stmt *stmt(struct db_conn *c, enum db_stmt i)
{
    sqlite3_reset(c->st[i]);
    sqlite3_clear_bindings(c->st[i]);
    return c->st[i];
}

/* Counts a failed SQLite call and, when it says the storage refuses writes, remembers it for
 * db_write_health. */
static int fail(struct db_sqlite *db, int sqlite_rc)
{
    atomic_fetch_add(&db->errors, 1);
    db_sqlite_note_failure(db, sqlite_rc, false);
    return DB_ERR_IO;
}

/* Runs a statement that returns no rows. */
static int run(struct db_sqlite *db, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? DB_OK : fail(db, rc);
}

/* Steps a query of at most one row: DB_OK with the row to read (the caller resets st), or
 * DB_ERR_NOT_FOUND / an error with st already reset. */
static int step_row(struct db_sqlite *db, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        return DB_OK;
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? DB_ERR_NOT_FOUND : fail(db, rc);
}

static int begin(struct db_sqlite *db, struct db_conn *c)
{
    return run(db, stmt(c, ST_BEGIN));
}

static int commit(struct db_sqlite *db, struct db_conn *c)
{
    int rc = run(db, stmt(c, ST_COMMIT));
    if (rc == DB_OK)
        db_sqlite_note_write_ok(db);
    return rc;
}

int db_sqlite_exec(struct db_sqlite *db, struct db_conn *c, enum db_stmt which)
{
    return which == ST_COMMIT ? commit(db, c) : run(db, stmt(c, which));
}

static int rollback(struct db_sqlite *db, struct db_conn *c, int rc)
{
    sqlite3_step(stmt(c, ST_ROLLBACK));
    sqlite3_reset(c->st[ST_ROLLBACK]);
    (void)db;
    return rc;
}

/* Ends a write transaction: commits, or rolls back when the commit fails. */
static int commit_or_rollback(struct db_sqlite *db, struct db_conn *c)
{
    int rc = commit(db, c);
    return rc == DB_OK ? DB_OK : rollback(db, c, rc);
}

/* The connection of this thread with a write transaction begun on it, or NULL with *rc the
 * error. */
static struct db_conn *begin_write(struct db_sqlite *db, int *rc)
{
    struct db_conn *c = db_sqlite_conn(db);
    if (c == NULL) {
        *rc = DB_ERR_IO;
        return NULL;
    }
    *rc = begin(db, c);
    return *rc == DB_OK ? c : NULL;
}

/* The one row that statement `which` finds for key (bound as its first parameter), to read and
 * then reset; or NULL with *rc DB_ERR_NOT_FOUND or the error. */
static sqlite3_stmt *row_by_key(struct db_sqlite *db, enum db_stmt which, const char *key, int *rc)
{
    assert(key != NULL);
    struct db_conn *c = db_sqlite_conn(db);
    if (c == NULL) {
        *rc = DB_ERR_IO;
        return NULL;
    }
    sqlite3_stmt *st = stmt(c, which);
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    *rc = step_row(db, st);
    return *rc == DB_OK ? st : NULL;
}

static int replay_lookup(struct db_sqlite *db, struct db_conn *c, struct db_replay *r)
{
    sqlite3_stmt *st = stmt(c, ST_IDEM_GET);
    sqlite3_bind_blob(st, 1, r->scope, DB_HASH_LEN, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, r->key, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, atomic_load(&db->replay_ttl));
    int rc = step_row(db, st);
    if (rc != DB_OK)
        return rc;
    const void *h = sqlite3_column_blob(st, 0);
    if (h != NULL && sqlite3_column_bytes(st, 0) == DB_HASH_LEN)
        memcpy(r->request_hash, h, DB_HASH_LEN);
    r->status = sqlite3_column_int(st, 1);
    r->version = sqlite3_column_int64(st, 2);
    const char *id = (const char *)sqlite3_column_text(st, 3);
    snprintf(r->encounter_id, sizeof r->encounter_id, "%s", id ? id : "");
    sqlite3_reset(st);
    return DB_OK;
}

int db_sqlite_replay_get(struct db_sqlite *db, struct db_replay *r)
{
    struct db_conn *c = db_sqlite_conn(db);
    return c == NULL ? DB_ERR_IO : replay_lookup(db, c, r);
}

static int replay_store(struct db_sqlite *db, struct db_conn *c, const struct db_replay *r,
                        const char *id)
{
    sqlite3_stmt *st = stmt(c, ST_IDEM_EXPIRE);
    sqlite3_bind_int64(st, 1, atomic_load(&db->replay_ttl));
    int rc = run(db, st);
    if (rc != DB_OK)
        return rc;
    st = stmt(c, ST_IDEM_INSERT);
    sqlite3_bind_blob(st, 1, r->scope, DB_HASH_LEN, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, r->key, -1, SQLITE_STATIC);
    sqlite3_bind_blob(st, 3, r->request_hash, DB_HASH_LEN, SQLITE_STATIC);
    sqlite3_bind_int(st, 4, r->status);
    sqlite3_bind_text(st, 5, id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, r->version);
    return run(db, st);
}

void db_sqlite_set_replay_ttl(struct db_sqlite *db, int64_t seconds)
{
    atomic_store(&db->replay_ttl, seconds);
}

/* Inside a transaction: DB_ERR_REPLAY (r filled) when the key is taken. */
static int replay_check(struct db_sqlite *db, struct db_conn *c, struct db_replay *r)
{
    if (r == NULL)
        return DB_OK;
    struct db_replay found = *r;
    int rc = replay_lookup(db, c, &found);
    if (rc == DB_ERR_NOT_FOUND)
        return DB_OK;
    if (rc != DB_OK)
        return rc;
    *r = found;
    return DB_ERR_REPLAY;
}

static int insert_event(struct db_sqlite *db, struct db_conn *c, const char *id, int64_t seq,
                        const char *kind, const char *payload)
{
    sqlite3_stmt *st = stmt(c, ST_EV_INSERT);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, seq);
    sqlite3_bind_text(st, 3, kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, payload, -1, SQLITE_STATIC);
    return run(db, st);
}

static int insert_encounter(struct db_sqlite *db, struct db_conn *c, const char *id,
                            const unsigned char *token_hash, const char *rules_json,
                            const char *state_json, int64_t version)
{
    sqlite3_stmt *st = stmt(c, ST_ENC_INSERT);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, rules_json, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, version);
    sqlite3_bind_blob(st, 4, token_hash, DB_HASH_LEN, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, state_json, -1, SQLITE_STATIC);
    return run(db, st);
}

int db_sqlite_encounter_create(struct db_sqlite *db, const char *id,
                               const unsigned char *token_hash, const char *rules_json,
                               const char *state_json, int count, const char *const *kinds,
                               const char *const *payloads, struct db_replay *replay)
{
    int rc;
    struct db_conn *c = begin_write(db, &rc);
    if (c == NULL)
        return rc;
    if ((rc = replay_check(db, c, replay)) != DB_OK)
        return rollback(db, c, rc);
    if ((rc = insert_encounter(db, c, id, token_hash, rules_json, state_json, count)) != DB_OK)
        return rollback(db, c, rc);
    for (int i = 0; i < count; i++)
        if ((rc = insert_event(db, c, id, i + 1, kinds[i], payloads[i])) != DB_OK)
            return rollback(db, c, rc);
    if (replay != NULL && (rc = replay_store(db, c, replay, id)) != DB_OK)
        return rollback(db, c, rc);
    return commit_or_rollback(db, c);
}

int db_sqlite_encounter_get(struct db_sqlite *db, const char *id, struct db_encounter *out)
{
    int rc;
    sqlite3_stmt *st = row_by_key(db, ST_ENC_GET, id, &rc);
    if (st == NULL)
        return rc;
    memset(out, 0, sizeof *out);
    snprintf(out->id, sizeof out->id, "%s", id);
    out->version = sqlite3_column_int64(st, 0);
    const void *h = sqlite3_column_blob(st, 1);
    if (h != NULL && sqlite3_column_bytes(st, 1) == DB_HASH_LEN)
        memcpy(out->token_hash, h, DB_HASH_LEN);
    const char *created = (const char *)sqlite3_column_text(st, 2);
    snprintf(out->created_at, sizeof out->created_at, "%s", created ? created : "");
    const char *state = (const char *)sqlite3_column_text(st, 3);
    out->state_json = strdup(state ? state : "{}");
    sqlite3_reset(st);
    return out->state_json ? DB_OK : DB_ERR_NOMEM;
}

/* Inside a transaction: the encounter's version, DB_ERR_NOT_FOUND, or DB_ERR_CONFLICT. */
static int check_version(struct db_sqlite *db, struct db_conn *c, const char *id, int64_t expected,
                         int64_t *current)
{
    sqlite3_stmt *st = stmt(c, ST_ENC_VERSION);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int rc = step_row(db, st);
    if (rc != DB_OK)
        return rc;
    *current = sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    return *current == expected ? DB_OK : DB_ERR_CONFLICT;
}

int db_sqlite_append_in_tx(struct db_sqlite *db, struct db_conn *c, struct db_sqlite_append *a)
{
    int rc;
    if ((rc = replay_check(db, c, a->replay)) != DB_OK ||
        (rc = check_version(db, c, a->id, a->expected, &a->current)) != DB_OK)
        return rc;
    sqlite3_stmt *up = stmt(c, ST_ENC_UPDATE);
    sqlite3_bind_text(up, 1, a->id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(up, 2, a->expected + 1);
    sqlite3_bind_text(up, 3, a->state_json, -1, SQLITE_STATIC);
    if ((rc = insert_event(db, c, a->id, a->expected + 1, a->kind, a->payload_json)) != DB_OK ||
        (rc = run(db, up)) != DB_OK ||
        (a->replay != NULL && (rc = replay_store(db, c, a->replay, a->id)) != DB_OK))
        return rc;
    a->current = a->expected + 1;
    return DB_OK;
}

int db_sqlite_encounter_append(struct db_sqlite *db, const char *id, int64_t expected,
                               const char *kind, const char *payload_json, const char *state_json,
                               struct db_replay *replay, int64_t *current)
{
    struct db_sqlite_append a = {.id = id,
                                 .expected = expected,
                                 .kind = kind,
                                 .payload_json = payload_json,
                                 .state_json = state_json,
                                 .replay = replay,
                                 .current = 0};
    int rc;
    if (db->group_commit) {
        rc = db_sqlite_group_append(db, &a);
    } else {
        /* One transaction, one COMMIT, per append. */
        struct db_conn *c = begin_write(db, &rc);
        if (c == NULL)
            return rc;
        rc = db_sqlite_append_in_tx(db, c, &a);
        rc = rc == DB_OK ? commit_or_rollback(db, c) : rollback(db, c, rc);
    }
    if (rc == DB_OK || rc == DB_ERR_CONFLICT)
        *current = a.current;
    return rc;
}

int db_sqlite_encounter_append_async(struct db_sqlite *db, struct db_append_wait *w, const char *id,
                                     int64_t expected, const char *kind, const char *payload_json,
                                     const char *state_json, struct db_replay *replay)
{
    if (!db->group_commit) {
        w->rc = db_sqlite_encounter_append(db, id, expected, kind, payload_json, state_json, replay,
                                           &w->current);
        return w->rc;
    }
    static_assert(sizeof(struct db_sqlite_append) <= sizeof w->item,
                  "DB_APPEND_ITEM_BYTES holds SQLite's queued append");
    struct db_sqlite_append *a = (struct db_sqlite_append *)(void *)w->item;
    *a = (struct db_sqlite_append){.id = id,
                                   .expected = expected,
                                   .kind = kind,
                                   .payload_json = payload_json,
                                   .state_json = state_json,
                                   .replay = replay,
                                   .async = w};
    return db_sqlite_group_append_async(db, a);
}

int db_sqlite_encounter_delete(struct db_sqlite *db, const char *id, int64_t expected,
                               int64_t *current)
{
    int rc;
    struct db_conn *c = begin_write(db, &rc);
    if (c == NULL)
        return rc;
    if ((rc = check_version(db, c, id, expected, current)) != DB_OK)
        return rollback(db, c, rc);
    enum db_stmt order[] = {ST_EV_DELETE, ST_IDEM_DELETE, ST_ENC_DELETE};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        sqlite3_stmt *st = stmt(c, order[i]);
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        if ((rc = run(db, st)) != DB_OK)
            return rollback(db, c, rc);
    }
    return commit_or_rollback(db, c);
}

int db_sqlite_channel_put(struct db_sqlite *db, const struct db_channel *ch)
{
    int rc;
    struct db_conn *c = begin_write(db, &rc);
    if (c == NULL)
        return rc;
    sqlite3_stmt *st = stmt(c, ST_CH_PUT);
    sqlite3_bind_text(st, 1, ch->channel_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, ch->encounter_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, ch->token, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, ch->game_master, -1, SQLITE_STATIC);
    if ((rc = run(db, st)) != DB_OK)
        return rollback(db, c, rc);
    return commit_or_rollback(db, c);
}

int db_sqlite_channel_get(struct db_sqlite *db, const char *channel_id, struct db_channel *out)
{
    int rc;
    sqlite3_stmt *st = row_by_key(db, ST_CH_GET, channel_id, &rc);
    if (st == NULL)
        return rc;
    memset(out, 0, sizeof *out);
    snprintf(out->channel_id, sizeof out->channel_id, "%s", channel_id);
    const char *v[3];
    for (int i = 0; i < 3; i++) {
        v[i] = (const char *)sqlite3_column_text(st, i);
        v[i] = v[i] ? v[i] : "";
    }
    snprintf(out->encounter_id, sizeof out->encounter_id, "%s", v[0]);
    snprintf(out->token, sizeof out->token, "%s", v[1]);
    snprintf(out->game_master, sizeof out->game_master, "%s", v[2]);
    sqlite3_reset(st);
    return DB_OK;
}

int db_sqlite_encounter_list(struct db_sqlite *db, const unsigned char *token_hash,
                             const char *after, int limit, db_encounter_fn fn, void *ud)
{
    struct db_conn *c = db_sqlite_conn(db);
    if (c == NULL)
        return DB_ERR_IO;
    sqlite3_stmt *st = stmt(c, ST_ENC_LIST);
    sqlite3_bind_blob(st, 1, token_hash, DB_HASH_LEN, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, after ? after : "", -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, limit);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *id = (const char *)sqlite3_column_text(st, 0);
        const char *created = (const char *)sqlite3_column_text(st, 1);
        struct db_encounter_summary s = {.id = id ? id : "",
                                         .created_at = created ? created : "",
                                         .version = sqlite3_column_int64(st, 2),
                                         .name = (const char *)sqlite3_column_text(st, 3),
                                         .round = sqlite3_column_int64(st, 4),
                                         .combatants = sqlite3_column_int64(st, 5),
                                         .turn_of = (const char *)sqlite3_column_text(st, 6),
                                         .turn_name = (const char *)sqlite3_column_text(st, 7)};
        if (fn(ud, &s) != 0)
            break;
    }
    sqlite3_reset(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? DB_OK : fail(db, rc);
}

int db_sqlite_events(struct db_sqlite *db, const char *id, int64_t after, int64_t upto, int limit,
                     db_event_fn fn, void *ud)
{
    struct db_conn *c = db_sqlite_conn(db);
    if (c == NULL)
        return DB_ERR_IO;
    sqlite3_stmt *st = stmt(c, ST_EV_PAGE);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, after);
    sqlite3_bind_int64(st, 3, upto);
    sqlite3_bind_int(st, 4, limit);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *kind = (const char *)sqlite3_column_text(st, 1);
        const char *payload = (const char *)sqlite3_column_text(st, 2);
        const char *created = (const char *)sqlite3_column_text(st, 3);
        if (fn(ud, sqlite3_column_int64(st, 0), kind ? kind : "", payload ? payload : "{}",
               created ? created : "") != 0)
            break;
    }
    sqlite3_reset(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? DB_OK : fail(db, rc);
}
