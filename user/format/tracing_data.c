/* SPDX-License-Identifier: GPL-2.0-only */
/* tracing_data.c: the HEADER_TRACING_DATA feature: tracefs header files and the
 * formats of the recorded tracepoints, so perf script can print their fields. */
#include "format/tracing_data.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"

static int put(struct byte_buffer *b, const void *p, size_t len)
{
	return byte_buffer_append(b, p, len) ? 0 : -ENOMEM;
}

static int put_u32(struct byte_buffer *b, uint32_t v)
{
	return put(b, &v, sizeof(v));
}

/* A tracefs file as perf stores it: u64 (or u32) size, then the bytes. */
static int put_file(struct byte_buffer *b, const char *relpath, int size_bytes)
{
	struct byte_buffer f = { 0 };
	int ret = tracefs_read_file(relpath, &f);

	if (ret)
		goto out;
	ret = -ENOMEM;
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
static int put_system(struct byte_buffer *b, const struct tracing_data_event *tps,
		      unsigned int nr, const char *system)
{
	uint32_t count = 0;
	int r;

	for (unsigned int i = 0; i < nr; i++)
		count += !strcmp(tps[i].system, system);
	if (put(b, system, strlen(system) + 1) || put_u32(b, count))
		return -ENOMEM;
	for (unsigned int i = 0; i < nr; i++) {
		char rel[256];

		if (strcmp(tps[i].system, system))
			continue;
		if (tps[i].format) {
			uint64_t len = tps[i].format_len;

			if (put(b, &len, 8) || put(b, tps[i].format, tps[i].format_len))
				return -ENOMEM;
			continue;
		}
		snprintf(rel, sizeof(rel), "events/%s/%s/format", system, tps[i].name);
		if ((r = put_file(b, rel, 8)))
			return r;
	}
	return 0;
}

/* True if an earlier tracepoint already named this system. */
static int seen_system(const struct tracing_data_event *tps, unsigned int upto, const char *system)
{
	for (unsigned int i = 0; i < upto; i++)
		if (!strcmp(tps[i].system, system))
			return 1;
	return 0;
}

int tracing_data_build(struct byte_buffer *b, const struct tracing_data_event *tps,
		       unsigned int nr, char *err, size_t errlen)
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
	return errno ? -errno : -EIO;
}

/* A cursor over the tracing data; every read checked against its end. */
struct cursor {
	const uint8_t *data;
	uint64_t size, at;
};

static bool take(struct cursor *c, void *out, uint64_t n)
{
	if (n > c->size - c->at)
		return false;
	memcpy(out, c->data + c->at, n);
	c->at += n;
	return true;
}

/* A NUL-terminated string: its start, or NULL if the data ends first. */
static const char *take_string(struct cursor *c)
{
	const uint8_t *nul = memchr(c->data + c->at, '\0', c->size - c->at);
	const char *s = (const char *)c->data + c->at;

	if (!nul)
		return NULL;
	c->at = (uint64_t)(nul - c->data) + 1;
	return s;
}

/* A size (u32 or u64, as the layout has it) and that many bytes. */
static bool take_text(struct cursor *c, unsigned int size_bytes, struct tracing_data_text *t)
{
	uint64_t len = 0;
	uint32_t len32;

	if (size_bytes == 4) {
		if (!take(c, &len32, 4))
			return false;
		len = len32;
	} else if (!take(c, &len, 8)) {
		return false;
	}
	if (len > c->size - c->at)
		return false;
	*t = (struct tracing_data_text){ c->at, (const char *)c->data + c->at, (size_t)len, NULL };
	c->at += len;
	return true;
}

int tracing_data_read(const uint8_t *data, uint64_t size, struct tracing_data_contents *out,
		      uint64_t *bad_at)
{
	static const char magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct cursor c = { data, size, 0 };
	char got_magic[sizeof(magic)];
	const char *version, *name;
	uint8_t endian;
	uint32_t count, systems;
	struct tracing_data_text skip;

	memset(out, 0, sizeof(*out));
	if (!take(&c, got_magic, sizeof(magic)) || memcmp(got_magic, magic, sizeof(magic)))
		goto bad;
	if (!(version = take_string(&c)) || (strcmp(version, "0.6") && strcmp(version, "0.5")) ||
	    !take(&c, &endian, 1) || !take(&c, &out->long_size, 1) || !take(&c, &out->page_size, 4))
		goto bad;
	out->big_endian = endian != 0;
	if (!(name = take_string(&c)) || strcmp(name, "header_page") ||
	    !take_text(&c, 8, &out->header_page) || !(name = take_string(&c)) ||
	    strcmp(name, "header_event") || !take_text(&c, 8, &skip))
		goto bad;
	if (!take(&c, &count, 4)) /* ftrace formats: not ours to print */
		goto bad;
	for (uint32_t i = 0; i < count; i++)
		if (!take_text(&c, 8, &skip))
			goto bad;
	if (!take(&c, &systems, 4))
		goto bad;
	for (uint32_t s = 0; s < systems; s++) {
		const char *system = take_string(&c);

		if (!system || !take(&c, &count, 4))
			goto bad;
		for (uint32_t i = 0; i < count; i++) {
			struct tracing_data_text *grown;

			if (count > (c.size - c.at) / 8) /* each takes 8 bytes at least */
				goto bad;
			grown = realloc(out->events, (out->nr_events + 1) * sizeof(*grown));
			if (!grown) {
				tracing_data_contents_free(out);
				return -ENOMEM;
			}
			out->events = grown;
			if (!take_text(&c, 8, &out->events[out->nr_events]))
				goto bad;
			out->events[out->nr_events++].system = system;
		}
	}
	/* kallsyms, then the printk formats (perf reads on if they are missing) */
	if (take_text(&c, 4, &skip))
		take_text(&c, 4, &out->printk);
	return 0;
bad:
	*bad_at = c.at;
	tracing_data_contents_free(out);
	return -EINVAL;
}

void tracing_data_contents_free(struct tracing_data_contents *c)
{
	free(c->events);
	c->events = NULL;
	c->nr_events = 0;
}
