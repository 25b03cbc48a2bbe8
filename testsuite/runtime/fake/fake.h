/*
 * The fake CUDA driver's internals, shared by its files: fake_cuda.c
 * (state, log, devices, memory), fake_launch.c (streams, events,
 * functions, launches, persistent kernels), fake_module.c (images, PTX
 * scanning, modules, libraries, linking), fake_vmm.c (the virtual memory
 * API), fake_graph.c (stream capture and graphs) and fake_getproc.c (the
 * entry-point table).  The log line formats are documented at the top of
 * fake_cuda.c, the resident kernels' "gpu" lines at the top of fake_launch.c.
 *
 * Also declares every exported entry point, so that the selftest and the
 * entry-point table see the same prototypes the definitions have.
 */
#ifndef COLOC_FAKE_H
#define COLOC_FAKE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "buf.h"
#include "cuda_abi.h"

#define FAKE_EXPORT __attribute__((visibility("default")))

/* The 32-bit device pointer of the CUDA 2.x ABI (cuMemAlloc, cuMemFree). */
typedef unsigned int CUdeviceptr_v1;

#define FAKE_MAX_DEVICES 16
#define FAKE_CUBIN_MAGIC "FAKECUBIN\n"
#define FAKE_CUBIN_MAGIC_LEN 10
#define FAKE_JIT_FAIL "FAKE_JIT_FAIL"
#define FAKE_JIT_FAIL_LOG "fake ptxas: FAKE_JIT_FAIL found"
/* sm_90's maximum of dynamic shared memory a kernel can opt in to. */
#define FAKE_LIMIT_SHMEM_OPTIN 232448

/* One parameter of a kernel: where it lies in the packed parameter buffer. */
struct fake_param {
	uint32_t offset;
	uint32_t size;
};

/*
 * Handles are addresses of tag bytes inside the objects, looked up by
 * scanning: a stale or foreign handle is recognized instead of followed.
 * Unloaded modules stay allocated (marked dead), so a stale handle never
 * aliases a newer object.
 */
struct fake_kernel {
	char fn_tag;     /* CUfunction */
	char kernel_tag; /* CUkernel: a distinct value for the same kernel */
	struct fake_module *mod;
	const char *name;
	struct fake_param *params;
	unsigned nparams;
	uint32_t param_bytes;
	unsigned registers;               /* a thread's, from a cubin; 0 from PTX */
	int attrs[CU_FUNC_ATTRIBUTE_MAX]; /* as set by cuFuncSetAttribute */
	int cache_config;
	struct fake_kernel *next;
};

/* A module-scope .global or .const variable, backed by an allocation. */
struct fake_global {
	const char *name;
	struct fake_alloc *alloc;
	struct fake_global *next;
};

struct fake_module {
	char module_tag;  /* CUmodule */
	char library_tag; /* CUlibrary, when library_id is set */
	unsigned id;
	unsigned library_id; /* 0 unless loaded by cuLibraryLoad* */
	bool dead;
	struct coloc_arena arena; /* kernels, names, parameter layouts */
	struct fake_kernel *kernels, *kernels_tail;
	struct fake_global *globals;
	struct fake_module *next;
};

struct fake_alloc {
	unsigned id;
	unsigned char *base;
	size_t size;
	bool low;    /* mmap'ed below 4 GiB for the 32-bit cuMemAlloc */
	bool global; /* a module's variable: freed with the module, not by cuMemFree */
	struct fake_alloc *next;
};

struct fake_stream {
	char tag;
	unsigned id;
	bool dead;
	bool stuck; /* COLOC_FAKE_STUCK_STREAM: shares a hardware queue with resident kernels */
	uint64_t copy_until_ns; /* COLOC_FAKE_COPY_US: its last copy lands then (fake_now_ns) */
	unsigned flags; /* as created (CU_STREAM_NON_BLOCKING = 1) */
	struct fake_stream *next;
};

