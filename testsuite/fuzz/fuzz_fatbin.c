/*
 * libFuzzer target for the binary readers: the input goes through
 * coloc_fatbin_read_image (fatbin, host ELF or cubin), through the wrapper
 * API as the runtime would see it, and every entry's contents are inflated
 * and, for cubins, read for kernels.
 *
 * It also checks the writer's promise on every input the reader accepts:
 * writing the PTX and cubin entries back into a container and reading that
 * gives the same kinds, architectures and contents.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubin.h"
#include "fatbin.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* Small enough that a hostile size field cannot exhaust the fuzzer's memory. */
#define FUZZ_MAX_ENTRY (16u << 20)

static void read_all(const struct coloc_fatbin *fb, struct coloc_diag *diag)
{
	struct coloc_buf scratch;
	size_t i;

	coloc_buf_init(&scratch);
	for (i = 0; i < fb->nentries; i++) {
		const unsigned char *p;
		size_t n;

		if (coloc_fatbin_entry_contents(fb, &fb->entries[i], &scratch, &p, &n, diag) < 0)
			continue;
		if (fb->entries[i].kind == COLOC_FATBIN_ELF) {
			struct coloc_arena arena;
			struct coloc_cubin cubin;

			coloc_arena_init(&arena);
			coloc_cubin_read(&cubin, &arena, p, n, diag);
			coloc_arena_release(&arena);
		}
	}
	coloc_buf_release(&scratch);
}

/* Writes the PTX and cubin entries of fb into a new container and compares. */
static void round_trip(const struct coloc_fatbin *fb, struct coloc_diag *diag)
{
	struct coloc_fatbin_image *im = calloc(fb->nentries + 1, sizeof(*im));
	struct coloc_buf *held = calloc(fb->nentries + 1, sizeof(*held));
	struct coloc_buf out, scratch;
	struct coloc_fatbin back;
	size_t i, n = 0, k;

	coloc_buf_init(&out);
	coloc_buf_init(&scratch);
	coloc_fatbin_init(&back);
	if (!im || !held)
		goto done;
	for (i = 0; i < fb->nentries; i++) {
		const struct coloc_fatbin_entry *e = &fb->entries[i];
		const unsigned char *p;
		size_t len;

		if (e->kind != COLOC_FATBIN_PTX && e->kind != COLOC_FATBIN_ELF)
			continue;
		if (coloc_fatbin_entry_contents(fb, e, &scratch, &p, &len, diag) < 0)
			goto done; /* not accepted as a whole: nothing to compare */
		coloc_buf_init(&held[n]);
		coloc_buf_put(&held[n], p, len);
		if (held[n].failed)
			goto done;
		im[n].kind = (enum coloc_fatbin_kind)e->kind;
		im[n].sm = e->sm;
		im[n].variant = e->variant;
		im[n].data = held[n].data ? held[n].data : "";
		im[n].size = held[n].len;
		im[n].compression = (enum coloc_fatbin_compression)(i % 3);
		n++;
	}
	/* The writer refuses some contents (NULs in PTX, non-CUDA ELF); that is fine. */
	if (n == 0 || coloc_fatbin_write(&out, im, n, diag) < 0)
		goto done;
	if (coloc_fatbin_read(&back, out.data, out.len, NULL, diag) < 0 || back.nentries != n) {
		fprintf(stderr, "writer output does not read back (%zu entries)\n", back.nentries);
		abort();
	}
	for (k = 0; k < n; k++) {
		const unsigned char *p;
		size_t len;

		if (coloc_fatbin_entry_contents(&back, &back.entries[k], &scratch, &p, &len, diag) < 0 ||
		    back.entries[k].kind != (unsigned)im[k].kind || back.entries[k].sm != im[k].sm ||
		    back.entries[k].variant != im[k].variant) {
			fprintf(stderr, "entry %zu differs after writing\n", k);
			abort();
		}
		/*
		 * A cubin comes back cut to the extent its headers give, or with
		 * the container's padding when they give none.
		 */
		if (im[k].kind == COLOC_FATBIN_PTX ? len != im[k].size
						   : len > ((im[k].size + 7) & ~(size_t)7)) {
			fprintf(stderr, "entry %zu: %zu bytes written, %zu read back\n", k, im[k].size,
				len);
			abort();
		}
		if (len > im[k].size)
			len = im[k].size;
		if (len && memcmp(p, im[k].data, len) != 0) {
			fprintf(stderr, "entry %zu: contents differ after writing\n", k);
			abort();
		}
	}
done:
	for (i = 0; held && i < n; i++)
		coloc_buf_release(&held[i]);
	free(held);
	free(im);
	coloc_buf_release(&out);
	coloc_buf_release(&scratch);
	coloc_fatbin_release(&back);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct coloc_diag diag;
	struct coloc_fatbin fb;
	unsigned char *copy;

	coloc_diag_init(&diag, "fuzz", NULL);
	diag.max_errors = 0;
	coloc_fatbin_init(&fb);
	fb.max_entry_size = FUZZ_MAX_ENTRY;
	if (coloc_fatbin_read_image(&fb, data, size, &diag) == 0) {
		read_all(&fb, &diag);
		round_trip(&fb, &diag);
	}
	coloc_fatbin_release(&fb);

	/*
	 * The wrapper path, on an exact-size copy so that ASan sees any read
	 * past the bound: v1 on the input, v2 with the input as its one
	 * prelinked fatbin too.
	 */
	copy = malloc(size ? size : 1);
	if (copy && size >= 16) {
		const void *list[2] = {copy, NULL};
		struct coloc_fatbin_wrapper w = {(int32_t)COLOC_FATBIN_WRAPPER_MAGIC, 1, copy, NULL};

		memcpy(copy, data, size);
		coloc_fatbin_init(&fb);
		fb.max_entry_size = FUZZ_MAX_ENTRY;
		if (coloc_fatbin_read_wrapper(&fb, &w, size, &diag) == 0)
			read_all(&fb, &diag);
		coloc_fatbin_release(&fb);
		w.version = 2;
		w.filename_or_fatbins = list;
		coloc_fatbin_init(&fb);
		fb.max_entry_size = FUZZ_MAX_ENTRY;
		coloc_fatbin_read_wrapper(&fb, &w, size, &diag);
		coloc_fatbin_release(&fb);
	}
	free(copy);
	return 0;
}
