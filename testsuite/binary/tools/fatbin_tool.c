/*
 * fatbin-tool: the binary readers' library API on the command line, for the
 * tests of testsuite/binary (the colocc driver shows only --list and
 * --extract-ptx).
 *
 *   fatbin-tool dump FILE             every entry, and each cubin's kernels
 *   fatbin-tool wrap [--v2] FILE      FILE (a .fatbin) through the runtime's
 *                                     wrapper API: v1 reads its first
 *                                     container, v2 the others as prelinked
 *   fatbin-tool contents FILE N OUT   write entry N's contents to OUT
 *   fatbin-tool regs CUBIN            each kernel's registers per thread
 *   fatbin-tool write OUT IMAGE...    write one container; IMAGE is
 *                                     KIND:ARCH[:COMPRESSION]:FILE with KIND
 *                                     ptx or elf, ARCH like sm_90a, and
 *                                     COMPRESSION plain, lz4 or zstd
 *
 * Exit status: 0, 1 after diagnostics, 2 on usage errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubin.h"
#include "fatbin.h"

static int usage(void)
{
	fputs("usage: fatbin-tool dump FILE | wrap [--v2] FILE | contents FILE N OUT |\n"
	      "       regs CUBIN | write OUT KIND:ARCH[:COMPRESSION]:FILE...\n", stderr);
	return 2;
}

/* FNV-1a, enough to tell contents apart in FileCheck lines. */
static unsigned long long checksum(const unsigned char *p, size_t n)
{
	unsigned long long h = 1469598103934665603ull;

	while (n--)
		h = (h ^ *p++) * 1099511628211ull;
	return h;
}

static void dump_kernels(const unsigned char *data, size_t len, struct coloc_diag *diag)
{
	struct coloc_arena arena;
	struct coloc_cubin cubin;
	size_t i;
	unsigned j;

	coloc_arena_init(&arena);
	if (coloc_cubin_read(&cubin, &arena, data, len, diag) == 0) {
		for (i = 0; i < cubin.nkernels; i++) {
			const struct coloc_cubin_kernel *k = &cubin.kernels[i];

			printf("  kernel %s params=%u bytes=%u", k->name, k->nparams, k->param_bytes);
			for (j = 0; j < k->nparams; j++)
				printf(" %u:%u:%u", k->params[j].ordinal, k->params[j].offset,
				       k->params[j].size);
			if (k->cluster_dims[0])
				printf(" cluster=%u,%u,%u", k->cluster_dims[0], k->cluster_dims[1],
				       k->cluster_dims[2]);
			if (k->explicit_cluster)
				printf(" explicit-cluster");
			if (k->max_cluster_rank)
				printf(" max-cluster-rank=%u", k->max_cluster_rank);
			if (k->cooperative)
				printf(" cooperative");
			if (k->max_threads[0])
				printf(" max-threads=%u,%u,%u", k->max_threads[0], k->max_threads[1],
				       k->max_threads[2]);
			if (k->req_threads[0])
				printf(" req-threads=%u,%u,%u", k->req_threads[0], k->req_threads[1],
				       k->req_threads[2]);
			printf("\n");
		}
	}
	coloc_arena_release(&arena);
}

