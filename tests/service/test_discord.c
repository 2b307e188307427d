/* POST /v1/discord/interactions (issue 31) through the real tacticsd: requests signed with a
 * keypair made here, shaped as Discord documents them ("Interaction Object", "Receiving and
 * Responding"); a whole round played (bind, init, move, attack, map, undo); forged, replayed
 * and stale requests refused; a deferred command's followup caught by a local listener. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <jansson.h>
#include <netinet/in.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tests/service/harness.h"

#define GM     "111111111111111111"
#define PLAYER "222222222222222222"
#define OTHER  "333333333333333333"
#define CHAN   "999999999999999999"

static struct server srv;
static unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];

/* A server with the test's public key, and extra arguments. */
static void start(const char *extra1, const char *extra2)
{
    cr_assert_geq(sodium_init(), 0);
    crypto_sign_keypair(pk, sk);
    static char hex[2 * crypto_sign_PUBLICKEYBYTES + 1];
    sodium_bin2hex(hex, sizeof hex, pk, sizeof pk);
    const char *args[] = {"--discord-public-key", hex, extra1, extra2, NULL};
    server_start(&srv, args);
}

static void stop(void)
{
    server_stop(&srv);
}

/* A local listener standing in for Discord's API (--discord-api): a deferred command's
 * followup (PATCH .../messages/@original) comes to it. -1: none. */
static int api_listener = -1;

static void stop_listener(void)
{
    if (api_listener >= 0)
        close(api_listener);
    api_listener = -1;
}

/* Opens the listener; writes the --discord-api argument that points at it into arg. */
static void listen_for_followups(char *arg, size_t n)
{
    api_listener = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(api_listener, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(bind(api_listener, (struct sockaddr *)&a, sizeof a), 0);
    cr_assert_eq(listen(api_listener, 4), 0);
    socklen_t al = sizeof a;
    getsockname(api_listener, (struct sockaddr *)&a, &al);
    snprintf(arg, n, "--discord-api=http://127.0.0.1:%d/api/v10", ntohs(a.sin_port));
}

/* A followup as the listener received it: the request's head and its body. */
struct followup {
    char *head; /* NUL-terminated, through the blank line */
    char *body; /* body_len bytes, and a NUL */
    size_t body_len;
    char content_type[160];
};

static void followup_free(struct followup *f)
{
    free(f->head);
    free(f->body);
}

/* Waits for the next followup (accept blocks on the server's connection: an event, bounded
 * only so that a followup that never comes fails here by name), reads it whole (its head,
 * then Content-Length bytes; a 100 Continue when curl asks for one) and answers 200. */
static void next_followup(struct followup *f)
{
    cr_assert_geq(api_listener, 0, "no listener for followups");
    struct timeval tv = {.tv_sec = 60};
    setsockopt(api_listener, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    int c = accept(api_listener, NULL, NULL);
    cr_assert_geq(c, 0, "no followup came");
    setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    size_t cap = 16384, n = 0, need = 0, head_len = 0;
    char *buf = malloc(cap + 1);
    bool continued = false;
    for (;;) {
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
        }
        ssize_t k = recv(c, buf + n, cap - n, 0);
        cr_assert_gt(k, 0, "the followup ended early");
        n += (size_t)k;
        buf[n] = '\0';
        char *sep = head_len == 0 ? strstr(buf, "\r\n\r\n") : NULL;
        if (sep != NULL) {
            head_len = (size_t)(sep + 4 - buf);
            const char *cl = strcasestr(buf, "Content-Length:");
            cr_assert(cl != NULL && cl < sep, "a followup without Content-Length: %s", buf);
            need = head_len + (size_t)atol(cl + 15);
            const char *expect = strcasestr(buf, "Expect: 100-continue");
            if (expect != NULL && expect < sep && !continued) {
                const char *go = "HTTP/1.1 100 Continue\r\n\r\n";
                cr_assert_eq(send(c, go, strlen(go), 0), (ssize_t)strlen(go));
                continued = true;
            }
        }
        if (head_len > 0 && n >= need)
            break;
    }
    const char *reply = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}";
    cr_assert_eq(send(c, reply, strlen(reply), 0), (ssize_t)strlen(reply));
    close(c);
    f->head = strndup(buf, head_len);
    f->body_len = need - head_len;
    f->body = malloc(f->body_len + 1);
    memcpy(f->body, buf + head_len, f->body_len);
    f->body[f->body_len] = '\0';
    free(buf);
    f->content_type[0] = '\0';
    const char *ct = strcasestr(f->head, "\r\nContent-Type: ");
    if (ct != NULL)
        sscanf(ct + 16, "%159[^\r]", f->content_type);
}

