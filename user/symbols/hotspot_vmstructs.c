/* SPDX-License-Identifier: GPL-2.0-only */
/* hotspot_vmstructs.c: the layout a running HotSpot JVM describes of itself,
 * read from its memory: fields' offsets and statics' addresses
 * (gHotSpotVMStructs), types' sizes (gHotSpotVMTypes) and constants
 * (gHotSpotVMIntConstants, gHotSpotVMLongConstants), every table, entry and
 * name bounded. */
#include "symbols/hotspot_vmstructs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "sys/process_memory.h"

/* A looked-up value under its name (the key, "Type::_field" for fields). */
struct hotspot_item {
	uint64_t value;
	bool is_static;
	char key[];
};

/* One table as the JVM describes it: where its entries are, how long each
 * is, and where in one are its name (a pointer), a second name (a field's;
 * else -1) and its value. */
struct table {
	const char *what;
	uint64_t base, stride, name_at, field_at, value_at, value_size;
	uint64_t is_static_at, address_at; /* fields only; else -1 */
};

/* The names read last: an entry's type name is the one before's more often
 * than not (a type's fields come together). */
struct name_cache {
	uint64_t addr;
	char name[HOTSPOT_NAME_MAX];
};

static uint64_t u64_at(const uint8_t *entry, uint64_t at)
{
	uint64_t v;

	memcpy(&v, entry + at, sizeof(v));
	return v;
}

/* The name at addr into *cache (read unless it is the one read last): 0, or
 * -errno (-ENAMETOOLONG past HOTSPOT_NAME_MAX). */
static int name_at(uint32_t pid, uint64_t addr, struct name_cache *cache)
{
	ssize_t n;

	if (addr && addr == cache->addr)
		return 0;
	cache->addr = 0;
	n = process_memory_string(pid, addr, cache->name, sizeof(cache->name));
	if (n < 0)
		return (int)n;
	cache->addr = addr;
	return 0;
}

/* Reads the table's layout: its first entry (e's export `base`, a pointer to
 * it), the entry's size and the offsets in it (exports set as the JVM
 * starts). 0, -EAGAIN (not set yet), -EINVAL, or -errno. */
static int read_layout(uint32_t pid, const struct hotspot_elf *e, uint64_t bias,
		       const int exports[], int nr, uint64_t *values)
{
	int r;

	for (int i = 0; i < nr; i++)
		if ((r = process_memory_u64(pid, e->vaddr[exports[i]] + bias, &values[i])))
			return r;
	return 0;
}

