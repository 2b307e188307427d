/* What is refused before routing, and the body limit. A request whose target or framing a
 * proxy in front of us could read differently from libmicrohttpd, or one with a header holding a
 * NUL byte, is answered 400 before any of its body is read, and its connection closes. A body over
 * --max-body is answered 413, never truncated: read and thrown away first when it is at most
 * DISCARD_MAX over, answered at once otherwise. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "service/http/server_internal.h"

/* Why the raw request target is refused, or NULL. libmicrohttpd unescapes the path before the
 * handler sees it, so "/healthz%00" would reach us as "/healthz" and "/a%2Fb" as "/a/b": a
 * proxy routing on the raw target and this server would disagree on what was asked. A NUL is
 * refused anywhere in the target (no C string can carry it; a query value would be cut short
 * at it), an encoded slash in the path only. */
static const char *target_refusal(const char *uri)
{
    size_t path_len = strcspn(uri, "?");
    for (const char *p = strchr(uri, '%'); p != NULL; p = strchr(p + 1, '%')) {
        if (p[1] == '0' && p[2] == '0')
            return "the request target holds an encoded NUL (%00)";
        if ((size_t)(p - uri) < path_len && p[1] == '2' && (p[2] == 'F' || p[2] == 'f'))
            return "the path holds an encoded slash (%2F); send the slash as it is, or none";
    }
    return NULL;
}

/* libmicrohttpd's URI log callback is the only place the raw target is visible. It runs once
 * per request, before the headers are read; the verdict waits on the connection's watch until
 * the access handler's first call. Returns NULL: the request state is made there. */
void *svc__on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)cls;
    struct svc__watch *w = svc__watch_of(conn);
    if (w != NULL)
        w->target_refusal = target_refusal(uri);
    return NULL;
}

struct framing {
    int content_length, transfer_encoding, host;
    const char *first_length;
    bool lengths_differ;
};

static enum MHD_Result count_framing(void *cls, enum MHD_ValueKind kind, const char *key,
                                     const char *value)
{
    (void)kind;
    struct framing *f = cls;
    if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0) {
        if (f->content_length++ == 0)
            f->first_length = value;
        else if (strcmp(f->first_length, value) != 0)
            f->lengths_differ = true;
    } else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0) {
        f->transfer_encoding++;
    } else if (strcasecmp(key, MHD_HTTP_HEADER_HOST) == 0) {
        f->host++;
    }
    return MHD_YES;
}

/* Why the request's framing is refused, or NULL: message framing that a proxy in front of us
 * could read differently from libmicrohttpd (which takes the first Content-Length, and
 * Transfer-Encoding over Content-Length), the ground of request smuggling. RFC 9112 section 6.3
 * lets a server refuse both with 400. */
static const char *framing_refusal(struct MHD_Connection *conn, const char *version)
{
    struct framing f = {0};
    MHD_get_connection_values(conn, MHD_HEADER_KIND, count_framing, &f);
    if (f.lengths_differ)
        return "two Content-Length headers with different values";
    if (f.transfer_encoding > 0 && f.content_length > 0)
        return "Transfer-Encoding and Content-Length together";
    /* RFC 9112 section 3.2: a server MUST answer 400 to an HTTP/1.1 request without a Host
     * header or with more than one. libmicrohttpd checks only when strict (and then answers
     * in HTML), so it is checked here, where the answer can be problem+json. */
    if (f.host > 1)
        return "more than one Host header";
    if (f.host == 0 && strcmp(version, MHD_HTTP_VERSION_1_1) == 0)
        return "an HTTP/1.1 request needs a Host header";
    return NULL;
}

/* A header value that holds a NUL byte. libmicrohttpd (0.9.75) reads a header line up to its
 * CRLF (or bare LF), turns the line end into NULs in place, and takes the value as a C string:
 * the value ends at its first NUL, and whatever followed it on the line stays in the read buffer,
 * unseen ("Authorization: Bearer TOKEN\0junk" reads as "Bearer TOKEN"). Its lines lie end to
 * end in that buffer, request line first, so a value (or the request line's version) that holds
 * all of its line is followed by exactly its line end, one or two NULs, and then the next
 * header's name. Anything else after it means the line went on past a NUL (or was folded over
 * lines, obs-fold, which RFC 9112 section 5.2 lets a server refuse with 400 as well). The last
 * header is followed by its line end and the empty line: three NULs with CRLF line ends, two
 * with bare LFs. What no reading of the buffer can tell is a last value that ends in NULs with
 * nothing after them: it reads as the same value with or without them. */
struct head_walk {
    const char *end;  /* the end of the previous line's text: its value's terminating NUL */
    const char *name; /* the previous header's name; NULL for the request line */
    size_t line_end;  /* bytes of the last line end seen: 2 (CRLF) or 1 (LF); 0 before any */
    const char *bad;  /* the first line found going on past its text */
    bool bad_line;    /* the request line was */
};

