/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Filters in Python (lb-python-filter.c, lightbox-python-host.py): the shipped example
 * against numpy computed independently (tests/engine/python/gradient-reference.py), an
 * exception's traceback, a crash and a hang contained, a missing numpy skipped with the
 * reason, reload on change, and check-plugin on good and broken modules. */

#include <sys/stat.h>
#include <sys/wait.h>

#include <glib/gstdio.h>

#include "lb-error.h"
#include "lb-filter-registry.h"
#include "lb-pipeline.h"
#include "lb-python-filter.h"
#include "lb-test-files.h"
#include "lb-test-process.h"

static char *cli;

/* Skips the test when Debian's python3 has no numpy (build-aux/install-deps.sh installs it). */
static gboolean
have_numpy (void)
{
  const char *argv[] = { _lb_python_interpreter (), "-c", "import numpy", NULL };
  int status = 1;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL,
                     NULL, &status, NULL) || !g_spawn_check_wait_status (status, NULL))
    {
      g_test_skip ("python3 with numpy is not installed");
      return FALSE;
    }
  return TRUE;
}

/* A fresh plugin directory (0755) holding @name with @text (0644). */
static char *
plugin_dir_with (const char *name,
                 const char *text)
{
  char *dir = lb_test_make_tmpdir ("python-filter");
  g_autofree char *path = g_build_filename (dir, name, NULL);

  g_assert_cmpint (g_chmod (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  g_assert_cmpint (g_chmod (path, 0644), ==, 0);
  return dir;
}

static LbFilterRegistry *
registry_for (const char *dir)
{
  LbFilterRegistry *reg = lb_filter_registry_new ();

  lb_filter_registry_add_plugin_dir (reg, dir);
  lb_filter_registry_rescan (reg);
  return reg;
}

/* Pseudo-random samples over the full range (a fixed seed). */
static LbImage *
random_image (LbSampleFormat format,
              guint          width,
              guint          height,
              guint32        seed)
{
  gsize row = (gsize) width * lb_sample_format_get_pixel_size (format);
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  guint8 *data = g_malloc (row * height);

  for (gsize i = 0; i < row * height; i++)
    data[i] = (guint8) g_rand_int_range (rand, 0, 256);
  return lb_image_new_take (width, height, format, row, data, NULL);
}

static LbImage *
run_filter (LbFilter          *filter,
            const char        *params_text,
            LbImage           *input,
            const LbFilterRect *selection,
            GError           **error)
{
  g_autoptr(LbPipeline) pipe = lb_pipeline_new (NULL);
  g_autoptr(LbFilterParams) params = lb_filter_params_new (filter);

  g_assert_true (lb_filter_params_set_from_string (params, params_text, NULL));
  g_assert_true (lb_pipeline_append (pipe, filter, params, NULL));
  if (selection != NULL)
    lb_pipeline_set_selection (pipe, selection);
  return lb_pipeline_run (pipe, input, NULL, NULL, error);
}

static void
write_packed (LbImage    *image,
              const char *path)
{
  gsize row = lb_image_get_row_size (image);
  g_autoptr(GByteArray) bytes = g_byte_array_new ();

  for (guint y = 0; y < lb_image_get_height (image); y++)
    g_byte_array_append (bytes, lb_image_get_row (image, y), row);
  g_assert_true (g_file_set_contents (path, (const char *) bytes->data, bytes->len, NULL));
}

typedef struct {
  const char *name;
  LbSampleFormat format;
  const char *params;  /* as lightbox-cli takes them */
  double scale;
  const char *operator;
  gboolean select;
} Case;

static const Case cases[] = {
  { "gray16-sobel", LB_FORMAT_GRAY16, "scale=1,operator=sobel", 1.0, "sobel", FALSE },
  { "gray8-central", LB_FORMAT_GRAY8, "scale=3.5,operator=central", 3.5, "central", FALSE },
  { "rgba8-sobel-sel", LB_FORMAT_RGBA8, "scale=0.75", 0.75, "sobel", TRUE },
  { "rgb16-central", LB_FORMAT_RGB16, "operator=central,scale=2", 2.0, "central", FALSE },
};
static const LbFilterRect case_selection = { 9, 5, 31, 23 };

static void
test_example_matches_numpy (void)
{
  g_autofree char *src = g_build_filename (g_getenv ("LB_SOURCE_ROOT"), "plugins", "python",
                                           "gradient_magnitude.py", NULL);
  g_autofree char *text = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *work = lb_test_make_tmpdir ("python-ref");
  g_autoptr(LbFilterRegistry) reg = NULL;
  g_autoptr(LbFilter) filter = NULL;
  g_autoptr(GString) json = g_string_new ("[");
  g_autofree char *json_path = g_build_filename (work, "cases.json", NULL);
  g_autofree char *out = NULL;
  LbImage *outputs[G_N_ELEMENTS (cases)];

  if (!have_numpy ())
    return;
  g_assert_true (g_file_get_contents (src, &text, NULL, NULL));
  dir = plugin_dir_with ("gradient_magnitude.py", text);
  reg = registry_for (dir);
  g_assert_cmpuint (lb_filter_registry_get_problems (reg)->len, ==, 0);
  filter = lb_filter_registry_lookup (reg, "gradmag");
  g_assert_nonnull (filter);
  g_assert_cmpint (lb_filter_get_kind (filter), ==, LB_FILTER_KIND_PYTHON);
  g_assert_cmpstr (lb_filter_get_name (filter), ==, "Gradient Magnitude");
  g_assert_cmpuint (lb_filter_get_n_params (filter), ==, 2);
  g_assert_cmpfloat (lb_filter_find_param (filter, "scale", NULL)->ui_max, ==, 16.0);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const Case *c = &cases[i];
      g_autoptr(LbImage) input = random_image (c->format, 61, 47, 1000 + i);
      g_autoptr(GError) error = NULL;
      g_autofree char *in_path = g_strdup_printf ("%s/%s.in", work, c->name);
      LbFilterRect r = c->select ? case_selection : (LbFilterRect) { 0, 0, 61, 47 };

      outputs[i] = run_filter (filter, c->params, input, c->select ? &case_selection : NULL,
                               &error);
      g_assert_no_error (error);
      write_packed (input, in_path);
      g_string_append_printf (json, "%s{\"name\": \"%s\", \"width\": 61, \"height\": 47, "
                              "\"channels\": %u, \"bytes\": %u, \"alpha\": %s, "
                              "\"region\": [%d, %d, %d, %d], \"scale\": %g, "
                              "\"operator\": \"%s\"}", i ? ", " : "", c->name,
                              lb_sample_format_get_channels (c->format),
                              lb_sample_format_get_sample_size (c->format),
                              lb_sample_format_has_alpha (c->format) ? "true" : "false",
                              r.x, r.y, r.width, r.height, c->scale, c->operator);
    }
  g_string_append (json, "]");
  g_assert_true (g_file_set_contents (json_path, json->str, -1, NULL));
  out = lb_test_run_reference ("engine/python", "gradient-reference.py", work);
  g_assert_nonnull (out);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *ref_path = g_strdup_printf ("%s/%s.ref", work, cases[i].name);
      g_autofree char *ref = NULL;
      gsize len, row = lb_image_get_row_size (outputs[i]);
      guint differ = 0;

      g_assert_true (g_file_get_contents (ref_path, &ref, &len, NULL));
      g_assert_cmpuint (len, ==, row * 47);
      for (guint y = 0; y < 47; y++)
        differ += memcmp (lb_image_get_row (outputs[i], y), ref + y * row, row) != 0;
      if (differ > 0)
        g_error ("%s: %u rows differ from numpy's", cases[i].name, differ);
      g_object_unref (outputs[i]);
    }
  lb_test_remove_tree (dir);
  lb_test_remove_tree (work);
}

