/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicomweb-store"

#include "lb-dicomweb-store-private.h"

#include <string.h>

#include "lb-dicom-codec.h"
#include "lb-dicom-frame.h"
#include "lb-dicom-tags.h"
#include "lb-dicom-multipart.h"
#include "lb-dicom-multiframe.h"
#include "lb-error.h"
#include "lb-http.h"
#include "lb-png.h"

/* Frames are asked for as stored ("*", PS3.18 §8.7.3.5): uncompressed ones need no
 * transcoding, and compressed ones (JPEG, JPEG-LS, JPEG 2000, RLE) are decoded here
 * (lb-dicom-codec.h), as OHIF and Weasis do. Servers transcode slowly and not always safely
 * (Orthanc 1.10's GDCM plugin has crashed decoding JPEG 2000 for it). Only a syntax Lightbox
 * has no codec for is asked for again as Explicit VR Little Endian. Orthanc answers the first
 * request with the stored bytes as image/jpeg, image/jls, image/jp2 or image/dicom-rle parts,
 * each with its transfer-syntax parameter. */
#define ACCEPT_FRAME_AS_STORED \
  "multipart/related; type=\"application/octet-stream\"; transfer-syntax=*"
#define ACCEPT_FRAME \
  "multipart/related; type=\"application/octet-stream\"; transfer-syntax=" LB_DICOM_TS_EXPLICIT_LE
/* The Pixel Data element's bulk data (PS3.18 §8.6): the last resort for an uncompressed frame
 * the server will not cut out (Orthanc 1.10 answers 400 for YBR_FULL_422 frames). */
#define ACCEPT_BULK "multipart/related; type=\"application/octet-stream\""

/* LUT Data (0028,3006) of a VOI or Modality LUT Sequence item holds at most 65536 entries of
 * 16 bits (PS3.3 C.11.1.1.1, C.11.2.1.1.1); its bulk data response may add the multipart
 * framing. Anything larger is not a LUT. */
#define MAX_LUT_BULK_BYTES (G_GUINT64_CONSTANT (65536) * 2 + (64 << 10))

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

/* ---- a series' metadata ------------------------------------------------------------------ */

/* What the series' metadata request gives: every instance's data set and its entry URI. */
typedef struct {
  LbDicomwebLoc loc;
  GBytes       *body;
  GPtrArray    *datasets;  /* LbDicomDataset* */
  GPtrArray    *uris;      /* char*, one per data set */
} SeriesMetadata;

static void
series_metadata_free (SeriesMetadata *m)
{
  lb_dicomweb_loc_clear (&m->loc);
  g_clear_pointer (&m->body, g_bytes_unref);
  g_clear_pointer (&m->datasets, g_ptr_array_unref);
  g_clear_pointer (&m->uris, g_ptr_array_unref);
  g_free (m);
}

/* Parses the answer on a worker thread: a 1000-slice series' metadata is a few MB of JSON. */
static void
parse_series_metadata (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  LbDicomwebStore *self = source;
  SeriesMetadata *m = data;
  GError *error = NULL;
  g_autoptr(GPtrArray) arr = lb_dicom_json_parse_array (g_bytes_get_data (m->body, NULL),
                                                        g_bytes_get_size (m->body), &error);

  if (arr == NULL)
    {
      g_prefix_error (&error, "%smetadata: ", m->loc.uri);
      g_task_return_error (task, error);
      return;
    }
  m->datasets = g_ptr_array_new_with_free_func ((GDestroyNotify) lb_dicom_dataset_unref);
  m->uris = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < arr->len; i++)
    {
      LbDicomDataset *ds = arr->pdata[i];
      const char *sop = lb_dicom_dataset_get_string (ds, LB_TAG_SOP_INSTANCE_UID, 0);

      /* an instance without its UID cannot be asked for its frames */
      if (sop == NULL || *sop == '\0')
        continue;
      g_ptr_array_add (m->datasets, lb_dicom_dataset_ref (ds));
      g_ptr_array_add (m->uris, lb_dicomweb_instance_uri (self, m->loc.study, m->loc.series, sop));
    }
  g_task_return_boolean (task, TRUE);
}

