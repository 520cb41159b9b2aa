/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* The filters of the medical plugin (lb-medical-plugin.c), one file each. They use what
 * plugin ABI 1.3 added and include nothing of Lightbox but the plugin header. */

#include <lb-filter-plugin.h>

G_BEGIN_DECLS

/* The image minus a second image, plus an offset (LbFilterImage.aux). */
extern const LbFilterInfo lb_subtract_info;
/* The region scaled by a factor: nearest, linear, Lanczos (LB_FILTER_FLAG_GEOMETRY). */
extern const LbFilterInfo lb_resample_info;

G_END_DECLS
