/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store-server"

#include "lb-store-lock.h"

#include <stdlib.h>

#include "lb-store-path.h"

struct _LbStoreLocks
{
  GMutex     mutex;
  GCond      released;
  GPtrArray *held; /* (element-type LbStoreLock) (unowned) */
};

struct _LbStoreLock
{
  LbStoreLocks *locks;
  char         *keys[2]; /* keys[1] may be NULL */
};

LbStoreLocks *
lb_store_locks_new (void)
{
  LbStoreLocks *locks = g_new0 (LbStoreLocks, 1);

  g_mutex_init (&locks->mutex);
  g_cond_init (&locks->released);
  locks->held = g_ptr_array_new ();
  return locks;
}

/* Only once no lock is held (the server is finalised after its last request). */
void
lb_store_locks_free (LbStoreLocks *locks)
{
  g_return_if_fail (locks->held->len == 0);
  g_ptr_array_unref (locks->held);
  g_cond_clear (&locks->released);
  g_mutex_clear (&locks->mutex);
  g_free (locks);
}

static gboolean
keys_overlap (const char *a, const char *b)
{
  return a != NULL && b != NULL && (lb_store_path_is_inside (a, b) || lb_store_path_is_inside (b, a));
}

static gboolean
conflicts (LbStoreLocks *locks, char *const *keys)
{
  for (guint i = 0; i < locks->held->len; i++)
    {
      LbStoreLock *h = g_ptr_array_index (locks->held, i);

      for (guint j = 0; j < 2; j++)
        for (guint k = 0; k < 2; k++)
          if (keys_overlap (h->keys[j], keys[k]))
            return TRUE;
    }
  return FALSE;
}

/*
 * lb_store_lock_acquire:
 * @key_a: a lock key (lb_store_lock_key())
 * @key_b: (nullable): a second one, taken at the same time
 *
 * Waits until no held lock overlaps @key_a or @key_b, and holds them until
 * lb_store_lock_release().
 */
LbStoreLock *
lb_store_lock_acquire (LbStoreLocks *locks, const char *key_a, const char *key_b)
{
  LbStoreLock *lock = g_new0 (LbStoreLock, 1);

  lock->locks = locks;
  lock->keys[0] = g_strdup (key_a);
  lock->keys[1] = g_strdup (key_b);
  g_mutex_lock (&locks->mutex);
  while (conflicts (locks, lock->keys))
    g_cond_wait (&locks->released, &locks->mutex);
  g_ptr_array_add (locks->held, lock);
  g_mutex_unlock (&locks->mutex);
  return lock;
}

void
lb_store_lock_release (LbStoreLock *lock)
{
  LbStoreLocks *locks = lock->locks;

  g_mutex_lock (&locks->mutex);
  g_ptr_array_remove_fast (locks->held, lock);
  g_cond_broadcast (&locks->released);
  g_mutex_unlock (&locks->mutex);
  g_free (lock->keys[0]);
  g_free (lock->keys[1]);
  g_free (lock);
}

/*
 * lb_store_lock_key:
 * @abs: a path below the store root, which may not exist yet
 *
 * The name @abs denotes in the file system: its parent directory resolved (realpath), then its
 * last segment. Two request paths that reach one directory entry through a symlinked folder
 * get the same key. If the parent does not resolve (it is missing), @abs itself.
 */
char *
lb_store_lock_key (const char *abs)
{
  g_autofree char *dir = g_path_get_dirname (abs);
  g_autofree char *name = g_path_get_basename (abs);
  char *real = realpath (dir, NULL);
  char *key;

  if (real == NULL)
    return g_strdup (abs);
  key = g_build_filename (real, name, NULL);
  free (real);
  return key;
}
