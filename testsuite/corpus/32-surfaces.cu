// RUN: %corpus-check %s
// 32-surfaces.cu
// PTX features meant to be emitted (bindless surface objects):
//   - suld.b.1d / .2d / .3d / .a2d with .b8/.b16/.b32/.b64 and .v2/.v4
//     element forms, .trap / .clamp / .zero boundary modes
//   - sust.b.1d / .2d / .3d / .a1d / .a2d stores of the same shapes
//   - surfCubemap read/write (suld.b.a2d with a layer index)
//   - suq.width / .height / .depth / .channel_order (inline)
//   - sured.b.add.2d.u32.trap surface reduction (inline)
// EXTRA-ARCHS: sm_75

#include <cuda_runtime.h>

__global__ void surf_1d(cudaSurfaceObject_t s, cudaSurfaceObject_t layered, int n)
{
    int x = threadIdx.x;
    float v = surf1Dread<float>(s, x * 4);
    uchar4 c = surf1Dread<uchar4>(s, x * 4 + 4 * n, cudaBoundaryModeClamp);
    surf1Dwrite(v * 2.0f, s, x * 4);
    surf1Dwrite(make_uchar4(c.w, c.z, c.y, c.x), s, x * 4 + 4 * n, cudaBoundaryModeZero);
    float2 l = surf1DLayeredread<float2>(layered, x * 8, 1);
    surf1DLayeredwrite(make_float2(l.y, l.x), layered, x * 8, 2);
}

__global__ void surf_2d(cudaSurfaceObject_t s, cudaSurfaceObject_t s16, cudaSurfaceObject_t s64)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    float4 a = surf2Dread<float4>(s, x * 16, y);
    int b = surf2Dread<int>(s, x * 4, y + 1, cudaBoundaryModeTrap);
    short2 c = surf2Dread<short2>(s16, x * 4, y);
    unsigned short d = surf2Dread<unsigned short>(s16, x * 2, y, cudaBoundaryModeZero);
    unsigned long long e = surf2Dread<unsigned long long>(s64, x * 8, y);
    longlong2 f = surf2Dread<longlong2>(s64, x * 16, y, cudaBoundaryModeClamp);
    surf2Dwrite(make_float4(a.w, a.z, a.y, a.x + (float)b), s, x * 16, y);
    surf2Dwrite(make_short2(c.y, c.x), s16, x * 4, y, cudaBoundaryModeClamp);
    surf2Dwrite((unsigned short)(d + 1), s16, x * 2, y + 1);
    surf2Dwrite(e ^ 0xffull, s64, x * 8, y);
    surf2Dwrite(make_longlong2(f.y, f.x), s64, x * 16, y + 1, cudaBoundaryModeZero);
    char cc = surf2Dread<char>(s16, x, y);
    surf2Dwrite((char)(cc + 1), s16, x, y + 2);
}

__global__ void surf_3d_layered_cube(cudaSurfaceObject_t s3, cudaSurfaceObject_t sl,
                                     cudaSurfaceObject_t sc)
{
    int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
    float4 a = surf3Dread<float4>(s3, x * 16, y, z);
    surf3Dwrite(make_float4(a.x * 2.0f, a.y, a.z, a.w), s3, x * 16, y, z);
    int2 b = surf2DLayeredread<int2>(sl, x * 8, y, z);
    surf2DLayeredwrite(make_int2(b.y, b.x), sl, x * 8, y, z + 1);
    uint4 c = surfCubemapread<uint4>(sc, x * 16, y, z % 6);
    surfCubemapwrite(make_uint4(c.w, c.z, c.y, c.x), sc, x * 16, y, (z + 1) % 6);
}

__global__ void surf_queries(cudaSurfaceObject_t s, int *out)
{
    int w, h, d, order, fmt;
    asm("suq.width.b32 %0, [%1];" : "=r"(w) : "l"(s));
    asm("suq.height.b32 %0, [%1];" : "=r"(h) : "l"(s));
    asm("suq.depth.b32 %0, [%1];" : "=r"(d) : "l"(s));
    asm("suq.channel_order.b32 %0, [%1];" : "=r"(order) : "l"(s));
    asm("suq.channel_data_type.b32 %0, [%1];" : "=r"(fmt) : "l"(s));
    asm volatile("sured.b.add.2d.u32.trap [%0, {%1, %2}], %3;"
                 ::"l"(s), "r"((int)threadIdx.x * 4), "r"(0), "r"(1u) : "memory");
    asm volatile("sured.b.max.1d.s32.clamp [%0, {%1}], %2;"
                 ::"l"(s), "r"((int)threadIdx.x * 4), "r"(7) : "memory");
    int ist;
    asm("{\n\t.reg .pred p;\n\t"
        "istypep.surfref p, %1;\n\t"
        "selp.s32 %0, 1, 0, p;\n\t}" : "=r"(ist) : "l"(s));
    out[threadIdx.x] = w + h + d + order + fmt + ist;
}
