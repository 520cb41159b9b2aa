/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* TLS for the tests: a self-signed certificate, and a server that must be trusted
 * explicitly. */

#include <libsoup/soup.h>

G_BEGIN_DECLS

/* A self-signed certificate for 127.0.0.1 (1 day): @openssl req writes @key and @cert. */
void         lb_test_make_self_signed (const char *openssl,
                                       const char *key,
                                       const char *cert);
/* GET @url twice: with the system's trust the handshake fails (G_TLS_ERROR_BAD_CERTIFICATE),
 * trusting @cert it answers 200 with @expected. Returns the trusting session. */
SoupSession *lb_test_check_https_get  (const char *url,
                                       const char *cert,
                                       GBytes     *expected);

G_END_DECLS
