/*
 * A bounds-checked reader for 64-bit little-endian ELF files: host
 * executables, shared objects and relocatable objects that embed fatbins,
 * and CUDA cubins (e_machine EM_CUDA).
 *
 * Nothing is copied: sections and symbols point into the caller's buffer,
 * which must outlive the reader.  Every offset and size read from the file
 * is checked against the buffer before use, so a hostile file costs at most
 * work proportional to its size.
 */
#ifndef COLOC_ELF_H
#define COLOC_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

#define COLOC_EM_CUDA 190

enum {
	COLOC_ET_REL = 1,
	COLOC_ET_EXEC = 2,
	COLOC_ET_DYN = 3,
};

enum {
	COLOC_SHT_SYMTAB = 2,
	COLOC_SHT_NOBITS = 8,
	COLOC_SHT_CUDA_INFO = 0x70000000, /* .nv.info and .nv.info.<function> */
	/* Shared-memory reservations (.nv_debug.shared in NCCL's -rdc cubins): like NOBITS,
	   a size and no bytes in the file. */
	COLOC_SHT_CUDA_SHARED = 0x7000000a,
};

#define COLOC_SHF_COMPRESSED 0x800u

struct coloc_elf {
	const unsigned char *data;
	size_t size;
	uint16_t type;       /* e_type */
	uint16_t machine;    /* e_machine */
	uint32_t flags;      /* e_flags */
	uint8_t osabi;       /* e_ident[EI_OSABI] */
	uint8_t abi_version; /* e_ident[EI_ABIVERSION] */
	size_t shnum;        /* section headers, extended numbering resolved */
	uint64_t shoff;
	uint16_t shentsize;
	const char *shstrtab; /* section names; NULL when the file has none */
	size_t shstrtab_size;
};

struct coloc_elf_section {
	size_t index;
	const char *name; /* "" when unnamed or the name is out of bounds */
	uint32_t type;
	uint64_t flags;
	uint64_t addr;
	uint64_t offset;
	uint64_t size;
	uint32_t link;
	uint32_t info;
	uint64_t entsize;
	/* The contents, checked to lie inside the file; NULL for SHT_NOBITS. */
	const unsigned char *data;
};

struct coloc_elf_sym {
	const char *name; /* "" when unnamed */
	uint8_t info;     /* binding << 4 | type */
	uint8_t other;
	uint16_t shndx;
	uint64_t value;
	uint64_t size;
};

#define COLOC_STT_FUNC 2

/* True when `data` starts with the ELF magic. */
bool coloc_elf_is(const void *data, size_t size);

/*
 * Checks the ELF header and the section header table and fills `e`.
 * Returns 0, or -EINVAL after a diagnostic saying what is wrong.
 */
int coloc_elf_open(struct coloc_elf *e, const void *data, size_t size, struct coloc_diag *diag);

/* Section `index` (< e->shnum); returns 0 or -EINVAL after a diagnostic. */
int coloc_elf_section(const struct coloc_elf *e, size_t index, struct coloc_elf_section *out,
		      struct coloc_diag *diag);

/* The first section named `name`: 1 when found, 0 when absent, -EINVAL on a broken file. */
int coloc_elf_find_section(const struct coloc_elf *e, const char *name,
			   struct coloc_elf_section *out, struct coloc_diag *diag);

/*
 * Bytes the file spans by its own headers: the end of the last section,
 * segment or header table.  An ELF image padded inside a container is cut
 * back to this; returns 0 when a header points outside the buffer.
 */
size_t coloc_elf_extent(const struct coloc_elf *e);

/* Number of symbols in a SHT_SYMTAB section. */
size_t coloc_elf_symbol_count(const struct coloc_elf_section *symtab);

/* Symbol `index` of `symtab`; returns 0 or -EINVAL after a diagnostic. */
int coloc_elf_symbol(const struct coloc_elf *e, const struct coloc_elf_section *symtab,
		     size_t index, struct coloc_elf_sym *out, struct coloc_diag *diag);

/* Little-endian loads from memory the caller has bounds-checked. */
uint16_t coloc_le16(const unsigned char *p);
uint32_t coloc_le32(const unsigned char *p);
uint64_t coloc_le64(const unsigned char *p);

#endif
