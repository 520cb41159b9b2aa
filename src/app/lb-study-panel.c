/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-study-panel"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-dicomweb-store.h"
#include "lb-error.h"
#include "lb-image-loader.h"
#include "lb-limits.h"
#include "lb-study-panel.h"
#include "lb-thumbnail.h"

/* Thumbnails fetched at once: each is a listing and an image, and a PACS serves a reader's
 * other requests (the series being read) on the same connections. */
#define MAX_RUNNING 2

typedef struct {
  LbStoreEntry *entry;
  GtkWidget    *row;
  GtkWidget    *picture;
  GdkPaintable *thumbnail;
} Row;

struct _LbStudyPanel {
  GtkWidget     parent_instance;

  /* Template widgets */
  GtkWidget    *box;
  GtkWidget    *title;
  GtkWidget    *status;
  GtkWidget    *list;

  /* Owned */
  LbStore      *store;
  char         *study_uri;
  GListStore   *series;        /* LbStoreEntry, the rows' order */
  GArray       *rows;          /* Row */
  GCancellable *cancellable;   /* the study's listing and thumbnails */
  guint         serial;        /* a newer study makes older callbacks no-ops */
  gboolean      listing;
  guint         next_thumbnail;
  guint         running;
};

G_DEFINE_FINAL_TYPE (LbStudyPanel, lb_study_panel, GTK_TYPE_WIDGET)

enum { SIGNAL_SERIES_ACTIVATED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void start_thumbnails (LbStudyPanel *self);

/* ---- rows --------------------------------------------------------------------------------- */

static void
row_clear (gpointer data)
{
  Row *r = data;

  g_clear_object (&r->entry);
  g_clear_object (&r->thumbnail);
}

static void
set_status (LbStudyPanel *self, const char *text)
{
  gtk_label_set_text (GTK_LABEL (self->status), text ? text : "");
  gtk_widget_set_visible (self->status, text != NULL && *text != '\0');
}

/* "CT · #2 · 40 images" */
static char *
series_details (LbStoreEntry *e)
{
  const char *modality = lb_store_entry_get_attribute (e, "Modality");
  const char *number = lb_store_entry_get_attribute (e, "SeriesNumber");
  const char *count = lb_store_entry_get_attribute (e, "NumberOfSeriesRelatedInstances");
  GString *s = g_string_new (modality ? modality : "?");

  if (number != NULL)
    g_string_append_printf (s, " · #%s", number);
  if (count != NULL)
    {
      guint n = (guint) g_ascii_strtoull (count, NULL, 10);

      g_string_append (s, " · ");
      /* TRANSLATORS: the number of images (instances) of a series in the study panel */
      g_string_append_printf (s, g_dngettext (GETTEXT_PACKAGE, "%u image", "%u images", n), n);
    }
  return g_string_free (s, FALSE);
}

static GdkContentProvider *
on_drag_prepare (GtkDragSource *source, double x, double y, gpointer user_data)
{
  LbStoreEntry *entry = user_data;

  /* the series' URI as a string: what a viewport, or any text target, accepts */
  return gdk_content_provider_new_typed (G_TYPE_STRING, lb_store_entry_get_uri (entry));
}

static GtkWidget *
make_row (LbStoreEntry *entry, Row *r)
{
  const char *desc = lb_store_entry_get_attribute (entry, "SeriesDescription");
  g_autofree char *details = series_details (entry);
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *hbox = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *vbox = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *name = gtk_label_new (desc && *desc ? desc : _("(no description)"));
  GtkWidget *info = gtk_label_new (details);
  GtkWidget *frame = gtk_frame_new (NULL);
  GtkDragSource *drag = gtk_drag_source_new ();
  g_autofree char *a11y = g_strdup_printf ("%s, %s", gtk_label_get_text (GTK_LABEL (name)),
                                           details);

  r->picture = gtk_picture_new ();
  gtk_widget_set_size_request (r->picture, LB_STUDY_PANEL_THUMBNAIL_SIZE,
                               LB_STUDY_PANEL_THUMBNAIL_SIZE);
  gtk_picture_set_can_shrink (GTK_PICTURE (r->picture), TRUE);
  gtk_frame_set_child (GTK_FRAME (frame), r->picture);
  gtk_widget_set_valign (frame, GTK_ALIGN_CENTER);
  gtk_label_set_xalign (GTK_LABEL (name), 0);
  gtk_label_set_ellipsize (GTK_LABEL (name), PANGO_ELLIPSIZE_END);
  gtk_label_set_xalign (GTK_LABEL (info), 0);
  gtk_widget_add_css_class (info, "dim-label");
  gtk_widget_set_valign (vbox, GTK_ALIGN_CENTER);
  gtk_widget_set_hexpand (vbox, TRUE);
  gtk_box_append (GTK_BOX (vbox), name);
  gtk_box_append (GTK_BOX (vbox), info);
  gtk_box_append (GTK_BOX (hbox), frame);
  gtk_box_append (GTK_BOX (hbox), vbox);
  gtk_widget_set_margin_top (hbox, 2);
  gtk_widget_set_margin_bottom (hbox, 2);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), hbox);
  gtk_widget_set_tooltip_text (row, lb_store_entry_get_uri (entry));
  gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL, a11y, -1);
  gtk_drag_source_set_actions (drag, GDK_ACTION_COPY);
  g_signal_connect_object (drag, "prepare", G_CALLBACK (on_drag_prepare), entry, 0);
  gtk_widget_add_controller (row, GTK_EVENT_CONTROLLER (drag));
  return row;
}

