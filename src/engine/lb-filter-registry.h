/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "lb-filter.h"

G_BEGIN_DECLS

#define LB_TYPE_FILTER_REGISTRY (lb_filter_registry_get_type ())
G_DECLARE_FINAL_TYPE (LbFilterRegistry, lb_filter_registry, LB, FILTER_REGISTRY, GObject)

/**
 * LbFilterRegistry:
 *
 * Every filter Lightbox knows, as a #GListModel of #LbFilter (bind it straight to a GTK list
 * or menu). Filters come from plugin modules found in the plugin directories and from
 * declarative filter files (*.lbfilter) in the filter directories.
 *
 * Search order (the first directory providing an id wins; later duplicates are skipped with
 * a message):
 *   plugins: $LIGHTBOX_PLUGIN_PATH (colon-separated), LB_PLUGINDIR (the installed,
 *            ABI-versioned directory), $XDG_DATA_HOME/lightbox/plugins
 *   filters: $LIGHTBOX_FILTER_PATH (colon-separated), LB_DATADIR/filters,
 *            $XDG_DATA_HOME/lightbox/filters
 *
 * A file that cannot be used (wrong ABI, missing symbol, bad ranges, dlopen failure, a
 * directory or file writable by other users, a malformed declarative file) is skipped: a
 * g_message() says which file and why, and lb_filter_registry_get_problems() keeps the list.
 *
 * With lb_filter_registry_set_watching() the directories are monitored: adding, replacing or
 * removing a file updates the model (items-changed) on the main context. A directory that
 * does not exist yet is watched from the moment it is created. A running pass holds its
 * #LbFilter and therefore its module, so it finishes on the code it started with.
 *
 * Declarative chains are resolved after every file of a scan was read, so a chain may use a
 * filter from a file that sorts after its own. The problem list holds only files as they
 * are now: a file that is fixed, replaced or removed loses its messages, and
 * ::problems-changed is emitted whenever the list changes.
 *
 * Python filters (.py) are loaded by importing them in a python3 process, which takes
 * 0.1 s or more per file (at most 20 s for a module that hangs on import). A registry made
 * asynchronous (lb_filter_registry_set_async(), lb_filter_registry_new_default_async())
 * reads them on worker threads: a rescan returns at once, and each such filter joins the
 * model (items-changed) or the problems (::problems-changed) on the main context when its
 * descriptor arrives. A replaced .py keeps its filter listed until the new version's
 * descriptor arrives, and the two swap in one main-loop turn, so an id that stays is never
 * missing. A synchronous registry (the default: lightbox-cli) waits.
 *
 * The registry is used from one thread (the main thread); filters taken from it may be
 * used from any thread.
 */

/* An empty registry with no directories. */
LbFilterRegistry *lb_filter_registry_new           (void);
/* A registry with the standard directories (see above), already loaded. */
LbFilterRegistry *lb_filter_registry_new_default   (void);
/* The same, asynchronous, its Python filters still loading (the workstation's). */
LbFilterRegistry *lb_filter_registry_new_default_async (void);

/* Whether rescans read Python descriptors on worker threads (see above); FALSE at first. */
void        lb_filter_registry_set_async           (LbFilterRegistry *self,
                                                    gboolean          async);
/* How many Python descriptors are still being read (0 for a synchronous registry). */
guint       lb_filter_registry_get_n_pending       (LbFilterRegistry *self);

void        lb_filter_registry_add_plugin_dir      (LbFilterRegistry *self,
                                                    const char       *path);
void        lb_filter_registry_add_filter_dir      (LbFilterRegistry *self,
                                                    const char       *path);
/* Scans every directory again; unchanged files are kept, changed ones reloaded. */
void        lb_filter_registry_rescan              (LbFilterRegistry *self);
/* Watches the directories with GFileMonitor and rescans (debounced, 100 ms) on changes. */
void        lb_filter_registry_set_watching        (LbFilterRegistry *self,
                                                    gboolean          watching);

/**
 * lb_filter_registry_add_declarative:
 * @bytes: the text of a declarative filter file
 * @origin: the file path or URI it came from (shown by `lightbox-cli filters`)
 *
 * Parses and adds one declarative filter (stores use this for filters they serve). Errors
 * are %LB_ERROR_PARSE with the line number, or %LB_ERROR_CONFLICT for a taken id.
 * Returns (transfer none) the new filter.
 */
LbFilter   *lb_filter_registry_add_declarative     (LbFilterRegistry *self,
                                                    GBytes           *bytes,
                                                    const char       *origin,
                                                    GError          **error);

/* (transfer full) (nullable): the filter with this id or alias */
LbFilter   *lb_filter_registry_lookup              (LbFilterRegistry *self,
                                                    const char       *id_or_alias);
/* (transfer none): "FILE: REASON" strings of everything skipped in the files as they are
 * now, in the order met */
GPtrArray  *lb_filter_registry_get_problems        (LbFilterRegistry *self);

G_END_DECLS
