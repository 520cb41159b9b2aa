/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* The display tests' check: what the canvas shows of a grey DICOM image against
 * display-reference.py, which computes PS3.3's grey pipeline from the file with pydicom and
 * numpy. Shared by tests/dicom and tests/dicomweb. */

#include "lb-image.h"
#include "lb-render.h"

G_BEGIN_DECLS

/* Renders @img as the canvas does (lb_lut_build() with @voi, then lb_render_view() at one
 * device pixel per image pixel, no user Invert) and compares every displayed byte with
 * display-reference.py's for the Part 10 file at @dcm_path and @voi_spec ("window:K" or
 * "lut:K", the same VOI as @voi); the first pixel that differs fails the test, named with
 * @what. Returns the number of pixels compared. */
guint lb_test_check_display (LbImage     *img,
                             const LbVoi *voi,
                             const char  *dcm_path,
                             const char  *voi_spec,
                             const char  *what);

G_END_DECLS
