/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-study-search"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-dicom-frame.h"
#include "lb-dicom-tags.h"
#include "lb-messages.h"
#include "lb-study-search.h"

struct _LbStudySearch {
  GtkWindow        parent_instance;

  /* Template widgets */
  GtkWidget       *patient_name;
  GtkWidget       *patient_id;
  GtkWidget       *date_from;
  GtkWidget       *date_to;
  GtkWidget       *modality;
  GtkStringList   *modalities;
  GtkWidget       *accession;
  GtkWidget       *spinner;
  GtkWidget       *status;
  GtkWidget       *details;        /* the expander under it, shown after a failure */
  GtkWidget       *details_label;
  GtkWidget       *stop_button;
  GtkWidget       *search_button;
  GtkWidget       *view;
  GtkWidget       *more_button;
  GtkWidget       *open_button;

  /* Owned */
  LbDicomwebStore *store;
  GListStore      *results;     /* LbStoreEntry */
  GtkSingleSelection *selection;
  GHashTable      *seen;        /* StudyInstanceUIDs in results */
  LbDicomwebStudyQuery query;   /* of the last search; offset: the next page's */
  GCancellable    *cancellable; /* the page on its way */
  guint            page_size;
  gboolean         more;
};

G_DEFINE_FINAL_TYPE (LbStudySearch, lb_study_search, GTK_TYPE_WINDOW)

enum { SIGNAL_STUDY_CHOSEN, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
query_clear (LbDicomwebStudyQuery *q)
{
  g_clear_pointer (&q->patient_name, g_free);
  g_clear_pointer (&q->patient_id, g_free);
  g_clear_pointer (&q->date_from, g_free);
  g_clear_pointer (&q->date_to, g_free);
  g_clear_pointer (&q->modality, g_free);
  g_clear_pointer (&q->accession, g_free);
}

static gboolean
is_busy (LbStudySearch *self)
{
  return self->cancellable != NULL;
}

static void
set_status (LbStudySearch *self, const char *text, gboolean error)
{
  gtk_label_set_text (GTK_LABEL (self->status), text);
  gtk_widget_set_visible (self->details, FALSE);
  if (error)
    gtk_widget_add_css_class (self->status, "error");
  else
    gtk_widget_remove_css_class (self->status, "error");
}

static void
update_sensitivity (LbStudySearch *self)
{
  gboolean busy = is_busy (self);

  gtk_spinner_set_spinning (GTK_SPINNER (self->spinner), busy);
  gtk_widget_set_sensitive (self->stop_button, busy);
  gtk_widget_set_sensitive (self->search_button, !busy && self->store != NULL);
  gtk_widget_set_sensitive (self->more_button, !busy && self->more);
  gtk_widget_set_sensitive (self->open_button,
                            gtk_single_selection_get_selected (self->selection)
                            != GTK_INVALID_LIST_POSITION);
}

/* The text of an entry, trimmed; NULL when empty (not a criterion). */
static char *
field (GtkWidget *entry)
{
  g_autofree char *s = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (entry))));

  return *s ? g_steal_pointer (&s) : NULL;
}

/* A date as typed, YYYY-MM-DD or YYYYMMDD, as DICOM's DA (YYYYMMDD, PS3.5 6.2); anything else
 * is left for lb_dicomweb_study_query_to_path() to refuse by name. */
static char *
date_field (GtkWidget *entry)
{
  g_autofree char *s = field (entry);
  GString *d;

  if (s == NULL)
    return NULL;
  if (strlen (s) != 10 || s[4] != '-' || s[7] != '-')
    return g_steal_pointer (&s);
  d = g_string_new_len (s, 4);
  g_string_append_len (d, s + 5, 2);
  g_string_append_len (d, s + 8, 2);
  return g_string_free (d, FALSE);
}

static void
read_fields (LbStudySearch *self, LbDicomwebStudyQuery *q)
{
  guint m = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->modality));

  q->patient_name = field (self->patient_name);
  q->patient_id = field (self->patient_id);
  q->date_from = date_field (self->date_from);
  q->date_to = date_field (self->date_to);
  /* item 0 is "Any" */
  if (m != GTK_INVALID_LIST_POSITION && m > 0)
    q->modality = g_strdup (gtk_string_list_get_string (self->modalities, m));
  q->accession = field (self->accession);
}

/* ---- pages -------------------------------------------------------------------------------- */

