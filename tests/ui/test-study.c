/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The study search and the study panel against a real Orthanc (tests/dicomweb/orthanc-run.sh),
 * seeded here with studies that pydicom writes (make-studies.py: different patients, dates,
 * modalities, accession numbers). The search's results are held to what Orthanc's own QIDO-RS
 * returns to curl for the same query; the panel's rows to the manifest pydicom wrote; the
 * series opened from the panel to the pixels pydicom reads back. The same panel on the local
 * folder of one study. Screenshots of the panel and the search go to LB_BUILD_ROOT.
 */
#include "config.h"

#include <json-glib/json-glib.h>

#include "lb-dicomweb-search.h"
#include "lb-series-loader.h"
#include "lb-study-panel.h"
#include "lb-study-search.h"
#include "lb-test-loop.h"
#include "lb-test-process.h"
#include "lb-test-ui.h"

static LbApplication *app;
static LbWindow *win;
static char *http_url;   /* http://127.0.0.1:PORT/dicom-web */
static char *store_url;  /* dicomweb+http://… */
static JsonArray *manifest;

/* ---- references ------------------------------------------------------------------------- */

static char *
curl (const char *url, const char *data_file)
{
  const char *auth = g_getenv ("LB_DICOMWEB_AUTH");
  g_autoptr (GStrvBuilder) b = g_strv_builder_new ();
  g_auto (GStrv) argv = NULL;
  g_autofree char *err = NULL, *at = data_file ? g_strconcat ("@", data_file, NULL) : NULL;
  char *out;
  int status;

  g_strv_builder_add_many (b, "curl", "-sf", "--noproxy", "*", NULL);
  if (auth != NULL && *auth != '\0')
    g_strv_builder_add_many (b, "-u", auth, NULL);
  if (at != NULL)
    g_strv_builder_add_many (b, "-H", "Expect:", "--data-binary", at, NULL);
  g_strv_builder_add (b, url);
  argv = g_strv_builder_end (b);
  out = lb_test_run_tool ((const char *const *) argv, &err, &status);
  if (status != 0)
    g_error ("curl %s: %s", url, err);
  return out;
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

/* The StudyInstanceUIDs Orthanc's QIDO-RS returns for @query ("PatientName=A*&…"), sorted. */
static char *
qido_reference (const char *query)
{
  g_autofree char *url = g_strdup_printf ("%s/studies?%s", http_url, query);
  g_autofree char *body = curl (url, NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GPtrArray) uids = g_ptr_array_new ();
  JsonArray *arr;

  if (*body == '\0')
    return g_strdup ("");
  g_assert_true (json_parser_load_from_data (parser, body, -1, NULL));
  arr = json_node_get_array (json_parser_get_root (parser));
  for (guint i = 0; i < json_array_get_length (arr); i++)
    {
      JsonObject *uid = json_object_get_object_member (json_array_get_object_element (arr, i),
                                                       "0020000D");

      g_ptr_array_add (uids, (gpointer) json_array_get_string_element (
                               json_object_get_array_member (uid, "Value"), 0));
    }
  g_ptr_array_sort (uids, compare_strings);
  g_ptr_array_add (uids, NULL);
  return g_strjoinv ("\n", (char **) uids->pdata);
}

static char *
uids_of (GListModel *entries)
{
  g_autoptr (GPtrArray) uids = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < g_list_model_get_n_items (entries); i++)
    {
      g_autoptr (LbStoreEntry) e = g_list_model_get_item (entries, i);

      g_ptr_array_add (uids, g_strdup (lb_store_entry_get_attribute (e, "StudyInstanceUID")));
    }
  g_ptr_array_sort (uids, compare_strings);
  g_ptr_array_add (uids, NULL);
  return g_strjoinv ("\n", (char **) uids->pdata);
}

static JsonObject *
study_of (const char *key)
{
  for (guint i = 0; i < json_array_get_length (manifest); i++)
    {
      JsonObject *s = json_array_get_object_element (manifest, i);

      if (g_str_equal (json_object_get_string_member (s, "key"), key))
        return s;
    }
  g_assert_not_reached ();
}

/* Search criteria as the tests write them (LbDicomwebStudyQuery's strings are not const). */
typedef struct {
  const char *patient_name, *patient_id, *date_from, *date_to, *modality, *accession;
} Criteria;

