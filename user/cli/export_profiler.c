/* SPDX-License-Identifier: GPL-2.0-only */
/* export_profiler.c: the profiles ringtrace export -g serves: a flight
 * recording of every CPU with -g stacks, run as a child from the start, and
 * each request's profile cut from a snapshot of it (report --pprof of the
 * request's window and filters). */
#include "cli/export_profiler.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/full_io.h"
#include "lib/log.h"
#include "record/flight_control.h"
#include "report/report.h"
#include "sys/dir_entries.h"
#include "sys/output_dir.h"

/* The child's recording and the kernel's symbols, in the private directory. */
#define FLIGHT_DIR "flight"
#define KALLSYMS_FILE "kallsyms"
/* A snapshot is written within this long of being asked for, or the
 * request fails. */
#define SNAPSHOT_WAIT_MS 10000
#define TICK_MS 20
/* The flight recording's memory per CPU: at the default 99 Hz, samples of
 * ~300 bytes (30 frames), a little over PROFILE_MAX_SECONDS; a profile whose
 * window began before what it holds says so in its duration. */
#define PROFILER_STAGING_SIZE "2M"
/* The child is given this long to end at SIGTERM before SIGKILL. */
#define CHILD_STOP_MS 5000

struct export_profiler {
	pthread_mutex_t lock; /* one profile made at a time: snapshots, the child's status */
	pid_t child;          /* 0 once reaped */
	int child_status;
	int dirfd;            /* the private directory */
	char dir[PATH_MAX];
	char flight[PATH_MAX + 16];
	char kallsyms[PATH_MAX + 16];
};

static void sleep_ms(unsigned int ms)
{
	struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&t, NULL);
}

/* The private directory's parent: systemd's RuntimeDirectory, /run, or the
 * temporary directory. */
static const char *private_parent(void)
{
	const char *rt = getenv("RUNTIME_DIRECTORY");

	if (rt && rt[0] == '/' && !strchr(rt, ':') && !access(rt, W_OK))
		return rt;
	return !access("/run", W_OK) ? "/run" : "/tmp";
}

/* A copy of /proc/kallsyms, read while the capabilities last (without
 * CAP_SYSLOG it shows every address as 0): the kernel's symbols for every
 * profile. Modules loaded later are not in it. */
static int copy_kallsyms(struct export_profiler *p, char *err, size_t errlen)
{
	int in = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC), out;
	char buf[65536];
	ssize_t n;

	if (in < 0) {
		rt_format(err, errlen, "cannot read /proc/kallsyms: %s", strerror(errno));
		return -errno;
	}
	out = output_file_create(p->dirfd, p->dir, KALLSYMS_FILE, err, errlen);
	if (out < 0) {
		close(in);
		return out;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write_full(out, buf, (size_t)n)) {
			n = -1;
			break;
		}
	if (n < 0)
		rt_format(err, errlen, "cannot copy /proc/kallsyms into %s: %s", p->dir, strerror(errno));
	close(in);
	close(out);
	return n < 0 ? -EIO : 0;
}

/* The child: ringtrace record of every CPU with -g as a flight recorder,
 * ended by SIGTERM when the exporter ends, however it ends. */
static int start_child(struct export_profiler *p, const struct export_profiler_config *cfg,
		       char *err, size_t errlen)
{
	char freq[32], exe[PATH_MAX];
	char *argv[16];
	int argc = 0;
	pid_t parent = getpid();

	/* this binary by its name, not /proc/self/exe: the child's comm is
	 * then "ringtrace", as flight_target_from_dir wants it */
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0) {
		rt_format(err, errlen, "cannot find this program (/proc/self/exe): %s", strerror(errno));
		return -ENOENT;
	}
	exe[n] = '\0';
	snprintf(freq, sizeof(freq), "%" PRIu64, cfg->freq);
	argv[argc++] = "ringtrace";
	argv[argc++] = "record";
	argv[argc++] = "-a";
	argv[argc++] = "-g";
	argv[argc++] = "-F";
	argv[argc++] = freq;
	argv[argc++] = "--all-cgroups";
	argv[argc++] = "--overwrite";
	argv[argc++] = "--staging-size";
	argv[argc++] = PROFILER_STAGING_SIZE;
	argv[argc++] = "-q";
	argv[argc++] = "-o";
	argv[argc++] = p->flight;
	if (cfg->cgroup) {
		argv[argc++] = "-G";
		argv[argc++] = (char *)cfg->cgroup;
	}
	argv[argc] = NULL;
	p->child = fork();
	if (p->child < 0) {
		rt_format(err, errlen, "cannot start the sampling child: %s", strerror(errno));
		p->child = 0;
		return -errno;
	}
	if (!p->child) {
		sigset_t none;
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(1);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
		}
		execv(exe, argv);
		rt_error("cannot run ringtrace record for the profiles: %s", strerror(errno));
		_exit(127);
	}
	return 0;
}

