/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Conditional writes racing on one name, against the real lightbox-store binary on 127.0.0.1.
 * Each client has its own connection; every request is sent but for its last byte, and once
 * all are in, the last bytes go out together, so the bodies complete at the same moment and
 * the commits overlap. A precondition (If-None-Match: *, If-Match, Overwrite: F) admits one
 * winner: exactly one request may succeed, every other one gets 412, and the name holds the
 * winner's content. Each case runs several rounds, since one round may happen not to
 * interleave. */
#include <signal.h>

#include "store-http.h"

#define ROUNDS 12
#define BODY_SIZE (256 * 1024) /* bytes: long enough that the commits (fsync) overlap */
/* How much later the bodiless requests complete, by round: 0 to 11 ms. */
#define LATE_US(round) ((gulong) (round) * 1000)

static char *root;
static HttpStore store;

typedef struct {
  char     *head;
  GBytes   *body; /* (nullable) */
  gboolean  late; /* its last byte goes after the others' (see race()) */
} Req;

static void
req_free (Req *r)
{
  g_free (r->head);
  g_clear_pointer (&r->body, g_bytes_unref);
  g_free (r);
}

static Req *
add_req (GPtrArray *reqs, GBytes *body, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

static Req *
add_req (GPtrArray *reqs, GBytes *body, const char *fmt, ...)
{
  Req *r = g_new0 (Req, 1);
  g_autofree char *line = NULL;
  char *eol;
  va_list ap;

  va_start (ap, fmt);
  line = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  /* The Host field goes after the request line: with the port, as Destination has it. */
  eol = strstr (line, "\r\n");
  r->head = g_strdup_printf ("%.*s\r\nHost: 127.0.0.1:%u%s",
                             eol != NULL ? (int) (eol - line) : (int) strlen (line), line,
                             store.port, eol != NULL ? eol : "");
  if (body != NULL)
    {
      g_autofree char *with_len = g_strdup_printf ("%s\r\nContent-Length: %" G_GSIZE_FORMAT, r->head,
                                                   g_bytes_get_size (body));
      g_free (r->head);
      r->head = g_steal_pointer (&with_len);
      r->body = g_bytes_ref (body);
    }
  g_ptr_array_add (reqs, r);
  return r;
}

/* Sends every request of @reqs on its own connection, held back by its last byte; then the
 * last bytes together, those of requests marked late @late_us microseconds after the others.
 * Fills @status with each reply's status.
 *
 * A method without a body (DELETE, COPY, MOVE) runs on the server's main loop as soon as its
 * head is complete, while a PUT commits in a worker thread after an fsync: sent at the same
 * moment, the DELETE always goes first. Sent a little later, it lands while the PUTs
 * commit. */
static void
race (GPtrArray *reqs, guint *status, gulong late_us)
{
  g_autofree int *fds = g_new (int, reqs->len);
  g_autoptr (GPtrArray) wire = g_ptr_array_new_with_free_func ((GDestroyNotify) g_byte_array_unref);

  for (guint i = 0; i < reqs->len; i++)
    {
      Req *r = g_ptr_array_index (reqs, i);
      gsize blen = r->body != NULL ? g_bytes_get_size (r->body) : 0;
      GByteArray *b = http_request_bytes (r->head, r->body != NULL ? g_bytes_get_data (r->body, NULL) : NULL,
                                          blen);

      g_ptr_array_add (wire, b);
      fds[i] = http_connect (store.port);
      g_assert_true (http_send_all (fds[i], b->data, b->len - 1));
    }
  /* Let the server read everything but the last bytes: the requests then complete within
   * microseconds of each other. */
  g_usleep (300 * 1000);
  for (guint pass = 0; pass < 2; pass++)
    {
      if (pass == 1 && late_us > 0)
        g_usleep (late_us);
      for (guint i = 0; i < reqs->len; i++)
        {
          GByteArray *b = g_ptr_array_index (wire, i);

          if (((Req *) g_ptr_array_index (reqs, i))->late == (pass == 1))
            g_assert_true (http_send_all (fds[i], b->data + b->len - 1, 1));
        }
    }
  for (guint i = 0; i < reqs->len; i++)
    {
      g_autoptr (HttpReply) rep = http_read_reply (fds[i]);

      status[i] = rep->status;
      close (fds[i]);
    }
}

static char *
path_of (const char *name)
{
  return g_build_filename (root, name, NULL);
}

/* The strong ETag the server gives @name now. */
static char *
etag_of (const char *name)
{
  g_autofree char *head = g_strdup_printf ("GET /%s HTTP/1.1\r\nHost: 127.0.0.1", name);
  g_autoptr (HttpReply) r = http_request (store.port, head, NULL, 0);

  g_assert_cmpuint (r->status, ==, 200);
  return http_reply_header (r, "etag");
}

/* Exactly one status of @status is 2xx, all others are 412; returns the winner's index. */
static guint
one_winner (const guint *status, guint n, const char *what)
{
  guint winner = G_MAXUINT, wins = 0;
  g_autoptr (GString) all = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    {
      g_string_append_printf (all, " %u", status[i]);
      if (status[i] >= 200 && status[i] < 300)
        {
          winner = i;
          wins++;
        }
    }
  g_test_message ("%s:%s", what, all->str);
  g_assert_cmpuint (wins, ==, 1);
  for (guint i = 0; i < n; i++)
    if (i != winner)
      g_assert_cmpuint (status[i], ==, 412);
  return winner;
}

static void
assert_file_is (const char *name, GBytes *want)
{
  g_autofree char *p = path_of (name);
  g_autoptr (GBytes) got = http_read_file (p);

  g_assert_nonnull (got);
  g_assert_true (g_bytes_equal (got, want));
}

static void
assert_absent (const char *name)
{
  g_autofree char *p = path_of (name);

  g_assert_false (g_file_test (p, G_FILE_TEST_EXISTS));
}

/* No upload temporary or other hidden entry is left in the root. */
static void
assert_no_temps (void)
{
  g_autoptr (GDir) d = g_dir_open (root, 0, NULL);
  const char *name;

  while ((name = g_dir_read_name (d)) != NULL)
    if (name[0] == '.' && strcmp (name, ".lightbox") != 0)
      g_error ("left behind: %s", name);
}

/* Appends @n PUTs of @name with the header field @condition, bodies seeded from @seed. */
static void
add_puts (GPtrArray *reqs, guint n, const char *name, const char *condition, guint seed)
{
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GBytes) body = lb_test_bytes (BODY_SIZE, seed + i);

      add_req (reqs, body, "PUT /%s HTTP/1.1\r\n%s", name, condition);
    }
}

