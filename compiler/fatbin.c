/*
 * Fatbin reader and writer.
 *
 * A fatbin is a 16-byte container header followed by entries, each an
 * entry header (64 bytes or more) and a payload padded to 8 bytes.  nvcc
 * puts one container per translation unit in .nv_fatbin (or __nv_relfatbin
 * for -rdc objects); the linker concatenates them, so a section holds
 * containers back to back.  The layouts were read off nvcc 13.0 output and
 * are spelled out in docs/binaries.md; the offsets below follow it.
 *
 * The reader trusts nothing: every header field is checked against the
 * bytes that remain before it is used, declared sizes must agree with
 * each other, and inflated sizes are capped by max_entry_size and by what
 * the compression format can produce from the stored bytes.
 */
#include "fatbin.h"

#include <errno.h>
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "coloc_elf.h"

/* Container header. */
#define FB_MAGIC 0x00       /* u32 0xBA55ED50 */
#define FB_VERSION 0x04     /* u16, 1 */
#define FB_HEADER_SIZE 0x06 /* u16, 16 */
#define FB_FAT_SIZE 0x08    /* u64, bytes of entries after the header */
#define FB_HEADER_BYTES 16u

/* Entry header. */
#define FE_KIND 0x00            /* u16 */
#define FE_VERSION 0x02         /* u16, 0x0101 */
#define FE_HEADER_SIZE 0x04     /* u32 */
#define FE_PAYLOAD_SIZE 0x08    /* u64, stored bytes including padding */
#define FE_COMPRESSED_SIZE 0x10 /* u32, 0 when stored plain */
#define FE_OPTIONS 0x14         /* u32, offset of a {u32 offset, u32 size} pair, or 0 */
#define FE_FORMAT_VERSION 0x18  /* u32, minor | major << 16 */
#define FE_SM 0x1c              /* u32 */
#define FE_IDENT_OFFSET 0x20    /* u32 */
#define FE_IDENT_SIZE 0x24      /* u32 */
#define FE_FLAGS 0x28           /* u64 */
#define FE_UNCOMPRESSED 0x38    /* u64, 0 when stored plain */
#define FE_HEADER_BYTES 0x40u

#define WRAPPER_MAX_PRELINKED 65536u

void coloc_fatbin_init(struct coloc_fatbin *fb)
{
	memset(fb, 0, sizeof(*fb));
	fb->max_entry_size = (size_t)1 << 30;
}

void coloc_fatbin_release(struct coloc_fatbin *fb)
{
	if (!fb)
		return;
	free(fb->entries);
	fb->entries = NULL;
	fb->nentries = fb->cap = 0;
}

const char *coloc_fatbin_kind_name(unsigned kind)
{
	switch (kind) {
	case COLOC_FATBIN_PTX:
		return "ptx";
	case COLOC_FATBIN_ELF:
		return "elf";
	case COLOC_FATBIN_LTOIR:
		return "ltoir";
	default:
		return "unknown";
	}
}

void coloc_fatbin_arch_name(const struct coloc_fatbin_entry *e, bool virtual_arch, char *buf,
			    size_t size)
{
	if (e->variant)
		snprintf(buf, size, "%s_%u%c", virtual_arch ? "compute" : "sm", e->sm, e->variant);
	else
		snprintf(buf, size, "%s_%u", virtual_arch ? "compute" : "sm", e->sm);
}

static struct coloc_fatbin_entry *entry_new(struct coloc_fatbin *fb, struct coloc_diag *diag)
{
	if (fb->nentries == fb->cap) {
		size_t cap = fb->cap ? fb->cap * 2 : 16;
		struct coloc_fatbin_entry *p;

		if (cap > SIZE_MAX / sizeof(*p) || !(p = realloc(fb->entries, cap * sizeof(*p)))) {
			coloc_error(diag, PTX_NOLOC, "out of memory");
			return NULL;
		}
		fb->entries = p;
		fb->cap = cap;
	}
	memset(&fb->entries[fb->nentries], 0, sizeof(fb->entries[0]));
	return &fb->entries[fb->nentries++];
}