static void
show_count (LbStudySearch *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->results));
  g_autofree char *text = NULL;

  if (n == 0)
    text = g_strdup (_("No study matches the search."));
  else if (self->more)
    /* TRANSLATORS: studies found so far, and the server may have more (the More button) */
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u study shown; More asks for the next ones.",
                                         "%u studies shown; More asks for the next ones.", n), n);
  else
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u study found.", "%u studies found.",
                                         n), n);
  set_status (self, text, FALSE);
}

static void
on_page (GObject *source, GAsyncResult *result, gpointer user_data)
{
  LbStudySearch *self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) found = lb_dicomweb_store_search_studies_finish (LB_DICOMWEB_STORE (source),
                                                                        result, &error);
  guint added = 0;

  if (found == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      /* Stop, a new search, or the window going: whoever cancelled has moved on */
      g_object_unref (self);
      return;
    }
  g_clear_object (&self->cancellable);
  if (found == NULL)
    {
      const char *plain = lb_messages_explain (error);
      g_autofree char *text = NULL;

      /* plain words in the line, as the window has them; the request and what the server
       * said behind Details */
      text = g_strdup_printf (_("The search failed: %s"), plain ? plain : error->message);
      self->more = FALSE;
      set_status (self, text, TRUE);
      if (plain != NULL)
        {
          gtk_label_set_text (GTK_LABEL (self->details_label), error->message);
          gtk_expander_set_expanded (GTK_EXPANDER (self->details), FALSE);
          gtk_widget_set_visible (self->details, TRUE);
        }
      update_sensitivity (self);
      g_object_unref (self);
      return;
    }
  for (guint i = 0; i < found->len; i++)
    {
      const char *uid = lb_dicom_dataset_get_string (found->pdata[i], LB_TAG_STUDY_INSTANCE_UID, 0);
      g_autoptr(LbStoreEntry) entry = NULL;

      /* a server that ignores offset sends the first page again: each study once */
      if (uid == NULL || !g_hash_table_add (self->seen, g_strdup (uid)))
        continue;
      entry = lb_dicomweb_store_study_entry (LB_DICOMWEB_STORE (source), found->pdata[i]);
      g_list_store_append (self->results, entry);
      added++;
    }
  self->query.offset += found->len;
  self->more = found->len == self->query.limit && added > 0;
  show_count (self);
  update_sensitivity (self);
  g_object_unref (self);
}

static void
fetch_page (LbStudySearch *self)
{
  self->cancellable = g_cancellable_new ();
  set_status (self, _("Searching…"), FALSE);
  update_sensitivity (self);
  lb_dicomweb_store_search_studies_async (self->store, &self->query, self->cancellable, on_page,
                                          g_object_ref (self));
}

void
lb_study_search_cancel (LbStudySearch *self)
{
  g_return_if_fail (LB_IS_STUDY_SEARCH (self));
  if (self->cancellable == NULL)
    return;
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  set_status (self, _("Search stopped."), FALSE);
  update_sensitivity (self);
}

void
lb_study_search_run (LbStudySearch *self)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;

  g_return_if_fail (LB_IS_STUDY_SEARCH (self));
  if (self->cancellable)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  query_clear (&self->query);
  g_list_store_remove_all (self->results);
  g_hash_table_remove_all (self->seen);
  self->more = FALSE;
  if (self->store == NULL)
    {
      set_status (self, _("Open a DICOMweb store to search its studies."), TRUE);
      update_sensitivity (self);
      return;
    }
  read_fields (self, &self->query);
  self->query.limit = self->page_size;
  self->query.offset = 0;
  /* a bad date or range is said before anything is sent */
  path = lb_dicomweb_study_query_to_path (&self->query, &error);
  if (path == NULL)
    {
      set_status (self, error->message, TRUE);
      update_sensitivity (self);
      return;
    }
  fetch_page (self);
}

void
lb_study_search_more (LbStudySearch *self)
{
  g_return_if_fail (LB_IS_STUDY_SEARCH (self));
  if (is_busy (self) || !self->more || self->store == NULL)
    return;
  fetch_page (self);
}

/* ---- results ------------------------------------------------------------------------------ */

