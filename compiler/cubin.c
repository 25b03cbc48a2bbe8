/*
 * Kernel table of a cubin.
 *
 * Kernels are the function symbols whose st_other carries STO_CUDA_ENTRY
 * (0x10); device functions of -rdc code have .nv.info.<name> sections too,
 * so the section alone does not make a kernel.  Each .nv.info.<kernel>
 * section is a list of attribute records:
 *
 *     u8 format; u8 attribute; u16 value-or-size; [size bytes if format 4]
 *
 * with formats 1 (no value), 2 (byte), 3 (half word) and 4 (sized block).
 * An EIATTR_KPARAM_INFO block is {u32 index; u16 ordinal; u16 offset;
 * u32 bits} with the size in bytes in bits 18-31 of `bits`.  The section's
 * sh_info is the kernel's .text section, which is how they are paired.
 * The module-wide .nv.info section holds, among others, EIATTR_REGCOUNT
 * blocks {u32 symbol index; u32 registers per thread}.
 */
#include "cubin.h"

#include <errno.h>
#include <string.h>

#include "coloc_elf.h"

#define STO_CUDA_ENTRY 0x10u

enum eifmt {
	EIFMT_NVAL = 1,
	EIFMT_BVAL = 2,
	EIFMT_HVAL = 3,
	EIFMT_SVAL = 4,
};

/* Three u32 from a sized block of at least 12 bytes. */
static void dims_read(uint32_t out[3], const unsigned char *v, size_t n)
{
	if (n < 12)
		return;
	out[0] = coloc_le32(v);
	out[1] = coloc_le32(v + 4);
	out[2] = coloc_le32(v + 8);
}

/*
 * The record at *p of an info section: its format, attribute and sized value
 * (v, n; n is 0 unless the format is 4).  Moves *p past it.
 */
static int record_next(const struct coloc_elf_section *s, const unsigned char **p,
		       unsigned *fmt, unsigned *attr, const unsigned char **v, size_t *n,
		       struct coloc_diag *diag)
{
	const unsigned char *end = s->data + s->size, *q = *p;

	*n = 0;
	if (end - q < 4) {
		coloc_error(diag, PTX_NOLOC, "cubin section '%s': truncated attribute record at "
			    "offset %zu", s->name, (size_t)(q - s->data));
		return -EINVAL;
	}
	*fmt = q[0];
	*attr = q[1];
	if (*fmt == EIFMT_SVAL) {
		*n = coloc_le16(q + 2);
		if ((size_t)(end - q - 4) < *n) {
			coloc_error(diag, PTX_NOLOC, "cubin section '%s': attribute 0x%02x at offset "
				    "%zu declares %zu bytes, %zu are left", s->name, *attr,
				    (size_t)(q - s->data), *n, (size_t)(end - q - 4));
			return -EINVAL;
		}
	} else if (*fmt < EIFMT_NVAL || *fmt > EIFMT_HVAL) {
		coloc_error(diag, PTX_NOLOC, "cubin section '%s': attribute 0x%02x at offset %zu "
			    "has unknown format %u (expected 1 to 4)", s->name, *attr,
			    (size_t)(q - s->data), *fmt);
		return -EINVAL;
	}
	*v = q + 4;
	*p = *v + *n;
	return 0;
}

/* Walks the records of an info section: once to count parameters, once to fill. */
static int info_read(struct coloc_cubin_kernel *k, const struct coloc_elf_section *s,
		     struct coloc_arena *arena, struct coloc_diag *diag)
{
	const unsigned char *p = s->data, *end = s->data + s->size;
	unsigned count = 0, pass;
	uint32_t last_end = 0;

