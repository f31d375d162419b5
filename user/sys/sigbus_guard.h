/* SPDX-License-Identifier: GPL-2.0-only */
/* sigbus_guard.h: runs a function that reads a file through a mapping, and
 * turns the SIGBUS of that file shrinking meanwhile into an error return. */
#ifndef RINGTRACE_SIGBUS_GUARD_H
#define RINGTRACE_SIGBUS_GUARD_H

/* What sigbus_guard_run returns when a read of a mapping faulted. */
#define SIGBUS_GUARD_FAULT (-0x5b5)

typedef int (*sigbus_guarded_fn)(void *arg);

/* fn(arg)'s return, or SIGBUS_GUARD_FAULT if a mapped page it read had gone
 * (a file truncated under it by its owner): fn is left where it faulted, so
 * what it had allocated is lost (counted by the caller, rare: each file is
 * read once). A SIGBUS outside any guard is delivered as before. Calls may
 * nest and run in several threads at once. */
int sigbus_guard_run(sigbus_guarded_fn fn, void *arg);

#endif
