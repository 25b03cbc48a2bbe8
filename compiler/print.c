/*
 * Printer: the canonical text of a module.
 *
 * The layout is fixed (one statement per line, a tab per nesting level,
 * labels one level out, ", " between operands), literals keep their
 * spelling and parentheses that were written are kept, so printing the
 * parse of the output reproduces it byte for byte.  Parentheses are added
 * only where a pass built an expression whose precedence needs them.
 */
#include <string.h>

#include "ptx.h"

static void put_ident(struct coloc_buf *b, const struct ptx_ident *id)
{
	if (id)
		coloc_buf_put(b, id->str, id->len);
}

static void put_indent(struct coloc_buf *b, int n)
{
	while (n-- > 0)
		coloc_buf_putc(b, '\t');
}

static void print_list(const struct ptx_expr *e, struct coloc_buf *b)
{
	for (; e; e = e->next) {
		ptx_expr_print(e, b);
		if (e->next)
			coloc_buf_puts(b, ", ");
	}
}

/* Precedence of an expression as an operand: atoms bind tightest. */
static int expr_prec(const struct ptx_expr *e)
{
	switch (e->kind) {
	case PTX_EXPR_BINARY:
		return ptx_binop_table[e->op].prec;
	case PTX_EXPR_COND:
		return -1;
	case PTX_EXPR_UNARY:
	case PTX_EXPR_CAST:
		return 20;
	case PTX_EXPR_INDEX:
		return 25;
	default:
		return 30;
	}
}

static void print_operand(const struct ptx_expr *e, int min_prec, struct coloc_buf *b)
{
	if (expr_prec(e) < min_prec) {
		coloc_buf_putc(b, '(');
		ptx_expr_print(e, b);
		coloc_buf_putc(b, ')');
	} else {
		ptx_expr_print(e, b);
	}
}

static void print_float(const struct ptx_expr *e, struct coloc_buf *b)
{
	static const char hex[] = "0123456789ABCDEF";
	int digits = e->op == PTX_FLOAT_HEX32 ? 8 : 16;
	int i;

	if (e->u.num.text) {
		put_ident(b, e->u.num.text);
		return;
	}
	/* Built by a pass: print the bits exactly. */
	coloc_buf_puts(b, e->op == PTX_FLOAT_HEX32 ? "0f" : "0d");
	for (i = digits - 1; i >= 0; i--)
		coloc_buf_putc(b, hex[(e->u.num.value >> (4 * i)) & 15]);
}

