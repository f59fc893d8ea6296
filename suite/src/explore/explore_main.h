/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_EXPLORE_MAIN_H
#define SBX_EXPLORE_MAIN_H
/* `sandboxd-conformance explore`: argv[0] is "explore". Exit status as for
 * a run. */
int explore_main(int argc, char **argv);

#endif
