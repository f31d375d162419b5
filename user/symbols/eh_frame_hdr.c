/* SPDX-License-Identifier: GPL-2.0-only */
/* eh_frame_hdr.c: what a file's .eh_frame_hdr tells libdw, checked against
 * what the compile read: where .eh_frame is (in a file without section
 * headers), and the FDE its search table sends each pc to.
 *
 * Each header is read as libdw's parse_eh_frame_hdr reads it (elfutils
 * 0.188): version 1, then eh_frame_ptr, fde_count and the table, pointers
 * relative to the header (pcrel: to the field, datarel: to its start). A
 * table libdw searches names, for a pc, the offset in .eh_frame of an FDE;
 * libdw reads and runs the FDE there, whether or not one starts there. */
#include "symbols/eh_frame_hdr.h"
#include <dwarf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include "lib/log.h"
#include "lib/sorted_count.h"
#include "symbols/cfi_encoded.h"
#include "symbols/unwind_elf.h"

/* One header's fields. */
struct hdr_fields {
	uint64_t eh_frame;    /* eh_frame_ptr */
	const uint8_t *table; /* NULL: no table libdw searches */
	uint64_t entries;
	uint8_t table_encoding;
};

/* libdw reads a header's 2-byte values in the host's byte order, not the
 * file's (its dummy CFI has no other_byte_order): not read here. */
static bool two_bytes(uint8_t enc)
{
	return (enc & 0x07) == DW_EH_PE_udata2;
}

/* A pointer of the header as libdw reads it: datarel from its start. */
static bool hdr_pointer(const struct cfi_reader *rd, const uint8_t **p, const uint8_t *end,
			uint8_t enc, uint64_t *value)
{
	if (two_bytes(enc) || !cfi_read_encoded(rd, p, end, enc, true, value))
		return false;
	if ((enc & 0x70) == DW_EH_PE_datarel)
		*value += rd->vaddr;
	return true;
}

/* The fields of the header rd reads. UNWIND_BUILT (no eh_frame_ptr if
 * libdw takes no CFI through it: *has_eh_frame false), or
 * UNWIND_UNKNOWN_CFI. */
static enum unwind_refusal hdr_parse(const struct cfi_reader *rd, struct hdr_fields *f,
				     bool *has_eh_frame, char *err, size_t errlen)
{
	const uint8_t *b = rd->data->d_buf, *end = b + rd->data->d_size, *p = b + 4;
	uint64_t count;

	*f = (struct hdr_fields){ 0 };
	*has_eh_frame = false;
	if (rd->data->d_size < 4 || b[0] != 1 || b[1] == DW_EH_PE_omit)
		return UNWIND_BUILT; /* libdw: invalid, no CFI */
	if (!hdr_pointer(rd, &p, end, b[1], &f->eh_frame) ||
	    (b[2] != DW_EH_PE_omit && !hdr_pointer(rd, &p, end, b[2], &count))) {
		rt_format(err, errlen,
			  "an .eh_frame_hdr's pointers are encoded 0x%02x, 0x%02x, not as "
			  "linkers write them: not read as libdw would",
			  b[1], b[2]);
		return UNWIND_UNKNOWN_CFI;
	}
	*has_eh_frame = true;
	f->table_encoding = b[3];
	if (b[2] == DW_EH_PE_omit || !count || b[3] == DW_EH_PE_omit ||
	    (b[3] & ~DW_EH_PE_signed) == DW_EH_PE_uleb128)
		return UNWIND_BUILT; /* no table: libdw reads the FDEs in order */
	f->table = p;
	f->entries = count;
	return UNWIND_BUILT;
}

/* The bytes of a table value encoded enc, 0 for an encoding libdw reads
 * otherwise than here (pcrel from the table's start, not the header's;
 * 2 bytes in the host's order). */
static size_t table_value_size(const struct cfi_reader *rd, uint8_t enc)
{
	uint8_t application = enc & 0x70;

	if ((enc & DW_EH_PE_indirect) || two_bytes(enc) ||
	    (application != DW_EH_PE_absptr && application != DW_EH_PE_datarel &&
	     application != DW_EH_PE_textrel))
		return 0;
	return cfi_encoded_size(rd, enc);
}

static bool fde_starts_at(const struct cfi_fde_starts *starts, uint64_t offset)
{
	size_t n = sorted_count_at_or_below(starts->v, starts->nr, sizeof(*starts->v), 0, offset);

	return n && starts->v[n - 1] == offset;
}

/* Whether every entry of f's table (in the header rd reads) names an FDE
 * of starts, the .eh_frame at eh_frame. */
