/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The store clients and lightbox-cli against hostile servers on 127.0.0.1 (issue 30, items 9,
 * 10, 11 and 15):
 *  - JSON nested 100 000 deep as a listing, a DICOMweb search, /metadata and a STOW-RS answer:
 *    a clear error, never a crash;
 *  - a gzip bomb to `get` and to an image fetch, endless bodies to `get`, an image fetch, a
 *    DICOMweb frame and /metadata, a Content-Length of a petabyte: refused early, with no
 *    partial file;
 *  - a chunked body cut at a chunk boundary, a compressed body cut short, a body that does not
 *    match its Content-Digest: `get` fails and FILE keeps its old content; whole chunked
 *    bodies (kept alive or closed as announced) and matching digests pass;
 *  - `ls -R` of a tree that never ends, and of a local folder with links to its ancestors;
 *    `get` killed with SIGKILL leaves nothing, and stale temporaries of an older scheme are
 *    removed by the next `get` of the same file.
  * Image fetches run through `lightbox-cli filter URL OUT.png blur:size=3` (lb_cli_load_image()).
 * The CLI runs as a subprocess (a crash is exit by a signal); a run that does not end within
 * its time is killed and fails the case. */
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <utime.h>

#include "hostile-server.h"
#include "lb-error.h"
#include "lb-png.h"
#include "lb-test-files.h"
#include "lb-test-image.h"
#include "lb-test-loop.h"
#include "lb-test-process.h"
#include "lb-test-stores.h"

#define DEEP 100000
/* what an "endless" body sends at most before the server gives up (a safeguard for runs of
 * the code before the fix, which read on) */
#define GUARD (G_GINT64_CONSTANT (512) << 20)

/* ---------------------------------------------------------------------------------------- */
/* running lightbox-cli                                                                      */

typedef struct {
  gboolean exited;
  int      status;    /* exit status, or the signal */
  char    *out;
  char    *err;
} Run;

static void
run_clear (Run *r)
{
  g_free (r->out);
  g_free (r->err);
}

typedef struct {
  GSubprocess *proc;
  gboolean     done;
  char        *out;
  char        *err;
} Wait;

static void
communicated (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Wait *w = user_data;

  g_subprocess_communicate_utf8_finish (G_SUBPROCESS (source), result, &w->out, &w->err, NULL);
  w->done = TRUE;
}

/* Runs lightbox-cli with @args (NULL-terminated, after the program), @env ("NAME=VALUE" or
 * NULL); fails the case if it runs longer than @limit_s seconds (a hang, not a measurement). */
static Run
cli (const char *const *args, const char *env, guint limit_s)
{
  g_autofree char *exe = lb_test_build_path ("LB_BUILD_ROOT", "src", "cli", "lightbox-cli", NULL);
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  Wait w = { 0 };
  Run r = { 0 };

  if (env != NULL)
    {
      g_auto(GStrv) kv = g_strsplit (env, "=", 2);
      g_subprocess_launcher_setenv (launcher, kv[0], kv[1], TRUE);
    }
  g_ptr_array_add (argv, exe);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  w.proc = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8_async (w.proc, NULL, NULL, communicated, &w);
  if (!lb_test_wait (lb_test_flag_is_set, &w.done, limit_s * 1000))
    {
      g_subprocess_force_exit (w.proc);
      lb_test_wait_flag (&w.done);
      g_error ("lightbox-cli %s did not end within %u s", args[0], limit_s);
    }
  r.exited = g_subprocess_get_if_exited (w.proc);
  r.status = r.exited ? g_subprocess_get_exit_status (w.proc) : g_subprocess_get_term_sig (w.proc);
  r.out = w.out;
  r.err = w.err;
  g_test_message ("lightbox-cli %s → %s %d: %s", args[0], r.exited ? "exit" : "signal", r.status,
                  r.err != NULL ? r.err : "");
  g_object_unref (w.proc);
  return r;
}

