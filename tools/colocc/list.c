/*
 * colocc --list: one line per kernel of binaries and PTX files.
 *
 * A big library holds thousands of fatbin entries (PyTorch's 21 000
 * kernels come in compressed cubins); inflating and reading them is most of
 * the work, and entries do not depend on each other.  So the entries of a
 * file are listed by up to -j threads (one per CPU by default), each with
 * its own scratch buffer, arena and diagnostics, and the results are merged
 * in entry order: the output, kernel order and messages included, is the
 * same for any -j.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binaries.h"
#include "cache.h"
#include "cubin.h"
#include "pass.h"
#include "ptx.h"

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

/* ---- one entry */

/* A kernel an entry defines, with its first refusal per form (PTX only). */
struct found {
	const char *name;
	const char *refused[NFORMS];
};

struct entry_result {
	int arch; /* index in the file's arch set; -1: an entry that is not listed */
	char *ptxname; /* PTX: the name --extract-ptx gives it, which messages carry */
	struct found *k;
	size_t n, cap;
	struct coloc_buf messages; /* diagnostics, printed in entry order */
	unsigned nerrors;
	bool failed;
	struct coloc_target target; /* a PTX file: its .target */
};

/* What a lister thread owns: names and reasons live in its arena until the file is listed. */
struct lister {
	struct coloc_arena arena;
	struct coloc_buf scratch;
};

static void capture(void *ctx, enum coloc_diag_level level, const char *line)
{
	struct coloc_buf *b = ctx;

	(void)level;
	coloc_buf_puts(b, line);
	coloc_buf_putc(b, '\n');
}

static void diag_capture(struct coloc_diag *d, const char *name, struct entry_result *r,
			 const struct options *o)
{
	coloc_diag_init(d, name, NULL);
	d->emit = capture;
	d->emit_ctx = &r->messages;
	d->max_errors = o->max_errors;
}

static struct found *found_add(struct entry_result *r, struct coloc_arena *a, const char *name)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		struct found *k = realloc(r->k, cap * sizeof(*k));

		if (!k)
			return NULL;
		r->k = k;
		r->cap = cap;
	}
	memset(&r->k[r->n], 0, sizeof(r->k[0]));
	r->k[r->n].name = coloc_arena_strndup(a, name, strlen(name));
	return r->k[r->n].name ? &r->k[r->n++] : NULL;
}

/* Kernels with SASS in one cubin. */
static int cubin_kernels(struct entry_result *r, struct lister *l, const unsigned char *data,
			 size_t len, struct coloc_diag *diag)
{
	struct coloc_arena arena;
	struct coloc_cubin cubin;
	size_t i;
	int rc;

	coloc_arena_init(&arena);
	rc = coloc_cubin_read(&cubin, &arena, data, len, diag);
	for (i = 0; rc == 0 && i < cubin.nkernels; i++)
		if (!found_add(r, &l->arena, cubin.kernels[i].name)) {
			coloc_error(diag, PTX_NOLOC, "out of memory");
			rc = -1;
		}
	coloc_arena_release(&arena);
	return rc;
}

/* Kernels of one PTX module, and why slice and ptb do not apply to each, if they do not. */
static int ptx_kernels(struct entry_result *r, struct lister *l, const struct options *o,
		       const unsigned char *data, size_t len, const char *name)
{
	static const enum pass_form forms[NFORMS] = {PASS_FORM_SLICE, PASS_FORM_PTB};
	struct coloc_diag diag;
	struct ptx_module *m;
	struct pass_ctx pctx;
	size_t i;
	int rc = 0;

	/* Positions in these messages are those of the file --extract-ptx writes. */
	diag_capture(&diag, name, r, o);
	m = ptx_parse((const char *)data, len, name, &diag);
	if (!m) {
		r->nerrors += diag.nerrors;
		return -1;
	}
	if (r->arch < 0) {
		const char *target = ptx_module_target(m);

		if (!target || !coloc_target_parse(target, &r->target)) {
			coloc_error(&diag, PTX_NOLOC, "the module's .target is %s%s%s, not an sm_XX "
				    "architecture", target ? "'" : "", target ? target : "missing",
				    target ? "'" : "");
			rc = -1;
		}
	}
	pass_ctx_init(&pctx, &diag);
	if (rc == 0 && pass_kernels_collect(m, &pctx) < 0)
		rc = -1;
	for (i = 0; rc == 0 && i < pctx.nkernels; i++) {
		struct pass_kernel *pk = &pctx.kernels[i];
		struct found *k = found_add(r, &l->arena, pk->func->name->str);
		unsigned f;

		if (!k) {
			coloc_error(&diag, PTX_NOLOC, "out of memory");
			rc = -1;
			break;
		}
		pass_kernel_analyze(&pctx, pk);
		for (f = 0; f < NFORMS; f++) {
			const char *why = pk->refused[forms[f]];

			if (why)
				k->refused[f] = coloc_arena_strndup(&l->arena, why, strlen(why));
		}
	}
	pass_ctx_release(&pctx);
	ptx_module_free(m);
	r->nerrors += diag.nerrors;
	return rc;
}

