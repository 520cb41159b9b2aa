/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicomweb-store"

#include "lb-dicomweb-store-private.h"

#include <math.h>
#include <string.h>

#include "lb-dicom-frame.h"
#include "lb-dicom-sr.h"
#include "lb-dicom-tags.h"
#include "lb-dicom-multipart.h"
#include "lb-dicom-writer.h"
#include "lb-error.h"
#include "lb-json-depth.h"
#include "lb-http.h"
#include "lb-image-loader.h"
#include "lb-dicomweb-reports.h"

/* ---- store derived (STOW-RS) -------------------------------------------------------------- */

/* The task data of store derived and of write (which becomes a store derived for an image). */
typedef struct {
  LbDicomwebLoc   target;       /* write: where the content was written to */
  char           *content_type; /* write: as given */
  LbDicomwebLoc   source;       /* the instance the image came from */
  LbImage        *image;        /* NULL when @dicom is given */
  char           *derivation;
  GBytes         *dicom;        /* the Part 10 file to send */
  LbDicomDataset *metadata;     /* source metadata */
  char           *sop_uid, *series_uid, *study_uid;
  const char     *sop_class;    /* of the instance sent; NULL: Secondary Capture */
  LbDicomDataset *report;       /* save report: the SR to send */
  char           *stow_url;
} StowData;

static void
stow_data_free (StowData *d)
{
  lb_dicomweb_loc_clear (&d->target);
  g_free (d->content_type);
  lb_dicomweb_loc_clear (&d->source);
  g_clear_object (&d->image);
  g_free (d->derivation);
  g_clear_pointer (&d->dicom, g_bytes_unref);
  g_clear_pointer (&d->metadata, lb_dicom_dataset_unref);
  g_free (d->sop_uid);
  g_free (d->series_uid);
  g_free (d->study_uid);
  g_clear_pointer (&d->report, lb_dicom_dataset_unref);
  g_free (d->stow_url);
  g_free (d);
}

/* Failure Reason values of PS3.18 §I.2.2 (Table I.2-1) and the Storage Service (PS3.4 §B.2.3). */
static const char *
stow_failure_text (guint reason)
{
  switch (reason)
    {
    case 0x0110: return "processing failure";
    case 0x0119: return "class-instance conflict";
    case 0x0122: return "SOP class not supported";
    case 0x0124: return "not authorized";
    case 0xA700: return "out of resources";
    case 0xA770: return "out of resources: data set too large";
    case 0xA900: return "data set does not match SOP class";
    case 0xC000: return "cannot understand";
    case 0xC122: return "transfer syntax not supported";
    default: return reason >= 0xA700 && reason <= 0xA7FF ? "out of resources" : "refused";
    }
}

/* PS3.18 §10.5.3: the response lists stored instances in ReferencedSOPSequence (0008,1199) and
 * failures in FailedSOPSequence (0008,1198) with a FailureReason (0008,1197). */
