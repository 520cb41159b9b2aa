/* SPDX-License-Identifier: GPL-3.0-or-later */

/*
 * Untrusted plugins run in lightbox-filter-host (lb-isolation.c): a plugin that crashes,
 * aborts, exits or hangs fails one pass with a clear error, this test process lives on, the
 * input image is untouched, the next pass works, and isolated results are byte-identical
 * to in-process ones. The misbehaving fixtures are tests/engine/misbehave/.
 */

#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

#include "lb-error.h"
#include "lb-isolation.h"
#include "lb-pipeline.h"
#include "lb-test-files.h"
#include "lb-test-image.h"
#include "lb-test-loop.h"

static LbFilterRegistry *registry;

static char *
misbehave_path (const char *name)
{
  g_autofree char *file = g_strdup_printf ("misbehave-%s.%s", name, G_MODULE_SUFFIX);

  return lb_test_build_path ("LB_MISBEHAVE_PLUGIN_DIR", file, NULL);
}

static GBytes *
copy_pixels (LbImage *image)
{
  GBytes *b = lb_image_get_bytes (image);

  return g_bytes_new (g_bytes_get_data (b, NULL), g_bytes_get_size (b));
}

/* Runs one step; returns the output or NULL with @error. */
static LbImage *
run_step (const char  *step,
          LbImage     *input,
          LbIsolation  isolation,
          guint        threads,
          guint        band_height,
          GCancellable *cancellable,
          GError     **error)
{
  g_autoptr(LbPipeline) pipe = lb_pipeline_new (registry);

  lb_pipeline_set_isolation (pipe, isolation);
  lb_pipeline_set_n_threads (pipe, threads);
  lb_pipeline_set_band_height (pipe, band_height);
  if (!lb_pipeline_append_step (pipe, step, error))
    return NULL;
  return lb_pipeline_run (pipe, input, NULL, cancellable, error);
}

static void
assert_good_pass_works (LbImage *input)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbImage) in_process = run_step ("threshold:level=40", input, LB_ISOLATION_NONE, 2, 0,
                                            NULL, &error);
  g_autoptr(LbImage) isolated = NULL;

  g_assert_no_error (error);
  isolated = run_step ("threshold:level=40", input, LB_ISOLATION_ALL, 2, 0, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (lb_image_equal_pixels (in_process, isolated));
}

/* The first line of @message (a crash's backtrace follows on the next lines). */
static char *
first_line (const char *message)
{
  return g_strndup (message, strcspn (message, "\n"));
}

/* Asserts that @message holds a backtrace whose frames match @frame_re (a regex). */
static void
assert_backtrace (const char *message,
                  const char *frame_re)
{
  const char *bt = strstr (message, "\nBacktrace of the helper process, innermost call first:\n");

  if (bt == NULL || !g_regex_match_simple (frame_re, bt, G_REGEX_MULTILINE, 0))
    g_error ("no backtrace frame matching “%s” in “%s”", frame_re, message);
}

/* A pass the helper's failure stopped: no output, an LB_ERROR_PLUGIN error whose first line
 * says @message, and @input's pixels still @before. */
static void
assert_failed_cleanly (LbImage      *out,
                       const GError *error,
                       const char   *message,
                       LbImage      *input,
                       GBytes       *before)
{
  g_autofree char *line = NULL;

  g_assert_null (out);
  g_assert_error (error, LB_ERROR, LB_ERROR_PLUGIN);
  line = first_line (error->message);
  g_assert_cmpstr (line, ==, message);
  g_assert_true (g_bytes_equal (before, lb_image_get_bytes (input)));
}

