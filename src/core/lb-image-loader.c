/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-image-loader"

#include <gdk-pixbuf/gdk-pixbuf.h>
#include <string.h>

#include "lb-error.h"
#include "lb-image-loader.h"
#include "lb-png.h"

#define STREAM_CHUNK (64 * 1024)

/* GdkPixbuf path: everything that is not PNG. The loader reports the size before it
 * allocates the pixbuf; we refuse there and shrink the requested size to 1×1 so that a
 * bomb never gets its allocation. */
typedef struct {
  const char *name;
  const LbLimits *limits;
  GError *error;
} PixbufCtx;

static void
on_size_prepared (GdkPixbufLoader *loader, int width, int height, gpointer user_data)
{
  PixbufCtx *ctx = user_data;
  GError *error = NULL;

  if (ctx->error != NULL)
    return;
  if (width <= 0 || height <= 0
      || !lb_limits_check (ctx->limits, width, height, LB_FORMAT_RGBA8, NULL, NULL, &error))
    {
      if (error == NULL)
        error = g_error_new (LB_ERROR, LB_ERROR_CORRUPT, "invalid image size %d×%d", width, height);
      ctx->error = g_error_new (LB_ERROR, error->code, "%s: %s", ctx->name, error->message);
      g_error_free (error);
      gdk_pixbuf_loader_set_size (loader, 1, 1);
    }
}

/* Some GdkPixbuf loaders (TIFF) always deliver RGBA, and grayscale JPEG/TIFF arrive as RGB
 * with equal channels. Report what the pixels really carry, so a gray opaque TIFF becomes
 * GRAY8 rather than RGBA8. */
static void
pixbuf_analyse (GdkPixbuf *pixbuf, gboolean *gray, gboolean *alpha)
{
  int w = gdk_pixbuf_get_width (pixbuf), h = gdk_pixbuf_get_height (pixbuf);
  int stride = gdk_pixbuf_get_rowstride (pixbuf), n = gdk_pixbuf_get_n_channels (pixbuf);
  const guint8 *px = gdk_pixbuf_read_pixels (pixbuf);

  *gray = TRUE;
  *alpha = FALSE;
  for (int y = 0; y < h; y++)
    {
      const guint8 *row = px + (gsize) y * stride;
      for (int x = 0; x < w; x++)
        {
          const guint8 *p = row + (gsize) x * n;
          if (p[0] != p[1] || p[0] != p[2])
            *gray = FALSE;
          if (n == 4 && p[3] != 255)
            *alpha = TRUE;
        }
    }
}

static LbImage *
image_from_pixbuf (GdkPixbuf *pixbuf, const char *name, const LbLimits *limits, GError **error)
{
  int w = gdk_pixbuf_get_width (pixbuf), h = gdk_pixbuf_get_height (pixbuf);
  int stride = gdk_pixbuf_get_rowstride (pixbuf), n = gdk_pixbuf_get_n_channels (pixbuf);
  const guint8 *px = gdk_pixbuf_read_pixels (pixbuf);
  gboolean gray, alpha;
  LbSampleFormat format;
  guint out_ch;
  gsize out_stride;
  guint8 *out;
  g_autoptr (LbImageMeta) meta = lb_image_meta_new ();

  if (gdk_pixbuf_get_bits_per_sample (pixbuf) != 8 || (n != 3 && n != 4))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED, "%s: unsupported pixel layout", name);
      return NULL;
    }
  pixbuf_analyse (pixbuf, &gray, &alpha);
  format = lb_sample_format_compose (gray, alpha, 8);
  out_ch = lb_sample_format_get_channels (format);
  out = lb_image_alloc_pixels (w, h, format, limits, &out_stride, error);
  if (out == NULL)
    {
      g_prefix_error (error, "%s: ", name);
      return NULL;
    }
  for (int y = 0; y < h; y++)
    {
      const guint8 *row = px + (gsize) y * stride;
      guint8 *dst = out + (gsize) y * out_stride;

      if (out_ch == (guint) n)
        memcpy (dst, row, (gsize) w * n);
      else
        for (int x = 0; x < w; x++)
          {
            const guint8 *p = row + (gsize) x * n;
            guint8 *q = dst + (gsize) x * out_ch;
            if (gray)
              q[0] = p[0];
            else
              q[0] = p[0], q[1] = p[1], q[2] = p[2];
            if (alpha)
              q[out_ch - 1] = p[3];
          }
    }
  return lb_image_new_take (w, h, format, out_stride, out, meta);
}

