/* SPDX-License-Identifier: GPL-2.0-only */
/* perf_record.c: decoding of individual perf records and their sample_id
 * trailer, with every field bounds-checked against header.size (the
 * encoders: perf_record_encode.c). */
#include "format/perf_record.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

/* A bounded cursor over a record's bytes; fields are copied, never cast, so
 * misaligned or truncated input cannot fault. */
struct cursor {
	const uint8_t *p;
	const uint8_t *end;
};

static int take(struct cursor *c, void *dst, size_t len)
{
	if ((size_t)(c->end - c->p) < len)
		return -EINVAL;
	if (dst)
		memcpy(dst, c->p, len);
	c->p += len;
	return 0;
}

static int take_u64(struct cursor *c, uint64_t *v)
{
	return take(c, v, sizeof(*v));
}

static int take_u32_pair(struct cursor *c, uint32_t *a, uint32_t *b)
{
	uint32_t pair[2];

	if (take(c, pair, sizeof(pair)))
		return -EINVAL;
	if (a)
		*a = pair[0];
	if (b)
		*b = pair[1];
	return 0;
}

static struct cursor record_cursor(const struct perf_event_header *rec)
{
	const uint8_t *base = (const uint8_t *)rec;

	return (struct cursor){ base + sizeof(*rec), base + rec->size };
}

size_t perf_sample_id_size(uint64_t sample_type)
{
	size_t n = 0;

	if (sample_type & PERF_SAMPLE_TID)
		n += 8;
	if (sample_type & PERF_SAMPLE_TIME)
		n += 8;
	if (sample_type & PERF_SAMPLE_ID)
		n += 8;
	if (sample_type & PERF_SAMPLE_STREAM_ID)
		n += 8;
	if (sample_type & PERF_SAMPLE_CPU)
		n += 8;
	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		n += 8;
	return n;
}

int perf_sample_id_decode(const struct perf_event_header *rec, uint64_t sample_type,
			  struct perf_sample_id *out)
{
	size_t n = perf_sample_id_size(sample_type);
	struct cursor c = record_cursor(rec);

	memset(out, 0, sizeof(*out));
	if (rec->size < sizeof(*rec) + n)
		return -EINVAL;
	c.p = c.end - n;
	if (sample_type & PERF_SAMPLE_TID)
		take_u32_pair(&c, &out->pid, &out->tid);
	if (sample_type & PERF_SAMPLE_TIME)
		take_u64(&c, &out->time);
	if (sample_type & PERF_SAMPLE_ID)
		take_u64(&c, &out->id);
	if (sample_type & PERF_SAMPLE_STREAM_ID)
		take_u64(&c, &out->stream_id);
	if (sample_type & PERF_SAMPLE_CPU)
		take_u32_pair(&c, &out->cpu, NULL);
	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		take_u64(&c, &out->id);
	return 0;
}

/* PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER, as perf's
 * evsel__parse_sample reads them: a stack's size a multiple of 8, its
 * dyn_size no more than it. */
static int take_user_regs_stack(struct cursor *c, uint64_t sample_type, uint64_t regs_mask,
				struct perf_sample *out)
{
	if (sample_type & PERF_SAMPLE_REGS_USER) {
		uint64_t nr = (uint64_t)__builtin_popcountll(regs_mask);

		if (take_u64(c, &out->regs_abi))
			return -EINVAL;
		if (out->regs_abi) {
			if (nr > (uint64_t)(c->end - c->p) / sizeof(uint64_t))
				return -EINVAL;
			out->regs_mask = regs_mask;
			out->regs_user = c->p;
			c->p += nr * sizeof(uint64_t);
		}
	}
	if (sample_type & PERF_SAMPLE_STACK_USER) {
		if (take_u64(c, &out->stack_size))
			return -EINVAL;
		if (out->stack_size) {
			if (out->stack_size % 8 || out->stack_size > (uint64_t)(c->end - c->p))
				return -EINVAL;
			out->stack_user = c->p;
			c->p += out->stack_size;
			if (take_u64(c, &out->stack_dyn_size) ||
			    out->stack_dyn_size > out->stack_size)
				return -EINVAL;
		}
	}
	return 0;
}

