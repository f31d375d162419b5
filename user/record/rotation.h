/* SPDX-License-Identifier: GPL-2.0-only */
/* rotation.h: --switch-output, --switch-max-files and --max-size: when a
 * recording switches to a new output or stops, and the work of a switch on
 * the writer's thread: the old output named DIR.TIMESTAMP (another name when
 * that one is taken), its totals written, the next one made. */
#ifndef RINGTRACE_ROTATION_H
#define RINGTRACE_ROTATION_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "record/file_sink.h"

struct session;

struct rotation {
	bool on;                 /* --switch-output given */
	struct file_sink_rotation ops;
	int fd;                  /* the current output's directory if not the session's */
	int parentfd;            /* the directory DIR is in: every name is made in it */
	char *prefix;            /* DIR's path up to its name ("" or ending in /), for messages */
	char *base;              /* DIR's name in it */
	char cur[NAME_MAX + 1];  /* the current output's name there ("": none) */
	char last[NAME_MAX + 1]; /* the last output's perf name (DIR.TIMESTAMP) */
	unsigned int taken;      /* names found taken by the current output */
	unsigned int renamed;    /* outputs under another name than perf's */
	uint64_t names_taken;    /* all the names found taken */
	bool signalled;          /* SIGUSR2 not yet acted on */
	uint64_t next_ns;        /* time mode: the next switch (monotonic) */
	unsigned int outputs;    /* outputs finished */
	char first_done[NAME_MAX + 1]; /* the first finished output's name, and the */
	char last_done[NAME_MAX + 1];  /* last's, as named (for the end's line) */
	char **kept;             /* --switch-max-files: the newest outputs' names, a ring */
	unsigned int next_kept;
	/* the copies of files (containers' and deleted binaries, JITs' and
	 * Python's maps) are made in a directory beside the outputs, .DIR.copies,
	 * and linked into each output as it ends: each holds them all, their
	 * data on disk once, whichever outputs --switch-max-files removes */
	char store[NAME_MAX + 1];
	int store_fd;
};

/* Before the sinks are made: 0, or -errno with s->error set. */
int rotation_init(struct session *s);
/* The directory copies of files are made in: the store while rotating,
 * else the recording's. */
int rotation_copies_dirfd(const struct session *s);
void rotation_free(struct session *s);
/* SIGUSR2: with --switch-output=signal, a switch after the next drain. */
void rotation_note_signal(struct session *s);
/* Drain thread, after each drain: asks for the switch that is due (never
 * waiting for it); true once --max-size is reached: the recording stops. */
bool rotation_after_drain(struct session *s);

#endif