static void
on_stowed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbDicomwebStore *self = g_task_get_source_object (task);
  StowData *d = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GBytes) body = lb_http_request_finish (NULL, result, &msg, &error);
  g_autoptr(LbDicomDataset) resp = NULL;
  g_autoptr(JsonParser) parser = NULL;
  guint status;
  gboolean stored = FALSE;
  LbStoreEntry *entry;
  g_autofree char *uri = NULL;

  if (body == NULL)
    {
      lb_store_task_fail (task, error);
      return;
    }
  status = soup_message_get_status (msg);
  if (g_bytes_get_size (body) > 0)
    {
      JsonNode *root;

      if (!lb_json_check_depth (g_bytes_get_data (body, NULL), g_bytes_get_size (body),
                                LB_JSON_MAX_DEPTH, "response", &error))
        {
          g_prefix_error (&error, "STOW-RS %s: ", d->stow_url);
          lb_store_task_fail (task, error);
          return;
        }
      parser = json_parser_new_immutable ();
      if (json_parser_load_from_data (parser, g_bytes_get_data (body, NULL),
                                      (gssize) g_bytes_get_size (body), NULL))
        {
          root = json_parser_get_root (parser);
          /* Some servers wrap the response data set in an array. */
          if (root && JSON_NODE_HOLDS_ARRAY (root)
              && json_array_get_length (json_node_get_array (root)) == 1)
            root = json_array_get_element (json_node_get_array (root), 0);
          if (root && JSON_NODE_HOLDS_OBJECT (root))
            resp = lb_dicom_dataset_new_from_json_object (root, &error);
          if (resp == NULL && error != NULL && status >= 200 && status < 300)
            {
              g_prefix_error (&error, "STOW-RS %s: response: ", d->stow_url);
              lb_store_task_fail (task, error);
              return;
            }
          g_clear_error (&error);
        }
    }
  if (resp != NULL)
    {
      guint nf = lb_dicom_dataset_get_n_items (resp, LB_TAG_FAILED_SOP_SEQUENCE);
      guint nr = lb_dicom_dataset_get_n_items (resp, LB_TAG_REFERENCED_SOP_SEQUENCE);

      for (guint i = 0; i < nf; i++)
        {
          LbDicomDataset *item = lb_dicom_dataset_get_item (resp, LB_TAG_FAILED_SOP_SEQUENCE, i);
          const char *sop = lb_dicom_dataset_get_string (item, LB_TAG_REFERENCED_SOP_INSTANCE_UID,
                                                         0);
          gint64 reason = -1;
          g_autofree char *why = NULL;

          if (lb_dicom_dataset_get_int (item, LB_TAG_FAILURE_REASON, 0, &reason))
            why = g_strdup_printf ("failure reason 0x%04X, %s", (guint) reason,
                                   stow_failure_text ((guint) reason));
          else
            why = g_strdup ("no failure reason given");
          error = g_error_new (LB_ERROR, status == 409 ? LB_ERROR_CONFLICT : LB_ERROR_FAILED,
                               "STOW-RS %s: the server refused instance %s (HTTP %u, %s)",
                               d->stow_url, sop ? sop : d->sop_uid, status, why);
          lb_store_task_fail (task, error);
          return;
        }
      for (guint i = 0; i < nr; i++)
        {
          LbDicomDataset *item = lb_dicom_dataset_get_item (resp, LB_TAG_REFERENCED_SOP_SEQUENCE,
                                                            i);

          if (g_strcmp0 (lb_dicom_dataset_get_string (item, LB_TAG_REFERENCED_SOP_INSTANCE_UID, 0),
                         d->sop_uid) == 0)
            {
              /* RetrieveURL …/studies/{st}/series/{se}/instances/{in} names the series of a
               * ready DICOM file that was sent as it was */
              const char *url = lb_dicom_dataset_get_string (item, LB_TAG_RETRIEVE_URL, 0);
              const char *p = url ? strstr (url, "/series/") : NULL;

              stored = TRUE;
              if ((d->series_uid == NULL || *d->series_uid == '\0') && p != NULL)
                {
                  g_free (d->series_uid);
                  p += strlen ("/series/");
                  d->series_uid = g_uri_unescape_segment (p, strchr (p, '/'), NULL);
                }
            }
        }
    }
  if (!lb_http_check_status (msg, &error))
    {
      g_prefix_error (&error, "STOW-RS: ");
      lb_store_task_fail (task, error);
      return;
    }
  if (!stored)
    {
      error = g_error_new (LB_ERROR, LB_ERROR_FAILED, "STOW-RS %s: HTTP %u but the response does "
                           "not list instance %s as stored", d->stow_url, status, d->sop_uid);
      lb_store_task_fail (task, error);
      return;
    }

  if (d->series_uid == NULL || *d->series_uid == '\0')
    {
      error = g_error_new (LB_ERROR, LB_ERROR_FAILED, "STOW-RS %s: stored instance %s, but the "
                           "response does not say in which series", d->stow_url, d->sop_uid);
      lb_store_task_fail (task, error);
      return;
    }
  uri = lb_dicomweb_instance_uri (self, d->study_uid, d->series_uid, d->sop_uid);
  entry = lb_store_entry_new (uri, d->sop_uid, LB_STORE_ENTRY_DICOM_INSTANCE);
  lb_store_entry_set_display_name (entry, "#1");
  lb_store_entry_set_size (entry, (gint64) g_bytes_get_size (d->dicom));
  lb_store_entry_set_content_type (entry, "application/dicom");
  lb_store_entry_set_attribute (entry, "StudyInstanceUID", d->study_uid);
  lb_store_entry_set_attribute (entry, "SeriesInstanceUID", d->series_uid);
  lb_store_entry_set_attribute (entry, "SOPInstanceUID", d->sop_uid);
  lb_store_entry_set_attribute (entry, "SOPClassUID",
                                d->sop_class ? d->sop_class : LB_DICOM_SOP_CLASS_SECONDARY_CAPTURE);
  g_task_return_pointer (task, entry, g_object_unref);
  g_object_unref (task);
}

