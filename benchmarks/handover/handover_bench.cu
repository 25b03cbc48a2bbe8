// The two tenants of the memory handover benchmark (issue 7), run under
// libcoloc by benchmarks/handover/run.
//
//   handover_bench be MODE BASE_MIB WORK_MIB
//     A best-effort tenant.  It allocates BASE_MIB (its weights, held, filled
//     with the pattern 0xC0100CC0) and WORK_MIB, prints "be: ready", then
//     works until "stop" on standard input (or SIGTERM):
//       cached   WORK is freed at once and stays in its pool, cached, filled
//                with the pattern
//       discard  trains: 1 ms kernels on WORK (its activations), looking for
//                a discard request while each runs; on one it frees WORK and
//                acknowledges (with nothing to free, it acknowledges 0)
//       swap     runs 1 ms kernels that add 1 to every word of WORK; colocc
//                swaps the tenant out and back in between
//     "refill" on standard input takes back what a handover took (cached:
//     allocates, fills and frees WORK again; discard: allocates it again;
//     swap: waits until a kernel of its ran, i.e. it is swapped in) and
//     answers "be: ok".  At the end it prints one JSON line of counts; in
//     swap mode it also checks every word of WORK (each must equal the
//     number of kernels run) and of BASE (each must still hold the pattern).
//
//   handover_bench lat MIB
//     A latency tenant.  For each "alloc" on standard input: allocates MIB
//     with cudaMalloc (timed), counts the words that are not zero and those
//     that hold the best-effort tenant's pattern (a page handed over must
//     never show its last owner's data), frees them, and prints one JSON
//     line.  "stop" (or the end of the input) prints a summary.
//
//   handover_bench train BASE_MIB CHUNK_MIB MAX_CHUNKS
//   handover_bench serve TRACE WEIGHTS_MIB REQ_MIB MAX_BATCH FIXED_US PER_REQ_US LAT_OUT
//     The two tenants of the end-to-end run: a trainer whose micro-batch
//     grows and shrinks with its memory, and an inference server under an
//     open-loop trace whose batches need memory (see trainer() and server()).
//
// Every wait is bounded and the program has an alarm: a hang ends the run,
// not the GPU machine's time.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#define PATTERN 0xC0100CC0u
#define MIB (1ull << 20)

#define CK(call)                                                                           \
	do {                                                                               \
		cudaError_t rc_ = (call);                                                  \
		if (rc_ != cudaSuccess) {                                                  \
			fprintf(stderr, "handover_bench: %s:%d: %s: %s\n", __FILE__, __LINE__, \
				#call, cudaGetErrorString(rc_));                           \
			exit(1);                                                           \
		}                                                                          \
	} while (0)

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void sleep_ms(double ms)
{
	struct timespec t = { (time_t)(ms / 1000), (long)(fmod(ms, 1000.0) * 1e6) };

	nanosleep(&t, NULL);
}

// Adds 1 to every word, then spins until `ns` of the global timer passed:
// a training kernel whose result can be checked.
__global__ void step(unsigned *p, size_t n, unsigned long long ns)
{
	unsigned long long t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		p[i] += 1;
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	while (t - t0 < ns);
}

__global__ void fill(unsigned *p, size_t n, unsigned v)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		p[i] = v;
}

// Counts the words that are not zero and those equal to `pattern`.
__global__ void census(const unsigned *p, size_t n, unsigned pattern, unsigned long long *out)
{
	unsigned long long nonzero = 0, same = 0;

	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		nonzero += p[i] != 0;
		same += p[i] == pattern;
	}
	if (nonzero)
		atomicAdd(&out[0], nonzero);
	if (same)
		atomicAdd(&out[1], same);
}

static void count(const unsigned *p, size_t words, unsigned pattern, unsigned long long *nonzero,
		  unsigned long long *same)
{
	unsigned long long *d, h[2];

	CK(cudaMalloc(&d, sizeof(h)));
	CK(cudaMemset(d, 0, sizeof(h)));
	census<<<528, 256>>>(p, words, pattern, d);
	CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	CK(cudaFree(d));
	*nonzero = h[0];
	*same = h[1];
}

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

// The discard protocol, from the preloaded libcoloc.
typedef int (*unit_begin_fn)(unsigned long long);
typedef int (*pending_fn)(unsigned long long *);
typedef int (*ack_fn)(unsigned long long);

