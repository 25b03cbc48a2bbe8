/*
 * A fake libcuda.so.1 for the runtime's tests on machines without a GPU:
 * libcoloc.so interposes on it exactly as on the real driver, and every
 * call the fake receives is written to a log the tests read back.
 *
 * Device memory is host memory, so memsets and copies really happen;
 * everything runs at call time, so synchronization only logs.  Kernels are
 * not executed, with one exception, a persistent-thread-block variant:
 * fake_launch.c.
 *
 * Environment:
 *   COLOC_FAKE_LOG              the log file (lines are appended; unset: no log)
 *   COLOC_FAKE_DEVICES          devices (default 1, at most 16)
 *   COLOC_FAKE_MPS=1            contexts are MPS clients (CU_DEVICE_ATTRIBUTE_MPS_ENABLED)
 *   COLOC_FAKE_PRIORITY_STREAM_FAIL=1  cuStreamCreateWithPriority fails (out of memory)
 *   COLOC_FAKE_CC               compute capability as colocc spells it: 90 (default), 90a, 100
 *   COLOC_FAKE_NO_CONTEXT=1     cuInit makes no context current (the program makes its own)
 *   COLOC_FAKE_PTB_STOP_AFTER   a ptb launch with park = 1 runs this many blocks, then
 *                               stays resident (fake_launch.c)
 *   COLOC_FAKE_RESIDENT_US=N    a resident kernel finishes by itself N us after its launch
 *   COLOC_FAKE_LEAVE_US=N       a stopped kernel without a parker (park 0) leaves N us after
 *                               it first saw the stop (default: at once)
 *   COLOC_FAKE_LINK_FAIL=1      every cuLinkComplete fails with CUDA_ERROR_INVALID_PTX
 *   COLOC_FAKE_NO_HELPERS=1     ptb launches with park = 0 fail with
 *                               CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES (helpers that cannot run)
 *   COLOC_FAKE_NO_HOST_ALLOC=1  cuMemHostAlloc fails with CUDA_ERROR_OUT_OF_MEMORY
 *   COLOC_FAKE_HOST_ALLOCS=N    cuMemHostAlloc succeeds N times, then fails likewise
 *   COLOC_FAKE_SHARED_QUEUE=1   every stream shares one hardware queue with the resident
 *                               kernels: cuStreamQuery on any stream is NOT_READY while one lives
 *   COLOC_FAKE_STUCK_STREAM=1   only the first stream made with a priority above normal does
 *   COLOC_FAKE_KERNEL_US=N      every launch keeps the "GPU" busy N us after the work before
 *                               it; cuCtxSynchronize, cuStreamSynchronize and
 *                               cuEventSynchronize return only when it is idle
 *   COLOC_FAKE_KERNEL_HOLD=PATH while the file PATH exists, the "GPU" stays busy once a
 *                               kernel was launched: cuStreamQuery says CUDA_ERROR_NOT_READY,
 *                               cuCtxSynchronize and cuStreamSynchronize wait until PATH is
 *                               removed (then COLOC_FAKE_KERNEL_US rules); a test decides when
 *                               its kernel ends instead of guessing how long it must take
 *   COLOC_FAKE_BLOCK_US=N       and N us more per round of its blocks: a launch of B blocks
 *                               of which the device holds W at once (132 SMs times the
 *                               occupancy below) takes ceil(B / W) rounds; a persistent
 *                               variant's round is its workers' share of the virtual
 *                               blocks it ran.  cuEventElapsedTime reads this time line
 *   COLOC_FAKE_VARIANT_US=N     a launch of a variant (__coloc_*) takes N us more: what
 *                               a form costs over the original
 *   COLOC_FAKE_GAPLESS=1        the "GPU" never idles on this time line: a launch starts,
 *                               and an event is reached, when the work before it ends, not
 *                               when the process gets to it (the first at once), so that
 *                               elapsed times are the model's alone, however late a loaded
 *                               machine lets the process submit; synchronization still waits
 *                               for a time line ahead of the clock
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
 *   cuInit flags=F [mps-pipe=DIR]        DIR: CUDA_MPS_PIPE_DIRECTORY, when set
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
 *   cuMemAlloc bytes=N ptr=@A+0                           also cuMemAlloc_v2; with
 *                                                         COLOC_FAKE_DIRTY=1 filled with 0xdb
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
 *   cuMemcpyHtoDAsync_v2 dst=@A+OFF bytes=N [value=0xV] stream=S   also _ptsz; V: a 4-byte copy's
 *   cuMemcpyDtoHAsync_v2 src=@A+OFF bytes=N stream=S      also _ptsz
 *                                                         a copy on a stream: with
 *                                                         COLOC_FAKE_COPY_US=N the stream is not
 *                                                         ready until N us later
 *   cuStreamCreate flags=F stream=S
 *   cuStreamCreateWithPriority flags=F priority=P stream=S
 *   cuStreamGetFlags stream=S flags=F                     (0 for the default streams)
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
 *   cuStreamWaitValue32_v2 stream=S addr=A value=0xV flags=F  also _ptsz; A: @B+OFF, or host
 *                                                         for mapped host memory; then met, or
 *                                                         waiting=R: S is held (fake_launch.c);
 *                                                         COLOC_FAKE_WAIT_VALUE_FAIL=N: refused
 *                                                         after the first N calls
 *   cuStreamWriteValue32_v2 stream=S addr=A value=0xV flags=F  also _ptsz, and the ABI before
 *                                                         11.7 (cuStreamWriteValue32); written at once;
 *                                                         COLOC_FAKE_WRITE_VALUE_FAIL=1: refused;
 *                                                         COLOC_FAKE_WRITE_VALUE_US=N: the call
 *                                                         waits N us before it writes
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
 *       the stop word set and worker 0 parked.  COLOC_FAKE_LAUNCH_US=N: every
 *       kernel launch waits N us, unlocked, before it does anything (a thread
 *       descheduled on its way into the driver).  COLOC_FAKE_LAUNCH_FAIL=1:
 *       cuLaunchKernel refuses every launch (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES).
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
void fake_log_write(struct coloc_buf *line)
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
	fake_log_write(line);
	pthread_mutex_unlock(&fake.lock);
	coloc_buf_release(line);
	return rc;
}

CUresult fake_need_init(void)
{
	return fake.initialized ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

/*
 * The current context is per thread, as the driver's: a thread that set one
 * has its own; one that never did sees the context of the thread that called
 * cuInit (the application's main thread, standing in for the CUDA runtime,
 * which makes the primary context current in every thread it serves).  A
 * process-wide current context let colocc's own threads (the monitor, the
 * handover server) move the application's thread to another GPU.
 */
