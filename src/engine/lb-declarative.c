/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-declarative"

#include <string.h>

#include "lb-declarative.h"
#include "lb-error.h"
#include "lb-plugin-loader.h"

#define GROUP_FILTER "Filter"
#define GROUP_KERNEL "Kernel"
#define GROUP_CHAIN "Chain"
/* Tap and bias limits keep every sum far inside gint64: 225 × 2^20 × 65535 < 2^45. */
#define MAX_TAP 1048576
#define MAX_BIAS 65535
#define MAX_STEPS 64

/* A declarative filter's heap descriptor and its data; owned by its LbFilter. */
typedef struct {
  LbFilterInfo info;
  char *id;
  char *alias;
  char *name;
  char *category;
  char *description;
  int kw;
  int kh;
  gint32 *taps;     /* kh rows of kw */
  gint64 divisor;
  gint64 bias;
} Decl;

static void
decl_free (gpointer data)
{
  Decl *d = data;

  g_free (d->id);
  g_free (d->alias);
  g_free (d->name);
  g_free (d->category);
  g_free (d->description);
  g_free (d->taps);
  g_free (d);
}

/* ---- the convolution kernel ---------------------------------------------------------------- */

/* Tests and the bench: every pass prepared while this is set runs the scalar reference. */
static gint conv_reference = 0;

void
_lb_declarative_set_reference (gboolean reference)
{
  g_atomic_int_set (&conv_reference, reference ? 1 : 0);
}

/* The kernel (immutable, shared) and the path this pass takes. */
typedef struct {
  const Decl *d;
  gboolean reference;
} ConvState;

static gpointer
conv_prepare (const LbFilterInfo  *info,
              gconstpointer        params,
              const LbFilterImage *image,
              LbFilterRect        *write_rect,
              GError             **error)
{
  ConvState *st = g_new (ConvState, 1);

  st->d = info->user_data;
  st->reference = g_atomic_int_get (&conv_reference) != 0;
  return st;
}

static void
conv_release (gpointer state)
{
  g_free (state);
}

