/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-cli"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lb-cli-measure-io.h"
#include "lb-cli-store-options.h"
#include "lb-cli.h"
#include "lb-dicom-writer.h"
#include "lb-dicomweb-reports.h"
#include "lb-error.h"
#include "lb-measurement-sr.h"

static char **opt_tools[LB_MEASUREMENT_N_TOOLS];
static int opt_frame;
static gboolean opt_save_sr, opt_json;
static char *opt_sr_output;

static const GOptionEntry entries[] = {
  { "length", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_tools[LB_MEASUREMENT_LENGTH],
    "A length from (X0, Y0) to (X1, Y1)", "X0,Y0,X1,Y1" },
  { "angle", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_tools[LB_MEASUREMENT_ANGLE],
    "An angle, the vertex in the middle", "X0,Y0,X1,Y1,X2,Y2" },
  { "polyline", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_tools[LB_MEASUREMENT_POLYLINE],
    "An open polyline of 2 or more points", "X0,Y0,X1,Y1,…" },
  { "rectangle", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_tools[LB_MEASUREMENT_RECTANGLE],
    "A rectangle ROI between opposite corners", "X0,Y0,X1,Y1" },
  { "ellipse", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_tools[LB_MEASUREMENT_ELLIPSE],
    "An ellipse ROI in the box between opposite corners", "X0,Y0,X1,Y1" },
  { "freehand", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_tools[LB_MEASUREMENT_FREEHAND],
    "A closed polygon ROI of 3 or more points", "X0,Y0,X1,Y1,X2,Y2,…" },
  { "probe", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_tools[LB_MEASUREMENT_PROBE],
    "The value of the pixel under (X, Y)", "X,Y" },
  { "arrow", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_tools[LB_MEASUREMENT_ARROW],
    "An arrow from tail to head with a label", "X0,Y0,X1,Y1[:LABEL]" },
  { "frame", 0, 0, G_OPTION_ARG_INT, &opt_frame, "The DICOM frame to measure, from 1 (default 1)",
    "N" },
  { "json", 0, 0, G_OPTION_ARG_NONE, &opt_json,
    "Print the measurements as a JSON sidecar document instead of CSV", NULL },
  { "save-sr", 0, 0, G_OPTION_ARG_NONE, &opt_save_sr,
    "Save the measurements to the DICOMweb server as a DICOM SR (TID 1500) in a new series",
    NULL },
  { "sr-output", 0, 0, G_OPTION_ARG_FILENAME, &opt_sr_output,
    "Write the DICOM SR to FILE (never replaces a file)", "FILE" },
  { NULL }
};

/* "X0,Y0,X1,Y1[:LABEL]" → a measurement of @tool. */
static LbMeasurement *
parse_measurement (LbMeasurementTool tool, const char *arg, GError **error)
{
  const char *name = lb_measurement_tool_to_string (tool);
  g_autofree char *coords = g_strdup (arg);
  char *label = tool == LB_MEASUREMENT_ARROW ? strchr (coords, ':') : NULL;
  g_auto(GStrv) parts = NULL;
  g_autoptr(GArray) points = g_array_new (FALSE, FALSE, sizeof (LbMeasurementPoint));
  LbMeasurement *m;
  guint n;

  if (label != NULL)
    *label++ = '\0';
  parts = g_strsplit (coords, ",", -1);
  n = g_strv_length (parts);
  if (n % 2 != 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "--%s %s: coordinates come in x,y pairs", name, arg);
      return NULL;
    }
  for (guint i = 0; i < n; i += 2)
    {
      LbMeasurementPoint p;
      char *end_x = NULL, *end_y = NULL;

      p.x = g_ascii_strtod (parts[i], &end_x);
      p.y = g_ascii_strtod (parts[i + 1], &end_y);
      if (end_x == parts[i] || *end_x != '\0' || end_y == parts[i + 1] || *end_y != '\0')
        {
          g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                       "--%s %s: “%s,%s” is not a pair of numbers", name, arg, parts[i],
                       parts[i + 1]);
          return NULL;
        }
      g_array_append_val (points, p);
    }
  m = lb_measurement_new_with_points (tool, (const LbMeasurementPoint *) points->data,
                                      points->len, error);
  if (m == NULL)
    {
      g_prefix_error (error, "--%s %s: ", name, arg);
      return NULL;
    }
  if (label != NULL && *label != '\0')
    lb_measurement_set_text (m, label);
  return m;
}

/* Writes @bytes to @path only when no file is there (O_EXCL), whole or not at all. */
static gboolean
write_new_file (const char *path, GBytes *bytes, GError **error)
{
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);
  int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  gsize done = 0;

  if (fd < 0)
    {
      int saved = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), "%s: %s%s", path,
                   g_strerror (saved), saved == EEXIST ? " (never replaced)" : "");
      return FALSE;
    }
  while (done < len)
    {
      ssize_t w = write (fd, data + done, len - done);

      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        {
          int saved = errno;

          close (fd);
          unlink (path);
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), "%s: %s", path,
                       g_strerror (saved));
          return FALSE;
        }
      done += (gsize) w;
    }
  if (close (fd) != 0)
    {
      int saved = errno;

      unlink (path);
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), "%s: %s", path,
                   g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

