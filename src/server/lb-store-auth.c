/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-store-auth"

#include "lb-store-auth.h"

#include <crypt.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lb-error.h"

#define LB_STORE_REALM "lightbox-store"

/*
 * Authentication for lightbox-store.
 *
 * Tokens (--token-file): one per line, blank lines and '#' comments ignored. A presented
 * token is compared with every configured one through their SHA-256 digests, so the
 * comparison time does not depend on where the strings differ.
 *
 * Passwords (--passwd-file): "user:hash" lines, the hash in crypt(3) form as produced by
 * `lightbox-store --hash-password USER` (yescrypt, "$y$…", salted by libxcrypt); SHA-512-crypt
 * ($6$), bcrypt and scrypt are taken too, the methods libxcrypt calls legacy (MD5-crypt, ...)
 * are refused. Verified credentials are remembered as a keyed SHA-256 of the whole
 * Authorization header, so a keep-alive client does not pay yescrypt's deliberate cost (tens
 * of ms) on every request. The hash itself (lb_store_auth_verify()) is for a worker thread:
 * the server never runs it on its main loop (lb-store-verify.c).
 *
 * An unknown user name is hashed too, against a hash of the method and cost of the file's
 * own entries (the most common ones if they differ), so that the time of an answer does not
 * tell which names exist.
 */

struct _LbStoreAuth
{
  GObject parent_instance;

  GPtrArray  *token_digests; /* (element-type GBytes) SHA-256 of each configured token */
  GHashTable *users;         /* user name → crypt(3) hash */
  GHashTable *verified;      /* keyed digest of a good Basic header → user name */
  guint8      cache_key[32]; /* random per process: the cache never holds a usable secret */
  char       *dummy_setting; /* hashed against for unknown users: same method and cost as
                              * the entries (yescrypt while there are none) */
  char       *dummy_method;  /* its method and cost ("$y$j9T$"), for diagnostics */
  char       *hold_path;     /* (nullable) tests only: hashes wait until this file exists */
  GMutex      lock;          /* the verified cache may be touched from several threads */
};

G_DEFINE_FINAL_TYPE (LbStoreAuth, lb_store_auth, G_TYPE_OBJECT)

static void
lb_store_auth_finalize (GObject *object)
{
  LbStoreAuth *self = LB_STORE_AUTH (object);

  g_ptr_array_unref (self->token_digests);
  g_hash_table_unref (self->users);
  g_hash_table_unref (self->verified);
  g_mutex_clear (&self->lock);
  g_free (self->dummy_setting);
  g_free (self->dummy_method);
  g_free (self->hold_path);
  G_OBJECT_CLASS (lb_store_auth_parent_class)->finalize (object);
}

static void
lb_store_auth_class_init (LbStoreAuthClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = lb_store_auth_finalize;
}

static void
lb_store_auth_init (LbStoreAuth *self)
{
  self->token_digests = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  self->users = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->verified = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < G_N_ELEMENTS (self->cache_key); i++)
    self->cache_key[i] = (guint8) g_random_int_range (0, 256);
  g_mutex_init (&self->lock);
  {
    char *setting = crypt_gensalt_ra ("$y$", 0, NULL, 0);

    self->dummy_setting = g_strdup (setting);
    free (setting);
  }
  self->dummy_method = g_strdup ("$y$");
  /* For tests only, unset otherwise: with LB_STORE_TEST_HOLD_HASHES naming a file, every
   * password hash waits until that file exists, so that a test can fill the bounded queue of
   * checks (lb-store-verify.h) and see what is refused, without relying on hashes being slow
   * enough (tests/hardening/test-store-dos-auth.c). Read once, here on the main thread. */
  self->hold_path = g_strdup (g_getenv ("LB_STORE_TEST_HOLD_HASHES"));
}

LbStoreAuth *
lb_store_auth_new (void)
{
  return g_object_new (LB_TYPE_STORE_AUTH, NULL);
}

static GBytes *
sha256 (const char *data, gsize len)
{
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  guint8 digest[32];
  gsize digest_len = sizeof digest;

  g_checksum_update (sum, (const guchar *) data, len);
  g_checksum_get_digest (sum, digest, &digest_len);
  return g_bytes_new (digest, digest_len);
}

/* Equal-length comparison whose time does not depend on the contents. */
static gboolean
const_time_equal (const guint8 *a, const guint8 *b, gsize n)
{
  guint8 diff = 0;

  for (gsize i = 0; i < n; i++)
    diff |= a[i] ^ b[i];
  return diff == 0;
}

static char **
read_lines (const char *path, GError **error)
{
  g_autofree char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, error))
    return NULL;
  return g_strsplit (contents, "\n", -1);
}

