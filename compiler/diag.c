#include "diag.h"

#include <string.h>

#include "buf.h"

static const char *const level_names[] = {
	[COLOC_DIAG_NOTE] = "note",
	[COLOC_DIAG_WARNING] = "warning",
	[COLOC_DIAG_ERROR] = "error",
};

void coloc_diag_init(struct coloc_diag *d, const char *filename, FILE *stream)
{
	memset(d, 0, sizeof(*d));
	d->filename = filename;
	d->stream = stream;
	d->max_errors = 20;
}

int coloc_diag_full(const struct coloc_diag *d)
{
	return d->max_errors && d->nerrors >= d->max_errors;
}

static void diag_emit(struct coloc_diag *d, enum coloc_diag_level level, const char *line)
{
	if (d->emit)
		d->emit(d->emit_ctx, level, line);
	else if (d->stream)
		fprintf(d->stream, "%s\n", line);
}

void coloc_diag_vreport(struct coloc_diag *d, enum coloc_diag_level level,
			struct ptx_loc loc, const char *fmt, va_list ap)
{
	struct coloc_buf b;

	if (level == COLOC_DIAG_WARNING && d->werror)
		level = COLOC_DIAG_ERROR;
	if (level == COLOC_DIAG_ERROR) {
		if (coloc_diag_full(d)) {
			d->nerrors++;
			return;
		}
		d->nerrors++;
	} else if (level == COLOC_DIAG_WARNING) {
		d->nwarnings++;
	}

	coloc_buf_init(&b);
	if (d->filename) {
		coloc_buf_puts(&b, d->filename);
		coloc_buf_putc(&b, ':');
	}
	if (loc.line) {
		coloc_buf_printf(&b, "%u:%u:", loc.line, loc.col);
	}
	if (b.len)
		coloc_buf_putc(&b, ' ');
	coloc_buf_printf(&b, "%s: ", level_names[level]);
	coloc_buf_vprintf(&b, fmt, ap);
	if (coloc_buf_cstr(&b))
		diag_emit(d, level, b.data);
	coloc_buf_release(&b);

	if (level == COLOC_DIAG_ERROR && coloc_diag_full(d) && !d->capped) {
		d->capped = 1;
		coloc_buf_init(&b);
		if (d->filename)
			coloc_buf_printf(&b, "%s: ", d->filename);
		coloc_buf_printf(&b, "note: too many errors (%u), stopping", d->max_errors);
		if (coloc_buf_cstr(&b))
			diag_emit(d, COLOC_DIAG_NOTE, b.data);
		coloc_buf_release(&b);
	}
}

void coloc_diag_report(struct coloc_diag *d, enum coloc_diag_level level,
		       struct ptx_loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	coloc_diag_vreport(d, level, loc, fmt, ap);
	va_end(ap);
}