static inline int
clampi (int v, int lo, int hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

/* The scalar reference. Neighbours outside the region are replaced by the nearest region
 * pixel (clamp). The sum is exact in gint64, divided with C truncation toward zero, then the
 * bias is added and the result clamped to the sample range. */
static gboolean
conv_process_reference (const Decl         *d,
                        const LbFilterBand *band)
{
  const LbFilterImage *im = band->image;
  const LbFilterRect *r = &im->region;
  int nc = im->has_alpha ? im->channels - 1 : im->channels;
  int ch = im->channels;
  int rw = d->kw / 2, rh = d->kh / 2;
  gint64 maxv = im->depth == 16 ? 65535 : 255;

  for (int y = band->y0; y < band->y1; y++)
    {
      if (g_atomic_int_get (band->cancelled))
        return TRUE;
      for (int x = band->x0; x < band->x1; x++)
        for (int c = 0; c < nc; c++)
          {
            gint64 sum = 0, v;

            for (int j = 0; j < d->kh; j++)
              {
                int sy = clampi (y + j - rh, r->y, r->y + r->height - 1);
                const guint8 *row = im->src + (gsize) sy * im->src_stride;

                for (int i = 0; i < d->kw; i++)
                  {
                    int sx = clampi (x + i - rw, r->x, r->x + r->width - 1);
                    gint64 s = im->depth == 16 ? ((const guint16 *) row)[(gsize) sx * ch + c]
                                               : row[(gsize) sx * ch + c];
                    sum += d->taps[j * d->kw + i] * s;
                  }
              }
            v = sum / d->divisor + d->bias;
            v = v < 0 ? 0 : v > maxv ? maxv : v;
            if (im->depth == 16)
              ((guint16 *) (band->dst + (gsize) y * band->dst_stride))[(gsize) x * ch + c] =
                (guint16) v;
            else
              band->dst[(gsize) y * band->dst_stride + (gsize) x * ch + c] = (guint8) v;
          }
    }
  return TRUE;
}

/* The fast path, the same integers. Per band, each source row the kernel reads is copied
 * once into a ring of rows padded by the kernel's half width with the region's edge pixels
 * (the reference's clamp), so the loops below index without clamping; per output row, every
 * non-zero tap adds tap × the shifted row to a row of sums (one contiguous loop over the
 * samples, alpha included, which the compiler vectorises), and the sums are divided in
 * doubles: with |sum| < 2^53 (here < 2^45, see MAX_TAP) and an integer divisor, the
 * correctly rounded quotient cannot cross an integer the exact one does not reach (the gap
 * is at least 1/|divisor|, the rounding error at most |sum/divisor| · 2^-53), so truncating
 * it gives C's quotient. Sums in 32 bits when Σ|tap| · max sample < 2^31, else 64. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
/* The engine builds with -O2, whose vectoriser (GCC 12) skips loops that need an epilogue:
 * these take -O3's. no-trapping-math lets GCC if-convert the clamp of the store loop (it may
 * then evaluate both arms of a select); it changes no value, unlike -ffast-math. */
#define CONV_CLONES                                                                         \
  __attribute__ ((target_clones ("avx2", "default"), optimize ("O3", "no-trapping-math")))
#else
#define CONV_CLONES
#endif

/* One tap over the row of sums. (Four taps per sweep, loading and storing the sums a quarter
 * as often, was no faster: 1400×1000 RGB8, 5×5 binomial, 1 thread, 14.2–15.7 → 15.2–16.4 ms;
 * the multiplies bound it.) */
#define CONV_MAC(name, S, A)                                                                 \
  CONV_CLONES static void                                                                   \
  name (A *restrict acc, const S *restrict row, gsize n, gint32 tap)                        \
  {                                                                                         \
    for (gsize i = 0; i < n; i++)                                                           \
      acc[i] += (A) tap * (A) row[i];                                                       \
  }
CONV_MAC (conv_mac_8_32, guint8, gint32)
CONV_MAC (conv_mac_16_32, guint16, gint32)
CONV_MAC (conv_mac_8_64, guint8, gint64)
CONV_MAC (conv_mac_16_64, guint16, gint64)

#define CONV_STORE(name, S, A)                                                               \
  CONV_CLONES static void                                                                   \
  name (S *restrict out, const A *restrict acc, gsize n, double divisor, double bias,       \
        double maxv)                                                                        \
  {                                                                                         \
    for (gsize i = 0; i < n; i++)                                                           \
      {                                                                                     \
        /* all in doubles, exact integers below 2^53, so that it vectorises (AVX2 has no    \
         * double to 64-bit integer conversion) */                                          \
        const double v = __builtin_trunc ((double) acc[i] / divisor) + bias;                \
                                                                                            \
        out[i] = (S) (gint32) (v < 0.0 ? 0.0 : v > maxv ? maxv : v);                        \
      }                                                                                     \
  }
CONV_STORE (conv_store_8_32, guint8, gint32)
CONV_STORE (conv_store_16_32, guint16, gint32)
CONV_STORE (conv_store_8_64, guint8, gint64)
CONV_STORE (conv_store_16_64, guint16, gint64)

static gboolean
conv_process_fast (const Decl         *d,
                   const LbFilterBand *band)
{
  const LbFilterImage *im = band->image;
  const LbFilterRect *r = &im->region;
  const int ch = im->channels, bps = im->depth / 8;
  const int rw = d->kw / 2, rh = d->kh / 2;
  const gint64 maxv = im->depth == 16 ? 65535 : 255;
  const double div = (double) d->divisor, bias = (double) d->bias, top = (double) maxv;
  /* padded rows: region columns [r->x − rw, r->x + r->width + rw) */
  const int pw = r->width + 2 * rw;
  const gsize prow = (gsize) pw * ch * bps;
  /* the band's output samples, from column x0 */
  const gsize n = (gsize) (band->x1 - band->x0) * ch;
  const gsize xoff = (gsize) (band->x0 - r->x) * ch;
  gint64 sum_abs = 0;
  gboolean wide;
  g_autofree guint8 *ring = g_malloc ((gsize) d->kh * prow);
  g_autofree int *held = g_new (int, d->kh);   /* source row in each ring slot, or −1 */
  g_autofree gint64 *acc = NULL;
  /* the non-zero taps: value, kernel row j, column i */
  const int ntaps = d->kw * d->kh;
  g_autofree gint32 *tv = g_new (gint32, ntaps);
  g_autofree int *tj = g_new (int, ntaps), *ti = g_new (int, ntaps);
  int nz = 0;

  for (int k = 0; k < ntaps; k++)
    {
      sum_abs += ABS ((gint64) d->taps[k]);
      if (d->taps[k] != 0)
        tv[nz] = d->taps[k], tj[nz] = k / d->kw, ti[nz] = k % d->kw, nz++;
    }
  wide = sum_abs * maxv >= G_MAXINT32;
  acc = g_malloc (n * (wide ? sizeof (gint64) : sizeof (gint32)));
  for (int k = 0; k < d->kh; k++)
    held[k] = -1;

  for (int y = band->y0; y < band->y1; y++)
    {
      guint8 *out = band->dst + (gsize) y * band->dst_stride + (gsize) band->x0 * ch * bps;
      const guint8 *srow = im->src + (gsize) y * im->src_stride + (gsize) band->x0 * ch * bps;

      if (g_atomic_int_get (band->cancelled))
        return TRUE;
      memset (acc, 0, n * (wide ? sizeof (gint64) : sizeof (gint32)));
      for (int j = 0; j < d->kh; j++)
        {
          const int sy = CLAMP (y + j - rh, r->y, r->y + r->height - 1);
          /* distinct rows of one window are fewer than kh apart: no two share a slot */
          const int slot = sy % d->kh;
          guint8 *p = ring + (gsize) slot * prow;

          if (held[slot] != sy)
            {
              const guint8 *src = im->src + (gsize) sy * im->src_stride + (gsize) r->x * ch * bps;
              const gsize px = (gsize) ch * bps;

              memcpy (p + (gsize) rw * px, src, (gsize) r->width * px);
              for (int i = 0; i < rw; i++)
                {
                  memcpy (p + (gsize) i * px, src, px);
                  memcpy (p + (gsize) (rw + r->width + i) * px, src + (gsize) (r->width - 1) * px,
                          px);
                }
              held[slot] = sy;
            }
        }
      /* output column x reads padded column (x − r->x) + i of kernel row j's source row */
      for (int k = 0; k < nz; k++)
        {
          const int sy = CLAMP (y + tj[k] - rh, r->y, r->y + r->height - 1);
          const guint8 *q = ring + (gsize) (sy % d->kh) * prow + (xoff + (gsize) ti[k] * ch) * bps;

          if (im->depth == 16 && wide)
            conv_mac_16_64 (acc, (const guint16 *) (const void *) q, n, tv[k]);
          else if (im->depth == 16)
            conv_mac_16_32 ((gint32 *) acc, (const guint16 *) (const void *) q, n, tv[k]);
          else if (wide)
            conv_mac_8_64 (acc, q, n, tv[k]);
          else
            conv_mac_8_32 ((gint32 *) acc, q, n, tv[k]);
        }
      if (im->depth == 16 && wide)
        conv_store_16_64 ((guint16 *) (void *) out, acc, n, div, bias, top);
      else if (im->depth == 16)
        conv_store_16_32 ((guint16 *) (void *) out, (const gint32 *) acc, n, div, bias, top);
      else if (wide)
        conv_store_8_64 (out, acc, n, div, bias, top);
      else
        conv_store_8_32 (out, (const gint32 *) acc, n, div, bias, top);
      if (im->has_alpha)
        for (gsize i = (gsize) ch - 1; i < n; i += ch)
          memcpy (out + i * bps, srow + i * bps, bps);
    }
  return TRUE;
}

static gboolean
conv_process (gconstpointer       state,
              const LbFilterBand *band,
              GError            **error)
{
  const ConvState *st = state;

  return st->reference ? conv_process_reference (st->d, band) : conv_process_fast (st->d, band);
}

/* ---- parsing ------------------------------------------------------------------------------ */

typedef struct {
  char *group;
  char *key;
  int line;
} KeyLine;

typedef struct {
  const char *origin;
  GArray *keys;     /* KeyLine, in file order */
  GArray *groups;   /* KeyLine with key = NULL */
} Scan;

static void
key_line_clear (gpointer data)
{
  KeyLine *k = data;

  g_free (k->group);
  g_free (k->key);
}

static gboolean parse_fail (Scan       *scan,
                            int         line,
                            GError    **error,
                            const char *format,
                            ...) G_GNUC_PRINTF (4, 5);

static gboolean
parse_fail (Scan       *scan,
            int         line,
            GError    **error,
            const char *format,
            ...)
{
  va_list args;
  g_autofree char *msg = NULL;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  if (line > 0)
    g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "%s:%d: %s", scan->origin, line, msg);
  else
    g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "%s: %s", scan->origin, msg);
  return FALSE;
}

