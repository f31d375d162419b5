/* SPDX-License-Identifier: GPL-2.0-only */
/* rotation.c: when a recording switches outputs (--switch-output) or stops
 * (--max-size), and each switch's directory work, done on the writer's thread. */
#include "record/rotation.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/monotonic.h"
#include "record/session.h"
#include "record/switch_output.h"
#include "sys/file_copies.h"
#include "sys/output_dir.h"
#include "sys/output_rename.h"

/* Two switches in one hundredth of a second would take one name: the second
 * waits for the next (at most this many times). */
#define NAME_RETRIES 3

/* DIR/totals of an output: its own counts, per CPU, and the names it found
 * taken. Written into the directory itself (dirfd), whatever it is named. */
static void write_totals(struct session *s, int dirfd, const char *name,
			 const struct file_sink_output_cpu *cpus, unsigned int nr)
{
	struct rotation *r = &s->rotation;
	uint64_t samples = 0, lost = 0, unwritten = 0, bytes = 0;
	char err[512];
	int fd = output_file_create(dirfd, name, OUTPUT_TOTALS_FILE, err, sizeof(err));
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f) {
		if (fd >= 0)
			close(fd);
		rt_warn("%s", fd >= 0 ? "out of memory" : err);
		return;
	}
	fprintf(f, "# output %u of a recording switched with --switch-output: its own counts\n",
		r->outputs + 1);
	fprintf(f, "%6s %12s %12s %12s\n", "cpu", "samples", "lost", "write-lost");
	for (unsigned int i = 0; i < nr; i++) {
		fprintf(f, "%6d %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n", cpus[i].cpu,
			cpus[i].samples, cpus[i].lost, cpus[i].unwritten);
		samples += cpus[i].samples;
		lost += cpus[i].lost;
		unwritten += cpus[i].unwritten;
		bytes += cpus[i].bytes;
	}
	fprintf(f, "%6s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n", "all", samples, lost,
		unwritten);
	fprintf(f, "ringtrace: output %s: %" PRIu64 " samples, %" PRIu64 " lost, %.1f KiB\n", name,
		samples, lost + unwritten, (double)bytes / 1024.0);
	if (r->taken)
		fprintf(f, "ringtrace: output %s: names taken by entries not this recording's, "
			"passed over: %u\n", name, r->taken);
	if (fclose(f))
		rt_warn("cannot write %s/%s", name, OUTPUT_TOTALS_FILE);
	if (!s->opts->quiet)
		rt_info("ringtrace: output %s: %" PRIu64 " samples, %" PRIu64 " lost, %.1f KiB", name,
			samples, lost + unwritten, (double)bytes / 1024.0);
}

/* perf's name for an output switched now, DIR.TIMESTAMP, in r->last: never
 * the last one's (a second switch in one hundredth waits for the next). */
static int perf_name(struct rotation *r, char *err, size_t errlen)
{
	char name[NAME_MAX + 1];

	for (int tries = 0;; tries++) {
		struct timespec now;
		int e;

		clock_gettime(CLOCK_REALTIME, &now);
		if ((e = switch_output_name(name, sizeof(name), r->base, &now))) {
			rt_format(err, errlen, "cannot name an output of %s%s: %s", r->prefix, r->base,
				  strerror(-e));
			return e;
		}
		if (strcmp(name, r->last) || tries >= NAME_RETRIES)
			break;
		usleep(10000 - (useconds_t)(now.tv_nsec / 1000 % 10000));
	}
	memcpy(r->last, name, sizeof(name));
	return 0;
}

/* The current output (dirfd) becomes DIR.TIMESTAMP (perf's name), never
 * over nor through another entry: while a name is taken, the next one
 * (output_rename.h), said in one line and counted. Its name in name: the
 * one it keeps when it cannot be renamed (err set). */
