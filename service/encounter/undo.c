/* Encounters: undo. An undo is an event like any other, appended to the log (which stays
 * append-only): it takes back the last event still standing by restoring the state from before
 * it with an init effect, the same effect that starts the log. Successive undos walk back one
 * standing event each (an undo is never itself taken back: the event before the one the last
 * undo took back is next); the created event cannot be undone, and nothing follows a reveal.
 * Dice are never reused: every event rolls from the seed mixed with its own number
 * (enc_event_seed), and an undo takes a number too, so what is ruled after it rolls anew.
 * Verify and import re-rule an undo like any event, from the log before it (enc_history). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/encounter/internal.h"
#include "service/json/errors.h"
#include "service/json/reader.h"

int enc_db_history_events(void *ud, int64_t after, int64_t upto, db_event_fn fn, void *fn_ud)
{
    const struct enc_db_history *h = ud;
    return db_events(h->db, h->id, after, upto, INT32_MAX, fn, fn_ud);
}

/* One event read back: its number, kind and the undo it names (undone's result). */
struct one_event {
    int64_t seq;
    char kind[32];
    long long undid;
};

static int take_one(void *ud, int64_t seq, const char *kind, const char *payload,
                    const char *created_at)
{
    (void)created_at;
    struct one_event *ev = ud;
    ev->seq = seq;
    snprintf(ev->kind, sizeof ev->kind, "%s", kind);
    ev->undid = 0;
    if (strcmp(kind, "undone") == 0) {
        json_t *p = jsonr_load(payload, strlen(payload));
        ev->undid = enc_num(json_object_get(p, "result"), "undone");
        json_decref(p);
    }
    return 0;
}

struct fold_acc {
    json_t *state;
    bool unreadable;
};

static int fold_one(void *ud, int64_t seq, const char *kind, const char *payload,
                    const char *created_at)
{
    (void)seq, (void)kind, (void)created_at;
    struct fold_acc *a = ud;
    json_t *p = jsonr_load(payload, strlen(payload));
    if (p == NULL)
        a->unreadable = true;
    else
        enc_fold(a->state, json_object_get(p, "effects"));
    json_decref(p);
    return 0;
}

/* The last event before seq still standing (0: none but created), *kind its kind; -1 after an
 * error in e. */
static long long last_standing(struct enc_history *h, long long seq, char kind[32],
                               struct svc_errors *e)
{
    long long k = seq - 1;
    while (k >= 1) {
        struct one_event ev = {0};
        if (h->events(h->ud, k - 1, k, take_one, &ev) != DB_OK || ev.seq != k) {
            svc_errors_add(e, "", "the log before this undo could not be read; try again");
            return -1;
        }
        if (strcmp(ev.kind, "created") == 0)
            return 0;
        if (strcmp(ev.kind, "undone") != 0) {
            snprintf(kind, 32, "%s", ev.kind);
            return k;
        }
        /* Undo k took back event undid, the last standing before it: every event between is
         * an undo or taken back, so the one before undid is next. */
        if (ev.undid < 1 || ev.undid >= k) {
            svc_errors_add(e, "", "event %lld is an undo that names no event before it", k);
            return -1;
        }
        k = ev.undid - 1;
    }
    return 0;
}

json_t *enc_resolve_undo(struct resolve_ctx *x, json_t *in)
{
    (void)in;
    struct enc_history *h = x->cache != NULL ? x->cache->history : NULL;
    if (h == NULL) {
        svc_errors_add(x->e, "", "an undo is ruled only where the encounter's log can be read");
        return NULL;
    }
    char kind[32] = "";
    long long target = last_standing(h, x->seq, kind, x->e);
    if (target < 0)
        return NULL;
    if (target == 0) {
        svc_errors_add(x->e, "",
                       "nothing to undo: every event since the encounter was created has been "
                       "taken back, and its creation cannot be");
        return NULL;
    }
    long long budget = svc_config_budget(enc_config(x), ENC_UNDO_FOLD_BUDGET);
    if (h->folded + target - 1 > budget) {
        svc_errors_add(x->e, "",
                       "too expensive: the undos of this request would fold more than %lld "
                       "events of the log (README \"Limits and budgets\")",
                       budget);
        return NULL;
    }
    h->folded += target - 1;
    struct fold_acc a = {.state = json_object()};
    if (h->events(h->ud, 0, target - 1, fold_one, &a) != DB_OK || a.unreadable) {
        json_decref(a.state);
        svc_errors_add(x->e, "", "the log before this undo could not be read; try again");
        return NULL;
    }
    return enc_outcome(json_pack("{s:I, s:s}", "undone", (json_int_t)target, "kind", kind),
                       json_pack("[{s:s, s:o}]", "op", "init", "state", a.state));
}