static void
set_criteria (LbStudySearch *s, Criteria c)
{
  LbDicomwebStudyQuery q = {
    (char *) c.patient_name, (char *) c.patient_id, (char *) c.date_from, (char *) c.date_to,
    (char *) c.modality, (char *) c.accession, 0, 0,
  };

  lb_study_search_set_criteria (s, &q);
}

/* ---- the window ------------------------------------------------------------------------------ */

static LbStudySearch *
search_window (void)
{
  g_autoptr (GList) tops = gtk_window_list_toplevels ();

  for (GList *l = tops; l; l = l->next)
    if (LB_IS_STUDY_SEARCH (l->data))
      return l->data;
  return NULL;
}

static LbStudyPanel *
panel (void)
{
  return LB_STUDY_PANEL (lb_window_test_get_child (win, "study_panel"));
}

static gboolean
search_done (gpointer data)
{
  return !lb_study_search_is_busy (LB_STUDY_SEARCH (data));
}

static gboolean
panel_done (gpointer data)
{
  return !lb_study_panel_is_loading (panel ());
}

static gboolean
image_from (gpointer uri)
{
  LbHistory *h = lb_window_test_get_history (win);

  return h != NULL && !lb_window_is_busy (win)
         && g_strcmp0 (lb_image_meta_get_source_uri (
                         lb_image_get_meta (lb_history_get_original (h))), uri) == 0;
}

static LbStudySearch *
open_search (void)
{
  LbStudySearch *s;

  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (win), "search-studies"));
  gtk_widget_activate_action (GTK_WIDGET (win), "win.search-studies", NULL);
  s = search_window ();
  g_assert_nonnull (s);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (s)));
  return s;
}

/* Runs @q in the search window and holds its results to Orthanc's answer to @reference. */
static void
check_search (const char *what, Criteria q, const char *reference)
{
  LbStudySearch *s = open_search ();
  g_autofree char *want = qido_reference (reference);
  g_autofree char *got = NULL;

  set_criteria (s, q);
  lb_study_search_run (s);
  g_assert_true (lb_test_wait (search_done, s, 30000));
  /* everything fits on one page of 50 here */
  while (lb_study_search_has_more (s))
    {
      lb_study_search_more (s);
      g_assert_true (lb_test_wait (search_done, s, 30000));
    }
  got = uids_of (lb_study_search_get_results (s));
  g_test_message ("%s: %u studies (%s)", what,
                  g_list_model_get_n_items (lb_study_search_get_results (s)),
                  lb_study_search_get_status (s));
  g_assert_cmpstr (got, ==, want);
  g_assert_cmpstr (want, !=, "");
}

static void
test_search (void)
{
  check_search ("patient name wildcard", (Criteria) { .patient_name = "Alpha*" },
                "PatientName=Alpha*");
  check_search ("patient ID", (Criteria) { .patient_id = "ST-001" },
                "PatientID=ST-001");
  check_search ("date range", (Criteria) { .date_from = "2023-01-01",
                                                        .date_to = "2023-12-31" },
                "StudyDate=20230101-20231231");
  check_search ("open date range", (Criteria) { .date_from = "20240101" },
                "StudyDate=20240101-");
  check_search ("modality", (Criteria) { .modality = "MR" }, "ModalitiesInStudy=MR");
  check_search ("modality of a second series", (Criteria) { .modality = "CR" },
                "ModalitiesInStudy=CR");
  check_search ("accession number", (Criteria) { .accession = "ACC-S3" },
                "AccessionNumber=ACC-S3");
  check_search ("criteria together",
                (Criteria) { .patient_name = "Alpha*", .patient_id = "ST-001", .modality = "CT",
                             .date_from = "20240101" },
                "PatientName=Alpha*&PatientID=ST-001&ModalitiesInStudy=CT&StudyDate=20240101-");
  check_search ("everything", (Criteria) { 0 }, "limit=1000");
}

