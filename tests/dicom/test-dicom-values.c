/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The value model on variants of real DICOM files (tests/dicom/make-variants.py makes them from
 * pydicom's CT_small and MR_small at test time, with their meaning computed by pydicom and
 * numpy): decoding gives every pixel its real-world value and padding, and the model the
 * file's units, windows, VOI function and LUTs, MONOCHROME1 and lossy history; a derived
 * image written back means the same to pydicom and to Lightbox, passes dciodvfy, refuses
 * values outside the source's range and names its source frame; filters give the same
 * real-world values on signed data as on the same image stored unsigned. What the canvas
 * displays under each window and VOI LUT of a file, with its Presentation LUT Shape and
 * photometric interpretation, is PS3.3's grey pipeline byte for byte (display-reference.py).
 * A colour image from a lossy source passes its lossy history to its derived image. */
#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "display-check.h"
#include "lb-dicom-file.h"
#include "lb-dicom-frame.h"
#include "lb-dicom-values.h"
#include "lb-dicom-writer.h"
#include "lb-error.h"
#include "lb-image-loader.h"
#include "lb-png.h"
#include "lb-render.h"
#include "lb-test-dicom.h"
#include "lb-test-files.h"
#include "lb-test-process.h"

static char *dir;           /* the variants */
static GKeyFile *variants;  /* variants.ini */

static char *
variant_path (const char *name, const char *ext)
{
  return lb_test_variant_path (dir, name, ext);
}

static GBytes *
variant_bytes (const char *name, const char *ext)
{
  return lb_test_variant_bytes (dir, name, ext);
}

static char *
expect (const char *name, const char *key)
{
  g_autoptr (GError) error = NULL;
  char *v = g_key_file_get_string (variants, name, key, &error);

  g_assert_no_error (error);
  return v;
}

static LbDicomDataset *
variant_metadata (const char *name)
{
  return lb_test_variant_metadata (dir, name);
}

static LbImage *
decode_variant (const char *name, LbDicomDataset **md_out)
{
  g_autoptr (LbDicomDataset) md = variant_metadata (name);
  g_autoptr (GBytes) frame = variant_bytes (name, ".frame");
  g_autoptr (GError) error = NULL;
  LbImage *img = lb_dicom_decode_frame (md, NULL, frame, name, NULL, &error);

  g_assert_no_error (error);
  if (md_out)
    *md_out = g_steal_pointer (&md);
  return img;
}

static LbValueModel *
model_of (LbImage *img)
{
  LbValueModel *m = lb_image_meta_get_value_model_for (lb_image_get_meta (img), 16);

  g_assert_nonnull (m);
  return m;
}

/* Every pixel's real-world value and padding, against pydicom's. */
static void
check_values (const char *name, LbImage *img)
{
  g_autofree char *values = variant_path (name, ".values");
  g_autoptr (GBytes) padding = variant_bytes (name, ".padding");
  LbValueModel *model = model_of (img);
  guint w = lb_image_get_width (img), h = lb_image_get_height (img);
  const guint8 *pad = g_bytes_get_data (padding, NULL);

  lb_test_check_real_values (img, values, name);
  for (guint y = 0; y < h; y++)
    for (guint x = 0; x < w; x++)
      {
        guint sample = ((const guint16 *) lb_image_get_row (img, y))[x];

        if (lb_value_model_is_padding (model, sample) != (pad[(gsize) y * w + x] != 0))
          g_error ("%s: pixel x %u y %u is%s padding, pydicom says the opposite", name, x, y,
                   lb_value_model_is_padding (model, sample) ? "" : " not");
      }
}

