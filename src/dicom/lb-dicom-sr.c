/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicom"

#include "config.h"

#include "lb-dicom-sr.h"

#include <math.h>
#include <string.h>

#include "lb-dicom-tags.h"
#include "lb-dicom-writer.h"
#include "lb-error.h"

/* ---- codes -------------------------------------------------------------------------------- */

/* SNOMED CT codes were "SRT" before 2019 (PS3.16 8.1); the numeric codes are the same. */
static gboolean
same_scheme (const char *a, const char *b)
{
  if (g_strcmp0 (a, b) == 0)
    return TRUE;
  return (g_strcmp0 (a, "SCT") == 0 || g_strcmp0 (a, "SRT") == 0)
         && (g_strcmp0 (b, "SCT") == 0 || g_strcmp0 (b, "SRT") == 0);
}

gboolean
lb_dicom_code_equal (LbDicomCode a, LbDicomCode b)
{
  return a.value != NULL && g_strcmp0 (a.value, b.value) == 0 && same_scheme (a.scheme, b.scheme);
}

LbDicomDataset *
lb_dicom_code_item_new (LbDicomCode code)
{
  LbDicomDataset *item = lb_dicom_dataset_new ();

  lb_dicom_dataset_set_string (item, LB_TAG_CODE_VALUE, "SH", code.value);
  lb_dicom_dataset_set_string (item, LB_TAG_CODING_SCHEME_DESIGNATOR, "SH", code.scheme);
  lb_dicom_dataset_set_string (item, LB_TAG_CODE_MEANING, "LO", code.meaning);
  return item;
}

gboolean
lb_dicom_dataset_get_code (const LbDicomDataset *ds, guint32 tag, LbDicomCode *code)
{
  LbDicomDataset *item = lb_dicom_dataset_get_item (ds, tag, 0);

  *code = (LbDicomCode) { NULL, NULL, NULL };
  if (item == NULL)
    return FALSE;
  code->value = lb_dicom_dataset_get_string (item, LB_TAG_CODE_VALUE, 0);
  code->scheme = lb_dicom_dataset_get_string (item, LB_TAG_CODING_SCHEME_DESIGNATOR, 0);
  code->meaning = lb_dicom_dataset_get_string (item, LB_TAG_CODE_MEANING, 0);
  if (code->value == NULL || code->scheme == NULL)
    {
      *code = (LbDicomCode) { NULL, NULL, NULL };
      return FALSE;
    }
  return TRUE;
}

static void
set_code (LbDicomDataset *ds, guint32 tag, LbDicomCode code)
{
  g_autoptr(LbDicomDataset) item = lb_dicom_code_item_new (code);

  lb_dicom_dataset_remove (ds, tag);
  lb_dicom_dataset_add_item (ds, tag, item);
}

/* ---- content items ------------------------------------------------------------------------ */

static LbDicomDataset *
item_new (const char *relationship, const char *value_type, const LbDicomCode *concept)
{
  LbDicomDataset *item = lb_dicom_dataset_new ();

  if (relationship != NULL)
    lb_dicom_dataset_set_string (item, LB_TAG_RELATIONSHIP_TYPE, "CS", relationship);
  lb_dicom_dataset_set_string (item, LB_TAG_VALUE_TYPE, "CS", value_type);
  if (concept != NULL)
    set_code (item, LB_TAG_CONCEPT_NAME_CODE_SEQUENCE, *concept);
  return item;
}

LbDicomDataset *
lb_dicom_sr_container_new (const char *relationship, const LbDicomCode *concept)
{
  LbDicomDataset *item = item_new (relationship, "CONTAINER", concept);

  /* the items of a measurement report are separate observations, not one running text */
  lb_dicom_dataset_set_string (item, LB_TAG_CONTINUITY_OF_CONTENT, "CS", "SEPARATE");
  return item;
}

LbDicomDataset *
lb_dicom_sr_code_new (const char *relationship, const LbDicomCode *concept, LbDicomCode value)
{
  LbDicomDataset *item = item_new (relationship, "CODE", concept);

  set_code (item, LB_TAG_CONCEPT_CODE_SEQUENCE, value);
  return item;
}

LbDicomDataset *
lb_dicom_sr_text_new (const char *relationship, const LbDicomCode *concept, const char *text)
{
  LbDicomDataset *item = item_new (relationship, "TEXT", concept);
  GPtrArray *values = g_ptr_array_new ();

  /* UT: one value, which may hold '\' */
  g_ptr_array_add (values, g_strdup (text));
  lb_dicom_dataset_take_values (item, LB_TAG_TEXT_VALUE, "UT", values);
  return item;
}

