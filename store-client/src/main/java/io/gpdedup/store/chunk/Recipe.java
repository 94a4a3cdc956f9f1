package io.gpdedup.store.chunk;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.List;

/**
 * How to rebuild one stored object: its chunks in order, its total length, the SHA-256 of the
 * whole stream, and the SHA-256 of the chunk list ({@link #listSha256(List, long)}) when the
 * backup recorded one ({@code null} in recipes written before it was). With every chunk checked
 * against its fingerprint, a chunk list that matches its recorded digest proves the whole stream,
 * so a restore needs no second pass over the bytes; without it, the stream SHA-256 is checked.
 */
public record Recipe(List<ChunkRef> chunks, long totalLength, byte[] streamSha256, byte[] chunkListSha256) {
    public Recipe {
        chunks = List.copyOf(chunks);
        streamSha256 = streamSha256.clone();
        if (chunkListSha256 != null) {
            if (chunkListSha256.length != Fingerprint.LENGTH) {
                throw new IllegalArgumentException("a chunk list SHA-256 is " + Fingerprint.LENGTH + " bytes, not " + chunkListSha256.length);
            }
            chunkListSha256 = chunkListSha256.clone();
        }
        long sum = 0;
        for (ChunkRef c : chunks) {
            sum += c.length();
        }
        if (sum != totalLength) {
            throw new IllegalArgumentException("chunk lengths add up to " + sum + ", not " + totalLength);
        }
    }

    /** A recipe without a chunk list digest, as written before there was one. */
    public Recipe(List<ChunkRef> chunks, long totalLength, byte[] streamSha256) {
        this(chunks, totalLength, streamSha256, null);
    }

    /** The same recipe with its chunk list digest, as a backup records it. */
    public Recipe withChunkListSha256() {
        return new Recipe(chunks, totalLength, streamSha256, listSha256(chunks, totalLength));
    }

    /**
     * SHA-256 over the total length (8 bytes) and then each entry's fingerprint (32 bytes) and
     * length (4 bytes), big-endian: docs/format.md, section 3.
     */
    public static byte[] listSha256(List<ChunkRef> chunks, long totalLength) {
        MessageDigest md = Fingerprint.newDigest();
        ByteBuffer b = ByteBuffer.allocate(Math.toIntExact(8 + (long) (Fingerprint.LENGTH + 4) * Math.min(chunks.size(), 1024)));
        b.putLong(totalLength);
        byte[] fp = new byte[Fingerprint.LENGTH];
        for (ChunkRef c : chunks) {
            if (b.remaining() < fp.length + 4) {
                md.update(b.array(), 0, b.position());
                b.clear();
            }
            c.fingerprint().copyTo(fp, 0);
            b.put(fp).putInt(c.length());
        }
        md.update(b.array(), 0, b.position());
        return md.digest();
    }

    /** Whether the chunk list is the one the backup recorded; false when none was recorded. */
    public boolean chunkListMatches() {
        return chunkListSha256 != null && MessageDigest.isEqual(chunkListSha256, listSha256(chunks, totalLength));
    }
}