static int name_output(struct session *s, int dirfd, char *name, size_t len, char *err,
		       size_t errlen)
{
	struct rotation *r = &s->rotation;
	unsigned int taken = 0;
	int ret;

	snprintf(name, len, "%s", r->cur);
	if ((ret = perf_name(r, err, errlen)))
		return ret;
	ret = output_rename_unique(r->parentfd, r->prefix, r->cur, dirfd, r->last, name, len,
				   &taken, err, errlen);
	if (ret)
		snprintf(name, len, "%s", r->cur);
	r->taken += taken;
	r->names_taken += taken;
	if (!ret && taken) {
		r->renamed++;
		rt_warn("%s%s is taken, by an entry not this recording's (%u names tried): the output "
			"is named %s%s instead", r->prefix, r->last, taken + 1, r->prefix, name);
	}
	return ret;
}

/* --switch-max-files N: the newest N outputs are kept, as perf keeps them. */
static void keep_newest(struct session *s, const char *name)
{
	struct rotation *r = &s->rotation;
	unsigned int n = s->opts->switch_max_files;
	char **slot;
	int e;

	if (!n)
		return;
	slot = &r->kept[r->next_kept];
	r->next_kept = (r->next_kept + 1) % n;
	if (*slot && (e = output_recording_remove(r->parentfd, *slot)))
		rt_warn("cannot remove %s%s (--switch-max-files %u): %s", r->prefix, *slot, n,
			strerror(-e));
	free(*slot);
	*slot = strdup(name);
}

/* The next output: DIR again (another name if DIR is taken), 0700, locked
 * as the first one, with its header. */
static int make_output(struct session *s, char *err, size_t errlen)
{
	struct rotation *r = &s->rotation;
	char path[PATH_MAX];
	unsigned int taken = 0;
	int fd, ret;

	r->taken = 0;
	fd = output_dir_create_unique(r->parentfd, r->prefix, r->base, r->cur, sizeof(r->cur),
				      &taken, err, errlen);
	r->taken += taken;
	r->names_taken += taken;
	if (fd < 0) {
		r->cur[0] = '\0';
		return fd;
	}
	snprintf(path, sizeof(path), "%s%s", r->prefix, r->cur);
	if (taken)
		rt_warn("%s%s is taken, by an entry not this recording's: the next output is written "
			"in %s until it is named", r->prefix, r->base, path);
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		rt_format(err, errlen, "cannot lock %s: %s", path, strerror(errno));
		ret = -errno;
		close(fd);
		return ret;
	}
	if ((ret = session_write_header(s, fd, path, err, errlen))) {
		close(fd);
		return ret;
	}
	return fd;
}

static int switch_output(void *ctx, const struct file_sink_output_cpu *cpus, unsigned int nr,
			 bool at_exit, char *err, size_t errlen)
{
	struct session *s = ctx;
	struct rotation *r = &s->rotation;
	int dirfd = r->fd >= 0 ? r->fd : s->out.fd;
	char name[NAME_MAX + 1], path[PATH_MAX];
	int ret;

	/* an output to finish (none after a switch that could not make one) */
	if (r->cur[0]) {
		/* what its samples name: the Python processes' maps as now
		 * (at the end, the store has them, after a JIT's own map),
		 * then (once the copies queued before are made) every copy */
		snprintf(path, sizeof(path), "%s%s", r->prefix, r->cur);
		if (!at_exit) {
			python_procs_write_maps(&s->python, dirfd, path);
			hotspot_procs_write_maps(&s->hotspot, dirfd, path);
			v8_procs_write_maps(&s->v8, dirfd, path);
		}
		if (s->copies && (ret = file_copies_link_into(s->copies, dirfd)))
			rt_warn("%s: cannot link the copies of files into it: %s", path,
				strerror(-ret));
		/* named if it can be; its totals written into it whatever its
		 * name (DIR itself the first: the recording it replaced gone
		 * from it first) */
		if (dirfd == s->out.fd)
			output_dir_removal_wait(&s->out);
		ret = name_output(s, dirfd, name, sizeof(name), err, errlen);
		snprintf(path, sizeof(path), "%s%s", r->prefix, name);
		write_totals(s, dirfd, path, cpus, nr);
		if (ret)
			rt_warn("%s: the output keeps the name %s%s", err, r->prefix, name);
		else
			keep_newest(s, name);
		if (!r->outputs)
			snprintf(r->first_done, sizeof(r->first_done), "%s", name);
		snprintf(r->last_done, sizeof(r->last_done), "%s", name);
		r->outputs++;
		r->cur[0] = '\0';
	}
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	if (at_exit)
		return 0;
	return r->fd = make_output(s, err, errlen);
}

