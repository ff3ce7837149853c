/*
 * test_hlog.c - HdrHistogram V2 encoding and interval logs, checked byte by
 * byte and by decoding our files with HdrHistogram's own Java library.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/export.h"
#include "metrics/metrics.h"

#define HDR_JAR "/usr/share/java/hdrhistogram.jar"
#define BASE_WALL_NS 1700000000000000000LL

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static struct metrics_hist *new_hist(int64_t highest, int sigfigs)
{
    struct metrics_hist *h = NULL;
    cr_assert_eq(metrics_hist_new(1, highest, sigfigs, &h), 0);
    return h;
}

Test(export_hlog, encodes_header_and_zero_runs)
{
    struct metrics_hist *h = new_hist(1000000, 3);
    metrics_hist_record(h, 1);
    metrics_hist_record_n(h, 5, 300);
    size_t cap = export_hist_encode_bound(h);
    uint8_t *buf = malloc(cap);
    size_t len = 0;
    cr_assert_eq(export_hist_encode(h, buf, cap, &len), 0);
    cr_assert_eq(get_u32(buf), 0x1c849313u);
    cr_assert_eq(get_u32(buf + 4), (uint32_t)(len - 40));
    cr_assert_eq(get_u32(buf + 8), 0u);
    cr_assert_eq(get_u32(buf + 12), 3u);
    cr_assert_eq(get_u32(buf + 20), 1u);       /* lowest, low word */
    cr_assert_eq(get_u32(buf + 28), 1000000u); /* highest, low word */
    cr_assert_eq(get_u32(buf + 32), 0x3ff00000u);
    /* index 0: a lone zero; 1: one; 2..4: a run of three zeros; 5: 300. */
    const uint8_t want[] = {0x00, 0x02, 0x05, 0xd8, 0x04};
    cr_assert_eq(len, 40 + sizeof(want));
    cr_assert_eq(memcmp(buf + 40, want, sizeof(want)), 0);
    cr_assert_eq(export_hist_encode(h, buf, 41, &len), -ENOSPC);
    free(buf);
    metrics_hist_free(h);
}

Test(export_hlog, base64_pads_and_refuses_small_buffers)
{
    char out[16];
    cr_assert_eq(export_base64((const uint8_t *)"ab", 2, out, sizeof(out)), 4);
    cr_assert_str_eq(out, "YWI=");
    cr_assert_eq(export_base64((const uint8_t *)"abcd", 4, out, sizeof(out)), 8);
    cr_assert_str_eq(out, "YWJjZA==");
    cr_assert_eq(export_base64((const uint8_t *)"abc", 3, out, 4), 0);
}

Test(export_hlog, compressed_lines_carry_the_hdrhistogram_signature)
{
    char dir[] = "/tmp/ringperf-hlog-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof(path), "%s/a.hlog", dir);
    struct metrics_hist *h = new_hist(1000000, 3);
    metrics_hist_record(h, 42);
    struct export_hlog_options opts = {
        .start_wall_ns = BASE_WALL_NS, .max_value_divisor = 1.0, .comment = "[tag: t]"};
    struct export_hlog *log = NULL;
    cr_assert_eq(export_hlog_open(path, &opts, &log), 0);
    cr_assert_eq(export_hlog_write(log, BASE_WALL_NS + 500000000LL, 1000000000LL, h), 0);
    cr_assert_eq(export_hlog_close(log), 0);
    FILE *f = fopen(path, "r");
    char line[4096];
    const char *want[] = {"#[tag: t]\n",
                          "#[Histogram log format version 1.3]\n",
                          "#[StartTime: 1700000000.000 (seconds since epoch)",
                          "#[BaseTime: 1700000000.000 (seconds since epoch)]\n",
                          "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\"",
                          "0.500,1.000,42.000,HISTFAAAA"};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        cr_assert_not_null(fgets(line, sizeof(line), f));
        cr_assert_eq(strncmp(line, want[i], strlen(want[i])), 0, "line %zu: %s", i, line);
    }
    cr_assert_null(fgets(line, sizeof(line), f));
    fclose(f);
    unlink(path);
    rmdir(dir);
    metrics_hist_free(h);
    cr_assert_eq(export_hlog_close(NULL), 0);
}

