/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "lb-error.h"

G_DEFINE_QUARK (lb-error-quark, lb_error)
