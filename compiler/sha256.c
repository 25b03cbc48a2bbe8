/*
 * SHA-256 (FIPS 180-4), for cache keys: the ahead-of-time cache and the
 * runtime's variant cache name compiled modules by the hash of their input,
 * target and colocc version, and a collision would load the wrong code.
 */
#include "sha256.h"

#include <string.h>

static const uint32_t k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static void block(struct coloc_sha256 *c, const unsigned char *p)
{
	uint32_t w[64], a, b, cc, d, e, f, g, h, t1, t2;
	unsigned i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (; i < 64; i++)
		w[i] = (ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10)) + w[i - 7] +
		       (ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3)) + w[i - 16];
	a = c->h[0], b = c->h[1], cc = c->h[2], d = c->h[3];
	e = c->h[4], f = c->h[5], g = c->h[6], h = c->h[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
		t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & cc) ^ (b & cc));
		h = g, g = f, f = e, e = d + t1;
		d = cc, cc = b, b = a, a = t1 + t2;
	}
	c->h[0] += a, c->h[1] += b, c->h[2] += cc, c->h[3] += d;
	c->h[4] += e, c->h[5] += f, c->h[6] += g, c->h[7] += h;
}

void coloc_sha256_init(struct coloc_sha256 *c)
{
	static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
				       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

	memcpy(c->h, h0, sizeof(h0));
	c->bytes = 0;
	c->used = 0;
}

void coloc_sha256_update(struct coloc_sha256 *c, const void *data, size_t len)
{
	const unsigned char *p = data;

	c->bytes += len;
	if (c->used) {
		size_t n = 64 - c->used < len ? 64 - c->used : len;

		memcpy(c->buf + c->used, p, n);
		c->used += (unsigned)n;
		p += n;
		len -= n;
		if (c->used < 64)
			return;
		block(c, c->buf);
		c->used = 0;
	}
	for (; len >= 64; p += 64, len -= 64)
		block(c, p);
	memcpy(c->buf, p, len);
	c->used = (unsigned)len;
}

void coloc_sha256_final(struct coloc_sha256 *c, unsigned char out[32])
{
	uint64_t bits = c->bytes * 8;
	unsigned char pad[72] = {0x80};
	size_t n = (c->used < 56 ? 56 : 120) - c->used;
	unsigned i;

	for (i = 0; i < 8; i++)
		pad[n + i] = (unsigned char)(bits >> (56 - 8 * i));
	coloc_sha256_update(c, pad, n + 8);
	for (i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(c->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(c->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(c->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)c->h[i];
	}
}

void coloc_sha256_hex(const unsigned char digest[32], char out[65])
{
	static const char hex[] = "0123456789abcdef";
	unsigned i;

	for (i = 0; i < 32; i++) {
		out[2 * i] = hex[digest[i] >> 4];
		out[2 * i + 1] = hex[digest[i] & 15];
	}
	out[64] = '\0';
}
