/* SPDX-License-Identifier: GPL-2.0-only */
/* kallsyms_disk.c: the running kernel's symbol table (as kallsyms.c builds
 * it from /proc/kallsyms) kept on disk for the boot and its modules, so a
 * report need not have the kernel format 122,000 lines and parse them
 * again: one file in a directory of root's alone, read back by mapping it,
 * checked whole, looked up in place. Off until configured. */
#include "symbols/kallsyms_disk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "lib/full_io.h"
#include "lib/hash_map.h"
#include "lib/log.h"
#include "lib/sorted_count.h"
#include "symbols/symbols.h"
#include "sys/private_dir.h"
#include "sys/safe_open.h"

#define DISK_MAGIC "RTKSYMS\0"
#define DISK_VERSION 1u
#define FILE_PREFIX "kallsyms."
/* Entries looked at, at most, for other boots' files and temporary files
 * left behind, when a table is kept (the directory holds one file). */
#define DIR_SCAN_MAX 256
/* A temporary file this old was left by a report that did not finish. */
#define TEMP_GRACE_SECONDS 60

/* A kept table's file: this header, then the columns of its nr symbols
 * (starts, ends, name offsets, binding << 4 | type, padded to 8 bytes),
 * then names_len bytes of NUL-terminated names. */
struct disk_header {
	char magic[8];
	uint32_t version;
	uint32_t pad;
	char boot_id[40];  /* /proc/sys/kernel/random/boot_id */
	char modules[32];  /* kallsyms.c's key of /proc/modules */
	uint64_t nr, names_len;
	uint64_t kernel_end, steady_start, steady_end;
	uint64_t checksum; /* XXH3 of everything after the header, seeded with nr */
};

struct kallsyms_disk_table {
	void *map;
	size_t len;
	uint64_t nr;
	const uint64_t *starts, *ends;
	const uint32_t *name_offsets;
	const uint8_t *kinds;
	const char *names;
	pthread_mutex_t lock;
	struct hash_map found; /* index -> struct found: the symbols looked up */
};

struct found {
	uint32_t index;
	struct symbol symbol;
};

static struct {
	pthread_mutex_t lock;
	const char *dir;
	int dirfd;  /* -1: not opened yet; -2: off */
} disk = { PTHREAD_MUTEX_INITIALIZER, NULL, -2 };

void kallsyms_disk_configure(const char *dir)
{
	pthread_mutex_lock(&disk.lock);
	if (disk.dirfd >= 0)
		close(disk.dirfd);
	disk.dir = dir;
	disk.dirfd = dir ? -1 : -2;
	pthread_mutex_unlock(&disk.lock);
}

bool kallsyms_disk_on(void)
{
	bool on;

	pthread_mutex_lock(&disk.lock);
	on = disk.dirfd != -2;
	pthread_mutex_unlock(&disk.lock);
	return on;
}

/* The directory, opened at the first use; -1 when off. */
static int disk_dir(void)
{
	int fd;

	pthread_mutex_lock(&disk.lock);
	if (disk.dirfd == -1) {
		enum private_dir_refusal why;

		disk.dirfd = private_dir_open(disk.dir, &why);
		if (disk.dirfd < 0) {
			rt_warn("the kallsyms cache %s %s: kernel symbols are read from /proc/kallsyms "
				"(fix it, or choose another with --kallsyms-cache DIR|none)", disk.dir,
				why == PRIVATE_DIR_GOES_UP ? "goes up a directory (..)" :
				why == PRIVATE_DIR_NOT_OURS ?
				"is not a directory of this user that no one else may write" :
				strerror(errno));
			disk.dirfd = -2;
		}
	}
	fd = disk.dirfd;
	pthread_mutex_unlock(&disk.lock);
	return fd >= 0 ? fd : -1;
}

/* Bytes a symbol takes in the columns: start, end, name offset, kind. */
#define COLUMNS_PER_SYMBOL (2 * sizeof(uint64_t) + sizeof(uint32_t) + 1)

/* The columns of nr symbols, padded to 8 bytes. */
static size_t columns_bytes(uint64_t nr)
{
	return ((size_t)nr * COLUMNS_PER_SYMBOL + 7) & ~(size_t)7;
}

/* This boot's id (36 characters), or false. */
static bool boot_id(char id[40])
{
	ssize_t n = safe_read_file(AT_FDCWD, "/proc/sys/kernel/random/boot_id", id, 40);

	if (n < 36)
		return false;
	id[36] = '\0';
	return true;
}

/* Checks a mapped file: its header is this boot's and modules', its size
 * what the header says, its checksum right, its columns what lookups need
 * (starts in order, ends past them, names inside and ended). */
static bool check_table(const void *map, size_t len, const char *boot, const char *modules,
			struct kallsyms_disk_table *k)
{
	const struct disk_header *h = map;
	const char *body = (const char *)map + sizeof(*h);
	size_t columns;