struct export_profiler *export_profiler_start(const struct export_profiler_config *cfg, char *err,
					      size_t errlen)
{
	struct export_profiler *p = calloc(1, sizeof(*p));

	if (!p) {
		rt_format(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&p->lock, NULL);
	p->dirfd = -1;
	snprintf(p->dir, sizeof(p->dir), "%s/ringtrace-export-XXXXXX", private_parent());
	if (!mkdtemp(p->dir)) {
		rt_format(err, errlen, "cannot create a directory for the profiles (%s): %s", p->dir,
			  strerror(errno));
		free(p);
		return NULL;
	}
	snprintf(p->flight, sizeof(p->flight), "%s/" FLIGHT_DIR, p->dir);
	snprintf(p->kallsyms, sizeof(p->kallsyms), "%s/" KALLSYMS_FILE, p->dir);
	p->dirfd = open(p->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (p->dirfd < 0) {
		rt_format(err, errlen, "cannot open %s: %s", p->dir, strerror(errno));
		export_profiler_stop(p);
		return NULL;
	}
	if (copy_kallsyms(p, err, errlen) || start_child(p, cfg, err, errlen)) {
		export_profiler_stop(p);
		return NULL;
	}
	return p;
}

/* Whether the child still runs, under p->lock. */
static bool child_running(struct export_profiler *p)
{
	if (p->child && waitpid(p->child, &p->child_status, WNOHANG) == p->child)
		p->child = 0;
	return p->child != 0;
}

/* The newest complete snapshot-NNN of the flight directory. */
struct newest {
	unsigned long number;
	char name[64];
};

static int note_snapshot(int dirfd, const char *name, void *ctx)
{
	struct newest *n = ctx;
	char accounting[96];
	unsigned long number;
	struct stat st;
	char *end;

	if (strncmp(name, "snapshot-", 9) || strlen(name) >= sizeof(n->name))
		return 0;
	number = strtoul(name + 9, &end, 10);
	snprintf(accounting, sizeof(accounting), "%s/accounting", name);
	if (*end || fstatat(dirfd, accounting, &st, AT_SYMLINK_NOFOLLOW) || number < n->number)
		return 0;
	n->number = number;
	strcpy(n->name, name);
	return 0;
}

/* Asks t for a snapshot and waits for it; its name into n. 0, -ECANCELED, or
 * -ETIMEDOUT with err set. */
static int take_snapshot(struct export_profiler *p, struct flight_target *t, struct newest *n,
			 const atomic_bool *cancel, char *err, size_t errlen)
{
	int before = flight_target_snapshots(t);

	if (before < 0 || kill(t->pid, SIGUSR2)) {
		rt_format(err, errlen, "cannot ask the sampling child for a snapshot: %s",
			  strerror(before < 0 ? -before : errno));
		return -EIO;
	}
	for (int waited = 0; flight_target_snapshots(t) <= before; waited += TICK_MS) {
		if (atomic_load(cancel)) {
			rt_format(err, errlen, "ringtrace export is stopping");
			return -ECANCELED;
		}
		if (waited >= SNAPSHOT_WAIT_MS || !child_running(p)) {
			rt_format(err, errlen, "the sampling child wrote no snapshot in %d s",
				  SNAPSHOT_WAIT_MS / 1000);
			return -ETIMEDOUT;
		}
		sleep_ms(TICK_MS);
	}
	memset(n, 0, sizeof(*n));
	dir_each_entry(t->dirfd, note_snapshot, n);
	if (!n->name[0]) {
		rt_format(err, errlen, "the sampling child's snapshot is gone");
		return -ENOENT;
	}
	return 0;
}

/* The profile of q from the snapshot (t's dir)/name into out. */
static int profile_of(struct export_profiler *p, const struct flight_target *t, const char *name,
		      const struct profile_query *q, struct byte_buffer *out, char *err,
		      size_t errlen)
{
	struct report_options o = {
		.output = REPORT_PPROF,
		.pprof_path = "-",
		.pid_filter = q->pid,
		.comm_filter = q->comm[0] ? q->comm : NULL,
		.cgroup_filter = q->cgroup[0] ? q->cgroup : NULL,
		.container_filter = q->container[0] ? q->container : NULL,
		.time_filter = true,
		.time_start = q->start_ns,
		.time_end = q->end_ns,
		.kallsyms = p->kallsyms,
		.pprof_duration_nanos = (int64_t)(q->end_ns - q->start_ns),
	};
	struct timespec wall, mono;
	char input[PATH_MAX + 80];
	char *data = NULL;
	size_t len = 0;
	FILE *mem;
	int r;

	snprintf(input, sizeof(input), "%s/%s", t->dir, name);
	o.input = input;
	clock_gettime(CLOCK_REALTIME, &wall);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	o.pprof_time_nanos = (int64_t)wall.tv_sec * 1000000000 + wall.tv_nsec -
			     ((int64_t)mono.tv_sec * 1000000000 + mono.tv_nsec - (int64_t)q->start_ns);
	if (report_parse_sort(&o, "comm,dso,sym", err, errlen))
		return -EINVAL;
	mem = open_memstream(&data, &len);
	if (!mem) {
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r = report_run(&o, mem, err, errlen);
	if (fclose(mem) && !r) {
		rt_format(err, errlen, "out of memory");
		r = -ENOMEM;
	}
	if (!r && len && !byte_buffer_append(out, data, len)) {
		rt_format(err, errlen, "out of memory");
		r = -ENOMEM;
	}
	free(data);
	return r == REPORT_BAD_REQUEST ? -ENODATA : r;
}

int export_profiler_make(void *ctx, const struct profile_query *q, const atomic_bool *cancel,
			 struct byte_buffer *out, char *err, size_t errlen)
{
	struct export_profiler *p = ctx;
	struct flight_target t = { .dirfd = -1 };
	struct newest n;
	char why[PATH_MAX + 256];
	int r;

	pthread_mutex_lock(&p->lock);
	if (!child_running(p)) {
		rt_format(err, errlen, "the sampling child has exited (status %d): see the exporter's log",
			  WIFEXITED(p->child_status) ? WEXITSTATUS(p->child_status) : 128 + WTERMSIG(p->child_status));
		r = -EAGAIN;
	} else if (flight_target_from_dir(&t, p->flight, why, sizeof(why))) {
		rt_format(err, errlen, "the profiler is starting: try again in a few seconds");
		r = -EAGAIN;
	} else if (!(r = take_snapshot(p, &t, &n, cancel, err, errlen))) {
		r = profile_of(p, &t, n.name, q, out, err, errlen);
		output_snapshot_remove(t.dirfd, n.name);
	}
	flight_target_close(&t);
	pthread_mutex_unlock(&p->lock);
	return r;
}

void export_profiler_stop(struct export_profiler *p)
{
	if (!p)
		return;
	if (p->child && !kill(p->child, SIGTERM)) {
		for (int waited = 0; child_running(p) && waited < CHILD_STOP_MS; waited += TICK_MS)
			sleep_ms(TICK_MS);
		if (p->child) {
			kill(p->child, SIGKILL);
			waitpid(p->child, NULL, 0);
		}
	}
	if (p->dirfd >= 0) {
		if (output_recording_remove(p->dirfd, FLIGHT_DIR))
			rt_warn("cannot remove %s: remove it by hand", p->flight);
		unlinkat(p->dirfd, KALLSYMS_FILE, 0);
		close(p->dirfd);
	}
	if (rmdir(p->dir) && errno != ENOENT)
		rt_warn("cannot remove %s: %s", p->dir, strerror(errno));
	pthread_mutex_destroy(&p->lock);
	free(p);
}