LbDicomDataset *
lb_dicom_sr_uidref_new (const char *relationship, const LbDicomCode *concept, const char *uid)
{
  LbDicomDataset *item = item_new (relationship, "UIDREF", concept);

  lb_dicom_dataset_set_string (item, LB_TAG_UID, "UI", uid);
  return item;
}

LbDicomDataset *
lb_dicom_sr_num_new (const char *relationship, const LbDicomCode *concept, double value,
                     LbDicomCode unit)
{
  LbDicomDataset *item = item_new (relationship, "NUM", concept);
  g_autoptr(LbDicomDataset) measured = lb_dicom_dataset_new ();
  g_autofree char *fd = g_strdup_printf ("%.17g", value);

  g_return_val_if_fail (isfinite (value), item);
  lb_dicom_dataset_set_double (measured, LB_TAG_NUMERIC_VALUE, value);
  /* PS3.3 C.18.1: FloatingPointValue when the DS cannot hold the value exactly */
  lb_dicom_dataset_set_string (measured, LB_TAG_FLOATING_POINT_VALUE, "FD", fd);
  set_code (measured, LB_TAG_MEASUREMENT_UNITS_CODE_SEQUENCE, unit);
  lb_dicom_dataset_add_item (item, LB_TAG_MEASURED_VALUE_SEQUENCE, measured);
  return item;
}

LbDicomDataset *
lb_dicom_sr_scoord_new (const char *relationship, const LbDicomCode *concept,
                        const char *graphic_type, const double *xy, guint n_points)
{
  LbDicomDataset *item = item_new (relationship, "SCOORD", concept);
  GPtrArray *values = g_ptr_array_new ();

  lb_dicom_dataset_set_string (item, LB_TAG_GRAPHIC_TYPE, "CS", graphic_type);
  /* FL: 9 significant digits give back the same single-precision number */
  for (guint i = 0; i < 2 * n_points; i++)
    g_ptr_array_add (values, g_strdup_printf ("%.9g", (double) (float) xy[i]));
  lb_dicom_dataset_take_values (item, LB_TAG_GRAPHIC_DATA, "FL", values);
  return item;
}

LbDicomDataset *
lb_dicom_sr_image_new (const char *relationship, const LbDicomCode *concept,
                       const char *sop_class_uid, const char *sop_instance_uid,
                       guint frame_number)
{
  LbDicomDataset *item = item_new (relationship, "IMAGE", concept);
  g_autoptr(LbDicomDataset) ref = lb_dicom_dataset_new ();

  lb_dicom_dataset_set_string (ref, LB_TAG_REFERENCED_SOP_CLASS_UID, "UI", sop_class_uid);
  lb_dicom_dataset_set_string (ref, LB_TAG_REFERENCED_SOP_INSTANCE_UID, "UI", sop_instance_uid);
  if (frame_number > 0)
    lb_dicom_dataset_set_uint (ref, LB_TAG_REFERENCED_FRAME_NUMBER, "IS", frame_number);
  lb_dicom_dataset_add_item (item, LB_TAG_REFERENCED_SOP_SEQUENCE, ref);
  return item;
}

LbDicomDataset *
lb_dicom_sr_add (LbDicomDataset *parent, LbDicomDataset *child)
{
  lb_dicom_dataset_add_item (parent, LB_TAG_CONTENT_SEQUENCE, child);
  return child;
}

void
lb_dicom_sr_take (LbDicomDataset *parent, LbDicomDataset *child)
{
  lb_dicom_dataset_add_item (parent, LB_TAG_CONTENT_SEQUENCE, child);
  lb_dicom_dataset_unref (child);
}

const char *
lb_dicom_sr_get_value_type (const LbDicomDataset *item)
{
  return lb_dicom_dataset_get_string (item, LB_TAG_VALUE_TYPE, 0);
}

const char *
lb_dicom_sr_get_relationship (const LbDicomDataset *item)
{
  return lb_dicom_dataset_get_string (item, LB_TAG_RELATIONSHIP_TYPE, 0);
}

gboolean
lb_dicom_sr_has_concept (const LbDicomDataset *item, LbDicomCode concept)
{
  LbDicomCode code;

  return lb_dicom_dataset_get_code (item, LB_TAG_CONCEPT_NAME_CODE_SEQUENCE, &code)
         && lb_dicom_code_equal (code, concept);
}

