/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FAULTS_REST_REDIRECT_H
#define SBX_FAULTS_REST_REDIRECT_H
/* The variant-redirect-dotdot switch of the fault build: like Go's
 * ServeMux, a /v1/files path with raw "." or ".." segments or empty
 * segments ("//") is answered with a 301 to the cleaned path under
 * /v1/files/ (S1 and S3 allow it). Percent-encoded segments are left
 * alone. */
#include <microhttpd.h>
#include <stdbool.h>

/* raw_rest is the raw path after "/v1/files/". Returns true and queues the
 * redirect (result in *ret) when the path is not clean. */
bool variant_redirect_unclean(struct MHD_Connection *c, const char *raw_rest, enum MHD_Result *ret);

#endif
