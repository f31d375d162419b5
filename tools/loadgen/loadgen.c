/* SPDX-License-Identifier: GPL-2.0-only */
/* loadgen.c: known workloads for tests and benchmarks: one hot function, a
 * weighted mix of five, an exact number of getpid calls, a forked child,
 * a process that renames itself, known sleeps in known functions, files
 * mapped executable while it spins. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;

/* The hot function: tests look for it by name. Never inlined, frame pointers kept. */
__attribute__((noinline)) uint64_t loadgen_hot_loop(uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < 1000000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

/* Five functions of equal work, called 16:8:4:2:1 by "mix", so a profile of
 * it has five symbols of known, distinct weights. */
#define LOADGEN_MIX_FN(name)                                                \
	__attribute__((noinline)) uint64_t name(uint64_t seed)             \
	{                                                                   \
		uint64_t x = seed;                                          \
		for (int i = 0; i < 200000; i++)                            \
			x = x * 2862933555777941757ULL + 3037000493ULL;     \
		return x;                                                   \
	}
LOADGEN_MIX_FN(loadgen_mix_16)
LOADGEN_MIX_FN(loadgen_mix_8)
LOADGEN_MIX_FN(loadgen_mix_4)
LOADGEN_MIX_FN(loadgen_mix_2)
LOADGEN_MIX_FN(loadgen_mix_1)

__attribute__((noinline)) static void *mix_thread(void *arg)
{
	uint64_t x = (uintptr_t)arg;

	while (!stop) {
		for (int i = 0; i < 16; i++)
			x = loadgen_mix_16(x);
		for (int i = 0; i < 8; i++)
			x = loadgen_mix_8(x);
		for (int i = 0; i < 4; i++)
			x = loadgen_mix_4(x);
		for (int i = 0; i < 2; i++)
			x = loadgen_mix_2(x);
		x = loadgen_mix_1(x);
	}
	return (void *)(uintptr_t)x;
}

__attribute__((noinline)) static void *spin_thread(void *arg)
{
	uint64_t x = (uintptr_t)arg;

	while (!stop)
		x = loadgen_hot_loop(x);
	return (void *)(uintptr_t)x;
}

static void pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "loadgen: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
		exit(1);
	}
}

static int run_threads(double seconds, int threads, void *(*fn)(void *))
{
	pthread_t tids[64];
	struct timespec ts = { (time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9) };

	if (threads < 1 || threads > 64)
		return 2;
	for (int i = 0; i < threads; i++)
		if (pthread_create(&tids[i], NULL, fn, (void *)(uintptr_t)(i + 1)))
			return 1;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	stop = 1;
	for (int i = 0; i < threads; i++)
		pthread_join(tids[i], NULL);
	return 0;
}

static int run_spin(double seconds, int threads)
{
	return run_threads(seconds, threads, spin_thread);
}

static int report_time;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int run_getpid(uint64_t n)
{
	uint64_t t0 = now_ns(), t1;

	for (uint64_t i = 0; i < n; i++)
		syscall(SYS_getpid);
	t1 = now_ns();
	if (report_time)
		fprintf(stderr, "loadgen: calls=%llu ns_per_call=%.1f\n", (unsigned long long)n,
			(double)(t1 - t0) / (double)(n ? n : 1));
	return 0;
}

/* n getpid calls, then one getppid (a trigger), then a pause so that the
 * snapshot it triggers is taken while this process lives. */
static int run_getpid_then_getppid(uint64_t n)
{
	struct timespec pause = { 1, 0 };

	run_getpid(n);
	syscall(SYS_getppid);
	nanosleep(&pause, NULL);
	return 0;
}

/* getpid at rate calls per second (0: as fast as it goes) for seconds;
 * prints how many calls it made. */
static int run_getpid_paced(double rate, double seconds)
{
	uint64_t t0 = now_ns(), end = t0 + (uint64_t)(seconds * 1e9), calls = 0, t;

	while ((t = now_ns()) < end) {
		if (rate > 0 && (double)calls >= rate * (double)(t - t0) / 1e9)
			continue;
		syscall(SYS_getpid);
		calls++;
	}
	fprintf(stderr, "loadgen: calls=%llu\n", (unsigned long long)calls);
	return 0;
}

/* The child spins; its CPU time (user + system) is printed on stderr, so
 * that a sampler's count can be checked against what the child really ran. */
