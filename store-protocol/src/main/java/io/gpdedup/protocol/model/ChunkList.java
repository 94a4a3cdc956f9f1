package io.gpdedup.protocol.model;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * A recipe's chunk list as 36 bytes an entry (the fingerprint's 32, the length's 4) in pages,
 * immutable. A list of {@link ChunkRef} objects costs about 100 bytes of heap an entry, and a
 * recipe is held whole by the backup that builds it, the restore that follows it and the store
 * that reads it: a segment's single-data-file backup of 1 TiB at 64 KiB a chunk has 16 million
 * entries. A backup hands its batches' arrays over as pages ({@link Builder#adopt}), so the
 * fingerprints it keeps for the store and for the recipe are one copy. {@link #get} makes a
 * {@link ChunkRef} on each call.
 */
public final class ChunkList extends AbstractList<ChunkRef> implements RandomAccess {
    private static final ChunkList EMPTY = new Builder().build();
    /** 8,192 entries a page of {@link Builder#add}: 256 KiB of fingerprints, so that a growing list never copies much at once. */
    private static final int PAGE_ENTRIES = 1 << 13;
    private static final int FIRST_PAGE_ENTRIES = 64;

    private final byte[][] fingerprints;
    private final int[][] lengths;
    /** Index of each page's first entry, ascending; pages are never empty. */
    private final int[] starts;
    private final int size;

    private ChunkList(byte[][] fingerprints, int[][] lengths, int[] starts, int size) {
        this.fingerprints = fingerprints;
        this.lengths = lengths;
        this.starts = starts;
        this.size = size;
    }

    /** {@code chunks} itself when it is a chunk list already, else a compact copy. */
    public static ChunkList copyOf(Collection<ChunkRef> chunks) {
        if (chunks instanceof ChunkList list) {
            return list;
        }
        if (chunks.isEmpty()) {
            return EMPTY;
        }
        return new Builder().addAll(chunks).build();
    }

    @Override
    public ChunkRef get(int index) {
        Objects.checkIndex(index, size);
        int page = Arrays.binarySearch(starts, index);
        if (page < 0) {
            page = -page - 2;
        }
        int at = index - starts[page];
        return new ChunkRef(Fingerprint.of(fingerprints[page], at * Fingerprint.LENGTH), lengths[page][at]);
    }

    @Override
    public int size() {
        return size;
    }

    /** Appends entries in order; {@link #build} as often as wanted. Not thread-safe. */
    public static final class Builder {
        private final List<byte[]> fingerprintPages = new ArrayList<>();
        private final List<int[]> lengthPages = new ArrayList<>();
        private final List<Integer> starts = new ArrayList<>();
        /** Entries in the last page when {@link #add} may go on filling it; 0 when it may not. */
        private int inOpenPage;
        private int size;

        public Builder add(Fingerprint fingerprint, int length) {
            int at = slot();
            fingerprint.copyTo(fingerprintPages.get(fingerprintPages.size() - 1), at * Fingerprint.LENGTH);
            lengthPages.get(lengthPages.size() - 1)[at] = length;
            return this;
        }

        public Builder addAll(Collection<ChunkRef> chunks) {
            for (ChunkRef c : chunks) {
                add(c.fingerprint(), c.length());
            }
            return this;
        }

        /** Appends the entry whose fingerprint is {@code fingerprints[offset, offset + 32)}. */
        public Builder add(byte[] fingerprints, int offset, int length) {
            Objects.checkFromIndexSize(offset, Fingerprint.LENGTH, fingerprints.length);
            int at = slot();
            System.arraycopy(fingerprints, offset, fingerprintPages.get(fingerprintPages.size() - 1), at * Fingerprint.LENGTH, Fingerprint.LENGTH);
            lengthPages.get(lengthPages.size() - 1)[at] = length;
            return this;
        }

        /**
         * Appends {@code count} entries whose fingerprints are {@code fingerprints[0, 32 * count)}
         * and lengths {@code lengths[0, count)}, keeping the arrays themselves as a page: the caller
         * must not change them afterwards.
         */
        public Builder adopt(byte[] fingerprints, int[] lengths, int count) {
            if (count < 0 || count > lengths.length || (long) count * Fingerprint.LENGTH > fingerprints.length) {
                throw new IndexOutOfBoundsException(count + " entries, arrays of " + fingerprints.length + " and " + lengths.length);
            }
            if (count == 0) {
                return this;
            }
            grow(count);
            closeOpenPage();
            fingerprintPages.add(fingerprints);
            lengthPages.add(lengths);
            starts.add(size);
            size += count;
            return this;
        }

        /**
         * The index in the open page of the next entry, after opening a page when there is none with
         * room. A page opens small and doubles up to {@link #PAGE_ENTRIES}, so a short list holds
         * little more than its entries.
         */
        private int slot() {
            grow(1);
            if (inOpenPage == 0 || inOpenPage == PAGE_ENTRIES) {
                closeOpenPage();
                fingerprintPages.add(new byte[FIRST_PAGE_ENTRIES * Fingerprint.LENGTH]);
                lengthPages.add(new int[FIRST_PAGE_ENTRIES]);
                starts.add(size);
            } else {
                int last = lengthPages.size() - 1;
                int room = lengthPages.get(last).length;
                if (inOpenPage == room) {
                    int doubled = Math.min(PAGE_ENTRIES, room * 2);
                    fingerprintPages.set(last, Arrays.copyOf(fingerprintPages.get(last), doubled * Fingerprint.LENGTH));
                    lengthPages.set(last, Arrays.copyOf(lengthPages.get(last), doubled));
                }
            }
            size++;
            return inOpenPage++;
        }

        private void grow(int more) {
            if (size > Integer.MAX_VALUE - more) {
                throw new IllegalStateException("a chunk list holds at most " + Integer.MAX_VALUE + " entries");
            }
        }

        /** Trims the page {@link #add} was filling to its entries, so that no page has room left. */
        private void closeOpenPage() {
            int last = fingerprintPages.size() - 1;
            if (inOpenPage > 0 && lengthPages.get(last).length > inOpenPage) {
                fingerprintPages.set(last, Arrays.copyOf(fingerprintPages.get(last), inOpenPage * Fingerprint.LENGTH));
                lengthPages.set(last, Arrays.copyOf(lengthPages.get(last), inOpenPage));
            }
            inOpenPage = 0;
        }

        public int size() {
            return size;
        }

        /** The list so far. */
        public ChunkList build() {
            closeOpenPage();
            int[] s = new int[starts.size()];
            for (int i = 0; i < s.length; i++) {
                s[i] = starts.get(i);
            }
            return new ChunkList(fingerprintPages.toArray(new byte[0][]), lengthPages.toArray(new int[0][]), s, size);
        }
    }
}
