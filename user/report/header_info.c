/* SPDX-License-Identifier: GPL-2.0-only */
/* header_info.c: a recording's header as perf report --header prints it:
 * the header file's sizes and offsets, then each feature it holds, in perf's
 * format and order. */
#include "report/header_info.h"

#include <inttypes.h>
#include <linux/perf_event.h>
#include <string.h>
#include <time.h>

/* perf 6.1's names of the feature bits, [0] (reserved) and past the last
 * (HEADER_LAST_FEATURE, 32) unnamed. */
static const char *const feature_names[] = {
	NULL,		"TRACING_DATA", "BUILD_ID",	 "HOSTNAME",	  "OSRELEASE",
	"VERSION",	"ARCH",		"NRCPUS",	 "CPUDESC",	  "CPUID",
	"TOTAL_MEM",	"CMDLINE",	"EVENT_DESC",	 "CPU_TOPOLOGY",  "NUMA_TOPOLOGY",
	"BRANCH_STACK", "PMU_MAPPINGS", "GROUP_DESC",	 "AUXTRACE",	  "STAT",
	"CACHE",	"SAMPLE_TIME",	"MEM_TOPOLOGY",	 "CLOCKID",	  "DIR_FORMAT",
	"BPF_PROG_INFO", "BPF_BTF",	"COMPRESSED",	 "CPU_PMU_CAPS",  "CLOCK_DATA",
	"HYBRID_TOPOLOGY", "PMU_CAPS",
};
#define NR_FEATURES (sizeof(feature_names) / sizeof(feature_names[0]))

/* A feature section's reader: its bytes, what is left of them. */
struct section {
	const uint8_t *p, *end;
};

static bool take(struct section *s, void *out, size_t len)
{
	if ((size_t)(s->end - s->p) < len)
		return false;
	memcpy(out, s->p, len);
	s->p += len;
	return true;
}

/* A string as perf writes them (u32 padded length, then the bytes, NUL
 * within): its text, or NULL. */
static const char *take_string(struct section *s)
{
	uint32_t len;
	const char *text;

	if (!take(s, &len, sizeof(len)) || len > (size_t)(s->end - s->p) || !len ||
	    !memchr(s->p, '\0', len))
		return NULL;
	text = (const char *)s->p;
	s->p += len;
	return text;
}

struct bit_name {
	uint64_t bit;
	const char *name;
};

/* Bits of value named by names, joined by "|", in the names' order. */
static void put_bits(FILE *out, uint64_t value, const struct bit_name *names)
{
	bool first = true;

	for (; names->name; names++)
		if (value & names->bit) {
			fprintf(out, "%s%s", first ? "" : "|", names->name);
			first = false;
		}
}

#define BIT(prefix, n) { prefix##n, #n }
static const struct bit_name sample_type_names[] = {
	BIT(PERF_SAMPLE_, IP),		 BIT(PERF_SAMPLE_, TID),
	BIT(PERF_SAMPLE_, TIME),	 BIT(PERF_SAMPLE_, ADDR),
	BIT(PERF_SAMPLE_, READ),	 BIT(PERF_SAMPLE_, CALLCHAIN),
	BIT(PERF_SAMPLE_, ID),		 BIT(PERF_SAMPLE_, CPU),
	BIT(PERF_SAMPLE_, PERIOD),	 BIT(PERF_SAMPLE_, STREAM_ID),
	BIT(PERF_SAMPLE_, RAW),		 BIT(PERF_SAMPLE_, BRANCH_STACK),
	BIT(PERF_SAMPLE_, REGS_USER),	 BIT(PERF_SAMPLE_, STACK_USER),
	BIT(PERF_SAMPLE_, IDENTIFIER),	 BIT(PERF_SAMPLE_, REGS_INTR),
	BIT(PERF_SAMPLE_, DATA_SRC),	 BIT(PERF_SAMPLE_, WEIGHT),
	BIT(PERF_SAMPLE_, PHYS_ADDR),	 BIT(PERF_SAMPLE_, AUX),
	BIT(PERF_SAMPLE_, CGROUP),	 BIT(PERF_SAMPLE_, DATA_PAGE_SIZE),
	BIT(PERF_SAMPLE_, CODE_PAGE_SIZE), BIT(PERF_SAMPLE_, WEIGHT_STRUCT),
	{ 0, NULL },
};

