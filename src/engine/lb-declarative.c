/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-declarative"

#include <string.h>

#include "lb-declarative-private.h"
#include "lb-error.h"
#include "lb-plugin-loader.h"

#define GROUP_FILTER "Filter"
#define GROUP_KERNEL "Kernel"
#define GROUP_CHAIN "Chain"
/* Tap and bias limits keep every sum far inside gint64: 225 × 2^20 × 65535 < 2^45. */
#define MAX_TAP 1048576
#define MAX_BIAS 65535
#define MAX_STEPS 64

/* A declarative filter's heap descriptor and its data; owned by its LbFilter. */
typedef struct {
  LbFilterInfo info;
  char *id;
  char *alias;
  char *name;
  char *category;
  char *description;
  LbDeclarativeKernel kernel;
} Decl;

static void
decl_free (gpointer data)
{
  Decl *d = data;

  g_free (d->id);
  g_free (d->alias);
  g_free (d->name);
  g_free (d->category);
  g_free (d->description);
  g_free (d->kernel.taps);
  g_free (d);
}

/* ---- parsing ------------------------------------------------------------------------------ */

typedef struct {
  char *group;
  char *key;
  int line;
} KeyLine;

typedef struct {
  const char *origin;
  GArray *keys;     /* KeyLine, in file order */
  GArray *groups;   /* KeyLine with key = NULL */
} Scan;

static void
key_line_clear (gpointer data)
{
  KeyLine *k = data;

  g_free (k->group);
  g_free (k->key);
}

static gboolean parse_fail (Scan       *scan,
                            int         line,
                            GError    **error,
                            const char *format,
                            ...) G_GNUC_PRINTF (4, 5);

static gboolean
parse_fail (Scan       *scan,
            int         line,
            GError    **error,
            const char *format,
            ...)
{
  va_list args;
  g_autofree char *msg = NULL;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  if (line > 0)
    g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "%s:%d: %s", scan->origin, line, msg);
  else
    g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "%s: %s", scan->origin, msg);
  return FALSE;
}

/* GKeyFile reports no line numbers, so this scan records where every group and key is,
 * and rejects lines GKeyFile would reject (or silently merge: duplicate keys and groups). */
static gboolean
scan_lines (Scan        *scan,
            const char  *text,
            gsize        len,
            GError     **error)
{
  g_autofree char *copy = g_strndup (text, len);
  g_auto(GStrv) lines = NULL;
  g_autofree char *group = NULL;

  if (memchr (text, '\0', len) != NULL || !g_utf8_validate (text, len, NULL))
    return parse_fail (scan, 0, error, "not UTF-8 text");
  lines = g_strsplit (copy, "\n", -1);
  for (int i = 0; lines[i] != NULL; i++)
    {
      char *l = g_strstrip (lines[i]);
      int line = i + 1;

      if (*l == '\0' || *l == '#')
        continue;
      if (*l == '[')
        {
          char *end = strchr (l, ']');
          KeyLine g = { 0 };

          if (end == NULL || end[1] != '\0' || end == l + 1)
            return parse_fail (scan, line, error, "malformed group header “%s”", l);
          g_free (group);
          group = g_strndup (l + 1, end - l - 1);
          for (guint k = 0; k < scan->groups->len; k++)
            if (g_str_equal (g_array_index (scan->groups, KeyLine, k).group, group))
              return parse_fail (scan, line, error, "group [%s] appears twice", group);
          g.group = g_strdup (group);
          g.line = line;
          g_array_append_val (scan->groups, g);
          continue;
        }
      {
        char *eq = strchr (l, '=');
        KeyLine kl = { 0 };

        if (eq == NULL || eq == l)
          return parse_fail (scan, line, error, "“%s” is not KEY=VALUE, a [group] or a comment", l);
        if (group == NULL)
          return parse_fail (scan, line, error, "key before the first [group]");
        *eq = '\0';
        g_strchomp (l);
        for (guint k = 0; k < scan->keys->len; k++)
          {
            KeyLine *o = &g_array_index (scan->keys, KeyLine, k);
            if (g_str_equal (o->group, group) && g_str_equal (o->key, l))
              return parse_fail (scan, line, error, "key “%s” appears twice in [%s]", l, group);
          }
        kl.group = g_strdup (group);
        kl.key = g_strdup (l);
        kl.line = line;
        g_array_append_val (scan->keys, kl);
      }
    }
  return TRUE;
}

