/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Waiting on the default main context: for an async call's result, for a flag a callback
 * sets, or for a condition with a deadline. */

#include <gio/gio.h>

G_BEGIN_DECLS

/* A GAsyncReadyCallback that keeps a reference to @result in *(GAsyncResult **) @slot. */
void          lb_test_keep_result (GObject      *source,
                                   GAsyncResult *result,
                                   gpointer      slot);
/* Iterates the default main context until *@slot is set (by lb_test_keep_result()); returns
 * it, still owned by the caller's slot. */
GAsyncResult *lb_test_wait_result (GAsyncResult **slot);
/* Iterates the default main context until *@flag is TRUE (set by a callback that runs
 * there). */
void          lb_test_wait_flag   (const gboolean *flag);
/* Iterates the default main context, without blocking, until @cond (@data) returns TRUE
 * (TRUE) or @timeout_ms passes (FALSE): for conditions that change outside the main
 * context's sources, and a clear failure rather than a hung test. */
gboolean      lb_test_wait        (gboolean (*cond) (gpointer data),
                                   gpointer  data,
                                   guint     timeout_ms);
/* A condition for lb_test_wait(): *(gboolean *) @flag. */
gboolean      lb_test_flag_is_set (gpointer flag);
/* A GSourceFunc that cancels the GCancellable @cancellable, once (g_timeout_add (ms,
 * lb_test_cancel_once, cancellable) cancels an operation while it runs). */
gboolean      lb_test_cancel_once (gpointer cancellable);

G_END_DECLS
