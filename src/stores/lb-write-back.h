/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-image.h"
#include "lb-store.h"

G_BEGIN_DECLS

/**
 * LbWriteBackOptions:
 * @filter_label: short name for the derived file name, e.g. "sharpen" → name.sharpen.png
 *   (sanitised to [A-Za-z0-9_-]; NULL → "lightbox")
 * @filter_chain: (nullable): provenance text: the filter chain with parameters and plugin
 *   versions, in whatever readable form the engine produces (one line per filter suggested)
 * @overwrite: replace the source itself instead of writing a derived name (explicit consent)
 * @source_etag: (nullable): ETag seen when the source was downloaded; required for
 *   @overwrite (without it the overwrite is refused with %LB_ERROR_CONFLICT)
 * @max_numbered: how many numbered names to try (name.sharpen-2.png …); 0 = 99
 */
typedef struct {
  const char *filter_label;
  const char *filter_chain;
  gboolean    overwrite;
  const char *source_etag;
  guint       max_numbered;
} LbWriteBackOptions;

/**
 * LbWriteBackGuarantee:
 * @LB_WRITE_BACK_SERVER_ENFORCED: the server enforced the condition (If-None-Match/If-Match)
 * @LB_WRITE_BACK_CLIENT_CHECKED: the server may ignore conditional headers (nginx does): the
 *   client checked just before writing (HEAD), which narrows the race but cannot close it
 */
typedef enum {
  LB_WRITE_BACK_SERVER_ENFORCED,
  LB_WRITE_BACK_CLIENT_CHECKED,
} LbWriteBackGuarantee;

/**
 * LbWriteBackResult:
 * @uri: where the image went
 * @etag: (nullable): its ETag after the upload (from the PUT response or the verification)
 * @size: bytes sent
 * @verified: a HEAD/PROPFIND after the upload saw the same size (and the same ETag when the
 *   PUT returned one)
 * @verified_size: size the verification saw (-1 if it could not tell)
 * @guarantee: how strongly "no overwrite" / "only over the version I saw" was ensured
 * @overwrote: the upload replaced an existing entry (only possible with @overwrite)
 * @message: one human-readable sentence summarising all of the above for the UI
 */
typedef struct {
  char                 *uri;
  char                 *etag;
  gint64                size;
  gboolean              verified;
  gint64                verified_size;
  LbWriteBackGuarantee  guarantee;
  gboolean              overwrote;
  char                 *message;
} LbWriteBackResult;

#define LB_TYPE_WRITE_BACK_RESULT (lb_write_back_result_get_type ())
GType              lb_write_back_result_get_type (void) G_GNUC_CONST;
LbWriteBackResult *lb_write_back_result_copy     (const LbWriteBackResult *result);
void               lb_write_back_result_free     (LbWriteBackResult       *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LbWriteBackResult, lb_write_back_result_free)

/**
 * lb_write_back_derived_name:
 * @n: 1 for the first candidate (name.label.png), 2… for name.label-2.png
 *
 * "CT_small.png" + "sharpen" → "CT_small.sharpen.png"; the source's extension is replaced
 * by ".png" (the upload is always PNG).
 */
char *lb_write_back_derived_name (const char *source_name,
                                  const char *filter_label,
                                  guint       n);

/**
 * lb_write_back_add_provenance:
 *
 * A copy of @image's metadata with provenance text keys (written as iTXt/tEXt by the PNG
 * encoder): "Source" (source URL), "lightbox:source-etag", "lightbox:filter-chain",
 * "Software" ("Lightbox VERSION"), "Creation Time" (ISO 8601 UTC).
 */
LbImageMeta *lb_write_back_add_provenance (LbImage                  *image,
                                           const char               *source_uri,
                                           const char               *source_etag,
                                           const LbWriteBackOptions *options);

/**
 * lb_write_back_async:
 * @source_uri: the image the result was derived from (its container receives the upload)
 *
 * Encodes @image as PNG with provenance and uploads it safely:
 * - default: to the first free derived name, with If-None-Match: * (plus a HEAD check
 *   first, for servers that ignore it); a conflict moves on to the next number;
 * - @options->overwrite: over @source_uri with If-Match: source_etag, after a HEAD that
 *   compares the current ETag (a mismatch is %LB_ERROR_CONFLICT, nothing is sent);
 * then verifies size and ETag. Finish returns the result to show.
 */
void               lb_write_back_async  (LbStore                  *store,
                                         const char               *source_uri,
                                         LbImage                  *image,
                                         const LbWriteBackOptions *options,
                                         GCancellable             *cancellable,
                                         GFileProgressCallback     progress,
                                         gpointer                  progress_data,
                                         GAsyncReadyCallback       callback,
                                         gpointer                  user_data);
LbWriteBackResult *lb_write_back_finish (LbStore                  *store,
                                         GAsyncResult             *result,
                                         GError                  **error);

/**
 * lb_store_put_bytes_safely_async:
 *
 * The upload core of the above, for any bytes and an explicit target: CREATE mode (HEAD
 * check, If-None-Match: *) or IF_MATCH mode (HEAD compare with @etag, If-Match), then
 * verification. Used by `lightbox-cli put`. REPLACE mode is passed through unchecked.
 */
void               lb_store_put_bytes_safely_async  (LbStore               *store,
                                                     const char            *uri,
                                                     GBytes                *bytes,
                                                     const char            *content_type,
                                                     LbStoreWriteMode       mode,
                                                     const char            *etag,
                                                     GCancellable          *cancellable,
                                                     GFileProgressCallback  progress,
                                                     gpointer               progress_data,
                                                     GAsyncReadyCallback    callback,
                                                     gpointer               user_data);
LbWriteBackResult *lb_store_put_bytes_safely_finish (LbStore               *store,
                                                     GAsyncResult          *result,
                                                     GError               **error);

G_END_DECLS
