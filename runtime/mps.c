/*
 * Whether a tenant is an MPS client (COLOC_MPS).
 *
 * MPS by itself costs a latency tenant its tail: with nobody beside it,
 * the graphed ResNet-50 read +8.2% to +17.6% at p99 as an MPS client over
 * the same tenant without MPS, median +11.3%, in the sixteen suite runs of
 * docs/results.md ("What MPS alone costs").  colocc keeps best-effort work
 * off the GPU while a latency tenant is busy, so what MPS gives a pair of
 * colocc tenants (kernels of both processes side by side) is not what they
 * need, and without MPS colocc did better on both of issue 6's measures
 * (docs/results.md, "colocc's tenants leave MPS").
 *
 * So by default (COLOC_MPS=leave) a colocc tenant on a machine that runs an
 * MPS control daemon does not connect to it.  The driver looks for the
 * daemon at its first cuInit, in CUDA_MPS_PIPE_DIRECTORY (default
 * /tmp/nvidia-mps), and a process that finds none runs as it would without
 * MPS (nvidia-cuda-mps-control(1)).  This file runs in the constructor,
 * before any cuInit, and points CUDA_MPS_PIPE_DIRECTORY at a path that
 * cannot hold one.  Other processes on the machine keep using MPS.
 *
 * A process that is not an MPS client needs a context of its own, which a
 * GPU in compute mode EXCLUSIVE_PROCESS (a common setting beside MPS) or
 * PROHIBITED refuses: the tenant would fail where it ran before.  So it
 * leaves only when NVML says that every GPU is in compute mode DEFAULT, and
 * otherwise stays a client and says why.  COLOC_MPS=stay always stays.
 *
 * COLOC_MPS_LEFT carries the daemon's directory to the processes the tenant
 * starts (they inherit the redirection with LD_PRELOAD), so that they say
 * they left it too rather than that no daemon runs.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "coloc.h"

#define DEFAULT_PIPE_DIR "/tmp/nvidia-mps"
/* No daemon can listen under a path whose parent is not a directory. */
#define NO_PIPE_DIR "/dev/null/coloc-left-mps"

/* NVML, as nvml.h declares it (the runtime includes no toolkit header). */
typedef struct nvml_device *nvml_device_t;
typedef int (*nvml_init_fn)(void);
typedef int (*nvml_count_fn)(unsigned *);
typedef int (*nvml_handle_fn)(unsigned, nvml_device_t *);
typedef int (*nvml_mode_fn)(nvml_device_t, int *);
typedef int (*nvml_shutdown_fn)(void);
#define NVML_SUCCESS 0
#define NVML_COMPUTEMODE_DEFAULT 0

static const char *const mode_names[] = { "DEFAULT", "EXCLUSIVE_THREAD", "PROHIBITED",
					  "EXCLUSIVE_PROCESS" };

/* True if a daemon's control socket (or pipe) is in DIR. */
static bool daemon_in(const char *dir)
{
	char path[4200];
	struct stat st;

	snprintf(path, sizeof(path), "%s/control", dir);
	return stat(path, &st) == 0 && (S_ISSOCK(st.st_mode) || S_ISFIFO(st.st_mode));
}

/*
 * 0 when every GPU is in compute mode DEFAULT; -1 with WHY (what keeps the
 * tenant a client) otherwise.
 */
static int every_gpu_shared(char *why, size_t size)
{
	bool mapped = coloc_driver_mapped();
	void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	nvml_init_fn init;
	nvml_count_fn count;
	nvml_handle_fn handle;
	nvml_mode_fn mode;
	nvml_shutdown_fn shutdown;
	unsigned n = 0;
	int rc = -1, e;

	if (!lib) {
		snprintf(why, size, "NVML (libnvidia-ml.so.1) cannot be loaded, so the GPUs' compute "
			 "mode is unknown");
		return -1;
	}
	init = COLOC_CAST(nvml_init_fn, dlsym(lib, "nvmlInit_v2"));
	count = COLOC_CAST(nvml_count_fn, dlsym(lib, "nvmlDeviceGetCount_v2"));
	handle = COLOC_CAST(nvml_handle_fn, dlsym(lib, "nvmlDeviceGetHandleByIndex_v2"));
	mode = COLOC_CAST(nvml_mode_fn, dlsym(lib, "nvmlDeviceGetComputeMode"));
	shutdown = COLOC_CAST(nvml_shutdown_fn, dlsym(lib, "nvmlShutdown"));
	if (!init || !count || !handle || !mode || !shutdown) {
		snprintf(why, size, "NVML lacks the calls that read the GPUs' compute mode");
		goto out;
	}
	if ((e = init()) != NVML_SUCCESS) {
		snprintf(why, size, "NVML did not start (error %d), so the GPUs' compute mode is "
			 "unknown", e);
		goto out;
	}
	if ((e = count(&n)) != NVML_SUCCESS || n == 0) {
		snprintf(why, size, "NVML counts no GPU (error %d)", e);
		goto stop;
	}
	for (unsigned i = 0; i < n; i++) {
		nvml_device_t dev;
		int m = -1;

		if ((e = handle(i, &dev)) != NVML_SUCCESS || (e = mode(dev, &m)) != NVML_SUCCESS) {
			snprintf(why, size, "NVML cannot read GPU %u's compute mode (error %d)", i, e);
			goto stop;
		}
		if (m != NVML_COMPUTEMODE_DEFAULT) {
			snprintf(why, size, "GPU %u is in compute mode %s, which lets no process "
				 "beside the MPS server make a context", i,
				 m >= 0 && m < 4 ? mode_names[m] : "(unknown)");
			goto stop;
		}
	}
	rc = 0;
stop:
	shutdown();
out:
	dlclose(lib);
	/*
	 * NVML loads the driver and leaves it mapped (seen on the H200): the
	 * driver's presence no longer tells that the program used CUDA
	 * (config.c, driver_loaded).
	 */
	if (!mapped && coloc_driver_mapped())
		coloc_cfg.mps_mapped_driver = true;
	return rc;
}