/* GKeyFile reports no line numbers, so this scan records where every group and key is,
 * and rejects lines GKeyFile would reject (or silently merge: duplicate keys and groups). */
static gboolean
scan_lines (Scan        *scan,
            const char  *text,
            gsize        len,
            GError     **error)
{
  g_autofree char *copy = g_strndup (text, len);
  g_auto(GStrv) lines = NULL;
  g_autofree char *group = NULL;

  if (memchr (text, '\0', len) != NULL || !g_utf8_validate (text, len, NULL))
    return parse_fail (scan, 0, error, "not UTF-8 text");
  lines = g_strsplit (copy, "\n", -1);
  for (int i = 0; lines[i] != NULL; i++)
    {
      char *l = g_strstrip (lines[i]);
      int line = i + 1;

      if (*l == '\0' || *l == '#')
        continue;
      if (*l == '[')
        {
          char *end = strchr (l, ']');
          KeyLine g = { 0 };

          if (end == NULL || end[1] != '\0' || end == l + 1)
            return parse_fail (scan, line, error, "malformed group header “%s”", l);
          g_free (group);
          group = g_strndup (l + 1, end - l - 1);
          for (guint k = 0; k < scan->groups->len; k++)
            if (g_str_equal (g_array_index (scan->groups, KeyLine, k).group, group))
              return parse_fail (scan, line, error, "group [%s] appears twice", group);
          g.group = g_strdup (group);
          g.line = line;
          g_array_append_val (scan->groups, g);
          continue;
        }
      {
        char *eq = strchr (l, '=');
        KeyLine kl = { 0 };

        if (eq == NULL || eq == l)
          return parse_fail (scan, line, error, "“%s” is not KEY=VALUE, a [group] or a comment", l);
        if (group == NULL)
          return parse_fail (scan, line, error, "key before the first [group]");
        *eq = '\0';
        g_strchomp (l);
        for (guint k = 0; k < scan->keys->len; k++)
          {
            KeyLine *o = &g_array_index (scan->keys, KeyLine, k);
            if (g_str_equal (o->group, group) && g_str_equal (o->key, l))
              return parse_fail (scan, line, error, "key “%s” appears twice in [%s]", l, group);
          }
        kl.group = g_strdup (group);
        kl.key = g_strdup (l);
        kl.line = line;
        g_array_append_val (scan->keys, kl);
      }
    }
  return TRUE;
}

