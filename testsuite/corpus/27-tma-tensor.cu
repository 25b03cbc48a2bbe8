// RUN: %corpus-check %s
// 27-tma-tensor.cu
// PTX features meant to be emitted:
//   - kernel params of type CUtensorMap passed as __grid_constant__:
//     .param .align 128 .b8 name_param_0[128] (CUtensorMap is 128-byte aligned
//     in CUDA 13), and a 64-byte aligned 128-byte descriptor struct:
//     .param .align 64 .b8 name_param_0[128]
//   - taking the address of a grid-constant param (generic address of a
//     kernel parameter: cvta.param / mov of the param symbol)
//   - cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
//     [smem], [tmap, {x, y}], [mbar]   (sm_90 and up)
//   - cp.async.bulk.tensor.3d / .5d loads, .im2col mode with offsets
//   - cp.async.bulk.tensor.2d.global.shared::cta.bulk_group (TMA store),
//     cp.reduce.async.bulk.tensor.2d...add (TMA reduce)
//   - cp.async.bulk.prefetch.tensor.2d.L2.global, prefetch.tensormap
//   - tensormap.replace.tile.global_address / .rank / box_dim (sm_90a),
//     tensormap.cp_fenceproxy, fence.proxy.tensormap::generic (sm_90)
// NVCC-EXTRA-FLAGS: -std=c++17
// EXTRA-ARCHS: sm_100a

#include <cuda.h>
#include <cuda/ptx>
#include <cstdint>

namespace ptx = cuda::ptx;

__global__ void tma_load_store(const __grid_constant__ CUtensorMap tmap_in,
                               const __grid_constant__ CUtensorMap tmap_out, int tiles_x,
                               int tiles_y)
{
    __shared__ alignas(128) float tile[64 * 64];
    __shared__ alignas(8) uint64_t bar;
#if __CUDA_ARCH__ >= 900
    int t = threadIdx.x;
    if (t == 0) {
        ptx::mbarrier_init(&bar, 1);
        ptx::fence_proxy_async(ptx::space_shared);
        asm volatile("prefetch.tensormap [%0];" ::"l"(&tmap_in) : "memory");
    }
    __syncthreads();
    uint32_t parity = 0;
    for (int ty = blockIdx.y; ty < tiles_y; ty += gridDim.y) {
        for (int tx = blockIdx.x; tx < tiles_x; tx += gridDim.x) {
            if (t == 0) {
                int32_t coords[2] = {tx * 64, ty * 64};
                ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile, &tmap_in,
                                          coords, &bar);
                ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta,
                                               ptx::space_shared, &bar, sizeof(tile));
            }
            while (!ptx::mbarrier_try_wait_parity(&bar, parity)) {
            }
            parity ^= 1;
            for (int i = t; i < 64 * 64; i += blockDim.x)
                tile[i] = tile[i] * 0.5f + 1.0f;
            ptx::fence_proxy_async(ptx::space_shared);
            __syncthreads();
            if (t == 0) {
                int32_t coords[2] = {tx * 64, ty * 64};
                ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &tmap_out, coords,
                                          tile);
                ptx::cp_async_bulk_commit_group();
                ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
            }
            __syncthreads();
        }
    }
#else
    (void)tmap_in;
    (void)tmap_out;
    (void)tiles_x;
    (void)tiles_y;
    (void)tile;
    (void)bar;
#endif
}

