/*
 * diffrun: runs original kernels and their colocc variants on the same
 * random inputs and compares every output element.
 *
 *   diffrun [options] CASES.cu MODULE.ptx
 *
 * CASES.cu carries the cases in comments (testsuite/gpu/kernels/README.md):
 *
 *   // CASE: name=N kernel=K grid=X[,Y[,Z]] block=X[,Y[,Z]] [smem=B] [tol=T] [flags=...]
 *   // PARAM: buf TYPE COUNT INIT     (a device buffer; every buffer is compared)
 *   // PARAM: TYPE VALUE              (a scalar)
 *
 * MODULE.ptx is colocc's output for the file: the original kernels and their
 * __coloc_slice_K and __coloc_ptb_K variants.  For each case the original
 * runs once on fresh random inputs; then, from the same inputs, the sliced
 * kernel at 1, 2, 3, 7 and one-block-per-slice, the persistent kernel with
 * 1 worker, one per SM and the most that fit, and the persistent kernel under
 * a preemption storm (stopped at random microsecond intervals and resumed,
 * at least --storm-cycles times).  Where the module has the
 * one-block-a-worker variant __coloc_fresh_K (and its register-capped copies
 * __coloc_cap<N>_fresh_K, passes/regcap.h), each runs
 * once over the whole grid, then as the runtime's COLOC_FRESH runs it: a chunk
 * at a time, the looping variant draining the redo ring between chunks, with
 * the stop set and cleared several times during each launch (half as many
 * stops as the storm).  Outputs must be equal bit for bit (or within tol=).  With --timing it also measures each form's speed against the
 * original and the preemption turnaround.
 *
 * One line per check on standard output ("ok ..." / "FAIL ..."); with
 * --json FILE, one JSON object per line.  Exit status 1 if anything failed.
 * A failed check names the first differing element with both values;
 * DIFFRUN_SHOW=N in the environment lists the first N before the line.
 * A watchdog (alarm) ends the process if a kernel hangs.
 */
#define _GNU_SOURCE
#include <cuda.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "plan.h"

#define MAX_PARAMS 64
#define MAX_CASES 64

enum elem {
	E_I8, E_U8, E_I16, E_U16, E_I32, E_U32, E_I64, E_U64, E_F16, E_BF16, E_F32, E_F64,
};

static const struct {
	const char *name;
	unsigned size;
	int is_float;
} elem_info[] = {
	[E_I8] = {"i8", 1, 0},   [E_U8] = {"u8", 1, 0},   [E_I16] = {"i16", 2, 0},
	[E_U16] = {"u16", 2, 0}, [E_I32] = {"i32", 4, 0}, [E_U32] = {"u32", 4, 0},
	[E_I64] = {"i64", 8, 0}, [E_U64] = {"u64", 8, 0}, [E_F16] = {"f16", 2, 1},
	[E_BF16] = {"bf16", 2, 1}, [E_F32] = {"f32", 4, 1}, [E_F64] = {"f64", 8, 1},
};

struct param {
	int is_buf;
	enum elem type;
	uint64_t count;     /* buffers */
	char init[64];      /* buffers */
	uint64_t scalar;    /* scalars: the bits */
	void *host_init;    /* buffers: initial contents */
	void *host_ref;     /* buffers: after the original ran */
	void *host_out;     /* buffers: after a variant ran */
	CUdeviceptr dev;
};

struct kcase {
	char name[128];
	char kernel[256];
	unsigned grid[3], block[3];
	unsigned smem;
	double tol;
	int exactly_once, no_slice, no_ptb;
	struct param params[MAX_PARAMS];
	unsigned nparams;
};

struct options {
	double wait_limit_us;   /* a stream that takes longer is a hang */
	unsigned storm_cycles;
	int timing;
	int quick;
	uint64_t seed;
	const char *json;
	const char *only;
};

static struct options opt = {.storm_cycles = 1000, .wait_limit_us = 20e6};
static FILE *json_out;
static int failures;
static uint64_t rng_state;
static int num_sms;
static CUstream stream, side_stream, hp_stream, helper_stream;
/*
 * The persistent kernels' stop record (docs/passes.md), one for every case:
 * the word, and its host copy in mapped host memory, which stays 1 (the
 * word alone decides) except where a storm clears a stop through it.
 */
static CUdeviceptr stop_word;
/* The persistent kernels' redo ring (blocks given up at a stop): 2 x workers words, zeroed. */
static CUdeviceptr redo_ring;
static uint64_t redo_words;
/* -R: persistent launches get no redo ring (as under COLOC_RESTART=0): no block is given up. */
static int no_redo;
/*
 * -S: the module was made with colocc --ptb-resume, so persistent variants
 * take a save area (resume.c), and launches get one: its busy words, zeroed
 * at every reset, then a slot per ring position, for at most 1024 bytes of
 * registers a thread and 48 KB of shared memory.
 */
static int use_save;
/* Over a case's plain storms: blocks found in the ring after a stop, and those saved (top bit). */
static uint64_t storm_given_up, storm_saved;
static CUdeviceptr save_area;
static size_t save_busy_bytes;
static volatile uint32_t *stop_host;
static CUfunction probe_fn;
static CUdeviceptr probe_buf;

/* ------------------------------------------------------------ helpers */

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stdout, "FATAL ");
	vfprintf(stdout, fmt, ap);
	fprintf(stdout, "\n");
	va_end(ap);
	exit(2);
}

