/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-bench-net"

/* lightbox-bench net: the MedJava paper's network measurements, on loopback.
 *
 * Lightbox's store client (LbStore, the webdav backend) talks to lightbox-store, started here
 * as a child with --port 0 on a temporary root (on /dev/shm when it exists, so the server's
 * fsync costs no disk time and the figures are about the network path). Baselines in the same
 * run: a raw-socket TTCP in C (lb-bench-rawtcp.c) and curl against the same server.
 *
 * Buffer sizes: LbStore takes streams, not buffer sizes. Downloads read the stream it returns
 * with read calls of the buffer size; uploads hand it a source stream that yields at most the
 * buffer size per read (lb-bench-chunk-stream.c). The HTTP stack may ask for less: the output
 * reports the largest read it asked for. All traffic stays on 127.0.0.1. */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "lb-bench-chunk-stream.h"
#include "lb-bench-plot.h"
#include "lb-bench-rawtcp.h"
#include "lb-bench-soupmin.h"
#include "lb-bench-util.h"
#include "lb-bench.h"
#include "lb-store.h"

#include <libsoup/soup.h>

typedef struct {
  gboolean quick;
  LbMeasureOptions opt;
  GMainContext *context;
  GSubprocess *server;
  char *root;
  char *url;            /* http://127.0.0.1:PORT/ */
  LbStore *store;
  LbRawServer *raw;
  int raw_fd;           /* keep-alive connection for transactions */
  LbSoupMinServer *soupmin;
  SoupSession *soup;    /* plain libsoup client for the minimal libsoup server */
  char *soup_url;       /* http://127.0.0.1:PORT/ of the minimal server */
  gsize max_upload_request;
  GPtrArray *notes;
} Net;

/* ------------------------------------------------------------------------------------------ */
/* lightbox-store as a child process */

static char *
make_root (GError **error)
{
  /* tmpfs when available: the server fsyncs every PUT, which on a disk would measure the
   * disk, not the network path. */
  if (g_file_test ("/dev/shm", G_FILE_TEST_IS_DIR) && access ("/dev/shm", W_OK) == 0)
    {
      char *path = g_strdup ("/dev/shm/lb-bench-net-XXXXXX");
      if (g_mkdtemp (path) != NULL)
        return path;
      g_free (path);
    }
  return g_dir_make_tmp ("lb-bench-net-XXXXXX", error);
}

/* In the child before exec: the server goes when the bench goes, even if it is killed. */
static void
die_with_parent (gpointer data)
{
  prctl (PR_SET_PDEATHSIG, SIGTERM);
}

static gboolean
server_start (Net *n, GError **error)
{
  const char *exe = g_getenv ("LB_BENCH_STORE_EXE");
  g_autoptr (GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_autofree char *log = NULL;
  gint64 deadline;

  if (exe == NULL)
    exe = LB_BENCH_STORE_EXE;
  n->root = make_root (error);
  if (n->root == NULL)
    return FALSE;
  /* stdout to a file, so nothing the server prints later can fill a pipe and stall it. */
  log = g_strdup_printf ("%s.stdout", n->root);
  g_subprocess_launcher_set_stdout_file_path (launcher, log);
  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
  n->server = g_subprocess_launcher_spawn (launcher, error, exe, "--bind", "127.0.0.1",
                                           "--port", "0", n->root, NULL);
  if (n->server == NULL)
    {
      g_prefix_error (error, "starting %s: ", exe);
      return FALSE;
    }
  deadline = g_get_monotonic_time () + 15 * G_USEC_PER_SEC;
  while (g_get_monotonic_time () < deadline)
    {
      g_autofree char *text = NULL;
      const char *at;

      if (g_file_get_contents (log, &text, NULL, NULL)
          && (at = strstr (text, " at ")) != NULL && strchr (at, '\n') != NULL
          && g_str_has_prefix (text, "Serving "))
        {
          n->url = g_strndup (at + 4, strcspn (at + 4, "\r\n"));
          if (!g_str_has_suffix (n->url, "/"))
            {
              char *u = g_strconcat (n->url, "/", NULL);
              g_free (n->url);
              n->url = u;
            }
          g_unlink (log);
          if (!g_str_has_prefix (n->url, "http://127.0.0.1:"))
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                           "lightbox-store serves %s, not loopback: refusing to send traffic", n->url);
              return FALSE;
            }
          return TRUE;
        }
      /* the identifier goes NULL once the child has exited and been reaped */
      if (g_subprocess_get_identifier (n->server) == NULL)
        break;
      g_usleep (10000);
    }
  g_unlink (log);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
               "%s did not print “Serving ROOT at URL” within 15 s", exe);
  return FALSE;
}

static void
server_stop (Net *n)
{
  if (n->server != NULL)
    {
      g_subprocess_send_signal (n->server, SIGTERM);
      g_subprocess_wait (n->server, NULL, NULL);
      g_clear_object (&n->server);
    }
  if (n->root != NULL)
    lb_bench_remove_tree (n->root);
  g_clear_pointer (&n->root, g_free);
  g_clear_pointer (&n->url, g_free);
}

/* ------------------------------------------------------------------------------------------ */
/* The store client, driven synchronously on a private main context */