/* Writes the original @name and returns its ETag. */
static char *
original (const char *name)
{
  g_autofree char *p = path_of (name);

  http_write_file (p, "original content\n", 17);
  return etag_of (name);
}

/* Races @reqs (round @round); returns the one winner, its status in @status. */
static Req *
run_round (GPtrArray *reqs, guint round, const char *what, guint *status)
{
  g_autofree guint *all = g_new0 (guint, reqs->len);
  guint w;

  race (reqs, all, LATE_US (round));
  w = one_winner (all, reqs->len, what);
  *status = all[w];
  return g_ptr_array_index (reqs, w);
}

/* 12 creators with If-None-Match: * on one new name: one 201, eleven 412. */
static void
test_put_if_none_match (void)
{
  for (guint round = 0; round < ROUNDS; round++)
    {
      g_autofree char *name = g_strdup_printf ("create-%u.bin", round);
      g_autoptr (GPtrArray) reqs = g_ptr_array_new_with_free_func ((GDestroyNotify) req_free);
      Req *w;
      guint status;

      add_puts (reqs, 12, name, "If-None-Match: *", 100 * round);
      w = run_round (reqs, round, "If-None-Match: *", &status);
      g_assert_cmpuint (status, ==, 201);
      assert_file_is (name, w->body);
    }
  assert_no_temps ();
}

/* 10 writers with the same If-Match on one file: one 204, nine 412. */
static void
test_put_if_match (void)
{
  for (guint round = 0; round < ROUNDS; round++)
    {
      g_autofree char *name = g_strdup_printf ("update-%u.bin", round);
      g_autofree char *etag = original (name);
      g_autofree char *cond = g_strdup_printf ("If-Match: %s", etag);
      g_autoptr (GPtrArray) reqs = g_ptr_array_new_with_free_func ((GDestroyNotify) req_free);
      Req *w;
      guint status;

      add_puts (reqs, 10, name, cond, 1000 + 100 * round);
      w = run_round (reqs, round, "If-Match", &status);
      g_assert_cmpuint (status, ==, 204);
      assert_file_is (name, w->body);
    }
  assert_no_temps ();
}

/* A DELETE and 9 PUTs, all with the same If-Match: whichever goes first, the others find
 * another version (or none) and get 412. The DELETE goes in the middle, neither first nor
 * last on the wire. */
static void
test_delete_vs_put (void)
{
  for (guint round = 0; round < ROUNDS; round++)
    {
      g_autofree char *name = g_strdup_printf ("contested-%u.bin", round);
      g_autofree char *etag = original (name);
      g_autofree char *cond = g_strdup_printf ("If-Match: %s", etag);
      g_autoptr (GPtrArray) reqs = g_ptr_array_new_with_free_func ((GDestroyNotify) req_free);
      Req *w, *del;
      guint status;

      add_puts (reqs, 5, name, cond, 2000 + 100 * round);
      del = add_req (reqs, NULL, "DELETE /%s HTTP/1.1\r\n%s", name, cond);
      del->late = TRUE;
      add_puts (reqs, 4, name, cond, 2050 + 100 * round);
      w = run_round (reqs, round, "DELETE and PUT, If-Match", &status);
      if (w == del)
        assert_absent (name);
      else
        assert_file_is (name, w->body);
    }
  assert_no_temps ();
}

