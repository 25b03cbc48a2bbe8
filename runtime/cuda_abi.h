/*
 * The part of the CUDA driver API's binary interface that libcoloc and the
 * test suite's fake driver use, declared here rather than taken from the
 * toolkit's cuda.h: cuda.h renames entry points with macros (cuMemAlloc is
 * cuMemAlloc_v2, cuLaunchKernel may be cuLaunchKernel_ptsz), and an
 * interposer must name each exported symbol exactly.  Values are those of
 * the driver API (CUDA 13.0); the build needs no CUDA toolkit.
 */
#ifndef COLOC_CUDA_ABI_H
#define COLOC_CUDA_ABI_H

#include <stddef.h>
#include <stdint.h>

typedef int CUresult;
typedef int CUdevice;
typedef uint64_t CUdeviceptr;
typedef uint64_t cuuint64_t;
typedef uint32_t cuuint32_t;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUlib_st *CUlibrary;
typedef struct CUkern_st *CUkernel;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUlinkState_st *CUlinkState;
typedef struct CUarray_st *CUarray;
typedef int CUjit_option;
typedef int CUjitInputType;
typedef int CUlibraryOption;
typedef int CUfunction_attribute;
typedef int CUdevice_attribute;
typedef int CUfunc_cache;
typedef int CUdriverProcAddressQueryResult;
typedef struct CUmemPoolHandle_st *CUmemoryPool;
typedef unsigned long long CUmemGenericAllocationHandle;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUgraphNode_st *CUgraphNode;
typedef struct CUgraphEdgeData_st CUgraphEdgeData;
typedef int CUstreamCaptureMode;
typedef int CUstreamCaptureStatus;

/* Stream capture (cuStreamBeginCapture_v2's mode, cuStreamIsCapturing's status). */
enum {
	CU_STREAM_CAPTURE_MODE_GLOBAL = 0,
	CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
	CU_STREAM_CAPTURE_MODE_RELAXED = 2,
};
enum {
	CU_STREAM_CAPTURE_STATUS_NONE = 0,
	CU_STREAM_CAPTURE_STATUS_ACTIVE = 1,
	CU_STREAM_CAPTURE_STATUS_INVALIDATED = 2,
};

/* The virtual memory API (cuMemCreate, cuMemMap): what colocc's pools use. */
typedef struct CUmemLocation_st {
	int type; /* CU_MEM_LOCATION_TYPE_* */
	int id;
} CUmemLocation;

typedef struct CUmemAllocationProp_st {
	int type;                 /* CU_MEM_ALLOCATION_TYPE_* */
	int requestedHandleTypes; /* CUmemAllocationHandleType */
	CUmemLocation location;
	void *win32HandleMetaData;
	struct {
		unsigned char compressionType;
		unsigned char gpuDirectRDMACapable;
		unsigned short usage;
		unsigned char reserved[4];
	} allocFlags;
} CUmemAllocationProp;

typedef struct CUmemAccessDesc_st {
	CUmemLocation location;
	int flags; /* CU_MEM_ACCESS_FLAGS_* */
} CUmemAccessDesc;

enum {
	CU_MEM_ALLOCATION_TYPE_PINNED = 1,
	CU_MEM_LOCATION_TYPE_DEVICE = 1,
	CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3,
	CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0,
};

/* cuPointerGetAttribute: the attributes colocc answers for its pools. */
enum {
	CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
	CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12,
};
typedef int CUpointer_attribute;

/* cuIpcGetMemHandle's handle: 64 opaque bytes. */
typedef struct CUipcMemHandle_st {
	char reserved[64];
} CUipcMemHandle;

enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_INVALID_VALUE = 1,
	CUDA_ERROR_OUT_OF_MEMORY = 2,
	CUDA_ERROR_NOT_INITIALIZED = 3,
	CUDA_ERROR_INVALID_IMAGE = 200,
	CUDA_ERROR_INVALID_CONTEXT = 201,
	CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
	CUDA_ERROR_INVALID_PTX = 218,
	CUDA_ERROR_FILE_NOT_FOUND = 301,
	CUDA_ERROR_INVALID_HANDLE = 400,
	CUDA_ERROR_NOT_FOUND = 500,
	CUDA_ERROR_NOT_READY = 600,
	CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
	CUDA_ERROR_LAUNCH_TIMEOUT = 702,
	CUDA_ERROR_LAUNCH_FAILED = 719,
	CUDA_ERROR_NOT_SUPPORTED = 801,
	CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900,
	CUDA_ERROR_STREAM_CAPTURE_INVALIDATED = 901,
	CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD = 908,
	CUDA_ERROR_UNKNOWN = 999,
};

/* cuGetProcAddress flags and results. */
enum {
	CU_GET_PROC_ADDRESS_DEFAULT = 0,
	CU_GET_PROC_ADDRESS_LEGACY_STREAM = 1,
	CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM = 2,
};
enum {
	CU_GET_PROC_ADDRESS_SUCCESS = 0,
	CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
	CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2,
};

/* cuLinkAddData input types. */
enum {
	CU_JIT_INPUT_CUBIN = 0,
	CU_JIT_INPUT_PTX = 1,
	CU_JIT_INPUT_FATBINARY = 2,
	CU_JIT_INPUT_OBJECT = 3,
	CU_JIT_INPUT_LIBRARY = 4,
};

/* JIT options colocc passes when it compiles a variant. */
enum {
	CU_JIT_INFO_LOG_BUFFER = 3,
	CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
	CU_JIT_ERROR_LOG_BUFFER = 5,
	CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

/* Function attributes. */
enum {
	CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
	CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
	CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
	CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
	CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9,
	CU_FUNC_ATTRIBUTE_MAX = 16, /* attributes are below this */
};

/* Device attributes. */
enum {
	CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
	CU_DEVICE_ATTRIBUTE_MPS_ENABLED = 133,
};

/* Launch attributes of cuLaunchKernelEx. */
enum {
	CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 2,
	CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
};

typedef struct CUlaunchAttribute_st {
	int id;
	char pad[4];
	union {
		char pad[64];
		int cooperative;
		struct {
			unsigned x, y, z;
		} clusterDim;
	} value;
} CUlaunchAttribute;

typedef struct CUlaunchConfig_st {
	unsigned gridDimX, gridDimY, gridDimZ;
	unsigned blockDimX, blockDimY, blockDimZ;
	unsigned sharedMemBytes;
	CUstream hStream;
	CUlaunchAttribute *attrs;
	unsigned numAttrs;
} CUlaunchConfig;

/* The `extra` argument of cuLaunchKernel. */
#define CU_LAUNCH_PARAM_END ((void *)0x00)
#define CU_LAUNCH_PARAM_BUFFER_POINTER ((void *)0x01)
#define CU_LAUNCH_PARAM_BUFFER_SIZE ((void *)0x02)

/* Special stream handles. */
#define CU_STREAM_LEGACY ((CUstream)0x1)
#define CU_STREAM_PER_THREAD ((CUstream)0x2)

#endif
