/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store-server"

#include "lb-http-conditions.h"

#include <string.h>

char *
lb_http_make_etag (const struct stat *st)
{
  gint64 mtime_ns = (gint64) st->st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + st->st_mtim.tv_nsec;

  /* Strong: a new inode (every PUT renames a new file in), size or mtime gives a new tag. */
  return g_strdup_printf ("\"%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER "x\"",
                          (gint64) st->st_ino, (gint64) st->st_size, mtime_ns);
}

static gboolean
etag_list_matches (const char *list, const char *etag, gboolean weak)
{
  g_auto(GStrv) items = NULL;

  if (etag == NULL)
    return FALSE;
  items = g_strsplit (list, ",", -1);
  for (guint i = 0; items[i] != NULL; i++)
    {
      const char *t = g_strstrip (items[i]);

      if (g_str_has_prefix (t, "W/"))
        {
          if (!weak)
            continue; /* strong comparison: weak tags never match */
          t += 2;
        }
      if (strcmp (t, etag) == 0)
        return TRUE;
    }
  return FALSE;
}

static gboolean
header_is_star (const char *value)
{
  g_autofree char *v = g_strstrip (g_strdup (value));

  return strcmp (v, "*") == 0;
}

/* Fills @p with the precondition fields of @h; the values stay owned by @h. */
void
lb_http_preconditions_read (LbHttpPreconditions *p, SoupMessageHeaders *h)
{
  p->if_match = soup_message_headers_get_one (h, "If-Match");
  p->if_none_match = soup_message_headers_get_one (h, "If-None-Match");
  p->if_unmodified_since = soup_message_headers_get_one (h, "If-Unmodified-Since");
  p->if_modified_since = soup_message_headers_get_one (h, "If-Modified-Since");
}

/* A copy of @p that owns its strings, for use where the message is out of reach. */
LbHttpPreconditions *
lb_http_preconditions_dup (const LbHttpPreconditions *p)
{
  LbHttpPreconditions *c = g_new (LbHttpPreconditions, 1);

  c->if_match = g_strdup (p->if_match);
  c->if_none_match = g_strdup (p->if_none_match);
  c->if_unmodified_since = g_strdup (p->if_unmodified_since);
  c->if_modified_since = g_strdup (p->if_modified_since);
  return c;
}

/* Frees a copy made by lb_http_preconditions_dup(). */
void
lb_http_preconditions_free (LbHttpPreconditions *p)
{
  g_free ((char *) p->if_match);
  g_free ((char *) p->if_none_match);
  g_free ((char *) p->if_unmodified_since);
  g_free ((char *) p->if_modified_since);
  g_free (p);
}

/* If-None-Match: * (RFC 9110 §13.1.2): the request holds only while nothing has the name, so
 * a write must never replace what is there at the moment it lands. */
gboolean
lb_http_preconditions_forbid_any (const LbHttpPreconditions *p)
{
  return p->if_none_match != NULL && header_is_star (p->if_none_match);
}

/*
 * The preconditions @p, in RFC 9110 §13.2.2 evaluation order. @st is NULL when the resource
 * does not exist. Returns 0, 304 (only for GET/HEAD) or 412.
 */
guint
lb_http_preconditions_evaluate (const LbHttpPreconditions *p, const struct stat *st,
                                gboolean safe_method)
{
  g_autofree char *etag = (st != NULL && S_ISREG (st->st_mode)) ? lb_http_make_etag (st) : NULL;

  if (p->if_match != NULL)
    {
      if (st == NULL)
        return SOUP_STATUS_PRECONDITION_FAILED;
      if (!header_is_star (p->if_match) && !etag_list_matches (p->if_match, etag, FALSE))
        return SOUP_STATUS_PRECONDITION_FAILED;
    }
  else if (p->if_unmodified_since != NULL && st != NULL)
    {
      g_autoptr(GDateTime) d = soup_date_time_new_from_http_string (p->if_unmodified_since);
      if (d != NULL && (gint64) st->st_mtim.tv_sec > g_date_time_to_unix (d))
        return SOUP_STATUS_PRECONDITION_FAILED;
    }

  if (p->if_none_match != NULL)
    {
      gboolean hit = st != NULL && (header_is_star (p->if_none_match) ||
                                    etag_list_matches (p->if_none_match, etag, TRUE));
      if (hit)
        return safe_method ? SOUP_STATUS_NOT_MODIFIED : SOUP_STATUS_PRECONDITION_FAILED;
    }
  else if (p->if_modified_since != NULL && st != NULL && safe_method)
    {
      g_autoptr(GDateTime) d = soup_date_time_new_from_http_string (p->if_modified_since);
      if (d != NULL && (gint64) st->st_mtim.tv_sec <= g_date_time_to_unix (d))
        return SOUP_STATUS_NOT_MODIFIED;
    }
  return 0;
}