static int
line_of (Scan       *scan,
         const char *group,
         const char *key)
{
  if (key == NULL)
    {
      for (guint k = 0; k < scan->groups->len; k++)
        if (g_str_equal (g_array_index (scan->groups, KeyLine, k).group, group))
          return g_array_index (scan->groups, KeyLine, k).line;
      return 0;
    }
  for (guint k = 0; k < scan->keys->len; k++)
    {
      KeyLine *o = &g_array_index (scan->keys, KeyLine, k);
      if (g_str_equal (o->group, group) && g_str_equal (o->key, key))
        return o->line;
    }
  return 0;
}

/* "Row12" → 12 with @prefix "Row"; 0 if @key is not prefix + a positive decimal. */
static int
numbered_key (const char *key,
              const char *prefix)
{
  guint64 n;

  if (!g_str_has_prefix (key, prefix))
    return 0;
  key += strlen (prefix);
  if (*key == '0' || !g_ascii_string_to_unsigned (key, 10, 1, 1000, &n, NULL))
    return 0;
  return (int) n;
}

static gboolean
localisable (const char *key)
{
  static const char *const names[] = { "Name", "Category", "Description" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      gsize n = strlen (names[i]);
      if (strncmp (key, names[i], n) == 0 && key[n] == '[' && g_str_has_suffix (key, "]")
          && strlen (key) > n + 2)
        return TRUE;
    }
  return FALSE;
}

