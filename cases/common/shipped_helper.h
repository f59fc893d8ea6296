/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CASES_SHIPPED_HELPER_H
#define SBX_CASES_SHIPPED_HELPER_H
/* The small static programs the suite ships for cases that must run code
 * inside the runtime (sbx-race-swapper, sbx-first-look): found beside the
 * suite binary (a build tree) or in ../libexec/sandboxd-conformance beside it
 * (an installed package), and uploaded into the case directory with PUT
 * mode=0755 under a fresh name. */
#include <stdbool.h>
#include <stddef.h>

struct case_ctx;

/* Uploads helper `name` as case_dir/<name>-<random hex>. 0 with the
 * uploaded file's name (relative to the case directory) in uploaded; -1
 * with why (not found, unreadable, the PUT's status) otherwise. */
int shipped_helper_upload(struct case_ctx *ctx, const char *name, char *uploaded,
                          size_t uploaded_len, char *why, size_t whylen);

/* ETXTBSY ("text file busy") for a fresh upload is a kernel race of any
 * runtime, not a deviation: a child another request forked while the
 * upload's file was open for writing holds that descriptor until it execs.
 * A caller whose run of the upload failed with `failure` asks this before
 * trying again: true (after sleeping 50 ms << attempt) while the failure
 * says "busy" and attempt (0 for the first failure) is below 4. */
bool shipped_helper_busy_retry(unsigned attempt, const char *failure);

/* Removes an uploaded helper through Execute (rm -f); errors are ignored. */
void shipped_helper_remove(struct case_ctx *ctx, const char *uploaded);

#endif
