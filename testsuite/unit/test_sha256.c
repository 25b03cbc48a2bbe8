/*
 * SHA-256 against the FIPS 180-4 examples and sha256sum, including inputs
 * fed in pieces that straddle the 64-byte blocks.
 */
#include <stdio.h>
#include <string.h>

#include "sha256.h"

static int failures;

static void check(const char *what, const void *data, size_t len, size_t piece, const char *want)
{
	struct coloc_sha256 c;
	unsigned char d[32];
	char hex[65];
	size_t off;

	coloc_sha256_init(&c);
	for (off = 0; off < len; off += piece)
		coloc_sha256_update(&c, (const char *)data + off, len - off < piece ? len - off : piece);
	coloc_sha256_final(&c, d);
	coloc_sha256_hex(d, hex);
	if (strcmp(hex, want)) {
		printf("FAIL %s (pieces of %zu): got %s, want %s\n", what, piece, hex, want);
		failures++;
	}
}

int main(void)
{
	static char million[1000000];
	size_t pieces[] = {1, 3, 63, 64, 65, 1000, 1000000};
	size_t i;

	memset(million, 'a', sizeof(million));
	for (i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
		check("empty", "", 0, pieces[i],
		      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
		check("abc", "abc", 3, pieces[i],
		      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
		check("two blocks", "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, pieces[i],
		      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
		check("a million a", million, sizeof(million), pieces[i],
		      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	}
	printf("%s: %d failures\n", __FILE__, failures);
	return failures ? 1 : 0;
}
