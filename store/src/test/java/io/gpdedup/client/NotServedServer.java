package io.gpdedup.client;

import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.ProtocolVersions;
import io.gpdedup.protocol.wire.Reply;
import io.gpdedup.protocol.wire.Request;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A "store" that answers every login with one error and closes, as a standby answers NOT_SERVED
 * for a unit another store holds: HELLO is answered (protocol version 7), AUTH gets ERROR with the
 * code given.
 */
public final class NotServedServer extends RawStoreServer {
    private final ErrorCode answer;
    private final AtomicInteger logins = new AtomicInteger();

    private NotServedServer(ErrorCode answer) throws IOException {
        super("not-served-server");
        this.answer = answer;
    }

    /** A standby: every login is answered NOT_SERVED. */
    public static NotServedServer start() throws IOException {
        return start(ErrorCode.NOT_SERVED);
    }

    /** Every login is answered with {@code answer}. */
    public static NotServedServer start(ErrorCode answer) throws IOException {
        return new NotServedServer(answer);
    }

    /** How many logins it refused. */
    public int logins() {
        return logins.get();
    }

    @Override
    void talk(DataInputStream in, OutputStream out) throws IOException {
        Frame hello = read(in);
        out.write(bytes(Frame.of(hello.requestId(), new Reply.HelloOk(ProtocolVersions.V7, 1 << 20, 1_000))));
        Frame auth = read(in);
        if (!(auth.message() instanceof Request.Auth login)) {
            return;
        }
        logins.incrementAndGet();
        String why = answer == ErrorCode.NOT_SERVED ? "storage unit '" + login.unit() + "' is held by another store now"
                : "refused by the test";
        out.write(bytes(Frame.of(auth.requestId(), new Reply.Error(answer, why))));
        out.flush();
    }
}
