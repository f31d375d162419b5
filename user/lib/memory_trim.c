/* SPDX-License-Identifier: GPL-2.0-only */
/* memory_trim.c: malloc_trim behind one lock for the whole process. */
#include "lib/memory_trim.h"

#include <malloc.h>
#include <pthread.h>

static pthread_mutex_t trim_lock = PTHREAD_MUTEX_INITIALIZER;

void memory_trim(void)
{
	pthread_mutex_lock(&trim_lock);
	malloc_trim(0);
	pthread_mutex_unlock(&trim_lock);
}
