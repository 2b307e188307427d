#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
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
