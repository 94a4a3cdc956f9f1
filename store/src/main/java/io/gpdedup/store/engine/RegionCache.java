package io.gpdedup.store.engine;

import io.gpdedup.store.chunk.Fingerprint;
import io.gpdedup.store.codec.ChunkCodec;
import io.gpdedup.store.codec.Codec;
import io.gpdedup.store.codec.CorruptChunkException;
import io.gpdedup.store.container.RegionRecord;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The regions a unit read last, so that a restore, which asks for a region's chunks one after
 * another, reads and checks each region once rather than once per chunk (and, for a reader that
 * needs the chunks' bytes here, decodes it once). Containers are never rewritten in place and
 * their ids never reused, so a region read once stays right for as long as it is kept. Two threads
 * missing the same region at once both read it; the second one's copy replaces the first.
 */
final class RegionCache {
    /** Regions kept: a few per concurrent restore, each a few MiB at most once decoded. */
    private static final int ENTRIES = 16;

    /** A region as read: its record (checksum checked), where each member starts, and its bytes once decoded. */
    static final class Region {
        private final long key;
        private final RegionRecord record;
        private final int[] starts;
        private byte[] raw;

        private Region(long key, RegionRecord record) {
            this.key = key;
            this.record = record;
            this.starts = new int[record.members().size()];
            int at = 0;
            for (int i = 0; i < starts.length; i++) {
                starts[i] = at;
                at += record.members().get(i).rawLength();
            }
        }

        /** Which region this is: the same for every read of it. */
        long key() {
            return key;
        }

        RegionRecord record() {
            return record;
        }

        /** The member's index, or -1 when the region holds no such chunk. */
        int indexOf(Fingerprint fp) {
            for (int i = 0; i < starts.length; i++) {
                if (record.members().get(i).fingerprint().equals(fp)) {
                    return i;
                }
            }
            return -1;
        }

        int start(int member) {
            return starts[member];
        }

        /**
         * The bytes of member {@code i}, the region decoded on first use.
         *
         * @throws StoreException when its payload does not decode to its members' bytes
         */
        byte[] chunk(int member) {
            byte[] all;
            synchronized (this) {
                if (raw == null) {
                    try {
                        raw = ChunkCodec.decode(Codec.ofId(record.codecId()), record.rawLength(), record.payload(), record.payload().length);
                    } catch (CorruptChunkException | IllegalArgumentException e) {
                        throw new StoreException("the region in container " + (key >>> 32) + " at offset " + (key & 0xffffffffL)
                                + " is damaged: " + e.getMessage());
                    }
                }
                all = raw;
            }
            return Arrays.copyOfRange(all, starts[member], starts[member] + record.members().get(member).rawLength());
        }
    }

    private final Map<Long, Region> recent = new LinkedHashMap<>(ENTRIES * 2, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Region> eldest) {
            return size() > ENTRIES;
        }
    };

    /** The region at {@code offset} of container {@code container} if it was read lately, else null. */
    Region get(int container, long offset) {
        synchronized (recent) {
            return recent.get(key(container, offset));
        }
    }

    /** Keeps {@code record}, read from {@code offset} of container {@code container}. */
    Region put(int container, long offset, RegionRecord record) {
        Region r = new Region(key(container, offset), record);
        synchronized (recent) {
            recent.put(r.key(), r);
        }
        return r;
    }

    private static long key(int container, long offset) {
        return ((long) container << 32) | offset;
    }
}
