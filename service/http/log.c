/* The log: every line one JSON object on stderr, written in one write(2) under a lock so lines
 * from several threads never interleave, and valid JSON whatever a client sent (the access
 * log's method and path are copied as printable ASCII). The access log has one line per
 * request, written when libmicrohttpd reports it complete; libmicrohttpd's own messages come
 * here too. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "service/http/log.h"
#include "service/http/server_internal.h"
#include "service/json/writer.h"

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void utc_timestamp(char *out, size_t len)
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(out, len, "%Y-%m-%dT%H:%M:%S", &tm);
    assert(n > 0 && n < len);
    snprintf(out + n, len - n, ".%03ldZ", ts.tv_nsec / 1000000L);
}

/* Starts a log line {time, level, event, ...} in w. */
static void log_begin(struct jw *w, const char *level, const char *event)
{
    char ts[40];
    utc_timestamp(ts, sizeof ts);
    jw_init(w, 256);
    jw_object_begin(w);
    JW_STRING(w, "time", ts);
    JW_STRING(w, "level", level);
    JW_STRING(w, "event", event);
}

/* Ends the line and writes it to stderr in one write(2). Written with jsonw rather than a
 * jansson tree: the access log line is on every request's path. */
static void log_end(struct jw *w)
{
    jw_object_end(w);
    size_t len = 0;
    char *text = jw_finish(w, &len);
    if (text == NULL)
        return;
    text[len] = '\n'; /* jw_finish's NUL: the buffer holds len + 1 bytes */
    pthread_mutex_lock(&log_lock);
    for (size_t off = 0; off <= len;) {
        ssize_t n = write(STDERR_FILENO, text + off, len + 1 - off);
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    pthread_mutex_unlock(&log_lock);
    free(text);
}

void svc_log(const char *level, const char *event, json_t *extra)
{
    assert(level != NULL && event != NULL);
    struct jw w;
    log_begin(&w, level, event);
    const char *key;
    json_t *v;
    json_object_foreach(extra, key, v)
    {
        jw_key(&w, key);
        jw_json(&w, v);
    }
    json_decref(extra);
    log_end(&w);
}

/* Its format strings are libmicrohttpd's own literals. */
void svc__mhd_logger(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
        msg[--n] = '\0';
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)msg[i] < 0x20 || (unsigned char)msg[i] > 0x7e)
            msg[i] = '?';
    svc_log("warn", "libmicrohttpd", json_pack("{s:s}", "message", msg));
}

void svc__access_log(const struct svc__request_state *rs, enum MHD_RequestTerminationCode toe)
{
    assert(rs != NULL);
    uint64_t duration = svc__now_us() - rs->start_us;
    struct jw w;
    log_begin(&w, "info", "request");
    JW_STRING(&w, "method", rs->method);
    JW_STRING(&w, "path", rs->path);
    JW_INT(&w, "status", (long long)rs->status);
    JW_INT(&w, "duration_us", (long long)duration);
    JW_STRING(&w, "request_id", rs->request_id);
    if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK) {
        JW_INT(&w, "terminated", (long long)toe);
    }
    log_end(&w);
}
