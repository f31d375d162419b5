/* SPDX-License-Identifier: GPL-2.0-only */
/* dwarf_unwind.c: unwinds a sample's user stack from its registers and stack copy
 * (--call-graph dwarf) with libdw's dwfl and the CFI of the mapped files. */
#include "symbols/dwarf_unwind.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/build_id.h"
#include "symbols/debug_names.h"
#include "symbols/elf_open.h"
#include "symbols/vdso.h"
#include "sys/safe_open.h"

/* perf's x86-64 register numbers (perf_event_x86_regs), the bits of
 * sample_regs_user, in DWARF's order: rax rdx rcx rbx rsi rdi rbp rsp
 * r8-r15, then the return address column, rip. */
static const unsigned int dwarf_to_perf_reg[17] = {
	0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8,
};
#define PERF_REG_X86_SP 7
#define PERF_REG_X86_IP 8

/* One process: its dwfl, which lives as long as its mappings do, and the
 * sample being unwound, which the callbacks read. */
struct uw_process {
	uint32_t pid;
	Dwfl *dwfl;
	bool attached;
	bool stale; /* a file mapped where another was reported: start over */
	struct unwinder *u;
	const struct perf_sample *sample;
	bool return_addresses; /* callers' frames as their return addresses */
	uint64_t sp;
	uint64_t *ips;
	size_t nr, max;
};

/* The file of a DSO, found and opened once for every process that maps it:
 * the path if it still is the file with the recorded build-id, else the
 * recording's copy. Each process's dwfl module takes a reference to elf
 * (libelf counts them), so a file's mapping is shared and no descriptor
 * stays open. */
struct uw_file {
	const char *key;   /* the DSO's key */
	char *path;        /* what was opened, for separate debug files */
	Elf *elf;          /* NULL: none is readable */
	bool exec;         /* ET_EXEC: mapped at its own addresses */
	uint64_t low, end; /* its PT_LOAD segments' extent, page-aligned start */
	Dwfl *names;       /* the file alone at its own addresses, for the names
			    * its debug information gives (unwinder_inline_names) */
	Dwfl_Module *names_module; /* NULL: none (or not tried yet, names NULL) */
	struct debug_cu_index *cus; /* names_module's units by address, if needed */
};

struct unwinder {
	struct address_space *as;
	struct hash_map processes; /* pid -> struct uw_process */
	struct hash_map files;     /* dso key -> struct uw_file */
};

static char *debuginfo_path;

/* A module's file: a new reference to the one its DSO opened. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	struct uw_file *f = *userdata;

	(void)mod;
	(void)name;
	(void)base;
	*elfp = f && f->elf ? elf_begin(-1, ELF_C_READ_MMAP, f->elf) : NULL;
	*file_name = *elfp ? strdup(f->path) : NULL;
	return -1;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = find_elf,
	/* .debug_frame of a stripped file from its separate debug file (by
	 * build-id or debuglink, and from debuginfod when DEBUGINFOD_URLS is
	 * set) */
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
	.section_address = dwfl_offline_section_address,
};

struct unwinder *unwinder_new(struct address_space *as)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->as = as;
	hash_map_init(&u->processes, hash_u32_key, equal_u32_key);
	hash_map_init(&u->files, hash_string, equal_string);
	return u;
}

static void free_process(void *value, void *ctx)
{
	struct uw_process *p = value;

	(void)ctx;
	if (p->dwfl)
		dwfl_end(p->dwfl);
	free(p);
}

static void free_file(void *value, void *ctx)
{
	struct uw_file *f = value;

	(void)ctx;
	debug_cu_index_free(f->cus);
	if (f->names)
		dwfl_end(f->names);
	if (f->elf)
		elf_end(f->elf);
	free(f->path);
	free(f);
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	hash_map_each(&u->processes, free_process, NULL);
	hash_map_each(&u->files, free_file, NULL);
	hash_map_free(&u->processes);
	hash_map_free(&u->files);
	free(u);
}

/* Opens path if it is the file with that build-id (any file without one):
 * a FIFO or device named by the recording is refused, not waited on. */
