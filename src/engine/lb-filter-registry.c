/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-filter-registry"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "lb-declarative.h"
#include "lb-error.h"
#include "lb-filter-params.h"
#include "lb-filter-registry.h"
#include "lb-pipeline.h"
#include "lb-plugin-loader.h"
#include "lb-python-filter.h"

#define PLUGIN_SUFFIX "." G_MODULE_SUFFIX
#define FILTER_SUFFIX ".lbfilter"
/* Debounce of directory events, ms: a copy shows up as create + several changes. */
#define RESCAN_DELAY_MS 100

/* One file seen in a directory, with the identity it had when it was (last) loaded. */
typedef struct {
  char *path;
  gboolean is_plugin;
  dev_t dev;
  ino_t ino;
  gint64 mtime_ns;
  gint64 ctime_ns;   /* changes with chmod too: permissions are part of the identity */
  guint mode;
  guint dir_mode;
  goffset size;
  GPtrArray *filters;  /* owned LbFilter refs that made it into the registry */
} LoadedFile;

struct _LbFilterRegistry {
  GObject parent_instance;

  /* Owned */
  GPtrArray *items;        /* LbFilter, the model's content */
  GPtrArray *plugin_dirs;  /* char* */
  GPtrArray *filter_dirs;  /* char* */
  GHashTable *files;       /* path → LoadedFile */
  GPtrArray *problems;     /* char* */
  GPtrArray *monitors;     /* GFileMonitor */
  GPtrArray *missing;      /* char*: watched directories that did not exist when watched */
  gboolean watching;
  char *copy_dir;          /* private 0700 directory for module copies, lazily made */
  guint rescan_source;
};

static void lb_filter_registry_list_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (LbFilterRegistry, lb_filter_registry, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      lb_filter_registry_list_model_init))

enum { SIGNAL_PROBLEMS_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
loaded_file_free (gpointer data)
{
  LoadedFile *f = data;

  g_free (f->path);
  g_clear_pointer (&f->filters, g_ptr_array_unref);
  g_free (f);
}

static GType
get_item_type (GListModel *model)
{
  return LB_TYPE_FILTER;
}

static guint
get_n_items (GListModel *model)
{
  return LB_FILTER_REGISTRY (model)->items->len;
}

static gpointer
get_item (GListModel *model,
          guint       position)
{
  LbFilterRegistry *self = LB_FILTER_REGISTRY (model);

  if (position >= self->items->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->items, position));
}

static void
lb_filter_registry_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = get_item_type;
  iface->get_n_items = get_n_items;
  iface->get_item = get_item;
}

static void unwatch (LbFilterRegistry *self);

static void
lb_filter_registry_dispose (GObject *object)
{
  LbFilterRegistry *self = LB_FILTER_REGISTRY (object);

  g_clear_handle_id (&self->rescan_source, g_source_remove);
  if (self->monitors != NULL)
    unwatch (self);
  G_OBJECT_CLASS (lb_filter_registry_parent_class)->dispose (object);
}

static void
lb_filter_registry_finalize (GObject *object)
{
  LbFilterRegistry *self = LB_FILTER_REGISTRY (object);

  g_clear_pointer (&self->items, g_ptr_array_unref);
  g_clear_pointer (&self->files, g_hash_table_unref);
  g_clear_pointer (&self->plugin_dirs, g_ptr_array_unref);
  g_clear_pointer (&self->filter_dirs, g_ptr_array_unref);
  g_clear_pointer (&self->problems, g_ptr_array_unref);
  g_clear_pointer (&self->monitors, g_ptr_array_unref);
  g_clear_pointer (&self->missing, g_ptr_array_unref);
  /* Copies are unlinked right after dlopen(), so the directory is empty. */
  if (self->copy_dir != NULL)
    g_rmdir (self->copy_dir);
  g_clear_pointer (&self->copy_dir, g_free);
  G_OBJECT_CLASS (lb_filter_registry_parent_class)->finalize (object);
}

