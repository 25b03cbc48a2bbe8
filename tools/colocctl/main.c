/*
 * colocctl: what the tenants of each GPU are doing, read from the
 * coordinator segments libcoloc maps (runtime/coord.h).
 *
 *   colocctl status [--run-dir DIR]   one table per GPU
 *   colocctl reap [--run-dir DIR]     frees the slots of tenants that died
 *   colocctl discard PID [BYTES]      asks a best-effort tenant for memory
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "coloc/discard.h"
#include "coloc/version.h"
#include "coord.h"

static const char usage[] =
	"usage: colocctl [--run-dir DIR] COMMAND [ARGUMENT...]\n"
	"\n"
	"commands:\n"
	"  status    tenants of each GPU: role, state (idle, busy, unwatched: a\n"
	"            latency tenant left busy while no best-effort tenant shares its\n"
	"            GPU, COLOC_MONITOR; dead), kernels, launches by form,\n"
	"            time best-effort launches waited for the latency tenant, device\n"
	"            memory held and allocations refused over the GPU's budget; for\n"
	"            best-effort tenants, the kernels they launched, those that ran\n"
	"            original and why, coverage (their kernel time that ran\n"
	"            preemptible, or original within the turnaround bound),\n"
	"            preemptions of running persistent kernels, helpers that resumed\n"
	"            them, narrowings (COLOC_SHARE), blocks given up at stops\n"
	"            (COLOC_RESTART), and the turnaround (latency tenant busy -> the\n"
	"            kernels' workers gone) p50/p99 over the last 256; for best-effort tenants\n"
	"            that mark their work (include/coloc/discard.h), the phase, the\n"
	"            discard request outstanding, discards acknowledged and their\n"
	"            latency (request -> acknowledgement) p50/p99 over the last 64;\n"
	"            where an MPS daemon runs, whether each tenant is its client or\n"
	"            left it (COLOC_MPS)\n"
	"  reap      free the table slots of tenants whose process is gone\n"
	"  discard PID [BYTES]\n"
	"            post a discard request to best-effort tenant PID on every GPU it\n"
	"            uses, for BYTES of device memory (default 0: all it can free);\n"
	"            it throws its current unit of work away at its next check in\n"
	"            phase compute and acknowledges (see status); requests posted\n"
	"            before it acknowledges are handled together\n"
	"\n"
	"options:\n"
	"  --run-dir DIR   where the coordinator segments are (default: COLOC_RUN_DIR,\n"
	"                  else /dev/shm), as libcoloc was told\n"
	"  -h, --help      this text\n"
	"  --version       colocc's version\n";

static const char *role_name(uint32_t role)
{
	return role == 1 ? "latency" : role == 2 ? "best-effort" : "?";
}

/* A tenant's STATE: "unwatched" is a latency tenant busy with no best-effort tenant beside it. */
static const char *state_name(const struct coloc_tenant *t)
{
	uint32_t busy = __atomic_load_n(&t->busy, __ATOMIC_RELAXED);

	if (!coloc_tenant_alive(t))
		return "dead";
	return busy == COLOC_BUSY_UNWATCHED ? "unwatched" : busy ? "busy" : "idle";
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* ", WHAT p50 X us, p99 Y us (last N)" of a ring of `cap` samples written `count` times. */
static void print_percentiles(const char *what, const uint32_t *ring, uint64_t count, unsigned cap)
{
	uint32_t v[COLOC_TURN_SAMPLES];
	uint64_t n = count < cap ? count : cap;

	_Static_assert(COLOC_DISCARD_SAMPLES <= COLOC_TURN_SAMPLES &&
		       COLOC_HANDOVER_SAMPLES <= COLOC_TURN_SAMPLES &&
		       COLOC_EDGE_SAMPLES <= COLOC_TURN_SAMPLES, "v holds every ring");
	if (!n)
		return;
	memcpy(v, ring, n * sizeof(v[0]));
	qsort(v, n, sizeof(v[0]), cmp_u32);
	printf(", %s p50 %" PRIu32 " us, p99 %" PRIu32 " us (last %" PRIu64 ")", what,
	       v[(n - 1) / 2], v[(n - 1) * 99 / 100], n);
}

/* Preemptions and turnaround of a best-effort tenant, when it had any. */
static void print_preemption(const struct coloc_tenant *t)
{
	if (!t->counters[TC_PREEMPTIONS] && !t->counters[TC_HELPERS] && !t->counters[TC_NARROWINGS])
		return;
	printf("  %-8d preemptions %" PRIu64 ", helpers %" PRIu64, t->pid, t->counters[TC_PREEMPTIONS],
	       t->counters[TC_HELPERS]);
	if (t->counters[TC_NARROWINGS])
		printf(", narrowings %" PRIu64, t->counters[TC_NARROWINGS]);
	if (t->counters[TC_GIVEN_UP])
		printf(", blocks given up %" PRIu64, t->counters[TC_GIVEN_UP]);
	print_percentiles("turnaround", t->turn_us, t->turn_count, COLOC_TURN_SAMPLES);
	putchar('\n');
}

/*
 * A latency tenant's busy periods and its waits at their edges for
 * best-effort tenants (COLOC_EDGE_WAIT_US); the periods also where no edge
 * waited (no best-effort tenant with a persistent launch out).
 */
static void print_edges(const struct coloc_tenant *t)
{
	if (!t->counters[TC_BUSY_PERIODS] && !t->edge_count && !t->counters[TC_EDGE_TIMEOUTS])
		return;
	printf("  %-8d busy periods %" PRIu64 ", waits for best-effort tenants timed out %" PRIu64
	       " of %" PRIu64,
	       t->pid, t->counters[TC_BUSY_PERIODS], t->counters[TC_EDGE_TIMEOUTS], t->edge_count);
	print_percentiles("edge wait", t->edge_us, t->edge_count, COLOC_EDGE_SAMPLES);
	putchar('\n');
}

/* Bytes as MiB, or as bytes below one. */
static void print_size(uint64_t bytes)
{
	if (bytes < 1048576)
		printf("%" PRIu64 " bytes", bytes);
	else
		printf("%.1f MiB", (double)bytes / 1048576.0);
}

/* The discard protocol's state of a best-effort tenant that marks its work. */
static void print_discard(const struct coloc_tenant *t)
{
	static const char *const phases[] = {
		[COLOC_PHASE_NONE] = "none", [COLOC_PHASE_COMPUTE] = "compute",
		[COLOC_PHASE_OPTIMIZER] = "optimizer", [COLOC_PHASE_COLLECTIVE] = "collective",
	};
	uint32_t req = __atomic_load_n(&t->discard_req, __ATOMIC_ACQUIRE);
	uint32_t phase = __atomic_load_n(&t->phase, __ATOMIC_RELAXED);
	struct timespec now;

	if (!phase && !req && !t->discards)
		return;
	printf("  %-8d discard: phase %s", t->pid,
	       phase < sizeof(phases) / sizeof(phases[0]) ? phases[phase] : "?");
	if (phase)
		printf(" (unit %" PRIu64 ")", t->unit);
	if (req != t->discard_ack) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		printf(", request outstanding for %.1f ms (",
		       ((double)now.tv_sec * 1e9 + (double)now.tv_nsec - (double)t->discard_req_ns) / 1e6);
		if (t->discard_bytes)
			print_size(t->discard_bytes);
		printf("%s)", t->discard_bytes ? " wanted" : "all it can free");
	} else {
		printf(", no request outstanding");
	}
	printf("; %" PRIu64 " discards", t->discards);
	if (t->discards) {
		printf(", last freed ");
		print_size(t->discard_freed);
	}
	print_percentiles("latency", t->discard_us, t->discards, COLOC_DISCARD_SAMPLES);
	putchar('\n');
}

