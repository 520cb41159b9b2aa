/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-bench-panel"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "lb-bench-panel.h"
#include "lb-measure-table.h"

typedef struct {
  char          *filter;
  char          *params;
  guint          width, height;
  LbSampleFormat format;
  guint          threads;
  double         ms;
} Record;

struct _LbBenchPanel {
  GtkWidget      parent_instance;

  GArray        *records;   /* of Record */
  GtkStringList *rows;      /* one formatted line per record, for the list view */
  GtkWidget     *box;
  GtkWidget     *list;
  GtkWidget     *plot;
  GtkWidget     *summary;
};

G_DEFINE_FINAL_TYPE (LbBenchPanel, lb_bench_panel, GTK_TYPE_WIDGET)

static void
record_clear (gpointer data)
{
  Record *r = data;

  g_free (r->filter);
  g_free (r->params);
}

static double
mpx_per_s (const Record *r)
{
  return r->ms > 0 ? (double) r->width * r->height / 1e6 / (r->ms / 1000.0) : 0;
}

/* ---- plot ------------------------------------------------------------------------------ */

static const double palette[][3] = {
  { 0.40, 0.70, 1.00 }, { 1.00, 0.60, 0.20 }, { 0.45, 0.85, 0.45 }, { 0.95, 0.40, 0.45 },
  { 0.75, 0.55, 0.95 }, { 0.95, 0.85, 0.30 }, { 0.40, 0.90, 0.90 }, { 0.85, 0.85, 0.85 },
};

static int
compare_by_x (gconstpointer a,
              gconstpointer b)
{
  const Record *ra = *(const Record **) a, *rb = *(const Record **) b;
  double xa = (double) ra->width * ra->height, xb = (double) rb->width * rb->height;

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

  cairo_set_source_rgb (cr, 0.12, 0.12, 0.12);
  cairo_paint (cr);
  if (pw < 20 || ph < 20)
    return;
  for (guint i = 0; i < self->records->len; i++)
    {
      Record *r = &g_array_index (self->records, Record, i);
      xmax = MAX (xmax, (double) r->width * r->height / 1e6);
      ymax = MAX (ymax, r->ms);
      if (!g_ptr_array_find_with_equal_func (names, r->filter, g_str_equal, NULL))
        g_ptr_array_add (names, r->filter);
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

      for (guint i = 0; i < self->records->len; i++)
        {
          Record *r = &g_array_index (self->records, Record, i);
          if (g_str_equal (r->filter, names->pdata[s]))
            g_ptr_array_add (pts, r);
        }
      g_ptr_array_sort (pts, compare_by_x);
      cairo_set_source_rgb (cr, c[0], c[1], c[2]);
      cairo_set_line_width (cr, 1.5);
      for (guint i = 0; i < pts->len; i++)
        {
          Record *r = pts->pdata[i];
          double px = ml + (double) r->width * r->height / 1e6 / xmax * pw;
          double py = mt + ph - r->ms / ymax * ph;
          if (i == 0)
            cairo_move_to (cr, px, py);
          else
            cairo_line_to (cr, px, py);
        }
      cairo_stroke (cr);
      for (guint i = 0; i < pts->len; i++)
        {
          Record *r = pts->pdata[i];
          double px = ml + (double) r->width * r->height / 1e6 / xmax * pw;
          double py = mt + ph - r->ms / ymax * ph;
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

/* ---- widget ---------------------------------------------------------------------------- */

static void
on_csv_response (GtkNativeDialog *native,
                 int              response,
                 LbBenchPanel    *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autofree char *path = file ? g_file_get_path (file) : NULL;
      g_autoptr (GError) error = NULL;

      if (path && !lb_bench_panel_write_csv (self, path, &error))
        gtk_label_set_text (GTK_LABEL (self->summary), error->message);
    }
  g_object_unref (native);
}

static void
on_export_clicked (LbBenchPanel *self)
{
  GtkFileChooserNative *native;

  native = gtk_file_chooser_native_new (_("Export Benchmark CSV"),
                                        GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self))),
                                        GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), "lightbox-benchmark.csv");
  g_signal_connect (native, "response", G_CALLBACK (on_csv_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
lb_bench_panel_dispose (GObject *object)
{
  LbBenchPanel *self = LB_BENCH_PANEL (object);

  g_clear_pointer (&self->box, gtk_widget_unparent);
  g_clear_object (&self->rows);
  G_OBJECT_CLASS (lb_bench_panel_parent_class)->dispose (object);
}

static void
lb_bench_panel_finalize (GObject *object)
{
  g_array_unref (LB_BENCH_PANEL (object)->records);
  G_OBJECT_CLASS (lb_bench_panel_parent_class)->finalize (object);
}

static void
lb_bench_panel_class_init (LbBenchPanelClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = lb_bench_panel_dispose;
  G_OBJECT_CLASS (klass)->finalize = lb_bench_panel_finalize;
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "lb-bench-panel");
}

static void
setup_row (GtkSignalListItemFactory *f,
           GtkListItem              *item,
           gpointer                  data)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (label, "monospace");
  gtk_list_item_set_child (item, label);
}

