/*
 * The fake driver checked on its own, before the runtime's tests rely on
 * it: cuGetProcAddress's rules, the library's exports against its table,
 * PTX parameter layouts, launch logging from kernelParams and from extra,
 * the ptb emulation, JIT failures, the dynamic shared memory rule, and
 * the log lines themselves (each check reads back the line its call wrote).
 *
 * usage: fake_selftest LIBCUDA_SO_1 CUBIN, with COLOC_FAKE_LOG set; CUBIN
 * is ptxas's sm_90 code for ../Inputs/scale.ptx (kernels scale and spin).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coloc_elf.h"
#include "fake.h"
#include "fatbin.h"

#define EXPECT(cond, ...)                                           \
	do {                                                        \
		if (!(cond)) {                                      \
			printf("FAIL %s:%d: ", __FILE__, __LINE__); \
			printf(__VA_ARGS__);                        \
			printf("\n");                               \
			return 1;                                   \
		}                                                   \
	} while (0)

#define EXPECT_RC(call, want)                                                                \
	do {                                                                                 \
		CUresult rc_ = (call);                                                       \
		EXPECT(rc_ == (want), "%s returned %d, expected %d", #call, rc_, (int)(want)); \
	} while (0)

/* The log's last line must be `want`. */
#define EXPECT_LOG(want)                                                                           \
	do {                                                                                       \
		const char *got_ = last_line();                                                    \
		EXPECT(strcmp(got_, (want)) == 0, "log line\n  got:  %s\n  want: %s", got_,        \
		       (want));                                                                    \
	} while (0)

static const char *log_path;
static void *libcuda;

/* Whether the log has the line `want`. */
static bool log_has(const char *want)
{
	struct coloc_buf b;
	bool found = false;

	coloc_buf_init(&b);
	if (coloc_buf_read_file(&b, log_path) == 0 && coloc_buf_cstr(&b)) {
		for (char *line = b.data, *end; line && *line; line = end ? end + 1 : NULL) {
			end = strchr(line, '\n');
			if (end)
				*end = '\0';
			if (strcmp(line, want) == 0)
				found = true;
		}
	}
	coloc_buf_release(&b);
	return found;
}

static const char *last_line(void)
{
	static char line[1024];
	struct coloc_buf b;
	const char *start;

	line[0] = '\0';
	coloc_buf_init(&b);
	if (coloc_buf_read_file(&b, log_path) == 0 && coloc_buf_cstr(&b) && b.len) {
		b.data[--b.len] = '\0'; /* the final newline */
		start = strrchr(b.data, '\n');
		snprintf(line, sizeof(line), "%s", start ? start + 1 : b.data);
	}
	coloc_buf_release(&b);
	return line;
}

static const char ptx_main[] =
	".version 8.0\n.target sm_80\n.address_size 64\n"
	"// .entry commented_out(.param .u32 x)\n"
	"/* .entry also_commented( */\n"
	".global .align 4 .u32 counter;\n"
	".const .align 8 .b8 table[24] = {1, 2, 3};\n"
	".extern .entry declared(.param .u32 x);\n"
	".visible .entry add(\n"
	"\t.param .u64 .ptr .global .align 16 add_param_0,\n"
	"\t.param .u32 add_param_1\n"
	")\n{\n\tld.param.u64 %rd1, [add_param_0];\n\tret;\n}\n"
	".weak .entry mixed(.param .u8 c, .param .align 16 .b8 s[24],\n"
	"    .param .u16 h,\n    .param .f64 d)\n"
	".maxntid 128, 1, 1\n{\n\tret;\n}\n"
	".visible .entry none()\n{\n\tret;\n}\n"
	".entry bare\n{\n\tret;\n}\n"
	".visible .entry __coloc_ptb_add(\n"
	"\t.param .u64 p,\n\t.param .u32 n,\n"
	"\t.param .u32 __coloc_grid_x,\n\t.param .u32 __coloc_grid_y,\n"
	"\t.param .u32 __coloc_grid_z,\n\t.param .u32 __coloc_park,\n"
	"\t.param .u32 __coloc_slot_base,\n\t.param .u32 __coloc_batch,\n"
	"\t.param .u64 __coloc_control,\n\t.param .u64 __coloc_stop,\n"
	"\t.param .u64 __coloc_redo\n"
	")\n{\n\tret;\n}\n";

/* ---- entry points */

/* Every row of the table is what cuGetProcAddress answers at its own version. */
static int test_getproc_table(void)
{
	struct row {
		const char *base, *symbol;
		int since, per_thread;
	} rows[] = {
#define FAKE_PROC(base, symbol, since, per_thread) {#base, #symbol, since, per_thread},
#include "fake_api.def"
#undef FAKE_PROC
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		CUdriverProcAddressQueryResult st = -1;
		void *fn = NULL, *want = dlsym(libcuda, rows[i].symbol);

		EXPECT(want, "%s is in the table but not exported", rows[i].symbol);
		EXPECT_RC(cuGetProcAddress_v2(rows[i].base, &fn, rows[i].since,
					      rows[i].per_thread ? 2 : 0, &st),
			  CUDA_SUCCESS);
		EXPECT(fn == want && st == CU_GET_PROC_ADDRESS_SUCCESS,
		       "cuGetProcAddress_v2(%s, %d) is not %s", rows[i].base, rows[i].since,
		       rows[i].symbol);
	}
	return 0;
}

