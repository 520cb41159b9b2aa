/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lb-plane-geometry against plane-reference.py (numpy, another method): the reference line of
 * one image on another (PS3.3 C.7.6.2.1.1) for the phantom's axial, sagittal, coronal and
 * oblique planes through each other and for random ones, none when they are parallel or do not
 * meet; the nearest slice of a stack to a point; and the plane read from a slice's data set. */
#include <json-glib/json-glib.h>
#include <math.h>

#include "lb-dicom-tags.h"
#include "lb-plane-geometry.h"
#include "lb-test-files.h"
#include "lb-test-process.h"

static void
read_doubles (JsonObject *o, const char *member, double *out, guint n)
{
  JsonArray *a = json_object_get_array_member (o, member);

  g_assert_cmpuint (json_array_get_length (a), ==, n);
  for (guint k = 0; k < n; k++)
    out[k] = json_array_get_double_element (a, k);
}

static void
read_plane (JsonObject *o, LbPlane *plane)
{
  double ipp[3], iop[6], ps[2];

  read_doubles (o, "ipp", ipp, 3);
  read_doubles (o, "iop", iop, 6);
  read_doubles (o, "spacing", ps, 2);
  g_assert_true (lb_plane_init (plane, ipp, iop, ps, json_object_get_int_member (o, "rows"),
                                json_object_get_int_member (o, "columns")));
}

/* The ends match in either order, to a millionth of a pixel relative to the image size. */
static void
check_line (const double got[4], const double want[4], guint i)
{
  double same = 0, swapped = 0;

  for (guint k = 0; k < 4; k++)
    {
      same = MAX (same, fabs (got[k] - want[k]));
      swapped = MAX (swapped, fabs (got[k] - want[(k + 2) % 4]));
    }
  if (MIN (same, swapped) > 1e-6 * (1 + fabs (want[0]) + fabs (want[1])))
    g_error ("case %u: line (%g, %g)–(%g, %g), numpy says (%g, %g)–(%g, %g)", i, got[0], got[1],
             got[2], got[3], want[0], want[1], want[2], want[3]);
}

static void
test_reference (void)
{
  g_autofree char *dir = lb_test_make_tmpdir ("plane");
  g_autofree char *out = lb_test_run_reference ("view", "plane-reference.py", dir);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonArray *lines, *nearest;
  guint n_lines = 0, n_none = 0;

  lb_test_remove_tree (dir);
  if (out == NULL)
    {
      g_test_skip ("numpy is needed for the reference");
      return;
    }
  root = json_from_string (out, &error);
  g_assert_no_error (error);
  lines = json_object_get_array_member (json_node_get_object (root), "lines");
  for (guint i = 0; i < json_array_get_length (lines); i++)
    {
      JsonObject *c = json_array_get_object_element (lines, i);
      LbPlane image, target;
      double got[4], want[4];
      gboolean have;

      read_plane (json_object_get_object_member (c, "image"), &image);
      read_plane (json_object_get_object_member (c, "target"), &target);
      have = lb_plane_reference_line (&image, &target, got);
      if (json_object_get_null_member (c, "line"))
        {
          if (have)
            g_error ("case %u: a line (%g, %g)–(%g, %g) where numpy finds none", i, got[0],
                     got[1], got[2], got[3]);
          n_none++;
          continue;
        }
      if (!have)
        g_error ("case %u: no line where numpy finds one", i);
      read_doubles (c, "line", want, 4);
      check_line (got, want, i);
      n_lines++;
    }
  /* both outcomes were tried, parallel planes among the "none" */
  g_assert_cmpuint (n_lines, >, 40);
  g_assert_cmpuint (n_none, >, 10);

  nearest = json_object_get_array_member (json_node_get_object (root), "nearest");
  g_assert_cmpuint (json_array_get_length (nearest), >, 0);
  for (guint i = 0; i < json_array_get_length (nearest); i++)
    {
      JsonObject *c = json_array_get_object_element (nearest, i);
      JsonArray *pa = json_object_get_array_member (c, "planes");
      g_autofree LbPlane *planes = g_new (LbPlane, json_array_get_length (pa));
      double point[3];

      for (guint k = 0; k < json_array_get_length (pa); k++)
        read_plane (json_array_get_object_element (pa, k), &planes[k]);
      read_doubles (c, "point", point, 3);
      g_assert_cmpint (lb_plane_nearest (planes, json_array_get_length (pa), point), ==,
                       json_object_get_int_member (c, "index"));
    }
}

/* An axial slice of the phantom's geometry (make-phantom.py) read from its data set: the
 * sagittal plane through x = −25 + 10 · 0.7 mm cuts it along its column 10. */
static void
test_dataset (void)
{
  g_autoptr(LbDicomDataset) ax = lb_dicom_dataset_new ();
  g_autoptr(LbDicomDataset) sag = lb_dicom_dataset_new ();
  LbPlane a, s;
  double ij[4];

  lb_dicom_dataset_set_string (ax, LB_TAG_IMAGE_POSITION_PATIENT, "DS", "-25\\-30\\95");
  lb_dicom_dataset_set_string (ax, LB_TAG_IMAGE_ORIENTATION_PATIENT, "DS", "1\\0\\0\\0\\1\\0");
  lb_dicom_dataset_set_string (ax, LB_TAG_PIXEL_SPACING, "DS", "0.8\\0.7");
  lb_dicom_dataset_set_uint (ax, LB_TAG_ROWS, "US", 64);
  lb_dicom_dataset_set_uint (ax, LB_TAG_COLUMNS, "US", 64);
  g_assert_true (lb_plane_from_dataset (&a, ax));
  g_assert_cmpfloat_with_epsilon (a.normal[2], 1, 1e-12);
  lb_dicom_dataset_set_string (sag, LB_TAG_IMAGE_POSITION_PATIENT, "DS", "-18\\-30\\100");
  lb_dicom_dataset_set_string (sag, LB_TAG_IMAGE_ORIENTATION_PATIENT, "DS", "0\\1\\0\\0\\0\\-1");
  lb_dicom_dataset_set_string (sag, LB_TAG_PIXEL_SPACING, "DS", "0.8\\0.7");
  lb_dicom_dataset_set_uint (sag, LB_TAG_ROWS, "US", 64);
  lb_dicom_dataset_set_uint (sag, LB_TAG_COLUMNS, "US", 64);
  g_assert_true (lb_plane_from_dataset (&s, sag));
  /* the sagittal slice on the axial one: a vertical line at column (−18 − −25) / 0.7 = 10 */
  g_assert_true (lb_plane_reference_line (&s, &a, ij));
  g_assert_cmpfloat_with_epsilon (ij[0], 10, 1e-9);
  g_assert_cmpfloat_with_epsilon (ij[2], 10, 1e-9);
  /* the axial slice on the sagittal one: a horizontal line at row (100 − 95) / 0.8 = 6.25 */
  g_assert_true (lb_plane_reference_line (&a, &s, ij));
  g_assert_cmpfloat_with_epsilon (ij[1], 6.25, 1e-9);
  g_assert_cmpfloat_with_epsilon (ij[3], 6.25, 1e-9);
  /* an axial slice on another: parallel, no line */
  g_assert_false (lb_plane_reference_line (&a, &a, ij));
  /* no spacing: no plane */
  lb_dicom_dataset_remove (ax, LB_TAG_PIXEL_SPACING);
  g_assert_false (lb_plane_from_dataset (&a, ax));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/view/plane/reference", test_reference);
  g_test_add_func ("/view/plane/dataset", test_dataset);
  return g_test_run ();
}