	for (pass = 0; pass < 2; pass++) {
		for (p = s->data; p < end;) {
			unsigned fmt, attr;
			size_t n;
			const unsigned char *v, *rec = p;

			if (record_next(s, &p, &fmt, &attr, &v, &n, diag) < 0)
				return -EINVAL;
			if (pass == 0) {
				if (attr == COLOC_EIATTR_KPARAM_INFO)
					count++;
			} else {
				switch (attr) {
				case COLOC_EIATTR_KPARAM_INFO: {
					struct coloc_cubin_param *prm;
					uint32_t ord;

					if (fmt != EIFMT_SVAL || n < 12) {
						coloc_error(diag, PTX_NOLOC, "cubin section '%s': parameter "
							    "record of %zu bytes (expected 12)", s->name,
							    n);
						return -EINVAL;
					}
					ord = coloc_le16(v + 4);
					if (ord >= count || k->params[ord].size) {
						coloc_error(diag, PTX_NOLOC, "kernel '%s': parameter ordinal "
							    "%u is repeated or beyond the %u parameters",
							    k->name, ord, count);
						return -EINVAL;
					}
					prm = &k->params[ord];
					prm->ordinal = ord;
					prm->offset = coloc_le16(v + 6);
					prm->size = coloc_le32(v + 8) >> 18;
					if (prm->size == 0) {
						coloc_error(diag, PTX_NOLOC, "kernel '%s': parameter %u has "
							    "size 0", k->name, ord);
						return -EINVAL;
					}
					if (prm->offset + prm->size > last_end)
						last_end = prm->offset + prm->size;
					break;
				}
				case COLOC_EIATTR_CBANK_PARAM_SIZE:
					k->param_bytes = fmt == EIFMT_SVAL ? (n >= 4 ? coloc_le32(v) : 0)
									 : coloc_le16(rec + 2);
					break;
				case COLOC_EIATTR_CTA_PER_CLUSTER:
					dims_read(k->cluster_dims, v, n);
					break;
				case COLOC_EIATTR_EXPLICIT_CLUSTER:
					k->explicit_cluster = true;
					break;
				case COLOC_EIATTR_MAX_CLUSTER_RANK:
					k->max_cluster_rank = fmt == EIFMT_SVAL ? (n >= 4 ? coloc_le32(v) : 0)
										: coloc_le16(rec + 2);
					break;
				case COLOC_EIATTR_COOP_GROUP_INSTR_OFFSETS:
					k->cooperative = true;
					break;
				case COLOC_EIATTR_MAX_THREADS:
					dims_read(k->max_threads, v, n);
					break;
				case COLOC_EIATTR_REQNTID:
					dims_read(k->req_threads, v, n);
					break;
				default:
					break;
				}
			}
		}
		if (pass == 0 && count) {
			k->params = coloc_arena_alloc(arena, count * sizeof(*k->params));
			if (!k->params) {
				coloc_error(diag, PTX_NOLOC, "out of memory");
				return -ENOMEM;
			}
			k->nparams = count;
		}
	}
	if (!k->param_bytes)
		k->param_bytes = last_end;
	return 0;
}

/* Registers per thread from the module-wide .nv.info, by symbol index. */
static int regcount_read(struct coloc_cubin *out, const struct coloc_elf_section *s,
			 const size_t *kernel_of_sym, size_t nsyms, struct coloc_diag *diag)
{
	const unsigned char *p = s->data, *end = s->data + s->size, *v;
	unsigned fmt, attr;
	uint32_t sym;
	size_t n;

	while (p < end) {
		if (record_next(s, &p, &fmt, &attr, &v, &n, diag) < 0)
			return -EINVAL;
		if (attr != COLOC_EIATTR_REGCOUNT || fmt != EIFMT_SVAL || n < 8)
			continue;
		sym = coloc_le32(v);
		if (sym < nsyms && kernel_of_sym[sym] != SIZE_MAX)
			out->kernels[kernel_of_sym[sym]].registers = coloc_le32(v + 4);
	}
	return 0;
}