static void
on_series_metadata (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GError *error = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GBytes) body = lb_http_request_finish (NULL, result, &msg, &error);
  SeriesMetadata *m = g_task_get_task_data (task);

  if (body == NULL || !lb_http_check_status (msg, &error))
    {
      lb_store_task_fail (task, error);
      return;
    }
  m->body = g_steal_pointer (&body);
  g_task_run_in_thread (task, parse_series_metadata);
  g_object_unref (task);
}

void
lb_dicomweb_store_series_metadata_async (LbDicomwebStore *self, const char *uri,
                                         GCancellable *cancellable,
                                         GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task;
  SeriesMetadata *m = g_new0 (SeriesMetadata, 1);
  g_autofree char *st = NULL, *se = NULL, *url = NULL;

  g_return_if_fail (LB_IS_DICOMWEB_STORE (self));
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, lb_dicomweb_store_series_metadata_async);
  g_task_set_task_data (task, m, (GDestroyNotify) series_metadata_free);
  if (!lb_dicomweb_task_loc (task, uri, FALSE, &m->loc))
    return;
  if (m->loc.level != LB_DICOMWEB_SERIES)
    {
      lb_store_task_fail (task, g_error_new (LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                                             "%s is not a series", uri));
      return;
    }
  st = lb_dicomweb_escape (m->loc.study);
  se = lb_dicomweb_escape (m->loc.series);
  /* WADO-RS series metadata (PS3.18 §10.4.1.1.2): every instance's data set in one answer */
  url = g_strdup_printf ("%s/studies/%s/series/%s/metadata", self->base_url, st, se);
  lb_dicomweb_request_async (self, "GET", url, LB_MEDIA_DICOM_JSON, NULL, NULL,
                             lb_dicomweb_max_json_bytes (self), cancellable, NULL, NULL,
                             on_series_metadata, task);
}

GPtrArray *
lb_dicomweb_store_series_metadata_finish (LbDicomwebStore *self, GAsyncResult *result,
                                          GPtrArray **out_uris, GError **error)
{
  SeriesMetadata *m;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  if (!g_task_propagate_boolean (G_TASK (result), error))
    return NULL;
  m = g_task_get_task_data (G_TASK (result));
  if (out_uris)
    *out_uris = g_ptr_array_ref (m->uris);
  return g_ptr_array_ref (m->datasets);
}

/* ---- one instance's metadata ------------------------------------------------------------ */

static void
on_instance_metadata (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GError *error = NULL;
  LbDicomDataset *ds = lb_dicomweb_metadata_finish (result, &error);

  if (ds == NULL)
    {
      lb_store_task_fail (task, error);
      return;
    }
  g_task_return_pointer (task, ds, (GDestroyNotify) lb_dicom_dataset_unref);
  g_object_unref (task);
}

void
lb_dicomweb_store_fetch_metadata_async (LbDicomwebStore *self, const char *uri,
                                        GCancellable *cancellable, GAsyncReadyCallback callback,
                                        gpointer user_data)
{
  GTask *task;
  LbDicomwebLoc loc = { 0 };

  g_return_if_fail (LB_IS_DICOMWEB_STORE (self));
  g_return_if_fail (uri != NULL);
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, lb_dicomweb_store_fetch_metadata_async);
  if (!lb_dicomweb_task_loc (task, uri, FALSE, &loc))
    return;
  if (loc.level != LB_DICOMWEB_INSTANCE)
    lb_store_task_fail (task, g_error_new (LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                                           "%s is a container, not an instance", uri));
  else
    lb_dicomweb_metadata_async (self, &loc, cancellable, on_instance_metadata, task);
  lb_dicomweb_loc_clear (&loc);
}

