/*
 * colocc: the compiler driver.  Reads PTX (or CUDA C++ through NVRTC), runs
 * passes and writes the result; lists and extracts the kernels of binaries.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "coloc/version.h"
#include "cubin.h"
#include "fatbin.h"
#include "nvrtc.h"
#include "pass.h"
#include "ptx.h"

enum emit {
	EMIT_PTX,
	EMIT_NONE,
};

enum mode {
	MODE_COMPILE,
	MODE_LIST,        /* --list */
	MODE_EXTRACT_PTX, /* --extract-ptx */
};

struct options {
	enum mode mode;
	const char *output;
	const char *manifest;
	int explain;
	const char *passes;
	const char *arch;
	enum emit emit;
	int verify;
	int verbose;
	int lineinfo;
	int debug;
	unsigned max_errors;
	const char **nvrtc_opts;
	unsigned nnvrtc;
	const char **inputs;
	unsigned ninputs;
};

static const char usage_text[] =
	"usage: colocc [options] FILE...\n"
	"\n"
	"Reads PTX (.ptx) or CUDA C++ (.cu, compiled in-process with NVRTC), runs the\n"
	"requested passes and writes canonical PTX.\n"
	"\n"
	"Output:\n"
	"  -o FILE             write the result to FILE (default: standard output);\n"
	"                      with several inputs FILE must be a directory, which\n"
	"                      receives one NAME.ptx per input\n"
	"  --emit=ptx          write PTX (default)\n"
	"  --emit=none         write nothing: parse, verify and run passes only\n"
	"\n"
	"Passes:\n"
	"  --passes=NAME,...   run these passes in order (see the list below); each\n"
	"                      transformation adds a variant __coloc_<form>_<kernel> next\n"
	"                      to every kernel it applies to, or reports why it cannot\n"
	"  --verify            verify the input, and the module after every pass\n"
	"  --explain           print, per kernel, what the analysis found and whether\n"
	"                      each form applies (or why not); alone, implies --emit=none\n"
	"  --manifest=FILE     write the JSON manifest of kernels, variants and refusals;\n"
	"                      by default it goes next to -o FILE as FILE.manifest.json\n"
	"                      whenever transformation passes ran\n"
	"\n"
	"CUDA sources:\n"
	"  -arch=ARCH          target for .cu inputs, e.g. sm_90, sm_90a, compute_80\n"
	"                      (default sm_90)\n"
	"  -I DIR, -D NAME[=V] include directory and macro for .cu inputs\n"
	"  -lineinfo, -G       line information / device debug information\n"
	"  --nvrtc-opt=OPT     pass OPT to NVRTC unchanged\n"
	"\n"
	"Binaries (ELF executables, shared objects and objects, .fatbin, .cubin):\n"
	"  --list              print one line per kernel, tab-separated: file, kernel,\n"
	"                      SASS architectures, PTX architectures, and whether\n"
	"                      slice and ptb apply: 'yes', 'no (REASON)', or '-'\n"
	"                      when there is no PTX; -o FILE writes the list to FILE\n"
	"  --extract-ptx       write every embedded PTX module into the directory\n"
	"                      given by -o, as FILE.compute_XX.N.ptx, and print the\n"
	"                      paths written\n"
	"\n"
	"General:\n"
	"  --max-errors=N      stop reporting after N errors (default 20, 0: no limit)\n"
	"  -v, --verbose       report sizes and timings on standard error\n"
	"  -h, --help          show this help and exit\n"
	"  --version           show the version and exit\n"
	"\n"
	"A FILE of '-' reads PTX from standard input.  Diagnostics go to standard\n"
	"error as FILE:LINE:COL: error: MESSAGE.  Exit status: 0 on success, 1 when an\n"
	"input has errors, 2 on a command-line error, 3 when the output was written\n"
	"but some kernels were refused a requested transformation.\n";

static void usage(FILE *f)
{
	size_t i, n;
	const struct pass_info *r = pass_registry(&n);

	fputs(usage_text, f);
	fputs("\nPasses:\n", f);
	for (i = 0; i < n; i++)
		fprintf(f, "  %-18s  %s\n", r[i].name, r[i].summary);
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "colocc: error: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\ncolocc: see 'colocc --help'\n");
	return 2;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* -oFILE / -o FILE, -arch=X / -arch X: the value of an option, or NULL. */
