/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CASES_META_PREFIX_H
#define SBX_CASES_META_PREFIX_H
/* The metadata prefix of a launched runtime. The suite launches the runtime
 * with the user's command template; when that template sets
 * `--metadata-env-prefix` (the reference's flag, L3), the runtime serves
 * that prefix instead of the default SANDBOX_, and the launch-mode metadata
 * cases must judge it by that prefix. The template is read from the
 * runner's own command line (/proc/self/cmdline: `--launch 'COMMAND'` or
 * `--launch=COMMAND`), since the case API does not expose it. */
#include "case_api.h"

#define META_DEFAULT_PREFIX "SANDBOX_"

/* The prefix to judge a launched runtime by: the value the launch template
 * gives --metadata-env-prefix, else META_DEFAULT_PREFIX. Adds a note when
 * the template sets it. Static storage; valid for the case's lifetime. */
const char *meta_launch_prefix(struct case_ctx *ctx);

#endif
