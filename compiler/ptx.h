/*
 * The PTX intermediate representation.
 *
 * A module owns an arena; every node, list and interned name lives in it and
 * goes away with ptx_module_free().  Names are interned, so two identifiers
 * are equal exactly when their `struct ptx_ident *` are equal.
 *
 * The IR keeps everything the source said except comments and layout:
 * instructions are an opcode word, its modifiers and operand expressions,
 * whether or not the opcode is in ptx_ops.def, so an instruction from a
 * newer ISA prints back as it came.  Literals keep their spelling.
 */
#ifndef COLOC_PTX_H
#define COLOC_PTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "buf.h"
#include "diag.h"

enum ptx_op {
	PTX_OP_UNKNOWN,
#define PTX_OP(id, s, f) PTX_OP_##id,
#include "ptx_ops.def"
	PTX_OP_COUNT
};

enum ptx_dir {
	PTX_DIR_NONE,
#define PTX_DIR(id, s, c) PTX_DIR_##id,
#include "ptx_ops.def"
	PTX_DIR_COUNT
};

enum ptx_sreg {
	PTX_SREG_NONE,
#define PTX_SREG(id, s, f) PTX_SREG_##id,
#include "ptx_ops.def"
	PTX_SREG_COUNT
};

enum ptx_binop {
#define PTX_BINOP(id, s, p) PTX_BINOP_##id,
#include "ptx_ops.def"
	PTX_BINOP_COUNT
};

enum ptx_op_flags {
	PTX_OPF_MEM = 1 << 0,     /* takes an address operand [..] */
	PTX_OPF_BRANCH = 1 << 1,
	PTX_OPF_CALL = 1 << 2,
	PTX_OPF_RET = 1 << 3,
	PTX_OPF_EXIT = 1 << 4,
	PTX_OPF_BARRIER = 1 << 5,
};

enum ptx_sreg_flags {
	PTX_SRF_VEC = 1 << 0, /* read as %name.x / .y / .z */
};

enum ptx_dir_class {
	PTX_DC_NONE,
	PTX_DC_VERSION,
	PTX_DC_TARGET,
	PTX_DC_ADDRESS_SIZE,
	PTX_DC_FILE,
	PTX_DC_LOC,
	PTX_DC_SECTION,
	PTX_DC_PRAGMA,
	PTX_DC_ALIAS,
	PTX_DC_ENTRY,
	PTX_DC_FUNC,
	PTX_DC_CALLPROTOTYPE,
	PTX_DC_CALLTARGETS,
	PTX_DC_BRANCHTARGETS,
	PTX_DC_ALIGN,
	PTX_DC_PTR,
	PTX_DC_ATTRIBUTE,
	PTX_DC_LINKAGE,
	PTX_DC_SPACE,
	PTX_DC_VECTOR,
	PTX_DC_PERF,
	PTX_DC_TYPE,
};

struct ptx_op_info {
	const char *name;
	unsigned flags;
};

struct ptx_dir_info {
	const char *name;
	enum ptx_dir_class cls;
};

struct ptx_sreg_info {
	const char *name;
	unsigned flags;
};

struct ptx_binop_info {
	const char *spelling;
	int prec;
};

extern const struct ptx_op_info ptx_op_table[PTX_OP_COUNT];
extern const struct ptx_dir_info ptx_dir_table[PTX_DIR_COUNT];
extern const struct ptx_sreg_info ptx_sreg_table[PTX_SREG_COUNT];
extern const struct ptx_binop_info ptx_binop_table[PTX_BINOP_COUNT];

/* ---------------------------------------------------------------- names */

enum ptx_ident_kind {
	PTX_IDENT_PLAIN,
	PTX_IDENT_OP,   /* code is an enum ptx_op */
	PTX_IDENT_DIR,  /* code is an enum ptx_dir */
	PTX_IDENT_SREG, /* code is an enum ptx_sreg */
};

struct ptx_ident {
	const void *aux; /* the lexer's split form of a dotted word */
	uint32_t hash;
	uint32_t len;
	uint16_t kind;
	uint16_t code;
	char str[];
};

struct ptx_name_slot {
	uint32_t hash;
	struct ptx_ident *id;
};

#define PTX_RECENT_NAMES 8192

struct ptx_interner {
	struct ptx_ident *recent[PTX_RECENT_NAMES]; /* direct-mapped by hash */
	struct ptx_name_slot *slots;
	uint32_t mask;
	uint32_t count;
};

/* ---------------------------------------------------------- expressions */

enum ptx_expr_kind {
	PTX_EXPR_NAME,   /* register, variable, label, function; maybe with .x */
	PTX_EXPR_INT,
	PTX_EXPR_FLOAT,
	PTX_EXPR_STRING,
	PTX_EXPR_UNARY,  /* op is one of '-', '+', '!', '~' */
	PTX_EXPR_BINARY, /* op is an enum ptx_binop */
	PTX_EXPR_COND,   /* a ? b : c */
	PTX_EXPR_CAST,   /* (.type) a */
	PTX_EXPR_PAREN,  /* ( list ): grouping, call argument lists */
	PTX_EXPR_VECTOR, /* { list }: vector operands, initializers */
	PTX_EXPR_ADDR,   /* [ list ]: addresses, texture operands */
	PTX_EXPR_CALL,   /* fn ( list ): generic(x), .unified(a, b), 0xff(x) */
	PTX_EXPR_INDEX,  /* a[b]: array notation, A[5] */
	PTX_EXPR_RANGE,  /* name<count> in .branchtargets lists */
};

