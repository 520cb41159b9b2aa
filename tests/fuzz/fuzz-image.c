/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer harness: the whole image load path (sniffing, libpng push decoder, GdkPixbuf
 * loaders) on arbitrary bytes, both in one piece and streamed in uneven chunks. Limits are
 * small so that the fuzzer explores parsing, not giant allocations. */
#include "lb-image-loader.h"
#include "lb-png.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  static const LbLimits limits = { 1 << 20, 1 << 24 };
  g_autoptr (GBytes) bytes = g_bytes_new_static (data, size);
  g_autoptr (LbImage) image = NULL;
  g_autoptr (GError) error = NULL;

  image = lb_image_load_bytes (bytes, "fuzz", &limits, &error);
  g_assert ((image == NULL) != (error == NULL));
  if (image != NULL)
    {
      /* A decoded image must survive a PNG round trip unchanged. */
      g_autoptr (GBytes) png = lb_png_save_to_bytes (image, NULL);
      g_autoptr (LbImage) back = png ? lb_png_load_bytes (png, "fuzz-rt", NULL, NULL) : NULL;
      g_assert (back != NULL && lb_image_equal_pixels (image, back));
    }
  g_clear_error (&error);

  if (size >= 8 && lb_png_sniff (data, size))
    {
      /* Progressive decoding with chunk sizes taken from the data itself. */
      g_autoptr (LbPngDecoder) dec = lb_png_decoder_new ("fuzz-stream", &limits);
      g_autoptr (LbImage) streamed = NULL;
      gsize pos = 0, step = 1 + data[size - 1] % 97;

      while (pos < size && lb_png_decoder_feed (dec, data + pos, MIN (step, size - pos), NULL))
        pos += step;
      streamed = lb_png_decoder_finish (dec, NULL);
      if (image != NULL && streamed != NULL)
        g_assert (lb_image_equal_pixels (image, streamed));
    }
  return 0;
}
