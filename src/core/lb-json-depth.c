/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-json-depth"

#include "lb-json-depth.h"

#include <string.h>

#include "lb-error.h"

gboolean
lb_json_check_depth (const char *data, gsize len, guint max_depth, const char *what,
                     GError **error)
{
  const char *p = data;
  const char *end;
  guint depth = 0;

  if (len == 0)
    return TRUE;  /* (data may then be NULL, and NULL + 0 is undefined) */
  end = data + len;
  while (p < end)
    {
      switch (*p++)
        {
        case '"':
          /* to the closing quote: memchr finds candidates, a run of backslashes before one
           * decides whether it is escaped (an odd number escapes it) */
          for (;;)
            {
              const char *q = memchr (p, '"', (gsize) (end - p));
              gsize backslashes = 0;

              if (q == NULL)
                return TRUE;  /* an unterminated string: the parser's to report */
              while (q - backslashes > p && q[-1 - (gssize) backslashes] == '\\')
                backslashes++;
              p = q + 1;
              if (backslashes % 2 == 0)
                break;
            }
          break;
        case '[':
        case '{':
          if (++depth > max_depth)
            {
              g_set_error (error, LB_ERROR, LB_ERROR_TOO_LARGE,
                           "%s%snested deeper than %u levels (at byte %" G_GSIZE_FORMAT ")",
                           what != NULL ? what : "JSON", what != NULL ? ": " : " ", max_depth,
                           (gsize) (p - 1 - data));
              return FALSE;
            }
          break;
        case ']':
        case '}':
          if (depth > 0)
            depth--;
          break;
        default:
          break;
        }
    }
  return TRUE;
}
