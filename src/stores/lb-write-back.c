/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-write-back"

#include "config.h"

#include "lb-write-back.h"

#include <string.h>

#include "lb-error.h"
#include "lb-png.h"

#define DEFAULT_MAX_NUMBERED 99
/* Apache's ETags are weak for one second after a change (mod_core FileETag). */
#define WEAK_ETAG_WAIT_MS 600
#define MAX_WEAK_ETAG_RETRIES 4

G_DEFINE_BOXED_TYPE (LbWriteBackResult, lb_write_back_result, lb_write_back_result_copy,
                     lb_write_back_result_free)

LbWriteBackResult *
lb_write_back_result_copy (const LbWriteBackResult *result)
{
  LbWriteBackResult *copy = g_new0 (LbWriteBackResult, 1);

  *copy = *result;
  copy->uri = g_strdup (result->uri);
  copy->etag = g_strdup (result->etag);
  copy->message = g_strdup (result->message);
  return copy;
}

void
lb_write_back_result_free (LbWriteBackResult *result)
{
  if (result == NULL)
    return;
  g_free (result->uri);
  g_free (result->etag);
  g_free (result->message);
  g_free (result);
}

/* ---- names and provenance ----------------------------------------------------------------- */

static char *
sanitise_label (const char *label)
{
  GString *out = g_string_new (NULL);

  for (const char *p = label != NULL ? label : ""; *p; p++)
    if (g_ascii_isalnum (*p) || *p == '-' || *p == '_')
      g_string_append_c (out, *p);
    else if (out->len > 0 && out->str[out->len - 1] != '-')
      g_string_append_c (out, '-');
  while (out->len > 0 && out->str[out->len - 1] == '-')
    g_string_truncate (out, out->len - 1);
  if (out->len == 0)
    g_string_append (out, "lightbox");
  return g_string_free (out, FALSE);
}

char *
lb_write_back_derived_name (const char *source_name, const char *filter_label, guint n)
{
  g_autofree char *label = sanitise_label (filter_label);
  g_autofree char *stem = g_strdup (source_name != NULL && *source_name ? source_name : "image");
  char *dot = strrchr (stem, '.');

  /* keep dotfiles' leading dot as part of the stem */
  if (dot != NULL && dot != stem)
    *dot = '\0';
  if (n <= 1)
    return g_strdup_printf ("%s.%s.png", stem, label);
  return g_strdup_printf ("%s.%s-%u.png", stem, label, n);
}

LbImageMeta *
lb_write_back_add_provenance (LbImage *image, const char *source_uri, const char *source_etag,
                              const LbWriteBackOptions *options)
{
  LbImageMeta *meta = lb_image_dup_meta (image);
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *stamp = g_date_time_format_iso8601 (now);

  if (source_uri != NULL)
    {
      lb_image_meta_set_text (meta, "Source", source_uri);
      lb_image_meta_set_source_uri (meta, source_uri);
    }
  if (source_etag != NULL)
    {
      lb_image_meta_set_text (meta, "lightbox:source-etag", source_etag);
      lb_image_meta_set_source_etag (meta, source_etag);
    }
  if (options != NULL && options->filter_chain != NULL)
    lb_image_meta_set_text (meta, "lightbox:filter-chain", options->filter_chain);
  lb_image_meta_set_text (meta, "Software", "Lightbox " PACKAGE_VERSION);
  lb_image_meta_set_text (meta, "Creation Time", stamp);
  return meta;
}

/* ---- safe put ----------------------------------------------------------------------------- */

typedef struct {
  LbStore               *store;         /* owned */
  char                  *uri;           /* owned */
  GBytes                *bytes;         /* owned */
  char                  *content_type;  /* owned, nullable */
  LbStoreWriteMode       mode;
  char                  *etag;          /* owned, nullable: expected current ETag */
  GFileProgressCallback  progress;
  gpointer               progress_data;
  LbStoreEntry          *written;       /* owned, nullable: what the PUT returned */
  guint                  weak_retries;
} Put;

static void
put_free (gpointer data)
{
  Put *put = data;

  g_clear_object (&put->store);
  g_free (put->uri);
  g_bytes_unref (put->bytes);
  g_free (put->content_type);
  g_free (put->etag);
  g_clear_object (&put->written);
  g_free (put);
}

static gboolean
etags_equal (const char *a, const char *b)
{
  /* weak comparison (RFC 9110 8.8.3.2): W/ prefixes do not matter for "same version" */
  if (a == NULL || b == NULL)
    return FALSE;
  if (g_str_has_prefix (a, "W/"))
    a += 2;
  if (g_str_has_prefix (b, "W/"))
    b += 2;
  return g_str_equal (a, b);
}

