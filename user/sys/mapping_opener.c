/* SPDX-License-Identifier: GPL-2.0-only */
/* mapping_opener.c: one thread keeping CAP_SYS_PTRACE and CAP_CHECKPOINT_RESTORE
 * once the process dropped every capability, opening /proc/PID/map_files only. */
#include "sys/mapping_opener.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/capability.h>

#include "sys/safe_open.h"

/* One request at a time: asked by a caller, answered by the thread. */
static struct {
	pthread_mutex_t calls; /* held by a caller for its whole request */
	pthread_mutex_t lock;
	pthread_cond_t asked, answered;
	pthread_t thread;
	bool started, stopping, pending;
	uint32_t pid;
	uint64_t start, end;
	int fd;
	struct stat st;
} opener = {
	.calls = PTHREAD_MUTEX_INITIALIZER,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.asked = PTHREAD_COND_INITIALIZER,
	.answered = PTHREAD_COND_INITIALIZER,
};

/* This thread's capabilities made those two alone (CAP_SYS_ADMIN for the
 * second where it is not permitted: a kernel before 5.9). 0, or -EPERM. */
static int keep_two(void)
{
	cap_value_t want[2] = { CAP_SYS_PTRACE, CAP_CHECKPOINT_RESTORE };
	cap_flag_value_t has = CAP_CLEAR;
	cap_t now = cap_get_proc(), two = cap_init();
	int ret = -EPERM;

	if (!now || !two)
		goto out;
	if (cap_get_flag(now, want[1], CAP_PERMITTED, &has) || has != CAP_SET)
		want[1] = CAP_SYS_ADMIN;
	for (int i = 0; i < 2; i++)
		if (cap_get_flag(now, want[i], CAP_PERMITTED, &has) || has != CAP_SET)
			goto out;
	if (cap_set_flag(two, CAP_PERMITTED, 2, want, CAP_SET) ||
	    cap_set_flag(two, CAP_EFFECTIVE, 2, want, CAP_SET) || cap_set_proc(two))
		goto out;
	ret = 0;
out:
	cap_free(now);
	cap_free(two);
	return ret;
}

static void *run(void *arg)
{
	int *ready = arg;

	pthread_mutex_lock(&opener.lock);
	*ready = keep_two() ? -EPERM : 1;
	pthread_cond_broadcast(&opener.answered);
	if (*ready < 0) {
		pthread_mutex_unlock(&opener.lock);
		return NULL;
	}
	for (;;) {
		char link[96];

		while (!opener.pending && !opener.stopping)
			pthread_cond_wait(&opener.asked, &opener.lock);
		if (opener.stopping)
			break;
		snprintf(link, sizeof(link), "/proc/%u/map_files/%llx-%llx", opener.pid,
			 (unsigned long long)opener.start, (unsigned long long)opener.end);
		opener.fd = safe_openat(AT_FDCWD, link, SAFE_OPEN_FOLLOW, &opener.st);
		opener.pending = false;
		pthread_cond_broadcast(&opener.answered);
	}
	pthread_mutex_unlock(&opener.lock);
	return NULL;
}

int mapping_opener_start(void)
{
	int ready = 0, e;

	if (opener.started)
		return 0;
	e = pthread_create(&opener.thread, NULL, run, &ready);
	if (e)
		return -e;
	pthread_setname_np(opener.thread, "rt-opener");
	pthread_mutex_lock(&opener.lock);
	while (!ready)
		pthread_cond_wait(&opener.answered, &opener.lock);
	pthread_mutex_unlock(&opener.lock);
	if (ready < 0) {
		pthread_join(opener.thread, NULL);
		return ready;
	}
	opener.started = true;
	opener.stopping = false;
	return 0;
}

int mapping_opener_open(uint32_t pid, uint64_t start, uint64_t end, struct stat *st)
{
	int fd;

	if (!opener.started)
		return -ENOSYS;
	pthread_mutex_lock(&opener.calls);
	pthread_mutex_lock(&opener.lock);
	opener.pid = pid;
	opener.start = start;
	opener.end = end;
	opener.pending = true;
	pthread_cond_signal(&opener.asked);
	while (opener.pending)
		pthread_cond_wait(&opener.answered, &opener.lock);
	fd = opener.fd;
	if (fd >= 0 && st)
		*st = opener.st;
	pthread_mutex_unlock(&opener.lock);
	pthread_mutex_unlock(&opener.calls);
	if (fd < 0)
		errno = -fd;
	return fd;
}

void mapping_opener_stop(void)
{
	if (!opener.started)
		return;
	pthread_mutex_lock(&opener.lock);
	opener.stopping = true;
	pthread_cond_broadcast(&opener.asked);
	pthread_mutex_unlock(&opener.lock);
	pthread_join(opener.thread, NULL);
	opener.started = false;
}
