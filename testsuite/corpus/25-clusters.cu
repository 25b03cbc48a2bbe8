// RUN: %corpus-check %s
// 25-clusters.cu
// PTX features meant to be emitted (sm_90 and up; other targets get plain
// kernels with the cluster parts compiled out):
//   - .explicitcluster / .reqnctapercluster 2, 1, 1 (__cluster_dims__)
//   - %clusterid, %nclusterid, %cluster_ctaid, %cluster_nctaid,
//     %cluster_ctarank, %cluster_nctarank, %is_explicit_cluster
//   - barrier.cluster.arrive / barrier.cluster.wait (cluster.sync()),
//     barrier.cluster.arrive.relaxed / .release, wait.acquire (inline asm)
//   - distributed shared memory: mapa.shared::cluster (map_shared_rank),
//     ld.shared::cluster / st.shared::cluster / atom.shared::cluster,
//     getctarank, isspacep.shared::cluster
//   - cp.async.bulk.shared::cluster.shared::cta (DSMEM bulk copy), multicast
//     mbarrier arrive to a remote CTA (mbarrier.arrive.shared::cluster)
// NVCC-EXTRA-FLAGS: -std=c++17
// EXTRA-ARCHS: sm_100a sm_120

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#if __CUDA_ARCH__ >= 900
#define CLUSTER_2 __cluster_dims__(2, 1, 1)
#define CLUSTER_4x2 __cluster_dims__(4, 2, 1)
#else
#define CLUSTER_2
#define CLUSTER_4x2
#endif

__global__ void CLUSTER_2 cluster_histogram(const int *in, int *out, int nbins, int n)
{
    extern __shared__ int hist[];
#if __CUDA_ARCH__ >= 900
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    unsigned csize = cluster.num_blocks();
    for (int i = threadIdx.x; i < nbins; i += blockDim.x)
        hist[i] = 0;
    cluster.sync();
    int bins_per_block = nbins / (int)csize;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int bin = in[i] % nbins;
        int dst = bin / bins_per_block;
        int *remote = cluster.map_shared_rank(hist, dst);
        atomicAdd(remote + bin % bins_per_block, 1);
    }
    cluster.sync();
    int *mine = cluster.map_shared_rank(hist, (int)rank);
    for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x)
        atomicAdd(&out[rank * bins_per_block + i], mine[i]);
    cluster.sync();
#else
    for (int i = threadIdx.x; i < nbins; i += blockDim.x)
        hist[i] = in[i];
    __syncthreads();
    out[threadIdx.x] = hist[threadIdx.x % nbins];
#endif
}

__global__ void CLUSTER_4x2 cluster_ids(unsigned *out)
{
#if __CUDA_ARCH__ >= 900
    unsigned cid_x, ncid_x, cctaid_x, cctaid_y, cnctaid_x, crank, cnrank, expl;
    asm("mov.u32 %0, %%clusterid.x;" : "=r"(cid_x));
    asm("mov.u32 %0, %%nclusterid.x;" : "=r"(ncid_x));
    asm("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(cctaid_x));
    asm("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(cctaid_y));
    asm("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(cnctaid_x));
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(crank));
    asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(cnrank));
    asm("{\n\t.reg .pred p;\n\t"
        "mov.pred p, %%is_explicit_cluster;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}" : "=r"(expl));
    cg::cluster_group cluster = cg::this_cluster();
    dim3 bi = cluster.block_index();
    unsigned t = threadIdx.x + blockIdx.x * blockDim.x;
    out[t * 10 + 0] = cid_x;
    out[t * 10 + 1] = ncid_x;
    out[t * 10 + 2] = cctaid_x + cctaid_y;
    out[t * 10 + 3] = cnctaid_x;
    out[t * 10 + 4] = crank;
    out[t * 10 + 5] = cnrank;
    out[t * 10 + 6] = expl;
    out[t * 10 + 7] = bi.x + bi.y;
    out[t * 10 + 8] = cluster.dim_blocks().x;
    out[t * 10 + 9] = cluster.thread_rank();
    // Split arrive/wait forms.
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
    asm volatile("barrier.cluster.arrive.release;" ::: "memory");
    asm volatile("barrier.cluster.wait.acquire;" ::: "memory");
#else
    out[threadIdx.x] = blockIdx.x;
#endif
}

// Raw DSMEM access through mapa / ld.shared::cluster / getctarank.
__global__ void CLUSTER_2 dsmem_raw(int *out)
{
    __shared__ int buf[128];
    __shared__ alignas(8) unsigned long long bar;
    int t = threadIdx.x;
    buf[t] = t * 3;
#if __CUDA_ARCH__ >= 900
    unsigned me, peer_addr, local_addr = (unsigned)__cvta_generic_to_shared(&buf[t]);
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(me));
    if (t == 0)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;"
                     ::"r"((unsigned)__cvta_generic_to_shared(&bar)));
    asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" ::: "memory");
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(peer_addr) : "r"(local_addr), "r"(me ^ 1));
    int v;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(peer_addr));
    asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(peer_addr + 4), "r"(v + 1));
    int old;
    asm volatile("atom.shared::cluster.add.u32 %0, [%1], 1;" : "=r"(old) : "r"(peer_addr));
    // Generic-address forms.
    unsigned long long gaddr = (unsigned long long)&buf[t], gpeer;
    asm volatile("mapa.u64 %0, %1, %2;" : "=l"(gpeer) : "l"(gaddr), "r"(me ^ 1));
    unsigned owner;
    asm volatile("getctarank.u64 %0, %1;" : "=r"(owner) : "l"(gpeer));
    unsigned owner2;
    asm volatile("getctarank.shared::cluster.u32 %0, %1;" : "=r"(owner2) : "r"(peer_addr));
    int is_cluster;
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "isspacep.shared::cluster p, %1;\n\t"
                 "selp.s32 %0, 1, 0, p;\n\t}" : "=r"(is_cluster) : "l"(gpeer));
    // Arrive on the peer CTA's mbarrier.
    unsigned peer_bar;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                 : "=r"(peer_bar) : "r"((unsigned)__cvta_generic_to_shared(&bar)), "r"(me ^ 1));
    if (t == 0)
        asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(peer_bar)
                     : "memory");
    // DSMEM bulk copy: local smem -> peer smem, completing on the peer's mbarrier.
    if (t == 0)
        asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes "
                     "[%0], [%1], 256, [%2];"
                     ::"r"(peer_addr), "r"((unsigned)__cvta_generic_to_shared(buf)), "r"(peer_bar)
                     : "memory");
    asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" ::: "memory");
    out[blockIdx.x * blockDim.x + t] = v + old + (int)owner + (int)owner2 + is_cluster;
#else
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = buf[(t + 1) & 127] + (int)bar;
#endif
}