static void stop_all(void)
{
    stop();
    stop_listener();
}

TestSuite(discord, .fini = stop_all, .timeout = 120);

/* Sends body signed at ts (the signature's hex into sig_out when not NULL; sig given: sent
 * instead of signing). */
static void send_signed(const char *body, long long ts, const char *sig, char *sig_out,
                        struct http_response *r)
{
    char tstext[24];
    snprintf(tstext, sizeof tstext, "%lld", ts);
    char hex[2 * crypto_sign_BYTES + 1];
    if (sig == NULL) {
        size_t tn = strlen(tstext), bn = strlen(body);
        unsigned char *msg = malloc(tn + bn);
        memcpy(msg, tstext, tn);
        memcpy(msg + tn, body, bn);
        unsigned char s[crypto_sign_BYTES];
        crypto_sign_detached(s, NULL, msg, tn + bn, sk);
        free(msg);
        sodium_bin2hex(hex, sizeof hex, s, sizeof s);
        sig = hex;
    }
    if (sig_out != NULL)
        strcpy(sig_out, sig);
    char headers[512];
    snprintf(headers, sizeof headers,
             "Content-Type: application/json\r\nX-Signature-Ed25519: %s\r\nX-Signature-Timestamp: "
             "%s\r\n",
             sig, tstext);
    http_request(&srv, "POST", "/v1/discord/interactions", headers, body, r);
}

/* An interaction as Discord sends one: type 2 (APPLICATION_COMMAND) or 4 (autocomplete), in a
 * guild channel, by member user, the command's data and options (JSON text). */
static char *interaction(int type, const char *user, const char *name, const char *options)
{
    static int n;
    n++;
    char *text = NULL;
    if (asprintf(&text,
                 "{\"type\":%d,\"id\":\"10%016d\",\"application_id\":\"123456789012345678\","
                 "\"token\":\"aW50ZXJhY3Rpb246dG9rZW4.test-%d\",\"version\":1,"
                 "\"guild_id\":\"555555555555555555\",\"channel_id\":\"" CHAN "\","
                 "\"member\":{\"user\":{\"id\":\"%s\",\"username\":\"u%s\"},\"roles\":[]},"
                 "\"data\":{\"id\":\"777777777777777777\",\"name\":\"%s\",\"type\":1,"
                 "\"options\":%s}}",
                 type, n, n, user, user, name, options ? options : "[]") < 0)
        cr_assert_fail("asprintf");
    return text;
}

/* The JSON of a reply or a followup body of Content-Type ct (for multipart: the payload_json
 * part, and *png the attached file, *png_len its size). */
static json_t *parse_reply(const char *name, const char *ct, const char *body, size_t len,
                           char **png, size_t *png_len)
{
    json_t *doc = NULL;
    if (png != NULL)
        *png = NULL;
    if (strncmp(ct, "multipart/form-data; boundary=", 30) == 0) {
        /* Discord's "Uploading Files": payload_json, then files[0]. */
        char delim[200];
        snprintf(delim, sizeof delim, "--%s", ct + 30);
        const char *p = strstr(body, "name=\"payload_json\"");
        cr_assert_not_null(p);
        p = strstr(p, "\r\n\r\n") + 4;
        const char *end = strstr(p, delim);
        doc = json_loadb(p, (size_t)(end - p - 2), 0, NULL);
        const char *f =
            (const char *)memmem(body, len, "name=\"files[0]\"; filename=\"map.png\"", 35);
        cr_assert_not_null(f, "/%s: no files[0] part", name);
        f = (const char *)memmem(f, len - (size_t)(f - body), "\r\n\r\n", 4) + 4;
        const char *fend = (const char *)memmem(f, len - (size_t)(f - body), delim, strlen(delim));
        cr_assert_not_null(fend);
        cr_assert_not_null(png, "/%s answered a file", name);
        *png_len = (size_t)(fend - f) - 2; /* the CRLF before the delimiter */
        *png = malloc(*png_len);
        memcpy(*png, f, *png_len);
    } else {
        cr_assert_str_eq(ct, "application/json");
        doc = json_loadb(body, len, 0, NULL);
    }
    cr_assert_not_null(doc, "/%s: %s", name, body);
    return doc;
}

