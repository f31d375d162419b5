/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_builder.h: a thread that compiles unwind tables from .eh_frame into
 * the BPF rows' layout, so that the recording goes on draining meanwhile. */
#ifndef RINGTRACE_UNWIND_BUILDER_H
#define RINGTRACE_UNWIND_BUILDER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/unwind_cache.h"
#include "symbols/unwind_compile.h"
#include "unwind_maps.h"

/* A table compiled for the caller's file (its tag). */
struct unwind_built {
	void *tag;
	struct rt_unwind_row *rows; /* the caller frees them; NULL if no table */
	uint32_t nr;
	int64_t exec_vaddr_delta;
	double seconds;  /* spent compiling (or reading the cache) */
	bool from_cache; /* read from the unwind cache, not compiled */
	bool first_stage; /* the table without the long FDEs: the whole follows */
	enum unwind_refusal refusal; /* why rows is NULL (UNWIND_BUILT if it is not) */
};

struct unwind_builder;

/* NULL if out of memory or no eventfd. The threads start at the first job
 * (or unwind_builder_start) and drop every capability before any file.
 * Tables are looked up in cache first and kept there once compiled (NULL: no
 * cache; the builder does not own it); each file's compile spends at most
 * budget (its cancel is the builder's own: unwind_builder_free sets it). */
struct unwind_builder *unwind_builder_new(struct unwind_cache *cache,
					 const struct unwind_budget *budget);
/* Starts the threads now (else at the first job), each at nice_delta below
 * the caller's nice value if its capabilities allow (CAP_SYS_NICE), then
 * without any capability; returns once they are. 0, or -1 if none could be
 * started. */
int unwind_builder_start(struct unwind_builder *b, int nice_delta);
/* Readable while compiled tables wait to be collected. */
int unwind_builder_fd(const struct unwind_builder *b);
/* Compiles the ELF file fd (closed when done) for tag; urgent ones (a
 * process that runs now) before the others, each in the order given, and in
 * two stages when long FDEs would hold them up (two tables collected for
 * tag: the first stage's, then the whole). -1 if it cannot. */
int unwind_builder_submit(struct unwind_builder *b, void *tag, int fd, bool urgent);
/* Compiles fd (closed when done) in the calling thread, within the budget:
 * for a program not yet started, whose table is wanted before it runs;
 * given up at once when *cancel (NULL: never) is set. */
void unwind_builder_compile_now(struct unwind_builder *b, void *tag, int fd,
				const _Atomic bool *cancel, struct unwind_built *out);
/* tag's job, if it waits among the others, goes to the urgent ones' end. */
void unwind_builder_hurry(struct unwind_builder *b, void *tag);
/* Up to max compiled tables, oldest first. */
size_t unwind_builder_collect(struct unwind_builder *b, struct unwind_built *out, size_t max);
/* Jobs submitted and not collected yet. */
size_t unwind_builder_pending(const struct unwind_builder *b);
/* Stops the thread (the job at hand cancelled: milliseconds) and frees
 * what is left. */
void unwind_builder_free(struct unwind_builder *b);

#endif
