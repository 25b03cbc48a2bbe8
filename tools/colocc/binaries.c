/*
 * colocc on binaries: --list, --extract-ptx and --aot over ELF executables,
 * shared objects and objects, .fatbin files and cubins.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aot.h"
#include "binaries.h"
#include "cubin.h"
#include "driver.h"
#include "fatbin.h"
#include "pass.h"
#include "ptx.h"

int input_load(const char *path, struct input_bytes *in)
{
	struct stat st;
	int fd;

	memset(in, 0, sizeof(*in));
	coloc_buf_init(&in->buf);
	if (strcmp(path, "-") != 0 && (fd = open(path, O_RDONLY)) >= 0) {
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
			in->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
			if (in->map != MAP_FAILED) {
				close(fd);
				in->data = in->map;
				in->size = (size_t)st.st_size;
				return 0;
			}
			in->map = NULL;
		}
		close(fd);
	}
	if (read_input(path, &in->buf) < 0)
		return -1;
	in->data = (const unsigned char *)(in->buf.data ? in->buf.data : "");
	in->size = in->buf.len;
	return 0;
}

void input_unload(struct input_bytes *in)
{
	if (in->map)
		munmap(in->map, in->size);
	coloc_buf_release(&in->buf);
}

const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (strcmp(path, "-") == 0)
		return "stdin";
	return slash ? slash + 1 : path;
}

int arch_index(struct arch_set *s, const struct coloc_fatbin_entry *e)
{
	unsigned i;

	for (i = 0; i < s->n; i++)
		if (s->arch[i].sm == e->sm && s->arch[i].variant == e->variant)
			return (int)i;
	if (s->n == MAX_ARCHS)
		return -1;
	memset(&s->arch[s->n], 0, sizeof(s->arch[0]));
	s->arch[s->n].sm = e->sm;
	s->arch[s->n].variant = e->variant;
	return (int)s->n++;
}

/* BASE.compute_XX.N.ptx: what --extract-ptx writes, and the name PTX diagnostics carry. */
void ptx_file_name(struct coloc_buf *b, const char *input, struct arch_set *archs,
			  const struct coloc_fatbin_entry *e, int arch)
{
	char name[32];

	coloc_fatbin_arch_name(e, true, name, sizeof(name));
	coloc_buf_printf(b, "%s.%s.%u.ptx", base_name(input), name, ++archs->nptx[arch]);
}

/* The entry's architecture index in `s`; -1 after a diagnostic when the set is full. */
int entry_arch(struct arch_set *s, const struct coloc_fatbin_entry *e,
		      struct coloc_diag *diag)
{
	int arch = arch_index(s, e);

	if (arch < 0)
		coloc_error(diag, PTX_NOLOC, "more than %d architectures in one file", MAX_ARCHS);
	return arch;
}

/* A PTX file rather than a binary: named .ptx (or on standard input), without a binary's magic. */
bool is_ptx_file(const char *input, const struct input_bytes *in)
{
	struct coloc_buf probe = {.data = (char *)in->data, .len = in->size};

	return (has_suffix(input, ".ptx") || strcmp(input, "-") == 0) && !is_binary(&probe);
}

/* Entries of a binary, with the diagnostics about it; returns 0 or 1. */
static int binary_open(const char *input, struct input_bytes *in, struct coloc_fatbin *fb,
		       struct coloc_diag *diag)
{
	coloc_fatbin_init(fb);
	if (input_load(input, in) < 0)
		return 1;
	return coloc_fatbin_read_image(fb, in->data, in->size, diag) < 0 ? 1 : 0;
}

/* Says which entry a diagnostic was about. */
void entry_note(struct coloc_diag *diag, const struct coloc_fatbin *fb,
		       const struct coloc_fatbin_entry *e)
{
	char arch[32];

	if (fb->form == COLOC_BINARY_CUBIN)
		return;
	coloc_fatbin_arch_name(e, e->kind != COLOC_FATBIN_ELF, arch, sizeof(arch));
	coloc_note(diag, PTX_NOLOC, "in the %s %s entry at offset 0x%zx%s%s", arch,
		   coloc_fatbin_kind_name(e->kind), e->offset, e->section ? " of section " : "",
		   e->section ? e->section : "");
}

/* An entry's contents, with a note naming the entry when they cannot be had. */
int entry_read(const struct coloc_fatbin *fb, const struct coloc_fatbin_entry *e,
		      struct coloc_buf *scratch, const unsigned char **data, size_t *len,
		      struct coloc_diag *diag)
{
	if (coloc_fatbin_entry_contents(fb, e, scratch, data, len, diag) == 0)
		return 0;
	entry_note(diag, fb, e);
	return -1;
}

