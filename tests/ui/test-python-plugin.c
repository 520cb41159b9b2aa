/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Filters in Python in the workstation: the shipped example appears in the Filters menu
 * under its category, opens the generated dialog, and Apply gives what the engine gives; a
 * module that raises shows its traceback in the dialog's preview; a .py skipped for want of
 * numpy is listed with the reason in Filters → Plugins.
 */
#include "config.h"

#include <glib/gstdio.h>

#include "lb-param-dialog.h"
#include "lb-pipeline.h"
#include "lb-plugin-manager.h"
#include "lb-python-filter.h"
#include "lb-test-files.h"
#include "lb-test-loop.h"
#include "lb-test-ui.h"
#include "lb-window-test.h"
#include "lb-window.h"

#define GRADMAG_ID "org.example.python.gradient-magnitude"
#define RAISES_ID "org.example.python.raises"

static LbApplication *app;
static char *plugin_dir;

static gboolean
have_numpy (void)
{
  const char *argv[] = { _lb_python_interpreter (), "-c", "import numpy", NULL };
  int status = 1;

  return g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                       NULL, NULL, &status, NULL) && g_spawn_check_wait_status (status, NULL);
}

static void
install (const char *name,
         const char *text)
{
  g_autofree char *path = g_build_filename (plugin_dir, name, NULL);

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  g_assert_cmpint (g_chmod (path, 0644), ==, 0);
}

/* The label of the submenu of @model holding the item whose target is @id, or NULL. */
static char *
submenu_holding (GMenuModel *model,
                 const char *id,
                 const char *submenu_label)
{
  for (int i = 0; i < g_menu_model_get_n_items (model); i++)
    {
      g_autofree char *target = NULL;
      g_autofree char *label = NULL;
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (model, i, G_MENU_LINK_SECTION);
      g_autoptr(GMenuModel) submenu = g_menu_model_get_item_link (model, i, G_MENU_LINK_SUBMENU);
      char *found = NULL;

      if (g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_TARGET, "s", &target)
          && g_str_equal (target, id))
        return g_strdup (submenu_label);
      g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_LABEL, "s", &label);
      if (section != NULL)
        found = submenu_holding (section, id, submenu_label);
      if (found == NULL && submenu != NULL)
        found = submenu_holding (submenu, id, label);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
menu_lists_gradmag (gpointer data)
{
  g_autofree char *category =
    submenu_holding (gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (data)), GRADMAG_ID, NULL);

  return category != NULL;
}

static gboolean
has_param_dialog (gpointer data)
{
  return lb_window_test_get_param_dialog (LB_WINDOW (data)) != NULL;
}

static gboolean
has_preview_error (gpointer data)
{
  return lb_param_dialog_get_preview_error (LB_PARAM_DIALOG (data)) != NULL;
}

static LbWindow *
window_with_ct (void)
{
  g_autofree char *ct = g_build_filename (g_getenv ("LB_SOURCE_ROOT"), "data", "samples", "CT",
                                          "ct-head-128-16bit.png", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (ct);
  LbWindow *win = lb_window_new (app);

  gtk_window_present (GTK_WINDOW (win));
  lb_window_open_image_file (win, file);
  g_assert_true (lb_test_wait (lb_test_ui_not_busy, win, 10000));
  g_assert_nonnull (lb_history_get_current (lb_window_test_get_history (win)));
  return win;
}

static void
test_menu_dialog_apply (void)
{
  LbWindow *win;
  GtkWidget *button;
  g_autofree char *category = NULL;
  LbParamDialog *dialog;
  LbHistory *history;
  g_autoptr(LbFilter) filter = NULL;
  g_autoptr(LbFilterParams) params = NULL;
  g_autoptr(LbPipeline) pipe = NULL;
  g_autoptr(LbImage) expected = NULL;
  g_autoptr(GError) error = NULL;
  LbImage *result;

  if (!have_numpy ())
    {
      g_test_skip ("python3 with numpy is not installed");
      return;
    }
  win = window_with_ct ();
  history = lb_window_test_get_history (win);
  button = lb_window_test_get_child (win, "filter_button");
  /* the window fills its menu once the registry has loaded */
  g_assert_true (lb_test_wait (menu_lists_gradmag, button, 20000));
  category = submenu_holding (gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (button)),
                              GRADMAG_ID, NULL);
  g_assert_cmpstr (category, ==, "Edges");

  gtk_widget_activate_action (GTK_WIDGET (win), "win.apply-filter", "s", GRADMAG_ID);
  g_assert_true (lb_test_wait (has_param_dialog, win, 5000));
  dialog = LB_PARAM_DIALOG (lb_window_test_get_param_dialog (win));
  g_assert_true (GTK_IS_SPIN_BUTTON (lb_param_dialog_get_widget (dialog, "scale")));
  g_assert_true (GTK_IS_DROP_DOWN (lb_param_dialog_get_widget (dialog, "operator")));
  g_assert_true (lb_param_dialog_set_value (dialog, "scale", 8.0));
  g_assert_true (lb_param_dialog_set_value (dialog, "operator", 1));
  lb_param_dialog_respond (dialog, TRUE);
  g_assert_true (lb_test_wait (lb_test_ui_not_busy, win, 20000));
  result = lb_history_get_current (history);
  g_assert_true (result != lb_history_get_original (history));

  /* the same as the engine gives (tested against numpy in test-python-filter) */
  filter = lb_filter_registry_lookup (lb_application_get_registry (app), GRADMAG_ID);
  params = lb_filter_params_new (filter);
  g_assert_true (lb_filter_params_set_from_string (params, "scale=8,operator=central", NULL));
  pipe = lb_pipeline_new (NULL);
  g_assert_true (lb_pipeline_append (pipe, filter, params, NULL));
  expected = lb_pipeline_run (pipe, lb_history_get_original (history), NULL, NULL, &error);
  g_assert_no_error (error);
  for (guint y = 0; y < lb_image_get_height (expected); y++)
    g_assert_cmpmem (lb_image_get_row (result, y), lb_image_get_row_size (result),
                     lb_image_get_row (expected, y), lb_image_get_row_size (expected));
  gtk_window_destroy (GTK_WINDOW (win));
}

