/* SPDX-License-Identifier: Apache-2.0 */
/* The metadata prefix of a launched runtime (see meta_prefix.h). */
#include "metadata/meta_prefix.h"

#include "metadata/prefix_flag.h"

#include <stdio.h>
#include <string.h>

/* The runner's --launch template from its own argv, into buf. */
static bool launch_template(char *buf, size_t buflen)
{
    static char args[64 * 1024];
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f) return false;
    size_t n = fread(args, 1, sizeof args - 1, f);
    fclose(f);
    args[n] = '\0';
    for (size_t i = 0; i < n; i += strlen(args + i) + 1) {
        const char *a = args + i;
        const char *value = NULL;
        if (strcmp(a, "--launch") == 0 && i + strlen(a) + 1 < n)
            value = a + strlen(a) + 1;
        else if (strncmp(a, "--launch=", 9) == 0)
            value = a + 9;
        if (value) {
            snprintf(buf, buflen, "%s", value);
            return true;
        }
    }
    return false;
}

const char *meta_launch_prefix(struct case_ctx *ctx)
{
    static char prefix[256];
    static char command[16 * 1024];
    if (case_launch_mode(ctx) && launch_template(command, sizeof command) &&
        meta_prefix_in_command(command, prefix, sizeof prefix)) {
        case_note(ctx,
                  "the launch command sets --metadata-env-prefix '%s': the runtime is judged "
                  "by that prefix instead of " META_DEFAULT_PREFIX,
                  prefix);
        return prefix;
    }
    return META_DEFAULT_PREFIX;
}