// Inline-PTX forms: 3-D/5-D tile loads, im2col, reduce, prefetch.
__global__ void tma_inline(const __grid_constant__ CUtensorMap tm3, const __grid_constant__ CUtensorMap tm5,
                           const __grid_constant__ CUtensorMap tmi, int x, int y, int z)
{
    __shared__ alignas(1024) unsigned char smem[16384];
    __shared__ alignas(8) unsigned long long bar;
#if __CUDA_ARCH__ >= 900
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
        asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];"
                     ::"l"(&tm3), "r"(x), "r"(y) : "memory");
        asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
                     "[%0], [%1, {%2, %3, %4}], [%5];"
                     ::"r"(s), "l"(&tm3), "r"(x), "r"(y), "r"(z), "r"(b) : "memory");
        asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
                     "[%0], [%1, {%2, %3, %4, %2, %3}], [%5];"
                     ::"r"(s + 4096), "l"(&tm5), "r"(x), "r"(y), "r"(z), "r"(b) : "memory");
        asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes "
                     "[%0], [%1, {%2, %3, %4, %2}], [%5], {%6, %7};"
                     ::"r"(s + 8192), "l"(&tmi), "r"(x), "r"(y), "r"(z), "r"(b),
                       "h"((unsigned short)1), "h"((unsigned short)2) : "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 12288;" ::"r"(b) : "memory");
    }
    __syncthreads();
    asm volatile("{\n\t"
                 ".reg .pred p;\n"
                 "WAIT_TMA:\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n\t"
                 "@!p bra WAIT_TMA;\n\t"
                 "}" ::"r"(b) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.tile.bulk_group "
                     "[%0, {%1, %2, %3}], [%4];"
                     ::"l"(&tm3), "r"(x), "r"(y), "r"(z), "r"(s) : "memory");
        asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3}], [%4];"
                     ::"l"(&tm3), "r"(x + 64), "r"(y), "r"(z), "r"(s) : "memory");
        asm volatile("cp.async.bulk.commit_group;");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
#else
    (void)tm3;
    (void)tm5;
    (void)tmi;
    (void)x;
    (void)y;
    (void)z;
    (void)smem;
    (void)bar;
#endif
}

// Modify a tensor map in global memory (sm_90a: tensormap.replace), then
// make it visible to the async proxy.
__global__ void tensormap_edit(CUtensorMap *gmaps, const __grid_constant__ CUtensorMap tmpl,
                               void *new_base, int new_dim)
{
    __shared__ alignas(128) CUtensorMap smap;
    if (threadIdx.x == 0)
        smap = tmpl;
    __syncwarp();
#if defined(__CUDA_ARCH_FEAT_SM90_ALL) || defined(__CUDA_ARCH_FEAT_SM100_ALL)
    if (threadIdx.x == 0) {
        ptx::tensormap_replace_global_address(ptx::space_shared, &smap, (uint64_t)new_base);
        ptx::tensormap_replace_rank(ptx::space_shared, &smap, 1u);
        ptx::tensormap_replace_box_dim(ptx::space_shared, &smap, ptx::n32_t<0>(), 64u);
        ptx::tensormap_replace_global_dim(ptx::space_shared, &smap, ptx::n32_t<1>(), (uint32_t)new_dim);
        ptx::tensormap_replace_global_stride(ptx::space_shared, &smap, ptx::n32_t<0>(), (uint64_t)4096);
        asm volatile("tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%0], 7;"
                     ::"r"((unsigned)__cvta_generic_to_shared(&smap)) : "memory");
    }
    __syncwarp();
    if (threadIdx.x < 32) {
        asm volatile("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned "
                     "[%0], [%1], 128;"
                     ::"l"(gmaps + blockIdx.x), "r"((unsigned)__cvta_generic_to_shared(&smap))
                     : "memory");
    }
#elif __CUDA_ARCH__ >= 900
    if (threadIdx.x == 0)
        gmaps[blockIdx.x] = smap;
    (void)new_base;
    (void)new_dim;
#else
    if (threadIdx.x == 0)
        gmaps[blockIdx.x] = smap;
    (void)new_base;
    (void)new_dim;
#endif
#if __CUDA_ARCH__ >= 900
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(gmaps + blockIdx.x)
                 : "memory");
    asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
#endif
}

// A 128-byte descriptor with 64-byte alignment as a grid-constant param.
struct alignas(64) Desc128 {
    unsigned long long words[16];
};

__global__ void grid_constant_desc(const __grid_constant__ Desc128 d, unsigned long long *out)
{
    const unsigned long long *p = &d.words[threadIdx.x & 15];   // address of a param
    out[threadIdx.x] = *p + d.words[0];
}
