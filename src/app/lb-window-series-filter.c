/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window-series-filter"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-window-private.h"

gboolean
_lb_window_series_filter_possible (LbWindow *self)
{
  return FALSE;
}

void
_lb_window_series_filter_run (LbWindow       *self,
                              LbFilter       *filter,
                              LbFilterParams *params,
                              LbImage        *aux)
{
  _lb_window_run_filter (self, filter, params, aux);
}
