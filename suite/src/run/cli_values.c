/* SPDX-License-Identifier: Apache-2.0 */
/* The values of the run's options: each handler checks one option's value
 * and sets its field (cli_values.h). */
#include "cli_values.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
    if (!s || !*s || strspn(s, "0123456789") != strlen(s)) return -1;
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno || v > max) return -1;
    *out = v;
    return 0;
}

/* "512M", "2G", "1048576": at least 1 MiB, at most 1 TiB. */
static int parse_size(const char *s, size_t *out)
{
    size_t digits = strspn(s, "0123456789");
    if (digits == 0) return -1;
    unsigned long long mult = 1;
    const char *suffix = s + digits;
    if (strcmp(suffix, "K") == 0 || strcmp(suffix, "Ki") == 0)
        mult = 1ULL << 10;
    else if (strcmp(suffix, "M") == 0 || strcmp(suffix, "Mi") == 0)
        mult = 1ULL << 20;
    else if (strcmp(suffix, "G") == 0 || strcmp(suffix, "Gi") == 0)
        mult = 1ULL << 30;
    else if (*suffix)
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno || v > (1ULL << 40) / mult || v * mult < (1ULL << 20)) return -1;
    *out = (size_t)(v * mult);
    return 0;
}

static int bad(char *err, size_t err_len, const char *what, const char *val)
{
    snprintf(err, err_len, "%s, got '%s'", what, val);
    return -1;
}

int cli_set_launch_env(void *target, const struct opt_spec *s, const char *val, char *err,
                       size_t err_len)
{
    (void)s;
    struct cli_opts *o = target;
    if (!strchr(val, '=') || val[0] == '=')
        return bad(err, err_len, "--launch-env wants NAME=VALUE", val);
    size_t n = 0;
    while (o->launch_env[n])
        n++;
    if (n >= CLI_MAX_ENV) {
        snprintf(err, err_len, "at most %d --launch-env options", CLI_MAX_ENV);
        return -1;
    }
    o->launch_env[n] = val;
    return 0;
}

int cli_set_startup_timeout(void *target, const struct opt_spec *s, const char *val, char *err,
                            size_t err_len)
{
    (void)s;
    unsigned long long u;
    if (parse_uint(val, 3600, &u) != 0 || u == 0)
        return bad(err, err_len, "--startup-timeout wants seconds (1-3600)", val);
    ((struct cli_opts *)target)->startup_timeout_s = (unsigned)u;
    return 0;
}

/* --header, --rest-header, --grpc-header, --header-file, --secret-header. */
int cli_set_header(void *target, const struct opt_spec *s, const char *val, char *err,
                   size_t err_len)
{
    char name[64];
    snprintf(name, sizeof name, "--%s", s->name);
    return request_headers_option(&((struct cli_opts *)target)->headers, name, val, err, err_len) <
                   0
               ? -1
               : 0;
}

/* --cacert, --cert, --key: a file name, never empty. */
int cli_set_tls_file(void *target, const struct opt_spec *s, const char *val, char *err,
                     size_t err_len)
{
    struct tls_options *t = &((struct cli_opts *)target)->tls.opts;
    if (!*val) {
        snprintf(err, err_len, "--%s needs a non-empty value", s->name);
        return -1;
    }
    *(strcmp(s->name, "cacert") == 0 ? &t->cacert
      : strcmp(s->name, "cert") == 0 ? &t->cert
                                     : &t->key) = val;
    return 0;
}

int cli_set_authority(void *target, const struct opt_spec *s, const char *val, char *err,
                      size_t err_len)
{
    if (!*val) {
        snprintf(err, err_len, "--%s needs a non-empty value", s->name);
        return -1;
    }
    if (strpbrk(val, " \t\r\n/@"))
        return bad(err, err_len, "--authority wants a host name (NAME or NAME:PORT)", val);
    ((struct cli_opts *)target)->tls.opts.authority = val;
    return 0;
}

int cli_set_level(void *target, const struct opt_spec *s, const char *val, char *err,
                  size_t err_len)
{
    (void)s;
    if (strcmp(val, "core") != 0 && strcmp(val, "full") != 0)
        return bad(err, err_len, "--level wants core or full", val);
    ((struct cli_opts *)target)->core_only = strcmp(val, "core") == 0;
    return 0;
}

int cli_set_profile(void *target, const struct opt_spec *s, const char *val, char *err,
                    size_t err_len)
{
    (void)s;
    if (strcmp(val, "transport") != 0)
        return bad(err, err_len, "--profile: the only profile is 'transport'", val);
    ((struct cli_opts *)target)->transport = true;
    return 0;
}

int cli_set_jobs(void *target, const struct opt_spec *s, const char *val, char *err, size_t err_len)
{
    (void)s;
    unsigned long long u;
    if (parse_uint(val, 256, &u) != 0 || u == 0)
        return bad(err, err_len, "--jobs wants 1-256", val);
    ((struct cli_opts *)target)->jobs = (unsigned)u;
    return 0;
}

int cli_set_seed(void *target, const struct opt_spec *s, const char *val, char *err, size_t err_len)
{
    (void)s;
    struct cli_opts *o = target;
    unsigned long long u;
    if (parse_uint(val, (unsigned long long)INT64_MAX, &u) != 0)
        return bad(err, err_len, "--seed wants a non-negative integer", val);
    o->seed = u;
    o->seed_set = true;
    return 0;
}

int cli_set_timeout_scale(void *target, const struct opt_spec *s, const char *val, char *err,
                          size_t err_len)
{
    (void)s;
    char *end;
    double d = strtod(val, &end);
    if (*end || !(d >= 0.1 && d <= 100))
        return bad(err, err_len, "--timeout-scale wants 0.1-100", val);
    ((struct cli_opts *)target)->timeout_scale = d;
    return 0;
}

int cli_set_max_output(void *target, const struct opt_spec *s, const char *val, char *err,
                       size_t err_len)
{
    (void)s;
    if (parse_size(val, &((struct cli_opts *)target)->max_output) != 0)
        return bad(err, err_len, "--max-output wants a size of 1M or more (e.g. 512M, 2G)", val);
    return 0;
}

int cli_set_unresponsive_after(void *target, const struct opt_spec *s, const char *val, char *err,
                               size_t err_len)
{
    (void)s;
    unsigned long long u;
    if (parse_uint(val, 10000, &u) != 0)
        return bad(err, err_len, "--unresponsive-after wants 0-10000", val);
    ((struct cli_opts *)target)->unresponsive_after = (unsigned)u;
    return 0;
}

int cli_set_color(void *target, const struct opt_spec *s, const char *val, char *err,
                  size_t err_len)
{
    (void)s;
    int *color = &((struct cli_opts *)target)->color;
    if (strcmp(val, "auto") == 0)
        *color = -1;
    else if (strcmp(val, "always") == 0)
        *color = 1;
    else if (strcmp(val, "never") == 0)
        *color = 0;
    else
        return bad(err, err_len, "--color wants auto, always or never", val);
    return 0;
}
