/* SPDX-License-Identifier: GPL-2.0-only */
/* perf_record.h: encoding and decoding of individual perf records (SAMPLE,
 * COMM, MMAP, MMAP2, FORK, EXIT, CGROUP, LOST...) and their sample_id trailer. */
#ifndef RINGTRACE_PERF_RECORD_H
#define RINGTRACE_PERF_RECORD_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/byte_buffer.h"

/* Record types from here up are perf tool's own (FINISHED_ROUND, ...); they
 * carry no sample_id. */
#define PERF_RECORD_USER_TYPE_START 64

/* Room in a file that holds no record: a PERF_RECORD_HEADER_EVENT_TYPE, a
 * type every perf since 2013 reads and skips ("deprecated"), as ringtrace's
 * readers skip every perf tool type. perf_data_writer.c says why it exists. */
#define PERF_RECORD_FILL 65

/* Records are 8-byte aligned; header.size is a u16. */
#define PERF_RECORD_ALIGN 8u
#define PERF_RECORD_MAX_SIZE 65528u

/* The sample_id trailer that sample_id_all appends to non-sample records;
 * which fields are present follows the attr's sample_type. */
struct perf_sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu;
};

size_t perf_sample_id_size(uint64_t sample_type);

/* A decoded PERF_RECORD_SAMPLE; pointers point into the record. */
struct perf_sample {
	uint16_t misc;
	uint64_t id;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	uint64_t nr_callchain;
	const uint64_t *callchain;
	uint32_t raw_size;
	const uint8_t *raw;
	uint64_t regs_abi;          /* PERF_SAMPLE_REGS_USER: 0 (none, a kernel thread) or ... */
	uint64_t regs_mask;         /* ...the attr's sample_regs_user, whose bits say which... */
	const void *regs_user;      /* ...registers these u64 are, in bit order */
	uint64_t stack_size;        /* PERF_SAMPLE_STACK_USER: bytes copied from the user sp */
	const uint8_t *stack_user;  /* ...there, of which... */
	uint64_t stack_dyn_size;    /* ...these were read (<= stack_size) */
	uint64_t cgroup;
};

/* Sample fields this codec can walk past or decode. */
#define PERF_SAMPLE_DECODABLE                                                               \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |       \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |        \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_WEIGHT | \
	 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |                                    \
	 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR |             \
	 PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE |      \
	 PERF_SAMPLE_WEIGHT_STRUCT)

/* Side-band records, decoded; strings point into the record. */
struct perf_comm {
	uint32_t pid, tid;
	const char *comm;
	bool exec;
};

struct perf_mmap {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint8_t build_id_size; /* 0 if the record carries device/inode instead */
	uint8_t build_id[20];
	uint32_t prot, flags;
	const char *filename;
};