#define CK(call)                                                                            \
	do {                                                                                \
		CUresult r_ = (call);                                                       \
		if (r_ != CUDA_SUCCESS) {                                                   \
			const char *s_ = NULL;                                              \
			cuGetErrorString(r_, &s_);                                          \
			die("%s:%d: %s: %s", __FILE__, __LINE__, #call, s_ ? s_ : "?");     \
		}                                                                           \
	} while (0)

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static uint64_t rng(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

static double rng_unit(void)
{
	return (double)(rng() >> 11) * (1.0 / 9007199254740992.0);
}

static void watchdog(int sig)
{
	(void)sig;
	/* A kernel hung: nothing can stop it but the end of the process. */
	static const char msg[] = "FAIL watchdog: a kernel did not finish in time (hang)\n";
	if (write(1, msg, sizeof(msg) - 1) < 0) {
		/* nothing more to do */
	}
	_exit(3);
}

static void result(const struct kcase *c, const char *mode, int ok, const char *fmt, ...)
{
	char detail[512] = "";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	printf("%s %-28s %-22s %s\n", ok ? "ok  " : "FAIL", c->name, mode, detail);
	fflush(stdout);
	if (!ok)
		failures++;
	if (json_out) {
		fprintf(json_out, "{\"case\": \"%s\", \"kernel\": \"%s\", \"mode\": \"%s\", \"ok\": %s, "
				  "\"detail\": \"",
			c->name, c->kernel, mode, ok ? "true" : "false");
		for (const char *p = detail; *p; p++)
			fputs(*p == '"' ? "\\\"" : *p == '\\' ? "\\\\" : (char[]){*p, 0}, json_out);
		fprintf(json_out, "\"}\n");
		fflush(json_out);
	}
}

/* ------------------------------------------------------------- parsing */

static int parse_elem(const char *s, enum elem *e)
{
	unsigned i;

	for (i = 0; i < sizeof(elem_info) / sizeof(elem_info[0]); i++)
		if (strcmp(s, elem_info[i].name) == 0) {
			*e = (enum elem)i;
			return 0;
		}
	return -1;
}

static void parse_dims(const char *s, unsigned d[3])
{
	d[0] = d[1] = d[2] = 1;
	sscanf(s, "%u,%u,%u", &d[0], &d[1], &d[2]);
}

static uint64_t scalar_bits(enum elem t, const char *v)
{
	uint64_t bits = 0;

	if (t == E_F32) {
		float f = strtof(v, NULL);
		memcpy(&bits, &f, 4);
	} else if (t == E_F64) {
		double d = strtod(v, NULL);
		memcpy(&bits, &d, 8);
	} else if (t == E_I32 || t == E_I64 || t == E_I8 || t == E_I16) {
		int64_t x = strtoll(v, NULL, 0);
		memcpy(&bits, &x, 8);
	} else {
		bits = strtoull(v, NULL, 0);
	}
	return bits;
}

static unsigned load_cases(const char *path, struct kcase *cases)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	unsigned n = 0;
	struct kcase *c = NULL;

	if (!f)
		die("cannot open %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "// CASE:"), *q, *tok, *save;

		if (p) {
			if (n == MAX_CASES)
				die("%s: more than %d cases", path, MAX_CASES);
			c = &cases[n++];
			memset(c, 0, sizeof(*c));
			c->grid[0] = c->grid[1] = c->grid[2] = 1;
			c->block[0] = c->block[1] = c->block[2] = 1;
			for (tok = strtok_r(p + 8, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
				q = strchr(tok, '=');
				if (!q)
					die("%s: bad CASE field '%s'", path, tok);
				*q++ = '\0';
				if (!strcmp(tok, "name"))
					snprintf(c->name, sizeof(c->name), "%s", q);
				else if (!strcmp(tok, "kernel"))
					snprintf(c->kernel, sizeof(c->kernel), "%s", q);
				else if (!strcmp(tok, "grid"))
					parse_dims(q, c->grid);
				else if (!strcmp(tok, "block"))
					parse_dims(q, c->block);
				else if (!strcmp(tok, "smem"))
					c->smem = (unsigned)strtoul(q, NULL, 0);
				else if (!strcmp(tok, "tol"))
					c->tol = strtod(q, NULL);
				else if (!strcmp(tok, "flags")) {
					c->exactly_once = strstr(q, "exactly-once") != NULL;
					c->no_slice = strstr(q, "no-slice") != NULL;
					c->no_ptb = strstr(q, "no-ptb") != NULL;
				} else
					die("%s: unknown CASE field '%s'", path, tok);
			}
			if (!c->name[0] || !c->kernel[0])
				die("%s: CASE needs name= and kernel=", path);
			continue;
		}
		p = strstr(line, "// PARAM:");
		if (!p)
			continue;
		if (!c)
			die("%s: PARAM before any CASE", path);
		if (c->nparams == MAX_PARAMS)
			die("%s: too many params", path);
		{
			struct param *pr = &c->params[c->nparams++];
			char a[64] = "", b[64] = "", d[64] = "", e[64] = "";

			sscanf(p + 9, "%63s %63s %63s %63s", a, b, d, e);
			memset(pr, 0, sizeof(*pr));
			if (!strcmp(a, "buf")) {
				pr->is_buf = 1;
				if (parse_elem(b, &pr->type) < 0)
					die("%s: case %s: unknown type '%s'", path, c->name, b);
				pr->count = strtoull(d, NULL, 0);
				snprintf(pr->init, sizeof(pr->init), "%s", e);
				if (!pr->count || !e[0])
					die("%s: case %s: buf needs a count and an init", path, c->name);
			} else {
				if (parse_elem(a, &pr->type) < 0)
					die("%s: case %s: unknown scalar type '%s'", path, c->name, a);
				pr->scalar = scalar_bits(pr->type, b);
			}
		}
	}
	fclose(f);
	return n;
}

/* ------------------------------------------------------------- buffers */

static uint16_t f32_to_f16(float f)
{
	uint32_t x;
	uint32_t sign, exp, man;

	memcpy(&x, &f, 4);
	sign = (x >> 16) & 0x8000;
	exp = (x >> 23) & 0xff;
	man = x & 0x7fffff;
	if (exp < 113)
		return (uint16_t)sign; /* flush tiny values to zero; inputs are in [-1, 1) */
	return (uint16_t)(sign | ((exp - 112) << 10) | (man >> 13));
}

static void fill(struct param *p)
{
	unsigned sz = elem_info[p->type].size;
	unsigned char *b = p->host_init;
	uint64_t i;
	double lo = 0, hi = 0;
	int randint = sscanf(p->init, "randint:%lf:%lf", &lo, &hi) == 2;
	double cval = 0;
	int isconst = sscanf(p->init, "const:%lf", &cval) == 1;

	for (i = 0; i < p->count; i++) {
		double v = 0;
		uint64_t bits = 0;
		int raw = 0;

		if (!strcmp(p->init, "zero"))
			v = 0;
		else if (!strcmp(p->init, "iota"))
			v = (double)i;
		else if (isconst)
			v = cval;
		else if (randint)
			v = floor(lo + rng_unit() * (hi - lo + 1));
		else if (!strcmp(p->init, "rand")) {
			if (elem_info[p->type].is_float)
				v = rng_unit() * 2 - 1;
			else {
				bits = rng();
				raw = 1;
			}
		} else
			die("unknown init '%s'", p->init);
		if (!raw) {
			switch (p->type) {
			case E_F32: { float f = (float)v; memcpy(&bits, &f, 4); break; }
			case E_F64: memcpy(&bits, &v, 8); break;
			case E_F16: bits = f32_to_f16((float)v); break;
			case E_BF16: { float f = (float)v; uint32_t u; memcpy(&u, &f, 4); bits = u >> 16; break; }
			default: bits = (uint64_t)(int64_t)v; break;
			}
		}
		memcpy(b + i * sz, &bits, sz);
	}
}

static double as_double(enum elem t, const unsigned char *p)
{
	switch (t) {
	case E_F32: { float f; memcpy(&f, p, 4); return f; }
	case E_F64: { double d; memcpy(&d, p, 8); return d; }
	default: return 0;
	}
}

/* Equal elements: bitwise, or within tol for f32/f64. */
static int elem_same(enum elem t, unsigned sz, const unsigned char *a, const unsigned char *b,
		     double tol)
{
	double x, y;

	if (memcmp(a, b, sz) == 0)
		return 1;
	if (tol <= 0 || (t != E_F32 && t != E_F64))
		return 0;
	x = as_double(t, a);
	y = as_double(t, b);
	return fabs(x - y) <= tol * (fabs(x) > 1 ? fabs(x) : 1);
}

/* 0 if equal (bitwise, or within tol for f32/f64); else the first bad index + 1. */
static uint64_t compare(const struct param *p, const void *got, double tol, uint64_t *nbad)
{
	unsigned sz = elem_info[p->type].size;
	const unsigned char *a = p->host_ref, *b = got;
	uint64_t i, first = 0;

	*nbad = 0;
	for (i = 0; i < p->count; i++) {
		int same = elem_same(p->type, sz, a + i * sz, b + i * sz, tol);

		if (!same) {
			if (!first)
				first = i + 1;
			(*nbad)++;
		}
	}
	return first;
}

static void upload(struct kcase *c)
{
	unsigned i;

	for (i = 0; i < c->nparams; i++) {
		struct param *p = &c->params[i];

		if (p->is_buf)
			CK(cuMemcpyHtoDAsync(p->dev, p->host_init, p->count * elem_info[p->type].size,
					     stream));
	}
}

static void download(struct kcase *c, int ref)
{
	unsigned i;

	for (i = 0; i < c->nparams; i++) {
		struct param *p = &c->params[i];

		if (p->is_buf)
			CK(cuMemcpyDtoHAsync(ref ? p->host_ref : p->host_out, p->dev,
					     p->count * elem_info[p->type].size, stream));
	}
	CK(cuStreamSynchronize(stream));
}

/* True when every buffer equals the reference (no report). */
static int quiet_ok(struct kcase *c)
{
	unsigned i;

	for (i = 0; i < c->nparams; i++) {
		uint64_t bad;

		if (c->params[i].is_buf && compare(&c->params[i], c->params[i].host_out, c->tol, &bad))
			return 0;
	}
	return 1;
}

/* "want X got Y" for element i of a buffer: floats as numbers, others as hex bits. */
static void describe_first(const struct param *p, uint64_t i, char *out, size_t n)
{
	unsigned sz = elem_info[p->type].size;
	const unsigned char *a = (const unsigned char *)p->host_ref + i * sz;
	const unsigned char *b = (const unsigned char *)p->host_out + i * sz;
	uint64_t x = 0, y = 0;

	if (p->type == E_F32 || p->type == E_F64) {
		snprintf(out, n, "want %.9g got %.9g", as_double(p->type, a), as_double(p->type, b));
		return;
	}
	memcpy(&x, a, sz < 8 ? sz : 8);
	memcpy(&y, b, sz < 8 ? sz : 8);
	snprintf(out, n, "want 0x%llx got 0x%llx", (unsigned long long)x, (unsigned long long)y);
}

/*
 * With DIFFRUN_SHOW=N in the environment, the first N differing elements of
 * a failed check, one line each ("  at I: want X got Y"), before its line.
 */
static void show_mismatches(const struct param *p, double tol)
{
	const char *env = getenv("DIFFRUN_SHOW");
	unsigned sz = elem_info[p->type].size;
	uint64_t i, shown = 0, limit = env ? strtoull(env, NULL, 10) : 0;
	char what[96];

	for (i = 0; i < p->count && shown < limit; i++) {
		const unsigned char *a = (const unsigned char *)p->host_ref + i * sz;
		const unsigned char *b = (const unsigned char *)p->host_out + i * sz;

		if (elem_same(p->type, sz, a, b, tol))
			continue;
		describe_first(p, i, what, sizeof(what));
		printf("  at %llu: %s\n", (unsigned long long)i, what);
		shown++;
	}
}

/* Compares every buffer with the reference; reports one line. */
static void check(struct kcase *c, const char *mode, const char *extra)
{
	unsigned i;

	for (i = 0; i < c->nparams; i++) {
		struct param *p = &c->params[i];
		uint64_t bad, first;

		if (!p->is_buf)
			continue;
		first = compare(p, p->host_out, c->tol, &bad);
		if (first) {
			char what[96];

			describe_first(p, first - 1, what, sizeof(what));
			show_mismatches(p, c->tol);
			result(c, mode, 0, "param %u: %llu of %llu elements differ, first at %llu (%s) %s",
			       i, (unsigned long long)bad, (unsigned long long)p->count,
			       (unsigned long long)(first - 1), what, extra);
			return;
		}
	}
	result(c, mode, 1, "%s", extra);
}

/* ------------------------------------------------------------- launches */

struct args {
	void *ptrs[MAX_PARAMS + 8];
	uint64_t values[MAX_PARAMS + 8];
	unsigned n;
};

static void args_init(struct args *a, struct kcase *c)
{
	unsigned i;

	a->n = 0;
	for (i = 0; i < c->nparams; i++) {
		struct param *p = &c->params[i];

		a->values[a->n] = p->is_buf ? (uint64_t)p->dev : p->scalar;
		a->ptrs[a->n] = &a->values[a->n];
		a->n++;
	}
}

static void args_add(struct args *a, uint64_t v)
{
	a->values[a->n] = v;
	a->ptrs[a->n] = &a->values[a->n];
	a->n++;
}

static void launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, struct kcase *c,
		   struct args *a, CUstream s)
{
	CK(cuLaunchKernel(f, gx, gy, gz, c->block[0], c->block[1], c->block[2], c->smem, s, a->ptrs,
			  NULL));
}

static uint64_t total_blocks(const struct kcase *c)
{
	return (uint64_t)c->grid[0] * c->grid[1] * c->grid[2];
}

static void run_original(CUfunction f, struct kcase *c)
{
	struct args a;

	args_init(&a, c);
	launch(f, c->grid[0], c->grid[1], c->grid[2], c, &a, stream);
}

static uint64_t run_sliced(CUfunction f, struct kcase *c, uint64_t wanted)
{
	struct coloc_dim3 grid = {c->grid[0], c->grid[1], c->grid[2]};
	uint64_t n = coloc_slice_plan(grid, wanted, NULL, 0), i;
	struct coloc_slice *plan = calloc(n, sizeof(*plan));

	if (!plan)
		die("out of memory");
	coloc_slice_plan(grid, wanted, plan, n);
	for (i = 0; i < n; i++) {
		struct args a;

		args_init(&a, c);
		args_add(&a, c->grid[0]);
		args_add(&a, c->grid[1]);
		args_add(&a, c->grid[2]);
		args_add(&a, plan[i].offset.x);
		args_add(&a, plan[i].offset.y);
		args_add(&a, plan[i].offset.z);
		/* Scalars travel as 4-byte values: the args hold them in 8-byte slots. */
		launch(f, plan[i].grid.x, plan[i].grid.y, plan[i].grid.z, c, &a, stream);
	}
	free(plan);
	return n;
}

/* Virtual blocks a worker takes at a time, for the next ptb_args (1 unless a run says). */
static unsigned ptb_batch = 1;

/* slot_base: the launch's first pair of broadcast words (kernels with global slots). */
static void ptb_args(struct args *a, struct kcase *c, CUdeviceptr ctl, unsigned park,
		     unsigned slot_base)
{
	args_init(a, c);
	args_add(a, c->grid[0]);
	args_add(a, c->grid[1]);
	args_add(a, c->grid[2]);
	args_add(a, park);
	args_add(a, slot_base);
	args_add(a, ptb_batch);
	args_add(a, (uint64_t)ctl);
	args_add(a, (uint64_t)stop_word);
	args_add(a, no_redo ? 0 : (uint64_t)redo_ring);
	if (use_save)
		args_add(a, (uint64_t)save_area);
}

/* Clears the control block's header (next, done, redo head and tail), the ring and the stop word on `s`. */
static void ptb_reset(CUdeviceptr ctl, CUstream s)
{
	CK(cuMemsetD32Async(ctl, 0, 4, s));
	CK(cuMemsetD32Async(redo_ring, 0, redo_words, s));
	if (use_save)
		CK(cuMemsetD32Async(save_area, 0, save_busy_bytes / 4, s));
	CK(cuMemsetD32Async(stop_word, 0, 1, s));
}

static unsigned ptb_max_workers(CUfunction f, struct kcase *c)
{
	int per_sm = 0;
	unsigned threads = c->block[0] * c->block[1] * c->block[2];
	uint64_t w;

	CK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, (int)threads, c->smem));
	w = (uint64_t)(per_sm > 0 ? per_sm : 1) * (uint64_t)num_sms;
	return (unsigned)(w < total_blocks(c) ? w : total_blocks(c));
}

