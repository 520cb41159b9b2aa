/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicom-parser"

#include "lb-dicom-parser-private.h"

#include <stdarg.h>
#include <string.h>

#include "lb-dicom-charset.h"
#include "lb-dicom-dict.h"
#include "lb-dicom-tags.h"
#include "lb-error.h"

/* Text VRs whose values may use the specific character set (PS3.5 §6.1.2.3); the others are
 * the default repertoire. */
static gboolean
vr_uses_charset (const char *vr)
{
  return strcmp (vr, "PN") == 0 || strcmp (vr, "LO") == 0 || strcmp (vr, "SH") == 0
         || strcmp (vr, "LT") == 0 || strcmp (vr, "ST") == 0 || strcmp (vr, "UT") == 0
         || strcmp (vr, "UC") == 0;
}

/* ---- VRs (PS3.5 §6.2, §7.1.2) --------------------------------------------------------------- */

static gboolean
vr_in (const char *vr, const char *const *list, guint n)
{
  for (guint i = 0; i < n; i++)
    if (vr[0] == list[i][0] && vr[1] == list[i][1])
      return TRUE;
  return FALSE;
}

/* Explicit VRs with a 2-byte length; every other VR, including ones this code does not know
 * (PS3.5 §6.2: new VRs use the long form), has 2 reserved bytes and a 4-byte length. */
static gboolean
vr_is_short (const char *vr)
{
  static const char *const short_vrs[] = {
    "AE", "AS", "AT", "CS", "DA", "DS", "DT", "FL", "FD", "IS", "LO", "LT", "PN", "SH", "SL",
    "SS", "ST", "TM", "UI", "UL", "US",
  };

  return vr_in (vr, short_vrs, G_N_ELEMENTS (short_vrs));
}

static gboolean
vr_is_binary (const char *vr)
{
  static const char *const binary_vrs[] = { "OB", "OD", "OF", "OL", "OV", "OW", "UN" };

  return vr_in (vr, binary_vrs, G_N_ELEMENTS (binary_vrs));
}

/* Text VRs that hold one value in which '\' is an ordinary character. */
static gboolean
vr_is_single_text (const char *vr)
{
  static const char *const single[] = { "LT", "ST", "UT", "UR" };

  return vr_in (vr, single, G_N_ELEMENTS (single));
}

/* Bytes per value of the binary numeric VRs, 0 for the others. */
static guint
vr_number_size (const char *vr)
{
  static const struct { const char vr[3]; guint size; } sizes[] = {
    { "US", 2 }, { "SS", 2 }, { "UL", 4 }, { "SL", 4 }, { "FL", 4 }, { "FD", 8 }, { "AT", 4 },
    { "SV", 8 }, { "UV", 8 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    if (vr[0] == sizes[i].vr[0] && vr[1] == sizes[i].vr[1])
      return sizes[i].size;
  return 0;
}

/* The word size that Big Endian swaps in a binary VR (PS3.5 §7.3). */
static guint
vr_swap_size (const char *vr)
{
  if (vr[0] != 'O')
    return 1;
  switch (vr[1])
    {
    case 'W': return 2;
    case 'F': case 'L': return 4;
    case 'D': case 'V': return 8;
    default: return 1;
    }
}

/* ---- reading ---------------------------------------------------------------------------------- */

static inline guint16
rd16 (const guint8 *d, gboolean big)
{
  return big ? (guint16) (d[0] << 8 | d[1]) : (guint16) (d[1] << 8 | d[0]);
}

static inline guint32
rd32 (const guint8 *d, gboolean big)
{
  return big ? (guint32) d[0] << 24 | (guint32) d[1] << 16 | (guint32) d[2] << 8 | d[3]
             : (guint32) d[3] << 24 | (guint32) d[2] << 16 | (guint32) d[1] << 8 | d[0];
}

static inline guint64
rd64 (const guint8 *d, gboolean big)
{
  return big ? (guint64) rd32 (d, TRUE) << 32 | rd32 (d + 4, TRUE)
             : (guint64) rd32 (d + 4, FALSE) << 32 | rd32 (d, FALSE);
}

static inline guint32
rd_tag (const guint8 *d, gboolean big)
{
  return (guint32) rd16 (d, big) << 16 | rd16 (d + 2, big);
}

static gboolean G_GNUC_PRINTF (4, 5)
fail (LbDicomParser *p, GError **error, LbError code, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, LB_ERROR, code, "%s: %s", p->name, msg);
  return FALSE;
}

/* The data ends before an element does: where a prefix is parsed (allow_truncation) that only
 * ends the parse (no error is set, p->truncated tells); otherwise the file is truncated. */
static gboolean G_GNUC_PRINTF (3, 4)
short_data (LbDicomParser *p, GError **error, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  if (p->allow_truncation)
    {
      p->truncated = TRUE;
      return FALSE;
    }
  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, LB_ERROR, LB_ERROR_TRUNCATED, "%s: %s", p->name, msg);
  return FALSE;
}