static void
stow_send (GTask *task)
{
  LbDicomwebStore *self = g_task_get_source_object (task);
  StowData *d = g_task_get_task_data (task);
  g_autoptr(GPtrArray) parts = g_ptr_array_new ();
  g_autoptr(GBytes) body = NULL;
  g_autofree char *content_type = NULL, *st = lb_dicomweb_escape (d->study_uid);

  g_ptr_array_add (parts, d->dicom);
  body = lb_dicom_multipart_build ("application/dicom", parts, &content_type);
  d->stow_url = g_strdup_printf ("%s/studies/%s", self->base_url, st);
  lb_dicomweb_request_async (self, "POST", d->stow_url, LB_MEDIA_DICOM_JSON, body, content_type,
                             LB_STORE_DEFAULT_MAX_LISTING_BYTES, g_task_get_cancellable (task),
                             NULL, NULL, on_stowed, task);
}

/* An image that travelled as PNG has its spacing from pHYs, in whole pixels per metre: 0.661468
 * mm comes back as 0.661376. When the image's spacing is the source's within that rounding
 * (half a pixel per metre: s² / 2000 mm), the source's exact value is the true one. A filter
 * that resampled the image changes the spacing by far more and is left alone. */
static void
restore_exact_spacing (StowData *d)
{
  const LbImageMeta *meta = lb_image_get_meta (d->image);
  double x, y, sx, sy;

  if (!lb_image_meta_get_pixel_spacing (meta, &x, &y)
      || !lb_dicom_dataset_get_double (d->metadata, LB_TAG_PIXEL_SPACING, 0, &sy)
      || !lb_dicom_dataset_get_double (d->metadata, LB_TAG_PIXEL_SPACING, 1, &sx))
    return;
  if ((x != sx || y != sy) && fabs (x - sx) <= sx * sx / 2000 + 1e-12
      && fabs (y - sy) <= sy * sy / 2000 + 1e-12)
    {
      g_autoptr(LbImageMeta) fixed = lb_image_meta_copy (meta);
      LbImage *img;

      lb_image_meta_set_pixel_spacing (fixed, sx, sy);
      img = lb_image_with_meta (d->image, fixed);
      g_object_unref (d->image);
      d->image = img;
    }
}

/* A new series is numbered after every series already in the study (@series: QIDO-RS results
 * with SeriesNumber). */
static guint
next_series_number (GPtrArray *series)
{
  gint64 max_number = 0;

  for (guint i = 0; i < series->len; i++)
    {
      gint64 n;

      if (lb_dicom_dataset_get_int (series->pdata[i], LB_TAG_SERIES_NUMBER, 0, &n))
        max_number = MAX (max_number, n);
    }
  return (guint) CLAMP (max_number + 1, 1, G_MAXINT32);
}