static void
clear_rows (LbStudyPanel *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (self->list)) != NULL)
    gtk_list_box_remove (GTK_LIST_BOX (self->list), child);
  g_array_set_size (self->rows, 0);
  g_list_store_remove_all (self->series);
}

/* ---- thumbnails --------------------------------------------------------------------------- */

typedef struct {
  LbStudyPanel *self;   /* a reference */
  guint         serial;
  guint         index;  /* of the row */
  LbImage      *image;  /* the slice, once fetched */
  char         *slice_uri;
  guint         width, height;
} Thumb;

static void
thumb_free (Thumb *t)
{
  g_object_unref (t->self);
  g_clear_object (&t->image);
  g_free (t->slice_uri);
  g_free (t);
}

static gboolean
thumb_current (Thumb *t)
{
  return t->serial == t->self->serial;
}

/* One job ended (with or without a picture): the next series' turn. */
static void
thumb_done (Thumb *t)
{
  if (thumb_current (t))
    {
      t->self->running--;
      start_thumbnails (t->self);
    }
  thumb_free (t);
}

static void
thumb_failed (Thumb *t, const GError *error)
{
  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) && thumb_current (t))
    {
      Row *r = &g_array_index (t->self->rows, Row, t->index);

      g_debug ("thumbnail of %s: %s", lb_store_entry_get_uri (r->entry), error->message);
      gtk_widget_set_tooltip_text (r->picture, error->message);
    }
  thumb_done (t);
}

static void
render_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Thumb *t = data;
  g_autoptr(GError) error = NULL;
  GBytes *pixels;

  if (t->image == NULL)
    {
      /* a local file: its header and pixels are read here, off the main thread */
      g_autofree char *path = g_filename_from_uri (t->slice_uri, NULL, &error);

      if (path != NULL)
        t->image = lb_image_load_file (path, lb_limits_get_default (), &error);
      if (t->image == NULL)
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
    }
  pixels = lb_thumbnail_render (t->image, LB_STUDY_PANEL_THUMBNAIL_SIZE, &t->width, &t->height);
  g_task_return_pointer (task, pixels, (GDestroyNotify) g_bytes_unref);
}

static void
on_rendered (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Thumb *t = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) pixels = g_task_propagate_pointer (G_TASK (result), &error);
  Row *r;

  if (pixels == NULL)
    {
      thumb_failed (t, error);
      return;
    }
  if (thumb_current (t))
    {
      r = &g_array_index (t->self->rows, Row, t->index);
      g_clear_object (&r->thumbnail);
      r->thumbnail = GDK_PAINTABLE (gdk_memory_texture_new (t->width, t->height,
                                                            GDK_MEMORY_DEFAULT, pixels,
                                                            (gsize) t->width * 4));
      gtk_picture_set_paintable (GTK_PICTURE (r->picture), r->thumbnail);
    }
  thumb_done (t);
}

static void
render (Thumb *t)
{
  g_autoptr(GTask) task = g_task_new (NULL, t->self->cancellable, on_rendered, t);

  g_task_set_source_tag (task, render);
  g_task_set_task_data (task, t, NULL);
  g_task_run_in_thread (task, render_thread);
}

static void
on_slice_fetched (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Thumb *t = user_data;
  g_autoptr(GError) error = NULL;

  t->image = lb_dicomweb_store_fetch_image_finish (LB_DICOMWEB_STORE (source), result, NULL,
                                                   &error);
  if (t->image == NULL || !thumb_current (t))
    {
      if (t->image == NULL)
        thumb_failed (t, error);
      else
        thumb_done (t);
      return;
    }
  render (t);
}

