/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-isolation"

/*
 * Out-of-process filter passes: a plugin that is not shipped with Lightbox runs in a
 * lightbox-filter-host helper (one per loaded plugin module, kept for the next pass), so a
 * crash, an exit() or an endless loop inside it costs one failed pass instead of the
 * workstation. The helper runs the very same pipeline code (lb-pipeline.c) on the same
 * bands and threads, so its output is byte-identical to an in-process pass.
 *
 * Pixels go through two memfds (source sealed read-only, destination with a sealed size so
 * the helper cannot make Lightbox fault by shrinking it); the socket carries only small
 * messages, see lb-filter-host-proto.h.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gio/gunixfdmessage.h>

#include "lb-crash-report.h"
#include "lb-error.h"
#include "lb-filter-host-proto.h"
#include "lb-filter-image.h"
#include "lb-isolation.h"
#include "lb-limits.h"
#include "lb-plugin-loader.h"
#include "lb-python-filter.h"

/* Between a crash's message and the helper's backtrace (lb-crash-report.h). */
#define BACKTRACE_HEADING "\nBacktrace of the helper process, innermost call first:\n"

/* How long a helper whose socket closed gets to be reaped before it is killed, ms. Its
 * socket closes when the kernel tears the process down, so this is normally immediate. */
#define REAP_GRACE_MS 2000
/* How long a cancelled Python pass gets to end by itself (its module polls
 * meta["cancelled"]()) before its process is killed, ms: a user who pressed Escape waits
 * this long at most, and a module that polls keeps its warm process (python3 and numpy
 * take 0.1-0.2 s to start again). */
#define CANCEL_GRACE_MS 300

static const char *
helper_path (void)
{
  const char *env = g_getenv ("LIGHTBOX_FILTER_HOST");

  if (env != NULL && *env != '\0')
    return env;
  if (_lb_isolation_running_from_build_tree ())
    return LB_BUILD_ROOT "/src/engine/lightbox-filter-host";
  return LB_LIBEXECDIR "/lightbox-filter-host";
}

/* ------------------------------------------------------------------------------------------ */
/* Helper processes                                                                            */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  gpointer module;    /* the LbPluginModule it serves (a key, not a reference) */
  GSubprocess *proc;
  GSocket *sock;
  int crash_fd;       /* where it writes a crash report (its LB_FH_CRASH_FD), or -1 */
} Helper;

/* Idle helpers, one per module at most: module → Helper. */
static GMutex pool_lock;
static GHashTable *pool;

static void
helper_free (Helper *h)
{
  if (h == NULL)
    return;
  g_clear_object (&h->sock);
  g_clear_object (&h->proc);
  if (h->crash_fd >= 0)
    close (h->crash_fd);
  g_free (h);
}

/* SIGKILL, for a helper that is stuck, cancelled or no longer trusted to behave. GSubprocess
 * reaps it in the background. */
static void
helper_kill (Helper *h)
{
  if (h == NULL)
    return;
  if (h->sock != NULL)
    g_socket_close (h->sock, NULL);
  if (h->proc != NULL)
    g_subprocess_force_exit (h->proc);
  helper_free (h);
}

static void
pool_destroy_helper (gpointer data)
{
  /* An idle helper exits by itself once its socket closes; kill it anyway, it may be a
   * plugin's zombie thread that ignores that. */
  helper_kill (data);
}

static Helper *
pool_take (gpointer module)
{
  Helper *h = NULL;

  g_mutex_lock (&pool_lock);
  if (pool != NULL && g_hash_table_steal_extended (pool, module, NULL, (gpointer *) &h))
    g_debug ("Reusing helper %s", g_subprocess_get_identifier (h->proc));
  g_mutex_unlock (&pool_lock);
  return h;
}

static void
pool_put (Helper *h)
{
  g_mutex_lock (&pool_lock);
  if (pool == NULL)
    pool = g_hash_table_new_full (NULL, NULL, NULL, pool_destroy_helper);
  if (g_hash_table_contains (pool, h->module))
    {
      /* Two passes of one plugin ran at once; one idle helper is enough. */
      g_mutex_unlock (&pool_lock);
      helper_kill (h);
      return;
    }
  g_hash_table_insert (pool, h->module, h);
  g_mutex_unlock (&pool_lock);
}

