/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FUZZ_CHECK_H
#define SBX_FUZZ_CHECK_H
/* Oracle failures in fuzz targets: print what broke and abort, so libFuzzer
 * (or the replay ctest) reports the input as a crash. */
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: oracle failed: %s: ", __FILE__, __LINE__, #cond);              \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

#endif
