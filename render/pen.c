/* The pen: the same drawing calls onto a cairo image surface (PNG) or into SVG text. Numbers in
 * the SVG are printed with one decimal, in the C locale the service never changes, so the same
 * scene always gives the same text. */
#include <assert.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <png.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_internal.h"
#include "text/text.h"

/* The SVG's font list: DejaVu Sans, then the fallbacks the PNG draws with (fonts.c), then the
 * viewer's own. */
static const char svg_fonts[] = "DejaVu Sans, WenQuanYi Micro Hei, Noto Color Emoji, sans-serif";

/* Charges the SVG text written so far against the byte budget; false once past it. */
static bool svg_within(struct pen *p)
{
    struct render_budget *b = p->budget;
    if (b == NULL)
        return true;
    b->bytes = (long long)p->len;
    if (b->byte_limit > 0 && b->bytes > b->byte_limit)
        p->over = true;
    return !p->over;
}

static void svg_grow(struct pen *p, size_t more)
{
    if (p->failed || p->len + more + 1 <= p->cap)
        return;
    size_t cap = p->cap ? p->cap : 65536;
    while (cap < p->len + more + 1)
        cap *= 2;
    char *n = realloc(p->svg, cap);
    if (n == NULL) {
        p->failed = true;
        return;
    }
    p->svg = n;
    p->cap = cap;
}

static void svg_printf(struct pen *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void svg_printf(struct pen *p, const char *fmt, ...)
{
    if (p->failed || p->over)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(p->svg + p->len, p->cap - p->len, fmt, ap);
    va_end(ap);
    if (n < 0) {
        p->failed = true;
        return;
    }
    if ((size_t)n + 1 > p->cap - p->len) {
        svg_grow(p, (size_t)n);
        if (p->failed)
            return;
        va_start(ap, fmt);
        vsnprintf(p->svg + p->len, p->cap - p->len, fmt, ap);
        va_end(ap);
    }
    p->len += (size_t)n;
    svg_within(p);
}

/* Text with &, <, >, " and ' escaped, and control characters dropped; always well-formed
 * UTF-8 of characters XML allows: a malformed byte, U+FFFE or U+FFFF becomes U+FFFD. */
static void svg_escaped(struct pen *p, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n && !p->failed;) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x80) {
            unsigned cp = 0;
            size_t k = text_next_code_point(s + i, n - i, &cp);
            if (k == 0 || cp == 0xfffe || cp == 0xffff)
                svg_printf(p, "\xef\xbf\xbd");
            else
                svg_printf(p, "%.*s", (int)k, s + i);
            i += k ? k : 1;
            continue;
        }
        i++;
        if (c == '&')
            svg_printf(p, "&amp;");
        else if (c == '<')
            svg_printf(p, "&lt;");
        else if (c == '>')
            svg_printf(p, "&gt;");
        else if (c == '"')
            svg_printf(p, "&quot;");
        else if (c == '\'')
            svg_printf(p, "&apos;");
        else if (c >= 0x20 && c != 0x7f)
            svg_printf(p, "%c", c);
    }
}

static void set_rgba(cairo_t *cr, uint32_t rgb, double a)
{
    cairo_set_source_rgba(cr, ((rgb >> 16) & 0xff) / 255.0, ((rgb >> 8) & 0xff) / 255.0,
                          (rgb & 0xff) / 255.0, a);
}

/* Fills the straight lines pen_polyline gathered (one path, one colour), if any. */
static void lines_flush(struct pen *p)
{
    if (!p->lines)
        return;
    p->lines = false;
    set_rgba(p->cr, p->lines_rgb, 1);
    cairo_fill(p->cr);
}

const char *render_budget_spent(const struct render_budget *b, long long *limit, long long *reached)
{
    if (b != NULL && b->pixel_limit > 0 && b->pixels > b->pixel_limit) {
        *limit = b->pixel_limit, *reached = b->pixels;
        return "pixels";
    }
    if (b != NULL && b->byte_limit > 0 && b->bytes > b->byte_limit) {
        *limit = b->byte_limit, *reached = b->bytes;
        return "answer_bytes";
    }
    *limit = *reached = 0;
    return NULL;
}

/* Charges a PNG shape covering the box (x0, y0)-(x1, y1): its pixels on the canvas, at least
 * RENDER_SHAPE_PIXELS. False (and nothing to draw) once the budget is spent. An SVG's shapes
 * are charged by their text (svg_within). */
