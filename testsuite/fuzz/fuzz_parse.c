/*
 * libFuzzer target for the PTX front end.
 *
 * Besides "no crash, no leak, no hang", it checks the printer's promise on
 * every input the parser accepts: the printed module parses again and
 * prints to the same bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct coloc_diag diag;
	struct coloc_buf first, second;
	struct ptx_module *m, *again;

	coloc_diag_init(&diag, "fuzz", NULL);
	m = ptx_parse((const char *)data, size, "fuzz", &diag);
	if (!m)
		return 0;
	ptx_module_verify(m, &diag);
	coloc_buf_init(&first);
	coloc_buf_init(&second);
	if (ptx_module_print(m, &first) == 0) {
		again = ptx_parse(first.data ? first.data : "", first.len, "fuzz-reprint", &diag);
		if (!again) {
			fprintf(stderr, "printed module does not parse:\n%.*s\n", (int)first.len, first.data);
			abort();
		}
		if (ptx_module_print(again, &second) != 0 || second.len != first.len ||
		    (first.len && memcmp(first.data, second.data, first.len) != 0)) {
			fprintf(stderr, "round trip differs:\n--- first\n%.*s\n--- second\n%.*s\n",
				(int)first.len, first.data, (int)second.len, second.data);
			abort();
		}
		ptx_module_free(again);
	}
	coloc_buf_release(&first);
	coloc_buf_release(&second);
	ptx_module_free(m);
	return 0;
}