/* The next line of standard input, when one is there within `wait_ms`; NULL otherwise. */
static const char *command(double wait_ms)
{
	static char line[64];
	struct pollfd p = { 0, POLLIN, 0 };

	if (poll(&p, 1, (int)wait_ms) <= 0)
		return NULL;
	if (!fgets(line, sizeof(line), stdin))
		return "stop";
	line[strcspn(line, "\n")] = '\0';
	return line;
}

static int best_effort(const char *mode, size_t base, size_t work)
{
	unit_begin_fn unit_begin = (unit_begin_fn)dlsym(RTLD_DEFAULT, "coloc_unit_begin");
	pending_fn pending = (pending_fn)dlsym(RTLD_DEFAULT, "coloc_discard_pending");
	ack_fn ack = (ack_fn)dlsym(RTLD_DEFAULT, "coloc_discard_ack");
	bool is_cached = !strcmp(mode, "cached"), is_discard = !strcmp(mode, "discard");
	bool is_swap = !strcmp(mode, "swap");
	unsigned long long discards = 0, refills = 0, steps = 0, bad = 0, nonzero = 0, same = 0;
	unsigned *w = NULL, *b = NULL;
	size_t words = work / 4;
	cudaStream_t s;

	if (!is_cached && !is_discard && !is_swap) {
		fprintf(stderr, "handover_bench: no mode '%s' (cached, discard, swap)\n", mode);
		return 2;
	}
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	if (base) {
		CK(cudaMalloc(&b, base));
		fill<<<528, 256>>>(b, base / 4, PATTERN);
	}
	CK(cudaMalloc(&w, work));
	if (is_cached) {
		fill<<<528, 256>>>(w, words, PATTERN);
		CK(cudaFree(w)); /* stays in the pool: cached pages with this tenant's data */
		w = NULL;
	} else {
		CK(cudaMemset(w, 0, work));
	}
	if (is_discard && (!unit_begin || !pending || !ack || unit_begin(1) != 0)) {
		fprintf(stderr, "handover_bench: the discard protocol needs libcoloc preloaded as "
				"a best-effort tenant\n");
		return 1;
	}
	CK(cudaDeviceSynchronize());
	printf("be: ready\n");
	while (!stop) {
		const char *c = command(is_cached || !w ? 1 : 0);
		unsigned long long want = 0;

		if (c && !strcmp(c, "stop"))
			break;
		if (c && !strcmp(c, "refill")) {
			double t0 = now_ms();

			if (is_cached) {
				while (cudaMalloc(&w, work) != cudaSuccess && now_ms() - t0 < 20000) {
					cudaGetLastError(); /* refused until the latency tenant freed */
					w = NULL;
					sleep_ms(1);
				}
				if (!w) {
					fprintf(stderr, "handover_bench: refill: no room for %zu MiB in 20 s\n",
						work >> 20);
					return 1;
				}
				fill<<<528, 256>>>(w, words, PATTERN);
				CK(cudaFree(w));
				w = NULL;
			} else if (is_discard && !w) {
				while (cudaMalloc(&w, work) != cudaSuccess && now_ms() - t0 < 20000) {
					cudaGetLastError();
					w = NULL;
					sleep_ms(1);
				}
				if (!w) {
					fprintf(stderr, "handover_bench: refill: no room for %zu MiB in 20 s\n",
						work >> 20);
					return 1;
				}
				CK(cudaMemset(w, 0, work));
			} else if (is_swap) {
				/* The launch waits at colocc's gate while the tenant is swapped out. */
				step<<<264, 256, 0, s>>>(w, words, 1000ull);
				steps++;
				CK(cudaStreamSynchronize(s));
			}
			CK(cudaDeviceSynchronize());
			refills++;
			printf("be: ok\n");
			continue;
		}
		if (is_cached)
			continue;
		if (!w) {
			/* Discarded already: nothing more to give. */
			if (pending(&want) == 1)
				ack(0);
			continue;
		}
		step<<<264, 256, 0, s>>>(w, words, 1000000ull);
		CK(cudaGetLastError());
		steps++;
		while (cudaStreamQuery(s) == cudaErrorNotReady) {
			if (is_discard && pending(&want) == 1) {
				CK(cudaFree(w)); /* waits for the kernel, as cudaFree does */
				w = NULL;
				if (ack(work) != 0)
					fprintf(stderr, "handover_bench: acknowledgement refused\n");
				discards++;
				break;
			}
			sleep_ms(0.02);
		}
	}
	CK(cudaDeviceSynchronize());
	if (is_swap) {
		count(w, words, (unsigned)steps, &nonzero, &same);
		bad = words - same;
		if (b) {
			count(b, base / 4, PATTERN, &nonzero, &same);
			bad += base / 4 - same;
		}
	}
	printf("{\"role\":\"be\",\"mode\":\"%s\",\"steps\":%llu,\"discards\":%llu,\"refills\":%llu,"
	       "\"words_checked\":%zu,\"words_wrong\":%llu}\n",
	       mode, steps, discards, refills, is_swap ? (base + work) / 4 : (size_t)0, bad);
	return bad ? 1 : 0;
}

