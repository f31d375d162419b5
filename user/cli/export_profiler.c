/* SPDX-License-Identifier: GPL-2.0-only */
/* export_profiler.c: the profiles ringtrace export -g serves: a flight
 * recording of every CPU with -g stacks whose snapshots overlap, run as a
 * child from the start in a private directory, and each request's profile
 * cut from a snapshot of it (report --pprof of the request's window and
 * filters). */
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
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/full_io.h"
#include "lib/log.h"
#include "lib/memory_trim.h"
#include "lib/monotonic.h"
#include "record/flight_control.h"
#include "report/report.h"
#include "symbols/symtab_cache.h"
#include "sys/dir_entries.h"
#include "sys/kallsyms_access.h"
#include "sys/kernel_symbol.h"
#include "sys/output_dir.h"

/* The child's recording and the kernel's symbols, in the private directory. */
#define FLIGHT_DIR "flight"
#define KALLSYMS_FILE "kallsyms"
/* A snapshot is written within this long of being asked for, or the
 * request fails. */
#define SNAPSHOT_WAIT_MS 10000
/* The flight recording's memory per CPU: at the default 99 Hz, samples of
 * ~300 bytes (30 frames), a little over PROFILE_MAX_SECONDS; a profile whose
 * window began before what it holds says so in its duration. */
#define PROFILER_STAGING_SIZE "2M"
/* How much of the recording before a profile's window its snapshot holds. */
#define WINDOW_MARGIN_NS 1000000000ull
/* How long a profile may wait, in all, for container runtimes to name the
 * containers it holds (each question CONTAINER_NAMES_TIMEOUT_MS at most): the
 * time of the questions alone, however long the profile takes to make;
 * names not had by then are left out of it (and asked again by the next). */
#define PROFILE_NAMES_BUDGET_NS 1000000000ULL
/* The symbol tables of the files a profile met, kept for the next one
 * (long-running programs' are read once, not at every profile), the
 * kernel's among them (its copy of kallsyms: 7 MB for 122,000 lines): those
 * the last profile used, at most this many bytes. */
#define PROFILE_SYMBOL_CACHE_BYTES (24u << 20)
#define PROFILE_SYMBOL_CACHE_KEEP 1
/* The events of the child's recording: its default, and --off-cpu's. */
#define CPU_EVENT "cpu-clock"
#define OFFCPU_EVENT "offcpu-time"
/* The prefix of the private directories; a lock on one says its exporter lives. */
#define PRIVATE_PREFIX "ringtrace-export-"

struct export_profiler {
	bool offcpu;          /* the recording has the event offcpu-time */
	pthread_mutex_t lock; /* one profile made at a time: snapshots, the child's status */
	pid_t child;          /* 0 once reaped */
	atomic_bool ended;    /* the child's end seen (read without the lock) */
	_Atomic uint32_t running; /* the child's pid until it is reaped (read without the lock) */
	int child_status;
	struct container_names *names; /* or NULL */
	int dirfd;            /* the private directory */
	char dir[PATH_MAX];
	char flight[PATH_MAX + 16];
	char kallsyms[PATH_MAX + 16];
};

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

/* Says so when kallsyms, as copied, hides the kernel's addresses. */
static void warn_hidden_kallsyms(void)
{
	char cause[512];

	if (kernel_symbol_address("_text"))
		return;
	kallsyms_hidden_cause(cause, sizeof(cause));
	rt_warn("the profiles' kernel frames will be [unknown]: /proc/kallsyms hides kernel addresses (%s)",
		cause);
}

/* The child: ringtrace record of every CPU with -g as a flight recorder
 * whose snapshots overlap, killed when the exporter ends, however it ends
 * (nothing of it is kept). */
