/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-plugin-loader"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <unistd.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <gmodule.h>

#include "lb-error.h"
#include "lb-filter.h"
#include "lb-format.h"
#include "lb-isolation.h"
#include "lb-plugin-loader.h"
#include "lb-python-filter.h"

/* The plugin header repeats the core's format numbering; keep them in step. */
G_STATIC_ASSERT ((int) LB_FILTER_FORMAT_GRAY8 == (int) LB_FORMAT_GRAY8);
G_STATIC_ASSERT ((int) LB_FILTER_FORMAT_GRAY16 == (int) LB_FORMAT_GRAY16);
G_STATIC_ASSERT ((int) LB_FILTER_FORMAT_GRAYA8 == (int) LB_FORMAT_GRAYA8);
G_STATIC_ASSERT ((int) LB_FILTER_FORMAT_GRAYA16 == (int) LB_FORMAT_GRAYA16);
G_STATIC_ASSERT ((int) LB_FILTER_FORMAT_RGB8 == (int) LB_FORMAT_RGB8);
G_STATIC_ASSERT ((int) LB_FILTER_FORMAT_RGBA8 == (int) LB_FORMAT_RGBA8);
G_STATIC_ASSERT ((int) LB_FILTER_FORMAT_RGB16 == (int) LB_FORMAT_RGB16);
G_STATIC_ASSERT ((int) LB_FILTER_FORMAT_RGBA16 == (int) LB_FORMAT_RGBA16);
G_STATIC_ASSERT (LB_N_FORMATS == 8);

#define ALL_FORMATS 0xffu

/* The ABI 1.0 end of each table: a plugin's struct_size must cover at least these fields. */
#define INFO_MIN_SIZE (G_STRUCT_OFFSET (LbFilterInfo, user_data) + sizeof (gconstpointer))
#define PLUGIN_MIN_SIZE (G_STRUCT_OFFSET (LbPluginInfo, n_filters) + sizeof (guint))

/* A loaded module, shared by the LbFilters made from it. Atomic reference counting because
 * the last reference may be dropped by a pipeline worker. */
typedef struct {
  GModule *module;
  char *path;
  /* Read-only descriptor of the private copy that was dlopen()ed (its name is already
   * unlinked), or -1. An isolated pass hands it to lightbox-filter-host, so the helper runs
   * exactly the code whose descriptors the registry shows, even after hot reload replaced
   * or removed @path. */
  int fd;
} LbPluginModule;

static void
plugin_module_clear (gpointer data)
{
  LbPluginModule *m = data;

  /* Only reached when no LbFilter, and so no running pass, refers to this code. */
  g_debug ("Unloading %s", m->path);
  _lb_isolation_forget_module (m);
  g_clear_pointer (&m->module, g_module_close);
  g_clear_pointer (&m->path, g_free);
  if (m->fd >= 0)
    close (m->fd);
  m->fd = -1;
}

int
_lb_plugin_module_get_fd (gpointer module)
{
  return module != NULL ? ((LbPluginModule *) module)->fd : -1;
}

static void
plugin_module_unref (gpointer data)
{
  g_atomic_rc_box_release_full (data, plugin_module_clear);
}

gboolean
lb_plugin_check_permissions (const char *path,
                             GError    **error)
{
  GStatBuf st;

  if (g_stat (path, &st) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", path,
                   g_strerror (saved));
      return FALSE;
    }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PERMISSION,
                   "%s is writable by %s (mode %04o); refusing to load code from it",
                   path, (st.st_mode & S_IWOTH) ? "other users" : "its group",
                   (unsigned) (st.st_mode & 07777));
      return FALSE;
    }
  return TRUE;
}

gboolean
lb_filter_id_is_valid (const char *id,
                       gboolean    dots_allowed)
{
  if (id == NULL || *id == '\0' || strlen (id) > 128)
    return FALSE;
  if (!g_ascii_islower (id[0]) && !g_ascii_isdigit (id[0]))
    return FALSE;
  for (const char *p = id; *p; p++)
    if (!(g_ascii_islower (*p) || g_ascii_isdigit (*p) || *p == '-' || *p == '_'
          || (dots_allowed && *p == '.' && p[1] != '.' && p[1] != '\0')))
      return FALSE;
  return TRUE;
}