/* "section '.nv_fatbin': " or "" for messages. */
static const char *where(const char *section, char *buf, size_t size)
{
	if (!section)
		return "";
	snprintf(buf, size, "section '%s': ", section);
	return buf;
}

/* Checks one entry header at h (avail bytes left in its container) and records it. */
static int entry_read(struct coloc_fatbin *fb, const unsigned char *h, size_t avail,
		      const char *section, size_t offset, unsigned index, struct coloc_diag *diag)
{
	struct coloc_fatbin_entry *e;
	uint32_t hsize, opt, ident_off, ident_size;
	uint64_t psize, flags;
	char buf[80];
	const char *w = where(section, buf, sizeof(buf));

	if (avail < FE_HEADER_BYTES) {
		coloc_error(diag, PTX_NOLOC, "%sfatbin entry at offset 0x%zx: the entry header needs "
			    "%u bytes, only %zu are left in the container",
			    w, offset, FE_HEADER_BYTES, avail);
		return -EINVAL;
	}
	hsize = coloc_le32(h + FE_HEADER_SIZE);
	psize = coloc_le64(h + FE_PAYLOAD_SIZE);
	if (hsize < FE_HEADER_BYTES || hsize > avail || psize > avail - hsize) {
		coloc_error(diag, PTX_NOLOC, "%sfatbin entry at offset 0x%zx: header of %u bytes and "
			    "payload of %llu bytes do not fit in the %zu bytes left in the container",
			    w, offset, hsize, (unsigned long long)psize, avail);
		return -EINVAL;
	}
	e = entry_new(fb, diag);
	if (!e)
		return -ENOMEM;
	e->kind = coloc_le16(h + FE_KIND);
	e->sm = coloc_le32(h + FE_SM);
	e->format_version = coloc_le32(h + FE_FORMAT_VERSION);
	e->flags = flags = coloc_le64(h + FE_FLAGS);
	e->payload = h + hsize;
	e->payload_size = (size_t)psize;
	e->section = section;
	e->offset = offset;
	e->container = fb->ncontainers;
	e->index = index;
	if (flags & COLOC_FATBIN_FLAG_ARCH_SPECIFIC)
		e->variant = 'a';
	else if (flags & COLOC_FATBIN_FLAG_FAMILY)
		e->variant = 'f';

	opt = coloc_le32(h + FE_OPTIONS);
	if (opt) {
		uint32_t ooff, osize;

		if (opt > hsize - 8 || (ooff = coloc_le32(h + opt)) > hsize ||
		    (osize = coloc_le32(h + opt + 4)) > hsize - ooff) {
			coloc_error(diag, PTX_NOLOC, "%sfatbin entry at offset 0x%zx: the options "
				    "descriptor at header offset %u points outside the %u-byte header",
				    w, offset, opt, hsize);
			return -EINVAL;
		}
		e->options = (const char *)h + ooff;
		e->options_len = osize;
	}
	ident_off = coloc_le32(h + FE_IDENT_OFFSET);
	ident_size = coloc_le32(h + FE_IDENT_SIZE);
	if (ident_size) {
		if (ident_off > hsize || ident_size > hsize - ident_off) {
			coloc_error(diag, PTX_NOLOC, "%sfatbin entry at offset 0x%zx: the source name "
				    "(%u bytes at header offset %u) lies outside the %u-byte header",
				    w, offset, ident_size, ident_off, hsize);
			return -EINVAL;
		}
		e->ident = (const char *)h + ident_off;
		/* nvcc pads the name with NULs to 8 bytes and counts only the characters. */
		e->ident_len = strnlen(e->ident, ident_size);
	}

	if ((flags & COLOC_FATBIN_FLAG_LZ4) && (flags & COLOC_FATBIN_FLAG_ZSTD)) {
		coloc_error(diag, PTX_NOLOC, "%sfatbin entry at offset 0x%zx: flags 0x%llx ask for both "
			    "LZ4 and ZSTD compression", w, offset, (unsigned long long)flags);
		return -EINVAL;
	}
	if (!(flags & (COLOC_FATBIN_FLAG_LZ4 | COLOC_FATBIN_FLAG_ZSTD)))
		return 0;
	e->compression = flags & COLOC_FATBIN_FLAG_LZ4 ? COLOC_FATBIN_LZ4 : COLOC_FATBIN_ZSTD;
	e->compressed_size = coloc_le32(h + FE_COMPRESSED_SIZE);
	if (e->compressed_size == 0 || e->compressed_size > e->payload_size) {
		coloc_error(diag, PTX_NOLOC, "%sfatbin entry at offset 0x%zx: compressed size %zu does "
			    "not fit the %zu-byte payload", w, offset, e->compressed_size,
			    e->payload_size);
		return -EINVAL;
	}
	psize = coloc_le64(h + FE_UNCOMPRESSED);
	if (psize == 0 || psize > fb->max_entry_size) {
		coloc_error(diag, PTX_NOLOC, "%sfatbin entry at offset 0x%zx: uncompressed size %llu is "
			    "outside 1..%zu bytes", w, offset, (unsigned long long)psize,
			    fb->max_entry_size);
		return -EINVAL;
	}
	e->uncompressed_size = (size_t)psize;
	/* An LZ4 block grows at most 255-fold (a match length byte per 255 bytes). */
	if (e->compression == COLOC_FATBIN_LZ4 &&
	    e->uncompressed_size / 255 > e->compressed_size + 16) {
		coloc_error(diag, PTX_NOLOC, "%sfatbin entry at offset 0x%zx: %zu compressed bytes "
			    "cannot inflate to the %zu declared (LZ4 expands at most 255 times)",
			    w, offset, e->compressed_size, e->uncompressed_size);
		return -EINVAL;
	}
	return 0;
}

