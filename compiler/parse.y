/*
 * PTX parser: a pure, reentrant bison grammar with locations that builds the
 * arena-owned IR of ptx.h.
 *
 * The grammar is deliberately generic where PTX is open-ended: an
 * instruction is `[@[!]pred] opcode[.mod]* [operand {, operand}] ;` and an
 * operand is a constant expression, a name, a vector {..}, an address [..] or
 * a parenthesised list, so every instruction family, including ones newer
 * than ptx_ops.def, parses without a table entry.  Directives are specific:
 * each has its own shape, and unknown ones are errors.
 *
 * Errors are reported as `file:line:col: error: ...` and the parser resumes
 * after the next ';' so that one run reports several of them.
 */
%define api.pure full
%define api.prefix {ptx_yy}
%define parse.error custom
%locations
/* A token's position is where it starts: two words, cheap to copy. */
%define api.location.type {struct ptx_loc}
%param {void *scanner}
%parse-param {struct ptx_parse_ctx *ctx}

%code requires {
#include "parse_ctx.h"
}

%union {
	const struct ptx_ident *id;
	struct ptx_word word;
	struct ptx_num num;
	struct ptx_expr *expr;
	struct ptx_elist elist;
	struct ptx_stmt *stmt;
	struct ptx_block block;
	struct ptx_decl *decl;
	struct ptx_dlist dlist;
	struct ptx_declarator *dtor;
	struct ptx_dim *dim;
	int64_t range;
	unsigned linkage;
}

%code {
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* Bounds the parser stack, so deep nesting is an error and not a crash. */
#define YYMAXDEPTH 2000
#define YYINITDEPTH 200

int ptx_yylex(PTX_YYSTYPE *yylval, PTX_YYLTYPE *yylloc, void *scanner);
static void ptx_yyerror(PTX_YYLTYPE *loc, void *scanner, struct ptx_parse_ctx *ctx,
			const char *msg);

#define LOC(l) (ptx_loc_of(&(l)))
#define YYLLOC_DEFAULT(cur, rhs, n)                                   \
	do {                                                           \
		if (n)                                                 \
			(cur) = YYRHSLOC(rhs, 1);                      \
		else                                                   \
			(cur) = YYRHSLOC(rhs, 0);                      \
	} while (0)
/* Only the start of a location is kept, so messages print just that. */
#define YYLOCATION_PRINT(file, loc) ((void)(file), (void)(loc), 0)
#define M (ctx->m)
/* Every constructor returns NULL only when the arena is out of memory. */
#define NN(x) do { if (!(x)) YYNOMEM; } while (0)

static struct ptx_loc ptx_loc_of(const PTX_YYLTYPE *l);
static struct ptx_expr *mk_name(struct ptx_parse_ctx *ctx, struct ptx_word w, struct ptx_loc loc);
static struct ptx_expr *mk_num(struct ptx_parse_ctx *ctx, enum ptx_expr_kind kind,
			       struct ptx_num n, struct ptx_loc loc);
static struct ptx_expr *mk_text(struct ptx_parse_ctx *ctx, enum ptx_expr_kind kind,
				const struct ptx_ident *id, struct ptx_loc loc);
static struct ptx_expr *mk_op(struct ptx_parse_ctx *ctx, enum ptx_expr_kind kind, unsigned op,
			      struct ptx_expr *a, struct ptx_expr *b, struct ptx_expr *c,
			      struct ptx_loc loc);
static struct ptx_expr *mk_list(struct ptx_parse_ctx *ctx, enum ptx_expr_kind kind,
				struct ptx_elist l, const struct ptx_ident *fn, struct ptx_loc loc);
static struct ptx_elist el_one(struct ptx_expr *e);
static struct ptx_elist el_add(struct ptx_elist l, struct ptx_expr *e);
static struct ptx_stmt *mk_dir(struct ptx_parse_ctx *ctx, enum ptx_stmt_kind kind,
			       const struct ptx_ident *name, struct ptx_elist args, struct ptx_loc loc);
static struct ptx_stmt *mk_insn(struct ptx_parse_ctx *ctx, const struct ptx_word *guard, bool neg,
				struct ptx_word op, const struct ptx_word *dmods,
				struct ptx_elist operands, struct ptx_loc loc);
static const struct ptx_ident **word_add_mod(struct ptx_parse_ctx *ctx, struct ptx_word *w,
					     const struct ptx_ident *mod);
static const struct ptx_ident *plain_name(struct ptx_parse_ctx *ctx, struct ptx_word w,
					  struct ptx_loc loc, const char *what);
static struct ptx_decl *decl_new(struct ptx_parse_ctx *ctx, const struct ptx_ident *space,
				 struct ptx_loc loc);
static void decl_qual(struct ptx_parse_ctx *ctx, struct ptx_decl *d, const struct ptx_ident *q,
		      struct ptx_loc loc);
static void decl_align(struct ptx_parse_ctx *ctx, struct ptx_decl *d, struct ptx_num n,
		       struct ptx_loc loc);
static int decl_finish(struct ptx_parse_ctx *ctx, struct ptx_decl *d);
static struct ptx_dim *dim_add(struct ptx_parse_ctx *ctx, struct ptx_dim *list, struct ptx_expr *e);
static struct ptx_block blk_add(struct ptx_block b, struct ptx_stmt *s);
static struct ptx_block blk_empty(void);
static int nest_enter(struct ptx_parse_ctx *ctx, struct ptx_loc loc);
static struct ptx_stmt *mk_func(struct ptx_parse_ctx *ctx, unsigned linkage, bool entry,
				bool has_rets, struct ptx_dlist rets, struct ptx_word name,
				struct ptx_dlist params, struct ptx_block dirs,
				struct ptx_block *body, struct ptx_loc loc);
}

%token <word> T_WORD "identifier"
%token <id> T_DOTNAME "directive"
%token <num> T_INT "integer"
%token <num> T_FLOAT "floating-point number"
%token <id> T_STRING "string"
%token <id> T_VERSION ".version"
%token <id> T_TARGET ".target"
%token <id> T_ADDRSIZE ".address_size"
%token <id> T_FILE ".file"
%token <id> T_LOC ".loc"
%token <id> T_SECTION ".section"
%token <id> T_PRAGMA ".pragma"
%token <id> T_ALIAS ".alias"
%token <id> T_ENTRY ".entry"
%token <id> T_FUNC ".func"
%token <id> T_CALLPROTOTYPE ".callprototype"
%token <id> T_CALLTARGETS ".calltargets"
%token <id> T_BRANCHTARGETS ".branchtargets"
%token <id> T_ALIGN ".align"
%token <id> T_PTR ".ptr"
%token <id> T_ATTRIBUTE ".attribute"
%token <id> T_LINKAGE "linkage directive"
%token <id> T_SPACE "state space"
%token <id> T_VECTOR "vector size"
%token <id> T_PERF "performance directive"
%token <id> T_TYPE "type"
/* Never produced from text: selects the statement-list start (snippets). */
%token T_START_SNIPPET "start of snippet"
%token T_SHL "<<"
%token T_SHR ">>"
%token T_LE "<="
%token T_GE ">="
%token T_EQ "=="
%token T_NE "!="
%token T_LAND "&&"
%token T_LOR "||"

