/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * Per-path locks that make "check the preconditions, then commit" one step. A PUT commits in a
 * worker thread while DELETE, COPY and MOVE run on the main loop: without a lock between the
 * check (If-Match, If-None-Match, Overwrite) and the rename, two writers could both pass their
 * checks and the later rename silently replace the earlier one.
 *
 * A lock names one or two paths by their lock keys (lb_store_lock_key()); it waits while any
 * held lock names the same path, one of its ancestors or one of its descendants (a DELETE of
 * a collection excludes a PUT inside it). Both paths of a COPY or MOVE are taken at once, so
 * no two holders can wait for each other. Holders keep a lock only for file-system work that
 * does not wait for other requests: the check and the rename of a PUT (microseconds), and a
 * COPY, MOVE or DELETE, which the main loop runs to its end anyway.
 */

typedef struct _LbStoreLocks LbStoreLocks;
typedef struct _LbStoreLock  LbStoreLock;

LbStoreLocks *lb_store_locks_new    (void);
void          lb_store_locks_free   (LbStoreLocks *locks);
LbStoreLock  *lb_store_lock_acquire (LbStoreLocks *locks,
                                     const char   *key_a,
                                     const char   *key_b);
void          lb_store_lock_release (LbStoreLock  *lock);
char         *lb_store_lock_key     (const char   *abs);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LbStoreLock, lb_store_lock_release)

G_END_DECLS
