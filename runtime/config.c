/*
 * The environment, the log and the statistics.
 *
 *   COLOC_DISABLE=1          everything passes straight to the driver
 *   COLOC_ROLE=latency|best-effort
 *   COLOC_LOG=error|warn|info|debug    (default warn), COLOC_LOG_FILE=PATH,
 *                            COLOC_LOG_TIME=1: each line begins with CLOCK_MONOTONIC seconds
 *   COLOC_CACHE_DIR=DIR      compiled variants (default ~/.cache/coloc)
 *   COLOC_AOT_CACHE=DIR:...  caches written by colocc --aot, read only
 *   COLOC_FORM=auto|original|slice[:N]|ptb[:W]   best-effort launches
 *   COLOC_PROFILE=0|1        time launches, and under COLOC_FORM=auto pick forms (default 1)
 *   COLOC_TURNAROUND_US=T    the turnaround the profiler picks under (default 31.6)
 *   COLOC_POLICY=isolate|fill|none    how tenants share the GPU (default isolate)
 *   COLOC_SHARE=F|auto       while a latency tenant is busy, best-effort persistent kernels
 *                            keep this share (0 to 1, exclusive) of the SMs instead of
 *                            stopping, and new ones start; 0 (default): they stop, they
 *                            wait; auto: 0.7 under MPS, where kernels of two processes run
 *                            side by side, else 0
 *   COLOC_SHARE_HOLD_US=T    with COLOC_SHARE, they widen again once no latency tenant has
 *                            been busy for T microseconds (default 2000)
 *   COLOC_PTB_BATCH=N        virtual blocks a persistent worker takes at a time, 1 to 64
 *                            (default 0: from the profiler's measurement of the block's time)
 *   COLOC_RESTART=0|1        persistent forms made so that a stopped kernel gives up blocks
 *                            that have left no trace at their next barrier, to run them
 *                            again later, instead of finishing them; every barrier costs
 *                            time then (default 1; an AOT cache made without it is used
 *                            as it is; docs/passes.md)
 *   COLOC_STOP_READ=load|copy  how persistent blocks that can be given up read the stop
 *                            word: a load after every barrier (default), or a cp.async into
 *                            shared memory waited for at the next barrier (copy; sm_80 and
 *                            PTX 7.0 on, kernels without cp.async of their own; their own
 *                            cache entries; docs/passes.md)
 *   COLOC_RESUME=0|1         1: persistent blocks given up at a stop save their state and
 *                            are resumed where they stopped (colocc --ptb-resume; their own
 *                            cache entries; default 1; unset, an AOT cache's variants made
 *                            without it are used as they are; docs/passes.md)
 *   COLOC_FRESH=0|1          1: a launch held by its thread (COLOC_PARK=host) runs the
 *                            kernel's one-block-a-worker variant a few waves at a time,
 *                            and the looping form only to resume what a stop gave up
 *                            (default 1; 0: the looping form throughout; COLOC_FORM=ptb:W
 *                            keeps the looping form, W workers; launch.c)
 *   COLOC_STOP_COPY=0|1      1: a stop word copied from host memory, not written by a stream
 *                            memory operation (default 0; for comparison: preempt.c)
 *   COLOC_STOP_BY_END=0|1    0: a stop waits for the read back of its kernels' control
 *                            blocks even when they have ended (default 1; for comparison)
 *   COLOC_PARK=auto|worker|stream|host   how a stopped persistent kernel holds its
 *                            stream: a paused worker on the GPU, waits on the stream for
 *                            the stop's clear between relaunches, or (host) the launching
 *                            thread, which returns once every block is done and relaunches
 *                            the kernel after each stop (other threads' work on the stream
 *                            waits for it: fence.c); auto (default): host where the
 *                            device's contexts are not MPS clients, else worker
 *   COLOC_PARK_LINKS=N       with stream: relaunches behind waits per launch, 1 to 64
 *                            (default 8), plus one per 250 us the form was measured to take
 *                            (24 before it is measured; 64 at most); the last has a paused
 *                            worker
 *   COLOC_MEM_BUDGET=SIZE    device memory all tenants of a GPU may hold (default: all of it)
 *   COLOC_MEM_RESERVE=SIZE   of which best-effort tenants leave this much to latency tenants
 *                            (SIZE: bytes with an optional K, M, G or T suffix, or N%)
 *   COLOC_MPS=leave|stay     on a machine running an MPS daemon: the tenant does not connect
 *                            to it (leave, the default, where every GPU is in compute mode
 *                            DEFAULT) or is its client (stay); mps.c
 *   COLOC_STATS_FILE=PATH    statistics as JSON at exit (%p: the process id)
 *
 * A configuration error turns colocc off and says why: a program must
 * never fail because of colocc's settings.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "coloc.h"

struct coloc_config coloc_cfg = {
	.log_level = COLOC_LOG_WARN, .log_fd = 2, .profile = true, .turnaround_ns = 31600,
	.share_hold_ns = 2000000, .restart = true, .resume = true, .fresh = true, .stop_by_end = true,
	.park = COLOC_PARK_AUTO, .park_links = 8,
};

__thread struct coloc_tls coloc_tls;

static int role_warned;

bool coloc_bypass_off(void)
{
	if (coloc_cfg.role == COLOC_ROLE_NONE && !coloc_cfg.disabled &&
	    !__atomic_exchange_n(&role_warned, 1, __ATOMIC_RELAXED))
		/* Said at the first CUDA call, not in every process LD_PRELOAD reaches. */
		coloc_log(COLOC_LOG_WARN, "COLOC_ROLE is not set (latency or best-effort): colocc "
			  "passes every call through");
	return true;
}

