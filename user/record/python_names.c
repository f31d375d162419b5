/* SPDX-License-Identifier: GPL-2.0-only */
/* python_names.c: the code objects the walks of CPython processes saw, named
 * into each process's perf map, and the maps written into a directory. */
#include "record/python_proc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "record/interp_range.h"
#include "symbols/python_code.h"

/* Code objects named per process, at most (more are counted, not named). */
#define PY_NAMES_PER_PROCESS 65536
/* Code objects taken from the BPF side per call. */
#define PY_TAKE_PER_CALL 1024

struct python_name {
	uint64_t addr;            /* of the code's instruction 0, its tag's */
};

/* s (from the process: anything) as printable ASCII, '?' for the rest. */
static void clean(char *s, size_t size)
{
	s[size - 1] = '\0';
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			*s = '?';
}

/* The name of code: from what the walk read in the process (info, if it
 * could), else read from its memory here (which needs the capability to
 * read another process's: --keep-caps, or the same user's process). */
static int code_name(struct python_proc *pr, uint64_t code, struct rt_python_code_info *info,
		     char *name, size_t size)
{
	if (info->name_ok) {
		clean(info->name, sizeof(info->name));
		clean(info->file, sizeof(info->file));
		snprintf(name, size, "%s (%s%s:%d)", info->name, info->file_cut ? "..." : "",
			 info->file_ok ? info->file : "?", info->firstlineno);
		return 0;
	}
	if (!pr->base.live)
		return -ESRCH;
	return python_code_name(pr->base.pid, code, pr->code_type, pr->o, name, size);
}

/* Names code (written with tag) of pr into its map, once. */
static void name_code(struct python_procs *p, struct python_proc *pr, uint64_t code,
		      uint32_t tag, struct rt_python_code_info *info)
{
	char name[4 * (PYTHON_NAME_MAX + PYTHON_FILE_MAX) + 64], line[sizeof(name) + 64];
	uint64_t addr = RT_PY_ADDR_OF(code, tag, 0);
	struct python_name *n;
	int len;

	if (tag >= RT_PY_TAGS || hash_map_get(&pr->base.named, &addr))
		return;
	if (pr->base.named.len >= PY_NAMES_PER_PROCESS || !(n = malloc(sizeof(*n)))) {
		p->names_dropped++;
		return;
	}
	n->addr = addr;
	if (hash_map_put(&pr->base.named, &n->addr, n)) {
		free(n);
		p->names_dropped++;
		return;
	}
	if (code_name(pr, code, info, name, sizeof(name))) {
		p->name_failed++;
		return;
	}
	/* perf's map line: START SIZE name, in hex */
	if (!interp_map_begin(&pr->base.map)) {
		p->names_dropped++;
		return;
	}
	len = snprintf(line, sizeof(line), "%" PRIx64 " %llx %s\n", addr,
		       (unsigned long long)RT_PY_CODE_SPAN, name);
	if (len > 0 && (size_t)len < sizeof(line) &&
	    byte_buffer_append(&pr->base.map, line, (size_t)len))
		p->named++;
	else
		p->names_dropped++;
}

void python_names_take_seen(struct python_procs *p)
{
	static struct rt_python_code_key keys[PY_TAKE_PER_CALL];
	static struct rt_python_code_info infos[PY_TAKE_PER_CALL];
	size_t nr;

	if (!p->base.attached)
		return;
	nr = python_maps_take_seen(&p->maps, keys, infos, PY_TAKE_PER_CALL);
	for (size_t i = 0; i < nr; i++) {
		struct python_proc *pr = hash_map_get(&p->base.procs, &keys[i].tgid);

		/* named as the process exits, not after */
		if (pr && !pr->base.exited_seq)
			name_code(p, pr, keys[i].code, keys[i].tag, &infos[i]);
		else
			p->names_dropped++;
	}
}

void python_procs_name_seen(struct python_procs *p)
{
	pthread_mutex_lock(&p->base.lock);
	python_names_take_seen(p);
	pthread_mutex_unlock(&p->base.lock);
}

void python_procs_write_maps(struct python_procs *p, int dirfd, const char *dirpath)
{
	if (!p->base.on)
		return;
	pthread_mutex_lock(&p->base.lock);
	python_names_take_seen(p);
	runtime_procs_write_maps(&p->base, dirfd, dirpath);
	pthread_mutex_unlock(&p->base.lock);
}

void python_procs_finish(struct python_procs *p)
{
	python_procs_write_maps(p, p->base.dirfd, "DIR");
}