static gboolean
param_name_is_valid (const char *name)
{
  if (name == NULL || !g_ascii_islower (name[0]))
    return FALSE;
  for (const char *p = name; *p; p++)
    if (!(g_ascii_islower (*p) || g_ascii_isdigit (*p) || *p == '-'))
      return FALSE;
  return strlen (name) <= 64;
}

static gboolean
is_integral (double v)
{
  return isfinite (v) && floor (v) == v;
}

static gboolean spec_fail (GError    **error,
                           const char *name,
                           const char *format,
                           ...) G_GNUC_PRINTF (3, 4);

static gboolean
spec_fail (GError    **error,
           const char *name,
           const char *format,
           ...)
{
  va_list args;
  g_autofree char *msg = NULL;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN, "parameter “%s”: %s", name, msg);
  return FALSE;
}

gboolean
lb_param_spec_validate (const LbParamSpec *spec,
                        gsize              params_size,
                        GError           **error)
{
  gsize size, align;
  const char *name = spec->name ? spec->name : "(null)";

#define FAIL(...) return spec_fail (error, name, __VA_ARGS__)

  if (!param_name_is_valid (spec->name))
    FAIL ("the name must be lowercase ASCII letters, digits and '-'");
  if (spec->label == NULL || *spec->label == '\0')
    FAIL ("no label");
  switch (spec->type)
    {
    case LB_PARAM_INT:
    case LB_PARAM_ENUM:
      size = sizeof (gint);
      align = G_ALIGNOF (gint);
      break;
    case LB_PARAM_BOOL:
      size = sizeof (gboolean);
      align = G_ALIGNOF (gboolean);
      break;
    case LB_PARAM_DOUBLE:
      size = sizeof (double);
      align = G_ALIGNOF (double);
      break;
    default:
      FAIL ("unknown type %d", (int) spec->type);
    }
  if (spec->offset > params_size || size > params_size - spec->offset)
    FAIL ("offset %" G_GSIZE_FORMAT " + %" G_GSIZE_FORMAT " bytes lies outside the %"
          G_GSIZE_FORMAT "-byte params struct", spec->offset, size, params_size);
  if (spec->offset % align != 0)
    FAIL ("offset %" G_GSIZE_FORMAT " is not aligned to %" G_GSIZE_FORMAT, spec->offset, align);
  if (!isfinite (spec->min) || !isfinite (spec->max) || !isfinite (spec->def)
      || !isfinite (spec->ui_min) || !isfinite (spec->ui_max) || !isfinite (spec->step))
    FAIL ("a limit is not a finite number");
  if (!(spec->min <= spec->def && spec->def <= spec->max))
    FAIL ("default %g is outside the range %g..%g", spec->def, spec->min, spec->max);
  if (!(spec->min <= spec->ui_min && spec->ui_min <= spec->ui_max && spec->ui_max <= spec->max))
    FAIL ("slider range %g..%g is not inside the range %g..%g", spec->ui_min, spec->ui_max,
          spec->min, spec->max);
  if (!(spec->step > 0))
    FAIL ("step %g must be positive", spec->step);
  if (spec->digits < 0 || spec->digits > 15)
    FAIL ("digits %d must be 0..15", spec->digits);
  if (spec->type != LB_PARAM_DOUBLE)
    {
      if (!is_integral (spec->min) || !is_integral (spec->max) || !is_integral (spec->def))
        FAIL ("integer parameter with a fractional limit or default");
      if (spec->min < G_MININT || spec->max > G_MAXINT)
        FAIL ("range %g..%g does not fit in an int", spec->min, spec->max);
    }
  if (spec->type == LB_PARAM_BOOL && (spec->min < 0 || spec->max > 1))
    FAIL ("a boolean must have the range 0..1");
  if (spec->type == LB_PARAM_ENUM)
    {
      guint n = 0;

      if (spec->values == NULL)
        FAIL ("an enum without values");
      for (; spec->values[n].nick != NULL; n++)
        {
          if (!param_name_is_valid (spec->values[n].nick) || spec->values[n].label == NULL)
            FAIL ("enum value %u has a bad nick or no label", n);
          for (guint k = 0; k < n; k++)
            if (g_str_equal (spec->values[k].nick, spec->values[n].nick))
              FAIL ("enum nick “%s” appears twice", spec->values[n].nick);
        }
      if (n == 0 || spec->min != 0 || spec->max != n - 1)
        FAIL ("an enum with %u values must have the range 0..%u", n, n ? n - 1 : 0);
    }
  else if (spec->values != NULL)
    FAIL ("enum values on a non-enum parameter");
  if ((spec->flags & LB_PARAM_FLAG_ODD) != 0)
    {
      if (spec->type != LB_PARAM_INT)
        FAIL ("the odd flag is for integer parameters only");
      if (((gint64) spec->def) % 2 == 0)
        FAIL ("the default %g is not odd", spec->def);
    }
  return TRUE;
#undef FAIL
}