static int latency(size_t bytes)
{
	std::vector<double> t;
	unsigned long long leaks = 0, dirty = 0, failed = 0, *counters;
	size_t words = bytes / 4;
	const char *c;
	int i = 0;

	/* Its census counters first, so that each measured allocation is the only one. */
	CK(cudaMalloc(&counters, 2 * sizeof(*counters)));
	printf("lat: ready\n");
	while (!stop && (c = command(60000)) && strcmp(c, "stop")) {
		unsigned *p = NULL;
		unsigned long long h[2] = { 0, 0 };
		double t0, ms;
		cudaError_t rc;

		if (strcmp(c, "alloc"))
			continue;
		t0 = now_ms();
		rc = cudaMalloc(&p, bytes);
		ms = now_ms() - t0;
		if (rc != cudaSuccess) {
			cudaGetLastError();
			failed++;
			printf("{\"role\":\"lat\",\"iter\":%d,\"alloc_ms\":%.3f,\"error\":\"%s\"}\n", i++,
			       ms, cudaGetErrorString(rc));
			continue;
		}
		CK(cudaMemset(counters, 0, 2 * sizeof(*counters)));
		census<<<528, 256>>>(p, words, PATTERN, counters);
		CK(cudaMemcpy(h, counters, sizeof(h), cudaMemcpyDeviceToHost));
		dirty += h[0];
		leaks += h[1];
		CK(cudaFree(p)); /* before the line: the next refill finds the room */
		printf("{\"role\":\"lat\",\"iter\":%d,\"alloc_ms\":%.3f,\"nonzero_words\":%llu,"
		       "\"pattern_words\":%llu}\n",
		       i++, ms, h[0], h[1]);
		t.push_back(ms);
	}
	std::sort(t.begin(), t.end());
	printf("{\"role\":\"lat\",\"summary\":true,\"bytes\":%zu,\"n\":%zu,\"failed\":%llu,"
	       "\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f,\"nonzero_words\":%llu,"
	       "\"pattern_words\":%llu}\n",
	       bytes, t.size(), failed, t.empty() ? 0.0 : t[(t.size() - 1) / 2],
	       t.empty() ? 0.0 : t[(t.size() - 1) * 99 / 100], t.empty() ? 0.0 : t.back(), dirty,
	       leaks);
	return failed || dirty || leaks;
}