static bool pen_charge(struct pen *p, double x0, double y0, double x1, double y1)
{
    if (p->over)
        return false;
    struct render_budget *b = p->budget;
    if (b == NULL || p->format != RENDER_PNG)
        return true;
    double w = cairo_image_surface_get_width(p->surface);
    double h = cairo_image_surface_get_height(p->surface);
    x0 = x0 < 0 ? 0 : x0, y0 = y0 < 0 ? 0 : y0;
    x1 = x1 > w ? w : x1, y1 = y1 > h ? h : y1;
    double area = x1 > x0 && y1 > y0 ? (x1 - x0 + 1) * (y1 - y0 + 1) : 0;
    b->pixels += area > RENDER_SHAPE_PIXELS ? (long long)area : RENDER_SHAPE_PIXELS;
    if (b->pixel_limit > 0 && b->pixels > b->pixel_limit)
        p->over = true;
    return !p->over;
}

/* The box of n points, widened by pad on each side. */
static bool pen_charge_points(struct pen *p, const double *xy, int n, double pad)
{
    assert(xy != NULL && n >= 1); /* its box starts at the first point */
    if (p->budget == NULL || p->format != RENDER_PNG)
        return !p->over;
    double x0 = xy[0], y0 = xy[1], x1 = xy[0], y1 = xy[1];
    for (int i = 1; i < n; i++) {
        x0 = xy[2 * i] < x0 ? xy[2 * i] : x0, x1 = xy[2 * i] > x1 ? xy[2 * i] : x1;
        y0 = xy[2 * i + 1] < y0 ? xy[2 * i + 1] : y0, y1 = xy[2 * i + 1] > y1 ? xy[2 * i + 1] : y1;
    }
    return pen_charge(p, x0 - pad, y0 - pad, x1 + pad, y1 + pad);
}

bool pen_reserve(struct pen *p, long long n, double pixels)
{
    struct render_budget *b = p->budget;
    if (p->over)
        return false;
    if (b == NULL)
        return true;
    if (p->format == RENDER_PNG) {
        double each = pixels > RENDER_SHAPE_PIXELS ? pixels : RENDER_SHAPE_PIXELS;
        double total = (double)b->pixels + (double)n * each;
        if (b->pixel_limit <= 0 || total <= (double)b->pixel_limit)
            return true;
        b->pixels = (long long)total;
    } else {
        /* An SVG shape is at least a few dozen bytes of text. */
        double total = (double)p->len + (double)n * 40;
        if (b->byte_limit <= 0 || total <= (double)b->byte_limit)
            return true;
        b->bytes = (long long)total;
    }
    p->over = true;
    return false;
}

int pen_open(struct pen *p, enum render_format f, int width, int height,
             struct render_budget *budget)
{
    memset(p, 0, sizeof *p);
    p->format = f;
    p->budget = budget;
    if (f == RENDER_PNG && budget != NULL) {
        /* The canvas counts twice: allocated (4 bytes a pixel) and painted over, then encoded,
         * whatever is drawn on it. */
        budget->pixels += 2LL * width * height;
        if (budget->pixel_limit > 0 && budget->pixels > budget->pixel_limit)
            return RENDER_ERR_TOO_EXPENSIVE;
    }
    p->surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, f == RENDER_PNG ? width : 1,
                                            f == RENDER_PNG ? height : 1);
    p->cr = cairo_create(p->surface);
    if (cairo_status(p->cr) != CAIRO_STATUS_SUCCESS) {
        pen_abandon(p);
        return RENDER_ERR_DRAW;
    }
    cairo_set_line_join(p->cr, CAIRO_LINE_JOIN_ROUND);
    cairo_set_line_cap(p->cr, CAIRO_LINE_CAP_ROUND);
    if (f == RENDER_SVG) {
        svg_grow(p, 4096);
        svg_printf(p,
                   "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                   "viewBox=\"0 0 %d %d\" font-family=\"%s\">\n",
                   width, height, width, height, svg_fonts);
    }
    return p->failed ? RENDER_ERR_NOMEM : RENDER_OK;
}

void pen_abandon(struct pen *p)
{
    if (p->cr != NULL)
        cairo_destroy(p->cr);
    if (p->surface != NULL)
        cairo_surface_destroy(p->surface);
    free(p->svg);
    memset(p, 0, sizeof *p);
}

