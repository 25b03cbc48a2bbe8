// Kernels and the forward pass shared by gpt_train (best-effort tenant) and
// gpt_serve (latency tenant): a GPT-style decoder written against the CUDA
// runtime only, so that every kernel reaches colocc as PTX.
//
// Matrix products run on tensor cores through mma.sync.m16n8k16 (bf16 in,
// fp32 accumulate) with plain ld.shared fragment loads: no cp.async, ldmatrix
// or wgmma, so that the kernels stay in the forms colocc's passes transform.
// Master weights and the residual stream are fp32; every GEMM input is bf16.
//
// Layout: row-major everywhere; activations are [tokens][features] with
// token n = b * T + t; a linear layer's weight is [in][out] (Y = X W).
#ifndef GPT_KERNELS_CUH
#define GPT_KERNELS_CUH

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef __nv_bfloat16 bf16;

#define GPT_MAX_LAYERS 16

// ---------------------------------------------------------------- errors

static void cuda_check(cudaError_t e, const char *what, const char *file, int line)
{
	if (e == cudaSuccess)
		return;
	fprintf(stderr, "%s:%d: error: %s failed: %s (%s)\n", file, line, what,
		cudaGetErrorString(e), cudaGetErrorName(e));
	exit(1);
}

#define CUDA_CHECK(call) cuda_check((call), #call, __FILE__, __LINE__)
// Launch errors (bad grid, too many resources) only show in cudaGetLastError.
#define LAUNCH_CHECK(name) cuda_check(cudaGetLastError(), "launch of " name, __FILE__, __LINE__)

static void fatal(const char *msg)
{
	fprintf(stderr, "error: %s\n", msg);
	exit(1);
}

// ---------------------------------------------------------------- random numbers

// splitmix64's finalizer: a counter-based generator, so host and device draw
// the same value for the same (seed, index) in any order.
__host__ __device__ static inline uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

// Uniform in (0, 1): 24 bits plus half a step, never 0 (Box-Muller takes a log).
__host__ __device__ static inline float hash_uniform(uint64_t seed, uint64_t i)
{
	return ((float)(mix64(seed ^ mix64(i)) >> 40) + 0.5f) * (1.0f / 16777216.0f);
}

__host__ __device__ static inline float hash_normal(uint64_t seed, uint64_t i)
{
	float u1 = hash_uniform(seed, 2 * i), u2 = hash_uniform(seed, 2 * i + 1);
	return sqrtf(-2.0f * logf(u1)) * cosf(6.2831853f * u2);
}

// ---------------------------------------------------------------- bf16 on the host

// Round to nearest even, as cvt.rn.bf16.f32 does (inputs here are finite).
static inline uint16_t host_bf16_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	u += 0x7fff + ((u >> 16) & 1);
	return (uint16_t)(u >> 16);
}

static inline float host_bf16_to_float(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static inline float host_bf16_round(float f)
{
	return host_bf16_to_float(host_bf16_bits(f));
}

// ---------------------------------------------------------------- warp helpers

__device__ static inline float warp_sum(float v)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	return v;
}

__device__ static inline float warp_max(float v)
{
	for (int o = 16; o > 0; o >>= 1)
		v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
	return v;
}

// ---------------------------------------------------------------- tensor-core GEMM
//
// C[z] = alpha * op(A[z]) op(B[z]) (+ R[z]),  op(A) is M x K, op(B) is K x N.
// A is stored [M][K] (ta = 0) or [K][M] (ta = 1); B is stored [K][N] (tb = 0)
// or [N][K] (tb = 1).  The batch index z splits as z = zo * zdiv + zi and
// each operand starts at zo * s_o + zi * s_i: attention runs over (batch,
// head) pairs whose heads are column slices of one [tokens][3D] buffer.
//
// A block computes a 128 x 128 tile of C with 8 warps (2 x 4), each warp
// 64 x 32 as 4 x 4 mma tiles.  Shared memory holds both operand tiles
// "k-contiguous" ([row][k], rows padded to 40 halves): the fragment loads
// are then the same 32-bit ld.shared for every transpose case, and the
// padding puts the 32 lanes of a fragment load on 32 distinct banks.  An
// operand stored the other way round is transposed on its way in.
//
// Sizes: N, K, leading dimensions and batch strides must be multiples of 8,
// M too when A is transposed, and the pointers 16-byte aligned (operands
// move in 16-byte vectors); gemm_launch() checks this.  Tiles past M, N or K
// are zero-filled.

#define GEMM_BM 128
#define GEMM_BN 128
#define GEMM_BK 32
#define GEMM_LDS (GEMM_BK + 8)
#define GEMM_THREADS 256