/* Sends a command now; returns the parsed JSON response (for multipart: the payload_json part,
 * and *png the attached file, *png_len its size). */
static json_t *reply_to(const char *user, const char *name, const char *options, int type,
                        char **png, size_t *png_len)
{
    char *body = interaction(type, user, name, options);
    struct http_response r;
    send_signed(body, (long long)time(NULL), NULL, NULL, &r);
    free(body);
    cr_assert_eq(r.status, 200, "/%s: %d %s", name, r.status, r.body);
    char ct[160] = "";
    http_header(&r, "Content-Type", ct, sizeof ct);
    json_t *doc = parse_reply(name, ct, r.body, r.body_len, png, png_len);
    http_response_free(&r);
    return doc;
}

/* reply_to's answer; but a command that took longer than --discord-defer-ms is answered
 * DEFERRED (type 5) and finished by a followup, and when the test listens for followups, the
 * followup's message is returned as the message of a type 4 reply: the checks then hold
 * whichever way the server answered. */
static json_t *command(const char *user, const char *name, const char *options, int type,
                       char **png, size_t *png_len)
{
    json_t *doc = reply_to(user, name, options, type, png, png_len);
    if (json_integer_value(json_object_get(doc, "type")) != 5 || api_listener < 0)
        return doc;
    cr_assert_eq(json_object_size(doc), 1, "/%s: DEFERRED carries no data", name);
    json_decref(doc);
    struct followup f;
    next_followup(&f);
    cr_assert_eq(strncmp(f.head, "PATCH /api/v10/webhooks/123456789012345678/", 43), 0, "%s",
                 f.head);
    cr_assert_not_null(strstr(f.head, "/messages/@original HTTP/1.1"), "%s", f.head);
    json_t *msg = parse_reply(name, f.content_type, f.body, f.body_len, png, png_len);
    followup_free(&f);
    cr_assert_null(json_object_get(msg, "type"), "/%s: a followup is the message alone", name);
    return json_pack("{s:i, s:o}", "type", 4, "data", msg);
}

/* Checks a response against Discord's documented shape: {type, data}, a message's content at
 * most 2000 characters, flags 64 when ephemeral; returns data. */
static json_t *message(json_t *doc, int type, bool ephemeral)
{
    cr_assert_eq(json_integer_value(json_object_get(doc, "type")), type, "%s", json_dumps(doc, 0));
    json_t *data = json_object_get(doc, "data");
    cr_assert(json_is_object(data));
    const char *k;
    json_t *v;
    json_object_foreach(doc, k, v)
    {
        cr_assert(strcmp(k, "type") == 0 || strcmp(k, "data") == 0, "unknown member %s", k);
    }
    if (type == 4) {
        const char *content = json_string_value(json_object_get(data, "content"));
        cr_assert_not_null(content);
        cr_assert_gt(strlen(content), 0);
        cr_assert_leq(strlen(content), 2000);
        json_t *flags = json_object_get(data, "flags");
        if (ephemeral)
            cr_assert_eq(json_integer_value(flags), 64);
        else
            cr_assert(flags == NULL || (json_integer_value(flags) & 64) == 0);
    }
    return data;
}

