/* db: SQLite storage for tactics. One handle per process, safe to share between threads. */
#ifndef TACTICS_DB_H
#define TACTICS_DB_H

#include <stdint.h>

/* Every db_ function returns DB_OK (0) or one of these negative codes. */
enum db_status {
    DB_OK = 0,
    DB_ERR_OPEN = -1,           /* the file could not be opened or created */
    DB_ERR_MIGRATE = -2,        /* a migration failed; nothing of it was kept */
    DB_ERR_SCHEMA_TOO_NEW = -3, /* the file was written by a newer tacticsd */
    DB_ERR_NOT_READY = -4,      /* open, but not at the latest schema version */
    DB_ERR_IO = -5,             /* any other SQLite failure */
    DB_ERR_NOMEM = -6,
};

struct db;

/* Opens (creating if needed) the database at path, applies pending migrations inside one
 * transaction each, and returns the handle through *out. On error *out is NULL, nothing is
 * left open, and the file holds whatever migrations had fully committed before. */
int db_open(const char *path, struct db **out);

/* Closes the handle; NULL is accepted. */
void db_close(struct db *db);

/* DB_OK when the database answers a query and stands at db_latest_version(). */
int db_check_ready(struct db *db);

/* The schema version stored in the file (PRAGMA user_version). */
int db_schema_version(struct db *db, int *out);

/* The schema version this build migrates to. */
int db_latest_version(void);

/* How many SQLite calls have failed since db_open (exported as a metric). */
uint64_t db_error_count(const struct db *db);

/* A short English text for a status code, for logs (never for HTTP bodies). */
const char *db_strerror(int status);

#endif
