/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-test-stores"

#include "lb-test-stores.h"

#include "lb-test-loop.h"

LbStore *
lb_test_store_open (const char     *uri,
                    LbStoreOptions *options)
{
  g_autoptr (GError) error = NULL;
  LbStore *store = lb_store_new_for_uri (uri, options, &error);

  g_assert_no_error (error);
  g_assert_nonnull (store);
  return store;
}

GPtrArray *
lb_test_store_list (LbStore    *store,
                    const char *uri,
                    GError    **error)
{
  return lb_store_list_sync (store, uri, NULL, error);
}

LbStoreEntry *
lb_test_store_find (GPtrArray  *entries,
                    const char *name)
{
  for (guint i = 0; entries != NULL && i < entries->len; i++)
    if (g_strcmp0 (lb_store_entry_get_name (entries->pdata[i]), name) == 0)
      return entries->pdata[i];
  return NULL;
}

GBytes *
lb_test_store_read_all (LbStore       *store,
                        const char    *uri,
                        LbStoreEntry **out_entry,
                        GError       **error)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GInputStream) stream = NULL;
  g_autoptr (GByteArray) data = g_byte_array_new ();

  lb_store_read_async (store, uri, NULL, NULL, NULL, lb_test_keep_result, &result);
  stream = lb_store_read_finish (store, lb_test_wait_result (&result), out_entry, error);
  if (stream == NULL)
    return NULL;
  for (;;)
    {
      g_autoptr (GAsyncResult) chunk_result = NULL;
      g_autoptr (GBytes) chunk = NULL;

      g_input_stream_read_bytes_async (stream, 65536, G_PRIORITY_DEFAULT, NULL,
                                       lb_test_keep_result, &chunk_result);
      chunk = g_input_stream_read_bytes_finish (stream, lb_test_wait_result (&chunk_result),
                                                error);
      if (chunk == NULL)
        return NULL;
      if (g_bytes_get_size (chunk) == 0)
        break;
      g_byte_array_append (data, g_bytes_get_data (chunk, NULL), g_bytes_get_size (chunk));
    }
  return g_byte_array_free_to_bytes (g_steal_pointer (&data));
}