/* The PNG signature and a well-formed IHDR (PNG specification 5.2, 11.2.2). */
/* The attached picture is the frame GET .../map.png<query> draws (issue 31: a move's reply
 * shows what the move did: overlay=event). */
static void png_is_frame(const struct enc *e, const char *query, const char *png, size_t n)
{
    char path[192];
    snprintf(path, sizeof path, "/v1/encounters/%s/map.png%s", e->id, query);
    struct http_response r;
    http_request(&srv, "GET", path, NULL, NULL, &r);
    cr_assert_eq(r.status, 200);
    cr_assert(r.body_len == n && memcmp(r.body, png, n) == 0, "the attachment is map.png%s", query);
    http_response_free(&r);
}

static void png_decodes(const char *png, size_t n)
{
    cr_assert_gt(n, 33);
    cr_assert_eq(memcmp(png, "\x89PNG\r\n\x1a\n", 8), 0);
    cr_assert_eq(memcmp(png + 8, "\0\0\0\rIHDR", 8), 0);
    uint32_t w, h;
    memcpy(&w, png + 16, 4);
    memcpy(&h, png + 20, 4);
    cr_assert_gt(ntohl(w), 0);
    cr_assert_gt(ntohl(h), 0);
    cr_assert_eq(png[24], 8); /* bit depth */
}

Test(discord, ping_pong_and_forged_stale_replayed_or_unsigned_requests_are_refused)
{
    start(NULL, NULL);
    const char *ping = "{\"type\":1,\"id\":\"1\",\"application_id\":\"2\",\"token\":\"t\","
                       "\"version\":1}";
    struct http_response r;
    char sig[2 * crypto_sign_BYTES + 1];
    long long now = (long long)time(NULL);
    send_signed(ping, now, NULL, sig, &r);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(r.body, "{\"type\":1}");
    http_response_free(&r);
    /* The same signed request again: a replay. */
    send_signed(ping, now, sig, NULL, &r);
    cr_assert_eq(r.status, 401);
    cr_assert_not_null(strstr(r.body, "received already"));
    http_response_free(&r);
    /* Forged: the signature of another body. */
    sig[0] = sig[0] == 'a' ? 'b' : 'a';
    send_signed(ping, now + 1, sig, NULL, &r);
    cr_assert_eq(r.status, 401);
    cr_assert_not_null(strstr(r.body, "does not verify"));
    http_response_free(&r);
    /* Stale: signed, but more than 300 s old, or as far ahead. The server reads its clock after
     * the test does, seconds later on a loaded machine, so the times are 360 s off: a request
     * 301 s ahead of the test's clock was within the window by the server's. */
    send_signed(ping, (long long)time(NULL) - 360, NULL, NULL, &r);
    cr_assert_eq(r.status, 401);
    cr_assert_not_null(strstr(r.body, "300 seconds"));
    http_response_free(&r);
    send_signed(ping, (long long)time(NULL) + 360, NULL, NULL, &r);
    cr_assert_eq(r.status, 401);
    http_response_free(&r);
    /* Signed but not JSON, or not an interaction type this application takes. */
    send_signed("{", now, NULL, NULL, &r);
    cr_assert_eq(r.status, 400);
    http_response_free(&r);
    send_signed("{\"type\":3}", now, NULL, NULL, &r);
    cr_assert_eq(r.status, 422);
    cr_assert_not_null(strstr(r.body, "/type"));
    http_response_free(&r);
    /* Unsigned. */
    http_request(&srv, "POST", "/v1/discord/interactions", "Content-Type: application/json\r\n",
                 ping, &r);
    cr_assert_eq(r.status, 401);
    http_response_free(&r);
}

Test(discord, without_a_key_the_endpoint_is_not_there)
{
    server_start(&srv, NULL);
    struct http_response r;
    http_request(&srv, "POST", "/v1/discord/interactions", "Content-Type: application/json\r\n",
                 "{\"type\":1}", &r);
    cr_assert_eq(r.status, 404);
    cr_assert_not_null(strstr(r.body, "--discord-public-key"));
    http_response_free(&r);
}