static int extract_file(const struct options *o, const char *input)
{
	const char *name = strcmp(input, "-") == 0 ? "<stdin>" : input;
	struct input_bytes in;
	struct coloc_fatbin fb;
	struct coloc_diag diag;
	struct coloc_buf scratch, path;
	struct arch_set *archs = calloc(1, sizeof(*archs));
	size_t i, written = 0;
	int rc;

	coloc_buf_init(&scratch);
	coloc_buf_init(&path);
	coloc_diag_init(&diag, name, stderr);
	diag.max_errors = o->max_errors;
	rc = binary_open(input, &in, &fb, &diag);
	if (!archs) {
		coloc_error(&diag, PTX_NOLOC, "out of memory");
		rc = 1;
	}
	for (i = 0; archs && i < fb.nentries && !coloc_diag_full(&diag); i++) {
		const struct coloc_fatbin_entry *e = &fb.entries[i];
		const unsigned char *data;
		size_t len;
		struct coloc_buf text;
		int arch;

		if (e->kind != COLOC_FATBIN_PTX)
			continue;
		arch = entry_arch(archs, e, &diag);
		if (arch < 0) {
			rc = 1;
			break;
		}
		if (entry_read(&fb, e, &scratch, &data, &len, &diag) < 0) {
			rc = 1;
			continue;
		}
		path.len = 0;
		coloc_buf_printf(&path, "%s/", o->output);
		ptx_file_name(&path, input, archs, e, arch);
		/* write_output takes a buffer; this one borrows the entry's bytes. */
		text.data = (char *)data;
		text.len = len;
		if (!coloc_buf_cstr(&path) || write_output(path.data, &text) < 0) {
			rc = 1;
			break;
		}
		printf("%s\n", path.data);
		if (o->verbose)
			fprintf(stderr, "colocc: %s: %zu bytes of PTX from the entry at offset 0x%zx\n",
				path.data, len, e->offset);
		written++;
	}
	if (rc == 0 && written == 0 && fb.form == COLOC_BINARY_CUBIN)
		coloc_warning(&diag, PTX_NOLOC, "no PTX in this file: a cubin holds only SASS");
	else if (rc == 0 && written == 0)
		coloc_warning(&diag, PTX_NOLOC, "no PTX in this file: its %zu fatbin entr%s hold%s only "
			      "SASS or LTO-IR", fb.nentries, fb.nentries == 1 ? "y" : "ies",
			      fb.nentries == 1 ? "s" : "");
	fflush(stdout);
	free(archs);
	coloc_fatbin_release(&fb);
	input_unload(&in);
	coloc_buf_release(&scratch);
	coloc_buf_release(&path);
	return rc;
}