static void
got_result (GObject *source, GAsyncResult *result, gpointer data)
{
  *(GAsyncResult **) data = g_object_ref (result);
}

static GAsyncResult *
wait_for (Net *n, GAsyncResult **slot)
{
  while (*slot == NULL)
    g_main_context_iteration (n->context, TRUE);
  return *slot;
}

/* Reads @stream to its end with @buffer-byte asynchronous reads into @buf (the way an
 * application reads, one main-loop round trip per read), then closes it; @total gets the bytes
 * read. */
static gboolean
read_to_end (Net *n, GInputStream *stream, gsize buffer, guint8 *buf, guint64 *total,
             GError **error)
{
  GAsyncResult *res = NULL;

  for (;;)
    {
      gssize k;

      g_input_stream_read_async (stream, buf, buffer, G_PRIORITY_DEFAULT, NULL, got_result, &res);
      k = g_input_stream_read_finish (stream, wait_for (n, &res), error);
      g_clear_object (&res);
      if (k < 0)
        return FALSE;
      if (k == 0)
        break;
      *total += (guint64) k;
    }
  g_input_stream_close (stream, NULL, NULL);
  return TRUE;
}

/* Downloads @name, reading the stream with @buffer-byte reads. Returns the bytes read;
 * @etag (optional) gets the entry's ETag. */
static gboolean
lb_download (Net *n, const char *name, gsize buffer, guint8 *buf, guint64 *got, char **etag,
             GError **error)
{
  g_autofree char *uri = g_strconcat (n->url, name, NULL);
  GAsyncResult *res = NULL;
  g_autoptr (GInputStream) stream = NULL;
  g_autoptr (LbStoreEntry) entry = NULL;
  guint64 total = 0;

  lb_store_read_async (n->store, uri, NULL, NULL, NULL, got_result, &res);
  stream = lb_store_read_finish (n->store, wait_for (n, &res), &entry, error);
  g_clear_object (&res);
  if (stream == NULL)
    return FALSE;
  if (!read_to_end (n, stream, buffer, buf, &total, error))
    return FALSE;
  if (got != NULL)
    *got = total;
  if (etag != NULL)
    *etag = g_strdup (lb_store_entry_get_etag (entry));
  return TRUE;
}

static gboolean
lb_upload (Net *n, const char *name, guint64 size, gsize buffer, LbStoreWriteMode mode,
           const char *etag, char **new_etag, GError **error)
{
  g_autofree char *uri = g_strconcat (n->url, name, NULL);
  g_autoptr (GInputStream) source = lb_bench_chunk_stream_new (size, buffer);
  g_autoptr (LbStoreEntry) entry = NULL;
  GAsyncResult *res = NULL;

  lb_store_write_async (n->store, uri, source, (gint64) size, "application/octet-stream", mode,
                        etag, NULL, NULL, NULL, got_result, &res);
  entry = lb_store_write_finish (n->store, wait_for (n, &res), error);
  g_clear_object (&res);
  n->max_upload_request = MAX (n->max_upload_request,
                               lb_bench_chunk_stream_get_max_request (LB_BENCH_CHUNK_STREAM (source)));
  if (entry == NULL)
    return FALSE;
  if (new_etag != NULL)
    *new_etag = g_strdup (lb_store_entry_get_etag (entry));
  return TRUE;
}

/* The same exchanges with plain libsoup against the minimal libsoup server: what libsoup
 * costs by itself, without LbStore and lightbox-store. */
static gboolean
soup_check (SoupMessage *msg, GError **error)
{
  guint status = soup_message_get_status (msg);

  if (status >= 200 && status < 300)
    return TRUE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "minimal libsoup server: HTTP %u", status);
  return FALSE;
}

/* As LbStore does (lb-http.c): keep the connection after a 204, which libsoup 3.2 would drop. */
static void
soup_keepalive (SoupMessage *msg, gpointer data)
{
  if (soup_message_get_status (msg) == SOUP_STATUS_NO_CONTENT)
    soup_message_headers_set_encoding (soup_message_get_response_headers (msg), SOUP_ENCODING_NONE);
}

static gboolean
soup_download (Net *n, guint64 size, gsize buffer, guint8 *buf, GError **error)
{
  g_autofree char *uri = g_strdup_printf ("%s%" G_GUINT64_FORMAT, n->soup_url, size);
  g_autoptr (SoupMessage) msg = soup_message_new ("GET", uri);
  g_autoptr (GInputStream) stream = NULL;
  GAsyncResult *res = NULL;
  guint64 total = 0;

  soup_session_send_async (n->soup, msg, G_PRIORITY_DEFAULT, NULL, got_result, &res);
  stream = soup_session_send_finish (n->soup, wait_for (n, &res), error);
  g_clear_object (&res);
  if (stream == NULL || !soup_check (msg, error))
    return FALSE;
  if (!read_to_end (n, stream, buffer, buf, &total, error))
    return FALSE;
  if (total != size)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "minimal libsoup server: %" G_GUINT64_FORMAT
                   " bytes instead of %" G_GUINT64_FORMAT, total, size);
      return FALSE;
    }
  return TRUE;
}