LbDicomDataset *
lb_dicomweb_store_fetch_metadata_finish (LbDicomwebStore *self, GAsyncResult *result,
                                         GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- fetch image -------------------------------------------------------------------------- */

typedef enum {
  FETCH_AS_STORED,     /* frames/N, transfer-syntax=* */
  FETCH_UNCOMPRESSED,  /* frames/N again, as Explicit VR Little Endian */
  FETCH_BULK,          /* the Pixel Data's BulkDataURI */
} FetchStage;

typedef struct {
  LbDicomwebLoc          loc;
  LbLimits               limits;
  LbDicomDataset        *metadata;
  LbImage               *image;
  GFileProgressCallback  progress;
  gpointer               progress_data;
  FetchStage             stage;
  guint64                frame_cap;  /* bytes: the most a frame's response may have */
  GPtrArray             *bulk_luts;  /* LbDicomDataset* (not owned: items of @metadata) whose
                                      * LUT Data is still a BulkDataURI */
  guint                  next_lut;   /* index into @bulk_luts of the one being fetched */
  GBytes                *part_body;  /* the frame's part, decoded on a worker thread */
  char                  *part_ts;    /* its transfer syntax */
} FetchData;

static void
fetch_data_free (FetchData *d)
{
  lb_dicomweb_loc_clear (&d->loc);
  g_clear_pointer (&d->bulk_luts, g_ptr_array_unref);
  g_clear_pointer (&d->metadata, lb_dicom_dataset_unref);
  g_clear_pointer (&d->part_body, g_bytes_unref);
  g_free (d->part_ts);
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

static void request_frame (GTask *task, FetchStage stage);

static gboolean
is_uncompressed (const char *ts)
{
  return ts == NULL || strcmp (ts, LB_DICOM_TS_EXPLICIT_LE) == 0
         || strcmp (ts, LB_DICOM_TS_IMPLICIT_LE) == 0 || strcmp (ts, LB_DICOM_TS_EXPLICIT_BE) == 0;
}

/* A part without a transfer-syntax parameter has its media type's default (PS3.18 Table
 * 8.7.3-5); application/octet-stream is Explicit VR Little Endian. */
static const char *
part_transfer_syntax (const LbDicomPart *part)
{
  static const struct { const char *type, *ts; } defaults[] = {
    { "image/jpeg", LB_DICOM_TS_JPEG_LOSSLESS_SV1 },
    { "image/jls", LB_DICOM_TS_JPEG_LS_LOSSLESS },
    { "image/jp2", LB_DICOM_TS_J2K_LOSSLESS },
    { "image/dicom-rle", LB_DICOM_TS_RLE },
  };

  if (part->transfer_syntax != NULL)
    return part->transfer_syntax;
  for (guint i = 0; i < G_N_ELEMENTS (defaults); i++)
    if (strcmp (part->content_type, defaults[i].type) == 0)
      return defaults[i].ts;
  return strcmp (part->content_type, "application/octet-stream") == 0 ? LB_DICOM_TS_EXPLICIT_LE
                                                                       : NULL;
}

/* @uri when it is on the server itself (never one that sends the store's credentials
 * elsewhere), else NULL. */
static const char *
own_bulk_uri (LbDicomwebStore *self, const char *uri)
{
  if (uri == NULL || !g_str_has_prefix (uri, self->base_url)
      || uri[strlen (self->base_url)] != '/')
    return NULL;
  return uri;
}

/* The bulk data URI of the Pixel Data, when the server gave one on itself. */
static const char *
pixel_bulk_uri (LbDicomwebStore *self, FetchData *d)
{
  return own_bulk_uri (self, lb_dicom_dataset_get_bulk_data_uri (d->metadata, LB_TAG_PIXEL_DATA));
}

/* Decodes d->part_body (transfer syntax d->part_ts) on a worker thread: a 512×512 frame takes
 * 1-2 ms, which the main context, serving a series' parallel transfers, does not spend. */
static void
decode_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  FetchData *d = data;
  GError *error = NULL;
  guint number = MAX (d->loc.frame, 1);
  g_autoptr(GBytes) body = g_bytes_ref (d->part_body);

  if (d->stage == FETCH_BULK && number > 1)
    {
      /* the bulk data holds the frames one after the other, each of the same size (PS3.5
       * §8.1.1; a pad byte at the end of an odd total) */
      gsize each = g_bytes_get_size (d->part_body) / lb_dicom_get_n_frames (d->metadata);

      g_clear_pointer (&body, g_bytes_unref);
      body = g_bytes_new_from_bytes (d->part_body, (gsize) (number - 1) * each, each);
    }
  d->image = lb_dicom_decode_frame_number (d->metadata, d->part_ts, body, number, d->loc.uri,
                                           &d->limits, &error);
  if (d->image == NULL)
    {
      if (error->domain == LB_ERROR && strstr (error->message, d->loc.uri) == NULL)
        g_prefix_error (&error, "%s: ", d->loc.uri);
      g_task_return_error (task, error);
      return;
    }
  g_task_return_boolean (task, TRUE);
}

static void
decode_part (GTask *task, const LbDicomPart *part, const char *ts)
{
  FetchData *d = g_task_get_task_data (task);

  d->part_body = g_bytes_ref (part->body);
  d->part_ts = g_strdup (ts);
  g_task_run_in_thread (task, decode_thread);
  g_object_unref (task);
}

static void
on_frame (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbDicomwebStore *self = g_task_get_source_object (task);
  FetchData *d = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GBytes) body = lb_http_request_finish (NULL, result, &msg, &error);
  g_autoptr(GPtrArray) parts = NULL;
  const char *ct, *ts;
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
      g_autofree char *url = g_uri_to_string_partial (soup_message_get_uri (msg),
                                                      G_URI_HIDE_USERINFO);

      /* 401/403/404 keep their meaning; anything else on a frame request we could not have
       * got wrong means the server cannot give us the pixels that way (Orthanc answers 4xx/5xx
       * when it cannot transcode the stored syntax, or cut out a YBR_FULL_422 frame). */
      if (status == 401 || status == 403 || status == 404 || status == 410 || status >= 502)
        {
          lb_http_check_status (msg, &error);
          fetch_fail (task, error);
        }
      else if (d->stage == FETCH_AS_STORED)
        request_frame (task, FETCH_UNCOMPRESSED);
      else if (d->stage == FETCH_UNCOMPRESSED && pixel_bulk_uri (self, d) != NULL)
        request_frame (task, FETCH_BULK);
      else
        fetch_fail (task, g_error_new (LB_ERROR, LB_ERROR_UNSUPPORTED,
                                       "%s: the server does not deliver the pixels of this "
                                       "instance (GET %s: %u %s)", d->loc.uri, url, status,
                                       soup_status_get_phrase (status)));
      return;
    }
  ct = soup_message_headers_get_one (soup_message_get_response_headers (msg), "Content-Type");
  parts = lb_dicom_multipart_parse (ct, body, &error);
  if (parts == NULL)
    {
      g_prefix_error (&error, "%s, frame %u: ", d->loc.uri, MAX (d->loc.frame, 1));
      fetch_fail (task, error);
      return;
    }
  part = parts->pdata[0];
  if (d->stage == FETCH_BULK)
    {
      /* the whole Pixel Data value, little endian: decode_part() cuts out the frame */
      decode_part (task, part, LB_DICOM_TS_EXPLICIT_LE);
      return;
    }
  ts = part_transfer_syntax (part);
  if (ts != NULL && (is_uncompressed (ts) || lb_dicom_codec_supports (ts)))
    {
      decode_part (task, part, ts);
      return;
    }
  if (d->stage == FETCH_AS_STORED)
    {
      request_frame (task, FETCH_UNCOMPRESSED);
      return;
    }
  fetch_fail (task, g_error_new (LB_ERROR, LB_ERROR_UNSUPPORTED,
                                 "%s: the server sent the frame as %s, transfer syntax %s, "
                                 "which Lightbox does not decode", d->loc.uri,
                                 part->content_type,
                                 part->transfer_syntax ? part->transfer_syntax : "unknown"));
}

