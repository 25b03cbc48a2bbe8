/* State shared by the reentrant lexer and the pure parser. */
#ifndef COLOC_PARSE_CTX_H
#define COLOC_PARSE_CTX_H

#include <setjmp.h>

#include "ptx.h"

/* An identifier, opcode or register with its dotted suffixes split off. */
struct ptx_word {
	const struct ptx_ident *id;
	const struct ptx_ident **mods;
	uint32_t nmods;
};

struct ptx_num {
	uint64_t value;
	const struct ptx_ident *text;
	uint8_t flags; /* PTX_INT_* or enum ptx_float_form */
};

struct ptx_elist {
	struct ptx_expr *head;
	struct ptx_expr *tail;
	uint32_t count;
};

struct ptx_dlist {
	struct ptx_decl *head;
	struct ptx_decl *tail;
	bool present; /* written, even if empty: "()" */
};

struct ptx_parse_ctx {
	struct ptx_module *m;
	struct coloc_diag *diag;
	void *scanner;
	uint32_t line; /* position of the next character the lexer reads */
	uint32_t col;
	uint32_t depth; /* nesting of { } blocks */
	struct ptx_loc comment_at; /* where the open block comment began */
	unsigned errors;
	const char *tok_text; /* last token, for syntax error messages */
	size_t tok_len;
	jmp_buf *fatal;        /* where the lexer goes when flex runs out of memory */
	int start_token;       /* returned once before any text: selects the start rule */
	struct ptx_block snippet; /* the statements of a snippet parse */
	const char *fatal_msg;
};

#endif
