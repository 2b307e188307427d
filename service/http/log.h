/* The server's log: one JSON object a line on stderr, {"time", "level", "event", ...}. */
#ifndef TACTICS_SVC_LOG_H
#define TACTICS_SVC_LOG_H

#include <jansson.h>

/* Writes one JSON log line to stderr: {"time", "level", "event", ...fields of extra}.
 * Steals extra (may be NULL). Thread-safe: a line is one write(2), never interleaved. */
void svc_log(const char *level, const char *event, json_t *extra);

#endif