void ptx_expr_print(const struct ptx_expr *e, struct coloc_buf *b)
{
	int prec;

	switch (e->kind) {
	case PTX_EXPR_NAME:
		put_ident(b, e->u.name.id);
		put_ident(b, e->u.name.comp);
		break;
	case PTX_EXPR_INT:
		if (e->u.num.text) {
			put_ident(b, e->u.num.text);
		} else {
			coloc_buf_put_u64(b, e->u.num.value);
			if (e->op & PTX_INT_UNSIGNED)
				coloc_buf_putc(b, 'U');
		}
		break;
	case PTX_EXPR_FLOAT:
		print_float(e, b);
		break;
	case PTX_EXPR_STRING:
		put_ident(b, e->u.num.text);
		break;
	case PTX_EXPR_UNARY:
		coloc_buf_putc(b, (char)e->op);
		print_operand(e->u.sub.a, 20, b);
		break;
	case PTX_EXPR_CAST:
		coloc_buf_putc(b, '(');
		put_ident(b, e->u.sub.type);
		coloc_buf_putc(b, ')');
		print_operand(e->u.sub.a, 20, b);
		break;
	case PTX_EXPR_BINARY:
		prec = ptx_binop_table[e->op].prec;
		/* Left-associative: the right operand needs a tighter binding. */
		print_operand(e->u.sub.a, prec, b);
		if (e->op == PTX_BINOP_ASSIGN)
			coloc_buf_puts(b, " = ");
		else if (e->op == PTX_BINOP_MOD)
			coloc_buf_puts(b, " % "); /* "7%3" would lex as 7 and the name %3 */
		else
			coloc_buf_puts(b, ptx_binop_table[e->op].spelling);
		print_operand(e->u.sub.b, prec + 1, b);
		break;
	case PTX_EXPR_COND:
		print_operand(e->u.sub.a, 0, b);
		coloc_buf_puts(b, " ? ");
		print_operand(e->u.sub.b, 0, b);
		coloc_buf_puts(b, " : ");
		print_operand(e->u.sub.c, -1, b);
		break;
	case PTX_EXPR_PAREN:
		coloc_buf_putc(b, '(');
		print_list(e->u.list.head, b);
		coloc_buf_putc(b, ')');
		break;
	case PTX_EXPR_VECTOR:
		coloc_buf_putc(b, '{');
		print_list(e->u.list.head, b);
		coloc_buf_putc(b, '}');
		break;
	case PTX_EXPR_ADDR:
		coloc_buf_putc(b, '[');
		print_list(e->u.list.head, b);
		coloc_buf_putc(b, ']');
		put_ident(b, e->u.list.fn);
		break;
	case PTX_EXPR_INDEX:
		print_operand(e->u.sub.a, 25, b);
		coloc_buf_putc(b, '[');
		ptx_expr_print(e->u.sub.b, b);
		coloc_buf_putc(b, ']');
		break;
	case PTX_EXPR_RANGE:
		put_ident(b, e->u.name.id);
		coloc_buf_putc(b, '<');
		coloc_buf_put_u64(b, e->count);
		coloc_buf_putc(b, '>');
		break;
	case PTX_EXPR_CALL:
		put_ident(b, e->u.list.fn);
		coloc_buf_putc(b, '(');
		print_list(e->u.list.head, b);
		coloc_buf_putc(b, ')');
		break;
	}
}

static void print_linkage(unsigned linkage, struct coloc_buf *b)
{
	if (linkage & PTX_LINK_EXTERN)
		coloc_buf_puts(b, ".extern ");
	if (linkage & PTX_LINK_VISIBLE)
		coloc_buf_puts(b, ".visible ");
	if (linkage & PTX_LINK_WEAK)
		coloc_buf_puts(b, ".weak ");
	if (linkage & PTX_LINK_COMMON)
		coloc_buf_puts(b, ".common ");
}

static void print_decl(const struct ptx_decl *d, struct coloc_buf *b)
{
	const struct ptx_declarator *n;

	print_linkage(d->linkage, b);
	put_ident(b, d->space);
	if (d->attrs) {
		coloc_buf_puts(b, " .attribute(");
		print_list(d->attrs, b);
		coloc_buf_putc(b, ')');
	}
	if (d->align) {
		coloc_buf_puts(b, " .align ");
		coloc_buf_put_u64(b, d->align);
	}
	if (d->vec) {
		coloc_buf_puts(b, " .v");
		coloc_buf_put_u64(b, d->vec);
	}
	coloc_buf_putc(b, ' ');
	put_ident(b, d->type);
	if (d->ptr) {
		coloc_buf_puts(b, " .ptr");
		if (d->ptr_space) {
			coloc_buf_putc(b, ' ');
			put_ident(b, d->ptr_space);
		}
		if (d->ptr_align) {
			coloc_buf_puts(b, " .align ");
			coloc_buf_put_u64(b, d->ptr_align);
		}
	}
	for (n = d->names; n; n = n->next) {
		const struct ptx_dim *dim;

		coloc_buf_puts(b, n == d->names ? " " : ", ");
		put_ident(b, n->name);
		if (n->range >= 0) {
			coloc_buf_putc(b, '<');
			coloc_buf_put_u64(b, (uint64_t)n->range);
			coloc_buf_putc(b, '>');
		}
		for (dim = n->dims; dim; dim = dim->next) {
			coloc_buf_putc(b, '[');
			if (dim->size)
				ptx_expr_print(dim->size, b);
			coloc_buf_putc(b, ']');
		}
		if (n->init) {
			coloc_buf_puts(b, " = ");
			ptx_expr_print(n->init, b);
		}
	}
}

