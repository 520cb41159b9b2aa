/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-filter-host-proto"

/* What both ends of the helper protocol do alike (see lb-filter-host-proto.h). */

#include <errno.h>
#include <sys/mman.h>

#include <gio/gio.h>

#include "lb-filter-host-proto.h"

typedef struct {
  gpointer addr;
  gsize size;
} Mapping;

static void
mapping_free (gpointer data)
{
  Mapping *m = data;

  munmap (m->addr, m->size);
  g_free (m);
}

GBytes *
_lb_fh_map_bytes (int          fd,
                  gsize        size,
                  const char  *what,
                  GError     **error)
{
  gpointer addr = mmap (NULL, size, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
  Mapping *m;

  if (addr == MAP_FAILED)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "cannot map %s: %s", what,
                   g_strerror (saved));
      return NULL;
    }
  m = g_new (Mapping, 1);
  m->addr = addr;
  m->size = size;
  return g_bytes_new_with_free_func (addr, size, mapping_free, m);
}
