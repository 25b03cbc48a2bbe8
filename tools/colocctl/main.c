/*
 * colocctl: what the tenants of each GPU are doing, read from the
 * coordinator segments libcoloc maps (runtime/coord.h).
 *
 *   colocctl status [--run-dir DIR]   one table per GPU
 *   colocctl reap [--run-dir DIR]     frees the slots of tenants that died
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
#include <unistd.h>

#include "coloc/version.h"
#include "coord.h"

static const char usage[] =
	"usage: colocctl [--run-dir DIR] COMMAND\n"
	"\n"
	"commands:\n"
	"  status    tenants of each GPU: role, state, kernels, launches by form,\n"
	"            time best-effort launches waited for the latency tenant, device\n"
	"            memory held and allocations refused over the GPU's budget; for\n"
	"            best-effort tenants, coverage (their kernel time that ran\n"
	"            preemptible, or original within the turnaround bound),\n"
	"            preemptions of running persistent kernels, helpers that resumed\n"
	"            them, and the turnaround (latency tenant busy -> the kernels'\n"
	"            workers gone) p50/p99 over the last 256\n"
	"  reap      free the table slots of tenants whose process is gone\n"
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

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Preemptions and turnaround of a best-effort tenant, when it had any. */
static void print_preemption(const struct coloc_tenant *t)
{
	uint32_t v[COLOC_TURN_SAMPLES];
	uint64_t n = t->turn_count < COLOC_TURN_SAMPLES ? t->turn_count : COLOC_TURN_SAMPLES;

	if (!t->counters[TC_PREEMPTIONS] && !t->counters[TC_HELPERS])
		return;
	printf("  %-8d preemptions %" PRIu64 ", helpers %" PRIu64, t->pid, t->counters[TC_PREEMPTIONS],
	       t->counters[TC_HELPERS]);
	if (n) {
		memcpy(v, t->turn_us, n * sizeof(v[0]));
		qsort(v, n, sizeof(v[0]), cmp_u32);
		printf(", turnaround p50 %" PRIu32 " us, p99 %" PRIu32 " us (last %" PRIu64 ")",
		       v[(n - 1) / 2], v[(n - 1) * 99 / 100], n);
	}
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
	if (!n)
		return;
	printf("  %-8s %-11s %-6s %-16s %8s %8s %9s %9s %9s %9s %10s %10s %10s %9s\n", "PID", "ROLE",
	       "STATE", "NAME", "KERNELS", "REFUSED", "ORIGINAL", "SLICED", "PERSIST", "FALLBACK",
	       "GATED(ms)", "PREEMPT%", "MEM(MiB)", "MEM-OOM");
	for (int i = 0; i < COLOC_MAX_TENANTS; i++) {
		const struct coloc_tenant *t = &s->tenants[i];
		const uint64_t *c = t->counters;
		uint64_t all = c[TC_LAUNCH_ORIGINAL] + c[TC_LAUNCH_SLICE] + c[TC_LAUNCH_PTB];
		char share[16] = "-";

		if (!t->pid)
			continue;
		if (t->role == 2 && all)
			snprintf(share, sizeof(share), "%.1f",
				 100.0 * (double)(c[TC_LAUNCH_SLICE] + c[TC_LAUNCH_PTB]) / (double)all);
		printf("  %-8d %-11s %-6s %-16s %8" PRIu64 " %8" PRIu64 " %9" PRIu64 " %9" PRIu64
		       " %9" PRIu64 " %9" PRIu64 " %10.1f %10s %10.1f %9" PRIu64 "\n",
		       t->pid, role_name(t->role),
		       !coloc_tenant_alive(t) ? "dead" : t->busy ? "busy" : "idle", t->comm,
		       c[TC_KERNELS], c[TC_KERNELS_REFUSED], c[TC_LAUNCH_ORIGINAL], c[TC_LAUNCH_SLICE],
		       c[TC_LAUNCH_PTB], c[TC_LAUNCH_FALLBACK], (double)c[TC_GATED_NS] / 1e6, share,
		       (double)t->mem_held / 1048576.0, c[TC_MEM_REFUSED]);
	}
	for (int i = 0; i < COLOC_MAX_TENANTS; i++)
		if (s->tenants[i].pid && s->tenants[i].role == 2) {
			print_coverage(&s->tenants[i]);
			print_preemption(&s->tenants[i]);
		}
}

static unsigned reap(struct coloc_segment *s)
{
	unsigned n = 0;
	int rc = pthread_mutex_lock(&s->lock);

	if (rc == EOWNERDEAD)
		pthread_mutex_consistent(&s->lock);
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
	if (n) {
		__atomic_fetch_add(&s->epoch, 1, __ATOMIC_SEQ_CST);
		syscall(SYS_futex, &s->epoch, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
	}
	return n;
}

int main(int argc, char **argv)
{
	const char *dir = getenv("COLOC_RUN_DIR"), *cmd = NULL;
	char prefix[64], path[4200];
	struct dirent *e;
	unsigned found = 0;
	int status = 0, writable;
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
		} else {
			fprintf(stderr, "colocctl: error: unexpected argument '%s'\n%s", argv[i], usage);
			return 2;
		}
	}
	if (!cmd || (strcmp(cmd, "status") && strcmp(cmd, "reap"))) {
		fprintf(stderr, "colocctl: error: %s%s%s\n%s", cmd ? "unknown command '" : "no command",
			cmd ? cmd : "", cmd ? "'" : "", usage);
		return 2;
	}
	writable = !strcmp(cmd, "reap");
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
		if (writable)
			reap(s);
		else
			print_segment(path, s);
		munmap(s, sizeof(*s));
	}
	closedir(d);
	if (!found)
		printf("no colocc tenants have run on this machine (no segments in %s)\n", dir);
	return status;
}