/* A failure with a message (exit 1, never a signal) that says @what. */
static void
assert_refused (const Run *r, const char *what)
{
  g_assert_true (r->exited);
  g_assert_cmpint (r->status, ==, 1);
  g_assert_nonnull (r->err);
  g_assert_nonnull (strstr (r->err, what));
}

static char *
url_of (HostileServer *server, const char *path)
{
  return g_strconcat (hostile_server_url (server), path, NULL);
}

/* ---------------------------------------------------------------------------------------- */
/* 9. nested JSON                                                                            */

static GBytes *
nested (guint depth)
{
  GString *s = g_string_sized_new (2 * depth);

  for (guint i = 0; i < depth; i++)
    g_string_append_c (s, '[');
  for (guint i = 0; i < depth; i++)
    g_string_append_c (s, ']');
  return g_string_free_to_bytes (s);
}

typedef struct {
  GBytes  *body;            /* the nested document */
  gboolean empty_searches;  /* searches (a query) get "[]": what a STOW-RS upload asks first */
} Nested;

static gboolean
nested_handler (HostileServer *server, const HostileRequest *req, GOutputStream *out, gpointer data)
{
  Nested *n = data;
  const char *type = strstr (req->path, "dicom-web") != NULL ? "application/dicom+json"
                                                             : "application/json";
  g_autofree char *headers = g_strdup_printf ("Content-Type: %s\r\n", type);

  if (n->empty_searches && strchr (req->path, '?') != NULL)
    return hostile_respond (out, 200, headers, "[]", 2);
  if (g_str_equal (req->method, "GET") || g_str_equal (req->method, "POST"))
    return hostile_respond (out, 200, headers, g_bytes_get_data (n->body, NULL),
                            g_bytes_get_size (n->body));
  return hostile_respond (out, 405, NULL, NULL, 0);
}

/* A Part 10 file beside the test (what `put` uploads). */
static char *
write_part10 (const char *dir)
{
  g_autoptr(GBytes) file = hostile_part10 ("1.2.3.4.5.6", 0);
  char *path = g_build_filename (dir, "x.dcm", NULL);

  g_assert_true (g_file_set_contents (path, g_bytes_get_data (file, NULL),
                                      (gssize) g_bytes_get_size (file), NULL));
  return path;
}

static void
test_nested_json (void)
{
  g_autoptr(GBytes) body = nested (DEEP);
  Nested all = { body, FALSE };
  Nested stow = { body, TRUE };
  g_autoptr(HostileServer) server = hostile_server_new (nested_handler, &all);
  g_autoptr(HostileServer) stow_server = hostile_server_new (nested_handler, &stow);
  g_autofree char *dir = lb_test_make_tmpdir ("hostile-json");
  g_autofree char *png = g_build_filename (dir, "out.png", NULL);
  g_autofree char *dcm = write_part10 (dir);
  g_autofree char *listing = url_of (server, "files/");
  g_autofree char *dw = g_strconcat ("dicomweb+", hostile_server_url (server), "dicom-web", NULL);
  g_autofree char *instance = g_strconcat (dw, "/studies/1.2/series/1.2.3/instances/1.2.3.4", NULL);
  g_autofree char *study = g_strconcat ("dicomweb+", hostile_server_url (stow_server),
                                        "dicom-web/studies/1.2/", NULL);

  /* a JSON listing (nginx autoindex_format json) */
  {
    const char *const args[] = { "ls", "--type", "listing", listing, NULL };
    Run r = cli (args, NULL, 120);
    assert_refused (&r, "nested deeper than 256 levels");
    run_clear (&r);
  }
  /* a DICOMweb search (QIDO-RS) */
  {
    const char *const args[] = { "ls", dw, NULL };
    Run r = cli (args, NULL, 120);
    assert_refused (&r, "nested deeper than 256 levels");
    run_clear (&r);
  }
  /* an instance's /metadata (WADO-RS), before its frame */
  {
    const char *const args[] = { "filter", instance, png, "blur:size=3", NULL };
    Run r = cli (args, NULL, 120);
    assert_refused (&r, "nested deeper than 256 levels");
    g_assert_false (g_file_test (png, G_FILE_TEST_EXISTS));
    run_clear (&r);
  }
  /* the answer to a STOW-RS upload (the searches before it find nothing) */
  {
    const char *const args[] = { "put", dcm, study, NULL };
    Run r = cli (args, NULL, 120);
    assert_refused (&r, "nested deeper than 256 levels");
    run_clear (&r);
  }
  lb_test_remove_tree (dir);
}

