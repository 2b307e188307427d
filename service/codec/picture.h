/* What the picture endpoints share (picture.c): POST /v1/render (service/api/render.c) and an
 * encounter's frames (service/encounter/frames.c). */
#ifndef TACTICS_SVC_CODEC_PICTURE_H
#define TACTICS_SVC_CODEC_PICTURE_H

#include <stdbool.h>
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

/* Labels a whole scene of n creatures so that no two labels draw alike (their first
 * RENDER_LABEL_MAX characters, what render/ draws). labels[i] is creature i's: when given[i]
 * (given NULL: none is) it holds the label the request gave, kept as it is; the others are
 * made from names[i] (a name, or an id) by svc_picture_label, and those that draw as another
 * label get longer, a character at a time while that tells them apart ("the goblin" and "the
 * gnoll": "tgo" and "tgn"; "Gob" to "Gobl"), then a number: the name's own trailing one
 * ("goblin-1", "goblin-2": "gob1", "gob2"), else 1, 2, ... in the scene's order ("Gob1",
 * "Gob2"; a, b, ... after a label that ends in a digit: "GA2a", "GA2b"), all within
 * RENDER_LABEL_MAX characters. Two given labels alike stay alike (the request chose them).
 * 0, or -1 when out of memory (the labels are then svc_picture_label's, perhaps alike). */
int svc_picture_labels(const char *const *names, const bool *given, int n,
                       char (*labels)[RENDER_LABEL_BYTES]);

/* The picture's bound in pixels from ?size= (RENDER_MIN_SIZE..RENDER_MAX_SIZE, default
 * RENDER_DEFAULT_SIZE); an error at "?size" when it is not one. */
int svc_picture_size(const struct svc_request *req, struct svc_errors *e);

/* The picture's budgets (render.h), times --budget-scale: pixels and answer bytes, and for its
 * searches (the reach and path overlays) half the search states a movement request has (work's
 * limit halved), as drawing takes the rest of the time a request may take (bench/cost_bench:
 * the three at their budgets stay within half a second of CPU). */
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
