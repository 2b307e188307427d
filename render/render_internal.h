/* What the files of render/ share: the pen, one drawing interface with two backends (cairo for
 * PNG, hand-written SVG text, so that every creature is a group carrying its id, which cairo's
 * own SVG surface cannot emit). */
#ifndef TACTICS_RENDER_INTERNAL_H
#define TACTICS_RENDER_INTERNAL_H

#include <cairo.h>
#include <stdint.h>

#include "render.h"

struct pen {
    enum render_format format;
    cairo_surface_t *surface; /* PNG: the picture; SVG: a 1x1 scratch for measuring text */
    cairo_t *cr;
    cairo_font_face_t *faces[2]; /* DejaVu Sans, regular and bold, looked up once */
    char *svg;                   /* SVG text so far */
    size_t len, cap;
    bool failed; /* out of memory or a cairo error: the picture is dropped */
};

/* Colours are 0xRRGGBB. */
int pen_open(struct pen *p, enum render_format f, int width, int height);
/* Finishes the picture into out (data and len); frees the pen either way. */
int pen_close(struct pen *p, struct render_image *out);
void pen_abandon(struct pen *p);

void pen_fill_rect(struct pen *p, double x, double y, double w, double h, uint32_t rgb, double a);
/* A polygon of n points xy[2n]: filled when fill_a > 0, outlined when width > 0. */
void pen_polygon(struct pen *p, const double *xy, int n, uint32_t fill, double fill_a,
                 uint32_t stroke, double stroke_a, double width);
/* An open polyline; dash > 0 draws it dashed with that dash length. */
void pen_polyline(struct pen *p, const double *xy, int n, uint32_t rgb, double a, double width,
                  double dash);
void pen_circle(struct pen *p, double cx, double cy, double r, uint32_t fill, double fill_a,
                uint32_t stroke, double width);
/* Text in DejaVu Sans, anchored at its left (anchor 0) or centre (1) on baseline y, with an
 * outline of halo colour when halo_w > 0. */
void pen_text(struct pen *p, double x, double y, double size, bool bold, int anchor,
              const char *text, uint32_t rgb, uint32_t halo, double halo_w);
double pen_text_width(struct pen *p, double size, bool bold, const char *text);
/* SVG groups (ignored on PNG): id and class may be NULL. */
void pen_group_begin(struct pen *p, const char *id_prefix, const char *id, const char *cls);
void pen_group_end(struct pen *p);
/* Clips what follows to a rectangle until pen_clip_end. */
void pen_clip_begin(struct pen *p, double x, double y, double w, double h);
void pen_clip_end(struct pen *p);

/* The legend: the marks in use, in the order drawn (draw.c). */
#define RENDER_LEGEND_MAX 48

struct render_legend_item {
    int kind; /* enum legend_kind in draw.c */
    int arg;  /* a side, a terrain, ... */
};

struct render_legend {
    struct render_legend_item items[RENDER_LEGEND_MAX];
    int count;
};

/* The marks a picture of the scene shows in layout l's view (l NULL: anywhere on the map). */
void render_legend_collect(const struct render_scene *s, const struct render_layout *l,
                           struct render_legend *out);
/* Its height in pixels when laid out `width` pixels wide (0 for no items). */
int render_legend_height(const struct render_scene *s, const struct render_legend *lg, int width);
/* The most the legend of any view of s can take at `width`. */
int render_legend_height_estimate(const struct render_scene *s, int width);

#endif