int perf_sample_user_reg(const struct perf_sample *s, unsigned int reg, uint64_t *value)
{
	if (!s->regs_abi || reg >= 64 || !(s->regs_mask & (1ULL << reg)))
		return -ENOENT;
	/* a fuzzed raw field may leave the registers unaligned */
	memcpy(value, (const uint8_t *)s->regs_user +
			      8 * __builtin_popcountll(s->regs_mask & ((1ULL << reg) - 1)),
	       sizeof(*value));
	return 0;
}

int perf_sample_decode(const struct perf_event_header *rec, uint64_t sample_type,
		       struct perf_sample *out)
{
	return perf_sample_decode_regs(rec, sample_type, 0, out);
}

int perf_sample_time(const struct perf_event_header *rec, uint64_t sample_type, uint64_t *time)
{
	/* IDENTIFIER, IP and TID come before TIME, each 8 bytes (counted by
	 * hand: without -mpopcnt, __builtin_popcountll is a call into libgcc) */
	size_t at = sizeof(*rec) + 8 * (!!(sample_type & PERF_SAMPLE_IDENTIFIER) +
					 !!(sample_type & PERF_SAMPLE_IP) +
					 !!(sample_type & PERF_SAMPLE_TID));

	*time = 0;
	if (!(sample_type & PERF_SAMPLE_TIME))
		return 0;
	if (rec->size < at + sizeof(*time))
		return -EINVAL;
	memcpy(time, (const uint8_t *)rec + at, sizeof(*time));
	return 0;
}

int perf_sample_decode_regs(const struct perf_event_header *rec, uint64_t sample_type,
			    uint64_t regs_mask, struct perf_sample *out)
{
	struct cursor c = record_cursor(rec);

	memset(out, 0, sizeof(*out));
	out->misc = rec->misc;
	if (rec->type != PERF_RECORD_SAMPLE || (sample_type & ~PERF_SAMPLE_DECODABLE))
		return -EINVAL;
	if ((sample_type & PERF_SAMPLE_IDENTIFIER) && take_u64(&c, &out->id))
		return -EINVAL;
	if ((sample_type & PERF_SAMPLE_IP) && take_u64(&c, &out->ip))
		return -EINVAL;
	if ((sample_type & PERF_SAMPLE_TID) && take_u32_pair(&c, &out->pid, &out->tid))
		return -EINVAL;
	if ((sample_type & PERF_SAMPLE_TIME) && take_u64(&c, &out->time))
		return -EINVAL;
	if ((sample_type & PERF_SAMPLE_ADDR) && take_u64(&c, &out->addr))
		return -EINVAL;
	if ((sample_type & PERF_SAMPLE_ID) && take_u64(&c, &out->id))
		return -EINVAL;
	if ((sample_type & PERF_SAMPLE_STREAM_ID) && take_u64(&c, &out->stream_id))
		return -EINVAL;
	if ((sample_type & PERF_SAMPLE_CPU) && take_u32_pair(&c, &out->cpu, NULL))
		return -EINVAL;
	if ((sample_type & PERF_SAMPLE_PERIOD) && take_u64(&c, &out->period))
		return -EINVAL;
	if (sample_type & PERF_SAMPLE_CALLCHAIN) {
		if (take_u64(&c, &out->nr_callchain))
			return -EINVAL;
		if (out->nr_callchain > (uint64_t)(c.end - c.p) / sizeof(uint64_t))
			return -EINVAL;
		/* Records start 8-byte aligned and every field before is a u64
		 * multiple, so the ips are aligned within an aligned record. */
		out->callchain = (const uint64_t *)c.p;
		c.p += out->nr_callchain * sizeof(uint64_t);
	}
	if (sample_type & PERF_SAMPLE_RAW) {
		if (take(&c, &out->raw_size, sizeof(out->raw_size)))
			return -EINVAL;
		out->raw = c.p;
		if (take(&c, NULL, out->raw_size))
			return -EINVAL;
	}
	if (take_user_regs_stack(&c, sample_type, regs_mask, out))
		return -EINVAL;
	/* Fixed-size u64 fields up to and including CGROUP, in sample_type order. */
	if ((sample_type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) && take(&c, NULL, 8))
		return -EINVAL;
	if ((sample_type & PERF_SAMPLE_DATA_SRC) && take(&c, NULL, 8))
		return -EINVAL;
	if ((sample_type & PERF_SAMPLE_TRANSACTION) && take(&c, NULL, 8))
		return -EINVAL;
	if ((sample_type & PERF_SAMPLE_PHYS_ADDR) && take(&c, NULL, 8))
		return -EINVAL;
	if ((sample_type & PERF_SAMPLE_CGROUP) && take_u64(&c, &out->cgroup))
		return -EINVAL;
	return 0;
}

