/* A small keep-alive HTTP/1.1 client for the encounter benches, and the encounter they use:
 * an attacker "a" and a defender "d" side by side on a 20 x 20 map. */
#ifndef TACTICS_BENCH_ENCOUNTER_CLIENT_H
#define TACTICS_BENCH_ENCOUNTER_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

struct conn {
    int fd;
    /* One whole answer: a page of 500 events with their explain texts is over 1 MiB. */
    char buf[1 << 22];
    size_t len;
};

struct enc {
    char id[64];
    char token[80];
    long long version;
};

double now_s(void);

/* Connects to 127.0.0.1:port; -1 when refused. */
int conn_open(struct conn *c, unsigned port);

/* Sends a request and reads its response: the status (-1 when the connection failed), the
 * ETag's version into *version, the body into *out_body (valid until the next call). */
int request(struct conn *c, const char *method, const char *path, const char *headers,
            const char *body, long long *version, const char **out_body);

/* Creates the encounter and its two combatants; exits on failure. */
void enc_setup(struct conn *c, struct enc *e);

/* Posts one action with the encounter's token and version; returns the status. */
int enc_act(struct conn *c, struct enc *e, const char *action);

/* The durability check of encounter i, whose stored log ends at version final: no version
 * acknowledged more than once (acked[v] counts the 200s naming v, v < max_version) and none
 * acknowledged past final (lost); prints what is wrong and returns false. */
bool acked_versions_hold(int i, const unsigned char *acked, long long max_version, long long final);

#endif
