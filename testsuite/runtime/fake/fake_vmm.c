/*
 * The fake driver's virtual memory API, with real memory behind it:
 * physical allocations (cuMemCreate) are memfd files, reserved address
 * ranges are PROT_NONE mappings of the process, cuMemMap maps the file at
 * the reserved address and cuMemSetAccess makes it readable and writable.
 * So device addresses are host addresses, as elsewhere in the fake, and a
 * page mapped back at the same address shows what was copied into it.
 *
 * Log lines (addresses inside a reservation are "R<id>+<offset>"):
 *
 *   cuMemGetAllocationGranularity granularity=2097152   error=CUDA_ERROR_NOT_SUPPORTED
 *                                              with COLOC_FAKE_NO_VMM=1
 *   cuMemCreate bytes=N handle=H              sizes in 2 MiB granules; with
 *                                              COLOC_FAKE_DIRTY=1 the memory is
 *                                              filled with 0xdb, as physical
 *                                              memory another process left behind
 *   cuMemRelease handle=H
 *   cuMemAddressReserve size=N align=A va=R1+0
 *   cuMemAddressFree va=R1+0 size=N
 *   cuMemMap va=R1+OFF size=N handle=H
 *   cuMemUnmap va=R1+OFF size=N
 *   cuMemSetAccess va=R1+OFF size=N
 *   cuMemGetAddressRange_v2 ptr=.. base=.. size=N
 *   cuPointerGetAttribute attr=A ptr=..
 *   cuIpcGetMemHandle ptr=..                  error=CUDA_ERROR_INVALID_VALUE for
 *                                              mapped memory, as the driver's legacy
 *                                              IPC cannot export it
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fake.h"

#define GRANULE (2u << 20)

struct handle {
	uint64_t id;
	size_t size;
	int fd;
	struct handle *next;
};

struct reservation {
	unsigned id;
	uintptr_t base;
	size_t size;
	struct reservation *next;
};

struct mapping {
	uintptr_t va;
	size_t size;
	uint64_t handle;
	bool access;
	struct mapping *next;
};

static struct handle *handles;
static uint64_t next_handle;
static struct reservation *reservations;
static unsigned next_reservation;
static struct mapping *mappings;

uint64_t fake_vmm_held(void)
{
	uint64_t n = 0;

	for (struct handle *h = handles; h; h = h->next)
		n += h->size;
	return n;
}

static struct reservation *reservation_of(uint64_t addr)
{
	for (struct reservation *r = reservations; r; r = r->next)
		if (addr >= r->base && addr - r->base < r->size)
			return r;
	return NULL;
}

bool fake_vmm_put(struct coloc_buf *line, uint64_t addr)
{
	struct reservation *r = reservation_of(addr);

	if (r)
		coloc_buf_printf(line, "R%u+%llu", r->id, (unsigned long long)(addr - r->base));
	return r != NULL;
}

static struct mapping *mapping_of(uint64_t addr)
{
	for (struct mapping *m = mappings; m; m = m->next)
		if (addr >= m->va && addr - m->va < m->size)
			return m;
	return NULL;
}

unsigned char *fake_vmm_range(uint64_t addr, size_t bytes)
{
	uint64_t end = addr + bytes;

	/* Several mappings side by side form one range, as on the GPU. */
	for (uint64_t a = addr; a < end;) {
		struct mapping *m = mapping_of(a);

		if (!m || !m->access)
			return NULL;
		a = m->va + m->size;
	}
	return (unsigned char *)(uintptr_t)addr;
}

static struct handle *handle_find(uint64_t id)
{
	for (struct handle *h = handles; h; h = h->next)
		if (h->id == id)
			return h;
	return NULL;
}