gboolean
lb_store_auth_load_tokens (LbStoreAuth *self, const char *path, GError **error)
{
  g_auto(GStrv) lines = read_lines (path, error);
  guint added = 0;

  g_return_val_if_fail (LB_IS_STORE_AUTH (self), FALSE);

  if (lines == NULL)
    {
      g_prefix_error (error, "Cannot read token file: ");
      return FALSE;
    }
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *t = g_strstrip (lines[i]);

      if (t[0] == '\0' || t[0] == '#')
        continue;
      g_ptr_array_add (self->token_digests, sha256 (t, strlen (t)));
      added++;
    }
  if (added == 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "Token file %s holds no token", path);
      return FALSE;
    }
  return TRUE;
}

/*
 * The method and cost of a crypt(3) hash, without its salt and digest: "$y$j9T$",
 * "$6$rounds=5000$", "$2b$12$". Two hashes with the same prefix take the same time.
 */
static char *
hash_method (const char *hash)
{
  const char *last, *p;

  if (g_str_has_prefix (hash, "$2a$") || g_str_has_prefix (hash, "$2b$") || g_str_has_prefix (hash, "$2y$"))
    return g_strndup (hash, MIN (strlen (hash), 7)); /* $2b$NN$ then salt and digest unbroken */
  if (g_str_has_prefix (hash, "$7$"))
    return g_strndup (hash, MIN (strlen (hash), 14)); /* N, r and p in 11 characters */
  last = strrchr (hash, '$');
  if (last == hash)
    return g_strdup (hash);
  for (p = last - 1; p > hash && *p != '$'; p--)
    ;
  return g_strndup (hash, (gsize) (p - hash) + 1);
}

/* Makes the hash of unknown users the entries' method and cost: the most common one when
 * they differ, and then says that those of the others can be told apart by timing. */
static void
choose_dummy (LbStoreAuth *self, const char *path)
{
  g_autoptr(GHashTable) counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTableIter iter;
  gpointer key, value;
  guint best = 0;

  g_hash_table_iter_init (&iter, self->users);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      char *method = hash_method (value);
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (counts, method)) + 1;

      g_hash_table_replace (counts, method, GUINT_TO_POINTER (n));
      if (n > best)
        {
          best = n;
          g_free (self->dummy_setting);
          g_free (self->dummy_method);
          /* An entry's own hash serves as the setting: crypt(3) takes method, cost and salt
           * from it. No unknown name can match (the user must exist). */
          self->dummy_setting = g_strdup (value);
          self->dummy_method = g_strdup (method);
        }
    }
  if (g_hash_table_size (counts) > 1)
    g_warning ("%s mixes hash methods or costs: the time of a refusal tells users of the "
               "others (%s is used for unknown names); make all hashes with --hash-password",
               path, self->dummy_method);
}

gboolean
lb_store_auth_load_passwd (LbStoreAuth *self, const char *path, GError **error)
{
  g_auto(GStrv) lines = read_lines (path, error);
  guint added = 0;

  g_return_val_if_fail (LB_IS_STORE_AUTH (self), FALSE);

  if (lines == NULL)
    {
      g_prefix_error (error, "Cannot read password file: ");
      return FALSE;
    }
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *l = g_strstrip (lines[i]);
      char *colon;

      if (l[0] == '\0' || l[0] == '#')
        continue;
      colon = strchr (l, ':');
      /* Only salted crypt(3) hashes ("$id$…") are accepted: never a plain password. */
      if (colon == NULL || colon == l || colon[1] != '$')
        {
          g_set_error (error, LB_ERROR, LB_ERROR_PARSE,
                       "%s:%u: expected user:$id$salt$hash (see --hash-password)", path, i + 1);
          return FALSE;
        }
      *colon = '\0';
      /* libxcrypt's verdict: MD5-crypt ($1$), DES, NT and SHA-256-crypt ($5$) are legacy
       * methods, fast enough to guess passwords offline and to tell users apart by timing. */
      switch (crypt_checksalt (colon + 1))
        {
        case CRYPT_SALT_OK:
          break;
        case CRYPT_SALT_METHOD_LEGACY:
          g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                       "%s:%u: user %s has a%s hash, a method too fast to resist guessing; make "
                       "a new one with --hash-password", path, i + 1, l,
                       g_str_has_prefix (colon + 1, "$1$") ? "n MD5-crypt ($1$)" : " legacy");
          return FALSE;
        default:
          g_set_error (error, LB_ERROR, LB_ERROR_UNSUPPORTED,
                       "%s:%u: the hash of user %s is not one libxcrypt can check (see "
                       "--hash-password)", path, i + 1, l);
          return FALSE;
        }
      g_hash_table_replace (self->users, g_strdup (l), g_strdup (colon + 1));
      added++;
    }
  if (added == 0)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
                   "Password file %s holds no user", path);
      return FALSE;
    }
  choose_dummy (self, path);
  return TRUE;
}

