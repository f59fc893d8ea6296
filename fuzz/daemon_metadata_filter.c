/* SPDX-License-Identifier: Apache-2.0 */
/* The /v1/metadata filter (M3, M4). Oracle: a name is served exactly when
 * it starts with the prefix (case-sensitively) and holds no credential
 * marker in any letter case, checked here independently of the filter.
 *
 * Input: the prefix, a newline, the variable name. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "rest/metadata_filter.h"

static bool has_marker(const char *name)
{
    static const char *const markers[] = {"TOKEN",  "SECRET",  "PASSWORD", "CREDENTIAL",
                                          "KEY",    "PASSWD",  "CRED",     "AUTH",
                                          "BEARER", "PRIVATE", "CERT"};
    size_t n = strlen(name);
    char *upper = malloc(n + 1);
    FUZZ_CHECK(upper != NULL, "malloc");
    for (size_t i = 0; i <= n; i++)
        upper[i] = (name[i] >= 'a' && name[i] <= 'z') ? (char)(name[i] - 32) : name[i];
    bool found = false;
    for (size_t i = 0; i < sizeof markers / sizeof markers[0] && !found; i++)
        found = strstr(upper, markers[i]) != NULL;
    free(upper);
    return found;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096) return 0;
    char *buf = malloc(size + 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *nl = strchr(buf, '\n');
    const char *prefix = "SANDBOX_", *name = buf;
    if (nl) {
        *nl = '\0';
        prefix = buf;
        name = nl + 1;
    }
    bool allowed = metadata_name_allowed(name, prefix);
    bool expected = strncmp(name, prefix, strlen(prefix)) == 0 && !has_marker(name);
    FUZZ_CHECK(allowed == expected, "prefix '%s' name '%s': served %d, expected %d", prefix, name,
               allowed, expected);
    free(buf);
    return 0;
}
