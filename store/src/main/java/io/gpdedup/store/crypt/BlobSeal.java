package io.gpdedup.store.crypt;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import javax.crypto.SecretKey;

/**
 * Whole files sealed under a unit's data key (docs/format.md section 9.3): the index snapshot and
 * the recipe files. A blob is cut into segments of at most 1 MiB, each sealed with AES-256-GCM, so
 * a snapshot of millions of entries streams through without being held in memory. Each segment's
 * nonce is the blob's random 64-bit prefix and the segment's number; its associated data binds the
 * blob's header, what the blob is ({@code what}: the kind of file and its name), the unit, and
 * whether it is the last segment, so segments cannot be reordered, dropped, cut off at the end, or
 * moved to another file undetected.
 */
public final class BlobSeal {
    static final byte[] MAGIC = "GPDSEAL1".getBytes(StandardCharsets.US_ASCII);
    /** Magic, data key id, nonce prefix. */
    static final int HEADER_BYTES = 8 + 4 + 8;
    static final int SEGMENT = 1 << 20;
    private static final int LAST = 0x80000000;

    private final DataKeys keys;

    BlobSeal(DataKeys keys) {
        this.keys = keys;
    }

    /** Whether {@code blob} starts as a sealed blob does (a plaintext file format never does): a conversion's test of what it did. */
    public static boolean sealed(byte[] blob) {
        return blob.length >= HEADER_BYTES && Arrays.equals(blob, 0, MAGIC.length, MAGIC, 0, MAGIC.length);
    }

    /** Bytes sealing adds to {@code plainBytes} of plaintext. */
    public static long overhead(long plainBytes) {
        return HEADER_BYTES + (plainBytes / SEGMENT + 1) * (4L + Gcm.TAG_BYTES);
    }

    /** Seals what is written to the returned stream into {@code out}; closing it writes the last segment and closes {@code out}. */
    public OutputStream sealing(OutputStream out, String what) throws IOException {
        int keyId = keys.currentId();
        byte[] header = ByteBuffer.allocate(HEADER_BYTES).put(MAGIC).putInt(keyId).put(Gcm.randomBytes(8)).array();
        out.write(header);
        return new Sealing(out, keys.key(keyId), header, context(what));
    }

    /** Opens a blob sealed as {@code what}; reading fails with {@link SealException} at the first segment that does not authenticate. */
    public InputStream opening(InputStream in, String what) throws IOException {
        DataInputStream din = new DataInputStream(in);
        byte[] header = new byte[HEADER_BYTES];
        try {
            din.readFully(header);
        } catch (EOFException e) {
            throw new SealException(what + " is shorter than a sealed header");
        }
        if (!Arrays.equals(header, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            throw new SealException(what + " is not sealed (the unit is encrypted)");
        }
        int keyId = ByteBuffer.wrap(header).getInt(MAGIC.length);
        SecretKey key = keys.key(keyId);
        if (key == null) {
            throw new SealException(what + " is sealed under data key " + keyId + ", which the unit does not have");
        }
        return new Opening(din, key, header, context(what), what);
    }

    public byte[] seal(byte[] plain, String what) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(plain.length + (int) overhead(plain.length));
        try (OutputStream s = sealing(out, what)) {
            s.write(plain);
        }
        return out.toByteArray();
    }

    public byte[] open(byte[] sealed, String what) throws IOException {
        try (InputStream in = opening(new ByteArrayInputStream(sealed), what)) {
            return in.readAllBytes();
        }
    }

    private byte[] context(String what) {
        return ("blob\0" + keys.unit() + "\0" + what).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] nonce(byte[] header, int segment) {
        return ByteBuffer.allocate(Gcm.NONCE_BYTES).put(header, MAGIC.length + 4, 8).putInt(segment).array();
    }

    private static byte[] aad(byte[] header, byte[] context, boolean last) {
        byte[] aad = Arrays.copyOf(header, HEADER_BYTES + 1 + context.length);
        aad[HEADER_BYTES] = (byte) (last ? 1 : 0);
        System.arraycopy(context, 0, aad, HEADER_BYTES + 1, context.length);
        return aad;
    }

    private static final class Sealing extends OutputStream {
        private final OutputStream out;
        private final SecretKey key;
        private final byte[] header;
        private final byte[] context;
        private final byte[] buf = new byte[SEGMENT];
        private int filled;
        private int segment;
        private boolean closed;

        Sealing(OutputStream out, SecretKey key, byte[] header, byte[] context) {
            this.out = out;
            this.key = key;
            this.header = header;
            this.context = context;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            while (len > 0) {
                if (filled == SEGMENT) {
                    emit(false); // only once more bytes come is a full segment known not to be the last
                }
                int n = Math.min(len, SEGMENT - filled);
                System.arraycopy(b, off, buf, filled, n);
                filled += n;
                off += n;
                len -= n;
            }
        }

        private void emit(boolean last) throws IOException {
            if (segment == Integer.MAX_VALUE) {
                throw new IOException("blob too large to seal");
            }
            byte[] ct = Gcm.seal(key, nonce(header, segment), aad(header, context, last), buf, 0, filled);
            out.write(ByteBuffer.allocate(4).putInt(ct.length | (last ? LAST : 0)).array());
            out.write(ct);
            segment++;
            filled = 0;
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            try {
                emit(true);
                out.flush();
            } finally {
                out.close();
            }
        }
    }

    private static final class Opening extends InputStream {
        private final DataInputStream in;
        private final SecretKey key;
        private final byte[] header;
        private final byte[] context;
        private final String what;
        private byte[] plain = new byte[0];
        private int pos;
        private int segment;
        private boolean done;

        Opening(DataInputStream in, SecretKey key, byte[] header, byte[] context, String what) {
            this.in = in;
            this.key = key;
            this.header = header;
            this.context = context;
            this.what = what;
        }

        private boolean fill() throws IOException {
            while (pos == plain.length) {
                if (done) {
                    return false;
                }
                int word;
                try {
                    word = in.readInt();
                } catch (EOFException e) {
                    throw new SealException(what + " is cut short (no last segment)");
                }
                boolean last = (word & LAST) != 0;
                int len = word & ~LAST;
                if (len < Gcm.TAG_BYTES || len > SEGMENT + Gcm.TAG_BYTES) {
                    throw new SealException(what + " has a damaged segment length");
                }
                byte[] ct = new byte[len];
                try {
                    in.readFully(ct);
                } catch (EOFException e) {
                    throw new SealException(what + " is cut short");
                }
                byte[] p = Gcm.open(key, nonce(header, segment), aad(header, context, last), ct, 0, len);
                if (p == null) {
                    throw new SealException(what + " does not authenticate (damaged or tampered with)");
                }
                segment++;
                plain = p;
                pos = 0;
                if (last) {
                    done = true;
                    if (in.read() != -1) {
                        throw new SealException(what + " has bytes after its last segment");
                    }
                }
            }
            return true;
        }

        @Override
        public int read() throws IOException {
            return fill() ? plain[pos++] & 0xff : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            if (!fill()) {
                return -1;
            }
            int n = Math.min(len, plain.length - pos);
            System.arraycopy(plain, pos, b, off, n);
            pos += n;
            return n;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
