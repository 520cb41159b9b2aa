/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-bench"

/* lightbox-bench dicom: decoding speed per transfer syntax, on one 512×512 CT frame and on a
 * CT series of one file per slice, against the command-line decoders of DCMTK and GDCM
 * launched once per file, in the same run. The files are made at run time by
 * dicom-make-series.py (pydicom, DCMTK, gdcmconv) in a temporary directory. */

#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "lb-bench.h"
#include "lb-bench-util.h"
#include "lb-dicom-codec.h"
#include "lb-dicom-frame.h"

typedef struct {
  LbDicomDataset *md;
  const char     *ts;
  GBytes         *frame;
} DecodeJob;

static double
run_decode (gpointer user_data)
{
  DecodeJob *j = user_data;
  g_autoptr(GError) error = NULL;
  double t0 = lb_measure_now_ms ();
  g_autoptr(LbImage) img = lb_dicom_decode_frame (j->md, j->ts, j->frame, "bench", NULL, &error);

  if (img == NULL)
    g_error ("%s: %s", j->ts, error->message);
  return lb_measure_now_ms () - t0;
}

static double
run_codec (gpointer user_data)
{
  DecodeJob *j = user_data;
  g_autoptr(GError) error = NULL;
  double t0 = lb_measure_now_ms ();
  g_autoptr(GBytes) out = lb_dicom_decompress_frame (j->md, j->ts, j->frame, NULL, &error);

  if (out == NULL)
    g_error ("%s: %s", j->ts, error->message);
  return lb_measure_now_ms () - t0;
}

static LbDicomDataset *
load_dataset (const char *dir, GError **error)
{
  g_autofree char *path = g_build_filename (dir, "ds.json", NULL);
  g_autofree char *text = NULL;
  gsize len;
  g_autoptr(GPtrArray) arr = NULL;

  if (!g_file_get_contents (path, &text, &len, error))
    return NULL;
  arr = lb_dicom_json_parse_array (text, len, error);
  return arr ? lb_dicom_dataset_ref (arr->pdata[0]) : NULL;
}

static GBytes *
load_file (const char *dir, guint k, const char *ext, GError **error)
{
  g_autofree char *name = g_strdup_printf ("s%03u.%s", k, ext);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  char *data;
  gsize len;

  if (!g_file_get_contents (path, &data, &len, error))
    return NULL;
  return g_bytes_new_take (data, len);
}

/* One command-line decode of file @k: TOOL [ARGS] IN OUT, as a user would run it. */
static gboolean
time_cli (const char *decoder, const char *dir, const char *tmp, guint k, double *ms,
          GError **error)
{
  g_auto(GStrv) argv = g_strsplit (decoder, " ", -1);
  g_autofree char *name = g_strdup_printf ("s%03u.dcm", k);
  g_autofree char *in = g_build_filename (dir, name, NULL);
  g_autofree char *out = g_build_filename (tmp, "decoded.dcm", NULL);
  guint n = g_strv_length (argv);
  gboolean ok;

  argv = g_renew (char *, argv, n + 3);
  argv[n] = g_strdup (in);
  argv[n + 1] = g_strdup (out);
  argv[n + 2] = NULL;
  ok = lb_bench_time_command ((const char *const *) argv, ms, error);
  g_unlink (out);
  return ok;
}

typedef struct {
  const char *uid;
  const char *dir;
  const char *decoder;
  guint       files;
  guint       bytes_per_frame;  /* decoded */
} Syntax;

