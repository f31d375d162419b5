/* SPDX-License-Identifier: GPL-2.0-only */
/* hotspot_elf.c: recognizes a HotSpot JVM's libjvm.so by the tables of its own
 * layout it exports (gHotSpotVMStructs and the rest), and says where they are. */
#include "symbols/hotspot_elf.h"

#include <errno.h>
#include <gelf.h>
#include <string.h>

#include "symbols/elf_open.h"
#include "symbols/unwind_elf.h"

/* By enum hotspot_export (vmStructs.cpp's names). */
static const char *const export_names[HOTSPOT_EXPORTS] = {
	[HOTSPOT_STRUCTS] = "gHotSpotVMStructs",
	[HOTSPOT_STRUCT_TYPE_NAME] = "gHotSpotVMStructEntryTypeNameOffset",
	[HOTSPOT_STRUCT_FIELD_NAME] = "gHotSpotVMStructEntryFieldNameOffset",
	[HOTSPOT_STRUCT_IS_STATIC] = "gHotSpotVMStructEntryIsStaticOffset",
	[HOTSPOT_STRUCT_OFFSET] = "gHotSpotVMStructEntryOffsetOffset",
	[HOTSPOT_STRUCT_ADDRESS] = "gHotSpotVMStructEntryAddressOffset",
	[HOTSPOT_STRUCT_STRIDE] = "gHotSpotVMStructEntryArrayStride",
	[HOTSPOT_TYPES] = "gHotSpotVMTypes",
	[HOTSPOT_TYPE_NAME] = "gHotSpotVMTypeEntryTypeNameOffset",
	[HOTSPOT_TYPE_SIZE] = "gHotSpotVMTypeEntrySizeOffset",
	[HOTSPOT_TYPE_STRIDE] = "gHotSpotVMTypeEntryArrayStride",
	[HOTSPOT_INTS] = "gHotSpotVMIntConstants",
	[HOTSPOT_INT_NAME] = "gHotSpotVMIntConstantEntryNameOffset",
	[HOTSPOT_INT_VALUE] = "gHotSpotVMIntConstantEntryValueOffset",
	[HOTSPOT_INT_STRIDE] = "gHotSpotVMIntConstantEntryArrayStride",
	[HOTSPOT_LONGS] = "gHotSpotVMLongConstants",
	[HOTSPOT_LONG_NAME] = "gHotSpotVMLongConstantEntryNameOffset",
	[HOTSPOT_LONG_VALUE] = "gHotSpotVMLongConstantEntryValueOffset",
	[HOTSPOT_LONG_STRIDE] = "gHotSpotVMLongConstantEntryArrayStride",
};

bool hotspot_elf_name_may_be(const char *name)
{
	const char *base = strrchr(name, '/');

	return !strcmp(base ? base + 1 : name, "libjvm.so");
}

/* One of libjvm.so's exports, if sym is. */
static void note_export(Elf *elf, const GElf_Sym *sym, const char *name, void *ctx)
{
	struct hotspot_elf *out = ctx;

	(void)elf;
	if (GELF_ST_TYPE(sym->st_info) != STT_OBJECT || strncmp(name, "gHotSpotVM", 10))
		return;
	for (int e = 0; e < HOTSPOT_EXPORTS; e++)
		if (!strcmp(name, export_names[e]))
			out->vaddr[e] = sym->st_value;
}

int hotspot_elf_inspect(int fd, struct hotspot_elf *out)
{
	Elf *elf = elf_open_fd(fd);
	size_t phnum;
	int ret = -ENOENT;

	memset(out, 0, sizeof(*out));
	if (!elf)
		return -errno;
	elf_each_dynamic_symbol(elf, note_export, out);
	for (int e = 0; e < HOTSPOT_EXPORTS; e++)
		if (!out->vaddr[e])
			goto out;
	if (elf_getphdrnum(elf, &phnum))
		goto out;
	out->exec_vaddr_delta = unwind_elf_exec_vaddr_delta(elf);
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
			out->first_load_vaddr = ph.p_vaddr & ~(uint64_t)4095;
			ret = 0;
			break;
		}
	}
out:
	elf_end(elf);
	return ret;
}