/* ---- the entries of a file, on -j threads */

struct list_work {
	const struct options *o;
	const char *name; /* the file, as messages name it */
	const struct coloc_fatbin *fb;
	struct entry_result *res;
	atomic_size_t next;
};

struct list_thread {
	pthread_t thread;
	struct list_work *w;
	struct lister l;
};

static void list_entry(struct list_work *w, struct lister *l, size_t i)
{
	const struct coloc_fatbin_entry *e = &w->fb->entries[i];
	struct entry_result *r = &w->res[i];
	const unsigned char *data;
	struct coloc_diag diag;
	size_t len;

	if (r->arch < 0)
		return;
	diag_capture(&diag, w->name, r, w->o);
	if (entry_read(w->fb, e, &l->scratch, &data, &len, &diag) < 0) {
		r->failed = true;
	} else if (e->kind == COLOC_FATBIN_ELF) {
		if (cubin_kernels(r, l, data, len, &diag) < 0) {
			entry_note(&diag, w->fb, e);
			r->failed = true;
		}
	} else if (!r->ptxname || ptx_kernels(r, l, w->o, data, len, r->ptxname) < 0) {
		r->failed = true;
	}
	r->nerrors += diag.nerrors;
}

static void *list_thread_main(void *p)
{
	struct list_thread *t = p;
	size_t n = t->w->fb->nentries, i;

	while ((i = atomic_fetch_add(&t->w->next, 1)) < n)
		list_entry(t->w, &t->l, i);
	return NULL;
}

static unsigned list_jobs(const struct options *o)
{
	long n;

	if (o->jobs)
		return o->jobs;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 && n < 256 ? (unsigned)n : 1;
}

/* Lists every entry; the calling thread works too, so one job makes no thread. */
static void list_entries(struct list_work *w, struct list_thread *t, unsigned nthreads)
{
	unsigned i, started = 0;

	for (i = 1; i < nthreads; i++) {
		t[i].w = w;
		if (pthread_create(&t[i].thread, NULL, list_thread_main, &t[i]) != 0)
			break;
		started++;
	}
	t[0].w = w;
	list_thread_main(&t[0]);
	for (i = 1; i <= started; i++)
		pthread_join(t[i].thread, NULL);
}

/* ---- merging */

/* Adds an entry's kernels to the table; a form applies only where every PTX module agrees. */
static int merge(struct kernel_table *t, const struct entry_result *r, bool ptx)
{
	size_t i;
	unsigned f;

	for (i = 0; i < r->n; i++) {
		struct listed_kernel *k = table_get(t, r->k[i].name);

		if (!k)
			return -1;
		if (!ptx) {
			k->sass |= (uint64_t)1 << r->arch;
			continue;
		}
		k->ptx |= (uint64_t)1 << r->arch;
		for (f = 0; f < NFORMS; f++)
			if (r->k[i].refused[f] && !k->refused[f])
				k->refused[f] = coloc_arena_strndup(&t->arena, r->k[i].refused[f],
								    strlen(r->k[i].refused[f]));
		k->analyzed = true;
	}
	return 0;
}

/* Prints an entry's messages while the file's error cap allows. */
static void report(struct coloc_diag *diag, struct entry_result *r)
{
	if (!r->messages.len)
		return;
	if (!coloc_diag_full(diag))
		fwrite(r->messages.data, 1, r->messages.len, stderr);
	diag->nerrors += r->nerrors;
	if (coloc_diag_full(diag) && !diag->capped) {
		fprintf(stderr, "%s: note: too many errors (%u), no more are shown\n", diag->filename,
			diag->max_errors);
		diag->capped = 1;
	}
}

static void results_release(struct entry_result *res, size_t n)
{
	size_t i;

	for (i = 0; res && i < n; i++) {
		free(res[i].ptxname);
		free(res[i].k);
		coloc_buf_release(&res[i].messages);
	}
	free(res);
}

static void kernel_lines(struct coloc_buf *out, const char *input, const struct kernel_table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		coloc_buf_printf(out, "%s\t%s\t", input, t->k[i].name);
		arch_list(out, &t->archs, t->k[i].sass, false);
		coloc_buf_putc(out, '\t');
		arch_list(out, &t->archs, t->k[i].ptx, true);
		form_column(out, &t->k[i], FORM_SLICE);
		form_column(out, &t->k[i], FORM_PTB);
		coloc_buf_putc(out, '\n');
	}
}

/* A PTX file: one module, whose .target names its architecture. */
static int list_ptx_file(const struct options *o, const char *name, const struct input_bytes *in,
			 struct kernel_table *t, struct coloc_diag *diag)
{
	struct entry_result r = {.arch = -1};
	struct lister l;
	int rc;