/* ---------------------------------------------------------------------------------------- */
/* 10. bodies without a bound                                                                */

typedef struct {
  GBytes *bomb;        /* gzip of 256 MiB of zeros */
  gint    sent_kib;    /* KiB written of the last endless body (atomic) */
} Bodies;

/* A valid 8×8 grey PNG. */
static GBytes *
small_png (void)
{
  g_autoptr(LbImage) image = lb_test_image_new (8, 8, LB_FORMAT_GRAY8, 1);
  g_autoptr(GError) error = NULL;
  GBytes *png = lb_png_save_to_bytes (image, &error);

  g_assert_no_error (error);
  return png;
}

/* Writes @head, then @prefix, then bytes until the client goes or GUARD is reached; closes. */
static gboolean
stream_endless (Bodies *b, GOutputStream *out, const char *head, GBytes *prefix)
{
  static guint8 block[65536];
  gint64 sent = 0;

  memset (block, 0x5a, sizeof block);
  g_atomic_int_set (&b->sent_kib, 0);
  if (!hostile_printf (out, "%s", head))
    return FALSE;
  if (prefix != NULL && !hostile_write (out, g_bytes_get_data (prefix, NULL), g_bytes_get_size (prefix)))
    return FALSE;
  while (sent < GUARD && hostile_write (out, block, sizeof block))
    {
      sent += sizeof block;
      g_atomic_int_set (&b->sent_kib, (gint) (sent / 1024));
    }
  return FALSE;
}

static gint64
endless_sent (Bodies *b)
{
  return (gint64) g_atomic_int_get (&b->sent_kib) * 1024;
}

static const char metadata_64[] =
  "[{\"00280010\":{\"vr\":\"US\",\"Value\":[64]},\"00280011\":{\"vr\":\"US\",\"Value\":[64]},"
  "\"00280100\":{\"vr\":\"US\",\"Value\":[16]},\"00280101\":{\"vr\":\"US\",\"Value\":[16]},"
  "\"00280002\":{\"vr\":\"US\",\"Value\":[1]},\"00280004\":{\"vr\":\"CS\",\"Value\":[\"MONOCHROME2\"]}}]";

static gboolean
bodies_handler (HostileServer *server, const HostileRequest *req, GOutputStream *out, gpointer data)
{
  Bodies *b = data;
  static const char close_delimited[] =
    "HTTP/1.1 200 Hostile\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n";

  if (g_str_equal (req->path, "/bomb.bin"))
    return hostile_respond (out, 200, "Content-Type: application/octet-stream\r\n"
                                      "Content-Encoding: gzip\r\n",
                            g_bytes_get_data (b->bomb, NULL), g_bytes_get_size (b->bomb));
  if (g_str_equal (req->path, "/endless.bin"))
    return stream_endless (b, out, close_delimited, NULL);
  if (g_str_equal (req->path, "/petabyte.bin"))
    return stream_endless (b, out, "HTTP/1.1 200 Hostile\r\nContent-Type: application/octet-stream\r\n"
                                   "Content-Length: 1000000000000000\r\n\r\n", NULL);
  if (g_str_equal (req->path, "/after.png"))
    {
      g_autoptr(GBytes) png = small_png ();
      return stream_endless (b, out, "HTTP/1.1 200 Hostile\r\nContent-Type: image/png\r\n"
                                     "Connection: close\r\n\r\n", png);
    }
  if (g_str_has_suffix (req->path, "/metadata") && strstr (req->path, "/endless/") != NULL)
    return stream_endless (b, out, "HTTP/1.1 200 Hostile\r\nContent-Type: application/dicom+json\r\n"
                                   "Connection: close\r\n\r\n", NULL);
  if (g_str_has_suffix (req->path, "/metadata"))
    return hostile_respond (out, 200, "Content-Type: application/dicom+json\r\n", metadata_64,
                            strlen (metadata_64));
  if (g_str_has_suffix (req->path, "/frames/1"))
    return stream_endless (b, out, "HTTP/1.1 200 Hostile\r\nContent-Type: multipart/related; "
                                   "type=\"application/octet-stream\"; boundary=b\r\n"
                                   "Connection: close\r\n\r\n", NULL);
  return hostile_respond (out, 404, NULL, NULL, 0);
}

