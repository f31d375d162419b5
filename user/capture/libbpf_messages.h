/* SPDX-License-Identifier: GPL-2.0-only */
/* libbpf_messages.h: whether libbpf's own messages reach stderr: never but at
 * -vv, from the start of every command (a failure is said in ringtrace's
 * line); and the verifier's word on the last program it refused. */
#ifndef RINGTRACE_LIBBPF_MESSAGES_H
#define RINGTRACE_LIBBPF_MESSAGES_H

#include <stdbool.h>

/* Shows libbpf's messages on stderr (record -vv), or drops them (the
 * default, which main sets first). */
void libbpf_messages_show(bool show);

/* Whether they are shown. */
bool libbpf_messages_shown(void);

/* The verifier's reason for the last program it refused since
 * libbpf_messages_forget_refusal, as "PROGRAM: LINE", from the log libbpf
 * prints of it (loading it again for one where none was asked), whether
 * shown or not; "" if none. Forgetting (before a load) also has libbpf's
 * messages come here, as libbpf_messages_show has them. */
const char *libbpf_messages_refusal(void);
void libbpf_messages_forget_refusal(void);

#endif
