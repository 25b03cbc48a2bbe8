/* Keys of the compiled-variant cache (cache.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "coloc/version.h"
#include "sha256.h"

bool coloc_target_parse(const char *s, struct coloc_target *t)
{
	char *end;
	unsigned long sm;

	if (strncmp(s, "sm_", 3) != 0 || s[3] < '1' || s[3] > '9')
		return false;
	sm = strtoul(s + 3, &end, 10);
	if (sm < 10 || sm > 1000)
		return false;
	t->sm = (unsigned)sm;
	t->variant = 0;
	if (*end == 'a' || *end == 'f')
		t->variant = *end++;
	return *end == '\0';
}

/* A field of the key: its length, then its bytes, so no two field lists collide. */
static void field(struct coloc_sha256 *c, const void *data, size_t len)
{
	char n[32];

	snprintf(n, sizeof(n), "%zu:", len);
	coloc_sha256_update(c, n, strlen(n));
	coloc_sha256_update(c, data, len);
}

void coloc_cache_key(const struct coloc_target *t, const char *options, size_t options_len,
		     const void *ptx, size_t len, char hex[65])
{
	coloc_cache_key_passes(t, options, options_len, NULL, ptx, len, hex);
}

void coloc_cache_key_passes(const struct coloc_target *t, const char *options, size_t options_len,
			    const char *pass_options, const void *ptx, size_t len, char hex[65])
{
	struct coloc_sha256 c;
	unsigned char digest[32];
	char head[64];

	snprintf(head, sizeof(head), "colocc-cache %d", COLOC_CACHE_FORMAT);
	coloc_sha256_init(&c);
	field(&c, head, strlen(head));
	field(&c, COLOC_VERSION, sizeof(COLOC_VERSION) - 1);
	snprintf(head, sizeof(head), "sm_%u%c", t->sm, t->variant ? t->variant : ' ');
	field(&c, head, strlen(head));
	field(&c, options ? options : "", options ? options_len : 0);
	if (pass_options && *pass_options) {
		field(&c, "passes", 6);
		field(&c, pass_options, strlen(pass_options));
	}
	field(&c, ptx, len);
	coloc_sha256_final(&c, digest);
	coloc_sha256_hex(digest, hex);
}
