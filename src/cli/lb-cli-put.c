/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-cli"

#include <stdio.h>

#include "lb-cli-store-options.h"
#include "lb-cli.h"
#include "lb-store-sync.h"

static gboolean opt_overwrite;

static const GOptionEntry entries[] = {
  { "overwrite", 0, 0, G_OPTION_ARG_NONE, &opt_overwrite,
    "Replace an existing entry, but only the version seen just before (If-Match with its ETag)", NULL },
  { NULL }
};

int
lb_cli_put (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new ("FILE URL");
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStoreOptions) options = NULL;
  g_autoptr(GMappedFile) mapped = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(LbWriteBackResult) result = NULL;
  g_autofree char *target = NULL;
  g_autofree char *guessed = NULL;
  g_autofree char *mime = NULL;

  g_option_context_set_summary (context,
                                "Upload FILE to URL (a URL ending in '/' gets FILE's name appended).\n"
                                "Never replaces an existing entry (If-None-Match: *, checked first) unless\n"
                                "--overwrite is given. Afterwards size and ETag are verified and reported.");
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_add_group (context, lb_cli_store_option_group ());
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return lb_cli_fail ("put", error);
  if (argc != 3)
    {
      g_printerr ("Usage: lightbox-cli put FILE URL [--overwrite]\n");
      return 2;
    }
  options = lb_cli_store_options (&error);
  if (options == NULL)
    return lb_cli_fail ("put", error);

  mapped = g_mapped_file_new (argv[1], FALSE, &error);
  if (mapped == NULL)
    return lb_cli_fail ("put", error);
  bytes = g_mapped_file_get_bytes (mapped);
  if (g_str_has_suffix (argv[2], "/"))
    {
      g_autofree char *base = g_path_get_basename (argv[1]);
      g_autofree char *escaped = g_uri_escape_string (base, NULL, FALSE);
      g_autofree char *scheme = g_uri_parse_scheme (argv[2]);
      target = g_strconcat (argv[2], scheme != NULL ? escaped : base, NULL);
    }
  else
    target = g_strdup (argv[2]);
  guessed = g_content_type_guess (argv[1], g_bytes_get_data (bytes, NULL),
                                  MIN (g_bytes_get_size (bytes), 4096), NULL);
  mime = g_content_type_get_mime_type (guessed);

  result = lb_store_put_bytes_sync (target, bytes, mime, opt_overwrite, options, NULL, &error);
  if (result == NULL)
    return lb_cli_fail ("put", error);
  printf ("%s\n%s\n", result->uri, result->message);
  return result->verified ? 0 : 1;
}
