/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lightbox-filter-host"

/*
 * lightbox-filter-host: runs the passes of ONE untrusted filter plugin on behalf of
 * Lightbox, so that a crash, an exit() or an endless loop in the plugin kills this process
 * and not the workstation. Started by lb-isolation.c with
 *
 *     lightbox-filter-host --plugin ORIGIN      fd 3: SOCK_SEQPACKET socket, fd 4: the plugin
 *     lightbox-filter-host --probe --plugin ORIGIN          fd 4: the plugin
 *
 * and in both forms fd 5, where a crash leaves its report (lb-crash-report.h).
 *
 * The second form only loads, validates and unloads the plugin and exits 0: Lightbox runs it
 * before it loads an isolated plugin itself, so that a plugin that crashes, exits or hangs
 * while loading is refused instead of taking Lightbox down (lb-isolation.c).
 *
 * ORIGIN is only the name used in messages; the code is loaded from fd 4, the registry's
 * private copy, so it is exactly the code whose descriptors Lightbox shows. Passes run with
 * the engine's own pipeline (lb-pipeline.c), isolation off, so bands, threads and results are
 * those of an in-process pass. GLib only; no GTK. Protocol: lb-filter-host-proto.h.
 *
 * The main thread only reads requests: when Lightbox closes the socket (or dies), it sees
 * end-of-file and _exit()s at once, even while a pass thread is stuck in plugin code.
 */

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <gio/gunixfdmessage.h>

#include "lb-crash-report.h"
#include "lb-crew.h"
#include "lb-error.h"
#include "lb-filter-host-proto.h"
#include "lb-pipeline.h"
#include "lb-plugin-loader.h"

static GSocket *sock;
static GMutex send_lock;
static GPtrArray *filters;   /* LbFilter, NULL if loading failed */
static GError *load_error;

typedef struct {
  LbFhRun run;
  char *id;
  GBytes *params;
  GVariant *meta;   /* (a{sv}a{sv}): the source's and the second image's */
  int src_fd;
  int dst_fd;
  int aux_fd;       /* -1 unless the filter reads two images */
} Job;

static void
job_free (Job *job)
{
  g_free (job->id);
  g_clear_pointer (&job->params, g_bytes_unref);
  g_clear_pointer (&job->meta, g_variant_unref);
  if (job->src_fd >= 0)
    close (job->src_fd);
  if (job->dst_fd >= 0)
    close (job->dst_fd);
  if (job->aux_fd >= 0)
    close (job->aux_fd);
  g_free (job);
}

/* Sends @reply; with @fd ≥ 0, that descriptor along (a DONE of another geometry). */
static void
send_reply_fd (const LbFhReply *reply,
               const GError    *error,
               int              fd)
{
  g_autoptr(GSocketControlMessage) fds = fd >= 0 ? g_unix_fd_message_new () : NULL;
  g_autoptr(GError) local = NULL;
  LbFhReply r = *reply;
  const char *domain = error ? g_quark_to_string (error->domain) : "";
  const char *message = error ? error->message : "";
  gsize message_len = MIN (strlen (message), (gsize) LB_FH_MAX_MESSAGE / 2);
  GOutputVector vec[3];

  r.magic = LB_FH_MAGIC;
  r.domain_len = (guint32) strlen (domain);
  r.message_len = (guint32) message_len;
  vec[0] = (GOutputVector) { &r, sizeof r };
  vec[1] = (GOutputVector) { domain, r.domain_len };
  vec[2] = (GOutputVector) { message, r.message_len };
  if (fds != NULL && !g_unix_fd_message_append_fd (G_UNIX_FD_MESSAGE (fds), fd, &local))
    {
      g_debug ("cannot send the output: %s", local->message);
      g_clear_error (&local);
      g_clear_object (&fds);
    }
  g_mutex_lock (&send_lock);
  if (g_socket_send_message (sock, NULL, vec, 3, fds ? &fds : NULL, fds ? 1 : 0, 0, NULL,
                             &local) < 0)
    {
      /* Lightbox went away; the main thread exits on end-of-file. */
      g_debug ("cannot reply: %s", local->message);
    }
  g_mutex_unlock (&send_lock);
}

static void
send_reply (const LbFhReply *reply,
            const GError    *error)
{
  send_reply_fd (reply, error, -1);
}

static void
send_error (const GError *error)
{
  LbFhReply r = { 0 };

  r.type = LB_FH_ERROR;
  r.code = error->code;
  send_reply (&r, error);
}

static void
progress_cb (double   fraction,
             gpointer data)
{
  LbFhReply r = { 0 };

  r.type = LB_FH_PROGRESS;
  r.fraction = fraction;
  send_reply (&r, NULL);
}

