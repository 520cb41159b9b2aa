/* SPDX-License-Identifier: GPL-3.0-or-later */
/* End to end: the built lightbox-cli runs the xv set through the plugins on xv's golden
 * inputs and must reproduce xv's outputs; plus `filters`, --time and error handling. */

#include <glib/gstdio.h>
#include <string.h>

#include "lb-image-loader.h"
#include "lb-test-files.h"

static char *cli;
static char *outdir;

typedef struct {
  const char *golden;   /* file in tests/data/golden, "SIZE" replaced by the size */
  const char *select;   /* NULL or X,Y,W,H; "SEL" = the MANIFEST's selection for the size */
  const char *seed;
  const char *step;
  int tolerance;        /* largest allowed |difference| per sample */
} Case;

static const Case cases[] = {
  { "blur_3", NULL, NULL, "blur", 0 },
  { "blur_7", NULL, NULL, "blur:size=7", 0 },
  { "blur_5_sel", "SEL", NULL, "blur:size=5", 0 },
  { "sharpen_75", NULL, NULL, "sharpen:exact=true", 0 },
  { "sharpen_30", NULL, NULL, "sharpen:strength=30,exact=true", 0 },
  { "sharpen_75", NULL, NULL, "sharpen:strength=75", 1 },
  { "sharpen_30", NULL, NULL, "sharpen:strength=30", 1 },
  { "edge", NULL, NULL, "edge", 0 },
  { "emboss", NULL, NULL, "emboss", 0 },
  { "oil", NULL, NULL, "oil", 0 },
  { "blend_full", NULL, NULL, "blend:exact=true", 0 },
  { "blend_sel", "SEL", NULL, "blend:exact=true", 0 },
  { "blend_full", NULL, NULL, "blend", 1 },
  { "blend_sel", "SEL", NULL, "blend", 1 },
  { "rotate_copy_30", NULL, NULL, "rotate:angle=30,exact=true", 0 },
  { "rotate_clear_m12.5", NULL, NULL, "rotate-clear:angle=-12.5,exact=true", 0 },
  { "rotate_copy_30", NULL, NULL, "rotate:angle=30", 1 },
  { "rotate_clear_m12.5", NULL, NULL, "rotate-clear:angle=-12.5", 1 },
  { "pixelize_4", NULL, NULL, "pixelize:xv-bug=true", 0 },
  { "pixelize_4_sel", "SEL", NULL, "pixelize:xv-bug=true", 0 },
  { "pixelize_5x8", NULL, NULL, "pixelize:width=5,height=8,xv-bug=true", 0 },
  { "pixelize_4_FIXED", NULL, NULL, "pixelize", 0 },
  { "pixelize_5x8_FIXED", NULL, NULL, "pixelize:width=5,height=8", 0 },
  { "spread_5_seed1", NULL, "1", "spread", 0 },
  { "spread_1x5_seed1", NULL, "1", "spread:width=1,height=5", 0 },
  { "despeckle_3", NULL, NULL, "despeckle", 0 },
  { "despeckle_5", NULL, NULL, "despeckle:size=5", 0 },
};

static const struct {
  const char *size;
  const char *sel;
} sizes[] = {
  { "64x48", "10,7,30,25" },
  { "61x37", "9,5,33,21" },
  { "512x512", NULL },  /* its MANIFEST selection differs; only whole-image cases run */
};

static char *
golden_path (const char *name)
{
  return lb_test_build_path ("LB_TEST_DATA", "golden", name, NULL);
}

/* Runs lightbox-cli (with @env, or this process's environment); returns the exit status,
 * stdout and stderr. */