static const struct bit_name branch_type_names[] = {
	BIT(PERF_SAMPLE_BRANCH_, USER),	      BIT(PERF_SAMPLE_BRANCH_, KERNEL),
	BIT(PERF_SAMPLE_BRANCH_, HV),	      BIT(PERF_SAMPLE_BRANCH_, ANY),
	BIT(PERF_SAMPLE_BRANCH_, ANY_CALL),   BIT(PERF_SAMPLE_BRANCH_, ANY_RETURN),
	BIT(PERF_SAMPLE_BRANCH_, IND_CALL),   BIT(PERF_SAMPLE_BRANCH_, ABORT_TX),
	BIT(PERF_SAMPLE_BRANCH_, IN_TX),      BIT(PERF_SAMPLE_BRANCH_, NO_TX),
	BIT(PERF_SAMPLE_BRANCH_, COND),	      BIT(PERF_SAMPLE_BRANCH_, CALL_STACK),
	BIT(PERF_SAMPLE_BRANCH_, IND_JUMP),   BIT(PERF_SAMPLE_BRANCH_, CALL),
	BIT(PERF_SAMPLE_BRANCH_, NO_FLAGS),   BIT(PERF_SAMPLE_BRANCH_, NO_CYCLES),
	BIT(PERF_SAMPLE_BRANCH_, TYPE_SAVE),  BIT(PERF_SAMPLE_BRANCH_, HW_INDEX),
	{ 0, NULL },
};

static const struct bit_name read_format_names[] = {
	BIT(PERF_FORMAT_, TOTAL_TIME_ENABLED), BIT(PERF_FORMAT_, TOTAL_TIME_RUNNING),
	BIT(PERF_FORMAT_, ID), BIT(PERF_FORMAT_, GROUP), BIT(PERF_FORMAT_, LOST),
	{ 0, NULL },
};
#undef BIT

/* The attr's fields that are not zero, ", name = value" each, in the order
 * and the forms perf's perf_event_attr__fprintf prints them. */
