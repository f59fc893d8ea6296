/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_COMPARE_MAIN_H
#define SBX_COMPARE_MAIN_H
/* `sandboxd-conformance compare`: compares results documents of runs (of
 * any runtimes or versions) case by case, gates on regressions (--base) and
 * keeps baselines up to date. argv[0] is "compare". Exit status: 0 done,
 * 1 regressions (--base), 2 usage error or unusable input, 4 an output could
 * not be written. */
int compare_main(int argc, char **argv);

#endif