guint
lb_dicom_sr_get_n_children (const LbDicomDataset *item)
{
  return lb_dicom_dataset_get_n_items (item, LB_TAG_CONTENT_SEQUENCE);
}

LbDicomDataset *
lb_dicom_sr_get_child (const LbDicomDataset *item, guint index)
{
  return lb_dicom_dataset_get_item (item, LB_TAG_CONTENT_SEQUENCE, index);
}

LbDicomDataset *
lb_dicom_sr_find_child (const LbDicomDataset *item, LbDicomCode concept, const char *value_type)
{
  guint n = lb_dicom_sr_get_n_children (item);

  for (guint i = 0; i < n; i++)
    {
      LbDicomDataset *child = lb_dicom_sr_get_child (item, i);

      if (lb_dicom_sr_has_concept (child, concept)
          && (value_type == NULL
              || g_strcmp0 (lb_dicom_sr_get_value_type (child), value_type) == 0))
        return child;
    }
  return NULL;
}

gboolean
lb_dicom_sr_get_num (const LbDicomDataset *item, double *value, LbDicomCode *unit)
{
  LbDicomDataset *measured = lb_dicom_dataset_get_item (item, LB_TAG_MEASURED_VALUE_SEQUENCE, 0);

  if (measured == NULL)
    return FALSE;
  if (!lb_dicom_dataset_get_double (measured, LB_TAG_FLOATING_POINT_VALUE, 0, value)
      && !lb_dicom_dataset_get_double (measured, LB_TAG_NUMERIC_VALUE, 0, value))
    return FALSE;
  if (!isfinite (*value))
    return FALSE;
  lb_dicom_dataset_get_code (measured, LB_TAG_MEASUREMENT_UNITS_CODE_SEQUENCE, unit);
  return TRUE;
}

double *
lb_dicom_sr_get_scoord (const LbDicomDataset *item, const char **graphic_type, guint *n_points,
                        GError **error)
{
  const char *type = lb_dicom_dataset_get_string (item, LB_TAG_GRAPHIC_TYPE, 0);
  guint n = lb_dicom_dataset_get_n_values (item, LB_TAG_GRAPHIC_DATA);
  g_autofree double *xy = NULL;
  guint want = 0;

  if (type == NULL || n == 0 || n % 2 != 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE,
                   "SCOORD: GraphicType %s with %u values of GraphicData: no (column, row) "
                   "pairs", type ? type : "(none)", n);
      return NULL;
    }
  if (strcmp (type, "POINT") == 0)
    want = 1;
  else if (strcmp (type, "CIRCLE") == 0)
    want = 2;
  else if (strcmp (type, "ELLIPSE") == 0)
    want = 4;
  else if (strcmp (type, "POLYLINE") != 0 && strcmp (type, "MULTIPOINT") != 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "SCOORD: unknown GraphicType %s", type);
      return NULL;
    }
  if (want != 0 && n / 2 != want)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "SCOORD %s needs %u points, not %u", type,
                   want, n / 2);
      return NULL;
    }
  xy = g_new (double, n);
  for (guint i = 0; i < n; i++)
    if (!lb_dicom_dataset_get_double (item, LB_TAG_GRAPHIC_DATA, i, &xy[i]) || !isfinite (xy[i]))
      {
        g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "SCOORD %s: GraphicData value %u is not a "
                     "number", type, i + 1);
        return NULL;
      }
    else
      /* GraphicData is FL: text (a file's "%.9g", a JSON number) comes back to the same
       * single-precision number whatever digits carried it */
      xy[i] = (float) xy[i];
  *graphic_type = type;
  *n_points = n / 2;
  return g_steal_pointer (&xy);
}

gboolean
lb_dicom_sr_get_image (const LbDicomDataset *item, const char **sop_class_uid,
                       const char **sop_instance_uid, guint *frame_number)
{
  LbDicomDataset *ref = lb_dicom_dataset_get_item (item, LB_TAG_REFERENCED_SOP_SEQUENCE, 0);
  gint64 frame = 0;

  if (ref == NULL)
    return FALSE;
  *sop_class_uid = lb_dicom_dataset_get_string (ref, LB_TAG_REFERENCED_SOP_CLASS_UID, 0);
  *sop_instance_uid = lb_dicom_dataset_get_string (ref, LB_TAG_REFERENCED_SOP_INSTANCE_UID, 0);
  /* several frames may be named; a measurement is drawn on the first */
  if (!lb_dicom_dataset_get_int (ref, LB_TAG_REFERENCED_FRAME_NUMBER, 0, &frame) || frame < 1
      || frame > G_MAXINT32)
    frame = 0;
  *frame_number = (guint) frame;
  return *sop_instance_uid != NULL;
}