static void print_params(const struct ptx_decl *d, struct coloc_buf *b, int multiline)
{
	coloc_buf_putc(b, '(');
	if (multiline && d)
		coloc_buf_putc(b, '\n');
	for (; d; d = d->next) {
		if (multiline)
			coloc_buf_putc(b, '\t');
		print_decl(d, b);
		if (d->next)
			coloc_buf_puts(b, multiline ? ",\n" : ", ");
		else if (multiline)
			coloc_buf_putc(b, '\n');
	}
	coloc_buf_putc(b, ')');
}

static void print_block(const struct ptx_block *blk, struct coloc_buf *b, int indent)
{
	const struct ptx_stmt *s;

	for (s = blk->head; s; s = s->next)
		ptx_stmt_print(s, b, indent);
}

static void print_dir_args(const struct ptx_stmt *s, struct coloc_buf *b)
{
	if (s->u.dir.args) {
		coloc_buf_putc(b, ' ');
		print_list(s->u.dir.args, b);
	}
}

static void print_func(const struct ptx_func *f, struct coloc_buf *b)
{
	const struct ptx_stmt *s;

	print_linkage(f->linkage, b);
	coloc_buf_puts(b, f->entry ? ".entry " : ".func ");
	if (f->attrs) {
		coloc_buf_puts(b, ".attribute(");
		print_list(f->attrs, b);
		coloc_buf_puts(b, ") ");
	}
	if (f->has_rets) {
		print_params(f->rets, b, 0);
		coloc_buf_putc(b, ' ');
	}
	put_ident(b, f->name);
	print_params(f->params, b, 1);
	coloc_buf_putc(b, '\n');
	for (s = f->dirs.head; s; s = s->next)
		ptx_stmt_print(s, b, 0);
	if (!f->has_body) {
		coloc_buf_puts(b, ";\n");
		return;
	}
	coloc_buf_puts(b, "{\n");
	print_block(&f->body, b, 1);
	coloc_buf_puts(b, "}\n");
}

static void print_insn(const struct ptx_insn *in, struct coloc_buf *b)
{
	uint32_t i;

	if (in->guard) {
		coloc_buf_putc(b, '@');
		if (in->guard_neg)
			coloc_buf_putc(b, '!');
		put_ident(b, in->guard);
		coloc_buf_putc(b, ' ');
	}
	put_ident(b, in->opcode);
	for (i = 0; i < in->nmods; i++)
		put_ident(b, in->mods[i]);
	if (in->operands) {
		coloc_buf_putc(b, '\t');
		print_list(in->operands, b);
	}
	coloc_buf_putc(b, ';');
}

