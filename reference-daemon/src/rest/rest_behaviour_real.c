/* SPDX-License-Identifier: Apache-2.0 */
/* The real daemon's REST behaviour: its own decisions (rest_behaviour.h). */
#include "rest/rest_behaviour.h"

const struct rest_behaviour *const rest_behaviour = &rest_real;