/* ---- the document ------------------------------------------------------------------------- */

gboolean
lb_dicom_sr_is_sr (const LbDicomDataset *ds)
{
  const char *cls = lb_dicom_dataset_get_string (ds, LB_TAG_SOP_CLASS_UID, 0);

  return g_strcmp0 (cls, LB_DICOM_SOP_CLASS_BASIC_TEXT_SR) == 0
         || g_strcmp0 (cls, LB_DICOM_SOP_CLASS_ENHANCED_SR) == 0
         || g_strcmp0 (cls, LB_DICOM_SOP_CLASS_COMPREHENSIVE_SR) == 0
         || g_strcmp0 (cls, LB_DICOM_SOP_CLASS_COMPREHENSIVE_3D_SR) == 0;
}

/* The item of @seq in @ds whose @tag is @value, created (with that value) when there is none. */
static LbDicomDataset *
item_with (LbDicomDataset *ds, guint32 seq, guint32 tag, const char *value)
{
  guint n = lb_dicom_dataset_get_n_items (ds, seq);
  g_autoptr(LbDicomDataset) item = NULL;

  for (guint i = 0; i < n; i++)
    {
      LbDicomDataset *it = lb_dicom_dataset_get_item (ds, seq, i);

      if (g_strcmp0 (lb_dicom_dataset_get_string (it, tag, 0), value) == 0)
        return it;
    }
  item = lb_dicom_dataset_new ();
  lb_dicom_dataset_set_string (item, tag, "UI", value);
  lb_dicom_dataset_add_item (ds, seq, item);
  return item;
}