static void
check_model (const char *name, LbValueModel *model)
{
  g_autofree char *units = expect (name, "units");
  g_autofree char *fn = expect (name, "function");
  g_autofree char *signed_s = expect (name, "signed");
  g_autofree char *mono1 = expect (name, "monochrome1");
  g_autofree char *shape = expect (name, "presentation");
  g_autofree char *centers = g_key_file_get_string (variants, name, "window_centers", NULL);
  g_autofree char *widths = g_key_file_get_string (variants, name, "window_widths", NULL);
  g_autofree char *expls = g_key_file_get_string (variants, name, "window_explanations", NULL);
  g_autofree char *ratios = g_key_file_get_string (variants, name, "lossy_ratios", NULL);
  g_autofree char *methods = g_key_file_get_string (variants, name, "lossy_methods", NULL);
  const char *r = NULL, *m = NULL;

  g_assert_cmpstr (lb_value_model_get_units (model), ==, *units ? units : NULL);
  g_assert_cmpstr (lb_voi_function_to_string (lb_value_model_get_voi_function (model)), ==, fn);
  g_assert_cmpint (lb_value_model_get_source_signed (model), ==, g_str_equal (signed_s, "true"));
  g_assert_cmpint (lb_value_model_get_bits_stored (model), ==,
                   g_key_file_get_integer (variants, name, "bits_stored", NULL));
  g_assert_cmpint (lb_value_model_get_monochrome1 (model), ==, g_str_equal (mono1, "true"));
  g_assert_cmpstr (lb_presentation_shape_to_string (lb_value_model_get_presentation_shape (model)),
                   ==, *shape ? shape : NULL);
  g_assert_cmpint (lb_value_model_get_decimals (model), ==,
                   g_key_file_get_integer (variants, name, "decimals", NULL));
  g_assert_cmpuint (lb_value_model_get_n_voi_luts (model), ==,
                    g_key_file_get_integer (variants, name, "n_voi_luts", NULL));
  if (centers != NULL)
    {
      g_auto (GStrv) c = g_strsplit (centers, ";", -1), w = g_strsplit (widths, ";", -1);
      g_auto (GStrv) e = g_strsplit (expls, ";", -1);

      g_assert_cmpuint (lb_value_model_get_n_windows (model), ==, g_strv_length (c));
      for (guint i = 0; c[i]; i++)
        {
          double wc, ww;
          const char *ex;

          g_assert_true (lb_value_model_get_window (model, i, &wc, &ww, &ex));
          g_assert_cmpfloat (wc, ==, g_ascii_strtod (c[i], NULL));
          g_assert_cmpfloat (ww, ==, g_ascii_strtod (w[i], NULL));
          g_assert_cmpstr (ex, ==, e[i] && *e[i] ? e[i] : NULL);
        }
    }
  else
    g_assert_cmpuint (lb_value_model_get_n_windows (model), ==, 0);
  g_assert_cmpint (lb_value_model_get_lossy (model, &r, &m), ==, ratios != NULL);
  g_assert_cmpstr (r, ==, ratios);
  g_assert_cmpstr (m, ==, methods);
}

static void
test_decode (void)
{
  g_auto (GStrv) names = g_key_file_get_groups (variants, NULL);

  for (guint i = 0; names[i]; i++)
    {
      g_autoptr (LbImage) img = decode_variant (names[i], NULL);
      LbValueModel *model = model_of (img);

      g_test_message ("%s", names[i]);
      g_assert_cmpint (lb_image_get_format (img), ==, LB_FORMAT_GRAY16);
      check_values (names[i], img);
      check_model (names[i], model);
    }
  /* the padding range, in samples: stored −2000 … −1900 + 32768 */
  {
    g_autoptr (LbImage) img = decode_variant ("ct-padding", NULL);
    guint lo, hi;

    g_assert_true (lb_value_model_get_padding (model_of (img), &lo, &hi));
    g_assert_cmpuint (lo, ==, 32768 - 2000);
    g_assert_cmpuint (hi, ==, 32768 - 1900);
  }
  /* the precision real values have */
  {
    g_autoptr (LbImage) half = decode_variant ("ct-slope-half", NULL);
    g_autofree char *v = lb_value_model_format_value (model_of (half), -1023.5);
    g_autofree char *z = lb_value_model_format_value (model_of (half), -0.0);

    g_assert_cmpstr (v, ==, "-1023.5");
    g_assert_cmpstr (z, ==, "0.0");
  }
}

