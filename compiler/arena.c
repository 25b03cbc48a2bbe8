/* For MAP_ANONYMOUS and MAP_POPULATE. */
#define _DEFAULT_SOURCE

#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/*
 * Chunks grow geometrically up to 8 MiB so that a 20 MB module costs a few
 * dozen allocations, while a tiny module (the runtime parses many) stays
 * small.  Chunks of 2 MiB and more are mapped directly and populated at
 * once: touching 150 MB of IR one 4 KiB page at a time cost a fifth of the
 * parse in page faults (measured on the 23 MB CUB module; transparent huge
 * pages did as well on average but with compaction stalls).
 */
#define ARENA_MIN_CHUNK (16u * 1024u)
#define ARENA_MAX_CHUNK (8u * 1024u * 1024u)
#define ARENA_MAP_CHUNK (2u * 1024u * 1024u)
#define ARENA_ALIGN 8u

struct coloc_arena_chunk {
	struct coloc_arena_chunk *next;
	size_t size;  /* usable bytes in data */
	size_t bytes; /* bytes mapped, or 0 when the chunk came from calloc */
	/* Keeps the data that follows 16-byte aligned. */
	_Alignas(16) char data[];
};

void coloc_arena_init(struct coloc_arena *a)
{
	memset(a, 0, sizeof(*a));
}

static void chunk_free(struct coloc_arena_chunk *c)
{
	if (c->bytes)
		munmap(c, c->bytes);
	else
		free(c);
}

void coloc_arena_release(struct coloc_arena *a)
{
	struct coloc_arena_chunk *c, *next;

	if (!a)
		return;
	for (c = a->chunks; c; c = next) {
		next = c->next;
		chunk_free(c);
	}
	memset(a, 0, sizeof(*a));
}

/* Zeroed memory for a chunk of `size` usable bytes. */
static struct coloc_arena_chunk *chunk_new(size_t size)
{
	struct coloc_arena_chunk *c;
	size_t bytes = sizeof(*c) + size;

	if (size >= ARENA_MAP_CHUNK) {
		void *p;

		bytes = (bytes + ARENA_MAP_CHUNK - 1) & ~(size_t)(ARENA_MAP_CHUNK - 1);
		p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
			 -1, 0);
		if (p != MAP_FAILED) {
			c = p;
			c->bytes = bytes;
			c->size = bytes - sizeof(*c);
			return c;
		}
		bytes = sizeof(*c) + size;
	}
	c = calloc(1, bytes);
	if (c)
		c->size = size;
	return c;
}

static int arena_grow(struct coloc_arena *a, size_t need)
{
	struct coloc_arena_chunk *c;
	size_t size = a->chunks ? a->chunks->size * 2 : ARENA_MIN_CHUNK;

	if (size > ARENA_MAX_CHUNK)
		size = ARENA_MAX_CHUNK;
	if (size < need)
		size = need;
	if (size > SIZE_MAX - sizeof(*c) - ARENA_MAP_CHUNK)
		return -1;
	c = chunk_new(size);
	if (!c)
		return -1;
	c->next = a->chunks;
	a->chunks = c;
	a->cur = c->data;
	a->end = c->data + c->size;
	a->total += c->size;
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