void
_lb_isolation_forget_module (gpointer module)
{
  Helper *h = pool_take (module);

  helper_kill (h);
}

/* A private copy of @fd numbered ≥ 10, so the launcher's moves to 3 and 4 never overlap. */
static int
dup_high (int fd)
{
  return fcntl (fd, F_DUPFD_CLOEXEC, 10);
}

/* An empty memfd for a helper's crash report, or -1: the report is a diagnostic, a pass
 * runs without it. */
static int
crash_report_fd_new (void)
{
  int fd = memfd_create ("lightbox-filter-crash-report", MFD_CLOEXEC);

  if (fd < 0)
    g_debug ("no crash report: %s", g_strerror (errno));
  return fd;
}

/* A launcher for lightbox-filter-host with the plugin @plugin_fd (taken) as its fd 4, and
 * a copy of @crash_fd (if ≥ 0) as its fd 5. A plugin's printf() must not end up in
 * Lightbox's stdout (lightbox-cli may write data there): the helper's stdout is our
 * stderr. */
static GSubprocessLauncher *
helper_launcher_new (int plugin_fd,
                     int crash_fd)
{
  GSubprocessLauncher *launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  int out = dup_high (STDERR_FILENO);
  int crash = crash_fd >= 0 ? dup_high (crash_fd) : -1;

  g_subprocess_launcher_take_fd (launcher, plugin_fd, LB_FH_PLUGIN_FD);
  if (crash >= 0)
    g_subprocess_launcher_take_fd (launcher, crash, LB_FH_CRASH_FD);
  if (out >= 0)
    g_subprocess_launcher_take_stdout_fd (launcher, out);
  return launcher;
}

static Helper *
helper_spawn (LbFilter *filter,
              GError  **error)
{
  gpointer module = _lb_filter_get_owner (filter);
  gboolean python = lb_filter_get_kind (filter) == LB_FILTER_KIND_PYTHON;
  int module_fd = python ? _lb_python_module_get_fd (module) : _lb_plugin_module_get_fd (module);
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_auto(GStrv) py_argv = NULL;
  const char *path = helper_path ();
  Helper *h;
  int sv[2], child_sock, plugin_fd;

  if (module_fd < 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                   "plugin %s cannot run isolated: its loaded copy was not kept open",
                   lb_filter_get_origin (filter));
      return NULL;
    }
  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot create a socket for the filter helper: %s", g_strerror (saved));
      return NULL;
    }
  child_sock = dup_high (sv[1]);
  close (sv[1]);
  plugin_fd = dup_high (module_fd);
  if (child_sock < 0 || plugin_fd < 0)
    {
      int saved = errno;
      close (sv[0]);
      if (child_sock >= 0)
        close (child_sock);
      if (plugin_fd >= 0)
        close (plugin_fd);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot pass descriptors to the filter helper: %s", g_strerror (saved));
      return NULL;
    }

  h = g_new0 (Helper, 1);
  h->module = module;
  h->crash_fd = crash_report_fd_new ();
  /* The launcher closes our copies of both when it goes, so only the helper holds the
   * other end of the socket and its death shows up here as end-of-file. */
  launcher = helper_launcher_new (plugin_fd, h->crash_fd);
  g_subprocess_launcher_take_fd (launcher, child_sock, LB_FH_SOCKET_FD);
  if (python)
    {
      /* the same descriptors: socket, the module (its source), the crash report */
      py_argv = _lb_python_host_argv ("--serve", lb_filter_get_origin (filter));
      path = py_argv[0];
      h->proc = g_subprocess_launcher_spawnv (launcher, (const char *const *) py_argv, error);
    }
  else
    h->proc = g_subprocess_launcher_spawn (launcher, error, path, "--plugin",
                                           lb_filter_get_origin (filter), NULL);
  g_clear_object (&launcher);
  if (h->proc == NULL)
    {
      close (sv[0]);
      g_prefix_error (error, "cannot start the filter helper %s: ", path);
      helper_free (h);
      return NULL;
    }
  h->sock = g_socket_new_from_fd (sv[0], error);
  if (h->sock == NULL)
    {
      close (sv[0]);
      helper_kill (h);
      return NULL;
    }
  g_debug ("Started helper %s for %s", g_subprocess_get_identifier (h->proc),
           lb_filter_get_origin (filter));
  return h;
}

