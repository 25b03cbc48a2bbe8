// Grid-stride loops in one, two and three dimensions, over sizes that no
// grid or block shape divides.  In the sliced form every slice must still
// stride by the whole grid (gridDim is the original grid), and in the
// persistent form each virtual block must cover exactly its own elements.

// y[i] = a * x[i] + y[i] over a 1-D grid-stride loop with a 64-bit index.
extern "C" __global__ void gs_saxpy_f32(float *y, const float *x, float a, int n)
{
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n; i += stride)
        y[i] = a * x[i] + y[i];
}
// CASE: name=gs_saxpy_37x128 kernel=gs_saxpy_f32 grid=37 block=128
// PARAM: buf f32 100003 rand
// PARAM: buf f32 100003 rand
// PARAM: f32 2.5
// PARAM: i32 100003
// CASE: name=gs_saxpy_1x1024 kernel=gs_saxpy_f32 grid=1 block=1024
// PARAM: buf f32 70001 rand
// PARAM: buf f32 70001 rand
// PARAM: f32 -0.75
// PARAM: i32 70001
// CASE: name=gs_saxpy_more_threads_than_items kernel=gs_saxpy_f32 grid=4096 block=32
// PARAM: buf f32 5 rand
// PARAM: buf f32 5 rand
// PARAM: f32 3.0
// PARAM: i32 5
// CASE: name=gs_saxpy_odd_block kernel=gs_saxpy_f32 grid=333 block=97
// PARAM: buf f32 262147 rand
// PARAM: buf f32 262147 rand
// PARAM: f32 0.125
// PARAM: i32 262147

// 2-D grid-stride over a rows x cols matrix; reads blockIdx.x/.y and
// gridDim.x/.y.  Each element also records how many grid passes reached it,
// which depends on gridDim.
extern "C" __global__ void gs_2d_affine(float *out, const float *in, int *pass, int rows, int cols,
                                        float s)
{
    int sy = blockDim.y * gridDim.y, sx = blockDim.x * gridDim.x;
    for (int r = blockIdx.y * blockDim.y + threadIdx.y; r < rows; r += sy) {
        for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += sx) {
            int i = r * cols + c;
            out[i] = in[i] * s + (float)(r - 2 * c);
            pass[i] = (r / sy) * 1000 + c / sx;
        }
    }
}
// CASE: name=gs_2d_7x5 kernel=gs_2d_affine grid=7,5 block=16,8
// PARAM: buf f32 172161 zero
// PARAM: buf f32 172161 rand
// PARAM: buf i32 172161 const:-1
// PARAM: i32 333
// PARAM: i32 517
// PARAM: f32 1.5
// CASE: name=gs_2d_1x1_32x32 kernel=gs_2d_affine grid=1,1 block=32,32
// PARAM: buf f32 12100 zero
// PARAM: buf f32 12100 rand
// PARAM: buf i32 12100 const:-1
// PARAM: i32 110
// PARAM: i32 110
// PARAM: f32 -2.0
// CASE: name=gs_2d_overshoot kernel=gs_2d_affine grid=64,64 block=8,8
// PARAM: buf f32 3700 zero
// PARAM: buf f32 3700 rand
// PARAM: buf i32 3700 const:-1
// PARAM: i32 100
// PARAM: i32 37
// PARAM: f32 0.5
// CASE: name=gs_2d_tall kernel=gs_2d_affine grid=3,41 block=64,2
// PARAM: buf f32 40520 zero
// PARAM: buf f32 40520 rand
// PARAM: buf i32 40520 const:-1
// PARAM: i32 1013
// PARAM: i32 40
// PARAM: f32 4.0

// 3-D grid-stride over an nx*ny*nz volume with 3-D blocks; reads every
// component of blockIdx, blockDim and gridDim.
extern "C" __global__ void gs_3d_volume(unsigned *out, const unsigned *in, int nx, int ny, int nz)
{
    for (int z = blockIdx.z * blockDim.z + threadIdx.z; z < nz; z += blockDim.z * gridDim.z)
        for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < ny; y += blockDim.y * gridDim.y)
            for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < nx; x += blockDim.x * gridDim.x) {
                size_t i = ((size_t)z * ny + y) * nx + x;
                out[i] = (in[i] * (unsigned)(x + 1) + (unsigned)(y * z)) ^ (out[i] >> 3);
            }
}
// CASE: name=gs_3d_5x3x7 kernel=gs_3d_volume grid=5,3,7 block=8,4,4
// PARAM: buf u32 40455 rand
// PARAM: buf u32 40455 rand
// PARAM: i32 45
// PARAM: i32 29
// PARAM: i32 31
// CASE: name=gs_3d_37x5x3 kernel=gs_3d_volume grid=37,5,3 block=4,4,4
// PARAM: buf u32 23400 rand
// PARAM: buf u32 23400 rand
// PARAM: i32 200
// PARAM: i32 13
// PARAM: i32 9
// CASE: name=gs_3d_single_block kernel=gs_3d_volume grid=1,1,1 block=10,10,10
// PARAM: buf u32 29791 rand
// PARAM: buf u32 29791 rand
// PARAM: i32 31
// PARAM: i32 31
// PARAM: i32 31

// 64-bit integer mixing in a grid-stride loop: multiply-high, rotates,
// 64-bit division by a data-dependent odd divisor, bit counts.
extern "C" __global__ void gs_u64_mix(unsigned long long *out, const unsigned long long *in, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        unsigned long long v = in[i] + 0x9e3779b97f4a7c15ull * (unsigned long long)(i + 1);
        v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ull;
        v = (v ^ (v >> 27)) * 0x94d049bb133111ebull;
        v ^= v >> 31;
        unsigned long long hi = __umul64hi(v, in[i] | 1ull);
        unsigned long long d = (v >> 40) | 1ull; /* odd, never zero */
        unsigned long long q = hi / d, r = hi % d;
        unsigned long long rot = (v << (i & 63)) | (v >> ((64 - (i & 63)) & 63));
        out[i] = q ^ (r << 17) ^ rot ^ ((unsigned long long)__popcll(v) << 56) ^
                 ((unsigned long long)__clzll(hi | 1ull) << 48) ^ __brevll(r);
    }
}
// CASE: name=gs_u64_29x64 kernel=gs_u64_mix grid=29 block=64
// PARAM: buf u64 50021 zero
// PARAM: buf u64 50021 rand
// PARAM: i32 50021
// CASE: name=gs_u64_1000x32 kernel=gs_u64_mix grid=1000 block=32
// PARAM: buf u64 999 zero
// PARAM: buf u64 999 rand
// PARAM: i32 999

// 8-bit input widened to 16-bit output; the loop index runs downwards from
// the end so that the last partial pass falls on the first elements.
extern "C" __global__ void gs_u8_widen(short *out, const unsigned char *in, int n)
{
    int stride = blockDim.x * gridDim.x;
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride) {
        int i = n - 1 - j;
        out[i] = (short)((int)in[i] * ((i & 7) - 3) - (int)in[(i + 1) % n]);
    }
}
// CASE: name=gs_u8_widen_11x256 kernel=gs_u8_widen grid=11 block=256
// PARAM: buf i16 77777 zero
// PARAM: buf u8 77777 rand
// PARAM: i32 77777
// CASE: name=gs_u8_widen_3x5 kernel=gs_u8_widen grid=3 block=5
// PARAM: buf i16 1001 zero
// PARAM: buf u8 1001 rand
// PARAM: i32 1001
