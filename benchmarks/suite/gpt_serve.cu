// gpt_serve: the latency tenant.  Serves requests from an arrival trace,
// open loop, with forward passes of a small GPT-style decoder whose kernels
// (shared with gpt_train through gpt_kernels.cuh) all carry PTX.
//
//   gpt_serve --trace TRACE --out CSV [--batch B] [--warmup N] [--seed K] [--stub-ms MS]
//   gpt_serve --calibrate N [--batch B] [--warmup N] [--seed K] [--stub-ms MS]
//
// Model: vocab 2048, d_model 1024, 16 heads, 8 layers, 128 positions, random
// weights from the seed.  A request is one prefill: B prompts of 128 tokens
// (drawn from the seed and the request's index) through the whole model,
// returning the logits of each prompt's last position ([B][2048] fp32,
// copied to the host).  83 kernel launches and about 105 GFLOP a request at
// B = 4.
//
// Open loop: request i is due at start + arrival_i.  When idle the server
// sleeps until the next due time; otherwise it takes queued requests one at
// a time, in order, each synchronized before the next.  latency = done -
// arrival, queueing included.  "gpt_serve: gpt_serve_bB ready, N requests"
// on stderr says the trace clock has started.  SIGTERM or SIGINT stops
// serving once the request in flight is done: the CSV is still written, with
// the requests not served as unfinished (i,arrival_s,,,), as the suite needs
// when it stops a tenant at its cap.
//
// --stub-ms MS replaces each request by MS ms of sleep and uses no GPU (no
// model, probe or determinism check): the serving loop, its stop and its CSV
// can then be tested anywhere (testsuite/bench).
//
// Checks: at startup a probe (2 prompts of 32 tokens) is compared with a
// CPU forward of the same weights (see probe_check); the last request's
// logits must equal, bit for bit, those computed at startup for the same
// input (the kernels are deterministic: no atomics, fixed reduction order).
#include "gpt_kernels.cuh"

#include <errno.h>
#include <signal.h>
#include <time.h>

#define PROBE_B 2
#define PROBE_T 32
#define PROBE_TOL 0.03

static const struct gpt_config serve_model = {"serve", 2048, 1024, 16, 8, 128, 4};

// The stop signal (SIGTERM, SIGINT), or 0 while serving may go on.
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void nap_until(double t)
{
	struct timespec ts;
	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

// Sleep to within ~100 us of t, then spin: the wake-up latency of a plain
// sleep (tens of microseconds and more) would land in every request.  A stop
// signal ends the wait (it interrupts the sleep); returns 0 then, else 1.
static int sleep_until(double t)
{
	while (!stop_signal) {
		double left = t - now_s();
		if (left <= 0)
			return 1;
		if (left > 200e-6)
			nap_until(t - 100e-6);
	}
	return 0;
}

// ---------------------------------------------------------------- trace

// '#' lines are comments; every other non-blank line is one arrival time in
// seconds from the start, ascending.
static double *trace_read(const char *path, int *count)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "gpt_serve: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	int n = 0, cap = 1024, lineno = 0;
	double *t = (double *)malloc(cap * sizeof(double));
	char line[256];
	while (t && fgets(line, sizeof(line), f)) {
		lineno++;
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || *p == '\n' || *p == '\r' || *p == 0)
			continue;
		char *end;
		double v = strtod(p, &end);
		while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
			end++;
		if (end == p || *end || !(v >= 0) || (n && v < t[n - 1])) {
			fprintf(stderr, "gpt_serve: %s:%d: error: expected an arrival time in seconds, "
					"not below the previous one\n", path, lineno);
			exit(1);
		}
		if (n == cap)
			t = (double *)realloc(t, (cap *= 2) * sizeof(double));
		if (t)
			t[n++] = v;
	}
	fclose(f);
	if (!t)
		fatal("out of host memory");
	*count = n;
	return t;
}

// ---------------------------------------------------------------- server

struct server {
	struct gpt_model m;
	struct gpt_acts a;
	int B, T;
	uint64_t seed;
	int *d_tok, *h_tok; // h_tok pinned
	float *h_out;       // pinned [B][V]
	cudaStream_t st;
	double stub_ms; // > 0: no GPU, each request sleeps this long
};

