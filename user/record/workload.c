/* SPDX-License-Identifier: GPL-2.0-only */
/* workload.c: runs the command given after "--": forked before recording
 * starts, held until the recording is ready, then exec'd. */
#include "record/workload.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/log.h"

/* Whether path is a file this process may execute: 0, or the errno execve
 * would give (EACCES for a directory or a file without x). */
static int executable(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return errno;
	if (!S_ISREG(st.st_mode) || access(path, X_OK))
		return EACCES;
	return 0;
}

/* Whether execvp would find a program for name: itself when it holds a
 * slash, else in PATH (glibc's default without one). 0, or the errno the
 * exec would fail with. */
static int command_found(const char *name)
{
	const char *path = getenv("PATH"), *at;
	char candidate[PATH_MAX];
	int e = ENOENT;

	if (!*name)
		return ENOENT;
	if (strchr(name, '/'))
		return executable(name);
	for (at = path ? path : "/bin:/usr/bin"; at; at = strchr(at, ':') ? strchr(at, ':') + 1 : NULL) {
		size_t len = strcspn(at, ":");
		int r;

		/* an empty entry is the current directory, as execvp reads it */
		if ((size_t)snprintf(candidate, sizeof(candidate), "%.*s%s%s", (int)len,
				     len ? at : ".", "/", name) >= sizeof(candidate))
			continue;
		r = executable(candidate);
		if (!r)
			return 0;
		if (r == EACCES)
			e = EACCES;
	}
	return e;
}

int workload_prepare(struct workload *w, char *const argv[], const sigset_t *child_mask,
		     char *err, size_t errlen)
{
	int go[2], ex[2], e;

	memset(w, 0, sizeof(*w));
	w->pid = -1;
	/* said before anything is made or moved (the recording at -o stays
	 * where it is): the exec in the child would fail the same way */
	if ((e = command_found(argv[0]))) {
		rt_format(err, errlen, "cannot run %s: %s", argv[0], strerror(e));
		return -e;
	}
	if (pipe2(go, O_CLOEXEC))
		goto fail;
	if (pipe2(ex, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		goto fail;
	}
	w->pid = fork();
	if (w->pid < 0) {
		close(go[0]);
		close(go[1]);
		close(ex[0]);
		close(ex[1]);
		goto fail;
	}
	if (w->pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(ex[0]);
		sigprocmask(SIG_SETMASK, child_mask, NULL);
		/* EOF without a byte means the recording gave up: do not run. */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(ex[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	w->go_fd = go[1];
	w->exec_fd = ex[0];
	return 0;
fail:
	rt_format(err, errlen, "cannot start %s: %s", argv[0], strerror(errno));
	return -errno;
}

int workload_start(struct workload *w, char *const argv[], char *err, size_t errlen)
{
	char go = 1;
	int e = 0;
	ssize_t n;

	if (write(w->go_fd, &go, 1) != 1) {
		rt_format(err, errlen, "cannot start %s: %s", argv[0], strerror(errno));
		return errno ? -errno : -EIO;
	}
	close(w->go_fd);
	w->go_fd = -1;
	do
		n = read(w->exec_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(w->exec_fd);
	w->exec_fd = -1;
	if (n == sizeof(e)) {
		rt_format(err, errlen, "cannot run %s: %s", argv[0], strerror(e));
		return e ? -e : -ENOEXEC;
	}
	return 0;
}

int workload_poll(struct workload *w)
{
	pid_t r;

	if (w->reaped || w->pid <= 0)
		return 1;
	r = waitpid(w->pid, &w->status, WNOHANG);
	if (r == w->pid) {
		w->reaped = 1;
		return 1;
	}
	return 0;
}

void workload_stop(struct workload *w)
{
	if (w->go_fd > 0)
		close(w->go_fd);
	if (w->exec_fd > 0)
		close(w->exec_fd);
	w->go_fd = w->exec_fd = -1;
	if (w->pid <= 0 || w->reaped)
		return;
	kill(w->pid, SIGTERM);
	while (waitpid(w->pid, &w->status, 0) < 0 && errno == EINTR)
		;
	w->reaped = 1;
}

int workload_exit_code(const struct workload *w)
{
	if (!w->reaped)
		return 0;
	if (WIFEXITED(w->status))
		return WEXITSTATUS(w->status);
	if (WIFSIGNALED(w->status))
		return 128 + WTERMSIG(w->status);
	return 1;
}
