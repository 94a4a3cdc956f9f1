package io.gpdedup.bench.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.pg.TableShape;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class TableVersionTest {

    @ParameterizedTest
    @EnumSource(TableShape.class)
    void baseOfSizeIsCloseToTheTarget(TableShape table) throws IOException {
        long target = 4 << 20;
        TableVersion v = TableVersion.baseOfSize(table, 3, target);
        long bytes;
        try (InputStream in = v.open()) {
            bytes = in.transferTo(OutputStreamSink.INSTANCE);
        }
        assertTrue(Math.abs(bytes - target) < target / 20, "got " + bytes + " bytes for " + target);
    }

    @Test
    void mutationsKeepTheTableAndNothingIsSharedWithAnotherTable() throws IOException {
        TableVersion orders = TableVersion.base(TableShape.ORDERS, 4, 3000);
        TableVersion lineitem = new Mutation.Sequence(Mutation.standard()).applyTo(TableVersion.base(TableShape.LINEITEM, 4, 3000), 9);
        assertEquals(TableShape.LINEITEM, lineitem.shape());
        byte[] bytes;
        try (InputStream in = lineitem.open()) {
            bytes = in.readAllBytes();
        }
        String firstRow = new String(bytes, 0, indexOf(bytes, (byte) '\n'), java.nio.charset.StandardCharsets.US_ASCII);
        assertEquals(16, firstRow.split("\t", -1).length, firstRow);
        assertEquals(bytes.length, lineitem.changedBytesSince(orders), "a table of another shape shares no rows");
        assertTrue(lineitem.changedBytesSince(TableVersion.base(TableShape.LINEITEM, 4, 3000)) < bytes.length / 5);
    }

    private static int indexOf(byte[] b, byte value) {
        for (int i = 0; i < b.length; i++) {
            if (b[i] == value) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void readSizesDoNotChangeTheBytes() throws IOException {
        TableVersion v = new Mutation.Sequence(Mutation.standard()).applyTo(TableVersion.base(TableShape.ORDERS, 4, 3000), 9);
        byte[] bulk;
        try (InputStream in = v.open()) {
            bulk = in.readAllBytes();
        }
        ByteArrayOutputStream pieces = new ByteArrayOutputStream();
        SplittableRandom random = new SplittableRandom(1);
        try (InputStream in = v.open()) {
            byte[] b = new byte[5000];
            while (true) {
                if (random.nextInt(10) == 0) {
                    int c = in.read();
                    if (c < 0) {
                        break;
                    }
                    pieces.write(c);
                    continue;
                }
                int n = in.read(b, 0, 1 + random.nextInt(b.length));
                if (n < 0) {
                    break;
                }
                pieces.write(b, 0, n);
            }
        }
        assertArrayEquals(bulk, pieces.toByteArray());
    }

    @Test
    void emptyTablesAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> TableVersion.base(TableShape.ORDERS, 1, 0));
    }

    /** Counts and drops. */
    private static final class OutputStreamSink extends java.io.OutputStream {
        static final OutputStreamSink INSTANCE = new OutputStreamSink();

        @Override
        public void write(int b) {
        }

        @Override
        public void write(byte[] b, int off, int len) {
        }
    }
}