static void server_init(struct server *s, int batch, uint64_t seed)
{
	struct gpt_config c = serve_model;
	memset(s, 0, sizeof(*s));
	c.batch = batch;
	gpt_model_init(&s->m, &c, seed);
	s->B = batch;
	s->T = c.seq;
	s->seed = mix64(seed ^ 0x7365727665ull);
	gpt_acts_alloc(&s->a, &c, (long long)batch * c.seq);
	s->d_tok = (int *)dev_alloc((size_t)batch * c.seq * sizeof(int));
	CUDA_CHECK(cudaMallocHost(&s->h_tok, (size_t)batch * c.seq * sizeof(int)));
	int outs = batch > PROBE_B ? batch : PROBE_B;
	CUDA_CHECK(cudaMallocHost(&s->h_out, (size_t)outs * c.vocab * sizeof(float)));
	CUDA_CHECK(cudaStreamCreateWithFlags(&s->st, cudaStreamNonBlocking));
}

static void server_free(struct server *s)
{
	cudaFree(s->d_tok);
	cudaFreeHost(s->h_tok);
	cudaFreeHost(s->h_out);
	cudaStreamDestroy(s->st);
	gpt_acts_free(&s->a);
	gpt_model_free(&s->m);
}

// Prompt tokens of a request, a pure function of (seed, id).
static void request_tokens(const struct server *s, uint64_t id, int B, int T, int *tok)
{
	uint64_t base = mix64(s->seed + id);
	for (int i = 0; i < B * T; i++)
		tok[i] = (int)(hash_uniform(base, (uint64_t)i) * s->m.cfg.vocab) % s->m.cfg.vocab;
}

// One forward pass of B prompts of T tokens, synchronized; the last
// positions' logits land in h_out.
static void run_forward(struct server *s, const int *tok, int B, int T)
{
	size_t nt = (size_t)B * T, nv = (size_t)B * s->m.cfg.vocab;
	if (tok != s->h_tok)
		memcpy(s->h_tok, tok, nt * sizeof(int));
	CUDA_CHECK(cudaMemcpyAsync(s->d_tok, s->h_tok, nt * sizeof(int), cudaMemcpyHostToDevice,
				   s->st));
	gpt_forward(&s->m, &s->a, s->d_tok, B, T, 1, s->st);
	CUDA_CHECK(cudaMemcpyAsync(s->h_out, s->a.logits, nv * sizeof(float), cudaMemcpyDeviceToHost,
				   s->st));
	CUDA_CHECK(cudaStreamSynchronize(s->st));
}

static void serve_request(struct server *s, uint64_t id)
{
	if (s->stub_ms > 0) {
		double end = now_s() + s->stub_ms * 1e-3;
		while (now_s() < end) // a signal may cut a nap short
			nap_until(end);
		return;
	}
	request_tokens(s, id, s->B, s->T, s->h_tok);
	run_forward(s, s->h_tok, s->B, s->T);
}

// ---------------------------------------------------------------- CPU reference
//
// The same forward in float/double on the host, rounding to bf16 exactly
// where the GPU does (every GEMM input, the attention probabilities), so
// that only summation order and the values that round the other way differ.
// Through 8 layers those few flips spread until the two forwards differ by
// bf16's rounding noise: on an H100, max |gpu - cpu| was 0.44% to 0.56% of
// the largest logit over six seeds.  A wrong fragment, stride or mask moves
// logits by O(1): the probe passes when max |gpu - cpu| <= 3% of max |cpu|.

struct host_model {
	const struct gpt_config *c;
	const struct gpt_layout *lay;
	float *p; // fp32 master; matrices read through bf16 rounding below
};

// out[M][N] = A[M][K] W[K][N] (+ res), fp32 like the GPU's epilogue; W is
// already rounded (host_model_load), the inputs by the caller.
static void cpu_matmul(const float *a, const float *w, const float *res, float *out, int M, int K,
		       int N)
{
	float *acc = (float *)malloc(N * sizeof(float));
	if (!acc)
		fatal("out of host memory");
	for (int i = 0; i < M; i++) {
		for (int j = 0; j < N; j++)
			acc[j] = 0.0f;
		for (int k = 0; k < K; k++) {
			float av = a[(size_t)i * K + k];
			const float *wr = w + (size_t)k * N;
			for (int j = 0; j < N; j++)
				acc[j] += av * wr[j];
		}
		for (int j = 0; j < N; j++)
			out[(size_t)i * N + j] = acc[j] + (res ? res[(size_t)i * N + j] : 0.0f);
	}
	free(acc);
}

