/*
 * One call over a connected agent socket (docs/agent.md, "Wire format"): the CALL frame, then the relay
 * of stdin, stdout and stderr frames until EXIT.
 */
#ifndef GPDEDUP_RELAY_H
#define GPDEDUP_RELAY_H

#include <stddef.h>
#include <stdint.h>

/* run_call results besides an exit status */
#define NOT_ACCEPTED (-1)

/* The CALL stdio flags: closed_stdio, plus the descriptors the agent may open itself (*stdin_offset:
 * where a regular file as stdin is read from). GPDEDUP_AGENT_DIRECT=off relays all. */
uint32_t stdio_flags(uint32_t closed_stdio, uint64_t *stdin_offset);

/* The CALL frame (in a buffer large enough to be reused for stdin frames); NULL with reason set. */
unsigned char *encode_call(const char *cwd, int argc, char **argv, uint32_t stdio, uint64_t stdin_offset,
                           size_t *out_len);

/* Sends call and relays until the agent's EXIT: returns the exit status, or NOT_ACCEPTED (reason set)
 * when the agent did not accept the call, which has then consumed none of our stdin. */
int run_call(int sock, unsigned char *call, size_t call_len, uint32_t stdio);

#endif
