/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-isolation"

/*
 * Which filters run isolated (lb-isolation.c runs them): the trusted plugin directories
 * (the installed plugindir, and the build tree's plugins when this program itself runs from
 * the build tree), the LIGHTBOX_ISOLATION policy and the pass timeout.
 */

#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lb-isolation.h"
#include "lb-plugin-loader.h"

/* TRUE when this program itself runs from the build tree (tests, `meson devenv`): only then
 * are the build tree's plugins trusted and its helper used. */
gboolean
_lb_isolation_running_from_build_tree (void)
{
  static gsize once;
  static gboolean in_tree;

  if (g_once_init_enter (&once))
    {
      g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);

      in_tree = exe != NULL && g_str_has_prefix (exe, LB_BUILD_ROOT "/");
      g_once_init_leave (&once, 1);
    }
  return in_tree;
}

static char *
real_path (const char *path)
{
  char buf[PATH_MAX];

  if (realpath (path, buf) != NULL)
    return g_strdup (buf);
  return g_canonicalize_filename (path, NULL);
}

gboolean
_lb_plugin_path_is_trusted (const char *path)
{
  static gsize once;
  static char *installed, *build;
  g_autofree char *dir = NULL;
  g_autofree char *real = NULL;

  if (g_once_init_enter (&once))
    {
      installed = real_path (LB_PLUGINDIR);
      build = _lb_isolation_running_from_build_tree () ? real_path (LB_BUILD_ROOT "/plugins")
                                                        : NULL;
      g_once_init_leave (&once, 1);
    }
  dir = g_path_get_dirname (path);
  real = real_path (dir);
  return g_str_equal (real, installed) || (build != NULL && g_str_equal (real, build));
}

gboolean
lb_filter_is_trusted (LbFilter *filter)
{
  g_return_val_if_fail (LB_IS_FILTER (filter), FALSE);
  if (lb_filter_get_kind (filter) != LB_FILTER_KIND_PLUGIN
      && lb_filter_get_kind (filter) != LB_FILTER_KIND_PYTHON)
    return TRUE;
  return _lb_plugin_path_is_trusted (lb_filter_get_origin (filter));
}

/* Whether a plugin file at @path runs isolated under @isolation. */
static gboolean
path_runs_isolated (const char  *path,
                    LbIsolation  isolation)
{
  if (isolation == LB_ISOLATION_DEFAULT)
    isolation = lb_isolation_get_default ();
  switch (isolation)
    {
    case LB_ISOLATION_NONE:
      return FALSE;
    case LB_ISOLATION_ALL:
      return TRUE;
    case LB_ISOLATION_UNTRUSTED:
    case LB_ISOLATION_DEFAULT:
    default:
      return !_lb_plugin_path_is_trusted (path);
    }
}

gboolean
_lb_plugin_path_runs_isolated (const char *path)
{
  return path_runs_isolated (path, LB_ISOLATION_DEFAULT);
}

LbIsolation
lb_isolation_get_default (void)
{
  const char *value = g_getenv ("LIGHTBOX_PLUGIN_ISOLATION");

  if (value == NULL || *value == '\0' || g_str_equal (value, "untrusted"))
    return LB_ISOLATION_UNTRUSTED;
  if (g_str_equal (value, "all"))
    return LB_ISOLATION_ALL;
  if (g_str_equal (value, "none"))
    return LB_ISOLATION_NONE;
  g_message ("LIGHTBOX_PLUGIN_ISOLATION=%s is not all, untrusted or none; using untrusted",
             value);
  return LB_ISOLATION_UNTRUSTED;
}

double
lb_isolation_get_timeout (void)
{
  const char *value = g_getenv ("LIGHTBOX_FILTER_TIMEOUT");
  char *end = NULL;
  double s;

  if (value == NULL || *value == '\0')
    return LB_ISOLATION_DEFAULT_TIMEOUT_S;
  s = g_ascii_strtod (value, &end);
  if (end == value || *end != '\0' || !(s >= 0) || s > 86400.0 * 365)
    {
      g_message ("LIGHTBOX_FILTER_TIMEOUT=%s is not a number of seconds ≥ 0; using %g s",
                 value, LB_ISOLATION_DEFAULT_TIMEOUT_S);
      return LB_ISOLATION_DEFAULT_TIMEOUT_S;
    }
  return s;
}

gboolean
lb_filter_runs_isolated (LbFilter   *filter,
                         LbIsolation isolation)
{
  g_return_val_if_fail (LB_IS_FILTER (filter), FALSE);
  /* Python has no other place to run */
  if (lb_filter_get_kind (filter) == LB_FILTER_KIND_PYTHON)
    return TRUE;
  if (lb_filter_get_kind (filter) != LB_FILTER_KIND_PLUGIN)
    return FALSE;
  return path_runs_isolated (lb_filter_get_origin (filter), isolation);
}