static void
lb_filter_registry_class_init (LbFilterRegistryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = lb_filter_registry_dispose;
  object_class->finalize = lb_filter_registry_finalize;
  /* The list of lb_filter_registry_get_problems() changed: a rescan dropped the messages of
   * files that went away or changed, or met a new unusable file. Emitted after the rescan,
   * also when no filter changed (a broken file fixed or removed). */
  signals[SIGNAL_PROBLEMS_CHANGED] =
    g_signal_new ("problems-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 0);
  /* Register the error quark from the host's copy of its name: g_quark_from_static_string()
   * keeps the pointer, and a plugin that registered it first would leave it dangling when
   * the module is unloaded. */
  (void) lb_error_quark ();
}

static void
lb_filter_registry_init (LbFilterRegistry *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
  self->plugin_dirs = g_ptr_array_new_with_free_func (g_free);
  self->filter_dirs = g_ptr_array_new_with_free_func (g_free);
  self->files = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, loaded_file_free);
  self->problems = g_ptr_array_new_with_free_func (g_free);
  self->monitors = g_ptr_array_new_with_free_func (g_object_unref);
  self->missing = g_ptr_array_new_with_free_func (g_free);
}

LbFilterRegistry *
lb_filter_registry_new (void)
{
  return g_object_new (LB_TYPE_FILTER_REGISTRY, NULL);
}

static void
add_path_list (LbFilterRegistry *self,
               const char       *list,
               gboolean          plugins)
{
  g_auto(GStrv) dirs = NULL;

  if (list == NULL || *list == '\0')
    return;
  dirs = g_strsplit (list, G_SEARCHPATH_SEPARATOR_S, -1);
  for (guint i = 0; dirs[i] != NULL; i++)
    if (*dirs[i] != '\0')
      {
        if (plugins)
          lb_filter_registry_add_plugin_dir (self, dirs[i]);
        else
          lb_filter_registry_add_filter_dir (self, dirs[i]);
      }
}

LbFilterRegistry *
lb_filter_registry_new_default (void)
{
  LbFilterRegistry *self = lb_filter_registry_new ();
  g_autofree char *user_plugins = g_build_filename (g_get_user_data_dir (), "lightbox",
                                                    "plugins", NULL);
  g_autofree char *user_filters = g_build_filename (g_get_user_data_dir (), "lightbox",
                                                    "filters", NULL);
  g_autofree char *sys_filters = g_build_filename (LB_DATADIR, "filters", NULL);

  add_path_list (self, g_getenv ("LIGHTBOX_PLUGIN_PATH"), TRUE);
  lb_filter_registry_add_plugin_dir (self, LB_PLUGINDIR);
  lb_filter_registry_add_plugin_dir (self, user_plugins);
  add_path_list (self, g_getenv ("LIGHTBOX_FILTER_PATH"), FALSE);
  lb_filter_registry_add_filter_dir (self, sys_filters);
  lb_filter_registry_add_filter_dir (self, user_filters);
  lb_filter_registry_rescan (self);
  return self;
}

static gboolean
dir_listed (GPtrArray  *dirs,
            const char *path)
{
  for (guint i = 0; i < dirs->len; i++)
    if (g_str_equal (g_ptr_array_index (dirs, i), path))
      return TRUE;
  return FALSE;
}

static void
add_dir (GPtrArray  *dirs,
         const char *path)
{
  char *canonical = g_canonicalize_filename (path, NULL);

  /* A directory listed twice (say in the path and as the installed one) is scanned once. */
  if (dir_listed (dirs, canonical))
    g_free (canonical);
  else
    g_ptr_array_add (dirs, canonical);
}

void
lb_filter_registry_add_plugin_dir (LbFilterRegistry *self,
                                   const char       *path)
{
  g_return_if_fail (LB_IS_FILTER_REGISTRY (self));
  g_return_if_fail (path != NULL);
  add_dir (self->plugin_dirs, path);
}

void
lb_filter_registry_add_filter_dir (LbFilterRegistry *self,
                                   const char       *path)
{
  g_return_if_fail (LB_IS_FILTER_REGISTRY (self));
  g_return_if_fail (path != NULL);
  add_dir (self->filter_dirs, path);
}

GPtrArray *
lb_filter_registry_get_problems (LbFilterRegistry *self)
{
  g_return_val_if_fail (LB_IS_FILTER_REGISTRY (self), NULL);
  return self->problems;
}

static void
add_problem (LbFilterRegistry *self,
             const char       *path,
             const GError     *error)
{
  /* lb_filter_registry_rescan() logs the messages that are new once it is done: a file
   * read again in the same scan (a chain, see there) is then reported once. */
  g_ptr_array_add (self->problems, g_strdup_printf ("%s: %s", path, error->message));
}

