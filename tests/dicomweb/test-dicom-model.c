/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of the DICOMweb backend's pure parts: the DICOM JSON model parser, the frame
 * decoder, the multipart parser/builder. Reference data in tests/data/dicomweb comes from
 * python3-pydicom's samples (see make-fixtures.py): the decoder must agree with pydicom's
 * pixel_array exactly. */
#include <string.h>

#include "lb-dicom-dataset.h"
#include "lb-dicom-frame.h"
#include "lb-dicom-multipart.h"
#include "lb-dicomweb-store.h"
#include "lb-error.h"
#include "lb-test-dicom.h"

static LbDicomDataset *
load_object (const char *name)
{
  g_autoptr(GBytes) bytes = lb_test_dicom_load (name);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  LbDicomDataset *ds;

  json_parser_load_from_data (parser, g_bytes_get_data (bytes, NULL),
                              (gssize) g_bytes_get_size (bytes), &error);
  g_assert_no_error (error);
  ds = lb_dicom_dataset_new_from_json_object (json_parser_get_root (parser), &error);
  g_assert_no_error (error);
  g_assert_nonnull (ds);
  return ds;
}

/* --- JSON model ---------------------------------------------------------------------------- */

static void
test_json_pydicom_sample (void)
{
  g_autoptr(LbDicomDataset) ds = load_object ("test1.json");
  g_autofree guint32 *tags = NULL;
  guint n = 0;
  gint64 iv = 0;

  g_assert_cmpstr (lb_dicom_dataset_get_string (ds, LB_TAG_SOP_CLASS_UID, 0), ==,
                   "1.2.840.10008.5.1.4.1.1.4");
  g_assert_cmpstr (lb_dicom_dataset_get_vr (ds, LB_TAG_SOP_CLASS_UID), ==, "UI");
  /* IS given as a JSON number */
  g_assert_true (lb_dicom_dataset_get_int (ds, LB_DICOM_TAG (0x0020, 0x1002), 0, &iv));
  g_assert_cmpint (iv, ==, 714);
  /* PN with an empty Alphabetic group: present, but no text */
  g_assert_true (lb_dicom_dataset_has (ds, LB_TAG_REFERRING_PHYSICIAN));
  g_assert_null (lb_dicom_dataset_get_string (ds, LB_TAG_REFERRING_PHYSICIAN, 0));
  /* Value [""]: one empty value */
  g_assert_cmpuint (lb_dicom_dataset_get_n_values (ds, LB_DICOM_TAG (0x0040, 0x2017)), ==, 1);
  g_assert_null (lb_dicom_dataset_get_string (ds, LB_DICOM_TAG (0x0040, 0x2017), 0));

  tags = lb_dicom_dataset_get_tags (ds, &n);
  g_assert_cmpuint (n, ==, lb_dicom_dataset_get_n_elements (ds));
  g_assert_cmpuint (n, >, 50);
  for (guint i = 1; i < n; i++)
    g_assert_cmpuint (tags[i - 1], <, tags[i]);
}

static void
test_json_person_names_and_sequences (void)
{
  g_autoptr(LbDicomDataset) ds = load_object ("test_PN.json");
  LbDicomDataset *item, *inner;
  g_autofree char *label = NULL;

  g_assert_cmpstr (lb_dicom_dataset_get_string (ds, LB_TAG_PATIENT_NAME, 0), ==,
                   "Prostate^Volunteer");
  label = lb_dicom_format_person_name (lb_dicom_dataset_get_string (ds, LB_TAG_PATIENT_NAME, 0));
  g_assert_cmpstr (label, ==, "Prostate, Volunteer");

  /* (0400,0561) OriginalAttributesSequence → (0400,0550) ModifiedAttributesSequence */
  g_assert_cmpstr (lb_dicom_dataset_get_vr (ds, LB_DICOM_TAG (0x0400, 0x0561)), ==, "SQ");
  g_assert_cmpuint (lb_dicom_dataset_get_n_items (ds, LB_DICOM_TAG (0x0400, 0x0561)), ==, 1);
  item = lb_dicom_dataset_get_item (ds, LB_DICOM_TAG (0x0400, 0x0561), 0);
  g_assert_nonnull (item);
  inner = lb_dicom_dataset_get_item (item, LB_DICOM_TAG (0x0400, 0x0550), 0);
  g_assert_nonnull (inner);
  g_assert_cmpstr (lb_dicom_dataset_get_string (inner, LB_DICOM_TAG (0x0010, 0x1010), 0), ==,
                   "051Y");
  g_assert_null (lb_dicom_dataset_get_item (ds, LB_DICOM_TAG (0x0400, 0x0561), 1));
}