gboolean
lb_store_auth_is_enabled (LbStoreAuth *self)
{
  return self != NULL &&
         (self->token_digests->len > 0 || g_hash_table_size (self->users) > 0);
}

static char *
cache_key_for (LbStoreAuth *self, const char *header)
{
  g_autoptr(GHmac) hmac = g_hmac_new (G_CHECKSUM_SHA256, self->cache_key, sizeof self->cache_key);

  g_hmac_update (hmac, (const guchar *) header, -1);
  return g_strdup (g_hmac_get_string (hmac));
}

/* The user of a Basic header verified before, from the cache; NULL if it was not. */
static char *
cached_user (LbStoreAuth *self, const char *header)
{
  g_autofree char *key = cache_key_for (self, header);
  char *user;

  g_mutex_lock (&self->lock);
  user = g_strdup (g_hash_table_lookup (self->verified, key));
  g_mutex_unlock (&self->lock);
  return user;
}

static LbStoreAuthResult
check_basic (LbStoreAuth *self, const char *header, const char *b64, char **user_out,
             char **method_out)
{
  g_autofree guchar *decoded = NULL;
  g_autofree char *creds = NULL;
  gsize len = 0;
  const char *stored;
  char *colon;
  struct crypt_data *data;
  const char *hashed;
  gboolean ok;

  if ((*user_out = cached_user (self, header)) != NULL)
    return LB_STORE_AUTH_OK;
  decoded = g_base64_decode (b64, &len);
  if (decoded == NULL || len == 0)
    return LB_STORE_AUTH_DENIED;
  creds = g_strndup ((const char *) decoded, len);
  if (strlen (creds) != len)
    return LB_STORE_AUTH_DENIED; /* embedded NUL */
  colon = strchr (creds, ':');
  if (colon == NULL)
    return LB_STORE_AUTH_DENIED;
  *colon = '\0';

  if (self->hold_path != NULL)
    {
      g_debug ("password hash held until %s exists", self->hold_path);
      while (!g_file_test (self->hold_path, G_FILE_TEST_EXISTS))
        g_usleep (10000);
    }
  stored = g_hash_table_lookup (self->users, creds);
  /* Hash even for unknown users (against a hash of the entries' own method and cost) so
   * timing does not tell which user names exist. */
  data = g_new0 (struct crypt_data, 1);
  hashed = crypt_r (colon + 1,
                    stored != NULL ? stored : self->dummy_setting,
                    data);
  if (method_out != NULL)
    *method_out = stored != NULL ? hash_method (stored) : g_strdup (self->dummy_method);
  ok = stored != NULL && hashed != NULL && hashed[0] != '*' &&
       strlen (hashed) == strlen (stored) &&
       const_time_equal ((const guint8 *) hashed, (const guint8 *) stored, strlen (stored));
  explicit_bzero (data, sizeof *data);
  g_free (data);
  explicit_bzero (colon + 1, strlen (colon + 1));
  if (!ok)
    return LB_STORE_AUTH_DENIED;

  g_mutex_lock (&self->lock);
  g_hash_table_replace (self->verified, cache_key_for (self, header), g_strdup (creds));
  g_mutex_unlock (&self->lock);
  *user_out = g_strdup (creds);
  return LB_STORE_AUTH_OK;
}

static LbStoreAuthResult
check_bearer (LbStoreAuth *self, const char *token, char **user_out)
{
  g_autoptr(GBytes) presented = sha256 (token, strlen (token));
  gint found = -1;

  /* Walk all tokens whatever matches, so the time does not reveal which line matched. */
  for (guint i = 0; i < self->token_digests->len; i++)
    {
      GBytes *d = g_ptr_array_index (self->token_digests, i);

      if (const_time_equal (g_bytes_get_data (d, NULL), g_bytes_get_data (presented, NULL), 32) &&
          found < 0)
        found = (gint) i;
    }
  if (found < 0)
    return LB_STORE_AUTH_DENIED;
  /* The token itself is never logged: the audit name is its line rank in the file. */
  *user_out = g_strdup_printf ("token#%d", found + 1);
  return LB_STORE_AUTH_OK;
}

/* The Basic credentials after "Basic ", or NULL when @authorization is not Basic (or no
 * user is configured). */