static char *
write_derived (LbImage *img, LbDicomDataset *md, const char *name, LbDicomDataset **sc_out)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (LbDicomDataset) sc = lb_dicom_build_secondary_capture (img, md, "value model", 5,
                                                                    &error);
  g_autoptr (GBytes) file = NULL;
  char *path = variant_path (name, "-derived.dcm");

  g_assert_no_error (error);
  file = lb_dicom_write_part10 (sc, &error);
  g_assert_no_error (error);
  g_file_set_contents (path, g_bytes_get_data (file, NULL), (gssize) g_bytes_get_size (file),
                       &error);
  g_assert_no_error (error);
  if (sc_out)
    *sc_out = g_steal_pointer (&sc);
  return path;
}

/* The same model, except that a VOI LUT of 10 to 15 bits is written as 16 bits: the same
 * display within one 65535th of the range; and the same presentation, where the photometric
 * interpretation is the one the Presentation LUT Shape goes with. */
static void
check_same_model (LbValueModel *back, LbValueModel *src)
{
  g_autoptr (LbValueModelBuilder) b1 = lb_value_model_builder_new (back, 16);
  g_autoptr (LbValueModelBuilder) b2 = lb_value_model_builder_new (src, 16);
  g_autoptr (LbValueModel) m1 = NULL, m2 = NULL;

  g_assert_cmpuint (lb_value_model_get_n_voi_luts (back), ==,
                    lb_value_model_get_n_voi_luts (src));
  for (guint i = 0; i < lb_value_model_get_n_voi_luts (src); i++)
    {
      LbVoi v1 = { LB_VOI_LINEAR, 0, 1, lb_value_model_get_voi_lut (back, i) };
      LbVoi v2 = { LB_VOI_LINEAR, 0, 1, lb_value_model_get_voi_lut (src, i) };

      g_assert_cmpstr (v1.lut->explanation, ==, v2.lut->explanation);
      for (int x = -3000; x < 5000; x++)
        g_assert_cmpfloat_with_epsilon (lb_voi_apply (&v1, x), lb_voi_apply (&v2, x),
                                        255.0 / 65535);
    }
  lb_value_model_builder_clear_voi_luts (b1);
  lb_value_model_builder_clear_voi_luts (b2);
  g_assert_cmpint (lb_value_model_get_presentation_inverse (back), ==,
                   lb_value_model_get_presentation_inverse (src));
  lb_value_model_builder_set_monochrome1 (b1, lb_value_model_get_presentation_inverse (back));
  lb_value_model_builder_set_monochrome1 (b2, lb_value_model_get_presentation_inverse (src));
  m1 = lb_value_model_builder_end (g_steal_pointer (&b1));
  m2 = lb_value_model_builder_end (g_steal_pointer (&b2));
  g_assert_true (lb_value_model_equal (m1, m2));
}