struct gemm_args {
	const bf16 *a, *b;
	void *c;
	const float *res; // added to alpha * A B when not NULL; indexed like C
	int m, n, k;
	int lda, ldb, ldc;
	int zdiv;
	long long sa_o, sa_i, sb_o, sb_i, sc_o, sc_i;
	float alpha;
};

// Element coordinates of the first of the 8 halves in vector v of a tile.
// k-contiguous source: a row of 32 k is 4 vectors.  Row-contiguous source:
// lane = k, so a warp's transposing 16-bit stores hit one row of shared
// memory at 32 consecutive halves (no bank conflicts).
template <bool KCONT>
__device__ static inline void gemm_vec_coords(int v, int *row, int *kk)
{
	if (KCONT) {
		*row = v >> 2;
		*kk = (v & 3) * 8;
	} else {
		*kk = v & 31;
		*row = (v >> 5) * 8;
	}
}

// Global to registers: two 16-byte vectors per thread cover 128 x 32.
template <bool KCONT>
__device__ static inline void gemm_tile_fetch(uint4 r[2], const bf16 *x, int ld, int r0, int rmax,
					      int k0, int kmax)
{
#pragma unroll
	for (int i = 0; i < 2; i++) {
		int row, kk;
		gemm_vec_coords<KCONT>(threadIdx.x + i * GEMM_THREADS, &row, &kk);
		row += r0;
		kk += k0;
		r[i] = make_uint4(0, 0, 0, 0);
		// A vector is all in or all out: kmax is a multiple of 8, and so is
		// rmax where the vector runs along rows.
		if (row < rmax && kk < kmax) {
			size_t off = KCONT ? (size_t)row * ld + kk : (size_t)kk * ld + row;
			r[i] = *(const uint4 *)(x + off);
		}
	}
}

// Registers to shared memory, k-contiguous.
template <bool KCONT>
__device__ static inline void gemm_tile_store(const uint4 r[2], uint16_t *s)
{
#pragma unroll
	for (int i = 0; i < 2; i++) {
		int row, kk;
		gemm_vec_coords<KCONT>(threadIdx.x + i * GEMM_THREADS, &row, &kk);
		if (KCONT) {
			*(uint4 *)(s + row * GEMM_LDS + kk) = r[i];
		} else {
			uint32_t w[4] = {r[i].x, r[i].y, r[i].z, r[i].w};
#pragma unroll
			for (int j = 0; j < 8; j++)
				s[(row + j) * GEMM_LDS + kk] = (uint16_t)(w[j / 2] >> (16 * (j % 2)));
		}
	}
}

__device__ static inline uint32_t lds32(const uint16_t *p)
{
	return *(const uint32_t *)p;
}

