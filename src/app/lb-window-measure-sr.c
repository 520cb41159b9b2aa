/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-window"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "lb-dicom-sr.h"
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

/* ---- the study's other series ------------------------------------------------------------ */

void
_lb_window_measure_other_free (gpointer data)
{
  LbWindowMeasureOther *o = data;

  g_clear_object (&o->measurement);
  g_free (o->series_uri);
  g_free (o->series_uid);
  g_free (o->sop_uid);
  g_free (o->label);
  g_free (o->value);
  g_free (o);
}

/* The URI of the study @uri (a series or instance of a DICOMweb store) is in, with its '/'. */
static char *
study_uri_of (const char *uri)
{
  const char *p = uri != NULL ? strstr (uri, "/series/") : NULL;

  return p != NULL ? g_strndup (uri, p + 1 - uri) : NULL;
}

/* The UID of the series @uri is in (…/series/{uid}/…). */
static char *
series_uid_of (const char *uri)
{
  const char *p = uri != NULL ? strstr (uri, "/series/") : NULL;

  if (p == NULL)
    return NULL;
  p += strlen ("/series/");
  return g_strndup (p, strcspn (p, "/"));
}

/* The series of each instance @sr references, from its Current Requested Procedure Evidence
 * Sequence (PS3.3 C.17.2.2: every instance the content references is listed there). */
static void
add_evidence (GHashTable *series_of, const LbDicomDataset *sr)
{
  for (guint i = 0; i < lb_dicom_dataset_get_n_items (sr, LB_TAG_CURRENT_EVIDENCE_SEQUENCE); i++)
    {
      LbDicomDataset *study = lb_dicom_dataset_get_item (sr, LB_TAG_CURRENT_EVIDENCE_SEQUENCE, i);

      for (guint j = 0; j < lb_dicom_dataset_get_n_items (study, LB_TAG_REFERENCED_SERIES_SEQUENCE);
           j++)
        {
          LbDicomDataset *series = lb_dicom_dataset_get_item (study,
                                                              LB_TAG_REFERENCED_SERIES_SEQUENCE, j);
          const char *uid = lb_dicom_dataset_get_string (series, LB_TAG_SERIES_INSTANCE_UID, 0);

          for (guint k = 0; uid != NULL
               && k < lb_dicom_dataset_get_n_items (series, LB_TAG_REFERENCED_SOP_SEQUENCE); k++)
            {
              const char *sop = lb_dicom_dataset_get_string (
                lb_dicom_dataset_get_item (series, LB_TAG_REFERENCED_SOP_SEQUENCE, k),
                LB_TAG_REFERENCED_SOP_INSTANCE_UID, 0);

              if (sop != NULL)
                g_hash_table_insert (series_of, g_strdup (sop), g_strdup (uid));
            }
        }
    }
}

/* The report states it: the first value, in its unit. */
static char *
value_text (const LbMeasurementSrEntry *e)
{
  const LbMeasurementSrValue *v;

  if (e->values == NULL || e->values->len == 0)
    return g_strdup ("");
  v = &g_array_index (e->values, LbMeasurementSrValue, 0);
  return g_strdup_printf ("%s %.5g %s", v->name, v->value, v->unit);
}

static gboolean
same_points (LbMeasurement *a, LbMeasurement *b)
{
  guint n = lb_measurement_get_n_points (a);

  if (lb_measurement_get_tool (a) != lb_measurement_get_tool (b)
      || n != lb_measurement_get_n_points (b))
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      LbMeasurementPoint p = lb_measurement_get_point (a, i), q = lb_measurement_get_point (b, i);

      if (p.x != q.x || p.y != q.y)
        return FALSE;
    }
  return TRUE;
}