/* The library exports exactly the table's symbols: nothing of coloc_compiler leaks. */
static int test_exports(const char *lib_path)
{
	static const char *const table[] = {
#define FAKE_PROC(base, symbol, since, per_thread) #symbol,
#include "fake_api.def"
#undef FAKE_PROC
	};
	struct coloc_elf_section dynsym;
	struct coloc_diag diag;
	struct coloc_elf elf;
	struct coloc_buf file;
	size_t i, k, exported = 0;

	coloc_diag_init(&diag, lib_path, stdout);
	coloc_buf_init(&file);
	EXPECT(coloc_buf_read_file(&file, lib_path) == 0, "cannot read %s", lib_path);
	EXPECT(coloc_elf_open(&elf, file.data, file.len, &diag) == 0, "%s is not ELF", lib_path);
	EXPECT(coloc_elf_find_section(&elf, ".dynsym", &dynsym, &diag) == 1, "no .dynsym");
	for (i = 1; i < coloc_elf_symbol_count(&dynsym); i++) {
		struct coloc_elf_sym sym;

		EXPECT(coloc_elf_symbol(&elf, &dynsym, i, &sym, &diag) == 0, "bad symbol %zu", i);
		if (sym.shndx == 0 || sym.info >> 4 == 0)
			continue; /* undefined or local */
		for (k = 0; k < sizeof(table) / sizeof(table[0]); k++)
			if (strcmp(table[k], sym.name) == 0)
				break;
		EXPECT(k < sizeof(table) / sizeof(table[0]), "exported '%s' is not in fake_api.def",
		       sym.name);
		exported++;
	}
	EXPECT(exported == sizeof(table) / sizeof(table[0]), "%zu symbols exported, table has %zu",
	       exported, sizeof(table) / sizeof(table[0]));
	coloc_buf_release(&file);
	return 0;
}

static int test_getproc_rules(void)
{
	CUdriverProcAddressQueryResult st;
	void *fn, *v1 = dlsym(libcuda, "cuMemAlloc"), *v2 = dlsym(libcuda, "cuMemAlloc_v2");
	CUresult (*alloc_v1)(CUdeviceptr_v1 *, unsigned);
	CUdeviceptr_v1 low = 0;

	EXPECT(v1 && v2 && v1 != v2, "cuMemAlloc and cuMemAlloc_v2 must be distinct");
	EXPECT_RC(cuGetProcAddress_v2("cuMemAlloc", &fn, 3020, 0, &st), CUDA_SUCCESS);
	EXPECT(fn == v2, "cuMemAlloc at 3020 is not cuMemAlloc_v2");
	EXPECT_LOG("cuGetProcAddress_v2 symbol=cuMemAlloc version=3020 flags=0 -> cuMemAlloc_v2");
	EXPECT_RC(cuGetProcAddress_v2("cuMemAlloc", &fn, 3010, 0, &st), CUDA_SUCCESS);
	EXPECT(fn == v1, "cuMemAlloc at 3010 is not the v1 cuMemAlloc");

	/* The v1 entry point really runs, under its own name. */
	memcpy(&alloc_v1, &fn, sizeof(fn));
	if (alloc_v1(&low, 64) == CUDA_SUCCESS) {
		EXPECT(strncmp(last_line(), "cuMemAlloc bytes=64 ptr=@", 25) == 0, "v1 log: %s",
		       last_line());
		EXPECT_RC(cuMemFree(low), CUDA_SUCCESS);
	}

	EXPECT_RC(cuGetProcAddress_v2("cuLaunchKernel", &fn, 13000, 2, &st), CUDA_SUCCESS);
	EXPECT(fn == dlsym(libcuda, "cuLaunchKernel_ptsz"), "per-thread cuLaunchKernel");
	EXPECT_LOG("cuGetProcAddress_v2 symbol=cuLaunchKernel version=13000 flags=2 -> "
		   "cuLaunchKernel_ptsz");
	EXPECT_RC(cuGetProcAddress_v2("cuLaunchKernel", &fn, 13000, 1, &st), CUDA_SUCCESS);
	EXPECT(fn == dlsym(libcuda, "cuLaunchKernel"), "legacy-stream cuLaunchKernel");
	EXPECT_RC(cuGetProcAddress_v2("cuLaunchKernel", &fn, 6050, 2, &st), CUDA_SUCCESS);
	EXPECT(fn == dlsym(libcuda, "cuLaunchKernel"), "no per-thread flavour before 7000");
	EXPECT_RC(cuGetProcAddress_v2("cuMemcpyHtoDAsync", &fn, 12000, 2, &st), CUDA_SUCCESS);
	EXPECT(fn == dlsym(libcuda, "cuMemcpyHtoDAsync_v2_ptsz"), "per-thread cuMemcpyHtoDAsync");
	EXPECT_RC(cuGetProcAddress_v2("cuMemsetD32", &fn, 12000, 2, &st), CUDA_SUCCESS);
	EXPECT(fn == dlsym(libcuda, "cuMemsetD32_v2"), "cuMemsetD32 has no per-thread flavour");

	EXPECT_RC(cuGetProcAddress_v2("cuLinkCreate", &fn, 6000, 0, &st), CUDA_SUCCESS);
	EXPECT(fn == dlsym(libcuda, "cuLinkCreate"), "cuLinkCreate at 6000");
	EXPECT_RC(cuGetProcAddress_v2("cuLinkAddData", &fn, 6050, 0, &st), CUDA_SUCCESS);
	EXPECT(fn == dlsym(libcuda, "cuLinkAddData_v2"), "cuLinkAddData at 6050");
	EXPECT_RC(cuGetProcAddress_v2("cuGetProcAddress", &fn, 11080, 0, &st), CUDA_SUCCESS);
	EXPECT(fn == dlsym(libcuda, "cuGetProcAddress"), "cuGetProcAddress at 11080");
	EXPECT_RC(cuGetProcAddress_v2("cuGetProcAddress", &fn, 12000, 0, &st), CUDA_SUCCESS);
	EXPECT(fn == dlsym(libcuda, "cuGetProcAddress_v2"), "cuGetProcAddress at 12000");

	fn = (void *)&st;
	EXPECT_RC(cuGetProcAddress_v2("cuLaunchKernelEx", &fn, 11050, 0, &st),
		  CUDA_ERROR_NOT_FOUND);
	EXPECT(!fn && st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT,
	       "cuLaunchKernelEx at 11050");
	EXPECT_LOG("cuGetProcAddress_v2 symbol=cuLaunchKernelEx version=11050 flags=0 -> "
		   "version-not-sufficient");
	EXPECT_RC(cuGetProcAddress_v2("cuLibraryLoadData", &fn, 11080, 0, &st),
		  CUDA_ERROR_NOT_FOUND);
	EXPECT(st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT, "cuLibraryLoadData at 11080");
	fn = (void *)&st;
	EXPECT_RC(cuGetProcAddress_v2("cuNoSuchThing", &fn, 13000, 0, &st), CUDA_ERROR_NOT_FOUND);
	EXPECT(!fn && st == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, "unknown symbol");
	EXPECT_LOG("cuGetProcAddress_v2 symbol=cuNoSuchThing version=13000 flags=0 -> not-found");
	/* An exported name with its suffix is not a base name. */
	EXPECT_RC(cuGetProcAddress_v2("cuMemAlloc_v2", &fn, 13000, 0, NULL), CUDA_ERROR_NOT_FOUND);

	EXPECT_RC(cuGetProcAddress("cuStreamSynchronize", &fn, 12000, 2), CUDA_SUCCESS);
	EXPECT(fn == dlsym(libcuda, "cuStreamSynchronize_ptsz"), "v1 getproc, per-thread");
	EXPECT_LOG("cuGetProcAddress symbol=cuStreamSynchronize version=12000 flags=2 -> "
		   "cuStreamSynchronize_ptsz");
	return 0;
}

