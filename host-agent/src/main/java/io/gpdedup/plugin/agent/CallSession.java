package io.gpdedup.plugin.agent;

import io.gpdedup.plugin.api.ClosedStdio;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.attribute.UserPrincipal;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;

/**
 * One connection from a launcher, start to end: check who is calling, read the CALL, accept it, run
 * it, send the exit status. Everything before ACCEPTED is side-effect free, so a launcher that sees the
 * connection end without ACCEPTED may safely run the call elsewhere.
 */
final class CallSession {
    private static final int STDOUT_BUFFER = 64 * 1024;
    private static final int STDERR_BUFFER = 8 * 1024;
    /** Headers and small frames; stdin payloads are read straight into the command's buffer. */
    private static final int FRAME_BUFFER = 8 * 1024;

    private final SocketChannel channel;
    private final UserPrincipal owner;
    private final CallHandler handler;
    private final AgentLog log;

    CallSession(SocketChannel channel, UserPrincipal owner, CallHandler handler, AgentLog log) {
        this.channel = channel;
        this.owner = owner;
        this.handler = handler;
        this.log = log;
    }

    void run() {
        CallRequest call = null;
        try (channel) {
            FrameReader frames = new FrameReader(channel, FRAME_BUFFER);
            FrameWriter replies = new FrameWriter(channel);
            UnixDomainPrincipal peer = channel.getOption(ExtendedSocketOptions.SO_PEERCRED);
            if (!owner.equals(peer.user())) {
                log.warn("refused a call from user " + peer.user().getName() + ": this agent serves only " + owner.getName());
                reject(replies, "this agent serves only user " + owner.getName());
                return;
            }
            FrameType first = frames.next();
            if (first == null) {
                return; // a liveness probe: connected and closed
            }
            if (first != FrameType.CALL) {
                throw new ProtocolException("expected CALL, got " + first);
            }
            call = CallRequest.decode(frames.payload());
            if (!CallRequest.supported(call.version())) {
                reject(replies, "protocol version " + call.version() + " is not supported (agent speaks " + CallRequest.VERSION + ")");
                return;
            }
            replies.write(FrameType.ACCEPTED);
            int status = execute(call, frames, replies);
            replies.writeInt(FrameType.EXIT, status);
        } catch (IOException e) {
            // The launcher is gone or broke the protocol; the command already saw the failure through its streams.
            log.warn((call == null ? "a connection" : call.command() + " from pid " + call.callerPid()) + " ended without an exit status: " + e);
        }
    }

    private int execute(CallRequest call, FrameReader frames, FrameWriter replies) throws IOException {
        int status;
        PrintStream err = new PrintStream(CallOutput.frames(replies, FrameType.STDERR, STDERR_BUFFER), false, StandardCharsets.UTF_8);
        // Closed before EXIT: a pipe the agent still held open would keep the caller's reader waiting.
        try (CallerStdio stdio = new CallerStdio(call)) {
            InputStream in = stdio.stdinClosed() ? ClosedStdio.stdin() : new CallInput(frames, replies, stdio);
            OutputStream out = stdio.stdoutClosed() ? ClosedStdio.stdout() : CallOutput.stdout(replies, stdio, STDOUT_BUFFER);
            try {
                status = handler.handle(call, in, out, err);
            } catch (RuntimeException | Error e) {
                // The dispatcher reports every failure itself; this is a bug or the JVM in trouble.
                log.warn(call.command() + " from pid " + call.callerPid() + " failed inside the agent: " + e);
                err.println("gpdedup host agent: " + call.command() + " failed: " + e);
                status = 1;
            }
        }
        err.flush();
        if (err.checkError()) {
            throw new IOException("could not send stderr to the caller");
        }
        return status;
    }

    private static void reject(FrameWriter replies, String reason) throws IOException {
        byte[] b = reason.getBytes(StandardCharsets.UTF_8);
        replies.write(FrameType.REJECTED, b, 0, Math.min(b.length, FrameType.REJECTED.maxLength));
    }
}
