/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer harness: the HTML (nginx, Apache, python) and JSON (nginx) listing parsers, in one
 * piece and through the streaming parser fed in uneven chunks. The first byte picks the format
 * ('J' JSON, anything else HTML). Every entry returned must be a direct child of the base on the
 * same origin: that is the parser's contract, so the harness checks it on every input. A JSON
 * listing nested deeper than LB_JSON_MAX_DEPTH fails with LB_ERROR_TOO_LARGE (one shallower
 * never does), and lb_json_check_depth() agrees with a byte-at-a-time reference at a depth
 * limit the second byte picks. */
#include <string.h>

#include "fuzz-json-depth.h"
#include "fuzz-listing-check.h"
#include "lb-error.h"
#include "lb-json-depth.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

#define BASE "http://127.0.0.1:8080/store/dir/"

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  const LbListingContext ctx = { BASE, "http://127.0.0.1:8080/store/", 64 };
  LbListingFormat format;
  g_autoptr (GPtrArray) entries = NULL;
  g_autoptr (GError) error = NULL;

  if (size < 1)
    return 0;
  format = data[0] == 'J' ? LB_LISTING_JSON : LB_LISTING_HTML;
  data++, size--;

  if (format == LB_LISTING_JSON)
    {
      guint deepest = fuzz_json_depth (data, size);
      guint limit = size > 0 ? data[0] % 16 : 0;

      entries = lb_listing_parse_json ((const char *) data, size, &ctx, &error);
      g_assert ((deepest > LB_JSON_MAX_DEPTH)
                == (g_error_matches (error, LB_ERROR, LB_ERROR_TOO_LARGE)
                    && strstr (error->message, "nested deeper") != NULL));
      g_assert (lb_json_check_depth ((const char *) data, size, limit, NULL, NULL)
                == (deepest <= limit));
    }
  else
    entries = lb_listing_parse_html ((const char *) data, size, &ctx, &error);
  fuzz_check_entries (&ctx, entries, error, TRUE);
  fuzz_check_streamed (format, &ctx, data, size, NULL, TRUE);
  return 0;
}
