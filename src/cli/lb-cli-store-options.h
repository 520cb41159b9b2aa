/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "lb-store.h"

G_BEGIN_DECLS

/* Options shared by the commands that talk to stores (ls, get, put): credentials, TLS trust,
 * timeout and the store type. Passwords never go on the command line: LIGHTBOX_PASSWORD or
 * --password-file; tokens likewise LIGHTBOX_TOKEN or --token-file. */
GOptionGroup   *lb_cli_store_option_group (void);
/* Builds the options from what was parsed; NULL with @error on an unreadable file. */
LbStoreOptions *lb_cli_store_options      (GError **error);

G_END_DECLS