/* Pages of 2: each study once, together every study Orthanc has. */
static void
test_search_paging (void)
{
  LbStudySearch *s = open_search ();
  g_autofree char *want = qido_reference ("limit=1000");
  g_autofree char *got = NULL;
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  GListModel *results = lb_study_search_get_results (s);
  guint pages = 0;

  lb_study_search_set_page_size (s, 2);
  set_criteria (s, (Criteria) { 0 });
  lb_study_search_run (s);
  do
    {
      if (pages++ > 0)
        lb_study_search_more (s);
      g_assert_true (lb_test_wait (search_done, s, 30000));
      /* a page adds at most 2 */
      g_assert_cmpuint (g_list_model_get_n_items (results), <=, 2 * pages);
    }
  while (lb_study_search_has_more (s));
  for (guint i = 0; i < g_list_model_get_n_items (results); i++)
    {
      g_autoptr (LbStoreEntry) e = g_list_model_get_item (results, i);

      g_assert_true (g_hash_table_add (seen, (gpointer) lb_store_entry_get_attribute (
                                                e, "StudyInstanceUID")));
    }
  got = uids_of (results);
  g_assert_cmpstr (got, ==, want);
  g_test_message ("%u studies in %u pages of 2", g_list_model_get_n_items (results), pages);
  g_assert_cmpuint (pages, >=, g_list_model_get_n_items (results) / 2);
  lb_study_search_set_page_size (s, LB_STUDY_SEARCH_PAGE_SIZE);
}

static void
test_search_messages (void)
{
  LbStudySearch *s = open_search ();

  set_criteria (s, (Criteria) { .patient_name = "Nobody^Here*" });
  lb_study_search_run (s);
  g_assert_true (lb_test_wait (search_done, s, 30000));
  g_assert_cmpuint (g_list_model_get_n_items (lb_study_search_get_results (s)), ==, 0);
  g_assert_cmpstr (lb_study_search_get_status (s), ==, "No study matches the search.");
  g_assert_null (lb_study_search_get_details (s));
  /* a bad date is refused before anything is sent */
  set_criteria (s, (Criteria) { .date_from = "2024-13" });
  lb_study_search_run (s);
  g_assert_false (lb_study_search_is_busy (s));
  g_assert_nonnull (strstr (lb_study_search_get_status (s), "YYYYMMDD"));
  /* a reversed range too */
  set_criteria (s, (Criteria) { .date_from = "20240301",
                                                             .date_to = "20240101" });
  lb_study_search_run (s);
  g_assert_false (lb_study_search_is_busy (s));
  g_assert_nonnull (strstr (lb_study_search_get_status (s), "ends before it starts"));
  /* a server that does not answer: the search says so */
  {
    g_autoptr (LbStore) dead = lb_store_new_for_uri ("dicomweb+http://127.0.0.1:1/dicom-web",
                                                     NULL, NULL);

    lb_study_search_set_store (s, LB_DICOMWEB_STORE (dead));
    set_criteria (s, (Criteria) { 0 });
    lb_study_search_run (s);
    g_assert_true (lb_test_wait (search_done, s, 60000));
    g_test_message ("a dead server: %s", lb_study_search_get_status (s));
    g_assert_cmpstr (lb_study_search_get_status (s), ==,
                     "The search failed: The store did not answer.");
    /* the request behind Details, not in the line */
    g_test_message ("its details: %s", lb_study_search_get_details (s));
    g_assert_nonnull (strstr (lb_study_search_get_details (s), "127.0.0.1:1"));
    g_assert_null (strstr (lb_study_search_get_status (s), "127.0.0.1"));
    g_assert_cmpuint (g_list_model_get_n_items (lb_study_search_get_results (s)), ==, 0);
    g_assert_false (lb_study_search_has_more (s));
    /* the window gives the search its own store back when it opens it */
    gtk_widget_set_visible (GTK_WIDGET (s), FALSE);
    s = open_search ();
  }
  /* Stop cancels a search on its way */
  set_criteria (s, (Criteria) { 0 });
  lb_study_search_run (s);
  g_assert_true (lb_study_search_is_busy (s));
  lb_study_search_cancel (s);
  g_assert_false (lb_study_search_is_busy (s));
  lb_test_ui_drain (200);
  g_assert_cmpuint (g_list_model_get_n_items (lb_study_search_get_results (s)), ==, 0);
}

/* The thumbnail of row @position: the middle file of @series (in InstanceNumber order) as a
 * display shows it with the file's first window (display-reference.py, from PS3.3 with
 * pydicom), scaled to 64 pixels by nearest neighbour (each of the 32×32 pixels becomes 2×2). */