static void
wait_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      data)
{
  gboolean *done = data;

  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  *done = TRUE;
}

typedef struct {
  GSubprocess *proc;
  gboolean killed;
} Deadline;

static gboolean
deadline_cb (gpointer data)
{
  Deadline *d = data;

  d->killed = TRUE;
  g_subprocess_force_exit (d->proc);
  return G_SOURCE_REMOVE;
}

static gboolean
cancelled_cb (GCancellable *cancellable,
              gpointer      data)
{
  g_subprocess_force_exit (((Deadline *) data)->proc);
  return G_SOURCE_REMOVE;
}

/* Waits for @proc to end, killing it if it is still running after @timeout_ms or when
 * @cancellable (nullable) is cancelled; TRUE if it was killed for its time. Runs on any
 * thread: a private main context. */
gboolean
_lb_isolation_wait_or_kill_cancellable (GSubprocess  *proc,
                                        guint         timeout_ms,
                                        GCancellable *cancellable)
{
  g_autoptr(GMainContext) ctx = g_main_context_new ();
  g_autoptr(GSource) timer = g_timeout_source_new (timeout_ms);
  g_autoptr(GSource) cancel = cancellable ? g_cancellable_source_new (cancellable) : NULL;
  Deadline d = { proc, FALSE };
  gboolean done = FALSE;

  g_main_context_push_thread_default (ctx);
  g_subprocess_wait_async (proc, NULL, wait_cb, &done);
  g_source_set_callback (timer, deadline_cb, &d, NULL);
  g_source_attach (timer, ctx);
  if (cancel != NULL)
    {
      g_source_set_callback (cancel, G_SOURCE_FUNC (cancelled_cb), &d, NULL);
      g_source_attach (cancel, ctx);
    }
  while (!done)
    g_main_context_iteration (ctx, TRUE);
  g_source_destroy (timer);
  if (cancel != NULL)
    g_source_destroy (cancel);
  g_main_context_pop_thread_default (ctx);
  return d.killed;
}

gboolean
_lb_isolation_wait_or_kill (GSubprocess *proc,
                            guint        timeout_ms)
{
  return _lb_isolation_wait_or_kill_cancellable (proc, timeout_ms, NULL);
}

/* Waits for a helper whose socket closed, killing it if it lingers past REAP_GRACE_MS (a
 * plugin could close descriptor 3 itself). */
static void
helper_reap (Helper *h)
{
  _lb_isolation_wait_or_kill (h->proc, REAP_GRACE_MS);
}

/* ------------------------------------------------------------------------------------------ */
/* Loading                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/* The longest a probe may take, seconds (LIGHTBOX_FILTER_TIMEOUT may set less). */
#define PROBE_MAX_S 5.0

gboolean
_lb_isolation_probe_plugin (int         fd,
                            const char *origin,
                            GError    **error)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) proc = NULL;
  const char *path = helper_path ();
  /* Loading takes milliseconds; the registry (and so the UI) waits for this, so never longer
   * than PROBE_MAX_S, whatever the pass watchdog's setting. */
  double timeout_s = lb_isolation_get_timeout ();
  gboolean timed_out, ok = FALSE;
  int plugin_fd = dup_high (fd);
  int crash_fd;

  if (plugin_fd < 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot pass the plugin to a helper process to be checked: %s",
                   g_strerror (saved));
      return FALSE;
    }
  crash_fd = crash_report_fd_new ();
  launcher = helper_launcher_new (plugin_fd, crash_fd);
  proc = g_subprocess_launcher_spawn (launcher, error, path, "--probe", "--plugin", origin,
                                      NULL);
  g_clear_object (&launcher);
  if (proc == NULL)
    {
      if (crash_fd >= 0)
        close (crash_fd);
      g_prefix_error (error, "cannot start the filter helper %s to check the plugin: ", path);
      return FALSE;
    }

  timeout_s = timeout_s > 0 ? MIN (timeout_s, PROBE_MAX_S) : PROBE_MAX_S;
  timed_out = _lb_isolation_wait_or_kill (proc, (guint) (timeout_s * 1000.0));
  if (timed_out)
    g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                 "did not finish loading within %g s in a helper process, so it was not "
                 "loaded into Lightbox", timeout_s);
  else if (g_subprocess_get_if_signaled (proc))
    {
      g_autofree char *backtrace = NULL;
      g_autofree char *what = _lb_crash_report_explain (crash_fd,
                                                        g_subprocess_get_term_sig (proc), fd,
                                                        origin, path, &backtrace);

      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                   "crashed while loading in a helper process (%s), so it was not loaded "
                   "into Lightbox%s%s", what, backtrace ? BACKTRACE_HEADING : "",
                   backtrace ? backtrace : "");
    }
  else if (g_subprocess_get_if_exited (proc) && g_subprocess_get_exit_status (proc) != 0)
    g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                 "ended its process while loading in a helper process (exit status %d), so "
                 "it was not loaded into Lightbox", g_subprocess_get_exit_status (proc));
  else
    ok = TRUE;
  if (crash_fd >= 0)
    close (crash_fd);
  return ok;
}

