/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicomweb-store"

#include "lb-dicomweb-store-private.h"

#include <string.h>

#include "lb-dicom-frame.h"
#include "lb-dicom-tags.h"
#include "lb-dicom-multipart.h"
#include "lb-error.h"
#include "lb-http.h"
#include "lb-png.h"

/* Frames are first asked for as stored ("*"): uncompressed ones then need no transcoding (which
 * costs the server time, and Orthanc's GDCM plugin has been seen to crash doing it for implicit
 * VR files). Compressed ones are asked for again as Explicit VR Little Endian, which servers
 * that can transcode (Orthanc with GDCM: JPEG 2000, JPEG-LS, …) deliver. */
#define ACCEPT_FRAME_AS_STORED \
  "multipart/related; type=\"application/octet-stream\"; transfer-syntax=*"
#define ACCEPT_FRAME \
  "multipart/related; type=\"application/octet-stream\"; transfer-syntax=" LB_DICOM_TS_EXPLICIT_LE

/* The metadata of one instance is a few KiB to a few MiB (an enhanced multi-frame object lists
 * every frame's functional groups; bulk data comes by BulkDataURI). 16 MiB is ample. */
#define MAX_METADATA_BYTES (G_GUINT64_CONSTANT (16) << 20)

/* ---- metadata ---------------------------------------------------------------------------- */

static void
on_metadata (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  const char *uri = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GBytes) body = lb_http_request_finish (NULL, result, &msg, &error);
  g_autoptr(GPtrArray) arr = NULL;

  if (body == NULL || !lb_http_check_status (msg, &error))
    {
      lb_store_task_fail (task, error);
      return;
    }
  arr = lb_dicom_json_parse_array (g_bytes_get_data (body, NULL), g_bytes_get_size (body),
                                   &error);
  if (arr != NULL && arr->len != 1)
    error = g_error_new (LB_ERROR, LB_ERROR_PARSE, "expected one data set, got %u", arr->len);
  if (error != NULL)
    {
      g_prefix_error (&error, "%s/metadata: ", uri);
      lb_store_task_fail (task, error);
      return;
    }
  g_task_return_pointer (task, lb_dicom_dataset_ref (arr->pdata[0]),
                         (GDestroyNotify) lb_dicom_dataset_unref);
  g_object_unref (task);
}

void
lb_dicomweb_metadata_async (LbDicomwebStore *self, const LbDicomwebLoc *loc,
                            GCancellable *cancellable, GAsyncReadyCallback callback,
                            gpointer user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  g_autofree char *url = lb_dicomweb_instance_url (self, loc);
  g_autofree char *md_url = g_strconcat (url, "/metadata", NULL);

  g_task_set_source_tag (task, lb_dicomweb_metadata_async);
  g_task_set_task_data (task, g_strdup (loc->uri), g_free);
  lb_dicomweb_request_async (self, "GET", md_url, LB_MEDIA_DICOM_JSON, NULL, NULL,
                             MIN (lb_dicomweb_max_json_bytes (self), MAX_METADATA_BYTES),
                             cancellable, NULL, NULL, on_metadata, task);
}

