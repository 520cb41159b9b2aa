/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>
#include <libsoup/soup.h>

G_BEGIN_DECLS

#define LB_TYPE_STORE_AUTH (lb_store_auth_get_type ())
G_DECLARE_FINAL_TYPE (LbStoreAuth, lb_store_auth, LB, STORE_AUTH, GObject)

typedef enum {
  LB_STORE_AUTH_ANONYMOUS, /* no Authorization header */
  LB_STORE_AUTH_OK,        /* valid bearer token or Basic credentials */
  LB_STORE_AUTH_DENIED,    /* credentials given but wrong, or an unknown scheme */
  LB_STORE_AUTH_PENDING,   /* Basic credentials: only a password hash can tell */
} LbStoreAuthResult;

LbStoreAuth      *lb_store_auth_new              (void);
gboolean          lb_store_auth_load_tokens      (LbStoreAuth *self,
                                                  const char  *path,
                                                  GError     **error);
gboolean          lb_store_auth_load_passwd      (LbStoreAuth *self,
                                                  const char  *path,
                                                  GError     **error);
gboolean          lb_store_auth_is_enabled       (LbStoreAuth *self);
LbStoreAuthResult lb_store_auth_check_cached     (LbStoreAuth *self,
                                                  const char  *authorization,
                                                  char       **user_out);
LbStoreAuthResult lb_store_auth_verify           (LbStoreAuth *self,
                                                  const char  *authorization,
                                                  char       **user_out,
                                                  char       **method_out);
void              lb_store_auth_add_challenges   (LbStoreAuth        *self,
                                                  SoupMessageHeaders *headers);
char             *lb_store_auth_hash_password    (const char *password,
                                                  GError    **error);

G_END_DECLS