static const char *const level_names[] = { "error", "warning", "info", "debug" };

void coloc_log(enum coloc_log_level level, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	if (!coloc_log_on(level))
		return;
	if (coloc_cfg.log_time) {
		struct timespec t;

		clock_gettime(CLOCK_MONOTONIC, &t);
		n = snprintf(line, sizeof(line), "%lld.%06ld colocc[%ld]: %s: ", (long long)t.tv_sec,
			     t.tv_nsec / 1000, (long)getpid(), level_names[level]);
	} else {
		n = snprintf(line, sizeof(line), "colocc[%ld]: %s: ", (long)getpid(),
			     level_names[level]);
	}
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	/* One write per line: lines of several threads and processes do not mix. */
	if (write(coloc_cfg.log_fd, line, (size_t)n) < 0) {
		/* Nowhere left to say it. */
	}
}

/* ---- statistics */

static uint64_t stats[STAT_COUNT];

#define MAX_REASONS 64
static struct {
	pthread_mutex_t lock; /* guards reasons and nreasons */
	struct {
		char *text;
		uint64_t count;
	} reasons[MAX_REASONS];
	unsigned nreasons;
	uint64_t other; /* refusals past MAX_REASONS distinct reasons */
} refusals = { .lock = PTHREAD_MUTEX_INITIALIZER };

static const char *const stat_names[STAT_COUNT] = {
	[STAT_MODULES] = "modules",
	[STAT_MODULES_PTX] = "modules_with_ptx",
	[STAT_KERNELS] = "kernels",
	[STAT_KERNELS_SLICE] = "kernels_sliced",
	[STAT_KERNELS_PTB] = "kernels_persistent",
	[STAT_VARIANTS_COMPILED] = "variants_compiled",
	[STAT_VARIANTS_CACHED] = "variants_from_cache",
	[STAT_VARIANTS_AOT] = "variants_from_aot_cache",
	[STAT_VARIANTS_FAILED] = "variants_failed",
	[STAT_LAUNCH_ORIGINAL] = "launches_original",
	[STAT_LAUNCH_SLICE] = "launches_sliced",
	[STAT_LAUNCH_PTB] = "launches_persistent",
	[STAT_LAUNCH_FALLBACK] = "launches_fallback",
	[STAT_PROFILE_SAMPLES] = "profile_samples",
	[STAT_PROFILE_CHOICES] = "profile_choices",
	[STAT_PROFILE_LOADED] = "profile_loaded",
	[STAT_KTIME_PREEMPTIBLE] = "kernel_ns_preemptible",
	[STAT_KTIME_BOUNDED] = "kernel_ns_original_within_bound",
	[STAT_KTIME_UNBOUNDED] = "kernel_ns_original_beyond_bound",
	[STAT_LAUNCH_UNTIMED] = "launches_untimed",
	[STAT_PARK_BROKEN] = "park_chains_broken",
	[STAT_PARK_EXHAUSTED] = "park_links_exhausted",
	[STAT_HOLD_RELAUNCHES] = "hold_relaunches",
	[STAT_HOLD_FENCE_WAITS] = "hold_fence_waits",
	[STAT_FRESH_LAUNCHES] = "fresh_launches",
	[STAT_FRESH_DRAINS] = "fresh_drains",
};