static void
test_trust (void)
{
  g_autoptr(LbFilter) threshold = lb_filter_registry_lookup (registry, "threshold");
  g_autoptr(LbFilter) crash = lb_filter_registry_lookup (registry, "crash");
  g_autoptr(LbFilter) chain = lb_filter_registry_lookup (registry, "soft-sharpen");

  g_assert_nonnull (threshold);
  g_assert_nonnull (crash);
  /* The build tree's plugins/ is shipped code; the fixtures' directory is not. */
  g_assert_true (lb_filter_is_trusted (threshold));
  g_assert_false (lb_filter_is_trusted (crash));
  g_assert_false (lb_filter_runs_isolated (threshold, LB_ISOLATION_UNTRUSTED));
  g_assert_true (lb_filter_runs_isolated (crash, LB_ISOLATION_UNTRUSTED));
  g_assert_true (lb_filter_runs_isolated (threshold, LB_ISOLATION_ALL));
  g_assert_false (lb_filter_runs_isolated (crash, LB_ISOLATION_NONE));
  /* The environment decides for LB_ISOLATION_DEFAULT. */
  g_assert_false (lb_filter_runs_isolated (threshold, LB_ISOLATION_DEFAULT));
  g_assert_true (lb_filter_runs_isolated (crash, LB_ISOLATION_DEFAULT));
  g_setenv ("LIGHTBOX_PLUGIN_ISOLATION", "all", TRUE);
  g_assert_true (lb_filter_runs_isolated (threshold, LB_ISOLATION_DEFAULT));
  g_setenv ("LIGHTBOX_PLUGIN_ISOLATION", "none", TRUE);
  g_assert_false (lb_filter_runs_isolated (crash, LB_ISOLATION_DEFAULT));
  g_unsetenv ("LIGHTBOX_PLUGIN_ISOLATION");
  /* Declarative filters are engine code and never leave the process. */
  if (chain != NULL)
    g_assert_false (lb_filter_runs_isolated (chain, LB_ISOLATION_ALL));
}

/* A plugin that dies in @step fails the pass with @expect, twice in a row (the second pass
 * needs a fresh helper), and the input stays as it was. With @frame_re, the message has a
 * backtrace with a frame matching it. */
static void
check_death (const char *step,
             const char *plugin,
             const char *id,
             const char *expect,
             const char *frame_re)
{
  g_autoptr(LbImage) input = lb_test_image_new (61, 47, LB_FORMAT_RGB8, 5);
  g_autoptr(GBytes) before = copy_pixels (input);
  g_autofree char *path = misbehave_path (plugin);
  g_autofree char *message = g_strdup_printf ("Filter “%s” in plugin %s %s; the image is "
                                              "unchanged", id, path, expect);

  for (int round = 0; round < 2; round++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(LbImage) out = run_step (step, input, LB_ISOLATION_DEFAULT, 2, 0, NULL, &error);

      assert_failed_cleanly (out, error, message, input, before);
      if (frame_re != NULL)
        assert_backtrace (error->message, frame_re);
      else
        g_assert_null (strchr (error->message, '\n'));
    }
  assert_good_pass_works (input);
}

static void
test_crash (void)
{
  /* raise(): no faulting address, and the backtrace runs from raise() through the plugin's
   * process() (a static function: named from the plugin's own symbol table) */
  check_death ("crash", "crash", "io.github.lightbox.test.crash",
               "crashed (SIGSEGV, Segmentation fault)",
               "^  #[0-9]+ +misbehave_process\\+0x[0-9a-f]+ \\(misbehave-crash\\.so\\)$");
}

static void
test_abort (void)
{
  check_death ("abort-prepare", "abort", "io.github.lightbox.test.abort-prepare",
               "crashed (SIGABRT, Aborted)",
               "^  #[0-9]+ +misbehave_prepare\\+0x[0-9a-f]+ \\(misbehave-abort\\.so\\)$");
}

static void
test_exit (void)
{
  check_death ("exit-prepare", "exit", "io.github.lightbox.test.exit-prepare",
               "ended its process (exit status 3)", NULL);
}

/* Isolated passes equal in-process ones for every thread count and band height: band
 * filters, a filter with finish() and the host's parallel loop (edge), a random filter with
 * finish() only (spread), 8 and 16 bits, a selection. Progress arrives and ends at 1. */
