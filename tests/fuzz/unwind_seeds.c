/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_seeds.c: writes seeds for fuzz_unwind_compile from real binaries
 * (make does, into the corpus, before each run): small ELF files, each a run
 * of the binary's .eh_frame entries at their own addresses (the CIEs its
 * FDEs name copied in front of it), an .eh_frame_hdr of those FDEs, and the
 * binary's executable segments as addresses only (no bytes). The binaries
 * themselves (libc 1.9 MB, python3 6.8 MB, cc1 33 MB) are cut at the
 * fuzzer's -max_len: their section headers, at the end, are lost, and the
 * compiler refuses what is left as a lying header at once.
 *
 * Usage: unwind_seeds OUT_DIR FILE...
 * A FILE that is missing, not a little-endian ELF64, or without an
 * .eh_frame_hdr of the usual encodings is skipped (said on stderr). Seeds
 * alternate between section headers (.eh_frame_hdr, .eh_frame) and none
 * (PT_GNU_EH_FRAME alone finds the CFI), and set the ELF identification's
 * padding bytes 14 and 15, which choose the staged compiles
 * fuzz_unwind_compile checks against the whole. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What a seed's run of entries holds at most (one longer FDE alone). */
#define CHUNK_BYTES 2048
#define MAX_CHUNKS 24
#define MAX_SEED_BYTES 60000
#define MAX_CIES 16

struct entry {
	size_t off, len; /* in .eh_frame, the length field included */
	size_t cie_off;  /* an FDE's CIE */
	bool cie;
};

/* One binary's CFI, as read. */
struct source {
	const char *name; /* its file's base name */
	GElf_Ehdr eh;
	const uint8_t *frame, *hdr; /* .eh_frame's and .eh_frame_hdr's bytes */
	size_t frame_size, hdr_count;
	uint64_t frame_vaddr, hdr_vaddr;
	struct entry *e;
	size_t nr;
	GElf_Phdr exec[8]; /* the executable PT_LOAD segments */
	size_t nexec;
};

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static Elf_Scn *section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *n;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == SHT_PROGBITS &&
		    (n = elf_strptr(elf, shstrndx, sh->sh_name)) && !strcmp(n, name))
			return scn;
	return NULL;
}

/* The entries of .eh_frame, up to its terminator or the first one not
 * understood (a 64-bit length, an FDE naming no CIE before it). */
static int read_entries(struct source *s)
{
	size_t off = 0, cap = 0;

	while (off + 8 <= s->frame_size) {
		uint32_t len = get32(s->frame + off), id;
		struct entry e = { .off = off };

		if (len == 0 || len == 0xffffffffu || len > s->frame_size - off - 4)
			break;
		e.len = 4 + (size_t)len;
		id = get32(s->frame + off + 4);
		e.cie = id == 0;
		if (!e.cie) {
			if (id > off + 4)
				break;
			e.cie_off = off + 4 - id;
		}
		if (s->nr == cap) {
			struct entry *grown;

			cap = cap ? cap * 2 : 1024;
			grown = realloc(s->e, cap * sizeof(*grown));
			if (!grown)
				return -ENOMEM;
			s->e = grown;
		}
		s->e[s->nr++] = e;
		off += e.len;
	}
	return s->nr ? 0 : -ENOENT;
}

