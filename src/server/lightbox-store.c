/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lightbox-store"

#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <glib-unix.h>
#include <glib/gstdio.h>

#include "lb-store-path.h"
#include "lb-store-server.h"

/*
 * lightbox-store: serves a directory as a WebDAV class-1 store.
 *
 *   lightbox-store [--bind ADDR] [--port N] [--token-file F] [--passwd-file F] [--read-only]
 *                  [--tls-cert F --tls-key F] [--max-upload BYTES] [--timeout SECONDS]
 *                  [--max-connections N] [--access-log F] ROOT
 *   lightbox-store --hash-password USER   < password    → prints "USER:$y$…" for --passwd-file
 */

static gboolean
on_signal (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_CONTINUE;
}

static int
hash_password_mode (const char *user)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *hash = NULL;
  char line[4096];
  size_t n;

  if (user == NULL || user[0] == '\0' || strpbrk (user, ":\n\r \t") != NULL)
    {
      g_printerr ("lightbox-store: --hash-password needs a USER without ':' or spaces\n");
      return 2;
    }
  if (fgets (line, sizeof line, stdin) == NULL)
    {
      g_printerr ("lightbox-store: no password on standard input\n");
      return 2;
    }
  n = strlen (line);
  while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
    line[--n] = '\0';
  hash = lb_store_auth_hash_password (line, &error);
  memset (line, 0, sizeof line);
  if (hash == NULL)
    {
      g_printerr ("lightbox-store: %s\n", error->message);
      return 1;
    }
  g_print ("%s:%s\n", user, hash);
  return 0;
}