static Bodies *
bodies_new (void)
{
  Bodies *b = g_new0 (Bodies, 1);

  b->bomb = hostile_gzip_zeros ((gsize) 256 << 20);
  return b;
}

static void
bodies_free (Bodies *b)
{
  g_bytes_unref (b->bomb);
  g_free (b);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Bodies, bodies_free)

/* @dir holds only FILE, with its old content. */
static void
assert_untouched (const char *dir, const char *file)
{
  g_autoptr(GBytes) now = lb_test_read_file (file);

  g_assert_cmpuint (lb_test_count_entries (dir), ==, 1);
  g_assert_cmpmem (g_bytes_get_data (now, NULL), g_bytes_get_size (now), "old content", 11);
}

static void
test_unbounded_bodies (void)
{
  g_autoptr(Bodies) b = bodies_new ();
  g_autoptr(HostileServer) server = hostile_server_new (bodies_handler, b);
  g_autofree char *dir = lb_test_make_tmpdir ("hostile-bodies");
  g_autofree char *file = g_build_filename (dir, "file.bin", NULL);
  g_autofree char *outdir = lb_test_make_tmpdir ("hostile-bodies-out");
  g_autofree char *png = g_build_filename (outdir, "out.png", NULL);
  g_autofree char *bomb = url_of (server, "bomb.bin");
  g_autofree char *endless = url_of (server, "endless.bin");
  g_autofree char *petabyte = url_of (server, "petabyte.bin");
  g_autofree char *after = url_of (server, "after.png");
  g_autofree char *dw = g_strconcat ("dicomweb+", hostile_server_url (server), "dicom-web", NULL);
  g_autofree char *frame = g_strconcat (dw, "/studies/1/series/2/instances/3", NULL);
  g_autofree char *md_endless = g_strconcat (dw, "/studies/1/series/endless/instances/3", NULL);

  g_test_message ("gzip bomb: %zu bytes for 256 MiB", g_bytes_get_size (b->bomb));
  g_assert_true (g_file_set_contents (file, "old content", -1, NULL));

  /* get: a gzip bomb stops at the decompression ratio */
  {
    const char *const args[] = { "get", bomb, file, NULL };
    Run r = cli (args, NULL, 120);
    assert_refused (&r, "decompression bomb");
    assert_untouched (dir, file);
    run_clear (&r);
  }
  /* get: an endless body stops at --max-size */
  {
    const char *const args[] = { "get", "--max-size", "10000000", endless, file, NULL };
    Run r = cli (args, NULL, 120);
    assert_refused (&r, "larger than the 10000000 bytes allowed (--max-size)");
    assert_untouched (dir, file);
    g_assert_cmpint (endless_sent (b), <, 64 << 20);
    run_clear (&r);
  }
  /* get: a body that says it is larger than the free space is refused before it is read */
  {
    const char *const args[] = { "get", petabyte, file, NULL };
    Run r = cli (args, NULL, 120);
    assert_refused (&r, "bytes free in");
    assert_untouched (dir, file);
    g_assert_cmpint (endless_sent (b), <, 64 << 20);
    run_clear (&r);
  }
  /* an image fetch: the gzip bomb stops at the ratio, not after 256 MiB in memory */
  {
    const char *const args[] = { "filter", bomb, png, "blur:size=3", NULL };
    Run r = cli (args, NULL, 120);
    assert_refused (&r, "decompression bomb");
    run_clear (&r);
  }
  /* an image fetch: an endless body stops at the byte limit */
  {
    const char *const args[] = { "filter", endless, png, "blur:size=3", NULL };
    Run r = cli (args, "LIGHTBOX_MAX_BYTES=16777216", 120);
    assert_refused (&r, "larger than the limit of 16777216 bytes");
    g_assert_cmpint (endless_sent (b), <, 64 << 20);
    run_clear (&r);
  }
  /* an image fetch: a PNG followed by an endless body is complete at its IEND */
  {
    const char *const args[] = { "filter", after, png, "blur:size=3", NULL };
    Run r = cli (args, NULL, 120);
    g_assert_true (r.exited);
    g_assert_cmpint (r.status, ==, 0);
    g_assert_true (g_file_test (png, G_FILE_TEST_EXISTS));
    g_assert_cmpint (endless_sent (b), <, 64 << 20);
    g_unlink (png);
    run_clear (&r);
  }
  /* a DICOMweb frame: bounded by the size its metadata gives (64×64×16 bits) */
  {
    const char *const args[] = { "filter", frame, png, "blur:size=3", NULL };
    Run r = cli (args, NULL, 120);
    assert_refused (&r, "larger than");
    g_assert_false (g_file_test (png, G_FILE_TEST_EXISTS));
    g_assert_cmpint (endless_sent (b), <, 64 << 20);
    run_clear (&r);
  }
  /* DICOMweb /metadata: bounded by the metadata cap (16 MiB) */
  {
    const char *const args[] = { "filter", md_endless, png, "blur:size=3", NULL };
    Run r = cli (args, NULL, 120);
    assert_refused (&r, "larger than 16777216 bytes");
    g_assert_cmpint (endless_sent (b), <, 64 << 20);
    run_clear (&r);
  }
  lb_test_remove_tree (dir);
  lb_test_remove_tree (outdir);
}

