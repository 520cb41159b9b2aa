/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * LbDicomCharset:
 *
 * How the text of a data set is decoded to UTF-8, from its SpecificCharacterSet (0008,0005;
 * PS3.3 C.12.1.1.2, PS3.5 §6.1): a single-byte or multi-byte character set, or ISO 2022 code
 * extensions, where escape sequences switch character sets inside a value and each value (and
 * each component group of a person name) starts again in the first one (PS3.5 §6.1.2.5.3).
 * A plain value type: copy it freely.
 */
typedef struct {
  const char *initial;  /* iconv name of the first character set; NULL: the default repertoire
                         * (valid UTF-8 is kept, anything else read as Latin-1, which is what
                         * writers that leave SpecificCharacterSet out nearly always mean) */
  gboolean    iso2022;  /* code extensions: split before decoding, escapes switch sets */
} LbDicomCharset;

/* From the values of SpecificCharacterSet (@terms, @n of them; none: the default). */
LbDicomCharset lb_dicom_charset_from_terms (const char *const *terms,
                                            guint              n);

/* @n bytes of one value → UTF-8 (never NULL: what cannot be decoded becomes U+FFFD). A NUL ends
 * the text (UI values are padded with one). @person_name: a PN value, whose component groups
 * ('=') each start in the initial character set. */
char          *lb_dicom_charset_decode     (const LbDicomCharset *cs,
                                            const guint8         *src,
                                            gsize                 n,
                                            gboolean              person_name);

G_END_DECLS
