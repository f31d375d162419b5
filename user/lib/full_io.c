/* SPDX-License-Identifier: GPL-2.0-only */
/* full_io.c: moving exactly a buffer's bytes through a descriptor, whatever
 * short reads and writes and signals break it into. */
#include "lib/full_io.h"

#include <errno.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

enum full_io_way { WAY_WRITE, WAY_SEND, WAY_READ };

static int move_full(enum full_io_way way, int fd, uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = way == WAY_READ   ? read(fd, p, len)
			    : way == WAY_SEND ? send(fd, p, len, MSG_NOSIGNAL)
					      : write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0) {
			errno = way == WAY_READ ? EIO : ENOSPC;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int write_full(int fd, const void *buf, size_t len)
{
	return move_full(WAY_WRITE, fd, (uint8_t *)(uintptr_t)buf, len);
}

int send_full(int fd, const void *buf, size_t len)
{
	return move_full(WAY_SEND, fd, (uint8_t *)(uintptr_t)buf, len);
}

int read_full(int fd, void *buf, size_t len)
{
	return move_full(WAY_READ, fd, buf, len);
}
