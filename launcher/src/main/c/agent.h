/*
 * The host agent's side of the launcher (docs/agent.md, "Lifecycle"): its socket directory, connecting,
 * starting one when none answers, and remembering a failed start.
 */
#ifndef GPDEDUP_AGENT_H
#define GPDEDUP_AGENT_H

#include <stdint.h>

#include "relay.h"

/* Runs the call through an agent; returns its exit status, or NOT_ACCEPTED (reason set) when no agent
 * took it. closed_stdio: STDIO_STDIN_CLOSED / STDIO_STDOUT_CLOSED of the descriptors the caller had
 * closed. */
int via_agent(int argc, char **argv, uint32_t closed_stdio);

#endif