typedef struct {
  double last;
  guint calls;
} ProgressLog;

static void
progress_cb (double   fraction,
             gpointer data)
{
  ProgressLog *log = data;

  g_assert_cmpfloat (fraction, >=, 0);
  g_assert_cmpfloat (fraction, <=, 1);
  log->last = fraction;
  log->calls++;
}

static void
test_identical (void)
{
  const char *steps[] = { "threshold:level=40", "blur", "edge", "spread", "emboss" };
  const LbSampleFormat formats[] = { LB_FORMAT_RGB8, LB_FORMAT_GRAY16, LB_FORMAT_RGBA8 };
  const guint threads[] = { 1, 2, 3 };
  const guint bands[] = { 0, 7 };
  const LbFilterRect selection = { 5, 9, 40, 30 };

  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    {
      g_autoptr(LbImage) input = lb_test_image_new (73, 58, formats[f], 11 + f);

      for (guint s = 0; s < G_N_ELEMENTS (steps); s++)
        for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
          for (guint b = 0; b < G_N_ELEMENTS (bands); b++)
            for (guint sel = 0; sel < 2; sel++)
              {
                g_autoptr(GError) error = NULL;
                g_autoptr(LbImage) ref = NULL;
                g_autoptr(LbImage) iso = NULL;
                g_autoptr(GPtrArray) timings = NULL;
                ProgressLog log = { -1, 0 };
                LbIsolation modes[2] = { LB_ISOLATION_NONE, LB_ISOLATION_ALL };
                LbImage *outs[2] = { NULL, NULL };

                for (guint m = 0; m < 2; m++)
                  {
                    g_autoptr(LbPipeline) pipe = lb_pipeline_new (registry);

                    lb_pipeline_set_isolation (pipe, modes[m]);
                    lb_pipeline_set_n_threads (pipe, threads[t]);
                    lb_pipeline_set_band_height (pipe, bands[b]);
                    lb_pipeline_set_seed (pipe, 42);
                    if (sel)
                      lb_pipeline_set_selection (pipe, &selection);
                    if (m == 1)
                      lb_pipeline_set_progress_func (pipe, progress_cb, &log, NULL);
                    g_assert_true (lb_pipeline_append_step (pipe, steps[s], &error));
                    g_assert_no_error (error);
                    outs[m] = lb_pipeline_run (pipe, input, m == 1 ? &timings : NULL, NULL,
                                               &error);
                    g_assert_no_error (error);
                  }
                ref = outs[0];
                iso = outs[1];
                if (!lb_image_equal_pixels (ref, iso))
                  g_error ("%s on %s, %u threads, band %u, selection %u: isolated output "
                           "differs", steps[s], lb_sample_format_to_string (formats[f]),
                           threads[t], bands[b], sel);
                g_assert_cmpuint (timings->len, ==, 1);
                /* spread has finish() and no process(): no bands (ABI 1.1) */
                if (g_str_equal (steps[s], "spread"))
                  g_assert_cmpuint (((LbPassTiming *) g_ptr_array_index (timings, 0))->bands,
                                    ==, 0);
                else
                  g_assert_cmpuint (((LbPassTiming *) g_ptr_array_index (timings, 0))->bands,
                                    >, 0);
                g_assert_cmpuint (log.calls, >, 0);
                g_assert_cmpfloat (log.last, ==, 1.0);
              }
    }
}

