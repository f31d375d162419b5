/* SPDX-License-Identifier: GPL-2.0-only */
/* metrics_agent.c: what the agent itself costs, rendered (see the header). */
#include "export/metrics_agent.h"

#include <inttypes.h>

#include "export/metrics_text.h"

/* As the Prometheus client libraries name and explain them. */
static int render_process(struct byte_buffer *out, const struct process_stats *p)
{
	int r = 0;

	if (!p)
		return 0;
	r |= metrics_family(out, "process_cpu_seconds_total", "counter",
			    "Total user and system CPU time spent in seconds.");
	r |= metrics_put(out, "process_cpu_seconds_total ") || metrics_seconds(out, p->cpu_ns) ||
	     metrics_put(out, "\n");
	r |= metrics_single(out, "process_max_fds", "gauge", "Maximum number of open file descriptors.",
			    "%" PRIu64, p->max_fds);
	r |= metrics_single(out, "process_open_fds", "gauge", "Number of open file descriptors.",
			    "%" PRIu64, p->open_fds);
	r |= metrics_single(out, "process_resident_memory_bytes", "gauge",
			    "Resident memory size in bytes.",
			    "%" PRIu64, p->resident_bytes);
	r |= metrics_family(out, "process_start_time_seconds", "gauge",
			    "Start time of the process since unix epoch in seconds.");
	r |= metrics_put(out, "process_start_time_seconds %" PRIu64 ".%03" PRIu64 "\n",
			 p->start_time_ms / 1000, p->start_time_ms % 1000);
	r |= metrics_single(out, "process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.",
			    "%" PRIu64, p->virtual_bytes);
	r |= metrics_single(out, "process_virtual_memory_max_bytes", "gauge",
			    "Maximum amount of virtual memory available in bytes.", "%" PRIu64,
			    p->max_virtual_bytes);
	return r;
}

/* export -g's sampling child (ringtrace record of every CPU): what an
 * agent's budget counts beside process_*. */
static int render_sampler(struct byte_buffer *out, const struct metrics_snapshot *m)
{
	int r = 0;

	if (!m->sampler)
		return 0;
	r |= metrics_family(out, "ringtrace_sampler_cpu_seconds_total", "counter",
			    "User and system CPU time of export -g's sampling child, in seconds "
			    "(process_cpu_seconds_total is the exporter's alone).");
	r |= metrics_put(out, "ringtrace_sampler_cpu_seconds_total ") ||
	     metrics_seconds(out, m->sampler_cpu_ns) ||
	     metrics_put(out, "\n");
	r |= metrics_single(out, "ringtrace_sampler_resident_memory_bytes", "gauge",
			    "Resident memory of export -g's sampling child, in bytes "
			    "(process_resident_memory_bytes is the exporter's alone).",
			    "%" PRIu64, m->sampler_resident_bytes);
	if (!m->sampler_counted)
		return r;
	r |= metrics_single(out, "ringtrace_sampler_samples_total", "counter",
			    "Samples the BPF programs of export -g's sampling child produced "
			    "(as of its last second).",
			    "%" PRIu64, m->sampler_counts.produced);
	r |= metrics_single(out, "ringtrace_sampler_samples_lost_total", "counter",
			    "Samples export -g's sampling child lost because its kernel ring was full "
			    "(as of its last second).",
			    "%" PRIu64, m->sampler_counts.lost);
	r |= metrics_single(out, "ringtrace_sampler_sideband_lost_total", "counter",
			    "Side-band records (process names, mappings) export -g's sampling child lost "
			    "(as of its last second).",
			    "%" PRIu64, m->sampler_counts.sideband_lost);
	return r;
}

/* export -g's profiles: the symbol tables kept from one to the next. */
static int render_symbol_cache(struct byte_buffer *out, const struct metrics_snapshot *m)
{
	const struct symtab_cache_counts *c = m->symbol_cache;
	int r;

	if (!c)
		return 0;
	r = metrics_single(out, "ringtrace_profile_symbol_tables", "gauge",
			   "ELF symbol tables export -g's last profile used, kept for the next.",
			   "%" PRIu64, (uint64_t)c->entries);
	r |= metrics_single(out, "ringtrace_profile_symbol_table_bytes", "gauge",
			    "Bytes of the symbol tables kept between profiles.",
			    "%" PRIu64, (uint64_t)c->bytes);
	r |= metrics_single(out, "ringtrace_profile_symbol_table_budget_bytes", "gauge",
			    "The most bytes of symbol tables kept between profiles.",
			    "%" PRIu64, (uint64_t)c->budget);
	r |= metrics_family(out, "ringtrace_profile_symbol_table_loads_total", "counter",
			    "Symbol tables profiles needed: kept from an earlier profile (same inode), "
			    "or read from the file.");
	r |= metrics_put(out, "ringtrace_profile_symbol_table_loads_total{source=\"kept\"} %" PRIu64 "\n"
			      "ringtrace_profile_symbol_table_loads_total{source=\"read\"} %" PRIu64 "\n",
			 c->hits, c->misses);
	r |= metrics_family(out, "ringtrace_profile_symbol_tables_dropped_total", "counter",
			    "Symbol tables not kept: the last profile did not use them, or they would "
			    "have passed the budget.");
	r |= metrics_put(out, "ringtrace_profile_symbol_tables_dropped_total{reason=\"unused\"} %" PRIu64
			      "\n"
			      "ringtrace_profile_symbol_tables_dropped_total{reason=\"over_budget\"} %" PRIu64
			      "\n",
			 c->dropped, c->over_budget);
	return r;
}

int metrics_render_agent(struct byte_buffer *out, const struct metrics_snapshot *m)
{
	return render_process(out, m->process) | render_sampler(out, m) |
	       render_symbol_cache(out, m);
}