%type <expr> expr primary vitem data_expr attr_item index_expr name_item
%type <elist> name_list string_list operands operands_opt expr_list expr_list_opt
%type <elist> vitems vitems_opt int_list perf_args file_tail loc_tail data_list attr_list
%type <elist> func_attrs
%type <word> dmods
%type <stmt> top_item block_item instruction decl_stmt function section_item
%type <block> block_items func_dirs proto_dirs func_body section_items
%type <decl> decl_head param_decl
%type <dlist> param_list params_opt rets_opt proto_rets proto_param_list
%type <dtor> declarator declarators
%type <dim> dims
%type <range> range_opt
%type <expr> init_opt
%type <linkage> linkages
%type <id> dmod_tok

%right '?' ':'
%left T_LOR
%left T_LAND
%left '|'
%left '^'
%left '&'
%left T_EQ T_NE
%left '<' '>' T_LE T_GE
%left T_SHL T_SHR
%left '+' '-'
%left '*' '/' '%'
%precedence UNARY

%%

start
	: module
	| T_START_SNIPPET block_items	{ ctx->snippet = $2; }
	;

module
	: %empty
	| module top_item	{ if ($2) ptx_block_append(&M->items, $2); }
	;

top_item
	: T_VERSION T_FLOAT {
		struct ptx_expr *v = mk_num(ctx, PTX_EXPR_FLOAT, $2, LOC(@2));
		NN(v);
		NN($$ = mk_dir(ctx, PTX_STMT_VERSION, NULL, el_one(v), LOC(@1)));
	}
	| T_TARGET name_list	{ NN($$ = mk_dir(ctx, PTX_STMT_TARGET, NULL, $2, LOC(@1))); }
	| T_ADDRSIZE T_INT {
		struct ptx_expr *v = mk_num(ctx, PTX_EXPR_INT, $2, LOC(@2));
		NN(v);
		NN($$ = mk_dir(ctx, PTX_STMT_ADDRSIZE, NULL, el_one(v), LOC(@1)));
	}
	| T_FILE T_INT T_STRING file_tail {
		struct ptx_expr *n = mk_num(ctx, PTX_EXPR_INT, $2, LOC(@2));
		struct ptx_expr *s = mk_text(ctx, PTX_EXPR_STRING, $3, LOC(@3));
		struct ptx_elist l;
		NN(n && s);
		l = el_add(el_one(n), s);
		if ($4.head) {
			l.tail->next = $4.head;
			l.tail = $4.tail;
			l.count += $4.count;
		}
		NN($$ = mk_dir(ctx, PTX_STMT_FILE, NULL, l, LOC(@1)));
	}
	| T_SECTION T_DOTNAME '{' section_items '}' {
		NN($$ = ptx_stmt_new(M, PTX_STMT_SECTION, LOC(@1)));
		$$->u.section.name = $2;
		$$->u.section.body = $4;
	}
	| T_PRAGMA string_list ';'	{ NN($$ = mk_dir(ctx, PTX_STMT_PRAGMA, NULL, $2, LOC(@1))); }
	| T_ALIAS T_WORD ',' T_WORD ';' {
		struct ptx_expr *a = mk_name(ctx, $2, LOC(@2));
		struct ptx_expr *b = mk_name(ctx, $4, LOC(@4));
		NN(a && b);
		NN($$ = mk_dir(ctx, PTX_STMT_ALIAS, NULL, el_add(el_one(a), b), LOC(@1)));
	}
	| decl_stmt ';'		{ $$ = $1; }
	| function		{ $$ = $1; }
	| error ';'		{ $$ = NULL; yyerrok; }
	| error '}'		{ $$ = NULL; yyerrok; }
	;

file_tail
	: %empty		{ memset(&$$, 0, sizeof($$)); }
	| ',' T_INT ',' T_INT {
		struct ptx_expr *a = mk_num(ctx, PTX_EXPR_INT, $2, LOC(@2));
		struct ptx_expr *b = mk_num(ctx, PTX_EXPR_INT, $4, LOC(@4));
		NN(a && b);
		$$ = el_add(el_one(a), b);
	}
	;

name_list
	: name_item		{ $$ = el_one($1); }
	| name_list ',' name_item	{ $$ = el_add($1, $3); }
	;

/* N<5> stands for N0 .. N4 in .branchtargets lists. */
name_item
	: T_WORD		{ NN($$ = mk_name(ctx, $1, LOC(@1))); }
	| T_WORD '<' T_INT '>' {
		NN($$ = ptx_expr_new(M, PTX_EXPR_RANGE, LOC(@1)));
		NN($$->u.name.id = plain_name(ctx, $1, LOC(@1), "label"));
		if ($3.value > 100000) {
			coloc_error(ctx->diag, LOC(@3), "label range <%llu> is too large",
				    (unsigned long long)$3.value);
			ctx->errors++;
		}
		$$->count = (uint32_t)($3.value > 100000 ? 1 : $3.value);
	}
	;

string_list
	: T_STRING {
		struct ptx_expr *e = mk_text(ctx, PTX_EXPR_STRING, $1, LOC(@1));
		NN(e);
		$$ = el_one(e);
	}
	| string_list ',' T_STRING {
		struct ptx_expr *e = mk_text(ctx, PTX_EXPR_STRING, $3, LOC(@3));
		NN(e);
		$$ = el_add($1, e);
	}
	;

/* Debug sections: data lines (no ';' needed) and labels. */
section_items
	: %empty		{ $$ = blk_empty(); }
	| section_items section_item	{ $$ = blk_add($1, $2); }
	;

section_item
	: T_TYPE data_list opt_semi	{ NN($$ = mk_dir(ctx, PTX_STMT_DATA, $1, $2, LOC(@1))); }
	| T_WORD ':' {
		NN($$ = ptx_stmt_new(M, PTX_STMT_LABEL, LOC(@1)));
		NN($$->u.label = plain_name(ctx, $1, LOC(@1), "label"));
	}
	;

opt_semi
	: %empty
	| ';'
	;

data_list
	: data_expr		{ $$ = el_one($1); }
	| data_list ',' data_expr	{ $$ = el_add($1, $3); }
	;

/* Debug data may name sections (.debug_loc+62) besides labels. */
data_expr
	: expr			{ $$ = $1; }
	| T_DOTNAME		{ NN($$ = mk_text(ctx, PTX_EXPR_NAME, $1, LOC(@1))); }
	| T_DOTNAME '+' expr {
		struct ptx_expr *n = mk_text(ctx, PTX_EXPR_NAME, $1, LOC(@1));
		NN(n);
		NN($$ = mk_op(ctx, PTX_EXPR_BINARY, PTX_BINOP_ADD, n, $3, NULL, LOC(@2)));
	}
	| T_DOTNAME '-' expr {
		struct ptx_expr *n = mk_text(ctx, PTX_EXPR_NAME, $1, LOC(@1));
		NN(n);
		NN($$ = mk_op(ctx, PTX_EXPR_BINARY, PTX_BINOP_SUB, n, $3, NULL, LOC(@2)));
	}
	;

