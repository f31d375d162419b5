/* SPDX-License-Identifier: GPL-2.0-only */
/* ehframe_unwind.bpf.c: unwinds a user stack in the kernel from the rows the
 * loader compiled from .eh_frame, frame pointers where there are none: the
 * unwinder's maps, the walk, frame by frame, and the kernel side's programs
 * at fork and exec. Its parts, in the order it includes them: ehframe_state
 * (maps, the walk's state), ehframe_rows (a pc's mapping and row),
 * ehframe_step (one step), ehframe_quick (a frame taken the quick way, a
 * recursion's frames in one call),
 * ehframe_mappings (mappings the kernel side puts
 * in), python_frames (a CPython process's Python frames, its perf
 * trampolines'), hotspot_frames (a
 * JVM's interpreted Java frames), hotspot_compiled (its compiled ones), v8_frames
 * (a Node.js process's JavaScript frames). */
#include "ehframe_unwind.bpf.h"
#include "ehframe_state.bpf.h"
#include "ehframe_rows.bpf.h"
#include "ehframe_step.bpf.h"
#include "ehframe_quick.bpf.h"
#include "ehframe_mappings.bpf.h"
#include "python_frames.bpf.h"
#include "hotspot_frames.bpf.h"
#include "hotspot_compiled.bpf.h"
#include "v8_frames.bpf.h"

const volatile bool unwind_ehframe = false;
/* --unwind-tables sampled: the files walks meet without a table, told */
const volatile bool unwind_tables_sampled = false;
/* The walk's quick path (quick_frame) taken where it can be, unless a test
 * turns it off (record --debug-full-steps) to check that the full path
 * unwinds alike */
const volatile bool unwind_quick_steps = true;

struct unwind_rows_map unwind_rows SEC(".maps");
struct unwind_pages_map unwind_pages SEC(".maps");
struct process_mappings_map process_mappings SEC(".maps");
struct unwind_files_map unwind_files SEC(".maps");
struct unwind_wanted_map unwind_wanted SEC(".maps");
/* Bumped after each key put in unwind_wanted, and in python_code_seen: the
 * loader looks in a map only when its count moved (the first key of an
 * empty hash map is a walk through all of its buckets) */
__u64 unwind_wanted_added = 0;
__u64 python_seen_added = 0;
__u64 hotspot_seen_added = 0;
__u64 v8_seen_added = 0;
__u64 v8_code_seen_added = 0;
struct mappings_gen_map mappings_gen SEC(".maps");
struct exec_mappings_map exec_mappings SEC(".maps");
struct no_process_mappings_map no_process_mappings SEC(".maps");
struct unwind_counters_map unwind_counters SEC(".maps");
struct unwind_guesses_map unwind_guesses SEC(".maps");
struct python_processes_map python_processes SEC(".maps");
struct python_known_map python_known SEC(".maps");
struct python_offsets_map python_offsets SEC(".maps");
struct python_code_seen_map python_code_seen SEC(".maps");
struct python_threads_map python_threads SEC(".maps");
struct python_scratch_map python_scratch SEC(".maps");
struct hotspot_processes_map hotspot_processes SEC(".maps");
struct hotspot_known_map hotspot_known SEC(".maps");
struct hotspot_offsets_map hotspot_offsets SEC(".maps");
struct hotspot_methods_seen_map hotspot_methods_seen SEC(".maps");
struct hotspot_scratch_map hotspot_scratch SEC(".maps");
struct v8_processes_map v8_processes SEC(".maps");
struct v8_known_map v8_known SEC(".maps");
struct v8_functions_seen_map v8_functions_seen SEC(".maps");
struct v8_scratch_map v8_scratch SEC(".maps");
struct v8_inlines_map v8_inlines SEC(".maps");
struct v8_code_seen_map v8_code_seen SEC(".maps");

/* The budget of stack copies is counted in windows of 2^27 ns (134 ms), an
 * eighth of stack_copy_budget each: a burst of copies (every process's
 * tables still to come as a recording starts) takes no more of a ring in
 * any 134 ms than that. */
#define COPY_WINDOW_SHIFT 27
#define COPY_WINDOWS_A_SECOND_SHIFT 3

/* Whether this CPU may copy one more stack in this window: its copies so far
 * within the window's share of stack_copy_budget (append_user_stack counts
 * them; the last may pass it by one copy). */