struct fake_event {
	char tag;
	unsigned id;
	bool dead;
	bool recorded;
	bool captured; /* last recorded on a stream in capture: not to be waited for */
	uint64_t done_ns; /* when the work recorded before it ends (COLOC_FAKE_KERNEL_US) */
	unsigned after_resident; /* the resident kernel before it on its stream, or 0 */
	struct fake_event *next;
};

struct fake_link {
	char tag;
	unsigned id;
	bool dead;
	struct coloc_buf ptx;   /* the inputs, concatenated */
	struct coloc_buf cubin; /* what cuLinkComplete returned */
	char *error_log;        /* CU_JIT_ERROR_LOG_BUFFER given to cuLinkCreate */
	size_t error_log_size;
	struct fake_link *next;
};

struct fake_ctx {
	char tag;
	int device;
	unsigned refs;
};

/* All of the fake's state; every field is guarded by `lock`. */
struct fake_state {
	pthread_mutex_t lock;
	bool initialized;
	int ndevices;
	unsigned sm;  /* 90 for COLOC_FAKE_CC=90 */
	char variant; /* 'a' for COLOC_FAKE_CC=90a */
	struct fake_ctx ctx[FAKE_MAX_DEVICES];
	struct fake_ctx *current; /* cuInit's thread's: the default of threads that set none */
	struct fake_alloc *allocs;
	unsigned next_alloc;
	struct fake_stream *streams;
	bool stuck_given; /* COLOC_FAKE_STUCK_STREAM: the stuck stream was made */
	unsigned next_stream;
	struct fake_event *events;
	unsigned next_event;
	struct fake_module *modules;
	unsigned next_module;
	unsigned next_library;
	struct fake_link *links;
	unsigned next_link;
	/* COLOC_FAKE_KERNEL_US and _BLOCK_US: each launch keeps the "GPU" busy after
	 * the work before it; synchronization calls sleep until then. */
	uint64_t busy_until_ns;
	/* A kernel was launched: COLOC_FAKE_KERNEL_HOLD keeps the "GPU" busy from then on. */
	bool launched;
};

extern struct fake_state fake;

/*
 * One call: fake_begin takes the lock and starts the log line with the
 * entry point's name; fake_end adds " error=NAME" when rc is not
 * CUDA_SUCCESS, writes the line, drops the lock and returns rc.
 */
void fake_begin(struct coloc_buf *line, const char *name);
CUresult fake_end(struct coloc_buf *line, CUresult rc);
/* Appends a finished line to COLOC_FAKE_LOG; under the lock. */
void fake_log_write(struct coloc_buf *line);
CUresult fake_need_init(void);
void fake_kernel_ran(uint64_t blocks, uint64_t at_once, bool variant);
/* Where new work starts on the time line (COLOC_FAKE_GAPLESS); under the lock. */
uint64_t fake_gpu_now(void);
/* CLOCK_MONOTONIC in ns: the simulated GPU's time line. */
uint64_t fake_now_ns(void);
/* A copy went on `stream`: with COLOC_FAKE_COPY_US it lands that much later (fake_launch.c). */
void fake_stream_copied(CUstream stream);
/* Sleeps, unlocked, until the simulated GPU reaches `until`; passes rc on. */
CUresult fake_sleep_until(uint64_t until, CUresult rc);
/* After a synchronization call's log line: waits until the GPU is idle. */
CUresult fake_wait_idle(CUresult rc);
/* Whether COLOC_FAKE_KERNEL_HOLD keeps the "GPU" busy now. */
bool fake_held(void);
/* Advances resident persistent kernels (fake_launch.c); under the lock. */
void fake_progress(void);
/* The id of the live resident kernel last launched on `stream`, or 0; under the lock. */
unsigned fake_resident_on(CUstream stream);
/* Whether resident kernel `id` is still live; under the lock. */
bool fake_resident_live(unsigned id);
/* Whether any resident kernel is live; under the lock. */
bool fake_resident_any(void);
/*
 * After a synchronization call's log line: waits, unlocked, until no resident
 * kernel of `stream` (all of them when `all`) or `id` (when not 0) is live.
 */
