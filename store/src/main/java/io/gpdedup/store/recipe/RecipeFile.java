package io.gpdedup.store.recipe;

import io.gpdedup.protocol.model.ChunkList;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.RetentionLock;
import io.gpdedup.store.CrcTrailer;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The bytes of one recipe file (docs/format.md, section 3). A recipe with a retention lock is
 * written as version 3; else one with a chunk list digest as version 2, and one without
 * (committed by an older client) keeps version 1's bytes. A recipe recorded without a stream
 * SHA-256 has zero bytes in its place.
 */
public final class RecipeFile {
    private static final long MAGIC_V1 = 0x4750445243503031L; // "GPDRCP01"
    private static final long MAGIC_V2 = 0x4750445243503032L; // "GPDRCP02": adds the chunk list SHA-256
    private static final long MAGIC_V3 = 0x4750445243503033L; // "GPDRCP03": adds the retention lock; the digest is flagged
    private static final int HAS_CHUNK_LIST_SHA = 1;
    /** Flags, lock mode and lock end: what version 3 adds before the chunk count. */
    private static final int V3_BYTES = 1 + 1 + 8;
    private static final int ENTRY_BYTES = Fingerprint.LENGTH + 4;
    /** Magic, name length, total length, commit time, stream SHA-256, chunk count and trailer: every recipe has them. */
    private static final int FIXED_BYTES = 8 + 2 + 8 + 8 + Fingerprint.LENGTH + 4 + CrcTrailer.BYTES;

    /** A decoded recipe file. */
    public record Contents(String name, long committedAtMillis, Recipe recipe, RetentionLock lock) {
    }

    private RecipeFile() {
    }

    public static byte[] encode(String name, long committedAtMillis, Recipe recipe, RetentionLock lock) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        int count = recipe.chunks().size();
        byte[] listed = recipe.chunkListSha256();
        int listedBytes = listed == null ? 0 : listed.length;
        boolean locked = lock.mode() != RetentionLock.Mode.NONE;
        ByteBuffer b = ByteBuffer.allocate(Math.toIntExact((long) FIXED_BYTES + listedBytes + (locked ? V3_BYTES : 0) + n.length
                + (long) ENTRY_BYTES * count));
        b.putLong(locked ? MAGIC_V3 : listed == null ? MAGIC_V1 : MAGIC_V2).putShort((short) n.length).put(n);
        b.putLong(recipe.totalLength()).putLong(committedAtMillis).put(Recipe.streamSha256Field(recipe.streamSha256()));
        if (locked) {
            b.put((byte) (listed == null ? 0 : HAS_CHUNK_LIST_SHA));
        }
        if (listed != null) {
            b.put(listed);
        }
        if (locked) {
            b.put((byte) lock.mode().code()).putLong(lock.untilMillis());
        }
        b.putInt(count);
        byte[] fp = new byte[Fingerprint.LENGTH];
        for (ChunkRef c : recipe.chunks()) {
            c.fingerprint().copyTo(fp, 0);
            b.put(fp).putInt(c.length());
        }
        CrcTrailer.append(b);
        return b.array();
    }

    public static Contents decode(byte[] data) throws CorruptRecipeException {
        if (data.length < FIXED_BYTES) {
            throw new CorruptRecipeException("recipe file of " + data.length + " bytes is too short");
        }
        ByteBuffer b = ByteBuffer.wrap(data);
        if (!CrcTrailer.matches(data)) {
            throw new CorruptRecipeException("recipe checksum mismatch");
        }
        try {
            long magic = b.getLong();
            if (magic != MAGIC_V1 && magic != MAGIC_V2 && magic != MAGIC_V3) {
                throw new CorruptRecipeException("bad recipe magic");
            }
            byte[] n = new byte[b.getShort() & 0xffff];
            b.get(n);
            long total = b.getLong();
            long committedAt = b.getLong();
            byte[] sha = new byte[Fingerprint.LENGTH];
            b.get(sha);
            int flags = magic == MAGIC_V3 ? b.get() & 0xff : magic == MAGIC_V2 ? HAS_CHUNK_LIST_SHA : 0;
            if ((flags & ~HAS_CHUNK_LIST_SHA) != 0) {
                throw new CorruptRecipeException("unknown recipe flags " + flags);
            }
            byte[] listed = null;
            if ((flags & HAS_CHUNK_LIST_SHA) != 0) {
                listed = new byte[Fingerprint.LENGTH];
                b.get(listed);
            }
            RetentionLock lock = RetentionLock.NONE;
            if (magic == MAGIC_V3) {
                lock = new RetentionLock(RetentionLock.Mode.ofCode(b.get() & 0xff), b.getLong());
                if (lock.mode() == RetentionLock.Mode.NONE) {
                    throw new CorruptRecipeException("a version 3 recipe without a retention lock");
                }
            }
            int count = b.getInt();
            if (count < 0 || (long) count * ENTRY_BYTES != b.remaining() - (long) CrcTrailer.BYTES) {
                throw new CorruptRecipeException("recipe chunk count " + count + " does not match its size");
            }
            ChunkList.Builder refs = new ChunkList.Builder();
            for (int i = 0; i < count; i++) {
                int at = b.position();
                int len = b.getInt(at + Fingerprint.LENGTH);
                if (len < 0) {
                    throw new CorruptRecipeException("negative chunk length in recipe");
                }
                refs.add(data, at, len);
                b.position(at + ENTRY_BYTES);
            }
            return new Contents(new String(n, StandardCharsets.UTF_8), committedAt, new Recipe(refs.build(), total, sha, listed), lock);
        } catch (BufferUnderflowException | IllegalArgumentException e) {
            throw new CorruptRecipeException("malformed recipe: " + e.getMessage());
        }
    }
}
