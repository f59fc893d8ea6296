/* SPDX-License-Identifier: Apache-2.0 */
/* daemon_real: the program's own start-up decisions (see
 * daemon_behaviour.h). */
#include "daemon_behaviour.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "process_descriptor.h"
#include "sbx_grpc_reflection.h"

bool daemon_take_flag_real(const char *name, const char *value)
{
    (void)name;
    (void)value;
    return false;
}

int daemon_configured_real(const struct daemon_config *cfg, int argc, char **argv)
{
    (void)cfg;
    (void)argc;
    (void)argv;
    return -1;
}

/* mkdir -p (L2). */
int daemon_create_root_real(const char *path)
{
    char buf[PATH_MAX];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof(buf)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0') continue;
        char saved = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
        buf[i] = saved;
    }
    return 0;
}

void daemon_grpc_options_real(struct sbx_grpc_server_opts *o)
{
    (void)o; /* main.c's options are the daemon's own */
}

int daemon_register_reflection_real(struct sbx_grpc_server *srv)
{
    return sbx_grpc_reflection_register(srv, sbx_process_descriptor_set,
                                        sbx_process_descriptor_set_len);
}

const struct daemon_behaviour daemon_real = {
    .take_flag = daemon_take_flag_real,
    .configured = daemon_configured_real,
    .create_root = daemon_create_root_real,
    .grpc_options = daemon_grpc_options_real,
    .register_reflection = daemon_register_reflection_real,
    .listen_grpc_tcp = sbx_grpc_server_listen_tcp,
};