CUresult fake_wait_resident(bool all, CUstream stream, unsigned id, CUresult rc);
CUresult fake_need_ctx(void);

/* Zeroed host memory standing in for device memory, with the next id. */
struct fake_alloc *fake_alloc_new(size_t size);
void fake_alloc_free(struct fake_alloc *a);
/* The live allocation holding `addr`, and the offset into it; NULL if none. */
struct fake_alloc *fake_alloc_find(uint64_t addr, size_t *offset);
/* "@ID+OFFSET" for an address inside an allocation, otherwise "0xHEX". */
void fake_put_dptr(struct coloc_buf *line, uint64_t addr);

/* Appends " stream=S" (fake_cuda.c's form) or fails with CUDA_ERROR_INVALID_HANDLE. */
CUresult fake_put_stream(struct coloc_buf *line, CUstream s);
/* Host memory behind device (or mapped host) range [addr, addr + bytes), or NULL. */
unsigned char *fake_dev_range(uint64_t addr, size_t bytes);
/* Mapped host memory (cuMemHostAlloc) behind [addr, addr + bytes), or NULL; under the lock. */
unsigned char *fake_host_range(uint64_t addr, size_t bytes);

/* ---- fake_graph.c, under the lock */
struct fake_graph;
/* The graph work on `stream` is recorded into (logged " captured=G"), or NULL: it runs. */
struct fake_graph *fake_capture_put(struct coloc_buf *line, CUstream stream);
void fake_capture_kernel(struct fake_graph *graph, const struct fake_kernel *k, uint64_t blocks);
void fake_capture_memset(struct fake_graph *graph, uint64_t dst, unsigned value, unsigned width,
			 size_t count);
/*
 * A synchronization or query of `stream` (NULL: none), of the context
 * (`ctx`) or of an event (`captured_event`: recorded in a capture) while
 * captures are open: CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, invalidating
 * them, when the driver's rules forbid it; else CUDA_SUCCESS.
 */
CUresult fake_capture_forbids(CUstream stream, bool ctx, bool captured_event);
/* cuStreamIsCapturing's answer for `stream`. */
CUresult fake_capture_status(CUstream stream, int *status);

/* fake_vmm.c: what physical allocations hold; memory under the budget not held yet. */
uint64_t fake_vmm_held(void);
uint64_t fake_mem_room(void);
/* Appends "R<id>+<offset>" for an address in a reserved range; false when it is in none. */
bool fake_vmm_put(struct coloc_buf *line, uint64_t addr);
/* Host memory behind mapped, accessible [addr, addr + bytes), or NULL. */
unsigned char *fake_vmm_range(uint64_t addr, size_t bytes);

/* The live kernel behind a CUfunction or a CUkernel handle. */
struct fake_kernel *fake_kernel_find(const void *handle, bool *via_kernel);
/* Appends " fn=NAME" (and " via=kernel") or fails with CUDA_ERROR_INVALID_HANDLE. */
CUresult fake_put_fn(struct coloc_buf *line, const void *handle, struct fake_kernel **out);

/* Function attributes shared by cuFunc*Attribute and cuKernel*Attribute. */
CUresult fake_attr_set(struct fake_kernel *k, int attrib, int value);
CUresult fake_attr_get(const struct fake_kernel *k, int attrib, int *value);

/* ---- exported entry points */

FAKE_EXPORT CUresult cuInit(unsigned int flags);
FAKE_EXPORT CUresult cuDriverGetVersion(int *version);
FAKE_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal);
FAKE_EXPORT CUresult cuDeviceGetCount(int *count);
FAKE_EXPORT CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attrib, CUdevice dev);
FAKE_EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev);
FAKE_EXPORT CUresult cuCtxGetCurrent(CUcontext *ctx);
FAKE_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx);
FAKE_EXPORT CUresult cuCtxGetDevice(CUdevice *device);
FAKE_EXPORT CUresult cuCtxSynchronize(void);
FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev);
FAKE_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev);

