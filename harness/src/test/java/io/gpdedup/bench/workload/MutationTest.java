package io.gpdedup.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.pg.TableShape;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MutationTest {
    private static final TableVersion BASE = TableVersion.base(TableShape.ORDERS, 7, 4000);
    private static final List<String> BASE_ROWS = CopyRows.rows(CopyRows.text(BASE));

    private static long changedRowBytes(List<String> rows) {
        Set<String> base = new HashSet<>(BASE_ROWS);
        return rows.stream().filter(r -> !base.contains(r)).mapToLong(r -> r.length() + 1).sum();
    }

    @Test
    void baseIsIdOrder() {
        assertEquals(4000, BASE_ROWS.size());
        for (int i = 0; i < BASE_ROWS.size(); i++) {
            assertEquals(i + 1, CopyRows.id(BASE_ROWS.get(i)));
        }
        assertEquals(0, BASE.changedBytesSince(BASE));
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void clusteredUpdateMovesAContiguousRangeToTheEnd(long seed) {
        TableVersion next = new Mutation.ClusteredUpdate(0.05).applyTo(BASE, seed);
        List<String> rows = CopyRows.rows(CopyRows.text(next));
        assertEquals(BASE_ROWS.size(), rows.size());
        List<String> moved = rows.subList(rows.size() - 200, rows.size());
        long first = CopyRows.id(moved.get(0));
        for (int i = 0; i < moved.size(); i++) {
            assertEquals(first + i, CopyRows.id(moved.get(i)));
            assertNotEquals(BASE_ROWS.get((int) first - 1 + i), moved.get(i), "moved rows have new values");
        }
        List<String> expectedStay = new ArrayList<>(BASE_ROWS);
        expectedStay.subList((int) first - 1, (int) first - 1 + 200).clear();
        assertEquals(expectedStay, rows.subList(0, rows.size() - 200));
        assertEquals(changedRowBytes(rows), next.changedBytesSince(BASE));
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void insertedRunsShiftLaterRows(long seed) {
        TableVersion next = new Mutation.InsertedRuns(0.01, 4).applyTo(BASE, seed);
        List<String> rows = CopyRows.rows(CopyRows.text(next));
        assertEquals(4040, rows.size());
        assertEquals(4001 + 40, next.nextId());
        List<String> old = new ArrayList<>();
        int runs = 0;
        boolean inRun = false;
        for (String r : rows) {
            boolean isNew = CopyRows.id(r) > 4000;
            runs += isNew && !inRun ? 1 : 0;
            inRun = isNew;
            if (!isNew) {
                old.add(r);
            }
        }
        assertEquals(4, runs);
        assertTrue(CopyRows.id(rows.get(0)) <= 4000 && CopyRows.id(rows.get(rows.size() - 1)) <= 4000, "runs are in the middle");
        assertEquals(BASE_ROWS, old, "existing rows keep their bytes and order");
        assertEquals(changedRowBytes(rows), next.changedBytesSince(BASE));
    }

    @Test
    void appendKeepsTheBaseAsPrefix() {
        TableVersion next = new Mutation.Append(0.02).applyTo(BASE, 1);
        String text = CopyRows.text(next);
        assertTrue(text.startsWith(CopyRows.text(BASE)));
        List<String> rows = CopyRows.rows(text);
        assertEquals(4080, rows.size());
        assertEquals(4080, CopyRows.id(rows.get(rows.size() - 1)));
        assertEquals(changedRowBytes(rows), next.changedBytesSince(BASE));
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void scatteredUpdatesChangeSingleRowsInPlace(long seed) {
        TableVersion next = new Mutation.ScatteredUpdates(0.005).applyTo(BASE, seed);
        List<String> rows = CopyRows.rows(CopyRows.text(next));
        assertEquals(BASE_ROWS.size(), rows.size());
        int changed = 0;
        for (int i = 0; i < rows.size(); i++) {
            assertEquals(i + 1, CopyRows.id(rows.get(i)));
            changed += rows.get(i).equals(BASE_ROWS.get(i)) ? 0 : 1;
        }
        assertEquals(20, changed);
        assertEquals(changedRowBytes(rows), next.changedBytesSince(BASE));
    }

    @Test
    void mutationsAreDeterministicInTheSeed() {
        for (Mutation m : Mutation.standard()) {
            assertEquals(m.applyTo(BASE, 11).runs(), m.applyTo(BASE, 11).runs(), m.label());
            if (!(m instanceof Mutation.Append)) {
                assertNotEquals(m.applyTo(BASE, 11).runs(), m.applyTo(BASE, 12).runs(), m.label());
            }
        }
        Mutation all = new Mutation.Sequence(Mutation.standard());
        assertEquals(all.applyTo(BASE, 5).runs(), all.applyTo(BASE, 5).runs());
    }

    @Test
    void sequenceAppliesEveryStep() {
        TableVersion next = new Mutation.Sequence(Mutation.standard()).applyTo(BASE, 3);
        // +1% inserted, +2% appended (of the grown table); updates keep the count.
        assertEquals(4000 + 40 + 81, next.rowCount());
        List<String> rows = CopyRows.rows(CopyRows.text(next));
        assertEquals(changedRowBytes(rows), next.changedBytesSince(BASE));
    }

    @Test
    void badFractionsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> new Mutation.ClusteredUpdate(0));
        assertThrows(IllegalArgumentException.class, () -> new Mutation.Append(1.5));
        assertThrows(IllegalArgumentException.class, () -> new Mutation.ScatteredUpdates(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> new Mutation.InsertedRuns(0.01, 0));
    }

    @Test
    void hugeVersionsCostOnlyTheirRunList() {
        TableVersion tib = TableVersion.baseOfSize(TableShape.ORDERS, 1, 1L << 40);
        assertTrue(tib.rowCount() > 1_000_000_000L, "a TiB is billions of rows: " + tib.rowCount());
        TableVersion next = new Mutation.Sequence(List.of(new Mutation.ClusteredUpdate(0.05),
                new Mutation.InsertedRuns(0.01, 10), new Mutation.Append(0.02))).applyTo(tib, 1);
        assertTrue(next.runs().size() <= 3 + 2 * 10 + 1, next.toString());
        // Scattered updates cost two runs per updated row, still nothing proportional to the bytes.
        TableVersion gib = TableVersion.baseOfSize(TableShape.ORDERS, 1, 1L << 30);
        TableVersion scattered = new Mutation.ScatteredUpdates(0.001).applyTo(gib, 1);
        assertTrue(scattered.runs().size() <= 2 * Math.round(0.001 * gib.rowCount()) + 1, scattered.toString());
    }
}
