/* SPDX-License-Identifier: GPL-2.0-only */
/* kallsyms_disk.h: the running kernel's symbol table (as kallsyms.c builds
 * it from /proc/kallsyms) kept on disk for the boot and its modules, so a
 * report need not have the kernel format 122,000 lines and parse them
 * again: one file in a directory of root's alone, read back by mapping it,
 * checked whole, looked up in place. Off until configured. */
#ifndef RINGTRACE_KALLSYMS_DISK_H
#define RINGTRACE_KALLSYMS_DISK_H

#include <stdbool.h>
#include <stdint.h>

struct symbol;
struct symtab;
struct kallsyms_disk_table;

/* The default directory (when ringtrace runs as root; else none). */
#define KALLSYMS_DISK_DEFAULT_DIR "/var/cache/ringtrace/kallsyms"
/* A table larger than this is not kept (122,000 symbols are 4.6 MB). */
#define KALLSYMS_DISK_MAX_BYTES (64u << 20)

/* On with the directory dir (made 0700 if missing; it must be this user's
 * alone), or off (NULL). A directory that cannot be used is said once, as
 * a warning, when first needed, and the cache is off. */
void kallsyms_disk_configure(const char *dir);
/* Whether it is on (configured, and its directory not found unusable). */
bool kallsyms_disk_on(void);

/* /proc/kallsyms' table as it is now (this boot, modules the modules_key
 * of /proc/modules), if one is kept: true with *t a view of it; else
 * false. The caller checks first that the kernel shows the reader its
 * addresses now (kallsyms_addresses_shown): a kept table is never shown to
 * a reader who would be shown zeros. */
bool kallsyms_disk_find(const char *modules_key, struct symtab *t);
/* Keeps t, just read from /proc/kallsyms with modules_key, in place of the
 * boot's kept one; the files of other boots go. */
void kallsyms_disk_keep(const char *modules_key, const struct symtab *t);

/* symbols.c: the symbol of a kept table that holds addr, or NULL; and the
 * table let go. */
const struct symbol *kallsyms_disk_lookup(struct kallsyms_disk_table *k, uint64_t addr);
void kallsyms_disk_release(struct kallsyms_disk_table *k);

#endif