static const char misbehaving[] =
  "import os\n"
  "import numpy as np\n"
  "LIGHTBOX_FILTER = {'id': 'org.example.misbehave', 'name': 'Misbehave',\n"
  "    'category': 'Test', 'formats': ['gray8'],\n"
  "    'params': [{'name': 'how', 'type': 'enum',\n"
  "                'values': ['copy', 'raise', 'abort', 'hang']}]}\n"
  "def deep(n):\n"
  "    if n == 0:\n"
  "        raise ValueError('no good value here')\n"
  "    deep(n - 1)\n"
  "def process(src, dst, params, meta):\n"
  "    how = params['how']\n"
  "    if how == 'raise':\n"
  "        deep(2)\n"
  "    if how == 'abort':\n"
  "        os.abort()\n"
  "    while how == 'hang':\n"
  "        pass\n"
  "    dst[...] = 255 - src\n";

static LbFilter *
misbehaving_filter (char **dir,
                    LbFilterRegistry **reg)
{
  *dir = plugin_dir_with ("misbehave.py", misbehaving);
  *reg = registry_for (*dir);
  g_assert_cmpuint (lb_filter_registry_get_problems (*reg)->len, ==, 0);
  return lb_filter_registry_lookup (*reg, "org.example.misbehave");
}

/* After a failed pass the filter still works (a new Python process if the last one died). */
static void
assert_still_works (LbFilter *filter,
                    LbImage  *input)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LbImage) out = run_filter (filter, "how=copy", input, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (lb_image_get_row (out, 3)[7], ==, 255 - lb_image_get_row (input, 3)[7]);
}

