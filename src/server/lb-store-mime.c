/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store-server"

#include "lb-store-mime.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <gio/gio.h>

#include "lb-store-fs.h"
#include "lb-store-path.h"

#define LB_STORE_MIME_UNKNOWN "application/octet-stream"

static const char *
mime_of (const char *content_type, char **owned)
{
  *owned = content_type != NULL ? g_content_type_get_mime_type (content_type) : NULL;
  return *owned != NULL ? *owned : LB_STORE_MIME_UNKNOWN;
}

/* TRUE when @name alone settles the type; the type is then in *@owned. */
static gboolean
guess_from_name (const char *name, const char **type, char **owned)
{
  g_autofree char *guess = NULL;
  gboolean uncertain = FALSE;

  /* Declarative filters are text in the engine's format; no MIME database knows the suffix. */
  if (g_str_has_suffix (name, LB_STORE_FILTER_SUFFIX))
    {
      *type = "text/plain; charset=utf-8";
      return TRUE;
    }
  guess = g_content_type_guess (name, NULL, 0, &uncertain);
  if (uncertain || guess == NULL)
    return FALSE;
  *type = mime_of (guess, owned);
  return TRUE;
}

/* Called once the name alone proved ambiguous. With data, GIO breaks a tie between the name's
 * candidates by magic (a PNG signature picks image/png among image/png and image/apng) or
 * sniffs a name that matched nothing; with data that decides nothing it keeps the name's first
 * candidate (the highest glob weight), which is what a name with one candidate gets too. Empty
 * data is passed as none: GIO calls any empty file application/x-zerosize, whatever its name. */
static const char *
guess_from_data (const char *name, const guint8 *head, gsize head_len, char **owned)
{
  g_autofree char *guess = NULL;

  guess = g_content_type_guess (name, head_len > 0 ? head : NULL, MIN (head_len, LB_STORE_MIME_SNIFF_LEN), NULL);
  if (guess == NULL || g_content_type_is_unknown (guess))
    return LB_STORE_MIME_UNKNOWN;
  return mime_of (guess, owned);
}

const char *
lb_store_mime_type (const char *name, const guint8 *head, gsize head_len, char **owned)
{
  const char *type;

  *owned = NULL;
  if (guess_from_name (name, &type, owned))
    return type;
  return guess_from_data (name, head, head_len, owned);
}

const char *
lb_store_mime_type_of_file (const char *name, const char *abs, char **owned)
{
  guint8 head[LB_STORE_MIME_SNIFF_LEN];
  gsize got = 0;
  struct stat st;
  const char *type;
  int fd;

  *owned = NULL;
  if (guess_from_name (name, &type, owned))
    return type;
  /* Without blocking, and regular files only: a FIFO in the root must not hold the server. An
   * unreadable file is typed by its name alone. */
  fd = open (abs, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd >= 0 && fstat (fd, &st) == 0 && S_ISREG (st.st_mode))
    got = lb_store_fs_read_head (fd, head, sizeof head);
  if (fd >= 0)
    close (fd);
  return guess_from_data (name, head, got, owned);
}
