/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-cli"

/* lightbox-cli check-plugin: what Lightbox's own tests demand of its filters, run on an
 * author's plugin file. Each filter of the file is checked in a child process of its own,
 * so a crash costs that filter's verdict, not the run, and the fault handler can say which
 * check and which pass it hit. */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "lb-band-guard.h"
#include "lb-cli.h"
#include "lb-error.h"
#include "lb-image-meta.h"
#include "lb-isolation.h"
#include "lb-pipeline.h"
#include "lb-plugin-loader.h"
#include "lb-python-filter.h"

#define CMD "check-plugin"
/* The test image: odd sizes, so no band height or thread count divides them evenly. */
#define W 61
#define H 47
/* Taller for the cancel check, so a plugin has rows left to (wrongly) write after it. */
#define CANCEL_H 160
/* Seconds one check may take before it is reported as hung. */
#define CHECK_TIMEOUT_S 120
/* The child's exit status after the fault handler printed its verdict (not 1, and unlikely
 * for a plugin's own exit()). */
#define FAULT_EXIT 120

static const guint thread_counts[] = { 1, 2, 3, 4 };
/* 0: the pipeline's choice (about four bands per thread); H: one band */
static const guint band_heights[] = { 1, 7, 64, 0, H };
static const LbFilterRect selection = { 9, 5, 31, 23 };

/* ---- the fault handler's view of what runs (written before each pass, read in the handler) */

static char check_name[64];
static char pass_context[256];
static const guint8 *source_lo, *source_hi;  /* the read-only source mappings' extent */

static void
say (const char *s)
{
  gsize n = strlen (s);

  while (n > 0)
    {
      ssize_t w = write (STDOUT_FILENO, s, n);

      if (w <= 0)
        return;
      s += w;
      n -= (gsize) w;
    }
}

static void
fault_handler (int        sig,
               siginfo_t *info,
               void      *uctx)
{
  char where[256];
  gboolean in_source = (sig == SIGSEGV || sig == SIGBUS)
                       && (const guint8 *) info->si_addr >= source_lo
                       && (const guint8 *) info->si_addr < source_hi;

  say ("  FAIL  ");
  /* a write into the source fails that check, whichever pass met it */
  say (in_source ? "source untouched" : check_name);
  say (": ");
  if ((sig == SIGSEGV || sig == SIGBUS)
      && _lb_band_guard_describe_fault (info->si_addr, where, sizeof where))
    {
      say ("process() touched ");
      say (where);
    }
  else if (in_source)
    say ("the plugin wrote into the source image, which it may only read");
  else if (sig == SIGALRM)
    say ("did not finish within 120 s (a hang, or a filter far too slow for a 61×47 image)");
  else
    {
      say ("crashed with signal ");
      say (sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE"
           : sig == SIGILL ? "SIGILL" : sig == SIGABRT ? "SIGABRT" : "?");
    }
  say (" (");
  say (pass_context);
  say (")\n");
  _exit (FAULT_EXIT);
}

static void
install_handlers (void)
{
  static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM };
  struct sigaction sa = { 0 };

  sa.sa_sigaction = fault_handler;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
  sigemptyset (&sa.sa_mask);
  for (guint i = 0; i < G_N_ELEMENTS (sigs); i++)
    sigaction (sigs[i], &sa, NULL);
}

static void
begin_check (const char *name)
{
  g_strlcpy (check_name, name, sizeof check_name);
  pass_context[0] = '\0';
  alarm (CHECK_TIMEOUT_S);
}

static void set_context (const char *format, ...) G_GNUC_PRINTF (1, 2);

static void
set_context (const char *format,
             ...)
{
  va_list args;

  va_start (args, format);
  g_vsnprintf (pass_context, sizeof pass_context, format, args);
  va_end (args);
}

static int failures;

