/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-image.h"

G_BEGIN_DECLS

/* The CT the measurement timings drag their ROIs over (measure-timing, ui-timing section 7):
 * 512 × 512 signed 16-bit, 0.7 mm pixels, rescale to HU, pixel padding (−2000) outside the
 * scanned circle, soft tissue with noise and a gradient inside. */
#define MEASURE_CT_SIZE    512
#define MEASURE_CT_SPACING 0.7  /* mm */

LbImage *measure_ct_new (void);

G_END_DECLS
