/* sandboxd-ref entry point (start-up skeleton; the services are wired in by
 * the process and REST halves). */
#include <stdio.h>

#include "daemon_config.h"
#include "fault.h"

int main(int argc, char **argv)
{
    struct daemon_config cfg;
    int rc = daemon_config_parse(&cfg, argc, argv);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    fault_configure(cfg.faults);
    fprintf(stderr, "sandboxd-ref: services are not wired yet\n");
    return 1;
}