static int
run_cli_env (const char *const *args,
             char             **env,
             char             **out,
             char             **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  int status = -1;

  g_ptr_array_add (argv, cli);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_spawn_sync (NULL, (char **) argv->pdata, env, G_SPAWN_DEFAULT, NULL, NULL, out, err,
                &status, &error);
  g_assert_no_error (error);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

static int
run_cli (const char *const *args,
         char              **out,
         char              **err)
{
  return run_cli_env (args, NULL, out, err);
}

/* Largest |a − b| over all samples, and how many samples differ. */
static int
compare (LbImage *a,
         LbImage *b,
         guint   *n_diff)
{
  int worst = 0;

  g_assert_cmpuint (lb_image_get_width (a), ==, lb_image_get_width (b));
  g_assert_cmpuint (lb_image_get_height (a), ==, lb_image_get_height (b));
  g_assert_cmpint (lb_image_get_format (a), ==, lb_image_get_format (b));
  *n_diff = 0;
  for (guint y = 0; y < lb_image_get_height (a); y++)
    for (gsize i = 0; i < lb_image_get_row_size (a); i++)
      {
        int d = ABS ((int) lb_image_get_row (a, y)[i] - (int) lb_image_get_row (b, y)[i]);
        if (d != 0)
          (*n_diff)++;
        worst = MAX (worst, d);
      }
  return worst;
}

static void
test_golden (void)
{
  guint n_run = 0;

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
      {
        const Case *k = &cases[c];
        g_autofree char *gname = g_strdup_printf ("%s_%s.png", sizes[s].size, k->golden);
        g_autofree char *gpath = golden_path (gname);
        g_autofree char *iname = g_strdup_printf ("in_%s.png", sizes[s].size);
        g_autofree char *ipath = golden_path (iname);
        g_autofree char *opath = g_build_filename (outdir, gname, NULL);
        g_autoptr(GPtrArray) args = g_ptr_array_new ();
        g_autofree char *out = NULL, *err = NULL;
        g_autoptr(LbImage) want = NULL, got = NULL;
        g_autoptr(GError) error = NULL;
        guint n_diff;
        int worst;

        if (!g_file_test (gpath, G_FILE_TEST_EXISTS))
          continue;  /* e.g. no _FIXED file where xv's bug does not trigger */
        if (k->select != NULL && sizes[s].sel == NULL)
          continue;
        g_ptr_array_add (args, (gpointer) "filter");
        g_ptr_array_add (args, (gpointer) "--force");
        g_ptr_array_add (args, (gpointer) "--threads=2");
        if (k->select != NULL)
          {
            g_ptr_array_add (args, (gpointer) "--select");
            g_ptr_array_add (args, (gpointer) sizes[s].sel);
          }
        if (k->seed != NULL)
          {
            g_ptr_array_add (args, (gpointer) "--seed");
            g_ptr_array_add (args, (gpointer) k->seed);
          }
        g_ptr_array_add (args, ipath);
        g_ptr_array_add (args, opath);
        g_ptr_array_add (args, (gpointer) k->step);
        g_ptr_array_add (args, NULL);
        if (run_cli ((const char *const *) args->pdata, &out, &err) != 0)
          g_error ("%s %s: lightbox-cli failed: %s", gname, k->step, err);

        want = lb_image_load_file (gpath, NULL, &error);
        g_assert_no_error (error);
        got = lb_image_load_file (opath, NULL, &error);
        g_assert_no_error (error);
        worst = compare (want, got, &n_diff);
        g_test_message ("%-32s %-40s %u samples differ (max %d)", gname, k->step, n_diff, worst);
        if (worst > k->tolerance)
          g_error ("%s with %s: %u samples differ, by up to %d (allowed %d)", gname, k->step,
                   n_diff, worst, k->tolerance);
        n_run++;
      }
  g_assert_cmpuint (n_run, >=, 60);
}

static void
test_filters_listing (void)
{
  const char *args[] = { "filters", NULL };
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (run_cli (args, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "blur  io.github.lightbox.xv.blur"));
  g_assert_nonnull (strstr (out, "    size         int    1..1001, default 3, odd px"));
  g_assert_nonnull (strstr (out, "    strength     int    0..99, default 75 %"));
  g_assert_nonnull (strstr (out, "lb-xv.so (version 1.0)"));
  g_assert_nonnull (strstr (out, "origin: declarative kernel "));
  g_assert_nonnull (strstr (out, "chain: binomial-blur → threshold:level=40"));
  for (const char *const *id = (const char *const[]) { "blur", "sharpen", "edge", "emboss",
                                                        "oil", "blend", "rotate",
                                                        "rotate-clear", "pixelize", "spread",
                                                        "despeckle", "unsharp", "gaussian",
                                                        "median", NULL };
       *id != NULL; id++)
    {
      g_autofree char *line = g_strdup_printf ("\n%s  io.github.lightbox.", *id);
      g_autofree char *all = g_strconcat ("\n", out, NULL);
      if (strstr (all, line) == NULL)
        g_error ("filters does not list %s", *id);
    }
}

/* A plugin in a world-writable directory is refused, with the reason, and the rest loads. */
static void
test_filters_skips_unsafe (void)
{
  g_autofree char *dir = g_build_filename (outdir, "unsafe", NULL);
  g_autofree char *src = g_build_filename (g_getenv ("LIGHTBOX_PLUGIN_PATH"), "lb-xv.so", NULL);
  g_autofree char *path = NULL;
  g_auto(GStrv) env = g_get_environ ();
  const char *args[] = { "filters", "--ids", NULL };
  g_autofree char *out = NULL, *err = NULL, *expect = NULL;

  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  lb_test_install_file (src, dir, "lb-xv.so");
  g_assert_cmpint (g_chmod (dir, 0777), ==, 0);
  path = g_strconcat (dir, ":", g_getenv ("LIGHTBOX_PLUGIN_PATH"), NULL);
  env = g_environ_setenv (env, "LIGHTBOX_PLUGIN_PATH", path, TRUE);
  g_assert_cmpint (run_cli_env (args, env, &out, &err), ==, 0);
  expect = g_strdup_printf ("lightbox-cli filters: Skipping %s/lb-xv.so: %s is writable by "
                            "other users (mode 0777); refusing to load code from it", dir, dir);
  g_assert_nonnull (strstr (err, expect));
  /* The safe copy later in the path provides the filters. */
  g_assert_nonnull (strstr (out, "blur io.github.lightbox.xv.blur\n"));
  g_assert_cmpint (g_chmod (dir, 0700), ==, 0);
  lb_test_remove_tree (dir);
}

static void
test_time_and_chain (void)
{
  g_autofree char *in = golden_path ("in_64x48.png");
  g_autofree char *o = g_build_filename (outdir, "timed.png", NULL);
  const char *args[] = { "filter", "--force", "--time", "--threads", "1", in, o,
                         "blur:size=3", "poster", "gaussian:sigma=2", NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_auto(GStrv) lines = NULL;

  g_assert_cmpint (run_cli (args, &out, &err), ==, 0);
  lines = g_strsplit (g_strchomp (out), "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 4);  /* the chain is two passes */
  g_assert_true (g_str_has_prefix (lines[0], "io.github.lightbox.xv.blur (size=3): "));
  g_assert_nonnull (strstr (lines[0], " ms (64×48 rgb8, 1 thread, 4 bands)"));
  g_assert_true (g_str_has_prefix (lines[1], "io.github.lightbox.filters.binomial-blur: "));
  g_assert_true (g_str_has_prefix (lines[2], "io.github.lightbox.example.threshold (level=40,"));
  g_assert_true (g_str_has_prefix (lines[3], "io.github.lightbox.enhance.gaussian (sigma=2): "));
}

static void
test_errors (void)
{
  g_autofree char *in = golden_path ("in_64x48.png");
  g_autofree char *o = g_build_filename (outdir, "keep.png", NULL);
  g_autofree char *missing = g_build_filename (outdir, "no-such-input.png", NULL);
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *content = NULL;

  g_assert_true (g_file_set_contents (o, "precious", -1, NULL));
  {
    const char *args[] = { "filter", in, o, "blur", NULL };
    g_assert_cmpint (run_cli (args, &out, &err), ==, 1);
    g_assert_nonnull (strstr (err, "exists; use --force to overwrite it"));
    g_assert_true (g_file_get_contents (o, &content, NULL, NULL));
    g_assert_cmpstr (content, ==, "precious");
  }
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  {
    const char *args[] = { "filter", "--force", in, o, "blur:size=4", NULL };
    g_assert_cmpint (run_cli (args, &out, &err), ==, 2);
    g_assert_nonnull (strstr (err, "step 1 “blur:size=4”: io.github.lightbox.xv.blur: "
                                   "parameter “size” = 4 must be odd (range 1..1001)"));
  }
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  {
    const char *args[] = { "filter", "--force", in, o, "sharpen:strength=100", NULL };
    g_assert_cmpint (run_cli (args, &out, &err), ==, 2);
    g_assert_nonnull (strstr (err, "“strength” = 100 is out of range 0..99"));
  }
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  {
    const char *args[] = { "filter", "--force", in, o, "sparkle", NULL };
    g_assert_cmpint (run_cli (args, &out, &err), ==, 2);
    g_assert_nonnull (strstr (err, "no filter “sparkle”"));
  }
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  {
    const char *args[] = { "filter", "--force", "--select", "1,2,3", in, o, "blur", NULL };
    g_assert_cmpint (run_cli (args, &out, &err), ==, 2);
    g_assert_nonnull (strstr (err, "expected X,Y,W,H"));
  }
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  {
    const char *args[] = { "filter", "--force", missing, o, "blur", NULL };
    g_assert_cmpint (run_cli (args, &out, &err), ==, 1);
    g_assert_nonnull (strstr (err, "no-such-input.png"));
  }
  /* None of the failures touched the existing file. */
  g_clear_pointer (&content, g_free);
  g_assert_true (g_file_get_contents (o, &content, NULL, NULL));
  g_assert_cmpstr (content, ==, "precious");
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  cli = lb_test_build_path ("LB_BUILD_ROOT", "src", "cli", "lightbox-cli", NULL);
  outdir = lb_test_make_tmpdir ("test-cli");
  g_test_add_func ("/cli/golden", test_golden);
  g_test_add_func ("/cli/filters-listing", test_filters_listing);
  g_test_add_func ("/cli/filters-skips-unsafe", test_filters_skips_unsafe);
  g_test_add_func ("/cli/time-and-chain", test_time_and_chain);
  g_test_add_func ("/cli/errors", test_errors);
  ret = g_test_run ();
  lb_test_remove_tree (outdir);
  g_free (outdir);
  g_free (cli);
  return ret;
}
