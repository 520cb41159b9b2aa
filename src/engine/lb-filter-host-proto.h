/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * lb-filter-host-proto.h: the messages between Lightbox (lb-isolation.c) and the helper
 * process lightbox-filter-host (engine-internal; both sides are built from the same tree).
 *
 * Transport: one AF_UNIX SOCK_SEQPACKET socketpair per helper, so every message is one
 * datagram (no framing, no partial reads) and descriptors travel with it (SCM_RIGHTS).
 * The helper gets its end as fd 3, the plugin (the registry's private, already unlinked
 * copy, see lb-plugin-loader.c) as fd 4, and an empty memfd as fd 5, where it writes a
 * report if it crashes (lb-crash-report.h); Lightbox reads it once the helper is dead.
 *
 *   Lightbox → helper   RUN: LbFhRun + filter id + params (serialised a{sv} GVariant) +
 *                       the metadata of the source and the second input (serialised
 *                       (a{sv}a{sv}), see _lb_fh_meta_to_variant()), with two or three
 *                       descriptors: the source pixels (a sealed memfd), the destination
 *                       (a memfd whose size is sealed, rows packed) and, for a filter that
 *                       reads two images, the second image's pixels (sealed)
 *   helper → Lightbox   PROGRESS (0..1 after each band), then DONE or ERROR (GError
 *                       domain name, code and message follow the header). A DONE whose
 *                       output has another geometry than the source (a filter with
 *                       LB_FILTER_FLAG_GEOMETRY) carries it, and the pixels in a memfd of
 *                       its own, packed rows, as its descriptor
 *
 * Pixels never travel through the socket. The helper exits when its end of the socket
 * reports end-of-file (Lightbox closed it or died), even while a plugin spins.
 */

#include <glib.h>

#include "lb-filter-plugin.h"
#include "lb-image-meta.h"

G_BEGIN_DECLS

/* The helper's descriptors, set up by lb-isolation.c's launcher. */
#define LB_FH_SOCKET_FD 3
#define LB_FH_PLUGIN_FD 4
#define LB_FH_CRASH_FD 5

#define LB_FH_MAGIC 0x4c424648u   /* "LBFH" */
#define LB_FH_VERSION 2u
/* The RUN of a Python filter (lightbox-python-host.py): the same message, but the params are
 * a UTF-8 JSON object (name → number, bool, or an enum's nick) and the metadata the `meta`
 * dictionary of the plugin guide, also JSON, instead of serialised GVariants; only the
 * source and destination descriptors travel, and the replies are the same. */
#define LB_FH_VERSION_JSON 0x102u
/* Largest message either side sends or accepts, bytes (params are at most 64 KiB). */
#define LB_FH_MAX_MESSAGE (128 * 1024)

typedef enum {
  LB_FH_RUN = 1,
  LB_FH_PROGRESS = 2,
  LB_FH_DONE = 3,
  LB_FH_ERROR = 4,
} LbFhType;

typedef struct {
  guint32 magic;
  guint32 version;
  guint32 type;          /* LB_FH_RUN */
  guint32 format;        /* LbSampleFormat */
  guint32 width;
  guint32 height;
  guint64 src_stride;    /* bytes per row in the source memfd */
  guint64 src_size;      /* bytes of the source memfd */
  guint64 dst_stride;    /* bytes per row in the destination memfd (= row size) */
  guint64 seed;
  gint32 has_selection;
  LbFilterRect selection;
  guint32 n_threads;     /* 0 = the helper's processor count (the same machine) */
  guint32 band_height;
  guint32 id_len;        /* bytes of the filter id that follow */
  guint32 params_len;    /* bytes of the serialised a{sv} after the id */
  guint32 meta_len;      /* bytes of the serialised (a{sv}a{sv}) after the params */
  guint32 aux_format;    /* the second image (a third descriptor), when aux_width > 0 */
  guint32 aux_width;
  guint32 aux_height;
  guint64 aux_stride;
  guint64 aux_size;
} LbFhRun;

typedef struct {
  guint32 magic;
  guint32 type;          /* LB_FH_PROGRESS, LB_FH_DONE or LB_FH_ERROR */
  double fraction;       /* PROGRESS: 0..1 of the pass */
  guint32 threads;       /* DONE: threads that ran bands */
  guint32 bands;         /* DONE: bands the write rectangle was cut into */
  gint32 code;           /* ERROR: GError code */
  guint32 domain_len;    /* ERROR: bytes of the domain name that follow */
  guint32 message_len;   /* ERROR: bytes of the message after the domain */
  guint32 out_format;    /* DONE, when out_width > 0: the output's LbSampleFormat, */
  guint32 out_width;     /* size and packed row size, in the descriptor sent along */
  guint32 out_height;
  guint64 out_stride;
  double out_spacing_x;  /* DONE, out_width > 0: the output's pixel spacing, mm (0: none) */
  double out_spacing_y;
} LbFhReply;

/* The Python host packs and unpacks these with struct's native layout: keep them so. */
G_STATIC_ASSERT (sizeof (LbFhRun) == 128);
G_STATIC_ASSERT (sizeof (LbFhReply) == 72);

/* The first @size bytes of the memfd @fd, mapped shared and read-only (pages populated at
 * once) for as long as the bytes live; %NULL with "cannot map @what: …" if mmap() fails.
 * Lightbox maps the helper's result this way, the helper the source. */
GBytes *_lb_fh_map_bytes (int          fd,
                          gsize        size,
                          const char  *what,
                          GError     **error);

/* What LbFilterMeta is made of (lb-filter-image.c), from @meta (nullable) as an a{sv}
 * (floating): the value model, the pixel spacing and the DICOM Modality, so that the
 * helper's filter sees the metadata an in-process one does. */
GVariant    *_lb_fh_meta_to_variant   (const LbImageMeta *meta);
/* The other way; %NULL for an empty dictionary. */
LbImageMeta *_lb_fh_meta_from_variant (GVariant          *dict);

G_END_DECLS
