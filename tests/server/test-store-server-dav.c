/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-store-server"

/* WebDAV on the in-process lightbox-store: the methods (MKCOL, COPY, MOVE, DELETE, PROPPATCH),
 * PROPFIND answers checked with XPath, HTML listings, path traversal, and the filter
 * repository (.lightbox/filters: published, validated on upload). */

#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

#include "lb-test-files.h"
#include "lb-test-http.h"
#include "lb-test-image.h"
#include "lb-test-process.h"
#include "test-store-server.h"

void
test_dav_methods (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(GBytes) a = lb_test_bytes (4000, 10);
  g_autoptr(GBytes) b = lb_test_bytes (3000, 11);
  g_autoptr(GBytes) body = g_bytes_new_static ("<x/>", 4);
  g_autofree char *dest = NULL;
  g_autofree char *other = NULL;

  store_run (s);
#define DEST(p) (g_free (dest), dest = g_strconcat (s->url, (p) + 1, NULL))

  /* MKCOL */
  g_assert_cmpuint (status_of (s, "MKCOL", "/col/", NULL, NULL), ==, 201);
  g_assert_true (g_file_test (root_path (s, "col"), G_FILE_TEST_IS_DIR));
  g_assert_cmpuint (status_of (s, "MKCOL", "/col/", NULL, NULL), ==, 405);
  g_assert_cmpuint (status_of (s, "MKCOL", "/x/y/", NULL, NULL), ==, 409);
  g_assert_cmpuint (status_of (s, "MKCOL", "/withbody/", body, NULL), ==, 415);
  g_assert_cmpuint (status_of (s, "MKCOL", "/.secret/", NULL, NULL), ==, 403);
  g_assert_cmpuint (status_of (s, "PUT", "/col/a.bin", a, NULL), ==, 201);
  g_assert_cmpuint (status_of (s, "PUT", "/b.bin", b, NULL), ==, 201);
  g_assert_cmpuint (status_of (s, "MKCOL", "/b.bin", NULL, NULL), ==, 405);

  /* COPY */
  g_assert_cmpuint (status_of (s, "COPY", "/b.bin", NULL, "Destination", DEST ("/col/b2.bin"), NULL), ==, 201);
  g_assert_cmpuint (status_of (s, "COPY", "/b.bin", NULL, "Destination", DEST ("/col/b2.bin"),
                               "Overwrite", "F", NULL), ==, 412);
  g_assert_cmpuint (status_of (s, "COPY", "/col/a.bin", NULL, "Destination", DEST ("/col/b2.bin"),
                               "Overwrite", "T", NULL), ==, 204);
  {
    g_autofree char *p = root_path (s, "col/b2.bin");
    g_autoptr(GBytes) d = lb_test_read_file (p);
    g_assert_true (g_bytes_equal (d, a));
  }
  g_assert_cmpuint (status_of (s, "COPY", "/b.bin", NULL, "Destination", DEST ("/nope/b.bin"), NULL), ==, 409);
  g_assert_cmpuint (status_of (s, "COPY", "/missing", NULL, "Destination", DEST ("/m2"), NULL), ==, 404);
  g_assert_cmpuint (status_of (s, "COPY", "/b.bin", NULL, NULL), ==, 400);
  g_assert_cmpuint (status_of (s, "COPY", "/b.bin", NULL, "Destination", DEST ("/b.bin"), NULL), ==, 403);
  g_assert_cmpuint (status_of (s, "COPY", "/col/", NULL, "Destination", DEST ("/col/sub/"), NULL), ==, 403);
  g_assert_cmpuint (status_of (s, "COPY", "/col/", NULL, "Destination", DEST ("/col1/"), "Depth", "1", NULL), ==, 400);
  other = g_strdup_printf ("http://127.0.0.2:%u/elsewhere", (guint) s->port);
  g_assert_cmpuint (status_of (s, "COPY", "/b.bin", NULL, "Destination", other, NULL), ==, 502);
  g_assert_cmpuint (status_of (s, "COPY", "/b.bin", NULL, "Destination", DEST ("/.lbput-x"), NULL), ==, 403);
  /* Depth 0 copies the collection without members; infinity copies everything. */
  g_assert_cmpuint (status_of (s, "COPY", "/col/", NULL, "Destination", DEST ("/shallow/"), "Depth", "0", NULL), ==, 201);
  g_assert_true (g_file_test (root_path (s, "shallow"), G_FILE_TEST_IS_DIR));
  g_assert_false (g_file_test (root_path (s, "shallow/a.bin"), G_FILE_TEST_EXISTS));
  g_assert_cmpuint (status_of (s, "COPY", "/col/", NULL, "Destination", DEST ("/deep/"), NULL), ==, 201);
  {
    g_autofree char *p = root_path (s, "deep/a.bin");
    g_autoptr(GBytes) d = lb_test_read_file (p);
    g_assert_true (g_bytes_equal (d, a));
  }
  /* Collection over an existing collection with Overwrite T: replaced, 204. */
  g_assert_cmpuint (status_of (s, "COPY", "/col/", NULL, "Destination", DEST ("/shallow/"), NULL), ==, 204);
  g_assert_true (g_file_test (root_path (s, "shallow/a.bin"), G_FILE_TEST_EXISTS));

  /* MOVE */
  g_assert_cmpuint (status_of (s, "MOVE", "/b.bin", NULL, "Destination", DEST ("/moved.bin"), NULL), ==, 201);
  g_assert_false (g_file_test (root_path (s, "b.bin"), G_FILE_TEST_EXISTS));
  g_assert_cmpuint (status_of (s, "MOVE", "/moved.bin", NULL, "Destination", DEST ("/col/a.bin"),
                               "Overwrite", "F", NULL), ==, 412);
  g_assert_cmpuint (status_of (s, "MOVE", "/moved.bin", NULL, "Destination", DEST ("/col/a.bin"), NULL), ==, 204);
  {
    g_autofree char *p = root_path (s, "col/a.bin");
    g_autoptr(GBytes) d = lb_test_read_file (p);
    g_assert_true (g_bytes_equal (d, b));
  }
  g_assert_cmpuint (status_of (s, "MOVE", "/deep/", NULL, "Destination", DEST ("/deep2/"), NULL), ==, 201);
  g_assert_true (g_file_test (root_path (s, "deep2/a.bin"), G_FILE_TEST_EXISTS));
  g_assert_cmpuint (status_of (s, "MOVE", "/deep2/", NULL, "Destination", DEST ("/deep3/"), "Depth", "0", NULL), ==, 400);
  g_assert_cmpuint (status_of (s, "MOVE", "/deep2/", NULL, "Destination", DEST ("/no/deep3/"), NULL), ==, 409);

  /* DELETE (recursive for collections) */
  g_assert_cmpuint (status_of (s, "DELETE", "/col/", NULL, NULL), ==, 204);
  g_assert_false (g_file_test (root_path (s, "col"), G_FILE_TEST_EXISTS));
  g_assert_cmpuint (status_of (s, "DELETE", "/col/", NULL, NULL), ==, 404);
  g_assert_cmpuint (status_of (s, "DELETE", "/", NULL, NULL), ==, 403);
  g_assert_cmpuint (status_of (s, "DELETE", "/.lightbox/filters/", NULL, NULL), ==, 403);
  g_assert_cmpuint (status_of (s, "DELETE", "/deep2", NULL, NULL), ==, 204);

  /* OPTIONS and unknown methods */
  {
    g_autoptr(Reply) o = request (s, "OPTIONS", "/", NULL, NULL);
    const char *allow;
    g_assert_cmpuint (o->status, ==, 200);
    g_assert_cmpstr (soup_message_headers_get_one (o->headers, "DAV"), ==, "1");
    allow = soup_message_headers_get_one (o->headers, "Allow");
    g_assert_nonnull (allow);
    g_assert_nonnull (strstr (allow, "PROPFIND"));
    g_assert_nonnull (strstr (allow, "MKCOL"));
  }
  g_assert_cmpuint (status_of (s, "PATCH", "/x", NULL, NULL), ==, 405);

  /* PROPPATCH: no dead properties are kept, so every change is refused per property. */
  {
    const char *update = "<?xml version=\"1.0\"?><D:propertyupdate xmlns:D=\"DAV:\" xmlns:Z=\"urn:z\">"
                         "<D:set><D:prop><Z:author>x</Z:author></D:prop></D:set></D:propertyupdate>";
    g_autoptr(GBytes) ub = g_bytes_new_static (update, strlen (update));
    const char *not_update = "<D:propfind xmlns:D=\"DAV:\"/>";
    g_autoptr(GBytes) bad = g_bytes_new_static (not_update, strlen (not_update));
    g_autoptr(Reply) pp = request (s, "PROPPATCH", "/shallow/", ub, NULL);
    g_autofree char *xml = body_text (pp->body);

    g_assert_cmpuint (pp->status, ==, 207);
    g_assert_nonnull (strstr (xml, "author"));
    g_assert_nonnull (strstr (xml, "HTTP/1.1 403 Forbidden"));
    g_assert_cmpuint (status_of (s, "PROPPATCH", "/shallow/", bad, NULL), ==, 400);
    g_assert_cmpuint (status_of (s, "PROPPATCH", "/nothing", ub, NULL), ==, 404);
  }
  g_assert_cmpuint (lb_test_server_count_temps (s->root), ==, 0);
#undef DEST
}