static gboolean
check_known_keys (Scan       *scan,
                  const char *type,
                  GError    **error)
{
  static const char *const filter_keys[] = { "Id", "Alias", "Name", "Category", "Description",
                                             "Type" };

  for (guint g = 0; g < scan->groups->len; g++)
    {
      KeyLine *kl = &g_array_index (scan->groups, KeyLine, g);

      if (!g_str_equal (kl->group, GROUP_FILTER)
          && !(g_str_equal (kl->group, GROUP_KERNEL) && g_strcmp0 (type, "kernel") == 0)
          && !(g_str_equal (kl->group, GROUP_CHAIN) && g_strcmp0 (type, "chain") == 0))
        return parse_fail (scan, kl->line, error, "unexpected group [%s] for Type=%s",
                           kl->group, type);
    }
  for (guint k = 0; k < scan->keys->len; k++)
    {
      KeyLine *kl = &g_array_index (scan->keys, KeyLine, k);
      gboolean ok = FALSE;

      if (g_str_equal (kl->group, GROUP_FILTER))
        {
          for (guint i = 0; i < G_N_ELEMENTS (filter_keys); i++)
            ok |= g_str_equal (kl->key, filter_keys[i]);
          ok |= localisable (kl->key);
        }
      else if (g_str_equal (kl->group, GROUP_KERNEL))
        ok = g_str_equal (kl->key, "Width") || g_str_equal (kl->key, "Height")
             || g_str_equal (kl->key, "Divisor") || g_str_equal (kl->key, "Bias")
             || numbered_key (kl->key, "Row") > 0;
      else if (g_str_equal (kl->group, GROUP_CHAIN))
        ok = numbered_key (kl->key, "Step") > 0;
      if (!ok)
        return parse_fail (scan, kl->line, error, "unknown key “%s” in [%s]", kl->key,
                           kl->group);
    }
  return TRUE;
}

static char *
get_string (GKeyFile   *kf,
            Scan       *scan,
            const char *group,
            const char *key,
            gboolean    required,
            GError    **error)
{
  g_autoptr(GError) local = NULL;
  char *v;

  if (!g_key_file_has_key (kf, group, key, NULL))
    {
      if (required)
        parse_fail (scan, line_of (scan, group, NULL), error, "[%s] lacks the key %s", group,
                    key);
      return NULL;
    }
  v = g_key_file_get_string (kf, group, key, &local);
  if (v == NULL)
    parse_fail (scan, line_of (scan, group, key), error, "%s: %s", key, local->message);
  return v;
}

/* The user's language's variant of a [Filter] string, "Name[de]", else the plain key; NULL
 * when absent. (Done by hand: g_key_file_get_locale_string() of GLib 2.74 leaks a GError on
 * an unreadable value.) */
static gboolean
get_locale (GKeyFile   *kf,
            Scan       *scan,
            const char *key,
            char      **out,
            GError    **error)
{
  const char *const *langs = g_get_language_names ();

  *out = NULL;
  for (guint i = 0; langs[i] != NULL; i++)
    {
      g_autofree char *lkey = g_strdup_printf ("%s[%s]", key, langs[i]);

      if (g_key_file_has_key (kf, GROUP_FILTER, lkey, NULL))
        {
          *out = get_string (kf, scan, GROUP_FILTER, lkey, TRUE, error);
          return *out != NULL;
        }
    }
  if (!g_key_file_has_key (kf, GROUP_FILTER, key, NULL))
    return TRUE;
  *out = get_string (kf, scan, GROUP_FILTER, key, TRUE, error);
  return *out != NULL;
}

