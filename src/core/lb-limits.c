/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-limits"

#include <stdlib.h>

#include "lb-error.h"
#include "lb-limits.h"

static LbLimits default_limits;
static gsize default_limits_init;

static guint64
env_u64 (const char *name, guint64 fallback)
{
  const char *s = g_getenv (name);
  guint64 v;

  if (s == NULL || !g_ascii_string_to_unsigned (s, 10, 1, G_MAXUINT64, &v, NULL))
    return fallback;
  return v;
}

const LbLimits *
lb_limits_get_default (void)
{
  if (g_once_init_enter (&default_limits_init))
    {
      default_limits.max_pixels = env_u64 ("LIGHTBOX_MAX_PIXELS", LB_LIMITS_DEFAULT_MAX_PIXELS);
      default_limits.max_bytes = env_u64 ("LIGHTBOX_MAX_BYTES", LB_LIMITS_DEFAULT_MAX_BYTES);
      g_once_init_leave (&default_limits_init, 1);
    }
  return &default_limits;
}

void
lb_limits_set_default (const LbLimits *limits)
{
  g_return_if_fail (limits != NULL);
  lb_limits_get_default ();
  default_limits = *limits;
}

gboolean
lb_limits_check (const LbLimits *limits,
                 guint           width,
                 guint           height,
                 LbSampleFormat  format,
                 gsize          *out_stride,
                 gsize          *out_size,
                 GError        **error)
{
  guint64 pixels, stride, size;

  if (limits == NULL)
    limits = lb_limits_get_default ();

  if (width == 0 || height == 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "Image dimensions %u×%u are empty", width, height);
      return FALSE;
    }
  if (!g_uint64_checked_mul (&pixels, width, height) || pixels > limits->max_pixels)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_TOO_LARGE,
                   "Image of %u×%u pixels is larger than the limit of %" G_GUINT64_FORMAT " pixels",
                   width, height, limits->max_pixels);
      return FALSE;
    }
  if (!g_uint64_checked_mul (&stride, width, lb_sample_format_get_pixel_size (format))
      || !g_uint64_checked_mul (&size, stride, height)
      || size > limits->max_bytes || size > G_MAXSIZE)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_TOO_LARGE,
                   "Image of %u×%u %s pixels needs more than the limit of %" G_GUINT64_FORMAT " bytes",
                   width, height, lb_sample_format_to_string (format), limits->max_bytes);
      return FALSE;
    }
  if (out_stride)
    *out_stride = (gsize) stride;
  if (out_size)
    *out_size = (gsize) size;
  return TRUE;
}
