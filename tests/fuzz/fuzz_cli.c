/* SPDX-License-Identifier: GPL-2.0-only */
/* fuzz_cli.c: libFuzzer target for the parsers of what users type: event
 * specs, CPU lists, sort keys, time ranges, and the escaping of label values
 * (whose output must be valid UTF-8 with no raw quote and no control byte). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/event_spec.h"
#include "export/metrics.h"
#include "lib/byte_buffer.h"
#include "report/report.h"
#include "sys/cpu_list.h"

/* Checks escaped label text: valid UTF-8, quotes escaped, no control byte
 * (a newline or an ESC is the escaped text "\\n", "\\x1b"). */
static void check_label(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t n = p[i] < 0x80 ? 1 : p[i] >= 0xf0 ? 4 : p[i] >= 0xe0 ? 3 : 2;

		if (p[i] < 0x20 || p[i] == 0x7f || (p[i] >= 0x80 && p[i] < 0xc2) || p[i] > 0xf4 ||
		    i + n > len)
			abort();
		for (size_t k = 1; k < n; k++)
			if ((p[i + k] & 0xc0) != 0x80)
				abort();
		if (p[i] == '\\') {
			if (i + 1 >= len || !strchr("\\\"n", p[i + 1]))
				abort();
			i += 2;
			continue;
		}
		if (p[i] == '"')
			abort();
		i += n;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512];
	struct event_desc events[EVENT_SPEC_MAX];
	unsigned int nr = 0;
	struct cpu_list cpus = { 0 };
	struct report_options o = { .pid_filter = -1 };
	struct byte_buffer b = { 0 };

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	event_spec_parse(text, events, &nr, err, sizeof(err));
	if (!cpu_list_parse(&cpus, text, 4096, err, sizeof(err)))
		cpu_list_free(&cpus);
	report_parse_sort(&o, text, err, sizeof(err));
	report_parse_time(&o, text, err, sizeof(err));
	if (!metrics_escape_label(&b, (const char *)data, size))
		check_label(b.data, b.len);
	byte_buffer_free(&b);
	free(text);
	return 0;
}
