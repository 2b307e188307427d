#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"

static char dir[64];
static char path[128];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/tactics-db-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.db", dir);
}

static void teardown(void)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(db, .init = setup, .fini = teardown);

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
    sqlite3 *raw = NULL;
    cr_assert_eq(sqlite3_open(path, &raw), SQLITE_OK);
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", db_latest_version() + 1);
    cr_assert_eq(sqlite3_exec(raw, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(raw);
    struct db *db = (struct db *)1;
    cr_assert_eq(db_open(path, &db), DB_ERR_SCHEMA_TOO_NEW);
    cr_assert_null(db);
}

Test(db, unopenable_path_is_an_error_not_a_crash)
{
    struct db *db = (struct db *)1;
    cr_assert_eq(db_open("/nonexistent-dir/x/y.db", &db), DB_ERR_OPEN);
    cr_assert_null(db);
}

Test(db, a_failed_migration_leaves_the_file_as_it_was)
{
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
    struct db *db = NULL;
    cr_assert_eq(db_open(path, &db), DB_OK);
    cr_assert_eq(db_check_ready(db), DB_OK);
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
    struct db *db = NULL;
    cr_assert_eq(db_open(path, &db), DB_OK);
    cr_assert_eq(db_check_ready(db), DB_OK);
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

static int list_one(void *ud, const char *id, const char *created_at, int64_t version)
{
    (void)created_at, (void)version;
    strcat(ud, id);
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

/* Keys expire: past the period a key is never replayed, and may be used again. */
Test(db, idempotency_keys_expire_and_can_be_used_again)
{
    struct db *db = NULL;
    cr_assert_eq(db_open(path, &db), DB_OK);
    db_set_replay_ttl(db, 3); /* whole seconds: live for 2 to 3 s */
    unsigned char token[DB_HASH_LEN] = {7};
    cr_assert_eq(db_encounter_create(db, "e1", token, "{}", "{}", "created", "{}", NULL), DB_OK);
    struct db_replay r = {.key = "k", .status = 200, .version = 2};
    memcpy(r.scope, token, DB_HASH_LEN);
    int64_t cur = 0;
    cr_assert_eq(db_encounter_append(db, "e1", 1, "a", "{}", "{}", &r, &cur), DB_OK);
    struct db_replay look = {.key = "k"};
    memcpy(look.scope, token, DB_HASH_LEN);
    cr_assert_eq(db_replay_get(db, &look), DB_OK);
    sleep(4);
    cr_assert_eq(db_replay_get(db, &look), DB_ERR_NOT_FOUND);
    struct db_replay reuse = {.key = "k", .status = 200, .version = 3};
    memcpy(reuse.scope, token, DB_HASH_LEN);
    cr_assert_eq(db_encounter_append(db, "e1", 2, "b", "{}", "{}", &reuse, &cur), DB_OK);
    db_set_replay_ttl(db, DB_REPLAY_TTL_DEFAULT);
    cr_assert_eq(db_replay_get(db, &look), DB_OK);
    cr_assert_eq(look.version, 3);
    db_close(db);
}
