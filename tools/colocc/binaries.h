/* What the commands on binaries share (binaries.c, list.c). */
#ifndef COLOC_BINARIES_H
#define COLOC_BINARIES_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "diag.h"
#include "driver.h"
#include "fatbin.h"

/* A whole input: mapped when it is a regular file, read otherwise. */
struct input_bytes {
	const unsigned char *data;
	size_t size;
	void *map;
	struct coloc_buf buf;
};

int input_load(const char *path, struct input_bytes *in);
void input_unload(struct input_bytes *in);
/* A PTX file rather than a binary: named .ptx (or on standard input), without a binary's magic. */
bool is_ptx_file(const char *input, const struct input_bytes *in);
const char *base_name(const char *path);

/* Architectures of one file, by (sm, variant); kernels keep them as bit sets. */
#define MAX_ARCHS 64

struct arch_set {
	unsigned n;
	struct coloc_fatbin_entry arch[MAX_ARCHS]; /* only sm and variant are used */
	unsigned nptx[MAX_ARCHS];                 /* PTX modules seen, to number them */
};

int arch_index(struct arch_set *s, const struct coloc_fatbin_entry *e);
/* arch_index, with a diagnostic when the set is full. */
int entry_arch(struct arch_set *s, const struct coloc_fatbin_entry *e, struct coloc_diag *diag);
/* BASE.compute_XX.N.ptx: what --extract-ptx writes, and the name PTX diagnostics carry. */
void ptx_file_name(struct coloc_buf *b, const char *input, struct arch_set *archs,
		   const struct coloc_fatbin_entry *e, int arch);
/* Says which entry a diagnostic was about. */
void entry_note(struct coloc_diag *diag, const struct coloc_fatbin *fb,
		const struct coloc_fatbin_entry *e);
/* An entry's contents, with a note naming the entry when they cannot be had. */
int entry_read(const struct coloc_fatbin *fb, const struct coloc_fatbin_entry *e,
	       struct coloc_buf *scratch, const unsigned char **data, size_t *len,
	       struct coloc_diag *diag);

/* list.c: --list */
int list_files(const struct options *o);

#endif
