/* SPDX-License-Identifier: GPL-2.0-only */
/* synthesize.c: side-band records for what existed before recording began: the
 * kernel's and modules' text mappings, every live process's COMM and MMAP2, all
 * with build-ids (of the very file mapped, opened safely), every cgroup. */
#include "record/synthesize.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/perf_record.h"
#include "lib/log.h"
#include "symbols/build_id.h"
#include "sys/cgroup.h"
#include "sys/kallsyms_access.h"
#include "sys/proc_ids.h"
#include "sys/safe_open.h"

/* MMAP2 of every loaded module with its build-id, as perf record
 * --buildid-mmap synthesizes them ("[NAME]": perf names a module it has no
 * file of so, and finds it by its build-id); none without /proc/modules (a
 * kernel built without module support). */
static int synthesize_modules(struct byte_buffer *b, uint64_t sample_id_type,
			      const struct perf_sample_id *sid)
{
	FILE *f = fopen("/proc/modules", "re");
	char line[512];
	int ret = 0;

	if (!f)
		return 0;
	while (!ret && fgets(line, sizeof(line), f)) {
		struct perf_mmap m = { .pid = (uint32_t)-1 };
		char name[64], state[16], notes[128], dso[80];
		unsigned long long size, addr;
		ssize_t n;

		if (sscanf(line, "%63s %llu %*s %*s %15s %llx", name, &size, state, &addr) != 4 ||
		    !addr)
			continue;
		snprintf(notes, sizeof(notes), "/sys/module/%s/notes/.note.gnu.build-id", name);
		n = build_id_read_notes(notes, m.build_id);
		snprintf(dso, sizeof(dso), "[%s]", name);
		m.build_id_size = n > 0 ? (uint8_t)n : 0;
		m.start = addr;
		m.len = size;
		m.filename = dso;
		ret = perf_kernel_map_encode(b, sample_id_type, &m, sid);
	}
	fclose(f);
	return ret;
}

int synthesize_kernel_mmap(struct byte_buffer *b, uint64_t sample_id_type,
			   const struct perf_sample_id *sid, char *err, size_t errlen)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	struct perf_mmap m = { .pid = (uint32_t)-1, .filename = PERF_KERNEL_TEXT_NAME };
	char line[512];
	uint64_t text = 0;
	ssize_t n;

	if (!f) {
		rt_format(err, errlen, "cannot read /proc/kallsyms: %s", strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[256];

		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 && !strcmp(name, "_text")) {
			text = addr;
			break;
		}
	}
	fclose(f);
	if (!text) {
		char cause[512];

		kallsyms_hidden_cause(cause, sizeof(cause));
		rt_format(err, errlen, "/proc/kallsyms hides kernel addresses: %s", cause);
		return -EPERM;
	}
	/* the kernel's build-id, for perf buildid-list, archive and report on
	 * another machine (none if /sys/kernel/notes cannot be read) */
	n = build_id_read_notes("/sys/kernel/notes", m.build_id);
	m.build_id_size = n > 0 ? (uint8_t)n : 0;
	m.start = text;
	m.len = ~0ULL - text;
	m.pgoff = text;
	if (perf_kernel_map_encode(b, sample_id_type, &m, sid) ||
	    synthesize_modules(b, sample_id_type, sid)) {
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int read_comm(const char *path, char *comm, size_t len)
{
	if (safe_read_file(AT_FDCWD, path, comm, len) <= 0)
		return -ENOENT;
	comm[strcspn(comm, "\n")] = '\0';
	return 0;
}

/* What the COMM of each thread of a process is written with. */
struct comm_writer {
	struct byte_buffer *b;
	uint64_t sample_id_type;
	const struct perf_sample_id *base;
	uint32_t pid;
};

/* The COMM of thread tid; 1 when memory runs out. */
static int synthesize_comm(uint32_t tid, void *arg)
{
	const struct comm_writer *w = arg;
	struct perf_sample_id sid = *w->base;
	char path[64], comm[64];
	struct perf_comm c;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", w->pid, tid);
	if (read_comm(path, comm, sizeof(comm)))
		return 0; /* ended meanwhile */
	c = (struct perf_comm){ .pid = w->pid, .tid = tid, .comm = comm };
	sid.pid = c.pid;
	sid.tid = c.tid;
	return perf_comm_encode(w->b, w->sample_id_type, &c, &sid) ? 1 : 0;
}

/* COMM of each thread of pid; -ENOMEM only when memory runs out. */
static int synthesize_comms(struct byte_buffer *b, uint64_t sample_id_type,
			    const struct perf_sample_id *base, uint32_t pid)
{
	struct comm_writer w = { b, sample_id_type, base, pid };

	return proc_each_id(pid, synthesize_comm, &w) > 0 ? -ENOMEM : 0;
}

/* (synthesize.h) */
int synthesize_maps_line(const char *line, struct perf_mmap *m, char *path, size_t pathlen,
			 bool mmap_data)
{
	unsigned long long start, end, pgoff, ino;
	unsigned int maj, min;
	char perms[8];
	int consumed = 0;
	const char *name;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff, &maj,
		   &min, &ino, &consumed) < 7)
		return 1;
	if (strlen(perms) < 4 || (perms[2] != 'x' && (!mmap_data || perms[0] != 'r')))
		return 1;
	name = line + consumed;
	snprintf(path, pathlen, "%s", name);
	path[strcspn(path, "\n")] = '\0';
	if (!path[0])
		snprintf(path, pathlen, "//anon");
	memset(m, 0, sizeof(*m));
	m->start = start;
	m->len = end - start;
	m->pgoff = pgoff;
	m->maj = maj;
	m->min = min;
	m->ino = ino;
	m->prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		  (perms[2] == 'x' ? PROT_EXEC : 0);
	m->flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	m->filename = path;
	return 0;
}

