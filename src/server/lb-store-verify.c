/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store-server"

#include "lb-store-verify.h"

#include <math.h>
#include <string.h>

#include "lb-store-reply.h"
#include "lb-store-server-private.h"

/* Failed checks of one client address (token bucket, main thread only). */
typedef struct
{
  double tokens;
  gint64 refilled_us; /* monotonic */
} Bucket;

/* Buckets kept before full ones are dropped, and at most: past that, every new address
 * shares one bucket, so a client spread over many addresses gains nothing. */
#define BUCKETS_PRUNE 4096
#define BUCKETS_MAX   65536

struct _LbStoreVerifier
{
  GThreadPool *pool;
  GHashTable  *buckets; /* client key → Bucket */
};

typedef struct
{
  LbStoreVerifier   *verifier; /* (unowned) the server owns it and outlives the job */
  LbStoreServer     *server;   /* (owned) */
  SoupServerMessage *msg;      /* (owned) paused until the verdict */
  LbStoreAuth       *auth;     /* (owned) */
  GMainContext      *context;  /* (owned) the server's */
  char              *authorization;
  char              *client;   /* bucket key */
  LbStoreVerifyDone  done;
  /* results */
  LbStoreAuthResult  result;
  char              *user;
} VerifyJob;

static void
verify_job_free (gpointer data)
{
  VerifyJob *job = data;

  g_object_unref (job->server);
  g_object_unref (job->msg);
  g_object_unref (job->auth);
  g_main_context_unref (job->context);
  if (job->authorization != NULL)
    explicit_bzero (job->authorization, strlen (job->authorization));
  g_free (job->authorization);
  g_free (job->client);
  g_free (job->user);
  g_free (job);
}

/* The bucket key of the client of @msg: its address, for IPv6 its /64 (one host usually has a
 * whole /64); "" when unknown. */
static char *
client_key (SoupServerMessage *msg)
{
  GSocketAddress *sa = soup_server_message_get_remote_address (msg);
  GInetAddress *ia;
  const guint8 *b;

  if (sa == NULL || !G_IS_INET_SOCKET_ADDRESS (sa))
    return g_strdup ("");
  ia = g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (sa));
  if (g_inet_address_get_family (ia) == G_SOCKET_FAMILY_IPV4 ||
      g_inet_address_get_is_loopback (ia))
    return g_inet_address_to_string (ia);
  b = g_inet_address_to_bytes (ia);
  /* IPv4-mapped (::ffff:a.b.c.d): the IPv4 address. */
  if (memcmp (b, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) == 0)
    return g_strdup_printf ("%u.%u.%u.%u", b[12], b[13], b[14], b[15]);
  return g_strdup_printf ("%02x%02x:%02x%02x:%02x%02x:%02x%02x::/64",
                          b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]);
}

static Bucket *
bucket_for (LbStoreVerifier *self, const char *key, gint64 now)
{
  Bucket *b = g_hash_table_lookup (self->buckets, key);

  if (b != NULL)
    {
      double refill = (double) (now - b->refilled_us) / (LB_STORE_AUTH_FAIL_REFILL_S * G_USEC_PER_SEC);

      b->tokens = MIN ((double) LB_STORE_AUTH_FAIL_BURST, b->tokens + refill);
      b->refilled_us = now;
      return b;
    }
  if (g_hash_table_size (self->buckets) >= BUCKETS_PRUNE)
    {
      GHashTableIter iter;
      gpointer value;

      /* Full buckets are what a new one would be: forget them. */
      g_hash_table_iter_init (&iter, self->buckets);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        {
          Bucket *o = value;

          if (o->tokens + (double) (now - o->refilled_us) / (LB_STORE_AUTH_FAIL_REFILL_S * G_USEC_PER_SEC)
              >= LB_STORE_AUTH_FAIL_BURST)
            g_hash_table_iter_remove (&iter);
        }
      if (g_hash_table_size (self->buckets) >= BUCKETS_MAX)
        return bucket_for (self, "*", now);
    }
  b = g_new (Bucket, 1);
  b->tokens = LB_STORE_AUTH_FAIL_BURST;
  b->refilled_us = now;
  g_hash_table_insert (self->buckets, g_strdup (key), b);
  return b;
}

