/* SPDX-License-Identifier: GPL-2.0-only */
/* sdtmany.c: one USDT probe (ringtrace_many:tick, its argument the loop's
 * count) at 20,000 sites, as a user's binary may have them, hit in a loop
 * until killed: for tests of what attaching and detaching so many sites
 * costs. The sites are written as <sys/sdt.h> writes each (a nop, and a
 * stapsdt note naming it), repeated by the assembler: 20,000 of the
 * header's macros take gcc minutes and a GiB. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define SITES 20000
#define TEXT(x) #x
#define NUMBER_TEXT(x) TEXT(x)

/* hit_every_site(i): SITES nops, each a site whose argument is i (%rdi). */
__asm__(".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n"
	".weak _.stapsdt.base\n"
	".hidden _.stapsdt.base\n"
	"_.stapsdt.base: .space 1\n"
	".size _.stapsdt.base, 1\n"
	".popsection\n"
	".text\n"
	".type hit_every_site, @function\n"
	"hit_every_site:\n"
	".rept " NUMBER_TEXT(SITES) "\n"
	"990: nop\n"
	".pushsection .note.stapsdt,\"\",\"note\"\n"
	".balign 4\n"
	".4byte 992f-991f, 994f-993f, 3\n"
	"991: .asciz \"stapsdt\"\n"
	"992: .balign 4\n"
	"993: .8byte 990b\n"
	".8byte _.stapsdt.base\n"
	".8byte 0\n"
	".asciz \"ringtrace_many\"\n"
	".asciz \"tick\"\n"
	".asciz \"-8@%rdi\"\n"
	"994: .balign 4\n"
	".popsection\n"
	".endr\n"
	"ret\n"
	".size hit_every_site, .-hit_every_site\n");

void hit_every_site(long i);

/* sdtmany [MS]: hits every site every MS milliseconds (10) until killed. */
int main(int argc, char **argv)
{
	long ms = argc > 1 ? strtol(argv[1], NULL, 10) : 10;

	printf("sdtmany: %d sites of ringtrace_many:tick\n", SITES);
	fflush(stdout);
	for (long i = 0;; i++) {
		hit_every_site(i);
		usleep((useconds_t)(ms * 1000));
	}
}