static int synthesize_mmaps(struct byte_buffer *b, uint64_t sample_id_type,
			    const struct perf_sample_id *base, uint32_t pid,
			    struct mapped_build_ids *build_ids, struct build_id_cache *cache,
			    enum mapping_records which)
{
	char path[64], line[4096 + 128], file[4096];
	bool rest_of_line = false;
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = safe_fopen(path);
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		struct perf_sample_id sid = *base;
		struct perf_namespaces ns;
		struct perf_mmap m, seg;
		bool continued = rest_of_line;
		int fd;

		/* the tail of a line longer than the buffer (a long file name)
		 * is never taken for a line of its own */
		rest_of_line = !strchr(line, '\n');
		if (continued || rest_of_line ||
		    synthesize_maps_line(line, &m, file, sizeof(file), which == MAPPINGS_READABLE))
			continue;
		m.pid = m.tid = sid.pid = sid.tid = pid;
		fd = -1;
		if (m.prot & PROT_EXEC)
			mapped_build_ids_fill(build_ids, pid, &m, &fd);
		if (cache && m.build_id_size)
			build_id_cache_add(cache, &m, fd);
		if (fd >= 0)
			close(fd);
		/* a container's process: its namespaces before its mappings */
		if (cache && build_id_cache_new_namespace(cache, &m, &ns) &&
		    perf_namespaces_encode(b, sample_id_type, &ns, &sid)) {
			ret = -ENOMEM;
			break;
		}
		if (perf_mmap2_encode(b, sample_id_type, &m, &sid) ||
		    (which == MAPPINGS_EH_FRAME && (m.prot & PROT_EXEC) &&
		     mapped_build_ids_eh_frame_mapping(build_ids, &m, &seg) &&
		     perf_mmap2_encode(b, sample_id_type, &seg, &sid))) {
			ret = -ENOMEM;
			break;
		}
	}
	fclose(f);
	return ret;
}

/* What each process is written with, and how many were. */
struct process_writer {
	struct byte_buffer *b;
	uint64_t sample_id_type;
	const struct perf_sample_id *sid;
	struct mapped_build_ids *build_ids;
	struct build_id_cache *cache;
	enum mapping_records which;
	uint32_t workload; /* the command, before its exec: its COMM alone */
	const char *cgroup; /* only processes in it or below it, or NULL */
	const _Atomic bool *give_up;
	long count;
};

/* Whether pid is in the cgroup whose path from the cgroup v2 root is
 * relative ("/" for the root), or below it: /proc/PID/cgroup's "0::PATH". */
static bool in_cgroup(uint32_t pid, const char *relative)
{
	char path[64], line[PATH_MAX + 8];
	size_t len = strlen(relative);
	char *own;

	snprintf(path, sizeof(path), "/proc/%u/cgroup", pid);
	if (safe_read_file(AT_FDCWD, path, line, sizeof(line)) <= 0)
		return false;
	own = strstr(line, "0::");
	if (!own || (own != line && own[-1] != '\n'))
		return false;
	own += 3;
	own[strcspn(own, "\n")] = '\0';
	if (!strcmp(relative, "/"))
		return true;
	return !strncmp(own, relative, len) && (own[len] == '\0' || own[len] == '/');
}

static int synthesize_process(uint32_t pid, void *arg)
{
	struct process_writer *w = arg;

	if (w->give_up && atomic_load(w->give_up))
		return 0;
	if (w->cgroup && !in_cgroup(pid, w->cgroup))
		return 0;
	if (synthesize_comms(w->b, w->sample_id_type, w->sid, pid) ||
	    (pid != w->workload &&
	     synthesize_mmaps(w->b, w->sample_id_type, w->sid, pid, w->build_ids, w->cache,
			      w->which)))
		return 1;
	w->count++;
	return 0;
}

long synthesize_processes(struct byte_buffer *b, uint64_t sample_id_type,
			  const struct perf_sample_id *sid, struct mapped_build_ids *build_ids,
			  struct build_id_cache *cache, enum mapping_records which,
			  const struct process_scope *scope, uint32_t workload,
			  const _Atomic bool *give_up)
{
	struct process_writer w = { .b = b, .sample_id_type = sample_id_type, .sid = sid,
				    .build_ids = build_ids, .cache = cache, .which = which,
				    .workload = workload, .cgroup = scope->cgroup, .give_up = give_up };
	int r = 0;

	if (!scope->nr_pids)
		r = proc_each_id(0, synthesize_process, &w);
	for (unsigned int i = 0; r <= 0 && i < scope->nr_pids; i++)
		r = synthesize_process(scope->pids[i], &w);
	if (r > 0)
		return -ENOMEM;
	return r < 0 ? 0 : w.count;
}

struct cgroup_walk_ctx {
	struct byte_buffer *b;
	uint64_t sample_id_type;
	const struct perf_sample_id *sid;
	long count;
};

static void add_cgroup(uint64_t id, const char *relative, void *p)
{
	struct cgroup_walk_ctx *w = p;
	struct perf_cgroup c = { id, relative };

	if (w->count < 0)
		return;
	w->count = perf_cgroup_encode(w->b, w->sample_id_type, &c, w->sid) ? -ENOMEM
									    : w->count + 1;
}

long synthesize_cgroups(struct byte_buffer *b, uint64_t sample_id_type,
			const struct perf_sample_id *sid)
{
	struct cgroup_walk_ctx w = { b, sample_id_type, sid, 0 };

	if (cgroup_walk(add_cgroup, &w))
		return 0;
	return w.count;
}