static gboolean
save_report (LbCliMeasureTarget *t, GPtrArray *measurements, GError **error)
{
  LbMeasurementSrImage img = {
    .dataset = t->dataset, .frame = t->frame, .image = t->image, .spacing = &t->spacing,
    .measurements = measurements,
  };
  g_autoptr(LbDicomDataset) report = NULL;

  if (t->dataset == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                   "the image is not DICOM: a DICOM SR can only reference DICOM images");
      return FALSE;
    }
  if (opt_save_sr && !t->dicomweb)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                   "--save-sr needs a DICOMweb instance URL (dicomweb+http://…/instances/…); "
                   "use --sr-output FILE to write the report to a file");
      return FALSE;
    }
  report = lb_measurement_sr_build (&img, 1, 1, error);
  if (report == NULL)
    return FALSE;
  if (opt_save_sr)
    {
      g_autoptr(GAsyncResult) result = NULL;
      g_autoptr(LbStoreEntry) entry = NULL;

      lb_dicomweb_store_save_report_async (LB_DICOMWEB_STORE (t->store), report, NULL,
                                           lb_cli_store_result, &result);
      entry = lb_dicomweb_store_save_report_finish (LB_DICOMWEB_STORE (t->store),
                                                    lb_cli_wait (&result), error);
      if (entry == NULL)
        return FALSE;
      g_printerr ("lightbox-cli measure: saved the report as %s\n", lb_store_entry_get_uri (entry));
    }
  if (opt_sr_output != NULL)
    {
      g_autoptr(GBytes) part10 = lb_dicom_write_part10 (report, error);

      if (part10 == NULL || !write_new_file (opt_sr_output, part10, error))
        return FALSE;
    }
  return TRUE;
}

int
lb_cli_measure (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new ("URL|FILE");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) measurements = g_ptr_array_new_with_free_func (g_object_unref);
  g_auto(LbCliMeasureTarget) t = { .frame = -1 };

  g_option_context_set_summary (context,
    "Measure an image in real-world units, as the workstation's tools do, and print the\n"
    "values (CSV, or --json). Points are image pixel coordinates: (0, 0) is the top left\n"
    "corner of the top left pixel, whose centre is (0.5, 0.5); they are kept in single\n"
    "precision, as a DICOM SR stores them. Each option may be repeated; the measurements are\n"
    "listed tool by tool in the order of the options below. With --save-sr, a DICOMweb\n"
    "instance's measurements are stored as a Comprehensive SR (TID 1500) in a new series of\n"
    "its study; nothing is ever replaced.");
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_add_group (context, lb_cli_store_option_group ());
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return lb_cli_fail ("measure", error);
  if (argc != 2)
    {
      g_printerr ("Usage: lightbox-cli measure [--length X0,Y0,X1,Y1 …] [--save-sr] URL|FILE\n");
      return 2;
    }
  if (opt_frame < 0)
    {
      g_printerr ("lightbox-cli measure: --frame counts from 1\n");
      return 2;
    }
  for (guint tool = 0; tool < LB_MEASUREMENT_N_TOOLS; tool++)
    for (guint i = 0; opt_tools[tool] && opt_tools[tool][i]; i++)
      {
        g_autoptr(LbMeasurement) m = parse_measurement (tool, opt_tools[tool][i], &error);

        if (m == NULL)
          {
            g_printerr ("lightbox-cli measure: %s\n", error->message);
            return 2;
          }
        /* what the SR keeps: the values printed are those a reader computes from it */
        g_ptr_array_add (measurements, lb_measurement_sr_round (m));
      }
  if (measurements->len == 0)
    {
      g_printerr ("lightbox-cli measure: nothing to measure: give --length, --ellipse, …\n");
      return 2;
    }
  if (!lb_cli_measure_target_load (argv[1], (guint) opt_frame, &t, &error))
    return lb_cli_fail ("measure", error);
  if (opt_json)
    {
      g_autoptr(JsonNode) node = lb_cli_measure_json (&t, measurements, &error);

      if (node == NULL)
        return lb_cli_fail ("measure", error);
      lb_cli_print_json (node);
    }
  else
    {
      g_autofree char *csv = lb_cli_measure_csv (&t, t.ref.name, measurements, TRUE, &error);

      if (csv == NULL)
        return lb_cli_fail ("measure", error);
      fputs (csv, stdout);
    }
  fflush (stdout);
  if ((opt_save_sr || opt_sr_output != NULL) && !save_report (&t, measurements, &error))
    return lb_cli_fail ("measure", error);
  return 0;
}
