/* SPDX-License-Identifier: GPL-2.0-only */
/* eh_frame_segment.c: where a file's .eh_frame_hdr is mapped beside its code,
 * from its program headers (libelf, read with pread). */
#include "symbols/eh_frame_segment.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/mman.h>
#include "symbols/elf_open.h"

#define PAGE 4096ULL

static uint64_t page_down(uint64_t a)
{
	return a & ~(PAGE - 1);
}

static uint64_t page_up(uint64_t a)
{
	return (a + PAGE - 1) & ~(PAGE - 1);
}

static bool holds(const GElf_Phdr *load, uint64_t vaddr)
{
	return vaddr >= load->p_vaddr && vaddr - load->p_vaddr < load->p_filesz;
}

/* The program headers of elf: the PT_GNU_EH_FRAME's load segment, and the
 * executable one, into g. */
static int read_headers(Elf *elf, struct eh_frame_segment *g)
{
	GElf_Phdr hdr, exec = { 0 }, table = { 0 };
	size_t n;
	bool have_table = false, have_exec = false;

	if (elf_getphdrnum(elf, &n))
		return -ENOEXEC;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, &hdr) && hdr.p_type == PT_GNU_EH_FRAME) {
			table = hdr;
			have_table = true;
		}
	if (!have_table)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &hdr) || hdr.p_type != PT_LOAD)
			continue;
		if ((hdr.p_flags & PF_X) && !have_exec) {
			exec = hdr;
			have_exec = true;
		}
		if (holds(&hdr, table.p_vaddr) && !(hdr.p_flags & PF_X) && !g->separate) {
			g->separate = true;
			g->offset = page_down(hdr.p_offset);
			g->len = page_up(hdr.p_vaddr + hdr.p_filesz) - page_down(hdr.p_vaddr);
			g->delta = (int64_t)page_down(hdr.p_vaddr);
		}
	}
	if (!have_exec || !g->separate) {
		g->separate = false;
		return 0;
	}
	g->exec_offset = page_down(exec.p_offset);
	g->delta -= (int64_t)page_down(exec.p_vaddr);
	return 0;
}

int eh_frame_segment_read(int fd, struct eh_frame_segment *g)
{
	Elf *elf;
	int r = -ENOEXEC;

	*g = (struct eh_frame_segment){ 0 };
	elf = elf_open_fd_pread(fd);
	if (elf)
		r = read_headers(elf, g);
	if (elf)
		elf_end(elf);
	if (r)
		*g = (struct eh_frame_segment){ 0 };
	return r;
}

bool eh_frame_segment_mapping(const struct eh_frame_segment *g, const struct perf_mmap *exec,
			      struct perf_mmap *out)
{
	if (!g->separate || exec->pgoff != g->exec_offset ||
	    (g->delta < 0 && (uint64_t)-g->delta > exec->start))
		return false;
	*out = *exec;
	out->start = exec->start + (uint64_t)g->delta;
	out->len = g->len;
	out->pgoff = g->offset;
	out->prot = PROT_READ;
	return true;
}