static gboolean
soup_upload (Net *n, guint64 size, gsize buffer, const char *if_match, GError **error)
{
  g_autofree char *uri = g_strconcat (n->soup_url, "up", NULL);
  g_autoptr (SoupMessage) msg = soup_message_new ("PUT", uri);
  g_autoptr (GInputStream) source = lb_bench_chunk_stream_new (size, buffer);
  g_autoptr (GInputStream) stream = NULL;
  GAsyncResult *res = NULL;

  g_signal_connect (msg, "got-headers", G_CALLBACK (soup_keepalive), NULL);
  if (if_match != NULL)
    soup_message_headers_replace (soup_message_get_request_headers (msg), "If-Match", if_match);
  soup_message_set_request_body (msg, "application/octet-stream", source, (gssize) size);
  soup_session_send_async (n->soup, msg, G_PRIORITY_DEFAULT, NULL, got_result, &res);
  stream = soup_session_send_finish (n->soup, wait_for (n, &res), error);
  g_clear_object (&res);
  if (stream == NULL)
    return FALSE;
  {
    /* Read to the end before closing, as LbStore does (lb_http_drain_async): libsoup 3.2 drops
     * a connection whose response stream is closed early. */
    guint8 b[64];
    g_input_stream_read_async (stream, b, sizeof b, G_PRIORITY_DEFAULT, NULL, got_result, &res);
    g_input_stream_read_finish (stream, wait_for (n, &res), NULL);
    g_clear_object (&res);
  }
  g_input_stream_close (stream, NULL, NULL);
  return soup_check (msg, error);
}

static gboolean
put_file_at (const char *path, gsize size, GError **error)
{
  g_autofree char *data = g_malloc (MAX (size, 1));

  for (gsize i = 0; i < size; i++)
    data[i] = (char) (i * 131 + 7);
  return g_file_set_contents (path, data, (gssize) size, error);
}

/* A file of @size bytes in the server's root, written directly (download sources). */
static gboolean
put_file (Net *n, const char *name, gsize size, GError **error)
{
  g_autofree char *path = g_build_filename (n->root, name, NULL);

  return put_file_at (path, size, error);
}

/* ------------------------------------------------------------------------------------------ */
/* Measured operations */

typedef enum {
  OP_LB_UP, OP_LB_DOWN, OP_RAW_UP, OP_RAW_DOWN,
  OP_LB_REQUEST, OP_LB_REPLY, OP_LB_UPDATE,
  OP_RAW_REQUEST, OP_RAW_REPLY, OP_RAW_UPDATE,
  OP_CURL_UP, OP_CURL_DOWN,
  OP_SOUP_UP, OP_SOUP_DOWN, OP_SOUP_REQUEST, OP_SOUP_REPLY, OP_SOUP_UPDATE,
} OpKind;

typedef struct {
  Net *net;
  OpKind kind;
  guint64 size;
  gsize buffer;
  guint repeat;          /* transactions per sample */
  guint8 *buf;
  char *etag;            /* update: the ETag of the last write */
  const char *name;
  char *local_file;      /* curl upload source */
  GError *error;
} Op;

static double
curl_time (Op *op)
{
  Net *n = op->net;
  g_autofree char *uri = g_strconcat (n->url, op->name, NULL);
  g_autofree char *out = NULL;
  int status;
  const char *up[] = { "curl", "-s", "-S", "-f", "--noproxy", "*", "-T", op->local_file,
                       "-o", "/dev/null", "-w", "%{time_total}", uri, NULL };
  const char *down[] = { "curl", "-s", "-S", "-f", "--noproxy", "*", "-o", "/dev/null",
                         "-w", "%{time_total}", uri, NULL };

  if (!g_spawn_sync (NULL, (char **) (op->kind == OP_CURL_UP ? up : down), NULL,
                     G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                     &status, &op->error)
      || !g_spawn_check_wait_status (status, &op->error))
    return 0;
  /* curl's own clock: connect to last byte, without its process start-up. */
  return g_ascii_strtod (out, NULL) * 1000.0;
}