/* ---- devices and memory */

static int test_devices(void)
{
	CUcontext ctx = NULL;
	char name[64];
	int v;

	EXPECT_RC(cuDeviceGetName(name, sizeof(name), 0), CUDA_SUCCESS);
	EXPECT(strncmp(name, "coloc-fake-", 11) == 0, "running on '%s', not the fake", name);
	EXPECT_RC(cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
	EXPECT(ctx, "cuInit made no context current");
	EXPECT_LOG("cuCtxGetCurrent ctx=1");
	EXPECT_RC(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0),
		  CUDA_SUCCESS);
	EXPECT(v == 9, "major %d", v);
	EXPECT_RC(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0),
		  CUDA_SUCCESS);
	EXPECT(v == 132, "%d SMs", v);
	EXPECT_LOG("cuDeviceGetAttribute attrib=16 device=0 value=132");
	EXPECT_RC(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 1),
		  CUDA_ERROR_INVALID_VALUE);
	EXPECT_RC(cuDriverGetVersion(&v), CUDA_SUCCESS);
	EXPECT(v == 13000, "driver version %d", v);
	return 0;
}

static int test_memory(CUdeviceptr *out, unsigned *id)
{
	uint32_t host[4] = {1, 2, 3, 4}, back[4];
	CUdeviceptr d;
	char want[128];

	EXPECT_RC(cuMemAlloc_v2(&d, 16), CUDA_SUCCESS);
	EXPECT(sscanf(last_line(), "cuMemAlloc_v2 bytes=16 ptr=@%u+0", id) == 1, "alloc log: %s",
	       last_line());
	EXPECT_RC(cuMemcpyHtoD_v2(d, host, sizeof(host)), CUDA_SUCCESS);
	EXPECT_RC(cuMemsetD32_v2(d + 4, 0x2a, 2), CUDA_SUCCESS);
	snprintf(want, sizeof(want), "cuMemsetD32_v2 dst=@%u+4 value=0x2a count=2", *id);
	EXPECT_LOG(want);
	EXPECT_RC(cuMemcpyDtoHAsync_v2_ptsz(back, d, sizeof(back), NULL), CUDA_SUCCESS);
	snprintf(want, sizeof(want), "cuMemcpyDtoHAsync_v2_ptsz src=@%u+0 bytes=16 stream=0", *id);
	EXPECT_LOG(want);
	EXPECT(back[0] == 1 && back[1] == 0x2a && back[2] == 0x2a && back[3] == 4,
	       "memory holds %u %u %u %u", back[0], back[1], back[2], back[3]);
	EXPECT_RC(cuMemsetD32_v2(d + 8, 0, 3), CUDA_ERROR_INVALID_VALUE); /* past the end */
	EXPECT_RC(cuMemFree_v2(d + 4), CUDA_ERROR_INVALID_VALUE);
	*out = d;
	return 0;
}

/* ---- modules and launches */

static int test_module(CUmodule *mod, CUfunction *add, CUfunction *mixed)
{
	CUdeviceptr counter;
	size_t bytes, offset, size;
	CUfunction fn;

	EXPECT_RC(cuModuleLoadData(mod, ptx_main), CUDA_SUCCESS);
	EXPECT_LOG(
		"cuModuleLoadData module=1 kind=ptx kernels=add,mixed,none,bare,__coloc_ptb_add");
	EXPECT_RC(cuModuleGetFunction(&fn, *mod, "commented_out"), CUDA_ERROR_NOT_FOUND);
	EXPECT_LOG("cuModuleGetFunction module=1 fn=commented_out error=CUDA_ERROR_NOT_FOUND");
	EXPECT_RC(cuModuleGetFunction(&fn, *mod, "declared"), CUDA_ERROR_NOT_FOUND);
	EXPECT_RC(cuModuleGetFunction(add, *mod, "add"), CUDA_SUCCESS);
	EXPECT_RC(cuModuleGetFunction(mixed, *mod, "mixed"), CUDA_SUCCESS);
	EXPECT_RC(cuModuleGetGlobal_v2(&counter, &bytes, *mod, "counter"), CUDA_SUCCESS);
	EXPECT(bytes == 4, "counter has %zu bytes", bytes);
	EXPECT_LOG("cuModuleGetGlobal_v2 module=1 name=counter bytes=4 ptr=@1+0");
	EXPECT_RC(cuModuleGetGlobal_v2(&counter, &bytes, *mod, "table"), CUDA_SUCCESS);
	EXPECT(bytes == 24, "table has %zu bytes", bytes);

	/* mixed: u8 at 0, 24 bytes aligned to 16 at 16, u16 at 40, f64 at 48. */
	EXPECT_RC(cuFuncGetParamInfo(*mixed, 1, &offset, &size), CUDA_SUCCESS);
	EXPECT(offset == 16 && size == 24, "s at %zu, %zu bytes", offset, size);
	EXPECT_RC(cuFuncGetParamInfo(*mixed, 3, &offset, &size), CUDA_SUCCESS);
	EXPECT(offset == 48 && size == 8, "d at %zu, %zu bytes", offset, size);
	EXPECT_LOG("cuFuncGetParamInfo fn=mixed index=3 offset=48 size=8");
	EXPECT_RC(cuFuncGetParamInfo(*mixed, 4, &offset, &size), CUDA_ERROR_INVALID_VALUE);
	EXPECT_RC(cuFuncGetParamInfo(*add, 1, &offset, &size), CUDA_SUCCESS);
	EXPECT(offset == 8 && size == 4, "n at %zu, %zu bytes", offset, size);
	return 0;
}

