/* SPDX-License-Identifier: GPL-2.0-only */
/* script.c: "ringtrace script": every sample of a recording, one per line in
 * time order across CPUs, printed line for line as perf 6.1's perf script. */
#include "report/script.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/byte_buffer.h"
#include "lib/direct_cache.h"
#include "lib/log.h"
#include "lib/terminal_text.h"
#include "report/recording.h"
#include "report/text_out.h"
#include "report/tracepoint_print.h"

/* perf script's --max-stack default (PERF_MAX_STACK_DEPTH): frames printed
 * per callchain, context markers not counted. */
#define SCRIPT_MAX_STACK 127
/* perf's kernel_start on x86_64: every address from 2^63 up is the kernel's. */
#define KERNEL_START (1ULL << 63)

/* The text of a frame, kept: a profile's callchains pass through the same
 * few thousand addresses again and again, and the line an address prints
 * is the same until the mappings change. Direct-mapped, as the address
 * space's resolve cache; lines longer than a slot are formatted each time. */
#define FRAME_LINE_BITS 12 /* at most; fewer while fewer addresses came */
#define FRAME_LINE_TEXT 104 /* a slot of 128 bytes, two cache lines */

struct frame_line {
	uint64_t ip;
	uint32_t pid;        /* 0 for a kernel address: the same in every process */
	uint32_t generation; /* of the mappings it was resolved in; 0: empty */
	uint32_t fields;     /* what it prints, FRAME_OF_SAMPLE for a sample's own ip */
	uint16_t cpumode;
	uint16_t len;
	char text[FRAME_LINE_TEXT];
};

_Static_assert(sizeof(struct frame_line) == 128, "a frame line's slot is two cache lines");

/* In frame_line.fields: the sample's own ip, printed on its line. */
#define FRAME_OF_SAMPLE (1u << 31)

static inline uint64_t frame_line_hash(uint64_t ip, uint32_t key_pid, uint16_t cpumode)
{
	return (ip ^ ((uint64_t)key_pid << 40) ^ ((uint64_t)cpumode << 32)) * 0x9e3779b97f4a7c15ULL;
}

static bool keep_frame_line(const void *slot, const void *as, uint64_t *hash)
{
	const struct frame_line *e = slot;

	*hash = frame_line_hash(e->ip, e->pid, e->cpumode);
	return e->generation == ((const struct address_space *)as)->generation;
}

/* The start of a sample's line, "comm pid/tid [cpu] ", kept by event,
 * thread and CPU: a profile's samples come from a few threads again and
 * again, and formatting it was a third of script. */
#define THREAD_LINE_BITS 8
#define THREAD_LINE_TEXT 40

struct thread_line {
	const char *comm; /* interned: the same pointer is the same name */
	uint32_t pid, tid, cpu;
	uint16_t event;   /* + 1; 0: empty */
	uint16_t len;
	char text[THREAD_LINE_TEXT];
};

_Static_assert(sizeof(struct thread_line) == 64, "a thread line's slot is a cache line");

/* An event's period and name as its samples print them, kept for its last
 * period. */
struct event_text {
	uint64_t period;
	size_t len; /* 0: none kept */
	char *text; /* EVENT_TEXT_ROOM bytes */
};

/* Room for a period (20 digits and a space) and the widest name with ": ",
 * and for EVENT_TEXT_COPY bytes read whole. */
#define EVENT_TEXT_COPY 64
#define EVENT_TEXT_ROOM(st) (EVENT_TEXT_COPY + (size_t)(st)->name_width)

struct script_state {
	struct text_out out;
	const struct script_options *o;
	struct script_fields fields;
	bool use_callchain;   /* some event records callchains (perf's symbol_conf) */
	int name_width;       /* of the longest event name, as perf aligns them */
	struct tracepoint_printer *tracepoints;
	struct direct_cache frame_lines; /* struct frame_line */
	struct thread_line thread_lines[1u << THREAD_LINE_BITS];
	struct event_text *event_texts; /* one per event, or NULL: none kept */
	uint64_t time_sec;   /* of the sample before */
	uint8_t time_len;    /* of time_text; 0: none */
	char time_text[24];  /* its seconds, right-aligned as perf pads them, and "." */
	struct sample_filter filter;
	bool filtered;       /* some filter given */
	char *err;
	size_t errlen;
};

/* The start of perf_sample__fprintf_start: comm (unpadded before a
 * callchain), pid/tid, [cpu]. */