static const char *const encounter =
    "{\"name\":\"Goblin ambush\",\"map\":{\"width\":10,\"height\":10},\"seed\":7}";
static const char *const fighter =
    "{\"id\":\"fighter\",\"name\":\"Kroh\",\"owner\":\"" PLAYER "\",\"side\":\"party\",\"x\":5,"
    "\"y\":5,\"speeds\":{\"walk\":30},\"defense\":{\"armor\":5},\"max_hp\":20,\"dex\":12,"
    "\"attacks\":[{\"name\":\"longsword\",\"attack_bonus\":6,\"damage\":\"1d8+3\"}]}";
static const char *const goblin =
    "{\"id\":\"goblin\",\"name\":\"the Goblin\",\"side\":\"monsters\",\"x\":1,\"y\":5,"
    "\"speeds\":{\"walk\":30},\"defense\":{\"armor\":2},\"max_hp\":6,\"dex\":13,\"attacks\":[{"
    "\"name\":\"morningstar\",\"attack_bonus\":2,\"damage\":\"1d6\"}]}";

static const char *turn_of(struct enc *e)
{
    static char who[64];
    json_t *doc = enc_call(&srv, e, "GET", "/state", NULL, NULL, 200);
    snprintf(who, sizeof who, "%s",
             json_string_value(json_object_get(json_object_get(doc, "state"), "turn_of")));
    json_decref(doc);
    return who;
}

/* A whole round through the endpoint, the server started with defer (its --discord-defer-ms
 * argument) and a listener for the followups of the commands it defers. */