typedef struct {
  GdkPixbufLoader *loader;
  PixbufCtx ctx;
} PixbufLoad;

static void
pixbuf_load_init (PixbufLoad *load, const char *name, const LbLimits *limits)
{
  load->ctx.name = name;
  load->ctx.limits = limits;
  load->ctx.error = NULL;
  load->loader = gdk_pixbuf_loader_new ();
  g_signal_connect (load->loader, "size-prepared", G_CALLBACK (on_size_prepared), &load->ctx);
}

static gboolean
pixbuf_load_write (PixbufLoad *load, const guint8 *data, gsize len, GError **error)
{
  GError *local = NULL;

  if (!gdk_pixbuf_loader_write (load->loader, data, len, &local) || load->ctx.error != NULL)
    {
      if (load->ctx.error != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&load->ctx.error));
          g_clear_error (&local);
        }
      else
        {
          g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT, "%s: %s", load->ctx.name, local->message);
          g_error_free (local);
        }
      return FALSE;
    }
  return TRUE;
}

static LbImage *
pixbuf_load_finish (PixbufLoad *load, const LbLimits *limits, GError **error)
{
  GError *local = NULL;
  GdkPixbuf *pixbuf;

  if (!gdk_pixbuf_loader_close (load->loader, &local) || load->ctx.error != NULL)
    {
      if (load->ctx.error != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&load->ctx.error));
          g_clear_error (&local);
        }
      else
        {
          int code = LB_ERROR_CORRUPT;
          if (g_error_matches (local, GDK_PIXBUF_ERROR, GDK_PIXBUF_ERROR_UNKNOWN_TYPE))
            code = LB_ERROR_UNSUPPORTED;
          g_set_error (error, LB_ERROR, code, "%s: %s", load->ctx.name,
                       local ? local->message : "cannot decode image");
          g_clear_error (&local);
        }
      return NULL;
    }
  pixbuf = gdk_pixbuf_loader_get_pixbuf (load->loader);
  if (pixbuf == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_TRUNCATED, "%s: image data ended before any pixels",
                   load->ctx.name);
      return NULL;
    }
  return image_from_pixbuf (pixbuf, load->ctx.name, limits, error);
}

static void
pixbuf_load_clear (PixbufLoad *load)
{
  if (load->loader != NULL)
    {
      /* Closing discards whatever state a failed load left; its error is not interesting. */
      gdk_pixbuf_loader_close (load->loader, NULL);
      g_clear_object (&load->loader);
    }
  g_clear_error (&load->ctx.error);
}

static LbImage *
set_source (LbImage *image, const char *name)
{
  g_autoptr (LbImageMeta) meta = NULL;
  LbImage *with;

  if (image == NULL || name == NULL || lb_image_meta_get_source_uri (lb_image_get_meta (image)))
    return image;
  meta = lb_image_dup_meta (image);
  lb_image_meta_set_source_uri (meta, name);
  with = lb_image_with_meta (image, meta);
  g_object_unref (image);
  return with;
}

/* GdkPixbuf's BMP loader allocates a buffer of the size the file header claims before any
 * size check of ours can run: a 54-byte file claiming a 4 GiB pixel offset made it allocate
 * 4 GiB (found by tests/fuzz/fuzz-image). In a well-formed BMP both the pixel-data offset
 * (bytes 10–13) and the info header size (bytes 14–17) lie inside the file. */
