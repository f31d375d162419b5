/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_mem_default.c: --unwind-mem's default, sized from the machine: the
 * executable bytes its processes map when the recording starts (each file
 * once), as the kernel memory their unwind tables take, within a floor and a
 * ceiling; /proc read for a bounded time. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/perf_record.h"
#include "lib/hash_map.h"
#include "lib/monotonic.h"
#include "record/synthesize.h"
#include "record/unwind_mem_default.h"
#include "record/unwind_tables.h"
#include "sys/proc_ids.h"
#include "sys/safe_open.h"

uint64_t unwind_mem_for_text(uint64_t text_bytes, uint64_t ram_bytes, uint64_t max_bytes)
{
	uint64_t rows = text_bytes / UNWIND_MEM_TEXT_BYTES_A_ROW + 1;
	uint64_t mem = rows * UNWIND_ROW_KERNEL_BYTES, ceiling = ram_bytes / UNWIND_MEM_RAM_SHARE;

	mem = (mem + (1ULL << 20) - 1) & ~((1ULL << 20) - 1);
	if (ceiling > max_bytes)
		ceiling = max_bytes;
	if (mem > ceiling)
		mem = ceiling;
	return mem < UNWIND_MEM_FLOOR ? UNWIND_MEM_FLOOR : mem;
}

/* A file mapped executable, by its device and inode. */
struct text_file {
	uint64_t key[2]; /* (major << 32 | minor), inode */
};

static uint64_t hash_file(const void *key)
{
	return hash_bytes(key, sizeof(((struct text_file *)0)->key), 0);
}

static bool equal_file(const void *a, const void *b)
{
	return !memcmp(a, b, sizeof(((struct text_file *)0)->key));
}

struct text_scan {
	struct unwind_machine_text *out;
	struct hash_map files;
	uint64_t deadline_ns;
	int error;
};

/* Whether a signal that stops a recording waits, blocked (record's start
 * answers it within a second: the /proc read gives way at once). */
static bool stop_asked(void)
{
	sigset_t pending;

	return !sigpending(&pending) &&
	       (sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1 ||
		sigismember(&pending, SIGHUP) == 1);
}

/* One process's executable file mappings, each file not seen before added. */
static int scan_process(uint32_t pid, void *arg)
{
	struct text_scan *scan = arg;
	char path[64], line[4096 + 128], file[4096];
	bool rest_of_line = false;
	FILE *f;

	if (monotonic_ns() > scan->deadline_ns || stop_asked()) {
		scan->out->out_of_time = true;
		return 1;
	}
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = safe_fopen(path);
	if (!f) {
		scan->out->unreadable++;
		return 0;
	}
	scan->out->processes++;
	while (fgets(line, sizeof(line), f)) {
		bool continued = rest_of_line;
		struct text_file *tf, key;
		struct perf_mmap m;

		rest_of_line = !strchr(line, '\n');
		if (continued || rest_of_line || synthesize_maps_line(line, &m, file, sizeof(file), false) ||
		    !(m.prot & PROT_EXEC) || !m.ino)
			continue;
		key.key[0] = (uint64_t)m.maj << 32 | m.min;
		key.key[1] = m.ino;
		if (hash_map_get(&scan->files, key.key))
			continue;
		tf = malloc(sizeof(*tf));
		if (tf)
			*tf = key;
		if (!tf || hash_map_put(&scan->files, tf->key, tf)) {
			free(tf);
			scan->error = -ENOMEM;
			break;
		}
		scan->out->bytes += m.len;
		scan->out->files++;
	}
	fclose(f);
	return scan->error ? 1 : 0;
}

int unwind_machine_text_read(struct unwind_machine_text *out, unsigned int budget_ms)
{
	struct text_scan scan = { .out = out,
				  .deadline_ns = monotonic_ns() + budget_ms * 1000000ULL };

	memset(out, 0, sizeof(*out));
	hash_map_init(&scan.files, hash_file, equal_file);
	proc_each_id(0, scan_process, &scan);
	hash_map_free_all(&scan.files);
	return scan.error;
}

uint64_t unwind_mem_default(struct unwind_machine_text *seen)
{
	uint64_t ram = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);

	if (unwind_machine_text_read(seen, UNWIND_MEM_SCAN_MS))
		return UNWIND_MEM_FLOOR;
	return unwind_mem_for_text(seen->bytes, ram,
				   (uint64_t)RT_UNWIND_MAX_ROWS * UNWIND_ROW_KERNEL_BYTES);
}
