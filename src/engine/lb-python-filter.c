/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-python-filter"

/* Filters in Python: the descriptor, read in a python3 process, becomes an LbFilterInfo of
 * our own making (see lb-python-filter.h). */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lb-error.h"
#include "lb-filter-image.h"
#include "lb-isolation.h"
#include "lb-plugin-loader.h"
#include "lb-python-filter.h"

/* What lightbox-python-host.py --describe prints (its DESCRIPTOR_TYPE). */
#define DESCRIPTOR_TYPE "(ssssssasa(sssssddddddiasasbb)b)"
/* The largest module source read, bytes: a filter, not a library. */
#define MAX_SOURCE (4 * 1024 * 1024)
/* How long reading a descriptor may take, s: python3 and numpy start in about 0.1 s, but a
 * cold cache on a busy machine takes longer. The registry (and so the UI) waits. */
#define DESCRIBE_MAX_S 20.0

/* One loaded .py file: the descriptor we built, shared by its one LbFilter and kept alive
 * by it (atomic: the last reference may go on a pipeline worker). */
typedef struct {
  char *path;
  int fd;                  /* sealed memfd: the source as read */
  LbFilterInfo info;
  LbParamSpec *specs;
  GPtrArray *owned;        /* strings and enum tables the descriptor points into */
} LbPythonModule;

static void
python_module_clear (gpointer data)
{
  LbPythonModule *m = data;

  _lb_isolation_forget_module (m);
  g_clear_pointer (&m->path, g_free);
  g_clear_pointer (&m->specs, g_free);
  g_clear_pointer (&m->owned, g_ptr_array_unref);
  if (m->fd >= 0)
    close (m->fd);
  m->fd = -1;
}

static void
python_module_unref (gpointer data)
{
  g_atomic_rc_box_release_full (data, python_module_clear);
}

int
_lb_python_module_get_fd (gpointer module)
{
  return module != NULL ? ((LbPythonModule *) module)->fd : -1;
}

const char *
_lb_python_interpreter (void)
{
  const char *env = g_getenv ("LIGHTBOX_PYTHON");

  if (env != NULL && *env != '\0')
    return env;
  if (g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    return "/usr/bin/python3";
  return "python3";
}

static const char *
host_script (void)
{
  const char *env = g_getenv ("LIGHTBOX_PYTHON_HOST");

  if (env != NULL && *env != '\0')
    return env;
  if (_lb_isolation_running_from_build_tree ())
    return LB_BUILD_ROOT "/src/engine/lightbox-python-host.py";
  return LB_LIBEXECDIR "/lightbox-python-host.py";
}

char **
_lb_python_host_argv (const char *mode,
                      const char *origin)
{
  /* -E: no PYTHONPATH or PYTHONHOME of the shell Lightbox happened to start from decides
   * which numpy a filter gets (started from the desktop, it would be another). The user's
   * site directory stays: `pip install --user scipy` is how a researcher adds SciPy. */
  const char *argv[] = { _lb_python_interpreter (), "-E", host_script (), mode, "--module",
                         origin, NULL };

  return g_strdupv ((char **) argv);
}

/* ---- reading the descriptor ----------------------------------------------------------- */

char *
_lb_python_read_report (int fd)
{
  GString *s = g_string_new (NULL);
  char buf[4096];
  ssize_t n;

  if (fd >= 0 && lseek (fd, 0, SEEK_SET) == 0)
    while (s->len < 65536 && (n = read (fd, buf, sizeof buf)) > 0)
      g_string_append_len (s, buf, n);
  while (s->len > 0 && (s->str[s->len - 1] == '\n' || s->str[s->len - 1] == '\r'))
    g_string_truncate (s, s->len - 1);
  if (!g_utf8_validate (s->str, -1, NULL))
    {
      char *valid = g_utf8_make_valid (s->str, -1);
      g_string_free (s, TRUE);
      return valid;
    }
  return g_string_free (s, FALSE);
}

void
_lb_python_set_crash_error (GError    **error,
                            const char *id,
                            const char *origin,
                            int         sig,
                            int         crash_fd)
{
  /* Python's faulthandler wrote where each thread was, in Python terms */
  g_autofree char *report = _lb_python_read_report (crash_fd);

  g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
               "Filter “%s” in Python filter %s crashed (signal %d, %s); the image is "
               "unchanged%s%s", id, origin, sig, g_strsignal (sig), *report ? "\n" : "", report);
}