// The end-to-end trainer: weights BASE_MIB; activations in chunks of CHUNK_MIB,
// as many as fit up to MAX (a micro-batch grows with the memory it has).
// Each step is a 1 ms kernel and counts one sample per chunk held.  On a
// discard request it aborts the step, frees the chunks asked for (at least
// one) and acknowledges; it tries to grow back by one chunk every 20 ms.
static int trainer(size_t base, size_t chunk, int max)
{
	unit_begin_fn unit_begin = (unit_begin_fn)dlsym(RTLD_DEFAULT, "coloc_unit_begin");
	pending_fn pending = (pending_fn)dlsym(RTLD_DEFAULT, "coloc_discard_pending");
	ack_fn ack = (ack_fn)dlsym(RTLD_DEFAULT, "coloc_discard_ack");
	unsigned long long steps = 0, samples = 0, discards = 0, freed = 0, grown = 0;
	std::vector<unsigned *> acts;
	unsigned *b = NULL;
	double t0, last_grow = 0;
	int low = max;
	cudaStream_t s;

	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CK(cudaMalloc(&b, base));
	fill<<<528, 256>>>(b, base / 4, PATTERN);
	/* After the first allocation: the protocol needs the tenant's context. */
	if (!unit_begin || !pending || !ack || unit_begin(1) != 0) {
		fprintf(stderr, "handover_bench: the discard protocol needs libcoloc preloaded as "
				"a best-effort tenant\n");
		return 1;
	}
	while ((int)acts.size() < max) {
		unsigned *w;

		if (cudaMalloc(&w, chunk) != cudaSuccess) {
			cudaGetLastError();
			break;
		}
		CK(cudaMemset(w, 0, chunk));
		acts.push_back(w);
	}
	CK(cudaDeviceSynchronize());
	printf("be: ready %zu\n", acts.size());
	t0 = now_ms();
	while (!stop) {
		const char *c = command(0);
		unsigned long long want = 0;

		if (c && !strcmp(c, "stop"))
			break;
		if (c && !strcmp(c, "count"))
			printf("be: %zu\n", acts.size());
		if ((int)acts.size() < max && now_ms() - last_grow > 20) {
			unsigned *w;

			last_grow = now_ms();
			if (cudaMalloc(&w, chunk) == cudaSuccess) {
				CK(cudaMemsetAsync(w, 0, chunk, s));
				acts.push_back(w);
				grown++;
			} else {
				cudaGetLastError(); /* the memory is the latency tenant's for now */
			}
		}
		if (acts.empty()) {
			if (pending(&want) == 1)
				ack(0);
			sleep_ms(1);
			continue;
		}
		size_t held = acts.size();
		bool aborted = false;

		step<<<264, 256, 0, s>>>(acts.back(), 1 << 20, 1000000ull);
		CK(cudaGetLastError());
		while (cudaStreamQuery(s) == cudaErrorNotReady) {
			if (pending(&want) == 1) {
				unsigned long long n = (want + chunk - 1) / chunk, got = 0;

				for (n = n ? n : 1; n && !acts.empty(); n--) {
					CK(cudaFree(acts.back())); /* waits for the step */
					acts.pop_back();
					got += chunk;
				}
				if (ack(got) != 0)
					fprintf(stderr, "handover_bench: acknowledgement refused\n");
				discards++;
				freed += got;
				low = std::min(low, (int)acts.size());
				aborted = true;
				break;
			}
			sleep_ms(0.02);
		}
		if (!aborted) {
			steps++;
			samples += held;
		}
	}
	CK(cudaDeviceSynchronize());
	printf("{\"role\":\"be\",\"mode\":\"train\",\"seconds\":%.3f,\"steps\":%llu,"
	       "\"samples\":%llu,\"discards\":%llu,\"freed_mib\":%llu,\"grown\":%llu,"
	       "\"chunks_end\":%zu,\"chunks_low\":%d}\n",
	       (now_ms() - t0) / 1e3, steps, samples, discards, freed >> 20, grown, acts.size(), low);
	return 0;
}

// Touches one word in every 64 KiB of its batch's memory, then spins until
// `ns` passed: a decoder step whose time grows slowly with the batch.
__global__ void infer(unsigned *p, size_t n, unsigned long long ns)
{
	unsigned long long t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	for (size_t i = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) * 16384; i < n;
	     i += (size_t)gridDim.x * blockDim.x * 16384)
		p[i] = 1;
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	while (t - t0 < ns);
}