/* ---------------------------------------------------------------------------------------- */
/* 11. truncated downloads                                                                   */

#define WHOLE 200000
#define CHUNK 10000

typedef struct {
  GBytes *data;        /* WHOLE bytes */
  GBytes *packed;      /* gzip of @data */
} Framing;

static gboolean
send_chunks (GOutputStream *out, GBytes *data, gsize upto, gboolean last)
{
  const guint8 *p = g_bytes_get_data (data, NULL);

  for (gsize off = 0; off < upto; off += CHUNK)
    if (!hostile_printf (out, "%x\r\n", (guint) MIN (CHUNK, upto - off))
        || !hostile_write (out, p + off, MIN (CHUNK, upto - off)) || !hostile_printf (out, "\r\n"))
      return FALSE;
  return !last || hostile_printf (out, "0\r\n\r\n");
}

static char *
digest_of (GBytes *data)
{
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  guint8 raw[32];
  gsize len = sizeof raw;

  g_checksum_update (sum, g_bytes_get_data (data, NULL), g_bytes_get_size (data));
  g_checksum_get_digest (sum, raw, &len);
  return g_base64_encode (raw, len);
}

static gboolean
framing_handler (HostileServer *server, const HostileRequest *req, GOutputStream *out, gpointer user_data)
{
  Framing *f = user_data;
  static const char chunked[] = "HTTP/1.1 200 Hostile\r\nContent-Type: application/octet-stream\r\n"
                                "Transfer-Encoding: chunked\r\n";

  if (g_str_equal (req->path, "/cut.bin"))
    {
      /* half the body, then the connection closes at a chunk boundary */
      hostile_printf (out, "%s\r\n", chunked);
      send_chunks (out, f->data, WHOLE / 2, FALSE);
      return FALSE;
    }
  if (g_str_equal (req->path, "/whole.bin"))
    return hostile_printf (out, "%s\r\n", chunked) && send_chunks (out, f->data, WHOLE, TRUE);
  if (g_str_equal (req->path, "/whole-close.bin"))
    {
      hostile_printf (out, "%sConnection: close\r\n\r\n", chunked);
      send_chunks (out, f->data, WHOLE, TRUE);
      return FALSE;
    }
  if (g_str_equal (req->path, "/gzip-cut.bin"))
    {
      /* Content-Length of the whole compressed body, half of it, and the connection closes
       * (announced: libsoup reads such a body up to the end of file) */
      hostile_printf (out, "HTTP/1.1 200 Hostile\r\nContent-Type: application/octet-stream\r\n"
                           "Content-Encoding: gzip\r\nConnection: close\r\nContent-Length: %zu\r\n\r\n",
                      g_bytes_get_size (f->packed));
      hostile_write (out, g_bytes_get_data (f->packed, NULL), g_bytes_get_size (f->packed) / 2);
      return FALSE;
    }
  if (g_str_equal (req->path, "/digest-good.bin") || g_str_equal (req->path, "/digest-bad.bin"))
    {
      g_autoptr(GBytes) other = lb_test_bytes (WHOLE, 99);
      g_autofree char *sum = digest_of (g_str_equal (req->path, "/digest-good.bin") ? f->data : other);
      g_autofree char *headers = g_strdup_printf ("Content-Type: application/octet-stream\r\n"
                                                  "Content-Digest: sha-256=:%s:\r\n", sum);

      return hostile_respond (out, 200, headers, g_bytes_get_data (f->data, NULL), WHOLE);
    }
  return hostile_respond (out, 404, NULL, NULL, 0);
}

