/* SPDX-License-Identifier: GPL-2.0-only */
/* fuzz_unwind_compile.c: libFuzzer target for the unwind table compiler (ELF
 * headers, section sizes, .eh_frame, .eh_frame_hdr, .debug_frame, CIEs and
 * FDEs read by libelf and libdw, rows made from them): the input is an ELF
 * file, read from a memfd as the loader reads a mapped file. make seeds it
 * with small real binaries whole and with small ELF files that hold runs of
 * the CFI of big ones (tests/fuzz/unwind_seeds.c: libc, ld.so, python3,
 * cc1), and mutates them. Nothing may crash, hang, leak, pass its budget,
 * or give rows out of order.
 *
 * The ELF identification's padding, which libelf and the loader ignore,
 * asks for more: bit 0 of byte 15, a compile in two stages (the FDEs of
 * more than 16 times byte 14's CFI bytes left to the second, as a
 * recording's builder does); bit 1, the first stage (or with bit 0 clear,
 * the whole) in 2 parts, 3 with bit 2, joined. Each table is held to what
 * the whole is (sorted, within the budget; the second stage defers
 * nothing), not to be the whole row for row: where the file's
 * .eh_frame_hdr disagrees with its .eh_frame, libdw's answer for a pc
 * depends on the FDEs it looked up before (its cache), which the stages
 * and parts change (tests/fuzz/unwind_compile/stages-lying-eh-frame-hdr:
 * the header's address off by 2^62). The seeds (83 runs of real CFI, 4
 * programs whole) give the whole's rows in each of the 20 stages and parts
 * their padding can ask for. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbols/unwind_compile.h"

/* small: a mutated header claims what it likes, the budget holds */
static const struct unwind_budget fuzz_budget = { .max_rows = 1u << 16,
						  .max_cfi_bytes = 1u << 20,
						  .max_seconds = 2.0 };

/* What every table of a compile is held to. */
static void check_table(const struct unwind_table *t)
{
	if (t->nr > fuzz_budget.max_rows + 2)
		abort(); /* past its budget */
	for (size_t i = 1; i < t->nr; i++)
		if (t->rows[i].pc < t->rows[i - 1].pc)
			abort(); /* the BPF side's binary search needs them sorted */
}

/* The compile in parts as stage says, joined. A part refused (its time
 * budget) checks nothing. */
static void check_parts(int fd, struct unwind_stage stage, unsigned int n)
{
	struct unwind_table parts[3], joined;
	enum unwind_refusal why;
	char err[256];
	unsigned int built = 0;

	stage.parts = n;
	for (; built < n; built++) {
		stage.part = built;
		if (unwind_table_build_staged(fd, &fuzz_budget, &stage, &parts[built], &why, err,
					      sizeof(err)))
			break;
	}
	if (built == n && !unwind_table_join(parts, n, &joined)) {
		check_table(&joined);
		unwind_table_free(&joined);
	}
	while (built)
		unwind_table_free(&parts[--built]);
}

/* The staged compiles the input's padding asks for. */
static void check_stages(int fd, const uint8_t *data, size_t size)
{
	uint8_t ask = size >= 16 ? data[15] : 0;
	struct unwind_stage stage = { .defer_over_cfi_bytes = 16u * (size >= 15 ? data[14] : 0) };
	struct unwind_table first, second;
	enum unwind_refusal why;
	char err[256];

	if (!(ask & 1)) {
		if (ask & 2) /* nothing deferred: the parts make the whole */
			check_parts(fd, (struct unwind_stage){ .defer_over_cfi_bytes = UINT32_MAX },
				    ask & 4 ? 3 : 2);
		return;
	}
	if (unwind_table_build_staged(fd, &fuzz_budget, &stage, &first, &why, err, sizeof(err)))
		return;
	check_table(&first);
	if (ask & 2)
		check_parts(fd, stage, ask & 4 ? 3 : 2);
	stage.first = &first;
	if (!unwind_table_build_staged(fd, &fuzz_budget, &stage, &second, &why, err, sizeof(err))) {
		if (second.deferred_fdes)
			abort(); /* the second stage leaves nothing */
		check_table(&second);
		unwind_table_free(&second);
	}
	unwind_table_free(&first);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
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
	if (done == size && !unwind_table_build(fd, &fuzz_budget, &t, &why, err, sizeof(err))) {
		check_table(&t);
		check_stages(fd, data, size);
		unwind_table_free(&t);
	}
	close(fd);
	return 0;
}