void coloc_stat_add(enum coloc_stat s, uint64_t n)
{
	__atomic_fetch_add(&stats[s], n, __ATOMIC_RELAXED);
}

/* Original launches counted in lanes, one per thread (coloc_thread_lane). */
uint64_t coloc_original_lanes[COLOC_THREAD_LANES * COLOC_LANE_STRIDE] __attribute__((aligned(64)));
static unsigned lanes_taken;

int coloc_thread_lane_first(void)
{
	unsigned n = __atomic_fetch_add(&lanes_taken, 1, __ATOMIC_RELAXED);

	coloc_tls.lane = n < COLOC_THREAD_LANES ? (int)n + 1 : -1;
	return coloc_tls.lane - (coloc_tls.lane > 0);
}

void coloc_stat_original_shared(void)
{
	coloc_stat_add(STAT_LAUNCH_ORIGINAL, 1);
}

static uint64_t stat_value(int s)
{
	uint64_t n = __atomic_load_n(&stats[s], __ATOMIC_RELAXED);

	if (s == STAT_LAUNCH_ORIGINAL)
		for (int i = 0; i < COLOC_THREAD_LANES; i++)
			n += __atomic_load_n(&coloc_original_lanes[i * COLOC_LANE_STRIDE], __ATOMIC_RELAXED);
	return n;
}

