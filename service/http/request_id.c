/* X-Request-Id: every request has an id that is safe to echo in a header and to write in the
 * log. A client's own id is kept when it is 1..128 characters of [A-Za-z0-9._:-]; otherwise the
 * server makes one: 128 random bits in hex. */
#include <assert.h>
#include <string.h>
#include <sys/random.h>

#include "service/http/server_internal.h"

static bool request_id_acceptable(const char *id)
{
    size_t n = strlen(id);
    if (n == 0 || n > 128)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == ':' || c == '-';
        if (!ok)
            return false;
    }
    return true;
}

/* 32 hex digits and a NUL into out. */
static void make_request_id(char *out)
{
    unsigned char raw[16];
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
        /* getrandom does not fail for 16 bytes after boot; fall back to the clock anyway. */
        uint64_t t = svc__now_us();
        memcpy(raw, &t, sizeof t);
        memcpy(raw + 8, &t, sizeof t);
    }
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof raw; i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
    out[2 * sizeof raw] = '\0';
}

void svc__request_id_assign(struct MHD_Connection *conn, char *out)
{
    assert(out != NULL);
    const char *id = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Request-Id");
    if (id != NULL && request_id_acceptable(id))
        memcpy(out, id, strlen(id) + 1); /* at most 128 + 1 bytes: acceptable() says so */
    else
        make_request_id(out);
}