LbDicomDataset *
lb_dicom_sr_document_new (const LbDicomDataset *study, const LbDicomDataset *root,
                          GPtrArray *evidence, guint series_number,
                          const char *series_description, GError **error)
{
  g_autoptr(LbDicomDataset) ds = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *series_uid = lb_dicom_generate_uid ();
  g_autofree char *date = g_date_time_format (now, "%Y%m%d");
  g_autofree char *time = g_date_time_format (now, "%H%M%S");
  const char *study_uid;
  g_autofree guint32 *tags = NULL;
  guint n_tags = 0;

  g_return_val_if_fail (study != NULL && root != NULL, NULL);
  study_uid = lb_dicom_dataset_get_string (study, LB_TAG_STUDY_INSTANCE_UID, 0);
  if (study_uid == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "the measured images have no StudyInstanceUID: a report cannot join their "
                   "study");
      return NULL;
    }

  /* SOP Common, Patient, General Study */
  ds = lb_dicom_new_instance_in_study (LB_DICOM_SOP_CLASS_COMPREHENSIVE_SR, study, now);

  /* SR Document Series (C.17.1): a series of its own, never another reader's */
  lb_dicom_dataset_set_string (ds, LB_TAG_MODALITY, "CS", "SR");
  lb_dicom_dataset_set_string (ds, LB_TAG_SERIES_INSTANCE_UID, "UI", series_uid);
  lb_dicom_dataset_set_uint (ds, LB_TAG_SERIES_NUMBER, "IS", series_number);
  lb_dicom_dataset_set_string (ds, LB_TAG_SERIES_DATE, "DA", date);
  lb_dicom_dataset_set_string (ds, LB_TAG_SERIES_TIME, "TM", time);
  if (series_description != NULL)
    {
      g_autofree char *desc = g_utf8_substring (series_description, 0,
                                                MIN (g_utf8_strlen (series_description, -1), 64));

      g_strdelimit (desc, "\\", '/');
      lb_dicom_dataset_set_string (ds, LB_TAG_SERIES_DESCRIPTION, "LO", desc);
    }
  lb_dicom_dataset_take_items (ds, LB_TAG_REFERENCED_PPS_SEQUENCE, g_ptr_array_new ());

  /* General Equipment */
  lb_dicom_dataset_set_string (ds, LB_TAG_MANUFACTURER, "LO", "Lightbox");

  /* SR Document General (C.17.2) */
  lb_dicom_dataset_set_string (ds, LB_TAG_INSTANCE_NUMBER, "IS", "1");
  lb_dicom_dataset_set_string (ds, LB_TAG_COMPLETION_FLAG, "CS", "PARTIAL");
  lb_dicom_dataset_set_string (ds, LB_TAG_VERIFICATION_FLAG, "CS", "UNVERIFIED");
  lb_dicom_dataset_set_string (ds, LB_TAG_CONTENT_DATE, "DA", date);
  lb_dicom_dataset_set_string (ds, LB_TAG_CONTENT_TIME, "TM", time);
  lb_dicom_dataset_take_items (ds, LB_TAG_PERFORMED_PROCEDURE_CODE_SEQUENCE, g_ptr_array_new ());
  for (guint i = 0; evidence != NULL && i < evidence->len; i++)
    {
      const LbDicomDataset *ev = evidence->pdata[i];
      const char *st = lb_dicom_dataset_get_string (ev, LB_TAG_STUDY_INSTANCE_UID, 0);
      const char *se = lb_dicom_dataset_get_string (ev, LB_TAG_SERIES_INSTANCE_UID, 0);
      const char *cls = lb_dicom_dataset_get_string (ev, LB_TAG_SOP_CLASS_UID, 0);
      const char *in = lb_dicom_dataset_get_string (ev, LB_TAG_SOP_INSTANCE_UID, 0);
      LbDicomDataset *study_item, *series_item, *sop_item;

      if (st == NULL || se == NULL || cls == NULL || in == NULL)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                       "measured image %u lacks one of StudyInstanceUID, SeriesInstanceUID, "
                       "SOPClassUID, SOPInstanceUID", i + 1);
          return NULL;
        }
      if (strcmp (st, study_uid) != 0)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                       "measured image %s is in study %s, not in the report's study %s", in,
                       st, study_uid);
          return NULL;
        }
      /* C.17.2.3 Hierarchical SOP Instance Reference macro: study → series → instances */
      study_item = item_with (ds, LB_TAG_CURRENT_EVIDENCE_SEQUENCE, LB_TAG_STUDY_INSTANCE_UID, st);
      series_item = item_with (study_item, LB_TAG_REFERENCED_SERIES_SEQUENCE,
                               LB_TAG_SERIES_INSTANCE_UID, se);
      sop_item = item_with (series_item, LB_TAG_REFERENCED_SOP_SEQUENCE,
                            LB_TAG_REFERENCED_SOP_INSTANCE_UID, in);
      lb_dicom_dataset_set_string (sop_item, LB_TAG_REFERENCED_SOP_CLASS_UID, "UI", cls);
    }

  /* SR Document Content (C.17.3): the root item's attributes at the top level */
  tags = lb_dicom_dataset_get_tags (root, &n_tags);
  for (guint i = 0; i < n_tags; i++)
    if (tags[i] != LB_TAG_RELATIONSHIP_TYPE)
      lb_dicom_dataset_copy_element (ds, root, tags[i]);
  return g_steal_pointer (&ds);
}

/* ---- TID 1500 ----------------------------------------------------------------------------- */