/* Runs the misbehaving module with how=@how: the pass must fail with an LB_ERROR_PLUGIN
 * error whose message holds every one of @expect (NULL-terminated), and the filter must run
 * again afterwards. */
static void
assert_contained (const char        *how,
                  const char *const *expect)
{
  g_autofree char *dir = NULL;
  g_autofree char *step = g_strconcat ("how=", how, NULL);
  g_autoptr(LbFilterRegistry) reg = NULL;
  g_autoptr(LbFilter) filter = NULL;
  g_autoptr(LbImage) input = random_image (LB_FORMAT_GRAY8, 40, 30, 7);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbImage) out = NULL;

  if (!have_numpy ())
    return;
  filter = misbehaving_filter (&dir, &reg);
  out = run_filter (filter, step, input, NULL, &error);
  g_assert_null (out);
  g_assert_error (error, LB_ERROR, LB_ERROR_PLUGIN);
  g_test_message ("%s", error->message);
  for (guint i = 0; expect[i] != NULL; i++)
    if (strstr (error->message, expect[i]) == NULL)
      g_error ("“%s” is not in the message", expect[i]);
  assert_still_works (filter, input);
  lb_test_remove_tree (dir);
}

static void
test_exception_traceback (void)
{
  /* the module's frames, with their lines: process (line 14) → deep → deep → deep (9) */
  const char *const expect[] = { "raised ValueError: no good value here",
                                 "Traceback (most recent call last)",
                                 "misbehave.py\", line 14, in process",
                                 "misbehave.py\", line 9, in deep", NULL };

  assert_contained ("raise", expect);
}

static void
test_crash_contained (void)
{
  /* faulthandler's Python traceback: where the module was when it died */
  const char *const expect[] = { "crashed (signal 6", "misbehave.py\", line 16 in process",
                                 NULL };

  assert_contained ("abort", expect);
}

static void
test_hang_contained (void)
{
  const char *const expect[] = { "made no progress for 1 s and was stopped", NULL };

  g_setenv ("LIGHTBOX_FILTER_TIMEOUT", "1", TRUE);
  assert_contained ("hang", expect);
  g_unsetenv ("LIGHTBOX_FILTER_TIMEOUT");
}

/* A slow pass that reports its progress outlives the watchdog, and the fractions arrive. */
static void
progress_cb (double   fraction,
             gpointer data)
{
  g_array_append_val ((GArray *) data, fraction);
}