static void cpu_round(float *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		x[i] = host_bf16_round(x[i]);
}

static void cpu_layernorm(const float *x, const float *g, const float *b, float *y, int rows, int d)
{
	for (int r = 0; r < rows; r++) {
		const float *xr = x + (size_t)r * d;
		double mu = 0.0, var = 0.0;
		for (int c = 0; c < d; c++)
			mu += xr[c];
		mu /= d;
		for (int c = 0; c < d; c++)
			var += (xr[c] - mu) * (xr[c] - mu);
		double rs = 1.0 / sqrt(var / d + 1e-5);
		for (int c = 0; c < d; c++)
			y[(size_t)r * d + c] = host_bf16_round((float)((xr[c] - mu) * rs * g[c] + b[c]));
	}
}

// Causal attention of B sequences: qkv [N][3D] (rounded) -> o [N][D] (rounded).
static void cpu_attention(const float *qkv, float *o, int B, int T, int D, int H)
{
	int hd = D / H;
	double scale = 1.0 / sqrt((double)hd);
	float *p = (float *)malloc(T * sizeof(float));
	double *s = (double *)malloc(T * sizeof(double));
	if (!p || !s)
		fatal("out of host memory");
	for (int b = 0; b < B; b++)
		for (int h = 0; h < H; h++)
			for (int i = 0; i < T; i++) {
				const float *q = qkv + (size_t)(b * T + i) * 3 * D + h * hd;
				double mx = -INFINITY, sum = 0.0;
				for (int j = 0; j <= i; j++) {
					const float *k = qkv + (size_t)(b * T + j) * 3 * D + D + h * hd;
					double dot = 0.0;
					for (int e = 0; e < hd; e++)
						dot += (double)q[e] * k[e];
					s[j] = (float)(dot * scale); // the GPU stores fp32 scores
					mx = fmax(mx, s[j]);
				}
				for (int j = 0; j <= i; j++)
					sum += exp(s[j] - mx);
				for (int j = 0; j <= i; j++)
					p[j] = host_bf16_round((float)(exp(s[j] - mx) / sum));
				for (int e = 0; e < hd; e++) {
					double acc = 0.0;
					for (int j = 0; j <= i; j++)
						acc += (double)p[j] *
						       qkv[(size_t)(b * T + j) * 3 * D + 2 * D + h * hd + e];
					o[(size_t)(b * T + i) * D + h * hd + e] = host_bf16_round((float)acc);
				}
			}
	free(p);
	free(s);
}

static float cpu_gelu(float x)
{
	double u = 0.7978845608 * (x + 0.044715 * (double)x * x * x);
	return (float)(0.5 * x * (1.0 + tanh(u)));
}

