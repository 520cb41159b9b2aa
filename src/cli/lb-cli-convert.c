/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-cli"

#include "lb-cli.h"
#include "lb-image-loader.h"
#include "lb-png.h"

int
lb_cli_convert (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (LbImage) image = NULL;

  context = g_option_context_new ("INPUT OUTPUT.png");
  g_option_context_set_summary (context,
                                "Decode any supported image (PNG of any depth, JPEG, GIF, BMP, TIFF, …)\n"
                                "and write it as PNG, keeping bit depth, alpha and metadata.\n"
                                "OUTPUT is written atomically: on failure it is left untouched.");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return lb_cli_fail ("convert", error);
  if (argc != 3)
    {
      g_printerr ("Usage: lightbox-cli convert INPUT OUTPUT.png\n");
      return 2;
    }

  image = lb_image_load_file (argv[1], NULL, &error);
  if (image == NULL)
    return lb_cli_fail ("convert", error);
  if (!lb_png_save_to_file (image, argv[2], &error))
    return lb_cli_fail ("convert", error);
  return 0;
}