/* ------------------------------------------------------------------------------------------ */
/* One pass                                                                                    */
/* ------------------------------------------------------------------------------------------ */

/* A memfd of @size bytes, holding @data if not %NULL. The data is written with pwrite(),
 * not through a mapping: the kernel then fills each new page once, without zeroing it first
 * and without page-table work in this process. The destination is never mapped here before
 * the helper is done (see take_output()); the helper's pipeline threads fault its pages in,
 * in parallel, as an in-process pass does. */
int
_lb_isolation_memfd_new (const char   *name,
                         gsize         size,
                         const guint8 *data,
                         GError      **error)
{
  int fd = memfd_create (name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
  int saved;

  if (fd < 0)
    goto fail;
  if (ftruncate (fd, (off_t) size) != 0)
    goto fail;
  for (gsize done = 0; data != NULL && done < size;)
    {
      gssize n = pwrite (fd, data + done, MIN (size - done, (gsize) G_MAXINT32 & ~4095u),
                         (off_t) done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          if (n == 0)
            errno = ENOSPC;
          goto fail;
        }
      done += (gsize) n;
    }
  return fd;

fail:
  saved = errno;
  if (fd >= 0)
    close (fd);
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
               "cannot create %" G_GSIZE_FORMAT " bytes of shared memory for the filter helper: %s",
               size, g_strerror (saved));
  return -1;
}

/* A memfd holding @bytes, read-only for the helper and fixed in size. */
int
_lb_isolation_sealed_memfd_new (const char *name,
                                GBytes     *bytes,
                                GError    **error)
{
  int fd = _lb_isolation_memfd_new (name, g_bytes_get_size (bytes), g_bytes_get_data (bytes, NULL), error);

  if (fd >= 0
      && fcntl (fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot seal the filter helper's input memory: %s", g_strerror (saved));
      close (fd);
      return -1;
    }
  return fd;
}

/* The helper's result as bytes we own. The write seal takes only when no process has the
 * memfd mapped shared any more (the helper unmaps it before it reports DONE); then nobody
 * can ever write these pages again, and the output image keeps them without a copy, even
 * though the helper lives on. Otherwise (a helper that kept a mapping) it gets a copy. */
static GBytes *
take_output (int         fd,
             gsize       size,
             const char *id,
             GError    **error)
{
  gboolean sealed = fcntl (fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SEAL) == 0;
  int saved = errno;
  GBytes *map = _lb_fh_map_bytes (fd, size, "the filter helper's result", error);

  if (map != NULL && !sealed)
    {
      GBytes *copy = g_bytes_new (g_bytes_get_data (map, NULL), size);

      g_debug ("%s: cannot seal the output (%s); copying it", id, g_strerror (saved));
      g_bytes_unref (map);
      return copy;
    }
  return map;
}

/* One reply, with the descriptors it carries (@fds, g_free() it after closing them). */
static gssize
receive_reply (GSocket       *sock,
               GInputVector  *vec,
               int          **fds,
               int           *n_fds,
               int           *flags,
               GError       **error)
{
  GSocketControlMessage **messages = NULL;
  int n_messages = 0;
  gssize n = g_socket_receive_message (sock, NULL, vec, 1, &messages, &n_messages, flags, NULL,
                                       error);

  for (int i = 0; i < n_messages; i++)
    {
      if (G_IS_UNIX_FD_MESSAGE (messages[i]) && *fds == NULL)
        *fds = g_unix_fd_message_steal_fds (G_UNIX_FD_MESSAGE (messages[i]), n_fds);
      g_object_unref (messages[i]);
    }
  g_free (messages);
  return n;
}

/* The output of a filter with its own geometry: @reply says which, @fd (not taken) holds
 * it. Everything is checked: the helper runs plugin code. */
static LbImage *
take_new_geometry (const LbFhReply *reply,
                   int              fd,
                   LbImage         *input,
                   const char      *id,
                   GError         **error)
{
  g_autoptr(LbImageMeta) meta = NULL;
  g_autoptr(GBytes) pixels = NULL;
  gsize stride, size;

  /* sealed against shrinking before it is mapped: a shorter file would fault in Lightbox */
  if (fd < 0 || reply->out_format >= LB_N_FORMATS
      || !lb_limits_check (NULL, reply->out_width, reply->out_height,
                           (LbSampleFormat) reply->out_format, &stride, &size, NULL)
      || reply->out_stride != stride
      || fcntl (fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) != 0
      || lseek (fd, 0, SEEK_END) < (off_t) size)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                   "Filter “%s”: the helper process sent a malformed output; the image is "
                   "unchanged", id);
      return NULL;
    }
  pixels = take_output (fd, size, id, error);
  if (pixels == NULL)
    return NULL;
  /* the helper's spacing (scaled as in process), the rest as in process */
  meta = lb_image_meta_copy (lb_image_get_meta (input));
  if (reply->out_spacing_x > 0 && reply->out_spacing_y > 0)
    lb_image_meta_set_pixel_spacing (meta, reply->out_spacing_x, reply->out_spacing_y);
  _lb_filter_meta_keep_model (meta, lb_image_get_format (input), reply->out_format);
  return lb_image_new (reply->out_width, reply->out_height, reply->out_format, stride, pixels,
                       meta, error);
}

