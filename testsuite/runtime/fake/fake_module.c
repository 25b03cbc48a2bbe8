/*
 * Modules, libraries and linking in the fake driver: what an image holds
 * and which kernels, with which parameter layouts, a load makes known.
 *
 * An image is PTX text, a fake cubin ("FAKECUBIN\n" and PTX text, what
 * cuLinkComplete here returns), a fatbin (in memory, in a file, or behind
 * the wrapper __cudaRegisterFatBinary receives), or a real cubin.  From a
 * fatbin the fake takes the PTX the device would JIT (coloc_fatbin_pick_ptx),
 * else a cubin of the device's major architecture, whose .nv.info gives
 * the parameter layouts.  PTX is not compiled: a small scanner finds the
 * .entry declarations with their parameter lists and the module-scope
 * .global/.const variables (zero-filled; initializers are not evaluated).
 * The text FAKE_JIT_FAIL anywhere in the PTX fails the "JIT".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubin.h"
#include "coloc_elf.h"
#include "fake.h"
#include "fatbin.h"

/* ---- PTX scanning */

enum tok_kind {
	TOK_EOF,
	TOK_DIR,   /* .entry, .u32, .align: a dot and what follows up to the next dot */
	TOK_ID,    /* a name or an instruction (ld.param.u32 is one token) */
	TOK_NUM,
	TOK_STR,
	TOK_PUNCT, /* one character */
};

struct tok {
	enum tok_kind kind;
	const char *s;
	size_t len;
};

struct scan {
	const char *p, *end;
};

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool is_id_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%';
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static struct tok next_tok(struct scan *s)
{
	struct tok t = {TOK_EOF, NULL, 0};
	const char *p = s->p;

	for (;;) {
		while (p < s->end && is_space(*p))
			p++;
		if (s->end - p >= 2 && p[0] == '/' && p[1] == '/') {
			while (p < s->end && *p != '\n')
				p++;
		} else if (s->end - p >= 2 && p[0] == '/' && p[1] == '*') {
			for (p += 2;
			     p < s->end && !(p[0] == '*' && s->end - p >= 2 && p[1] == '/');)
				p++;
			p = p < s->end ? p + 2 : p;
		} else {
			break;
		}
	}
	t.s = p;
	if (p >= s->end) {
		s->p = p;
		return t;
	}
	if (*p == '.') {
		t.kind = TOK_DIR;
		for (p++; p < s->end && (is_alnum(*p) || *p == '_');)
			p++;
	} else if (is_id_start(*p)) {
		t.kind = TOK_ID;
		while (p < s->end && (is_id_start(*p) || is_alnum(*p) || *p == '.'))
			p++;
	} else if (*p >= '0' && *p <= '9') {
		t.kind = TOK_NUM;
		while (p < s->end && is_alnum(*p))
			p++;
	} else if (*p == '"') {
		t.kind = TOK_STR;
		for (p++; p < s->end && *p != '"';)
			p++;
		p = p < s->end ? p + 1 : p;
	} else {
		t.kind = TOK_PUNCT;
		p++;
	}
	t.len = (size_t)(p - t.s);
	s->p = p;
	return t;
}

static bool tok_is(struct tok t, const char *text)
{
	return t.len == strlen(text) && memcmp(t.s, text, t.len) == 0;
}

static bool tok_punct(struct tok t, char c)
{
	return t.kind == TOK_PUNCT && t.s[0] == c;
}

static uint64_t tok_num(struct tok t)
{
	char buf[24];
	size_t n = t.len < sizeof(buf) - 1 ? t.len : sizeof(buf) - 1;

	memcpy(buf, t.s, n);
	buf[n] = '\0';
	return strtoull(buf, NULL, 0);
}

/* Bytes of a PTX type, 0 for a directive that is not one. */
static unsigned type_size(struct tok t)
{
	static const struct {
		const char *name;
		unsigned size;
	} types[] = {
		{".u8", 1},   {".s8", 1},     {".b8", 1},      {".u16", 2},    {".s16", 2},
		{".b16", 2},  {".f16", 2},    {".bf16", 2},    {".u32", 4},    {".s32", 4},
		{".b32", 4},  {".f32", 4},    {".f16x2", 4},   {".bf16x2", 4}, {".u64", 8},
		{".s64", 8},  {".b64", 8},    {".f64", 8},     {".b128", 16},  {".texref", 8},
		{".samplerref", 8}, {".surfref", 8},
	};
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (tok_is(t, types[i].name))
			return types[i].size;
	return 0;
}

/*
 * One parameter list, after its '(': `.param .TYPE [.ptr .SPACE .align N] NAME`
 * or `.param .align N .TYPE NAME[M]`.  An .align after .ptr is the pointee's,
 * not the parameter's.  Appends struct fake_param to `out`; returns 0 or -1
 * for a list this scanner does not understand.
 */
