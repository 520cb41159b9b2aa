/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Deterministic content for the tests: bytes and images from a seed (xorshift32), so that
 * a failure can be reproduced, and checksums of images. */

#include <glib.h>

#include "lb-image.h"

G_BEGIN_DECLS

/* @n pseudo-random bytes from @seed. */
GBytes  *lb_test_bytes         (gsize          n,
                                guint32        seed);
/* A @width × @height image of @format: half gradient, half noise (flat-ish and busy areas
 * both), 16-bit samples over the whole range. */
LbImage *lb_test_image_new     (guint          width,
                                guint          height,
                                LbSampleFormat format,
                                guint32        seed);
/* lb_test_image_new() in GRAY16 with a CT's value model: signed 16-bit source, rescale
 * 1 × stored − 1024, units HU (the measurement tests' statistics are in HU). */
LbImage *lb_test_ct_image_new  (guint          width,
                                guint          height,
                                guint32        seed);
/* Sample @c of pixel (@x, @y) of @image, 8 or 16 bits. */
guint    lb_test_image_sample  (LbImage       *image,
                                guint          x,
                                guint          y,
                                guint          c);
/* SHA-256 of the samples as little-endian values in packed rows: the layout numpy's tobytes()
 * gives for '<u2', so it compares with what Python computes (pydicom's pixel_array). */
char    *lb_test_pixel_sha256  (LbImage       *image) G_GNUC_MALLOC;

G_END_DECLS
