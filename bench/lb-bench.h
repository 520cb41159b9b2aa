/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "lb-measure.h"
#include "lb-measure-table.h"

G_BEGIN_DECLS

/* lightbox-bench subcommands, one file each (lb-bench-<name>.c); lb-bench.c dispatches.
 * Each takes argv with argv[0] = the subcommand name and returns the exit status. */
int lb_bench_filters_main  (int argc, char **argv);
int lb_bench_mem_pass_main (int argc, char **argv);   /* hidden: the memory child of filters */
int lb_bench_net_main      (int argc, char **argv);
int lb_bench_dicom_main    (int argc, char **argv);
int lb_bench_python_main   (int argc, char **argv);

/* Helpers shared by the subcommands (lb-bench.c). */

/* Writes @dir/@name-@key.csv for every table and @dir/@name.json with all of them:
 * {"command": name, "date": ISO 8601, "threads": n, "notes": […], "tables": {key: table}}.
 * @keys and @tables are parallel, NULL-terminated. */
gboolean    lb_bench_write_results (const char          *dir,
                                    const char          *name,
                                    const char * const  *keys,
                                    LbMeasureTable     **tables,
                                    GPtrArray           *notes,
                                    GError             **error);
/* Writes the non-empty @tables (NULL-terminated), each under its title, and @notes to @path
 * as markdown, under a first line naming @command, the commit lightbox-bench was built from,
 * the machine and the date. The file is replaced atomically; its directory must exist. */
gboolean    lb_bench_write_markdown (const char          *path,
                                     const char          *command,
                                     LbMeasureTable     **tables,
                                     GPtrArray           *notes,
                                     GError             **error);
/* "lightbox-bench ARGS…" as a shell would take it (@argv[0] the subcommand's name). */
char       *lb_bench_command_line  (int                  argc,
                                    char               **argv);
/* "12.3", "0.456", "1234": three significant digits at least, no exponent. */
char       *lb_bench_fmt           (double value);
/* Wall time of one child process run to completion (ms), stdout and stderr discarded. A
 * non-zero exit is an error naming the command. */
gboolean    lb_bench_time_command  (const char * const  *argv,
                                    double              *out_ms,
                                    GError             **error);
/* The first of @names found in PATH (or as an absolute path), or NULL. */
char       *lb_bench_find_program  (const char * const  *names);
/* Maximum of the all-threads count: g_get_num_processors (). */
guint       lb_bench_n_threads     (void);

G_END_DECLS