static int params_scan(struct scan *s, struct coloc_buf *out, uint32_t *bytes)
{
	uint64_t end = 0;
	struct tok t = next_tok(s);

	if (tok_punct(t, ')'))
		goto done;
	for (;;) {
		uint64_t align = 0, count = 1, offset;
		unsigned elem = 0, sz;
		bool ptr = false, named = false;
		struct fake_param p;

		if (!tok_is(t, ".param"))
			return -1;
		for (;;) {
			t = next_tok(s);
			if (t.kind == TOK_DIR && tok_is(t, ".align")) {
				t = next_tok(s);
				if (t.kind != TOK_NUM)
					return -1;
				if (!ptr)
					align = tok_num(t);
			} else if (t.kind == TOK_DIR && tok_is(t, ".ptr")) {
				ptr = true;
			} else if (t.kind == TOK_DIR) {
				if ((sz = type_size(t)))
					elem = sz;
				/* other directives are state spaces of .ptr */
			} else if (t.kind == TOK_ID) {
				named = true;
			} else if (tok_punct(t, '[')) {
				t = next_tok(s);
				if (t.kind != TOK_NUM)
					return -1;
				count *= tok_num(t);
				if (!tok_punct(next_tok(s), ']'))
					return -1;
			} else if (tok_punct(t, ',') || tok_punct(t, ')')) {
				break;
			} else {
				return -1;
			}
		}
		if (!elem || !named || count > UINT32_MAX)
			return -1;
		if (!align)
			align = elem;
		if (align & (align - 1))
			return -1;
		offset = (end + align - 1) & ~(align - 1);
		end = offset + elem * count;
		if (end > UINT32_MAX)
			return -1;
		p.offset = (uint32_t)offset;
		p.size = (uint32_t)(elem * count);
		coloc_buf_put(out, &p, sizeof(p));
		if (tok_punct(t, ')'))
			break;
		t = next_tok(s);
	}
done:
	*bytes = (uint32_t)end;
	return out->failed ? -1 : 0;
}

static struct fake_kernel *kernel_by_name(struct fake_module *m, const char *name, size_t len)
{
	struct fake_kernel *k;

	for (k = m->kernels; k; k = k->next)
		if (strlen(k->name) == len && memcmp(k->name, name, len) == 0)
			return k;
	return NULL;
}

static struct fake_kernel *kernel_add(struct fake_module *m, const char *name, size_t len,
				      const struct fake_param *params, unsigned n, uint32_t bytes)
{
	struct fake_kernel *k = coloc_arena_alloc(&m->arena, sizeof(*k));

	if (!k || !(k->name = coloc_arena_strndup(&m->arena, name, len)))
		return NULL;
	if (n && !(k->params = coloc_arena_alloc(&m->arena, n * sizeof(*params))))
		return NULL;
	if (n)
		memcpy(k->params, params, n * sizeof(*params));
	k->mod = m;
	k->nparams = n;
	k->param_bytes = bytes;
	if (m->kernels_tail)
		m->kernels_tail->next = k;
	else
		m->kernels = k;
	m->kernels_tail = k;
	return k;
}

/* After `.entry`: the name and the parameter list, if there is one. */
static int entry_scan(struct fake_module *m, struct scan *s, bool declared_only, char *msg,
		      size_t msgsize)
{
	struct tok name = next_tok(s), t;
	struct scan before;
	struct coloc_buf params;
	uint32_t bytes = 0;
	int rc = 0;

	if (name.kind != TOK_ID) {
		snprintf(msg, msgsize, "fake ptxas: .entry without a name");
		return -1;
	}
	before = *s;
	t = next_tok(s);
	if (!tok_punct(t, '(')) {
		*s = before; /* no parameters; the caller sees the body's '{' */
		t.len = 0;
	}
	coloc_buf_init(&params);
	if (t.len && params_scan(s, &params, &bytes) < 0) {
		snprintf(msg, msgsize, "fake ptxas: cannot read the parameters of kernel '%.*s'",
			 (int)name.len, name.s);
		rc = -1;
	} else if (!declared_only && !kernel_by_name(m, name.s, name.len) &&
		   !kernel_add(m, name.s, name.len, (const struct fake_param *)params.data,
			       (unsigned)(params.len / sizeof(struct fake_param)), bytes)) {
		snprintf(msg, msgsize, "fake ptxas: out of memory");
		rc = -1;
	}
	coloc_buf_release(&params);
	return rc;
}

/* After `.global` or `.const` at module scope: `[.align N] .TYPE NAME[[N]...] [= init], ...;` */
static int global_scan(struct fake_module *m, struct scan *s, bool declared_only)
{
	unsigned elem = 0, depth = 0;
	uint64_t count = 1;
	struct tok t, name = {TOK_EOF, NULL, 0};

	for (;;) {
		t = next_tok(s);
		if (t.kind == TOK_EOF)
			return -1;
		if (tok_punct(t, '{'))
			depth++;
		else if (tok_punct(t, '}'))
			depth--;
		if (depth)
			continue;
		if (t.kind == TOK_DIR && type_size(t) && !name.s) {
			elem = type_size(t);
		} else if (t.kind == TOK_ID && !name.s) {
			name = t;
		} else if (tok_punct(t, '[') && name.s) {
			t = next_tok(s);
			/* `x[]` declares storage defined elsewhere */
			count = t.kind == TOK_NUM ? count * tok_num(t) : 0;
			if (t.kind == TOK_NUM)
				t = next_tok(s);
			if (!tok_punct(t, ']'))
				return -1;
		} else if (tok_punct(t, '=') && name.s) {
			/* the initializer runs to the next ',' or ';' at this level */
		} else if (tok_punct(t, ',') || tok_punct(t, ';')) {
			if (name.s && elem && count && !declared_only) {
				struct fake_global *g = coloc_arena_alloc(&m->arena, sizeof(*g));

				if (!g ||
				    !(g->name = coloc_arena_strndup(&m->arena, name.s, name.len)) ||
				    !(g->alloc = fake_alloc_new(elem * count)))
					return -1;
				g->alloc->global = true;
				g->next = m->globals;
				m->globals = g;
			}
			if (tok_punct(t, ';'))
				return 0;
			name.s = NULL;
			count = 1;
		}
	}
}