static LbFilter *
find_filter (const char *id)
{
  for (guint i = 0; filters != NULL && i < filters->len; i++)
    if (g_str_equal (lb_filter_get_id (g_ptr_array_index (filters, i)), id))
      return g_ptr_array_index (filters, i);
  return NULL;
}

static gboolean
fd_size_at_least (int     fd,
                  guint64 size)
{
  struct stat st;

  return fstat (fd, &st) == 0 && st.st_size >= 0 && (guint64) st.st_size >= size;
}

/* The second image of the request, with its metadata. */
static gboolean
map_aux (Job       *job,
         GVariant  *dict,
         LbImage  **aux,
         GError   **error)
{
  const LbFhRun *run = &job->run;
  g_autoptr(LbImageMeta) meta = _lb_fh_meta_from_variant (dict);
  g_autoptr(GBytes) pixels = NULL;

  if (run->aux_format >= LB_N_FORMATS || run->aux_height == 0 || job->aux_fd < 0
      || !fd_size_at_least (job->aux_fd, run->aux_size))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "bad second image in the request");
      return FALSE;
    }
  pixels = _lb_fh_map_bytes (job->aux_fd, run->aux_size, "the second image", error);
  if (pixels == NULL)
    return FALSE;
  /* lb_image_new() checks that the size, stride and format fit the bytes */
  *aux = lb_image_new (run->aux_width, run->aux_height, run->aux_format, run->aux_stride,
                       pixels, meta, error);
  return *aux != NULL;
}

/* An output whose geometry differs from the request's: its pixels in a new memfd of packed
 * rows (written, never mapped here, so Lightbox can seal it), described in @reply. */
static int
output_fd_new (LbImage   *output,
               LbFhReply *reply,
               GError   **error)
{
  gsize row = lb_image_get_row_size (output);
  guint height = lb_image_get_height (output);
  const LbImageMeta *meta = lb_image_get_meta (output);
  int fd = memfd_create ("lightbox-filter-output", MFD_CLOEXEC | MFD_ALLOW_SEALING);

  if (fd < 0 || ftruncate (fd, (off_t) (row * height)) != 0)
    goto fail;
  for (guint y = 0; y < height; y++)
    if (pwrite (fd, lb_image_get_row (output, y), row, (off_t) (row * y)) != (gssize) row)
      goto fail;
  reply->out_format = lb_image_get_format (output);
  reply->out_width = lb_image_get_width (output);
  reply->out_height = height;
  reply->out_stride = row;
  if (!lb_image_meta_get_pixel_spacing (meta, &reply->out_spacing_x, &reply->out_spacing_y))
    reply->out_spacing_x = reply->out_spacing_y = 0;
  return fd;

fail:
  {
    int saved = errno;
    if (fd >= 0)
      close (fd);
    g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                 "cannot share the output: %s", g_strerror (saved));
    return -1;
  }
}

