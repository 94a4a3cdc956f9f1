/*
 * gpdedup_launcher: the executable gpbackup runs for a gpdedup plugin (installed as
 * <home>/bin/<plugin name>). It hands the call to the plugin's host agent, a long-running JVM of
 * the same user, over a Unix domain socket, starting the agent when none answers; when no agent can
 * be used it runs the plugin in a fresh JVM, as the plain sh launcher does. gpbackup makes one call
 * per table per segment, so this program's own cost is what users see: it does no more than stat a
 * file, connect, and relay bytes until it has read the agent's exit status.
 *
 *   launch.c  the installation (from the executable's own location), its .launch file, the JVM, the
 *             in-process path
 *   agent.c   the agent's socket, start, failure memory; a call's attempts
 *   relay.c   one call over the socket: CALL, then stdin, stdout and stderr frames until EXIT
 *   message.c the one line on stderr, and why the agent was not used
 *   frames.h  the protocol's codes, shared with the host agent's Java constants
 *
 * Environment: GPDEDUP_AGENT=off runs in-process, =require fails instead of falling back;
 * GPDEDUP_AGENT_DIR overrides the socket directory (default /tmp/gpdedup-<uid>).
 *
 * Wire format, lifecycle and security: docs/agent.md.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "frames.h"
#include "launch.h"
#include "message.h"

int main(int argc, char **argv) {
    /* Descriptors 0-2 must exist, or a socket or pipe opened below could land on them. */
    uint32_t closed_stdio = 0;
    for (int fd = 0; fd < 3; fd++) {
        if (fcntl(fd, F_GETFD) >= 0) continue;
        if (fd == 0) closed_stdio |= STDIO_STDIN_CLOSED;
        if (fd == 1) closed_stdio |= STDIO_STDOUT_CLOSED;
        if (open("/dev/null", O_RDWR) != fd) return 1;
    }
    if (find_installation(argv[0]) < 0) return 1;

    const char *mode = getenv("GPDEDUP_AGENT");
    if (mode == NULL || mode[0] == '\0' || strcmp(mode, "on") == 0) mode = "on";
    else if (strcmp(mode, "off") != 0 && strcmp(mode, "require") != 0) {
        say("GPDEDUP_AGENT must be on, off or require, not '%s'", mode);
        return 2;
    }
    if (strcmp(mode, "off") != 0) {
        int status = via_agent(argc, argv, closed_stdio);
        if (status != NOT_ACCEPTED) return status;
        if (strcmp(mode, "require") == 0) {
            say("no host agent (GPDEDUP_AGENT=require): %s", reason);
            return 1;
        }
    }
    exec_in_process(argc, argv, closed_stdio);
}