static void
test_json_groups_and_numbers (void)
{
  const char *json =
    "[{\"00100010\":{\"vr\":\"PN\",\"Value\":[{\"Alphabetic\":\"Yamada^Tarou\","
    "\"Ideographic\":\"山田^太郎\",\"Phonetic\":\"やまだ^たろう\"}]},"
    "\"00280030\":{\"vr\":\"DS\",\"Value\":[0.661468,\"0.5 \"]},"
    "\"00281052\":{\"vr\":\"DS\",\"Value\":[-1024]},"
    "\"00280103\":{\"vr\":\"US\",\"Value\":[1]},"
    "\"00091001\":{\"vr\":\"OB\",\"InlineBinary\":\"AAEC/w==\"},"
    "\"7FE00010\":{\"vr\":\"OW\",\"BulkDataURI\":\"http://127.0.0.1/bulk/7fe00010\"},"
    "\"00200013\":{\"vr\":\"IS\"}}]";
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) arr = lb_dicom_json_parse_array (json, strlen (json), &error);
  LbDicomDataset *ds;
  g_autofree char *name = NULL;
  double v = 0;
  GBytes *bin;
  const guint8 *b;

  g_assert_no_error (error);
  ds = arr->pdata[0];
  g_assert_cmpstr (lb_dicom_dataset_get_string (ds, LB_TAG_PATIENT_NAME, 0), ==,
                   "Yamada^Tarou=山田^太郎=やまだ^たろう");
  name = lb_dicom_format_person_name (lb_dicom_dataset_get_string (ds, LB_TAG_PATIENT_NAME, 0));
  g_assert_cmpstr (name, ==, "Yamada, Tarou");
  /* A JSON double survives exactly; a DS sent as a string is accepted when it parses. */
  g_assert_true (lb_dicom_dataset_get_double (ds, LB_TAG_PIXEL_SPACING, 0, &v));
  g_assert_cmpfloat (v, ==, 0.661468);
  g_assert_true (lb_dicom_dataset_get_double (ds, LB_TAG_PIXEL_SPACING, 1, &v));
  g_assert_cmpfloat (v, ==, 0.5);
  g_assert_true (lb_dicom_dataset_get_double (ds, LB_TAG_RESCALE_INTERCEPT, 0, &v));
  g_assert_cmpfloat (v, ==, -1024);
  bin = lb_dicom_dataset_get_bytes (ds, LB_DICOM_TAG (0x0009, 0x1001));
  g_assert_nonnull (bin);
  g_assert_cmpuint (g_bytes_get_size (bin), ==, 4);
  b = g_bytes_get_data (bin, NULL);
  g_assert_cmpuint (b[0], ==, 0);
  g_assert_cmpuint (b[3], ==, 255);
  g_assert_cmpstr (lb_dicom_dataset_get_bulk_data_uri (ds, LB_TAG_PIXEL_DATA), ==,
                   "http://127.0.0.1/bulk/7fe00010");
  g_assert_true (lb_dicom_dataset_has (ds, LB_TAG_INSTANCE_NUMBER));
  g_assert_cmpuint (lb_dicom_dataset_get_n_values (ds, LB_TAG_INSTANCE_NUMBER), ==, 0);
  g_assert_false (lb_dicom_dataset_get_int (ds, LB_TAG_INSTANCE_NUMBER, 0, NULL));
  g_assert_false (lb_dicom_dataset_has (ds, LB_TAG_STUDY_DATE));
}

static void
test_json_malformed (void)
{
  static const struct {
    const char *json;
    const char *needle; /* must appear in the message */
  } cases[] = {
    { "", "empty" },
    { "{\"00100010\":", "invalid DICOM JSON" },
    { "{\"00100010\":{\"vr\":\"PN\"}}", "expected an array" },
    { "[42]", "must be a JSON object" },
    { "[{\"0010001\":{\"vr\":\"LO\"}}]", "\"0010001\" is not a DICOM tag" },
    { "[{\"0010001G\":{\"vr\":\"LO\"}}]", "is not a DICOM tag" },
    { "[{\"00100020\":{\"Value\":[\"x\"]}}]", "00100020 has no \"vr\"" },
    { "[{\"00100020\":{\"vr\":\"XX\"}}]", "unknown VR \"XX\"" },
    { "[{\"00100020\":{\"vr\":\"LO\",\"Value\":\"x\"}}]", "not an array" },
    { "[{\"00100020\":{\"vr\":\"LO\",\"Value\":[12]}}]", "a number where text was expected" },
    { "[{\"00280010\":{\"vr\":\"US\",\"Value\":[\"abc\"]}}]", "\"abc\" is not a number" },
    { "[{\"00100010\":{\"vr\":\"PN\",\"Value\":[17]}}]", "PN value must be an object" },
    { "[{\"00100010\":{\"vr\":\"PN\",\"Value\":[{\"Alphabetic\":3}]}}]", "not a string" },
    { "[{\"00091001\":{\"vr\":\"OB\",\"InlineBinary\":\"@@@@\"}}]", "not base64" },
    { "[{\"00091001\":{\"vr\":\"OB\",\"InlineBinary\":\"AAE\"}}]", "multiple of 4" },
    { "[{\"00091001\":{\"vr\":\"OB\",\"Value\":[1]}}]", "InlineBinary or BulkDataURI" },
    { "[{\"00091001\":{\"vr\":\"OB\",\"InlineBinary\":\"AA==\",\"BulkDataURI\":\"x\"}}]",
      "more than one" },
    { "[{\"00081199\":{\"vr\":\"SQ\",\"Value\":[{\"00081150\":{\"vr\":\"UI\",\"Value\":[1]}}]}}]",
      "00081199 item 0" },
    { "[{}, {\"00100020\":[]}]", "data set 1" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) arr = lb_dicom_json_parse_array (cases[i].json, strlen (cases[i].json),
                                                            &error);

      g_test_message ("case %u: %s", i, cases[i].json);
      g_assert_null (arr);
      g_assert_error (error, LB_ERROR, LB_ERROR_PARSE);
      if (strstr (error->message, cases[i].needle) == NULL)
        g_error ("case %u: message \"%s\" lacks \"%s\"", i, error->message, cases[i].needle);
    }
}