/* Whether this process, once it has dropped its capabilities (a root one
 * keeps its uid, not CAP_DAC_OVERRIDE), may rename and make entries in the
 * directory dirfd: a switch does both. */
static bool writable_without_caps(int dirfd)
{
	struct stat st;

	if (fstat(dirfd, &st))
		return false;
	if (st.st_uid == geteuid())
		return (st.st_mode & (S_IWUSR | S_IXUSR)) == (S_IWUSR | S_IXUSR);
	if (st.st_gid == getegid())
		return (st.st_mode & (S_IWGRP | S_IXGRP)) == (S_IWGRP | S_IXGRP);
	return (st.st_mode & (S_IWOTH | S_IXOTH)) == (S_IWOTH | S_IXOTH);
}

/* DIR's directory, held: every output is named and made in it, never by
 * a path looked up again. DIR's path up to its name and its name. */
static int open_parent(struct session *s)
{
	struct rotation *r = &s->rotation;
	const char *path = s->opts->output;
	size_t n = strlen(path);
	const char *slash;
	char *parent;

	while (n > 1 && path[n - 1] == '/')
		n--;
	slash = memrchr(path, '/', n);
	r->prefix = strndup(path, slash ? (size_t)(slash - path) + 1 : 0);
	r->base = strndup(slash ? slash + 1 : path, slash ? n - (size_t)(slash + 1 - path) : n);
	if (!r->prefix || !r->base) {
		rt_format(s->error, sizeof(s->error), "out of memory");
		return -ENOMEM;
	}
	if (!r->base[0] || !strcmp(r->base, ".") || !strcmp(r->base, "..") ||
	    strlen(r->base) >= sizeof(r->cur)) {
		rt_format(s->error, sizeof(s->error), "--switch-output renames %s in its directory: "
			  "give -o a name there (not /, . or ..)", path);
		return -EINVAL;
	}
	parent = r->prefix[0] ? r->prefix : ".";
	r->parentfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->parentfd < 0) {
		rt_format(s->error, sizeof(s->error), "cannot open %s, the directory of %s: %s",
			  parent, path, strerror(errno));
		return -errno;
	}
	snprintf(r->cur, sizeof(r->cur), "%s", r->base);
	return 0;
}

/* The store name of a recording killed before its end (ours, private, and
 * no recording holds its lock): removed, so that stores do not pile up
 * beside DIR at each killed run. */
