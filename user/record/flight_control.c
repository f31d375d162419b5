/* SPDX-License-Identifier: GPL-2.0-only */
/* flight_control.c: how a flight recording is found, watched and asked for
 * snapshots: its pid and counts files, and the proof that a process is that
 * recording. */
#include "record/flight_control.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "lib/log.h"
#include "lib/monotonic.h"
#include "sys/dir_entries.h"
#include "sys/output_dir.h"
#include "sys/proc_stat.h"

int flight_control_write_pid(int dirfd, const char *dirpath, char *err, size_t errlen)
{
	char text[32];
	int fd = output_file_create(dirfd, dirpath, OUTPUT_PID_FILE, err, errlen);
	int len = snprintf(text, sizeof(text), "%d\n", (int)getpid());
	bool ok;

	if (fd < 0)
		return fd;
	ok = write(fd, text, (size_t)len) == len;
	if (close(fd) || !ok) {
		rt_format(err, errlen, "cannot write %s/%s", dirpath, OUTPUT_PID_FILE);
		return errno ? -errno : -EIO;
	}
	return 0;
}

void flight_control_remove_pid(int dirfd)
{
	unlinkat(dirfd, OUTPUT_PID_FILE, 0);
	unlinkat(dirfd, OUTPUT_COUNTS_FILE, 0);
	unlinkat(dirfd, OUTPUT_COUNTS_NEW_FILE, 0);
}

/* DIR/counts: this line, then a "name value" line for each count, each
 * value 20 digits (the file is the same length at every write), then
 * "xxh64 HASH" of all the text before it: the file is written over in place,
 * so a read that met a write half done (the writer preempted within it) is
 * told by its hash. */
#define COUNTS_HEADER "# ringtrace flight recording: counts since the start, rewritten each second\n"
#define COUNTS_HASH "xxh64 "

int flight_control_write_counts(int dirfd, int *fd, const struct flight_counts *c)
{
	char text[256];
	int len = snprintf(text, sizeof(text),
			   COUNTS_HEADER "produced %020" PRIu64 "\nlost %020" PRIu64
			   "\nsideband_lost %020" PRIu64 "\n",
			   c->produced, c->lost, c->sideband_lost);
	char err[256];

	len += snprintf(text + len, sizeof(text) - (size_t)len, COUNTS_HASH "%016" PRIx64 "\n",
			(uint64_t)XXH64(text, (size_t)len, 0));

	/* made once, then written over in place: a file made and renamed over
	 * the last one each second cost a new inode, a journal commit and (as
	 * ext4 flushes a file renamed over another) a disk write each second */
	if (*fd < 0) {
		unlinkat(dirfd, OUTPUT_COUNTS_NEW_FILE, 0);
		unlinkat(dirfd, OUTPUT_COUNTS_FILE, 0);
		*fd = output_file_create(dirfd, ".", OUTPUT_COUNTS_FILE, err, sizeof(err));
		if (*fd < 0)
			return *fd;
	}
	if (pwrite(*fd, text, (size_t)len, 0) != len)
		return errno ? -errno : -EIO;
	return 0;
}

/* A small file of a directory a user may control, read without following a
 * link or blocking on a FIFO: 0 with its owner, or -errno (errno set too). */
static int read_small_file(int dirfd, const char *name, char *buf, size_t cap, uid_t *owner)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -EINVAL;
	}
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	*owner = st.st_uid;
	return 0;
}

/* Whether text ends in the "xxh64 HASH" line of all that comes before it;
 * the line is then cut off. */
static bool counts_hash_holds(char *text)
{
	char *line = strstr(text, "\n" COUNTS_HASH), *end;
	uint64_t want;

	if (!line)
		return false;
	line++;
	errno = 0;
	want = strtoull(line + strlen(COUNTS_HASH), &end, 16);
	if (errno || end != line + strlen(COUNTS_HASH) + 16 || strcmp(end, "\n") ||
	    XXH64(text, (size_t)(line - text), 0) != want)
		return false;
	*line = '\0';
	return true;
}

/* DIR/counts, written over in place as it is read: read again (up to 10 ms)
 * while its hash says a write was half done. */
static int read_counts_file(int dirfd, char *buf, size_t cap, uid_t *owner)
{
	for (int tries = 0; tries < 50; tries++) {
		int r = read_small_file(dirfd, OUTPUT_COUNTS_FILE, buf, cap, owner);

		if (r)
			return r;
		if (counts_hash_holds(buf))
			return 0;
		usleep(200);
	}
	return -EAGAIN;
}