static int read_source(Elf *elf, struct source *s)
{
	GElf_Shdr fsh, hsh;
	Elf_Scn *frame = section(elf, ".eh_frame", &fsh);
	Elf_Scn *hdr = section(elf, ".eh_frame_hdr", &hsh);
	Elf_Data *fd, *hd;
	size_t phnum;

	if (!gelf_getehdr(elf, &s->eh) || s->eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    s->eh.e_ident[EI_DATA] != ELFDATA2LSB || !frame || !hdr ||
	    !(fd = elf_rawdata(frame, NULL)) || !(hd = elf_rawdata(hdr, NULL)) || hd->d_size < 12)
		return -ENOENT;
	s->frame = fd->d_buf;
	s->frame_size = fd->d_size;
	s->frame_vaddr = fsh.sh_addr;
	s->hdr = hd->d_buf;
	s->hdr_vaddr = hsh.sh_addr;
	/* version 1; eh_frame_ptr pcrel sdata4, fde_count udata4, the table
	 * datarel sdata4: what GNU ld and lld write */
	if (memcmp(s->hdr, "\x01\x1b\x03\x3b", 4))
		return -ENOENT;
	s->hdr_count = get32(s->hdr + 8);
	if (s->hdr_count > (hd->d_size - 12) / 8)
		return -ENOENT;
	if (elf_getphdrnum(elf, &phnum))
		return -ENOENT;
	for (size_t i = 0; i < phnum && s->nexec < 8; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
			s->exec[s->nexec++] = ph;
	}
	return s->nexec ? read_entries(s) : -ENOENT;
}

/* A growing file image. */
struct image {
	uint8_t buf[MAX_SEED_BYTES + 4096];
	size_t len;
};

static size_t place(struct image *im, const void *p, size_t n, size_t align)
{
	size_t at = (im->len + align - 1) / align * align;

	memset(im->buf + im->len, 0, at - im->len);
	if (p)
		memcpy(im->buf + at, p, n);
	else
		memset(im->buf + at, 0, n);
	im->len = at + n;
	return at;
}

/* Which seed of the binary this is, and what its padding asks. */
struct variant {
	unsigned int k;
	bool sections;
	uint8_t pad14, pad15;
};

/* Writes the seed of entries [i, j) of s; false if it is not written (too
 * large, or naming too many CIEs). */