void coloc_stat_refusal(const char *reason)
{
	unsigned i;

	pthread_mutex_lock(&refusals.lock);
	for (i = 0; i < refusals.nreasons; i++)
		if (strcmp(refusals.reasons[i].text, reason) == 0)
			break;
	if (i == refusals.nreasons && i < MAX_REASONS) {
		refusals.reasons[i].text = strdup(reason);
		if (refusals.reasons[i].text)
			refusals.nreasons++;
	}
	if (i < refusals.nreasons)
		refusals.reasons[i].count++;
	else
		refusals.other++;
	pthread_mutex_unlock(&refusals.lock);
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* COLOC_STATS_FILE with each %p replaced by the process id. */
static void stats_path(char *out, size_t size)
{
	const char *s = coloc_cfg.stats_file;
	size_t n = 0;

	for (; *s && n + 24 < size; s++) {
		if (s[0] == '%' && s[1] == 'p') {
			n += (size_t)snprintf(out + n, size - n, "%ld", (long)getpid());
			s++;
		} else {
			out[n++] = *s;
		}
	}
	out[n] = '\0';
}

/* True when this process loaded the CUDA driver (a real one or the tests' fake). */
static bool driver_loaded(void)
{
	/* A launcher under LD_PRELOAD where mps.c's NVML mapped the driver. */
	if (coloc_cfg.mps_mapped_driver)
		return coloc_driver_opened();
	return coloc_driver_mapped();
}

static void stats_write(void)
{
	char path[sizeof(coloc_cfg.stats_file) + 64];
	FILE *f;

	if (!coloc_cfg.stats_file[0])
		return;
	stats_path(path, sizeof(path));
	f = fopen(path, "w");
	if (!f) {
		coloc_log(COLOC_LOG_ERROR, "cannot write statistics to '%s': %s", path,
			  strerror(errno));
		return;
	}
	fprintf(f, "{\n  \"pid\": %ld,\n  \"role\": \"%s\"", (long)getpid(),
		coloc_cfg.role == COLOC_ROLE_LATENCY ? "latency" :
		coloc_cfg.role == COLOC_ROLE_BEST_EFFORT ? "best-effort" : "none");
	for (int i = 0; i < STAT_COUNT; i++)
		fprintf(f, ",\n  \"%s\": %" PRIu64, stat_names[i], stat_value(i));
	fprintf(f, ",\n  \"mps\": \"%s\",\n  \"mps_detail\": ", coloc_mps_name(coloc_cfg.mps));
	json_string(f, coloc_cfg.mps_detail);
	fprintf(f, ",\n  \"refusals\": {");
	pthread_mutex_lock(&refusals.lock);
	for (unsigned i = 0; i < refusals.nreasons; i++) {
		fprintf(f, "%s\n    ", i ? "," : "");
		json_string(f, refusals.reasons[i].text);
		fprintf(f, ": %" PRIu64, refusals.reasons[i].count);
	}
	if (refusals.other)
		fprintf(f, "%s\n    \"(other reasons)\": %" PRIu64, refusals.nreasons ? "," : "",
			refusals.other);
	pthread_mutex_unlock(&refusals.lock);
	fprintf(f, "\n  }\n}\n");
	if (fclose(f) != 0)
		coloc_log(COLOC_LOG_ERROR, "cannot write statistics to '%s'", path);
}

/* ---- the environment */

static void copy_path(char *dst, size_t size, const char *src, const char *var)
{
	if (strlen(src) >= size) {
		coloc_log(COLOC_LOG_ERROR, "%s is longer than %zu bytes; colocc is off", var, size - 1);
		coloc_cfg.disabled = true;
		return;
	}
	strcpy(dst, src);
}

static void read_form(const char *s)
{
	static const struct {
		const char *name;
		enum coloc_form_choice form;
	} forms[] = { { "auto", COLOC_FORM_AUTO }, { "original", COLOC_FORM_ORIGINAL },
		      { "slice", COLOC_FORM_SLICE }, { "ptb", COLOC_FORM_PTB } };
	size_t n = strcspn(s, ":");

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		unsigned long count = 0;
		char *end;

		if (strlen(forms[i].name) != n || strncmp(s, forms[i].name, n) != 0)
			continue;
		if (s[n] == ':') {
			errno = 0;
			count = strtoul(s + n + 1, &end, 10);
			if (forms[i].form != COLOC_FORM_SLICE && forms[i].form != COLOC_FORM_PTB)
				break;
			if (errno || *end || end == s + n + 1 || count == 0 || count > 1u << 30)
				break;
		}
		coloc_cfg.form = forms[i].form;
		if (forms[i].form == COLOC_FORM_SLICE)
			coloc_cfg.slices = (unsigned)count;
		else if (forms[i].form == COLOC_FORM_PTB)
			coloc_cfg.workers = (unsigned)count;
		return;
	}
	coloc_log(COLOC_LOG_ERROR,
		  "COLOC_FORM='%s' is not one of auto, original, slice[:N], ptb[:W]; colocc is off",
		  s);
	coloc_cfg.disabled = true;
}

/* A memory size: bytes with an optional binary suffix, or a percentage of the device's. */
static int read_size(const char *name, const char *s, struct coloc_size *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v >= 0))
		goto bad;
	if (*end == '%' && !end[1] && v <= 100) {
		out->bytes = 0;
		out->permille = (unsigned)(v * 10 + 0.5);
		return 0;
	}
	switch (*end) {
	case 'T': v *= 1024; /* fall through */
	case 'G': v *= 1024; /* fall through */
	case 'M': v *= 1024; /* fall through */
	case 'K': v *= 1024; end++; break;
	default: break;
	}
	if (*end || v >= 18446744073709551615.0)
		goto bad;
	out->bytes = (uint64_t)v;
	out->permille = 0;
	return 0;
bad:
	coloc_log(COLOC_LOG_ERROR, "%s='%s' is not a size (bytes with an optional K, M, G or T, "
		  "or a percentage); colocc is off", name, s);
	coloc_cfg.disabled = true;
	return -1;
}