int flight_counts_read(const char *dir, struct flight_counts *c)
{
	static const struct {
		const char *name;
		size_t offset;
	} fields[] = {
		{ "produced", offsetof(struct flight_counts, produced) },
		{ "lost", offsetof(struct flight_counts, lost) },
		{ "sideband_lost", offsetof(struct flight_counts, sideband_lost) },
	};
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), r;
	unsigned int found = 0;
	char text[512], *line, *save = NULL;
	uid_t owner;

	if (dirfd < 0)
		return -errno;
	r = read_counts_file(dirfd, text, sizeof(text), &owner);
	close(dirfd);
	if (r)
		return r;
	/* only what this user (or root) wrote is believed */
	if (owner != geteuid() && owner != 0)
		return -EPERM;
	*c = (struct flight_counts){ 0 };
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
			size_t n = strlen(fields[i].name);
			char *end;

			if (strncmp(line, fields[i].name, n) || line[n] != ' ')
				continue;
			errno = 0;
			*(uint64_t *)((char *)c + fields[i].offset) = strtoull(line + n + 1, &end, 10);
			if (!errno && end != line + n + 1 && !*end)
				found |= 1u << i;
		}
	}
	return found == (1u << (sizeof(fields) / sizeof(fields[0]))) - 1 ? 0 : -EINVAL;
}

/* The pid DIR/ringtrace.pid names, and the file's owner. */
static int read_pid_file(int dirfd, const char *dir, pid_t *pid, uid_t *owner, char *err,
			 size_t errlen)
{
	char text[32], *end;
	long v;

	if (read_small_file(dirfd, OUTPUT_PID_FILE, text, sizeof(text), owner)) {
		rt_format(err, errlen, "%s is not a flight recording in progress (%s/%s: %s): snapshot asks record --overwrite for one",
			  dir, dir, OUTPUT_PID_FILE,
			  errno == EINVAL || errno == ELOOP ? "not a regular file" : strerror(errno));
		return -errno;
	}
	v = strtol(text, &end, 10);
	if (v <= 0 || v > INT_MAX || end == text || (*end && *end != '\n')) {
		rt_format(err, errlen, "%s/%s does not hold a pid", dir, OUTPUT_PID_FILE);
		return -EINVAL;
	}
	*pid = (pid_t)v;
	return 0;
}

/* Whether process pid is named ringtrace, and its owner. */
static bool is_ringtrace(pid_t pid, uid_t *owner)
{
	char path[64], comm[32];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (read_small_file(fd, "comm", comm, sizeof(comm), owner)) {
		close(fd);
		return false;
	}
	close(fd);
	return !strcmp(comm, "ringtrace\n");
}

/* The entries of /proc/PID/fd, the kernel's: dir_each_entry of it. */
static int each_open_file(pid_t pid, int (*fn)(int dirfd, const char *name, void *ctx),
			  void *ctx)
{
	char path[64];
	int fd, r;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = dir_each_entry(fd, fn, ctx);
	close(fd);
	return r;
}

/* A directory looked for among a process's open files. */
struct held_dir {
	struct stat want;
	int fd; /* the descriptor it is open as, once found */
};

static int is_held_dir(int dirfd, const char *name, void *ctx)
{
	struct held_dir *h = ctx;
	struct stat st;

	if (fstatat(dirfd, name, &st, 0) || !S_ISDIR(st.st_mode) || st.st_dev != h->want.st_dev ||
	    st.st_ino != h->want.st_ino)
		return 0;
	h->fd = atoi(name);
	return 1;
}

/* Whether process pid holds open the directory dirfd is on. -errno if its
 * descriptors cannot be read (not the caller's, and not root). */
static int holds_dir(pid_t pid, int dir_fd, int *held_fd)
{
	struct held_dir h = { .fd = -1 };
	int r;

	if (fstat(dir_fd, &h.want))
		return -errno;
	r = each_open_file(pid, is_held_dir, &h);
	if (r < 0)
		return r;
	if (r && held_fd)
		*held_fd = h.fd;
	return r > 0;
}

