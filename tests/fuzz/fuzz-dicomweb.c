/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer harness: the DICOMweb parsers. First byte 'M': multipart/related body, with the
 * Content-Type header on the first line and the body after it; anything else: a DICOM JSON
 * array (QIDO-RS / WADO-RS metadata), then every element of every data set is read back. JSON
 * nested deeper than LB_JSON_MAX_DEPTH fails with LB_ERROR_TOO_LARGE before json-glib sees it,
 * and only then (checked against a byte-at-a-time reference). */
#include <json-glib/json-glib.h>

#include <string.h>

#include "fuzz-json-depth.h"
#include "lb-dicom-dataset.h"
#include "lb-error.h"
#include "lb-json-depth.h"
#include "dicomweb/lb-dicom-multipart.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static void
walk (const LbDicomDataset *ds, int depth)
{
  guint n = 0;
  g_autofree guint32 *tags = lb_dicom_dataset_get_tags (ds, &n);

  g_assert (n == lb_dicom_dataset_get_n_elements (ds));
  for (guint i = 0; i < n; i++)
    {
      g_assert (lb_dicom_dataset_has (ds, tags[i]));
      g_assert (lb_dicom_dataset_get_vr (ds, tags[i]) != NULL);
      if (i > 0)
        g_assert (tags[i - 1] < tags[i]);
    }
  (void) depth;
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autoptr (GError) error = NULL;

  if (size >= 1 && data[0] == 'M')
    {
      const guint8 *nl = memchr (data + 1, '\n', size - 1);
      g_autofree char *ctype = NULL;
      g_autoptr (GBytes) body = NULL;
      g_autoptr (GPtrArray) parts = NULL;

      if (nl == NULL)
        return 0;
      ctype = g_strndup ((const char *) data + 1, nl - data - 1);
      body = g_bytes_new (nl + 1, size - (nl + 1 - data));
      parts = lb_dicom_multipart_parse (ctype, body, &error);
      g_assert ((parts == NULL) != (error == NULL));
      if (parts != NULL)
        {
          g_assert (parts->len >= 1);
          for (guint i = 0; i < parts->len; i++)
            {
              LbDicomPart *p = g_ptr_array_index (parts, i);
              g_assert (p->content_type != NULL && p->body != NULL);
              g_assert (g_bytes_get_size (p->body) <= size);
            }
        }
      return 0;
    }
  else
    {
      g_autoptr (GPtrArray) sets = lb_dicom_json_parse_array ((const char *) data, size, &error);

      g_assert ((sets == NULL) != (error == NULL));
      g_assert ((fuzz_json_depth (data, size) > LB_JSON_MAX_DEPTH)
                == (g_error_matches (error, LB_ERROR, LB_ERROR_TOO_LARGE)
                    && strstr (error->message, "nested deeper") != NULL));
      if (sets != NULL)
        for (guint i = 0; i < sets->len; i++)
          walk (g_ptr_array_index (sets, i), 0);
    }
  return 0;
}
