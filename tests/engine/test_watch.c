/*
 * engine_record_sink.on_shards against the real mock server: every shard is reported before
 * each progress call, its figures measured on the coordinator's side add up to what the run
 * did, and a run without the callback is unchanged.
 */
#include "tests/engine/engine_fixture.h"

#define SHARDS 2

struct watched {
    uint32_t reports;   /* on_shards calls */
    uint32_t progress;  /* on_progress calls */
    bool every_shard;   /* each progress call came after one row per shard */
    uint32_t rows_seen; /* rows since the last progress call */
    uint64_t records;
    double cpu_max;
    uint64_t outstanding_max;
    uint64_t outstanding_last;
    uint32_t waiting_max;
};

static void on_record(void *ctx, const struct record *rec)
{
    (void)rec;
    ((struct watched *)ctx)->records++;
}

static void on_shards(void *ctx, uint32_t first, const struct engine_shard_live *rows,
                      uint32_t count)
{
    struct watched *w = ctx;
    w->reports++;
    cr_assert_eq(first, w->rows_seen, "rows come in shard order");
    w->rows_seen += count;
    w->outstanding_last = 0;
    for (uint32_t i = 0; i < count; i++) {
        cr_assert(rows[i].cpu_fraction == -1 ||
                      (rows[i].cpu_fraction >= 0 && rows[i].cpu_fraction <= 1.5),
                  "a CPU share: %f", rows[i].cpu_fraction);
        w->cpu_max = rows[i].cpu_fraction > w->cpu_max ? rows[i].cpu_fraction : w->cpu_max;
        w->outstanding_max =
            rows[i].outstanding > w->outstanding_max ? rows[i].outstanding : w->outstanding_max;
        w->outstanding_last += rows[i].outstanding;
        w->waiting_max =
            rows[i].records_waiting > w->waiting_max ? rows[i].records_waiting : w->waiting_max;
    }
}

static void on_progress(void *ctx, uint64_t finished, uint64_t total)
{
    (void)finished;
    (void)total;
    struct watched *w = ctx;
    w->progress++;
    w->every_shard = w->every_shard && w->rows_seen == SHARDS;
    w->rows_seen = 0;
}

Test(engine_watch, every_shard_is_reported_before_each_progress_call, .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    mc.ttft_ms = 2;
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, true, 8, mock_server_port(fx.server));
    fx.config.concurrency = 8;
    fx.config.request_count = 400;
    fx.config.shard_count = SHARDS;
    struct watched w = {.every_shard = true};
    struct engine_record_sink sink = {.on_record = on_record,
                                      .on_progress = on_progress,
                                      .on_shards = on_shards,
                                      .ctx = &w,
                                      .progress_interval_ns = 20 * 1000 * 1000};
    char errbuf[256];
    cr_assert_eq(engine_run(&fx.config, &sink, NULL, errbuf, sizeof(errbuf)), 0, "%s", errbuf);
    cr_assert_eq(w.records, 400);
    cr_assert_geq(w.progress, 2, "the interval's calls and the last word");
    cr_assert_eq(w.reports, w.progress, "one report (two shards) per progress call");
    cr_assert(w.every_shard);
    cr_assert_gt(w.cpu_max, 0, "the shards' threads used some CPU");
    cr_assert_gt(w.outstanding_max, 0, "work was handed out and not yet back at some report");
    cr_assert_leq(w.outstanding_max, 400);
    cr_assert_eq(w.outstanding_last, 0, "at the end every record is back");
    cr_assert_gt(w.waiting_max, 0, "drains found records waiting");
    finish(&fx);
}
