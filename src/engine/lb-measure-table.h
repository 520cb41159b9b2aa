/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>
#include <stdio.h>

G_BEGIN_DECLS

/* A results table printed aligned on the terminal and written as CSV, JSON and markdown.
 * Cells are strings; cells that parse completely as numbers become JSON numbers. */
typedef struct _LbMeasureTable LbMeasureTable;

LbMeasureTable *lb_measure_table_new           (const char         *title,
                                               const char * const *columns);
void            lb_measure_table_free          (LbMeasureTable     *table);
/* NULL-terminated list of printf-formatted cells is awkward in C; pass one row as a vector
 * with exactly as many cells as columns. */
void            lb_measure_table_add_row       (LbMeasureTable     *table,
                                               const char * const *cells);
void            lb_measure_table_add_rowf      (LbMeasureTable     *table,
                                               const char         *first,
                                               ...) G_GNUC_NULL_TERMINATED;
/* Adds a row from a NULL-terminated list of g_strdup'ed/g_strdup_printf'ed cells, which it
 * frees (so callers can write add_row_take (t, g_strdup_printf (…), …, NULL)). */
void            lb_measure_table_add_row_take  (LbMeasureTable     *table,
                                               char               *first,
                                               ...) G_GNUC_NULL_TERMINATED;
const char     *lb_measure_table_get_title     (LbMeasureTable     *table);
guint           lb_measure_table_get_n_rows    (LbMeasureTable     *table);
const char     *lb_measure_table_get_cell      (LbMeasureTable     *table,
                                               guint               row,
                                               const char         *column);
void            lb_measure_table_print         (LbMeasureTable     *table,
                                               FILE               *out);
gboolean        lb_measure_table_write_csv     (LbMeasureTable     *table,
                                               const char         *path,
                                               GError            **error);
/* (transfer full): a GitHub-flavoured markdown table, without the title: a header row, the
 * delimiter row (a column whose cells are all numbers is right-aligned) and one row per
 * row, each line ending in a newline; the columns padded to their width, so that the text
 * itself reads as a table. */
char           *lb_measure_table_to_markdown   (LbMeasureTable     *table);
/* (transfer full): {"title": …, "rows": [{column: value, …}, …]} */
JsonNode       *lb_measure_table_to_json       (LbMeasureTable     *table);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LbMeasureTable, lb_measure_table_free)

G_END_DECLS
