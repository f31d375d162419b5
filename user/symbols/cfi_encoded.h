/* SPDX-License-Identifier: GPL-2.0-only */
/* cfi_encoded.h: the numbers of a CFI section (.eh_frame, .eh_frame_hdr,
 * .debug_frame) read as libdw reads them: fixed-size and LEB128 integers,
 * and pointers encoded DW_EH_PE_*. */
#ifndef RINGTRACE_CFI_ENCODED_H
#define RINGTRACE_CFI_ENCODED_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How a section's numbers are read. */
struct cfi_reader {
	const Elf_Data *data;
	uint64_t vaddr; /* of data's first byte: pcrel is relative to a field's */
	size_t address_size;
	bool msb;
};

/* A reader of data, whose first byte is at vaddr, in elf's byte order;
 * false if there are no bytes. */
bool cfi_reader_of(Elf *elf, Elf_Data *data, uint64_t vaddr, struct cfi_reader *rd);

/* An unsigned integer of size bytes at *p (before end), *p moved past it. */
bool cfi_read_uint(const struct cfi_reader *rd, const uint8_t **p, const uint8_t *end,
		   size_t size, uint64_t *value);

/* The bytes of a value of enc's format (DW_EH_PE_*: absptr the address's
 * size), 0 for LEB128 or a format libdw does not read either. */
size_t cfi_encoded_size(const struct cfi_reader *rd, uint8_t enc);

bool cfi_read_leb128(const uint8_t **p, const uint8_t *end, bool is_signed, uint64_t *value);

/* *p moved past n bytes, if they are there before end. */
bool cfi_skip(const uint8_t **p, const uint8_t *end, uint64_t n);

/* A pointer encoded as enc (DW_EH_PE_*) at *p. With apply, its application
 * counts: pcrel adds the field's own address; textrel and datarel add 0
 * (the bases libdw gives .eh_frame: a header's datarel base is the
 * caller's to add). Without, only its format. false for an encoding read
 * here otherwise than libdw would (indirect, aligned, funcrel), or bytes
 * past end. */
bool cfi_read_encoded(const struct cfi_reader *rd, const uint8_t **p, const uint8_t *end,
		      uint8_t enc, bool apply, uint64_t *value);

#endif