static LbFilter *
find_filter (LbFilterRegistry *self,
             const char       *name,
             guint            *out_pos)
{
  for (guint i = 0; i < self->items->len; i++)
    {
      LbFilter *f = g_ptr_array_index (self->items, i);
      const char *alias = lb_filter_get_alias (f);

      if (g_str_equal (lb_filter_get_id (f), name) || (alias && g_str_equal (alias, name)))
        {
          if (out_pos)
            *out_pos = i;
          return f;
        }
    }
  return NULL;
}

LbFilter *
lb_filter_registry_lookup (LbFilterRegistry *self,
                           const char       *id_or_alias)
{
  LbFilter *f;

  g_return_val_if_fail (LB_IS_FILTER_REGISTRY (self), NULL);
  g_return_val_if_fail (id_or_alias != NULL, NULL);
  f = find_filter (self, id_or_alias, NULL);
  return f ? g_object_ref (f) : NULL;
}

/* Refuses a filter whose id or alias is already taken by another filter. */
static gboolean
check_unique (LbFilterRegistry *self,
              LbFilter         *filter,
              GError          **error)
{
  const char *names[2] = { lb_filter_get_id (filter), lb_filter_get_alias (filter) };

  for (guint k = 0; k < 2; k++)
    {
      LbFilter *other;

      if (names[k] == NULL)
        continue;
      other = find_filter (self, names[k], NULL);
      if (other != NULL)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_CONFLICT,
                       "filter %s: %s “%s” is already taken by %s from %s",
                       lb_filter_get_id (filter), k == 0 ? "id" : "alias", names[k],
                       lb_filter_get_id (other), lb_filter_get_origin (other));
          return FALSE;
        }
    }
  return TRUE;
}

static void
append_filter (LbFilterRegistry *self,
               LbFilter         *filter)
{
  g_ptr_array_add (self->items, g_object_ref (filter));
  g_list_model_items_changed (G_LIST_MODEL (self), self->items->len - 1, 0, 1);
}

static void
remove_filter (LbFilterRegistry *self,
               LbFilter         *filter)
{
  guint pos;

  if (g_ptr_array_find (self->items, filter, &pos))
    {
      /* The registry's reference goes; a running pass keeps its own. */
      g_ptr_array_remove_index (self->items, pos);
      g_list_model_items_changed (G_LIST_MODEL (self), pos, 1, 0);
    }
}

/* The step check of declarative chains: the id must exist and the parameters must be valid. */
static gboolean
check_chain_step (const char *step,
                  gpointer    user_data,
                  GError    **error)
{
  LbFilterRegistry *self = user_data;
  g_autoptr(LbFilter) filter = NULL;
  g_autoptr(LbFilterParams) params = NULL;

  return lb_pipeline_parse_step (self, step, &filter, &params, error);
}

LbFilter *
lb_filter_registry_add_declarative (LbFilterRegistry *self,
                                    GBytes           *bytes,
                                    const char       *origin,
                                    GError          **error)
{
  g_autoptr(LbFilter) filter = NULL;

  g_return_val_if_fail (LB_IS_FILTER_REGISTRY (self), NULL);
  filter = lb_declarative_parse (bytes, origin, check_chain_step, self, error);
  if (filter == NULL || !check_unique (self, filter, error))
    return NULL;
  append_filter (self, filter);
  return filter;
}

static gboolean
stat_file (const char *path,
           GStatBuf   *st)
{
  return g_stat (path, st) == 0 && S_ISREG (st->st_mode);
}

static guint
dir_mode_of (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  GStatBuf st;

  return g_stat (dir, &st) == 0 ? (guint) st.st_mode : 0;
}

static gint64
ctime_ns (const GStatBuf *st)
{
  return (gint64) st->st_ctim.tv_sec * G_GINT64_CONSTANT (1000000000) + st->st_ctim.tv_nsec;
}

static gint64
mtime_ns (const GStatBuf *st)
{
  return (gint64) st->st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + st->st_mtim.tv_nsec;
}

