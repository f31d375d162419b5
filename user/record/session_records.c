/* SPDX-License-Identifier: GPL-2.0-only */
/* session_records.c: what a recording session does with each record it drains:
 * samples and the kernel's losses handed to the sinks; side-band records noted
 * (JIT maps, the unwinder, CPython processes and JVMs, build-ids) and handed on,
 * with the records they make (an interpreter's range, an .eh_frame_hdr mapping). */
#include "record/session.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "format/perf_record.h"
#include "lib/log.h"
#include "record/mmap2_build_id.h"

int session_to_sinks(struct session *s, int cpu, const void *rec, size_t size, bool sideband)
{
	for (unsigned int i = 0; i < s->nr_sinks; i++) {
		const struct record_sink_ops *ops = s->sinks[i]->ops;
		int r = sideband ? ops->sideband(s->sinks[i], cpu, rec, size)
				 : ops->sample(s->sinks[i], cpu, rec, size);

		if (r) {
			if (!s->error[0])
				rt_format(s->error, sizeof(s->error), "cannot keep a record of CPU %d: %s",
					  cpu, strerror(-r));
			return r;
		}
	}
	return 0;
}

int session_on_sample(void *ctx, int cpu, const void *rec, size_t size)
{
	struct session *s = ctx;

	if (s->build_ids.held)
		session_touch_copies(s, rec, size);
	return session_to_sinks(s, cpu, rec, size, false);
}

/* The kernel's PERF_RECORD_LOST of a perf ring, replayed as what it counts:
 * samples lost (the ring carries nothing else), PERF_RECORD_LOST_SAMPLES, as
 * the BPF side reports its own ring's losses, so perf report --stats and
 * "Total Lost Samples" count the same on either transport. Stamped as the
 * kernel stamped it: the task and time of the sample that followed. */
int session_on_kernel_lost(void *ctx, int cpu, uint64_t count, uint64_t time, uint32_t pid,
			   uint32_t tid)
{
	struct session *s = ctx;
	uint8_t buf[RECORDING_LOST_MAX];
	size_t n = recording_lost_record_of_task(buf, sizeof(buf), PERF_RECORD_LOST_SAMPLES,
						 s->sampler_events[0].id, count, time, cpu, pid,
						 tid);

	return n ? session_to_sinks(s, cpu, buf, n, false) : -ENOMEM;
}

/* -g's stack copies are unwound by perf through the tables of the files a
 * process maps, which libunwind reads at their addresses: an executable
 * mapping's record is followed by one of its file's .eh_frame_hdr segment
 * where that is a segment of its own (the kernel reports such mappings only
 * with mmap_data, all of a process's, which perf's dwarf mode asks for). */
static int eh_frame_mapping_to_sinks(struct session *s, unsigned int slot,
				     const struct perf_sideband *d)
{
	struct perf_mmap seg;

	if (d->type != PERF_RECORD_MMAP2 || !d->has_sid || !(d->mmap.prot & PROT_EXEC) ||
	    !record_copies_stacks(s->opts) ||
	    !mapped_build_ids_eh_frame_mapping(&s->mapped, &d->mmap, &seg))
		return 0;
	byte_buffer_reset(&s->rewritten);
	if (perf_mmap2_encode(&s->rewritten, RECORDING_SAMPLE_ID_TYPE, &seg, &d->sid))
		return -ENOMEM;
	return session_to_sinks(s, s->cpus.cpus[slot], s->rewritten.data, s->rewritten.len, true);
}

