/* Group commit for the SQLite backend: appends made at once by several threads of this process
 * share one transaction and one COMMIT.
 *
 * Why: in WAL mode with synchronous=FULL every COMMIT syncs the WAL, and that sync, not the
 * SQL, is most of a write's time (bench/README.md). Writes to different encounters touch
 * different rows, yet SQLite takes writers one at a time, and each paid its own sync.
 *
 * How (a leader and its followers, as write-ahead logs commonly group their flushes): every
 * writer joins a FIFO queue. One that finds no leader leads: it begins the transaction (BEGIN
 * IMMEDIATE, waiting on other processes through the busy timeout as a lone write does), then
 * takes up to GROUP_MAX queued appends -- its own, and those that arrived while the batch before
 * it was syncing -- and runs each under its own SAVEPOINT, so that an append whose idempotency
 * key, version check or statement fails rolls back to its savepoint and leaves its neighbours'
 * events in place. One COMMIT then makes the batch durable, and only after it has returned are
 * the writers given their results and woken. The leader then steps down and wakes the head of
 * the queue, which leads the next batch. A lone writer leads at once and its batch is itself:
 * there is no waiting window, so nothing is added to its latency but a mutex and a savepoint.
 *
 * Asynchronous appends (db_encounter_append_async: an HTTP write that frees its worker thread
 * while it waits, so that a batch is not capped at the number of worker threads). One that
 * finds no leader leads at once, on its own thread, exactly as above. One that finds a leader
 * joins the queue and returns DB_PENDING: no thread waits for it. When its batch has committed
 * (or failed), the leader sets its rc and current and, after releasing group_lock, calls its
 * done callback. Liveness: a non-empty queue always has a leader or a thread woken to lead.
 * A leader stepping down with a synchronous head wakes that writer, as above; with an
 * asynchronous head, which has no thread, it wakes the committer, a thread of this handle's
 * own that leads batches while the queue is not empty (started with the first pending
 * append; an append whose committer cannot be started waits as a synchronous one). The
 * stepping-down leader does not lead on itself: under steady load a worker thread would then
 * lead for ever and never get back to its own connections and its own answer.
 *
 * Results inside a batch are those of running its appends one after another in queue order: a
 * second append to one encounter sees the first one's event (and gets its conflict), a second
 * use of one idempotency key sees the first one's record. All of them hold only if the COMMIT
 * does: when it fails, every append of the batch fails with it, a conflict included (the
 * version it reported may have been a neighbour's, now rolled back).
 *
 * After some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM, SQLITE_BUSY) SQLite may roll the
 * whole transaction back by itself (sqlite3_get_autocommit turns true again). Then the append
 * that failed keeps its error, and the batch's other appends run again from a new BEGIN, as if
 * they had come after it: each such round removes one append, so there are at most GROUP_MAX.
 *
 * Other processes on the same file are unchanged: the leader's BEGIN IMMEDIATE takes SQLite's
 * write lock like any writer's. */
#include <assert.h>
#include <stdbool.h>
#include <string.h>

#include "db/sqlite/internal.h"

/* The most appends one transaction holds, so that a leader's batch, and the wait of the writers
 * in it, stay bounded under any load. */
#define GROUP_MAX 64

/* Not a db_status: the append has not been run in the current transaction yet. */
#define NOT_RUN 2

struct batch {
    struct db_sqlite_append *items[GROUP_MAX];
    bool alone[GROUP_MAX]; /* its failure ended a transaction: its rc is final */
    int n;
};

/* Moves up to GROUP_MAX appends from the queue's head into b. Under group_lock. */
static void take(struct db_sqlite *db, struct batch *b)
{
    b->n = 0;
    while (db->queue_head != NULL && b->n < GROUP_MAX) {
        struct db_sqlite_append *a = db->queue_head;
        db->queue_head = a->next;
        a->next = NULL;
        a->rc = NOT_RUN;
        b->alone[b->n] = false;
        b->items[b->n++] = a;
        db->queued--;
    }
    if (db->queue_head == NULL)
        db->queue_tail = NULL;
}

/* Every append of b whose result is not final gets rc. */
static void settle(struct batch *b, int rc)
{
    for (int i = 0; i < b->n; i++)
        if (!b->alone[i])
            b->items[i]->rc = rc;
}

