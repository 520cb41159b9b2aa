/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * The store's file-system work, free of HTTP: listings of the DAV namespace (no dotfiles, no
 * symlinks leading out of the root, nothing but files and directories), recursive delete that
 * never follows symlinks, upload temporaries created beside their target, copies built beside
 * their destination, and the renames that put either in place in one step (never replacing,
 * replacing, or swapping a tree in); fsync of a directory. Functions returning int return 0 or
 * an errno.
 */

void       lb_store_fs_sync_dir_of        (const char *path);
gboolean   lb_store_fs_parent_is_dir      (const char *abs);
GPtrArray *lb_store_fs_list_children      (const char *root_real,
                                           const char *dir_abs);
int        lb_store_fs_remove_tree        (const char *abs);
int        lb_store_fs_write_all          (int         fd,
                                           const void *data,
                                           gsize       len);
gsize      lb_store_fs_read_head          (int         fd,
                                           void       *buf,
                                           gsize       len);
int        lb_store_fs_open_temp          (const char *target,
                                           int        *fd_out,
                                           char      **path_out);
int        lb_store_fs_rename_noreplace   (const char *from,
                                           const char *to);
int        lb_store_fs_install            (const char *from,
                                           const char *to,
                                           gboolean    replace);
void       lb_store_fs_discard            (const char *abs);
int        lb_store_fs_copy_beside        (const char *root_real,
                                           const char *src,
                                           const char *dst,
                                           gboolean    recursive,
                                           char      **tmp_out);
guint      lb_store_fs_remove_stale_temps (const char *root);

G_END_DECLS
