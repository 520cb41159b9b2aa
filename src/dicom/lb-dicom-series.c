/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicom"

#include "lb-dicom-series.h"

#include <math.h>
#include <string.h>

#include "lb-dicom-tags.h"

struct _LbDicomSeries {
  GObject parent_instance;

  GArray   *slices;     /* LbDicomSlice */
  gboolean  has_normal;
  double    normal[3];
  double    spacing;
  guint     n_missing;
  LbDicomSeriesWarning warnings;
  GPtrArray *messages;  /* char*, NULL-terminated */
};

G_DEFINE_FINAL_TYPE (LbDicomSeries, lb_dicom_series, G_TYPE_OBJECT)

static void
slice_clear (gpointer p)
{
  LbDicomSlice *s = p;

  g_free (s->name);
}

static void
lb_dicom_series_finalize (GObject *object)
{
  LbDicomSeries *self = LB_DICOM_SERIES (object);

  g_array_unref (self->slices);
  g_ptr_array_unref (self->messages);
  G_OBJECT_CLASS (lb_dicom_series_parent_class)->finalize (object);
}

static void
lb_dicom_series_class_init (LbDicomSeriesClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = lb_dicom_series_finalize;
}

static void
lb_dicom_series_init (LbDicomSeries *self)
{
  self->slices = g_array_new (FALSE, TRUE, sizeof (LbDicomSlice));
  g_array_set_clear_func (self->slices, slice_clear);
  self->messages = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->messages, NULL);
}

LbDicomSeries *
lb_dicom_series_new (void)
{
  return g_object_new (LB_TYPE_DICOM_SERIES, NULL);
}

/* ---- geometry of one slice ------------------------------------------------------------- */

static gboolean
get_doubles (const LbDicomDataset *ds, guint32 tag, double *out, guint n)
{
  if (ds == NULL || lb_dicom_dataset_get_n_values (ds, tag) != n)
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (!lb_dicom_dataset_get_double (ds, tag, i, &out[i]) || !isfinite (out[i]))
      return FALSE;
  return TRUE;
}

