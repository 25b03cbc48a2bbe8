#include "buf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void coloc_buf_init(struct coloc_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void coloc_buf_release(struct coloc_buf *b)
{
	if (!b)
		return;
	free(b->data);
	memset(b, 0, sizeof(*b));
}

int coloc_buf_reserve(struct coloc_buf *b, size_t extra)
{
	size_t cap;
	char *p;

	if (b->failed)
		return -ENOMEM;
	if (extra < b->cap - b->len)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap - b->len <= extra) {
		if (cap > SIZE_MAX / 2) {
			b->failed = 1;
			return -ENOMEM;
		}
		cap *= 2;
	}
	p = realloc(b->data, cap);
	if (!p) {
		b->failed = 1;
		return -ENOMEM;
	}
	b->data = p;
	b->cap = cap;
	return 0;
}

void coloc_buf_put(struct coloc_buf *b, const void *p, size_t n)
{
	if (coloc_buf_reserve(b, n) < 0)
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void coloc_buf_puts(struct coloc_buf *b, const char *s)
{
	coloc_buf_put(b, s, strlen(s));
}

void coloc_buf_putc(struct coloc_buf *b, char c)
{
	if (b->cap - b->len > 1 || coloc_buf_reserve(b, 1) == 0)
		b->data[b->len++] = c;
}

void coloc_buf_put_u64(struct coloc_buf *b, uint64_t v)
{
	char tmp[24];
	size_t n = sizeof(tmp);

	do {
		tmp[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	coloc_buf_put(b, tmp + n, sizeof(tmp) - n);
}

void coloc_buf_put_i64(struct coloc_buf *b, int64_t v)
{
	if (v < 0) {
		coloc_buf_putc(b, '-');
		coloc_buf_put_u64(b, (uint64_t)0 - (uint64_t)v);
	} else {
		coloc_buf_put_u64(b, (uint64_t)v);
	}
}

void coloc_buf_vprintf(struct coloc_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0 || coloc_buf_reserve(b, (size_t)n + 1) < 0)
		return;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void coloc_buf_printf(struct coloc_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	coloc_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

const char *coloc_buf_cstr(struct coloc_buf *b)
{
	if (coloc_buf_reserve(b, 1) < 0)
		return NULL;
	b->data[b->len] = '\0';
	return b->data;
}

int coloc_buf_read_file(struct coloc_buf *b, const char *path)
{
	FILE *f = fopen(path, "rb");
	char tmp[65536];
	size_t n;
	int err = 0;

	if (!f)
		return -errno;
	/* Regular files are read in one piece into a buffer of the right size. */
	if (fseek(f, 0, SEEK_END) == 0) {
		long size = ftell(f);

		if (size > 0 && fseek(f, 0, SEEK_SET) == 0 &&
		    coloc_buf_reserve(b, (size_t)size + 2) == 0) {
			n = fread(b->data + b->len, 1, (size_t)size, f);
			b->len += n;
		}
	}
	while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0) {
		coloc_buf_put(b, tmp, n);
		if (b->failed) {
			err = -ENOMEM;
			break;
		}
	}
	if (!err && ferror(f))
		err = -EIO;
	fclose(f);
	return err;
}
