/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * lb-filter-plugin.h: the Lightbox filter plugin ABI.
 *
 * This is the only header a filter plugin includes. It depends on GLib alone (no GObject, no
 * GIO, no Lightbox core library), so a plugin is built with
 *
 *     cc -shared -fPIC $(pkg-config --cflags --libs lightbox-plugin) my-filter.c -o my-filter.so
 *
 * and dropped into one of the plugin directories (see plugins/README.md for the guide).
 *
 * Design in one paragraph: a plugin is a shared object exporting ONE function,
 * lb_filter_plugin_query(), which returns a static LbPluginInfo table listing plain C filter
 * descriptors (LbFilterInfo). Descriptors are data: the host reads names, parameter specs and
 * supported formats without running any filter code, validates all of it, and wraps each
 * descriptor in a GObject for the UI. Running a filter is three (or four) callbacks:
 *
 *     prepare()  once per pass, sees the whole source image, returns a small immutable state
 *     process()  many times, possibly concurrently, each call writes one band of rows
 *     finish()   optional, once, after every band: a global post-pass over the destination
 *                (since ABI 1.1 it may do all the work: a filter with finish() may leave
 *                process() NULL, and the host then runs no bands at all)
 *     release()  frees the state
 *
 * Samples are the image's NATIVE type (guint8 or guint16), never float: the classic xv filters
 * must stay bit-exact on 8-bit data, and 16-bit medical images must not lose precision or pay
 * four times the memory traffic of a float copy.
 *
 * Compatibility rules:
 *   - LB_FILTER_ABI_MAJOR changes only for incompatible changes. The host refuses any plugin
 *     whose tables carry another major, with a message naming both numbers.
 *   - LB_FILTER_ABI_MINOR grows when fields are APPENDED to a struct. Every struct the plugin
 *     hands to the host starts with (or carries) its struct_size, so a newer host reads only
 *     the fields an older plugin knows about, and an older host refuses tables that are smaller
 *     than what it needs.
 *   - Structs the host hands to the plugin (LbFilterImage, LbFilterBand) also carry
 *     struct_size; a plugin built against a newer minor must check it before reading fields
 *     that were appended after the minor it requires.
 *
 * Where the code runs (plugins/README.md, "Crashes and hangs"): plugins shipped with
 * Lightbox run inside the Lightbox process; any other plugin's prepare(), scratch_size(),
 * process(), finish() and release() run in a helper process, lightbox-filter-host, which
 * Lightbox kills when the user cancels or when no band completes (and no rows are reported
 * through lb_filter_band_rows_done()) within the watchdog timeout. The same source code must work in both places, so:
 *   - the module is loaded in BOTH processes: lb_filter_plugin_query(), any ELF
 *     constructor and destructor run in Lightbox itself and must be side-effect free.
 *     Lightbox first loads an isolated plugin in `lightbox-filter-host --probe` and skips
 *     the file (with a message) if that crashes, exits or hangs, but a crash that happens
 *     only sometimes can still reach Lightbox: return static tables and do no work there;
 *   - a pass's result must depend only on its inputs (as already required for bands): no
 *     global state shared with the application, none carried from one pass to the next (a
 *     helper may or may not be reused for the next pass, and is restarted after a crash);
 *   - errors travel as GError domain NAME, code and message, so a plugin's own error domain
 *     arrives intact (registered by name in Lightbox);
 *   - write diagnostics to stderr, never data to stdout (in the helper, stdout is redirected
 *     to Lightbox's stderr);
 *   - cancellation inside the helper is by SIGKILL, so release() is not called for a
 *     cancelled or timed-out isolated pass: hold no resource outside the process (temporary
 *     files, locks) across process() calls. In-process passes are still cancelled
 *     cooperatively through LbFilterBand.cancelled.
 */

#include <glib.h>
#include <gmodule.h>

G_BEGIN_DECLS

/* Incompatible change → bump MAJOR (the host refuses other majors). */
#define LB_FILTER_ABI_MAJOR 1
/* Fields appended or a rule relaxed → bump MINOR (the host reads struct_size).
 * 1.1: LbFilterInfo.process may be NULL when finish is set. A 1.0 host refuses such a filter
 * ("prepare, process and release are required"), so a plugin that relies on it should ask for
 * host_abi_minor >= 1 in lb_filter_plugin_query().
 * 1.2: LbFilterBand.rows_done, the host's progress hook, called through
 * lb_filter_band_rows_done(), which also works (as a plain cancellation poll) with a 1.0 or
 * 1.1 host, so a plugin need not ask for 1.2 to use it. */
#define LB_FILTER_ABI_MINOR 2

/* Marks descriptor strings for xgettext without pulling in libintl; the host translates them
 * at run time with g_dgettext (LbPluginInfo.gettext_domain, string). */
#ifndef N_
#define N_(String) (String)
#endif

/* The symbol the host looks up with g_module_symbol(). */
#define LB_FILTER_PLUGIN_QUERY_SYMBOL "lb_filter_plugin_query"

/* ------------------------------------------------------------------------------------------ */
/* Sample formats                                                                              */
/* ------------------------------------------------------------------------------------------ */

/**
 * LbFilterFormat:
 *
 * The pixel layouts a filter may see. The numbering is the host's own LbSampleFormat enum
 * (src/core/lb-format.h); it is repeated here so plugins need no core headers, and the host
 * checks at compile time that the two agree. Channels are interleaved in the order the name
 * gives; 16-bit samples are guint16 in host byte order; alpha is straight (not premultiplied)
 * and is always the LAST channel.
 */
typedef enum {
  LB_FILTER_FORMAT_GRAY8 = 0,
  LB_FILTER_FORMAT_GRAY16 = 1,
  LB_FILTER_FORMAT_GRAYA8 = 2,
  LB_FILTER_FORMAT_GRAYA16 = 3,
  LB_FILTER_FORMAT_RGB8 = 4,
  LB_FILTER_FORMAT_RGBA8 = 5,
  LB_FILTER_FORMAT_RGB16 = 6,
  LB_FILTER_FORMAT_RGBA16 = 7,
} LbFilterFormat;

/* A set of formats for LbFilterInfo.formats: one bit per LbFilterFormat value. */
#define LB_FILTER_FORMAT_BIT(f) (1u << (guint) (f))

/* The least a filter should accept, so that it works on the images users open most: gray
 * and colour, 8 and 16 bits where it makes sense, alpha passed through unchanged. */
#define LB_FILTER_FORMATS_COMMON                                                              \
  (LB_FILTER_FORMAT_BIT (LB_FILTER_FORMAT_GRAY8) | LB_FILTER_FORMAT_BIT (LB_FILTER_FORMAT_GRAY16) \
   | LB_FILTER_FORMAT_BIT (LB_FILTER_FORMAT_RGB8) | LB_FILTER_FORMAT_BIT (LB_FILTER_FORMAT_RGBA8))

/* All eight formats: what Lightbox's own filters accept, and what users expect of a filter
 * whose process() loops over @channels and @depth (LbFilterImage). A macro only: hosts of
 * every ABI 1.x accept any of these bits. */
#define LB_FILTER_FORMATS_ALL                                                                 \
  (LB_FILTER_FORMATS_COMMON | LB_FILTER_FORMAT_BIT (LB_FILTER_FORMAT_GRAYA8)                  \
   | LB_FILTER_FORMAT_BIT (LB_FILTER_FORMAT_GRAYA16) | LB_FILTER_FORMAT_BIT (LB_FILTER_FORMAT_RGB16) \
   | LB_FILTER_FORMAT_BIT (LB_FILTER_FORMAT_RGBA16))

/* ------------------------------------------------------------------------------------------ */
/* Parameters                                                                                  */
/* ------------------------------------------------------------------------------------------ */

/**
 * LbParamType:
 * @LB_PARAM_INT: a `gint` in the params struct
 * @LB_PARAM_DOUBLE: a `double`
 * @LB_PARAM_BOOL: a `gboolean` (0 or 1); min/max/def must lie in 0..1
 * @LB_PARAM_ENUM: a `gint` holding the INDEX into LbParamSpec.values
 *
 * The C type stored at LbParamSpec.offset. The host writes values there; the plugin reads
 * its own struct in prepare().
 */
typedef enum {
  LB_PARAM_INT = 0,
  LB_PARAM_DOUBLE = 1,
  LB_PARAM_BOOL = 2,
  LB_PARAM_ENUM = 3,
} LbParamType;

/**
 * LbParamUnit:
 *
 * What a number means, for labels in dialogs ("px", "°", "%"). Purely descriptive in ABI 1.0:
 * the host does not convert units (a later minor may convert LB_UNIT_MM with pixel spacing).
 */
typedef enum {
  LB_UNIT_NONE = 0,
  LB_UNIT_PIXEL = 1,
  LB_UNIT_DEGREE = 2,
  LB_UNIT_PERCENT = 3,
  LB_UNIT_MM = 4,
  LB_UNIT_SAMPLE = 5, /* a sample value (0..255 or 0..65535), e.g. a threshold */
} LbParamUnit;

/**
 * LbParamFlags:
 * @LB_PARAM_FLAG_ADVANCED: hide behind an "Advanced" expander in generated dialogs
 * @LB_PARAM_FLAG_ODD: an INT that must be odd (mask sizes); the host rejects even values
 *   with an error instead of rounding silently
 */
typedef enum {
  LB_PARAM_FLAG_NONE = 0,
  LB_PARAM_FLAG_ADVANCED = 1 << 0,
  LB_PARAM_FLAG_ODD = 1 << 1,
} LbParamFlags;

/**
 * LbParamEnumValue:
 * @nick: stable machine name used on the command line and in presets ("xv", "corrected")
 * @label: N_()-marked label for dialogs
 *
 * One choice of an LB_PARAM_ENUM. Arrays end with { NULL, NULL }.
 */
typedef struct {
  const char *nick;
  const char *label;
} LbParamEnumValue;

/**
 * LbParamSpec:
 * @name: stable key, lowercase ASCII letters, digits and '-' ("size", "sigma"). Used on the
 *   command line (`blur:size=5`), in presets and in GVariant a{sv} dictionaries, so it never
 *   changes once published.
 * @label: N_()-marked short label, translated by the host with the plugin's gettext domain
 * @description: N_()-marked tooltip, may be %NULL
 * @type: the C type at @offset
 * @offset: G_STRUCT_OFFSET() of the value inside the plugin's params struct
 * @min: hard lower limit; values below are rejected with an error naming the range
 * @max: hard upper limit
 * @def: default; min <= def <= max
 * @ui_min: slider lower end; min <= ui_min <= ui_max <= max (a slider may be narrower than
 *   what the command line accepts, e.g. sigma 0.3..20 on the slider, 0.3..200 typed)
 * @ui_max: slider upper end
 * @step: increment of spin buttons / keyboard steps, > 0
 * @digits: decimals shown (0 for INT/BOOL/ENUM)
 * @unit: descriptive unit
 * @values: for LB_PARAM_ENUM, the choices ({NULL,NULL}-terminated); min = 0, max = count-1.
 *   %NULL for other types.
 * @flags: LbParamFlags
 *
 * Everything a host needs to build a dialog and to validate a value, as a plain data table.
 * The host validates every spec when it loads the plugin (see "Host checks" below).
 */
typedef struct {
  const char *name;
  const char *label;
  const char *description;
  LbParamType type;
  gsize offset;
  double min;
  double max;
  double def;
  double ui_min;
  double ui_max;
  double step;
  int digits;
  LbParamUnit unit;
  const LbParamEnumValue *values;
  guint flags;
} LbParamSpec;

/* ------------------------------------------------------------------------------------------ */
/* What the host gives to the callbacks                                                        */
/* ------------------------------------------------------------------------------------------ */

/**
 * LbFilterRect:
 *
 * A rectangle in pixels, (x, y) = top-left corner, in image coordinates.
 */
typedef struct {
  int x;
  int y;
  int width;
  int height;
} LbFilterRect;

/**
 * LbFilterImage:
 * @struct_size: sizeof (LbFilterImage) as the HOST compiled it
 * @width: image width in pixels
 * @height: image height in pixels
 * @format: an LbFilterFormat (always one of the filter's declared formats)
 * @channels: 1..4 samples per pixel
 * @depth: bits per sample, 8 (guint8) or 16 (guint16, host order)
 * @has_alpha: TRUE when the last channel is alpha. Lightbox filters pass alpha through
 *   unchanged; the destination already holds the source alpha.
 * @src: pixel (0,0) of the WHOLE source image, READ-ONLY, valid until release()
 * @src_stride: bytes from one source row to the next
 * @region: where the filter works: the user's selection clipped to the image, or the whole
 *   image. Like xv, neighbourhoods are clipped to the region, never to the image, so pixels
 *   outside a selection are never used as neighbours (unless a filter documents otherwise).
 * @seed: seed for filters that use random numbers; the same seed gives the same output.
 *   Chosen by the caller of the pipeline (lightbox-cli --seed), never by the host's clock.
 *
 * Image-level facts, valid from prepare() to release(). Because the whole source is always
 * visible, a filter needs no halo copies and no border policy from the host: it clips its
 * own windows to @region.
 */
typedef struct {
  gsize struct_size;
  int width;
  int height;
  int format;
  int channels;
  int depth;
  gboolean has_alpha;
  const guint8 *src;
  gsize src_stride;
  LbFilterRect region;
  guint64 seed;
} LbFilterImage;

/**
 * LbFilterBand:
 * @struct_size: sizeof (LbFilterBand) as the host compiled it
 * @image: the same LbFilterImage prepare() saw
 * @dst: pixel (0,0) of the WHOLE destination image. When process() is called, the band's
 *   rows already hold a copy of the source (xv semantics: pixels a filter does not write
 *   keep their source value); with LB_FILTER_FLAG_OVERWRITES only the parts outside
 *   [x0,x1) do, the band's rectangle itself is undefined until process() writes it. The
 *   host copies each band's rows just before the band runs, on the band's thread
 *   (parallel, and cache-warm for the kernel), so process() must not read destination
 *   rows outside its band: they may not be copied yet. It writes only
 *   inside its band. (Sequential filters and finish() see a completely copied destination,
 *   except, with LB_FILTER_FLAG_OVERWRITES, the write rectangle.)
 * @dst_stride: bytes from one destination row to the next
 * @x0: first column to write
 * @x1: one past the last column to write
 * @y0: first row to write
 * @y1: one past the last row to write
 * @scratch: per-thread scratch memory of scratch_size() bytes, 64-byte aligned, reused
 *   between the bands one thread runs (so its content is undefined on entry); %NULL when
 *   scratch_size is %NULL or returned 0
 * @cancelled: poll it with g_atomic_int_get() every row or so; when non-zero, return
 *   early (the host discards the result and reports cancellation). A slow filter polls it
 *   through lb_filter_band_rows_done() instead, which also reports progress.
 * @thread_index: 0..n_threads-1, for diagnostics only (results must not depend on it)
 * @rows_done: (ABI 1.2) the host's progress hook; never call it directly (an older host's
 *   struct ends before it), use lb_filter_band_rows_done()
 *
 * One unit of work: the rectangle [x0,x1) × [y0,y1) of the destination, inside the write
 * rectangle prepare() chose. Unless the filter sets LB_FILTER_FLAG_TILES, x0 and x1 always
 * span the full width of the write rectangle (bands of whole rows).
 *
 * Results must be a pure function of the source, the params, the region, the seed and the
 * band's rectangle: the host promises callers byte-identical output for every thread count
 * and band height, and tests it.
 */
typedef struct _LbFilterBand LbFilterBand;
struct _LbFilterBand {
  gsize struct_size;
  const LbFilterImage *image;
  guint8 *dst;
  gsize dst_stride;
  int x0;
  int x1;
  int y0;
  int y1;
  gpointer scratch;
  const gint *cancelled;
  int thread_index;
  /* ABI 1.2 */
  void (*rows_done) (const LbFilterBand *band,
                     int                 n_rows);
};

/**
 * lb_filter_band_rows_done:
 * @band: the band process() was given
 * @n_rows: how many more rows of the band are written since the last call (0 only polls)
 *
 * Progress and cancellation for filters whose band takes long: a median of a large radius,
 * or any filter on a very large image. Without it the host learns of progress only when a
 * band returns, and a band is an eighth of the image on a two-core machine (4 bands per
 * thread), so:
 *   - the progress bar moves in eighths;
 *   - the watchdog of a plugin that runs in a helper process (LIGHTBOX_FILTER_TIMEOUT,
 *     30 s by default) counts only finished bands, so a band that legitimately takes longer
 *     is killed as hung;
 *   - the Cancel button waits for the band, unless process() polls @cancelled itself.
 *
 * Call it every row, or every few rows, or after each piece of work that is a known share of
 * the band (a filter that works in column strips reports that share as rows: after strip i of
 * n, i·(y1 − y0)/n rows in all). It costs an atomic add, and now and then a clock read; the
 * host passes progress on at most every 1/256 of the pass (or once a second when progress is
 * slower than that). Rows reported beyond the band's height are ignored; rows never reported
 * are counted when process() returns, so reporting is optional and may be coarse.
 *
 * With a host older than ABI 1.2 (@band->struct_size ends before @rows_done) this only polls
 * @band->cancelled.
 *
 * Returns: %TRUE to go on; %FALSE once the pass is cancelled or has failed elsewhere: then
 *   return from process() at once (the host discards the band).
 */
static inline gboolean
lb_filter_band_rows_done (const LbFilterBand *band,
                          int                 n_rows)
{
  if (n_rows > 0
      && band->struct_size >= G_STRUCT_OFFSET (LbFilterBand, rows_done) + sizeof band->rows_done
      && band->rows_done != NULL)
    band->rows_done (band, n_rows);
  return !g_atomic_int_get (band->cancelled);
}

/* ------------------------------------------------------------------------------------------ */
/* The filter descriptor                                                                       */
/* ------------------------------------------------------------------------------------------ */

/**
 * LbFilterFlags:
 * @LB_FILTER_FLAG_SEQUENTIAL: process() must see the whole write rectangle in ONE call on
 *   one thread, for algorithms that work in raster order over the whole image (xv's Spread
 *   swaps pixels in place that way; Lightbox's spread used this flag until it gained an exact
 *   banded form with finish()). The host then calls it with y0..y1 = the whole write
 *   rectangle.
 * @LB_FILTER_FLAG_TILES: process() honours x0/x1, so the host may hand it tiles narrower than
 *   the write rectangle. Without this flag bands are full-width.
 * @LB_FILTER_FLAG_POINT: each output pixel depends only on the same source pixel (no
 *   neighbourhood). Informational: hosts may fuse point filters.
 * @LB_FILTER_FLAG_OVERWRITES: process() writes EVERY sample (alpha included) of the band's
 *   rectangle [x0,x1) × [y0,y1), so the host need not copy the source into it first (it still
 *   copies the rest of the destination). A filter that writes from finish() instead (xv's
 *   Spread, which has no process() at all) must write every sample of the write rectangle in
 *   finish(), and must not read the rectangle before writing it: its content is undefined
 *   until then. A hint: a host that copies anyway is still correct. Saves one full read and
 *   write of the image per pass (the copy was 10–15 % of a 3×3 filter's pass at 1.4 Mpx
 *   RGB8).
 *
 * Scheduling hints. A filter without flags gets full-width row bands in parallel.
 */
typedef enum {
  LB_FILTER_FLAG_NONE = 0,
  LB_FILTER_FLAG_SEQUENTIAL = 1 << 0,
  LB_FILTER_FLAG_TILES = 1 << 1,
  LB_FILTER_FLAG_POINT = 1 << 2,
  LB_FILTER_FLAG_OVERWRITES = 1 << 3,
} LbFilterFlags;

typedef struct _LbFilterInfo LbFilterInfo;

/**
 * LbFilterPrepareFunc:
 * @info: the descriptor being run (so one set of callbacks can serve several descriptors,
 *   told apart by @info->user_data)
 * @params: the plugin's params struct (@info->params_size bytes), every field already
 *   validated against its LbParamSpec. Read-only; copy what you need into the state.
 * @image: the source image and region
 * @write_rect: (inout): on entry the region; a filter that paints outside it (xv's rotate)
 *   enlarges it, clipped to the image. A filter that writes nothing (a no-op angle) may set
 *   width or height to 0. The host splits this rectangle into bands.
 * @error: set it, and return %NULL, when the input cannot be processed (for example a
 *   region too small); the message should say why, in plain words.
 *
 * Runs once per pass on the calling thread, before any band. Global analysis belongs here
 * (blend's border colour, a histogram, building a Gaussian kernel). Returns the state that
 * every process() call shares READ-ONLY (concurrent readers!); it must be non-%NULL on
 * success. Return any non-%NULL pointer (e.g. GINT_TO_POINTER (1)) if you need no state and
 * make release() accept it.
 */
typedef gpointer (*LbFilterPrepareFunc) (const LbFilterInfo  *info,
                                         gconstpointer        params,
                                         const LbFilterImage *image,
                                         LbFilterRect        *write_rect,
                                         GError             **error);

/**
 * LbFilterScratchSizeFunc:
 * @band_width: width of the widest band this thread will get, pixels
 * @band_height: height of the tallest band, rows
 *
 * Bytes of per-thread scratch memory (running sums, histograms, a row of doubles). Optional.
 */
typedef gsize (*LbFilterScratchSizeFunc) (gconstpointer state,
                                          int           band_width,
                                          int           band_height);

/**
 * LbFilterProcessFunc:
 *
 * Writes one band of the destination. May run on several threads at once with different
 * bands: touch only the band's pixels, the scratch and the read-only state. No GLib main
 * context, no GTK, no global mutable state. Returns %FALSE with @error set on a real
 * failure; on cancellation just return (TRUE or FALSE, the host checks the flag).
 */
typedef gboolean (*LbFilterProcessFunc) (gconstpointer       state,
                                         const LbFilterBand *band,
                                         GError            **error);

/**
 * LbFilterParallelFunc:
 * @data: what the plugin passed to parallel_for()
 * @item: 0..n_items-1
 * @thread_index: 0..n_threads-1 (for per-thread slots; results must not depend on it)
 *
 * One item of a parallel loop run by the host for finish() (see LbFilterHost).
 */
typedef void (*LbFilterParallelFunc) (gpointer data,
                                      int      item,
                                      int      thread_index);

typedef struct _LbFilterHost LbFilterHost;

/**
 * LbFilterHost:
 * @struct_size: sizeof (LbFilterHost) as the host compiled it
 * @n_threads: how many threads parallel_for() uses at most (the pass's thread count)
 * @parallel_for: runs @func for every item 0..@n_items-1, spread over the host's threads,
 *   and returns when all are done; %FALSE if the pass was cancelled meanwhile (some items
 *   may then not have run). Items run concurrently in any order: each must touch only its
 *   own part of the data, and a reduction over items must be combined by the plugin after
 *   the call (for example the maximum of a per-item array), so the result does not depend on
 *   the thread count.
 * @host_data: private to the host
 *
 * The host's threads, lent to finish(): the host owns threading, so a global post-pass asks
 * for a parallel loop instead of starting threads of its own.
 */
struct _LbFilterHost {
  gsize struct_size;
  int n_threads;
  gboolean (*parallel_for) (const LbFilterHost  *host,
                            int                  n_items,
                            LbFilterParallelFunc func,
                            gpointer             data);
  gpointer host_data;
};

/**
 * LbFilterFinishFunc:
 * @dst: the whole destination, every band written
 * @host: the host's parallel loop for a post-pass over many rows
 *
 * Optional global post-pass after all bands, called once on the calling thread (xv's edge
 * detector finds the brightest edge, then normalises the edge map by it, here: both steps
 * as parallel loops over row bands through @host). @image->src is still valid and unchanged.
 *
 * A filter whose work is all global may have finish() and no process() (ABI 1.1): the host
 * then runs no bands (a band loop that does nothing still costs a wake-up of every thread,
 * about 10 µs a pass here), copies the destination outside the write rectangle itself, and
 * calls finish() right after prepare(). Without LB_FILTER_FLAG_OVERWRITES @dst is then a
 * complete copy of the source; with it, the write rectangle is undefined until finish()
 * writes it. xv's Spread works this way: its bands depend on one another, so it schedules
 * them itself through @host.
 */
typedef gboolean (*LbFilterFinishFunc) (gconstpointer        state,
                                        const LbFilterImage *image,
                                        guint8              *dst,
                                        gsize                dst_stride,
                                        const LbFilterHost  *host,
                                        const gint          *cancelled,
                                        GError             **error);

/* Frees what prepare() returned. Called exactly once per successful prepare(). */
typedef void (*LbFilterReleaseFunc) (gpointer state);

/**
 * LbFilterInfo:
 * @struct_size: sizeof (LbFilterInfo) as the PLUGIN compiled it
 * @id: stable reverse-DNS id, "io.github.lightbox.xv.blur"; lowercase letters, digits,
 *   '.', '-' and '_'; unique across every loaded plugin; never changes once published
 *   (presets and scripts store it)
 * @alias: short name for the command line ("blur"), same character set without '.';
 *   may be %NULL. Unique like ids.
 * @name: N_()-marked display name ("Blur")
 * @category: N_()-marked menu category ("Enhance", "Artistic", "Geometry", "Noise")
 * @description: N_()-marked one-line description, may be %NULL
 * @formats: the LbFilterFormat values the filter accepts, as LB_FILTER_FORMAT_BIT()s.
 *   The host refuses other formats with an error before calling prepare().
 * @flags: LbFilterFlags
 * @params_version: bump when the meaning of the params struct changes; saved presets store
 *   it next to the values (keyed by parameter name, so reordering fields is harmless)
 * @params_size: sizeof the params struct (0 and @params = %NULL for no parameters)
 * @params: array of @n_params specs
 * @n_params: number of specs
 * @prepare: required
 * @scratch_size: optional
 * @process: required, unless @finish is set (ABI 1.1; see LbFilterFinishFunc)
 * @finish: optional
 * @release: required
 * @user_data: anything the plugin wants to find again in prepare() via @info
 *
 * One filter. Declare it `static const` in the plugin; the host never writes to it and
 * reads it only while the module is loaded.
 */
struct _LbFilterInfo {
  gsize struct_size;
  const char *id;
  const char *alias;
  const char *name;
  const char *category;
  const char *description;
  guint32 formats;
  guint32 flags;
  guint32 params_version;
  gsize params_size;
  const LbParamSpec *params;
  guint n_params;
  LbFilterPrepareFunc prepare;
  LbFilterScratchSizeFunc scratch_size;
  LbFilterProcessFunc process;
  LbFilterFinishFunc finish;
  LbFilterReleaseFunc release;
  gconstpointer user_data;
};

/**
 * LbPluginInfo:
 * @abi_major: LB_FILTER_ABI_MAJOR the plugin was built against
 * @abi_minor: LB_FILTER_ABI_MINOR the plugin was built against
 * @struct_size: sizeof (LbPluginInfo) as the plugin compiled it
 * @version: the plugin's own version string, shown in `lightbox-cli filters` ("1.2.0")
 * @gettext_domain: the domain the host passes to g_dgettext() for every N_() string in the
 *   descriptors; %NULL means the strings are not translated
 * @filters: array of @n_filters descriptor pointers
 * @n_filters: at least 1
 *
 * What lb_filter_plugin_query() returns: a static table, valid as long as the module stays
 * loaded.
 */
typedef struct {
  guint32 abi_major;
  guint32 abi_minor;
  gsize struct_size;
  const char *version;
  const char *gettext_domain;
  const LbFilterInfo *const *filters;
  guint n_filters;
} LbPluginInfo;

/**
 * LbFilterPluginQueryFunc:
 * @host_abi_major: the host's LB_FILTER_ABI_MAJOR
 * @host_abi_minor: the host's LB_FILTER_ABI_MINOR
 *
 * The one exported symbol, named LB_FILTER_PLUGIN_QUERY_SYMBOL:
 *
 *     G_MODULE_EXPORT const LbPluginInfo *
 *     lb_filter_plugin_query (guint32 host_abi_major, guint32 host_abi_minor)
 *     {
 *       return &my_plugin_info;
 *     }
 *
 * It must do no work beyond returning the table (the host calls it when it scans
 * directories, also from file-monitor callbacks). A plugin that cannot serve this host may
 * return %NULL; the host then skips it with a message.
 */
typedef const LbPluginInfo *(*LbFilterPluginQueryFunc) (guint32 host_abi_major,
                                                        guint32 host_abi_minor);

/* The prototype every plugin implements, declared here so the compiler checks the
 * definition's signature (and -Wmissing-prototypes stays quiet). The host never calls it by
 * name: it looks the symbol up with g_module_symbol(). */
G_MODULE_EXPORT const LbPluginInfo *lb_filter_plugin_query (guint32 host_abi_major,
                                                            guint32 host_abi_minor);

/*
 * Host checks (every one failing skips the whole plugin file with a message, never fatal):
 *   - the file and its directory are not writable by group or others (a world-writable
 *     plugin directory would let any local user run code inside Lightbox);
 *   - g_module_open() succeeds and the query symbol exists;
 *   - abi_major == LB_FILTER_ABI_MAJOR and the struct sizes cover the ABI 1.0 fields;
 *   - every id and alias is well-formed and unique (also against plugins loaded before);
 *   - name and category are set, formats is a non-empty subset of the eight formats;
 *   - prepare and release are set, and process or finish (process alone since ABI 1.0,
 *     finish alone since 1.1);
 *   - every LbParamSpec: a well-formed unique name, a known type, offset + sizeof (type)
 *     <= params_size and aligned, min <= def <= max, min <= ui_min <= ui_max <= max,
 *     step > 0, BOOL within 0..1, ENUM values present with max = count - 1, INT limits
 *     integral, ODD defaults odd.
 */

G_END_DECLS