static __always_inline bool take_copy(struct sample_words *s)
{
	__u64 window = bpf_ktime_get_ns() >> COPY_WINDOW_SHIFT;

	if (s->meta.copy_window != window) {
		s->meta.copy_window = window;
		s->meta.copy_bytes = 0;
	}
	return s->meta.copy_bytes < stack_copy_budget >> COPY_WINDOWS_A_SECOND_SHIFT;
}

/* Writes frame i of the walk, at w->ip, then steps to its caller. Returns 1
 * to stop. */
static __always_inline long unwind_frame(struct unwind_walk *w, __u32 i)
{
	struct walk_state *ws = &w->guesses->walk;
	const struct rt_unwind_mapping *m;
	const struct rt_unwind_row *row = NULL;
	struct rt_process_mappings *pm;
	struct rt_unwind_slice table;
	__u32 done = i + w->guesses->extra_words, n = ws->first + done;
	__u8 why = FP_NO_PROCESS;
	__u64 pc, bias;
	long py, java;
	int k;

	/* bounds come from i, which the verifier does not know: counters of
	 * the walk compared here would make it check every iteration apart */
	if (!ws->r.ip) {
		ws->r.end_reason = i ? END_RETURN_ZERO : END_BAD_FRAME;
		return 1;
	}
	if (ws->r.ip > USER_ADDR_MAX) {
		ws->r.end_reason = i ? END_NON_CANONICAL : END_BAD_FRAME;
		return 1;
	}
	if (done >= RT_MAX_STACK_DEPTH || n >= SCRATCH_WORDS) {
		ws->r.end_reason = END_TRUNCATED;
		return 1;
	}
	/* a return address is after its call: look up the call */
	pc = ws->r.exact_ip ? ws->r.ip : ws->r.ip - 1;

	/* CPython's evaluation loop: the Python frames it runs instead */
	if (w->py && pc >= w->py->eval_start && pc < w->py->eval_end) {
		w->guesses->py.n = n;
		w->guesses->py.room = RT_MAX_STACK_DEPTH - done;
		py = python_frames(w->s, &w->guesses->py, w->py, w->c);
		/* (and the marker of callers left out) */
		if (py > 0 && py <= RT_PY_MAX_FRAMES + 1) {
			done += (__u32)py - 1;
			w->guesses->extra_words = done - i;
			ws->frames = done + 1;
			count_frame(w);
			goto mapped;
		}
	}
	/* a JVM's code: the Java methods its frame runs instead (an
	 * interpreted one's, or a compiled one's and those inlined into it),
	 * stepped from as the JVM lays its frames out */
	if (w->guesses->in_jvm && pc >= w->guesses->jvm.code_start &&
	    pc < w->guesses->jvm.code_end) {
		w->guesses->java.n = n;
		w->guesses->java.room = RT_MAX_STACK_DEPTH - done;
		java = hotspot_walk_frame(w->s, w->guesses, w->c);
		if (java > 0 && java <= RT_JAVA_MAX_INLINE) {
			done += (__u32)java - 1;
			w->guesses->extra_words = done - i;
		}
		ws->frames = done + 1;
		count_frame(w);
		ws->last_pc = 0;
		if (w->guesses->java.has_row)
			row = &w->guesses->java.row;
		why = FP_NO_MAPPING;
		goto step;
	}
	w->s->w[n] = ws->r.ip;
	ws->frames = done + 1;
	count_frame(w);
mapped:
	if (ws->no_process)
		goto step;
	/* a recursion: the row of the frame before, at the same pc */
	if (pc == ws->last_pc) {
		row = &w->guesses->last_row;
		goto step;
	}
	ws->last_pc = 0;
	why = FP_NO_MAPPING;
	if (w->guesses->memo.in_use) {
		k = memo_mapping(&w->guesses->memo, pc);
		if (k >= 0 && k < MEMO_MAPPINGS) {
			m = &w->guesses->memo.m[k];
			goto found;
		}
	}
	/* a walk started from the memo looks its process's mappings up for
	 * each frame in none of the memo's (a local pointer: one kept in w
	 * would change its map in the loop, and the verifier would follow the
	 * walk's frames once for each frame where it can) */
	pm = w->pm;
	if (w->guesses->memo.pm_pending) {
		pm = bpf_map_lookup_elem(&process_mappings, &ws->tgid);
		if (!pm)
			goto step; /* gone since (exited): by frame pointers */
	}
	m = find_mapping(w, pm, pc, i);
	if (!m)
		m = look_up_vma(w, pm, pc);
	if (!m) {
		if (in_python_trampoline(w))
			row = &python_trampoline_row;
		goto step;
	}
found:
	/* a copy: another thread's insertion may move the mapping meanwhile,
	 * and a guess is kept under the first row of the table searched */
	table = m->table;
	bias = m->bias;
	/* mapped before its table was known where the mapping was written:
	 * the file's table, if it is loaded now */
	if (!table.nr_rows && m->file.ino) {
		const struct rt_unwind_file *f = bpf_map_lookup_elem(&unwind_files, &m->file);

		if (f) {
			table = f->table;
			bias = m->file_start - f->exec_vaddr_delta;
			ws->table_missing |= !table.nr_rows;
		} else if (!ws->table_pending) {
			ws->table_pending = true;
			w->guesses->pending_file = m->file;
		}
	}
	why = FP_NO_TABLE;
	if (table.nr_rows) {
		row = find_row(w->guesses, &table, (__u32)(pc - bias), i);
		if (row) {
			w->guesses->last_row = *row;
			ws->last_pc = pc;
			keep_pc_row(w->guesses, pc, row);
		}
	} else if (!m->file.ino && in_python_trampoline(w))
		row = &python_trampoline_row; /* (an anonymous mapping the kernel side found) */
	else if (!m->file.ino)
		ws->table_missing = true; /* the loader wrote it without a table: none */
step:
	/* a Node.js process's: the JavaScript function the frame runs (and
	 * those inlined into it), in its place or after it (the words and
	 * frames it adds counted there, and which frames it looks at told by
	 * their pc: no value of either here, where the verifier would follow
	 * each) */
	if (w->guesses->in_v8)
		v8_frame(w->s, w->guesses, w->c);
	return unwind_step(&ws->r, w->stack, row, why) ? 1 : 0;
}