/* Runs b's appends in the open transaction, each under its own savepoint, then COMMITs. Returns
 * DB_OK when the transaction committed (each append's rc is its own result), or the error that
 * ended it (the appends not failed alone are to get it; the transaction may still be open). */
static int run_batch(struct db_sqlite *db, struct db_conn *c, struct batch *b)
{
    for (int i = 0; i < b->n; i++) {
        struct db_sqlite_append *a = b->items[i];
        if (b->alone[i])
            continue;
        int rc = db_sqlite_exec(db, c, ST_SAVEPOINT);
        if (rc != DB_OK)
            return rc;
        rc = db_sqlite_append_in_tx(db, c, a);
        if (rc == DB_OK) {
            if ((rc = db_sqlite_exec(db, c, ST_RELEASE)) != DB_OK)
                return rc;
            a->rc = DB_OK;
            continue;
        }
        a->rc = rc;
        if (sqlite3_get_autocommit(c->conn)) {
            /* SQLite ended the transaction: a's error stands, the rest start again. */
            b->alone[i] = true;
            settle(b, NOT_RUN);
            if ((rc = db_sqlite_exec(db, c, ST_BEGIN)) != DB_OK)
                return rc;
            i = -1;
            continue;
        }
        /* Only a's own statements are undone; RELEASE then closes its savepoint. */
        if ((rc = db_sqlite_exec(db, c, ST_ROLLBACK_TO)) != DB_OK ||
            (rc = db_sqlite_exec(db, c, ST_RELEASE)) != DB_OK)
            return rc;
    }
    return db_sqlite_exec(db, c, ST_COMMIT);
}

/* Hands each append of b its result: a waiting writer is woken, an asynchronous one gets its
 * rc and current and is put in told[] (its done is called by the caller, once group_lock is
 * released: until then the writer may not reuse or free it). Returns how many were told. Under
 * group_lock. */
static int give_results(struct batch *b, struct db_append_wait **told)
{
    int n = 0;
    for (int i = 0; i < b->n; i++) {
        struct db_sqlite_append *a = b->items[i];
        if (a->async != NULL) {
            a->async->rc = a->rc;
            a->async->current = a->rc == DB_OK || a->rc == DB_ERR_CONFLICT ? a->current : 0;
            told[n++] = a->async;
        } else {
            a->done = true;
            pthread_cond_signal(&a->wake);
        }
    }
    return n;
}

/* Leads one batch: begins, takes the queue's head, runs and commits it, then hands each writer
 * its result, steps down and wakes the next leader (the head's writer, or the committer for an
 * asynchronous head). Called without group_lock, by a thread that set db->leading. */
static void lead(struct db_sqlite *db)
{
    struct batch b;
    struct db_append_wait *told[GROUP_MAX];
    struct db_conn *c = db_sqlite_leader_conn(db);
    /* A ROLLBACK that failed below would have left the connection in its transaction, holding
     * the write lock, and every batch after it failing at BEGIN: roll back first. */
    if (c != NULL && !sqlite3_get_autocommit(c->conn))
        db_sqlite_exec(db, c, ST_ROLLBACK);
    int rc = c == NULL ? DB_ERR_IO : db_sqlite_exec(db, c, ST_BEGIN);
    /* Taken after BEGIN: the writers that came while it waited for the lock join. */
    pthread_mutex_lock(&db->group_lock);
    take(db, &b);
    pthread_mutex_unlock(&db->group_lock);
    if (rc == DB_OK)
        rc = run_batch(db, c, &b);
    if (rc != DB_OK) {
        if (c != NULL && !sqlite3_get_autocommit(c->conn))
            db_sqlite_exec(db, c, ST_ROLLBACK);
        settle(&b, rc);
    }
    pthread_mutex_lock(&db->group_lock);
    db->group_commits++;
    db->group_writes += (uint64_t)b.n;
    if ((uint64_t)b.n > db->group_largest)
        db->group_largest = (uint64_t)b.n;
    int n = give_results(&b, told);
    db->leading = false;
    if (db->queue_head != NULL && db->queue_head->async == NULL)
        pthread_cond_signal(&db->queue_head->wake);
    else if (db->queue_head != NULL)
        pthread_cond_signal(&db->committer_wake);
    pthread_mutex_unlock(&db->group_lock);
    for (int i = 0; i < n; i++)
        told[i]->done(told[i]->ud);
}