static const char *option_value(int argc, char **argv, int *i, const char *flag)
{
	size_t n = strlen(flag);
	const char *a = argv[*i];

	if (strncmp(a, flag, n) != 0)
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n] != '\0') {
		/* Single-letter flags take an attached value: -IDIR, -ofile. */
		return n == 2 ? a + n : NULL;
	}
	if (*i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

static int parse_args(int argc, char **argv, struct options *o)
{
	int i, only_files = 0;
	const char *v;

	memset(o, 0, sizeof(*o));
	o->max_errors = 20;
	o->inputs = calloc((size_t)argc, sizeof(*o->inputs));
	o->nvrtc_opts = calloc((size_t)argc * 2, sizeof(*o->nvrtc_opts));
	if (!o->inputs || !o->nvrtc_opts) {
		fprintf(stderr, "colocc: error: out of memory\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
			o->inputs[o->ninputs++] = a;
		} else if (strcmp(a, "--") == 0) {
			only_files = 1;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			exit(0);
		} else if (strcmp(a, "--version") == 0) {
			printf("colocc %s\n", COLOC_VERSION);
			exit(0);
		} else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
			o->verbose = 1;
		} else if (strcmp(a, "--list") == 0 || strcmp(a, "--extract-ptx") == 0) {
			enum mode m = a[2] == 'l' ? MODE_LIST : MODE_EXTRACT_PTX;

			if (o->mode != MODE_COMPILE && o->mode != m)
				return usage_error("%s", "--list and --extract-ptx are separate commands");
			o->mode = m;
		} else if (strcmp(a, "--verify") == 0) {
			o->verify = 1;
		} else if (strcmp(a, "--explain") == 0) {
			o->explain = 1;
		} else if (strncmp(a, "--manifest", 10) == 0 &&
			   (v = option_value(argc, argv, &i, "--manifest"))) {
			o->manifest = v;
		} else if (strcmp(a, "-lineinfo") == 0 || strcmp(a, "--generate-line-info") == 0) {
			o->lineinfo = 1;
		} else if (strcmp(a, "-G") == 0 || strcmp(a, "--device-debug") == 0) {
			o->debug = 1;
		} else if (strncmp(a, "--emit", 6) == 0 && (v = option_value(argc, argv, &i, "--emit"))) {
			if (strcmp(v, "ptx") == 0)
				o->emit = EMIT_PTX;
			else if (strcmp(v, "none") == 0)
				o->emit = EMIT_NONE;
			else
				return usage_error("unknown --emit kind '%s'; expected ptx or none", v);
		} else if (strncmp(a, "--passes", 8) == 0 &&
			   (v = option_value(argc, argv, &i, "--passes"))) {
			o->passes = v;
		} else if (strncmp(a, "--max-errors", 12) == 0 &&
			   (v = option_value(argc, argv, &i, "--max-errors"))) {
			char *end;
			unsigned long n = strtoul(v, &end, 10);

			if (*v == '\0' || *end != '\0' || n > 100000)
				return usage_error("--max-errors needs a number up to 100000, not '%s'", v);
			o->max_errors = (unsigned)n;
		} else if (strncmp(a, "--nvrtc-opt", 11) == 0 &&
			   (v = option_value(argc, argv, &i, "--nvrtc-opt"))) {
			char *opt = strdup(v);

			if (!opt)
				return 2;
			o->nvrtc_opts[o->nnvrtc++] = opt;
		} else if ((v = option_value(argc, argv, &i, "-arch")) ||
			   (v = option_value(argc, argv, &i, "--arch")) ||
			   (v = option_value(argc, argv, &i, "--gpu-architecture"))) {
			if (!*v)
				return usage_error("%s needs a target such as sm_90", a);
			o->arch = v;
		} else if (strncmp(a, "-o", 2) == 0 && (v = option_value(argc, argv, &i, "-o"))) {
			o->output = v;
		} else if (strncmp(a, "-I", 2) == 0 && (v = option_value(argc, argv, &i, "-I"))) {
			size_t n = strlen(v) + 16;
			char *opt = malloc(n);

			if (!opt)
				return 2;
			snprintf(opt, n, "--include-path=%s", v);
			o->nvrtc_opts[o->nnvrtc++] = opt;
		} else if (strncmp(a, "-D", 2) == 0 && (v = option_value(argc, argv, &i, "-D"))) {
			size_t n = strlen(v) + 20;
			char *opt = malloc(n);

			if (!opt)
				return 2;
			snprintf(opt, n, "--define-macro=%s", v);
			o->nvrtc_opts[o->nnvrtc++] = opt;
		} else {
			return usage_error("unknown or incomplete option '%s'", a);
		}
	}
	if (o->ninputs == 0)
		return usage_error("%s", "no input files");
	if (o->mode != MODE_COMPILE && (o->passes || o->explain || o->manifest || o->verify))
		return usage_error("%s", "--list and --extract-ptx take no --passes, --explain, "
			       "--manifest or --verify");
	if (o->mode == MODE_EXTRACT_PTX && !o->output)
		return usage_error("%s", "--extract-ptx needs '-o DIRECTORY'");
	if (o->explain && !o->output && o->emit == EMIT_PTX)
		o->emit = EMIT_NONE;
	if (o->manifest && o->ninputs > 1)
		return usage_error("%s", "--manifest names one file; with several inputs, each "
			       "manifest goes next to its output");
	return 0;
}

