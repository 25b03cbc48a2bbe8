/* SHA-256, for the keys of compiled-variant caches. */
#ifndef COLOC_SHA256_H
#define COLOC_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct coloc_sha256 {
	uint32_t h[8];
	uint64_t bytes;
	unsigned char buf[64];
	unsigned used;
};

void coloc_sha256_init(struct coloc_sha256 *c);
void coloc_sha256_update(struct coloc_sha256 *c, const void *data, size_t len);
void coloc_sha256_final(struct coloc_sha256 *c, unsigned char out[32]);
/* Lower-case hex, NUL-terminated. */
void coloc_sha256_hex(const unsigned char digest[32], char out[65]);

#endif