static void put_thread(struct script_state *st, struct recording *r,
		       const struct perf_input_event *ev, uint32_t pid, uint32_t tid, uint32_t cpu)
{
	uint32_t f = st->fields.fields[script_kind_of(ev)];
	char buf[48], *end = buf + sizeof(buf), *p;

	if (f & SCRIPT_FIELD_COMM) {
		const char *comm = tid == (uint32_t)-1 ? ":-1" : address_space_comm(&r->as, pid, tid);
		char name[64];
		bool unpadded = (f & SCRIPT_FIELD_IP) && script_has_callchain(ev) && st->use_callchain;

		size_t raw = strlen(comm), len;

		/* escaped, padded as perf pads the bytes it prints raw */
		comm = terminal_text(comm, name, sizeof(name));
		len = strlen(comm);
		text_out_padded(&st->out, comm, len, unpadded ? 0 : 16 + (int)(len - raw), false);
		text_out_char(&st->out, ' ');
	}
	if ((f & SCRIPT_FIELD_PID) && (f & SCRIPT_FIELD_TID)) {
		text_out_int(&st->out, pid, 5, false);
		text_out_char(&st->out, '/');
		text_out_int(&st->out, tid, 5, true);
		text_out_char(&st->out, ' ');
	} else if (f & (SCRIPT_FIELD_PID | SCRIPT_FIELD_TID)) {
		text_out_int(&st->out, f & SCRIPT_FIELD_PID ? pid : tid, 5, false);
		text_out_char(&st->out, ' ');
	}
	if (f & SCRIPT_FIELD_CPU) {
		if ((int)cpu < 0) {
			int n = snprintf(buf, sizeof(buf), "[%03d] ", (int)cpu);

			text_out_bytes(&st->out, buf, (size_t)n);
		} else {
			*--end = ' ';
			*--end = ']';
			p = text_out_decimal(end, cpu, 3);
			*--p = '[';
			text_out_bytes(&st->out, p, (size_t)(buf + sizeof(buf) - p));
		}
	}
}

/* The thread's part of a sample's line from the kept ones, else formatted
 * and kept. */
static void put_thread_kept(struct script_state *st, struct recording *r, unsigned int event,
			    uint32_t pid, uint32_t tid, uint32_t cpu)
{
	const struct perf_input_event *ev = &r->in.events[event];
	uint32_t f = st->fields.fields[script_kind_of(ev)];
	const char *comm = !(f & SCRIPT_FIELD_COMM) ? NULL :
			   tid == (uint32_t)-1	    ? ":-1" :
						      address_space_comm(&r->as, pid, tid);
	uint64_t h = (((uint64_t)pid << 32 | tid) ^ ((uint64_t)cpu << 20) ^ event) *
		     0x9e3779b97f4a7c15ULL;
	struct thread_line *e = &st->thread_lines[h >> (64 - THREAD_LINE_BITS)];
	size_t start = st->out.buf.len, len;

	if (e->event == event + 1 && e->comm == comm && e->pid == pid && e->tid == tid &&
	    e->cpu == cpu) {
		if (!text_out_room(&st->out, THREAD_LINE_TEXT))
			return;
		text_out_copy_whole(st->out.buf.data + st->out.buf.len, e->text, THREAD_LINE_TEXT);
		st->out.buf.len += e->len;
		return;
	}
	put_thread(st, r, ev, pid, tid, cpu);
	len = st->out.buf.len - start;
	if (st->out.out_of_memory || len > THREAD_LINE_TEXT || event >= UINT16_MAX) {
		e->event = 0;
		return;
	}
	*e = (struct thread_line){ comm, pid, tid, cpu, (uint16_t)(event + 1), (uint16_t)len, { 0 } };
	if (len) /* none with -F fields that leave it out: the buffer may be NULL yet */
		memcpy(e->text, st->out.buf.data + start, len);
}

/* The end of perf_sample__fprintf_start: the time, "%5lu.%09lu: " with
 * --ns, else "%12s: " of "%lu.%06lu". The seconds and the padding before
 * them are kept from the sample before (times go up: they seldom change);
 * the fraction, 6 or 9 digits, is written two digits a step. */