/*
 * A best-effort tenant's coverage: its kernel time by how it ran, as the
 * profiler measured each (kernel, geometry, form) it launched.
 */
static void print_coverage(const struct coloc_tenant *t)
{
	const uint64_t *c = t->counters;
	double all = (double)c[TC_KTIME_PREEMPTIBLE_NS] + (double)c[TC_KTIME_BOUNDED_NS] +
		     (double)c[TC_KTIME_UNBOUNDED_NS];

	if (!all && !c[TC_LAUNCH_UNTIMED])
		return;
	printf("  %-8d coverage", t->pid);
	if (all)
		printf(" %.1f%% of kernel time preemptible, %.1f%% original within the turnaround "
		       "bound, %.1f%% original beyond it (%.1f ms timed)",
		       100.0 * (double)c[TC_KTIME_PREEMPTIBLE_NS] / all,
		       100.0 * (double)c[TC_KTIME_BOUNDED_NS] / all,
		       100.0 * (double)c[TC_KTIME_UNBOUNDED_NS] / all, all / 1e6);
	printf("%s%" PRIu64 " launches not timed yet\n", all ? "; " : " ", c[TC_LAUNCH_UNTIMED]);
}

/*
 * A best-effort tenant's kernels as it launched them: how many, how many of
 * them ran original at their first launch, and why (the first reasons).
 */
