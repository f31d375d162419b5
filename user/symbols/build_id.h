/* SPDX-License-Identifier: GPL-2.0-only */
/* build_id.h: the GNU build-id of an open ELF file (libelf, read with pread,
 * never mapped) and the place a file with a given build-id is kept. */
#ifndef RINGTRACE_BUILD_ID_H
#define RINGTRACE_BUILD_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define BUILD_ID_MAX 20

/* The build-id of the ELF file fd (its note, found by libelf), into id;
 * returns its length (1..BUILD_ID_MAX), 0 if it has none (or one longer than
 * BUILD_ID_MAX), -ENOEXEC if fd is not an ELF file. The file is read through
 * fd with pread, not mapped: a file its owner truncates meanwhile cannot fault
 * us. */
ssize_t build_id_read(int fd, uint8_t id[BUILD_ID_MAX]);

/* The GNU build-id in a file of bare ELF notes, as the kernel exports its own
 * (/sys/kernel/notes) and each module's (/sys/module/NAME/notes/
 * .note.gnu.build-id): its length (1..BUILD_ID_MAX), 0 if it has none, -errno if
 * the file cannot be read. */
ssize_t build_id_read_notes(const char *path, uint8_t id[BUILD_ID_MAX]);

/* Whether the ELF file fd has exactly that build-id (len > 0). */
bool build_id_matches(int fd, const uint8_t *id, size_t len);

/* "DIR/xx/yyyy...SUFFIX", the place a file with that build-id is kept under
 * DIR (dir NULL: "xx/yyyy...SUFFIX"), as gdb and perf name them. */
void build_id_path(char *buf, size_t buflen, const char *dir, const uint8_t *build_id,
		   size_t len, const char *suffix);

#endif
