/* The PostgreSQL backend, through libpq: the same contract as the SQLite one (db.h), for
 * several tacticsd instances on several machines sharing one database.
 *
 * Connections: one per worker thread (opened on first use, its statements prepared once), and
 * one for migrations and readiness guarded by a mutex. A connection found broken (PostgreSQL
 * restarted, the network dropped) is reset on its next use, so the service comes back by itself.
 *
 * Transactions run at READ COMMITTED, the default. A write locks the encounter's row
 * (SELECT ... FOR UPDATE) before it reads the version, so two writers of one encounter are
 * serialised by the row lock and the second sees the first's version: a stale If-Match is a
 * conflict, never a lost or doubled event (the events' primary key (encounter_id, seq) is the
 * last guard). A transaction that fails with a serialization failure or a deadlock, that finds
 * its idempotency key taken by a concurrent request, or whose connection broke before COMMIT
 * was sent (so nothing was committed), is run again from the start, a few times at most.
 * A connection that breaks after COMMIT was sent leaves the outcome unknown: that one is an
 * error (503), and a client retrying with its Idempotency-Key learns which it was.
 *
 * Durability: COMMIT returns once the WAL is flushed, with PostgreSQL's default
 * synchronous_commit=on (this backend never changes it), so an acknowledged write survives a
 * crash of tacticsd, of PostgreSQL and of the machine. */
#include <assert.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/pg/private.h"

/* Internal only: the transaction should be run again from the start. */
#define PG_RETRY     (-100)
#define MAX_ATTEMPTS 8

struct pg_conn {
    PGconn *conn;
    bool prepared;
    bool broken; /* a call found the connection lost: reset it before the next */
    struct pg_conn *next;
};

/* What the last storage failure was (db_write_health). */
enum pg_failure {
    PGF_NONE,
    PGF_CONNECTION, /* no connection, or it broke */
    PGF_SHUTDOWN,   /* PostgreSQL is shutting down or starting up (57P01-57P03) */
    PGF_FULL,       /* disk full (53100) */
    PGF_RESOURCES,  /* other insufficient resources (class 53) */
    PGF_READ_ONLY,  /* a read-only transaction: a standby, or default_transaction_read_only */
};

struct db_pg {
    char *conninfo;
    pthread_mutex_t admin_lock; /* guards admin */
    PGconn *admin;              /* migrations and readiness */
    bool admin_broken;          /* its last query found the connection lost */
    pthread_key_t key;          /* this thread's struct pg_conn */
    bool key_made;
    pthread_mutex_t lock; /* guards conns */
    struct pg_conn *conns;
    atomic_uint_fast64_t errors;
    _Atomic int64_t replay_ttl;
    atomic_uint_fast64_t write_failed_us;
    atomic_int write_failed_kind;
    atomic_bool write_failed_at_start;
};

/* ---- connections ---- */

/* Notices (the WARNING a backend sends as PostgreSQL shuts down, NOTICEs of migrations) are not
 * errors, and stderr holds tacticsd's JSON log: they are dropped. */
static void ignore_notice(void *arg, const char *message)
{
    (void)arg, (void)message;
}

static PGconn *connect_to(const char *conninfo)
{
    /* Keywords are read in order and the URL (dbname, expanded) comes last, so anything it
     * says wins over these defaults. */
    const char *const keys[] = {"connect_timeout", "application_name", "dbname", NULL};
    const char *const values[] = {"5", "tacticsd", conninfo, NULL};
    PGconn *c = PQconnectdbParams(keys, values, 1);
    if (c != NULL)
        PQsetNoticeProcessor(c, ignore_notice, NULL);
    return c;
}

static uint64_t monotonic_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void note_failure(struct db_pg *db, enum pg_failure kind, bool at_start)
{
    if (kind == PGF_NONE)
        return;
    atomic_store(&db->write_failed_kind, (int)kind);
    atomic_store(&db->write_failed_at_start, at_start);
    uint64_t now = monotonic_us();
    atomic_store(&db->write_failed_us, now ? now : 1);
}

static void note_ok(struct db_pg *db)
{
    if (atomic_load(&db->write_failed_us) != 0)
        atomic_store(&db->write_failed_us, 0);
}

/* Whether a failed result means the connection is gone. libpq does not always say so through
 * PQstatus (a send that failed after the server closed the socket leaves it CONNECTION_OK), so
 * an answer with no SQLSTATE (libpq's own error), a connection exception (class 08) or the
 * server terminating the session (57P01-57P03) count too. */
