/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FAULTS_REST_UPLOADS_H
#define SBX_FAULTS_REST_UPLOADS_H
/* The upload faults of the fault build (put-*, multipart-raw,
 * multipart-ignore-mode, multipart-missing-ok, multipart-truncated-stores,
 * empty-params-invalid for mode): wrappers of rest/rest_behaviour.h's
 * PUT handler and upload decisions. */
#include "rest/rest_behaviour.h"

enum MHD_Result fault_files_put(struct rest_request *rq, struct MHD_Connection *c, const char *data,
                                size_t *size);
int fault_put_mode(const char *arg, bool bad, mode_t *mode);
bool fault_body_is_multipart(const char *content_type);
int fault_store(struct rest_request *rq, uint64_t at, const char *data, size_t len);
bool fault_multipart_stored(int status);

/* put-follow-dangling: when the target is a dangling symlink, opens and
 * creates through it into w (in place) and returns true. */
bool fault_follow_dangling(struct fs_atomic_file *w, const struct daemon_state *st,
                           const char *path);

/* put-no-parents: whether missing parents are created. */
bool fault_creates_parents(void);

#endif
