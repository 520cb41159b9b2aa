/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store-sync"

#include "lb-store-sync.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <glib/gstdio.h>

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

/* ---- download ----------------------------------------------------------------------------- */

/* Named temporaries of a download are ".NAME.lbget-XXXXXX" beside FILE: a later download of
 * the same FILE recognises those of a killed one by the pattern and their age. */
#define TEMP_TAG ".lbget-"
#define TEMP_RANDOM 6
/* A download writes at least every I/O timeout; a temporary untouched for this long (or four
 * timeouts, if longer) belongs to no download that still runs. */
#define STALE_AFTER_S (10 * 60)
/* Space a download of unknown length leaves free: a twentieth of the file system, at most
 * 64 MiB, so that an endless body cannot fill the disk. */
#define RESERVE_MAX (G_GUINT64_CONSTANT (64) << 20)

static GError *
file_error (const char *path, int saved_errno)
{
  return g_error_new (LB_ERROR, saved_errno == ENOSPC || saved_errno == EDQUOT ? LB_ERROR_TOO_LARGE
                                                                             : LB_ERROR_FAILED,
                      "%s: %s", path, g_strerror (saved_errno));
}

/* Removes ".BASE.lbget-XXXXXX" files in @dir that are ours and older than @stale_s seconds:
 * what downloads of the same file left when they were killed. */
static void
remove_stale_temps (const char *dir, const char *base, guint stale_s)
{
  g_autofree char *prefix = g_strconcat (".", base, TEMP_TAG, NULL);
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  gint64 now = g_get_real_time () / G_USEC_PER_SEC;
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = NULL;
      GStatBuf st;

      if (!g_str_has_prefix (name, prefix) || strlen (name) != strlen (prefix) + TEMP_RANDOM)
        continue;
      path = g_build_filename (dir, name, NULL);
      if (g_lstat (path, &st) == 0 && S_ISREG (st.st_mode) && st.st_uid == getuid ()
          && now - (gint64) st.st_mtime > (gint64) stale_s)
        {
          g_debug ("removing %s, left by a download that did not finish", path);
          g_unlink (path);
        }
    }
}

/* The bytes a download into @dir may write: @max_size (0: no cap of its own) and what the file
 * system offers, less its reserve. */
static guint64
download_budget (const char *dir, guint64 max_size, guint64 *out_reserve)
{
  struct statvfs fs;
  guint64 budget = max_size > 0 ? max_size : G_MAXUINT64;

  *out_reserve = 0;
  if (statvfs (dir, &fs) == 0)
    {
      guint64 avail = (guint64) fs.f_bavail * fs.f_frsize;
      guint64 total = (guint64) fs.f_blocks * fs.f_frsize;

      *out_reserve = MIN (total / 20, RESERVE_MAX);
      budget = MIN (budget, avail > *out_reserve ? avail - *out_reserve : 0);
    }
  return budget;
}

typedef struct {
  char *dir;
  char *path;
  char *named;     /* nullable: the temporary's name; NULL for an unnamed O_TMPFILE */
  int   fd;
} Temp;

/* An unnamed file in @dir (O_TMPFILE: nothing to leave behind if we are killed), or where the
 * file system has none, ".BASE.lbget-XXXXXX". */
