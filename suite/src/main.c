/* sandboxd-conformance: see runner.c. */
#include "runner.h"

int main(int argc, char **argv)
{
    return runner_main(argc, argv);
}