static xmlXPathObjectPtr
xpath (xmlXPathContextPtr xc, const char *expr)
{
  xmlXPathObjectPtr o = xmlXPathEvalExpression (BAD_CAST expr, xc);

  g_assert_nonnull (o);
  return o;
}

static char *
xpath_string (xmlXPathContextPtr xc, const char *expr)
{
  g_autofree char *wrapped = g_strdup_printf ("string(%s)", expr);
  xmlXPathObjectPtr o = xpath (xc, wrapped);
  char *s = g_strdup ((const char *) o->stringval);

  xmlXPathFreeObject (o);
  return s;
}

static double
xpath_number (xmlXPathContextPtr xc, const char *expr)
{
  xmlXPathObjectPtr o = xpath (xc, expr);
  double v = o->floatval;

  xmlXPathFreeObject (o);
  return v;
}

void
test_propfind (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(GBytes) content = lb_test_bytes (1234, 12);
  g_autoptr(Reply) r0 = NULL;
  g_autoptr(Reply) r1 = NULL;
  g_autoptr(Reply) get = NULL;
  g_autoptr(Reply) inf = NULL;
  g_autoptr(Reply) named = NULL;
  g_autoptr(Reply) names = NULL;
  g_autofree char *sub = root_path (s, "sub dir");
  g_autofree char *hidden = root_path (s, ".hidden");
  xmlDocPtr doc;
  xmlXPathContextPtr xc;
  g_autofree char *v = NULL;
  const char *prop_body =
    "<?xml version=\"1.0\"?><a:propfind xmlns:a=\"DAV:\" xmlns:z=\"urn:x-test\">"
    "<a:prop><a:getcontentlength/><a:getetag/><z:custom/></a:prop></a:propfind>";
  const char *name_body =
    "<?xml version=\"1.0\"?><propfind xmlns=\"DAV:\"><propname/></propfind>";
  g_autoptr(GBytes) prop_bytes = g_bytes_new_static (prop_body, strlen (prop_body));
  g_autoptr(GBytes) name_bytes = g_bytes_new_static (name_body, strlen (name_body));
  g_autoptr(GBytes) broken_xml = g_bytes_new_static ("<propfind", 9);
  g_autoptr(GBytes) wrong_root = g_bytes_new_static ("<x xmlns=\"DAV:\"/>", 17);

  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  put_file (s, "a&b 50%.png", content);
  write_file (hidden, "x");
  store_run (s);
  get = request (s, "GET", "/a%26b%2050%25.png", NULL, NULL);
  g_assert_cmpuint (get->status, ==, 200);

  r0 = request (s, "PROPFIND", "/a%26b%2050%25.png", NULL, "Depth", "0", NULL);
  g_assert_cmpuint (r0->status, ==, 207);

  r1 = request (s, "PROPFIND", "/", NULL, "Depth", "1", NULL);
  g_assert_cmpuint (r1->status, ==, 207);
  doc = xmlReadMemory (g_bytes_get_data (r1->body, NULL), (int) g_bytes_get_size (r1->body),
                       "ms.xml", NULL, XML_PARSE_NONET);
  g_assert_nonnull (doc);
  xc = xmlXPathNewContext (doc);
  xmlXPathRegisterNs (xc, BAD_CAST "d", BAD_CAST "DAV:");
  /* root + file + dir; the dotfile and .lightbox are hidden */
  g_assert_cmpfloat (xpath_number (xc, "count(/d:multistatus/d:response)"), ==, 3);
  g_assert_cmpfloat (xpath_number (xc, "count(//d:href[contains(., 'hidden') or contains(., 'lightbox')])"), ==, 0);
  v = xpath_string (xc, "//d:response[d:href='/a%26b%2050%25.png']//d:getcontentlength");
  g_assert_cmpstr (v, ==, "1234");
  g_clear_pointer (&v, g_free);
  v = xpath_string (xc, "//d:response[d:href='/a%26b%2050%25.png']//d:getetag");
  g_assert_cmpstr (v, ==, soup_message_headers_get_one (get->headers, "ETag"));
  g_clear_pointer (&v, g_free);
  v = xpath_string (xc, "//d:response[d:href='/a%26b%2050%25.png']//d:displayname");
  g_assert_cmpstr (v, ==, "a&b 50%.png");
  g_clear_pointer (&v, g_free);
  v = xpath_string (xc, "//d:response[d:href='/a%26b%2050%25.png']//d:getcontenttype");
  g_assert_cmpstr (v, ==, "image/png");
  g_clear_pointer (&v, g_free);
  v = xpath_string (xc, "//d:response[d:href='/a%26b%2050%25.png']//d:getlastmodified");
  g_assert_cmpstr (v, ==, soup_message_headers_get_one (get->headers, "Last-Modified"));
  g_clear_pointer (&v, g_free);
  v = xpath_string (xc, "//d:response[d:href='/a%26b%2050%25.png']//d:creationdate");
  g_assert_true (g_regex_match_simple ("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$", v, 0, 0));
  g_clear_pointer (&v, g_free);
  g_assert_cmpfloat (xpath_number (xc, "count(//d:response[d:href='/sub%20dir/']//d:resourcetype/d:collection)"), ==, 1);
  g_assert_cmpfloat (xpath_number (xc, "count(//d:response[d:href='/a%26b%2050%25.png']//d:resourcetype/*)"), ==, 0);
  g_assert_cmpfloat (xpath_number (xc, "count(//d:response[d:href='/']//d:resourcetype/d:collection)"), ==, 1);
  g_assert_cmpfloat (xpath_number (xc, "count(//d:status[. != 'HTTP/1.1 200 OK'])"), ==, 0);
  xmlXPathFreeContext (xc);
  xmlFreeDoc (doc);

  /* prop: known properties in a 200 propstat, the unknown one in a 404 propstat with its
   * own namespace. */
  named = request (s, "PROPFIND", "/a%26b%2050%25.png", prop_bytes,
                   "Depth", "0", "Content-Type", "application/xml", NULL);
  g_assert_cmpuint (named->status, ==, 207);
  doc = xmlReadMemory (g_bytes_get_data (named->body, NULL), (int) g_bytes_get_size (named->body),
                       "ms.xml", NULL, XML_PARSE_NONET);
  g_assert_nonnull (doc);
  xc = xmlXPathNewContext (doc);
  xmlXPathRegisterNs (xc, BAD_CAST "d", BAD_CAST "DAV:");
  xmlXPathRegisterNs (xc, BAD_CAST "z", BAD_CAST "urn:x-test");
  g_assert_cmpfloat (xpath_number (xc, "count(//d:propstat[d:status='HTTP/1.1 200 OK']/d:prop/*)"), ==, 2);
  g_assert_cmpfloat (xpath_number (xc, "count(//d:propstat[d:status='HTTP/1.1 404 Not Found']/d:prop/z:custom)"), ==, 1);
  g_assert_cmpfloat (xpath_number (xc, "count(//d:displayname)"), ==, 0);
  xmlXPathFreeContext (xc);
  xmlFreeDoc (doc);

  /* propname: names only, empty elements. */
  names = request (s, "PROPFIND", "/a%26b%2050%25.png", name_bytes,
                   "Depth", "0", NULL);
  g_assert_cmpuint (names->status, ==, 207);
  doc = xmlReadMemory (g_bytes_get_data (names->body, NULL), (int) g_bytes_get_size (names->body),
                       "ms.xml", NULL, XML_PARSE_NONET);
  xc = xmlXPathNewContext (doc);
  xmlXPathRegisterNs (xc, BAD_CAST "d", BAD_CAST "DAV:");
  g_assert_cmpfloat (xpath_number (xc, "count(//d:prop/d:getetag)"), ==, 1);
  g_assert_cmpfloat (xpath_number (xc, "string-length(//d:prop/d:getetag)"), ==, 0);
  g_assert_cmpfloat (xpath_number (xc, "count(//d:prop/d:getcontentlength)"), ==, 1);
  xmlXPathFreeContext (xc);
  xmlFreeDoc (doc);

  /* Depth infinity: refused with the RFC 4918 precondition; no Depth means infinity. */
  inf = request (s, "PROPFIND", "/", NULL, "Depth", "infinity", NULL);
  g_assert_cmpuint (inf->status, ==, 403);
  g_assert_nonnull (g_strstr_len (g_bytes_get_data (inf->body, NULL), (gssize) g_bytes_get_size (inf->body),
                                  "propfind-finite-depth"));
  g_assert_cmpuint (status_of (s, "PROPFIND", "/", NULL, NULL), ==, 403);
  g_assert_cmpuint (status_of (s, "PROPFIND", "/", broken_xml, "Depth", "0", NULL), ==, 400);
  g_assert_cmpuint (status_of (s, "PROPFIND", "/", wrong_root, "Depth", "0", NULL), ==, 400);
  g_assert_cmpuint (status_of (s, "PROPFIND", "/", NULL, "Depth", "2", NULL), ==, 400);
  g_assert_cmpuint (status_of (s, "PROPFIND", "/nothing", NULL, "Depth", "0", NULL), ==, 404);
  g_assert_cmpuint (status_of (s, "PROPFIND", "/.hidden", NULL, "Depth", "0", NULL), ==, 404);
}