static void
on_study_series (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  StowData *d = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(GPtrArray) series = lb_dicomweb_qido_finish (result, &error);
  g_autoptr(LbDicomDataset) sc = NULL;

  if (series == NULL)
    {
      lb_store_task_fail (task, error);
      return;
    }
  restore_exact_spacing (d);
  sc = lb_dicom_build_secondary_capture (d->image, d->metadata, d->derivation,
                                         next_series_number (series), &error);
  if (sc == NULL)
    {
      g_prefix_error (&error, "%s: ", d->source.uri);
      lb_store_task_fail (task, error);
      return;
    }
  d->sop_uid = g_strdup (lb_dicom_dataset_get_string (sc, LB_TAG_SOP_INSTANCE_UID, 0));
  d->series_uid = g_strdup (lb_dicom_dataset_get_string (sc, LB_TAG_SERIES_INSTANCE_UID, 0));
  d->dicom = lb_dicom_write_part10 (sc, &error);
  if (d->dicom == NULL)
    {
      lb_store_task_fail (task, error);
      return;
    }
  stow_send (task);
}

static void
on_source_metadata (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbDicomwebStore *self = g_task_get_source_object (task);
  StowData *d = g_task_get_task_data (task);
  GError *error = NULL;
  g_autofree char *query = NULL, *st = NULL;

  d->metadata = lb_dicomweb_metadata_finish (result, &error);
  if (d->metadata == NULL)
    {
      g_prefix_error (&error, "source instance: ");
      lb_store_task_fail (task, error);
      return;
    }
  st = lb_dicomweb_escape (d->source.study);
  query = g_strdup_printf ("/studies/%s/series?includefield=00200011", st);
  lb_dicomweb_qido_async (self, query, g_task_get_cancellable (task), NULL, NULL, on_study_series,
                          task);
}

/* @task's data is a StowData. */
static void
store_derived_start (GTask *task, LbImage *image, const char *source_uri, const char *derivation)
{
  LbDicomwebStore *self = g_task_get_source_object (task);
  StowData *d = g_task_get_task_data (task);

  d->image = g_object_ref (image);
  d->derivation = g_strdup (derivation);
  if (!lb_dicomweb_task_loc (task, source_uri, FALSE, &d->source))
    return;
  if (d->source.level != LB_DICOMWEB_INSTANCE)
    {
      lb_store_task_fail (task, g_error_new (LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                                             "%s: the source of a derived image must be an "
                                             "instance", source_uri));
      return;
    }
  d->study_uid = g_strdup (d->source.study);
  lb_dicomweb_metadata_async (self, &d->source, g_task_get_cancellable (task),
                              on_source_metadata, task);
}

void
lb_dicomweb_store_store_derived_async (LbDicomwebStore *self, LbImage *image,
                                       const char *source_uri, const char *derivation,
                                       GCancellable *cancellable, GAsyncReadyCallback callback,
                                       gpointer user_data)
{
  GTask *task;

  g_return_if_fail (LB_IS_DICOMWEB_STORE (self));
  g_return_if_fail (LB_IS_IMAGE (image));
  g_return_if_fail (source_uri != NULL);
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, lb_dicomweb_store_store_derived_async);
  g_task_set_task_data (task, g_new0 (StowData, 1), (GDestroyNotify) stow_data_free);
  store_derived_start (task, image, source_uri, derivation);
}