/* --- frames -------------------------------------------------------------------------------- */

static void
check_against_reference (const char *stem, const char *ts)
{
  g_autofree char *json = g_strdup_printf ("%s.json", stem);
  g_autofree char *frame_name = g_strdup_printf ("%s.frame", stem);
  g_autofree char *pixels_name = g_strdup_printf ("%s.pixels", stem);
  g_autoptr(LbDicomDataset) md = lb_test_dicom_load_metadata (json);
  g_autoptr(GBytes) frame = lb_test_dicom_load (frame_name);
  g_autoptr(GBytes) ref = lb_test_dicom_load (pixels_name);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbImage) img = lb_dicom_decode_frame (md, ts, frame, stem, NULL, &error);
  const guint8 *ref_data;
  const LbImageMeta *meta;
  LbValueModel *model;
  double a, b, slope, icpt, c, w, sx, sy;
  gint64 rows, cols, pixrep;

  g_assert_no_error (error);
  g_assert_true (lb_dicom_dataset_get_int (md, LB_TAG_ROWS, 0, &rows));
  g_assert_true (lb_dicom_dataset_get_int (md, LB_TAG_COLUMNS, 0, &cols));
  g_assert_true (lb_dicom_dataset_get_int (md, LB_TAG_PIXEL_REPRESENTATION, 0, &pixrep));
  g_assert_cmpuint (lb_image_get_width (img), ==, cols);
  g_assert_cmpuint (lb_image_get_height (img), ==, rows);
  g_assert_cmpint (lb_image_get_format (img), ==, LB_FORMAT_GRAY16);
  g_assert_cmpuint (g_bytes_get_size (ref), ==, (gsize) rows * cols * 2);

  meta = lb_image_get_meta (img);
  model = lb_image_meta_get_value_model (meta);
  g_assert_nonnull (model);
  g_assert_cmpint (lb_value_model_get_source_signed (model), ==, pixrep == 1);
  /* signed samples are offset binary: stored + 32768 */
  g_assert_cmpuint (lb_value_model_get_sample_offset (model), ==, pixrep == 1 ? 32768 : 0);
  ref_data = g_bytes_get_data (ref, NULL);
  for (guint y = 0; y < rows; y++)
    {
      const guint16 *row = (const guint16 *) lb_image_get_row (img, y);

      for (guint x = 0; x < cols; x++)
        {
          gsize i = ((gsize) y * cols + x) * 2;
          guint16 bits = (guint16) (ref_data[i] | (ref_data[i + 1] << 8));
          gint32 expect = pixrep == 1 ? (gint16) bits : bits;
          gint32 stored = lb_value_model_sample_to_stored (model, row[x]);

          if (stored != expect)
            g_error ("%s: pixel (%u,%u) is %d, pydicom says %d", stem, x, y, stored, expect);
        }
    }

  if (lb_dicom_dataset_get_double (md, LB_TAG_RESCALE_SLOPE, 0, &slope)
      && lb_dicom_dataset_get_double (md, LB_TAG_RESCALE_INTERCEPT, 0, &icpt))
    {
      g_assert_true (lb_value_model_get_stored_rescale (model, &a, &b));
      g_assert_cmpfloat (a, ==, slope);
      g_assert_cmpfloat (b, ==, icpt);
    }
  else
    g_assert_false (lb_value_model_get_stored_rescale (model, NULL, NULL));
  if (lb_dicom_dataset_get_double (md, LB_TAG_WINDOW_CENTER, 0, &c)
      && lb_dicom_dataset_get_double (md, LB_TAG_WINDOW_WIDTH, 0, &w))
    {
      g_assert_true (lb_value_model_get_window (model, 0, &a, &b, NULL));
      g_assert_cmpfloat (a, ==, c);
      g_assert_cmpfloat (b, ==, w);
    }
  /* PixelSpacing is row\column: y first */
  g_assert_true (lb_dicom_dataset_get_double (md, LB_TAG_PIXEL_SPACING, 0, &sy));
  g_assert_true (lb_dicom_dataset_get_double (md, LB_TAG_PIXEL_SPACING, 1, &sx));
  g_assert_true (lb_image_meta_get_pixel_spacing (meta, &a, &b));
  g_assert_cmpfloat (a, ==, sx);
  g_assert_cmpfloat (b, ==, sy);
  g_assert_nonnull (lb_image_meta_get_text (meta, "Patient"));
  g_assert_cmpstr (lb_image_meta_get_text (meta, "Modality"), ==,
                   lb_dicom_dataset_get_string (md, LB_TAG_MODALITY, 0));
  g_assert_cmpstr (lb_image_meta_get_text (meta, "dicom:StudyInstanceUID"), ==,
                   lb_dicom_dataset_get_string (md, LB_TAG_STUDY_INSTANCE_UID, 0));
}