/* A filter's own error crosses the process boundary unchanged (domain, code, message). */
static void
test_filter_error (void)
{
  g_autoptr(LbImage) input = lb_test_image_new (32, 32, LB_FORMAT_GRAY8, 3);
  const char *steps[] = { "io.github.lightbox.test.mark:fail-row=5",
                          "io.github.lightbox.test.mark:fail-row=-2" };

  for (guint s = 0; s < G_N_ELEMENTS (steps); s++)
    {
      g_autoptr(GError) e1 = NULL;
      g_autoptr(GError) e2 = NULL;
      g_autoptr(LbImage) o1 = run_step (steps[s], input, LB_ISOLATION_NONE, 2, 0, NULL, &e1);
      g_autoptr(LbImage) o2 = run_step (steps[s], input, LB_ISOLATION_ALL, 2, 0, NULL, &e2);

      g_assert_null (o1);
      g_assert_null (o2);
      g_assert_nonnull (e1);
      g_assert_error (e2, e1->domain, e1->code);
      g_assert_cmpstr (e2->message, ==, e1->message);
    }
  assert_good_pass_works (input);
}

typedef struct {
  GCancellable *cancellable;
  GError *error;
  LbImage *output;
  gboolean done;
} AsyncRun;

static void
run_done (GObject      *source,
          GAsyncResult *result,
          gpointer      data)
{
  AsyncRun *r = data;

  r->output = lb_pipeline_run_finish (LB_PIPELINE (source), result, NULL, &r->error);
  r->done = TRUE;
}

/* Cancel works on a plugin that never reads the cancel flag: the helper is killed. The
 * watchdog is off, so nothing but the cancellation can end this pass. */
static void
test_cancel_hang (void)
{
  g_autoptr(LbImage) input = lb_test_image_new (40, 40, LB_FORMAT_RGB8, 9);
  g_autoptr(GBytes) before = copy_pixels (input);
  g_autoptr(LbPipeline) pipe = lb_pipeline_new (registry);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  AsyncRun r = { cancellable, NULL, NULL, FALSE };

  g_setenv ("LIGHTBOX_FILTER_TIMEOUT", "0", TRUE);
  g_assert_true (lb_pipeline_append_step (pipe, "hang", &error));
  g_assert_no_error (error);
  lb_pipeline_run_async (pipe, input, cancellable, run_done, &r);
  g_timeout_add (300, lb_test_cancel_once, cancellable);
  lb_test_wait_flag (&r.done);
  g_unsetenv ("LIGHTBOX_FILTER_TIMEOUT");
  g_assert_null (r.output);
  g_assert_error (r.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&r.error);
  g_assert_true (g_bytes_equal (before, lb_image_get_bytes (input)));
  assert_good_pass_works (input);
}

/* The watchdog stops a helper that completes no band within LIGHTBOX_FILTER_TIMEOUT. */
static void
test_watchdog (void)
{
  g_autoptr(LbImage) input = lb_test_image_new (40, 40, LB_FORMAT_RGB8, 9);
  g_autoptr(GBytes) before = copy_pixels (input);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbImage) out = NULL;
  g_autofree char *path = misbehave_path ("hang");
  g_autofree char *message = g_strdup_printf (
      "Filter “io.github.lightbox.test.hang” in plugin %s made no progress for 0.5 s and was "
      "stopped (LIGHTBOX_FILTER_TIMEOUT sets the limit); the image is unchanged", path);

  g_setenv ("LIGHTBOX_FILTER_TIMEOUT", "0.5", TRUE);
  out = run_step ("hang", input, LB_ISOLATION_DEFAULT, 2, 0, NULL, &error);
  g_unsetenv ("LIGHTBOX_FILTER_TIMEOUT");
  assert_failed_cleanly (out, error, message, input, before);
  assert_good_pass_works (input);
}

/* Runs the mark filter (50 ms per row, 60 rows: 3 s in all) on one thread in @band_height
 * row bands, in process and then isolated under a 2 s watchdog; the isolated pass must
 * complete and equal the in-process one. */