CUresult cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
				       int option)
{
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	if ((rc = fake_need_init()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!granularity || !prop || (option != 0 && option != 1))
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if (getenv("COLOC_FAKE_NO_VMM") && !strcmp(getenv("COLOC_FAKE_NO_VMM"), "1"))
		return fake_end(&line, CUDA_ERROR_NOT_SUPPORTED);
	*granularity = GRANULE;
	coloc_buf_printf(&line, " granularity=%u", GRANULE);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t bytes,
		     const CUmemAllocationProp *prop, unsigned long long flags)
{
	const char *dirty = getenv("COLOC_FAKE_DIRTY");
	struct coloc_buf line;
	struct handle *h;
	CUresult rc;
	int fd;

	fake_begin(&line, __func__);
	coloc_buf_printf(&line, " bytes=%zu", bytes);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!handle || !prop || flags || !bytes || bytes % GRANULE)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if (bytes > fake_mem_room())
		return fake_end(&line, CUDA_ERROR_OUT_OF_MEMORY);
	if ((fd = memfd_create("fake-vmm", MFD_CLOEXEC)) < 0)
		return fake_end(&line, CUDA_ERROR_OUT_OF_MEMORY);
	if (ftruncate(fd, (off_t)bytes) < 0 || !(h = calloc(1, sizeof(*h)))) {
		close(fd);
		return fake_end(&line, CUDA_ERROR_OUT_OF_MEMORY);
	}
	if (dirty && !strcmp(dirty, "1")) {
		void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

		if (p != MAP_FAILED) {
			memset(p, 0xdb, bytes);
			munmap(p, bytes);
		}
	}
	h->id = ++next_handle;
	h->size = bytes;
	h->fd = fd;
	h->next = handles;
	handles = h;
	*handle = h->id;
	coloc_buf_printf(&line, " handle=%llu", (unsigned long long)h->id);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
	struct coloc_buf line;
	struct handle **pp, *h;
	CUresult rc;

	fake_begin(&line, __func__);
	coloc_buf_printf(&line, " handle=%llu", (unsigned long long)handle);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	for (pp = &handles; *pp && (*pp)->id != handle;)
		pp = &(*pp)->next;
	if (!(h = *pp))
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	/* Memory still mapped lives on until it is unmapped, as with the driver. */
	*pp = h->next;
	close(h->fd);
	free(h);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr,
			     unsigned long long flags)
{
	struct coloc_buf line;
	struct reservation *r;
	size_t align = alignment ? alignment : GRANULE;
	uintptr_t base, at;
	void *p;

	fake_begin(&line, __func__);
	coloc_buf_printf(&line, " size=%zu align=%zu", size, alignment);
	if (!ptr || !size || size % GRANULE || align % GRANULE || (align & (align - 1)) || addr ||
	    flags)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	/* Aligned: reserve more, keep the aligned part. */
	p = mmap(NULL, size + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED || !(r = calloc(1, sizeof(*r)))) {
		if (p != MAP_FAILED)
			munmap(p, size + align);
		return fake_end(&line, CUDA_ERROR_OUT_OF_MEMORY);
	}
	base = (uintptr_t)p;
	at = (base + align - 1) / align * align;
	if (at > base)
		munmap(p, at - base);
	if (base + size + align > at + size)
		munmap((void *)(at + size), base + size + align - (at + size));
	r->id = ++next_reservation;
	r->base = at;
	r->size = size;
	r->next = reservations;
	reservations = r;
	*ptr = at;
	coloc_buf_printf(&line, " va=R%u+0", r->id);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
	struct coloc_buf line;
	struct reservation **pp, *r;

	fake_begin(&line, __func__);
	coloc_buf_puts(&line, " va=");
	fake_put_dptr(&line, ptr);
	coloc_buf_printf(&line, " size=%zu", size);
	for (pp = &reservations; *pp && (*pp)->base != ptr;)
		pp = &(*pp)->next;
	if (!(r = *pp) || r->size != size)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	for (struct mapping *m = mappings; m; m = m->next)
		if (m->va >= r->base && m->va - r->base < r->size)
			return fake_end(&line, CUDA_ERROR_INVALID_VALUE); /* still mapped */
	*pp = r->next;
	munmap((void *)r->base, r->size);
	free(r);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
		  unsigned long long flags)
{
	struct coloc_buf line;
	struct reservation *r;
	struct mapping *m;
	struct handle *h;
	CUresult rc;

	fake_begin(&line, __func__);
	coloc_buf_puts(&line, " va=");
	fake_put_dptr(&line, ptr);
	coloc_buf_printf(&line, " size=%zu handle=%llu", size, (unsigned long long)handle);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	h = handle_find(handle);
	r = reservation_of(ptr);
	if (!h || !r || offset || flags || size != h->size || ptr % GRANULE ||
	    size > r->size - (ptr - r->base))
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	for (m = mappings; m; m = m->next)
		if (ptr < m->va + m->size && m->va < ptr + size)
			return fake_end(&line, CUDA_ERROR_INVALID_VALUE); /* already mapped */
	if (!(m = calloc(1, sizeof(*m))))
		return fake_end(&line, CUDA_ERROR_OUT_OF_MEMORY);
	if (mmap((void *)(uintptr_t)ptr, size, PROT_NONE, MAP_SHARED | MAP_FIXED, h->fd, 0) ==
	    MAP_FAILED) {
		free(m);
		return fake_end(&line, CUDA_ERROR_OUT_OF_MEMORY);
	}
	m->va = ptr;
	m->size = size;
	m->handle = handle;
	m->next = mappings;
	mappings = m;
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	struct coloc_buf line;
	uint64_t covered = 0;

	fake_begin(&line, __func__);
	coloc_buf_puts(&line, " va=");
	fake_put_dptr(&line, ptr);
	coloc_buf_printf(&line, " size=%zu", size);
	/* The range must be whole mappings. */
	for (struct mapping *m = mappings; m; m = m->next) {
		if (m->va >= ptr && m->va + m->size <= ptr + size)
			covered += m->size;
		else if (m->va < ptr + size && ptr < m->va + m->size)
			return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	}
	if (!size || covered != size)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	for (struct mapping **pp = &mappings; *pp;) {
		struct mapping *m = *pp;

		if (m->va >= ptr && m->va + m->size <= ptr + size) {
			*pp = m->next;
			free(m);
		} else {
			pp = &m->next;
		}
	}
	/* The addresses stay reserved. */
	mmap((void *)(uintptr_t)ptr, size, PROT_NONE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)
{
	struct coloc_buf line;
	uint64_t end = ptr + size;

	fake_begin(&line, __func__);
	coloc_buf_puts(&line, " va=");
	fake_put_dptr(&line, ptr);
	coloc_buf_printf(&line, " size=%zu", size);
	if (!desc || count != 1 || desc->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
	    desc->location.id < 0 || desc->location.id >= fake.ndevices ||
	    desc->flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE || !size)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	for (uint64_t a = ptr; a < end;) {
		struct mapping *m = mapping_of(a);

		if (!m)
			return fake_end(&line, CUDA_ERROR_INVALID_VALUE); /* not all mapped */
		a = m->va + m->size;
	}
	if (mprotect((void *)(uintptr_t)ptr, size, PROT_READ | PROT_WRITE) < 0)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	for (uint64_t a = ptr; a < end;) {
		struct mapping *m = mapping_of(a);

		m->access = true;
		a = m->va + m->size;
	}
	return fake_end(&line, CUDA_SUCCESS);
}

/* What the driver answers for an address: the allocation, or the mapping, holding it. */
static bool range_of(uint64_t ptr, uint64_t *base, uint64_t *size)
{
	size_t off;
	struct fake_alloc *a = fake_alloc_find(ptr, &off);
	struct mapping *m;

	if (a) {
		*base = (uintptr_t)a->base;
		*size = a->size;
		return true;
	}
	if ((m = mapping_of(ptr))) {
		*base = m->va;
		*size = m->size;
		return true;
	}
	return false;
}

CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr ptr)
{
	struct coloc_buf line;
	uint64_t base, size;

	fake_begin(&line, __func__);
	coloc_buf_puts(&line, " ptr=");
	fake_put_dptr(&line, ptr);
	if (!range_of(ptr, &base, &size))
		return fake_end(&line, CUDA_ERROR_NOT_FOUND);
	if (pbase)
		*pbase = base;
	if (psize)
		*psize = (size_t)size;
	coloc_buf_puts(&line, " base=");
	fake_put_dptr(&line, base);
	coloc_buf_printf(&line, " size=%llu", (unsigned long long)size);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attr, CUdeviceptr ptr)
{
	struct coloc_buf line;
	uint64_t base, size;

	fake_begin(&line, __func__);
	coloc_buf_printf(&line, " attr=%d ptr=", attr);
	fake_put_dptr(&line, ptr);
	if (!data || !range_of(ptr, &base, &size))
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if (attr == CU_POINTER_ATTRIBUTE_RANGE_START_ADDR)
		*(CUdeviceptr *)data = base;
	else if (attr == CU_POINTER_ATTRIBUTE_RANGE_SIZE)
		*(size_t *)data = (size_t)size;
	else
		return fake_end(&line, CUDA_ERROR_NOT_SUPPORTED);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuIpcGetMemHandle(CUipcMemHandle *handle, CUdeviceptr ptr)
{
	struct coloc_buf line;
	size_t off;
	struct fake_alloc *a;

	fake_begin(&line, __func__);
	coloc_buf_puts(&line, " ptr=");
	fake_put_dptr(&line, ptr);
	a = fake_alloc_find(ptr, &off);
	if (!handle || !a || off)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	memset(handle, 0, sizeof(*handle));
	memcpy(handle->reserved, &a->id, sizeof(a->id));
	return fake_end(&line, CUDA_SUCCESS);
}
