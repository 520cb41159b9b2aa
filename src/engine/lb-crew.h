/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The helper threads of one pipeline pass (a "crew"), taken from GLib's shared thread pool.
 * Runs @func on items 1 … @n − 1 of @items (@item_size bytes each) on pool threads and on
 * item 0 on this thread, and returns when every call that started has returned. A job no
 * pool thread has started by the time the calling thread ran out of work is dropped: @func
 * must share its work through the items, so that whoever runs first takes it. */
void lb_crew_run (guint       n,
                  GThreadFunc func,
                  gpointer    items,
                  gsize       item_size);

/* Engine-internal: @func runs on a pool thread before each job (so it must be cheap when
 * repeated); lightbox-filter-host gives every thread that may run plugin code an alternate
 * signal stack this way (lb-crash-report.h). Set it before the first lb_crew_run(). */
void _lb_crew_set_thread_init (void (*func) (void));

G_END_DECLS