static gboolean
count_element (LbDicomParser *p, guint32 tag, GError **error)
{
  if (++p->n_elements > LB_DICOM_MAX_ELEMENTS)
    return fail (p, error, LB_ERROR_TOO_LARGE,
                 "more than %u data elements and items (at " LB_DICOM_TAG_FORMAT ")",
                 LB_DICOM_MAX_ELEMENTS, LB_DICOM_TAG_ARGS (tag));
  return TRUE;
}

static gboolean
count_values (LbDicomParser *p, guint32 tag, guint64 n, GError **error)
{
  p->n_values += n;
  if (p->n_values > LB_DICOM_MAX_VALUES)
    return fail (p, error, LB_ERROR_TOO_LARGE,
                 "more than %u values in the data set (at " LB_DICOM_TAG_FORMAT ")",
                 LB_DICOM_MAX_VALUES, LB_DICOM_TAG_ARGS (tag));
  return TRUE;
}

/* Where one nested level is parsed: byte order and VR encoding (a UN sequence switches to
 * Implicit VR Little Endian, PS3.5 §6.2.2), depth, and the character set in force. */
typedef struct {
  gboolean big;
  gboolean explicit_vr;
  int      depth;
  LbDicomCharset cs;
} Level;

typedef struct {
  guint32 tag;
  char    vr[3];     /* as encoded, or from the dictionary (implicit); "" when unknown */
  guint32 length;
  gsize   value;     /* offset of the value */
} Header;

/* Reads the element header at @pos (< @end). Item and delimiter tags have no VR in any
 * encoding (PS3.5 §7.5). */
static gboolean
read_header (LbDicomParser *p, const Level *lv, gsize pos, gsize end, Header *h, GError **error)
{
  const guint8 *d = p->data + pos;

  if (end - pos < 8)
    return short_data (p, error, "the data ends inside an element header at byte %" G_GSIZE_FORMAT,
                       pos);
  h->tag = rd_tag (d, lv->big);
  h->vr[0] = h->vr[2] = '\0';
  if ((h->tag >> 16) == 0xFFFE || !lv->explicit_vr)
    {
      const char *dict = (h->tag >> 16) == 0xFFFE ? NULL : lb_dicom_dict_get_vr (h->tag);

      if (dict != NULL)
        g_strlcpy (h->vr, dict, sizeof h->vr);
      h->length = rd32 (d + 4, lv->big);
      h->value = pos + 8;
      return TRUE;
    }
  if (!g_ascii_isupper (d[4]) || !g_ascii_isupper (d[5]))
    return fail (p, error, LB_ERROR_CORRUPT,
                 "element " LB_DICOM_TAG_FORMAT " at byte %" G_GSIZE_FORMAT
                 " has no valid VR (bytes 0x%02X 0x%02X)",
                 LB_DICOM_TAG_ARGS (h->tag), pos, d[4], d[5]);
  h->vr[0] = (char) d[4];
  h->vr[1] = (char) d[5];
  if (vr_is_short (h->vr))
    {
      h->length = rd16 (d + 6, lv->big);
      h->value = pos + 8;
      return TRUE;
    }
  if (end - pos < 12)
    return short_data (p, error, "the data ends inside the header of " LB_DICOM_TAG_FORMAT,
                       LB_DICOM_TAG_ARGS (h->tag));
  h->length = rd32 (d + 8, lv->big);
  h->value = pos + 12;
  return TRUE;
}

