/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer harness: lightbox-store's request handling. The first byte picks the target:
 *   'P'  the path rules (lb_store_path_decode / _check_decoded / _encode), with invariants:
 *        an accepted path never has a "." or ".." segment, a NUL or a backslash, and encoding
 *        it and decoding again gives the same relative path;
 *   'X'  the PROPFIND body parser (lb_dav_parse_propfind, libxml2 without network/entities);
 *   else a raw HTTP/1.1 request (request line, headers, body as given) sent through a real
 *        loopback socket to an in-process LbStoreServer over a scratch root; the server must
 *        answer or close, and keep serving: after each input a clean GET must still work. */
#include <errno.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "lb-dav-xml.h"
#include "lb-store-path.h"
#include "lb-store-server.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static guint16 server_port;
static char *server_root;

static gpointer
server_thread (gpointer user_data)
{
  GMainContext *ctx = g_main_context_new ();
  g_autoptr (GMainLoop) loop = g_main_loop_new (ctx, FALSE);
  g_autoptr (LbStoreServer) server = NULL;
  g_autoptr (GError) error = NULL;
  const char *url;

  g_main_context_push_thread_default (ctx);
  server = lb_store_server_new (server_root, &error);
  g_assert_no_error (error);
  lb_store_server_set_max_upload (server, 64 * 1024);
  if (!lb_store_server_listen (server, "127.0.0.1", 0, &error))
    g_error ("listen: %s", error->message);
  url = lb_store_server_get_url (server);
  /* http://127.0.0.1:PORT/ */
  g_atomic_int_set ((gint *) user_data, (gint) g_ascii_strtoull (strrchr (url, ':') + 1, NULL, 10));
  g_main_loop_run (loop); /* never returns: the server lives as long as the fuzzer */
  return NULL;
}

static void
start_server (void)
{
  static gint port;
  g_autofree char *sub = NULL;

  server_root = g_dir_make_tmp ("lb-fuzz-store-XXXXXX", NULL);
  g_assert (server_root != NULL);
  sub = g_build_filename (server_root, "dir", NULL);
  g_mkdir (sub, 0700);
  g_autofree char *f = g_build_filename (sub, "a.png", NULL);
  g_file_set_contents (f, "\x89PNG\r\n\x1a\nnot really", -1, NULL);
  g_autofree char *f2 = g_build_filename (server_root, "b.txt", NULL);
  g_file_set_contents (f2, "hello", -1, NULL);
  g_thread_new ("store", server_thread, &port);
  while (g_atomic_int_get (&port) == 0)
    g_usleep (1000);
  server_port = (guint16) port;
}

/* Sends @len bytes, half-closes, reads the reply until EOF or @silence_ms without a byte (a
 * keep-alive connection stays open after the answer: libsoup does not act on the half-close).
 * Returns the number of reply bytes, or -1 when the connection could not be made. */
static gssize
exchange (const void *req, gsize len, char *head, gsize head_len, int silence_ms)
{
  struct sockaddr_in sa = { 0 };
  struct timeval tv = { silence_ms / 1000, (silence_ms % 1000) * 1000 };
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  gssize total = 0;
  char buf[4096];

  g_assert (fd >= 0);
  sa.sin_family = AF_INET;
  sa.sin_port = htons (server_port);
  sa.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt (fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (connect (fd, (struct sockaddr *) &sa, sizeof sa) != 0)
    {
      close (fd);
      return -1;
    }
  /* The server may answer and close before taking the whole request (EPIPE is fine). */
  (void) send (fd, req, len, MSG_NOSIGNAL);
  shutdown (fd, SHUT_WR);
  for (;;)
    {
      gssize n = recv (fd, buf, sizeof buf, 0);
      if (n <= 0)
        break;
      if (head != NULL && (gsize) total < head_len - 1)
        memcpy (head + total, buf, MIN ((gsize) n, head_len - 1 - total));
      total += n;
    }
  close (fd);
  return total;
}

static void
fuzz_path (const char *s)
{
  g_autofree char *rel = NULL;
  g_autofree char *rel2 = NULL;
  g_autofree char *rel3 = NULL;
  gboolean slash = FALSE, slash2 = FALSE;

  if (lb_store_path_decode (s, &rel, &slash) == LB_STORE_PATH_OK)
    {
      g_auto (GStrv) segs = g_strsplit (rel, "/", -1);
      g_autofree char *enc = lb_store_path_encode (rel, slash);

      g_assert (rel[0] != '/' && strchr (rel, '\\') == NULL);
      for (guint i = 0; segs[i] != NULL; i++)
        g_assert (strcmp (segs[i], ".") != 0 && strcmp (segs[i], "..") != 0);
      g_assert (g_utf8_validate (rel, -1, NULL));
      g_assert (lb_store_path_decode (enc, &rel2, &slash2) == LB_STORE_PATH_OK);
      g_assert_cmpstr (rel, ==, rel2);
      (void) lb_store_path_is_hidden (rel);
      (void) lb_store_path_is_in_filter_repo (rel);
    }
  if (lb_store_path_check_decoded (s, &rel3, &slash) == LB_STORE_PATH_OK)
    {
      g_auto (GStrv) segs = g_strsplit (rel3, "/", -1);
      for (guint i = 0; segs[i] != NULL; i++)
        g_assert (strcmp (segs[i], ".") != 0 && strcmp (segs[i], "..") != 0);
    }
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  if (size < 1)
    return 0;
  if (data[0] == 'P')
    {
      g_autofree char *s = g_strndup ((const char *) data + 1, size - 1);
      fuzz_path (s);
    }
  else if (data[0] == 'X')
    {
      LbDavPropfindKind kind;
      g_autoptr (GPtrArray) names = NULL;
      g_autoptr (GError) error = NULL;
      gboolean ok = lb_dav_parse_propfind ((const char *) data + 1, size - 1, &kind, &names,
                                           &error);
      g_assert (ok == (error == NULL));
    }
  else
    {
      static const char probe[] = "GET /b.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
      char head[64] = { 0 };

      if (server_port == 0)
        start_server ();
      (void) exchange (data, size, NULL, 0, 100);
      /* Still alive and serving. */
      g_assert (exchange (probe, sizeof probe - 1, head, sizeof head, 10000) > 0);
      g_assert (g_str_has_prefix (head, "HTTP/1.1 "));
    }
  return 0;
}