static int run_fork(double seconds, int threads)
{
	pid_t child = fork();
	struct rusage ru;
	int status;

	if (child < 0)
		return 1;
	if (child == 0)
		_exit(run_spin(seconds, threads));
	if (wait4(child, &status, 0, &ru) != child || !WIFEXITED(status))
		return 1;
	fprintf(stderr, "loadgen: child_cpu_ms=%lld\n",
		(long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
			(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000);
	return WEXITSTATUS(status);
}

/* COUNT vforks from a function of its own (loadgen_vfork_caller), each
 * child leaving at once: libc's __vfork keeps its return address in rdi
 * across the system call. */
static __attribute__((noinline)) int loadgen_vfork_caller(unsigned long long count)
{
	for (unsigned long long i = 0; i < count; i++) {
		pid_t child = vfork();
		int status;

		if (child < 0)
			return 1;
		if (child == 0)
			_exit(0);
		if (waitpid(child, &status, 0) != child)
			return 1;
	}
	return 0;
}

/* CPU time this thread has run, in ns. */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* count distinct comms ("rPID.I"), each held for 300 us of CPU time, so that
 * a sampler at 10 kHz or more sees nearly every one; then the first again. */
static int run_rename(uint64_t count)
{
	char first[16], name[16];
	uint64_t x = 1;

	prctl(PR_GET_NAME, first, 0, 0, 0);
	for (uint64_t i = 0; i < count; i++) {
		uint64_t until;

		snprintf(name, sizeof(name), "r%d.%llu", (int)getpid(), (unsigned long long)i);
		if (prctl(PR_SET_NAME, name, 0, 0, 0)) {
			fprintf(stderr, "loadgen: PR_SET_NAME: %s\n", strerror(errno));
			return 1;
		}
		until = thread_cpu_ns() + 300000;
		while (thread_cpu_ns() < until)
			for (int k = 0; k < 1000; k++)
				x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	}
	prctl(PR_SET_NAME, first, 0, 0, 0);
	return x == 0;
}

/* sleep-raw: nanosleep made here, not in libc (built without frame
 * pointers): frame pointers unwind from the syscall to main. */
static int raw_syscalls;

__attribute__((noinline)) static long nanosleep_syscall(const struct timespec *ts)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_nanosleep), "D"(ts), "S"(0L)
			 : "rcx", "r11", "memory");
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return 0;
}

/* Sleeps count times for ns each, in nanosleep: the time off CPU the
 * off-CPU tests expect under these two names. */
static int sleep_ns(uint64_t count, uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };

	for (uint64_t i = 0; i < count; i++)
		if (raw_syscalls ? nanosleep_syscall(&ts) : nanosleep(&ts, NULL)) {
			fprintf(stderr, "loadgen: nanosleep: %s\n", strerror(errno));
			return 1;
		}
	return 0;
}

__attribute__((noinline)) int sleep_in_known_function(uint64_t count, uint64_t ms)
{
	return sleep_ns(count, ms * 1000000ull);
}

__attribute__((noinline)) int sleep_briefly(uint64_t count, uint64_t us)
{
	return sleep_ns(count, us * 1000ull);
}

/* count sleeps of ms ms in sleep_in_known_function, after brief_count of
 * brief_us us in sleep_briefly; with --time, the time sleep_in_known_function
 * took on stderr (its sleeps and each wait to run again after them). */
static int run_sleep(uint64_t count, uint64_t ms, uint64_t brief_count, uint64_t brief_us)
{
	uint64_t start;

	if (sleep_briefly(brief_count, brief_us))
		return 1;
	start = now_ns();
	if (sleep_in_known_function(count, ms))
		return 1;
	if (report_time)
		fprintf(stderr, "slept %llu ns in sleep_in_known_function\n",
			(unsigned long long)(now_ns() - start));
	return 0;
}

/* Maps each file whole, read-only and executable (MAP_PRIVATE), so that it
 * is an executable file mapping in /proc/self/maps (what -g compiles an
 * unwind table for), then spins for seconds with the mappings in place. */
