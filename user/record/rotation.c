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
#include "sys/output_dir.h"

/* Two switches in one hundredth of a second would take one name: the second
 * waits for the next (at most this many times). */
#define NAME_RETRIES 300

/* DIR/totals of an output: its own counts, per CPU. */
static void write_totals(struct session *s, int dirfd, const char *name,
			 const struct file_sink_output_cpu *cpus, unsigned int nr)
{
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
		s->rotation.outputs + 1);
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
	if (fclose(f))
		rt_warn("cannot write %s/%s", name, OUTPUT_TOTALS_FILE);
	if (!s->opts->quiet)
		rt_info("ringtrace: output %s: %" PRIu64 " samples, %" PRIu64 " lost, %.1f KiB", name,
			samples, lost + unwritten, (double)bytes / 1024.0);
}

/* DIR becomes DIR.TIMESTAMP (perf's name), never over another. */
static int name_output(const char *path, char *name, size_t len, char *err, size_t errlen)
{
	for (int tries = 0;; tries++) {
		struct timespec now;
		int r;

		clock_gettime(CLOCK_REALTIME, &now);
		if ((r = switch_output_name(name, len, path, &now))) {
			rt_format(err, errlen, "cannot name an output of %s: %s", path, strerror(-r));
			return r;
		}
		if (!renameat2(AT_FDCWD, path, AT_FDCWD, name, RENAME_NOREPLACE))
			return 0;
		if (errno != EEXIST || tries >= NAME_RETRIES) {
			rt_format(err, errlen, "cannot rename %s to %s: %s", path, name,
				  strerror(errno));
			return -errno;
		}
		usleep(10000 - (useconds_t)(now.tv_nsec / 1000 % 10000));
	}
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
	if (*slot && (e = output_recording_remove(AT_FDCWD, *slot)))
		rt_warn("cannot remove %s (--switch-max-files %u): %s", *slot, n, strerror(-e));
	free(*slot);
	*slot = strdup(name);
}

/* The next output: DIR again, 0700, locked as the first one, with its header. */
static int make_output(struct session *s, char *err, size_t errlen)
{
	const char *path = s->opts->output;
	int fd, r;

	if (mkdir(path, 0700)) {
		rt_format(err, errlen, "cannot create %s: %s", path, strerror(errno));
		return -errno;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB)) {
		rt_format(err, errlen, "cannot open %s: %s", path, strerror(errno));
		r = -errno;
		if (fd >= 0)
			close(fd);
		return r;
	}
	if ((r = session_write_header(s, fd, path, err, errlen))) {
		close(fd);
		return r;
	}
	return fd;
}

static int switch_output(void *ctx, const struct file_sink_output_cpu *cpus, unsigned int nr,
			 bool at_exit, char *err, size_t errlen)
{
	struct session *s = ctx;
	struct rotation *r = &s->rotation;
	char name[PATH_MAX];
	int ret;

	ret = name_output(s->opts->output, name, sizeof(name), err, errlen);
	if (!ret)
		write_totals(s, r->fd >= 0 ? r->fd : s->out.fd, name, cpus, nr);
	r->outputs++;
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	if (!ret)
		keep_newest(s, name);
	if (ret || at_exit)
		return ret;
	return r->fd = make_output(s, err, errlen);
}

/* Whether this process, once it has dropped its capabilities (a root one
 * keeps its uid, not CAP_DAC_OVERRIDE), may rename and make entries in the
 * directory that holds path: a switch does both. */
static bool parent_writable_without_caps(const char *path)
{
	char parent[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (!slash)
		snprintf(parent, sizeof(parent), ".");
	else
		snprintf(parent, sizeof(parent), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	if (stat(parent, &st))
		return false;
	if (st.st_uid == geteuid())
		return (st.st_mode & (S_IWUSR | S_IXUSR)) == (S_IWUSR | S_IXUSR);
	if (st.st_gid == getegid())
		return (st.st_mode & (S_IWGRP | S_IXGRP)) == (S_IWGRP | S_IXGRP);
	return (st.st_mode & (S_IWOTH | S_IXOTH)) == (S_IWOTH | S_IXOTH);
}

int rotation_init(struct session *s)
{
	struct rotation *r = &s->rotation;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->on = s->opts->switch_output.mode != SWITCH_OUTPUT_NONE;
	r->ops = (struct file_sink_rotation){ switch_output, s };
	if (r->on && !s->opts->keep_caps && !parent_writable_without_caps(s->opts->output)) {
		rt_format(s->error, sizeof(s->error),
			  "--switch-output renames %s in its directory, which ringtrace cannot write "
			  "once it has dropped its capabilities: record into a directory its user "
			  "owns, or add --keep-caps", s->opts->output);
		return -EACCES;
	}
	if (r->on && s->opts->switch_max_files &&
	    !(r->kept = calloc(s->opts->switch_max_files, sizeof(*r->kept)))) {
		rt_format(s->error, sizeof(s->error), "out of memory");
		return -ENOMEM;
	}
	return 0;
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