// Logits of each sequence's last position, [B][V].
static void cpu_forward(const struct host_model *hm, const int *tok, int B, int T, float *logits)
{
	const struct gpt_config *c = hm->c;
	const struct gpt_layout *lay = hm->lay;
	const float *P = hm->p;
	int D = c->d_model, N = B * T;
	size_t nd = (size_t)N * D;
	float *x = (float *)malloc(nd * sizeof(float)), *xmid = (float *)malloc(nd * sizeof(float));
	float *xn = (float *)malloc(nd * sizeof(float)), *o = (float *)malloc(nd * sizeof(float));
	float *qkv = (float *)malloc(3 * nd * sizeof(float));
	float *h = (float *)malloc(4 * nd * sizeof(float));
	if (!x || !xmid || !xn || !o || !qkv || !h)
		fatal("out of host memory");
	for (int n = 0; n < N; n++)
		for (int e = 0; e < D; e++)
			x[(size_t)n * D + e] =
				P[lay->wte + (size_t)tok[n] * D + e] + P[lay->wpe + (size_t)(n % T) * D + e];
	for (int l = 0; l < c->n_layer; l++) {
		const struct gpt_layer_off *L = &lay->layer[l];
		cpu_layernorm(x, P + L->ln1_g, P + L->ln1_b, xn, N, D);
		cpu_matmul(xn, P + L->wqkv, NULL, qkv, N, D, 3 * D);
		cpu_round(qkv, 3 * nd);
		cpu_attention(qkv, o, B, T, D, c->n_head);
		cpu_matmul(o, P + L->wo, x, xmid, N, D, D);
		cpu_layernorm(xmid, P + L->ln2_g, P + L->ln2_b, xn, N, D);
		cpu_matmul(xn, P + L->w1, NULL, h, N, D, 4 * D);
		for (size_t i = 0; i < 4 * nd; i++)
			h[i] = host_bf16_round(cpu_gelu(host_bf16_round(h[i])));
		cpu_matmul(h, P + L->w2, xmid, x, N, 4 * D, D);
	}
	cpu_layernorm(x, P + lay->lnf_g, P + lay->lnf_b, xn, N, D);
	for (int b = 0; b < B; b++)
		cpu_matmul(xn + (size_t)(b * T + T - 1) * D, P + lay->lm, NULL,
			   logits + (size_t)b * c->vocab, 1, D, c->vocab);
	free(x);
	free(xmid);
	free(xn);
	free(o);
	free(qkv);
	free(h);
}

// Host copy of the weights with the matrices (the LM head and every layer's,
// laid out from lay->lm to n_decay) rounded to bf16 as the GEMMs read them;
// embeddings and layernorm parameters stay fp32, as on the GPU.
static void host_model_load(struct host_model *hm, const struct gpt_model *m)
{
	const struct gpt_layout *lay = &m->lay;
	hm->c = &m->cfg;
	hm->lay = lay;
	hm->p = (float *)malloc(lay->count * sizeof(float));
	if (!hm->p)
		fatal("out of host memory");
	CUDA_CHECK(cudaMemcpy(hm->p, m->param, lay->count * sizeof(float), cudaMemcpyDeviceToHost));
	cpu_round(hm->p + lay->lm, lay->n_decay - lay->lm);
}

static int probe_check(struct server *s, char *why, size_t whylen)
{
	const struct gpt_config *c = &s->m.cfg;
	int tok[PROBE_B * PROBE_T];
	static float ref[PROBE_B * 4096];
	if (c->vocab > 4096)
		fatal("probe: vocabulary too large");
	request_tokens(s, ~0ull, PROBE_B, PROBE_T, tok);
	run_forward(s, tok, PROBE_B, PROBE_T);
	struct host_model hm;
	host_model_load(&hm, &s->m);
	double t0 = now_s();
	cpu_forward(&hm, tok, PROBE_B, PROBE_T, ref);
	double err = 0.0, mag = 0.0, se = 0.0, sr = 0.0;
	for (int i = 0; i < PROBE_B * c->vocab; i++) {
		double e = fabs((double)s->h_out[i] - ref[i]);
		err = e > err || e != e ? e : err;
		mag = fmax(mag, fabs(ref[i]));
		se += e * e;
		sr += (double)ref[i] * ref[i];
	}
	free(hm.p);
	printf("gpt_serve: probe: max |gpu - cpu| = %.3g, max |logit| = %.3g (tolerance %g of it), "
	       "rms error / rms logit %.3g, cpu reference %.1f s\n",
	       err, mag, PROBE_TOL, sqrt(se / (sr > 0 ? sr : 1)), now_s() - t0);
	if (!(err <= PROBE_TOL * mag) || !(mag > 0)) {
		snprintf(why, whylen, "FAIL: probe logits differ from the CPU reference: max error "
			 "%.3g, max |logit| %.3g", err, mag);
		return -1;
	}
	return 0;
}

// ---------------------------------------------------------------- statistics and output

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

// Nearest rank on a sorted array.
static double percentile(const double *sorted, int n, double p)
{
	int k = (int)ceil(p * n) - 1;
	return sorted[k < 0 ? 0 : k >= n ? n - 1 : k];
}