static void
test_frame_ct_small (void)
{
  check_against_reference ("CT_small", LB_DICOM_TS_EXPLICIT_LE);
}

static void
test_frame_big_endian (void)
{
  check_against_reference ("MR_small_bigendian", LB_DICOM_TS_EXPLICIT_BE);
}

static LbValueModel *
image_model (LbImage *img)
{
  LbValueModel *m = lb_image_meta_get_value_model (lb_image_get_meta (img));

  g_assert_nonnull (m);
  return m;
}

static LbDicomDataset *
synthetic_md (guint rows, guint cols, guint spp, const char *photometric, guint alloc,
              guint stored, guint high, guint pixrep, guint planar)
{
  LbDicomDataset *md = lb_dicom_dataset_new ();

  lb_dicom_dataset_set_uint (md, LB_TAG_ROWS, "US", rows);
  lb_dicom_dataset_set_uint (md, LB_TAG_COLUMNS, "US", cols);
  lb_dicom_dataset_set_uint (md, LB_TAG_SAMPLES_PER_PIXEL, "US", spp);
  lb_dicom_dataset_set_string (md, LB_TAG_PHOTOMETRIC, "CS", photometric);
  lb_dicom_dataset_set_uint (md, LB_TAG_BITS_ALLOCATED, "US", alloc);
  lb_dicom_dataset_set_uint (md, LB_TAG_BITS_STORED, "US", stored);
  lb_dicom_dataset_set_uint (md, LB_TAG_HIGH_BIT, "US", high);
  lb_dicom_dataset_set_uint (md, LB_TAG_PIXEL_REPRESENTATION, "US", pixrep);
  if (spp == 3)
    lb_dicom_dataset_set_uint (md, LB_TAG_PLANAR_CONFIGURATION, "US", planar);
  return md;
}

