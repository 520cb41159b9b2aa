/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-access-log"

#include "lb-access-log.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "lb-error.h"

/*
 * The audit log of lightbox-store: one line per request, appended with a single write(2) on
 * an O_APPEND descriptor so lines never interleave, even with several writers:
 *
 *   2026-11-29T20:47:48.123Z 127.0.0.1 alice PUT /CT/a%20b.png 201 0 16384 12.345
 *
 * fields: time (ISO 8601 UTC, ms), client address, user ('-' when anonymous), method,
 * path (percent-encoded as requested, so it holds no spaces), status (0 when the client
 * went away before a response), response body bytes, request body bytes, duration in ms.
 */

struct _LbAccessLog
{
  GObject parent_instance;

  int   fd;
  char *path;
};

G_DEFINE_FINAL_TYPE (LbAccessLog, lb_access_log, G_TYPE_OBJECT)

static void
lb_access_log_finalize (GObject *object)
{
  LbAccessLog *self = LB_ACCESS_LOG (object);

  if (self->fd >= 0)
    close (self->fd);
  g_free (self->path);
  G_OBJECT_CLASS (lb_access_log_parent_class)->finalize (object);
}

static void
lb_access_log_class_init (LbAccessLogClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = lb_access_log_finalize;
}

static void
lb_access_log_init (LbAccessLog *self)
{
  self->fd = -1;
}

LbAccessLog *
lb_access_log_new (const char *path, GError **error)
{
  g_autoptr(LbAccessLog) self = g_object_new (LB_TYPE_ACCESS_LOG, NULL);

  self->fd = open (path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
  if (self->fd < 0)
    {
      int err = errno;
      g_set_error (error, LB_ERROR, LB_ERROR_FAILED, "Cannot open access log %s: %s",
                   path, g_strerror (err));
      return NULL;
    }
  self->path = g_strdup (path);
  return g_steal_pointer (&self);
}

/* Characters that could forge a second line or a field are replaced. */
static void
append_field (GString *line, const char *s)
{
  if (s == NULL || s[0] == '\0')
    {
      g_string_append_c (line, '-');
      return;
    }
  for (const char *p = s; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;
      if (c <= ' ' || c == 0x7f)
        g_string_append_printf (line, "%%%02X", c);
      else
        g_string_append_c (line, (char) c);
    }
}

void
lb_access_log_write (LbAccessLog *self,
                     GDateTime   *when,
                     const char  *client,
                     const char  *user,
                     const char  *method,
                     const char  *path,
                     guint        status,
                     guint64      bytes_out,
                     guint64      bytes_in,
                     gint64       duration_us)
{
  g_autoptr(GDateTime) utc = g_date_time_to_utc (when);
  g_autofree char *stamp = g_date_time_format (utc, "%Y-%m-%dT%H:%M:%S");
  g_autoptr(GString) line = g_string_new (NULL);
  gsize done = 0;

  g_return_if_fail (LB_IS_ACCESS_LOG (self));

  g_string_append_printf (line, "%s.%03dZ ", stamp, g_date_time_get_microsecond (utc) / 1000);
  append_field (line, client);
  g_string_append_c (line, ' ');
  append_field (line, user);
  g_string_append_c (line, ' ');
  append_field (line, method);
  g_string_append_c (line, ' ');
  append_field (line, path);
  g_string_append_printf (line, " %u %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %.3f\n",
                          status, bytes_out, bytes_in, duration_us / 1000.0);

  while (done < line->len)
    {
      ssize_t n = write (self->fd, line->str + done, line->len - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          g_warning ("Cannot write access log %s: %s", self->path, g_strerror (errno));
          return;
        }
      done += (gsize) n;
    }
}
