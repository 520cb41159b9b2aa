/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicom-transfer-syntax"

#include "lb-dicom-transfer-syntax.h"

#include <string.h>

#define EXPLICIT LB_DICOM_TS_EXPLICIT_VR
#define ENCAPS (LB_DICOM_TS_EXPLICIT_VR | LB_DICOM_TS_ENCAPSULATED)

/* PS3.6 Table A-1, the transfer syntaxes (retired ones included: they are still on disks). */
static const struct {
  const char *uid;
  const char *name;
  LbDicomTransferSyntaxFlags flags;
} syntaxes[] = {
  { "1.2.840.10008.1.2", "Implicit VR Little Endian", 0 },
  { "1.2.840.10008.1.2.1", "Explicit VR Little Endian", EXPLICIT },
  { "1.2.840.10008.1.2.1.98", "Encapsulated Uncompressed Explicit VR Little Endian",
    ENCAPS | LB_DICOM_TS_NATIVE_FRAGMENTS },
  { "1.2.840.10008.1.2.1.99", "Deflated Explicit VR Little Endian",
    EXPLICIT | LB_DICOM_TS_DEFLATED },
  { "1.2.840.10008.1.2.2", "Explicit VR Big Endian", EXPLICIT | LB_DICOM_TS_BIG_ENDIAN },
  { "1.2.840.10008.1.2.4.50", "JPEG Baseline (Process 1)", ENCAPS },
  { "1.2.840.10008.1.2.4.51", "JPEG Extended (Process 2 & 4)", ENCAPS },
  { "1.2.840.10008.1.2.4.57", "JPEG Lossless, Non-Hierarchical (Process 14)", ENCAPS },
  { "1.2.840.10008.1.2.4.70", "JPEG Lossless, First-Order Prediction (Process 14 SV1)", ENCAPS },
  { "1.2.840.10008.1.2.4.80", "JPEG-LS Lossless", ENCAPS },
  { "1.2.840.10008.1.2.4.81", "JPEG-LS Near-Lossless", ENCAPS },
  { "1.2.840.10008.1.2.4.90", "JPEG 2000 Image Compression (Lossless Only)", ENCAPS },
  { "1.2.840.10008.1.2.4.91", "JPEG 2000 Image Compression", ENCAPS },
  { "1.2.840.10008.1.2.4.92", "JPEG 2000 Part 2 Multi-component (Lossless Only)", ENCAPS },
  { "1.2.840.10008.1.2.4.93", "JPEG 2000 Part 2 Multi-component", ENCAPS },
  /* JPIP: the pixels are on a JPIP server, not in the file */
  { "1.2.840.10008.1.2.4.94", "JPIP Referenced", EXPLICIT },
  { "1.2.840.10008.1.2.4.95", "JPIP Referenced Deflate", EXPLICIT | LB_DICOM_TS_DEFLATED },
  { "1.2.840.10008.1.2.4.100", "MPEG2 Main Profile / Main Level", ENCAPS },
  { "1.2.840.10008.1.2.4.101", "MPEG2 Main Profile / High Level", ENCAPS },
  { "1.2.840.10008.1.2.4.102", "MPEG-4 AVC/H.264 High Profile / Level 4.1", ENCAPS },
  { "1.2.840.10008.1.2.4.103", "MPEG-4 AVC/H.264 BD-compatible High Profile / Level 4.1", ENCAPS },
  { "1.2.840.10008.1.2.4.104", "MPEG-4 AVC/H.264 High Profile / Level 4.2 For 2D Video", ENCAPS },
  { "1.2.840.10008.1.2.4.105", "MPEG-4 AVC/H.264 High Profile / Level 4.2 For 3D Video", ENCAPS },
  { "1.2.840.10008.1.2.4.106", "MPEG-4 AVC/H.264 Stereo High Profile / Level 4.2", ENCAPS },
  { "1.2.840.10008.1.2.4.107", "HEVC/H.265 Main Profile / Level 5.1", ENCAPS },
  { "1.2.840.10008.1.2.4.108", "HEVC/H.265 Main 10 Profile / Level 5.1", ENCAPS },
  { "1.2.840.10008.1.2.4.201", "High-Throughput JPEG 2000 (Lossless Only)", ENCAPS },
  { "1.2.840.10008.1.2.4.202", "High-Throughput JPEG 2000 with RPCL Options (Lossless Only)",
    ENCAPS },
  { "1.2.840.10008.1.2.4.203", "High-Throughput JPEG 2000", ENCAPS },
  { "1.2.840.10008.1.2.5", "RLE Lossless", ENCAPS },
};

gboolean
lb_dicom_transfer_syntax_lookup (const char *uid, LbDicomTransferSyntaxFlags *flags)
{
  g_return_val_if_fail (uid != NULL, FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (syntaxes); i++)
    if (strcmp (uid, syntaxes[i].uid) == 0)
      {
        if (flags)
          *flags = syntaxes[i].flags;
        return TRUE;
      }
  /* the retired JPEG processes (.52–.56, .58–.65, …) are encapsulated like the others */
  if (g_str_has_prefix (uid, "1.2.840.10008.1.2.4."))
    {
      const char *rest = uid + strlen ("1.2.840.10008.1.2.4.");

      if (*rest == '\0')
        return FALSE;
      for (const char *c = rest; *c; c++)
        if (!g_ascii_isdigit (*c))
          return FALSE;
      if (flags)
        *flags = ENCAPS;
      return TRUE;
    }
  return FALSE;
}

const char *
lb_dicom_transfer_syntax_get_name (const char *uid)
{
  g_return_val_if_fail (uid != NULL, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (syntaxes); i++)
    if (strcmp (uid, syntaxes[i].uid) == 0)
      return syntaxes[i].name;
  return uid;
}
