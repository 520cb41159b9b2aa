/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicom-codec"

#include "lb-dicom-codec.h"

#include "lb-dicom-transfer-syntax.h"
#include "lb-error.h"

/* No codec yet: every compressed transfer syntax is refused by name, as lb_dicom_decode_frame()
 * always did. The codecs (GDCM, CharLS, OpenJPEG, RLE) replace this body. */
GBytes *
lb_dicom_decompress_frame (const LbDicomDataset *ds,
                           const char           *transfer_syntax,
                           GBytes               *fragments,
                           const LbLimits       *limits,
                           GError              **error)
{
  g_return_val_if_fail (ds != NULL, NULL);
  g_return_val_if_fail (transfer_syntax != NULL, NULL);
  g_return_val_if_fail (fragments != NULL, NULL);

  g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
               "the frame is compressed in transfer syntax %s (%s); Lightbox decodes only "
               "uncompressed frames", transfer_syntax,
               lb_dicom_transfer_syntax_get_name (transfer_syntax));
  return NULL;
}
