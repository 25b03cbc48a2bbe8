/*
 * Capture: every way the application gives the driver device code, and the
 * handles it gets back.
 *
 * Only a best-effort tenant captures (a latency tenant runs its kernels as
 * they are).  A module's PTX is chosen and copied when it is loaded, for
 * the device of the current context, as the driver would choose it:
 *
 *   cuModuleLoad / cuLibraryLoadFromFile    a file: PTX, cubin or fatbin
 *   cuModuleLoadData[Ex] / cuModuleLoadFatBinary / cuLibraryLoadData
 *                                           PTX text, a cubin, a fatbin, or
 *                                           the CUDA runtime's fatbin wrapper
 *   cuLinkAddData / cuLinkAddFile           PTX given to the linker; the
 *                                           cubin cuLinkComplete returns is
 *                                           then known to come from it
 *
 * Kernels are named by CUfunction (cuModuleGetFunction, cuKernelGetFunction)
 * and by CUkernel (cuLibraryGetKernel), which the driver also accepts at
 * launch.  Each handle maps to its module and kernel name; attributes set
 * on a handle are kept for the variants.  Every hook calls the driver first
 * and records only what succeeded: capture can never change an answer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "capture.h"
#include "diag.h"
#include "fatbin.h"
#include "sha256.h"

/* ---- the handle table */

struct handle {
	struct handle *next;
	const void *key;
	enum coloc_handle_kind kind;
	struct coloc_module *module;
	char *name; /* kernels and functions */
};

#define HANDLE_BUCKETS 4096

static struct {
	pthread_rwlock_t lock; /* guards buckets and every struct handle */
	struct handle *buckets[HANDLE_BUCKETS];
	unsigned long modules; /* made so far (atomic): each module's serial */
} handles = { .lock = PTHREAD_RWLOCK_INITIALIZER };

static size_t bucket_of(const void *key)
{
	uintptr_t k = (uintptr_t)key;

	k ^= k >> 17;
	k *= 0x9E3779B97F4A7C15ull;
	return (size_t)(k >> 40) % HANDLE_BUCKETS;
}

static void module_get(struct coloc_module *m)
{
	__atomic_fetch_add(&m->refs, 1, __ATOMIC_RELAXED);
}

static void kernel_info_free(struct coloc_kernel_info *k)
{
	struct coloc_kernel_fns *f, *next;

	free(k->name);
	free(k->param_size);
	free(k->param_align);
	for (int i = 0; i < VARIANT_FORMS; i++) {
		free(k->variant[i]);
		free(k->refused[i]);
	}
	for (f = k->fns; f; f = next) {
		next = f->next;
		free(f);
	}
}

