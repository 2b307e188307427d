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

/* --- a scene's labels, each drawn once --- */

/* The most characters a label may get longer by ("Gob" to "Gobl", "tg" to "tgo" to "tgob"). */
#define LABEL_LONGER 2

/* Label `k` steps longer than svc_picture_label's (k >= 1): a single word's first 3 + k
 * characters; several words' initials up to the last word that is not a number, then that
 * word's first 1 + k characters, then the number's first two, within RENDER_LABEL_MAX
 * characters ("the goblin": "tgo", "tgob"; "Goblin Archer 2": "GAr2"). */
static void label_longer(const char *name, int k, char *out, size_t n)
{
    const char *start[RENDER_LABEL_MAX];
    const char *last = NULL, *before_last = NULL;
    int words = 0;
    for (const char *p = name; *p; p++)
        if (*p != ' ' && (p == name || p[-1] == ' ')) {
            if (words < RENDER_LABEL_MAX)
                start[words] = p;
            words++, before_last = last, last = p;
        }
    size_t at = 0;
    out[0] = '\0';
    if (words <= 1) {
        size_t chars = 3 + (size_t)k;
        label_append(out, n, &at, last ? last : name,
                     chars < RENDER_LABEL_MAX ? chars : RENDER_LABEL_MAX);
        return;
    }
    bool digits = strspn(last, "0123456789") == strcspn(last, " ");
    const char *word = digits ? before_last : last; /* the last word that is not a number */
    int initials = words - (digits ? 1 : 0) - 1;
    size_t number = digits ? text_chars(last, strcspn(last, " ")) : 0;
    number = number > 2 ? 2 : number;
    int head = 0;
    for (;
         head < initials && head < RENDER_LABEL_MAX && (size_t)head + 1 + number < RENDER_LABEL_MAX;
         head++)
        label_append(out, n, &at, start[head], 1);
    size_t room = RENDER_LABEL_MAX - (size_t)head - number;
    label_append(out, n, &at, word, 1 + (size_t)k < room ? 1 + (size_t)k : room);
    if (digits)
        label_append(out, n, &at, last, 2);
}

/* A label as a scene's labels are compared: the bytes of its first RENDER_LABEL_MAX
 * characters, what render/ draws of it. */
struct label_entry {
    const char *s;
    size_t len;
    int i; /* the creature */
};

static size_t drawn_len(const char *s)
{
    return text_prefix(s, strlen(s), RENDER_LABEL_MAX, SIZE_MAX);
}

static int drawn_cmp(const struct label_entry *a, const struct label_entry *b)
{
    int c = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);
    return c != 0 ? c : (a->len > b->len) - (a->len < b->len);
}

static int entry_order(const void *pa, const void *pb)
{
    const struct label_entry *a = pa, *b = pb;
    int c = drawn_cmp(a, b);
    return c != 0 ? c : (a->i > b->i) - (a->i < b->i);
}

/* Marks alike[i] for every creature whose label draws as another's; returns how many. e:
 * room for n entries, left sorted by label. */
static int mark_alike(char (*labels)[RENDER_LABEL_BYTES], int n, struct label_entry *e, bool *alike)
{
    for (int i = 0; i < n; i++) {
        e[i] = (struct label_entry){labels[i], drawn_len(labels[i]), i};
        alike[i] = false;
    }
    qsort(e, (size_t)n, sizeof *e, entry_order);
    int count = 0;
    for (int k = 1; k < n; k++)
        if (drawn_cmp(&e[k - 1], &e[k]) == 0) {
            count += !alike[e[k - 1].i] + !alike[e[k].i];
            alike[e[k - 1].i] = alike[e[k].i] = true;
        }
    return count;
}

/* The labels in use, sorted: whether one draws as s, and adding one. */
struct label_set {
    struct label_entry *e;
    int n;
};