static gboolean
bmp_header_sane (const guint8 *data, gsize len, const char *name, GError **error)
{
  guint32 off_bits, header_size;

  if (len < 18 || data[0] != 'B' || data[1] != 'M')
    return TRUE;
  off_bits = (guint32) data[10] | (guint32) data[11] << 8 | (guint32) data[12] << 16 | (guint32) data[13] << 24;
  header_size = (guint32) data[14] | (guint32) data[15] << 8 | (guint32) data[16] << 16 | (guint32) data[17] << 24;
  if (off_bits > len || header_size > len)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                   "%s: BMP header points past the end of the file (pixel offset %u, header "
                   "size %u, file %" G_GSIZE_FORMAT " bytes)", name, off_bits, header_size, len);
      return FALSE;
    }
  /* BITMAPINFOHEADER and later: the colour table of biClrUsed entries (4 bytes each) follows
   * the headers and must fit in the file; the loader allocates it from the claimed count (a
   * 151-byte file claiming 4 282 187 566 colours made it allocate 4 GiB). */
  if (header_size >= 40 && len >= 50)
    {
      guint32 clr_used = (guint32) data[46] | (guint32) data[47] << 8 | (guint32) data[48] << 16
                         | (guint32) data[49] << 24;
      guint64 table_end = 14 + (guint64) header_size + 4 * (guint64) clr_used;

      if (table_end > len)
        {
          g_set_error (error, LB_ERROR, LB_ERROR_CORRUPT,
                       "%s: BMP colour table of %u entries does not fit in the file (%" G_GSIZE_FORMAT
                       " bytes)", name, clr_used, len);
          return FALSE;
        }
    }
  return TRUE;
}

/* GdkPixbuf's GIF loader composites frames on the logical screen the header declares, and
 * allocates it at close even when size-prepared asked for 1×1: a 1 KiB GIF declaring a
 * 65535×60927 screen made it allocate 16 GB (found by tests/fuzz/fuzz-image). The screen
 * size (bytes 6–9) is checked against the limits first. */
static gboolean
gif_screen_sane (const guint8 *data, gsize len, const char *name, const LbLimits *limits,
                 GError **error)
{
  guint w, h;
  g_autoptr (GError) local = NULL;

  if (len < 10 || memcmp (data, "GIF8", 4) != 0)
    return TRUE;
  w = data[6] | (guint) data[7] << 8;
  h = data[8] | (guint) data[9] << 8;
  if (w == 0 || h == 0)
    return TRUE; /* the frames carry the size; the loader reports what it finds */
  if (!lb_limits_check (limits, w, h, LB_FORMAT_RGBA8, NULL, NULL, &local))
    {
      g_set_error (error, LB_ERROR, local->code, "%s: GIF screen %u×%u: %s", name, w, h,
                   local->message);
      return FALSE;
    }
  return TRUE;
}

/* ---- decoders registered from above ------------------------------------------------------ */

typedef struct {
  char             *format;
  LbImageSniffFunc  sniff;
  LbImageDecodeFunc decode;
} Decoder;

static GMutex decoders_lock;
static GArray *decoders; /* Decoder, never shrinks */

void
lb_image_loader_register (const char *format, LbImageSniffFunc sniff, LbImageDecodeFunc decode)
{
  Decoder d = { g_strdup (format), sniff, decode };

  g_return_if_fail (format != NULL && sniff != NULL && decode != NULL);
  g_mutex_lock (&decoders_lock);
  if (decoders == NULL)
    decoders = g_array_new (FALSE, FALSE, sizeof (Decoder));
  for (guint i = 0; i < decoders->len; i++)
    if (strcmp (g_array_index (decoders, Decoder, i).format, format) == 0)
      {
        g_free (d.format);
        g_array_index (decoders, Decoder, i).sniff = sniff;
        g_array_index (decoders, Decoder, i).decode = decode;
        g_mutex_unlock (&decoders_lock);
        return;
      }
  g_array_append_val (decoders, d);
  g_mutex_unlock (&decoders_lock);
}

static LbImageDecodeFunc
find_decoder (const guint8 *data, gsize len, const char *name)
{
  LbImageDecodeFunc found = NULL;

  g_mutex_lock (&decoders_lock);
  for (guint i = 0; decoders != NULL && i < decoders->len && found == NULL; i++)
    if (g_array_index (decoders, Decoder, i).sniff (data, len, name))
      found = g_array_index (decoders, Decoder, i).decode;
  g_mutex_unlock (&decoders_lock);
  return found;
}