void
test_listing (void)
{
  g_autoptr(Store) s = store_new ();
  g_autoptr(GBytes) content = lb_test_bytes (10, 13);
  g_autoptr(Reply) r = NULL;
  g_autoptr(Reply) redirect = NULL;
  g_autofree char *sub = root_path (s, "Ünï dir");
  g_autofree char *hidden = root_path (s, ".dot");
  g_autofree char *html = NULL;

  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  put_file (s, "a b&c%#.png", content);
  write_file (hidden, "x");
  store_run (s);

  r = request (s, "GET", "/", NULL, NULL);
  g_assert_cmpuint (r->status, ==, 200);
  g_assert_cmpstr (soup_message_headers_get_content_type (r->headers, NULL), ==, "text/html");
  html = body_text (r->body);
  /* hrefs percent-encoded; text HTML-escaped; collections end in '/' */
  g_assert_nonnull (strstr (html, "href=\"a%20b%26c%25%23.png\""));
  g_assert_nonnull (strstr (html, ">a b&amp;c%#.png<"));
  g_assert_nonnull (strstr (html, "href=\"%C3%9Cn%C3%AF%20dir/\""));
  g_assert_null (strstr (html, ".dot"));
  g_assert_null (strstr (html, ".lightbox"));
  g_assert_null (strstr (html, "href=\"../\"")); /* no parent link at the root */

  redirect = request (s, "GET", "/%C3%9Cn%C3%AF%20dir", NULL, NULL);
  g_assert_cmpuint (redirect->status, ==, 301);
  {
    g_autofree char *expect = g_strconcat (s->url, "%C3%9Cn%C3%AF%20dir/", NULL);
    g_assert_cmpstr (soup_message_headers_get_one (redirect->headers, "Location"), ==, expect);
  }
  g_assert_cmpuint (status_of (s, "GET", "/%C3%9Cn%C3%AF%20dir/", NULL, NULL), ==, 200);
  g_assert_cmpuint (status_of (s, "GET", "/.dot", NULL, NULL), ==, 404);
}

