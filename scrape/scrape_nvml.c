/*
 * scrape_nvml.c - local GPUs through NVIDIA's management library, AIPerf's `pynvml` collector:
 * libnvidia-ml is loaded with dlopen at the first read (never linked, so a machine without the
 * driver builds and runs), each GPU's power, energy, utilisation, memory and temperature are read
 * on the scraper's schedule and written as the exposition of AIPerf's own nvidia_* fields, which
 * then takes the same path as a DCGM exporter's (store, reduction, exports, live picture).
 */
#include "scrape/scrape_internal.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NVML_SUCCESS 0
#define NVML_TEMPERATURE_GPU 0
#define NVML_NAME_BYTES 96
#define NVML_UUID_BYTES 96
#define NVML_TEXT_BYTES (SCRAPE_GPUS_MAX * 6 * 448) /* SCRAPE_GPUS_MAX GPUs' six fields */

typedef struct nvml_device *nvml_device_t;

/* nvml_utilization and nvml_memory are NVML's nvmlUtilization_t and nvmlMemory_t. */
struct nvml_utilization {
    unsigned int gpu, memory;
};
struct nvml_memory {
    unsigned long long total, free, used;
};

/* scrape__nvml is the loaded library and the entry points read. */
struct scrape__nvml {
    void *lib;
    int (*init)(void);
    int (*shutdown)(void);
    int (*count)(unsigned int *);
    int (*handle)(unsigned int, nvml_device_t *);
    int (*name)(nvml_device_t, char *, unsigned int);
    int (*uuid)(nvml_device_t, char *, unsigned int);
    int (*power_mw)(nvml_device_t, unsigned int *);
    int (*energy_mj)(nvml_device_t, unsigned long long *);
    int (*utilization)(nvml_device_t, struct nvml_utilization *);
    int (*memory)(nvml_device_t, struct nvml_memory *);
    int (*temperature)(nvml_device_t, int, unsigned int *);
    char *text;
};

static int fail(struct scrape__fetch_result *out, bool unavailable, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->error, sizeof(out->error), fmt, ap);
    va_end(ap);
    out->unavailable = unavailable;
    return -1;
}

/* bind_symbols looks every entry point up; false names the first one missing. */
static bool bind_symbols(struct scrape__nvml *n, const char **missing)
{
    static const struct {
        const char *name;
        size_t offset;
    } SYMBOLS[] = {
        {"nvmlInit_v2", offsetof(struct scrape__nvml, init)},
        {"nvmlShutdown", offsetof(struct scrape__nvml, shutdown)},
        {"nvmlDeviceGetCount_v2", offsetof(struct scrape__nvml, count)},
        {"nvmlDeviceGetHandleByIndex_v2", offsetof(struct scrape__nvml, handle)},
        {"nvmlDeviceGetName", offsetof(struct scrape__nvml, name)},
        {"nvmlDeviceGetUUID", offsetof(struct scrape__nvml, uuid)},
        {"nvmlDeviceGetPowerUsage", offsetof(struct scrape__nvml, power_mw)},
        {"nvmlDeviceGetTotalEnergyConsumption", offsetof(struct scrape__nvml, energy_mj)},
        {"nvmlDeviceGetUtilizationRates", offsetof(struct scrape__nvml, utilization)},
        {"nvmlDeviceGetMemoryInfo", offsetof(struct scrape__nvml, memory)},
        {"nvmlDeviceGetTemperature", offsetof(struct scrape__nvml, temperature)},
    };
    for (size_t i = 0; i < sizeof(SYMBOLS) / sizeof(SYMBOLS[0]); i++) {
        void *fn = dlsym(n->lib, SYMBOLS[i].name);
        if (fn == NULL) {
            *missing = SYMBOLS[i].name;
            return false;
        }
        /* POSIX guarantees a function pointer survives a trip through void *. */
        memcpy((char *)n + SYMBOLS[i].offset, &fn, sizeof(fn));
    }
    return true;
}

/* load opens and starts the library once; on failure the reason is in out. */
static int load(struct scrape *s, struct scrape__fetch_result *out)
{
    const char *path = s->cfg.nvml_library != NULL ? s->cfg.nvml_library : SCRAPE_NVML_LIBRARY;
    struct scrape__nvml *n = calloc(1, sizeof(*n));
    if (n == NULL || (n->text = malloc(NVML_TEXT_BYTES)) == NULL) {
        free(n);
        return fail(out, false, "out of memory");
    }
    n->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    const char *missing = NULL;
    int ret = 0;
    if (n->lib == NULL) {
        const char *why = dlerror();
        ret = fail(out, true, "NVML: cannot load %s: %.160s", path, why != NULL ? why : "?");
    } else if (!bind_symbols(n, &missing)) {
        ret = fail(out, true, "NVML: %s lacks %s", path, missing);
    } else if (n->init() != NVML_SUCCESS) {
        ret = fail(out, true, "NVML: nvmlInit_v2 failed (no NVIDIA driver or GPU?)");
    }
    if (ret != 0) {
        if (n->lib != NULL) {
            dlclose(n->lib);
        }
        free(n->text);
        free(n);
        return ret;
    }
    s->nvml = n;
    return 0;
}

