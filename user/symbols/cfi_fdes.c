/* SPDX-License-Identifier: GPL-2.0-only */
/* cfi_fdes.c: the code ranges every FDE of an .eh_frame or .debug_frame
 * section describes, sorted, and the two sections' ranges combined.
 *
 * libdw walks a CFI section's CIEs and FDEs (dwarf_next_cfi) but has no
 * public way to give an FDE's decoded initial_location and address_range
 * (dwarf_cfi_addrframe only answers for one pc): so the pointer encodings of
 * those two fields (the CIE's 'R' augmentation) are decoded here, as libdw
 * decodes them, or the file refused. And libdw trusts the instructions it
 * runs (a register number makes a frame that large): each FDE's are walked
 * once, for their operands' sizes, register numbers and remembered states
 * only, before libdw is asked for its rows. The rows themselves are
 * libdw's. */
#include "symbols/cfi_fdes.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash_map.h"
#include "symbols/cfi_demand.h"
#include "symbols/cfi_encoded.h"

/* The encoding of the FDEs of cie (its 'R' augmentation) as libdw's
 * intern_new_cie takes it (the last 'R' of the string, absptr without
 * one), or -1 if its augmentation is not one read here as libdw reads it:
 * a letter neither knows (libdw skips it in a 'z' string and reads on),
 * 'z' not first, data past its end. */
static int fde_encoding(const struct cfi_reader *rd, const Dwarf_CIE *cie)
{
	const char *aug = cie->augmentation;
	const uint8_t *p = cie->augmentation_data;
	const uint8_t *end = p ? p + cie->augmentation_data_size : NULL;
	int encoding = DW_EH_PE_absptr;

	if (!aug || aug[0] == '\0')
		return DW_EH_PE_absptr;
	if (aug[0] != 'z' || !p)
		return -1;
	for (aug++; *aug; aug++) {
		uint64_t personality;
		uint8_t enc;

		switch (*aug) {
		case 'R':
			if (p >= end)
				return -1;
			encoding = *p++;
			break;
		case 'L':
			if (p++ >= end)
				return -1;
			break;
		case 'P':
			if (p >= end)
				return -1;
			enc = *p++;
			enc &= ~DW_EH_PE_indirect; /* the pointer's own bytes are all we skip */
			/* libdw's encoded_value_size ends a LEB128 at its first
			 * byte with bit 7 set, not its last: it would read
			 * another 'R' */
			if ((enc & 0x70) == DW_EH_PE_aligned || (enc & 0x07) == DW_EH_PE_uleb128 ||
			    !cfi_read_encoded(rd, &p, end, enc, false, &personality))
				return -1;
			break;
		case 'S': /* a signal frame */
		case 'B': /* AArch64 BTI: no data, skipped by libdw as unknown */
			break;
		default:
			return -1;
		}
	}
	return encoding;
}

/* What libdw is let run of one FDE (cfi_demand.h says the rest): the
 * largest FDE of chromium is 1.7 KB, and libdw runs the instructions from
 * the start for each row. */
#define CFI_MAX_FDE_BYTES (64u << 10)
/* Expression bytes a file's FDEs may have in all: libdw interns each CFA or
 * register expression a row uses as 32 bytes per operation, kept until the
 * CFI is freed. */
#define CFI_MAX_FILE_EXPRESSION_BYTES (1u << 20)
/* The walk asks go_on at least every this many bytes it walked (a CIE's
 * instructions are walked again when its cache slot was taken). */
#define CFI_WALK_CHECK_BYTES (16u << 10)
/* libdw caches each CIE's initial state, a frame of 88 bytes and 8 a
 * register up to the largest it names, with the CIE and their tree nodes,
 * until the CFI is freed: 1.2 KB for a 15-byte CIE naming register 127.
 * A file's CIEs keep this much at most (each charged once, by its offset). */
#define CFI_CIE_STATE_BYTES(max_register) (256u + 8u * ((max_register) + 1))
#define CFI_MAX_FILE_CIE_STATE_BYTES (32u << 20)

/* What an FDE needs of its CIE. */
struct cie_facts {
	bool found;   /* a CIE is there (libdw reads no FDE naming another) */
	int encoding; /* of the FDEs' addresses; -1 not understood */
	bool z;       /* the FDEs have augmentation data to skip */
	size_t bytes; /* of initial instructions */
	struct cfi_demand demand;
	bool charged; /* its state counted in the file's (known since cached here) */
};

/* The CIE at offset: the last few looked up are kept (a file has a handful
 * of CIEs, each FDE names one). */
struct cie_cache {
	struct {
		Dwarf_Off offset;
		struct cie_facts facts;
		bool valid;
	} slot[8];
	unsigned int next;
	uint64_t walked; /* bytes of instructions walked since go_on was asked */
};