static void
test_truncated_downloads (void)
{
  g_autofree guint8 *zeros = g_malloc0 (WHOLE);
  Framing f = { lb_test_bytes (WHOLE, 21), NULL };
  g_autoptr(HostileServer) server = NULL;
  g_autofree char *dir = lb_test_make_tmpdir ("hostile-framing");
  g_autofree char *file = g_build_filename (dir, "file.bin", NULL);
  const char *const refused[][2] = {
    /* libsoup 3.6.5 and later report the cut themselves (Debian 13: "… (Connection
     * terminated unexpectedly)"), older ones leave it to lb-http-body-stream.c ("…: the server
     * closed the connection before the last chunk"): both name the bytes that came */
    { "cut.bin", "truncated after 100000 bytes" },
    { "gzip-cut.bin", "truncated" },
    { "digest-bad.bin", "does not match its Content-Digest" },
  };
  const char *const accepted[] = { "whole.bin", "whole-close.bin", "digest-good.bin" };

  {
    g_autoptr(GZlibCompressor) gzip = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 1);
    g_autoptr(GOutputStream) mem = g_memory_output_stream_new_resizable ();
    g_autoptr(GOutputStream) conv = g_converter_output_stream_new (mem, G_CONVERTER (gzip));

    /* the data itself barely compresses: half the gzip stream is about half the data */
    g_assert_true (g_output_stream_write_all (conv, g_bytes_get_data (f.data, NULL), WHOLE, NULL, NULL, NULL));
    g_assert_true (g_output_stream_close (conv, NULL, NULL));
    f.packed = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (mem));
  }
  server = hostile_server_new (framing_handler, &f);

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autofree char *url = url_of (server, refused[i][0]);
      const char *const args[] = { "get", url, file, NULL };
      Run r;

      g_assert_true (g_file_set_contents (file, "old content", -1, NULL));
      r = cli (args, NULL, 120);
      assert_refused (&r, refused[i][1]);
      assert_untouched (dir, file);
      run_clear (&r);
    }
  for (guint i = 0; i < G_N_ELEMENTS (accepted); i++)
    {
      g_autofree char *url = url_of (server, accepted[i]);
      const char *const args[] = { "get", url, file, NULL };
      g_autoptr(GBytes) got = NULL;
      Run r;

      g_assert_true (g_file_set_contents (file, "old content", -1, NULL));
      r = cli (args, NULL, 120);
      g_assert_true (r.exited);
      g_assert_cmpint (r.status, ==, 0);
      got = lb_test_read_file (file);
      g_assert_true (g_bytes_equal (got, f.data));
      g_assert_cmpuint (lb_test_count_entries (dir), ==, 1);
      run_clear (&r);
    }

  /* The stream API says the same: the error comes where the body ends. */
  {
    g_autoptr(LbStoreOptions) options = lb_store_options_new ();
    g_autoptr(LbStore) store = NULL;
    g_autofree char *url = url_of (server, "cut.bin");
    g_autoptr(GError) error = NULL;
    g_autoptr(GBytes) got = NULL;

    options->type = g_strdup ("listing");
    store = lb_test_store_open (hostile_server_url (server), options);
    got = lb_test_store_read_all (store, url, NULL, &error);
    g_assert_null (got);
    g_assert_error (error, LB_ERROR, LB_ERROR_TRUNCATED);
  }
  g_bytes_unref (f.data);
  g_bytes_unref (f.packed);
  lb_test_remove_tree (dir);
}

