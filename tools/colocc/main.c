/*
 * colocc: the compiler driver.  Reads PTX (or CUDA C++ through NVRTC), runs
 * passes and writes the result; lists and extracts the kernels of binaries.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "coloc/version.h"
#include "driver.h"
#include "nvrtc.h"
#include "pass.h"
#include "ptx.h"

static const char usage_text[] =
	"usage: colocc [options] FILE...\n"
	"\n"
	"Reads PTX (.ptx) or CUDA C++ (.cu, compiled in-process with NVRTC), runs the\n"
	"requested passes and writes canonical PTX.\n"
	"\n"
	"Output:\n"
	"  -o FILE             write the result to FILE (default, and with -o -: standard\n"
	"                      output);\n"
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
	"  --ptb-restart       persistent variants can give up a stopped block at its next\n"
	"                      barrier, when it has written nothing outside its block, and\n"
	"                      run it again later (costs time at every barrier; the runtime's\n"
	"                      COLOC_RESTART=1, its default); the default with --aot\n"
	"  --no-ptb-restart    persistent variants finish a stopped block (the default with\n"
	"                      --passes; with --aot, the runtime's COLOC_RESTART=0)\n"
	"  --ptb-stop-read=load|copy\n"
	"                      with --ptb-restart, how a block's leader reads the stop\n"
	"                      word after each barrier: a load waited for at the next\n"
	"                      barrier (load, the default), or, from sm_80 and PTX 7.0 in\n"
	"                      kernels without cp.async of their own, a cp.async into\n"
	"                      shared memory waited for at the next barrier (copy; the\n"
	"                      runtime's COLOC_STOP_READ=copy; not the default: faster on\n"
	"                      K-loop GEMMs, slower on some kernels, see docs/passes.md)\n"
	"  --ptb-resume        persistent variants take a save area (the\n"
	"                      __coloc_save parameter); given one, a block given up at a\n"
	"                      stop saves its live registers and shared memory and is\n"
	"                      resumed where it stopped (implies --ptb-restart; the\n"
	"                      runtime's COLOC_RESUME=1, its default; docs/passes.md);\n"
	"                      the default with --aot, unless --no-ptb-restart\n"
	"  --no-ptb-resume     persistent variants run blocks given up again from their\n"
	"                      start (the default with --passes; with --aot, the\n"
	"                      runtime's COLOC_RESUME=0)\n"
	"  --explain           print, per kernel, what the analysis found, whether each\n"
	"                      form applies (or why not), and the registers live after\n"
	"                      each CTA barrier; alone, implies --emit=none\n"
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
	"  --list              print one line per kernel of binaries and .ptx files,\n"
	"                      tab-separated: file, kernel, SASS architectures, PTX\n"
	"                      architectures, and whether slice and ptb apply: 'yes',\n"
	"                      'no (REASON)', or '-' when there is no PTX; -o FILE\n"
	"                      writes the list to FILE\n"
	"  --extract-ptx       write every embedded PTX module into the directory\n"
	"                      given by -o, as FILE.compute_XX.N.ptx, and print the\n"
	"                      paths written\n"
	"\n";

static const char usage_aot[] =
	"Ahead of deployment:\n"
	"  --aot -arch=sm_XX -o CACHE FILE...\n"
	"                      for every PTX module of the FILEs (PTX files; in binaries,\n"
	"                      per fatbin the PTX entry an sm_XX GPU would use), run\n"
	"                      slice, unisync and ptb, compile the result with ptxas and\n"
	"                      store cubin, fatbin, PTX and manifest in CACHE under a key\n"
	"                      hashed from the PTX, its ptxas options, the target and the\n"
	"                      colocc version.  Modules already in CACHE are not redone.\n"
	"                      Persistent variants are made as with --ptb-resume, as the\n"
	"                      runtime makes them by default; --no-ptb-resume and\n"
	"                      --no-ptb-restart make the others, which the runtime also\n"
	"                      uses when it has no variants of its own kind (a cache of\n"
	"                      any kind is found).  Refused transformations are counted, not\n"
	"                      errors (-v shows them)\n"
	"  -j N, --jobs=N      --aot: run up to N ptxas at once; --list: read entries\n"
	"                      on N threads (default: one per CPU)\n"
	"  --ptxas=PATH        the ptxas to use (default: $CUDA_HOME/bin, then the PATH,\n"
	"                      then /usr/local/cuda/bin)\n"
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
	fputs(usage_aot, f);
	fputs("\nPasses:\n", f);
	for (i = 0; i < n; i++)
		fprintf(f, "  %-18s  %s\n", r[i].name, r[i].summary);
}

int usage_error(const char *fmt, const char *arg)
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

int has_suffix(const char *s, const char *suffix)
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
	o->ptb_restart = -1;
	o->ptb_resume = -1;
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
		} else if (strcmp(a, "--list") == 0 || strcmp(a, "--extract-ptx") == 0 ||
			   strcmp(a, "--aot") == 0) {
			enum mode m = a[2] == 'l' ? MODE_LIST : a[2] == 'e' ? MODE_EXTRACT_PTX : MODE_AOT;

			if (o->mode != MODE_COMPILE && o->mode != m)
				return usage_error("%s", "--list, --extract-ptx and --aot are separate "
						   "commands");
			o->mode = m;
		} else if (strncmp(a, "--ptxas", 7) == 0 &&
			   (v = option_value(argc, argv, &i, "--ptxas"))) {
			o->ptxas = v;
		} else if ((strncmp(a, "-j", 2) == 0 && (v = option_value(argc, argv, &i, "-j"))) ||
			   (strncmp(a, "--jobs", 6) == 0 &&
			    (v = option_value(argc, argv, &i, "--jobs")))) {
			char *end;
			unsigned long n = strtoul(v, &end, 10);

			if (*v < '0' || *v > '9' || *end != '\0' || n < 1 || n > 1024)
				return usage_error("-j needs a number of jobs from 1 to 1024, not '%s'", v);
			o->jobs = (unsigned)n;
		} else if (strcmp(a, "--verify") == 0) {
			o->verify = 1;
		} else if (strcmp(a, "--ptb-restart") == 0) {
			o->ptb_restart = 1;
		} else if (strcmp(a, "--no-ptb-restart") == 0) {
			o->ptb_restart = 0;
		} else if (strcmp(a, "--ptb-resume") == 0) {
			o->ptb_resume = 1;
		} else if (strcmp(a, "--no-ptb-resume") == 0) {
			o->ptb_resume = 0;
		} else if (strncmp(a, "--ptb-stop-read", 15) == 0 &&
			   (v = option_value(argc, argv, &i, "--ptb-stop-read"))) {
			if (strcmp(v, "load") == 0)
				o->ptb_read_copy = 0;
			else if (strcmp(v, "copy") == 0)
				o->ptb_read_copy = 1;
			else
				return usage_error("unknown --ptb-stop-read '%s'; expected load or copy",
						   v);
			o->ptb_read_said = 1;
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
			o->output = strcmp(v, "-") == 0 ? NULL : v; /* "-": standard output */
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
		return usage_error("%s", "--list, --extract-ptx and --aot take no --passes, "
				   "--explain, --manifest or --verify");
	if ((o->mode == MODE_LIST || o->mode == MODE_EXTRACT_PTX) && o->ptb_restart >= 0)
		return usage_error("%s", "--ptb-restart and --no-ptb-restart go with compiling "
				   "(--passes) and --aot");
	if ((o->mode == MODE_LIST || o->mode == MODE_EXTRACT_PTX) && o->ptb_read_said)
		return usage_error("%s", "--ptb-stop-read goes with compiling (--passes) and --aot");
	if (o->ptb_resume >= 0 && o->mode != MODE_COMPILE && o->mode != MODE_AOT)
		return usage_error("%s", "--ptb-resume and --no-ptb-resume go with compiling "
				   "(--passes) and --aot");
	if (o->ptb_resume == 1 && o->ptb_restart == 0)
		return usage_error("%s", "--ptb-resume resumes blocks that are given up: it does not "
				   "go with --no-ptb-restart");
	if (o->ptb_resume == 1)
		o->ptb_restart = 1;
	/*
	 * Unsaid: on for --aot, as the runtime (COLOC_RESTART=1 and
	 * COLOC_RESUME=1), off for --passes; --aot --no-ptb-restart has no blocks
	 * given up, so none resumed.
	 */
	if (o->ptb_restart < 0)
		o->ptb_restart = o->mode == MODE_AOT;
	if (o->ptb_resume < 0)
		o->ptb_resume = o->mode == MODE_AOT && o->ptb_restart;
	if (o->ptb_read_copy && !o->ptb_restart)
		return usage_error("%s", "--ptb-stop-read=copy is how blocks that can be given up "
				   "read the stop word: it needs --ptb-restart (or --aot without "
				   "--no-ptb-restart)");
	if (o->mode != MODE_AOT && o->mode != MODE_LIST && o->jobs)
		return usage_error("%s", "-j goes with --list and --aot");
	if (o->mode != MODE_AOT && o->ptxas)
		return usage_error("%s", "--ptxas goes with --aot");
	if (o->mode == MODE_EXTRACT_PTX && !o->output)
		return usage_error("%s", "--extract-ptx needs '-o DIRECTORY'");
	if (o->mode == MODE_AOT && !o->output)
		return usage_error("%s", "--aot needs '-o CACHE', the cache directory");
	if (o->mode == MODE_AOT && !o->arch)
		return usage_error("%s", "--aot needs the target GPU, e.g. -arch=sm_90");
	if (o->mode == MODE_AOT && o->nnvrtc)
		return usage_error("%s", "--aot reads no CUDA sources: -I, -D and --nvrtc-opt do not "
				   "apply");
	if (o->explain && !o->output && o->emit == EMIT_PTX)
		o->emit = EMIT_NONE;
	if (o->manifest && o->ninputs > 1)
		return usage_error("%s", "--manifest names one file; with several inputs, each "
			       "manifest goes next to its output");
	return 0;
}

int is_directory(const char *path)
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

int write_output(const char *path, const struct coloc_buf *b)
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

int read_input(const char *path, struct coloc_buf *b)
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

int is_binary(const struct coloc_buf *b)
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
			    "(.cu) here (--list, --extract-ptx and --aot read binaries)");
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
	pctx.ptb_restart = o->ptb_restart;
	pctx.ptb_read_copy = o->ptb_read_copy;
	pctx.ptb_resume = o->ptb_resume;
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

int main(int argc, char **argv)
{
	struct options o;
	int rc = parse_args(argc, argv, &o);

	if (rc == 0)
		rc = run(&o);
	options_release(&o);
	return rc;
}