/* Where the upload landed: the entry the store returned when it names one (a DICOMweb store
 * creates a new instance), else the URI that was written. */
static const char *
verify_uri (Put *put)
{
  const char *written = put->written != NULL ? lb_store_entry_get_uri (put->written) : NULL;

  return written != NULL ? written : put->uri;
}

static void
on_verify_stat (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Put *put = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStoreEntry) seen = lb_store_stat_finish (put->store, result, &error);
  LbWriteBackResult *res = g_new0 (LbWriteBackResult, 1);
  gboolean enforced = (lb_store_get_capabilities (put->store) & LB_STORE_CONDITIONAL_WRITES) != 0;
  const char *put_etag = lb_store_entry_get_etag (put->written);
  gint64 size = (gint64) g_bytes_get_size (put->bytes);
  g_autofree char *name = put->written != NULL && lb_store_entry_get_display_name (put->written) != NULL
                            ? g_strdup (lb_store_entry_get_display_name (put->written))
                            : lb_store_uri_display_name (put->uri);
  GString *message = g_string_new (NULL);

  /* Some stores keep a different representation from what was sent (DICOMweb stores a DICOM
   * instance made from the PNG, under a new URI): sizes are only compared when the store
   * reports one for the same content type. */
  const char *seen_type = seen != NULL ? lb_store_entry_get_content_type (seen) : NULL;
  gboolean size_comparable = seen != NULL && lb_store_entry_get_size (seen) >= 0
                             && (seen_type == NULL || put->content_type == NULL
                                 || g_ascii_strcasecmp (seen_type, put->content_type) == 0);

  res->uri = g_strdup (verify_uri (put));
  res->size = size;
  res->verified_size = seen != NULL ? lb_store_entry_get_size (seen) : -1;
  res->etag = g_strdup (seen != NULL && lb_store_entry_get_etag (seen) != NULL
                          ? lb_store_entry_get_etag (seen) : put_etag);
  res->verified = seen != NULL && (!size_comparable || res->verified_size == size)
                  && (put_etag == NULL || etags_equal (put_etag, lb_store_entry_get_etag (seen)));
  res->guarantee = enforced ? LB_WRITE_BACK_SERVER_ENFORCED : LB_WRITE_BACK_CLIENT_CHECKED;
  res->overwrote = put->mode != LB_STORE_WRITE_CREATE
                   || g_strcmp0 (lb_store_entry_get_attribute (put->written, "lb:replaced-existing"),
                                 "true") == 0;

  g_string_append_printf (message, "%s “%s” (%" G_GINT64_FORMAT " bytes)",
                          put->mode == LB_STORE_WRITE_CREATE ? "Saved as" : "Replaced", name, size);
  if (res->verified && !size_comparable && lb_store_entry_get_size (seen) < 0)
    g_string_append (message, "; present on the server (it reports no size to compare)");
  else if (res->verified && !size_comparable)
    g_string_append_printf (message, "; present on the server, stored as %s", seen_type);
  else if (res->verified)
    g_string_append (message, put_etag != NULL ? "; size and ETag verified"
                                               : "; size verified");
  else if (seen == NULL)
    g_string_append_printf (message, "; could not verify: %s", error->message);
  else
    g_string_append_printf (message, "; VERIFICATION FAILED: the server reports %" G_GINT64_FORMAT
                            " bytes", res->verified_size);
  if (put->mode == LB_STORE_WRITE_CREATE && res->overwrote)
    g_string_append (message, ". WARNING: the server replaced a file that appeared after the "
                              "check (it ignores If-None-Match)");
  else if (put->mode == LB_STORE_WRITE_CREATE)
    g_string_append (message, enforced
                                ? ". The server enforced no-overwrite (If-None-Match)"
                                : ". The server cannot guarantee no-overwrite (it ignores "
                                  "If-None-Match): the name was checked just before the upload, "
                                  "a narrow race remains");
  else if (put->mode == LB_STORE_WRITE_IF_MATCH)
    g_string_append (message, enforced
                                ? ". The server enforced that only the version read was replaced (If-Match)"
                                : ". The server cannot guarantee that only the version read was "
                                  "replaced (it ignores If-Match): the ETag was compared just "
                                  "before the upload, a narrow race remains");
  g_string_append_c (message, '.');
  res->message = g_string_free (message, FALSE);
  g_task_return_pointer (task, res, (GDestroyNotify) lb_write_back_result_free);
  g_object_unref (task);
}