static int is_directory(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* DIR/stem.ptx for input path/stem.ext */
static char *output_in_dir(const char *dir, const char *input)
{
	const char *base = strrchr(input, '/');
	const char *dot;
	size_t n;
	char *out;

	base = base ? base + 1 : input;
	if (strcmp(base, "-") == 0)
		base = "stdin";
	dot = strrchr(base, '.');
	n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	out = malloc(strlen(dir) + n + 6);
	if (out)
		sprintf(out, "%s/%.*s.ptx", dir, (int)n, base);
	return out;
}

static int write_output(const char *path, const struct coloc_buf *b)
{
	FILE *f = path ? fopen(path, "wb") : stdout;
	int err = 0;

	if (!f) {
		fprintf(stderr, "colocc: error: cannot write '%s': %s\n", path, strerror(errno));
		return -1;
	}
	if (b->len && fwrite(b->data, 1, b->len, f) != b->len)
		err = errno ? errno : EIO;
	if (path) {
		if (fclose(f) != 0 && !err)
			err = errno;
	} else if (fflush(f) != 0 && !err) {
		err = errno;
	}
	if (err) {
		fprintf(stderr, "colocc: error: writing '%s': %s\n", path ? path : "standard output",
			strerror(err));
		return -1;
	}
	return 0;
}

static int read_input(const char *path, struct coloc_buf *b)
{
	int err;

	if (strcmp(path, "-") == 0) {
		char tmp[65536];
		size_t n;

		while ((n = fread(tmp, 1, sizeof(tmp), stdin)) > 0)
			coloc_buf_put(b, tmp, n);
		err = ferror(stdin) ? -EIO : b->failed ? -ENOMEM : 0;
	} else {
		if (is_directory(path))
			err = -EISDIR;
		else
			err = coloc_buf_read_file(b, path);
	}
	if (err) {
		fprintf(stderr, "colocc: error: cannot read '%s': %s\n", path, strerror(-err));
		return -1;
	}
	return 0;
}

static int is_binary(const struct coloc_buf *b)
{
	static const unsigned char elf[] = {0x7f, 'E', 'L', 'F'};
	static const unsigned char fatbin[] = {0x50, 0xed, 0x55, 0xba};

	return b->len >= 4 && (memcmp(b->data, elf, 4) == 0 || memcmp(b->data, fatbin, 4) == 0);
}

static unsigned count_kind(const struct ptx_block *blk, enum ptx_stmt_kind kind)
{
	const struct ptx_stmt *s;
	unsigned n = 0;

	for (s = blk->head; s; s = s->next) {
		if (s->kind == kind)
			n++;
		if (s->kind == PTX_STMT_BLOCK)
			n += count_kind(&s->u.block, kind);
		else if (s->kind == PTX_STMT_FUNC)
			n += count_kind(&s->u.func->body, kind);
	}
	return n;
}

/* --explain: analyze every kernel (the passes analyzed only what they touched). */
static int explain(struct pass_ctx *pctx, struct ptx_module *m)
{
	struct coloc_buf report;
	size_t i;
	int rc = 0;

	if (pass_kernels_collect(m, pctx) < 0)
		return -1;
	for (i = 0; i < pctx->nkernels; i++)
		pass_kernel_analyze(pctx, &pctx->kernels[i]);
	coloc_buf_init(&report);
	pass_explain(pctx, &report);
	if (report.failed || (report.len && fwrite(report.data, 1, report.len, stdout) != report.len))
		rc = -1;
	fflush(stdout);
	coloc_buf_release(&report);
	return rc;
}

/* The manifest goes to --manifest, or next to the PTX output as NAME.manifest.json. */
static int write_manifest(const struct options *o, const struct pass_ctx *pctx, const char *output)
{
	struct coloc_buf json, path;
	const char *dest = o->manifest;
	const char *base;
	int rc;

	coloc_buf_init(&json);
	coloc_buf_init(&path);
	if (!dest) {
		const char *dot = strrchr(output, '.');
		const char *slash = strrchr(output, '/');

		if (dot && (!slash || dot > slash) && strcmp(dot, ".ptx") == 0)
			coloc_buf_put(&path, output, (size_t)(dot - output));
		else
			coloc_buf_puts(&path, output);
		coloc_buf_puts(&path, ".manifest.json");
		dest = coloc_buf_cstr(&path);
	}
	base = output ? strrchr(output, '/') : NULL;
	base = base ? base + 1 : output;
	rc = dest ? pass_manifest_write(pctx, base, &json) : -1;
	if (rc == 0)
		rc = write_output(dest, &json);
	coloc_buf_release(&json);
	coloc_buf_release(&path);
	return rc;
}

static int process(const struct options *o, const char *input, const char *output)
{
	struct coloc_diag diag;
	struct coloc_buf text, ptx, out;
	struct ptx_module *m = NULL;
	struct pass_ctx pctx;
	const char *name = strcmp(input, "-") == 0 ? "<stdin>" : input;
	double t0, t_parse = 0, t_passes = 0, t_print = 0;
	int rc = 1;

	coloc_diag_init(&diag, name, stderr);
	diag.max_errors = o->max_errors;
	pass_ctx_init(&pctx, &diag);
	coloc_buf_init(&text);
	coloc_buf_init(&ptx);
	coloc_buf_init(&out);
	if (read_input(input, &text) < 0)
		goto out;

	if (has_suffix(input, ".cu")) {
		struct coloc_nvrtc_opts nopts = {
			.arch = o->arch,
			.extra = o->nvrtc_opts,
			.nextra = o->nnvrtc,
			.lineinfo = o->lineinfo,
			.debug = o->debug,
		};

		t0 = now();
		if (coloc_nvrtc_compile(text.data ? text.data : "", text.len, name, &nopts, &ptx,
					&diag) < 0)
			goto out;
		if (o->verbose)
			fprintf(stderr, "colocc: %s: NVRTC produced %zu bytes of PTX in %.3f s\n", name,
				ptx.len, now() - t0);
		/* PTX positions now refer to NVRTC's output, not to the .cu file. */
		coloc_diag_init(&diag, name, stderr);
		diag.max_errors = o->max_errors;
	} else if (is_binary(&text)) {
		coloc_error(&diag, PTX_NOLOC,
			    "this is an ELF or fatbin file; colocc reads PTX (.ptx) and CUDA C++ "
			    "(.cu) here (--list and --extract-ptx read binaries)");
		goto out;
	} else {
		ptx = text;
		coloc_buf_init(&text);
	}

	t0 = now();
	if (coloc_buf_reserve(&ptx, 2) < 0) {
		coloc_error(&diag, PTX_NOLOC, "out of memory");
		goto out;
	}
	ptx.data[ptx.len] = ptx.data[ptx.len + 1] = '\0';
	m = ptx_parse_inplace(ptx.data, ptx.len, name, &diag);
	t_parse = now() - t0;
	if (!m)
		goto out;
	if (o->verify && ptx_module_verify(m, &diag))
		goto out;
	pass_ctx_init(&pctx, &diag);
	pctx.verify_each = o->verify;
	pctx.verbose = o->verbose;
	if (o->passes) {
		t0 = now();
		if (pass_pipeline_run(m, o->passes, &pctx) < 0)
			goto out;
		t_passes = now() - t0;
	}
	if (o->explain && explain(&pctx, m) < 0)
		goto out;
	if (o->emit == EMIT_PTX) {
		t0 = now();
		/* Canonical text is about as long as its input. */
		coloc_buf_reserve(&out, ptx.len + ptx.len / 4);
		if (ptx_module_print(m, &out) < 0) {
			coloc_error(&diag, PTX_NOLOC, "out of memory while printing");
			goto out;
		}
		t_print = now() - t0;
		if (write_output(output, &out) < 0)
			goto out;
	}
	if (pctx.nkernels && (o->manifest || output) && write_manifest(o, &pctx, output) < 0)
		goto out;
	if (o->verbose) {
		fprintf(stderr,
			"colocc: %s: %zu bytes, %u functions, %u instructions; parse %.3f s (%.1f MB/s)",
			name, ptx.len, count_kind(&m->items, PTX_STMT_FUNC),
			count_kind(&m->items, PTX_STMT_INSN), t_parse,
			t_parse > 0 ? (double)ptx.len / t_parse / 1e6 : 0.0);
		if (o->passes)
			fprintf(stderr, ", passes %.3f s", t_passes);
		if (o->emit == EMIT_PTX)
			fprintf(stderr, ", print %.3f s", t_print);
		fprintf(stderr, "; arena %zu KiB\n", m->arena.total / 1024);
	}
	rc = diag.nerrors ? 1 : pctx.refusals ? 3 : 0;
out:
	pass_ctx_release(&pctx);
	ptx_module_free(m);
	coloc_buf_release(&text);
	coloc_buf_release(&ptx);
	coloc_buf_release(&out);
	return rc;
}

static void options_release(struct options *o)
{
	unsigned i;

	for (i = 0; o->nvrtc_opts && i < o->nnvrtc; i++)
		free((char *)o->nvrtc_opts[i]);
	free(o->nvrtc_opts);
	free(o->inputs);
}

static int run(struct options *o);

/* ---- binaries: --list and --extract-ptx */

/* A whole input: mapped when it is a regular file, read otherwise. */
struct input_bytes {
	const unsigned char *data;
	size_t size;
	void *map;
	struct coloc_buf buf;
};

static int input_load(const char *path, struct input_bytes *in)
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

static void input_unload(struct input_bytes *in)
{
	if (in->map)
		munmap(in->map, in->size);
	coloc_buf_release(&in->buf);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (strcmp(path, "-") == 0)
		return "stdin";
	return slash ? slash + 1 : path;
}

/* Architectures of one file, by (sm, variant); kernels keep them as bit sets. */
#define MAX_ARCHS 64

struct arch_set {
	unsigned n;
	struct coloc_fatbin_entry arch[MAX_ARCHS]; /* only sm and variant are used */
	unsigned nptx[MAX_ARCHS];                 /* PTX modules seen, to number them */
};

static int arch_index(struct arch_set *s, const struct coloc_fatbin_entry *e)
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
static void ptx_file_name(struct coloc_buf *b, const char *input, struct arch_set *archs,
			  const struct coloc_fatbin_entry *e, int arch)
{
	char name[32];

	coloc_fatbin_arch_name(e, true, name, sizeof(name));
	coloc_buf_printf(b, "%s.%s.%u.ptx", base_name(input), name, ++archs->nptx[arch]);
}

enum {
	FORM_SLICE,
	FORM_PTB,
	NFORMS,
};

struct listed_kernel {
	const char *name;
	uint64_t sass; /* bit i: arch i of the file */
	uint64_t ptx;
	/* Per form, after analysis of the PTX: NULL applies, else the first refusal. */
	const char *refused[NFORMS];
	bool analyzed;
};

/* Kernels of one file in the order first seen, found by name through an open-addressing table. */
struct kernel_table {
	struct coloc_arena arena; /* names and refusal reasons */
	struct listed_kernel *k;
	size_t n, cap;
	size_t *slot; /* index + 1, 0 when free */
	size_t nslots;
	struct arch_set archs;
};

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

static int table_grow(struct kernel_table *t)
{
	size_t nslots = t->nslots ? t->nslots * 2 : 256, i, j;
	size_t *slot = calloc(nslots, sizeof(*slot));
	struct listed_kernel *k = realloc(t->k, nslots / 2 * sizeof(*k));

	if (!slot || !k) {
		free(slot);
		if (k)
			t->k = k;
		return -1;
	}
	t->k = k;
	t->cap = nslots / 2;
	for (i = 0; i < t->n; i++) {
		for (j = name_hash(k[i].name) & (nslots - 1); slot[j]; j = (j + 1) & (nslots - 1))
			;
		slot[j] = i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->nslots = nslots;
	return 0;
}

static struct listed_kernel *table_get(struct kernel_table *t, const char *name)
{
	size_t j;

	if (t->n == t->cap && table_grow(t) < 0)
		return NULL;
	for (j = name_hash(name) & (t->nslots - 1); t->slot[j]; j = (j + 1) & (t->nslots - 1))
		if (strcmp(t->k[t->slot[j] - 1].name, name) == 0)
			return &t->k[t->slot[j] - 1];
	memset(&t->k[t->n], 0, sizeof(t->k[0]));
	t->k[t->n].name = coloc_arena_strndup(&t->arena, name, strlen(name));
	if (!t->k[t->n].name)
		return NULL;
	t->slot[j] = t->n + 1;
	return &t->k[t->n++];
}

static void table_release(struct kernel_table *t)
{
	coloc_arena_release(&t->arena);
	free(t->k);
	free(t->slot);
}

/* Kernels with SASS in one cubin. */
static int list_cubin(struct kernel_table *t, const unsigned char *data, size_t len, int arch,
		      struct coloc_diag *diag)
{
	struct coloc_arena arena;
	struct coloc_cubin cubin;
	size_t i;
	int rc;

	coloc_arena_init(&arena);
	rc = coloc_cubin_read(&cubin, &arena, data, len, diag);
	for (i = 0; rc == 0 && i < cubin.nkernels; i++) {
		struct listed_kernel *k = table_get(t, cubin.kernels[i].name);

		if (!k) {
			coloc_error(diag, PTX_NOLOC, "out of memory");
			rc = -1;
			break;
		}
		k->sass |= (uint64_t)1 << arch;
	}
	coloc_arena_release(&arena);
	return rc;
}

/* Kernels of one PTX module, and whether slice and ptb apply to each. */
static int list_ptx(const struct options *o, struct kernel_table *t, const unsigned char *data,
		    size_t len, int arch, const char *name)
{
	struct coloc_diag diag;
	struct ptx_module *m;
	struct pass_ctx pctx;
	size_t i;
	int rc = 0;

	/* Positions in these messages are those of the file --extract-ptx writes. */
	coloc_diag_init(&diag, name, stderr);
	diag.max_errors = o->max_errors;
	m = ptx_parse((const char *)data, len, name, &diag);
	if (!m)
		return -1;
	pass_ctx_init(&pctx, &diag);
	if (pass_kernels_collect(m, &pctx) < 0)
		rc = -1;
	for (i = 0; rc == 0 && i < pctx.nkernels; i++) {
		struct pass_kernel *pk = &pctx.kernels[i];
		struct listed_kernel *k = table_get(t, pk->func->name->str);
		static const enum pass_form forms[NFORMS] = {PASS_FORM_SLICE, PASS_FORM_PTB};
		unsigned f;

		if (!k) {
			coloc_error(&diag, PTX_NOLOC, "out of memory");
			rc = -1;
			break;
		}
		pass_kernel_analyze(&pctx, pk);
		k->ptx |= (uint64_t)1 << arch;
		/* A form applies only if it applies to every PTX module that has the kernel. */
		for (f = 0; f < NFORMS; f++) {
			const char *why = pk->refused[forms[f]];

			if (why && !k->refused[f])
				k->refused[f] = coloc_arena_strndup(&t->arena, why, strlen(why));
		}
		k->analyzed = true;
	}
	pass_ctx_release(&pctx);
	ptx_module_free(m);
	return rc;
}

static int arch_compare(const struct coloc_fatbin_entry *a, const struct coloc_fatbin_entry *b)
{
	if (a->sm != b->sm)
		return a->sm < b->sm ? -1 : 1;
	return (a->variant > b->variant) - (a->variant < b->variant);
}

/* "sm_80,sm_90a" for the bits of `mask`, in architecture order; "-" for none. */
static void arch_list(struct coloc_buf *b, const struct arch_set *s, uint64_t mask, bool virt)
{
	bool done[MAX_ARCHS] = {false};
	unsigned i, k, printed = 0;

	for (k = 0; k < s->n; k++) {
		int best = -1;
		char name[32];

		for (i = 0; i < s->n; i++)
			if (!done[i] && (mask >> i & 1) &&
			    (best < 0 || arch_compare(&s->arch[i], &s->arch[best]) < 0))
				best = (int)i;
		if (best < 0)
			break;
		done[best] = true;
		coloc_fatbin_arch_name(&s->arch[best], virt, name, sizeof(name));
		coloc_buf_printf(b, "%s%s", printed++ ? "," : "", name);
	}
	if (!printed)
		coloc_buf_putc(b, '-');
}

static void form_column(struct coloc_buf *b, const struct listed_kernel *k, unsigned f)
{
	const char *p;

	if (!k->analyzed) {
		coloc_buf_puts(b, "\t-");
		return;
	}
	if (!k->refused[f]) {
		coloc_buf_puts(b, "\tyes");
		return;
	}
	coloc_buf_puts(b, "\tno (");
	/* Columns are tab-separated, lines newline-separated: keep both out of reasons. */
	for (p = k->refused[f]; *p; p++)
		coloc_buf_putc(b, *p == '\t' || *p == '\n' ? ' ' : *p);
	coloc_buf_putc(b, ')');
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
static void entry_note(struct coloc_diag *diag, const struct coloc_fatbin *fb,
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

static int list_file(const struct options *o, const char *input, struct coloc_buf *out)
{
	const char *name = strcmp(input, "-") == 0 ? "<stdin>" : input;
	struct kernel_table t;
	struct input_bytes in;
	struct coloc_fatbin fb;
	struct coloc_diag diag;
	struct coloc_buf scratch, ptxname;
	size_t i, nltoir = 0;
	int rc;

	memset(&t, 0, sizeof(t));
	coloc_arena_init(&t.arena);
	coloc_buf_init(&scratch);
	coloc_buf_init(&ptxname);
	coloc_diag_init(&diag, name, stderr);
	diag.max_errors = o->max_errors;
	rc = binary_open(input, &in, &fb, &diag);
	for (i = 0; rc == 0 && i < fb.nentries; i++) {
		const struct coloc_fatbin_entry *e = &fb.entries[i];
		const unsigned char *data;
		size_t len;
		int arch, bad;

		if (e->kind == COLOC_FATBIN_LTOIR)
			nltoir++;
		if (e->kind != COLOC_FATBIN_ELF && e->kind != COLOC_FATBIN_PTX)
			continue;
		arch = arch_index(&t.archs, e);
		if (arch < 0) {
			coloc_error(&diag, PTX_NOLOC, "more than %d architectures in one file",
				    MAX_ARCHS);
			rc = 1;
			break;
		}
		if (coloc_fatbin_entry_contents(&fb, e, &scratch, &data, &len, &diag) < 0) {
			entry_note(&diag, &fb, e);
			rc = 1;
			continue;
		}
		if (e->kind == COLOC_FATBIN_ELF) {
			bad = list_cubin(&t, data, len, arch, &diag) < 0;
			if (bad)
				entry_note(&diag, &fb, e);
		} else {
			ptxname.len = 0;
			ptx_file_name(&ptxname, input, &t.archs, e, arch);
			bad = !coloc_buf_cstr(&ptxname) ||
			      list_ptx(o, &t, data, len, arch, ptxname.data) < 0;
		}
		if (bad)
			rc = 1;
		if (coloc_diag_full(&diag))
			break;
	}
	if (nltoir)
		coloc_note(&diag, PTX_NOLOC, "%zu LTO-IR entr%s not inspected", nltoir,
			   nltoir == 1 ? "y is" : "ies are");
	if (rc == 0 && t.n == 0 && fb.nentries)
		coloc_warning(&diag, PTX_NOLOC, "the fatbin holds no kernels");
	for (i = 0; i < t.n; i++) {
		coloc_buf_printf(out, "%s\t%s\t", input, t.k[i].name);
		arch_list(out, &t.archs, t.k[i].sass, false);
		coloc_buf_putc(out, '\t');
		arch_list(out, &t.archs, t.k[i].ptx, true);
		form_column(out, &t.k[i], FORM_SLICE);
		form_column(out, &t.k[i], FORM_PTB);
		coloc_buf_putc(out, '\n');
	}
	coloc_fatbin_release(&fb);
	input_unload(&in);
	coloc_buf_release(&scratch);
	coloc_buf_release(&ptxname);
	table_release(&t);
	return rc;
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
	for (i = 0; rc == 0 && i < fb.nentries; i++) {
		const struct coloc_fatbin_entry *e = &fb.entries[i];
		const unsigned char *data;
		size_t len;
		struct coloc_buf text;
		int arch;

		if (e->kind != COLOC_FATBIN_PTX)
			continue;
		arch = arch_index(archs, e);
		if (arch < 0) {
			coloc_error(&diag, PTX_NOLOC, "more than %d architectures in one file",
				    MAX_ARCHS);
			rc = 1;
			break;
		}
		if (coloc_fatbin_entry_contents(&fb, e, &scratch, &data, &len, &diag) < 0) {
			entry_note(&diag, &fb, e);
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

static int binaries(const struct options *o)
{
	struct coloc_buf out;
	unsigned i;
	int status = 0;

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
	coloc_buf_init(&out);
	coloc_buf_puts(&out, "# file\tkernel\tsass\tptx\tslice\tptb\n");
	for (i = 0; i < o->ninputs; i++) {
		if (list_file(o, o->inputs[i], &out))
			status = 1;
		/* Print as we go, so a long list shows progress; the file gets it whole. */
		if (!o->output && out.len) {
			if (write_output(NULL, &out) < 0)
				status = 1;
			out.len = 0;
		}
	}
	if (out.failed) {
		fprintf(stderr, "colocc: error: out of memory\n");
		status = 1;
	} else if (o->output && write_output(o->output, &out) < 0) {
		status = 1;
	}
	coloc_buf_release(&out);
	return status;
}

int main(int argc, char **argv)
{
	struct options o;
	int rc = parse_args(argc, argv, &o);

	if (rc == 0)
		rc = run(&o);
	options_release(&o);
	return rc;
}

static int run(struct options *opts)
{
	const struct options o = *opts;
	struct coloc_diag diag;
	unsigned i;
	int rc, status = 0;

	if (o.mode != MODE_COMPILE)
		return binaries(&o);
	coloc_diag_init(&diag, "colocc", stderr);
	if (o.passes && pass_pipeline_check(o.passes, &diag) < 0)
		return 2;
	if (o.ninputs > 1 && o.emit == EMIT_PTX && (!o.output || !is_directory(o.output)))
		return usage_error("%s", "several inputs need '-o DIRECTORY' (or --emit=none)");
	for (i = 0; i < o.ninputs; i++) {
		char *out = NULL;
		const char *dest = o.output;

		if (o.output && is_directory(o.output)) {
			out = output_in_dir(o.output, o.inputs[i]);
			if (!out)
				return 1;
			dest = out;
		}
		rc = process(&o, o.inputs[i], dest);
		/* An input with errors (1) outranks one with refusals (3). */
		if (rc == 1 || (rc == 3 && status == 0))
			status = rc;
		free(out);
	}
	return status;
}
