/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-cli"

#include <stdio.h>
#include <string.h>

#include "lb-cli-store-options.h"
#include "lb-cli.h"
#include "lb-store-sync.h"

/* Deep enough for any real tree, and a stop for symlink loops in local folders. */
#define MAX_DEPTH 64

static gboolean opt_recursive;

static const GOptionEntry entries[] = {
  { "recursive", 'R', 0, G_OPTION_ARG_NONE, &opt_recursive, "List subfolders too (paths relative to URL)", NULL },
  { NULL }
};

static int
compare_entries (gconstpointer a, gconstpointer b)
{
  LbStoreEntry *ea = *(LbStoreEntry **) a;
  LbStoreEntry *eb = *(LbStoreEntry **) b;

  return strcmp (lb_store_entry_get_name (ea), lb_store_entry_get_name (eb));
}

/* Names come from servers: never let them move the cursor or fake extra lines. */
static char *
printable (const char *name)
{
  GString *out = g_string_new (NULL);

  for (const char *p = name; *p; p++)
    g_string_append_c (out, ((guchar) *p < 0x20 || *p == 0x7f) ? '?' : *p);
  return g_string_free (out, FALSE);
}

/* The path `ls` prints for @entry: its URI relative to the URL listed (@base, ending in '/'),
 * percent-decoded, so that URL + path names it again for `get` and `convert` even where a
 * store's tree is not its URI hierarchy (DICOMweb lists studies under a patient, but a study's
 * URI is …/studies/UID/). An entry outside @base is printed as its whole URI. */
static char *
entry_path (const char *base, LbStoreEntry *entry)
{
  const char *uri = lb_store_entry_get_uri (entry);
  g_autofree char *rel = NULL;
  g_autofree char *decoded = NULL;
  gsize n;

  if (!g_str_has_prefix (uri, base) || uri[strlen (base)] == '\0')
    return printable (uri);
  rel = g_strdup (uri + strlen (base));
  n = strlen (rel);
  while (n > 0 && rel[n - 1] == '/')
    rel[--n] = '\0';
  decoded = g_uri_unescape_string (rel, NULL);
  return printable (decoded != NULL ? decoded : rel);
}

static gboolean
list_level (LbStore *store, const char *uri, const char *base, guint depth, GError **error)
{
  g_autoptr(GPtrArray) entries_ = lb_store_list_sync (store, uri, NULL, error);

  if (entries_ == NULL)
    return FALSE;
  g_ptr_array_sort (entries_, compare_entries);
  for (guint i = 0; i < entries_->len; i++)
    {
      LbStoreEntry *entry = entries_->pdata[i];
      g_autofree char *path = entry_path (base, entry);

      if (lb_store_entry_is_container (entry))
        {
          printf ("%s/\n", path);
          if (opt_recursive)
            {
              if (depth >= MAX_DEPTH)
                {
                  g_printerr ("lightbox-cli ls: %s: deeper than %u levels, not descending\n",
                              lb_store_entry_get_uri (entry), MAX_DEPTH);
                  continue;
                }
              if (!list_level (store, lb_store_entry_get_uri (entry), base, depth + 1, error))
                return FALSE;
            }
        }
      else
        {
          gint64 size = lb_store_entry_get_size (entry);

          if (size < 0)
            {
              /* listings without sizes (python http.server, Apache's rounded "3.3K"): ask */
              g_autoptr(GError) stat_error = NULL;
              g_autoptr(LbStoreEntry) info = lb_store_stat_sync (store, lb_store_entry_get_uri (entry),
                                                                 NULL, &stat_error);
              if (info != NULL)
                size = lb_store_entry_get_size (info);
            }
          if (size >= 0)
            printf ("%s\t%" G_GINT64_FORMAT "\n", path, size);
          else
            printf ("%s\t?\n", path);
        }
    }
  fflush (stdout);
  return TRUE;
}

int
lb_cli_ls (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new ("URL");
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStoreOptions) options = NULL;
  g_autoptr(LbStore) store = NULL;

  g_option_context_set_summary (context,
                                "List a store folder: one entry per line, as a path below URL that `get`\n"
                                "and `convert` take appended to URL; folders end in '/', files are followed\n"
                                "by a tab and their size in bytes ('?' when the server does not say).");
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_add_group (context, lb_cli_store_option_group ());
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return lb_cli_fail ("ls", error);
  if (argc != 2)
    {
      g_printerr ("Usage: lightbox-cli ls [-R] URL\n");
      return 2;
    }
  options = lb_cli_store_options (&error);
  if (options == NULL)
    return lb_cli_fail ("ls", error);
  store = lb_store_new_for_uri (argv[1], options, &error);
  if (store == NULL)
    return lb_cli_fail ("ls", error);
  {
    const char *root = lb_store_get_uri (store);
    g_autofree char *base = g_str_has_suffix (root, "/") ? g_strdup (root)
                                                         : g_strconcat (root, "/", NULL);

    if (!list_level (store, NULL, base, 0, &error))
      return lb_cli_fail ("ls", error);
  }
  return 0;
}
