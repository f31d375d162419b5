/* SPDX-License-Identifier: GPL-2.0-only */
/* full_io.h: moving exactly a buffer's bytes through a descriptor, whatever
 * short reads and writes and signals break it into. */
#ifndef RINGTRACE_FULL_IO_H
#define RINGTRACE_FULL_IO_H

#include <stddef.h>

/* Writes all len bytes of buf to fd: 0, or -errno, errno set too (ENOSPC when the
 * file takes no more). */
int write_full(int fd, const void *buf, size_t len);
/* The same through a socket, a peer gone failing with EPIPE, not SIGPIPE. */
int send_full(int fd, const void *buf, size_t len);
/* Reads exactly len bytes of fd into buf: 0, or -errno, errno set too (EIO at an
 * end before len). */
int read_full(int fd, void *buf, size_t len);

#endif
