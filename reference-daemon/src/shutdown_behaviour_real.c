/* SPDX-License-Identifier: Apache-2.0 */
/* The real daemon's shutdown behaviour (see shutdown_behaviour.h). */
#include "shutdown_behaviour.h"

const struct shutdown_behaviour *const shutdown_behaviour = &shutdown_real;
