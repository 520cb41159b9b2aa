/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <libxml/tree.h>

G_BEGIN_DECLS

/*
 * WebDAV XML for lightbox-store: parsing PROPFIND and PROPPATCH bodies (SAX2, with limits) and
 * writing 207 Multi-Status replies (PROPFIND's streamed by LbDavWriter), namespace-aware through
 * libxml2 (clients use whatever prefixes they like).
 */

#define LB_DAV_NS "DAV:"

/* Limits on PROPFIND and PROPPATCH bodies (over them: LB_ERROR_TOO_LARGE, a 413). Clients ask
 * for a dozen properties; an answer repeats every requested name in every entry, so the names
 * are what bounds the size of an entry. */
#define LB_DAV_MAX_PROPS      128  /* property names */
#define LB_DAV_MAX_PROP_BYTES 8192 /* their local names and namespace URIs together */
#define LB_DAV_MAX_ELEMENTS   4096 /* elements of the whole body */

/* Bytes of answer lb_dav_writer_take() is best called at. */
#define LB_DAV_WRITER_CHUNK   (64 * 1024)

typedef enum {
  LB_DAV_PROPFIND_ALLPROP,
  LB_DAV_PROPFIND_PROPNAME,
  LB_DAV_PROPFIND_PROP,
} LbDavPropfindKind;

typedef struct {
  char *ns;   /* namespace URI, "" for none */
  char *name; /* local name */
} LbDavPropName;

/* What PROPFIND reports about one resource. */
typedef struct {
  const char *href;         /* percent-encoded absolute path */
  const char *displayname;
  gboolean    collection;
  guint64     size;
  gint64      mtime_s;      /* seconds since the epoch, UTC */
  gint64      ctime_s;      /* creation (birth) time when known, else mtime */
  const char *etag;         /* quoted strong ETag, NULL for collections */
  const char *content_type;
} LbDavResource;

void       lb_dav_prop_name_free (LbDavPropName *p);

gboolean   lb_dav_parse_propfind (const char        *body,
                                  gsize              len,
                                  LbDavPropfindKind *kind_out,
                                  GPtrArray        **names_out,
                                  GError           **error);

gboolean   lb_dav_parse_propertyupdate (const char *body,
                                        gsize       len,
                                        GPtrArray **names_out,
                                        GError    **error);

xmlDocPtr  lb_dav_multistatus_new (void);
void       lb_dav_multistatus_add_propstat (xmlDocPtr   doc,
                                            const char *href,
                                            GPtrArray  *names,
                                            guint       status,
                                            const char *condition);
void       lb_dav_multistatus_add_status (xmlDocPtr   doc,
                                          const char *href,
                                          guint       status);
GBytes    *lb_dav_doc_to_bytes (xmlDocPtr doc);

typedef struct _LbDavWriter LbDavWriter;

LbDavWriter *lb_dav_writer_new     (LbDavPropfindKind    kind,
                                    GPtrArray           *names);
void         lb_dav_writer_add     (LbDavWriter         *w,
                                    const LbDavResource *res);
void         lb_dav_writer_finish  (LbDavWriter         *w);
gsize        lb_dav_writer_pending (LbDavWriter         *w);
GBytes      *lb_dav_writer_take    (LbDavWriter         *w);
void         lb_dav_writer_free    (LbDavWriter         *w);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LbDavWriter, lb_dav_writer_free)
GBytes    *lb_dav_error_body (const char *condition);

char      *lb_dav_format_rfc1123 (gint64 unix_s);
char      *lb_dav_format_iso8601 (gint64 unix_s);

G_END_DECLS
