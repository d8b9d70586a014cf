/*
 * A stand-in for libnvidia-ml.so.1 for tests on machines without a GPU: the NVML symbols the Joulie agent calls,
 * with NVML's C signatures and return codes (nvml.h), over boards described in a text file the test presets and
 * reads back. Written for Joulie from NVML's published API reference; no NVIDIA code.
 *
 * The state file is the library's own path plus ".state" (found with dladdr), so every test copies the library
 * into its own directory and owns its state. It is read again at every call, so a test can change power
 * readings, limits or failures between two calls of the agent. Lines:
 *
 *   device <index> <min_mw> <max_mw> <default_mw> <limit_mw> <power_mw> <energy_mj> <name, may hold spaces>
 *   fail <function> <device index or -1 for any> <nvmlReturn_t>
 *
 * A successful nvmlDeviceSetPowerManagementLimit writes the new limit into the state file (a temporary file
 * renamed over it, so a reader never sees half a file). Every call that gets past its checks is appended to
 * "<library>.log" ("nvmlDeviceSetPowerManagementLimit 0 150000"), so a test sees what was asked of the boards,
 * in order. Like NVML: calls before nvmlInit_v2 (or after the matching nvmlShutdown) return
 * NVML_ERROR_UNINITIALIZED, an index past the count NVML_ERROR_INVALID_ARGUMENT, a limit outside the board's
 * constraints NVML_ERROR_INVALID_ARGUMENT, a name buffer too small NVML_ERROR_INSUFFICIENT_SIZE.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int nvmlReturn_t;
enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_UNKNOWN = 999
};

#define MAX_DEVICES 64
#define MAX_FAILS 64
#define NAME_LEN 96

struct nvmlDevice_st {
    unsigned int index;
    unsigned int min_mw, max_mw, default_mw, limit_mw, power_mw;
    unsigned long long energy_mj;
    char name[NAME_LEN];
};
typedef struct nvmlDevice_st *nvmlDevice_t;

struct fail {
    char function[64];
    int device;
    nvmlReturn_t code;
};

static struct nvmlDevice_st devices[MAX_DEVICES];
static unsigned int device_count;
static struct fail fails[MAX_FAILS];
static int fail_count;
static int init_count;

static void path_with(char *out, size_t size, const char *suffix) {
    Dl_info info;
    if (dladdr((void *) &path_with, &info) == 0 || info.dli_fname == NULL) {
        snprintf(out, size, "fake-nvml%s", suffix);
        return;
    }
    snprintf(out, size, "%s%s", info.dli_fname, suffix);
}

/* Reads the state file; 0 on success. A missing file is a machine without GPUs. */
static int load(void) {
    char path[4096];
    path_with(path, sizeof path, ".state");
    device_count = 0;
    fail_count = 0;
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return 0;
    }
    char line[512];
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        struct nvmlDevice_st d;
        int consumed = 0;
        if (sscanf(line, "device %u %u %u %u %u %u %llu %n", &d.index, &d.min_mw, &d.max_mw, &d.default_mw,
                   &d.limit_mw, &d.power_mw, &d.energy_mj, &consumed) == 7 && d.index < MAX_DEVICES) {
            snprintf(d.name, NAME_LEN, "%s", line + consumed);
            devices[d.index] = d;
            if (d.index + 1 > device_count) {
                device_count = d.index + 1;
            }
        } else if (fail_count < MAX_FAILS) {
            struct fail *x = &fails[fail_count];
            if (sscanf(line, "fail %63s %d %d", x->function, &x->device, &x->code) == 3) {
                fail_count++;
            }
        }
    }
    fclose(f);
    return 0;
}

static int save(void) {
    char path[4096], tmp[4200];
    path_with(path, sizeof path, ".state");
    snprintf(tmp, sizeof tmp, "%s.tmp%d", path, (int) getpid());
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        return -1;
    }
    for (unsigned int i = 0; i < device_count; i++) {
        struct nvmlDevice_st *d = &devices[i];
        fprintf(f, "device %u %u %u %u %u %u %llu %s\n", i, d->min_mw, d->max_mw, d->default_mw, d->limit_mw,
                d->power_mw, d->energy_mj, d->name);
    }
    for (int i = 0; i < fail_count; i++) {
        fprintf(f, "fail %s %d %d\n", fails[i].function, fails[i].device, fails[i].code);
    }
    if (fclose(f) != 0) {
        return -1;
    }
    return rename(tmp, path);
}