static void wait_stream(CUstream s, double limit_us)
{
	double t0 = now_us();
	CUresult r;

	while ((r = cuStreamQuery(s)) == CUDA_ERROR_NOT_READY) {
		if (now_us() - t0 > limit_us)
			die("stream did not finish within %.0f ms", limit_us / 1000);
	}
	CK(r);
}

static void spin_us(double us)
{
	double t0 = now_us();

	while (now_us() - t0 < us)
		;
}

/*
 * One persistent run from fresh inputs with `workers` workers, narrowed from
 * its start to about half the SMs (with a parker) when `narrowed`, checked
 * against the original as FORM/W or FORM-narrow/W; returns its span in us.
 */
static double ptb_fixed_run(CUfunction f, struct kcase *c, CUdeviceptr ctl, unsigned workers,
			    int narrowed, const char *form)
{
	char name[64], extra[64], batch[16];
	struct args a;
	double t0, span;

	upload(c);
	ptb_reset(ctl, stream);
	if (narrowed)
		CK(cuMemsetD32Async(stop_word, 1 + 512, 1, stream));
	CK(cuStreamSynchronize(stream));
	ptb_args(&a, c, ctl, narrowed, 0);
	t0 = now_us();
	launch(f, workers, 1, 1, c, &a, stream);
	wait_stream(stream, opt.wait_limit_us);
	span = now_us() - t0;
	CK(cuMemsetD32(stop_word, 0, 1));
	download(c, 0);
	batch[0] = '\0';
	if (ptb_batch > 1)
		snprintf(batch, sizeof(batch), "-b%u", ptb_batch);
	snprintf(name, sizeof(name), "%s%s%s/%u", form, batch, narrowed ? "-narrow" : "", workers);
	snprintf(extra, sizeof(extra), "%.0f us", span);
	check(c, name, extra);
	return span;
}