void
test_traversal (void)
{
  g_autoptr(Store) s = store_new ();
  g_autofree char *sub = root_path (s, "sub");
  g_autofree char *link_dir = root_path (s, "escape");
  g_autofree char *link_file = root_path (s, "escape-file");
  g_autofree char *link_in = root_path (s, "inside-link");
  g_autofree char *secret_path = g_build_filename (s->outside, "secret.txt", NULL);
  g_autoptr(GBytes) payload = g_bytes_new_static ("pwned", 5);
  /* Raw request targets: a client library would normalise many of these away. */
  const char *const variants[] = {
    "/../outside/secret.txt",
    "/sub/../../outside/secret.txt",
    "/%2e%2e/outside/secret.txt",
    "/%2E%2E/outside/secret.txt",
    "/.%2e/outside/secret.txt",
    "/sub/%2e%2e/%2e%2e/outside/secret.txt",
    "/..%2foutside%2fsecret.txt",
    "/%2e%2e%2foutside%2fsecret.txt",
    "/sub%2f..%2f..%2foutside%2fsecret.txt",
    "/..%5coutside%5csecret.txt",
    "/..\\outside\\secret.txt",
    "/sub%00/../../outside/secret.txt",
    "/secret.txt%00.png",
    "/escape/secret.txt",
    "/escape-file",
    "/escape/",
    "/%252e%252e/outside/secret.txt",
    "//outside/secret.txt",
  };

  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  g_assert_cmpint (symlink (s->outside, link_dir), ==, 0);
  g_assert_cmpint (symlink (secret_path, link_file), ==, 0);
  g_assert_cmpint (symlink ("sub", link_in), ==, 0);
  store_run (s);

  for (guint i = 0; i < G_N_ELEMENTS (variants); i++)
    {
      const char *methods[] = { "GET", "PUT", "PROPFIND", "DELETE" };

      for (guint m = 0; m < G_N_ELEMENTS (methods); m++)
        {
          g_autofree char *head = g_strdup_printf ("%s %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nDepth: 0\r\n"
                                                   "Content-Length: %u", methods[m], variants[i],
                                                   (guint) s->port, strcmp (methods[m], "PUT") == 0 ? 5u : 0u);
          g_autoptr(GError) error = NULL;
          g_autoptr(LbTestRawReply) r = lb_test_raw_request (s->port, head,
                                                          strcmp (methods[m], "PUT") == 0 ? payload : NULL,
                                                          &error);
          g_autofree char *body = NULL;

          g_assert_no_error (error);
          g_test_message ("%s %s -> %u", methods[m], variants[i], r->status);
          /* Refused, or resolved to a path inside the root that does not exist (libsoup resolves
           * dot segments first, RFC 3986 §5.2.4); never served, never written outside. */
          g_assert_true (r->status == 400 || r->status == 403 || r->status == 404 || r->status == 409);
          body = body_text (r->body);
          g_assert_null (strstr (body, "TOP-SECRET"));
        }
    }
  /* Nothing was written or removed outside. */
  {
    g_autoptr(GDir) d = g_dir_open (s->outside, 0, NULL);
    const char *n;
    guint count = 0;
    while ((n = g_dir_read_name (d)) != NULL)
      {
        g_assert_cmpstr (n, ==, "secret.txt");
        count++;
      }
    g_assert_cmpuint (count, ==, 1);
  }
  /* Forms that survive libsoup's dot-segment resolution are refused, not merely missed:
   * encoded separators, NUL, backslashes, symlinks leading out. */
  {
    const char *refused[] = { "/..%2foutside", "/sub%2f..%2f..%2foutside", "/a%00b", "/..%5coutside",
                              "/escape/secret.txt", "/escape-file" };
    for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
      {
        g_autofree char *head = g_strdup_printf ("GET %s HTTP/1.1\r\nHost: 127.0.0.1", refused[i]);
        g_autoptr(GError) error = NULL;
        g_autoptr(LbTestRawReply) r = lb_test_raw_request (s->port, head, NULL, &error);
        g_assert_no_error (error);
        g_test_message ("GET %s -> %u", refused[i], r->status);
        g_assert_true (r->status == 400 || r->status == 403);
      }
  }
  /* A symlink that stays inside the root is followed. */
  g_assert_cmpuint (status_of (s, "GET", "/inside-link/", NULL, NULL), ==, 200);
  /* The listing does not show links that lead out. */
  {
    g_autoptr(Reply) r = request (s, "GET", "/", NULL, NULL);
    g_autofree char *html = body_text (r->body);
    g_assert_null (strstr (html, "escape"));
    g_assert_nonnull (strstr (html, "inside-link/"));
  }
}

