/*
 * A fake libcuda.so.1 for the runtime's tests on machines without a GPU:
 * libcoloc.so interposes on it exactly as on the real driver, and every
 * call the fake receives is written to a log the tests read back.
 *
 * Device memory is host memory, so memsets and copies really happen;
 * everything runs at call time, so synchronization only logs.  Kernels are
 * not executed, with one exception: a persistent-thread-block variant
 * (`__coloc_ptb_K`, whose last parameters are grid_x, grid_y, grid_z, park,
 * slot_base, a pointer to the control block {u32 next; u32 done} and a pointer to the
 * stop record {u32 word; u32 pad; u64 host}, docs/passes.md) takes virtual
 * blocks off `next`, counting each in `done`, until the word is set or the
 * grid is done.
 *
 * With COLOC_FAKE_PTB_STOP_AFTER=N, a launch with park = 1 runs N blocks
 * during its launch call and stays resident: at the fake's later calls it
 * finishes its blocks once COLOC_FAKE_RESIDENT_US passed since its launch,
 * unless it is stopped first; then its workers leave and worker 0 stays,
 * paused, until the stop is cleared, the word or its host copy (the u32 at
 * host, when host is not 0; then it goes on, and ends at once when helpers
 * took every block), or `done` reaches the grid's size (helpers,
 * launches with park = 0, run at once).  Events recorded on its stream after
 * it, and synchronization with its stream or context, wait until it is gone,
 * as on a GPU.  What resident kernels do between calls is logged as "gpu"
 * lines:
 *
 *   gpu resident=R fn=NAME finished ran=N   ran its other N blocks and ended
 *   gpu resident=R fn=NAME parked           stopped: worker 0 pauses
 *   gpu resident=R fn=NAME resumed          the stop was cleared: worker 0 goes on
 *   gpu resident=R fn=NAME unparked         every block is done while paused: it ended
 *   gpu resident=R fn=NAME timeout          a synchronization gave up on it (20 s)
 *
 * Environment:
 *   COLOC_FAKE_LOG              the log file (lines are appended; unset: no log)
 *   COLOC_FAKE_DEVICES          devices (default 1, at most 16)
 *   COLOC_FAKE_CC               compute capability as colocc spells it: 90 (default), 90a, 100
 *   COLOC_FAKE_PTB_STOP_AFTER   a ptb launch with park = 1 runs this many blocks, then
 *                               stays resident (above)
 *   COLOC_FAKE_RESIDENT_US=N    a resident kernel finishes by itself N us after its launch
 *   COLOC_FAKE_LINK_FAIL=1      every cuLinkComplete fails with CUDA_ERROR_INVALID_PTX
 *   COLOC_FAKE_NO_HELPERS=1     ptb launches with park = 0 fail with
 *                               CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES (helpers that cannot run)
 *   COLOC_FAKE_NO_HOST_ALLOC=1  cuMemHostAlloc fails with CUDA_ERROR_OUT_OF_MEMORY
 *   COLOC_FAKE_HOST_ALLOCS=N    cuMemHostAlloc succeeds N times, then fails likewise
 *   COLOC_FAKE_SHARED_QUEUE=1   every stream shares one hardware queue with the resident
 *                               kernels: cuStreamQuery on any stream is NOT_READY while one lives
 *   COLOC_FAKE_KERNEL_US=N      every launch keeps the "GPU" busy N us after the work before
 *                               it; cuCtxSynchronize, cuStreamSynchronize and
 *                               cuEventSynchronize return only when it is idle
 *   COLOC_FAKE_BLOCK_US=N       and N us more per round of its blocks: a launch of B blocks
 *                               of which the device holds W at once (132 SMs times the
 *                               occupancy below) takes ceil(B / W) rounds; a persistent
 *                               variant's round is its workers' share of the virtual
 *                               blocks it ran.  cuEventElapsedTime reads this time line
 *   COLOC_FAKE_VARIANT_US=N     a launch of a variant (__coloc_*) takes N us more: what
 *                               a form costs over the original
 *
 * The log: one line per call, written with one write(2) on an O_APPEND file
 * descriptor, so lines of concurrent calls never interleave.  A line is the
 * exported symbol's exact name, then space-separated key=value pairs.  A
 * failing call logs the pairs it got to, then error=CUDA_ERROR_... (or
 * error=N for a code without a name here).  Values are deterministic:
 *   handles    small ids from 1, in creation order: module=, library=,
 *              link=, event=, stream=; ctx=D+1 for device D's primary
 *              context, ctx=0 for none; an unknown handle logs ?
 *   streams    0, legacy (CU_STREAM_LEGACY), per-thread (CU_STREAM_PER_THREAD)
 *              or the id
 *   kernels    by name: fn=NAME, then via=kernel when a CUfunction argument
 *              is in fact a CUkernel; kernel=NAME where the API takes a CUkernel
 *   addresses  @A+OFF inside allocation A (cuMemAlloc and module variables,
 *              counted from 1; OFF in decimal), else 0xHEX
 *   files      by base name
 *   values     V as 0xHEX; F, A, T, N, O and the like in decimal
 *
 *   cuInit flags=F
 *   cuDriverGetVersion version=13000
 *   cuDeviceGet ordinal=D device=D
 *   cuDeviceGetCount count=N
 *   cuDeviceGetAttribute attrib=A device=D value=N
 *   cuDeviceGetName device=D name=coloc-fake-sm_90
 *   cuCtxGetCurrent ctx=C
 *   cuCtxSetCurrent ctx=C
 *   cuCtxGetDevice device=D
 *   cuCtxSynchronize
 *   cuDevicePrimaryCtxRetain device=D ctx=C refs=N
 *   cuDevicePrimaryCtxRelease_v2 device=D refs=N
 *   cuMemAlloc bytes=N ptr=@A+0                           also cuMemAlloc_v2
 *   cuMemFree ptr=@A+0                                    also cuMemFree_v2
 *   cuMemAllocAsync bytes=N stream=S ptr=@A+0             also _ptsz
 *   cuMemFreeAsync ptr=@A+0 stream=S                      also _ptsz
 *   cuMemAllocManaged bytes=N flags=F ptr=@A+0
 *   cuMemAllocPitch_v2 width=N height=N elem=N pitch=N ptr=@A+0
 *   cuMemCreate, cuMemMap and the virtual memory API: fake_vmm.c
 *   cuMemGetInfo_v2 free=N total=N
 *   cuMemHostAlloc bytes=N flags=F                        host memory the "GPU" reads at its
 *   cuMemHostGetDevicePointer_v2 flags=F                  own address (as with UVA)
 *   cuMemFreeHost
 *   cuDeviceTotalMem_v2 device=D bytes=N                  COLOC_FAKE_MEM_TOTAL bytes (80 GiB);
 *                                                         allocations beyond it fail
 *   cuMemsetD8_v2 dst=@A+OFF value=V count=N
 *   cuMemsetD32_v2 dst=@A+OFF value=V count=N
 *   cuMemsetD8Async dst=@A+OFF value=V count=N stream=S   also _ptsz
 *   cuMemsetD32Async dst=@A+OFF value=V count=N stream=S  also _ptsz
 *   cuMemcpyHtoD_v2 dst=@A+OFF bytes=N
 *   cuMemcpyDtoH_v2 src=@A+OFF bytes=N
 *   cuMemcpyHtoDAsync_v2 dst=@A+OFF bytes=N stream=S      also _ptsz
 *   cuMemcpyDtoHAsync_v2 src=@A+OFF bytes=N stream=S      also _ptsz
 *   cuStreamCreate flags=F stream=S
 *   cuStreamCreateWithPriority flags=F priority=P stream=S
 *   cuStreamDestroy_v2 stream=S
 *   cuStreamSynchronize stream=S                          also _ptsz
 *   cuStreamQuery stream=S                                also _ptsz; error=CUDA_ERROR_NOT_READY
 *                                                         while the GPU is busy (one time line for
 *                                                         all streams) or a resident kernel is on S
 *   cuStreamIsCapturing stream=S capturing=0|1|2          also _ptsz; 1 in a capture (2:
 *                                                         invalidated), or COLOC_FAKE_CAPTURING=1
 *   stream capture and graphs: fake_graph.c; a launch, cuMemsetD*Async or
 *   cuEventRecord on a stream in capture ends in captured=G and is recorded
 *   cuStreamWaitEvent stream=S event=E flags=F            also _ptsz
 *   cuEventCreate flags=F event=E
 *   cuEventRecord event=E stream=S                        also _ptsz
 *   cuEventSynchronize event=E
 *   cuEventQuery event=E                                  error=CUDA_ERROR_NOT_READY while the work
 *                                                         before it runs (or a resident kernel)
 *   cuEventDestroy_v2 event=E
 *   cuEventElapsedTime start=E end=E us=N                 error=CUDA_ERROR_NOT_READY until both
 *                                                         are done
 *   cuModuleLoad file=NAME module=M kind=K [arch=ARCH] kernels=K1,K2
 *   cuModuleLoadData module=M kind=K [arch=ARCH] kernels=K1,K2
 *   cuModuleLoadDataEx options=O1,O2 module=M kind=K [arch=ARCH] kernels=K1,K2
 *   cuModuleLoadFatBinary module=M kind=K [arch=ARCH] kernels=K1,K2
 *       K is ptx, cubin (the fake's own, from cuLinkComplete), fatbin or
 *       elf (a real cubin); ARCH is the fatbin entry used (compute_90,
 *       sm_90); kernels in the image's order.  A failed load logs kind=K
 *       when it got that far.
 *   cuModuleUnload module=M
 *   cuModuleGetFunction module=M fn=NAME
 *   cuModuleGetGlobal_v2 module=M name=NAME bytes=N ptr=@A+0
 *   cuLibraryLoadData library=L module=M kind=K [arch=ARCH] kernels=K1,K2
 *   cuLibraryLoadFromFile file=NAME library=L module=M kind=K [arch=ARCH] kernels=K1,K2
 *   cuLibraryUnload library=L
 *   cuLibraryGetKernel library=L kernel=NAME
 *   cuLibraryGetModule library=L module=M
 *   cuKernelGetFunction kernel=NAME fn=NAME
 *   cuKernelGetName kernel=NAME
 *   cuKernelSetAttribute kernel=NAME attrib=A value=N device=D
 *   cuKernelGetAttribute kernel=NAME attrib=A value=N device=D
 *   cuLinkCreate_v2 options=O1,O2 link=L                  also cuLinkCreate
 *   cuLinkAddData_v2 link=L type=T bytes=N name=NAME      also cuLinkAddData
 *   cuLinkAddFile_v2 link=L type=T file=NAME              also cuLinkAddFile
 *   cuLinkComplete link=L bytes=N
 *   cuLinkDestroy link=L
 *   cuFuncSetAttribute fn=NAME attrib=A value=N
 *   cuFuncGetAttribute fn=NAME attrib=A value=N
 *   cuFuncSetCacheConfig fn=NAME config=N
 *   cuFuncGetName fn=NAME
 *   cuFuncGetParamInfo fn=NAME index=I offset=N size=N
 *   cuOccupancyMaxActiveBlocksPerMultiprocessor fn=NAME block=N shmem=N blocks=N
 *   cuLaunchKernel fn=NAME grid=X,Y,Z block=X,Y,Z shmem=N stream=S params=V1,V2 [packed=1] [ran=N]
 *   cuLaunchKernelEx fn=NAME grid=X,Y,Z block=X,Y,Z shmem=N stream=S attrs=ID1,ID2 params=V1,V2
 *                    [packed=1] [ran=N]
 *   cuLaunchCooperativeKernel fn=NAME grid=X,Y,Z block=X,Y,Z shmem=N stream=S params=V1,V2 [ran=N]
 *       (each also _ptsz).  A parameter of 1, 2, 4 or 8 bytes is its
 *       little-endian value (0x2a; @A+OFF for an 8-byte value inside an
 *       allocation); other sizes are b:HEXBYTES in memory order.  packed=1:
 *       the values came from `extra`'s buffer.  ran=N: virtual blocks a ptb
 *       launch executed; resident=R: it stays resident; parked=R: it found
 *       the stop word set and worker 0 parked.
 *   cuGetProcAddress symbol=NAME version=V flags=F -> SYMBOL|not-found|version-not-sufficient
 *                                                         also _v2
 */
