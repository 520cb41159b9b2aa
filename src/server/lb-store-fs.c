/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store-server"

#include "lb-store-fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "lb-store-path.h"

/* fsync of a directory so a rename or creation in it survives a crash. */
void
lb_store_fs_sync_dir_of (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd >= 0)
    {
      fsync (fd);
      close (fd);
    }
}

gboolean
lb_store_fs_parent_is_dir (const char *abs)
{
  g_autofree char *dir = g_path_get_dirname (abs);
  struct stat st;

  return stat (dir, &st) == 0 && S_ISDIR (st.st_mode);
}

/* Entries that are part of the DAV namespace: no dotfiles, no symlinks leading out. The
 * directory itself is known to lie inside the root, so only symlinks need resolving. */
static gboolean
entry_is_public (const char *root_real, const char *dir_abs, const char *name, struct stat *st_out)
{
  g_autofree char *child = NULL;

  if (name[0] == '.')
    return FALSE;
  child = g_build_filename (dir_abs, name, NULL);
  if (lstat (child, st_out) != 0)
    return FALSE;
  if (S_ISLNK (st_out->st_mode) &&
      (!lb_store_path_is_contained (root_real, child) || stat (child, st_out) != 0))
    return FALSE;
  return S_ISREG (st_out->st_mode) || S_ISDIR (st_out->st_mode);
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Sorted public child names of a directory below @root_real; NULL with errno set on failure. */
GPtrArray *
lb_store_fs_list_children (const char *root_real, const char *dir_abs)
{
  GPtrArray *names;
  DIR *d = opendir (dir_abs);
  struct dirent *e;

  if (d == NULL)
    return NULL;
  names = g_ptr_array_new_with_free_func (g_free);
  while ((e = readdir (d)) != NULL)
    {
      struct stat st;

      if (entry_is_public (root_real, dir_abs, e->d_name, &st))
        g_ptr_array_add (names, g_strdup (e->d_name));
    }
  closedir (d);
  g_ptr_array_sort (names, compare_strings);
  return names;
}

/* rm -rf that never follows symlinks; returns 0 or an errno. */
static int
remove_tree_at (int parent_fd, const char *name)
{
  struct stat st;
  int fd;
  DIR *d;
  struct dirent *e;
  int err = 0;

  if (fstatat (parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return errno;
  if (!S_ISDIR (st.st_mode))
    return unlinkat (parent_fd, name, 0) == 0 ? 0 : errno;

  fd = openat (parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return errno;
  d = fdopendir (fd);
  if (d == NULL)
    {
      err = errno;
      close (fd);
      return err;
    }
  while ((e = readdir (d)) != NULL)
    {
      if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0)
        continue;
      err = remove_tree_at (dirfd (d), e->d_name);
      if (err != 0)
        break;
    }
  closedir (d);
  if (err != 0)
    return err;
  return unlinkat (parent_fd, name, AT_REMOVEDIR) == 0 ? 0 : errno;
}

int
lb_store_fs_remove_tree (const char *abs)
{
  return remove_tree_at (AT_FDCWD, abs);
}

/* Writes all @len bytes of @data to @fd, again after a signal; 0, or the errno of the write
 * that failed. */
int
lb_store_fs_write_all (int fd, const void *data, gsize len)
{
  const guint8 *p = data;

  while (len > 0)
    {
      ssize_t n = write (fd, p, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return errno;
      p += n;
      len -= (gsize) n;
    }
  return 0;
}

/* Creates an upload temporary (mode 0600) in the directory of @target, where it can later be
 * renamed onto @target. Returns 0 and sets @fd_out and @path_out, or returns an errno. */
int
lb_store_fs_open_temp (const char *target, int *fd_out, char **path_out)
{
  g_autofree char *dir = g_path_get_dirname (target);
  g_autofree char *tmpl = g_build_filename (dir, LB_STORE_TEMP_PREFIX "XXXXXX", NULL);
  int fd = g_mkstemp_full (tmpl, O_WRONLY | O_CLOEXEC, 0600);

  if (fd < 0)
    return errno;
  *fd_out = fd;
  *path_out = g_steal_pointer (&tmpl);
  return 0;
}

/*
 * Renames @from to @to unless @to exists (then EEXIST): the kernel decides, in one step
 * (renameat2 RENAME_NOREPLACE), so not even a process outside the server can slip a file in
 * between a check and the rename. File systems without that flag fall back to link(2), which
 * never replaces either, and failing that to a check and a rename, which the caller's path
 * lock (lb-store-lock.h) still protects against the server's own requests.
 */
int
lb_store_fs_rename_noreplace (const char *from, const char *to)
{
  struct stat st;

  if (renameat2 (AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
    return 0;
  if (errno != EINVAL && errno != ENOSYS)
    return errno;
  if (lstat (from, &st) == 0 && S_ISREG (st.st_mode))
    {
      if (link (from, to) == 0)
        {
          unlink (from);
          return 0;
        }
      if (errno != EPERM && errno != EOPNOTSUPP && errno != EMLINK)
        return errno;
    }
  if (lstat (to, &st) == 0)
    return EEXIST;
  return rename (from, to) == 0 ? 0 : errno;
}

/* Copies one regular file through a temporary in the destination directory, fsynced and
 * renamed into place, like PUT; the temporary is listed in @temps while it exists. Returns 0
 * or an errno. */
static int
copy_file_atomic (GHashTable *temps, const char *src, const char *dst)
{
  g_autofree char *tmpl = NULL;
  int in, out, err = 0;
  struct stat st;
  char buf[64 * 1024];

  in = open (src, O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return errno;
  if (fstat (in, &st) != 0)
    {
      err = errno;
      close (in);
      return err;
    }
  err = lb_store_fs_open_temp (dst, &out, &tmpl);
  if (err != 0)
    {
      close (in);
      return err;
    }
  g_hash_table_add (temps, g_strdup (tmpl));
  for (;;)
    {
      ssize_t n = read (in, buf, sizeof buf);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          err = errno;
          break;
        }
      if (n == 0)
        break;
      err = lb_store_fs_write_all (out, buf, (gsize) n);
      if (err != 0)
        break;
    }
  if (err == 0 && fsync (out) != 0)
    err = errno;
  if (err == 0)
    fchmod (out, st.st_mode & 07777);
  close (in);
  if (close (out) != 0 && err == 0)
    err = errno;
  if (err == 0 && rename (tmpl, dst) != 0)
    err = errno;
  if (err != 0)
    g_unlink (tmpl);
  g_hash_table_remove (temps, tmpl);
  return err;
}

/* Recursive COPY of a collection below @root_real; dotfiles are not part of the namespace and
 * stay behind. File copies go through temporaries listed in @temps. Returns 0 or an errno. */
int
lb_store_fs_copy_tree (const char *root_real, GHashTable *temps, const char *src, const char *dst,
                       gboolean recursive)
{
  struct stat st;
  g_autoptr(GPtrArray) names = NULL;

  if (stat (src, &st) != 0)
    return errno;
  if (S_ISREG (st.st_mode))
    return copy_file_atomic (temps, src, dst);
  if (mkdir (dst, (st.st_mode & 07777) | S_IRWXU) != 0)
    return errno;
  if (!recursive)
    return 0;
  names = lb_store_fs_list_children (root_real, src);
  if (names == NULL)
    return errno;
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *s = g_build_filename (src, g_ptr_array_index (names, i), NULL);
      g_autofree char *d = g_build_filename (dst, g_ptr_array_index (names, i), NULL);
      int err = lb_store_fs_copy_tree (root_real, temps, s, d, TRUE);

      if (err != 0)
        return err;
    }
  return 0;
}

static guint stale_removed; /* nftw() passes no user data */

static int
remove_stale_cb (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  const char *base = path + ftw->base;

  if (flag == FTW_F && g_str_has_prefix (base, LB_STORE_TEMP_PREFIX) && g_unlink (path) == 0)
    stale_removed++;
  return 0;
}

/* Removes the upload temporaries below @root (not crossing mounts nor following symlinks);
 * returns how many. */
guint
lb_store_fs_remove_stale_temps (const char *root)
{
  stale_removed = 0;
  nftw (root, remove_stale_cb, 32, FTW_PHYS | FTW_MOUNT);
  return stale_removed;
}
