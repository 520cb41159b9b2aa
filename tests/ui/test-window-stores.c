/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The workstation opening stores that are hard to open: a lightbox-store with a self-signed
 * certificate (the error dialog names the problem) and a local folder of 20 000 entries
 * (listed, sorted, the last row reachable).
 */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>

#include "lb-test-dialogs.h"
#include "lb-test-files.h"
#include "lb-test-loop.h"
#include "lb-test-process.h"
#include "lb-test-tls.h"
#include "lb-test-ui.h"

static LbApplication *app;

/* A large folder (20 000 entries here, so the sanitizer runs stay short; bench/ui-timing
 * times 100 000): listed, sorted and shown, and the last row reachable. */
#define LARGE_N 20000
static void
test_large_folder (void)
{
  g_autofree char *dir = g_dir_make_tmp ("lightbox-100k-XXXXXX", NULL);
  g_autofree char *uri = g_filename_to_uri (dir, NULL, NULL);
  LbWindow *w;
  gint64 t0, t1, t2;
  guint n, last;
  char name[64];

  lb_test_ui_make_empty_files (dir, LARGE_N);
  w = lb_window_new (app);
  gtk_window_present (GTK_WINDOW (w));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (w));
  t0 = g_get_monotonic_time ();
  lb_window_open_store (w, uri);
  g_assert_true (lb_test_wait (lb_test_ui_tree_listed, w, 120000));
  t1 = g_get_monotonic_time ();
  n = g_list_model_get_n_items (lb_store_browser_get_rows (lb_window_test_get_browser (w)));
  g_assert_cmpuint (n, ==, LARGE_N);
  /* sorted by name: the last row is the last file; selecting it scrolls the view there */
  g_snprintf (name, sizeof name, "img-%06d.png", LARGE_N - 1);
  last = lb_store_browser_find_row (lb_window_test_get_browser (w), name);
  g_assert_cmpuint (last, ==, LARGE_N - 1);
  lb_store_browser_select_row (lb_window_test_get_browser (w), last);
  gtk_widget_queue_draw (GTK_WIDGET (w));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (w));
  t2 = g_get_monotonic_time ();
  g_test_message ("%d entries: listed and shown in %.0f ms, jump to the end %.0f ms", LARGE_N,
                  (t1 - t0) / 1000.0, (t2 - t1) / 1000.0);
  gtk_window_destroy (GTK_WINDOW (w));
  lb_test_ui_drain (50);
  lb_test_remove_tree (dir);
}

/* A lightbox-store with a self-signed certificate: the tree shows the error row and the
 * dialog names the problem (unknown authority), from the certificate flags. */
static void
test_tls_dialog (void)
{
  g_autofree char *dir = g_dir_make_tmp ("lightbox-tls-XXXXXX", NULL);
  g_autofree char *cert = g_build_filename (dir, "cert.pem", NULL);
  g_autofree char *key = g_build_filename (dir, "key.pem", NULL);
  g_autofree char *root = g_build_filename (dir, "root", NULL);
  g_autofree char *openssl = g_find_program_in_path ("openssl");
  const char *const tls[] = { "--tls-cert", cert, "--tls-key", key, NULL };
  g_auto (GStrv) argv = lb_test_server_argv (root, tls);
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GSubprocess) proc = NULL;
  g_autofree char *url = NULL;
  const char *detail;
  LbWindow *w;

  if (openssl == NULL)
    {
      g_test_skip ("openssl is not installed");
      lb_test_remove_tree (dir);
      return;
    }
  g_assert_cmpint (g_mkdir (root, 0755), ==, 0);
  lb_test_make_self_signed (openssl, key, cert);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  lb_test_server_spawn (launcher, (const char *const *) argv, &proc, &url);
  g_assert_true (g_str_has_prefix (url, "https://127.0.0.1:"));

  w = lb_window_new (app);
  gtk_window_present (GTK_WINDOW (w));
  lb_window_open_store (w, url);
  g_assert_true (lb_test_wait (lb_test_has_dialog, w, 20000));
  detail = lb_test_find_text (GTK_WIDGET (lb_test_dialog_over (GTK_WINDOW (w))),
                              "not signed by an authority this computer trusts");
  g_assert_nonnull (detail);
  g_test_message ("TLS dialog: %s", detail);
  gtk_window_destroy (GTK_WINDOW (w));
  g_subprocess_send_signal (proc, SIGTERM);
  g_subprocess_wait (proc, NULL, NULL);
  lb_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  static const LbTestUiCase cases[] = {
    { "/ui/window/tls-dialog", test_tls_dialog },
    { "/ui/window/large-folder", test_large_folder },
  };

  return lb_test_ui_main (argc, argv, &app, cases, G_N_ELEMENTS (cases));
}
