/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-bench-panel"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "lb-bench-panel.h"
#include "lb-bench-record.h"
#include "lb-dialogs.h"
#include "lb-measure-table.h"

struct _LbBenchPanel {
  GtkWidget         parent_instance;

  /* Template widgets */
  GtkWidget        *box;
  GtkWidget        *table;      /* GtkColumnView over sorted */
  GtkSortListModel *sorted;     /* records in the order of the column clicked last */
  GtkWidget        *plot;
  GtkWidget        *summary;

  /* Owned */
  GListStore       *records;    /* LbBenchRecord, in the order they were logged */
};

G_DEFINE_FINAL_TYPE (LbBenchPanel, lb_bench_panel, GTK_TYPE_WIDGET)

/* ---- plot ------------------------------------------------------------------------------ */

static const double palette[][3] = {
  { 0.40, 0.70, 1.00 }, { 1.00, 0.60, 0.20 }, { 0.45, 0.85, 0.45 }, { 0.95, 0.40, 0.45 },
  { 0.75, 0.55, 0.95 }, { 0.95, 0.85, 0.30 }, { 0.40, 0.90, 0.90 }, { 0.85, 0.85, 0.85 },
};

static int
compare_by_x (gconstpointer a,
              gconstpointer b)
{
  double xa = lb_bench_record_get_megapixels (*(LbBenchRecord **) a);
  double xb = lb_bench_record_get_megapixels (*(LbBenchRecord **) b);

  return xa < xb ? -1 : xa > xb ? 1 : 0;
}

static double
nice_step (double range)
{
  double raw = range / 5, mag = pow (10, floor (log10 (raw))), n = raw / mag;

  return (n < 1.5 ? 1 : n < 3.5 ? 2 : n < 7.5 ? 5 : 10) * mag;
}

