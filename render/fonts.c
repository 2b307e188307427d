/* The faces text is drawn with: DejaVu Sans first, then, character by character, the fonts
 * fontconfig offers after it, so that a name draws in any script the installed fonts have
 * (WenQuanYi Micro Hei for CJK and Noto Color Emoji, installed by scripts/install-deps.sh and
 * the Dockerfile), and a character no font has is drawn as U+FFFD, visibly, never dropped.
 *
 * cairo's toy font API, which this used, asks fontconfig for one font and draws every
 * character with it: a character DejaVu lacks became its empty .notdef box. Here fontconfig
 * sorts the fonts for "DejaVu Sans" once per process (FcFontSort, trimmed to the fonts that add
 * coverage), each character cluster takes the first font whose coverage holds all of its code
 * points (zero-width joiners and variation selectors aside), and cairo's FreeType backend
 * draws each run of clusters in its font. No shaping: combining marks are drawn as the
 * fonts place them, over the base. */
#include <cairo-ft.h>
#include <fontconfig/fontconfig.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_internal.h"
#include "text/text.h"

static const char font_family[] = "DejaVu Sans";

/* One weight's fallback list: fontconfig's sort, and a cairo face per font once it is used. */
struct fallback {
    bool ready;
    FcPattern *pattern;        /* what was asked for, to prepare each font's pattern */
    FcFontSet *set;            /* NULL when fontconfig found no font at all */
    cairo_font_face_t **faces; /* set->nfont of them, made on first use */
    cairo_font_face_t *toy;    /* without fontconfig's list: the toy face, as before */
};

static struct fallback lists[2];
static pthread_mutex_t lists_lock = PTHREAD_MUTEX_INITIALIZER;

static void list_init(struct fallback *l, bool bold)
{
    l->ready = true;
    l->toy = cairo_toy_font_face_create(font_family, CAIRO_FONT_SLANT_NORMAL,
                                        bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    l->pattern =
        FcPatternBuild(NULL, FC_FAMILY, FcTypeString, (const FcChar8 *)font_family, FC_WEIGHT,
                       FcTypeInteger, bold ? FC_WEIGHT_BOLD : FC_WEIGHT_REGULAR, (char *)NULL);
    if (l->pattern == NULL)
        return;
    FcConfigSubstitute(NULL, l->pattern, FcMatchPattern);
    FcDefaultSubstitute(l->pattern);
    FcResult r;
    l->set = FcFontSort(NULL, l->pattern, FcTrue, NULL, &r);
    if (l->set != NULL && l->set->nfont > 0)
        l->faces = calloc((size_t)l->set->nfont, sizeof *l->faces);
    if (l->faces == NULL && l->set != NULL) {
        FcFontSetDestroy(l->set);
        l->set = NULL;
    }
}

static struct fallback *list_of(bool bold)
{
    pthread_mutex_lock(&lists_lock);
    struct fallback *l = &lists[bold];
    if (!l->ready)
        list_init(l, bold);
    pthread_mutex_unlock(&lists_lock);
    return l;
}

/* The face of font i of the list (the toy face when it cannot be made). */
static cairo_font_face_t *face_at(struct fallback *l, int i)
{
    if (l->set == NULL)
        return l->toy;
    pthread_mutex_lock(&lists_lock);
    if (l->faces[i] == NULL) {
        FcPattern *p = FcFontRenderPrepare(NULL, l->pattern, l->set->fonts[i]);
        if (p != NULL) {
            cairo_font_face_t *f = cairo_ft_font_face_create_for_pattern(p);
            if (cairo_font_face_status(f) == CAIRO_STATUS_SUCCESS)
                l->faces[i] = f;
            else
                cairo_font_face_destroy(f);
            FcPatternDestroy(p);
        }
    }
    cairo_font_face_t *f = l->faces[i] ? l->faces[i] : l->toy;
    pthread_mutex_unlock(&lists_lock);
    return f;
}

/* Code points that change how the character before them looks but need no glyph of their own
 * in the font that draws it: joiners and variation selectors. */
static bool needs_no_glyph(unsigned cp)
{
    return cp == 0x200c || cp == 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f) ||
           (cp >= 0xe0100 && cp <= 0xe01ef) || (cp >= 0xe0020 && cp <= 0xe007f);
}