static int
line_of (Scan       *scan,
         const char *group,
         const char *key)
{
  if (key == NULL)
    {
      for (guint k = 0; k < scan->groups->len; k++)
        if (g_str_equal (g_array_index (scan->groups, KeyLine, k).group, group))
          return g_array_index (scan->groups, KeyLine, k).line;
      return 0;
    }
  for (guint k = 0; k < scan->keys->len; k++)
    {
      KeyLine *o = &g_array_index (scan->keys, KeyLine, k);
      if (g_str_equal (o->group, group) && g_str_equal (o->key, key))
        return o->line;
    }
  return 0;
}

/* "Row12" → 12 with @prefix "Row"; 0 if @key is not prefix + a positive decimal. */
static int
numbered_key (const char *key,
              const char *prefix)
{
  guint64 n;

  if (!g_str_has_prefix (key, prefix))
    return 0;
  key += strlen (prefix);
  if (*key == '0' || !g_ascii_string_to_unsigned (key, 10, 1, 1000, &n, NULL))
    return 0;
  return (int) n;
}

static gboolean
localisable (const char *key)
{
  static const char *const names[] = { "Name", "Category", "Description" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      gsize n = strlen (names[i]);
      if (strncmp (key, names[i], n) == 0 && key[n] == '[' && g_str_has_suffix (key, "]")
          && strlen (key) > n + 2)
        return TRUE;
    }
  return FALSE;
}

static gboolean
check_known_keys (Scan       *scan,
                  const char *type,
                  GError    **error)
{
  static const char *const filter_keys[] = { "Id", "Alias", "Name", "Category", "Description",
                                             "Type" };

  for (guint g = 0; g < scan->groups->len; g++)
    {
      KeyLine *kl = &g_array_index (scan->groups, KeyLine, g);

      if (!g_str_equal (kl->group, GROUP_FILTER)
          && !(g_str_equal (kl->group, GROUP_KERNEL) && g_strcmp0 (type, "kernel") == 0)
          && !(g_str_equal (kl->group, GROUP_CHAIN) && g_strcmp0 (type, "chain") == 0))
        return parse_fail (scan, kl->line, error, "unexpected group [%s] for Type=%s",
                           kl->group, type);
    }
  for (guint k = 0; k < scan->keys->len; k++)
    {
      KeyLine *kl = &g_array_index (scan->keys, KeyLine, k);
      gboolean ok = FALSE;

      if (g_str_equal (kl->group, GROUP_FILTER))
        {
          for (guint i = 0; i < G_N_ELEMENTS (filter_keys); i++)
            ok |= g_str_equal (kl->key, filter_keys[i]);
          ok |= localisable (kl->key);
        }
      else if (g_str_equal (kl->group, GROUP_KERNEL))
        ok = g_str_equal (kl->key, "Width") || g_str_equal (kl->key, "Height")
             || g_str_equal (kl->key, "Divisor") || g_str_equal (kl->key, "Bias")
             || numbered_key (kl->key, "Row") > 0;
      else if (g_str_equal (kl->group, GROUP_CHAIN))
        ok = numbered_key (kl->key, "Step") > 0;
      if (!ok)
        return parse_fail (scan, kl->line, error, "unknown key “%s” in [%s]", kl->key,
                           kl->group);
    }
  return TRUE;
}

static char *
get_string (GKeyFile   *kf,
            Scan       *scan,
            const char *group,
            const char *key,
            gboolean    required,
            GError    **error)
{
  g_autoptr(GError) local = NULL;
  char *v;

  if (!g_key_file_has_key (kf, group, key, NULL))
    {
      if (required)
        parse_fail (scan, line_of (scan, group, NULL), error, "[%s] lacks the key %s", group,
                    key);
      return NULL;
    }
  v = g_key_file_get_string (kf, group, key, &local);
  if (v == NULL)
    parse_fail (scan, line_of (scan, group, key), error, "%s: %s", key, local->message);
  return v;
}