/* The bytes between the fixed part of a record and its sample_id trailer
 * must hold a NUL-terminated string. */
static const char *take_string(struct cursor *c, uint64_t sample_type)
{
	size_t id = perf_sample_id_size(sample_type);
	size_t room;
	const char *s = (const char *)c->p;

	if ((size_t)(c->end - c->p) < id)
		return NULL;
	room = (size_t)(c->end - c->p) - id;
	if (!room || !memchr(s, '\0', room))
		return NULL;
	return s;
}

int perf_comm_decode(const struct perf_event_header *rec, uint64_t sample_type,
		     struct perf_comm *out)
{
	struct cursor c = record_cursor(rec);

	memset(out, 0, sizeof(*out));
	if (rec->type != PERF_RECORD_COMM || take_u32_pair(&c, &out->pid, &out->tid))
		return -EINVAL;
	out->exec = rec->misc & PERF_RECORD_MISC_COMM_EXEC;
	out->comm = take_string(&c, sample_type);
	return out->comm ? 0 : -EINVAL;
}

int perf_mmap_decode(const struct perf_event_header *rec, uint64_t sample_type,
		     struct perf_mmap *out)
{
	struct cursor c = record_cursor(rec);

	memset(out, 0, sizeof(*out));
	if (rec->type != PERF_RECORD_MMAP && rec->type != PERF_RECORD_MMAP2)
		return -EINVAL;
	if (take_u32_pair(&c, &out->pid, &out->tid) || take_u64(&c, &out->start) ||
	    take_u64(&c, &out->len) || take_u64(&c, &out->pgoff))
		return -EINVAL;
	if (rec->type == PERF_RECORD_MMAP2) {
		uint8_t ids[24];

		if (take(&c, ids, sizeof(ids)))
			return -EINVAL;
		if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			out->build_id_size = ids[0] > 20 ? 20 : ids[0];
			memcpy(out->build_id, ids + 4, 20);
		} else {
			memcpy(&out->maj, ids, 4);
			memcpy(&out->min, ids + 4, 4);
			memcpy(&out->ino, ids + 8, 8);
			memcpy(&out->ino_generation, ids + 16, 8);
		}
		if (take_u32_pair(&c, &out->prot, &out->flags))
			return -EINVAL;
	}
	out->filename = take_string(&c, sample_type);
	return out->filename ? 0 : -EINVAL;
}

int perf_next_mmap2(const void **at, const void *end, uint64_t sample_type,
		    struct perf_mmap *m)
{
	const uint8_t *p = *at, *stop = end;

	while ((size_t)(stop - p) >= sizeof(struct perf_event_header) && !((uintptr_t)p % 8)) {
		const struct perf_event_header *h = (const void *)p;

		if (h->size < sizeof(*h) || h->size > (size_t)(stop - p))
			break;
		p += h->size;
		*at = p;
		if (h->type == PERF_RECORD_MMAP2 && !perf_mmap_decode(h, sample_type, m))
			return 1;
	}
	*at = stop;
	return 0;
}

