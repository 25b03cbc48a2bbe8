/*
 * ELF64 little-endian reader (see coloc_elf.h).  Only what colocc needs: the
 * header, section headers with names, and symbols.  Program headers are
 * never read: fatbins are found by section, which also works for
 * relocatable objects.
 */
#include "coloc_elf.h"

#include <errno.h>
#include <string.h>

#define EHDR_SIZE 64u
#define SHDR_SIZE 64u
#define SYM_SIZE 24u
#define SHN_XINDEX 0xffffu

uint16_t coloc_le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

uint32_t coloc_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t coloc_le64(const unsigned char *p)
{
	return (uint64_t)coloc_le32(p) | (uint64_t)coloc_le32(p + 4) << 32;
}

bool coloc_elf_is(const void *data, size_t size)
{
	return size >= 4 && memcmp(data, "\177ELF", 4) == 0;
}

/* True when [off, off + len) lies inside a buffer of `size` bytes. */
static bool in_bounds(uint64_t off, uint64_t len, size_t size)
{
	return off <= size && len <= size - off;
}

/*
 * A NUL-terminated string at `off` of a string table, or "" when there is
 * none.  A bad name is not an error: such a section cannot be one colocc
 * looks for, and the rest of the file may still be read.
 */
static const char *table_string(const char *table, size_t table_size, uint64_t off)
{
	if (!table || off >= table_size || !memchr(table + off, '\0', table_size - off))
		return "";
	return table + off;
}

static const unsigned char *shdr_at(const struct coloc_elf *e, size_t index)
{
	return e->data + e->shoff + (uint64_t)index * e->shentsize;
}

/* NULL, NOBITS and CUDA's shared-memory sections have a size but no file bytes. */
static bool occupies_file(uint32_t type)
{
	return type != 0 && type != COLOC_SHT_NOBITS && type != COLOC_SHT_CUDA_SHARED;
}

static int section_read(const struct coloc_elf *e, size_t index, struct coloc_elf_section *s,
			struct coloc_diag *diag)
{
	const unsigned char *h = shdr_at(e, index);

	memset(s, 0, sizeof(*s));
	s->index = index;
	s->type = coloc_le32(h + 4);
	s->flags = coloc_le64(h + 8);
	s->addr = coloc_le64(h + 16);
	s->offset = coloc_le64(h + 24);
	s->size = coloc_le64(h + 32);
	s->link = coloc_le32(h + 40);
	s->info = coloc_le32(h + 44);
	s->entsize = coloc_le64(h + 56);
	s->name = table_string(e->shstrtab, e->shstrtab_size, coloc_le32(h));
	/* Some sections occupy no file bytes; their offsets mean nothing. */
	if (!occupies_file(s->type))
		return 0;
	if (!in_bounds(s->offset, s->size, e->size)) {
		coloc_error(diag, PTX_NOLOC,
			    "ELF section %zu '%s': %llu bytes at offset %llu run past the end of "
			    "the file (%zu bytes)",
			    index, s->name, (unsigned long long)s->size,
			    (unsigned long long)s->offset, e->size);
		return -EINVAL;
	}
	s->data = e->data + s->offset;
	return 0;
}

int coloc_elf_open(struct coloc_elf *e, const void *data, size_t size, struct coloc_diag *diag)
{
	const unsigned char *p = data;
	uint64_t shnum;
	size_t shstrndx;

	memset(e, 0, sizeof(*e));
	if (!coloc_elf_is(data, size)) {
		coloc_error(diag, PTX_NOLOC, "not an ELF file (no \\177ELF magic)");
		return -EINVAL;
	}
	if (size < EHDR_SIZE) {
		coloc_error(diag, PTX_NOLOC, "truncated ELF file: %zu bytes, the header alone needs %u",
			    size, EHDR_SIZE);
		return -EINVAL;
	}
	if (p[4] != 2) {
		coloc_error(diag, PTX_NOLOC, "ELF class %u is not supported; colocc reads 64-bit ELF "
			    "(class 2)", p[4]);
		return -EINVAL;
	}
	if (p[5] != 1) {
		coloc_error(diag, PTX_NOLOC, "ELF data encoding %u is not supported; colocc reads "
			    "little-endian ELF (encoding 1)", p[5]);
		return -EINVAL;
	}
	e->data = p;
	e->size = size;
	e->osabi = p[7];
	e->abi_version = p[8];
	e->type = coloc_le16(p + 16);
	e->machine = coloc_le16(p + 18);
	e->flags = coloc_le32(p + 48);
	e->shoff = coloc_le64(p + 40);
	e->shentsize = coloc_le16(p + 58);
	shnum = coloc_le16(p + 60);
	shstrndx = coloc_le16(p + 62);
	if (e->shoff == 0)
		return 0; /* no section header table: nothing to find */
	/* Larger entries are allowed by the ELF specification; the first 64 bytes are read. */
	if (e->shentsize < SHDR_SIZE) {
		coloc_error(diag, PTX_NOLOC, "ELF section header size %u is too small (at least %u)",
			    e->shentsize, SHDR_SIZE);
		return -EINVAL;
	}
	if (!in_bounds(e->shoff, SHDR_SIZE, size)) {
		coloc_error(diag, PTX_NOLOC, "ELF section header table at offset %llu lies outside the "
			    "file (%zu bytes)", (unsigned long long)e->shoff, size);
		return -EINVAL;
	}
	/* Extended numbering: section 0 holds the real count and name table index. */
	if (shnum == 0)
		shnum = coloc_le64(p + e->shoff + 32);
	if (shstrndx == SHN_XINDEX)
		shstrndx = coloc_le32(p + e->shoff + 40);
	if (shnum > (size - e->shoff) / e->shentsize) {
		coloc_error(diag, PTX_NOLOC, "ELF section header table (%llu entries of %u bytes at "
			    "offset %llu) runs past the end of the file (%zu bytes)",
			    (unsigned long long)shnum, e->shentsize, (unsigned long long)e->shoff,
			    size);
		return -EINVAL;
	}
	e->shnum = (size_t)shnum;
	if (shstrndx != 0 && shstrndx < e->shnum) {
		struct coloc_elf_section s;

		if (section_read(e, shstrndx, &s, diag) < 0)
			return -EINVAL;
		if (s.data) {
			e->shstrtab = (const char *)s.data;
			e->shstrtab_size = (size_t)s.size;
		}
	}
	return 0;
}

