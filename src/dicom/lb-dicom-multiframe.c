/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicom-multiframe"

#include "lb-dicom-multiframe.h"

#include <math.h>

#include "lb-dicom-frame.h"
#include "lb-dicom-tags.h"
#include "lb-error.h"

#define TAG_FORMAT "(%04X,%04X)"
#define TAG_ARGS(tag) (guint) ((tag) >> 16), (guint) ((tag) & 0xffff)

/* The functional groups that decide what a frame's pixels mean (PS3.3 C.7.6.16.2.1 Pixel
 * Measures, C.7.6.16.2.9 Pixel Value Transformation, C.7.6.16.2.10 Frame VOI LUT). Their item's
 * attributes are the top-level ones of a single-frame image, so the value model reads them the
 * same way. */
static const struct {
  guint32     tag;
  const char *keyword;
} groups[] = {
  { LB_TAG_PIXEL_MEASURES_SEQUENCE, "PixelMeasuresSequence" },
  { LB_TAG_PIXEL_VALUE_TRANSFORMATION_SEQUENCE, "PixelValueTransformationSequence" },
  { LB_TAG_FRAME_VOI_LUT_SEQUENCE, "FrameVOILUTSequence" },
};

guint
lb_dicom_get_n_frames (const LbDicomDataset *md)
{
  gint64 n;

  g_return_val_if_fail (md != NULL, 1);
  if (!lb_dicom_dataset_get_int (md, LB_TAG_NUMBER_OF_FRAMES, 0, &n) || n < 1 || n > G_MAXINT32)
    return 1;
  return (guint) n;
}

gboolean
lb_dicom_check_frame_number (guint number, guint n_frames, const char *name, GError **error)
{
  if (number >= 1 && number <= n_frames)
    return TRUE;
  g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
               "%s: no frame %u: it has %u frame%s (1 to %u)", name ? name : "DICOM object",
               number, n_frames, n_frames == 1 ? "" : "s", n_frames);
  return FALSE;
}

/* TRUE when any item of the per-frame sequence carries group @tag. */
static gboolean
any_frame_has (const LbDicomDataset *md, guint32 tag)
{
  guint n = lb_dicom_dataset_get_n_items (md, LB_TAG_PER_FRAME_FUNCTIONAL_GROUPS_SEQUENCE);

  for (guint i = 0; i < n; i++)
    if (lb_dicom_dataset_has (lb_dicom_dataset_get_item (
                                md, LB_TAG_PER_FRAME_FUNCTIONAL_GROUPS_SEQUENCE, i), tag))
      return TRUE;
  return FALSE;
}

/* Copies every attribute of the group's (single) item over @fds. */
static gboolean
merge_group (LbDicomDataset *fds, const LbDicomDataset *holder, guint g, const char *where,
             guint number, const char *name, GError **error)
{
  LbDicomDataset *item;
  g_autofree guint32 *tags = NULL;
  guint n = 0;

  if (lb_dicom_dataset_get_n_items (holder, groups[g].tag) == 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "%s: frame %u: %s " TAG_FORMAT " in the %s has no item", name, number,
                   groups[g].keyword, TAG_ARGS (groups[g].tag), where);
      return FALSE;
    }
  item = lb_dicom_dataset_get_item (holder, groups[g].tag, 0);
  tags = lb_dicom_dataset_get_tags (item, &n);
  for (guint i = 0; i < n; i++)
    lb_dicom_dataset_copy_element (fds, item, tags[i]);
  return TRUE;
}