/* A growing byte buffer for the PNG. */
struct bytes {
    unsigned char *data;
    size_t len, cap;
    long long limit;   /* the byte budget (0: none) */
    long long reached; /* the bytes written, or that would have been when it stopped */
    bool over;         /* stopped at the budget */
};

static bool bytes_reserve(struct bytes *b, size_t more)
{
    if (b->len + more <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 65536;
    while (cap < b->len + more)
        cap *= 2;
    unsigned char *n = realloc(b->data, cap);
    if (n == NULL)
        return false;
    b->data = n;
    b->cap = cap;
    return true;
}

/* libpng's output: appended to the struct bytes it was given. */
static void png_put(png_structp png, png_bytep data, size_t n)
{
    struct bytes *b = png_get_io_ptr(png);
    b->reached = (long long)(b->len + n);
    if (b->limit > 0 && b->reached > b->limit) {
        b->over = true;
        png_error(png, "past the byte budget");
    }
    if (!bytes_reserve(b, n))
        png_error(png, "out of memory");
    memcpy(b->data + b->len, data, n);
    b->len += n;
}

static void png_no_flush(png_structp png)
{
    (void)png;
}

/* libpng's errors end the picture without a word on stderr: the caller answers for it. */
static void png_fail(png_structp png, png_const_charp msg)
{
    (void)msg;
    png_longjmp(png, 1);
}

static void png_quiet(png_structp png, png_const_charp msg)
{
    (void)png, (void)msg;
}

/* Runs libpng over an RGB24 surface's pixels, one row (3 * w bytes) at a time through row.
 * False when libpng gave up (out of memory). The setjmp lives here, where nothing it could
 * clobber is read after a longjmp. */
static bool png_write_pixels(png_structp png, png_infop info, const unsigned char *px, int w, int h,
                             int stride, unsigned char *row)
{
    if (setjmp(png_jmpbuf(png)))
        return false;
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, 1);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_UP);
    png_set_compression_buffer_size(png, 65536); /* IDAT chunks of 64 KiB, not 8 */
    png_write_info(png, info);
    for (int y = 0; y < h; y++) {
        const uint32_t *cur = (const uint32_t *)(const void *)(px + (size_t)y * (size_t)stride);
        for (int x = 0; x < w; x++) {
            uint32_t v = cur[x];
            row[3 * x] = (unsigned char)(v >> 16);
            row[3 * x + 1] = (unsigned char)(v >> 8);
            row[3 * x + 2] = (unsigned char)v;
        }
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    return true;
}

/* Encodes an RGB24 surface as an 8-bit RGB PNG with libpng: every row filtered "Up" (the
 * previous row subtracted; most of a board repeats row to row) and deflated at level 1.
 * cairo's own writer (libpng's default level and adaptive filters) took 4 to 5 times as long
 * on a 900 x 900 board, most of a picture's time. No ancillary chunks (no tIME): the same
 * pixels give the same bytes. On success out owns the bytes (free with free()). */
static int png_encode(cairo_surface_t *s, struct render_budget *budget, struct render_image *out)
{
    cairo_surface_flush(s);
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    int stride = cairo_image_surface_get_stride(s);
    const unsigned char *px = cairo_image_surface_get_data(s);
    struct bytes b = {.limit = budget != NULL ? budget->byte_limit : 0};
    int rc = RENDER_ERR_NOMEM;
    unsigned char *row = malloc(3 * (size_t)w);
    png_structp png =
        row ? png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, png_fail, png_quiet) : NULL;
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (info == NULL)
        goto out;
    png_set_write_fn(png, &b, png_put, png_no_flush);
    bool done = png_write_pixels(png, info, px, w, h, stride, row);
    if (budget != NULL)
        budget->bytes = b.reached;
    if (b.over)
        rc = RENDER_ERR_TOO_EXPENSIVE;
    if (!done)
        goto out;
    out->data = b.data;
    out->len = b.len;
    b.data = NULL;
    rc = RENDER_OK;
out:
    if (png != NULL)
        png_destroy_write_struct(&png, info ? &info : NULL);
    free(row);
    free(b.data);
    return rc;
}