static void
test_write_back (void)
{
  g_auto (GStrv) names = g_key_file_get_groups (variants, NULL);

  for (guint i = 0; names[i]; i++)
    {
      g_autoptr (LbDicomDataset) md = NULL, sc = NULL;
      g_autoptr (LbImage) img = decode_variant (names[i], &md);
      g_autoptr (LbImage) again = NULL;
      g_autoptr (GHashTable) kv = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree char *path = write_derived (img, md, names[i], &sc);
      g_autofree char *src = variant_path (names[i], ".dcm");
      g_autofree char *units = expect (names[i], "units");
      g_autofree char *fn = expect (names[i], "function");
      g_autofree char *mono1 = expect (names[i], "monochrome1");
      g_autofree char *signed_s = expect (names[i], "signed");
      g_autofree char *bits = expect (names[i], "bits_stored");
      g_autofree char *npad = expect (names[i], "padding_pixels");
      g_autofree char *nvoi = expect (names[i], "n_voi_luts");
      g_autofree char *shape = expect (names[i], "presentation");
      g_autofree char *ratios = g_key_file_get_string (variants, names[i], "lossy_ratios", NULL);
      g_autofree char *methods = g_key_file_get_string (variants, names[i], "lossy_methods",
                                                        NULL);
      gboolean has_modality = lb_value_model_get_modality_kind (model_of (img))
                              != LB_MODALITY_NONE;

      g_test_message ("%s → %s", names[i], path);
      /* dicom3tools finds no error in what Lightbox writes */
      lb_test_check_dciodvfy (path);
      /* pydicom: the same meaning, pixel by pixel */
      kv = lb_test_check_derived (path, src);
      g_assert_cmpstr (g_hash_table_lookup (kv, "same_as_source"), ==, "1");
      /* the source's photometric interpretation, or the one its Presentation LUT Shape goes
       * with (PS3.3 C.7.6.1) when it had both and they disagreed */
      g_assert_cmpstr (g_hash_table_lookup (kv, "photometric"), ==,
                       (*shape ? g_str_equal (shape, "INVERSE") : g_str_equal (mono1, "true"))
                       ? "MONOCHROME1" : "MONOCHROME2");
      g_assert_cmpstr (g_hash_table_lookup (kv, "signed"), ==,
                       g_str_equal (signed_s, "true") ? "1" : "0");
      g_assert_cmpstr (g_hash_table_lookup (kv, "bits_stored"), ==, bits);
      /* the unit: named, or "US" (unspecified) where the source had none */
      g_assert_cmpstr (g_hash_table_lookup (kv, "units"), ==,
                       *units ? units : has_modality ? "US" : "");
      g_assert_cmpstr (g_hash_table_lookup (kv, "function"), ==, fn);
      g_assert_cmpstr (g_hash_table_lookup (kv, "n_voi_luts"), ==, nvoi);
      g_assert_cmpstr (g_hash_table_lookup (kv, "presentation"), ==, shape);
      g_assert_cmpstr (g_hash_table_lookup (kv, "padding_pixels"), ==, npad);
      g_assert_cmpstr (g_hash_table_lookup (kv, "lossy"), ==, ratios ? "01" : "");
      g_assert_cmpstr (g_hash_table_lookup (kv, "lossy_ratios"), ==, ratios ? ratios : "");
      g_assert_cmpstr (g_hash_table_lookup (kv, "lossy_methods"), ==, methods ? methods : "");
      g_assert_cmpstr (g_hash_table_lookup (kv, "frame"), ==, "");

      /* and Lightbox reads back the same model and values */
      {
        GBytes *pixels = lb_dicom_dataset_get_bytes (sc, LB_TAG_PIXEL_DATA);

        again = lb_dicom_decode_frame (sc, NULL, pixels, path, NULL, &error);
        g_assert_no_error (error);
        g_assert_true (lb_image_equal_pixels (again, img));
        check_same_model (model_of (again), model_of (img));
      }
      g_unlink (path);
    }
}

/* Every window and VOI LUT of every variant, displayed as the canvas does, against PS3.3
 * computed by pydicom and numpy: the VOI functions and tables (C.11.2), the Presentation LUT
 * Shape and MONOCHROME1 (C.11.6.1.2, C.7.6.3.1.2). */
static void
test_display (void)
{
  g_auto (GStrv) names = g_key_file_get_groups (variants, NULL);
  guint n_shown = 0;

  for (guint i = 0; names[i]; i++)
    {
      g_autoptr (LbImage) img = decode_variant (names[i], NULL);
      g_autofree char *path = variant_path (names[i], ".dcm");
      LbValueModel *model = model_of (img);

      for (guint k = 0; k < lb_value_model_get_n_windows (model); k++)
        {
          LbVoi voi = { lb_value_model_get_voi_function (model), 0, 0, NULL };
          g_autofree char *spec = g_strdup_printf ("window:%u", k);

          lb_value_model_get_window (model, k, &voi.center, &voi.width, NULL);
          lb_test_check_display (img, &voi, path, spec, names[i]);
          n_shown++;
        }
      for (guint k = 0; k < lb_value_model_get_n_voi_luts (model); k++)
        {
          LbVoi voi = { LB_VOI_LINEAR, 0, 1, lb_value_model_get_voi_lut (model, k) };
          g_autofree char *spec = g_strdup_printf ("lut:%u", k);

          lb_test_check_display (img, &voi, path, spec, names[i]);
          n_shown++;
        }
    }
  g_test_message ("%u displays compared", n_shown);
  /* the four Presentation LUT Shape variants among them */
  g_assert_cmpuint (n_shown, >=, 4);
}