LbImage *
lb_image_load_bytes (GBytes *bytes, const char *name, const LbLimits *limits, GError **error)
{
  gsize len;
  const guint8 *data;
  PixbufLoad load = { 0 };
  LbImage *image = NULL;

  g_return_val_if_fail (bytes != NULL, NULL);
  if (name == NULL)
    name = "image data";
  data = g_bytes_get_data (bytes, &len);
  if (len == 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_TRUNCATED, "%s: empty file", name);
      return NULL;
    }
  if (lb_png_sniff (data, len))
    return set_source (lb_png_load_bytes (bytes, name, limits, error), name);
  {
    LbImageDecodeFunc decode = find_decoder (data, len, name);

    if (decode != NULL)
      return set_source (decode (bytes, name, limits, error), name);
  }
  if (!bmp_header_sane (data, len, name, error) ||
      !gif_screen_sane (data, len, name, limits, error))
    return NULL;

  pixbuf_load_init (&load, name, limits);
  if (pixbuf_load_write (&load, data, len, error))
    image = pixbuf_load_finish (&load, limits, error);
  pixbuf_load_clear (&load);
  return set_source (image, name);
}

LbImage *
lb_image_load_file (const char *path, const LbLimits *limits, GError **error)
{
  g_autoptr (GFile) file = NULL;
  g_autoptr (GFileInputStream) in = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  file = g_file_new_for_commandline_arg (path);
  in = g_file_read (file, NULL, error);
  if (in == NULL)
    return NULL;
  return lb_image_load_stream (G_INPUT_STREAM (in), path, limits, NULL, error);
}

LbImage *
lb_image_load_stream (GInputStream *stream, const char *name, const LbLimits *limits,
                      GCancellable *cancellable, GError **error)
{
  g_autofree guint8 *buf = g_malloc (STREAM_CHUNK);
  g_autoptr (LbPngDecoder) png = NULL;
  g_autoptr (GByteArray) other = NULL;
  gboolean first = TRUE;
  guint64 max_bytes = (limits ? limits : lb_limits_get_default ())->max_bytes;

  g_return_val_if_fail (G_IS_INPUT_STREAM (stream), NULL);
  if (name == NULL)
    name = "image data";

  /* PNG decodes as it arrives (progressive display). Everything else goes through GdkPixbuf,
   * whose loaders need the header checks above on the whole file: it is gathered first, up to
   * the byte limit, then decoded by lb_image_load_bytes(). */
  for (;;)
    {
      gsize n = 0;

      if (!g_input_stream_read_all (stream, buf, STREAM_CHUNK, &n, cancellable, error))
        {
          g_prefix_error (error, "%s: ", name);
          return NULL;
        }
      if (first)
        {
          if (n == 0)
            {
              g_set_error (error, LB_ERROR, LB_ERROR_TRUNCATED, "%s: empty file", name);
              return NULL;
            }
          if (lb_png_sniff (buf, n))
            png = lb_png_decoder_new (name, limits);
          else
            other = g_byte_array_new ();
          first = FALSE;
        }
      if (n > 0)
        {
          if (png != NULL)
            {
              if (!lb_png_decoder_feed (png, buf, n, error))
                return NULL;
            }
          else
            {
              if ((guint64) other->len + n > max_bytes)
                {
                  g_set_error (error, LB_ERROR, LB_ERROR_TOO_LARGE,
                               "%s: file is larger than the limit of %" G_GUINT64_FORMAT " bytes",
                               name, max_bytes);
                  return NULL;
                }
              g_byte_array_append (other, buf, n);
            }
        }
      if (n < STREAM_CHUNK)
        break;
    }
  if (png != NULL)
    return set_source (lb_png_decoder_finish (png, error), name);
  {
    g_autoptr (GBytes) bytes = g_byte_array_free_to_bytes (g_steal_pointer (&other));
    return lb_image_load_bytes (bytes, name, limits, error);
  }
}
