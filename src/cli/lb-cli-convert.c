/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-cli"

#include "lb-cli-frames.h"
#include "lb-cli-store-io.h"
#include "lb-cli-store-options.h"
#include "lb-cli.h"
#include "lb-png.h"

static gboolean
save_png (LbImage *image, const char *output, gpointer data, GError **error)
{
  return lb_png_save_to_file (image, output, error);
}

int
lb_cli_convert (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *frame = NULL;
  const GOptionEntry entries[] = {
    { "frame", 0, 0, G_OPTION_ARG_STRING, &frame, LB_CLI_FRAME_HELP, "N|all" },
    { NULL }
  };

  context = g_option_context_new ("INPUT OUTPUT.png");
  g_option_context_set_summary (context,
                                "Decode any supported image (PNG of any depth, JPEG, GIF, BMP, TIFF, …,\n"
                                "DICOM Part 10: its first frame, or --frame N) and write it as PNG, keeping bit depth,\n"
                                "alpha and metadata. INPUT is a file or any store URL (http(s)://,\n"
                                "dicomweb+http(s)://, file://, what `ls` prints below a URL).\n"
                                "OUTPUT is written atomically: on failure it is left untouched.");
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_add_group (context, lb_cli_store_option_group ());
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return lb_cli_fail ("convert", error);
  if (argc != 3)
    {
      g_printerr ("Usage: lightbox-cli convert INPUT OUTPUT.png\n");
      return 2;
    }

  if (!lb_cli_for_each_frame (argv[1], frame, argv[2], save_png, NULL, &error))
    return lb_cli_fail ("convert", error);
  return 0;
}
