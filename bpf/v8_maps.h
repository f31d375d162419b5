/* SPDX-License-Identifier: GPL-2.0-only */
/* v8_maps.h: what the loader tells the -g walk of Node.js processes (where V8's
 * interpreter and builtins are, the offsets of the objects a frame names) and what
 * the walk hands back (the functions it wrote, named by the loader). */
#ifndef RINGTRACE_V8_MAPS_H
#define RINGTRACE_V8_MAPS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#include "python_maps.h"

/* A JavaScript frame in a callchain is written as a Python frame is
 * (python_maps.h, RT_PY_ADDR_OF), in the same range no mapping can use: its
 * function's SharedFunctionInfo in place of the code object, a hash of the
 * SharedFunctionInfo's name-or-ScopeInfo pointer as the tag (another
 * function's, moved or made in its memory later, is written elsewhere but for
 * one tag in RT_PY_TAGS), instruction 0. */
#define RT_V8_ADDR_OF(sfi, tag) RT_PY_ADDR_OF(sfi, tag, 0)
/* The tag of a function whose name_or_scope_info is name. */
#define RT_V8_TAG_OF(name)                                                                   \
	((__u32)((((__u64)(name) >> 3) * 0x9E3779B97F4A7C15ull) >> 40) % RT_PY_TAGS)

/* Bytes read of a JSFunction's and a SharedFunctionInfo's heads: the fields
 * read are within them (V8 11.3: shared at 24; name_or_scope_info at 16,
 * script_or_debug_info at 32). */
#define RT_V8_OBJECT_READ 48

/* A Node.js process, by tgid: where V8's builtins are in it, and the
 * offsets of what a frame is named by (from the binary's v8dbg_ exports). */
struct rt_v8_process {
	/* the binary's code: a frame elsewhere may be V8's (its code is in
	 * anonymous memory), or another library's (looked at, found no
	 * function's) */
	__u64 text_start, text_end;
	/* the embedded builtins' code where it runs: in the binary's code, and
	 * where V8 mapped it again, near its own code (0: not) */
	__u64 blob[2];
	/* within the builtins (offsets from their start): the interpreter's
	 * entry trampolines and entries at a bytecode (an interpreted
	 * function's frame returns into them), and its bytecode handlers, the
	 * last builtins (run in the interpreted function's frame) */
	__u32 blob_size;
	__u32 entry_start, entry_end, enter_start, enter_end, handlers_start;
	__u16 map_instance_type;  /* Map::instance_type (a u16) */
	__u16 function_shared;    /* JSFunction::shared */
	__u16 sfi_name;           /* SharedFunctionInfo::name_or_scope_info */
	__u16 sfi_script;         /* SharedFunctionInfo::script_or_debug_info */
	__u16 type_function_first, type_function_last; /* JSFunction's instance types */
	__u16 type_sfi;           /* SHARED_FUNCTION_INFO_TYPE */
	__u16 type_script;        /* SCRIPT_TYPE */
};

/* How the walk looks at a frame of a Node.js process (the loader's ranges
 * say which): its native frame replaced by the JavaScript function its frame
 * pointer's frame runs (a frame in V8's code, or in the interpreter), or
 * kept and the function written after it (a builtin that built no frame of
 * its own: its caller's frame pointer is still in rbp). */
enum { RT_V8_NONE, RT_V8_REPLACE, RT_V8_AFTER, RT_V8_JIT };
/* RT_V8_JIT: a frame outside the binary's code (V8's code is in anonymous
 * memory), replaced as RT_V8_REPLACE, by the functions inlined at its pc
 * too where the loader has decoded them (v8_inlines). */

/* Frames one frame of optimized code is written as, at most: its function
 * and those inlined into it at the pc. */
#define RT_V8_MAX_INLINE 8

/* A pc of optimized code of a function, as a walk met it: key of the
 * functions inlined there (v8_inlines, written by the loader once it has
 * decoded the code's source positions) and of the pcs the walk tells it of
 * (v8_code_seen -> the JSFunction, whose code the loader reads). */
struct rt_v8_pc_key {
	__u32 tgid;
	__u32 exact; /* ip is the sampled one (else a return address) */
	__u64 ip;
	__u64 sfi;   /* the frame's function's SharedFunctionInfo (untagged) */
};
struct rt_v8_inlined {
	__u32 nr;    /* frames: 1 (none inlined, or not decoded) to RT_V8_MAX_INLINE */
	__u32 pad;
	__u64 frame[RT_V8_MAX_INLINE]; /* their callchain words, innermost first */
};
struct rt_v8_pc_info {
	__u64 time;
	__u64 function; /* the frame's JSFunction (tagged) */
};

/* A function a walk wrote, for the loader to name (v8_functions_seen: key
 * -> what the walk read of it, which the loader checks the
 * SharedFunctionInfo still holds before it names it: a function moved by
 * V8's collector since is dropped and counted, never named after another). */
struct rt_v8_function_key {
	__u32 tgid;
	__u32 tag;   /* as in the frame's address */
	__u64 sfi;   /* the SharedFunctionInfo's address (untagged) */
};
struct rt_v8_function_info {
	__u64 time;  /* of the first sample that wrote it */
	__u64 name;  /* its name_or_scope_info (tagged) */
	__u64 script; /* its script_or_debug_info (tagged) */
};

/* Per-CPU counts of the V8 walks: frames = replaced + after + typed +
 * no_function + no_script; of the replaced, jit in V8's code, inlined of
 * them written with the functions inlined at their pc (inlined_frames in
 * all), undecoded not yet decoded (their function alone). */
struct rt_v8_counters {
	__u64 frames;      /* native frames of a known process looked at */
	__u64 replaced;    /* ...written as the JavaScript function they run */
	__u64 after;       /* ...kept (a builtin), the function of its caller's frame after */
	__u64 typed;       /* ...kept: a frame of V8's own (entry, exit, stub: a marker) */
	__u64 no_function; /* ...kept: no JSFunction there (not V8's, or unreadable) */
	__u64 no_script;   /* ...kept: a function of no script (a builtin's) */
	__u64 seen_full;   /* functions not told to the loader: its map full */
	__u64 jit;
	__u64 inlined;
	__u64 inlined_frames;
	__u64 undecoded;
};

#endif
