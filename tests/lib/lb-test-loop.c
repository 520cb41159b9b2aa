/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-test-loop"

#include "lb-test-loop.h"

void
lb_test_keep_result (GObject      *source,
                     GAsyncResult *result,
                     gpointer      slot)
{
  *(GAsyncResult **) slot = g_object_ref (result);
}

GAsyncResult *
lb_test_wait_result (GAsyncResult **slot)
{
  while (*slot == NULL)
    g_main_context_iteration (NULL, TRUE);
  return *slot;
}

void
lb_test_wait_flag (const gboolean *flag)
{
  while (!*flag)
    g_main_context_iteration (NULL, TRUE);
}

gboolean
lb_test_wait (gboolean (*cond) (gpointer data),
              gpointer  data,
              guint     timeout_ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (!cond (data))
    {
      if (g_get_monotonic_time () > end)
        return FALSE;
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  return TRUE;
}

gboolean
lb_test_flag_is_set (gpointer flag)
{
  return *(const gboolean *) flag;
}

gboolean
lb_test_cancel_once (gpointer cancellable)
{
  g_cancellable_cancel (cancellable);
  return G_SOURCE_REMOVE;
}