/* Main thread: the verdict. */
static gboolean
verify_job_finish (gpointer data)
{
  VerifyJob *job = data;

  /* The token taken at the start is given back when the credentials were good. */
  if (job->result == LB_STORE_AUTH_OK)
    {
      Bucket *b = bucket_for (job->verifier, job->client, g_get_monotonic_time ());

      b->tokens = MIN ((double) LB_STORE_AUTH_FAIL_BURST, b->tokens + 1);
    }
  /* A stopped server has dropped its connections: nothing left to resume. */
  if (!job->server->stopped)
    job->done (job->server, job->msg, job->result, g_steal_pointer (&job->user));
  return G_SOURCE_REMOVE;
}

/* Worker thread: the hash. */
static void
verify_thread (gpointer data, gpointer pool_data)
{
  VerifyJob *job = data;
  g_autofree char *method = NULL;

  job->result = lb_store_auth_verify (job->auth, job->authorization, &job->user, &method);
  /* Tests count these lines (G_MESSAGES_DEBUG=lb-store-server): every hash runs here. */
  g_debug ("password checked in a worker thread: %s, hash method %s",
           job->result == LB_STORE_AUTH_OK ? "accepted" : "refused",
           method != NULL ? method : "none");
  g_main_context_invoke_full (job->context, G_PRIORITY_DEFAULT, verify_job_finish, job, verify_job_free);
}

LbStoreVerifier *
lb_store_verifier_new (void)
{
  LbStoreVerifier *self = g_new0 (LbStoreVerifier, 1);
  guint threads = MAX (1, g_get_num_processors () / 2);

  self->pool = g_thread_pool_new (verify_thread, self, (gint) threads, FALSE, NULL);
  self->buckets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return self;
}

void
lb_store_verifier_free (LbStoreVerifier *self)
{
  if (self == NULL)
    return;
  /* Every job holds a reference to the server that owns this: the pool is idle here. */
  g_thread_pool_free (self->pool, FALSE, TRUE);
  g_hash_table_unref (self->buckets);
  g_free (self);
}

/*
 * lb_store_verifier_start:
 * @authorization: Basic credentials lb_store_auth_check_cached() left PENDING
 *
 * Pauses @msg and queues the check: @done gets the verdict. Returns FALSE when @msg was
 * answered here instead: 429 when its client has failed too often, 503 when the queue is full.
 */
gboolean
lb_store_verifier_start (LbStoreVerifier   *self,
                         LbStoreServer     *server,
                         SoupServerMessage *msg,
                         const char        *authorization,
                         LbStoreVerifyDone  done)
{
  SoupMessageHeaders *rh = soup_server_message_get_response_headers (msg);
  g_autofree char *key = client_key (msg);
  Bucket *b = bucket_for (self, key, g_get_monotonic_time ());
  VerifyJob *job;

  if (b->tokens < 1)
    {
      g_autofree char *after = g_strdup_printf ("%d", (int) ceil ((1 - b->tokens) * LB_STORE_AUTH_FAIL_REFILL_S));

      lb_store_reply_refuse (msg, LB_STORE_STATUS_TOO_MANY_REQUESTS,
                             "too many failed logins from this address");
      soup_message_headers_replace (rh, "Retry-After", after);
      return FALSE;
    }
  if (g_thread_pool_unprocessed (self->pool) >= LB_STORE_VERIFY_QUEUE)
    {
      lb_store_reply_refuse (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, "too many logins at once");
      soup_message_headers_replace (rh, "Retry-After", "1");
      return FALSE;
    }
  b->tokens -= 1;
  job = g_new0 (VerifyJob, 1);
  job->verifier = self;
  job->server = g_object_ref (server);
  job->msg = g_object_ref (msg);
  job->auth = g_object_ref (server->auth);
  job->context = g_main_context_ref_thread_default ();
  job->authorization = g_strdup (authorization);
  job->client = g_steal_pointer (&key);
  job->done = done;
  soup_server_message_pause (msg);
  g_thread_pool_push (self->pool, job, NULL);
  return TRUE;
}
