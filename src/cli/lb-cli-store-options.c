/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-cli"

#include "lb-cli-store-options.h"

#include <string.h>

#include "lb-error.h"

static char *opt_user;
static char *opt_password_file;
static char *opt_token_file;
static char *opt_ca_file;
static char *opt_pinned_cert;
static char *opt_type;
static int opt_timeout;
static int opt_retries = -1;
static int opt_max_entries;

static const GOptionEntry entries[] = {
  { "user", 0, 0, G_OPTION_ARG_STRING, &opt_user, "User name for Basic/Digest authentication (password from LIGHTBOX_PASSWORD or --password-file)", "USER" },
  { "password-file", 0, 0, G_OPTION_ARG_FILENAME, &opt_password_file, "Read the password from the first line of FILE", "FILE" },
  { "token-file", 0, 0, G_OPTION_ARG_FILENAME, &opt_token_file, "Read a bearer token from FILE (or set LIGHTBOX_TOKEN)", "FILE" },
  { "ca-file", 0, 0, G_OPTION_ARG_FILENAME, &opt_ca_file, "Also trust the CA certificates in this PEM file", "FILE" },
  { "pin-cert", 0, 0, G_OPTION_ARG_FILENAME, &opt_pinned_cert, "Trust exactly this server certificate (PEM)", "FILE" },
  { "type", 0, 0, G_OPTION_ARG_STRING, &opt_type, "Store type instead of detecting it: webdav, listing, local, dicomweb", "TYPE" },
  { "timeout", 0, 0, G_OPTION_ARG_INT, &opt_timeout, "Network I/O timeout in seconds (default 30)", "SECONDS" },
  { "retries", 0, 0, G_OPTION_ARG_INT, &opt_retries, "Retries of idempotent requests (default 3)", "N" },
  { "max-entries", 0, 0, G_OPTION_ARG_INT, &opt_max_entries, "Refuse listings with more entries (default 200000)", "N" },
  { NULL }
};

GOptionGroup *
lb_cli_store_option_group (void)
{
  GOptionGroup *group = g_option_group_new ("store", "Store options:", "Show store options", NULL, NULL);

  g_option_group_add_entries (group, entries);
  return group;
}

static char *
first_line (const char *path, GError **error)
{
  g_autofree char *contents = NULL;
  char *nl;

  if (!g_file_get_contents (path, &contents, NULL, error))
    return NULL;
  nl = strpbrk (contents, "\r\n");
  if (nl != NULL)
    *nl = '\0';
  return g_steal_pointer (&contents);
}

LbStoreOptions *
lb_cli_store_options (GError **error)
{
  g_autoptr(LbStoreOptions) options = lb_store_options_new ();

  options->type = g_strdup (opt_type);
  options->ca_file = g_strdup (opt_ca_file);
  options->pinned_cert_file = g_strdup (opt_pinned_cert);
  if (opt_timeout > 0)
    options->timeout_s = opt_timeout;
  if (opt_retries >= 0)
    options->max_retries = opt_retries;
  if (opt_max_entries > 0)
    options->max_listing_entries = opt_max_entries;
  if (opt_user != NULL)
    {
      options->username = g_strdup (opt_user);
      if (opt_password_file != NULL)
        {
          options->password = first_line (opt_password_file, error);
          if (options->password == NULL)
            return NULL;
        }
      else
        options->password = g_strdup (g_getenv ("LIGHTBOX_PASSWORD"));
    }
  if (opt_token_file != NULL)
    {
      options->token = first_line (opt_token_file, error);
      if (options->token == NULL)
        return NULL;
    }
  else if (g_getenv ("LIGHTBOX_TOKEN") != NULL)
    options->token = g_strdup (g_getenv ("LIGHTBOX_TOKEN"));
  return g_steal_pointer (&options);
}
