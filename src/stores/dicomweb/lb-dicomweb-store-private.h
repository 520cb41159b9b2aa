/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* What the pieces of LbDicomwebStore share; for src/stores/dicomweb only.
 *   lb-dicomweb-store.c     the object, its constructor, the request helper, the LbStore vtable
 *   lb-dicomweb-location.c  store URIs <-> DICOMweb levels, identifiers and URLs
 *   lb-dicomweb-qido.c      QIDO-RS search (paged), labels, entries; list and stat
 *   lb-dicomweb-search.c    study search for readers: one page of a query (public API)
 *   lb-dicomweb-wado.c      WADO-RS metadata and first frame; fetch image and read
 *   lb-dicomweb-stow.c      STOW-RS; store derived, save report (an SR) and write
 *   lb-dicomweb-reports.c   finding the Structured Reports of a study (public API) */

#include <libsoup/soup.h>

#include "lb-dicomweb-store.h"
#include "lb-store-private.h"

G_BEGIN_DECLS

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
  guint           tree_max_studies;  /* studies the root lists at most; 0: all */
};

/* Where a store URI points (lb-dicomweb-store.h has the tree). */
typedef enum {
  LB_DICOMWEB_ROOT,
  LB_DICOMWEB_PATIENT,
  LB_DICOMWEB_STUDY,
  LB_DICOMWEB_SERIES,
  LB_DICOMWEB_INSTANCE,
} LbDicomwebLevel;

typedef struct {
  LbDicomwebLevel level;
  char *patient_id;  /* LB_DICOMWEB_PATIENT */
  char *study;
  char *series;
  char *instance;
  guint frame;       /* …/instances/z/frames/N: frame N (1-based); 0 for the instance */
  char *extra;       /* a name below a study or series (write targets) */
  char *uri;         /* as given */
} LbDicomwebLoc;

/* ---- locations (lb-dicomweb-location.c) --------------------------------------------------- */

void     lb_dicomweb_loc_clear (LbDicomwebLoc *loc);
void     lb_dicomweb_loc_free  (LbDicomwebLoc *loc);
/* Splits @uri (inside the store; NULL is its root) into its level and identifiers. With
 * @allow_extra, one more segment below a study or series is kept in loc->extra. */
gboolean lb_dicomweb_loc_parse (LbDicomwebStore  *self,
                                const char       *uri,
                                gboolean          allow_extra,
                                LbDicomwebLoc    *loc,
                                GError          **error);
/* The same for @task (its source object is the store): FALSE when @uri is not a location of the
 * store, and @task has then returned the error and been unreffed. */
gboolean lb_dicomweb_task_loc  (GTask            *task,
                                const char       *uri,
                                gboolean          allow_extra,
                                LbDicomwebLoc    *loc);

/* A URI path segment, percent-encoded. */
char *lb_dicomweb_escape       (const char *s);
/* Entry URIs in the store's scheme (containers end in '/'). */
char *lb_dicomweb_study_uri    (LbDicomwebStore *self,
                                const char      *study);
char *lb_dicomweb_series_uri   (LbDicomwebStore *self,
                                const char      *study,
                                const char      *series);
char *lb_dicomweb_instance_uri (LbDicomwebStore *self,
                                const char      *study,
                                const char      *series,
                                const char      *instance);
/* The DICOMweb URL of an instance resource (…/studies/x/series/y/instances/z). */
char *lb_dicomweb_instance_url (LbDicomwebStore     *self,
                                const LbDicomwebLoc *loc);

/* ---- requests (lb-dicomweb-store.c) ------------------------------------------------------- */

#define LB_MEDIA_DICOM_JSON "application/dicom+json"

/* One request with the store's options and session, the whole body read (capped at
 * @max_bytes, 0 = no cap); finish with lb_http_request_finish(). The status is not checked. */
void    lb_dicomweb_request_async  (LbDicomwebStore *self, const char *method, const char *url,
                                    const char *accept, GBytes *body, const char *body_type,
                                    guint64 max_bytes, GCancellable *cancellable,
                                    GFileProgressCallback progress, gpointer progress_data,
                                    GAsyncReadyCallback callback, gpointer user_data);
/* The cap on a DICOM JSON answer (one QIDO-RS page, a metadata set): the store's listing cap. */
guint64 lb_dicomweb_max_json_bytes (LbDicomwebStore *self);

/* ---- QIDO-RS (lb-dicomweb-qido.c) --------------------------------------------------------- */

/* A paged search: @path_query ("/studies?…") is appended to the base URL. Finish returns every
 * matching data set (LbDicomDataset*), each once. */
void       lb_dicomweb_qido_async  (LbDicomwebStore *self, const char *path_query,
                                    GCancellable *cancellable, GFileProgressCallback progress,
                                    gpointer progress_data, GAsyncReadyCallback callback,
                                    gpointer user_data);
GPtrArray *lb_dicomweb_qido_finish (GAsyncResult *result, GError **error);
/* The same, stopping once more than @max data sets are in (0: no cap); finish returns at most
 * @max + 1 of them. */
void       lb_dicomweb_qido_capped_async (LbDicomwebStore *self, const char *path_query,
                                          guint max, GCancellable *cancellable,
                                          GFileProgressCallback progress, gpointer progress_data,
                                          GAsyncReadyCallback callback, gpointer user_data);

/* The row a capped tree level ends with (lb-dicomweb-search.c): @shown studies are listed, the
 * archive holds more. A file entry below @parent_uri with the attribute "lb:more-studies". */
LbStoreEntry *lb_dicomweb_more_studies_entry (LbDicomwebStore *self,
                                              const char      *parent_uri,
                                              guint            shown);

/* The first data set of @found whose @tag has the value @value (QIDO-RS matching may be looser
 * than equality: case, wildcards). */
LbDicomDataset *lb_dicomweb_find           (GPtrArray            *found,
                                            guint32               tag,
                                            const char           *value);
/* The entry of an instance found in a search or fetched; NULL without a SOPInstanceUID. */
LbStoreEntry   *lb_dicomweb_instance_entry (LbDicomwebStore      *self,
                                            const char           *study,
                                            const char           *series,
                                            const LbDicomDataset *ds);

/* ---- WADO-RS (lb-dicomweb-wado.c) --------------------------------------------------------- */

/* …/metadata of the instance @loc points at; finish returns its one data set (transfer full). */
void            lb_dicomweb_metadata_async  (LbDicomwebStore *self, const LbDicomwebLoc *loc,
                                             GCancellable *cancellable,
                                             GAsyncReadyCallback callback, gpointer user_data);
LbDicomDataset *lb_dicomweb_metadata_finish (GAsyncResult *result, GError **error);

/* ---- the LbStore operations ------------------------------------------------------------- */

/* Each piece sets the operations it implements: list and stat (qido), read (wado), write
 * (stow). list, stat and write have no finish function: their tasks return the result. */
void lb_dicomweb_qido_iface_init (LbStoreInterface *iface);
void lb_dicomweb_wado_iface_init (LbStoreInterface *iface);
void lb_dicomweb_stow_iface_init (LbStoreInterface *iface);

G_END_DECLS
