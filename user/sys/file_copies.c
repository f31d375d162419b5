/* SPDX-License-Identifier: GPL-2.0-only */
/* file_copies.c: a thread that copies open files (and writes bytes handed
 * over) into the recording's directory, data extent by data extent (holes
 * kept), within a byte budget. */
#include "sys/file_copies.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/dir_link.h"
#include "sys/output_dir.h"

/* Read and written this much at a time; the give-up flag is asked between. */
#define COPY_CHUNK (1u << 20)

struct copy_job {
	struct copy_job *next;
	int in;                 /* the file copied, or -1: */
	uint8_t *data;          /* the bytes written */
	size_t len;
	bool replace;
	bool append;            /* data added at the end of name (made if none) */
	bool remove;            /* name removed, its len bytes given back to the budget */
	bool link;              /* every copy so far linked into the directory in */
	uint64_t *ranges;       /* in's [from, to) pairs copied alone, nr_ranges of them
				   (the rest a hole), or NULL: all its data */
	size_t nr_ranges;
	char name[PATH_MAX];
};

struct file_copies {
	int dirfd;
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct copy_job *head, **tail;
	bool finishing;        /* under lock: copy what is queued, then end */
	bool exited;           /* under lock: the thread has taken its last job */
	atomic_bool give_up;   /* end now, the copy under way abandoned */
	struct file_copies_totals totals; /* under lock */
	struct dir_link_totals links;     /* under lock */
	uint64_t used;         /* the copying thread's own: data bytes written */
	char *chunk;
};

struct file_copies *file_copies_new(int dirfd, uint64_t budget)
{
	struct file_copies *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->dirfd = dirfd;
	c->tail = &c->head;
	c->totals.budget = budget;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->wake, NULL);
	atomic_init(&c->give_up, false);
	return c;
}

static void job_free(struct copy_job *j)
{
	if (j->in >= 0)
		close(j->in);
	free(j->data);
	free(j->ranges);
	free(j);
}

static int submit(struct file_copies *c, int in, void *data, size_t len, const char *name,
		  bool replace, bool append, bool remove)
{
	struct copy_job *j = calloc(1, sizeof(*j));

	if (!j || strlen(name) + 5 > sizeof(j->name)) {
		int e = j ? ENAMETOOLONG : ENOMEM;

		free(j);
		if (in >= 0)
			close(in);
		free(data);
		return -e;
	}
	j->in = in;
	j->data = data;
	j->len = len;
	j->replace = replace;
	j->append = append;
	j->remove = remove;
	snprintf(j->name, sizeof(j->name), "%s", name);
	pthread_mutex_lock(&c->lock);
	*c->tail = j;
	c->tail = &j->next;
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
	return 0;
}

int file_copies_submit(struct file_copies *c, int in, const char *name, bool replace)
{
	return submit(c, in, NULL, 0, name, replace, false, false);
}

int file_copies_submit_bytes(struct file_copies *c, void *data, size_t len, const char *name,
			     bool replace)
{
	return submit(c, -1, data, len, name, replace, false, false);
}

int file_copies_append_bytes(struct file_copies *c, void *data, size_t len, const char *name)
{
	return submit(c, -1, data, len, name, false, true, false);
}

int file_copies_submit_first(struct file_copies *c, int in, const char *name,
			     const uint64_t *ranges, size_t nr_ranges)
{
	uint64_t *kept = NULL;
	struct copy_job *j;

	if (nr_ranges) {
		kept = malloc(nr_ranges * 2 * sizeof(*kept));
		if (!kept) {
			close(in);
			return -ENOMEM;
		}
		memcpy(kept, ranges, nr_ranges * 2 * sizeof(*kept));
	}
	j = calloc(1, sizeof(*j));
	if (!j || strlen(name) + 5 > sizeof(j->name)) {
		int e = j ? ENAMETOOLONG : ENOMEM;

		free(j);
		free(kept);
		close(in);
		return -e;
	}
	j->in = in;
	j->ranges = kept;
	j->nr_ranges = nr_ranges;
	snprintf(j->name, sizeof(j->name), "%s", name);
	pthread_mutex_lock(&c->lock);
	j->next = c->head;
	c->head = j;
	if (!j->next)
		c->tail = &j->next;
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
	return 0;
}


int file_copies_remove(struct file_copies *c, const char *name, uint64_t bytes)
{
	return submit(c, -1, NULL, (size_t)bytes, name, false, false, true);
}

/* The copies made so far linked into the directory to. */
static void link_all(struct file_copies *c, int to)
{
	struct dir_link_totals t = { 0 };

	dir_link_tree(c->dirfd, to, &t);
	pthread_mutex_lock(&c->lock);
	c->links.linked += t.linked;
	c->links.failed += t.failed;
	pthread_mutex_unlock(&c->lock);
}

