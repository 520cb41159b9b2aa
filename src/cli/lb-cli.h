/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One entry per subcommand; each lives in its own lb-cli-<name>.c. A handler gets argv with
 * argv[0] = the subcommand name, prints errors to stderr and returns the exit status. */
typedef struct {
  const char *name;
  const char *summary;
  int (*run) (int argc, char **argv);
} LbCliCommand;

int lb_cli_convert (int argc, char **argv);
int lb_cli_filters (int argc, char **argv);
int lb_cli_filter  (int argc, char **argv);
int lb_cli_check_plugin (int argc, char **argv);
/* Prints the plugin host's "Skipping FILE: REASON" messages as "lightbox-cli CMD: …". */
void lb_cli_route_registry_messages (const char *command);
int lb_cli_ls (int argc, char **argv);
int lb_cli_get (int argc, char **argv);
int lb_cli_put (int argc, char **argv);
int lb_cli_search (int argc, char **argv);
int lb_cli_measure (int argc, char **argv);
int lb_cli_measurements (int argc, char **argv);

/* Prints "lightbox-cli NAME: MESSAGE" to stderr and returns 1. */
int lb_cli_fail (const char *command, const GError *error);

G_END_DECLS