static void
draw_plot (GtkDrawingArea *area,
           cairo_t        *cr,
           int             width,
           int             height,
           gpointer        user_data)
{
  LbBenchPanel *self = user_data;
  const double ml = 56, mr = 12, mt = 12, mb = 34;
  double xmax = 0, ymax = 0, pw = width - ml - mr, ph = height - mt - mb, step;
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autoptr (GPtrArray) records = g_ptr_array_new_with_free_func (g_object_unref);

  cairo_set_source_rgb (cr, 0.12, 0.12, 0.12);
  cairo_paint (cr);
  if (pw < 20 || ph < 20)
    return;
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (self->records)); i++)
    {
      LbBenchRecord *r = g_list_model_get_item (G_LIST_MODEL (self->records), i);
      const char *filter = lb_bench_record_get_filter (r);

      g_ptr_array_add (records, r);
      xmax = MAX (xmax, lb_bench_record_get_megapixels (r));
      ymax = MAX (ymax, lb_bench_record_get_ms (r));
      if (!g_ptr_array_find_with_equal_func (names, filter, g_str_equal, NULL))
        g_ptr_array_add (names, (gpointer) filter);
    }
  if (xmax <= 0)
    xmax = 1;
  /* room on the right so the largest size is not drawn on the frame */
  if (ymax <= 0)
    ymax = 1;
  xmax *= 1.15;
  ymax *= 1.2;

  /* axes and grid */
  cairo_set_line_width (cr, 1);
  cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, 10);
  step = nice_step (ymax);
  for (double y = 0; y <= ymax; y += step)
    {
      double py = mt + ph - y / ymax * ph;
      char buf[32];

      cairo_set_source_rgba (cr, 1, 1, 1, 0.12);
      cairo_move_to (cr, ml, py + 0.5);
      cairo_line_to (cr, ml + pw, py + 0.5);
      cairo_stroke (cr);
      cairo_set_source_rgba (cr, 1, 1, 1, 0.7);
      g_snprintf (buf, sizeof buf, "%g", y);
      cairo_move_to (cr, 4, py + 3);
      cairo_show_text (cr, buf);
    }
  step = nice_step (xmax);
  for (double x = 0; x <= xmax; x += step)
    {
      double px = ml + x / xmax * pw;
      char buf[32];

      cairo_set_source_rgba (cr, 1, 1, 1, 0.12);
      cairo_move_to (cr, px + 0.5, mt);
      cairo_line_to (cr, px + 0.5, mt + ph);
      cairo_stroke (cr);
      cairo_set_source_rgba (cr, 1, 1, 1, 0.7);
      g_snprintf (buf, sizeof buf, "%g", x);
      cairo_move_to (cr, px - 6, mt + ph + 13);
      cairo_show_text (cr, buf);
    }
  cairo_move_to (cr, ml + pw / 2 - 50, height - 4);
  cairo_show_text (cr, _("image size (Mpx)"));
  cairo_save (cr);
  cairo_move_to (cr, 12, mt + ph / 2 + 20);
  cairo_rotate (cr, -G_PI / 2);
  cairo_restore (cr);
  cairo_move_to (cr, ml + 4, mt + 10);
  cairo_show_text (cr, _("time (ms)"));

  /* one polyline per filter, points sorted by size */
  for (guint s = 0; s < names->len; s++)
    {
      g_autoptr (GPtrArray) pts = g_ptr_array_new ();
      const double *c = palette[s % G_N_ELEMENTS (palette)];

      for (guint i = 0; i < records->len; i++)
        if (g_str_equal (lb_bench_record_get_filter (records->pdata[i]), names->pdata[s]))
          g_ptr_array_add (pts, records->pdata[i]);
      g_ptr_array_sort (pts, compare_by_x);
      cairo_set_source_rgb (cr, c[0], c[1], c[2]);
      cairo_set_line_width (cr, 1.5);
      for (guint i = 0; i < pts->len; i++)
        {
          double px = ml + lb_bench_record_get_megapixels (pts->pdata[i]) / xmax * pw;
          double py = mt + ph - lb_bench_record_get_ms (pts->pdata[i]) / ymax * ph;
          if (i == 0)
            cairo_move_to (cr, px, py);
          else
            cairo_line_to (cr, px, py);
        }
      cairo_stroke (cr);
      for (guint i = 0; i < pts->len; i++)
        {
          double px = ml + lb_bench_record_get_megapixels (pts->pdata[i]) / xmax * pw;
          double py = mt + ph - lb_bench_record_get_ms (pts->pdata[i]) / ymax * ph;
          cairo_arc (cr, px, py, 3, 0, 2 * G_PI);
          cairo_fill (cr);
        }
      /* legend at the top left: the largest sizes (and points) are on the right */
      {
        const char *n = names->pdata[s], *dot = strrchr (n, '.');
        cairo_move_to (cr, ml + 8, mt + 24 + 13 * s);
        cairo_show_text (cr, dot ? dot + 1 : n);
      }
    }
}

/* ---- table cells (the closures of ui/lb-bench-panel.ui) ------------------------------ */

/* The log shows the last part of the id ("threshold"); CSV and the tooltip keep all of it. */
static char *
short_filter_name (gpointer    item,
                   const char *filter)
{
  const char *dot = filter ? strrchr (filter, '.') : NULL;

  return g_strdup (dot ? dot + 1 : filter);
}

static char *
format_size (gpointer item,
             guint    width,
             guint    height)
{
  return g_strdup_printf ("%u×%u", width, height);
}

static char *
format_count (gpointer item,
              guint    n)
{
  return g_strdup_printf ("%u", n);
}

static char *
format_ms (gpointer item,
           double   ms)
{
  return g_strdup_printf ("%.2f", ms);
}

static char *
format_mpx_per_s (gpointer item,
                  double   mpx_per_s)
{
  return g_strdup_printf ("%.1f", mpx_per_s);
}

/* ---- actions --------------------------------------------------------------------------- */

static guint
n_records (LbBenchPanel *self)
{
  return g_list_model_get_n_items (G_LIST_MODEL (self->records));
}

/* Export, copy and clear need something in the log. */
static void
update_actions (LbBenchPanel *self)
{
  gboolean any = n_records (self) > 0;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "bench.export", any);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "bench.copy", any);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "bench.clear", any);
}

static void
records_changed (LbBenchPanel *self)
{
  guint n = n_records (self);
  /* short: the toolbar beside it has four buttons in half of a 1280 px window */
  g_autofree char *sum = g_strdup_printf (ngettext ("%u pass", "%u passes", n), n);

  gtk_label_set_text (GTK_LABEL (self->summary), sum);
  gtk_widget_queue_draw (self->plot);
  update_actions (self);
}