/* The preconditions of request headers @h: see lb_http_preconditions_evaluate(). */
guint
lb_http_evaluate_preconditions (SoupMessageHeaders *h, const struct stat *st, gboolean safe_method)
{
  LbHttpPreconditions p;

  lb_http_preconditions_read (&p, h);
  return lb_http_preconditions_evaluate (&p, st, safe_method);
}

/* If-Range (RFC 9110 §13.1.5): a Range applies only while the representation is unchanged, that
 * is while the validator is its current strong ETag @etag or exactly its date @mtime_s. */
static gboolean
if_range_holds (SoupMessageHeaders *h, const char *etag, gint64 mtime_s)
{
  const char *if_range = soup_message_headers_get_one (h, "If-Range");
  g_autofree char *ir = NULL;

  if (if_range == NULL)
    return TRUE;
  ir = g_strstrip (g_strdup (if_range));
  if (ir[0] == '"' || g_str_has_prefix (ir, "W/"))
    return strcmp (ir, etag) == 0;
  else
    {
      g_autoptr(GDateTime) d = soup_date_time_new_from_http_string (ir);

      return d != NULL && g_date_time_to_unix (d) == mtime_s;
    }
}

/*
 * What part of a representation of @size bytes (validators @etag, @mtime_s) a GET with request
 * headers @h asks for (RFC 9110 §14): PARTIAL, with the byte range [@start, @end] clipped to the
 * representation; UNSATISFIABLE when the range starts at or beyond its end; NONE (all of it,
 * 200) without a usable Range, when If-Range does not hold, or for several ranges (§14.2 lets a
 * server ignore Range: one 200 is simpler than a multipart/byteranges body).
 *
 * The header is parsed by libsoup (soup_message_headers_get_ranges()), whose reading is taken
 * where it is more lenient than the grammar of §14.1.1: white space around "=" and a "+" before
 * a position are accepted, empty list elements are skipped (as §5.6.1 asks), and overlapping
 * ranges are merged, so "bytes=0-5,3-9" is the one range 0-9 (§15.3.7.2 allows coalescing).
 * It reads positions with g_ascii_strtoull() into a signed goffset: a first position of 2^63
 * or more wraps negative and is served like an over-long suffix, from byte 0 (a 416 by the
 * letter of the RFC), and a last position of 2^63 or more makes the range invalid (200, all of
 * it). No test depends on these cases, and nothing outside the file is ever sent.
 */
LbHttpRange
lb_http_select_range (SoupMessageHeaders *h, goffset size, const char *etag, gint64 mtime_s,
                      goffset *start, goffset *end)
{
  SoupRange *ranges = NULL;
  int n = 0;
  LbHttpRange result = LB_HTTP_RANGE_NONE;

  if (!if_range_holds (h, etag, mtime_s) || !soup_message_headers_get_ranges (h, size, &ranges, &n))
    return LB_HTTP_RANGE_NONE;
  if (n == 1)
    {
      /* A suffix range "-N" comes back as start = size - N, negative when N is longer than the
       * representation: then all of it is the range (§14.1.2). */
      goffset first = MAX (ranges[0].start, 0);
      goffset last = MIN (ranges[0].end, size - 1);

      if (first >= size || last < first)
        result = LB_HTTP_RANGE_UNSATISFIABLE;
      else
        {
          *start = first;
          *end = last;
          result = LB_HTTP_RANGE_PARTIAL;
        }
    }
  soup_message_headers_free_ranges (h, ranges);
  return result;
}
