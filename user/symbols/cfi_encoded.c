/* SPDX-License-Identifier: GPL-2.0-only */
/* cfi_encoded.c: the numbers of a CFI section read as libdw reads them:
 * fixed-size and LEB128 integers, and pointers encoded DW_EH_PE_*. */
#include "symbols/cfi_encoded.h"

#include <dwarf.h>

bool cfi_reader_of(Elf *elf, Elf_Data *data, uint64_t vaddr, struct cfi_reader *rd)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);

	if (!ident || !data || !data->d_buf)
		return false;
	rd->data = data;
	rd->vaddr = vaddr;
	rd->address_size = ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
	rd->msb = ident[EI_DATA] == ELFDATA2MSB;
	return true;
}

bool cfi_read_uint(const struct cfi_reader *rd, const uint8_t **p, const uint8_t *end,
		   size_t size, uint64_t *value)
{
	uint64_t v = 0;

	if ((size_t)(end - *p) < size)
		return false;
	for (size_t i = 0; i < size; i++) {
		size_t at = rd->msb ? i : size - 1 - i;

		v = v << 8 | (*p)[at];
	}
	*p += size;
	*value = v;
	return true;
}

bool cfi_read_leb128(const uint8_t **p, const uint8_t *end, bool is_signed, uint64_t *value)
{
	uint64_t v = 0;
	unsigned int shift = 0;
	uint8_t byte;

	do {
		if (*p >= end || shift >= 64)
			return false;
		byte = *(*p)++;
		v |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
	} while (byte & 0x80);
	if (is_signed && shift < 64 && (byte & 0x40))
		v |= ~0ull << shift;
	*value = v;
	return true;
}

bool cfi_skip(const uint8_t **p, const uint8_t *end, uint64_t n)
{
	if ((uint64_t)(end - *p) < n)
		return false;
	*p += n;
	return true;
}

static uint64_t sign_extend(uint64_t v, size_t size)
{
	unsigned int bits = (unsigned int)size * 8;

	return bits < 64 && (v >> (bits - 1)) & 1 ? v | ~0ull << bits : v;
}

size_t cfi_encoded_size(const struct cfi_reader *rd, uint8_t enc)
{
	static const size_t sizes[16] = { [DW_EH_PE_udata2] = 2,  [DW_EH_PE_udata4] = 4,
					  [DW_EH_PE_udata8] = 8,  [DW_EH_PE_sdata2] = 2,
					  [DW_EH_PE_sdata4] = 4,  [DW_EH_PE_sdata8] = 8 };

	return (enc & 0x0f) == DW_EH_PE_absptr ? rd->address_size : sizes[enc & 0x0f];
}

bool cfi_read_encoded(const struct cfi_reader *rd, const uint8_t **p, const uint8_t *end,
		      uint8_t enc, bool apply, uint64_t *value)
{
	const uint8_t *field = *p;
	uint8_t format = enc & 0x0f;
	size_t size;
	bool ok;

	if (enc == DW_EH_PE_omit || (enc & DW_EH_PE_indirect))
		return false;
	if (format == DW_EH_PE_uleb128 || format == DW_EH_PE_sleb128) {
		ok = cfi_read_leb128(p, end, format == DW_EH_PE_sleb128, value);
	} else if ((size = cfi_encoded_size(rd, format))) {
		ok = cfi_read_uint(rd, p, end, size, value);
		if (ok && (format & DW_EH_PE_signed))
			*value = sign_extend(*value, size);
	} else {
		return false;
	}
	if (!ok || !apply)
		return ok;
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_textrel:
	case DW_EH_PE_datarel:
		return true;
	case DW_EH_PE_pcrel:
		*value += rd->vaddr + (uint64_t)(field - (const uint8_t *)rd->data->d_buf);
		return true;
	default: /* funcrel, aligned */
		return false;
	}
}
