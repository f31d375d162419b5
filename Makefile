# SPDX-License-Identifier: GPL-2.0-only
# Makefile: builds ringtrace (plain `make` only builds), installs its Debian
# dependencies (`make deps`), runs the tests, the main job, the benchmarks;
# installs it (`make install`, PREFIX and DESTDIR) and packages it (`make deb`).
# BPF objects are built CO-RE against vmlinux/, skeletons by bpftool; the user
# side is one folder per part under user/, archived into libringtrace.a, which
# the binary, the tests and the benchmark tools link.

VERSION := 0.1.0
OUTPUT := build
ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
VMLINUX := vmlinux/$(ARCH)/vmlinux.h

CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
AR ?= ar

# V=1 shows every command.
ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -fno-omit-frame-pointer -fno-strict-aliasing \
	  -DRINGTRACE_VERSION='"$(VERSION)"' -I$(OUTPUT) -Iuser -Ibpf
DEPFLAGS = -MMD -MP -MF $(@:.o=.d)
LDLIBS := -lbpf -ldw -lelf -liberty -ltraceevent -lmicrohttpd -lgnutls -lyaml -lcrypt -lcap \
	  -lprotobuf-c -ljson-c -lz -lxxhash -lpthread -lm

# SANITIZE=1 builds everything with AddressSanitizer (LeakSanitizer included)
# and UBSan, every report fatal; make test runs the tests that way.
ifeq ($(SANITIZE),1)
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all
CFLAGS += $(SAN_FLAGS)
LDFLAGS += $(SAN_FLAGS)
endif
# The multiarch include directory after the others: libbpf's usdt.bpf.h
# includes <linux/errno.h>, whose <asm/errno.h> lives there.
MULTIARCH := $(shell $(CC) -dumpmachine 2>/dev/null)
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(dir $(VMLINUX)) -Ibpf -Wall -Werror \
	      -idirafter /usr/include/$(MULTIARCH)

# Debian packages: what building needs, what the tests add (perf is the
# oracle, Prometheus and node_exporter check the exporter, libc6-dbg gives libc,
# libm and ld.so the debug symbols perf names them by, python3.11-dbg those of
# python3.11's static functions, zlib_compress, gen_iternext, that test_python
# expects), what only the benchmarks run.
BUILD_DEB_PACKAGES := make gcc clang llvm bpftool libbpf-dev libelf-dev libdw-dev zlib1g-dev \
		      pkg-config libiberty-dev libmicrohttpd-dev libcap-dev libgnutls28-dev \
		      libyaml-dev libcrypt-dev libtraceevent-dev libdebuginfod-dev dpkg-dev binutils gzip \
		      libprotobuf-c-dev protobuf-c-compiler libxxhash-dev libcurl4-openssl-dev libjson-c-dev
# systemd for systemd-analyze, man-db for man -l, lintian for the .deb,
# openssl for a test certificate, util-linux for setpriv, python3-yaml to
# read the Kubernetes manifest, python3-prometheus-client for Prometheus's
# own parser of the exposition text, debuginfod for a server of debug files,
# systemtap-sdt-dev for <sys/sdt.h> (tools/sdtgen), golang-go for go tool pprof
# (reads report --pprof), chromium and libpng-dev to render flame graphs as
# images and read their pixels, containerd (with ctr and runc) and docker.io for
# real container runtimes that name a test's containers, busybox-static the
# root of those containers, openjdk-17-jdk-headless the JVM and nodejs the
# Node.js whose frames the -g walk names.
TEST_DEB_PACKAGES := libcmocka-dev linux-perf libcap2-bin procps curl \
		     prometheus prometheus-node-exporter systemd man-db lintian openssl \
		     util-linux python3 python3-yaml python3-prometheus-client libc6-dbg python3.11-dbg \
		     debuginfod systemtap-sdt-dev golang-go chromium libpng-dev containerd docker.io busybox-static \
		     hotspot openjdk-17-jdk-headless nodejs
BENCH_DEB_PACKAGES := bpftrace python3 time

# The skeletons ringtrace loads, and those only the benchmark tools load.
BPF_PROGS := sampler trigger aggregator syscall_summary
BENCH_BPF_PROGS := bench_empty bench_producer
BPF_OBJS := $(patsubst %,$(OUTPUT)/%.bpf.o,$(BPF_PROGS) $(BENCH_BPF_PROGS))
SKELETONS := $(patsubst %,$(OUTPUT)/%.skel.h,$(BPF_PROGS))
BENCH_SKELETONS := $(patsubst %,$(OUTPUT)/%.skel.h,$(BENCH_BPF_PROGS))

