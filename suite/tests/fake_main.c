/* Entry point of sandboxd-conformance-fake: the runner over the test catalog. */
#include "runner.h"

int main(int argc, char **argv)
{
    return runner_main(argc, argv);
}