static double
op_once (gpointer data)
{
  Op *op = data;
  Net *n = op->net;
  double t0;

  if (op->error != NULL)
    return 0;
  if (op->kind == OP_CURL_UP || op->kind == OP_CURL_DOWN)
    return curl_time (op);
  t0 = lb_measure_now_ms ();
  switch (op->kind)
    {
    case OP_LB_UP:
      lb_upload (n, op->name, op->size, op->buffer, LB_STORE_WRITE_REPLACE, NULL, NULL, &op->error);
      break;
    case OP_LB_DOWN:
      lb_download (n, op->name, op->buffer, op->buf, NULL, NULL, &op->error);
      break;
    case OP_RAW_UP:
    case OP_RAW_DOWN:
      /* On the keep-alive connection, as Lightbox's session keeps its own: both sides then
       * measure the transfer, not connection set-up. */
      lb_raw_exchange (n->raw_fd, op->kind == OP_RAW_UP ? op->size : 0,
                       op->kind == OP_RAW_DOWN ? op->size : 0, op->buffer, &op->error);
      break;
    case OP_LB_REQUEST:
      for (guint i = 0; i < op->repeat && op->error == NULL; i++)
        lb_upload (n, op->name, op->size, op->size, LB_STORE_WRITE_REPLACE, NULL, NULL, &op->error);
      break;
    case OP_LB_REPLY:
      for (guint i = 0; i < op->repeat && op->error == NULL; i++)
        lb_download (n, op->name, op->size, op->buf, NULL, NULL, &op->error);
      break;
    case OP_LB_UPDATE:
      /* Read-modify-write: GET with its ETag, then a PUT conditional on it (If-Match). */
      for (guint i = 0; i < op->repeat && op->error == NULL; i++)
        {
          g_autofree char *etag = NULL;
          if (lb_download (n, op->name, op->size, op->buf, NULL, &etag, &op->error))
            lb_upload (n, op->name, op->size, op->size, LB_STORE_WRITE_IF_MATCH, etag, NULL,
                       &op->error);
        }
      break;
    case OP_RAW_REQUEST:
      for (guint i = 0; i < op->repeat && op->error == NULL; i++)
        lb_raw_exchange (n->raw_fd, op->size, 0, op->size, &op->error);
      break;
    case OP_RAW_REPLY:
      for (guint i = 0; i < op->repeat && op->error == NULL; i++)
        lb_raw_exchange (n->raw_fd, 0, op->size, op->size, &op->error);
      break;
    case OP_RAW_UPDATE:
      for (guint i = 0; i < op->repeat && op->error == NULL; i++)
        if (lb_raw_exchange (n->raw_fd, 0, op->size, op->size, &op->error))
          lb_raw_exchange (n->raw_fd, op->size, 0, op->size, &op->error);
      break;
    case OP_SOUP_UP:
      soup_upload (n, op->size, op->buffer, NULL, &op->error);
      break;
    case OP_SOUP_DOWN:
      soup_download (n, op->size, op->buffer, op->buf, &op->error);
      break;
    case OP_SOUP_REQUEST:
      for (guint i = 0; i < op->repeat && op->error == NULL; i++)
        soup_upload (n, op->size, op->size, NULL, &op->error);
      break;
    case OP_SOUP_REPLY:
      for (guint i = 0; i < op->repeat && op->error == NULL; i++)
        soup_download (n, op->size, op->size, op->buf, &op->error);
      break;
    case OP_SOUP_UPDATE:
      for (guint i = 0; i < op->repeat && op->error == NULL; i++)
        if (soup_download (n, op->size, op->size, op->buf, &op->error))
          soup_upload (n, op->size, op->size, "\"x\"", &op->error);
      break;
    case OP_CURL_UP:
    case OP_CURL_DOWN:
    default:
      g_assert_not_reached ();
    }
  return (lb_measure_now_ms () - t0) / MAX (op->repeat, 1);
}

