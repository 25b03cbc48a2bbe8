// RUN: %corpus-check %s
// 17-vector-memory.cu
// PTX features meant to be emitted:
//   - vector loads/stores: ld.global.v4.f32 / v4.u32 / v2.f64 / v2.u64 /
//     v2.f32 / v4.u16 / v2.u8 / v4.u8, ld.shared.v4 / ld.shared.v2.f64
//   - vector register lists { %f1, %f2, %f3, %f4 } and "_" sink elements
//   - cache operators via intrinsics: ld.global.cs (__ldcs), .lu (__ldlu),
//     .cv (__ldcv), .cg (__ldcg), .ca (__ldca), st.global.cg (__stcg),
//     .cs (__stcs), .wt (__stwt), .wb (__stwb)
//   - eviction hints / prefetch sizes in inline PTX:
//     ld.global.nc.L1::no_allocate.v4.f32, ld.global.L2::128B, L1::evict_last,
//     createpolicy.fractional + ld.global.L2::cache_hint (sm_80+)
//   - 256-bit accesses: ld.global.v4.f64 / v4.u64 (32-byte aligned
//     double4_32a) and ld.global.v8.f32 (sm_100 and up)
// EXTRA-ARCHS: sm_100a sm_120

__global__ void vec_types(const float4 *a4, const int4 *i4, const double2 *d2,
                          const ulonglong2 *u2, const float2 *f2, const ushort4 *s4,
                          const uchar4 *c4, float4 *o4, int4 *oi4, double2 *od2,
                          ulonglong2 *ou2, uchar2 *oc2)
{
    int t = threadIdx.x;
    float4 x = a4[t];
    int4 y = i4[t];
    double2 z = d2[t];
    ulonglong2 w = u2[t];
    float2 f = f2[t];
    ushort4 s = s4[t];
    uchar4 c = c4[t];
    o4[t] = make_float4(x.w + f.x, x.z + f.y, x.y, x.x);
    oi4[t] = make_int4(y.w, y.z + s.x, y.y + s.w, y.x + c.x + c.w);
    od2[t] = make_double2(z.y, z.x);
    ou2[t] = make_ulonglong2(w.y + 1, w.x - 1);
    oc2[t] = make_uchar2(c.y, c.z);
}

__global__ void shared_vectors(const float4 *in, float4 *out)
{
    __shared__ float4 s[128];
    __shared__ double2 sd[64];
    int t = threadIdx.x;
    s[t] = in[t];
    sd[t & 63] = make_double2(in[t].x, in[t].y);
    __syncthreads();
    float4 v = s[127 - t];
    double2 d = sd[63 - (t & 63)];
    out[t] = make_float4(v.x + (float)d.x, v.y + (float)d.y, v.z, v.w);
}

__global__ void cache_intrinsics(const float4 *in, const int *ii, const double *dd, float4 *out,
                                 int *oi, double *od)
{
    int t = threadIdx.x;
    float4 a = __ldcs(in + t);
    float4 b = __ldlu(in + t + 128);
    float4 c = __ldcv(in + t + 256);
    float4 d = __ldcg(in + t + 384);
    float4 e = __ldca(in + t + 512);
    int i0 = __ldcs(ii + t) + __ldcg(ii + t + 32) + __ldlu(ii + t + 64);
    double d0 = __ldcv(dd + t) + __ldca(dd + t + 32);
    float4 s = make_float4(a.x + b.x + c.x + d.x + e.x, a.y + b.y, c.z + d.z, e.w);
    __stcg(out + t, s);
    __stcs(out + t + 128, a);
    __stwt(out + t + 256, b);
    __stwb(out + t + 384, c);
    __stcs(oi + t, i0);
    __stwt(od + t, d0);
    __stcg(od + t + 32, d0 * 2.0);
}

__global__ void inline_hints(const float *in, float *out)
{
    int t = threadIdx.x;
    float4 v;
    float w, x;
    asm volatile("ld.global.nc.L1::no_allocate.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(in + 4 * t));
    asm volatile("ld.global.L1::evict_last.f32 %0, [%1];" : "=f"(w) : "l"(in + t + 1024));
#if __CUDA_ARCH__ >= 800
    asm volatile("ld.global.L2::128B.f32 %0, [%1];" : "=f"(x) : "l"(in + t + 2048));
    unsigned long long pol;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
    float y;
    asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(y) : "l"(in + t + 3072), "l"(pol));
    asm volatile("st.global.L2::cache_hint.f32 [%0], %1, %2;" ::"l"(out + t + 512), "f"(y), "l"(pol));
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v2.f32 {%0, _}, [%1];"
                 : "=f"(y) : "l"(in + 2 * t + 4096));
    x += y;
#else
    x = 0.0f;
#endif
    asm volatile("st.global.L1::no_allocate.v4.f32 [%0], {%1, %2, %3, %4};"
                 ::"l"(out + 4 * t), "f"(v.x + w), "f"(v.y), "f"(v.z + x), "f"(v.w));
}

// 256-bit memory accesses exist from sm_100 on.
__global__ void wide_256(const double4_32a *d4, const ulonglong4_32a *u4, double4_32a *od4,
                         const float *f, float *of)
{
    int t = threadIdx.x;
    double4_32a v = d4[t];
    ulonglong4_32a u = u4[t];
    v.x += (double)u.w;
    v.w -= (double)u.x;
    od4[t] = v;
#if __CUDA_ARCH__ >= 1000
    float r[8];
    asm volatile("ld.global.v8.f32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
                 : "=f"(r[0]), "=f"(r[1]), "=f"(r[2]), "=f"(r[3]), "=f"(r[4]), "=f"(r[5]),
                   "=f"(r[6]), "=f"(r[7])
                 : "l"(f + 8 * t));
    asm volatile("st.global.v8.f32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};"
                 ::"l"(of + 8 * t), "f"(r[7]), "f"(r[6]), "f"(r[5]), "f"(r[4]), "f"(r[3]),
                   "f"(r[2]), "f"(r[1]), "f"(r[0]));
#else
    of[t] = f[t];
#endif
}
