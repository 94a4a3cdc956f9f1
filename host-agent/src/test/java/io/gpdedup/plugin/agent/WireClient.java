package io.gpdedup.plugin.agent;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/** The launcher's side of the protocol, in Java, for driving an agent from tests. */
final class WireClient implements Closeable {
    private final SocketChannel channel;
    private final FrameReader frames;
    private final FrameWriter writer;
    private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    private boolean accepted;
    private boolean stdinRequested;
    private String rejected;
    private Integer exit;

    private WireClient(SocketChannel channel) {
        this.channel = channel;
        this.frames = new FrameReader(channel, 64 * 1024);
        this.writer = new FrameWriter(channel);
    }

    static WireClient connect(Path socket) throws IOException {
        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        ch.connect(UnixDomainSocketAddress.of(socket));
        return new WireClient(ch);
    }

    /** Connects and sends a CALL from working directory {@code cwd}. */
    static WireClient call(Path socket, Path cwd, String... args) throws IOException {
        WireClient c = connect(socket);
        c.send(FrameType.CALL, new CallRequest(CallRequest.VERSION, ProcessHandle.current().pid(), cwd, List.of(args)).encode());
        return c;
    }

    /** As {@link #call(Path, Path, String...)} with the CALL's {@code stdio} flags. */
    static WireClient call(Path socket, Path cwd, int stdio, String... args) throws IOException {
        WireClient c = connect(socket);
        c.send(FrameType.CALL, new CallRequest(CallRequest.VERSION, ProcessHandle.current().pid(), stdio, 0, cwd, List.of(args)).encode());
        return c;
    }

    void send(FrameType type, byte[] payload) throws IOException {
        writer.write(type, payload);
    }

    /** Sends {@code data} as STDIN frames of at most {@code chunk} bytes. */
    void sendStdin(byte[] data, int chunk) throws IOException {
        for (int off = 0; off < data.length; off += chunk) {
            writer.write(FrameType.STDIN, data, off, Math.min(chunk, data.length - off));
        }
    }

    void sendEof() throws IOException {
        writer.write(FrameType.STDIN_EOF);
    }

    /** Reads frames until the agent asks for stdin; false if the call ended first. */
    boolean awaitStdinRequest() throws IOException {
        while (!stdinRequested) {
            if (readOne() == FrameType.EXIT) {
                return false;
            }
        }
        return true;
    }

    /** Reads frames until EXIT; the exit status. */
    int awaitExit() throws IOException {
        while (exit == null) {
            readOne();
        }
        return exit;
    }

    /** Reads until the connection ends; the REJECTED reason, or null when it closed without one. */
    String awaitRejectedOrClose() {
        try {
            while (rejected == null) {
                readOne();
            }
        } catch (IOException e) {
            // closed
        }
        return rejected;
    }

    /** Reads and records one frame. A REJECTED call or a closed connection is an IOException. */
    private FrameType readOne() throws IOException {
        FrameType t = frames.next();
        if (t == null) {
            throw new IOException("agent closed the connection (accepted=" + accepted + ")");
        }
        switch (t) {
            case ACCEPTED -> accepted = true;
            case REJECTED -> {
                rejected = new String(frames.payload(), StandardCharsets.UTF_8);
                throw new IOException("rejected: " + rejected);
            }
            case STDIN_REQUEST -> stdinRequested = true;
            case STDOUT -> stdout.writeBytes(frames.payload());
            case STDERR -> stderr.writeBytes(frames.payload());
            case EXIT -> exit = ByteBuffer.wrap(frames.payload()).getInt();
            default -> throw new IOException("unexpected frame " + t);
        }
        return t;
    }

    boolean accepted() {
        return accepted;
    }

    byte[] stdout() {
        return stdout.toByteArray();
    }

    String stderr() {
        return stderr.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