/* (count_frame's tallies: at most two frames an iteration) */
_Static_assert(2 * (RT_MAX_STACK_DEPTH / 2 + 1) < 256, "a walk's frames of a kind fit 8 bits");

/* bpf_loop's body: frames 2i and 2i + 1, half the calls of one frame a call
 * (a return costs here: this host's SRSO mitigation, safe RET, sends each
 * through a thunk; deep's 45 frames took ~6% less), and between them the
 * rest of a recursion the first began, if it did (quick_run: once an
 * iteration, not in each frame's path, where its call took the verifier
 * ~70k more instructions). Returns 1 to stop. */
static long unwind_two_frames(__u32 i, void *arg)
{
	struct unwind_walk *w = arg;
	long end = quick_frame(w, 2 * i);

	if (end == QUICK_NOT_TAKEN)
		end = unwind_frame(w, 2 * i);
	if (end)
		return 1;
	/* (its test here too: a call and its return cost ~15 ns on an AMD
	 * host, four a chain's 7 frames, where no run starts) */
	if (w->guesses->walk.r.ip - 1 == w->guesses->walk.last_pc)
		quick_run(w->guesses, w->s);
	end = quick_frame(w, 2 * i + 1);
	if (end == QUICK_NOT_TAKEN)
		end = unwind_frame(w, 2 * i + 1);
	return end ? 1 : 0;
}

/* --unwind-tables sampled: the file whose table the walk of g missed, told
 * to the loader (after the loop: one update a walk, outside the frames the
 * verifier follows; a key there already is left as it is; key and value,
 * the process whose walk met it, in the map's memory, none on the stack). */
static __noinline void want_table(struct walk_guesses *g)
{
	if (g && !bpf_map_update_elem(&unwind_wanted, &g->pending_file, &g->walk.tgid, BPF_NOEXIST))
		unwind_wanted_added++;
}

/* Declared in ehframe_unwind.bpf.h. The perf event's regs, when it was
 * taken in user mode, are the task's pt_regs: where the sampled frame's
 * other registers are read, either way. */