/* ---- values ----------------------------------------------------------------------------------- */

/* Shortest text that reads back as the same number: FL as a float (what the writer stores
 * again), FD as a double (the JSON model's rule, lb-dicom-dataset.h). */
static char *
format_real (double v, int max_prec, gboolean as_float)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  for (int prec = 1; prec <= max_prec; prec++)
    {
      char fmt[8];
      double back;

      g_snprintf (fmt, sizeof fmt, "%%.%dg", prec);
      g_ascii_formatd (buf, sizeof buf, fmt, v);
      back = g_ascii_strtod (buf, NULL);
      if (as_float ? (float) back == (float) v : back == v)
        break;
    }
  return g_strdup (buf);
}

static GPtrArray *
numbers_to_text (const guint8 *d, gsize len, const char *vr, guint size, gboolean big)
{
  guint n = (guint) (len / size); /* a trailing partial value is not a value */
  GPtrArray *values = g_ptr_array_new_full (n, g_free);

  for (guint i = 0; i < n; i++, d += size)
    {
      char *s;

      switch (vr[0] << 8 | vr[1])
        {
        case 'U' << 8 | 'S': s = g_strdup_printf ("%u", rd16 (d, big)); break;
        case 'S' << 8 | 'S': s = g_strdup_printf ("%d", (gint16) rd16 (d, big)); break;
        case 'U' << 8 | 'L': s = g_strdup_printf ("%u", rd32 (d, big)); break;
        case 'S' << 8 | 'L': s = g_strdup_printf ("%d", (gint32) rd32 (d, big)); break;
        case 'U' << 8 | 'V': s = g_strdup_printf ("%" G_GUINT64_FORMAT, rd64 (d, big)); break;
        case 'S' << 8 | 'V': s = g_strdup_printf ("%" G_GINT64_FORMAT, (gint64) rd64 (d, big)); break;
        case 'A' << 8 | 'T':
          /* the JSON model writes a tag as 8 hexadecimal digits (PS3.18 §F.2.3) */
          s = g_strdup_printf ("%04X%04X", rd16 (d, big), rd16 (d + 2, big));
          break;
        case 'F' << 8 | 'L':
          {
            union { guint32 u; float f; } v = { .u = rd32 (d, big) };
            s = format_real (v.f, 9, TRUE);
          }
          break;
        default: /* FD */
          {
            union { guint64 u; double f; } v = { .u = rd64 (d, big) };
            s = format_real (v.f, 17, FALSE);
          }
          break;
        }
      g_ptr_array_add (values, s);
    }
  return values;
}

static const LbDicomCharset default_charset = { NULL, FALSE };

