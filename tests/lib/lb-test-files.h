/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Files for the tests: paths from the environment meson test sets, temporary directories,
 * whole files read back. Every helper asserts what it needs (a test fails where the
 * fixture is broken, not later). */

#include <gio/gio.h>

G_BEGIN_DECLS

/* The value of the environment variable @name, which meson.build (or the script a test runs
 * under) sets; a clear error when it is not set. */
const char *lb_test_getenv        (const char *name);
/* g_build_filename() below the directory in the environment variable @env_var (such as
 * LB_TEST_DATA, LB_BUILD_ROOT or LB_TEST_PLUGIN_DIR). */
char       *lb_test_build_path    (const char *env_var,
                                   const char *first_element,
                                   ...) G_GNUC_NULL_TERMINATED G_GNUC_MALLOC;
/* A new directory "lb-@tag-XXXXXX" in the temporary directory. */
char       *lb_test_make_tmpdir   (const char *tag) G_GNUC_MALLOC;
/* Removes @path and everything below it (symbolic links are removed, never followed); what
 * cannot be removed stays. */
void        lb_test_remove_tree   (const char *path);
/* The number of entries in the directory @dir (0 when it cannot be read). */
guint       lb_test_count_entries (const char *dir);
/* Copies the directory @src to @dst (created), files and directories. */
void        lb_test_copy_tree     (const char *src,
                                   const char *dst);
/* The contents of the file at @path. */
GBytes     *lb_test_read_file     (const char *path);
/* SHA-256 of the file at @path, in hexadecimal. */
char       *lb_test_sha256_file   (const char *path) G_GNUC_MALLOC;
/* Copies @src to @dir/@name the way installers should: a temporary name, then rename(), so a
 * directory monitor never sees a half-written file. */
void        lb_test_install_file  (const char *src,
                                   const char *dir,
                                   const char *name);

G_END_DECLS
