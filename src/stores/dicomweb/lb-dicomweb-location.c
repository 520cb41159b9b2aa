/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dicomweb-store"

#include "lb-dicomweb-store-private.h"

#include <string.h>

#include "lb-error.h"

/* ---- locations ---------------------------------------------------------------------------- */

void
lb_dicomweb_loc_clear (LbDicomwebLoc *loc)
{
  g_clear_pointer (&loc->patient_id, g_free);
  g_clear_pointer (&loc->study, g_free);
  g_clear_pointer (&loc->series, g_free);
  g_clear_pointer (&loc->instance, g_free);
  g_clear_pointer (&loc->extra, g_free);
  g_clear_pointer (&loc->uri, g_free);
}

void
lb_dicomweb_loc_free (LbDicomwebLoc *loc)
{
  lb_dicomweb_loc_clear (loc);
  g_free (loc);
}

/* A path of @depth segments names @level itself; with @allow_extra, one more segment (a
 * sub-resource such as "metadata") is kept in loc->extra at that level. FALSE: the path goes
 * on, or is too long for this level. */
static gboolean
loc_ends_at (LbDicomwebLoc *loc, char **segs, guint n, guint depth, LbDicomwebLevel level,
             gboolean allow_extra)
{
  if (n == depth)
    {
      loc->level = level;
      return TRUE;
    }
  if (n == depth + 1 && allow_extra)
    {
      loc->level = level;
      loc->extra = g_strdup (segs[depth]);
      return TRUE;
    }
  return FALSE;
}

/* Splits @uri (inside the store) into its DICOMweb level and identifiers. */
gboolean
lb_dicomweb_loc_parse (LbDicomwebStore *self, const char *uri, gboolean allow_extra,
                       LbDicomwebLoc *loc, GError **error)
{
  g_auto(GStrv) segs = NULL;
  const char *rel;
  guint n;

  memset (loc, 0, sizeof *loc);
  if (uri == NULL)
    uri = self->root_uri;
  loc->uri = g_strdup (uri);
  if (uri == NULL || strcmp (uri, self->tree_uri) == 0
      || (strlen (uri) + 1 == strlen (self->tree_uri)
          && strncmp (uri, self->tree_uri, strlen (uri)) == 0))
    {
      loc->level = LB_DICOMWEB_ROOT;
      return TRUE;
    }
  if (!g_str_has_prefix (uri, self->tree_uri))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, "%s is not inside the store %s",
                   uri, self->tree_uri);
      return FALSE;
    }
  rel = uri + strlen (self->tree_uri);
  if (strpbrk (rel, "?#") != NULL)
    goto bad;
  segs = g_strsplit (rel, "/", -1);
  n = g_strv_length (segs);
  if (n > 0 && *segs[n - 1] == '\0')
    {
      g_free (segs[n - 1]);
      segs[--n] = NULL;
    }
  for (guint i = 0; i < n; i++)
    {
      char *dec = g_uri_unescape_string (segs[i], NULL);

      if (dec == NULL)
        goto bad;
      g_free (segs[i]);
      segs[i] = dec;
      /* only a patient ID may be empty */
      if (*dec == '\0' && !(i == 1 && strcmp (segs[0], "patients") == 0))
        goto bad;
    }

  if (n == 2 && strcmp (segs[0], "patients") == 0)
    {
      loc->level = LB_DICOMWEB_PATIENT;
      loc->patient_id = g_strdup (segs[1]);
      return TRUE;
    }
  if (n >= 2 && strcmp (segs[0], "studies") == 0)
    {
      loc->study = g_strdup (segs[1]);
      if (loc_ends_at (loc, segs, n, 2, LB_DICOMWEB_STUDY, allow_extra))
        return TRUE;
      if (n >= 4 && strcmp (segs[2], "series") == 0)
        {
          loc->series = g_strdup (segs[3]);
          if (loc_ends_at (loc, segs, n, 4, LB_DICOMWEB_SERIES, allow_extra))
            return TRUE;
          if ((n == 6 || n == 8) && strcmp (segs[4], "instances") == 0)
            {
              guint64 frame = 0;

              /* WADO-RS frame numbers count from 1 (PS3.18 §10.4.1.1.1) */
              if (n == 8 && (strcmp (segs[6], "frames") != 0
                             || !g_ascii_string_to_unsigned (segs[7], 10, 1, G_MAXINT32, &frame,
                                                             NULL)))
                goto bad;
              loc->level = LB_DICOMWEB_INSTANCE;
              loc->instance = g_strdup (segs[5]);
              loc->frame = (guint) frame;
              return TRUE;
            }
        }
    }

bad:
  lb_dicomweb_loc_clear (loc);
  g_set_error (error, LB_ERROR, LB_ERROR_NOT_FOUND,
               "%s: not a DICOMweb patient, study, series or instance of this store", uri);
  return FALSE;
}

gboolean
lb_dicomweb_task_loc (GTask *task, const char *uri, gboolean allow_extra, LbDicomwebLoc *loc)
{
  GError *error = NULL;

  if (lb_dicomweb_loc_parse (g_task_get_source_object (task), uri, allow_extra, loc, &error))
    return TRUE;
  lb_store_task_fail (task, error);
  return FALSE;
}

char *
lb_dicomweb_escape (const char *s)
{
  return g_uri_escape_string (s, NULL, FALSE);
}

char *
lb_dicomweb_study_uri (LbDicomwebStore *self, const char *study)
{
  g_autofree char *e = lb_dicomweb_escape (study);

  return g_strconcat (self->tree_uri, "studies/", e, "/", NULL);
}

char *
lb_dicomweb_series_uri (LbDicomwebStore *self, const char *study, const char *series)
{
  g_autofree char *s = lb_dicomweb_study_uri (self, study);
  g_autofree char *e = lb_dicomweb_escape (series);

  return g_strconcat (s, "series/", e, "/", NULL);
}

char *
lb_dicomweb_instance_uri (LbDicomwebStore *self, const char *study, const char *series,
                          const char *instance)
{
  g_autofree char *s = lb_dicomweb_series_uri (self, study, series);
  g_autofree char *e = lb_dicomweb_escape (instance);

  return g_strconcat (s, "instances/", e, NULL);
}

/* The DICOMweb URL of an instance resource (…/studies/x/series/y/instances/z). */
char *
lb_dicomweb_instance_url (LbDicomwebStore *self, const LbDicomwebLoc *loc)
{
  g_autofree char *st = lb_dicomweb_escape (loc->study);
  g_autofree char *se = lb_dicomweb_escape (loc->series);
  g_autofree char *in = lb_dicomweb_escape (loc->instance);

  return g_strdup_printf ("%s/studies/%s/series/%s/instances/%s", self->base_url, st, se, in);
}