static bool conn_lost(PGconn *c, const PGresult *res)
{
    if (c == NULL || PQstatus(c) != CONNECTION_OK)
        return true;
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    return state == NULL || strncmp(state, "08", 2) == 0 || strcmp(state, "57P01") == 0 ||
           strcmp(state, "57P02") == 0 || strcmp(state, "57P03") == 0;
}

/* What a failed result says about the storage, from its SQLSTATE and the connection. */
static enum pg_failure failure_of(PGconn *c, const PGresult *res)
{
    const char *state = res && c != NULL ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    if (state != NULL && strncmp(state, "57P0", 4) == 0)
        return PGF_SHUTDOWN;
    if (conn_lost(c, res))
        return PGF_CONNECTION;
    if (strcmp(state, "53100") == 0)
        return PGF_FULL;
    if (strncmp(state, "53", 2) == 0)
        return PGF_RESOURCES;
    if (strcmp(state, "25006") == 0)
        return PGF_READ_ONLY;
    return PGF_NONE;
}

/* Counts a failed call and remembers it when it says the storage refuses writes. */
static int fail(struct db_pg *db, PGconn *c, const PGresult *res)
{
    atomic_fetch_add(&db->errors, 1);
    note_failure(db, failure_of(c, res), false);
    return DB_ERR_IO;
}

static void conn_close(struct pg_conn *c)
{
    PQfinish(c->conn);
    free(c);
}

static bool prepare_all(struct pg_conn *c)
{
    for (int i = 0; i < Q_COUNT; i++) {
        char name[16];
        snprintf(name, sizeof name, "q%d", i);
        PGresult *res = PQprepare(c->conn, name, pg_sql[i], 0, NULL);
        bool ok = PQresultStatus(res) == PGRES_COMMAND_OK;
        PQclear(res);
        if (!ok)
            return false;
    }
    c->prepared = true;
    return true;
}

/* This thread's connection, opened on first use, reset when it was found broken, with its
 * statements prepared; NULL (the failure noted) when PostgreSQL cannot be reached. */
static struct pg_conn *conn_of(struct db_pg *db)
{
    struct pg_conn *c = pthread_getspecific(db->key);
    if (c == NULL) {
        c = calloc(1, sizeof *c);
        if (c == NULL)
            return NULL;
        c->conn = connect_to(db->conninfo);
        if (c->conn == NULL) {
            free(c);
            return NULL;
        }
        pthread_setspecific(db->key, c);
        pthread_mutex_lock(&db->lock);
        c->next = db->conns;
        db->conns = c;
        pthread_mutex_unlock(&db->lock);
    } else if (c->broken || PQstatus(c->conn) != CONNECTION_OK) {
        c->prepared = false;
        PQreset(c->conn);
    }
    c->broken = false;
    if (PQstatus(c->conn) != CONNECTION_OK) {
        c->prepared = false;
        fail(db, c->conn, NULL);
        return NULL;
    }
    if (!c->prepared && !prepare_all(c)) {
        fail(db, c->conn, NULL);
        return NULL;
    }
    return c;
}

/* ---- parameters and results ---- */

#define MAX_PARAMS 8

struct params {
    int n;
    const char *values[MAX_PARAMS];
    int lengths[MAX_PARAMS];
    int formats[MAX_PARAMS];
    char numbers[MAX_PARAMS][24];
};

static void p_text(struct params *p, const char *s)
{
    p->values[p->n] = s;
    p->lengths[p->n] = 0;
    p->formats[p->n] = 0;
    p->n++;
}

static void p_int(struct params *p, int64_t x)
{
    snprintf(p->numbers[p->n], sizeof p->numbers[p->n], "%lld", (long long)x);
    p_text(p, p->numbers[p->n]);
}

/* bytea in binary format: the bytes themselves, no escaping. */
static void p_hash(struct params *p, const unsigned char *h)
{
    p->values[p->n] = (const char *)h;
    p->lengths[p->n] = DB_HASH_LEN;
    p->formats[p->n] = 1;
    p->n++;
}

static PGresult *run_query(struct pg_conn *c, enum pg_query q, const struct params *p)
{
    char name[16];
    snprintf(name, sizeof name, "q%d", (int)q);
    return PQexecPrepared(c->conn, name, p->n, p->values, p->lengths, p->formats, 0);
}

