/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <libsoup/soup.h>

#include "lb-store-auth.h"
#include "lb-store-request.h"
#include "lb-store-server.h"

G_BEGIN_DECLS

/*
 * Password checks off the main loop. Basic credentials not verified before cost a password
 * hash, 20-80 ms of CPU with yescrypt: on the main loop, forty wrong passwords a second held
 * every other client up for seconds. The early handler pauses such a request and queues its
 * check to a small pool of worker threads (LB_STORE_VERIFY_THREADS, at most
 * LB_STORE_VERIFY_QUEUE waiting: beyond, 503); the result resumes the request on the main
 * loop. Checks that fail are counted per client address (IPv6: per /64 prefix) in a token
 * bucket of LB_STORE_AUTH_FAIL_BURST that refills one every LB_STORE_AUTH_FAIL_REFILL_S
 * seconds; a client out of tokens gets 429 with Retry-After before any hash is computed.
 * Credentials verified before are answered from the cache (lb-store-auth.c) without a check,
 * throttled address or not.
 */

#define LB_STORE_VERIFY_QUEUE        64
#define LB_STORE_AUTH_FAIL_BURST     20
#define LB_STORE_AUTH_FAIL_REFILL_S  1

typedef struct _LbStoreVerifier LbStoreVerifier;

/* Called on the main loop with the verdict of a check lb_store_verifier_start() queued,
 * unless the server stopped meanwhile; @user (transfer full) is set for LB_STORE_AUTH_OK.
 * The request is still paused: the callback resumes it. */
typedef void (*LbStoreVerifyDone) (LbStoreServer     *server,
                                   SoupServerMessage *msg,
                                   LbStoreAuthResult  result,
                                   char              *user);

LbStoreVerifier *lb_store_verifier_new   (void);
void             lb_store_verifier_free  (LbStoreVerifier   *self);
gboolean         lb_store_verifier_start (LbStoreVerifier   *self,
                                          LbStoreServer     *server,
                                          SoupServerMessage *msg,
                                          const char        *authorization,
                                          LbStoreVerifyDone  done);

G_END_DECLS
