/* Validation errors by JSON pointer (errors.h). */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "service/json/errors.h"
#include "text/text.h"

void svc_errors_init(struct svc_errors *e)
{
    e->list = json_array();
}

void svc_errors_add(struct svc_errors *e, const char *pointer, const char *fmt, ...)
{
    assert(e->list != NULL && pointer != NULL); /* not after svc_errors_free */
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    text_vformat(msg, sizeof msg, fmt, ap); /* cut where a character ends (text.h) */
    va_end(ap);
    json_t *item = json_object();
    json_object_set_new(item, "pointer", json_string(pointer));
    json_object_set_new(item, "message", json_string(msg));
    json_array_append_new(e->list, item);
}

bool svc_errors_any(const struct svc_errors *e)
{
    return json_array_size(e->list) > 0;
}

void svc_errors_free(struct svc_errors *e)
{
    json_decref(e->list);
    e->list = NULL;
}

void svc_errors_as_query(struct svc_errors *e, const struct svc_query_member *map)
{
    assert(map != NULL);
    size_t i;
    json_t *item;
    json_array_foreach(e->list, i, item)
    {
        const char *p = json_string_value(json_object_get(item, "pointer"));
        for (int k = 0; p != NULL && map[k].member != NULL; k++) {
            size_t n = strlen(map[k].member);
            if (strncmp(p, map[k].member, n) == 0 && (p[n] == '\0' || p[n] == '/')) {
                char q[80];
                snprintf(q, sizeof q, "?%s", map[k].param);
                json_object_set_new(item, "pointer", json_string(q));
                break;
            }
        }
    }
}