static gboolean
run_job (Job       *job,
         LbFhReply *reply,
         int       *out_fd,
         GError   **error)
{
  const LbFhRun *run = &job->run;
  LbFilter *filter;
  g_autoptr(LbImage) input = NULL;
  g_autoptr(LbImage) output = NULL;
  g_autoptr(LbFilterParams) params = NULL;
  g_autoptr(LbPipeline) pipe = NULL;
  g_autoptr(GPtrArray) timings = NULL;
  g_autoptr(GBytes) src = NULL;
  g_autoptr(LbImage) aux = NULL;
  g_autoptr(LbImageMeta) src_meta = NULL;
  g_autoptr(GVariant) src_dict = NULL;
  g_autoptr(GVariant) aux_dict = NULL;
  guint8 *dst;
  gsize dst_size;
  gboolean ok;

  if (load_error != NULL)
    {
      *error = g_error_copy (load_error);
      return FALSE;
    }
  filter = find_filter (job->id);
  if (filter == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_NOT_FOUND, "the plugin has no filter %s", job->id);
      return FALSE;
    }
  if (run->format >= LB_N_FORMATS || run->width == 0 || run->height == 0 || run->src_size == 0
      || !fd_size_at_least (job->src_fd, run->src_size))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, "bad source in the request");
      return FALSE;
    }
  src = _lb_fh_map_bytes (job->src_fd, run->src_size, "the source", error);
  if (src == NULL)
    return FALSE;
  g_variant_get (job->meta, "(@a{sv}@a{sv})", &src_dict, &aux_dict);
  src_meta = _lb_fh_meta_from_variant (src_dict);
  input = lb_image_new (run->width, run->height, run->format, run->src_stride, src, src_meta,
                        error);
  if (input == NULL)
    return FALSE;
  if (run->aux_width > 0 && !map_aux (job, aux_dict, &aux, error))
    return FALSE;

  params = lb_filter_params_new (filter);
  if (job->params != NULL && g_bytes_get_size (job->params) > 0
      && !lb_filter_params_set_variant (params,
                                        g_variant_new_from_bytes (G_VARIANT_TYPE ("a{sv}"),
                                                                  job->params, FALSE),
                                        error))
    return FALSE;

  dst_size = (gsize) run->dst_stride * run->height;
  if (run->dst_stride < lb_image_get_row_size (input) || dst_size / run->height != run->dst_stride
      || !fd_size_at_least (job->dst_fd, dst_size))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, "bad destination in the request");
      return FALSE;
    }
  dst = mmap (NULL, dst_size, PROT_READ | PROT_WRITE, MAP_SHARED, job->dst_fd, 0);
  if (dst == MAP_FAILED)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot map the destination: %s", g_strerror (saved));
      return FALSE;
    }

  pipe = lb_pipeline_new (NULL);
  lb_pipeline_set_isolation (pipe, LB_ISOLATION_NONE);
  lb_pipeline_set_n_threads (pipe, run->n_threads);
  lb_pipeline_set_band_height (pipe, run->band_height);
  lb_pipeline_set_seed (pipe, run->seed);
  lb_pipeline_set_aux_input (pipe, aux);
  if (run->has_selection)
    lb_pipeline_set_selection (pipe, &run->selection);
  lb_pipeline_set_progress_func (pipe, progress_cb, NULL, NULL);
  /* The watchdog counts bands finished by any thread (send_reply() is thread-safe). */
  _lb_pipeline_set_progress_any_thread (pipe, TRUE);
  /* The pass writes straight into Lightbox's shared memory. */
  _lb_pipeline_set_output_buffer (pipe, dst, run->dst_stride, dst_size);
  if (lb_pipeline_append (pipe, filter, params, error))
    output = lb_pipeline_run (pipe, input, &timings, NULL, error);
  ok = output != NULL;
  if (output != NULL
      && (lb_image_get_width (output) != run->width || lb_image_get_height (output) != run->height
          || lb_image_get_format (output) != run->format))
    {
      /* a filter with its own output geometry (LB_FILTER_FLAG_GEOMETRY) */
      *out_fd = output_fd_new (output, reply, error);
      ok = *out_fd >= 0;
    }
  else if (output != NULL && lb_image_get_data (output) != dst)
    {
      /* Not expected (one pass always uses the buffer), but stay correct if it did not. */
      for (guint y = 0; y < run->height; y++)
        memcpy (dst + (gsize) y * run->dst_stride, lb_image_get_row (output, y),
                lb_image_get_row_size (output));
    }
  g_clear_object (&output);
  munmap (dst, dst_size);
  if (!ok)
    return FALSE;
  if (timings != NULL && timings->len > 0)
    {
      LbPassTiming *t = g_ptr_array_index (timings, 0);
      reply->threads = t->threads;
      reply->bands = t->bands;
    }
  return TRUE;
}

static gpointer
job_thread (gpointer data)
{
  Job *job = data;
  g_autoptr(GError) error = NULL;
  LbFhReply r = { 0 };
  int out_fd = -1;

  /* prepare() and finish() run on this thread, bands also on the crew's */
  _lb_crash_report_thread_init ();
  if (run_job (job, &r, &out_fd, &error))
    {
      r.type = LB_FH_DONE;
      send_reply_fd (&r, NULL, out_fd);
      if (out_fd >= 0)
        close (out_fd);
    }
  else
    send_error (error);
  job_free (job);
  return NULL;
}

