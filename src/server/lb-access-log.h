/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define LB_TYPE_ACCESS_LOG (lb_access_log_get_type ())
G_DECLARE_FINAL_TYPE (LbAccessLog, lb_access_log, LB, ACCESS_LOG, GObject)

LbAccessLog *lb_access_log_new   (const char *path,
                                  GError    **error);
void         lb_access_log_write (LbAccessLog *self,
                                  GDateTime   *when,
                                  const char  *client,
                                  const char  *user,
                                  const char  *method,
                                  const char  *path,
                                  guint        status,
                                  guint64      bytes_out,
                                  guint64      bytes_in,
                                  gint64       duration_us);

G_END_DECLS
