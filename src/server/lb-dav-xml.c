/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dav-xml"

#include "lb-dav-xml.h"

#include <string.h>
#include <libsoup/soup.h>
#include <libxml/parser.h>
#include <libxml/xmlsave.h>
#include <libxml/xmlwriter.h>

#include "lb-error.h"

/* The live properties lightbox-store reports, all in the DAV: namespace. */
static const char *const live_props[] = {
  "creationdate", "displayname", "getcontentlength", "getcontenttype",
  "getetag", "getlastmodified", "resourcetype",
};

void
lb_dav_prop_name_free (LbDavPropName *p)
{
  if (p == NULL)
    return;
  g_free (p->ns);
  g_free (p->name);
  g_free (p);
}

/*
 * Request bodies are read with libxml2's SAX2 push parser, never into a tree: the names are
 * collected as the elements go by and the parse stops at the first name over the limits below,
 * so a 1 MiB body of empty elements costs neither a 262 144-node tree nor an answer that
 * repeats every name for every entry. No entity is ever declared to the parser (no entityDecl
 * handler), so an internal DTD cannot expand anything (billion laughs) and a reference to one
 * is a well-formedness error; nothing is loaded from the network or from a DTD (XXE).
 */
typedef enum {
  COLLECT_PROPFIND,
  COLLECT_PROPERTYUPDATE,
} CollectMode;

typedef struct
{
  xmlParserCtxtPtr  ctxt;
  CollectMode       mode;
  const char       *what;       /* "PROPFIND" or "PROPPATCH", for messages */
  guint             depth;      /* of the element being read, the root at 1 */
  guint             elements;
  guint             names_depth; /* property names are the children of the element at this
                                  * depth while it is open; 0 outside one */
  gboolean          chosen;     /* PROPFIND: allprop, propname or prop seen */
  LbDavPropfindKind kind;
  GPtrArray        *names;
  gsize             name_bytes;
  GError           *error;
} Collector;

static gboolean
uri_is_dav (const xmlChar *uri)
{
  return uri != NULL && strcmp ((const char *) uri, LB_DAV_NS) == 0;
}

static gboolean
is_dav_name (const xmlChar *localname, const xmlChar *uri, const char *name)
{
  return uri_is_dav (uri) && strcmp ((const char *) localname, name) == 0;
}

static void
collector_fail (Collector *c, gint code, const char *format, ...) G_GNUC_PRINTF (3, 4);

static void
collector_fail (Collector *c, gint code, const char *format, ...)
{
  va_list args;

  if (c->error == NULL)
    {
      va_start (args, format);
      c->error = g_error_new_valist (LB_ERROR, code, format, args);
      va_end (args);
    }
  xmlStopParser (c->ctxt);
}

static void
collect_name (Collector *c, const xmlChar *localname, const xmlChar *uri)
{
  LbDavPropName *p;

  if (c->names->len >= LB_DAV_MAX_PROPS)
    return collector_fail (c, LB_ERROR_TOO_LARGE, "%s names more than %u properties",
                           c->what, LB_DAV_MAX_PROPS);
  p = g_new0 (LbDavPropName, 1);
  p->ns = g_strdup (uri != NULL ? (const char *) uri : "");
  p->name = g_strdup ((const char *) localname);
  c->name_bytes += strlen (p->ns) + strlen (p->name);
  g_ptr_array_add (c->names, p);
  if (c->name_bytes > LB_DAV_MAX_PROP_BYTES)
    collector_fail (c, LB_ERROR_TOO_LARGE, "%s property names exceed %u bytes",
                    c->what, LB_DAV_MAX_PROP_BYTES);
}

