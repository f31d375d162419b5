/* SPDX-License-Identifier: GPL-2.0-only */
/* test_full_io.c: a buffer larger than a pipe holds crosses it whole (the
 * writes and reads come back short), an end before the bytes asked for is
 * EIO, a socket whose peer is gone is EPIPE without SIGPIPE, and a file
 * that takes no more is ENOSPC. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/full_io.h"

#define BIG (1u << 20) /* 16 times a pipe's 64 KiB */

struct writer {
	int fd;
	const uint8_t *buf;
	int ret;
};

static void *write_side(void *arg)
{
	struct writer *w = arg;

	w->ret = write_full(w->fd, w->buf, BIG);
	close(w->fd);
	return NULL;
}

static void test_pipe_carries_all(void **state)
{
	uint8_t *out = malloc(BIG), *in = malloc(BIG), extra;
	struct writer w;
	pthread_t t;
	int p[2];

	(void)state;
	assert_non_null(out);
	assert_non_null(in);
	for (uint32_t i = 0; i < BIG; i++)
		out[i] = (uint8_t)(i * 2654435761u >> 24);
	assert_int_equal(pipe(p), 0);
	w = (struct writer){ p[1], out, -2 };
	assert_int_equal(pthread_create(&t, NULL, write_side, &w), 0);
	assert_int_equal(read_full(p[0], in, BIG), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(w.ret, 0);
	assert_memory_equal(in, out, BIG);
	errno = 0;
	assert_int_equal(read_full(p[0], &extra, 1), -EIO); /* the writer closed */
	assert_int_equal(errno, EIO);
	close(p[0]);
	free(out);
	free(in);
}

static void test_send_to_gone_peer_is_epipe(void **state)
{
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	close(sv[1]);
	errno = 0;
	assert_int_equal(send_full(sv[0], "x", 1), -EPIPE); /* SIGPIPE would end the test */
	assert_int_equal(errno, EPIPE);
	close(sv[0]);
}

static void test_full_file_is_enospc(void **state)
{
	int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);

	(void)state;
	if (fd < 0)
		skip(); /* no /dev/full in this sandbox */
	errno = 0;
	assert_int_equal(write_full(fd, "abc", 3), -ENOSPC);
	assert_int_equal(errno, ENOSPC);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipe_carries_all),
		cmocka_unit_test(test_send_to_gone_peer_is_epipe),
		cmocka_unit_test(test_full_file_is_enospc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