static void
check_thumbnail (JsonObject *series, guint position)
{
  JsonArray *files = json_object_get_array_member (series, "files");
  const char *middle = json_array_get_string_element (files, (json_array_get_length (files) - 1) / 2);
  guint size = (guint) json_object_get_int_member (series, "size");
  g_autofree char *script = g_build_filename (g_getenv ("LB_SOURCE_ROOT"), "tests", "dicom",
                                              "display-reference.py", NULL);
  g_autofree char *out = g_build_filename (g_getenv ("LB_DICOMWEB_RUNDIR"), "thumb-ref.raw", NULL);
  const char *argv[] = { "/usr/bin/python3", script, middle, "window:0", out, NULL };
  g_autofree char *err = NULL, *stdout_text = NULL, *want = NULL;
  GdkTexture *tex = GDK_TEXTURE (lb_study_panel_get_thumbnail (panel (), position));
  guint tw = gdk_texture_get_width (tex), th = gdk_texture_get_height (tex);
  g_autofree guint8 *px = g_malloc ((gsize) tw * th * 4);
  gsize len = 0;
  int status;

  stdout_text = lb_test_run_tool (argv, &err, &status);
  g_assert_cmpint (status, ==, 0);
  g_assert_true (g_file_get_contents (out, &want, &len, NULL));
  g_assert_cmpuint (len, ==, (gsize) size * size);
  g_assert_cmpuint (tw, ==, 2 * size);
  g_assert_cmpuint (th, ==, 2 * size);
  gdk_texture_download (tex, px, (gsize) tw * 4);
  for (guint y = 0; y < th; y++)
    for (guint x = 0; x < tw; x++)
      {
        const guint8 *p = px + ((gsize) y * tw + x) * 4;
        guint8 ref = (guint8) want[(y / 2) * size + x / 2];

        /* grey: B = G = R (the texture is downloaded as B, G, R, A on little-endian hosts) */
        if (p[0] != ref || p[1] != ref || p[2] != ref)
          g_error ("thumbnail %u of %s at (%u, %u): %u %u %u, the display reference %u",
                   position, middle, x, y, p[0], p[1], p[2], ref);
      }
}

/* The panel's rows against the series pydicom wrote for @study. */
static void
check_panel (JsonObject *study)
{
  JsonArray *series = json_object_get_array_member (study, "series");
  GListModel *rows = lb_study_panel_get_series (panel ());

  g_assert_true (lb_test_wait (panel_done, NULL, 60000));
  g_assert_cmpstr (lb_study_panel_get_status (panel ()), ==, "");
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, json_array_get_length (series));
  for (guint i = 0; i < json_array_get_length (series); i++)
    {
      JsonObject *want = json_array_get_object_element (series, i);
      g_autoptr (LbStoreEntry) e = g_list_model_get_item (rows, i);
      g_autofree char *count = g_strdup_printf ("%" G_GINT64_FORMAT,
                                                json_object_get_int_member (want, "count"));
      g_autofree char *number = g_strdup_printf ("%" G_GINT64_FORMAT,
                                                 json_object_get_int_member (want, "number"));
      GdkPaintable *thumb = lb_study_panel_get_thumbnail (panel (), i);
      GtkDragSource *drag = NULL;
      g_autoptr (GListModel) controllers = NULL;
      GdkContentProvider *content = NULL;
      GValue value = G_VALUE_INIT;

      g_assert_cmpstr (lb_store_entry_get_attribute (e, "SeriesDescription"), ==,
                       json_object_get_string_member (want, "description"));
      g_assert_cmpstr (lb_store_entry_get_attribute (e, "Modality"), ==,
                       json_object_get_string_member (want, "modality"));
      g_assert_cmpstr (lb_store_entry_get_attribute (e, "SeriesNumber"), ==, number);
      g_assert_cmpstr (lb_store_entry_get_attribute (e, "NumberOfSeriesRelatedInstances"), ==,
                       count);
      g_assert_cmpstr (lb_store_entry_get_attribute (e, "SeriesInstanceUID"), ==,
                       json_object_get_string_member (want, "uid"));
      /* a thumbnail of the middle slice, at most 64 pixels a side */
      g_assert_nonnull (thumb);
      g_assert_cmpint (gdk_paintable_get_intrinsic_width (thumb), ==,
                       LB_STUDY_PANEL_THUMBNAIL_SIZE);
      if (json_object_get_int_member (want, "bits") == 16)
        check_thumbnail (want, i);
      /* the row drags the series' URI as a string */
      controllers = gtk_widget_observe_controllers (lb_study_panel_get_row (panel (), i));
      for (guint c = 0; c < g_list_model_get_n_items (controllers) && drag == NULL; c++)
        {
          g_autoptr (GObject) ctl = g_list_model_get_item (controllers, c);

          if (GTK_IS_DRAG_SOURCE (ctl))
            drag = GTK_DRAG_SOURCE (ctl);
        }
      g_assert_nonnull (drag);
      g_signal_emit_by_name (drag, "prepare", 1.0, 1.0, &content);
      g_assert_nonnull (content);
      g_value_init (&value, G_TYPE_STRING);
      g_assert_true (gdk_content_provider_get_value (content, &value, NULL));
      g_assert_cmpstr (g_value_get_string (&value), ==, lb_store_entry_get_uri (e));
      g_value_unset (&value);
      g_object_unref (content);
    }
}

