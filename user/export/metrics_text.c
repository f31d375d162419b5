/* SPDX-License-Identifier: GPL-2.0-only */
/* metrics_text.c: the exposition text's pieces (see the header). */
#include "export/metrics_text.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

int metrics_put(struct byte_buffer *out, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return -1;
	return byte_buffer_append(out, buf, (size_t)n) ? 0 : -1;
}

int metrics_family(struct byte_buffer *out, const char *name, const char *type, const char *help)
{
	return metrics_put(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

int metrics_single(struct byte_buffer *out, const char *name, const char *type, const char *help,
		   const char *fmt, uint64_t value)
{
	return metrics_family(out, name, type, help) || metrics_put(out, "%s ", name) ||
	       metrics_put(out, fmt, value) || metrics_put(out, "\n");
}

int metrics_seconds(struct byte_buffer *out, uint64_t ns)
{
	return metrics_put(out, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
}
