/* SPDX-License-Identifier: Apache-2.0 */
/* --metadata-env-prefix found in launch commands (cases/metadata/prefix_flag.c):
 * the forms flag parsers accept, quoting, the last occurrence, and what is
 * not the flag. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "metadata/prefix_flag.h"

static void expect_prefix(const char *command, const char *want)
{
    char out[64] = "unchanged";
    assert_true(meta_prefix_in_command(command, out, sizeof out));
    assert_string_equal(out, want);
}

static void expect_none(const char *command)
{
    char out[64];
    assert_false(meta_prefix_in_command(command, out, sizeof out));
}

static void two_words_and_equals(void **state)
{
    (void)state;
    expect_prefix("./rt --grpc-port 1 --metadata-env-prefix CUSTOM_ --root-dir /x", "CUSTOM_");
    expect_prefix("./rt --metadata-env-prefix=EQ_ --root-dir /x", "EQ_");
    expect_prefix("./rt --metadata-env-prefix\tTAB_", "TAB_");
    expect_prefix("./rt --metadata-env-prefix=", "");
}

static void quoted_values(void **state)
{
    (void)state;
    expect_prefix("./rt --metadata-env-prefix 'SPACED PFX_' --x", "SPACED PFX_");
    expect_prefix("./rt --metadata-env-prefix=\"DQ_\" --x", "DQ_");
    expect_prefix("./rt '--metadata-env-prefix=WHOLE_'", "WHOLE_");
}

static void last_occurrence_wins(void **state)
{
    (void)state;
    expect_prefix("./rt --metadata-env-prefix A_ --metadata-env-prefix B_", "B_");
}

static void not_the_flag(void **state)
{
    (void)state;
    expect_none("./rt --grpc-port {grpc_port} --root-dir {root}");
    expect_none("./rt --metadata-env-prefixes X_");
    expect_none("./rt --no-metadata-env-prefix X_");
    expect_none("./rt --metadata-env-prefix");
    char small[4];
    assert_false(
        meta_prefix_in_command("./rt --metadata-env-prefix TOOLONG_", small, sizeof small));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_words_and_equals),
        cmocka_unit_test(quoted_values),
        cmocka_unit_test(last_occurrence_wins),
        cmocka_unit_test(not_the_flag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
