/*
 * The discard protocol's calls for discard.test, linked against libcoloc.so
 * (include/coloc/discard.h), in the order the steps give them: first the
 * arguments, then, after a "-", one step per line of standard input, so
 * that a driver can post requests between steps.
 *
 *   nocontext    (first only) make no CUDA context
 *   begin:U  phase:P  end  pending  ack:N  callback  uncallback
 *                the API's calls; P is a name or a number
 *   wait-callback:N   waits (5 s at most) until the callback ran N times
 *   count        how many times the callback ran
 *   sleep:MS
 *
 * One line per step: "app: STEP: RC" (and bytes= for pending).  The
 * callback prints "app: callback N bytes=B" from libcoloc's thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "coloc/discard.h"
#include "cuda_abi.h"

CUresult cuInit(unsigned flags);
CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev);
CUresult cuCtxSetCurrent(CUcontext ctx);

static unsigned calls; /* callbacks so far */

/* Counted after its line is out, so that wait-callback's line comes after it. */
static void on_request(void *arg, uint64_t bytes)
{
	unsigned n = __atomic_load_n(&calls, __ATOMIC_SEQ_CST) + 1; /* one thread calls it */

	printf("app: callback %u bytes=%llu arg=%s\n", n, (unsigned long long)bytes, (char *)arg);
	__atomic_store_n(&calls, n, __ATOMIC_SEQ_CST);
}

static void sleep_ms(unsigned long ms)
{
	struct timespec t = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000 };

	nanosleep(&t, NULL);
}

static int phase_of(const char *s)
{
	static const char *const names[] = { "none", "compute", "optimizer", "collective" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i]))
			return i;
	return atoi(s);
}

/* Runs one step; -1 when it is not one. */
static int step(const char *a)
{
	const char *arg = strchr(a, ':');
	unsigned long long n = arg ? strtoull(arg + 1, NULL, 10) : 0;
	uint64_t bytes = 0;
	int rc;

	if (!strncmp(a, "begin:", 6)) {
		rc = coloc_unit_begin(n);
	} else if (!strncmp(a, "phase:", 6)) {
		rc = coloc_unit_phase((enum coloc_phase)phase_of(arg + 1));
	} else if (!strcmp(a, "end")) {
		rc = coloc_unit_end();
	} else if (!strcmp(a, "pending")) {
		rc = coloc_discard_pending(&bytes);
		printf("app: pending: %d bytes=%llu\n", rc, (unsigned long long)bytes);
		return 0;
	} else if (!strncmp(a, "ack:", 4)) {
		rc = coloc_discard_ack(n);
	} else if (!strcmp(a, "callback")) {
		rc = coloc_discard_callback(on_request, "tag");
	} else if (!strcmp(a, "uncallback")) {
		rc = coloc_discard_callback(NULL, NULL);
	} else if (!strncmp(a, "wait-callback:", 14)) {
		for (int i = 0; i < 500 && __atomic_load_n(&calls, __ATOMIC_SEQ_CST) < n; i++)
			sleep_ms(10);
		rc = __atomic_load_n(&calls, __ATOMIC_SEQ_CST) >= n ? 0 : -ETIMEDOUT;
	} else if (!strcmp(a, "count")) {
		rc = (int)__atomic_load_n(&calls, __ATOMIC_SEQ_CST);
	} else if (!strncmp(a, "sleep:", 6)) {
		sleep_ms(n);
		rc = 0;
	} else {
		return -1;
	}
	printf("app: %s: %d\n", a, rc);
	return 0;
}

int main(int argc, char **argv)
{
	char line[256];
	CUcontext ctx;
	int i = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "nocontext")) {
		i++;
	} else if (cuInit(0) || cuDevicePrimaryCtxRetain(&ctx, 0) || cuCtxSetCurrent(ctx)) {
		printf("app: no context\n");
		return 1;
	}
	printf("app: pid %ld\n", (long)getpid());
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "-")) {
			while (fgets(line, sizeof(line), stdin)) {
				line[strcspn(line, "\n")] = '\0';
				if (*line && step(line) < 0)
					printf("app: unknown step %s\n", line);
			}
		} else if (step(argv[i]) < 0) {
			printf("app: unknown step %s\n", argv[i]);
			return 2;
		}
	}
	return 0;
}