LbDicomDataset *
lb_dicomweb_metadata_finish (GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- fetch image -------------------------------------------------------------------------- */

typedef struct {
  LbDicomwebLoc          loc;
  LbLimits               limits;
  LbDicomDataset        *metadata;
  LbImage               *image;
  GFileProgressCallback  progress;
  gpointer               progress_data;
  gboolean               asked_uncompressed;  /* the second request, with an explicit syntax */
  guint64                frame_cap;  /* bytes: the most a frame's response may have */
} FetchData;

static void
fetch_data_free (FetchData *d)
{
  lb_dicomweb_loc_clear (&d->loc);
  g_clear_pointer (&d->metadata, lb_dicom_dataset_unref);
  g_clear_object (&d->image);
  g_free (d);
}

static void
fetch_fail (GTask *task, GError *error)
{
  FetchData *d = g_task_get_task_data (task);

  if (error->domain == LB_ERROR && strstr (error->message, d->loc.uri) == NULL
      && strstr (error->message, "http") == NULL)
    g_prefix_error (&error, "%s: ", d->loc.uri);
  lb_store_task_fail (task, error);
}

static void request_frame (GTask *task, const char *accept);

static gboolean
is_uncompressed (const char *ts)
{
  return ts == NULL || strcmp (ts, LB_DICOM_TS_EXPLICIT_LE) == 0
         || strcmp (ts, LB_DICOM_TS_IMPLICIT_LE) == 0 || strcmp (ts, LB_DICOM_TS_EXPLICIT_BE) == 0;
}

static void
on_frame (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  FetchData *d = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GBytes) body = lb_http_request_finish (NULL, result, &msg, &error);
  g_autoptr(GPtrArray) parts = NULL;
  const char *ct;
  LbDicomPart *part;
  guint status;

  if (body == NULL)
    {
      fetch_fail (task, error);
      return;
    }
  status = soup_message_get_status (msg);
  if (status < 200 || status >= 300)
    {
      /* 401/403/404 keep their meaning; anything else on a frame request we could not have
       * got wrong means the server cannot give us the pixels in the syntax asked for (Orthanc
       * without a transcoder for the stored syntax answers 4xx/5xx here). */
      if (status == 401 || status == 403 || status == 404 || status == 410 || status >= 502)
        {
          lb_http_check_status (msg, &error);
          fetch_fail (task, error);
        }
      else if (!d->asked_uncompressed)
        request_frame (task, ACCEPT_FRAME);
      else
        {
          g_autofree char *url = g_uri_to_string_partial (soup_message_get_uri (msg),
                                                          G_URI_HIDE_USERINFO);

          fetch_fail (task, g_error_new (LB_ERROR, LB_ERROR_UNSUPPORTED,
                                         "%s: the server cannot deliver this frame uncompressed "
                                         "(GET %s: %u %s); its transfer syntax is not one "
                                         "Lightbox decodes", d->loc.uri, url, status,
                                         soup_status_get_phrase (status)));
        }
      return;
    }
  ct = soup_message_headers_get_one (soup_message_get_response_headers (msg), "Content-Type");
  parts = lb_dicom_multipart_parse (ct, body, &error);
  if (parts == NULL)
    {
      g_prefix_error (&error, "%s/frames/1: ", d->loc.uri);
      fetch_fail (task, error);
      return;
    }
  part = parts->pdata[0];
  if (strcmp (part->content_type, "application/octet-stream") != 0
      || !is_uncompressed (part->transfer_syntax))
    {
      if (!d->asked_uncompressed)
        {
          request_frame (task, ACCEPT_FRAME);
          return;
        }
      fetch_fail (task, g_error_new (LB_ERROR, LB_ERROR_UNSUPPORTED,
                                     "%s: the server sent the frame as %s, transfer syntax %s "
                                     "(compressed); Lightbox decodes only uncompressed frames",
                                     d->loc.uri, part->content_type,
                                     part->transfer_syntax ? part->transfer_syntax : "unknown"));
      return;
    }
  d->image = lb_dicom_decode_frame (d->metadata, part->transfer_syntax, part->body, d->loc.uri,
                                    &d->limits, &error);
  if (d->image == NULL)
    {
      fetch_fail (task, error);
      return;
    }
  g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

static void
request_frame (GTask *task, const char *accept)
{
  LbDicomwebStore *self = g_task_get_source_object (task);
  FetchData *d = g_task_get_task_data (task);
  g_autofree char *url = lb_dicomweb_instance_url (self, &d->loc);
  g_autofree char *frame_url = g_strconcat (url, "/frames/1", NULL);
  d->asked_uncompressed = strcmp (accept, ACCEPT_FRAME) == 0;
  lb_dicomweb_request_async (self, "GET", frame_url, accept, NULL, NULL, d->frame_cap,
                             g_task_get_cancellable (task), d->progress, d->progress_data, on_frame,
                             task);
}

/* The most a frame's response may hold, from what the metadata says of its pixels: a frame
 * over the pixel limits is refused before it is asked for, and no server sends more than the
 * uncompressed frame, an eighth more (a compressed encoding that came out larger) and the
 * multipart framing. */
static gboolean
frame_cap (FetchData *d, GError **error)
{
  gint64 rows = 0, cols = 0, spp = 1, bits = 16;
  guint64 pixels, bytes;

  lb_dicom_dataset_get_int (d->metadata, LB_TAG_SAMPLES_PER_PIXEL, 0, &spp);
  lb_dicom_dataset_get_int (d->metadata, LB_TAG_BITS_ALLOCATED, 0, &bits);
  if (!lb_dicom_dataset_get_int (d->metadata, LB_TAG_ROWS, 0, &rows)
      || !lb_dicom_dataset_get_int (d->metadata, LB_TAG_COLUMNS, 0, &cols)
      || rows <= 0 || cols <= 0 || rows > G_MAXUINT16 || cols > G_MAXUINT16
      || spp < 1 || spp > 4 || bits < 1 || bits > 64)
    {
      /* the decoder names what is missing; the limit still holds */
      d->frame_cap = d->limits.max_bytes;
      return TRUE;
    }
  pixels = (guint64) rows * (guint64) cols;
  bytes = pixels * (guint64) spp * (((guint64) bits + 7) / 8);
  if (pixels > d->limits.max_pixels || bytes > d->limits.max_bytes)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_TOO_LARGE,
                   "%s: a frame of %" G_GINT64_FORMAT "×%" G_GINT64_FORMAT " pixels (%"
                   G_GUINT64_FORMAT " bytes) is over the limits (%" G_GUINT64_FORMAT " pixels, %"
                   G_GUINT64_FORMAT " bytes)", d->loc.uri, cols, rows, bytes,
                   d->limits.max_pixels, d->limits.max_bytes);
      return FALSE;
    }
  d->frame_cap = bytes + bytes / 8 + (1 << 20);
  return TRUE;
}