static void
load_file (LbFilterRegistry *self,
           const char       *path,
           gboolean          is_plugin,
           const GStatBuf   *st)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) filters = NULL;
  LoadedFile *f = g_new0 (LoadedFile, 1);

  f->path = g_strdup (path);
  f->is_plugin = is_plugin;
  f->dev = st->st_dev;
  f->ino = st->st_ino;
  f->mtime_ns = mtime_ns (st);
  f->ctime_ns = ctime_ns (st);
  f->mode = st->st_mode;
  f->dir_mode = dir_mode_of (path);
  f->size = st->st_size;
  f->filters = g_ptr_array_new_with_free_func (g_object_unref);
  g_hash_table_replace (self->files, f->path, f);

  if (is_plugin)
    {
      if (self->copy_dir == NULL)
        {
          self->copy_dir = g_dir_make_tmp ("lightbox-plugins-XXXXXX", &error);
          if (self->copy_dir == NULL)
            {
              add_problem (self, path, error);
              return;
            }
        }
      filters = lb_plugin_load_file (path, self->copy_dir, &error);
    }
  else
    {
      g_autoptr(GMappedFile) mapped = g_mapped_file_new (path, FALSE, &error);
      if (mapped != NULL)
        {
          g_autoptr(GBytes) bytes = g_mapped_file_get_bytes (mapped);
          LbFilter *filter = lb_declarative_parse (bytes, path, check_chain_step, self, &error);
          if (filter != NULL)
            {
              filters = g_ptr_array_new_with_free_func (g_object_unref);
              g_ptr_array_add (filters, filter);
            }
        }
    }
  if (filters == NULL)
    {
      add_problem (self, path, error);
      return;
    }
  for (guint i = 0; i < filters->len; i++)
    {
      LbFilter *filter = g_ptr_array_index (filters, i);

      if (!check_unique (self, filter, &error))
        {
          add_problem (self, path, error);
          g_clear_error (&error);
          continue;
        }
      g_ptr_array_add (f->filters, g_object_ref (filter));
      append_filter (self, filter);
    }
}

/* Drops the messages about @path: they describe a file that has gone or is read again. */
static void
drop_problems (LbFilterRegistry *self,
               const char       *path)
{
  g_autofree char *prefix = g_strconcat (path, ": ", NULL);

  for (guint i = self->problems->len; i-- > 0;)
    if (g_str_has_prefix (g_ptr_array_index (self->problems, i), prefix))
      g_ptr_array_remove_index (self->problems, i);
}

static void
unload_file (LbFilterRegistry *self,
             LoadedFile       *f)
{
  for (guint i = 0; i < f->filters->len; i++)
    remove_filter (self, g_ptr_array_index (f->filters, i));
  drop_problems (self, f->path);
  g_hash_table_remove (self->files, f->path);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Sorted full paths of the files in @dir ending in @suffix (none if it does not exist). */
static void
list_dir (const char *dir,
          const char *suffix,
          GPtrArray  *out)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (name, suffix) && name[0] != '.')
      g_ptr_array_add (names, g_build_filename (dir, name, NULL));
  g_ptr_array_sort (names, compare_strings);
  for (guint i = 0; i < names->len; i++)
    g_ptr_array_add (out, g_strdup (g_ptr_array_index (names, i)));
}

/* Logs the problems that were not in @before (a set of the strings' addresses) and tells
 * listeners when the list changed. */
static void
report_new_problems (LbFilterRegistry *self,
                     GHashTable       *before)
{
  gboolean changed = self->problems->len != g_hash_table_size (before);

  for (guint i = 0; i < self->problems->len; i++)
    if (!g_hash_table_contains (before, g_ptr_array_index (self->problems, i)))
      {
        g_message ("Skipping %s", (char *) g_ptr_array_index (self->problems, i));
        changed = TRUE;
      }
  if (changed)
    g_signal_emit (self, signals[SIGNAL_PROBLEMS_CHANGED], 0);
}

static void watch_created_dirs (LbFilterRegistry *self);