static bool retryable(const PGresult *res)
{
    const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
    return state != NULL && (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0);
}

/* Inside a transaction, a statement that failed (res, cleared here): PG_RETRY for a
 * serialization failure, a deadlock or a connection broken mid-transaction, DB_ERR_IO
 * otherwise; the failure is logged and counted. */
static int tx_failed(struct db_pg *db, struct pg_conn *c, PGresult *res)
{
    assert(c != NULL && c->conn != NULL);
    c->broken = conn_lost(c->conn, res);
    int rc = retryable(res) || c->broken ? PG_RETRY : DB_ERR_IO;
    fail(db, c->conn, res);
    PQclear(res);
    return rc;
}

/* Inside a transaction: runs a statement. DB_OK with *out (the caller clears it) when given,
 * PG_RETRY for a serialization failure, a deadlock or a connection broken mid-transaction
 * (nothing of it was committed), DB_ERR_IO otherwise. */
static int tx_query(struct db_pg *db, struct pg_conn *c, enum pg_query q, const struct params *p,
                    PGresult **out)
{
    PGresult *res = run_query(c, q, p);
    ExecStatusType st = PQresultStatus(res);
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
        if (out != NULL)
            *out = res;
        else
            PQclear(res);
        return DB_OK;
    }
    return tx_failed(db, c, res);
}

/* Outside a transaction: a read, tried once more on a fresh connection when the first one was
 * found broken. DB_OK with *out, or DB_ERR_IO. */
static int read_query(struct db_pg *db, enum pg_query q, const struct params *p, PGresult **out)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        struct pg_conn *c = conn_of(db);
        if (c == NULL)
            return DB_ERR_IO;
        PGresult *res = run_query(c, q, p);
        if (PQresultStatus(res) == PGRES_TUPLES_OK) {
            *out = res;
            return DB_OK;
        }
        c->broken = conn_lost(c->conn, res);
        fail(db, c->conn, res);
        PQclear(res);
        if (!c->broken)
            break;
    }
    return DB_ERR_IO;
}

/* A bytea column in text format (\x followed by hex) into a DB_HASH_LEN buffer. */
static void copy_hash(const char *text, unsigned char *out)
{
    memset(out, 0, DB_HASH_LEN);
    if (text == NULL || text[0] != '\\' || text[1] != 'x' || strlen(text) != 2 + 2 * DB_HASH_LEN)
        return;
    for (int i = 0; i < DB_HASH_LEN; i++) {
        unsigned v = 0;
        sscanf(text + 2 + 2 * i, "%2x", &v);
        out[i] = (unsigned char)v;
    }
}

/* ---- transactions ---- */

static int command(struct db_pg *db, struct pg_conn *c, const char *text)
{
    PGresult *res = PQexec(c->conn, text);
    if (PQresultStatus(res) == PGRES_COMMAND_OK) {
        PQclear(res);
        return DB_OK;
    }
    return tx_failed(db, c, res);
}

typedef int (*tx_body)(struct db_pg *db, struct pg_conn *c, void *ud);

/* Runs body in a transaction and commits it, running it again from the start (after a short
 * pause that grows) when it asks to (PG_RETRY). See the header comment for what is retried and
 * why that can neither lose nor double a write. */
static int in_transaction(struct db_pg *db, tx_body body, void *ud)
{
    int rc = DB_ERR_IO;
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        if (attempt > 0) {
            struct timespec pause = {0, (long)(1000000L << (attempt < 6 ? attempt : 6))};
            nanosleep(&pause, NULL);
        }
        struct pg_conn *c = conn_of(db);
        if (c == NULL)
            return DB_ERR_IO;
        rc = command(db, c, "BEGIN");
        if (rc == DB_OK)
            rc = body(db, c, ud);
        if (rc == DB_OK) {
            PGresult *res = PQexec(c->conn, "COMMIT");
            ExecStatusType st = PQresultStatus(res);
            /* COMMIT of a transaction that failed answers ROLLBACK with COMMAND_OK: the body
             * checked every statement, so that cannot happen here. */
            if (st == PGRES_COMMAND_OK) {
                PQclear(res);
                note_ok(db);
                return DB_OK;
            }
            c->broken = conn_lost(c->conn, res);
            bool again = !c->broken && retryable(res);
            fail(db, c->conn, res);
            PQclear(res);
            if (!again)
                return DB_ERR_IO; /* broken after COMMIT was sent: the outcome is unknown */
            rc = PG_RETRY;
        }
        if (!c->broken)
            PQclear(PQexec(c->conn, "ROLLBACK"));
        if (rc != PG_RETRY)
            return rc;
    }
    return rc == PG_RETRY ? DB_ERR_IO : rc;
}