static gboolean
is_slice (LbStoreEntry *e)
{
  LbStoreEntryKind kind = lb_store_entry_get_kind (e);

  return kind == LB_STORE_ENTRY_DICOM_INSTANCE || kind == LB_STORE_ENTRY_DICOM_FILE;
}

static void
on_instances_listed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Thumb *t = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = lb_store_list_finish (LB_STORE (source), result, &error);
  g_autoptr(GPtrArray) slices = g_ptr_array_new ();

  if (entries == NULL || !thumb_current (t))
    {
      if (entries == NULL)
        thumb_failed (t, error);
      else
        thumb_done (t);
      return;
    }
  for (guint i = 0; i < entries->len; i++)
    if (is_slice (entries->pdata[i]))
      g_ptr_array_add (slices, entries->pdata[i]);
  if (slices->len == 0)
    {
      g_set_error (&error, LB_ERROR, LB_ERROR_NOT_FOUND, "the series has no image");
      thumb_failed (t, error);
      return;
    }
  /* the store lists a series' instances by InstanceNumber: the middle one is the middle slice
   * of most acquisitions, found without reading every header */
  t->slice_uri = g_strdup (lb_store_entry_get_uri (slices->pdata[(slices->len - 1) / 2]));
  if (LB_IS_DICOMWEB_STORE (source))
    lb_dicomweb_store_fetch_image_async (LB_DICOMWEB_STORE (source), t->slice_uri,
                                         lb_limits_get_default (), t->self->cancellable,
                                         on_slice_fetched, t);
  else if (g_str_has_prefix (t->slice_uri, "file:"))
    render (t);
  else
    {
      g_set_error (&error, LB_ERROR, LB_ERROR_UNSUPPORTED, "%s: no thumbnail for this store",
                   t->slice_uri);
      thumb_failed (t, error);
    }
}

static void
start_thumbnails (LbStudyPanel *self)
{
  while (self->running < MAX_RUNNING && self->next_thumbnail < self->rows->len)
    {
      Row *r = &g_array_index (self->rows, Row, self->next_thumbnail);
      Thumb *t = g_new0 (Thumb, 1);

      t->self = g_object_ref (self);
      t->serial = self->serial;
      t->index = self->next_thumbnail++;
      self->running++;
      lb_store_list_async (self->store, lb_store_entry_get_uri (r->entry), self->cancellable,
                           NULL, NULL, on_instances_listed, t);
    }
}

/* ---- the study ---------------------------------------------------------------------------- */

typedef struct {
  LbStudyPanel *self;
  guint         serial;
} Listing;

static void
on_series_listed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Listing *l = user_data;
  LbStudyPanel *self = l->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = lb_store_list_finish (LB_STORE (source), result, &error);

  if (l->serial != self->serial)
    goto out;
  self->listing = FALSE;
  if (entries == NULL)
    {
      g_autofree char *text = NULL;

      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          /* TRANSLATORS: the study panel could not list the series; %s says why */
          text = g_strdup_printf (_("Could not list the series: %s"), error->message);
          set_status (self, text);
        }
      goto out;
    }
  for (guint i = 0; i < entries->len; i++)
    {
      LbStoreEntry *e = entries->pdata[i];
      Row r = { 0 };

      if (lb_store_entry_get_kind (e) != LB_STORE_ENTRY_DICOM_SERIES)
        continue;
      r.entry = g_object_ref (e);
      r.row = make_row (e, &r);
      g_array_append_val (self->rows, r);
      g_list_store_append (self->series, e);
      gtk_list_box_append (GTK_LIST_BOX (self->list), r.row);
    }
  set_status (self, self->rows->len == 0 ? _("The study has no series.") : NULL);
  start_thumbnails (self);
out:
  g_object_unref (l->self);
  g_free (l);
}

void
lb_study_panel_set_study (LbStudyPanel *self, LbStore *store, const char *study_uri,
                          const char *title)
{
  Listing *l;

  g_return_if_fail (LB_IS_STUDY_PANEL (self));
  g_return_if_fail (store == NULL || LB_IS_STORE (store));
  if (self->cancellable)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->serial++;
  self->listing = FALSE;
  self->running = 0;
  self->next_thumbnail = 0;
  clear_rows (self);
  g_set_object (&self->store, store);
  g_free (self->study_uri);
  self->study_uri = g_strdup (study_uri);
  gtk_label_set_text (GTK_LABEL (self->title), title ? title : "");
  set_status (self, NULL);
  if (store == NULL || study_uri == NULL)
    return;
  self->cancellable = g_cancellable_new ();
  self->listing = TRUE;
  set_status (self, _("Listing the series…"));
  l = g_new0 (Listing, 1);
  l->self = g_object_ref (self);
  l->serial = self->serial;
  lb_store_list_async (store, study_uri, self->cancellable, NULL, NULL, on_series_listed, l);
}

