/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* What the pieces of LbDicomwebStore share (src/stores/dicomweb only): the object's fields,
 * locations inside the store, the request helper, QIDO-RS search and the LbStore vfuncs. */

#include <libsoup/soup.h>

#include "lb-dicomweb-store.h"

G_BEGIN_DECLS

#define MEDIA_DICOM_JSON "application/dicom+json"

struct _LbDicomwebStore {
  GObject parent_instance;

  /* Owned */
  char           *root_uri;  /* the store URI as opened, ending in '/' (what NULL lists) */
  char           *tree_uri;  /* the DICOMweb root in the store's scheme, ending in '/': every
                              * entry URI is tree_uri + the DICOMweb path of the resource */
  char           *base_url;  /* http(s) DICOMweb root without the trailing '/' */
  LbStoreOptions *options;
  SoupSession    *session;
  guint           page_size;  /* QIDO results asked for per request */
};

typedef enum {
  LEVEL_ROOT,
  LEVEL_PATIENT,
  LEVEL_STUDY,
  LEVEL_SERIES,
  LEVEL_INSTANCE,
} Level;

typedef struct {
  Level level;
  char *patient_id;  /* LEVEL_PATIENT */
  char *study;
  char *series;
  char *instance;
  char *extra;       /* a name below a study or series (write targets) */
  char *uri;         /* as given */
} Loc;

void     loc_clear      (Loc *loc);
void     loc_free       (Loc *loc);
gboolean parse_location (LbDicomwebStore *self, const char *uri, gboolean allow_extra, Loc *loc,
                         GError **error);
char    *esc            (const char *s);
char    *study_uri      (LbDicomwebStore *self, const char *study);
char    *series_uri     (LbDicomwebStore *self, const char *study, const char *series);
char    *instance_uri   (LbDicomwebStore *self, const char *study, const char *series,
                         const char *instance);
char    *instance_url   (LbDicomwebStore *self, const Loc *loc);

void request_async (LbDicomwebStore *self, const char *method, const char *url,
                    const char *accept, GBytes *body, const char *body_type, guint64 max_bytes,
                    GCancellable *cancellable, GFileProgressCallback progress,
                    gpointer progress_data, GAsyncReadyCallback callback, gpointer user_data);

void       qido_async  (LbDicomwebStore *self, const char *path_query, GCancellable *cancellable,
                        GFileProgressCallback progress, gpointer progress_data,
                        GAsyncReadyCallback callback, gpointer user_data);
GPtrArray *qido_finish (GAsyncResult *result, GError **error);
LbStoreEntry *instance_entry (LbDicomwebStore *self, const char *study, const char *series,
                              const LbDicomDataset *ds);

void          dw_list_async   (LbStore *store, const char *uri, GCancellable *cancellable,
                               GFileProgressCallback progress, gpointer progress_data,
                               GAsyncReadyCallback callback, gpointer user_data);
GPtrArray    *dw_list_finish  (LbStore *store, GAsyncResult *result, GError **error);
void          dw_stat_async   (LbStore *store, const char *uri, GCancellable *cancellable,
                               GAsyncReadyCallback callback, gpointer user_data);
LbStoreEntry *dw_stat_finish  (LbStore *store, GAsyncResult *result, GError **error);
void          dw_read_async   (LbStore *store, const char *uri, GCancellable *cancellable,
                               GFileProgressCallback progress, gpointer progress_data,
                               GAsyncReadyCallback callback, gpointer user_data);
GInputStream *dw_read_finish  (LbStore *store, GAsyncResult *result, LbStoreEntry **out_entry,
                               GError **error);
void          dw_write_async  (LbStore *store, const char *uri, GInputStream *source, gint64 size,
                               const char *content_type, LbStoreWriteMode mode, const char *etag,
                               GCancellable *cancellable, GFileProgressCallback progress,
                               gpointer progress_data, GAsyncReadyCallback callback,
                               gpointer user_data);
LbStoreEntry *dw_write_finish (LbStore *store, GAsyncResult *result, GError **error);

G_END_DECLS