/*
 * Runs the persistent kernel to completion, stopping it at random intervals;
 * returns the number of stop/resume cycles.
 */
static unsigned run_ptb_storm(CUfunction f, struct kcase *c, unsigned workers, CUdeviceptr ctl,
			      unsigned max_cycles, double span_us)
{
	uint64_t total = total_blocks(c);
	unsigned cycles = 0;
	uint32_t hdr[4] = {0, 0, 0, 0};
	struct args a;

	ptb_args(&a, c, ctl, 0, 0);
	ptb_reset(ctl, stream);
	for (;;) {
		/*
		 * Half the time the stop is already set when the workers start, so
		 * they take nothing and the resume path runs: this is how kernels of
		 * one or two blocks get their stops too.
		 */
		int preset = cycles < max_cycles && (rng() & 1);

		if (preset)
			CK(cuMemsetD32Async(stop_word, 1, 1, stream));
		launch(f, workers, 1, 1, c, &a, stream);
		if (cycles < max_cycles && !preset) {
			/*
			 * Random delays over the kernel's own span (its run time with
			 * these workers), mostly short: stops land before the first
			 * block, inside blocks and between them.
			 */
			double u = rng_unit();
			double d = u * u * span_us;

			spin_us(d);
			CK(cuMemsetD32Async(stop_word, 1, 1, side_stream));
		}
		wait_stream(stream, opt.wait_limit_us);
		CK(cuStreamSynchronize(side_stream));
		/* Blocks given up at a stop are taken again by the next launch. */
		CK(cuMemcpyDtoH(hdr, ctl, sizeof(hdr)));
		if (hdr[1] >= total)
			break;
		/*
		 * The blocks given up at this stop wait in the ring between head
		 * and tail (positions modulo twice the workers); a saved one's
		 * entry carries the top bit.  Counted so that a run with -S shows
		 * resumes happened, not only restarts.
		 */
		if (!no_redo && hdr[3] > hdr[2] && 2ull * workers <= redo_words) {
			uint32_t ring[2 * 1024], pos;
			unsigned cap = 2 * workers;

			if (cap <= sizeof(ring) / sizeof(ring[0])) {
				CK(cuMemcpyDtoH(ring, redo_ring, 4ull * cap));
				for (pos = hdr[2]; pos != hdr[3]; pos++) {
					storm_given_up++;
					storm_saved += (ring[pos % cap] & 0x80000000u) != 0;
				}
			}
		}
		if (cycles >= max_cycles) {
			/* A launch without stops left blocks undone: the outputs tell. */
			fprintf(stderr, "%s: a launch without stops left %u of %llu blocks undone\n",
				c->name, (unsigned)(total - hdr[1]), (unsigned long long)total);
			break;
		}
		cycles++;
		/* Resume: clear the flag, relaunch with the counter where it is. */
		CK(cuMemsetD32Async(stop_word, 0, 1, stream));
	}
	return cycles;
}

/*
 * The runtime's way (docs/runtime-design.md): the kernel is launched once
 * on `stream` with a parker; each stop leaves worker 0 paused there while
 * the other workers leave.  Resumes come three ways, in turn: the word
 * cleared and a helper (the same kernel, no parker, a random number of
 * workers up to the launch's) carrying on from the counter on another
 * stream; the word cleared and no helper (worker 0 goes
 * on alone); the host copy cleared with the word still set, and a helper
 * (neither may take it for a stop); and a narrowing (a word above 1: the
 * parker goes on with a random share of the workers, a helper launched then
 * leaves at once).  `stream` must not move on before
 * every virtual block is done: after it drains, the done count read through
 * `stream` itself must be the grid's size.  Returns the stops that left work
 * behind, or UINT_MAX when the done count was short.
 */
static unsigned run_park_storm(CUfunction f, struct kcase *c, unsigned workers, CUdeviceptr ctl,
			       unsigned max_cycles, double span_us)
{
	uint64_t total = total_blocks(c);
	unsigned cycles = 0;
	uint32_t hdr[2] = {0, 0};
	struct args primary, helper;

	/* Helpers run one at a time on their stream: they share the second bank of slots. */
	ptb_args(&primary, c, ctl, 1, 0);
	ptb_args(&helper, c, ctl, 0, workers);
	ptb_reset(ctl, stream);
	launch(f, workers, 1, 1, c, &primary, stream);
	for (;;) {
		double u = rng_unit();

		if (cycles >= max_cycles)
			break;
		spin_us(u * u * span_us);
		*stop_host = 1;
		CK(cuMemsetD32Async(stop_word, 1, 1, side_stream));
		CK(cuStreamSynchronize(side_stream));
		/* Helpers leave at the stop; the parker stays. */
		wait_stream(helper_stream, opt.wait_limit_us);
		CK(cuMemcpyDtoHAsync(hdr, ctl, 8, helper_stream));
		CK(cuStreamSynchronize(helper_stream));
		if (hdr[0] >= total)
			break; /* every block is taken: whoever holds them finishes */
		switch (cycles++ % 4) {
		case 0:
			/*
			 * A helper with fewer workers than its launch, as the runtime's
			 * after a narrowing: it must find the blocks its launch gave up
			 * where they are (the ring's capacity follows slot_base, ptb.c).
			 */
			CK(cuMemsetD32Async(stop_word, 0, 1, helper_stream));
			launch(f, 1 + (unsigned)(rng() % workers), 1, 1, c, &helper, helper_stream);
			break;
		case 1:
			CK(cuMemsetD32Async(stop_word, 0, 1, helper_stream));
			break;
		case 2:
			__atomic_store_n(stop_host, 0, __ATOMIC_SEQ_CST);
			launch(f, workers, 1, 1, c, &helper, helper_stream);
			break;
		default:
			CK(cuMemsetD32Async(stop_word, 2 + (uint32_t)(rng() % 1022), 1, helper_stream));
			launch(f, workers, 1, 1, c, &helper, helper_stream);
			break;
		}
	}
	*stop_host = 1;
	/* No more stops: whatever is left runs (a helper finds nothing when all is taken). */
	CK(cuMemsetD32Async(stop_word, 0, 1, helper_stream));
	launch(f, workers, 1, 1, c, &helper, helper_stream);
	CK(cuMemcpyDtoHAsync(hdr, ctl, 8, stream));
	wait_stream(stream, opt.wait_limit_us);
	CK(cuStreamSynchronize(helper_stream));
	return hdr[1] == total ? cycles : UINT_MAX;
}