static void
test_preview_shows_traceback (void)
{
  LbWindow *win;
  LbParamDialog *dialog;
  const char *message;

  if (!have_numpy ())
    {
      g_test_skip ("python3 with numpy is not installed");
      return;
    }
  win = window_with_ct ();
  gtk_widget_activate_action (GTK_WIDGET (win), "win.apply-filter", "s", RAISES_ID);
  g_assert_true (lb_test_wait (has_param_dialog, win, 5000));
  dialog = LB_PARAM_DIALOG (lb_window_test_get_param_dialog (win));
  g_assert_true (lb_test_wait (has_preview_error, dialog, 20000));
  message = lb_param_dialog_get_preview_error (dialog);
  g_test_message ("%s", message);
  g_assert_nonnull (strstr (message, "raised ZeroDivisionError"));
  g_assert_nonnull (strstr (message, "raises.py\", line 6, in process"));
  lb_param_dialog_respond (dialog, FALSE);
  gtk_window_destroy (GTK_WINDOW (win));
}

/* Filters → Plugins lists a .py skipped for want of numpy, with the reason. */
static void
test_plugins_window_skip_reason (void)
{
  g_autofree char *dir = lb_test_make_tmpdir ("python-skip");
  g_autofree char *wrapper = g_build_filename (dir, "python-without-numpy", NULL);
  g_autofree char *module = g_build_filename (dir, "needs_numpy.py", NULL);
  g_autoptr(LbFilterRegistry) registry = lb_filter_registry_new ();
  LbPluginManager *manager;
  const char *text;

  g_assert_cmpint (g_chmod (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (wrapper, "#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n",
                                      -1, NULL));
  g_assert_cmpint (g_chmod (wrapper, 0755), ==, 0);
  g_assert_true (g_file_set_contents (module, "import numpy\n", -1, NULL));
  g_assert_cmpint (g_chmod (module, 0644), ==, 0);
  lb_filter_registry_add_plugin_dir (registry, dir);
  manager = lb_plugin_manager_new (registry, NULL);
  gtk_window_present (GTK_WINDOW (manager));
  g_setenv ("LIGHTBOX_PYTHON", wrapper, TRUE);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (manager), "plugins.reload", NULL));
  g_unsetenv ("LIGHTBOX_PYTHON");
  text = lb_plugin_manager_get_problems_text (manager);
  g_test_message ("%s", text);
  g_assert_nonnull (strstr (text, "needs_numpy.py: Python filters need numpy"));
  g_assert_nonnull (strstr (text, "No module named 'numpy'"));
  gtk_window_destroy (GTK_WINDOW (manager));
  lb_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  static const LbTestUiCase cases[] = {
    { "/ui/python/menu-dialog-apply", test_menu_dialog_apply },
    { "/ui/python/preview-shows-traceback", test_preview_shows_traceback },
    { "/ui/python/plugins-window-skip-reason", test_plugins_window_skip_reason },
  };
  g_autofree char *example = NULL;
  g_autofree char *src = g_build_filename (g_getenv ("LB_SOURCE_ROOT"), "plugins", "python",
                                           "gradient_magnitude.py", NULL);
  g_autofree char *path = NULL;
  int ret;

  /* the registry the application makes reads LIGHTBOX_PLUGIN_PATH on first use */
  plugin_dir = lb_test_make_tmpdir ("python-ui");
  g_chmod (plugin_dir, 0755);
  if (g_file_get_contents (src, &example, NULL, NULL))
    install ("gradient_magnitude.py", example);
  install ("raises.py",
           "import numpy as np\n"
           "LIGHTBOX_FILTER = {'id': '" RAISES_ID "', 'name': 'Raises',\n"
           "    'category': 'Test', 'formats': ['gray16'],\n"
           "    'params': [{'name': 'k', 'type': 'int', 'min': 0, 'max': 3, 'default': 0}]}\n"
           "def process(src, dst, params, meta):\n"
           "    dst[...] = src // params['k']  if params['k'] else 1 // 0\n");
  path = g_strconcat (plugin_dir, ":", g_getenv ("LIGHTBOX_PLUGIN_PATH"), NULL);
  g_setenv ("LIGHTBOX_PLUGIN_PATH", path, TRUE);
  ret = lb_test_ui_main (argc, argv, &app, cases, G_N_ELEMENTS (cases));
  lb_test_remove_tree (plugin_dir);
  return ret;
}