static void
test_progress_keeps_alive (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(LbFilterRegistry) reg = NULL;
  g_autoptr(LbFilter) filter = NULL;
  g_autoptr(LbPipeline) pipe = lb_pipeline_new (NULL);
  g_autoptr(LbImage) input = random_image (LB_FORMAT_GRAY8, 16, 8, 4);
  g_autoptr(LbImage) out = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) seen = g_array_new (FALSE, FALSE, sizeof (double));

  if (!have_numpy ())
    return;
  /* 5 × 0.4 s, 2 s in all, against a watchdog of 1 s */
  dir = plugin_dir_with ("slow.py",
                         "import time\n"
                         "import numpy as np\n"
                         "LIGHTBOX_FILTER = {'id': 'org.example.slow', 'name': 'Slow',\n"
                         "    'category': 'Test', 'formats': ['gray8']}\n"
                         "def process(src, dst, params, meta):\n"
                         "    for i in range(5):\n"
                         "        time.sleep(0.4)\n"
                         "        meta['progress']((i + 1) / 5)\n"
                         "    dst[...] = 7\n");
  reg = registry_for (dir);
  filter = lb_filter_registry_lookup (reg, "org.example.slow");
  g_assert_nonnull (filter);
  g_assert_true (lb_pipeline_append (pipe, filter, NULL, NULL));
  lb_pipeline_set_progress_func (pipe, progress_cb, g_array_ref (seen),
                                 (GDestroyNotify) g_array_unref);
  g_setenv ("LIGHTBOX_FILTER_TIMEOUT", "1", TRUE);
  out = lb_pipeline_run (pipe, input, NULL, NULL, &error);
  g_unsetenv ("LIGHTBOX_FILTER_TIMEOUT");
  g_assert_no_error (error);
  g_assert_cmpuint (lb_image_get_row (out, 0)[0], ==, 7);
  g_assert_cmpuint (seen->len, >=, 4);
  g_assert_cmpfloat (g_array_index (seen, double, 0), >=, 0.19);
  g_assert_cmpfloat (g_array_index (seen, double, 0), <=, 0.21);
  lb_test_remove_tree (dir);
}

/* A module that crashes or spins while it is imported for its descriptor is skipped with
 * the reason; nothing of it runs in this process. */
static void
test_import_contained (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *spin = NULL;
  g_autoptr(LbFilterRegistry) reg = NULL;
  GPtrArray *problems;

  if (!have_numpy ())
    return;
  dir = plugin_dir_with ("boom.py", "import os\nos.abort()\n");
  spin = g_build_filename (dir, "spin.py", NULL);
  g_assert_true (g_file_set_contents (spin, "while True:\n    pass\n", -1, NULL));
  g_assert_cmpint (g_chmod (spin, 0644), ==, 0);
  g_setenv ("LIGHTBOX_FILTER_TIMEOUT", "1", TRUE);
  reg = registry_for (dir);
  g_unsetenv ("LIGHTBOX_FILTER_TIMEOUT");
  problems = lb_filter_registry_get_problems (reg);
  g_assert_cmpuint (problems->len, ==, 2);
  g_test_message ("%s\n%s", (char *) problems->pdata[0], (char *) problems->pdata[1]);
  g_assert_nonnull (strstr (problems->pdata[0], "boom.py: Python crashed (signal 6"));
  g_assert_nonnull (strstr (problems->pdata[0], "boom.py\", line 2 in <module>"));
  g_assert_nonnull (strstr (problems->pdata[1], "spin.py: importing the module took longer "
                                                "than 1 s"));
  lb_test_remove_tree (dir);
}