/* .attribute(.managed), .attribute(.unified(0x1, 0x2)) */
attr_list
	: attr_item		{ $$ = el_one($1); }
	| attr_list ',' attr_item	{ $$ = el_add($1, $3); }
	;

attr_item
	: T_DOTNAME		{ NN($$ = mk_text(ctx, PTX_EXPR_NAME, $1, LOC(@1))); }
	| T_DOTNAME '(' expr_list_opt ')'	{ NN($$ = mk_list(ctx, PTX_EXPR_CALL, $3, $1, LOC(@1))); }
	;

/* ---------------------------------------------------------- declarations */

linkages
	: %empty		{ $$ = 0; }
	| linkages T_LINKAGE {
		unsigned bit = 0;
		switch ($2->code) {
		case PTX_DIR_EXTERN: bit = PTX_LINK_EXTERN; break;
		case PTX_DIR_VISIBLE: bit = PTX_LINK_VISIBLE; break;
		case PTX_DIR_WEAK: bit = PTX_LINK_WEAK; break;
		default: bit = PTX_LINK_COMMON; break;
		}
		if ($1 & bit)
			coloc_warning(ctx->diag, LOC(@2), "'%s' given twice", $2->str);
		$$ = $1 | bit;
	}
	;

decl_stmt
	: linkages decl_head declarators {
		$2->linkage = (uint8_t)$1;
		$2->names = $3;
		if (decl_finish(ctx, $2) < 0)
			$$ = NULL;
		else {
			NN($$ = ptx_stmt_new(M, PTX_STMT_DECL, LOC(@2)));
			$$->u.decl = $2;
		}
	}
	;

decl_head
	: T_SPACE		{ NN($$ = decl_new(ctx, $1, LOC(@1))); }
	| T_ALIGN T_INT T_SPACE	{
		NN($$ = decl_new(ctx, $3, LOC(@3)));
		decl_align(ctx, $$, $2, LOC(@2));
	}
	| decl_head T_ALIGN T_INT	{ $$ = $1; decl_align(ctx, $1, $3, LOC(@3)); }
	| decl_head T_VECTOR	{ $$ = $1; decl_qual(ctx, $1, $2, LOC(@2)); }
	| decl_head T_TYPE	{ $$ = $1; decl_qual(ctx, $1, $2, LOC(@2)); }
	| decl_head T_PTR	{ $$ = $1; decl_qual(ctx, $1, $2, LOC(@2)); }
	| decl_head T_SPACE	{ $$ = $1; decl_qual(ctx, $1, $2, LOC(@2)); }
	| decl_head T_ATTRIBUTE '(' attr_list ')' {
		$$ = $1;
		if ($1->attrs) {
			struct ptx_expr *t = $1->attrs;
			while (t->next)
				t = t->next;
			t->next = $4.head;
		} else {
			$1->attrs = $4.head;
		}
		$1->nattrs += $4.count;
	}
	;

declarators
	: declarator		{ $$ = $1; }
	| declarators ',' declarator {
		struct ptx_declarator *t = $1;
		while (t->next)
			t = t->next;
		t->next = $3;
		$$ = $1;
	}
	;

declarator
	: T_WORD range_opt dims init_opt {
		NN($$ = ptx_alloc(M, sizeof(*$$)));
		$$->loc = LOC(@1);
		NN($$->name = plain_name(ctx, $1, LOC(@1), "declared name"));
		$$->range = $2;
		$$->dims = $3;
		$$->init = $4;
	}
	;

range_opt
	: %empty		{ $$ = -1; }
	| '<' T_INT '>' {
		if ($2.value > INT32_MAX) {
			coloc_error(ctx->diag, LOC(@2), "register count %llu is too large",
				    (unsigned long long)$2.value);
			ctx->errors++;
			$$ = 1;
		} else {
			$$ = (int64_t)$2.value;
		}
	}
	;

dims
	: %empty		{ $$ = NULL; }
	| dims '[' expr ']'	{ NN($$ = dim_add(ctx, $1, $3)); }
	| dims '[' ']'		{ NN($$ = dim_add(ctx, $1, NULL)); }
	;

init_opt
	: %empty		{ $$ = NULL; }
	| '=' expr		{ $$ = $2; }
	;

/* ------------------------------------------------------------- functions */

function
	: linkages T_ENTRY T_WORD params_opt func_dirs func_body {
		struct ptx_dlist none = {NULL, NULL, false};
		NN($$ = mk_func(ctx, $1, true, false, none, $3, $4, $5, &$6, LOC(@2)));
	}
	| linkages T_ENTRY T_WORD params_opt func_dirs ';' {
		struct ptx_dlist none = {NULL, NULL, false};
		NN($$ = mk_func(ctx, $1, true, false, none, $3, $4, $5, NULL, LOC(@2)));
	}
	| linkages T_FUNC func_attrs rets_opt T_WORD params_opt func_dirs func_body {
		NN($$ = mk_func(ctx, $1, false, $4.present, $4, $5, $6, $7, &$8, LOC(@2)));
		$$->u.func->attrs = $3.head;
		$$->u.func->nattrs = $3.count;
	}
	| linkages T_FUNC func_attrs rets_opt T_WORD params_opt func_dirs ';' {
		NN($$ = mk_func(ctx, $1, false, $4.present, $4, $5, $6, $7, NULL, LOC(@2)));
		$$->u.func->attrs = $3.head;
		$$->u.func->nattrs = $3.count;
	}
	;

func_attrs
	: %empty		{ memset(&$$, 0, sizeof($$)); }
	| T_ATTRIBUTE '(' attr_list ')'	{ $$ = $3; }
	;

func_body
	: '{' block_items '}'	{ $$ = $2; }
	;

rets_opt
	: %empty		{ $$.head = $$.tail = NULL; $$.present = false; }
	| '(' ')'		{ $$.head = $$.tail = NULL; $$.present = true; }
	| '(' param_list ')'	{ $$ = $2; $$.present = true; }
	;

params_opt
	: %empty		{ $$.head = $$.tail = NULL; $$.present = false; }
	| '(' ')'		{ $$.head = $$.tail = NULL; $$.present = true; }
	| '(' param_list ')'	{ $$ = $2; }
	;

param_list
	: param_decl		{ $$.head = $$.tail = $1; $$.present = true; }
	| param_list ',' param_decl	{ $$ = $1; $$.tail->next = $3; $$.tail = $3; }
	;

param_decl
	: decl_head declarator {
		$$ = $1;
		$$->names = $2;
		if (decl_finish(ctx, $1) < 0)
			YYERROR;
	}
	;

