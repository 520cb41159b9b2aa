/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* The independent reference for the display tests: tests/view/ps33-display.py computes the
 * grey pipeline of DICOM PS3.3 (Modality LUT, VOI, presentation) with pydicom and numpy. */

#include <glib.h>

G_BEGIN_DECLS

/* Runs the reference over @cases (one case per line in the script's key=value format) and
 * returns the display tables, 2^bits bytes per case, in order. Skips the test (and returns
 * NULL) when /usr/bin/python3 has no pydicom or numpy. */
GBytes *lb_test_ps33_tables (const char *cases);

G_END_DECLS