/* A MOVE away with If-Match and 9 PUTs with the same If-Match on its source. */
static void
test_move_vs_put (void)
{
  for (guint round = 0; round < ROUNDS; round++)
    {
      g_autofree char *name = g_strdup_printf ("wanted-%u.bin", round);
      g_autofree char *moved = g_strdup_printf ("moved-%u.bin", round);
      g_autofree char *etag = original (name);
      g_autofree char *cond = g_strdup_printf ("If-Match: %s", etag);
      g_autoptr (GPtrArray) reqs = g_ptr_array_new_with_free_func ((GDestroyNotify) req_free);
      g_autoptr (GBytes) orig = g_bytes_new_static ("original content\n", 17);
      Req *w, *mover;
      guint status;

      add_puts (reqs, 5, name, cond, 3000 + 100 * round);
      mover = add_req (reqs, NULL, "MOVE /%s HTTP/1.1\r\n%s\r\nDestination: http://127.0.0.1:%u/%s",
                       name, cond, store.port, moved);
      mover->late = TRUE;
      add_puts (reqs, 4, name, cond, 3050 + 100 * round);
      w = run_round (reqs, round, "MOVE and PUT, If-Match", &status);
      if (w == mover)
        {
          assert_absent (name);
          assert_file_is (moved, orig);
        }
      else
        {
          assert_file_is (name, w->body);
          assert_absent (moved);
        }
    }
  assert_no_temps ();
}

/* Writes @name with @seed's content and returns a COPY or MOVE of it onto @target with
 * Overwrite: F, added to @reqs. */
static Req *
add_copy_move (GPtrArray *reqs, const char *method, const char *name, guint seed, const char *target,
               GBytes **body)
{
  g_autofree char *p = path_of (name);
  Req *r;

  *body = lb_test_bytes (BODY_SIZE, seed);
  http_write_file (p, g_bytes_get_data (*body, NULL), BODY_SIZE);
  r = add_req (reqs, NULL, "%s /%s HTTP/1.1\r\nOverwrite: F\r\nDestination: http://127.0.0.1:%u/%s",
               method, name, store.port, target);
  r->late = TRUE;
  return r;
}

/* COPY and MOVE with Overwrite: F onto a name that 8 PUTs with If-None-Match: * also want. */
static void
test_copy_move_vs_create (void)
{
  for (guint round = 0; round < ROUNDS; round++)
    {
      g_autofree char *name = g_strdup_printf ("target-%u.bin", round);
      g_autofree char *copy_src = g_strdup_printf ("copy-src-%u.bin", round);
      g_autofree char *move_src = g_strdup_printf ("move-src-%u.bin", round);
      g_autoptr (GBytes) copy_body = NULL;
      g_autoptr (GBytes) move_body = NULL;
      g_autoptr (GPtrArray) reqs = g_ptr_array_new_with_free_func ((GDestroyNotify) req_free);
      Req *w, *copier, *mover;
      guint status;

      add_puts (reqs, 3, name, "If-None-Match: *", 6000 + 100 * round);
      copier = add_copy_move (reqs, "COPY", copy_src, 4000 + round, name, &copy_body);
      add_puts (reqs, 2, name, "If-None-Match: *", 6030 + 100 * round);
      mover = add_copy_move (reqs, "MOVE", move_src, 5000 + round, name, &move_body);
      add_puts (reqs, 3, name, "If-None-Match: *", 6060 + 100 * round);
      w = run_round (reqs, round, "COPY, MOVE (Overwrite: F) and PUT (If-None-Match: *)", &status);
      g_assert_cmpuint (status, ==, 201);
      assert_file_is (name, w == copier ? copy_body : w == mover ? move_body : w->body);
      /* The sources are where they were unless they won. */
      assert_file_is (copy_src, copy_body);
      if (w != mover)
        assert_file_is (move_src, move_body);
    }
  assert_no_temps ();
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  int ret;

  g_test_init (&argc, &argv, NULL);
  root = g_dir_make_tmp ("lb-races-XXXXXX", &error);
  g_assert_no_error (error);
  http_store_start (&store, root, NULL);

  g_test_add_func ("/races/put-if-none-match", test_put_if_none_match);
  g_test_add_func ("/races/put-if-match", test_put_if_match);
  g_test_add_func ("/races/delete-vs-put", test_delete_vs_put);
  g_test_add_func ("/races/move-vs-put", test_move_vs_put);
  g_test_add_func ("/races/copy-move-vs-create", test_copy_move_vs_create);
  ret = g_test_run ();

  http_store_stop (&store);
  http_remove_tree (root);
  g_free (root);
  return ret;
}
