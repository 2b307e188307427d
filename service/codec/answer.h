/* A ruling's answer before HTTP (answer.c): what every ruling function leaves, sent by its
 * handler with svc_answer_respond. */
#ifndef TACTICS_SVC_CODEC_ANSWER_H
#define TACTICS_SVC_CODEC_ANSWER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "service/http/problem.h"
#include "service/json/errors.h"

/* A ruling's answer before HTTP: 200 with the answer, as text (the streaming writer's) or as
 * a value (the rulings that build a jansson tree), or a refusal as the problem it is sent as.
 * Start with {0}; release with svc_answer_free (svc_answer_respond releases it too). */
struct svc_answer {
    unsigned status;            /* 200 for an answer; else the problem's status */
    char *text;                 /* 200: the answer's JSON text (malloc'd, NUL-terminated), or */
    size_t len;                 /*      its length */
    json_t *doc;                /* 200: the answer as a value (owned) */
    enum svc_problem_kind kind; /* a refusal's kind */
    json_t *errors;             /* a 422 validation refusal's field errors [{pointer, message}] */
    char detail[320];           /* a refusal's detail without field errors ("": the title) */
    const char *limit;          /* 422 too-expensive: the budget that ran out (static), */
    long long budget, reached;  /*   its figure and the work reached */
    bool retry_after;           /* 503 busy: sent with Retry-After: 1 */
    /* In: the request asked Prefer: return=minimal (svc_answer_handle sets it; kept by
     * svc_answer_free, which the setters call). A ruling that honours it answers less and sets
     * minimal_applied: the answer is then sent with Preference-Applied: return=minimal. */
    bool prefer_minimal;
    bool minimal_applied;
    /* In: the caller takes the answer as a value (doc). A ruling that can build it from its
     * structs does so rather than write text the caller would parse back; others answer text.
     * Kept by svc_answer_free, as prefer_minimal. */
    bool want_doc;
    /* In: a ruling that honours it names its answer's kind first, "type": tag (the encounter's
     * action results, the key of their ActionResult union), as enc_tag_result would have put it
     * by building the object again. NULL: no tag. Kept by svc_answer_free, as want_doc. */
    const char *tag;
    /* In, with want_doc: a ruling that honours it answers its text, and beside it (doc) a value
     * of only the top-level members keep names (NULL-terminated; borrowed), for a caller that
     * stores the text and reads those (jw_init_tee). NULL: the whole value. Kept by
     * svc_answer_free, as want_doc. */
    const char *const *keep;
};

/* 200 with text (taken; NULL, out of memory, becomes a 500 internal problem). */
void svc_answer_text(struct svc_answer *a, char *text, size_t len);
/* 200 with doc (stolen; NULL becomes a 500 internal problem). */
void svc_answer_json(struct svc_answer *a, json_t *doc);
/* A refusal of kind with detail (NULL: the kind's title), and no field errors. */
void svc_answer_problem(struct svc_answer *a, enum svc_problem_kind kind, const char *detail);
/* 422 validation with e's errors (taken: e is left empty). */
void svc_answer_errors(struct svc_answer *a, struct svc_errors *e);
/* 422 too-expensive, as svc_problem_too_expensive. */
void svc_answer_too_expensive(struct svc_answer *a, const char *limit, long long budget,
                              long long reached);
/* The detail the refusal is sent with when it has no field errors. */
const char *svc_answer_detail(const struct svc_answer *a, char *buf, size_t n);
/* Sends a's answer or problem into res, and releases a. */
void svc_answer_respond(struct svc_answer *a, struct svc_response *res);
void svc_answer_free(struct svc_answer *a);

/* The whole of a handler whose ruling takes the body alone: parses the request's body (a 400
 * on malformed JSON), rules it, and sends the answer. */
void svc_answer_handle(const struct svc_request *req, struct svc_response *res,
                       void (*rule)(json_t *body, struct svc_answer *out));

#endif