/* --aot over one input: a PTX file, or for each fatbin container the PTX entry the target uses. */
static int aot_file(const struct options *o, struct aot *a, const char *input)
{
	const char *name = strcmp(input, "-") == 0 ? "<stdin>" : input;
	struct input_bytes in;
	struct coloc_fatbin fb;
	struct coloc_diag diag, mdiag;
	struct coloc_buf scratch, origin;
	struct arch_set *archs = calloc(1, sizeof(*archs));
	size_t i, first, nmodules = 0, nnew = 0, ncached = 0, nfailed = 0, without = 0;
	int rc = 0;

	coloc_buf_init(&scratch);
	coloc_buf_init(&origin);
	coloc_diag_init(&diag, name, stderr);
	diag.max_errors = o->max_errors;
	coloc_fatbin_init(&fb);
	if (!archs) {
		coloc_error(&diag, PTX_NOLOC, "out of memory");
		return 1;
	}
	if (has_suffix(input, ".cu")) {
		coloc_error(&diag, PTX_NOLOC, "--aot reads PTX and binaries; compile CUDA sources with "
			    "nvcc first, or transform them with 'colocc --passes=...'");
		free(archs);
		return 1;
	}
	if (input_load(input, &in) < 0) {
		free(archs);
		return 1;
	}
	if (is_ptx_file(input, &in)) {
		int r;

		nmodules = 1;
		coloc_diag_init(&mdiag, name, stderr);
		mdiag.max_errors = o->max_errors;
		r = aot_module(a, name, NULL, 0, (const char *)in.data, in.size, &mdiag);
		nnew += r == 0;
		ncached += r == 1;
		nfailed += r < 0;
		goto done;
	}
	if (coloc_fatbin_read_image(&fb, in.data, in.size, &diag) < 0) {
		rc = 1;
		goto out;
	}
	/* A container's entries are contiguous; each container is one module to the driver. */
	for (first = 0; first < fb.nentries; first = i) {
		const struct coloc_fatbin_entry *pick;

		for (i = first; i < fb.nentries && fb.entries[i].container == fb.entries[first].container;
		     i++)
			;
		pick = coloc_fatbin_pick_ptx(&fb.entries[first], i - first, a->o.target.sm,
					     a->o.target.variant);
		if (!pick) {
			without++;
			continue;
		}
		for (size_t k = first; k < i; k++) {
			const struct coloc_fatbin_entry *e = &fb.entries[k];
			const unsigned char *data;
			size_t len;
			int arch, r;

			if (e->kind != COLOC_FATBIN_PTX)
				continue;
			/* Named as --extract-ptx names the same entry. */
			arch = entry_arch(archs, e, &diag);
			if (arch < 0) {
				rc = 1;
				goto done;
			}
			origin.len = 0;
			ptx_file_name(&origin, input, archs, e, arch);
			if (e != pick)
				continue;
			nmodules++;
			if (entry_read(&fb, e, &scratch, &data, &len, &diag) < 0) {
				nfailed++;
				continue;
			}
			if (!coloc_buf_cstr(&origin)) {
				coloc_error(&diag, PTX_NOLOC, "out of memory");
				rc = 1;
				goto done;
			}
			coloc_diag_init(&mdiag, origin.data, stderr);
			mdiag.max_errors = o->max_errors;
			r = aot_module(a, origin.data, e->options, e->options_len, (const char *)data,
				       len, &mdiag);
			if (r < 0)
				entry_note(&mdiag, &fb, e);
			nnew += r == 0;
			ncached += r == 1;
			nfailed += r < 0;
		}
	}
done:
	if (nfailed)
		rc = 1;
	if (fb.form == COLOC_BINARY_CUBIN)
		coloc_warning(&diag, PTX_NOLOC, "no PTX in this file: a cubin holds only SASS");
	else if (nmodules == 0 && rc == 0)
		coloc_warning(&diag, PTX_NOLOC, "no PTX that %s can use in this file's %zu fatbin "
			      "entr%s", o->arch, fb.nentries, fb.nentries == 1 ? "y" : "ies");
	printf("%s: %zu PTX module%s for %s: %zu to compile, %zu cached", name, nmodules,
	       nmodules == 1 ? "" : "s", o->arch, nnew, ncached);
	if (nfailed)
		printf(", %zu failed", nfailed);
	if (without && nmodules)
		printf("; %zu fatbin%s without PTX for %s", without, without == 1 ? "" : "s", o->arch);
	printf("\n");
	fflush(stdout);
out:
	free(archs);
	coloc_fatbin_release(&fb);
	input_unload(&in);
	coloc_buf_release(&scratch);
	coloc_buf_release(&origin);
	return rc;
}

static int aot(const struct options *o)
{
	struct aot_options ao = {
		.arch = o->arch,
		.cache = o->output,
		.ptxas = o->ptxas,
		.jobs = o->jobs,
		.verbose = o->verbose,
		.ptb_restart = o->ptb_restart,
		.ptb_read_copy = o->ptb_read_copy,
		.ptb_resume = o->ptb_resume,
	};
	struct coloc_diag diag;
	struct aot a;
	unsigned i;
	int status = 0;

	coloc_diag_init(&diag, "colocc", stderr);
	if (!coloc_target_parse(o->arch, &ao.target))
		return usage_error("--aot compiles for a GPU: -arch=sm_XX (sm_90, sm_90a, ...), "
				   "not '%s'", o->arch);
	if (ao.jobs == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		ao.jobs = n > 0 && n < 256 ? (unsigned)n : 1;
	}
	if (aot_init(&a, &ao, &diag) < 0) {
		aot_release(&a);
		return 1;
	}
	for (i = 0; i < o->ninputs; i++)
		if (aot_file(o, &a, o->inputs[i]))
			status = 1;
	if (aot_finish(&a))
		status = 1;
	printf("colocc: %s: %u modules: %u compiled, %u cached, %u failed; compiled %zu kernels: "
	       "%zu sliced, %zu persistent, %zu with a refusal\n",
	       o->arch, a.st.modules, a.st.compiled, a.st.cached, a.st.failed, a.st.kernels,
	       a.st.sliced, a.st.persistent, a.st.refused);
	fflush(stdout);
	aot_release(&a);
	return status;
}

int binaries(const struct options *o)
{
	unsigned i;
	int status = 0;

	if (o->mode == MODE_AOT)
		return aot(o);

	if (o->mode == MODE_EXTRACT_PTX) {
		if (!is_directory(o->output) && mkdir(o->output, 0777) != 0) {
			fprintf(stderr, "colocc: error: cannot create directory '%s': %s\n", o->output,
				strerror(errno));
			return 1;
		}
		for (i = 0; i < o->ninputs; i++)
			if (extract_file(o, o->inputs[i]))
				status = 1;
		return status;
	}
	return list_files(o);
}