LbStoreEntry *
lb_dicomweb_store_store_derived_finish (LbDicomwebStore *self, GAsyncResult *result,
                                        GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* An instance that names its own SOP Instance UID (a ready DICOM file, a report) is refused
 * (CREATE semantics) when the server already has it, since STOW-RS servers may replace or
 * silently keep the old one. A narrow race remains between this check and the POST. */
static void
on_instance_precheck (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  StowData *d = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(GPtrArray) found = lb_dicomweb_qido_finish (result, &error);

  if (found == NULL)
    {
      lb_store_task_fail (task, error);
      return;
    }
  if (lb_dicomweb_find (found, LB_TAG_SOP_INSTANCE_UID, d->sop_uid) != NULL)
    {
      lb_store_task_fail (task, g_error_new (LB_ERROR, LB_ERROR_CONFLICT,
                                             "instance %s is already stored on the server; "
                                             "DICOM instances are never replaced", d->sop_uid));
      return;
    }
  if (d->dicom == NULL)
    {
      d->dicom = lb_dicom_write_part10 (d->report, &error);
      if (d->dicom == NULL)
        {
          lb_store_task_fail (task, error);
          return;
        }
    }
  stow_send (task);
}

/* Looks d->sop_uid up on the server, then sends d->dicom (or d->report written as Part 10). */
static void
precheck_and_send (GTask *task)
{
  LbDicomwebStore *self = g_task_get_source_object (task);
  StowData *d = g_task_get_task_data (task);
  g_autofree char *e = lb_dicomweb_escape (d->sop_uid);
  g_autofree char *query = g_strdup_printf ("/instances?SOPInstanceUID=%s", e);

  lb_dicomweb_qido_async (self, query, g_task_get_cancellable (task), NULL, NULL,
                          on_instance_precheck, task);
}

/* ---- save report -------------------------------------------------------------------------- */

static void
on_report_series (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  StowData *d = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(GPtrArray) series = lb_dicomweb_qido_finish (result, &error);

  if (series == NULL)
    {
      lb_store_task_fail (task, error);
      return;
    }
  /* a series of its own: never joins (and so never replaces in) another reader's */
  if (lb_dicomweb_find (series, LB_TAG_SERIES_INSTANCE_UID, d->series_uid) != NULL)
    {
      lb_store_task_fail (task, g_error_new (LB_ERROR, LB_ERROR_CONFLICT,
                                             "series %s already exists in study %s; a report "
                                             "is saved in a new series", d->series_uid,
                                             d->study_uid));
      return;
    }
  lb_dicom_dataset_set_uint (d->report, LB_TAG_SERIES_NUMBER, "IS", next_series_number (series));
  precheck_and_send (task);
}

void
lb_dicomweb_store_save_report_async (LbDicomwebStore *self, LbDicomDataset *report,
                                     GCancellable *cancellable, GAsyncReadyCallback callback,
                                     gpointer user_data)
{
  GTask *task;
  StowData *d;
  g_autofree char *st = NULL, *query = NULL;

  g_return_if_fail (LB_IS_DICOMWEB_STORE (self));
  g_return_if_fail (report != NULL);
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, lb_dicomweb_store_save_report_async);
  d = g_new0 (StowData, 1);
  g_task_set_task_data (task, d, (GDestroyNotify) stow_data_free);
  d->report = lb_dicom_dataset_ref (report);
  d->study_uid = g_strdup (lb_dicom_dataset_get_string (report, LB_TAG_STUDY_INSTANCE_UID, 0));
  d->series_uid = g_strdup (lb_dicom_dataset_get_string (report, LB_TAG_SERIES_INSTANCE_UID, 0));
  d->sop_uid = g_strdup (lb_dicom_dataset_get_string (report, LB_TAG_SOP_INSTANCE_UID, 0));
  d->sop_class = lb_dicom_dataset_get_string (report, LB_TAG_SOP_CLASS_UID, 0);
  if (!lb_dicom_sr_is_sr (report) || d->study_uid == NULL || d->series_uid == NULL
      || d->sop_uid == NULL)
    {
      lb_store_task_fail (task, g_error_new (LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                                             "a report needs an SR SOPClassUID, "
                                             "StudyInstanceUID, SeriesInstanceUID and "
                                             "SOPInstanceUID"));
      return;
    }
  st = lb_dicomweb_escape (d->study_uid);
  query = g_strdup_printf ("/studies/%s/series?includefield=00200011", st);
  lb_dicomweb_qido_async (self, query, cancellable, NULL, NULL, on_report_series, task);
}