static const char *
basic_credentials (LbStoreAuth *self, const char *authorization)
{
  const char *p = authorization;

  if (g_ascii_strncasecmp (p, "Basic ", 6) != 0 || g_hash_table_size (self->users) == 0)
    return NULL;
  for (p += 6; *p == ' '; p++)
    ;
  return p;
}

static LbStoreAuthResult
check_cheap (LbStoreAuth *self, const char *authorization, char **user_out)
{
  const char *p;

  *user_out = NULL;
  if (authorization == NULL)
    return LB_STORE_AUTH_ANONYMOUS;
  if (!lb_store_auth_is_enabled (self))
    return LB_STORE_AUTH_DENIED;
  if (basic_credentials (self, authorization) != NULL)
    {
      *user_out = cached_user (self, authorization);
      return *user_out != NULL ? LB_STORE_AUTH_OK : LB_STORE_AUTH_PENDING;
    }
  p = authorization;
  if (g_ascii_strncasecmp (p, "Bearer ", 7) == 0 && self->token_digests->len > 0)
    {
      p += 7;
      while (*p == ' ')
        p++;
      return check_bearer (self, p, user_out);
    }
  return LB_STORE_AUTH_DENIED;
}

/*
 * lb_store_auth_check_cached:
 * @authorization: (nullable): the request's Authorization header
 * @user_out: (out): the authenticated user name for the access log, on LB_STORE_AUTH_OK
 *
 * Everything that is cheap: no header (ANONYMOUS), bearer tokens, Basic credentials verified
 * before, and what is refused without a hash. LB_STORE_AUTH_PENDING: Basic credentials that
 * only lb_store_auth_verify() can decide, at the cost of a password hash.
 */
LbStoreAuthResult
lb_store_auth_check_cached (LbStoreAuth *self, const char *authorization, char **user_out)
{
  LbStoreAuthResult r = check_cheap (self, authorization, user_out);

  /* One line per request that needs a hash (tests count them to know when every request of
   * a burst has been seen). */
  if (r == LB_STORE_AUTH_PENDING)
    g_debug ("Basic credentials not verified before: a password hash decides");
  return r;
}

/*
 * lb_store_auth_verify:
 * @authorization: (nullable): the request's Authorization header
 * @user_out: (out): the authenticated user name for the access log, on LB_STORE_AUTH_OK
 * @method_out: (out) (optional): for Basic credentials that were hashed, the method and cost
 *   used ("$y$j9T$"), for diagnostics
 *
 * The whole check, password hash included (tens of ms for yescrypt): safe in any thread.
 */
LbStoreAuthResult
lb_store_auth_verify (LbStoreAuth *self, const char *authorization, char **user_out,
                      char **method_out)
{
  LbStoreAuthResult r = check_cheap (self, authorization, user_out);
  const char *b64;

  if (method_out != NULL)
    *method_out = NULL;
  if (r != LB_STORE_AUTH_PENDING)
    return r;
  b64 = basic_credentials (self, authorization);
  return check_basic (self, authorization, b64, user_out, method_out);
}

void
lb_store_auth_add_challenges (LbStoreAuth *self, SoupMessageHeaders *headers)
{
  if (g_hash_table_size (self->users) > 0)
    soup_message_headers_append (headers, "WWW-Authenticate",
                                 "Basic realm=\"" LB_STORE_REALM "\", charset=\"UTF-8\"");
  if (self->token_digests->len > 0)
    soup_message_headers_append (headers, "WWW-Authenticate",
                                 "Bearer realm=\"" LB_STORE_REALM "\"");
}

/*
 * lb_store_auth_hash_password:
 *
 * Returns a salted yescrypt hash ("$y$…") of @password, from libxcrypt's default cost.
 */
char *
lb_store_auth_hash_password (const char *password, GError **error)
{
  g_autofree char *setting = NULL;
  struct crypt_data *data;
  char *result = NULL;
  const char *hashed;

  if (password == NULL || password[0] == '\0')
    {
      g_set_error_literal (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT, "Empty password");
      return NULL;
    }
  setting = crypt_gensalt_ra ("$y$", 0, NULL, 0);
  if (setting == NULL)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_FAILED,
                   "Cannot make a yescrypt salt: %s", g_strerror (errno));
      return NULL;
    }
  data = g_new0 (struct crypt_data, 1);
  hashed = crypt_r (password, setting, data);
  if (hashed == NULL || hashed[0] == '*')
    g_set_error (error, LB_ERROR, LB_ERROR_FAILED, "crypt(3) failed: %s", g_strerror (errno));
  else
    result = g_strdup (hashed);
  explicit_bzero (data, sizeof *data);
  g_free (data);
  return result;
}