static void whole_round(const char *defer)
{
    char api[64];
    listen_for_followups(api, sizeof api);
    start(defer, api);
    struct enc e;
    enc_create(&srv, &e, encounter);
    json_decref(enc_call(&srv, &e, "POST", "/combatants", NULL, fighter, 201));
    json_decref(enc_call(&srv, &e, "POST", "/combatants", NULL, goblin, 201));

    /* Unbound: every encounter command says so, ephemerally. */
    json_t *doc = command(GM, "map", NULL, 2, NULL, NULL);
    cr_assert_not_null(
        strstr(json_string_value(json_object_get(message(doc, 4, true), "content")), "/encounter"));
    json_decref(doc);
    /* Bind: a wrong token is refused, the right one binds, and the token stays private. */
    char opts[512];
    snprintf(opts, sizeof opts,
             "[{\"type\":1,\"name\":\"join\",\"options\":[{\"type\":3,\"name\":\"id\",\"value\":"
             "\"%s\"},{\"type\":3,\"name\":\"token\",\"value\":\"%s\"}]}]",
             e.id, "0123456789abcdef0123456789abcdef");
    doc = command(GM, "encounter", opts, 2, NULL, NULL);
    message(doc, 4, true);
    cr_assert_not_null(
        strstr(json_string_value(json_object_get(json_object_get(doc, "data"), "content")),
               "does not own"));
    json_decref(doc);
    snprintf(opts, sizeof opts,
             "[{\"type\":1,\"name\":\"join\",\"options\":[{\"type\":3,\"name\":\"id\",\"value\":"
             "\"%s\"},{\"type\":3,\"name\":\"token\",\"value\":\"%s\"}]}]",
             e.id, e.token);
    doc = command(GM, "encounter", opts, 2, NULL, NULL);
    cr_assert_not_null(
        strstr(json_string_value(json_object_get(message(doc, 4, true), "content")), e.id));
    json_decref(doc);

    /* Autocomplete: the channel's combatants by prefix, any case (type 8, choices). */
    doc = command(GM, "attack",
                  "[{\"type\":3,\"name\":\"actor\",\"value\":\"GOB\",\"focused\":true}]", 4, NULL,
                  NULL);
    cr_assert_eq(json_integer_value(json_object_get(doc, "type")), 8);
    json_t *choices = json_object_get(json_object_get(doc, "data"), "choices");
    cr_assert_eq(json_array_size(choices), 1);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(choices, 0), "value")),
                     "goblin");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(choices, 0), "name")),
                     "the Goblin (goblin)");
    json_decref(doc);

    /* Initiative: the game master's alone. */
    doc = command(PLAYER, "init", "[{\"type\":1,\"name\":\"roll\",\"options\":[]}]", 2, NULL, NULL);
    message(doc, 4, true);
    json_decref(doc);
    doc = command(GM, "init", "[{\"type\":1,\"name\":\"roll\",\"options\":[]}]", 2, NULL, NULL);
    json_t *data = message(doc, 4, false);
    cr_assert_not_null(strstr(json_string_value(json_object_get(data, "content")), "goes first"),
                       "%s", json_string_value(json_object_get(data, "content")));
    json_t *embed = json_array_get(json_object_get(data, "embeds"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(embed, "title")), "Goblin ambush");
    json_decref(doc);
    doc = command(OTHER, "init", "[{\"type\":1,\"name\":\"list\",\"options\":[]}]", 2, NULL, NULL);
    data = message(doc, 4, false);
    cr_assert_not_null(strstr(json_string_value(json_object_get(data, "content")), "Kroh <20/20"));
    json_decref(doc);
    /* The first turn begins; whoever it is moves toward the other, and attacks. */
    json_decref(command(GM, "turn", NULL, 2, NULL, NULL));
    e.version = 5;
    const char *now = turn_of(&e);
    bool kroh = strcmp(now, "fighter") == 0;
    const char *mover = kroh ? "kroh" : "the gob"; /* names, any case, or a prefix */
    const char *other = kroh ? "goblin" : "Kroh";
    /* Someone who is neither the game master nor its player may not act for it. */
    snprintf(opts, sizeof opts,
             "[{\"type\":3,\"name\":\"actor\",\"value\":\"%s\"},{\"type\":3,\"name\":\"toward\","
             "\"value\":\"%s\"}]",
             mover, other);
    doc = command(OTHER, "move", opts, 2, NULL, NULL);
    cr_assert_not_null(
        strstr(json_string_value(json_object_get(message(doc, 4, true), "content")), "may act"));
    json_decref(doc);
    char *png = NULL;
    size_t png_len = 0;
    doc = command(kroh ? PLAYER : GM, "move", opts, 2, &png, &png_len);
    data = message(doc, 4, false);
    cr_assert_not_null(png, "a move answers the board");
    png_decodes(png, png_len);
    png_is_frame(&e, "?at=6&overlay=event", png, png_len);
    free(png);
    json_t *att = json_array_get(json_object_get(data, "attachments"), 0);
    cr_assert_eq(json_integer_value(json_object_get(att, "id")), 0);
    cr_assert_str_eq(json_string_value(json_object_get(att, "filename")), "map.png");
    embed = json_array_get(json_object_get(data, "embeds"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(embed, "image"), "url")),
                     "attachment://map.png");
    json_decref(doc);
    json_t *st = enc_call(&srv, &e, "GET", "/state", NULL, NULL, 200);
    json_t *moved = enc_combatant(st, kroh ? "fighter" : "goblin");
    cr_assert_neq(json_integer_value(json_object_get(moved, "x")), kroh ? 5 : 1, "it moved");
    long long version = json_integer_value(json_object_get(st, "version"));
    json_decref(st);
    cr_assert_eq(version, 6);

    snprintf(opts, sizeof opts,
             "[{\"type\":3,\"name\":\"actor\",\"value\":\"%s\"},{\"type\":3,\"name\":\"target\","
             "\"value\":\"%s\"}]",
             mover, other);
    doc = command(kroh ? PLAYER : GM, "attack", opts, 2, &png, &png_len);
    data = message(doc, 4, false);
    const char *said = json_string_value(json_object_get(data, "content"));
    cr_assert(strstr(said, "hits") != NULL || strstr(said, "misses") != NULL, "%s", said);
    png_decodes(png, png_len);
    png_is_frame(&e, "?at=7&overlay=event", png, png_len);
    free(png);
    json_decref(doc);

    /* A second move after the move and the attack: refused as the action would refuse it
     * (GET .../route's `refused`), said only to the asker. */
    snprintf(opts, sizeof opts,
             "[{\"type\":3,\"name\":\"actor\",\"value\":\"%s\"},{\"type\":4,\"name\":\"x\","
             "\"value\":0},{\"type\":4,\"name\":\"y\",\"value\":0}]",
             mover);
    doc = command(kroh ? PLAYER : GM, "move", opts, 2, NULL, NULL);
    const char *why = json_string_value(json_object_get(message(doc, 4, true), "content"));
    cr_assert_null(strstr(why, "no way"), "%s", why);
    json_decref(doc);
    /* The other one, toward the foe it already threatens: nothing to do. */
    snprintf(opts, sizeof opts,
             "[{\"type\":3,\"name\":\"actor\",\"value\":\"%s\"},{\"type\":3,\"name\":\"toward\","
             "\"value\":\"%s\"}]",
             other, mover);
    doc = command(GM, "move", opts, 2, NULL, NULL);
    cr_assert_not_null(strstr(json_string_value(json_object_get(message(doc, 4, true), "content")),
                              "there already"));
    json_decref(doc);

    doc = command(OTHER, "map", NULL, 2, &png, &png_len);
    message(doc, 4, false);
    png_decodes(png, png_len);
    free(png);
    json_decref(doc);

    /* Undo: the game master's; it takes back the attack. */
    doc = command(PLAYER, "undo", NULL, 2, NULL, NULL);
    message(doc, 4, true);
    json_decref(doc);
    doc = command(GM, "undo", NULL, 2, &png, &png_len);
    data = message(doc, 4, false);
    cr_assert_not_null(strstr(json_string_value(json_object_get(data, "content")), "taken back"));
    png_decodes(png, png_len);
    free(png);
    json_decref(doc);
    st = enc_call(&srv, &e, "GET", "/events", NULL, NULL, 200);
    json_t *events = json_object_get(st, "events");
    cr_assert_eq(json_array_size(events), 8);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(events, 7), "kind")),
                     "undone");
    json_decref(st);
}