static int test_launch(CUfunction add, CUfunction mixed, CUdeviceptr d, unsigned id)
{
	static const char mixed_params[] =
		"params=0x7f,b:000102030405060708090a0b0c0d0e0f1011121314151617,0xbeef,"
		"0x3ff0000000000000";
	unsigned char c = 0x7f, s[24], buf[56] = {0};
	uint16_t h = 0xbeef;
	double dbl = 1.0;
	uint32_t n = 42;
	size_t bufsize = sizeof(buf), small = 40;
	void *params[] = {&c, s, &h, &dbl}, *add_params[] = {&d, &n};
	void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &bufsize,
			 CU_LAUNCH_PARAM_END};
	CUlaunchAttribute attrs[2] = {{.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE},
				      {.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION}};
	CUlaunchConfig config = {2, 1, 1, 64, 1, 1, 0, NULL, attrs, 2};
	CUstream stream;
	char want[256];
	unsigned i;

	for (i = 0; i < sizeof(s); i++)
		s[i] = (unsigned char)i;
	EXPECT_RC(cuLaunchKernel(mixed, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL), CUDA_SUCCESS);
	snprintf(want, sizeof(want),
		 "cuLaunchKernel fn=mixed grid=1,1,1 block=32,1,1 shmem=0 stream=0 %s",
		 mixed_params);
	EXPECT_LOG(want);

	/* The same values packed at the layout's offsets. */
	buf[0] = c;
	memcpy(buf + 16, s, sizeof(s));
	memcpy(buf + 40, &h, 2);
	memcpy(buf + 48, &dbl, 8);
	EXPECT_RC(
		cuLaunchKernel_ptsz(mixed, 1, 1, 1, 32, 1, 1, 0, CU_STREAM_PER_THREAD, NULL, extra),
		CUDA_SUCCESS);
	snprintf(
		want, sizeof(want),
		"cuLaunchKernel_ptsz fn=mixed grid=1,1,1 block=32,1,1 shmem=0 stream=per-thread %s "
		"packed=1",
		mixed_params);
	EXPECT_LOG(want);
	extra[3] = &small;
	EXPECT_RC(cuLaunchKernel(mixed, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, extra),
		  CUDA_ERROR_INVALID_VALUE);
	EXPECT_RC(cuLaunchKernel(mixed, 1, 1, 1, 32, 1, 1, 0, NULL, params, extra),
		  CUDA_ERROR_INVALID_VALUE);

	EXPECT_RC(cuStreamCreate(&stream, 1), CUDA_SUCCESS);
	EXPECT_LOG("cuStreamCreate flags=1 stream=1");
	config.hStream = stream;
	EXPECT_RC(cuLaunchKernelEx(&config, add, add_params, NULL), CUDA_SUCCESS);
	snprintf(want, sizeof(want),
		 "cuLaunchKernelEx fn=add grid=2,1,1 block=64,1,1 shmem=0 stream=1 attrs=2,4 "
		 "params=@%u+0,0x2a", id);
	EXPECT_LOG(want);
	EXPECT_RC(cuLaunchCooperativeKernel_ptsz(add, 1, 1, 1, 1, 1, 1, 0, stream, add_params),
		  CUDA_SUCCESS);
	EXPECT_RC(cuStreamDestroy_v2(stream), CUDA_SUCCESS);
	EXPECT_RC(cuStreamSynchronize(stream), CUDA_ERROR_INVALID_HANDLE);
	EXPECT_LOG("cuStreamSynchronize stream=? error=CUDA_ERROR_INVALID_HANDLE");
	EXPECT_RC(
		cuLaunchKernel((CUfunction)(void *)&n, 1, 1, 1, 1, 1, 1, 0, NULL, add_params, NULL),
		CUDA_ERROR_INVALID_HANDLE);
	EXPECT_LOG("cuLaunchKernel fn=? grid=1,1,1 block=1,1,1 shmem=0 stream=0 "
		   "error=CUDA_ERROR_INVALID_HANDLE");
	EXPECT_RC(cuLaunchKernel(add, 1, 1, 1, 2048, 1, 1, 0, NULL, add_params, NULL),
		  CUDA_ERROR_INVALID_VALUE);
	return 0;
}