/* A colour image (RGB, YBR, palette; the last one stored in JPEG baseline) from a lossy source:
 * the image derived from it says "01", with the source's ratios and methods (colour.ini, from
 * pydicom), as pydicom and dcmdump read the file written; the history survives the PNG that
 * carries images between stores and filters. */
static void
test_colour_lossy (void)
{
  g_autoptr (GKeyFile) colour = g_key_file_new ();
  g_autofree char *ini = g_build_filename (dir, "colour.ini", NULL);
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) names = NULL;

  g_key_file_load_from_file (colour, ini, G_KEY_FILE_NONE, &error);
  g_assert_no_error (error);
  names = g_key_file_get_groups (colour, NULL);
  g_assert_cmpuint (g_strv_length (names), ==, 4);
  for (guint i = 0; names[i]; i++)
    {
      g_autofree char *src = variant_path (names[i], ".dcm");
      g_autofree char *lossy = g_key_file_get_string (colour, names[i], "lossy", NULL);
      g_autofree char *ratios = g_key_file_get_string (colour, names[i], "lossy_ratios", NULL);
      g_autofree char *methods = g_key_file_get_string (colour, names[i], "lossy_methods", NULL);
      g_autoptr (LbDicomFile) file = lb_dicom_file_new_for_path (src, LB_DICOM_READ_DEFAULT,
                                                                 NULL, &error);
      g_autoptr (LbImage) img = NULL, back = NULL;
      g_autoptr (LbDicomDataset) sc = NULL;
      g_autoptr (GBytes) png = NULL;
      g_autoptr (GHashTable) kv = NULL;
      g_autofree char *path = NULL, *dump = NULL, *dumped = NULL;
      LbValueModel *model;

      g_assert_no_error (error);
      img = lb_dicom_file_decode_frame (file, 0, NULL, &error);
      g_assert_no_error (error);
      g_test_message ("%s: %s", names[i], lb_image_meta_get_text (lb_image_get_meta (img),
                                                                  "Photometric interpretation"));
      g_assert_false (lb_sample_format_is_gray (lb_image_get_format (img)));
      model = lb_image_meta_get_value_model (lb_image_get_meta (img));
      g_assert_nonnull (model);
      g_assert_true (lb_value_model_get_colour (model));

      /* through PNG, as lightbox-cli and write-back carry it */
      png = lb_png_save_to_bytes (img, &error);
      g_assert_no_error (error);
      back = lb_png_load_bytes (png, names[i], NULL, &error);
      g_assert_no_error (error);
      g_assert_true (lb_value_model_equal (lb_image_meta_get_value_model (lb_image_get_meta (back)),
                                           model));

      path = write_derived (back, (LbDicomDataset *) lb_dicom_file_get_dataset (file), names[i],
                            &sc);
      lb_test_check_dciodvfy (path);
      kv = lb_test_check_derived (path, NULL);
      g_assert_cmpstr (g_hash_table_lookup (kv, "photometric"), ==, "RGB");
      g_assert_cmpstr (g_hash_table_lookup (kv, "lossy"), ==, lossy);
      g_assert_cmpstr (g_hash_table_lookup (kv, "lossy_ratios"), ==, ratios);
      g_assert_cmpstr (g_hash_table_lookup (kv, "lossy_methods"), ==, methods);
      /* and dcmdump reads the same */
      {
        const char *argv[] = { "dcmdump", "+P", "0028,2110", path, NULL };
        int status;

        dump = lb_test_run_tool (argv, &dumped, &status);
        if (status == 0)
          {
            g_autofree char *v = lb_test_dcmdump_value (dump, "(0028,2110)");

            g_assert_cmpstr (v, ==, lossy);
          }
      }
      g_unlink (path);
    }
}

/* A filter result outside the source's stored range is an error naming the value and the
 * range, never a clipped image. */