func_dirs
	: %empty		{ $$ = blk_empty(); }
	| func_dirs T_PERF perf_args	{
		struct ptx_stmt *s = mk_dir(ctx, PTX_STMT_PERF, $2, $3, LOC(@2));
		NN(s);
		$$ = blk_add($1, s);
	}
	| func_dirs T_PRAGMA string_list ';' {
		struct ptx_stmt *s = mk_dir(ctx, PTX_STMT_PRAGMA, NULL, $3, LOC(@2));
		NN(s);
		$$ = blk_add($1, s);
	}
	;

perf_args
	: %empty		{ memset(&$$, 0, sizeof($$)); }
	| int_list		{ $$ = $1; }
	;

int_list
	: T_INT {
		struct ptx_expr *e = mk_num(ctx, PTX_EXPR_INT, $1, LOC(@1));
		NN(e);
		$$ = el_one(e);
	}
	| int_list ',' T_INT {
		struct ptx_expr *e = mk_num(ctx, PTX_EXPR_INT, $3, LOC(@3));
		NN(e);
		$$ = el_add($1, e);
	}
	;

/* ---------------------------------------------------------------- bodies */

block_items
	: %empty		{ $$ = blk_empty(); }
	| block_items block_item	{ $$ = blk_add($1, $2); }
	;

block_item
	: T_WORD ':' {
		NN($$ = ptx_stmt_new(M, PTX_STMT_LABEL, LOC(@1)));
		NN($$->u.label = plain_name(ctx, $1, LOC(@1), "label"));
	}
	| T_WORD ':' T_BRANCHTARGETS name_list ';' {
		NN($$ = mk_dir(ctx, PTX_STMT_BRANCHTARGETS, plain_name(ctx, $1, LOC(@1), "label"),
			       $4, LOC(@1)));
	}
	| T_WORD ':' T_CALLTARGETS name_list ';' {
		NN($$ = mk_dir(ctx, PTX_STMT_CALLTARGETS, plain_name(ctx, $1, LOC(@1), "label"),
			       $4, LOC(@1)));
	}
	| T_WORD ':' T_CALLPROTOTYPE proto_rets T_WORD proto_param_list proto_dirs ';' {
		struct ptx_proto *p = ptx_alloc(M, sizeof(*p));
		NN(p);
		NN(p->label = plain_name(ctx, $1, LOC(@1), "label"));
		if (strcmp($5.id->str, "_") != 0 || $5.nmods) {
			coloc_error(ctx->diag, LOC(@5),
				    "a .callprototype has '_' where a function name would be, not '%s'",
				    $5.id->str);
			ctx->errors++;
		}
		p->has_rets = $4.present;
		p->has_params = $6.present;
		p->rets = $4.head;
		p->params = $6.head;
		p->dirs = $7;
		NN($$ = ptx_stmt_new(M, PTX_STMT_CALLPROTO, LOC(@1)));
		$$->u.proto = p;
	}
	| instruction ';'	{ $$ = $1; }
	| decl_stmt ';'		{ $$ = $1; }
	| '{' { if (nest_enter(ctx, LOC(@1)) < 0) YYABORT; } block_items '}' {
		ctx->depth--;
		NN($$ = ptx_stmt_new(M, PTX_STMT_BLOCK, LOC(@1)));
		$$->u.block = $3;
	}
	| T_LOC T_INT T_INT T_INT loc_tail {
		struct ptx_expr *a = mk_num(ctx, PTX_EXPR_INT, $2, LOC(@2));
		struct ptx_expr *b = mk_num(ctx, PTX_EXPR_INT, $3, LOC(@3));
		struct ptx_expr *c = mk_num(ctx, PTX_EXPR_INT, $4, LOC(@4));
		struct ptx_elist l;
		NN(a && b && c);
		l = el_add(el_add(el_one(a), b), c);
		if ($5.head) {
			l.tail->next = $5.head;
			l.tail = $5.tail;
			l.count += $5.count;
		}
		NN($$ = mk_dir(ctx, PTX_STMT_LOC, NULL, l, LOC(@1)));
	}
	| T_PRAGMA string_list ';'	{ NN($$ = mk_dir(ctx, PTX_STMT_PRAGMA, NULL, $2, LOC(@1))); }
	| error ';'		{ $$ = NULL; yyerrok; }
	;

loc_tail
	: %empty		{ memset(&$$, 0, sizeof($$)); }
	| ',' T_WORD data_expr ',' T_WORD T_INT T_INT T_INT {
		struct ptx_expr *a = mk_num(ctx, PTX_EXPR_INT, $6, LOC(@6));
		struct ptx_expr *b = mk_num(ctx, PTX_EXPR_INT, $7, LOC(@7));
		struct ptx_expr *c = mk_num(ctx, PTX_EXPR_INT, $8, LOC(@8));
		NN(a && b && c);
		if (strcmp($2.id->str, "function_name") || $2.nmods) {
			coloc_error(ctx->diag, LOC(@2), "expected 'function_name' after '.loc file line column,'");
			ctx->errors++;
		}
		if (strcmp($5.id->str, "inlined_at") || $5.nmods) {
			coloc_error(ctx->diag, LOC(@5), "expected 'inlined_at' after the function name of '.loc'");
			ctx->errors++;
		}
		$$ = el_add(el_add(el_add(el_one($3), a), b), c);
	}
	;

proto_rets
	: %empty		{ $$.head = $$.tail = NULL; $$.present = false; }
	| '(' ')'		{ $$.head = $$.tail = NULL; $$.present = true; }
	| '(' param_decl ')'	{ $$.head = $$.tail = $2; $$.present = true; }
	;

proto_param_list
	: %empty		{ $$.head = $$.tail = NULL; $$.present = false; }
	| '(' ')'		{ $$.head = $$.tail = NULL; $$.present = true; }
	| '(' param_list ')'	{ $$ = $2; }
	;

proto_dirs
	: %empty		{ $$ = blk_empty(); }
	| proto_dirs T_PERF perf_args {
		struct ptx_stmt *s = mk_dir(ctx, PTX_STMT_PERF, $2, $3, LOC(@2));
		NN(s);
		$$ = blk_add($1, s);
	}
	;

instruction
	: T_WORD dmods operands_opt {
		NN($$ = mk_insn(ctx, NULL, false, $1, &$2, $3, LOC(@1)));
	}
	| '@' T_WORD T_WORD dmods operands_opt {
		NN($$ = mk_insn(ctx, &$2, false, $3, &$4, $5, LOC(@1)));
	}
	| '@' '!' T_WORD T_WORD dmods operands_opt {
		NN($$ = mk_insn(ctx, &$3, true, $4, &$5, $6, LOC(@1)));
	}
	;

/* Qualifiers written apart from the opcode: "add .u32 r, r, r;". */
dmods
	: %empty		{ memset(&$$, 0, sizeof($$)); }
	| dmods dmod_tok	{ $$ = $1; NN(word_add_mod(ctx, &$$, $2)); }
	;

