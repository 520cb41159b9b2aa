/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Raw HTTP/1.1 on loopback sockets, for the hardening tests that need exact control of the
 * bytes and of when they arrive: requests held back by their last byte and released together,
 * malformed chunked bodies, clients killed mid-body. Also the real lightbox-store started with
 * extra options, and a snapshot of a directory tree (names, types, sizes, SHA-256) to show
 * that a refused request changed nothing. */

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "lb-test-http.h"    /* lb_test_url_port */
#include "lb-test-image.h"   /* lb_test_bytes */
#include "lb-test-process.h" /* lb_test_server_argv, lb_test_server_spawn */

typedef struct {
  GSubprocess *proc;
  guint16      port;
  char        *url; /* with trailing slash */
} HttpStore;

/* Starts lightbox-store serving @root on a free loopback port, with @extra options. */
static inline void
http_store_start (HttpStore *s, const char *root, const char *const *extra)
{
  g_auto (GStrv) argv = lb_test_server_argv (root, extra);
  g_autoptr (GSubprocessLauncher) l = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);

#if defined(__SANITIZE_ADDRESS__)
  /* In the ASan build the server is instrumented too, and LeakSanitizer's exit-time tracer
   * crashes in it after GnuTLS threads have run (the same fault as in the test programs),
   * turning a clean exit into an abort. Leak checking of lightbox-store is valgrind's job. */
  g_subprocess_launcher_setenv (l, "ASAN_OPTIONS",
                                "detect_leaks=0:abort_on_error=1:halt_on_error=1:detect_odr_violation=0", TRUE);
#endif
  lb_test_server_spawn (l, (const char *const *) argv, &s->proc, &s->url);
  s->port = lb_test_url_port (s->url);
  g_assert_cmpuint (s->port, >, 0);
}

/* SIGTERM, and the server must exit cleanly (no crash, no sanitizer report). */
static inline void
http_store_stop (HttpStore *s)
{
  g_subprocess_send_signal (s->proc, SIGTERM);
  g_subprocess_wait (s->proc, NULL, NULL);
  g_assert_true (g_subprocess_get_if_exited (s->proc));
  g_assert_cmpint (g_subprocess_get_exit_status (s->proc), ==, 0);
  g_clear_object (&s->proc);
  g_clear_pointer (&s->url, g_free);
}

/* A connection to 127.0.0.1:@port from the loopback address @from (127.0.0.N; NULL: any), or
 * -1 when @from cannot be bound; no single wait on it lasts longer than 20 s. */
