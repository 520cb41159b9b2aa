/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-cli"

#include "lb-cli-store-io.h"

#include <stdio.h>
#include <string.h>

#include "lb-cli-store-options.h"
#include "lb-image-loader.h"
#include "lb-png.h"
#include "lb-error.h"
#include "lb-store-sync.h"

gboolean
lb_cli_is_store_url (const char *arg)
{
  g_autofree char *scheme = g_uri_parse_scheme (arg);

  /* "C:\…" is not a concern on our platforms; one-letter schemes do not exist */
  return scheme != NULL && strlen (scheme) > 1;
}

char *
lb_cli_url_from_arg (const char *arg)
{
  const char *sep = strstr (arg, "://");
  const char *path;
  g_autofree char *head = NULL;
  g_autofree char *tail = NULL;

  if (!lb_cli_is_store_url (arg) || sep == NULL)
    return g_strdup (arg);
  path = strchr (sep + 3, '/');
  if (path == NULL)
    return g_strdup (arg);
  head = g_strndup (arg, path - arg);
  tail = g_uri_escape_string (path, "/%!$&'()*+,;=:@~", FALSE);
  return g_strconcat (head, tail, NULL);
}

LbImage *
lb_cli_load_image (const char *arg, GError **error)
{
  g_autoptr(LbStoreOptions) options = NULL;
  g_autofree char *url = NULL;

  if (!lb_cli_is_store_url (arg))
    return lb_image_load_file (arg, NULL, error);
  options = lb_cli_store_options (error);
  if (options == NULL)
    return NULL;
  url = lb_cli_url_from_arg (arg);
  return lb_store_fetch_image_sync (url, options, NULL, NULL, NULL, error);
}

gboolean
lb_cli_save_image (LbImage *image, const char *arg, gboolean overwrite, const char *filter_chain,
                   GError **error)
{
  g_autoptr(LbStoreOptions) options = NULL;
  g_autoptr(LbWriteBackResult) result = NULL;
  LbWriteBackOptions provenance = { NULL, filter_chain, FALSE, NULL, 0 };

  if (!lb_cli_is_store_url (arg))
    return lb_png_save_to_file (image, arg, error);
  options = lb_cli_store_options (error);
  if (options == NULL)
    return FALSE;
  result = lb_store_put_image_sync (image, arg, &provenance, overwrite, options, NULL, error);
  if (result == NULL)
    return FALSE;
  printf ("%s\n%s\n", result->uri, result->message);
  if (!result->verified)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_FAILED, "%s: uploaded but not verified", result->uri);
      return FALSE;
    }
  return TRUE;
}