static int open_if_build_id(const char *path, const struct dso *d)
{
	int fd = safe_openat(AT_FDCWD, path, SAFE_OPEN_FOLLOW, NULL);

	if (fd >= 0 && d->build_id_size && !build_id_matches(fd, d->build_id, d->build_id_size)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Opens f's file from fd (closed here): mapped whole, then no longer
 * needing fd; its extent from its PT_LOAD segments, as dwfl_report_elf
 * computes it. */
static void load_file(struct uw_file *f, int fd)
{
	size_t phnum;
	bool first = true;
	GElf_Ehdr eh;

	f->elf = elf_open_fd(fd);
	if (f->elf && (elf_cntl(f->elf, ELF_C_FDDONE) ||
		       !gelf_getehdr(f->elf, &eh) || elf_getphdrnum(f->elf, &phnum))) {
		elf_end(f->elf);
		f->elf = NULL;
	}
	close(fd);
	if (!f->elf)
		return;
	f->exec = eh.e_type == ET_EXEC;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (first)
			f->low = ph.p_vaddr & -(ph.p_align ? ph.p_align : 1);
		first = false;
		if (ph.p_vaddr + ph.p_memsz > f->end)
			f->end = ph.p_vaddr + ph.p_memsz;
	}
	if (first || f->end <= f->low) {
		elf_end(f->elf);
		f->elf = NULL;
	}
}

/* The file of d: its path (under symfs) if it is still the file recorded,
 * else a copy the recording kept; for the vDSO this process's own (the same
 * kernel's). NULL if memory ran out; its elf NULL if there is none. */
static struct uw_file *dso_file(struct unwinder *u, const struct dso *d)
{
	struct uw_file *f = hash_map_get(&u->files, d->key);
	char path[4096] = "[vdso]";
	int fd = -1;

	if (f)
		return f;
	if (!strcmp(d->path, "[vdso]")) {
		fd = vdso_open_own();
	} else if (d->path[0] != '[' && strncmp(d->path, "//", 2)) {
		snprintf(path, sizeof(path), "%s%s", u->as->symfs ? u->as->symfs : "", d->path);
		fd = open_if_build_id(path, d);
		for (const char *const *dir = u->as->build_id_dirs;
		     fd < 0 && d->build_id_size && *dir; dir++) {
			build_id_path(path, sizeof(path), *dir, d->build_id, d->build_id_size, "");
			fd = open_if_build_id(path, d);
		}
	}
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path)) || hash_map_put(&u->files, d->key, f)) {
		if (fd >= 0)
			close(fd);
		if (f)
			free(f->path);
		free(f);
		return NULL;
	}
	f->key = d->key;
	if (fd >= 0)
		load_file(f, fd);
	return f;
}

/* Reports the file mapped at ip to p's dwfl, as perf's report_module: at
 * the mapping's start less its offset. 0 if ip is then in a module, else
 * -ENOENT (-ESTALE: another file is mapped there now). */
static int report_module(struct uw_process *p, uint64_t ip)
{
	const struct map *m = address_space_find_map(p->u->as, p->pid, ip);
	struct uw_file *f;
	Dwfl_Module *mod;
	Dwarf_Addr start, base;
	void **userdata;

	if (!m)
		return -ENOENT;
	mod = dwfl_addrmodule(p->dwfl, ip);
	if (mod) {
		dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
		f = dso_file(p->u, m->dso);
		if (f && f->elf && start == (f->exec ? 0 : m->start - m->pgoff) + f->low)
			return 0;
		p->stale = true; /* another file is mapped there now */
		return -ESTALE;
	}
	f = dso_file(p->u, m->dso);
	if (!f || !f->elf)
		return -ENOENT;
	base = f->exec ? 0 : m->start - m->pgoff;
	mod = dwfl_report_module(p->dwfl, m->dso->path, base + f->low, base + f->end);
	if (!mod)
		return -EINVAL;
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = f;
	return dwfl_addrmodule(p->dwfl, ip) == mod ? 0 : -ENOENT;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct uw_process *p = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0; /* one thread: the sample's */
	*thread_argp = p;
	return (pid_t)p->sample->tid;
}