static void
test_out_of_range (void)
{
  g_autoptr (LbDicomDataset) md = NULL, sc = NULL;
  g_autoptr (LbImage) img = decode_variant ("ct-signed-negative", &md);
  g_autoptr (LbImage) bad = NULL;
  g_autoptr (GError) error = NULL;
  guint w = lb_image_get_width (img), h = lb_image_get_height (img);
  gsize stride;
  guint8 *px = lb_image_alloc_pixels (w, h, LB_FORMAT_GRAY16, NULL, &stride, NULL);

  for (guint y = 0; y < h; y++)
    memcpy (px + y * stride, lb_image_get_row (img, y), lb_image_get_row_size (img));
  /* 12-bit signed: −2048 … 2047; stored 3000 is sample 35768 */
  ((guint16 *) (px + 7 * stride))[9] = 32768 + 3000;
  bad = lb_image_new_take (w, h, LB_FORMAT_GRAY16, stride, px, lb_image_get_meta (img));
  sc = lb_dicom_build_secondary_capture (bad, md, "too bright", 5, &error);
  g_assert_null (sc);
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "stored value 3000 (3000 HU)"));
  g_assert_nonnull (strstr (error->message, "x 9, y 7"));
  g_assert_nonnull (strstr (error->message, "signed 12-bit range -2048 … 2047"));
}

/* A frame of a multi-frame source is referenced by its number. */
static void
test_frame_number (void)
{
  g_autoptr (LbDicomDataset) md = NULL, sc = NULL;
  g_autoptr (LbImage) img = decode_variant ("ct-windows", &md);
  g_autoptr (LbImageMeta) meta = lb_image_dup_meta (img);
  g_autoptr (LbImage) framed = NULL, bad = NULL;
  g_autoptr (GHashTable) kv = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;

  /* a single-frame source has no frame to reference */
  lb_image_meta_set_text (meta, LB_DICOM_META_FRAME_NUMBER, "1");
  framed = lb_image_with_meta (img, meta);
  sc = lb_dicom_build_secondary_capture (framed, md, "frame", 5, &error);
  g_assert_no_error (error);
  g_assert_false (lb_dicom_dataset_has (lb_dicom_dataset_get_item (
                                          sc, LB_TAG_SOURCE_IMAGE_SEQUENCE, 0),
                                        LB_TAG_REFERENCED_FRAME_NUMBER));
  g_clear_pointer (&sc, lb_dicom_dataset_unref);
  g_clear_object (&framed);

  /* frame 3 of an Enhanced CT of 5 frames */
  lb_dicom_dataset_set_string (md, LB_TAG_SOP_CLASS_UID, "UI", "1.2.840.10008.5.1.4.1.1.2.1");
  lb_dicom_dataset_set_string (md, LB_TAG_NUMBER_OF_FRAMES, "IS", "5");
  lb_image_meta_set_text (meta, LB_DICOM_META_FRAME_NUMBER, "3");
  framed = lb_image_with_meta (img, meta);
  path = write_derived (framed, md, "ct-windows-frame", &sc);
  g_assert_cmpstr (lb_dicom_dataset_get_string (lb_dicom_dataset_get_item (
                                                  sc, LB_TAG_SOURCE_IMAGE_SEQUENCE, 0),
                                                LB_TAG_REFERENCED_FRAME_NUMBER, 0), ==, "3");
  lb_test_check_dciodvfy (path);
  kv = lb_test_check_derived (path, NULL);
  g_assert_cmpstr (g_hash_table_lookup (kv, "frame"), ==, "3");
  g_unlink (path);

  lb_image_meta_set_text (meta, LB_DICOM_META_FRAME_NUMBER, "0");
  bad = lb_image_with_meta (img, meta);
  g_clear_pointer (&sc, lb_dicom_dataset_unref);
  sc = lb_dicom_build_secondary_capture (bad, md, "frame 0", 5, &error);
  g_assert_null (sc);
  g_assert_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT);
}

