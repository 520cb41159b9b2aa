/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicom-multipart"

#include "lb-dicom-multipart.h"

#include <libsoup/soup.h>
#include <string.h>

#include "lb-error.h"

void
lb_dicom_part_free (LbDicomPart *part)
{
  if (part == NULL)
    return;
  g_free (part->content_type);
  g_free (part->transfer_syntax);
  g_free (part->location);
  g_clear_pointer (&part->body, g_bytes_unref);
  g_free (part);
}

/* Splits "application/octet-stream; transfer-syntax=1.2.840.10008.1.2.1" into the type and the
 * transfer-syntax parameter (quotes allowed). */
static char *
split_type (const char *value, char **transfer_syntax)
{
  g_autoptr(GHashTable) params = NULL;
  g_autoptr(SoupMessageHeaders) h = soup_message_headers_new (SOUP_MESSAGE_HEADERS_MULTIPART);
  const char *type;

  soup_message_headers_replace (h, "Content-Type", value);
  type = soup_message_headers_get_content_type (h, &params);
  if (type == NULL)
    return NULL;
  if (transfer_syntax && params)
    {
      const char *ts = g_hash_table_lookup (params, "transfer-syntax");

      *transfer_syntax = ts && *ts ? g_strdup (ts) : NULL;
    }
  return g_ascii_strdown (type, -1);
}

GPtrArray *
lb_dicom_multipart_parse (const char *content_type, GBytes *body, GError **error)
{
  g_autoptr(SoupMessageHeaders) headers = soup_message_headers_new (SOUP_MESSAGE_HEADERS_RESPONSE);
  g_autoptr(GHashTable) params = NULL;
  g_autoptr(GPtrArray) parts = NULL;
  g_autofree char *default_ts = NULL;
  SoupMultipart *mp;
  const char *type, *boundary, *outer;

  g_return_val_if_fail (body != NULL, NULL);
  if (content_type == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "multipart response without a Content-Type");
      return NULL;
    }
  soup_message_headers_replace (headers, "Content-Type", content_type);
  type = soup_message_headers_get_content_type (headers, &params);
  if (type == NULL || !g_str_has_prefix (type, "multipart/"))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE,
                   "expected a multipart response, got Content-Type \"%s\"", content_type);
      return NULL;
    }
  boundary = params ? g_hash_table_lookup (params, "boundary") : NULL;
  if (boundary == NULL || *boundary == '\0')
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE,
                   "multipart response without a boundary (Content-Type \"%s\")", content_type);
      return NULL;
    }
  outer = params ? g_hash_table_lookup (params, "type") : NULL;
  if (outer)
    g_free (split_type (outer, &default_ts));

  {
    /* libsoup 3.2's soup_multipart_new_from_message() looks for the end of each part's
     * headers with strstr(), which reads past the end of a body that is not NUL-terminated
     * (found by tests/fuzz/fuzz-dicomweb; regression input in tests/data/regressions/).
     * Hand it a copy with a NUL after the last byte: the GBytes keeps the exact size, so
     * nothing changes for well-formed bodies, and the search stops inside the buffer. */
    gsize len = g_bytes_get_size (body);
    char *copy = g_malloc (len + 1);
    g_autoptr(GBytes) terminated = NULL;

    if (len > 0)
      memcpy (copy, g_bytes_get_data (body, NULL), len);
    copy[len] = '\0';
    terminated = g_bytes_new_take (copy, len);
    mp = soup_multipart_new_from_message (headers, terminated);
    /* libsoup 3.2 takes a part's body to end two bytes before the next boundary line, also
     * when its headers' blank line ends closer to that line than that: the length wraps
     * around, g_bytes_new_from_bytes()'s bounds check wraps with it, and the part claims
     * about 2^64 bytes from inside the body (found by tests/fuzz/fuzz-dicomweb; regression
     * input in tests/data/regressions/). Fixed in libsoup 3.6 by "soup-multipart: Verify
     * boundary limits for multipart body" (commit aaf56a7e). Every part must lie inside the
     * body, or the whole body is refused as malformed. */
    for (int i = 0; mp != NULL && i < soup_multipart_get_length (mp); i++)
      {
        SoupMessageHeaders *ph;
        GBytes *pb;
        gsize part_len = 0;
        const char *part;

        if (!soup_multipart_get_part (mp, i, &ph, &pb))
          continue;
        part = g_bytes_get_data (pb, &part_len);
        /* its offset in the body (a part before the copy wraps to a huge one) */
        if (part_len > 0
            && (part_len > len || (guintptr) part - (guintptr) copy > len - part_len))
          g_clear_pointer (&mp, soup_multipart_free);
      }
  }
  if (mp == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE,
                   "malformed multipart body (%" G_GSIZE_FORMAT " bytes): boundary \"%s\" not "
                   "found or parts truncated", g_bytes_get_size (body), boundary);
      return NULL;
    }
  parts = g_ptr_array_new_with_free_func ((GDestroyNotify) lb_dicom_part_free);
  for (int i = 0; i < soup_multipart_get_length (mp); i++)
    {
      SoupMessageHeaders *ph = NULL;
      GBytes *pb = NULL;
      LbDicomPart *part;
      const char *ct, *loc;

      if (!soup_multipart_get_part (mp, i, &ph, &pb))
        continue;
      part = g_new0 (LbDicomPart, 1);
      ct = soup_message_headers_get_one (ph, "Content-Type");
      if (ct)
        part->content_type = split_type (ct, &part->transfer_syntax);
      if (part->content_type == NULL)
        part->content_type = g_strdup ("application/octet-stream");
      if (part->transfer_syntax == NULL)
        part->transfer_syntax = g_strdup (default_ts);
      loc = soup_message_headers_get_one (ph, "Content-Location");
      part->location = g_strdup (loc);
      part->body = g_bytes_ref (pb);
      g_ptr_array_add (parts, part);
    }
  soup_multipart_free (mp);
  if (parts->len == 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "multipart response has no parts");
      return NULL;
    }
  return g_steal_pointer (&parts);
}

