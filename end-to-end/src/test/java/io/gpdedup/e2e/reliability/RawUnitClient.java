package io.gpdedup.e2e.reliability;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.wire.ChunkUpload;
import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.FrameCodec;
import io.gpdedup.protocol.wire.MessageType;
import io.gpdedup.protocol.wire.ProtocolVersions;
import io.gpdedup.protocol.wire.Reply;
import io.gpdedup.protocol.wire.Request;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;

/**
 * A hostile user of a storage unit, speaking raw frames: what it sends, and whether it ever reads
 * the replies, is the test's choice, as a client written to hurt the store would.
 */
final class RawUnitClient implements AutoCloseable {
    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;

    private RawUnitClient(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(60_000);
        in = new DataInputStream(socket.getInputStream());
        out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
    }

    static RawUnitClient login(int port, String unit, String user, String password) throws IOException {
        RawUnitClient c = new RawUnitClient(port);
        c.send(Frame.of(1, new Request.Hello(ProtocolVersions.SUPPORTED)));
        c.flush();
        if (!(c.read().message() instanceof Reply.HelloOk)) {
            throw new IOException("no HELLO_OK");
        }
        c.send(Frame.of(2, new Request.Auth(unit, user, password)));
        c.flush();
        Frame auth = c.read();
        if (!(auth.message() instanceof Reply.AuthOk)) {
            throw new IOException("login refused: " + auth.message());
        }
        return c;
    }

    /** Stores a chunk of 1 MiB of random bytes on a lease left open; its fingerprint. */
    Fingerprint putOneMiB(long seed) throws IOException {
        send(Frame.of(3, new Request.BeginBackup()));
        flush();
        long lease = ((Reply.LeaseGranted) read().message()).lease();
        byte[] raw = new byte[1 << 20];
        new Random(seed).nextBytes(raw);
        Fingerprint fp = Fingerprint.compute(raw, 0, raw.length);
        send(Frame.of(4, new Request.PutChunks(lease, List.of(new ChunkUpload(fp, Codec.NONE, raw.length, raw)))));
        flush();
        Frame ok = read();
        if (ok.type() != MessageType.OK) {
            throw new IOException("PUT refused: " + ok.message());
        }
        return fp;
    }

    /**
     * {@code n} BEGIN_BACKUP, then one APPEND_RECIPE of a single ref on each lease granted, all
     * pipelined; the refusals' messages (one per refused BEGIN_BACKUP or APPEND_RECIPE).
     */
    List<String> beginAndAppend(int n) throws IOException {
        for (int i = 0; i < n; i++) {
            send(Frame.of(10 + i, new Request.BeginBackup()));
        }
        flush();
        List<String> refused = new java.util.ArrayList<>();
        List<Long> leases = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            Frame f = read();
            if (f.message() instanceof Reply.LeaseGranted g) {
                leases.add(g.lease());
            } else {
                refused.add(((Reply.Error) f.message()).message());
            }
        }
        ChunkRef ref = new ChunkRef(Fingerprint.compute(new byte[] {7}, 0, 1), 1);
        for (long lease : leases) {
            send(Frame.of(20, new Request.AppendRecipe(lease, List.of(ref))));
        }
        flush();
        for (int i = 0; i < leases.size(); i++) {
            Frame f = read();
            if (f.type() != MessageType.OK) {
                refused.add(((Reply.Error) f.message()).message());
            }
        }
        return refused;
    }

    void send(Frame frame) throws IOException {
        ByteBuffer b = FrameCodec.encode(frame);
        out.write(b.array(), 0, b.limit());
    }

    void flush() throws IOException {
        out.flush();
    }

    Frame read() throws IOException {
        int length = in.readInt();
        byte[] body = new byte[length];
        in.readFully(body);
        return FrameCodec.decode(ByteBuffer.wrap(body));
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
