/* A PNG held in memory, decoded through cairo's stream reader (support/png.h). */
#include "tests/support/png.h"

#include <criterion/criterion.h>
#include <string.h>

struct png_reader {
    const unsigned char *at;
    size_t left;
};

static cairo_status_t read_png(void *closure, unsigned char *data, unsigned int length)
{
    struct png_reader *p = closure;
    if (length > p->left)
        return CAIRO_STATUS_READ_ERROR;
    memcpy(data, p->at, length);
    p->at += length;
    p->left -= length;
    return CAIRO_STATUS_SUCCESS;
}

cairo_surface_t *test_png_decode(const void *data, size_t len)
{
    struct png_reader p = {data, len};
    cairo_surface_t *s = cairo_image_surface_create_from_png_stream(read_png, &p);
    cr_assert_eq(cairo_surface_status(s), CAIRO_STATUS_SUCCESS, "the PNG does not decode");
    return s;
}