static void
on_start_element (void           *ctx,
                  const xmlChar  *localname,
                  const xmlChar  *prefix,
                  const xmlChar  *uri,
                  int             nb_namespaces,
                  const xmlChar **namespaces,
                  int             nb_attributes,
                  int             nb_defaulted,
                  const xmlChar **attributes)
{
  Collector *c = ctx;

  if (c->error != NULL)
    return;
  c->depth++;
  if (++c->elements > LB_DAV_MAX_ELEMENTS)
    return collector_fail (c, LB_ERROR_TOO_LARGE, "%s body holds more than %u elements",
                           c->what, LB_DAV_MAX_ELEMENTS);
  if (c->names_depth != 0 && c->depth == c->names_depth + 1)
    return collect_name (c, localname, uri);
  if (c->depth == 1)
    {
      if (c->mode == COLLECT_PROPFIND && !is_dav_name (localname, uri, "propfind"))
        return collector_fail (c, LB_ERROR_PARSE, "PROPFIND body is not a DAV:propfind");
      if (c->mode == COLLECT_PROPERTYUPDATE && !is_dav_name (localname, uri, "propertyupdate"))
        return collector_fail (c, LB_ERROR_PARSE, "PROPPATCH body is not a DAV:propertyupdate");
      return;
    }
  if (c->mode == COLLECT_PROPFIND && c->depth == 2)
    {
      gboolean allprop = is_dav_name (localname, uri, "allprop");
      gboolean propname = is_dav_name (localname, uri, "propname");
      gboolean prop = is_dav_name (localname, uri, "prop");

      /* DAV:include (with allprop) and unknown extension elements are ignored. */
      if (!allprop && !propname && !prop)
        return;
      if (c->chosen)
        return collector_fail (c, LB_ERROR_PARSE,
                               "DAV:propfind holds more than one of allprop, propname, prop");
      c->chosen = TRUE;
      c->kind = allprop ? LB_DAV_PROPFIND_ALLPROP
                        : propname ? LB_DAV_PROPFIND_PROPNAME : LB_DAV_PROPFIND_PROP;
      if (prop)
        c->names_depth = 2;
      return;
    }
  if (c->mode == COLLECT_PROPERTYUPDATE && c->depth == 2)
    {
      if (!is_dav_name (localname, uri, "set") && !is_dav_name (localname, uri, "remove"))
        collector_fail (c, LB_ERROR_PARSE, "DAV:propertyupdate may hold only DAV:set and DAV:remove");
      return;
    }
  if (c->mode == COLLECT_PROPERTYUPDATE && c->depth == 3)
    {
      if (!is_dav_name (localname, uri, "prop"))
        return collector_fail (c, LB_ERROR_PARSE, "DAV:set/DAV:remove hold DAV:prop");
      c->names_depth = 3;
    }
}

static void
on_end_element (void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri)
{
  Collector *c = ctx;

  if (c->depth == c->names_depth)
    c->names_depth = 0;
  c->depth--;
}

/* Runs the SAX2 parser over @body; FALSE with @error set when it is malformed, breaks a rule
 * of @mode or goes over a limit. */