int coloc_mkdirs(const char *dir, mode_t mode)
{
	char path[4096];

	if (strlen(dir) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(path, dir);
	for (char *p = path + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(path, mode) < 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(path, mode) < 0 && errno != EEXIST ? -1 : 0;
}

/* COLOC_TURNAROUND_US: microseconds, with up to three decimals. */
static int read_turnaround(const char *s)
{
	char *end;
	double us;

	errno = 0;
	us = strtod(s, &end);
	if (errno || *end || end == s || !(us >= 1.0 && us <= 1e7)) {
		coloc_log(COLOC_LOG_ERROR, "COLOC_TURNAROUND_US='%s' is not a number of microseconds "
			  "from 1 to 10000000; colocc is off", s);
		coloc_cfg.disabled = true;
		return -1;
	}
	coloc_cfg.turnaround_ns = (uint64_t)(us * 1000.0 + 0.5);
	return 0;
}

/* COLOC_SHARE: auto, or a fraction from 0 to below 1, kept in 1/1024 (at least 1 when above 0). */
static int read_share(const char *s)
{
	char *end;
	double f;

	coloc_cfg.share_auto = strcmp(s, "auto") == 0;
	if (coloc_cfg.share_auto)
		return 0;
	errno = 0;
	f = strtod(s, &end);
	if (errno || *end || end == s || !(f >= 0.0 && f < 1.0)) {
		coloc_log(COLOC_LOG_ERROR, "COLOC_SHARE='%s' is not 'auto' or a share from 0 to 1 "
			  "(exclusive), e.g. 0.7; colocc is off", s);
		coloc_cfg.disabled = true;
		return -1;
	}
	coloc_cfg.share_units = f > 0.0 ? (unsigned)(f * 1024.0 + 0.5) : 0;
	if (f > 0.0 && coloc_cfg.share_units == 0)
		coloc_cfg.share_units = 1;
	if (coloc_cfg.share_units > 1023)
		coloc_cfg.share_units = 1023;
	return 0;
}

/* A whole number from `lo` to `hi` in *out; -1 (colocc off) when `s` is not one. */
static int read_count(const char *name, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || end == s || *s == '-' || v < lo || v > hi) {
		coloc_log(COLOC_LOG_ERROR, "%s='%s' is not a whole number from %llu to %llu; colocc "
			  "is off", name, s, (unsigned long long)lo, (unsigned long long)hi);
		coloc_cfg.disabled = true;
		return -1;
	}
	*out = v;
	return 0;
}

/* A 0|1 setting: unset or empty leaves *out; -1 (colocc off) for anything else. */
static int read_flag(const char *name, bool *out)
{
	const char *s = getenv(name);
	uint64_t on;

	if (!s || !*s)
		return 0;
	if (read_count(name, s, 0, 1, &on) < 0)
		return -1;
	*out = on != 0;
	return 0;
}

/* COLOC_MEM_POOL, COLOC_POOL_PAGE, COLOC_MEM_WATERMARK, _IDLE_MS and _WAIT_MS. */
static int read_memory_settings(void)
{
	struct coloc_size size;
	uint64_t v;
	const char *s;

	coloc_cfg.mem_pool = true;
	coloc_cfg.pool_page = 256ull << 20;
	coloc_cfg.mem_watermark = 1ull << 30;
	coloc_cfg.mem_idle_ns = 5000ull * 1000000u;
	coloc_cfg.mem_wait_ns = 10000ull * 1000000u;
	s = getenv("COLOC_MEM_POOL");
	if (s && *s) {
		if (strcmp(s, "0") && strcmp(s, "1")) {
			coloc_log(COLOC_LOG_ERROR, "COLOC_MEM_POOL='%s' is not 0 or 1; colocc is off", s);
			coloc_cfg.disabled = true;
			return -1;
		}
		coloc_cfg.mem_pool = *s == '1';
	}
	s = getenv("COLOC_POOL_PAGE");
	if (s && *s) {
		if (read_size("COLOC_POOL_PAGE", s, &size) < 0)
			return -1;
		if (size.permille || size.bytes < (2u << 20) || size.bytes % (2u << 20) ||
		    size.bytes > (16ull << 30)) {
			coloc_log(COLOC_LOG_ERROR, "COLOC_POOL_PAGE='%s' is not a multiple of 2M from 2M "
				  "to 16G; colocc is off", s);
			coloc_cfg.disabled = true;
			return -1;
		}
		coloc_cfg.pool_page = size.bytes;
	}
	s = getenv("COLOC_MEM_WATERMARK");
	if (s && *s) {
		if (read_size("COLOC_MEM_WATERMARK", s, &size) < 0)
			return -1;
		if (size.permille) {
			coloc_log(COLOC_LOG_ERROR, "COLOC_MEM_WATERMARK='%s' must be bytes, not a "
				  "percentage; colocc is off", s);
			coloc_cfg.disabled = true;
			return -1;
		}
		coloc_cfg.mem_watermark = size.bytes;
	}
	s = getenv("COLOC_MEM_IDLE_MS");
	if (s && *s) {
		if (read_count("COLOC_MEM_IDLE_MS", s, 0, 86400000, &v) < 0)
			return -1;
		coloc_cfg.mem_idle_ns = v * 1000000u;
	}
	s = getenv("COLOC_MEM_WAIT_MS");
	if (s && *s) {
		if (read_count("COLOC_MEM_WAIT_MS", s, 0, 3600000, &v) < 0)
			return -1;
		coloc_cfg.mem_wait_ns = v * 1000000u;
	}
	return 0;
}

/*
 * A best-effort tenant's contexts get the most hardware queues a context can
 * have (CUDA_DEVICE_MAX_CONNECTIONS=32; the driver's default is 8), read by
 * the driver when it makes a context, so before the application's first CUDA
 * call.  Streams share the queues round robin, and work on one queue runs in
 * the order it came: with 8, preempt.c's stop streams shared one with the
 * application's or the helpers' stream, and a stop (its word and its read
 * back) waited for the kernel it was to stop.  On the H200 under MPS that made
 * 0.2-0.9% of the long GPT trainer's stops take 7-58 ms, which set the latency
 * tenant's p99 (+246% to +1,259%); with 32, none took over 5 ms and the p99
 * was +14.3% (benchmarks/results/2026-11-26-h200/session4/, call 8).  A value
 * the user set is kept, and said when it is lower.
 */
static void more_connections(void)
{
	const char *s = getenv("CUDA_DEVICE_MAX_CONNECTIONS");

	if (!s || !*s) {
		if (setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0) == 0)
			coloc_log(COLOC_LOG_INFO, "CUDA_DEVICE_MAX_CONNECTIONS=32: hardware queues for "
				  "colocc's stop streams apart from the application's");
	} else if (strtol(s, NULL, 10) < 32) {
		coloc_log(COLOC_LOG_INFO, "CUDA_DEVICE_MAX_CONNECTIONS=%s kept: with fewer than 32 "
			  "hardware queues colocc's stop streams can share one with a running "
			  "kernel, and a stop then waits for that kernel's end", s);
	}
}