static int check_layout(const struct table *t, char *err, size_t errlen)
{
	const uint64_t at[] = { t->name_at, t->field_at, t->value_at, t->is_static_at, t->address_at };

	if (!t->base || !t->stride) {
		rt_format(err, errlen, "its %s table is not set up yet (the JVM is starting)", t->what);
		return -EAGAIN;
	}
	if (t->stride < 16 || t->stride > HOTSPOT_ENTRY_MAX || t->stride % 8) {
		rt_format(err, errlen, "its %s table's entries are %llu bytes, not 16 to %u",
			  t->what, (unsigned long long)t->stride, HOTSPOT_ENTRY_MAX);
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		if (at[i] != UINT64_MAX && at[i] + 8 > t->stride) {
			rt_format(err, errlen, "its %s table's entries (%llu bytes) hold a field at %llu",
				  t->what, (unsigned long long)t->stride, (unsigned long long)at[i]);
			return -EINVAL;
		}
	return 0;
}

static int put(struct hash_map *m, const char *a, const char *b, uint64_t value, bool is_static)
{
	size_t la = strlen(a), lb = b ? strlen(b) : 0;
	struct hotspot_item *it = malloc(sizeof(*it) + la + (b ? 2 + lb : 0) + 1);

	if (!it)
		return -ENOMEM;
	it->value = value;
	it->is_static = is_static;
	memcpy(it->key, a, la);
	if (b) {
		memcpy(it->key + la, "::", 2);
		memcpy(it->key + la + 2, b, lb);
	}
	it->key[la + (b ? 2 + lb : 0)] = '\0';
	/* a name given twice (never, in OpenJDK) keeps its first value */
	if (hash_map_get(m, it->key)) {
		free(it);
		return 0;
	}
	if (hash_map_put(m, it->key, it)) {
		free(it);
		return -ENOMEM;
	}
	return 0;
}

/* Reads every entry of t into m, up to the one whose name is NULL. */
static int read_table(uint32_t pid, const struct table *t, struct hash_map *m,
		      unsigned int *nr, unsigned int *skipped, char *err, size_t errlen)
{
	struct name_cache type = { 0 }, field = { 0 };
	uint8_t entry[HOTSPOT_ENTRY_MAX];
	int r;

	for (uint64_t i = 0;; i++) {
		uint64_t value;
		bool is_static = false;

		if (i == HOTSPOT_TABLE_MAX) {
			rt_format(err, errlen, "its %s table has more than %u entries", t->what,
				  HOTSPOT_TABLE_MAX);
			return -E2BIG;
		}
		if ((r = process_memory_read(pid, t->base + i * t->stride, entry, t->stride))) {
			rt_format(err, errlen, "cannot read entry %llu of its %s table: %s",
				  (unsigned long long)i, t->what, strerror(-r));
			return r;
		}
		if (!u64_at(entry, t->name_at))
			return 0;
		r = name_at(pid, u64_at(entry, t->name_at), &type);
		if (!r && t->field_at != UINT64_MAX)
			r = name_at(pid, u64_at(entry, t->field_at), &field);
		if (r == -ENAMETOOLONG) {
			(*skipped)++;
			continue;
		}
		if (r) {
			rt_format(err, errlen, "cannot read a name in its %s table: %s", t->what,
				  strerror(-r));
			return r;
		}
		value = u64_at(entry, t->value_at);
		if (t->value_size == 4)
			value = (uint64_t)(int64_t)(int32_t)value; /* an int constant */
		if (t->is_static_at != UINT64_MAX) {
			int32_t s;

			memcpy(&s, entry + t->is_static_at, sizeof(s));
			is_static = s != 0;
			if (is_static)
				value = u64_at(entry, t->address_at);
		}
		if ((r = put(m, type.name, t->field_at != UINT64_MAX ? field.name : NULL, value,
			     is_static))) {
			rt_format(err, errlen, "out of memory");
			return r;
		}
		(*nr)++;
	}
}

int hotspot_vmstructs_read(uint32_t pid, const struct hotspot_elf *e, uint64_t bias,
			   struct hotspot_vmstructs *out, char *err, size_t errlen)
{
	static const int field_exports[] = { HOTSPOT_STRUCTS,         HOTSPOT_STRUCT_STRIDE,
					     HOTSPOT_STRUCT_TYPE_NAME, HOTSPOT_STRUCT_FIELD_NAME,
					     HOTSPOT_STRUCT_OFFSET,    HOTSPOT_STRUCT_IS_STATIC,
					     HOTSPOT_STRUCT_ADDRESS };
	static const int type_exports[] = { HOTSPOT_TYPES, HOTSPOT_TYPE_STRIDE, HOTSPOT_TYPE_NAME,
					    HOTSPOT_TYPE_SIZE };
	static const int int_exports[] = { HOTSPOT_INTS, HOTSPOT_INT_STRIDE, HOTSPOT_INT_NAME,
					   HOTSPOT_INT_VALUE };
	static const int long_exports[] = { HOTSPOT_LONGS, HOTSPOT_LONG_STRIDE, HOTSPOT_LONG_NAME,
					    HOTSPOT_LONG_VALUE };
	uint64_t f[7], ty[4], in[4], lo[4];
	struct table tables[4];
	struct hash_map *maps[4] = { &out->fields, &out->types, &out->constants, &out->constants };
	unsigned int *counts[4] = { &out->nr_fields, &out->nr_types, &out->nr_constants,
				    &out->nr_constants };
	int r;

	memset(out, 0, sizeof(*out));
	hash_map_init(&out->fields, hash_string, equal_string);
	hash_map_init(&out->types, hash_string, equal_string);
	hash_map_init(&out->constants, hash_string, equal_string);
	if ((r = read_layout(pid, e, bias, field_exports, 7, f)) ||
	    (r = read_layout(pid, e, bias, type_exports, 4, ty)) ||
	    (r = read_layout(pid, e, bias, int_exports, 4, in)) ||
	    (r = read_layout(pid, e, bias, long_exports, 4, lo))) {
		rt_format(err, errlen, "cannot read libjvm.so's tables: %s", strerror(-r));
		return r;
	}
	tables[0] = (struct table){ "fields", f[0], f[1], f[2], f[3], f[4], 8, f[5], f[6] };
	tables[1] = (struct table){ "types", ty[0], ty[1], ty[2], UINT64_MAX, ty[3], 8,
				    UINT64_MAX, UINT64_MAX };
	tables[2] = (struct table){ "int constants", in[0], in[1], in[2], UINT64_MAX, in[3], 4,
				    UINT64_MAX, UINT64_MAX };
	tables[3] = (struct table){ "long constants", lo[0], lo[1], lo[2], UINT64_MAX, lo[3], 8,
				    UINT64_MAX, UINT64_MAX };
	for (int i = 0; i < 4; i++) {
		if ((r = check_layout(&tables[i], err, errlen)) ||
		    (r = read_table(pid, &tables[i], maps[i], counts[i], &out->skipped, err, errlen))) {
			hotspot_vmstructs_free(out);
			return r;
		}
	}
	return 0;
}

static const struct hotspot_item *field(const struct hotspot_vmstructs *v, const char *type,
					const char *name)
{
	char key[2 * HOTSPOT_NAME_MAX + 2];

	snprintf(key, sizeof(key), "%s::%s", type, name);
	return hash_map_get(&v->fields, key);
}

bool hotspot_field_offset(const struct hotspot_vmstructs *v, const char *type, const char *name,
			  uint64_t *offset)
{
	const struct hotspot_item *it = field(v, type, name);

	if (!it || it->is_static)
		return false;
	*offset = it->value;
	return true;
}

bool hotspot_static_address(const struct hotspot_vmstructs *v, const char *type,
			    const char *name, uint64_t *address)
{
	const struct hotspot_item *it = field(v, type, name);

	if (!it || !it->is_static)
		return false;
	*address = it->value;
	return true;
}

bool hotspot_type_size(const struct hotspot_vmstructs *v, const char *type, uint64_t *size)
{
	const struct hotspot_item *it = hash_map_get(&v->types, type);

	if (it)
		*size = it->value;
	return it != NULL;
}

bool hotspot_constant(const struct hotspot_vmstructs *v, const char *name, int64_t *value)
{
	const struct hotspot_item *it = hash_map_get(&v->constants, name);

	if (it)
		*value = (int64_t)it->value;
	return it != NULL;
}

void hotspot_vmstructs_free(struct hotspot_vmstructs *v)
{
	hash_map_free_all(&v->fields);
	hash_map_free_all(&v->types);
	hash_map_free_all(&v->constants);
}
