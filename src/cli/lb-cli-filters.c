/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-cli"

#include <stdio.h>

#include "lb-cli.h"
#include "lb-filter-registry.h"
#include "lb-python-filter.h"

static const char *
type_name (const LbParamSpec *spec)
{
  switch (spec->type)
    {
    case LB_PARAM_INT:
      return "int";
    case LB_PARAM_DOUBLE:
      return "double";
    case LB_PARAM_BOOL:
      return "bool";
    case LB_PARAM_ENUM:
      return "enum";
    default:
      return "?";
    }
}

static const char *
unit_name (LbParamUnit unit)
{
  switch (unit)
    {
    case LB_UNIT_PIXEL:
      return " px";
    case LB_UNIT_DEGREE:
      return " °";
    case LB_UNIT_PERCENT:
      return " %";
    case LB_UNIT_MM:
      return " mm";
    case LB_UNIT_SAMPLE:
      return " (sample value)";
    case LB_UNIT_NONE:
    default:
      return "";
    }
}

static void
print_param (LbFilter          *f,
             const LbParamSpec *spec)
{
  g_autoptr(GString) line = g_string_new (NULL);

  g_string_append_printf (line, "    %-12s %-6s ", spec->name, type_name (spec));
  if (spec->type == LB_PARAM_ENUM)
    {
      for (guint i = 0; spec->values[i].nick != NULL; i++)
        g_string_append_printf (line, "%s%s", i ? "|" : "", spec->values[i].nick);
      g_string_append_printf (line, ", default %s", spec->values[(int) spec->def].nick);
    }
  else if (spec->type == LB_PARAM_BOOL)
    g_string_append_printf (line, "default %s", spec->def != 0 ? "true" : "false");
  else
    {
      g_string_append_printf (line, "%.*f..%.*f, default %.*f", spec->digits, spec->min,
                              spec->digits, spec->max, spec->digits, spec->def);
      if (spec->flags & LB_PARAM_FLAG_ODD)
        g_string_append (line, ", odd");
      g_string_append (line, unit_name (spec->unit));
    }
  if (spec->label != NULL)
    g_string_append_printf (line, "  (%s)", lb_filter_translate (f, spec->label));
  printf ("%s\n", line->str);
}

static void
registry_message (const char    *domain,
                  GLogLevelFlags level,
                  const char    *message,
                  gpointer       command)
{
  g_printerr ("lightbox-cli %s: %s\n", (const char *) command, message);
}

void
lb_cli_route_registry_messages (const char *command)
{
  /* "Skipping FILE: REASON" from the plugin host, without GLib's log prefix. */
  g_log_set_handler ("lb-filter-registry", G_LOG_LEVEL_MESSAGE, registry_message,
                     (gpointer) command);
}

int
lb_cli_filters (int argc, char **argv)
{
  gboolean ids_only = FALSE;
  const GOptionEntry entries[] = {
    { "ids", 0, 0, G_OPTION_ARG_NONE, &ids_only, "Print only the ids and aliases", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new ("— list the filters Lightbox knows");
  g_autoptr(GError) error = NULL;
  g_autoptr(LbFilterRegistry) reg = NULL;
  guint n;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx,
    "Plugins are searched in $LIGHTBOX_PLUGIN_PATH, the installed plugin directory and\n"
    "$XDG_DATA_HOME/lightbox/plugins; declarative filters (*.lbfilter) in\n"
    "$LIGHTBOX_FILTER_PATH, the installed filter directory and $XDG_DATA_HOME/lightbox/filters.\n"
    "Files that cannot be used are reported on stderr with the reason.");
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      lb_cli_fail ("filters", error);
      return 2;
    }
  if (argc > 1)
    {
      g_printerr ("lightbox-cli filters: unexpected argument “%s”\n", argv[1]);
      return 2;
    }

  lb_cli_route_registry_messages ("filters");
  reg = lb_filter_registry_new_default ();
  n = g_list_model_get_n_items (G_LIST_MODEL (reg));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(LbFilter) f = g_list_model_get_item (G_LIST_MODEL (reg), i);
      const char *alias = lb_filter_get_alias (f);
      const char *desc = lb_filter_get_description (f);
      guint np = lb_filter_get_n_params (f);

      if (ids_only)
        {
          printf ("%s%s%s\n", alias ? alias : "", alias ? " " : "", lb_filter_get_id (f));
          continue;
        }
      printf ("%s%s%s\n", alias ? alias : lb_filter_get_id (f), alias ? "  " : "",
              alias ? lb_filter_get_id (f) : "");
      printf ("  %s [%s]%s%s\n", lb_filter_get_name (f), lb_filter_get_category (f),
              desc ? ": " : "", desc ? desc : "");
      if (lb_filter_get_kind (f) == LB_FILTER_KIND_CHAIN)
        {
          g_autofree char *steps = g_strjoinv (" → ", (char **) lb_filter_get_chain (f));
          printf ("  chain: %s\n", steps);
          printf ("  formats: those of its steps\n");
        }
      else
        {
          g_autofree char *formats = lb_filter_dup_formats_string (f);
          printf ("  formats: %s\n", formats);
        }
      switch (lb_filter_get_kind (f))
        {
        case LB_FILTER_KIND_PLUGIN:
          printf ("  origin: plugin %s (version %s)\n", lb_filter_get_origin (f),
                  lb_filter_get_version (f) ? lb_filter_get_version (f) : "unknown");
          break;
        case LB_FILTER_KIND_PYTHON:
          printf ("  origin: Python filter %s (version %s), run by %s\n",
                  lb_filter_get_origin (f),
                  lb_filter_get_version (f) ? lb_filter_get_version (f) : "unknown",
                  _lb_python_interpreter ());
          break;
        case LB_FILTER_KIND_KERNEL:
          printf ("  origin: declarative kernel %s\n", lb_filter_get_origin (f));
          break;
        case LB_FILTER_KIND_CHAIN:
        default:
          printf ("  origin: declarative chain %s\n", lb_filter_get_origin (f));
          break;
        }
      if (np > 0)
        printf ("  parameters:\n");
      for (guint k = 0; k < np; k++)
        print_param (f, lb_filter_get_param (f, k));
      printf ("\n");
    }
  if (n == 0)
    g_printerr ("lightbox-cli filters: no filters found (is LIGHTBOX_PLUGIN_PATH right?)\n");
  return 0;
}