/* Persistent blocks: the fake takes virtual blocks off the control block's counter. */
static int test_ptb(CUmodule mod, CUdeviceptr d, unsigned id)
{
	uint32_t n = 7, gx = 5, gy = 2, gz = 1, park = 0, base = 0, batch = 1, ctl_host[2] = {0, 0};
	CUdeviceptr ctl, stop, redo = 0;
	CUfunction ptb;
	CUevent ev;
	void *params[] = {&d, &n, &gx, &gy, &gz, &park, &base, &batch, &ctl, &stop, &redo};
	unsigned ctl_id, stop_id;
	char want[256];

	EXPECT_RC(cuModuleGetFunction(&ptb, mod, "__coloc_ptb_add"), CUDA_SUCCESS);
	EXPECT_RC(cuMemAlloc_v2(&ctl, 16), CUDA_SUCCESS);
	EXPECT(sscanf(last_line(), "cuMemAlloc_v2 bytes=16 ptr=@%u+0", &ctl_id) == 1, "alloc: %s",
	       last_line());
	EXPECT_RC(cuMemAlloc_v2(&stop, 4), CUDA_SUCCESS);
	EXPECT(sscanf(last_line(), "cuMemAlloc_v2 bytes=4 ptr=@%u+0", &stop_id) == 1, "alloc: %s",
	       last_line());
	EXPECT_RC(cuEventCreate(&ev, 0), CUDA_SUCCESS);

	/* Without a parker, the whole grid runs in the launch call: next and done reach 10. */
	EXPECT_RC(cuLaunchKernel(ptb, 132, 1, 1, 128, 1, 1, 0, NULL, params, NULL), CUDA_SUCCESS);
	snprintf(want, sizeof(want),
		 "cuLaunchKernel fn=__coloc_ptb_add grid=132,1,1 block=128,1,1 shmem=0 stream=0 "
		 "params=@%u+0,0x7,0x5,0x2,0x1,0x0,0x0,0x1,@%u+0,@%u+0,0x0 ran=10", id, ctl_id, stop_id);
	EXPECT_LOG(want);
	EXPECT_RC(cuMemcpyDtoH_v2(ctl_host, ctl, 8), CUDA_SUCCESS);
	EXPECT(ctl_host[0] == 10 && ctl_host[1] == 10, "control block %u %u", ctl_host[0], ctl_host[1]);

	/* A parker with COLOC_FAKE_PTB_STOP_AFTER=3 stays resident and finishes at the next call. */
	setenv("COLOC_FAKE_PTB_STOP_AFTER", "3", 1);
	park = 1;
	base = 0;
	EXPECT_RC(cuMemsetD32_v2(ctl, 0, 2), CUDA_SUCCESS);
	EXPECT_RC(cuLaunchKernel(ptb, 132, 1, 1, 128, 1, 1, 0, NULL, params, NULL), CUDA_SUCCESS);
	EXPECT(strstr(last_line(), " ran=3 resident=1"), "resident: %s", last_line());
	EXPECT_RC(cuMemcpyDtoH_v2(ctl_host, ctl, 8), CUDA_SUCCESS);
	EXPECT(log_has("gpu resident=1 fn=__coloc_ptb_add finished ran=7"), "no finish line");
	EXPECT(ctl_host[0] == 10 && ctl_host[1] == 10, "control block %u %u after it finished",
	       ctl_host[0], ctl_host[1]);

	/*
	 * A long one (COLOC_FAKE_RESIDENT_US) stopped while resident: worker 0
	 * pauses, an event recorded after it stays pending, a helper (park 0)
	 * takes nothing while the stop word is set; once it is clear worker 0
	 * goes on, a helper takes the rest, the kernel ends and the event
	 * completes.
	 */
	setenv("COLOC_FAKE_RESIDENT_US", "30000000", 1);
	EXPECT_RC(cuMemsetD32_v2(ctl, 0, 2), CUDA_SUCCESS);
	EXPECT_RC(cuLaunchKernel(ptb, 132, 1, 1, 128, 1, 1, 0, NULL, params, NULL), CUDA_SUCCESS);
	EXPECT(strstr(last_line(), " ran=3 resident=2"), "resident: %s", last_line());
	EXPECT_RC(cuEventRecord(ev, NULL), CUDA_SUCCESS);
	unsetenv("COLOC_FAKE_RESIDENT_US");
	EXPECT_RC(cuEventQuery(ev), CUDA_ERROR_NOT_READY);
	EXPECT_RC(cuMemsetD32_v2(stop, 1, 1), CUDA_SUCCESS);
	EXPECT_RC(cuEventQuery(ev), CUDA_ERROR_NOT_READY);
	EXPECT(log_has("gpu resident=2 fn=__coloc_ptb_add parked"), "no parked line");
	park = 0;
	base = 132; /* a helper: its own bank of slots, as the runtime launches one */
	EXPECT_RC(cuLaunchKernel(ptb, 132, 1, 1, 128, 1, 1, 0, NULL, params, NULL), CUDA_SUCCESS);
	EXPECT(strstr(last_line(), " ran=0"), "a helper ran while stopped: %s", last_line());
	EXPECT(!strstr(last_line(), "resident="), "a helper stayed resident: %s", last_line());
	EXPECT_RC(cuMemsetD32_v2(stop, 0, 1), CUDA_SUCCESS);
	EXPECT_RC(cuLaunchKernel(ptb, 132, 1, 1, 128, 1, 1, 0, NULL, params, NULL), CUDA_SUCCESS);
	EXPECT(strstr(last_line(), " ran=7"), "the helper: %s", last_line());
	EXPECT(log_has("gpu resident=2 fn=__coloc_ptb_add resumed"), "no resumed line");
	EXPECT_RC(cuEventQuery(ev), CUDA_SUCCESS);
	EXPECT(log_has("gpu resident=2 fn=__coloc_ptb_add finished ran=0"), "no finished line");
	EXPECT_RC(cuEventSynchronize(ev), CUDA_SUCCESS);

	/*
	 * Launched while the stop word is set: it pauses at once; once the word
	 * is clear worker 0 goes on by itself (its time is up at once here) and
	 * a helper finds nothing left.
	 */
	park = 1;
	base = 0;
	EXPECT_RC(cuMemsetD32_v2(ctl, 0, 2), CUDA_SUCCESS);
	EXPECT_RC(cuMemsetD32_v2(stop, 1, 1), CUDA_SUCCESS);
	EXPECT_RC(cuLaunchKernel(ptb, 132, 1, 1, 128, 1, 1, 0, NULL, params, NULL), CUDA_SUCCESS);
	EXPECT(strstr(last_line(), " ran=0 parked=3"), "parked at launch: %s", last_line());
	EXPECT_RC(cuMemsetD32_v2(stop, 0, 1), CUDA_SUCCESS);
	park = 0;
	base = 132; /* a helper: its own bank of slots, as the runtime launches one */
	EXPECT_RC(cuLaunchKernel(ptb, 132, 1, 1, 128, 1, 1, 0, NULL, params, NULL), CUDA_SUCCESS);
	EXPECT(strstr(last_line(), " ran=0"), "its helper: %s", last_line());
	EXPECT_RC(cuCtxSynchronize(), CUDA_SUCCESS);
	EXPECT(log_has("gpu resident=3 fn=__coloc_ptb_add resumed"), "no resumed line");
	EXPECT(log_has("gpu resident=3 fn=__coloc_ptb_add finished ran=10"), "no finished line");

	/*
	 * Stopped and every block done by helpers while still paused (the
	 * word's clear has not arrived): worker 0 leaves without going on.
	 */
	park = 1;
	base = 0;
	setenv("COLOC_FAKE_RESIDENT_US", "30000000", 1);
	EXPECT_RC(cuMemsetD32_v2(ctl, 0, 2), CUDA_SUCCESS);
	EXPECT_RC(cuLaunchKernel(ptb, 132, 1, 1, 128, 1, 1, 0, NULL, params, NULL), CUDA_SUCCESS);
	unsetenv("COLOC_FAKE_RESIDENT_US");
	EXPECT(strstr(last_line(), " ran=3 resident=4"), "resident: %s", last_line());
	EXPECT_RC(cuMemsetD32_v2(stop, 1, 1), CUDA_SUCCESS);
	EXPECT_RC(cuMemsetD32_v2(ctl + 4, 10, 1), CUDA_SUCCESS); /* as if helpers did the rest */
	EXPECT_RC(cuCtxSynchronize(), CUDA_SUCCESS);
	EXPECT(log_has("gpu resident=4 fn=__coloc_ptb_add unparked"), "no unparked line");
	EXPECT_RC(cuMemsetD32_v2(stop, 0, 1), CUDA_SUCCESS);
	unsetenv("COLOC_FAKE_PTB_STOP_AFTER");

	/* A control pointer outside device memory faults, as on the GPU. */
	ctl = 16;
	EXPECT_RC(cuLaunchKernel(ptb, 132, 1, 1, 128, 1, 1, 0, NULL, params, NULL),
		  CUDA_ERROR_LAUNCH_FAILED);
	EXPECT_RC(cuEventDestroy_v2(ev), CUDA_SUCCESS);
	return 0;
}

