/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_EXPLORE_REPORT_FILES_H
#define SBX_EXPLORE_REPORT_FILES_H
/* explore's reports in the formats a run writes besides console and JSON:
 * JUnit XML (junit.xsd), a self-contained HTML page, and a bundle directory
 * holding every format and each finding's replay file and case draft. */
#include <stddef.h>

#include "explore_report.h"

/* 0, or -1 with errno. */
int xreport_junit(const char *path, const struct xreport *r);
int xreport_html(const char *path, const struct xreport *r);

/* dir/explore.json, junit.xml, report.html, report.txt, README.txt and
 * findings/N-CLAUSE.replay.json and .case.c; 0, or -1 with err. */
int xreport_bundle(const char *dir, const struct xreport *r, char *err, size_t err_len);

#endif
