/* Growable byte buffer used by the printer, the driver and the runtime. */
#ifndef COLOC_BUF_H
#define COLOC_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct coloc_buf {
	char *data;
	size_t len;
	size_t cap;
	int failed; /* set once an allocation failed; later appends are no-ops */
};

void coloc_buf_init(struct coloc_buf *b);
void coloc_buf_release(struct coloc_buf *b);
int coloc_buf_reserve(struct coloc_buf *b, size_t extra);
void coloc_buf_put(struct coloc_buf *b, const void *p, size_t n);
void coloc_buf_puts(struct coloc_buf *b, const char *s);
void coloc_buf_putc(struct coloc_buf *b, char c);
void coloc_buf_put_u64(struct coloc_buf *b, uint64_t v);
void coloc_buf_put_i64(struct coloc_buf *b, int64_t v);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void coloc_buf_printf(struct coloc_buf *b, const char *fmt, ...);
void coloc_buf_vprintf(struct coloc_buf *b, const char *fmt, va_list ap);
/* NUL-terminates without counting the terminator in len. */
const char *coloc_buf_cstr(struct coloc_buf *b);

/* Reads a whole file; returns 0 or a negative errno. */
int coloc_buf_read_file(struct coloc_buf *b, const char *path);

#endif
