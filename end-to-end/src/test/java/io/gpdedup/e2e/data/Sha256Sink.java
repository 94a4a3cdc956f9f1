package io.gpdedup.e2e.data;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Digests what is written to it and keeps nothing else: how a 100 MB restore is compared. */
public final class Sha256Sink extends OutputStream {
    private final MessageDigest digest = newDigest();
    private long count;

    @Override
    public void write(int b) {
        digest.update((byte) b);
        count++;
    }

    @Override
    public void write(byte[] b, int off, int len) {
        digest.update(b, off, len);
        count += len;
    }

    public long count() {
        return count;
    }

    /** Hex SHA-256 of everything written so far (call once). */
    public String hex() {
        return HexFormat.of().formatHex(digest.digest());
    }

    /** SHA-256 of a whole stream, reading it once. */
    public static String of(InputStream in) {
        Sha256Sink sink = new Sha256Sink();
        try (in) {
            in.transferTo(sink);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return sink.hex();
    }

    public static String of(byte[] data) {
        Sha256Sink sink = new Sha256Sink();
        sink.write(data, 0, data.length);
        return sink.hex();
    }

    /** Wraps {@code in} so the digest of exactly what was read (i.e. sent to a plugin) can be taken afterwards. */
    public static DigestInputStream digesting(InputStream in) {
        return new DigestInputStream(in, newDigest());
    }

    public static String hex(DigestInputStream in) {
        return HexFormat.of().formatHex(in.getMessageDigest().digest());
    }

    private static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