void ptx_stmt_print(const struct ptx_stmt *s, struct coloc_buf *b, int indent)
{
	const struct ptx_expr *a;

	switch (s->kind) {
	case PTX_STMT_LABEL:
		put_indent(b, indent - 1);
		put_ident(b, s->u.label);
		coloc_buf_puts(b, ":\n");
		return;
	case PTX_STMT_FUNC:
		print_func(s->u.func, b);
		return;
	case PTX_STMT_SECTION:
		put_indent(b, indent);
		coloc_buf_puts(b, ".section ");
		put_ident(b, s->u.section.name);
		coloc_buf_putc(b, '\n');
		put_indent(b, indent);
		coloc_buf_puts(b, "{\n");
		print_block(&s->u.section.body, b, indent + 1);
		put_indent(b, indent);
		coloc_buf_puts(b, "}\n");
		return;
	case PTX_STMT_BLOCK:
		put_indent(b, indent);
		coloc_buf_puts(b, "{\n");
		print_block(&s->u.block, b, indent + 1);
		put_indent(b, indent);
		coloc_buf_puts(b, "}\n");
		return;
	default:
		break;
	}

	put_indent(b, indent);
	switch (s->kind) {
	case PTX_STMT_INSN:
		print_insn(&s->u.insn, b);
		break;
	case PTX_STMT_DECL:
		print_decl(s->u.decl, b);
		coloc_buf_putc(b, ';');
		break;
	case PTX_STMT_LOC:
		coloc_buf_puts(b, ".loc");
		/* file line column [, function_name label, inlined_at file line column] */
		{
			unsigned i = 0;

			for (a = s->u.dir.args; a; a = a->next, i++) {
				if (i == 3)
					coloc_buf_puts(b, ", function_name ");
				else if (i == 4)
					coloc_buf_puts(b, ", inlined_at ");
				else
					coloc_buf_putc(b, i == 0 ? '\t' : ' ');
				ptx_expr_print(a, b);
			}
		}
		break;
	case PTX_STMT_PRAGMA:
		coloc_buf_puts(b, ".pragma");
		print_dir_args(s, b);
		coloc_buf_putc(b, ';');
		break;
	case PTX_STMT_BRANCHTARGETS:
	case PTX_STMT_CALLTARGETS:
		put_ident(b, s->u.dir.name);
		coloc_buf_puts(b, s->kind == PTX_STMT_BRANCHTARGETS ? ": .branchtargets" : ": .calltargets");
		print_dir_args(s, b);
		coloc_buf_putc(b, ';');
		break;
	case PTX_STMT_CALLPROTO: {
		const struct ptx_proto *p = s->u.proto;
		const struct ptx_stmt *d;

		put_ident(b, p->label);
		coloc_buf_puts(b, ": .callprototype ");
		if (p->has_rets) {
			print_params(p->rets, b, 0);
			coloc_buf_putc(b, ' ');
		}
		coloc_buf_putc(b, '_');
		if (p->has_params) {
			coloc_buf_putc(b, ' ');
			print_params(p->params, b, 0);
		}
		for (d = p->dirs.head; d; d = d->next) {
			coloc_buf_putc(b, ' ');
			put_ident(b, d->u.dir.name);
			print_dir_args(d, b);
		}
		coloc_buf_putc(b, ';');
		break;
	}
	case PTX_STMT_PERF:
		put_ident(b, s->u.dir.name);
		print_dir_args(s, b);
		break;
	case PTX_STMT_VERSION:
		coloc_buf_puts(b, ".version");
		print_dir_args(s, b);
		break;
	case PTX_STMT_TARGET:
		coloc_buf_puts(b, ".target");
		print_dir_args(s, b);
		break;
	case PTX_STMT_ADDRSIZE:
		coloc_buf_puts(b, ".address_size");
		print_dir_args(s, b);
		break;
	case PTX_STMT_FILE:
		/* .file index "name" [, timestamp, size] */
		coloc_buf_puts(b, ".file\t");
		ptx_expr_print(s->u.dir.args, b);
		coloc_buf_putc(b, ' ');
		print_list(s->u.dir.args->next, b);
		break;
	case PTX_STMT_ALIAS:
		coloc_buf_puts(b, ".alias");
		print_dir_args(s, b);
		coloc_buf_putc(b, ';');
		break;
	case PTX_STMT_DATA:
		put_ident(b, s->u.dir.name);
		print_dir_args(s, b);
		break;
	default:
		break;
	}
	coloc_buf_putc(b, '\n');
}

static bool stands_apart(const struct ptx_stmt *s)
{
	return s->kind == PTX_STMT_FUNC || s->kind == PTX_STMT_SECTION;
}

int ptx_module_print(const struct ptx_module *m, struct coloc_buf *out)
{
	const struct ptx_stmt *s;

	for (s = m->items.head; s; s = s->next) {
		/* Functions and sections are set off by a blank line. */
		if (s->prev && (stands_apart(s) || stands_apart(s->prev)))
			coloc_buf_putc(out, '\n');
		ptx_stmt_print(s, out, 0);
	}
	return out->failed ? -1 : 0;
}
