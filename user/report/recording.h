/* SPDX-License-Identifier: GPL-2.0-only */
/* recording.h: opens a recording and replays it in time order: side-band into
 * an address space, each sample and LOST record to a visitor; what report,
 * script and the stack outputs share. */
#ifndef RINGTRACE_RECORDING_H
#define RINGTRACE_RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/perf_data_reader.h"
#include "format/perf_record.h"
#include "format/record_stream.h"
#include "symbols/address_space.h"
#include "symbols/dwarf_unwind.h"

#define RECORDING_MAX_CPUS 4096
/* Most user frames unwound from a sample's stack, as perf's default
 * kernel.perf_event_max_stack. */
#define RECORDING_MAX_UNWOUND 127
/* Most functions of one unwound frame the debug information names (the
 * inlined ones and the one holding them). */
#define RECORDING_MAX_INLINES 16
#define RECORDING_INLINE_SLOTS 4096

struct recording {
	const char *path;
	struct perf_input in;
	struct address_space as;
	uint64_t first_time, last_time; /* of the first and last samples */
	uint64_t samples;
	uint64_t lost;                  /* samples reported lost, all CPUs */
	uint64_t *lost_by_cpu;          /* RECORDING_MAX_CPUS entries, or NULL if none lost */
	uint64_t sideband_lost;         /* side-band records the kernel dropped */
	bool never_ended;               /* a ringtrace recording without its totals: killed */
	char *build_id_dirs[2];         /* PATH/.build-id, and PATH/../.build-id (a snapshot's) */
	char *ns_copy_dirs[2];          /* PATH/.build-id-ns, and a snapshot's parent's */
	char *jit_dirs[2];              /* [1]: PATH/.., a snapshot's parent (JITs' maps) */
	struct unwinder *unwinder;      /* user stacks of --call-graph dwarf samples, made when needed */
	struct inline_names *inlines;   /* what debug information names at a file's address,
					 * kept (RECORDING_INLINE_SLOTS): made when needed */
};

struct recording_visitor {
	/* a sample of event index event (in r->in.events) */
	int (*sample)(void *ctx, struct recording *r, unsigned int event,
		      const struct perf_sample *s, const struct stream_record *sr);
	/* a LOST or LOST_SAMPLES record (the side-band's too): count items lost,
	 * of event ev (NULL if its id names none), its sample_id in *sid */
	int (*lost)(void *ctx, struct recording *r, const struct stream_record *sr,
		    const struct perf_input_event *ev, const struct perf_sample_id *sid,
		    uint64_t count);
	void *ctx;
};

/* 0, or -errno with err set (unreadable, not a perf.data directory). Kernel
 * symbols come from kallsyms (NULL: /proc/kallsyms), binaries are looked for
 * under symfs (NULL: /). */
int recording_open(struct recording *r, const char *path, const char *kallsyms,
		   const char *symfs, char *err, size_t errlen);
/* The same of nr outputs of one rotated recording (paths, oldest first) as
 * one recording: their records merged by time, the copies of the last (which
 * holds them all). */
int recording_open_parts(struct recording *r, const char *const *paths, unsigned int nr,
			 const char *kallsyms, const char *symfs, char *err, size_t errlen);
/* Replays every record in time order. A visitor's non-zero return stops it
 * and is returned; a malformed record is -EINVAL with err naming file and offset. */
int recording_replay(struct recording *r, const struct recording_visitor *v, char *err,
		     size_t errlen);
void recording_close(struct recording *r);

/* Whether event index e is the side-band tracking event ("dummy:HG"). */
bool recording_is_tracking(const struct recording *r, unsigned int e);

/* Calls fn for each frame of a sample, leaf first: its callchain when it has
 * one (context markers followed, the leaf's ip included), then, for a sample
 * with user registers and stack (--call-graph dwarf), the user frames
 * unwound from them, as perf adds them (unless the callchain has user frames:
 * --call-graph ehframe+dwarf); else its ip. */
int recording_each_frame(struct recording *r, const struct perf_sample *s,
			 int (*fn)(void *ctx, uint64_t ip, const struct resolved *where),
			 void *ctx);
/* Calls fn for each user frame of a --call-graph dwarf sample, unwound from
 * its registers and stack copy, leaf first: as perf's unwind-libdw gives
 * them (a caller's return address less one, the functions inlined there
 * each a frame); or, of an event that records user callchains too (-g's
 * copies of stacks whose table was not loaded yet, ehframe+dwarf), as a
 * callchain gives them (return addresses, no inlined frames). */
int recording_each_unwound_frame(struct recording *r, const struct perf_sample *s,
				 int (*fn)(void *ctx, uint64_t ip, const struct resolved *where),
				 void *ctx);

#endif