static void print_kernels(const struct coloc_tenant *t)
{
	const uint64_t *c = t->counters;
	uint32_t n = __atomic_load_n(&t->nreasons, __ATOMIC_ACQUIRE);

	if (!c[TC_KERNELS_SEEN])
		return;
	printf("  %-8d kernels launched %" PRIu64 ", with a preemptible form %" PRIu64
	       ", original %" PRIu64, t->pid, c[TC_KERNELS_SEEN],
	       c[TC_KERNELS_SEEN] - c[TC_KERNELS_ORIGINAL], c[TC_KERNELS_ORIGINAL]);
	for (uint32_t i = 0; i < n && i < COLOC_REASONS; i++)
		printf("%s%" PRIu64 " %s", i ? "; " : ": ", t->reasons[i].count,
		       t->reasons[i].text);
	if (t->reasons_other)
		printf("; %" PRIu64 " for other reasons", t->reasons_other);
	putchar('\n');
}

/* A tenant's pools: what they hold unused, what is swapped out, what went to handovers. */
static void print_pool(const struct coloc_tenant *t)
{
	if (!t->mem_pool && !t->mem_cached && !t->mem_swapped)
		return;
	printf("  %-8d memory: %.1f MiB held, %.1f MiB of it cached, %.1f MiB swapped out",
	       t->pid, (double)t->mem_held / 1048576.0, (double)t->mem_cached / 1048576.0,
	       (double)t->mem_swapped / 1048576.0);
	if (t->role == 2)
		printf("; %.1f MiB given back, %" PRIu64 " swaps out, %" PRIu64 " in",
		       (double)t->mem_given / 1048576.0, t->swaps_out, t->swaps_in);
	putchar('\n');
}

/*
 * Where an MPS daemon runs: each tenant's answer (COLOC_MPS).  A best-effort
 * client beside a latency tenant that left is time-sliced with it, yet acts
 * as under MPS (COLOC_SHARE=auto narrows rather than stops): said here.
 */
static void print_mps(const struct coloc_segment *s)
{
	bool lat_left = false, be_client = false;

	for (int i = 0; i < COLOC_MAX_TENANTS; i++) {
		const struct coloc_tenant *t = &s->tenants[i];

		if (!t->pid || t->mps == COLOC_MPS_NONE)
			continue;
		printf("  %-8d MPS: %.*s\n", t->pid, COLOC_MPS_DETAIL_LEN, t->mps_detail);
		lat_left |= t->role == 1 && t->mps == COLOC_MPS_LEFT;
		be_client |= t->role == 2 && t->mps == COLOC_MPS_CLIENT;
	}
	if (lat_left && be_client)
		printf("  note: a best-effort MPS client beside a latency tenant outside MPS: they "
		       "are time-sliced, and the best-effort tenant acts as under MPS (give both "
		       "the same COLOC_MPS)\n");
}

/* Latency tenants' waits for memory, by what ended them. */
static void print_handovers(const struct coloc_segment *s)
{
	static const char *const names[COLOC_PATHS] = { "cached", "discard", "swap", "failed" };
	uint64_t all = 0;

	for (int p = 0; p < COLOC_PATHS; p++)
		all += s->handover[p].count;
	if (!all && !s->mem_hold)
		return;
	printf("  handovers:");
	for (int p = 0; p < COLOC_PATHS; p++) {
		const struct coloc_handover_stats *h = &s->handover[p];

		printf("%s %s %" PRIu64, p ? ";" : "", names[p], h->count);
		print_percentiles("wait", h->us, h->count, COLOC_HANDOVER_SAMPLES);
	}
	printf("; latency tenants keep %.1f MiB more\n", (double)s->mem_hold / 1048576.0);
}

