/* sandboxd-conformance entry point (skeleton until the runner lands). */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--version") == 0) {
            printf("sandboxd-conformance %s (%s)\n", SBX_VERSION, SBX_GIT_COMMIT);
            return 0;
        }
    fprintf(stderr, "sandboxd-conformance: the runner is not built yet\n");
    return 4;
}