static void
assert_slow_pass_outlives_watchdog (int         band_height,
                                    const char *step)
{
  g_autoptr(LbImage) input = lb_test_image_new (16, 60, LB_FORMAT_GRAY8, 4);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbImage) ref = NULL;
  g_autoptr(LbImage) out = NULL;

  ref = run_step (step, input, LB_ISOLATION_NONE, 1, band_height, NULL, &error);
  g_assert_no_error (error);
  g_setenv ("LIGHTBOX_FILTER_TIMEOUT", "2", TRUE);
  out = run_step (step, input, LB_ISOLATION_ALL, 1, band_height, NULL, &error);
  g_unsetenv ("LIGHTBOX_FILTER_TIMEOUT");
  g_assert_no_error (error);
  g_assert_true (lb_image_equal_pixels (ref, out));
}

/* Progress resets the watchdog: a pass that takes longer than the timeout in total, but
 * finishes a band every 50 ms (60 one-row bands), completes. */
static void
test_watchdog_progress (void)
{
  assert_slow_pass_outlives_watchdog (1, "io.github.lightbox.test.mark:delay-us=50000,value=99");
}

/* Rows reported within a band reset the watchdog too (ABI 1.2): ONE band of 60 rows
 * completes because the mark filter reports each row through lb_filter_band_rows_done().
 * Before ABI 1.2 only a finished band counted, and this pass was stopped as hung. */
static void
test_watchdog_rows (void)
{
  assert_slow_pass_outlives_watchdog (60, "io.github.lightbox.test.mark:delay-us=50000,value=98");
}

static char *
load_fixture_path (const char *name)
{
  g_autofree char *file = g_strdup_printf ("misbehave-%s.%s", name, G_MODULE_SUFFIX);

  return lb_test_build_path ("LB_MISBEHAVE_LOAD_PLUGIN_DIR", file, NULL);
}

/* Plugins that crash, exit or hang while being loaded (their constructor or query function)
 * are refused by the probe in lightbox-filter-host, each with a problem saying how, and this
 * process lives on. */
static void
test_load_misbehaving (void)
{
  g_autoptr(LbFilterRegistry) reg = lb_filter_registry_new ();
  g_autofree char *crash = load_fixture_path ("crash-query");
  g_autofree char *exit4 = load_fixture_path ("exit-ctor");
  g_autofree char *hang = load_fixture_path ("hang-query");
  char *expect[3] = {
    g_strdup_printf ("%s: crashed while loading in a helper process (SIGSEGV, Segmentation "
                     "fault), so it was not loaded into Lightbox", crash),
    g_strdup_printf ("%s: ended its process while loading in a helper process (exit status 4), "
                     "so it was not loaded into Lightbox", exit4),
    g_strdup_printf ("%s: did not finish loading within 1 s in a helper process, so it was "
                     "not loaded into Lightbox", hang),
  };
  g_autoptr(LbImage) small = lb_test_image_new (8, 8, LB_FORMAT_GRAY8, 1);
  GPtrArray *problems;
  gint64 t0;

  g_unsetenv ("LIGHTBOX_PLUGIN_ISOLATION");
  g_setenv ("LIGHTBOX_FILTER_TIMEOUT", "1", TRUE);
  lb_filter_registry_add_plugin_dir (reg, g_getenv ("LB_MISBEHAVE_LOAD_PLUGIN_DIR"));
  t0 = g_get_monotonic_time ();
  lb_filter_registry_rescan (reg);
  g_unsetenv ("LIGHTBOX_FILTER_TIMEOUT");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (reg)), ==, 0);
  problems = lb_filter_registry_get_problems (reg);
  g_assert_cmpuint (problems->len, ==, 3);
  for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
    {
      const char *found = NULL;

      for (guint k = 0; k < problems->len; k++)
        {
          g_autofree char *line = first_line (problems->pdata[k]);

          if (g_str_equal (line, expect[i]))
            found = problems->pdata[k];
        }
      if (found == NULL)
        g_error ("no problem reads “%s”", expect[i]);
      /* the crash names the query function it happened in (exported: dladdr() knows it too) */
      if (i == 0)
        assert_backtrace (found, "^  #[0-9]+ +lb_filter_plugin_query\\+0x[0-9a-f]+ "
                                 "\\(misbehave-crash-query\\.so\\)$");
      else
        g_assert_null (strchr (found, '\n'));
      g_free (expect[i]);
    }
  /* the hanging one was stopped, not waited for (a generous bound: this is no timing test,
   * only a check that the probe did not wait for ever) */
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 60 * G_USEC_PER_SEC);

  /* A rescan keeps the verdicts of unchanged files: no second probe, the same problems. */
  lb_filter_registry_rescan (reg);
  g_assert_cmpuint (lb_filter_registry_get_problems (reg)->len, ==, 3);
  assert_good_pass_works (small);
}