static struct cie_facts *cie_at(const struct cfi_reader *rd, const unsigned char *ident,
				Elf_Data *data, bool eh_frame, Dwarf_Off offset,
				struct cie_cache *cache)
{
	struct cie_facts *f;
	Dwarf_CFI_Entry entry;
	Dwarf_Off next;
	unsigned int i;

	for (i = 0; i < 8; i++)
		if (cache->slot[i].valid && cache->slot[i].offset == offset)
			return &cache->slot[i].facts;
	i = cache->next++ % 8;
	cache->slot[i].offset = offset;
	cache->slot[i].valid = true;
	f = &cache->slot[i].facts;
	*f = (struct cie_facts){ .encoding = -1 };
	if (dwarf_next_cfi(ident, data, eh_frame, offset, &next, &entry) ||
	    !dwarf_cfi_cie_p(&entry))
		return f;
	f->found = true;
	f->encoding = eh_frame ? fde_encoding(rd, &entry.cie) : DW_EH_PE_absptr;
	if (!eh_frame && entry.cie.augmentation && entry.cie.augmentation[0])
		f->encoding = -1; /* .debug_frame's addresses are absolute, its CIEs plain */
	f->z = entry.cie.augmentation && entry.cie.augmentation[0] == 'z';
	f->bytes = (size_t)(entry.cie.initial_instructions_end - entry.cie.initial_instructions);
	/* the whole entry read: its augmentation string too */
	cache->walked += next - offset;
	if (f->bytes > CFI_MAX_FDE_BYTES) { /* every FDE naming it is left out */
		f->demand.unreadable = true;
		return f;
	}
	cfi_demands(rd, entry.cie.initial_instructions, entry.cie.initial_instructions_end,
		    f->encoding < 0 ? 0 : (uint8_t)f->encoding, &f->demand);
	return f;
}

/* v (of *cap elements of size bytes, nr used) with room for one more:
 * itself, or grown (*cap too); NULL without memory (v stays). */
static void *room_for_one(void *v, size_t *cap, size_t nr, size_t size)
{
	size_t more = *cap ? *cap * 2 : 256;
	void *grown;

	if (nr < *cap)
		return v;
	grown = realloc(v, more * size);
	if (grown)
		*cap = more;
	return grown;
}

static int push_range(struct cfi_fde_ranges *out, const struct cfi_fde_range *r)
{
	struct cfi_fde_range *v = room_for_one(out->v, &out->cap, out->nr, sizeof(*v));

	if (!v)
		return -ENOMEM;
	out->v = v;
	out->v[out->nr++] = *r;
	return 0;
}

static int push_start(struct cfi_fde_starts *starts, uint64_t offset)
{
	uint64_t *v = room_for_one(starts->v, &starts->cap, starts->nr, sizeof(*v));

	if (!v)
		return -ENOMEM;
	starts->v = v;
	starts->v[starts->nr++] = offset;
	return 0;
}

/* What fde_range found of an FDE. */
enum fde_kind {
	FDE_EMPTY, /* no range, or no CIE: libdw skips it too */
	FDE_REASONABLE,
	FDE_UNREASONABLE, /* its range read, but it asks more of libdw than is reasonable */
	FDE_UNDECODABLE,  /* its range not read here as libdw may read it */
};

/* The range an FDE describes, whether libdw may be asked for its rows, and
 * the bytes of the expressions its rows use (*expression_bytes). */
static enum fde_kind fde_range(const struct cfi_reader *rd, const Dwarf_FDE *fde,
			       const struct cie_facts *cie, bool eh_frame, struct cfi_fde_range *r,
			       uint64_t *expression_bytes)
{
	struct cfi_demand demand = cie->demand;
	const uint8_t *p = fde->start;
	uint8_t enc = (uint8_t)cie->encoding;
	uint64_t size, augmentation;

	if (!cie->found)
		return FDE_EMPTY;
	if (cie->encoding < 0 || !cfi_read_encoded(rd, &p, fde->end, enc, eh_frame, &r->lo) ||
	    !cfi_read_encoded(rd, &p, fde->end, enc & 0x0f, false, &size))
		return FDE_UNDECODABLE;
	r->hi = r->lo + size; /* in 64 bits, as libdw adds them */
	r->source = eh_frame ? CFI_EH_FRAME : CFI_DEBUG_FRAME;
	if (r->hi <= r->lo)
		return FDE_EMPTY;
	if (cie->z && (!cfi_read_leb128(&p, fde->end, false, &augmentation) ||
		       !cfi_skip(&p, fde->end, augmentation)))
		return FDE_UNREASONABLE;
	if (cie->bytes + (size_t)(fde->end - p) > CFI_MAX_FDE_BYTES)
		return FDE_UNREASONABLE;
	cfi_demands(rd, p, fde->end, enc, &demand);
	*expression_bytes = demand.expression_bytes;
	if (!cfi_demand_within_reason(&demand))
		return FDE_UNREASONABLE;
	r->cfi_bytes = (uint32_t)(cie->bytes + (size_t)(fde->end - p));
	return FDE_REASONABLE;
}

