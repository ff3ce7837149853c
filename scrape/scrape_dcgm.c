/*
 * scrape_dcgm.c - GPU telemetry from DCGM exporters, which are Prometheus endpoints like any
 * other: the fields AIPerf reads (spec §6.3), scaled to its units, one GPU per (endpoint, UUID or
 * index), and their statistics over a window.
 */
#include "scrape/scrape_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct scrape_gpu_field_info FIELDS[SCRAPE_GPU_FIELD_COUNT] = {
    [SCRAPE_GPU_POWER_USAGE] = {"nvidia_power_usage", "NVIDIA GPU Power Usage", "W", false},
    [SCRAPE_GPU_ENERGY_CONSUMPTION] = {"nvidia_energy_consumption", "NVIDIA Energy Consumption",
                                       "MJ", true},
    [SCRAPE_GPU_UTILIZATION] = {"nvidia_gpu_utilization", "NVIDIA GPU Utilization", "%", false},
    [SCRAPE_GPU_MEMORY_UTILIZATION] = {"nvidia_memory_utilization", "NVIDIA Memory Utilization",
                                       "%", false},
    [SCRAPE_GPU_MEMORY_USED] = {"nvidia_memory_used", "NVIDIA GPU Memory Used", "GB", false},
    [SCRAPE_GPU_TEMPERATURE] = {"nvidia_temperature", "NVIDIA GPU Temperature", "°C", false},
    [SCRAPE_GPU_ENCODER_UTILIZATION] = {"nvidia_encoder_utilization", "NVIDIA Encoder Utilization",
                                        "%", false},
    [SCRAPE_GPU_DECODER_UTILIZATION] = {"nvidia_decoder_utilization", "NVIDIA Decoder Utilization",
                                        "%", false},
    [SCRAPE_GPU_SM_UTILIZATION] = {"nvidia_sm_utilization", "NVIDIA SM Utilization", "%", false},
    [SCRAPE_GPU_XID_ERRORS] = {"nvidia_xid_errors", "NVIDIA XID Errors", "count", true},
    [SCRAPE_GPU_POWER_VIOLATION] = {"nvidia_power_violation", "NVIDIA Power Violation", "us", true},
};

/* The DCGM exporter's name, AIPerf's legacy name, and the scale from DCGM's unit to AIPerf's. */
static const struct {
    const char *dcgm;
    const char *legacy;
    enum scrape_gpu_field field;
    double scale;
} NAMES[] = {
    {"DCGM_FI_DEV_POWER_USAGE", "gpu_power_usage", SCRAPE_GPU_POWER_USAGE, 1},
    {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "energy_consumption", SCRAPE_GPU_ENERGY_CONSUMPTION,
     1e-9},
    {"DCGM_FI_DEV_GPU_UTIL", "gpu_utilization", SCRAPE_GPU_UTILIZATION, 1},
    {"DCGM_FI_DEV_MEM_COPY_UTIL", "mem_utilization", SCRAPE_GPU_MEMORY_UTILIZATION, 1},
    {"DCGM_FI_DEV_FB_USED", "gpu_memory_used", SCRAPE_GPU_MEMORY_USED, 1.048576e-3},
    {"DCGM_FI_DEV_GPU_TEMP", "gpu_temperature", SCRAPE_GPU_TEMPERATURE, 1},
    {"DCGM_FI_DEV_ENC_UTIL", "encoder_utilization", SCRAPE_GPU_ENCODER_UTILIZATION, 1},
    {"DCGM_FI_DEV_DEC_UTIL", "decoder_utilization", SCRAPE_GPU_DECODER_UTILIZATION, 1},
    {"DCGM_FI_PROF_SM_ACTIVE", "sm_utilization", SCRAPE_GPU_SM_UTILIZATION, 100},
    {"DCGM_FI_DEV_XID_ERRORS", "xid_errors", SCRAPE_GPU_XID_ERRORS, 1},
    {"DCGM_FI_DEV_POWER_VIOLATION", "power_violation", SCRAPE_GPU_POWER_VIOLATION, 1e-3},
};

