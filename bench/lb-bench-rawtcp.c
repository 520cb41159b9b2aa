/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-bench-rawtcp"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gio/gio.h>

#include "lb-bench-rawtcp.h"

#define RAW_MAGIC 0x4c425454u /* "LBTT" */
#define MAX_BUFFER (16u << 20)

struct _LbRawServer {
  int listen_fd;
  guint16 port;
  GThread *acceptor;
  GMutex lock;
  GPtrArray *conn_threads;
  GArray *conn_fds;
  gboolean stopping;
};

/* All @n bytes through write() (@out) or read(); FALSE at end-of-file or on an error. */
static gboolean
transfer_all (int fd, guint8 *data, gsize n, gboolean out)
{
  while (n > 0)
    {
      ssize_t k = out ? write (fd, data, n) : read (fd, data, n);
      if (k < 0 && errno == EINTR)
        continue;
      if (k <= 0)
        return FALSE;
      data += k;
      n -= (gsize) k;
    }
  return TRUE;
}

static gboolean
write_all (int fd, const guint8 *data, gsize n)
{
  return transfer_all (fd, (guint8 *) data, n, TRUE);
}

static gboolean
read_all (int fd, guint8 *data, gsize n)
{
  return transfer_all (fd, data, n, FALSE);
}

/* Sends @total bytes in @buffer-sized write() calls. */
static gboolean
send_stream (int fd, guint8 *buf, gsize buffer, guint64 total)
{
  while (total > 0)
    {
      gsize n = (gsize) MIN ((guint64) buffer, total);
      if (!write_all (fd, buf, n))
        return FALSE;
      total -= n;
    }
  return TRUE;
}

/* Receives @total bytes with read() calls of at most @buffer bytes. */
static gboolean
recv_stream (int fd, guint8 *buf, gsize buffer, guint64 total)
{
  while (total > 0)
    {
      ssize_t k = read (fd, buf, (gsize) MIN ((guint64) buffer, total));
      if (k < 0 && errno == EINTR)
        continue;
      if (k <= 0)
        return FALSE;
      total -= (guint64) k;
    }
  return TRUE;
}

static gpointer
serve_connection (gpointer data)
{
  int fd = GPOINTER_TO_INT (data);
  guint8 *buf = NULL;
  gsize buf_size = 0;

  for (;;)
    {
      guint32 h[4];
      guint64 up, down;
      gsize buffer;

      if (!read_all (fd, (guint8 *) h, sizeof h) || GUINT32_FROM_LE (h[0]) != RAW_MAGIC)
        break;
      up = GUINT32_FROM_LE (h[1]);
      down = GUINT32_FROM_LE (h[2]);
      buffer = CLAMP (GUINT32_FROM_LE (h[3]), 1u, MAX_BUFFER);
      if (buffer > buf_size)
        {
          g_free (buf);
          buf = g_malloc0 (buffer);
          buf_size = buffer;
        }
      if (!recv_stream (fd, buf, buffer, up))
        break;
      if (down > 0 ? !send_stream (fd, buf, buffer, down) : !write_all (fd, (const guint8 *) "k", 1))
        break;
    }
  g_free (buf);
  return NULL;
}

static gpointer
accept_loop (gpointer data)
{
  LbRawServer *self = data;

  for (;;)
    {
      int fd = accept (self->listen_fd, NULL, NULL);
      int one = 1;

      if (fd < 0)
        {
          if (errno == EINTR || errno == ECONNABORTED)
            continue;
          break;
        }
      g_mutex_lock (&self->lock);
      if (self->stopping)
        {
          g_mutex_unlock (&self->lock);
          close (fd);
          break;
        }
      setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      g_array_append_val (self->conn_fds, fd);
      g_ptr_array_add (self->conn_threads,
                       g_thread_new ("lb-raw-conn", serve_connection, GINT_TO_POINTER (fd)));
      g_mutex_unlock (&self->lock);
    }
  return NULL;
}

