/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel_symbols.c: an address space's table of the kernel: read beside,
 * kept between one process's reports (export -g reads the running kernel's
 * once, not at every profile), read again for an address past what a kept
 * table answers for (see the header). */
#include "symbols/kernel_symbols.h"

#include <errno.h>

#include "symbols/kallsyms.h"

void address_space_load_kernel_beside(struct address_space *as)
{
	if (!as->kernel_loader && !(as->kernel && as->kernel->loaded))
		as->kernel_loader = kallsyms_load_beside(as->kallsyms_path);
}

/* The loader's table, once it is done; -ENOENT if there was no loader, or
 * what loading returned if it failed. */
static int take_kernel(struct address_space *as, struct symtab *t)
{
	struct kallsyms_loader *l = as->kernel_loader;

	as->kernel_loader = NULL;
	return l ? kallsyms_loader_take(l, t) : -ENOENT;
}

bool address_space_kernel_ready(const struct address_space *as)
{
	return !as->kernel_loader || kallsyms_loader_done(as->kernel_loader);
}

void kernel_symbols_load(struct address_space *as, struct dso *d)
{
	d->loaded = true;
	if (as->kernel_loader)
		d->unreadable = take_kernel(as, &d->symtab) != 0;
	else
		d->unreadable = kallsyms_load_kept(&d->symtab, as->kallsyms_path) != 0;
}

const struct symtab *kernel_symbols_for(struct address_space *as, struct dso *d, uint64_t ip)
{
	if (d->unreadable)
		return NULL;
	if (kallsyms_answers(&d->symtab, ip))
		return &d->symtab;
	if (!as->kernel_now_read) {
		as->kernel_now_read = true;
		as->kernel_now_unreadable =
			symtab_load_kallsyms(&as->kernel_now, as->kallsyms_path, NULL, 0) != 0;
	}
	return as->kernel_now_unreadable ? &d->symtab : &as->kernel_now;
}

void kernel_symbols_free(struct address_space *as)
{
	struct symtab unused;

	if (as->kernel_loader) {
		take_kernel(as, &unused);
		symtab_free(&unused);
	}
	symtab_free(&as->kernel_now);
}