// The end-to-end server: weights WEIGHTS_MIB; requests arrive at the times
// of TRACE (after "go" on standard input) and are served in batches of up
// to MAX_BATCH, each request needing REQ_MIB for its batch's kernel
// (FIXED_US + PER_REQ_US per request).  A batch's memory is allocated before
// its kernel and freed after it; when it cannot be, the batch is halved (the
// rest waits), down to one request, retried every millisecond.  Writes each
// request's latency (arrival to completion, ms) to LAT_OUT, one per line,
// and prints a summary.
static int server(const char *trace, size_t weights, size_t req, int max_batch, double fixed_us,
		  double per_req_us, const char *lat_out)
{
	std::vector<double> arrive, done;
	unsigned long long shrunk = 0, batches = 0, failed_ms = 0;
	std::vector<double> alloc_ms;
	unsigned *w, *p;
	size_t next = 0, head = 0;
	char line[128];
	FILE *f = fopen(trace, "r");
	double t0, served_mib = 0;
	int largest = 0;
	const char *c;

	if (!f) {
		fprintf(stderr, "handover_bench: %s: %s\n", trace, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f))
		if (line[0] != '#' && line[0] != '\n')
			arrive.push_back(atof(line) * 1e3);
	fclose(f);
	done.assign(arrive.size(), 0);
	CK(cudaMalloc(&w, weights));
	CK(cudaMemset(w, 0, weights));
	/* A warm-up batch of 4: its memory stays in the tenant's pool. */
	CK(cudaMalloc(&p, 4 * req));
	infer<<<132, 256>>>(p, 4 * req / 4, 1000);
	CK(cudaDeviceSynchronize());
	CK(cudaFree(p));
	printf("lat: ready\n");
	while ((c = command(60000)) && strcmp(c, "go"))
		if (!strcmp(c, "stop"))
			return 1;
	t0 = now_ms();
	while (!stop && head < arrive.size()) {
		double now = now_ms() - t0, a0;
		int n;

		while (next < arrive.size() && arrive[next] <= now)
			next++;
		if (head == next) {
			sleep_ms(std::min(1.0, arrive[next] - now));
			continue;
		}
		n = std::min((int)(next - head), max_batch);
		a0 = now_ms();
		while (cudaMalloc(&p, n * req) != cudaSuccess) {
			cudaGetLastError();
			if (n > 1) {
				n /= 2;
				shrunk++;
				continue;
			}
			if (++failed_ms > 30000) {
				fprintf(stderr, "handover_bench: no memory for one request in 30 s\n");
				return 1;
			}
			sleep_ms(1);
		}
		alloc_ms.push_back(now_ms() - a0);
		infer<<<132, 256>>>(p, n * req / 4, (unsigned long long)((fixed_us + per_req_us * n) * 1e3));
		CK(cudaGetLastError());
		CK(cudaDeviceSynchronize());
		now = now_ms() - t0;
		for (int i = 0; i < n; i++)
			done[head + i] = now;
		CK(cudaFree(p));
		head += n;
		batches++;
		served_mib += (double)(n * req >> 20);
		largest = std::max(largest, n);
	}
	f = fopen(lat_out, "w");
	if (!f) {
		fprintf(stderr, "handover_bench: %s: %s\n", lat_out, strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < head; i++)
		fprintf(f, "%.3f\n", done[i] - arrive[i]);
	fclose(f);
	std::sort(alloc_ms.begin(), alloc_ms.end());
	printf("{\"role\":\"lat\",\"summary\":true,\"requests\":%zu,\"served\":%zu,\"batches\":%llu,"
	       "\"largest_batch\":%d,\"shrunk\":%llu,\"alloc_retry_ms\":%llu,\"alloc_p50_ms\":%.3f,"
	       "\"alloc_p99_ms\":%.3f,\"alloc_max_ms\":%.3f,\"mean_batch_mib\":%.1f}\n",
	       arrive.size(), head, batches, largest, shrunk, failed_ms,
	       alloc_ms.empty() ? 0.0 : alloc_ms[(alloc_ms.size() - 1) / 2],
	       alloc_ms.empty() ? 0.0 : alloc_ms[(alloc_ms.size() - 1) * 99 / 100],
	       alloc_ms.empty() ? 0.0 : alloc_ms.back(), batches ? served_mib / batches : 0.0);
	return head == arrive.size() ? 0 : 1;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	alarm(600);
	if (argc == 5 && !strcmp(argv[1], "be"))
		return best_effort(argv[2], strtoull(argv[3], NULL, 10) * MIB,
				   strtoull(argv[4], NULL, 10) * MIB);
	if (argc == 3 && !strcmp(argv[1], "lat"))
		return latency(strtoull(argv[2], NULL, 10) * MIB);
	if (argc == 5 && !strcmp(argv[1], "train"))
		return trainer(strtoull(argv[2], NULL, 10) * MIB, strtoull(argv[3], NULL, 10) * MIB,
			       atoi(argv[4]));
	if (argc == 9 && !strcmp(argv[1], "serve"))
		return server(argv[2], strtoull(argv[3], NULL, 10) * MIB,
			      strtoull(argv[4], NULL, 10) * MIB, atoi(argv[5]), atof(argv[6]),
			      atof(argv[7]), argv[8]);
	fprintf(stderr, "usage: handover_bench be cached|discard|swap BASE_MIB WORK_MIB\n"
			"       handover_bench lat MIB\n"
			"       handover_bench train BASE_MIB CHUNK_MIB MAX_CHUNKS\n"
			"       handover_bench serve TRACE WEIGHTS_MIB REQ_MIB MAX_BATCH FIXED_US "
			"PER_REQ_US LAT_OUT\n");
	return 2;
}