void
lb_study_search_choose (LbStudySearch *self, guint position)
{
  g_autoptr(LbStoreEntry) entry = NULL;

  g_return_if_fail (LB_IS_STUDY_SEARCH (self));
  entry = g_list_model_get_item (G_LIST_MODEL (self->results), position);
  g_return_if_fail (entry != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
  g_signal_emit (self, signals[SIGNAL_STUDY_CHOSEN], 0, entry);
}

static void
on_view_activate (LbStudySearch *self, guint position)
{
  lb_study_search_choose (self, position);
}

/* Scrolling to the end of the results asks for the next page, as More does. */
static void
on_edge_reached (LbStudySearch *self, GtkPositionType pos)
{
  if (pos == GTK_POS_BOTTOM)
    lb_study_search_more (self);
}

static void
on_open_clicked (LbStudySearch *self)
{
  guint pos = gtk_single_selection_get_selected (self->selection);

  if (pos != GTK_INVALID_LIST_POSITION)
    lb_study_search_choose (self, pos);
}

/* What a column shows of a study entry; the key is the column's data. */
static char *
cell_text (LbStoreEntry *e, const char *key)
{
  const char *v = lb_store_entry_get_attribute (e, key);

  if (v == NULL)
    return g_strdup ("");
  if (g_str_equal (key, "PatientName"))
    return lb_dicom_format_person_name (v);
  if (g_str_equal (key, "StudyDate"))
    {
      char *d = lb_dicom_format_date (v);

      return d ? d : g_strdup (v);
    }
  return g_strdup (v);
}

static void
setup_cell (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), GPOINTER_TO_INT (user_data) ? 1 : 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_list_item_set_child (item, label);
}

static void
bind_cell (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  const char *key = g_object_get_data (G_OBJECT (factory), "lb-key");
  g_autofree char *text = cell_text (LB_STORE_ENTRY (gtk_list_item_get_item (item)), key);

  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (item)), text);
}

static void
add_column (LbStudySearch *self, const char *title, const char *key, gboolean numeric,
            gboolean expand)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  GtkColumnViewColumn *column;

  g_object_set_data (G_OBJECT (factory), "lb-key", (gpointer) key);
  g_signal_connect (factory, "setup", G_CALLBACK (setup_cell), GINT_TO_POINTER (numeric));
  g_signal_connect (factory, "bind", G_CALLBACK (bind_cell), NULL);
  column = gtk_column_view_column_new (title, factory);
  gtk_column_view_column_set_resizable (column, TRUE);
  gtk_column_view_column_set_expand (column, expand);
  gtk_column_view_append_column (GTK_COLUMN_VIEW (self->view), column);
  g_object_unref (column);
}

/* ---- public ------------------------------------------------------------------------------- */

void
lb_study_search_set_store (LbStudySearch *self, LbDicomwebStore *store)
{
  g_return_if_fail (LB_IS_STUDY_SEARCH (self));
  if (store == self->store)
    return;
  if (self->cancellable)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_set_object (&self->store, store);
  g_list_store_remove_all (self->results);
  g_hash_table_remove_all (self->seen);
  self->more = FALSE;
  set_status (self, "", FALSE);
  update_sensitivity (self);
}

void
lb_study_search_set_page_size (LbStudySearch *self, guint page_size)
{
  g_return_if_fail (LB_IS_STUDY_SEARCH (self));
  g_return_if_fail (page_size > 0 && page_size <= LB_DICOMWEB_SEARCH_MAX_LIMIT);
  self->page_size = page_size;
}

static void
set_text (GtkWidget *entry, const char *text)
{
  gtk_editable_set_text (GTK_EDITABLE (entry), text ? text : "");
}

void
lb_study_search_set_criteria (LbStudySearch *self, const LbDicomwebStudyQuery *q)
{
  guint n, found = 0;

  g_return_if_fail (LB_IS_STUDY_SEARCH (self));
  set_text (self->patient_name, q->patient_name);
  set_text (self->patient_id, q->patient_id);
  set_text (self->date_from, q->date_from);
  set_text (self->date_to, q->date_to);
  set_text (self->accession, q->accession);
  n = g_list_model_get_n_items (G_LIST_MODEL (self->modalities));
  for (guint i = 1; q->modality && i < n && !found; i++)
    if (g_str_equal (gtk_string_list_get_string (self->modalities, i), q->modality))
      found = i;
  if (q->modality && !found)
    {
      /* a modality the list does not offer: it joins the list */
      gtk_string_list_append (self->modalities, q->modality);
      found = n;
    }
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->modality), found);
}

gboolean
lb_study_search_is_busy (LbStudySearch *self)
{
  g_return_val_if_fail (LB_IS_STUDY_SEARCH (self), FALSE);
  return is_busy (self);
}

gboolean
lb_study_search_has_more (LbStudySearch *self)
{
  g_return_val_if_fail (LB_IS_STUDY_SEARCH (self), FALSE);
  return self->more;
}