/* put_field appends one sample of AIPerf's field `name` for the GPU labelled `labels`. */
static void put_field(char *text, size_t *len, const char *name, const char *labels, double v)
{
    int n = snprintf(text + *len, NVML_TEXT_BYTES - *len, "%s{%s} %.17g\n", name, labels, v);
    if (n > 0 && *len + (size_t)n < NVML_TEXT_BYTES) {
        *len += (size_t)n;
    }
}

/* put_gpu reads GPU i and appends its fields, scaled to AIPerf's units; a field NVML does not
 * give on this GPU is left out, as pynvml's collector leaves it None. */
static void put_gpu(const struct scrape__nvml *n, unsigned int i, char *text, size_t *len)
{
    nvml_device_t dev;
    if (n->handle(i, &dev) != NVML_SUCCESS) {
        return;
    }
    char name[NVML_NAME_BYTES] = "";
    char uuid[NVML_UUID_BYTES] = "";
    n->name(dev, name, sizeof(name));
    n->uuid(dev, uuid, sizeof(uuid));
    /* NVML's names and UUIDs are plain ASCII without quotes or backslashes. */
    char labels[320];
    snprintf(labels, sizeof(labels), "gpu=\"%u\",UUID=\"%s\",modelName=\"%s\"", i, uuid, name);
    unsigned int mw, temp;
    unsigned long long mj;
    struct nvml_utilization u;
    struct nvml_memory m;
    if (n->power_mw(dev, &mw) == NVML_SUCCESS) {
        put_field(text, len, "nvidia_power_usage", labels, mw / 1e3);
    }
    if (n->energy_mj(dev, &mj) == NVML_SUCCESS) {
        put_field(text, len, "nvidia_energy_consumption", labels, (double)mj * 1e-9);
    }
    if (n->utilization(dev, &u) == NVML_SUCCESS) {
        put_field(text, len, "nvidia_gpu_utilization", labels, u.gpu);
        put_field(text, len, "nvidia_memory_utilization", labels, u.memory);
    }
    if (n->memory(dev, &m) == NVML_SUCCESS) {
        put_field(text, len, "nvidia_memory_used", labels, (double)m.used / 1e9);
    }
    if (n->temperature(dev, NVML_TEMPERATURE_GPU, &temp) == NVML_SUCCESS) {
        put_field(text, len, "nvidia_temperature", labels, temp);
    }
}

/* stage parses the text as any exposition and stages its samples for endpoint ep. */
static int stage(struct scrape *s, size_t ep, const char *text, size_t len,
                 struct scrape__fetch_result *out)
{
    struct prom_parser pp;
    prom_parser_init(&pp, s->line_buf, SCRAPE_LINE_BYTES_MAX);
    while (len > 0) {
        size_t used = 0;
        struct prom_line line;
        enum prom_status st = prom_parser_feed(&pp, text, len, &used, &line);
        text += used;
        len -= used;
        int ret = 0;
        if (st == PROM_SAMPLE) {
            ret = scrape__store_stage(&s->store, (uint32_t)ep, &line.sample);
        } else if (st == PROM_TYPE) {
            ret = scrape__store_meta(&s->store, st, &line.meta);
        } else if (st >= PROM_ERR_FIRST) {
            return fail(out, false, "NVML: unreadable fields: %s", prom_status_name(st));
        }
        if (ret != 0) {
            return fail(out, false, "NVML: out of memory");
        }
    }
    return prom_parser_finish(&pp) == PROM_END ? 0 : fail(out, false, "NVML: unreadable fields");
}

void scrape__nvml_fetch(struct scrape *s, size_t ep, struct scrape__fetch_result *out)
{
    out->sent_ns = scrape__now_ns();
    out->first_byte_ns = out->sent_ns;
    if (s->nvml == NULL && load(s, out) != 0) {
        out->done_ns = scrape__now_ns();
        return;
    }
    const struct scrape__nvml *n = s->nvml;
    unsigned int count = 0;
    size_t len = 0;
    int ret = n->count(&count) == NVML_SUCCESS ? 0 : fail(out, false, "NVML: no device count");
    /* AIPerf's field kinds: the energy counter's TYPE makes its deltas a counter's. */
    int head = snprintf(n->text, NVML_TEXT_BYTES, "# TYPE nvidia_energy_consumption counter\n");
    len = head > 0 ? (size_t)head : 0;
    for (unsigned int i = 0; ret == 0 && i < count && i < SCRAPE_GPUS_MAX; i++) {
        put_gpu(n, i, n->text, &len);
    }
    ret = ret != 0 ? ret : stage(s, ep, n->text, len, out);
    out->done_ns = scrape__now_ns();
    out->ok = ret == 0;
    if (!out->ok) {
        scrape__store_drop(&s->store);
    }
}

void scrape__nvml_free(struct scrape *s)
{
    if (s->nvml == NULL) {
        return;
    }
    s->nvml->shutdown();
    dlclose(s->nvml->lib);
    free(s->nvml->text);
    free(s->nvml);
    s->nvml = NULL;
}
