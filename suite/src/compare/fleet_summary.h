/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FLEET_SUMMARY_H
#define SBX_FLEET_SUMMARY_H
/* `sandboxd-conformance summary`: reads the certification bundles of a fleet
 * (one directory per sandbox, each with results.json) into one report. */

/* argv[0] is "summary". Exit status: 0 every bundle passed, 1 a sandbox
 * failed or is missing or unreadable, 2 usage error. */
int fleet_summary_main(int argc, char **argv);

#endif
