/* The db suite, run twice by CTest: on SQLite (a file in a temporary folder), and on
 * PostgreSQL when TACTICS_TEST_PG is set (a fresh database a test in the server that
 * scripts/pg started, reached through PGHOST and PGUSER). What a test checks of one backend only
 * passes at once on the other (a plain return: Criterion 2.4.1's cr_skip_test leaks 48 bytes in
 * its runner now and then, which LeakSanitizer rightly reports). */
#include <criterion/criterion.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h"
#include "tests/db/events.h"

static bool on_pg;
static char dir[64];
static char dbname[64];
static char path[160]; /* what db_open is given: a file, or a postgresql:// URL */

/* Runs sql on the maintenance database (dbname NULL) or the test's own one, over libpq. */
static void pg_exec(const char *name, const char *sql)
{
    char url[128];
    snprintf(url, sizeof url, "postgresql:///%s", name ? name : "postgres");
    PGconn *c = PQconnectdb(url);
    cr_assert_eq(PQstatus(c), CONNECTION_OK, "%s", PQerrorMessage(c));
    PGresult *res = PQexec(c, sql);
    ExecStatusType st = PQresultStatus(res);
    cr_assert(st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK, "%s: %s", sql,
              PQresultErrorMessage(res));
    PQclear(res);
    PQfinish(c);
}

/* The one scalar sql answers on the test's own database (PostgreSQL). */
static long long pg_scalar(const char *sql)
{
    char url[128];
    snprintf(url, sizeof url, "postgresql:///%s", dbname);
    PGconn *c = PQconnectdb(url);
    cr_assert_eq(PQstatus(c), CONNECTION_OK, "%s", PQerrorMessage(c));
    PGresult *res = PQexec(c, sql);
    cr_assert_eq(PQresultStatus(res), PGRES_TUPLES_OK, "%s", PQresultErrorMessage(res));
    long long v = atoll(PQgetvalue(res, 0, 0));
    PQclear(res);
    PQfinish(c);
    return v;
}

static void setup(void)
{
    on_pg = getenv("TACTICS_TEST_PG") != NULL;
    if (on_pg) {
        static int n;
        snprintf(dbname, sizeof dbname, "tdb_%d_%d", (int)getpid(), n++);
        char sql[128];
        snprintf(sql, sizeof sql, "CREATE DATABASE %s", dbname);
        pg_exec(NULL, sql);
        snprintf(path, sizeof path, "postgresql:///%s", dbname);
        return;
    }
    snprintf(dir, sizeof dir, "/tmp/tactics-db-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.db", dir);
}

