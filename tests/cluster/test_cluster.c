/*
 * cluster/ without a launcher: the process is rank 0 of 1, whether or not
 * MPI is built in, and every collective is a no-op.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster_transport.h"

Test(cluster, launcher_is_detected_from_the_environment)
{
    char *none[] = {"PATH=/usr/bin", "HOME=/root", NULL};
    char *ompi[] = {"PATH=/usr/bin", "OMPI_COMM_WORLD_SIZE=2", NULL};
    char *pmi[] = {"PMI_SIZE=4", NULL};
    char *pmix[] = {"PMIX_RANK=0", NULL};
    char *prefix_only[] = {"OMPI_COMM_WORLD_SIZEX=2", "PMI=1", NULL};
    cr_assert_not(cluster_launched(none));
    cr_assert(cluster_launched(ompi));
    cr_assert(cluster_launched(pmi));
    cr_assert(cluster_launched(pmix));
    cr_assert_not(cluster_launched(prefix_only));
    cr_assert_not(cluster_launched(NULL));
}

Test(cluster, without_a_launcher_the_process_is_rank_0_of_1)
{
    unsetenv("OMPI_COMM_WORLD_SIZE");
    unsetenv("PMI_SIZE");
    unsetenv("PMIX_RANK");
    struct cluster *c = NULL;
    char errbuf[128];
    cr_assert_eq(cluster_init(&c, errbuf, sizeof(errbuf)), 0, "%s", errbuf);
    cr_assert_eq(cluster_rank(c), 0);
    cr_assert_eq(cluster_size(c), 1);
    cr_assert_gt(strlen(cluster_host(c)), 0);
    cr_assert_eq(cluster_barrier(c), 0);
    uint64_t seed = 42;
    cr_assert_eq(cluster_bcast(c, &seed, sizeof(seed)), 0);
    cr_assert_eq(seed, 42);
    struct cluster_clock all[1] = {{5, 5}};
    struct cluster_clock mine = {5, 5};
    cr_assert_eq(cluster_clock_sync(c, 4, all, &mine), 0);
    cr_assert_eq(mine.offset_ns, 0);
    cr_assert_eq(mine.uncertainty_ns, 0);
    cr_assert_eq(all[0].offset_ns, 0);
    char hosts[CLUSTER_HOST_BYTES];
    cr_assert_eq(cluster_gather_hosts(c, hosts), 0);
    cr_assert_str_eq(hosts, cluster_host(c));
    cr_assert_neq(cluster_send(c, 0, "x", 1), 0, "nobody to send to");
    cluster_free(c);
    cluster_free(NULL);
}

Test(cluster, sleep_until_a_past_instant_returns_at_once)
{
    int64_t before = cluster_wall_now_ns();
    cluster_sleep_until_wall_ns(before - 1000000000LL);
    cluster_sleep_until_wall_ns(before + 1000000LL);
    cr_assert_geq(cluster_wall_now_ns(), before + 1000000LL);
}

#ifndef RINGPERF_HAVE_MPI
Test(cluster, a_build_without_mpi_refuses_to_be_one_of_several_processes)
{
    setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
    struct cluster *c = NULL;
    char errbuf[256];
    int ret = cluster_init(&c, errbuf, sizeof(errbuf));
    unsetenv("OMPI_COMM_WORLD_SIZE");
    cr_assert_eq(ret, -ENOTSUP);
    cr_assert_not_null(strstr(errbuf, "built without MPI"), "%s", errbuf);
    cr_assert_null(c);
}
#endif
