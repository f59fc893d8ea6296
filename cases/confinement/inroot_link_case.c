/* SPDX-License-Identifier: Apache-2.0 */
/* S2-004: writes through symlinks that stay inside the root. S2 follows a
 * link while it stays inside, so a PUT through `link -> real.txt` writes
 * real.txt, and one through `dlink -> d` as a parent writes d/. A runtime
 * that refuses every link (409, 403, 400) or fails on it (500), or that
 * replaces the link with a new file, breaks S2's positive side. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_api.h"
#include "common/proc_util.h"
#include "common/rest_expect.h"
#include "process_client.h"

static void s2_inroot_link_writes(struct case_ctx *ctx)
{
    if (!pu_sh_ok(ctx,
                  "rm -rf real.txt link d dlink && printf old > real.txt && ln -s real.txt link "
                  "&& mkdir d && ln -s d dlink",
                  "creating real.txt, link -> real.txt, d and dlink -> d", NULL))
        return;
    char *p = rx_path(ctx, "link");
    bool wrote = p && expect_put_ok(ctx, p, "new-through-link", 16, NULL);
    free(p);
    p = rx_path(ctx, "dlink/x.txt");
    bool wrote_parent = p && expect_put_ok(ctx, p, "new-in-d", 8, NULL);
    free(p);
    struct rpc_result r = {0};
    if ((wrote || wrote_parent) &&
        pu_sh_ok(ctx,
                 "cat real.txt; echo; if [ -L link ]; then echo link-kept; else echo "
                 "link-replaced; fi; cat d/x.txt 2>/dev/null; echo",
                 "reading real.txt, link and d/x.txt", &r)) {
        char *out = calloc(1, r.out_len + 1);
        if (out && r.out_len) memcpy(out, r.out, r.out_len);
        if (out && wrote) {
            CASE_CHECK(ctx, strncmp(out, "new-through-link\n", 17) == 0,
                       "a PUT through link -> real.txt writes real.txt (S2: a link that stays "
                       "inside is followed)",
                       "real.txt holds \"%.*s\"", (int)strcspn(out, "\n"), out);
            CASE_CHECK(ctx, strstr(out, "\nlink-kept\n") != NULL, "the link itself left a link",
                       "link was replaced by a regular file");
        }
        if (out && wrote_parent)
            CASE_CHECK(ctx, strstr(out, "\nnew-in-d\n") != NULL,
                       "a PUT through dlink/x.txt (dlink -> d) writes d/x.txt", "ls/cat shows: %s",
                       out);
        free(out);
    }
    rpc_result_free(&r);
    pu_sh_ok(ctx, "rm -rf real.txt link d dlink", "cleaning up", NULL);
}
SBX_CASE(s2_inroot_link_writes, .id = "S2-004",
         .title = "A PUT through a symlink that stays inside the root writes its target",
         .clauses = "S2", .level = LEVEL_MUST, .tags = "files,traversal", .timeout_s = 30,
         .catches = "every symlink refused for writes (409, 403, 400 or 500) although it stays "
                    "inside the root; the link replaced by a new file instead of its target "
                    "written",
         .how = "creates real.txt, link -> real.txt, d and dlink -> d through Execute; PUT link "
                "and PUT dlink/x.txt must succeed, and Execute must then find the new content in "
                "real.txt and d/x.txt with link still a symlink");