/* ---- migrations, readiness ---- */

static int admin_exec(struct db_pg *db, const char *text)
{
    PGresult *res = PQexec(db->admin, text);
    ExecStatusType st = PQresultStatus(res);
    int rc = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? DB_OK : fail(db, db->admin, res);
    PQclear(res);
    return rc;
}

/* The schema version, read on the admin connection (caller holds admin_lock). */
static int admin_version(struct db_pg *db, int *out)
{
    PGresult *res = PQexec(db->admin, "SELECT version FROM tactics_schema_version");
    int rc = DB_ERR_IO;
    if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1) {
        *out = atoi(PQgetvalue(res, 0, 0));
        rc = DB_OK;
    } else {
        db->admin_broken = conn_lost(db->admin, res);
        fail(db, db->admin, res);
    }
    PQclear(res);
    return rc;
}

/* Each step in its own transaction under the migration lock, re-reading the version inside
 * it, so that a second instance starting at the same time applies nothing twice; a failure
 * leaves the database as it was before that step (PostgreSQL's DDL is transactional). */
static int migrate(struct db_pg *db)
{
    static const char *const bootstrap =
        "BEGIN; SELECT pg_advisory_xact_lock(" MIGRATION_LOCK ");"
        "CREATE TABLE IF NOT EXISTS tactics_schema_version ("
        "  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),"
        "  version integer NOT NULL);"
        "INSERT INTO tactics_schema_version (version) VALUES (0) ON CONFLICT DO NOTHING;"
        "COMMIT";
    if (admin_exec(db, bootstrap) != DB_OK) {
        admin_exec(db, "ROLLBACK");
        return DB_ERR_MIGRATE;
    }
    for (;;) {
        int version = 0;
        if (admin_exec(db, "BEGIN; SELECT pg_advisory_xact_lock(" MIGRATION_LOCK ")") != DB_OK ||
            admin_version(db, &version) != DB_OK) {
            admin_exec(db, "ROLLBACK");
            return DB_ERR_MIGRATE;
        }
        if (version >= DB_SCHEMA_VERSION) {
            admin_exec(db, "ROLLBACK");
            return version > DB_SCHEMA_VERSION ? DB_ERR_SCHEMA_TOO_NEW : DB_OK;
        }
        char bump[96];
        snprintf(bump, sizeof bump, "UPDATE tactics_schema_version SET version = %d", version + 1);
        if (admin_exec(db, pg_migrations[version]) != DB_OK || admin_exec(db, bump) != DB_OK ||
            admin_exec(db, "COMMIT") != DB_OK) {
            admin_exec(db, "ROLLBACK");
            return DB_ERR_MIGRATE;
        }
    }
}

/* The admin connection, reset when broken (caller holds admin_lock). */
static bool admin_alive(struct db_pg *db)
{
    if (db->admin_broken || PQstatus(db->admin) != CONNECTION_OK) {
        PQreset(db->admin);
        db->admin_broken = PQstatus(db->admin) != CONNECTION_OK;
    }
    return PQstatus(db->admin) == CONNECTION_OK;
}

int db_pg_open(const char *conninfo, struct db_pg **out)
{
    *out = NULL;
    struct db_pg *db = calloc(1, sizeof *db);
    if (db == NULL)
        return DB_ERR_NOMEM;
    atomic_init(&db->errors, 0);
    atomic_init(&db->replay_ttl, DB_REPLAY_TTL_DEFAULT);
    atomic_init(&db->write_failed_us, 0);
    atomic_init(&db->write_failed_kind, PGF_NONE);
    atomic_init(&db->write_failed_at_start, false);
    pthread_mutex_init(&db->lock, NULL);
    pthread_mutex_init(&db->admin_lock, NULL);
    db->conninfo = strdup(conninfo);
    if (db->conninfo == NULL || pthread_key_create(&db->key, NULL) != 0) {
        db_pg_close(db);
        return DB_ERR_NOMEM;
    }
    db->key_made = true;
    db->admin = connect_to(conninfo);
    if (db->admin == NULL || PQstatus(db->admin) != CONNECTION_OK) {
        db_pg_close(db);
        return DB_ERR_OPEN;
    }
    int rc = migrate(db);
    if (rc != DB_OK) {
        db_pg_close(db);
        return rc;
    }
    /* The write probe: an UPDATE that changes nothing, so a database that refuses writes (a
     * standby, a full disk) is known from the start. Remembered, not returned. */
    PGresult *res = PQexec(db->admin, "UPDATE tactics_schema_version SET version = version");
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        atomic_fetch_add(&db->errors, 1);
        note_failure(db, failure_of(db->admin, res), true);
    }
    PQclear(res);
    *out = db;
    return DB_OK;
}

