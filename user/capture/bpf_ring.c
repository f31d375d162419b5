/* SPDX-License-Identifier: GPL-2.0-only */
/* bpf_ring.c: reads a BPF ring buffer (BPF_MAP_TYPE_RINGBUF) from user space:
 * the records between its consumer and producer positions, released in batches. */
#include "capture/bpf_ring.h"

#include <errno.h>
#include <linux/bpf.h>
#include <sys/mman.h>
#include <unistd.h>

/* As the kernel lays a ring out for mmap (kernel/bpf/ringbuf.c, and libbpf's
 * ring_buffer__add): the consumer page (writable), the producer page, then
 * the data pages mapped twice in a row, so that a record that wraps past the
 * end reads as one piece. */
int bpf_ring_map(struct bpf_ring *r, int map_fd, size_t data_size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *c, *p;

	r->map_fd = map_fd;
	r->page_size = page;
	r->data_size = data_size;
	c = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
	if (c == MAP_FAILED)
		return -errno;
	p = mmap(NULL, page + 2 * data_size, PROT_READ, MAP_SHARED, map_fd, (off_t)page);
	if (p == MAP_FAILED) {
		int e = errno;

		munmap(c, page);
		return -e;
	}
	r->consumer_pos = c;
	r->producer_pos = p;
	r->data = (const uint8_t *)p + page;
	return 0;
}

void bpf_ring_unmap(struct bpf_ring *r)
{
	if (r->consumer_pos)
		munmap(r->consumer_pos, r->page_size);
	if (r->producer_pos)
		munmap((void *)r->producer_pos, r->page_size + 2 * r->data_size);
	r->consumer_pos = NULL;
	r->producer_pos = NULL;
}

uint64_t bpf_ring_pending(const struct bpf_ring *r)
{
	return __atomic_load_n(r->producer_pos, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(r->consumer_pos, __ATOMIC_ACQUIRE);
}

long bpf_ring_drain(struct bpf_ring *r, size_t release_bytes, bpf_ring_record_fn fn, void *ctx)
{
	unsigned long cons = *r->consumer_pos; /* only we write it */
	unsigned long start = cons, released = cons, prod;
	size_t mask = r->data_size - 1;
	long count = 0;
	int err = 0;

	/* at most a ring's worth at a time: a producer as fast as the drain
	 * does not keep the caller from its other work (epoll reports the
	 * rest at once) */
	do {
		prod = __atomic_load_n(r->producer_pos, __ATOMIC_ACQUIRE);
		while (cons < prod && !err) {
			const uint32_t *hdr = (const uint32_t *)(r->data + (cons & mask));
			uint32_t word = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);
			uint32_t len = word & ~(uint32_t)(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);

			if (word & BPF_RINGBUF_BUSY_BIT)
				goto done; /* reserved, not yet committed */
			if (!(word & BPF_RINGBUF_DISCARD_BIT)) {
				err = fn(ctx, (const uint8_t *)hdr + BPF_RINGBUF_HDR_SZ, len);
				count++;
			}
			cons += (len + BPF_RINGBUF_HDR_SZ + 7) & ~7ul;
			if (cons - released >= release_bytes) {
				/* the records are read before the kernel may
				 * write over them */
				__atomic_store_n(r->consumer_pos, cons, __ATOMIC_RELEASE);
				released = cons;
			}
		}
	} while (!err && cons - start < r->data_size &&
		 cons != __atomic_load_n(r->producer_pos, __ATOMIC_ACQUIRE));
done:
	if (cons != released)
		__atomic_store_n(r->consumer_pos, cons, __ATOMIC_RELEASE);
	return err ? err : count;
}