int session_on_sideband(void *ctx, unsigned int slot, const void *rec, size_t size)
{
	struct session *s = ctx;
	struct perf_sideband d;
	bool ranges = false; /* interp_rec holds ranges to write */
	int r;

	/* decoded once, for the JIT maps, the unwinder and the build-id */
	if (perf_sideband_decode(rec, RECORDING_SAMPLE_ID_TYPE, &d))
		return session_to_sinks(s, s->cpus.cpus[slot], rec, size, true);
	if (d.type == PERF_RECORD_FORK || d.type == PERF_RECORD_EXIT)
		build_id_cache_task_changed(&s->build_ids, d.task.pid);
	else if (d.type == PERF_RECORD_COMM && d.comm.exec)
		build_id_cache_task_changed(&s->build_ids, d.comm.pid);
	/* a JIT's map is copied when it maps code, and again as it exits */
	if (d.type == PERF_RECORD_MMAP2)
		jit_maps_note_mmap(&s->jit_maps, &d.mmap);
	else if (d.type == PERF_RECORD_EXIT && d.task.pid == d.task.tid)
		jit_maps_copy(&s->jit_maps, d.task.pid);
	/* a CPython process's code, a JVM's methods named while it runs: no
	 * longer after */
	if (d.type == PERF_RECORD_EXIT && d.task.pid == d.task.tid) {
		python_procs_exited(&s->python, d.task.pid, d.task.time);
		hotspot_procs_exited(&s->hotspot, d.task.pid);
		v8_procs_exited(&s->v8, d.task.pid);
	} else if (d.type == PERF_RECORD_COMM && d.comm.exec) {
		python_procs_forget(&s->python, d.comm.pid, d.has_sid ? d.sid.time : UINT64_MAX);
		hotspot_procs_exited(&s->hotspot, d.comm.pid);
		v8_procs_exited(&s->v8, d.comm.pid);
	}
	/* as the kernel wrote it: the device and inode prove the file opened
	 * (kept until every CPU's side-band has passed its time) */
	unwind_tables_note(&s->unwind, &d);
	byte_buffer_reset(&s->interp_rec);
	/* a CPython process's child: the same interpreter, its own range */
	if (d.type == PERF_RECORD_FORK && d.task.pid != d.task.ppid && d.has_sid) {
		d.sid.time = d.task.time;
		d.sid.pid = d.sid.tid = d.task.pid;
		ranges = python_procs_note_fork(&s->python, d.task.ppid, &d.sid, &s->interp_rec);
	}
	if (d.type == PERF_RECORD_MMAP2 && d.has_sid) {
		/* a container's process: its namespaces before its mapping */
		if (mmap2_namespaces(&s->build_ids, &s->rewritten, &d.mmap, &d.sid) &&
		    (r = session_to_sinks(s, s->cpus.cpus[slot], s->rewritten.data, s->rewritten.len, true)))
			return r;
		/* a CPython interpreter, looked at through the kernel's record
		 * (its device and inode prove the file opened where the
		 * process's root is closed to us, as a root workload's is once
		 * our capabilities are dropped), gets the range its Python
		 * frames are written in, mapped after it (its time, its CPU) */
		ranges = python_procs_note_mmap(&s->python, &d.mmap, &d.sid, &s->interp_rec);
		/* a JVM's libjvm.so: its layout read (while ringtrace may read
		 * its memory), the same range for its Java frames */
		ranges |= hotspot_procs_note_mmap(&s->hotspot, &d.mmap, &d.sid, &s->interp_rec);
		/* a Node.js binary: the same range for its JavaScript frames */
		ranges |= v8_procs_note_mmap(&s->v8, &d.mmap, &d.sid, &s->interp_rec);
		rec = mmap2_with_build_id(&s->mapped, &s->build_ids, &s->rewritten, rec, &d.mmap,
					  &d.sid, &size);
	}
	if ((r = session_to_sinks(s, s->cpus.cpus[slot], rec, size, true)) ||
	    (r = eh_frame_mapping_to_sinks(s, slot, &d)) || !ranges)
		return r;
	/* the ranges it made (a parent's and its children's): a record each */
	for (size_t at = 0, n; !r && at + sizeof(struct perf_event_header) <= s->interp_rec.len;
	     at += n) {
		n = ((const struct perf_event_header *)((const char *)s->interp_rec.data + at))->size;
		if (n < sizeof(struct perf_event_header) || n > s->interp_rec.len - at)
			break; /* cannot be: our own encoder's */
		r = session_to_sinks(s, s->cpus.cpus[slot], (const char *)s->interp_rec.data + at, n, true);
	}
	return r;
}