/* Stores one non-sequence value of @len bytes at @off as the JSON model holds it. */
static gboolean
put_value (LbDicomParser *p, const Level *lv, LbDicomDataset *ds, guint32 tag, const char *vr,
           gsize off, gsize len, GError **error)
{
  const guint8 *d = p->data + off;
  guint size;

  if (vr_is_binary (vr) || (!lb_dicom_vr_is_string (vr) && vr_number_size (vr) == 0))
    {
      /* OB, OW, …, UN, and VRs this code does not know: bytes, little endian as in the JSON
       * model (PS3.18 §F.2.7), a slice of the file where no swap is needed */
      guint swap = lv->big ? vr_swap_size (vr) : 1;
      g_autoptr(GBytes) bytes = NULL;

      if (swap > 1 && len % swap == 0)
        {
          guint8 *copy = g_malloc (len);

          for (gsize i = 0; i < len; i += swap)
            for (guint k = 0; k < swap; k++)
              copy[i + k] = d[i + swap - 1 - k];
          bytes = g_bytes_new_take (copy, len);
        }
      else
        bytes = g_bytes_new_from_bytes (p->bytes, off, len);
      lb_dicom_dataset_set_bytes (ds, tag, vr_is_binary (vr) ? vr : "UN", bytes);
      return TRUE;
    }
  size = vr_number_size (vr);
  if (size > 0)
    {
      GPtrArray *values;

      if (!count_values (p, tag, len / size, error))
        return FALSE;
      values = numbers_to_text (d, len, vr, size, lv->big);
      lb_dicom_dataset_take_values (ds, tag, vr, values);
      return TRUE;
    }
  {
    gboolean charset = vr_uses_charset (vr), pn = strcmp (vr, "PN") == 0;
    GPtrArray *values = g_ptr_array_new_with_free_func (g_free);
    g_auto(GStrv) parts = NULL;
    const LbDicomCharset *cs = charset ? &lv->cs : &default_charset;

    if (len == 0)
      ;
    else if (vr_is_single_text (vr))
      g_ptr_array_add (values, lb_dicom_charset_decode (cs, d, len, FALSE));
    else if (cs->iso2022)
      {
        /* code extensions: each value starts in the initial set, so split first (as pydicom
         * does; PS3.5 §6.1.2.5.3) */
        gsize start = 0;

        for (gsize i = 0; i <= len; i++)
          if (i == len || d[i] == '\\')
            {
              g_ptr_array_add (values, lb_dicom_charset_decode (cs, d + start, i - start, pn));
              start = i + 1;
            }
      }
    else
      {
        g_autofree char *text = lb_dicom_charset_decode (cs, d, len, pn);

        parts = g_strsplit (text, "\\", -1);
        for (guint i = 0; parts[i]; i++)
          g_ptr_array_add (values, g_steal_pointer (&parts[i]));
      }
    if (pn)
      for (guint i = 0; i < values->len; i++)
        {
          /* empty trailing component groups are absent ones: "A=I=" is "A=I", as the JSON
           * model carries it (lb-dicom-dataset.h) */
          char *v = values->pdata[i];
          gsize n = strlen (v);

          while (n > 0 && (v[n - 1] == '=' || v[n - 1] == ' '))
            v[--n] = '\0';
        }
    if (!count_values (p, tag, values->len, error))
      {
        g_ptr_array_unref (values);
        return FALSE;
      }
    lb_dicom_dataset_take_values (ds, tag, vr, values);
  }
  return TRUE;
}

/* ---- structure -------------------------------------------------------------------------------- */

static gboolean parse_dataset (LbDicomParser *p, const Level *lv, LbDicomDataset *ds, gsize pos,
                               gsize end, gboolean delimited, gsize *out_pos, GError **error);

/* The items of a sequence from @pos: up to @end for a defined length, else up to the Sequence
 * Delimitation Item (PS3.5 §7.5). */