void db_pg_close(struct db_pg *db)
{
    if (db == NULL)
        return;
    struct pg_conn *c = db->conns;
    while (c != NULL) {
        struct pg_conn *next = c->next;
        conn_close(c);
        c = next;
    }
    if (db->key_made)
        pthread_key_delete(db->key);
    PQfinish(db->admin);
    pthread_mutex_destroy(&db->lock);
    pthread_mutex_destroy(&db->admin_lock);
    free(db->conninfo);
    free(db);
}

int db_pg_schema_version(struct db_pg *db, int *out)
{
    pthread_mutex_lock(&db->admin_lock);
    int rc = admin_alive(db) ? admin_version(db, out) : fail(db, db->admin, NULL);
    pthread_mutex_unlock(&db->admin_lock);
    return rc;
}

/* Ready when PostgreSQL answers and the schema is the latest. A failure that was the
 * connection's (PostgreSQL down or restarting) is over once it answers again, so readiness
 * comes back by itself without waiting for a client's write; a refusal of the storage itself
 * (a full disk, a standby) holds until a write commits, as on SQLite. */
int db_pg_check_ready(struct db_pg *db)
{
    int version = 0;
    int rc = db_pg_schema_version(db, &version);
    if (rc != DB_OK)
        return rc;
    int kind = atomic_load(&db->write_failed_kind);
    if ((kind == PGF_CONNECTION || kind == PGF_SHUTDOWN) &&
        !atomic_load(&db->write_failed_at_start))
        note_ok(db);
    return version == DB_SCHEMA_VERSION ? DB_OK : DB_ERR_NOT_READY;
}

void db_pg_write_health(struct db_pg *db, struct db_write_health *out)
{
    memset(out, 0, sizeof *out);
    uint64_t at = atomic_load(&db->write_failed_us);
    if (at == 0)
        return;
    out->failing = true;
    out->at_start = atomic_load(&db->write_failed_at_start);
    switch ((enum pg_failure)atomic_load(&db->write_failed_kind)) {
    case PGF_SHUTDOWN:
        out->code = "57P01";
        out->text = "PostgreSQL is shutting down or starting up";
        break;
    case PGF_FULL:
        out->code = "53100";
        out->text = "PostgreSQL's disk is full";
        break;
    case PGF_RESOURCES:
        out->code = "53000";
        out->text = "PostgreSQL has insufficient resources";
        break;
    case PGF_READ_ONLY:
        out->code = "25006";
        out->text = "PostgreSQL takes no writes here (a standby, or read-only)";
        break;
    default:
        out->code = "08006";
        out->text = "no connection to PostgreSQL";
        break;
    }
    uint64_t now = monotonic_us();
    out->age_s = now > at ? (now - at) / 1000000u : 0;
}

const char *db_pg_conninfo(const struct db_pg *db)
{
    return db->conninfo;
}

uint64_t db_pg_error_count(const struct db_pg *db)
{
    return (uint64_t)atomic_load(&db->errors);
}

void db_pg_set_replay_ttl(struct db_pg *db, int64_t seconds)
{
    atomic_store(&db->replay_ttl, seconds);
}

/* ---- idempotency keys ---- */

static int replay_from(PGresult *res, struct db_replay *r)
{
    if (PQntuples(res) == 0)
        return DB_ERR_NOT_FOUND;
    copy_hash(PQgetvalue(res, 0, 0), r->request_hash);
    r->status = atoi(PQgetvalue(res, 0, 1));
    r->version = strtoll(PQgetvalue(res, 0, 2), NULL, 10);
    snprintf(r->encounter_id, sizeof r->encounter_id, "%s", PQgetvalue(res, 0, 3));
    return DB_OK;
}

