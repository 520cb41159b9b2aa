/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-cli"

#include "config.h"

#include <locale.h>
#include <stdio.h>

#include "lb-cli.h"
#include "lb-dicom-file.h"

static const LbCliCommand commands[] = {
  { "convert", "Decode any supported image (or DICOM file, or store URL) and write PNG", lb_cli_convert },
  { "filters", "List filters: ids, parameters, formats and origin", lb_cli_filters },
  { "check-plugin", "Check a filter plugin as Lightbox's tests do (formats, threads, bands, …)", lb_cli_check_plugin },
  { "filter", "Run filter steps over an image and write PNG (xv set, plugins, declarative)", lb_cli_filter },
  { "ls", "List a store folder (http(s) listing or WebDAV, local folder, …)", lb_cli_ls },
  { "get", "Download one entry of a store to a file (atomic)", lb_cli_get },
  { "search", "Search the studies of a DICOMweb store by patient, date, modality, accession", lb_cli_search },
  { "put", "Upload a file to a store without ever replacing (unless --overwrite)", lb_cli_put },
  { "measure", "Measure an image in real-world units; save the measurements as a DICOM SR", lb_cli_measure },
  { "measurements", "List an image's saved measurements (DICOM SRs on DICOMweb, else the JSON sidecar)", lb_cli_measurements },
};

int
lb_cli_fail (const char *command, const GError *error)
{
  g_printerr ("lightbox-cli %s: %s\n", command, error ? error->message : "failed");
  return 1;
}

static void
usage (FILE *out)
{
  fprintf (out, "Usage: lightbox-cli COMMAND [OPTION…] ARGS…\n\nCommands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-12s %s\n", commands[i].name, commands[i].summary);
  fprintf (out, "\nRun 'lightbox-cli COMMAND --help' for a command's options.\n");
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  /* every command that reads images reads DICOM Part 10 files too */
  lb_dicom_register_image_loader ();

  if (argc < 2)
    {
      usage (stderr);
      return 2;
    }
  if (g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h") || g_str_equal (argv[1], "help"))
    {
      usage (stdout);
      return 0;
    }
  if (g_str_equal (argv[1], "--version"))
    {
      printf ("lightbox-cli %s\n", PACKAGE_VERSION);
      return 0;
    }
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (argv[1], commands[i].name))
      return commands[i].run (argc - 1, argv + 1);

  g_printerr ("lightbox-cli: unknown command “%s”\n", argv[1]);
  usage (stderr);
  return 2;
}