static int set_find(const struct label_set *u, const struct label_entry *key, bool *found)
{
    int lo = 0, hi = u->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (drawn_cmp(&u->e[mid], key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < u->n && drawn_cmp(&u->e[lo], key) == 0;
    return lo;
}

static bool set_has(const struct label_set *u, const char *s)
{
    struct label_entry key = {s, drawn_len(s), -1};
    bool found;
    set_find(u, &key, &found);
    return found;
}

static void set_add(struct label_set *u, const char *s, int i)
{
    struct label_entry key = {s, drawn_len(s), i};
    bool found;
    int at = set_find(u, &key, &found);
    memmove(&u->e[at + 1], &u->e[at], (size_t)(u->n - at) * sizeof *u->e);
    u->e[at] = key;
    u->n++;
}

/* base cut to leave room for suffix, then suffix, within RENDER_LABEL_MAX characters. */
static void label_suffixed(const char *base, const char *suffix, char *out, size_t n)
{
    size_t chars = text_chars(suffix, strlen(suffix)), len = strlen(suffix);
    size_t keep = chars < RENDER_LABEL_MAX ? RENDER_LABEL_MAX - chars : 0;
    size_t b = text_prefix(base, strlen(base), keep, n - 1 - len);
    memmove(out, base, b);
    memcpy(out + b, suffix, len + 1);
}

/* Whether s's drawn part, cut to leave one character for a suffix, ends in a digit. */
static bool ends_in_digit(const char *s)
{
    size_t b = text_prefix(s, strlen(s), RENDER_LABEL_MAX - 1, SIZE_MAX);
    return b > 0 && s[b - 1] >= '0' && s[b - 1] <= '9';
}

/* A name's own number: its trailing digits (one to three) after something else ("goblin-12":
 * "12"), or "". */
static void own_number(const char *name, char *out)
{
    size_t len = strlen(name), d = 0;
    while (d < len && name[len - 1 - d] >= '0' && name[len - 1 - d] <= '9')
        d++;
    out[0] = '\0';
    if (d >= 1 && d <= 3 && d < len)
        memcpy(out, name + len - d, d + 1);
}

/* Numbers the labels still alike (the derived ones): each by its name's own number when its
 * label holds none and that is free, else by a counter shared by the creatures whose labels
 * were made alike, 1, 2, ... (a, b, ... after a label ending in a digit), the first free. */
static void number_alike(const char *const *names, const bool *given, int n,
                         char (*labels)[RENDER_LABEL_BYTES], const bool *alike,
                         struct label_entry *e, struct label_set *used, int *group)
{
    char base[RENDER_LABEL_BYTES], mine[8], suffix[16], cand[RENDER_LABEL_BYTES];
    for (int i = 0; i < n; i++) /* the labels that stay: every one not alike, and given ones */
        if (!alike[i] || (given != NULL && given[i]))
            set_add(used, labels[i], i);
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (!alike[i] || (given != NULL && given[i]))
            continue;
        svc_picture_label(names[i], base, sizeof base);
        own_number(names[i], mine);
        if (mine[0] != '\0' && !ends_in_digit(base)) {
            label_suffixed(base, mine, cand, sizeof cand);
            if (!set_has(used, cand)) {
                memcpy(labels[i], cand, strlen(cand) + 1);
                set_add(used, labels[i], i);
                continue;
            }
        }
        e[m++] = (struct label_entry){labels[i], drawn_len(labels[i]), i};
    }
    /* The rest, grouped by the label they shared (told before any is numbered), in the order
     * of the scene. */
    qsort(e, (size_t)m, sizeof *e, entry_order);
    for (int k = 0; k < m; k++)
        group[k] = k > 0 && drawn_cmp(&e[k - 1], &e[k]) == 0 ? group[k - 1] : k;
    int counter = 0;
    for (int k = 0; k < m; k++) {
        int i = e[k].i;
        if (k == 0 || group[k] != group[k - 1])
            counter = 0;
        svc_picture_label(names[i], base, sizeof base);
        bool letters = ends_in_digit(base);
        for (;;) {
            counter++;
            if (letters && counter <= 26)
                snprintf(suffix, sizeof suffix, "%c", 'a' + counter - 1);
            else
                snprintf(suffix, sizeof suffix, "%d", counter);
            label_suffixed(base, suffix, cand, sizeof cand);
            if (!set_has(used, cand) || counter > 99999)
                break;
        }
        memcpy(labels[i], cand, strlen(cand) + 1);
        set_add(used, labels[i], i);
    }
}

int svc_picture_labels(const char *const *names, const bool *given, int n,
                       char (*labels)[RENDER_LABEL_BYTES])
{
    assert(n >= 0 && names != NULL && labels != NULL);
    for (int i = 0; i < n; i++)
        if (given == NULL || !given[i])
            svc_picture_label(names[i], labels[i], sizeof labels[i]);
    struct label_entry *e = calloc((size_t)n + 1, sizeof *e);
    struct label_set used = {calloc((size_t)n + 1, sizeof *used.e), 0};
    bool *alike = calloc((size_t)n + 1, sizeof *alike);
    int *level = calloc((size_t)n + 1, sizeof *level);
    int rc = e == NULL || used.e == NULL || alike == NULL || level == NULL ? -1 : 0;
    /* Longer labels for those alike, a character at a time, while one gets longer. */
    bool longer = true;
    for (int round = 0; rc == 0 && longer && round < LABEL_LONGER; round++) {
        if (mark_alike(labels, n, e, alike) == 0)
            break;
        longer = false;
        char cand[RENDER_LABEL_BYTES];
        for (int i = 0; i < n; i++) {
            if (!alike[i] || (given != NULL && given[i]) || level[i] >= LABEL_LONGER)
                continue;
            label_longer(names[i], level[i] + 1, cand, sizeof cand);
            struct label_entry now = {labels[i], drawn_len(labels[i]), i};
            struct label_entry then = {cand, drawn_len(cand), i};
            if (drawn_cmp(&now, &then) == 0)
                continue;
            memcpy(labels[i], cand, strlen(cand) + 1);
            level[i]++, longer = true;
        }
    }
    if (rc == 0 && mark_alike(labels, n, e, alike) > 0)
        number_alike(names, given, n, labels, alike, e, &used, level);
    free(e);
    free(used.e);
    free(alike);
    free(level);
    return rc;
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
