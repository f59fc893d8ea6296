/* SPDX-License-Identifier: Apache-2.0 */
/* --fault and duration-flags-rejected (see daemon_command_line.h). */
#include "daemon_command_line.h"

#include <stdio.h>
#include <string.h>

#include "daemon_behaviour.h"
#include "fault.h"

/* The names of the last --fault given (argv outlives the daemon's run). */
static const char *fault_names;

bool fault_take_flag(const char *name, const char *value)
{
    if (strcmp(name, "--fault") != 0) return daemon_real.take_flag(name, value);
    fault_names = value;
    return true;
}

int fault_configured(const struct daemon_config *cfg, int argc, char **argv)
{
    fault_configure(fault_names); /* an unknown name exits with status 2 */
    /* duration-flags-rejected: the duration flags refused whatever their
     * value, as a parser that knows only plain numbers. */
    for (int i = 1; i < argc && fault_active(FAULT_DURATION_FLAGS_REJECTED); i++)
        if (strncmp(argv[i], "--shutdown-timeout", 18) == 0 ||
            strncmp(argv[i], "--http-idle-timeout", 19) == 0) {
            fprintf(stderr, "sandboxd-ref: invalid value for %s\n", argv[i]);
            return 2;
        }
    return daemon_real.configured(cfg, argc, argv);
}