/* ---------------------------------------------------------------------------------------- */
/* 15. endless trees, killed downloads                                                       */

/* Every folder lists 30 folders: a tree without end. */
static gboolean
tree_handler (HostileServer *server, const HostileRequest *req, GOutputStream *out, gpointer data)
{
  GString *json = g_string_new ("[");

  for (guint i = 0; i < 30; i++)
    g_string_append_printf (json, "%s{\"name\":\"d%02u\",\"type\":\"directory\"}", i ? "," : "", i);
  g_string_append_c (json, ']');
  hostile_respond (out, 200, "Content-Type: application/json\r\n", json->str, json->len);
  g_string_free (json, TRUE);
  return TRUE;
}

static void
test_endless_tree (void)
{
  g_autoptr(HostileServer) server = hostile_server_new (tree_handler, NULL);
  const char *const args[] = { "ls", "-R", "--type", "listing", hostile_server_url (server), NULL };
  Run r = cli (args, NULL, 240);

  assert_refused (&r, "stopped after 100000 entries (--max-total)");
  g_test_message ("%u listings asked for", hostile_server_count (server));
  /* 100 000 entries at 30 a folder, and the 64 folders on the way down whose entries were
   * not all printed yet */
  g_assert_cmpuint (hostile_server_count (server), <=, 100000 / 30 + 1 + 64);
  run_clear (&r);
}

static void
test_local_loops (void)
{
  g_autofree char *dir = lb_test_make_tmpdir ("hostile-loops");
  g_autofree char *sub = g_build_filename (dir, "sub", NULL);
  g_autofree char *a = g_build_filename (sub, "a", NULL);
  g_autofree char *b = g_build_filename (sub, "b", NULL);
  g_autofree char *f = g_build_filename (sub, "f.txt", NULL);
  const char *const args[] = { "ls", "-R", dir, NULL };
  Run r;

  /* two links back up: without loop detection, 2^64 paths */
  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  g_assert_true (g_file_set_contents (f, "x", -1, NULL));
  g_assert_cmpint (symlink ("..", a), ==, 0);
  g_assert_cmpint (symlink ("..", b), ==, 0);
  r = cli (args, NULL, 120);
  g_assert_true (r.exited);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "a folder already being listed (a loop)"));
  /* sub/, its file and its two links; each link leads to the top folder, listed once more
   * (sub/a/sub/ is where the loop is seen) */
  g_assert_nonnull (strstr (r.out, "sub/f.txt\t1\n"));
  {
    g_auto(GStrv) lines = g_strsplit (r.out, "\n", -1);
    g_assert_cmpuint (g_strv_length (lines), <, 40);
  }
  run_clear (&r);
  lb_test_remove_tree (dir);
}

typedef struct {
  GBytes *data;
  gint    sent_kib;  /* atomic */
} Slow;

