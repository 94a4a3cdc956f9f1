/*
 * The launcher-agent protocol's numbers (docs/agent.md, "Wire format"): the host agent's FrameType,
 * CallRequest.VERSION and CallerStdio flags (plugin-api, package io.gpdedup.plugin.agent). Every
 * #define here has its Java constant of the same name: FramesHeaderTest (launcher module) fails when
 * they disagree, so a code changed on one side only cannot break every call unnoticed.
 */
#ifndef GPDEDUP_FRAMES_H
#define GPDEDUP_FRAMES_H

/* CallRequest.VERSION: the CALL payload's layout */
#define PROTOCOL_VERSION 2

/* CALL stdio flags: what the agent may open itself through /proc/<pid>/fd (docs/agent.md) */
#define STDIO_STDIN_PIPE 1u
#define STDIO_STDIN_FILE 2u
#define STDIO_STDOUT_PIPE 4u
/* ... and what the caller had closed: we put /dev/null there, the command must fail rather than use it */
#define STDIO_STDIN_CLOSED 8u
#define STDIO_STDOUT_CLOSED 16u

/* launcher -> agent */
#define F_CALL 0x01
#define F_STDIN 0x02
#define F_STDIN_EOF 0x03
#define F_STDIN_ABORT 0x04
/* agent -> launcher */
#define F_ACCEPTED 0x11
#define F_REJECTED 0x12
#define F_STDIN_REQUEST 0x13
#define F_STDOUT 0x14
#define F_STDERR 0x15
#define F_EXIT 0x16

/* type byte + u32 payload length */
#define HEADER 5
/* largest payload of CALL, STDIN, STDOUT and STDERR */
#define MAX_DATA (1u << 20)
/* largest payload of REJECTED and STDIN_ABORT */
#define MAX_MESSAGE 4096u

#endif