void
lb_filter_registry_rescan (LbFilterRegistry *self)
{
  g_autoptr(GPtrArray) plugins = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) filters = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) present = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) stale = g_ptr_array_new ();
  g_autoptr(GHashTable) problems_before = g_hash_table_new (NULL, NULL);
  gboolean plugins_changed = FALSE;
  GHashTableIter iter;
  LoadedFile *f;
  guint n_items;

  g_return_if_fail (LB_IS_FILTER_REGISTRY (self));

  for (guint i = 0; i < self->problems->len; i++)
    g_hash_table_add (problems_before, g_ptr_array_index (self->problems, i));
  if (self->watching)
    watch_created_dirs (self);

  for (guint i = 0; i < self->plugin_dirs->len; i++)
    {
      list_dir (g_ptr_array_index (self->plugin_dirs, i), PLUGIN_SUFFIX, plugins);
      /* Python filters load like plugins (lb_plugin_load_file() tells them apart) */
      list_dir (g_ptr_array_index (self->plugin_dirs, i), LB_PYTHON_SUFFIX, plugins);
    }
  for (guint i = 0; i < self->filter_dirs->len; i++)
    list_dir (g_ptr_array_index (self->filter_dirs, i), FILTER_SUFFIX, filters);
  for (guint i = 0; i < plugins->len; i++)
    g_hash_table_add (present, g_ptr_array_index (plugins, i));
  for (guint i = 0; i < filters->len; i++)
    g_hash_table_add (present, g_ptr_array_index (filters, i));

  /* 1. Drop files that disappeared or changed (their new content loads in step 2). */
  g_hash_table_iter_init (&iter, self->files);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &f))
    {
      GStatBuf st;

      if (!g_hash_table_contains (present, f->path) || !stat_file (f->path, &st)
          || st.st_dev != f->dev || st.st_ino != f->ino || mtime_ns (&st) != f->mtime_ns
          || ctime_ns (&st) != f->ctime_ns || st.st_mode != f->mode
          || dir_mode_of (f->path) != f->dir_mode || st.st_size != f->size)
        {
          g_ptr_array_add (stale, f);
          plugins_changed |= f->is_plugin;
        }
    }
  for (guint i = 0; i < stale->len; i++)
    {
      f = g_ptr_array_index (stale, i);
      g_debug ("%s changed or went away", f->path);
      unload_file (self, f);
    }

  /* 2. Load new files, plugins first: declarative chains refer to plugin filters. */
  for (guint i = 0; i < plugins->len; i++)
    {
      const char *path = g_ptr_array_index (plugins, i);
      GStatBuf st;

      if (!g_hash_table_contains (self->files, path) && stat_file (path, &st))
        {
          load_file (self, path, TRUE, &st);
          plugins_changed = TRUE;
        }
    }
  /* A chain that failed for want of a filter may work now that plugins changed. */
  if (plugins_changed)
    {
      g_ptr_array_set_size (stale, 0);
      g_hash_table_iter_init (&iter, self->files);
      while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &f))
        if (!f->is_plugin && f->filters->len == 0)
          g_ptr_array_add (stale, f);
      for (guint i = 0; i < stale->len; i++)
        unload_file (self, g_ptr_array_index (stale, i));
    }
  n_items = self->items->len;
  for (guint i = 0; i < filters->len; i++)
    {
      const char *path = g_ptr_array_index (filters, i);
      GStatBuf st;

      if (!g_hash_table_contains (self->files, path) && stat_file (path, &st))
        load_file (self, path, FALSE, &st);
    }
  /* 3. A chain may use a filter of a file that sorts after its own, or another chain: the
   * declarative files that failed are read again as long as the previous round added a
   * filter, so the order of the files does not matter. Each round adds a filter or ends. */
  while (self->items->len > n_items)
    {
      n_items = self->items->len;
      g_autoptr(GPtrArray) retry = g_ptr_array_new_with_free_func (g_free);

      g_hash_table_iter_init (&iter, self->files);
      while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &f))
        if (!f->is_plugin && f->filters->len == 0)
          g_ptr_array_add (retry, g_strdup (f->path));
      g_ptr_array_sort (retry, compare_strings);
      for (guint i = 0; i < retry->len; i++)
        {
          const char *path = g_ptr_array_index (retry, i);
          GStatBuf st;

          unload_file (self, g_hash_table_lookup (self->files, path));
          if (stat_file (path, &st))
            load_file (self, path, FALSE, &st);
        }
    }
  report_new_problems (self, problems_before);
}

static gboolean
rescan_cb (gpointer data)
{
  LbFilterRegistry *self = data;

  self->rescan_source = 0;
  lb_filter_registry_rescan (self);
  return G_SOURCE_REMOVE;
}

static void
dir_changed_cb (GFileMonitor     *monitor,
                GFile            *file,
                GFile            *other,
                GFileMonitorEvent event,
                gpointer          data)
{
  LbFilterRegistry *self = data;

  /* Restart the delay on every event so a file being copied is read once complete. */
  g_clear_handle_id (&self->rescan_source, g_source_remove);
  self->rescan_source = g_timeout_add (RESCAN_DELAY_MS, rescan_cb, self);
}

/* The deepest existing directory on the way to @path (which does not exist), or NULL. */
static char *
existing_ancestor (const char *path)
{
  g_autofree char *dir = g_strdup (path);

  for (;;)
    {
      char *parent = g_path_get_dirname (dir);

      if (g_str_equal (parent, dir))
        {
          g_free (parent);
          return NULL;
        }
      g_free (dir);
      dir = parent;
      if (g_file_test (dir, G_FILE_TEST_IS_DIR))
        return g_steal_pointer (&dir);
    }
}

