/* SPDX-License-Identifier: GPL-2.0-only */
/* recording.c: opens a recording and replays it in time order: side-band into
 * an address space, each sample and LOST record to a visitor; what report,
 * script and the stack outputs share. */
#include "report/recording.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/perf_data_parts.h"
#include "lib/log.h"
#include "symbols/build_id_cache.h"
#include "sys/output_dir.h"

/* Whether r is a ringtrace recording (per-CPU files data.cpuN) that did not
 * write its totals as it ended (a flight snapshot's are its accounting). */
static bool never_ended(const struct recording *r)
{
	bool ours = false;
	int fd;

	for (unsigned int i = 1; i < r->in.nr_files && !ours; i++) {
		const char *slash = strrchr(r->in.files[i].path, '/');

		ours = !strncmp(slash ? slash + 1 : r->in.files[i].path, "data.cpu", 8);
	}
	if (!ours)
		return false;
	fd = open(r->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ours = faccessat(fd, OUTPUT_TOTALS_FILE, F_OK, AT_SYMLINK_NOFOLLOW) &&
	       faccessat(fd, "accounting", F_OK, AT_SYMLINK_NOFOLLOW);
	close(fd);
	return ours;
}

int recording_open(struct recording *r, const char *path, const char *kallsyms,
		   const char *symfs, char *err, size_t errlen)
{
	return recording_open_parts(r, &path, 1, kallsyms, symfs, err, errlen);
}

int recording_open_parts(struct recording *r, const char *const *paths, unsigned int nr,
			 const char *kallsyms, const char *symfs, char *err, size_t errlen)
{
	/* the copies kept: the last output holds them all (linked) */
	const char *path = paths[nr - 1];
	int ret;

	memset(r, 0, sizeof(*r));
	r->path = paths[0];
	if ((ret = perf_input_open(&r->in, paths[0], err, errlen)))
		return ret;
	for (unsigned int i = 1; i < nr; i++)
		if ((ret = perf_input_add(&r->in, paths[i], err, errlen))) {
			perf_input_close(&r->in);
			return ret;
		}
	address_space_init(&r->as, kallsyms ? kallsyms : "/proc/kallsyms");
	r->as.symfs = symfs;
	if (r->in.is_dir) {
		/* binaries the recording kept: its own, or its parent's for a
		 * flight-recorder snapshot */
		if (asprintf(&r->build_id_dirs[0], "%s/.build-id", path) < 0)
			r->build_id_dirs[0] = NULL;
		if (asprintf(&r->build_id_dirs[1], "%s/../.build-id", path) < 0)
			r->build_id_dirs[1] = NULL;
		r->as.build_id_dirs[0] = r->build_id_dirs[0];
		r->as.build_id_dirs[1] = r->build_id_dirs[0] ? r->build_id_dirs[1] : NULL;
		/* and a container's files a user owns, per mount namespace */
		if (asprintf(&r->ns_copy_dirs[0], "%s/" BUILD_ID_NS_DIR, path) < 0)
			r->ns_copy_dirs[0] = NULL;
		if (asprintf(&r->ns_copy_dirs[1], "%s/../" BUILD_ID_NS_DIR, path) < 0)
			r->ns_copy_dirs[1] = NULL;
		r->as.ns_copy_dirs[0] = r->ns_copy_dirs[0];
		r->as.ns_copy_dirs[1] = r->ns_copy_dirs[0] ? r->ns_copy_dirs[1] : NULL;
		/* JITs' maps it kept: its own, or its parent's */
		if (asprintf(&r->jit_dirs[1], "%s/..", path) < 0)
			r->jit_dirs[1] = NULL;
		r->as.jit_dirs[0] = path;
		r->as.jit_dirs[1] = r->jit_dirs[1];
		r->never_ended = never_ended(r);
	}
	return 0;
}

void recording_close(struct recording *r)
{
	free(r->build_id_dirs[0]);
	free(r->build_id_dirs[1]);
	free(r->ns_copy_dirs[0]);
	free(r->ns_copy_dirs[1]);
	free(r->jit_dirs[1]);
	r->build_id_dirs[0] = r->build_id_dirs[1] = NULL;
	r->ns_copy_dirs[0] = r->ns_copy_dirs[1] = NULL;
	free(r->lost_by_cpu);
	r->lost_by_cpu = NULL;
	unwinder_free(r->unwinder);
	r->unwinder = NULL;
	free(r->inlines);
	r->inlines = NULL;
	address_space_free(&r->as);
	perf_input_close(&r->in);
}

bool recording_is_tracking(const struct recording *r, unsigned int e)
{
	const struct perf_event_attr *a = &r->in.events[e].attr;

	return a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_DUMMY;
}

static int on_lost(struct recording *r, const struct recording_visitor *v,
		   const struct stream_record *sr)
{
	const struct perf_event_header *rec = sr->rec;
	const struct perf_input_event *ev = perf_input_event_of(&r->in, rec);
	struct perf_sample_id sid = { 0 };
	struct perf_lost l;

	if (perf_lost_decode(rec, &l))
		return -EINVAL;
	perf_sample_id_decode(rec, r->in.sample_id_type, &sid);
	if (rec->type == PERF_RECORD_LOST && ev && recording_is_tracking(r, (unsigned int)(ev - r->in.events))) {
		r->sideband_lost += l.lost;
	} else {
		r->lost += l.lost;
		if (!r->lost_by_cpu &&
		    !(r->lost_by_cpu = calloc(RECORDING_MAX_CPUS, sizeof(uint64_t))))
			return -ENOMEM;
		if (sid.cpu < RECORDING_MAX_CPUS)
			r->lost_by_cpu[sid.cpu] += l.lost;
	}
	return v->lost ? v->lost(v->ctx, r, sr, ev, &sid, l.lost) : 0;
}

/* Whether an event may sample the kernel: its symbols will be wanted. */
static bool samples_kernel(const struct recording *r)
{
	for (unsigned int e = 0; e < r->in.nr_events; e++)
		if (!recording_is_tracking(r, e) && !r->in.events[e].attr.exclude_kernel)
			return true;
	return false;
}

int recording_replay(struct recording *r, const struct recording_visitor *v, char *err,
		     size_t errlen)
{
	struct record_stream *rs;
	struct stream_record sr;
	int ret = 0, more;

	/* kallsyms is read while the files are checked (no fork comes after) */
	if (samples_kernel(r))
		address_space_load_kernel_beside(&r->as);
	rs = record_stream_open(&r->in, err, errlen);
	if (!rs)
		return -EIO; /* what failed is in err */
	err[0] = '\0';
	while (!ret && (more = record_stream_next(rs, &sr))) {
		const struct perf_event_header *rec = sr.rec;
		const struct perf_input_event *ev;
		struct perf_sample s;

		if (more < 0) {
			rt_format(err, errlen, "%s: interrupted", r->in.path);
			ret = more;
			break;
		}
		if (sr.time && rec->type == PERF_RECORD_SAMPLE) {
			if (!r->first_time || sr.time < r->first_time)
				r->first_time = sr.time;
			if (sr.time > r->last_time)
				r->last_time = sr.time;
		}
		switch (rec->type) {
		case PERF_RECORD_SAMPLE:
			ev = perf_input_event_of(&r->in, rec);
			if (!ev || perf_sample_decode_regs(rec, ev->attr.sample_type,
							   ev->attr.sample_regs_user, &s)) {
				ret = -EINVAL;
				break;
			}
			r->samples++;
			if (v->sample)
				ret = v->sample(v->ctx, r, (unsigned int)(ev - r->in.events), &s, &sr);
			break;
		case PERF_RECORD_LOST:
		case PERF_RECORD_LOST_SAMPLES:
			ret = on_lost(r, v, &sr);
			break;
		default:
			ret = address_space_apply(&r->as, rec, r->in.sample_id_type);
			break;
		}
		if (ret == -ENOMEM && !err[0])
			rt_format(err, errlen, "out of memory");
		if (ret < 0 && !err[0]) {
			const char *name = perf_record_type_name(rec->type);

			rt_format(err, errlen, "%s: offset %llu: malformed %s record",
				  r->in.files[sr.file].path, (unsigned long long)sr.offset,
				  name ? name : "unknown");
		}
	}
	record_stream_close(rs);
	return ret;
}

/* The functions debug information names at an address of a file (see
 * unwinder_inline_names), interned: a slot of r->inlines, by file (its
 * build-id and mount namespace too: two files of one path are two) and
 * address. Asking libdw costs a walk of the compile unit's scopes (script of
 * a --call-graph dwarf recording of 1868 samples 0.25 -> 3.2 s uncached). */
struct inline_names {
	const struct dso *dso; /* the file (path, build-id, namespace); NULL: an empty slot */
	uint64_t addr;         /* in the file's own addresses */
	size_t n;
	const char *names[RECORDING_MAX_INLINES];
};

/* The names at the frame at ip, resolved to where, from the slot or asked
 * and kept there; NULL if memory ran out. */
static const struct inline_names *inline_names_at(struct recording *r, uint32_t pid, uint64_t ip,
						  const struct resolved *where)
{
	const struct map *m = address_space_find_map(&r->as, pid, ip);
	const struct dso *file = m ? m->dso : NULL;
	uint64_t h = ((uint64_t)(uintptr_t)file * 0x9E3779B97F4A7C15ULL) ^ where->addr;
	struct inline_names *e;
	char *names[RECORDING_MAX_INLINES];
	bool ok = true;

	if (!r->inlines && !(r->inlines = calloc(RECORDING_INLINE_SLOTS, sizeof(*r->inlines))))
		return NULL;
	e = &r->inlines[(h * 0xBF58476D1CE4E5B9ULL >> 52) % RECORDING_INLINE_SLOTS];
	if (file && e->dso == file && e->addr == where->addr)
		return e;
	e->dso = NULL;
	e->n = file ? unwinder_inline_names(r->unwinder, file, where->addr, names,
					    RECORDING_MAX_INLINES)
		    : 0;
	for (size_t k = 0; k < e->n; k++) {
		ok = ok && (e->names[k] = address_space_intern(&r->as, names[k]));
		free(names[k]);
	}
	if (!ok)
		return NULL;
	e->dso = file;
	e->addr = where->addr;
	return e;
}

/* The frames perf's unwinding makes of the frame at ip (append_inlines):
 * one for each function the file's debug information names there, the
 * innermost inlined one first; a name other than the symbol's is an
 * "(inlined)" frame at the symbol's offset. -ENOENT where there is none
 * (no symbol, no debug information). */
static int each_inline(struct recording *r, uint32_t pid, uint64_t ip, const struct resolved *where,
		       int (*fn)(void *ctx, uint64_t ip, const struct resolved *where), void *ctx)
{
	const struct inline_names *e;
	int ret;

	if (!where->mapped || where->kernel || !strcmp(where->symbol, "[unknown]"))
		return -ENOENT;
	e = inline_names_at(r, pid, ip, where);
	if (!e)
		return -ENOMEM;
	if (!e->n)
		return -ENOENT;
	for (size_t k = 0; k < e->n; k++) {
		struct resolved in = *where;

		if (strcmp(e->names[k], where->symbol)) {
			in.symbol = e->names[k];
			in.inlined = true;
		}
		ret = fn(ctx, ip, &in);
		if (ret)
			return ret;
	}
	return 0;
}

/* Whether s is a copy standing in for the user frames of a callchain: its
 * event records user callchains as well as stack copies (-g, whose copies
 * stand in where a table was not loaded yet; ehframe+dwarf), and its
 * callchain has none. Its frames are then given as the callchains' are, so
 * that a stack reads the same either way. */
static bool copies_as_callchains(const struct recording *r, const struct perf_sample *s)
{
	const struct perf_input_event *ev = perf_input_event_of_id(&r->in, s->id);

	if (!ev || !(ev->attr.sample_type & PERF_SAMPLE_CALLCHAIN) ||
	    ev->attr.exclude_callchain_user)
		return false;
	for (uint64_t i = 0; i < s->nr_callchain; i++)
		if (s->callchain[i] == (uint64_t)PERF_CONTEXT_USER)
			return false;
	return true;
}

int recording_each_unwound_frame(struct recording *r, const struct perf_sample *s,
			      int (*fn)(void *ctx, uint64_t ip, const struct resolved *where),
			      void *ctx)
{
	uint64_t ips[RECORDING_MAX_UNWOUND];
	bool as_callchain = copies_as_callchains(r, s);
	struct resolved where;
	size_t nr;
	int ret;

	if (!r->unwinder && !(r->unwinder = unwinder_new(&r->as)))
		return -ENOMEM;
	nr = unwinder_user_frames(r->unwinder, s, as_callchain, ips, RECORDING_MAX_UNWOUND);
	for (size_t i = 0; i < nr; i++) {
		address_space_resolve(&r->as, s->pid, ips[i], PERF_RECORD_MISC_USER, &where);
		/* a callchain's frame is its return address, without the
		 * functions inlined there (as recording_each_frame's) */
		ret = as_callchain ? -ENOENT : each_inline(r, s->pid, ips[i], &where, fn, ctx);
		if (ret == -ENOENT)
			ret = fn(ctx, ips[i], &where);
		if (ret)
			return ret;
	}
	return 0;
}

int recording_each_frame(struct recording *r, const struct perf_sample *s,
			 int (*fn)(void *ctx, uint64_t ip, const struct resolved *where),
			 void *ctx)
{
	uint16_t cpumode = s->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	bool user_frames = false;
	struct resolved where;
	int ret;

	if (!s->nr_callchain && s->regs_abi)
		return recording_each_unwound_frame(r, s, fn, ctx);
	if (!s->nr_callchain) {
		address_space_resolve(&r->as, s->pid, s->ip, cpumode, &where);
		return fn(ctx, s->ip, &where);
	}
	for (uint64_t i = 0; i < s->nr_callchain; i++) {
		uint64_t ip = s->callchain[i];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			if (ip == (uint64_t)PERF_CONTEXT_KERNEL)
				cpumode = PERF_RECORD_MISC_KERNEL;
			if (ip == (uint64_t)PERF_CONTEXT_USER) {
				cpumode = PERF_RECORD_MISC_USER;
				user_frames = true;
			}
			continue;
		}
		address_space_resolve(&r->as, s->pid, ip, cpumode, &where);
		ret = fn(ctx, ip, &where);
		if (ret)
			return ret;
	}
	/* the user frames from the stack copy, unless the kernel unwound them
	 * already (--call-graph ehframe+dwarf) */
	return s->regs_abi && !user_frames ? recording_each_unwound_frame(r, s, fn, ctx) : 0;
}