static void replay_params(struct db_pg *db, struct params *p, const struct db_replay *r)
{
    p_hash(p, r->scope);
    p_text(p, r->key);
    p_int(p, atomic_load(&db->replay_ttl));
}

int db_pg_replay_get(struct db_pg *db, struct db_replay *r)
{
    struct params p = {0};
    replay_params(db, &p, r);
    PGresult *res = NULL;
    int rc = read_query(db, Q_IDEM_GET, &p, &res);
    if (rc != DB_OK)
        return rc;
    rc = replay_from(res, r);
    PQclear(res);
    return rc;
}

/* Inside a transaction: DB_ERR_REPLAY (r filled) when the key is taken. */
static int replay_check(struct db_pg *db, struct pg_conn *c, struct db_replay *r)
{
    if (r == NULL)
        return DB_OK;
    struct params p = {0};
    replay_params(db, &p, r);
    PGresult *res = NULL;
    int rc = tx_query(db, c, Q_IDEM_GET, &p, &res);
    if (rc != DB_OK)
        return rc;
    struct db_replay found = *r;
    rc = replay_from(res, &found);
    PQclear(res);
    if (rc == DB_ERR_NOT_FOUND)
        return DB_OK;
    *r = found;
    return DB_ERR_REPLAY;
}

/* Inside a transaction: sweeps a few expired keys and stores this one. PG_RETRY when a
 * concurrent request stored the same live key first: run again, the check then finds it. */
static int replay_store(struct db_pg *db, struct pg_conn *c, const struct db_replay *r,
                        const char *id)
{
    if (r == NULL)
        return DB_OK;
    int64_t ttl = atomic_load(&db->replay_ttl);
    struct params p = {0};
    p_int(&p, ttl);
    int rc = tx_query(db, c, Q_IDEM_EXPIRE, &p, NULL);
    if (rc != DB_OK)
        return rc;
    struct params q = {0};
    p_hash(&q, r->scope);
    p_text(&q, r->key);
    p_hash(&q, r->request_hash);
    p_int(&q, r->status);
    p_text(&q, id);
    p_int(&q, r->version);
    p_int(&q, ttl);
    PGresult *res = NULL;
    rc = tx_query(db, c, Q_IDEM_INSERT, &q, &res);
    if (rc != DB_OK)
        return rc;
    bool stored = strcmp(PQcmdTuples(res), "1") == 0;
    PQclear(res);
    return stored ? DB_OK : PG_RETRY;
}

/* ---- encounters ---- */

/* Inside a transaction: tells the listeners "ID:what" once it commits. */
static int notify(struct db_pg *db, struct pg_conn *c, const char *id, const char *what)
{
    char payload[128];
    snprintf(payload, sizeof payload, "%s:%s", id, what);
    struct params p = {0};
    p_text(&p, payload);
    return tx_query(db, c, Q_NOTIFY, &p, NULL);
}

static int insert_event(struct db_pg *db, struct pg_conn *c, const char *id, int64_t seq,
                        const char *kind, const char *payload)
{
    struct params p = {0};
    p_text(&p, id);
    p_int(&p, seq);
    p_text(&p, kind);
    p_text(&p, payload);
    return tx_query(db, c, Q_EV_INSERT, &p, NULL);
}

static int insert_encounter(struct db_pg *db, struct pg_conn *c, const char *id,
                            const unsigned char *token_hash, const char *rules_json,
                            const char *state_json, int64_t version)
{
    struct params p = {0};
    p_text(&p, id);
    p_text(&p, rules_json);
    p_int(&p, version);
    p_hash(&p, token_hash);
    p_text(&p, state_json);
    return tx_query(db, c, Q_ENC_INSERT, &p, NULL);
}

/* Inside a transaction: locks the encounter's row until the transaction ends and reads its
 * version: DB_OK, or DB_ERR_NOT_FOUND. */
static int lock_encounter(struct db_pg *db, struct pg_conn *c, const char *id, int64_t *version)
{
    struct params p = {0};
    p_text(&p, id);
    PGresult *res = NULL;
    int rc = tx_query(db, c, Q_ENC_LOCK, &p, &res);
    if (rc != DB_OK)
        return rc;
    rc = PQntuples(res) == 1 ? DB_OK : DB_ERR_NOT_FOUND;
    if (rc == DB_OK)
        *version = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
    PQclear(res);
    return rc;
}

