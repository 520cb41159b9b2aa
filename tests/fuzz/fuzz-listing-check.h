/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* The listing parsers' contract, checked by the harnesses on every input: a list of entries
 * or an error, never both; every entry below the base, at most ctx->max_entries of them; the
 * same from the streaming parser fed in uneven chunks. */

#include <string.h>

#include "lb-listing-parser.h"
#include "lb-store-entry.h"

/* @strict: every entry is a child of @base, never @base itself. */
static inline void
fuzz_check_entries (const LbListingContext *ctx,
                    GPtrArray              *entries,
                    GError                 *error,
                    gboolean                strict)
{
  g_assert ((entries == NULL) != (error == NULL));
  if (entries == NULL)
    return;
  for (guint i = 0; i < entries->len; i++)
    {
      const char *uri = lb_store_entry_get_uri (g_ptr_array_index (entries, i));

      g_assert (g_str_has_prefix (uri, ctx->base_uri));
      g_assert (!strict || strlen (uri) > strlen (ctx->base_uri));
    }
  g_assert (entries->len <= ctx->max_entries);
}

/* The streaming parser for @format, fed @data in chunks of a size its last byte picks
 * (1 to 61); what it finishes with (and *@self, for a multistatus) checked as above. */
static inline void
fuzz_check_streamed (LbListingFormat         format,
                     const LbListingContext *ctx,
                     const guint8           *data,
                     gsize                   size,
                     LbStoreEntry          **self,
                     gboolean                strict)
{
  g_autoptr (LbListingParser) parser = lb_listing_parser_new (format, ctx);
  g_autoptr (GPtrArray) streamed = NULL;
  g_autoptr (GError) error = NULL;
  gsize pos = 0, step = 1 + (size ? data[size - 1] % 61 : 0);

  while (pos < size && lb_listing_parser_feed (parser, (const char *) data + pos,
                                               MIN (step, size - pos), &error))
    pos += step;
  if (error == NULL)
    {
      streamed = lb_listing_parser_finish (parser, self, &error);
      fuzz_check_entries (ctx, streamed, error, strict);
    }
}
