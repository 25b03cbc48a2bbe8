/*
 * A fake libnvidia-ml.so.1 for mps.test: the five calls through which
 * libcoloc reads the GPUs' compute mode before it leaves an MPS daemon
 * (runtime/mps.c).
 *
 *   COLOC_FAKE_NVML_GPUS=N          GPUs it counts (default 1)
 *   COLOC_FAKE_COMPUTE_MODE=M[,M]   each GPU's mode, nvml.h's numbers: 0 DEFAULT,
 *                                   2 PROHIBITED, 3 EXCLUSIVE_PROCESS (default 0;
 *                                   the last one given holds for the GPUs after it)
 *   COLOC_FAKE_NVML_INIT=fail       nvmlInit_v2 answers NVML_ERROR_DRIVER_NOT_LOADED (9)
 *
 * As the real one on the H200, nvmlInit_v2 loads libcuda.so.1 (here: the
 * fake, from LD_LIBRARY_PATH) and leaves it loaded.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

struct nvml_device;

static int initialized;

EXPORT int nvmlInit_v2(void);
EXPORT int nvmlShutdown(void);
EXPORT int nvmlDeviceGetCount_v2(unsigned *count);
EXPORT int nvmlDeviceGetHandleByIndex_v2(unsigned index, struct nvml_device **dev);
EXPORT int nvmlDeviceGetComputeMode(struct nvml_device *dev, int *mode);

static unsigned gpus(void)
{
	const char *s = getenv("COLOC_FAKE_NVML_GPUS");

	return s && *s ? (unsigned)strtoul(s, NULL, 10) : 1;
}

int nvmlInit_v2(void)
{
	const char *s = getenv("COLOC_FAKE_NVML_INIT");

	if (s && strcmp(s, "fail") == 0)
		return 9;
	(void)dlopen("libcuda.so.1", RTLD_LAZY | RTLD_GLOBAL);
	initialized = 1;
	return 0;
}

int nvmlShutdown(void)
{
	if (!initialized)
		return 1; /* NVML_ERROR_UNINITIALIZED */
	initialized = 0;
	return 0;
}

int nvmlDeviceGetCount_v2(unsigned *count)
{
	if (!initialized)
		return 1;
	if (!count)
		return 2; /* NVML_ERROR_INVALID_ARGUMENT */
	*count = gpus();
	return 0;
}

/* Handles are the index + 1, never dereferenced. */
int nvmlDeviceGetHandleByIndex_v2(unsigned index, struct nvml_device **dev)
{
	if (!initialized)
		return 1;
	if (!dev || index >= gpus())
		return 2;
	*dev = (struct nvml_device *)(unsigned long)(index + 1);
	return 0;
}

int nvmlDeviceGetComputeMode(struct nvml_device *dev, int *mode)
{
	const char *s = getenv("COLOC_FAKE_COMPUTE_MODE");
	unsigned long index = (unsigned long)dev;
	int m = 0;

	if (!initialized)
		return 1;
	if (!mode || index == 0 || index > gpus())
		return 2;
	for (unsigned long i = 0; s && *s && i < index; i++) {
		char *end;

		m = (int)strtol(s, &end, 10);
		s = *end == ',' ? end + 1 : end;
	}
	*mode = m;
	return 0;
}