LbRawServer *
lb_raw_server_start (GError **error)
{
  LbRawServer *self;
  struct sockaddr_in addr = { 0 };
  socklen_t len = sizeof addr;
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int saved;

  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (fd < 0 || bind (fd, (struct sockaddr *) &addr, sizeof addr) != 0 || listen (fd, 16) != 0
      || getsockname (fd, (struct sockaddr *) &addr, &len) != 0)
    {
      saved = errno;
      if (fd >= 0)
        close (fd);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "raw TCP server on 127.0.0.1: %s", g_strerror (saved));
      return NULL;
    }
  self = g_new0 (LbRawServer, 1);
  self->listen_fd = fd;
  self->port = ntohs (addr.sin_port);
  g_mutex_init (&self->lock);
  self->conn_threads = g_ptr_array_new ();
  self->conn_fds = g_array_new (FALSE, FALSE, sizeof (int));
  self->acceptor = g_thread_new ("lb-raw-accept", accept_loop, self);
  return self;
}

guint16
lb_raw_server_get_port (LbRawServer *self)
{
  return self->port;
}

void
lb_raw_server_stop (LbRawServer *self)
{
  if (self == NULL)
    return;
  g_mutex_lock (&self->lock);
  self->stopping = TRUE;
  /* Wake the acceptor and every connection: shutdown makes their blocking calls return. */
  shutdown (self->listen_fd, SHUT_RDWR);
  for (guint i = 0; i < self->conn_fds->len; i++)
    shutdown (g_array_index (self->conn_fds, int, i), SHUT_RDWR);
  g_mutex_unlock (&self->lock);
  g_thread_join (self->acceptor);
  for (guint i = 0; i < self->conn_threads->len; i++)
    g_thread_join (self->conn_threads->pdata[i]);
  for (guint i = 0; i < self->conn_fds->len; i++)
    close (g_array_index (self->conn_fds, int, i));
  close (self->listen_fd);
  g_ptr_array_unref (self->conn_threads);
  g_array_unref (self->conn_fds);
  g_mutex_clear (&self->lock);
  g_free (self);
}

int
lb_raw_connect (guint16 port, GError **error)
{
  struct sockaddr_in addr = { 0 };
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;

  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  addr.sin_port = htons (port);
  if (fd < 0 || connect (fd, (struct sockaddr *) &addr, sizeof addr) != 0)
    {
      int saved = errno;
      if (fd >= 0)
        close (fd);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "connecting to 127.0.0.1:%u: %s", port, g_strerror (saved));
      return -1;
    }
  setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

gboolean
lb_raw_exchange (int fd, guint64 up, guint64 down, gsize buffer, GError **error)
{
  static GPrivate scratch_key = G_PRIVATE_INIT (g_free);
  static GPrivate scratch_size_key;
  guint8 *buf = g_private_get (&scratch_key);
  gsize have = GPOINTER_TO_SIZE (g_private_get (&scratch_size_key));
  guint32 h[4];
  guint8 ack;

  g_return_val_if_fail (buffer >= 1 && buffer <= MAX_BUFFER, FALSE);
  g_return_val_if_fail (up <= G_MAXUINT32 && down <= G_MAXUINT32, FALSE);
  if (buf == NULL || have < buffer)
    {
      buf = g_malloc0 (buffer);
      g_private_replace (&scratch_key, buf);
      g_private_set (&scratch_size_key, GSIZE_TO_POINTER (buffer));
    }
  h[0] = GUINT32_TO_LE (RAW_MAGIC);
  h[1] = GUINT32_TO_LE ((guint32) up);
  h[2] = GUINT32_TO_LE ((guint32) down);
  h[3] = GUINT32_TO_LE ((guint32) buffer);
  if (!write_all (fd, (const guint8 *) h, sizeof h) || !send_stream (fd, buf, buffer, up)
      || !(down > 0 ? recv_stream (fd, buf, buffer, down) : read_all (fd, &ack, 1)))
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "raw TCP exchange (%" G_GUINT64_FORMAT " up, %" G_GUINT64_FORMAT " down): %s",
                   up, down, saved ? g_strerror (saved) : "connection closed");
      return FALSE;
    }
  return TRUE;
}