void
test_filters (void)
{
  g_autoptr(Store) s = store_new ();
  g_autofree char *f = root_path (s, ".lightbox/filters/sharpen.lbfilter");
  g_autofree char *other = root_path (s, ".lightbox/secret.conf");
  g_autoptr(Reply) get = NULL;
  g_autoptr(Reply) pf = NULL;
  g_autoptr(Reply) listing = NULL;
  g_autofree char *xml = NULL;
  g_autofree char *html = NULL;
  const char *filter_text = "{ \"name\": \"sharpen\" }\n";

  write_file (f, filter_text);
  write_file (other, "x");
  store_run (s);

  get = request (s, "GET", "/.lightbox/filters/sharpen.lbfilter", NULL, NULL);
  g_assert_cmpuint (get->status, ==, 200);
  g_assert_cmpmem (g_bytes_get_data (get->body, NULL), g_bytes_get_size (get->body), filter_text, strlen (filter_text));
  pf = request (s, "PROPFIND", "/.lightbox/filters/", NULL, "Depth", "1", NULL);
  g_assert_cmpuint (pf->status, ==, 207);
  xml = body_text (pf->body);
  g_assert_nonnull (strstr (xml, "<D:href>/.lightbox/filters/sharpen.lbfilter</D:href>"));
  listing = request (s, "GET", "/.lightbox/filters/", NULL, NULL);
  g_assert_cmpuint (listing->status, ==, 200);
  html = body_text (listing->body);
  g_assert_nonnull (strstr (html, "href=\"sharpen.lbfilter\""));
  /* Only the filter repository is published among dotfiles. */
  g_assert_cmpuint (status_of (s, "GET", "/.lightbox/secret.conf", NULL, NULL), ==, 404);
  /* Without auth the repository is writable like the rest of the store, but only with filters
   * the engine accepts: anything else is refused with the parser's message (file and line). */
  {
    g_autoptr(GBytes) filter = g_bytes_new_static (valid_filter, strlen (valid_filter));
    const char *bad_text = "[Filter]\nId=org.example.bad\nName=Bad\nCategory=Enhance\nType=kernel\n\n"
                           "[Kernel]\nWidth=4\nHeight=1\nRow1=1 1 1 1\n";
    g_autoptr(GBytes) bad = g_bytes_new_static (bad_text, strlen (bad_text));
    g_autoptr(GBytes) junk = lb_test_bytes (500, 24);
    g_autoptr(Reply) refused = NULL;
    g_autofree char *msg = NULL;

    g_assert_cmpuint (status_of (s, "PUT", "/.lightbox/filters/new.lbfilter", filter, NULL), ==, 201);
    g_assert_cmpuint (status_of (s, "GET", "/.lightbox/filters/new.lbfilter", NULL, NULL), ==, 200);
    refused = request (s, "PUT", "/.lightbox/filters/bad.lbfilter", bad, NULL);
    g_assert_cmpuint (refused->status, ==, 422);
    msg = body_text (refused->body);
    g_test_message ("422 body: %s", msg);
    g_assert_nonnull (strstr (msg, "bad.lbfilter:"));
    g_assert_cmpuint (status_of (s, "PUT", "/.lightbox/filters/junk.lbfilter", junk, NULL), ==, 422);
    /* A bad replacement leaves the published filter as it was. */
    g_assert_cmpuint (status_of (s, "PUT", "/.lightbox/filters/new.lbfilter", bad, NULL), ==, 422);
    {
      g_autoptr(Reply) still = request (s, "GET", "/.lightbox/filters/new.lbfilter", NULL, NULL);
      g_assert_true (g_bytes_equal (still->body, filter));
    }
    g_assert_false (g_file_test (root_path (s, ".lightbox/filters/bad.lbfilter"), G_FILE_TEST_EXISTS));
    g_assert_cmpuint (lb_test_server_count_temps (s->root), ==, 0);
  }
}