gboolean
lb_filter_info_validate (const LbFilterInfo *info,
                         GError            **error)
{
  const char *id = info->id ? info->id : "(null)";

  if (info->struct_size < INFO_MIN_SIZE)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                   "filter %s: descriptor struct_size %" G_GSIZE_FORMAT " is smaller than the %"
                   G_GSIZE_FORMAT " bytes of ABI %d.0", id, info->struct_size,
                   (gsize) INFO_MIN_SIZE, LB_FILTER_ABI_MAJOR);
      return FALSE;
    }
  if (!lb_filter_id_is_valid (info->id, TRUE))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                   "filter id “%s” is not lowercase letters, digits, '.', '-' and '_'", id);
      return FALSE;
    }
  if (info->alias != NULL && !lb_filter_id_is_valid (info->alias, FALSE))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN, "filter %s: bad alias “%s”", id,
                   info->alias);
      return FALSE;
    }
  if (info->name == NULL || *info->name == '\0' || info->category == NULL
      || *info->category == '\0')
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN, "filter %s: no name or category", id);
      return FALSE;
    }
  if (info->formats == 0 || (info->formats & ~ALL_FORMATS) != 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                   "filter %s: formats 0x%x is empty or names unknown formats", id,
                   info->formats);
      return FALSE;
    }
  if (info->prepare == NULL || info->release == NULL
      || (info->process == NULL && info->finish == NULL))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                   "filter %s: prepare, release and process (or finish) are required", id);
      return FALSE;
    }
  if (info->struct_size >= G_STRUCT_OFFSET (LbFilterInfo, n_inputs) + sizeof info->n_inputs
      && info->n_inputs > 2)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                   "filter %s: n_inputs %u: a filter reads one image or two", id,
                   info->n_inputs);
      return FALSE;
    }
  if ((info->n_params > 0) != (info->params != NULL) || info->n_params > 64
      || (info->n_params > 0 && info->params_size == 0) || info->params_size > 65536)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                   "filter %s: inconsistent params table (%u specs, %" G_GSIZE_FORMAT
                   " bytes)", id, info->n_params, info->params_size);
      return FALSE;
    }
  for (guint i = 0; i < info->n_params; i++)
    {
      if (!lb_param_spec_validate (&info->params[i], info->params_size, error))
        {
          g_prefix_error (error, "filter %s: ", id);
          return FALSE;
        }
      for (guint k = 0; k < i; k++)
        if (g_str_equal (info->params[k].name, info->params[i].name))
          {
            g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                         "filter %s: parameter “%s” appears twice", id, info->params[i].name);
            return FALSE;
          }
    }
  return TRUE;
}

/* Copies @path into @copy_dir under a fresh unique name (see lb_plugin_load_file()). */
static char *
copy_to_private (const char *path,
                 const char *copy_dir,
                 GError    **error)
{
  static gint counter;
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *name = g_strdup_printf ("%d-%d-%s", (int) getpid (),
                                           g_atomic_int_add (&counter, 1), base);
  g_autofree char *dest = g_build_filename (copy_dir, name, NULL);
  g_autoptr(GFile) src = g_file_new_for_path (path);
  g_autoptr(GFile) dst = g_file_new_for_path (dest);

  if (!g_file_copy (src, dst, G_FILE_COPY_OVERWRITE | G_FILE_COPY_NOFOLLOW_SYMLINKS, NULL,
                    NULL, NULL, error))
    return NULL;
  return g_steal_pointer (&dest);
}