struct create_args {
    const char *id;
    const unsigned char *token_hash;
    const char *rules_json, *state_json;
    int count;
    const char *const *kinds, *const *payloads;
    struct db_replay *replay;
};

static int create_body(struct db_pg *db, struct pg_conn *c, void *ud)
{
    struct create_args *a = ud;
    int rc;
    if ((rc = replay_check(db, c, a->replay)) != DB_OK ||
        (rc = insert_encounter(db, c, a->id, a->token_hash, a->rules_json, a->state_json,
                               a->count)) != DB_OK)
        return rc;
    for (int i = 0; i < a->count; i++)
        if ((rc = insert_event(db, c, a->id, i + 1, a->kinds[i], a->payloads[i])) != DB_OK)
            return rc;
    return replay_store(db, c, a->replay, a->id);
}

int db_pg_encounter_create(struct db_pg *db, const char *id, const unsigned char *token_hash,
                           const char *rules_json, const char *state_json, int count,
                           const char *const *kinds, const char *const *payloads,
                           struct db_replay *replay)
{
    struct create_args a = {id, token_hash, rules_json, state_json, count, kinds, payloads, replay};
    return in_transaction(db, create_body, &a);
}

/* The one row that query q finds for key (its only parameter), to read and then PQclear; or
 * NULL with *rc DB_ERR_NOT_FOUND or the error. */
static PGresult *row_by_key(struct db_pg *db, enum pg_query q, const char *key, int *rc)
{
    assert(key != NULL);
    struct params p = {0};
    p_text(&p, key);
    PGresult *res = NULL;
    *rc = read_query(db, q, &p, &res);
    if (*rc != DB_OK)
        return NULL;
    if (PQntuples(res) != 1) {
        PQclear(res);
        *rc = DB_ERR_NOT_FOUND;
        return NULL;
    }
    return res;
}

int db_pg_encounter_get(struct db_pg *db, const char *id, struct db_encounter *out)
{
    int rc;
    PGresult *res = row_by_key(db, Q_ENC_GET, id, &rc);
    if (res == NULL)
        return rc;
    memset(out, 0, sizeof *out);
    snprintf(out->id, sizeof out->id, "%s", id);
    out->version = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
    copy_hash(PQgetvalue(res, 0, 1), out->token_hash);
    snprintf(out->created_at, sizeof out->created_at, "%s", PQgetvalue(res, 0, 2));
    out->state_json = strdup(PQgetvalue(res, 0, 3));
    PQclear(res);
    return out->state_json ? DB_OK : DB_ERR_NOMEM;
}

static int channel_put_body(struct db_pg *db, struct pg_conn *c, void *ud)
{
    const struct db_channel *ch = ud;
    struct params p = {0};
    p_text(&p, ch->channel_id);
    p_text(&p, ch->encounter_id);
    p_text(&p, ch->token);
    p_text(&p, ch->game_master);
    return tx_query(db, c, Q_CH_PUT, &p, NULL);
}

int db_pg_channel_put(struct db_pg *db, const struct db_channel *ch)
{
    return in_transaction(db, channel_put_body, (void *)ch);
}

int db_pg_channel_get(struct db_pg *db, const char *channel_id, struct db_channel *out)
{
    int rc;
    PGresult *res = row_by_key(db, Q_CH_GET, channel_id, &rc);
    if (res == NULL)
        return rc;
    memset(out, 0, sizeof *out);
    snprintf(out->channel_id, sizeof out->channel_id, "%s", channel_id);
    snprintf(out->encounter_id, sizeof out->encounter_id, "%s", PQgetvalue(res, 0, 0));
    snprintf(out->token, sizeof out->token, "%s", PQgetvalue(res, 0, 1));
    snprintf(out->game_master, sizeof out->game_master, "%s", PQgetvalue(res, 0, 2));
    PQclear(res);
    return DB_OK;
}

struct append_args {
    const char *id;
    int64_t expected;
    const char *kind, *payload_json, *state_json;
    struct db_replay *replay;
    int64_t *current;
};

/* The row is locked first, so that of two requests with one key the second waits for the
 * first and then finds its key (a replay, as SQLite's one writer at a time answers), rather
 * than a version conflict. */