__noinline long append_unwound_user_stack(struct sample_words *s, __u64 n,
					  const struct unwind_start *start, __u32 tgid)
{
	struct unwind_walk w = { .s = s };
	struct rt_unwind_counters *c;
	struct walk_guesses *outer;
	struct walk_state *ws;
	struct mappings_memo *memo;
	__u32 zero = 0, frames, end, nested, gen_slot = rt_mappings_gen_slot(tgid);
	__u64 *known, *gen_at, gen, bcp_reg = 0;

	/* room for the marker and every frame in the callchain's words; a
	 * kernel thread's, none (one sampled in user mode is none: the task
	 * not taken, a helper's call) */
	if (!s || n > RT_SAMPLE_FIXED_WORDS + RT_CALLCHAIN_MAX_WORDS - 1 - RT_MAX_STACK_DEPTH ||
	    (!start && (bpf_get_current_task_btf()->flags & PF_KTHREAD)))
		return n;
	c = bpf_map_lookup_elem(&unwind_counters, &zero);
	if (!c)
		return n;
	c->samples++;
	/* the count of changes to the process's mappings, read before them */
	gen_at = bpf_map_lookup_elem(&mappings_gen, &gen_slot);
	gen = gen_at ? *(volatile __u64 *)gen_at : 0;
	outer = bpf_map_lookup_elem(&unwind_guesses, &zero);
	if (!outer)
		return n;
	/* a walk interrupted another of this CPU's: guesses of its own (one
	 * lookup by index: two pointers would have the verifier walk the
	 * frames once for each) */
	nested = outer->walking ? 1 : 0;
	/* walks under way on this CPU, counted from before this one touches
	 * its guesses: one that interrupts it from here on takes the other
	 * entry's (no value kept across the loop: the verifier would look at
	 * the frames again for it). Plain adds: a walk that interrupts this
	 * one between its load and store leaves the count as it found it, and
	 * a locked add would wait here for the stores before it, to lines
	 * cold at each sample */
	outer->walking++;
	w.guesses = bpf_map_lookup_elem(&unwind_guesses, &nested);
	if (!w.guesses)
		goto unwalk;
	ws = &w.guesses->walk;
	*ws = (struct walk_state){ .r.exact_ip = true, .last_mapping = -1, .tgid = tgid };
	w.stack = &w.guesses->stack;
	w.stack->len = 0;
	w.stack->lookups = 0;
	w.stack->reads = 0;
	w.stack->first_read = STACK_FIRST_READ_BYTES;
	memo = &w.guesses->memo;
	if (gen_at && memo->tgid == tgid && memo->gen == gen) {
		/* the last walk's of this process, unchanged since: its mappings
		 * looked up only if a frame is in none of the memo's */
		memo->in_use = 1;
		memo->pm_pending = 1;
		w.pm = bpf_map_lookup_elem(&no_process_mappings, &zero);
		if (!w.pm)
			goto unwalk;
		w.stack->top = memo->stack_top;
		w.stack->first_read = memo->first_read;
		goto registers;
	}
	memo->tgid = 0;
	memo->in_use = 0;
	memo->pm_pending = 0;
	/* a process not known yet (forked or started before the side-band
	 * told the loader of it) starts with no mappings: its walks put in
	 * those of the pcs they meet, from the VMAs; with no room for it, by
	 * frame pointers, as the kernel walks them */
	w.pm = bpf_map_lookup_elem(&process_mappings, &tgid);
	if (!w.pm) {
		const struct rt_process_mappings *none =
			bpf_map_lookup_elem(&no_process_mappings, &zero);

		if (!none)
			goto unwalk;
		if (!bpf_map_update_elem(&process_mappings, &tgid, none, BPF_NOEXIST)) {
			c->kernel_processes++;
			mappings_changed(tgid);
		}
		w.pm = bpf_map_lookup_elem(&process_mappings, &tgid);
	}
	if (!w.pm) {
		c->no_process++;
		ws->no_process = true;
		w.pm = bpf_map_lookup_elem(&no_process_mappings, &zero);
		if (!w.pm)
			goto unwalk;
	}
	/* kept in the process's mappings, whose head the walk reads anyway,
	 * where the mm's would be one more line to fetch */
	w.stack->top = w.pm->stack_top;
	if (!w.stack->top) {
		struct task_struct *task = bpf_get_current_task_btf();

		w.stack->top = task->mm ? task->mm->start_stack : 0;
		if (!ws->no_process)
			w.pm->stack_top = w.stack->top;
	}
	/* the mappings the walk finds its frames in are copied to the memo,
	 * with the count read before the lookup: a change since makes the
	 * next walk look them up again */
	if (gen_at && !ws->no_process) {
		memo->gen = gen;
		memo->nr = 0;
		memo->anon_end[0] = memo->anon_end[1] = memo->anon_end[2] = memo->anon_end[3] = 0;
		memo->stack_top = w.stack->top;
		memo->first_read = STACK_FIRST_READ_BYTES;
		memo->tgid = tgid;
		memo->in_use = 1;
	}
registers:
	ws->gen = gen;
	if (start) {
		ws->r.ip = start->ip;
		ws->r.sp = start->sp;
		ws->r.bp = start->bp;
		ws->r.bx = start->bx;
		bcp_reg = start->r13;
	} else {
		const struct pt_regs *regs =
			(const struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());

		ws->r.ip = regs->ip;
		ws->r.sp = regs->sp;
		ws->r.bp = regs->bp;
		ws->r.bx = regs->bx;
		bcp_reg = regs->r13;
	}
	ws->r.regs_at = REGS_AT_TASK;
	known = bpf_map_lookup_elem(&python_known, &zero);
	w.py = known && *known ? bpf_map_lookup_elem(&python_processes, &tgid) : NULL;
	/* a JVM's: where its code is, copied for the walk (a pointer kept
	 * would deepen this function's frame, which the verifier adds up) */
	known = bpf_map_lookup_elem(&hotspot_known, &zero);
	w.guesses->in_jvm = 0;
	if (known && *known) {
		const struct rt_hotspot_process *jvm =
			bpf_map_lookup_elem(&hotspot_processes, &tgid);

		if (jvm) {
			w.guesses->jvm = *jvm;
			w.guesses->in_jvm = 1;
			w.guesses->java = (struct java_cursor){ .tgid = tgid, .nested = nested,
							       .bcp_reg = bcp_reg };
		}
	}
	/* a Node.js process's: where V8's builtins are, copied for the walk */
	known = bpf_map_lookup_elem(&v8_known, &zero);
	w.guesses->in_v8 = 0;
	if (known && *known) {
		const struct rt_v8_process *vp = bpf_map_lookup_elem(&v8_processes, &tgid);

		if (vp) {
			w.guesses->v8 = *vp;
			w.guesses->in_v8 = 1;
			w.guesses->v8_nested = nested;
		}
	}
	w.guesses->py = (struct py_cursor){ .tgid = tgid, .nested = nested };
	ws->quick = unwind_quick_steps && gen_at && !ws->no_process && !w.py &&
		    !w.guesses->in_jvm && !w.guesses->in_v8;

	w.guesses->extra_words = 0;
	s->w[n] = PERF_CONTEXT_USER;
	ws->first = n + 1;
	w.c = c;
	/* the stack read from the sampled sp on (nothing below it is read),
	 * where the first step would read it from its return address less
	 * the lookback: its frames are quick ones then too */
	if (ws->quick)
		refill_window(w.stack, ws->r.sp & ~7ULL, ws->r.sp & ~7ULL);
	bpf_loop(RT_MAX_STACK_DEPTH / 2 + 1, unwind_two_frames, &w, 0);
	/* (what the walk's guesses keep, before another walk of this CPU may
	 * take them) */
	add_frame_tallies(ws, w.c);
	size_first_read(w.guesses);
	outer = bpf_map_lookup_elem(&unwind_guesses, &zero);
	if (outer)
		outer->walking--;
	if (ws->table_pending && unwind_tables_sampled)
		want_table(w.guesses);
	/* stacks that met a file without a table, or whose table was not
	 * loaded yet (copied below, or not), each counted once */
	if (ws->table_missing)
		c->stacks_no_table++;
	if (ws->table_pending)
		c->stacks_pending++;
	/* a frame in a file whose table is still to come: the stack copied
	 * instead, an ending of its own (its frames cut) */
	if (ws->table_pending && s->meta.may_copy && stack_copy_budget) {
		if (take_copy(s)) {
			c->stacks_copied++;
			s->meta.copy_stack = true;
			return n;
		}
		c->copies_over_budget++;
	}
	switch (ws->r.end_reason) {
	case END_OUTERMOST:
		c->outermost++;
		break;
	case END_RETURN_ZERO:
		c->return_zero++;
		break;
	case END_NON_CANONICAL:
		c->non_canonical++;
		break;
	case END_READ_FAILED:
		c->read_failed++;
		break;
	case END_IN_EXEC:
		c->in_exec++;
		break;
	case END_TRUNCATED:
		c->truncated++;
		break;
	default: /* and a walk bpf_loop refused: no frame */
		c->bad_frame++;
		break;
	}
	frames = ws->frames;
	if (!frames || frames > RT_MAX_STACK_DEPTH)
		return n;
	/* a JVM's stack cut: its last frame marks the callers left out (its
	 * map names it [truncated]), never a stack that looks whole */
	if (ws->r.end_reason == END_TRUNCATED && (w.guesses->in_jvm || w.guesses->in_v8) &&
	    n + frames < SCRATCH_WORDS)
		s->w[n + frames] = RT_PY_TRUNCATED;
	end = n + 1 + frames;
	barrier_var(end); /* checked as the word count the caller bounds */
	if (end > RT_SAMPLE_FIXED_WORDS + RT_CALLCHAIN_MAX_WORDS)
		return n;
	return end;
unwalk: /* (no walk: its count taken back) */
	outer->walking--;
	return n;
}