static enum unwind_refusal table_check(const struct cfi_reader *rd, const struct hdr_fields *f,
				       uint64_t eh_frame, const struct cfi_fde_starts *starts,
				       char *err, size_t errlen)
{
	const uint8_t *end = (const uint8_t *)rd->data->d_buf + rd->data->d_size;
	size_t size = table_value_size(rd, f->table_encoding);
	uint8_t format = f->table_encoding & 0x0f;

	if (!size) {
		rt_format(err, errlen,
			  "an .eh_frame_hdr's table is encoded 0x%02x, not as linkers write "
			  "it: not read as libdw would",
			  f->table_encoding);
		return UNWIND_UNKNOWN_CFI;
	}
	if (f->entries > (uint64_t)(end - f->table) / size / 2)
		return UNWIND_BUILT; /* libdw: invalid, no CFI */
	if (f->entries > starts->nr) {
		rt_format(err, errlen,
			  "an .eh_frame_hdr's table has %" PRIu64 " entries for %zu FDEs",
			  f->entries, starts->nr);
		return UNWIND_LYING_HEADER;
	}
	for (uint64_t i = 0; i < f->entries; i++) {
		const uint8_t *p = f->table + (i * 2 + 1) * size;
		uint64_t fde;

		if (!cfi_read_encoded(rd, &p, end, format, false, &fde))
			return UNWIND_BUILT; /* not reached: the table fits */
		if ((f->table_encoding & 0x70) == DW_EH_PE_datarel)
			fde += rd->vaddr;
		if (!fde_starts_at(starts, fde - eh_frame)) {
			rt_format(err, errlen,
				  "entry %" PRIu64 " of an .eh_frame_hdr's table names .eh_frame "
				  "offset %#" PRIx64 ", where no FDE starts",
				  i, fde - eh_frame);
			return UNWIND_LYING_HEADER;
		}
	}
	return UNWIND_BUILT;
}

/* The header of PT_GNU_EH_FRAME (the first, as libdw takes it). */
static bool segment_header(Elf *elf, GElf_Phdr *ph, struct cfi_reader *rd)
{
	size_t phnum;

	if (elf_getphdrnum(elf, &phnum))
		return false;
	for (size_t i = 0; i < phnum; i++) {
		Elf_Data *data;

		if (!gelf_getphdr(elf, (int)i, ph) || ph->p_type != PT_GNU_EH_FRAME)
			continue;
		data = elf_getdata_rawchunk(elf, (int64_t)ph->p_offset, ph->p_filesz, ELF_T_BYTE);
		return cfi_reader_of(elf, data, ph->p_vaddr, rd);
	}
	return false;
}

enum unwind_refusal eh_frame_hdr_eh_frame(Elf *elf, struct cfi_section *sec, char *err,
					  size_t errlen)
{
	enum unwind_refusal why;
	struct hdr_fields f;
	struct cfi_reader rd;
	GElf_Phdr hdr, ph;
	size_t phnum, file_size;
	bool has_eh_frame;
	uint64_t at;

	if (!segment_header(elf, &hdr, &rd) || elf_getphdrnum(elf, &phnum))
		return UNWIND_BUILT;
	why = hdr_parse(&rd, &f, &has_eh_frame, err, errlen);
	if (why != UNWIND_BUILT || !has_eh_frame)
		return why;
	/* where libdw reads it: by the header's segment's offset */
	at = f.eh_frame - hdr.p_vaddr + hdr.p_offset;
	for (size_t i = 0; i < phnum; i++) {
		uint64_t in;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    f.eh_frame < ph.p_vaddr || (in = f.eh_frame - ph.p_vaddr) >= ph.p_filesz)
			continue;
		if (ph.p_offset + in != at) {
			rt_format(err, errlen,
				  "PT_GNU_EH_FRAME puts .eh_frame at file offset %#" PRIx64
				  ", its PT_LOAD at %#" PRIx64,
				  at, ph.p_offset + in);
			return UNWIND_LYING_HEADER;
		}
		/* read to the file's end, as libdw does (its walk may go past
		 * the segment): all of it counts against the budget */
		if (!elf_rawfile(elf, &file_size) || at >= file_size)
			return UNWIND_BUILT;
		sec->data = elf_getdata_rawchunk(elf, (int64_t)at, file_size - at, ELF_T_BYTE);
		sec->vaddr = f.eh_frame;
		sec->budget_bytes = file_size - at; /* what libdw may read */
		sec->of_segments = true;
		return UNWIND_BUILT;
	}
	return UNWIND_BUILT;
}

/* Checks the header rd reads, if libdw may search its table for the
 * .eh_frame at eh_frame (a section's header: only if it points there). */
static enum unwind_refusal header_check(const struct cfi_reader *rd, uint64_t eh_frame,
					bool section, const struct cfi_fde_starts *starts,
					char *err, size_t errlen)
{
	enum unwind_refusal why;
	struct hdr_fields f;
	bool has_eh_frame;

	why = hdr_parse(rd, &f, &has_eh_frame, err, errlen);
	if (why != UNWIND_BUILT || !f.table || (section && f.eh_frame != eh_frame))
		return why;
	return table_check(rd, &f, eh_frame, starts, err, errlen);
}

enum unwind_refusal eh_frame_hdr_check(Elf *elf, const struct cfi_section *eh_frame,
				       const struct cfi_fde_starts *starts, char *err,
				       size_t errlen)
{
	enum unwind_refusal why = UNWIND_BUILT;
	struct cfi_reader rd;
	Elf_Scn *scn = NULL;
	GElf_Phdr ph;

	if (eh_frame->of_segments)
		return segment_header(elf, &ph, &rd)
			       ? header_check(&rd, eh_frame->vaddr, false, starts, err, errlen)
			       : UNWIND_BUILT;
	/* every section of the name: libdw 0.188 takes the last before
	 * .eh_frame, later ones take one after it too (one without bytes,
	 * none: libdw reads no table from it) */
	while (why == UNWIND_BUILT && (scn = unwind_elf_next_section(elf, scn, ".eh_frame_hdr"))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && cfi_reader_of(elf, elf_rawdata(scn, NULL), sh.sh_addr, &rd))
			why = header_check(&rd, eh_frame->vaddr, true, starts, err, errlen);
	}
	return why;
}
