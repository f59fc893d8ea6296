/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_BENCH_FLOOR_H
#define SBX_BENCH_FLOOR_H
/* The machine's floors, measured in the same run as the runtime figures:
 *   floor.spawn        posix_spawn + waitpid of `true`
 *   floor.pipe         `head -c N /dev/zero` into a pipe read as fast as possible
 *   floor.tcp          N bytes over a loopback TCP connection
 *   floor.tcp_rtt      64-byte request/response round trip on loopback TCP
 *   floor.file_read    read of the N-byte file (page cache, as a GET after a PUT)
 *   floor.file_write   write of N bytes + fsync into a new file
 *   floor.file_copy    local copy of the N-byte file: read + write + fsync
 *   floor.tcp_file     the cached N-byte file sent with sendfile over loopback TCP
 *   floor.sync_one     a --small-size file written, synced and renamed over
 *                      its target, as a small PUT does
 *   floor.sync_crowd   the same by BENCH_CROWD_CALLERS callers at once
 * Every figure is bounded by the options' count and duration. */
#include "bench_opts.h"
#include "bench_results.h"

/* The callers of the REST crowds and of their floor. */
#define BENCH_CROWD_CALLERS 64u

/* dir: where the file floors put their (removed afterwards) files. */
void bench_floors(struct bench_results *r, const struct bench_opts *o, const char *dir);

#endif