FAKE_EXPORT CUresult cuMemAlloc(CUdeviceptr_v1 *dptr, unsigned int bytes);
FAKE_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes);
FAKE_EXPORT CUresult cuMemFree(CUdeviceptr_v1 dptr);
FAKE_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr);
FAKE_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytes, CUstream stream);
FAKE_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytes, CUstream stream);
FAKE_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream stream);
FAKE_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream stream);
FAKE_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytes, unsigned int flags);
FAKE_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width,
					size_t height, unsigned int elem);
FAKE_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t bytes,
				 const CUmemAllocationProp *prop, unsigned long long flags);
FAKE_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle);
FAKE_EXPORT CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total);
FAKE_EXPORT CUresult cuMemGetAllocationGranularity(size_t *granularity,
						   const CUmemAllocationProp *prop, int option);
FAKE_EXPORT CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
					 CUdeviceptr addr, unsigned long long flags);
FAKE_EXPORT CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size);
FAKE_EXPORT CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
			      CUmemGenericAllocationHandle handle, unsigned long long flags);
FAKE_EXPORT CUresult cuMemUnmap(CUdeviceptr ptr, size_t size);
FAKE_EXPORT CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
				    size_t count);
FAKE_EXPORT CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr ptr);
FAKE_EXPORT CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attr, CUdeviceptr ptr);
FAKE_EXPORT CUresult cuIpcGetMemHandle(CUipcMemHandle *handle, CUdeviceptr ptr);
FAKE_EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count,
				     CUstream stream);
FAKE_EXPORT CUresult cuMemsetD8Async_ptsz(CUdeviceptr dst, unsigned char value, size_t count,
					  CUstream stream);
FAKE_EXPORT CUresult cuMemHostAlloc(void **pp, size_t bytes, unsigned int flags);
FAKE_EXPORT CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *dptr, void *p, unsigned int flags);
FAKE_EXPORT CUresult cuMemFreeHost(void *p);
FAKE_EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev);
FAKE_EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t count);
FAKE_EXPORT CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int value, size_t count);
FAKE_EXPORT CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t count,
				      CUstream stream);
FAKE_EXPORT CUresult cuMemsetD32Async_ptsz(CUdeviceptr dst, unsigned int value, size_t count,
					   CUstream stream);
FAKE_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes);
FAKE_EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes);
FAKE_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t bytes,
					  CUstream stream);
FAKE_EXPORT CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dst, const void *src, size_t bytes,
					       CUstream stream);
FAKE_EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t bytes,
					  CUstream stream);
FAKE_EXPORT CUresult cuMemcpyDtoHAsync_v2_ptsz(void *dst, CUdeviceptr src, size_t bytes,
					       CUstream stream);

FAKE_EXPORT CUresult cuStreamCreate(CUstream *stream, unsigned int flags);
FAKE_EXPORT CUresult cuStreamCreateWithPriority(CUstream *stream, unsigned int flags, int priority);
FAKE_EXPORT CUresult cuStreamGetFlags(CUstream stream, unsigned int *flags);
FAKE_EXPORT CUresult cuStreamDestroy_v2(CUstream stream);
FAKE_EXPORT CUresult cuStreamSynchronize(CUstream stream);
FAKE_EXPORT CUresult cuStreamSynchronize_ptsz(CUstream stream);
FAKE_EXPORT CUresult cuStreamQuery(CUstream stream);
FAKE_EXPORT CUresult cuStreamQuery_ptsz(CUstream stream);
FAKE_EXPORT CUresult cuStreamIsCapturing(CUstream stream, int *status);
FAKE_EXPORT CUresult cuDeviceGetPCIBusId(char *id, int len, CUdevice dev);
FAKE_EXPORT CUresult cuStreamIsCapturing_ptsz(CUstream stream, int *status);
FAKE_EXPORT CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags);
FAKE_EXPORT CUresult cuStreamWaitEvent_ptsz(CUstream stream, CUevent event, unsigned int flags);
FAKE_EXPORT CUresult cuStreamWaitValue32_v2(CUstream stream, CUdeviceptr addr, cuuint32_t value,
				    unsigned int flags);
