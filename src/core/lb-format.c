/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "lb-format.h"

static const struct {
  const char *name;
  guint channels;
  guint sample_size;
  gboolean alpha;
} formats[LB_N_FORMATS] = {
  [LB_FORMAT_GRAY8] = { "gray8", 1, 1, FALSE },
  [LB_FORMAT_GRAY16] = { "gray16", 1, 2, FALSE },
  [LB_FORMAT_GRAYA8] = { "graya8", 2, 1, TRUE },
  [LB_FORMAT_GRAYA16] = { "graya16", 2, 2, TRUE },
  [LB_FORMAT_RGB8] = { "rgb8", 3, 1, FALSE },
  [LB_FORMAT_RGBA8] = { "rgba8", 4, 1, TRUE },
  [LB_FORMAT_RGB16] = { "rgb16", 3, 2, FALSE },
  [LB_FORMAT_RGBA16] = { "rgba16", 4, 2, TRUE },
};

static gboolean
valid (LbSampleFormat format)
{
  return (guint) format < LB_N_FORMATS;
}

guint
lb_sample_format_get_channels (LbSampleFormat format)
{
  g_return_val_if_fail (valid (format), 0);
  return formats[format].channels;
}

guint
lb_sample_format_get_sample_size (LbSampleFormat format)
{
  g_return_val_if_fail (valid (format), 0);
  return formats[format].sample_size;
}

guint
lb_sample_format_get_pixel_size (LbSampleFormat format)
{
  g_return_val_if_fail (valid (format), 0);
  return formats[format].channels * formats[format].sample_size;
}

guint
lb_sample_format_get_bit_depth (LbSampleFormat format)
{
  g_return_val_if_fail (valid (format), 0);
  return formats[format].sample_size * 8;
}

gboolean
lb_sample_format_has_alpha (LbSampleFormat format)
{
  g_return_val_if_fail (valid (format), FALSE);
  return formats[format].alpha;
}

gboolean
lb_sample_format_is_gray (LbSampleFormat format)
{
  g_return_val_if_fail (valid (format), FALSE);
  return formats[format].channels <= 2;
}

const char *
lb_sample_format_to_string (LbSampleFormat format)
{
  g_return_val_if_fail (valid (format), NULL);
  return formats[format].name;
}

gboolean
lb_sample_format_from_string (const char *str, LbSampleFormat *out_format)
{
  g_return_val_if_fail (str != NULL, FALSE);
  for (guint i = 0; i < LB_N_FORMATS; i++)
    if (g_ascii_strcasecmp (str, formats[i].name) == 0)
      {
        if (out_format)
          *out_format = (LbSampleFormat) i;
        return TRUE;
      }
  return FALSE;
}

LbSampleFormat
lb_sample_format_compose (gboolean gray, gboolean alpha, guint bit_depth)
{
  gboolean wide = bit_depth > 8;

  if (gray)
    return alpha ? (wide ? LB_FORMAT_GRAYA16 : LB_FORMAT_GRAYA8)
                 : (wide ? LB_FORMAT_GRAY16 : LB_FORMAT_GRAY8);
  return alpha ? (wide ? LB_FORMAT_RGBA16 : LB_FORMAT_RGBA8)
               : (wide ? LB_FORMAT_RGB16 : LB_FORMAT_RGB8);
}