/* Runs `lightbox-cli filter IN OUT STEP` on the decoded variant and returns the result. */
static LbImage *
cli_filter (const char *name, const char *step)
{
  g_autoptr (LbImage) img = decode_variant (name, NULL);
  g_autofree char *in = variant_path (name, "-in.png");
  g_autofree char *out = variant_path (name, "-out.png");
  g_autofree char *cli = g_build_filename (g_getenv ("LB_BUILD_ROOT"), "src", "cli",
                                           "lightbox-cli", NULL);
  const char *argv[] = { cli, "filter", "--force", in, out, step, NULL };
  g_autofree char *stdout_text = NULL, *err = NULL;
  g_autoptr (GError) error = NULL;
  LbImage *result;
  int status;

  g_assert_true (lb_png_save_to_file (img, in, &error));
  g_assert_no_error (error);
  stdout_text = lb_test_run_tool (argv, &err, &status);
  if (status != 0)
    g_error ("lightbox-cli filter %s: %s", step, err);
  result = lb_image_load_file (out, NULL, &error);
  g_assert_no_error (error);
  g_unlink (in);
  g_unlink (out);
  return result;
}

/* Filters on signed data. The same image stored signed (stored = HU, 12 bits,
 * negative values) and unsigned (stored = HU + 2048) must give the same real-world values
 * after any filter, and a flat block of 0 HU stays 0 HU (on raw int16 bits the blur mixed 0
 * with 65535 into −32768 HU). */
static void
test_filters_on_signed (void)
{
  static const char *const steps[] = { "blur:size=3", "median:radius=2", "gaussian:sigma=1.5" };

  for (guint s = 0; s < G_N_ELEMENTS (steps); s++)
    {
      g_autoptr (LbImage) a = cli_filter ("ct-signed-negative", steps[s]);
      g_autoptr (LbImage) b = cli_filter ("ct-unsigned-shifted", steps[s]);
      LbValueModel *ma = model_of (a), *mb = model_of (b);
      /* the Gaussian's floating-point weights may round a half differently at another
       * offset: one stored unit; box blur and median are exact */
      double tol = g_str_has_prefix (steps[s], "gaussian") ? 1 : 0;
      guint differ = 0;

      g_test_message ("%s", steps[s]);
      g_assert_true (lb_value_model_get_source_signed (ma));
      g_assert_false (lb_value_model_get_source_signed (mb));
      for (guint y = 0; y < lb_image_get_height (a); y++)
        for (guint x = 0; x < lb_image_get_width (a); x++)
          {
            double va = lb_value_model_to_value (ma, ((const guint16 *) lb_image_get_row (a, y))[x]);
            double vb = lb_value_model_to_value (mb, ((const guint16 *) lb_image_get_row (b, y))[x]);

            if (fabs (va - vb) > tol)
              g_error ("%s: x %u y %u is %g HU from signed data, %g HU unsigned", steps[s], x,
                       y, va, vb);
            differ += va != vb;
            /* inside the blocks of 0 HU (rows and columns 10…39) and −1 HU (columns 40…69),
             * further from their edges than any of these kernels reaches */
            if (y >= 16 && y < 34 && x >= 16 && x < 34)
              g_assert_cmpfloat (va, ==, 0);
            if (y >= 16 && y < 34 && x >= 46 && x < 64)
              g_assert_cmpfloat (va, ==, -1);
          }
      g_test_message ("%s: %u pixels differ by a rounding", steps[s], differ);
    }
}

/* A frame stored in a lossy syntax is lossy even when its data set does not say so; a data
 * set that does keeps its own history. */
static void
test_lossy_syntax (void)
{
  g_autoptr (LbDicomDataset) plain = variant_metadata ("ct-windows");
  g_autoptr (LbDicomDataset) lossy = variant_metadata ("ct-lossy");
  g_autoptr (GError) error = NULL;
  g_autoptr (LbValueModel) a = lb_dicom_value_model_new (plain, 16, TRUE, 16,
                                                         "1.2.840.10008.1.2.4.50", "a", &error);
  g_autoptr (LbValueModel) b = lb_dicom_value_model_new (plain, 16, TRUE, 16,
                                                         "1.2.840.10008.1.2.4.90", "b", &error);
  g_autoptr (LbValueModel) c = lb_dicom_value_model_new (lossy, 16, TRUE, 16,
                                                         "1.2.840.10008.1.2.4.91", "c", &error);
  const char *ratios, *methods;

  g_assert_no_error (error);
  g_assert_true (lb_value_model_get_lossy (a, &ratios, &methods));
  g_assert_null (ratios);
  g_assert_cmpstr (methods, ==, "ISO_10918_1");
  g_assert_false (lb_value_model_get_lossy (b, NULL, NULL));     /* JPEG 2000 lossless only */
  g_assert_true (lb_value_model_get_lossy (c, &ratios, &methods));
  g_assert_cmpstr (ratios, ==, "10\\2.5");
  g_assert_cmpstr (methods, ==, "ISO_10918_1\\ISO_15444_1");
}