static void
request_frame (GTask *task, FetchStage stage)
{
  LbDicomwebStore *self = g_task_get_source_object (task);
  FetchData *d = g_task_get_task_data (task);
  g_autofree char *url = lb_dicomweb_instance_url (self, &d->loc);
  g_autofree char *frame_url = g_strdup_printf ("%s/frames/%u", url, MAX (d->loc.frame, 1));
  /* one frame: frame_cap() from the metadata; the bulk data holds every frame, so it may be as
   * large as the pixel limit allows, plus the multipart framing (a multi-frame object over the
   * limit fails as too large) */
  guint64 cap = stage == FETCH_BULK ? d->limits.max_bytes + (1 << 20) : d->frame_cap;

  d->stage = stage;
  if (stage == FETCH_BULK)
    lb_dicomweb_request_async (self, "GET", pixel_bulk_uri (self, d), ACCEPT_BULK, NULL, NULL, cap,
                               g_task_get_cancellable (task), d->progress,
                               d->progress_data, on_frame, task);
  else
    lb_dicomweb_request_async (self, "GET", frame_url,
                               stage == FETCH_AS_STORED ? ACCEPT_FRAME_AS_STORED : ACCEPT_FRAME,
                               NULL, NULL, cap, g_task_get_cancellable (task), d->progress,
                               d->progress_data, on_frame, task);
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

/* ---- LUT data given as bulk data -------------------------------------------------------- */

/* The items of a VOI LUT or Modality LUT Sequence (PS3.3 C.11.2, C.11.1) in @ds whose LUT Data
 * the server left out of the metadata, giving a BulkDataURI instead (Orthanc does so for large
 * tables). Functional groups (PS3.3 C.7.6.16) are searched too: the shared item, and of the
 * per-frame items only the one of @frame, the frame being fetched. */
static void
collect_bulk_luts (const LbDicomDataset *ds, guint frame, guint depth, GPtrArray *out)
{
  g_autofree guint32 *tags = NULL;
  guint n_tags;

  /* the JSON parser bounds the nesting already; this keeps the walk short on odd data */
  if (depth > 8)
    return;
  tags = lb_dicom_dataset_get_tags (ds, &n_tags);
  for (guint t = 0; t < n_tags; t++)
    {
      guint n = lb_dicom_dataset_get_n_items (ds, tags[t]);
      gboolean lut_seq = tags[t] == LB_TAG_VOI_LUT_SEQUENCE
                         || tags[t] == LB_TAG_MODALITY_LUT_SEQUENCE;

      for (guint i = 0; i < n; i++)
        {
          LbDicomDataset *item;

          if (tags[t] == LB_TAG_PER_FRAME_FUNCTIONAL_GROUPS_SEQUENCE && i + 1 != frame)
            continue;
          item = lb_dicom_dataset_get_item (ds, tags[t], i);
          if (lut_seq && lb_dicom_dataset_get_bulk_data_uri (item, LB_TAG_LUT_DATA) != NULL)
            g_ptr_array_add (out, item);
          else if (!lut_seq)
            collect_bulk_luts (item, frame, depth + 1, out);
        }
    }
}

static void fetch_next_lut (GTask *task);

static void
on_lut_bulk (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  FetchData *d = g_task_get_task_data (task);
  LbDicomDataset *item = d->bulk_luts->pdata[d->next_lut];
  g_autofree char *uri = g_strdup (lb_dicom_dataset_get_bulk_data_uri (item, LB_TAG_LUT_DATA));
  g_autofree char *vr = g_strdup (lb_dicom_dataset_get_vr (item, LB_TAG_LUT_DATA));
  GError *error = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GBytes) body = lb_http_request_finish (NULL, result, &msg, &error);
  g_autoptr(GPtrArray) parts = NULL;

  if (body == NULL || !lb_http_check_status (msg, &error))
    {
      /* a table larger than any LUT says so with its size and the limit */
      g_prefix_error (&error, "%s: LUTData (0028,3006): ", d->loc.uri);
      fetch_fail (task, error);
      return;
    }
  parts = lb_dicom_multipart_parse (soup_message_headers_get_one (
                                      soup_message_get_response_headers (msg), "Content-Type"),
                                    body, &error);
  if (parts == NULL)
    {
      g_prefix_error (&error, "%s: LUTData (0028,3006) at %s: ", d->loc.uri, uri);
      fetch_fail (task, error);
      return;
    }
  /* the value as the element holds it: bulk data sent as application/octet-stream is little
   * endian (PS3.18 §8.7.3.3); lb-dicom-values.c checks its size against the LUT Descriptor */
  lb_dicom_dataset_set_bytes (item, LB_TAG_LUT_DATA, vr && *vr ? vr : "OW",
                              ((LbDicomPart *) parts->pdata[0])->body);
  d->next_lut++;
  fetch_next_lut (task);
}

