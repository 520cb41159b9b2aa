/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "lb-image.h"

G_BEGIN_DECLS

/* `--frame N|all` of get, convert and filter: frames of multi-frame DICOM objects, numbered
 * from 1 as DICOM numbers them, from local Part 10 files and DICOMweb instances (WADO-RS
 * …/frames/N). Any other image is one frame. */

/* What is done with each frame: @output is the path (or URL) this frame goes to. */
typedef gboolean (*LbCliFrameFunc) (LbImage    *frame,
                                    const char *output,
                                    gpointer    data,
                                    GError    **error);

/**
 * lb_cli_for_each_frame:
 * @input: a local path or a store URL
 * @frame: (nullable): the --frame argument: NULL (the image as any image loads: a DICOM
 *   object's first frame), a frame number, or "all"
 * @output: where the result goes; with "all", frame N goes to OUTPUT without its ".png" and
 *   "-NNNN.png" appended (name-0001.png, name-0002.png, …), which must be a local path
 *
 * Loads the frames asked for one at a time (a frame is decoded only when its turn comes) and
 * calls @func on each. A frame number outside the object is %LB_ERROR_INVALID_ARGUMENT naming
 * the number and the frame count; stops at the first error.
 */
gboolean  lb_cli_for_each_frame (const char     *input,
                                 const char     *frame,
                                 const char     *output,
                                 LbCliFrameFunc  func,
                                 gpointer        data,
                                 GError        **error);

/* The --frame option's help text. */
#define LB_CLI_FRAME_HELP \
  "DICOM frame to read, from 1 (default: 1), or \"all\": every frame, to OUTPUT-0001.png, …"

G_END_DECLS
