/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_DATA_DIR_H
#define SBX_DATA_DIR_H
/* Where the suite's run-time data lives (the OpenAPI document, the traversal
 * vectors, the contract), laid out as in the source tree:
 *   1. --data-dir DIR, else $SBX_DATA_DIR;
 *   2. ../share/sandboxd-conformance beside the executable (an installed or
 *      unpacked package, wherever its prefix is);
 *   3. the source tree the binary was built from (build-tree runs). */
#include <stddef.h>

/* Sets the directory of step 1 (NULL: back to the lookup). */
void data_dir_set(const char *dir);

/* The directory chosen by the steps above; never NULL (step 3 when nothing
 * else holds the data). Valid until the next data_dir_set. */
const char *data_dir(void);

/* data_dir()/relative in buf ("openapi/sandboxd.yaml"). */
const char *data_dir_file(const char *relative, char *buf, size_t len);

#endif
