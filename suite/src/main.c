/* SPDX-License-Identifier: Apache-2.0 */
/* sandboxd-conformance: see runner.c. */
#include <string.h>

#include "bench/bench_main.h"
#include "compare_main.h"
#include "explore_main.h"
#include "fleet_summary.h"
#include "runner.h"

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "bench") == 0) return bench_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "compare") == 0) return compare_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "explore") == 0) return explore_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "summary") == 0) return fleet_summary_main(argc - 1, argv + 1);
    return runner_main(argc, argv);
}