static bool write_seed(const char *dir, const struct source *s, size_t i, size_t j,
		       const struct variant *v)
{
	static struct image im;
	size_t cies[MAX_CIES], ncies = 0, cies_len = 0, chunk_off = s->e[i].off;
	size_t run_end = s->e[j - 1].off + s->e[j - 1].len, frame_len, phnum = 2 + s->nexec;
	size_t hdr_at, frame_at, count = 0, table_at, hdr_len;
	static uint8_t frame[MAX_SEED_BYTES], hdr[MAX_SEED_BYTES];
	uint64_t frame_vaddr, hdr_vaddr;
	Elf64_Ehdr eh;
	Elf64_Phdr ph[2 + 8];
	char path[PATH_MAX];
	FILE *f;

	/* the CIEs its FDEs name before the run, in their order */
	for (size_t k = i; k < j; k++) {
		bool known = false;

		if (s->e[k].cie || s->e[k].cie_off >= chunk_off)
			continue;
		for (size_t c = 0; c < ncies; c++)
			known |= cies[c] == s->e[k].cie_off;
		if (known)
			continue;
		if (ncies == MAX_CIES)
			return false;
		cies[ncies++] = s->e[k].cie_off;
	}
	for (size_t c = 1; c < ncies; c++) /* insertion sort: a handful */
		for (size_t d = c; d > 0 && cies[d - 1] > cies[d]; d--) {
			size_t t = cies[d];

			cies[d] = cies[d - 1];
			cies[d - 1] = t;
		}
	frame_len = 0;
	for (size_t c = 0; c < ncies; c++) {
		uint32_t len = get32(s->frame + cies[c]);

		if (cies[c] + 4 + (size_t)len > s->frame_size ||
		    frame_len + 4 + len > sizeof(frame) / 2)
			return false;
		memcpy(frame + frame_len, s->frame + cies[c], 4 + (size_t)len);
		frame_len += 4 + (size_t)len;
	}
	cies_len = frame_len;
	if (frame_len + (run_end - chunk_off) + 4 > sizeof(frame))
		return false;
	memcpy(frame + frame_len, s->frame + chunk_off, run_end - chunk_off);
	frame_len += run_end - chunk_off;
	put32(frame + frame_len, 0); /* the terminator */
	frame_len += 4;
	/* each FDE's CIE pointer: to its CIE's copy where it was before the run */
	for (size_t k = i; k < j; k++) {
		size_t at = cies_len + (s->e[k].off - chunk_off), cie_at = 0;

		if (s->e[k].cie || s->e[k].cie_off >= chunk_off)
			continue;
		for (size_t c = 0; c < ncies; c++) {
			if (cies[c] == s->e[k].cie_off)
				break;
			cie_at += 4 + get32(s->frame + cies[c]);
		}
		put32(frame + at + 4, (uint32_t)(at + 4 - cie_at));
	}
	/* the FDEs at their own addresses: their pcrel locations hold. The
	 * header goes right before them, in their segment (libdw finds the
	 * .eh_frame of a file without sections at the header's own distance
	 * from it in memory and in the file): its table's entries, datarel,
	 * are rebased to it */
	frame_vaddr = s->frame_vaddr + chunk_off - cies_len;
	table_at = 12;
	for (size_t k = 0; k < s->hdr_count; k++) {
		const uint8_t *pair = s->hdr + 12 + 8 * k;
		uint64_t fde = s->hdr_vaddr + (uint64_t)(int64_t)(int32_t)get32(pair + 4);

		if (fde < s->frame_vaddr + chunk_off || fde >= s->frame_vaddr + run_end ||
		    table_at + 8 > sizeof(hdr))
			continue;
		memcpy(hdr + table_at, pair, 8);
		table_at += 8;
		count++;
	}
	hdr_len = (table_at + 7) / 8 * 8;
	memset(hdr + table_at, 0, hdr_len - table_at);
	hdr_vaddr = frame_vaddr - hdr_len;
	memcpy(hdr, "\x01\x1b\x03\x3b", 4);
	put32(hdr + 4, (uint32_t)(int32_t)(frame_vaddr - (hdr_vaddr + 4)));
	put32(hdr + 8, (uint32_t)count);
	for (size_t at = 12; at < table_at; at += 4) {
		uint64_t abs = s->hdr_vaddr + (uint64_t)(int64_t)(int32_t)get32(hdr + at);

		put32(hdr + at, (uint32_t)(int32_t)(abs - hdr_vaddr));
	}

	im.len = 0;
	place(&im, NULL, sizeof(eh), 1);
	place(&im, NULL, phnum * sizeof(ph[0]), 8);
	hdr_at = place(&im, hdr, hdr_len, 8);
	frame_at = place(&im, frame, frame_len, 8);
	if (im.len > MAX_SEED_BYTES || frame_at != hdr_at + hdr_len)
		return false;
	ph[0] = (Elf64_Phdr){ .p_type = PT_GNU_EH_FRAME, .p_flags = PF_R, .p_offset = hdr_at,
			      .p_vaddr = hdr_vaddr, .p_paddr = hdr_vaddr,
			      .p_filesz = table_at, .p_memsz = table_at, .p_align = 4 };
	ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R, .p_offset = hdr_at,
			      .p_vaddr = hdr_vaddr, .p_paddr = hdr_vaddr,
			      .p_filesz = hdr_len + frame_len, .p_memsz = hdr_len + frame_len,
			      .p_align = 1 };
	/* the code's segments as addresses only (no bytes) */
	for (size_t k = 0; k < s->nexec; k++)
		ph[2 + k] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X,
					  .p_vaddr = s->exec[k].p_vaddr,
					  .p_paddr = s->exec[k].p_vaddr,
					  .p_memsz = s->exec[k].p_memsz, .p_align = 1 };
	memcpy(im.buf + sizeof(eh), ph, phnum * sizeof(ph[0]));

	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, s->eh.e_ident, EI_NIDENT);
	eh.e_ident[14] = v->pad14;
	eh.e_ident[15] = v->pad15;
	eh.e_type = s->eh.e_type;
	eh.e_machine = s->eh.e_machine;
	eh.e_version = EV_CURRENT;
	eh.e_entry = s->eh.e_entry;
	eh.e_phoff = sizeof(eh);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = (Elf64_Half)phnum;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	if (v->sections) {
		static const char names[] = "\0.shstrtab\0.eh_frame_hdr\0.eh_frame";
		Elf64_Shdr sh[4];
		size_t names_at = place(&im, names, sizeof(names), 1);

		memset(sh, 0, sizeof(sh));
		sh[1] = (Elf64_Shdr){ .sh_name = 11, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC,
				      .sh_addr = hdr_vaddr, .sh_offset = hdr_at,
				      .sh_size = table_at, .sh_addralign = 4 };
		sh[2] = (Elf64_Shdr){ .sh_name = 25, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC,
				      .sh_addr = frame_vaddr, .sh_offset = frame_at,
				      .sh_size = frame_len, .sh_addralign = 8 };
		sh[3] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_STRTAB, .sh_offset = names_at,
				      .sh_size = sizeof(names), .sh_addralign = 1 };
		eh.e_shoff = place(&im, sh, sizeof(sh), 8);
		eh.e_shnum = 4;
		eh.e_shstrndx = 3;
	}
	memcpy(im.buf, &eh, sizeof(eh));

	snprintf(path, sizeof(path), "%s/seed-cfi-%s-%02u%s", dir, s->name, v->k,
		 v->sections ? "-sh" : "");
	f = fopen(path, "wb");
	if (!f || fwrite(im.buf, 1, im.len, f) != im.len || fclose(f)) {
		fprintf(stderr, "unwind_seeds: cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return true;
}

/* Entries [i, j) of about CHUNK_BYTES from entry i (at least one). */
static size_t chunk_end(const struct source *s, size_t i)
{
	size_t j = i, bytes = 0;

	while (j < s->nr && (j == i || bytes + s->e[j].len <= CHUNK_BYTES))
		bytes += s->e[j++].len;
	return j;
}

static unsigned int seeds_of(const char *dir, struct source *s)
{
	/* FDEs over 16 * pad14 bytes of CFI are deferred: every one (0), the
	 * usual (2, 4, 8: 32 to 128 bytes), cc1's long ones (128: 2048) */
	static const uint8_t defer[] = { 0, 2, 4, 8, 128 };
	size_t chunks = s->frame_size / CHUNK_BYTES + 1, longest = 0;
	unsigned int written = 0, k = 0;

	if (chunks > MAX_CHUNKS)
		chunks = MAX_CHUNKS;
	for (size_t i = 0; i < s->nr; i++)
		if (!s->e[i].cie && s->e[i].len > s->e[longest].len)
			longest = i;
	for (size_t c = 0; c <= chunks; c++, k++) {
		/* evenly over the section, then one from its longest FDE on */
		size_t target = s->frame_size / chunks * c, i = longest;
		struct variant v = { .k = k, .sections = k & 1, .pad14 = defer[k % sizeof(defer)],
				     .pad15 = (uint8_t)(k % 8) };

		if (c < chunks)
			for (i = 0; i < s->nr && s->e[i].off < target; i++)
				;
		if (i < s->nr)
			written += write_seed(dir, s, i, chunk_end(s, i), &v);
	}
	return written;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: unwind_seeds OUT_DIR FILE...\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	for (int a = 2; a < argc; a++) {
		struct source s = { 0 };
		const char *slash = strrchr(argv[a], '/');
		int fd = open(argv[a], O_RDONLY | O_CLOEXEC);
		Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);

		s.name = slash ? slash + 1 : argv[a];
		if (!elf || read_source(elf, &s))
			fprintf(stderr, "unwind_seeds: %s skipped (missing, or no .eh_frame_hdr read here)\n",
				argv[a]);
		else
			printf("unwind_seeds: %u seeds of %s's %zu CFI entries\n", seeds_of(argv[1], &s),
			       argv[a], s.nr);
		free(s.e);
		if (elf)
			elf_end(elf);
		if (fd >= 0)
			close(fd);
	}
	return 0;
}