static int test_jit_fail(void)
{
	static const char bad[] = ".version 8.0\n.target sm_80\n// FAKE_JIT_FAIL\n"
				  ".visible .entry k()\n{\n\tret;\n}\n";
	char log[16] = "untouched", big[128];
	CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
	void *values[2] = {log, (void *)(uintptr_t)sizeof(log)};
	CUmodule mod;
	CUlinkState link;
	void *cubin;
	size_t size;

	EXPECT_RC(cuModuleLoadDataEx(&mod, bad, 2, opts, values), CUDA_ERROR_INVALID_PTX);
	EXPECT(strcmp(log, "fake ptxas: FAK") == 0, "error log '%s'", log);
	EXPECT_LOG("cuModuleLoadDataEx options=5,6 kind=ptx error=CUDA_ERROR_INVALID_PTX");
	EXPECT_RC(cuModuleLoadData(&mod, "not an image"), CUDA_ERROR_INVALID_IMAGE);
	EXPECT_LOG("cuModuleLoadData error=CUDA_ERROR_INVALID_IMAGE");

	values[0] = big;
	values[1] = (void *)(uintptr_t)sizeof(big);
	EXPECT_RC(cuLinkCreate_v2(2, opts, values, &link), CUDA_SUCCESS);
	EXPECT_RC(cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, (void *)bad, sizeof(bad), "bad.ptx", 0,
				   NULL, NULL),
		  CUDA_SUCCESS);
	EXPECT_RC(cuLinkComplete(link, &cubin, &size), CUDA_ERROR_INVALID_PTX);
	EXPECT(strcmp(big, FAKE_JIT_FAIL_LOG) == 0, "link error log '%s'", big);
	EXPECT_RC(cuLinkDestroy(link), CUDA_SUCCESS);
	return 0;
}

/* Two PTX inputs linked into a fake cubin, which loads with both modules' kernels. */
static int test_link(void)
{
	static const char a[] =
		".version 8.0\n.target sm_80\n.visible .entry a(.param .u32 x)\n{\n}\n";
	static const char b[] = ".version 8.0\n.target sm_80\n.visible .entry b()\n{\n}\n";
	CUlinkState link;
	CUmodule mod;
	void *cubin;
	size_t size;
	char want[128];

	EXPECT_RC(cuLinkCreate(0, NULL, NULL, &link), CUDA_SUCCESS);
	EXPECT_LOG("cuLinkCreate options= link=2");
	EXPECT_RC(
		cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)a, sizeof(a), "a.ptx", 0, NULL, NULL),
		CUDA_SUCCESS);
	EXPECT_RC(
		cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, (void *)b, strlen(b), NULL, 0, NULL, NULL),
		CUDA_ERROR_INVALID_PTX); /* PTX without its NUL */
	EXPECT_LOG("cuLinkAddData_v2 link=2 type=1 bytes=51 name= error=CUDA_ERROR_INVALID_PTX");
	EXPECT_RC(
		cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, (void *)b, strlen(b) + 1, NULL, 0, NULL, NULL),
		CUDA_SUCCESS);
	EXPECT_LOG("cuLinkAddData_v2 link=2 type=1 bytes=52 name=");
	EXPECT_RC(cuLinkAddData_v2(link, CU_JIT_INPUT_CUBIN, (void *)b, strlen(b), NULL, 0, NULL,
				   NULL),
		  CUDA_ERROR_NOT_SUPPORTED);
	EXPECT_LOG("cuLinkAddData_v2 link=2 type=0 bytes=51 name= error=CUDA_ERROR_NOT_SUPPORTED");
	EXPECT_RC(cuLinkComplete(link, &cubin, &size), CUDA_SUCCESS);
	EXPECT(size == 10 + strlen(a) + 1 + strlen(b) + 1 + 1 &&
		       memcmp(cubin, "FAKECUBIN\n", 10) == 0,
	       "fake cubin of %zu bytes", size);
	snprintf(want, sizeof(want), "cuLinkComplete link=2 bytes=%zu", size);
	EXPECT_LOG(want);
	EXPECT_RC(cuModuleLoadData(&mod, cubin), CUDA_SUCCESS);
	EXPECT(strstr(last_line(), " kind=cubin kernels=a,b"), "cubin load: %s", last_line());
	EXPECT_RC(cuLinkDestroy(link), CUDA_SUCCESS);
	EXPECT_RC(cuLinkDestroy(link), CUDA_ERROR_INVALID_HANDLE);
	EXPECT_RC(cuModuleUnload(mod), CUDA_SUCCESS);
	return 0;
}

