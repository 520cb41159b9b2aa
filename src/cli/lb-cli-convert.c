/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-cli"

#include "lb-cli-store-io.h"
#include "lb-cli-store-options.h"
#include "lb-cli.h"
#include "lb-png.h"

int
lb_cli_convert (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (LbImage) image = NULL;

  context = g_option_context_new ("INPUT OUTPUT.png");
  g_option_context_set_summary (context,
                                "Decode any supported image (PNG of any depth, JPEG, GIF, BMP, TIFF, …,\n"
                                "DICOM Part 10: its first frame) and write it as PNG, keeping bit depth,\n"
                                "alpha and metadata. INPUT is a file or any store URL (http(s)://,\n"
                                "dicomweb+http(s)://, file://, what `ls` prints below a URL).\n"
                                "OUTPUT is written atomically: on failure it is left untouched.");
  g_option_context_add_group (context, lb_cli_store_option_group ());
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return lb_cli_fail ("convert", error);
  if (argc != 3)
    {
      g_printerr ("Usage: lightbox-cli convert INPUT OUTPUT.png\n");
      return 2;
    }

  image = lb_cli_load_image (argv[1], &error);
  if (image == NULL)
    return lb_cli_fail ("convert", error);
  if (!lb_png_save_to_file (image, argv[2], &error))
    return lb_cli_fail ("convert", error);
  return 0;
}
