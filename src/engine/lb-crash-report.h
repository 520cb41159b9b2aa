/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * lb-crash-report: what an isolated plugin was doing when it crashed (engine-internal).
 *
 * lightbox-filter-host installs a handler for the signals a crash raises (SIGSEGV, SIGBUS,
 * SIGFPE, SIGILL, SIGABRT). On an alternate stack, with async-signal-safe calls only, it
 * writes the signal, the faulting address and the raw backtrace (each frame's address, the
 * object it lies in and dladdr()'s nearest exported name) to a memfd Lightbox passed it
 * (LB_FH_CRASH_FD), then lets the signal kill the process as before. Lightbox reads the
 * memfd once the helper is dead and names the frames itself: the plugin's from the plugin
 * file's own symbol table (its static functions too, unless the file is stripped), the
 * helper's from its executable.
 */

/* In lightbox-filter-host, before the plugin is loaded: handlers writing to @fd. */
void  _lb_crash_report_install      (int          fd);
/* In lightbox-filter-host, on each thread that may run plugin code (once is enough): an
 * alternate signal stack, so that a stack overflow is reported too. */
void  _lb_crash_report_thread_init  (void);

/**
 * _lb_crash_report_explain:
 * @report_fd: the memfd the dead helper wrote to (read with pread())
 * @term_sig: the signal that ended the helper
 * @plugin_fd: the plugin file the helper loaded, or -1
 * @plugin_origin: its path, for the frames' names
 * @helper_exe: lightbox-filter-host's path
 * @backtrace: (out): the backtrace, one "  #N  function+0xOFF (file)" line each, innermost
 *   first, or %NULL when the helper left none (killed by SIGKILL, a crash in the handler)
 *
 * Returns: the crash in words for the parenthesis of a message: "SIGSEGV, Segmentation
 *   fault, at address 0x18: no memory mapped there", or "SIGABRT, Aborted".
 */
char *_lb_crash_report_explain      (int          report_fd,
                                     int          term_sig,
                                     int          plugin_fd,
                                     const char  *plugin_origin,
                                     const char  *helper_exe,
                                     char       **backtrace);

G_END_DECLS
