/* SPDX-License-Identifier: GPL-2.0-only */
// symgen_cxx.cc: a C++ program whose hot function has a mangled name, for the
// tests of demangling: it spins in ringtrace_test::Spinner::spin(int).
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace ringtrace_test {
struct Spinner {
	__attribute__((noinline)) static unsigned long spin(int rounds);
};

unsigned long Spinner::spin(int rounds)
{
	volatile unsigned long x = 0;

	for (int i = 0; i < rounds; i++)
		x = x + static_cast<unsigned long>(i) * 7;
	return x;
}
} // namespace ringtrace_test

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? std::atof(argv[1]) : 1.0;
	auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
	unsigned long sum = 0;

	while (std::chrono::steady_clock::now() < end)
		sum += ringtrace_test::Spinner::spin(100000);
	std::printf("%lu\n", sum & 1);
	return 0;
}
