/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-store-path"

/* The request-path rules of lightbox-store, without a server. */

#include <unistd.h>
#include <glib/gstdio.h>

#include "lb-store-path.h"
#include "lb-test-files.h"

static void
test_decode (void)
{
  struct {
    const char       *in;
    LbStorePathStatus status;
    const char       *rel;
    gboolean          slash;
  } cases[] = {
    { "/", LB_STORE_PATH_OK, "", TRUE },
    { "/a/b.png", LB_STORE_PATH_OK, "a/b.png", FALSE },
    { "/a//b/", LB_STORE_PATH_OK, "a/b", TRUE },
    { "/With%20Space/mr%200051%20%231.png", LB_STORE_PATH_OK, "With Space/mr 0051 #1.png", FALSE },
    { "/%C3%9Cn%C3%AFc%C3%B6d%C3%A9/", LB_STORE_PATH_OK, "Ünïcödé", TRUE },
    { "/%c3%9cn%c3%afc%c3%b6d%c3%a9/", LB_STORE_PATH_OK, "Ünïcödé", TRUE },
    { "/bild&50%25.png", LB_STORE_PATH_OK, "bild&50%.png", FALSE },
    { "/..", LB_STORE_PATH_FORBIDDEN, NULL, FALSE },
    { "/a/../b", LB_STORE_PATH_FORBIDDEN, NULL, FALSE },
    { "/./a", LB_STORE_PATH_FORBIDDEN, NULL, FALSE },
    { "/%2e%2e/etc", LB_STORE_PATH_FORBIDDEN, NULL, FALSE },
    { "/%2E%2e/etc", LB_STORE_PATH_FORBIDDEN, NULL, FALSE },
    { "/.%2e/etc", LB_STORE_PATH_FORBIDDEN, NULL, FALSE },
    { "/a%2f..%2fb", LB_STORE_PATH_BAD_REQUEST, NULL, FALSE },
    { "/a%2Fb", LB_STORE_PATH_BAD_REQUEST, NULL, FALSE },
    { "/a%00b", LB_STORE_PATH_BAD_REQUEST, NULL, FALSE },
    { "/a\\..\\b", LB_STORE_PATH_BAD_REQUEST, NULL, FALSE },
    { "/a%5c..%5cb", LB_STORE_PATH_BAD_REQUEST, NULL, FALSE },
    { "/%ff%fe", LB_STORE_PATH_BAD_REQUEST, NULL, FALSE },
    { "/%zz", LB_STORE_PATH_BAD_REQUEST, NULL, FALSE },
    { "relative", LB_STORE_PATH_BAD_REQUEST, NULL, FALSE },
    /* double encoding decodes once: a literal "%2e%2e" name, harmless */
    { "/%252e%252e", LB_STORE_PATH_OK, "%2e%2e", FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *rel = NULL;
      gboolean slash = FALSE;
      LbStorePathStatus st = lb_store_path_decode (cases[i].in, &rel, &slash);

      g_test_message ("%s -> %d %s", cases[i].in, st, rel ? rel : "(null)");
      g_assert_cmpint (st, ==, cases[i].status);
      g_assert_cmpstr (rel, ==, cases[i].rel);
      if (st == LB_STORE_PATH_OK)
        g_assert_cmpint (slash, ==, cases[i].slash);
    }
}

static void
test_hidden (void)
{
  g_assert_true (lb_store_path_is_hidden (".x"));
  g_assert_true (lb_store_path_is_hidden ("a/.lbput-123"));
  g_assert_true (lb_store_path_is_hidden (".lightbox/secret"));
  g_assert_true (lb_store_path_is_hidden (".lightbox/filters/.hidden"));
  g_assert_true (lb_store_path_is_hidden (".lightbox/filters/a/b"));
  g_assert_false (lb_store_path_is_hidden (".lightbox"));
  g_assert_false (lb_store_path_is_hidden (".lightbox/filters"));
  g_assert_false (lb_store_path_is_hidden (".lightbox/filters/sharpen.lbfilter"));
  g_assert_false (lb_store_path_is_hidden ("a/b.c/d.png"));
  g_assert_false (lb_store_path_is_hidden (""));
}

static void
test_encode (void)
{
  g_autofree char *a = lb_store_path_encode ("a b/c&d%#.png", FALSE);
  g_autofree char *b = lb_store_path_encode ("Ünï", TRUE);
  g_autofree char *c = lb_store_path_encode ("", TRUE);
  g_autofree char *rel = NULL;
  gboolean slash;

  g_assert_cmpstr (a, ==, "/a%20b/c%26d%25%23.png");
  g_assert_cmpstr (b, ==, "/%C3%9Cn%C3%AF/");
  g_assert_cmpstr (c, ==, "/");
  /* round trip */
  g_assert_cmpint (lb_store_path_decode (a, &rel, &slash), ==, LB_STORE_PATH_OK);
  g_assert_cmpstr (rel, ==, "a b/c&d%#.png");
}

static void
test_contained (void)
{
  g_autofree char *base = lb_test_make_tmpdir ("path");
  g_autofree char *root = g_build_filename (base, "root", NULL);
  g_autofree char *out = g_build_filename (base, "out", NULL);
  g_autofree char *l1 = g_build_filename (root, "out-link", NULL);
  g_autofree char *l2 = g_build_filename (root, "in-link", NULL);
  g_autofree char *l3 = g_build_filename (root, "dangling", NULL);
  g_autofree char *sub = g_build_filename (root, "sub", NULL);
  g_autofree char *p = NULL;
  char *real_root;

  g_assert_cmpint (g_mkdir (root, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (out, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  g_assert_cmpint (symlink (out, l1), ==, 0);
  g_assert_cmpint (symlink ("sub", l2), ==, 0);
  g_assert_cmpint (symlink ("/nonexistent/target", l3), ==, 0);
  real_root = realpath (root, NULL);

  g_assert_true (lb_store_path_is_contained (real_root, root));
  p = g_build_filename (root, "sub", "new-file", NULL);
  g_assert_true (lb_store_path_is_contained (real_root, p));
  g_free (p);
  p = g_build_filename (root, "in-link", "x", NULL);
  g_assert_true (lb_store_path_is_contained (real_root, p));
  g_free (p);
  g_assert_false (lb_store_path_is_contained (real_root, l1));
  p = g_build_filename (root, "out-link", "new-file", NULL);
  g_assert_false (lb_store_path_is_contained (real_root, p));
  g_free (p);
  g_assert_false (lb_store_path_is_contained (real_root, l3));
  g_assert_false (lb_store_path_is_contained (real_root, out));
  /* a sibling sharing the prefix is not inside */
  p = g_strconcat (real_root, "-evil", NULL);
  g_assert_false (lb_store_path_is_contained (real_root, p));
  free (real_root);
  lb_test_remove_tree (base);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/store-path/decode", test_decode);
  g_test_add_func ("/store-path/hidden", test_hidden);
  g_test_add_func ("/store-path/encode", test_encode);
  g_test_add_func ("/store-path/contained", test_contained);
  return g_test_run ();
}