LbDicomDataset *
lb_dicom_frame_dataset_new (const LbDicomDataset *md, guint number, const char *name,
                            GError **error)
{
  g_autoptr(LbDicomDataset) fds = lb_dicom_dataset_new ();
  g_autofree guint32 *tags = NULL;
  guint n = 0, n_frames, n_per_frame;
  gboolean has_shared, has_per_frame;
  LbDicomDataset *shared = NULL, *own = NULL;

  g_return_val_if_fail (md != NULL, NULL);
  if (name == NULL)
    name = "DICOM object";
  n_frames = lb_dicom_get_n_frames (md);
  if (!lb_dicom_check_frame_number (number, n_frames, name, error))
    return NULL;

  /* everything but the functional groups themselves: a frame's data set must not carry the
   * other frames' values (items are shared by reference, not copied) */
  tags = lb_dicom_dataset_get_tags (md, &n);
  for (guint i = 0; i < n; i++)
    if (tags[i] != LB_TAG_SHARED_FUNCTIONAL_GROUPS_SEQUENCE
        && tags[i] != LB_TAG_PER_FRAME_FUNCTIONAL_GROUPS_SEQUENCE)
      lb_dicom_dataset_copy_element (fds, md, tags[i]);

  has_shared = lb_dicom_dataset_get_n_items (md, LB_TAG_SHARED_FUNCTIONAL_GROUPS_SEQUENCE) > 0;
  has_per_frame = lb_dicom_dataset_has (md, LB_TAG_PER_FRAME_FUNCTIONAL_GROUPS_SEQUENCE);
  if (has_shared)
    shared = lb_dicom_dataset_get_item (md, LB_TAG_SHARED_FUNCTIONAL_GROUPS_SEQUENCE, 0);
  if (has_per_frame)
    {
      /* PS3.3 C.7.6.16.1.2: one item per frame, in frame order */
      n_per_frame = lb_dicom_dataset_get_n_items (md, LB_TAG_PER_FRAME_FUNCTIONAL_GROUPS_SEQUENCE);
      if (number > n_per_frame)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                       "%s: frame %u has no item in PerFrameFunctionalGroupsSequence "
                       TAG_FORMAT ", which has %u item%s for NumberOfFrames %u", name, number,
                       TAG_ARGS (LB_TAG_PER_FRAME_FUNCTIONAL_GROUPS_SEQUENCE), n_per_frame,
                       n_per_frame == 1 ? "" : "s", n_frames);
          return NULL;
        }
      own = lb_dicom_dataset_get_item (md, LB_TAG_PER_FRAME_FUNCTIONAL_GROUPS_SEQUENCE,
                                       number - 1);
    }

  for (guint g = 0; g < G_N_ELEMENTS (groups); g++)
    {
      if (own != NULL && lb_dicom_dataset_has (own, groups[g].tag))
        {
          if (!merge_group (fds, own, g, "PerFrameFunctionalGroupsSequence", number, name,
                            error))
            return NULL;
        }
      else if (shared != NULL && lb_dicom_dataset_has (shared, groups[g].tag))
        {
          if (!merge_group (fds, shared, g, "SharedFunctionalGroupsSequence", number, name,
                            error))
            return NULL;
        }
      else if (own != NULL && any_frame_has (md, groups[g].tag))
        {
          /* per-frame for the others: this frame's value is missing, not the top level's */
          g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                       "%s: frame %u has no %s " TAG_FORMAT ": other frames give it in "
                       "PerFrameFunctionalGroupsSequence, and SharedFunctionalGroupsSequence "
                       "does not", name, number, groups[g].keyword, TAG_ARGS (groups[g].tag));
          return NULL;
        }
    }
  return g_steal_pointer (&fds);
}

LbImage *
lb_dicom_decode_frame_number (const LbDicomDataset *md, const char *transfer_syntax,
                              GBytes *frame, guint number, const char *name,
                              const LbLimits *limits, GError **error)
{
  g_autoptr(LbDicomDataset) fds = NULL;
  g_autoptr(LbImage) image = NULL;
  g_autoptr(LbImageMeta) meta = NULL;
  g_autofree char *num = NULL, *total = NULL;
  guint n_frames;

  g_return_val_if_fail (md != NULL, NULL);
  fds = lb_dicom_frame_dataset_new (md, number, name, error);
  if (fds == NULL)
    return NULL;
  image = lb_dicom_decode_frame (fds, transfer_syntax, frame, name, limits, error);
  n_frames = lb_dicom_get_n_frames (md);
  if (image == NULL && n_frames > 1)
    g_prefix_error (error, "frame %u of %u: ", number, n_frames);
  if (image == NULL || n_frames == 1)
    return g_steal_pointer (&image);
  meta = lb_image_dup_meta (image);
  num = g_strdup_printf ("%u", number);
  total = g_strdup_printf ("%u", n_frames);
  lb_image_meta_set_text (meta, LB_DICOM_META_FRAME_NUMBER, num);
  lb_image_meta_set_text (meta, LB_DICOM_META_NUMBER_OF_FRAMES, total);
  if (lb_dicom_get_frame_interval (md) > 0)
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];

      lb_image_meta_set_text (meta, LB_DICOM_META_FRAME_INTERVAL,
                              g_ascii_dtostr (buf, sizeof buf, lb_dicom_get_frame_interval (md)));
    }
  return lb_image_with_meta (image, meta);
}

double
lb_dicom_get_frame_interval (const LbDicomDataset *md)
{
  double v;

  g_return_val_if_fail (md != NULL, 0);
  if (lb_dicom_dataset_get_double (md, LB_TAG_FRAME_TIME, 0, &v) && v > 0 && isfinite (v))
    return v / 1000.0;
  if (lb_dicom_dataset_get_double (md, LB_TAG_RECOMMENDED_DISPLAY_FRAME_RATE, 0, &v) && v > 0
      && isfinite (v))
    return 1.0 / v;
  if (lb_dicom_dataset_get_double (md, LB_TAG_CINE_RATE, 0, &v) && v > 0 && isfinite (v))
    return 1.0 / v;
  return 0;
}