#define _DEFAULT_SOURCE /* MAP_32BIT */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "fake.h"

struct fake_state fake = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Dynamic shared memory: above 48 KiB a kernel must opt in, up to sm_90's optin maximum. */
#define LIMIT_DYNAMIC_SHMEM (48 * 1024)
#define LIMIT_SHMEM_OPTIN 232448
#define PTB_PREFIX "__coloc_ptb_"

/* ---- calls and the log */

static const char *error_name(CUresult rc)
{
#define NAME(e) {e, #e}
	static const struct {
		CUresult rc;
		const char *name;
	} names[] = {
		NAME(CUDA_ERROR_INVALID_VALUE),    NAME(CUDA_ERROR_OUT_OF_MEMORY),
		NAME(CUDA_ERROR_NOT_INITIALIZED),  NAME(CUDA_ERROR_INVALID_IMAGE),
		NAME(CUDA_ERROR_INVALID_CONTEXT),  NAME(CUDA_ERROR_NO_BINARY_FOR_GPU),
		NAME(CUDA_ERROR_INVALID_PTX),      NAME(CUDA_ERROR_FILE_NOT_FOUND),
		NAME(CUDA_ERROR_INVALID_HANDLE),   NAME(CUDA_ERROR_NOT_FOUND),
		NAME(CUDA_ERROR_NOT_READY),        NAME(CUDA_ERROR_LAUNCH_FAILED),
		NAME(CUDA_ERROR_NOT_SUPPORTED),    NAME(CUDA_ERROR_UNKNOWN),
		NAME(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES), NAME(CUDA_ERROR_LAUNCH_TIMEOUT),
		NAME(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED),
		NAME(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED),
		NAME(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD),
	};
#undef NAME
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].rc == rc)
			return names[i].name;
	return NULL;
}

void fake_begin(struct coloc_buf *line, const char *name)
{
	pthread_mutex_lock(&fake.lock);
	fake_progress();
	coloc_buf_init(line);
	coloc_buf_puts(line, name);
}

/* Written under the lock, so the log's order is the order calls took effect in. */
static void log_write(struct coloc_buf *line)
{
	const char *path = getenv("COLOC_FAKE_LOG");
	int fd;

	if (!path || !*path)
		return;
	if (line->failed) {
		fprintf(stderr, "fake libcuda: out of memory for a log line\n");
		return;
	}
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "fake libcuda: cannot open COLOC_FAKE_LOG '%s'\n", path);
		return;
	}
	if (write(fd, line->data, line->len) != (ssize_t)line->len)
		fprintf(stderr, "fake libcuda: short write to '%s'\n", path);
	close(fd);
}

CUresult fake_end(struct coloc_buf *line, CUresult rc)
{
	const char *name = error_name(rc);

	if (rc != CUDA_SUCCESS && name)
		coloc_buf_printf(line, " error=%s", name);
	else if (rc != CUDA_SUCCESS)
		coloc_buf_printf(line, " error=%d", rc);
	coloc_buf_putc(line, '\n');
	log_write(line);
	pthread_mutex_unlock(&fake.lock);
	coloc_buf_release(line);
	return rc;
}

