/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicom-charset"

#include "lb-dicom-charset.h"

#include <string.h>

/* The Defined Terms of SpecificCharacterSet (PS3.3 Table C.12-2 to C.12-5) and the character
 * set each starts in. The ISO 2022 ones differ from the plain ones only in allowing escapes. */
static const struct {
  const char *term;   /* after "ISO_IR " or "ISO 2022 IR " */
  const char *iconv;
} terms_table[] = {
  { "6", NULL },
  { "100", "ISO-8859-1" },
  { "101", "ISO-8859-2" },
  { "109", "ISO-8859-3" },
  { "110", "ISO-8859-4" },
  { "144", "ISO-8859-5" },
  { "127", "ISO-8859-6" },
  { "126", "ISO-8859-7" },
  { "138", "ISO-8859-8" },
  { "148", "ISO-8859-9" },
  { "203", "ISO-8859-15" },
  { "166", "TIS-620" },
  { "13", "SHIFT_JIS" },   /* JIS X 0201: romaji in GL, katakana in GR, as in Shift JIS */
  { "192", "UTF-8" },
  /* multi-byte sets reached by escapes: the value starts in ASCII */
  { "87", NULL }, { "159", NULL }, { "149", NULL }, { "58", NULL },
};

/* Escape sequences (PS3.3 Table C.12-3, C.12-4) → the character set they switch to. @wrap: the
 * set is decoded by iconv's stateful ISO-2022-JP decoders, which need the escape itself. */
static const struct {
  const char *esc;
  const char *iconv;
  gboolean    wrap;
} escapes[] = {
  { "\x1b(B", NULL, FALSE },            /* ASCII */
  { "\x1b(J", NULL, FALSE },            /* JIS X 0201 romaji: ASCII but ¥ for \ */
  { "\x1b)I", "SHIFT_JIS", FALSE },     /* JIS X 0201 katakana */
  { "\x1b$B", "ISO-2022-JP", TRUE },    /* JIS X 0208 */
  { "\x1b$(D", "ISO-2022-JP-2", TRUE }, /* JIS X 0212 */
  { "\x1b$)C", "EUC-KR", FALSE },       /* KS X 1001 in GR */
  { "\x1b$)A", "GB2312", FALSE },       /* GB 2312 in GR */
  { "\x1b-A", "ISO-8859-1", FALSE },
  { "\x1b-B", "ISO-8859-2", FALSE },
  { "\x1b-C", "ISO-8859-3", FALSE },
  { "\x1b-D", "ISO-8859-4", FALSE },
  { "\x1b-L", "ISO-8859-5", FALSE },
  { "\x1b-G", "ISO-8859-6", FALSE },
  { "\x1b-F", "ISO-8859-7", FALSE },
  { "\x1b-H", "ISO-8859-8", FALSE },
  { "\x1b-M", "ISO-8859-9", FALSE },
  { "\x1b-b", "ISO-8859-15", FALSE },
  { "\x1b-T", "TIS-620", FALSE },
};

LbDicomCharset
lb_dicom_charset_from_terms (const char *const *terms, guint n)
{
  LbDicomCharset cs = { NULL, FALSE };

  for (guint i = 0; i < n; i++)
    {
      const char *t = terms[i];

      if (t == NULL || *t == '\0')
        continue;
      if (g_str_has_prefix (t, "ISO 2022 IR "))
        {
          cs.iso2022 = TRUE;
          t += strlen ("ISO 2022 IR ");
        }
      else if (g_str_has_prefix (t, "ISO_IR "))
        t += strlen ("ISO_IR ");
      else
        {
          /* GB18030 and GBK are stateless multi-byte sets of their own */
          if (i == 0 && (strcmp (t, "GB18030") == 0 || strcmp (t, "GBK") == 0))
            cs.initial = strcmp (t, "GBK") == 0 ? "GBK" : "GB18030";
          continue;
        }
      /* the first value names the initial set; later ones only say which escapes occur */
      if (i == 0)
        for (guint k = 0; k < G_N_ELEMENTS (terms_table); k++)
          if (strcmp (t, terms_table[k].term) == 0)
            cs.initial = terms_table[k].iconv;
    }
  if (cs.iso2022 && cs.initial != NULL && strcmp (cs.initial, "UTF-8") == 0)
    cs.iso2022 = FALSE;
  return cs;
}

