/* SPDX-License-Identifier: GPL-2.0-only */
/* interrupt.h: SIGINT or SIGTERM while a command reads a recording: a flag
 * its reading loops check, and the process ended by the signal if they do
 * not stop in time, or at a second signal. */
#ifndef RINGTRACE_INTERRUPT_H
#define RINGTRACE_INTERRUPT_H

/* How long the command has to notice the flag and stop (interrupt_stopping)
 * before the signal ends the process as if it had not been caught. */
#define INTERRUPT_GRACE_MS 500
/* A signal within this of the first is its twin, ignored: timeout(1) signals
 * its child, then its whole process group. */
#define INTERRUPT_TWIN_MS 200

/* From now on the first SIGINT or SIGTERM sets the flag; a second one (not
 * the twin), or the grace running out, ends the process with the signal's
 * default action. A signal the process started with ignored (a background
 * job's SIGINT, nohup's) stays ignored. Uses SIGALRM. */
void interrupt_catch(void);
/* The signal caught (SIGINT or SIGTERM), or 0: checked by the reading loops
 * (async-signal-safe, one load). */
int interrupt_pending(void);
/* "SIGINT" or "SIGTERM", the signal caught, for a message. */
const char *interrupt_name(void);
/* The command saw the flag and is cleaning up (a pager to wait for, an output
 * file to remove): the grace stops running; a second signal still ends the
 * process. */
void interrupt_stopping(void);
/* Ends the process as the signal caught would have (the shell sees it
 * killed by SIGINT and stops a script, as for any command it interrupts);
 * returns only if none was caught. */
void interrupt_end(void);

#endif