GBytes *
lb_dicom_multipart_build (const char *type, GPtrArray *parts, char **out_content_type)
{
  g_autoptr(SoupMessageHeaders) dest = soup_message_headers_new (SOUP_MESSAGE_HEADERS_REQUEST);
  g_autoptr(GHashTable) params = NULL;
  g_autoptr(GHashTable) out_params = NULL;
  SoupMultipart *mp;
  GBytes *body = NULL;
  const char *ct;

  g_return_val_if_fail (type != NULL, NULL);
  g_return_val_if_fail (parts != NULL, NULL);
  g_return_val_if_fail (out_content_type != NULL, NULL);

  mp = soup_multipart_new ("multipart/related");
  for (guint i = 0; i < parts->len; i++)
    {
      g_autoptr(SoupMessageHeaders) ph = soup_message_headers_new (SOUP_MESSAGE_HEADERS_MULTIPART);

      soup_message_headers_replace (ph, "Content-Type", type);
      soup_multipart_append_part (mp, ph, parts->pdata[i]);
    }
  soup_multipart_to_message (mp, dest, &body);
  soup_multipart_free (mp);

  /* SoupMultipart writes "multipart/related; boundary=…"; STOW-RS also needs type=. */
  ct = soup_message_headers_get_content_type (dest, &params);
  out_params = g_hash_table_new (g_str_hash, g_str_equal);
  if (params)
    {
      GHashTableIter iter;
      gpointer k, v;

      g_hash_table_iter_init (&iter, params);
      while (g_hash_table_iter_next (&iter, &k, &v))
        g_hash_table_insert (out_params, k, v);
    }
  g_hash_table_insert (out_params, (gpointer) "type", (gpointer) type);
  soup_message_headers_set_content_type (dest, ct, out_params);
  *out_content_type = g_strdup (soup_message_headers_get_one (dest, "Content-Type"));
  return body;
}
