/* A PNG held in memory, decoded for a test to read its pixels: the render tests read what
 * render_png drew, the service tests what an HTTP answer carried. */
#ifndef TACTICS_TEST_SUPPORT_PNG_H
#define TACTICS_TEST_SUPPORT_PNG_H

#include <cairo.h>
#include <stddef.h>

/* The image of the PNG in data[0..len) (destroy it with cairo_surface_destroy); asserts that
 * it decodes. */
cairo_surface_t *test_png_decode(const void *data, size_t len);

#endif