/* The user's language's variant of a [Filter] string, "Name[de]", else the plain key; NULL
 * when absent. (Done by hand: g_key_file_get_locale_string() of GLib 2.74 leaks a GError on
 * an unreadable value.) */
static gboolean
get_locale (GKeyFile   *kf,
            Scan       *scan,
            const char *key,
            char      **out,
            GError    **error)
{
  const char *const *langs = g_get_language_names ();

  *out = NULL;
  for (guint i = 0; langs[i] != NULL; i++)
    {
      g_autofree char *lkey = g_strdup_printf ("%s[%s]", key, langs[i]);

      if (g_key_file_has_key (kf, GROUP_FILTER, lkey, NULL))
        {
          *out = get_string (kf, scan, GROUP_FILTER, lkey, TRUE, error);
          return *out != NULL;
        }
    }
  if (!g_key_file_has_key (kf, GROUP_FILTER, key, NULL))
    return TRUE;
  *out = get_string (kf, scan, GROUP_FILTER, key, TRUE, error);
  return *out != NULL;
}

static gboolean
get_int (GKeyFile   *kf,
         Scan       *scan,
         const char *group,
         const char *key,
         gboolean    required,
         gint64      min,
         gint64      max,
         gint64     *out,
         GError    **error)
{
  g_autofree char *s = NULL;
  g_autoptr(GError) local = NULL;
  gint64 v;

  if (!g_key_file_has_key (kf, group, key, NULL) && !required)
    return TRUE;
  s = get_string (kf, scan, group, key, TRUE, error);
  if (s == NULL)
    return FALSE;
  g_strstrip (s);
  if (!g_ascii_string_to_signed (s, 10, G_MININT64, G_MAXINT64, &v, &local))
    return parse_fail (scan, line_of (scan, group, key), error, "%s=%s is not an integer", key,
                       s);
  if (v < min || v > max)
    return parse_fail (scan, line_of (scan, group, key), error,
                       "%s=%" G_GINT64_FORMAT " is out of range %" G_GINT64_FORMAT "..%"
                       G_GINT64_FORMAT, key, v, min, max);
  *out = v;
  return TRUE;
}

/* "Bias=N" (samples) or "Bias=F range" (F in -1..1, a fraction of the sample maximum, so
 * one file gives the same effect on 8- and 16-bit images: 0.5 range = 128 or 32768). */
static gboolean
get_bias (GKeyFile            *kf,
          Scan                *scan,
          LbDeclarativeKernel *d,
          GError             **error)
{
  g_autofree char *s = NULL;
  char *word, *end = NULL;
  double f;

  if (!g_key_file_has_key (kf, GROUP_KERNEL, "Bias", NULL))
    return TRUE;
  s = get_string (kf, scan, GROUP_KERNEL, "Bias", TRUE, error);
  if (s == NULL)
    return FALSE;
  g_strstrip (s);
  word = strpbrk (s, " \t");
  if (word == NULL)
    return get_int (kf, scan, GROUP_KERNEL, "Bias", FALSE, -MAX_BIAS, MAX_BIAS, &d->bias, error);
  *word++ = '\0';
  g_strchug (word);
  if (!g_str_equal (word, "range"))
    return parse_fail (scan, line_of (scan, GROUP_KERNEL, "Bias"), error,
                       "Bias=%s %s: the only unit is “range” (Bias=0.5 range)", s, word);
  f = g_ascii_strtod (s, &end);
  if (end == s || *end != '\0' || !(f >= -1 && f <= 1))
    return parse_fail (scan, line_of (scan, GROUP_KERNEL, "Bias"), error,
                       "Bias=%s range: the fraction of the range must be a number in -1..1", s);
  d->bias = 0;
  d->bias_range = f;
  return TRUE;
}