static void
bind_row (GtkSignalListItemFactory *f,
          GtkListItem              *item,
          gpointer                  data)
{
  GtkStringObject *s = gtk_list_item_get_item (item);

  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (item)), gtk_string_object_get_string (s));
}

#define ROW_FORMAT "%-14s %-20s %9s %-6s %3s %9s %8s"

static void
lb_bench_panel_init (LbBenchPanel *self)
{
  GtkWidget *left, *toolbar, *button, *scroller, *header;
  GtkListItemFactory *f;
  g_autofree char *head = NULL;

  self->records = g_array_new (FALSE, TRUE, sizeof (Record));
  g_array_set_clear_func (self->records, record_clear);
  self->rows = gtk_string_list_new (NULL);

  self->box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_widget_set_size_request (self->box, -1, 240);
  gtk_widget_set_margin_start (self->box, 6);
  gtk_widget_set_margin_end (self->box, 6);
  gtk_widget_set_margin_top (self->box, 6);
  gtk_widget_set_margin_bottom (self->box, 6);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));

  left = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_hexpand (left, TRUE);
  toolbar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  button = gtk_button_new_with_mnemonic (_("_Run Benchmark"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.run-benchmark");
  gtk_widget_set_tooltip_text (button, _("Time the last filter on the current image at several sizes"));
  gtk_box_append (GTK_BOX (toolbar), button);
  button = gtk_button_new_with_mnemonic (_("E_xport CSV…"));
  g_signal_connect_swapped (button, "clicked", G_CALLBACK (on_export_clicked), self);
  gtk_box_append (GTK_BOX (toolbar), button);
  button = gtk_button_new_with_mnemonic (_("C_lear"));
  g_signal_connect_swapped (button, "clicked", G_CALLBACK (lb_bench_panel_clear), self);
  gtk_box_append (GTK_BOX (toolbar), button);
  self->summary = gtk_label_new (_("Every filter pass is logged here."));
  gtk_label_set_xalign (GTK_LABEL (self->summary), 0);
  gtk_label_set_ellipsize (GTK_LABEL (self->summary), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (self->summary, TRUE);
  gtk_widget_add_css_class (self->summary, "dim-label");
  gtk_box_append (GTK_BOX (toolbar), self->summary);
  gtk_box_append (GTK_BOX (left), toolbar);

  head = g_strdup_printf (ROW_FORMAT, _("filter"), _("parameters"), _("size"), _("format"),
                          _("thr"), _("ms"), _("Mpx/s"));
  header = gtk_label_new (head);
  gtk_label_set_xalign (GTK_LABEL (header), 0);
  gtk_label_set_ellipsize (GTK_LABEL (header), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (header, "monospace");
  gtk_widget_add_css_class (header, "dim-label");
  gtk_box_append (GTK_BOX (left), header);
  f = gtk_signal_list_item_factory_new ();
  g_signal_connect (f, "setup", G_CALLBACK (setup_row), NULL);
  g_signal_connect (f, "bind", G_CALLBACK (bind_row), NULL);
  self->list = gtk_list_view_new (GTK_SELECTION_MODEL (gtk_no_selection_new (
                                    G_LIST_MODEL (g_object_ref (self->rows)))), f);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->list), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Benchmark log"), -1);
  scroller = gtk_scrolled_window_new ();
  gtk_widget_set_vexpand (scroller, TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), self->list);
  gtk_box_append (GTK_BOX (left), scroller);
  gtk_box_append (GTK_BOX (self->box), left);

  self->plot = gtk_drawing_area_new ();
  gtk_widget_set_size_request (self->plot, 320, 180);
  gtk_widget_add_css_class (self->plot, "lb-bench-plot");
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->plot), draw_plot, self, NULL);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->plot), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Time against image size"), -1);
  gtk_box_append (GTK_BOX (self->box), self->plot);
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
  Record r = { 0 };
  g_autofree char *size = NULL, *thr = NULL, *mss = NULL, *mps = NULL, *line = NULL;

  g_return_if_fail (LB_IS_BENCH_PANEL (self));
  r.filter = g_strdup (filter);
  r.params = g_strdup (params ? params : "");
  r.width = width;
  r.height = height;
  r.format = format;
  r.threads = threads;
  r.ms = ms;
  g_array_append_val (self->records, r);
  size = g_strdup_printf ("%u×%u", width, height);
  thr = g_strdup_printf ("%u", threads);
  mss = g_strdup_printf ("%.2f", ms);
  mps = g_strdup_printf ("%.1f", mpx_per_s (&r));
  /* the log shows the last part of the id ("threshold"); CSV keeps the full id */
  line = g_strdup_printf (ROW_FORMAT, strrchr (filter, '.') ? strrchr (filter, '.') + 1 : filter,
                          r.params, size, lb_sample_format_to_string (format), thr, mss, mps);
  gtk_string_list_append (self->rows, line);
  gtk_widget_queue_draw (self->plot);
  {
    g_autofree char *sum = g_strdup_printf (ngettext ("%u pass logged", "%u passes logged",
                                                      self->records->len), self->records->len);
    gtk_label_set_text (GTK_LABEL (self->summary), sum);
  }
}

