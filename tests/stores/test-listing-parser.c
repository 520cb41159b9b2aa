/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of the listing parsers on documents captured from real servers
 * (nginx 1.22, Apache 2.4 mod_autoindex/mod_dav, python 3.11 http.server, Orthanc 1.10 WebDAV),
 * plus hostile listings. */
#define G_LOG_DOMAIN "test-listing-parser"

#include <string.h>

#include "lb-error.h"
#include "lb-http.h"
#include "lb-listing-parser.h"
#include "lb-store.h"
#include "lb-write-back.h"

#define BASE "http://127.0.0.1:18081/"

static LbStoreEntry *
find (GPtrArray *entries, const char *name)
{
  for (guint i = 0; i < entries->len; i++)
    if (g_str_equal (lb_store_entry_get_name (entries->pdata[i]), name))
      return entries->pdata[i];
  return NULL;
}

static void
test_nginx_html (void)
{
  static const char doc[] =
    "<html>\n<head><title>Index of /upload/</title></head>\n<body>\n"
    "<h1>Index of /upload/</h1><hr><pre><a href=\"../\">../</a>\n"
    "<a href=\"With%20Space/\">With Space/</a>                                        29-Nov-2026 20:22                   -\n"
    "<a href=\"%C3%9Cn%C3%AFc%C3%B6d%C3%A9/\">&#220;n&#239;c&#246;d&#233;/</a>                                       29-Nov-2026 20:22                   -\n"
    "<a href=\"a_very_long_file_name_that_exceeds_fifty_characters_for_sure_0123456789.png\">a_very_long_file_name_that_exceeds_fifty_charac..&gt;</a> 29-Nov-2026 20:22                   2\n"
    "<a href=\"quote%22and%3Clt%3E.txt\">quote&quot;and&lt;lt&gt;.txt</a>                                  29-Nov-2026 20:22                   163521\r\n"
    "</pre><hr></body>\n</html>\n";
  LbListingContext ctx = { BASE "upload/", BASE, 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = lb_listing_parse_html (doc, sizeof doc - 1, &ctx, &error);
  LbStoreEntry *e;

  g_assert_no_error (error);
  g_assert_cmpuint (entries->len, ==, 4);
  e = find (entries, "With Space");
  g_assert_nonnull (e);
  g_assert_cmpint (lb_store_entry_get_kind (e), ==, LB_STORE_ENTRY_DIRECTORY);
  g_assert_cmpstr (lb_store_entry_get_uri (e), ==, BASE "upload/With%20Space/");
  e = find (entries, "Ünïcödé");
  g_assert_nonnull (e);
  g_assert_cmpstr (lb_store_entry_get_uri (e), ==, BASE "upload/%C3%9Cn%C3%AFc%C3%B6d%C3%A9/");
  /* the link text is truncated; the href is the truth */
  e = find (entries, "a_very_long_file_name_that_exceeds_fifty_characters_for_sure_0123456789.png");
  g_assert_nonnull (e);
  g_assert_cmpint (lb_store_entry_get_kind (e), ==, LB_STORE_ENTRY_IMAGE);
  g_assert_cmpint (lb_store_entry_get_size (e), ==, 2);
  g_assert_nonnull (lb_store_entry_get_mtime (e));
  g_assert_cmpint (g_date_time_get_year (lb_store_entry_get_mtime (e)), ==, 2026);
  g_assert_cmpint (g_date_time_get_minute (lb_store_entry_get_mtime (e)), ==, 22);
  e = find (entries, "quote\"and<lt>.txt");
  g_assert_nonnull (e);
  g_assert_cmpint (lb_store_entry_get_size (e), ==, 163521);
  g_assert_cmpstr (lb_store_entry_get_uri (e), ==, BASE "upload/quote%22and%3Clt%3E.txt");
}

static void
test_apache_html (void)
{
  static const char doc[] =
    "<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 3.2 Final//EN\">\n<html>\n <head>\n"
    "  <title>Index of /Ünïcödé</title>\n </head>\n <body>\n<h1>Index of /Ünïcödé</h1>\n"
    "  <table>\n   <tr><th valign=\"top\">&nbsp;</th><th><a href=\"?C=N;O=D\">Name</a></th>"
    "<th><a href=\"?C=M;O=A\">Last modified</a></th><th><a href=\"?C=S;O=A\">Size</a></th>"
    "<th><a href=\"?C=D;O=A\">Description</a></th></tr>\n"
    "   <tr><th colspan=\"5\"><hr></th></tr>\n"
    "<tr><td valign=\"top\">&nbsp;</td><td><a href=\"/\">Parent Directory</a></td><td>&nbsp;</td><td align=\"right\">  - </td><td>&nbsp;</td></tr>\n"
    "<tr><td valign=\"top\">&nbsp;</td><td><a href=\"bild&amp;50%25.png\">bild&amp;50%.png</a></td><td align=\"right\">2026-11-29 20:22  </td><td align=\"right\">3.3K</td><td>&nbsp;</td></tr>\n"
    "<tr><td valign=\"top\">&nbsp;</td><td><a href=\"exact.bin\">exact.bin</a></td><td align=\"right\">2026-11-29 20:23  </td><td align=\"right\">812</td><td>&nbsp;</td></tr>\n"
    "<tr><td valign=\"top\">&nbsp;</td><td><a href=\"sub/\">sub/</a></td><td align=\"right\">2026-11-29 20:22  </td><td align=\"right\">  - </td><td>&nbsp;</td></tr>\n"
    "   <tr><th colspan=\"5\"><hr></th></tr>\n</table>\n</body></html>\n";
  LbListingContext ctx = { BASE "%C3%9Cn%C3%AFc%C3%B6d%C3%A9/", BASE, 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = lb_listing_parse_html (doc, sizeof doc - 1, &ctx, &error);
  LbStoreEntry *e;

  g_assert_no_error (error);
  g_assert_cmpuint (entries->len, ==, 3); /* no sort links, no parent */
  e = find (entries, "bild&50%.png");
  g_assert_nonnull (e);
  g_assert_cmpstr (lb_store_entry_get_uri (e), ==, BASE "%C3%9Cn%C3%AFc%C3%B6d%C3%A9/bild&50%25.png");
  g_assert_cmpint (lb_store_entry_get_size (e), ==, -1); /* "3.3K" is not a size */
  g_assert_nonnull (lb_store_entry_get_mtime (e));
  e = find (entries, "exact.bin");
  g_assert_cmpint (lb_store_entry_get_size (e), ==, 812);
  g_assert_cmpint (lb_store_entry_get_kind (e), ==, LB_STORE_ENTRY_FILE);
  e = find (entries, "sub");
  g_assert_cmpint (lb_store_entry_get_kind (e), ==, LB_STORE_ENTRY_DIRECTORY);
}

static void
test_python_html (void)
{
  static const char doc[] =
    "<!DOCTYPE HTML>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<title>Directory listing for /Ünïcödé/</title>\n</head>\n<body>\n"
    "<h1>Directory listing for /Ünïcödé/</h1>\n<hr>\n<ul>\n"
    "<li><a href=\"bild%2650%25.png\">bild&amp;50%.png</a></li>\n"
    "<li><a href=\"CT/\">CT/</a></li>\n"
    "<li><a href=\".hidden\">.hidden</a></li>\n"
    "</ul>\n<hr>\n</body>\n</html>\n";
  LbListingContext ctx = { BASE "%C3%9Cn%C3%AFc%C3%B6d%C3%A9/", BASE, 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = lb_listing_parse_html (doc, sizeof doc - 1, &ctx, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (entries->len, ==, 3);
  g_assert_nonnull (find (entries, "bild&50%.png"));
  g_assert_cmpint (lb_store_entry_get_kind (find (entries, "CT")), ==, LB_STORE_ENTRY_DIRECTORY);
  g_assert_cmpint (lb_store_entry_get_size (find (entries, ".hidden")), ==, -1);
}

static void
test_nginx_json (void)
{
  static const char doc[] =
    "[\n"
    "{ \"name\":\"mr 0051 #1.png\", \"type\":\"file\", \"mtime\":\"Sun, 29 Nov 2026 20:22:14 GMT\", \"size\":163521 },\n"
    "{ \"name\":\"quote\\\"and<lt>.txt\", \"type\":\"file\", \"mtime\":\"Sun, 29 Nov 2026 20:22:34 GMT\", \"size\":2 },\n"
    "{ \"name\":\"Ünïcödé\", \"type\":\"directory\", \"mtime\":\"Sun, 29 Nov 2026 20:22:14 GMT\" },\n"
    "{ \"name\":\"..\", \"type\":\"directory\" },\n"
    "{ \"name\":\"a/b\", \"type\":\"file\" },\n"
    "{ \"name\":\"link\", \"type\":\"other\", \"size\":5 }\n"
    "]\n";
  LbListingContext ctx = { BASE "With%20Space/", BASE, 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = lb_listing_parse_json (doc, sizeof doc - 1, &ctx, &error);
  LbStoreEntry *e;

  g_assert_no_error (error);
  g_assert_cmpuint (entries->len, ==, 4);
  e = find (entries, "mr 0051 #1.png");
  g_assert_cmpstr (lb_store_entry_get_uri (e), ==, BASE "With%20Space/mr%200051%20%231.png");
  g_assert_cmpint (lb_store_entry_get_size (e), ==, 163521);
  g_assert_cmpint (g_date_time_get_second (lb_store_entry_get_mtime (e)), ==, 14);
  e = find (entries, "Ünïcödé");
  g_assert_cmpint (lb_store_entry_get_kind (e), ==, LB_STORE_ENTRY_DIRECTORY);
  g_assert_true (g_str_has_suffix (lb_store_entry_get_uri (e), "/%C3%9Cn%C3%AFc%C3%B6d%C3%A9/"));
  g_assert_nonnull (find (entries, "quote\"and<lt>.txt"));
}

static void
test_nginx_propfind (void)
{
  static const char doc[] =
    "<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<D:multistatus xmlns:D=\"DAV:\">\n"
    "<D:response>\n<D:href>/With%20Space/</D:href>\n<D:propstat>\n<D:prop>\n"
    "<D:displayname>With Space</D:displayname>\n"
    "<D:getlastmodified>Sun, 29 Nov 2026 20:22:14 GMT</D:getlastmodified>\n"
    "<D:resourcetype><D:collection/></D:resourcetype>\n<D:lockdiscovery/>\n<D:supportedlock>\n"
    "</D:supportedlock>\n</D:prop>\n<D:status>HTTP/1.1 200 OK</D:status>\n</D:propstat>\n</D:response>\n"
    "<D:response>\n<D:href>/With%20Space/mr%200051%20%231.png</D:href>\n<D:propstat>\n<D:prop>\n"
    "<D:displayname>mr 0051 #1.png</D:displayname>\n<D:getcontentlength>163521</D:getcontentlength>\n"
    "<D:getlastmodified>Sun, 29 Nov 2026 20:22:14 GMT</D:getlastmodified>\n"
    "<D:resourcetype></D:resourcetype>\n<D:lockdiscovery/>\n<D:supportedlock>\n</D:supportedlock>\n"
    "</D:prop>\n<D:status>HTTP/1.1 200 OK</D:status>\n</D:propstat>\n</D:response>\n"
    "<D:response>\n<D:href>/With%20Space/bild&amp;50%25.png</D:href>\n<D:propstat>\n<D:prop>\n"
    "<D:getcontentlength>3343</D:getcontentlength>\n<D:resourcetype/>\n"
    "</D:prop>\n<D:status>HTTP/1.1 200 OK</D:status>\n</D:propstat>\n</D:response>\n"
    "</D:multistatus>\n";
  LbListingContext ctx = { BASE "With%20Space/", BASE, 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStoreEntry) self = NULL;
  g_autoptr(GPtrArray) entries = lb_listing_parse_multistatus (doc, sizeof doc - 1, &ctx, &self, &error);
  LbStoreEntry *e;

  g_assert_no_error (error);
  g_assert_cmpuint (entries->len, ==, 2);
  g_assert_nonnull (self);
  g_assert_cmpint (lb_store_entry_get_kind (self), ==, LB_STORE_ENTRY_DIRECTORY);
  e = find (entries, "mr 0051 #1.png");
  g_assert_cmpint (lb_store_entry_get_size (e), ==, 163521);
  g_assert_cmpint (lb_store_entry_get_kind (e), ==, LB_STORE_ENTRY_IMAGE);
  g_assert_cmpstr (lb_store_entry_get_uri (e), ==, BASE "With%20Space/mr%200051%20%231.png");
  e = find (entries, "bild&50%.png");
  g_assert_nonnull (e);
  g_assert_cmpstr (lb_store_entry_get_uri (e), ==, BASE "With%20Space/bild&50%25.png");
}

static void
test_apache_propfind (void)
{
  /* other prefixes for DAV: (lp1), lowercase escapes, getetag, content types */
  static const char doc[] =
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<D:multistatus xmlns:D=\"DAV:\">\n"
    "<D:response xmlns:lp2=\"http://apache.org/dav/props/\" xmlns:lp1=\"DAV:\">\n"
    "<D:href>/%c3%9cn%c3%afc%c3%b6d%c3%a9/</D:href>\n<D:propstat>\n<D:prop>\n"
    "<lp1:resourcetype><D:collection/></lp1:resourcetype>\n"
    "<lp1:getlastmodified>Sun, 29 Nov 2026 20:22:14 GMT</lp1:getlastmodified>\n"
    "<lp1:getetag>\"1000-661700c84b178\"</lp1:getetag>\n"
    "<D:getcontenttype>httpd/unix-directory</D:getcontenttype>\n"
    "</D:prop>\n<D:status>HTTP/1.1 200 OK</D:status>\n</D:propstat>\n</D:response>\n"
    "<D:response xmlns:lp2=\"http://apache.org/dav/props/\" xmlns:lp1=\"DAV:\">\n"
    "<D:href>/%c3%9cn%c3%afc%c3%b6d%c3%a9/bild&amp;50%25.png</D:href>\n<D:propstat>\n<D:prop>\n"
    "<lp1:resourcetype/>\n<lp1:creationdate>2026-11-29T20:23:04Z</lp1:creationdate>\n"
    "<lp1:getcontentlength>3343</lp1:getcontentlength>\n"
    "<lp1:getlastmodified>Sun, 29 Nov 2026 20:22:14 GMT</lp1:getlastmodified>\n"
    "<lp1:getetag>\"d0f-661700c84bc5b\"</lp1:getetag>\n<lp2:executable>F</lp2:executable>\n"
    "<D:getcontenttype>image/png</D:getcontenttype>\n"
    "</D:prop>\n<D:status>HTTP/1.1 200 OK</D:status>\n</D:propstat>\n"
    "<D:propstat><D:prop><D:displayname/></D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>\n"
    "</D:response>\n"
    /* a look-alike in another namespace must not count */
    "<X:response xmlns:X=\"urn:not-dav\"><X:href>/%c3%9cn%c3%afc%c3%b6d%c3%a9/fake.png</X:href></X:response>\n"
    "</D:multistatus>\n";
  /* the client asked with uppercase escapes; Apache answers lowercase */
  LbListingContext ctx = { BASE "%C3%9Cn%C3%AFc%C3%B6d%C3%A9/", BASE, 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(LbStoreEntry) self = NULL;
  g_autoptr(GPtrArray) entries = lb_listing_parse_multistatus (doc, sizeof doc - 1, &ctx, &self, &error);
  LbStoreEntry *e;

  g_assert_no_error (error);
  g_assert_nonnull (self);
  g_assert_cmpstr (lb_store_entry_get_etag (self), ==, "\"1000-661700c84b178\"");
  g_assert_cmpuint (entries->len, ==, 1);
  e = entries->pdata[0];
  g_assert_cmpstr (lb_store_entry_get_name (e), ==, "bild&50%.png");
  g_assert_cmpstr (lb_store_entry_get_etag (e), ==, "\"d0f-661700c84bc5b\"");
  g_assert_cmpstr (lb_store_entry_get_content_type (e), ==, "image/png");
  g_assert_cmpint (lb_store_entry_get_size (e), ==, 3343);
  g_assert_cmpint (lb_store_entry_get_kind (e), ==, LB_STORE_ENTRY_IMAGE);
}

static void
test_orthanc_propfind (void)
{
  /* collections without trailing slash, ISO 8601 dates */
  static const char doc[] =
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<D:multistatus xmlns:D=\"DAV:\">\n"
    "  <D:response>\n    <D:href>/webdav/by-patients/</D:href>\n    <D:propstat>\n      <D:prop>\n"
    "        <D:resourcetype>\n          <D:collection/>\n        </D:resourcetype>\n"
    "      </D:prop>\n      <D:status>HTTP/1.1 200 OK</D:status>\n    </D:propstat>\n  </D:response>\n"
    "  <D:response>\n    <D:href>/webdav/by-patients/1CT1%20-%20CompressedSamples%5ECT1</D:href>\n"
    "    <D:propstat>\n      <D:prop>\n        <D:displayname>1CT1 - CompressedSamples^CT1</D:displayname>\n"
    "        <D:getlastmodified>2026-11-29T20:25:03Z</D:getlastmodified>\n"
    "        <D:resourcetype>\n          <D:collection/>\n        </D:resourcetype>\n"
    "      </D:prop>\n      <D:status>HTTP/1.1 200 OK</D:status>\n    </D:propstat>\n  </D:response>\n"
    "  <D:response>\n    <D:href>/webdav/by-patients/8b37d670.dcm</D:href>\n"
    "    <D:propstat>\n      <D:prop>\n        <D:getcontenttype>application/dicom</D:getcontenttype>\n"
    "        <D:getcontentlength>39206</D:getcontentlength><D:resourcetype/>\n"
    "      </D:prop>\n      <D:status>HTTP/1.1 200 OK</D:status>\n    </D:propstat>\n  </D:response>\n"
    "</D:multistatus>\n";
  LbListingContext ctx = { "http://127.0.0.1:18042/webdav/by-patients/",
                           "http://127.0.0.1:18042/webdav/", 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = lb_listing_parse_multistatus (doc, sizeof doc - 1, &ctx, NULL, &error);
  LbStoreEntry *e;

  g_assert_no_error (error);
  g_assert_cmpuint (entries->len, ==, 2);
  e = find (entries, "1CT1 - CompressedSamples^CT1");
  g_assert_nonnull (e);
  g_assert_cmpint (lb_store_entry_get_kind (e), ==, LB_STORE_ENTRY_DIRECTORY);
  g_assert_true (g_str_has_suffix (lb_store_entry_get_uri (e), "CompressedSamples%5ECT1/"));
  g_assert_nonnull (lb_store_entry_get_mtime (e));
  g_assert_cmpint (g_date_time_get_hour (lb_store_entry_get_mtime (e)), ==, 20);
  g_assert_cmpint (g_date_time_get_minute (lb_store_entry_get_mtime (e)), ==, 25);
  e = find (entries, "8b37d670.dcm");
  g_assert_cmpint (lb_store_entry_get_kind (e), ==, LB_STORE_ENTRY_DICOM_FILE);
}

static void
test_hostile_hrefs (void)
{
  g_autofree char *long_name = g_strnfill (5000, 'n');
  g_autofree char *doc = g_strdup_printf (
    "<html><body><pre>"
    "<a href=\"http://evil.example/x.png\">other origin</a>"
    "<a href=\"//evil.example/y.png\">protocol-relative</a>"
    "<a href=\"https://127.0.0.1:18081/base/z.png\">other scheme</a>"
    "<a href=\"http://127.0.0.1:18082/base/z.png\">other port</a>"
    "<a href=\"../\">parent</a>"
    "<a href=\"../sibling.png\">parent file</a>"
    "<a href=\"/outside.png\">absolute outside</a>"
    "<a href=\"?C=N;O=D\">sort</a>"
    "<a href=\"ok.png?download=1\">query</a>"
    "<a href=\"#top\">fragment</a>"
    "<a href=\"ok.png#frag\">fragment on a file</a>"
    "<a href=\"javascript:alert(1)\">js</a>"
    "<a href=\"mailto:x@example.org\">mail</a>"
    "<a href=\"%%2e%%2e/secret.png\">encoded dots</a>"
    "<a href=\"sub/%%2e%%2e/%%2e%%2e/secret.png\">encoded dots deeper</a>"
    "<a href=\"sub/deeper.png\">grandchild</a>"
    "<a href=\"./\">self</a>"
    "<a href=\"\">empty</a>"
    "<a href=\"%%00nul.png\">nul</a>"
    "<a>no href</a>"
    "<a href=\"http://127.0.0.1:18081/base/ok.png\">absolute same origin</a>"
    "<a href=\"ok.png\">duplicate</a>"
    "<a href=\"%s.png\">long</a>"
    "<a href=\"sp ace.png\">raw space</a>"
    "<a href=\"x.png\"><a href=\"y.png\">broken nesting"
    "</pre></body></html>", long_name);
  LbListingContext ctx = { BASE "base/", BASE "base/", 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = lb_listing_parse_html (doc, strlen (doc), &ctx, &error);
  g_autofree char *long_png = g_strconcat (long_name, ".png", NULL);

  g_assert_no_error (error);
  for (guint i = 0; i < entries->len; i++)
    {
      const char *uri = lb_store_entry_get_uri (entries->pdata[i]);
      g_assert_true (g_str_has_prefix (uri, BASE "base/"));
      g_assert_null (strchr (uri, '?'));
      g_assert_null (strchr (uri, '#'));
    }
  g_assert_nonnull (find (entries, "ok.png"));
  g_assert_nonnull (find (entries, long_png));
  g_assert_nonnull (find (entries, "sp ace.png"));
  g_assert_cmpstr (lb_store_entry_get_uri (find (entries, "sp ace.png")), ==, BASE "base/sp%20ace.png");
  g_assert_nonnull (find (entries, "x.png"));
  g_assert_nonnull (find (entries, "y.png"));
  g_assert_null (find (entries, "secret.png"));
  g_assert_null (find (entries, "deeper.png"));
  g_assert_null (find (entries, "z.png"));
  g_assert_cmpuint (entries->len, ==, 5); /* ok, long, sp ace, x, y */
}

static void
test_classify (void)
{
  LbListingContext ctx = { BASE "a/b/", BASE "a/", 0 };
  g_autofree char *uri = NULL;
  g_autofree char *name = NULL;
  gboolean is_dir = FALSE;

  g_assert_cmpint (lb_listing_classify_href (&ctx, "c/", &uri, &name, &is_dir), ==, LB_LISTING_HREF_CHILD);
  g_assert_cmpstr (uri, ==, BASE "a/b/c/");
  g_assert_cmpstr (name, ==, "c");
  g_assert_true (is_dir);
  g_assert_cmpint (lb_listing_classify_href (&ctx, "/a/b", NULL, NULL, NULL), ==, LB_LISTING_HREF_SELF);
  g_assert_cmpint (lb_listing_classify_href (&ctx, "/a/b/", NULL, NULL, NULL), ==, LB_LISTING_HREF_SELF);
  g_assert_cmpint (lb_listing_classify_href (&ctx, "/a/", NULL, NULL, NULL), ==, LB_LISTING_HREF_REJECT);
  g_assert_cmpint (lb_listing_classify_href (&ctx, "/a/b/c/d", NULL, NULL, NULL), ==, LB_LISTING_HREF_REJECT);
  g_assert_cmpint (lb_listing_classify_href (&ctx, "/a/bc", NULL, NULL, NULL), ==, LB_LISTING_HREF_REJECT);
  g_assert_cmpint (lb_listing_classify_href (&ctx, "HTTP://127.0.0.1:18081/a/b/x", NULL, NULL, NULL),
                   ==, LB_LISTING_HREF_CHILD);
  g_assert_cmpint (lb_listing_classify_href (&ctx, "/a/b/%c3%a9", NULL, NULL, NULL), ==, LB_LISTING_HREF_CHILD);
  /* a base outside the root is refused wholesale */
  {
    LbListingContext outside = { BASE "z/", BASE "a/", 0 };
    g_assert_cmpint (lb_listing_classify_href (&outside, "x", NULL, NULL, NULL), ==, LB_LISTING_HREF_REJECT);
  }
}

static GString *
make_many_html (guint n)
{
  GString *doc = g_string_new ("<html><body><pre><a href=\"../\">../</a>\n");

  for (guint i = 0; i < n; i++)
    g_string_append_printf (doc, "<a href=\"file-%06u.png\">file-%06u.png</a>   29-Nov-2026 20:22   %u\n",
                            i, i, i);
  g_string_append (doc, "</pre></body></html>\n");
  return doc;
}

static void
test_many_entries (void)
{
  g_autoptr(GString) doc = make_many_html (100000);
  LbListingContext ctx = { BASE, BASE, 100000 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = lb_listing_parse_html (doc->str, doc->len, &ctx, &error);
  g_autoptr(GPtrArray) capped = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (entries->len, ==, 100000);
  g_assert_cmpint (lb_store_entry_get_size (entries->pdata[99999]), ==, 99999);

  ctx.max_entries = 99999;
  capped = lb_listing_parse_html (doc->str, doc->len, &ctx, &error);
  g_assert_null (capped);
  g_assert_error (error, LB_ERROR, LB_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "listing too large"));
}

static void
test_hostile_xml (void)
{
  /* an external entity is never loaded: the document is refused as malformed */
  static const char xxe[] =
    "<?xml version=\"1.0\"?>\n<!DOCTYPE m [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>\n"
    "<D:multistatus xmlns:D=\"DAV:\">"
    "<D:response><D:href>/d/a.png</D:href><D:propstat><D:prop><D:displayname>&xxe;</D:displayname>"
    "<D:resourcetype/></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>"
    "</D:multistatus>";
  /* other origins and parents are dropped; a 404 propstat contributes nothing */
  static const char doc[] =
    "<D:multistatus xmlns:D=\"DAV:\">"
    "<D:response><D:href>http://evil.example/a.png</D:href><D:propstat><D:prop><D:resourcetype/></D:prop>"
    "<D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>"
    "<D:response><D:href>/</D:href><D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype></D:prop>"
    "<D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>"
    "<D:response><D:href>/d/gone.png</D:href><D:propstat><D:prop><D:getcontentlength>5</D:getcontentlength></D:prop>"
    "<D:status>HTTP/1.1 404 Not Found</D:status></D:propstat></D:response>"
    "<D:response><D:href>/d/a.png</D:href><D:propstat><D:prop><D:getcontentlength>7</D:getcontentlength>"
    "<D:resourcetype/></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>"
    "</D:multistatus>";
  static const char not_dav[] = "<html><body>hello</body></html>";
  LbListingContext ctx = { BASE "d/", BASE, 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) refused = lb_listing_parse_multistatus (xxe, sizeof xxe - 1, &ctx, NULL, &error);
  g_autoptr(GPtrArray) entries = NULL;
  g_autoptr(GPtrArray) none = NULL;

  g_assert_null (refused);
  g_assert_error (error, LB_ERROR, LB_ERROR_PARSE);
  g_clear_error (&error);

  entries = lb_listing_parse_multistatus (doc, sizeof doc - 1, &ctx, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (entries->len, ==, 1);
  g_assert_cmpstr (lb_store_entry_get_name (entries->pdata[0]), ==, "a.png");
  g_assert_cmpint (lb_store_entry_get_size (entries->pdata[0]), ==, 7);

  none = lb_listing_parse_multistatus (not_dav, sizeof not_dav - 1, &ctx, NULL, &error);
  g_assert_null (none);
  g_assert_error (error, LB_ERROR, LB_ERROR_PARSE);
}

static void
test_streamed_feed (void)
{
  /* fed a byte at a time, the parser gives the same result as in one piece */
  static const char doc[] =
    "<html><body><pre><a href=\"../\">../</a>\n"
    "<a href=\"a.png\">a.png</a>   29-Nov-2026 20:22   17\n"
    "<a href=\"b/\">b/</a>   29-Nov-2026 20:22   -\n</pre></body></html>\n";
  LbListingContext ctx = { BASE, BASE, 0 };
  g_autoptr(LbListingParser) p = lb_listing_parser_new (LB_LISTING_HTML, &ctx);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = NULL;

  for (gsize i = 0; i < sizeof doc - 1; i++)
    g_assert_true (lb_listing_parser_feed (p, doc + i, 1, &error));
  entries = lb_listing_parser_finish (p, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (entries->len, ==, 2);
  g_assert_cmpint (lb_store_entry_get_size (find (entries, "a.png")), ==, 17);
  g_assert_true (lb_store_entry_is_container (find (entries, "b")));
}

static void
test_cap_stops_early (void)
{
  /* the cap fails the feed as soon as it is exceeded, before the document ends */
  g_autoptr(GString) doc = make_many_html (1000);
  LbListingContext ctx = { BASE, BASE, 10 };
  g_autoptr(LbListingParser) p = lb_listing_parser_new (LB_LISTING_HTML, &ctx);
  g_autoptr(GError) error = NULL;
  gsize fed = 0;

  while (fed < doc->len)
    {
      gsize n = MIN (4096, doc->len - fed);
      if (!lb_listing_parser_feed (p, doc->str + fed, n, &error))
        break;
      fed += n;
    }
  g_assert_error (error, LB_ERROR, LB_ERROR_TOO_LARGE);
  g_assert_cmpuint (fed, <, doc->len);
}

static void
test_bad_json (void)
{
  LbListingContext ctx = { BASE, BASE, 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = lb_listing_parse_json ("{\"not\": \"an array\"}", 19, &ctx, &error);

  g_assert_null (entries);
  g_assert_error (error, LB_ERROR, LB_ERROR_PARSE);
  g_clear_error (&error);
  g_assert_null (lb_listing_parse_json ("[{\"name\": ", 10, &ctx, &error));
  g_assert_error (error, LB_ERROR, LB_ERROR_PARSE);
}

/* A cancelled listing stops while its entries are made, in one piece or streamed, and the
 * same document parses in full without the cancellation. */
static void
test_json_cancelled (void)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  LbListingContext ctx = { BASE, BASE, 0, cancellable };
  g_autoptr(GString) doc = g_string_new ("[");
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < 5000; i++)
    g_string_append_printf (doc, "%s{\"name\": \"f%u.png\", \"type\": \"file\"}", i ? "," : "", i);
  g_string_append (doc, "]");
  {
    g_autoptr(GPtrArray) entries = lb_listing_parse_json (doc->str, doc->len, &ctx, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (entries->len, ==, 5000);
  }
  g_cancellable_cancel (cancellable);
  g_assert_null (lb_listing_parse_json (doc->str, doc->len, &ctx, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_nonnull (strstr (error->message, BASE));
  g_clear_error (&error);
  {
    g_autoptr(LbListingParser) p = lb_listing_parser_new (LB_LISTING_JSON, &ctx);

    /* the parser holds its own reference to the cancellable */
    ctx.cancellable = NULL;
    g_assert_true (lb_listing_parser_feed (p, doc->str, doc->len, &error));
    g_assert_null (lb_listing_parser_finish (p, NULL, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  }
}

static void
test_uri_helpers (void)
{
  g_autofree char *a = lb_store_uri_display_name ("http://h/x/mr%20small%20%231.png");
  g_autofree char *b = lb_store_uri_display_name ("http://h/x/%C3%9Cn%C3%AFc%C3%B6d%C3%A9/");
  g_autofree char *c = lb_store_uri_display_name ("http://h/x/a%2Fb");
  g_autofree char *d = lb_store_uri_display_name ("http://h/x/%FF%FE.png");
  g_autofree char *e = lb_store_uri_child ("http://h/x", "mr small #1.png", FALSE);
  g_autofree char *f = lb_store_uri_child ("http://h/x/", "Ünï", TRUE);
  g_autofree char *g = lb_store_uri_parent ("http://h/x/y.png");
  g_autofree char *h = lb_store_uri_parent ("http://h/x/");
  g_autofree char *i = lb_store_uri_parent ("http://h/");

  g_assert_cmpstr (a, ==, "mr small #1.png");
  g_assert_cmpstr (b, ==, "Ünïcödé");
  g_assert_cmpstr (c, ==, "a%2Fb");        /* a slash in a name stays escaped */
  g_assert_cmpstr (d, ==, "%FF%FE.png");   /* not UTF-8: stays escaped */
  g_assert_cmpstr (e, ==, "http://h/x/mr%20small%20%231.png");
  g_assert_cmpstr (f, ==, "http://h/x/%C3%9Cn%C3%AF/");
  g_assert_true (g_str_has_prefix (f, "http://h/x/") && g_str_has_suffix (f, "/"));
  {
    g_autofree char *back = lb_store_uri_display_name (f);
    g_assert_cmpstr (back, ==, "Ünï");
  }
  g_assert_cmpstr (g, ==, "http://h/x/");
  g_assert_cmpstr (h, ==, "http://h/");
  g_assert_null (i);
}

static void
test_dates (void)
{
  g_autoptr(GDateTime) rfc = lb_http_parse_date ("Sun, 29 Nov 2026 20:22:14 GMT");
  g_autoptr(GDateTime) iso = lb_http_parse_date ("2026-11-29T20:25:03Z");
  g_autoptr(GDateTime) bad = lb_http_parse_date ("yesterday");

  g_assert_nonnull (rfc);
  g_assert_cmpint (g_date_time_to_unix (rfc), ==, G_GINT64_CONSTANT (1795983734));
  g_assert_nonnull (iso);
  g_assert_cmpint (g_date_time_to_unix (iso), ==, G_GINT64_CONSTANT (1795983903));
  g_assert_null (bad);
}

static void
test_derived_names (void)
{
  g_autofree char *a = lb_write_back_derived_name ("CT_small.png", "sharpen", 1);
  g_autofree char *b = lb_write_back_derived_name ("CT_small.png", "sharpen", 2);
  g_autofree char *c = lb_write_back_derived_name ("scan.dcm", "Unsharp mask (σ=2)", 1);
  g_autofree char *d = lb_write_back_derived_name (".hidden", NULL, 1);
  g_autofree char *e = lb_write_back_derived_name ("a.b.tar", "x/../y", 3);

  g_assert_cmpstr (a, ==, "CT_small.sharpen.png");
  g_assert_cmpstr (b, ==, "CT_small.sharpen-2.png");
  g_assert_cmpstr (c, ==, "scan.Unsharp-mask-2.png");
  g_assert_cmpstr (d, ==, ".hidden.lightbox.png");
  g_assert_cmpstr (e, ==, "a.b.x-y-3.png");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/listing/nginx-html", test_nginx_html);
  g_test_add_func ("/listing/apache-html", test_apache_html);
  g_test_add_func ("/listing/python-html", test_python_html);
  g_test_add_func ("/listing/nginx-json", test_nginx_json);
  g_test_add_func ("/listing/nginx-propfind", test_nginx_propfind);
  g_test_add_func ("/listing/apache-propfind", test_apache_propfind);
  g_test_add_func ("/listing/orthanc-propfind", test_orthanc_propfind);
  g_test_add_func ("/listing/hostile-hrefs", test_hostile_hrefs);
  g_test_add_func ("/listing/classify", test_classify);
  g_test_add_func ("/listing/many-entries", test_many_entries);
  g_test_add_func ("/listing/hostile-xml", test_hostile_xml);
  g_test_add_func ("/listing/bad-json", test_bad_json);
  g_test_add_func ("/listing/streamed-feed", test_streamed_feed);
  g_test_add_func ("/listing/cap-stops-early", test_cap_stops_early);
  g_test_add_func ("/listing/json-cancelled", test_json_cancelled);
  g_test_add_func ("/stores/uri-helpers", test_uri_helpers);
  g_test_add_func ("/stores/dates", test_dates);
  g_test_add_func ("/stores/derived-names", test_derived_names);
  return g_test_run ();
}
