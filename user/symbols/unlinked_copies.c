/* SPDX-License-Identifier: GPL-2.0-only */
/* unlinked_copies.c: mapped files held open by device and inode, copied into
 * the recording under their build-id once no name links them any more. */
#include "symbols/unlinked_copies.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/build_id.h"
#include "symbols/build_id_cache.h"
#include "symbols/elf_name_ranges.h"
#include "sys/safe_open.h"

/* Names remembered as copied at most: past it, forgotten all at once (a
 * second copy of one is refused where the first is, costing nothing). */
#define COPIED_MAX 65536

struct held_file {
	uint64_t file[3]; /* major, minor, inode: the key */
	int fd;
	int wd;           /* its inotify watch, or -1: stat'ed at every check */
	uint64_t used;    /* the clock of its last mapping */
	uint8_t id_size;
	uint8_t id[BUILD_ID_MAX];
};

struct copied_name {
	char name[96];
};

static uint64_t hash_file(const void *k)
{
	return hash_bytes(k, 3 * sizeof(uint64_t), 0);
}

static bool equal_file(const void *a, const void *b)
{
	return !memcmp(a, b, 3 * sizeof(uint64_t));
}

void unlinked_copies_init(struct unlinked_copies *u, int dirfd, struct file_copies *copies)
{
	memset(u, 0, sizeof(*u));
	u->dirfd = dirfd;
	u->copies = copies;
	hash_map_init(&u->held, hash_file, equal_file);
	hash_map_init(&u->copied, hash_string, equal_string);
	hash_map_init(&u->watched, hash_u32_key, equal_u32_key);
	u->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	u->max_held = (uint32_t)file_copies_held_max(UNLINKED_HELD_MAX);
}

/* Whether a copy named by its build-id may stand for every binary carrying
 * it: a file root owns and no one else may write (build_id_cache's rule). */