static void
on_csv_chosen (GFile    *file,
               gpointer  user_data)
{
  LbBenchPanel *self = user_data;
  g_autofree char *path = file ? g_file_get_path (file) : NULL;
  g_autoptr (GError) error = NULL;

  if (path && !lb_bench_panel_write_csv (self, path, &error))
    gtk_label_set_text (GTK_LABEL (self->summary), error->message);
}

/* bench.export: the log as CSV, to a file the user picks. */
static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  LbFileDialogOptions options = { .title = _("Export Benchmark CSV"),
                                  .accept_label = _("_Export"),
                                  .initial_name = "lightbox-benchmark.csv" };

  lb_dialogs_save_file (GTK_WINDOW (gtk_widget_get_root (widget)), &options, on_csv_chosen,
                        widget);
}

/* bench.copy (Ctrl+C in the panel): the table as shown, tab-separated for a spreadsheet. */
static void
copy_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  g_autofree char *text = lb_bench_panel_dup_text (LB_BENCH_PANEL (widget));

  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), text);
}

/* bench.clear */
static void
clear_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  lb_bench_panel_clear (LB_BENCH_PANEL (widget));
}

/* ---- widget ---------------------------------------------------------------------------- */

static void
lb_bench_panel_dispose (GObject *object)
{
  LbBenchPanel *self = LB_BENCH_PANEL (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), LB_TYPE_BENCH_PANEL);
  g_clear_object (&self->records);
  G_OBJECT_CLASS (lb_bench_panel_parent_class)->dispose (object);
}

static void
lb_bench_panel_class_init (LbBenchPanelClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = lb_bench_panel_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "lb-bench-panel");

  /* the cells and sorters look the type up by name */
  g_type_ensure (LB_TYPE_BENCH_RECORD);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/lightbox/Lightbox/ui/lb-bench-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, LbBenchPanel, box);
  gtk_widget_class_bind_template_child (widget_class, LbBenchPanel, table);
  gtk_widget_class_bind_template_child (widget_class, LbBenchPanel, sorted);
  gtk_widget_class_bind_template_child (widget_class, LbBenchPanel, plot);
  gtk_widget_class_bind_template_child (widget_class, LbBenchPanel, summary);
  gtk_widget_class_bind_template_callback (widget_class, short_filter_name);
  gtk_widget_class_bind_template_callback (widget_class, format_size);
  gtk_widget_class_bind_template_callback (widget_class, format_count);
  gtk_widget_class_bind_template_callback (widget_class, format_ms);
  gtk_widget_class_bind_template_callback (widget_class, format_mpx_per_s);

  gtk_widget_class_install_action (widget_class, "bench.export", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "bench.copy", NULL, copy_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_c, GDK_CONTROL_MASK, "bench.copy",
                                       NULL);
  gtk_widget_class_install_action (widget_class, "bench.clear", NULL, clear_action);
}

static void
lb_bench_panel_init (LbBenchPanel *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->records = g_list_store_new (LB_TYPE_BENCH_RECORD);
  /* a click on a column's header sorts the table; the log itself keeps its order */
  gtk_sort_list_model_set_model (self->sorted, G_LIST_MODEL (self->records));
  gtk_sort_list_model_set_sorter (self->sorted,
                                  gtk_column_view_get_sorter (GTK_COLUMN_VIEW (self->table)));
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->plot), draw_plot, self, NULL);
  update_actions (self);
}

GtkWidget *
lb_bench_panel_new (void)
{
  return g_object_new (LB_TYPE_BENCH_PANEL, NULL);
}

void
lb_bench_panel_add (LbBenchPanel  *self,
                    const char    *filter,
                    const char    *params,
                    guint          width,
                    guint          height,
                    LbSampleFormat format,
                    guint          threads,
                    double         ms)
{
  g_autoptr (LbBenchRecord) record = NULL;

  g_return_if_fail (LB_IS_BENCH_PANEL (self));
  record = lb_bench_record_new (filter, params, width, height, format, threads, ms);
  g_list_store_append (self->records, record);
  records_changed (self);
}