static void put_time(struct script_state *st, uint64_t time)
{
	bool ns = st->o->nanosecs;
	uint64_t sec = time / 1000000000u;
	uint32_t frac = (uint32_t)(time % 1000000000u);
	unsigned int digits = ns ? 9 : 6;
	uint8_t *at;

	if (sec != st->time_sec || !st->time_len) {
		char buf[sizeof(st->time_text)], *end = buf + sizeof(buf), *p;
		size_t width = ns ? 15 : 12;

		*--end = '.';
		p = text_out_decimal(end, sec, 1);
		while ((size_t)(buf + sizeof(buf) - p) + digits < width)
			*--p = ' ';
		st->time_len = (uint8_t)(buf + sizeof(buf) - p);
		memcpy(st->time_text, p, st->time_len);
		st->time_sec = sec;
	}
	if (!text_out_room(&st->out, sizeof(st->time_text) + 16))
		return;
	at = st->out.buf.data + st->out.buf.len;
	text_out_copy_whole(at, st->time_text, sizeof(st->time_text));
	at += st->time_len;
	if (ns) {
		at[8] = (char)('0' + frac % 10);
		frac /= 10;
	} else {
		frac /= 1000;
	}
	for (unsigned int i = ns ? 8 : 6; i > 0; i -= 2, frac /= 100)
		memcpy(at + i - 2, &text_out_digit_pairs[frac % 100 * 2], 2);
	memcpy(at + digits, ": ", 2);
	st->out.buf.len += st->time_len + digits + 2;
}

/* perf_sample__fprintf_start: comm (unpadded before a callchain), pid/tid,
 * [cpu], time. */
static void print_start(struct script_state *st, struct recording *r,
			const struct perf_input_event *ev, uint32_t pid, uint32_t tid, uint32_t cpu,
			uint64_t time)
{
	put_thread(st, r, ev, pid, tid, cpu);
	if (st->fields.fields[script_kind_of(ev)] & SCRIPT_FIELD_TIME)
		put_time(st, time);
}

/* sym+off (dso), as perf's sample__fprintf_sym prints them after the address. */
static void print_symbol(struct script_state *st, uint32_t f, const struct resolved *w)
{
	char name[1024];

	if (f & SCRIPT_FIELD_SYM) {
		text_out_char(&st->out, ' ');
		text_out_string(&st->out, terminal_text(w->symbol, name, sizeof(name)));
		if ((f & SCRIPT_FIELD_SYMOFF) && strcmp(w->symbol, "[unknown]")) {
			text_out_bytes(&st->out, "+0x", 3);
			text_out_hex(&st->out, w->addr - w->symbol_start, 0);
		}
	}
	if ((f & SCRIPT_FIELD_DSO) && !w->inlined) {
		text_out_bytes(&st->out, " (", 2);
		text_out_string(&st->out, terminal_text(w->dso, name, sizeof(name)));
		text_out_char(&st->out, ')');
	}
	if (w->inlined) /* perf prints it whatever the fields */
		text_out_bytes(&st->out, " (inlined)", 10);
}

/* One frame of a callchain, as perf prints it: a user frame's address shown
 * as the offset in its file. */
static void print_frame(struct script_state *st, uint32_t f, uint64_t ip, const struct resolved *w)
{
	if (f & SCRIPT_FIELD_IP) {
		text_out_char(&st->out, '\t');
		text_out_hex(&st->out, w->mapped && !w->kernel ? w->map_ip : ip, 16);
	}
	print_symbol(st, f, w);
	text_out_char(&st->out, '\n');
}

/* The sample's own ip: its map found as perf finds it, in the other address
 * space if its mode's has none. */
static void print_ip(struct script_state *st, struct recording *r, uint32_t f, uint32_t pid,
		     uint64_t ip, uint16_t cpumode)
{
	struct resolved where;

	address_space_resolve(&r->as, pid, ip, cpumode, &where);
	if (!where.mapped && cpumode == PERF_RECORD_MISC_USER && ip >= KERNEL_START)
		address_space_resolve(&r->as, pid, ip, PERF_RECORD_MISC_KERNEL, &where);
	if (f & SCRIPT_FIELD_IP)
		text_out_hex(&st->out, ip, 16);
	print_symbol(st, f, &where);
}

/* The line of an address not kept: resolved, formatted and kept in the
 * slot of hash h. Out of line: the kept ones, most, need none of its
 * registers. */