/* The checks both ways of naming a target share; t->dirfd and t->pid set. */
static int prove(struct flight_target *t, uid_t file_owner, char *err, size_t errlen)
{
	uid_t owner;
	int held;

	if (!is_ringtrace(t->pid, &owner)) {
		rt_format(err, errlen, "process %d is not a running ringtrace recording", (int)t->pid);
		return -ESRCH;
	}
	if (owner != getuid() && owner != 0) {
		rt_format(err, errlen, "ringtrace %d belongs to another user (uid %u): snapshot asks only recordings of yours or root's",
			  (int)t->pid, (unsigned int)owner);
		return -EPERM;
	}
	if (file_owner != owner) {
		rt_format(err, errlen, "%s/%s is not ringtrace %d's (its owner is uid %u)", t->dir,
			  OUTPUT_PID_FILE, (int)t->pid, (unsigned int)file_owner);
		return -EPERM;
	}
	held = holds_dir(t->pid, t->dirfd, NULL);
	if (held < 0) {
		rt_format(err, errlen, "cannot tell whether ringtrace %d records into %s: %s (run as its owner or root)",
			  (int)t->pid, t->dir, strerror(-held));
		return held;
	}
	if (!held) {
		rt_format(err, errlen, "ringtrace %d does not record into %s: %s/%s is stale", (int)t->pid,
			  t->dir, t->dir, OUTPUT_PID_FILE);
		return -ESTALE;
	}
	return 0;
}

int flight_target_from_dir(struct flight_target *t, const char *dir, char *err, size_t errlen)
{
	uid_t file_owner;
	int r;

	t->pid = 0;
	t->child = false;
	snprintf(t->dir, sizeof(t->dir), "%s", dir);
	t->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (t->dirfd < 0) {
		rt_format(err, errlen, "cannot open %s: %s", dir,
			  errno == ELOOP || errno == ENOTDIR ? "not a real directory" : strerror(errno));
		return -errno;
	}
	if ((r = read_pid_file(t->dirfd, dir, &t->pid, &file_owner, err, errlen)) ||
	    (r = prove(t, file_owner, err, errlen))) {
		flight_target_close(t);
		return r;
	}
	return 0;
}

/* The directory looked for among a recording's open files: the one whose
 * pid file names the recording. */
struct recording_dir {
	struct flight_target *t;
	uid_t file_owner;
};

static int is_recording_dir(int dirfd, const char *name, void *ctx)
{
	struct recording_dir *r = ctx;
	char link[PATH_MAX], pid_text[64];
	ssize_t n;
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (read_small_file(fd, OUTPUT_PID_FILE, pid_text, sizeof(pid_text), &r->file_owner) ||
	    (pid_t)atoi(pid_text) != r->t->pid) {
		close(fd);
		return 0;
	}
	n = readlinkat(dirfd, name, link, sizeof(link) - 1);
	link[n > 0 ? n : 0] = '\0';
	r->t->dirfd = fd;
	snprintf(r->t->dir, sizeof(r->t->dir), "%s", link);
	return 1;
}

/* The directory among those process pid holds open whose pid file names it. */
int flight_target_from_pid(struct flight_target *t, pid_t pid, char *err, size_t errlen)
{
	struct recording_dir r = { t, 0 };
	uid_t owner;
	int found, ret;

	t->pid = pid;
	t->child = false;
	t->dirfd = -1;
	t->dir[0] = '\0';
	if (!is_ringtrace(pid, &owner)) {
		rt_format(err, errlen, "process %d is not a running ringtrace recording", (int)pid);
		return -ESRCH;
	}
	found = each_open_file(pid, is_recording_dir, &r);
	if (found < 0) {
		rt_format(err, errlen, "cannot read ringtrace %d's open files: %s (run as its owner or root)",
			  (int)pid, strerror(-found));
		return found;
	}
	if (!found) {
		rt_format(err, errlen, "ringtrace %d is not a flight recording (record --overwrite): it writes no %s",
			  (int)pid, OUTPUT_PID_FILE);
		return -ENOENT;
	}
	if ((ret = prove(t, r.file_owner, err, errlen))) {
		flight_target_close(t);
		return ret;
	}
	return 0;
}

/* Whether pid is a live child of this process. */
static bool is_own_child(pid_t pid)
{
	struct proc_stat st;

	return !proc_stat_read((uint32_t)pid, &st) && st.ppid == (uint32_t)getpid() &&
	       st.state != 'Z' && st.state != 'X';
}