/* Over a case's fresh storms: the most blocks one fresh launch left in the ring; launches. */
static uint64_t fresh_most, fresh_launches, fresh_drains;

/*
 * The runtime's COLOC_FRESH way (runtime/launch.c, ptb_hold): the fresh
 * variant `ffresh` (a worker per block, `fwave` resident at once) a chunk
 * of 2 to 16 waves at a time, and between chunks the looping variant
 * `floop` (`workers` workers) with park 2 draining the ring, or with park 0
 * taking what is left; every launch has slot_base = the larger of the two
 * waves, so that all agree on the ring's capacity.  While a launch runs, the
 * stop is set and cleared one to four times at random moments, as the
 * latency tenant's kernels come and go: a fresh launch that went on taking
 * blocks between stops could give up more than the ring holds, and hung
 * (the GPT trainer on an H200).  The blocks a fresh launch leaves in the
 * ring must be at most its wave (passes/ptb.c's fresh_take): counted in
 * fresh_most.  Returns the stops.
 */
static unsigned run_fresh_storm(CUfunction ffresh, CUfunction floop, struct kcase *c,
				CUdeviceptr ctl, unsigned fwave, unsigned workers,
				unsigned max_cycles, double span_us)
{
	uint64_t total = total_blocks(c);
	uint64_t ring = fwave > workers ? fwave : workers;
	uint64_t chunk = (uint64_t)fwave * (2 + rng() % 15);
	/* The delays span a chunk's run time, from the whole grid's. */
	double chunk_us = span_us * (double)(chunk < total ? chunk : total) / (double)total;
	unsigned cycles = 0, launches = 0;
	uint32_t hdr[4] = {0, 0, 0, 0};
	struct args run, drain;

	if (ring > total)
		ring = total;
	ptb_args(&run, c, ctl, 0, (unsigned)ring);
	ptb_args(&drain, c, ctl, 2, (unsigned)ring);
	ptb_reset(ctl, stream);
	CK(cuStreamSynchronize(stream));
	while (hdr[1] < total) {
		int fresh = 0;
		unsigned k, stops;

		/* Each launch takes a block, or a stop let it leave: 100,000 is far past a hang. */
		if (++launches > 100000)
			die("%s: fresh storm: %u launches and %u of %llu blocks done", c->name,
			    launches, hdr[1], (unsigned long long)total);
		if (hdr[3] != hdr[2]) {
			unsigned n = hdr[3] - hdr[2] < workers ? hdr[3] - hdr[2] : workers;

			launch(floop, n, 1, 1, c, &drain, stream);
			fresh_drains++;
		} else if (hdr[0] >= total) {
			launch(floop, workers, 1, 1, c, &run, stream);
		} else {
			uint64_t n = total - hdr[0] < chunk ? total - hdr[0] : chunk;

			launch(ffresh, (unsigned)n, 1, 1, c, &run, stream);
			fresh_launches++;
			fresh = 1;
		}
		stops = cycles < max_cycles ? 1 + (unsigned)(rng() % 4) : 0;
		for (k = 0; k < stops; k++) {
			double u = rng_unit(), v = rng_unit();

			spin_us(u * u * (chunk_us > 1 ? chunk_us : 1));
			CK(cuMemsetD32Async(stop_word, 1, 1, side_stream));
			spin_us(v * v * (chunk_us > 4 ? chunk_us : 4) / 4);
			CK(cuMemsetD32Async(stop_word, 0, 1, side_stream));
			cycles++;
		}
		wait_stream(stream, opt.wait_limit_us);
		CK(cuStreamSynchronize(side_stream));
		CK(cuMemcpyDtoH(hdr, ctl, sizeof(hdr)));
		if (fresh && hdr[3] - hdr[2] > fresh_most)
			fresh_most = hdr[3] - hdr[2];
	}
	return cycles;
}

static double median(double *v, unsigned n)
{
	unsigned i, j;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n ? v[n / 2] : 0;
}

static double pct(double *v, unsigned n, double p)
{
	median(v, n); /* sorts */
	return n ? v[(unsigned)((n - 1) * p + 0.5)] : 0;
}

/* ------------------------------------------------------------- one case */

/* A register-capped copy of a persistent variant (passes/regcap.h). */
#define MAX_CAPS 12
struct capped {
	CUfunction fn;
	unsigned cap;
	char label[24]; /* ptb-cap40, fresh-cap40 */
};

/* The copies of __coloc_<form>_K the module has, highest cap first. */
static unsigned find_capped(CUmodule mod, const char *form, const char *kernel, struct capped *out)
{
	char name[400];
	unsigned n = 0;

	/* Caps are multiples of 8 from 32 (regcap.c); 255, the top, never needs a copy. */
	for (unsigned cap = 248; cap >= 32 && n < MAX_CAPS; cap -= 8) {
		snprintf(name, sizeof(name), "__coloc_cap%u_%s_%s", cap, form, kernel);
		if (cuModuleGetFunction(&out[n].fn, mod, name) != CUDA_SUCCESS)
			continue;
		out[n].cap = cap;
		snprintf(out[n].label, sizeof(out[n].label), "%s-cap%u", form, cap);
		n++;
	}
	return n;
}

/* The copies that take the case's dynamic shared memory; a failed check for each other. */
static unsigned smem_capped(struct capped *caps, unsigned n, struct kcase *c)
{
	unsigned kept = 0;

	for (unsigned i = 0; i < n; i++) {
		if (cuFuncSetAttribute(caps[i].fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
				       (int)c->smem) != CUDA_SUCCESS) {
			result(c, caps[i].label, 0, "the register-capped copy cannot take %u bytes of "
			       "dynamic shared memory", c->smem);
			continue;
		}
		caps[kept++] = caps[i];
	}
	return kept;
}

/*
 * What the runtime launches (runtime/launch.c's level_pick): of `fn` and its
 * copies, the one that runs the case's grid in the fewest rounds, the one
 * with the most registers among those; its index in *which (-1: fn).
 */
static CUfunction pick_level(CUfunction fn, const struct capped *caps, unsigned n, struct kcase *c,
			     int *which)
{
	uint64_t total = total_blocks(c), fewest = UINT64_MAX;
	CUfunction best = fn;

	*which = -1;
	for (int i = fn ? -1 : 0; i < (int)n && fewest > 1; i++) {
		CUfunction f = i < 0 ? fn : caps[i].fn;
		uint64_t w = ptb_max_workers(f, c), rounds = (total + w - 1) / w;

		if (rounds < fewest) {
			fewest = rounds;
			best = f;
			*which = i;
		}
	}
	return best;
}