/* Without isolation nothing probes, and the same crashing plugin takes the process down
 * while being loaded: the probe above is what protects. (ASan's options for the fixtures'
 * deaths are set in main(), for every test.) */
static void
test_load_unprobed (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *copy = NULL;

  if (g_test_subprocess ())
    {
      g_autoptr(LbFilterRegistry) reg = lb_filter_registry_new ();

      g_setenv ("LIGHTBOX_PLUGIN_ISOLATION", "none", TRUE);
      lb_filter_registry_add_plugin_dir (reg, g_getenv ("LB_TEST_LOAD_DIR"));
      lb_filter_registry_rescan (reg);
      return;
    }
  /* a directory holding only the crashing fixture, made and removed here, since the child
   * does not live to clean up */
  dir = lb_test_make_tmpdir ("test-load");
  copy = g_build_filename (dir, "misbehave-crash-query." G_MODULE_SUFFIX, NULL);
  {
    g_autofree char *crash = load_fixture_path ("crash-query");
    g_autoptr(GFile) from = g_file_new_for_path (crash);
    g_autoptr(GFile) to = g_file_new_for_path (copy);

    g_assert_true (g_file_copy (from, to, G_FILE_COPY_NONE, NULL, NULL, NULL, NULL));
  }
  g_setenv ("LB_TEST_LOAD_DIR", dir, TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_unsetenv ("LB_TEST_LOAD_DIR");
  g_unlink (copy);
  g_rmdir (dir);
  g_test_trap_assert_failed ();
}

/* Runs `lightbox-cli filter` with the misbehaving fixture @plugin's filter @step, which
 * must fail: a non-zero exit and no output file. Returns its stderr, which must hold the
 * message that the filter @id in @plugin crashed (@what). */
static char *
cli_filter_crashes (const char *plugin,
                    const char *step,
                    const char *id,
                    const char *what)
{
  g_autofree char *cli = lb_test_build_path ("LB_BUILD_ROOT", "src", "cli", "lightbox-cli",
                                             NULL);
  g_autofree char *input = lb_test_build_path ("LB_TEST_DATA", "pngsuite", "basn2c08.png",
                                               NULL);
  g_autofree char *dir = lb_test_make_tmpdir ("test-isolation");
  g_autofree char *output = g_build_filename (dir, "out.png", NULL);
  g_autofree char *path = misbehave_path (plugin);
  g_autofree char *plugin_path = g_strdup_printf ("%s:%s", g_getenv ("LIGHTBOX_PLUGIN_PATH"),
                                                  g_getenv ("LB_MISBEHAVE_PLUGIN_DIR"));
  g_autofree char *expect = g_strdup_printf ("Filter “%s” in plugin %s crashed (%s); the "
                                             "image is unchanged", id, path, what);
  g_auto(GStrv) env = g_environ_setenv (g_get_environ (), "LIGHTBOX_PLUGIN_PATH", plugin_path,
                                        TRUE);
  const char *argv[] = { cli, "filter", input, output, step, NULL };
  g_autofree char *out = NULL;
  char *err = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status,
                &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), !=, 0);
  if (strstr (err, expect) == NULL)
    g_error ("“%s” does not say “%s”", err, expect);
  g_assert_false (g_file_test (output, G_FILE_TEST_EXISTS));
  g_rmdir (dir);
  return err;
}