static void remove_stale_store(struct rotation *r, const char *name)
{
	int fd = openat(r->parentfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return;
	if (!fstat(fd, &st) && st.st_uid == geteuid() && !(st.st_mode & 077) &&
	    !flock(fd, LOCK_EX | LOCK_NB))
		output_recording_remove(r->parentfd, name);
	close(fd);
}

/* .DIR.copies beside DIR (another name if that one is taken), 0700, locked
 * while the recording lives. */
static int make_store(struct session *s)
{
	struct rotation *r = &s->rotation;
	char name[NAME_MAX + 1];
	unsigned int taken = 0;

	if ((size_t)snprintf(name, sizeof(name), ".%s.copies", r->base) >= sizeof(name)) {
		rt_format(s->error, sizeof(s->error), "--switch-output: the name %s is too long",
			  r->base);
		return -ENAMETOOLONG;
	}
	remove_stale_store(r, name);
	r->store_fd = output_dir_create_unique(r->parentfd, r->prefix, name, r->store,
					       sizeof(r->store), &taken, s->error,
					       sizeof(s->error));
	if (r->store_fd < 0) {
		r->store[0] = '\0';
		return r->store_fd;
	}
	flock(r->store_fd, LOCK_EX | LOCK_NB);
	return 0;
}

int rotation_init(struct session *s)
{
	struct rotation *r = &s->rotation;
	int ret;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->parentfd = -1;
	r->store_fd = -1;
	r->on = s->opts->switch_output.mode != SWITCH_OUTPUT_NONE;
	r->ops = (struct file_sink_rotation){ switch_output, s };
	if (!r->on)
		return 0;
	if ((ret = open_parent(s)))
		return ret;
	if (!s->opts->keep_caps && !writable_without_caps(r->parentfd)) {
		rt_format(s->error, sizeof(s->error),
			  "--switch-output renames %s in its directory, which ringtrace cannot write "
			  "once it has dropped its capabilities: record into a directory its user "
			  "owns, or add --keep-caps", s->opts->output);
		return -EACCES;
	}
	if (s->opts->switch_max_files &&
	    !(r->kept = calloc(s->opts->switch_max_files, sizeof(*r->kept)))) {
		rt_format(s->error, sizeof(s->error), "out of memory");
		return -ENOMEM;
	}
	return make_store(s);
}

int rotation_copies_dirfd(const struct session *s)
{
	return s->rotation.on ? s->rotation.store_fd : s->out.fd;
}

void rotation_free(struct session *s)
{
	struct rotation *r = &s->rotation;

	for (unsigned int i = 0; r->kept && i < s->opts->switch_max_files; i++)
		free(r->kept[i]);
	free(r->kept);
	r->kept = NULL;
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	if (r->store_fd >= 0) {
		int e;

		close(r->store_fd);
		if (r->store[0] && (e = output_recording_remove(r->parentfd, r->store)))
			rt_warn("cannot remove %s%s, where the outputs' copies were made: %s",
				r->prefix, r->store, strerror(-e));
	}
	r->store_fd = -1;
	if (r->parentfd >= 0)
		close(r->parentfd);
	r->parentfd = -1;
	free(r->prefix);
	free(r->base);
	r->prefix = r->base = NULL;
}

void rotation_note_signal(struct session *s)
{
	if (s->opts->switch_output.mode == SWITCH_OUTPUT_SIGNAL)
		s->rotation.signalled = true;
}

bool rotation_after_drain(struct session *s)
{
	const struct switch_output_spec *spec = &s->opts->switch_output;
	struct rotation *r = &s->rotation;
	uint64_t bytes, now = 0;
	bool due = false;

	if ((!r->on && !s->opts->max_size) || s->opts->overwrite)
		return false;
	bytes = file_sink_output_bytes(s->sinks[0]);
	if (s->opts->max_size && bytes >= s->opts->max_size) {
		/* as perf's "perf size limit reached" */
		rt_info("ringtrace: the output reached --max-size (%" PRIu64 " KiB): stopping",
			bytes >> 10);
		return true;
	}
	if (spec->mode == SWITCH_OUTPUT_SIGNAL) {
		due = r->signalled;
	} else if (spec->mode == SWITCH_OUTPUT_SIZE) {
		due = bytes >= spec->bytes;
	} else if (spec->mode == SWITCH_OUTPUT_TIME) {
		now = monotonic_ns();
		if (!r->next_ns)
			r->next_ns = now + spec->ns;
		due = now >= r->next_ns;
	}
	/* one switch at a time: a due one waits for the writer to end the last */
	if (due && !file_sink_switch(s->sinks[0])) {
		r->signalled = false;
		if (spec->mode == SWITCH_OUTPUT_TIME)
			r->next_ns = now + spec->ns;
	}
	return false;
}