CUresult fake_need_init(void)
{
	return fake.initialized ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult fake_need_ctx(void)
{
	if (!fake.initialized)
		return CUDA_ERROR_NOT_INITIALIZED;
	return fake.current ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

/* ---- devices and contexts */

/* COLOC_FAKE_CC: digits, then an optional a or f (90, 90a, 100f). */
static void device_read_env(void)
{
	const char *devices = getenv("COLOC_FAKE_DEVICES"), *cc = getenv("COLOC_FAKE_CC");
	char *end;
	long n;

	fake.ndevices = 1;
	if (devices && *devices) {
		n = strtol(devices, &end, 10);
		if (*end == '\0' && n >= 0 && n <= FAKE_MAX_DEVICES)
			fake.ndevices = (int)n;
	}
	fake.sm = 90;
	fake.variant = 0;
	if (cc && *cc) {
		n = strtol(cc, &end, 10);
		if (n >= 10 && n < 1000 &&
		    (*end == '\0' || ((*end == 'a' || *end == 'f') && !end[1]))) {
			fake.sm = (unsigned)n;
			fake.variant = *end;
		}
	}
}

static struct fake_ctx *ctx_find(CUcontext handle)
{
	int i;

	for (i = 0; i < fake.ndevices; i++)
		if ((void *)&fake.ctx[i].tag == (void *)handle)
			return &fake.ctx[i];
	return NULL;
}

static CUcontext ctx_handle(struct fake_ctx *c)
{
	return (CUcontext)(void *)&c->tag;
}

static CUresult need_device(CUdevice dev)
{
	CUresult rc = fake_need_init();

	if (rc == CUDA_SUCCESS && (dev < 0 || dev >= fake.ndevices))
		rc = CUDA_ERROR_INVALID_VALUE;
	return rc;
}

CUresult cuInit(unsigned int flags)
{
	struct coloc_buf line;
	int i;

	fake_begin(&line, __func__);
	coloc_buf_printf(&line, " flags=%u", flags);
	if (flags)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if (!fake.initialized) {
		device_read_env();
		for (i = 0; i < fake.ndevices; i++)
			fake.ctx[i].device = i;
		/* As if the application's runtime had made device 0 current. */
		fake.current = fake.ndevices ? &fake.ctx[0] : NULL;
		fake.initialized = true;
	}
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuDriverGetVersion(int *version)
{
	struct coloc_buf line;

	fake_begin(&line, __func__);
	if (!version)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	*version = 13000;
	coloc_buf_printf(&line, " version=%d", *version);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	coloc_buf_printf(&line, " ordinal=%d", ordinal);
	if ((rc = need_device(ordinal)) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!device)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	*device = ordinal;
	coloc_buf_printf(&line, " device=%d", ordinal);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuDeviceGetCount(int *count)
{
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	if ((rc = fake_need_init()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!count)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	*count = fake.ndevices;
	coloc_buf_printf(&line, " count=%d", *count);
	return fake_end(&line, CUDA_SUCCESS);
}

/* An H100 SXM's values for what the runtime asks; 0 for every other attribute. */
static int device_attribute(int attrib)
{
	switch (attrib) {
	case 1:  /* MAX_THREADS_PER_BLOCK */
		return 1024;
	case 10: /* WARP_SIZE */
		return 32;
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
		return 132;
	case 39: /* MAX_THREADS_PER_MULTIPROCESSOR */
		return 2048;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
		return (int)fake.sm / 10;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
		return (int)fake.sm % 10;
	case 97: /* MAX_SHARED_MEMORY_PER_BLOCK_OPTIN */
		return LIMIT_SHMEM_OPTIN;
	case 106: /* MAX_BLOCKS_PER_MULTIPROCESSOR */
		return 32;
	default:
		return 0;
	}
}

CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attrib, CUdevice dev)
{
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	coloc_buf_printf(&line, " attrib=%d device=%d", attrib, dev);
	if ((rc = need_device(dev)) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!value)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	*value = device_attribute(attrib);
	coloc_buf_printf(&line, " value=%d", *value);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	coloc_buf_printf(&line, " device=%d", dev);
	if ((rc = need_device(dev)) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!name || len <= 0)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	snprintf(name, (size_t)len, "coloc-fake-sm_%u%.1s", fake.sm, &fake.variant);
	coloc_buf_printf(&line, " name=%s", name);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuCtxGetCurrent(CUcontext *ctx)
{
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	if ((rc = fake_need_init()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!ctx)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	*ctx = fake.current ? ctx_handle(fake.current) : NULL;
	coloc_buf_printf(&line, " ctx=%d", fake.current ? fake.current->device + 1 : 0);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuCtxSetCurrent(CUcontext ctx)
{
	struct fake_ctx *c;
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	c = ctx_find(ctx);
	if (c || !ctx)
		coloc_buf_printf(&line, " ctx=%d", c ? c->device + 1 : 0);
	else
		coloc_buf_puts(&line, " ctx=?");
	if ((rc = fake_need_init()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (ctx && !c)
		return fake_end(&line, CUDA_ERROR_INVALID_CONTEXT);
	fake.current = c;
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuCtxGetDevice(CUdevice *device)
{
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!device)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	*device = fake.current->device;
	coloc_buf_printf(&line, " device=%d", *device);
	return fake_end(&line, CUDA_SUCCESS);
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/*
 * A launch of `blocks` blocks, `at_once` of them at a time: the simulated
 * GPU is busy COLOC_FAKE_KERNEL_US plus COLOC_FAKE_BLOCK_US per round (and
 * for a variant COLOC_FAKE_VARIANT_US) longer.  Under the lock.
 */
void fake_kernel_ran(uint64_t blocks, uint64_t at_once, bool variant)
{
	const char *us = getenv("COLOC_FAKE_KERNEL_US"), *block_us = getenv("COLOC_FAKE_BLOCK_US");
	const char *variant_us = getenv("COLOC_FAKE_VARIANT_US");
	uint64_t now = now_ns(), start = fake.busy_until_ns > now ? fake.busy_until_ns : now, t = 0;

	if (us && *us)
		t = strtoull(us, NULL, 10) * 1000u;
	if (variant && variant_us && *variant_us)
		t += strtoull(variant_us, NULL, 10) * 1000u;
	if (block_us && *block_us && at_once)
		t += (blocks + at_once - 1) / at_once * strtoull(block_us, NULL, 10) * 1000u;
	if (t)
		fake.busy_until_ns = start + t;
}

/* Sleeps, unlocked, until the simulated GPU reaches `until`; passes rc on. */
static CUresult sleep_until(uint64_t until, CUresult rc)
{
	uint64_t now;

	while (rc == CUDA_SUCCESS && (now = now_ns()) < until) {
		struct timespec t = { (time_t)((until - now) / 1000000000u),
				      (long)((until - now) % 1000000000u) };

		nanosleep(&t, NULL);
	}
	return rc;
}

/* After a synchronization call's log line: wait until the GPU is idle. */
static CUresult wait_idle(CUresult rc)
{
	uint64_t until;

	pthread_mutex_lock(&fake.lock);
	until = fake.busy_until_ns;
	pthread_mutex_unlock(&fake.lock);
	return sleep_until(until, rc);
}

CUresult cuCtxSynchronize(void)
{
	struct coloc_buf line;

	CUresult rc;

	fake_begin(&line, __func__);
	if ((rc = fake_need_ctx()) == CUDA_SUCCESS)
		rc = fake_capture_forbids(NULL, true, false);
	return fake_wait_resident(true, NULL, 0, wait_idle(fake_end(&line, rc)));
}

CUresult cuDeviceGetPCIBusId(char *id, int len, CUdevice dev)
{
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	coloc_buf_printf(&line, " device=%d", dev);
	if ((rc = need_device(dev)) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!id || len <= 0)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	snprintf(id, (size_t)len, "0000:%02x:00.0", 0x10 + dev);
	coloc_buf_printf(&line, " id=%s", id);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	coloc_buf_printf(&line, " device=%d", dev);
	if ((rc = need_device(dev)) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!ctx)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	fake.ctx[dev].refs++;
	*ctx = ctx_handle(&fake.ctx[dev]);
	coloc_buf_printf(&line, " ctx=%d refs=%u", dev + 1, fake.ctx[dev].refs);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	coloc_buf_printf(&line, " device=%d", dev);
	if ((rc = need_device(dev)) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!fake.ctx[dev].refs)
		return fake_end(&line, CUDA_ERROR_INVALID_CONTEXT);
	fake.ctx[dev].refs--;
	coloc_buf_printf(&line, " refs=%u", fake.ctx[dev].refs);
	return fake_end(&line, CUDA_SUCCESS);
}

/* ---- memory */

static struct fake_alloc *alloc_add(unsigned char *base, size_t size, bool low)
{
	struct fake_alloc *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->id = ++fake.next_alloc;
	a->base = base;
	a->size = size;
	a->low = low;
	a->next = fake.allocs;
	fake.allocs = a;
	return a;
}

struct fake_alloc *fake_alloc_new(size_t size)
{
	unsigned char *base = calloc(1, size);
	struct fake_alloc *a = base ? alloc_add(base, size, false) : NULL;

	if (!a)
		free(base);
	return a;
}

/* Memory the 32-bit ABI can address: the first 2 GiB, where Linux on x86-64 offers them. */
static struct fake_alloc *alloc_new_low(size_t size)
{
#ifdef MAP_32BIT
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
		       -1, 0);
	struct fake_alloc *a;

	if (p == MAP_FAILED)
		return NULL;
	if (!(a = alloc_add(p, size, true)))
		munmap(p, size);
	return a;
#else
	(void)size;
	return NULL;
#endif
}

void fake_alloc_free(struct fake_alloc *a)
{
	struct fake_alloc **pp;

	if (!a)
		return;
	for (pp = &fake.allocs; *pp && *pp != a;)
		pp = &(*pp)->next;
	if (*pp)
		*pp = a->next;
	if (a->low)
		munmap(a->base, a->size);
	else
		free(a->base);
	free(a);
}

struct fake_alloc *fake_alloc_find(uint64_t addr, size_t *offset)
{
	struct fake_alloc *a;

	for (a = fake.allocs; a; a = a->next) {
		uintptr_t base = (uintptr_t)a->base;

		if (addr >= base && addr - base < a->size) {
			*offset = (size_t)(addr - base);
			return a;
		}
	}
	return NULL;
}

void fake_put_dptr(struct coloc_buf *line, uint64_t addr)
{
	size_t off;
	struct fake_alloc *a = fake_alloc_find(addr, &off);

	if (a)
		coloc_buf_printf(line, "@%u+%zu", a->id, off);
	else if (!fake_vmm_put(line, addr))
		coloc_buf_printf(line, "0x%llx", (unsigned long long)addr);
}

/* Host memory behind [addr, addr + bytes) of one allocation, or NULL. */
static unsigned char *dev_range(uint64_t addr, size_t bytes)
{
	size_t off;
	struct fake_alloc *a = fake_alloc_find(addr, &off);

	if (!a)
		return fake_vmm_range(addr, bytes);
	if (bytes > a->size - off)
		return NULL;
	return a->base + off;
}

unsigned char *fake_dev_range(uint64_t addr, size_t bytes)
{
	return dev_range(addr, bytes);
}

static CUresult mem_take(struct coloc_buf *line, uint64_t *dptr, size_t bytes, bool low);

static CUresult mem_alloc(const char *name, uint64_t *dptr, size_t bytes, bool low)
{
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, name);
	coloc_buf_printf(&line, " bytes=%zu", bytes);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	return fake_end(&line, mem_take(&line, dptr, bytes, low));
}

CUresult cuMemAlloc(CUdeviceptr_v1 *dptr, unsigned int bytes)
{
	uint64_t p = 0;
	CUresult rc = mem_alloc(__func__, dptr ? &p : NULL, bytes, true);

	if (rc == CUDA_SUCCESS)
		*dptr = (CUdeviceptr_v1)p;
	return rc;
}

CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes)
{
	return mem_alloc(__func__, dptr, bytes, false);
}

/* Frees what cuMemAlloc and the like returned (not a module's variable); under the lock. */
static CUresult mem_give_back(uint64_t dptr)
{
	size_t off;
	struct fake_alloc *a = fake_alloc_find(dptr, &off);

	if (!a || off || a->global)
		return CUDA_ERROR_INVALID_VALUE;
	fake_alloc_free(a);
	return CUDA_SUCCESS;
}

static CUresult mem_free(const char *name, uint64_t dptr)
{
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, name);
	coloc_buf_puts(&line, " ptr=");
	fake_put_dptr(&line, dptr);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	return fake_end(&line, mem_give_back(dptr));
}

CUresult cuMemFree(CUdeviceptr_v1 dptr)
{
	return mem_free(__func__, dptr);
}

CUresult cuMemFree_v2(CUdeviceptr dptr)
{
	return mem_free(__func__, dptr);
}

/* Appends " stream=S"; a handle the fake did not make is CUDA_ERROR_INVALID_HANDLE. */
static CUresult put_stream(struct coloc_buf *line, CUstream s)
{
	struct fake_stream *st;

	if (!s) {
		coloc_buf_puts(line, " stream=0");
		return CUDA_SUCCESS;
	}
	if (s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD) {
		coloc_buf_puts(line,
			       s == CU_STREAM_LEGACY ? " stream=legacy" : " stream=per-thread");
		return CUDA_SUCCESS;
	}
	for (st = fake.streams; st; st = st->next) {
		if (!st->dead && (void *)&st->tag == (void *)s) {
			coloc_buf_printf(line, " stream=%u", st->id);
			return CUDA_SUCCESS;
		}
	}
	coloc_buf_puts(line, " stream=?");
	return CUDA_ERROR_INVALID_HANDLE;
}

CUresult fake_put_stream(struct coloc_buf *line, CUstream s)
{
	return put_stream(line, s);
}

/* ---- memory: totals, stream-ordered allocations, the virtual memory API */

/* COLOC_FAKE_MEM_TOTAL (default 80 GiB): what the device has. */
static uint64_t mem_total(void)
{
	const char *s = getenv("COLOC_FAKE_MEM_TOTAL");

	return s && *s ? strtoull(s, NULL, 10) : 80ull << 30;
}

/* What allocations and physical handles hold; under the lock. */
static uint64_t mem_held(void)
{
	uint64_t n = 0;

	for (struct fake_alloc *a = fake.allocs; a; a = a->next)
		n += a->size;
	return n + fake_vmm_held();
}

uint64_t fake_mem_room(void)
{
	uint64_t held = mem_held(), total = mem_total();

	return held < total ? total - held : 0;
}

/*
 * An allocation the device has room for (`low`: below 4 GiB, for the 32-bit
 * ABI); logs ptr=.  Under the lock.
 */
static CUresult mem_take(struct coloc_buf *line, uint64_t *dptr, size_t bytes, bool low)
{
	struct fake_alloc *a;

	if (!dptr || !bytes)
		return CUDA_ERROR_INVALID_VALUE;
	if (bytes > mem_total() - mem_held() ||
	    !(a = low ? alloc_new_low(bytes) : fake_alloc_new(bytes)))
		return CUDA_ERROR_OUT_OF_MEMORY;
	*dptr = (uintptr_t)a->base;
	coloc_buf_printf(line, " ptr=@%u+0", a->id);
	return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	coloc_buf_printf(&line, " device=%d", dev);
	if ((rc = fake_need_init()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!bytes || dev < 0 || dev >= (CUdevice)fake.ndevices)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	*bytes = (size_t)mem_total();
	coloc_buf_printf(&line, " bytes=%zu", *bytes);
	return fake_end(&line, CUDA_SUCCESS);
}

/* ---- mapped host memory: the "GPU" reads it at its host address */

#define MAX_HOST_ALLOCS 64

static struct {
	unsigned char *p;
	size_t size;
} host_allocs[MAX_HOST_ALLOCS];

/* The mapped host memory behind [addr, addr + bytes), or NULL; under the lock. */
static unsigned char *host_range(uint64_t addr, size_t bytes)
{
	for (unsigned i = 0; i < MAX_HOST_ALLOCS; i++) {
		uintptr_t base = (uintptr_t)host_allocs[i].p;

		if (base && addr >= base && addr - base < host_allocs[i].size &&
		    bytes <= host_allocs[i].size - (addr - base))
			return host_allocs[i].p + (addr - base);
	}
	return NULL;
}

CUresult cuMemHostAlloc(void **pp, size_t bytes, unsigned int flags)
{
	const char *fail = getenv("COLOC_FAKE_NO_HOST_ALLOC"), *limit = getenv("COLOC_FAKE_HOST_ALLOCS");
	static unsigned long made;
	struct coloc_buf line;
	unsigned i;
	CUresult rc;

	fake_begin(&line, __func__);
	coloc_buf_printf(&line, " bytes=%zu flags=%u", bytes, flags);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!pp || !bytes)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if (fail && strcmp(fail, "1") == 0)
		return fake_end(&line, CUDA_ERROR_OUT_OF_MEMORY);
	if (limit && made >= strtoul(limit, NULL, 10))
		return fake_end(&line, CUDA_ERROR_OUT_OF_MEMORY);
	for (i = 0; i < MAX_HOST_ALLOCS && host_allocs[i].p; i++)
		;
	if (i == MAX_HOST_ALLOCS || !(host_allocs[i].p = calloc(1, bytes)))
		return fake_end(&line, CUDA_ERROR_OUT_OF_MEMORY);
	host_allocs[i].size = bytes;
	made++;
	*pp = host_allocs[i].p;
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *dptr, void *p, unsigned int flags)
{
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	coloc_buf_printf(&line, " flags=%u", flags);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!dptr || flags || !host_range((uintptr_t)p, 1))
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	*dptr = (uintptr_t)p;
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuMemFreeHost(void *p)
{
	struct coloc_buf line;

	fake_begin(&line, __func__);
	for (unsigned i = 0; i < MAX_HOST_ALLOCS; i++) {
		if (p && host_allocs[i].p == p) {
			free(host_allocs[i].p);
			host_allocs[i].p = NULL;
			return fake_end(&line, CUDA_SUCCESS);
		}
	}
	return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
}

CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!free_bytes || !total)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	*total = (size_t)mem_total();
	*free_bytes = (size_t)(mem_total() - mem_held());
	coloc_buf_printf(&line, " free=%zu total=%zu", *free_bytes, *total);
	return fake_end(&line, CUDA_SUCCESS);
}

static CUresult alloc_async(const char *name, CUdeviceptr *dptr, size_t bytes, CUstream stream)
{
	struct coloc_buf line;
	CUresult rc, stream_rc;

	fake_begin(&line, name);
	coloc_buf_printf(&line, " bytes=%zu", bytes);
	stream_rc = put_stream(&line, stream);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = stream_rc) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	return fake_end(&line, mem_take(&line, dptr, bytes, false));
}

CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytes, CUstream stream)
{
	return alloc_async(__func__, dptr, bytes, stream);
}

CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytes, CUstream stream)
{
	return alloc_async(__func__, dptr, bytes, stream);
}

static CUresult free_async(const char *name, CUdeviceptr dptr, CUstream stream)
{
	struct coloc_buf line;
	CUresult rc, stream_rc;

	fake_begin(&line, name);
	coloc_buf_puts(&line, " ptr=");
	fake_put_dptr(&line, dptr);
	stream_rc = put_stream(&line, stream);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = stream_rc) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	return fake_end(&line, mem_give_back(dptr));
}

CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream stream)
{
	return free_async(__func__, dptr, stream);
}

CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream stream)
{
	return free_async(__func__, dptr, stream);
}

CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytes, unsigned int flags)
{
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	coloc_buf_printf(&line, " bytes=%zu flags=%u", bytes, flags);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	return fake_end(&line, mem_take(&line, dptr, bytes, false));
}

/* Rows of 512 bytes, as the driver aligns them on recent GPUs. */
CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height,
			    unsigned int elem)
{
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	coloc_buf_printf(&line, " width=%zu height=%zu elem=%u", width, height, elem);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!pitch || !width || !height || (elem != 4 && elem != 8 && elem != 16))
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	*pitch = (width + 511) / 512 * 512;
	coloc_buf_printf(&line, " pitch=%zu", *pitch);
	return fake_end(&line, mem_take(&line, dptr, *pitch * height, false));
}

/* cuMemsetD8 (width 1) and cuMemsetD32 (width 4); has_stream for the Async ones. */
static CUresult mem_set(const char *name, CUdeviceptr dst, unsigned value, unsigned width,
			size_t count, bool has_stream, CUstream stream)
{
	CUresult rc, stream_rc = CUDA_SUCCESS;
	struct coloc_buf line;
	struct fake_graph *graph = NULL;
	unsigned char *p;
	size_t i;

	fake_begin(&line, name);
	coloc_buf_puts(&line, " dst=");
	fake_put_dptr(&line, dst);
	coloc_buf_printf(&line, " value=0x%x count=%zu", value, count);
	if (has_stream)
		stream_rc = put_stream(&line, stream);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = stream_rc) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (count > SIZE_MAX / width || dst % width || !(p = dev_range(dst, count * width)))
		return fake_end(&line, count ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS);
	if (has_stream && (graph = fake_capture_put(&line, stream))) {
		fake_capture_memset(graph, dst, value, width, count);
		return fake_end(&line, CUDA_SUCCESS);
	}
	for (i = 0; i < count; i++) {
		if (width == 1)
			p[i] = (unsigned char)value;
		else
			memcpy(p + i * 4, &(uint32_t){value}, 4);
	}
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t count)
{
	return mem_set(__func__, dst, value, 1, count, false, NULL);
}

CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int value, size_t count)
{
	return mem_set(__func__, dst, value, 4, count, false, NULL);
}

CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count, CUstream stream)
{
	return mem_set(__func__, dst, value, 1, count, true, stream);
}

CUresult cuMemsetD8Async_ptsz(CUdeviceptr dst, unsigned char value, size_t count, CUstream stream)
{
	return mem_set(__func__, dst, value, 1, count, true, stream);
}

CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t count, CUstream stream)
{
	return mem_set(__func__, dst, value, 4, count, true, stream);
}

CUresult cuMemsetD32Async_ptsz(CUdeviceptr dst, unsigned int value, size_t count, CUstream stream)
{
	return mem_set(__func__, dst, value, 4, count, true, stream);
}

/* One copy between host and "device"; to_device picks the direction. */
static CUresult mem_copy(const char *name, bool to_device, CUdeviceptr dev, void *host,
			 size_t bytes, bool has_stream, CUstream stream)
{
	CUresult rc, stream_rc = CUDA_SUCCESS;
	struct coloc_buf line;
	unsigned char *p;

	fake_begin(&line, name);
	coloc_buf_puts(&line, to_device ? " dst=" : " src=");
	fake_put_dptr(&line, dev);
	coloc_buf_printf(&line, " bytes=%zu", bytes);
	if (has_stream)
		stream_rc = put_stream(&line, stream);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = stream_rc) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!bytes)
		return fake_end(&line, CUDA_SUCCESS);
	if (!host || !(p = dev_range(dev, bytes)))
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if (to_device)
		memcpy(p, host, bytes);
	else
		memcpy(host, p, bytes);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes)
{
	return mem_copy(__func__, true, dst, (void *)(uintptr_t)src, bytes, false, NULL);
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes)
{
	/* Synchronous: after all the work of the context (the fake's streams all block). */
	CUresult rc = fake_wait_resident(true, NULL, 0, CUDA_SUCCESS);

	return rc == CUDA_SUCCESS ? mem_copy(__func__, false, src, dst, bytes, false, NULL) : rc;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t bytes, CUstream stream)
{
	return mem_copy(__func__, true, dst, (void *)(uintptr_t)src, bytes, true, stream);
}

CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dst, const void *src, size_t bytes, CUstream stream)
{
	return mem_copy(__func__, true, dst, (void *)(uintptr_t)src, bytes, true, stream);
}

CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t bytes, CUstream stream)
{
	return mem_copy(__func__, false, src, dst, bytes, true, stream);
}

CUresult cuMemcpyDtoHAsync_v2_ptsz(void *dst, CUdeviceptr src, size_t bytes, CUstream stream)
{
	return mem_copy(__func__, false, src, dst, bytes, true, stream);
}

/* ---- streams and events: everything has already happened */

static CUresult stream_create(const char *name, CUstream *stream, unsigned flags, int priority,
			      bool has_priority)
{
	struct fake_stream *s;
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, name);
	coloc_buf_printf(&line, " flags=%u", flags);
	if (has_priority)
		coloc_buf_printf(&line, " priority=%d", priority);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!stream)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if (!(s = calloc(1, sizeof(*s))))
		return fake_end(&line, CUDA_ERROR_OUT_OF_MEMORY);
	s->id = ++fake.next_stream;
	s->next = fake.streams;
	fake.streams = s;
	*stream = (CUstream)(void *)&s->tag;
	coloc_buf_printf(&line, " stream=%u", s->id);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuStreamCreate(CUstream *stream, unsigned int flags)
{
	return stream_create(__func__, stream, flags, 0, false);
}

CUresult cuStreamCreateWithPriority(CUstream *stream, unsigned int flags, int priority)
{
	return stream_create(__func__, stream, flags, priority, true);
}

CUresult cuStreamDestroy_v2(CUstream stream)
{
	struct fake_stream *s;
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = put_stream(&line, stream);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = found) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	for (s = fake.streams; s && (void *)&s->tag != (void *)stream;)
		s = s->next;
	if (!s) /* NULL or a special handle */
		return fake_end(&line, CUDA_ERROR_INVALID_HANDLE);
	/* Kept, dead, so the stale handle is never a newer stream's. */
	s->dead = true;
	return fake_end(&line, CUDA_SUCCESS);
}

/* Synchronize and query: log the stream, nothing is ever pending. */
/* Logs a call on `stream`; `query`: CUDA_ERROR_NOT_READY while the GPU is busy. */
static CUresult stream_call(const char *name, CUstream stream, bool query)
{
	const char *shared = getenv("COLOC_FAKE_SHARED_QUEUE");
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, name);
	found = put_stream(&line, stream);
	if ((rc = fake_need_ctx()) == CUDA_SUCCESS)
		rc = found;
	if (rc == CUDA_SUCCESS)
		rc = fake_capture_forbids(stream, false, false);
	/* fake_begin holds the lock. */
	if (rc == CUDA_SUCCESS && query &&
	    (now_ns() < fake.busy_until_ns || fake_resident_on(stream) ||
	     (shared && strcmp(shared, "1") == 0 && fake_resident_any())))
		rc = CUDA_ERROR_NOT_READY;
	return fake_end(&line, rc);
}

static CUresult stream_wait(const char *name, CUstream stream)
{
	return stream_call(name, stream, false);
}

CUresult cuStreamSynchronize(CUstream stream)
{
	return fake_wait_resident(false, stream, 0, wait_idle(stream_wait(__func__, stream)));
}

CUresult cuStreamSynchronize_ptsz(CUstream stream)
{
	return fake_wait_resident(false, stream, 0, wait_idle(stream_wait(__func__, stream)));
}

CUresult cuStreamQuery(CUstream stream)
{
	return stream_call(__func__, stream, true);
}

CUresult cuStreamQuery_ptsz(CUstream stream)
{
	return stream_call(__func__, stream, true);
}

/* Captured between cuStreamBeginCapture and cuStreamEndCapture, or always with COLOC_FAKE_CAPTURING=1. */
static CUresult stream_capturing(const char *name, CUstream stream, int *status)
{
	const char *env = getenv("COLOC_FAKE_CAPTURING");
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, name);
	found = put_stream(&line, stream);
	if ((rc = fake_need_ctx()) == CUDA_SUCCESS)
		rc = found;
	if (rc == CUDA_SUCCESS && !status)
		rc = CUDA_ERROR_INVALID_VALUE;
	if (rc == CUDA_SUCCESS) {
		fake_capture_status(stream, status);
		if (env && strcmp(env, "1") == 0)
			*status = 1;
		coloc_buf_printf(&line, " capturing=%d", *status);
	}
	return fake_end(&line, rc);
}