/* lightbox-cli filter with a crashing plugin: a non-zero exit with the message, no output. */
static void
test_cli_crash (void)
{
  g_free (cli_filter_crashes ("crash", "crash", "io.github.lightbox.test.crash",
                              "SIGSEGV, Segmentation fault"));
}

/* A plugin that writes to an unmapped address, run isolated by lightbox-cli: the message
 * names the signal, the address, and the plugin's static function that wrote, as frame 0,
 * below the plugin's process() and the helper's own functions. */
static void
test_cli_crash_report (void)
{
  g_autofree char *err = cli_filter_crashes ("crash-write", "crash-write",
                                             "io.github.lightbox.test.crash-write",
                                             "SIGSEGV, Segmentation fault, at address 0x18: "
                                             "no memory mapped there");

  /* frame 0 is the faulting write (IPA may rename a static function: scribble.isra.0) */
  assert_backtrace (err, "^  #0 +misbehave_scribble(\\.[a-z]+\\.[0-9]+)?\\+0x[0-9a-f]+ "
                         "\\(misbehave-crash-write\\.so\\)$");
  assert_backtrace (err, "^  #[1-9][0-9]* +misbehave_process\\+0x[0-9a-f]+ "
                         "\\(misbehave-crash-write\\.so\\)$");
  assert_backtrace (err, "^  #[1-9][0-9]* +[A-Za-z0-9_.]+\\+0x[0-9a-f]+ "
                         "\\(lightbox-filter-host\\)$");
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  g_unsetenv ("LIGHTBOX_PLUGIN_ISOLATION");
  g_unsetenv ("LIGHTBOX_FILTER_TIMEOUT");
  /* Under `meson test --setup asan` the helper and the fixtures are instrumented too, and
   * ASan's own SIGSEGV handler would turn the fixture's crash into an abort(): let the
   * signal through, as in a normal build, so the documented message is what we check; and
   * LeakSanitizer, run by the exit (3) fixture's atexit, would replace its exit status. */
  if (g_getenv ("ASAN_OPTIONS") != NULL)
    {
      g_autofree char *opts = g_strconcat (g_getenv ("ASAN_OPTIONS"),
                                           ":handle_segv=0:detect_leaks=0", NULL);
      g_setenv ("ASAN_OPTIONS", opts, TRUE);
    }
  registry = lb_filter_registry_new ();
  lb_filter_registry_add_plugin_dir (registry, g_getenv ("LIGHTBOX_PLUGIN_PATH"));
  lb_filter_registry_add_plugin_dir (registry, g_getenv ("LB_MISBEHAVE_PLUGIN_DIR"));
  lb_filter_registry_add_plugin_dir (registry, g_getenv ("LB_TEST_PLUGIN_DIR"));
  lb_filter_registry_add_filter_dir (registry, g_getenv ("LIGHTBOX_FILTER_PATH"));
  lb_filter_registry_rescan (registry);

  g_test_add_func ("/isolation/trust", test_trust);
  g_test_add_func ("/isolation/crash", test_crash);
  g_test_add_func ("/isolation/abort", test_abort);
  g_test_add_func ("/isolation/exit", test_exit);
  g_test_add_func ("/isolation/identical", test_identical);
  g_test_add_func ("/isolation/filter-error", test_filter_error);
  g_test_add_func ("/isolation/cancel-hang", test_cancel_hang);
  g_test_add_func ("/isolation/watchdog", test_watchdog);
  g_test_add_func ("/isolation/watchdog-progress", test_watchdog_progress);
  g_test_add_func ("/isolation/watchdog-rows", test_watchdog_rows);
  g_test_add_func ("/isolation/cli-crash", test_cli_crash);
  g_test_add_func ("/isolation/cli-crash-report", test_cli_crash_report);
  g_test_add_func ("/isolation/load-misbehaving", test_load_misbehaving);
  g_test_add_func ("/isolation/load-unprobed", test_load_unprobed);
  ret = g_test_run ();
  g_clear_object (&registry);
  return ret;
}
