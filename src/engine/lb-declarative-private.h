/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-declarative.h"

G_BEGIN_DECLS

/* A kernel filter's taps as parsed (lb-declarative.c) and run (lb-declarative-convolve.c);
 * immutable once its LbFilter exists, and its LbFilterInfo's user_data. */
typedef struct {
  int kw;
  int kh;
  gint32 *taps;     /* kh rows of kw */
  gint64 divisor;
  gint64 bias;          /* samples, when bias_range is 0 */
  double bias_range;    /* "Bias=F range": F × the sample maximum (255 or 65535), rounded to
                         * the nearest integer (halves away from zero) when a pass starts;
                         * 0: bias holds the bias */
} LbDeclarativeKernel;

/* Parses @bytes strictly (see lb_declarative_parse()). With @filter non-NULL it builds the
 * filter, and a kernel filter runs the prepare, process and release of @kernel_hooks; with
 * @filter NULL it only checks, and @kernel_hooks may be NULL. */
gboolean _lb_declarative_parse (GBytes                 *bytes,
                                const char             *origin,
                                LbDeclarativeStepCheck  check,
                                gpointer                user_data,
                                const LbFilterInfo     *kernel_hooks,
                                LbFilter              **filter,
                                GError                **error);

G_END_DECLS
