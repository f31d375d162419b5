/* SPDX-License-Identifier: GPL-2.0-only */
/* second_signal.h: once a first SIGINT or SIGTERM is being handled (a clean
 * stop), a second one ends the process at once, unless it is the first's twin. */
#ifndef RINGTRACE_SECOND_SIGNAL_H
#define RINGTRACE_SECOND_SIGNAL_H

/* A signal within this of the first is its twin: timeout(1) signals its child
 * and then its whole process group, the child again. */
#define SECOND_SIGNAL_GRACE_NS 200000000ULL

/* From now on a SIGINT or SIGTERM ends the process with the signal's default
 * action, but for one that comes within SECOND_SIGNAL_GRACE_NS; the two are
 * unblocked in the calling thread. */
void second_signal_arm(void);

#endif