void coloc_module_put(struct coloc_module *m)
{
	struct coloc_variant_module *v, *next;

	if (!m || __atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	for (v = m->loaded; v; v = next) {
		next = v->next;
		if (v->module && REAL(cuModuleUnload))
			REAL(cuModuleUnload)(v->module);
		for (size_t i = 0; i < v->ncapped; i++)
			free(v->capped[i]);
		free(v->capped);
		free(v);
	}
	for (size_t i = 0; i < m->nkernels; i++)
		kernel_info_free(&m->kernels[i]);
	free(m->kernels);
	for (size_t i = 0; i < m->launched_cap; i++)
		free(m->launched[i]);
	free(m->launched);
	coloc_buf_release(&m->variant_ptx);
	coloc_buf_release(&m->manifest);
	free(m->origin);
	free(m->ptx);
	free(m->options);
	free(m->no_ptx);
	free(m->failed);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

/* Records `key`; the table takes a reference on `m`. */
static void handle_put(const void *key, enum coloc_handle_kind kind, struct coloc_module *m,
		       const char *name)
{
	struct handle *h = calloc(1, sizeof(*h)), **p, *old = NULL;
	size_t b = bucket_of(key);

	if (!h || (name && !(h->name = strdup(name)))) {
		free(h);
		coloc_log(COLOC_LOG_ERROR, "out of memory recording a handle: it runs original");
		return;
	}
	h->key = key;
	h->kind = kind;
	h->module = m;
	module_get(m);
	pthread_rwlock_wrlock(&handles.lock);
	for (p = &handles.buckets[b]; *p; p = &(*p)->next)
		if ((*p)->key == key) {
			/* The driver reused a handle colocc still knew: the old one is gone. */
			old = *p;
			*p = old->next;
			break;
		}
	h->next = handles.buckets[b];
	handles.buckets[b] = h;
	pthread_rwlock_unlock(&handles.lock);
	if (old) {
		coloc_module_put(old->module);
		free(old->name);
		free(old);
	}
}

/* Forgets `key` and, for a module or library, every handle into it. */
static void handle_drop(const void *key)
{
	struct handle *gone = NULL, **p, *h;
	struct coloc_module *m = NULL;

	pthread_rwlock_wrlock(&handles.lock);
	for (p = &handles.buckets[bucket_of(key)]; *p; p = &(*p)->next)
		if ((*p)->key == key) {
			h = *p;
			*p = h->next;
			h->next = gone;
			gone = h;
			if (h->kind == HANDLE_MODULE || h->kind == HANDLE_LIBRARY)
				m = h->module;
			break;
		}
	if (m) {
		for (size_t b = 0; b < HANDLE_BUCKETS; b++)
			for (p = &handles.buckets[b]; *p;) {
				h = *p;
				if (h->module != m) {
					p = &h->next;
					continue;
				}
				*p = h->next;
				h->next = gone;
				gone = h;
			}
	}
	pthread_rwlock_unlock(&handles.lock);
	while (gone) {
		h = gone;
		gone = h->next;
		coloc_module_put(h->module);
		free(h->name);
		free(h);
	}
}

/* The module a handle names, with a reference, and its kind. */
static struct coloc_module *handle_module(const void *key, enum coloc_handle_kind *kind,
					  char **name)
{
	struct coloc_module *m = NULL;
	struct handle *h;

	pthread_rwlock_rdlock(&handles.lock);
	for (h = handles.buckets[bucket_of(key)]; h; h = h->next)
		if (h->key == key) {
			m = h->module;
			module_get(m);
			if (kind)
				*kind = h->kind;
			if (name)
				*name = h->name ? strdup(h->name) : NULL;
			break;
		}
	pthread_rwlock_unlock(&handles.lock);
	return m;
}

struct coloc_module *coloc_capture_kernel(const void *handle, char **name)
{
	enum coloc_handle_kind kind;
	struct coloc_module *m = handle_module(handle, &kind, name);

	if (m && kind != HANDLE_FUNCTION && kind != HANDLE_KERNEL) {
		coloc_module_put(m);
		free(*name);
		*name = NULL;
		return NULL;
	}
	if (m && !*name) {
		coloc_module_put(m);
		return NULL;
	}
	return m;
}

struct coloc_kernel_info *coloc_module_kernel(struct coloc_module *m, const char *name)
{
	for (size_t i = 0; i < m->nkernels; i++)
		if (strcmp(m->kernels[i].name, name) == 0)
			return &m->kernels[i];
	return NULL;
}

static size_t name_hash(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 0x100000001b3ull;
	return (size_t)h;
}

/* Puts `name` (owned) in a table of `cap` slots, a power of two with room. */
static void launched_put(char **table, size_t cap, char *name)
{
	size_t i = name_hash(name) & (cap - 1);

	while (table[i])
		i = (i + 1) & (cap - 1);
	table[i] = name;
}

bool coloc_module_first_launch(struct coloc_module *m, const char *name)
{
	bool first = false;
	size_t i;
	char *copy;

	pthread_mutex_lock(&m->lock);
	if (m->launched_cap) {
		for (i = name_hash(name) & (m->launched_cap - 1); m->launched[i];
		     i = (i + 1) & (m->launched_cap - 1))
			if (strcmp(m->launched[i], name) == 0)
				goto out;
	}
	/* At most half full. */
	if (2 * (m->launched_n + 1) > m->launched_cap) {
		size_t cap = m->launched_cap ? 2 * m->launched_cap : 16;
		char **table = calloc(cap, sizeof(*table));

		if (!table)
			goto out;
		for (i = 0; i < m->launched_cap; i++)
			if (m->launched[i])
				launched_put(table, cap, m->launched[i]);
		free(m->launched);
		m->launched = table;
		m->launched_cap = cap;
	}
	if (!(copy = strdup(name)))
		goto out;
	launched_put(m->launched, m->launched_cap, copy);
	m->launched_n++;
	first = true;
out:
	pthread_mutex_unlock(&m->lock);
	return first;
}

/* ---- the device */

/* The architecture of device `dev` (90 for 9.0), or 0. */
static unsigned sm_of(CUdevice dev)
{
	int major = 0, minor = 0;

	if (REAL(cuDeviceGetAttribute)(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) ||
	    REAL(cuDeviceGetAttribute)(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
		return 0;
	return (unsigned)(major * 10 + minor);
}

/*
 * The architecture of the current context's device; with no context
 * current, the oldest of the machine's devices, whose PTX every device can
 * compile.  Libraries (cuLibraryLoad*) need no context, and the CUDA
 * runtime loads its fatbins as libraries before it makes one when modules
 * load eagerly (CUDA_MODULE_LOADING=EAGER): on the H100 every kernel of the
 * GPT trainer then ran original, "PTX for newer architectures than the
 * device (sm_0)" (benchmarks/results/2026-11-26-h100/park/, call 5).
 * 0 when no device answers.
 */
static unsigned device_sm(void)
{
	CUcontext ctx = NULL;
	CUdevice dev;
	unsigned sm = 0;
	int n = 0;

	if (!REAL(cuCtxGetCurrent))
		return 0;
	if (REAL(cuCtxGetCurrent)(&ctx) == CUDA_SUCCESS && ctx)
		return REAL(cuCtxGetDevice)(&dev) == CUDA_SUCCESS ? sm_of(dev) : 0;
	if (REAL(cuDeviceGetCount)(&n) != CUDA_SUCCESS)
		return 0;
	for (int i = 0; i < n; i++) {
		unsigned one = REAL(cuDeviceGet)(&dev, i) == CUDA_SUCCESS ? sm_of(dev) : 0;

		if (one && (!sm || one < sm))
			sm = one;
	}
	return sm;
}

/* ---- finding the PTX */

static void log_diag(void *ctx, enum coloc_diag_level level, const char *line)
{
	(void)ctx;
	coloc_log(level == COLOC_DIAG_ERROR ? COLOC_LOG_WARN : COLOC_LOG_DEBUG, "%s", line);
}

static void set_no_ptx(struct coloc_module *m, const char *fmt, const char *arg)
{
	char buf[512];

	snprintf(buf, sizeof(buf), fmt, arg);
	free(m->no_ptx);
	m->no_ptx = strdup(buf);
}

static int copy_ptx(struct coloc_module *m, const void *ptx, size_t len, const char *options,
		    size_t options_len)
{
	m->ptx = malloc(len + 2);
	if (!m->ptx)
		return -ENOMEM;
	memcpy(m->ptx, ptx, len);
	m->ptx[len] = m->ptx[len + 1] = '\0';
	m->ptx_len = len;
	if (options && options_len) {
		m->options = malloc(options_len + 1);
		if (!m->options)
			return -ENOMEM;
		memcpy(m->options, options, options_len);
		m->options[options_len] = '\0';
		m->options_len = options_len;
	}
	return 0;
}

/* Picks the PTX the device compiles among the fatbin's entries. */
static void ptx_from_fatbin(struct coloc_module *m, struct coloc_fatbin *fb,
			    struct coloc_diag *diag)
{
	const struct coloc_fatbin_entry *e = NULL;
	const unsigned char *data;
	struct coloc_buf scratch;
	size_t len;
	bool any_ptx = false;

	/* One container per translation unit: the first with usable PTX wins. */
	for (size_t i = 0, start = 0; i <= fb->nentries && !e; i++) {
		if (i < fb->nentries && fb->entries[i].container == fb->entries[start].container) {
			any_ptx |= fb->entries[i].kind == COLOC_FATBIN_PTX;
			continue;
		}
		e = coloc_fatbin_pick_ptx(&fb->entries[start], i - start, m->sm,
					  m->sm >= 90 ? 'a' : 0);
		start = i;
	}
	if (!e) {
		char sm[16];

		snprintf(sm, sizeof(sm), "sm_%u", m->sm);
		set_no_ptx(m, any_ptx ? "its PTX is for newer architectures than the device (%s)" :
					"no PTX, only compiled code (SASS) for %s",
			   sm);
		return;
	}
	coloc_buf_init(&scratch);
	if (coloc_fatbin_entry_contents(fb, e, &scratch, &data, &len, diag) == 0) {
		if (copy_ptx(m, data, len, e->options, e->options_len) < 0)
			set_no_ptx(m, "out of memory copying its PTX%s", "");
	} else {
		set_no_ptx(m, "its PTX entry could not be read%s", "");
	}
	coloc_buf_release(&scratch);
}

static bool looks_like_ptx(const char *s)
{
	/* PTX text names its version; a binary image would not start with text. */
	return strstr(s, ".version") != NULL && strstr(s, ".target") != NULL;
}

/* Finds the PTX of an image the application hands the driver. */
static void ptx_from_image(struct coloc_module *m, const void *image, size_t size_if_known)
{
	const unsigned char *p = image;
	struct coloc_fatbin fb;
	struct coloc_diag diag;
	uint32_t magic;

	coloc_diag_init(&diag, m->origin, NULL);
	diag.emit = log_diag;
	coloc_fatbin_init(&fb);
	memcpy(&magic, p, 4);
	if (magic == COLOC_FATBIN_WRAPPER_MAGIC) {
		if (coloc_fatbin_read_wrapper(&fb, image, SIZE_MAX, &diag) == 0)
			ptx_from_fatbin(m, &fb, &diag);
		else
			set_no_ptx(m, "its fatbin could not be read%s", "");
	} else if (magic == COLOC_FATBIN_MAGIC) {
		uint16_t header;
		uint64_t body;

		memcpy(&header, p + 6, 2);
		memcpy(&body, p + 8, 8);
		if (size_if_known == 0)
			size_if_known = header + body;
		if (coloc_fatbin_read(&fb, image, size_if_known, NULL, &diag) == 0)
			ptx_from_fatbin(m, &fb, &diag);
		else
			set_no_ptx(m, "its fatbin could not be read%s", "");
	} else if (memcmp(p, "\177ELF", 4) == 0) {
		set_no_ptx(m, "it was loaded as a cubin (compiled code, no PTX)%s", "");
	} else if (looks_like_ptx(image)) {
		if (copy_ptx(m, image, size_if_known ? strnlen(image, size_if_known) : strlen(image),
			     NULL, 0) < 0)
			set_no_ptx(m, "out of memory copying its PTX%s", "");
	} else {
		set_no_ptx(m, "its image is neither PTX, a cubin nor a fatbin%s", "");
	}
	coloc_fatbin_release(&fb);
}

static struct coloc_module *module_new(const char *origin)
{
	struct coloc_module *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	pthread_mutex_init(&m->lock, NULL);
	coloc_buf_init(&m->variant_ptx);
	coloc_buf_init(&m->manifest);
	m->origin = strdup(origin);
	m->serial = __atomic_add_fetch(&handles.modules, 1, __ATOMIC_RELAXED);
	m->sm = device_sm();
	m->restart = coloc_cfg.restart;
	m->read_copy = coloc_cfg.stop_read_copy;
	m->resume = coloc_cfg.resume;
	return m;
}

static void module_done(struct coloc_module *m, const void *key, enum coloc_handle_kind kind)
{
	coloc_stat_add(STAT_MODULES, 1);
	if (m->ptx) {
		coloc_stat_add(STAT_MODULES_PTX, 1);
		coloc_log(COLOC_LOG_DEBUG, "%s: %zu bytes of PTX for sm_%u", m->origin, m->ptx_len,
			  m->sm);
	} else {
		coloc_log(COLOC_LOG_INFO, "%s: its kernels run original: %s", m->origin,
			  m->no_ptx ? m->no_ptx : "no PTX");
	}
	m->refs = 0;
	handle_put(key, kind, m, NULL);
}

static bool capturing(void)
{
	return coloc_cfg.role == COLOC_ROLE_BEST_EFFORT;
}

/* ---- links: PTX given to a linker, known again by the cubin it makes */

/*
 * Two linkers: the driver's (cuLink*, whose cubin stays in the link state
 * until cuLinkDestroy, so its address names it) and nvJitLink (nvjitlink.c,
 * whose cubin the application copies out and may load from any buffer, even
 * after the link is gone: it is known by its contents).  A link's record
 * lives from its creation to its destruction; a record known by contents
 * outlives it, the newest LINK_KEPT of them, so that the load still finds it.
 */
struct link {
	struct link *next;
	const void *key;      /* the CUlinkState or nvJitLinkHandle; NULL once destroyed */
	unsigned ptx_inputs, other_inputs;
	struct coloc_buf ptx; /* the one PTX input */
	const void *cubin;    /* what cuLinkComplete returned */
	bool by_contents;     /* the cubin is known by size and digest */
	size_t size;
	unsigned char digest[32];
};

#define LINK_KEPT 64

static struct {
	pthread_mutex_t lock; /* guards the list and every struct link */
	struct link *list;
	unsigned by_contents; /* records in the list known by contents */
} links = { .lock = PTHREAD_MUTEX_INITIALIZER };

static struct link *link_find(const void *key, bool unlink)
{
	struct link **p, *l = NULL;

	for (p = &links.list; *p; p = &(*p)->next)
		if ((*p)->key == key) {
			l = *p;
			if (unlink)
				*p = l->next;
			break;
		}
	return l;
}

static void link_free(struct link *l)
{
	if (l) {
		coloc_buf_release(&l->ptx);
		free(l);
	}
}

/*
 * Bytes an ELF image in memory spans, from its own headers (the driver
 * trusts the caller's memory the same way); 0 when it is not a 64-bit
 * little-endian ELF image.
 */
static size_t elf_extent(const unsigned char *p)
{
	uint64_t shoff, phoff, end = 64;
	uint16_t shentsize, shnum, phentsize, phnum;

	if (memcmp(p, "\177ELF", 4) != 0 || p[4] != 2 || p[5] != 1)
		return 0;
	memcpy(&phoff, p + 0x20, 8);
	memcpy(&shoff, p + 0x28, 8);
	memcpy(&phentsize, p + 0x36, 2);
	memcpy(&phnum, p + 0x38, 2);
	memcpy(&shentsize, p + 0x3a, 2);
	memcpy(&shnum, p + 0x3c, 2);
	if (shentsize < 64 || (phnum && phentsize < 56) || shoff > (1u << 30) || phoff > (1u << 30))
		return 0;
	if (shoff + (uint64_t)shnum * shentsize > end)
		end = shoff + (uint64_t)shnum * shentsize;
	if (phoff + (uint64_t)phnum * phentsize > end)
		end = phoff + (uint64_t)phnum * phentsize;
	for (unsigned i = 0; i < shnum; i++) {
		const unsigned char *h = p + shoff + (uint64_t)i * shentsize;
		uint64_t off, size;
		uint32_t type;

		memcpy(&type, h + 4, 4);
		memcpy(&off, h + 24, 8);
		memcpy(&size, h + 32, 8);
		if (type != 8 /* SHT_NOBITS */ && off + size > end)
			end = off + size;
	}
	for (unsigned i = 0; i < phnum; i++) {
		const unsigned char *h = p + phoff + (uint64_t)i * phentsize;
		uint64_t off, size;

		memcpy(&off, h + 8, 8);
		memcpy(&size, h + 32, 8);
		if (off + size > end)
			end = off + size;
	}
	return end < (1u << 30) ? (size_t)end : 0;
}

static void digest_of(const void *data, size_t len, unsigned char out[32])
{
	struct coloc_sha256 c;

	coloc_sha256_init(&c);
	coloc_sha256_update(&c, data, len);
	coloc_sha256_final(&c, out);
}

void coloc_link_begin(const void *key)
{
	struct link *l;

	if (!key || !capturing())
		return;
	l = calloc(1, sizeof(*l));
	if (!l) {
		coloc_log(COLOC_LOG_ERROR, "out of memory recording a link: its kernels run original");
		return;
	}
	l->key = key;
	coloc_buf_init(&l->ptx);
	pthread_mutex_lock(&links.lock);
	l->next = links.list;
	links.list = l;
	pthread_mutex_unlock(&links.lock);
}

void coloc_link_input(const void *key, bool ptx, const void *data, size_t size)
{
	struct link *l;

	if (!key)
		return;
	pthread_mutex_lock(&links.lock);
	l = link_find(key, false);
	if (l && ptx && data) {
		if (++l->ptx_inputs == 1)
			coloc_buf_put(&l->ptx, data, strnlen(data, size));
	} else if (l) {
		l->other_inputs++;
	}
	pthread_mutex_unlock(&links.lock);
}

void coloc_link_ptx(const void *key, const void *ptx, size_t size)
{
	struct link *l;

	if (!key || !ptx)
		return;
	pthread_mutex_lock(&links.lock);
	l = link_find(key, false);
	if (l) {
		coloc_buf_release(&l->ptx);
		coloc_buf_init(&l->ptx);
		coloc_buf_put(&l->ptx, ptx, strnlen(ptx, size));
		l->ptx_inputs = 1;
		l->other_inputs = 0;
	}
	pthread_mutex_unlock(&links.lock);
}

void coloc_link_output(const void *key, const void *cubin, size_t size, bool by_contents)
{
	unsigned char digest[32];
	size_t extent = 0;
	struct link *l;

	if (!key)
		return;
	if (by_contents) {
		/* Digested as a load will see it: the bytes its ELF headers span. */
		extent = size >= 64 ? elf_extent(cubin) : 0;
		if (extent == 0 || extent > size) {
			coloc_log(COLOC_LOG_INFO, "a linked image of %zu bytes is not an ELF cubin "
				  "colocc can measure: its kernels run original", size);
			return;
		}
		digest_of(cubin, extent, digest);
	}
	pthread_mutex_lock(&links.lock);
	l = link_find(key, false);
	if (l && by_contents) {
		links.by_contents += !l->by_contents;
		l->by_contents = true;
		l->size = extent;
		memcpy(l->digest, digest, sizeof(digest));
	} else if (l) {
		l->cubin = cubin;
	}
	pthread_mutex_unlock(&links.lock);
}

void coloc_link_end(const void *key)
{
	struct link *l, **p, *gone = NULL;
	unsigned kept = 0;

	if (!key)
		return;
	pthread_mutex_lock(&links.lock);
	l = link_find(key, true);
	if (l && l->by_contents) {
		/* Its cubin may still be loaded: kept, newest first, LINK_KEPT at most. */
		l->key = NULL;
		l->next = links.list;
		links.list = l;
		l = NULL;
		for (p = &links.list; *p; p = &(*p)->next)
			if (!(*p)->key && (*p)->by_contents && ++kept > LINK_KEPT) {
				gone = *p;
				*p = gone->next;
				links.by_contents--;
				break;
			}
	}
	pthread_mutex_unlock(&links.lock);
	link_free(l);
	link_free(gone);
}

/* The module a loaded image comes from when a link made it. */
static bool ptx_from_link(struct coloc_module *m, const void *image)
{
	unsigned char digest[32] = { 0 };
	size_t extent = 0;
	struct link *l;
	bool found = false;

	if (__atomic_load_n(&links.by_contents, __ATOMIC_RELAXED) &&
	    (extent = elf_extent(image)) != 0)
		digest_of(image, extent, digest);
	pthread_mutex_lock(&links.lock);
	for (l = links.list; l; l = l->next)
		if (l->by_contents ? extent && l->size == extent &&
					     memcmp(l->digest, digest, sizeof(digest)) == 0 :
				     l->cubin == image)
			break;
	if (l) {
		found = true;
		if (l->ptx_inputs == 1 && l->other_inputs == 0 && !l->ptx.failed)
			copy_ptx(m, l->ptx.data, l->ptx.len, NULL, 0);
		else if (l->ptx_inputs == 0)
			set_no_ptx(m, "it was linked from compiled code only%s", "");
		else
			set_no_ptx(m, "it was linked from several inputs%s; colocc transforms "
				   "modules linked from one PTX input", "");
	}
	pthread_mutex_unlock(&links.lock);
	return found;
}

/* ---- the hooks */

static void capture_data(const void *key, enum coloc_handle_kind kind, const char *how,
			 const void *image)
{
	char origin[128];
	struct coloc_module *m;

	snprintf(origin, sizeof(origin), "%s %p", how, key);
	m = module_new(origin);
	if (!m) {
		coloc_log(COLOC_LOG_ERROR, "out of memory capturing a module: it runs original");
		return;
	}
	if (!ptx_from_link(m, image))
		ptx_from_image(m, image, 0);
	module_done(m, key, kind);
}

static void capture_file(const void *key, enum coloc_handle_kind kind, const char *path)
{
	struct coloc_module *m = module_new(path);
	struct coloc_buf file;

	if (!m) {
		coloc_log(COLOC_LOG_ERROR, "out of memory capturing a module: it runs original");
		return;
	}
	coloc_buf_init(&file);
	if (coloc_buf_read_file(&file, path) < 0 || file.len < 4)
		set_no_ptx(m, "colocc could not read '%s'", path);
	else if (coloc_buf_cstr(&file))
		ptx_from_image(m, file.data, file.len);
	coloc_buf_release(&file);
	module_done(m, key, kind);
}

CUresult hook_cuModuleLoad(cuModuleLoad_fn real, CUmodule *module, const char *path)
{
	CUresult rc = real(module, path);

	if (rc == CUDA_SUCCESS && capturing())
		capture_file(*module, HANDLE_MODULE, path);
	return rc;
}

CUresult hook_cuModuleLoadData(cuModuleLoadData_fn real, CUmodule *module, const void *image)
{
	CUresult rc = real(module, image);

	if (rc == CUDA_SUCCESS && capturing())
		capture_data(*module, HANDLE_MODULE, "cuModuleLoadData", image);
	return rc;
}

CUresult hook_cuModuleLoadDataEx(cuModuleLoadDataEx_fn real, CUmodule *module, const void *image,
				 unsigned nopts, CUjit_option *opts, void **vals)
{
	CUresult rc = real(module, image, nopts, opts, vals);

	if (rc == CUDA_SUCCESS && capturing())
		capture_data(*module, HANDLE_MODULE, "cuModuleLoadDataEx", image);
	return rc;
}

CUresult hook_cuModuleLoadFatBinary(cuModuleLoadFatBinary_fn real, CUmodule *module,
				    const void *fatbin)
{
	CUresult rc = real(module, fatbin);

	if (rc == CUDA_SUCCESS && capturing())
		capture_data(*module, HANDLE_MODULE, "cuModuleLoadFatBinary", fatbin);
	return rc;
}

CUresult hook_cuModuleUnload(cuModuleUnload_fn real, CUmodule module)
{
	CUresult rc = real(module);

	if (rc == CUDA_SUCCESS)
		handle_drop(module);
	return rc;
}

CUresult hook_cuModuleGetFunction(cuModuleGetFunction_fn real, CUfunction *fn, CUmodule module,
				  const char *name)
{
	CUresult rc = real(fn, module, name);
	struct coloc_module *m;

	if (rc != CUDA_SUCCESS || !capturing())
		return rc;
	m = handle_module(module, NULL, NULL);
	if (m) {
		handle_put(*fn, HANDLE_FUNCTION, m, name);
		coloc_module_put(m);
	}
	return rc;
}

CUresult hook_cuLibraryLoadData(cuLibraryLoadData_fn real, CUlibrary *lib, const void *code,
				CUjit_option *jopts, void **jvals, unsigned njopts,
				CUlibraryOption *lopts, void **lvals, unsigned nlopts)
{
	CUresult rc = real(lib, code, jopts, jvals, njopts, lopts, lvals, nlopts);

	if (rc == CUDA_SUCCESS && capturing())
		capture_data(*lib, HANDLE_LIBRARY, "cuLibraryLoadData", code);
	return rc;
}

CUresult hook_cuLibraryLoadFromFile(cuLibraryLoadFromFile_fn real, CUlibrary *lib,
				    const char *path, CUjit_option *jopts, void **jvals,
				    unsigned njopts, CUlibraryOption *lopts, void **lvals,
				    unsigned nlopts)
{
	CUresult rc = real(lib, path, jopts, jvals, njopts, lopts, lvals, nlopts);

	if (rc == CUDA_SUCCESS && capturing())
		capture_file(*lib, HANDLE_LIBRARY, path);
	return rc;
}

CUresult hook_cuLibraryUnload(cuLibraryUnload_fn real, CUlibrary lib)
{
	CUresult rc = real(lib);

	if (rc == CUDA_SUCCESS)
		handle_drop(lib);
	return rc;
}

CUresult hook_cuLibraryGetKernel(cuLibraryGetKernel_fn real, CUkernel *kernel, CUlibrary lib,
				 const char *name)
{
	CUresult rc = real(kernel, lib, name);
	struct coloc_module *m;

	if (rc != CUDA_SUCCESS || !capturing())
		return rc;
	m = handle_module(lib, NULL, NULL);
	if (m) {
		handle_put(*kernel, HANDLE_KERNEL, m, name);
		coloc_module_put(m);
	}
	return rc;
}

CUresult hook_cuLibraryGetModule(cuLibraryGetModule_fn real, CUmodule *module, CUlibrary lib)
{
	CUresult rc = real(module, lib);
	struct coloc_module *m;

	if (rc != CUDA_SUCCESS || !capturing())
		return rc;
	m = handle_module(lib, NULL, NULL);
	if (m) {
		/* The library's module in this context: functions from it are the library's. */
		handle_put(*module, HANDLE_LIBRARY, m, NULL);
		coloc_module_put(m);
	}
	return rc;
}

CUresult hook_cuKernelGetFunction(cuKernelGetFunction_fn real, CUfunction *fn, CUkernel kernel)
{
	CUresult rc = real(fn, kernel);
	struct coloc_module *m;
	char *name = NULL;

	if (rc != CUDA_SUCCESS || !capturing())
		return rc;
	m = coloc_capture_kernel(kernel, &name);
	if (m) {
		handle_put(*fn, HANDLE_FUNCTION, m, name);
		coloc_module_put(m);
		free(name);
	}
	return rc;
}

CUresult hook_cuLinkCreate_v2(cuLinkCreate_v2_fn real, unsigned nopts, CUjit_option *opts,
			      void **vals, CUlinkState *state)
{
	CUresult rc = real(nopts, opts, vals, state);

	if (rc == CUDA_SUCCESS)
		coloc_link_begin(*state);
	return rc;
}

CUresult hook_cuLinkAddData_v2(cuLinkAddData_v2_fn real, CUlinkState state, CUjitInputType type,
			       void *data, size_t size, const char *name, unsigned nopts,
			       CUjit_option *opts, void **vals)
{
	CUresult rc = real(state, type, data, size, name, nopts, opts, vals);

	if (rc == CUDA_SUCCESS && capturing()) {
		coloc_log(COLOC_LOG_DEBUG, "cuLinkAddData %p: input of type %d, %zu bytes (%s)",
			  (void *)state, (int)type, size, name ? name : "no name");
		coloc_link_input(state, type == CU_JIT_INPUT_PTX, data, size);
	}
	return rc;
}

CUresult hook_cuLinkAddFile_v2(cuLinkAddFile_v2_fn real, CUlinkState state, CUjitInputType type,
			       const char *path, unsigned nopts, CUjit_option *opts, void **vals)
{
	CUresult rc = real(state, type, path, nopts, opts, vals);

	if (rc == CUDA_SUCCESS && capturing())
		coloc_link_input_file(state, type == CU_JIT_INPUT_PTX, path);
	return rc;
}

void coloc_link_input_file(const void *key, bool ptx, const char *path)
{
	struct coloc_buf file;

	coloc_buf_init(&file);
	if (ptx && coloc_buf_read_file(&file, path) == 0)
		coloc_link_input(key, true, file.data, file.len);
	else
		coloc_link_input(key, false, NULL, 0);
	coloc_buf_release(&file);
}

CUresult hook_cuLinkComplete(cuLinkComplete_fn real, CUlinkState state, void **cubin,
			     size_t *size)
{
	CUresult rc = real(state, cubin, size);

	if (rc == CUDA_SUCCESS && capturing())
		coloc_link_output(state, *cubin, *size, false);
	return rc;
}

CUresult hook_cuLinkDestroy(cuLinkDestroy_fn real, CUlinkState state)
{
	CUresult rc = real(state);

	coloc_link_end(state);
	return rc;
}

/* ---- attributes, replayed on the variants */

static void remember_attr(const void *handle, int attr, int value, bool cache_config)
{
	struct coloc_module *m;
	struct coloc_kernel_info *k;
	char *name = NULL;

	m = coloc_capture_kernel(handle, &name);
	if (!m)
		return;
	/* Make sure the kernel table exists so the setting has a home. */
	if (coloc_variants_for(m, name, &k) || k) {
		pthread_mutex_lock(&m->lock);
		if (k && cache_config) {
			k->cache_config = value;
			k->cache_config_set = true;
			k->attrs_generation++;
		} else if (k && attr >= 0 && attr < CU_FUNC_ATTRIBUTE_MAX) {
			k->attr[attr] = value;
			k->attr_set |= 1u << attr;
			k->attrs_generation++;
		}
		pthread_mutex_unlock(&m->lock);
	}
	coloc_module_put(m);
	free(name);
}

CUresult hook_cuFuncSetAttribute(cuFuncSetAttribute_fn real, CUfunction fn,
				 CUfunction_attribute attr, int value)
{
	CUresult rc = real(fn, attr, value);

	if (rc == CUDA_SUCCESS && capturing())
		remember_attr(fn, attr, value, false);
	return rc;
}

CUresult hook_cuFuncSetCacheConfig(cuFuncSetCacheConfig_fn real, CUfunction fn,
				   CUfunc_cache config)
{
	CUresult rc = real(fn, config);

	if (rc == CUDA_SUCCESS && capturing())
		remember_attr(fn, -1, config, true);
	return rc;
}

CUresult hook_cuKernelSetAttribute(cuKernelSetAttribute_fn real, CUfunction_attribute attr,
				   int value, CUkernel kernel, CUdevice dev)
{
	CUresult rc = real(attr, value, kernel, dev);

	if (rc == CUDA_SUCCESS && capturing())
		remember_attr(kernel, attr, value, false);
	return rc;
}