dmod_tok
	: T_DOTNAME | T_TYPE | T_SPACE | T_VECTOR
	;

operands_opt
	: %empty		{ memset(&$$, 0, sizeof($$)); }
	| operands		{ $$ = $1; }
	;

operands
	: expr			{ $$ = el_one($1); }
	| operands ',' expr	{ $$ = el_add($1, $3); }
	;

/* ----------------------------------------------------------- expressions */

expr
	: primary		{ $$ = $1; }
	| '-' expr %prec UNARY	{ NN($$ = mk_op(ctx, PTX_EXPR_UNARY, '-', $2, NULL, NULL, LOC(@1))); }
	| '+' expr %prec UNARY	{ NN($$ = mk_op(ctx, PTX_EXPR_UNARY, '+', $2, NULL, NULL, LOC(@1))); }
	| '!' expr %prec UNARY	{ NN($$ = mk_op(ctx, PTX_EXPR_UNARY, '!', $2, NULL, NULL, LOC(@1))); }
	| '~' expr %prec UNARY	{ NN($$ = mk_op(ctx, PTX_EXPR_UNARY, '~', $2, NULL, NULL, LOC(@1))); }
	| '(' T_TYPE ')' expr %prec UNARY {
		NN($$ = mk_op(ctx, PTX_EXPR_CAST, 0, $4, NULL, NULL, LOC(@1)));
		$$->u.sub.type = $2;
	}
	| expr '*' expr		{ NN($$ = mk_op(ctx, PTX_EXPR_BINARY, PTX_BINOP_MUL, $1, $3, NULL, LOC(@2))); }
	| expr '/' expr		{ NN($$ = mk_op(ctx, PTX_EXPR_BINARY, PTX_BINOP_DIV, $1, $3, NULL, LOC(@2))); }
	| expr '%' expr		{ NN($$ = mk_op(ctx, PTX_EXPR_BINARY, PTX_BINOP_MOD, $1, $3, NULL, LOC(@2))); }
	| expr '+' expr		{ NN($$ = mk_op(ctx, PTX_EXPR_BINARY, PTX_BINOP_ADD, $1, $3, NULL, LOC(@2))); }
	| expr '-' expr		{ NN($$ = mk_op(ctx, PTX_EXPR_BINARY, PTX_BINOP_SUB, $1, $3, NULL, LOC(@2))); }
	| expr T_SHL expr	{ NN($$ = mk_op(ctx, PTX_EXPR_BINARY, PTX_BINOP_SHL, $1, $3, NULL, LOC(@2))); }
	| expr T_SHR expr	{ NN($$ = mk_op(ctx, PTX_EXPR_BINARY, PTX_BINOP_SHR, $1, $3, NULL, LOC(@2))); }
	| expr '<' expr		{ NN($$ = mk_op(ctx, PTX_EXPR_BINARY, PTX_BINOP_LT, $1, $3, NULL, LOC(@2))); }
	| expr '>' expr		{ NN($$ = mk_op(ctx, PTX_EXPR_BINARY, PTX_BINOP_GT, $1, $3, NULL, LOC(@2))); }
	| expr T_LE expr	{ NN($$ = mk_op(ctx, PTX_EXPR_BINARY, PTX_BINOP_LE, $1, $3, NULL, LOC(@2))); }
	| expr T_GE expr	{ NN($$ = mk_op(ctx, PTX_EXPR_BINARY, PTX_BINOP_GE, $1, $3, NULL, LOC(@2))); }
	| expr T_EQ expr	{ NN($$ = mk_op(ctx, PTX_EXPR_BINARY, PTX_BINOP_EQ, $1, $3, NULL, LOC(@2))); }
	| expr T_NE expr	{ NN($$ = mk_op(ctx, PTX_EXPR_BINARY, PTX_BINOP_NE, $1, $3, NULL, LOC(@2))); }
	| expr '&' expr		{ NN($$ = mk_op(ctx, PTX_EXPR_BINARY, PTX_BINOP_AND, $1, $3, NULL, LOC(@2))); }
	| expr '^' expr		{ NN($$ = mk_op(ctx, PTX_EXPR_BINARY, PTX_BINOP_XOR, $1, $3, NULL, LOC(@2))); }
	| expr '|' expr		{ NN($$ = mk_op(ctx, PTX_EXPR_BINARY, PTX_BINOP_OR, $1, $3, NULL, LOC(@2))); }
	| expr T_LAND expr	{ NN($$ = mk_op(ctx, PTX_EXPR_BINARY, PTX_BINOP_LAND, $1, $3, NULL, LOC(@2))); }
	| expr T_LOR expr	{ NN($$ = mk_op(ctx, PTX_EXPR_BINARY, PTX_BINOP_LOR, $1, $3, NULL, LOC(@2))); }
	| expr '?' expr ':' expr	{ NN($$ = mk_op(ctx, PTX_EXPR_COND, 0, $1, $3, $5, LOC(@2))); }
	;

primary
	: T_INT			{ NN($$ = mk_num(ctx, PTX_EXPR_INT, $1, LOC(@1))); }
	| T_FLOAT		{ NN($$ = mk_num(ctx, PTX_EXPR_FLOAT, $1, LOC(@1))); }
	| T_STRING		{ NN($$ = mk_text(ctx, PTX_EXPR_STRING, $1, LOC(@1))); }
	| T_WORD		{ NN($$ = mk_name(ctx, $1, LOC(@1))); }
	| index_expr		{ $$ = $1; }
	| T_WORD '(' expr_list_opt ')' {
		const struct ptx_ident *fn = plain_name(ctx, $1, LOC(@1), "function name");
		NN(fn);
		NN($$ = mk_list(ctx, PTX_EXPR_CALL, $3, fn, LOC(@1)));
	}
	| T_INT '(' expr ')' {
		/* The mask operator of initializers: 0xff00(var + 4). */
		struct ptx_elist l = el_one($3);
		const struct ptx_ident *mask = $1.text;
		if (!mask) {
			char digits[24];
			snprintf(digits, sizeof(digits), "%llu", (unsigned long long)$1.value);
			NN(mask = ptx_intern_cstr(M, digits));
		}
		NN($$ = mk_list(ctx, PTX_EXPR_CALL, l, mask, LOC(@1)));
	}
	| '(' expr_list_opt ')'	{ NN($$ = mk_list(ctx, PTX_EXPR_PAREN, $2, NULL, LOC(@1))); }
	| '{' vitems_opt '}'	{ NN($$ = mk_list(ctx, PTX_EXPR_VECTOR, $2, NULL, LOC(@1))); }
	| '[' expr_list ']'	{ NN($$ = mk_list(ctx, PTX_EXPR_ADDR, $2, NULL, LOC(@1))); }
	| '[' expr_list ']' T_DOTNAME {
		/* [a].unified */
		NN($$ = mk_list(ctx, PTX_EXPR_ADDR, $2, $4, LOC(@1)));
	}
	;