/* The first slice of @series shown: its pixels are those pydicom read from the file. */
static void
check_first_slice (JsonObject *series)
{
  LbImage *img = lb_history_get_original (lb_window_test_get_history (win));
  g_autofree char *hex = g_strdup (json_object_get_string_member (series, "first_pixels"));
  guint size = (guint) json_object_get_int_member (series, "size");
  guint bps = json_object_get_int_member (series, "bits") / 8;
  g_autoptr (GBytes) want = NULL;
  gsize n = strlen (hex) / 2;
  guint8 *bytes = g_malloc (n);

  for (gsize i = 0; i < n; i++)
    bytes[i] = (guint8) (g_ascii_xdigit_value (hex[2 * i]) * 16
                         + g_ascii_xdigit_value (hex[2 * i + 1]));
  want = g_bytes_new_take (bytes, n);
  g_assert_cmpuint (lb_image_get_width (img), ==, size);
  g_assert_cmpuint (lb_image_get_height (img), ==, size);
  g_assert_cmpuint (lb_sample_format_get_bit_depth (lb_image_get_format (img)), ==, bps * 8);
  g_assert_true (lb_sample_format_is_gray (lb_image_get_format (img)));
  /* the reference is little-endian; LbImage keeps 16-bit samples in host order */
  g_assert_cmpint (G_BYTE_ORDER, ==, G_LITTLE_ENDIAN);
  for (guint y = 0; y < size; y++)
    g_assert_cmpmem (lb_image_get_row (img, y), size * bps,
                     (const guint8 *) g_bytes_get_data (want, NULL) + (gsize) y * size * bps,
                     size * bps);
}

static guint
find_result (LbStudySearch *s, const char *uid)
{
  GListModel *results = lb_study_search_get_results (s);

  for (guint i = 0; i < g_list_model_get_n_items (results); i++)
    {
      g_autoptr (LbStoreEntry) e = g_list_model_get_item (results, i);

      if (g_strcmp0 (lb_store_entry_get_attribute (e, "StudyInstanceUID"), uid) == 0)
        return i;
    }
  g_assert_not_reached ();
}

