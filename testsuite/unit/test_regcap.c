/*
 * passes/regcap: the cap levels a variant gets (worked out here by hand from
 * the rule in regcap.h: the original's limit, and below the variant's count
 * rounded up to 8 the most registers a thread takes at some occupancy of a
 * 128-, 256-, 512- or 1,024-thread block: 168, 128, 96, 80, 72, 64, 56, 48,
 * 40, 32), the copies' names both ways, and pass_regcap_ptx on PTX that has
 * a copy already (the runtime compiles its capped PTX again for a context
 * the cache does not serve): no second copy of that name.  Given a path,
 * writes that PTX there, for testsuite/binary/regcap-unit.test's ptxas.
 */
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "regcap.h"

static int failures;

#define EXPECT(cond, ...)                                    \
	do {                                                 \
		if (!(cond)) {                               \
			printf("FAIL %s:%d: ", __FILE__, __LINE__); \
			printf(__VA_ARGS__);                 \
			printf("\n");                        \
			failures++;                          \
		}                                            \
	} while (0)

static void levels(unsigned original, unsigned used, const char *want)
{
	unsigned l[PASS_REGCAP_LEVELS], n = pass_regcap_levels(original, used, l);
	char got[128] = "";
	size_t len = 0;

	for (unsigned i = 0; i < n; i++)
		len += (size_t)snprintf(got + len, sizeof(got) - len, "%s%u", i ? "," : "", l[i]);
	EXPECT(strcmp(got, want) == 0, "levels(%u, %u): got '%s', want '%s'", original, used, got,
	       want);
}

static void parse_bad(const char *name)
{
	unsigned cap = 0;

	EXPECT(pass_regcap_parse(name, &cap) == NULL, "'%s' parsed as a copy (cap %u)", name, cap);
}

static size_t count(const char *text, const char *what)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

int main(int argc, char **argv)
{
	static const char ptx[] =
		".version 8.0\n.target sm_80\n.address_size 64\n\n"
		".visible .entry __coloc_ptb_k(\n\t.param .u64 p\n)\n{\n\tret;\n}\n\n"
		".visible .entry __coloc_cap32_ptb_k(\n\t.param .u64 p\n)\n.maxnreg 32\n{\n\tret;\n}\n";
	struct pass_regcap caps[] = {
		{ .variant = "__coloc_ptb_k", .used = 50, .original = 30, .cap = 40 },
		{ .variant = "__coloc_ptb_k", .used = 50, .original = 30, .cap = 32 },
	};
	struct coloc_diag diag;
	struct coloc_buf out;
	const char *rest, *text;
	char name[64];
	unsigned cap = 0;
	int made;

	/* The CuPy MLP's looping and fresh GEMMs, gpt_train's, regcap.test's. */
	levels(34, 88, "80,72,64,56,48,40");
	levels(34, 68, "64,56,48,40");
	levels(126, 172, "168,128");
	levels(27, 48, "40,32");
	levels(26, 66, "64,56,48,40,32");
	/* Within the limit: none; just past it: the limit alone. */
	levels(34, 40, "");
	levels(34, 41, "40");
	levels(16, 40, "32");
	/* The most there can be. */
	levels(1, 255, "168,128,96,80,72,64,56,48,40,32");

	EXPECT(pass_regcap_name(name, sizeof(name), 40, "__coloc_ptb_k") == 0 &&
		       strcmp(name, "__coloc_cap40_ptb_k") == 0, "name: '%s'", name);
	EXPECT(pass_regcap_name(name, sizeof(name), 40, "ptb_k") != 0, "a name without __coloc_");
	EXPECT(pass_regcap_name(name, 8, 40, "__coloc_ptb_k") != 0, "a name past its buffer");
	rest = pass_regcap_parse("__coloc_cap40_fresh_k", &cap);
	EXPECT(rest && strcmp(rest, "fresh_k") == 0 && cap == 40, "parse: '%s', %u",
	       rest ? rest : "(null)", cap);
	parse_bad("__coloc_cap_ptb_k"); /* before cache format 13 */
	parse_bad("__coloc_cap040_ptb_k");
	parse_bad("__coloc_cap40_");
	parse_bad("__coloc_cap40ptb_k");
	parse_bad("__coloc_cap256_ptb_k");
	parse_bad("__coloc_ptb_k");

	coloc_diag_init(&diag, "test_regcap", stderr);
	made = pass_regcap_ptx(ptx, sizeof(ptx) - 1, "test_regcap", caps, 2, &out, &diag);
	text = coloc_buf_cstr(&out);
	EXPECT(made == 1, "copies made: %d, want 1", made);
	EXPECT(caps[0].made && !caps[1].made, "made marks: %d %d", caps[0].made, caps[1].made);
	if (text) {
		EXPECT(count(text, ".entry __coloc_cap32_ptb_k(") == 1, "copies at 32:\n%s", text);
		EXPECT(count(text, ".entry __coloc_cap40_ptb_k(") == 1, "copies at 40:\n%s", text);
		EXPECT(strstr(text, ".entry __coloc_cap40_ptb_k(") > strstr(text, ".entry __coloc_ptb_k(") &&
			       strstr(text, ".entry __coloc_cap40_ptb_k(") <
				       strstr(text, ".entry __coloc_cap32_ptb_k("),
		       "the copy at 40 is not right after its variant:\n%s", text);
		EXPECT(count(text, ".maxnreg 40") == 1, ".maxnreg 40:\n%s", text);
		if (argc > 1) {
			FILE *f = fopen(argv[1], "w");

			EXPECT(f && fputs(text, f) >= 0 && fclose(f) == 0, "cannot write %s", argv[1]);
		}
	} else {
		EXPECT(0, "no output");
	}
	coloc_buf_release(&out);
	printf("%s: %d failures\n", __FILE__, failures);
	return failures ? 1 : 0;
}
