/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_FAULTS_REST_MULTIPART_H
#define SBX_FAULTS_REST_MULTIPART_H
/* multipart-quoted-literal of the fault build: a wrapper of
 * rest/rest_behaviour.h's multipart_begin. */
struct multipart;

struct multipart *fault_multipart_begin(const char *content_type);

#endif