LbStoreEntry *
lb_dicomweb_store_save_report_finish (LbDicomwebStore *self, GAsyncResult *result,
                                      GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- write -------------------------------------------------------------------------------- */

static gboolean
is_part10 (GBytes *bytes)
{
  gsize len;
  const guint8 *p = g_bytes_get_data (bytes, &len);

  return len >= 132 && memcmp (p + 128, "DICM", 4) == 0;
}

/* Reads (0002,0003) MediaStorageSOPInstanceUID from the file meta (always explicit VR little
 * endian, PS3.10 §7.1). The data set itself is not parsed: @series stays NULL, and the series
 * is learnt from the server's STOW-RS response. */
static gboolean
part10_uids (GBytes *bytes, char **sop, char **series)
{
  gsize len;
  const guint8 *p = g_bytes_get_data (bytes, &len);
  gsize off = 132;

  *sop = NULL;
  *series = NULL;
  if (!is_part10 (bytes))
    return FALSE;
  while (off + 8 <= len)
    {
      guint group = p[off] | (p[off + 1] << 8);
      guint elem = p[off + 2] | (p[off + 3] << 8);
      char vr[3] = { (char) p[off + 4], (char) p[off + 5], 0 };
      gsize vlen, hdr;

      if (group != 0x0002)    /* the end of the file meta */
        break;
      if (strcmp (vr, "OB") == 0 || strcmp (vr, "OW") == 0 || strcmp (vr, "UN") == 0
          || strcmp (vr, "SQ") == 0 || strcmp (vr, "UT") == 0 || strcmp (vr, "UC") == 0
          || strcmp (vr, "UR") == 0)
        {
          if (off + 12 > len)
            break;
          vlen = (gsize) p[off + 8] | ((gsize) p[off + 9] << 8) | ((gsize) p[off + 10] << 16)
                 | ((gsize) p[off + 11] << 24);
          hdr = 12;
        }
      else
        {
          vlen = p[off + 6] | (p[off + 7] << 8);
          hdr = 8;
        }
      if (vlen > len - off - hdr)
        break;
      if (LB_DICOM_TAG (group, elem) == LB_TAG_MEDIA_STORAGE_SOP_INSTANCE_UID && vlen > 0)
        {
          *sop = g_strndup ((const char *) p + off + hdr, vlen);
          g_strchomp (*sop);
          /* UI values are padded with NUL */
          while (**sop && (*sop)[strlen (*sop) - 1] == '\0')
            (*sop)[strlen (*sop) - 1] = '\0';
        }
      off += hdr + vlen;
    }
  return *sop != NULL && **sop != '\0';
}

/* Which instance an uploaded image came from: the UIDs Lightbox put into its metadata when it
 * read it, or the provenance "Source" URL, or the write target itself. */
static char *
source_of (LbDicomwebStore *self, LbImage *image, const LbDicomwebLoc *target)
{
  const LbImageMeta *meta = lb_image_get_meta (image);
  const char *st = lb_image_meta_get_text (meta, "dicom:StudyInstanceUID");
  const char *se = lb_image_meta_get_text (meta, "dicom:SeriesInstanceUID");
  const char *in = lb_image_meta_get_text (meta, "dicom:SOPInstanceUID");
  const char *src = lb_image_meta_get_text (meta, "Source");
  LbDicomwebLoc loc;

  if (st && se && in)
    return lb_dicomweb_instance_uri (self, st, se, in);
  if (src && lb_dicomweb_loc_parse (self, src, FALSE, &loc, NULL))
    {
      gboolean ok = loc.level == LB_DICOMWEB_INSTANCE;

      lb_dicomweb_loc_clear (&loc);
      if (ok)
        return g_strdup (src);
    }
  if (lb_image_meta_get_source_uri (meta)
      && lb_dicomweb_loc_parse (self, lb_image_meta_get_source_uri (meta), FALSE, &loc, NULL))
    {
      gboolean ok = loc.level == LB_DICOMWEB_INSTANCE;

      lb_dicomweb_loc_clear (&loc);
      if (ok)
        return g_strdup (lb_image_meta_get_source_uri (meta));
    }
  if (target->level == LB_DICOMWEB_INSTANCE)
    return lb_dicomweb_instance_uri (self, target->study, target->series, target->instance);
  return NULL;
}

static void
on_write_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbDicomwebStore *self = g_task_get_source_object (task);
  StowData *d = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(GBytes) bytes = lb_http_read_all_finish (G_INPUT_STREAM (source), result, &error);
  g_autoptr(LbImage) image = NULL;
  g_autofree char *src = NULL;
  LbDicomwebLoc src_loc;
  const char *chain;

  if (bytes == NULL)
    {
      lb_store_task_fail (task, error);
      return;
    }
  if (g_strcmp0 (d->content_type, "application/dicom") == 0 || is_part10 (bytes))
    {
      /* A ready DICOM file: sent as it is, to the target's study (the server checks that it
       * belongs there); its SOP Instance UID, from the file meta, is looked for in the reply. */
      if (!part10_uids (bytes, &d->sop_uid, &d->series_uid))
        {
          lb_store_task_fail (task, g_error_new (LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                                                 "%s: content is not a DICOM Part 10 file with "
                                                 "a MediaStorageSOPInstanceUID",
                                                 d->target.uri));
          return;
        }
      d->dicom = g_bytes_ref (bytes);
      d->study_uid = g_strdup (d->target.study);
      /* d->series_uid stays NULL: the series comes from the STOW response's RetrieveURL */
      precheck_and_send (task);
      return;
    }

  image = lb_image_load_bytes (bytes, d->target.uri, NULL, &error);
  if (image == NULL)
    {
      lb_store_task_fail (task, error);
      return;
    }
  src = source_of (self, image, &d->target);
  if (src == NULL)
    {
      lb_store_task_fail (task, g_error_new (LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                                             "%s: the image does not say which DICOM instance "
                                             "it was derived from, so it cannot join that "
                                             "instance's study", d->target.uri));
      return;
    }
  if (lb_dicomweb_loc_parse (self, src, FALSE, &src_loc, NULL))
    {
      gboolean same = g_strcmp0 (src_loc.study, d->target.study) == 0;

      lb_dicomweb_loc_clear (&src_loc);
      if (!same)
        {
          lb_store_task_fail (task, g_error_new (LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                                                 "%s: the image was derived from %s, which is "
                                                 "in another study; derived images go into "
                                                 "their source's study", d->target.uri,
                                                 src));
          return;
        }
    }
  chain = lb_image_meta_get_text (lb_image_get_meta (image), "lightbox:filter-chain");
  store_derived_start (task, image, src, chain);
}