/* Kernels and variables of a PTX text. */
static CUresult ptx_load(struct fake_module *m, const char *text, char *msg, size_t msgsize)
{
	struct scan s = {text, text + strlen(text)};
	int braces = 0, parens = 0;
	bool is_extern = false;
	struct tok t;

	if (strstr(text, FAKE_JIT_FAIL)) {
		snprintf(msg, msgsize, "%s", FAKE_JIT_FAIL_LOG);
		return CUDA_ERROR_INVALID_PTX;
	}
	while ((t = next_tok(&s)).kind != TOK_EOF) {
		if (t.kind == TOK_PUNCT) {
			braces += t.s[0] == '{' ? 1 : t.s[0] == '}' ? -1 : 0;
			parens += t.s[0] == '(' ? 1 : t.s[0] == ')' ? -1 : 0;
			if (t.s[0] == ';' || t.s[0] == '{')
				is_extern = false;
			continue;
		}
		if (braces || parens || t.kind != TOK_DIR)
			continue;
		if (tok_is(t, ".extern")) {
			is_extern = true;
		} else if (tok_is(t, ".entry")) {
			if (entry_scan(m, &s, is_extern, msg, msgsize) < 0)
				return CUDA_ERROR_INVALID_PTX;
		} else if (tok_is(t, ".global") || tok_is(t, ".const")) {
			if (global_scan(m, &s, is_extern) < 0) {
				snprintf(msg, msgsize,
					 "fake ptxas: cannot read a module-scope variable");
				return CUDA_ERROR_INVALID_PTX;
			}
			is_extern = false;
		}
	}
	return CUDA_SUCCESS;
}

/* ---- images */

struct load_info {
	const char *kind; /* ptx, cubin, fatbin or elf; NULL until known */
	char arch[24];    /* the fatbin entry used */
	char msg[256];    /* what went wrong, for CU_JIT_ERROR_LOG_BUFFER */
};

/* The reader's first error becomes the message. */
static void diag_keep(void *ctx, enum coloc_diag_level level, const char *text)
{
	struct load_info *info = ctx;

	if (level == COLOC_DIAG_ERROR && !info->msg[0])
		snprintf(info->msg, sizeof(info->msg), "fake driver: %s", text);
}

/* Compares byte by byte, so text shorter than the magic stops at its NUL. */
static bool has_magic(const unsigned char *p, const void *magic, size_t n)
{
	const unsigned char *q = magic;
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != q[i])
			return false;
	return true;
}

/*
 * Bytes an ELF image in memory spans, from its own headers: nothing else
 * bounds it (the driver trusts the caller's memory the same way).  0 when
 * it is not a 64-bit little-endian ELF file.
 */
static size_t elf_extent_guess(const unsigned char *p)
{
	uint64_t shoff = coloc_le64(p + 0x28), phoff = coloc_le64(p + 0x20), end = 64;
	unsigned shentsize = coloc_le16(p + 0x3a), shnum = coloc_le16(p + 0x3c);
	unsigned phentsize = coloc_le16(p + 0x36), phnum = coloc_le16(p + 0x38), i;

	if (p[4] != 2 || p[5] != 1 || shentsize < 64 || (phnum && phentsize < 56))
		return 0;
	if (shoff + (uint64_t)shnum * shentsize > end)
		end = shoff + (uint64_t)shnum * shentsize;
	if (phoff + (uint64_t)phnum * phentsize > end)
		end = phoff + (uint64_t)phnum * phentsize;
	for (i = 0; i < shnum; i++) {
		const unsigned char *h = p + shoff + (uint64_t)i * shentsize;

		if (coloc_le32(h + 4) != COLOC_SHT_NOBITS &&
		    coloc_le64(h + 24) + coloc_le64(h + 32) > end)
			end = coloc_le64(h + 24) + coloc_le64(h + 32);
	}
	for (i = 0; i < phnum; i++) {
		const unsigned char *h = p + phoff + (uint64_t)i * phentsize;

		if (coloc_le64(h + 8) + coloc_le64(h + 32) > end)
			end = coloc_le64(h + 8) + coloc_le64(h + 32);
	}
	return end < (1u << 30) ? (size_t)end : 0;
}

/* Bytes of the fatbin container at p: its header says. */
static size_t fatbin_extent(const unsigned char *p)
{
	return coloc_le16(p + 6) + (size_t)coloc_le64(p + 8);
}

/* A cubin of the device's major architecture, newest first, as the driver picks SASS. */
static const struct coloc_fatbin_entry *pick_cubin(const struct coloc_fatbin *fb)
{
	const struct coloc_fatbin_entry *best = NULL;
	size_t i;

	for (i = 0; i < fb->nentries; i++) {
		const struct coloc_fatbin_entry *e = &fb->entries[i];

		if (e->kind != COLOC_FATBIN_ELF || e->sm / 10 != fake.sm / 10 || e->sm > fake.sm)
			continue;
		if (e->variant == 'a' && (e->sm != fake.sm || fake.variant != 'a'))
			continue;
		if (!best || e->sm > best->sm)
			best = e;
	}
	return best;
}

static CUresult cubin_load(struct fake_module *m, const unsigned char *data, size_t len,
			   struct coloc_diag *diag)
{
	struct coloc_cubin cubin;
	size_t i;

