/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-image.h"
#include "lb-measurement.h"
#include "lb-measurement-spacing.h"

G_BEGIN_DECLS

/*
 * The JSON sidecar: an image's measurements in a file beside it on file and WebDAV stores
 * (docs/measurements.md gives the schema). Points are in image pixel coordinates
 * (lb-measurement.h); the values and units are written for other readers and for people, and
 * recomputed by Lightbox from the points when it reads the file.
 *
 * Reading trusts nothing: a file over %LB_MEASUREMENT_SIDECAR_MAX_BYTES is refused before it
 * is parsed, nesting is bounded before json-glib sees it, and every member is checked for its
 * type. A file that fails is reported with a GError and yields nothing, so a caller never
 * holds half a file's measurements and never writes them back over the file.
 */

#define LB_MEASUREMENT_SIDECAR_FORMAT   "lightbox-measurements"
#define LB_MEASUREMENT_SIDECAR_VERSION  1
/* A thousand measurements of a hundred points each take about 6 MB; no reader needs more. */
#define LB_MEASUREMENT_SIDECAR_MAX_BYTES (8 * 1024 * 1024)
/* The file name's suffix: "CT.dcm" → "CT.dcm.measurements.json". */
#define LB_MEASUREMENT_SIDECAR_SUFFIX   ".measurements.json"

/**
 * LbMeasurementImageRef:
 * @name: (nullable): the image's file name (the sidecar is beside it)
 * @uri: (nullable): where the image was read
 * @etag: (nullable): the image's entity tag when it was measured
 * @sop_instance_uid: (nullable): DICOM SOPInstanceUID
 * @frame: the frame of a multi-frame object, from 0; -1 for a single-frame image
 * @width: the image's columns (0: not given)
 * @height: its rows (0: not given)
 *
 * Which image the measurements belong to, so that a sidecar moved beside another image can be
 * told apart.
 */
typedef struct {
  char *name;
  char *uri;
  char *etag;
  char *sop_instance_uid;
  gint  frame;
  guint width;
  guint height;
} LbMeasurementImageRef;

void    lb_measurement_image_ref_clear (LbMeasurementImageRef *ref);
/* Fills @ref from @image: size, source URI and its last path segment as name, ETag,
 * "dicom:SOPInstanceUID"; frame -1. */
void    lb_measurement_image_ref_init_from_image (LbMeasurementImageRef *ref,
                                                  LbImage               *image);

/**
 * lb_measurement_sidecar_write:
 * @measurements: (element-type LbMeasurement)
 * @image: (nullable): the image, for the values of ROIs and probes
 *
 * The sidecar document, UTF-8 JSON. Every measurement must be valid
 * (lb_measurement_validate()); the first that is not fails with its index, and nothing is
 * returned.
 */
GBytes    *lb_measurement_sidecar_write (const LbMeasurementImageRef *ref,
                                         const LbMeasurementSpacing  *spacing,
                                         LbImage                     *image,
                                         GPtrArray                   *measurements,
                                         GError                     **error);

/**
 * lb_measurement_sidecar_read:
 * @name: (nullable): names the file in errors
 * @ref: (out) (optional): the image reference (clear it with lb_measurement_image_ref_clear())
 * @spacing: (out) (optional): the spacing the values were computed with
 *
 * Returns: (transfer full) (element-type LbMeasurement): the measurements, in order. Errors:
 * %LB_ERROR_TOO_LARGE (size, nesting), %LB_ERROR_PARSE (not JSON, not a measurement file, a
 * member of the wrong type, a point that is not two finite numbers, a tool with the wrong
 * number of points), %LB_ERROR_UNSUPPORTED (another schema version).
 */
GPtrArray *lb_measurement_sidecar_read  (GBytes                      *bytes,
                                         const char                  *name,
                                         LbMeasurementImageRef       *ref,
                                         LbMeasurementSpacing        *spacing,
                                         GError                     **error);

/* The sidecar's address beside @image_uri (its path + %LB_MEASUREMENT_SIDECAR_SUFFIX); NULL
 * for an address with a query or fragment, or that names a container ("…/"). */
char      *lb_measurement_sidecar_uri   (const char                  *image_uri);

G_END_DECLS
