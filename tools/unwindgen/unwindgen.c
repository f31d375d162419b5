/* SPDX-License-Identifier: GPL-2.0-only */
/* unwindgen.c: programs with known call paths built without frame pointers
 * (main -> uw_a -> uw_b -> uw_c, 40 frames deep (and again with frame
 * pointers), 200 deep (past the 127 frames a callchain holds), a frame whose
 * CFA is in r12, into a dlopen'd zlib), a JIT, the chain in a child forked
 * late. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Deep enough that a stack copy of perf's default 8 KiB holds main's frame,
 * with a caller-saved value live across each call so that no call is a tail
 * call and every frame has CFI of its own. */
#define NOINLINE __attribute__((noinline, noipa))

static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

NOINLINE uint64_t uw_c(uint64_t n)
{
	uint64_t x = n;

	for (uint64_t i = 0; i < 200000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

NOINLINE uint64_t uw_b(uint64_t n)
{
	volatile char pad[64];
	uint64_t r;

	pad[0] = (char)n;
	r = uw_c(n + (uint64_t)pad[0]);
	return r ^ (uint64_t)pad[0];
}

NOINLINE uint64_t uw_a(uint64_t n)
{
	uint64_t r = uw_b(n * 3);

	return r + n;
}

/* "deep": main -> uw_deep x DEEP_FRAMES -> uw_c, each frame without a frame
 * pointer and its result used after the call (no tail call), but the last
 * one's (depth 0 jumps to uw_c). */
#define DEEP_FRAMES 40

NOINLINE uint64_t uw_deep(int depth, uint64_t n)
{
	uint64_t r;

	if (depth == 0)
		return uw_c(n);
	r = uw_deep(depth - 1, n + 1);
	return r ^ (uint64_t)depth;
}

/* "deeper": main -> uw_deeper x DEEPER_FRAMES -> uw_c_sys, past the
 * RT_MAX_STACK_DEPTH (127) user frames a walk writes and perf's --max-stack
 * default (127) alike: the stack is cut where a report cuts it. The leaf
 * calls getppid every 4096 turns, so that some samples hold kernel frames
 * before the user ones. */
#define DEEPER_FRAMES 200

NOINLINE uint64_t uw_c_sys(uint64_t n)
{
	uint64_t x = n;

	for (uint64_t i = 0; i < 200000; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		if (!(i & 4095))
			x ^= (uint64_t)getppid();
	}
	return x;
}

NOINLINE uint64_t uw_deeper(int depth, uint64_t n)
{
	uint64_t r;

	if (depth == 0)
		return uw_c_sys(n);
	r = uw_deeper(depth - 1, n + 1);
	return r ^ (uint64_t)depth;
}

/* "deepfp": the same recursion with a frame pointer: its rows' CFA rbp plus
 * an offset, rbp saved. */
__attribute__((optimize("no-omit-frame-pointer"))) NOINLINE uint64_t uw_deep_fp(int depth,
										  uint64_t n)
{
	uint64_t r;

	if (depth == 0)
		return uw_c(n);
	r = uw_deep_fp(depth - 1, n + 1);
	return r ^ (uint64_t)depth;
}

/* "cfareg": uw_cfa_reg spins with its CFA in r12 (CFA r12 + 16, r12 saved;
 * rsp realigned below it), as a function that realigns its stack keeps the
 * CFA in a register: the sampled frame's row reads a register of the
 * sample's other than rsp, rbp and rbx, and no rsp or rbp rule would
 * unwind it. Every 256 turns a getppid from there: samples taken in the
 * kernel, whose walk starts from the task's saved registers, have it as
 * their first user frame too. n: the loop's count, at least 1. */
uint64_t uw_cfa_reg(uint64_t n);
__asm__(".text\n"
	".globl uw_cfa_reg\n"
	".type uw_cfa_reg, @function\n"
	"uw_cfa_reg:\n"
	".cfi_startproc\n"
	"	push %r12\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %r12, -16\n"
	"	mov %rsp, %r12\n"
	".cfi_def_cfa_register %r12\n"
	"	and $-64, %rsp\n"
	"	sub $64, %rsp\n"
	"	mov %rdi, %r8\n"
	"1:	imul %rdi, %r8\n"
	"	test $255, %rdi\n"
	"	jnz 2f\n"
	"	mov $110, %eax\n" /* getppid: rax, rcx, r11 clobbered */
	"	syscall\n"
	"2:	dec %rdi\n"
	"	jnz 1b\n"
	"	mov %r8, %rax\n"
	"	mov %r12, %rsp\n"
	".cfi_def_cfa_register %rsp\n"
	"	pop %r12\n"
	".cfi_restore %r12\n"
	".cfi_def_cfa_offset 8\n"
	"	ret\n"
	".cfi_endproc\n"
	".size uw_cfa_reg, .-uw_cfa_reg\n");

/* "dlopen": zlib (Debian's, no frame pointers) loaded while running, its
 * compress2 called from uw_zlib: the library's frames must unwind by a table
 * made after the process started. */
typedef int (*compress2_fn)(unsigned char *, unsigned long *, const unsigned char *,
			    unsigned long, int);

NOINLINE uint64_t uw_zlib(compress2_fn compress2, const unsigned char *in, size_t len)
{
	static unsigned char out[1 << 17];
	unsigned long out_len = sizeof(out);

	if (compress2(out, &out_len, in, len, 9))
		return 0;
	return out_len + out[0];
}

static int run_dlopen(double seconds)
{
	static unsigned char in[1 << 16];
	void *z;
	compress2_fn compress2;
	double end;
	uint64_t i;

	/* after its start, as a plugin is loaded */
	for (end = now() + 0.2; now() < end;)
		;
	z = dlopen("libz.so.1", RTLD_NOW);
	if (!z) {
		fprintf(stderr, "unwindgen: %s\n", dlerror());
		return 1;
	}
	compress2 = (compress2_fn)(uintptr_t)dlsym(z, "compress2");
	if (!compress2)
		return 1;
	for (i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)(i * 2654435761u >> 13);
	for (end = now() + seconds; now() < end;)
		sink += uw_zlib(compress2, in, sizeof(in));
	dlclose(z);
	return 0;
}

/* x86-64 code of a spinning leaf: mov eax, 200000; 1: dec eax; jnz 1b; ret */
static const uint8_t jit_spin_code[] = { 0xb8, 0x40, 0x0d, 0x03, 0x00, 0xff, 0xc8, 0x75, 0xfc, 0xc3 };

/* Generates two functions, names them in /tmp/perf-PID.map (perf's format:
 * "START SIZE name" in hex), runs the first for seconds and exits, leaving
 * the map (as JITs do: the tests remove it). */
static int run_jit(double seconds)
{
	char path[64];
	uint8_t *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void (*spin)(void);
	double end;
	FILE *f;

	if (code == MAP_FAILED) {
		perror("unwindgen: mmap");
		return 1;
	}
	memcpy(code, jit_spin_code, sizeof(jit_spin_code));
	memcpy(code + 256, jit_spin_code, sizeof(jit_spin_code));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (!f) {
		perror("unwindgen: perf map");
		return 1;
	}
	fprintf(f, "%lx %lx jit_spin_hot\n", (unsigned long)(uintptr_t)code,
		(unsigned long)sizeof(jit_spin_code));
	fprintf(f, "%lx %lx jit_spin_cold\n", (unsigned long)(uintptr_t)(code + 256),
		(unsigned long)sizeof(jit_spin_code));
	fclose(f);
	spin = (void (*)(void))(uintptr_t)code;
	for (end = now() + seconds; now() < end;)
		spin();
	return 0;
}

/* Idle until SIGUSR1, then the chain in a child for seconds: a process
 * forked, at the moment its test chooses, from one that was already running. */
static int run_fork(double seconds)
{
	sigset_t usr1;
	int status, sig;
	double end;
	pid_t child;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &usr1, NULL) || sigwait(&usr1, &sig)) {
		perror("sigwait");
		return 1;
	}
	end = now() + seconds;
	child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child == 0) {
		for (uint64_t i = 0; now() < end; i++)
			sink += uw_a(i);
		_exit(0);
	}
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	double seconds = argc > 2 ? atof(argv[2]) : 1.0, end;
	uint64_t i = 0;

	if (argc < 2 || (strcmp(argv[1], "chain") && strcmp(argv[1], "jit") &&
			 strcmp(argv[1], "deep") && strcmp(argv[1], "deepfp") &&
			 strcmp(argv[1], "deeper") &&
			 strcmp(argv[1], "cfareg") && strcmp(argv[1], "dlopen") &&
			 strcmp(argv[1], "fork"))) {
		fprintf(stderr, "usage: unwindgen chain|deep|deepfp|deeper|cfareg|dlopen|jit|fork [SECONDS] (fork: on SIGUSR1)\n");
		return 2;
	}
	if (!strcmp(argv[1], "fork"))
		return run_fork(seconds);
	if (!strcmp(argv[1], "dlopen"))
		return run_dlopen(seconds);
	if (!strcmp(argv[1], "jit"))
		return run_jit(seconds);
	if (!strcmp(argv[1], "deep")) {
		for (end = now() + seconds; now() < end; i++)
			sink += uw_deep(DEEP_FRAMES, i);
		return 0;
	}
	if (!strcmp(argv[1], "deeper")) {
		for (end = now() + seconds; now() < end; i++)
			sink += uw_deeper(DEEPER_FRAMES, i);
		return 0;
	}
	if (!strcmp(argv[1], "cfareg")) {
		for (end = now() + seconds; now() < end; i++)
			sink += uw_cfa_reg(1000000 + (i & 1));
		return 0;
	}
	if (!strcmp(argv[1], "deepfp")) {
		for (end = now() + seconds; now() < end; i++)
			sink += uw_deep_fp(DEEP_FRAMES, i);
		return 0;
	}
	for (end = now() + seconds; now() < end; i++)
		sink += uw_a(i);
	return 0;
}