/* Runs the Python host with --describe on the source @source_fd; its stdout. */
static char *
describe (int         source_fd,
          const char *origin,
          GError    **error)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_autoptr(GSubprocess) proc = NULL;
  g_auto(GStrv) argv = _lb_python_host_argv ("--describe", origin);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) local = NULL;
  int out_fd = _lb_isolation_memfd_new ("lightbox-python-describe", 0, NULL, error);
  int err_fd = out_fd >= 0 ? _lb_isolation_memfd_new ("lightbox-python-stderr", 0, NULL, error)
                           : -1;
  int src = fcntl (source_fd, F_DUPFD_CLOEXEC, 10);
  double timeout_s = lb_isolation_get_timeout ();

  if (out_fd < 0 || err_fd < 0 || src < 0)
    {
      if (out_fd >= 0)
        close (out_fd);
      if (src >= 0)
        close (src);
      if (error != NULL && *error == NULL)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot pass the module to Python");
      return NULL;
    }
  /* memfds, not pipes: the module may print as much as it likes while it is imported */
  g_subprocess_launcher_take_fd (launcher, src, 4);
  g_subprocess_launcher_take_stdout_fd (launcher, fcntl (out_fd, F_DUPFD_CLOEXEC, 10));
  g_subprocess_launcher_take_stderr_fd (launcher, fcntl (err_fd, F_DUPFD_CLOEXEC, 10));
  proc = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv, &local);
  g_clear_object (&launcher);
  if (proc == NULL)
    {
      close (out_fd);
      close (err_fd);
      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                   "Python filters need python3 and python3-numpy; %s cannot be "
                   "started (%s)", argv[0], local->message);
      return NULL;
    }
  timeout_s = timeout_s > 0 ? MIN (timeout_s, DESCRIBE_MAX_S) : DESCRIBE_MAX_S;
  if (_lb_isolation_wait_or_kill (proc, (guint) (timeout_s * 1000.0)))
    {
      close (out_fd);
      close (err_fd);
      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                   "importing the module took longer than %g s, so it was skipped (a module "
                   "must do no work when it is imported)", timeout_s);
      return NULL;
    }
  out = _lb_python_read_report (out_fd);
  err = _lb_python_read_report (err_fd);
  close (out_fd);
  close (err_fd);
  if (g_subprocess_get_if_exited (proc) && g_subprocess_get_exit_status (proc) == 0)
    return g_steal_pointer (&out);
  if (g_subprocess_get_if_signaled (proc))
    g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                 "Python crashed (signal %d, %s) while importing the module%s%s",
                 g_subprocess_get_term_sig (proc),
                 g_strsignal (g_subprocess_get_term_sig (proc)), *err ? ":\n" : "", err);
  else
    /* the reason, as the host wrote it: numpy missing (exit status 3), the module's
     * traceback, or what is wrong with its descriptor */
    g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN, "%s",
                 *err ? err : "the Python host failed without a message");
  return NULL;
}

/* ---- the descriptor -------------------------------------------------------------------- */

static const char *
keep (LbPythonModule *m,
      const char     *s)
{
  if (s == NULL || *s == '\0')
    return NULL;
  g_ptr_array_add (m->owned, g_strdup (s));
  return g_ptr_array_index (m->owned, m->owned->len - 1);
}

static gboolean
parse_unit (const char  *s,
            LbParamUnit *unit)
{
  static const char *const names[] = { "none", "pixel", "degree", "percent", "mm", "sample" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_str_equal (s, names[i]))
      {
        *unit = (LbParamUnit) i;
        return TRUE;
      }
  return FALSE;
}

static gboolean
parse_type (const char  *s,
            LbParamType *type)
{
  static const char *const names[] = { "int", "double", "bool", "enum" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_str_equal (s, names[i]))
      {
        *type = (LbParamType) i;
        return TRUE;
      }
  return FALSE;
}

/* A process() that is never called: a Python filter always runs in its own process. */
static gpointer
never_prepare (const LbFilterInfo  *info,
               gconstpointer        params,
               const LbFilterImage *image,
               LbFilterRect        *write_rect,
               GError             **error)
{
  g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
               "the Python filter %s runs only in a Python process", info->id);
  return NULL;
}

static gboolean
never_process (gconstpointer       state,
               const LbFilterBand *band,
               GError            **error)
{
  return FALSE;
}

static void
never_release (gpointer state)
{
}

