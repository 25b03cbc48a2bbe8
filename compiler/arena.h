/* Bump allocator that owns a whole module: one free releases everything. */
#ifndef COLOC_ARENA_H
#define COLOC_ARENA_H

#include <stddef.h>

struct coloc_arena_chunk;

struct coloc_arena {
	struct coloc_arena_chunk *chunks;
	char *cur;
	char *end;
	size_t total; /* bytes obtained from malloc, for statistics */
};

void coloc_arena_init(struct coloc_arena *a);
void coloc_arena_release(struct coloc_arena *a);

/* Returns zeroed, 8-byte aligned memory or NULL when malloc fails. */
void *coloc_arena_alloc(struct coloc_arena *a, size_t size);
char *coloc_arena_strndup(struct coloc_arena *a, const char *s, size_t len);

#endif
