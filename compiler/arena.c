#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Chunks grow geometrically up to 4 MiB so that a 20 MB module costs a few
 * dozen mallocs, while a tiny module (the runtime parses many) stays small.
 */
#define ARENA_MIN_CHUNK (16u * 1024u)
#define ARENA_MAX_CHUNK (4u * 1024u * 1024u)
#define ARENA_ALIGN 8u

struct coloc_arena_chunk {
	struct coloc_arena_chunk *next;
	size_t size;
	/* Keeps the data that follows 16-byte aligned. */
	_Alignas(16) char data[];
};

void coloc_arena_init(struct coloc_arena *a)
{
	memset(a, 0, sizeof(*a));
}

void coloc_arena_release(struct coloc_arena *a)
{
	struct coloc_arena_chunk *c, *next;

	if (!a)
		return;
	for (c = a->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	memset(a, 0, sizeof(*a));
}

static int arena_grow(struct coloc_arena *a, size_t need)
{
	struct coloc_arena_chunk *c;
	size_t size = a->chunks ? a->chunks->size * 2 : ARENA_MIN_CHUNK;

	if (size > ARENA_MAX_CHUNK)
		size = ARENA_MAX_CHUNK;
	if (size < need)
		size = need;
	if (size > SIZE_MAX - sizeof(*c))
		return -1;
	/* Fresh zeroed memory: big chunks come straight from mmap, already zero. */
	c = calloc(1, sizeof(*c) + size);
	if (!c)
		return -1;
	c->size = size;
	c->next = a->chunks;
	a->chunks = c;
	a->cur = c->data;
	a->end = c->data + size;
	a->total += size;
	return 0;
}

void *coloc_arena_alloc(struct coloc_arena *a, size_t size)
{
	char *p;

	if (size > SIZE_MAX - ARENA_ALIGN)
		return NULL;
	size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	if (size == 0)
		size = ARENA_ALIGN;
	if ((size_t)(a->end - a->cur) < size && arena_grow(a, size) < 0)
		return NULL;
	/* Chunks start zeroed and nothing is ever reused, so no memset here. */
	p = a->cur;
	a->cur += size;
	return p;
}

char *coloc_arena_strndup(struct coloc_arena *a, const char *s, size_t len)
{
	char *p = coloc_arena_alloc(a, len + 1);

	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}