CUresult cuStreamIsCapturing(CUstream stream, int *status)
{
	return stream_capturing(__func__, stream, status);
}

CUresult cuStreamIsCapturing_ptsz(CUstream stream, int *status)
{
	return stream_capturing(__func__, stream, status);
}

/* Logs an event's id (or ?) after whatever key the caller wrote. */
static CUresult put_event_value(struct coloc_buf *line, CUevent e, struct fake_event **out)
{
	struct fake_event *ev;

	for (ev = fake.events; ev; ev = ev->next) {
		if (!ev->dead && (void *)&ev->tag == (void *)e) {
			coloc_buf_printf(line, "%u", ev->id);
			if (out)
				*out = ev;
			return CUDA_SUCCESS;
		}
	}
	coloc_buf_putc(line, '?');
	return CUDA_ERROR_INVALID_HANDLE;
}

static CUresult put_event(struct coloc_buf *line, CUevent e, struct fake_event **out)
{
	coloc_buf_puts(line, " event=");
	return put_event_value(line, e, out);
}

static CUresult stream_wait_event(const char *name, CUstream stream, CUevent event, unsigned flags)
{
	struct coloc_buf line;
	CUresult rc, stream_rc, event_rc;

	fake_begin(&line, name);
	stream_rc = put_stream(&line, stream);
	event_rc = put_event(&line, event, NULL);
	coloc_buf_printf(&line, " flags=%u", flags);
	if ((rc = fake_need_ctx()) == CUDA_SUCCESS && (rc = stream_rc) == CUDA_SUCCESS)
		rc = event_rc;
	return fake_end(&line, rc);
}

CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags)
{
	return stream_wait_event(__func__, stream, event, flags);
}

CUresult cuStreamWaitEvent_ptsz(CUstream stream, CUevent event, unsigned int flags)
{
	return stream_wait_event(__func__, stream, event, flags);
}

CUresult cuEventCreate(CUevent *event, unsigned int flags)
{
	struct fake_event *e;
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	coloc_buf_printf(&line, " flags=%u", flags);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!event)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if (!(e = calloc(1, sizeof(*e))))
		return fake_end(&line, CUDA_ERROR_OUT_OF_MEMORY);
	e->id = ++fake.next_event;
	e->next = fake.events;
	fake.events = e;
	*event = (CUevent)(void *)&e->tag;
	coloc_buf_printf(&line, " event=%u", e->id);
	return fake_end(&line, CUDA_SUCCESS);
}

static CUresult event_record(const char *name, CUevent event, CUstream stream)
{
	struct coloc_buf line;
	struct fake_event *e = NULL;
	CUresult rc, stream_rc, event_rc;

	fake_begin(&line, name);
	event_rc = put_event(&line, event, &e);
	stream_rc = put_stream(&line, stream);
	if ((rc = fake_need_ctx()) == CUDA_SUCCESS && (rc = event_rc) == CUDA_SUCCESS)
		rc = stream_rc;
	if (rc == CUDA_SUCCESS && fake_capture_put(&line, stream)) {
		e->captured = true;
	} else if (rc == CUDA_SUCCESS) {
		uint64_t now = now_ns();

		/* An idle GPU reaches the event now: elapsed times do not count idle time before. */
		e->captured = false;
		e->done_ns = fake.busy_until_ns > now ? fake.busy_until_ns : now;
		e->after_resident = fake_resident_on(stream);
		e->recorded = true;
	}
	return fake_end(&line, rc);
}

CUresult cuEventRecord(CUevent event, CUstream stream)
{
	return event_record(__func__, event, stream);
}

CUresult cuEventRecord_ptsz(CUevent event, CUstream stream)
{
	return event_record(__func__, event, stream);
}

CUresult cuEventSynchronize(CUevent event)
{
	struct coloc_buf line;
	struct fake_event *e = NULL;
	uint64_t until = 0;
	unsigned id = 0;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = put_event(&line, event, &e);
	if ((rc = fake_need_ctx()) == CUDA_SUCCESS)
		rc = found;
	if (rc == CUDA_SUCCESS)
		rc = fake_capture_forbids(NULL, false, e->captured);
	if (rc == CUDA_SUCCESS) {
		until = e->done_ns;
		id = e->after_resident;
	}
	rc = sleep_until(until, fake_end(&line, rc));
	return id ? fake_wait_resident(false, NULL, id, rc) : rc;
}

CUresult cuEventQuery(CUevent event)
{
	struct coloc_buf line;
	struct fake_event *e = NULL;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = put_event(&line, event, &e);
	if ((rc = fake_need_ctx()) == CUDA_SUCCESS)
		rc = found;
	if (rc == CUDA_SUCCESS)
		rc = fake_capture_forbids(NULL, false, e->captured);
	if (rc == CUDA_SUCCESS && (now_ns() < e->done_ns || fake_resident_live(e->after_resident)))
		rc = CUDA_ERROR_NOT_READY;
	return fake_end(&line, rc);
}

CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end)
{
	struct coloc_buf line;
	struct fake_event *a = NULL, *b = NULL;
	CUresult rc, found_a, found_b;
	uint64_t now = now_ns();

	fake_begin(&line, __func__);
	coloc_buf_puts(&line, " start=");
	found_a = put_event_value(&line, start, &a);
	coloc_buf_puts(&line, " end=");
	found_b = put_event_value(&line, end, &b);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = found_a) != CUDA_SUCCESS ||
	    (rc = found_b) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!ms)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if (!a->recorded || !b->recorded)
		return fake_end(&line, CUDA_ERROR_INVALID_HANDLE);
	if (now < a->done_ns || now < b->done_ns || fake_resident_live(a->after_resident) ||
	    fake_resident_live(b->after_resident))
		return fake_end(&line, CUDA_ERROR_NOT_READY);
	*ms = (float)((double)b->done_ns - (double)a->done_ns) / 1e6f;
	coloc_buf_printf(&line, " us=%lld", ((long long)b->done_ns - (long long)a->done_ns) / 1000);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuEventDestroy_v2(CUevent event)
{
	struct fake_event *e = NULL;
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = put_event(&line, event, &e);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = found) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	e->dead = true;
	return fake_end(&line, CUDA_SUCCESS);
}

/* ---- functions */

CUresult fake_attr_set(struct fake_kernel *k, int attrib, int value)
{
	/* Attributes below 8 (threads, registers, sizes, versions) are read-only. */
	if (attrib < CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES ||
	    attrib >= CU_FUNC_ATTRIBUTE_MAX)
		return CUDA_ERROR_INVALID_VALUE;
	if (attrib == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES &&
	    (value < 0 || value > LIMIT_SHMEM_OPTIN))
		return CUDA_ERROR_INVALID_VALUE;
	k->attrs[attrib] = value;
	return CUDA_SUCCESS;
}

CUresult fake_attr_get(const struct fake_kernel *k, int attrib, int *value)
{
	if (attrib < 0 || attrib >= CU_FUNC_ATTRIBUTE_MAX)
		return CUDA_ERROR_INVALID_VALUE;
	if (attrib == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
		*value = 1024;
	else if (attrib == CU_FUNC_ATTRIBUTE_NUM_REGS)
		*value = 32;
	else
		*value = k->attrs[attrib];
	return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction fn, CUfunction_attribute attrib, int value)
{
	struct fake_kernel *k;
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = fake_put_fn(&line, fn, &k);
	coloc_buf_printf(&line, " attrib=%d value=%d", attrib, value);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = found) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	return fake_end(&line, fake_attr_set(k, attrib, value));
}

CUresult cuFuncGetAttribute(int *value, CUfunction_attribute attrib, CUfunction fn)
{
	struct fake_kernel *k;
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = fake_put_fn(&line, fn, &k);
	coloc_buf_printf(&line, " attrib=%d", attrib);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = found) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!value)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if ((rc = fake_attr_get(k, attrib, value)) == CUDA_SUCCESS)
		coloc_buf_printf(&line, " value=%d", *value);
	return fake_end(&line, rc);
}

