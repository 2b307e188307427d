#include "bench/encounter_client.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- a small keep-alive HTTP/1.1 client ---- */

int conn_open(struct conn *c, unsigned port)
{
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->len = 0;
    if (connect(c->fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(c->fd);
        return -1;
    }
    return 0;
}

/* Sends a request and reads its response: status, ETag version, body (NUL-terminated in
 * c->buf; valid until the next call). */
int request(struct conn *c, const char *method, const char *path, const char *headers,
            const char *body, long long *version, const char **out_body)
{
    char head[1024];
    size_t blen = body ? strlen(body) : 0;
    int n = snprintf(head, sizeof head,
                     "%s %s HTTP/1.1\r\nHost: bench\r\n%sContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\n\r\n",
                     method, path, headers ? headers : "", blen);
    /* Head and body in one write, as HTTP clients do (two writes could wake the server twice;
     * alternating runs of both clients showed no measurable difference on this machine). */
    struct iovec iov[2] = {{head, (size_t)n}, {(void *)body, blen}};
    if (writev(c->fd, iov, blen ? 2 : 1) != (ssize_t)((size_t)n + blen))
        return -1;
    c->len = 0;
    for (;;) {
        ssize_t got = read(c->fd, c->buf + c->len, sizeof c->buf - 1 - c->len);
        if (got <= 0)
            return -1;
        c->len += (size_t)got;
        c->buf[c->len] = '\0';
        char *end = strstr(c->buf, "\r\n\r\n");
        if (end == NULL)
            continue;
        const char *cl = strcasestr(c->buf, "Content-Length:");
        size_t want = cl ? (size_t)atol(cl + 15) : 0;
        if (c->len < (size_t)(end + 4 - c->buf) + want)
            continue;
        int status = atoi(c->buf + 9);
        const char *etag = strcasestr(c->buf, "ETag: \"v");
        if (version && etag)
            *version = atoll(etag + 8);
        if (out_body)
            *out_body = end + 4;
        return status;
    }
}

static const char *const attacker =
    "{\"id\":\"a\",\"side\":\"party\",\"x\":1,\"y\":1,\"speeds\":{\"walk\":30},\"defense\":{"
    "\"armor\":"
    "4},\"max_hp\":100000,\"dex\":12,\"attacks\":[{\"name\":\"longsword\",\"attack_bonus\":6,"
    "\"damage\":\"1d8+3\"}]}";
static const char *const defender =
    "{\"id\":\"d\",\"side\":\"monsters\",\"x\":2,\"y\":1,\"speeds\":{\"walk\":30},\"defense\":{"
    "\"armor\":2,\"dex\":1},\"max_hp\":100000,\"dex\":13}";

void enc_setup(struct conn *c, struct enc *e)
{
    const char *body = NULL;
    if (request(c, "POST", "/v1/encounters", NULL, "{\"map\":{\"width\":20,\"height\":20}}", NULL,
                &body) != 201) {
        fprintf(stderr, "create failed: %s\n", body ? body : "");
        exit(1);
    }
    json_t *doc = json_loads(body, 0, NULL);
    snprintf(e->id, sizeof e->id, "%s", json_string_value(json_object_get(doc, "id")));
    snprintf(e->token, sizeof e->token, "%s", json_string_value(json_object_get(doc, "token")));
    e->version = 1;
    json_decref(doc);
    char path[128], headers[256];
    snprintf(path, sizeof path, "/v1/encounters/%s/combatants", e->id);
    const char *adds[] = {attacker, defender};
    for (int i = 0; i < 2; i++) {
        snprintf(headers, sizeof headers, "Authorization: Bearer %s\r\nIf-Match: \"v%lld\"\r\n",
                 e->token, e->version);
        if (request(c, "POST", path, headers, adds[i], &e->version, NULL) != 201) {
            fprintf(stderr, "add failed\n");
            exit(1);
        }
    }
}

int enc_act(struct conn *c, struct enc *e, const char *action)
{
    char path[128], headers[256];
    snprintf(path, sizeof path, "/v1/encounters/%s/actions", e->id);
    snprintf(headers, sizeof headers, "Authorization: Bearer %s\r\nIf-Match: \"v%lld\"\r\n",
             e->token, e->version);
    return request(c, "POST", path, headers, action, &e->version, NULL);
}

bool acked_versions_hold(int i, const unsigned char *acked, long long max_version, long long final)
{
    for (long long v = 0; v < max_version; v++) {
        if (acked[v] > 1) {
            fprintf(stderr, "encounter %d: version %lld acknowledged %d times\n", i, v, acked[v]);
            return false;
        }
        if (acked[v] == 1 && v > final) {
            fprintf(stderr, "encounter %d: acknowledged version %lld lost (final %lld)\n", i, v,
                    final);
            return false;
        }
    }
    return true;
}
