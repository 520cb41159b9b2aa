/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "lb-kernel.h"

/* The name of src/core's LB_ERROR (lb-error.c), on purpose: see lb-kernel.h. */
G_DEFINE_QUARK (lb-error-quark, lb_kernel_error)