CUresult cuFuncSetCacheConfig(CUfunction fn, CUfunc_cache config)
{
	struct fake_kernel *k;
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = fake_put_fn(&line, fn, &k);
	coloc_buf_printf(&line, " config=%d", config);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = found) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	k->cache_config = config;
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuFuncGetName(const char **name, CUfunction fn)
{
	struct fake_kernel *k;
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = fake_put_fn(&line, fn, &k);
	if ((rc = fake_need_init()) != CUDA_SUCCESS || (rc = found) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!name)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	*name = k->name;
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuFuncGetParamInfo(CUfunction fn, size_t index, size_t *offset, size_t *size)
{
	struct fake_kernel *k;
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = fake_put_fn(&line, fn, &k);
	coloc_buf_printf(&line, " index=%zu", index);
	if ((rc = fake_need_init()) != CUDA_SUCCESS || (rc = found) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (index >= k->nparams)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if (offset)
		*offset = k->params[index].offset;
	if (size)
		*size = k->params[index].size;
	coloc_buf_printf(&line, " offset=%u size=%u", k->params[index].offset,
			 k->params[index].size);
	return fake_end(&line, CUDA_SUCCESS);
}

/* 2048 threads per SM in whole warps, at most 32 blocks, at least 1. */
static int fake_blocks_per_sm(unsigned threads)
{
	int n = 2048 / (int)((threads + 31) / 32 * 32);

	return n > 32 ? 32 : n < 1 ? 1 : n;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction fn, int block_size,
						     size_t dynamic_shmem)
{
	struct fake_kernel *k;
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = fake_put_fn(&line, fn, &k);
	coloc_buf_printf(&line, " block=%d shmem=%zu", block_size, dynamic_shmem);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = found) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!blocks || block_size <= 0 || block_size > 1024)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	*blocks = fake_blocks_per_sm((unsigned)block_size);
	coloc_buf_printf(&line, " blocks=%d", *blocks);
	return fake_end(&line, CUDA_SUCCESS);
}

/* ---- launches */

struct launch {
	const void *fn;
	unsigned grid[3], block[3], shmem;
	CUstream stream;
	bool ex; /* cuLaunchKernelEx: log the attributes */
	const CUlaunchAttribute *attrs;
	unsigned nattrs;
	void **params;
	void **extra;
};

static uint64_t le_load(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

static void le_store32(unsigned char *p, uint32_t v)
{
	unsigned i;

	for (i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> 8 * i);
}

/* The packed buffer of `extra`: BUFFER_POINTER and BUFFER_SIZE, then END. */
static CUresult extra_buffer(void **extra, const unsigned char **buf, size_t *size)
{
	bool have_size = false;
	size_t i;

	*buf = NULL;
	for (i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
		if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) {
			*buf = extra[i + 1];
		} else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1]) {
			memcpy(size, extra[i + 1], sizeof(*size));
			have_size = true;
		} else {
			return CUDA_ERROR_INVALID_VALUE;
		}
	}
	return *buf && have_size ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* Where each parameter's bytes are: kernelParams[i], or the layout's offset in extra's buffer. */
static CUresult param_values(const struct launch *l, const struct fake_kernel *k,
			     const unsigned char **values)
{
	const unsigned char *buf;
	size_t size = 0;
	unsigned i;
	CUresult rc;

	if (l->params && l->extra)
		return CUDA_ERROR_INVALID_VALUE;
	if (l->extra) {
		if ((rc = extra_buffer(l->extra, &buf, &size)) != CUDA_SUCCESS)
			return rc;
		if (size < k->param_bytes)
			return CUDA_ERROR_INVALID_VALUE;
		for (i = 0; i < k->nparams; i++)
			values[i] = buf + k->params[i].offset;
		return CUDA_SUCCESS;
	}
	for (i = 0; i < k->nparams; i++)
		if (!l->params || !(values[i] = l->params[i]))
			return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

static void put_value(struct coloc_buf *line, const unsigned char *p, uint32_t size)
{
	uint32_t i;

	if (size == 8) {
		fake_put_dptr(line, le_load(p, 8));
	} else if (size == 1 || size == 2 || size == 4) {
		coloc_buf_printf(line, "0x%llx", (unsigned long long)le_load(p, size));
	} else {
		coloc_buf_puts(line, "b:");
		for (i = 0; i < size; i++)
			coloc_buf_printf(line, "%02x", p[i]);
	}
}

/* ---- persistent kernels that outlive their launch call */

#define MAX_RESIDENT 64
#define RESIDENT_WAIT_NS 20000000000ull

struct resident {
	bool live, parked;
	unsigned id;
	char name[160];
	CUstream stream;
	uint64_t ctl, stop, total, finish_ns;
};

static struct resident resident[MAX_RESIDENT];
static unsigned resident_ids;

static void resident_log(const struct resident *r, const char *what)
{
	struct coloc_buf line;

	coloc_buf_init(&line);
	coloc_buf_printf(&line, "gpu resident=%u fn=%s %s\n", r->id, r->name, what);
	log_write(&line);
	coloc_buf_release(&line);
}

/*
 * Whether the stop record at `stop` stops a launch: its word; for a paused
 * worker 0, `parker`, its host copy too when it has one.
 */
static bool ptb_stopped(uint64_t stop, bool parker)
{
	const unsigned char *word = dev_range(stop, 4), *record = dev_range(stop, 16), *host;

	if (!word || le_load(word, 4) == 0)
		return false;
	if (!parker || !record || !le_load(record + 8, 8))
		return true;
	host = host_range(le_load(record + 8, 8), 4);
	return !host || le_load(host, 4) != 0; /* a bad pointer faults: nothing more runs */
}

/* Runs virtual blocks while not stopped; returns how many. */
static uint64_t ptb_blocks(unsigned char *ctl, uint64_t stop, uint64_t total, uint64_t limit)
{
	uint64_t ran = 0;

	while (!ptb_stopped(stop, false) && le_load(ctl, 4) < total && ran < limit) {
		le_store32(ctl, (uint32_t)le_load(ctl, 4) + 1);
		le_store32(ctl + 4, (uint32_t)le_load(ctl + 4, 4) + 1);
		ran++;
	}
	return ran;
}

void fake_progress(void)
{
	for (unsigned i = 0; i < MAX_RESIDENT; i++) {
		struct resident *r = &resident[i];
		unsigned char *ctl;
		bool stopped;
		char what[64];

		if (!r->live)
			continue;
		ctl = dev_range(r->ctl, 8);
		if (!ctl || !dev_range(r->stop, 4)) { /* its memory was freed under it */
			r->live = false;
			continue;
		}
		stopped = ptb_stopped(r->stop, r->parked);
		if (r->parked && le_load(ctl + 4, 4) >= r->total) {
			r->live = false;
			resident_log(r, "unparked");
			continue;
		}
		if (!r->parked && stopped) {
			r->parked = true;
			resident_log(r, "parked");
		} else if (r->parked && !stopped) {
			r->parked = false;
			resident_log(r, "resumed");
		}
		/* Its time is up, or helpers took every block: it ends. */
		if (!r->parked && (now_ns() >= r->finish_ns || le_load(ctl, 4) >= r->total)) {
			snprintf(what, sizeof(what), "finished ran=%llu",
				 (unsigned long long)ptb_blocks(ctl, r->stop, r->total, UINT64_MAX));
			r->live = false;
			resident_log(r, what);
		}
	}
}

unsigned fake_resident_on(CUstream stream)
{
	unsigned id = 0;

	for (unsigned i = 0; i < MAX_RESIDENT; i++)
		if (resident[i].live && resident[i].stream == stream && resident[i].id > id)
			id = resident[i].id;
	return id;
}

bool fake_resident_any(void)
{
	for (unsigned i = 0; i < MAX_RESIDENT; i++)
		if (resident[i].live)
			return true;
	return false;
}

bool fake_resident_live(unsigned id)
{
	for (unsigned i = 0; id && i < MAX_RESIDENT; i++)
		if (resident[i].live && resident[i].id == id)
			return true;
	return false;
}

CUresult fake_wait_resident(bool all, CUstream stream, unsigned id, CUresult rc)
{
	uint64_t deadline = now_ns() + RESIDENT_WAIT_NS;

	for (;;) {
		struct resident *waiting = NULL;

		pthread_mutex_lock(&fake.lock);
		fake_progress();
		for (unsigned i = 0; i < MAX_RESIDENT && !waiting; i++) {
			struct resident *r = &resident[i];

			if (r->live && (id ? r->id == id : all || r->stream == stream))
				waiting = r;
		}
		if (waiting && now_ns() > deadline) {
			resident_log(waiting, "timeout");
			pthread_mutex_unlock(&fake.lock);
			return rc == CUDA_SUCCESS ? CUDA_ERROR_LAUNCH_TIMEOUT : rc;
		}
		pthread_mutex_unlock(&fake.lock);
		if (!waiting)
			return rc;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
}

/*
 * The one kernel the fake runs: a ptb variant takes virtual blocks off the
 * control block's counter (parameters: ..., grid_x, grid_y, grid_z, park,
 * slot_base, control, stop), as described at the top.
 */
static CUresult ptb_run(struct coloc_buf *line, const struct fake_kernel *k,
			const unsigned char **values, CUstream stream, bool *stays, uint64_t *blocks)
{
	const char *stop_env = getenv("COLOC_FAKE_PTB_STOP_AFTER"), *us = getenv("COLOC_FAKE_RESIDENT_US");
	const char *no_helpers = getenv("COLOC_FAKE_NO_HELPERS");
	unsigned n = k->nparams, i;
	uint64_t total = 1, ran, stop_after = UINT64_MAX, park, stop;
	unsigned char *ctl;
	struct resident *r = NULL;

	if (strncmp(k->name, PTB_PREFIX, strlen(PTB_PREFIX)) != 0 || n < 7 ||
	    k->params[n - 1].size != 8 || k->params[n - 2].size != 8 || k->params[n - 3].size != 4 ||
	    k->params[n - 4].size != 4)
		return CUDA_SUCCESS;
	for (i = n - 7; i < n - 4; i++) {
		if (k->params[i].size != 4)
			return CUDA_SUCCESS;
		total *= le_load(values[i], 4);
	}
	park = le_load(values[n - 4], 4);
	if (!park && no_helpers && strcmp(no_helpers, "1") == 0)
		return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
	/* On a GPU, a control pointer outside device memory faults the launch. */
	stop = le_load(values[n - 1], 8);
	if (!(ctl = dev_range(le_load(values[n - 2], 8), 8)) || !dev_range(stop, 4))
		return CUDA_ERROR_LAUNCH_FAILED;
	if (stop_env && park)
		stop_after = strtoull(stop_env, NULL, 10);
	ran = ptb_blocks(ctl, stop, total, stop_after);
	coloc_buf_printf(line, " ran=%llu", (unsigned long long)ran);
	*blocks = ran;
	if (le_load(ctl, 4) >= total && !(park && le_load(ctl + 4, 4) < total))
		return CUDA_SUCCESS;
	if (!park && ptb_stopped(stop, false))
		return CUDA_SUCCESS; /* stopped, no parker: the workers left */
	for (i = 0; i < MAX_RESIDENT && !r; i++)
		if (!resident[i].live)
			r = &resident[i];
	if (!r)
		return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
	memset(r, 0, sizeof(*r));
	r->live = true;
	r->id = ++resident_ids;
	snprintf(r->name, sizeof(r->name), "%s", k->name);
	r->stream = stream;
	r->ctl = le_load(values[n - 2], 8);
	r->stop = le_load(values[n - 1], 8);
	r->total = total;
	r->finish_ns = now_ns() + (us && *us ? strtoull(us, NULL, 10) * 1000u : 0);
	r->parked = ptb_stopped(stop, false);
	coloc_buf_printf(line, " %s=%u", r->parked ? "parked" : "resident", r->id);
	*stays = true; /* its time is COLOC_FAKE_RESIDENT_US, not COLOC_FAKE_KERNEL_US */
	return CUDA_SUCCESS;
}

static CUresult launch_run(struct coloc_buf *line, const struct launch *l)
{
	const unsigned char **values = NULL;
	struct fake_kernel *k;
	struct fake_graph *graph;
	CUresult rc, fn_rc, stream_rc;
	bool stays = false;
	uint64_t threads, blocks = 0;
	unsigned i;

	fn_rc = fake_put_fn(line, l->fn, &k);
	coloc_buf_printf(line, " grid=%u,%u,%u block=%u,%u,%u shmem=%u", l->grid[0], l->grid[1],
			 l->grid[2], l->block[0], l->block[1], l->block[2], l->shmem);
	stream_rc = put_stream(line, l->stream);
	if (l->ex) {
		coloc_buf_puts(line, " attrs=");
		for (i = 0; l->attrs && i < l->nattrs; i++)
			coloc_buf_printf(line, "%s%d", i ? "," : "", l->attrs[i].id);
	}
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = fn_rc) != CUDA_SUCCESS ||
	    (rc = stream_rc) != CUDA_SUCCESS)
		return rc;
	if (l->ex && l->nattrs && !l->attrs)
		return CUDA_ERROR_INVALID_VALUE;
	threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
	if (!l->grid[0] || !l->grid[1] || !l->grid[2] || !threads || threads > 1024 ||
	    l->block[2] > 64 || l->grid[1] > 65535 || l->grid[2] > 65535)
		return CUDA_ERROR_INVALID_VALUE;
	/* As on the GPU: more than 48 KiB only after the kernel opted in for as much. */
	if (l->shmem > LIMIT_DYNAMIC_SHMEM &&
	    l->shmem > (unsigned)k->attrs[CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES])
		return CUDA_ERROR_INVALID_VALUE;
	if (!(values = calloc(k->nparams + 1, sizeof(*values))))
		return CUDA_ERROR_OUT_OF_MEMORY;
	rc = param_values(l, k, values);
	if (rc == CUDA_SUCCESS) {
		coloc_buf_puts(line, " params=");
		for (i = 0; i < k->nparams; i++) {
			if (i)
				coloc_buf_putc(line, ',');
			put_value(line, values[i], k->params[i].size);
		}
		if (l->extra)
			coloc_buf_puts(line, " packed=1");
		if ((graph = fake_capture_put(line, l->stream))) {
			/* Recorded, not run: the graph runs it at each cuGraphLaunch. */
			fake_capture_kernel(graph, k, (uint64_t)l->grid[0] * l->grid[1] * l->grid[2]);
			free(values);
			return CUDA_SUCCESS;
		}
		rc = ptb_run(line, k, values, l->stream, &stays, &blocks);
	}
	if (rc == CUDA_SUCCESS && !stays) {
		/* The device holds `wave` blocks at once; a persistent variant, its workers. */
		uint64_t wave = 132 * (uint64_t)fake_blocks_per_sm((unsigned)threads);
		uint64_t grid = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];

		fake_kernel_ran(blocks ? blocks : grid, grid < wave ? grid : wave,
				!strncmp(k->name, "__coloc_", 8));
	}
	free(values);
	return rc;
}