GListModel *
lb_study_search_get_results (LbStudySearch *self)
{
  g_return_val_if_fail (LB_IS_STUDY_SEARCH (self), NULL);
  return G_LIST_MODEL (self->results);
}

const char *
lb_study_search_get_status (LbStudySearch *self)
{
  g_return_val_if_fail (LB_IS_STUDY_SEARCH (self), NULL);
  return gtk_label_get_text (GTK_LABEL (self->status));
}

const char *
lb_study_search_get_details (LbStudySearch *self)
{
  g_return_val_if_fail (LB_IS_STUDY_SEARCH (self), NULL);
  return gtk_widget_get_visible (self->details)
         ? gtk_label_get_text (GTK_LABEL (self->details_label)) : NULL;
}

/* Escape stops a running search, else closes the window. */
static gboolean
on_escape (GtkWidget *widget, GVariant *args, gpointer user_data)
{
  LbStudySearch *self = LB_STUDY_SEARCH (widget);

  if (is_busy (self))
    lb_study_search_cancel (self);
  else
    gtk_window_close (GTK_WINDOW (self));
  return TRUE;
}

static void
lb_study_search_dispose (GObject *object)
{
  LbStudySearch *self = LB_STUDY_SEARCH (object);

  if (self->cancellable)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), LB_TYPE_STUDY_SEARCH);
  g_clear_object (&self->store);
  g_clear_object (&self->results);
  g_clear_object (&self->selection);
  g_clear_pointer (&self->seen, g_hash_table_unref);
  query_clear (&self->query);
  G_OBJECT_CLASS (lb_study_search_parent_class)->dispose (object);
}

static void
lb_study_search_class_init (LbStudySearchClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lb_study_search_dispose;
  /**
   * LbStudySearch::study-chosen:
   * @study: (transfer none): the study's entry
   */
  signals[SIGNAL_STUDY_CHOSEN] =
    g_signal_new ("study-chosen", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 1, LB_TYPE_STORE_ENTRY);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/lightbox/Lightbox/ui/lb-study-search.ui");
#define BIND(name) gtk_widget_class_bind_template_child (widget_class, LbStudySearch, name)
  BIND (patient_name);
  BIND (patient_id);
  BIND (date_from);
  BIND (date_to);
  BIND (modality);
  BIND (modalities);
  BIND (accession);
  BIND (spinner);
  BIND (status);
  BIND (details);
  BIND (details_label);
  BIND (stop_button);
  BIND (search_button);
  BIND (view);
  BIND (more_button);
  BIND (open_button);
#undef BIND
  gtk_widget_class_bind_template_callback (widget_class, lb_study_search_run);
  gtk_widget_class_bind_template_callback (widget_class, lb_study_search_more);
  gtk_widget_class_bind_template_callback (widget_class, lb_study_search_cancel);
  gtk_widget_class_bind_template_callback (widget_class, on_view_activate);
  gtk_widget_class_bind_template_callback (widget_class, on_open_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_edge_reached);
  gtk_widget_class_add_binding (widget_class, GDK_KEY_Escape, 0, on_escape, NULL);
}

static void
lb_study_search_init (LbStudySearch *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->page_size = LB_STUDY_SEARCH_PAGE_SIZE;
  self->results = g_list_store_new (LB_TYPE_STORE_ENTRY);
  self->seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (self->results)));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  g_signal_connect_swapped (self->selection, "notify::selected",
                            G_CALLBACK (update_sensitivity), self);
  gtk_column_view_set_model (GTK_COLUMN_VIEW (self->view), GTK_SELECTION_MODEL (self->selection));
  add_column (self, _("Patient"), "PatientName", FALSE, TRUE);
  add_column (self, _("Patient ID"), "PatientID", FALSE, FALSE);
  add_column (self, _("Date"), "StudyDate", FALSE, FALSE);
  add_column (self, _("Description"), "StudyDescription", FALSE, TRUE);
  add_column (self, _("Modalities"), "ModalitiesInStudy", FALSE, FALSE);
  /* TRANSLATORS: column: number of series of a study */
  add_column (self, _("Series"), "NumberOfStudyRelatedSeries", TRUE, FALSE);
  update_sensitivity (self);
}

LbStudySearch *
lb_study_search_new (GtkWindow *parent)
{
  return g_object_new (LB_TYPE_STUDY_SEARCH, "transient-for", parent, NULL);
}
