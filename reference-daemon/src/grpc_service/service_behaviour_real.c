/* SPDX-License-Identifier: Apache-2.0 */
/* The real daemon's ProcessService behaviour (see service_behaviour.h). */
#include "grpc_service/service_behaviour.h"

const struct service_behaviour *const service_behaviour = &service_real;
