/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-cli"

#include <stdio.h>
#include <string.h>

#include "lb-cli-store-options.h"
#include "lb-cli.h"
#include "lb-error.h"
#include "lb-store-sync.h"

/* -R stops at a depth deep enough for any real tree and at a number of entries in all: a
 * server can make up a tree that never ends (every folder listing more folders). */
#define DEFAULT_MAX_DEPTH 64
#define DEFAULT_MAX_TOTAL 100000

static gboolean opt_recursive;
static int opt_max_depth = DEFAULT_MAX_DEPTH;
static int opt_max_total = DEFAULT_MAX_TOTAL;

static const GOptionEntry entries[] = {
  { "recursive", 'R', 0, G_OPTION_ARG_NONE, &opt_recursive, "List subfolders too (paths relative to URL)", NULL },
  { "max-depth", 0, 0, G_OPTION_ARG_INT, &opt_max_depth,
    "With -R, descend at most N levels (default 64)", "N" },
  { "max-total", 0, 0, G_OPTION_ARG_INT, &opt_max_total,
    "With -R, stop with an error after N entries in all (default 100000)", "N" },
  { NULL }
};

/* What a recursive listing has seen so far. */
typedef struct {
  guint      listed;     /* entries printed */
  guint      too_deep;   /* folders not descended into for --max-depth */
  GPtrArray *ancestors;  /* identities (lb:identity, "" if unknown) of the folders being listed
                          * below the top one, outermost first */
} Walk;

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

/* Whether the folder @entry is one of those being listed (a symbolic link to an ancestor in a
 * local folder): the stores that know a folder's identity give it as "lb:identity". */
static gboolean
is_cycle (Walk *walk, LbStoreEntry *entry)
{
  const char *identity = lb_store_entry_get_attribute (entry, "lb:identity");

  for (guint i = 0; identity != NULL && *identity != '\0' && i < walk->ancestors->len; i++)
    if (g_str_equal (walk->ancestors->pdata[i], identity))
      return TRUE;
  return FALSE;
}

static gboolean
list_level (LbStore *store, const char *uri, const char *base, guint depth, Walk *walk,
            GError **error)
{
  g_autoptr(GPtrArray) entries_ = lb_store_list_sync (store, uri, NULL, error);

  if (entries_ == NULL)
    return FALSE;
  g_ptr_array_sort (entries_, compare_entries);
  for (guint i = 0; i < entries_->len; i++)
    {
      LbStoreEntry *entry = entries_->pdata[i];
      g_autofree char *path = entry_path (base, entry);

      if (opt_recursive && walk->listed >= (guint) opt_max_total)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_TOO_LARGE,
                       "%s: stopped after %u entries (--max-total)", lb_store_entry_get_uri (entry),
                       walk->listed);
          return FALSE;
        }
      walk->listed++;
      if (lb_store_entry_is_container (entry))
        {
          printf ("%s/\n", path);
          if (opt_recursive)
            {
              const char *identity = lb_store_entry_get_attribute (entry, "lb:identity");
              gboolean ok;

              if (depth >= (guint) opt_max_depth)
                {
                  /* named once: a tree that never ends has this everywhere at the bottom */
                  if (walk->too_deep++ == 0)
                    g_printerr ("lightbox-cli ls: %s: deeper than %d levels, not descending\n",
                                lb_store_entry_get_uri (entry), opt_max_depth);
                  continue;
                }
              if (is_cycle (walk, entry))
                {
                  g_printerr ("lightbox-cli ls: %s: a folder already being listed (a loop), "
                              "not descending\n", lb_store_entry_get_uri (entry));
                  continue;
                }
              g_ptr_array_add (walk->ancestors, g_strdup (identity != NULL ? identity : ""));
              ok = list_level (store, lb_store_entry_get_uri (entry), base, depth + 1, walk, error);
              g_ptr_array_remove_index (walk->ancestors, walk->ancestors->len - 1);
              if (!ok)
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
  if (opt_max_depth < 0 || opt_max_total <= 0)
    {
      g_printerr ("lightbox-cli ls: --max-depth and --max-total must be positive\n");
      return 2;
    }
  store = lb_store_new_for_uri (argv[1], options, &error);
  if (store == NULL)
    return lb_cli_fail ("ls", error);
  {
    const char *root = lb_store_get_uri (store);
    g_autofree char *base = g_str_has_suffix (root, "/") ? g_strdup (root)
                                                         : g_strconcat (root, "/", NULL);
    /* the top folder's identity is not asked for (a request more): a link back to it is seen
     * one level down, where the folder it leads to is listed a second time */
    g_autoptr(GPtrArray) ancestors = g_ptr_array_new_with_free_func (g_free);
    Walk walk = { 0, 0, ancestors };

    gboolean ok = list_level (store, NULL, base, 0, &walk, &error);

    if (walk.too_deep > 1)
      g_printerr ("lightbox-cli ls: %u more folders deeper than %d levels not descended into\n",
                  walk.too_deep - 1, opt_max_depth);
    if (!ok)
      return lb_cli_fail ("ls", error);
  }
  return 0;
}