const char *
lb_study_panel_get_study_uri (LbStudyPanel *self)
{
  g_return_val_if_fail (LB_IS_STUDY_PANEL (self), NULL);
  return self->study_uri;
}

LbStore *
lb_study_panel_get_store (LbStudyPanel *self)
{
  g_return_val_if_fail (LB_IS_STUDY_PANEL (self), NULL);
  return self->store;
}

GListModel *
lb_study_panel_get_series (LbStudyPanel *self)
{
  g_return_val_if_fail (LB_IS_STUDY_PANEL (self), NULL);
  return G_LIST_MODEL (self->series);
}

gboolean
lb_study_panel_is_loading (LbStudyPanel *self)
{
  g_return_val_if_fail (LB_IS_STUDY_PANEL (self), FALSE);
  return self->listing || self->running > 0 || self->next_thumbnail < self->rows->len;
}

GdkPaintable *
lb_study_panel_get_thumbnail (LbStudyPanel *self, guint position)
{
  g_return_val_if_fail (LB_IS_STUDY_PANEL (self), NULL);
  g_return_val_if_fail (position < self->rows->len, NULL);
  return g_array_index (self->rows, Row, position).thumbnail;
}

GtkWidget *
lb_study_panel_get_row (LbStudyPanel *self, guint position)
{
  g_return_val_if_fail (LB_IS_STUDY_PANEL (self), NULL);
  g_return_val_if_fail (position < self->rows->len, NULL);
  return g_array_index (self->rows, Row, position).row;
}

const char *
lb_study_panel_get_status (LbStudyPanel *self)
{
  g_return_val_if_fail (LB_IS_STUDY_PANEL (self), NULL);
  return gtk_widget_get_visible (self->status) ? gtk_label_get_text (GTK_LABEL (self->status))
                                               : "";
}

void
lb_study_panel_activate (LbStudyPanel *self, guint position)
{
  g_return_if_fail (LB_IS_STUDY_PANEL (self));
  g_return_if_fail (position < self->rows->len);
  gtk_list_box_select_row (GTK_LIST_BOX (self->list),
                           GTK_LIST_BOX_ROW (g_array_index (self->rows, Row, position).row));
  g_signal_emit (self, signals[SIGNAL_SERIES_ACTIVATED], 0,
                 g_array_index (self->rows, Row, position).entry);
}

static void
on_row_activated (LbStudyPanel *self, GtkListBoxRow *row)
{
  lb_study_panel_activate (self, (guint) gtk_list_box_row_get_index (row));
}

/* ---- the widget --------------------------------------------------------------------------- */

static void
lb_study_panel_dispose (GObject *object)
{
  LbStudyPanel *self = LB_STUDY_PANEL (object);

  if (self->cancellable)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->serial++;
  gtk_widget_dispose_template (GTK_WIDGET (self), LB_TYPE_STUDY_PANEL);
  g_clear_pointer (&self->rows, g_array_unref);
  g_clear_object (&self->series);
  g_clear_object (&self->store);
  G_OBJECT_CLASS (lb_study_panel_parent_class)->dispose (object);
}

static void
lb_study_panel_finalize (GObject *object)
{
  LbStudyPanel *self = LB_STUDY_PANEL (object);

  g_free (self->study_uri);
  G_OBJECT_CLASS (lb_study_panel_parent_class)->finalize (object);
}

static void
lb_study_panel_class_init (LbStudyPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lb_study_panel_dispose;
  object_class->finalize = lb_study_panel_finalize;
  /**
   * LbStudyPanel::series-activated:
   * @series: (transfer none): the series' entry
   */
  signals[SIGNAL_SERIES_ACTIVATED] =
    g_signal_new ("series-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 1, LB_TYPE_STORE_ENTRY);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/lightbox/Lightbox/ui/lb-study-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, LbStudyPanel, box);
  gtk_widget_class_bind_template_child (widget_class, LbStudyPanel, title);
  gtk_widget_class_bind_template_child (widget_class, LbStudyPanel, status);
  gtk_widget_class_bind_template_child (widget_class, LbStudyPanel, list);
  gtk_widget_class_bind_template_callback (widget_class, on_row_activated);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
lb_study_panel_init (LbStudyPanel *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->series = g_list_store_new (LB_TYPE_STORE_ENTRY);
  self->rows = g_array_new (FALSE, TRUE, sizeof (Row));
  g_array_set_clear_func (self->rows, row_clear);
}

GtkWidget *
lb_study_panel_new (void)
{
  return g_object_new (LB_TYPE_STUDY_PANEL, NULL);
}
