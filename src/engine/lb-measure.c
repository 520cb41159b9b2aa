/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-measure"

#include <math.h>
#include <stdlib.h>

#include "lb-measure.h"

double
lb_measure_now_ms (void)
{
  return g_get_monotonic_time () / 1000.0;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* Linear interpolation between closest ranks; @s sorted, n ≥ 1. */
static double
quantile (const double *s, guint n, double q)
{
  double pos = q * (n - 1);
  guint i = (guint) floor (pos);
  double f = pos - i;

  if (i + 1 >= n)
    return s[n - 1];
  return s[i] + (s[i + 1] - s[i]) * f;
}

LbMeasureStats
lb_measure_stats_of (double *samples, guint n)
{
  LbMeasureStats st = { 0 };

  if (n == 0)
    return st;
  qsort (samples, n, sizeof (double), cmp_double);
  st.n = n;
  st.min = samples[0];
  st.max = samples[n - 1];
  st.median = quantile (samples, n, 0.5);
  st.p10 = quantile (samples, n, 0.1);
  st.p90 = quantile (samples, n, 0.9);
  return st;
}

LbMeasureStats
lb_measure_run (LbMeasureFunc func, gpointer user_data, const LbMeasureOptions *options)
{
  static const LbMeasureOptions defaults = LB_MEASURE_OPTIONS_DEFAULT;
  g_autoptr (GArray) samples = g_array_new (FALSE, FALSE, sizeof (double));
  double start, previous = -1;
  gboolean stable = FALSE;
  LbMeasureStats st;

  if (options == NULL)
    options = &defaults;
  for (guint i = 0; i < options->warmup; i++)
    func (user_data);

  start = lb_measure_now_ms ();
  while (samples->len < options->max_runs)
    {
      g_autofree double *sorted = NULL;
      double median;

      for (guint i = 0; i < MAX (options->min_runs, 1) && samples->len < options->max_runs; i++)
        {
          double v = func (user_data);
          g_array_append_val (samples, v);
        }
      sorted = g_memdup2 (samples->data, samples->len * sizeof (double));
      median = lb_measure_stats_of (sorted, samples->len).median;
      if (previous >= 0 && fabs (median - previous) <= options->tolerance * MAX (fabs (previous), 1e-9))
        {
          stable = TRUE;
          break;
        }
      previous = median;
      if ((lb_measure_now_ms () - start) / 1000.0 > options->max_seconds)
        break;
    }
  st = lb_measure_stats_of ((double *) samples->data, samples->len);
  st.stable = stable;
  return st;
}
