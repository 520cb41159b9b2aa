/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * lb_dicom_dict_get_vr:
 * @tag: group << 16 | element
 *
 * The value representation the data dictionary (PS3.6 §6) gives @tag: what an Implicit VR file
 * leaves out (PS3.5 §7.1.3). Group lengths (gggg,0000) are UL and private creators
 * (odd gggg,0010–00FF) LO. Attributes whose VR depends on the data set return a lowercase code:
 * "xs" (US or SS, by PixelRepresentation), "ox" (OB or OW), "xw" (US or OW, LUT data).
 * Returns %NULL for private and unknown attributes.
 */
const char *lb_dicom_dict_get_vr (guint32 tag);

/**
 * lb_dicom_dict_get_keyword:
 * @tag: group << 16 | element
 *
 * The attribute's keyword in the data dictionary (PS3.6 §6: "StudyDate" for (0008,0020)),
 * repeating groups by their pattern ("OverlayData" for any 60xx,3000).
 * Returns %NULL for private and unknown attributes, and the few retired ones without one.
 */
const char *lb_dicom_dict_get_keyword (guint32 tag);

G_END_DECLS