static bool font_has(const struct fallback *l, int i, unsigned cp)
{
    FcCharSet *cs = NULL;
    return FcPatternGetCharSet(l->set->fonts[i], FC_CHARSET, 0, &cs) == FcResultMatch &&
           FcCharSetHasChar(cs, cp);
}

/* The first font of l that has every code point of the cluster (n bytes at s, well-formed) that
 * needs a glyph; else the first that has its first code point; else -1. */
static int font_for(const struct fallback *l, const char *s, size_t n)
{
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < l->set->nfont; i++) {
            bool all = true;
            size_t k = 0;
            for (size_t at = 0; at < n && all; at += k) {
                unsigned cp = 0;
                k = text_next_code_point(s + at, n - at, &cp);
                if (k == 0)
                    return -1;
                all = needs_no_glyph(cp) || font_has(l, i, cp);
                if (pass == 1)
                    break; /* the second pass asks for the first code point only */
            }
            if (all)
                return i;
        }
    return -1;
}

static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD */

/* Whether the cluster of n bytes at s is drawn at all: a control character is not (the SVG
 * drops it too), nor a malformed byte (drawn as U+FFFD instead, by the caller). */
static bool is_control(const char *s, size_t n)
{
    unsigned cp = 0;
    return text_next_code_point(s, n, &cp) > 0 && (cp < 0x20 || cp == 0x7f);
}

void render_text_runs(const char *text, bool bold, render_run_fn fn, void *ud)
{
    struct fallback *l = list_of(bold);
    size_t n = strlen(text);
    if (n == 0)
        return;
    if (l->set == NULL) { /* no fontconfig list: the toy face draws it all, as before */
        if (text_utf8_valid(text, n))
            fn(ud, text, n, l->toy);
        return;
    }
    char stack[256];
    char *starts = n <= sizeof stack ? stack : malloc(n);
    if (starts == NULL)
        return;
    text_char_starts(text, n, starts);
    const char *run = NULL;
    size_t run_n = 0;
    cairo_font_face_t *run_face = NULL;
    for (size_t at = 0; at < n;) {
        size_t end = at + 1;
        while (end < n && !starts[end])
            end++;
        const char *s = text + at;
        size_t k = end - at;
        cairo_font_face_t *face = NULL;
        bool replace = !text_utf8_valid(s, k);
        int f = replace ? -1 : font_for(l, s, k);
        if (is_control(s, k))
            s = NULL;
        else if (f >= 0)
            face = face_at(l, f);
        else
            replace = true;
        if (replace) { /* nothing has it: U+FFFD in the first font that has that */
            int r = font_for(l, replacement, 3);
            face = face_at(l, r >= 0 ? r : 0);
            s = r >= 0 ? replacement : "?";
            k = r >= 0 ? 3 : 1;
        }
        bool joins = s != NULL && !replace && face == run_face && run != NULL && run + run_n == s;
        if (!joins && run != NULL) {
            fn(ud, run, run_n, run_face);
            run = NULL;
        }
        if (s != NULL && joins) {
            run_n += k;
        } else if (s != NULL && replace) {
            fn(ud, s, k, face); /* a replacement is a run of its own */
        } else if (s != NULL) {
            run = s, run_n = k, run_face = face;
        }
        at = end;
    }
    if (run != NULL)
        fn(ud, run, run_n, run_face);
    if (starts != stack)
        free(starts);
}

void render_fonts_release(void)
{
    pthread_mutex_lock(&lists_lock);
    for (int b = 0; b < 2; b++) {
        struct fallback *l = &lists[b];
        for (int i = 0; l->faces != NULL && l->set != NULL && i < l->set->nfont; i++)
            if (l->faces[i] != NULL)
                cairo_font_face_destroy(l->faces[i]);
        free(l->faces);
        if (l->set != NULL)
            FcFontSetDestroy(l->set);
        if (l->pattern != NULL)
            FcPatternDestroy(l->pattern);
        if (l->toy != NULL)
            cairo_font_face_destroy(l->toy);
        memset(l, 0, sizeof *l);
    }
    pthread_mutex_unlock(&lists_lock);
}
