/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer harness: the client's WebDAV 207 Multi-Status parser (namespace-aware, libxml2),
 * in one piece and streamed in uneven chunks. Entries must stay direct children of the base. */
#include "lb-listing-parser.h"
#include "lb-store-entry.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

#define BASE "http://127.0.0.1:8080/dir/"

static void
check_entries (GPtrArray *entries, GError *error)
{
  g_assert ((entries == NULL) != (error == NULL));
  if (entries == NULL)
    return;
  for (guint i = 0; i < entries->len; i++)
    g_assert (g_str_has_prefix (lb_store_entry_get_uri (g_ptr_array_index (entries, i)), BASE));
  g_assert (entries->len <= 64);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  const LbListingContext ctx = { BASE, "http://127.0.0.1:8080/", 64 };
  g_autoptr (GPtrArray) entries = NULL;
  g_autoptr (GPtrArray) streamed = NULL;
  g_autoptr (LbStoreEntry) self = NULL;
  g_autoptr (LbStoreEntry) self2 = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (LbListingParser) parser = NULL;
  gsize pos = 0, step = 1 + (size ? data[size - 1] % 61 : 0);

  entries = lb_listing_parse_multistatus ((const char *) data, size, &ctx, &self, &error);
  check_entries (entries, error);
  g_clear_error (&error);

  parser = lb_listing_parser_new (LB_LISTING_MULTISTATUS, &ctx);
  while (pos < size && lb_listing_parser_feed (parser, (const char *) data + pos,
                                               MIN (step, size - pos), &error))
    pos += step;
  if (error == NULL)
    {
      streamed = lb_listing_parser_finish (parser, &self2, &error);
      check_entries (streamed, error);
    }
  return 0;
}