/* Most commands answered at once (a loaded machine may defer some: their followups are
 * read instead). */
Test(discord, a_whole_round_played_through_the_endpoint)
{
    whole_round("--discord-defer-ms=2900");
}

/* The same round with every command deferred: each reply is its followup's message, the
 * pictures attached to the followups. */
Test(discord, a_whole_round_with_every_command_deferred)
{
    whole_round("--discord-defer-ms=0");
}

/* A command answered DEFERRED (type 5) is finished by PATCH .../messages/@original on the
 * interaction's webhook: here a local listener stands in for Discord's API. */
Test(discord, a_deferred_command_is_finished_by_a_followup)
{
    char api[64];
    listen_for_followups(api, sizeof api);
    start("--discord-defer-ms=0", api);
    json_t *doc =
        reply_to(OTHER, "roll", "[{\"type\":3,\"name\":\"dice\",\"value\":\"1d20+5 adv to hit\"}]",
                 2, NULL, NULL);
    cr_assert_eq(json_integer_value(json_object_get(doc, "type")), 5);
    cr_assert_eq(json_object_size(doc), 1, "DEFERRED carries no data");
    json_decref(doc);
    struct followup f;
    next_followup(&f);
    cr_assert_eq(strncmp(f.head, "PATCH /api/v10/webhooks/123456789012345678/", 43), 0, "%s",
                 f.head);
    cr_assert_not_null(strstr(f.head, "/messages/@original HTTP/1.1"));
    cr_assert_not_null(strcasestr(f.head, "User-Agent: DiscordBot ("));
    cr_assert_str_eq(f.content_type, "application/json");
    json_t *msg = json_loads(f.body, 0, NULL);
    followup_free(&f);
    cr_assert_not_null(msg);
    const char *content = json_string_value(json_object_get(msg, "content"));
    cr_assert_not_null(strstr(content, "2d20kh1"), "%s", content);
    cr_assert_not_null(strstr(content, "advantage"));
    cr_assert_null(json_object_get(msg, "type"), "a followup is the message alone");
    json_decref(msg);
}