static void logged(const char *function, int device, long long value) {
    char path[4096];
    path_with(path, sizeof path, ".log");
    FILE *f = fopen(path, "a");
    if (f == NULL) {
        return;
    }
    if (device < 0) {
        fprintf(f, "%s\n", function);
    } else if (value < 0) {
        fprintf(f, "%s %d\n", function, device);
    } else {
        fprintf(f, "%s %d %lld\n", function, device, value);
    }
    fclose(f);
}

/* The return code the test injected for this function (and device), if any. */
static nvmlReturn_t injected(const char *function, int device) {
    for (int i = 0; i < fail_count; i++) {
        if (strcmp(fails[i].function, function) == 0 && (fails[i].device < 0 || fails[i].device == device)) {
            return fails[i].code;
        }
    }
    return NVML_SUCCESS;
}

/* The common checks of a device call: initialised, a handle of ours, no injected failure. */
static nvmlReturn_t device_call(const char *function, nvmlDevice_t device) {
    if (init_count == 0) {
        return NVML_ERROR_UNINITIALIZED;
    }
    load();
    if (device == NULL || device < devices || device >= devices + device_count) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    return injected(function, (int) device->index);
}

nvmlReturn_t nvmlInit_v2(void) {
    load();
    nvmlReturn_t r = injected("nvmlInit_v2", -1);
    if (r != NVML_SUCCESS) {
        return r;
    }
    init_count++;
    logged("nvmlInit_v2", -1, -1);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void) {
    if (init_count == 0) {
        return NVML_ERROR_UNINITIALIZED;
    }
    load();
    nvmlReturn_t r = injected("nvmlShutdown", -1);
    if (r != NVML_SUCCESS) {
        return r;
    }
    init_count--;
    logged("nvmlShutdown", -1, -1);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
    if (init_count == 0) {
        return NVML_ERROR_UNINITIALIZED;
    }
    load();
    if (count == NULL) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    nvmlReturn_t r = injected("nvmlDeviceGetCount_v2", -1);
    if (r != NVML_SUCCESS) {
        return r;
    }
    *count = device_count;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
    if (init_count == 0) {
        return NVML_ERROR_UNINITIALIZED;
    }
    load();
    if (device == NULL || index >= device_count) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    nvmlReturn_t r = injected("nvmlDeviceGetHandleByIndex_v2", (int) index);
    if (r != NVML_SUCCESS) {
        return r;
    }
    *device = &devices[index];
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) {
    nvmlReturn_t r = device_call("nvmlDeviceGetName", device);
    if (r != NVML_SUCCESS) {
        return r;
    }
    if (name == NULL) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (strlen(device->name) + 1 > length) {
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    memcpy(name, device->name, strlen(device->name) + 1);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t device, unsigned int *min, unsigned int *max) {
    nvmlReturn_t r = device_call("nvmlDeviceGetPowerManagementLimitConstraints", device);
    if (r != NVML_SUCCESS) {
        return r;
    }
    if (min == NULL || max == NULL) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    *min = device->min_mw;
    *max = device->max_mw;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t device, unsigned int *limit) {
    nvmlReturn_t r = device_call("nvmlDeviceGetPowerManagementDefaultLimit", device);
    if (r != NVML_SUCCESS) {
        return r;
    }
    if (limit == NULL) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    *limit = device->default_mw;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int *limit) {
    nvmlReturn_t r = device_call("nvmlDeviceGetPowerManagementLimit", device);
    if (r != NVML_SUCCESS) {
        return r;
    }
    if (limit == NULL) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    *limit = device->limit_mw;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceSetPowerManagementLimit(nvmlDevice_t device, unsigned int limit) {
    nvmlReturn_t r = device_call("nvmlDeviceSetPowerManagementLimit", device);
    if (r != NVML_SUCCESS) {
        return r;
    }
    if (limit < device->min_mw || limit > device->max_mw) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    device->limit_mw = limit;
    if (save() != 0) {
        return NVML_ERROR_UNKNOWN;
    }
    logged("nvmlDeviceSetPowerManagementLimit", (int) device->index, limit);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power) {
    nvmlReturn_t r = device_call("nvmlDeviceGetPowerUsage", device);
    if (r != NVML_SUCCESS) {
        return r;
    }
    if (power == NULL) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    *power = device->power_mw;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy) {
    nvmlReturn_t r = device_call("nvmlDeviceGetTotalEnergyConsumption", device);
    if (r != NVML_SUCCESS) {
        return r;
    }
    if (energy == NULL) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    *energy = device->energy_mj;
    return NVML_SUCCESS;
}