static gboolean
get_int (GKeyFile   *kf,
         Scan       *scan,
         const char *group,
         const char *key,
         gboolean    required,
         gint64      min,
         gint64      max,
         gint64     *out,
         GError    **error)
{
  g_autofree char *s = NULL;
  g_autoptr(GError) local = NULL;
  gint64 v;

  if (!g_key_file_has_key (kf, group, key, NULL) && !required)
    return TRUE;
  s = get_string (kf, scan, group, key, TRUE, error);
  if (s == NULL)
    return FALSE;
  g_strstrip (s);
  if (!g_ascii_string_to_signed (s, 10, G_MININT64, G_MAXINT64, &v, &local))
    return parse_fail (scan, line_of (scan, group, key), error, "%s=%s is not an integer", key,
                       s);
  if (v < min || v > max)
    return parse_fail (scan, line_of (scan, group, key), error,
                       "%s=%" G_GINT64_FORMAT " is out of range %" G_GINT64_FORMAT "..%"
                       G_GINT64_FORMAT, key, v, min, max);
  *out = v;
  return TRUE;
}

static gboolean
parse_kernel (GKeyFile *kf,
              Scan     *scan,
              Decl     *d,
              GError  **error)
{
  gint64 w = 0, h = 0, sum = 0;
  int hline;

  if (!g_key_file_has_group (kf, GROUP_KERNEL))
    return parse_fail (scan, line_of (scan, GROUP_FILTER, "Type"), error,
                       "Type=kernel needs a [%s] group", GROUP_KERNEL);
  if (!get_int (kf, scan, GROUP_KERNEL, "Width", TRUE, 1, LB_DECLARATIVE_MAX_KERNEL, &w, error)
      || !get_int (kf, scan, GROUP_KERNEL, "Height", TRUE, 1, LB_DECLARATIVE_MAX_KERNEL, &h,
                   error))
    return FALSE;
  if (w % 2 == 0)
    return parse_fail (scan, line_of (scan, GROUP_KERNEL, "Width"), error,
                       "Width=%" G_GINT64_FORMAT " must be odd (the kernel needs a centre)", w);
  if (h % 2 == 0)
    return parse_fail (scan, line_of (scan, GROUP_KERNEL, "Height"), error,
                       "Height=%" G_GINT64_FORMAT " must be odd (the kernel needs a centre)", h);
  d->kw = (int) w;
  d->kh = (int) h;
  d->taps = g_new0 (gint32, w * h);
  hline = line_of (scan, GROUP_KERNEL, "Height");
  for (guint k = 0; k < scan->keys->len; k++)
    {
      KeyLine *kl = &g_array_index (scan->keys, KeyLine, k);
      int n = numbered_key (kl->key, "Row");

      if (g_str_equal (kl->group, GROUP_KERNEL) && n > h)
        return parse_fail (scan, kl->line, error, "%s, but Height=%" G_GINT64_FORMAT
                           " (line %d)", kl->key, h, hline);
    }
  for (int j = 0; j < h; j++)
    {
      g_autofree char *key = g_strdup_printf ("Row%d", j + 1);
      g_autofree char *s = get_string (kf, scan, GROUP_KERNEL, key, TRUE, error);
      g_auto(GStrv) taps = NULL;
      int line = line_of (scan, GROUP_KERNEL, key), n = 0;

      if (s == NULL)
        return FALSE;
      taps = g_strsplit_set (g_strstrip (s), " \t", -1);
      for (int i = 0; taps[i] != NULL; i++)
        {
          gint64 v;

          if (*taps[i] == '\0')
            continue;
          if (!g_ascii_string_to_signed (taps[i], 10, -MAX_TAP, MAX_TAP, &v, NULL))
            return parse_fail (scan, line, error, "%s: tap “%s” is not an integer in %d..%d",
                               key, taps[i], -MAX_TAP, MAX_TAP);
          if (n >= w)
            return parse_fail (scan, line, error, "%s has more than Width=%" G_GINT64_FORMAT
                               " taps", key, w);
          d->taps[j * w + n++] = (gint32) v;
          sum += v;
        }
      if (n != w)
        return parse_fail (scan, line, error, "%s has %d taps, Width=%" G_GINT64_FORMAT
                           " needs %" G_GINT64_FORMAT, key, n, w, w);
    }
  /* Without a divisor the kernel is normalised by its sum (1 if the taps sum to 0). */
  d->divisor = sum != 0 ? sum : 1;
  if (!get_int (kf, scan, GROUP_KERNEL, "Divisor", FALSE, -MAX_TAP * 225LL, MAX_TAP * 225LL,
                &d->divisor, error))
    return FALSE;
  if (d->divisor == 0)
    return parse_fail (scan, line_of (scan, GROUP_KERNEL, "Divisor"), error,
                       "Divisor=0: division by zero");
  return get_int (kf, scan, GROUP_KERNEL, "Bias", FALSE, -MAX_BIAS, MAX_BIAS, &d->bias, error);
}