/* A word of the stack copy, else of the mapped file at addr. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct uw_process *p = arg;
	const struct perf_sample *s = p->sample;
	Dwfl_Module *mod;
	Dwarf_Addr offset = addr, bias;
	Elf_Scn *scn;
	Elf_Data *data;

	if (addr >= p->sp && addr - p->sp <= s->stack_dyn_size &&
	    s->stack_dyn_size - (addr - p->sp) >= sizeof(*result)) {
		memcpy(result, s->stack_user + (addr - p->sp), sizeof(*result));
		return true;
	}
	mod = dwfl_addrmodule(dwfl, addr);
	scn = mod ? dwfl_module_address_section(mod, &offset, &bias) : NULL;
	data = scn ? elf_rawdata(scn, NULL) : NULL;
	if (!data || !data->d_buf || offset > data->d_size ||
	    data->d_size - offset < sizeof(*result))
		return false;
	memcpy(result, (const uint8_t *)data->d_buf + offset, sizeof(*result));
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct uw_process *p = arg;
	Dwarf_Word regs[17];

	for (unsigned int i = 0; i < 17; i++)
		if (perf_sample_user_reg(p->sample, dwarf_to_perf_reg[i], &regs[i]))
			regs[i] = 0;
	return dwfl_thread_state_registers(thread, 0, 17, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* Each frame, as perf's frame_callback: the module reported before asking
 * whether the frame is an activation; a caller's pc less one (its call). */
static int frame_callback(Dwfl_Frame *state, void *arg)
{
	struct uw_process *p = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	report_module(p, pc);
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (!activation && !p->return_addresses)
		pc--;
	p->ips[p->nr++] = pc;
	return p->nr < p->max && !p->stale ? DWARF_CB_OK : DWARF_CB_ABORT;
}

static struct uw_process *get_process(struct unwinder *u, uint32_t pid)
{
	struct uw_process *p = hash_map_get(&u->processes, &pid);

	if (p && p->stale) {
		dwfl_end(p->dwfl);
		p->dwfl = NULL;
		p->attached = p->stale = false;
	}
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return NULL;
		p->pid = pid;
		p->u = u;
		if (hash_map_put(&u->processes, &p->pid, p)) {
			free(p);
			return NULL;
		}
	}
	if (!p->dwfl)
		p->dwfl = dwfl_begin(&offline_callbacks);
	return p->dwfl ? p : NULL;
}

size_t unwinder_user_frames(struct unwinder *u, const struct perf_sample *s, bool return_addresses,
			    uint64_t *ips, size_t max)
{
	struct uw_process *p;
	uint64_t ip;

	if (!max || !s->regs_abi || perf_sample_user_reg(s, PERF_REG_X86_IP, &ip))
		return 0;
	ips[0] = ip;
	p = get_process(u, s->pid);
	if (!p || !s->stack_dyn_size || perf_sample_user_reg(s, PERF_REG_X86_SP, &p->sp))
		return 1;
	p->sample = s;
	p->return_addresses = return_addresses;
	p->ips = ips;
	p->nr = 0;
	p->max = max;
	if (report_module(p, ip)) {
		if (p->stale) /* the next sample will see the new mappings */
			get_process(u, s->pid);
		return 1;
	}
	if (!p->attached)
		p->attached = dwfl_attach_state(p->dwfl, NULL, (pid_t)s->pid, &thread_callbacks, p);
	if (p->attached)
		dwfl_getthread_frames(p->dwfl, (pid_t)s->tid, frame_callback, p);
	p->sample = NULL;
	return p->nr ? p->nr : 1;
}

/* f's module in a dwfl of its own at its own addresses: one for every
 * process that maps it, where each process's dwfl would read its debug
 * information (and inflate its compressed sections) again. NULL if none. */
static Dwfl_Module *names_module(struct uw_file *f)
{
	Dwfl_Module *mod;
	void **userdata;

	if (f->names || !f->elf)
		return f->names_module;
	f->names = dwfl_begin(&offline_callbacks);
	if (!f->names)
		return NULL;
	dwfl_report_begin(f->names);
	mod = dwfl_report_module(f->names, f->path, f->low, f->end);
	dwfl_report_end(f->names, NULL, NULL);
	if (mod) {
		dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
		*userdata = f;
	}
	return f->names_module = mod;
}

size_t unwinder_inline_names(struct unwinder *u, const struct dso *d, uint64_t vaddr,
			     char **names, size_t max)
{
	struct uw_file *f = dso_file(u, d);
	Dwfl_Module *mod = f ? names_module(f) : NULL;

	return mod ? debug_names_at(mod, &f->cus, vaddr, names, max) : 0;
}