GPtrArray *
lb_plugin_load_file (const char *path,
                     const char *copy_dir,
                     GError    **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *copy = NULL;
  GPtrArray *filters;
  int fd;

  if (g_str_has_suffix (path, LB_PYTHON_SUFFIX))
    return _lb_python_load_file (path, error);
  if (!lb_plugin_check_permissions (dir, error) || !lb_plugin_check_permissions (path, error))
    return NULL;

  copy = copy_to_private (path, copy_dir, error);
  if (copy == NULL)
    return NULL;
  /* Kept open (see LbPluginModule.fd); a failure only disables isolation for this file. */
  fd = open (copy, O_RDONLY | O_CLOEXEC);
  /* A plugin whose passes run isolated must not be able to take Lightbox down while it is
   * being loaded either: its constructors and query function run in a helper first. */
  if (_lb_plugin_path_runs_isolated (path))
    {
      if (fd < 0)
        {
          int saved = errno;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "cannot open its private copy to check it in a helper process: %s",
                       g_strerror (saved));
          g_unlink (copy);
          return NULL;
        }
      if (!_lb_isolation_probe_plugin (fd, path, error))
        {
          close (fd);
          g_unlink (copy);
          return NULL;
        }
    }
  filters = _lb_plugin_load_module (copy, path, fd, error);
  /* The mapping stays valid after the name is gone; nothing is left behind on exit. */
  g_unlink (copy);
  return filters;
}

GPtrArray *
_lb_plugin_load_module (const char *open_path,
                        const char *path,
                        int         fd,
                        GError    **error)
{
  g_autoptr(GPtrArray) filters = NULL;
  LbFilterPluginQueryFunc query = NULL;
  const LbPluginInfo *pinfo;
  LbPluginModule *m;
  GModule *module;

  module = g_module_open (open_path, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
  if (module == NULL)
    {
      if (fd >= 0)
        close (fd);
      /* g_module_error() names the private copy; say which file the user put there. */
      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN, "cannot be loaded: %s",
                   g_module_error ());
      return NULL;
    }
  m = g_atomic_rc_box_new0 (LbPluginModule);
  m->module = module;
  m->path = g_strdup (path);
  m->fd = fd;

  if (!g_module_symbol (module, LB_FILTER_PLUGIN_QUERY_SYMBOL, (gpointer *) &query)
      || query == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN, "no %s symbol: not a Lightbox plugin",
                   LB_FILTER_PLUGIN_QUERY_SYMBOL);
      plugin_module_unref (m);
      return NULL;
    }
  pinfo = query (LB_FILTER_ABI_MAJOR, LB_FILTER_ABI_MINOR);
  if (pinfo == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                   "the plugin declined to serve ABI %d.%d", LB_FILTER_ABI_MAJOR,
                   LB_FILTER_ABI_MINOR);
      plugin_module_unref (m);
      return NULL;
    }
  if (pinfo->abi_major != LB_FILTER_ABI_MAJOR)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                   "built for plugin ABI %u.%u, this Lightbox has ABI %d.%d",
                   pinfo->abi_major, pinfo->abi_minor, LB_FILTER_ABI_MAJOR, LB_FILTER_ABI_MINOR);
      plugin_module_unref (m);
      return NULL;
    }
  if (pinfo->struct_size < PLUGIN_MIN_SIZE)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                   "plugin table struct_size %" G_GSIZE_FORMAT " is smaller than ABI %d.0's %"
                   G_GSIZE_FORMAT, pinfo->struct_size, LB_FILTER_ABI_MAJOR,
                   (gsize) PLUGIN_MIN_SIZE);
      plugin_module_unref (m);
      return NULL;
    }
  if (pinfo->n_filters == 0 || pinfo->filters == NULL || pinfo->n_filters > 1024)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN, "the plugin lists no filters");
      plugin_module_unref (m);
      return NULL;
    }

  filters = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < pinfo->n_filters; i++)
    {
      const LbFilterInfo *info = pinfo->filters[i];

      if (info == NULL)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN, "filter %u is NULL", i);
          plugin_module_unref (m);
          return NULL;
        }
      if (!lb_filter_info_validate (info, error))
        {
          plugin_module_unref (m);
          return NULL;
        }
      for (guint k = 0; k < i; k++)
        if (g_str_equal (pinfo->filters[k]->id, info->id)
            || (info->alias && pinfo->filters[k]->alias
                && g_str_equal (pinfo->filters[k]->alias, info->alias)))
          {
            g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN, "filter %s is listed twice",
                         info->id);
            plugin_module_unref (m);
            return NULL;
          }
      g_ptr_array_add (filters,
                       _lb_filter_new (LB_FILTER_KIND_PLUGIN, info, pinfo->gettext_domain, path,
                                       pinfo->version, NULL, g_atomic_rc_box_acquire (m),
                                       plugin_module_unref));
    }
  plugin_module_unref (m);
  return g_steal_pointer (&filters);
}
