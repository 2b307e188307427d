/* Path matching over a route table (router.h). */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "service/http/http.h"
#include "service/http/router.h"

/* Matches path against pattern; captures go into m->params (pointing into m->param_buf). */
static bool match_path(const char *pattern, const char *path, struct svc_match *m)
{
    size_t used = 0;
    int nparams = 0;
    const char *p = pattern, *s = path;
    while (*p != '\0') {
        if (*p == '{') {
            const char *close = strchr(p, '}');
            size_t n = strcspn(s, "/");
            if (close == NULL || n == 0 || nparams >= SVC_MAX_PARAMS ||
                used + n + 1 > sizeof m->param_buf)
                return false;
            memcpy(m->param_buf + used, s, n);
            m->param_buf[used + n] = '\0';
            m->params[nparams++] = m->param_buf + used;
            used += n + 1;
            p = close + 1;
            s += n;
        } else {
            if (*p != *s)
                return false;
            p++;
            s++;
        }
    }
    return *s == '\0';
}

static void allow_add(struct svc_match *m, const char *method)
{
    if (strstr(m->allow, method) != NULL)
        return;
    size_t len = strlen(m->allow);
    snprintf(m->allow + len, sizeof m->allow - len, "%s%s", len ? ", " : "", method);
}

void svc_route_match(const struct svc_route *table, int count, const char *method, const char *path,
                     struct svc_match *m)
{
    assert(table != NULL || count == 0);
    memset(m, 0, sizeof *m);
    m->route_index = -1;
    for (int i = 0; i < count; i++) {
        /* Only the captures need clearing: zeroing the whole 700-byte match for each of the
         * table's routes showed in the profile of every request. */
        struct svc_match trial;
        memset(trial.params, 0, sizeof trial.params);
        if (!match_path(table[i].pattern, path, &trial))
            continue;
        m->path_known = true;
        allow_add(m, table[i].method);
        if (strcmp(table[i].method, "GET") == 0)
            allow_add(m, "HEAD");
        bool same = strcmp(table[i].method, method) == 0 ||
                    (strcmp(method, "HEAD") == 0 && strcmp(table[i].method, "GET") == 0);
        if (same && m->route == NULL) {
            m->route = &table[i];
            m->route_index = i;
            memcpy(m->param_buf, trial.param_buf, sizeof m->param_buf);
            for (int k = 0; k < SVC_MAX_PARAMS; k++)
                m->params[k] =
                    trial.params[k] ? m->param_buf + (trial.params[k] - trial.param_buf) : NULL;
            /* Found: Allow is sent only without a route (405, OPTIONS), so the rest of the
             * table is not matched (for a path under /v1/ most of its rows share the first
             * bytes, and matching them all showed in the attack's profile). */
            return;
        }
    }
    if (m->path_known)
        allow_add(m, "OPTIONS");
}
