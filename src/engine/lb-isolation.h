/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "lb-filter-params.h"
#include "lb-filter.h"
#include "lb-image.h"

G_BEGIN_DECLS

/**
 * LbIsolation:
 * @LB_ISOLATION_DEFAULT: what $LIGHTBOX_PLUGIN_ISOLATION says ("all", "untrusted" or
 *   "none"); "untrusted" when it is unset
 * @LB_ISOLATION_NONE: every plugin filter runs inside Lightbox (fastest, no protection)
 * @LB_ISOLATION_UNTRUSTED: plugins shipped with Lightbox (the installed versioned plugin
 *   directory and the build tree's plugins/) run inside Lightbox; every other plugin runs
 *   in a lightbox-filter-host helper process
 * @LB_ISOLATION_ALL: every plugin filter runs in a helper process
 *
 * Where plugin code runs. Declarative filters are data run by the engine and always run
 * inside Lightbox. A helper process that crashes, exits or makes no progress fails the pass
 * with an %LB_ERROR_PLUGIN error; Lightbox and the source image are unaffected.
 */
typedef enum {
  LB_ISOLATION_DEFAULT,
  LB_ISOLATION_NONE,
  LB_ISOLATION_UNTRUSTED,
  LB_ISOLATION_ALL,
} LbIsolation;

/* Default seconds without progress (a completed band, or rows reported through
 * lb_filter_band_rows_done()) before the watchdog stops a helper. */
#define LB_ISOLATION_DEFAULT_TIMEOUT_S 30.0

/* TRUE if @filter's plugin file lies in a directory shipped with Lightbox. */
gboolean    lb_filter_is_trusted           (LbFilter    *filter);
/* TRUE if a pass of @filter runs in a helper process under @isolation. */
gboolean    lb_filter_runs_isolated        (LbFilter    *filter,
                                            LbIsolation  isolation);
/* $LIGHTBOX_PLUGIN_ISOLATION resolved (never LB_ISOLATION_DEFAULT). */
LbIsolation lb_isolation_get_default       (void);
/* Watchdog, seconds: $LIGHTBOX_FILTER_TIMEOUT, else LB_ISOLATION_DEFAULT_TIMEOUT_S; 0 = off. */
double      lb_isolation_get_timeout       (void);

/**
 * LbIsolatedResult:
 *
 * What the helper reports besides pixels, for LbPassTiming.
 */
typedef struct {
  guint threads;
  guint bands;
} LbIsolatedResult;

typedef struct {
  guint n_threads;
  guint band_height;
  gboolean has_selection;
  LbFilterRect selection;
  guint64 seed;
  double timeout_s;   /* < 0: lb_isolation_get_timeout () */
  LbImage *aux;       /* borrowed: the second image of a filter that reads two, or NULL */
} LbIsolatedOptions;

/* Engine-internal: whether a plugin file at @path counts as shipped with Lightbox, and
 * whether $LIGHTBOX_PLUGIN_ISOLATION sends its passes to a helper process. */
gboolean    _lb_plugin_path_is_trusted     (const char  *path);
gboolean    _lb_plugin_path_runs_isolated  (const char  *path);

/**
 * _lb_isolation_probe_plugin:
 * @fd: the plugin file, open for reading (not taken)
 * @origin: its path, for messages
 *
 * Engine-internal. Loading a plugin runs its code (constructors, the query function, and the
 * destructors when it is unloaded), so a plugin whose passes would run isolated is first
 * loaded, validated and unloaded by `lightbox-filter-host --probe`. %FALSE, with an
 * %LB_ERROR_PLUGIN error saying how, if that process crashed, exited with a non-zero status
 * or took longer than 5 s (or lb_isolation_get_timeout(), if shorter); the caller then does
 * not load the plugin.
 * A plugin that merely fails validation passes the probe: loading it here fails the same
 * way, safely, with the precise message.
 */
gboolean    _lb_isolation_probe_plugin     (int          fd,
                                            const char  *origin,
                                            GError     **error);

/* Engine-internal: runs one pass of @filter in a helper process (see lb-pipeline.c). The
 * output carries @input's metadata. @progress gets 0..1 of this pass. */
LbImage    *_lb_isolated_run_pass          (LbFilter                *filter,
                                            LbFilterParams          *params,
                                            LbImage                 *input,
                                            const LbIsolatedOptions *options,
                                            void                   (*progress) (double   fraction,
                                                                                gpointer data),
                                            gpointer                 progress_data,
                                            LbIsolatedResult        *result,
                                            GCancellable            *cancellable,
                                            GError                 **error);
/* Engine-internal: TRUE when this program runs from the build tree (tests, meson devenv). */
gboolean    _lb_isolation_running_from_build_tree (void);
/* Engine-internal: waits for @proc, killing it after @timeout_ms; TRUE if it was killed. */
gboolean    _lb_isolation_wait_or_kill     (GSubprocess *proc,
                                            guint        timeout_ms);
/* Engine-internal: a memfd (close-on-exec, sealable) of @size bytes, holding @data if not
 * NULL; and one holding @bytes, sealed against writes and resizing (what a helper reads). */
int         _lb_isolation_memfd_new        (const char   *name,
                                            gsize         size,
                                            const guint8 *data,
                                            GError      **error);
int         _lb_isolation_sealed_memfd_new (const char   *name,
                                            GBytes       *bytes,
                                            GError      **error);
/* Called by the loader when a module is unloaded: stops its idle helper. */
void        _lb_isolation_forget_module    (gpointer     module);

G_END_DECLS
