# Makefile: the one entry point of ringtrace: deps, build, test, record.
# BPF objects are built CO-RE against vmlinux/, skeletons by bpftool, and the
# ringtrace binary and tests against Debian's libbpf, libelf, libdw and cmocka.

VERSION := 0.1.0
OUTPUT := build
ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
VMLINUX := vmlinux/$(ARCH)/vmlinux.h

CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -fno-omit-frame-pointer -fno-strict-aliasing \
	  -DRINGTRACE_VERSION='"$(VERSION)"' -I$(OUTPUT) -Iuser -Ibpf
LDLIBS := -lbpf -ldw -lelf -liberty -lmicrohttpd -lcap -lpthread

# SANITIZE=1 builds everything with AddressSanitizer (LeakSanitizer included)
# and UBSan, every report fatal; make test runs the tests that way.
ifeq ($(SANITIZE),1)
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all
CFLAGS += $(SAN_FLAGS)
LDFLAGS += $(SAN_FLAGS)
endif
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(dir $(VMLINUX)) -Ibpf -Wall -Werror

# Debian packages the build, the tests and the comparisons need.
DEB_PACKAGES := make gcc clang llvm bpftool libbpf-dev libelf-dev libdw-dev zlib1g-dev \
		pkg-config libcmocka-dev linux-perf libiberty-dev libmicrohttpd-dev libcap-dev \
		libcap2-bin procps curl \
		prometheus prometheus-node-exporter
# ...and what only the benchmarks run.
BENCH_DEB_PACKAGES := bpftrace python3 time

BPF_PROGS := sampler trigger exporter
BENCH_BPF_PROGS := bench_empty bench_producer
BPF_OBJS := $(patsubst %,$(OUTPUT)/%.bpf.o,$(BPF_PROGS) $(BENCH_BPF_PROGS))
SKELETONS := $(patsubst %,$(OUTPUT)/%.skel.h,$(BPF_PROGS))
BENCH_SKELETONS := $(patsubst %,$(OUTPUT)/%.skel.h,$(BENCH_BPF_PROGS))

# Modules shared by the binary and the tests (no BPF skeleton inside).
CORE_SRCS := user/log.c user/byte_buffer.c user/metrics.c user/perf_record.c user/perf_data_writer.c \
	     user/perf_data_reader.c user/cpu_list.c user/cli_util.c user/staging_ring.c
REPORT_SRCS := user/hash_map.c user/demangle.c user/symbols.c user/address_space.c user/record_stream.c \
	       user/recording.c user/flamegraph.c user/report.c user/cmd_report.c user/script.c \
	       user/cmd_script.c
RECORD_SRCS := user/perf_ring.c user/perf_events.c user/sideband.c user/synthesize.c \
	       user/tracefs.c user/event_spec.c user/tracing_data.c user/cgroup.c user/record_target.c \
	       user/output_dir.c user/workload.c user/record_writer.c user/flight_recorder.c \
	       user/build_id_cache.c \
	       user/transport.c user/cmd_snapshot.c \
	       user/bpf_sampler.c user/snapshot_trigger.c user/record.c user/exporter.c \
	       user/cmd_export.c user/metrics_server.c user/record_metrics.c user/privileges.c \
	       user/bpf_stats.c \
	       user/cmd_record.c
MAIN_SRCS := user/main.c

CORE_OBJS := $(patsubst user/%.c,$(OUTPUT)/%.o,$(CORE_SRCS))
REPORT_OBJS := $(patsubst user/%.c,$(OUTPUT)/%.o,$(REPORT_SRCS))
RECORD_OBJS := $(patsubst user/%.c,$(OUTPUT)/%.o,$(RECORD_SRCS))
MAIN_OBJS := $(patsubst user/%.c,$(OUTPUT)/%.o,$(MAIN_SRCS))

LOADGEN := $(OUTPUT)/loadgen
# Programs with known symbols for the tests: C++ (mangled), stripped (.dynsym only).
SYMGEN := $(OUTPUT)/symgen_cxx $(OUTPUT)/symgen_stripped

UNIT_TESTS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(wildcard tests/unit/test_*.c))
INTEGRATION_TESTS := $(patsubst tests/integration/%.c,$(OUTPUT)/tests/%,$(wildcard tests/integration/test_*.c))

RECORD_SECONDS ?= 5
RECORD_DIR ?= $(OUTPUT)/record.data

.PHONY: all programs deps bench-deps test check unit-test integration-test record bench \
	bench-tools vmlinux clean fuzz fuzz-ci fuzz-targets soak

all: deps
	@$(MAKE) --no-print-directory programs