/* PTX_EXPR_INT flags (in op). */
#define PTX_INT_UNSIGNED 1u /* written with a U suffix */

/* PTX_EXPR_FLOAT forms (in op). */
enum ptx_float_form {
	PTX_FLOAT_HEX32, /* 0f and 8 hex digits: value holds the bits */
	PTX_FLOAT_HEX64, /* 0d and 16 hex digits: value holds the bits */
	PTX_FLOAT_DEC,   /* 1.5, 2e3: value holds the double's bits */
};

struct ptx_expr {
	struct ptx_expr *next; /* next item of the enclosing list */
	struct ptx_loc loc;
	uint8_t kind;
	uint8_t op;
	uint32_t count; /* items in a PAREN, VECTOR, ADDR or CALL list; RANGE count */
	union {
		struct {
			const struct ptx_ident *id;
			const struct ptx_ident *comp; /* ".x" etc., or NULL */
		} name;
		struct {
			uint64_t value;
			const struct ptx_ident *text; /* spelling; NULL prints value */
		} num;
		struct {
			struct ptx_expr *a, *b;
			union {
				struct ptx_expr *c;           /* COND */
				const struct ptx_ident *type; /* CAST */
			};
		} sub;
		struct {
			struct ptx_expr *head;
			const struct ptx_ident *fn; /* CALL; ADDR suffix ([a].unified) */
		} list;
	} u;
};

/* --------------------------------------------------------- declarations */

enum ptx_linkage {
	PTX_LINK_EXTERN = 1 << 0,
	PTX_LINK_VISIBLE = 1 << 1,
	PTX_LINK_WEAK = 1 << 2,
	PTX_LINK_COMMON = 1 << 3,
};

struct ptx_dim {
	struct ptx_dim *next;
	struct ptx_expr *size; /* NULL for [] */
};

struct ptx_declarator {
	struct ptx_declarator *next;
	struct ptx_loc loc;
	const struct ptx_ident *name;
	int64_t range;          /* %r<N> declares N registers; -1 if no <N> */
	struct ptx_dim *dims;
	struct ptx_expr *init;  /* NULL if no initializer */
};

struct ptx_decl {
	struct ptx_decl *next; /* next parameter in a parameter list */
	struct ptx_loc loc;
	uint8_t linkage;
	uint8_t vec;           /* 0, 2, 4 or 8 */
	bool ptr;              /* .ptr [space] [.align n] on a kernel param */
	const struct ptx_ident *space;
	const struct ptx_ident *type;
	uint32_t align;        /* 0: none written */
	const struct ptx_ident *ptr_space;
	uint32_t ptr_align;
	struct ptx_expr *attrs; /* items of .attribute( ... ) */
	uint32_t nattrs;
	struct ptx_declarator *names;
};

/* ----------------------------------------------------------- statements */

enum ptx_stmt_kind {
	/* function bodies */
	PTX_STMT_INSN,
	PTX_STMT_LABEL,
	PTX_STMT_DECL,
	PTX_STMT_BLOCK,
	PTX_STMT_LOC,
	PTX_STMT_PRAGMA,
	PTX_STMT_BRANCHTARGETS,
	PTX_STMT_CALLTARGETS,
	PTX_STMT_CALLPROTO,
	/* function headers */
	PTX_STMT_PERF,
	/* module level */
	PTX_STMT_VERSION,
	PTX_STMT_TARGET,
	PTX_STMT_ADDRSIZE,
	PTX_STMT_FILE,
	PTX_STMT_SECTION,
	PTX_STMT_ALIAS,
	PTX_STMT_FUNC,
	/* inside .section */
	PTX_STMT_DATA,
};

struct ptx_stmt;

struct ptx_block {
	struct ptx_stmt *head;
	struct ptx_stmt *tail;
};

struct ptx_insn {
	const struct ptx_ident *opcode;  /* first word, e.g. "ld" */
	/* ".global", ".v4", ".L2::128B", ...; arrays may be shared between
	 * instructions: replace them, never write into them. */
	const struct ptx_ident **mods;
	const struct ptx_ident *guard;   /* @p, or NULL */
	struct ptx_expr *operands;
	uint16_t op;                     /* enum ptx_op; PTX_OP_UNKNOWN if not in the table */
	uint16_t nmods;
	uint16_t noperands;
	bool guard_neg;                  /* @!p */
};

struct ptx_func {
	uint8_t linkage;
	bool entry;      /* .entry rather than .func */
	bool has_rets;   /* .func (ret) name */
	bool has_body;   /* false for a prototype ending in ';' */
	const struct ptx_ident *name;
	struct ptx_expr *attrs; /* .func .attribute( ... ) */
	uint32_t nattrs;
	struct ptx_decl *rets;
	struct ptx_decl *params;
	struct ptx_block dirs; /* PTX_STMT_PERF and PTX_STMT_PRAGMA */
	struct ptx_block body;
};