/* Fatbins: the newest PTX the device can JIT, from a container or a registration wrapper. */
static int test_fatbin(void)
{
	static const char ptx80[] = ".version 8.0\n.target sm_80\n.visible .entry from80()\n{\n}\n";
	static const char ptx100[] =
		".version 8.8\n.target sm_100\n.visible .entry from100()\n{\n}\n";
	struct coloc_fatbin_image images[2] = {
		{COLOC_FATBIN_PTX, 80, 0, ptx80, sizeof(ptx80) - 1, COLOC_FATBIN_LZ4, NULL},
		{COLOC_FATBIN_PTX, 100, 0, ptx100, sizeof(ptx100) - 1, COLOC_FATBIN_PLAIN, NULL},
	};
	struct coloc_fatbin_wrapper wrapper = {(int32_t)COLOC_FATBIN_WRAPPER_MAGIC, 1, NULL, NULL};
	struct coloc_diag diag;
	struct coloc_buf fb, only100;
	CUmodule mod;

	coloc_diag_init(&diag, "fatbin", stdout);
	coloc_buf_init(&fb);
	coloc_buf_init(&only100);
	EXPECT(coloc_fatbin_write(&fb, images, 2, &diag) == 0, "cannot write a fatbin");
	EXPECT(coloc_fatbin_write(&only100, images + 1, 1, &diag) == 0, "cannot write a fatbin");
	EXPECT_RC(cuModuleLoadData(&mod, fb.data), CUDA_SUCCESS);
	EXPECT(strstr(last_line(), " kind=fatbin arch=compute_80 kernels=from80"), "fatbin: %s",
	       last_line());
	wrapper.data = fb.data;
	EXPECT_RC(cuModuleLoadFatBinary(&mod, &wrapper), CUDA_SUCCESS);
	EXPECT(strstr(last_line(), " kind=fatbin arch=compute_80 kernels=from80"), "wrapper: %s",
	       last_line());
	EXPECT_RC(cuModuleLoadData(&mod, only100.data), CUDA_ERROR_NO_BINARY_FOR_GPU);
	EXPECT_LOG("cuModuleLoadData kind=fatbin error=CUDA_ERROR_NO_BINARY_FOR_GPU");
	coloc_buf_release(&fb);
	coloc_buf_release(&only100);
	return 0;
}

/* Real cubins, alone or in a fatbin: kernels and parameter layouts from .nv.info. */
static int test_cubin(const char *path)
{
	struct coloc_fatbin_image image = {.kind = COLOC_FATBIN_ELF, .sm = 90,
					   .compression = COLOC_FATBIN_ZSTD};
	struct coloc_diag diag;
	struct coloc_buf cubin, fb;
	size_t offset, size;
	CUmodule mod;
	CUfunction fn;

	coloc_diag_init(&diag, path, stdout);
	coloc_buf_init(&cubin);
	coloc_buf_init(&fb);
	EXPECT(coloc_buf_read_file(&cubin, path) == 0, "cannot read %s", path);
	EXPECT_RC(cuModuleLoadData(&mod, cubin.data), CUDA_SUCCESS);
	EXPECT(strstr(last_line(), " kind=elf arch=sm_90 kernels="), "cubin: %s", last_line());
	EXPECT_RC(cuModuleGetFunction(&fn, mod, "scale"), CUDA_SUCCESS);
	EXPECT_RC(cuFuncGetParamInfo(fn, 2, &offset, &size), CUDA_SUCCESS);
	EXPECT(offset == 12 && size == 4, "scale's factor at %zu, %zu bytes", offset, size);

	/* A fatbin without PTX: the cubin of the device's major architecture. */
	image.data = cubin.data;
	image.size = cubin.len;
	EXPECT(coloc_fatbin_write(&fb, &image, 1, &diag) == 0, "cannot write a fatbin");
	EXPECT_RC(cuModuleLoadData(&mod, fb.data), CUDA_SUCCESS);
	EXPECT(strstr(last_line(), " kind=fatbin arch=sm_90 kernels="), "fatbin: %s", last_line());
	EXPECT_RC(cuModuleLoad(&mod, path), CUDA_SUCCESS);
	EXPECT(strstr(last_line(), "cuModuleLoad file=fake_selftest_sm90.cubin module="), "%s",
	       last_line());
	EXPECT_RC(cuModuleLoad(&mod, "/nonexistent/x.cubin"), CUDA_ERROR_FILE_NOT_FOUND);
	EXPECT_LOG("cuModuleLoad file=x.cubin error=CUDA_ERROR_FILE_NOT_FOUND");
	coloc_buf_release(&cubin);
	coloc_buf_release(&fb);
	return 0;
}