int coloc_elf_section(const struct coloc_elf *e, size_t index, struct coloc_elf_section *out,
		      struct coloc_diag *diag)
{
	if (index >= e->shnum) {
		coloc_error(diag, PTX_NOLOC, "ELF section index %zu out of range (%zu sections)", index,
			    e->shnum);
		return -EINVAL;
	}
	return section_read(e, index, out, diag);
}

int coloc_elf_find_section(const struct coloc_elf *e, const char *name,
			   struct coloc_elf_section *out, struct coloc_diag *diag)
{
	size_t i;

	for (i = 1; i < e->shnum; i++) {
		const unsigned char *h = shdr_at(e, i);

		if (strcmp(table_string(e->shstrtab, e->shstrtab_size, coloc_le32(h)), name) != 0)
			continue;
		return section_read(e, i, out, diag) < 0 ? -EINVAL : 1;
	}
	return 0;
}

size_t coloc_elf_extent(const struct coloc_elf *e)
{
	uint64_t end = EHDR_SIZE, phoff = coloc_le64(e->data + 32);
	uint16_t phentsize = coloc_le16(e->data + 54), phnum = coloc_le16(e->data + 56);
	size_t i;

	if (e->shnum)
		end = e->shoff + (uint64_t)e->shnum * e->shentsize;
	for (i = 0; i < e->shnum; i++) {
		const unsigned char *h = shdr_at(e, i);
		uint64_t off = coloc_le64(h + 24), size = coloc_le64(h + 32);

		if (!occupies_file(coloc_le32(h + 4)))
			continue;
		if (!in_bounds(off, size, e->size))
			return 0;
		if (off + size > end)
			end = off + size;
	}
	if (phoff && phnum) {
		/* 56 bytes is the ELF64 program header; a larger entry size is allowed. */
		if (phentsize < 56 || !in_bounds(phoff, (uint64_t)phnum * phentsize, e->size))
			return 0;
		if (phoff + (uint64_t)phnum * phentsize > end)
			end = phoff + (uint64_t)phnum * phentsize;
		for (i = 0; i < phnum; i++) {
			const unsigned char *h = e->data + phoff + i * phentsize;
			uint64_t off = coloc_le64(h + 8), filesz = coloc_le64(h + 32);

			if (!in_bounds(off, filesz, e->size))
				return 0;
			if (off + filesz > end)
				end = off + filesz;
		}
	}
	return end <= e->size ? (size_t)end : 0;
}

size_t coloc_elf_symbol_count(const struct coloc_elf_section *symtab)
{
	return symtab->data ? (size_t)(symtab->size / SYM_SIZE) : 0;
}

int coloc_elf_symbol(const struct coloc_elf *e, const struct coloc_elf_section *symtab,
		     size_t index, struct coloc_elf_sym *out, struct coloc_diag *diag)
{
	struct coloc_elf_section strtab;
	const unsigned char *p;

	memset(out, 0, sizeof(*out));
	out->name = "";
	if (symtab->entsize != SYM_SIZE || index >= coloc_elf_symbol_count(symtab)) {
		coloc_error(diag, PTX_NOLOC, "ELF symbol table '%s': symbol %zu out of range or entry "
			    "size %llu (expected %u)", symtab->name, index,
			    (unsigned long long)symtab->entsize, SYM_SIZE);
		return -EINVAL;
	}
	p = symtab->data + index * SYM_SIZE;
	out->info = p[4];
	out->other = p[5];
	out->shndx = coloc_le16(p + 6);
	out->value = coloc_le64(p + 8);
	out->size = coloc_le64(p + 16);
	/* The string table is looked up per symbol: O(1), and no state to keep in sync. */
	if (symtab->link == 0 || symtab->link >= e->shnum)
		return 0;
	if (section_read(e, symtab->link, &strtab, diag) < 0)
		return -EINVAL;
	out->name = table_string((const char *)strtab.data, strtab.data ? (size_t)strtab.size : 0,
				 coloc_le32(p));
	return 0;
}