static __attribute__((noinline)) void print_address_afresh(struct script_state *st,
							    struct recording *r, uint32_t f,
							    uint32_t pid, uint32_t key_pid,
							    uint64_t ip, uint16_t cpumode, uint64_t h)
{
	size_t start = st->out.buf.len, len;
	struct frame_line *e;
	struct resolved w;

	if (f & FRAME_OF_SAMPLE) {
		print_ip(st, r, f & ~FRAME_OF_SAMPLE, pid, ip, cpumode);
	} else {
		if (cpumode == PERF_RECORD_MISC_HYPERVISOR) /* perf has no maps there */
			w = (struct resolved){ "[unknown]", "[unknown]", 0, ip, ip, false, false, false };
		else
			address_space_resolve(&r->as, pid, ip, cpumode, &w);
		print_frame(st, f, ip, &w);
	}
	len = st->out.buf.len - start;
	if (st->out.out_of_memory || len > FRAME_LINE_TEXT ||
	    !(e = direct_cache_fill(&st->frame_lines, h, &r->as)))
		return;
	*e = (struct frame_line){ ip, key_pid, r->as.generation, f, cpumode, (uint16_t)len, { 0 } };
	if (len)
		memcpy(e->text, st->out.buf.data + start, len);
}

/* A callchain frame's line (fields f), or with FRAME_OF_SAMPLE in f the
 * sample's own ip: from the kept lines, else resolved, formatted and kept. */
static inline __attribute__((always_inline)) void print_address(struct script_state *st,
								 struct recording *r, uint32_t f,
								 uint32_t pid, uint64_t ip,
								 uint16_t cpumode)
{
	/* a kernel address resolves alike in every process (the kernel's map
	 * is everyone's): kept once, not once per process */
	uint32_t key_pid = cpumode == PERF_RECORD_MISC_KERNEL ? 0 : pid;
	uint64_t h = frame_line_hash(ip, key_pid, cpumode);
	struct frame_line *e = direct_cache_slot(&st->frame_lines, h);

	if (e && e->generation == r->as.generation && e->ip == ip && e->pid == key_pid &&
	    e->cpumode == cpumode && e->fields == f && text_out_room(&st->out, FRAME_LINE_TEXT)) {
		/* the whole slot copied in 16-byte moves (a call to memcpy of
		 * its length cost a tenth of script), and only the line kept:
		 * what follows is written over */
		text_out_copy_whole(st->out.buf.data + st->out.buf.len, e->text, FRAME_LINE_TEXT);
		st->out.buf.len += e->len;
		return;
	}
	print_address_afresh(st, r, f, pid, key_pid, ip, cpumode, h);
}

struct unwound_frames {
	struct script_state *st;
	uint32_t fields;
	unsigned int frames;
};

static int print_unwound_frame(void *ctx, uint64_t ip, const struct resolved *where)
{
	struct unwound_frames *u = ctx;

	if (u->frames >= SCRIPT_MAX_STACK)
		return 1;
	u->frames++;
	print_frame(u->st, u->fields, ip, where);
	return 0;
}

/* The callchain, leaf first, as perf resolves it (thread__resolve_callchain):
 * user mode until a context marker says otherwise, markers not counted, at
 * most SCRIPT_MAX_STACK frames, nothing if a marker is one perf does not know;
 * then, for --call-graph dwarf, the user frames unwound from the sample's
 * registers and stack, as perf appends them. */
static int print_callchain(struct script_state *st, struct recording *r, uint32_t f,
			   const struct perf_sample *s)
{
	uint16_t cpumode = PERF_RECORD_MISC_USER;
	struct unwound_frames u = { st, f, 0 };
	int ret;

	for (uint64_t i = 0; i < s->nr_callchain; i++) {
		uint64_t ip = s->callchain[i];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX &&
		    ip != (uint64_t)PERF_CONTEXT_KERNEL && ip != (uint64_t)PERF_CONTEXT_USER &&
		    ip != (uint64_t)PERF_CONTEXT_HV)
			return 0;
	}
	for (uint64_t i = 0; i < s->nr_callchain && u.frames < SCRIPT_MAX_STACK; i++) {
		uint64_t ip = s->callchain[i];

		if (ip == (uint64_t)PERF_CONTEXT_KERNEL) {
			cpumode = PERF_RECORD_MISC_KERNEL;
		} else if (ip == (uint64_t)PERF_CONTEXT_USER) {
			cpumode = PERF_RECORD_MISC_USER;
		} else if (ip == (uint64_t)PERF_CONTEXT_HV) {
			cpumode = PERF_RECORD_MISC_HYPERVISOR;
		} else {
			u.frames++;
			print_address(st, r, f, s->pid, ip, cpumode);
		}
	}
	if (!s->regs_abi)
		return 0;
	ret = recording_each_unwound_frame(r, s, print_unwound_frame, &u);
	return ret < 0 ? ret : 0;
}

