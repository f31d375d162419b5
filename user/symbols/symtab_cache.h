/* SPDX-License-Identifier: GPL-2.0-only */
/* symtab_cache.h: ELF files' symbol tables kept between the reports one
 * process makes (export -g makes one for each profile), so that a
 * long-running program's table is read once, not at every profile. A table
 * is found by the inode it was read from (device, inode, size, change and
 * modification times: a file is what its inode is, not its name), shared
 * while reports use it, and dropped once no report of the last few used it
 * or the byte budget is passed. Off until configured. */
#ifndef RINGTRACE_SYMTAB_CACHE_H
#define RINGTRACE_SYMTAB_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

struct symtab;

/* On with a budget of bytes (0: off, the tables dropped as their last user
 * ends); a table no report of the last keep_reports used is dropped. */
void symtab_cache_configure(size_t budget_bytes, unsigned int keep_reports);
/* A report begins, and ends: then the tables the last keep_reports
 * reports did not use go. */
void symtab_cache_report_begins(void);
void symtab_cache_report_ends(void);

struct symtab_cache_counts {
	uint64_t hits, misses; /* tables found, and read from their files */
	uint64_t dropped;      /* unused for keep_reports reports */
	uint64_t over_budget;  /* dropped (or never kept) for the budget */
	size_t entries, bytes; /* kept now */
	size_t budget;         /* the bytes kept at most (0: off) */
};
void symtab_cache_counts(struct symtab_cache_counts *c);

/* symbols/ only. The table of the file st describes, read as root and path
 * (the debug files looked for by them): shared into *t (symtab_free gives
 * it back), true; false when none is kept. */
bool symtab_cache_find(const struct stat *st, const char *root, const char *path,
		       struct symtab *t);
/* Keeps *t, just read from that file, and leaves *t a shared view of it;
 * over the budget (or off), *t is left as it was, the caller's. */
void symtab_cache_keep(const struct stat *st, const char *root, const char *path,
		       struct symtab *t);
/* symtab_free of a shared view. */
void symtab_cache_release(struct symtab *t);

#endif
