package io.gpdedup.client;

import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.ProtocolVersions;
import io.gpdedup.protocol.wire.Reply;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A hostile "store": answers HELLO announcing a max frame of 2^31-1 bytes, then sends the header
 * of a frame that long, either as its answer to AUTH or, with {@code afterLogin}, once the client
 * is logged in (AUTH_OK, SETTINGS) and sends its first request. It never sends the frame's body: a
 * client that tries to read it would set aside 2 GiB first.
 */
public final class HugeFrameServer extends RawStoreServer {
    public static final int ANNOUNCED = Integer.MAX_VALUE;

    private final boolean afterLogin;

    private HugeFrameServer(boolean afterLogin) throws IOException {
        super("huge-frame-server");
        this.afterLogin = afterLogin;
    }

    public static HugeFrameServer start(boolean afterLogin) throws IOException {
        return new HugeFrameServer(afterLogin);
    }

    @Override
    void talk(DataInputStream in, OutputStream out) throws IOException {
        Frame hello = read(in);
        out.write(bytes(Frame.of(hello.requestId(), new Reply.HelloOk(ProtocolVersions.V6, ANNOUNCED, 65_536))));
        Frame auth = read(in);
        if (afterLogin) {
            out.write(bytes(Frame.of(auth.requestId(), new Reply.AuthOk())));
            Frame settings = read(in);
            out.write(bytes(Frame.of(settings.requestId(), new Reply.Settings(600))));
            read(in);
        }
        // The length field of a frame of 2^31-1 bytes, then the start of its header; the rest never comes.
        out.write(new byte[] {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x10, 0, 0, 0});
        out.flush();
        while (in.read() >= 0) {
            // Held open until the client hangs up.
        }
    }
}