/* Above 48 KiB of dynamic shared memory only after opting in, by CUfunction or by CUkernel. */
static int test_shmem(CUfunction add, CUdeviceptr d)
{
	uint32_t n = 1;
	void *params[] = {&d, &n};
	CUlibrary lib;
	CUkernel kernel;
	CUfunction fn;
	int v;

	EXPECT_RC(cuLaunchKernel(add, 1, 1, 1, 32, 1, 1, 48 * 1024, NULL, params, NULL),
		  CUDA_SUCCESS);
	EXPECT_RC(cuLaunchKernel(add, 1, 1, 1, 32, 1, 1, 64 * 1024, NULL, params, NULL),
		  CUDA_ERROR_INVALID_VALUE);
	EXPECT(strstr(last_line(), " shmem=65536 stream=0 error=CUDA_ERROR_INVALID_VALUE"), "%s",
	       last_line());
	EXPECT_RC(
		cuFuncSetAttribute(add, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 64 * 1024),
		CUDA_SUCCESS);
	EXPECT_LOG("cuFuncSetAttribute fn=add attrib=8 value=65536");
	EXPECT_RC(cuLaunchKernel(add, 1, 1, 1, 32, 1, 1, 64 * 1024, NULL, params, NULL),
		  CUDA_SUCCESS);
	EXPECT_RC(cuLaunchKernel(add, 1, 1, 1, 32, 1, 1, 64 * 1024 + 1, NULL, params, NULL),
		  CUDA_ERROR_INVALID_VALUE);
	EXPECT_RC(cuFuncSetAttribute(add, CU_FUNC_ATTRIBUTE_NUM_REGS, 10),
		  CUDA_ERROR_INVALID_VALUE);

	EXPECT_RC(cuLibraryLoadData(&lib, ptx_main, NULL, NULL, 0, NULL, NULL, 0), CUDA_SUCCESS);
	EXPECT(strncmp(last_line(), "cuLibraryLoadData library=1 module=", 35) == 0, "%s",
	       last_line());
	EXPECT_RC(cuLibraryGetKernel(&kernel, lib, "add"), CUDA_SUCCESS);
	EXPECT_LOG("cuLibraryGetKernel library=1 kernel=add");
	EXPECT_RC(cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100000,
				       kernel, 0),
		  CUDA_SUCCESS);
	EXPECT_RC(cuLaunchKernel((CUfunction)(void *)kernel, 1, 1, 1, 32, 1, 1, 100000, NULL,
				 params, NULL),
		  CUDA_SUCCESS);
	EXPECT(strncmp(last_line(), "cuLaunchKernel fn=add via=kernel grid=1,1,1", 43) == 0, "%s",
	       last_line());
	EXPECT_RC(cuKernelGetFunction(&fn, kernel), CUDA_SUCCESS);
	EXPECT_LOG("cuKernelGetFunction kernel=add fn=add");
	EXPECT((void *)fn != (void *)kernel, "CUfunction and CUkernel must differ");
	EXPECT_RC(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, fn),
		  CUDA_SUCCESS);
	EXPECT(v == 100000, "the kernel's attribute is not the function's: %d", v);
	/* A CUfunction is not a CUkernel. */
	EXPECT_RC(cuKernelGetFunction(&fn, (CUkernel)(void *)fn), CUDA_ERROR_INVALID_HANDLE);
	EXPECT_RC(cuOccupancyMaxActiveBlocksPerMultiprocessor(&v, add, 100, 0), CUDA_SUCCESS);
	EXPECT(v == 16, "occupancy at 100 threads: %d", v);
	EXPECT_RC(cuLibraryUnload(lib), CUDA_SUCCESS);
	EXPECT_RC(cuLaunchKernel((CUfunction)(void *)kernel, 1, 1, 1, 32, 1, 1, 0, NULL, params,
				 NULL),
		  CUDA_ERROR_INVALID_HANDLE);
	return 0;
}

/* ---- concurrency: whole lines, however the calls interleave */

enum { THREADS = 4, CALLS = 200 };

static void *memset_loop(void *arg)
{
	CUdeviceptr d = *(CUdeviceptr *)arg;
	int i;

	for (i = 0; i < CALLS; i++)
		cuMemsetD8_v2(d, (unsigned char)i, 16);
	return NULL;
}

static int test_threads(CUdeviceptr d, unsigned id)
{
	pthread_t t[THREADS];
	struct coloc_buf b;
	char prefix[64];
	size_t n = 0, len;
	const char *p, *nl;
	int i;

	for (i = 0; i < THREADS; i++)
		EXPECT(pthread_create(&t[i], NULL, memset_loop, &d) == 0, "pthread_create");
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	len = (size_t)snprintf(prefix, sizeof(prefix), "cuMemsetD8_v2 dst=@%u+0 value=0x", id);
	coloc_buf_init(&b);
	EXPECT(coloc_buf_read_file(&b, log_path) == 0 && coloc_buf_cstr(&b), "cannot read the log");
	for (p = b.data; (nl = strchr(p, '\n')); p = nl + 1) {
		EXPECT(strncmp(p, "cu", 2) == 0 || strncmp(p, "gpu resident=", 13) == 0,
		       "a broken log line: %.*s", (int)(nl - p), p);
		if (strncmp(p, prefix, len) == 0) {
			EXPECT(strncmp(nl - 9, " count=16", 9) == 0, "a broken log line: %.*s",
			       (int)(nl - p), p);
			n++;
		}
	}
	EXPECT(*p == '\0', "the log ends without a newline");
	EXPECT(n == THREADS * CALLS, "%zu memset lines, expected %d", n, THREADS * CALLS);
	coloc_buf_release(&b);
	return 0;
}

int main(int argc, char **argv)
{
	CUmodule mod;
	CUfunction add, mixed;
	CUdeviceptr d;
	unsigned id;
	FILE *f;
	int count;

	log_path = getenv("COLOC_FAKE_LOG");
	if (argc != 3 || !log_path) {
		printf("usage: COLOC_FAKE_LOG=FILE fake_selftest LIBCUDA_SO_1 CUBIN\n");
		return 2;
	}
	if (!(f = fopen(log_path, "w"))) {
		printf("FAIL: cannot truncate %s\n", log_path);
		return 1;
	}
	fclose(f);
	if (!(libcuda = dlopen(argv[1], RTLD_NOW))) {
		printf("FAIL: dlopen %s: %s\n", argv[1], dlerror());
		return 1;
	}

	if (cuDeviceGetCount(&count) != CUDA_ERROR_NOT_INITIALIZED ||
	    strcmp(last_line(), "cuDeviceGetCount error=CUDA_ERROR_NOT_INITIALIZED") != 0) {
		printf("FAIL: calls before cuInit must fail and log: %s\n", last_line());
		return 1;
	}
	if (cuInit(0) != CUDA_SUCCESS) {
		printf("FAIL: cuInit\n");
		return 1;
	}
	/* The module first: its variables are allocations 1 and 2. */
	if (test_devices() || test_module(&mod, &add, &mixed) || test_getproc_table() ||
	    test_exports(argv[1]) || test_getproc_rules() || test_memory(&d, &id) ||
	    test_launch(add, mixed, d, id) || test_ptb(mod, d, id) || test_jit_fail() ||
	    test_link() || test_fatbin() || test_cubin(argv[2]) || test_shmem(add, d) ||
	    test_threads(d, id))
		return 1;
	EXPECT_RC(cuModuleUnload(mod), CUDA_SUCCESS);
	EXPECT_RC(cuModuleGetFunction(&add, mod, "add"), CUDA_ERROR_INVALID_HANDLE);
	EXPECT_RC(cuMemFree_v2(d), CUDA_SUCCESS);
	printf("fake libcuda.so.1: all checks passed\n");
	return 0;
}