const char *coloc_mps_name(enum coloc_mps_state s)
{
	switch (s) {
	case COLOC_MPS_LEFT:
		return "left";
	case COLOC_MPS_CLIENT:
		return "client";
	case COLOC_MPS_NONE:
		break;
	}
	return "none";
}

/* Reads COLOC_MPS; -1 (colocc off) for a value it does not know. */
static int read_choice(bool *leave)
{
	const char *s = getenv("COLOC_MPS");

	*leave = true;
	if (!s || !*s || strcmp(s, "leave") == 0)
		return 0;
	if (strcmp(s, "stay") == 0) {
		*leave = false;
		return 0;
	}
	coloc_log(COLOC_LOG_ERROR, "COLOC_MPS='%s' is not leave or stay; colocc is off", s);
	coloc_cfg.disabled = true;
	return -1;
}

void coloc_mps_setup(void)
{
	const char *dir = getenv("CUDA_MPS_PIPE_DIRECTORY");
	const char *was = getenv("COLOC_MPS_LEFT");
	char why[256];
	bool leave;

	if (read_choice(&leave) < 0)
		return;
	if (dir && strcmp(dir, NO_PIPE_DIR) == 0 && was && *was && !leave) {
		/* Started by a tenant that left, told to stay: back to the daemon. */
		if (setenv("CUDA_MPS_PIPE_DIRECTORY", was, 1) == 0)
			dir = getenv("CUDA_MPS_PIPE_DIRECTORY");
	} else if (dir && strcmp(dir, NO_PIPE_DIR) == 0 && was && *was) {
		/* A process started by a tenant that left. */
		coloc_cfg.mps = COLOC_MPS_LEFT;
		snprintf(coloc_cfg.mps_detail, sizeof(coloc_cfg.mps_detail),
			 "left the MPS daemon at %s (as the process that started it)", was);
		return;
	}
	if (!dir || !*dir)
		dir = DEFAULT_PIPE_DIR;
	if (!daemon_in(dir)) {
		coloc_cfg.mps = COLOC_MPS_NONE;
		snprintf(coloc_cfg.mps_detail, sizeof(coloc_cfg.mps_detail),
			 "no MPS daemon at %s", dir);
		return;
	}
	if (!leave) {
		coloc_cfg.mps = COLOC_MPS_CLIENT;
		snprintf(coloc_cfg.mps_detail, sizeof(coloc_cfg.mps_detail),
			 "an MPS client of the daemon at %s (COLOC_MPS=stay)", dir);
		coloc_log(COLOC_LOG_INFO, "%s", coloc_cfg.mps_detail);
		return;
	}
	if (every_gpu_shared(why, sizeof(why)) < 0) {
		coloc_cfg.mps = COLOC_MPS_CLIENT;
		snprintf(coloc_cfg.mps_detail, sizeof(coloc_cfg.mps_detail),
			 "stays an MPS client of the daemon at %s: %s", dir, why);
		coloc_log(COLOC_LOG_WARN, "%s; MPS alone costs a latency tenant about a tenth of its "
			  "p99 (COLOC_MPS=stay says this is meant)", coloc_cfg.mps_detail);
		return;
	}
	/* COLOC_MPS_LEFT first: `dir` may point into the environment setenv replaces. */
	if (setenv("COLOC_MPS_LEFT", dir, 1) != 0 ||
	    setenv("CUDA_MPS_PIPE_DIRECTORY", NO_PIPE_DIR, 1) != 0) {
		coloc_cfg.mps = COLOC_MPS_CLIENT;
		snprintf(coloc_cfg.mps_detail, sizeof(coloc_cfg.mps_detail),
			 "stays an MPS client: the environment cannot be changed");
		coloc_log(COLOC_LOG_WARN, "%s", coloc_cfg.mps_detail);
		return;
	}
	dir = getenv("COLOC_MPS_LEFT");
	coloc_cfg.mps = COLOC_MPS_LEFT;
	snprintf(coloc_cfg.mps_detail, sizeof(coloc_cfg.mps_detail), "left the MPS daemon at %s",
		 dir);
	coloc_log(COLOC_LOG_INFO, "%s: this process is not an MPS client, its contexts are "
		  "time-sliced with the MPS server's (COLOC_MPS=stay keeps it a client)",
		  coloc_cfg.mps_detail);
	if (getenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE") || getenv("CUDA_MPS_CLIENT_PRIORITY"))
		coloc_log(COLOC_LOG_INFO, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE and "
			  "CUDA_MPS_CLIENT_PRIORITY do nothing outside MPS");
}