static gboolean
parse_kernel (GKeyFile            *kf,
              Scan                *scan,
              LbDeclarativeKernel *d,
              GError             **error)
{
  gint64 w = 0, h = 0, sum = 0;
  int hline;

  if (!g_key_file_has_group (kf, GROUP_KERNEL))
    return parse_fail (scan, line_of (scan, GROUP_FILTER, "Type"), error,
                       "Type=kernel needs a [%s] group", GROUP_KERNEL);
  if (!get_int (kf, scan, GROUP_KERNEL, "Width", TRUE, 1, LB_DECLARATIVE_MAX_KERNEL, &w, error)
      || !get_int (kf, scan, GROUP_KERNEL, "Height", TRUE, 1, LB_DECLARATIVE_MAX_KERNEL, &h,
                   error))
    return FALSE;
  if (w % 2 == 0)
    return parse_fail (scan, line_of (scan, GROUP_KERNEL, "Width"), error,
                       "Width=%" G_GINT64_FORMAT " must be odd (the kernel needs a centre)", w);
  if (h % 2 == 0)
    return parse_fail (scan, line_of (scan, GROUP_KERNEL, "Height"), error,
                       "Height=%" G_GINT64_FORMAT " must be odd (the kernel needs a centre)", h);
  d->kw = (int) w;
  d->kh = (int) h;
  d->taps = g_new0 (gint32, w * h);
  hline = line_of (scan, GROUP_KERNEL, "Height");
  for (guint k = 0; k < scan->keys->len; k++)
    {
      KeyLine *kl = &g_array_index (scan->keys, KeyLine, k);
      int n = numbered_key (kl->key, "Row");

      if (g_str_equal (kl->group, GROUP_KERNEL) && n > h)
        return parse_fail (scan, kl->line, error, "%s, but Height=%" G_GINT64_FORMAT
                           " (line %d)", kl->key, h, hline);
    }
  for (int j = 0; j < h; j++)
    {
      g_autofree char *key = g_strdup_printf ("Row%d", j + 1);
      g_autofree char *s = get_string (kf, scan, GROUP_KERNEL, key, TRUE, error);
      g_auto(GStrv) taps = NULL;
      int line = line_of (scan, GROUP_KERNEL, key), n = 0;

      if (s == NULL)
        return FALSE;
      taps = g_strsplit_set (g_strstrip (s), " \t", -1);
      for (int i = 0; taps[i] != NULL; i++)
        {
          gint64 v;

          if (*taps[i] == '\0')
            continue;
          if (!g_ascii_string_to_signed (taps[i], 10, -MAX_TAP, MAX_TAP, &v, NULL))
            return parse_fail (scan, line, error, "%s: tap “%s” is not an integer in %d..%d",
                               key, taps[i], -MAX_TAP, MAX_TAP);
          if (n >= w)
            return parse_fail (scan, line, error, "%s has more than Width=%" G_GINT64_FORMAT
                               " taps", key, w);
          d->taps[j * w + n++] = (gint32) v;
          sum += v;
        }
      if (n != w)
        return parse_fail (scan, line, error, "%s has %d taps, Width=%" G_GINT64_FORMAT
                           " needs %" G_GINT64_FORMAT, key, n, w, w);
    }
  /* Without a divisor the kernel is normalised by its sum (1 if the taps sum to 0). */
  d->divisor = sum != 0 ? sum : 1;
  if (!get_int (kf, scan, GROUP_KERNEL, "Divisor", FALSE, -MAX_TAP * 225LL, MAX_TAP * 225LL,
                &d->divisor, error))
    return FALSE;
  if (d->divisor == 0)
    return parse_fail (scan, line_of (scan, GROUP_KERNEL, "Divisor"), error,
                       "Divisor=0: division by zero");
  return get_bias (kf, scan, d, error);
}