/* The period and the event's name, as perf prints them after the time. */
static void put_period_event(struct script_state *st, const struct perf_input_event *ev,
			     uint32_t f, uint64_t period)
{
	if (f & SCRIPT_FIELD_PERIOD) {
		char buf[24], *end = buf + sizeof(buf), *p = text_out_decimal(end, period, 1);

		text_out_padded(&st->out, p, (size_t)(end - p), 10, false);
		text_out_char(&st->out, ' ');
	}
	if (f & SCRIPT_FIELD_EVENT) {
		const char *name = script_event_name(ev);

		text_out_padded(&st->out, name, strlen(name), st->name_width, false);
		text_out_bytes(&st->out, ": ", 2);
	}
}

/* The same, kept for each event's last period (an event's period seldom
 * changes, unless it samples by frequency). */
static void put_period_event_kept(struct script_state *st, unsigned int event,
				  const struct perf_input_event *ev, uint32_t f, uint64_t period)
{
	struct event_text *t = st->event_texts ? &st->event_texts[event] : NULL;
	size_t start = st->out.buf.len, len;

	if (t && t->len && t->period == period) {
		if (t->len <= EVENT_TEXT_COPY && text_out_room(&st->out, EVENT_TEXT_COPY)) {
			/* copied whole, as the frames' lines */
			text_out_copy_whole(st->out.buf.data + st->out.buf.len, t->text, EVENT_TEXT_COPY);
			st->out.buf.len += t->len;
		} else {
			text_out_bytes(&st->out, t->text, t->len);
		}
		return;
	}
	put_period_event(st, ev, f, period);
	len = st->out.buf.len - start;
	if (!t || !len || st->out.out_of_memory || len > EVENT_TEXT_ROOM(st))
		return;
	memcpy(t->text, st->out.buf.data + start, len);
	t->len = len;
	t->period = period;
}

static int on_sample(void *ctx, struct recording *r, unsigned int event,
		     const struct perf_sample *s, const struct stream_record *sr)
{
	struct script_state *st = ctx;
	const struct perf_input_event *ev = &r->in.events[event];
	uint32_t f = st->fields.fields[script_kind_of(ev)];

	(void)sr;
	if (!f || (st->filtered &&
		   !sample_filter_keeps(&st->filter, s, address_space_comm(&r->as, s->pid, s->tid))))
		return 0;
	put_thread_kept(st, r, event, s->pid, s->tid, s->cpu);
	if (f & SCRIPT_FIELD_TIME)
		put_time(st, s->time);
	if (f & (SCRIPT_FIELD_PERIOD | SCRIPT_FIELD_EVENT))
		put_period_event_kept(st, event, ev, f, s->period);
	if ((f & SCRIPT_FIELD_TRACE) && s->raw &&
	    tracepoint_printer_print(st->tracepoints, ev->attr.config, s->cpu, s->raw, s->raw_size,
				     &st->out.buf))
		return -ENOMEM;
	if (f & SCRIPT_FIELD_IP) {
		if (st->use_callchain && script_has_callchain(ev)) {
			text_out_char(&st->out, '\n');
			if (print_callchain(st, r, f, s))
				return -ENOMEM;
		} else {
			text_out_char(&st->out, ' ');
			print_address(st, r, f | FRAME_OF_SAMPLE, s->pid, s->ip,
				      s->misc & PERF_RECORD_MISC_CPUMODE_MASK);
		}
	}
	/* perf's default fields of a BPF-output event (offcpu-time) take in
	 * its bpf-output field, printed as a line break and the raw data,
	 * which ringtrace's samples of it do not have; -F +FIELD and -FIELD
	 * keep it, a list that replaces the fields drops it */
	if (!st->fields.replaced[script_kind_of(ev)] && ev->attr.type == PERF_TYPE_SOFTWARE &&
	    ev->attr.config == PERF_COUNT_SW_BPF_OUTPUT)
		text_out_char(&st->out, '\n');
	text_out_char(&st->out, '\n');
	return text_out_done(&st->out);
}

