/* SPDX-License-Identifier: GPL-2.0-only */
/* hotspot_maps.h: what the loader tells the -g walk of HotSpot JVMs (where the
 * interpreter's code is, the offsets of the structures a frame names) and what
 * the walk hands back (the methods it wrote, named in the process's context). */
#ifndef RINGTRACE_HOTSPOT_MAPS_H
#define RINGTRACE_HOTSPOT_MAPS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#include "python_maps.h"

/* A Java frame in a callchain is written as a Python frame is (python_maps.h,
 * RT_PY_ADDR_OF), in the same range no mapping can use: the Method* in place
 * of the code object, a hash of its ConstMethod* as the tag (a method freed
 * and its memory taken by another is written at another address), its
 * bytecode index in place of the instruction (at most 0xfff). */
#define RT_JAVA_ADDR_OF(method, tag, bci) RT_PY_ADDR_OF(method, tag, bci)

/* Offsets of the JVM's structures the walk reads, from the JVM's own layout
 * (gHotSpotVMStructs), and of an interpreter frame's slots (words below its
 * frame pointer, x86-64's frame layout of the versions known). */
struct rt_hotspot_offsets {
	__u16 frame_method_word;       /* interpreter_frame_method_offset, negated */
	__u16 frame_bcp_word;          /* interpreter_frame_bcp_offset, negated */
	__u16 method_const_method;     /* Method::_constMethod */
	__u16 const_method_constants;  /* ConstMethod::_constants */
	__u16 const_method_code_size;  /* ConstMethod::_code_size (a u2) */
	__u16 const_method_name_index; /* ConstMethod::_name_index (a u2) */
	__u16 const_method_size;       /* sizeof(ConstMethod): its bytecodes follow it */
	__u16 pool_size;               /* sizeof(ConstantPool): its entries follow it */
	__u16 pool_tags;               /* ConstantPool::_tags (an Array<u1>*) */
	__u16 pool_holder;             /* ConstantPool::_pool_holder */
	__u16 pool_length;             /* ConstantPool::_length (an int) */
	__u16 array_u1_data;           /* Array<u1>::_data */
	__u16 klass_name;              /* Klass::_name */
	__u16 symbol_length;           /* Symbol::_length (a u2) */
	__u16 symbol_body;             /* Symbol::_body */
	__u8 utf8_tag;                 /* JVM_CONSTANT_Utf8 */
	__u8 pad;
};
/* Bytes read of a ConstMethod's and a ConstantPool's heads: the fields
 * read above are within them (OpenJDK 17: 48 and 72 bytes). */
#define RT_JAVA_CONST_METHOD_READ 48
#define RT_JAVA_POOL_READ 80
/* Words read below an interpreter frame's frame pointer (its method and
 * bytecode pointer among them: 3 and 8 below on x86-64, OpenJDK 9+). */
#define RT_JAVA_FRAME_WORDS 8
/* Entries of hotspot_offsets (JVMs of one build share one). */
#define RT_JAVA_MAX_OFFSETS 8

/* A JVM, by tgid: where its template interpreter's code is (every frame
 * whose pc is there is an interpreted Java method's), and its offsets'
 * entry in hotspot_offsets. */
struct rt_hotspot_process {
	__u64 interp_start, interp_end;
	__u32 offsets;
	__u32 pad;
};

/* A method a walk wrote, for the loader to name (hotspot_methods_seen:
 * key -> its name and its class's, read in the process's own context: the
 * loader may not read another process's memory once its capabilities are
 * dropped). */
struct rt_hotspot_method_key {
	__u32 tgid;
	__u32 tag;   /* as in the frame's address */
	__u64 method;
};
#define RT_JAVA_NAME_BYTES 128
#define RT_JAVA_CLASS_BYTES 192
struct rt_hotspot_method_info {
	__u64 time;      /* of the first sample that wrote it */
	__u8 name_ok;    /* name holds the method's name (NUL-terminated) */
	__u8 class_ok;   /* klass holds its class's, "java/lang/String" */
	__u8 name_cut;   /* ...of a longer one */
	__u8 class_cut;
	__u32 pad;
	char name[RT_JAVA_NAME_BYTES];
	char klass[RT_JAVA_CLASS_BYTES];
};

/* Per-CPU counts of the Java walks, one outcome each for every native
 * frame in a known JVM's interpreter: interp_frames = written + read_failed
 * + bad_method. */
struct rt_hotspot_counters {
	__u64 interp_frames; /* native frames in a known JVM's interpreter */
	__u64 written;       /* ...written as the Java method they ran */
	__u64 read_failed;   /* ...kept native: a read of the frame or its method failed */
	__u64 bad_method;    /* ...kept native: no Method* there (a frame being built) */
	__u64 no_bci;        /* of the written, at bytecode index 0: its bytecode
				pointer outside the method's code */
	__u64 seen_full;     /* methods not told to the loader: its map full */
	__u64 names_unread;  /* methods told without their names (a read failed) */
};

#endif