// D = A B + D for one 16 x 8 x 16 tile.  Fragments (PTX ISA, "Matrix
// Fragments for mma.m16n8k16 with floating point type"), g = lane / 4,
// t = lane % 4, each register holding two consecutive-k halves, lower k in
// the low half: a0 (row g, k 2t), a1 (row g+8, k 2t), a2 (row g, k 2t+8),
// a3 (row g+8, k 2t+8); b0 (k 2t, col g), b1 (k 2t+8, col g); c0,c1 (row g,
// cols 2t, 2t+1), c2,c3 (row g+8, same cols).
__device__ static inline void mma_16816(float c[4], const uint32_t a[4], const uint32_t b[2])
{
	asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
		     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
		     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// One BK-deep step of a warp's 64 x 32 tile from the shared tiles.
__device__ static inline void gemm_tile_mma(float acc[4][4][4], const uint16_t *as,
					    const uint16_t *bs, int wm, int wn, int g, int t)
{
#pragma unroll
	for (int kk = 0; kk < GEMM_BK; kk += 16) {
		uint32_t fa[4][4], fb[4][2];
#pragma unroll
		for (int i = 0; i < 4; i++) {
			const uint16_t *p = as + (wm + i * 16 + g) * GEMM_LDS + kk + 2 * t;
			fa[i][0] = lds32(p);
			fa[i][1] = lds32(p + 8 * GEMM_LDS);
			fa[i][2] = lds32(p + 8);
			fa[i][3] = lds32(p + 8 * GEMM_LDS + 8);
		}
#pragma unroll
		for (int j = 0; j < 4; j++) {
			const uint16_t *p = bs + (wn + j * 8 + g) * GEMM_LDS + kk + 2 * t;
			fb[j][0] = lds32(p);
			fb[j][1] = lds32(p + 8);
		}
#pragma unroll
		for (int i = 0; i < 4; i++)
#pragma unroll
			for (int j = 0; j < 4; j++)
				mma_16816(acc[i][j], fa[i], fb[j]);
	}
}

// Two adjacent outputs of a row (col is even and N a multiple of 8).
template <bool OUT_BF16>
__device__ static inline void gemm_store2(void *c, const float *res, size_t idx, float v0, float v1)
{
	if (res) {
		float2 r = *(const float2 *)(res + idx);
		v0 += r.x;
		v1 += r.y;
	}
	if (OUT_BF16)
		*(__nv_bfloat162 *)((bf16 *)c + idx) = __floats2bfloat162_rn(v0, v1);
	else
		*(float2 *)((float *)c + idx) = make_float2(v0, v1);
}

template <bool TA, bool TB, bool OUT_BF16>
__global__ void gemm_bf16_kernel(const struct gemm_args g)
{
	__shared__ __align__(16) uint16_t as[GEMM_BM * GEMM_LDS];
	__shared__ __align__(16) uint16_t bs[GEMM_BN * GEMM_LDS];
	int zo = blockIdx.z / g.zdiv, zi = blockIdx.z % g.zdiv;
	const bf16 *a = g.a + zo * g.sa_o + zi * g.sa_i;
	const bf16 *b = g.b + zo * g.sb_o + zi * g.sb_i;
	long long coff = zo * g.sc_o + zi * g.sc_i;
	int m0 = blockIdx.y * GEMM_BM, n0 = blockIdx.x * GEMM_BN;
	int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
	int wm = (warp / 4) * 64, wn = (warp % 4) * 32;
	int nk = (g.k + GEMM_BK - 1) / GEMM_BK;
	float acc[4][4][4];
#pragma unroll
	for (int i = 0; i < 4; i++)
#pragma unroll
		for (int j = 0; j < 4; j++)
#pragma unroll
			for (int e = 0; e < 4; e++)
				acc[i][j][e] = 0.0f;

	// Software pipeline: the next tile's global loads are in flight while
	// the current one feeds the tensor cores.  Barriers stay unconditional.
	uint4 ra[2], rb[2];
	gemm_tile_fetch<!TA>(ra, a, g.lda, m0, g.m, 0, g.k);
	gemm_tile_fetch<TB>(rb, b, g.ldb, n0, g.n, 0, g.k);
	gemm_tile_store<!TA>(ra, as);
	gemm_tile_store<TB>(rb, bs);
	__syncthreads();
	for (int kt = 0; kt < nk; kt++) {
		bool more = kt + 1 < nk;
		if (more) {
			gemm_tile_fetch<!TA>(ra, a, g.lda, m0, g.m, (kt + 1) * GEMM_BK, g.k);
			gemm_tile_fetch<TB>(rb, b, g.ldb, n0, g.n, (kt + 1) * GEMM_BK, g.k);
		}
		gemm_tile_mma(acc, as, bs, wm, wn, lane / 4, lane % 4);
		__syncthreads();
		if (more) {
			gemm_tile_store<!TA>(ra, as);
			gemm_tile_store<TB>(rb, bs);
		}
		__syncthreads();
	}

	const float *res = g.res ? g.res + coff : NULL;
	void *c = OUT_BF16 ? (void *)((bf16 *)g.c + coff) : (void *)((float *)g.c + coff);
#pragma unroll
	for (int i = 0; i < 4; i++) {
#pragma unroll
		for (int j = 0; j < 4; j++) {
			int row = m0 + wm + i * 16 + lane / 4;
			int col = n0 + wn + j * 8 + 2 * (lane % 4);
			if (col >= g.n)
				continue;
			const float *v = acc[i][j];
			if (row < g.m)
				gemm_store2<OUT_BF16>(c, res, (size_t)row * g.ldc + col,
						      g.alpha * v[0], g.alpha * v[1]);
			if (row + 8 < g.m)
				gemm_store2<OUT_BF16>(c, res, (size_t)(row + 8) * g.ldc + col,
						      g.alpha * v[2], g.alpha * v[3]);
		}
	}
}

// A plain (unbatched) product; the caller sets alpha, res and batching after.
static struct gemm_args gemm_args_make(const bf16 *a, int lda, const bf16 *b, int ldb, void *c,
				       int ldc, int m, int n, int k)
{
	struct gemm_args g;
	memset(&g, 0, sizeof(g));
	g.a = a;
	g.b = b;
	g.c = c;
	g.lda = lda;
	g.ldb = ldb;
	g.ldc = ldc;
	g.m = m;
	g.n = n;
	g.k = k;
	g.zdiv = 1;
	g.alpha = 1.0f;
	return g;
}

static int gemm_aligned(const void *p)
{
	return ((uintptr_t)p & 15) == 0;
}

// The vector loads need what the kernel's header comment says; a violation
// is a bug in the caller, reported before it can corrupt memory.
static void gemm_validate(int ta, const struct gemm_args *g, int batch)
{
	int dims[] = {g->n, g->k, g->lda, g->ldb, g->ldc, ta ? g->m : 8};
	long long strides[] = {g->sa_o, g->sa_i, g->sb_o, g->sb_i, g->sc_o, g->sc_i};
	if (g->m <= 0)
		fatal("gemm: M must be positive");
	for (int i = 0; i < 6; i++)
		if (dims[i] <= 0 || dims[i] % 8)
			fatal("gemm: N, K, leading dimensions (and M for A^T) must be multiples of 8");
	for (int i = 0; i < 6; i++)
		if (strides[i] % 8)
			fatal("gemm: batch strides must be multiples of 8");
	if (!gemm_aligned(g->a) || !gemm_aligned(g->b) || !gemm_aligned(g->c) ||
	    !gemm_aligned(g->res))
		fatal("gemm: operands must be 16-byte aligned");
	if (g->zdiv < 1 || batch < 1 || batch > 65535)
		fatal("gemm: bad batch");
}

// Only the transpose cases a GPT needs are instantiated: Y = X W (nn),
// dX = dY W^T and Q K^T (nt), dW = X^T dY (tn).
static void gemm_launch(int ta, int tb, int out_bf16, const struct gemm_args *g, int batch,
			cudaStream_t st)
{
	gemm_validate(ta, g, batch);
	dim3 grid((g->n + GEMM_BN - 1) / GEMM_BN, (g->m + GEMM_BM - 1) / GEMM_BM, batch);
	int key = ta * 4 + tb * 2 + out_bf16;
	switch (key) {
	case 0: gemm_bf16_kernel<false, false, false><<<grid, GEMM_THREADS, 0, st>>>(*g); break;
	case 1: gemm_bf16_kernel<false, false, true><<<grid, GEMM_THREADS, 0, st>>>(*g); break;
	case 2: gemm_bf16_kernel<false, true, false><<<grid, GEMM_THREADS, 0, st>>>(*g); break;
	case 3: gemm_bf16_kernel<false, true, true><<<grid, GEMM_THREADS, 0, st>>>(*g); break;
	case 4: gemm_bf16_kernel<true, false, false><<<grid, GEMM_THREADS, 0, st>>>(*g); break;
	case 5: gemm_bf16_kernel<true, false, true><<<grid, GEMM_THREADS, 0, st>>>(*g); break;
	default: fatal("gemm: A and B both transposed is not instantiated");
	}
	LAUNCH_CHECK("gemm_bf16_kernel");
}

// ---------------------------------------------------------------- elementwise and row kernels

#define ROW_THREADS 256 // kernels with one warp per row: 8 rows a block

static unsigned row_blocks(long long rows)
{
	return (unsigned)((rows + ROW_THREADS / 32 - 1) / (ROW_THREADS / 32));
}

static unsigned elem_blocks(long long n)
{
	return (unsigned)((n + 255) / 256);
}

__global__ void init_normal_kernel(float *p, long long n, float std, uint64_t seed)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] = std * hash_normal(seed, (uint64_t)i);
}

