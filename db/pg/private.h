/* What the PostgreSQL backend's files share (pg.c, pg_sql.c); the rest of the service sees
 * pg_internal.h only. */
#ifndef TACTICS_PG_PRIVATE_H
#define TACTICS_PG_PRIVATE_H

#include "db/pg/internal.h"

/* The prepared statements; pg_sql[q] is the text of q. */
enum pg_query {
    Q_ENC_INSERT,
    Q_ENC_GET,
    Q_ENC_LOCK,
    Q_ENC_UPDATE,
    Q_ENC_DELETE,
    Q_ENC_LIST,
    Q_EV_INSERT,
    Q_EV_PAGE,
    Q_EV_DELETE,
    Q_IDEM_GET,
    Q_IDEM_INSERT,
    Q_IDEM_DELETE,
    Q_IDEM_EXPIRE,
    Q_NOTIFY,
    Q_CH_PUT,
    Q_CH_GET,
    Q_COUNT
};

extern const char *const pg_sql[Q_COUNT];

/* Migrations, applied in order; pg_migrations[i] brings tactics_schema_version from i to
 * i + 1 (DB_SCHEMA_VERSION of them). */
extern const char *const pg_migrations[];

/* Taken (pg_advisory_xact_lock) by every migrating transaction, so that instances starting
 * together migrate one after the other. Any constant will do: "tactics" in ASCII. */
#define MIGRATION_LOCK "7627741429446771"

#endif
