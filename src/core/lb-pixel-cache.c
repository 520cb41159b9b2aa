/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-pixel-cache"

#include "lb-pixel-cache.h"

#include <gio/gio.h>

#if defined(__SANITIZE_ADDRESS__)
#define LB_PIXEL_CACHE_OFF 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LB_PIXEL_CACHE_OFF 1
#endif
#endif

typedef struct {
  guint8 *pixels;
  gsize size;
  guint64 age;   /* when it was given: the smallest is the oldest */
  gint64 given_usec;  /* g_get_monotonic_time () then */
} Slot;

static GMutex lock;
static Slot slots[LB_PIXEL_CACHE_SLOTS];
static gsize kept_bytes;
static guint64 clock_ticks;

gboolean
lb_pixel_cache_enabled (void)
{
#ifdef LB_PIXEL_CACHE_OFF
  return FALSE;
#else
  return TRUE;
#endif
}

guint8 *
lb_pixel_cache_take (gsize size)
{
  guint8 *pixels = NULL;
  int best = -1;

  if (!lb_pixel_cache_enabled () || size < LB_PIXEL_CACHE_MIN_BYTES)
    return NULL;
  g_mutex_lock (&lock);
  for (int i = 0; i < LB_PIXEL_CACHE_SLOTS; i++)
    if (slots[i].pixels != NULL && slots[i].size >= size && slots[i].size - size <= size / 4
        && (best < 0 || slots[i].size < slots[best].size))
      best = i;
  if (best >= 0)
    {
      pixels = g_steal_pointer (&slots[best].pixels);
      kept_bytes -= slots[best].size;
      slots[best].size = 0;
    }
  g_mutex_unlock (&lock);
  return pixels;
}

void
lb_pixel_cache_give (guint8 *pixels,
                     gsize   size)
{
  guint8 *drop[LB_PIXEL_CACHE_SLOTS + 1] = { NULL };
  int n_drop = 0;

  if (pixels == NULL)
    return;
  if (!lb_pixel_cache_enabled () || size < LB_PIXEL_CACHE_MIN_BYTES || size > LB_PIXEL_CACHE_MAX_BYTES)
    {
      g_free (pixels);
      return;
    }
  g_mutex_lock (&lock);
  /* room for it: the oldest buffers go until a slot is free and the bytes fit */
  for (;;)
    {
      int free_slot = -1, oldest = -1;

      for (int i = 0; i < LB_PIXEL_CACHE_SLOTS; i++)
        if (slots[i].pixels == NULL)
          free_slot = i;
        else if (oldest < 0 || slots[i].age < slots[oldest].age)
          oldest = i;
      if (free_slot >= 0 && kept_bytes + size <= LB_PIXEL_CACHE_MAX_BYTES)
        {
          slots[free_slot] = (Slot) { pixels, size, ++clock_ticks, g_get_monotonic_time () };
          kept_bytes += size;
          break;
        }
      /* the loop ends: each turn empties a slot, and with all empty the bytes fit */
      drop[n_drop++] = g_steal_pointer (&slots[oldest].pixels);
      kept_bytes -= slots[oldest].size;
      slots[oldest].size = 0;
    }
  g_mutex_unlock (&lock);
  /* outside the lock: an munmap of a large buffer takes milliseconds */
  for (int i = 0; i < n_drop; i++)
    g_free (drop[i]);
}

/* Frees the buffers kept for longer than @max_idle_usec (all of them if it is negative);
 * returns the bytes freed. */
static gsize
drop_idle (gint64 max_idle_usec)
{
  guint8 *drop[LB_PIXEL_CACHE_SLOTS] = { NULL };
  gint64 now = g_get_monotonic_time ();
  gsize freed = 0;

  g_mutex_lock (&lock);
  for (int i = 0; i < LB_PIXEL_CACHE_SLOTS; i++)
    if (slots[i].pixels != NULL && (max_idle_usec < 0 || now - slots[i].given_usec > max_idle_usec))
      {
        drop[i] = g_steal_pointer (&slots[i].pixels);
        freed += slots[i].size;
        kept_bytes -= slots[i].size;
        slots[i].size = 0;
      }
  g_mutex_unlock (&lock);
  /* outside the lock: an munmap of a large buffer takes milliseconds */
  for (int i = 0; i < LB_PIXEL_CACHE_SLOTS; i++)
    g_free (drop[i]);
  return freed;
}

void
lb_pixel_cache_clear (void)
{
  drop_idle (-1);
}

gsize
lb_pixel_cache_trim (gint64 max_idle_usec)
{
  gsize freed = drop_idle (max_idle_usec);

  if (freed > 0)
    g_debug ("gave back %" G_GSIZE_FORMAT " bytes of pixel buffers unused for %.0f s", freed,
             max_idle_usec / 1e6);
  return freed;
}

static void
on_low_memory (GMemoryMonitor                 *monitor,
               GMemoryMonitorWarningLevel      level,
               gpointer                        user_data)
{
  gsize bytes = drop_idle (-1);

  if (bytes > 0)
    g_debug ("low memory (level %d): gave back %" G_GSIZE_FORMAT " bytes of pixel buffers",
             (int) level, bytes);
}

void
lb_pixel_cache_watch_memory (void)
{
  static gsize watching;

  if (g_once_init_enter (&watching))
    {
      /* kept for the process's lifetime, as the signal's source */
      GMemoryMonitor *monitor = g_memory_monitor_dup_default ();

      if (monitor != NULL)
        g_signal_connect (monitor, "low-memory-warning", G_CALLBACK (on_low_memory), NULL);
      else
        g_debug ("no memory monitor: the pixel cache is trimmed by age only");
      g_once_init_leave (&watching, 1);
    }
}

gsize
lb_pixel_cache_get_bytes (void)
{
  gsize n;

  g_mutex_lock (&lock);
  n = kept_bytes;
  g_mutex_unlock (&lock);
  return n;
}