FAKE_EXPORT CUresult cuStreamWaitValue32_v2_ptsz(CUstream stream, CUdeviceptr addr, cuuint32_t value,
					 unsigned int flags);
FAKE_EXPORT CUresult cuStreamWriteValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value,
					  unsigned int flags);
FAKE_EXPORT CUresult cuStreamWriteValue32_ptsz(CUstream stream, CUdeviceptr addr, cuuint32_t value,
					       unsigned int flags);
FAKE_EXPORT CUresult cuStreamWriteValue32_v2(CUstream stream, CUdeviceptr addr, cuuint32_t value,
					     unsigned int flags);
FAKE_EXPORT CUresult cuStreamWriteValue32_v2_ptsz(CUstream stream, CUdeviceptr addr,
						  cuuint32_t value, unsigned int flags);
FAKE_EXPORT CUresult cuEventCreate(CUevent *event, unsigned int flags);
FAKE_EXPORT CUresult cuEventRecord(CUevent event, CUstream stream);
FAKE_EXPORT CUresult cuEventRecord_ptsz(CUevent event, CUstream stream);
FAKE_EXPORT CUresult cuEventSynchronize(CUevent event);
FAKE_EXPORT CUresult cuEventQuery(CUevent event);
FAKE_EXPORT CUresult cuEventDestroy_v2(CUevent event);
FAKE_EXPORT CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end);

FAKE_EXPORT CUresult cuModuleLoad(CUmodule *module, const char *path);
FAKE_EXPORT CUresult cuModuleLoadData(CUmodule *module, const void *image);
FAKE_EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int nopts,
					CUjit_option *opts, void **values);
FAKE_EXPORT CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatbin);
FAKE_EXPORT CUresult cuModuleUnload(CUmodule module);
FAKE_EXPORT CUresult cuModuleGetFunction(CUfunction *fn, CUmodule module, const char *name);
FAKE_EXPORT CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule module,
					  const char *name);

FAKE_EXPORT CUresult cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *opts,
				       void **values, unsigned int nopts,
				       CUlibraryOption *lib_opts, void **lib_values,
				       unsigned int nlib_opts);
FAKE_EXPORT CUresult cuLibraryLoadFromFile(CUlibrary *library, const char *path,
					   CUjit_option *opts, void **values, unsigned int nopts,
					   CUlibraryOption *lib_opts, void **lib_values,
					   unsigned int nlib_opts);
FAKE_EXPORT CUresult cuLibraryUnload(CUlibrary library);
FAKE_EXPORT CUresult cuLibraryGetKernel(CUkernel *kernel, CUlibrary library, const char *name);
FAKE_EXPORT CUresult cuLibraryGetModule(CUmodule *module, CUlibrary library);
FAKE_EXPORT CUresult cuKernelGetFunction(CUfunction *fn, CUkernel kernel);
FAKE_EXPORT CUresult cuKernelGetName(const char **name, CUkernel kernel);
FAKE_EXPORT CUresult cuKernelSetAttribute(CUfunction_attribute attrib, int value, CUkernel kernel,
					  CUdevice dev);
FAKE_EXPORT CUresult cuKernelGetAttribute(int *value, CUfunction_attribute attrib,
					  CUkernel kernel, CUdevice dev);

FAKE_EXPORT CUresult cuLinkCreate(unsigned int nopts, CUjit_option *opts, void **values,
				  CUlinkState *state);
FAKE_EXPORT CUresult cuLinkCreate_v2(unsigned int nopts, CUjit_option *opts, void **values,
				     CUlinkState *state);
