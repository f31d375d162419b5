/* SPDX-License-Identifier: GPL-2.0-only */
/* folded_name.c: a comm or a frame name as a folded stack line may hold it,
 * as stackcollapse-perf.pl makes them: no ';' and no line break in a name. */
#include "report/folded_name.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static bool control(unsigned char c)
{
	return c < ' ' || c == 0x7f;
}

int folded_append_name(struct byte_buffer *b, const char *name, bool comm)
{
	const unsigned char *p = (const unsigned char *)name;
	size_t start = b->len;
	bool pending_space = false;

	for (; *p; p++) {
		char c = (char)*p;

		if (control(*p) || (comm && c == ' ')) {
			c = '_';
		} else if (c == ' ') {
			/* a frame's: kept only between two words */
			pending_space = b->len > start;
			continue;
		} else if (c == ';') {
			c = ':';
		}
		if (pending_space && !byte_buffer_append(b, " ", 1))
			return -ENOMEM;
		pending_space = false;
		if (!byte_buffer_append(b, &c, 1))
			return -ENOMEM;
	}
	if (b->len == start && !byte_buffer_append(b, "[unknown]", 9))
		return -ENOMEM;
	return 0;
}

const char *folded_frame_name(struct address_space *as, const struct resolved *where,
			      bool annotate)
{
	char buf[1024];
	const char *slash, *suffix = "";

	if (annotate && where->kernel)
		suffix = "_[k]";
	else if (annotate && !strncmp(where->dso, "/tmp/perf-", 10))
		suffix = "_[j]";
	if (strcmp(where->symbol, "[unknown]") || !strcmp(where->dso, "[unknown]")) {
		if (!*suffix)
			return where->symbol;
		snprintf(buf, sizeof(buf), "%s%s", where->symbol, suffix);
	} else {
		slash = strrchr(where->dso, '/');
		snprintf(buf, sizeof(buf), "[%s]%s", slash ? slash + 1 : where->dso, suffix);
	}
	return address_space_intern(as, buf);
}