int
main (int argc, char **argv)
{
  g_autofree char *bind = NULL;
  gint port = 8080;
  g_autofree char *token_file = NULL;
  g_autofree char *passwd_file = NULL;
  gboolean read_only = FALSE;
  g_autofree char *tls_cert = NULL;
  g_autofree char *tls_key = NULL;
  gint64 max_upload = 0;
  gint timeout = LB_STORE_DEFAULT_TIMEOUT;
  gint max_connections = 0;
  g_autofree char *access_log = NULL;
  gboolean hash_password = FALSE;
  g_auto(GStrv) rest = NULL;
  GOptionEntry entries[] = {
    { "bind", 0, 0, G_OPTION_ARG_STRING, &bind,
      "Address to listen on (default 127.0.0.1; a non-loopback address needs authentication)", "ADDR" },
    { "port", 0, 0, G_OPTION_ARG_INT, &port, "Port (default 8080; 0 picks a free port)", "N" },
    { "token-file", 0, 0, G_OPTION_ARG_FILENAME, &token_file,
      "Bearer tokens, one per line", "F" },
    { "passwd-file", 0, 0, G_OPTION_ARG_FILENAME, &passwd_file,
      "Basic users, user:hash lines made by --hash-password", "F" },
    { "read-only", 0, 0, G_OPTION_ARG_NONE, &read_only,
      "Refuse every write, authenticated or not", NULL },
    { "tls-cert", 0, 0, G_OPTION_ARG_FILENAME, &tls_cert, "TLS certificate chain (PEM)", "F" },
    { "tls-key", 0, 0, G_OPTION_ARG_FILENAME, &tls_key, "TLS private key (PEM)", "F" },
    { "max-upload", 0, 0, G_OPTION_ARG_INT64, &max_upload,
      "Largest accepted PUT body in bytes (default: no limit)", "BYTES" },
    { "timeout", 0, 0, G_OPTION_ARG_INT, &timeout,
      "Close connections whose request head takes longer, or that stall for longer, than "
      "this many seconds (default 60; 0 = never)", "SECONDS" },
    { "max-connections", 0, 0, G_OPTION_ARG_INT, &max_connections,
      "Connections served at once; more are answered 503 (default: about half the "
      "descriptor limit, ulimit -n)", "N" },
    { "access-log", 0, 0, G_OPTION_ARG_FILENAME, &access_log,
      "Append one audit line per request to F", "F" },
    { "hash-password", 0, 0, G_OPTION_ARG_NONE, &hash_password,
      "Read a password from stdin and print a USER:hash line for --passwd-file", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, "ROOT  |  --hash-password USER" },
    { NULL }
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStoreServer) server = NULL;
  g_autoptr(LbStoreAuth) auth = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autofree char *filters = NULL;
  guint stale;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx, "Serves ROOT as a WebDAV (class 1) image store.");
  g_option_context_set_description (ctx,
    "Access: without --token-file/--passwd-file everyone may read and write (loopback only).\n"
    "With authentication configured, anonymous clients may read; every write needs valid\n"
    "credentials (401 otherwise), and wrong credentials are refused on any request.\n"
    "--read-only refuses writes for everyone (403), authenticated or not.\n"
    "Declarative filters in ROOT/.lightbox/filters/*.lbfilter are published under\n"
    "/.lightbox/filters/; other dotfiles are hidden.\n"
    "Password file lines: USER:HASH, HASH a salted yescrypt crypt(3) string from\n"
    "  printf '%s\\n' \"$PASSWORD\" | lightbox-store --hash-password USER >> passwd\n");
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      g_printerr ("lightbox-store: %s\n", error->message);
      return 2;
    }
  if (hash_password)
    return hash_password_mode (rest != NULL ? rest[0] : NULL);
  if (rest == NULL || rest[0] == NULL || rest[1] != NULL)
    {
      g_printerr ("lightbox-store: exactly one ROOT directory is needed (see --help)\n");
      return 2;
    }
  if (port < 0 || port > 65535)
    {
      g_printerr ("lightbox-store: --port %d is out of range\n", port);
      return 2;
    }
  if ((tls_cert == NULL) != (tls_key == NULL))
    {
      g_printerr ("lightbox-store: --tls-cert and --tls-key go together\n");
      return 2;
    }
  if (timeout < 0)
    {
      g_printerr ("lightbox-store: --timeout must not be negative\n");
      return 2;
    }
  if (max_upload < 0)
    {
      g_printerr ("lightbox-store: --max-upload must not be negative\n");
      return 2;
    }
  if (max_connections < 0)
    {
      g_printerr ("lightbox-store: --max-connections must not be negative\n");
      return 2;
    }

  server = lb_store_server_new (rest[0], &error);
  if (server == NULL)
    {
      g_printerr ("lightbox-store: %s\n", error->message);
      return 1;
    }
  if (token_file != NULL || passwd_file != NULL)
    {
      auth = lb_store_auth_new ();
      if ((token_file != NULL && !lb_store_auth_load_tokens (auth, token_file, &error)) ||
          (passwd_file != NULL && !lb_store_auth_load_passwd (auth, passwd_file, &error)))
        {
          g_printerr ("lightbox-store: %s\n", error->message);
          return 1;
        }
      lb_store_server_set_auth (server, auth);
    }
  lb_store_server_set_read_only (server, read_only);
  lb_store_server_set_max_upload (server, (guint64) max_upload);
  lb_store_server_set_timeout (server, (guint) timeout);
  lb_store_server_set_max_connections (server, (guint) max_connections);
  if (access_log != NULL)
    {
      g_autoptr(LbAccessLog) log = lb_access_log_new (access_log, &error);
      if (log == NULL)
        {
          g_printerr ("lightbox-store: %s\n", error->message);
          return 1;
        }
      lb_store_server_set_access_log (server, log);
    }
  if (tls_cert != NULL)
    {
      g_autoptr(GTlsCertificate) cert = NULL;

      if (!g_tls_backend_supports_tls (g_tls_backend_get_default ()))
        {
          g_printerr ("lightbox-store: TLS is not available (install glib-networking)\n");
          return 1;
        }
      cert = g_tls_certificate_new_from_files (tls_cert, tls_key, &error);
      if (cert == NULL)
        {
          g_printerr ("lightbox-store: cannot load TLS certificate/key: %s\n", error->message);
          return 1;
        }
      lb_store_server_set_tls_certificate (server, cert);
    }

  stale = lb_store_server_remove_stale_temps (server);
  if (stale > 0)
    g_message ("Removed %u upload temporaries left by an earlier run", stale);
  if (!read_only)
    {
      filters = g_build_filename (lb_store_server_get_root (server), LB_STORE_FILTER_DIR, NULL);
      if (g_mkdir_with_parents (filters, 0755) != 0)
        g_warning ("Cannot create the filter repository %s: %s", filters, g_strerror (errno));
    }

  if (!lb_store_server_listen (server, bind, (guint) port, &error))
    {
      g_printerr ("lightbox-store: %s\n", error->message);
      return 1;
    }

  signal (SIGPIPE, SIG_IGN);
  loop = g_main_loop_new (NULL, FALSE);
  g_unix_signal_add (SIGTERM, on_signal, loop);
  g_unix_signal_add (SIGINT, on_signal, loop);

  printf ("Serving %s at %s\n", rest[0], lb_store_server_get_url (server));
  fflush (stdout);

  g_main_loop_run (loop);
  lb_store_server_stop (server);
  /* Let the closed connections finish tearing down before the objects go. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  return 0;
}
