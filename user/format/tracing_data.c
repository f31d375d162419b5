/* SPDX-License-Identifier: GPL-2.0-only */
/* tracing_data.c: the HEADER_TRACING_DATA feature: tracefs header files and the
 * formats of the recorded tracepoints, so perf script can print their fields. */
#include "format/tracing_data.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"

static int put(struct byte_buffer *b, const void *p, size_t len)
{
	return byte_buffer_append(b, p, len) ? 0 : -1;
}

static int put_u32(struct byte_buffer *b, uint32_t v)
{
	return put(b, &v, sizeof(v));
}

/* A tracefs file as perf stores it: u64 (or u32) size, then the bytes. */
static int put_file(struct byte_buffer *b, const char *relpath, int size_bytes)
{
	struct byte_buffer f = { 0 };
	int ret = -1;

	if (tracefs_read_file(relpath, &f))
		goto out;
	if (size_bytes == 8) {
		uint64_t n = f.len;

		if (put(b, &n, 8))
			goto out;
	} else if (put_u32(b, (uint32_t)f.len)) {
		goto out;
	}
	ret = f.len ? put(b, f.data, f.len) : 0;
out:
	byte_buffer_free(&f);
	return ret;
}

/* "system\0" then u32 count and each format (u64 size + text) of that system. */
static int put_system(struct byte_buffer *b, const struct tracepoint_name *tps, unsigned int nr,
		      const char *system)
{
	uint32_t count = 0;

	for (unsigned int i = 0; i < nr; i++)
		count += !strcmp(tps[i].system, system);
	if (put(b, system, strlen(system) + 1) || put_u32(b, count))
		return -1;
	for (unsigned int i = 0; i < nr; i++) {
		char rel[256];

		if (strcmp(tps[i].system, system))
			continue;
		snprintf(rel, sizeof(rel), "events/%s/%s/format", system, tps[i].name);
		if (put_file(b, rel, 8))
			return -1;
	}
	return 0;
}

/* True if an earlier tracepoint already named this system. */
static int seen_system(const struct tracepoint_name *tps, unsigned int upto, const char *system)
{
	for (unsigned int i = 0; i < upto; i++)
		if (!strcmp(tps[i].system, system))
			return 1;
	return 0;
}

int tracing_data_build(struct byte_buffer *b, const struct tracepoint_name *tps, unsigned int nr,
		       char *err, size_t errlen)
{
	static const char magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	uint8_t little_endian = 0, long_size = sizeof(long);
	uint32_t page_size = (uint32_t)sysconf(_SC_PAGESIZE), systems = 0;
	uint64_t no_cmdlines = 0;

	for (unsigned int i = 0; i < nr; i++)
		systems += !seen_system(tps, i, tps[i].system);
	if (put(b, magic, sizeof(magic)) || put(b, "0.6", 4) || put(b, &little_endian, 1) ||
	    put(b, &long_size, 1) || put_u32(b, page_size) || put(b, "header_page", 12) ||
	    put_file(b, "events/header_page", 8) || put(b, "header_event", 13) ||
	    put_file(b, "events/header_event", 8) || put_u32(b, 0) /* no ftrace formats */ ||
	    put_u32(b, systems))
		goto fail;
	for (unsigned int i = 0; i < nr; i++)
		if (!seen_system(tps, i, tps[i].system) && put_system(b, tps, nr, tps[i].system))
			goto fail;
	/* no kallsyms (perf resolves with its own), the printk formats, no cmdlines */
	if (put_u32(b, 0) || put_file(b, "printk_formats", 4) || put(b, &no_cmdlines, 8))
		goto fail;
	return 0;
fail:
	rt_format(err, errlen, "cannot read tracefs to describe the tracepoints for perf script");
	return -1;
}
