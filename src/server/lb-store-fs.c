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
static void
sync_dir (const char *dir)
{
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd >= 0)
    {
      fsync (fd);
      close (fd);
    }
}

/* fsync of the directory holding @path. */
void
lb_store_fs_sync_dir_of (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);

  sync_dir (dir);
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

/* Reads up to @len bytes from the start of @fd (pread: the file offset is left alone), retrying
 * on EINTR. Returns how many were read; fewer than @len at the end of the file or on an error. */
gsize
lb_store_fs_read_head (int fd, void *buf, gsize len)
{
  guint8 *p = buf;
  gsize got = 0;

  while (got < len)
    {
      ssize_t k = pread (fd, p + got, len - got, (off_t) got);

      if (k < 0 && errno == EINTR)
        continue;
      if (k <= 0)
        break;
      got += (gsize) k;
    }
  return got;
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

/* A path for a new hidden sibling of @abs: same directory, so a rename between the two never
 * crosses file systems, and an upload temporary's prefix, so it is never listed nor served and
 * is removed at start-up if the server dies first. Nothing is created. */
static char *
hidden_sibling (const char *abs)
{
  static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  g_autofree char *dir = g_path_get_dirname (abs);
  char suffix[13];

  for (guint i = 0; i < sizeof suffix - 1; i++)
    suffix[i] = chars[g_random_int_range (0, sizeof chars - 1)];
  suffix[sizeof suffix - 1] = '\0';
  return g_strdup_printf ("%s/" LB_STORE_TEMP_PREFIX "%s", dir, suffix);
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

/*
 * Takes @abs out of the namespace at once (renamed to a hidden sibling), then removes it, file
 * or tree. What cannot be removed stays hidden and goes at the next start-up.
 */
void
lb_store_fs_discard (const char *abs)
{
  g_autofree char *aside = hidden_sibling (abs);
  const char *victim = abs;
  int err;

  if (lb_store_fs_rename_noreplace (abs, aside) == 0)
    victim = aside;
  err = lb_store_fs_remove_tree (victim);
  if (err != 0)
    g_warning ("cannot remove %s: %s", victim, g_strerror (err));
}

/*
 * lb_store_fs_install:
 * @from: a new file or tree, beside @to (same file system)
 * @to: where it goes
 * @replace: whether it may replace what @to is now
 *
 * Puts @from in place of @to. Without @replace it never replaces anything (EEXIST). With it, a
 * file replaces a file by rename(2); where a collection is involved, the two are swapped in one
 * step (renameat2 RENAME_EXCHANGE) and the old one is discarded afterwards. File systems
 * without the exchange move the old one aside first and put it back if the rename fails.
 * Returns 0 or an errno; on failure @to is as it was (EXDEV: @from lies on another file system).
 */
int
lb_store_fs_install (const char *from, const char *to, gboolean replace)
{
  g_autofree char *aside = NULL;
  struct stat fst, tst;
  int err;

  if (!replace)
    return lb_store_fs_rename_noreplace (from, to);
  if (lstat (from, &fst) != 0)
    return errno;
  if (lstat (to, &tst) != 0 || (!S_ISDIR (fst.st_mode) && !S_ISDIR (tst.st_mode)))
    return rename (from, to) == 0 ? 0 : errno;

  if (renameat2 (AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE) == 0)
    {
      lb_store_fs_discard (from); /* the old one, now where the new one was */
      return 0;
    }
  if (errno != EINVAL && errno != ENOSYS)
    return errno;
  aside = hidden_sibling (to);
  if ((err = lb_store_fs_rename_noreplace (to, aside)) != 0)
    return err;
  if (rename (from, to) != 0)
    {
      err = errno;
      if (rename (aside, to) != 0)
        g_warning ("cannot put %s back to %s: %s", aside, to, g_strerror (errno));
      return err;
    }
  lb_store_fs_discard (aside);
  return 0;
}

/* Copies the regular file @src into the new file @out_fd (fsynced, with @src's mode). Returns
 * 0 or an errno. @src is opened without blocking and must still be a regular file. */
static int
copy_file_into (const char *src, int out_fd)
{
  int in, err = 0;
  struct stat st;
  char buf[64 * 1024];

  in = open (src, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (in < 0)
    return errno;
  if (fstat (in, &st) != 0)
    err = errno;
  else if (!S_ISREG (st.st_mode))
    err = ENOENT; /* not a file (any more): not part of the namespace */
  if (err != 0)
    {
      close (in);
      return err;
    }
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
      err = lb_store_fs_write_all (out_fd, buf, (gsize) n);
      if (err != 0)
        break;
    }
  close (in);
  if (err == 0 && fchmod (out_fd, st.st_mode & 07777) != 0)
    err = errno;
  if (err == 0 && fsync (out_fd) != 0)
    err = errno;
  return err;
}

static int
copy_file_to (const char *src, const char *dst)
{
  int out = open (dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  int err;

  if (out < 0)
    return errno;
  err = copy_file_into (src, out);
  if (close (out) != 0 && err == 0)
    err = errno;
  return err;
}

/* Copies the public members of the collection @src into the existing directory @dst, all the
 * way down; dotfiles are not part of the namespace and stay behind. Every file and directory
 * is fsynced. */
static int
copy_members (const char *root_real, const char *src, const char *dst)
{
  g_autoptr(GPtrArray) names = lb_store_fs_list_children (root_real, src);

  if (names == NULL)
    return errno;
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *s = g_build_filename (src, g_ptr_array_index (names, i), NULL);
      g_autofree char *d = g_build_filename (dst, g_ptr_array_index (names, i), NULL);
      struct stat st;
      int err;

      if (stat (s, &st) != 0)
        return errno;
      if (S_ISDIR (st.st_mode))
        {
          if (mkdir (d, (st.st_mode & 07777) | S_IRWXU) != 0)
            return errno;
          err = copy_members (root_real, s, d);
        }
      else
        err = copy_file_to (s, d);
      if (err != 0)
        return err;
    }
  sync_dir (dst);
  return 0;
}

/*
 * lb_store_fs_copy_beside:
 * @src: a file, or a collection below @root_real
 * @dst: where the copy is meant to go
 * @recursive: copy a collection's members all the way down (else the collection alone)
 * @tmp_out: (out): the copy
 *
 * Builds the copy of @src in a new hidden sibling of @dst, every file fsynced, ready for
 * lb_store_fs_install(); nothing at @dst changes. Returns 0, or an errno with the partial copy
 * already removed (a full disk leaves nothing behind).
 */
int
lb_store_fs_copy_beside (const char *root_real, const char *src, const char *dst, gboolean recursive,
                         char **tmp_out)
{
  g_autofree char *tmp = NULL;
  struct stat st;
  int err, fd;

  if (stat (src, &st) != 0)
    return errno;
  if (S_ISREG (st.st_mode))
    {
      err = lb_store_fs_open_temp (dst, &fd, &tmp);
      if (err != 0)
        return err;
      err = copy_file_into (src, fd);
      if (close (fd) != 0 && err == 0)
        err = errno;
    }
  else if (S_ISDIR (st.st_mode))
    {
      tmp = hidden_sibling (dst);
      if (mkdir (tmp, (st.st_mode & 07777) | S_IRWXU) != 0)
        return errno;
      err = recursive ? copy_members (root_real, src, tmp) : 0;
    }
  else
    return ENOENT; /* not part of the namespace */
  if (err != 0)
    {
      lb_store_fs_remove_tree (tmp);
      return err;
    }
  *tmp_out = g_steal_pointer (&tmp);
  return 0;
}

static guint stale_removed; /* nftw() passes no user data */

static int
remove_stale_cb (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  const char *base = path + ftw->base;

  if (!g_str_has_prefix (base, LB_STORE_TEMP_PREFIX))
    return 0;
  /* Files: upload temporaries. Directories (visited after their contents): a COPY or MOVE
   * built beside its destination, or an old tree set aside, when the server died. */
  if ((flag == FTW_F && g_unlink (path) == 0) ||
      (flag == FTW_DP && lb_store_fs_remove_tree (path) == 0))
    stale_removed++;
  return 0;
}

/* Removes the temporaries below @root (not crossing mounts nor following symlinks); returns
 * how many. */
guint
lb_store_fs_remove_stale_temps (const char *root)
{
  stale_removed = 0;
  nftw (root, remove_stale_cb, 32, FTW_PHYS | FTW_MOUNT | FTW_DEPTH);
  return stale_removed;
}