static gboolean
parse_chain (GKeyFile              *kf,
             Scan                  *scan,
             GPtrArray             *steps,
             LbDeclarativeStepCheck check,
             gpointer               user_data,
             GError               **error)
{
  int n = 0;

  if (!g_key_file_has_group (kf, GROUP_CHAIN))
    return parse_fail (scan, line_of (scan, GROUP_FILTER, "Type"), error,
                       "Type=chain needs a [%s] group", GROUP_CHAIN);
  for (guint k = 0; k < scan->keys->len; k++)
    if (g_str_equal (g_array_index (scan->keys, KeyLine, k).group, GROUP_CHAIN))
      n++;
  if (n == 0 || n > MAX_STEPS)
    return parse_fail (scan, line_of (scan, GROUP_CHAIN, NULL), error,
                       "a chain needs 1..%d steps (Step1, Step2, …)", MAX_STEPS);
  for (int i = 1; i <= n; i++)
    {
      g_autofree char *key = g_strdup_printf ("Step%d", i);
      char *s;
      g_autoptr(GError) local = NULL;

      if (!g_key_file_has_key (kf, GROUP_CHAIN, key, NULL))
        return parse_fail (scan, line_of (scan, GROUP_CHAIN, NULL), error,
                           "the steps must be numbered Step1..Step%d without gaps; %s is missing",
                           n, key);
      s = get_string (kf, scan, GROUP_CHAIN, key, TRUE, error);
      if (s == NULL)
        return FALSE;
      g_strstrip (s);
      g_ptr_array_add (steps, s);
      if (check != NULL && !check (s, user_data, &local))
        return parse_fail (scan, line_of (scan, GROUP_CHAIN, key), error, "%s: %s", key,
                           local->message);
    }
  return TRUE;
}