guint
lb_bench_panel_get_n_records (LbBenchPanel *self)
{
  g_return_val_if_fail (LB_IS_BENCH_PANEL (self), 0);
  return n_records (self);
}

void
lb_bench_panel_clear (LbBenchPanel *self)
{
  g_return_if_fail (LB_IS_BENCH_PANEL (self));
  g_list_store_remove_all (self->records);
  records_changed (self);
}

char *
lb_bench_panel_dup_text (LbBenchPanel *self)
{
  GListModel *columns;
  g_autoptr (GString) text = g_string_new (NULL);

  g_return_val_if_fail (LB_IS_BENCH_PANEL (self), NULL);
  columns = gtk_column_view_get_columns (GTK_COLUMN_VIEW (self->table));
  for (guint c = 0; c < g_list_model_get_n_items (columns); c++)
    {
      g_autoptr (GtkColumnViewColumn) column = g_list_model_get_item (columns, c);

      if (c > 0)
        g_string_append_c (text, '\t');
      g_string_append (text, gtk_column_view_column_get_title (column));
    }
  g_string_append_c (text, '\n');
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (self->sorted)); i++)
    {
      g_autoptr (LbBenchRecord) r = g_list_model_get_item (G_LIST_MODEL (self->sorted), i);
      g_autofree char *name = short_filter_name (NULL, lb_bench_record_get_filter (r));
      g_autofree char *size = format_size (NULL, lb_bench_record_get_width (r),
                                           lb_bench_record_get_height (r));
      g_autofree char *threads = format_count (NULL, lb_bench_record_get_threads (r));
      g_autofree char *ms = format_ms (NULL, lb_bench_record_get_ms (r));
      g_autofree char *mps = format_mpx_per_s (NULL, lb_bench_record_get_mpx_per_s (r));

      g_string_append_printf (text, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", name,
                              lb_bench_record_get_params (r), size,
                              lb_sample_format_to_string (lb_bench_record_get_format (r)),
                              threads, ms, mps);
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

gboolean
lb_bench_panel_write_csv (LbBenchPanel *self,
                          const char   *path,
                          GError      **error)
{
  static const char *const columns[] = { "filter", "params", "width", "height", "format",
                                         "threads", "ms", "mpx_per_s", NULL };
  g_autoptr (LbMeasureTable) table = lb_measure_table_new ("Lightbox benchmark mode", columns);

  g_return_val_if_fail (LB_IS_BENCH_PANEL (self), FALSE);
  for (guint i = 0; i < n_records (self); i++)
    {
      g_autoptr (LbBenchRecord) r = g_list_model_get_item (G_LIST_MODEL (self->records), i);
      g_autofree char *w = g_strdup_printf ("%u", lb_bench_record_get_width (r));
      g_autofree char *h = g_strdup_printf ("%u", lb_bench_record_get_height (r));
      g_autofree char *t = g_strdup_printf ("%u", lb_bench_record_get_threads (r));
      char ms[G_ASCII_DTOSTR_BUF_SIZE], mps[G_ASCII_DTOSTR_BUF_SIZE];
      const char *cells[8];

      g_ascii_formatd (ms, sizeof ms, "%.3f", lb_bench_record_get_ms (r));
      g_ascii_formatd (mps, sizeof mps, "%.3f", lb_bench_record_get_mpx_per_s (r));
      cells[0] = lb_bench_record_get_filter (r);
      cells[1] = lb_bench_record_get_params (r);
      cells[2] = w;
      cells[3] = h;
      cells[4] = lb_sample_format_to_string (lb_bench_record_get_format (r));
      cells[5] = t;
      cells[6] = ms;
      cells[7] = mps;
      lb_measure_table_add_row (table, cells);
    }
  return lb_measure_table_write_csv (table, path, error);
}

GtkWidget *
lb_bench_panel_get_plot (LbBenchPanel *self)
{
  g_return_val_if_fail (LB_IS_BENCH_PANEL (self), NULL);
  return self->plot;
}

GtkWidget *
lb_bench_panel_get_table (LbBenchPanel *self)
{
  g_return_val_if_fail (LB_IS_BENCH_PANEL (self), NULL);
  return self->table;
}
