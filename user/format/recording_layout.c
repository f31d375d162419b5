/* SPDX-License-Identifier: GPL-2.0-only */
/* recording_layout.c: how a ringtrace recording lays itself out for perf: the
 * attrs and ids of its events, the time and the LOST records of its streams. */
#include "format/recording_layout.h"

#include <string.h>

#include "format/perf_record.h"
#include "sample_record.h"

/* The ids of ringtrace's own events: "RT", the recording's nonce and the
 * event number. */
#define EVENT_ID_RT 0x5254000000000000ULL

uint64_t recording_id_base(uint32_t nonce)
{
	return EVENT_ID_RT | (uint64_t)nonce << 8;
}

uint64_t recording_event_id(uint64_t base, unsigned int i)
{
	return (base & ~0xffULL) | ((i + 1) & 0xff);
}

void recording_event_attr(struct perf_event_attr *a, const struct recording_event *ev)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = ev->type;
	a->config = ev->config;
	if (ev->freq) {
		a->freq = 1;
		a->sample_freq = ev->freq;
	} else {
		a->sample_period = ev->period;
	}
	a->sample_type = RECORDING_SAMPLE_TYPE | (ev->callchain ? PERF_SAMPLE_CALLCHAIN : 0) |
			 (ev->tracepoint ? PERF_SAMPLE_RAW : 0) |
			 (ev->cgroup ? PERF_SAMPLE_CGROUP : 0);
	if (ev->stack_user) {
		/* as perf's evsel__config_callchain for CALLCHAIN_DWARF */
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = RT_REGS_USER_MASK;
		a->sample_stack_user = ev->stack_user;
		/* ehframe+dwarf: the callchain has the kernel's unwinding of
		 * the same stack */
		a->exclude_callchain_user = !ev->user_callchain;
	}
	a->sample_id_all = 1;
	a->exclude_guest = 1;
	a->exclude_user = ev->exclude_user;
	a->exclude_kernel = ev->exclude_kernel;
	a->use_clockid = 1;
	a->clockid = RINGTRACE_CLOCKID;
}

void recording_tracking_attr(struct perf_event_attr *a, bool cgroup, bool mmap_data)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->sample_period = 1;
	a->sample_type = RECORDING_SAMPLE_TYPE;
	a->sample_id_all = 1;
	a->exclude_guest = 1;
	a->use_clockid = 1;
	a->clockid = RINGTRACE_CLOCKID;
	a->comm = a->comm_exec = a->mmap = a->mmap2 = a->task = 1;
	a->cgroup = cgroup;
	a->mmap_data = mmap_data;
}

uint64_t recording_record_time(const void *rec)
{
	const struct perf_event_header *h = rec;
	struct perf_sample_id sid;
	uint64_t t;

	if (h->type == PERF_RECORD_SAMPLE) {
		memcpy(&t, (const uint8_t *)rec + offsetof(struct rt_sample_head, time), sizeof(t));
		return t;
	}
	return perf_sample_id_decode(h, RECORDING_SAMPLE_ID_TYPE, &sid) ? 0 : sid.time;
}

size_t recording_lost_record(void *buf, size_t cap, uint32_t type, uint64_t id, uint64_t count,
			     uint64_t time, int cpu)
{
	return recording_lost_record_of_task(buf, cap, type, id, count, time, cpu, 0, 0);
}

size_t recording_lost_record_of_task(void *buf, size_t cap, uint32_t type, uint64_t id,
				     uint64_t count, uint64_t time, int cpu, uint32_t pid,
				     uint32_t tid)
{
	struct byte_buffer b = { 0 };
	struct perf_lost l = { .id = id, .lost = count };
	struct perf_sample_id sid = { .pid = pid, .tid = tid, .time = time, .cpu = (uint32_t)cpu,
				      .id = id };
	size_t size = 0;

	if (!perf_lost_encode(&b, RECORDING_SAMPLE_ID_TYPE, type, &l, &sid) && b.len <= cap) {
		memcpy(buf, b.data, b.len);
		size = b.len;
	}
	byte_buffer_free(&b);
	return size;
}

uint64_t recording_lost_count(const void *rec)
{
	struct perf_lost l;

	return perf_lost_decode(rec, &l) ? 0 : l.lost;
}