static int append_body(struct db_pg *db, struct pg_conn *c, void *ud)
{
    struct append_args *a = ud;
    int64_t version = 0;
    int found = lock_encounter(db, c, a->id, &version);
    if (found != DB_OK && found != DB_ERR_NOT_FOUND)
        return found;
    int rc = replay_check(db, c, a->replay);
    if (rc != DB_OK)
        return rc;
    if (found != DB_OK)
        return found;
    *a->current = version;
    if (version != a->expected)
        return DB_ERR_CONFLICT;
    if ((rc = insert_event(db, c, a->id, a->expected + 1, a->kind, a->payload_json)) != DB_OK)
        return rc;
    struct params p = {0};
    p_text(&p, a->id);
    p_int(&p, a->expected + 1);
    p_text(&p, a->state_json);
    char version_text[24];
    snprintf(version_text, sizeof version_text, "%lld", (long long)(a->expected + 1));
    if ((rc = tx_query(db, c, Q_ENC_UPDATE, &p, NULL)) != DB_OK ||
        (rc = notify(db, c, a->id, version_text)) != DB_OK)
        return rc;
    return replay_store(db, c, a->replay, a->id);
}

int db_pg_encounter_append(struct db_pg *db, const char *id, int64_t expected, const char *kind,
                           const char *payload_json, const char *state_json,
                           struct db_replay *replay, int64_t *current)
{
    struct append_args a = {id, expected, kind, payload_json, state_json, replay, current};
    int rc = in_transaction(db, append_body, &a);
    if (rc == DB_OK)
        *current = expected + 1;
    return rc;
}

struct delete_args {
    const char *id;
    int64_t expected;
    int64_t *current;
};

static int delete_body(struct db_pg *db, struct pg_conn *c, void *ud)
{
    struct delete_args *a = ud;
    int rc = lock_encounter(db, c, a->id, a->current);
    if (rc != DB_OK)
        return rc;
    if (*a->current != a->expected)
        return DB_ERR_CONFLICT;
    const enum pg_query order[] = {Q_EV_DELETE, Q_IDEM_DELETE, Q_ENC_DELETE};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        struct params p = {0};
        p_text(&p, a->id);
        if ((rc = tx_query(db, c, order[i], &p, NULL)) != DB_OK)
            return rc;
    }
    return notify(db, c, a->id, "deleted");
}

int db_pg_encounter_delete(struct db_pg *db, const char *id, int64_t expected, int64_t *current)
{
    struct delete_args a = {id, expected, current};
    return in_transaction(db, delete_body, &a);
}

int db_pg_encounter_list(struct db_pg *db, const unsigned char *token_hash, const char *after,
                         int limit, db_encounter_fn fn, void *ud)
{
    struct params p = {0};
    p_hash(&p, token_hash);
    p_text(&p, after ? after : "");
    p_int(&p, limit);
    PGresult *res = NULL;
    int rc = read_query(db, Q_ENC_LIST, &p, &res);
    if (rc != DB_OK)
        return rc;
    for (int i = 0; i < PQntuples(res); i++) {
        struct db_encounter_summary s = {
            .id = PQgetvalue(res, i, 0),
            .created_at = PQgetvalue(res, i, 1),
            .version = strtoll(PQgetvalue(res, i, 2), NULL, 10),
            .name = PQgetisnull(res, i, 3) ? NULL : PQgetvalue(res, i, 3),
            .round = strtoll(PQgetvalue(res, i, 4), NULL, 10),
            .combatants = strtoll(PQgetvalue(res, i, 5), NULL, 10),
            .turn_of = PQgetisnull(res, i, 6) ? NULL : PQgetvalue(res, i, 6),
            .turn_name = PQgetisnull(res, i, 7) ? NULL : PQgetvalue(res, i, 7)};
        if (fn(ud, &s) != 0)
            break;
    }
    PQclear(res);
    return DB_OK;
}

int db_pg_events(struct db_pg *db, const char *id, int64_t after, int64_t upto, int limit,
                 db_event_fn fn, void *ud)
{
    struct params p = {0};
    p_text(&p, id);
    p_int(&p, after);
    p_int(&p, upto);
    p_int(&p, limit);
    PGresult *res = NULL;
    int rc = read_query(db, Q_EV_PAGE, &p, &res);
    if (rc != DB_OK)
        return rc;
    for (int i = 0; i < PQntuples(res); i++)
        if (fn(ud, strtoll(PQgetvalue(res, i, 0), NULL, 10), PQgetvalue(res, i, 1),
               PQgetvalue(res, i, 2), PQgetvalue(res, i, 3)) != 0)
            break;
    PQclear(res);
    return DB_OK;
}
