package io.gpdedup.dedup.pipeline;

import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.FrameCodec;
import io.gpdedup.protocol.wire.Reply;
import io.gpdedup.protocol.wire.Request;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A relay in front of a real store that passes on each client's HELLO with only the protocol
 * versions up to a cap, then copies bytes both ways: the store answers as it would an older client,
 * so the client sees what an older store would show it.
 */
final class VersionCappingRelay implements AutoCloseable {
    private final ServerSocket server;
    private final int storePort;
    private final int maxVersion;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final List<Integer> agreed = new CopyOnWriteArrayList<>();

    private VersionCappingRelay(ServerSocket server, int storePort, int maxVersion) {
        this.server = server;
        this.storePort = storePort;
        this.maxVersion = maxVersion;
    }

    static VersionCappingRelay start(int storePort, int maxVersion) throws IOException {
        ServerSocket s = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        VersionCappingRelay relay = new VersionCappingRelay(s, storePort, maxVersion);
        Thread t = new Thread(relay::accept, "version-capping-relay");
        t.setDaemon(true);
        t.start();
        return relay;
    }

    int port() {
        return server.getLocalPort();
    }

    /** The version the store chose on each connection relayed so far, in order. */
    List<Integer> agreed() {
        return List.copyOf(agreed);
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket store = new Socket();
                store.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), storePort), 10_000);
                open.add(client);
                open.add(store);
                DataInputStream in = new DataInputStream(client.getInputStream());
                byte[] body = new byte[in.readInt()];
                in.readFully(body);
                Frame hello = FrameCodec.decode(ByteBuffer.wrap(body));
                List<Integer> offered = ((Request.Hello) hello.message()).versions().stream().filter(v -> v <= maxVersion).toList();
                ByteBuffer capped = FrameCodec.encode(Frame.of(hello.requestId(), new Request.Hello(offered)));
                store.getOutputStream().write(capped.array(), capped.arrayOffset() + capped.position(), capped.remaining());
                DataInputStream answers = new DataInputStream(store.getInputStream());
                byte[] answer = new byte[answers.readInt()];
                answers.readFully(answer);
                if (FrameCodec.decode(ByteBuffer.wrap(answer)).message() instanceof Reply.HelloOk ok) {
                    agreed.add(ok.version());
                }
                DataOutputStream toClient = new DataOutputStream(client.getOutputStream());
                toClient.writeInt(answer.length);
                toClient.write(answer);
                pump(client.getInputStream(), store.getOutputStream());
                pump(store.getInputStream(), client.getOutputStream());
            } catch (IOException e) {
                return;
            }
        }
    }

    private static void pump(InputStream from, OutputStream to) {
        Thread t = new Thread(() -> {
            try {
                from.transferTo(to);
            } catch (IOException ignored) {
                // One side went away: the test ends the other with close().
            }
        }, "version-capping-relay-pump");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : open) {
            s.close();
        }
    }
}
