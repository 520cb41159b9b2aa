/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * Mapping of request paths to files below the store root, with every traversal trick refused.
 * These are plain functions (no type): the rules live in one place so the server, its tests
 * and any future front end agree on them.
 */

typedef enum {
  LB_STORE_PATH_OK = 0,
  LB_STORE_PATH_BAD_REQUEST = 400, /* NUL, encoded '/', backslash, invalid UTF-8, control characters */
  LB_STORE_PATH_FORBIDDEN = 403,   /* '.' or '..' segments */
} LbStorePathStatus;

/* The directory (relative to the root) that publishes declarative filters. */
#define LB_STORE_FILTER_DIR ".lightbox/filters"
#define LB_STORE_FILTER_SUFFIX ".lbfilter"
/* Prefix of upload temporaries; dotfiles are never listed nor served. */
#define LB_STORE_TEMP_PREFIX ".lbput-"

LbStorePathStatus lb_store_path_decode (const char *encoded_path,
                                        char      **rel_out,
                                        gboolean   *trailing_slash_out);

LbStorePathStatus lb_store_path_check_decoded (const char *decoded_path,
                                               char      **rel_out,
                                               gboolean   *trailing_slash_out);

gboolean lb_store_path_is_hidden (const char *rel);
gboolean lb_store_path_is_in_filter_repo (const char *rel);

char *lb_store_path_encode (const char *rel, gboolean collection);

gboolean lb_store_path_is_contained (const char *root_real, const char *abs_path);

gboolean lb_store_path_is_inside (const char *parent, const char *child);

gboolean lb_store_path_is_filter_repo_dir (const char *rel);
LbStorePathStatus lb_store_path_check_creatable (const char *rel, gboolean collection);

G_END_DECLS