	if (coloc_cubin_read(&cubin, &m->arena, data, len, diag) < 0)
		return CUDA_ERROR_INVALID_IMAGE;
	for (i = 0; i < cubin.nkernels; i++) {
		const struct coloc_cubin_kernel *ck = &cubin.kernels[i];
		struct fake_param *params = coloc_arena_alloc(&m->arena, (ck->nparams + 1) *
									  sizeof(*params));
		unsigned j;

		if (!params)
			return CUDA_ERROR_OUT_OF_MEMORY;
		for (j = 0; j < ck->nparams; j++) {
			params[j].offset = ck->params[j].offset;
			params[j].size = ck->params[j].size;
		}
		struct fake_kernel *k = kernel_add(m, ck->name, strlen(ck->name), params, ck->nparams,
						   ck->param_bytes);

		if (!k)
			return CUDA_ERROR_OUT_OF_MEMORY;
		k->registers = ck->registers;
	}
	return CUDA_SUCCESS;
}

/* The PTX the device would JIT, else a cubin it runs as is. */
static CUresult fatbin_load(struct fake_module *m, const struct coloc_fatbin *fb,
			    struct load_info *info, struct coloc_diag *diag)
{
	const struct coloc_fatbin_entry *e;
	const unsigned char *data;
	struct coloc_buf scratch;
	size_t len;
	char *text;
	CUresult rc;

	e = coloc_fatbin_pick_ptx(fb->entries, fb->nentries, fake.sm, fake.variant);
	if (!e && !(e = pick_cubin(fb))) {
		snprintf(info->msg, sizeof(info->msg), "fake driver: no PTX or cubin for sm_%u%s",
			 fake.sm, fake.variant == 'a' ? "a" : "");
		return CUDA_ERROR_NO_BINARY_FOR_GPU;
	}
	coloc_fatbin_arch_name(e, e->kind == COLOC_FATBIN_PTX, info->arch, sizeof(info->arch));
	coloc_buf_init(&scratch);
	if (coloc_fatbin_entry_contents(fb, e, &scratch, &data, &len, diag) < 0) {
		rc = CUDA_ERROR_INVALID_IMAGE;
	} else if (e->kind == COLOC_FATBIN_ELF) {
		rc = cubin_load(m, data, len, diag);
	} else if (!(text = coloc_arena_strndup(&m->arena, (const char *)data, len))) {
		rc = CUDA_ERROR_OUT_OF_MEMORY;
	} else {
		rc = ptx_load(m, text, info->msg, sizeof(info->msg));
	}
	coloc_buf_release(&scratch);
	return rc;
}

/* The fatbins a __fatBinC_Wrapper_t points to: its data, and for version 2 the prelinked list. */
static int wrapper_read(struct coloc_fatbin *fb, const struct coloc_fatbin_wrapper *w,
			struct coloc_diag *diag)
{
	const void *const *list = w->filename_or_fatbins;
	size_t i;
	int rc;

	if ((w->version != 1 && w->version != 2) || !w->data)
		return -EINVAL;
	rc = coloc_fatbin_read(fb, w->data, fatbin_extent(w->data), NULL, diag);
	for (i = 0; rc == 0 && w->version == 2 && list && list[i]; i++)
		rc = coloc_fatbin_read(fb, list[i], fatbin_extent(list[i]), NULL, diag);
	return rc;
}

/* Fills `m` from an image of `size` bytes, or of unknown size when size is 0. */
static CUresult image_load(struct fake_module *m, const void *image, size_t size,
			   struct load_info *info)
{
	static const unsigned char fatbin_magic[4] = {0x50, 0xed, 0x55, 0xba};
	static const unsigned char wrapper_magic[4] = {0xb1, 0x43, 0x62, 0x46};
	static const unsigned char elf_magic[4] = {0x7f, 'E', 'L', 'F'};
	const unsigned char *p = image;
	const char *text = image;
	struct coloc_fatbin fb;
	struct coloc_diag diag;
	int rc;
	CUresult cu;

	if (!image)
		return CUDA_ERROR_INVALID_VALUE;
	if (has_magic(p, FAKE_CUBIN_MAGIC, FAKE_CUBIN_MAGIC_LEN)) {
		info->kind = "cubin";
		return ptx_load(m, text + FAKE_CUBIN_MAGIC_LEN, info->msg, sizeof(info->msg));
	}
	coloc_diag_init(&diag, NULL, NULL);
	diag.emit = diag_keep;
	diag.emit_ctx = info;
	coloc_fatbin_init(&fb);
	if (has_magic(p, fatbin_magic, 4) || has_magic(p, elf_magic, 4)) {
		bool elf = p[0] == 0x7f;

		info->kind = elf ? "elf" : "fatbin";
		if (!size)
			size = elf ? elf_extent_guess(p) : fatbin_extent(p);
		rc = size ? coloc_fatbin_read_image(&fb, p, size, &diag) : -EINVAL;
		if (rc == 0 && fb.form == COLOC_BINARY_HOST_ELF)
			rc = -EINVAL; /* a host program is not a module */
	} else if (has_magic(p, wrapper_magic, 4)) {
		info->kind = "fatbin";
		rc = size ? -EINVAL : wrapper_read(&fb, image, &diag);
	} else if (strstr(text, ".version") || strstr(text, ".entry")) {
		info->kind = "ptx";
		return ptx_load(m, text, info->msg, sizeof(info->msg));
	} else {
		snprintf(info->msg, sizeof(info->msg), "fake driver: not PTX, a cubin or a fatbin");
		return CUDA_ERROR_INVALID_IMAGE;
	}
	cu = rc < 0 ? CUDA_ERROR_INVALID_IMAGE : fatbin_load(m, &fb, info, &diag);
	coloc_fatbin_release(&fb);
	return cu;
}