static double *sorted_copy(const double *v, int n)
{
	double *s = (double *)malloc((n ? n : 1) * sizeof(double));
	if (!s)
		fatal("out of host memory");
	memcpy(s, v, n * sizeof(double));
	qsort(s, n, sizeof(double), cmp_double);
	return s;
}

// Every request of the trace; those from SERVED on were not served.
static void write_csv(const char *path, int n, int served, const double *arr,
		      const double *start, const double *done)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "gpt_serve: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	fprintf(f, "i,arrival_s,start_s,done_s,latency_ms\n");
	for (int i = 0; i < n; i++) {
		if (i < served)
			fprintf(f, "%d,%.6f,%.6f,%.6f,%.4f\n", i, arr[i], start[i], done[i],
				(done[i] - arr[i]) * 1e3);
		else
			fprintf(f, "%d,%.6f,,,\n", i, arr[i]);
	}
	if (fclose(f) != 0) {
		fprintf(stderr, "gpt_serve: cannot write %s\n", path);
		exit(1);
	}
}

// ---------------------------------------------------------------- modes

// Logits for request id, computed now, kept to compare with its later run
// (NULL for a stub, which has none).
static float *expected_output(struct server *s, uint64_t id)
{
	size_t bytes = (size_t)s->B * s->m.cfg.vocab * sizeof(float);
	if (s->stub_ms > 0)
		return NULL;
	float *e = (float *)malloc(bytes);
	if (!e)
		fatal("out of host memory");
	serve_request(s, id);
	memcpy(e, s->h_out, bytes);
	return e;
}

static void determinism_check(const struct server *s, const float *expect, char *check,
			      size_t len)
{
	size_t bytes = (size_t)s->B * s->m.cfg.vocab * sizeof(float);
	if (expect && memcmp(expect, s->h_out, bytes) != 0)
		snprintf(check, len, "FAIL: last request's logits differ from the same input's at "
				     "startup (nondeterministic or corrupted kernels)");
}

static void warm_up(struct server *s, int n)
{
	for (int i = 0; i < n; i++)
		serve_request(s, (1ull << 40) + i);
}

static int serve_trace(struct server *s, const char *trace, const char *out, int warmup,
		       char *check, size_t len)
{
	int n;
	double *arr = trace_read(trace, &n);
	if (n == 0) {
		snprintf(check, len, "FAIL: trace %s has no requests", trace);
		printf("{\"workload\":\"gpt_serve\",\"requests\":0,\"check\":\"%s\"}\n", check);
		return 1;
	}
	float *expect = expected_output(s, (uint64_t)n - 1);
	warm_up(s, warmup);
	double *start = (double *)malloc(n * sizeof(double));
	double *done = (double *)malloc(n * sizeof(double));
	double *lat = (double *)malloc(n * sizeof(double));
	if (!start || !done || !lat)
		fatal("out of host memory");
	fprintf(stderr, "gpt_serve: gpt_serve_b%d ready, %d requests\n", s->B, n);
	double t0 = now_s();
	int served = 0;
	while (served < n && sleep_until(t0 + arr[served])) {
		int i = served++;
		start[i] = now_s() - t0;
		serve_request(s, (uint64_t)i);
		done[i] = now_s() - t0;
		lat[i] = (done[i] - arr[i]) * 1e3;
	}
	if (served < n) // stopped early: the request the check compares, untimed
		serve_request(s, (uint64_t)n - 1);
	determinism_check(s, expect, check, len);
	write_csv(out, n, served, arr, start, done);
	char stopped[16] = "null";
	if (stop_signal)
		snprintf(stopped, sizeof(stopped), "\"%s\"", stop_signal == SIGINT ? "SIGINT" : "SIGTERM");
	printf("{\"workload\":\"gpt_serve\",\"requests\":%d,\"unfinished\":%d,\"stopped_by\":%s,"
	       "\"batch\":%d,", served, n - served, stopped, s->B);
	if (served > 0) {
		double *sl = sorted_copy(lat, served), mean = 0.0;
		for (int i = 0; i < served; i++)
			mean += lat[i] / served;
		printf("\"p50_ms\":%.4f,\"p99_ms\":%.4f,\"mean_ms\":%.4f,\"max_ms\":%.4f,",
		       percentile(sl, served, 0.5), percentile(sl, served, 0.99), mean,
		       sl[served - 1]);
		free(sl);
	}
	printf("\"check\":\"%s\"}\n", check);
	free(arr);
	free(start);
	free(done);
	free(lat);
	free(expect);
	return strcmp(check, "ok") != 0;
}

