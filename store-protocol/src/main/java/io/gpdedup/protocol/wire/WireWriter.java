package io.gpdedup.protocol.wire;

import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Writes the primitive types of docs/protocol.md section 1 into a buffer sized beforehand. */
public final class WireWriter {
    private final ByteBuffer buf;

    WireWriter(ByteBuffer buf) {
        this.buf = buf;
    }

    void u8(int v) {
        buf.put((byte) v);
    }

    void u16(int v) {
        buf.putShort((short) v);
    }

    void u32(int v) {
        buf.putInt(v);
    }

    void u64(long v) {
        buf.putLong(v);
    }

    void bytes(byte[] b) {
        buf.put(b);
    }

    void bytes(ByteBuffer b) {
        buf.put(b);
    }

    void str(String s) {
        byte[] b = utf8(s);
        buf.putShort((short) b.length);
        buf.put(b);
    }

    void fingerprint(Fingerprint fp) {
        buf.put(fp.toBytes());
    }

    void ref(ChunkRef ref) {
        fingerprint(ref.fingerprint());
        buf.putInt(ref.length());
    }

    void fingerprints(List<Fingerprint> fps) {
        u32(fps.size());
        for (Fingerprint fp : fps) {
            fingerprint(fp);
        }
    }

    void refs(List<ChunkRef> refs) {
        u32(refs.size());
        for (ChunkRef r : refs) {
            ref(r);
        }
    }

    void strings(List<String> strings) {
        u32(strings.size());
        for (String s : strings) {
            str(s);
        }
    }

    /** A field added at the end of a body in a later version: present or absent, never empty. */
    void optionalSha256(byte[] sha) {
        if (sha != null) {
            bytes(sha);
        }
    }

    static int optionalSha256Size(byte[] sha) {
        return sha == null ? 0 : Fingerprint.LENGTH;
    }

    static long fingerprintsSize(List<Fingerprint> fps) {
        return 4 + (long) Fingerprint.LENGTH * fps.size();
    }

    static long refsSize(List<ChunkRef> refs) {
        return 4 + (long) FrameCodec.REF_SIZE * refs.size();
    }

    static long stringsSize(List<String> strings) {
        long n = 4;
        for (String s : strings) {
            n += strSize(s);
        }
        return n;
    }

    static byte[] utf8(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length > 0xffff) {
            throw new IllegalArgumentException("a string on the wire is at most 65535 bytes of UTF-8, this one is " + b.length);
        }
        return b;
    }

    static int strSize(String s) {
        return 2 + utf8(s).length;
    }
}
