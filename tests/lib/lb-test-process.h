/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Processes for the tests: the lightbox-store built with them, started on a free port of
 * 127.0.0.1 (--port 0) and never outliving the test, and external tools. */

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct {
  GSubprocess *proc;
  char        *url;  /* http://127.0.0.1:PORT/ (with the trailing slash) */
  char        *root; /* the copy of data/samples lb_test_server_start_samples() made, or NULL */
} LbTestServer;

/* The lightbox-store built with the tests ($LB_BUILD_ROOT). */
char    *lb_test_server_exe           (void) G_GNUC_MALLOC;
/* A lightbox-store command line (free with g_strfreev()): the binary, --port 0, @extra
 * (NULL-terminated; NULL for none), then @root. */
char   **lb_test_server_argv          (const char        *root,
                                       const char *const *extra) G_GNUC_MALLOC;
/* Spawns @argv (a lightbox-store command line) through @launcher, which must pipe stdout,
 * and waits for the address it prints ("Serving … at URL"): @proc and @url (with a trailing
 * slash) get them. The server dies with the test (a timeout, a failed assertion). */
void     lb_test_server_spawn         (GSubprocessLauncher *launcher,
                                       const char *const   *argv,
                                       GSubprocess        **proc,
                                       char               **url);
/* Starts lightbox-store serving @root. */
void     lb_test_server_start         (LbTestServer *s,
                                       const char   *root);
/* Copies data/samples (and @filter_file, if any, into .lightbox/filters/) to a temporary
 * root and serves it; lb_test_server_stop() removes the copy. */
void     lb_test_server_start_samples (LbTestServer *s,
                                       const char   *filter_file);
/* Sends @sig (SIGTERM: a clean stop; SIGKILL: a crash) and reaps the process. */
void     lb_test_server_kill          (LbTestServer *s,
                                       int           sig);
/* lb_test_server_kill (SIGTERM) if it runs, and removes the copy of the samples. */
void     lb_test_server_stop          (LbTestServer *s);
/* A "USER:HASH" line for lightbox-store --passwd-file (a salted yescrypt hash), made by
 * lightbox-store --hash-password. */
char    *lb_test_server_hash_password (const char *user,
                                       const char *password) G_GNUC_MALLOC;
/* lightbox-store's upload temporaries (".lbput-*") anywhere below @dir. */
guint    lb_test_server_count_temps   (const char *dir);

/* Whether @name is found in PATH. */
gboolean lb_test_have_program         (const char *name);
/* ImageMagick's command-line converter, as argv[0]: `magick` (ImageMagick 7, Debian 13) or
 * `convert-im6.q16` (ImageMagick 6, Debian 12), whichever is in PATH; `convert` is the last
 * resort (in ImageMagick 7 it warns that it is deprecated). Fails the test when none is
 * installed (build-aux/install-deps.sh installs it). */
const char *lb_test_imagemagick       (void);
/* Runs @argv (searched in PATH); returns its stdout, sets @err to its stderr and @status to
 * 0 for a clean exit, 1 otherwise. */
char    *lb_test_run_tool             (const char *const *argv,
                                       char             **err,
                                       int               *status) G_GNUC_MALLOC;
/* Runs the independent reference tests/@subdir/@script (python3, pydicom and numpy) with the
 * scratch directory @dir as its argument; returns its stdout (JSON, by convention), or NULL
 * when the script exits 77 (its modules missing: the caller skips). Any other failure fails
 * the test. */
char    *lb_test_run_reference        (const char *subdir,
                                       const char *script,
                                       const char *dir) G_GNUC_MALLOC;

G_END_DECLS