/* perf script --show-lost-events prints PERF_RECORD_LOST records (perf 6.1
 * has no handler for LOST_SAMPLES: --show-lost-samples prints those alike). */
static int on_lost(void *ctx, struct recording *r, const struct stream_record *sr,
		   const struct perf_input_event *ev, const struct perf_sample_id *sid,
		   uint64_t count)
{
	struct script_state *st = ctx;
	bool lost = sr->rec->type == PERF_RECORD_LOST;
	char line[64];
	int n;

	if (lost ? !st->o->show_lost_events : !st->o->show_lost_samples)
		return 0;
	if (ev)
		print_start(st, r, ev, sid->pid, sid->tid, sid->cpu, sid->time);
	n = snprintf(line, sizeof(line), "%s lost %" PRIu64 "\n",
		     lost ? "PERF_RECORD_LOST" : "PERF_RECORD_LOST_SAMPLES", count);
	text_out_bytes(&st->out, line, (size_t)n);
	return text_out_done(&st->out);
}

/* Room to keep each event's period and name, in one block; NULL if memory
 * ran out (a hint: they are formatted each time then). */
static struct event_text *new_event_texts(const struct script_state *st, unsigned int nr)
{
	struct event_text *t = calloc(1, nr * (sizeof(*t) + EVENT_TEXT_ROOM(st)));

	for (unsigned int i = 0; t && i < nr; i++)
		t[i].text = (char *)(t + nr) + i * EVENT_TEXT_ROOM(st);
	return t;
}

/* A kernel address in tracepoint text (%ps, %pS), named by the recording's
 * kernel symbols as its frames are. */
static const char *kernel_function(void *ctx, uint64_t addr, uint64_t *start)
{
	struct resolved r;

	address_space_resolve(ctx, 0, addr, PERF_RECORD_MISC_KERNEL, &r);
	if (!r.kernel || !r.symbol || !strcmp(r.symbol, "[unknown]"))
		return NULL;
	*start = r.symbol_start;
	return r.symbol;
}

int script_run(const struct script_options *o, FILE *out, char *err, size_t errlen)
{
	struct recording rec;
	struct script_state st = { .o = o, .err = err, .errlen = errlen };
	struct recording_visitor v = { on_sample, on_lost, &st };
	int r, flushed;

	text_out_init(&st.out, out);
	if (o->fields_set)
		st.fields = o->fields;
	else
		script_fields_default(&st.fields);
	if ((r = sample_filter_init(&st.filter, &o->filter, RECORDING_MAX_CPUS, err, errlen)))
		return r;
	st.filtered = o->filter.comms || o->filter.pids || o->filter.tids || o->filter.cpus ||
		      o->filter.time;
	if ((r = recording_open_parts(&rec, o->nr_inputs ? o->inputs : &o->input,
					 o->nr_inputs ? o->nr_inputs : 1, o->kallsyms, o->symfs, err,
					 errlen))) {
		sample_filter_free(&st.filter);
		return r;
	}
	/* the formats first: a malformed one is an error before any output */
	if ((r = script_fields_fit(&st.fields, &rec.in, o->no_callchain, &st.use_callchain,
				   &st.name_width, err, errlen)) ||
	    (r = tracepoint_printer_open(&st.tracepoints, &rec.in, err, errlen))) {
		tracepoint_printer_close(st.tracepoints);
		recording_close(&rec);
		sample_filter_free(&st.filter);
		return r;
	}
	tracepoint_printer_resolve_kernel(st.tracepoints, kernel_function, &rec.as);
	/* a hint: without it every line is formatted afresh */
	direct_cache_init(&st.frame_lines, sizeof(struct frame_line), FRAME_LINE_BITS, keep_frame_line);
	st.event_texts = new_event_texts(&st, rec.in.nr_events);
	r = recording_replay(&rec, &v, err, errlen);
	flushed = text_out_flush(&st.out); /* what came before a malformed record too */
	if (!r)
		r = flushed;
	if (r == -ENOMEM && !err[0])
		rt_format(err, errlen, "out of memory");
	if (r && !err[0])
		rt_format(err, errlen, "cannot write the output");
	tracepoint_printer_close(st.tracepoints);
	recording_close(&rec);
	direct_cache_free(&st.frame_lines);
	free(st.event_texts);
	text_out_free(&st.out);
	sample_filter_free(&st.filter);
	return r > 0 ? -EIO : r;
}
