/* SPDX-License-Identifier: GPL-2.0-only */
/* python_maps.h: what the loader tells the -g walk of CPython processes (the
 * interpreter's addresses, its structures' offsets) and how Python frames are written. */
#ifndef RINGTRACE_PYTHON_MAPS_H
#define RINGTRACE_PYTHON_MAPS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* A Python frame in a callchain: an address in a range no mapping can use
 * (above every x86-64 user address, 4- or 5-level paging, and below the
 * kernel's half): (1 + tag) << 56 | (code object >> 3) << 12 | the
 * instruction's index in its code (in code units, at most 0xfff). A code
 * object is a user address below 2^47 (4-level paging: every address a
 * process can have; with 5-level, one above is written as its native frame,
 * counted) and 8-byte aligned: 44 bits, shifted 12, under bit 56. The tag
 * (0 to RT_PY_TAGS - 1) is a hash of the code object's co_filename and the
 * field after it (co_name), so that a code object freed and its memory
 * taken by another (a module's top-level code once imported, a class body
 * once run) is written at another address, and named apart. The recording
 * names [the address of instruction 0, + RT_PY_CODE_SPAN) in the process's
 * perf map, the range itself an anonymous executable mapping of the process
 * (an MMAP2 of "//anon"), so that perf and ringtrace read it as a JIT's. */
#define RT_PY_ADDR_BASE 0x0100000000000000ULL
#define RT_PY_ADDR_SPAN 0x7f00000000000000ULL
#define RT_PY_TAG_SHIFT 56
#define RT_PY_TAGS 127
#define RT_PY_CODE_MAX (1ULL << 47)
#define RT_PY_INSTR_BITS 12
#define RT_PY_CODE_SPAN (1ULL << RT_PY_INSTR_BITS)
#define RT_PY_ADDR_OF(code, tag, instr)                                                      \
	((((__u64)(tag) + 1) << RT_PY_TAG_SHIFT) |                                           \
	 (((__u64)(code) >> 3) << RT_PY_INSTR_BITS) | ((__u64)(instr) & (RT_PY_CODE_SPAN - 1)))
/* The frame that marks Python callers left out (a walk cut short): code 0,
 * never a code object's; every Python process's map names it [truncated]. */
#define RT_PY_TRUNCATED RT_PY_ADDR_OF(0, 0, 0)
#define RT_PY_CODE_OF(addr)                                                                  \
	((((__u64)(addr) & ((1ULL << RT_PY_TAG_SHIFT) - 1)) >> RT_PY_INSTR_BITS) << 3)
#define RT_PY_TAG_OF(addr) (((__u64)(addr) >> RT_PY_TAG_SHIFT) - 1)

/* Offsets of the interpreter's structures a walk reads (one entry of the
 * python_offsets map per supported CPython minor version, written by the
 * loader from its table, user/symbols/python_offsets.c). Pointers and
 * native_thread_id are 8-byte fields. */
struct rt_python_offsets {
	__u16 runtime_interpreters_head; /* _PyRuntimeState.interpreters.head */
	__u16 interp_threads_head;       /* PyInterpreterState.threads.head */
	__u16 tstate_next;               /* PyThreadState.next */
	__u16 tstate_native_thread_id;   /* PyThreadState.native_thread_id (3.10: .thread_id,
					    pthread_self(): RT_PY_THREAD_IS_PTHREAD) */
	__u16 tstate_cframe;             /* PyThreadState.cframe (3.13: .current_frame,
					    3.10: .frame) */
	__u16 cframe_current_frame;      /* _PyCFrame.current_frame (3.13: RT_PY_NONE, no
					    _PyCFrame: tstate_cframe is the frame) */
	__u16 frame_code;                /* _PyInterpreterFrame.f_code (3.10: PyFrameObject's) */
	__u16 frame_previous;            /* _PyInterpreterFrame.previous (3.10: .f_back) */
	__u16 frame_prev_instr;          /* _PyInterpreterFrame.prev_instr (3.10: RT_PY_NONE,
					    its frames are written at instruction 0) */
	__u16 frame_is_entry;            /* _PyInterpreterFrame.is_entry (a byte; 3.11) */
	__u16 code_adaptive;             /* PyCodeObject.co_code_adaptive: the code units */
	/* what naming a code object reads (once per code object and process);
	 * co_filename and the 8 bytes after it (co_name in 3.9-3.13) for
	 * every frame, its tag */
	__u16 code_filename;             /* PyCodeObject.co_filename */
	__u16 code_qualname;             /* PyCodeObject.co_qualname */
	__u16 code_firstlineno;          /* PyCodeObject.co_firstlineno (an int) */
	__u16 unicode_length;            /* PyASCIIObject.length */
	__u16 unicode_state;             /* PyASCIIObject.state (32 bits: compact bit 5, ascii 6) */
	__u16 ascii_data;                /* sizeof(PyASCIIObject): a compact ASCII str's bytes */
	__u16 frame_owner;               /* _PyInterpreterFrame.owner (a byte; 3.12+): a
					    frame owned by the C stack is the shim an
					    evaluation call entered with, not written */
	__u16 flags;                     /* RT_PY_FRAME_PER_CALL, RT_PY_THREAD_IS_PTHREAD */
	__u16 pad;
};
/* 3.10: each evaluation call runs one frame (every frame is an entry). */
#define RT_PY_FRAME_PER_CALL 1
/* 3.10: a thread state is known by pthread_self() (x86-64 glibc: the fs base). */
#define RT_PY_THREAD_IS_PTHREAD 2
/* An offset a version has not: that field is not read. */
#define RT_PY_NONE 0xffff
/* _PyInterpreterFrame.owner of an evaluation call's shim frame (3.12, 3.13). */
#define RT_PY_OWNED_BY_CSTACK 3
/* Bytes read of one frame: its fields' offsets are below this (3.11's
 * _PyInterpreterFrame is 72 bytes before its locals). */
#define RT_PY_FRAME_READ 72
/* Entries of python_offsets: the table's (user/symbols/python_offsets.c),
 * then those an interpreter's own _Py_DebugOffsets gave where they differ. */
#define RT_PY_MAX_OFFSETS 8

/* A CPython process, by tgid: where its _PyRuntime is, the code of
 * _PyEval_EvalFrameDefault (a native frame there runs Python frames), and
 * its version's entry of python_offsets. */
struct rt_python_process {
	__u64 runtime;
	__u64 eval_start, eval_end;
	__u32 offsets;
	__u32 pad;
};

/* A code object a walk wrote, for the loader to name (python_code_seen:
 * key -> what the walk read of it, in the process's own context: the
 * loader may not read another process's memory once its capabilities are
 * dropped). */
struct rt_python_code_key {
	__u32 tgid;
	__u32 tag;          /* as in the frame's address */
	__u64 code;
};
#define RT_PY_NAME_BYTES 128
#define RT_PY_FILE_BYTES 192
struct rt_python_code_info {
	__u64 time;         /* of the first sample that wrote it */
	__s32 firstlineno;
	__u8 name_ok;       /* name holds co_qualname (compact ASCII; NUL-terminated) */
	__u8 file_ok;       /* file holds co_filename's last RT_PY_FILE_BYTES - 1 bytes */
	__u8 file_cut;      /* ...of a longer one */
	__u8 pad;
	char name[RT_PY_NAME_BYTES];
	char file[RT_PY_FILE_BYTES];
};

/* Per-CPU counts of the Python walks: stacks through a Python process's
 * evaluation loop, and what became of each such native frame, one outcome
 * each: eval_frames = replaced + no_thread + read_failed + no_frame + no_room
 * + bad_code. */
struct rt_python_counters {
	__u64 eval_frames;   /* native frames in _PyEval_EvalFrameDefault of a known process */
	__u64 replaced;      /* ...written as the Python frames it ran (cut: below) */
	__u64 no_thread;     /* ...kept native: no thread state of the sampled thread found */
	__u64 read_failed;   /* ...kept native: a read of the interpreter failed */
	__u64 no_frame;      /* ...kept native: no Python frame in it (its chain ended, a
				3.12 shim, no offsets) */
	__u64 no_room;       /* ...kept native: no room left in the stack */
	__u64 bad_code;      /* ...kept native: its first code object not encodable (above
				RT_PY_CODE_MAX, misaligned, or NULL) */
	__u64 frames;        /* Python frames written */
	__u64 cut;           /* of the replaced, cut: no room, a failed read, a bad code
				object, or RT_PY_MAX_FRAMES without an entry frame */
	__u64 seen_full;     /* code objects not told to the loader: its map full */
};

/* Python frames of one native evaluation frame, at most. */
#define RT_PY_MAX_FRAMES 64
/* Threads of the interpreter looked through for the sampled one, at most. */
#define RT_PY_MAX_THREADS 32

#endif
