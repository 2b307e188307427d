/* The PostgreSQL backend's schema and statements (pg.c runs them): the migrations, mirroring
 * SQLite's numbering, and every prepared statement, by enum pg_query. */
#include "db/pg/private.h"

/* Migrations, applied in order; migration i brings tactics_schema_version from i to i + 1.
 * They mirror SQLite's numbering (sqlite.c), so one schema version means one schema on both:
 * 2 never made SQLite's old idempotency table, which 3 replaced. Never edit a shipped one.
 * Identifiers are compared bytewise (COLLATE "C") as SQLite compares them, so that listing
 * after an id pages the same way on both. */
const char *const pg_migrations[] = {
    /* 1: encounters and their append-only event log. */
    "CREATE TABLE encounters ("
    "  id text COLLATE \"C\" PRIMARY KEY,"
    "  created_at text NOT NULL,"
    "  rules_json text NOT NULL,"
    "  version bigint NOT NULL DEFAULT 0,"
    "  token_hash bytea NOT NULL"
    ");"
    "CREATE TABLE events ("
    "  encounter_id text COLLATE \"C\" NOT NULL REFERENCES encounters(id),"
    "  seq bigint NOT NULL,"
    "  kind text NOT NULL,"
    "  payload_json text NOT NULL,"
    "  created_at text NOT NULL,"
    "  PRIMARY KEY (encounter_id, seq)"
    ");",
    /* 2: the folded state beside its log, and listing by token. */
    "ALTER TABLE encounters ADD COLUMN state_json text NOT NULL DEFAULT '{}';"
    "CREATE INDEX encounters_by_token ON encounters(token_hash, id);",
    /* 3: idempotency keys (what a retry needs, created_at in Unix seconds, see sqlite.c). */
    "CREATE TABLE idempotency_keys ("
    "  scope bytea NOT NULL,"
    "  key text NOT NULL,"
    "  request_hash bytea NOT NULL,"
    "  status integer NOT NULL,"
    "  encounter_id text COLLATE \"C\" NOT NULL,"
    "  version bigint NOT NULL,"
    "  created_at bigint NOT NULL,"
    "  PRIMARY KEY (scope, key)"
    ");"
    "CREATE INDEX idempotency_keys_by_age ON idempotency_keys(created_at);"
    "CREATE INDEX idempotency_keys_by_encounter ON idempotency_keys(encounter_id);",
    /* 4: Discord channels bound to encounters (service/discord/), as on SQLite. */
    "CREATE TABLE discord_channels ("
    "  channel_id text COLLATE \"C\" PRIMARY KEY,"
    "  encounter_id text COLLATE \"C\" NOT NULL,"
    "  token text NOT NULL,"
    "  game_master text NOT NULL,"
    "  bound_at text NOT NULL"
    ");",
};

_Static_assert(sizeof pg_migrations / sizeof pg_migrations[0] == DB_SCHEMA_VERSION,
               "one schema version on both backends");

/* Text timestamps as SQLite's strftime('%Y-%m-%dT%H:%M:%fZ'), and Unix seconds as unixepoch(). */
#define NOW_TEXT "to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
#define NOW_S    "floor(extract(epoch FROM now()))::bigint"

const char *const pg_sql[Q_COUNT] = {
    [Q_ENC_INSERT] = "INSERT INTO encounters (id, created_at, rules_json, version, token_hash, "
                     "state_json) VALUES ($1, " NOW_TEXT ", $2, $3, $4, $5)",
    [Q_ENC_GET] =
        "SELECT version, token_hash, created_at, state_json FROM encounters WHERE id = $1",
    [Q_ENC_LOCK] = "SELECT version FROM encounters WHERE id = $1 FOR UPDATE",
    [Q_ENC_UPDATE] = "UPDATE encounters SET version = $2, state_json = $3 WHERE id = $1",
    [Q_ENC_DELETE] = "DELETE FROM encounters WHERE id = $1",
    [Q_ENC_LIST] =
        "SELECT id, created_at, version, s->>'name', s->>'round', "
        "jsonb_array_length(s->'combatants'), turn_of, (SELECT c->>'name' FROM "
        "jsonb_array_elements(s->'combatants') c WHERE c->>'id' = turn_of LIMIT 1) FROM (SELECT "
        "id, created_at, version, s, s->'order'->>((s->>'turn')::int) AS turn_of FROM (SELECT id, "
        "created_at, version, state_json::jsonb AS s FROM encounters WHERE token_hash = $1 AND "
        "id > $2 ORDER BY id LIMIT $3) page) turns ORDER BY id",
    [Q_EV_INSERT] = "INSERT INTO events (encounter_id, seq, kind, payload_json, created_at) "
                    "VALUES ($1, $2, $3, $4, " NOW_TEXT ")",
    [Q_EV_PAGE] = "SELECT seq, kind, payload_json, created_at FROM events WHERE encounter_id = $1 "
                  "AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT $4",
    [Q_EV_DELETE] = "DELETE FROM events WHERE encounter_id = $1",
    [Q_IDEM_GET] = "SELECT request_hash, status, version, encounter_id FROM idempotency_keys "
                   "WHERE scope = $1 AND key = $2 AND created_at > " NOW_S " - $3",
    /* An expired key is replaced, as SQLite's INSERT OR REPLACE does; a live one is left alone
     * and no row is written, which tells the caller a concurrent request took the key first. */
    [Q_IDEM_INSERT] = "INSERT INTO idempotency_keys (scope, key, request_hash, status, "
                      "encounter_id, version, created_at) VALUES ($1, $2, $3, $4, $5, $6, " NOW_S
                      ") ON CONFLICT (scope, key) DO UPDATE SET request_hash = "
                      "EXCLUDED.request_hash, status = EXCLUDED.status, encounter_id = "
                      "EXCLUDED.encounter_id, version = EXCLUDED.version, created_at = "
                      "EXCLUDED.created_at WHERE idempotency_keys.created_at <= "
                      "EXCLUDED.created_at - $7",
    [Q_IDEM_DELETE] = "DELETE FROM idempotency_keys WHERE encounter_id = $1",
    /* Eight expired keys a keyed write, as on SQLite; SKIP LOCKED so that two writers sweeping
     * at once never wait on each other (nor deadlock). */
    [Q_IDEM_EXPIRE] = "DELETE FROM idempotency_keys WHERE (scope, key) IN (SELECT scope, key "
                      "FROM idempotency_keys WHERE created_at <= " NOW_S " - $1 LIMIT 8 FOR "
                      "UPDATE SKIP LOCKED)",
    /* Delivered at COMMIT, to every instance's listener (pg_listen.c); nothing on rollback. */
    [Q_NOTIFY] = "SELECT pg_notify('" DB_PG_CHANNEL "', $1)",
    [Q_CH_PUT] = "INSERT INTO discord_channels (channel_id, encounter_id, token, game_master, "
                 "bound_at) VALUES ($1, $2, $3, $4, " NOW_TEXT ") ON CONFLICT (channel_id) DO "
                 "UPDATE SET encounter_id = EXCLUDED.encounter_id, token = EXCLUDED.token, "
                 "game_master = EXCLUDED.game_master, bound_at = EXCLUDED.bound_at",
    [Q_CH_GET] = "SELECT encounter_id, token, game_master FROM discord_channels WHERE "
                 "channel_id = $1",
};
