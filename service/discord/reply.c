/* Interaction responses as Discord documents them ("Receiving and Responding": an interaction
 * response is {type, data}; "Uploading Files": a message with files is multipart/form-data, its
 * JSON in a part named payload_json and each file in a part files[n], listed in the message's
 * attachments by id and filename and shown in an embed by attachment://filename). */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/discord/internal.h"
#include "service/json/writer.h"

/* One boundary for every multipart answer, so that its media type is a static string. It is
 * checked not to occur in the parts (a PNG is compressed data: it practically never does). */
#define BOUNDARY     "tactics-discord-7b1f0c9e4a2d5836"
#define MULTIPART_CT "multipart/form-data; boundary=" BOUNDARY

void discord_reply_free(struct discord_reply *r)
{
    json_decref(r->data);
    free(r->png);
    memset(r, 0, sizeof *r);
}

static bool holds(const char *hay, size_t n, const char *needle)
{
    assert(needle[0] != '\0');
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (hay[i] == needle[0] && memcmp(hay + i, needle, k) == 0)
            return true;
    return false;
}

char *discord_reply_body(const struct discord_reply *r, bool followup, const char **ct, size_t *len)
{
    assert(ct != NULL && len != NULL && (r->png == NULL || r->png_len > 0));
    json_t *doc;
    if (followup) /* the message alone */
        doc = r->data != NULL ? json_incref(r->data) : json_object();
    else if (r->data == NULL) /* PONG, DEFERRED: no data */
        doc = json_pack("{s:i}", "type", r->type);
    else
        doc = json_pack("{s:i, s:O}", "type", r->type, "data", r->data);
    size_t jn = 0;
    char *json = jw_dump(doc, &jn);
    json_decref(doc);
    if (json == NULL || r->png == NULL) {
        *ct = "application/json";
        *len = jn;
        return json;
    }
    static const char head1[] = "--" BOUNDARY "\r\nContent-Disposition: form-data; "
                                "name=\"payload_json\"\r\nContent-Type: application/json\r\n\r\n";
    static const char head2[] = "\r\n--" BOUNDARY "\r\nContent-Disposition: form-data; "
                                "name=\"files[0]\"; filename=\"map.png\"\r\nContent-Type: "
                                "image/png\r\n\r\n";
    static const char tail[] = "\r\n--" BOUNDARY "--\r\n";
    if (holds(json, jn, BOUNDARY) || holds(r->png, r->png_len, BOUNDARY)) {
        free(json);
        return NULL;
    }
    size_t n = sizeof head1 - 1 + jn + sizeof head2 - 1 + r->png_len + sizeof tail - 1;
    char *out = malloc(n + 1);
    if (out != NULL) {
        char *p = out;
        memcpy(p, head1, sizeof head1 - 1), p += sizeof head1 - 1;
        memcpy(p, json, jn), p += jn;
        memcpy(p, head2, sizeof head2 - 1), p += sizeof head2 - 1;
        memcpy(p, r->png, r->png_len), p += r->png_len;
        memcpy(p, tail, sizeof tail - 1), p += sizeof tail - 1;
        assert((size_t)(p - out) == n); /* the parts fill what was counted */
        *p = '\0';
        *len = n;
        *ct = MULTIPART_CT;
    }
    free(json);
    return out;
}