/* A study chosen in the search shows in the panel, one row per series; a click opens one. */
static void
test_panel_dicomweb (void)
{
  JsonObject *s2 = study_of ("s2"), *s1 = study_of ("s1");
  JsonObject *axial = json_array_get_object_element (json_object_get_array_member (s1, "series"),
                                                     0);
  LbStudySearch *s = open_search ();
  g_autofree char *first_uri = NULL;
  g_autoptr (LbStoreEntry) row0 = NULL;

  set_criteria (s, (Criteria) { .patient_name = "Alpha*" });
  lb_study_search_run (s);
  g_assert_true (lb_test_wait (search_done, s, 30000));
  lb_study_search_choose (s, find_result (s, json_object_get_string_member (s2, "uid")));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (s)));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (panel ())));
  check_panel (s2);

  /* another study while one is loading: nothing of the first lands in the second's rows */
  s = open_search ();
  lb_study_search_choose (s, find_result (s, json_object_get_string_member (s1, "uid")));
  g_assert_true (lb_study_panel_is_loading (panel ()));
  s = open_search ();
  lb_study_search_choose (s, find_result (s, json_object_get_string_member (s2, "uid")));
  check_panel (s2);

  /* the first study of patient ST-001: its first series opens with its first slice */
  s = open_search ();
  lb_study_search_choose (s, find_result (s, json_object_get_string_member (s1, "uid")));
  check_panel (s1);
  row0 = g_list_model_get_item (lb_study_panel_get_series (panel ()), 0);
  first_uri = g_strdup_printf ("%sinstances/%s", lb_store_entry_get_uri (row0), "");
  lb_study_panel_activate (panel (), 0);
  g_assert_true (lb_test_wait (lb_test_ui_not_busy, win, 30000));
  g_assert_true (lb_test_wait ((gboolean (*) (gpointer)) lb_window_test_get_history, win, 30000));
  g_assert_true (g_str_has_prefix (lb_image_meta_get_source_uri (lb_image_get_meta (
                                     lb_history_get_original (lb_window_test_get_history (win)))),
                                   first_uri));
  check_first_slice (axial);
  /* the series opened as one stack of all its images, loaded in the background */
  g_assert_nonnull (lb_window_test_get_series_loader (win));
  g_assert_cmpuint (lb_frame_source_get_n_frames (lb_series_loader_get_source (lb_window_test_get_series_loader (win))), ==,
                    (guint) json_object_get_int_member (axial, "count"));
}

/* The first row after @from whose entry is of @kind, once the tree has listed it. */
static guint
wait_row_of_kind (LbStoreBrowser *browser, guint from, LbStoreEntryKind kind)
{
  g_assert_true (lb_test_wait (lb_test_ui_tree_listed, win, 30000));
  for (guint i = from; i < g_list_model_get_n_items (lb_store_browser_get_rows (browser)); i++)
    {
      LbStoreEntry *e = lb_store_browser_get_entry (browser, i);

      if (e != NULL && lb_store_entry_get_kind (e) == kind)
        return i;
    }
  g_assert_not_reached ();
}

/* A series row chosen in the DICOMweb tree shows its study (the row above it) in the panel. */
static void
test_tree_series (void)
{
  JsonObject *s3 = study_of ("s3");
  LbStoreBrowser *browser = lb_window_test_get_browser (win);
  guint patient, study, series;

  g_assert_true (lb_test_wait (lb_test_ui_tree_listed, win, 30000));
  patient = lb_store_browser_find_row (browser, "ST-003");
  g_assert_cmpuint (patient, !=, G_MAXUINT);
  lb_store_browser_expand_row (browser, patient, TRUE);
  study = wait_row_of_kind (browser, patient + 1, LB_STORE_ENTRY_DICOM_STUDY);
  lb_store_browser_expand_row (browser, study, TRUE);
  series = wait_row_of_kind (browser, study + 1, LB_STORE_ENTRY_DICOM_SERIES);
  lb_store_browser_select_row (browser, series);
  g_assert_cmpstr (lb_study_panel_get_study_uri (panel ()), ==,
                   lb_store_entry_get_uri (lb_store_browser_get_entry (browser, study)));
  check_panel (s3);
}

