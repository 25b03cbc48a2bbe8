/*
 * Fatbins: the containers in which nvcc ships PTX and cubins inside host
 * binaries.  docs/binaries.md gives the layouts with their offsets.
 *
 * Reading never copies the input: entries point into the caller's buffer,
 * which must outlive the struct coloc_fatbin.  Compressed contents are
 * inflated on request into a caller-owned buffer, so listing a 450 MB
 * library holds one entry's contents at a time.  Every size read from the
 * input is checked against what the input can hold and against
 * max_entry_size before anything is allocated.
 */
#ifndef COLOC_FATBIN_H
#define COLOC_FATBIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "diag.h"

#define COLOC_FATBIN_MAGIC 0xBA55ED50u
#define COLOC_FATBIN_WRAPPER_MAGIC 0x466243B1u

enum coloc_fatbin_kind {
	COLOC_FATBIN_PTX = 1,
	COLOC_FATBIN_ELF = 2,   /* a cubin */
	COLOC_FATBIN_LTOIR = 8, /* NVVM IR for link-time optimization (-dlto) */
};

enum coloc_fatbin_compression {
	COLOC_FATBIN_PLAIN,
	COLOC_FATBIN_LZ4,  /* one raw LZ4 block */
	COLOC_FATBIN_ZSTD, /* a zstd frame */
};

/* Entry flags, as nvcc 13 writes them. */
#define COLOC_FATBIN_FLAG_64BIT 0x1u
#define COLOC_FATBIN_FLAG_DEBUG 0x2u
#define COLOC_FATBIN_FLAG_LINUX 0x10u
#define COLOC_FATBIN_FLAG_LZ4 0x2000u
#define COLOC_FATBIN_FLAG_ZSTD 0x8000u
#define COLOC_FATBIN_FLAG_LTOIR 0x10000u          /* on LTO-IR entries, whose payload is not plain */
#define COLOC_FATBIN_FLAG_ARCH_SPECIFIC 0x100000u /* sm_90a */
#define COLOC_FATBIN_FLAG_FAMILY 0x200000u        /* sm_100f */

/* Where the entries came from. */
enum coloc_binary_form {
	COLOC_BINARY_NONE,
	COLOC_BINARY_FATBIN,   /* a .fatbin file: containers back to back */
	COLOC_BINARY_HOST_ELF, /* executable, shared object or object with fatbin sections */
	COLOC_BINARY_CUBIN,    /* a standalone cubin: one ELF entry, the whole file */
	COLOC_BINARY_WRAPPER,  /* a __fatBinC_Wrapper_t in memory */
};

struct coloc_fatbin_entry {
	unsigned kind; /* enum coloc_fatbin_kind, or an unknown value kept as found */
	unsigned sm;   /* 90 for sm_90, sm_90a and compute_90 */
	char variant;  /* 'a' (arch-specific), 'f' (family) or 0 */
	uint32_t format_version; /* PTX ISA for PTX entries: major << 16 | minor */
	uint64_t flags;
	enum coloc_fatbin_compression compression;
	/* The payload as stored (compressed or not), padding included. */
	const unsigned char *payload;
	size_t payload_size;
	size_t compressed_size;   /* bytes of payload that are the compressed stream */
	size_t uncompressed_size; /* what the compressed stream declares */
	const char *options;      /* ptxas options of PTX entries; not NUL-terminated */
	size_t options_len;
	const char *ident;        /* the source file nvcc names (-G builds); not NUL-terminated */
	size_t ident_len;
	const char *section;      /* ".nv_fatbin", "__nv_relfatbin", or NULL */
	size_t offset;            /* of the entry header within the input */
	unsigned container;       /* 0-based, over the whole input */
	unsigned index;           /* 0-based, within its container */
};

struct coloc_fatbin {
	enum coloc_binary_form form;
	struct coloc_fatbin_entry *entries;
	size_t nentries;
	size_t cap;
	unsigned ncontainers;
	/* Largest contents an entry may inflate to; coloc_fatbin_init sets 1 GiB. */
	size_t max_entry_size;
};