static void verdict (gboolean ok, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
verdict (gboolean    ok,
         const char *format,
         ...)
{
  va_list args;
  g_autofree char *detail = NULL;

  va_start (args, format);
  detail = g_strdup_vprintf (format, args);
  va_end (args);
  printf ("  %s  %s: %s\n", ok ? "PASS" : "FAIL", check_name, detail);
  fflush (stdout);
  failures += !ok;
}

/* ---- test images ------------------------------------------------------------------------ */

static guint32
next_random (guint32 *state)
{
  /* xorshift32: the same images on every machine */
  *state ^= *state << 13;
  *state ^= *state >> 17;
  *state ^= *state << 5;
  return *state;
}

/* One plane of @width × @height samples over the full range 0..@max: a gradient (filters
 * with structure to work on), random samples, and rows of 0 and @max. */
static guint16 *
make_plane (int      width,
            int      height,
            guint    max,
            guint32  seed)
{
  guint16 *p = g_new (guint16, (gsize) width * height);
  guint32 state = seed;

  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      {
        guint32 r = next_random (&state);
        guint v;

        if (y == 0 || y == height - 1)
          v = x % 2 ? max : 0;
        else if (r % 4 == 0)
          v = r >> 8;
        else
          v = (guint) (((guint64) (x * height + y * width) * max) / (2u * width * height));
        p[y * width + x] = (guint16) MIN (v % (max + 1), max);
      }
  return p;
}

typedef struct {
  guint16 *planes[4];   /* for depth 8 and 16: colour 0..2, then alpha */
} Planes;

/* @salt 0: the source images; others for the second image of a filter that reads two */
static void
planes_init (Planes *pl,
             int     width,
             int     height,
             guint   max,
             guint32 salt)
{
  for (guint c = 0; c < 4; c++)
    pl->planes[c] = make_plane (width, height, max, 0x9e3779b9u * (c + 1) + max + salt);
}

static void
planes_clear (Planes *pl)
{
  for (guint c = 0; c < 4; c++)
    g_clear_pointer (&pl->planes[c], g_free);
}

typedef struct {
  guint8 *map;
  gsize size;
} Mapping;

static void
mapping_free (gpointer data)
{
  Mapping *m = data;

  munmap (m->map, m->size);
  g_free (m);
}

/* What a CT's grey images carry (plugin ABI 1.3's LbFilterMeta): 16-bit samples hold signed
 * 12-bit values (offset binary), HU = value − 1024, the lowest 16th of the range is pixel
 * padding, a soft-tissue window, 0.7 mm pixels; 8-bit ones a rescale of 2 and −100. So a
 * filter that reads the metadata is checked on it, and colour images stay without. */
static LbImageMeta *
grey_meta (guint bits)
{
  LbImageMeta *meta = lb_image_meta_new ();
  LbValueModelBuilder *b = lb_value_model_builder_new (NULL, bits);
  g_autoptr(LbValueModel) model = NULL;
  guint max = bits == 16 ? 65535 : 255;

  lb_value_model_builder_set_source (b, bits == 16, bits == 16 ? 12 : 8);
  lb_value_model_builder_set_rescale (b, bits == 16 ? 1.0 : 2.0, bits == 16 ? -1024.0 : -100.0);
  lb_value_model_builder_set_units (b, "HU");
  lb_value_model_builder_set_padding (b, 0, max / 16);
  lb_value_model_builder_add_window (b, 40, 400, NULL);
  model = lb_value_model_builder_end (b);
  lb_image_meta_set_value_model (meta, model);
  lb_image_meta_set_pixel_spacing (meta, 0.7, 0.7);
  lb_image_meta_set_text (meta, "Modality", "CT");
  return meta;
}

/* An image of @format from @pl (gray uses plane 0; alpha is plane 3), its pixels in a
 * mapping made read-only: a plugin that writes into its source faults. Grey images carry
 * grey_meta(). */
static LbImage *
make_image (LbSampleFormat format,
            int            width,
            int            height,
            const Planes  *pl)
{
  guint ch = lb_sample_format_get_channels (format);
  gboolean alpha = lb_sample_format_has_alpha (format);
  gboolean deep = lb_sample_format_get_sample_size (format) == 2;
  gsize stride = (gsize) width * lb_sample_format_get_pixel_size (format);
  Mapping *m = g_new0 (Mapping, 1);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(LbImageMeta) meta = NULL;

  m->size = stride * height;
  m->map = mmap (NULL, m->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  g_assert (m->map != MAP_FAILED);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      for (guint c = 0; c < ch; c++)
        {
          guint plane = alpha && c == ch - 1 ? 3 : c;
          guint16 v = pl->planes[plane][y * width + x];
          gsize i = (gsize) y * stride / (deep ? 2 : 1) + (gsize) x * ch + c;

          if (deep)
            ((guint16 *) m->map)[i] = v;
          else
            m->map[i] = (guint8) v;
        }
  mprotect (m->map, m->size, PROT_READ);
  if (source_lo == NULL || m->map < source_lo)
    source_lo = m->map;
  if (m->map + m->size > source_hi)
    source_hi = m->map + m->size;
  bytes = g_bytes_new_with_free_func (m->map, m->size, mapping_free, m);
  meta = ch - (alpha ? 1 : 0) == 1 ? grey_meta (deep ? 16 : 8) : NULL;
  return lb_image_new (width, height, format, stride, bytes, meta, NULL);
}

/* ---- running and comparing ---------------------------------------------------------------- */

/* The second image for a filter that reads two (LbFilterInfo.n_inputs 2): of @input's size
 * and format, other samples, the same for every pass on such an input (so schedules compare
 * equal, and the alpha check's image without alpha has the same colour samples). */
static LbImage *
aux_for (LbImage *input)
{
  static LbImage *cache[LB_N_FORMATS][2];
  LbSampleFormat format = lb_image_get_format (input);
  int width = (int) lb_image_get_width (input), height = (int) lb_image_get_height (input);
  LbImage **slot = &cache[format][height != H];

  if (*slot == NULL || (int) lb_image_get_height (*slot) != height
      || (int) lb_image_get_width (*slot) != width)
    {
      Planes pl = { { NULL } };

      g_clear_object (slot);
      planes_init (&pl, width, height, lb_sample_format_get_bit_depth (format) == 16 ? 65535 : 255,
                   0x5bd1e995u);
      *slot = make_image (format, width, height, &pl);
      planes_clear (&pl);
    }
  return *slot;
}

/* @guard: 0 none, 1 guard pages around the band's rows, 2 also a canary in the columns
 * outside the write rectangle */
static LbImage *
run (LbFilter       *filter,
     LbFilterParams *params,
     LbImage        *input,
     guint           guard,
     guint           threads,
     guint           band_height,
     gboolean        with_selection,
     GError        **error)
{
  g_autoptr(LbPipeline) pipe = lb_pipeline_new (NULL);

  if (!lb_pipeline_append (pipe, filter, params, error))
    return NULL;
  lb_pipeline_set_isolation (pipe, LB_ISOLATION_NONE);
  lb_pipeline_set_aux_input (pipe, aux_for (input));
  lb_pipeline_set_n_threads (pipe, threads);
  lb_pipeline_set_band_height (pipe, band_height);
  if (with_selection)
    lb_pipeline_set_selection (pipe, &selection);
  _lb_pipeline_set_guard (pipe, guard > 0, FALSE);
  _lb_pipeline_set_guard_columns (pipe, guard > 1);
  {
    g_autofree char *band = band_height == 0 ? g_strdup ("auto")
                            : band_height >= H ? g_strdup ("whole")
                            : g_strdup_printf ("%u", band_height);

    set_context ("%s, %s, %u thread%s, band height %s%s", lb_filter_get_id (filter),
                 lb_sample_format_to_string (lb_image_get_format (input)), threads,
                 threads == 1 ? "" : "s", band, with_selection ? ", with a selection" : "");
  }
  return lb_pipeline_run (pipe, input, NULL, NULL, error);
}

/* The first sample where @a and @b differ, as "(x, y) channel c: A vs B"; NULL if none. */
static char *
first_difference (LbImage *a,
                  LbImage *b)
{
  guint ch = lb_sample_format_get_channels (lb_image_get_format (a));
  gboolean deep = lb_sample_format_get_sample_size (lb_image_get_format (a)) == 2;

  for (guint y = 0; y < lb_image_get_height (a); y++)
    for (guint i = 0; i < lb_image_get_width (a) * ch; i++)
      {
        const guint8 *ra = lb_image_get_row (a, y), *rb = lb_image_get_row (b, y);
        guint va = deep ? ((const guint16 *) ra)[i] : ra[i];
        guint vb = deep ? ((const guint16 *) rb)[i] : rb[i];

        if (va != vb)
          return g_strdup_printf ("(%u, %u) channel %u: %u vs %u", i / ch, y, i % ch, va, vb);
      }
  return NULL;
}

static guint
sample_at (LbImage *im,
           guint    x,
           guint    y,
           guint    c)
{
  guint ch = lb_sample_format_get_channels (lb_image_get_format (im));
  const guint8 *row = lb_image_get_row (im, y);

  return lb_sample_format_get_sample_size (lb_image_get_format (im)) == 2
         ? ((const guint16 *) row)[x * ch + c] : row[x * ch + c];
}

/* ---- the checks --------------------------------------------------------------------------- */

typedef struct {
  LbFilter *filter;
  guint n_formats;
  LbSampleFormat formats[8];
  LbImage *inputs[8];      /* per format, full range */
  LbImage *refs[8][2];     /* per format: one band on one thread; without, with selection */
  Planes planes8, planes16;
} Checker;

/* Every declared format, one guarded band on one thread: the reference outputs. Also the
 * band check (guard pages) at band heights 1 and 7, with and without a selection. */
static void
check_formats_and_bands (Checker *ck)
{
  g_autoptr(GString) names = g_string_new (NULL);
  gboolean ok = TRUE;

  begin_check ("formats");
  for (guint f = 0; f < ck->n_formats; f++)
    for (guint s = 0; s < 2; s++)
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(LbFilterParams) params = lb_filter_params_new (ck->filter);

        ck->refs[f][s] = run (ck->filter, params, ck->inputs[f], 1, 1, H, s, &error);
        if (ck->refs[f][s] == NULL)
          {
            verdict (FALSE, "%s with default parameters failed: %s (%s)",
                     lb_sample_format_to_string (ck->formats[f]), error->message, pass_context);
            ok = FALSE;
          }
        else if (s == 0)
          g_string_append_printf (names, "%s%s", names->len ? ", " : "",
                                  lb_sample_format_to_string (ck->formats[f]));
      }
  if (ok)
    verdict (TRUE, "%s, samples over the full range%s", names->str,
             lb_filter_supports_format (ck->filter, LB_FORMAT_GRAY8)
             || lb_filter_supports_format (ck->filter, LB_FORMAT_GRAY16)
             ? ", grey ones with a CT's metadata" : "");

  begin_check ("writes outside the band");
  for (guint f = 0; ok && f < ck->n_formats; f++)
    for (guint s = 0; s < 2; s++)
      for (guint b = 0; b < 2; b++)
        {
          g_autoptr(GError) error = NULL;
          g_autoptr(LbFilterParams) params = lb_filter_params_new (ck->filter);
          g_autoptr(LbImage) out = run (ck->filter, params, ck->inputs[f], 2, 1,
                                        b == 0 ? 1 : 7, s, &error);
          if (out == NULL)
            {
              verdict (FALSE, "%s (%s)", error->message, pass_context);
              return;
            }
        }
  if (ok && lb_filter_get_kind (ck->filter) == LB_FILTER_KIND_PYTHON)
    verdict (TRUE, "no bands: a Python filter gets its whole region in one call, in a "
                   "process of its own");
  else if (ok)
    verdict (TRUE, "every band touched only its own rows (guard pages; band heights 1, 7 "
                   "and whole) and, with a selection, only its columns (a canary left and "
                   "right of them)");
}

static void
check_schedules (Checker *ck)
{
  guint runs = 0;

  begin_check ("same output for any threads and bands");
  for (guint f = 0; f < ck->n_formats; f++)
    for (guint s = 0; s < 2; s++)
      for (guint t = 0; t < G_N_ELEMENTS (thread_counts); t++)
        for (guint b = 0; b < G_N_ELEMENTS (band_heights); b++)
          {
            g_autoptr(GError) error = NULL;
            g_autoptr(LbFilterParams) params = lb_filter_params_new (ck->filter);
            g_autoptr(LbImage) out = NULL;
            g_autofree char *diff = NULL;

            if (ck->refs[f][s] == NULL)
              continue;
            out = run (ck->filter, params, ck->inputs[f], 0, thread_counts[t],
                       band_heights[b], s, &error);
            if (out == NULL)
              {
                verdict (FALSE, "%s (%s)", error->message, pass_context);
                return;
              }
            diff = first_difference (ck->refs[f][s], out);
            if (diff != NULL)
              {
                verdict (FALSE, "%s differs from one band on one thread at %s", pass_context,
                         diff);
                return;
              }
            runs++;
          }
  verdict (TRUE, "%u runs (1–4 threads, band heights 1, 7, 64, auto and whole, with and "
                 "without a selection) byte-identical", runs);
}

static void
check_source (Checker *ck)
{
  begin_check ("source untouched");
  /* every pass above read a source mapped read-only: a write would have faulted, or in
   * Python raised (and failed the formats check with its traceback) */
  if (lb_filter_get_kind (ck->filter) == LB_FILTER_KIND_PYTHON)
    {
      gboolean all_ran = TRUE;

      for (guint f = 0; f < ck->n_formats; f++)
        all_ran &= ck->refs[f][0] != NULL && ck->refs[f][1] != NULL;
      /* a write into src raises (ValueError: assignment destination is read-only) */
      verdict (all_ran, all_ran ? "src was a read-only array over a sealed memfd in every pass"
                                : "not shown: passes failed (see formats; a write into src "
                                  "fails the pass)");
    }
  else
    verdict (TRUE, "the source pages were read-only in every pass");
}

/* The same format without alpha, or -1. */
static int
without_alpha (LbSampleFormat format)
{
  switch (format)
    {
    case LB_FORMAT_GRAYA8: return LB_FORMAT_GRAY8;
    case LB_FORMAT_GRAYA16: return LB_FORMAT_GRAY16;
    case LB_FORMAT_RGBA8: return LB_FORMAT_RGB8;
    case LB_FORMAT_RGBA16: return LB_FORMAT_RGB16;
    case LB_FORMAT_GRAY8:
    case LB_FORMAT_GRAY16:
    case LB_FORMAT_RGB8:
    case LB_FORMAT_RGB16:
    default: return -1;
    }
}

static int
format_index (Checker       *ck,
              LbSampleFormat format)
{
  for (guint f = 0; f < ck->n_formats; f++)
    if (ck->formats[f] == format)
      return (int) f;
  return -1;
}

/* Alpha passes through, and the colour of an image with alpha is that of the same image
 * without it (the filter does not treat alpha as a colour). A filter with its own output
 * geometry (ABI 1.3) moves alpha with the pixels: only the colour is compared. */
static void
check_alpha (Checker *ck)
{
  guint checked = 0;
  gboolean geometry = (lb_filter_get_flags (ck->filter) & LB_FILTER_FLAG_GEOMETRY) != 0;

  begin_check ("alpha kept");
  for (guint f = 0; f < ck->n_formats; f++)
    {
      LbSampleFormat format = ck->formats[f];
      guint ch = lb_sample_format_get_channels (format);
      int plain = without_alpha (format) >= 0 ? format_index (ck, without_alpha (format)) : -1;
      LbImage *out = ck->refs[f][0], *in = ck->inputs[f];

      if (!lb_sample_format_has_alpha (format) || out == NULL)
        continue;
      for (guint y = 0; y < lb_image_get_height (out); y++)
        for (guint x = 0; x < lb_image_get_width (out); x++)
          {
            if (!geometry && sample_at (out, x, y, ch - 1) != sample_at (in, x, y, ch - 1))
              {
                verdict (FALSE, "%s: alpha at (%u, %u) changed from %u to %u",
                         lb_sample_format_to_string (format), x, y,
                         sample_at (in, x, y, ch - 1), sample_at (out, x, y, ch - 1));
                return;
              }
            for (guint c = 0; plain >= 0 && ck->refs[plain][0] && c + 1 < ch; c++)
              if (sample_at (out, x, y, c) != sample_at (ck->refs[plain][0], x, y, c))
                {
                  verdict (FALSE, "%s: colour at (%u, %u) channel %u is %u, but %u without "
                           "alpha: the alpha channel changes the colour",
                           lb_sample_format_to_string (format), x, y, c,
                           sample_at (out, x, y, c), sample_at (ck->refs[plain][0], x, y, c));
                  return;
                }
          }
      checked++;
    }
  if (checked == 0)
    verdict (TRUE, "no format with alpha declared");
  else
    verdict (TRUE, "%u format%s with alpha: %s, colour as without alpha", checked,
             checked == 1 ? "" : "s", geometry ? "the output has a geometry of its own"
                                               : "alpha passed through");
}

/* The values a parameter's limits call for: both ends of the hard range and of the slider,
 * every enum value, both booleans. */
static GArray *
limit_values (const LbParamSpec *spec)
{
  GArray *v = g_array_new (FALSE, FALSE, sizeof (double));
  double cands[4] = { spec->min, spec->max, spec->ui_min, spec->ui_max };

  if (spec->type == LB_PARAM_BOOL)
    {
      double b[2] = { 0, 1 };
      g_array_append_vals (v, b, 2);
      return v;
    }
  if (spec->type == LB_PARAM_ENUM)
    {
      for (guint i = 0; spec->values[i].nick != NULL; i++)
        {
          double d = i;
          g_array_append_val (v, d);
        }
      return v;
    }
  for (guint i = 0; i < 4; i++)
    {
      double d = cands[i];
      gboolean seen = FALSE;

      /* an odd-only parameter's ends move inwards to the nearest odd value */
      if ((spec->flags & LB_PARAM_FLAG_ODD) && ((gint64) d) % 2 == 0)
        d += d < spec->max ? 1 : -1;
      for (guint k = 0; k < v->len; k++)
        seen |= g_array_index (v, double, k) == d;
      if (!seen)
        g_array_append_val (v, d);
    }
  return v;
}

static void
check_limits (Checker *ck)
{
  guint n = lb_filter_get_n_params (ck->filter), runs = 0, refused = 0;
  g_autoptr(GString) notes = g_string_new (NULL);

  begin_check ("parameter limits");
  if (n == 0)
    {
      verdict (TRUE, "no parameters");
      return;
    }
  for (guint i = 0; i < n; i++)
    {
      const LbParamSpec *spec = lb_filter_get_param (ck->filter, i);
      g_autoptr(GArray) values = limit_values (spec);

      for (guint k = 0; k < values->len; k++)
        for (guint f = 0; f < ck->n_formats; f++)
          {
            double value = g_array_index (values, double, k);
            g_autoptr(LbFilterParams) params = lb_filter_params_new (ck->filter);
            g_autoptr(GError) error = NULL;
            g_autoptr(LbImage) one = NULL, many = NULL;
            g_autofree char *diff = NULL;

            if (!lb_filter_params_set_number (params, spec->name, value, &error))
              {
                verdict (FALSE, "%s=%g, a limit of its own spec, is refused by the host: %s",
                         spec->name, value, error->message);
                return;
              }
            one = run (ck->filter, params, ck->inputs[f], 1, 1, H, FALSE, &error);
            if (one == NULL)
              {
                /* a clear refusal is allowed (a parameter that makes no sense for this
                 * image); it must not crash, and must say why */
                if (refused++ < 3)
                  g_string_append_printf (notes, "; %s=%g on %s refused: %s", spec->name, value,
                                          lb_sample_format_to_string (ck->formats[f]),
                                          error->message);
                continue;
              }
            many = run (ck->filter, params, ck->inputs[f], 0, 3, 7, FALSE, &error);
            if (many == NULL)
              {
                verdict (FALSE, "%s=%g: ran on one thread but failed on three: %s (%s)",
                         spec->name, value, error->message, pass_context);
                return;
              }
            diff = first_difference (one, many);
            if (diff != NULL)
              {
                verdict (FALSE, "%s=%g: 3 threads with bands of 7 differ from one band at %s",
                         spec->name, value, diff);
                return;
              }
            runs++;
          }
    }
  verdict (TRUE, "%u parameter%s at their limits on every format: %u runs, %u refused%s", n,
           n == 1 ? "" : "s", runs, refused, notes->str);
}

static void
check_cancel (Checker *ck)
{
  g_autoptr(LbPipeline) pipe = lb_pipeline_new (NULL);
  g_autoptr(LbImage) tall = NULL;
  g_autoptr(LbImage) out = NULL;
  g_autoptr(GError) error = NULL;
  const LbFilterInfo *info;
  Planes pl = { { NULL } };
  guint depth = lb_sample_format_get_bit_depth (ck->formats[0]);

  begin_check ("cancel honoured");
  info = _lb_filter_get_info (ck->filter);
  if (lb_filter_get_kind (ck->filter) == LB_FILTER_KIND_PYTHON)
    {
      verdict (TRUE, "a cancelled pass stops the Python process (SIGKILL): nothing for the "
                     "module to do");
      return;
    }
  if (info->process == NULL)
    {
      verdict (TRUE, "no bands (all the work is in finish(), which gets the cancel flag)");
      return;
    }
  planes_init (&pl, W, CANCEL_H, depth == 16 ? 65535 : 255, 0);
  tall = make_image (ck->formats[0], W, CANCEL_H, &pl);
  planes_clear (&pl);
  g_assert_true (lb_pipeline_append (pipe, ck->filter, NULL, NULL));
  lb_pipeline_set_isolation (pipe, LB_ISOLATION_NONE);
  lb_pipeline_set_aux_input (pipe, aux_for (tall));
  _lb_pipeline_set_guard (pipe, TRUE, TRUE);
  set_context ("%s, %s, one band of %d rows cancelled at its first report",
               lb_filter_get_id (ck->filter), lb_sample_format_to_string (ck->formats[0]),
               CANCEL_H);
  out = lb_pipeline_run (pipe, tall, NULL, NULL, &error);
  if (out != NULL)
    /* Lightbox's fast kernels do this: the host polls between bands, a few ms apart */
    verdict (TRUE, "no cancel point: process() never called lb_filter_band_rows_done() in a "
                   "band of %d rows, so a cancel waits until the band is done. Fine for a "
                   "fast filter; a slow one should call it every row and return when it "
                   "answers FALSE", CANCEL_H);
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    verdict (TRUE, "process() has a cancel point (lb_filter_band_rows_done()) and stopped "
                   "within a few rows of a cancel");
  else
    verdict (FALSE, "%s (%s)", error->message, pass_context);
}

/* Runs every check on @filter; in a child process, so it may end in the fault handler. */
static int
check_filter (LbFilter *filter)
{
  Checker ck = { .filter = filter };

  install_handlers ();
  planes_init (&ck.planes8, W, H, 255, 0);
  planes_init (&ck.planes16, W, H, 65535, 0);
  if (lb_filter_get_n_inputs (filter) == 2)
    printf ("  (it reads a second image: every pass gets one of the source's size and format, "
            "with other samples over the full range)\n");
  for (LbSampleFormat f = LB_FORMAT_GRAY8; f <= LB_FORMAT_RGBA16; f++)
    if (lb_filter_supports_format (filter, f))
      {
        ck.formats[ck.n_formats] = f;
        ck.inputs[ck.n_formats++] = make_image (f, W, H, lb_sample_format_get_bit_depth (f) == 16
                                                         ? &ck.planes16 : &ck.planes8);
      }
  check_formats_and_bands (&ck);
  check_schedules (&ck);
  check_source (&ck);
  check_alpha (&ck);
  check_limits (&ck);
  check_cancel (&ck);
  alarm (0);
  return failures > 0 ? 1 : 0;
}

/* ---- installing --------------------------------------------------------------------------- */

/* Copies @path into @dir under a temporary name (a dot file, which the plugin scan skips)
 * and renames it over the final name: a running Lightbox sees the old file or the new one,
 * never a half-written one, and a pass already running keeps its own copy of the old code. */
static gboolean
install_plugin (const char *path,
                const char *dir,
                GError    **error)
{
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *tmp = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  g_autofree char *dest = g_build_filename (dir, base, NULL);
  g_autofree char *contents = NULL;
  gsize len;
  int fd;

  if (!g_file_get_contents (path, &contents, &len, error))
    return FALSE;
  fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "cannot create %s: %s",
                   tmp, g_strerror (saved));
      return FALSE;
    }
  /* 0644 whatever the umask: group- or world-writable plugins are refused */
  if (fchmod (fd, 0644) != 0 || write (fd, contents, len) != (ssize_t) len || fsync (fd) != 0
      || close (fd) != 0 || g_rename (tmp, dest) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "cannot install %s: %s",
                   dest, g_strerror (saved));
      g_unlink (tmp);
      return FALSE;
    }
  printf ("Installed %s\n", dest);
  return TRUE;
}