int perf_task_decode(const struct perf_event_header *rec, struct perf_task *out)
{
	struct cursor c = record_cursor(rec);

	memset(out, 0, sizeof(*out));
	if (rec->type != PERF_RECORD_FORK && rec->type != PERF_RECORD_EXIT)
		return -EINVAL;
	if (take_u32_pair(&c, &out->pid, &out->ppid) || take_u32_pair(&c, &out->tid, &out->ptid) ||
	    take_u64(&c, &out->time))
		return -EINVAL;
	return 0;
}

int perf_sideband_decode(const struct perf_event_header *rec, uint64_t sample_type,
			 struct perf_sideband *out)
{
	int r;

	memset(out, 0, sizeof(*out));
	out->type = rec->type;
	switch (rec->type) {
	case PERF_RECORD_MMAP2:
		r = perf_mmap_decode(rec, sample_type, &out->mmap);
		break;
	case PERF_RECORD_COMM:
		r = perf_comm_decode(rec, sample_type, &out->comm);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		r = perf_task_decode(rec, &out->task);
		break;
	default:
		return -ENOENT;
	}
	if (r)
		return r;
	out->has_sid = !perf_sample_id_decode(rec, sample_type, &out->sid);
	return 0;
}

int perf_cgroup_decode(const struct perf_event_header *rec, uint64_t sample_type,
		       struct perf_cgroup *out)
{
	struct cursor c = record_cursor(rec);

	memset(out, 0, sizeof(*out));
	if (rec->type != PERF_RECORD_CGROUP || take_u64(&c, &out->id))
		return -EINVAL;
	out->path = take_string(&c, sample_type);
	return out->path ? 0 : -EINVAL;
}

int perf_namespaces_decode(const struct perf_event_header *rec, struct perf_namespaces *out)
{
	struct cursor c = record_cursor(rec);
	uint64_t nr;

	memset(out, 0, sizeof(*out));
	if (rec->type != PERF_RECORD_NAMESPACES || take_u32_pair(&c, &out->pid, &out->tid) ||
	    take_u64(&c, &nr) || nr > (size_t)(c.end - c.p) / sizeof(out->ns[0]))
		return -EINVAL;
	return take(&c, out->ns, (nr < NR_NAMESPACES ? nr : NR_NAMESPACES) * sizeof(out->ns[0]));
}

int perf_lost_decode(const struct perf_event_header *rec, struct perf_lost *out)
{
	struct cursor c = record_cursor(rec);

	memset(out, 0, sizeof(*out));
	if (rec->type == PERF_RECORD_LOST)
		return take_u64(&c, &out->id) || take_u64(&c, &out->lost) ? -EINVAL : 0;
	if (rec->type == PERF_RECORD_LOST_SAMPLES)
		return take_u64(&c, &out->lost);
	return -EINVAL;
}

const char *perf_record_type_name(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_MMAP: return "MMAP";
	case PERF_RECORD_LOST: return "LOST";
	case PERF_RECORD_COMM: return "COMM";
	case PERF_RECORD_EXIT: return "EXIT";
	case PERF_RECORD_THROTTLE: return "THROTTLE";
	case PERF_RECORD_UNTHROTTLE: return "UNTHROTTLE";
	case PERF_RECORD_FORK: return "FORK";
	case PERF_RECORD_READ: return "READ";
	case PERF_RECORD_SAMPLE: return "SAMPLE";
	case PERF_RECORD_MMAP2: return "MMAP2";
	case PERF_RECORD_AUX: return "AUX";
	case PERF_RECORD_ITRACE_START: return "ITRACE_START";
	case PERF_RECORD_LOST_SAMPLES: return "LOST_SAMPLES";
	case PERF_RECORD_SWITCH: return "SWITCH";
	case PERF_RECORD_SWITCH_CPU_WIDE: return "SWITCH_CPU_WIDE";
	case PERF_RECORD_NAMESPACES: return "NAMESPACES";
	case PERF_RECORD_KSYMBOL: return "KSYMBOL";
	case PERF_RECORD_BPF_EVENT: return "BPF_EVENT";
	case PERF_RECORD_CGROUP: return "CGROUP";
	case PERF_RECORD_TEXT_POKE: return "TEXT_POKE";
	default: return NULL;
	}
}
