package io.gpdedup.protocol.model;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The identity of a chunk: the SHA-256 of its uncompressed bytes. Shared by the plugin (which
 * computes it), the protocol (which carries it) and the store (which indexes and re-verifies it).
 */
public final class Fingerprint implements Comparable<Fingerprint> {
    public static final int LENGTH = 32;
    private static final HexFormat HEX = HexFormat.of();

    private final byte[] bytes;
    private final int hash;

    private Fingerprint(byte[] bytes) {
        this.bytes = bytes;
        // SHA-256 output is uniformly distributed: its first four bytes make a fine hash code.
        this.hash = (bytes[0] & 0xff) << 24 | (bytes[1] & 0xff) << 16 | (bytes[2] & 0xff) << 8 | (bytes[3] & 0xff);
    }

    /** Wraps 32 digest bytes; the array is copied. */
    public static Fingerprint of(byte[] digest) {
        return of(digest, 0);
    }

    public static Fingerprint of(byte[] buf, int offset) {
        if (buf.length - offset < LENGTH) {
            throw new IllegalArgumentException("a fingerprint is " + LENGTH + " bytes");
        }
        return new Fingerprint(Arrays.copyOfRange(buf, offset, offset + LENGTH));
    }

    public static Fingerprint parse(String hex) {
        byte[] b = HEX.parseHex(hex);
        if (b.length != LENGTH) {
            throw new IllegalArgumentException("a fingerprint is " + (2 * LENGTH) + " hex digits");
        }
        return new Fingerprint(b);
    }

    /** SHA-256 of {@code data[off, off+len)}. */
    public static Fingerprint compute(byte[] data, int off, int len) {
        MessageDigest md = newDigest();
        md.update(data, off, len);
        return new Fingerprint(md.digest());
    }

    public static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every JDK", e);
        }
    }

    /** A copy of the 32 bytes. */
    public byte[] toBytes() {
        return bytes.clone();
    }

    public void copyTo(byte[] dst, int offset) {
        System.arraycopy(bytes, 0, dst, offset, LENGTH);
    }

    /** The first 8 bytes as a long: for Bloom filters and compact index keys. */
    public long prefix64() {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (bytes[i] & 0xff);
        }
        return v;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Fingerprint f && hash == f.hash && Arrays.equals(bytes, f.bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public int compareTo(Fingerprint o) {
        return Arrays.compareUnsigned(bytes, o.bytes);
    }

    @Override
    public String toString() {
        return HEX.formatHex(bytes);
    }
}