static gboolean
parse_sequence (LbDicomParser *p, const Level *lv, guint32 tag, gsize pos, gsize end,
                gboolean delimited, GPtrArray *items, gsize *out_pos, GError **error)
{
  Level inner = *lv;

  inner.depth = lv->depth + 1;
  if (inner.depth > LB_DICOM_MAX_DEPTH)
    return fail (p, error, LB_ERROR_TOO_LARGE,
                 "sequence " LB_DICOM_TAG_FORMAT " is nested more than %d levels deep",
                 LB_DICOM_TAG_ARGS (tag), LB_DICOM_MAX_DEPTH);
  for (;;)
    {
      g_autoptr(LbDicomDataset) item = NULL;
      guint32 itag, ilen;
      gsize item_pos = pos;

      if (!delimited && pos == end)
        break;
      if (end - pos < 8)
        return short_data (p, error, "sequence " LB_DICOM_TAG_FORMAT " ends without its %s",
                           LB_DICOM_TAG_ARGS (tag),
                           delimited ? "Sequence Delimitation Item" : "last item");
      itag = rd_tag (p->data + pos, lv->big);
      ilen = rd32 (p->data + pos + 4, lv->big);
      pos += 8;
      if (itag == LB_DICOM_SEQUENCE_DELIMITER_TAG && delimited)
        break;
      if (itag != LB_DICOM_ITEM_TAG)
        return fail (p, error, LB_ERROR_CORRUPT,
                     "sequence " LB_DICOM_TAG_FORMAT " holds " LB_DICOM_TAG_FORMAT
                     " at byte %" G_GSIZE_FORMAT " where an item (FFFE,E000) belongs",
                     LB_DICOM_TAG_ARGS (tag), LB_DICOM_TAG_ARGS (itag), item_pos);
      if (!count_element (p, tag, error))
        return FALSE;
      if (lv->depth == 0 && tag == p->offsets_of && p->item_offsets != NULL)
        g_array_append_val (p->item_offsets, item_pos);
      item = lb_dicom_dataset_new ();
      if (ilen == LB_DICOM_UNDEFINED_LENGTH)
        {
          if (!parse_dataset (p, &inner, item, pos, end, TRUE, &pos, error))
            return FALSE;
        }
      else if (ilen > end - pos && end == p->len && !p->allow_truncation)
        {
          /* an item that claims more than the file has, where its sequence ends with the file
           * (a delimiter would be missing too): the file ends inside this last item, which
           * holds what is there. What dcmtk reads of such files; a DICOMDIR edited by hand
           * without fixing the item lengths looks like this. */
          g_debug ("%s: item %u of " LB_DICOM_TAG_FORMAT " runs past the end of the file",
                   p->name, items->len + 1, LB_DICOM_TAG_ARGS (tag));
          if (!parse_dataset (p, &inner, item, pos, end, FALSE, NULL, error))
            return FALSE;
          g_ptr_array_add (items, g_steal_pointer (&item));
          pos = end;
          break;
        }
      else
        {
          if (ilen > end - pos)
            return short_data (p, error,
                               "item %u of sequence " LB_DICOM_TAG_FORMAT " has %u bytes, only %"
                               G_GSIZE_FORMAT " are left", items->len + 1,
                               LB_DICOM_TAG_ARGS (tag), ilen, end - pos);
          if (!parse_dataset (p, &inner, item, pos, pos + ilen, FALSE, NULL, error))
            return FALSE;
          pos += ilen;
        }
      g_ptr_array_add (items, g_steal_pointer (&item));
    }
  if (out_pos)
    *out_pos = pos;
  return TRUE;
}

/* Encapsulated Pixel Data (PS3.5 §A.4): items of fragments up to a Sequence Delimitation Item,
 * always little endian. Their spans go to @fragments when it is not NULL. A file that ends
 * right after a complete item is accepted: the delimiter is the only thing missing. */
static gboolean
parse_fragments (LbDicomParser *p, const Level *lv, guint32 tag, gsize pos, gsize end,
                 GArray *fragments, gsize *out_pos, GError **error)
{
  guint n = 0;

  if (lv->big)
    return fail (p, error, LB_ERROR_CORRUPT,
                 LB_DICOM_TAG_FORMAT " has an undefined length in a big endian transfer syntax",
                 LB_DICOM_TAG_ARGS (tag));
  for (;;)
    {
      guint32 itag, ilen;
      LbDicomSpan span;

      if (pos == end && end == p->len && n > 0 && !p->allow_truncation)
        break;
      if (end - pos < 8)
        return short_data (p, error, "PixelData ends inside fragment item %u", n + 1);
      itag = rd_tag (p->data + pos, FALSE);
      ilen = rd32 (p->data + pos + 4, FALSE);
      if (itag == LB_DICOM_SEQUENCE_DELIMITER_TAG)
        {
          pos += 8;
          break;
        }
      if (itag != LB_DICOM_ITEM_TAG)
        return fail (p, error, LB_ERROR_CORRUPT,
                     "PixelData holds " LB_DICOM_TAG_FORMAT " at byte %" G_GSIZE_FORMAT
                     " where a fragment item (FFFE,E000) belongs", LB_DICOM_TAG_ARGS (itag), pos);
      if (ilen == LB_DICOM_UNDEFINED_LENGTH)
        return fail (p, error, LB_ERROR_CORRUPT,
                     "PixelData fragment item %u has an undefined length", n + 1);
      pos += 8;
      if (ilen > end - pos)
        return short_data (p, error, "PixelData fragment item %u has %u bytes, only %"
                           G_GSIZE_FORMAT " are left", n + 1, ilen, end - pos);
      if (!count_element (p, tag, error))
        return FALSE;
      span.offset = pos;
      span.length = ilen;
      if (fragments != NULL)
        g_array_append_val (fragments, span);
      pos += ilen;
      n++;
    }
  if (n == 0)
    return fail (p, error, LB_ERROR_CORRUPT,
                 "PixelData is encapsulated but has no Basic Offset Table item");
  *out_pos = pos;
  return TRUE;
}

