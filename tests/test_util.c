/* test_util.c: helpers shared by the cmocka tests: running commands with their
 * output captured, temporary directories, and the reasons to skip. */
#include "test_util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int tu_run(char *const argv[], char **output)
{
	int pipefd[2];
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	pid_t pid;
	int status;

	if (!buf || pipe2(pipefd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	for (;;) {
		ssize_t n;

		if (cap - len < 4096) {
			char *grown = realloc(buf, cap *= 2);

			if (!grown)
				break;
			buf = grown;
		}
		n = read(pipefd[0], buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(pipefd[0]);
	buf[len] = '\0';
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (output)
		*output = buf;
	else
		free(buf);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

int tu_sh(char **output, const char *fmt, ...)
{
	char *cmd = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -1;
	{
		char *argv[] = { "/bin/sh", "-c", cmd, NULL };

		r = tu_run(argv, output);
	}
	free(cmd);
	return r;
}

char *tu_tempdir(void)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *path = NULL;

	if (asprintf(&path, "%s/ringtrace-test-XXXXXX", base) < 0)
		return NULL;
	if (!mkdtemp(path)) {
		free(path);
		return NULL;
	}
	return path;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void tu_rmtree(const char *path)
{
	if (path)
		nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *tu_ringtrace(void)
{
	return getenv("RINGTRACE");
}

const char *tu_loadgen(void)
{
	return getenv("LOADGEN");
}

const char *tu_integration_skip_reason(void)
{
	if (geteuid() != 0)
		return "not root: loading BPF programs needs root or CAP_BPF+CAP_PERFMON";
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		return "no kernel BTF at /sys/kernel/btf/vmlinux";
	if (!tu_ringtrace() || !tu_loadgen())
		return "RINGTRACE and LOADGEN are not set: run through make integration-test";
	return NULL;
}

int tu_online_cpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}