static void
cross (const double a[3], const double b[3], double out[3])
{
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

/* The unit normal of an orientation; FALSE when the cosines do not span a plane. */
static gboolean
orientation_normal (const double iop[6], double n[3])
{
  double len;

  cross (iop, iop + 3, n);
  len = sqrt (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (!(len > 1e-6))
    return FALSE;
  for (int i = 0; i < 3; i++)
    n[i] /= len;
  return TRUE;
}

/* @tag (a sequence) in functional group item @group, then its one attribute @attr. */
static gboolean
group_doubles (const LbDicomDataset *group, guint32 seq, guint32 attr, double *out, guint n)
{
  if (group == NULL || lb_dicom_dataset_get_n_items (group, seq) == 0)
    return FALSE;
  return get_doubles (lb_dicom_dataset_get_item (group, seq, 0), attr, out, n);
}

guint
lb_dicom_series_add (LbDicomSeries *self, const char *name, const LbDicomDataset *ds)
{
  gint64 n_frames = 1, number;
  gboolean has_number;
  double top_ipp[3], top_iop[6];
  gboolean has_top_ipp, has_top_iop;
  LbDicomDataset *shared = NULL;
  guint n_per_frame;

  g_return_val_if_fail (LB_IS_DICOM_SERIES (self), 0);
  g_return_val_if_fail (name != NULL && ds != NULL, 0);

  if (!lb_dicom_dataset_get_int (ds, LB_TAG_NUMBER_OF_FRAMES, 0, &n_frames) || n_frames < 1)
    n_frames = 1;
  has_number = lb_dicom_dataset_get_int (ds, LB_TAG_INSTANCE_NUMBER, 0, &number);
  has_top_ipp = get_doubles (ds, LB_TAG_IMAGE_POSITION_PATIENT, top_ipp, 3);
  has_top_iop = get_doubles (ds, LB_TAG_IMAGE_ORIENTATION_PATIENT, top_iop, 6);
  if (lb_dicom_dataset_get_n_items (ds, LB_TAG_SHARED_FUNCTIONAL_GROUPS_SEQUENCE) > 0)
    shared = lb_dicom_dataset_get_item (ds, LB_TAG_SHARED_FUNCTIONAL_GROUPS_SEQUENCE, 0);
  n_per_frame = lb_dicom_dataset_get_n_items (ds, LB_TAG_PER_FRAME_FUNCTIONAL_GROUPS_SEQUENCE);

  for (gint64 f = 0; f < n_frames; f++)
    {
      LbDicomSlice s = { 0 };
      LbDicomDataset *pf = (guint64) f < n_per_frame
                           ? lb_dicom_dataset_get_item (ds, LB_TAG_PER_FRAME_FUNCTIONAL_GROUPS_SEQUENCE,
                                                        (guint) f)
                           : NULL;
      gboolean has_ipp, has_iop;
      double n[3];

      s.name = g_strdup (name);
      s.frame = (guint) f;
      s.n_frames = (guint) n_frames;
      s.has_instance_number = has_number;
      s.instance_number = has_number ? number : 0;
      /* A frame's own Plane Position comes first; the top-level position belongs to a
       * single-frame object only: the frames of a multi-frame object without per-frame
       * positions (cine, NM) are ordered by frame number, not as duplicates of one place. */
      has_ipp = group_doubles (pf, LB_TAG_PLANE_POSITION_SEQUENCE, LB_TAG_IMAGE_POSITION_PATIENT,
                               s.position, 3)
                || group_doubles (shared, LB_TAG_PLANE_POSITION_SEQUENCE,
                                  LB_TAG_IMAGE_POSITION_PATIENT, s.position, 3);
      if (!has_ipp && n_frames == 1 && has_top_ipp)
        {
          memcpy (s.position, top_ipp, sizeof top_ipp);
          has_ipp = TRUE;
        }
      has_iop = group_doubles (pf, LB_TAG_PLANE_ORIENTATION_SEQUENCE,
                               LB_TAG_IMAGE_ORIENTATION_PATIENT, s.orientation, 6)
                || group_doubles (shared, LB_TAG_PLANE_ORIENTATION_SEQUENCE,
                                  LB_TAG_IMAGE_ORIENTATION_PATIENT, s.orientation, 6);
      if (!has_iop && has_top_iop)
        {
          memcpy (s.orientation, top_iop, sizeof top_iop);
          has_iop = TRUE;
        }
      s.has_position = has_ipp && has_iop && orientation_normal (s.orientation, n);
      s.location = NAN;
      g_array_append_val (self->slices, s);
    }
  return (guint) n_frames;
}

/* ---- ordering ---------------------------------------------------------------------------- */

static gboolean
same_orientation (const double a[6], const double b[6])
{
  for (int i = 0; i < 6; i++)
    if (fabs (a[i] - b[i]) > LB_DICOM_SERIES_SAME_ORIENTATION)
      return FALSE;
  return TRUE;
}

/* The orientation most slices share; -1 when none has a position. */
static gint
reference_orientation (LbDicomSeries *self)
{
  guint best_count = 0;
  gint best = -1;

  for (guint i = 0; i < self->slices->len; i++)
    {
      const LbDicomSlice *a = &g_array_index (self->slices, LbDicomSlice, i);
      guint count = 0;

      if (!a->has_position)
        continue;
      for (guint j = 0; j < self->slices->len; j++)
        {
          const LbDicomSlice *b = &g_array_index (self->slices, LbDicomSlice, j);

          count += b->has_position && same_orientation (a->orientation, b->orientation);
        }
      if (count > best_count)
        {
          best_count = count;
          best = (gint) i;
        }
    }
  return best;
}

static int
compare_slices (gconstpointer pa, gconstpointer pb)
{
  const LbDicomSlice *a = pa, *b = pb;
  int c;

  if (a->has_position != b->has_position)
    return a->has_position ? -1 : 1;
  if (a->has_position && a->location != b->location)
    return a->location < b->location ? -1 : 1;
  if (a->has_instance_number != b->has_instance_number)
    return a->has_instance_number ? -1 : 1;
  if (a->instance_number != b->instance_number)
    return a->instance_number < b->instance_number ? -1 : 1;
  c = strcmp (a->name, b->name);
  if (c != 0)
    return c;
  return a->frame < b->frame ? -1 : a->frame > b->frame;
}

static int
compare_doubles (gconstpointer pa, gconstpointer pb)
{
  double a = *(const double *) pa, b = *(const double *) pb;

  return a < b ? -1 : a > b;
}

static void
add_message (LbDicomSeries *self, char *message)
{
  /* keep the array NULL-terminated */
  self->messages->pdata[self->messages->len - 1] = message;
  g_ptr_array_add (self->messages, NULL);
}

/* Spacing, duplicates, missing slices and irregular gaps of the sorted locations. */
static void
measure_gaps (LbDicomSeries *self)
{
  g_autoptr(GArray) gaps = g_array_new (FALSE, FALSE, sizeof (double));
  guint n_duplicates = 0, n_irregular = 0;
  const LbDicomSlice *prev = NULL;

  for (guint i = 0; i < self->slices->len; i++)
    {
      const LbDicomSlice *s = &g_array_index (self->slices, LbDicomSlice, i);

      if (!s->has_position)
        break;
      if (prev != NULL)
        {
          double gap = s->location - prev->location;

          if (gap < LB_DICOM_SERIES_SAME_POSITION_MM)
            n_duplicates++;
          else
            g_array_append_val (gaps, gap);
        }
      prev = s;
    }
  if (gaps->len > 0)
    {
      g_autoptr(GArray) sorted = g_array_copy (gaps);
      guint m = sorted->len;

      g_array_sort (sorted, compare_doubles);
      self->spacing = m % 2 ? g_array_index (sorted, double, m / 2)
                            : (g_array_index (sorted, double, m / 2 - 1)
                               + g_array_index (sorted, double, m / 2)) / 2;
      for (guint i = 0; i < gaps->len; i++)
        {
          double gap = g_array_index (gaps, double, i);
          double k = round (gap / self->spacing);

          if (k < 1 || fabs (gap - k * self->spacing) > LB_DICOM_SERIES_GAP_TOLERANCE * self->spacing)
            n_irregular++;
          else if (k >= 2)
            self->n_missing += (guint) k - 1;
        }
    }
  if (n_duplicates > 0)
    {
      self->warnings |= LB_DICOM_SERIES_WARN_DUPLICATE_POSITION;
      add_message (self, g_strdup_printf ("%u %s the position of the slice before.",
                                          n_duplicates,
                                          n_duplicates == 1 ? "slice repeats" : "slices repeat"));
    }
  if (self->n_missing > 0)
    {
      self->warnings |= LB_DICOM_SERIES_WARN_MISSING_SLICES;
      add_message (self, g_strdup_printf ("%u %s missing (a gap in the positions).",
                                          self->n_missing,
                                          self->n_missing == 1 ? "slice seems to be"
                                                               : "slices seem to be"));
    }
  if (n_irregular > 0)
    {
      self->warnings |= LB_DICOM_SERIES_WARN_IRREGULAR_SPACING;
      add_message (self, g_strdup_printf ("The slices are not evenly spaced (%u irregular "
                                          "gaps; spacing %.3g mm).", n_irregular,
                                          self->spacing));
    }
}

void
lb_dicom_series_sort (LbDicomSeries *self)
{
  gint ref;
  guint n_mixed = 0, n_unplaced = 0;

  g_return_if_fail (LB_IS_DICOM_SERIES (self));

  self->has_normal = FALSE;
  self->spacing = 0;
  self->n_missing = 0;
  self->warnings = LB_DICOM_SERIES_WARN_NONE;
  g_ptr_array_set_size (self->messages, 0);
  g_ptr_array_add (self->messages, NULL);

  ref = reference_orientation (self);
  if (ref >= 0)
    {
      double iop[6];

      memcpy (iop, g_array_index (self->slices, LbDicomSlice, ref).orientation, sizeof iop);
      self->has_normal = orientation_normal (iop, self->normal);
      for (guint i = 0; i < self->slices->len; i++)
        {
          LbDicomSlice *s = &g_array_index (self->slices, LbDicomSlice, i);

          if (!s->has_position)
            {
              n_unplaced++;
              continue;
            }
          /* PS3.3 C.7.6.2.1.1: the distance along the normal is the position's projection */
          s->location = s->position[0] * self->normal[0] + s->position[1] * self->normal[1]
                        + s->position[2] * self->normal[2];
          n_mixed += !same_orientation (s->orientation, iop);
        }
    }
  else
    n_unplaced = self->slices->len;

  g_array_sort (self->slices, compare_slices);
  measure_gaps (self);

  if (n_mixed > 0)
    {
      self->warnings |= LB_DICOM_SERIES_WARN_MIXED_ORIENTATION;
      add_message (self, g_strdup_printf ("%u of %u slices lie in another plane than the "
                                          "others: the stack mixes orientations.",
                                          n_mixed, self->slices->len));
    }
  /* a lone image or a cine loop has no position to order by: nothing to warn about */
  if (n_unplaced > 0 && n_unplaced < self->slices->len)
    {
      self->warnings |= LB_DICOM_SERIES_WARN_NO_POSITION;
      add_message (self, g_strdup_printf ("%u of %u slices have no position; they come last, "
                                          "by instance number.", n_unplaced,
                                          self->slices->len));
    }
}

guint
lb_dicom_series_get_n_slices (LbDicomSeries *self)
{
  g_return_val_if_fail (LB_IS_DICOM_SERIES (self), 0);
  return self->slices->len;
}

const LbDicomSlice *
lb_dicom_series_get_slice (LbDicomSeries *self, guint index)
{
  g_return_val_if_fail (LB_IS_DICOM_SERIES (self), NULL);
  g_return_val_if_fail (index < self->slices->len, NULL);
  return &g_array_index (self->slices, LbDicomSlice, index);
}

gboolean
lb_dicom_series_get_normal (LbDicomSeries *self, double normal[3])
{
  g_return_val_if_fail (LB_IS_DICOM_SERIES (self), FALSE);
  if (self->has_normal)
    memcpy (normal, self->normal, sizeof self->normal);
  return self->has_normal;
}

double
lb_dicom_series_get_spacing (LbDicomSeries *self)
{
  g_return_val_if_fail (LB_IS_DICOM_SERIES (self), 0);
  return self->spacing;
}

guint
lb_dicom_series_get_n_missing (LbDicomSeries *self)
{
  g_return_val_if_fail (LB_IS_DICOM_SERIES (self), 0);
  return self->n_missing;
}

LbDicomSeriesWarning
lb_dicom_series_get_warnings (LbDicomSeries *self)
{
  g_return_val_if_fail (LB_IS_DICOM_SERIES (self), LB_DICOM_SERIES_WARN_NONE);
  return self->warnings;
}

const char * const *
lb_dicom_series_get_messages (LbDicomSeries *self)
{
  g_return_val_if_fail (LB_IS_DICOM_SERIES (self), NULL);
  return (const char * const *) self->messages->pdata;
}