const struct scrape_gpu_field_info *scrape_gpu_field_info_of(enum scrape_gpu_field f)
{
    return &FIELDS[f];
}

/* field_of maps a family name to a field and its scale; false when AIPerf does not read it.
 * AIPerf's own nvidia_* names are taken as they are (already in its units). */
static bool field_of(const char *family, enum scrape_gpu_field *out, double *scale)
{
    for (size_t i = 0; i < sizeof(NAMES) / sizeof(NAMES[0]); i++) {
        bool dcgm = strcmp(family, NAMES[i].dcgm) == 0;
        if (dcgm || strcmp(family, NAMES[i].legacy) == 0 ||
            strcmp(family, FIELDS[NAMES[i].field].name) == 0) {
            *out = NAMES[i].field;
            *scale = dcgm ? NAMES[i].scale : 1;
            return true;
        }
    }
    return false;
}

static const char *label(const struct scrape_sample_view *v, const char *name)
{
    for (size_t i = 0; i < v->label_count; i++) {
        if (strcmp(v->labels[i].name, name) == 0) {
            return v->labels[i].value;
        }
    }
    return "";
}

static bool same_gpu(const struct scrape_gpu_id *a, const struct scrape_gpu_id *b)
{
    return a->endpoint == b->endpoint && strcmp(a->uuid, b->uuid) == 0 &&
           strcmp(a->index, b->index) == 0;
}

static struct scrape_gpu_id id_of(const struct scrape_sample_view *v, size_t endpoint)
{
    return (struct scrape_gpu_id){
        .endpoint = endpoint,
        .index = label(v, "gpu"),
        .uuid = label(v, "UUID"),
        .model = label(v, "modelName"),
        .hostname = label(v, "Hostname"),
        .pci_bus_id = label(v, "pci_bus_id"),
        .device = label(v, "device"),
    };
}

size_t scrape_gpu_samples(const struct scrape *s, size_t i, struct scrape_gpu_sample *out)
{
    struct scrape_record rec;
    size_t n = scrape_record_at(s, i, &rec);
    size_t gpus = 0;
    for (size_t j = 0; j < n; j++) {
        struct scrape_sample_view v;
        scrape_record_sample(s, i, j, &v);
        enum scrape_gpu_field f;
        double scale;
        if (!field_of(v.family, &f, &scale)) {
            continue;
        }
        struct scrape_gpu_id id = id_of(&v, rec.endpoint);
        size_t g = 0;
        while (g < gpus && !same_gpu(&out[g].id, &id)) {
            g++;
        }
        if (g == gpus) {
            if (gpus == SCRAPE_GPUS_MAX) {
                continue;
            }
            memset(&out[gpus], 0, sizeof(out[gpus]));
            out[gpus++].id = id;
        }
        out[g].present[f] = true;
        out[g].value[f] = v.value * scale;
    }
    return gpus;
}

/* One GPU's values in a window: gauges keep every value, counters their first and last. */
struct gpu_acc {
    struct scrape_gpu_id id;
    double *values[SCRAPE_GPU_FIELD_COUNT];
    size_t n[SCRAPE_GPU_FIELD_COUNT], cap[SCRAPE_GPU_FIELD_COUNT];
    bool has_ref[SCRAPE_GPU_FIELD_COUNT]; /* values[f][0] is from before the window */
};

static int push(struct gpu_acc *a, enum scrape_gpu_field f, double v, bool before)
{
    if (before) {
        a->n[f] = 0;
        a->has_ref[f] = true;
    }
    if (a->n[f] == a->cap[f]) {
        size_t cap = a->cap[f] ? a->cap[f] * 2 : 64;
        double *p = realloc(a->values[f], cap * sizeof(*p));
        if (p == NULL) {
            return -ENOMEM;
        }
        a->values[f] = p;
        a->cap[f] = cap;
    }
    a->values[f][a->n[f]++] = v;
    return 0;
}

