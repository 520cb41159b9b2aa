/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store-sync"

#include "lb-store-sync.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <string.h>

#include "lb-error.h"
#include "lb-image-loader.h"
#include "lb-png.h"

/* Runs the thread-default main context until an async call delivered its result. */
static void
store_result (GObject *source, GAsyncResult *result, gpointer user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static GAsyncResult *
wait_for (GAsyncResult **slot)
{
  GMainContext *context = g_main_context_ref_thread_default ();

  while (*slot == NULL)
    g_main_context_iteration (context, TRUE);
  g_main_context_unref (context);
  return *slot;
}

LbStore *
lb_store_open_parent_sync (const char *uri, LbStoreOptions *options, GError **error)
{
  g_autofree char *scheme = g_uri_parse_scheme (uri);
  g_autofree char *parent = NULL;

  if (scheme == NULL)
    {
      g_autoptr(GFile) file = g_file_new_for_commandline_arg (uri);
      g_autoptr(GFile) dir = g_file_get_parent (file);
      g_autofree char *dir_uri = NULL;

      if (dir == NULL)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, "%s has no parent folder", uri);
          return NULL;
        }
      dir_uri = g_file_get_uri (dir);
      return lb_store_new_for_uri (dir_uri, options, error);
    }
  parent = lb_store_uri_parent (uri);
  if (parent == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, "%s names no file", uri);
      return NULL;
    }
  return lb_store_new_for_uri (parent, options, error);
}

/* A local path given to a store helper becomes a file:// URI (stores take URIs). */
static char *
as_uri (const char *uri)
{
  g_autofree char *scheme = g_uri_parse_scheme (uri);
  g_autoptr(GFile) file = NULL;

  if (scheme != NULL)
    return g_strdup (uri);
  file = g_file_new_for_commandline_arg (uri);
  return g_file_get_uri (file);
}

GPtrArray *
lb_store_list_sync (LbStore *store, const char *uri, GCancellable *cancellable, GError **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  lb_store_list_async (store, uri, cancellable, NULL, NULL, store_result, &result);
  return lb_store_list_finish (store, wait_for (&result), error);
}

LbStoreEntry *
lb_store_stat_sync (LbStore *store, const char *uri, GCancellable *cancellable, GError **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  lb_store_stat_async (store, uri, cancellable, store_result, &result);
  return lb_store_stat_finish (store, wait_for (&result), error);
}

static GInputStream *
read_sync (LbStore *store, const char *uri, LbStoreEntry **out_entry, GCancellable *cancellable,
           GError **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  lb_store_read_async (store, uri, cancellable, NULL, NULL, store_result, &result);
  return lb_store_read_finish (store, wait_for (&result), out_entry, error);
}

/* NULL at the end of the stream (and *error unset), or on error. Reads asynchronously so
 * that libsoup streams are driven by their own main context. */
static GBytes *
read_chunk (GInputStream *stream, GCancellable *cancellable, GError **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  GBytes *chunk;

  g_input_stream_read_bytes_async (stream, 64 * 1024, G_PRIORITY_DEFAULT, cancellable,
                                   store_result, &result);
  chunk = g_input_stream_read_bytes_finish (stream, wait_for (&result), error);
  if (chunk != NULL && g_bytes_get_size (chunk) == 0)
    {
      g_bytes_unref (chunk);
      return NULL;
    }
  return chunk;
}

LbStoreEntry *
lb_store_download_sync (const char *uri, const char *path, LbStoreOptions *options,
                        GCancellable *cancellable, GError **error)
{
  g_autofree char *full = as_uri (uri);
  g_autoptr(LbStore) store = lb_store_open_parent_sync (full, options, error);
  g_autoptr(LbStoreEntry) entry = NULL;
  g_autoptr(GInputStream) stream = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;
  g_autofree char *tmp_path = NULL;
  GError *local = NULL;
  gint64 total = 0;
  int fd;
  FILE *out;

  if (store == NULL)
    return NULL;
  stream = read_sync (store, full, &entry, cancellable, error);
  if (stream == NULL)
    return NULL;

  /* temporary file next to the target, renamed over it only when complete */
  dir = g_path_get_dirname (path);
  base = g_path_get_basename (path);
  tmp_path = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  fd = g_mkstemp_full (tmp_path, O_WRONLY, 0644);
  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, LB_ERROR, LB_ERROR_FAILED, "%s: %s", path, g_strerror (saved));
      return NULL;
    }
  out = fdopen (fd, "wb");
  for (;;)
    {
      g_autoptr(GBytes) chunk = read_chunk (stream, cancellable, &local);
      gsize len;
      const guint8 *data;

      if (chunk == NULL)
        break;
      data = g_bytes_get_data (chunk, &len);
      if (fwrite (data, 1, len, out) != len)
        {
          int saved = errno;
          local = g_error_new (LB_ERROR, LB_ERROR_FAILED, "%s: %s", path, g_strerror (saved));
          break;
        }
      total += len;
    }
  if (local == NULL && (fflush (out) != 0 || fsync (fileno (out)) != 0))
    {
      int saved = errno;
      local = g_error_new (LB_ERROR, LB_ERROR_FAILED, "%s: %s", path, g_strerror (saved));
    }
  if (fclose (out) != 0 && local == NULL)
    {
      int saved = errno;
      local = g_error_new (LB_ERROR, LB_ERROR_FAILED, "%s: %s", path, g_strerror (saved));
    }
  if (local == NULL && g_rename (tmp_path, path) != 0)
    {
      int saved = errno;
      local = g_error_new (LB_ERROR, LB_ERROR_FAILED, "%s: %s", path, g_strerror (saved));
    }
  if (local != NULL)
    {
      g_unlink (tmp_path);
      g_propagate_error (error, local);
      return NULL;
    }
  if (lb_store_entry_get_size (entry) < 0)
    lb_store_entry_set_size (entry, total);
  return g_steal_pointer (&entry);
}