static CUresult launch_kernel(const char *name, CUfunction fn, unsigned gx, unsigned gy,
			      unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shmem,
			      CUstream stream, void **params, void **extra)
{
	struct launch l = {.fn = fn,
			   .grid = {gx, gy, gz},
			   .block = {bx, by, bz},
			   .shmem = shmem,
			   .stream = stream,
			   .params = params,
			   .extra = extra};
	struct coloc_buf line;

	fake_begin(&line, name);
	return fake_end(&line, launch_run(&line, &l));
}

CUresult cuLaunchKernel(CUfunction fn, unsigned int gx, unsigned int gy, unsigned int gz,
			unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem,
			CUstream stream, void **params, void **extra)
{
	return launch_kernel(__func__, fn, gx, gy, gz, bx, by, bz, shmem, stream, params, extra);
}

CUresult cuLaunchKernel_ptsz(CUfunction fn, unsigned int gx, unsigned int gy, unsigned int gz,
			     unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem,
			     CUstream stream, void **params, void **extra)
{
	return launch_kernel(__func__, fn, gx, gy, gz, bx, by, bz, shmem, stream, params, extra);
}

CUresult cuLaunchCooperativeKernel(CUfunction fn, unsigned int gx, unsigned int gy,
				   unsigned int gz, unsigned int bx, unsigned int by,
				   unsigned int bz, unsigned int shmem, CUstream stream,
				   void **params)
{
	return launch_kernel(__func__, fn, gx, gy, gz, bx, by, bz, shmem, stream, params, NULL);
}

CUresult cuLaunchCooperativeKernel_ptsz(CUfunction fn, unsigned int gx, unsigned int gy,
					unsigned int gz, unsigned int bx, unsigned int by,
					unsigned int bz, unsigned int shmem, CUstream stream,
					void **params)
{
	return launch_kernel(__func__, fn, gx, gy, gz, bx, by, bz, shmem, stream, params, NULL);
}

static CUresult launch_kernel_ex(const char *name, const CUlaunchConfig *c, CUfunction fn,
				 void **params, void **extra)
{
	struct coloc_buf line;
	struct launch l;

	fake_begin(&line, name);
	if (!c) {
		coloc_buf_puts(&line, " config=(null)");
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	}
	l = (struct launch){
		.fn = fn,
		.grid = {c->gridDimX, c->gridDimY, c->gridDimZ},
		.block = {c->blockDimX, c->blockDimY, c->blockDimZ},
		.shmem = c->sharedMemBytes,
		.stream = c->hStream,
		.ex = true,
		.attrs = c->attrs,
		.nattrs = c->numAttrs,
		.params = params,
		.extra = extra,
	};
	return fake_end(&line, launch_run(&line, &l));
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction fn, void **params, void **extra)
{
	return launch_kernel_ex(__func__, config, fn, params, extra);
}

CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction fn, void **params,
			       void **extra)
{
	return launch_kernel_ex(__func__, config, fn, params, extra);
}
