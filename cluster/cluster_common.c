/*
 * cluster_common.c - the parts of cluster/ that do not depend on MPI.
 */
#include "cluster/cluster_transport.h"

#include <errno.h>
#include <string.h>
#include <time.h>

bool cluster_launched(char *const *envp)
{
    static const char *const names[] = {"OMPI_COMM_WORLD_SIZE=", "PMI_SIZE=", "PMIX_RANK="};
    for (size_t i = 0; envp != NULL && envp[i] != NULL; i++) {
        for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
            if (strncmp(envp[i], names[k], strlen(names[k])) == 0) {
                return true;
            }
        }
    }
    return false;
}

int64_t cluster_wall_now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
}

void cluster_sleep_until_wall_ns(int64_t wall_ns)
{
    struct timespec until = {.tv_sec = wall_ns / 1000000000LL, .tv_nsec = wall_ns % 1000000000LL};
    while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &until, NULL) == EINTR) {
    }
}
