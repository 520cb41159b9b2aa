/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * JSON from servers is checked for nesting before a parser sees it: json-glib before 1.10
 * recurses once per level of '[' or '{' with no limit of its own, so a 200 KB document
 * "[[[…]]]" 80 000 deep overflows the stack (json-glib 1.10 stops at
 * JSON_PARSER_MAX_RECURSION_DEPTH, 1024). DICOM JSON (PS3.18 §F.2) spends three levels per
 * sequence (the attribute, its "Value" array, the item), so 256 levels leave room for some
 * 80 nested sequences; listings need three.
 */
#define LB_JSON_MAX_DEPTH 256

/**
 * lb_json_check_depth:
 * @data: (array length=len): JSON text (need not be valid: only brackets outside strings count)
 * @max_depth: the most nested '[' and '{' allowed (LB_JSON_MAX_DEPTH)
 * @what: (nullable): names the document in the error ("URL: JSON listing")
 *
 * Fails with %LB_ERROR_TOO_LARGE when brackets outside string literals (escapes understood)
 * nest deeper than @max_depth. One pass, no allocation; syntax is left to the parser.
 */
gboolean lb_json_check_depth (const char  *data,
                              gsize        len,
                              guint        max_depth,
                              const char  *what,
                              GError     **error);

G_END_DECLS