static void
on_put_written (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Put *put = g_task_get_task_data (task);
  GError *error = NULL;

  put->written = lb_store_write_finish (put->store, result, &error);
  if (put->written == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  lb_store_stat_async (put->store, verify_uri (put), g_task_get_cancellable (task), on_verify_stat, task);
}

static void
send_put (GTask *task)
{
  Put *put = g_task_get_task_data (task);

  lb_store_write_bytes_async (put->store, put->uri, put->bytes, put->content_type, put->mode,
                              put->etag, g_task_get_cancellable (task), put->progress,
                              put->progress_data, on_put_written, task);
}

static void on_precheck_stat (GObject *source, GAsyncResult *result, gpointer user_data);

static gboolean
restat_later (gpointer user_data)
{
  GTask *task = user_data;
  Put *put = g_task_get_task_data (task);

  lb_store_stat_async (put->store, put->uri, g_task_get_cancellable (task), on_precheck_stat, task);
  return G_SOURCE_REMOVE;
}

static void
on_precheck_stat (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Put *put = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(LbStoreEntry) current = lb_store_stat_finish (put->store, result, &error);

  if (put->mode == LB_STORE_WRITE_CREATE)
    {
      if (current != NULL)
        {
          g_task_return_new_error (task, LB_ERROR, LB_ERROR_CONFLICT, "%s: already exists",
                                   put->uri);
          g_object_unref (task);
          return;
        }
      if (!g_error_matches (error, LB_ERROR, LB_ERROR_NOT_FOUND))
        {
          g_task_return_error (task, error);
          g_object_unref (task);
          return;
        }
      g_clear_error (&error);
      send_put (task);
      return;
    }

  /* IF_MATCH */
  if (current == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  if (lb_store_entry_get_etag (current) == NULL)
    {
      g_task_return_new_error (task, LB_ERROR, LB_ERROR_CONFLICT,
                               "%s: the server gives no ETag, so it cannot be overwritten safely",
                               put->uri);
      g_object_unref (task);
      return;
    }
  if (!etags_equal (lb_store_entry_get_etag (current), put->etag))
    {
      g_task_return_new_error (task, LB_ERROR, LB_ERROR_CONFLICT,
                               "%s: changed since it was read (ETag was %s, now %s); not overwritten",
                               put->uri, put->etag, lb_store_entry_get_etag (current));
      g_object_unref (task);
      return;
    }
  if (g_str_has_prefix (lb_store_entry_get_etag (current), "W/"))
    {
      /* If-Match compares strongly, so a weak ETag can never match. Apache hands out weak
       * ETags during the second a file was modified and strong ones afterwards: ask again a
       * little later instead of failing with a spurious 412. */
      if (put->weak_retries < MAX_WEAK_ETAG_RETRIES)
        {
          put->weak_retries++;
          GSource *wait = g_timeout_source_new (WEAK_ETAG_WAIT_MS);

          g_source_set_callback (wait, restat_later, task, NULL);
          g_source_attach (wait, g_task_get_context (task));
          g_source_unref (wait);
          return;
        }
      g_task_return_new_error (task, LB_ERROR, LB_ERROR_CONFLICT,
                               "%s: the server gives only a weak ETag (%s), so it cannot be "
                               "overwritten safely", put->uri, lb_store_entry_get_etag (current));
      g_object_unref (task);
      return;
    }
  /* the strong form of the ETag the caller saw */
  g_free (put->etag);
  put->etag = g_strdup (lb_store_entry_get_etag (current));
  send_put (task);
}

void
lb_store_put_bytes_safely_async (LbStore *store, const char *uri, GBytes *bytes,
                                 const char *content_type, LbStoreWriteMode mode,
                                 const char *etag, GCancellable *cancellable,
                                 GFileProgressCallback progress, gpointer progress_data,
                                 GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  Put *put = g_new0 (Put, 1);

  g_task_set_source_tag (task, lb_store_put_bytes_safely_async);
  put->store = g_object_ref (store);
  put->uri = g_strdup (uri);
  put->bytes = g_bytes_ref (bytes);
  put->content_type = g_strdup (content_type);
  put->mode = mode;
  put->etag = g_strdup (etag);
  put->progress = progress;
  put->progress_data = progress_data;
  g_task_set_task_data (task, put, put_free);

  if (mode == LB_STORE_WRITE_IF_MATCH && (etag == NULL || *etag == '\0'))
    {
      g_task_return_new_error (task, LB_ERROR, LB_ERROR_CONFLICT,
                               "%s: refusing to overwrite without the ETag of the version that was read",
                               uri);
      g_object_unref (task);
      return;
    }
  if (mode == LB_STORE_WRITE_REPLACE)
    send_put (task);
  else
    /* The HEAD before the conditional PUT: servers that ignore If-None-Match / If-Match
     * (nginx) would otherwise replace silently. It narrows the race; it cannot close it. */
    lb_store_stat_async (store, uri, cancellable, on_precheck_stat, task);
}

LbWriteBackResult *
lb_store_put_bytes_safely_finish (LbStore *store, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- write-back of an image --------------------------------------------------------------- */

typedef struct {
  LbStore               *store;        /* owned */
  char                  *source_uri;   /* owned */
  char                  *parent_uri;   /* owned */
  char                  *source_name;  /* owned */
  char                  *label;        /* owned */
  char                  *source_etag;  /* owned, nullable */
  gboolean               overwrite;
  guint                  n;
  guint                  max_numbered;
  GBytes                *png;          /* owned */
  GFileProgressCallback  progress;
  gpointer               progress_data;
} WriteBack;

static void
write_back_free (gpointer data)
{
  WriteBack *wb = data;

  g_clear_object (&wb->store);
  g_free (wb->source_uri);
  g_free (wb->parent_uri);
  g_free (wb->source_name);
  g_free (wb->label);
  g_free (wb->source_etag);
  g_clear_pointer (&wb->png, g_bytes_unref);
  g_free (wb);
}

static void try_next_name (GTask *task);

static void
on_candidate_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  WriteBack *wb = g_task_get_task_data (task);
  GError *error = NULL;
  LbWriteBackResult *res = lb_store_put_bytes_safely_finish (wb->store, result, &error);

  if (res != NULL)
    {
      g_task_return_pointer (task, res, (GDestroyNotify) lb_write_back_result_free);
      g_object_unref (task);
      return;
    }
  if (!wb->overwrite && g_error_matches (error, LB_ERROR, LB_ERROR_CONFLICT)
      && wb->n < wb->max_numbered)
    {
      g_clear_error (&error);
      wb->n++;
      try_next_name (task);
      return;
    }
  if (!wb->overwrite && g_error_matches (error, LB_ERROR, LB_ERROR_CONFLICT))
    g_prefix_error (&error, "no free name after %u tries: ", wb->n);
  g_task_return_error (task, error);
  g_object_unref (task);
}

static void
try_next_name (GTask *task)
{
  WriteBack *wb = g_task_get_task_data (task);
  g_autofree char *name = lb_write_back_derived_name (wb->source_name, wb->label, wb->n);
  g_autofree char *uri = lb_store_uri_child (wb->parent_uri, name, FALSE);

  lb_store_put_bytes_safely_async (wb->store, uri, wb->png, "image/png", LB_STORE_WRITE_CREATE,
                                   NULL, g_task_get_cancellable (task), wb->progress,
                                   wb->progress_data, on_candidate_done, task);
}

void
lb_write_back_async (LbStore *store, const char *source_uri, LbImage *image,
                     const LbWriteBackOptions *options, GCancellable *cancellable,
                     GFileProgressCallback progress, gpointer progress_data,
                     GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = g_task_new (store, cancellable, callback, user_data);
  WriteBack *wb = g_new0 (WriteBack, 1);
  g_autoptr(LbImageMeta) meta = NULL;
  g_autoptr(LbImage) tagged = NULL;
  GError *error = NULL;
  const char *etag;

  g_task_set_source_tag (task, lb_write_back_async);
  g_task_set_task_data (task, wb, write_back_free);
  wb->store = g_object_ref (store);
  wb->source_uri = g_strdup (source_uri);
  wb->parent_uri = lb_store_uri_parent (source_uri);
  wb->source_name = lb_store_uri_display_name (source_uri);
  wb->label = g_strdup (options != NULL ? options->filter_label : NULL);
  wb->overwrite = options != NULL && options->overwrite;
  etag = options != NULL && options->source_etag != NULL
           ? options->source_etag : lb_image_meta_get_source_etag (lb_image_get_meta (image));
  wb->source_etag = g_strdup (etag);
  wb->max_numbered = options != NULL && options->max_numbered > 0 ? options->max_numbered
                                                                  : DEFAULT_MAX_NUMBERED;
  wb->n = 1;
  wb->progress = progress;
  wb->progress_data = progress_data;

  if (wb->parent_uri == NULL)
    {
      g_task_return_new_error (task, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                               "%s: cannot derive a folder to write into", source_uri);
      g_object_unref (task);
      return;
    }
  meta = lb_write_back_add_provenance (image, source_uri, wb->source_etag, options);
  tagged = lb_image_with_meta (image, meta);
  wb->png = lb_png_save_to_bytes (tagged, &error);
  if (wb->png == NULL)
    {
      g_prefix_error (&error, "encoding the result for %s: ", source_uri);
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  if (wb->overwrite)
    lb_store_put_bytes_safely_async (store, source_uri, wb->png, "image/png",
                                     LB_STORE_WRITE_IF_MATCH, wb->source_etag, cancellable,
                                     progress, progress_data, on_candidate_done, task);
  else
    try_next_name (task);
}

LbWriteBackResult *
lb_write_back_finish (LbStore *store, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}
