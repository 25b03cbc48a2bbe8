// RUN: %corpus-check %s
// 31-textures.cu
// PTX features meant to be emitted (bindless texture objects, .u64 handles):
//   - tex.1d.v4.f32.s32 (tex1Dfetch), tex.1d.v4.f32.f32 (tex1D)
//   - tex.2d.v4.f32.f32 / .v4.s32.f32 / .v4.u32.f32 (tex2D of several types)
//   - tex.level.2d (tex2DLod), tex.grad.2d (tex2DGrad), tex.3d (tex3D),
//     tex.a2d (tex2DLayered), tex.a1d, tex.cube / tex.acube (cubemaps)
//   - tld4.r/.g/.b/.a.2d.v4.f32.f32 (tex2Dgather with each component)
//   - sparse-residency form with a predicate destination
//     tex.2d.v4.f32.f32 {..}|%p (tex2D with isResident)
//   - txq.width/.height/.depth/.num_mipmap_levels/.channel_order .b32 (inline)
//   - istypep.texref / istypep.samplerref (inline)
// EXTRA-ARCHS: sm_75

#include <cuda_runtime.h>

__global__ void fetches(cudaTextureObject_t lin, cudaTextureObject_t t1, float4 *out, int n)
{
    int i = threadIdx.x;
    float4 a = tex1Dfetch<float4>(lin, i);
    int b = tex1Dfetch<int>(lin, i + n);
    float c = tex1D<float>(t1, (float)i + 0.5f);
    float4 d = tex1DLod<float4>(t1, (float)i * 0.25f, 1.0f);
    out[i] = make_float4(a.x + c, a.y + (float)b, a.z + d.x, a.w + d.w);
}

__global__ void sample_2d(cudaTextureObject_t tf, cudaTextureObject_t ti, cudaTextureObject_t tu,
                          float4 *out, int4 *outi, uint4 *outu, float2 *uv)
{
    int i = threadIdx.x;
    float2 p = uv[i];
    float4 a = tex2D<float4>(tf, p.x, p.y);
    float4 l = tex2DLod<float4>(tf, p.x, p.y, 2.5f);
    float4 g = tex2DGrad<float4>(tf, p.x, p.y, make_float2(0.1f, 0.0f), make_float2(0.0f, 0.1f));
    int4 b = tex2D<int4>(ti, p.x, p.y);
    uint4 c = tex2D<uint4>(tu, p.x, p.y);
    float s = tex2D<float>(tf, p.y, p.x);
    out[i] = make_float4(a.x + l.x + g.x + s, a.y + l.y, a.z + g.z, a.w);
    outi[i] = b;
    outu[i] = c;
}

__global__ void sample_3d_layered_cube(cudaTextureObject_t t3, cudaTextureObject_t tl,
                                       cudaTextureObject_t tl1, cudaTextureObject_t tc,
                                       cudaTextureObject_t tcl, float4 *out, const float4 *coords)
{
    int i = threadIdx.x;
    float4 q = coords[i];
    float4 a = tex3D<float4>(t3, q.x, q.y, q.z);
    float4 a2 = tex3DLod<float4>(t3, q.x, q.y, q.z, 1.0f);
    float4 b = tex2DLayered<float4>(tl, q.x, q.y, i & 7);
    float4 b2 = tex2DLayeredLod<float4>(tl, q.x, q.y, i & 3, 0.5f);
    float c = tex1DLayered<float>(tl1, q.x, i & 3);
    float4 d = texCubemap<float4>(tc, q.x, q.y, q.z);
    float4 e = texCubemapLayered<float4>(tcl, q.x, q.y, q.z, i & 1);
    out[i] = make_float4(a.x + a2.x + b.x + b2.x, c + d.y, d.z + e.z, e.w + a.w);
}

__global__ void gathers(cudaTextureObject_t tex, float4 *out, const float2 *uv)
{
    int i = threadIdx.x;
    float2 p = uv[i];
    float4 r = tex2Dgather<float4>(tex, p.x, p.y, 0);
    float4 g = tex2Dgather<float4>(tex, p.x, p.y, 1);
    float4 b = tex2Dgather<float4>(tex, p.x, p.y, 2);
    float4 a = tex2Dgather<float4>(tex, p.x, p.y, 3);
    out[i] = make_float4(r.x + r.y, g.z + g.w, b.x + b.w, a.y + a.z);
}

__global__ void sparse_sample(cudaTextureObject_t tex, float4 *out, int *resident, const float2 *uv)
{
    int i = threadIdx.x;
    bool is_res = false;
    float4 v = tex2D<float4>(tex, uv[i].x, uv[i].y, &is_res);
    out[i] = v;
    resident[i] = is_res ? 1 : 0;
}

// Texture queries through inline PTX.
__global__ void queries(cudaTextureObject_t tex, int *out)
{
    int w, h, d, lv, order, ist;
    asm("txq.width.b32 %0, [%1];" : "=r"(w) : "l"(tex));
    asm("txq.height.b32 %0, [%1];" : "=r"(h) : "l"(tex));
    asm("txq.depth.b32 %0, [%1];" : "=r"(d) : "l"(tex));
    asm("txq.num_mipmap_levels.b32 %0, [%1];" : "=r"(lv) : "l"(tex));
    asm("txq.channel_order.b32 %0, [%1];" : "=r"(order) : "l"(tex));
    asm("{\n\t.reg .pred p;\n\t"
        "istypep.texref p, %1;\n\t"
        "selp.s32 %0, 1, 0, p;\n\t}" : "=r"(ist) : "l"(tex));
    int lvw;
    asm("txq.level.width.b32 %0, [%1], %2;" : "=r"(lvw) : "l"(tex), "r"(1));
    out[threadIdx.x] = w + h + d + lv + order + ist + lvw;
}