/* Queues a. Under group_lock. */
static void enqueue(struct db_sqlite *db, struct db_sqlite_append *a)
{
    a->done = false;
    a->next = NULL;
    if (db->queue_tail != NULL)
        db->queue_tail->next = a;
    else
        db->queue_head = a;
    db->queue_tail = a;
    db->queued++;
}

/* Waits until the queued, synchronous a is done, leading whenever no one does, and returns its
 * result. Called with group_lock held; returns without it. */
static int wait_done(struct db_sqlite *db, struct db_sqlite_append *a)
{
    /* a leaves the queue only into a leader's batch, and a leader steps down only after
     * marking its whole batch done: so while a is not done, either someone leads or a is
     * still queued and may lead itself. */
    while (!a->done) {
        if (!db->leading) {
            db->leading = true;
            pthread_mutex_unlock(&db->group_lock);
            lead(db);
            pthread_mutex_lock(&db->group_lock);
        } else {
            pthread_cond_wait(&a->wake, &db->group_lock);
        }
    }
    pthread_mutex_unlock(&db->group_lock);
    pthread_cond_destroy(&a->wake);
    return a->rc;
}

int db_sqlite_group_append(struct db_sqlite *db, struct db_sqlite_append *a)
{
    a->async = NULL;
    if (pthread_cond_init(&a->wake, NULL) != 0)
        return DB_ERR_NOMEM;
    pthread_mutex_lock(&db->group_lock);
    enqueue(db, a);
    return wait_done(db, a);
}

/* The committer's body: leads while the queue has appends and no one leads, until stopped with
 * an empty queue. */
static void *committer_run(void *arg)
{
    struct db_sqlite *db = arg;
    pthread_mutex_lock(&db->group_lock);
    for (;;) {
        if (db->queue_head != NULL && !db->leading) {
            db->leading = true;
            pthread_mutex_unlock(&db->group_lock);
            lead(db);
            pthread_mutex_lock(&db->group_lock);
        } else if (db->committer_stop && db->queue_head == NULL) {
            break;
        } else {
            pthread_cond_wait(&db->committer_wake, &db->group_lock);
        }
    }
    pthread_mutex_unlock(&db->group_lock);
    return NULL;
}

/* Whether the committer runs, starting it on first use. Under group_lock. */
static bool committer_ready(struct db_sqlite *db)
{
    if (!db->committer_started && !db->committer_stop)
        db->committer_started = pthread_create(&db->committer, NULL, committer_run, db) == 0;
    /* Once stopped (the handle closing) it leads no more: an append then waits and leads. */
    return db->committer_started && !db->committer_stop;
}

int db_sqlite_group_append_async(struct db_sqlite *db, struct db_sqlite_append *a)
{
    struct db_append_wait *w = a->async;
    assert(w != NULL);
    pthread_mutex_lock(&db->group_lock);
    if (db->leading && committer_ready(db)) {
        /* A leader runs: a follows without a thread, told when its batch is done. From here
         * on a and w are the leader's: nothing of them may be touched. */
        enqueue(db, a);
        pthread_mutex_unlock(&db->group_lock);
        return DB_PENDING;
    }
    /* No leader (or no committer to lead after one): a waits, leading at once if it can. */
    a->async = NULL;
    if (pthread_cond_init(&a->wake, NULL) != 0) {
        pthread_mutex_unlock(&db->group_lock);
        return w->rc = DB_ERR_NOMEM;
    }
    enqueue(db, a);
    w->rc = wait_done(db, a);
    w->current = w->rc == DB_OK || w->rc == DB_ERR_CONFLICT ? a->current : 0;
    return w->rc;
}

void db_sqlite_group_stop(struct db_sqlite *db)
{
    pthread_mutex_lock(&db->group_lock);
    db->committer_stop = true;
    bool started = db->committer_started;
    pthread_cond_signal(&db->committer_wake);
    pthread_mutex_unlock(&db->group_lock);
    if (started)
        pthread_join(db->committer, NULL);
}

void db_sqlite_group_stats(struct db_sqlite *db, struct db_group_stats *out)
{
    pthread_mutex_lock(&db->group_lock);
    out->commits = db->group_commits;
    out->writes = db->group_writes;
    out->largest = db->group_largest;
    out->queued = db->queued;
    pthread_mutex_unlock(&db->group_lock);
}