static gboolean
measure_op (Net *n, OpKind kind, const char *name, guint64 size, gsize buffer, guint repeat,
            const LbMeasureOptions *opt, LbMeasureStats *st, GError **error)
{
  Op op = { n, kind, size, buffer, MAX (repeat, 1), NULL, NULL, name, NULL, NULL };

  op.buf = g_malloc (MAX (buffer, 1));
  if (kind == OP_CURL_UP)
    {
      /* beside the root, not in it: the server must not serve it */
      op.local_file = g_strdup_printf ("%s.curl-src", n->root);
      if (!put_file_at (op.local_file, (gsize) size, error))
        {
          g_free (op.buf);
          g_free (op.local_file);
          return FALSE;
        }
    }
  *st = lb_measure_run (op_once, &op, opt);
  if (op.local_file != NULL)
    g_unlink (op.local_file);
  g_free (op.local_file);
  g_free (op.buf);
  if (op.error != NULL)
    {
      g_propagate_error (error, op.error);
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------------------------ */
/* The command */

static double
mb_per_s (guint64 bytes, double ms)
{
  return ms > 0 ? bytes / (ms * 1000.0) : NAN;
}

static char *
size_label (guint64 bytes)
{
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " MB", bytes >> 20);
  if (bytes >= 1024 && bytes % 1024 == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " KB", bytes >> 10);
  return g_strdup_printf ("%" G_GUINT64_FORMAT " B", bytes);
}

static gboolean
ttcp_section (Net *n, guint64 image_bytes, LbMeasureTable *table, LbBenchPlot *plot,
              double *ratio_up, double *ratio_down, double *updown, GError **error)
{
  LbMeasureOptions opt = n->quick ? (LbMeasureOptions) { 1, 2, 4, 0.5, 0.1 }
                                : (LbMeasureOptions) { 1, 3, 12, 3.0, 0.05 };
  guint s_lb_up = lb_bench_plot_add_series (plot, "Lightbox upload (PUT)");
  guint s_lb_down = lb_bench_plot_add_series (plot, "Lightbox download (GET)");
  guint s_raw_up = lb_bench_plot_add_series (plot, "raw TCP upload");
  guint s_raw_down = lb_bench_plot_add_series (plot, "raw TCP download");
  guint s_soup_up = lb_bench_plot_add_series (plot, "minimal libsoup upload");
  guint s_soup_down = lb_bench_plot_add_series (plot, "minimal libsoup download");

  *ratio_up = *ratio_down = INFINITY;
  *updown = 1;
  if (!put_file (n, "ttcp.bin", (gsize) image_bytes, error))
    return FALSE;
  for (gsize buffer = 1024; buffer <= 128 * 1024; buffer *= 2)
    {
      double lb_mbs[2], raw_mbs[2], soup_mbs[2];

      for (int dir = 0; dir < 2; dir++)
        {
          LbMeasureStats lb, raw, soup;

          if (!measure_op (n, dir == 0 ? OP_LB_UP : OP_LB_DOWN, dir == 0 ? "ttcp-up.bin" : "ttcp.bin",
                           image_bytes, buffer, 1, &opt, &lb, error)
              || !measure_op (n, dir == 0 ? OP_RAW_UP : OP_RAW_DOWN, NULL, image_bytes, buffer, 1,
                              &opt, &raw, error)
              || !measure_op (n, dir == 0 ? OP_SOUP_UP : OP_SOUP_DOWN, NULL, image_bytes, buffer, 1,
                              &opt, &soup, error))
            return FALSE;
          lb_mbs[dir] = mb_per_s (image_bytes, lb.median);
          raw_mbs[dir] = mb_per_s (image_bytes, raw.median);
          soup_mbs[dir] = mb_per_s (image_bytes, soup.median);
          fprintf (stderr, "ttcp %3zu KB %-8s lightbox %8.1f MB/s  raw %8.1f MB/s  libsoup %8.1f MB/s\n",
                   buffer / 1024, dir == 0 ? "upload" : "download", lb_mbs[dir], raw_mbs[dir],
                   soup_mbs[dir]);
          lb_measure_table_add_row_take (table, g_strdup_printf ("%zu", buffer / 1024),
                                         g_strdup (dir == 0 ? "upload" : "download"),
                                         lb_bench_fmt (lb.median), lb_bench_fmt (raw.median),
                                         lb_bench_fmt (soup.median),
                                         lb_bench_fmt (lb_mbs[dir]), lb_bench_fmt (raw_mbs[dir]),
                                         lb_bench_fmt (soup_mbs[dir]),
                                         lb_bench_fmt (lb_mbs[dir] / raw_mbs[dir]),
                                         lb_bench_fmt (soup_mbs[dir] / raw_mbs[dir]), NULL);
          lb_bench_plot_add_point (plot, dir == 0 ? s_lb_up : s_lb_down, buffer / 1024.0, lb_mbs[dir]);
          lb_bench_plot_add_point (plot, dir == 0 ? s_raw_up : s_raw_down, buffer / 1024.0, raw_mbs[dir]);
          lb_bench_plot_add_point (plot, dir == 0 ? s_soup_up : s_soup_down, buffer / 1024.0, soup_mbs[dir]);
        }
      if (buffer >= 16 * 1024)
        {
          *ratio_up = MIN (*ratio_up, lb_mbs[0] / raw_mbs[0]);
          *ratio_down = MIN (*ratio_down, lb_mbs[1] / raw_mbs[1]);
          *updown = MAX (*updown, MAX (lb_mbs[0] / lb_mbs[1], lb_mbs[1] / lb_mbs[0]));
        }
    }
  return TRUE;
}

/* Each sample is one transaction and the figure is the median of many: a mean over a batch
 * would fold in the rare slow exchange (the p90 and max columns show those). */
static gboolean
transactions_section (Net *n, LbMeasureTable *table, LbBenchPlot *plot, double *worst_overhead,
                      GError **error)
{
  static const char *const kinds[] = { "request", "reply", "update" };
  static const guint payloads[] = { 256, 1024, 4096, 16384 };
  LbMeasureOptions opt = n->quick ? (LbMeasureOptions) { 2, 10, 30, 0.3, 0.05 }
                                : (LbMeasureOptions) { 5, 25, 400, 3.0, 0.02 };
  guint series[9];

  for (int k = 0; k < 3; k++)
    {
      g_autofree char *a = g_strdup_printf ("Lightbox %s", kinds[k]);
      g_autofree char *b = g_strdup_printf ("raw TCP %s", kinds[k]);
      g_autofree char *c = g_strdup_printf ("minimal libsoup %s", kinds[k]);
      series[k] = lb_bench_plot_add_series (plot, a);
      series[3 + k] = lb_bench_plot_add_series (plot, b);
      series[6 + k] = lb_bench_plot_add_series (plot, c);
    }
  *worst_overhead = -INFINITY;
  for (guint p = 0; p < G_N_ELEMENTS (payloads); p++)
    {
      g_autofree char *name = g_strdup_printf ("tx-%u.bin", payloads[p]);

      if (!put_file (n, name, payloads[p], error))
        return FALSE;
      for (int k = 0; k < 3; k++)
        {
          static const OpKind lb_ops[] = { OP_LB_REQUEST, OP_LB_REPLY, OP_LB_UPDATE };
          static const OpKind raw_ops[] = { OP_RAW_REQUEST, OP_RAW_REPLY, OP_RAW_UPDATE };
          static const OpKind soup_ops[] = { OP_SOUP_REQUEST, OP_SOUP_REPLY, OP_SOUP_UPDATE };
          LbMeasureStats lb, raw, soup;
          double overhead;

          if (!measure_op (n, lb_ops[k], name, payloads[p], payloads[p], 1, &opt, &lb, error)
              || !measure_op (n, raw_ops[k], NULL, payloads[p], payloads[p], 1, &opt, &raw, error)
              || !measure_op (n, soup_ops[k], NULL, payloads[p], payloads[p], 1, &opt, &soup, error))
            return FALSE;
          overhead = lb.median - raw.median;
          *worst_overhead = MAX (*worst_overhead, overhead);
          fprintf (stderr, "transaction %-7s %5u B  lightbox %.4f ms (p90 %.4f, max %.3f)  raw %.4f ms  "
                   "libsoup %.4f ms\n", kinds[k], payloads[p], lb.median, lb.p90, lb.max, raw.median,
                   soup.median);
          lb_measure_table_add_row_take (table, g_strdup (kinds[k]), g_strdup_printf ("%u", payloads[p]),
                                         lb_bench_fmt (lb.median), lb_bench_fmt (lb.p90),
                                         lb_bench_fmt (lb.max), lb_bench_fmt (raw.median),
                                         lb_bench_fmt (raw.p90), lb_bench_fmt (soup.median),
                                         g_strdup_printf ("%u", lb.n),
                                         lb_bench_fmt (overhead),
                                         lb_bench_fmt (soup.median - raw.median),
                                         g_strdup (overhead <= 0.1 ? "yes" : "NO"), NULL);
          lb_bench_plot_add_point (plot, series[k], payloads[p], lb.median);
          lb_bench_plot_add_point (plot, series[3 + k], payloads[p], raw.median);
          lb_bench_plot_add_point (plot, series[6 + k], payloads[p], soup.median);
        }
    }
  return TRUE;
}

static gboolean
files_section (Net *n, gboolean have_curl, LbMeasureTable *table, GError **error)
{
  static const gsize files[] = { 1024, 512 * 1024, 1024 * 1024 };
  static const gsize buffers[] = { 1024, 512 * 1024, 1024 * 1024 };
  LbMeasureOptions opt = n->quick ? (LbMeasureOptions) { 1, 3, 6, 0.3, 0.1 }
                                : (LbMeasureOptions) { 1, 5, 30, 2.0, 0.05 };

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *name = g_strdup_printf ("file-%zu.bin", files[f]);
      g_autofree char *up_name = g_strdup_printf ("file-up-%zu.bin", files[f]);
      g_autofree char *fl = size_label (files[f]);
      LbMeasureStats curl[2] = { { 0 }, { 0 } };

      if (!put_file (n, name, files[f], error))
        return FALSE;
      for (int dir = 0; have_curl && dir < 2; dir++)
        if (!measure_op (n, dir == 0 ? OP_CURL_UP : OP_CURL_DOWN, dir == 0 ? "file-curl.bin" : name,
                         files[f], files[f], 1, &opt, &curl[dir], error))
          return FALSE;
      for (guint b = 0; b < G_N_ELEMENTS (buffers); b++)
        for (int dir = 0; dir < 2; dir++)
          {
            g_autofree char *bl = size_label (buffers[b]);
            LbMeasureStats lb, raw;

            if (!measure_op (n, dir == 0 ? OP_LB_UP : OP_LB_DOWN, dir == 0 ? up_name : name, files[f],
                             buffers[b], 1, &opt, &lb, error)
                || !measure_op (n, dir == 0 ? OP_RAW_UP : OP_RAW_DOWN, NULL, files[f], buffers[b], 1,
                                &opt, &raw, error))
              return FALSE;
            fprintf (stderr, "file %-7s buffer %-7s %-8s lightbox %.3f ms  raw %.3f ms  curl %.3f ms\n",
                     fl, bl, dir == 0 ? "upload" : "download", lb.median, raw.median, curl[dir].median);
            lb_measure_table_add_row_take (table, g_strdup (fl), g_strdup (bl),
                                           g_strdup (dir == 0 ? "upload" : "download"),
                                           lb_bench_fmt (lb.median), lb_bench_fmt (raw.median),
                                           have_curl ? lb_bench_fmt (curl[dir].median) : g_strdup (""),
                                           lb_bench_fmt (mb_per_s (files[f], lb.median)),
                                           lb_bench_fmt (lb.median / raw.median),
                                           have_curl ? lb_bench_fmt (lb.median / curl[dir].median) : g_strdup (""),
                                           NULL);
          }
    }
  return TRUE;
}

