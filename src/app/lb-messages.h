/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* What failed, in the words a radiologist reads: "The store did not answer.", "The file
 * already exists." — for @error's domain and code, or NULL when its message is already plain
 * (it then is the explanation itself) or unknown. The technical message (method, URL, status,
 * ETag) goes behind the error dialog's Details. (transfer none) */
const char *lb_messages_explain (const GError *error);

G_END_DECLS