static struct gpu_acc *acc_of(struct gpu_acc **accs, size_t *n, const struct scrape_gpu_id *id)
{
    for (size_t i = 0; i < *n; i++) {
        if (same_gpu(&(*accs)[i].id, id)) {
            return &(*accs)[i];
        }
    }
    struct gpu_acc *p = realloc(*accs, (*n + 1) * sizeof(**accs));
    if (p == NULL) {
        return NULL;
    }
    *accs = p;
    memset(&p[*n], 0, sizeof(p[*n]));
    p[*n].id = *id;
    return &p[(*n)++];
}

static int gather(const struct scrape *s, struct scrape_window w, struct gpu_acc **accs, size_t *n)
{
    struct scrape_gpu_sample *gpus = malloc(SCRAPE_GPUS_MAX * sizeof(*gpus));
    if (gpus == NULL) {
        return -ENOMEM;
    }
    int ret = 0;
    for (size_t r = 0; r < scrape_record_count(s) && ret == 0; r++) {
        struct scrape_record rec;
        scrape_record_at(s, r, &rec);
        if (rec.timestamp_ns > w.end_ns) {
            break;
        }
        size_t count = scrape_gpu_samples(s, r, gpus);
        for (size_t g = 0; g < count && ret == 0; g++) {
            struct gpu_acc *a = acc_of(accs, n, &gpus[g].id);
            for (int f = 0; a != NULL && f < SCRAPE_GPU_FIELD_COUNT && ret == 0; f++) {
                if (gpus[g].present[f]) {
                    ret = push(a, (enum scrape_gpu_field)f, gpus[g].value[f],
                               rec.timestamp_ns < w.start_ns);
                }
            }
            ret = a == NULL ? -ENOMEM : ret;
        }
    }
    free(gpus);
    return ret;
}

/* gauge fills a gauge's statistics over v[0..n) and its sum. */
static void gauge(double *v, size_t n, struct scrape_gauge_stats *g, double *sum)
{
    *sum = 0;
    for (size_t i = 0; i < n; i++) {
        *sum += v[i];
    }
    scrape__gauge_stats(v, n, g);
}

static void finish(struct gpu_acc *a, struct scrape_gpu_stats *out)
{
    memset(out, 0, sizeof(*out));
    out->id = a->id;
    for (int f = 0; f < SCRAPE_GPU_FIELD_COUNT; f++) {
        size_t first = a->has_ref[f] ? 1 : 0;
        if (a->n[f] <= first) {
            continue; /* nothing inside the window */
        }
        out->present[f] = true;
        out->count[f] = a->n[f] - first;
        if (FIELDS[f].counter) {
            double delta = a->values[f][a->n[f] - 1] - a->values[f][0];
            out->gauge[f].avg = delta > 0 ? delta : 0;
        } else {
            gauge(a->values[f] + first, a->n[f] - first, &out->gauge[f], &out->sum[f]);
        }
    }
}

int scrape_gpu_reduce(const struct scrape *s, struct scrape_window w, struct scrape_gpu_stats **out,
                      size_t *out_count)
{
    *out = NULL;
    *out_count = 0;
    struct gpu_acc *accs = NULL;
    size_t n = 0;
    int ret = w.start_ns != 0 ? gather(s, w, &accs, &n) : 0;
    if (ret == 0 && n > 0) {
        *out = calloc(n, sizeof(**out));
        ret = *out == NULL ? -ENOMEM : 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (ret == 0) {
            finish(&accs[i], &(*out)[i]);
        }
        for (int f = 0; f < SCRAPE_GPU_FIELD_COUNT; f++) {
            free(accs[i].values[f]);
        }
    }
    free(accs);
    *out_count = ret == 0 ? n : 0;
    return ret;
}
