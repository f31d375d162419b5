/* SPDX-License-Identifier: GPL-2.0-only */
/* recording_layout.h: how a ringtrace recording lays itself out for perf: the
 * sample_id trailer of every record, the attrs and ids of its sampled events
 * and of the side-band tracking event, the time and the LOST records. */
#ifndef RINGTRACE_RECORDING_LAYOUT_H
#define RINGTRACE_RECORDING_LAYOUT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Clock of every timestamp ringtrace writes: BPF's bpf_ktime_get_ns(). */
#define RINGTRACE_CLOCKID 1 /* CLOCK_MONOTONIC */

/* Every record's sample_id trailer: the event id tells the events apart. */
#define RECORDING_SAMPLE_ID_TYPE \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
/* What every sample holds (struct rt_sample_head); callchain, raw record and
 * cgroup are added per event. */
#define RECORDING_SAMPLE_TYPE (PERF_SAMPLE_IP | RECORDING_SAMPLE_ID_TYPE | PERF_SAMPLE_PERIOD)
/* A LOST or LOST_SAMPLES record as ringtrace writes it, at most. */
#define RECORDING_LOST_MAX 64

/* What perf must know of one sampled event. */
struct recording_event {
	uint32_t type;           /* PERF_TYPE_* */
	uint64_t config;
	bool tracepoint;         /* samples carry its record (PERF_SAMPLE_RAW) */
	uint64_t freq;           /* samples per second, or 0... */
	uint64_t period;         /* ...every period events */
	bool exclude_user, exclude_kernel;
	bool callchain;          /* PERF_SAMPLE_CALLCHAIN */
	uint32_t stack_user;     /* --call-graph dwarf: PERF_SAMPLE_REGS_USER and
				    _STACK_USER of this size, no user callchain... */
	bool user_callchain;     /* ...unless this (ehframe+dwarf): user frames too */
	bool cgroup;             /* PERF_SAMPLE_CGROUP */
};

/* A recording's sample ids: "RT" in the top 16 bits, a nonce drawn once per
 * recording in the 32 bits above the low byte, the event number + 1 in the
 * low byte. A data.cpuN file has no header: its records' ids tell which
 * recording it belongs to. */
#define RECORDING_MAX_EVENTS 255
/* The base of a recording's ids, from its random nonce. */
uint64_t recording_id_base(uint32_t nonce);
/* The id of event i's samples (i < RECORDING_MAX_EVENTS) in the recording of
 * that base. */
uint64_t recording_event_id(uint64_t base, unsigned int i);

/* The attr perf reads for an event: what was opened and the sample layout the
 * BPF program writes for it. */
void recording_event_attr(struct perf_event_attr *a, const struct recording_event *ev);

/* The side-band tracking event as perf records it ("dummy:HG"). */
void recording_tracking_attr(struct perf_event_attr *a, bool cgroup, bool mmap_data);

/* The time of a record of a ringtrace recording: a sample's own, else its
 * sample_id trailer's (0 if it has none). */
uint64_t recording_record_time(const void *rec);

/* Writes into buf (cap bytes, at least RECORDING_LOST_MAX) a LOST or
 * LOST_SAMPLES record (type) of event id counting count records lost on cpu
 * since time. Returns its size, or 0 if it does not fit. */
size_t recording_lost_record(void *buf, size_t cap, uint32_t type, uint64_t id, uint64_t count,
			     uint64_t time, int cpu);
/* The same, with the task whose record followed the loss in sample_id's pid
 * and tid, as the kernel stamps the LOST record it writes before that one
 * (the others carry 0, as perf record's own LOST_SAMPLES do). */
size_t recording_lost_record_of_task(void *buf, size_t cap, uint32_t type, uint64_t id,
				     uint64_t count, uint64_t time, int cpu, uint32_t pid,
				     uint32_t tid);

/* The count of a LOST or LOST_SAMPLES record (0 if malformed). */
uint64_t recording_lost_count(const void *rec);

#endif