gboolean
_lb_declarative_parse (GBytes                 *bytes,
                       const char             *origin,
                       LbDeclarativeStepCheck  check,
                       gpointer                user_data,
                       const LbFilterInfo     *kernel_hooks,
                       LbFilter              **filter,
                       GError                **error)
{
  gsize len;
  const char *text = g_bytes_get_data (bytes, &len);
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autoptr(GError) local = NULL;
  g_autoptr(GPtrArray) steps = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *type = NULL;
  Scan scan = { origin, NULL, NULL };
  Decl *d = NULL;
  gboolean ok = FALSE;

  g_return_val_if_fail (bytes != NULL && origin != NULL, FALSE);
  g_return_val_if_fail (filter == NULL || kernel_hooks != NULL, FALSE);
  scan.keys = g_array_new (FALSE, TRUE, sizeof (KeyLine));
  g_array_set_clear_func (scan.keys, key_line_clear);
  scan.groups = g_array_new (FALSE, TRUE, sizeof (KeyLine));
  g_array_set_clear_func (scan.groups, key_line_clear);

  if (len > 64 * 1024)
    {
      parse_fail (&scan, 0, error, "larger than 64 KiB: not a filter description");
      goto out;
    }
  if (!scan_lines (&scan, text ? text : "", len, error))
    goto out;
  if (!g_key_file_load_from_data (kf, text ? text : "", len, G_KEY_FILE_NONE, &local))
    {
      parse_fail (&scan, 0, error, "%s", local->message);
      goto out;
    }
  if (!g_key_file_has_group (kf, GROUP_FILTER))
    {
      parse_fail (&scan, 1, error, "no [%s] group", GROUP_FILTER);
      goto out;
    }
  type = get_string (kf, &scan, GROUP_FILTER, "Type", TRUE, error);
  if (type == NULL)
    goto out;
  if (!g_str_equal (type, "kernel") && !g_str_equal (type, "chain"))
    {
      parse_fail (&scan, line_of (&scan, GROUP_FILTER, "Type"), error,
                  "Type=%s: must be kernel or chain", type);
      goto out;
    }
  if (!check_known_keys (&scan, type, error))
    goto out;

  d = g_new0 (Decl, 1);
  d->id = get_string (kf, &scan, GROUP_FILTER, "Id", TRUE, error);
  if (d->id == NULL)
    goto out;
  if (!lb_filter_id_is_valid (d->id, TRUE))
    {
      parse_fail (&scan, line_of (&scan, GROUP_FILTER, "Id"), error,
                  "Id=%s: use lowercase letters, digits, '.', '-' and '_' (reverse DNS)", d->id);
      goto out;
    }
  if (g_key_file_has_key (kf, GROUP_FILTER, "Alias", NULL))
    {
      d->alias = get_string (kf, &scan, GROUP_FILTER, "Alias", TRUE, error);
      if (d->alias == NULL)
        goto out;
      if (!lb_filter_id_is_valid (d->alias, FALSE))
        {
          parse_fail (&scan, line_of (&scan, GROUP_FILTER, "Alias"), error,
                      "Alias=%s: use lowercase letters, digits, '-' and '_'", d->alias);
          goto out;
        }
    }
  for (guint i = 0; i < 2; i++)
    {
      const char *key = i == 0 ? "Name" : "Category";
      g_autofree char *v = get_string (kf, &scan, GROUP_FILTER, key, TRUE, error);

      if (v == NULL)
        goto out;
      if (*g_strstrip (v) == '\0')
        {
          parse_fail (&scan, line_of (&scan, GROUP_FILTER, key), error, "%s is empty", key);
          goto out;
        }
    }
  /* Every plain string of [Filter] must be readable (no bad escapes). Localised variants
   * for other languages are dropped by GKeyFile on load; the one for the user's language is
   * checked by get_locale(). */
  for (guint k = 0; k < scan.keys->len; k++)
    {
      KeyLine *kl = &g_array_index (scan.keys, KeyLine, k);
      g_autofree char *v = NULL;

      if (g_str_equal (kl->group, GROUP_FILTER) && strchr (kl->key, '[') == NULL
          && (v = get_string (kf, &scan, GROUP_FILTER, kl->key, TRUE, error)) == NULL)
        goto out;
    }
  if (!get_locale (kf, &scan, "Name", &d->name, error)
      || !get_locale (kf, &scan, "Category", &d->category, error)
      || !get_locale (kf, &scan, "Description", &d->description, error))
    goto out;

  d->info.struct_size = sizeof (LbFilterInfo);
  d->info.id = d->id;
  d->info.alias = d->alias;
  d->info.name = d->name;
  d->info.category = d->category;
  d->info.description = d->description;

  if (g_str_equal (type, "kernel"))
    {
      if (!parse_kernel (kf, &scan, &d->kernel, error))
        goto out;
      d->info.formats = LB_FILTER_FORMATS_ALL;
      d->info.user_data = &d->kernel;
      if (filter != NULL)
        {
          Decl *owned;

          d->info.prepare = kernel_hooks->prepare;
          d->info.process = kernel_hooks->process;
          d->info.release = kernel_hooks->release;
          if (!lb_filter_info_validate (&d->info, error))
            goto out;
          owned = g_steal_pointer (&d);
          *filter = _lb_filter_new (LB_FILTER_KIND_KERNEL, &owned->info, NULL, origin, NULL,
                                    NULL, owned, decl_free);
        }
    }
  else
    {
      if (!parse_chain (kf, &scan, steps, check, user_data, error))
        goto out;
      g_ptr_array_add (steps, NULL);
      if (filter != NULL)
        {
          /* A chain's formats are those of its steps, checked when it runs. */
          Decl *owned = g_steal_pointer (&d);

          owned->info.formats = 0;
          *filter = _lb_filter_new (LB_FILTER_KIND_CHAIN, &owned->info, NULL, origin, NULL,
                                    (const char *const *) steps->pdata, owned, decl_free);
        }
    }
  ok = TRUE;

out:
  if (d != NULL)
    decl_free (d);
  g_array_unref (scan.keys);
  g_array_unref (scan.groups);
  return ok;
}

/* Only the parse: the id, names, kernel and chain syntax are checked here as strictly as
 * for a filter that runs (lb_filter_info_validate() would add nothing for these fields
 * beyond the hooks, which a check has none of). */
gboolean
lb_declarative_check (GBytes     *bytes,
                      const char *origin,
                      GError    **error)
{
  return _lb_declarative_parse (bytes, origin, NULL, NULL, NULL, NULL, error);
}