/* Tries to read a value of unknown structure that starts like an item as a sequence in
 * Implicit VR Little Endian (PS3.5 §6.2.2: a UN sequence; private sequences in Implicit VR).
 * 1: it was one, now in @ds; 0: it is not (the caller keeps the bytes); -1: @error (a cap). */
static int
try_sequence (LbDicomParser *p, const Level *lv, guint32 tag, gsize off, gsize len,
              LbDicomDataset *ds, GError **error)
{
  g_autoptr(GPtrArray) items = NULL;
  g_autoptr(GError) local = NULL;
  guint64 elements = p->n_elements, values = p->n_values;
  gboolean allow = p->allow_truncation, ok;
  Level le = *lv;

  if (len < 8 || rd_tag (p->data + off, FALSE) != LB_DICOM_ITEM_TAG)
    return 0;
  items = g_ptr_array_new_with_free_func ((GDestroyNotify) lb_dicom_dataset_unref);
  le.big = FALSE;
  le.explicit_vr = FALSE;
  p->allow_truncation = FALSE; /* the value lies inside the data: running out is an error */
  ok = parse_sequence (p, &le, tag, off, off + len, FALSE, items, NULL, &local);
  p->allow_truncation = allow;
  if (ok)
    {
      lb_dicom_dataset_take_items (ds, tag, g_steal_pointer (&items));
      return 1;
    }
  /* the caps are caps: a bomb inside the value is not retried as bytes */
  if (g_error_matches (local, LB_ERROR, LB_ERROR_TOO_LARGE))
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return -1;
    }
  p->n_elements = elements;
  p->n_values = values;
  return 0;
}

/* The dictionary's VR for @tag with the ambiguous ones resolved (PS3.5 §A.1 c): US or SS by
 * PixelRepresentation, OB or OW and LUT data as OW. NULL when the dictionary does not know. */
static const char *
dict_vr (LbDicomParser *p, guint32 tag, const char *code)
{
  if (code == NULL || *code == '\0')
    return NULL;
  if (strcmp (code, "xs") == 0)
    return p->pixel_representation == 1 ? "SS" : "US";
  if (strcmp (code, "ox") == 0 || strcmp (code, "xw") == 0)
    return "OW";
  return code;
}