int pen_close(struct pen *p, struct render_image *out)
{
    if (p->cr != NULL && !p->over)
        lines_flush(p);
    int rc = RENDER_OK;
    if (p->over) {
        rc = RENDER_ERR_TOO_EXPENSIVE;
    } else if (p->failed) {
        rc = RENDER_ERR_NOMEM;
    } else if (p->format == RENDER_SVG) {
        svg_printf(p, "</svg>\n");
        if (p->over) {
            rc = RENDER_ERR_TOO_EXPENSIVE;
        } else if (p->failed) {
            rc = RENDER_ERR_NOMEM;
        } else {
            out->data = (unsigned char *)p->svg;
            out->len = p->len;
            p->svg = NULL;
        }
    } else {
        rc = cairo_status(p->cr) != CAIRO_STATUS_SUCCESS ? RENDER_ERR_DRAW
                                                         : png_encode(p->surface, p->budget, out);
    }
    pen_abandon(p);
    return rc;
}

/* The SVG paint attributes of a fill or stroke colour. */
static void svg_paint(struct pen *p, const char *what, uint32_t rgb, double a)
{
    svg_printf(p, " %s=\"#%06x\"", what, rgb & 0xffffffu);
    if (a < 0.999)
        svg_printf(p, " %s-opacity=\"%.2f\"", what, a);
}

void pen_fill_rect(struct pen *p, double x, double y, double w, double h, uint32_t rgb, double a)
{
    lines_flush(p);
    if (!pen_charge(p, x, y, x + w, y + h))
        return;
    if (p->format == RENDER_PNG) {
        set_rgba(p->cr, rgb, a);
        cairo_rectangle(p->cr, x, y, w, h);
        cairo_fill(p->cr);
        return;
    }
    svg_printf(p, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"", x, y, w, h);
    svg_paint(p, "fill", rgb, a);
    svg_printf(p, "/>\n");
}

static void svg_points(struct pen *p, const double *xy, int n)
{
    svg_printf(p, " points=\"");
    for (int i = 0; i < n; i++)
        svg_printf(p, "%s%.1f,%.1f", i ? " " : "", xy[2 * i], xy[2 * i + 1]);
    svg_printf(p, "\"");
}

static void cairo_path_of(cairo_t *cr, const double *xy, int n, bool closed)
{
    cairo_new_path(cr);
    for (int i = 0; i < n; i++)
        cairo_line_to(cr, xy[2 * i], xy[2 * i + 1]);
    if (closed)
        cairo_close_path(cr);
}

void pen_polygon(struct pen *p, const double *xy, int n, uint32_t fill, double fill_a,
                 uint32_t stroke, double stroke_a, double width)
{
    assert(n >= 3); /* a polygon has at least three corners */
    lines_flush(p);
    if (!pen_charge_points(p, xy, n, width))
        return;
    if (p->format == RENDER_PNG) {
        cairo_path_of(p->cr, xy, n, true);
        if (fill_a > 0) {
            set_rgba(p->cr, fill, fill_a);
            cairo_fill_preserve(p->cr);
        }
        if (width > 0) {
            set_rgba(p->cr, stroke, stroke_a);
            cairo_set_line_width(p->cr, width);
            cairo_stroke_preserve(p->cr);
        }
        cairo_new_path(p->cr);
        return;
    }
    svg_printf(p, "<polygon");
    svg_points(p, xy, n);
    if (fill_a > 0)
        svg_paint(p, "fill", fill, fill_a);
    else
        svg_printf(p, " fill=\"none\"");
    if (width > 0) {
        svg_paint(p, "stroke", stroke, stroke_a);
        svg_printf(p, " stroke-width=\"%.1f\" stroke-linejoin=\"round\"", width);
    }
    svg_printf(p, "/>\n");
}