programs: $(OUTPUT)/ringtrace $(LOADGEN)

# Installs what is missing, with apt-get, as root.
deps bench-deps: PACKAGES = $(if $(filter bench-deps,$@),$(BENCH_DEB_PACKAGES),$(DEB_PACKAGES))
deps bench-deps:
	@missing=""; for p in $(PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" != 0 ]; then echo "ringtrace: missing packages:$$missing; run make deps as root" >&2; exit 1; fi; \
		echo "installing:$$missing"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	fi

$(OUTPUT) $(OUTPUT)/tests:
	@mkdir -p $@

# Keep the BPF objects: they are intermediates of the skeletons.
.SECONDARY: $(BPF_OBJS)

$(OUTPUT)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) $(VMLINUX) | $(OUTPUT)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@

$(OUTPUT)/bpf_sampler.o $(OUTPUT)/snapshot_trigger.o $(OUTPUT)/exporter.o: $(SKELETONS)

$(OUTPUT)/%.o: user/%.c $(wildcard user/*.h) $(wildcard bpf/*.h) | $(OUTPUT)
	$(CC) $(CFLAGS) -c $< -o $@

$(OUTPUT)/ringtrace: $(MAIN_OBJS) $(RECORD_OBJS) $(REPORT_OBJS) $(CORE_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# The load generator keeps frame pointers so callchains unwind through it,
# leaf functions included: gcc 12 drops them in leaves whatever the flags.
$(LOADGEN): tools/loadgen/loadgen.c | $(OUTPUT)
	$(CLANG) -std=gnu11 -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-inline \
		-Wall -Wextra -Werror $< -lpthread -o $@

$(OUTPUT)/symgen_cxx: tools/symgen/symgen_cxx.cc | $(OUTPUT)
	$(CLANG)++ -std=c++17 -O1 -g -fno-omit-frame-pointer -Wall -Wextra -Werror $< -o $@

$(OUTPUT)/symgen_stripped: tools/symgen/symgen_stripped.c | $(OUTPUT)
	$(CLANG) -std=gnu11 -O1 -fno-omit-frame-pointer -rdynamic -Wall -Wextra -Werror $< -o $@
	strip --strip-all $@

TEST_UTIL := $(OUTPUT)/tests/test_util.o
# What tests may link: everything but the BPF loader and the CLI.
TEST_RECORD_OBJS := $(filter-out $(OUTPUT)/bpf_sampler.o $(OUTPUT)/snapshot_trigger.o $(OUTPUT)/record.o \
		    $(OUTPUT)/cmd_record.o $(OUTPUT)/cmd_snapshot.o $(OUTPUT)/exporter.o \
		    $(OUTPUT)/cmd_export.o,$(RECORD_OBJS))
TEST_LIBS := $(TEST_UTIL) $(CORE_OBJS) $(REPORT_OBJS) $(TEST_RECORD_OBJS)

$(TEST_UTIL): tests/test_util.c tests/test_util.h | $(OUTPUT)/tests
	$(CC) $(CFLAGS) -Itests -c $< -o $@

$(OUTPUT)/tests/%: tests/unit/%.c $(TEST_LIBS) | $(OUTPUT)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -Itests $< $(TEST_LIBS) $(LDLIBS) -lcmocka -lm -lpthread -o $@

$(OUTPUT)/tests/%: tests/integration/%.c $(TEST_LIBS) | $(OUTPUT)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -Itests $< $(TEST_LIBS) $(LDLIBS) -lcmocka -lm -lpthread -o $@

# Builds the programs, then builds and runs every test under ASan and UBSan.
test: deps
	@$(MAKE) --no-print-directory programs
	@$(MAKE) --no-print-directory SANITIZE=1 OUTPUT=$(OUTPUT)/san check
	@$(MAKE) --no-print-directory fuzz-ci

check: programs $(SYMGEN) $(UNIT_TESTS) $(INTEGRATION_TESTS)
	@$(MAKE) --no-print-directory unit-test integration-test

SAN_ENV := ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

unit-test: $(UNIT_TESTS)
	@set -e; for t in $(UNIT_TESTS); do echo "== $$t"; $(SAN_ENV) $$t; done

integration-test: programs $(SYMGEN) $(INTEGRATION_TESTS)
	@set -e; for t in $(INTEGRATION_TESTS); do echo "== $$t"; \
		$(SAN_ENV) RINGTRACE=$(abspath $(OUTPUT)/ringtrace) LOADGEN=$(abspath $(LOADGEN)) \
		SYMGEN_DIR=$(abspath $(OUTPUT)) $$t; done

BENCH_TOOLS := $(patsubst tools/bench/%.c,$(OUTPUT)/bench/%,$(wildcard tools/bench/*.c))
BENCH_LIBS := $(CORE_OBJS) $(REPORT_OBJS) $(TEST_RECORD_OBJS)

$(OUTPUT)/bench:
	@mkdir -p $@

$(OUTPUT)/bench/%: tools/bench/%.c $(BENCH_SKELETONS) $(BENCH_LIBS) | $(OUTPUT)/bench
	$(CC) $(CFLAGS) $(LDFLAGS) $< $(BENCH_LIBS) $(LDLIBS) -o $@

bench-tools: programs $(BENCH_TOOLS)

# Compares ringtrace with perf record and bpftrace on the same workloads, in
# one run, and writes docs/BENCHMARKS.md (not part of make test).
bench: deps bench-deps
	@$(MAKE) --no-print-directory bench-tools
	python3 tools/bench/bench.py --build $(OUTPUT) --out docs/BENCHMARKS.md

# libFuzzer targets (clang, ASan, UBSan) for the recording reader and the
# command-line parsers; seeds and regressions in tests/fuzz/. make test runs
# each for FUZZ_CI_SECONDS, make fuzz for FUZZ_SECONDS.
FUZZ_OUTPUT := build/fuzz
FUZZ_SECONDS ?= 600
FUZZ_CI_SECONDS ?= 60
FUZZ_CFLAGS := -g -O1 -std=gnu11 -D_GNU_SOURCE -fno-omit-frame-pointer \
	       -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
	       -DRINGTRACE_VERSION='"$(VERSION)"' -Iuser -Ibpf
FUZZ_LIB_OBJS := $(patsubst user/%.c,$(FUZZ_OUTPUT)/%.o,$(CORE_SRCS) $(REPORT_SRCS) \
		 user/event_spec.c user/tracefs.c user/perf_events.c)
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,$(FUZZ_OUTPUT)/%,$(wildcard tests/fuzz/fuzz_*.c))

.SECONDARY: $(FUZZ_LIB_OBJS)

$(FUZZ_OUTPUT):
	@mkdir -p $@

$(FUZZ_OUTPUT)/%.o: user/%.c $(wildcard user/*.h) $(wildcard bpf/*.h) | $(FUZZ_OUTPUT)
	$(CLANG) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_OUTPUT)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB_OBJS) | $(FUZZ_OUTPUT)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $^ -ldw -lelf -liberty -lpthread -o $@

# Runs every target for $(1) seconds on a scratch corpus seeded from tests/fuzz/.
define run_fuzzers
	@set -e; for t in $(FUZZ_TARGETS); do n=$$(basename $$t); seeds=tests/fuzz/$${n#fuzz_}; \
		mkdir -p $(FUZZ_OUTPUT)/corpus-$$n; echo "== $$n for $(1) s"; \
		if ! $$t -max_total_time=$(1) -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
			-print_final_stats=1 -artifact_prefix=$(FUZZ_OUTPUT)/$$n- \
			$(FUZZ_OUTPUT)/corpus-$$n $$seeds > $(FUZZ_OUTPUT)/$$n.log 2>&1; then \
			tail -40 $(FUZZ_OUTPUT)/$$n.log; echo "$$n found a crash: make it a regression in $$seeds/"; \
			exit 1; fi; tail -8 $(FUZZ_OUTPUT)/$$n.log; done
endef

fuzz-targets: $(FUZZ_TARGETS)

fuzz: deps
	@$(MAKE) --no-print-directory fuzz-targets
	$(call run_fuzzers,$(FUZZ_SECONDS))

fuzz-ci: fuzz-targets
	$(call run_fuzzers,$(FUZZ_CI_SECONDS))

# A long flight recording at a high tracepoint rate (not in make test):
# RSS, file descriptors and accounting; writes the Soak section of docs/BENCHMARKS.md.
SOAK_SECONDS ?= 600

soak: all bench-deps
	python3 tools/soak/soak.py --build $(OUTPUT) --seconds $(SOAK_SECONDS) --out docs/BENCHMARKS.md

# Records RECORD_SECONDS seconds system-wide with callchains, then reports.
record: all
	$(OUTPUT)/ringtrace record -a -g --force -o $(RECORD_DIR) -- sleep $(RECORD_SECONDS)
	$(OUTPUT)/ringtrace report $(RECORD_DIR)

# Regenerates the CO-RE type header from the running kernel's BTF.
vmlinux:
	@mkdir -p $(dir $(VMLINUX))
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $(VMLINUX)

clean:
	rm -rf $(OUTPUT)
