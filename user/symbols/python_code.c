/* SPDX-License-Identifier: GPL-2.0-only */
/* python_code.c: names a CPython code object of a running process, "qualname
 * (file.py:first line)", from its memory (process_vm_readv, every size bounded). */
#include "symbols/python_code.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "sys/process_memory.h"

static uint64_t u64_at(const uint8_t *b, size_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* Appends code point c as UTF-8 (a control character or a surrogate as '?'). */
static size_t put_utf8(char *out, size_t room, uint32_t c)
{
	if (c < 0x20 || c == 0x7f || (c >= 0xd800 && c < 0xe000) || c > 0x10ffff)
		c = '?';
	if (c < 0x80 && room >= 1) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800 && room >= 2) {
		out[0] = (char)(0xc0 | c >> 6);
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000 && room >= 3) {
		out[0] = (char)(0xe0 | c >> 12);
		out[1] = (char)(0x80 | (c >> 6 & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	if (c >= 0x10000 && room >= 4) {
		out[0] = (char)(0xf0 | c >> 18);
		out[1] = (char)(0x80 | (c >> 12 & 0x3f));
		out[2] = (char)(0x80 | (c >> 6 & 0x3f));
		out[3] = (char)(0x80 | (c & 0x3f));
		return 4;
	}
	return 0;
}

/* The str object at addr as UTF-8 into out (NUL-terminated, at most max
 * characters, "..." after a cut): a compact one (every str CPython makes
 * for names and files), ASCII, Latin-1, UCS-2 or UCS-4. */
static int read_str(uint32_t pid, uint64_t addr, const struct python_version_offsets *o,
		    char *out, size_t size, size_t max)
{
	uint8_t head[80], chars[4 * PYTHON_FILE_MAX];
	uint32_t state, kind, width;
	uint64_t length, data;
	size_t at = 0, nr;
	int r;

	out[0] = '\0';
	if (!addr || o->compact_data > sizeof(head))
		return -EFAULT;
	if ((r = process_memory_read(pid, addr, head, o->walk.ascii_data)))
		return r;
	memcpy(&state, head + o->walk.unicode_state, sizeof(state));
	length = u64_at(head, o->walk.unicode_length);
	/* state: interned 2 bits, kind 3, compact 1, ascii 1 */
	kind = state >> 2 & 7;
	if (!(state & 1u << 5) || (kind != 1 && kind != 2 && kind != 4) ||
	    length > (uint64_t)1 << 30)
		return -EINVAL;
	width = kind;
	data = addr + ((state & 1u << 6) ? o->walk.ascii_data : o->compact_data);
	nr = length < max ? (size_t)length : max;
	if (nr && (r = process_memory_read(pid, data, chars, nr * width)))
		return r;
	for (size_t i = 0; i < nr; i++) {
		uint32_t c = width == 1 ? chars[i]
			   : width == 2 ? (uint32_t)(chars[2 * i] | chars[2 * i + 1] << 8)
					: (uint32_t)(chars[4 * i] | chars[4 * i + 1] << 8 |
						     chars[4 * i + 2] << 16 |
						     (uint32_t)chars[4 * i + 3] << 24);
		size_t put = put_utf8(out + at, size - 1 - at, c);

		if (!put)
			break;
		at += put;
	}
	if (length > nr && size - 1 - at >= 3) {
		memcpy(out + at, "...", 3);
		at += 3;
	}
	out[at] = '\0';
	return 0;
}

int python_code_name(uint32_t pid, uint64_t code, uint64_t code_type,
		     const struct python_version_offsets *o, char *buf, size_t len)
{
	char name[4 * PYTHON_NAME_MAX + 4], file[4 * PYTHON_FILE_MAX + 4];
	uint8_t co[256];
	int32_t line;
	int r;

	if (len < 64 || o->code_read > sizeof(co))
		return -EINVAL;
	if ((r = process_memory_read(pid, code, co, o->code_read)))
		return r;
	/* memory reused since the sample (or never a code object) */
	if (code_type && u64_at(co, o->object_type) != code_type)
		return -EINVAL;
	if (read_str(pid, u64_at(co, o->walk.code_qualname), o, name, sizeof(name), PYTHON_NAME_MAX) &&
	    (r = read_str(pid, u64_at(co, o->code_name), o, name, sizeof(name), PYTHON_NAME_MAX)))
		return r;
	if (read_str(pid, u64_at(co, o->walk.code_filename), o, file, sizeof(file), PYTHON_FILE_MAX))
		snprintf(file, sizeof(file), "?");
	memcpy(&line, co + o->walk.code_firstlineno, sizeof(line));
	snprintf(buf, len, "%s (%s:%d)", name, file, line);
	return 0;
}