static gboolean
bench_syntax (const Syntax *s, const char *tmp, guint series_rounds, LbMeasureTable *t_frame,
              LbMeasureTable *t_series, GError **error)
{
  LbMeasureOptions opts = LB_MEASURE_OPTIONS_DEFAULT;
  g_autoptr(LbDicomDataset) md = load_dataset (s->dir, error);
  g_autoptr(GPtrArray) frames = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autofree double *cli = g_new0 (double, s->files);
  g_autofree double *rounds = g_new0 (double, series_rounds);
  gboolean compressed = lb_dicom_codec_supports (s->uid);
  const char *name = lb_dicom_transfer_syntax_get_name (s->uid);
  double mb = s->bytes_per_frame / 1e6, cli_total = 0, codec_total = 0;
  DecodeJob job = { md, s->uid, NULL };
  LbMeasureStats dec, codec = { 0 }, cli_stats = { 0 }, series;

  if (md == NULL)
    return FALSE;
  /* one frame: the first slice, in memory */
  job.frame = load_file (s->dir, 0, "frame", error);
  if (job.frame == NULL)
    return FALSE;
  g_ptr_array_add (frames, job.frame);
  dec = lb_measure_run (run_decode, &job, &opts);
  if (compressed)
    codec = lb_measure_run (run_codec, &job, &opts);
  if (*s->decoder)
    {
      double one[7];

      for (guint r = 0; r < G_N_ELEMENTS (one); r++)
        if (!time_cli (s->decoder, s->dir, tmp, 0, &one[r], error))
          return FALSE;
      cli_stats = lb_measure_stats_of (one, G_N_ELEMENTS (one));
    }
  lb_measure_table_add_row_take (t_frame, g_strdup (name), g_strdup (s->uid),
    g_strdup_printf ("%.1f", g_bytes_get_size (job.frame) / 1024.0),
    lb_bench_fmt ((double) s->bytes_per_frame / g_bytes_get_size (job.frame)),
    lb_bench_fmt (dec.median), lb_bench_fmt (mb / (dec.median / 1e3)),
    compressed ? lb_bench_fmt (codec.median) : g_strdup (""),
    compressed ? lb_bench_fmt (mb / (codec.median / 1e3)) : g_strdup (""),
    *s->decoder ? lb_bench_fmt (cli_stats.median) : g_strdup (""),
    *s->decoder ? lb_bench_fmt (mb / (cli_stats.median / 1e3)) : g_strdup (""),
    g_strdup (s->decoder), NULL);

  /* the series: every file read from disk and decoded, as opening the series does; then the
   * decoder alone on frames already in memory; then the command-line decoder once per file */
  for (guint r = 0; r < series_rounds; r++)
    {
      double t0 = lb_measure_now_ms ();

      for (guint k = 0; k < s->files; k++)
        {
          g_autoptr(GBytes) f = load_file (s->dir, k, "frame", error);
          DecodeJob jk = { md, s->uid, f };

          if (f == NULL)
            return FALSE;
          run_decode (&jk);
        }
      rounds[r] = lb_measure_now_ms () - t0;
    }
  series = lb_measure_stats_of (rounds, series_rounds);
  for (guint k = 1; k < s->files; k++)
    {
      GBytes *f = load_file (s->dir, k, "frame", error);

      if (f == NULL)
        return FALSE;
      g_ptr_array_add (frames, f);
    }
  if (compressed)
    for (guint k = 0; k < s->files; k++)
      {
        DecodeJob jk = { md, s->uid, frames->pdata[k] };

        codec_total += run_codec (&jk);
      }
  if (*s->decoder)
    {
      for (guint k = 0; k < s->files; k++)
        {
          if (!time_cli (s->decoder, s->dir, tmp, k, &cli[k], error))
            return FALSE;
          cli_total += cli[k];
        }
      cli_stats = lb_measure_stats_of (cli, s->files);
    }
  lb_measure_table_add_row_take (t_series, g_strdup (name), g_strdup_printf ("%u", s->files),
    lb_bench_fmt (series.median / 1e3), lb_bench_fmt (mb * s->files / (series.median / 1e3)),
    compressed ? lb_bench_fmt (codec_total / 1e3) : g_strdup (""),
    compressed ? lb_bench_fmt (mb * s->files / (codec_total / 1e3)) : g_strdup (""),
    *s->decoder ? lb_bench_fmt (cli_total / 1e3) : g_strdup (""),
    *s->decoder ? lb_bench_fmt (cli_stats.median) : g_strdup (""),
    *s->decoder ? lb_bench_fmt (cli_total / series.median) : g_strdup (""), NULL);
  fprintf (stderr, "  %s: frame %.2f ms, series %.2f s\n", name, dec.median,
           series.median / 1e3);
  return TRUE;
}