/* Reads one container at p (avail bytes from there); *used gets its extent. */
static int container_read(struct coloc_fatbin *fb, const unsigned char *p, size_t avail,
			  const char *section, size_t base, size_t *used, struct coloc_diag *diag)
{
	unsigned hsize, version, index = 0;
	uint64_t fat;
	size_t off;
	char buf[80];
	const char *w = where(section, buf, sizeof(buf));
	int rc;

	if (avail < FB_HEADER_BYTES) {
		coloc_error(diag, PTX_NOLOC, "%struncated fatbin at offset 0x%zx: %zu bytes, the "
			    "container header needs %u", w, base, avail, FB_HEADER_BYTES);
		return -EINVAL;
	}
	if (coloc_le32(p + FB_MAGIC) != COLOC_FATBIN_MAGIC) {
		coloc_error(diag, PTX_NOLOC, "%sno fatbin at offset 0x%zx: magic 0x%08x, expected "
			    "0x%08x", w, base, coloc_le32(p + FB_MAGIC), COLOC_FATBIN_MAGIC);
		return -EINVAL;
	}
	version = coloc_le16(p + FB_VERSION);
	hsize = coloc_le16(p + FB_HEADER_SIZE);
	fat = coloc_le64(p + FB_FAT_SIZE);
	if (version != 1) {
		coloc_error(diag, PTX_NOLOC, "%sfatbin at offset 0x%zx has version %u; colocc reads "
			    "version 1", w, base, version);
		return -EINVAL;
	}
	if (hsize < FB_HEADER_BYTES || hsize > avail || fat > avail - hsize) {
		coloc_error(diag, PTX_NOLOC, "%struncated fatbin at offset 0x%zx: header of %u bytes "
			    "and %llu bytes of entries, only %zu bytes available",
			    w, base, hsize, (unsigned long long)fat, avail);
		return -EINVAL;
	}
	*used = hsize + (size_t)fat;
	for (off = hsize; off < *used;) {
		const unsigned char *h = p + off;

		rc = entry_read(fb, h, *used - off, section, base + off, index++, diag);
		if (rc < 0)
			return rc;
		/* entry_read checked that header and payload fit in what is left. */
		off += coloc_le32(h + FE_HEADER_SIZE) + (size_t)coloc_le64(h + FE_PAYLOAD_SIZE);
	}
	fb->ncontainers++;
	return 0;
}