static gboolean
parse_chain (GKeyFile              *kf,
             Scan                  *scan,
             GPtrArray             *steps,
             LbDeclarativeStepCheck check,
             gpointer               user_data,
             GError               **error)
{
  int n = 0;

  if (!g_key_file_has_group (kf, GROUP_CHAIN))
    return parse_fail (scan, line_of (scan, GROUP_FILTER, "Type"), error,
                       "Type=chain needs a [%s] group", GROUP_CHAIN);
  for (guint k = 0; k < scan->keys->len; k++)
    if (g_str_equal (g_array_index (scan->keys, KeyLine, k).group, GROUP_CHAIN))
      n++;
  if (n == 0 || n > MAX_STEPS)
    return parse_fail (scan, line_of (scan, GROUP_CHAIN, NULL), error,
                       "a chain needs 1..%d steps (Step1, Step2, …)", MAX_STEPS);
  for (int i = 1; i <= n; i++)
    {
      g_autofree char *key = g_strdup_printf ("Step%d", i);
      char *s;
      g_autoptr(GError) local = NULL;

      if (!g_key_file_has_key (kf, GROUP_CHAIN, key, NULL))
        return parse_fail (scan, line_of (scan, GROUP_CHAIN, NULL), error,
                           "the steps must be numbered Step1..Step%d without gaps; %s is missing",
                           n, key);
      s = get_string (kf, scan, GROUP_CHAIN, key, TRUE, error);
      if (s == NULL)
        return FALSE;
      g_strstrip (s);
      g_ptr_array_add (steps, s);
      if (check != NULL && !check (s, user_data, &local))
        return parse_fail (scan, line_of (scan, GROUP_CHAIN, key), error, "%s: %s", key,
                           local->message);
    }
  return TRUE;
}