static __thread struct fake_ctx *thread_ctx;
static __thread bool thread_ctx_set;
static pthread_t init_thread;

static struct fake_ctx *current_ctx(void)
{
	return thread_ctx_set ? thread_ctx : fake.current;
}

CUresult fake_need_ctx(void)
{
	if (!fake.initialized)
		return CUDA_ERROR_NOT_INITIALIZED;
	return current_ctx() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
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
	/* Where the real driver would look for an MPS daemon (mps.test). */
	if (getenv("CUDA_MPS_PIPE_DIRECTORY"))
		coloc_buf_printf(&line, " mps-pipe=%s", getenv("CUDA_MPS_PIPE_DIRECTORY"));
	if (flags)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if (!fake.initialized) {
		device_read_env();
		for (i = 0; i < fake.ndevices; i++)
			fake.ctx[i].device = i;
		/*
		 * As if the application's runtime had made device 0 current;
		 * COLOC_FAKE_NO_CONTEXT=1: none is until the program makes one.
		 */
		const char *none = getenv("COLOC_FAKE_NO_CONTEXT");

		fake.current = fake.ndevices && !(none && strcmp(none, "1") == 0) ? &fake.ctx[0] :
										  NULL;
		init_thread = pthread_self();
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
		return FAKE_LIMIT_SHMEM_OPTIN;
	case 106: /* MAX_BLOCKS_PER_MULTIPROCESSOR */
		return 32;
	case 133: /* MPS_ENABLED: COLOC_FAKE_MPS=1 */
		return getenv("COLOC_FAKE_MPS") && strcmp(getenv("COLOC_FAKE_MPS"), "1") == 0;
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
	*ctx = current_ctx() ? ctx_handle(current_ctx()) : NULL;
	coloc_buf_printf(&line, " ctx=%d", current_ctx() ? current_ctx()->device + 1 : 0);
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
	thread_ctx = c;
	thread_ctx_set = true;
	if (pthread_equal(pthread_self(), init_thread))
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
	*device = current_ctx()->device;
	coloc_buf_printf(&line, " device=%d", *device);
	return fake_end(&line, CUDA_SUCCESS);
}

uint64_t fake_now_ns(void)
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
uint64_t fake_gpu_now(void)
{
	const char *gapless = getenv("COLOC_FAKE_GAPLESS");
	uint64_t now = fake_now_ns();

	if (gapless && strcmp(gapless, "1") == 0) {
		if (!fake.busy_until_ns)
			fake.busy_until_ns = now;
		return fake.busy_until_ns;
	}
	return fake.busy_until_ns > now ? fake.busy_until_ns : now;
}

void fake_kernel_ran(uint64_t blocks, uint64_t at_once, bool variant)
{
	const char *us = getenv("COLOC_FAKE_KERNEL_US"), *block_us = getenv("COLOC_FAKE_BLOCK_US");
	const char *variant_us = getenv("COLOC_FAKE_VARIANT_US");
	uint64_t start = fake_gpu_now(), t = 0;

	if (us && *us)
		t = strtoull(us, NULL, 10) * 1000u;
	if (variant && variant_us && *variant_us)
		t += strtoull(variant_us, NULL, 10) * 1000u;
	if (block_us && *block_us && at_once)
		t += (blocks + at_once - 1) / at_once * strtoull(block_us, NULL, 10) * 1000u;
	if (t)
		fake.busy_until_ns = start + t;
	fake.launched = true;
}

bool fake_held(void)
{
	const char *path = getenv("COLOC_FAKE_KERNEL_HOLD");

	return path && *path && __atomic_load_n(&fake.launched, __ATOMIC_RELAXED) &&
	       access(path, F_OK) == 0;
}

/* Sleeps, unlocked, until the simulated GPU reaches `until`; passes rc on. */
CUresult fake_sleep_until(uint64_t until, CUresult rc)
{
	uint64_t now;

	while (rc == CUDA_SUCCESS && (now = fake_now_ns()) < until) {
		struct timespec t = { (time_t)((until - now) / 1000000000u),
				      (long)((until - now) % 1000000000u) };

		nanosleep(&t, NULL);
	}
	return rc;
}

/* After a synchronization call's log line: wait until the GPU is idle. */
CUresult fake_wait_idle(CUresult rc)
{
	uint64_t until;

	pthread_mutex_lock(&fake.lock);
	until = fake.busy_until_ns;
	pthread_mutex_unlock(&fake.lock);
	rc = fake_sleep_until(until, rc);
	while (rc == CUDA_SUCCESS && fake_held()) {
		struct timespec t = { 0, 1000000 };

		nanosleep(&t, NULL);
	}
	return rc;
}

CUresult cuCtxSynchronize(void)
{
	struct coloc_buf line;

	CUresult rc;

	fake_begin(&line, __func__);
	if ((rc = fake_need_ctx()) == CUDA_SUCCESS)
		rc = fake_capture_forbids(NULL, true, false);
	return fake_wait_resident(true, NULL, 0, fake_wait_idle(fake_end(&line, rc)));
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
	/* As a real driver's memory: what the last user left (COLOC_FAKE_DIRTY=1). */
	if (getenv("COLOC_FAKE_DIRTY") && strcmp(getenv("COLOC_FAKE_DIRTY"), "1") == 0)
		memset(a->base, 0xdb, bytes);
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
unsigned char *fake_host_range(uint64_t addr, size_t bytes)
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
	if (!dptr || flags || !fake_host_range((uintptr_t)p, 1))
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
	if (to_device && bytes == 4 && host) {
		uint32_t v;

		memcpy(&v, host, 4);
		coloc_buf_printf(&line, " value=0x%x", v);
	}
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
	if (has_stream)
		fake_stream_copied(stream);
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
