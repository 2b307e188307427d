/* What the picture endpoints share (picture.h): a creature's short label, the picture's size
 * from the query, its ETag hash, and the answer with the drawn image. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "service/codec/move.h"
#include "service/codec/picture.h"
#include "service/http/config.h"
#include "service/http/http.h"
#include "service/http/problem.h"
#include "service/http/request.h"
#include "service/json/errors.h"
#include "text/text.h"

const char *const svc_picture_side_names[] = {"ally", "enemy"};
const char *const svc_picture_cond_names[] = {
    "prone", "flat_footed", "dying", "unconscious", "dead", "disabled", "stunned", "stable", NULL};
const unsigned svc_picture_cond_bits[RENDER_COND_COUNT] = {
    RENDER_COND_PRONE, RENDER_COND_FLAT_FOOTED, RENDER_COND_DYING,   RENDER_COND_UNCONSCIOUS,
    RENDER_COND_DEAD,  RENDER_COND_DISABLED,    RENDER_COND_STUNNED, RENDER_COND_STABLE};
static_assert(sizeof svc_picture_cond_names / sizeof svc_picture_cond_names[0] ==
                  RENDER_COND_COUNT + 1,
              "one name per mark");

/* 64-bit FNV-1a: a stable hash for ETags. */
unsigned long long svc_picture_hash(const void *data, size_t len, unsigned long long h)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

/* Appends the first `chars` characters of the word at w (up to a space) to out (k bytes so
 * far, cap bytes in all), whole or not at all. */
static void label_append(char *out, size_t cap, size_t *k, const char *w, size_t chars)
{
    size_t len = strcspn(w, " ");
    size_t take = text_prefix(w, len, chars, cap - 1 - *k);
    memcpy(out + *k, w, take);
    *k += take;
    out[*k] = '\0';
}

/* A short label from a name (picture.h). */
void svc_picture_label(const char *name, char *out, size_t n)
{
    int words = 0;
    const char *last = NULL;
    for (const char *p = name; *p; p++)
        if (*p != ' ' && (p == name || p[-1] == ' '))
            words++, last = p;
    size_t k = 0;
    out[0] = '\0';
    if (words <= 1) {
        const char *w = last ? last : name;
        label_append(out, n, &k, w, text_chars(w, strcspn(w, " ")) <= 4 ? 4 : 3);
        return;
    }
    bool digits = last != NULL && strspn(last, "0123456789") == strcspn(last, " ");
    int initials = 0;
    for (const char *p = name; *p && initials < 3; p++)
        if (*p != ' ' && (p == name || p[-1] == ' ') && !(digits && p == last))
            label_append(out, n, &k, p, 1), initials++;
    if (digits)
        label_append(out, n, &k, last, 2);
}

int svc_picture_size(const struct svc_request *req, struct svc_errors *e)
{
    char msg[80];
    snprintf(msg, sizeof msg, "must be a whole number of pixels from %d to %d", RENDER_MIN_SIZE,
             RENDER_MAX_SIZE);
    long long v = RENDER_DEFAULT_SIZE;
    return codec_query_whole(req, "size", RENDER_MIN_SIZE, RENDER_MAX_SIZE, RENDER_DEFAULT_SIZE,
                             msg, &v, e)
               ? (int)v
               : RENDER_DEFAULT_SIZE;
}

/* Answers with the picture and its ETag (a hash of the bytes unless etag is given). */
static void picture_respond(struct svc_response *res, enum render_format f,
                            struct render_image *img, const char *etag)
{
    char tag[64];
    if (etag == NULL) {
        snprintf(tag, sizeof tag, "\"%016llx\"",
                 svc_picture_hash(img->data, img->len, SVC_PICTURE_HASH_SEED));
        etag = tag;
    }
    svc_respond_owned(res, 200, f == RENDER_SVG ? "image/svg+xml" : "image/png", (char *)img->data,
                      img->len);
    img->data = NULL;
    svc_response_add_header(res, "ETag", etag);
}

struct render_budget svc_picture_budget(const struct svc_config *cfg, struct rules_work *work)
{
    work->limit /= 2;
    return (struct render_budget){.pixel_limit = svc_config_budget(cfg, SVC_BUDGET_PIXELS),
                                  .byte_limit = svc_config_budget(cfg, SVC_BUDGET_ANSWER_BYTES)};
}

/* 422 too-expensive for a picture refused by a budget of the scene's: the one that ran out. */
static void picture_too_expensive(struct svc_response *res, const struct render_scene *scene)
{
    long long limit = 0, reached = 0;
    const char *name = rules_work_spent(scene->work, &limit, &reached);
    if (name == NULL)
        name = render_budget_spent(scene->budget, &limit, &reached);
    if (name == NULL) /* cannot happen: the refusal names a budget */
        name = "search_states", limit = scene->work->limit, reached = scene->work->used;
    svc_problem_too_expensive(res, name, limit, reached);
}

struct svc_cost svc_picture_cost(const struct render_scene *scene, enum render_format f)
{
    struct render_estimate est;
    render_estimate(scene, f, &est);
    return (struct svc_cost){
        .states = est.search_states, .threat_tests = est.threat_tests, .pixels = est.canvas_pixels};
}

/* Draws the scene and answers: the picture, 422 too-expensive, or 500. */
void svc_picture_draw_respond(struct svc_response *res, struct render_scene *scene,
                              enum render_format f, const char *etag)
{
    struct render_image img;
    int rc = render_draw(scene, f, &img);
    if (rc == RENDER_ERR_TOO_EXPENSIVE) {
        picture_too_expensive(res, scene);
        return;
    }
    if (rc != RENDER_OK) {
        svc_problem(res, SVC_PROBLEM_INTERNAL, "the picture could not be drawn", NULL);
        return;
    }
    picture_respond(res, f, &img, etag);
    render_image_free(&img);
}