static gboolean
send_run (Helper        *h,
          const LbFhRun *run,
          const char    *id,
          GBytes        *params,
          GBytes        *meta,
          int            src_fd,
          int            dst_fd,
          int            aux_fd,
          GError       **error)
{
  g_autoptr(GSocketControlMessage) fds = g_unix_fd_message_new ();
  GOutputVector vec[4] = {
    { run, sizeof *run },
    { id, run->id_len },
    { g_bytes_get_data (params, NULL), run->params_len },
    { g_bytes_get_data (meta, NULL), run->meta_len },
  };
  gssize n;

  if (!g_unix_fd_message_append_fd (G_UNIX_FD_MESSAGE (fds), src_fd, error)
      || !g_unix_fd_message_append_fd (G_UNIX_FD_MESSAGE (fds), dst_fd, error)
      || (aux_fd >= 0 && !g_unix_fd_message_append_fd (G_UNIX_FD_MESSAGE (fds), aux_fd, error)))
    return FALSE;
  n = g_socket_send_message (h->sock, NULL, vec, G_N_ELEMENTS (vec), &fds, 1, 0, NULL, error);
  if (n < 0)
    return FALSE;
  if ((gsize) n != sizeof *run + run->id_len + run->params_len + run->meta_len)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "short message to the filter helper");
      return FALSE;
    }
  return TRUE;
}

typedef enum {
  OUTCOME_DONE,
  OUTCOME_FILTER_ERROR,  /* the filter failed cleanly; the helper is fine */
  OUTCOME_GONE,          /* the helper died */
  OUTCOME_BROKEN,        /* cancelled, timed out or nonsense on the socket: kill it */
} Outcome;

