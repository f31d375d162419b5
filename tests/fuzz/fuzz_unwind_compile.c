/* SPDX-License-Identifier: GPL-2.0-only */
/* fuzz_unwind_compile.c: libFuzzer target for the unwind table compiler (ELF
 * headers, section sizes, .eh_frame, .debug_frame, CIEs and FDEs read by
 * libelf and libdw, rows made from them): the input is an ELF file, seeded
 * with real binaries (make copies some into the corpus) and mutated, read
 * from a memfd as the loader reads a mapped file. Nothing may crash, hang,
 * leak, pass its budget, or give rows out of order. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbols/unwind_compile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* small: a mutated header claims what it likes, the budget holds */
	const struct unwind_budget budget = { .max_rows = 1u << 16,
					      .max_cfi_bytes = 1u << 20,
					      .max_seconds = 2.0 };
	struct unwind_table t;
	enum unwind_refusal why;
	char err[256];
	size_t done = 0;
	int fd = memfd_create("fuzz-elf", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0)
			break;
		done += (size_t)n;
	}
	if (done == size && !unwind_table_build(fd, &budget, &t, &why, err, sizeof(err))) {
		if (t.nr > budget.max_rows + 2)
			abort(); /* past its budget */
		for (size_t i = 1; i < t.nr; i++)
			if (t.rows[i].pc < t.rows[i - 1].pc)
				abort(); /* the BPF side's binary search needs them sorted */
		unwind_table_free(&t);
	}
	close(fd);
	return 0;
}