static void
on_study_listed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  DocOp *op = user_data;
  g_autoptr(GPtrArray) series = lb_store_list_finish (LB_STORE (source), result, NULL);

  /* without the listing the rows name the series by its UID */
  if (series == NULL || !_lb_window_measure_op_current (op))
    goto out;
  for (guint i = 0; i < op->m->others->len; i++)
    {
      LbWindowMeasureOther *o = g_ptr_array_index (op->m->others, i);

      for (guint k = 0; k < series->len; k++)
        if (g_strcmp0 (lb_store_entry_get_attribute (g_ptr_array_index (series, k),
                                                     "SeriesInstanceUID"), o->series_uid) == 0)
          o->label = g_strdup (lb_store_entry_get_display_name (g_ptr_array_index (series, k)));
    }
  if (op->self->measure == op->m)
    _lb_window_measure_rows_changed (op->self);
out:
  _lb_window_measure_op_free (op);
}

static void
open_other_now (LbWindow *self, gpointer entry)
{
  _lb_window_frames_open_store_series (self, entry);
}

void
_lb_window_measure_open_other (LbWindow *self, LbWindowMeasure *m, LbWindowMeasureOther *o)
{
  g_autoptr(LbStoreEntry) entry = lb_store_entry_new (o->series_uri, o->series_uid,
                                                      LB_STORE_ENTRY_DICOM_SERIES);

  g_free (m->pending_sop);
  m->pending_sop = g_strdup (o->sop_uid);
  g_set_object (&m->pending_other, o->measurement);
  lb_store_entry_set_display_name (entry, o->label != NULL ? o->label : o->series_uid);
  _lb_window_after_unsaved (self, open_other_now, g_steal_pointer (&entry), g_object_unref);
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
  g_autoptr(GHashTable) series_of = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          g_free);
  g_autofree char *sop = NULL, *shown_series = NULL, *study_uri = NULL;
  const char *uri = m->instance_uri;

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
  if (uri == NULL && self->frames != NULL)
    uri = lb_frame_source_get_frame_uri (self->frames, 1);
  shown_series = series_uid_of (uri);
  study_uri = study_uri_of (uri);
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
      add_evidence (series_of, sr);
      for (guint i = 0; i < entries->len; i++)
        {
          const LbMeasurementSrEntry *e = g_ptr_array_index (entries, i);
          guint frame = frame_of_entry (self, slices, sop, e);

          /* the measurement is the list's own: editing it changes no report, and the next
           * save writes it into a new one */
          if (frame > 0)
            {
              lb_measurement_list_append (m->list, e->measurement, frame);
              /* the row of another series clicked: this is it, on its slice */
              if (m->pending_other != NULL
                  && g_strcmp0 (m->pending_sop, e->sop_instance_uid) == 0
                  && same_points (m->pending_other, e->measurement))
                {
                  g_clear_object (&m->pending_other);
                  g_set_object (&m->pending_select, e->measurement);
                  if (frame != _lb_window_measure_frame_shown (self) && self->measure == m)
                    gtk_widget_activate_action (GTK_WIDGET (self), "win.go-to-frame", "u",
                                                frame);
                }
            }
          else
            {
              const char *series = g_hash_table_lookup (series_of, e->sop_instance_uid);
              LbWindowMeasureOther *o;

              /* another series of the study, or another instance of the one open alone:
               * listed, to be opened from the panel (a series shown has them all) */
              if (series == NULL || study_uri == NULL
                  || (slices != NULL && g_strcmp0 (series, shown_series) == 0))
                continue;
              o = g_new0 (LbWindowMeasureOther, 1);
              o->measurement = g_object_ref (e->measurement);
              o->series_uid = g_strdup (series);
              o->series_uri = g_strconcat (study_uri, "series/", series, "/", NULL);
              o->sop_uid = g_strdup (e->sop_instance_uid);
              o->value = value_text (e);
              g_ptr_array_add (m->others, o);
            }
        }
    }
  g_clear_object (&m->pending_other);
  if (m->others->len > 0)
    lb_store_list_async (m->store, study_uri, m->cancellable, NULL, NULL, on_study_listed,
                         _lb_window_measure_op_new (self, m, NULL));
  if (self->measure == m)
    _lb_window_measure_sync (self);
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