static void teardown(void)
{
    if (on_pg) {
        char sql[128];
        snprintf(sql, sizeof sql, "DROP DATABASE %s WITH (FORCE)", dbname);
        pg_exec(NULL, sql);
        return;
    }
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(db, .init = setup, .fini = teardown, .timeout = 120);

#define SQLITE_ONLY()                                                                              \
    do {                                                                                           \
        if (on_pg)                                                                                 \
            return;                                                                                \
    } while (0)

#define PG_ONLY()                                                                                  \
    do {                                                                                           \
        if (!on_pg)                                                                                \
            return;                                                                                \
    } while (0)

/* Encounter e1 in db, empty, made by token, its log one "created" event. */
static void create_e1(struct db *db, const unsigned char token[DB_HASH_LEN])
{
    cr_assert_eq(db_encounter_create(db, "e1", token, "{}", "{}", "created", "{}", NULL), DB_OK);
}

/* Two handles on one database (where), as two servers on one file or one schema have. */
static void open_twice(const char *where, struct db **a, struct db **b)
{
    cr_assert_eq(db_open(where, a), DB_OK);
    cr_assert_eq(db_open(where, b), DB_OK);
}

/* The database at path, opened (migrated) and ready. */
static struct db *open_ready(void)
{
    struct db *db = NULL;
    cr_assert_eq(db_open(path, &db), DB_OK);
    cr_assert_eq(db_check_ready(db), DB_OK);
    return db;
}

/* Two handles on the database at path (open_twice), and e1 made through the first by token. */
static void two_handles_on_e1(struct db **a, struct db **b, const unsigned char token[DB_HASH_LEN])
{
    open_twice(path, a, b);
    create_e1(*a, token);
}

/* db_open(where) answers rc and leaves no handle. */
static void open_refused(const char *where, int rc)
{
    struct db *db = (struct db *)1;
    cr_assert_eq(db_open(where, &db), rc, "%s", where);
    cr_assert_null(db);
}

Test(db, fresh_file_is_migrated_to_latest_and_ready)
{
    struct db *db = NULL;
    cr_assert_eq(db_open(path, &db), DB_OK);
    int v = -1;
    cr_assert_eq(db_schema_version(db, &v), DB_OK);
    cr_assert_eq(v, db_latest_version());
    cr_assert_geq(v, 1);
    cr_assert_eq(db_check_ready(db), DB_OK);
    cr_assert_eq(db_error_count(db), 0);
    db_close(db);
}

Test(db, reopening_keeps_the_schema_and_applies_nothing_twice)
{
    struct db *db = NULL;
    cr_assert_eq(db_open(path, &db), DB_OK);
    db_close(db);
    cr_assert_eq(db_open(path, &db), DB_OK); /* CREATE TABLE twice would fail here */
    cr_assert_eq(db_check_ready(db), DB_OK);
    db_close(db);
}

Test(db, refuses_a_file_from_a_newer_build)
{
    SQLITE_ONLY();
    sqlite3 *raw = NULL;
    cr_assert_eq(sqlite3_open(path, &raw), SQLITE_OK);
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", db_latest_version() + 1);
    cr_assert_eq(sqlite3_exec(raw, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(raw);
    open_refused(path, DB_ERR_SCHEMA_TOO_NEW);
}

Test(db, unopenable_path_is_an_error_not_a_crash)
{
    SQLITE_ONLY();
    open_refused("/nonexistent-dir/x/y.db", DB_ERR_OPEN);
}

Test(db, a_failed_migration_leaves_the_file_as_it_was)
{
    SQLITE_ONLY();
    /* A table named like migration 1's makes its CREATE fail; user_version must stay 0. */
    sqlite3 *raw = NULL;
    cr_assert_eq(sqlite3_open(path, &raw), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(raw, "CREATE TABLE events(x)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(raw);
    struct db *db = NULL;
    cr_assert_eq(db_open(path, &db), DB_ERR_MIGRATE);
    cr_assert_eq(sqlite3_open(path, &raw), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    sqlite3_prepare_v2(raw, "SELECT count(*) FROM sqlite_schema WHERE name='encounters'", -1, &st,
                       NULL);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    cr_assert_eq(sqlite3_column_int(st, 0), 0, "half a migration was kept");
    sqlite3_finalize(st);
    sqlite3_close(raw);
}

/* Migration 2 from a file at version 1 (the previous schema), with an encounter in it. */
Test(db, migrates_from_the_previous_version)
{
    SQLITE_ONLY();
    sqlite3 *raw = NULL;
    cr_assert_eq(sqlite3_open(path, &raw), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(raw,
                              "CREATE TABLE encounters (id TEXT PRIMARY KEY, created_at TEXT NOT "
                              "NULL, rules_json TEXT NOT NULL, version INTEGER NOT NULL DEFAULT "
                              "0, token_hash BLOB NOT NULL) STRICT;"
                              "CREATE TABLE events (encounter_id TEXT NOT NULL REFERENCES "
                              "encounters(id), seq INTEGER NOT NULL, kind TEXT NOT NULL, "
                              "payload_json TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY "
                              "(encounter_id, seq)) STRICT;"
                              "INSERT INTO encounters VALUES ('old', 'then', '{}', 0, x'00');"
                              "PRAGMA user_version = 1;",
                              NULL, NULL, NULL),
                 SQLITE_OK);
    sqlite3_close(raw);
    struct db *db = open_ready();
    struct db_encounter e;
    cr_assert_eq(db_encounter_get(db, "old", &e), DB_OK);
    cr_assert_str_eq(e.state_json, "{}");
    free(e.state_json);
    db_close(db);
}

/* Migration 3 from a file at version 2: a key that was kept with a whole answer keeps its
 * encounter and event, and is still replayed (within its period). */
Test(db, migrates_idempotency_keys_without_their_answers)
{
    SQLITE_ONLY();
    sqlite3 *raw = NULL;
    cr_assert_eq(sqlite3_open(path, &raw), SQLITE_OK);
    cr_assert_eq(
        sqlite3_exec(raw,
                     "CREATE TABLE encounters (id TEXT PRIMARY KEY, created_at TEXT NOT NULL, "
                     "rules_json TEXT NOT NULL, version INTEGER NOT NULL DEFAULT 0, token_hash "
                     "BLOB NOT NULL, state_json TEXT NOT NULL DEFAULT '{}') STRICT;"
                     "CREATE TABLE events (encounter_id TEXT NOT NULL REFERENCES encounters(id), "
                     "seq INTEGER NOT NULL, kind TEXT NOT NULL, payload_json TEXT NOT NULL, "
                     "created_at TEXT NOT NULL, PRIMARY KEY (encounter_id, seq)) STRICT;"
                     "CREATE INDEX encounters_by_token ON encounters(token_hash, id);"
                     "CREATE TABLE idempotency (scope BLOB NOT NULL, key TEXT NOT NULL, "
                     "request_hash BLOB NOT NULL, status INTEGER NOT NULL, version INTEGER NOT "
                     "NULL, body TEXT NOT NULL, encounter_id TEXT, created_at TEXT NOT NULL, "
                     "PRIMARY KEY (scope, key)) STRICT;"
                     "INSERT INTO encounters VALUES ('old', 'then', '{}', 2, x'00', '{}');"
                     "INSERT INTO idempotency VALUES (x'07"
                     "00000000000000000000000000000000000000000000000000000000000000', 'k', x'00', "
                     "200, 2, '{\"big\":1}', "
                     "'old', strftime('%Y-%m-%dT%H:%M:%fZ','now'));"
                     "PRAGMA user_version = 2;",
                     NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(raw);
    struct db *db = open_ready();
    struct db_replay look = {.key = "k", .scope = {7}};
    cr_assert_eq(db_replay_get(db, &look), DB_OK);
    cr_assert_eq(look.version, 2);
    cr_assert_eq(look.status, 200);
    cr_assert_str_eq(look.encounter_id, "old");
    db_close(db);
}

static int count_events(void *ud, int64_t seq, const char *kind, const char *payload,
                        const char *created_at)
{
    (void)kind, (void)payload, (void)created_at;
    int *n = ud;
    cr_assert_eq(seq, *n + 1);
    (*n)++;
    return 0;
}

static int list_one(void *ud, const struct db_encounter_summary *e)
{
    strcat(ud, e->id);
    strcat(ud, ",");
    return 0;
}

Test(db, encounters_append_in_order_with_versions_and_replays)
{
    struct db *db = NULL;
    cr_assert_eq(db_open(path, &db), DB_OK);
    unsigned char token[DB_HASH_LEN] = {1, 2, 3};
    cr_assert_eq(db_encounter_create(db, "e1", token, "{}", "{\"n\":1}", "created", "{}", NULL),
                 DB_OK);
    int64_t cur = 0;
    cr_assert_eq(db_encounter_append(db, "e1", 1, "a", "{}", "{\"n\":2}", NULL, &cur), DB_OK);
    cr_assert_eq(cur, 2);
    /* A stale version is refused with the current one, and nothing is written. */
    cr_assert_eq(db_encounter_append(db, "e1", 1, "b", "{}", "{\"n\":9}", NULL, &cur),
                 DB_ERR_CONFLICT);
    cr_assert_eq(cur, 2);
    struct db_encounter e;
    cr_assert_eq(db_encounter_get(db, "e1", &e), DB_OK);
    cr_assert_eq(e.version, 2);
    cr_assert_str_eq(e.state_json, "{\"n\":2}");
    free(e.state_json);
    /* An idempotency key keeps the event it made, not a copy of the answer; its second use
     * is refused with that record, and nothing is written. */
    struct db_replay r = {.key = "k1", .status = 201, .version = 3};
    memcpy(r.scope, token, DB_HASH_LEN);
    cr_assert_eq(db_encounter_append(db, "e1", 2, "c", "{}", "{\"n\":3}", &r, &cur), DB_OK);
    struct db_replay again = {.key = "k1"};
    memcpy(again.scope, token, DB_HASH_LEN);
    cr_assert_eq(db_encounter_append(db, "e1", 3, "d", "{}", "{\"n\":4}", &again, &cur),
                 DB_ERR_REPLAY);
    cr_assert_eq(again.status, 201);
    cr_assert_eq(again.version, 3);
    cr_assert_str_eq(again.encounter_id, "e1");
    int n = 0;
    cr_assert_eq(db_events(db, "e1", 0, INT64_MAX, 100, count_events, &n), DB_OK);
    cr_assert_eq(n, 3);
    cr_assert_eq(db_encounter_create(db, "e2", token, "{}", "{}", "created", "{}", NULL), DB_OK);
    char ids[64] = "";
    cr_assert_eq(db_encounter_list(db, token, NULL, 10, list_one, ids), DB_OK);
    cr_assert_str_eq(ids, "e1,e2,");
    ids[0] = '\0';
    cr_assert_eq(db_encounter_list(db, token, "e1", 10, list_one, ids), DB_OK);
    cr_assert_str_eq(ids, "e2,");
    cr_assert_eq(db_encounter_delete(db, "e1", 2, &cur), DB_ERR_CONFLICT);
    cr_assert_eq(db_encounter_delete(db, "e1", 3, &cur), DB_OK);
    cr_assert_eq(db_encounter_get(db, "e1", &e), DB_ERR_NOT_FOUND);
    cr_assert_eq(db_encounter_append(db, "nope", 1, "a", "{}", "{}", NULL, &cur), DB_ERR_NOT_FOUND);
    /* Strings that look like SQL are stored verbatim: every value is a bound parameter. */
    const char *evil = "x'); DROP TABLE events; --";
    cr_assert_eq(db_encounter_create(db, evil, token, "{}", "{}", "created", evil, NULL), DB_OK);
    cr_assert_eq(db_encounter_get(db, evil, &e), DB_OK);
    free(e.state_json);
    n = 0;
    cr_assert_eq(db_events(db, evil, 0, INT64_MAX, 10, count_events, &n), DB_OK);
    cr_assert_eq(n, 1);
    cr_assert_eq(db_error_count(db), 0);
    db_close(db);
}

struct seen_events {
    char kinds[128];
    int64_t last;
};

static int note_event(void *ud, int64_t seq, const char *kind, const char *payload,
                      const char *created_at)
{
    (void)payload, (void)created_at;
    struct seen_events *s = ud;
    strcat(s->kinds, kind);
    strcat(s->kinds, ",");
    s->last = seq;
    return 0;
}

/* Create with its first events (create with combatants and initiative): one transaction holds
 * them all, numbered from 1, the version the last; its key replays at that version, and a key
 * already taken writes nothing, not even the encounter's row. */
Test(db, an_encounter_is_created_with_several_events_in_one_transaction)
{
    struct db *db = NULL;
    cr_assert_eq(db_open(path, &db), DB_OK);
    unsigned char token[DB_HASH_LEN] = {4, 5};
    const char *kinds[] = {"created", "combatant_added", "combatant_added", "initiative"};
    const char *payloads[] = {"{\"n\":1}", "{\"n\":2}", "{\"n\":3}", "{\"n\":4}"};
    struct db_replay r = {.key = "create-1", .status = 201, .version = 4};
    memcpy(r.scope, token, DB_HASH_LEN);
    cr_assert_eq(
        db_encounter_create_log(db, "e1", token, "{}", "{\"s\":4}", 4, kinds, payloads, &r), DB_OK);
    struct db_encounter e;
    cr_assert_eq(db_encounter_get(db, "e1", &e), DB_OK);
    cr_assert_eq(e.version, 4);
    cr_assert_str_eq(e.state_json, "{\"s\":4}");
    free(e.state_json);
    struct seen_events seen = {"", 0};
    cr_assert_eq(db_events(db, "e1", 0, INT64_MAX, 100, note_event, &seen), DB_OK);
    cr_assert_str_eq(seen.kinds, "created,combatant_added,combatant_added,initiative,");
    cr_assert_eq(seen.last, 4);
    int64_t cur = 0;
    cr_assert_eq(db_encounter_append(db, "e1", 4, "next_turn", "{}", "{}", NULL, &cur), DB_OK);
    cr_assert_eq(cur, 5);
    struct db_replay again = {.key = "create-1"};
    memcpy(again.scope, token, DB_HASH_LEN);
    cr_assert_eq(db_encounter_create_log(db, "e2", token, "{}", "{}", 4, kinds, payloads, &again),
                 DB_ERR_REPLAY);
    cr_assert_eq(again.version, 4);
    cr_assert_str_eq(again.encounter_id, "e1");
    cr_assert_eq(db_encounter_get(db, "e2", &e), DB_ERR_NOT_FOUND);
    db_close(db);
}

static int list_summary(void *ud, const struct db_encounter_summary *e)
{
    char *out = ud;
    size_t n = strlen(out);
    snprintf(out + n, 256 - n, "%s:%s:%lld:%lld:%s:%s;", e->id, e->name ? e->name : "-",
             (long long)e->round, (long long)e->combatants, e->turn_of ? e->turn_of : "-",
             e->turn_name ? e->turn_name : "-");
    return 0;
}

/* The list's summary comes from the stored state: name, round, combatants, and order[turn]
 * with that combatant's name; nothing for an encounter whose turns have not begun. */
Test(db, the_list_summarises_each_state)
{
    struct db *db = NULL;
    cr_assert_eq(db_open(path, &db), DB_OK);
    unsigned char token[DB_HASH_LEN] = {9};
    const char *started =
        "{\"name\":\"Ambush\",\"round\":2,\"turn\":1,\"order\":[\"a\",\"b\"],\"map\":{},"
        "\"combatants\":[{\"id\":\"a\"},{\"id\":\"b\",\"name\":\"Bob\"}]}";
    const char *fresh = "{\"name\":\"\",\"round\":0,\"turn\":null,\"order\":[],\"combatants\":[]}";
    cr_assert_eq(db_encounter_create(db, "e1", token, "{}", started, "created", "{}", NULL), DB_OK);
    cr_assert_eq(db_encounter_create(db, "e2", token, "{}", fresh, "created", "{}", NULL), DB_OK);
    char out[256] = "";
    cr_assert_eq(db_encounter_list(db, token, NULL, 10, list_summary, out), DB_OK);
    cr_assert_str_eq(out, "e1:Ambush:2:2:b:Bob;e2::0:0:-:-;");
    db_close(db);
}

/* Keys expire: past the period a key is never replayed, and may be used again. A key's age is
 * judged against the period in force when it is looked up: live under the default (a day),
 * expired under 1 s once the clock has moved 2 s, however long the calls between took. */
Test(db, idempotency_keys_expire_and_can_be_used_again)
{
    struct db *db = NULL;
    cr_assert_eq(db_open(path, &db), DB_OK);
    unsigned char token[DB_HASH_LEN] = {7};
    create_e1(db, token);
    struct db_replay r = {.key = "k", .status = 200, .version = 2};
    memcpy(r.scope, token, DB_HASH_LEN);
    int64_t cur = 0;
    cr_assert_eq(db_encounter_append(db, "e1", 1, "a", "{}", "{}", &r, &cur), DB_OK);
    struct db_replay look = {.key = "k"};
    memcpy(look.scope, token, DB_HASH_LEN);
    cr_assert_eq(db_replay_get(db, &look), DB_OK);
    db_set_replay_ttl(db, 1); /* whole seconds: live for at most 1 s */
    sleep(2);
    cr_assert_eq(db_replay_get(db, &look), DB_ERR_NOT_FOUND);
    struct db_replay reuse = {.key = "k", .status = 200, .version = 3};
    memcpy(reuse.scope, token, DB_HASH_LEN);
    cr_assert_eq(db_encounter_append(db, "e1", 2, "b", "{}", "{}", &reuse, &cur), DB_OK);
    db_set_replay_ttl(db, DB_REPLAY_TTL_DEFAULT);
    cr_assert_eq(db_replay_get(db, &look), DB_OK);
    cr_assert_eq(look.version, 3);
    db_close(db);
}

/* ---- PostgreSQL's own start-up, schema table and failures ---- */

Test(db, postgres_refuses_a_database_from_a_newer_build)
{
    PG_ONLY();
    struct db *db = NULL;
    cr_assert_eq(db_open(path, &db), DB_OK);
    db_close(db);
    char sql[96];
    snprintf(sql, sizeof sql, "UPDATE tactics_schema_version SET version = %d",
             db_latest_version() + 1);
    pg_exec(dbname, sql);
    open_refused(path, DB_ERR_SCHEMA_TOO_NEW);
}

Test(db, postgres_unreachable_or_missing_database_is_an_open_error)
{
    PG_ONLY();
    open_refused("postgresql:///no_such_database_here", DB_ERR_OPEN);
    open_refused("postgresql:///x?host=/nonexistent-dir", DB_ERR_OPEN);
}

Test(db, postgres_failed_migration_leaves_the_database_as_it_was)
{
    PG_ONLY();
    pg_exec(dbname, "CREATE TABLE events (x integer)");
    struct db *db = NULL;
    cr_assert_eq(db_open(path, &db), DB_ERR_MIGRATE);
    cr_assert_eq(pg_scalar("SELECT count(*) FROM pg_tables WHERE tablename = 'encounters'"), 0,
                 "half a migration was kept");
    cr_assert_eq(pg_scalar("SELECT version FROM tactics_schema_version"), 0);
}

/* Several instances starting at once against a fresh database migrate it once (PostgreSQL:
 * under an advisory lock). */
static void *open_and_close(void *arg)
{
    (void)arg;
    struct db *db = NULL;
    int rc = db_open(path, &db);
    db_close(db);
    return (void *)(intptr_t)rc;
}

Test(db, instances_starting_together_migrate_once)
{
    PG_ONLY();
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, open_and_close, NULL);
    for (int i = 0; i < 4; i++) {
        void *rc = NULL;
        pthread_join(t[i], &rc);
        cr_assert_eq((int)(intptr_t)rc, DB_OK);
    }
}

/* ---- concurrency, on both backends, through two handles (two instances) ---- */

#define WRITERS     4
#define WRITES_EACH 40

struct writer {
    struct db *db;
    int done;      /* appends acknowledged */
    int conflicts; /* 412s seen, each followed by a re-read */
    int errors;
};

/* Appends WRITES_EACH events to e1, each at the version it has just read, as a client with
 * If-Match does: a conflict is answered by reading again. */
static void *write_events(void *arg)
{
    struct writer *w = arg;
    while (w->done < WRITES_EACH) {
        struct db_encounter e;
        if (db_encounter_get(w->db, "e1", &e) != DB_OK) {
            w->errors++;
            return NULL;
        }
        free(e.state_json);
        char state[64];
        snprintf(state, sizeof state, "{\"v\":%lld}", (long long)e.version + 1);
        int64_t cur = 0;
        int rc = db_encounter_append(w->db, "e1", e.version, "a", "{}", state, NULL, &cur);
        if (rc == DB_OK)
            w->done++;
        else if (rc == DB_ERR_CONFLICT)
            w->conflicts++;
        else {
            w->errors++;
            return NULL;
        }
    }
    return NULL;
}

Test(db, concurrent_writers_on_two_handles_never_lose_or_double_an_event)
{
    struct db *a = NULL, *b = NULL;
    unsigned char token[DB_HASH_LEN] = {9};
    two_handles_on_e1(&a, &b, token);
    struct writer w[WRITERS];
    pthread_t t[WRITERS];
    for (int i = 0; i < WRITERS; i++) {
        w[i] = (struct writer){.db = i % 2 ? b : a};
        pthread_create(&t[i], NULL, write_events, &w[i]);
    }
    int acked = 0;
    for (int i = 0; i < WRITERS; i++) {
        pthread_join(t[i], NULL);
        cr_assert_eq(w[i].errors, 0);
        acked += w[i].done;
    }
    cr_assert_eq(acked, WRITERS * WRITES_EACH);
    struct db_encounter e;
    cr_assert_eq(db_encounter_get(b, "e1", &e), DB_OK);
    cr_assert_eq(e.version, 1 + acked, "version %lld after %d appends", (long long)e.version,
                 acked);
    char want[64];
    snprintf(want, sizeof want, "{\"v\":%d}", 1 + acked);
    cr_assert_str_eq(e.state_json, want);
    free(e.state_json);
    int64_t n = 0;
    cr_assert_eq(db_events(a, "e1", 0, INT64_MAX, 100000, test_db_count_contiguous, &n), DB_OK);
    cr_assert_eq(n, 1 + acked, "events 1..%lld contiguous of %d", (long long)n, 1 + acked);
    db_close(a);
    db_close(b);
}

struct keyed {
    struct db *db;
    int rc;
    struct db_replay r;
};

static void *keyed_append(void *arg)
{
    struct keyed *k = arg;
    int64_t cur = 0;
    k->rc = db_encounter_append(k->db, "e1", 1, "a", "{}", "{}", &k->r, &cur);
    return NULL;
}

/* Requests with one Idempotency-Key at once: one writes, every other gets its record. */
Test(db, one_key_used_at_once_writes_once)
{
    struct db *a = NULL, *b = NULL;
    unsigned char token[DB_HASH_LEN] = {5};
    two_handles_on_e1(&a, &b, token);
    struct keyed k[6];
    pthread_t t[6];
    for (int i = 0; i < 6; i++) {
        k[i] = (struct keyed){.db = i % 2 ? b : a};
        k[i].r = (struct db_replay){.key = "same", .status = 200, .version = 2};
        memcpy(k[i].r.scope, token, DB_HASH_LEN);
        pthread_create(&t[i], NULL, keyed_append, &k[i]);
    }
    int ok = 0, replays = 0;
    for (int i = 0; i < 6; i++) {
        pthread_join(t[i], NULL);
        if (k[i].rc == DB_OK)
            ok++;
        else if (k[i].rc == DB_ERR_REPLAY && k[i].r.version == 2)
            replays++;
        else
            cr_assert_fail("writer %d: %s", i, db_strerror(k[i].rc));
    }
    cr_assert_eq(ok, 1);
    cr_assert_eq(replays, 5);
    int64_t n = 0;
    cr_assert_eq(db_events(a, "e1", 0, INT64_MAX, 100, test_db_count_contiguous, &n), DB_OK);
    cr_assert_eq(n, 2);
    db_close(a);
    db_close(b);
}

/* ---- PostgreSQL restarting under a running handle ----
 * In a server of its own (scripts/pg), so that the other tests never see it go down. */

static void run_pg_script(const char *cmd, const char *where)
{
    char line[512];
    snprintf(line, sizeof line, "%s/pg %s '%s' >/dev/null", SCRIPTS_DIR, cmd, where);
    cr_assert_eq(system(line), 0, "%s", line);
}

/* Starts a PostgreSQL server of the test's own in /tmp/tactics-<tag>-<pid> (own, for
 * run_pg_script) and writes the URL of its tactics database into url. */
static void start_own_pg(const char *tag, char *own, size_t own_len, char *url, size_t url_len)
{
    snprintf(own, own_len, "/tmp/tactics-%s-%d", tag, (int)getpid());
    run_pg_script("start", own);
    snprintf(url, url_len, "postgresql:///tactics?host=%s", own);
}

Test(db, postgres_restart_fails_writes_then_recovers_by_itself)
{
    PG_ONLY();
    char own[64], url[160];
    start_own_pg("pgr", own, sizeof own, url, sizeof url);
    struct db *db = NULL;
    cr_assert_eq(db_open(url, &db), DB_OK);
    unsigned char token[DB_HASH_LEN] = {3};
    create_e1(db, token);
    int64_t cur = 0;
    cr_assert_eq(db_encounter_append(db, "e1", 1, "a", "{}", "{}", NULL, &cur), DB_OK);

    run_pg_script("kill", own); /* immediate shutdown: as a crash */
    cr_assert_eq(db_encounter_append(db, "e1", 2, "a", "{}", "{}", NULL, &cur), DB_ERR_IO);
    cr_assert_neq(db_check_ready(db), DB_OK);
    struct db_write_health h;
    db_write_health(db, &h);
    cr_assert(h.failing);
    cr_assert_str_eq(h.code, "08006");

    run_pg_script("restart", own);
    int ready = db_check_ready(db);
    cr_assert_eq(ready, DB_OK, "%s", db_strerror(ready));
    db_write_health(db, &h);
    cr_assert(!h.failing, "a connection failure is over once PostgreSQL answers again");
    /* The worker's connection broke while it was down, and is reset on its next use. */
    cr_assert_eq(db_encounter_append(db, "e1", 2, "a", "{}", "{}", NULL, &cur), DB_OK);
    cr_assert_eq(cur, 3);
    int64_t n = 0;
    cr_assert_eq(db_events(db, "e1", 0, INT64_MAX, 100, test_db_count_contiguous, &n), DB_OK);
    cr_assert_eq(n, 3);
    db_close(db);
    run_pg_script("stop", own);
}

/* ---- db_listen_start: changes committed through one handle, heard by another's listener ---- */

#define HEARD_MAX 32

/* What a listener heard, in order, for a test to wait on. */
struct heard {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int n;
    enum db_change what[HEARD_MAX];
    char id[HEARD_MAX][40];
    int64_t version[HEARD_MAX];
};

static void heard_init(struct heard *h)
{
    memset(h, 0, sizeof *h);
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->cond, NULL);
}

static void on_heard(void *ud, enum db_change what, const char *id, int64_t version)
{
    struct heard *h = ud;
    pthread_mutex_lock(&h->lock);
    if (h->n < HEARD_MAX) {
        h->what[h->n] = what;
        snprintf(h->id[h->n], sizeof h->id[h->n], "%s", id ? id : "");
        h->version[h->n] = version;
        h->n++;
    }
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->lock);
}

/* Waits until the listener has heard at least n things, however long that takes; how many it
 * heard. */
static int heard_wait(struct heard *h, int n)
{
    pthread_mutex_lock(&h->lock);
    while (h->n < n)
        pthread_cond_wait(&h->cond, &h->lock);
    int got = h->n;
    pthread_mutex_unlock(&h->lock);
    return got;
}

Test(db, listening_is_unsupported_on_sqlite)
{
    SQLITE_ONLY();
    struct db *db = NULL;
    cr_assert_eq(db_open(path, &db), DB_OK);
    struct heard h;
    heard_init(&h);
    cr_assert_eq(db_listen_start(db, on_heard, &h), DB_ERR_UNSUPPORTED);
    db_listen_stop(db); /* nothing runs: nothing to do */
    db_close(db);
    cr_assert_eq(h.n, 0);
}

/* Handle a listens, handle b writes (as two instances would): a hears each committed append
 * with its version and the deletion, in commit order, and nothing of a write refused for a
 * stale version (its transaction rolled back, and its NOTIFY with it): the next thing heard
 * after the deletion is a later encounter's creation... */
Test(db, committed_appends_and_deletes_are_heard_by_another_handle_and_refused_ones_are_not)
{
    PG_ONLY();
    struct db *a = NULL, *b = NULL;
    open_twice(path, &a, &b);
    struct heard h;
    heard_init(&h);
    cr_assert_eq(db_listen_start(a, on_heard, &h), DB_OK);
    cr_assert_eq(db_listen_start(a, on_heard, &h), DB_ERR_IO, "one listener a handle");
    cr_assert_eq(heard_wait(&h, 1), 1, "the listener connects");
    cr_assert_eq(h.what[0], DB_CHANGE_LISTENING);

    unsigned char token[DB_HASH_LEN] = {4};
    create_e1(b, token);
    int64_t cur = 0;
    cr_assert_eq(db_encounter_append(b, "e1", 1, "a", "{}", "{}", NULL, &cur), DB_OK);
    cr_assert_eq(db_encounter_append(b, "e1", 1, "a", "{}", "{}", NULL, &cur), DB_ERR_CONFLICT);
    cr_assert_eq(db_encounter_append(b, "e1", 2, "a", "{}", "{}", NULL, &cur), DB_OK);
    cr_assert_eq(db_encounter_delete(b, "e1", 1, &cur), DB_ERR_CONFLICT);
    cr_assert_eq(db_encounter_delete(b, "e1", 3, &cur), DB_OK);
    /* ... an append to e2 (creations are not told): heard in commit order, it comes after
     * anything the refused writes could have sent. */
    cr_assert_eq(db_encounter_create(b, "e2", token, "{}", "{}", "created", "{}", NULL), DB_OK);
    cr_assert_eq(db_encounter_append(b, "e2", 1, "a", "{}", "{}", NULL, &cur), DB_OK);
    cr_assert_eq(heard_wait(&h, 5), 5);
    cr_assert_eq(h.what[4], DB_CHANGE_APPENDED);
    cr_assert_str_eq(h.id[4], "e2", "nothing more of e1: refused writes are not told");
    cr_assert_eq(h.what[1], DB_CHANGE_APPENDED);
    cr_assert_str_eq(h.id[1], "e1");
    cr_assert_eq(h.version[1], 2);
    cr_assert_eq(h.what[2], DB_CHANGE_APPENDED);
    cr_assert_eq(h.version[2], 3);
    cr_assert_eq(h.what[3], DB_CHANGE_DELETED);
    cr_assert_str_eq(h.id[3], "e1");
    db_listen_stop(a);
    db_listen_stop(a); /* stopped already: nothing */
    db_close(a);
    db_close(b);
}

/* PostgreSQL stops under a listener and starts again: the listener says it lost the
 * connection, connects again by itself and says so (so its caller reads what it missed), and
 * hears the writes made after. */
Test(db, the_listener_reconnects_after_postgres_restarts)
{
    PG_ONLY();
    char own[64], url[160];
    start_own_pg("pgl", own, sizeof own, url, sizeof url);
    struct db *a = NULL, *b = NULL;
    open_twice(url, &a, &b);
    struct heard h;
    heard_init(&h);
    cr_assert_eq(db_listen_start(a, on_heard, &h), DB_OK);
    cr_assert_eq(heard_wait(&h, 1), 1);
    unsigned char token[DB_HASH_LEN] = {6};
    create_e1(b, token);

    run_pg_script("restart", own);
    cr_assert_geq(heard_wait(&h, 3), 3, "down, then up again");
    cr_assert_eq(h.what[1], DB_CHANGE_NOT_LISTENING);
    cr_assert_eq(h.what[2], DB_CHANGE_LISTENING);
    int64_t cur = 0;
    int rc = DB_ERR_IO;
    for (int i = 0; i < 3 && rc != DB_OK; i++)
        rc = db_encounter_append(b, "e1", 1, "a", "{}", "{}", NULL, &cur);
    cr_assert_eq(rc, DB_OK, "%s", db_strerror(rc));
    cr_assert_eq(heard_wait(&h, 4), 4);
    cr_assert_eq(h.what[3], DB_CHANGE_APPENDED);
    cr_assert_eq(h.version[3], 2);
    db_close(a); /* stops the listener */
    db_close(b);
    run_pg_script("stop", own);
}

/* Discord channels (service/discord/): a binding is kept, replaced by a second, and a channel
 * never bound is not found. */
Test(db, a_discord_channel_binding_is_stored_and_replaced)
{
    struct db *db = NULL;
    cr_assert_eq(db_open(path, &db), DB_OK);
    struct db_channel got, c = {.channel_id = "123456789012345678",
                                .encounter_id = "abc",
                                .token = "t0ken",
                                .game_master = "42"};
    cr_assert_eq(db_channel_get(db, c.channel_id, &got), DB_ERR_NOT_FOUND);
    cr_assert_eq(db_channel_put(db, &c), DB_OK);
    cr_assert_eq(db_channel_get(db, c.channel_id, &got), DB_OK);
    cr_assert_str_eq(got.encounter_id, "abc");
    cr_assert_str_eq(got.token, "t0ken");
    cr_assert_str_eq(got.game_master, "42");
    snprintf(c.encounter_id, sizeof c.encounter_id, "def");
    snprintf(c.game_master, sizeof c.game_master, "43");
    cr_assert_eq(db_channel_put(db, &c), DB_OK);
    cr_assert_eq(db_channel_get(db, c.channel_id, &got), DB_OK);
    cr_assert_str_eq(got.encounter_id, "def");
    cr_assert_str_eq(got.game_master, "43");
    cr_assert_eq(db_channel_get(db, "1", &got), DB_ERR_NOT_FOUND);
    db_close(db);
}
