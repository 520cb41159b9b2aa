/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer harness: the declarative filter parser (.lbfilter files, also fetched from stores),
 * with and without a chain-step checker. Parsing must either give a filter or a parse error. */
#include "lb-declarative.h"
#include "lb-error.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static gboolean
check_step (const char *step, gpointer user_data, GError **error)
{
  /* A checker that knows a few ids, as the registry does. */
  static const char *const known[] = { "xv.blur", "xv.sharpen", "xv.edge", "xv.invert", NULL };
  g_auto (GStrv) split = g_strsplit (step, ":", 2);

  if (split[0] != NULL && g_strv_contains (known, split[0]))
    return TRUE;
  g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "unknown filter %s", step);
  return FALSE;
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autoptr (GBytes) bytes = g_bytes_new (data, size);

  for (int pass = 0; pass < 2; pass++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (LbFilter) filter = lb_declarative_parse (bytes, "fuzz.lbfilter",
                                                          pass ? check_step : NULL, NULL,
                                                          &error);
      g_assert ((filter == NULL) != (error == NULL));
      if (error != NULL)
        g_assert (g_str_has_prefix (error->message, "fuzz.lbfilter"));
    }
  return 0;
}