int
lb_bench_dicom_main (int argc, char **argv)
{
  gboolean quick = FALSE, keep = FALSE;
  int n_files = 0;
  g_autofree char *out_dir = NULL;
  GOptionEntry entries[] = {
    { "quick", 'q', 0, G_OPTION_ARG_NONE, &quick, "A 30-file series and one series round", NULL },
    { "files", 'n', 0, G_OPTION_ARG_INT, &n_files, "Files in the series (default 300)", "N" },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out_dir, "Directory for CSV and JSON (default bench-results)", "DIR" },
    { "keep", 0, 0, G_OPTION_ARG_NONE, &keep, "Keep the generated files", NULL },
    { NULL },
  };
  static const char *const frame_cols[] = { "syntax", "uid", "compressed_kb", "ratio",
                                            "lightbox_ms", "lightbox_mb_per_s", "codec_ms",
                                            "codec_mb_per_s", "cli_ms", "cli_mb_per_s",
                                            "cli_decoder", NULL };
  static const char *const series_cols[] = { "syntax", "files", "lightbox_s",
                                             "lightbox_mb_per_s", "codec_s", "codec_mb_per_s",
                                             "cli_s", "cli_ms_per_file", "cli_over_lightbox",
                                             NULL };
  g_autoptr(GOptionContext) octx = g_option_context_new ("- DICOM decoding per transfer syntax");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GKeyFile) manifest = g_key_file_new ();
  g_autoptr(LbMeasureTable) t_frame = NULL, t_series = NULL;
  g_autofree char *tmp = NULL, *files_arg = NULL, *manifest_path = NULL, *out = NULL;
  g_autofree char *err = NULL;
  g_auto(GStrv) groups = NULL;
  /* Debian's interpreter first: pydicom and numpy are its packages */
  g_autofree char *python = lb_bench_find_program ((const char *const[]) { "/usr/bin/python3",
                                                                           "python3", NULL });
  const char *script = LB_BENCH_SOURCE_DIR "/dicom-make-series.py";
  int status = 0, rc = 0;

  g_option_context_add_main_entries (octx, entries, NULL);
  if (!g_option_context_parse (octx, &argc, &argv, &error))
    {
      fprintf (stderr, "lightbox-bench dicom: %s\n", error->message);
      return 2;
    }
  if (n_files <= 0)
    n_files = quick ? 30 : 300;
  if (n_files > 1000)
    {
      fprintf (stderr, "lightbox-bench dicom: --files must be 1 … 1000\n");
      return 2;
    }
  if (out_dir == NULL)
    out_dir = g_strdup ("bench-results");
  if (python == NULL)
    {
      fprintf (stderr, "lightbox-bench dicom: python3 (with pydicom and numpy) is needed to "
               "make the files\n");
      return 1;
    }
  tmp = g_dir_make_tmp ("lb-bench-dicom-XXXXXX", &error);
  if (tmp == NULL)
    {
      fprintf (stderr, "lightbox-bench dicom: %s\n", error->message);
      return 1;
    }
  files_arg = g_strdup_printf ("%d", n_files);
  fprintf (stderr, "Making a %d-file 512×512 CT series in %s for each transfer syntax…\n",
           n_files, tmp);
  if (!g_spawn_sync (NULL, (char *[]) { python, (char *) script, tmp, files_arg, NULL }, NULL,
                     G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error)
      || !g_spawn_check_wait_status (status, &error))
    {
      fprintf (stderr, "lightbox-bench dicom: %s: %s\n%s", script, error->message,
               err ? err : "");
      rc = 1;
      goto done;
    }
  manifest_path = g_build_filename (tmp, "manifest.ini", NULL);
  if (!g_key_file_load_from_file (manifest, manifest_path, G_KEY_FILE_NONE, &error))
    {
      fprintf (stderr, "lightbox-bench dicom: %s\n", error->message);
      rc = 1;
      goto done;
    }
  t_frame = lb_measure_table_new ("One 512×512 CT frame (12 bits in 16; baseline JPEG 8-bit): "
                                "median ms to decode", frame_cols);
  {
    g_autofree char *title = g_strdup_printf ("A %d-file CT series: total seconds (Lightbox: "
                                              "median of rounds, reading each file's frame "
                                              "from disk)", n_files);
    t_series = lb_measure_table_new (title, series_cols);
  }
  g_ptr_array_add (notes, g_strdup ("lightbox: lb_dicom_decode_frame(), compressed bytes to an "
                                    "LbImage; codec: lb_dicom_decompress_frame() alone (the "
                                    "library's decoder and the copy into the frame layout)"));
  g_ptr_array_add (notes, g_strdup ("cli: the command-line decoder launched once per file "
                                    "(IN OUT, as a user would run it): process start, reading "
                                    "the file, decoding, writing an uncompressed file"));
  groups = g_key_file_get_groups (manifest, NULL);
  for (guint i = 0; groups[i]; i++)
    {
      g_autofree char *dir = g_key_file_get_string (manifest, groups[i], "dir", NULL);
      g_autofree char *decoder = g_key_file_get_string (manifest, groups[i], "decoder", NULL);
      int bits = g_key_file_get_integer (manifest, groups[i], "bits_stored", NULL);
      Syntax s = { groups[i], dir, decoder ? decoder : "", (guint) n_files,
                   512 * 512 * (bits == 8 ? 1 : 2) };

      if (g_str_has_prefix (groups[i], "skipped "))
        {
          g_autofree char *why = g_key_file_get_string (manifest, groups[i], "why", NULL);

          g_ptr_array_add (notes, g_strdup_printf ("%s: %s", groups[i], why));
          continue;
        }
      if (!bench_syntax (&s, tmp, quick ? 1 : 3, t_frame, t_series, &error))
        {
          fprintf (stderr, "lightbox-bench dicom: %s: %s\n", groups[i], error->message);
          rc = 1;
          goto done;
        }
    }
  lb_measure_table_print (t_frame, stdout);
  lb_measure_table_print (t_series, stdout);
  for (guint i = 0; i < notes->len; i++)
    printf ("note: %s\n", (char *) notes->pdata[i]);
  {
    const char *const keys[] = { "frame", "series", NULL };
    LbMeasureTable *tables[] = { t_frame, t_series, NULL };

    if (!lb_bench_write_results (out_dir, "dicom", keys, tables, notes, &error))
      {
        fprintf (stderr, "lightbox-bench dicom: %s\n", error->message);
        rc = 1;
      }
  }

done:
  if (keep)
    fprintf (stderr, "kept %s\n", tmp);
  else
    lb_bench_remove_tree (tmp);
  return rc;
}
