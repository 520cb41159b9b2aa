/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>
#include <stdio.h>

G_BEGIN_DECLS

/* A results table printed aligned on the terminal and written as CSV and JSON. Cells are
 * strings; cells that parse completely as numbers become JSON numbers. */
typedef struct _LbBenchTable LbBenchTable;

LbBenchTable *lb_bench_table_new       (const char         *title,
                                        const char * const *columns);
void          lb_bench_table_free      (LbBenchTable       *table);
/* NULL-terminated list of printf-formatted cells is awkward in C; pass one row as a vector
 * with exactly as many cells as columns. */
void          lb_bench_table_add_row   (LbBenchTable       *table,
                                        const char * const *cells);
void          lb_bench_table_add_rowf  (LbBenchTable       *table,
                                        const char         *first,
                                        ...) G_GNUC_NULL_TERMINATED;
guint         lb_bench_table_get_n_rows (LbBenchTable      *table);
const char   *lb_bench_table_get_cell  (LbBenchTable       *table,
                                        guint               row,
                                        const char         *column);
void          lb_bench_table_print     (LbBenchTable       *table,
                                        FILE               *out);
gboolean      lb_bench_table_write_csv (LbBenchTable       *table,
                                        const char         *path,
                                        GError            **error);
/* (transfer full): {"title": …, "rows": [{column: value, …}, …]} */
JsonNode     *lb_bench_table_to_json   (LbBenchTable       *table);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LbBenchTable, lb_bench_table_free)

G_END_DECLS