/* What cannot be trusted is refused, naming the attribute and the value. */
static void
test_bad_attributes (void)
{
  static const struct {
    guint32     tag;
    const char *vr, *value, *needle;
  } cases[] = {
    { LB_TAG_VOI_LUT_FUNCTION, "CS", "CUBIC", "VOILUTFunction (0028,1056) \"CUBIC\"" },
    { LB_TAG_RESCALE_SLOPE, "DS", "0", "RescaleSlope 0" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (LbDicomDataset) md = variant_metadata ("ct-windows");
      g_autoptr (GBytes) frame = variant_bytes ("ct-windows", ".frame");
      g_autoptr (GError) error = NULL;
      g_autoptr (LbImage) img = NULL;

      lb_dicom_dataset_set_string (md, cases[i].tag, cases[i].vr, cases[i].value);
      img = lb_dicom_decode_frame (md, NULL, frame, "bad", NULL, &error);
      g_assert_null (img);
      g_assert_error (error, LB_ERROR, LB_ERROR_CORRUPT);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, cases[i].needle));
    }
  /* a VOI LUT whose data is shorter than its descriptor says */
  {
    g_autoptr (LbDicomDataset) md = variant_metadata ("ct-voi-lut");
    g_autoptr (GBytes) frame = variant_bytes ("ct-voi-lut", ".frame");
    g_autoptr (GError) error = NULL;
    g_autoptr (LbImage) img = NULL;
    LbDicomDataset *item = lb_dicom_dataset_get_item (md, LB_TAG_VOI_LUT_SEQUENCE, 0);

    lb_dicom_dataset_set_string (item, LB_TAG_LUT_DESCRIPTOR, "US", "4000\\0\\12");
    img = lb_dicom_decode_frame (md, NULL, frame, "bad", NULL, &error);
    g_assert_null (img);
    g_assert_error (error, LB_ERROR, LB_ERROR_CORRUPT);
    g_test_message ("%s", error->message);
    g_assert_nonnull (strstr (error->message, "LUTData (0028,3006) has 6000 bytes for 4000"));
  }
}

int
main (int argc, char **argv)
{
  g_autofree char *ini = NULL;
  g_autoptr (GError) error = NULL;
  int rc;

  g_test_init (&argc, &argv, NULL);
  dir = lb_test_make_dicom_variants ("dicom-values");
  if (dir == NULL)
    {
      g_print ("1..0 # SKIP needs /usr/bin/python3 with numpy and pydicom\n");
      return 77;
    }
  variants = g_key_file_new ();
  ini = g_build_filename (dir, "variants.ini", NULL);
  g_key_file_load_from_file (variants, ini, G_KEY_FILE_NONE, &error);
  g_assert_no_error (error);

  g_test_add_func ("/dicom/values/decode", test_decode);
  g_test_add_func ("/dicom/values/write-back", test_write_back);
  g_test_add_func ("/dicom/values/out-of-range", test_out_of_range);
  g_test_add_func ("/dicom/values/frame-number", test_frame_number);
  g_test_add_func ("/dicom/values/filters-on-signed", test_filters_on_signed);
  g_test_add_func ("/dicom/values/lossy-syntax", test_lossy_syntax);
  g_test_add_func ("/dicom/values/bad-attributes", test_bad_attributes);
  g_test_add_func ("/dicom/values/display", test_display);
  g_test_add_func ("/dicom/values/colour-lossy", test_colour_lossy);
  rc = g_test_run ();
  g_key_file_unref (variants);
  lb_test_remove_tree (dir);
  g_free (dir);
  return rc;
}