/* A capped tree ends with a row that opens the search. */
static void
test_tree_cap (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (LbStore) store = lb_store_new_for_uri (store_url, NULL, &error);
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GPtrArray) entries = NULL;
  g_autofree char *all = qido_reference ("limit=1000");
  guint total = 1, listed = 0;
  LbStoreEntry *last;
  LbStoreBrowser *browser = lb_window_test_get_browser (win);
  guint row;
  LbStudySearch *s;

  g_assert_no_error (error);
  for (const char *p = all; *p; p++)
    total += *p == '\n';
  g_assert_cmpuint (total, >, 3);
  /* the store itself: patients of 3 studies, then the row that says there are more */
  lb_dicomweb_store_set_tree_max_studies (LB_DICOMWEB_STORE (store), 3);
  lb_store_list_async (store, NULL, NULL, NULL, NULL, lb_test_keep_result, &result);
  entries = lb_store_list_finish (store, lb_test_wait_result (&result), &error);
  g_assert_no_error (error);
  last = entries->pdata[entries->len - 1];
  g_assert_cmpstr (lb_store_entry_get_attribute (last, LB_DICOMWEB_MORE_STUDIES_ATTRIBUTE), ==,
                   "3");
  for (guint i = 0; i + 1 < entries->len; i++)
    listed += (guint) g_ascii_strtoull (lb_store_entry_get_attribute (entries->pdata[i],
                                                                      "NumberOfStudies"),
                                        NULL, 10);
  g_assert_cmpuint (listed, ==, 3);
  /* uncapped: every study, no such row */
  g_clear_object (&result);
  g_clear_pointer (&entries, g_ptr_array_unref);
  lb_dicomweb_store_set_tree_max_studies (LB_DICOMWEB_STORE (store), total);
  lb_store_list_async (store, NULL, NULL, NULL, NULL, lb_test_keep_result, &result);
  entries = lb_store_list_finish (store, lb_test_wait_result (&result), &error);
  listed = 0;
  for (guint i = 0; i < entries->len; i++)
    {
      g_assert_null (lb_store_entry_get_attribute (entries->pdata[i],
                                                   LB_DICOMWEB_MORE_STUDIES_ATTRIBUTE));
      listed += (guint) g_ascii_strtoull (lb_store_entry_get_attribute (entries->pdata[i],
                                                                        "NumberOfStudies"),
                                          NULL, 10);
    }
  g_assert_cmpuint (listed, ==, total);

  /* in the window: activating that row opens the search */
  lb_dicomweb_store_set_tree_max_studies (LB_DICOMWEB_STORE (store), 3);
  if ((s = search_window ()) != NULL)
    gtk_widget_set_visible (GTK_WIDGET (s), FALSE);
  lb_store_browser_set_store (browser, store);
  g_assert_true (lb_test_wait (lb_test_ui_tree_listed, win, 30000));
  row = lb_store_browser_find_row (browser, "more-studies");
  g_assert_cmpuint (row, !=, G_MAXUINT);
  lb_store_browser_activate_row (browser, row);
  s = search_window ();
  g_assert_nonnull (s);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (s)));
  gtk_widget_set_visible (GTK_WIDGET (s), FALSE);
}

/* The local folder of one study: its study row in the tree fills the panel; a row opens the
 * series as a stack from its first slice. */
static void
test_panel_local (void)
{
  JsonObject *s2 = study_of ("s2");
  JsonObject *t1 = json_array_get_object_element (json_object_get_array_member (s2, "series"), 0);
  g_autofree char *uri = g_filename_to_uri (json_object_get_string_member (s2, "dir"), NULL,
                                            NULL);
  g_autofree char *first = g_filename_to_uri (json_array_get_string_element (
                                                json_object_get_array_member (t1, "files"), 0),
                                              NULL, NULL);
  LbStoreBrowser *browser = lb_window_test_get_browser (win);
  guint study = G_MAXUINT;

  lb_window_open_store (win, uri);
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (win), "search-studies"));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (panel ())));
  g_assert_true (lb_test_wait (lb_test_ui_tree_listed, win, 30000));
  /* patient → study */
  lb_store_browser_expand_row (browser, 0, TRUE);
  for (int tries = 0; tries < 300 && study == G_MAXUINT; tries++)
    {
      GListModel *rows = lb_store_browser_get_rows (browser);

      lb_test_ui_drain (20);
      for (guint i = 0; i < g_list_model_get_n_items (rows) && study == G_MAXUINT; i++)
        {
          LbStoreEntry *e = lb_store_browser_get_entry (browser, i);

          if (e != NULL && lb_store_entry_get_kind (e) == LB_STORE_ENTRY_DICOM_STUDY)
            study = i;
        }
    }
  g_assert_cmpuint (study, !=, G_MAXUINT);
  lb_store_browser_select_row (browser, study);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (panel ())));
  check_panel (s2);
  /* a series row under another study shows its own study: here, the same one again, so the
   * panel stays as it is (no new listing) */
  lb_store_browser_expand_row (browser, study, TRUE);
  g_assert_true (lb_test_wait (lb_test_ui_tree_listed, win, 30000));
  lb_store_browser_select_row (browser, study + 1);
  g_assert_cmpint (lb_store_entry_get_kind (lb_store_browser_get_entry (browser, study + 1)), ==,
                   LB_STORE_ENTRY_DICOM_SERIES);
  g_assert_false (lb_study_panel_is_loading (panel ()));
  check_panel (s2);
  lb_study_panel_activate (panel (), 0);
  g_assert_true (lb_test_wait (image_from, first, 30000));
  check_first_slice (t1);
}