/* True when next starts right after end's line end: one or two NULs. */
static bool line_ends_at(const char *end, const char *next, size_t *line_end)
{
    uintptr_t e = (uintptr_t)end, n = (uintptr_t)next;
    if (n <= e || n - e > 2 || end[0] != '\0' || (n - e == 2 && end[1] != '\0'))
        return false;
    *line_end = n - e;
    return true;
}

static enum MHD_Result walk_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                   size_t key_size, const char *value, size_t value_size)
{
    (void)kind;
    (void)key_size;
    struct head_walk *w = cls;
    if (w->end != NULL && !line_ends_at(w->end, key, &w->line_end)) {
        w->bad = w->name;
        w->bad_line = w->name == NULL;
        return MHD_NO;
    }
    w->end = value + value_size;
    w->name = key;
    return MHD_YES;
}

/* Why the head is refused for a NUL byte in a line, into buf (cap bytes), or NULL. */
static const char *nul_refusal(struct MHD_Connection *conn, const char *version, char *buf,
                               size_t cap)
{
    struct head_walk w = {0};
    /* HTTP/0.9 has no version and no headers; libmicrohttpd's version is then a literal "". */
    if (version[0] != '\0')
        w.end = version + strlen(version);
    MHD_get_connection_values_n(conn, MHD_HEADER_KIND, walk_header, &w);
    if (w.bad == NULL && w.name != NULL) {
        /* The last header: its line end, then the empty line's first byte. */
        size_t tail = w.line_end == 1 ? 2 : 3;
        for (size_t i = 0; i < tail && w.bad == NULL; i++)
            if (w.end[i] != '\0')
                w.bad = w.name;
    }
    if (w.bad_line)
        return "the request line holds a NUL byte";
    if (w.bad == NULL)
        return NULL;
    char name[64];
    svc__copy_printable(name, sizeof name, w.bad);
    snprintf(buf, cap, "the header %s holds a NUL byte (or is folded over lines)", name);
    return buf;
}

const char *svc__head_refusal(struct MHD_Connection *conn, const char *version, char *buf,
                              size_t cap)
{
    assert(version != NULL && buf != NULL && cap > 0);
    const char *why = framing_refusal(conn, version);
    return why != NULL ? why : nul_refusal(conn, version, buf, cap);
}

/* The declared Content-Length, or false when there is none (or it is not a number). */
static bool declared_length(struct MHD_Connection *conn, unsigned long long *out)
{
    const char *cl =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (cl == NULL)
        return false;
    char *end = NULL;
    unsigned long long n = strtoull(cl, &end, 10);
    if (end == cl)
        return false;
    *out = n;
    return true;
}

/* How much of a body declared over --max-body is read and thrown away before its 413 is sent.
 * A client that writes its whole body before reading (Python's http.client, curl without
 * Expect) otherwise meets a closed connection mid-body and reports a reset, never the 413. A
 * larger body is answered at once, unread: reading it all would cost more than the reset. */
#define DISCARD_MAX (1024u * 1024u)

/* True when the client waits for 100 Continue before sending its body: then the 413 goes out
 * at once, and the body never comes. */
static bool expects_continue(struct MHD_Connection *conn)
{
    const char *e = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_EXPECT);
    return e != NULL && strcasecmp(e, "100-continue") == 0;
}

bool svc__body_refused_early(struct MHD_Connection *conn, struct svc__request_state *rs, size_t max)
{
    unsigned long long declared = 0;
    if (!declared_length(conn, &declared) || declared <= max)
        return false;
    rs->too_large = true; /* svc__body_append drops whatever arrives */
    return declared - max > DISCARD_MAX || expects_continue(conn);
}

/* Drops rs's body: it will not be used. */
static void body_drop(struct svc__request_state *rs)
{
    rs->too_large = true;
    free(rs->body);
    rs->body = NULL;
    rs->len = rs->cap = 0;
}

void svc__body_append(struct svc__request_state *rs, const char *data, size_t n, size_t max)
{
    assert(rs->len <= max && (rs->body == NULL || rs->len < rs->cap));
    if (rs->too_large)
        return;
    if (n > max - rs->len) {
        body_drop(rs);
        return;
    }
    if (rs->len + n + 1 > rs->cap) {
        /* Small bodies stay under 1 KB, where glibc's per-thread cache serves them. */
        size_t cap = rs->cap ? rs->cap : 512;
        while (cap < rs->len + n + 1)
            cap *= 2;
        if (cap > max + 1)
            cap = max + 1;
        char *b = realloc(rs->body, cap);
        if (b == NULL) {
            body_drop(rs); /* cannot hold it: refuse rather than truncate */
            return;
        }
        rs->body = b;
        rs->cap = cap;
    }
    memcpy(rs->body + rs->len, data, n);
    rs->len += n;
    rs->body[rs->len] = '\0';
}

bool svc__is_json_content_type(const char *ct)
{
    if (ct == NULL)
        return false;
    while (*ct == ' ')
        ct++;
    size_t n = strlen("application/json");
    if (strncasecmp(ct, "application/json", n) != 0)
        return false;
    ct += n;
    while (*ct == ' ')
        ct++;
    return *ct == '\0' || *ct == ';';
}