static int containers_read(struct coloc_fatbin *fb, const unsigned char *p, size_t size,
			   const char *section, size_t base, struct coloc_diag *diag)
{
	size_t off = 0, used;
	int rc;

	while (off < size) {
		/* Alignment padding between containers is zero. */
		if (p[off] == 0) {
			off++;
			continue;
		}
		rc = container_read(fb, p + off, size - off, section, base + off, &used, diag);
		if (rc < 0)
			return rc;
		off += used;
	}
	return 0;
}

int coloc_fatbin_read(struct coloc_fatbin *fb, const void *data, size_t size,
		      const char *section, struct coloc_diag *diag)
{
	const unsigned char *p = data;

	if (size < FB_HEADER_BYTES || coloc_le32(p) != COLOC_FATBIN_MAGIC) {
		coloc_error(diag, PTX_NOLOC, "not a fatbin: expected magic 0x%08x at the start",
			    COLOC_FATBIN_MAGIC);
		return -EINVAL;
	}
	if (fb->form == COLOC_BINARY_NONE)
		fb->form = COLOC_BINARY_FATBIN;
	return containers_read(fb, p, size, section, 0, diag);
}

/* The SM of a cubin: e_flags bits 8-15 from ELF ABI version 8 (CUDA 13) on, bits 0-7 before. */
static unsigned cubin_sm(const struct coloc_elf *e)
{
	return e->abi_version >= 8 ? (e->flags >> 8) & 0xff : e->flags & 0xff;
}

static int cubin_entry(struct coloc_fatbin *fb, const struct coloc_elf *elf, struct coloc_diag *diag)
{
	struct coloc_fatbin_entry *e = entry_new(fb, diag);

	if (!e)
		return -ENOMEM;
	fb->form = COLOC_BINARY_CUBIN;
	e->kind = COLOC_FATBIN_ELF;
	e->sm = cubin_sm(elf);
	e->payload = elf->data;
	e->payload_size = elf->size;
	return 0;
}

int coloc_fatbin_read_image(struct coloc_fatbin *fb, const void *data, size_t size,
			    struct coloc_diag *diag)
{
	static const char *const sections[] = {".nv_fatbin", "__nv_relfatbin"};
	struct coloc_elf elf;
	size_t i, found = 0;
	int rc;

	if (size >= 4 && coloc_le32(data) == COLOC_FATBIN_MAGIC)
		return coloc_fatbin_read(fb, data, size, NULL, diag);
	if (!coloc_elf_is(data, size)) {
		coloc_error(diag, PTX_NOLOC, "not an ELF file, cubin or fatbin (the first bytes are "
			    "neither \\177ELF nor the fatbin magic 0x%08x)", COLOC_FATBIN_MAGIC);
		return -EINVAL;
	}
	rc = coloc_elf_open(&elf, data, size, diag);
	if (rc < 0)
		return rc;
	if (elf.machine == COLOC_EM_CUDA)
		return cubin_entry(fb, &elf, diag);
	fb->form = COLOC_BINARY_HOST_ELF;
	/* Every section of either name counts: partial links can leave several. */
	for (i = 1; i < elf.shnum; i++) {
		struct coloc_elf_section s;
		size_t k;

		rc = coloc_elf_section(&elf, i, &s, diag);
		if (rc < 0)
			return rc;
		for (k = 0; k < sizeof(sections) / sizeof(sections[0]); k++)
			if (strcmp(s.name, sections[k]) == 0)
				break;
		if (k == sizeof(sections) / sizeof(sections[0]))
			continue;
		found++;
		if (!s.data || s.size == 0)
			continue; /* NOBITS, as in a debug-info-only file */
		if (s.flags & COLOC_SHF_COMPRESSED) {
			coloc_error(diag, PTX_NOLOC, "section '%s' is compressed (SHF_COMPRESSED); "
				    "colocc reads fatbin sections stored plain", sections[k]);
			return -EINVAL;
		}
		rc = containers_read(fb, s.data, (size_t)s.size, sections[k], (size_t)s.offset, diag);
		if (rc < 0)
			return rc;
	}
	if (fb->nentries == 0) {
		coloc_error(diag, PTX_NOLOC, "no CUDA device code: the ELF file has %s",
			    found ? "only empty fatbin sections" :
				    "no .nv_fatbin or __nv_relfatbin section");
		return -ENOENT;
	}
	return 0;
}

