/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-store.h"

G_BEGIN_DECLS

/* How a credentials request reaches whoever asked (the HTTP layer). Called once: with a
 * username/password, or a token, or all NULL for cancel. */
typedef void (*LbCredentialsAnswerFunc) (const char *username,
                                         const char *password,
                                         const char *token,
                                         gpointer    user_data);

LbCredentialsRequest *lb_credentials_request_new (const char              *scheme,
                                                  const char              *realm,
                                                  const char              *uri,
                                                  gboolean                 retrying,
                                                  LbCredentialsAnswerFunc  answer,
                                                  gpointer                 answer_data,
                                                  GDestroyNotify           answer_destroy);

/* Ends @task with @error (taking both): what every failed step of a backend operation does. */
void lb_store_task_fail (GTask  *task,
                         GError *error);

/* Generated (lb-store-backends.c): calls every function listed in stores_backend_inits. */
void lb_store_backends_init_extra (void);

G_END_DECLS