/* A process forked has its parent's mappings until it execs: known from its
 * first sample, before the loader has read the fork from the side-band. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(unwind_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	struct rt_process_mappings *pm;

	if (ptgid == ctgid)
		return 0; /* a thread */
	pm = bpf_map_lookup_elem(&process_mappings, &ptgid);
	if (!pm || bpf_map_update_elem(&process_mappings, &ctgid, pm, BPF_NOEXIST))
		return 0;
	/* the child has not run yet: no sample sees it before this */
	pm = bpf_map_lookup_elem(&process_mappings, &ctgid);
	if (pm)
		pm->flags = RT_MAPPINGS_INHERITED; /* never a parent's insertion under way */
	mappings_changed(ctgid);
	return 0;
}

extern int bpf_iter_task_vma_new(struct bpf_iter_task_vma *it, struct task_struct *task,
				 __u64 addr) __ksym;
extern struct vm_area_struct *bpf_iter_task_vma_next(struct bpf_iter_task_vma *it) __ksym;
extern void bpf_iter_task_vma_destroy(struct bpf_iter_task_vma *it) __ksym;

/* A process that execs has its new image's mappings here at once (the
 * program's and the dynamic loader's, by file: their tables are used from
 * the moment they are loaded), so that its first samples unwind before the
 * loader has read its MMAP2s; never the old image's, nor those it inherited
 * from its parent. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(unwind_exec, struct task_struct *task)
{
	__u32 tgid = task->tgid, zero = 0, nr = 0;
	struct rt_process_mappings *fresh;
	struct rt_unwind_counters *c;
	struct bpf_iter_task_vma it;
	struct vm_area_struct *vma;

	bpf_map_delete_elem(&process_mappings, &tgid);
	mappings_changed(tgid);
	if (!mappings_in_scope())
		return 0;
	fresh = bpf_map_lookup_elem(&exec_mappings, &zero);
	c = bpf_map_lookup_elem(&unwind_counters, &zero);
	if (!fresh || !c)
		return 0;
	bpf_iter_task_vma_new(&it, task, 0);
	while ((vma = bpf_iter_task_vma_next(&it))) {
		struct rt_unwind_file_key key;
		struct file *file;

		if (!(vma->vm_flags & VM_EXEC_FLAG) || !(file = vma->vm_file))
			continue;
		if (nr >= EXEC_MAPPINGS_MAX) {
			c->kernel_mappings_left++;
			break;
		}
		file_key_of(&key, file);
		set_kernel_mapping(&fresh->m[nr], &key, vma->vm_start, vma->vm_end, vma->vm_pgoff);
		nr++;
	}
	bpf_iter_task_vma_destroy(&it);
	fresh->nr = nr;
	fresh->flags = 0;
	fresh->stack_top = 0;
	if (!bpf_map_update_elem(&process_mappings, &tgid, fresh, BPF_ANY))
		c->kernel_mappings += nr;
	mappings_changed(tgid);
	return 0;
}
