/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_check.c: report --unwind-check: how well the in-kernel unwinder's user
 * frames agree with libdw's unwinding of the same samples' copied stacks. */
#include "report/unwind_check.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "report/recording.h"
#include "report/sample_filter.h"

/* The frames of one DSO, as report_unwind_check_run counts them. */
struct dso_frames {
	char *dso;
	uint64_t frames;       /* positions compared: the longer of the two stacks */
	uint64_t agreed;       /* the same frame on both sides */
	uint64_t kernel_only;  /* past the end of libdw's stack */
	uint64_t libdw_only;   /* past the end of the kernel's stack */
	uint64_t differ;       /* both found a frame there, not the same one */
};

struct check_state {
	const struct report_options *o;
	struct sample_filter filter; /* --comm, --pid, --tid */
	struct recording rec;
	struct dso_frames *dsos;
	size_t nr_dsos, cap_dsos;
	uint64_t both;    /* samples holding both unwindings */
	uint64_t neither; /* user samples missing one (a kernel thread, a dwarf-only event) */
	uint64_t whole;   /* samples whose two stacks agree in every frame */
};

/* The counts of dso, added if new; NULL if memory ran out. */
static struct dso_frames *dso_frames_of(struct check_state *st, const char *dso)
{
	struct dso_frames *d;

	for (size_t i = 0; i < st->nr_dsos; i++)
		if (!strcmp(st->dsos[i].dso, dso))
			return &st->dsos[i];
	if (st->nr_dsos == st->cap_dsos) {
		size_t cap = st->cap_dsos ? 2 * st->cap_dsos : 16;

		d = realloc(st->dsos, cap * sizeof(*d));
		if (!d)
			return NULL;
		st->dsos = d;
		st->cap_dsos = cap;
	}
	d = &st->dsos[st->nr_dsos];
	*d = (struct dso_frames){ .dso = strdup(dso) };
	if (!d->dso)
		return NULL;
	st->nr_dsos++;
	return d;
}

/* The user part of s's callchain (after PERF_CONTEXT_USER, up to the next
 * marker): *first and the frame count; 0 if it has none. */
static size_t user_callchain(const struct perf_sample *s, const uint64_t **first)
{
	size_t n = 0;
	bool user = false;

	for (uint64_t i = 0; i < s->nr_callchain; i++) {
		uint64_t ip = s->callchain[i];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			if (user)
				break;
			user = ip == (uint64_t)PERF_CONTEXT_USER;
			*first = &s->callchain[i + 1];
			continue;
		}
		if (user)
			n++;
	}
	return n;
}

static int on_sample(void *ctx, struct recording *r, unsigned int event,
		     const struct perf_sample *s, const struct stream_record *sr)
{
	struct check_state *st = ctx;
	uint64_t libdw[RECORDING_MAX_UNWOUND];
	const uint64_t *kernel = NULL;
	size_t nk, nd, n;
	bool whole = true;

	(void)sr;
	if (recording_is_tracking(r, event) || !s->pid ||
	    !sample_filter_keeps(&st->filter, s, address_space_comm(&r->as, s->pid, s->tid)))
		return 0;
	nk = user_callchain(s, &kernel);
	if (!nk || !s->regs_abi || !s->stack_size) {
		st->neither++;
		return 0;
	}
	if (!r->unwinder && !(r->unwinder = unwinder_new(&r->as)))
		return -ENOMEM;
	nd = unwinder_user_frames(r->unwinder, s, false, libdw, RECORDING_MAX_UNWOUND);
	st->both++;
	n = nk > nd ? nk : nd;
	for (size_t i = 0; i < n; i++) {
		uint64_t ip = i < nd ? libdw[i] : kernel[i];
		struct resolved where;
		struct dso_frames *d;

		address_space_resolve(&r->as, s->pid, ip, PERF_RECORD_MISC_USER, &where);
		d = dso_frames_of(st, where.dso);
		if (!d)
			return -ENOMEM;
		d->frames++;
		if (i >= nd) {
			d->kernel_only++;
		} else if (i >= nk) {
			d->libdw_only++;
		} else if (kernel[i] == libdw[i] || (i > 0 && kernel[i] - 1 == libdw[i])) {
			/* libdw gives a caller's return address less one, the
			 * kernel the return address, as perf's callchains */
			d->agreed++;
			continue;
		} else {
			d->differ++;
		}
		whole = false;
	}
	st->whole += whole;
	return 0;
}

static int by_frames(const void *a, const void *b)
{
	const struct dso_frames *x = a, *y = b;

	if (x->frames != y->frames)
		return x->frames < y->frames ? 1 : -1;
	return strcmp(x->dso, y->dso);
}

static void print_row(FILE *out, const struct dso_frames *d, const char *name)
{
	fprintf(out, "%10" PRIu64 " %10" PRIu64 " %8.2f%% %8" PRIu64 " %8" PRIu64 " %8" PRIu64 "  %s\n",
		d->frames, d->agreed, d->frames ? 100.0 * (double)d->agreed / (double)d->frames : 0.0,
		d->differ, d->kernel_only, d->libdw_only, name);
}

static void print_check(const struct check_state *st, FILE *out)
{
	struct dso_frames total = { 0 };

	fprintf(out, "# unwind check of %s: %" PRIu64 " samples unwound both ways, %" PRIu64
		     " of them alike in every frame; %" PRIu64 " user samples without both\n",
		st->o->input, st->both, st->whole, st->neither);
	fprintf(out, "# %8s %10s %9s %8s %8s %8s  %s\n", "frames", "agreed", "agreement", "differ",
		"kernel+", "libdw+", "dso");
	for (size_t i = 0; i < st->nr_dsos; i++) {
		const struct dso_frames *d = &st->dsos[i];

		print_row(out, d, d->dso);
		total.frames += d->frames;
		total.agreed += d->agreed;
		total.differ += d->differ;
		total.kernel_only += d->kernel_only;
		total.libdw_only += d->libdw_only;
	}
	print_row(out, &total, "total");
}

int report_unwind_check_run(const struct report_options *o, FILE *out, char *err, size_t errlen)
{
	struct check_state st = { .o = o };
	struct recording_visitor v = { .sample = on_sample, .ctx = &st };
	int ret;

	if (report_filter_init(&st.filter, o, err, errlen)) {
		sample_filter_free(&st.filter);
		return REPORT_BAD_REQUEST;
	}
	if ((ret = recording_open_parts(&st.rec, o->nr_inputs ? o->inputs : &o->input,
					 o->nr_inputs ? o->nr_inputs : 1, o->kallsyms, o->symfs, err,
					 errlen))) {
		sample_filter_free(&st.filter);
		return ret;
	}
	ret = recording_replay(&st.rec, &v, err, errlen);
	if (ret == -ENOMEM && !err[0])
		rt_format(err, errlen, "out of memory");
	if (!ret && !st.both) {
		rt_format(err, errlen,
			  "%s: no sample%s holds both the kernel's user frames and a stack copy: record "
			  "with --call-graph ehframe+dwarf",
			  o->input,
			  o->comm_filter || o->pid_list || o->tid_list || o->pid_filter >= 0
				  ? " of --comm/--pid/--tid" : "");
		ret = REPORT_BAD_REQUEST;
	}
	if (!ret) {
		qsort(st.dsos, st.nr_dsos, sizeof(*st.dsos), by_frames);
		print_check(&st, out);
	}
	for (size_t i = 0; i < st.nr_dsos; i++)
		free(st.dsos[i].dso);
	free(st.dsos);
	recording_close(&st.rec);
	sample_filter_free(&st.filter);
	return ret > 0 ? -EIO : ret;
}