/* One element's value (defined or undefined length) from its header; @pos gets the end. */
static gboolean
parse_value (LbDicomParser *p, const Level *here, LbDicomDataset *ds, const Header *h,
             gsize end, gsize *pos, GError **error)
{
  const char *vr = here->explicit_vr ? h->vr : dict_vr (p, h->tag, h->vr);
  gboolean un = here->explicit_vr && strcmp (h->vr, "UN") == 0;
  Level seq = *here;

  if (un)
    {
      /* a UN of a known attribute is that attribute (PS3.5 §6.2.2); its sequences are in
       * Implicit VR Little Endian */
      const char *known = dict_vr (p, h->tag, lb_dicom_dict_get_vr (h->tag));

      vr = known != NULL ? known : "UN";
      seq.big = FALSE;
      seq.explicit_vr = FALSE;
    }

  if (h->length == LB_DICOM_UNDEFINED_LENGTH)
    {
      g_autoptr(GPtrArray) items = NULL;

      if (h->tag == LB_TAG_PIXEL_DATA)
        {
          /* nested encapsulated pixels (an icon of a compressed image): checked, not kept */
          if (!parse_fragments (p, here, h->tag, h->value, end, NULL, pos, error))
            return FALSE;
          lb_dicom_dataset_set_bytes (ds, h->tag, "OB", g_bytes_new_static ("", 0));
          return TRUE;
        }
      if (vr != NULL && strcmp (vr, "SQ") != 0 && !un)
        return fail (p, error, LB_ERROR_CORRUPT,
                     "element " LB_DICOM_TAG_FORMAT " %s has an undefined length, which only "
                     "sequences and pixel data may have", LB_DICOM_TAG_ARGS (h->tag), vr);
      if (vr == NULL && !here->explicit_vr)
        seq.big = FALSE; /* an unknown Implicit VR element of undefined length is a sequence */
      items = g_ptr_array_new_with_free_func ((GDestroyNotify) lb_dicom_dataset_unref);
      if (!parse_sequence (p, &seq, h->tag, h->value, end, TRUE, items, pos, error))
        return FALSE;
      lb_dicom_dataset_take_items (ds, h->tag, g_steal_pointer (&items));
      return TRUE;
    }

  if (h->length > end - h->value)
    return short_data (p, error,
                       "element " LB_DICOM_TAG_FORMAT " %s has %u bytes, only %" G_GSIZE_FORMAT
                       " are left", LB_DICOM_TAG_ARGS (h->tag), vr ? vr : "(implicit VR)",
                       h->length, end - h->value);
  *pos = h->value + h->length;
  if (vr != NULL && strcmp (vr, "SQ") == 0)
    {
      g_autoptr(GPtrArray) items =
        g_ptr_array_new_with_free_func ((GDestroyNotify) lb_dicom_dataset_unref);

      if (!parse_sequence (p, &seq, h->tag, h->value, *pos, FALSE, items, NULL, error))
        return FALSE;
      lb_dicom_dataset_take_items (ds, h->tag, g_steal_pointer (&items));
      return TRUE;
    }
  if (vr == NULL || strcmp (vr, "UN") == 0)
    {
      int r = try_sequence (p, here, h->tag, h->value, h->length, ds, error);

      if (r != 0)
        return r > 0;
      vr = "UN";
    }
  return put_value (p, here, ds, h->tag, vr, h->value, h->length, error);
}

/* Elements from @pos: up to @end, or (@delimited) up to an Item Delimitation Item. */
static gboolean
parse_dataset (LbDicomParser *p, const Level *lv, LbDicomDataset *ds, gsize pos, gsize end,
               gboolean delimited, gsize *out_pos, GError **error)
{
  Level here = *lv;

  for (;;)
    {
      Header h;

      if (pos == end)
        {
          if (delimited)
            return short_data (p, error, "an item of undefined length ends without its "
                               "Item Delimitation Item");
          break;
        }
      /* the stop tag is checked before the VR: the next group may be encoded otherwise (the
       * data set after the file meta group) */
      if (here.depth == 0 && end - pos >= 4)
        {
          guint32 next = rd_tag (p->data + pos, here.big);

          if ((next >> 16) != 0xFFFE
              && ((p->stop_tag != 0 && next >= p->stop_tag)
                  || (p->only_meta_group && (next >> 16) != 0x0002)))
            break;
        }
      if (!read_header (p, &here, pos, end, &h, error))
        return FALSE;
      if (h.tag == LB_DICOM_ITEM_DELIMITER_TAG)
        {
          pos = h.value;
          if (delimited)
            break;
          continue; /* tolerated inside a defined-length item, where it means nothing */
        }
      if ((h.tag >> 16) == 0xFFFE)
        return fail (p, error, LB_ERROR_CORRUPT,
                     LB_DICOM_TAG_FORMAT " at byte %" G_GSIZE_FORMAT " outside a sequence",
                     LB_DICOM_TAG_ARGS (h.tag), pos);
      if (!count_element (p, h.tag, error))
        return FALSE;

      if (h.tag == LB_TAG_PIXEL_DATA && here.depth == 0)
        {
          /* kept as a location, never copied (lb-dicom-file.c slices frames out of it) */
          const char *vr = here.explicit_vr ? h.vr : "OW"; /* PS3.5 §A.1 c */

          p->has_pixel_data = TRUE;
          g_strlcpy (p->pixel_vr, vr, sizeof p->pixel_vr);
          if (h.length == LB_DICOM_UNDEFINED_LENGTH)
            {
              p->encapsulated = TRUE;
              if (p->fragments == NULL)
                p->fragments = g_array_new (FALSE, FALSE, sizeof (LbDicomSpan));
              if (!parse_fragments (p, &here, h.tag, h.value, end, p->fragments, &pos, error))
                return FALSE;
            }
          else
            {
              if (h.length > end - h.value)
                return short_data (p, error, "PixelData has %u bytes, only %" G_GSIZE_FORMAT
                                   " are left in the file", h.length, end - h.value);
              p->pixel.offset = h.value;
              p->pixel.length = h.length;
              pos = h.value + h.length;
            }
          p->last_tag = h.tag;
          continue;
        }

      if (!parse_value (p, &here, ds, &h, end, &pos, error))
        return FALSE;

      if (h.tag == LB_TAG_SPECIFIC_CHARACTER_SET)
        {
          guint n = lb_dicom_dataset_get_n_values (ds, h.tag);
          g_autofree const char **terms = g_new0 (const char *, n + 1);

          for (guint i = 0; i < n; i++)
            terms[i] = lb_dicom_dataset_get_string (ds, h.tag, i);
          here.cs = lb_dicom_charset_from_terms (terms, n);
        }
      if (here.depth == 0)
        {
          gint64 v;

          if (h.tag == LB_TAG_PIXEL_REPRESENTATION && lb_dicom_dataset_get_int (ds, h.tag, 0, &v))
            p->pixel_representation = (int) CLAMP (v, -1, 2);
          p->last_tag = h.tag;
        }
    }
  if (out_pos)
    *out_pos = pos;
  return TRUE;
}

