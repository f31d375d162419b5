/* SPDX-License-Identifier: GPL-2.0-only */
/* pager.c: a command's output through a pager when stdout is a terminal, as
 * perf and git page theirs: $PAGER (empty or "cat": none), else less with
 * LESS=FRX unless LESS is set, when it is installed. */
#include "sys/pager.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Whether an executable name is in $PATH (so that a missing less never
 * swallows the output). */
static bool in_path(const char *name)
{
	const char *path = getenv("PATH");
	char file[4096];

	while (path && *path) {
		size_t len = strcspn(path, ":");

		if (len && (size_t)snprintf(file, sizeof(file), "%.*s/%s", (int)len, path, name) <
				   sizeof(file) &&
		    !access(file, X_OK))
			return true;
		path += len + (path[len] == ':');
	}
	return false;
}

void pager_start(struct pager *p)
{
	const char *cmd = getenv("PAGER");
	int fds[2];
	pid_t pid;

	p->pid = 0;
	if (!isatty(STDOUT_FILENO))
		return;
	if (cmd && (!*cmd || !strcmp(cmd, "cat")))
		return;
	if (!cmd) {
		if (!in_path("less"))
			return;
		cmd = "less";
	}
	fflush(stdout);
	if (pipe(fds))
		return;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (!pid) {
		dup2(fds[0], STDIN_FILENO);
		close(fds[0]);
		close(fds[1]);
		setenv("LESS", "FRX", 0); /* quit if one screen, colours, no init */
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	dup2(fds[1], STDOUT_FILENO);
	close(fds[0]);
	close(fds[1]);
	p->pid = pid;
}

void pager_finish(struct pager *p)
{
	if (!p->pid)
		return;
	fflush(stdout);
	close(STDOUT_FILENO);
	while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
		;
	p->pid = 0;
}
