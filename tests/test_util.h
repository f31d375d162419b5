/* test_util.h: helpers shared by the cmocka tests: running commands with their
 * output captured, temporary directories, and the reasons to skip. */
#ifndef RINGTRACE_TEST_UTIL_H
#define RINGTRACE_TEST_UTIL_H

#include <stddef.h>

/* Runs argv (argv[0] looked up in PATH), captures stdout and stderr together
 * into *output (NUL-terminated, caller frees). Returns the exit status, or
 * 128 + signal, or -1 if it could not run. */
int tu_run(char *const argv[], char **output);

/* Formats a command line and runs it through tu_run's rules via /bin/sh -c. */
int tu_sh(char **output, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A fresh directory under $TMPDIR or /tmp; caller frees the path. */
char *tu_tempdir(void);
/* Removes a directory tree. */
void tu_rmtree(const char *path);

/* Why integration tests cannot run here (not root, no BTF, no binaries
 * given), or NULL if they can. */
const char *tu_integration_skip_reason(void);

/* $RINGTRACE and $LOADGEN as set by make. */
const char *tu_ringtrace(void);
const char *tu_loadgen(void);

/* Number of online CPUs. */
int tu_online_cpus(void);

#endif