/* 64 MiB announced, sent 64 KiB at a time, slowly. */
static gboolean
slow_handler (HostileServer *server, const HostileRequest *req, GOutputStream *out, gpointer user_data)
{
  Slow *s = user_data;
  const guint8 *p = g_bytes_get_data (s->data, NULL);

  if (!hostile_printf (out, "HTTP/1.1 200 Hostile\r\nContent-Type: application/octet-stream\r\n"
                            "Content-Length: %zu\r\n\r\n", g_bytes_get_size (s->data)))
    return FALSE;
  for (gsize off = 0; off < g_bytes_get_size (s->data); off += 65536)
    {
      if (!hostile_write (out, p + off, 65536))
        return FALSE;
      g_atomic_int_set (&s->sent_kib, (gint) ((off + 65536) / 1024));
      g_usleep (20000);
    }
  return FALSE;
}

static gboolean
sent_enough (gpointer data)
{
  Slow *s = data;

  return g_atomic_int_get (&s->sent_kib) >= 512;
}

static void
test_killed_get (void)
{
  Slow s = { lb_test_bytes (64 << 20, 8), 0 };
  g_autoptr(HostileServer) server = hostile_server_new (slow_handler, &s);
  g_autofree char *dir = lb_test_make_tmpdir ("hostile-killed");
  g_autofree char *file = g_build_filename (dir, "file.bin", NULL);
  g_autofree char *url = url_of (server, "file.bin");
  g_autofree char *exe = lb_test_build_path ("LB_BUILD_ROOT", "src", "cli", "lightbox-cli", NULL);
  g_autofree char *stale = g_build_filename (dir, ".file.bin.lbget-AbC123", NULL);
  g_autofree char *fresh = g_build_filename (dir, ".file.bin.lbget-XyZ789", NULL);
  g_autofree char *other = g_build_filename (dir, ".file.bin.lbget-notmine", NULL);
  g_autoptr(GSubprocess) p = NULL;
  g_autoptr(GError) error = NULL;
  struct utimbuf old_times = { 0, 0 };

  g_assert_true (g_file_set_contents (file, "old content", -1, NULL));
  /* 1. SIGKILL in the middle of the body: FILE keeps its content and nothing is left */
  p = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_SILENCE,
                        &error, exe, "get", url, file, NULL);
  g_assert_no_error (error);
  g_assert_true (lb_test_wait (sent_enough, &s, 60000));
  g_subprocess_send_signal (p, SIGKILL);
  g_subprocess_wait (p, NULL, NULL);
  assert_untouched (dir, file);

  /* 2. where a temporary was left anyway (a file system without O_TMPFILE, or a kill between
   *    naming it and renaming it), the next get of FILE removes the stale ones of its pattern */
  g_assert_true (g_file_set_contents (stale, "stale", -1, NULL));
  g_assert_true (g_file_set_contents (fresh, "a download still running", -1, NULL));
  g_assert_true (g_file_set_contents (other, "not of the pattern", -1, NULL));
  old_times.actime = old_times.modtime = time (NULL) - 3600;
  g_assert_cmpint (utime (stale, &old_times), ==, 0);
  g_assert_cmpint (utime (other, &old_times), ==, 0);
  {
    const char *const args[] = { "get", "--max-size", "1000", url, file, NULL };
    Run r = cli (args, NULL, 120);
    assert_refused (&r, "--max-size");
    run_clear (&r);
  }
  g_assert_false (g_file_test (stale, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (fresh, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (other, G_FILE_TEST_EXISTS));
  g_bytes_unref (s.data);
  lb_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/client-hostile/nested-json", test_nested_json);
  g_test_add_func ("/client-hostile/unbounded-bodies", test_unbounded_bodies);
  g_test_add_func ("/client-hostile/truncated-downloads", test_truncated_downloads);
  g_test_add_func ("/client-hostile/endless-tree", test_endless_tree);
  g_test_add_func ("/client-hostile/local-loops", test_local_loops);
  g_test_add_func ("/client-hostile/killed-get", test_killed_get);
  return g_test_run ();
}