/* Fetches the LUT data of d->bulk_luts one after the other, then the frame. */
static void
fetch_next_lut (GTask *task)
{
  LbDicomwebStore *self = g_task_get_source_object (task);
  FetchData *d = g_task_get_task_data (task);
  LbDicomDataset *item;
  const char *uri;

  if (d->next_lut >= d->bulk_luts->len)
    {
      request_frame (task, FETCH_AS_STORED);
      return;
    }
  item = d->bulk_luts->pdata[d->next_lut];
  uri = own_bulk_uri (self, lb_dicom_dataset_get_bulk_data_uri (item, LB_TAG_LUT_DATA));
  if (uri == NULL)
    {
      fetch_fail (task, g_error_new (LB_ERROR, LB_ERROR_UNSUPPORTED,
                                     "%s: LUTData (0028,3006) is bulk data at %s, which is not on "
                                     "the server", d->loc.uri,
                                     lb_dicom_dataset_get_bulk_data_uri (item, LB_TAG_LUT_DATA)));
      return;
    }
  lb_dicomweb_request_async (self, "GET", uri, ACCEPT_BULK, NULL, NULL, MAX_LUT_BULK_BYTES,
                             g_task_get_cancellable (task), NULL, NULL, on_lut_bulk, task);
}

/* With d->metadata known: checks the frame, fetches the bulk LUTs, then the frame. */
static void
fetch_with_metadata (GTask *task)
{
  FetchData *d = g_task_get_task_data (task);
  GError *error = NULL;

  if (!frame_cap (d, &error))
    fetch_fail (task, error);
  else if (!lb_dicom_check_frame_number (MAX (d->loc.frame, 1),
                                         lb_dicom_get_n_frames (d->metadata), d->loc.uri,
                                         &error))
    fetch_fail (task, error);
  else
    {
      /* the LUT tables first: the frame's value model is made from them */
      d->bulk_luts = g_ptr_array_new ();
      collect_bulk_luts (d->metadata, MAX (d->loc.frame, 1), 0, d->bulk_luts);
      fetch_next_lut (task);
    }
}

