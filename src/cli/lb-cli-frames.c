/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-cli"

#include "lb-cli-frames.h"

#include <string.h>

#include "lb-cli-store-io.h"
#include "lb-dicom-file.h"
#include "lb-dicom-frame.h"
#include "lb-dicom-multiframe.h"
#include "lb-error.h"
#include "lb-image-loader.h"

/* Where frames come from: a Part 10 file (a local path or a file:// URL) kept open, frames
 * decoded one by one from its mapped bytes; a DICOMweb instance (one WADO-RS frame request
 * each); or any other image or URL (one frame). */
typedef struct {
  const char  *input;
  LbDicomFile *file;
  char        *dicomweb;  /* the instance URL, without a trailing '/' */
} Source;

static void
source_clear (Source *s)
{
  g_clear_object (&s->file);
  g_clear_pointer (&s->dicomweb, g_free);
}

static gboolean
source_open (Source *s, const char *input, GError **error)
{
  g_autofree char *path = NULL;

  memset (s, 0, sizeof *s);
  s->input = input;
  if (g_str_has_prefix (input, "file://"))
    {
      g_autofree char *url = lb_cli_url_from_arg (input);

      /* a local store's file is a local file: its frames are read the same way */
      path = g_filename_from_uri (url, NULL, NULL);
      if (path != NULL && g_file_test (path, G_FILE_TEST_IS_REGULAR))
        input = path;
    }
  if (lb_cli_is_store_url (input))
    {
      g_autofree char *scheme = g_uri_parse_scheme (input);

      if (g_str_has_prefix (scheme, "dicomweb"))
        {
          s->dicomweb = lb_cli_url_from_arg (input);
          if (g_str_has_suffix (s->dicomweb, "/"))
            s->dicomweb[strlen (s->dicomweb) - 1] = '\0';
        }
      return TRUE;
    }
  {
    g_autoptr(GMappedFile) map = g_mapped_file_new (input, FALSE, error);

    if (map == NULL)
      return FALSE;
    if (!lb_dicom_sniff ((const guint8 *) g_mapped_file_get_contents (map),
                         g_mapped_file_get_length (map), input))
      return TRUE;
  }
  s->file = lb_dicom_file_new_for_path (input, LB_DICOM_READ_DEFAULT, NULL, error);
  return s->file != NULL && lb_dicom_file_check_pixels (s->file, error);
}

/* Frame @number (1-based); @n_frames: (out): how many the source has. */
static LbImage *
source_load (Source *s, guint number, guint *n_frames, GError **error)
{
  LbImage *img;
  const char *total;

  if (s->file != NULL)
    {
      *n_frames = lb_dicom_file_get_n_frames (s->file);
      if (!lb_dicom_check_frame_number (number, *n_frames, s->input, error))
        return NULL;
      return lb_dicom_file_decode_frame (s->file, number - 1, NULL, error);
    }
  if (s->dicomweb != NULL)
    {
      g_autofree char *url = g_strdup_printf ("%s/frames/%u", s->dicomweb, number);

      img = lb_cli_load_image (url, error);
    }
  else
    {
      /* not a multi-frame source: only frame 1 exists */
      *n_frames = 1;
      if (!lb_dicom_check_frame_number (number, 1, s->input, error))
        return NULL;
      img = lb_cli_load_image (s->input, error);
    }
  if (img == NULL)
    return NULL;
  total = lb_image_meta_get_text (lb_image_get_meta (img), LB_DICOM_META_NUMBER_OF_FRAMES);
  *n_frames = total ? (guint) g_ascii_strtoull (total, NULL, 10) : 1;
  return img;
}

static gboolean
parse_frame (const char *text, gboolean *all, guint *number, GError **error)
{
  guint64 v;

  *all = g_strcmp0 (text, "all") == 0;
  *number = 1;
  if (text == NULL || *all)
    return TRUE;
  if (!g_ascii_string_to_unsigned (text, 10, 1, G_MAXINT32, &v, NULL))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "--frame “%s”: expected a frame number from 1, or “all”", text);
      return FALSE;
    }
  *number = (guint) v;
  return TRUE;
}

gboolean
lb_cli_for_each_frame (const char *input, const char *frame, const char *output,
                       LbCliFrameFunc func, gpointer data, GError **error)
{
  Source s;
  gboolean all, ok = TRUE;
  guint number, n_frames = 1;
  g_autofree char *stem = NULL;

  if (!parse_frame (frame, &all, &number, error))
    return FALSE;
  if (frame == NULL)
    {
      g_autoptr(LbImage) img = lb_cli_load_image (input, error);

      return img != NULL && func (img, output, data, error);
    }
  if (all && lb_cli_is_store_url (output))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "--frame all writes a numbered series of local files, not to %s", output);
      return FALSE;
    }
  if (!source_open (&s, input, error))
    {
      source_clear (&s);
      return FALSE;
    }
  stem = g_str_has_suffix (output, ".png") ? g_strndup (output, strlen (output) - 4)
                                           : g_strdup (output);
  for (guint n = number; ok && n <= (all ? n_frames : number); n++)
    {
      g_autoptr(LbImage) img = source_load (&s, n, &n_frames, error);
      g_autofree char *name = all ? g_strdup_printf ("%s-%04u.png", stem, n) : NULL;

      ok = img != NULL && func (img, all ? name : output, data, error);
    }
  source_clear (&s);
  return ok;
}