static void
test_frame_bits (void)
{
  /* 12 stored bits, signed, high bit 11, junk (as from overlays) in bits 12–15.
   * Stored 0x0FFF = -1, 0x0800 = -2048, 0x07FF = 2047, 0x0000 = 0. */
  static const guint8 raw12[] = { 0xff, 0xff, 0x00, 0xa8, 0xff, 0x57, 0x00, 0xf0 };
  static const gint16 want12[] = { -1, -2048, 2047, 0 };
  /* 12 stored bits in the top of the word (high bit 15): value = raw >> 4, unsigned. */
  static const guint8 raw_hi[] = { 0x1f, 0xff, 0x00, 0x10, 0x0a, 0x00, 0xf5, 0x00 };
  static const guint16 want_hi[] = { 0xff1, 256, 0, 15 };
  /* 8-bit signed widens to int16 */
  static const guint8 raw8s[] = { 0x80, 0xff, 0x00, 0x7f };
  static const gint16 want8s[] = { -128, -1, 0, 127 };
  g_autoptr(GError) error = NULL;

  {
    g_autoptr(LbDicomDataset) md = synthetic_md (2, 2, 1, "MONOCHROME2", 16, 12, 11, 1, 0);
    g_autoptr(GBytes) f = g_bytes_new_static (raw12, sizeof raw12);
    g_autoptr(LbImage) img = lb_dicom_decode_frame (md, NULL, f, "t12", NULL, &error);

    g_assert_no_error (error);
    g_assert_true (lb_value_model_get_source_signed (image_model (img)));
    g_assert_cmpuint (lb_value_model_get_bits_stored (image_model (img)), ==, 12);
    /* offset binary: stored + 32768 */
    for (guint i = 0; i < 4; i++)
      g_assert_cmpint (((const guint16 *) lb_image_get_row (img, i / 2))[i % 2], ==,
                       want12[i] + 32768);
  }
  {
    g_autoptr(LbDicomDataset) md = synthetic_md (1, 4, 1, "MONOCHROME1", 16, 12, 15, 0, 0);
    g_autoptr(GBytes) f = g_bytes_new_static (raw_hi, sizeof raw_hi);
    g_autoptr(LbImage) img = lb_dicom_decode_frame (md, LB_DICOM_TS_IMPLICIT_LE, f, "thi", NULL,
                                                    &error);

    g_assert_no_error (error);
    g_assert_false (lb_value_model_get_source_signed (image_model (img)));
    g_assert_true (lb_value_model_get_monochrome1 (image_model (img)));
    for (guint i = 0; i < 4; i++)
      g_assert_cmpuint (((const guint16 *) lb_image_get_row (img, 0))[i], ==, want_hi[i]);
  }
  {
    g_autoptr(LbDicomDataset) md = synthetic_md (1, 4, 1, "MONOCHROME2", 8, 8, 7, 1, 0);
    g_autoptr(GBytes) f = g_bytes_new_static (raw8s, sizeof raw8s);
    g_autoptr(LbImage) img = lb_dicom_decode_frame (md, NULL, f, "t8s", NULL, &error);

    g_assert_no_error (error);
    g_assert_cmpint (lb_image_get_format (img), ==, LB_FORMAT_GRAY16);
    g_assert_true (lb_value_model_get_source_signed (image_model (img)));
    g_assert_false (lb_value_model_get_monochrome1 (image_model (img)));
    for (guint i = 0; i < 4; i++)
      g_assert_cmpint (((const guint16 *) lb_image_get_row (img, 0))[i], ==, want8s[i] + 32768);
  }
  {
    g_autoptr(LbDicomDataset) md = synthetic_md (1, 4, 1, "MONOCHROME2", 8, 8, 7, 0, 0);
    g_autoptr(GBytes) f = g_bytes_new_static (raw8s, sizeof raw8s);
    g_autoptr(LbImage) img = NULL;
    double x = 0, y = 0;

    /* only ImagerPixelSpacing (row 0.2 mm \ column 0.15 mm), as on a DX image */
    lb_dicom_dataset_set_string (md, LB_TAG_IMAGER_PIXEL_SPACING, "DS", "0.2\\0.15");
    img = lb_dicom_decode_frame (md, NULL, f, "t8", NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpint (lb_image_get_format (img), ==, LB_FORMAT_GRAY8);
    g_assert_cmpmem (lb_image_get_row (img, 0), 4, raw8s, 4);
    g_assert_true (lb_image_meta_get_pixel_spacing (lb_image_get_meta (img), &x, &y));
    g_assert_cmpfloat (x, ==, 0.15);
    g_assert_cmpfloat (y, ==, 0.2);
  }
}

static void
test_frame_rgb_planar (void)
{
  /* 2×2 RGB: pixel i = (10+i, 20+i, 30+i), once interleaved and once colour-by-plane. */
  guint8 interleaved[12], planar[12];
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < 4; i++)
    for (guint c = 0; c < 3; c++)
      {
        interleaved[i * 3 + c] = (guint8) (10 * (c + 1) + i);
        planar[c * 4 + i] = (guint8) (10 * (c + 1) + i);
      }
  for (guint pc = 0; pc < 2; pc++)
    {
      g_autoptr(LbDicomDataset) md = synthetic_md (2, 2, 3, "RGB", 8, 8, 7, 0, pc);
      g_autoptr(GBytes) f = g_bytes_new (pc ? planar : interleaved, 12);
      g_autoptr(LbImage) img = lb_dicom_decode_frame (md, NULL, f, "rgb", NULL, &error);

      g_assert_no_error (error);
      g_assert_cmpint (lb_image_get_format (img), ==, LB_FORMAT_RGB8);
      g_assert_cmpmem (lb_image_get_row (img, 0), 6, interleaved, 6);
      g_assert_cmpmem (lb_image_get_row (img, 1), 6, interleaved + 6, 6);
    }
}

