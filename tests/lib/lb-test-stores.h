/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-error.h"
#include "lb-store-sync.h"
#include "lb-store.h"
#include "lb-write-back.h"

/* Helpers for the store tests: run async calls to completion on the default main context. */

static inline void
test_store_result (GObject *source, GAsyncResult *result, gpointer user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static inline GAsyncResult *
test_wait (GAsyncResult **slot)
{
  while (*slot == NULL)
    g_main_context_iteration (NULL, TRUE);
  return *slot;
}

static inline LbStore *
test_open (const char *uri, LbStoreOptions *options)
{
  g_autoptr(GError) error = NULL;
  LbStore *store = lb_store_new_for_uri (uri, options, &error);

  g_assert_no_error (error);
  g_assert_nonnull (store);
  return store;
}

static inline const char *
test_env (const char *name)
{
  const char *value = g_getenv (name);

  if (value == NULL)
    g_error ("%s is not set: run this test through tests/stores/servers.sh (meson test does)", name);
  return value;
}

static inline GPtrArray *
test_list (LbStore *store, const char *uri, GError **error)
{
  return lb_store_list_sync (store, uri, NULL, error);
}

static inline LbStoreEntry *
test_find (GPtrArray *entries, const char *name)
{
  for (guint i = 0; entries != NULL && i < entries->len; i++)
    if (g_str_equal (lb_store_entry_get_name (entries->pdata[i]), name))
      return entries->pdata[i];
  return NULL;
}

/* Reads the whole entry through lb_store_read_async and the returned stream (async reads).
 * Returns NULL with @error on failure. */
static inline GBytes *
test_read_all (LbStore *store, const char *uri, LbStoreEntry **out_entry, GError **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(GByteArray) data = g_byte_array_new ();

  lb_store_read_async (store, uri, NULL, NULL, NULL, test_store_result, &result);
  stream = lb_store_read_finish (store, test_wait (&result), out_entry, error);
  if (stream == NULL)
    return NULL;
  for (;;)
    {
      g_autoptr(GAsyncResult) chunk_result = NULL;
      g_autoptr(GBytes) chunk = NULL;

      g_input_stream_read_bytes_async (stream, 65536, G_PRIORITY_DEFAULT, NULL, test_store_result,
                                       &chunk_result);
      chunk = g_input_stream_read_bytes_finish (stream, test_wait (&chunk_result), error);
      if (chunk == NULL)
        return NULL;
      if (g_bytes_get_size (chunk) == 0)
        break;
      g_byte_array_append (data, g_bytes_get_data (chunk, NULL), g_bytes_get_size (chunk));
    }
  return g_byte_array_free_to_bytes (g_steal_pointer (&data));
}

static inline char *
test_sha256_bytes (GBytes *bytes)
{
  return g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, bytes);
}

static inline char *
test_sha256_file (const char *path)
{
  g_autofree char *contents = NULL;
  gsize len = 0;
  g_autoptr(GError) error = NULL;

  g_file_get_contents (path, &contents, &len, &error);
  g_assert_no_error (error);
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) contents, len);
}
