/* SPDX-License-Identifier: GPL-2.0-only */
/* test_util.h: what the cmocka tests share: running commands, temporary
 * directories, skipping (a failure under CI), reading and writing recordings. */
#ifndef RINGTRACE_TEST_UTIL_H
#define RINGTRACE_TEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "format/perf_data_reader.h"
#include "format/perf_data_writer.h"
#include "format/perf_record.h"
#include "lib/byte_buffer.h"

/* Runs argv (argv[0] looked up in PATH), captures stdout and stderr together
 * into *output (NUL-terminated, caller frees). Returns the exit status, or
 * 128 + signal, or -1 if it could not run. */
int tu_run(char *const argv[], char **output);

/* Formats a command line and runs it through tu_run's rules via /bin/sh -c. */
int tu_sh(char **output, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Gives the ELF file path a build-id of its own (random, by objcopy), so
 * that no copy of the same program elsewhere on the machine (other tests')
 * shares it; fails the test if it cannot. */
void tu_unique_build_id(const char *path);

/* A fresh directory under $TMPDIR or /tmp; caller frees the path. */
char *tu_tempdir(void);
/* Removes a directory tree. */
void tu_rmtree(const char *path);
/* cmocka's setup and teardown of a test in a directory of its own: *state
 * is its path (tu_tempdir's), removed with what it holds afterwards. */
int tu_tempdir_setup(void **state);
int tu_tempdir_teardown(void **state);

/* $RINGTRACE and $LOADGEN as set by make; NULL if unset or empty. */
const char *tu_ringtrace(void);
const char *tu_loadgen(void);
/* Where the cgroup v2 hierarchy is: $CGROUP2_ROOT, /sys/fs/cgroup/unified
 * beside v1, else /sys/fs/cgroup. */
const char *tu_cgroup2_root(void);

/* Prints text (a command's output) as print_message does, whole: cmocka's
 * print_message keeps 1023 bytes of each call, which cut record -v's totals
 * off before the unwinder's. */
void tu_print_text(const char *text);

/* Starts a shell command in the background, a child of the test with
 * /dev/null for stdin, stdout and stderr (the command may redirect them),
 * leading a process group of its own (tu_stop ends it whole); its pid, the
 * shell's ("exec" makes it the command's). Remembered until tu_stop stops
 * it or the test reaps it: tu_stop_left stops what is left. */
pid_t tu_start(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Whether pid still runs (a zombie waiting to be reaped has ended). */
bool tu_running(pid_t pid);
/* Waits up to seconds for pid to end; whether it did. */
bool tu_wait_gone(pid_t pid, double seconds);
/* The CPU seconds (user + system, all its threads) the kernel has charged to
 * process pid so far, from /proc/PID/stat: clock ticks, so in steps of
 * 1/_SC_CLK_TCK s. */
double tu_process_cpu_seconds(pid_t pid);
/* Whether signal sig is in the mask named mask ("SigBlk", "SigCgt") of
 * pid's main thread in /proc/PID/status; false once pid has gone. */
bool tu_signal_in(pid_t pid, const char *mask, int sig);

/* Number of online CPUs. */
int tu_online_cpus(void);
/* A TCP port of 127.0.0.1 nothing listens on now. */
int tu_free_port(void);

/* want, or the kernel's limit if that is lower now
 * (kernel.perf_event_max_sample_rate: the kernel lowers it when samples take
 * long, as a loaded or sanitized run's may). */
unsigned long tu_sample_freq(unsigned long want);

/* How record -v's user stacks ended ("ringtrace: user stacks: ... ending:
 * ..." in log): bad frames of all, and the line; NULL (and 0s) without one. */
const char *tu_stack_endings(const char *log, unsigned long *bad, unsigned long *all);

/* Of the samples in folded stacks (report --folded: lines "a;b;c N", comm
 * first), all of them in *all, and in *with those of the lines one of whose
 * ;-separated elements is frame, whole (main is not __libc_start_call_main).
 * Lines without a trailing count are not counted. */
void tu_folded_count(const char *folded_text, const char *frame, unsigned long *with,
		     unsigned long *all);
/* Of comm's lines in folded_text (their first element comm), the percentage
 * of the count with frame (as tu_folded_count), and their count in *all. */
double tu_folded_share(const char *folded_text, const char *comm, const char *frame,
		       unsigned long *all);

/* Of comm's lines in folded_text (their first element comm), the samples in
 * all in *total, and in *with those of the lines holding frames in that
 * order, each the start of an element after a ';' ("outer (" matches
 * "outer (app.py:8)"). */
void tu_folded_in_order(const char *folded_text, const char *comm, const char *const *frames,
			size_t nr, unsigned long *total, unsigned long *with);

/* record -v -g -F 999 of scope ("-p PID", "-t TID") into dir/rec for
 * seconds from when it has started (-- sleep SECONDS; SIGINT 120 s after):
 * its log (also dir/record.log), the caller's to free; fails the test if
 * record failed. */
char *tu_record_g(const char *dir, const char *scope, int seconds);
/* report --folded of dir/rec. */
char *tu_folded_of(const char *dir);
/* perf script of dir/rec (its fields, NULL: perf's), with dir/rec's map of
 * process pid copied to /tmp as perf reads a JIT's (removed after). */
char *tu_script_with_map(const char *dir, pid_t pid, const char *fields);

/* Of perf script's samples in out, all in *total, and in *matching those
 * whose frames (leaf first) hold frames one after another, one a line (each
 * matched as " NAME+0x"). */
void tu_script_share(const char *out, const char *const *frames, size_t nr, unsigned long *total,
		     unsigned long *matching);

/* Of go tool pprof -traces' stacks, the time of all (*total) and of those
 * holding the nr texts at leaf_first in that order, leaf first (*named), in
 * milliseconds. */
void tu_pprof_traces_share(const char *traces, const char *const *leaf_first, size_t nr,
			   double *total, double *named);

/* Starts `export -g` (its runtime directory and log in dir) and, once its
 * profile endpoint answers 200, fetches go tool pprof -traces of pid's 3 s
 * profile, again (3 times at most) while under 80% of its time holds
 * leaf_first (tu_pprof_traces_share); stops it. The last traces (the
 * caller's to free, "" if none), their times in *total and *named (ms), the
 * endpoint's last HTTP code in *code. */
char *tu_profile_endpoint_traces(const char *dir, pid_t pid, const char *const *leaf_first,
				 size_t nr, int *code, double *total, double *named);

/* SIGTERM, then SIGKILL after 5 s, to pid and to the process group
 * tu_start made it (what it runs in the background too); reaps pid; its wait
 * status (-1 for pid <= 0: nothing to stop). */
int tu_stop(pid_t pid);
/* Stops (as tu_stop) what tu_start started and neither tu_stop stopped nor
 * the test reaped: a teardown (cmocka_unit_test_teardown, or a group's), so
 * that a test that failed half-way leaves nothing running after it. 0. */
int tu_stop_left(void **state);

/*
 * `go tool pprof -raw` output, parsed: its "Samples:" part, each sample a line
 * "  VALUE VALUE: LOCATION IDS" (two values; ids leaf first) and lines
 * of its labels ("key:[value ...] ..."), and its "Locations" part, each
 * "ID: 0xADDR M=N FUNCTION ...", whose first function names the location.
 */
struct tu_raw_sample {
	uint64_t count;  /* the first value (samples/count) */
	uint64_t value;  /* the second (cpu/nanoseconds, off_cpu/nanoseconds) */
	char *stack;     /* the locations' functions, root first, ';'-separated;
			  * "?" for a location the Locations part does not list */
	char *labels;    /* its label lines as printed, joined by spaces */
};

struct tu_raw_profile {
	struct tu_raw_sample *samples;
	size_t nr;
};

/* Parses raw (go tool pprof -raw's text) into *p; tu_raw_free frees it. */
void tu_raw_parse(const char *raw, struct tu_raw_profile *p);
void tu_raw_free(struct tu_raw_profile *p);
/* Whether s's labels hold "key:[value]" (a string label of that one value). */
bool tu_raw_label(const struct tu_raw_sample *s, const char *key, const char *value);
/* Whether one of s's stack's functions is frame, whole. */
bool tu_raw_frame(const struct tu_raw_sample *s, const char *frame);

/*
 * Skipping. Every test that cannot run here goes through tu_skip(), never
 * cmocka's skip(): it prints "SKIP: <why>" and skips the test, except under
 * CI, that is with REQUIRE_INTEGRATION=1 (any value but empty or "0") or CI
 * set to a non-empty value (as .ci/run runs), where it fails the test instead,
 * with fail_msg and the same reason: a CI run never passes by skipping.
 */

/* Whether a skip is a failure here (REQUIRE_INTEGRATION or CI, as above). */
bool tu_skip_is_failure(void);

/* Skips the running test with the formatted reason, or fails it under CI;
 * does not return. */
#define tu_skip(...) tu_skip_at(__FILE__, __LINE__, __VA_ARGS__)
void tu_skip_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

/* Why integration tests cannot run here (not root, no BTF, no binaries
 * given), or NULL if they can. */
const char *tu_integration_skip_reason(void);
/* $SYMGEN_DIR as set by make (the test programs it builds), or "" if unset;
 * and why tests that need them cannot run (tu_integration_skip_reason(), or
 * SYMGEN_DIR unset), or NULL if they can. */
const char *tu_symgen_dir(void);
const char *tu_symgen_skip_reason(void);

/* Why none of this binary's tests can run here (tu_integration_skip_reason(),
 * or what else it needs), set once by main before the tests run; NULL: they can. */
void tu_set_skip_reason(const char *reason);
/* At the start of a test: tu_skip() with the reason main set, if any. */
#define tu_skip_unless_possible() tu_skip_unless_possible_at(__FILE__, __LINE__)
void tu_skip_unless_possible_at(const char *file, int line);

/*
 * Reading a recording: every record of a perf.data directory (or file), file
 * by file in perf_input_open's order ("data" first, then data.cpu0, ...), read
 * with the project's reader. A file the reader cannot open fails the test.
 */
enum {
	TU_RECORDS_STRICT = 1 << 0, /* a malformed record fails the test (else it ends its file) */
	TU_RECORDS_WHOLE = 1 << 1,  /* a file cut inside a record fails the test (else its
				     * last record is dropped) */
};

struct tu_records {
	struct perf_input in; /* the recording: events, sample_id_type, files */
	unsigned int file;    /* in.files[file] holds the record last returned */
	unsigned int flags;
	struct perf_record_iter it;
	char err[512];
};

/* Opens dir with TU_RECORDS_* flags. */
void tu_records_open(struct tu_records *r, const char *dir, unsigned int flags);
/* 1 with *rec set to the next record, 0 after the last one. */
int tu_records_next(struct tu_records *r, const struct perf_event_header **rec);
void tu_records_close(struct tu_records *r);

/* What a recording's records add up to. */
struct tu_record_counts {
	uint64_t samples;
	uint64_t sample_bytes;  /* the samples' sizes, summed */
	uint64_t lost_samples;  /* in PERF_RECORD_LOST_SAMPLES records */
	uint64_t lost;          /* in PERF_RECORD_LOST records of sampling events */
	uint64_t sideband_lost; /* in PERF_RECORD_LOST records of the side-band (dummy) event */
};

/* Counts dir's records, flags as tu_records_open's; with TU_RECORDS_STRICT a
 * LOST or LOST_SAMPLES record that does not decode fails the test, without it
 * such a record is not counted. */
void tu_count_records(const char *dir, unsigned int flags, struct tu_record_counts *c);

/*
 * Writing a synthetic recording: the test states the events, the side-band
 * records of the header file (side) and the records of each data.cpuN (cpu[N]),
 * encoded with perf_record.h's encoders or tu_sample_encode(), and
 * tu_recording_write() writes the directory as ringtrace does.
 */
#define TU_RECORDING_MAX_EVENTS 8
#define TU_RECORDING_MAX_CPUS 8

struct tu_recording {
	struct perf_data_header header; /* what the header states; events come from below */
	struct perf_data_event events[TU_RECORDING_MAX_EVENTS];
	uint64_t ids[TU_RECORDING_MAX_EVENTS]; /* each event's one sample id, or 0 for none */
	unsigned int nr_events;
	struct byte_buffer side;                       /* the header file's data section */
	struct byte_buffer cpu[TU_RECORDING_MAX_CPUS]; /* the records of data.cpuN */
	unsigned int nr_cpus;    /* data.cpu0 .. data.cpu<nr_cpus - 1> are written, empty or not */
	const char *kallsyms;    /* if set, written as DIR/kallsyms for report and script */
};

/* An empty recording with nr_cpus CPU files (0: the header file alone). */
void tu_recording_init(struct tu_recording *r, unsigned int nr_cpus);
/* Adds an event; its attr has type, config, sample_type and sample_id_all
 * set, the rest zero for the test to fill in. id: its sample id, or 0. */
struct perf_event_attr *tu_recording_event(struct tu_recording *r, const char *name, uint32_t type,
					   uint64_t config, uint64_t sample_type, uint64_t id);
/* Appends a sample of event (the index tu_recording_event gave it, in order
 * from 0) to data.cpu<s->cpu>, laid out by the event's sample_type, with the
 * event's id. */
void tu_recording_sample(struct tu_recording *r, unsigned int event, const struct perf_sample *s);
/* Writes DIR/data (perf_data_write_header), each DIR/data.cpuN, DIR/kallsyms. */
void tu_recording_write(const struct tu_recording *r, const char *dir);
void tu_recording_free(struct tu_recording *r);

/* Appends HEADER_TRACING_DATA as perf writes it (trace-cmd 0.6): the header
 * files, then these nr event formats (their text) of one system. */
void tu_tracing_data(struct byte_buffer *b, const char *system, const char *const *formats,
		     uint32_t nr);

/* Appends one PERF_RECORD_SAMPLE laid out by sample_type as the kernel and
 * ringtrace's BPF sampler lay it out: IDENTIFIER, IP, TID, TIME, ADDR, ID,
 * STREAM_ID, CPU, PERIOD, CALLCHAIN, RAW (padded to 8 bytes), CGROUP; misc
 * from s->misc. Any other sample_type field fails the test. */
void tu_sample_encode(struct byte_buffer *b, uint64_t sample_type, const struct perf_sample *s);

/* Creates DIR/NAME (it must not exist) holding len bytes of data. */
void tu_write_file(const char *dir, const char *name, const void *data, size_t len);

#endif
