/* What the picture endpoints share (picture.c): POST /v1/render (service/api/render.c) and an
 * encounter's frames (service/encounter/frames.c). */
#ifndef TACTICS_SVC_CODEC_PICTURE_H
#define TACTICS_SVC_CODEC_PICTURE_H

#include <stddef.h>

#include "render/render.h"
#include "service/codec/move.h"
#include "service/http/http.h"
#include "service/json/errors.h"

/* Sides and conditions by name, as the picture requests spell them: the sides in the order
 * render/ colours them, the conditions (NULL-terminated) with their RENDER_COND_* bits. */
extern const char *const svc_picture_side_names[];
extern const char *const svc_picture_cond_names[];
extern const unsigned svc_picture_cond_bits[];

/* 64-bit FNV-1a of data, from h (SVC_PICTURE_HASH_SEED to start): a stable hash for ETags. */
#define SVC_PICTURE_HASH_SEED 14695981039346656037ULL
unsigned long long svc_picture_hash(const void *data, size_t len, unsigned long long h);

/* A creature's short label made from its name (or id): one word whole when it has at most four
 * characters, else its first three ("Ogre", "Gob", "Дра"); several words give their initials
 * plus a trailing number ("Goblin Archer 2" -> "GA2"). A character is a grapheme cluster
 * (text/text.h: "é" with its combining mark, a flag, an emoji sequence), never a byte of one.
 * Writes at most n bytes (RENDER_LABEL_BYTES is room for any), NUL included. */
void svc_picture_label(const char *name, char *out, size_t n);

/* The picture's bound in pixels from ?size= (RENDER_MIN_SIZE..RENDER_MAX_SIZE, default
 * RENDER_DEFAULT_SIZE); an error at "?size" when it is not one. */
int svc_picture_size(const struct svc_request *req, struct svc_errors *e);

/* The picture's budgets (render.h), times --budget-scale: pixels and answer bytes, and for its
 * searches (the reach and path overlays) half the search states a movement request has (work's
 * limit halved), as drawing takes the rest of the time a request may take (bench/cost_bench:
 * the three at their budgets stay within issue 28's half second). */
struct rules_work;
struct svc_config;
struct render_budget svc_picture_budget(const struct svc_config *cfg, struct rules_work *work);

/* What drawing the scene will cost (render_estimate), for the searches' gate. */
struct svc_cost;
struct svc_cost svc_picture_cost(const struct render_scene *scene, enum render_format f);

/* Draws the scene and answers: the picture (200, with etag, or a hash of its bytes when etag
 * is NULL), 422 too-expensive naming the budget that ran out, or 500. */
void svc_picture_draw_respond(struct svc_response *res, struct render_scene *scene,
                              enum render_format f, const char *etag);

#endif
