/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CLOCK_UTIL_H
#define SBX_CLOCK_UTIL_H
/* The clocks the runner reads: monotonic seconds for bounds and durations,
 * UTC wall time for the reports. */
#include <stddef.h>

/* CLOCK_MONOTONIC in seconds. */
double clock_mono_s(void);

/* The current UTC time as "YYYY-MM-DDTHH:MM:SSZ". */
void clock_utc_now(char *buf, size_t len);

#endif