static void
test_frame_errors (void)
{
  static const guint8 raw[8] = { 0 };
  g_autoptr(GBytes) f = g_bytes_new_static (raw, sizeof raw);
  struct {
    LbDicomDataset *md;
    const char *ts;
    int code;
  } cases[] = {
    { synthetic_md (2, 2, 1, "MONOCHROME2", 16, 16, 15, 0, 0), "1.2.840.10008.1.2.4.50",
      LB_ERROR_CORRUPT },      /* JPEG baseline: zeros are not a JPEG stream */
    { synthetic_md (2, 2, 1, "MONOCHROME2", 16, 16, 15, 0, 0), "1.2.840.10008.1.2.4.90",
      LB_ERROR_CORRUPT },      /* JPEG 2000 */
    { synthetic_md (2, 2, 1, "MONOCHROME2", 16, 16, 15, 0, 0), "1.2.840.10008.1.2.4.100",
      LB_ERROR_UNSUPPORTED },  /* MPEG2 */
    { synthetic_md (1, 2, 1, "MONOCHROME2", 32, 32, 31, 0, 0), NULL, LB_ERROR_UNSUPPORTED },
    { synthetic_md (1, 1, 1, "MONOCHROME2", 1, 1, 0, 0, 0), NULL, LB_ERROR_UNSUPPORTED },
    { synthetic_md (2, 2, 3, "YBR_FULL", 8, 8, 7, 0, 0), NULL, LB_ERROR_TRUNCATED },
    { synthetic_md (2, 2, 1, "PALETTE COLOR", 8, 8, 7, 0, 0), NULL, LB_ERROR_CORRUPT },
    { synthetic_md (2, 2, 3, "HSV", 8, 8, 7, 0, 0), NULL, LB_ERROR_UNSUPPORTED },
    { synthetic_md (3, 3, 1, "MONOCHROME2", 16, 16, 15, 0, 0), NULL, LB_ERROR_TRUNCATED },
    { synthetic_md (2, 2, 1, "MONOCHROME2", 16, 17, 15, 0, 0), NULL, LB_ERROR_CORRUPT },
    { synthetic_md (2, 2, 1, "MONOCHROME2", 16, 12, 16, 0, 0), NULL, LB_ERROR_CORRUPT },
    { synthetic_md (0, 2, 1, "MONOCHROME2", 16, 16, 15, 0, 0), NULL, LB_ERROR_CORRUPT },
  };

  lb_dicom_dataset_remove (cases[G_N_ELEMENTS (cases) - 1].md, LB_TAG_ROWS);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(LbImage) img = lb_dicom_decode_frame (cases[i].md, cases[i].ts, f, "bad", NULL,
                                                      &error);

      g_test_message ("case %u: %s", i, error ? error->message : "(no error)");
      g_assert_null (img);
      g_assert_error (error, LB_ERROR, cases[i].code);
      g_assert_true (g_str_has_prefix (error->message, "bad"));
      lb_dicom_dataset_unref (cases[i].md);
    }
}

/* --- multipart ----------------------------------------------------------------------------- */

static void
test_multipart_round_trip (void)
{
  g_autoptr(GPtrArray) bodies = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autoptr(GBytes) body = NULL;
  g_autoptr(GPtrArray) parts = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *ct = NULL;
  /* Binary content with CR LF and dashes inside must survive. */
  static const guint8 a[] = { 0, 1, '\r', '\n', '-', '-', 0xff, 0 };

  g_ptr_array_add (bodies, g_bytes_new_static (a, sizeof a));
  g_ptr_array_add (bodies, g_bytes_new_static ("second", 6));
  body = lb_dicom_multipart_build ("application/dicom", bodies, &ct);
  g_assert_true (g_str_has_prefix (ct, "multipart/related"));
  g_assert_nonnull (strstr (ct, "application/dicom"));
  g_assert_nonnull (strstr (ct, "boundary="));

  parts = lb_dicom_multipart_parse (ct, body, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (parts->len, ==, 2);
  g_assert_cmpstr (((LbDicomPart *) parts->pdata[0])->content_type, ==, "application/dicom");
  g_assert_true (g_bytes_equal (((LbDicomPart *) parts->pdata[0])->body, bodies->pdata[0]));
  g_assert_true (g_bytes_equal (((LbDicomPart *) parts->pdata[1])->body, bodies->pdata[1]));
}

/* The shape Orthanc's DICOMweb plugin sends for …/frames/1 (captured, pixel bytes shortened). */
static void
test_multipart_wado_frames (void)
{
  const char *ct = "multipart/related; type=\"application/octet-stream; "
                   "transfer-syntax=1.2.840.10008.1.2.1\"; boundary=51f777b9-def4-402d";
  const char *raw = "--51f777b9-def4-402d\r\n"
                    "Content-Location: http://127.0.0.1:1/dicom-web/studies/1/series/2/"
                    "instances/3/frames/1\r\n"
                    "Content-Type: application/octet-stream; transfer-syntax=1.2.840.10008.1.2.2\r\n"
                    "MIME-Version: 1.0\r\n"
                    "Content-Length: 4\r\n"
                    "\r\n"
                    "\x01\x02\x03\x04\r\n"
                    "--51f777b9-def4-402d--\r\n";
  g_autoptr(GBytes) body = g_bytes_new_static (raw, strlen (raw));
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) parts = lb_dicom_multipart_parse (ct, body, &error);
  LbDicomPart *p;

  g_assert_no_error (error);
  g_assert_cmpuint (parts->len, ==, 1);
  p = parts->pdata[0];
  g_assert_cmpstr (p->content_type, ==, "application/octet-stream");
  /* the part's own parameter wins over the outer type's */
  g_assert_cmpstr (p->transfer_syntax, ==, "1.2.840.10008.1.2.2");
  g_assert_nonnull (strstr (p->location, "/frames/1"));
  g_assert_cmpmem (g_bytes_get_data (p->body, NULL), g_bytes_get_size (p->body),
                   "\x01\x02\x03\x04", 4);
}

