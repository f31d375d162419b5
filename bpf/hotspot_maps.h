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
	/* a compiled frame's: its CodeBlob's, and its nmethod's */
	__u16 heap_block_size;         /* sizeof(HeapBlock): its CodeBlob follows it */
	__u16 blob_frame_complete;     /* CodeBlob::_frame_complete_offset (an int) */
	__u16 blob_frame_size;         /* CodeBlob::_frame_size (an int, in words) */
	__u16 blob_code_begin;         /* CodeBlob::_code_begin */
	__u16 blob_code_end;           /* CodeBlob::_code_end */
	__u16 blob_name;               /* CodeBlob::_name (a char*: "nmethod" for nmethods) */
	__u16 nm_method;               /* CompiledMethod::_method */
	__u16 nm_scopes_data;          /* CompiledMethod::_scopes_data_begin */
	__u16 nm_read_at;              /* where the nmethod's offsets below are read from */
	__u16 nm_metadata;             /* nmethod::_metadata_offset (an int), from nm_read_at */
	__u16 nm_scopes_pcs;           /* nmethod::_scopes_pcs_offset, from nm_read_at */
	__u16 nm_dependencies;         /* nmethod::_dependencies_offset, from nm_read_at */
	__u16 pc_desc_size;            /* sizeof(PcDesc) */
	__u16 pc_desc_pc_offset;       /* PcDesc::_pc_offset (an int) */
	__u16 pc_desc_scope;           /* PcDesc::_scope_decode_offset (an int) */
	/* a method's source file and line number table, for its lines */
	__u16 const_method_flags;      /* ConstMethod::_flags (a u2) */
	__u16 has_line_table;          /* ...its flag ConstMethod::_has_linenumber_table */
	__u16 pool_source_file;        /* ConstantPool::_source_file_name_index (a u2) */
	__u8 utf8_tag;                 /* JVM_CONSTANT_Utf8 */
	__u8 pad;
};
/* Bytes read of a CodeBlob's head (with CompiledMethod's fields) and of an
 * nmethod's offsets (from nm_read_at): the fields above are within them. */
#define RT_JAVA_BLOB_READ 128
#define RT_JAVA_NM_READ 48
/* The code heaps of a code cache, at most (OpenJDK 17: 3 when segmented). */
#define RT_JAVA_HEAPS 4
/* Java frames one compiled frame is written as, at most: its method and
 * those inlined into it (OpenJDK 17's MaxInlineLevel is 15). */
#define RT_JAVA_MAX_INLINE 16
/* Steps back through a code heap's segment map to a block's start, at most. */
#define RT_JAVA_SEGMAP_HOPS 32
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
	/* its code cache: every frame whose pc is there is the JVM's own code
	 * (the interpreter's, a compiled method's, a stub's), the code heaps
	 * it is made of, each found through its segment map */
	__u64 code_start, code_end;
	struct rt_hotspot_heap {
		__u64 low, high; /* the heap's reserved memory */
		__u64 segmap;    /* its segment map: a byte a segment */
	} heaps[RT_JAVA_HEAPS];
	__u32 offsets;
	__u8 nr_heaps;
	__u8 segment_shift; /* log2 of the heaps' segment size */
	__u8 pad[2];
};

/* A method (or a code blob) a walk wrote, for the loader to name (hotspot_methods_seen:
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
#define RT_JAVA_FILE_BYTES 64
/* The most bytes of a method's compressed line number table copied (a
 * longer one's lines are not named). */
#define RT_JAVA_LINES_BYTES 192
struct rt_hotspot_method_info {
	__u64 time;      /* of the first sample that wrote it */
	__u8 name_ok;    /* name holds the method's name (NUL-terminated) */
	__u8 class_ok;   /* klass holds its class's, "java/lang/String" */
	__u8 name_cut;   /* ...of a longer one */
	__u8 class_cut;
	__u8 file_ok;    /* file holds its class's source file's name */
	__u8 file_cut;
	__u8 is_stub;    /* not a method: a code blob (a stub, an adapter), its
			    name in name ("StubRoutines (1)") */
	__u8 pad;
	__u16 lines_len; /* bytes of its line number table in lines (0: none) */
	__u8 pad2[6];
	char name[RT_JAVA_NAME_BYTES];
	char klass[RT_JAVA_CLASS_BYTES];
	char file[RT_JAVA_FILE_BYTES];
	__u8 lines[RT_JAVA_LINES_BYTES];
};

/* Per-CPU counts of the Java walks, one outcome each for every native
 * frame in a known JVM's interpreter: interp_frames = written + read_failed
 * + bad_method. */
struct rt_hotspot_counters {
	__u64 interp_frames; /* native frames in a known JVM's interpreter */
	__u64 written;       /* ...written as the Java method they ran */
	__u64 read_failed;   /* ...kept native: a read of the frame or its method failed */
	__u64 bad_method;    /* ...kept native: no Method* there (a frame being built) */
	/* frames elsewhere in its code cache: code_frames = compiled + stubs +
	 * no_blob + bad_nmethod + stale; compiled ones written as compiled_java
	 * Java frames (cut: no room, or RT_JAVA_MAX_INLINE), those without
	 * debug information as their method alone (no_scope) */
	__u64 code_frames;
	__u64 compiled;      /* ...an nmethod's, written as its Java frames */
	__u64 stubs;         /* ...another blob's (a stub, an adapter): written as the blob */
	__u64 no_blob;       /* ...in no blob (free, or the segment map unreadable) */
	__u64 bad_nmethod;   /* ...an nmethod unreadable, or its method or scopes bad */
	__u64 stale;         /* ...in a blob whose code does not hold its pc (freed or
				made again since the segment map was read): dropped */
	__u64 compiled_java; /* Java frames the compiled ones were written as */
	__u64 inlined_cut;   /* compiled frames whose inlined methods were cut */
	__u64 no_scope;      /* compiled frames without a PcDesc's scope at their pc */
	__u64 prologue;      /* compiled frames sampled before their frame was built:
				stepped by frame pointer */
	__u64 no_bci;        /* of the written, at bytecode index 0: its bytecode
				pointer outside the method's code */
	__u64 seen_full;     /* methods not told to the loader: its map full */
	__u64 names_unread;  /* methods told without their names (a read failed) */
};

#endif