static int cmp_fde_range(const void *a, const void *b)
{
	const struct cfi_fde_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

/* Whether [lo, hi) overlaps a range of refused (sorted by lo, each ending
 * past the ones before it ends: see drop_overlapping). */
static bool overlaps_any(const struct cfi_fde_ranges *refused, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = refused->nr;

	/* the first refused range that ends past lo */
	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (refused->v[m].hi <= lo)
			a = m + 1;
		else
			b = m;
	}
	return a < refused->nr && refused->v[a].lo < hi;
}

/* Drops from out every range that overlaps one of refused (FDEs libdw must
 * not run): for a pc both cover, libdw may take either (its lookup, by
 * .eh_frame_hdr's table or its own, finds an FDE that covers the pc, not
 * the one read here), and run the refused one's instructions. refused is
 * sorted and made to end in order here. */
static void drop_overlapping(struct cfi_fde_ranges *out, struct cfi_fde_ranges *refused)
{
	uint64_t end = 0;
	size_t n = 0;

	if (!refused->nr)
		return;
	qsort(refused->v, refused->nr, sizeof(refused->v[0]), cmp_fde_range);
	/* each refused range made to end at least where those before it end
	 * (a range inside an earlier one stretched to its end): their ends
	 * sorted, for the search */
	for (size_t i = 0; i < refused->nr; i++) {
		if (refused->v[i].hi < end)
			refused->v[i].hi = end;
		end = refused->v[i].hi;
	}
	for (size_t i = 0; i < out->nr; i++)
		if (!overlaps_any(refused, out->v[i].lo, out->v[i].hi))
			out->v[n++] = out->v[i];
	out->nr = n;
}

/* Refuses (adds to refused) the ranges of out that overlap another of
 * out: libdw's cache of FDEs takes two that overlap for the same (tsearch
 * by compare_fde), so for a pc in one it may answer with the other and read
 * on past both. No binary of this machine has two. */
static enum unwind_refusal refuse_overlapping(struct cfi_fde_ranges *out,
					      struct cfi_fde_ranges *refused)
{
	uint64_t end = 0;

	if (!out->nr)
		return UNWIND_BUILT;
	qsort(out->v, out->nr, sizeof(out->v[0]), cmp_fde_range);
	for (size_t i = 0; i < out->nr; i++) {
		bool before = i && out->v[i].lo < end;
		bool after = i + 1 < out->nr && out->v[i].hi > out->v[i + 1].lo;

		if (out->v[i].hi > end)
			end = out->v[i].hi;
		if ((before || after) && push_range(refused, &out->v[i]))
			return UNWIND_NO_MEMORY;
	}
	return UNWIND_BUILT;
}

/* Counts the state libdw keeps for the CIE at offset in the file's, once
 * however often its cache slot was taken since (charged holds the offsets
 * counted): 1 if counted (now or before), 0 if it does not fit in what is
 * left, -ENOMEM. */
static int charge_cie_state(struct hash_map *charged, Dwarf_Off offset, struct cie_facts *cie,
			    uint64_t *file_cie_states)
{
	uint64_t bytes = CFI_CIE_STATE_BYTES(cie->demand.max_register), *key;

	if (!hash_map_get(charged, &offset)) {
		if (*file_cie_states + bytes > CFI_MAX_FILE_CIE_STATE_BYTES)
			return 0;
		key = malloc(sizeof(*key));
		if (!key)
			return -ENOMEM;
		*key = offset;
		if (hash_map_put(charged, key, key)) {
			free(key);
			return -ENOMEM;
		}
		*file_cie_states += bytes;
	}
	cie->charged = true;
	return 1;
}