/* Builds @m->info from the descriptor; FALSE with a message naming the field. */
static gboolean
build_info (LbPythonModule *m,
            GVariant       *d,
            char          **version,
            GError        **error)
{
  const char *id, *alias, *name, *category, *description, *ver;
  g_autoptr(GVariantIter) formats = NULL;
  g_autoptr(GVariant) params = NULL;
  gboolean overwrites;
  const char *fmt;
  guint n;

  g_variant_get (d, "(&s&s&s&s&s&sas@a(sssssddddddiasasbb)b)", &id, &alias, &name, &category,
                 &description, &ver, &formats, &params, &overwrites);
  m->info.struct_size = sizeof m->info;
  m->info.id = keep (m, id);
  m->info.alias = keep (m, alias);
  m->info.name = keep (m, name);
  m->info.category = keep (m, category);
  m->info.description = keep (m, description);
  *version = *ver ? g_strdup (ver) : NULL;
  while (g_variant_iter_next (formats, "&s", &fmt))
    {
      LbSampleFormat f;

      if (!lb_sample_format_from_string (fmt, &f))
        {
          g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN, "unknown format %s", fmt);
          return FALSE;
        }
      m->info.formats |= LB_FILTER_FORMAT_BIT (f);
    }
  m->info.flags = overwrites ? LB_FILTER_FLAG_OVERWRITES : 0;
  n = (guint) g_variant_n_children (params);
  m->specs = g_new0 (LbParamSpec, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GVariant) p = g_variant_get_child_value (params, i);
      g_autofree const char **nicks = NULL, **labels = NULL;
      const char *pname, *label, *pdesc, *type, *unit;
      gboolean advanced, odd;
      LbParamSpec *s = &m->specs[i];
      gsize n_values;

      g_variant_get (p, "(&s&s&s&s&sddddddi^a&s^a&sbb)", &pname, &label, &pdesc, &type, &unit,
                     &s->min, &s->max, &s->def, &s->ui_min, &s->ui_max, &s->step, &s->digits,
                     &nicks, &labels, &advanced, &odd);
      if (!parse_type (type, &s->type) || !parse_unit (unit, &s->unit))
        {
          g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN, "parameter %s: bad type or unit",
                       pname);
          return FALSE;
        }
      s->name = keep (m, pname);
      s->label = keep (m, label);
      s->description = keep (m, pdesc);
      /* every value in a slot of its own 8 bytes, so any type is aligned */
      s->offset = i * sizeof (double);
      s->flags = (advanced ? LB_PARAM_FLAG_ADVANCED : 0) | (odd ? LB_PARAM_FLAG_ODD : 0);
      n_values = nicks != NULL ? g_strv_length ((char **) nicks) : 0;
      if (s->type == LB_PARAM_ENUM)
        {
          LbParamEnumValue *values = g_new0 (LbParamEnumValue, n_values + 1);

          for (gsize k = 0; k < n_values; k++)
            {
              values[k].nick = keep (m, nicks[k]);
              values[k].label = keep (m, labels[k]);
            }
          g_ptr_array_add (m->owned, values);
          s->values = values;
        }
    }
  m->info.params = n > 0 ? m->specs : NULL;
  m->info.n_params = n;
  m->info.params_size = n * sizeof (double);
  m->info.prepare = never_prepare;
  m->info.process = never_process;
  m->info.release = never_release;
  m->info.n_inputs = 1;
  /* the same checks as for a C plugin: ids, names, formats, every range */
  return lb_filter_info_validate (&m->info, error);
}

GPtrArray *
_lb_python_load_file (const char *path,
                      GError    **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GBytes) source = NULL;
  char *text_read = NULL;
  g_autofree char *text = NULL;
  g_autofree char *version = NULL;
  g_autoptr(GVariant) descriptor = NULL;
  g_autoptr(GError) local = NULL;
  GPtrArray *filters;
  LbPythonModule *m;
  gsize len;

  /* the module's code runs as this user, like a .so's */
  if (!lb_plugin_check_permissions (dir, error) || !lb_plugin_check_permissions (path, error))
    return NULL;
  /* read, not mapped: a file truncated meanwhile must not fault here */
  if (!g_file_get_contents (path, &text_read, &len, error))
    return NULL;
  source = g_bytes_new_take (text_read, len);
  if (len > MAX_SOURCE)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN, "the module has %" G_GSIZE_FORMAT
                   " bytes, more than the %d a Python filter may have", len, MAX_SOURCE);
      return NULL;
    }
  m = g_atomic_rc_box_new0 (LbPythonModule);
  m->path = g_strdup (path);
  m->owned = g_ptr_array_new_with_free_func (g_free);
  m->fd = _lb_isolation_sealed_memfd_new ("lightbox-python-filter", source, error);
  if (m->fd < 0 || (text = describe (m->fd, path, error)) == NULL)
    {
      python_module_unref (m);
      return NULL;
    }
  descriptor = g_variant_parse (G_VARIANT_TYPE (DESCRIPTOR_TYPE), text, NULL, NULL, &local);
  if (descriptor == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                   "the Python host sent a descriptor Lightbox cannot read: %s", local->message);
      python_module_unref (m);
      return NULL;
    }
  if (!build_info (m, descriptor, &version, error))
    {
      python_module_unref (m);
      return NULL;
    }
  filters = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (filters, _lb_filter_new (LB_FILTER_KIND_PYTHON, &m->info, NULL, path, version,
                                            NULL, m, python_module_unref));
  return filters;
}

