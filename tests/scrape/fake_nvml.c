/*
 * fake_nvml.c - a stand-in for libnvidia-ml.so.1 with the handful of entry points ringperf's
 * NVML reader calls, for RINGPERF_NVML_LIBRARY: two GPUs at fixed readings (GPU 0: 300 W, 40 %
 * busy, 20 % memory busy, 8e9 bytes used, 65 degrees; GPU 1: 100 W, 10 %, 5 %, 2e9 bytes, 45
 * degrees), whose energy counters grow at their power (mJ since the clock's start), so that a
 * machine without a GPU can run the NVML path end to end.
 */
#include <string.h>
#include <time.h>

struct fake_device {
    unsigned int index;
};

struct fake_utilization {
    unsigned int gpu, memory;
};

struct fake_memory {
    unsigned long long total, free, used;
};

static struct fake_device devices[2] = {{0}, {1}};
static const unsigned int power_mw[2] = {300000, 100000};
static const unsigned int busy[2][2] = {{40, 20}, {10, 5}};
static const unsigned long long used_bytes[2] = {8000000000ULL, 2000000000ULL};
static const unsigned int celsius[2] = {65, 45};

int nvmlInit_v2(void);
int nvmlShutdown(void);
int nvmlDeviceGetCount_v2(unsigned int *count);
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, struct fake_device **out);
int nvmlDeviceGetName(struct fake_device *d, char *name, unsigned int len);
int nvmlDeviceGetUUID(struct fake_device *d, char *uuid, unsigned int len);
int nvmlDeviceGetPowerUsage(struct fake_device *d, unsigned int *mw);
int nvmlDeviceGetTotalEnergyConsumption(struct fake_device *d, unsigned long long *mj);
int nvmlDeviceGetUtilizationRates(struct fake_device *d, struct fake_utilization *u);
int nvmlDeviceGetMemoryInfo(struct fake_device *d, struct fake_memory *m);
int nvmlDeviceGetTemperature(struct fake_device *d, int sensor, unsigned int *c);

int nvmlInit_v2(void)
{
    return 0;
}

int nvmlShutdown(void)
{
    return 0;
}

int nvmlDeviceGetCount_v2(unsigned int *count)
{
    *count = 2;
    return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int i, struct fake_device **out)
{
    if (i >= 2) {
        return 2; /* NVML_ERROR_INVALID_ARGUMENT */
    }
    *out = &devices[i];
    return 0;
}

int nvmlDeviceGetName(struct fake_device *d, char *name, unsigned int len)
{
    const char *n = d->index == 0 ? "Fake GPU A" : "Fake GPU B";
    if (len <= strlen(n)) {
        return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
    }
    memcpy(name, n, strlen(n) + 1);
    return 0;
}

int nvmlDeviceGetUUID(struct fake_device *d, char *uuid, unsigned int len)
{
    const char *u = d->index == 0 ? "GPU-fake-0" : "GPU-fake-1";
    if (len <= strlen(u)) {
        return 7;
    }
    memcpy(uuid, u, strlen(u) + 1);
    return 0;
}

int nvmlDeviceGetPowerUsage(struct fake_device *d, unsigned int *mw)
{
    *mw = power_mw[d->index];
    return 0;
}

int nvmlDeviceGetTotalEnergyConsumption(struct fake_device *d, unsigned long long *mj)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double seconds = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
    *mj = (unsigned long long)(seconds * power_mw[d->index]); /* mW x s = mJ */
    return 0;
}

int nvmlDeviceGetUtilizationRates(struct fake_device *d, struct fake_utilization *u)
{
    u->gpu = busy[d->index][0];
    u->memory = busy[d->index][1];
    return 0;
}

int nvmlDeviceGetMemoryInfo(struct fake_device *d, struct fake_memory *m)
{
    m->total = 80000000000ULL;
    m->used = used_bytes[d->index];
    m->free = m->total - m->used;
    return 0;
}

int nvmlDeviceGetTemperature(struct fake_device *d, int sensor, unsigned int *c)
{
    (void)sensor;
    *c = celsius[d->index];
    return 0;
}