struct perf_task {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct perf_cgroup {
	uint64_t id;
	const char *path; /* from the cgroup v2 root: "/", "/system.slice", ... */
};

struct perf_lost {
	uint64_t id;
	uint64_t lost;
};

/* A side-band record that tracks processes and their mappings (MMAP2,
 * COMM, FORK, EXIT), decoded once: its type, its sample_id (has_sid false
 * when the record has none), and its body by type. */
struct perf_sideband {
	uint32_t type;
	bool has_sid;
	struct perf_sample_id sid;
	union {
		struct perf_mmap mmap;
		struct perf_comm comm;
		struct perf_task task;
	};
};

/* PERF_RECORD_NAMESPACES: a process's namespaces by NET_NS_INDEX ..
 * CGROUP_NS_INDEX, each the (st_dev, st_ino) of its /proc/PID/ns link. */
struct perf_namespaces {
	uint32_t pid, tid;
	struct perf_ns_link_info ns[NR_NAMESPACES]; /* those the record lacks: 0 */
};

/* The time of a PERF_RECORD_SAMPLE alone, read where sample_type puts it,
 * without decoding the rest (the reader's index reads every record's time).
 * 0 with *time set (0 if the sample has none), -EINVAL if the record is too short. */
int perf_sample_time(const struct perf_event_header *rec, uint64_t sample_type, uint64_t *time);
/* Decoders: 0 on success, -EINVAL if the record is malformed for its type
 * (too short, unterminated string, fields past its end). */
int perf_sample_decode(const struct perf_event_header *rec, uint64_t sample_type,
		       struct perf_sample *out);
/* The same, for a layout with PERF_SAMPLE_REGS_USER: regs_mask is the attr's
 * sample_regs_user (perf_sample_decode takes it as 0). */
int perf_sample_decode_regs(const struct perf_event_header *rec, uint64_t sample_type,
			    uint64_t regs_mask, struct perf_sample *out);
/* The value of register bit reg (a bit of regs_mask) of s's user registers:
 * 0, or -ENOENT if the sample has none or not that one. */
int perf_sample_user_reg(const struct perf_sample *s, unsigned int reg, uint64_t *value);
int perf_sample_id_decode(const struct perf_event_header *rec, uint64_t sample_type,
			  struct perf_sample_id *out);
int perf_comm_decode(const struct perf_event_header *rec, uint64_t sample_type,
		     struct perf_comm *out);
/* Decodes PERF_RECORD_MMAP and PERF_RECORD_MMAP2. */
int perf_mmap_decode(const struct perf_event_header *rec, uint64_t sample_type,
		     struct perf_mmap *out);
/* The next PERF_RECORD_MMAP2 among the records from *at to end (8-byte
 * aligned, as a ring or a synthesized buffer holds them), decoded into m
 * (its filename points into the record); *at moves past it. 1 when one was
 * found, 0 at the end or at the first malformed record. */
int perf_next_mmap2(const void **at, const void *end, uint64_t sample_type,
		    struct perf_mmap *m);
/* Decodes PERF_RECORD_MMAP2, _COMM, _FORK and _EXIT: 0, -ENOENT for
 * another type, -EINVAL if malformed (strings point into rec). */
int perf_sideband_decode(const struct perf_event_header *rec, uint64_t sample_type,
			 struct perf_sideband *out);
/* Decodes PERF_RECORD_FORK and PERF_RECORD_EXIT. */
int perf_task_decode(const struct perf_event_header *rec, struct perf_task *out);
int perf_cgroup_decode(const struct perf_event_header *rec, uint64_t sample_type,
		       struct perf_cgroup *out);
int perf_namespaces_decode(const struct perf_event_header *rec, struct perf_namespaces *out);
/* Decodes PERF_RECORD_LOST and PERF_RECORD_LOST_SAMPLES (id is 0 for the latter). */
int perf_lost_decode(const struct perf_event_header *rec, struct perf_lost *out);

/* Encoders append one complete record (sample_id trailer included) to b;
 * 0 on success, -ENOMEM if memory ran out, -E2BIG if the record would be too
 * large (-EINVAL for a type the encoder does not write). */
int perf_comm_encode(struct byte_buffer *b, uint64_t sample_type, const struct perf_comm *c,
		     const struct perf_sample_id *sid);
/* PERF_RECORD_MMAP2 from a user mapping (misc USER, build-id form if
 * build_id_size, MMAP_DATA if prot is given without PROT_EXEC). */
int perf_mmap2_encode(struct byte_buffer *b, uint64_t sample_type, const struct perf_mmap *m,
		      const struct perf_sample_id *sid);
/* The name of the kernel's text mapping, as perf names it. */
#define PERF_KERNEL_TEXT_NAME "[kernel.kallsyms]_text"
/* A kernel mapping (the kernel's text, a module: pid -1, misc KERNEL) as perf
 * writes it: PERF_RECORD_MMAP2 with the build-id if m has one (perf record
 * --buildid-mmap), else PERF_RECORD_MMAP. */
int perf_kernel_map_encode(struct byte_buffer *b, uint64_t sample_type, const struct perf_mmap *m,
			   const struct perf_sample_id *sid);
/* PERF_RECORD_MMAP of the kernel: pid -1, misc KERNEL, "[kernel.kallsyms]_text". */
int perf_kernel_mmap_encode(struct byte_buffer *b, uint64_t sample_type, uint64_t text_start,
			    const struct perf_sample_id *sid);
/* PERF_RECORD_FORK or PERF_RECORD_EXIT as type says. */
int perf_task_encode(struct byte_buffer *b, uint64_t sample_type, uint32_t type,
		     const struct perf_task *t, const struct perf_sample_id *sid);
int perf_namespaces_encode(struct byte_buffer *b, uint64_t sample_type,
			   const struct perf_namespaces *n, const struct perf_sample_id *sid);
int perf_cgroup_encode(struct byte_buffer *b, uint64_t sample_type, const struct perf_cgroup *c,
		       const struct perf_sample_id *sid);
/* PERF_RECORD_LOST or PERF_RECORD_LOST_SAMPLES as type says. */
int perf_lost_encode(struct byte_buffer *b, uint64_t sample_type, uint32_t type,
		     const struct perf_lost *l, const struct perf_sample_id *sid);

/* The name perf gives a record type ("SAMPLE", "MMAP2", ...), or NULL. */
const char *perf_record_type_name(uint32_t type);

#endif