int flight_target_of_child(struct flight_target *t, const char *dir, pid_t pid, char *err,
			   size_t errlen)
{
	uid_t file_owner, owner;
	pid_t named;
	int r;

	t->pid = pid;
	t->child = true;
	snprintf(t->dir, sizeof(t->dir), "%s", dir);
	t->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (t->dirfd < 0) {
		rt_format(err, errlen, "cannot open %s: %s", dir, strerror(errno));
		return -errno;
	}
	if ((r = read_pid_file(t->dirfd, dir, &named, &file_owner, err, errlen))) {
		flight_target_close(t);
		return r;
	}
	if (named != pid || !is_ringtrace(pid, &owner) || !is_own_child(pid)) {
		rt_format(err, errlen, "ringtrace %d, this process's child, does not record into %s yet",
			  (int)pid, dir);
		flight_target_close(t);
		return -ESRCH;
	}
	return 0;
}

bool flight_target_alive(const struct flight_target *t)
{
	uid_t owner;

	if (t->child)
		return is_ringtrace(t->pid, &owner) && is_own_child(t->pid);
	return is_ringtrace(t->pid, &owner) && holds_dir(t->pid, t->dirfd, NULL) == 1;
}

/* The complete snapshots of a directory (snapshot-NNN with its accounting
 * written): how many, and the newest by number. */
struct snapshot_scan {
	int count;
	unsigned long newest;
	char name[64];
};

static int scan_snapshot(int dirfd, const char *name, void *ctx)
{
	struct snapshot_scan *s = ctx;
	unsigned long number;
	char path[300], *end;
	struct stat st;

	if (strncmp(name, "snapshot-", 9) || strlen(name) >= sizeof(s->name))
		return 0;
	snprintf(path, sizeof(path), "%s/accounting", name);
	if (fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW))
		return 0;
	s->count++;
	number = strtoul(name + 9, &end, 10);
	if (!*end && (!s->name[0] || number >= s->newest)) {
		s->newest = number;
		strcpy(s->name, name);
	}
	return 0;
}

int flight_target_snapshots(const struct flight_target *t)
{
	struct snapshot_scan s = { 0 };
	int r = dir_each_entry(t->dirfd, scan_snapshot, &s);

	return r < 0 ? r : s.count;
}

int flight_target_newest_snapshot(const struct flight_target *t, char *name, size_t len)
{
	struct snapshot_scan s = { 0 };
	int r = dir_each_entry(t->dirfd, scan_snapshot, &s);

	if (r < 0)
		return r;
	if (!s.name[0] || strlen(s.name) >= len)
		return -ENOENT;
	strcpy(name, s.name);
	return 0;
}

int flight_target_take_snapshot(const struct flight_target *t, uint64_t since_ns,
				unsigned int wait_ms, bool (*cancel)(void *ctx), void *ctx,
				char *err, size_t errlen)
{
	union sigval window = { .sival_ptr = (void *)(uintptr_t)since_ns };
	int before = flight_target_snapshots(t);
	uint64_t deadline = monotonic_ns() + (uint64_t)wait_ms * 1000000;
	const struct timespec tick = { 0, 20 * 1000 * 1000 };

	if (before < 0) {
		rt_format(err, errlen, "cannot list %s: %s", t->dir, strerror(-before));
		return before;
	}
	if (since_ns ? sigqueue(t->pid, SIGUSR2, window) : kill(t->pid, SIGUSR2)) {
		rt_format(err, errlen, "cannot signal ringtrace %d: %s", (int)t->pid, strerror(errno));
		return -errno;
	}
	while (wait_ms && flight_target_snapshots(t) <= before) {
		if (cancel && cancel(ctx)) {
			rt_format(err, errlen, "stopped waiting for the snapshot of ringtrace %d", (int)t->pid);
			return -ECANCELED;
		}
		if (!flight_target_alive(t)) {
			rt_format(err, errlen, "ringtrace %d ended before writing the snapshot", (int)t->pid);
			return -ESRCH;
		}
		if (monotonic_ns() >= deadline) {
			rt_format(err, errlen, "no new snapshot in %s after %u s (is --max-snapshots reached?)",
				  t->dir, wait_ms / 1000);
			return -ETIMEDOUT;
		}
		nanosleep(&tick, NULL);
	}
	return 0;
}

void flight_target_close(struct flight_target *t)
{
	if (t->dirfd >= 0)
		close(t->dirfd);
	t->dirfd = -1;
}