/* The runtime registration record (fatbinary_section.h's __fatBinC_Wrapper_t). */
struct coloc_fatbin_wrapper {
	int32_t magic;
	int32_t version; /* 1: data is one fatbin; 2: also a NULL-terminated prelinked list */
	const void *data;
	const void *filename_or_fatbins;
};

void coloc_fatbin_init(struct coloc_fatbin *fb);
void coloc_fatbin_release(struct coloc_fatbin *fb);

/*
 * Reads fatbin containers laid back to back in `data` (zero padding between
 * them is skipped) and appends their entries; `section` names where they
 * were found (NULL for a .fatbin file).  Returns 0 or -EINVAL/-ENOMEM
 * after a diagnostic.
 */
int coloc_fatbin_read(struct coloc_fatbin *fb, const void *data, size_t size,
		      const char *section, struct coloc_diag *diag);

/*
 * Reads any binary colocc accepts: a .fatbin file, a cubin, or a host ELF
 * file whose .nv_fatbin and __nv_relfatbin sections hold fatbins.  Returns
 * -ENOENT after a diagnostic when a host ELF file has no fatbin, and
 * -EINVAL when the input is none of these or is malformed.
 */
int coloc_fatbin_read_image(struct coloc_fatbin *fb, const void *data, size_t size,
			    struct coloc_diag *diag);

/*
 * Reads the fatbins a registration wrapper points to, as the runtime sees
 * them at __cudaRegisterFatBinary.  `bound` caps the bytes any one fatbin
 * may span (the size of the mapping that holds it, when known): a corrupt
 * header is reported instead of being followed out of the mapping.
 */
int coloc_fatbin_read_wrapper(struct coloc_fatbin *fb, const struct coloc_fatbin_wrapper *w,
			      size_t bound, struct coloc_diag *diag);

/*
 * The contents of an entry: inflated into `scratch` when compressed,
 * otherwise pointing into the input.  PTX loses its trailing NUL padding;
 * a cubin is cut to the extent its ELF headers give.  Returns 0 or a
 * negative errno after a diagnostic (-ENOTSUP for LTO-IR, which is stored
 * in a form colocc cannot read).
 */
int coloc_fatbin_entry_contents(const struct coloc_fatbin *fb, const struct coloc_fatbin_entry *e,
				struct coloc_buf *scratch, const unsigned char **data, size_t *len,
				struct coloc_diag *diag);

/*
 * The PTX entry a device of architecture sm_`sm``variant` compiles from,
 * among `n` entries (one container's): the highest virtual architecture
 * the target can run -- compute_X for X <= sm; compute_Xa only when the
 * target is sm_Xa; compute_Xf when the target is of X's family (same
 * major, X <= sm) -- preferring Xa, then Xf, then X at equal X.  NULL
 * when no PTX entry fits.
 */
const struct coloc_fatbin_entry *coloc_fatbin_pick_ptx(const struct coloc_fatbin_entry *e, size_t n,
						       unsigned sm, char variant);

/* "sm_90a" (real) or "compute_90a" (virtual) into buf. */
void coloc_fatbin_arch_name(const struct coloc_fatbin_entry *e, bool virtual_arch, char *buf,
			    size_t size);
const char *coloc_fatbin_kind_name(unsigned kind);

/* ---- writing */

struct coloc_fatbin_image {
	enum coloc_fatbin_kind kind; /* PTX or ELF */
	unsigned sm;
	char variant; /* 'a', 'f' or 0 */
	const void *data; /* PTX text (no NUL) or a cubin */
	size_t size;
	enum coloc_fatbin_compression compression;
	const char *options; /* ptxas options for a PTX entry, or NULL */
};

/*
 * Appends one fatbin container holding `n` images to `out`, laid out as
 * nvcc lays its own.  Returns 0 or a negative errno after a diagnostic.
 */
int coloc_fatbin_write(struct coloc_buf *out, const struct coloc_fatbin_image *images, size_t n,
		       struct coloc_diag *diag);

#endif