/* Array notation without brackets around the address: A[5], A[%r1+4]. */
index_expr
	: T_WORD '[' expr ']' {
		struct ptx_expr *n = mk_name(ctx, $1, LOC(@1));
		NN(n);
		NN($$ = mk_op(ctx, PTX_EXPR_INDEX, 0, n, $3, NULL, LOC(@2)));
	}
	| index_expr '[' expr ']'	{ NN($$ = mk_op(ctx, PTX_EXPR_INDEX, 0, $1, $3, NULL, LOC(@2))); }
	;

expr_list_opt
	: %empty		{ memset(&$$, 0, sizeof($$)); }
	| expr_list		{ $$ = $1; }
	;

expr_list
	: expr			{ $$ = el_one($1); }
	| expr_list ',' expr	{ $$ = el_add($1, $3); }
	;

vitems_opt
	: %empty		{ memset(&$$, 0, sizeof($$)); }
	| vitems		{ $$ = $1; }
	;

vitems
	: vitem			{ $$ = el_one($1); }
	| vitems ',' vitem	{ $$ = el_add($1, $3); }
	;

/* `name = value` appears in .samplerref initializers. */
vitem
	: expr			{ $$ = $1; }
	| expr '=' expr		{ NN($$ = mk_op(ctx, PTX_EXPR_BINARY, PTX_BINOP_ASSIGN, $1, $3, NULL, LOC(@2))); }
	;

%%

#include "lex.h"

static struct ptx_loc ptx_loc_of(const PTX_YYLTYPE *l)
{
	return *l;
}

static void ptx_yyerror(PTX_YYLTYPE *loc, void *scanner, struct ptx_parse_ctx *ctx,
			const char *msg)
{
	(void)scanner;
	if (strcmp(msg, "memory exhausted") == 0)
		coloc_error(ctx->diag, ptx_loc_of(loc),
			    "nesting too deep; blocks and expressions may nest at most a few "
			    "hundred levels");
	else
		coloc_error(ctx->diag, ptx_loc_of(loc), "%s", msg);
	ctx->errors++;
}

/* Token names come quoted from bison ("\".version\""); print them as '.version'. */
static void put_symbol(struct coloc_buf *b, yysymbol_kind_t sym)
{
	const char *name = yysymbol_name(sym);
	size_t n = strlen(name);

	if (n >= 2 && name[0] == '"' && name[n - 1] == '"') {
		coloc_buf_putc(b, '\'');
		coloc_buf_put(b, name + 1, n - 2);
		coloc_buf_putc(b, '\'');
	} else if (n >= 3 && name[0] == '\'') {
		coloc_buf_puts(b, name);
	} else {
		coloc_buf_puts(b, name);
	}
}

/* Tokens summed up in messages: those that start an operand, binary operators. */
static bool starts_operand(yysymbol_kind_t sym)
{
	const char *name = yysymbol_name(sym);

	if (name[0] == '\'' && name[1] && strchr("({[-+!~", name[1]))
		return true;
	return sym == YYSYMBOL_T_WORD || sym == YYSYMBOL_T_INT || sym == YYSYMBOL_T_FLOAT ||
	       sym == YYSYMBOL_T_STRING;
}

static bool is_operator(yysymbol_kind_t sym)
{
	const char *name = yysymbol_name(sym);

	if (name[0] == '\'' && name[1] && strchr("*/%&|^<>?=", name[1]))
		return true;
	return sym == YYSYMBOL_T_SHL || sym == YYSYMBOL_T_SHR || sym == YYSYMBOL_T_LE ||
	       sym == YYSYMBOL_T_GE || sym == YYSYMBOL_T_EQ || sym == YYSYMBOL_T_NE ||
	       sym == YYSYMBOL_T_LAND || sym == YYSYMBOL_T_LOR;
}

/*
 * "unexpected X, expected A, B or C".  When an expression could go on, the
 * operators are summed up as "an operator" so that the useful choices
 * (';', ',', ']') stay readable.
 */
static int yyreport_syntax_error(const yypcontext_t *yyctx, void *scanner,
				 struct ptx_parse_ctx *ctx)
{
	enum { MAX_EXPECTED = 64, MAX_SHOWN = 6 };
	yysymbol_kind_t expected[MAX_EXPECTED], shown[MAX_SHOWN];
	yysymbol_kind_t tok = yypcontext_token(yyctx);
	int n = yypcontext_expected_tokens(yyctx, expected, MAX_EXPECTED);
	int nshown = 0, ops = 0, operands = 0, i;
	struct coloc_buf b;
	int len = (int)(ctx->tok_len > 80 ? 80 : ctx->tok_len);

	(void)scanner;
	coloc_buf_init(&b);
	if (tok == YYSYMBOL_YYEOF)
		coloc_buf_puts(&b, "unexpected end of file");
	else if (tok == YYSYMBOL_T_DOTNAME)
		coloc_buf_printf(&b, "unknown directive '%.*s'", len, ctx->tok_text);
	else if (tok == YYSYMBOL_YYUNDEF || !ctx->tok_text)
		coloc_buf_puts(&b, "unexpected input");
	else if (tok == YYSYMBOL_T_WORD || tok == YYSYMBOL_T_INT || tok == YYSYMBOL_T_FLOAT ||
		 tok == YYSYMBOL_T_STRING) {
		coloc_buf_puts(&b, "unexpected ");
		put_symbol(&b, tok);
		coloc_buf_printf(&b, " '%.*s'", len, ctx->tok_text);
	} else if (ctx->tok_text[0] == '.') {
		coloc_buf_printf(&b, "unexpected '%.*s'", len, ctx->tok_text);
	} else {
		coloc_buf_puts(&b, "unexpected ");
		put_symbol(&b, tok);
	}
	for (i = 0; i < n; i++)
		operands += starts_operand(expected[i]);
	for (i = 0; i < n; i++) {
		if (operands >= 3 && starts_operand(expected[i]))
			continue;
		if (is_operator(expected[i]) || (operands < 3 && starts_operand(expected[i]) &&
						 strchr("+-", yysymbol_name(expected[i])[1])))
			ops++;
		else if (nshown < MAX_SHOWN)
			shown[nshown++] = expected[i];
		else
			nshown = MAX_SHOWN + 1;
	}
	if (n > 0 && nshown <= MAX_SHOWN) {
		int groups = (operands >= 3) + (ops > 0), k = 0, total = nshown + groups;

		coloc_buf_puts(&b, ", expected ");
		for (i = 0; i < nshown; i++, k++) {
			if (k)
				coloc_buf_puts(&b, k == total - 1 ? " or " : ", ");
			put_symbol(&b, shown[i]);
		}
		if (operands >= 3) {
			if (k)
				coloc_buf_puts(&b, k == total - 1 ? " or " : ", ");
			coloc_buf_puts(&b, "an operand");
			k++;
		}
		if (ops) {
			if (k)
				coloc_buf_puts(&b, k == total - 1 ? " or " : ", ");
			coloc_buf_puts(&b, "an operator");
		}
	}
	if (coloc_buf_cstr(&b))
		coloc_error(ctx->diag, ptx_loc_of(yypcontext_location(yyctx)), "%s", b.data);
	coloc_buf_release(&b);
	ctx->errors++;
	return 0;
}

