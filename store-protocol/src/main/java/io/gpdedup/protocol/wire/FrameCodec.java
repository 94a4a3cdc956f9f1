package io.gpdedup.protocol.wire;

import io.gpdedup.protocol.model.Fingerprint;
import java.nio.ByteBuffer;

/**
 * The one codec of the protocol (docs/protocol.md): frames to bytes and back. A frame on the wire
 * is a 4-byte length followed by that many bytes; {@link #decode} takes those bytes, {@link #encode}
 * produces the whole frame including the length. The header is this class's; each body is its
 * record's, which {@link MessageType} names.
 */
public final class FrameCodec {
    /** Size of the length field that precedes every frame. */
    public static final int LENGTH_FIELD = 4;
    /** Type, flags and request id: the smallest possible frame length. */
    public static final int HEADER = 6;
    /** The largest frame length a server accepts before the client has authenticated. */
    public static final int PRE_AUTH_MAX_FRAME = 4096;
    public static final int DEFAULT_MAX_FRAME = 16 << 20;
    /**
     * The largest max frame length a server may announce, and the most a client takes from a
     * server whatever it announced: a frame is read whole into memory.
     */
    public static final int LARGEST_MAX_FRAME = 64 << 20;
    /** Bytes of one chunk ref (fingerprint and length) in a recipe. */
    public static final int REF_SIZE = Fingerprint.LENGTH + 4;

    private static final int FLAG_MORE = 1;

    private FrameCodec() {
    }

    /** The frame as it goes on the wire, length field included; position 0, limit = its size. */
    public static ByteBuffer encode(Frame frame) {
        ByteBuffer buf = ByteBuffer.allocate(LENGTH_FIELD + frameLength(frame));
        encode(frame, buf);
        return buf.flip();
    }

    /**
     * Writes the frame as it goes on the wire, length field included, into exactly the bytes between
     * {@code out}'s position and limit: {@code LENGTH_FIELD + frameLength(frame)} of them.
     */
    public static void encode(Frame frame, ByteBuffer out) {
        out.putInt(out.remaining() - LENGTH_FIELD);
        out.put((byte) frame.type().code());
        out.put((byte) (frame.more() ? FLAG_MORE : 0));
        out.putInt(frame.requestId());
        frame.type().writeBody(new WireWriter(out), frame.message());
        if (out.hasRemaining()) {
            throw new IllegalStateException(frame.type() + ": " + out.remaining() + " bytes left unwritten, the frame is shorter");
        }
    }

    /** The value of the length field for this frame: header plus body. */
    public static int frameLength(Frame frame) {
        long n = HEADER + frame.type().bodySize(frame.message());
        if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(frame.type() + " does not fit in a frame");
        }
        return (int) n;
    }

    /**
     * Decodes the bytes that followed a frame's length field (all of them, and only them). Upload
     * payloads (PUT_CHUNKS) are views of {@code frameBytes}: do not reuse it while they are in use.
     *
     * @throws StoreProtocolException if they break docs/protocol.md
     */
    public static Frame decode(ByteBuffer frameBytes) {
        WireReader in = new WireReader(frameBytes);
        MessageType type = MessageType.ofCode(in.u8("type"));
        int flags = in.u8("flags");
        int requestId = in.u32Raw("request id");
        if ((flags & ~FLAG_MORE) != 0) {
            throw WireReader.malformed("reserved flag bits set: 0x" + Integer.toHexString(flags));
        }
        boolean more = (flags & FLAG_MORE) != 0;
        if (more && !type.splittable()) {
            throw WireReader.malformed(type + " cannot carry the MORE flag");
        }
        Message message = type.readBody(in);
        in.end(type);
        return new Frame(requestId, more, message);
    }
}