static void run_case(CUmodule mod, struct kcase *c)
{
	CUfunction orig, fslice = NULL, fptb = NULL, ffresh = NULL;
	struct capped fcap[MAX_CAPS], ffcap[MAX_CAPS];
	unsigned ncap, nfcap;
	char name[400];
	unsigned i, s;
	CUdeviceptr ctl;
	uint64_t total = total_blocks(c);
	char extra[128];

	if (cuModuleGetFunction(&orig, mod, c->kernel) != CUDA_SUCCESS) {
		result(c, "load", 0, "kernel '%s' not in module", c->kernel);
		return;
	}
	snprintf(name, sizeof(name), "__coloc_slice_%s", c->kernel);
	if (cuModuleGetFunction(&fslice, mod, name) != CUDA_SUCCESS)
		fslice = NULL;
	snprintf(name, sizeof(name), "__coloc_ptb_%s", c->kernel);
	if (cuModuleGetFunction(&fptb, mod, name) != CUDA_SUCCESS)
		fptb = NULL;
	/* Present where --aot capped the persistent form's registers (passes/regcap.h). */
	ncap = find_capped(mod, "ptb", c->kernel, fcap);
	/* The one-block-a-worker variant and its capped copies (COLOC_FRESH; ptb.c). */
	snprintf(name, sizeof(name), "__coloc_fresh_%s", c->kernel);
	if (cuModuleGetFunction(&ffresh, mod, name) != CUDA_SUCCESS)
		ffresh = NULL;
	nfcap = find_capped(mod, "fresh", c->kernel, ffcap);
	if (!fslice && !c->no_slice)
		result(c, "slice", 0, "colocc did not produce a sliced variant");
	if (!fptb && !c->no_ptb)
		result(c, "ptb", 0, "colocc did not produce a persistent variant");
	if (fslice && c->no_slice)
		result(c, "slice", 0, "a sliced variant exists although the case expects a refusal");
	if (fptb && c->no_ptb)
		result(c, "ptb", 0, "a persistent variant exists although the case expects a refusal");
	if (c->smem > 48 * 1024) {
		/* Attributes set on a kernel apply to its variants too (the runtime does the same). */
		CK(cuFuncSetAttribute(orig, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)c->smem));
		if (fslice && cuFuncSetAttribute(fslice, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
						 (int)c->smem) != CUDA_SUCCESS) {
			result(c, "slice", 0, "the sliced variant cannot take %u bytes of dynamic shared memory",
			       c->smem);
			fslice = NULL;
		}
		if (fptb && cuFuncSetAttribute(fptb, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
					       (int)c->smem) != CUDA_SUCCESS) {
			result(c, "ptb", 0, "the persistent variant cannot take %u bytes of dynamic shared memory",
			       c->smem);
			fptb = NULL;
		}
		if (ffresh && cuFuncSetAttribute(ffresh, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
						 (int)c->smem) != CUDA_SUCCESS) {
			result(c, "fresh", 0, "the fresh variant cannot take %u bytes of dynamic shared "
			       "memory", c->smem);
			ffresh = NULL;
		}
		ncap = smem_capped(fcap, ncap, c);
		nfcap = smem_capped(ffcap, nfcap, c);
	}

	for (i = 0; i < c->nparams; i++) {
		struct param *p = &c->params[i];
		size_t bytes = p->count * elem_info[p->type].size;

		if (!p->is_buf)
			continue;
		p->host_init = malloc(bytes);
		p->host_ref = malloc(bytes);
		p->host_out = malloc(bytes);
		if (!p->host_init || !p->host_ref || !p->host_out)
			die("out of memory");
		fill(p);
		CK(cuMemAlloc(&p->dev, bytes));
	}
	/*
	 * Header (next, done, redo head and tail) and, for kernels with global
	 * slots, two banks of two words per worker; a redo ring of two words
	 * per worker.
	 */
	CK(cuMemAlloc(&ctl, 16 + 16 * total));
	redo_words = 2 * total;
	CK(cuMemAlloc(&redo_ring, 4 * redo_words));
	if (use_save) {
		/* Ring positions: twice the workers, which are at most the blocks an SM holds. */
		uint64_t threads = (uint64_t)c->block[0] * c->block[1] * c->block[2];
		uint64_t per_sm = threads ? 2048 / threads : 1;
		uint64_t workers = (uint64_t)num_sms * (per_sm ? per_sm : 1) * 2;
		uint64_t slots = 2 * (workers < total ? workers : total);

		save_busy_bytes = (4 * slots + 255) / 256 * 256;
		CK(cuMemAlloc(&save_area, save_busy_bytes + slots * (threads * 1024 + 48 * 1024 + 64)));
	}
	if (!stop_word) {
		uint64_t record[2] = { 0, 0 };
		CUdeviceptr mapped;
		void *host;

		CK(cuMemHostAlloc(&host, 64, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP));
		CK(cuMemHostGetDevicePointer(&mapped, host, 0));
		stop_host = host;
		*stop_host = 1;
		record[1] = mapped;
		CK(cuMemAlloc(&stop_word, sizeof(record)));
		CK(cuMemcpyHtoD(stop_word, record, sizeof(record)));
	}

	upload(c);
	run_original(orig, c);
	download(c, 1);
	result(c, "original", 1, "%llu blocks of %u threads, smem %u", (unsigned long long)total,
	       c->block[0] * c->block[1] * c->block[2], c->smem);

	if (fslice) {
		uint64_t wanted[] = {1, 2, 3, 7, total};

		for (s = 0; s < (opt.quick ? 2u : 5u); s++) {
			uint64_t n;

			upload(c);
			n = run_sliced(fslice, c, wanted[s]);
			download(c, 0);
			snprintf(name, sizeof(name), "slice/%llu", (unsigned long long)wanted[s]);
			snprintf(extra, sizeof(extra), "%llu launches", (unsigned long long)n);
			check(c, name, extra);
		}
	}
	if (fptb) {
		unsigned wmax = ptb_max_workers(fptb, c);
		unsigned workers[] = {1, (unsigned)num_sms < total ? (unsigned)num_sms : (unsigned)total, wmax,
				      wmax};
		double span[4] = {0, 0, 0, 0}, t_start = now_us();
		unsigned cycles = 0, runs = 0, parked = 0;

		/* The fourth run is narrowed from its start to about half its workers, with a parker. */
		for (s = opt.quick ? 1u : 0u; s < 4u; s++)
			span[s] = ptb_fixed_run(fptb, c, ctl, workers[s], s == 3, "ptb");
		/* Workers taking three virtual blocks at a time (the runtime's batch). */
		ptb_batch = 3;
		for (s = opt.quick ? 1u : 0u; s < 4u; s++)
			ptb_fixed_run(fptb, c, ctl, workers[s], s == 3, "ptb");
		ptb_batch = 1;
		storm_given_up = storm_saved = 0;
		/*
		 * The storm, repeated from the same inputs until enough stops
		 * happened: a single worker mostly (the longest run, so the most
		 * stops land inside it), all workers every fourth run.
		 */
		while (!opt.quick && cycles < opt.storm_cycles && runs < 5000 &&
		       now_us() - t_start < 60e6) {
			unsigned which = c->exactly_once || runs % 4 == 3 ? 2 : 0;
			unsigned w = workers[which];
			unsigned got;

			upload(c);
			/* Every third run with batches of three: stops land between batches. */
			ptb_batch = runs % 3 == 2 ? 3 : 1;
			/* Every other run the runtime's way: parked worker and helpers. */
			if (runs % 2) {
				got = run_park_storm(fptb, c, w, ctl, opt.storm_cycles - cycles,
						     span[which] > 1 ? span[which] : 1);
				if (got == UINT_MAX) {
					result(c, "park-done", 0, "the stream moved on before every "
					       "virtual block was counted done");
					got = 0;
				}
				parked += got;
			} else {
				got = run_ptb_storm(fptb, c, w, ctl, opt.storm_cycles - cycles,
						    span[which] > 1 ? span[which] : 1);
			}
			download(c, 0);
			cycles += got;
			runs++;
			snprintf(name, sizeof(name), "%s%s/%u", runs % 2 ? "ptb-storm" : "park-storm",
				 ptb_batch > 1 ? "-batched" : "", w);
			snprintf(extra, sizeof(extra), "%u stop/resume cycles", got);
			/* Report every run that failed, and only a summary of the rest. */
			if (!quiet_ok(c))
				check(c, name, extra);
			if (c->exactly_once) {
				const struct param *p = &c->params[0];
				const uint32_t *cnt = p->host_out;
				uint64_t bad = 0, k;

				for (k = 0; k < p->count && k < total; k++)
					bad += cnt[k] != 1;
				if (bad)
					result(c, "exactly-once", 0, "%llu of %llu virtual blocks ran other "
					       "than once over %u preemptions", (unsigned long long)bad,
					       (unsigned long long)total, got);
			}
		}
		if (!opt.quick)
			result(c, c->exactly_once ? "exactly-once-storm" : "ptb-storm",
			       cycles >= opt.storm_cycles && quiet_ok(c),
			       "%u stop/resume cycles (%u with a parked worker and helpers) in %u runs "
			       "(a third with batches of 3), every run equal to the original%s; "
			       "%llu blocks given up at plain stops, %llu of them saved", cycles,
			       parked, runs,
			       c->exactly_once ? ", every virtual block ran exactly once" : "",
			       (unsigned long long)storm_given_up, (unsigned long long)storm_saved);
		ptb_batch = 1;
	}

	if (fptb && (ffresh || nfcap)) {
		/*
		 * COLOC_FRESH: each fresh form once over the whole grid, then the
		 * runtime's way under stops (run_fresh_storm) with the forms the
		 * runtime picks (pick_level).
		 */
		CUfunction fresh_fn, loop_fn;
		unsigned got = 0, runs = 0, bad = 0, fwave, lwave;
		double span = 0, t_start = now_us();
		int fwhich, lwhich;

		fresh_most = fresh_launches = fresh_drains = 0;
		fresh_fn = pick_level(ffresh, ffcap, nfcap, c, &fwhich);
		loop_fn = pick_level(fptb, fcap, ncap, c, &lwhich);
		if (ffresh)
			span = ptb_fixed_run(ffresh, c, ctl, (unsigned)total, 0, "fresh");
		for (unsigned j = 0; j < nfcap; j++) {
			double t = ptb_fixed_run(ffcap[j].fn, c, ctl, (unsigned)total, 0, ffcap[j].label);

			/* The storm's delays follow the run time of the form it runs. */
			if ((int)j == fwhich)
				span = t;
		}
		fwave = ptb_max_workers(fresh_fn, c);
		lwave = ptb_max_workers(loop_fn, c);
		while (!opt.quick && got < opt.storm_cycles / 2 && runs < 2000 &&
		       now_us() - t_start < 60e6) {
			upload(c);
			got += run_fresh_storm(fresh_fn, loop_fn, c, ctl, fwave, lwave,
					       opt.storm_cycles / 2 - got, span > 1 ? span : 1);
			download(c, 0);
			runs++;
			if (!quiet_ok(c)) {
				bad++;
				check(c, "fresh-storm", "stop/resume");
			}
		}
		if (!opt.quick)
			result(c, "fresh-storm", !bad && got >= opt.storm_cycles / 2 && fresh_most <= fwave,
			       "%u stops in %u runs of the %s form (wave %u) with the %s form "
			       "draining (wave %u): %llu fresh launches, %llu drains, %u runs not "
			       "equal to the original; at most %llu blocks left in the ring by one "
			       "fresh launch (at most its wave)", got, runs,
			       fwhich < 0 ? "fresh" : ffcap[fwhich].label, fwave,
			       lwhich < 0 ? "looping" : fcap[lwhich].label, lwave,
			       (unsigned long long)fresh_launches, (unsigned long long)fresh_drains, bad,
			       (unsigned long long)fresh_most);
	}

	for (unsigned j = 0; j < ncap; j++) {
		/* Each capped copy: the same runs with its own wave, and a short storm. */
		CUfunction f = fcap[j].fn;
		const char *label = fcap[j].label;
		unsigned wmax = ptb_max_workers(f, c), got = 0, runs = 0, bad = 0;
		double span = ptb_fixed_run(f, c, ctl, 1, 0, label);
		char storm[48];

		snprintf(storm, sizeof(storm), "%s-storm", label);
		if (!opt.quick) {
			ptb_fixed_run(f, c, ctl, wmax, 0, label);
			ptb_fixed_run(f, c, ctl, wmax, 1, label);
		}
		while (!opt.quick && got < opt.storm_cycles / 4 && runs < 200) {
			upload(c);
			got += run_ptb_storm(f, c, 1, ctl, opt.storm_cycles / 4 - got,
					     span > 1 ? span : 1);
			download(c, 0);
			runs++;
			if (!quiet_ok(c)) {
				bad++;
				check(c, storm, "stop/resume");
			}
		}
		if (!opt.quick)
			result(c, storm, !bad && got >= opt.storm_cycles / 4,
			       "%u stop/resume cycles in %u runs of the copy capped at %u registers, "
			       "every run equal to the original", got, runs, fcap[j].cap);
	}

	if (opt.timing) {
		enum { REPS = 15, TURN = 200 };
		double t[REPS], t_orig, t_slice = 0, t_ptb = 0, turn[TURN], hp[TURN];
		CUevent e0, e1, e_stop, e_end, e_hp;
		unsigned wmax = fptb ? ptb_max_workers(fptb, c) : 0;
		uint64_t wave = wmax ? wmax : (uint64_t)num_sms;
		float ms;

		CK(cuEventCreate(&e0, CU_EVENT_DEFAULT));
		CK(cuEventCreate(&e1, CU_EVENT_DEFAULT));
		upload(c);
		for (i = 0; i < REPS; i++) {
			CK(cuEventRecord(e0, stream));
			run_original(orig, c);
			CK(cuEventRecord(e1, stream));
			CK(cuEventSynchronize(e1));
			CK(cuEventElapsedTime(&ms, e0, e1));
			t[i] = ms * 1000.0;
		}
		t_orig = median(t, REPS);
		if (fslice) {
			/* One wave per slice, as the runtime would pick for turnaround. */
			uint64_t want = (total + wave - 1) / wave;

			for (i = 0; i < REPS; i++) {
				CK(cuEventRecord(e0, stream));
				run_sliced(fslice, c, want < 1 ? 1 : want);
				CK(cuEventRecord(e1, stream));
				CK(cuEventSynchronize(e1));
				CK(cuEventElapsedTime(&ms, e0, e1));
				t[i] = ms * 1000.0;
			}
			t_slice = median(t, REPS);
		}
		if (fptb) {
			struct args a;

			ptb_args(&a, c, ctl, 0, 0);
			for (i = 0; i < REPS; i++) {
				ptb_reset(ctl, stream);
				CK(cuEventRecord(e0, stream));
				launch(fptb, wmax, 1, 1, c, &a, stream);
				CK(cuEventRecord(e1, stream));
				CK(cuEventSynchronize(e1));
				CK(cuEventElapsedTime(&ms, e0, e1));
				t[i] = ms * 1000.0;
			}
			t_ptb = median(t, REPS);
			/*
			 * Turnaround, on the GPU's clock: from the stop flag's write
			 * (an event recorded right after it on the flag's stream) to
			 * the kernel's end, and to the end of a probe kernel that was
			 * waiting on a high-priority stream.
			 */
			CK(cuEventCreate(&e_stop, CU_EVENT_DEFAULT));
			CK(cuEventCreate(&e_end, CU_EVENT_DEFAULT));
			CK(cuEventCreate(&e_hp, CU_EVENT_DEFAULT));
			for (i = 0; i < TURN; i++) {
				struct args pa;

				ptb_reset(ctl, stream);
				CK(cuStreamSynchronize(stream));
				launch(fptb, wmax, 1, 1, c, &a, stream);
				CK(cuEventRecord(e_end, stream));
				/* Stop it somewhere inside its run. */
				spin_us(rng_unit() * (t_ptb * 0.8 > 5 ? t_ptb * 0.8 : 5));
				pa.n = 0;
				args_add(&pa, (uint64_t)probe_buf);
				CK(cuMemsetD32Async(stop_word, 1, 1, side_stream));
				CK(cuEventRecord(e_stop, side_stream));
				CK(cuLaunchKernel(probe_fn, 1, 1, 1, 32, 1, 1, 0, hp_stream, pa.ptrs, NULL));
				CK(cuEventRecord(e_hp, hp_stream));
				CK(cuEventSynchronize(e_end));
				CK(cuEventSynchronize(e_hp));
				CK(cuEventSynchronize(e_stop));
				CK(cuEventElapsedTime(&ms, e_stop, e_end));
				/* Negative: the kernel ended before the flag was written. */
				turn[i] = ms > 0 ? ms * 1000.0 : 0;
				CK(cuEventElapsedTime(&ms, e_stop, e_hp));
				hp[i] = ms > 0 ? ms * 1000.0 : 0;
			}
			CK(cuEventDestroy(e_stop));
			CK(cuEventDestroy(e_end));
			CK(cuEventDestroy(e_hp));
			snprintf(extra, sizeof(extra),
				 "turnaround_us p50 %.1f p99 %.1f max %.1f; hp_probe_us p50 %.1f p99 %.1f; "
				 "estimate %.1f",
				 pct(turn, TURN, 0.5), pct(turn, TURN, 0.99), pct(turn, TURN, 1.0),
				 pct(hp, TURN, 0.5), pct(hp, TURN, 0.99),
				 t_orig * (double)wmax / (double)total);
			result(c, "turnaround", 1, "%s", extra);
		}
		result(c, "timing", 1, "orig_us %.2f slice_us %.2f ptb_us %.2f workers %u blocks %llu", t_orig,
		       t_slice, t_ptb, wmax, (unsigned long long)total);
		CK(cuEventDestroy(e0));
		CK(cuEventDestroy(e1));
	}

	for (i = 0; i < c->nparams; i++) {
		struct param *p = &c->params[i];

		if (!p->is_buf)
			continue;
		CK(cuMemFree(p->dev));
		free(p->host_init);
		free(p->host_ref);
		free(p->host_out);
	}
	CK(cuMemFree(ctl));
	CK(cuMemFree(redo_ring));
	if (use_save)
		CK(cuMemFree(save_area));
}

