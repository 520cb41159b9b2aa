/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicomweb-store"

#include "lb-dicomweb-store-private.h"

#include "lb-dicomweb-reports.h"
#include "lb-dicom-sr.h"
#include "lb-dicom-tags.h"
#include "lb-error.h"

/* Saving a report is STOW-RS: lb-dicomweb-stow.c. Here: finding a study's reports. */

typedef struct {
  char      *study;
  GPtrArray *series;     /* LbDicomDataset*: the study's SR series (QIDO results) */
  guint      next_series;
  GPtrArray *instances;  /* LbDicomwebLoc*: the SR instances to fetch */
  guint      next_instance;
  GPtrArray *reports;    /* LbDicomDataset*: what was fetched */
} FindData;

static void
find_data_free (FindData *d)
{
  g_free (d->study);
  g_clear_pointer (&d->series, g_ptr_array_unref);
  g_clear_pointer (&d->instances, g_ptr_array_unref);
  g_clear_pointer (&d->reports, g_ptr_array_unref);
  g_free (d);
}

static int
compare_reports (gconstpointer a, gconstpointer b)
{
  const LbDicomDataset *x = *(LbDicomDataset *const *) a, *y = *(LbDicomDataset *const *) b;
  gint64 sx = G_MAXINT64, sy = G_MAXINT64, ix = G_MAXINT64, iy = G_MAXINT64;

  lb_dicom_dataset_get_int (x, LB_TAG_SERIES_NUMBER, 0, &sx);
  lb_dicom_dataset_get_int (y, LB_TAG_SERIES_NUMBER, 0, &sy);
  if (sx != sy)
    return sx < sy ? -1 : 1;
  lb_dicom_dataset_get_int (x, LB_TAG_INSTANCE_NUMBER, 0, &ix);
  lb_dicom_dataset_get_int (y, LB_TAG_INSTANCE_NUMBER, 0, &iy);
  return ix < iy ? -1 : ix > iy;
}

static void fetch_next_report (GTask *task);
static void list_next_series (GTask *task);

static void
on_report_metadata (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  FindData *d = g_task_get_task_data (task);
  GError *error = NULL;
  LbDicomDataset *ds = lb_dicomweb_metadata_finish (result, &error);

  if (ds == NULL)
    {
      lb_store_task_fail (task, error);
      return;
    }
  if (lb_dicom_sr_is_sr (ds))
    g_ptr_array_add (d->reports, ds);
  else
    lb_dicom_dataset_unref (ds);
  fetch_next_report (task);
}

static void
fetch_next_report (GTask *task)
{
  LbDicomwebStore *self = g_task_get_source_object (task);
  FindData *d = g_task_get_task_data (task);

  if (d->next_instance >= d->instances->len)
    {
      g_ptr_array_sort (d->reports, compare_reports);
      g_task_return_pointer (task, g_ptr_array_ref (d->reports),
                             (GDestroyNotify) g_ptr_array_unref);
      g_object_unref (task);
      return;
    }
  lb_dicomweb_metadata_async (self, d->instances->pdata[d->next_instance++],
                              g_task_get_cancellable (task), on_report_metadata, task);
}

static void
on_series_instances (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  LbDicomwebStore *self = g_task_get_source_object (task);
  FindData *d = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(GPtrArray) found = lb_dicomweb_qido_finish (result, &error);
  const char *series_uid = lb_dicom_dataset_get_string (d->series->pdata[d->next_series - 1],
                                                        LB_TAG_SERIES_INSTANCE_UID, 0);

  if (found == NULL)
    {
      lb_store_task_fail (task, error);
      return;
    }
  for (guint i = 0; i < found->len; i++)
    {
      const LbDicomDataset *inst = found->pdata[i];
      const char *sop = lb_dicom_dataset_get_string (inst, LB_TAG_SOP_INSTANCE_UID, 0);
      LbDicomwebLoc *loc;

      /* a SOPClassUID the server names must be an SR class; without one, the metadata says */
      if (sop == NULL || (lb_dicom_dataset_has (inst, LB_TAG_SOP_CLASS_UID)
                          && !lb_dicom_sr_is_sr (inst)))
        continue;
      loc = g_new0 (LbDicomwebLoc, 1);
      loc->level = LB_DICOMWEB_INSTANCE;
      loc->study = g_strdup (d->study);
      loc->series = g_strdup (series_uid);
      loc->instance = g_strdup (sop);
      loc->uri = lb_dicomweb_instance_uri (self, d->study, series_uid, sop);
      g_ptr_array_add (d->instances, loc);
    }
  list_next_series (task);
}

static void
list_next_series (GTask *task)
{
  LbDicomwebStore *self = g_task_get_source_object (task);
  FindData *d = g_task_get_task_data (task);
  const char *series_uid;
  g_autofree char *st = NULL, *se = NULL, *query = NULL;

  while (d->next_series < d->series->len)
    {
      series_uid = lb_dicom_dataset_get_string (d->series->pdata[d->next_series++],
                                                LB_TAG_SERIES_INSTANCE_UID, 0);
      if (series_uid == NULL)
        continue;
      st = lb_dicomweb_escape (d->study);
      se = lb_dicomweb_escape (series_uid);
      query = g_strdup_printf ("/studies/%s/series/%s/instances?includefield=00080016", st, se);
      lb_dicomweb_qido_async (self, query, g_task_get_cancellable (task), NULL, NULL,
                              on_series_instances, task);
      return;
    }
  fetch_next_report (task);
}

static void
on_sr_series (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  FindData *d = g_task_get_task_data (task);
  GError *error = NULL;

  d->series = lb_dicomweb_qido_finish (result, &error);
  if (d->series == NULL)
    {
      lb_store_task_fail (task, error);
      return;
    }
  list_next_series (task);
}

void
lb_dicomweb_store_find_reports_async (LbDicomwebStore *self, const char *uri,
                                      GCancellable *cancellable, GAsyncReadyCallback callback,
                                      gpointer user_data)
{
  GTask *task;
  FindData *d;
  LbDicomwebLoc loc;
  g_autofree char *st = NULL, *query = NULL;

  g_return_if_fail (LB_IS_DICOMWEB_STORE (self));
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, lb_dicomweb_store_find_reports_async);
  d = g_new0 (FindData, 1);
  d->instances = g_ptr_array_new_with_free_func ((GDestroyNotify) lb_dicomweb_loc_free);
  d->reports = g_ptr_array_new_with_free_func ((GDestroyNotify) lb_dicom_dataset_unref);
  g_task_set_task_data (task, d, (GDestroyNotify) find_data_free);
  if (!lb_dicomweb_task_loc (task, uri, FALSE, &loc))
    return;
  if (loc.level < LB_DICOMWEB_STUDY)
    {
      lb_store_task_fail (task, g_error_new (LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                                             "%s: not in a study; reports belong to a study",
                                             uri ? uri : self->root_uri));
      lb_dicomweb_loc_clear (&loc);
      return;
    }
  d->study = g_strdup (loc.study);
  lb_dicomweb_loc_clear (&loc);
  st = lb_dicomweb_escape (d->study);
  query = g_strdup_printf ("/studies/%s/series?Modality=SR&includefield=00200011", st);
  lb_dicomweb_qido_async (self, query, cancellable, NULL, NULL, on_sr_series, task);
}

GPtrArray *
lb_dicomweb_store_find_reports_finish (LbDicomwebStore *self, GAsyncResult *result,
                                       GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
