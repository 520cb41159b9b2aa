/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "lb-dicom-tags.h"
#include "lb-dicomweb-reports.h"
#include "lb-dicomweb-store.h"
#include "lb-error.h"
#include "lb-measurement-sr.h"
#include "lb-window-measure-private.h"

/* The measurements of an image or series on a DICOMweb server are DICOM Comprehensive SR
 * reports in its study (TID 1500, lb-measurement-sr.h), never sidecars: opening it shows the
 * measurements of every report that references it, and Save writes all of the list as a NEW
 * report in a new series (lb_dicomweb_store_save_report_async() refuses to join or replace
 * another one), so a report once saved, this reader's or another's, is never changed. */

/* The SOP Instance UID of a DICOMweb instance URI (…/instances/{uid}[/frames/…]). */
static char *
instance_uid_of (const char *uri)
{
  const char *p = uri != NULL ? g_strrstr (uri, "/instances/") : NULL;
  const char *end;

  if (p == NULL)
    return NULL;
  p += strlen ("/instances/");
  end = strchr (p, '/');
  return end != NULL ? g_strndup (p, end - p) : g_strdup (p);
}

/* The frame of the list (from 1) an entry goes on; 0: not on what is open. */
static guint
frame_of_entry (LbWindow *self, GHashTable *slices, const char *sop,
                const LbMeasurementSrEntry *e)
{
  guint n = self->frames != NULL ? lb_frame_source_get_n_frames (self->frames) : 1;

  if (slices != NULL)
    return GPOINTER_TO_UINT (g_hash_table_lookup (slices, e->sop_instance_uid));
  if (g_strcmp0 (sop, e->sop_instance_uid) != 0)
    return 0;
  /* a multi-frame object's entry names its frame (from 0); one without is on the first */
  if (e->frame < 0)
    return 1;
  return (guint) e->frame < n ? (guint) e->frame + 1 : 0;
}

static void
on_reports_found (GObject *source, GAsyncResult *result, gpointer user_data)
{
  DocOp *op = user_data;
  LbWindow *self = op->self;
  LbWindowMeasure *m = op->m;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) reports = lb_dicomweb_store_find_reports_finish (
                                   LB_DICOMWEB_STORE (source), result, &error);
  g_autoptr(GHashTable) slices = NULL;
  g_autoptr(GString) failures = g_string_new (NULL);
  g_autofree char *sop = NULL;

  if (!_lb_window_measure_op_current (op)
      || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    goto out;
  if (reports == NULL)
    {
      /* TRANSLATORS: the image opens all the same, without them */
      _lb_window_show_error (self, _("Could not look for the study's measurement reports"),
                             error);
      goto out;
    }
  if (m->instance_uri == NULL && self->frames != NULL && lb_frame_source_is_series (self->frames))
    {
      /* each slice of a series is an instance of its own */
      slices = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      for (guint i = 1; i <= lb_frame_source_get_n_frames (self->frames); i++)
        {
          const LbDicomDataset *ds = lb_frame_source_get_dataset (self->frames, i);
          const char *uid = ds != NULL ? lb_dicom_dataset_get_string (
                                           ds, LB_TAG_SOP_INSTANCE_UID, 0) : NULL;

          if (uid != NULL)
            g_hash_table_insert (slices, g_strdup (uid), GUINT_TO_POINTER (i));
        }
    }
  else
    sop = instance_uid_of (m->instance_uri);
  for (guint r = 0; r < reports->len; r++)
    {
      const LbDicomDataset *sr = g_ptr_array_index (reports, r);
      g_autoptr(GError) read_error = NULL;
      g_autoptr(GPtrArray) entries = lb_measurement_sr_read (sr, &read_error);

      if (entries == NULL)
        {
          /* which report: the reader can find it in the study */
          g_string_append_printf (failures, "%s%s: %s", failures->len ? "\n" : "",
                                  lb_dicom_dataset_get_string (sr, LB_TAG_SOP_INSTANCE_UID, 0),
                                  read_error->message);
          continue;
        }
      for (guint i = 0; i < entries->len; i++)
        {
          const LbMeasurementSrEntry *e = g_ptr_array_index (entries, i);
          guint frame = frame_of_entry (self, slices, sop, e);

          /* the measurement is the list's own: editing it changes no report, and the next
           * save writes it into a new one */
          if (frame > 0)
            lb_measurement_list_append (m->list, e->measurement, frame);
        }
    }
  if (failures->len > 0)
    {
      g_autoptr(GError) parse = g_error_new_literal (LB_ERROR, LB_ERROR_PARSE, failures->str);

      /* TRANSLATORS: the image opens all the same, with the measurements of the others */
      _lb_window_show_error (self, _("Could not read a measurement report of the study"), parse);
    }
out:
  _lb_window_measure_op_free (op);
}

void
_lb_window_measure_sr_load (LbWindow *self, LbWindowMeasure *m)
{
  const char *uri = m->instance_uri;

  if (uri == NULL && self->frames != NULL)
    uri = lb_frame_source_get_frame_uri (self->frames, 1);
  if (uri == NULL)
    return;
  lb_dicomweb_store_find_reports_async (LB_DICOMWEB_STORE (m->store), uri, m->cancellable,
                                        on_reports_found,
                                        _lb_window_measure_op_new (self, m, NULL));
}

/* ---- saving ------------------------------------------------------------------------------ */

static void
save_finished (LbWindow *self, LbWindowMeasure *m)
{
  m->saving = 0;
  _lb_window_measure_update_actions (self);
}

