/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-cli"

#include "lb-cli.h"

int
lb_cli_convert (int argc, char **argv)
{
  g_printerr ("lightbox-cli convert: codecs land with the foundation issue\n");
  return 1;
}
