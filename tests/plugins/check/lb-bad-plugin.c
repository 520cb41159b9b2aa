/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Fixture plugins for `lightbox-cli check-plugin`, each with one bug an author could make,
 * built once per -D option. Each otherwise inverts the colour samples of its band (a valid
 * point filter), so only the one bug can fail a check:
 *
 *   BAD_OUTSIDE_BAND  also writes the row below its band (the next band's first row)
 *   BAD_OUTSIDE_COLUMNS also writes the sample left of its write rectangle, in its own rows
 *                     (the value the host copies there: only a canary can tell)
 *   BAD_NO_CANCEL     never calls lb_filter_band_rows_done(): no cancel point (allowed)
 *   BAD_ALPHA         inverts alpha too (treats it as a colour)
 *   BAD_SCHEDULE      adds the row's index within its band and the thread's index, so the
 *                     output depends on how the image was cut and on which thread ran what
 *   BAD_CANCEL        reports every row but ignores lb_filter_band_rows_done()'s answer
 *   BAD_SOURCE        writes into the source image
 *   BAD_CRASH_CTOR    crashes while being loaded: a constructor (run by dlopen()) writes to
 *                     address 0x20 from bad_ctor_scribble()
 */

#include <lb-filter-plugin.h>

typedef struct {
  int unused;
} BadParams;

static gpointer
bad_prepare (const LbFilterInfo  *info,
             gconstpointer        params,
             const LbFilterImage *image,
             LbFilterRect        *write_rect,
             GError             **error)
{
  return g_new0 (int, 1);
}

static inline void
put (guint8 *row, const LbFilterImage *im, gsize i, guint v)
{
  if (im->depth == 16)
    ((guint16 *) row)[i] = (guint16) v;
  else
    row[i] = (guint8) v;
}

static inline guint
get (const guint8 *row, const LbFilterImage *im, gsize i)
{
  return im->depth == 16 ? ((const guint16 *) row)[i] : row[i];
}

static gboolean
bad_process (gconstpointer       state,
             const LbFilterBand *band,
             GError            **error)
{
  const LbFilterImage *im = band->image;
  guint max = im->depth == 16 ? 65535 : 255;
  int colours = im->has_alpha ? im->channels - 1 : im->channels;

#ifdef BAD_ALPHA
  colours = im->channels;
#endif
  for (int y = band->y0; y < band->y1; y++)
    {
      const guint8 *in = im->src + (gsize) y * im->src_stride;
      guint8 *out = band->dst + (gsize) y * band->dst_stride;

#if defined(BAD_CANCEL)
      (void) lb_filter_band_rows_done (band, y > band->y0);
#elif defined(BAD_NO_CANCEL)
      /* no cancel point */
#else
      if (!lb_filter_band_rows_done (band, y > band->y0))
        return TRUE;
#endif
      for (int x = band->x0; x < band->x1; x++)
        for (int c = 0; c < colours; c++)
          {
            gsize i = (gsize) x * im->channels + c;
            guint v = max - get (in, im, i);
#ifdef BAD_SCHEDULE
            v = (v + (guint) (y - band->y0) + (guint) band->thread_index) % (max + 1);
#endif
            put (out, im, i, v);
          }
#ifdef BAD_SOURCE
      ((guint8 *) in)[0] = out[0];
#endif
#ifdef BAD_OUTSIDE_COLUMNS
      if (band->x0 > 0)
        {
          gsize i = (gsize) (band->x0 - 1) * im->channels;

          put (out, im, i, get (in, im, i));
        }
#endif
    }
#ifdef BAD_OUTSIDE_BAND
  if (band->y1 < im->region.y + im->region.height)
    band->dst[(gsize) band->y1 * band->dst_stride] = 0;
#endif
  return TRUE;
}

static void
bad_release (gpointer state)
{
  g_free (state);
}

static const LbFilterInfo bad_info = {
  .struct_size = sizeof (LbFilterInfo),
  .id = "io.github.lightbox.test.bad",
  .name = "Bad",
  .category = "Test",
  .formats = LB_FILTER_FORMATS_ALL,
  .params_version = 1,
  .params_size = sizeof (BadParams),
  .prepare = bad_prepare,
  .process = bad_process,
  .release = bad_release,
};

static const LbFilterInfo *const filters[] = { &bad_info };

static const LbPluginInfo plugin_info = {
  .abi_major = LB_FILTER_ABI_MAJOR,
  .abi_minor = LB_FILTER_ABI_MINOR,
  .struct_size = sizeof (LbPluginInfo),
  .version = "bad",
  .filters = filters,
  .n_filters = G_N_ELEMENTS (filters),
};

#ifdef BAD_CRASH_CTOR
/* volatile, so that the compiler cannot see that the write is bound to fault */
static volatile guintptr bad_address = 0x20;

G_GNUC_NO_INLINE static void
bad_ctor_scribble (void)
{
  *(volatile int *) bad_address = 1;
}

__attribute__ ((constructor)) static void
bad_ctor (void)
{
  bad_ctor_scribble ();
}
#endif

G_MODULE_EXPORT const LbPluginInfo *
lb_filter_plugin_query (guint32 host_abi_major,
                        guint32 host_abi_minor)
{
  return &plugin_info;
}
