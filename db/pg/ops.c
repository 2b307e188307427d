/* The PostgreSQL backend's table of functions (db/backend.h): a postgres:// or postgresql://
 * URL names its database. */
#include <string.h>

#include "db/backend.h"
#include "db/pg/internal.h"

static bool claims(const char *path)
{
    return strncmp(path, "postgres://", 11) == 0 || strncmp(path, "postgresql://", 13) == 0;
}

static int open_db(const char *path, void **out)
{
    struct db_pg *db = NULL;
    int rc = db_pg_open(path, &db);
    *out = db;
    return rc;
}

static int listen_start(void *b, db_change_fn fn, void *ud, void **listener)
{
    struct db_pg_listener *l = NULL;
    int rc = db_pg_listen_start(db_pg_conninfo(b), fn, ud, &l);
    *listener = l;
    return rc;
}

static void listen_stop(void *listener)
{
    db_pg_listen_stop(listener);
}

#define DB_BACKEND_PREFIXED(name) db_pg_##name
DB_BACKEND_DEFINE_FORWARDS()

const struct db_backend_ops db_pg_ops = {
    .name = "postgresql",
    .claims = claims,
    .open = open_db,
    .listen_start = listen_start,
    .listen_stop = listen_stop,
    /* NULL limit_size, set_group_commit, group_stats and encounter_append_async: PostgreSQL's
     * operator caps its size, and each append is its own transaction (PostgreSQL groups the
     * commits of its sessions itself), run at once. And the ops forwarded unchanged: */
    DB_BACKEND_FORWARDED_ENTRIES};