static inline int
http_connect_from (guint16 port, const char *from)
{
  struct sockaddr_in sa = { 0 };
  struct timeval tv = { 20, 0 };
  int one = 1;
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

  g_assert_cmpint (fd, >=, 0);
  if (from != NULL)
    {
      sa.sin_family = AF_INET;
      g_assert_cmpint (inet_pton (AF_INET, from, &sa.sin_addr), ==, 1);
      if (bind (fd, (struct sockaddr *) &sa, sizeof sa) != 0)
        {
          close (fd);
          return -1;
        }
    }
  sa.sin_family = AF_INET;
  sa.sin_port = htons (port);
  sa.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt (fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  g_assert_cmpint (connect (fd, (struct sockaddr *) &sa, sizeof sa), ==, 0);
  return fd;
}

/* A connection to 127.0.0.1:@port; no single wait on it lasts longer than 20 s. */
static inline int
http_connect (guint16 port)
{
  return http_connect_from (port, NULL);
}

/* All of @len bytes, or FALSE when the peer closed or reset the connection first. */
static inline gboolean
http_send_all (int fd, const void *data, gsize len)
{
  const char *p = data;

  while (len > 0)
    {
      gssize n = send (fd, p, len, MSG_NOSIGNAL);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      p += n;
      len -= (gsize) n;
    }
  return TRUE;
}

typedef struct {
  guint       status;  /* 0: no complete reply head before the connection ended */
  char       *head;    /* status line and header fields, lower-cased */
  GByteArray *body;
} HttpReply;

static inline void
http_reply_free (HttpReply *r)
{
  g_free (r->head);
  g_byte_array_unref (r->body);
  g_free (r);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HttpReply, http_reply_free)

/* The value of header @name (lower case) in @r, or NULL; returned in @r's lower-cased copy. */
static inline char *
http_reply_header (HttpReply *r, const char *name)
{
  g_autofree char *needle = g_strdup_printf ("\r\n%s:", name);
  const char *p = r->head != NULL ? strstr (r->head, needle) : NULL;
  const char *end;

  if (p == NULL)
    return NULL;
  p += strlen (needle);
  while (*p == ' ')
    p++;
  end = strstr (p, "\r\n");
  return g_strndup (p, end != NULL ? (gsize) (end - p) : strlen (p));
}

/* Up to @want bytes of @fd appended to @out; FALSE if the connection ended first. */
static inline gboolean
http_recv_n (int fd, GByteArray *out, gsize want)
{
  guint8 buf[16384];

  while (want > 0)
    {
      gssize n = recv (fd, buf, MIN (sizeof buf, want), 0);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      g_byte_array_append (out, buf, (guint) n);
      want -= (gsize) n;
    }
  return TRUE;
}

/* One line of @fd up to CRLF (excluded), byte by byte; NULL if the connection ended first. */
static inline char *
http_recv_line (int fd)
{
  g_autoptr (GByteArray) line = g_byte_array_new ();
  guint8 c;

  for (;;)
    {
      gssize n = recv (fd, &c, 1, 0);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return NULL;
      if (c == '\n' && line->len > 0 && line->data[line->len - 1] == '\r')
        return g_strndup ((const char *) line->data, line->len - 1);
      g_byte_array_append (line, &c, 1);
    }
}

/* A chunked body (RFC 9112 §7.1) into @out, up to its last chunk and trailer; stops early,
 * with what came, if the connection ends or a size line is not hexadecimal. */
static inline void
http_recv_chunked (int fd, GByteArray *out)
{
  for (;;)
    {
      g_autofree char *size_line = http_recv_line (fd);
      guint64 size;

      if (size_line == NULL || !g_ascii_isxdigit (size_line[0]))
        return;
      size = g_ascii_strtoull (size_line, NULL, 16);
      if (size == 0)
        break;
      if (!http_recv_n (fd, out, size))
        return;
      g_free (http_recv_line (fd)); /* the CRLF after the data */
    }
  for (;;) /* trailer fields, up to the empty line */
    {
      g_autofree char *field = http_recv_line (fd);

      if (field == NULL || field[0] == '\0')
        return;
    }
}

/* Reads one reply from @fd: the head, then a Content-Length or chunked body (204 and 304 have
 * none, nor has the reply to a HEAD, @to_head). An interim 100 Continue is returned as such. */
static inline HttpReply *
http_read_reply_to (int fd, gboolean to_head)
{
  HttpReply *r = g_new0 (HttpReply, 1);
  g_autoptr (GByteArray) in = g_byte_array_new ();
  g_autofree char *cl = NULL;
  g_autofree char *te = NULL;
  char *end = NULL;
  gsize head_len = 0;
  guint8 c;

  r->body = g_byte_array_new ();
  /* Byte by byte up to the end of the head, so nothing of a following reply is consumed. */
  while (end == NULL)
    {
      gssize n = recv (fd, &c, 1, 0);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return r;
      g_byte_array_append (in, &c, 1);
      if (in->len >= 4 && memcmp (in->data + in->len - 4, "\r\n\r\n", 4) == 0)
        end = (char *) in->data + in->len - 4;
    }
  head_len = (gsize) (end - (char *) in->data);
  r->head = g_ascii_strdown ((const char *) in->data, (gssize) head_len + 2);
  if (head_len < 12 || strncmp (r->head, "http/1.", 7) != 0)
    return r;
  r->status = (guint) g_ascii_strtoull (r->head + 9, NULL, 10);
  if (to_head || r->status == 204 || r->status == 304 || r->status < 200)
    return r;
  te = http_reply_header (r, "transfer-encoding");
  cl = http_reply_header (r, "content-length");
  if (te != NULL && strstr (te, "chunked") != NULL)
    http_recv_chunked (fd, r->body);
  else if (cl != NULL)
    http_recv_n (fd, r->body, (gsize) g_ascii_strtoull (cl, NULL, 10));
  return r;
}

static inline HttpReply *
http_read_reply (int fd)
{
  return http_read_reply_to (fd, FALSE);
}

/* @head: request line and header fields joined by "\r\n", without the empty line that ends
 * the head (added here). */
static inline GByteArray *
http_request_bytes (const char *head, const void *body, gsize body_len)
{
  GByteArray *req = g_byte_array_new ();

  g_byte_array_append (req, (const guint8 *) head, (guint) strlen (head));
  g_byte_array_append (req, (const guint8 *) "\r\n\r\n", 4);
  if (body_len > 0)
    g_byte_array_append (req, body, (guint) body_len);
  return req;
}

/* One request on a new connection, and its reply. */
static inline HttpReply *
http_request (guint16 port, const char *head, const void *body, gsize body_len)
{
  g_autoptr (GByteArray) req = http_request_bytes (head, body, body_len);
  int fd = http_connect (port);
  HttpReply *r;

  http_send_all (fd, req->data, req->len);
  r = http_read_reply_to (fd, g_str_has_prefix (head, "HEAD "));
  close (fd);
  return r;
}

static inline guint
http_status (guint16 port, const char *head, const void *body, gsize body_len)
{
  g_autoptr (HttpReply) r = http_request (port, head, body, body_len);

  return r->status;
}

static inline int
http_cmp_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static inline void
http_snapshot_dir (const char *dir, const char *rel, GString *out)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, http_cmp_names);
  for (guint i = 0; i < names->len; i++)
    {
      const char *n = g_ptr_array_index (names, i);
      g_autofree char *path = g_build_filename (dir, n, NULL);
      g_autofree char *r = rel[0] ? g_strconcat (rel, "/", n, NULL) : g_strdup (n);
      struct stat st;

      g_assert_cmpint (lstat (path, &st), ==, 0);
      if (S_ISLNK (st.st_mode))
        {
          g_autofree char *target = g_file_read_link (path, NULL);

          g_string_append_printf (out, "L %s -> %s\n", r, target);
        }
      else if (S_ISDIR (st.st_mode))
        {
          g_string_append_printf (out, "D %s %o\n", r, st.st_mode & 07777);
          http_snapshot_dir (path, r, out);
        }
      else if (S_ISREG (st.st_mode))
        {
          g_autofree char *data = NULL;
          g_autofree char *sum = NULL;
          gsize len;

          g_assert_true (g_file_get_contents (path, &data, &len, NULL));
          sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) data, len);
          g_string_append_printf (out, "F %s %" G_GSIZE_FORMAT " %s\n", r, len, sum);
        }
      else
        g_string_append_printf (out, "%s %s %o\n", S_ISFIFO (st.st_mode) ? "P" : "O", r,
                                st.st_mode & S_IFMT);
    }
}

/* Every name below @dir (hidden ones too) and its type; for a link its target (never
 * followed), for a folder its mode, for a file its size and SHA-256; a FIFO or socket is named,
 * never opened. */
static inline char *
http_snapshot (const char *dir)
{
  GString *out = g_string_new (NULL);

  http_snapshot_dir (dir, "", out);
  return g_string_free (out, FALSE);
}

/* rm -rf @dir (a scratch directory of the test). */
static inline void
http_remove_tree (const char *dir)
{
  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", dir);

  g_assert_cmpint (system (cmd), ==, 0);
}

static inline GBytes *
http_read_file (const char *path)
{
  char *data = NULL;
  gsize len = 0;

  if (!g_file_get_contents (path, &data, &len, NULL))
    return NULL;
  return g_bytes_new_take (data, len);
}

static inline void
http_write_file (const char *path, const void *data, gsize len)
{
  g_autoptr (GError) error = NULL;

  g_file_set_contents (path, data, (gssize) len, &error);
  g_assert_no_error (error);
}

