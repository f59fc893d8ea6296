/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FAULTS_REST_DOWNLOADS_H
#define SBX_FAULTS_REST_DOWNLOADS_H
/* The download faults and variants of the fault build (get-wrong-type,
 * get-no-length, get-range-ignored, get-reopen-by-path, head-absent-200,
 * head-sends-body, fifo-block, list-root-404, sweep-get-404,
 * variant-chunked-get): wrappers of rest/rest_behaviour.h's GET handler
 * and download decisions. */
#include "rest/rest_behaviour.h"

/* fifo-block, list-root-404, sweep-get-404 around open, which opens the
 * path of a GET or HEAD as rest_behaviour's open_path does. */
int fault_download_open(const struct daemon_state *st, const char *path, int flags,
                        int (*open)(const struct daemon_state *st, const char *path, int flags));

enum MHD_Result fault_files_get(struct rest_request *rq, struct MHD_Connection *c, bool head);
enum byte_range_result fault_file_range(struct MHD_Connection *c, uint64_t size, uint64_t *start,
                                        uint64_t *len);
struct MHD_Response *fault_file_response(struct rest_request *rq, int fd, uint64_t start,
                                         uint64_t len, bool head);

#endif
