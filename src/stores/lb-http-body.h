/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* The request body kept with a message (lb-http-body.c), for lb-http.c's sending. */

#include <libsoup/soup.h>

G_BEGIN_DECLS

/* Before each attempt of lb_http_send_async(): the whole body again, unless this is the
 * first. Nothing for a message without a body. */
void     _lb_http_request_body_rewind (SoupMessage *msg);
/* TRUE when libsoup asked for the body of @msg again and its stream could not be read twice
 * (so the attempt fails rather than send something else). */
gboolean _lb_http_request_body_spent  (SoupMessage *msg);

G_END_DECLS