static int start_child(struct export_profiler *p, const struct export_profiler_config *cfg,
		       char *err, size_t errlen)
{
	char freq[32], exe[PATH_MAX], parent_pid[32];
	char *argv[40];
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
	argv[argc++] = "--snapshots-overlap";
	/* the staging ring of --staging-size holds the minute a profile may
	 * ask for (an own ring, written backward, holds -m, 2 MiB at most) */
	argv[argc++] = "--transport";
	argv[argc++] = "ringbuf";
	argv[argc++] = "--staging-size";
	argv[argc++] = PROFILER_STAGING_SIZE;
	argv[argc++] = "--unwind-mem";
	argv[argc++] = (char *)cfg->unwind_mem;
	/* a busy node maps thousands of files and runs a few of them: only
	 * those the samples meet are compiled */
	argv[argc++] = "--unwind-tables";
	argv[argc++] = "sampled";
	if (cfg->unwind_cache_size) {
		argv[argc++] = "--unwind-cache-size";
		argv[argc++] = (char *)cfg->unwind_cache_size;
	}
	if (cfg->offcpu) {
		argv[argc++] = "--off-cpu";
		argv[argc++] = "--off-cpu-min";
		argv[argc++] = (char *)cfg->offcpu_min;
	}
	argv[argc++] = "-q";
	/* the mappings and files of the processes that start later, other
	 * users' and other mount namespaces' (a DaemonSet's pod), are read
	 * with CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH where they are given */
	argv[argc++] = "--keep-read-caps";
	/* a parent-death signal set here would be cleared by the exec of a
	 * binary with file capabilities: the child sets its own */
	snprintf(parent_pid, sizeof(parent_pid), "%d", (int)parent);
	argv[argc++] = "--exit-with-parent";
	argv[argc++] = parent_pid;
	argv[argc++] = "-o";
	argv[argc++] = p->flight;
	if (cfg->cgroup) {
		argv[argc++] = "-G";
		argv[argc++] = (char *)cfg->cgroup;
	}
	argv[argc] = NULL;
	/* reaped here, whatever the exporter was started with */
	signal(SIGCHLD, SIG_DFL);
	p->child = fork();
	if (p->child < 0) {
		rt_format(err, errlen, "cannot start the sampling child: %s", strerror(errno));
		p->child = 0;
		return -errno;
	}
	if (!p->child) {
		sigset_t none;
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
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
	atomic_store(&p->running, (uint32_t)p->child);
	return 0;
}

/* Removes parent/name, a private directory another exporter left (killed),
 * when no exporter holds its lock. */
static int remove_stale(int parent, const char *name, void *ctx)
{
	struct stat st;
	int fd;

	(void)ctx;
	if (strncmp(name, PRIVATE_PREFIX, strlen(PRIVATE_PREFIX)))
		return 0;
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	/* an exporter's of this user, left unlocked: its exporter is gone */
	if (!fstat(fd, &st) && st.st_uid == geteuid() && !flock(fd, LOCK_EX | LOCK_NB)) {
		output_recording_remove(fd, FLIGHT_DIR);
		unlinkat(fd, KALLSYMS_FILE, 0);
		unlinkat(parent, name, AT_REMOVEDIR);
	}
	close(fd);
	return 0;
}

struct export_profiler *export_profiler_start(const struct export_profiler_config *cfg, char *err,
					      size_t errlen)
{
	struct export_profiler *p = calloc(1, sizeof(*p));
	const char *parent = private_parent();
	int parent_fd;

	if (!p) {
		rt_format(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&p->lock, NULL);
	p->dirfd = -1;
	p->names = cfg->names;
	p->offcpu = cfg->offcpu;
	parent_fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (parent_fd >= 0) {
		dir_each_entry(parent_fd, remove_stale, NULL);
		close(parent_fd);
	}
	snprintf(p->dir, sizeof(p->dir), "%s/" PRIVATE_PREFIX "XXXXXX", parent);
	if (!mkdtemp(p->dir)) {
		rt_format(err, errlen, "cannot create a directory for the profiles (%s): %s", p->dir,
			  strerror(errno));
		free(p);
		return NULL;
	}
	snprintf(p->flight, sizeof(p->flight), "%s/" FLIGHT_DIR, p->dir);
	snprintf(p->kallsyms, sizeof(p->kallsyms), "%s/" KALLSYMS_FILE, p->dir);
	/* locked while this exporter lives (the lock goes with the process) */
	p->dirfd = open(p->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (p->dirfd < 0 || flock(p->dirfd, LOCK_EX | LOCK_NB)) {
		rt_format(err, errlen, "cannot open and lock %s: %s", p->dir, strerror(errno));
		export_profiler_stop(p);
		return NULL;
	}
	if (copy_kallsyms(p, err, errlen) || start_child(p, cfg, err, errlen)) {
		export_profiler_stop(p);
		return NULL;
	}
	warn_hidden_kallsyms();
	symtab_cache_configure(PROFILE_SYMBOL_CACHE_BYTES, PROFILE_SYMBOL_CACHE_KEEP);
	return p;
}

/* Whether the child still runs, under p->lock; its end said once. */
static bool child_running(struct export_profiler *p)
{
	pid_t r;

	if (!p->child)
		return false;
	r = waitpid(p->child, &p->child_status, WNOHANG);
	if (r == 0)
		return true;
	atomic_store(&p->running, 0);
	if (r == p->child)
		rt_warn("ringtrace export: the sampling child (ringtrace record, pid %d) ended (%s %d): no profiles from now on",
			(int)p->child, WIFEXITED(p->child_status) ? "exit status" : "signal",
			WIFEXITED(p->child_status) ? WEXITSTATUS(p->child_status)
						   : WTERMSIG(p->child_status));
	p->child = 0; /* reaped, or not ours to wait for (ECHILD) */
	atomic_store(&p->ended, true);
	return false;
}

bool export_profiler_healthy(void *ctx, char *why, size_t len)
{
	struct export_profiler *p = ctx;
	bool running;

	/* a profile being made holds the lock (for seconds): it looks at the
	 * child as it waits, and says if it ended */
	if (!atomic_load(&p->ended) && !pthread_mutex_trylock(&p->lock)) {
		running = child_running(p);
		pthread_mutex_unlock(&p->lock);
		if (running)
			return true;
	} else if (!atomic_load(&p->ended)) {
		return true;
	}
	rt_format(why, len, "the sampling child (ringtrace record) has ended: no profiles; see the exporter's log");
	return false;
}

/* flight_target_take_snapshot's cancel: the server stops, or the child ended. */
struct wait_state {
	struct export_profiler *p;
	const atomic_bool *cancel;
};

static bool stop_waiting(void *ctx)
{
	struct wait_state *w = ctx;

	return atomic_load(w->cancel) || !child_running(w->p);
}

/* The profile of q from the snapshot (t's dir)/name into out. */
static int profile_of(struct export_profiler *p, const struct flight_target *t, const char *name,
		      const struct profile_query *q, struct byte_buffer *out, char *err,
		      size_t errlen)
{
	struct report_options o = {
		.output = REPORT_PPROF,
		.pprof_path = "-",
		/* named, or report says at each profile that the recording
		 * has another event */
		.event_filter = q->kind == PROFILE_OFFCPU ? OFFCPU_EVENT
				: p->offcpu ? CPU_EVENT : NULL,
		.pid_filter = q->pid,
		.comm_filter = q->comm[0] ? q->comm : NULL,
		.cgroup_filter = q->cgroup[0] ? q->cgroup : NULL,
		.container_filter = q->container[0] ? q->container : NULL,
		.namespace_filter = q->namespace_[0] ? q->namespace_ : NULL,
		.pod_filter = q->pod[0] ? q->pod : NULL,
		.container_name_filter = q->container_name[0] ? q->container_name : NULL,
		.names = p->names,
		.names_budget_ns = PROFILE_NAMES_BUDGET_NS,
		.time_filter = true,
		.time_start = q->start_ns,
		.time_end = q->end_ns,
		.kallsyms = p->kallsyms,
		.pprof_duration_nanos = (int64_t)(q->end_ns - q->start_ns),
	};
	struct timespec wall;
	char input[PATH_MAX + 80];
	char *data = NULL;
	size_t len = 0;
	int r;

	snprintf(input, sizeof(input), "%s/%s", t->dir, name);
	o.input = input;
	clock_gettime(CLOCK_REALTIME, &wall);
	o.pprof_time_nanos = (int64_t)wall.tv_sec * 1000000000 + wall.tv_nsec -
			     (int64_t)(monotonic_ns() - q->start_ns);
	if (report_parse_sort(&o, "comm,dso,sym", err, errlen))
		return -EINVAL;
	symtab_cache_report_begins();
	r = report_run_to_memory(&o, &data, &len, err, errlen);
	symtab_cache_report_ends();
	if (!r && len && !byte_buffer_append(out, data, len)) {
		rt_format(err, errlen, "out of memory");
		r = -ENOMEM;
	}
	free(data);
	return r == REPORT_BAD_REQUEST ? -ENODATA : r;
}

/* The samples a snapshot for q holds: from a second before its window (the
 * report sees that the recording covers all of the window, or says how
 * much of it is missing in the profile's duration), not all the child's
 * minute: a fifth of the bytes written and read back for the default 14 s. */
static uint64_t window_from(const struct profile_query *q)
{
	return q->start_ns > WINDOW_MARGIN_NS ? q->start_ns - WINDOW_MARGIN_NS : 1;
}

int export_profiler_make(void *ctx, const struct profile_query *q, const atomic_bool *cancel,
			 struct byte_buffer *out, char *err, size_t errlen)
{
	struct export_profiler *p = ctx;
	struct flight_target t = { .dirfd = -1 };
	struct wait_state w = { p, cancel };
	char why[PATH_MAX + 256], name[64];
	int r;

	pthread_mutex_lock(&p->lock);
	if (!child_running(p)) {
		rt_format(err, errlen, "the sampling child has ended: see the exporter's log");
		r = -EAGAIN;
	} else if (flight_target_of_child(&t, p->flight, p->child, why, sizeof(why))) {
		rt_format(err, errlen, "the profiler is starting: try again in a few seconds");
		r = -EAGAIN;
	} else if ((r = flight_target_take_snapshot(&t, window_from(q), SNAPSHOT_WAIT_MS,
						   stop_waiting, &w, err, errlen))) {
		r = atomic_load(cancel) ? -ECANCELED : r == -ESRCH ? -EAGAIN : r;
	} else if (!(r = flight_target_newest_snapshot(&t, name, sizeof(name)))) {
		r = profile_of(p, &t, name, q, out, err, errlen);
		if (output_snapshot_remove(t.dirfd, name))
			rt_warn("cannot remove %s/%s: remove it by hand", t.dir, name);
	} else {
		rt_format(err, errlen, "the sampling child's snapshot is gone");
	}
	flight_target_close(&t);
	/* the report's symbol tables and trees (tens of MB beside churn) go
	 * back to the kernel, not kept in this request thread's malloc arena */
	memory_trim();
	pthread_mutex_unlock(&p->lock);
	return r;
}

uint32_t export_profiler_child_pid(void *ctx)
{
	struct export_profiler *p = ctx;

	/* without the lock, which a profile being made holds for seconds */
	return atomic_load(&p->running);
}

bool export_profiler_child_counts(void *ctx, struct sampler_counts *c)
{
	struct export_profiler *p = ctx;
	struct flight_counts f;

	/* a file in this exporter's private directory: no lock needed */
	if (flight_counts_read(p->flight, &f))
		return false;
	*c = (struct sampler_counts){ f.produced, f.lost, f.sideband_lost };
	return true;
}

void export_profiler_stop(struct export_profiler *p)
{
	if (!p)
		return;
	/* nothing of the child is kept: killed, as when the exporter dies */
	if (p->child) {
		kill(p->child, SIGKILL);
		waitpid(p->child, NULL, 0);
	}
	if (p->dirfd >= 0) {
		if (output_recording_remove(p->dirfd, FLIGHT_DIR))
			rt_warn("cannot remove %s: remove it by hand", p->flight);
		unlinkat(p->dirfd, KALLSYMS_FILE, 0);
		close(p->dirfd);
	}
	if (rmdir(p->dir) && errno != ENOENT)
		rt_warn("cannot remove %s: %s", p->dir, strerror(errno));
	symtab_cache_configure(0, 1); /* the tables kept go */
	pthread_mutex_destroy(&p->lock);
	free(p);
}