static void
on_report_saved (GObject *source, GAsyncResult *result, gpointer user_data)
{
  DocOp *op = user_data;
  LbWindow *self = op->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStoreEntry) entry = lb_dicomweb_store_save_report_finish (
                                    LB_DICOMWEB_STORE (source), result, &error);

  if (self->measure == NULL || op->m->dead)
    goto out;
  if (entry == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    /* TRANSLATORS: nothing was written; the message says why */
    _lb_window_show_error (self, _("Could not save the measurements as a report"), error);
  else if (entry != NULL)
    {
      g_autofree char *status = NULL;

      /* TRANSLATORS: %s is the address of the new report on the DICOMweb server */
      status = g_strdup_printf (_("Measurements saved as a new report: %s"),
                                lb_store_entry_get_uri (entry));
      _lb_window_set_status (self, status);
    }
  save_finished (self, op->m);
out:
  _lb_window_measure_op_free (op);
}

/* Builds the report of everything in the list and stores it. */
static void
save_report (LbWindow *self, LbWindowMeasure *m)
{
  g_autoptr(GArray) images = g_array_new (FALSE, TRUE, sizeof (LbMeasurementSrImage));
  g_autoptr(GPtrArray) groups = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  g_autoptr(GArray) spacings = NULL;
  g_autoptr(GHashTable) by_frame = g_hash_table_new (NULL, NULL);
  g_autoptr(LbDicomDataset) report = NULL;
  g_autoptr(GError) error = NULL;
  LbImage *shown = lb_canvas_get_image (self->canvas);
  gboolean series = m->instance_uri == NULL;
  gboolean multi_frame = !series && self->frames != NULL;
  guint n = lb_measurement_list_get_n (m->list);

  /* one image per frame measured, in the list's order */
  for (guint i = 0; i < n; i++)
    {
      LbMeasurement *meas = lb_measurement_list_get (m->list, i);
      guint frame = lb_measurement_list_get_frame (m->list, meas);
      GPtrArray *group = g_hash_table_lookup (by_frame, GUINT_TO_POINTER (frame));

      if (group == NULL)
        {
          LbMeasurementSrImage img = { .frame = multi_frame ? (gint) frame - 1 : -1 };

          img.dataset = series ? lb_frame_source_get_dataset (self->frames, frame)
                               : m->instance_ds;
          /* the pixels shown give the statistics of regions and the probe's value */
          img.image = frame == _lb_window_measure_frame_shown (self) ? shown : NULL;
          group = g_ptr_array_new ();
          g_ptr_array_add (groups, group);
          img.measurements = group;
          g_array_append_val (images, img);
          g_hash_table_insert (by_frame, GUINT_TO_POINTER (frame), group);
        }
      g_ptr_array_add (group, meas);
    }
  spacings = g_array_sized_new (FALSE, TRUE, sizeof (LbMeasurementSpacing), images->len);
  g_array_set_size (spacings, images->len);
  for (guint i = 0; i < images->len; i++)
    {
      LbMeasurementSrImage *img = &g_array_index (images, LbMeasurementSrImage, i);
      LbMeasurementSpacing *spacing = &g_array_index (spacings, LbMeasurementSpacing, i);

      lb_measurement_spacing_init_unknown (spacing);
      if (img->dataset != NULL)
        lb_measurement_spacing_from_dataset (img->dataset, spacing);
      img->spacing = spacing;
      if (img->dataset == NULL)
        {
          g_set_error_literal (&error, LB_ERROR, LB_ERROR_NOT_FOUND,
                               _("The image's DICOM attributes are not known, so no report "
                                 "can reference it"));
          break;
        }
    }
  if (error == NULL)
    report = lb_measurement_sr_build ((LbMeasurementSrImage *) images->data, images->len, 1,
                                      &error);
  if (report == NULL)
    {
      _lb_window_show_error (self, _("Could not save the measurements as a report"), error);
      save_finished (self, m);
      return;
    }
  lb_dicomweb_store_save_report_async (LB_DICOMWEB_STORE (m->store), report, m->cancellable,
                                       on_report_saved, _lb_window_measure_op_new (self, m, NULL));
}

static void
on_metadata (GObject *source, GAsyncResult *result, gpointer user_data)
{
  DocOp *op = user_data;
  LbWindow *self = op->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(LbDicomDataset) ds = lb_dicomweb_store_fetch_metadata_finish (
                                   LB_DICOMWEB_STORE (source), result, &error);

  if (self->measure == NULL || op->m->dead)
    goto out;
  if (!_lb_window_measure_op_current (op))
    save_finished (self, op->m);
  else if (ds == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _lb_window_show_error (self, _("Could not save the measurements as a report"), error);
      save_finished (self, op->m);
    }
  else
    {
      op->m->instance_ds = g_steal_pointer (&ds);
      save_report (self, op->m);
    }
out:
  _lb_window_measure_op_free (op);
}

void
_lb_window_measure_sr_save (LbWindow *self, LbWindowMeasure *m)
{
  if (lb_measurement_list_get_n (m->list) == 0)
    return;
  m->saving = 1;
  _lb_window_measure_update_actions (self);
  /* one instance: the report needs its data set (UIDs, patient, study), read once */
  if (m->instance_uri != NULL && m->instance_ds == NULL)
    lb_dicomweb_store_fetch_metadata_async (LB_DICOMWEB_STORE (m->store), m->instance_uri,
                                            m->cancellable, on_metadata,
                                            _lb_window_measure_op_new (self, m, NULL));
  else
    save_report (self, m);
}