/* Parses one RUN datagram; takes the descriptors. NULL for anything malformed. */
static Job *
parse_job (const guint8           *buf,
           gsize                   n,
           GSocketControlMessage **messages,
           int                     n_messages)
{
  Job *job = g_new0 (Job, 1);
  int n_fds = 0;
  int *fds = NULL;

  job->src_fd = job->dst_fd = job->aux_fd = -1;
  for (int i = 0; i < n_messages; i++)
    if (G_IS_UNIX_FD_MESSAGE (messages[i]) && fds == NULL)
      fds = g_unix_fd_message_steal_fds (G_UNIX_FD_MESSAGE (messages[i]), &n_fds);
  for (int i = 3; i < n_fds; i++)
    close (fds[i]);
  if (n_fds >= 2)
    {
      job->src_fd = fds[0];
      job->dst_fd = fds[1];
      job->aux_fd = n_fds >= 3 ? fds[2] : -1;
    }
  else if (n_fds == 1)
    close (fds[0]);
  g_free (fds);

  if (n < sizeof job->run || job->src_fd < 0)
    goto bad;
  memcpy (&job->run, buf, sizeof job->run);
  if (job->run.magic != LB_FH_MAGIC || job->run.version != LB_FH_VERSION
      || job->run.type != LB_FH_RUN || job->run.id_len == 0 || job->run.id_len > 1024
      || n != sizeof job->run + (gsize) job->run.id_len + job->run.params_len
               + job->run.meta_len)
    goto bad;
  job->id = g_strndup ((const char *) buf + sizeof job->run, job->run.id_len);
  job->params = g_bytes_new (buf + sizeof job->run + job->run.id_len, job->run.params_len);
  {
    g_autoptr(GBytes) meta = g_bytes_new (buf + sizeof job->run + job->run.id_len
                                          + job->run.params_len, job->run.meta_len);

    job->meta = g_variant_ref_sink (g_variant_new_from_bytes (G_VARIANT_TYPE ("(a{sv}a{sv})"),
                                                              meta, FALSE));
  }
  return job;

bad:
  job_free (job);
  return NULL;
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *plugin = NULL;
  g_autofree char *open_path = NULL;
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree guint8 *buf = NULL;
  GThread *job = NULL;
  gboolean probe = FALSE;
  const GOptionEntry entries[] = {
    { "plugin", 0, 0, G_OPTION_ARG_FILENAME, &plugin, "The plugin's file, for messages",
      "PATH" },
    { "probe", 0, 0, G_OPTION_ARG_NONE, &probe,
      "Only load, validate and unload the plugin (no socket), then exit 0", NULL },
    { NULL },
  };

  setlocale (LC_ALL, "");
  context = g_option_context_new ("- run one Lightbox filter plugin for Lightbox");
  g_option_context_set_description (context,
                                    "Started by Lightbox with a socket on fd 3 and the plugin "
                                    "on fd 4; not meant to be run by hand.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || plugin == NULL)
    {
      g_printerr ("lightbox-filter-host: %s\n", error ? error->message : "--plugin is required");
      return 2;
    }
  open_path = g_strdup_printf ("/proc/self/fd/%d", LB_FH_PLUGIN_FD);
  /* Before any plugin code runs, constructors included. Without fd 5 (started by hand) a
   * crash is just a crash. */
  if (fcntl (LB_FH_CRASH_FD, F_GETFD) >= 0)
    {
      _lb_crash_report_install (LB_FH_CRASH_FD);
      _lb_crew_set_thread_init (_lb_crash_report_thread_init);
    }
  if (probe)
    {
      /* lb-isolation.c's check before Lightbox loads the plugin itself: the plugin's
       * constructors, query function and destructors run here. A descriptor that fails
       * validation is not this check's business (Lightbox finds it, safely, and says
       * precisely what is wrong), so any load that returns counts. _exit(): nothing of
       * ours needs flushing, and leak checkers at exit must not change the status. */
      filters = _lb_plugin_load_module (open_path, plugin, -1, &load_error);
      g_clear_pointer (&filters, g_ptr_array_unref);
      _exit (0);
    }
  sock = g_socket_new_from_fd (LB_FH_SOCKET_FD, &error);
  if (sock == NULL)
    {
      g_printerr ("lightbox-filter-host: fd %d: %s\n", LB_FH_SOCKET_FD, error->message);
      return 2;
    }
  /* Register the error quark from the host's copy of its name (see lb-filter-registry.c). */
  (void) lb_error_quark ();
  filters = _lb_plugin_load_module (open_path, plugin, -1, &load_error);
  if (filters == NULL)
    g_prefix_error (&load_error, "%s: ", plugin);
  close (LB_FH_PLUGIN_FD);

  buf = g_malloc (LB_FH_MAX_MESSAGE);
  for (;;)
    {
      GInputVector vec = { buf, LB_FH_MAX_MESSAGE };
      GSocketControlMessage **messages = NULL;
      int n_messages = 0, flags = 0;
      gssize n;
      Job *parsed;

      g_clear_error (&error);
      n = g_socket_receive_message (sock, NULL, &vec, 1, &messages, &n_messages, &flags, NULL,
                                    &error);
      if (n <= 0)
        {
          /* Lightbox closed the socket or died: leave now, without running atexit handlers
           * or module destructors while a pass thread may still be inside the plugin. */
          _exit (0);
        }
      parsed = parse_job (buf, (gsize) n, messages, n_messages);
      for (int i = 0; i < n_messages; i++)
        g_object_unref (messages[i]);
      g_free (messages);
      if (parsed == NULL || (flags & MSG_TRUNC) != 0)
        {
          g_printerr ("lightbox-filter-host: malformed request\n");
          _exit (3);
        }
      /* Lightbox sends the next request only after DONE or ERROR, so the previous pass
       * has finished apart from freeing its memory. */
      if (job != NULL)
        g_thread_join (job);
      job = g_thread_new ("lb-filter-host", job_thread, parsed);
    }
}