void pen_polyline(struct pen *p, const double *xy, int n, uint32_t rgb, double a, double width,
                  double dash)
{
    assert(n >= 2); /* a line joins at least two points (the PNG fast path reads xy[0..3]) */
    if (!pen_charge_points(p, xy, n, width))
        return;
    if (p->format == RENDER_PNG && n == 2 && dash <= 0 && a >= 1 &&
        (xy[0] == xy[2] || xy[1] == xy[3])) {
        /* An opaque straight line along an axis (the grid's): the rectangle its stroke covers,
         * added to the lines gathered so far of its colour, all filled at once (lines_flush),
         * where each line was stroked (7% fewer instructions for bench/render's board than
         * stroking each). Its ends are square, not round: half the width past each
         * end, as far as a round cap reaches. */
        if (p->lines && p->lines_rgb != rgb)
            lines_flush(p);
        if (!p->lines) {
            cairo_new_path(p->cr);
            p->lines = true;
            p->lines_rgb = rgb;
        }
        double h = width / 2;
        double x0 = fmin(xy[0], xy[2]) - h, y0 = fmin(xy[1], xy[3]) - h;
        double x1 = fmax(xy[0], xy[2]) + h, y1 = fmax(xy[1], xy[3]) + h;
        if (width == floor(width)) {
            /* A whole number of pixels wide: on whole pixels, which cairo fills as boxes, a
             * copy per row, where a rectangle between pixels is rasterised. A line on a
             * pixel's edge takes the pixel after it, whole, rather than half of the two beside
             * it. */
            x0 = floor(x0 + 0.5), y0 = floor(y0 + 0.5);
            x1 = floor(x1 + 0.5), y1 = floor(y1 + 0.5);
        }
        cairo_rectangle(p->cr, x0, y0, x1 - x0, y1 - y0);
        return;
    }
    lines_flush(p);
    if (p->format == RENDER_PNG) {
        cairo_path_of(p->cr, xy, n, false);
        set_rgba(p->cr, rgb, a);
        cairo_set_line_width(p->cr, width);
        if (dash > 0) {
            double d[2] = {dash, dash * 0.8};
            cairo_set_dash(p->cr, d, 2, 0);
        }
        cairo_stroke(p->cr);
        cairo_set_dash(p->cr, NULL, 0, 0);
        return;
    }
    svg_printf(p, "<polyline");
    svg_points(p, xy, n);
    svg_printf(p, " fill=\"none\"");
    svg_paint(p, "stroke", rgb, a);
    svg_printf(p, " stroke-width=\"%.1f\" stroke-linecap=\"round\" stroke-linejoin=\"round\"",
               width);
    if (dash > 0)
        svg_printf(p, " stroke-dasharray=\"%.1f %.1f\"", dash, dash * 0.8);
    svg_printf(p, "/>\n");
}

void pen_circle(struct pen *p, double cx, double cy, double r, uint32_t fill, double fill_a,
                uint32_t stroke, double width)
{
    lines_flush(p);
    if (!pen_charge(p, cx - r - width, cy - r - width, cx + r + width, cy + r + width))
        return;
    if (p->format == RENDER_PNG) {
        cairo_new_path(p->cr);
        cairo_arc(p->cr, cx, cy, r, 0, 6.283185307179586);
        if (fill_a > 0) {
            set_rgba(p->cr, fill, fill_a);
            cairo_fill_preserve(p->cr);
        }
        if (width > 0) {
            set_rgba(p->cr, stroke, 1);
            cairo_set_line_width(p->cr, width);
            cairo_stroke_preserve(p->cr);
        }
        cairo_new_path(p->cr);
        return;
    }
    svg_printf(p, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"", cx, cy, r);
    if (fill_a > 0)
        svg_paint(p, "fill", fill, fill_a);
    else
        svg_printf(p, " fill=\"none\"");
    if (width > 0) {
        svg_paint(p, "stroke", stroke, 1);
        svg_printf(p, " stroke-width=\"%.1f\"", width);
    }
    svg_printf(p, "/>\n");
}

/* A text walked run by run (fonts.c), each in its own face: measured, outlined or drawn. */
enum walk { WALK_MEASURE, WALK_PATH, WALK_SHOW };

struct text_walk {
    struct pen *p;
    double size, x, y;
    enum walk what;
    char *buf; /* room for the longest run and its NUL */
};

static void walk_run(void *ud, const char *s, size_t n, cairo_font_face_t *face)
{
    struct text_walk *w = ud;
    cairo_t *cr = w->p->cr;
    memcpy(w->buf, s, n);
    w->buf[n] = '\0';
    cairo_set_font_face(cr, face);
    cairo_set_font_size(cr, w->size);
    cairo_text_extents_t ext;
    cairo_text_extents(cr, w->buf, &ext);
    if (w->what != WALK_MEASURE) {
        cairo_move_to(cr, w->x, w->y);
        if (w->what == WALK_PATH)
            cairo_text_path(cr, w->buf);
        else
            cairo_show_text(cr, w->buf);
    }
    w->x += ext.x_advance;
}