__attribute__((constructor)) static void coloc_init(void)
{
	const char *s;

	s = getenv("COLOC_LOG_FILE");
	if (s && *s) {
		int fd = open(s, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

		if (fd >= 0)
			coloc_cfg.log_fd = fd;
		else
			coloc_log(COLOC_LOG_ERROR, "cannot open COLOC_LOG_FILE '%s': %s", s,
				  strerror(errno));
	}
	s = getenv("COLOC_LOG_TIME");
	coloc_cfg.log_time = s && !strcmp(s, "1");
	s = getenv("COLOC_LOG");
	if (s && *s) {
		int i;

		for (i = 0; i <= COLOC_LOG_DEBUG; i++)
			if (strcmp(s, level_names[i]) == 0 || (i == COLOC_LOG_WARN && !strcmp(s, "warn")))
				break;
		if (i <= COLOC_LOG_DEBUG)
			coloc_cfg.log_level = (enum coloc_log_level)i;
		else
			coloc_log(COLOC_LOG_ERROR,
				  "COLOC_LOG='%s' is not one of error, warn, info, debug; using warn", s);
	}
	s = getenv("COLOC_DISABLE");
	if (s && *s && strcmp(s, "0") != 0) {
		coloc_cfg.disabled = true;
		coloc_log(COLOC_LOG_INFO, "COLOC_DISABLE is set: colocc is off");
		return;
	}
	s = getenv("COLOC_ROLE");
	if (!s || !*s) {
		/* coloc_bypass says so if the process uses CUDA. */
	} else if (strcmp(s, "latency") == 0) {
		coloc_cfg.role = COLOC_ROLE_LATENCY;
	} else if (strcmp(s, "best-effort") == 0) {
		coloc_cfg.role = COLOC_ROLE_BEST_EFFORT;
	} else {
		coloc_log(COLOC_LOG_ERROR,
			  "COLOC_ROLE='%s' is not latency or best-effort; colocc is off", s);
		coloc_cfg.disabled = true;
		return;
	}
	s = getenv("COLOC_CACHE_DIR");
	if (s && *s) {
		copy_path(coloc_cfg.cache_dir, sizeof(coloc_cfg.cache_dir), s, "COLOC_CACHE_DIR");
	} else {
		const char *home = getenv("XDG_CACHE_HOME");

		if (home && *home)
			snprintf(coloc_cfg.cache_dir, sizeof(coloc_cfg.cache_dir), "%s/coloc", home);
		else if ((home = getenv("HOME")) && *home)
			snprintf(coloc_cfg.cache_dir, sizeof(coloc_cfg.cache_dir), "%s/.cache/coloc",
				 home);
	}
	s = getenv("COLOC_AOT_CACHE");
	if (s && *s)
		copy_path(coloc_cfg.aot_dirs, sizeof(coloc_cfg.aot_dirs), s, "COLOC_AOT_CACHE");
	s = getenv("COLOC_STATS_FILE");
	if (s && *s)
		copy_path(coloc_cfg.stats_file, sizeof(coloc_cfg.stats_file), s, "COLOC_STATS_FILE");
	s = getenv("COLOC_FORM");
	if (s && *s)
		read_form(s);
	s = getenv("COLOC_PROFILE");
	if (s && *s) {
		if (strcmp(s, "0") && strcmp(s, "1")) {
			coloc_log(COLOC_LOG_ERROR, "COLOC_PROFILE='%s' is not 0 or 1; colocc is off", s);
			coloc_cfg.disabled = true;
			return;
		}
		coloc_cfg.profile = *s == '1';
	}
	s = getenv("COLOC_TURNAROUND_US");
	if (s && *s && read_turnaround(s) < 0)
		return;
	s = getenv("COLOC_SHARE");
	if (s && *s && read_share(s) < 0)
		return;
	s = getenv("COLOC_PTB_BATCH");
	if (s && *s) {
		uint64_t n;

		if (read_count("COLOC_PTB_BATCH", s, 0, 64, &n) < 0)
			return;
		coloc_cfg.ptb_batch = (unsigned)n;
	}
	if (read_flag("COLOC_RESTART", &coloc_cfg.restart) < 0)
		return;
	s = getenv("COLOC_STOP_READ");
	if (s && *s) {
		if (strcmp(s, "load") == 0) {
			coloc_cfg.stop_read_copy = false;
		} else if (strcmp(s, "copy") == 0) {
			coloc_cfg.stop_read_copy = true;
		} else {
			coloc_log(COLOC_LOG_ERROR, "COLOC_STOP_READ='%s' is not load or copy; colocc "
				  "is off", s);
			coloc_cfg.disabled = true;
			return;
		}
		if (coloc_cfg.stop_read_copy && !coloc_cfg.restart)
			coloc_log(COLOC_LOG_WARN, "COLOC_STOP_READ=copy does nothing with "
				  "COLOC_RESTART=0: no block is given up, so none reads the stop word "
				  "at its barriers");
	}
	if (read_flag("COLOC_RESUME", &coloc_cfg.resume) < 0)
		return;
	coloc_cfg.resume_said = getenv("COLOC_RESUME") && *getenv("COLOC_RESUME");
	if (coloc_cfg.resume && coloc_cfg.resume_said && !coloc_cfg.restart)
		coloc_log(COLOC_LOG_WARN, "COLOC_RESUME=1 does nothing with COLOC_RESTART=0: no block "
			  "is given up, so none is resumed");
	if (read_flag("COLOC_FRESH", &coloc_cfg.fresh) < 0)
		return;
	if (read_flag("COLOC_STOP_COPY", &coloc_cfg.stop_copy) < 0)
		return;
	if (read_flag("COLOC_STOP_BY_END", &coloc_cfg.stop_by_end) < 0)
		return;
	s = getenv("COLOC_PARK");
	if (s && *s) {
		if (strcmp(s, "auto") == 0) {
			coloc_cfg.park = COLOC_PARK_AUTO;
		} else if (strcmp(s, "worker") == 0) {
			coloc_cfg.park = COLOC_PARK_WORKER;
		} else if (strcmp(s, "stream") == 0) {
			coloc_cfg.park = COLOC_PARK_STREAM;
		} else if (strcmp(s, "host") == 0) {
			coloc_cfg.park = COLOC_PARK_HOST;
		} else {
			coloc_log(COLOC_LOG_ERROR, "COLOC_PARK='%s' is not auto, worker, stream or host; "
				  "colocc is off", s);
			coloc_cfg.disabled = true;
			return;
		}
	}
	s = getenv("COLOC_PARK_LINKS");
	if (s && *s) {
		uint64_t n;

		if (read_count("COLOC_PARK_LINKS", s, 1, 64, &n) < 0)
			return;
		coloc_cfg.park_links = (unsigned)n;
	}
	s = getenv("COLOC_SHARE_HOLD_US");
	if (s && *s) {
		uint64_t us;

		if (read_count("COLOC_SHARE_HOLD_US", s, 0, 10000000, &us) < 0)
			return;
		coloc_cfg.share_hold_ns = us * 1000u;
	}
	coloc_cfg.mem_budget.permille = 1000;
	s = getenv("COLOC_MEM_BUDGET");
	if (s && *s && read_size("COLOC_MEM_BUDGET", s, &coloc_cfg.mem_budget) < 0)
		return;
	s = getenv("COLOC_MEM_RESERVE");
	if (s && *s && read_size("COLOC_MEM_RESERVE", s, &coloc_cfg.mem_reserve) < 0)
		return;
	if (read_memory_settings() < 0)
		return;
	s = getenv("COLOC_POLICY");
	if (s && *s && strcmp(s, "isolate") != 0) {
		if (strcmp(s, "none") == 0) {
			coloc_cfg.policy = COLOC_POLICY_NONE;
		} else if (strcmp(s, "fill") == 0) {
			coloc_cfg.policy = COLOC_POLICY_FILL;
		} else {
			coloc_log(COLOC_LOG_ERROR, "COLOC_POLICY='%s' is not isolate, fill or none; "
				  "colocc is off", s);
			coloc_cfg.disabled = true;
			return;
		}
	}
	if (!coloc_cfg.disabled && coloc_cfg.role != COLOC_ROLE_NONE)
		coloc_log(COLOC_LOG_INFO, "role %s, cache %s",
			  coloc_cfg.role == COLOC_ROLE_LATENCY ? "latency" : "best-effort",
			  coloc_cfg.cache_dir[0] ? coloc_cfg.cache_dir : "(none: HOME is not set)");
	if (!coloc_cfg.disabled && coloc_cfg.role != COLOC_ROLE_NONE)
		coloc_mps_setup();
	if (!coloc_cfg.disabled && coloc_cfg.role == COLOC_ROLE_BEST_EFFORT)
		more_connections();
}

__attribute__((destructor)) static void coloc_fini(void)
{
	if (coloc_cfg.disabled || coloc_cfg.role == COLOC_ROLE_NONE)
		return;
	/*
	 * A process that never loaded the driver (a shell, a launcher that
	 * inherited LD_PRELOAD) has nothing to say, and its statistics would
	 * overwrite those of the program it started.
	 */
	if (!driver_loaded()) {
		coloc_log(COLOC_LOG_DEBUG, "statistics not written: this process never loaded the "
			  "CUDA driver");
		return;
	}
	if (coloc_log_on(COLOC_LOG_INFO))
		coloc_log(COLOC_LOG_INFO,
			  "%" PRIu64 " kernels: %" PRIu64 " sliced, %" PRIu64 " persistent; "
			  "launches: %" PRIu64 " original, %" PRIu64 " sliced, %" PRIu64
			  " persistent, %" PRIu64 " fell back",
			  stats[STAT_KERNELS], stats[STAT_KERNELS_SLICE], stats[STAT_KERNELS_PTB],
			  stat_value(STAT_LAUNCH_ORIGINAL), stats[STAT_LAUNCH_SLICE],
			  stats[STAT_LAUNCH_PTB], stats[STAT_LAUNCH_FALLBACK]);
	stats_write();
}