LbDicomDataset *
lb_dicom_tid1500_new (GPtrArray *evidence, GArray *frames, const char *observer_uid)
{
  LbDicomCode title = LB_CODE_IMAGING_MEASUREMENT_REPORT, language = LB_CODE_LANGUAGE;
  LbDicomCode observer_type = LB_CODE_OBSERVER_TYPE, device_uid = LB_CODE_DEVICE_OBSERVER_UID;
  LbDicomCode device_name = LB_CODE_DEVICE_OBSERVER_NAME, procedure = LB_CODE_PROCEDURE_REPORTED;
  LbDicomCode library = LB_CODE_IMAGE_LIBRARY, library_group = LB_CODE_IMAGE_LIBRARY_GROUP;
  LbDicomCode measurements = LB_CODE_IMAGING_MEASUREMENTS;
  LbDicomDataset *root = lb_dicom_sr_container_new (NULL, &title);
  g_autoptr(LbDicomDataset) template = lb_dicom_dataset_new ();
  LbDicomDataset *lib, *group;

  lb_dicom_dataset_set_string (template, LB_TAG_MAPPING_RESOURCE, "CS", "DCMR");
  lb_dicom_dataset_set_string (template, LB_TAG_TEMPLATE_IDENTIFIER, "CS", "1500");
  lb_dicom_dataset_add_item (root, LB_TAG_CONTENT_TEMPLATE_SEQUENCE, template);

  /* TID 1204 Language of Content Item and Descendants */
  lb_dicom_sr_take (root, lb_dicom_sr_code_new ("HAS CONCEPT MOD", &language, LB_CODE_ENGLISH_US));
  /* TID 1001 → 1002 Observer Context → 1004 Device Observer Identifying Attributes */
  lb_dicom_sr_take (root, lb_dicom_sr_code_new ("HAS OBS CONTEXT", &observer_type,
                                                LB_CODE_DEVICE));
  lb_dicom_sr_take (root, lb_dicom_sr_uidref_new ("HAS OBS CONTEXT", &device_uid, observer_uid));
  lb_dicom_sr_take (root, lb_dicom_sr_text_new ("HAS OBS CONTEXT", &device_name, "Lightbox"));
  lb_dicom_sr_take (root, lb_dicom_sr_code_new ("HAS CONCEPT MOD", &procedure,
                                                LB_CODE_IMAGING_PROCEDURE));

  /* TID 1600 Image Library: one group holding every measured image */
  lib = lb_dicom_sr_container_new ("CONTAINS", &library);
  group = lb_dicom_sr_container_new ("CONTAINS", &library_group);
  for (guint i = 0; evidence != NULL && i < evidence->len; i++)
    {
      const LbDicomDataset *ev = evidence->pdata[i];
      guint frame = frames != NULL && i < frames->len ? g_array_index (frames, guint, i) : 0;

      lb_dicom_sr_take (group, lb_dicom_sr_image_new (
        "CONTAINS", NULL, lb_dicom_dataset_get_string (ev, LB_TAG_SOP_CLASS_UID, 0),
        lb_dicom_dataset_get_string (ev, LB_TAG_SOP_INSTANCE_UID, 0), frame));
    }
  lb_dicom_sr_take (lib, group);
  lb_dicom_sr_take (root, lib);
  lb_dicom_sr_take (root, lb_dicom_sr_container_new ("CONTAINS", &measurements));
  return root;
}

LbDicomDataset *
lb_dicom_tid1500_add_group (LbDicomDataset *report, const char *tracking_id,
                            const char *tracking_uid)
{
  LbDicomCode group_code = LB_CODE_MEASUREMENT_GROUP, id_code = LB_CODE_TRACKING_IDENTIFIER;
  LbDicomCode uid_code = LB_CODE_TRACKING_UID;
  LbDicomDataset *measurements = lb_dicom_sr_find_child (report, LB_CODE_IMAGING_MEASUREMENTS,
                                                         "CONTAINER");
  LbDicomDataset *group;

  g_return_val_if_fail (measurements != NULL, NULL);
  group = lb_dicom_sr_container_new ("CONTAINS", &group_code);
  lb_dicom_sr_take (group, lb_dicom_sr_text_new ("HAS OBS CONTEXT", &id_code, tracking_id));
  lb_dicom_sr_take (group, lb_dicom_sr_uidref_new ("HAS OBS CONTEXT", &uid_code, tracking_uid));
  lb_dicom_sr_take (measurements, group);
  return group;
}

GPtrArray *
lb_dicom_tid1500_get_groups (const LbDicomDataset *sr)
{
  GPtrArray *groups = g_ptr_array_new ();
  guint n = lb_dicom_sr_get_n_children (sr);

  if (!lb_dicom_sr_has_concept (sr, LB_CODE_IMAGING_MEASUREMENT_REPORT))
    return groups;
  for (guint i = 0; i < n; i++)
    {
      LbDicomDataset *child = lb_dicom_sr_get_child (sr, i);
      guint m;

      if (!lb_dicom_sr_has_concept (child, LB_CODE_IMAGING_MEASUREMENTS)
          || g_strcmp0 (lb_dicom_sr_get_value_type (child), "CONTAINER") != 0)
        continue;
      m = lb_dicom_sr_get_n_children (child);
      for (guint j = 0; j < m; j++)
        {
          LbDicomDataset *group = lb_dicom_sr_get_child (child, j);

          if (lb_dicom_sr_has_concept (group, LB_CODE_MEASUREMENT_GROUP)
              && g_strcmp0 (lb_dicom_sr_get_value_type (group), "CONTAINER") == 0)
            g_ptr_array_add (groups, group);
        }
    }
  return groups;
}
