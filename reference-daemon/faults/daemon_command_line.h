/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FAULTS_DAEMON_COMMAND_LINE_H
#define SBX_FAULTS_DAEMON_COMMAND_LINE_H
/* The fault build's command line (daemon_behaviour.h's flag decisions):
 * `--fault NAME[,NAME...]` turns faults on, and duration-flags-rejected
 * refuses the duration flags. */
#include <stdbool.h>

#include "daemon_config.h"

bool fault_take_flag(const char *name, const char *value);
int fault_configured(const struct daemon_config *cfg, int argc, char **argv);

#endif