# user/PART/*.c: every part but cli/ goes into the library; cli/ is the binary.
PARTS := lib sys format symbols capture record report export
LIB_SRCS := $(foreach p,$(PARTS),$(wildcard user/$(p)/*.c))
CLI_SRCS := $(wildcard user/cli/*.c)
# pprof's profile.proto and containerd's Containers messages, compiled by
# protoc-c into build/ (never committed).
PROTOS := report/profile sys/containerd_containers
PROTO_C := $(patsubst %,$(OUTPUT)/%.pb-c.c,$(PROTOS))
PROTO_H := $(patsubst %,$(OUTPUT)/%.pb-c.h,$(PROTOS))
LIB_OBJS := $(patsubst user/%.c,$(OUTPUT)/%.o,$(LIB_SRCS)) $(patsubst %,$(OUTPUT)/%.pb-c.o,$(PROTOS))
CLI_OBJS := $(patsubst user/%.c,$(OUTPUT)/%.o,$(CLI_SRCS))
LIBRINGTRACE := $(OUTPUT)/libringtrace.a

LOADGEN := $(OUTPUT)/loadgen
# Programs with known symbols for the tests: C++ (mangled), stripped (.dynsym only),
# PLT entries, libm, brk and the vdso (names), a function inlined into two,
# and a call chain without frame pointers (unwindgen, a stripped copy, and a
# build whose CFI is in .debug_frame), and a Go program (gogen).
SYMGEN := $(OUTPUT)/symgen_cxx $(OUTPUT)/symgen_stripped $(OUTPUT)/symgen_names \
	  $(OUTPUT)/symgen_inline $(OUTPUT)/symgen_inline_clang \
	  $(OUTPUT)/unwindgen $(OUTPUT)/unwindgen_stripped $(OUTPUT)/unwindgen_debugframe \
	  $(OUTPUT)/sdtgen $(OUTPUT)/sdtmany $(OUTPUT)/gogen

UNIT_TESTS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(wildcard tests/unit/test_*.c))
INTEGRATION_TESTS := $(patsubst tests/integration/%.c,$(OUTPUT)/tests/%,$(wildcard tests/integration/test_*.c))
TEST_UTIL := $(OUTPUT)/tests/test_util.o

RECORD_SECONDS ?= 5
RECORD_DIR ?= $(OUTPUT)/record.data

# A failed step never leaves a half-written target (an empty skeleton) behind.
.DELETE_ON_ERROR:
.PHONY: all programs deps build-deps test-deps bench-deps test check check-layers unit-test \
	integration-test record bench bench-tools vmlinux clean fuzz fuzz-ci fuzz-targets fuzz-seeds \
	fuzz-long soak test-busy docs install uninstall deb FORCE

all: programs

programs: $(OUTPUT)/ringtrace $(LOADGEN)

# Install what is missing, with apt-get, as root: deps is what building and
# the tests need, build-deps only what building needs.
deps: build-deps test-deps
build-deps: PACKAGES = $(BUILD_DEB_PACKAGES)
test-deps: PACKAGES = $(TEST_DEB_PACKAGES)
bench-deps: PACKAGES = $(BENCH_DEB_PACKAGES)
build-deps test-deps bench-deps:
	@missing=""; for p in $(PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" != 0 ]; then echo "ringtrace: missing packages:$$missing; run make $@ as root" >&2; exit 1; fi; \
		echo "installing:$$missing"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	fi

# Keep the BPF objects: they are intermediates of the skeletons.
.SECONDARY: $(BPF_OBJS) $(SKELETONS) $(BENCH_SKELETONS) \
	$(patsubst %,$(OUTPUT)/bpf/%.bpf.o,$(BPF_UNITS))

# Each bpf/*.bpf.c is a compilation unit of its own; a skeleton's object is
# linked from its units by bpftool (a map or setting two units share is
# defined in one, extern in the other). A program's units: PROG_BPF_UNITS,
# else its own file alone. Units that define what others use come first: the
# linker of libbpf 1.1 gives an extern map defined by a later unit a wrong
# place in .maps (the skeleton then fails: "map relo failed").
sampler_BPF_UNITS := sample_buffers scope_filter ehframe_unwind sampler probes offcpu
trigger_BPF_UNITS := scope_filter trigger
BPF_UNITS := $(patsubst bpf/%.bpf.c,%,$(wildcard bpf/*.bpf.c))

$(OUTPUT)/bpf/%.bpf.o: bpf/%.bpf.c $(VMLINUX)
	@mkdir -p $(@D)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MMD -MP -MF $(@:.o=.d) -c $< -o $@

define bpf_object
$(OUTPUT)/$(1).bpf.o: $(patsubst %,$(OUTPUT)/bpf/%.bpf.o,$(or $($(1)_BPF_UNITS),$(1)))
	$$(call msg,BPF-LINK,$$@)
	$$(Q)$$(BPFTOOL) gen object $$@ $$(filter %.bpf.o,$$^)
endef
$(foreach p,$(BPF_PROGS) $(BENCH_BPF_PROGS),$(eval $(call bpf_object,$(p))))

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# The commit built, for ringtrace_build_info, passed to build_info.c alone;
# $(OUTPUT)/revision changes (and rebuilds it) only when the commit does.
REVISION := $(shell git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)

$(OUTPUT)/revision: FORCE
	@mkdir -p $(@D)
	@echo '$(REVISION)' | cmp -s - $@ || echo '$(REVISION)' > $@

$(OUTPUT)/export/build_info.o: $(OUTPUT)/revision
$(OUTPUT)/export/build_info.o: CFLAGS += -DRINGTRACE_REVISION='"$(REVISION)"'

FORCE:

# Sources that include a skeleton or the generated protobuf code need it
# first (after that, -MMD knows).
$(OUTPUT)/%.o: user/%.c | $(SKELETONS) $(PROTO_H)
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

# Syscall names by number, from the kernel headers (user/sys/syscall_names.c
# says why this source).
$(OUTPUT)/sys/syscall_table.h:
	@mkdir -p $(@D)
	$(call msg,GEN,$@)
	$(Q)echo '#include <asm/unistd.h>' | $(CC) -dM -E - | \
		sed -n 's/^#define __NR_\([a-z0-9_]*\) \([0-9]*\)$$/\t[\2] = "\1",/p' > $@
	$(Q)test -s $@

$(OUTPUT)/sys/syscall_names.o: $(OUTPUT)/sys/syscall_table.h

# kept: the sources that include them depend on them through -MMD
.SECONDARY: $(PROTO_C) $(PROTO_H)
$(OUTPUT)/%.pb-c.c $(OUTPUT)/%.pb-c.h: user/%.proto
	@mkdir -p $(@D)
	$(call msg,PROTOC-C,$@)
	$(Q)protoc-c --proto_path=$(dir $<) --c_out=$(@D) $<

$(OUTPUT)/%.pb-c.o: $(OUTPUT)/%.pb-c.c $(OUTPUT)/%.pb-c.h
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(LIBRINGTRACE): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(OUTPUT)/ringtrace: $(CLI_OBJS) $(LIBRINGTRACE)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# The load generator keeps frame pointers so callchains unwind through it,
# leaf functions included: gcc 12 drops them in leaves whatever the flags.
$(LOADGEN): tools/loadgen/loadgen.c
	@mkdir -p $(@D)
	$(call msg,CLANG,$@)
	$(Q)$(CLANG) -std=gnu11 -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-inline \
		-Wall -Wextra -Werror $< -lpthread -o $@

$(OUTPUT)/symgen_cxx: tools/symgen/symgen_cxx.cc
	@mkdir -p $(@D)
	$(call msg,CLANG++,$@)
	$(Q)$(CLANG)++ -std=c++17 -O1 -g -fno-omit-frame-pointer -Wall -Wextra -Werror $< -o $@

$(OUTPUT)/symgen_stripped: tools/symgen/symgen_stripped.c
	@mkdir -p $(@D)
	$(call msg,CLANG,$@)
	$(Q)$(CLANG) -std=gnu11 -O1 -fno-omit-frame-pointer -rdynamic -Wall -Wextra -Werror $< -o $@
	$(Q)strip --strip-all $@

# Calls libm through its PLT entries (sin@plt): no -fno-plt, nothing inlined.
$(OUTPUT)/symgen_names: tools/symgen/symgen_names.c
	@mkdir -p $(@D)
	$(call msg,CLANG,$@)
	$(Q)$(CLANG) -std=gnu11 -O1 -g -fno-omit-frame-pointer -fno-builtin -Wall -Wextra -Werror $< -lm -o $@

# mix() inlined into first() and second(): by gcc, as Debian builds, and by
# clang, which writes no .debug_aranges (the units' own ranges find them).
$(OUTPUT)/symgen_inline: tools/symgen/symgen_inline.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror $< -o $@

$(OUTPUT)/symgen_inline_clang: tools/symgen/symgen_inline.c
	@mkdir -p $(@D)
	$(call msg,CLANG,$@)
	$(Q)$(CLANG) -std=gnu11 -O2 -g -Wall -Wextra -Werror $< -o $@

# A call chain main -> uw_a -> uw_b -> uw_c built as Debian builds (no frame
# pointers: only DWARF CFI unwinds it), and a stripped copy whose symbols are
# only in its separate debug file (unwindgen_stripped.debug).
$(OUTPUT)/unwindgen: tools/unwindgen/unwindgen.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) -std=gnu11 -O2 -g -fomit-frame-pointer -Wl,--build-id -Wall -Wextra -Werror $< -o $@

# The same chain without unwind tables: its functions' CFI only in
# .debug_frame, as -fno-asynchronous-unwind-tables -g leaves it.
$(OUTPUT)/unwindgen_debugframe: tools/unwindgen/unwindgen.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) -std=gnu11 -O2 -g -fomit-frame-pointer -fno-asynchronous-unwind-tables \
		-fno-unwind-tables -Wl,--build-id -Wall -Wextra -Werror $< -o $@

$(OUTPUT)/unwindgen_stripped: $(OUTPUT)/unwindgen
	$(call msg,STRIP,$@)
	$(Q)objcopy --only-keep-debug $< $@.debug
	$(Q)strip --strip-all $< -o $@

# USDT probes from <sys/sdt.h> (systemtap-sdt-dev), one behind a semaphore,
# and a function for uprobes, hit a known number of times (test_probes).
$(OUTPUT)/sdtgen: tools/sdtgen/sdtgen.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) -std=gnu11 -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror $< -o $@

# One USDT probe at 20,000 sites (test_probes: attaching and detaching them).
$(OUTPUT)/sdtmany: tools/sdtgen/sdtmany.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) -std=gnu11 -O1 -Wall -Wextra -Werror $< -o $@

# A Go program whose time goes where Go's runtime switches stacks
# (test_go_stacks), built by Debian's golang-go, its caches in the build's.
$(OUTPUT)/gogen: tools/gogen/main.go tools/gogen/go.mod
	@mkdir -p $(@D)
	$(call msg,GO,$@)
	$(Q)cd tools/gogen && GOCACHE=$(abspath $(OUTPUT))/go-cache GOPATH=$(abspath $(OUTPUT))/go-path \
		GOFLAGS=-buildvcs=false GOTOOLCHAIN=local go build -o $(abspath $@) .

$(TEST_UTIL): tests/test_util.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(DEPFLAGS) -Itests -c $< -o $@

TEST_LINK = $(CC) $(CFLAGS) $(LDFLAGS) -Itests -MMD -MP -MF $@.d $< $(TEST_OBJS) $(TEST_UTIL) \
	    $(LIBRINGTRACE) $(LDLIBS) -lcmocka -lm -lpthread -o $@

# The tests of the real commands' option tables link them from cli/, which
# is not in libringtrace.a.
CLI_TABLE_TESTS := $(addprefix $(OUTPUT)/tests/,test_options test_options_doc test_deploy)
$(CLI_TABLE_TESTS): TEST_OBJS := $(OUTPUT)/cli/command_options.o $(OUTPUT)/cli/record_options.o $(OUTPUT)/cli/small_command_options.o
$(CLI_TABLE_TESTS): $(OUTPUT)/cli/command_options.o $(OUTPUT)/cli/record_options.o $(OUTPUT)/cli/small_command_options.o

# The flame graph rendering test reads Chromium's screenshots with libpng.
$(OUTPUT)/tests/test_flamegraph_render: LDLIBS += -lpng

$(OUTPUT)/tests/%: tests/unit/%.c $(TEST_UTIL) $(LIBRINGTRACE)
	$(call msg,TEST,$@)
	$(Q)$(TEST_LINK)

$(OUTPUT)/tests/%: tests/integration/%.c $(TEST_UTIL) $(LIBRINGTRACE)
	$(call msg,TEST,$@)
	$(Q)$(TEST_LINK)

# Installs the test dependencies, builds the programs, then builds and runs
# every test under ASan and UBSan, then each fuzz target.
test: deps
	@$(MAKE) --no-print-directory check-layers
	@$(MAKE) --no-print-directory programs
	@$(MAKE) --no-print-directory SANITIZE=1 OUTPUT=$(OUTPUT)/san \
		INSTALL_FROM="OUTPUT=$(abspath $(OUTPUT)) SANITIZE=" check
	@$(MAKE) --no-print-directory fuzz-ci

# Every include under user/ points down the layout; no file of user/ over
# 600 lines; no plain open of a path a local user controls; every header of
# bpf/ compiles alone (it includes what it uses).
check-layers: $(VMLINUX)
	@tools/layers/check-layers user
	@tools/layers/check-opens user
	@for h in bpf/*.h; do $(CLANG) $(BPF_CFLAGS) -Wno-unused-function -x c -fsyntax-only $$h || \
		{ echo "$$h does not compile alone: include what it uses"; exit 1; }; done

check: programs $(SYMGEN) $(UNIT_TESTS) $(INTEGRATION_TESTS)
	@$(MAKE) --no-print-directory unit-test integration-test

LSAN_SUPPRESSIONS := $(abspath tests/fuzz/lsan.supp)
SAN_ENV := ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	   LSAN_OPTIONS=suppressions=$(LSAN_SUPPRESSIONS)

# test_unwind_compile reads the unwind rows of a built program (SYMGEN_DIR),
# test_options_doc the pages of docs/ (RINGTRACE_SRC); test_bench_doc.py the
# merge of docs/BENCHMARKS.md by host kind (tools/bench/bench_doc.py).
unit-test: $(UNIT_TESTS) $(SYMGEN)
	@set -e; for t in $(UNIT_TESTS); do echo "== $$t"; \
		$(SAN_ENV) SYMGEN_DIR=$(abspath $(OUTPUT)) RINGTRACE_SRC=$(CURDIR) $$t; done
	@echo "== tests/unit/test_bench_doc.py"; python3 tests/unit/test_bench_doc.py

# Under CI (CI or REQUIRE_INTEGRATION set) a test that cannot run fails.
# The deployment tests install and package the build INSTALL_FROM names (make
# test: the plain one) with RINGTRACE_MAKE, and read deploy/ in RINGTRACE_SRC.
INSTALL_FROM ?= OUTPUT=$(abspath $(OUTPUT)) SANITIZE=$(SANITIZE)
integration-test: programs $(SYMGEN) $(INTEGRATION_TESTS)
	@set -e; for t in $(INTEGRATION_TESTS); do echo "== $$t"; \
		$(SAN_ENV) RINGTRACE=$(abspath $(OUTPUT)/ringtrace) LOADGEN=$(abspath $(LOADGEN)) \
		SYMGEN_DIR=$(abspath $(OUTPUT)) RINGTRACE_SRC=$(CURDIR) \
		RINGTRACE_MAKE="make -C $(CURDIR) --no-print-directory $(INSTALL_FROM)" $$t; done

BENCH_TOOLS := $(patsubst tools/bench/%.c,$(OUTPUT)/bench/%,$(wildcard tools/bench/*.c))

$(OUTPUT)/bench/%: tools/bench/%.c $(BENCH_SKELETONS) $(LIBRINGTRACE)
	@mkdir -p $(@D)
	$(call msg,BENCH,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -MMD -MP -MF $@.d $< $(LIBRINGTRACE) $(LDLIBS) -o $@

# Scenario 6 samples unwindgen's call chains.
bench-tools: programs $(BENCH_TOOLS) $(OUTPUT)/unwindgen

# Compares ringtrace with perf record and bpftrace on the same workloads, in
# one run, and writes docs/BENCHMARKS.md (not part of make test).
bench: deps bench-deps
	@$(MAKE) --no-print-directory bench-tools
	python3 tools/bench/bench.py --build $(OUTPUT) --out docs/BENCHMARKS.md

# libFuzzer targets (clang, ASan, UBSan) for the recording reader, the
# command-line parsers, the unwind table compiler and the --filter compiler;
# seeds and regressions in tests/fuzz/. make test runs each for
# FUZZ_CI_SECONDS, make fuzz for FUZZ_SECONDS, make fuzz-long for
# FUZZ_LONG_RUNS inputs. They link the parts that read recordings, parse
# options and compile filters, built again with the fuzzer's flags.
FUZZ_OUTPUT := $(OUTPUT)/fuzz
FUZZ_SECONDS ?= 600
FUZZ_CI_SECONDS ?= 60
FUZZ_LONG_RUNS ?= 10000000
FUZZ_CFLAGS := -g -O1 -std=gnu11 -D_GNU_SOURCE -fno-omit-frame-pointer \
	       -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
	       -DRINGTRACE_VERSION='"$(VERSION)"' -Iuser -Ibpf
FUZZ_SRCS := $(foreach p,lib sys format symbols report,$(wildcard user/$(p)/*.c)) \
	     user/capture/event_spec.c user/capture/perf_events.c user/capture/trace_filter.c \
	     user/export/metrics.c user/export/metrics_text.c user/export/metrics_agent.c
FUZZ_LIB := $(FUZZ_OUTPUT)/libringtrace-fuzz.a
FUZZ_LIBS := -ldw -lelf -liberty -ltraceevent -lprotobuf-c -ljson-c -lz -lxxhash -lcap -lpthread
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,$(FUZZ_OUTPUT)/%,$(wildcard tests/fuzz/fuzz_*.c))
# What fuzz_unwind_compile's corpus starts from: small real binaries whole
# (/usr/bin/true if present; the test programs, built for it, one with its
# CFI in .debug_frame), and runs of the CFI of big ones (those present),
# which -max_len would cut: unwind_seeds writes each run into an ELF file of
# a few KB, at the binary's own addresses (tests/fuzz/unwind_seeds.c).
FUZZ_ELF_BUILT := $(OUTPUT)/unwindgen $(OUTPUT)/unwindgen_debugframe $(OUTPUT)/symgen_stripped
FUZZ_ELF_SEEDS := /usr/bin/true $(FUZZ_ELF_BUILT)
FUZZ_CFI_SEEDS ?= /usr/lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2 /usr/bin/python3.11 \
		  /usr/lib/gcc/x86_64-linux-gnu/12/cc1
FUZZ_UNWIND_SEEDS := $(FUZZ_OUTPUT)/unwind_seeds

$(FUZZ_OUTPUT)/%.o: user/%.c | $(PROTO_H)
	@mkdir -p $(@D)
	$(call msg,FUZZ-CC,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -I$(OUTPUT) $(DEPFLAGS) -c $< -o $@

# The generated header the main build's syscall_names.o waits for, the same
# for the fuzzers' (a clean tree's make fuzz-targets has no other to find).
$(FUZZ_OUTPUT)/sys/syscall_names.o: $(OUTPUT)/sys/syscall_table.h

$(FUZZ_OUTPUT)/%.pb-c.o: $(OUTPUT)/%.pb-c.c $(OUTPUT)/%.pb-c.h
	@mkdir -p $(@D)
	$(call msg,FUZZ-CC,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(FUZZ_LIB): $(patsubst user/%.c,$(FUZZ_OUTPUT)/%.o,$(FUZZ_SRCS)) $(patsubst %,$(FUZZ_OUTPUT)/%.pb-c.o,$(PROTOS))
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(FUZZ_OUTPUT)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_LIB) $(FUZZ_LIBS) -o $@

$(FUZZ_UNWIND_SEEDS): tests/fuzz/unwind_seeds.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -MF $@.d $< -lelf -o $@

# Runs every target as $(1) says (-max_total_time=S or -runs=N), described
# as $(2), on a scratch corpus seeded from tests/fuzz/; prints its execs/s.
# The targets' own stderr (warnings about each input) is closed: libFuzzer's
# lines and the sanitizers' reports still reach the log. A target's scratch
# files go in a directory of this run's (in /dev/shm when it can), removed
# after it even when the target died; a crash prints the sanitizer's report
# from its first line, not only the log's tail. ASan's quarantine of freed
# memory is 4 MiB (its default, 256 MiB, hands every allocation fresh pages,
# and a page fault costs ~15 us in this VM: fuzz_perf_data faulted 12 pages
# an input, 4 with it); 4 MiB still holds the frees of the last ~40 inputs.
define run_fuzzers
	@set -e; for t in $(FUZZ_TARGETS); do n=$$(basename $$t); seeds=tests/fuzz/$${n#fuzz_}; \
		mkdir -p $(FUZZ_OUTPUT)/corpus-$$n; echo "== $$n for $(2)"; \
		if [ $$n = fuzz_unwind_compile ]; then for f in $(FUZZ_ELF_SEEDS); do \
			[ ! -f $$f ] || cp $$f $(FUZZ_OUTPUT)/corpus-$$n/seed-$$(basename $$f); done; \
			$(FUZZ_UNWIND_SEEDS) $(FUZZ_OUTPUT)/corpus-$$n $(FUZZ_CFI_SEEDS); fi; \
		scratch=$$(mktemp -d /dev/shm/ringtrace-fuzz-run.XXXXXX 2>/dev/null || mktemp -d); \
		if ! TMPDIR=$$scratch ASAN_OPTIONS=quarantine_size_mb=4$${ASAN_OPTIONS:+:$$ASAN_OPTIONS} LSAN_OPTIONS=suppressions=$(LSAN_SUPPRESSIONS) $$t $(1) -timeout=10 -rss_limit_mb=4096 -max_len=65536 -close_fd_mask=2 \
			-print_final_stats=1 -artifact_prefix=$(FUZZ_OUTPUT)/$$n- \
			$(FUZZ_OUTPUT)/corpus-$$n $$seeds > $(FUZZ_OUTPUT)/$$n.log 2>&1; then \
			rm -rf $$scratch; grep -m1 -A60 -E '^==[0-9]+==ERROR|runtime error|^==[0-9]+== ERROR' $(FUZZ_OUTPUT)/$$n.log || true; \
			echo "..."; tail -12 $(FUZZ_OUTPUT)/$$n.log; echo "$$n found a crash: make it a regression in $$seeds/"; \
			exit 1; fi; rm -rf $$scratch; grep -E '^stat::' $(FUZZ_OUTPUT)/$$n.log; done
endef

# The targets, and what their runs seed fuzz_unwind_compile with.
fuzz-targets: $(FUZZ_TARGETS) $(FUZZ_UNWIND_SEEDS) $(FUZZ_ELF_BUILT)

# Rewrites the synthetic seeds of fuzz_perf_data, and compact copies of the
# recordings named in FUZZ_SEED_RECORDINGS ("NAME=DIR ...").
$(OUTPUT)/tests/fuzz_seeds: tests/fuzz/seeds.c $(TEST_UTIL) $(LIBRINGTRACE)
	$(call msg,TEST,$@)
	$(Q)$(TEST_LINK)

fuzz-seeds: $(OUTPUT)/tests/fuzz_seeds
	$(OUTPUT)/tests/fuzz_seeds tests/fuzz/perf_data $(FUZZ_SEED_RECORDINGS)

fuzz: deps
	@$(MAKE) --no-print-directory fuzz-targets
	$(call run_fuzzers,-max_total_time=$(FUZZ_SECONDS),$(FUZZ_SECONDS) s)

fuzz-ci: fuzz-targets
	$(call run_fuzzers,-max_total_time=$(FUZZ_CI_SECONDS),$(FUZZ_CI_SECONDS) s)

fuzz-long: fuzz-targets
	$(call run_fuzzers,-runs=$(FUZZ_LONG_RUNS),$(FUZZ_LONG_RUNS) inputs)

# make test on a busy machine (not in make test): beside two CPU hogs, a churn
# of short processes and a system-wide record -a -g (tools/busy/test-busy).
test-busy: deps
	@tools/busy/test-busy $(MAKE) --no-print-directory test

# A long flight recording at a high tracepoint rate (not in make test):
# RSS, file descriptors and accounting; writes the Soak section of docs/BENCHMARKS.md.
SOAK_SECONDS ?= 600

soak: build-deps bench-deps
	@$(MAKE) --no-print-directory programs
	python3 tools/soak/soak.py --build $(OUTPUT) --seconds $(SOAK_SECONDS) --out docs/BENCHMARKS.md

# The main job: installs what building needs, builds, records RECORD_SECONDS
# seconds system-wide with callchains into $(RECORD_DIR), then reports.
record: build-deps
	@$(MAKE) --no-print-directory programs
	$(OUTPUT)/ringtrace record -a -g --force -o $(RECORD_DIR) -- sleep $(RECORD_SECONDS)
	$(OUTPUT)/ringtrace report $(RECORD_DIR)

# Installing: the binary, a man page per command and ringtrace(1), the bash
# completion (both written by the binary from its option tables), the
# systemd unit with its user and defaults, the docs and the Prometheus,
# Grafana and Kubernetes files as examples. DESTDIR stages the tree.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/ringtrace
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
SYSCONFDIR ?= /etc
DOC_OUTPUT := $(OUTPUT)/doc
EXAMPLES := deploy/prometheus/ringtrace.rules.yml deploy/prometheus/ringtrace.rules.test.yml \
	    deploy/prometheus/web-config.example.yml deploy/grafana/ringtrace-dashboard.json \
	    deploy/kubernetes/ringtrace-exporter.yaml deploy/kubernetes/ringtrace-podmonitor.yaml
# The pages the README links to, installed beside it as docs/ so that its links hold.
DOCS := $(wildcard docs/*.md)
DOC_IMAGES := $(wildcard docs/images/*.png)

# The man pages and the completion, from the binary's tables; the commands
# are those ringtrace --help lists. The unit names the installed binary.
$(DOC_OUTPUT)/stamp: $(OUTPUT)/ringtrace
	$(call msg,GEN,$(DOC_OUTPUT))
	$(Q)rm -rf $(DOC_OUTPUT)/man && mkdir -p $(DOC_OUTPUT)/man
	$(Q)$(OUTPUT)/ringtrace __man > $(DOC_OUTPUT)/man/ringtrace.1
	$(Q)for c in $$($(OUTPUT)/ringtrace --help | awk '/^commands:/ { f = 1; next } f && !NF { exit } f { print $$1 }'); do \
		$(OUTPUT)/ringtrace __man $$c > $(DOC_OUTPUT)/man/ringtrace-$$c.1 || exit 1; done
	$(Q)$(OUTPUT)/ringtrace __completion > $(DOC_OUTPUT)/ringtrace.bash
	$(Q)touch $@

$(DOC_OUTPUT)/ringtrace-exporter.service: deploy/systemd/ringtrace-exporter.service.in FORCE
	@mkdir -p $(@D)
	$(Q)sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' $< > $@.tmp && \
		{ cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@; }

docs: $(DOC_OUTPUT)/stamp $(DOC_OUTPUT)/ringtrace-exporter.service

install: programs docs
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(SYSCONFDIR)/default \
		$(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR)/docs/images
	install -m 0755 $(OUTPUT)/ringtrace $(DESTDIR)$(BINDIR)/ringtrace
	for f in $(DOC_OUTPUT)/man/*.1; do gzip -9n < $$f > $(DESTDIR)$(MANDIR)/man1/$$(basename $$f).gz && \
		chmod 0644 $(DESTDIR)$(MANDIR)/man1/$$(basename $$f).gz || exit 1; done
	install -m 0644 $(DOC_OUTPUT)/ringtrace.bash $(DESTDIR)$(BASHCOMPDIR)/ringtrace
	install -m 0644 $(DOC_OUTPUT)/ringtrace-exporter.service $(DESTDIR)$(UNITDIR)/ringtrace-exporter.service
	install -m 0644 deploy/systemd/ringtrace.sysusers $(DESTDIR)$(SYSUSERSDIR)/ringtrace.conf
	install -m 0644 deploy/systemd/ringtrace-exporter.default $(DESTDIR)$(SYSCONFDIR)/default/ringtrace-exporter
	install -m 0644 README.md $(DESTDIR)$(DOCDIR)/README.md
	install -m 0644 $(DOCS) $(DESTDIR)$(DOCDIR)/docs/
	install -m 0644 $(DOC_IMAGES) $(DESTDIR)$(DOCDIR)/docs/images/
	install -m 0644 $(EXAMPLES) $(DESTDIR)$(DOCDIR)/examples/

# Removes what install put there (the same PREFIX and DESTDIR).
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ringtrace $(DESTDIR)$(MANDIR)/man1/ringtrace.1.gz \
		$(DESTDIR)$(MANDIR)/man1/ringtrace-*.1.gz $(DESTDIR)$(BASHCOMPDIR)/ringtrace \
		$(DESTDIR)$(UNITDIR)/ringtrace-exporter.service $(DESTDIR)$(SYSUSERSDIR)/ringtrace.conf \
		$(DESTDIR)$(SYSCONFDIR)/default/ringtrace-exporter
	rm -rf $(DESTDIR)$(DOCDIR)

# A Debian package of what install installs (PREFIX /usr), built with
# dpkg-deb: $(OUTPUT)/ringtrace_VERSION_ARCH.deb; lintian checks it in the tests.
DEB_ROOT := $(OUTPUT)/deb/root
deb: programs
	rm -rf $(DEB_ROOT)
	@$(MAKE) --no-print-directory install DESTDIR=$(abspath $(DEB_ROOT)) PREFIX=/usr \
		UNITDIR=/lib/systemd/system SYSCONFDIR=/etc
	tools/deb/build-deb $(DEB_ROOT) $(VERSION) $(OUTPUT)

# Regenerates the CO-RE type header from the running kernel's BTF.
vmlinux:
	@mkdir -p $(dir $(VMLINUX))
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $(VMLINUX)

clean:
	rm -rf $(OUTPUT)

# Header dependencies written by -MMD.
-include $(shell find $(OUTPUT) \( -path $(OUTPUT)/san -o -path $(OUTPUT)/deb \) -prune -o -name '*.d' -type f -print 2>/dev/null)