	if (len < sizeof(*h) || memcmp(h->magic, DISK_MAGIC, 8) || h->version != DISK_VERSION ||
	    strncmp(h->boot_id, boot, sizeof(h->boot_id)) ||
	    strncmp(h->modules, modules, sizeof(h->modules)) || !h->nr ||
	    h->nr > KALLSYMS_DISK_MAX_BYTES / COLUMNS_PER_SYMBOL ||
	    !h->names_len || h->names_len > KALLSYMS_DISK_MAX_BYTES)
		return false;
	columns = columns_bytes(h->nr);
	if (len - sizeof(*h) != columns + h->names_len ||
	    XXH3_64bits_withSeed(body, len - sizeof(*h), h->nr) != h->checksum)
		return false;
	k->nr = h->nr;
	k->starts = (const uint64_t *)body;
	k->ends = k->starts + h->nr;
	k->name_offsets = (const uint32_t *)(k->ends + h->nr);
	k->kinds = (const uint8_t *)(k->name_offsets + h->nr);
	k->names = body + columns;
	if (k->names[h->names_len - 1])
		return false;
	for (uint64_t i = 0; i < h->nr; i++)
		if ((i && k->starts[i] < k->starts[i - 1]) || k->ends[i] < k->starts[i] ||
		    k->name_offsets[i] >= h->names_len)
			return false;
	return true;
}

bool kallsyms_disk_find(const char *modules_key, struct symtab *t)
{
	char boot[40], name[sizeof(FILE_PREFIX) + 40];
	struct kallsyms_disk_table *k;
	const struct disk_header *h;
	int dir = disk_dir(), fd;
	struct stat st;
	void *map;

	if (dir < 0 || !boot_id(boot))
		return false;
	snprintf(name, sizeof(name), FILE_PREFIX "%s", boot);
	fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !private_dir_ours_alone(&st) ||
	    st.st_size < (off_t)sizeof(*h) ||
	    st.st_size > (off_t)KALLSYMS_DISK_MAX_BYTES + (off_t)sizeof(*h) * 2) {
		close(fd);
		return false;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	close(fd);
	k = map != MAP_FAILED ? calloc(1, sizeof(*k)) : NULL;
	if (!k || !check_table(map, (size_t)st.st_size, boot, modules_key, k)) {
		if (map != MAP_FAILED)
			munmap(map, (size_t)st.st_size);
		free(k);
		return false;
	}
	k->map = map;
	k->len = (size_t)st.st_size;
	pthread_mutex_init(&k->lock, NULL);
	hash_map_init(&k->found, hash_u32_key, equal_u32_key);
	h = map;
	memset(t, 0, sizeof(*t));
	t->on_disk = k;
	t->nr = (size_t)h->nr;
	t->kernel_end = h->kernel_end;
	t->steady_start = h->steady_start;
	t->steady_end = h->steady_end;
	return true;
}

const struct symbol *kallsyms_disk_lookup(struct kallsyms_disk_table *k, uint64_t addr)
{
	size_t at = sorted_count_at_or_below(k->starts, (size_t)k->nr, sizeof(uint64_t), 0, addr);
	struct found *f;
	bool added;

	if (!at--)
		return NULL;
	/* kallsyms.c's tables overlap nowhere: the last to start at or below
	 * addr is the one that can hold it (symbols.c's holds()) */
	if (!(addr < k->ends[at] || (addr == k->ends[at] && k->ends[at] == k->starts[at])))
		return NULL;
	pthread_mutex_lock(&k->lock);
	f = hash_map_get_or_add_u32(&k->found, (uint32_t)at, sizeof(*f),
				    offsetof(struct found, index), &added);
	if (f && added)
		f->symbol = (struct symbol){
			.start = k->starts[at],
			.end = k->ends[at],
			.name = k->names + k->name_offsets[at],
			.binding = k->kinds[at] >> 4,
			.type = k->kinds[at] & 0xf,
		};
	pthread_mutex_unlock(&k->lock);
	return f ? &f->symbol : NULL;
}

void kallsyms_disk_release(struct kallsyms_disk_table *k)
{
	hash_map_free_all(&k->found);
	pthread_mutex_destroy(&k->lock);
	munmap(k->map, k->len);
	free(k);
}

/* A table's columns and names written through a 64 KiB buffer, hashed as
 * they go. */
struct column_writer {
	int fd;
	XXH3_state_t *hash;
	char buf[64 << 10];
	size_t used;
	bool failed;
};

static void column_flush(struct column_writer *w)
{
	XXH3_64bits_update(w->hash, w->buf, w->used);
	w->failed |= write_full(w->fd, w->buf, w->used) != 0;
	w->used = 0;
}

/* n is at most the buffer's size */
static void column_put(struct column_writer *w, const void *p, size_t n)
{
	if (w->used + n > sizeof(w->buf))
		column_flush(w);
	memcpy(w->buf + w->used, p, n);
	w->used += n;
}

/* Writes t's columns and names; false if a write failed or a name lies
 * outside t's arena. */