static gboolean
temp_open (Temp *t, GError **error)
{
  g_autofree char *base = g_path_get_basename (t->path);

#ifdef O_TMPFILE
  /* naming it later needs /proc (temp_link()) */
  if (g_file_test ("/proc/self/fd", G_FILE_TEST_IS_DIR))
    {
      t->fd = open (t->dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
      if (t->fd >= 0)
        return TRUE;
      if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
        {
          g_propagate_error (error, file_error (t->path, errno));
          return FALSE;
        }
    }
#endif
  t->named = g_strdup_printf ("%s/.%s" TEMP_TAG "XXXXXX", t->dir, base);
  t->fd = g_mkstemp_full (t->named, O_WRONLY | O_CLOEXEC, 0644);
  if (t->fd < 0)
    {
      g_propagate_error (error, file_error (t->path, errno));
      g_clear_pointer (&t->named, g_free);
      return FALSE;
    }
  return TRUE;
}

/* Gives an O_TMPFILE file the name t->named, through /proc/self/fd (linkat() with
 * AT_EMPTY_PATH would need CAP_DAC_READ_SEARCH). */
static gboolean
temp_link (Temp *t, GError **error)
{
  g_autofree char *base = g_path_get_basename (t->path);
  g_autofree char *proc = g_strdup_printf ("/proc/self/fd/%d", t->fd);

  for (guint attempt = 0; attempt < 100; attempt++)
    {
      char random[TEMP_RANDOM + 1];

      for (guint i = 0; i < TEMP_RANDOM; i++)
        random[i] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"[g_random_int_range (0, 62)];
      random[TEMP_RANDOM] = '\0';
      g_free (t->named);
      t->named = g_strdup_printf ("%s/.%s" TEMP_TAG "%s", t->dir, base, random);
      if (linkat (AT_FDCWD, proc, AT_FDCWD, t->named, AT_SYMLINK_FOLLOW) == 0)
        return TRUE;
      if (errno != EEXIST)
        break;
    }
  g_propagate_error (error, file_error (t->path, errno));
  g_clear_pointer (&t->named, g_free);
  return FALSE;
}

/* Flushes the temporary to disk and puts it in place of t->path. */
static gboolean
temp_commit (Temp *t, GError **error)
{
  gboolean unnamed = t->named == NULL;

  if (fsync (t->fd) != 0)
    {
      g_propagate_error (error, file_error (t->path, errno));
      return FALSE;
    }
  if (unnamed && !temp_link (t, error))
    return FALSE;
  if (g_rename (t->named, t->path) != 0)
    {
      g_propagate_error (error, file_error (t->path, errno));
      return FALSE;
    }
  g_clear_pointer (&t->named, g_free);
  return TRUE;
}

static void
temp_clear (Temp *t)
{
  if (t->fd >= 0)
    close (t->fd);
  if (t->named != NULL)
    g_unlink (t->named);
  g_free (t->named);
  g_free (t->dir);
  g_free (t->path);
}

static gboolean
write_all (int fd, const guint8 *data, gsize len)
{
  while (len > 0)
    {
      gssize n = write (fd, data, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      data += n;
      len -= (gsize) n;
    }
  return TRUE;
}

static GError *
too_large (const char *uri, guint64 budget, guint64 max_size, guint64 reserve, const char *dir)
{
  if (max_size > 0 && budget == max_size)
    return g_error_new (LB_ERROR, LB_ERROR_TOO_LARGE,
                        "%s: larger than the %" G_GUINT64_FORMAT " bytes allowed (--max-size)",
                        uri, max_size);
  return g_error_new (LB_ERROR, LB_ERROR_TOO_LARGE,
                      "%s: larger than the %" G_GUINT64_FORMAT " bytes free in %s (keeping %"
                      G_GUINT64_FORMAT " bytes free)", uri, budget, dir, reserve);
}

LbStoreEntry *
lb_store_download_sync (const char *uri, const char *path, LbStoreOptions *options,
                        GCancellable *cancellable, GError **error)
{
  g_autofree char *full = as_uri (uri);
  g_autoptr(LbStore) store = lb_store_open_parent_sync (full, options, error);
  g_autoptr(LbStoreEntry) entry = NULL;
  g_autoptr(GInputStream) stream = NULL;
  g_autofree char *base = g_path_get_basename (path);
  guint64 max_size = options != NULL ? options->max_download_bytes : 0;
  guint timeout_s = options != NULL && options->timeout_s > 0 ? options->timeout_s
                                                              : LB_STORE_DEFAULT_TIMEOUT_S;
  Temp t = { g_path_get_dirname (path), g_strdup (path), NULL, -1 };
  guint64 budget, reserve;
  GError *local = NULL;
  gint64 total = 0;

  if (store == NULL)
    goto out;
  remove_stale_temps (t.dir, base, MAX (STALE_AFTER_S, 4 * timeout_s));
  budget = download_budget (t.dir, max_size, &reserve);
  stream = read_sync (store, full, &entry, cancellable, &local);
  if (stream == NULL)
    goto out;
  if (lb_store_entry_get_size (entry) > 0 && (guint64) lb_store_entry_get_size (entry) > budget)
    {
      local = too_large (full, budget, max_size, reserve, t.dir);
      goto out;
    }
  /* a temporary beside the target, put in its place only when complete */
  if (!temp_open (&t, &local))
    goto out;
  for (;;)
    {
      g_autoptr(GBytes) chunk = read_chunk (stream, cancellable, &local);
      gsize len;
      const guint8 *data;

      if (chunk == NULL)
        break;
      data = g_bytes_get_data (chunk, &len);
      if ((guint64) total + len > budget)
        {
          local = too_large (full, budget, max_size, reserve, t.dir);
          break;
        }
      if (!write_all (t.fd, data, len))
        {
          local = file_error (path, errno);
          break;
        }
      total += len;
    }
  if (local == NULL)
    temp_commit (&t, &local);

out:
  temp_clear (&t);
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return NULL;
    }
  if (lb_store_entry_get_size (entry) < 0)
    lb_store_entry_set_size (entry, total);
  return g_steal_pointer (&entry);
}

/* Bytes after a PNG's IEND read before the rest of the body is left unread. */
#define TRAILING_MAX (64 * 1024)

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
  guint64 cap = (limits != NULL ? limits : lb_limits_get_default ())->max_bytes;
  guint64 received = 0;
  gsize trailing = 0;

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

  /* The body is at most what the byte limit allows an image: a file can hold no more pixels
   * (GdkPixbuf formats are gathered whole, a PNG is fed as it comes), and a body that says it
   * is larger is refused before a byte is read. */
  if (lb_store_entry_get_size (entry) > 0 && (guint64) lb_store_entry_get_size (entry) > cap)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_TOO_LARGE,
                   "%s: %" G_GINT64_FORMAT " bytes, larger than the limit of %" G_GUINT64_FORMAT
                   " bytes", full, lb_store_entry_get_size (entry), cap);
      return NULL;
    }
  /* PNG is decoded while it arrives; anything else is collected for GdkPixbuf */
  for (;;)
    {
      g_autoptr(GBytes) chunk = NULL;
      const guint8 *data;
      gsize len;

      /* past IEND a PNG is complete (every chunk CRC-checked): the end of the body is read if it
       * comes soon (the connection is kept), an endless one is left there */
      if (decoder != NULL && lb_png_decoder_is_complete (decoder) && trailing > TRAILING_MAX)
        break;
      chunk = read_chunk (stream, cancellable, &local);
      if (chunk == NULL)
        break;
      data = g_bytes_get_data (chunk, &len);
      if (decoder != NULL && lb_png_decoder_is_complete (decoder))
        {
          trailing += len;
          continue;
        }
      if (received + len > cap)
        {
          local = g_error_new (LB_ERROR, LB_ERROR_TOO_LARGE,
                               "%s: larger than the limit of %" G_GUINT64_FORMAT " bytes",
                               full, cap);
          break;
        }
      received += len;
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
