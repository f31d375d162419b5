/* SPDX-License-Identifier: GPL-2.0-only */
// symgen_cxx.cc: a C++ program whose hot function has a mangled name, for the
// tests of demangling: it spins in ringtrace_test::Spinner::spin(int), called
// through a function whose name demangles to over 1300 bytes.
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
// A type nested 64 deep, and a caller of spin named by it: reports print its
// name whole, as perf does.
template <typename T> struct Nest {};
template <int N> struct Deep {
	using type = Nest<typename Deep<N - 1>::type>;
};
template <> struct Deep<0> {
	using type = Spinner;
};

template <typename T> __attribute__((noinline)) unsigned long long_named_caller(int rounds)
{
	return Spinner::spin(rounds) + 1;
}
} // namespace ringtrace_test

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? std::atof(argv[1]) : 1.0;
	auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
	unsigned long sum = 0;

	while (std::chrono::steady_clock::now() < end)
		sum += ringtrace_test::long_named_caller<ringtrace_test::Deep<64>::type>(100000);
	std::printf("%lu\n", sum & 1);
	return 0;
}