static void
lb_dicomweb_write_async (LbStore *store, const char *uri, GInputStream *source, gint64 size,
                         const char *content_type, LbStoreWriteMode mode, const char *etag,
                         GCancellable *cancellable, GFileProgressCallback progress,
                         gpointer progress_data, GAsyncReadyCallback callback, gpointer user_data)
{
  LbDicomwebStore *self = LB_DICOMWEB_STORE (store);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  StowData *d = g_new0 (StowData, 1);

  g_task_set_source_tag (task, lb_dicomweb_write_async);
  g_task_set_task_data (task, d, (GDestroyNotify) stow_data_free);
  d->content_type = g_strdup (content_type);
  if (mode != LB_STORE_WRITE_CREATE)
    {
      lb_store_task_fail (task, g_error_new (LB_ERROR, LB_ERROR_UNSUPPORTED,
                                             "%s: DICOM instances are never replaced; a "
                                             "derived image is stored as a new instance in a "
                                             "new series", uri ? uri : self->root_uri));
      return;
    }
  if (!lb_dicomweb_task_loc (task, uri, TRUE, &d->target))
    return;
  if (d->target.level < LB_DICOMWEB_STUDY)
    {
      lb_store_task_fail (task, g_error_new (LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                                             "%s: write into a study, series or instance; a "
                                             "derived image joins its source's study",
                                             d->target.uri));
      return;
    }
  lb_http_read_all_async (source, d->target.uri, size, lb_limits_get_default ()->max_bytes,
                          cancellable, NULL, NULL, on_write_read, task);
}

void
lb_dicomweb_stow_iface_init (LbStoreInterface *iface)
{
  iface->write_async = lb_dicomweb_write_async;
}