static const char java_source[] =
    "import org.HdrHistogram.*;\n"
    "import java.io.File;\n"
    "public class ReadHlog {\n"
    "  public static void main(String[] a) throws Exception {\n"
    "    HistogramLogReader r = new HistogramLogReader(new File(a[0]));\n"
    "    Histogram total = null; int n = 0; long firstStartMs = -1;\n"
    "    EncodableHistogram e;\n"
    "    while ((e = r.nextIntervalHistogram()) != null) {\n"
    "      Histogram h = (Histogram) e; n++;\n"
    "      if (firstStartMs < 0) firstStartMs = h.getStartTimeStamp();\n"
    "      if (total == null) total = h.copy(); else total.add(h);\n"
    "    }\n"
    "    System.out.println(n + \" \" + total.getTotalCount() + \" \" + firstStartMs + \" \"\n"
    "      + total.getNumberOfSignificantValueDigits() + \" \" + total.getHighestTrackableValue()\n"
    "      + \" \" + total.getMaxValue() + \" \" + total.getValueAtPercentile(50.0) + \" \"\n"
    "      + total.getValueAtPercentile(90.0) + \" \" + total.getValueAtPercentile(99.0));\n"
    "  }\n"
    "}\n";

static bool have_java(void)
{
    return access(HDR_JAR, R_OK) == 0 && system("javac -version >/dev/null 2>&1") == 0 &&
           system("java -version >/dev/null 2>&1") == 0;
}

/* run_reader compiles ReadHlog in `dir` and runs it on `hlog`, filling `out`. */
static void run_reader(const char *dir, const char *hlog, char *out, size_t cap)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/ReadHlog.java", dir);
    FILE *src = fopen(path, "w");
    cr_assert_not_null(src);
    fputs(java_source, src);
    fclose(src);
    char cmd[2048];
    snprintf(cmd, sizeof(cmd), "javac -cp %s -d %s %s 2>&1", HDR_JAR, dir, path);
    cr_assert_eq(system(cmd), 0, "javac failed");
    snprintf(cmd, sizeof(cmd), "java -cp %s:%s ReadHlog %s 2>&1", HDR_JAR, dir, hlog);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    cr_assert_eq(pclose(p), 0, "java failed: %s", out);
}

Test(export_hlog, java_hdrhistogram_reads_our_interval_log, .timeout = 240)
{
    if (!have_java()) {
        cr_skip_test("java, javac or " HDR_JAR " missing (apt-get install default-jdk-headless "
                     "libhdrhistogram-java)");
    }
    char dir[] = "/tmp/ringperf-hlog-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof(path), "%s/latency.hlog", dir);
    const int64_t highest = 24LL * 3600 * 1000 * 1000 * 1000;
    struct metrics_hist *a = new_hist(highest, 3);
    struct metrics_hist *b = new_hist(highest, 3);
    struct metrics_hist *all = new_hist(highest, 3);
    /* 1000 values, so every percentile's rank is an integer under any rounding. */
    for (int64_t i = 1; i <= 1000; i++) {
        int64_t v = i * i * 7919 + 13;
        metrics_hist_record(i % 3 == 0 ? a : b, v);
        metrics_hist_record(all, v);
    }
    struct export_hlog_options opts = {.start_wall_ns = BASE_WALL_NS, .max_value_divisor = 1e6};
    struct export_hlog *log = NULL;
    cr_assert_eq(export_hlog_open(path, &opts, &log), 0);
    cr_assert_eq(export_hlog_write(log, BASE_WALL_NS + 250000000LL, 1000000000LL, a), 0);
    cr_assert_eq(export_hlog_write(log, BASE_WALL_NS + 1250000000LL, 1000000000LL, b), 0);
    cr_assert_eq(export_hlog_close(log), 0);

    char out[1024];
    run_reader(dir, path, out, sizeof(out));
    long long n, count, start_ms, sigfigs, top, max, p50, p90, p99;
    char *p = out;
    long long *fields[] = {&n, &count, &start_ms, &sigfigs, &top, &max, &p50, &p90, &p99};
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        char *end = NULL;
        *fields[i] = strtoll(p, &end, 10);
        cr_assert_neq(end, p, "cannot parse java output: %s", out);
        p = end;
    }
    cr_assert_eq(n, 2);
    cr_assert_eq(count, 1000);
    cr_assert_eq(start_ms, BASE_WALL_NS / 1000000 + 250);
    cr_assert_eq(sigfigs, 3);
    cr_assert_geq(top, highest);
    cr_assert_eq(max, metrics_hist_value_at_percentile(all, 100.0));
    cr_assert_eq(p50, metrics_hist_value_at_percentile(all, 50.0));
    cr_assert_eq(p90, metrics_hist_value_at_percentile(all, 90.0));
    cr_assert_eq(p99, metrics_hist_value_at_percentile(all, 99.0));

    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
    metrics_hist_free(a);
    metrics_hist_free(b);
    metrics_hist_free(all);
}
