/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-dav-xml"

#include "lb-dav-xml.h"

#include <string.h>
#include <libsoup/soup.h>
#include <libxml/parser.h>
#include <libxml/xmlsave.h>

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

static gboolean
is_dav (xmlNodePtr node, const char *name)
{
  return node->type == XML_ELEMENT_NODE && node->ns != NULL &&
         xmlStrcmp (node->ns->href, BAD_CAST LB_DAV_NS) == 0 &&
         xmlStrcmp (node->name, BAD_CAST name) == 0;
}

/*
 * lb_dav_parse_propfind:
 * @body: the request body; an empty body means allprop (RFC 4918 §9.1)
 *
 * Fails with LB_ERROR_PARSE (the caller answers 400) for malformed XML or a body that is not
 * a DAV:propfind with exactly one of allprop, propname or prop.
 */
gboolean
lb_dav_parse_propfind (const char        *body,
                       gsize              len,
                       LbDavPropfindKind *kind_out,
                       GPtrArray        **names_out,
                       GError           **error)
{
  xmlDocPtr doc;
  xmlNodePtr root, child, chosen = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func ((GDestroyNotify) lb_dav_prop_name_free);
  gboolean ok = FALSE;

  *names_out = NULL;
  *kind_out = LB_DAV_PROPFIND_ALLPROP;
  if (len == 0)
    {
      *names_out = g_steal_pointer (&names);
      return TRUE;
    }
  if (len > G_MAXINT)
    {
      g_set_error_literal (error, LB_ERROR, LB_ERROR_TOO_LARGE, "PROPFIND body too large");
      return FALSE;
    }
  /* No network, no entity expansion (XXE), no DTD loading. */
  doc = xmlReadMemory (body, (int) len, "propfind.xml", NULL,
                       XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (doc == NULL)
    {
      g_set_error_literal (error, LB_ERROR, LB_ERROR_PARSE, "PROPFIND body is not well-formed XML");
      return FALSE;
    }
  root = xmlDocGetRootElement (doc);
  if (root == NULL || !is_dav (root, "propfind"))
    {
      g_set_error_literal (error, LB_ERROR, LB_ERROR_PARSE, "PROPFIND body is not a DAV:propfind");
      goto out;
    }
  for (child = root->children; child != NULL; child = child->next)
    {
      if (child->type != XML_ELEMENT_NODE)
        continue;
      if (is_dav (child, "allprop") || is_dav (child, "propname") || is_dav (child, "prop"))
        {
          if (chosen != NULL)
            {
              g_set_error_literal (error, LB_ERROR, LB_ERROR_PARSE,
                                   "DAV:propfind holds more than one of allprop, propname, prop");
              goto out;
            }
          chosen = child;
        }
      /* DAV:include (with allprop) and unknown extension elements are ignored. */
    }
  if (chosen == NULL)
    {
      g_set_error_literal (error, LB_ERROR, LB_ERROR_PARSE,
                           "DAV:propfind needs allprop, propname or prop");
      goto out;
    }
  if (is_dav (chosen, "allprop"))
    *kind_out = LB_DAV_PROPFIND_ALLPROP;
  else if (is_dav (chosen, "propname"))
    *kind_out = LB_DAV_PROPFIND_PROPNAME;
  else
    {
      *kind_out = LB_DAV_PROPFIND_PROP;
      for (child = chosen->children; child != NULL; child = child->next)
        {
          LbDavPropName *p;

          if (child->type != XML_ELEMENT_NODE)
            continue;
          p = g_new0 (LbDavPropName, 1);
          p->ns = g_strdup (child->ns != NULL ? (const char *) child->ns->href : "");
          p->name = g_strdup ((const char *) child->name);
          g_ptr_array_add (names, p);
        }
    }
  *names_out = g_steal_pointer (&names);
  ok = TRUE;

out:
  xmlFreeDoc (doc);
  return ok;
}

/*
 * lb_dav_parse_propertyupdate:
 * @names_out: (out): every property named in DAV:set and DAV:remove, in document order
 *
 * Fails with LB_ERROR_PARSE for malformed XML or anything but a DAV:propertyupdate holding
 * DAV:set/DAV:remove instructions with DAV:prop children.
 */
gboolean
lb_dav_parse_propertyupdate (const char *body, gsize len, GPtrArray **names_out, GError **error)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func ((GDestroyNotify) lb_dav_prop_name_free);
  xmlDocPtr doc;
  xmlNodePtr root, op, prop, p;
  gboolean ok = FALSE;

  *names_out = NULL;
  if (len == 0 || len > G_MAXINT)
    {
      g_set_error_literal (error, LB_ERROR, LB_ERROR_PARSE, "PROPPATCH needs a DAV:propertyupdate body");
      return FALSE;
    }
  doc = xmlReadMemory (body, (int) len, "propertyupdate.xml", NULL,
                       XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (doc == NULL)
    {
      g_set_error_literal (error, LB_ERROR, LB_ERROR_PARSE, "PROPPATCH body is not well-formed XML");
      return FALSE;
    }
  root = xmlDocGetRootElement (doc);
  if (root == NULL || !is_dav (root, "propertyupdate"))
    {
      g_set_error_literal (error, LB_ERROR, LB_ERROR_PARSE, "PROPPATCH body is not a DAV:propertyupdate");
      goto out;
    }
  for (op = root->children; op != NULL; op = op->next)
    {
      if (op->type != XML_ELEMENT_NODE)
        continue;
      if (!is_dav (op, "set") && !is_dav (op, "remove"))
        {
          g_set_error_literal (error, LB_ERROR, LB_ERROR_PARSE,
                               "DAV:propertyupdate may hold only DAV:set and DAV:remove");
          goto out;
        }
      for (prop = op->children; prop != NULL; prop = prop->next)
        {
          if (prop->type != XML_ELEMENT_NODE)
            continue;
          if (!is_dav (prop, "prop"))
            {
              g_set_error_literal (error, LB_ERROR, LB_ERROR_PARSE, "DAV:set/DAV:remove hold DAV:prop");
              goto out;
            }
          for (p = prop->children; p != NULL; p = p->next)
            {
              LbDavPropName *n;

              if (p->type != XML_ELEMENT_NODE)
                continue;
              n = g_new0 (LbDavPropName, 1);
              n->ns = g_strdup (p->ns != NULL ? (const char *) p->ns->href : "");
              n->name = g_strdup ((const char *) p->name);
              g_ptr_array_add (names, n);
            }
        }
    }
  *names_out = g_steal_pointer (&names);
  ok = TRUE;

out:
  xmlFreeDoc (doc);
  return ok;
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

/* Adds DAV:name with its value (or empty for propname) to @prop; FALSE if not defined here. */
static gboolean
add_live_prop (xmlNodePtr prop, xmlNsPtr ns, const LbDavResource *res, const char *name,
               gboolean values)
{
  g_autofree char *text = NULL;
  xmlNodePtr node;

  if (strcmp (name, "resourcetype") == 0)
    {
      node = xmlNewChild (prop, ns, BAD_CAST name, NULL);
      if (values && res->collection)
        xmlNewChild (node, ns, BAD_CAST "collection", NULL);
      return TRUE;
    }
  if (strcmp (name, "displayname") == 0)
    text = g_strdup (res->displayname);
  else if (strcmp (name, "getlastmodified") == 0)
    text = lb_dav_format_rfc1123 (res->mtime_s);
  else if (strcmp (name, "creationdate") == 0)
    text = lb_dav_format_iso8601 (res->ctime_s);
  else if (strcmp (name, "getcontenttype") == 0)
    text = g_strdup (res->content_type);
  else if (strcmp (name, "getcontentlength") == 0 && !res->collection)
    text = g_strdup_printf ("%" G_GUINT64_FORMAT, res->size);
  else if (strcmp (name, "getetag") == 0 && res->etag != NULL)
    text = g_strdup (res->etag);
  if (text == NULL)
    return FALSE;
  /* xmlNewTextChild escapes &, < and > in the value. */
  xmlNewTextChild (prop, ns, BAD_CAST name, values ? BAD_CAST text : NULL);
  return TRUE;
}

static xmlNodePtr
new_propstat (xmlNodePtr response, xmlNsPtr ns, const char *status_line, xmlNodePtr *prop_out)
{
  xmlNodePtr propstat = xmlNewChild (response, ns, BAD_CAST "propstat", NULL);

  *prop_out = xmlNewChild (propstat, ns, BAD_CAST "prop", NULL);
  xmlNewChild (propstat, ns, BAD_CAST "status", BAD_CAST status_line);
  return propstat;
}

void
lb_dav_multistatus_add (xmlDocPtr            doc,
                        const LbDavResource *res,
                        LbDavPropfindKind    kind,
                        GPtrArray           *names)
{
  xmlNsPtr ns = dav_ns (doc);
  xmlNodePtr response = xmlNewChild (xmlDocGetRootElement (doc), ns, BAD_CAST "response", NULL);
  xmlNodePtr ok_prop, missing_prop = NULL;
  guint nsn = 0;

  xmlNewTextChild (response, ns, BAD_CAST "href", BAD_CAST res->href);
  new_propstat (response, ns, "HTTP/1.1 200 OK", &ok_prop);

  if (kind != LB_DAV_PROPFIND_PROP)
    {
      for (guint i = 0; i < G_N_ELEMENTS (live_props); i++)
        add_live_prop (ok_prop, ns, res, live_props[i], kind == LB_DAV_PROPFIND_ALLPROP);
      return;
    }

  for (guint i = 0; names != NULL && i < names->len; i++)
    {
      LbDavPropName *p = g_ptr_array_index (names, i);
      xmlNodePtr node;

      if (strcmp (p->ns, LB_DAV_NS) == 0 && add_live_prop (ok_prop, ns, res, p->name, TRUE))
        continue;
      if (missing_prop == NULL)
        new_propstat (response, ns, "HTTP/1.1 404 Not Found", &missing_prop);
      if (strcmp (p->ns, LB_DAV_NS) == 0)
        xmlNewChild (missing_prop, ns, BAD_CAST p->name, NULL);
      else if (p->ns[0] == '\0')
        xmlNewChild (missing_prop, NULL, BAD_CAST p->name, NULL); /* no namespace */
      else
        {
          g_autofree char *prefix = g_strdup_printf ("ns%u", nsn++);
          node = xmlNewChild (missing_prop, NULL, BAD_CAST p->name, NULL);
          xmlSetNs (node, xmlNewNs (node, BAD_CAST p->ns, BAD_CAST prefix));
        }
    }
  /* RFC 4918: a propstat must not be empty. */
  if (ok_prop->children == NULL)
    {
      xmlNodePtr propstat = ok_prop->parent;
      xmlUnlinkNode (propstat);
      xmlFreeNode (propstat);
    }
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
