/* SPDX-License-Identifier: Apache-2.0 */
/* The real daemon's process manager behaviour (see proc_behaviour.h). */
#include "proc_behaviour.h"

const struct proc_behaviour *const proc_behaviour = &proc_real;