/* A kernel that records when it ran: the high-priority probe of --timing. */
static const char probe_ptx[] =
	".version 8.0\n.target sm_80\n.address_size 64\n"
	".visible .entry coloc_probe(.param .u64 p)\n{\n"
	".reg .b64 %rd<3>;\n"
	"ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd1, %rd1;\n"
	"mov.u64 %rd2, %globaltimer;\nst.global.u64 [%rd1], %rd2;\nret;\n}\n";

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;
	char *b;

	if (!f)
		die("cannot open %s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t)n + 1);
	if (!b || fread(b, 1, (size_t)n, f) != (size_t)n)
		die("cannot read %s", path);
	b[n] = '\0';
	fclose(f);
	return b;
}

int main(int argc, char **argv)
{
	static struct kcase cases[MAX_CASES];
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod, probe_mod;
	char log[8192] = "";
	CUjit_option jo[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
	void *jv[2] = {log, (void *)(uintptr_t)sizeof(log)};
	unsigned n, i;
	int c, lo, hi;
	char *ptx;

	setvbuf(stdout, NULL, _IONBF, 0);
	opt.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	while ((c = getopt(argc, argv, "s:c:tqj:o:w:l:RS")) != -1) {
		switch (c) {
		case 's': opt.seed = strtoull(optarg, NULL, 0); break;
		case 'c': opt.storm_cycles = (unsigned)strtoul(optarg, NULL, 0); break;
		case 't': opt.timing = 1; break;
		case 'q': opt.quick = 1; break;
		case 'j': opt.json = optarg; break;
		case 'o': opt.only = optarg; break;
		case 'w': alarm((unsigned)strtoul(optarg, NULL, 0)); break;
		case 'l': opt.wait_limit_us = strtod(optarg, NULL) * 1e6; break;
		case 'R': no_redo = 1; break;
		case 'S': use_save = 1; break;
		default:
			fprintf(stderr, "usage: diffrun [-s seed] [-c storm-cycles] [-t] [-q] [-j out.json] "
					"[-o case] [-w watchdog-seconds] [-l stream-limit-seconds] [-R] [-S] "
					"CASES.cu MODULE.ptx\n");
			return 2;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: diffrun [options] CASES.cu MODULE.ptx\n");
		return 2;
	}
	signal(SIGALRM, watchdog);
	rng_state = opt.seed ? opt.seed : 1;
	printf("seed %llu\n", (unsigned long long)opt.seed);
	if (opt.json && !(json_out = fopen(opt.json, "a")))
		die("cannot open %s", opt.json);
	n = load_cases(argv[optind], cases);
	ptx = read_file(argv[optind + 1]);

	CK(cuInit(0));
	CK(cuDeviceGet(&dev, 0));
	CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CK(cuCtxSetCurrent(ctx));
	CK(cuDeviceGetAttribute(&num_sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
	if (cuModuleLoadDataEx(&mod, ptx, 2, jo, jv) != CUDA_SUCCESS)
		die("cuModuleLoadDataEx(%s): %s", argv[optind + 1], log);
	CK(cuModuleLoadData(&probe_mod, probe_ptx));
	CK(cuModuleGetFunction(&probe_fn, probe_mod, "coloc_probe"));
	CK(cuMemAlloc(&probe_buf, 8));
	CK(cuCtxGetStreamPriorityRange(&lo, &hi));
	CK(cuStreamCreateWithPriority(&stream, CU_STREAM_NON_BLOCKING, lo));
	CK(cuStreamCreateWithPriority(&side_stream, CU_STREAM_NON_BLOCKING, hi));
	CK(cuStreamCreateWithPriority(&hp_stream, CU_STREAM_NON_BLOCKING, hi));
	CK(cuStreamCreateWithPriority(&helper_stream, CU_STREAM_NON_BLOCKING, lo));

	for (i = 0; i < n; i++) {
		if (opt.only && strcmp(opt.only, cases[i].name))
			continue;
		run_case(mod, &cases[i]);
	}
	CK(cuCtxSynchronize());
	printf("%s: %u cases, %d failures\n", argv[optind], n, failures);
	if (json_out)
		fclose(json_out);
	free(ptx);
	return failures ? 1 : 0;
}