/* ---- the command ------------------------------------------------------------------------- */

/* Loads, validates and unloads @path in a helper process (lightbox-filter-host --probe),
 * whatever LIGHTBOX_PLUGIN_ISOLATION says: loading runs the plugin's constructors and its
 * query function, and one that crashes, exits or hangs there must cost a verdict, not the
 * checker. The error says how it died, with the helper's backtrace for a crash. */
static gboolean
probe_plugin (const char *path,
              GError    **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  gboolean ok;
  int fd;

  /* the checks loading itself makes first, so that a refused file runs no code at all */
  if (!lb_plugin_check_permissions (dir, error) || !lb_plugin_check_permissions (path, error))
    return FALSE;
  /* a Python filter's module is only ever imported in a Python process: loading is the probe */
  if (g_str_has_suffix (path, LB_PYTHON_SUFFIX))
    return TRUE;
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "cannot open %s: %s",
                   path, g_strerror (saved));
      return FALSE;
    }
  ok = _lb_isolation_probe_plugin (fd, path, error);
  close (fd);
  return ok;
}

int
lb_cli_check_plugin (int    argc,
                     char **argv)
{
  g_autofree char *install_dir = NULL;
  g_autofree char *self_exe = NULL;
  int only_filter = -1;
  GOptionEntry entries[] = {
    { "install", 0, 0, G_OPTION_ARG_FILENAME, &install_dir,
      "After every check passed, install FILE into DIR (written under a temporary name, then "
      "renamed)", "DIR" },
    /* the child process that checks one filter (see below) */
    { "only-filter", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT, &only_filter, NULL, NULL },
    { NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new ("FILE.so|FILE.py");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) filters = NULL;
  g_autofree char *copy_dir = NULL;
  int failed = 0;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
    "Checks a filter plugin as Lightbox's own tests check its filters: every declared format\n"
    "at full sample range; 1–4 threads, several band heights, with and without a selection,\n"
    "all byte-identical; alpha kept; the source untouched; no write outside the band's rows\n"
    "(guard pages) or the write rectangle's columns (a canary); every parameter at its\n"
    "limits; cancel honoured (or no cancel point, said so). Exits 1 if a check fails.");
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return lb_cli_fail (CMD, error);
  if (argc != 2)
    {
      g_printerr ("Usage: lightbox-cli check-plugin [--install DIR] FILE.so|FILE.py\n");
      return 2;
    }
  self_exe = g_file_read_link ("/proc/self/exe", &error);
  if (self_exe == NULL)
    return lb_cli_fail (CMD, error);
  copy_dir = g_dir_make_tmp ("lightbox-check-XXXXXX", &error);
  if (copy_dir == NULL)
    return lb_cli_fail (CMD, error);
  /* (the children checking one filter each load a file that was probed just now) */
  if (only_filter < 0 && !probe_plugin (argv[1], &error))
    filters = NULL;
  else
    filters = lb_plugin_load_file (argv[1], copy_dir, &error);
  g_rmdir (copy_dir);
  if (filters == NULL)
    {
      printf ("%s\n  FAIL  load: %s\n", argv[1], error->message);
      return 1;
    }
  if (only_filter >= 0)
    {
      if ((guint) only_filter >= filters->len)
        {
          g_printerr ("lightbox-cli %s: no filter %d in %s\n", CMD, only_filter, argv[1]);
          return 2;
        }
      int status = check_filter (g_ptr_array_index (filters, only_filter));

      /* as the checks' fault handler does: the verdicts are out, the process ends here
       * without tearing down a plugin that may have left its state broken */
      fflush (stdout);
      _exit (status);
    }
  printf ("%s: %u filter%s\n", argv[1], filters->len, filters->len == 1 ? "" : "s");
  for (guint i = 0; i < filters->len; i++)
    {
      LbFilter *filter = g_ptr_array_index (filters, i);
      int status;
      g_autofree char *index = g_strdup_printf ("%u", i);
      const char *child_argv[] = { self_exe, "check-plugin", "--only-filter", index, argv[1], NULL };

      printf ("%s (%s)\n", lb_filter_get_id (filter), lb_filter_get_name (filter));
      fflush (stdout);
      /* Each filter is checked in a fresh process of its own (this program again, with
       * --only-filter), so that a crash costs only that filter's verdict. Not fork() alone:
       * the child of a process with threads inherits GLib's locks and thread-pool state
       * without the threads (GLib 2.84's pool spawner thread among them), and its first
       * multi-threaded pass waited forever for a thread that was not there. */
      if (!g_spawn_sync (NULL, (char **) child_argv, NULL, G_SPAWN_CHILD_INHERITS_STDIN, NULL,
                         NULL, NULL, NULL, &status, &error))
        return lb_cli_fail (CMD, error);
      /* the fault handler (FAULT_EXIT) and the checks (1) print their verdicts; anything else ended
       * the child without one: a plugin that called exit(), or a lazily bound symbol that
       * does not resolve ("symbol lookup error", 127) */
      if (WIFSIGNALED (status))
        printf ("  FAIL  the checks ended with signal %d (%s)\n", WTERMSIG (status),
                g_strsignal (WTERMSIG (status)));
      else if (WIFEXITED (status) && WEXITSTATUS (status) != 0 && WEXITSTATUS (status) != 1
               && WEXITSTATUS (status) != FAULT_EXIT)
        printf ("  FAIL  the checks ended with exit status %d (the plugin ended the process)\n",
                WEXITSTATUS (status));
      failed += !(WIFEXITED (status) && WEXITSTATUS (status) == 0);
    }
  if (failed > 0)
    {
      printf ("%d of %u filters failed a check\n", failed, filters->len);
      return 1;
    }
  printf ("All checks passed\n");
  if (install_dir != NULL && !install_plugin (argv[1], install_dir, &error))
    return lb_cli_fail (CMD, error);
  return 0;
}
