/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-cli"

#include <stdio.h>

#include <glib/gstdio.h>

#include "lb-cli-frames.h"
#include "lb-cli-store-io.h"
#include "lb-cli-store-options.h"
#include "lb-cli.h"
#include "lb-error.h"
#include "lb-image-loader.h"
#include "lb-pipeline.h"
#include "lb-png.h"

/* "X,Y,W,H" with non-negative integers and W, H ≥ 1. */
static gboolean
parse_selection (const char   *text,
                 LbFilterRect *rect,
                 GError      **error)
{
  g_auto(GStrv) parts = g_strsplit (text, ",", -1);
  gint64 v[4];

  if (g_strv_length (parts) != 4)
    goto bad;
  for (guint i = 0; i < 4; i++)
    if (!g_ascii_string_to_signed (g_strstrip (parts[i]), 10, i < 2 ? 0 : 1, G_MAXINT, &v[i],
                                   NULL))
      goto bad;
  *rect = (LbFilterRect) { (int) v[0], (int) v[1], (int) v[2], (int) v[3] };
  return TRUE;
bad:
  g_set_error (error, LB_ERROR, LB_ERROR_INVALID_ARGUMENT,
               "--select “%s”: expected X,Y,W,H (X, Y ≥ 0; W, H ≥ 1)", text);
  return FALSE;
}

typedef struct {
  LbPipeline *pipe;
  const char *input;
  char       *chain;
  gboolean    force;
  GPtrArray  *timings;  /* the last frame's */
} FilterRun;

static gboolean
filter_one (LbImage *input, const char *output, gpointer data, GError **error)
{
  FilterRun *run = data;
  g_autoptr(LbImage) result = NULL;

  if (!run->force && !lb_cli_is_store_url (output) && g_file_test (output, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, LB_ERROR, LB_ERROR_CONFLICT, "%s exists; use --force to overwrite it",
                   output);
      return FALSE;
    }
  g_clear_pointer (&run->timings, g_ptr_array_unref);
  result = lb_pipeline_run (run->pipe, input, &run->timings, NULL, error);
  if (result == NULL)
    {
      g_prefix_error (error, "%s: ", run->input);
      return FALSE;
    }
  return lb_cli_save_image (result, output, run->force, run->chain, error);
}

