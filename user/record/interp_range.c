/* SPDX-License-Identifier: GPL-2.0-only */
/* interp_range.c: the range an interpreter's frames (CPython's, a JVM's) are
 * written in, carried in a recording as a process's anonymous executable
 * mapping named by its perf map: the range's MMAP2, and the map written. */
#include "record/interp_range.h"

#include <inttypes.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/recording_layout.h"
#include "lib/full_io.h"
#include "lib/log.h"
#include "python_maps.h"
#include "sys/output_dir.h"

bool interp_range_encode(struct byte_buffer *rec, uint32_t pid, const struct perf_sample_id *sid)
{
	struct perf_mmap range = { .pid = pid, .tid = pid, .start = RT_PY_ADDR_BASE,
				   .len = RT_PY_ADDR_SPAN, .prot = PROT_READ | PROT_EXEC,
				   .flags = MAP_PRIVATE, .filename = "//anon" };

	return !perf_mmap2_encode(rec, RECORDING_SAMPLE_ID_TYPE, &range,
				  sid ? sid : &(struct perf_sample_id){ .pid = pid, .tid = pid });
}

bool interp_map_begin(struct byte_buffer *map)
{
	char line[64];
	int len;

	if (map->len)
		return true;
	len = snprintf(line, sizeof(line), "%llx %llx [truncated]\n",
		       (unsigned long long)RT_PY_TRUNCATED, (unsigned long long)RT_PY_CODE_SPAN);
	return len > 0 && byte_buffer_append(map, line, (size_t)len);
}

bool interp_map_line(struct byte_buffer *map, uint64_t addr, uint32_t start, uint32_t end,
		     const char *name, const char *file, uint32_t line)
{
	char text[INTERP_MAP_LINE_MAX], where[16] = "";
	int len;

	if (line)
		snprintf(where, sizeof(where), ":%u", line);
	len = snprintf(text, sizeof(text), "%" PRIx64 " %x %s%s%s%s%s\n", addr + start,
		       end - start, name, file[0] ? " (" : "", file, where, file[0] ? ")" : "");
	return len > 0 && (size_t)len < sizeof(text) && byte_buffer_append(map, text, (size_t)len);
}

int interp_map_append(int dirfd, const char *dirpath, uint32_t pid, const void *lines,
		      size_t len, char *err, size_t errlen)
{
	char name[64];
	int fd, r = 0;

	snprintf(name, sizeof(name), "perf-%u.map", pid);
	fd = output_file_append(dirfd, dirpath, name, err, errlen);
	if (fd < 0)
		return -1;
	if (write_full(fd, lines, len)) {
		rt_format(err, errlen, "cannot write its perf map");
		r = -1;
	}
	close(fd);
	return r;
}
