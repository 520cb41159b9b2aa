/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-bench-record"

#include "config.h"

#include "lb-bench-record.h"

struct _LbBenchRecord {
  GObject         parent_instance;
  char           *filter;
  char           *params;
  guint           width, height;
  LbSampleFormat  format;
  guint           threads;
  double          ms;
};

G_DEFINE_FINAL_TYPE (LbBenchRecord, lb_bench_record, G_TYPE_OBJECT)

/* Read-only: set once by lb_bench_record_new(), never notified. */
enum {
  PROP_0,
  PROP_FILTER,
  PROP_PARAMS,
  PROP_WIDTH,
  PROP_HEIGHT,
  PROP_MEGAPIXELS,
  PROP_FORMAT,
  PROP_THREADS,
  PROP_MS,
  PROP_MPX_PER_S,
  N_PROPS
};
static GParamSpec *properties[N_PROPS];

static void
lb_bench_record_finalize (GObject *object)
{
  LbBenchRecord *self = LB_BENCH_RECORD (object);

  g_free (self->filter);
  g_free (self->params);
  G_OBJECT_CLASS (lb_bench_record_parent_class)->finalize (object);
}

static void
lb_bench_record_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  LbBenchRecord *self = LB_BENCH_RECORD (object);

  switch (prop_id)
    {
    case PROP_FILTER: g_value_set_string (value, self->filter); break;
    case PROP_PARAMS: g_value_set_string (value, self->params); break;
    case PROP_WIDTH: g_value_set_uint (value, self->width); break;
    case PROP_HEIGHT: g_value_set_uint (value, self->height); break;
    case PROP_MEGAPIXELS: g_value_set_double (value, lb_bench_record_get_megapixels (self)); break;
    case PROP_FORMAT:
      g_value_set_static_string (value, lb_sample_format_to_string (self->format));
      break;
    case PROP_THREADS: g_value_set_uint (value, self->threads); break;
    case PROP_MS: g_value_set_double (value, self->ms); break;
    case PROP_MPX_PER_S: g_value_set_double (value, lb_bench_record_get_mpx_per_s (self)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lb_bench_record_class_init (LbBenchRecordClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = lb_bench_record_finalize;
  object_class->get_property = lb_bench_record_get_property;
  /* the filter's id ("io.github.lightbox.xv.threshold") */
  properties[PROP_FILTER] = g_param_spec_string ("filter", NULL, NULL, NULL, flags);
  properties[PROP_PARAMS] = g_param_spec_string ("params", NULL, NULL, NULL, flags);
  properties[PROP_WIDTH] = g_param_spec_uint ("width", NULL, NULL, 0, G_MAXUINT, 0, flags);
  properties[PROP_HEIGHT] = g_param_spec_uint ("height", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /* width × height / 10⁶ */
  properties[PROP_MEGAPIXELS] = g_param_spec_double ("megapixels", NULL, NULL, 0, G_MAXDOUBLE, 0,
                                                     flags);
  /* the sample format's name ("gray16") */
  properties[PROP_FORMAT] = g_param_spec_string ("format", NULL, NULL, NULL, flags);
  properties[PROP_THREADS] = g_param_spec_uint ("threads", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /* milliseconds */
  properties[PROP_MS] = g_param_spec_double ("ms", NULL, NULL, 0, G_MAXDOUBLE, 0, flags);
  properties[PROP_MPX_PER_S] = g_param_spec_double ("mpx-per-s", NULL, NULL, 0, G_MAXDOUBLE, 0,
                                                    flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
lb_bench_record_init (LbBenchRecord *self)
{
}

LbBenchRecord *
lb_bench_record_new (const char     *filter,
                     const char     *params,
                     guint           width,
                     guint           height,
                     LbSampleFormat  format,
                     guint           threads,
                     double          ms)
{
  LbBenchRecord *self;

  g_return_val_if_fail (filter != NULL, NULL);
  self = g_object_new (LB_TYPE_BENCH_RECORD, NULL);
  self->filter = g_strdup (filter);
  self->params = g_strdup (params ? params : "");
  self->width = width;
  self->height = height;
  self->format = format;
  self->threads = threads;
  self->ms = ms;
  return self;
}

const char *
lb_bench_record_get_filter (LbBenchRecord *self)
{
  g_return_val_if_fail (LB_IS_BENCH_RECORD (self), NULL);
  return self->filter;
}

const char *
lb_bench_record_get_params (LbBenchRecord *self)
{
  g_return_val_if_fail (LB_IS_BENCH_RECORD (self), NULL);
  return self->params;
}

guint
lb_bench_record_get_width (LbBenchRecord *self)
{
  g_return_val_if_fail (LB_IS_BENCH_RECORD (self), 0);
  return self->width;
}

guint
lb_bench_record_get_height (LbBenchRecord *self)
{
  g_return_val_if_fail (LB_IS_BENCH_RECORD (self), 0);
  return self->height;
}

double
lb_bench_record_get_megapixels (LbBenchRecord *self)
{
  g_return_val_if_fail (LB_IS_BENCH_RECORD (self), 0);
  return (double) self->width * self->height / 1e6;
}

LbSampleFormat
lb_bench_record_get_format (LbBenchRecord *self)
{
  g_return_val_if_fail (LB_IS_BENCH_RECORD (self), 0);
  return self->format;
}

guint
lb_bench_record_get_threads (LbBenchRecord *self)
{
  g_return_val_if_fail (LB_IS_BENCH_RECORD (self), 0);
  return self->threads;
}

double
lb_bench_record_get_ms (LbBenchRecord *self)
{
  g_return_val_if_fail (LB_IS_BENCH_RECORD (self), 0);
  return self->ms;
}

double
lb_bench_record_get_mpx_per_s (LbBenchRecord *self)
{
  g_return_val_if_fail (LB_IS_BENCH_RECORD (self), 0);
  return self->ms > 0 ? lb_bench_record_get_megapixels (self) / (self->ms / 1000.0) : 0;
}