/* Walks text from (x, y); returns its advance. */
static double walk_text(struct pen *p, double size, bool bold, const char *text, enum walk what,
                        double x, double y)
{
    size_t n = strlen(text);
    char stack[256];
    struct text_walk w = {p, size, x, y, what, n < sizeof stack - 4 ? stack : malloc(n + 4)};
    if (w.buf == NULL) {
        p->failed = true;
        return 0;
    }
    render_text_runs(text, bold, walk_run, &w);
    if (w.buf != stack)
        free(w.buf);
    return w.x - x;
}

double pen_text_width(struct pen *p, double size, bool bold, const char *text)
{
    return walk_text(p, size, bold, text, WALK_MEASURE, 0, 0);
}

void pen_text(struct pen *p, double x, double y, double size, bool bold, int anchor,
              const char *text, uint32_t rgb, uint32_t halo, double halo_w)
{
    lines_flush(p);
    /* Its box: about size / 1.6 wide a byte, centred or from x. */
    double tw = size * 0.625 * (double)strlen(text) + 2 * halo_w;
    if (!pen_charge(p, anchor == 1 ? x - tw / 2 : x, y - size, anchor == 1 ? x + tw / 2 : x + tw,
                    y + size / 3))
        return;
    if (p->format == RENDER_PNG) {
        if (anchor == 1)
            x -= pen_text_width(p, size, bold, text) / 2;
        cairo_new_path(p->cr);
        if (halo_w > 0) {
            walk_text(p, size, bold, text, WALK_PATH, x, y);
            set_rgba(p->cr, halo, 1);
            cairo_set_line_width(p->cr, halo_w);
            cairo_stroke(p->cr);
        }
        set_rgba(p->cr, rgb, 1);
        walk_text(p, size, bold, text, WALK_SHOW, x, y);
        cairo_new_path(p->cr);
        return;
    }
    svg_printf(p, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.1f\"%s%s", x, y, size,
               bold ? " font-weight=\"bold\"" : "", anchor == 1 ? " text-anchor=\"middle\"" : "");
    svg_paint(p, "fill", rgb, 1);
    if (halo_w > 0) {
        svg_paint(p, "stroke", halo, 1);
        svg_printf(p, " stroke-width=\"%.1f\" paint-order=\"stroke\" stroke-linejoin=\"round\"",
                   halo_w);
    }
    svg_printf(p, ">");
    svg_escaped(p, text);
    svg_printf(p, "</text>\n");
}

void pen_group_begin(struct pen *p, const char *id_prefix, const char *id, const char *cls)
{
    if (p->format != RENDER_SVG)
        return;
    svg_printf(p, "<g");
    if (id != NULL) {
        svg_printf(p, " id=\"%s", id_prefix ? id_prefix : "");
        svg_escaped(p, id);
        svg_printf(p, "\" data-id=\"");
        svg_escaped(p, id);
        svg_printf(p, "\"");
    }
    if (cls != NULL)
        svg_printf(p, " class=\"%s\"", cls);
    svg_printf(p, ">\n");
}

void pen_group_begin_data(struct pen *p, const char *cls, int n, const char *const *names,
                          const char *const *values)
{
    if (p->format != RENDER_SVG)
        return;
    lines_flush(p);
    svg_printf(p, "<g class=\"%s\"", cls);
    for (int i = 0; i < n; i++) {
        svg_printf(p, " data-%s=\"", names[i]);
        svg_escaped(p, values[i]);
        svg_printf(p, "\"");
    }
    svg_printf(p, ">\n");
}

void pen_group_end(struct pen *p)
{
    if (p->format == RENDER_SVG)
        svg_printf(p, "</g>\n");
}

void pen_clip_begin(struct pen *p, double x, double y, double w, double h)
{
    lines_flush(p);
    if (p->format == RENDER_PNG) {
        cairo_save(p->cr);
        cairo_rectangle(p->cr, x, y, w, h);
        cairo_clip(p->cr);
        return;
    }
    svg_printf(p,
               "<clipPath id=\"board\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
               "height=\"%.1f\"/></clipPath>\n<g clip-path=\"url(#board)\">\n",
               x, y, w, h);
}

void pen_clip_end(struct pen *p)
{
    lines_flush(p);
    if (p->format == RENDER_PNG)
        cairo_restore(p->cr);
    else
        svg_printf(p, "</g>\n");
}

void render_release_caches(void)
{
    render_fonts_release();
    cairo_debug_reset_static_data();
    FcFini();
}