	coloc_arena_init(&l.arena);
	coloc_buf_init(&l.scratch);
	coloc_buf_init(&r.messages);
	rc = ptx_kernels(&r, &l, o, in->data, in->size, name) < 0;
	if (rc == 0) {
		struct coloc_fatbin_entry e = {.kind = COLOC_FATBIN_PTX, .sm = r.target.sm,
					       .variant = r.target.variant};

		r.arch = entry_arch(&t->archs, &e, diag);
		rc = r.arch < 0 || merge(t, &r, true) < 0;
	}
	report(diag, &r);
	free(r.k);
	coloc_buf_release(&r.messages);
	coloc_arena_release(&l.arena);
	coloc_buf_release(&l.scratch);
	return rc;
}

static int list_file(const struct options *o, const char *input, struct coloc_buf *out)
{
	const char *name = strcmp(input, "-") == 0 ? "<stdin>" : input;
	struct kernel_table t;
	struct input_bytes in;
	struct coloc_fatbin fb;
	struct coloc_diag diag;
	struct coloc_buf ptxname;
	struct list_work w = {.o = o, .name = name};
	struct entry_result *res = NULL;
	struct list_thread *threads = NULL;
	unsigned nthreads = 0, i;
	size_t e, nltoir = 0, nlisted = 0;
	int rc = 0;

	memset(&t, 0, sizeof(t));
	coloc_arena_init(&t.arena);
	coloc_buf_init(&ptxname);
	coloc_diag_init(&diag, name, stderr);
	diag.max_errors = o->max_errors;
	coloc_fatbin_init(&fb);
	if (input_load(input, &in) < 0) {
		rc = 1;
		goto out;
	}
	if (is_ptx_file(input, &in)) {
		rc = list_ptx_file(o, name, &in, &t, &diag);
		goto lines;
	}
	/* What cannot be read is reported; the entries that were read are still listed. */
	rc = coloc_fatbin_read_image(&fb, in.data, in.size, &diag) < 0;
	res = calloc(fb.nentries ? fb.nentries : 1, sizeof(*res));
	if (!res) {
		coloc_error(&diag, PTX_NOLOC, "out of memory");
		rc = 1;
		goto out;
	}
	/* Architectures and PTX names are numbered in entry order, before the threads start. */
	for (e = 0; e < fb.nentries; e++) {
		const struct coloc_fatbin_entry *en = &fb.entries[e];

		res[e].arch = -1;
		coloc_buf_init(&res[e].messages);
		if (en->kind == COLOC_FATBIN_LTOIR)
			nltoir++;
		if (en->kind != COLOC_FATBIN_ELF && en->kind != COLOC_FATBIN_PTX)
			continue;
		res[e].arch = entry_arch(&t.archs, en, &diag);
		if (res[e].arch < 0) {
			rc = 1;
			break;
		}
		nlisted++;
		if (en->kind == COLOC_FATBIN_PTX) {
			ptxname.len = 0;
			ptx_file_name(&ptxname, input, &t.archs, en, res[e].arch);
			res[e].ptxname = coloc_buf_cstr(&ptxname) ? strdup(ptxname.data) : NULL;
		}
	}
	for (; e < fb.nentries; e++) {
		res[e].arch = -1;
		coloc_buf_init(&res[e].messages);
	}
	nthreads = list_jobs(o);
	if (nthreads > nlisted)
		nthreads = nlisted ? (unsigned)nlisted : 1;
	threads = calloc(nthreads, sizeof(*threads));
	if (!threads) {
		coloc_error(&diag, PTX_NOLOC, "out of memory");
		rc = 1;
		goto out;
	}
	for (i = 0; i < nthreads; i++) {
		coloc_arena_init(&threads[i].l.arena);
		coloc_buf_init(&threads[i].l.scratch);
	}
	w.fb = &fb;
	w.res = res;
	atomic_init(&w.next, 0);
	list_entries(&w, threads, nthreads);
	for (e = 0; e < fb.nentries; e++) {
		if (res[e].arch < 0)
			continue;
		report(&diag, &res[e]);
		if (res[e].failed)
			rc = 1;
		if (merge(&t, &res[e], fb.entries[e].kind == COLOC_FATBIN_PTX) < 0) {
			coloc_error(&diag, PTX_NOLOC, "out of memory");
			rc = 1;
			break;
		}
	}
	if (nltoir)
		coloc_note(&diag, PTX_NOLOC, "%zu LTO-IR entr%s not inspected", nltoir,
			   nltoir == 1 ? "y is" : "ies are");
	if (rc == 0 && t.n == 0 && fb.nentries)
		coloc_warning(&diag, PTX_NOLOC, "the fatbin holds no kernels");
lines:
	kernel_lines(out, input, &t);
out:
	for (i = 0; threads && i < nthreads; i++) {
		coloc_arena_release(&threads[i].l.arena);
		coloc_buf_release(&threads[i].l.scratch);
	}
	free(threads);
	results_release(res, fb.nentries);
	coloc_fatbin_release(&fb);
	input_unload(&in);
	coloc_buf_release(&ptxname);
	table_release(&t);
	return rc;
}

int list_files(const struct options *o)
{
	struct coloc_buf out;
	unsigned i;
	int status = 0;

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
