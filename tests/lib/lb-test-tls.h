/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <libsoup/soup.h>

G_BEGIN_DECLS

/* Helpers shared by the lightbox-store TLS tests (in-process server and the CLI). */

/* A self-signed certificate for 127.0.0.1 (1 day): @openssl req writes @key and @cert. */
void         store_make_self_signed (const char *openssl,
                                     const char *key,
                                     const char *cert);
/* GET @url twice: with the system's trust the handshake fails (G_TLS_ERROR_BAD_CERTIFICATE),
 * trusting @cert it answers 200 with @expected. Returns the trusting session. */
SoupSession *store_check_https_get  (const char *url,
                                     const char *cert,
                                     GBytes     *expected);

G_END_DECLS
