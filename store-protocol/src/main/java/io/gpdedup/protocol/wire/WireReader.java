package io.gpdedup.protocol.wire;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Reads the primitive types of docs/protocol.md section 1; any shortfall is a malformed frame. */
public final class WireReader {
    private final ByteBuffer buf;

    WireReader(ByteBuffer buf) {
        this.buf = buf;
    }

    int remaining() {
        return buf.remaining();
    }

    private void need(int n, String what) {
        if (buf.remaining() < n) {
            throw malformed("frame ends inside " + what);
        }
    }

    int u8(String what) {
        need(1, what);
        return buf.get() & 0xff;
    }

    int u16(String what) {
        need(2, what);
        return buf.getShort() & 0xffff;
    }

    /** A u32 that the protocol limits to 2^31-1 (lengths, counts, sizes). */
    int u31(String what) {
        need(4, what);
        int v = buf.getInt();
        if (v < 0) {
            throw malformed(what + " " + Integer.toUnsignedString(v) + " is above 2^31-1");
        }
        return v;
    }

    int u32Raw(String what) {
        need(4, what);
        return buf.getInt();
    }

    long u64(String what) {
        need(8, what);
        long v = buf.getLong();
        if (v < 0) {
            throw malformed(what + " is negative");
        }
        return v;
    }

    /** A u32 entry count, checked against the bytes left so a forged count allocates nothing. */
    int count(int minEntrySize, String what) {
        int n = u31(what + " count");
        if ((long) n * minEntrySize > buf.remaining()) {
            throw malformed(what + " count " + n + " does not fit in the " + buf.remaining() + " bytes left");
        }
        return n;
    }

    /** The next {@code n} bytes as a view of the frame, not a copy: valid as long as the frame's buffer is not reused. */
    ByteBuffer view(int n, String what) {
        need(n, what);
        ByteBuffer view = buf.slice(buf.position(), n);
        buf.position(buf.position() + n);
        return view;
    }

    byte[] bytes(int n, String what) {
        need(n, what);
        byte[] b = new byte[n];
        buf.get(b);
        return b;
    }

    String str(String what) {
        int n = u16(what + " length");
        need(n, what);
        ByteBuffer slice = buf.slice();
        slice.limit(n);
        buf.position(buf.position() + n);
        try {
            CharBuffer chars = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(slice);
            return chars.toString();
        } catch (CharacterCodingException e) {
            throw malformed(what + " is not valid UTF-8");
        }
    }

    Fingerprint fingerprint(String what) {
        return Fingerprint.of(bytes(Fingerprint.LENGTH, what));
    }

    Codec codec() {
        int id = u8("codec");
        try {
            return Codec.ofId(id);
        } catch (IllegalArgumentException e) {
            throw malformed("unknown codec id " + id);
        }
    }

    ChunkRef ref() {
        Fingerprint fp = fingerprint("chunk ref");
        return new ChunkRef(fp, u31("chunk ref length"));
    }

    /** A SHA-256 added at the end of a body in a later version: null when the body ends before it. */
    byte[] optionalSha256(String what) {
        return remaining() == 0 ? null : bytes(Fingerprint.LENGTH, what);
    }

    List<Fingerprint> fingerprints() {
        int n = count(Fingerprint.LENGTH, "fingerprint");
        List<Fingerprint> fps = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            fps.add(fingerprint("fingerprint"));
        }
        return fps;
    }

    List<ChunkRef> refs() {
        int n = count(FrameCodec.REF_SIZE, "chunk ref");
        List<ChunkRef> refs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            refs.add(ref());
        }
        return refs;
    }

    List<String> strings(String what) {
        int n = count(2, what);
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(str(what));
        }
        return out;
    }

    void end(MessageType type) {
        if (buf.hasRemaining()) {
            throw malformed(type + " has " + buf.remaining() + " bytes after its body");
        }
    }

    static StoreProtocolException malformed(String message) {
        return new StoreProtocolException(ErrorCode.MALFORMED_FRAME, message);
    }
}
