/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-declarative.h"

G_BEGIN_DECLS

/* A declarative filter's heap descriptor and its data; owned by its LbFilter. */
typedef struct {
  LbFilterInfo info;
  char *id;
  char *alias;
  char *name;
  char *category;
  char *description;
  int kw;
  int kh;
  gint32 *taps;     /* kh rows of kw */
  gint64 divisor;
  gint64 bias;
} Decl;

/* lb-declarative-convolve.c: the convolution a kernel filter runs. */
gpointer conv_prepare (const LbFilterInfo  *info,
                       gconstpointer        params,
                       const LbFilterImage *image,
                       LbFilterRect        *write_rect,
                       GError             **error);
gboolean conv_process (gconstpointer        state,
                       const LbFilterBand  *band,
                       GError             **error);
void     conv_release (gpointer             state);

G_END_DECLS
