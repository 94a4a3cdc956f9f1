package io.gpdedup.store.index;

import io.gpdedup.store.container.FileSync;
import io.gpdedup.store.container.OwnerOnly;
import io.gpdedup.store.crypt.BlobSeal;
import io.gpdedup.store.crypt.SealException;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.zip.CRC32C;
import java.util.zip.CheckedOutputStream;

/**
 * The index saved at clean shutdown (docs/format.md, section 4): a cache, never the truth. A
 * snapshot that fails its checksum is treated as absent, and the caller rescans the containers.
 */
public final class IndexSnapshot {
    private static final long MAGIC = 0x475044494E445831L; // "GPDINDX1"
    private static final String WHAT = "index snapshot";

    /** A loaded snapshot: the index, and how far into each container it reaches. */
    public record Loaded(ChunkIndex index, Map<Integer, Long> covered) {
    }

    private IndexSnapshot() {
    }

    /** The bytes a snapshot of {@code index} over {@code containers} containers takes on disk. */
    public static long sizeOf(ChunkIndex index, int containers) {
        return 8 + 4 + 12L * containers + 8 + 44L * index.size() + 4;
    }

    /**
     * Writes durably (temp, fsync, rename, fsync dir) the entries of the covered containers (all
     * of them, locally; with a bucket, those already uploaded). The covered lengths must already be durable.
     */
    public static void write(Path file, ChunkIndex index, Map<Integer, Long> covered) throws IOException {
        write(file, index, covered, null);
    }

    /** As {@link #write(Path, ChunkIndex, Map)}, sealed under {@code seal} (docs/format.md section 9.3) unless it is null. */
    public static void write(Path file, ChunkIndex index, Map<Integer, Long> covered, BlobSeal seal) throws IOException {
        Path temp = file.resolveSibling(file.getFileName() + ".tmp");
        CRC32C crc = new CRC32C();
        try (OutputStream fos = sealed(OwnerOnly.newOutputStream(temp), seal);
             CheckedOutputStream cos = new CheckedOutputStream(new BufferedOutputStream(fos, 1 << 16), crc);
             DataOutputStream out = new DataOutputStream(cos)) {
            out.writeLong(MAGIC);
            out.writeInt(covered.size());
            for (Map.Entry<Integer, Long> e : covered.entrySet()) {
                out.writeInt(e.getKey());
                out.writeLong(e.getValue());
            }
            long[] entries = new long[1];
            index.forEach((slot, container, offset, length) -> {
                if (covered.containsKey(container)) {
                    entries[0]++;
                }
            });
            out.writeLong(entries[0]);
            IOException[] failure = new IOException[1];
            index.forEach((slot, container, offset, length) -> {
                if (failure[0] != null || !covered.containsKey(container)) {
                    return;
                }
                try {
                    out.write(index.fingerprintAt(slot).toBytes());
                    out.writeInt(container);
                    out.writeInt((int) offset);
                    out.writeInt(length);
                } catch (IOException e) {
                    failure[0] = e;
                }
            });
            if (failure[0] != null) {
                throw failure[0];
            }
            out.flush();
            int sum = (int) crc.getValue();
            out.writeInt(sum);
            out.flush();
        }
        FileSync.syncFile(temp);
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        FileSync.syncDirectory(file.getParent());
    }

    /** Reads a snapshot; null if it is missing, truncated or fails its checksum. */
    public static Loaded read(Path file) throws IOException {
        return read(file, null);
    }

    /** As {@link #read(Path)}, for a snapshot sealed under {@code seal} unless it is null; one that does not authenticate is absent too. */
    public static Loaded read(Path file, BlobSeal seal) throws IOException {
        InputStream in;
        long size;
        try {
            in = Files.newInputStream(file);
            size = Files.size(file);
        } catch (NoSuchFileException e) {
            return null;
        }
        try (in) {
            return read(in, size, seal);
        }
    }

    /**
     * As {@link #read(Path, BlobSeal)}, from a stream of {@code size} bytes (sealed or not), which
     * the caller closes: the entries go into the index as they arrive, so a snapshot being
     * downloaded is parsed meanwhile. Null, as for a file, if it is truncated, fails its checksum
     * or does not authenticate.
     */
    public static Loaded read(InputStream stream, long size, BlobSeal seal) throws IOException {
        try {
            SnapshotReader in = new SnapshotReader(opened(stream, seal));
            if (in.readLong() != MAGIC) {
                return null;
            }
            int k = in.readInt();
            if (k < 0 || k > size / 12) {
                return null;
            }
            CoveredLengths covered = new CoveredLengths(k);
            for (int i = 0; i < k; i++) {
                if (!covered.put(in.readInt(), in.readLong())) {
                    return null;
                }
            }
            long e = in.readLong();
            if (e < 0 || e > Integer.MAX_VALUE || e > size / 44) {
                return null; // damaged: more entries than the stream could hold (and never a table sized for them)
            }
            ChunkIndex index = new ChunkIndex(e); // sized up front: the entries come in hash order
            if (!in.readEntries(e, covered, index)) {
                return null;
            }
            int expected = in.checksum();
            if (in.readInt() != expected || !in.atEnd()) {
                return null;
            }
            return new Loaded(index, covered.asMap());
        } catch (EOFException | IllegalArgumentException | SealException e) {
            return null;
        }
    }

    private static OutputStream sealed(OutputStream out, BlobSeal seal) throws IOException {
        return seal == null ? out : seal.sealing(out, WHAT);
    }

    private static InputStream opened(InputStream in, BlobSeal seal) throws IOException {
        return seal == null ? in : seal.opening(in, WHAT);
    }
}