static void
test_multipart_malformed (void)
{
  static const struct {
    const char *ct;
    const char *body;
  } cases[] = {
    { NULL, "--b\r\n\r\nx\r\n--b--\r\n" },
    { "application/dicom+json", "[]" },
    { "multipart/related; type=\"application/octet-stream\"", "--b\r\n\r\nx\r\n--b--\r\n" },
    { "multipart/related; boundary=b", "" },
    { "multipart/related; boundary=b", "no boundary anywhere in this body" },
    { "multipart/related; boundary=b", "--b\r\nContent-Type: application/octet-stream\r\n\r\nabc" },
    { "multipart/related; boundary=b", "--b--\r\n" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GBytes) body = g_bytes_new_static (cases[i].body, strlen (cases[i].body));
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) parts = lb_dicom_multipart_parse (cases[i].ct, body, &error);

      g_test_message ("case %u: %s", i, error ? error->message : "(no error)");
      g_assert_null (parts);
      g_assert_error (error, LB_ERROR, LB_ERROR_PARSE);
    }
}

/* --- labels -------------------------------------------------------------------------------- */

static LbDicomDataset *
ds_with (guint32 tag1, const char *vr1, const char *v1, guint32 tag2, const char *vr2,
         const char *v2, guint32 tag3, const char *vr3, const char *v3)
{
  LbDicomDataset *ds = lb_dicom_dataset_new ();

  if (v1)
    lb_dicom_dataset_set_string (ds, tag1, vr1, v1);
  if (v2)
    lb_dicom_dataset_set_string (ds, tag2, vr2, v2);
  if (v3)
    lb_dicom_dataset_set_string (ds, tag3, vr3, v3);
  return ds;
}

static void
check_label (char *label, const char *want)
{
  g_assert_cmpstr (label, ==, want);
  g_free (label);
}

/* The study label of UID 1.2.3 with @date and @desc (NULL: absent). */
static void
check_study_label (const char *date,
                   const char *desc,
                   const char *want)
{
  LbDicomDataset *ds = ds_with (LB_TAG_STUDY_INSTANCE_UID, "UI", "1.2.3", LB_TAG_STUDY_DATE,
                                "DA", date, LB_TAG_STUDY_DESCRIPTION, "LO", desc);

  check_label (lb_dicomweb_label_study (ds), want);
  lb_dicom_dataset_unref (ds);
}

/* The series label of UID 1.2.4 with @modality, @number and @desc (NULL: absent). */
static void
check_series_label (const char *modality,
                    const char *number,
                    const char *desc,
                    const char *want)
{
  LbDicomDataset *ds = ds_with (LB_TAG_SERIES_INSTANCE_UID, "UI", "1.2.4", LB_TAG_MODALITY,
                                "CS", modality, LB_TAG_SERIES_NUMBER, "IS", number);

  if (desc != NULL)
    lb_dicom_dataset_set_string (ds, LB_TAG_SERIES_DESCRIPTION, "LO", desc);
  check_label (lb_dicomweb_label_series (ds), want);
  lb_dicom_dataset_unref (ds);
}

/* The instance label of UID 1.2.5 with @number (NULL: absent). */
static void
check_instance_label (const char *number,
                      const char *want)
{
  LbDicomDataset *ds = ds_with (LB_TAG_SOP_INSTANCE_UID, "UI", "1.2.5", LB_TAG_INSTANCE_NUMBER,
                                "IS", number, 0, NULL, NULL);

  check_label (lb_dicomweb_label_instance (ds), want);
  lb_dicom_dataset_unref (ds);
}

static void
test_labels (void)
{
  check_label (lb_dicomweb_label_patient ("Doe^John^A^Dr^Jr", "123"), "Doe, John A Dr Jr (123)");
  check_label (lb_dicomweb_label_patient ("Doe", "123"), "Doe (123)");
  check_label (lb_dicomweb_label_patient ("^John", "x"), "John (x)");
  check_label (lb_dicomweb_label_patient (NULL, ""), "(no name) (no ID)");
  check_label (lb_dicomweb_label_patient ("", NULL), "(no name) (no ID)");

  check_study_label ("20040119", "Head CT", "2004-01-19 Head CT");
  check_study_label ("20040119", NULL, "2004-01-19 (no description)");
  check_study_label (NULL, "Head", "(no date) Head");
  check_study_label ("", "  ", "1.2.3");

  check_series_label ("CT", "2", "Axial 5mm", "CT #2 Axial 5mm");
  check_series_label ("MR", NULL, NULL, "MR (no description)");
  check_series_label (NULL, "3", NULL, "(no modality) #3 (no description)");
  check_series_label (NULL, NULL, NULL, "1.2.4");

  check_instance_label ("17", "#17");
  check_instance_label (NULL, "1.2.5");
}