/* ---- entry points ----------------------------------------------------------------------------- */

void
lb_dicom_parser_init (LbDicomParser *p, GBytes *bytes, const char *name, gboolean big_endian,
                      gboolean explicit_vr)
{
  memset (p, 0, sizeof *p);
  p->bytes = g_bytes_ref (bytes);
  p->data = g_bytes_get_data (bytes, &p->len);
  p->name = name;
  p->big_endian = big_endian;
  p->explicit_vr = explicit_vr;
  p->pixel_representation = -1;
}

void
lb_dicom_parser_clear (LbDicomParser *p)
{
  g_clear_pointer (&p->bytes, g_bytes_unref);
  g_clear_pointer (&p->fragments, g_array_unref);
  g_clear_pointer (&p->item_offsets, g_array_unref);
}

gboolean
lb_dicom_parser_run (LbDicomParser *p, gsize start, gsize end, LbDicomDataset *ds, gsize *out_end,
                     GError **error)
{
  Level top = { p->big_endian, p->explicit_vr, 0, { NULL, FALSE } };

  gsize pos = start;

  g_return_val_if_fail (start <= end && end <= p->len, FALSE);
  if (p->offsets_of != 0 && p->item_offsets == NULL)
    p->item_offsets = g_array_new (FALSE, FALSE, sizeof (gsize));
  if (!parse_dataset (p, &top, ds, start, end, FALSE, &pos, error))
    {
      if (!p->truncated || (error != NULL && *error != NULL))
        return FALSE;
      /* a prefix ended: what was read completely stands */
    }
  if (out_end)
    *out_end = pos;
  return TRUE;
}

gboolean
lb_dicom_parse_file_meta (GBytes *bytes, const char *name, gsize start, LbDicomDataset *meta,
                          gsize *out_end, GError **error)
{
  LbDicomParser p;
  gsize len = g_bytes_get_size (bytes);
  const guint8 *d = g_bytes_get_data (bytes, NULL);
  gboolean explicit_vr, ok;

  /* a broken writer's Implicit VR meta group has a length where the VR belongs */
  explicit_vr = len >= start + 6 && g_ascii_isupper (d[start + 4]) && g_ascii_isupper (d[start + 5]);
  lb_dicom_parser_init (&p, bytes, name, FALSE, explicit_vr);
  p.only_meta_group = TRUE;
  ok = lb_dicom_parser_run (&p, start, len, meta, out_end, error);
  lb_dicom_parser_clear (&p);
  return ok;
}