static void
set_died_error (GError   **error,
                LbFilter  *filter,
                Helper    *h)
{
  const char *id = lb_filter_get_id (filter);
  const char *origin = lb_filter_get_origin (filter);

  helper_reap (h);
  if (lb_filter_get_kind (filter) == LB_FILTER_KIND_PYTHON
      && g_subprocess_get_if_signaled (h->proc))
    _lb_python_set_crash_error (error, id, origin, g_subprocess_get_term_sig (h->proc),
                                h->crash_fd);
  else if (g_subprocess_get_if_signaled (h->proc))
    {
      g_autofree char *backtrace = NULL;
      g_autofree char *what =
        _lb_crash_report_explain (h->crash_fd, g_subprocess_get_term_sig (h->proc),
                                  _lb_plugin_module_get_fd (_lb_filter_get_owner (filter)),
                                  origin, helper_path (), &backtrace);

      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                   "Filter “%s” in plugin %s crashed (%s); the image is unchanged%s%s", id,
                   origin, what, backtrace ? BACKTRACE_HEADING : "", backtrace ? backtrace : "");
    }
  else if (g_subprocess_get_if_exited (h->proc))
    g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                 "Filter “%s” in plugin %s ended its process (exit status %d); the image is "
                 "unchanged", id, origin, g_subprocess_get_exit_status (h->proc));
  else
    g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                 "Filter “%s” in plugin %s: its helper process went away; the image is "
                 "unchanged", id, origin);
}

/* Asks the Python host of a cancelled pass to stop (LB_FH_CANCEL) and waits
 * CANCEL_GRACE_MS for it to end the pass: TRUE if it did (it can serve the next pass), FALSE
 * if it must be killed. Its replies are dropped: the pass failed as cancelled either way. */
static gboolean
python_cancel (Helper *h,
               char   *buf)
{
  LbFhCancel cancel = { LB_FH_MAGIC, LB_FH_CANCEL };
  gint64 deadline = g_get_monotonic_time () + CANCEL_GRACE_MS * 1000;

  if (g_socket_send (h->sock, (const char *) &cancel, sizeof cancel, NULL, NULL)
      != sizeof cancel)
    return FALSE;
  for (;;)
    {
      gint64 left = deadline - g_get_monotonic_time ();
      GInputVector vec = { buf, LB_FH_MAX_MESSAGE };
      int *fds = NULL, n_fds = 0, flags = 0;
      LbFhReply reply;
      gssize n;

      if (left <= 0 || !g_socket_condition_timed_wait (h->sock, G_IO_IN, left, NULL, NULL))
        return FALSE;
      n = receive_reply (h->sock, &vec, &fds, &n_fds, &flags, NULL);
      for (int i = 0; i < n_fds; i++)
        close (fds[i]);
      g_free (fds);
      if (n < (gssize) sizeof reply)
        return FALSE;
      memcpy (&reply, buf, sizeof reply);
      if (reply.magic != LB_FH_MAGIC)
        return FALSE;
      /* DONE: it finished before it looked; ERROR: it stopped (or failed meanwhile) */
      if (reply.type == LB_FH_DONE || reply.type == LB_FH_ERROR)
        return TRUE;
    }
}

