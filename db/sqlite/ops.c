/* The SQLite backend's table of functions (db/backend.h): a file path names its database. */
#include <assert.h>
#include <string.h>

#include "db/backend.h"
#include "db/sqlite/internal.h"

static bool claims(const char *path)
{
    return strncmp(path, "postgres://", 11) != 0 && strncmp(path, "postgresql://", 13) != 0;
}

static int open_db(const char *path, void **out)
{
    struct db_sqlite *db = NULL;
    int rc = db_sqlite_open(path, &db);
    *out = db;
    return rc;
}

static int encounter_append_async(void *b, struct db_append_wait *w, const char *id,
                                  int64_t expected, const char *kind, const char *payload_json,
                                  const char *state_json, struct db_replay *replay)
{
    return db_sqlite_encounter_append_async(b, w, id, expected, kind, payload_json, state_json,
                                            replay);
}

static void set_group_commit(void *b, bool on)
{
    struct db_sqlite *db = b;
    assert(db != NULL);
    db->group_commit = on;
}

/* The ops only this backend has, forwarded as the others are. */
#define SQLITE_FORWARDED(X)      X(int, limit_size, (void *b, uint64_t max_bytes), (b, max_bytes))
#define SQLITE_FORWARDED_VOID(X) X(group_stats, (void *b, struct db_group_stats *out), (b, out))

#define DB_BACKEND_PREFIXED(name) db_sqlite_##name
DB_BACKEND_DEFINE_FORWARDS()
SQLITE_FORWARDED(DB_BACKEND_FORWARD_ONE)
SQLITE_FORWARDED_VOID(DB_BACKEND_FORWARD_VOID_ONE)

const struct db_backend_ops db_sqlite_ops = {
    .name = "sqlite",
    .claims = claims,
    .open = open_db,
    .encounter_append_async = encounter_append_async,
    .set_group_commit = set_group_commit,
    /* NULL listen_start: no change notifications. And the ops forwarded unchanged: */
    SQLITE_FORWARDED(DB_BACKEND_ENTRY) SQLITE_FORWARDED_VOID(DB_BACKEND_VOID_ENTRY)
        DB_BACKEND_FORWARDED_ENTRIES};