/* One fatbin in memory whose extent is known only from its header. */
static int wrapped_read(struct coloc_fatbin *fb, const unsigned char *p, size_t bound,
			const char *what, struct coloc_diag *diag)
{
	size_t used;

	if (!p) {
		coloc_error(diag, PTX_NOLOC, "fatbin wrapper: %s is a null pointer", what);
		return -EINVAL;
	}
	if (bound < FB_HEADER_BYTES) {
		coloc_error(diag, PTX_NOLOC, "fatbin wrapper: %s: a bound of %zu bytes cannot hold a "
			    "fatbin header", what, bound);
		return -EINVAL;
	}
	/* container_read checks the header's sizes against bound before reading further. */
	return container_read(fb, p, bound, NULL, 0, &used, diag);
}

int coloc_fatbin_read_wrapper(struct coloc_fatbin *fb, const struct coloc_fatbin_wrapper *w,
			      size_t bound, struct coloc_diag *diag)
{
	const void *const *list;
	size_t i;
	int rc;

	if (!w) {
		coloc_error(diag, PTX_NOLOC, "fatbin wrapper: null pointer");
		return -EINVAL;
	}
	if ((uint32_t)w->magic != COLOC_FATBIN_WRAPPER_MAGIC) {
		coloc_error(diag, PTX_NOLOC, "fatbin wrapper: magic 0x%08x, expected 0x%08x",
			    (uint32_t)w->magic, COLOC_FATBIN_WRAPPER_MAGIC);
		return -EINVAL;
	}
	if (w->version != 1 && w->version != 2) {
		coloc_error(diag, PTX_NOLOC, "fatbin wrapper version %d; colocc reads versions 1 and 2",
			    (int)w->version);
		return -EINVAL;
	}
	fb->form = COLOC_BINARY_WRAPPER;
	rc = wrapped_read(fb, w->data, bound, "data", diag);
	if (rc < 0 || w->version == 1 || !w->filename_or_fatbins)
		return rc;
	/* Version 2 (-rdc links): the prelinked fatbins, NULL-terminated. */
	list = w->filename_or_fatbins;
	for (i = 0; list[i]; i++) {
		if (i == WRAPPER_MAX_PRELINKED) {
			coloc_error(diag, PTX_NOLOC, "fatbin wrapper: more than %u prelinked fatbins; "
				    "the list is probably not NULL-terminated", WRAPPER_MAX_PRELINKED);
			return -EINVAL;
		}
		rc = wrapped_read(fb, list[i], bound, "prelinked fatbin", diag);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int inflate(const struct coloc_fatbin *fb, const struct coloc_fatbin_entry *e,
		   struct coloc_buf *scratch, struct coloc_diag *diag)
{
	size_t n = e->uncompressed_size;
	const char *how;

	/* Checked when the entry was read; the cap may have been lowered since. */
	if (n > fb->max_entry_size) {
		coloc_error(diag, PTX_NOLOC, "fatbin entry at offset 0x%zx: %zu bytes uncompressed "
			    "exceed the limit of %zu", e->offset, n, fb->max_entry_size);
		return -EFBIG;
	}
	scratch->len = 0;
	if (coloc_buf_reserve(scratch, n) < 0) {
		coloc_error(diag, PTX_NOLOC, "out of memory inflating %zu bytes", n);
		return -ENOMEM;
	}
	if (e->compression == COLOC_FATBIN_LZ4) {
		int got;

		how = "LZ4";
		if (n > (size_t)LZ4_MAX_INPUT_SIZE || e->compressed_size > (size_t)LZ4_MAX_INPUT_SIZE)
			got = -1;
		else
			got = LZ4_decompress_safe((const char *)e->payload, scratch->data,
						  (int)e->compressed_size, (int)n);
		if (got >= 0 && (size_t)got == n) {
			scratch->len = n;
			return 0;
		}
	} else {
		size_t got = ZSTD_decompress(scratch->data, n, e->payload, e->compressed_size);

		how = "ZSTD";
		if (!ZSTD_isError(got) && got == n) {
			scratch->len = n;
			return 0;
		}
	}
	coloc_error(diag, PTX_NOLOC, "fatbin entry at offset 0x%zx: corrupt %s data: the %zu "
		    "compressed bytes do not inflate to the %zu declared", e->offset, how,
		    e->compressed_size, n);
	return -EINVAL;
}

int coloc_fatbin_entry_contents(const struct coloc_fatbin *fb, const struct coloc_fatbin_entry *e,
				struct coloc_buf *scratch, const unsigned char **data, size_t *len,
				struct coloc_diag *diag)
{
	const unsigned char *p = e->payload;
	size_t n = e->payload_size;
	int rc;

	/* nvcc 13 stores NVVM IR in a form that is not plain LZ4 or ZSTD (flag 0x10000). */
	if (e->kind == COLOC_FATBIN_LTOIR) {
		coloc_error(diag, PTX_NOLOC, "fatbin entry at offset 0x%zx holds LTO-IR, which colocc "
			    "does not read", e->offset);
		return -ENOTSUP;
	}
	if (e->compression != COLOC_FATBIN_PLAIN) {
		rc = inflate(fb, e, scratch, diag);
		if (rc < 0)
			return rc;
		p = (const unsigned char *)scratch->data;
		n = scratch->len;
	}
	if (e->kind == COLOC_FATBIN_PTX) {
		while (n && p[n - 1] == '\0')
			n--;
	} else if (e->kind == COLOC_FATBIN_ELF && coloc_elf_is(p, n)) {
		struct coloc_elf elf;
		struct coloc_diag quiet;
		size_t extent;

		/* A broken cubin is reported by whoever reads it; here it keeps its padding. */
		coloc_diag_init(&quiet, NULL, NULL);
		if (coloc_elf_open(&elf, p, n, &quiet) == 0 && (extent = coloc_elf_extent(&elf)))
			n = extent;
	}
	*data = p;
	*len = n;
	return 0;
}

/* ---- writer */

static void put16(struct coloc_buf *b, uint16_t v)
{
	unsigned char c[2] = {(unsigned char)v, (unsigned char)(v >> 8)};

	coloc_buf_put(b, c, 2);
}

static void put32(struct coloc_buf *b, uint32_t v)
{
	put16(b, (uint16_t)v);
	put16(b, (uint16_t)(v >> 16));
}

static void put64(struct coloc_buf *b, uint64_t v)
{
	put32(b, (uint32_t)v);
	put32(b, (uint32_t)(v >> 32));
}

static void pad8(struct coloc_buf *b, size_t from)
{
	static const char zero[8];

	coloc_buf_put(b, zero, (8 - (b->len - from) % 8) % 8);
}

/* The ".version X.Y" of PTX text as major << 16 | minor, as nvcc records it. */
static uint32_t ptx_isa_version(const char *text, size_t len)
{
	static const char key[] = ".version";
	const char *p = text, *end = text + len;
	unsigned major = 0, minor = 0;

	while (p < end && (p = memchr(p, '.', (size_t)(end - p))) != NULL) {
		if ((size_t)(end - p) > sizeof(key) && memcmp(p, key, sizeof(key) - 1) == 0 &&
		    (p[8] == ' ' || p[8] == '\t')) {
			p += 8;
			while (p < end && (*p == ' ' || *p == '\t'))
				p++;
			while (p < end && *p >= '0' && *p <= '9' && major < 1000)
				major = major * 10 + (unsigned)(*p++ - '0');
			if (p < end && *p == '.')
				p++;
			while (p < end && *p >= '0' && *p <= '9' && minor < 1000)
				minor = minor * 10 + (unsigned)(*p++ - '0');
			return major << 16 | minor;
		}
		p++;
	}
	return 0;
}

/* Compresses src into b (appending); returns the compressed size or 0 after a diagnostic. */
static size_t deflate(struct coloc_buf *b, enum coloc_fatbin_compression how, const void *src,
		      size_t n, struct coloc_diag *diag)
{
	size_t bound, got;

	if (how == COLOC_FATBIN_LZ4) {
		if (n > (size_t)LZ4_MAX_INPUT_SIZE) {
			coloc_error(diag, PTX_NOLOC, "%zu bytes are too many for one LZ4 block", n);
			return 0;
		}
		bound = (size_t)LZ4_compressBound((int)n);
	} else {
		bound = ZSTD_compressBound(n);
	}
	if (coloc_buf_reserve(b, bound) < 0) {
		coloc_error(diag, PTX_NOLOC, "out of memory");
		return 0;
	}
	if (how == COLOC_FATBIN_LZ4) {
		int r = LZ4_compress_default(src, b->data + b->len, (int)n, (int)bound);

		got = r > 0 ? (size_t)r : 0;
	} else {
		got = ZSTD_compress(b->data + b->len, bound, src, n, 3);
		if (ZSTD_isError(got))
			got = 0;
	}
	if (!got)
		coloc_error(diag, PTX_NOLOC, "%s compression failed",
			    how == COLOC_FATBIN_LZ4 ? "LZ4" : "ZSTD");
	b->len += got;
	return got;
}

static int image_write(struct coloc_buf *b, const struct coloc_fatbin_image *im, size_t index,
		       struct coloc_diag *diag)
{
	size_t start = b->len, opt_len = 0, hsize = FE_HEADER_BYTES, body, stored, plain;
	uint64_t flags = COLOC_FATBIN_FLAG_64BIT | COLOC_FATBIN_FLAG_LINUX;
	uint32_t version;
	struct coloc_buf tmp;

	if (im->kind != COLOC_FATBIN_PTX && im->kind != COLOC_FATBIN_ELF) {
		coloc_error(diag, PTX_NOLOC, "fatbin image %zu: kind %d; the writer takes PTX or ELF",
			    index, (int)im->kind);
		return -EINVAL;
	}
	if (im->kind == COLOC_FATBIN_PTX) {
		const char *nul = memchr(im->data, '\0', im->size);

		if (nul) {
			coloc_error(diag, PTX_NOLOC, "fatbin image %zu: PTX text holds a NUL byte at "
				    "offset %zu", index, (size_t)(nul - (const char *)im->data));
			return -EINVAL;
		}
		version = ptx_isa_version(im->data, im->size);
		opt_len = im->options ? strlen(im->options) : 0;
		/* The options pair at 0x40, then the string with its NUL, padded to 8. */
		hsize = (FE_HEADER_BYTES + 8 + opt_len + 1 + 7) & ~(size_t)7;
		plain = im->size + 1; /* nvcc stores PTX with its terminating NUL */
	} else {
		struct coloc_elf elf;

		if (coloc_elf_open(&elf, im->data, im->size, diag) < 0)
			return -EINVAL;
		if (elf.machine != COLOC_EM_CUDA) {
			coloc_error(diag, PTX_NOLOC, "fatbin image %zu: ELF machine %u is not CUDA (%u)",
				    index, elf.machine, COLOC_EM_CUDA);
			return -EINVAL;
		}
		version = 0x10000u | elf.abi_version;
		plain = im->size;
	}
	if (im->variant == 'a')
		flags |= COLOC_FATBIN_FLAG_ARCH_SPECIFIC;
	else if (im->variant == 'f')
		flags |= COLOC_FATBIN_FLAG_FAMILY;
	if (im->compression == COLOC_FATBIN_LZ4)
		flags |= COLOC_FATBIN_FLAG_LZ4;
	else if (im->compression == COLOC_FATBIN_ZSTD)
		flags |= COLOC_FATBIN_FLAG_ZSTD;

	/* The payload first, in a side buffer: the header needs its sizes. */
	coloc_buf_init(&tmp);
	if (im->compression == COLOC_FATBIN_PLAIN) {
		coloc_buf_put(&tmp, im->data, im->size);
		if (im->kind == COLOC_FATBIN_PTX)
			coloc_buf_putc(&tmp, '\0');
		stored = 0;
	} else {
		struct coloc_buf text;

		coloc_buf_init(&text);
		coloc_buf_put(&text, im->data, im->size);
		if (im->kind == COLOC_FATBIN_PTX)
			coloc_buf_putc(&text, '\0');
		stored = text.failed ? 0 : deflate(&tmp, im->compression, text.data, text.len, diag);
		coloc_buf_release(&text);
		if (!stored) {
			coloc_buf_release(&tmp);
			return -EINVAL;
		}
	}
	body = (tmp.len + 7) & ~(size_t)7;
	if (plain > UINT32_MAX || tmp.failed) {
		coloc_error(diag, PTX_NOLOC, "fatbin image %zu: %zu bytes; the writer takes up to 4 GiB",
			    index, plain);
		coloc_buf_release(&tmp);
		return -EINVAL;
	}

	put16(b, (uint16_t)im->kind);
	put16(b, 0x0101);
	put32(b, (uint32_t)hsize);
	put64(b, body);
	put32(b, (uint32_t)stored);
	put32(b, im->kind == COLOC_FATBIN_PTX ? FE_HEADER_BYTES : 0);
	put32(b, version);
	put32(b, im->sm);
	put32(b, 0); /* no source name */
	put32(b, 0);
	put64(b, flags);
	put64(b, 0);
	put64(b, stored ? plain : 0);
	if (im->kind == COLOC_FATBIN_PTX) {
		put32(b, FE_HEADER_BYTES + 8);
		put32(b, (uint32_t)opt_len);
		coloc_buf_put(b, im->options ? im->options : "", opt_len);
		coloc_buf_putc(b, '\0');
		pad8(b, start);
	}
	coloc_buf_put(b, tmp.data ? tmp.data : "", tmp.len);
	pad8(b, start);
	coloc_buf_release(&tmp);
	return 0;
}

int coloc_fatbin_write(struct coloc_buf *out, const struct coloc_fatbin_image *images, size_t n,
		       struct coloc_diag *diag)
{
	size_t start = out->len, i;
	int rc;

	put32(out, COLOC_FATBIN_MAGIC);
	put16(out, 1);
	put16(out, FB_HEADER_BYTES);
	put64(out, 0); /* patched below */
	for (i = 0; i < n; i++) {
		if (images[i].kind == COLOC_FATBIN_PTX && images[i].options &&
		    strlen(images[i].options) > 65536) {
			coloc_error(diag, PTX_NOLOC, "fatbin image %zu: options longer than 64 KiB", i);
			out->len = start;
			return -EINVAL;
		}
		rc = image_write(out, &images[i], i, diag);
		if (rc < 0) {
			out->len = start;
			return rc;
		}
	}
	if (out->failed) {
		coloc_error(diag, PTX_NOLOC, "out of memory writing a fatbin");
		return -ENOMEM;
	}
	{
		uint64_t fat = out->len - start - FB_HEADER_BYTES;
		unsigned char *p = (unsigned char *)out->data + start + FB_FAT_SIZE;
		int k;

		for (k = 0; k < 8; k++)
			p[k] = (unsigned char)(fat >> (8 * k));
	}
	return 0;
}

/* ---- choosing */

static int variant_rank(char v)
{
	return v == 'a' ? 2 : v == 'f' ? 1 : 0;
}

const struct coloc_fatbin_entry *coloc_fatbin_pick_ptx(const struct coloc_fatbin_entry *e, size_t n,
						       unsigned sm, char variant)
{
	const struct coloc_fatbin_entry *best = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct coloc_fatbin_entry *c = &e[i];

		if (c->kind != COLOC_FATBIN_PTX || c->sm > sm)
			continue;
		if (c->variant == 'a' && (c->sm != sm || variant != 'a'))
			continue;
		if (c->variant == 'f' && c->sm / 10 != sm / 10)
			continue;
		if (!best || c->sm > best->sm ||
		    (c->sm == best->sm && variant_rank(c->variant) > variant_rank(best->variant)))
			best = c;
	}
	return best;
}