static gboolean
collect (Collector *c, const char *body, gsize len, GError **error)
{
  xmlSAXHandler sax = { 0 };
  gboolean ok;

  c->names = g_ptr_array_new_with_free_func ((GDestroyNotify) lb_dav_prop_name_free);
  if (len > G_MAXINT)
    {
      g_set_error (error, LB_ERROR, LB_ERROR_TOO_LARGE, "%s body too large", c->what);
      return FALSE;
    }
  sax.initialized = XML_SAX2_MAGIC;
  sax.startElementNs = on_start_element;
  sax.endElementNs = on_end_element;
  c->ctxt = xmlCreatePushParserCtxt (&sax, c, NULL, 0, NULL);
  if (c->ctxt == NULL)
    {
      g_set_error_literal (error, LB_ERROR, LB_ERROR_FAILED, "cannot create an XML parser");
      return FALSE;
    }
  xmlCtxtUseOptions (c->ctxt, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  xmlParseChunk (c->ctxt, body, (int) len, 1);
  ok = c->error == NULL && c->ctxt->wellFormed;
  xmlFreeParserCtxt (c->ctxt);
  c->ctxt = NULL;
  if (c->error != NULL)
    g_propagate_error (error, g_steal_pointer (&c->error));
  else if (!ok)
    g_set_error (error, LB_ERROR, LB_ERROR_PARSE, "%s body is not well-formed XML", c->what);
  return ok;
}

/*
 * lb_dav_parse_propfind:
 * @body: the request body; an empty body means allprop (RFC 4918 §9.1)
 *
 * Fails with LB_ERROR_PARSE (the caller answers 400) for malformed XML or a body that is not
 * a DAV:propfind with exactly one of allprop, propname or prop, and with LB_ERROR_TOO_LARGE
 * (413) for a body over LB_DAV_MAX_PROPS names, LB_DAV_MAX_PROP_BYTES bytes of names or
 * LB_DAV_MAX_ELEMENTS elements.
 */
gboolean
lb_dav_parse_propfind (const char        *body,
                       gsize              len,
                       LbDavPropfindKind *kind_out,
                       GPtrArray        **names_out,
                       GError           **error)
{
  Collector c = { .mode = COLLECT_PROPFIND, .what = "PROPFIND" };

  *names_out = NULL;
  *kind_out = LB_DAV_PROPFIND_ALLPROP;
  if (len == 0)
    {
      *names_out = g_ptr_array_new_with_free_func ((GDestroyNotify) lb_dav_prop_name_free);
      return TRUE;
    }
  if (!collect (&c, body, len, error))
    {
      g_ptr_array_unref (c.names);
      return FALSE;
    }
  if (!c.chosen)
    {
      g_set_error_literal (error, LB_ERROR, LB_ERROR_PARSE, "DAV:propfind needs allprop, propname or prop");
      g_ptr_array_unref (c.names);
      return FALSE;
    }
  *kind_out = c.kind;
  *names_out = c.names;
  return TRUE;
}

/*
 * lb_dav_parse_propertyupdate:
 * @names_out: (out): every property named in DAV:set and DAV:remove, in document order
 *
 * Fails with LB_ERROR_PARSE for malformed XML or anything but a DAV:propertyupdate holding
 * DAV:set/DAV:remove instructions with DAV:prop children, and with LB_ERROR_TOO_LARGE over the
 * limits of lb_dav_parse_propfind().
 */
gboolean
lb_dav_parse_propertyupdate (const char *body, gsize len, GPtrArray **names_out, GError **error)
{
  Collector c = { .mode = COLLECT_PROPERTYUPDATE, .what = "PROPPATCH" };

  *names_out = NULL;
  if (len == 0)
    {
      g_set_error_literal (error, LB_ERROR, LB_ERROR_PARSE, "PROPPATCH needs a DAV:propertyupdate body");
      return FALSE;
    }
  if (!collect (&c, body, len, error))
    {
      g_ptr_array_unref (c.names);
      return FALSE;
    }
  *names_out = c.names;
  return TRUE;
}

char *
lb_dav_format_rfc1123 (gint64 unix_s)
{
  g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc (unix_s);

  return soup_date_time_to_string (dt, SOUP_DATE_HTTP);
}

char *
lb_dav_format_iso8601 (gint64 unix_s)
{
  g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc (unix_s);

  return g_date_time_format (dt, "%Y-%m-%dT%H:%M:%SZ");
}

static xmlNsPtr
dav_ns (xmlDocPtr doc)
{
  xmlNodePtr root = xmlDocGetRootElement (doc);

  return xmlSearchNsByHref (doc, root, BAD_CAST LB_DAV_NS);
}

xmlDocPtr
lb_dav_multistatus_new (void)
{
  xmlDocPtr doc = xmlNewDoc (BAD_CAST "1.0");
  xmlNodePtr root = xmlNewDocNode (doc, NULL, BAD_CAST "multistatus", NULL);
  xmlNsPtr ns = xmlNewNs (root, BAD_CAST LB_DAV_NS, BAD_CAST "D");

  xmlSetNs (root, ns);
  xmlDocSetRootElement (doc, root);
  return doc;
}

/* The value of the live property @name of @res, or FALSE when @res has no such property. */
static gboolean
live_prop_text (const LbDavResource *res, const char *name, char **text_out)
{
  *text_out = NULL;
  if (strcmp (name, "resourcetype") == 0)
    return TRUE; /* its value is an element (writer_add_live) */
  if (strcmp (name, "displayname") == 0)
    *text_out = g_utf8_make_valid (res->displayname, -1);
  else if (strcmp (name, "getlastmodified") == 0)
    *text_out = lb_dav_format_rfc1123 (res->mtime_s);
  else if (strcmp (name, "creationdate") == 0)
    *text_out = lb_dav_format_iso8601 (res->ctime_s);
  else if (strcmp (name, "getcontenttype") == 0)
    *text_out = g_strdup (res->content_type);
  else if (strcmp (name, "getcontentlength") == 0 && !res->collection)
    *text_out = g_strdup_printf ("%" G_GUINT64_FORMAT, res->size);
  else if (strcmp (name, "getetag") == 0 && res->etag != NULL)
    *text_out = g_strdup (res->etag);
  return *text_out != NULL;
}

/*
 * LbDavWriter: a 207 Multi-Status answer to PROPFIND written entry by entry with libxml2's
 * xmlTextWriter (which escapes text and attribute values), so that an answer of any length is
 * never held whole: the caller takes the bytes written so far whenever it likes and sends them.
 */
struct _LbDavWriter
{
  xmlTextWriterPtr  xw;
  GByteArray       *out;   /* written and not yet taken */
  LbDavPropfindKind kind;
  GPtrArray        *names; /* (nullable) (element-type LbDavPropName) */
};

static int
writer_write_cb (void *context, const char *buffer, int len)
{
  LbDavWriter *w = context;

  g_byte_array_append (w->out, (const guint8 *) buffer, (guint) len);
  return len;
}

static int
writer_close_cb (void *context)
{
  return 0;
}

/*
 * lb_dav_writer_new:
 * @names: (nullable): for LB_DAV_PROPFIND_PROP, the requested properties
 *
 * Starts the document: the XML declaration and the open DAV:multistatus element.
 */
LbDavWriter *
lb_dav_writer_new (LbDavPropfindKind kind, GPtrArray *names)
{
  LbDavWriter *w = g_new0 (LbDavWriter, 1);
  xmlOutputBufferPtr ob;

  w->out = g_byte_array_sized_new (LB_DAV_WRITER_CHUNK + 4096);
  w->kind = kind;
  w->names = names != NULL ? g_ptr_array_ref (names) : NULL;
  ob = xmlOutputBufferCreateIO (writer_write_cb, writer_close_cb, w, NULL);
  w->xw = xmlNewTextWriter (ob); /* owns @ob */
  xmlTextWriterStartDocument (w->xw, "1.0", "utf-8", NULL);
  xmlTextWriterStartElementNS (w->xw, BAD_CAST "D", BAD_CAST "multistatus", BAD_CAST LB_DAV_NS);
  return w;
}

void
lb_dav_writer_free (LbDavWriter *w)
{
  if (w == NULL)
    return;
  xmlFreeTextWriter (w->xw);
  g_byte_array_unref (w->out);
  if (w->names != NULL)
    g_ptr_array_unref (w->names);
  g_free (w);
}

static void
writer_start_dav (LbDavWriter *w, const char *name)
{
  xmlTextWriterStartElementNS (w->xw, BAD_CAST "D", BAD_CAST name, NULL);
}

static void
writer_element_dav (LbDavWriter *w, const char *name, const char *text)
{
  xmlTextWriterWriteElementNS (w->xw, BAD_CAST "D", BAD_CAST name, NULL, BAD_CAST text);
}

static void
writer_end (LbDavWriter *w)
{
  xmlTextWriterEndElement (w->xw);
}

/* DAV:@name of @res with its value, or empty when @values is FALSE (propname). */
static void
writer_add_live (LbDavWriter *w, const LbDavResource *res, const char *name, gboolean values)
{
  g_autofree char *text = NULL;

  if (!live_prop_text (res, name, &text))
    return;
  writer_start_dav (w, name);
  if (values && strcmp (name, "resourcetype") == 0 && res->collection)
    {
      writer_start_dav (w, "collection");
      writer_end (w);
    }
  else if (values && text != NULL && strcmp (name, "getetag") == 0)
    /* lb_http_make_etag() quotes hex digits and '-': nothing to escape in content (the
     * writer would turn each quote into &quot;, 10 bytes per entry for nothing). */
    xmlTextWriterWriteRaw (w->xw, BAD_CAST text);
  else if (values && text != NULL)
    xmlTextWriterWriteString (w->xw, BAD_CAST text);
  writer_end (w);
}

/* An empty element named like the requested property @p; foreign namespaces are declared on
 * the element itself under the prefix ns@nsn. */
static void
writer_add_name (LbDavWriter *w, const LbDavPropName *p, guint *nsn)
{
  if (strcmp (p->ns, LB_DAV_NS) == 0)
    writer_start_dav (w, p->name);
  else if (p->ns[0] == '\0')
    xmlTextWriterStartElement (w->xw, BAD_CAST p->name); /* no namespace: none is default */
  else
    {
      g_autofree char *prefix = g_strdup_printf ("ns%u", (*nsn)++);
      xmlTextWriterStartElementNS (w->xw, BAD_CAST prefix, BAD_CAST p->name, BAD_CAST p->ns);
    }
  writer_end (w);
}

static gboolean
prop_is_live (const LbDavResource *res, const LbDavPropName *p)
{
  g_autofree char *text = NULL;

  return strcmp (p->ns, LB_DAV_NS) == 0 && live_prop_text (res, p->name, &text);
}

/* Writes the DAV:response of @res: the found properties in a 200 propstat, for PROP the
 * others in a 404 propstat (RFC 4918 §9.1: a propstat is never empty). */
void
lb_dav_writer_add (LbDavWriter *w, const LbDavResource *res)
{
  guint found = 0, missing = 0, nsn = 0;

  writer_start_dav (w, "response");
  writer_element_dav (w, "href", res->href);
  if (w->kind != LB_DAV_PROPFIND_PROP)
    {
      writer_start_dav (w, "propstat");
      writer_start_dav (w, "prop");
      for (guint i = 0; i < G_N_ELEMENTS (live_props); i++)
        writer_add_live (w, res, live_props[i], w->kind == LB_DAV_PROPFIND_ALLPROP);
      writer_end (w);
      writer_element_dav (w, "status", "HTTP/1.1 200 OK");
      writer_end (w);
      writer_end (w);
      return;
    }
  for (guint i = 0; w->names != NULL && i < w->names->len; i++)
    {
      if (prop_is_live (res, g_ptr_array_index (w->names, i)))
        found++;
      else
        missing++;
    }
  for (guint pass = 0; pass < 2; pass++)
    {
      if ((pass == 0 && found == 0) || (pass == 1 && missing == 0))
        continue;
      writer_start_dav (w, "propstat");
      writer_start_dav (w, "prop");
      for (guint i = 0; i < w->names->len; i++)
        {
          const LbDavPropName *p = g_ptr_array_index (w->names, i);
          gboolean live = prop_is_live (res, p);

          if (pass == 0 && live)
            writer_add_live (w, res, p->name, TRUE);
          else if (pass == 1 && !live)
            writer_add_name (w, p, &nsn);
        }
      writer_end (w);
      writer_element_dav (w, "status", pass == 0 ? "HTTP/1.1 200 OK" : "HTTP/1.1 404 Not Found");
      writer_end (w);
    }
  writer_end (w);
}

/* Closes DAV:multistatus and the document; nothing may be added after. */
void
lb_dav_writer_finish (LbDavWriter *w)
{
  xmlTextWriterEndDocument (w->xw);
}

/* Bytes written and not yet taken (libxml2 may still hold a few KiB until lb_dav_writer_take). */
gsize
lb_dav_writer_pending (LbDavWriter *w)
{
  return w->out->len;
}

/* Everything written so far that was not taken yet. */
GBytes *
lb_dav_writer_take (LbDavWriter *w)
{
  GBytes *bytes;

  xmlTextWriterFlush (w->xw);
  bytes = g_byte_array_free_to_bytes (w->out);
  w->out = g_byte_array_sized_new (LB_DAV_WRITER_CHUNK + 4096);
  return bytes;
}

static xmlNodePtr
new_propstat (xmlNodePtr response, xmlNsPtr ns, const char *status_line, xmlNodePtr *prop_out)
{
  xmlNodePtr propstat = xmlNewChild (response, ns, BAD_CAST "propstat", NULL);

  *prop_out = xmlNewChild (propstat, ns, BAD_CAST "prop", NULL);
  xmlNewChild (propstat, ns, BAD_CAST "status", BAD_CAST status_line);
  return propstat;
}

/* Adds a response whose one propstat gives every property in @names the same status, with
 * an optional RFC 4918 §16 precondition element. */
void
lb_dav_multistatus_add_propstat (xmlDocPtr   doc,
                                 const char *href,
                                 GPtrArray  *names,
                                 guint       status,
                                 const char *condition)
{
  xmlNsPtr ns = dav_ns (doc);
  xmlNodePtr response = xmlNewChild (xmlDocGetRootElement (doc), ns, BAD_CAST "response", NULL);
  g_autofree char *line = g_strdup_printf ("HTTP/1.1 %u %s", status, soup_status_get_phrase (status));
  xmlNodePtr prop, propstat;
  guint nsn = 0;

  xmlNewTextChild (response, ns, BAD_CAST "href", BAD_CAST href);
  propstat = new_propstat (response, ns, line, &prop);
  for (guint i = 0; names != NULL && i < names->len; i++)
    {
      LbDavPropName *p = g_ptr_array_index (names, i);

      if (strcmp (p->ns, LB_DAV_NS) == 0)
        xmlNewChild (prop, ns, BAD_CAST p->name, NULL);
      else if (p->ns[0] == '\0')
        xmlNewChild (prop, NULL, BAD_CAST p->name, NULL);
      else
        {
          g_autofree char *prefix = g_strdup_printf ("ns%u", nsn++);
          xmlNodePtr node = xmlNewChild (prop, NULL, BAD_CAST p->name, NULL);
          xmlSetNs (node, xmlNewNs (node, BAD_CAST p->ns, BAD_CAST prefix));
        }
    }
  if (condition != NULL)
    {
      xmlNodePtr err = xmlNewChild (propstat, ns, BAD_CAST "error", NULL);
      xmlNewChild (err, ns, BAD_CAST condition, NULL);
    }
}

void
lb_dav_multistatus_add_status (xmlDocPtr doc, const char *href, guint status)
{
  xmlNsPtr ns = dav_ns (doc);
  xmlNodePtr response = xmlNewChild (xmlDocGetRootElement (doc), ns, BAD_CAST "response", NULL);
  g_autofree char *line = g_strdup_printf ("HTTP/1.1 %u %s", status, soup_status_get_phrase (status));

  xmlNewTextChild (response, ns, BAD_CAST "href", BAD_CAST href);
  xmlNewChild (response, ns, BAD_CAST "status", BAD_CAST line);
}

GBytes *
lb_dav_doc_to_bytes (xmlDocPtr doc)
{
  xmlChar *mem = NULL;
  int size = 0;
  GBytes *bytes;

  /* Not indented: a Depth 1 listing of a big directory is a fifth smaller. */
  xmlDocDumpFormatMemoryEnc (doc, &mem, &size, "utf-8", 0);
  bytes = g_bytes_new (mem, (gsize) size);
  xmlFree (mem);
  return bytes;
}

/* An RFC 4918 §16 error body: <D:error><D:condition/></D:error>. */
GBytes *
lb_dav_error_body (const char *condition)
{
  xmlDocPtr doc = xmlNewDoc (BAD_CAST "1.0");
  xmlNodePtr root = xmlNewDocNode (doc, NULL, BAD_CAST "error", NULL);
  xmlNsPtr ns = xmlNewNs (root, BAD_CAST LB_DAV_NS, BAD_CAST "D");
  GBytes *bytes;

  xmlSetNs (root, ns);
  xmlDocSetRootElement (doc, root);
  xmlNewChild (root, ns, BAD_CAST condition, NULL);
  bytes = lb_dav_doc_to_bytes (doc);
  xmlFreeDoc (doc);
  return bytes;
}