int file_copies_link_into(struct file_copies *c, int dirfd)
{
	int fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	struct copy_job *j = fd >= 0 ? calloc(1, sizeof(*j)) : NULL;

	if (!j) {
		if (fd >= 0)
			close(fd);
		return fd < 0 ? -errno : -ENOMEM;
	}
	j->in = fd;
	j->link = true;
	/* queued while a thread is there to take it (also while it
	 * finishes: after the copies before it); else done now */
	pthread_mutex_lock(&c->lock);
	if (c->started && !c->exited) {
		*c->tail = j;
		c->tail = &j->next;
		pthread_cond_signal(&c->wake);
		j = NULL;
	}
	pthread_mutex_unlock(&c->lock);
	if (j) {
		link_all(c, dirfd);
		job_free(j);
	}
	return 0;
}

void file_copies_get_links(struct file_copies *c, struct dir_link_totals *t)
{
	pthread_mutex_lock(&c->lock);
	*t = c->links;
	pthread_mutex_unlock(&c->lock);
}

/* j's file removed (a copy made earlier, of len bytes): its bytes back. */
static void remove_one(struct file_copies *c, const struct copy_job *j)
{
	if (unlinkat(c->dirfd, j->name, 0))
		return;
	c->used -= c->used < j->len ? c->used : j->len;
	pthread_mutex_lock(&c->lock);
	c->totals.removed++;
	c->totals.bytes = c->used;
	pthread_mutex_unlock(&c->lock);
}

/* Copies [from, to) of in (or of data, if in is -1) to out at the same
 * offsets. 0, EFBIG past the budget, ECANCELED when given up, or the errno of
 * a failed read or write. */
static int copy_extent(struct file_copies *c, int in, const uint8_t *data, int out, off_t from,
		       off_t to)
{
	while (from < to) {
		size_t want = (size_t)(to - from) < COPY_CHUNK ? (size_t)(to - from) : COPY_CHUNK;
		const uint8_t *src = data ? data + from : (const uint8_t *)c->chunk;
		ssize_t n = (ssize_t)want;

		if (atomic_load_explicit(&c->give_up, memory_order_relaxed))
			return ECANCELED;
		if (c->used + want > c->totals.budget)
			return EFBIG;
		if (!data && (n = pread(in, c->chunk, want, from)) <= 0)
			return n < 0 ? errno : 0; /* shorter than it said: what there is */
		if (pwrite(out, src, (size_t)n, from) != n)
			return errno ? errno : EIO;
		c->used += (uint64_t)n;
		from += n;
	}
	return 0;
}

/* Every data extent of in into out (SEEK_DATA, SEEK_HOLE; the whole file
 * where the file system cannot say), then out's size set to in's. */
static int copy_data(struct file_copies *c, int in, int out, off_t size)
{
	off_t at = 0;
	int err = 0;

	while (!err && at < size) {
		off_t data = lseek(in, at, SEEK_DATA), hole;

		if (data < 0) {
			if (errno == ENXIO)
				break; /* a hole to the end */
			data = at;
			hole = size;
		} else {
			hole = lseek(in, data, SEEK_HOLE);
			if (hole < 0 || hole > size)
				hole = size;
		}
		err = copy_extent(c, in, NULL, out, data, hole);
		at = hole;
	}
	if (!err && ftruncate(out, size))
		err = errno;
	return err;
}

/* j's bytes added at the end of its file (pwrite of a file opened
 * O_APPEND appends, whatever its offset), made there as output_file_append
 * opens it. */
static int append_one(struct file_copies *c, const struct copy_job *j)
{
	char err[256];
	int out = output_file_append(c->dirfd, "", j->name, err, sizeof(err)), e;

	if (out < 0)
		return -out;
	e = copy_extent(c, -1, j->data, out, 0, (off_t)j->len);
	if (close(out) && !e)
		e = errno;
	return e;
}

/* j's ranges of in into out at the same offsets (each cut to size), then
 * out's size set to in's: the rest holes. */
static int copy_ranges(struct file_copies *c, const struct copy_job *j, int out, off_t size)
{
	int err = 0;

	for (size_t i = 0; !err && i < j->nr_ranges; i++) {
		uint64_t from = j->ranges[2 * i], to = j->ranges[2 * i + 1];

		if (from >= (uint64_t)size)
			continue;
		err = copy_extent(c, j->in, NULL, out, (off_t)from,
				  (off_t)(to > (uint64_t)size ? (uint64_t)size : to));
	}
	if (!err && ftruncate(out, size))
		err = errno;
	return err;
}