LbFilter *
lb_declarative_parse (GBytes                 *bytes,
                      const char             *origin,
                      LbDeclarativeStepCheck  check,
                      gpointer                user_data,
                      GError                **error)
{
  gsize len;
  const char *text = g_bytes_get_data (bytes, &len);
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autoptr(GError) local = NULL;
  g_autoptr(GPtrArray) steps = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *type = NULL;
  Scan scan = { origin, NULL, NULL };
  Decl *d = NULL;
  LbFilter *filter = NULL;

  g_return_val_if_fail (bytes != NULL && origin != NULL, NULL);
  scan.keys = g_array_new (FALSE, TRUE, sizeof (KeyLine));
  g_array_set_clear_func (scan.keys, key_line_clear);
  scan.groups = g_array_new (FALSE, TRUE, sizeof (KeyLine));
  g_array_set_clear_func (scan.groups, key_line_clear);

  if (len > 64 * 1024)
    {
      parse_fail (&scan, 0, error, "larger than 64 KiB: not a filter description");
      goto out;
    }
  if (!scan_lines (&scan, text ? text : "", len, error))
    goto out;
  if (!g_key_file_load_from_data (kf, text ? text : "", len, G_KEY_FILE_NONE, &local))
    {
      parse_fail (&scan, 0, error, "%s", local->message);
      goto out;
    }
  if (!g_key_file_has_group (kf, GROUP_FILTER))
    {
      parse_fail (&scan, 1, error, "no [%s] group", GROUP_FILTER);
      goto out;
    }
  type = get_string (kf, &scan, GROUP_FILTER, "Type", TRUE, error);
  if (type == NULL)
    goto out;
  if (!g_str_equal (type, "kernel") && !g_str_equal (type, "chain"))
    {
      parse_fail (&scan, line_of (&scan, GROUP_FILTER, "Type"), error,
                  "Type=%s: must be kernel or chain", type);
      goto out;
    }
  if (!check_known_keys (&scan, type, error))
    goto out;

  d = g_new0 (Decl, 1);
  d->id = get_string (kf, &scan, GROUP_FILTER, "Id", TRUE, error);
  if (d->id == NULL)
    goto out;
  if (!lb_filter_id_is_valid (d->id, TRUE))
    {
      parse_fail (&scan, line_of (&scan, GROUP_FILTER, "Id"), error,
                  "Id=%s: use lowercase letters, digits, '.', '-' and '_' (reverse DNS)", d->id);
      goto out;
    }
  if (g_key_file_has_key (kf, GROUP_FILTER, "Alias", NULL))
    {
      d->alias = get_string (kf, &scan, GROUP_FILTER, "Alias", TRUE, error);
      if (d->alias == NULL)
        goto out;
      if (!lb_filter_id_is_valid (d->alias, FALSE))
        {
          parse_fail (&scan, line_of (&scan, GROUP_FILTER, "Alias"), error,
                      "Alias=%s: use lowercase letters, digits, '-' and '_'", d->alias);
          goto out;
        }
    }
  for (guint i = 0; i < 2; i++)
    {
      const char *key = i == 0 ? "Name" : "Category";
      g_autofree char *v = get_string (kf, &scan, GROUP_FILTER, key, TRUE, error);

      if (v == NULL)
        goto out;
      if (*g_strstrip (v) == '\0')
        {
          parse_fail (&scan, line_of (&scan, GROUP_FILTER, key), error, "%s is empty", key);
          goto out;
        }
    }
  /* Every plain string of [Filter] must be readable (no bad escapes). Localised variants
   * for other languages are dropped by GKeyFile on load; the one for the user's language is
   * checked by get_locale(). */
  for (guint k = 0; k < scan.keys->len; k++)
    {
      KeyLine *kl = &g_array_index (scan.keys, KeyLine, k);
      g_autofree char *v = NULL;

      if (g_str_equal (kl->group, GROUP_FILTER) && strchr (kl->key, '[') == NULL
          && (v = get_string (kf, &scan, GROUP_FILTER, kl->key, TRUE, error)) == NULL)
        goto out;
    }
  if (!get_locale (kf, &scan, "Name", &d->name, error)
      || !get_locale (kf, &scan, "Category", &d->category, error)
      || !get_locale (kf, &scan, "Description", &d->description, error))
    goto out;

  d->info.struct_size = sizeof (LbFilterInfo);
  d->info.id = d->id;
  d->info.alias = d->alias;
  d->info.name = d->name;
  d->info.category = d->category;
  d->info.description = d->description;
  d->info.user_data = d;

  if (g_str_equal (type, "kernel"))
    {
      if (!parse_kernel (kf, &scan, d, error))
        goto out;
      d->info.formats = LB_FILTER_FORMATS_ALL;
      d->info.prepare = conv_prepare;
      d->info.process = conv_process;
      d->info.release = conv_release;
      if (!lb_filter_info_validate (&d->info, error))
        goto out;
      Decl *owned = g_steal_pointer (&d);

      filter = _lb_filter_new (LB_FILTER_KIND_KERNEL, &owned->info, NULL, origin, NULL, NULL,
                               owned, decl_free);
    }
  else
    {
      if (!parse_chain (kf, &scan, steps, check, user_data, error))
        goto out;
      g_ptr_array_add (steps, NULL);
      /* A chain's formats are those of its steps, checked when it runs. */
      Decl *owned = g_steal_pointer (&d);

      owned->info.formats = 0;
      filter = _lb_filter_new (LB_FILTER_KIND_CHAIN, &owned->info, NULL, origin, NULL,
                               (const char *const *) steps->pdata, owned, decl_free);
    }

out:
  if (d != NULL)
    decl_free (d);
  g_array_unref (scan.keys);
  g_array_unref (scan.groups);
  return filter;
}