/* A python3 that cannot import numpy (-S: no site-packages), as LIGHTBOX_PYTHON. */
static void
test_no_numpy_skipped (void)
{
  g_autofree char *dir = plugin_dir_with ("misbehave.py", misbehaving);
  g_autofree char *wrapper = g_build_filename (dir, "python-without-numpy", NULL);
  g_autoptr(LbFilterRegistry) reg = NULL;
  g_autofree char *problem = NULL;
  g_autofree char *out = NULL, *err = NULL;
  g_auto(GStrv) env = g_get_environ ();
  const char *argv[] = { cli, "filters", NULL };
  int status;

  if (!have_numpy ())
    return;
  g_assert_true (g_file_set_contents (wrapper, "#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n",
                                      -1, NULL));
  g_assert_cmpint (g_chmod (wrapper, 0755), ==, 0);
  g_setenv ("LIGHTBOX_PYTHON", wrapper, TRUE);
  reg = registry_for (dir);
  g_unsetenv ("LIGHTBOX_PYTHON");
  g_assert_null (lb_filter_registry_lookup (reg, "org.example.misbehave"));
  g_assert_cmpuint (lb_filter_registry_get_problems (reg)->len, ==, 1);
  problem = g_strdup (g_ptr_array_index (lb_filter_registry_get_problems (reg), 0));
  g_test_message ("%s", problem);
  g_assert_true (g_str_has_suffix (problem, "No module named 'numpy'"));
  g_assert_nonnull (strstr (problem, "misbehave.py: Python filters need numpy"));

  /* lightbox-cli filters: the same reason on stderr, and the other filters still listed */
  env = g_environ_setenv (env, "LIGHTBOX_PYTHON", wrapper, TRUE);
  env = g_environ_setenv (env, "LIGHTBOX_PLUGIN_PATH", dir, TRUE);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out,
                               &err, &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (err, "misbehave.py: Python filters need numpy"));
  g_assert_null (strstr (out, "org.example.misbehave"));
  lb_test_remove_tree (dir);
}

static const char versioned[] =
  "import numpy as np\n"
  "LIGHTBOX_FILTER = {'id': 'org.example.versioned', 'name': 'Version %d',\n"
  "    'category': 'Test', 'formats': ['gray8']}\n"
  "def process(src, dst, params, meta):\n"
  "    dst[...] = %d\n";

static gboolean
quit_later (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

static void
test_reload_on_change (void)
{
  g_autofree char *v1 = g_strdup_printf (versioned, 1, 11);
  g_autofree char *v2 = g_strdup_printf (versioned, 2, 22);
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autoptr(LbFilterRegistry) reg = NULL;
  g_autoptr(LbFilter) first = NULL;
  g_autoptr(LbImage) input = random_image (LB_FORMAT_GRAY8, 16, 8, 3);
  g_autoptr(LbImage) out1 = NULL, out2 = NULL;
  gboolean timed_out = FALSE;
  guint timer;

  if (!have_numpy ())
    return;
  dir = plugin_dir_with ("versioned.py", v1);
  path = g_build_filename (dir, "versioned.py", NULL);
  reg = registry_for (dir);
  lb_filter_registry_set_watching (reg, TRUE);
  first = lb_filter_registry_lookup (reg, "org.example.versioned");
  g_assert_cmpstr (lb_filter_get_name (first), ==, "Version 1");
  out1 = run_filter (first, "", input, NULL, NULL);
  g_assert_cmpuint (lb_image_get_row (out1, 0)[0], ==, 11);

  /* replaced as an editor saves: a new file renamed over the old one */
  {
    g_autofree char *tmp = g_build_filename (dir, ".versioned.py.new", NULL);
    g_assert_true (g_file_set_contents (tmp, v2, -1, NULL));
    g_assert_cmpint (g_chmod (tmp, 0644), ==, 0);
    g_assert_cmpint (g_rename (tmp, path), ==, 0);
  }
  timer = g_timeout_add_seconds (20, quit_later, &timed_out);
  for (;;)
    {
      g_autoptr(LbFilter) now = lb_filter_registry_lookup (reg, "org.example.versioned");

      if (now != NULL && g_str_equal (lb_filter_get_name (now), "Version 2"))
        {
          out2 = run_filter (now, "", input, NULL, NULL);
          break;
        }
      g_assert_false (timed_out);
      g_main_context_iteration (NULL, TRUE);
    }
  g_source_remove (timer);
  g_assert_cmpuint (lb_image_get_row (out2, 0)[0], ==, 22);
  /* the old filter object still runs the code it was loaded with */
  g_clear_object (&out1);
  out1 = run_filter (first, "", input, NULL, NULL);
  g_assert_cmpuint (lb_image_get_row (out1, 0)[0], ==, 11);
  lb_test_remove_tree (dir);
}

static int
check_plugin (const char *path,
              char      **out)
{
  const char *argv[] = { cli, "check-plugin", path, NULL };
  int status;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                               NULL, out, NULL, &status, NULL));
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