/* ---- modules */

struct jit_opts {
	unsigned n;
	const CUjit_option *opts;
	void **values;
};

static void put_options(struct coloc_buf *line, const struct jit_opts *jit)
{
	unsigned i;

	coloc_buf_puts(line, " options=");
	for (i = 0; jit->opts && i < jit->n; i++)
		coloc_buf_printf(line, "%s%d", i ? "," : "", jit->opts[i]);
}

/* Writes msg into the CU_JIT_ERROR_LOG_BUFFER option's buffer, cut to its size option. */
static void error_log_write(char *buf, size_t size, const char *msg)
{
	size_t n = strlen(msg);

	if (!buf || !size)
		return;
	if (n >= size)
		n = size - 1;
	memcpy(buf, msg, n);
	buf[n] = '\0';
}

static void jit_error_log(const struct jit_opts *jit, char **buf, size_t *size)
{
	unsigned i;

	*buf = NULL;
	*size = 0;
	for (i = 0; jit && jit->opts && jit->values && i < jit->n; i++) {
		if (jit->opts[i] == CU_JIT_ERROR_LOG_BUFFER)
			*buf = jit->values[i];
		else if (jit->opts[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
			*size = (size_t)(uintptr_t)jit->values[i];
	}
}

static void module_discard(struct fake_module *m)
{
	struct fake_global *g;

	for (g = m->globals; g; g = g->next)
		fake_alloc_free(g->alloc);
	coloc_arena_release(&m->arena);
	free(m);
}

/* Loads an image and logs " [library=L] module=M kind=K [arch=A] kernels=..." or what it knows. */
static CUresult module_load(struct coloc_buf *line, const void *image, size_t size,
			    const struct jit_opts *jit, bool library, struct fake_module **out)
{
	struct fake_module *m = calloc(1, sizeof(*m));
	struct load_info info = {0};
	struct fake_kernel *k;
	CUresult rc;

	if (!m)
		return CUDA_ERROR_OUT_OF_MEMORY;
	coloc_arena_init(&m->arena);
	rc = image_load(m, image, size, &info);
	if (rc != CUDA_SUCCESS) {
		char *buf;
		size_t bufsize;

		if (info.kind)
			coloc_buf_printf(line, " kind=%s", info.kind);
		jit_error_log(jit, &buf, &bufsize);
		error_log_write(buf, bufsize, info.msg);
		module_discard(m);
		return rc;
	}
	if (library)
		coloc_buf_printf(line, " library=%u", m->library_id = ++fake.next_library);
	m->id = ++fake.next_module;
	m->next = fake.modules;
	fake.modules = m;
	coloc_buf_printf(line, " module=%u kind=%s", m->id, info.kind);
	if (info.arch[0])
		coloc_buf_printf(line, " arch=%s", info.arch);
	coloc_buf_puts(line, " kernels=");
	for (k = m->kernels; k; k = k->next)
		coloc_buf_printf(line, "%s%s", k == m->kernels ? "" : ",", k->name);
	*out = m;
	return CUDA_SUCCESS;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Reads a whole file, NUL-terminated, for the loaders. */
static CUresult file_read(struct coloc_buf *b, const char *path)
{
	int rc;

	coloc_buf_init(b);
	rc = coloc_buf_read_file(b, path);
	if (rc == -ENOENT)
		return CUDA_ERROR_FILE_NOT_FOUND;
	if (rc < 0 || !coloc_buf_cstr(b))
		return CUDA_ERROR_INVALID_VALUE;
	return b->len ? CUDA_SUCCESS : CUDA_ERROR_INVALID_IMAGE;
}

static struct fake_module *module_find(const void *handle)
{
	struct fake_module *m;

	for (m = fake.modules; m; m = m->next)
		if (!m->dead && (const void *)&m->module_tag == handle)
			return m;
	return NULL;
}

static struct fake_module *library_find(const void *handle)
{
	struct fake_module *m;

	for (m = fake.modules; m; m = m->next)
		if (!m->dead && m->library_id && (const void *)&m->library_tag == handle)
			return m;
	return NULL;
}

struct fake_kernel *fake_kernel_find(const void *handle, bool *via_kernel)
{
	struct fake_module *m;
	struct fake_kernel *k;

	for (m = fake.modules; m; m = m->next) {
		if (m->dead)
			continue;
		for (k = m->kernels; k; k = k->next) {
			if ((const void *)&k->fn_tag == handle ||
			    (const void *)&k->kernel_tag == handle) {
				*via_kernel = (const void *)&k->kernel_tag == handle;
				return k;
			}
		}
	}
	return NULL;
}

CUresult fake_put_fn(struct coloc_buf *line, const void *handle, struct fake_kernel **out)
{
	bool via_kernel = false;

	*out = fake_kernel_find(handle, &via_kernel);
	if (!*out) {
		coloc_buf_puts(line, " fn=?");
		return CUDA_ERROR_INVALID_HANDLE;
	}
	coloc_buf_printf(line, " fn=%s%s", (*out)->name, via_kernel ? " via=kernel" : "");
	return CUDA_SUCCESS;
}

/* " kernel=NAME" for a CUkernel handle; a CUfunction is not one. */
static CUresult put_kernel(struct coloc_buf *line, const void *handle, struct fake_kernel **out)
{
	bool via_kernel = false;

	*out = fake_kernel_find(handle, &via_kernel);
	if (!*out || !via_kernel) {
		*out = NULL;
		coloc_buf_puts(line, " kernel=?");
		return CUDA_ERROR_INVALID_HANDLE;
	}
	coloc_buf_printf(line, " kernel=%s", (*out)->name);
	return CUDA_SUCCESS;
}

static void put_module(struct coloc_buf *line, const struct fake_module *m)
{
	if (m)
		coloc_buf_printf(line, " module=%u", m->id);
	else
		coloc_buf_puts(line, " module=?");
}

static void put_library(struct coloc_buf *line, const struct fake_module *m)
{
	if (m)
		coloc_buf_printf(line, " library=%u", m->library_id);
	else
		coloc_buf_puts(line, " library=?");
}

static CUresult module_load_call(const char *name, CUmodule *module, const void *image,
				 const struct jit_opts *jit)
{
	struct fake_module *m;
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, name);
	if (jit)
		put_options(&line, jit);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!module || (jit && jit->n && !jit->opts))
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	rc = module_load(&line, image, 0, jit, false, &m);
	if (rc == CUDA_SUCCESS)
		*module = (CUmodule)(void *)&m->module_tag;
	return fake_end(&line, rc);
}

CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
	return module_load_call(__func__, module, image, NULL);
}

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int nopts,
			    CUjit_option *opts, void **values)
{
	struct jit_opts jit = {nopts, opts, values};

	return module_load_call(__func__, module, image, &jit);
}

CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatbin)
{
	return module_load_call(__func__, module, fatbin, NULL);
}

CUresult cuModuleLoad(CUmodule *module, const char *path)
{
	struct fake_module *m;
	struct coloc_buf line, file;
	CUresult rc;

	fake_begin(&line, __func__);
	coloc_buf_printf(&line, " file=%s", path ? base_name(path) : "(null)");
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!module || !path)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	rc = file_read(&file, path);
	if (rc == CUDA_SUCCESS)
		rc = module_load(&line, file.data, file.len, NULL, false, &m);
	coloc_buf_release(&file);
	if (rc == CUDA_SUCCESS)
		*module = (CUmodule)(void *)&m->module_tag;
	return fake_end(&line, rc);
}

CUresult cuModuleUnload(CUmodule module)
{
	struct fake_module *m;
	struct fake_global *g;
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	m = module_find(module);
	put_module(&line, m);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	/* A library's module goes with cuLibraryUnload. */
	if (!m || m->library_id)
		return fake_end(&line, CUDA_ERROR_INVALID_HANDLE);
	m->dead = true;
	for (g = m->globals; g; g = g->next)
		fake_alloc_free(g->alloc);
	m->globals = NULL;
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuModuleGetFunction(CUfunction *fn, CUmodule module, const char *name)
{
	struct fake_module *m;
	struct fake_kernel *k;
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	m = module_find(module);
	put_module(&line, m);
	coloc_buf_printf(&line, " fn=%s", name ? name : "(null)");
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!m)
		return fake_end(&line, CUDA_ERROR_INVALID_HANDLE);
	if (!fn || !name)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if (!(k = kernel_by_name(m, name, strlen(name))))
		return fake_end(&line, CUDA_ERROR_NOT_FOUND);
	*fn = (CUfunction)(void *)&k->fn_tag;
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule module, const char *name)
{
	struct fake_module *m;
	struct fake_global *g;
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	m = module_find(module);
	put_module(&line, m);
	coloc_buf_printf(&line, " name=%s", name ? name : "(null)");
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!m)
		return fake_end(&line, CUDA_ERROR_INVALID_HANDLE);
	if (!name)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	for (g = m->globals; g && strcmp(g->name, name) != 0;)
		g = g->next;
	if (!g)
		return fake_end(&line, CUDA_ERROR_NOT_FOUND);
	if (dptr)
		*dptr = (CUdeviceptr)(uintptr_t)g->alloc->base;
	if (bytes)
		*bytes = g->alloc->size;
	coloc_buf_printf(&line, " bytes=%zu ptr=", g->alloc->size);
	fake_put_dptr(&line, (uintptr_t)g->alloc->base);
	return fake_end(&line, CUDA_SUCCESS);
}

/* ---- libraries: context-independent loading, CUkernel handles */

static CUresult library_load(struct coloc_buf *line, CUlibrary *library, const void *image,
			     size_t size, const struct jit_opts *jit)
{
	struct fake_module *m;
	CUresult rc;

	rc = module_load(line, image, size, jit, true, &m);
	if (rc == CUDA_SUCCESS)
		*library = (CUlibrary)(void *)&m->library_tag;
	return rc;
}