/* ---- what a pass sends ------------------------------------------------------------------- */

static void
json_string (GString    *s,
             const char *text)
{
  if (text == NULL)
    {
      g_string_append (s, "null");
      return;
    }
  g_string_append_c (s, '"');
  for (const char *p = text; *p; p++)
    {
      guchar c = (guchar) *p;

      if (c == '"' || c == '\\')
        g_string_append_printf (s, "\\%c", c);
      else if (c < 0x20)
        g_string_append_printf (s, "\\u%04x", c);
      else
        g_string_append_c (s, (char) c);
    }
  g_string_append_c (s, '"');
}

static void
json_number (GString *s,
             double   v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  /* JSON has no inf or nan; metadata never holds them, but stay valid */
  if (!isfinite (v))
    g_string_append (s, "null");
  else
    {
      g_string_append (s, g_ascii_dtostr (buf, sizeof buf, v));
      /* a float in Python even when integral ("2.0"), as a double parameter must be */
      if (strpbrk (buf, ".eE") == NULL)
        g_string_append (s, ".0");
    }
}

GBytes *
_lb_python_params_to_json (LbFilter       *filter,
                           LbFilterParams *params)
{
  GString *s = g_string_new ("{");
  guint n = lb_filter_get_n_params (filter);

  for (guint i = 0; i < n; i++)
    {
      const LbParamSpec *spec = lb_filter_get_param (filter, i);
      double v = lb_filter_params_get_number (params, spec->name);

      if (i > 0)
        g_string_append (s, ", ");
      json_string (s, spec->name);
      g_string_append (s, ": ");
      switch (spec->type)
        {
        case LB_PARAM_INT:
          g_string_append_printf (s, "%" G_GINT64_FORMAT, (gint64) v);
          break;
        case LB_PARAM_BOOL:
          g_string_append (s, v != 0 ? "true" : "false");
          break;
        case LB_PARAM_ENUM:
          json_string (s, spec->values[(gsize) v].nick);
          break;
        case LB_PARAM_DOUBLE:
        default:
          json_number (s, v);
          break;
        }
    }
  g_string_append_c (s, '}');
  return g_string_free_to_bytes (s);
}

static void
json_pair (GString    *s,
           const char *key,
           gboolean    known,
           double      a,
           double      b)
{
  g_string_append_printf (s, ", \"%s\": ", key);
  if (!known)
    {
      g_string_append (s, "null");
      return;
    }
  g_string_append_c (s, '[');
  json_number (s, a);
  g_string_append (s, ", ");
  json_number (s, b);
  g_string_append_c (s, ']');
}

GBytes *
_lb_python_meta_to_json (LbImage *input)
{
  GString *s = g_string_new ("{");
  LbFilterMeta meta;

  /* exactly what a C filter's LbFilterMeta holds (ABI 1.3) */
  _lb_filter_meta_init (&meta, input);
  g_string_append_printf (s, "\"rescale\": %s, \"rescale_slope\": ",
                          meta.flags & LB_FILTER_META_RESCALE ? "true" : "false");
  json_number (s, meta.rescale_slope);
  g_string_append (s, ", \"rescale_intercept\": ");
  json_number (s, meta.rescale_intercept);
  g_string_append (s, ", \"units\": ");
  json_string (s, meta.units);
  g_string_append_printf (s, ", \"signed\": %s, \"sample_offset\": %u, \"bits_stored\": %u",
                          meta.flags & LB_FILTER_META_SIGNED ? "true" : "false",
                          meta.sample_offset, meta.bits_stored);
  json_pair (s, "padding", meta.flags & LB_FILTER_META_PADDING, meta.padding_lo,
             meta.padding_hi);
  json_pair (s, "spacing", meta.flags & LB_FILTER_META_SPACING, meta.spacing_x_mm,
             meta.spacing_y_mm);
  json_pair (s, "window", meta.flags & LB_FILTER_META_WINDOW, meta.window_center,
             meta.window_width);
  g_string_append (s, ", \"modality\": ");
  json_string (s, meta.modality);
  g_string_append_printf (s, ", \"monochrome1\": %s}",
                          meta.flags & LB_FILTER_META_MONOCHROME1 ? "true" : "false");
  return g_string_free_to_bytes (s);
}
