/**
 * The host agent: one long-running JVM per user and plugin that serves the calls gpbackup makes,
 * so a call costs a native launcher's start and a socket round trip instead of a JVM start.
 *
 * <p>The native launcher (C, in the launcher module) connects to
 * {@link io.gpdedup.plugin.agent.HostAgent} over a Unix domain socket and relays argv, the working
 * directory, stdin, stdout, stderr and the exit status in frames ({@link io.gpdedup.plugin.agent.FrameType});
 * each call runs {@link io.gpdedup.plugin.api.CommandDispatcher} on its own thread. The wire format,
 * lifecycle and security rules are in {@code docs/agent.md}.
 */
package io.gpdedup.plugin.agent;