static int dump(const struct coloc_fatbin *fb, struct coloc_diag *diag)
{
	static const char *const how[] = {"plain", "lz4", "zstd"};
	struct coloc_buf scratch;
	size_t i;
	int rc = 0;

	coloc_buf_init(&scratch);
	printf("entries=%zu containers=%u\n", fb->nentries, fb->ncontainers);
	for (i = 0; i < fb->nentries; i++) {
		const struct coloc_fatbin_entry *e = &fb->entries[i];
		const unsigned char *data;
		size_t len;
		char arch[32];

		coloc_fatbin_arch_name(e, e->kind == COLOC_FATBIN_PTX, arch, sizeof(arch));
		printf("entry %zu: container=%u index=%u kind=%s arch=%s compression=%s flags=0x%llx "
		       "version=0x%x", i, e->container, e->index, coloc_fatbin_kind_name(e->kind), arch,
		       how[e->compression], (unsigned long long)e->flags, e->format_version);
		if (e->section)
			printf(" section=%s", e->section);
		if (e->options)
			printf(" options='%.*s'", (int)e->options_len, e->options);
		if (e->ident_len)
			printf(" ident='%.*s'", (int)e->ident_len, e->ident);
		if (e->kind == COLOC_FATBIN_LTOIR) {
			printf(" size=%zu (stored)\n", e->payload_size);
			continue;
		}
		if (coloc_fatbin_entry_contents(fb, e, &scratch, &data, &len, diag) < 0) {
			printf(" contents=error\n");
			rc = 1;
			continue;
		}
		printf(" size=%zu sum=%016llx\n", len, checksum(data, len));
		if (e->kind == COLOC_FATBIN_ELF)
			dump_kernels(data, len, diag);
	}
	coloc_buf_release(&scratch);
	return rc || diag->nerrors ? 1 : 0;
}

static int parse_image(char *spec, struct coloc_fatbin_image *im, struct coloc_buf *data)
{
	char *kind = spec, *arch, *comp = NULL, *file, *end;

	memset(im, 0, sizeof(*im));
	arch = strchr(kind, ':');
	if (!arch)
		return -1;
	*arch++ = '\0';
	file = strchr(arch, ':');
	if (!file)
		return -1;
	*file++ = '\0';
	if (!strncmp(file, "plain:", 6) || !strncmp(file, "lz4:", 4) || !strncmp(file, "zstd:", 5)) {
		comp = file;
		file = strchr(file, ':');
		*file++ = '\0';
	}
	if (strcmp(kind, "ptx") == 0)
		im->kind = COLOC_FATBIN_PTX;
	else if (strcmp(kind, "elf") == 0)
		im->kind = COLOC_FATBIN_ELF;
	else
		return -1;
	if (strncmp(arch, "sm_", 3) != 0)
		return -1;
	im->sm = (unsigned)strtoul(arch + 3, &end, 10);
	if (*end == 'a' || *end == 'f')
		im->variant = *end++;
	if (*end)
		return -1;
	im->compression = !comp || !strcmp(comp, "plain") ? COLOC_FATBIN_PLAIN
			  : !strcmp(comp, "lz4")           ? COLOC_FATBIN_LZ4
							   : COLOC_FATBIN_ZSTD;
	if (coloc_buf_read_file(data, file) < 0) {
		fprintf(stderr, "fatbin-tool: cannot read '%s'\n", file);
		return -1;
	}
	im->data = data->data ? data->data : "";
	im->size = data->len;
	return 0;
}

static int write_cmd(int argc, char **argv, struct coloc_diag *diag)
{
	struct coloc_fatbin_image *im = calloc((size_t)argc, sizeof(*im));
	struct coloc_buf *data = calloc((size_t)argc, sizeof(*data));
	struct coloc_buf out;
	FILE *f;
	int i, rc = 1;

	coloc_buf_init(&out);
	if (!im || !data)
		goto done;
	for (i = 1; i < argc; i++) {
		if (parse_image(argv[i], &im[i - 1], &data[i - 1]) < 0) {
			rc = usage();
			goto done;
		}
	}
	if (coloc_fatbin_write(&out, im, (size_t)argc - 1, diag) < 0)
		goto done;
	f = fopen(argv[0], "wb");
	if (!f || fwrite(out.data, 1, out.len, f) != out.len || fclose(f) != 0) {
		fprintf(stderr, "fatbin-tool: cannot write '%s'\n", argv[0]);
		goto done;
	}
	rc = 0;
done:
	for (i = 0; data && i < argc; i++)
		coloc_buf_release(&data[i]);
	free(data);
	free(im);
	coloc_buf_release(&out);
	return rc;
}