static gboolean
content_type_is_image_or_unknown (const char *content_type)
{
  /* application/dicom: a Part 10 file, decoded by the DICOM layer's image loader */
  return content_type == NULL || g_ascii_strncasecmp (content_type, "image/", 6) == 0
         || g_ascii_strcasecmp (content_type, "application/dicom") == 0
         || g_ascii_strcasecmp (content_type, "application/octet-stream") == 0
         || g_ascii_strcasecmp (content_type, "binary/octet-stream") == 0;
}

LbImage *
lb_store_fetch_image_sync (const char *uri, LbStoreOptions *options, const LbLimits *limits,
                           LbStoreEntry **out_entry, GCancellable *cancellable, GError **error)
{
  g_autofree char *full = as_uri (uri);
  g_autoptr(LbStore) store = lb_store_open_parent_sync (full, options, error);
  g_autoptr(LbStoreEntry) entry = NULL;
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(LbPngDecoder) decoder = NULL;
  g_autoptr(GByteArray) other = NULL;
  g_autoptr(LbImage) image = NULL;
  g_autoptr(LbImageMeta) meta = NULL;
  GError *local = NULL;
  gboolean first = TRUE;

  if (out_entry != NULL)
    *out_entry = NULL;
  if (store == NULL)
    return NULL;
  stream = read_sync (store, full, &entry, cancellable, error);
  if (stream == NULL)
    return NULL;
  if (!content_type_is_image_or_unknown (lb_store_entry_get_content_type (entry)))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED, "%s: not an image (Content-Type %s)",
                   full, lb_store_entry_get_content_type (entry));
      return NULL;
    }

  /* PNG is decoded while it arrives; anything else is collected for GdkPixbuf */
  for (;;)
    {
      g_autoptr(GBytes) chunk = read_chunk (stream, cancellable, &local);
      const guint8 *data;
      gsize len;

      if (chunk == NULL)
        break;
      data = g_bytes_get_data (chunk, &len);
      if (first)
        {
          first = FALSE;
          if (lb_png_sniff (data, len))
            decoder = lb_png_decoder_new (full, limits);
          else
            other = g_byte_array_new ();
        }
      if (decoder != NULL)
        {
          if (!lb_png_decoder_feed (decoder, data, len, &local))
            break;
        }
      else
        g_byte_array_append (other, data, len);
    }
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return NULL;
    }
  if (decoder != NULL)
    image = lb_png_decoder_finish (decoder, error);
  else if (other == NULL || other->len == 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED, "%s: empty body, not an image", full);
      return NULL;
    }
  else
    {
      g_autoptr(GBytes) bytes = g_byte_array_free_to_bytes (g_steal_pointer (&other));
      image = lb_image_load_bytes (bytes, full, limits, error);
    }
  if (image == NULL)
    return NULL;

  meta = lb_image_dup_meta (image);
  lb_image_meta_set_source_uri (meta, lb_store_entry_get_uri (entry));
  lb_image_meta_set_source_etag (meta, lb_store_entry_get_etag (entry));
  if (out_entry != NULL)
    *out_entry = g_steal_pointer (&entry);
  return lb_image_with_meta (image, meta);
}

LbWriteBackResult *
lb_store_put_bytes_sync (const char *uri, GBytes *bytes, const char *content_type,
                         gboolean overwrite, LbStoreOptions *options, GCancellable *cancellable,
                         GError **error)
{
  g_autofree char *full = as_uri (uri);
  g_autoptr(LbStore) store = lb_store_open_parent_sync (full, options, error);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(LbStoreEntry) current = NULL;
  LbStoreWriteMode mode = LB_STORE_WRITE_CREATE;
  const char *etag = NULL;

  if (store == NULL)
    return NULL;
  if (overwrite)
    {
      GError *local = NULL;

      current = lb_store_stat_sync (store, full, cancellable, &local);
      if (current != NULL)
        {
          mode = LB_STORE_WRITE_IF_MATCH;
          etag = lb_store_entry_get_etag (current);
          if (etag == NULL)
            {
              g_set_error (error, LB_ERROR, LB_ERROR_CONFLICT,
                           "%s: the server gives no ETag, so it cannot be overwritten safely", full);
              return NULL;
            }
        }
      else if (g_error_matches (local, LB_ERROR, LB_ERROR_NOT_FOUND))
        g_clear_error (&local); /* nothing to overwrite: create it */
      else
        {
          g_propagate_error (error, local);
          return NULL;
        }
    }
  lb_store_put_bytes_safely_async (store, full, bytes, content_type, mode, etag, cancellable,
                                   NULL, NULL, store_result, &result);
  return lb_store_put_bytes_safely_finish (store, wait_for (&result), error);
}

LbWriteBackResult *
lb_store_put_image_sync (LbImage *image, const char *uri, const LbWriteBackOptions *provenance,
                         gboolean overwrite, LbStoreOptions *options, GCancellable *cancellable,
                         GError **error)
{
  const LbImageMeta *source = lb_image_get_meta (image);
  g_autoptr(LbImageMeta) meta =
    lb_write_back_add_provenance (image, lb_image_meta_get_source_uri (source),
                                  lb_image_meta_get_source_etag (source), provenance);
  g_autoptr(LbImage) tagged = lb_image_with_meta (image, meta);
  g_autoptr(GBytes) png = lb_png_save_to_bytes (tagged, error);

  if (png == NULL)
    return NULL;
  return lb_store_put_bytes_sync (uri, png, "image/png", overwrite, options, cancellable, error);
}