static void
on_fetch_metadata (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  FetchData *d = g_task_get_task_data (task);
  GError *error = NULL;

  d->metadata = lb_dicomweb_metadata_finish (result, &error);
  if (d->metadata == NULL || !frame_cap (d, &error))
    fetch_fail (task, error);
  else
    request_frame (task, ACCEPT_FRAME_AS_STORED);
}

static void
fetch_start (LbDicomwebStore *self, const char *uri, const LbLimits *limits,
             GFileProgressCallback progress, gpointer progress_data, GCancellable *cancellable,
             GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  FetchData *d = g_new0 (FetchData, 1);

  g_task_set_source_tag (task, fetch_start);
  d->limits = *(limits ? limits : lb_limits_get_default ());
  d->progress = progress;
  d->progress_data = progress_data;
  g_task_set_task_data (task, d, (GDestroyNotify) fetch_data_free);
  if (!lb_dicomweb_task_loc (task, uri, FALSE, &d->loc))
    return;
  if (d->loc.level != LB_DICOMWEB_INSTANCE)
    {
      lb_store_task_fail (task, g_error_new (LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                                             "%s is a container, not an image", uri));
      return;
    }
  lb_dicomweb_metadata_async (self, &d->loc, cancellable, on_fetch_metadata, task);
}

void
lb_dicomweb_store_fetch_image_async (LbDicomwebStore *self, const char *uri,
                                     const LbLimits *limits, GCancellable *cancellable,
                                     GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (LB_IS_DICOMWEB_STORE (self));
  g_return_if_fail (uri != NULL);
  fetch_start (self, uri, limits, NULL, NULL, cancellable, callback, user_data);
}

