#!/usr/bin/env bash
# verify-features.sh - grep the PTX kept by check-corpus.sh for each feature
# in the list below and print a Markdown table: feature, pattern, files whose
# PTX contains it, and the targets on which it was seen.  FEATURES.md is this
# script's output.  A feature that no file produces is marked MISSING and the
# script exits 1.
#
# Usage: CORPUS_OUT=/path/from/check-corpus ./verify-features.sh > FEATURES.md
#
# Each list line is:  description ==> extended-regex [&& regex ...] [==> variant]
# With several regexes ("&&") a file is listed only if the PTX it produced for
# one target matches all of them; "targets" lists the targets where it did.
# variant is O (plain, the default), G (-G) or L (-lineinfo): which PTX to search.
set -u
OUT=${CORPUS_OUT:?set CORPUS_OUT to the directory check-corpus.sh wrote}
missing=0

list() {
cat <<'LIST'
## Declarations and linkage
.version / .target / .address_size header ==> ^\.version [0-9.]+$ && ^\.target sm_ && ^\.address_size 64
.visible .entry with mangled names ==> ^\.visible \.entry _Z
extern "C" kernel (unmangled .entry) ==> ^\.visible \.entry [a-z][a-z0-9_]*\(
kernel with zero params ==> ^\.visible \.entry [A-Za-z0-9_]+\(\)
.func with a .param .b32 return value ==> ^\.func +\(\.param \.b32 func_retval0\)
struct return > 8 bytes (.param .align 8 .b8 func_retval0[24]) ==> \(\.param \.align 8 \.b8 func_retval0\[24\]\)
aligned vector param (.param .align 16 .b8 x[16]) ==> \.param \.align 16 \.b8 [A-Za-z0-9_]+\[16\]
.noreturn function ==> ^\.noreturn
.visible .func (rdc) ==> ^\.visible \.func
.weak .func and .weak .global ==> ^\.weak \.func && ^\.weak \.global
.extern .global and .extern .const ==> ^\.extern \.global && ^\.extern \.const
.extern .func (vprintf, __assertfail) ==> ^\.extern \.func +\(\.param \.b32 func_retval0\) vprintf && ^\.extern \.func __assertfail
.extern .func malloc / free ==> ^\.extern \.func +\(\.param \.b64 func_retval0\) malloc && ^\.extern \.func free
internal-linkage .func (static / anonymous namespace) ==> ^\.func .*_INTERNAL_
static __device__ variable (.global without .visible) ==> ^\.global \.align 4 \.u32 __nv_static_
// .globl comments ==> ^\s*// \.globl
## Kernel directives
.maxntid ==> ^\.maxntid 256, 1, 1
.minnctapersm ==> ^\.minnctapersm 4
.maxclusterrank ==> ^\.maxclusterrank 4
.maxnreg ==> ^\.maxnreg 64
.reqnctapercluster ==> ^\.reqnctapercluster 2, 1, 1
.explicitcluster ==> ^\.explicitcluster
.pragma "nounroll" ==> \.pragma "nounroll"
## Parameters
many kernel params (40: _param_0 .. _param_39) ==> _param_39
struct params by value with .align 1 / 2 / 8 / 16 ==> \.param \.align 1 \.b8 _Z[A-Za-z0-9_]+_param_[0-9]+\[ && \.param \.align 2 \.b8 _Z[A-Za-z0-9_]+_param_[0-9]+\[ && \.param \.align 8 \.b8 _Z[A-Za-z0-9_]+_param_[0-9]+\[ && \.param \.align 16 \.b8 _Z[A-Za-z0-9_]+_param_[0-9]+\[
.param .u8 and .u16 scalar params ==> \.param \.u8  && \.param \.u16 
__grid_constant__ CUtensorMap param (.param .align 128 .b8 x[128]) ==> \.param \.align 128 \.b8 [A-Za-z0-9_]+\[128\]
__grid_constant__ 64-byte aligned 128-byte struct (.param .align 64 .b8 x[128]) ==> \.param \.align 64 \.b8 [A-Za-z0-9_]+\[128\]
address of a kernel param (mov.b64 of the param symbol + cvta.param) ==> mov\.b64\s+%rd[0-9]+, _Z[A-Za-z0-9_]+_param_[0-9]+; && cvta\.param\.u64
ld.param.v2 / ld.param.v4 ==> ld\.param\.v2\. && ld\.param\.v4\.
## Data and initialisers
.const .b8 array with initializer ==> ^\.const \.align [0-9]+ \.b8 [A-Za-z0-9_]+\[[0-9]+\] = \{
.const array without initializer ==> ^\.const \.align [0-9]+ \.b8 [A-Za-z0-9_]+\[[0-9]+\];
.global .f32 with hex initializer (0f...) ==> ^\.global \.align 4 \.f32 [A-Za-z0-9_]+ = 0f
.const .f64 with hex initializer (0d...) ==> ^\.const \.align 8 \.f64 [A-Za-z0-9_]+ = 0d
.u8 / .u16 / .u64 scalars with negative initializers ==> ^\.global \.align 1 \.u8 [A-Za-z0-9_]+ = - && ^\.global \.align 2 \.u16 [A-Za-z0-9_]+ = - && ^\.global \.align 8 \.u64 [A-Za-z0-9_]+ = -
string literal ($str) ==> ^\.global \.align 1 \.b8 \$str
pointer initialised with generic(sym) ==> ^\.global \.align 8 \.u64 [A-Za-z0-9_]+ = generic\([A-Za-z0-9_]+\);
generic(sym)+offset ==> = generic\([A-Za-z0-9_]+\)\+[0-9]+;
pointer table {generic(a), generic(b)+4, ...} ==> \{generic\([A-Za-z0-9_$]+\), generic\([A-Za-z0-9_$]+\)\+[0-9]+
struct array mixing integers and generic() (.u64 = {1, ..., generic($str)}) ==> \.u64 g_outer\[[0-9]+\] = \{1, .*generic\(\$str\)
function-address table (.u64 = {fn, fn, ...}) ==> \.u64 g_ops\[4\] = \{_Z
vtable (.u64 _ZTV... = {0, 0, fn, ...}) ==> \.u64 _ZTV[A-Za-z0-9_]+\[[0-9]+\] = \{0, 0,
__managed__ (.attribute(.managed)) ==> ^\.global \.attribute\(\.managed\)
dynamic shared memory (.extern .shared .align N .b8 x[]) ==> ^\.extern \.shared \.align 16 \.b8 [A-Za-z0-9_]+\[\];
dynamic shared memory with alignas(128) ==> ^\.extern \.shared \.align 128 \.b8 [A-Za-z0-9_]+\[\];
function-scope .shared ("demoted variable") ==> // demoted variable && ^\s+\.shared \.align
.shared .align 128 (alignas) ==> \.shared \.align 128
local depot and %SP/%SPL ==> \.local \.align [0-9]+ \.b8 \s*__local_depot[0-9]+\[ && \.reg \.b64 \s*%SPL; && mov\.u64 \s*%SPL, __local_depot
.local declared in an inline-asm scope ==> ^\s*\.local \.align 8 \.b8 scratch\[16\];
## Integer arithmetic
16-bit arithmetic ==> add\.s16 && mul\.lo\.s16 && sub\.s16
8-bit loads and sign extension ==> ld\.global\.s8 && cvt\.s32\.s8
div / rem on s32, u32, s64, u64 ==> div\.s32 && div\.u32 && div\.s64 && div\.u64 && rem\.s32 && rem\.u32 && rem\.s64 && rem\.u64
mul.hi / mul.wide ==> mul\.hi\.s32 && mul\.hi\.u64 && mul\.wide\.s32 && mul\.wide\.u32
mad.lo / mul24 / mad24 / mad.hi ==> mad\.lo\.s32 && mul24\.lo && mad24\.lo && mad\.hi\.s32
sad ==> sad\.s32 && sad\.u32
min / max on s32 u32 s64 u64 ==> min\.s32 && max\.u32 && min\.s64 && max\.u64
abs / neg ==> abs\.s32 && abs\.s64 && neg\.s32
add.cc / addc ==> add\.cc\.u32 && addc\.u32
add.sat / sub.sat ==> add\.sat\.s32 && sub\.sat\.s32
slct ==> slct\.s32\.s32 && slct\.f32\.s32
selp ==> selp\.b32 && selp\.f32 && selp\.f64
setp on every integer compare ==> setp\.eq\.s32 && setp\.ne\.s32 && setp\.lt\.s32 && setp\.le\.s32 && setp\.gt\.s32 && setp\.ge\.s32 && setp\.lt\.u32 && setp\.le\.u32 && setp\.gt\.u32 && setp\.ge\.u32 && setp\.lt\.s64 && setp\.lt\.u64
predicate logic and / or / xor / not ==> and\.pred && or\.pred && xor\.pred && not\.pred
## Floating point
f32 rounding modes (add.rn/rz/rm/rp, mul.rz/rp, fma.rm/rp/rz) ==> add\.rz\.f32 && add\.rm\.f32 && add\.rp\.f32 && mul\.rz\.f32 && fma\.rp\.f32 && fma\.rz\.f32
f64 rounding modes ==> add\.rz\.f64 && mul\.rp\.f64 && fma\.rm\.f64 && div\.rp\.f64
fma.rn f32 / f64 ==> fma\.rn\.f32 && fma\.rn\.f64
div.rn / div.approx / div.rm / div.rp ==> div\.rn\.f32 && div\.approx\.f32 && div\.rm\.f32 && div\.rp\.f32
rcp.rn / rcp.rm / rcp.approx.ftz (f32, f64) ==> rcp\.rn\.f32 && rcp\.rm\.f32 && rcp\.rn\.f64 && rcp\.approx\.ftz\.f64
sqrt.rn / sqrt.approx / sqrt.rz ==> sqrt\.rn\.f32 && sqrt\.approx\.f32 && sqrt\.rz\.f32 && sqrt\.rn\.f64
rsqrt.approx f32 / f64 ==> rsqrt\.approx\.f32 && rsqrt\.approx\.f64
sin / cos / ex2 / lg2 / tanh approx ==> sin\.approx\.f32 && cos\.approx\.f32 && ex2\.approx\.f32 && lg2\.approx\.f32 && tanh\.approx\.f32
.ftz / .sat modifiers ==> ex2\.approx\.ftz\.f32 && fma\.rn\.ftz\.sat\.f32
min.NaN ==> min\.NaN\.f32
max.xorsign.abs ==> max\.xorsign\.abs\.f32
min / max / abs / neg / copysign / testp ==> min\.f32 && max\.f64 && abs\.f32 && neg\.f32 && copysign\.f32 && testp\.finite\.f32
setp on every float compare ==> setp\.eq\.f32 && setp\.ne\.f32 && setp\.lt\.f32 && setp\.le\.f32 && setp\.gt\.f32 && setp\.ge\.f32 && setp\.equ\.f32 && setp\.neu\.f32 && setp\.ltu\.f32 && setp\.leu\.f32 && setp\.gtu\.f32 && setp\.geu\.f32 && setp\.num\.f32 && setp\.nan\.f32
hex float immediates (0f..., 0d...) ==> 0f[0-9A-F]{8} && 0d[0-9A-F]{16}
## Half precision
f16 arithmetic ==> add\.f16  && sub\.f16  && mul\.f16  && fma\.rn\.f16  && neg\.f16  && abs\.f16 
f16x2 arithmetic ==> add\.f16x2 && mul\.f16x2 && fma\.rn\.f16x2 && max\.NaN\.f16x2
bf16 / bf16x2 arithmetic ==> add\.bf16  && mul\.bf16x2 && fma\.rn\.bf16x2 && neg\.bf16x2
ex2.approx.f16 / .f16x2 ==> ex2\.approx\.f16  && ex2\.approx\.f16x2
ex2.approx.ftz.bf16 / .bf16x2 ==> ex2\.approx\.ftz\.bf16  && ex2\.approx\.ftz\.bf16x2
tanh.approx.f16 ==> tanh\.approx\.f16
fma.rn.relu ==> fma\.rn\.relu\.
setp / set on f16 and f16x2 ==> setp\.lt\.f16 && set\.[a-z]+\.u32\.f16x2
conversions to/from f16 and bf16 ==> cvt\.rn\.f16\.f32 && cvt\.f32\.f16 && cvt\.rn\.f16x2\.f32 && cvt\.rn\.bf16\.f32 && cvt\.rn\.bf16x2\.f32 && cvt\.rzi\.s32\.f16
## Conversions
float -> int with every rounding (rni rzi rmi rpi) ==> cvt\.rni\.s32\.f32 && cvt\.rzi\.s32\.f32 && cvt\.rmi\.s32\.f32 && cvt\.rpi\.s32\.f32 && cvt\.rni\.s64\.f32
int -> float with every rounding (rn rz rm rp) ==> cvt\.rn\.f32\.s32 && cvt\.rz\.f32\.s32 && cvt\.rm\.f32\.s32 && cvt\.rp\.f32\.s32 && cvt\.rz\.f64\.s64
f64 <-> f32 ==> cvt\.f64\.f32 && cvt\.rn\.f32\.f64 && cvt\.rz\.f32\.f64 && cvt\.rm\.f32\.f64 && cvt\.rp\.f32\.f64
integer widening / narrowing ==> cvt\.s64\.s32 && cvt\.u32\.u64 && cvt\.u16\.u32 && cvt\.s64\.s8
cvt.sat ==> cvt\.rzi\.sat\.s32\.f32 && cvt\.sat\.s16\.s32
cvt.rna.tf32.f32 ==> cvt\.rna\.tf32\.f32
cvt.rn.satfinite.e4m3x2.f32 (fp8) ==> cvt\.rn\.satfinite\.e4m3x2\.f32
cvt.rn.satfinite.e5m2x2.f32 ==> cvt\.rn\.satfinite\.e5m2x2\.f32
cvt.rn.f16x2.e4m3x2 ==> cvt\.rn\.f16x2\.e4m3x2
cvt.rn.satfinite.e2m1x2.f32 (fp4) ==> cvt\.rn\.satfinite\.e2m1x2\.f32
cvt.rz.satfinite.ue8m0x2.f32 ==> cvt\.rz\.satfinite\.ue8m0x2\.f32
mov.b64 {lo, hi} pack / unpack (nvcc scope with .reg .b32 %temp) ==> \.reg \.b32 %temp; && mov\.b64\s+\{%temp, %r[0-9]+\}, %fd && mov\.b64\s+%fd[0-9]+, \{%r
## Bit manipulation
popc / clz / brev (32 and 64 bit) ==> popc\.b32 && popc\.b64 && clz\.b32 && clz\.b64 && brev\.b32 && brev\.b64
bfind (.u32, .u64, .shiftamt) ==> bfind\.u32 && bfind\.u64 && bfind\.shiftamt
bfe / bfi ==> bfe\.u32 && bfe\.s32 && bfe\.u64 && bfi\.b32 && bfi\.b64
prmt (default, .f4e, .ecl) ==> prmt\.b32 && prmt\.b32\.f4e && prmt\.b32\.ecl
lop3 with immediate LUT ==> lop3\.b32 %r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+, 0x96
shf.l.wrap / shf.r.clamp ==> shf\.l\.wrap\.b32 && shf\.r\.clamp\.b32
fns ==> fns\.b32
dp4a / dp2a ==> dp4a\.s32\.s32 && dp4a\.u32\.u32 && dp2a\.lo\.s32\.s32 && dp2a\.hi\.u32\.u32
bmsk ==> bmsk\.clamp\.b32 && bmsk\.wrap\.b32
szext ==> szext\.clamp\.s32 && szext\.wrap\.u32
not / cnot ==> not\.b16 && cnot\.b16 && not\.b64
video instructions ==> vadd4\. && vabsdiff4\. && vmax2\. && vset4\. && vadd\.u32\.u32\.u32\.add && vmad\. && vshl\. && vsub\.
packed 16x2 and DPX forms ==> add\.s16x2 && min\.s16x2 && max\.s16x2\.relu && min\.s32\.relu
setp with bool op and dual destination (p|q) ==> setp\.lt\.and\.s32 p\|q
set with bool op ==> set\.gt\.u32\.s32 && set\.eq\.or\.u32\.f32
## Control flow and calls
predicated branches and bra.uni ==> @%p[0-9]+ bra && bra\.uni
brx.idx jump table generated by nvcc (needs -jump-table-density flag) ==> \$L_brx_[0-9]+: \.branchtargets && brx\.idx %r[0-9]+, \$L_brx_
brx.idx jump table in inline PTX ==> Ltab: \.branchtargets && brx\.idx %r[0-9]+, Ltab
call.uni with retval and params ==> call\.uni \(retval0\),
indirect call through a register with .callprototype ==> prototype_[0-9]+ : \.callprototype && call \(retval0\),\s*$
recursion ==> _Z3fibi,
exit ==> ^\s+exit;
trap / brkpt / pmevent ==> ^\s+trap; && ^\s+brkpt; && ^\s+pmevent 3;
printf (vprintf call) ==> ^\s+vprintf,
assert (__assertfail call) ==> ^\s+__assertfail,
malloc / free calls ==> ^\s+malloc, && ^\s+free,
alloca / stacksave / stackrestore ==> alloca\.u64 && stacksave\.u64 && stackrestore\.u64
## Memory
state spaces ld/st .global .shared .local .const .param ==> ld\.global\. && st\.shared\. && ld\.local\. && ld\.const\. && ld\.param\.
generic ld/st (no state space) ==> ld\.u32\s
ld.global.nc (__ldg and const __restrict__) ==> ld\.global\.nc\.f32 && ld\.global\.nc\.v4\.s32
ld.volatile / st.volatile ==> ld\.volatile\.global && st\.volatile\.shared
cache operators ==> ld\.global\.cs\. && ld\.global\.lu\. && ld\.global\.cv\. && ld\.global\.cg\. && ld\.global\.ca\. && st\.global\.cg\. && st\.global\.cs\. && st\.global\.wt\. && st\.global\.wb\.
L1 eviction / no_allocate hints ==> ld\.global\.nc\.L1::no_allocate\.v4\.f32 && L1::evict_last
L2 prefetch-size hints ==> L2::128B && L2::256B
createpolicy + L2::cache_hint ==> createpolicy\.fractional && ld\.global\.L2::cache_hint
prefetch / prefetchu / applypriority ==> prefetch\.global\.L2 && prefetchu\.L1 && applypriority\.global
isspacep ==> isspacep\.global && isspacep\.shared && isspacep\.local && isspacep\.const
cvta / cvta.to ==> cvta\.to\.global\.u64 && cvta\.local\.u64 && cvta\.shared\.u64
32-bit shared addressing (mov.u32 of a shared symbol) ==> mov\.u32\s+%r[0-9]+, _ZZ
128-bit vector ld/st (.v4.f32, .v4.u32) ==> ld\.global\.v4\.f32 && ld\.global\.v4\.u32 && st\.global\.v4\.f32
.v2.u64 / .v2.f64 ==> ld\.global\.v2\.u64 && ld\.global\.v2\.f64
256-bit ld/st (.v4.f64, .v4.u64, sm_100+) ==> ld\.global\.v4\.f64 && ld\.global\.v4\.u64
.v8.f32 (sm_100+) ==> ld\.global\.v8\.f32 && st\.global\.v8\.f32
vector operand with a sink (_) ==> \{%f[0-9]+, _\}
## Atomics, reductions and ordering
atom.global add/min/max/and/or/xor/exch/cas/inc/dec ==> atom\.global\.add\.u32 && atom\.global\.min\.s32 && atom\.global\.max\.u32 && atom\.global\.and\.b32 && atom\.global\.or\.b32 && atom\.global\.xor\.b32 && atom\.global\.exch\.b32 && atom\.global\.cas\.b32 && atom\.global\.inc\.u32 && atom\.global\.dec\.u32
64-bit atomics ==> atom\.global\.add\.u64 && atom\.global\.cas\.b64 && atom\.global\.max\.s64 && atom\.global\.min\.u64 && atom\.global\.exch\.b64
float atomics ==> atom\.global\.add\.f32 && atom\.global\.add\.f64
atom.add.noftz.f16 / .f16x2 / .bf16 / .bf16x2 ==> atom\.add\.noftz\.f16  && atom\.add\.noftz\.f16x2 && atom\.add\.noftz\.bf16  && atom\.add\.noftz\.bf16x2
atom.cas.b16 ==> atom\.global\.cas\.b16
atom.shared ==> atom\.shared\.add\.u32 && atom\.shared\.add\.f32 && atom\.shared\.cas\.b32
scoped atomics (.cta / .sys) ==> atom\.global\.cta\. && atom\.global\.sys\.
ordered atomics, both modifier orders (atom.acquire.gpu.global.cas / atom.add.acq_rel.gpu) ==> atom\.acquire\.gpu\.global\.cas && atom\.release\.sys\.global\.inc && atom\.add\.acq_rel\.gpu && atom\.exch\.acquire\.gpu && atom\.or\.release\.sys && atom\.add\.relaxed\.cta
atom ... .cluster scope ==> atom\.max\.relaxed\.cluster
vector atomics (atom.global.add.v2.f32 / .v4.f32) ==> atom\.global\.add\.v2\.f32 && atom\.global\.add\.v4\.f32
128-bit atomics ==> atom\.global\.cas\.b128 && atom\.global\.exch\.b128
red (inline) ==> red\.global\.add\.u32 && red\.global\.add\.f64 && red\.global\.add\.noftz\.f16x2 && red\.shared\.min\.s32 && red\.relaxed\.gpu\.global\.or\.b64
ld.acquire / st.release / ld.relaxed / st.relaxed ==> ld\.acquire\.gpu && st\.release\.gpu && ld\.relaxed\.cta && st\.relaxed\.sys
ld.mmio / st.mmio ==> ld\.mmio\.relaxed\.sys && st\.mmio\.relaxed\.sys
fence.sc / fence.acq_rel ==> fence\.sc\.gpu && fence\.sc\.cta && fence\.sc\.sys && fence\.acq_rel\.gpu && fence\.acq_rel\.cta
membar ==> membar\.cta && membar\.gl && membar\.sys
fence.proxy.alias / fence.proxy.async ==> fence\.proxy\.alias && fence\.proxy\.async\.global && fence\.proxy\.async\.shared::cta
fence.mbarrier_init / fence.acq_rel.cluster ==> fence\.mbarrier_init\.release\.cluster && fence\.acq_rel\.cluster
## Special registers
%tid / %ntid / %ctaid / %nctaid (x, y, z) ==> %tid\.z && %ntid\.y && %ctaid\.z && %nctaid\.y
%laneid %warpid %nwarpid %smid %nsmid %gridid ==> %laneid && %warpid && %nwarpid && %smid && %nsmid && %gridid
%lanemask_eq/le/lt/ge/gt ==> %lanemask_eq && %lanemask_le && %lanemask_lt && %lanemask_ge && %lanemask_gt
%clock / %clock_hi / %clock64 ==> %clock; && %clock_hi && %clock64
%globaltimer (+ _lo / _hi) ==> %globaltimer; && %globaltimer_lo && %globaltimer_hi
%dynamic_smem_size / %total_smem_size ==> %dynamic_smem_size && %total_smem_size
%envreg0 / %envreg31 ==> %envreg0 && %envreg31
%pm0 ==> %pm0
cluster registers ==> %clusterid\.x && %nclusterid\.x && %cluster_ctaid\.x && %cluster_nctaid\.x && %cluster_ctarank && %cluster_nctarank && %is_explicit_cluster
%aggr_smem_size / %reserved_smem_offset_* ==> %aggr_smem_size && %reserved_smem_offset_begin && %reserved_smem_offset_cap
nanosleep (register and immediate) ==> nanosleep\.u32 %r && nanosleep\.u32 [0-9]+;
## Warp level
shfl.sync idx / up / down / bfly ==> shfl\.sync\.idx\.b32 && shfl\.sync\.up\.b32 && shfl\.sync\.down\.b32 && shfl\.sync\.bfly\.b32
shfl.sync with %r|%p destination (nvcc-generated) ==> shfl\.sync\.[a-z]+\.b32\s+%r[0-9]+\|%p[0-9]+
vote.sync ballot / any / all / uni ==> vote\.sync\.ballot\.b32 && vote\.sync\.any\.pred && vote\.sync\.all\.pred && vote\.sync\.uni\.pred
activemask ==> activemask\.b32
match.any.sync / match.all.sync (b32, b64, %r|%p form) ==> match\.any\.sync\.b32 && match\.all\.sync\.b64 && match\.all\.sync\.b32\s+%r[0-9]+\|%p
redux.sync integer ops ==> redux\.sync\.add\.s32 && redux\.sync\.min\.u32 && redux\.sync\.max\.s32 && redux\.sync\.and\.b32 && redux\.sync\.or\.b32 && redux\.sync\.xor\.b32
redux.sync on f32 (sm_100a) ==> redux\.sync\.min\.f32 && redux\.sync\.max\.abs\.NaN\.f32
bar.warp.sync (__syncwarp) ==> bar\.warp\.sync
elect.sync (%r|p and _|p) ==> elect\.sync %r[0-9]+\|p && elect\.sync _\|p
## Block and grid synchronisation
bar.sync / barrier.sync (register and immediate operands) ==> barrier\.sync \s*0; && barrier\.sync %r[0-9]+, %r[0-9]+ && bar\.sync %r
bar.red.popc / .and / .or (__syncthreads_count/and/or) ==> bar\.red\.popc\.u32 && bar\.red\.and\.pred && bar\.red\.or\.pred
barrier.red (inline) ==> barrier\.red\.or\.pred && barrier\.red\.and\.aligned\.pred
named barriers (bar.sync 1, 128; bar.arrive 1, 128) ==> bar\.sync 1, 128 && bar\.arrive 1, 128 && barrier\.arrive 4, 96
barrier.sync.aligned ==> barrier\.sync\.aligned 0
grid.sync() (cooperative groups) ==> atom\.add\.release\.gpu\.u32 && ld\.acquire\.gpu\.u32
barrier.cluster arrive / wait (+ .relaxed / .release / .acquire / .aligned) ==> barrier\.cluster\.arrive; && barrier\.cluster\.wait; && barrier\.cluster\.arrive\.relaxed\.aligned && barrier\.cluster\.wait\.acquire
griddepcontrol.launch_dependents / wait ==> griddepcontrol\.launch_dependents && griddepcontrol\.wait
## Asynchronous copies and mbarriers
cp.async ca / cg (4, 8, 16 bytes, src-size) ==> cp\.async\.ca\.shared\.global && cp\.async\.cg\.shared\.global && cp\.async\.ca\.shared\.global\.L2::128B
cp.async.commit_group / wait_group / wait_all ==> cp\.async\.commit_group && cp\.async\.wait_group && cp\.async\.wait_all
cp.async.mbarrier.arrive(.noinc) ==> cp\.async\.mbarrier\.arrive\.noinc\.shared\.b64
mbarrier init / arrive / test_wait / try_wait / inval / arrive_drop / pending_count ==> mbarrier\.init\.shared\.b64 && mbarrier\.arrive\.shared\.b64 && mbarrier\.test_wait\.shared\.b64 && mbarrier\.try_wait && mbarrier\.inval\.shared\.b64 && mbarrier\.arrive_drop\.shared\.b64 && mbarrier\.pending_count\.b64
mbarrier.try_wait.parity ==> mbarrier\.try_wait\.parity\.shared::cta\.b64 && mbarrier\.try_wait\.parity\.acquire\.cta\.shared::cta\.b64
mbarrier.arrive.expect_tx / expect_tx / complete_tx ==> mbarrier\.arrive\.expect_tx\.release\.cta\.shared::cta\.b64 && mbarrier\.expect_tx\.relaxed\.cta && mbarrier\.complete_tx\.relaxed\.cta
remote mbarrier arrive (shared::cluster) ==> mbarrier\.arrive\.release\.cluster\.shared::cluster\.b64
cp.async.bulk global -> shared (complete_tx) ==> cp\.async\.bulk\.shared::cluster\.global\.mbarrier::complete_tx::bytes
cp.async.bulk shared -> global (bulk_group, L2::cache_hint) ==> cp\.async\.bulk\.global\.shared::cta\.bulk_group && cp\.async\.bulk\.global\.shared::cta\.bulk_group\.L2::cache_hint
cp.async.bulk shared::cta -> shared::cluster (DSMEM) ==> cp\.async\.bulk\.shared::cluster\.shared::cta\.mbarrier::complete_tx::bytes
cp.async.bulk .multicast::cluster (sm_90a) ==> complete_tx::bytes\.multicast::cluster
cp.async.bulk commit_group / wait_group / wait_group.read ==> cp\.async\.bulk\.commit_group && cp\.async\.bulk\.wait_group [0-9] && cp\.async\.bulk\.wait_group\.read
cp.reduce.async.bulk (add.u32, min.u32, and.b32, add.noftz.f16, max.u64) ==> bulk_group\.add\.u32 && bulk_group\.min\.u32 && bulk_group\.and\.b32 && bulk_group\.add\.noftz\.f16 && bulk_group\.max\.u64
cp.async.bulk.prefetch ==> cp\.async\.bulk\.prefetch\.L2\.global \[
cp.async.bulk.prefetch.tensor ==> cp\.async\.bulk\.prefetch\.tensor\.2d\.L2\.global
cp.async.bulk.tensor loads (2d, 3d, 5d tile; 4d im2col) ==> cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.tile && cp\.async\.bulk\.tensor\.3d\.shared::cluster && cp\.async\.bulk\.tensor\.5d\.shared::cluster && cp\.async\.bulk\.tensor\.4d\.shared::cluster\.global\.im2col
cp.async.bulk.tensor store / cp.reduce.async.bulk.tensor ==> cp\.async\.bulk\.tensor\.2d\.global\.shared::cta\.tile\.bulk_group && cp\.reduce\.async\.bulk\.tensor\.3d
prefetch.tensormap ==> prefetch\.tensormap
tensormap.replace (sm_90a / sm_100a) ==> tensormap\.replace\.tile\.global_address && tensormap\.replace\.tile\.rank && tensormap\.replace\.tile\.box_dim && tensormap\.replace\.tile\.elemtype
tensormap.cp_fenceproxy / fence.proxy.tensormap::generic ==> tensormap\.cp_fenceproxy && fence\.proxy\.tensormap::generic\.acquire\.gpu && fence\.proxy\.tensormap::generic\.release\.gpu
st.async / red.async ==> st\.async\.shared::cluster\.mbarrier::complete_tx::bytes\.b32 && st\.async\.shared::cluster\.mbarrier::complete_tx::bytes\.v4\.b32 && red\.async\.relaxed\.cluster
multimem ld_reduce / st / red ==> multimem\.ld_reduce && multimem\.st && multimem\.red && multimem\.ld_reduce\.relaxed\.sys\.global\.add\.v4\.f32
mapa / getctarank / isspacep.shared::cluster / ld|st|atom.shared::cluster ==> mapa\.shared::cluster\.u32 && mapa\.u64 && getctarank\.u64 && getctarank\.shared::cluster && isspacep\.shared::cluster && ld\.shared::cluster && st\.shared::cluster && atom\.shared::cluster
## Tensor cores
wmma.load / wmma.store (a, b, c, d; row / col; global / shared) ==> wmma\.load\.a\.sync\.aligned\.row && wmma\.load\.b\.sync\.aligned\.col && wmma\.load\.c\.sync && wmma\.store\.d\.sync\.aligned\.col && \.shared\.f16
wmma.mma f16 (f32 and f16 accumulators; m16n16k16, m32n8k16, m8n32k16) ==> m16n16k16\.f32\.f32 && m16n16k16\.f16\.f16 && m32n8k16\.f32\.f32 && m8n32k16\.f16\.f16
wmma.mma bf16 ==> wmma\.mma\.sync.*\.f32\.bf16\.bf16\.f32
wmma.mma tf32 ==> wmma\.mma\.sync.*\.m16n16k8\.f32\.tf32\.tf32\.f32
wmma.mma s8 / u8 (.satfinite) ==> wmma\.mma\.sync.*\.s32\.s8\.s8\.s32\.satfinite && wmma\.mma\.sync.*\.s32\.u8\.u8\.s32
wmma.mma f64 (m8n8k4, .rn) ==> wmma\.mma\.sync.*m8n8k4\.f64\.f64\.f64\.f64\.rn
wmma sub-byte (s4, b1 and.popc) ==> m8n8k32\.s32\.s4\.s4\.s32 && wmma\.mma\.and\.popc\.sync
mma.sync m16n8k16 f16 (f32 and f16 accumulate) and bf16 ==> mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32 && mma\.sync\.aligned\.m16n8k16\.row\.col\.f16\.f16\.f16\.f16 && mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.bf16\.bf16\.f32
mma.sync m16n8k8 tf32 ==> mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.tf32\.tf32\.f32
mma.sync m16n8k32 s8 / u8 ==> mma\.sync\.aligned\.m16n8k32\.row\.col\.satfinite\.s32\.s8\.s8\.s32 && mma\.sync\.aligned\.m16n8k32\.row\.col\.s32\.u8\.s8\.s32
mma.sync m8n8k4 f64 ==> mma\.sync\.aligned\.m8n8k4\.row\.col\.f64\.f64\.f64\.f64
mma.sync e4m3 (sm_89+) ==> mma\.sync\.aligned\.m16n8k32\.row\.col\.f32\.e4m3\.e4m3\.f32
mma.sp::ordered_metadata ==> mma\.sp::ordered_metadata\.sync\.aligned\.m16n8k32
ldmatrix (x1, x2.trans, x4) ==> ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16 && ldmatrix\.sync\.aligned\.m8n8\.x2\.trans && ldmatrix\.sync\.aligned\.m8n8\.x1\.shared::cta
stmatrix (sm_90) ==> stmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16 && stmatrix\.sync\.aligned\.m8n8\.x2\.trans
movmatrix ==> movmatrix\.sync\.aligned\.m8n8\.trans\.b16
wgmma.mma_async (f16, bf16, tf32, e4m3.e5m2, s8, f16 accum, register A) ==> m64n8k16\.f32\.f16\.f16 && m64n16k16\.f32\.bf16\.bf16 && m64n8k8\.f32\.tf32\.tf32 && m64n8k32\.f32\.e4m3\.e5m2 && m64n8k32\.s32\.s8\.s8\.satfinite && m64n8k16\.f16\.f16\.f16 && \{%r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+\}, %rd[0-9]+, p, 1, 1, 1;
wgmma.fence / commit_group / wait_group ==> wgmma\.fence\.sync\.aligned && wgmma\.commit_group\.sync\.aligned && wgmma\.wait_group\.sync\.aligned
setmaxnreg.inc / .dec ==> setmaxnreg\.inc\.sync\.aligned\.u32 && setmaxnreg\.dec\.sync\.aligned\.u32
tcgen05.alloc / dealloc / relinquish_alloc_permit ==> tcgen05\.alloc\.cta_group::1 && tcgen05\.dealloc\.cta_group::1 && tcgen05\.relinquish_alloc_permit
tcgen05.mma kind::f16 / tf32 / f8f6f4 (smem and tmem A) ==> tcgen05\.mma\.cta_group::1\.kind::f16 && tcgen05\.mma\.cta_group::1\.kind::tf32 && tcgen05\.mma\.cta_group::1\.kind::f8f6f4 \[%r[0-9]+\], \[%r
tcgen05.ld / tcgen05.st (32x32b, 16x64b.pack, 16x32bx2, 16x128b.unpack) ==> tcgen05\.ld\.sync\.aligned\.32x32b\.x4 && tcgen05\.ld\.sync\.aligned\.16x64b\.x2\.pack::16b && tcgen05\.ld\.sync\.aligned\.16x32bx2 && tcgen05\.st\.sync\.aligned\.16x128b\.x1\.unpack::16b
tcgen05.commit / wait::ld / wait::st / fence / cp / shift ==> tcgen05\.commit\.cta_group::1\.mbarrier::arrive::one && tcgen05\.wait::ld && tcgen05\.wait::st && tcgen05\.fence::before_thread_sync && tcgen05\.fence::after_thread_sync && tcgen05\.cp\.cta_group::1\.128x256b && tcgen05\.shift\.cta_group::1\.down
clusterlaunchcontrol with .reg .b128 / mov.b128 (sm_100) ==> clusterlaunchcontrol\.try_cancel && clusterlaunchcontrol\.query_cancel && \.reg \.b128 B128_try_cancel_response && mov\.b128
st.bulk (sm_100) ==> st\.bulk\.weak\.shared::cta
## Textures and surfaces
tex.1d (tex1Dfetch, tex1D, tex1DLod) ==> tex\.1d\.v4\.f32\.s32 && tex\.1d\.v4\.f32\.f32 && tex\.level\.1d
tex.2d of float / int / uint ==> tex\.2d\.v4\.f32\.f32 && tex\.2d\.v4\.s32\.f32 && tex\.2d\.v4\.u32\.f32
tex.3d / tex.level / tex.grad ==> tex\.3d\.v4 && tex\.level\.2d && tex\.level\.3d && tex\.grad\.2d
layered and cube textures ==> tex\.a1d && tex\.a2d && tex\.level\.a2d && tex\.cube && tex\.acube
tld4.r/g/b/a (tex2Dgather) ==> tld4\.r\.2d && tld4\.g\.2d && tld4\.b\.2d && tld4\.a\.2d
sparse texture fetch with predicate destination {..}|%p ==> \}\|%p[0-9]+, \[
txq queries ==> txq\.width && txq\.height && txq\.depth && txq\.num_mipmap_levels && txq\.channel_order && txq\.level\.width
istypep.texref ==> istypep\.texref
istypep.surfref ==> istypep\.surfref
suld.b (1d, 2d, 3d, a1d, a2d; b8..b64, v2, v4; trap / clamp / zero) ==> suld\.b\.1d\.b32\.trap && suld\.b\.1d\.v4\.b8\.clamp && suld\.b\.2d\.b16\.zero && suld\.b\.2d\.v2\.b64\.clamp && suld\.b\.3d\.v4\.b32 && suld\.b\.a1d && suld\.b\.a2d
sust.b ==> sust\.b\.1d && sust\.b\.2d\.v2\.b64\.zero && sust\.b\.3d && sust\.b\.a2d
suq queries ==> suq\.width && suq\.height && suq\.depth && suq\.channel_order && suq\.channel_data_type
sured ==> sured\.b\.add\.2d\.u32\.trap && sured\.b\.max\.1d\.s32\.clamp
## Inline PTX shapes
inline asm markers ==> // begin inline asm && // end inline asm
scoped .reg declarations inside { } ==> ^\s*\{\s*$ && ^\s*\.reg \.pred [a-z]+;
parameterised scoped registers (.reg .b32 r<3>) ==> \.reg \.b32 r<3>;
nested scopes with shadowing ==> ^\s+\.reg \.f32 a;
nvcc-generated scopes with %-prefixed .b128 registers ==> \.reg \.b128 %dst; && mov\.b128 %b, \{%rd
labels inside inline asm (several copies in sibling scopes) ==> ^POPC_LOOP: && ^POPC_DONE:
comments inside inline PTX (// and /* */) ==> /\* shadows the outer a \*/ && // clear lowest set bit
cuda::ptx comments inside asm text ("; // 5.") ==> ; // [0-9]+[a-z]?\.
immediate / negative address offsets ([%rd+-4]) ==> \[%rd[0-9]+\+-4\]
call sequences wrapped in { // callseq N, 0 ... } ==> \{ // callseq [0-9]+, 0 && \} // callseq [0-9]+
## Debug information
.file / .loc (-lineinfo) ==> ^\s+\.file\s+[0-9]+ " && ^\s+\.loc\s+[0-9]+ [0-9]+ [0-9]+ ==> L
.loc ... function_name ... inlined_at (-lineinfo) ==> \.loc\s+[0-9]+ [0-9]+ [0-9]+, function_name \$L__info_string[0-9]+, inlined_at ==> L
DWARF sections (-G) ==> \.section\s+\.debug_info && \.section\s+\.debug_abbrev ==> G
LIST
}

printf '# Corpus feature table\n\n'
printf 'Generated by `verify-features.sh` from the PTX that `check-corpus.sh`\n'
printf 'produced with nvcc %s. A file is listed when the pattern\n' "$("${CUDA_HOME:-/usr/local/cuda}"/bin/nvcc --version | sed -n 's/.*\(V[0-9][0-9.]*\).*/\1/p' | tail -n 1)"
printf 'matches its PTX (plain build unless the feature says -G/-lineinfo); when a\n'
printf 'row has several patterns joined by &&, all of them must match the PTX of\n'
printf 'one file for one target. "targets" lists every target where that held.\n'
printf 'Long file lists are shortened to their first five entries.\n'
nfiles=$(ls "$OUT"/*.O.ptx | sed 's|.*/||; s|\.[^.]*\.O\.ptx$||' | sort -u | wc -l)
while IFS= read -r line; do
  case $line in
    '## '*) printf '\n%s\n\n| feature | pattern (grep -E) | files | targets |\n|---|---|---|---|\n' "$line"; continue ;;
    '') continue ;;
  esac
  desc=${line%% ==> *}
  rest=${line#* ==> }
  var=O
  case $rest in *' ==> '*) var=${rest##* ==> }; rest=${rest%% ==> *} ;; esac
  re=$rest
  # all '&&'-separated patterns must match one and the same PTX file
  # (one corpus file compiled for one target)
  ptx=
  first=1
  pats=$(printf '%s\n' "$re" | sed 's/ && /\n/g')
  while IFS= read -r pat; do
    h=$(grep -lE -- "$pat" "$OUT"/*."$var".ptx 2>/dev/null | sort)
    if [ $first = 1 ]; then ptx=$h; first=0; else ptx=$(comm -12 <(printf '%s\n' "$ptx") <(printf '%s\n' "$h")); fi
  done <<<"$pats"
  ptx=$(printf '%s\n' "$ptx" | sed '/^$/d')
  hits=$(printf '%s\n' "$ptx" | sed '/^$/d; s|.*/||; s|\.[^.]*\.[OGL]\.ptx$||' | sort -u)
  if [ -z "$hits" ]; then
    files=MISSING targets=-
    missing=$((missing + 1))
    echo "MISSING: $desc" >&2
  else
    names=$(printf '%s\n' "$hits" | sed 's/$/.cu/')
    n=$(printf '%s\n' "$names" | wc -l)
    if [ "$n" -eq "$nfiles" ]; then
      files="all $n files"
    elif [ "$n" -gt 6 ]; then
      files="$(printf '%s\n' "$names" | head -n 5 | paste -sd ' ') (+$((n - 5)) more)"
    else
      files=$(printf '%s\n' "$names" | paste -sd ' ')
    fi
    targets=$(printf '%s\n' "$ptx" | sed 's|.*/||; s|\.[OGL]\.ptx$||; s|.*\.||' | sort -u -V | paste -sd ' ')
  fi
  # escape | for the Markdown table
  printf '| %s | `%s` | %s | %s |\n' "$(printf '%s' "$desc" | sed 's/|/\\|/g')" \
    "$(printf '%s' "$re" | sed 's/|/\\|/g')" "$files" "$targets"
done < <(list)
cat <<'NOTES'

## Not produced by nvcc 13.0 (or only in a modified form)

- `.ptr .global .align N` on kernel pointer params: nvcc never emits it for
  CUDA C++ (tried `const __restrict__`, `-rdc`, `-G`, `-lineinfo`, and an
  `address_space(1)` attribute, which is silently ignored). The `.ptr`
  spelling exists in cicc for NVVM IR whose kernel params are already
  `addrspace(1)` pointers (other front ends), not for CUDA C++ sources.
- `brx.idx` from a `switch`: cicc's default jump-table density threshold is
  above 100 %, so even a dense 0..63 switch becomes a compare tree at any `-O`
  level. `08-switch-brx.cu` passes `-Xcicc -jump-table-density=40` (any
  value up to 100 works) and also contains a hand-written `brx.idx` in inline
  PTX, which needs no flag.
- `red.*` from atomics whose result is unused: nvcc 13.0 keeps `atom.*` with
  a dead destination register (ptxas makes the substitution). The `red`
  forms in `15-atomics.cu` come from inline PTX.
- `lop3.b32` from ordinary C++ bit expressions: nvcc leaves `and/or/xor/not`
  to ptxas; `lop3` shows up only from inline PTX and from the SIMD intrinsics
  in the CUDA headers.
- `ex2.approx.f16` / `.f16x2` and `ex2.approx.ftz.bf16`: `hexp2`/`h2exp2` go
  through f32 in `cuda_fp16.h`/`cuda_bf16.h`; the native forms come from
  inline PTX in `04-half-bf16.cu`.
- `.extern .func` for user functions (and unsized `.extern .global` arrays):
  `-rdc=true` emits them, but the corpus harness runs `ptxas` without `-c`
  (whole-program mode), which rejects unresolved extern functions and unsized
  extern arrays ("Unresolved extern function"). Only sized extern variables
  (a warning) and the built-in externs (`vprintf`, `__assertfail`, `malloc`,
  `free`) survive, so `36-rdc-linkage.cu` has no calls to extern functions.
  Dynamic parallelism (device-side `<<<>>>`) fails the same way
  (`__cudaCDP2GetParameterBufferV2` unresolved) and is left out; so is
  `__attribute__((alias))`, which becomes an unresolved `.extern .func`
  rather than a `.alias` directive.
- `CUtensorMap` is 128-byte aligned in CUDA 13, so a `__grid_constant__`
  tensor map is `.param .align 128 .b8 x[128]`; the `.align 64 .b8 x[128]`
  shape comes from an `alignas(64)` 128-byte struct in `27-tma-tensor.cu`.
- `setp` with two predicate destinations (`p|q`), `set` with a boolean
  operator and all `v*` video instructions appear only through inline PTX.
- Texture and surface references (`.texref`, `.surfref` globals) no longer
  exist in CUDA 12+; only bindless `.u64` object handles are used.
NOTES
[ "$missing" -eq 0 ] || { echo "$missing feature(s) missing" >&2; exit 1; }