/* --- robustness ---------------------------------------------------------------------------- */

/* Damaged metadata never crashes the parser: every mutation either parses or is a PARSE error;
 * whatever parses decodes the frame or fails with an LB_ERROR. Deterministic (fixed seed). */
static void
test_json_mutations (void)
{
  g_autoptr(GBytes) orig = lb_test_dicom_load ("CT_small.json");
  g_autoptr(GBytes) frame = lb_test_dicom_load ("CT_small.frame");
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261129);
  gsize len = g_bytes_get_size (orig);
  guint parsed = 0, refused = 0;

  for (guint round = 0; round < 400; round++)
    {
      g_autofree char *buf = g_memdup2 (g_bytes_get_data (orig, NULL), len);
      gsize n = len;
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) arr = NULL;

      for (guint k = 0; k < 1 + round % 4; k++)
        {
          gsize at = g_rand_int_range (rand, 0, (gint32) n);

          switch (g_rand_int_range (rand, 0, 3))
            {
            case 0: buf[at] = (char) g_rand_int_range (rand, 32, 127); break;
            case 1: n = at; break;                                    /* truncate */
            default: buf[at] = "[]{}\",:0-e\\"[g_rand_int_range (rand, 0, 10)]; break;
            }
        }
      arr = lb_dicom_json_parse_array (buf, n, &error);
      if (arr == NULL)
        {
          g_assert_error (error, LB_ERROR, LB_ERROR_PARSE);
          refused++;
          continue;
        }
      parsed++;
      for (guint i = 0; i < arr->len; i++)
        {
          g_autoptr(GError) e2 = NULL;
          g_autoptr(LbImage) img = lb_dicom_decode_frame (arr->pdata[i], NULL, frame, "m", NULL,
                                                          &e2);

          if (img == NULL)
            g_assert_true (e2 != NULL && e2->domain == LB_ERROR);
        }
    }
  g_test_message ("%u mutations parsed, %u refused", parsed, refused);
  g_assert_cmpuint (refused, >, 0);
}

/* A multipart body cut at any length is a PARSE error, never a crash and never a shorter part
 * presented as the frame. */
static void
test_multipart_truncations (void)
{
  g_autoptr(GPtrArray) bodies = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autoptr(GBytes) body = NULL;
  g_autofree char *ct = NULL;
  const guint8 *data;
  gsize len;
  guint complete = 0;

  g_ptr_array_add (bodies, lb_test_dicom_load ("CT_small.frame"));
  body = lb_dicom_multipart_build ("application/octet-stream", bodies, &ct);
  data = g_bytes_get_data (body, &len);
  for (gsize cut = 0; cut <= len;
       cut = (cut < 200 || cut + 200 >= len) ? cut + 1 : MIN (cut + 997, len - 200))
    {
      g_autoptr(GBytes) part = g_bytes_new (data, cut);
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) parts = lb_dicom_multipart_parse (ct, part, &error);

      if (parts == NULL)
        {
          g_assert_error (error, LB_ERROR, LB_ERROR_PARSE);
          continue;
        }
      /* whatever parses is the whole frame: a cut body never yields a shorter part */
      g_assert_cmpuint (parts->len, ==, 1);
      g_assert_true (g_bytes_equal (((LbDicomPart *) parts->pdata[0])->body, bodies->pdata[0]));
      complete++;
    }
  /* the complete body (and cuts inside its closing boundary's final CRLF) parse */
  g_assert_cmpuint (complete, >=, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/dicom/json/pydicom-sample", test_json_pydicom_sample);
  g_test_add_func ("/dicom/json/person-names-sequences", test_json_person_names_and_sequences);
  g_test_add_func ("/dicom/json/groups-numbers-binary", test_json_groups_and_numbers);
  g_test_add_func ("/dicom/json/malformed", test_json_malformed);
  g_test_add_func ("/dicom/frame/ct-small", test_frame_ct_small);
  g_test_add_func ("/dicom/frame/big-endian", test_frame_big_endian);
  g_test_add_func ("/dicom/frame/bits", test_frame_bits);
  g_test_add_func ("/dicom/frame/rgb-planar", test_frame_rgb_planar);
  g_test_add_func ("/dicom/frame/errors", test_frame_errors);
  g_test_add_func ("/dicom/multipart/round-trip", test_multipart_round_trip);
  g_test_add_func ("/dicom/multipart/wado-frames", test_multipart_wado_frames);
  g_test_add_func ("/dicom/multipart/malformed", test_multipart_malformed);
  g_test_add_func ("/dicom/labels", test_labels);
  g_test_add_func ("/dicom/robustness/json-mutations", test_json_mutations);
  g_test_add_func ("/dicom/robustness/multipart-truncations", test_multipart_truncations);
  return g_test_run ();
}
