/* SPDX-License-Identifier: GPL-2.0-only */
/* usdt_sites.c: a USDT probe's sites in its file, read from its notes, as
 * the sampler attaches them: file offsets, semaphores, argument specs. */
#include "record/usdt_sites.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/event_spec.h"
#include "lib/log.h"
#include "symbols/sdt_notes.h"

/* The index of site's spec among out's, added if new (its text among
 * texts); -errno with err set. */
static int spec_index(const struct sdt_probe *site, const char **texts, struct usdt_sites *out,
		      char *err, size_t errlen)
{
	int r;

	for (unsigned int i = 0; i < out->nr_specs; i++)
		if (!strcmp(texts[i], site->args))
			return (int)i;
	if (out->nr_specs == USDT_SITES_MAX_SPECS) {
		rt_format(err, errlen, "USDT probe %s:%s: more than %d distinct argument specs",
			  site->provider, site->name, USDT_SITES_MAX_SPECS);
		return -E2BIG;
	}
	if ((r = usdt_spec_parse(site->args, 0, &out->specs[out->nr_specs], err, errlen)))
		return r;
	texts[out->nr_specs] = site->args;
	return (int)out->nr_specs++;
}

int usdt_sites_of(const struct user_probe *p, const struct sdt_probe *notes, size_t nr_notes,
		  struct usdt_sites *out, char *err, size_t errlen)
{
	const char **texts = calloc(USDT_SITES_MAX_SPECS, sizeof(*texts));
	size_t n = 0;
	int r = 0;

	memset(out, 0, sizeof(*out));
	if (!texts) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nr_notes; i++)
		n += !strcmp(notes[i].provider, p->provider) && !strcmp(notes[i].name, p->probe);
	out->offsets = calloc(n ? n : 1, sizeof(*out->offsets));
	out->ref_ctr_offsets = calloc(n ? n : 1, sizeof(*out->ref_ctr_offsets));
	out->spec_of = calloc(n ? n : 1, sizeof(*out->spec_of));
	out->specs = calloc(USDT_SITES_MAX_SPECS, sizeof(*out->specs));
	if (!out->offsets || !out->ref_ctr_offsets || !out->spec_of || !out->specs) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nr_notes; i++) {
		const struct sdt_probe *site = &notes[i];
		int spec;

		if (strcmp(site->provider, p->provider) || strcmp(site->name, p->probe))
			continue;
		if (!site->offset) {
			rt_format(err, errlen, "USDT probe %s:%s: a site in %s is in no executable "
				  "segment", p->provider, p->probe, p->path);
			r = -ENOEXEC;
			goto out;
		}
		if ((spec = spec_index(site, texts, out, err, errlen)) < 0) {
			r = spec;
			goto out;
		}
		out->offsets[out->nr] = site->offset;
		out->ref_ctr_offsets[out->nr] = site->semaphore_offset;
		out->spec_of[out->nr++] = (uint32_t)spec;
	}
	if (!out->nr) {
		rt_format(err, errlen, "no USDT probe \"%s:%s\" in %s", p->provider, p->probe,
			  p->path);
		r = -ENOENT;
	}
out:
	if (r == -ENOMEM)
		rt_format(err, errlen, "out of memory");
	if (r)
		usdt_sites_free(out);
	free(texts);
	return r;
}