LbImage *
lb_dicomweb_store_fetch_image_finish (LbDicomwebStore *self, GAsyncResult *result,
                                      LbDicomDataset **out_metadata, GError **error)
{
  FetchData *d;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  if (!g_task_propagate_boolean (G_TASK (result), error))
    return NULL;
  d = g_task_get_task_data (G_TASK (result));
  if (out_metadata)
    *out_metadata = lb_dicom_dataset_ref (d->metadata);
  return g_object_ref (d->image);
}

/* ---- read --------------------------------------------------------------------------------- */

typedef struct {
  GInputStream *stream;
  LbStoreEntry *entry;
} ReadResult;

static void
read_result_free (ReadResult *r)
{
  g_clear_object (&r->stream);
  g_clear_object (&r->entry);
  g_free (r);
}

static void
on_read_fetched (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbDicomwebStore *self = LB_DICOMWEB_STORE (source);
  GError *error = NULL;
  g_autoptr(LbDicomDataset) md = NULL;
  g_autoptr(LbImage) img = lb_dicomweb_store_fetch_image_finish (self, result, &md, &error);
  g_autoptr(GBytes) png = NULL;
  const char *uri = g_task_get_task_data (task);
  FetchData *d = g_task_get_task_data (G_TASK (result));
  ReadResult *r;
  g_autofree char *label = NULL;

  if (img == NULL)
    {
      lb_store_task_fail (task, error);
      return;
    }
  /* PNG keeps 16-bit samples and the lightbox:* value mapping: nothing is lost on the way. */
  png = lb_png_save_to_bytes (img, &error);
  if (png == NULL)
    {
      g_prefix_error (&error, "%s: ", uri);
      lb_store_task_fail (task, error);
      return;
    }
  r = g_new0 (ReadResult, 1);
  r->stream = g_memory_input_stream_new_from_bytes (png);
  r->entry = lb_dicomweb_instance_entry (self, d->loc.study, d->loc.series, md);
  if (r->entry == NULL)
    r->entry = lb_store_entry_new (uri, d->loc.instance, LB_STORE_ENTRY_DICOM_INSTANCE);
  label = lb_dicomweb_label_instance (md);
  lb_store_entry_set_display_name (r->entry, label);
  lb_store_entry_set_size (r->entry, (gint64) g_bytes_get_size (png));
  lb_store_entry_set_content_type (r->entry, "image/png");
  g_task_return_pointer (task, r, (GDestroyNotify) read_result_free);
  g_object_unref (task);
}

static void
lb_dicomweb_read_async (LbStore *store, const char *uri, GCancellable *cancellable,
                        GFileProgressCallback progress, gpointer progress_data,
                        GAsyncReadyCallback callback, gpointer user_data)
{
  LbDicomwebStore *self = LB_DICOMWEB_STORE (store);
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, lb_dicomweb_read_async);
  g_task_set_task_data (task, g_strdup (uri ? uri : self->root_uri), g_free);
  fetch_start (self, uri ? uri : self->root_uri, NULL, progress, progress_data, cancellable,
               on_read_fetched, task);
}

static GInputStream *
lb_dicomweb_read_finish (LbStore *store, GAsyncResult *result, LbStoreEntry **out_entry,
                         GError **error)
{
  ReadResult *r = g_task_propagate_pointer (G_TASK (result), error);
  GInputStream *stream;

  if (r == NULL)
    return NULL;
  stream = g_steal_pointer (&r->stream);
  if (out_entry)
    *out_entry = g_steal_pointer (&r->entry);
  read_result_free (r);
  return stream;
}

void
lb_dicomweb_wado_iface_init (LbStoreInterface *iface)
{
  iface->read_async = lb_dicomweb_read_async;
  iface->read_finish = lb_dicomweb_read_finish;
}
