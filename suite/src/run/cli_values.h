/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CLI_VALUES_H
#define SBX_CLI_VALUES_H
/* The handlers of the run's options that check or convert their value
 * (opt_set_fn of opt_table.h; target is a struct cli_opts). */
#include "opt_table.h"

int cli_set_launch_env(void *target, const struct opt_spec *s, const char *val, char *err,
                       size_t err_len);
int cli_set_startup_timeout(void *target, const struct opt_spec *s, const char *val, char *err,
                            size_t err_len);
int cli_set_header(void *target, const struct opt_spec *s, const char *val, char *err,
                   size_t err_len);
int cli_set_tls_file(void *target, const struct opt_spec *s, const char *val, char *err,
                     size_t err_len);
int cli_set_authority(void *target, const struct opt_spec *s, const char *val, char *err,
                      size_t err_len);
int cli_set_level(void *target, const struct opt_spec *s, const char *val, char *err,
                  size_t err_len);
int cli_set_profile(void *target, const struct opt_spec *s, const char *val, char *err,
                    size_t err_len);
int cli_set_jobs(void *target, const struct opt_spec *s, const char *val, char *err,
                 size_t err_len);
int cli_set_seed(void *target, const struct opt_spec *s, const char *val, char *err,
                 size_t err_len);
int cli_set_timeout_scale(void *target, const struct opt_spec *s, const char *val, char *err,
                          size_t err_len);
int cli_set_max_output(void *target, const struct opt_spec *s, const char *val, char *err,
                       size_t err_len);
int cli_set_unresponsive_after(void *target, const struct opt_spec *s, const char *val, char *err,
                               size_t err_len);
int cli_set_color(void *target, const struct opt_spec *s, const char *val, char *err,
                  size_t err_len);

#endif