/* tmp made anew, 0600, never through a link; one a copy given up left (the
 * create finds it) removed first. */
static int create_temporary(int dirfd, const char *tmp)
{
	for (int tries = 0;; tries++) {
		int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

		if (fd >= 0 || errno != EEXIST || tries || unlinkat(dirfd, tmp, 0))
			return fd;
	}
}

static void copy_one(struct file_copies *c, const struct copy_job *j)
{
	char tmp[PATH_MAX + 8];
	uint64_t before = c->used;
	struct stat st = { 0 };
	int out, err;

	if (j->append) {
		st.st_size = (off_t)j->len;
		err = append_one(c, j);
		goto count;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", j->name);
	if (j->in < 0)
		st.st_size = (off_t)j->len;
	else if (fstat(j->in, &st) || !S_ISREG(st.st_mode)) {
		err = EINVAL;
		goto count;
	}
	out = create_temporary(c->dirfd, tmp);
	if (out < 0) {
		err = errno;
		goto count;
	}
	err = j->in < 0	     ? copy_extent(c, -1, j->data, out, 0, st.st_size)
	      : j->ranges ? copy_ranges(c, j, out, st.st_size)
			  : copy_data(c, j->in, out, st.st_size);
	if (close(out) && !err)
		err = errno;
	if (!err && renameat2(c->dirfd, tmp, c->dirfd, j->name, j->replace ? 0 : RENAME_NOREPLACE))
		err = errno;
	if (err) {
		unlinkat(c->dirfd, tmp, 0);
		c->used = before; /* its bytes are gone again */
	}
count:
	pthread_mutex_lock(&c->lock);
	if (!err) {
		c->totals.copied++;
		c->totals.bytes = c->used;
	} else if (err == EFBIG) {
		c->totals.over_budget++;
		c->totals.refused_bytes += (uint64_t)st.st_size;
	} else if (err != EEXIST && err != ECANCELED) {
		c->totals.failed++;
	}
	pthread_mutex_unlock(&c->lock);
}

static void *run(void *arg)
{
	struct file_copies *c = arg;

	for (;;) {
		struct copy_job *j;

		pthread_mutex_lock(&c->lock);
		while (!c->head && !c->finishing && !atomic_load(&c->give_up))
			pthread_cond_wait(&c->wake, &c->lock);
		j = atomic_load(&c->give_up) ? NULL : c->head;
		if (j && !(c->head = j->next))
			c->tail = &c->head;
		if (!j)
			c->exited = true;
		pthread_mutex_unlock(&c->lock);
		if (!j)
			return NULL;
		if (j->remove)
			remove_one(c, j);
		else if (j->link)
			link_all(c, j->in);
		else
			copy_one(c, j);
		job_free(j);
	}
}

size_t file_copies_held_max(size_t want)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 8 < want)
		return (size_t)(rl.rlim_cur / 8);
	return want;
}

int file_copies_start(struct file_copies *c)
{
	int r;

	if (!c || c->started)
		return 0;
	c->chunk = malloc(COPY_CHUNK);
	if (!c->chunk)
		return ENOMEM;
	r = pthread_create(&c->thread, NULL, run, c);
	if (!r)
		pthread_setname_np(c->thread, "rt-copies");
	pthread_mutex_lock(&c->lock);
	c->started = !r;
	pthread_mutex_unlock(&c->lock);
	return r;
}

static void end_thread(struct file_copies *c, bool give_up)
{
	if (!c->started)
		return;
	pthread_mutex_lock(&c->lock);
	c->finishing = true;
	if (give_up)
		atomic_store(&c->give_up, true);
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->thread, NULL);
	pthread_mutex_lock(&c->lock);
	c->started = false;
	pthread_mutex_unlock(&c->lock);
}

void file_copies_finish(struct file_copies *c)
{
	if (c)
		end_thread(c, false);
}

void file_copies_refused(struct file_copies *c, bool too_large)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	if (too_large)
		c->totals.too_large++;
	else
		c->totals.failed++;
	pthread_mutex_unlock(&c->lock);
}

void file_copies_get_totals(struct file_copies *c, struct file_copies_totals *t)
{
	pthread_mutex_lock(&c->lock);
	*t = c->totals;
	pthread_mutex_unlock(&c->lock);
}

void file_copies_free(struct file_copies *c)
{
	if (!c)
		return;
	end_thread(c, true);
	while (c->head) {
		struct copy_job *j = c->head;

		c->head = j->next;
		job_free(j);
	}
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->wake);
	free(c->chunk);
	free(c);
}