FAKE_EXPORT CUresult cuLinkAddData(CUlinkState state, CUjitInputType type, void *data, size_t size,
				   const char *name, unsigned int nopts, CUjit_option *opts,
				   void **values);
FAKE_EXPORT CUresult cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data,
				      size_t size, const char *name, unsigned int nopts,
				      CUjit_option *opts, void **values);
FAKE_EXPORT CUresult cuLinkAddFile(CUlinkState state, CUjitInputType type, const char *path,
				   unsigned int nopts, CUjit_option *opts, void **values);
FAKE_EXPORT CUresult cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char *path,
				      unsigned int nopts, CUjit_option *opts, void **values);
FAKE_EXPORT CUresult cuLinkComplete(CUlinkState state, void **cubin, size_t *size);
FAKE_EXPORT CUresult cuLinkDestroy(CUlinkState state);

FAKE_EXPORT CUresult cuFuncSetAttribute(CUfunction fn, CUfunction_attribute attrib, int value);
FAKE_EXPORT CUresult cuFuncGetAttribute(int *value, CUfunction_attribute attrib, CUfunction fn);
FAKE_EXPORT CUresult cuFuncSetCacheConfig(CUfunction fn, CUfunc_cache config);
FAKE_EXPORT CUresult cuFuncGetName(const char **name, CUfunction fn);
FAKE_EXPORT CUresult cuFuncGetParamInfo(CUfunction fn, size_t index, size_t *offset,
					size_t *size);
FAKE_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction fn,
								 int block_size,
								 size_t dynamic_shmem);

FAKE_EXPORT CUresult cuLaunchKernel(CUfunction fn, unsigned int gx, unsigned int gy,
				    unsigned int gz, unsigned int bx, unsigned int by,
				    unsigned int bz, unsigned int shmem, CUstream stream,
				    void **params, void **extra);
FAKE_EXPORT CUresult cuLaunchKernel_ptsz(CUfunction fn, unsigned int gx, unsigned int gy,
					 unsigned int gz, unsigned int bx, unsigned int by,
					 unsigned int bz, unsigned int shmem, CUstream stream,
					 void **params, void **extra);
FAKE_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction fn, void **params,
				      void **extra);
FAKE_EXPORT CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction fn,
					   void **params, void **extra);
FAKE_EXPORT CUresult cuLaunchCooperativeKernel(CUfunction fn, unsigned int gx, unsigned int gy,
					       unsigned int gz, unsigned int bx, unsigned int by,
					       unsigned int bz, unsigned int shmem,
					       CUstream stream, void **params);
FAKE_EXPORT CUresult cuLaunchCooperativeKernel_ptsz(CUfunction fn, unsigned int gx,
						    unsigned int gy, unsigned int gz,
						    unsigned int bx, unsigned int by,
						    unsigned int bz, unsigned int shmem,
						    CUstream stream, void **params);

FAKE_EXPORT CUresult cuStreamBeginCapture_v2(CUstream stream, CUstreamCaptureMode mode);
FAKE_EXPORT CUresult cuStreamBeginCapture_v2_ptsz(CUstream stream, CUstreamCaptureMode mode);
FAKE_EXPORT CUresult cuStreamEndCapture(CUstream stream, CUgraph *graph);
FAKE_EXPORT CUresult cuStreamEndCapture_ptsz(CUstream stream, CUgraph *graph);
FAKE_EXPORT CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode);
FAKE_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph graph,
						 unsigned long long flags);
FAKE_EXPORT CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream);
FAKE_EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec exec, CUstream stream);
FAKE_EXPORT CUresult cuGraphExecDestroy(CUgraphExec exec);
FAKE_EXPORT CUresult cuGraphDestroy(CUgraph graph);

FAKE_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cuda_version,
				      cuuint64_t flags);
FAKE_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cuda_version,
					 cuuint64_t flags, CUdriverProcAddressQueryResult *status);

#endif