static void print_segment(const char *path, const struct coloc_segment *s)
{
	unsigned n = 0;

	for (int i = 0; i < COLOC_MAX_TENANTS; i++)
		n += s->tenants[i].pid != 0;
	printf("GPU %s (%s): %u tenant%s, %" PRIu64 " reaped", s->gpu, path, n, n == 1 ? "" : "s",
	       s->reaped);
	if (s->mem_budget)
		printf(", memory budget %.1f MiB (%.1f MiB reserved for latency tenants)",
		       (double)s->mem_budget / 1048576.0, (double)s->mem_reserve / 1048576.0);
	putchar('\n');
	print_handovers(s);
	if (!n)
		return;
	printf("  %-8s %-11s %-9s %-16s %8s %8s %9s %9s %9s %9s %8s %10s %10s %10s %9s\n", "PID",
	       "ROLE", "STATE", "NAME", "KERNELS", "REFUSED", "ORIGINAL", "SLICED", "PERSIST",
	       "FALLBACK", "GRAPHS", "GATED(ms)", "PREEMPT%", "MEM(MiB)", "MEM-OOM");
	for (int i = 0; i < COLOC_MAX_TENANTS; i++) {
		const struct coloc_tenant *t = &s->tenants[i];
		const uint64_t *c = t->counters;
		uint64_t original = coloc_tenant_original_launches(t);
		uint64_t all = original + c[TC_LAUNCH_SLICE] + c[TC_LAUNCH_PTB];
		char share[16] = "-";

		if (!t->pid)
			continue;
		if (t->role == 2 && all)
			snprintf(share, sizeof(share), "%.1f",
				 100.0 * (double)(c[TC_LAUNCH_SLICE] + c[TC_LAUNCH_PTB]) / (double)all);
		printf("  %-8d %-11s %-9s %-16s %8" PRIu64 " %8" PRIu64 " %9" PRIu64 " %9" PRIu64
		       " %9" PRIu64 " %9" PRIu64 " %8" PRIu64 " %10.1f %10s %10.1f %9" PRIu64 "\n",
		       t->pid, role_name(t->role), state_name(t), t->comm,
		       c[TC_KERNELS], c[TC_KERNELS_REFUSED], original, c[TC_LAUNCH_SLICE],
		       c[TC_LAUNCH_PTB], c[TC_LAUNCH_FALLBACK], c[TC_GRAPH_LAUNCHES],
		       (double)c[TC_GATED_NS] / 1e6, share, (double)t->mem_held / 1048576.0,
		       c[TC_MEM_REFUSED]);
	}
	for (int i = 0; i < COLOC_MAX_TENANTS; i++)
		if (s->tenants[i].pid)
			print_pool(&s->tenants[i]);
	for (int i = 0; i < COLOC_MAX_TENANTS; i++)
		if (s->tenants[i].pid && s->tenants[i].role == 2) {
			print_kernels(&s->tenants[i]);
			print_coverage(&s->tenants[i]);
			print_preemption(&s->tenants[i]);
			print_discard(&s->tenants[i]);
		}
	for (int i = 0; i < COLOC_MAX_TENANTS; i++)
		if (s->tenants[i].pid && s->tenants[i].role == 1)
			print_edges(&s->tenants[i]);
	print_mps(s);
}

static void seg_lock(struct coloc_segment *s)
{
	if (pthread_mutex_lock(&s->lock) == EOWNERDEAD)
		pthread_mutex_consistent(&s->lock); /* its owner died; the table is still whole */
}