static void
test_check_plugin (void)
{
  g_autofree char *src = g_build_filename (g_getenv ("LB_SOURCE_ROOT"), "plugins", "python",
                                           "gradient_magnitude.py", NULL);
  g_autofree char *text = NULL;
  g_autofree char *good_dir = NULL, *bad_dir = NULL, *broken_dir = NULL;
  g_autofree char *good = NULL, *bad = NULL, *broken = NULL;
  g_autofree char *out = NULL;

  if (!have_numpy ())
    return;
  g_assert_true (g_file_get_contents (src, &text, NULL, NULL));
  good_dir = plugin_dir_with ("gradient_magnitude.py", text);
  good = g_build_filename (good_dir, "gradient_magnitude.py", NULL);
  g_assert_cmpint (check_plugin (good, &out), ==, 0);
  g_test_message ("%s", out);
  g_assert_nonnull (strstr (out, "PASS  formats: gray8, gray16, graya8, graya16, rgb8, rgba8, "
                                 "rgb16, rgba16"));
  g_assert_nonnull (strstr (out, "PASS  parameter limits: 2 parameters"));
  g_assert_nonnull (strstr (out, "All checks passed"));
  g_clear_pointer (&out, g_free);

  /* writes into its source: the pass fails with the reason */
  bad_dir = plugin_dir_with ("writes_src.py",
                             "import numpy as np\n"
                             "LIGHTBOX_FILTER = {'id': 'org.example.writes-src', 'name': 'W',\n"
                             "    'category': 'Test', 'formats': ['gray8', 'rgb8']}\n"
                             "def process(src, dst, params, meta):\n"
                             "    src[0, 0] = 1\n");
  bad = g_build_filename (bad_dir, "writes_src.py", NULL);
  g_assert_cmpint (check_plugin (bad, &out), ==, 1);
  g_test_message ("%s", out);
  g_assert_nonnull (strstr (out, "FAIL  formats: gray8 with default parameters failed: Python "
                                 "filter"));
  g_assert_nonnull (strstr (out, "ValueError: assignment destination is read-only"));
  g_assert_nonnull (strstr (out, "FAIL  source untouched"));
  g_assert_nonnull (strstr (out, "1 of 1 filters failed a check"));
  g_clear_pointer (&out, g_free);

  /* a descriptor out of range never gets as far as a pass */
  broken_dir = plugin_dir_with ("broken.py",
                                "LIGHTBOX_FILTER = {'id': 'org.example.broken', 'name': 'B',\n"
                                "    'category': 'Test', 'formats': ['gray8'],\n"
                                "    'params': [{'name': 'n', 'type': 'int', 'min': 5,\n"
                                "                'max': 1, 'default': 3}]}\n"
                                "def process(src, dst, params, meta):\n"
                                "    pass\n");
  broken = g_build_filename (broken_dir, "broken.py", NULL);
  g_assert_cmpint (check_plugin (broken, &out), ==, 1);
  g_test_message ("%s", out);
  g_assert_nonnull (strstr (out, "FAIL  load: filter org.example.broken: parameter “n”"));
  lb_test_remove_tree (good_dir);
  lb_test_remove_tree (bad_dir);
  lb_test_remove_tree (broken_dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  cli = lb_test_build_path ("LB_BUILD_ROOT", "src", "cli", "lightbox-cli", NULL);
  g_test_add_func ("/python-filter/example-matches-numpy", test_example_matches_numpy);
  g_test_add_func ("/python-filter/exception-traceback", test_exception_traceback);
  g_test_add_func ("/python-filter/crash-contained", test_crash_contained);
  g_test_add_func ("/python-filter/hang-contained", test_hang_contained);
  g_test_add_func ("/python-filter/progress-keeps-alive", test_progress_keeps_alive);
  g_test_add_func ("/python-filter/import-contained", test_import_contained);
  g_test_add_func ("/python-filter/no-numpy-skipped", test_no_numpy_skipped);
  g_test_add_func ("/python-filter/reload-on-change", test_reload_on_change);
  g_test_add_func ("/python-filter/check-plugin", test_check_plugin);
  return g_test_run ();
}