/* An event in the ancestor of a directory that does not exist yet: only the creation of a
 * directory on the way to it matters (rescan_cb then watches it), not the ancestor's other
 * files (the ancestor may be ~/.local/share, which many programs write to). */
static void
ancestor_changed_cb (GFileMonitor     *monitor,
                     GFile            *file,
                     GFile            *other,
                     GFileMonitorEvent event,
                     gpointer          data)
{
  LbFilterRegistry *self = data;

  for (guint i = 0; i < self->missing->len; i++)
    {
      g_autoptr(GFile) missing = g_file_new_for_path (g_ptr_array_index (self->missing, i));

      if (g_file_equal (missing, file) || g_file_has_prefix (missing, file)
          || (other != NULL && (g_file_equal (missing, other) || g_file_has_prefix (missing, other))))
        {
          dir_changed_cb (monitor, file, other, event, data);
          return;
        }
    }
}

static void
add_monitor (LbFilterRegistry *self,
             const char       *path,
             GCallback         callback)
{
  g_autoptr(GFile) dir = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  GFileMonitor *monitor = g_file_monitor_directory (dir, G_FILE_MONITOR_WATCH_MOVES, NULL,
                                                    &error);

  if (monitor == NULL)
    {
      g_message ("Cannot watch %s: %s", path, error->message);
      return;
    }
  g_object_set_data_full (G_OBJECT (monitor), "lb-dir", g_object_ref (dir), g_object_unref);
  g_signal_connect (monitor, "changed", callback, self);
  g_ptr_array_add (self->monitors, monitor);
}

/* Watches @dirs; a directory that does not exist yet is recorded in self->missing and its
 * deepest existing ancestor is watched for its creation. */
static void
watch_dirs (LbFilterRegistry *self,
            GPtrArray        *dirs,
            GHashTable       *anchors)
{
  for (guint i = 0; i < dirs->len; i++)
    {
      const char *path = g_ptr_array_index (dirs, i);
      char *anchor;

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          add_monitor (self, path, G_CALLBACK (dir_changed_cb));
          continue;
        }
      g_ptr_array_add (self->missing, g_strdup (path));
      anchor = existing_ancestor (path);
      if (anchor != NULL && !g_hash_table_contains (anchors, anchor))
        {
          add_monitor (self, anchor, G_CALLBACK (ancestor_changed_cb));
          g_hash_table_add (anchors, anchor);
        }
      else
        g_free (anchor);
    }
}

static void
unwatch (LbFilterRegistry *self)
{
  for (guint i = 0; i < self->monitors->len; i++)
    {
      g_signal_handlers_disconnect_by_data (g_ptr_array_index (self->monitors, i), self);
      g_file_monitor_cancel (g_ptr_array_index (self->monitors, i));
    }
  g_ptr_array_set_size (self->monitors, 0);
  g_ptr_array_set_size (self->missing, 0);
}

static void
watch (LbFilterRegistry *self)
{
  g_autoptr(GHashTable) anchors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  unwatch (self);
  watch_dirs (self, self->plugin_dirs, anchors);
  watch_dirs (self, self->filter_dirs, anchors);
}

/* A directory that was missing when watching started may exist now (or one more of the
 * directories leading to it): watch it from here on. */
static void
watch_created_dirs (LbFilterRegistry *self)
{
  for (guint i = 0; i < self->missing->len; i++)
    {
      const char *path = g_ptr_array_index (self->missing, i);
      g_autofree char *anchor = existing_ancestor (path);
      gboolean anchor_watched = FALSE;

      for (guint m = 0; anchor != NULL && m < self->monitors->len && !anchor_watched; m++)
        {
          g_autoptr(GFile) a = g_file_new_for_path (anchor);
          GFile *watched = g_object_get_data (g_ptr_array_index (self->monitors, m), "lb-dir");

          anchor_watched = watched != NULL && g_file_equal (a, watched);
        }
      if (g_file_test (path, G_FILE_TEST_IS_DIR) || !anchor_watched)
        {
          watch (self);
          return;
        }
    }
}

void
lb_filter_registry_set_watching (LbFilterRegistry *self,
                                 gboolean          watching)
{
  g_return_if_fail (LB_IS_FILTER_REGISTRY (self));

  unwatch (self);
  g_clear_handle_id (&self->rescan_source, g_source_remove);
  self->watching = watching;
  if (watching)
    watch (self);
}