guint
lb_bench_panel_get_n_records (LbBenchPanel *self)
{
  g_return_val_if_fail (LB_IS_BENCH_PANEL (self), 0);
  return self->records->len;
}

void
lb_bench_panel_clear (LbBenchPanel *self)
{
  g_return_if_fail (LB_IS_BENCH_PANEL (self));
  g_array_set_size (self->records, 0);
  gtk_string_list_splice (self->rows, 0, g_list_model_get_n_items (G_LIST_MODEL (self->rows)),
                          NULL);
  gtk_widget_queue_draw (self->plot);
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
  for (guint i = 0; i < self->records->len; i++)
    {
      Record *r = &g_array_index (self->records, Record, i);
      g_autofree char *w = g_strdup_printf ("%u", r->width);
      g_autofree char *h = g_strdup_printf ("%u", r->height);
      g_autofree char *t = g_strdup_printf ("%u", r->threads);
      char ms[G_ASCII_DTOSTR_BUF_SIZE], mps[G_ASCII_DTOSTR_BUF_SIZE];
      const char *cells[8];

      g_ascii_formatd (ms, sizeof ms, "%.3f", r->ms);
      g_ascii_formatd (mps, sizeof mps, "%.3f", mpx_per_s (r));
      cells[0] = r->filter;
      cells[1] = r->params;
      cells[2] = w;
      cells[3] = h;
      cells[4] = lb_sample_format_to_string (r->format);
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
