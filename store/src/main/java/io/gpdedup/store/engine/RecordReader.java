package io.gpdedup.store.engine;

import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.store.container.ChunkRecord;
import io.gpdedup.store.container.CorruptRecordException;
import io.gpdedup.store.index.ChunkIndex;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;

/** Reads a unit's chunk records where its index says they are, following them when a collection moves them. */
final class RecordReader {
    private static final int READ_ATTEMPTS = 8;
    private static final ThreadLocal<ByteBuffer> RECORD_READS = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(0));

    private final String unit;
    private final ContainerStore containers;
    private final ChunkIndex index;

    RecordReader(String unit, ContainerStore containers, ChunkIndex index) {
        this.unit = unit;
        this.containers = containers;
        this.index = index;
    }

    /**
     * A direct buffer of {@code length} bytes (position 0, limit {@code length}) kept by the calling
     * thread from read to read, as large as the largest record it read: a restore keeps only each
     * record's payload, so a new array per record was zeroed, faulted in and filled through a
     * temporary direct buffer for nothing.
     */
    private static ByteBuffer recordBuffer(int length) {
        ByteBuffer b = RECORD_READS.get();
        if (b.capacity() < length) {
            b = ByteBuffer.allocateDirect(Math.max(length, 2 * b.capacity()));
            RECORD_READS.set(b);
        }
        return b.clear().limit(length);
    }

    /** The chunk's record, checksum checked; null when it kept moving while being read. */
    ChunkRecord read(Fingerprint fp) {
        for (int attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
            ChunkIndex.Location loc = index.lookup(fp);
            if (loc == null) {
                throw new StoreException("chunk " + fp + " is not stored in unit " + unit);
            }
            ByteBuffer bytes = recordBuffer(loc.length());
            try {
                containers.read(loc.container(), loc.offset(), bytes);
                bytes.flip();
            } catch (ContainerStore.GoneException e) {
                continue;
            } catch (ClosedChannelException e) {
                throw new StoreException("interrupted while reading chunk " + fp, e);
            } catch (IOException e) {
                throw new StoreException("cannot read chunk " + fp + " from container " + loc.container() + ": " + e, e);
            }
            ChunkRecord r;
            try {
                r = containers.format().decode(bytes);
            } catch (CorruptRecordException e) {
                throw new StoreException("chunk " + fp + " in container " + loc.container() + " at offset " + loc.offset()
                        + " is damaged: " + e.getMessage());
            }
            if (!r.fingerprint().equals(fp)) {
                throw new StoreException("chunk " + fp + " in container " + loc.container() + " at offset " + loc.offset()
                        + " is damaged: the record holds " + r.fingerprint());
            }
            return r;
        }
        return null;
    }
}