enum unwind_refusal cfi_fdes_collect(Elf *elf, const struct cfi_section *sec, bool eh_frame,
				     size_t max_fdes, cfi_fdes_go_on go_on, void *arg,
				     struct cfi_fde_ranges *out, struct cfi_fde_starts *starts)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	struct cie_cache cache = { .next = 0 };
	struct cfi_fde_ranges refused = { 0 };
	Elf_Data *data = sec->data;
	enum unwind_refusal why = UNWIND_BUILT;
	Dwarf_Off offset = 0, next;
	size_t entries = 0, fdes = 0;
	uint64_t file_expressions = 0, file_cie_states = 0;
	struct hash_map charged; /* of CIE offsets: their states counted */
	struct cfi_reader rd;

	if (!cfi_reader_of(elf, data, sec->vaddr, &rd))
		return UNWIND_BUILT;
	hash_map_init(&charged, hash_u64_key, equal_u64_key);
	for (;;) {
		Dwarf_CFI_Entry entry;
		struct cie_facts *cie;
		uint64_t expressions = 0;
		Dwarf_Off at = offset;
		struct cfi_fde_range r;
		enum fde_kind kind;
		int got;

		/* 1 at the end (or .eh_frame's zero terminator); -1 at an entry
		 * libdw cannot read, skipped if its length was read, as libdw's
		 * search reads on past it (__libdw_find_fde) */
		next = offset;
		got = dwarf_next_cfi(ident, data, eh_frame, offset, &next, &entry);
		if (got > 0 || next <= offset)
			break;
		cache.walked += next - offset;
		offset = next;
		if (++entries % 256 == 0 || cache.walked >= CFI_WALK_CHECK_BYTES) {
			cache.walked = 0;
			if ((why = go_on(arg)) != UNWIND_BUILT)
				break;
		}
		if (got < 0 || dwarf_cfi_cie_p(&entry))
			continue;
		if (++fdes > max_fdes) {
			why = UNWIND_OVER_ROWS;
			break;
		}
		if (starts && push_start(starts, at)) {
			why = UNWIND_NO_MEMORY;
			break;
		}
		cie = cie_at(&rd, ident, data, eh_frame, entry.fde.CIE_pointer, &cache);
		kind = fde_range(&rd, &entry.fde, cie, eh_frame, &r, &expressions);
		/* the file's expressions, as libdw keeps them interned */
		if (kind == FDE_REASONABLE &&
		    (file_expressions += expressions) > CFI_MAX_FILE_EXPRESSION_BYTES)
			kind = FDE_UNREASONABLE;
		/* the CIE's initial state, as libdw keeps it */
		if (kind == FDE_REASONABLE && !cie->charged) {
			int counted = charge_cie_state(&charged, entry.fde.CIE_pointer, cie,
						       &file_cie_states);

			if (counted < 0) {
				why = UNWIND_NO_MEMORY;
				break;
			}
			if (!counted)
				kind = FDE_UNREASONABLE;
		}
		if (kind == FDE_UNDECODABLE) {
			why = UNWIND_UNKNOWN_CFI;
			break;
		}
		if (kind != FDE_EMPTY && push_range(kind == FDE_REASONABLE ? out : &refused, &r)) {
			why = UNWIND_NO_MEMORY;
			break;
		}
	}
	if (why == UNWIND_BUILT)
		why = refuse_overlapping(out, &refused);
	drop_overlapping(out, &refused);
	cfi_fdes_free(&refused);
	hash_map_free_all(&charged);
	return why;
}

void cfi_fdes_sort(struct cfi_fde_ranges *ranges)
{
	size_t n = 0;
	uint64_t end = 0;

	if (ranges->nr)
		qsort(ranges->v, ranges->nr, sizeof(ranges->v[0]), cmp_fde_range);
	for (size_t i = 0; i < ranges->nr; i++) {
		struct cfi_fde_range r = ranges->v[i];

		if (n && r.lo < end)
			r.lo = end;
		if (r.lo >= r.hi)
			continue;
		ranges->v[n++] = r;
		end = r.hi;
	}
	ranges->nr = n;
}

int cfi_fdes_combine(struct cfi_fde_ranges *eh, const struct cfi_fde_ranges *debug)
{
	struct cfi_fde_ranges out = { 0 };
	size_t first = 0;

	if (!debug->nr)
		return 0;
	for (size_t i = 0; i < debug->nr; i++) {
		struct cfi_fde_range piece = debug->v[i];
		uint64_t hi = piece.hi;

		/* eh's ranges before this one end before it, for every later one too */
		while (first < eh->nr && eh->v[first].hi <= piece.lo)
			first++;
		for (size_t k = first; k < eh->nr && eh->v[k].lo < hi; k++) {
			if (eh->v[k].lo > piece.lo) {
				piece.hi = eh->v[k].lo;
				if (push_range(&out, &piece))
					goto oom;
			}
			if (eh->v[k].hi > piece.lo)
				piece.lo = eh->v[k].hi;
		}
		piece.hi = hi;
		if (piece.lo < piece.hi && push_range(&out, &piece))
			goto oom;
	}
	for (size_t i = 0; i < eh->nr; i++)
		if (push_range(&out, &eh->v[i]))
			goto oom;
	cfi_fdes_sort(&out);
	cfi_fdes_free(eh);
	*eh = out;
	return 0;
oom:
	cfi_fdes_free(&out);
	return -ENOMEM;
}

void cfi_fdes_free(struct cfi_fde_ranges *ranges)
{
	free(ranges->v);
	memset(ranges, 0, sizeof(*ranges));
}

void cfi_fde_starts_free(struct cfi_fde_starts *starts)
{
	free(starts->v);
	memset(starts, 0, sizeof(*starts));
}