struct ptx_proto {
	const struct ptx_ident *label;
	bool has_rets;
	bool has_params; /* "_ .noreturn" has no parameter list at all */
	struct ptx_decl *rets;
	struct ptx_decl *params;
	struct ptx_block dirs; /* .noreturn, .abi_preserve... */
};

struct ptx_stmt {
	struct ptx_stmt *prev;
	struct ptx_stmt *next;
	struct ptx_loc loc;
	uint8_t kind;
	union {
		struct ptx_insn insn;
		const struct ptx_ident *label;
		struct ptx_decl *decl;
		struct ptx_block block;
		/*
		 * LOC, PRAGMA, BRANCHTARGETS, CALLTARGETS, PERF, VERSION,
		 * TARGET, ADDRSIZE, FILE, ALIAS, DATA: an optional name (the
		 * label of .branchtargets, the directive of PERF, the type of
		 * DATA) and the operands.
		 */
		struct {
			const struct ptx_ident *name;
			struct ptx_expr *args;
			uint32_t nargs;
		} dir;
		struct {
			const struct ptx_ident *name;
			struct ptx_block body;
		} section;
		struct ptx_func *func;
		struct ptx_proto *proto;
	} u;
};

struct ptx_module {
	struct coloc_arena arena;
	struct ptx_interner names;
	struct ptx_block items;
	const char *filename;
	int oom; /* an allocation failed; the module is unusable */
};

/* Block nesting beyond this is an error rather than a risk to the stack. */
#define PTX_MAX_NESTING 256

/* ------------------------------------------------------------ interface */

struct ptx_module *ptx_module_new(const char *filename);
void ptx_module_free(struct ptx_module *m);

const struct ptx_ident *ptx_intern(struct ptx_module *m, const char *s, size_t len);
const struct ptx_ident *ptx_intern_cstr(struct ptx_module *m, const char *s);
/* Looks a name up without adding it; NULL when it was never interned. */
const struct ptx_ident *ptx_lookup(const struct ptx_module *m, const char *s, size_t len);

void *ptx_alloc(struct ptx_module *m, size_t size);
struct ptx_stmt *ptx_stmt_new(struct ptx_module *m, enum ptx_stmt_kind kind, struct ptx_loc loc);
struct ptx_expr *ptx_expr_new(struct ptx_module *m, enum ptx_expr_kind kind, struct ptx_loc loc);

void ptx_block_append(struct ptx_block *b, struct ptx_stmt *s);
void ptx_block_insert_before(struct ptx_block *b, struct ptx_stmt *pos, struct ptx_stmt *s);
void ptx_block_insert_after(struct ptx_block *b, struct ptx_stmt *pos, struct ptx_stmt *s);
void ptx_block_remove(struct ptx_block *b, struct ptx_stmt *s);
/* Moves every statement of src to the end of dst. */
void ptx_block_splice(struct ptx_block *dst, struct ptx_block *src);

/* Parses PTX text; NULL after diagnostics when anything was wrong. */
struct ptx_module *ptx_parse(const char *text, size_t len, const char *filename,
			     struct coloc_diag *diag);
/* The same without a copy: text[len] and text[len + 1] must be NUL, and the
 * buffer is written to (and restored) while it is scanned. */
struct ptx_module *ptx_parse_inplace(char *text, size_t len, const char *filename,
				     struct coloc_diag *diag);

/*
 * Parses function-body statements (instructions, declarations, labels) into
 * `out`, interning names in `m`: how passes build new code.  Returns 0, or
 * -1 after diagnostics.
 */
int ptx_parse_snippet(struct ptx_module *m, const char *text, struct ptx_block *out,
		      struct coloc_diag *diag);

/* Canonical text; printing the parse of the output gives the same bytes. */
int ptx_module_print(const struct ptx_module *m, struct coloc_buf *out);
void ptx_expr_print(const struct ptx_expr *e, struct coloc_buf *out);
void ptx_stmt_print(const struct ptx_stmt *s, struct coloc_buf *out, int indent);

/* Checks what the passes rely on; returns the number of errors reported. */
unsigned ptx_module_verify(const struct ptx_module *m, struct coloc_diag *diag);

/* Helpers for analyses and passes. */
bool ptx_insn_has_mod(const struct ptx_insn *insn, const char *mod);
int ptx_module_version(const struct ptx_module *m, unsigned *major, unsigned *minor);
/* Rewrites the module's .version to major.minor; -1 when it has none. */
int ptx_module_set_version(struct ptx_module *m, unsigned major, unsigned minor);
const char *ptx_module_target(const struct ptx_module *m);
struct ptx_expr *ptx_expr_clone(struct ptx_module *m, const struct ptx_expr *e);
struct ptx_func *ptx_func_clone(struct ptx_module *m, const struct ptx_func *f,
				const struct ptx_ident *name);

#endif