static void
on_fetch_metadata (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  FetchData *d = g_task_get_task_data (task);
  GError *error = NULL;

  d->metadata = lb_dicomweb_metadata_finish (result, &error);
  if (d->metadata == NULL)
    fetch_fail (task, error);
  else
    fetch_with_metadata (task);
}

/* @metadata: (nullable): the instance's data set when the caller has it (a series' metadata):
 * then only the frame is requested. */
static void
fetch_start (LbDicomwebStore *self, const char *uri, const LbDicomDataset *metadata,
             const LbLimits *limits, GFileProgressCallback progress, gpointer progress_data,
             GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
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
  if (metadata != NULL)
    {
      /* shared with the caller: only LUT data that the server gave as bulk data is written
       * into it (the value the element has, on the main context), which any later fetch of
       * the same instance then needs not fetch again */
      d->metadata = lb_dicom_dataset_ref ((LbDicomDataset *) metadata);
      fetch_with_metadata (task);
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
  fetch_start (self, uri, NULL, limits, NULL, NULL, cancellable, callback, user_data);
}

void
lb_dicomweb_store_fetch_frame_async (LbDicomwebStore *self, const char *uri,
                                     const LbDicomDataset *metadata, const LbLimits *limits,
                                     GCancellable *cancellable, GAsyncReadyCallback callback,
                                     gpointer user_data)
{
  g_return_if_fail (LB_IS_DICOMWEB_STORE (self));
  g_return_if_fail (uri != NULL && metadata != NULL);
  fetch_start (self, uri, metadata, limits, NULL, NULL, cancellable, callback, user_data);
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
  fetch_start (self, uri ? uri : self->root_uri, NULL, NULL, progress, progress_data, cancellable,
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