CUresult cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *opts, void **values,
			   unsigned int nopts, CUlibraryOption *lib_opts, void **lib_values,
			   unsigned int nlib_opts)
{
	struct jit_opts jit = {nopts, opts, values};
	struct coloc_buf line;
	CUresult rc;

	(void)lib_opts;
	(void)lib_values;
	(void)nlib_opts;
	fake_begin(&line, __func__);
	if ((rc = fake_need_init()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!library || (nopts && !opts))
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	return fake_end(&line, library_load(&line, library, code, 0, &jit));
}

CUresult cuLibraryLoadFromFile(CUlibrary *library, const char *path, CUjit_option *opts,
			       void **values, unsigned int nopts, CUlibraryOption *lib_opts,
			       void **lib_values, unsigned int nlib_opts)
{
	struct jit_opts jit = {nopts, opts, values};
	struct coloc_buf line, file;
	CUresult rc;

	(void)lib_opts;
	(void)lib_values;
	(void)nlib_opts;
	fake_begin(&line, __func__);
	coloc_buf_printf(&line, " file=%s", path ? base_name(path) : "(null)");
	if ((rc = fake_need_init()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!library || !path || (nopts && !opts))
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	rc = file_read(&file, path);
	if (rc == CUDA_SUCCESS)
		rc = library_load(&line, library, file.data, file.len, &jit);
	coloc_buf_release(&file);
	return fake_end(&line, rc);
}

CUresult cuLibraryUnload(CUlibrary library)
{
	struct fake_module *m;
	struct fake_global *g;
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	m = library_find(library);
	put_library(&line, m);
	if ((rc = fake_need_init()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!m)
		return fake_end(&line, CUDA_ERROR_INVALID_HANDLE);
	m->dead = true;
	for (g = m->globals; g; g = g->next)
		fake_alloc_free(g->alloc);
	m->globals = NULL;
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuLibraryGetKernel(CUkernel *kernel, CUlibrary library, const char *name)
{
	struct fake_module *m;
	struct fake_kernel *k;
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	m = library_find(library);
	put_library(&line, m);
	coloc_buf_printf(&line, " kernel=%s", name ? name : "(null)");
	if ((rc = fake_need_init()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!m)
		return fake_end(&line, CUDA_ERROR_INVALID_HANDLE);
	if (!kernel || !name)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if (!(k = kernel_by_name(m, name, strlen(name))))
		return fake_end(&line, CUDA_ERROR_NOT_FOUND);
	*kernel = (CUkernel)(void *)&k->kernel_tag;
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuLibraryGetModule(CUmodule *module, CUlibrary library)
{
	struct fake_module *m;
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	m = library_find(library);
	put_library(&line, m);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!m)
		return fake_end(&line, CUDA_ERROR_INVALID_HANDLE);
	if (!module)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	put_module(&line, m);
	*module = (CUmodule)(void *)&m->module_tag;
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuKernelGetFunction(CUfunction *fn, CUkernel kernel)
{
	struct fake_kernel *k;
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = put_kernel(&line, kernel, &k);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS || (rc = found) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!fn)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	coloc_buf_printf(&line, " fn=%s", k->name);
	*fn = (CUfunction)(void *)&k->fn_tag;
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuKernelGetName(const char **name, CUkernel kernel)
{
	struct fake_kernel *k;
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = put_kernel(&line, kernel, &k);
	if ((rc = fake_need_init()) != CUDA_SUCCESS || (rc = found) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!name)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	*name = k->name;
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuKernelSetAttribute(CUfunction_attribute attrib, int value, CUkernel kernel, CUdevice dev)
{
	struct fake_kernel *k;
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = put_kernel(&line, kernel, &k);
	coloc_buf_printf(&line, " attrib=%d value=%d device=%d", attrib, value, dev);
	if ((rc = fake_need_init()) != CUDA_SUCCESS || (rc = found) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (dev < 0 || dev >= fake.ndevices)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	return fake_end(&line, fake_attr_set(k, attrib, value));
}

CUresult cuKernelGetAttribute(int *value, CUfunction_attribute attrib, CUkernel kernel,
			      CUdevice dev)
{
	struct fake_kernel *k;
	struct coloc_buf line;
	CUresult rc, found;

	fake_begin(&line, __func__);
	found = put_kernel(&line, kernel, &k);
	coloc_buf_printf(&line, " attrib=%d", attrib);
	if ((rc = fake_need_init()) != CUDA_SUCCESS || (rc = found) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!value || dev < 0 || dev >= fake.ndevices)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if ((rc = fake_attr_get(k, attrib, value)) == CUDA_SUCCESS)
		coloc_buf_printf(&line, " value=%d", *value);
	coloc_buf_printf(&line, " device=%d", dev);
	return fake_end(&line, rc);
}

/* ---- linking: PTX inputs only, completed into a fake cubin */

static struct fake_link *link_find(const void *handle)
{
	struct fake_link *l;

	for (l = fake.links; l; l = l->next)
		if (!l->dead && (const void *)&l->tag == handle)
			return l;
	return NULL;
}

static void put_link(struct coloc_buf *line, const struct fake_link *l)
{
	if (l)
		coloc_buf_printf(line, " link=%u", l->id);
	else
		coloc_buf_puts(line, " link=?");
}

static CUresult link_create(const char *name, unsigned int nopts, CUjit_option *opts,
			    void **values, CUlinkState *state)
{
	struct jit_opts jit = {nopts, opts, values};
	struct fake_link *l;
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, name);
	put_options(&line, &jit);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!state || (nopts && !opts))
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if (!(l = calloc(1, sizeof(*l))))
		return fake_end(&line, CUDA_ERROR_OUT_OF_MEMORY);
	coloc_buf_init(&l->ptx);
	coloc_buf_init(&l->cubin);
	/* The driver writes the log at cuLinkComplete into the buffer given here. */
	jit_error_log(&jit, &l->error_log, &l->error_log_size);
	l->id = ++fake.next_link;
	l->next = fake.links;
	fake.links = l;
	coloc_buf_printf(&line, " link=%u", l->id);
	*state = (CUlinkState)(void *)&l->tag;
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuLinkCreate(unsigned int nopts, CUjit_option *opts, void **values, CUlinkState *state)
{
	return link_create(__func__, nopts, opts, values, state);
}

CUresult cuLinkCreate_v2(unsigned int nopts, CUjit_option *opts, void **values,
			 CUlinkState *state)
{
	return link_create(__func__, nopts, opts, values, state);
}

/* Appends one PTX input; its trailing NULs are dropped so inputs concatenate. */
static void link_append(struct fake_link *l, const void *data, size_t size)
{
	const char *p = data;

	while (size && p[size - 1] == '\0')
		size--;
	coloc_buf_put(&l->ptx, p, size);
	coloc_buf_putc(&l->ptx, '\n');
}

static CUresult link_add_data(const char *name, CUlinkState state, CUjitInputType type,
			      void *data, size_t size, const char *input_name)
{
	struct fake_link *l;
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, name);
	l = link_find(state);
	put_link(&line, l);
	coloc_buf_printf(&line, " type=%d bytes=%zu name=%s", type, size,
			 input_name ? input_name : "");
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!l)
		return fake_end(&line, CUDA_ERROR_INVALID_HANDLE);
	if (type != CU_JIT_INPUT_PTX)
		return fake_end(&line, CUDA_ERROR_NOT_SUPPORTED);
	if (!data || !size)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	/* PTX is text the driver reads up to its NUL, which must lie within size. */
	if (!memchr(data, '\0', size))
		return fake_end(&line, CUDA_ERROR_INVALID_PTX);
	link_append(l, data, size);
	return fake_end(&line, l->ptx.failed ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS);
}

CUresult cuLinkAddData(CUlinkState state, CUjitInputType type, void *data, size_t size,
		       const char *name, unsigned int nopts, CUjit_option *opts, void **values)
{
	(void)nopts;
	(void)opts;
	(void)values;
	return link_add_data(__func__, state, type, data, size, name);
}

CUresult cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data, size_t size,
			  const char *name, unsigned int nopts, CUjit_option *opts, void **values)
{
	(void)nopts;
	(void)opts;
	(void)values;
	return link_add_data(__func__, state, type, data, size, name);
}

static CUresult link_add_file(const char *name, CUlinkState state, CUjitInputType type,
			      const char *path)
{
	struct fake_link *l;
	struct coloc_buf line, file;
	CUresult rc;

	fake_begin(&line, name);
	l = link_find(state);
	put_link(&line, l);
	coloc_buf_printf(&line, " type=%d file=%s", type, path ? base_name(path) : "(null)");
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!l)
		return fake_end(&line, CUDA_ERROR_INVALID_HANDLE);
	if (type != CU_JIT_INPUT_PTX)
		return fake_end(&line, CUDA_ERROR_NOT_SUPPORTED);
	if (!path)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	rc = file_read(&file, path);
	if (rc == CUDA_SUCCESS)
		link_append(l, file.data, file.len);
	coloc_buf_release(&file);
	return fake_end(&line, rc);
}

CUresult cuLinkAddFile(CUlinkState state, CUjitInputType type, const char *path,
		       unsigned int nopts, CUjit_option *opts, void **values)
{
	(void)nopts;
	(void)opts;
	(void)values;
	return link_add_file(__func__, state, type, path);
}

CUresult cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char *path,
			  unsigned int nopts, CUjit_option *opts, void **values)
{
	(void)nopts;
	(void)opts;
	(void)values;
	return link_add_file(__func__, state, type, path);
}

CUresult cuLinkComplete(CUlinkState state, void **cubin, size_t *size)
{
	struct fake_link *l;
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	l = link_find(state);
	put_link(&line, l);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!l)
		return fake_end(&line, CUDA_ERROR_INVALID_HANDLE);
	if (!cubin || !size)
		return fake_end(&line, CUDA_ERROR_INVALID_VALUE);
	if (l->ptx.failed || !coloc_buf_cstr(&l->ptx))
		return fake_end(&line, CUDA_ERROR_OUT_OF_MEMORY);
	/* COLOC_FAKE_LINK_FAIL=1: every link fails, as if ptxas rejected the input. */
	if (strstr(l->ptx.data, FAKE_JIT_FAIL) ||
	    (getenv("COLOC_FAKE_LINK_FAIL") && !strcmp(getenv("COLOC_FAKE_LINK_FAIL"), "1"))) {
		error_log_write(l->error_log, l->error_log_size, FAKE_JIT_FAIL_LOG);
		return fake_end(&line, CUDA_ERROR_INVALID_PTX);
	}
	/* The buffer belongs to the link state; a second completion replaces it. */
	l->cubin.len = 0;
	coloc_buf_put(&l->cubin, FAKE_CUBIN_MAGIC, FAKE_CUBIN_MAGIC_LEN);
	coloc_buf_put(&l->cubin, l->ptx.data, l->ptx.len);
	coloc_buf_putc(&l->cubin, '\0');
	if (l->cubin.failed)
		return fake_end(&line, CUDA_ERROR_OUT_OF_MEMORY);
	*cubin = l->cubin.data;
	*size = l->cubin.len;
	coloc_buf_printf(&line, " bytes=%zu", l->cubin.len);
	return fake_end(&line, CUDA_SUCCESS);
}

CUresult cuLinkDestroy(CUlinkState state)
{
	struct fake_link *l;
	struct coloc_buf line;
	CUresult rc;

	fake_begin(&line, __func__);
	l = link_find(state);
	put_link(&line, l);
	if ((rc = fake_need_ctx()) != CUDA_SUCCESS)
		return fake_end(&line, rc);
	if (!l)
		return fake_end(&line, CUDA_ERROR_INVALID_HANDLE);
	/* The struct stays, dead, so the stale handle is never a newer link's. */
	l->dead = true;
	coloc_buf_release(&l->ptx);
	coloc_buf_release(&l->cubin);
	return fake_end(&line, CUDA_SUCCESS);
}
