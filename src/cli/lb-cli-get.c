/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-cli"

#include "lb-cli-store-io.h"
#include "lb-cli-store-options.h"
#include "lb-cli.h"
#include "lb-store-sync.h"

static gint64 opt_max_size;

static const GOptionEntry entries[] = {
  { "max-size", 0, 0, G_OPTION_ARG_INT64, &opt_max_size,
    "Refuse a body larger than BYTES (always: larger than the free space of FILE's file system, "
    "less a reserve)", "BYTES" },
  { NULL }
};

int
lb_cli_get (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new ("URL FILE");
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStoreOptions) options = NULL;
  g_autoptr(LbStoreEntry) entry = NULL;
  g_autofree char *url = NULL;

  g_option_context_set_summary (context,
                                "Download one entry of a store to FILE. URL is any path `ls -R URL` prints,\n"
                                "appended to that URL. FILE is replaced atomically, and only when the whole\n"
                                "body arrived: a failed or truncated download leaves it untouched.");
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_add_group (context, lb_cli_store_option_group ());
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return lb_cli_fail ("get", error);
  if (argc != 3)
    {
      g_printerr ("Usage: lightbox-cli get [--max-size BYTES] URL FILE\n");
      return 2;
    }
  options = lb_cli_store_options (&error);
  if (options == NULL)
    return lb_cli_fail ("get", error);
  if (opt_max_size < 0)
    {
      g_printerr ("lightbox-cli get: --max-size must be positive\n");
      return 2;
    }
  options->max_download_bytes = (guint64) opt_max_size;
  /* what `ls -R` prints below a URL, appended to it, is a URL to get */
  url = lb_cli_url_from_arg (argv[1]);
  entry = lb_store_download_sync (url, argv[2], options, NULL, &error);
  if (entry == NULL)
    return lb_cli_fail ("get", error);
  return 0;
}
