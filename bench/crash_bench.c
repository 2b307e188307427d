/* Crash safety (issues 8 and 9): streams writes to one encounter and kills tacticsd with
 * SIGKILL at random moments until WRITES writes have been acknowledged. After every kill the
 * file must pass PRAGMA integrity_check, and after every restart the encounter must hold every
 * acknowledged event and verify. Prints the kills, the writes and any loss.
 * Usage: crash_bench TACTICSD DIR [writes, default 10000] */
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "encounter_client.h"

static pid_t server;
static unsigned port;

/* Starts tacticsd on a free port and waits for its "listening" line. */
static void start(const char *bin, const char *dir)
{
    char db[512], log[512];
    snprintf(db, sizeof db, "%s/crash.db", dir);
    snprintf(log, sizeof log, "%s/log", dir);
    unlink(log);
    server = fork();
    if (server == 0) {
        if (freopen(log, "w", stderr) == NULL)
            _exit(127);
        execl(bin, bin, "--port", "0", "--db", db, (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 400; i++) {
        FILE *f = fopen(log, "r");
        char line[512];
        while (f != NULL && fgets(line, sizeof line, f) != NULL) {
            const char *p = strstr(line, "\"listening\"") ? strstr(line, "\"port\":") : NULL;
            if (p != NULL) {
                port = (unsigned)atoi(p + 7);
                fclose(f);
                return;
            }
        }
        if (f != NULL)
            fclose(f);
        usleep(25000);
    }
    fprintf(stderr, "tacticsd did not start\n");
    exit(1);
}

static int integrity(const char *dir)
{
    char db[512];
    snprintf(db, sizeof db, "%s/crash.db", dir);
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    int ok = 0;
    if (sqlite3_open(db, &h) == SQLITE_OK &&
        sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        ok = strcmp((const char *)sqlite3_column_text(st, 0), "ok") == 0;
    sqlite3_finalize(st);
    sqlite3_close(h);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: crash_bench TACTICSD DIR [writes]\n");
        return 2;
    }
    long target = argc > 3 ? atol(argv[3]) : 10000;
    srand((unsigned)time(NULL));
    static struct conn c;
    struct enc e;
    start(argv[1], argv[2]);
    if (conn_open(&c, port) != 0)
        return 1;
    enc_setup(&c, &e);
    long acked = 0, kills = 0, lost = 0, bad = 0;
    double t0 = now_s();
    while (acked < target) {
        /* Kill after a random 50 to 550 ms of writes. */
        pid_t killer = fork();
        if (killer == 0) {
            usleep((useconds_t)(50000 + rand() % 500000));
            kill(server, SIGKILL);
            _exit(0);
        }
        for (long k = 0;; k++) {
            char action[96];
            snprintf(action, sizeof action, "{\"type\":\"facing\",\"actor\":\"a\",\"facing\":%ld}",
                     k % 8);
            if (enc_act(&c, &e, action) != 200)
                break;
            acked++;
        }
        int status;
        waitpid(killer, &status, 0);
        waitpid(server, &status, 0);
        close(c.fd);
        kills++;
        if (!integrity(argv[2])) {
            bad++;
            fprintf(stderr, "integrity_check failed after kill %ld\n", kills);
        }
        start(argv[1], argv[2]);
        if (conn_open(&c, port) != 0)
            return 1;
        /* Every acknowledged event is there: the stored version is at least the last one
         * acknowledged (a write the kill interrupted may have landed unacknowledged). */
        char path[160];
        long long stored = 0;
        const char *body = NULL;
        snprintf(path, sizeof path, "/v1/encounters/%s", e.id);
        if (request(&c, "GET", path, NULL, NULL, &stored, &body) != 200 || stored < e.version) {
            lost++;
            fprintf(stderr, "after kill %ld: stored version %lld < acknowledged %lld\n", kills,
                    stored, e.version);
        }
        e.version = stored;
        snprintf(path, sizeof path, "/v1/encounters/%s/verify", e.id);
        if (request(&c, "POST", path, NULL, NULL, NULL, &body) != 200 ||
            strstr(body, "\"ok\":true") == NULL) {
            bad++;
            fprintf(stderr, "verify failed after kill %ld\n", kills);
        }
    }
    kill(server, SIGTERM);
    int status;
    waitpid(server, &status, 0);
    printf("crash bench: %ld writes acknowledged across %ld SIGKILLs in %.0f s; events lost %ld, "
           "integrity or verify failures %ld; final version %lld\n",
           acked, kills, now_s() - t0, lost, bad, e.version);
    return lost == 0 && bad == 0 ? 0 : 1;
}
