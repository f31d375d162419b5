/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_mem_default.h: --unwind-mem's default, sized from the machine: the
 * executable bytes its processes map when the recording starts, as the
 * kernel memory their files' unwind tables take, within a floor and a
 * ceiling. */
#ifndef RINGTRACE_UNWIND_MEM_DEFAULT_H
#define RINGTRACE_UNWIND_MEM_DEFAULT_H

#include <stdbool.h>
#include <stdint.h>

/* Bytes of executable text a row of a table is sized for. Measured on this
 * project's machine (Debian bookworm, 2026-12) by compiling the table of
 * every file mapped executable: 39.5 bytes of text a row over all of them
 * (cc1 43, gdb 40, git 41, libcrypto 30, libLLVM-15 111), the densest small
 * libraries 21; 16 leaves room for more than twice the average and for the
 * densest, and for the first stages and tables waiting meanwhile. */
#define UNWIND_MEM_TEXT_BYTES_A_ROW 16
/* The floor: room for a busy machine's files whatever was mapped at the
 * start (short processes come and go; cc1's table alone is 7.8 MiB). */
#define UNWIND_MEM_FLOOR (64ULL << 20)
#define UNWIND_MEM_FLOOR_TEXT "64M" /* UNWIND_MEM_FLOOR in the help */
/* The ceiling: this share of the machine's memory (the rows are kernel
 * memory, taken at once), and never more than the rows the map holds. */
#define UNWIND_MEM_RAM_SHARE 16
/* The time /proc is read for at most: what is left unread then is left out
 * (as it is once a SIGINT, SIGTERM or SIGHUP waits, blocked). */
#define UNWIND_MEM_SCAN_MS 300

/* What the machine maps executable, each file (device and inode) once. */
struct unwind_machine_text {
	uint64_t bytes;      /* of the executable mappings, each file's once */
	uint64_t files;
	uint64_t processes;  /* whose maps were read */
	uint64_t unreadable; /* gone, or not ours to read */
	bool out_of_time;    /* UNWIND_MEM_SCAN_MS passed (or a stop asked for): the
				rest left unread */
};

/* The kernel memory (bytes, a whole MiB) for the tables of text_bytes of
 * executable text on a machine of ram_bytes: UNWIND_MEM_FLOOR at least, at
 * most ram_bytes / UNWIND_MEM_RAM_SHARE (unless that is below the floor)
 * and the map's most rows (max_bytes). */
uint64_t unwind_mem_for_text(uint64_t text_bytes, uint64_t ram_bytes, uint64_t max_bytes);

/* Reads every process's /proc/PID/maps, for at most budget_ms, and adds up
 * what they map executable (each file once). 0, or -ENOMEM. */
int unwind_machine_text_read(struct unwind_machine_text *out, unsigned int budget_ms);

/* --unwind-mem's default on this machine (see unwind_mem_for_text), *seen
 * what it was sized from. */
uint64_t unwind_mem_default(struct unwind_machine_text *seen);

#endif