/* FILE's containers through the wrapper API, as the runtime would see them in memory. */
static int wrap_cmd(const struct coloc_buf *in, int v2, struct coloc_diag *diag)
{
	struct coloc_fatbin fb, all;
	struct coloc_fatbin_wrapper w = {(int32_t)COLOC_FATBIN_WRAPPER_MAGIC, v2 ? 2 : 1, NULL, NULL};
	const void **list = NULL;
	unsigned char *copy;
	size_t i, n = 0;
	int rc = 1;

	coloc_fatbin_init(&fb);
	coloc_fatbin_init(&all);
	/* An aligned copy, so the test also runs where the file data is not. */
	copy = malloc(in->len ? in->len : 1);
	if (!copy)
		return 1;
	if (in->len)
		memcpy(copy, in->data, in->len);
	w.data = copy;
	if (v2) {
		/* The prelinked list: the container starts after the first one. */
		if (coloc_fatbin_read(&all, copy, in->len, NULL, diag) < 0)
			goto done;
		list = calloc(all.ncontainers + 1, sizeof(*list));
		if (!list)
			goto done;
		for (i = 0; i < all.nentries; i++)
			if (all.entries[i].index == 0 && all.entries[i].container > 0)
				list[n++] = copy + all.entries[i].offset - 16;
		w.filename_or_fatbins = list;
	}
	if (coloc_fatbin_read_wrapper(&fb, &w, in->len, diag) == 0)
		rc = dump(&fb, diag);
done:
	free(list);
	free(copy);
	coloc_fatbin_release(&fb);
	coloc_fatbin_release(&all);
	return rc;
}

int main(int argc, char **argv)
{
	struct coloc_diag diag;
	struct coloc_fatbin fb;
	struct coloc_buf in;
	int rc = 1;

	if (argc < 3)
		return usage();
	coloc_diag_init(&diag, argv[argc - 1], stderr);
	if (strcmp(argv[1], "write") == 0) {
		if (argc < 4)
			return usage();
		coloc_diag_init(&diag, argv[2], stderr);
		return write_cmd(argc - 2, argv + 2, &diag);
	}
	coloc_buf_init(&in);
	coloc_fatbin_init(&fb);
	if (strcmp(argv[1], "wrap") == 0) {
		int v2 = argc == 4 && strcmp(argv[2], "--v2") == 0;

		if (argc != 3 + v2)
			return usage();
		if (coloc_buf_read_file(&in, argv[argc - 1]) == 0)
			rc = wrap_cmd(&in, v2, &diag);
	} else if (strcmp(argv[1], "dump") == 0 && argc == 3) {
		if (coloc_buf_read_file(&in, argv[2]) == 0 &&
		    coloc_fatbin_read_image(&fb, in.data ? in.data : "", in.len, &diag) == 0)
			rc = dump(&fb, &diag);
	} else if (strcmp(argv[1], "regs") == 0 && argc == 3) {
		struct coloc_arena arena;
		struct coloc_cubin cubin;

		coloc_arena_init(&arena);
		if (coloc_buf_read_file(&in, argv[2]) == 0 &&
		    coloc_cubin_read(&cubin, &arena, in.data, in.len, &diag) == 0) {
			for (size_t i = 0; i < cubin.nkernels; i++)
				printf("%s regs=%u\n", cubin.kernels[i].name, cubin.kernels[i].registers);
			rc = 0;
		}
		coloc_arena_release(&arena);
	} else if (strcmp(argv[1], "contents") == 0 && argc == 5) {
		const unsigned char *data;
		size_t len, n = strtoul(argv[3], NULL, 10);
		struct coloc_buf scratch;
		FILE *f;

		coloc_diag_init(&diag, argv[2], stderr);
		coloc_buf_init(&scratch);
		if (coloc_buf_read_file(&in, argv[2]) == 0 &&
		    coloc_fatbin_read_image(&fb, in.data ? in.data : "", in.len, &diag) == 0 &&
		    n < fb.nentries &&
		    coloc_fatbin_entry_contents(&fb, &fb.entries[n], &scratch, &data, &len, &diag) == 0 &&
		    (f = fopen(argv[4], "wb"))) {
			rc = (len && fwrite(data, 1, len, f) != len) || fclose(f) != 0;
		}
		coloc_buf_release(&scratch);
	} else {
		return usage();
	}
	coloc_buf_release(&in);
	coloc_fatbin_release(&fb);
	return rc;
}