static bool write_body(struct column_writer *w, const struct symtab *t)
{
	static const char zeros[8];
	const struct symbol *s = t->syms;
	size_t nr = t->nr;

	for (size_t i = 0; i < nr; i++)
		column_put(w, &s[i].start, 8);
	for (size_t i = 0; i < nr; i++)
		column_put(w, &s[i].end, 8);
	for (size_t i = 0; i < nr; i++) {
		uintptr_t at = (uintptr_t)s[i].name, base = (uintptr_t)t->names;
		uint32_t off;

		if (at < base || at - base >= t->names_len)
			return false;
		off = (uint32_t)(at - base);
		column_put(w, &off, 4);
	}
	for (size_t i = 0; i < nr; i++) {
		uint8_t kind = (uint8_t)(s[i].binding << 4 | (s[i].type & 0xf));

		column_put(w, &kind, 1);
	}
	column_put(w, zeros, columns_bytes(nr) - nr * COLUMNS_PER_SYMBOL);
	for (size_t done = 0; done < t->names_len;) {
		size_t n = t->names_len - done < sizeof(w->buf) ? t->names_len - done :
								   sizeof(w->buf);

		column_put(w, t->names + done, n);
		done += n;
	}
	column_flush(w);
	return !w->failed;
}

/* A boot id's 36 characters (hex digits and dashes) at p. */
static bool boot_id_at(const char *p)
{
	for (int i = 0; i < 36; i++)
		if (!p[i] || !strchr("0123456789abcdef-", p[i]))
			return false;
	return true;
}

/* Whether name is one kallsyms_disk_keep writes: a boot's file
 * ("kallsyms.BOOT_ID"), or a temporary one (".kallsyms.BOOT_ID.PID"). */
static bool our_name(const char *name, bool *temp)
{
	const size_t prefix = sizeof(FILE_PREFIX) - 1;

	*temp = name[0] == '.';
	name += *temp;
	if (strncmp(name, FILE_PREFIX, prefix) || !boot_id_at(name + prefix))
		return false;
	name += prefix + 36;
	if (!*temp)
		return !*name;
	return *name == '.' && name[1] && strspn(name + 1, "0123456789") == strlen(name + 1);
}

/* Removes the files of other boots (their tables answer for no kernel now)
 * and the temporary files a killed report left (a minute old: one still
 * being written is left alone): only names kallsyms_disk_keep writes, of
 * regular files of this user's alone; the first DIR_SCAN_MAX entries. */
static void remove_others(int dir, const char *keep)
{
	int fd = dup(dir);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	struct stat st;
	int seen = 0;
	bool temp;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	rewinddir(d);
	while ((e = readdir(d)) && seen++ < DIR_SCAN_MAX)
		if (our_name(e->d_name, &temp) && strcmp(e->d_name, keep) &&
		    !fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode) &&
		    private_dir_ours_alone(&st) &&
		    (!temp || time(NULL) - st.st_mtime >= TEMP_GRACE_SECONDS))
			unlinkat(dir, e->d_name, 0);
	closedir(d);
}

void kallsyms_disk_keep(const char *modules_key, const struct symtab *t)
{
	char boot[40], name[sizeof(FILE_PREFIX) + 40], temp[sizeof(name) + 32];
	struct disk_header h = { .magic = DISK_MAGIC, .version = DISK_VERSION };
	struct column_writer *w = NULL;
	int dir = disk_dir(), fd = -1;
	bool ok = false;

	if (dir < 0 || t->on_disk || t->cached || !t->nr ||
	    t->nr > KALLSYMS_DISK_MAX_BYTES / COLUMNS_PER_SYMBOL || !t->names_len ||
	    columns_bytes(t->nr) + t->names_len > KALLSYMS_DISK_MAX_BYTES || !boot_id(boot))
		return;
	snprintf(name, sizeof(name), FILE_PREFIX "%s", boot);
	snprintf(temp, sizeof(temp), ".%s.%d", name, (int)getpid());
	snprintf(h.boot_id, sizeof(h.boot_id), "%s", boot);
	snprintf(h.modules, sizeof(h.modules), "%s", modules_key);
	h.nr = t->nr;
	h.names_len = t->names_len;
	h.kernel_end = t->kernel_end;
	h.steady_start = t->steady_start;
	h.steady_end = t->steady_end;
	fd = openat(dir, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	w = fd >= 0 ? calloc(1, sizeof(*w)) : NULL;
	if (w && (w->hash = XXH3_createState()) && XXH3_64bits_reset_withSeed(w->hash, h.nr) == XXH_OK &&
	    lseek(fd, sizeof(h), SEEK_SET) == (off_t)sizeof(h)) {
		w->fd = fd;
		if (write_body(w, t)) {
			h.checksum = XXH3_64bits_digest(w->hash);
			ok = pwrite(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
			     !renameat(dir, temp, dir, name);
		}
	}
	if (fd >= 0) {
		close(fd);
		if (!ok)
			unlinkat(dir, temp, 0);
	}
	remove_others(dir, name);
	if (w)
		XXH3_freeState(w->hash);
	free(w);
}