int
lb_cli_filter (int argc, char **argv)
{
  gint threads = 0, band = 0;
  gint64 seed = 1;
  gboolean show_time = FALSE, force = FALSE;
  g_autofree char *select = NULL;
  g_autofree char *frame = NULL;
  g_autofree char *aux_path = NULL;
  g_autoptr(LbImage) aux = NULL;
  const GOptionEntry entries[] = {
    { "threads", 'j', 0, G_OPTION_ARG_INT, &threads, "Worker threads (default: all cores)", "N" },
    { "select", 's', 0, G_OPTION_ARG_STRING, &select,
      "Confine every step to this rectangle, as xv's selection", "X,Y,W,H" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "Seed of random filters (spread; default 1)", "N" },
    { "time", 't', 0, G_OPTION_ARG_NONE, &show_time, "Print each pass's time in ms", NULL },
    { "band-height", 0, 0, G_OPTION_ARG_INT, &band, "Rows per band (default: automatic)", "ROWS" },
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force, "Overwrite OUTPUT if it exists", NULL },
    { "frame", 0, 0, G_OPTION_ARG_STRING, &frame, LB_CLI_FRAME_HELP, "N|all" },
    { "aux", 0, 0, G_OPTION_ARG_FILENAME, &aux_path,
      "The second image of steps that read two (subtract: the mask)", "IMAGE" },
    { NULL }
  };
  g_autoptr(GOptionContext) ctx =
    g_option_context_new ("INPUT OUTPUT STEP… — run filters over an image, write PNG");
  g_autoptr(GError) error = NULL;
  g_autoptr(LbFilterRegistry) reg = NULL;
  g_autoptr(LbPipeline) pipe = NULL;
  g_autoptr(GPtrArray) timings = NULL;
  LbFilterRect rect;
  FilterRun run = { 0 };

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, lb_cli_store_option_group ());
  g_option_context_set_description (ctx,
    "STEP = ID[:NAME=VALUE[,NAME=VALUE…]], for example blur:size=5, sharpen:strength=60,\n"
    "rotate:angle=30, pixelize:width=5,height=8, spread:distance=5, spread:width=1,height=5.\n"
    "ID is a filter id or its short alias; `lightbox-cli filters` lists them with their\n"
    "parameters. Steps run in order, each on the previous result. OUTPUT is written as PNG,\n"
    "atomically, and never over an existing file without --force.\n"
    "INPUT and OUTPUT may be store URLs (http(s)://…, dicomweb+http(s)://…): the result is\n"
    "uploaded as PNG with provenance, never replacing anything unless --force, which\n"
    "replaces only the version seen just before (If-Match).");
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      lb_cli_fail ("filter", error);
      return 2;
    }
  if (argc < 4)
    {
      g_printerr ("lightbox-cli filter: need INPUT OUTPUT and at least one STEP "
                  "(see --help)\n");
      return 2;
    }
  if (threads < 0 || band < 0 || seed < 0 || seed > G_MAXUINT32)
    {
      g_printerr ("lightbox-cli filter: --threads and --band-height must be ≥ 0, --seed "
                  "0..%u\n", G_MAXUINT32);
      return 2;
    }
  if (select != NULL && !parse_selection (select, &rect, &error))
    {
      lb_cli_fail ("filter", error);
      return 2;
    }
  if (!force && !lb_cli_is_store_url (argv[2]) && g_file_test (argv[2], G_FILE_TEST_EXISTS))
    {
      g_printerr ("lightbox-cli filter: %s exists; use --force to overwrite it\n", argv[2]);
      return 1;
    }

  lb_cli_route_registry_messages ("filter");
  reg = lb_filter_registry_new_default ();
  pipe = lb_pipeline_new (reg);
  for (int i = 3; i < argc; i++)
    if (!lb_pipeline_append_step (pipe, argv[i], &error))
      {
        g_prefix_error (&error, "step %d “%s”: ", i - 2, argv[i]);
        lb_cli_fail ("filter", error);
        return 2;
      }
  lb_pipeline_set_n_threads (pipe, (guint) threads);
  lb_pipeline_set_band_height (pipe, (guint) band);
  lb_pipeline_set_seed (pipe, (guint64) seed);
  if (select != NULL)
    lb_pipeline_set_selection (pipe, &rect);
  if (aux_path != NULL)
    {
      aux = lb_cli_load_image (aux_path, &error);
      if (aux == NULL)
        {
          g_prefix_error (&error, "--aux: ");
          return lb_cli_fail ("filter", error);
        }
      lb_pipeline_set_aux_input (pipe, aux);
    }

  run.pipe = pipe;
  run.input = argv[1];
  run.chain = g_strjoinv ("\n", argv + 3);
  run.force = force;
  if (!lb_cli_for_each_frame (argv[1], frame, argv[2], filter_one, &run, &error))
    {
      g_free (run.chain);
      g_clear_pointer (&run.timings, g_ptr_array_unref);
      return lb_cli_fail ("filter", error);
    }
  g_free (run.chain);
  timings = g_steal_pointer (&run.timings);

  if (show_time)
    for (guint i = 0; i < timings->len; i++)
      {
        LbPassTiming *t = g_ptr_array_index (timings, i);

        printf ("%s%s%s%s: %.3f ms (%u×%u %s, %u thread%s, %u band%s)\n", t->filter_id,
                *t->params ? " (" : "", t->params, *t->params ? ")" : "", t->usec / 1000.0,
                t->width, t->height, lb_sample_format_to_string (t->format), t->threads,
                t->threads == 1 ? "" : "s", t->bands, t->bands == 1 ? "" : "s");
      }
  return 0;
}
