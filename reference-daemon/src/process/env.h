/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_PROCESS_ENV_H
#define SBX_PROCESS_ENV_H
/* The child's environment: the daemon's own environment with the request's
 * env_vars laid over it (P3: on a name clash the request wins). */
#include <stddef.h>

struct env_var {
    const char *key;
    const char *value;
};

/* Returns a NULL-terminated "KEY=VALUE" array in one allocation (release it
 * with free()), or NULL when out of memory: base (may be NULL) with vars laid
 * over it. Within `vars`, a later entry with the same key wins, as in a
 * protobuf map. */
char **env_build(char *const *base, const struct env_var *vars, size_t nvars);

#endif