LbImage *
_lb_isolated_run_pass (LbFilter                *filter,
                       LbFilterParams          *params,
                       LbImage                 *input,
                       const LbIsolatedOptions *options,
                       void                   (*progress) (double   fraction,
                                                           gpointer data),
                       gpointer                 progress_data,
                       LbIsolatedResult        *result,
                       GCancellable            *cancellable,
                       GError                 **error)
{
  const char *id = lb_filter_get_id (filter);
  guint width = lb_image_get_width (input), height = lb_image_get_height (input);
  LbSampleFormat format = lb_image_get_format (input);
  gsize row_size = lb_image_get_row_size (input);
  GBytes *src_bytes = lb_image_get_bytes (input);
  gsize src_size = g_bytes_get_size (src_bytes);
  gsize dst_size = row_size * height;
  double timeout_s = options->timeout_s >= 0 ? options->timeout_s : lb_isolation_get_timeout ();
  gboolean python = lb_filter_get_kind (filter) == LB_FILTER_KIND_PYTHON;
  LbImage *aux = options->aux;
  g_autoptr(GBytes) pv = NULL;
  g_autoptr(GBytes) mv = NULL;
  g_autofree char *buf = NULL;
  int src_fd = -1, dst_fd = -1, aux_fd = -1;
  int *fds = NULL, n_fds = 0;   /* descriptors of the last reply */
  gsize out_stride, out_size;
  LbFhRun run = { 0 };
  Helper *h = NULL;
  Outcome outcome = OUTCOME_BROKEN;
  gint64 last_progress;
  double last_fraction = -1;
  gint64 t0 = g_get_monotonic_time ();
  LbImage *output = NULL;

  /* The same size limits as an in-process pass, before any work. */
  if (!lb_limits_check (NULL, width, height, format, &out_stride, &out_size, error))
    return NULL;
  if (python)
    {
      /* LB_FH_VERSION_JSON: what Python reads without a GVariant parser */
      pv = _lb_python_params_to_json (filter, params);
      mv = _lb_python_meta_to_json (input);
    }
  else
    {
      g_autoptr(GVariant) p = g_variant_ref_sink (lb_filter_params_to_variant (params));
      g_autoptr(GVariant) m =
        g_variant_ref_sink (g_variant_new ("(@a{sv}@a{sv})",
                                           _lb_fh_meta_to_variant (lb_image_get_meta (input)),
                                           _lb_fh_meta_to_variant (aux ? lb_image_get_meta (aux)
                                                                       : NULL)));

      pv = g_variant_get_data_as_bytes (p);
      mv = g_variant_get_data_as_bytes (m);
    }

  src_fd = _lb_isolation_sealed_memfd_new ("lightbox-filter-source", src_bytes, error);
  if (src_fd < 0)
    goto out;
  if (aux != NULL)
    {
      aux_fd = _lb_isolation_sealed_memfd_new ("lightbox-filter-aux", lb_image_get_bytes (aux), error);
      if (aux_fd < 0)
        goto out;
      run.aux_format = lb_image_get_format (aux);
      run.aux_width = lb_image_get_width (aux);
      run.aux_height = lb_image_get_height (aux);
      run.aux_stride = lb_image_get_stride (aux);
      run.aux_size = g_bytes_get_size (lb_image_get_bytes (aux));
    }
  dst_fd = _lb_isolation_memfd_new ("lightbox-filter-destination", dst_size, NULL, error);
  if (dst_fd < 0)
    goto out;
  /* The helper writes here, but can never shrink it under our mapping (SIGBUS). Writes
   * are sealed off once it is done (see LB_FH_DONE below). */
  if (fcntl (dst_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot seal the filter helper's destination memory: %s",
                   g_strerror (saved));
      goto out;
    }

  run.magic = LB_FH_MAGIC;
  run.version = python ? LB_FH_VERSION_JSON : LB_FH_VERSION;
  run.type = LB_FH_RUN;
  run.format = format;
  run.width = width;
  run.height = height;
  run.src_stride = lb_image_get_stride (input);
  run.src_size = src_size;
  run.dst_stride = row_size;
  run.seed = options->seed;
  run.has_selection = options->has_selection;
  run.selection = options->selection;
  run.n_threads = options->n_threads;
  run.band_height = options->band_height;
  run.id_len = (guint32) strlen (id);
  run.params_len = (guint32) g_bytes_get_size (pv);
  run.meta_len = (guint32) g_bytes_get_size (mv);

  g_debug ("%s: %.1f ms to share %" G_GSIZE_FORMAT " + %" G_GSIZE_FORMAT " bytes", id,
           (g_get_monotonic_time () - t0) / 1000.0, src_size, dst_size);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    goto out;
  h = pool_take (_lb_filter_get_owner (filter));
  if (h != NULL && !send_run (h, &run, id, pv, mv, src_fd, dst_fd, aux_fd, NULL))
    {
      /* The idle helper died meanwhile (killed from outside): start a fresh one. */
      helper_kill (h);
      h = NULL;
    }
  if (h == NULL)
    {
      h = helper_spawn (filter, error);
      if (h == NULL)
        goto out;
      if (!send_run (h, &run, id, pv, mv, src_fd, dst_fd, aux_fd, NULL))
        {
          outcome = OUTCOME_GONE;
          set_died_error (error, filter, h);
          goto out;
        }
    }

  g_debug ("%s: %.1f ms with the request sent", id, (g_get_monotonic_time () - t0) / 1000.0);
  buf = g_malloc (LB_FH_MAX_MESSAGE);
  last_progress = g_get_monotonic_time ();
  for (;;)
    {
      g_autoptr(GError) local = NULL;
      gint64 timeout_us = -1;
      GInputVector vec = { buf, LB_FH_MAX_MESSAGE };
      int flags = 0;
      gssize n;
      LbFhReply reply;

      if (timeout_s > 0)
        timeout_us = MAX (0, last_progress + (gint64) (timeout_s * G_USEC_PER_SEC)
                             - g_get_monotonic_time ());
      if (!g_socket_condition_timed_wait (h->sock, G_IO_IN, timeout_us, cancellable, &local))
        {
          if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
            g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                         "Filter “%s” in plugin %s made no progress for %g s and was stopped "
                         "(LIGHTBOX_FILTER_TIMEOUT sets the limit); the image is unchanged",
                         id, lb_filter_get_origin (filter), timeout_s);
          else
            g_propagate_error (error, g_steal_pointer (&local));
          outcome = OUTCOME_BROKEN;
          /* a Python module may stop by itself and keep its process */
          if (python && g_cancellable_is_cancelled (cancellable) && python_cancel (h, buf))
            outcome = OUTCOME_FILTER_ERROR;
          break;
        }
      g_clear_pointer (&fds, g_free);
      n_fds = 0;
      n = receive_reply (h->sock, &vec, &fds, &n_fds, &flags, &local);
      if (n <= 0)
        {
          /* End-of-file or a reset: the helper is dead. */
          outcome = OUTCOME_GONE;
          set_died_error (error, filter, h);
          break;
        }
      if ((gsize) n < sizeof reply)
        goto protocol_error;
      memcpy (&reply, buf, sizeof reply);
      if (reply.magic != LB_FH_MAGIC)
        goto protocol_error;
      if (reply.type == LB_FH_PROGRESS)
        {
          last_progress = g_get_monotonic_time ();
          /* Bands finish on several threads; pass on only forward steps. */
          if (progress != NULL && reply.fraction > last_fraction && reply.fraction <= 1)
            {
              last_fraction = reply.fraction;
              progress (reply.fraction, progress_data);
            }
          continue;
        }
      if (reply.type == LB_FH_DONE && reply.out_width > 0)
        {
          /* another geometry (LB_FILTER_FLAG_GEOMETRY), in a memfd of its own */
          output = take_new_geometry (&reply, n_fds > 0 ? fds[0] : -1, input, id, error);
          if (result != NULL)
            {
              result->threads = reply.threads;
              result->bands = reply.bands;
            }
          outcome = output != NULL ? OUTCOME_DONE : OUTCOME_BROKEN;
          break;
        }
      if (reply.type == LB_FH_DONE)
        {
          g_autoptr(GBytes) pixels = take_output (dst_fd, dst_size, id, error);

          if (pixels != NULL)
            output = lb_image_new (width, height, format, row_size, pixels,
                                   lb_image_get_meta (input), error);
          if (result != NULL)
            {
              result->threads = reply.threads;
              result->bands = reply.bands;
            }
          outcome = output != NULL ? OUTCOME_DONE : OUTCOME_BROKEN;
          g_debug ("%s: %.1f ms when done", id, (g_get_monotonic_time () - t0) / 1000.0);
          break;
        }
      if (reply.type == LB_FH_ERROR && reply.domain_len > 0 && reply.domain_len < 256
          && reply.message_len < LB_FH_MAX_MESSAGE
          && (gsize) n == sizeof reply + reply.domain_len + reply.message_len)
        {
          g_autofree char *domain = g_strndup (buf + sizeof reply, reply.domain_len);
          g_autofree char *message = g_strndup (buf + sizeof reply + reply.domain_len,
                                                reply.message_len);

          g_set_error_literal (error, g_quark_from_string (domain), reply.code, message);
          outcome = OUTCOME_FILTER_ERROR;
          break;
        }

    protocol_error:
      g_set_error (error, LB_ERROR, LB_ERROR_PLUGIN,
                   "Filter “%s” in plugin %s: the helper process sent a malformed message; "
                   "the image is unchanged", id, lb_filter_get_origin (filter));
      outcome = OUTCOME_BROKEN;
      break;
    }

out:
  for (int i = 0; i < n_fds; i++)
    close (fds[i]);
  g_free (fds);
  if (h != NULL)
    {
      if (outcome == OUTCOME_DONE || outcome == OUTCOME_FILTER_ERROR)
        pool_put (h);
      else
        helper_kill (h);
    }
  if (src_fd >= 0)
    close (src_fd);
  if (dst_fd >= 0)
    close (dst_fd);
  if (aux_fd >= 0)
    close (aux_fd);
  return output;
}
