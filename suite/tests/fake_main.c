/* SPDX-License-Identifier: Apache-2.0 */
/* Entry point of sandboxd-conformance-fake: the runner over the test catalog. */
#include <string.h>

#include "compare_main.h"
#include "runner.h"

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "compare") == 0) return compare_main(argc - 1, argv + 1);
    return runner_main(argc, argv);
}
