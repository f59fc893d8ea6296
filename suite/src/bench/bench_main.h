/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_BENCH_MAIN_H
#define SBX_BENCH_MAIN_H
/* `sandboxd-conformance bench`: argv[0] is "bench". Returns the exit status
 * (0 run completed, 2 usage error, 3 endpoint unreachable, 4 bench failed). */
int bench_main(int argc, char **argv);

#endif
