package io.gpdedup.protocol.model;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.List;

/**
 * How to rebuild one stored object: its chunks in order, its total length, the SHA-256 of the
 * whole stream when the backup computed one, and the SHA-256 of the chunk list
 * ({@link #listSha256(List, long)}) when the backup recorded one. With every chunk checked
 * against its fingerprint, a chunk list that matches its recorded digest proves the whole stream,
 * so a restore needs no second pass over the bytes, and a backup need not make one either: since
 * protocol version 5 the plugin records the chunk list digest alone ({@code streamSha256} null).
 * Recipes from before the chunk list digest ({@code chunkListSha256} null) have the stream SHA-256;
 * every recipe has at least one of the two. A stream SHA-256 of zero bytes counts as none.
 */
public record Recipe(List<ChunkRef> chunks, long totalLength, byte[] streamSha256, byte[] chunkListSha256) {
    /**
     * The most chunks one object may have (1 TiB at a 64 KiB average chunk): the store refuses a
     * longer recipe, which it holds in memory until the commit, and a backup stops as soon as its
     * stream passes it instead of at its commit.
     */
    public static final int MAX_CHUNKS = 1 << 24;

    public Recipe {
        chunks = ChunkList.copyOf(chunks);
        if (streamSha256 != null) {
            if (streamSha256.length != Fingerprint.LENGTH) {
                throw new IllegalArgumentException("a stream SHA-256 is " + Fingerprint.LENGTH + " bytes, not " + streamSha256.length);
            }
            byte[] recorded = streamSha256OfField(streamSha256); // zero bytes are "none" here too, as on disk and the wire
            streamSha256 = recorded == null ? null : recorded.clone();
        }
        if (streamSha256 == null && chunkListSha256 == null) {
            throw new IllegalArgumentException("a recipe needs a stream SHA-256 or a chunk list SHA-256");
        }
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

    /** A backup's recipe proven by its chunk list digest alone: no pass over the stream's bytes besides the chunks' own. */
    public static Recipe ofChunks(List<ChunkRef> chunks, long totalLength) {
        return new Recipe(chunks, totalLength, null, listSha256(chunks, totalLength));
    }

    /**
     * The stream SHA-256 as a fixed 32-byte field (recipe file, COMMIT, RECIPE): all zero bytes when
     * none was recorded, a value SHA-256 gives no stream in practice.
     */
    public static byte[] streamSha256Field(byte[] streamSha256) {
        return streamSha256 == null ? new byte[Fingerprint.LENGTH] : streamSha256;
    }

    /** The stream SHA-256 a fixed field holds: null for all zero bytes (none recorded). */
    public static byte[] streamSha256OfField(byte[] field) {
        for (byte b : field) {
            if (b != 0) {
                return field;
            }
        }
        return null;
    }

    /**
     * Whether {@code other} rebuilds the same stream, as far as the two recipes tell without reading
     * chunks: same length, and the same chunk list or the same recorded stream SHA-256.
     */
    public boolean sameStream(Recipe other) {
        if (totalLength != other.totalLength) {
            return false;
        }
        if (streamSha256 != null && other.streamSha256 != null && MessageDigest.isEqual(streamSha256, other.streamSha256)) {
            return true;
        }
        return chunks.equals(other.chunks);
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
