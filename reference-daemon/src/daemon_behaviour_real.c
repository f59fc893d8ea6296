/* SPDX-License-Identifier: Apache-2.0 */
/* The real daemon's start-up behaviour (see daemon_behaviour.h). */
#include "daemon_behaviour.h"

const struct daemon_behaviour *const daemon_behaviour = &daemon_real;
