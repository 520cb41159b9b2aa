/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* A reference for lb_json_check_depth() in the harnesses: the deepest nesting of '[' and '{'
 * outside strings, found one byte at a time with an escape flag (the library skips strings
 * with memchr and counts backslashes instead). */

#include <glib.h>

static inline guint
fuzz_json_depth (const guint8 *data, gsize size)
{
  guint depth = 0, deepest = 0;
  gboolean in_string = FALSE, escaped = FALSE;

  for (gsize i = 0; i < size; i++)
    {
      guint8 c = data[i];

      if (in_string)
        {
          if (escaped)
            escaped = FALSE;
          else if (c == '\\')
            escaped = TRUE;
          else if (c == '"')
            in_string = FALSE;
        }
      else if (c == '"')
        in_string = TRUE;
      else if (c == '[' || c == '{')
        {
          depth++;
          deepest = MAX (deepest, depth);
        }
      else if ((c == ']' || c == '}') && depth > 0)
        depth--;
    }
  return deepest;
}
