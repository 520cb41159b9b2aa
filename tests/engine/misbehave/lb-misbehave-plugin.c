/* SPDX-License-Identifier: GPL-3.0-or-later */

/*
 * Fixture plugins that misbehave, for the isolation tests (test-isolation.c). Built once per
 * -D option, each a plugin with one filter:
 *
 *   MISBEHAVE_CRASH  "crash": process() raises SIGSEGV (what a NULL write does)
 *   MISBEHAVE_HANG   "hang": process() loops forever and never looks at band->cancelled
 *   MISBEHAVE_ABORT  "abort-prepare": prepare() calls abort()
 *   MISBEHAVE_EXIT   "exit-prepare": prepare() calls exit (3)
 *   MISBEHAVE_CRASH_WRITE  "crash-write": process() writes to address 0x18 from a function
 *                    of its own, misbehave_scribble(), which the crash report must name
 *
 * Run inside Lightbox they would take it down; run by lightbox-filter-host they must not.
 * Three more misbehave while being loaded (lightbox-filter-host --probe must catch them
 * before Lightbox loads them; built into a directory of their own, misbehave/load/):
 *
 *   MISBEHAVE_CRASH_QUERY  "crash-query": the query function raises SIGSEGV
 *   MISBEHAVE_EXIT_CTOR    "exit-ctor": a constructor (run by dlopen) calls exit (4)
 *   MISBEHAVE_HANG_QUERY   "hang-query": the query function never returns
 */

#include <signal.h>
#include <stdlib.h>

#include <lb-filter-plugin.h>

#if defined(MISBEHAVE_CRASH)
#define FILTER_ID "io.github.lightbox.test.crash"
#define FILTER_ALIAS "crash"
#elif defined(MISBEHAVE_HANG)
#define FILTER_ID "io.github.lightbox.test.hang"
#define FILTER_ALIAS "hang"
#elif defined(MISBEHAVE_ABORT)
#define FILTER_ID "io.github.lightbox.test.abort-prepare"
#define FILTER_ALIAS "abort-prepare"
#elif defined(MISBEHAVE_EXIT)
#define FILTER_ID "io.github.lightbox.test.exit-prepare"
#define FILTER_ALIAS "exit-prepare"
#elif defined(MISBEHAVE_CRASH_WRITE)
#define FILTER_ID "io.github.lightbox.test.crash-write"
#define FILTER_ALIAS "crash-write"
#elif defined(MISBEHAVE_CRASH_QUERY)
#define FILTER_ID "io.github.lightbox.test.crash-query"
#define FILTER_ALIAS "crash-query"
#elif defined(MISBEHAVE_EXIT_CTOR)
#define FILTER_ID "io.github.lightbox.test.exit-ctor"
#define FILTER_ALIAS "exit-ctor"
#elif defined(MISBEHAVE_HANG_QUERY)
#define FILTER_ID "io.github.lightbox.test.hang-query"
#define FILTER_ALIAS "hang-query"
#else
#error "define one MISBEHAVE_* option"
#endif

static gpointer
misbehave_prepare (const LbFilterInfo  *info,
                   gconstpointer        params,
                   const LbFilterImage *image,
                   LbFilterRect        *write_rect,
                   GError             **error)
{
#if defined(MISBEHAVE_ABORT)
  abort ();
#elif defined(MISBEHAVE_EXIT)
  exit (3);
#endif
  return GINT_TO_POINTER (1);
}

#if defined(MISBEHAVE_CRASH_WRITE)
/* In the first page, which is never mapped. volatile, so that the compiler cannot see the
 * write is bound to fault and drop or rewrite it. */
static volatile guintptr bad_address = 0x18;

/* A static function: only the plugin's .symtab names it, not dladdr(). */
G_GNUC_NO_INLINE static void
misbehave_scribble (const LbFilterBand *band)
{
  *(volatile guint32 *) bad_address = (guint32) band->y0;
}
#endif

static gboolean
misbehave_process (gconstpointer       state,
                   const LbFilterBand *band,
                   GError            **error)
{
#if defined(MISBEHAVE_CRASH)
  raise (SIGSEGV);
#elif defined(MISBEHAVE_CRASH_WRITE)
  misbehave_scribble (band);
#elif defined(MISBEHAVE_HANG)
  /* Sleeps rather than spins so the test does not eat a shared CPU; to the host it is the
   * same thing: no band ever completes and the cancel flag is never read. */
  for (;;)
    g_usleep (10000);
#endif
  /* Scribbles on its band, so a pass that wrongly "succeeded" would show. */
  for (int y = band->y0; y < band->y1; y++)
    band->dst[(gsize) y * band->dst_stride] ^= 0xff;
  return TRUE;
}

static void
misbehave_release (gpointer state)
{
}

static const LbFilterInfo misbehave_info = {
  .struct_size = sizeof (LbFilterInfo),
  .id = FILTER_ID,
  .alias = FILTER_ALIAS,
  .name = "Misbehave",
  .category = "Test",
  .formats = LB_FILTER_FORMATS_COMMON,
  .params_version = 1,
  .prepare = misbehave_prepare,
  .process = misbehave_process,
  .release = misbehave_release,
};

static const LbFilterInfo *const filters[] = { &misbehave_info };

static const LbPluginInfo plugin_info = {
  .abi_major = LB_FILTER_ABI_MAJOR,
  .abi_minor = LB_FILTER_ABI_MINOR,
  .struct_size = sizeof (LbPluginInfo),
  .version = "misbehave",
  .filters = filters,
  .n_filters = G_N_ELEMENTS (filters),
};

#if defined(MISBEHAVE_EXIT_CTOR)
/* G_NORETURN: it is (clang -Wmissing-noreturn asks for the attribute) */
__attribute__ ((constructor)) G_NORETURN static void
misbehave_ctor (void)
{
  exit (4);
}
#endif

G_MODULE_EXPORT const LbPluginInfo *
lb_filter_plugin_query (guint32 host_abi_major,
                        guint32 host_abi_minor)
{
#if defined(MISBEHAVE_CRASH_QUERY)
  raise (SIGSEGV);
#elif defined(MISBEHAVE_HANG_QUERY)
  /* volatile: a loop the compiler can prove endless would make it want a noreturn query */
  static volatile int forever = 1;

  while (forever)
    g_usleep (10000);
#endif
  return &plugin_info;
}