static struct ptx_expr *mk_name(struct ptx_parse_ctx *ctx, struct ptx_word w, struct ptx_loc loc)
{
	struct ptx_expr *e = ptx_expr_new(M, PTX_EXPR_NAME, loc);

	if (!e)
		return NULL;
	e->u.name.id = w.id;
	if (w.nmods > 1) {
		coloc_error(ctx->diag, loc,
			    "'%s%s%s' is not an operand; a name takes at most one component such as '.x'",
			    w.id->str, w.mods[0]->str, w.mods[1]->str);
		ctx->errors++;
	}
	if (w.nmods)
		e->u.name.comp = w.mods[0];
	return e;
}

static const struct ptx_ident *plain_name(struct ptx_parse_ctx *ctx, struct ptx_word w,
					  struct ptx_loc loc, const char *what)
{
	if (w.nmods) {
		coloc_error(ctx->diag, loc, "%s '%s%s' may not contain '.'", what, w.id->str,
			    w.mods[0]->str);
		ctx->errors++;
	}
	return w.id;
}

static struct ptx_expr *mk_num(struct ptx_parse_ctx *ctx, enum ptx_expr_kind kind,
			       struct ptx_num n, struct ptx_loc loc)
{
	struct ptx_expr *e = ptx_expr_new(M, kind, loc);

	if (!e)
		return NULL;
	e->op = n.flags;
	e->u.num.value = n.value;
	e->u.num.text = n.text;
	return e;
}

static struct ptx_expr *mk_text(struct ptx_parse_ctx *ctx, enum ptx_expr_kind kind,
				const struct ptx_ident *id, struct ptx_loc loc)
{
	struct ptx_expr *e = ptx_expr_new(M, kind, loc);

	if (!e)
		return NULL;
	if (kind == PTX_EXPR_NAME)
		e->u.name.id = id;
	else
		e->u.num.text = id;
	return e;
}

static struct ptx_expr *mk_op(struct ptx_parse_ctx *ctx, enum ptx_expr_kind kind, unsigned op,
			      struct ptx_expr *a, struct ptx_expr *b, struct ptx_expr *c,
			      struct ptx_loc loc)
{
	struct ptx_expr *e = ptx_expr_new(M, kind, loc);

	if (!e)
		return NULL;
	e->op = (uint8_t)op;
	e->u.sub.a = a;
	e->u.sub.b = b;
	e->u.sub.c = c;
	return e;
}

static struct ptx_expr *mk_list(struct ptx_parse_ctx *ctx, enum ptx_expr_kind kind,
				struct ptx_elist l, const struct ptx_ident *fn, struct ptx_loc loc)
{
	struct ptx_expr *e = ptx_expr_new(M, kind, loc);

	if (!e)
		return NULL;
	e->count = l.count;
	e->u.list.head = l.head;
	e->u.list.fn = fn;
	return e;
}

static struct ptx_elist el_one(struct ptx_expr *e)
{
	struct ptx_elist l = {e, e, 1};

	return l;
}

static struct ptx_elist el_add(struct ptx_elist l, struct ptx_expr *e)
{
	l.tail->next = e;
	l.tail = e;
	l.count++;
	return l;
}

static struct ptx_stmt *mk_dir(struct ptx_parse_ctx *ctx, enum ptx_stmt_kind kind,
			       const struct ptx_ident *name, struct ptx_elist args, struct ptx_loc loc)
{
	struct ptx_stmt *s = ptx_stmt_new(M, kind, loc);

	if (!s)
		return NULL;
	s->u.dir.name = name;
	s->u.dir.args = args.head;
	s->u.dir.nargs = args.count;
	return s;
}

static const struct ptx_ident **word_add_mod(struct ptx_parse_ctx *ctx, struct ptx_word *w,
					     const struct ptx_ident *mod)
{
	const struct ptx_ident **mods = ptx_alloc(M, (w->nmods + 1) * sizeof(*mods));

	if (!mods)
		return NULL;
	if (w->nmods)
		memcpy(mods, w->mods, w->nmods * sizeof(*mods));
	mods[w->nmods++] = mod;
	w->mods = mods;
	return mods;
}

static struct ptx_stmt *mk_insn(struct ptx_parse_ctx *ctx, const struct ptx_word *guard, bool neg,
				struct ptx_word op, const struct ptx_word *dmods,
				struct ptx_elist operands, struct ptx_loc loc)
{
	struct ptx_stmt *s = ptx_stmt_new(M, PTX_STMT_INSN, loc);
	uint32_t i;

	if (!s)
		return NULL;
	for (i = 0; dmods && i < dmods->nmods; i++)
		if (!word_add_mod(ctx, &op, dmods->mods[i]))
			return NULL;
	if (op.nmods > UINT16_MAX || operands.count > UINT16_MAX) {
		coloc_error(ctx->diag, loc, "instruction '%s' has %u qualifiers and %u operands; "
			    "at most %u of each are accepted", op.id->str, op.nmods, operands.count,
			    (unsigned)UINT16_MAX);
		ctx->errors++;
		return s;
	}
	s->u.insn.opcode = op.id;
	s->u.insn.op = op.id->kind == PTX_IDENT_OP ? op.id->code : PTX_OP_UNKNOWN;
	s->u.insn.mods = op.mods;
	s->u.insn.nmods = (uint16_t)op.nmods;
	s->u.insn.operands = operands.head;
	s->u.insn.noperands = (uint16_t)operands.count;
	if (guard) {
		s->u.insn.guard = plain_name(ctx, *guard, loc, "guard predicate");
		s->u.insn.guard_neg = neg;
	}
	return s;
}

static struct ptx_decl *decl_new(struct ptx_parse_ctx *ctx, const struct ptx_ident *space,
				 struct ptx_loc loc)
{
	struct ptx_decl *d = ptx_alloc(M, sizeof(*d));

	if (!d)
		return NULL;
	d->loc = loc;
	d->space = space;
	return d;
}

/*
 * Qualifiers may come in any order; the position of .ptr decides whether a
 * following state space or .align belongs to the pointer (kernel parameter
 * attributes) or to the variable.
 */
static void decl_qual(struct ptx_parse_ctx *ctx, struct ptx_decl *d, const struct ptx_ident *q,
		      struct ptx_loc loc)
{
	switch (ptx_dir_table[q->code].cls) {
	case PTX_DC_VECTOR:
		if (d->vec)
			goto twice;
		d->vec = (uint8_t)(q->code == PTX_DIR_V2 ? 2 : q->code == PTX_DIR_V4 ? 4 : 8);
		return;
	case PTX_DC_TYPE:
		if (d->type)
			goto twice;
		d->type = q;
		return;
	case PTX_DC_PTR:
		if (d->ptr)
			goto twice;
		d->ptr = true;
		return;
	case PTX_DC_SPACE:
		if (!d->ptr) {
			coloc_error(ctx->diag, loc,
				    "second state space '%s' in a declaration of '%s'; only '.ptr' may "
				    "be followed by a state space",
				    q->str, d->space->str);
			ctx->errors++;
			return;
		}
		if (d->ptr_space)
			goto twice;
		d->ptr_space = q;
		return;
	default:
		break;
	}
	return;
twice:
	coloc_error(ctx->diag, loc, "'%s' conflicts with an earlier qualifier of this declaration", q->str);
	ctx->errors++;
}