int
lb_bench_net_main (int argc, char **argv)
{
  Net n = { 0 };
  gboolean quick = FALSE;
  g_autofree char *out_dir = NULL;
  g_autofree char *markdown = NULL;
  g_autofree char *command = lb_bench_command_line (argc, argv);
  int ttcp_mb = 0;
  g_autofree char *only = NULL;
  GOptionEntry entries[] = {
    { "only", 0, 0, G_OPTION_ARG_STRING, &only, "Run one section only (for profiling)", "ttcp|transactions|files" },
    { "quick", 'q', 0, G_OPTION_ARG_NONE, &quick, "A 8 MB TTCP image and fewer runs", NULL },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out_dir, "Directory for CSV, JSON, SVG and PNG (default bench-results)", "DIR" },
    { "ttcp-mb", 0, 0, G_OPTION_ARG_INT, &ttcp_mb, "TTCP image size in MB (default 64, 8 with --quick)", "N" },
    { "markdown", 0, 0, G_OPTION_ARG_FILENAME, &markdown, "Also write the tables as markdown, headed by the command, commit and machine", "FILE" },
    { NULL },
  };
  g_autoptr (GOptionContext) octx = g_option_context_new ("- network measurements on loopback");
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (LbStoreOptions) sopt = NULL;
  static const char *const ttcp_cols[] = { "buffer_kb", "direction", "lightbox_ms", "raw_ms",
                                           "libsoup_ms", "lightbox_mb_per_s", "raw_mb_per_s",
                                           "libsoup_mb_per_s", "lightbox_over_raw",
                                           "libsoup_over_raw", NULL };
  static const char *const tx_cols[] = { "transaction", "payload_bytes", "lightbox_ms",
                                         "lightbox_p90_ms", "lightbox_max_ms", "raw_ms", "raw_p90_ms",
                                         "libsoup_ms", "samples", "overhead_ms",
                                         "libsoup_overhead_ms", "overhead_le_0.1ms", NULL };
  static const char *const file_cols[] = { "file", "buffer", "direction", "lightbox_ms", "raw_ms",
                                           "curl_ms", "lightbox_mb_per_s", "lightbox_over_raw",
                                           "lightbox_over_curl", NULL };
  static const char *const target_cols[] = { "target", "measured", "met", NULL };
  g_autoptr (LbMeasureTable) t_ttcp = NULL;
  g_autoptr (LbMeasureTable) t_tx = NULL;
  g_autoptr (LbMeasureTable) t_file = lb_measure_table_new ("File transfer: ms per file (curl: its own "
                                                            "time_total, new connection per run, no start-up)", file_cols);
  g_autoptr (LbMeasureTable) t_target = lb_measure_table_new ("Targets", target_cols);
  g_autoptr (LbBenchPlot) p_ttcp = NULL;
  g_autoptr (LbBenchPlot) p_tx = lb_bench_plot_new ("Transactions on a keep-alive connection",
                                                    "payload (bytes)", "ms per transaction");
  double ratio_up = NAN, ratio_down = NAN, updown = NAN, overhead = NAN;
  guint64 image_bytes;
  g_autofree char *curl = g_find_program_in_path ("curl");
  gboolean ok;
  int rc = 0;

  g_option_context_add_main_entries (octx, entries, NULL);
  if (!g_option_context_parse (octx, &argc, &argv, &error))
    {
      fprintf (stderr, "lightbox-bench net: %s\n", error->message);
      return 2;
    }
  if (ttcp_mb < 0 || ttcp_mb > 4000)
    {
      fprintf (stderr, "lightbox-bench net: --ttcp-mb must be 1 … 4000\n");
      return 2;
    }
  if (only != NULL && strcmp (only, "ttcp") != 0 && strcmp (only, "transactions") != 0
      && strcmp (only, "files") != 0)
    {
      fprintf (stderr, "lightbox-bench net: --only takes ttcp, transactions or files\n");
      return 2;
    }
  if (out_dir == NULL)
    out_dir = g_strdup ("bench-results");
  image_bytes = (guint64) (ttcp_mb > 0 ? ttcp_mb : quick ? 8 : 64) << 20;
  {
    g_autofree char *il = size_label (image_bytes);
    g_autofree char *title = g_strdup_printf ("TTCP: %s image, throughput against sender buffer size",
                                              il);
    t_ttcp = lb_measure_table_new (title, ttcp_cols);
    p_ttcp = lb_bench_plot_new (title, "buffer (KB)", "MB/s");
  }
  {
    t_tx = lb_measure_table_new ("Transactions on one keep-alive connection: ms each (median of "
                                 "single transactions; overhead = Lightbox − raw)", tx_cols);
  }
  lb_bench_plot_set_log (p_ttcp, TRUE, FALSE);
  lb_bench_plot_set_log (p_tx, TRUE, TRUE);  /* raw ≈ 0.03 ms, Lightbox ≈ 1 ms */
  n.quick = quick;
  n.notes = notes;
  n.raw_fd = -1;
  n.context = g_main_context_new ();
  g_main_context_push_thread_default (n.context);

  ok = server_start (&n, &error);
  if (ok)
    ok = (n.raw = lb_raw_server_start (&error)) != NULL
         && (n.raw_fd = lb_raw_connect (lb_raw_server_get_port (n.raw), &error)) >= 0;
  if (ok)
    ok = (n.soupmin = lb_soup_min_server_start ((gsize) image_bytes, &error)) != NULL;
  if (ok)
    {
      n.soup = soup_session_new ();
      n.soup_url = g_strdup_printf ("http://127.0.0.1:%u/", lb_soup_min_server_get_port (n.soupmin));
      sopt = lb_store_options_new ();
      sopt->type = g_strdup ("webdav");
      n.store = lb_store_new_for_uri (n.url, sopt, &error);
      ok = n.store != NULL;
    }
  if (ok)
    {
      fprintf (stderr, "lightbox-store at %s (root %s), raw TCP on 127.0.0.1:%u\n", n.url, n.root,
               lb_raw_server_get_port (n.raw));
      ok = ((only != NULL && strcmp (only, "ttcp") != 0)
            || ttcp_section (&n, image_bytes, t_ttcp, p_ttcp, &ratio_up, &ratio_down, &updown, &error))
           && ((only != NULL && strcmp (only, "transactions") != 0)
               || transactions_section (&n, t_tx, p_tx, &overhead, &error))
           && ((only != NULL && strcmp (only, "files") != 0)
               || files_section (&n, curl != NULL, t_file, &error));
    }
  if (!ok)
    {
      fprintf (stderr, "lightbox-bench net: %s\n", error->message);
      rc = 1;
    }

  g_clear_object (&n.store);
  g_clear_object (&n.soup);
  g_clear_pointer (&n.soup_url, g_free);
  if (n.raw_fd >= 0)
    close (n.raw_fd);
  lb_raw_server_stop (n.raw);
  lb_soup_min_server_stop (n.soupmin);
  server_stop (&n);
  /* Let libsoup finish closing its connections before the context goes. */
  while (g_main_context_iteration (n.context, FALSE))
    ;
  g_main_context_pop_thread_default (n.context);
  g_main_context_unref (n.context);
  if (rc != 0)
    return rc;

  lb_measure_table_add_row_take (t_target, g_strdup ("upload ≥ 80% of raw TCP, buffers ≥ 16 KB (worst)"),
                                 g_strdup_printf ("%.0f%%", 100 * ratio_up),
                                 g_strdup (ratio_up >= 0.8 ? "yes" : "NO"), NULL);
  lb_measure_table_add_row_take (t_target, g_strdup ("download ≥ 80% of raw TCP, buffers ≥ 16 KB (worst)"),
                                 g_strdup_printf ("%.0f%%", 100 * ratio_down),
                                 g_strdup (ratio_down >= 0.8 ? "yes" : "NO"), NULL);
  lb_measure_table_add_row_take (t_target, g_strdup ("upload and download within 20%, buffers ≥ 16 KB (worst faster/slower)"),
                                 g_strdup_printf ("%.2f×", updown),
                                 g_strdup (updown <= 1.2 ? "yes" : "NO"), NULL);
  lb_measure_table_add_row_take (t_target, g_strdup ("overhead per transaction over raw sockets ≤ 0.1 ms (worst)"),
                                 g_strdup_printf ("%.3f ms", overhead),
                                 g_strdup (overhead <= 0.1 ? "yes" : "NO"), NULL);

  g_ptr_array_add (notes, g_strdup ("Lightbox = LbStore (webdav backend, libsoup 3) against lightbox-store "
                                    "(child process, --port 0, root on /dev/shm when available); raw = "
                                    "a C TTCP over 127.0.0.1 (thread per connection, TCP_NODELAY); "
                                    "libsoup = a plain SoupSession against a minimal SoupServer in this "
                                    "process (bodies dropped / served from memory): libsoup's own floor"));
  g_ptr_array_add (notes, g_strdup_printf ("LbStore takes streams, not buffer sizes: downloads read its stream "
                                           "with read calls of the buffer size; uploads hand it a source "
                                           "stream yielding at most the buffer size per read, and the HTTP "
                                           "stack asked for at most %zu bytes per read", n.max_upload_request));
  g_ptr_array_add (notes, g_strdup ("Lightbox and raw TCP each keep one connection alive for the whole run "
                                    "(as users' sessions do); curl opens a new one per run"));
  g_ptr_array_add (notes, g_strdup ("transactions: request = N bytes up, small reply; reply = small "
                                    "request, N bytes down; update = GET then PUT If-Match with its "
                                    "ETag (raw: the same two exchanges)"));
  if (curl == NULL)
    g_ptr_array_add (notes, g_strdup ("curl not installed: no curl baseline"));

  lb_measure_table_print (t_ttcp, stdout);
  lb_measure_table_print (t_tx, stdout);
  lb_measure_table_print (t_file, stdout);
  lb_measure_table_print (t_target, stdout);
  printf ("\nNotes:\n");
  for (guint i = 0; i < notes->len; i++)
    printf ("  - %s\n", (char *) notes->pdata[i]);
  {
    const char *keys[] = { "ttcp", "transactions", "files", "targets", NULL };
    LbMeasureTable *tables[] = { t_ttcp, t_tx, t_file, t_target, NULL };
    g_autofree char *b1 = g_strdup_printf ("%s/net-ttcp", out_dir);
    g_autofree char *b2 = g_strdup_printf ("%s/net-transactions", out_dir);

    if (!lb_bench_write_results (out_dir, "net", keys, tables, notes, &error)
        || (markdown != NULL && !lb_bench_write_markdown (markdown, command, tables, notes, &error))
        || !lb_bench_plot_save (p_ttcp, b1, &error) || !lb_bench_plot_save (p_tx, b2, &error))
      {
        fprintf (stderr, "lightbox-bench net: %s\n", error->message);
        return 1;
      }
  }
  printf ("\nWrote %s/net.json, net-*.csv, net-ttcp.{svg,png}, net-transactions.{svg,png}\n", out_dir);
  if (markdown != NULL)
    printf ("Wrote %s\n", markdown);
  return 0;
}
