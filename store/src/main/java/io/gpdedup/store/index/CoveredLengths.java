package io.gpdedup.store.index;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The covered length of each container of a snapshot, looked up once per entry without boxing:
 * container ids are sorted once and searched by bisection.
 */
final class CoveredLengths {
    private final int[] ids;
    private final long[] lengths;
    private int count;
    private boolean sorted = true;
    private int lastId = Integer.MIN_VALUE;

    CoveredLengths(int expected) {
        ids = new int[expected];
        lengths = new long[expected];
    }

    /** Records a container; false when it is there already or the length is negative. */
    boolean put(int id, long length) {
        if (length < 0) {
            return false;
        }
        if (id <= lastId) {
            sorted = false;
        }
        lastId = Math.max(lastId, id);
        ids[count] = id;
        lengths[count] = length;
        count++;
        if (count == ids.length && !sorted) {
            sortByIds();
            for (int i = 1; i < count; i++) {
                if (ids[i] == ids[i - 1]) {
                    return false;
                }
            }
        }
        return true;
    }

    private void sortByIds() {
        long[] packed = new long[count];
        for (int i = 0; i < count; i++) {
            packed[i] = ((long) ids[i] << 32) | i;
        }
        Arrays.sort(packed);
        long[] l = lengths.clone();
        for (int i = 0; i < count; i++) {
            int from = (int) packed[i];
            ids[i] = (int) (packed[i] >> 32);
            lengths[i] = l[from];
        }
        sorted = true;
    }

    /** The covered length of container {@code id}, or -1 when it is not covered. */
    long get(int id) {
        int i = Arrays.binarySearch(ids, 0, count, id);
        return i < 0 ? -1 : lengths[i];
    }

    Map<Integer, Long> asMap() {
        Map<Integer, Long> m = new HashMap<>(count * 2);
        for (int i = 0; i < count; i++) {
            m.put(ids[i], lengths[i]);
        }
        return m;
    }
}