/* Bumps the epoch and wakes every tenant's thread sleeping on it. */
static void seg_signal(struct coloc_segment *s)
{
	__atomic_fetch_add(&s->epoch, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &s->epoch, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
}

static unsigned reap(struct coloc_segment *s)
{
	unsigned n = 0;

	seg_lock(s);
	for (int i = 0; i < COLOC_MAX_TENANTS; i++) {
		struct coloc_tenant *t = &s->tenants[i];

		if (t->pid && !coloc_tenant_alive(t)) {
			printf("GPU %s: tenant %d (%s) is gone: slot freed\n", s->gpu, t->pid, t->comm);
			__atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
			__atomic_store_n(&t->pid, 0, __ATOMIC_RELEASE);
			n++;
		}
	}
	s->reaped += n;
	pthread_mutex_unlock(&s->lock);
	/* Best-effort tenants' watchers wake up and see the latency tenant gone. */
	if (n)
		seg_signal(s);
	return n;
}

/* Posts a discard request to `pid` in `s`; 1 when it is a tenant there, 0 when not, -1 on error. */
static int discard(struct coloc_segment *s, pid_t pid, uint64_t bytes)
{
	uint32_t seq = 0;
	int rc;

	seg_lock(s);
	rc = coloc_tenant_post_discard_locked(s, pid, bytes, &seq);
	pthread_mutex_unlock(&s->lock);
	if (rc == -ESRCH)
		return 0;
	if (rc < 0) {
		fprintf(stderr, "colocctl: error: tenant %d of GPU %s is not a best-effort tenant\n",
			(int)pid, s->gpu);
		return -1;
	}
	seg_signal(s); /* the tenant's callback thread */
	printf("GPU %s: discard request %" PRIu32 " posted to tenant %d (%" PRIu64 " bytes)\n",
	       s->gpu, seq, (int)pid, bytes);
	return 1;
}

int main(int argc, char **argv)
{
	const char *dir = getenv("COLOC_RUN_DIR"), *cmd = NULL, *args[2] = { NULL, NULL };
	char prefix[64], path[4200], *end;
	struct dirent *e;
	unsigned found = 0, nargs = 0, posted = 0;
	unsigned long long bytes = 0;
	long pid = 0;
	int status = 0, writable, is_discard;
	DIR *d;

	if (!dir || !*dir)
		dir = "/dev/shm";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--version")) {
			printf("colocctl (colocc) %s\n", COLOC_VERSION);
			return 0;
		} else if (!strcmp(argv[i], "--run-dir") && i + 1 < argc) {
			dir = argv[++i];
		} else if (!strncmp(argv[i], "--run-dir=", 10)) {
			dir = argv[i] + 10;
		} else if (argv[i][0] != '-' && !cmd) {
			cmd = argv[i];
		} else if (argv[i][0] != '-' && nargs < 2) {
			args[nargs++] = argv[i];
		} else {
			fprintf(stderr, "colocctl: error: unexpected argument '%s'\n%s", argv[i], usage);
			return 2;
		}
	}
	if (!cmd || (strcmp(cmd, "status") && strcmp(cmd, "reap") && strcmp(cmd, "discard"))) {
		fprintf(stderr, "colocctl: error: %s%s%s\n%s", cmd ? "unknown command '" : "no command",
			cmd ? cmd : "", cmd ? "'" : "", usage);
		return 2;
	}
	is_discard = !strcmp(cmd, "discard");
	if (is_discard && args[0]) {
		errno = 0;
		pid = strtol(args[0], &end, 10);
		if (*end || pid <= 0 || pid > INT32_MAX) {
			fprintf(stderr, "colocctl: error: '%s' is not a process id\n", args[0]);
			return 2;
		}
		if (args[1] && ((bytes = strtoull(args[1], &end, 10)), *end || errno ||
				args[1][0] == '-')) {
			fprintf(stderr, "colocctl: error: '%s' is not a number of bytes\n", args[1]);
			return 2;
		}
	} else if (is_discard || nargs) {
		fprintf(stderr, "colocctl: error: %s%s%s\n%s",
			is_discard ? "discard needs a process id" : "unexpected argument '",
			is_discard ? "" : args[0], is_discard ? "" : "'", usage);
		return 2;
	}
	writable = !strcmp(cmd, "reap") || is_discard;
	d = opendir(dir);
	if (!d) {
		fprintf(stderr, "colocctl: error: cannot read '%s': %s\n", dir, strerror(errno));
		return 1;
	}
	snprintf(prefix, sizeof(prefix), "coloc-%ld-", (long)getuid());
	while ((e = readdir(d))) {
		struct coloc_segment *s;
		struct stat st;
		int fd;

		if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0 || st.st_size != (off_t)sizeof(*s)) {
			fprintf(stderr, "colocctl: error: '%s' is not a coordinator segment of this "
				"colocc\n", path);
			if (fd >= 0)
				close(fd);
			status = 1;
			continue;
		}
		s = mmap(NULL, sizeof(*s), PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED, fd, 0);
		close(fd);
		if (s == MAP_FAILED || s->magic != COLOC_SEGMENT_MAGIC ||
		    s->version != COLOC_SEGMENT_VERSION) {
			fprintf(stderr, "colocctl: error: '%s' is not a coordinator segment of this "
				"colocc\n", path);
			status = 1;
			if (s != MAP_FAILED)
				munmap(s, sizeof(*s));
			continue;
		}
		found++;
		if (is_discard) {
			int rc = discard(s, (pid_t)pid, bytes);

			if (rc < 0)
				status = 1;
			posted += rc > 0;
		} else if (writable) {
			reap(s);
		} else {
			print_segment(path, s);
		}
		munmap(s, sizeof(*s));
	}
	closedir(d);
	if (!found)
		printf("no colocc tenants have run on this machine (no segments in %s)\n", dir);
	if (is_discard && !posted && !status) {
		fprintf(stderr, "colocctl: error: no live tenant has process id %ld\n", pid);
		status = 1;
	}
	return status;
}