static int run_map_exec(double seconds, int threads, char **files, int nr)
{
	for (int i = 0; i < nr; i++) {
		int fd = open(files[i], O_RDONLY | O_CLOEXEC);
		struct stat st;
		void *p = MAP_FAILED;

		if (fd >= 0 && !fstat(fd, &st)) {
			size_t size = (size_t)st.st_size;

			errno = EINVAL; /* an empty file: nothing to map */
			if (size)
				p = mmap(NULL, size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		}
		if (p == MAP_FAILED) {
			fprintf(stderr, "loadgen: cannot map %s executable: %s\n", files[i],
				strerror(errno));
			if (fd >= 0)
				close(fd);
			return 1;
		}
		close(fd); /* the mapping holds the file */
	}
	return run_spin(seconds, threads);
}

/* SECONDS as a number > 0 (all of the argument), or -1. */
static double parse_seconds(const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	return errno || end == arg || *end || !(v > 0) || v > 86400 ? -1 : v;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: loadgen [--cpu N] [--threads N] spin SECONDS\n"
		"       loadgen [--cpu N] [--threads N] mix SECONDS    (loadgen_mix_16..1 in 16:8:4:2:1)\n"
		"       loadgen [--cpu N] [--time] getpid COUNT      (--time: ns per call on stderr)\n"
		"       loadgen [--cpu N] getpid-getppid COUNT       (then one getppid, then 1 s idle)\n"
		"       loadgen [--cpu N] getpid-rate RATE SECONDS   (RATE calls/s, 0 = flat out;\n"
		"                                                     calls made on stderr)\n"
		"       loadgen [--cpu N] [--threads N] fork SECONDS   (a child process spins;\n"
		"                                                     its CPU time on stderr)\n"
		"       loadgen [--cpu N] rename COUNT               (COUNT distinct comms, each\n"
		"                                                     for 300 us of CPU time)\n"
		"       loadgen vfork COUNT                          (COUNT children by vfork, each\n"
		"                                                     leaving at once)\n"
		"       loadgen [--time] sleep COUNT MS [BRIEF_COUNT BRIEF_US]\n"
		"                                                    (BRIEF_COUNT nanosleeps of BRIEF_US us\n"
		"                                                     in sleep_briefly, then COUNT of MS ms\n"
		"                                                     in sleep_in_known_function)\n"
		"       loadgen [--time] sleep-raw COUNT MS [BRIEF_COUNT BRIEF_US]\n"
		"                                                    (the same, the syscall made by\n"
		"                                                     loadgen itself: frame pointers unwind)\n"
		"       loadgen [--cpu N] [--threads N] map-exec SECONDS FILE...\n"
		"                                                    (maps each FILE\n"
		"                                                     PROT_READ|PROT_EXEC;\n"
		"                                                     spins for SECONDS)\n"
		"       --name COMM before any of them: run as COMM (PR_SET_NAME)\n");
}

int main(int argc, char **argv)
{
	int threads = 1, i = 1;

	for (; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
		if (!strcmp(argv[i], "--time")) {
			report_time = 1;
			i--;
		} else if (!strcmp(argv[i], "--cpu")) {
			pin_to_cpu(atoi(argv[i + 1]));
		} else if (!strcmp(argv[i], "--threads")) {
			threads = atoi(argv[i + 1]);
		} else if (!strcmp(argv[i], "--name")) {
			if (prctl(PR_SET_NAME, argv[i + 1], 0, 0, 0)) {
				fprintf(stderr, "loadgen: PR_SET_NAME: %s\n", strerror(errno));
				return 1;
			}
		} else {
			break;
		}
	}
	if (i >= argc) {
		usage();
		return 2;
	}
	if (!strcmp(argv[i], "map-exec")) {
		double seconds = i + 1 < argc ? parse_seconds(argv[i + 1]) : -1;

		if (seconds < 0 || i + 3 > argc) {
			fprintf(stderr,
				"loadgen: map-exec needs SECONDS (> 0) and at least one FILE\n");
			usage();
			return 2;
		}
		return run_map_exec(seconds, threads, argv + i + 2, argc - i - 2);
	}
	raw_syscalls = !strcmp(argv[i], "sleep-raw");
	if ((i + 3 == argc || i + 5 == argc) && (!strcmp(argv[i], "sleep") || raw_syscalls))
		return run_sleep(strtoull(argv[i + 1], NULL, 10), strtoull(argv[i + 2], NULL, 10),
				 i + 5 == argc ? strtoull(argv[i + 3], NULL, 10) : 0,
				 i + 5 == argc ? strtoull(argv[i + 4], NULL, 10) : 0);
	if (i + 3 == argc && !strcmp(argv[i], "getpid-rate"))
		return run_getpid_paced(atof(argv[i + 1]), atof(argv[i + 2]));
	if (i + 2 != argc) {
		usage();
		return 2;
	}
	if (!strcmp(argv[i], "spin"))
		return run_spin(atof(argv[i + 1]), threads);
	if (!strcmp(argv[i], "mix"))
		return run_threads(atof(argv[i + 1]), threads, mix_thread);
	if (!strcmp(argv[i], "getpid"))
		return run_getpid(strtoull(argv[i + 1], NULL, 10));
	if (!strcmp(argv[i], "getpid-getppid"))
		return run_getpid_then_getppid(strtoull(argv[i + 1], NULL, 10));
	if (!strcmp(argv[i], "fork"))
		return run_fork(atof(argv[i + 1]), threads);
	if (!strcmp(argv[i], "rename"))
		return run_rename(strtoull(argv[i + 1], NULL, 10));
	if (!strcmp(argv[i], "vfork"))
		return loadgen_vfork_caller(strtoull(argv[i + 1], NULL, 10));
	usage();
	return 2;
}