static void
save_screenshot (GtkWidget *widget, const char *name)
{
  g_autoptr (GdkTexture) tex = lb_test_ui_render (widget);
  g_autofree char *path = g_build_filename (g_getenv ("LB_BUILD_ROOT"), name, NULL);

  g_assert_true (gdk_texture_save_to_png (tex, path));
  g_test_message ("screenshot: %s", path);
}

static void
test_screenshots (void)
{
  JsonObject *s2 = study_of ("s2");
  LbStudySearch *s;

  lb_window_open_store (win, store_url);
  g_assert_true (lb_test_wait (lb_test_ui_tree_listed, win, 30000));
  s = open_search ();
  set_criteria (s, (Criteria) { .patient_name = "*a*" });
  lb_study_search_run (s);
  g_assert_true (lb_test_wait (search_done, s, 30000));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (s));
  lb_test_ui_drain (200);
  save_screenshot (GTK_WIDGET (s), "ui-study-search.png");
  lb_study_search_choose (s, find_result (s, json_object_get_string_member (s2, "uid")));
  g_assert_true (lb_test_wait (panel_done, NULL, 60000));
  lb_study_panel_activate (panel (), 1);
  g_assert_true (lb_test_wait (lb_test_ui_not_busy, win, 30000));
  lb_test_ui_drain (300);
  gtk_widget_queue_draw (GTK_WIDGET (win));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (win));
  save_screenshot (GTK_WIDGET (win), "ui-study-panel.png");
}

/* pydicom writes the studies; Orthanc takes them over its REST API. */
static gboolean
seed (void)
{
  g_autofree char *dir = g_build_filename (g_getenv ("LB_DICOMWEB_RUNDIR"), "studies", NULL);
  g_autofree char *json = NULL;
  g_autofree char *rest = g_strndup (http_url, strlen (http_url) - strlen ("/dicom-web"));
  g_autofree char *instances = g_strconcat (rest, "/instances", NULL);
  static JsonParser *parser;

  g_mkdir_with_parents (dir, 0755);
  json = lb_test_run_reference ("dicomweb", "make-studies.py", dir);
  if (json == NULL)
    return FALSE;
  parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  manifest = json_node_get_array (json_parser_get_root (parser));
  for (guint i = 0; i < json_array_get_length (manifest); i++)
    {
      JsonArray *series = json_object_get_array_member (
        json_array_get_object_element (manifest, i), "series");

      for (guint j = 0; j < json_array_get_length (series); j++)
        {
          JsonArray *files = json_object_get_array_member (
            json_array_get_object_element (series, j), "files");

          for (guint k = 0; k < json_array_get_length (files); k++)
            g_free (curl (instances, json_array_get_string_element (files, k)));
        }
    }
  return TRUE;
}

int
main (int argc, char **argv)
{
  int ret;

  if (!lb_test_ui_init (&argc, &argv))
    return 0;
  if (lb_test_ui_dicomweb_url () == NULL)
    return 0;
  http_url = g_strdup (g_getenv ("LB_DICOMWEB_URL"));
  store_url = g_strconcat ("dicomweb+", http_url, NULL);
  if (!seed ())
    {
      g_print ("1..0 # SKIP pydicom or numpy missing\n");
      return 0;
    }
  app = lb_test_ui_app_new ();
  win = lb_window_new (app);
  gtk_window_present (GTK_WINDOW (win));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (win));
  lb_window_open_store (win, store_url);
  g_assert_true (lb_test_wait (lb_test_ui_tree_listed, win, 30000));
  g_test_add_func ("/study/search", test_search);
  g_test_add_func ("/study/search-paging", test_search_paging);
  g_test_add_func ("/study/search-messages", test_search_messages);
  g_test_add_func ("/study/panel-dicomweb", test_panel_dicomweb);
  g_test_add_func ("/study/tree-series", test_tree_series);
  g_test_add_func ("/study/tree-cap", test_tree_cap);
  g_test_add_func ("/study/panel-local", test_panel_local);
  g_test_add_func ("/study/screenshots", test_screenshots);
  ret = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (win));
  lb_test_ui_drain (50);
  g_clear_object (&app);
  return ret;
}