static bool trusted(const struct stat *st)
{
	return st->st_uid == 0 && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* Makes each directory of path (DIR-relative) but its last part, 0700. */
static void make_parents(int dirfd, const char *path)
{
	char dir[96];

	for (const char *slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
		mkdirat(dirfd, dir, 0700);
	}
}

/* Whether name is new among the copies (then remembered). */
static bool first_copy(struct unlinked_copies *u, const char *name)
{
	struct copied_name *c;

	if (hash_map_get(&u->copied, name))
		return false;
	if (u->copied.len >= COPIED_MAX)
		hash_map_free_all(&u->copied);
	c = calloc(1, sizeof(*c));
	if (!c)
		return false;
	snprintf(c->name, sizeof(c->name), "%s", name);
	if (hash_map_put(&u->copied, c->name, c)) {
		free(c);
		return false;
	}
	return true;
}

void unlinked_copies_keep_within(struct unlinked_copies *u, struct file_copies *copies,
				 uint64_t bytes)
{
	if (copies)
		u->copies = copies;
	u->kept_budget = bytes;
}

/* The oldest copy kept removed, its name free to be copied again. */
static void remove_oldest(struct unlinked_copies *u)
{
	struct kept_copy *k = &u->kept[u->kept_head];

	free(hash_map_remove(&u->copied, k->name));
	if (!file_copies_remove(u->copies, k->name, k->bytes)) {
		u->totals.removed++;
		u->totals.removed_bytes += k->bytes;
	}
	u->kept_bytes -= k->bytes;
	u->kept_head = (u->kept_head + 1) % UNLINKED_KEPT_MAX;
	u->nr_kept--;
}

/* Room for a copy of bytes among those kept (the oldest removed for it):
 * true, or false if it cannot have any. */
static bool keep_room(struct unlinked_copies *u, uint64_t bytes)
{
	if (!u->kept_budget)
		return true;
	if (bytes > u->kept_budget)
		return false;
	if (!u->kept && !(u->kept = calloc(UNLINKED_KEPT_MAX, sizeof(*u->kept))))
		return false;
	while (u->nr_kept && (u->nr_kept == UNLINKED_KEPT_MAX || u->kept_bytes + bytes > u->kept_budget))
		remove_oldest(u);
	return true;
}

static void keep(struct unlinked_copies *u, const char *name, uint64_t bytes)
{
	struct kept_copy *k;

	if (!u->kept_budget)
		return;
	k = &u->kept[(u->kept_head + u->nr_kept++) % UNLINKED_KEPT_MAX];
	snprintf(k->name, sizeof(k->name), "%s", name);
	k->bytes = bytes;
	u->kept_bytes += bytes;
}

/* f, unlinked (st: its fstat), copied under its build-id where none is. */
static void copy_unlinked(struct unlinked_copies *u, struct held_file *f, const struct stat *st)
{
	struct file_range ranges[ELF_NAME_RANGES_MAX];
	char id[48], name[96];
	uint64_t bytes;
	int fd, nr;

	if (!trusted(st)) {
		u->totals.not_trusted++;
		return;
	}
	build_id_path(id, sizeof(id), NULL, f->id, f->id_size, "");
	snprintf(name, sizeof(name), "%s/%s", BUILD_ID_CACHE_DIR, id);
	if (hash_map_get(&u->copied, name))
		return;
	/* what its names need alone, the rest a hole (a 4.7 MB program's
	 * copy is then its symbols' 0.3 MB) */
	nr = elf_name_ranges(f->fd, (uint64_t)st->st_size, ranges, ELF_NAME_RANGES_MAX);
	if (nr <= 0) {
		u->totals.not_elf++;
		return;
	}
	bytes = file_ranges_bytes(ranges, (size_t)nr);
	if (st->st_size > UNLINKED_MAX_FILE || !keep_room(u, bytes)) {
		u->totals.too_large++;
		file_copies_refused(u->copies, true);
		return;
	}
	if (!first_copy(u, name))
		return;
	/* one there already (a container's, kept by build_id_cache): the same
	 * bytes, and never removed as if it were ours */
	if (!faccessat(u->dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW))
		return;
	make_parents(u->dirfd, name);
	fd = fcntl(f->fd, F_DUPFD_CLOEXEC, 0);
	/* (never over a copy there: one made of a container's, the same bytes) */
	if (fd >= 0 && !file_copies_submit_first(u->copies, fd, name, &ranges[0].from, (size_t)nr)) {
		u->totals.copied++;
		keep(u, name, bytes);
	}
}

/* A watch on f's inode for a change of its link count (through the
 * descriptor held: the inode mapped, whatever its path is now); else f is
 * stat'ed at every check. */
static void watch(struct unlinked_copies *u, struct held_file *f)
{
	char path[32];

	f->wd = -1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", f->fd);
	if (u->inotify_fd >= 0)
		f->wd = inotify_add_watch(u->inotify_fd, path, IN_ATTRIB);
	if (f->wd >= 0 && hash_map_put(&u->watched, &f->wd, f)) {
		inotify_rm_watch(u->inotify_fd, f->wd);
		f->wd = -1;
	}
	u->unwatched += f->wd < 0;
}

/* f let go: copied first if unlinked. */
static void let_go(struct unlinked_copies *u, struct held_file *f, bool check)
{
	struct stat st;

	if (f->wd >= 0) {
		hash_map_remove(&u->watched, &f->wd);
		inotify_rm_watch(u->inotify_fd, f->wd);
	} else {
		u->unwatched--;
	}
	if (check && !fstat(f->fd, &st)) {
		if (st.st_nlink)
			u->totals.let_go++;
		else if (u->met && !u->met(u->met_ctx, f->file[0], f->file[1], f->file[2]))
			u->totals.not_met++;
		else
			copy_unlinked(u, f, &st);
	}
	hash_map_remove(&u->held, f->file);
	close(f->fd);
	free(f);
}

static void older(void *value, void *ctx)
{
	struct held_file *f = value, **oldest = ctx;

	if (!*oldest || f->used < (*oldest)->used)
		*oldest = f;
}

/* The file held that was mapped least recently. */
static struct held_file *least_recent(const struct unlinked_copies *u)
{
	struct held_file *oldest = NULL;

	hash_map_each(&u->held, older, &oldest);
	return oldest;
}

void unlinked_copies_only_met(struct unlinked_copies *u, unlinked_met_fn met, void *ctx)
{
	u->met = met;
	u->met_ctx = ctx;
}

/* A large file mapped that no walk met yet: where it was mapped, to open
 * it again by that mapping once one does. */
struct pending_hold {
	uint64_t file[3];
	uint32_t pid;
	uint64_t start, end;
	uint8_t id_size;
	uint8_t id[BUILD_ID_MAX];
	char *path;
};

static void pending_remove(struct unlinked_copies *u, uint32_t i)
{
	free(u->pending[i].path);
	memmove(&u->pending[i], &u->pending[i + 1],
		(u->nr_pending - i - 1) * sizeof(*u->pending));
	u->nr_pending--;
}

/* m remembered (its newest mapping), the oldest forgotten for room. */
static void pending_add(struct unlinked_copies *u, const struct perf_mmap *m)
{
	struct pending_hold *p;
	char *path;
	uint32_t i;

	for (i = 0; i < u->nr_pending; i++)
		if (u->pending[i].file[0] == m->maj && u->pending[i].file[1] == m->min &&
		    u->pending[i].file[2] == m->ino)
			break;
	if (i == u->nr_pending) {
		if (!u->pending && !(u->pending = calloc(UNLINKED_PENDING_MAX, sizeof(*u->pending))))
			return;
		if (!(path = strdup(m->filename)))
			return;
		if (u->nr_pending == UNLINKED_PENDING_MAX) {
			pending_remove(u, 0);
			u->totals.never_held++;
		}
		i = u->nr_pending++;
		u->pending[i] = (struct pending_hold){ .file = { m->maj, m->min, m->ino },
						       .path = path };
	}
	p = &u->pending[i];
	p->pid = m->pid;
	p->start = m->start;
	p->end = m->start + m->len;
	p->id_size = m->build_id_size;
	memcpy(p->id, m->build_id, m->build_id_size);
}

static void hold(struct unlinked_copies *u, const struct perf_mmap *m, int fd, const struct stat *st);

void unlinked_copies_note(struct unlinked_copies *u, const struct perf_mmap *m, int fd)
{
	struct held_file *f;
	uint64_t key[3] = { m->maj, m->min, m->ino };
	struct stat st;

	if (!u->copies || !m->build_id_size)
		return;
	f = hash_map_get(&u->held, key);
	if (f || fd < 0) {
		if (f)
			f->used = ++u->clock;
		return;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return;
	/* asked at the next check, not now: the unwinder may not know the
	 * file yet, and says met of a file it does not know */
	if (u->met && st.st_size > UNLINKED_HOLD_UNMET_BYTES && st.st_nlink) {
		pending_add(u, m);
		return;
	}
	hold(u, m, fd, &st);
}

/* fd, the file m maps (st its fstat), held: a descriptor of its own. */
static void hold(struct unlinked_copies *u, const struct perf_mmap *m, int fd, const struct stat *st)
{
	struct held_file *f, probe = { .file = { m->maj, m->min, m->ino } };

	if (u->held.len >= u->max_held) {
		struct held_file *oldest = least_recent(u);

		if (!oldest)
			return;
		let_go(u, oldest, true);
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return;
	*f = probe;
	f->used = ++u->clock;
	f->id_size = m->build_id_size;
	memcpy(f->id, m->build_id, m->build_id_size);
	f->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (f->fd < 0 || hash_map_put(&u->held, f->file, f)) {
		if (f->fd >= 0)
			close(f->fd);
		free(f);
		return;
	}
	watch(u, f);
	u->totals.held++;
	/* unlinked already (a process that outlived its binary): at once */
	if (st->st_nlink == 0)
		let_go(u, f, true);
}

/* The large files a walk met since they were mapped, opened again by their
 * mapping and held, or forgotten when that mapping is gone; the others wait
 * (the oldest forgotten for room by pending_add). */
static void hold_met(struct unlinked_copies *u)
{
	for (uint32_t i = 0; i < u->nr_pending;) {
		struct pending_hold *p = &u->pending[i];
		struct safe_file_id id = { (uint32_t)p->file[0], (uint32_t)p->file[1], p->file[2] };
		struct perf_mmap m = { .pid = p->pid, .start = p->start, .len = p->end - p->start,
				       .maj = (uint32_t)p->file[0], .min = (uint32_t)p->file[1],
				       .ino = p->file[2], .build_id_size = p->id_size };
		struct stat st;
		int fd;

		if (!u->met(u->met_ctx, p->file[0], p->file[1], p->file[2])) {
			i++;
			continue;
		}
		fd = safe_open_mapping(p->pid, p->start, p->end, p->path, &id, &st);
		if (fd >= 0) {
			memcpy(m.build_id, p->id, p->id_size);
			hold(u, &m, fd, &st);
			close(fd);
			u->totals.held_late++;
		} else {
			u->totals.never_held++;
		}
		pending_remove(u, i);
	}
}

/* f let go, and copied, if no name links it any more. */
static void look_at(struct unlinked_copies *u, struct held_file *f)
{
	struct stat st;

	if (!fstat(f->fd, &st) && st.st_nlink == 0)
		let_go(u, f, true);
}

/* The held files whose link count changed, as inotify tells; false if it
 * lost some (its queue overflowed): then every file is looked at. */
static bool read_changes(struct unlinked_copies *u)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool whole = true;
	ssize_t n;

	while ((n = read(u->inotify_fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p + sizeof(struct inotify_event) <= buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			struct held_file *f;

			if (ev->mask & IN_Q_OVERFLOW)
				whole = false;
			else if ((ev->mask & IN_ATTRIB) && (f = hash_map_get(&u->watched, &ev->wd)))
				look_at(u, f);
			p += sizeof(*ev) + ev->len;
		}
	}
	return whole;
}

void unlinked_copies_check(struct unlinked_copies *u)
{
	bool all = u->inotify_fd < 0;
	void **files;
	size_t nr;

	if (u->nr_pending)
		hold_met(u);
	if (!all)
		all = !read_changes(u);
	/* (counted after: hold_met adds to the files held) */
	nr = u->held.len;
	if (!nr || (!all && !u->unwatched) || !(files = hash_map_values(&u->held)))
		return;
	for (size_t i = 0; i < nr; i++) {
		struct held_file *f = files[i];

		if (all || f->wd < 0)
			look_at(u, f);
	}
	free(files);
}

void unlinked_copies_get_totals(const struct unlinked_copies *u, struct unlinked_copies_totals *t)
{
	*t = u->totals;
}

static void close_held(void *value, void *ctx)
{
	struct held_file *f = value;

	(void)ctx;
	close(f->fd);
	free(f);
}

void unlinked_copies_free(struct unlinked_copies *u)
{
	hash_map_each(&u->held, close_held, NULL);
	hash_map_free(&u->held);
	hash_map_free(&u->watched);
	if (u->inotify_fd >= 0)
		close(u->inotify_fd);
	u->inotify_fd = -1;
	hash_map_free_all(&u->copied);
	free(u->kept);
	while (u->nr_pending)
		pending_remove(u, u->nr_pending - 1);
	free(u->pending);
}