static void decl_align(struct ptx_parse_ctx *ctx, struct ptx_decl *d, struct ptx_num n,
		       struct ptx_loc loc)
{
	uint32_t *slot = d->ptr ? &d->ptr_align : &d->align;

	if (n.value == 0 || n.value > (1u << 20) || (n.value & (n.value - 1))) {
		coloc_error(ctx->diag, loc, "alignment %llu is not a power of two between 1 and 2^20",
			    (unsigned long long)n.value);
		ctx->errors++;
		return;
	}
	if (*slot) {
		coloc_error(ctx->diag, loc, "'.align' given twice");
		ctx->errors++;
		return;
	}
	*slot = (uint32_t)n.value;
}

static int decl_finish(struct ptx_parse_ctx *ctx, struct ptx_decl *d)
{
	if (!d->type) {
		coloc_error(ctx->diag, d->loc, "declaration in '%s' has no type; expected one such as '.b32'",
			    d->space->str);
		ctx->errors++;
		return -1;
	}
	return 0;
}

static struct ptx_dim *dim_add(struct ptx_parse_ctx *ctx, struct ptx_dim *list, struct ptx_expr *e)
{
	struct ptx_dim *d = ptx_alloc(M, sizeof(*d)), *t;

	if (!d)
		return NULL;
	d->size = e;
	if (!list)
		return d;
	for (t = list; t->next; t = t->next)
		;
	t->next = d;
	return list;
}

static struct ptx_block blk_empty(void)
{
	struct ptx_block b = {NULL, NULL};

	return b;
}

static struct ptx_block blk_add(struct ptx_block b, struct ptx_stmt *s)
{
	if (s)
		ptx_block_append(&b, s);
	return b;
}

static int nest_enter(struct ptx_parse_ctx *ctx, struct ptx_loc loc)
{
	if (++ctx->depth > PTX_MAX_NESTING) {
		coloc_error(ctx->diag, loc, "blocks nest deeper than %d levels", PTX_MAX_NESTING);
		ctx->errors++;
		return -1;
	}
	return 0;
}

static struct ptx_stmt *mk_func(struct ptx_parse_ctx *ctx, unsigned linkage, bool entry,
				bool has_rets, struct ptx_dlist rets, struct ptx_word name,
				struct ptx_dlist params, struct ptx_block dirs,
				struct ptx_block *body, struct ptx_loc loc)
{
	struct ptx_stmt *s = ptx_stmt_new(M, PTX_STMT_FUNC, loc);
	struct ptx_func *f = ptx_alloc(M, sizeof(*f));

	if (!s || !f)
		return NULL;
	f->linkage = (uint8_t)linkage;
	f->entry = entry;
	f->has_rets = has_rets;
	f->name = plain_name(ctx, name, loc, "function name");
	f->rets = rets.head;
	f->params = params.head;
	f->dirs = dirs;
	if (body) {
		f->has_body = true;
		f->body = *body;
	}
	s->u.func = f;
	return s;
}

/*
 * `inplace` scans text[0..len) where it lies (text[len] and text[len + 1]
 * must be NUL, and flex writes into the buffer while it works); otherwise
 * flex takes a copy.
 */
static int run_parser(struct ptx_module *m, const char *text, char *inplace, size_t len,
		      bool snippet, struct ptx_block *out, struct coloc_diag *diag)
{
	struct ptx_parse_ctx ctx;
	yyscan_t scanner;
	jmp_buf fatal;
	YY_BUFFER_STATE buf;
	struct ptx_loc none = {0, 0};
	int rc;

	if (len > INT_MAX - 2) {
		coloc_error(diag, none, "input of %zu bytes is too large; at most 2 GiB is accepted", len);
		return -1;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.m = m;
	ctx.diag = diag;
	ctx.line = 1;
	ctx.col = 1;
	ctx.fatal = &fatal;
	ctx.start_token = snippet ? T_START_SNIPPET : 0;
	if (ptx_yylex_init_extra(&ctx, &scanner)) {
		coloc_error(diag, none, "out of memory");
		return -1;
	}
	if (setjmp(fatal)) {
		coloc_error(diag, none, "lexer failure: %s", ctx.fatal_msg);
		ptx_yylex_destroy(scanner);
		return -1;
	}
	if (inplace)
		buf = ptx_yy_scan_buffer(inplace, len + 2, scanner);
	else
		buf = ptx_yy_scan_bytes(text, (int)len, scanner);
	if (!buf) {
		coloc_error(diag, none, "cannot scan the input buffer");
		ptx_yylex_destroy(scanner);
		return -1;
	}
	rc = ptx_yyparse(scanner, &ctx);
	ptx_yy_delete_buffer(buf, scanner);
	ptx_yylex_destroy(scanner);
	if (m->oom)
		coloc_error(diag, none, "out of memory while parsing");
	if (rc || ctx.errors || m->oom)
		return -1;
	if (out)
		*out = ctx.snippet;
	return 0;
}

/*
 * `inplace` scans text[0..len) where it lies (text[len] and text[len + 1]
 * must be NUL, and flex writes into the buffer while it works); otherwise
 * flex takes a copy.
 */
static struct ptx_module *parse(const char *text, char *inplace, size_t len, const char *filename,
				struct coloc_diag *diag)
{
	struct ptx_module *m = ptx_module_new(filename);

	if (!m) {
		coloc_error(diag, PTX_NOLOC, "out of memory");
		return NULL;
	}
	if (run_parser(m, text, inplace, len, false, NULL, diag) < 0) {
		ptx_module_free(m);
		return NULL;
	}
	return m;
}

struct ptx_module *ptx_parse(const char *text, size_t len, const char *filename,
			     struct coloc_diag *diag)
{
	return parse(text, NULL, len, filename, diag);
}

struct ptx_module *ptx_parse_inplace(char *text, size_t len, const char *filename,
				     struct coloc_diag *diag)
{
	if (text[len] != '\0' || text[len + 1] != '\0') {
		coloc_error(diag, PTX_NOLOC, "internal error: in-place input must end in two NULs");
		return NULL;
	}
	return parse(NULL, text, len, filename, diag);
}

int ptx_parse_snippet(struct ptx_module *m, const char *text, struct ptx_block *out,
		      struct coloc_diag *diag)
{
	struct ptx_block got = {NULL, NULL};

	if (run_parser(m, text, NULL, strlen(text), true, &got, diag) < 0)
		return -1;
	*out = got;
	return 0;
}
