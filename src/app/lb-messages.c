/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-messages"

#include "config.h"

#include <glib/gi18n.h>

#include "lb-error.h"
#include "lb-messages.h"

/* By code; a code not listed has a message that is its own reason (LB_ERROR_INVALID_ARGUMENT,
 * LB_ERROR_FAILED), or is not worth more words. */
static const struct {
  int         code;
  const char *text;
} lb_words[] = {
  { LB_ERROR_NETWORK, N_("The store did not answer.") },
  { LB_ERROR_CONFLICT, N_("The file already exists, or someone changed it meanwhile.") },
  { LB_ERROR_PERMISSION, N_("The store refused access.") },
  { LB_ERROR_NOT_FOUND, N_("It is not there (any more).") },
  { LB_ERROR_HTTP, N_("The store answered with an error.") },
  { LB_ERROR_TRUNCATED, N_("The file ends too early: it is incomplete.") },
  { LB_ERROR_CORRUPT, N_("The file is damaged.") },
  { LB_ERROR_UNSUPPORTED, N_("Lightbox cannot read this kind of file.") },
  { LB_ERROR_TOO_LARGE, N_("The image is larger than Lightbox accepts.") },
  { LB_ERROR_NO_MEMORY, N_("There is not enough memory.") },
  { LB_ERROR_PLUGIN, N_("A filter plugin failed.") },
  { LB_ERROR_PARSE, N_("The store sent something Lightbox could not read.") },
}, io_words[] = {
  { G_IO_ERROR_EXISTS, N_("The file already exists.") },
  { G_IO_ERROR_NOT_FOUND, N_("The file or folder does not exist.") },
  { G_IO_ERROR_PERMISSION_DENIED, N_("Permission denied.") },
  { G_IO_ERROR_NO_SPACE, N_("The disk is full.") },
  { G_IO_ERROR_TIMED_OUT, N_("The store did not answer.") },
  { G_IO_ERROR_CONNECTION_REFUSED, N_("The store did not answer.") },
  { G_IO_ERROR_HOST_NOT_FOUND, N_("The store did not answer.") },
  { G_IO_ERROR_HOST_UNREACHABLE, N_("The store did not answer.") },
  { G_IO_ERROR_NETWORK_UNREACHABLE, N_("The store did not answer.") },
  { G_IO_ERROR_CONNECTION_CLOSED, N_("The store did not answer.") },
};

const char *
lb_messages_explain (const GError *error)
{
  g_return_val_if_fail (error != NULL, NULL);
  if (error->domain == LB_ERROR)
    {
      for (guint i = 0; i < G_N_ELEMENTS (lb_words); i++)
        if (lb_words[i].code == error->code)
          return _(lb_words[i].text);
    }
  else if (error->domain == G_IO_ERROR)
    {
      for (guint i = 0; i < G_N_ELEMENTS (io_words); i++)
        if (io_words[i].code == error->code)
          return _(io_words[i].text);
    }
  else if (error->domain == G_RESOLVER_ERROR)
    return _("The store did not answer.");
  else if (error->domain == G_TLS_ERROR)
    return _("The store’s certificate could not be verified.");
  return NULL;
}