static void put_attr(FILE *out, const struct perf_event_attr *a)
{
#define U(label, f)                                                                        \
	do {                                                                               \
		if (a->f)                                                                  \
			fprintf(out, ", %s = %" PRIu64, label, (uint64_t)a->f);             \
	} while (0)
#define X(label, f)                                                                        \
	do {                                                                               \
		if (a->f)                                                                  \
			fprintf(out, ", %s = %#" PRIx64, label, (uint64_t)a->f);            \
	} while (0)
#define B(f, names)                                                                        \
	do {                                                                               \
		if (a->f) {                                                                \
			fprintf(out, ", %s = ", #f);                                       \
			put_bits(out, a->f, names);                                        \
		}                                                                          \
	} while (0)
#define F(f) U(#f, f)
	F(type);
	F(size);
	X("config", config);
	U("{ sample_period, sample_freq }", sample_period);
	B(sample_type, sample_type_names);
	B(read_format, read_format_names);
	F(disabled);
	F(inherit);
	F(pinned);
	F(exclusive);
	F(exclude_user);
	F(exclude_kernel);
	F(exclude_hv);
	F(exclude_idle);
	F(mmap);
	F(comm);
	F(freq);
	F(inherit_stat);
	F(enable_on_exec);
	F(task);
	F(watermark);
	F(precise_ip);
	F(mmap_data);
	F(sample_id_all);
	F(exclude_host);
	F(exclude_guest);
	F(exclude_callchain_kernel);
	F(exclude_callchain_user);
	F(mmap2);
	F(comm_exec);
	F(use_clockid);
	F(context_switch);
	F(write_backward);
	F(namespaces);
	F(ksymbol);
	F(bpf_event);
	F(aux_output);
	F(cgroup);
	F(text_poke);
	F(build_id);
	F(inherit_thread);
	F(remove_on_exec);
	F(sigtrap);
	U("{ wakeup_events, wakeup_watermark }", wakeup_events);
	F(bp_type);
	X("{ bp_addr, config1 }", bp_addr);
	X("{ bp_len, config2 }", bp_len);
	B(branch_sample_type, branch_type_names);
	X("sample_regs_user", sample_regs_user);
	F(sample_stack_user);
	if (a->clockid)
		fprintf(out, ", clockid = %" PRId64, (int64_t)a->clockid);
	X("sample_regs_intr", sample_regs_intr);
	F(aux_watermark);
	F(sample_max_stack);
	F(aux_sample_size);
	F(sig_data);
#undef F
#undef B
#undef X
#undef U
}

/* HEADER_EVENT_DESC: "# event : name = NAME, , id = { ID, ... }, ATTR"
 * a line per event (perf's doubled comma included). */
static void put_events(FILE *out, struct section s)
{
	uint32_t nr, attr_size;

	if (!take(&s, &nr, sizeof(nr)) || !take(&s, &attr_size, sizeof(attr_size)))
		return;
	for (uint32_t i = 0; i < nr; i++) {
		struct perf_event_attr a;
		uint32_t nr_ids;
		const char *name;

		memset(&a, 0, sizeof(a));
		if ((size_t)(s.end - s.p) < attr_size)
			return;
		memcpy(&a, s.p, attr_size < sizeof(a) ? attr_size : sizeof(a));
		s.p += attr_size;
		if (!take(&s, &nr_ids, sizeof(nr_ids)) || !(name = take_string(&s)) ||
		    nr_ids > (size_t)(s.end - s.p) / sizeof(uint64_t))
			return;
		fprintf(out, "# event : name = %s, ", name);
		if (nr_ids) {
			fputs(", id = {", out);
			for (uint32_t j = 0; j < nr_ids; j++) {
				uint64_t id = 0;

				take(&s, &id, sizeof(id));
				fprintf(out, "%s %" PRIu64, j ? "," : "", id);
			}
			fputs(" }", out);
		}
		put_attr(out, &a);
		fputc('\n', out);
	}
}

/* HEADER_CMDLINE: the arguments, each followed by a space, a ' as \'. */
static void put_cmdline(FILE *out, struct section s)
{
	uint32_t nr;
	const char *arg;

	if (!take(&s, &nr, sizeof(nr)))
		return;
	fputs("# cmdline : ", out);
	for (uint32_t i = 0; i < nr && (arg = take_string(&s)); i++) {
		for (; *arg; arg++)
			fputs(*arg == '\'' ? "\\'" : (char[]){ *arg, 0 }, out);
		fputc(' ', out);
	}
	fputc('\n', out);
}

/* One feature's lines, as perf prints it; nothing for those perf prints
 * nothing of (TRACING_DATA) or that ringtrace never writes. */
static void put_feature(FILE *out, int bit, struct section s)
{
	static const char *const string_labels[] = {
		[PERF_FEAT_HOSTNAME] = "hostname",
		[PERF_FEAT_OSRELEASE] = "os release",
		[PERF_FEAT_VERSION] = "perf version",
		[PERF_FEAT_ARCH] = "arch",
	};
	const char *text;
	uint32_t cpus[2];
	uint64_t v;

	switch (bit) {
	case PERF_FEAT_HOSTNAME:
	case PERF_FEAT_OSRELEASE:
	case PERF_FEAT_VERSION:
	case PERF_FEAT_ARCH:
		if ((text = take_string(&s)))
			fprintf(out, "# %s : %s\n", string_labels[bit], text);
		break;
	case PERF_FEAT_NRCPUS:
		/* written available, then online */
		if (take(&s, cpus, sizeof(cpus)))
			fprintf(out, "# nrcpus online : %u\n# nrcpus avail : %u\n", cpus[1], cpus[0]);
		break;
	case PERF_FEAT_CMDLINE:
		put_cmdline(out, s);
		break;
	case PERF_FEAT_EVENT_DESC:
		put_events(out, s);
		break;
	case PERF_FEAT_CLOCKID:
		if (take(&s, &v, sizeof(v)))
			fprintf(out, "# clockid frequency: %" PRIu64 " MHz\n", v * 1000);
		break;
	case PERF_FEAT_DIR_FORMAT:
		if (take(&s, &v, sizeof(v)))
			fprintf(out, "# directory data version : %" PRIu64 "\n", v);
		break;
	}
}

void header_info_print(const struct perf_input *in, FILE *out)
{
	const struct perf_file_header *h = &in->header;
	time_t captured = (time_t)in->files[0].mtime;
	char when[64];

	fputs("# ========\n", out);
	if (ctime_r(&captured, when))
		fprintf(out, "# captured on    : %s", when);
	/* PERFILE2, the only magic read, is perf's header version 1 */
	fprintf(out, "# header version : 1\n");
	fprintf(out, "# data offset    : %" PRIu64 "\n", (uint64_t)h->data.offset);
	fprintf(out, "# data size      : %" PRIu64 "\n", (uint64_t)h->data.size);
	fprintf(out, "# feat offset    : %" PRIu64 "\n", (uint64_t)(h->data.offset + h->data.size));
	for (int bit = 0; bit < PERF_FILE_FEATURE_BITS; bit++)
		if (in->feature[bit])
			put_feature(out, bit, (struct section){ in->feature[bit],
							      in->feature[bit] + in->feature_size[bit] });
	fputs("# missing features: ", out);
	for (size_t bit = 1; bit < NR_FEATURES; bit++)
		if (!in->feature[bit])
			fprintf(out, "%s ", feature_names[bit]);
	fputs("\n# ========\n#\n", out);
}