/* Bytes in one character set → UTF-8 appended to @out. */
static void
append_decoded (GString *out, const char *s, gsize n, const char *iconv, gboolean wrap)
{
  g_autofree char *converted = NULL;

  if (n == 0)
    return;
  if (iconv != NULL)
    {
      if (wrap)
        {
          /* a stateful decoder: give it the escape that selects the set, and one back */
          g_autofree char *esc = NULL;

          for (guint i = 0; i < G_N_ELEMENTS (escapes); i++)
            if (escapes[i].wrap && strcmp (escapes[i].iconv, iconv) == 0)
              {
                esc = g_strconcat (escapes[i].esc, NULL);
                break;
              }
          {
            g_autofree char *framed = g_strdup_printf ("%s%.*s\x1b(B", esc ? esc : "", (int) n, s);

            converted = g_convert (framed, -1, "UTF-8", iconv, NULL, NULL, NULL);
          }
        }
      else
        converted = g_convert (s, (gssize) n, "UTF-8", iconv, NULL, NULL, NULL);
      if (converted != NULL)
        {
          g_string_append (out, converted);
          return;
        }
    }
  if (g_utf8_validate (s, (gssize) n, NULL))
    {
      g_string_append_len (out, s, (gssize) n);
      return;
    }
  converted = iconv == NULL ? g_convert (s, (gssize) n, "UTF-8", "ISO-8859-1", NULL, NULL, NULL)
                            : NULL;
  if (converted == NULL)
    converted = g_utf8_make_valid (s, (gssize) n);
  g_string_append (out, converted);
}

/* One stretch that starts in the initial set: escapes switch sets up to its end. */
static void
append_iso2022 (GString *out, const char *s, gsize n, const LbDicomCharset *cs)
{
  const char *iconv = cs->initial;
  gboolean wrap = FALSE;
  gsize pos = 0;

  while (pos < n)
    {
      const char *esc = memchr (s + pos, 0x1b, n - pos);
      gsize end = esc ? (gsize) (esc - s) : n;
      gboolean known = FALSE;

      append_decoded (out, s + pos, end - pos, iconv, wrap);
      if (esc == NULL)
        break;
      for (guint i = 0; i < G_N_ELEMENTS (escapes); i++)
        {
          gsize len = strlen (escapes[i].esc);

          if (end + len <= n && memcmp (s + end, escapes[i].esc, len) == 0)
            {
              iconv = escapes[i].iconv;
              wrap = escapes[i].wrap;
              pos = end + len;
              known = TRUE;
              break;
            }
        }
      if (!known)
        {
          g_string_append_unichar (out, 0xFFFD); /* an escape no set answers to */
          pos = end + 1;
        }
    }
}

char *
lb_dicom_charset_decode (const LbDicomCharset *cs, const guint8 *src, gsize n,
                         gboolean person_name)
{
  const guint8 *nul = memchr (src, 0, n);
  GString *out;
  const char *s = (const char *) src;

  if (nul != NULL)
    n = nul - src;
  for (gsize i = 0; i < n; i++)
    if (src[i] >= 0x80 || src[i] == 0x1b)
      goto not_ascii;
  return g_strndup (s, n);

not_ascii:
  out = g_string_sized_new (n * 2);
  if (!cs->iso2022)
    append_decoded (out, s, n, cs->initial, FALSE);
  else if (!person_name)
    append_iso2022 (out, s, n, cs);
  else
    {
      /* each component group starts in the initial set (PS3.5 §6.1.2.5.3) */
      gsize start = 0;

      for (gsize i = 0; i <= n; i++)
        if (i == n || s[i] == '=')
          {
            append_iso2022 (out, s + start, i - start, cs);
            if (i < n)
              g_string_append_c (out, '=');
            start = i + 1;
          }
    }
  return g_string_free (out, FALSE);
}