__global__ void fill_kernel(float *p, long long n, float v)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] = v;
}

__global__ void cast_bf16_kernel(const float *x, bf16 *y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = __float2bfloat16_rn(x[i]);
}

// x[n][c] = wte[token n][c] + wpe[position of n][c]
__global__ void embedding_fwd_kernel(const int *tok, const float *wte, const float *wpe, float *x,
				     int ntok, int t, int d)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= (long long)ntok * d)
		return;
	int n = (int)(i / d), c = (int)(i % d);
	x[i] = wte[(size_t)tok[n] * d + c] + wpe[(size_t)(n % t) * d + c];
}

// One warp per row: y = (x - mean) / sqrt(var + eps) * g + b as bf16 (the
// next GEMM's input); mean and 1/std are kept for the backward pass.
__global__ void layernorm_fwd_kernel(const float *x, const float *gamma, const float *beta, bf16 *y,
				     float *mean, float *rstd, int rows, int d)
{
	int row = blockIdx.x * (ROW_THREADS / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * d;
	float s = 0.0f;
	for (int c = lane; c < d; c += 32)
		s += xr[c];
	float mu = warp_sum(s) / d;
	float v = 0.0f;
	for (int c = lane; c < d; c += 32)
		v += (xr[c] - mu) * (xr[c] - mu);
	float rs = rsqrtf(warp_sum(v) / d + 1e-5f);
	bf16 *yr = y + (size_t)row * d;
	for (int c = lane; c < d; c += 32)
		yr[c] = __float2bfloat16_rn((xr[c] - mu) * rs * gamma[c] + beta[c]);
	if (lane == 0) {
		mean[row] = mu;
		rstd[row] = rs;
	}
}

// Causal softmax over rows of scores [B*H][T][T] (already scaled): query q
// sees keys 0..q; masked probabilities are written as 0 so that P V and the
// backward products need no mask.
__global__ void softmax_causal_fwd_kernel(const float *s, bf16 *p, long long rows, int t)
{
	long long row = (long long)blockIdx.x * (ROW_THREADS / 32) + threadIdx.x / 32;
	int lane = threadIdx.x % 32;
	if (row >= rows)
		return;
	int q = (int)(row % t);
	const float *sr = s + row * t;
	bf16 *pr = p + row * t;
	float mx = -INFINITY;
	for (int j = lane; j <= q; j += 32)
		mx = fmaxf(mx, sr[j]);
	mx = warp_max(mx);
	float sum = 0.0f;
	for (int j = lane; j <= q; j += 32)
		sum += expf(sr[j] - mx);
	float inv = 1.0f / warp_sum(sum);
	for (int j = lane; j < t; j += 32)
		pr[j] = __float2bfloat16_rn(j <= q ? expf(sr[j] - mx) * inv : 0.0f);
}

// GELU, tanh form.
__device__ static inline float gelu_inner(float x)
{
	return 0.7978845608f * (x + 0.044715f * x * x * x);
}

__global__ void gelu_fwd_kernel(const bf16 *x, bf16 *y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = __bfloat162float(x[i]);
	y[i] = __float2bfloat16_rn(0.5f * v * (1.0f + tanhf(gelu_inner(v))));
}

// ---------------------------------------------------------------- the model

struct gpt_config {
	const char *name;
	int vocab, d_model, n_head, n_layer, seq, batch;
};

// Offsets (in elements) of every tensor in one flat parameter buffer.  The
// tensors AdamW decays (embeddings and matrices) come first, so decay is
// one bound.  Every offset is a multiple of 8 (d_model is).
struct gpt_layer_off {
	size_t wqkv, wo, w1, w2;
	size_t ln1_g, ln1_b, ln2_g, ln2_b;
};

struct gpt_layout {
	size_t wte, wpe, lm;
	struct gpt_layer_off layer[GPT_MAX_LAYERS];
	size_t lnf_g, lnf_b;
	size_t n_decay, count;
};

struct gpt_model {
	struct gpt_config cfg;
	struct gpt_layout lay;
	float *param;  // fp32 master weights
	bf16 *param16; // bf16 copy, read by the GEMMs
};

static void gpt_config_validate(const struct gpt_config *c)
{
	if (c->n_layer < 1 || c->n_layer > GPT_MAX_LAYERS || c->d_model % c->n_head ||
	    (c->d_model / c->n_head) % 8 || c->d_model % 8 || c->vocab % 8 || c->seq % 8)
		fatal("bad model configuration: sizes must be multiples of 8");
}

static size_t layout_take(size_t *at, size_t n)
{
	size_t off = *at;
	*at += (n + 7) / 8 * 8;
	return off;
}

static void gpt_layout_init(struct gpt_layout *lay, const struct gpt_config *c)
{
	size_t d = c->d_model, at = 0;
	memset(lay, 0, sizeof(*lay));
	lay->wte = layout_take(&at, (size_t)c->vocab * d);
	lay->wpe = layout_take(&at, (size_t)c->seq * d);
	lay->lm = layout_take(&at, d * c->vocab);
	for (int l = 0; l < c->n_layer; l++) {
		struct gpt_layer_off *L = &lay->layer[l];
		L->wqkv = layout_take(&at, d * 3 * d);
		L->wo = layout_take(&at, d * d);
		L->w1 = layout_take(&at, d * 4 * d);
		L->w2 = layout_take(&at, 4 * d * d);
	}
	lay->n_decay = at;
	for (int l = 0; l < c->n_layer; l++) {
		struct gpt_layer_off *L = &lay->layer[l];
		L->ln1_g = layout_take(&at, d);
		L->ln1_b = layout_take(&at, d);
		L->ln2_g = layout_take(&at, d);
		L->ln2_b = layout_take(&at, d);
	}
	lay->lnf_g = layout_take(&at, d);
	lay->lnf_b = layout_take(&at, d);
	lay->count = at;
}

static void init_normal(float *p, size_t n, float std, uint64_t seed)
{
	init_normal_kernel<<<elem_blocks((long long)n), 256>>>(p, (long long)n, std, seed);
	LAUNCH_CHECK("init_normal_kernel");
}

static void init_fill(float *p, size_t n, float v)
{
	fill_kernel<<<elem_blocks((long long)n), 256>>>(p, (long long)n, v);
	LAUNCH_CHECK("fill_kernel");
}

// GPT-2's initialisation: N(0, 0.02), the projections back into the
// residual stream scaled by 1/sqrt(2 L), layernorm gains 1 and biases 0.
// Each tensor draws from its own stream of the seed.
static void gpt_model_init(struct gpt_model *m, const struct gpt_config *c, uint64_t seed)
{
	gpt_config_validate(c);
	m->cfg = *c;
	gpt_layout_init(&m->lay, c);
	const struct gpt_layout *lay = &m->lay;
	size_t d = c->d_model;
	CUDA_CHECK(cudaMalloc(&m->param, lay->count * sizeof(float)));
	CUDA_CHECK(cudaMalloc(&m->param16, lay->count * sizeof(bf16)));
	CUDA_CHECK(cudaMemset(m->param, 0, lay->count * sizeof(float)));
	float proj = 0.02f / sqrtf(2.0f * c->n_layer);
	uint64_t s = mix64(seed);
	init_normal(m->param + lay->wte, (size_t)c->vocab * d, 0.02f, s + 1);
	init_normal(m->param + lay->wpe, (size_t)c->seq * d, 0.01f, s + 2);
	init_normal(m->param + lay->lm, d * c->vocab, 0.02f, s + 3);
	for (int l = 0; l < c->n_layer; l++) {
		const struct gpt_layer_off *L = &lay->layer[l];
		uint64_t ls = s + 16 * (uint64_t)(l + 1);
		init_normal(m->param + L->wqkv, d * 3 * d, 0.02f, ls + 1);
		init_normal(m->param + L->wo, d * d, proj, ls + 2);
		init_normal(m->param + L->w1, d * 4 * d, 0.02f, ls + 3);
		init_normal(m->param + L->w2, 4 * d * d, proj, ls + 4);
		init_fill(m->param + L->ln1_g, d, 1.0f);
		init_fill(m->param + L->ln2_g, d, 1.0f);
	}
	init_fill(m->param + lay->lnf_g, d, 1.0f);
	cast_bf16_kernel<<<elem_blocks((long long)lay->count), 256>>>(m->param, m->param16,
								     (long long)lay->count);
	LAUNCH_CHECK("cast_bf16_kernel");
	CUDA_CHECK(cudaDeviceSynchronize());
}

static void gpt_model_free(struct gpt_model *m)
{
	cudaFree(m->param);
	cudaFree(m->param16);
}

// Activations of a forward pass, every layer's kept for the backward pass.
// Sized for at most max_tokens tokens of sequences up to the model's seq.
struct gpt_acts {
	long long max_tokens;
	float *x;                          // [L+1][N][D] residual stream entering each layer, then out
	float *xmid;                       // [L][N][D]   after attention
	bf16 *xn1, *xn2;                   // [L][N][D]   layernorm outputs
	float *mean1, *rstd1, *mean2, *rstd2; // [L][N]
	bf16 *qkv;                         // [L][N][3D]
	bf16 *att;                         // [L][B*H][T][T] attention probabilities
	bf16 *o;                           // [L][N][D]   attention output, heads side by side
	bf16 *hpre, *h;                    // [L][N][4D]  MLP pre-activation and GELU
	bf16 *xf;                          // [N][D]      final layernorm
	float *meanf, *rstdf;              // [N]
	float *s;                          // [B*H][T][T] scores (scratch)
	float *logits;                     // [N][V]
};

static void *dev_alloc(size_t bytes)
{
	void *p;
	CUDA_CHECK(cudaMalloc(&p, bytes));
	return p;
}

static void gpt_acts_alloc(struct gpt_acts *a, const struct gpt_config *c, long long max_tokens)
{
	size_t L = c->n_layer, N = max_tokens, D = c->d_model, T = c->seq;
	size_t att = N * c->n_head * T; // B*H*T*T with B = N / T
	memset(a, 0, sizeof(*a));
	a->max_tokens = max_tokens;
	a->x = (float *)dev_alloc((L + 1) * N * D * sizeof(float));
	a->xmid = (float *)dev_alloc(L * N * D * sizeof(float));
	a->xn1 = (bf16 *)dev_alloc(L * N * D * sizeof(bf16));
	a->xn2 = (bf16 *)dev_alloc(L * N * D * sizeof(bf16));
	a->mean1 = (float *)dev_alloc(L * N * sizeof(float));
	a->rstd1 = (float *)dev_alloc(L * N * sizeof(float));
	a->mean2 = (float *)dev_alloc(L * N * sizeof(float));
	a->rstd2 = (float *)dev_alloc(L * N * sizeof(float));
	a->qkv = (bf16 *)dev_alloc(L * N * 3 * D * sizeof(bf16));
	a->att = (bf16 *)dev_alloc(L * att * sizeof(bf16));
	a->o = (bf16 *)dev_alloc(L * N * D * sizeof(bf16));
	a->hpre = (bf16 *)dev_alloc(L * N * 4 * D * sizeof(bf16));
	a->h = (bf16 *)dev_alloc(L * N * 4 * D * sizeof(bf16));
	a->xf = (bf16 *)dev_alloc(N * D * sizeof(bf16));
	a->meanf = (float *)dev_alloc(N * sizeof(float));
	a->rstdf = (float *)dev_alloc(N * sizeof(float));
	a->s = (float *)dev_alloc(att * sizeof(float));
	a->logits = (float *)dev_alloc(N * c->vocab * sizeof(float));
}

static void gpt_acts_free(struct gpt_acts *a)
{
	void *p[] = {a->x,   a->xmid, a->xn1,  a->xn2,   a->mean1, a->rstd1, a->mean2,
		     a->rstd2, a->qkv, a->att, a->o,     a->hpre,  a->h,     a->xf,
		     a->meanf, a->rstdf, a->s, a->logits};
	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		cudaFree(p[i]);
}

// Batched attention operands: z = b * H + h.  A head of Q, K or V (or of
// their gradients) is a [T][hd] column slice of a [N][ld] buffer; scores
// and probabilities are dense [T][T] per z.
struct attn_shape {
	int B, T, H, hd;
};

static void attn_batch_a(struct gemm_args *g, const struct attn_shape *s, long long ld_heads,
			 int a_is_head)
{
	long long tt = (long long)s->T * s->T;
	g->zdiv = s->H;
	g->sa_o = a_is_head ? s->T * ld_heads : s->H * tt;
	g->sa_i = a_is_head ? s->hd : tt;
}

static void attn_batch_b(struct gemm_args *g, const struct attn_shape *s, long long ld_heads,
			 int b_is_head)
{
	long long tt = (long long)s->T * s->T;
	g->sb_o = b_is_head ? s->T * ld_heads : s->H * tt;
	g->sb_i = b_is_head ? s->hd : tt;
}

static void attn_batch_c(struct gemm_args *g, const struct attn_shape *s, long long ld_heads,
			 int c_is_head)
{
	long long tt = (long long)s->T * s->T;
	g->sc_o = c_is_head ? s->T * ld_heads : s->H * tt;
	g->sc_i = c_is_head ? s->hd : tt;
}

static void layernorm_fwd(const float *x, const float *g, const float *b, bf16 *y, float *mean,
			  float *rstd, int rows, int d, cudaStream_t st)
{
	layernorm_fwd_kernel<<<row_blocks(rows), ROW_THREADS, 0, st>>>(x, g, b, y, mean, rstd, rows,
									d);
	LAUNCH_CHECK("layernorm_fwd_kernel");
}

// Causal self-attention of layer l: qkv -> att (probabilities) -> o.
static void gpt_attention_fwd(const struct gpt_model *m, struct gpt_acts *a, int l, int B, int T,
			      cudaStream_t st)
{
	const struct gpt_config *c = &m->cfg;
	int D = c->d_model, N = B * T;
	struct attn_shape sh = {B, T, c->n_head, D / c->n_head};
	int BH = B * sh.H;
	bf16 *qkv = a->qkv + (size_t)l * N * 3 * D;
	bf16 *att = a->att + (size_t)l * N * sh.H * T;
	bf16 *o = a->o + (size_t)l * N * D;

	// S = Q K^T / sqrt(hd): K's head slice is [T][hd] = op(B)^T, so tb = 1.
	struct gemm_args g = gemm_args_make(qkv, 3 * D, qkv + D, 3 * D, a->s, T, T, T, sh.hd);
	g.alpha = 1.0f / sqrtf((float)sh.hd);
	attn_batch_a(&g, &sh, 3 * D, 1);
	attn_batch_b(&g, &sh, 3 * D, 1);
	attn_batch_c(&g, &sh, 3 * D, 0);
	gemm_launch(0, 1, 0, &g, BH, st);

	softmax_causal_fwd_kernel<<<row_blocks((long long)BH * T), ROW_THREADS, 0, st>>>(
		a->s, att, (long long)BH * T, T);
	LAUNCH_CHECK("softmax_causal_fwd_kernel");

	// O = P V, written straight into the heads' columns of o.
	g = gemm_args_make(att, T, qkv + 2 * D, 3 * D, o, D, T, sh.hd, T);
	attn_batch_a(&g, &sh, 3 * D, 0);
	attn_batch_b(&g, &sh, 3 * D, 1);
	attn_batch_c(&g, &sh, D, 1);
	gemm_launch(0, 0, 1, &g, BH, st);
}

// The forward pass over B sequences of T tokens (d_tokens on the device).
// last_only: logits only for each sequence's last position ([B][V], what a
// server returns) instead of every position ([N][V], what training needs).
static void gpt_forward(const struct gpt_model *m, struct gpt_acts *a, const int *d_tokens, int B,
			int T, int last_only, cudaStream_t st)
{
	const struct gpt_config *c = &m->cfg;
	const struct gpt_layout *lay = &m->lay;
	int D = c->d_model, N = B * T;
	if ((long long)N > a->max_tokens || T > c->seq || T % 8)
		fatal("forward: batch larger than allocated or bad sequence length");
	const float *P = m->param;
	const bf16 *W = m->param16;

	embedding_fwd_kernel<<<elem_blocks((long long)N * D), 256, 0, st>>>(
		d_tokens, P + lay->wte, P + lay->wpe, a->x, N, T, D);
	LAUNCH_CHECK("embedding_fwd_kernel");
	for (int l = 0; l < c->n_layer; l++) {
		const struct gpt_layer_off *L = &lay->layer[l];
		size_t nd = (size_t)l * N * D;
		float *x = a->x + nd, *xmid = a->xmid + nd, *xnext = a->x + nd + (size_t)N * D;
		bf16 *hpre = a->hpre + 4 * nd, *h = a->h + 4 * nd;

		layernorm_fwd(x, P + L->ln1_g, P + L->ln1_b, a->xn1 + nd, a->mean1 + (size_t)l * N,
			      a->rstd1 + (size_t)l * N, N, D, st);
		struct gemm_args g = gemm_args_make(a->xn1 + nd, D, W + L->wqkv, 3 * D,
						    a->qkv + 3 * nd, 3 * D, N, 3 * D, D);
		gemm_launch(0, 0, 1, &g, 1, st);
		gpt_attention_fwd(m, a, l, B, T, st);
		g = gemm_args_make(a->o + nd, D, W + L->wo, D, xmid, D, N, D, D);
		g.res = x;
		gemm_launch(0, 0, 0, &g, 1, st);

		layernorm_fwd(xmid, P + L->ln2_g, P + L->ln2_b, a->xn2 + nd, a->mean2 + (size_t)l * N,
			      a->rstd2 + (size_t)l * N, N, D, st);
		g = gemm_args_make(a->xn2 + nd, D, W + L->w1, 4 * D, hpre, 4 * D, N, 4 * D, D);
		gemm_launch(0, 0, 1, &g, 1, st);
		gelu_fwd_kernel<<<elem_blocks(4LL * N * D), 256, 0, st>>>(hpre, h, 4LL * N * D);
		LAUNCH_CHECK("gelu_fwd_kernel");
		g = gemm_args_make(h, 4 * D, W + L->w2, D, xnext, D, N, D, 4 * D);
		g.res = xmid;
		gemm_launch(0, 0, 0, &g, 1, st);
	}
	layernorm_fwd(a->x + (size_t)c->n_layer * N * D, P + lay->lnf_g, P + lay->lnf_b, a->xf,
		      a->meanf, a->rstdf, N, D, st);
	// The last position of sequence b is row b * T + T - 1: rows T*D apart.
	struct gemm_args g = last_only
		? gemm_args_make(a->xf + (size_t)(T - 1) * D, T * D, W + lay->lm, c->vocab,
				 a->logits, c->vocab, B, c->vocab, D)
		: gemm_args_make(a->xf, D, W + lay->lm, c->vocab, a->logits, c->vocab, N,
				 c->vocab, D);
	gemm_launch(0, 0, 0, &g, 1, st);
}

#endif