int coloc_cubin_read(struct coloc_cubin *out, struct coloc_arena *arena, const void *data,
		     size_t size, struct coloc_diag *diag)
{
	struct coloc_elf elf;
	struct coloc_elf_section symtab, s, global;
	size_t i, nsyms, n = 0, *info_of_text, *kernel_of_sym;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = coloc_elf_open(&elf, data, size, diag);
	if (rc < 0)
		return rc;
	if (elf.machine != COLOC_EM_CUDA) {
		coloc_error(diag, PTX_NOLOC, "not a cubin: ELF machine %u, expected %u (EM_CUDA)",
			    elf.machine, COLOC_EM_CUDA);
		return -EINVAL;
	}
	out->sm = elf.abi_version >= 8 ? (elf.flags >> 8) & 0xff : elf.flags & 0xff;
	out->relocatable = elf.type == COLOC_ET_REL;

	/* .nv.info.<kernel> by the index of the .text section it describes. */
	info_of_text = coloc_arena_alloc(arena, (elf.shnum ? elf.shnum : 1) * sizeof(size_t));
	if (!info_of_text) {
		coloc_error(diag, PTX_NOLOC, "out of memory");
		return -ENOMEM;
	}
	memset(&symtab, 0, sizeof(symtab));
	memset(&global, 0, sizeof(global));
	for (i = 1; i < elf.shnum; i++) {
		rc = coloc_elf_section(&elf, i, &s, diag);
		if (rc < 0)
			return rc;
		if (s.type == COLOC_SHT_SYMTAB && !symtab.data)
			symtab = s;
		else if (s.type == COLOC_SHT_CUDA_INFO && strcmp(s.name, ".nv.info") == 0)
			global = s;
		else if (s.type == COLOC_SHT_CUDA_INFO && s.info && s.info < elf.shnum &&
			 strncmp(s.name, ".nv.info.", 9) == 0)
			info_of_text[s.info] = i;
	}
	nsyms = coloc_elf_symbol_count(&symtab);
	for (i = 1; i < nsyms; i++) {
		struct coloc_elf_sym sym;

		rc = coloc_elf_symbol(&elf, &symtab, i, &sym, diag);
		if (rc < 0)
			return rc;
		if ((sym.info & 0xf) == COLOC_STT_FUNC && (sym.other & STO_CUDA_ENTRY) && sym.shndx)
			n++;
	}
	if (!n)
		return 0;
	out->kernels = coloc_arena_alloc(arena, n * sizeof(*out->kernels));
	kernel_of_sym = coloc_arena_alloc(arena, nsyms * sizeof(size_t));
	if (!out->kernels || !kernel_of_sym) {
		coloc_error(diag, PTX_NOLOC, "out of memory");
		return -ENOMEM;
	}
	kernel_of_sym[0] = SIZE_MAX;
	for (i = 1; i < nsyms; i++) {
		struct coloc_cubin_kernel *k;
		struct coloc_elf_sym sym;
		size_t info;

		kernel_of_sym[i] = SIZE_MAX;
		rc = coloc_elf_symbol(&elf, &symtab, i, &sym, diag);
		if (rc < 0)
			return rc;
		if ((sym.info & 0xf) != COLOC_STT_FUNC || !(sym.other & STO_CUDA_ENTRY) || !sym.shndx)
			continue;
		kernel_of_sym[i] = out->nkernels;
		k = &out->kernels[out->nkernels++];
		k->name = coloc_arena_strndup(arena, sym.name, strlen(sym.name));
		if (!k->name) {
			coloc_error(diag, PTX_NOLOC, "out of memory");
			return -ENOMEM;
		}
		if (!*k->name) {
			coloc_error(diag, PTX_NOLOC, "cubin: kernel symbol %zu has no name", i);
			return -EINVAL;
		}
		info = sym.shndx < elf.shnum ? info_of_text[sym.shndx] : 0;
		if (!info)
			continue; /* no attributes: no parameters known */
		/* Each section is read once, however many symbols claim its .text. */
		info_of_text[sym.shndx] = 0;
		rc = coloc_elf_section(&elf, info, &s, diag);
		if (rc < 0)
			return rc;
		if (strcmp(s.name + 9, k->name) != 0 || !s.data)
			continue;
		rc = info_read(k, &s, arena, diag);
		if (rc < 0)
			return rc;
	}
	return global.data ? regcount_read(out, &global, kernel_of_sym, nsyms, diag) : 0;
}