static int calibrate(struct server *s, int n, int warmup, char *check, size_t len)
{
	float *expect = expected_output(s, (uint64_t)n - 1);
	warm_up(s, warmup);
	double *svc = (double *)malloc(n * sizeof(double)), mean = 0.0;
	if (!svc)
		fatal("out of host memory");
	for (int i = 0; i < n; i++) {
		double t = now_s();
		serve_request(s, (uint64_t)i);
		svc[i] = (now_s() - t) * 1e3;
		mean += svc[i] / n;
	}
	determinism_check(s, expect, check, len);
	double *ss = sorted_copy(svc, n);
	printf("{\"workload\":\"gpt_serve\",\"requests\":%d,\"batch\":%d,\"service_ms_p50\":%.4f,"
	       "\"service_ms_mean\":%.4f,\"service_ms_p99\":%.4f,\"check\":\"%s\"}\n",
	       n, s->B, percentile(ss, n, 0.5), mean, percentile(ss, n, 0.99), check);
	free(ss);
	free(svc);
	free(expect);
	return strcmp(check, "ok") != 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: gpt_serve --trace TRACE --out CSV [--batch B] [--warmup N] [--seed K] "
			"[--stub-ms MS]\n"
			"       gpt_serve --calibrate N [--batch B] [--warmup N] [--seed K] "
			"[--stub-ms MS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *trace = NULL, *out = NULL;
	int batch = serve_model.batch, warmup = 20, cal = 0;
	double stub_ms = 0;
	uint64_t seed = 1234;
	for (int i = 1; i + 1 < argc; i += 2) {
		const char *a = argv[i], *v = argv[i + 1];
		if (!strcmp(a, "--trace"))
			trace = v;
		else if (!strcmp(a, "--out"))
			out = v;
		else if (!strcmp(a, "--batch"))
			batch = atoi(v);
		else if (!strcmp(a, "--warmup"))
			warmup = atoi(v);
		else if (!strcmp(a, "--seed"))
			seed = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--calibrate"))
			cal = atoi(v);
		else if (!strcmp(a, "--stub-ms"))
			stub_ms = atof(v);
		else
			usage();
	}
	if (argc % 2 == 0 || batch < 1 || batch > 1024 || warmup < 0 || !(stub_ms >= 0) ||
	    (cal > 0) == (trace != NULL) || (trace && !out))
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (trace) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_stop; // no SA_RESTART: the signal ends a sleep
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
	}

	struct server s;
	char check[256] = "ok";
	int rc;
	if (stub_ms > 0) {
		memset(&s, 0, sizeof(s));
		s.B = batch;
		s.stub_ms = stub_ms;
		printf("gpt_serve: stub: each request sleeps %g ms, no GPU\n", stub_ms);
	} else {
		// Spinning in cudaStreamSynchronize: the latency tenant owns a core.
		CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceScheduleSpin));
		server_init(&s, batch, seed);
		const struct gpt_config *c = &s.m.cfg;
		printf("gpt_serve: vocab %d, d_model %d, heads %d, layers %d; a request is a prefill "
		       "of %d x %d tokens, %.1fM parameters\n",
		       c->vocab, c->d_model, c->n_head, c->n_layer, s.B, s.T, s.m.lay.count / 1e6);
	}
	if (s.stub_ms == 0 && probe_check(&s, check, sizeof(check)) != 0) {
		printf("{\"workload\":\"gpt_serve\",\"requests\":0,\"check\":\"%s\"}\n", check);
		rc = 1;
	} else if (cal > 0) {
		rc = calibrate(&s, cal, warmup, check, sizeof(check));
	} else {
		rc = serve_trace(&s, trace, out, warmup, check, sizeof(check));
	}
	if (s.stub_ms == 0)
		server_free(&s);
	return rc;
}
