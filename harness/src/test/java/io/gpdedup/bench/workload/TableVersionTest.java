package io.gpdedup.bench.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TableVersionTest {

    @Test
    void baseOfSizeIsCloseToTheTarget() throws IOException {
        long target = 4 << 20;
        TableVersion v = TableVersion.baseOfSize(3, target);
        long bytes;
        try (InputStream in = v.open()) {
            bytes = in.transferTo(OutputStreamSink.INSTANCE);
        }
        assertTrue(Math.abs(bytes - target) < target / 20, "got " + bytes + " bytes for " + target);
    }

    @Test
    void readSizesDoNotChangeTheBytes() throws IOException {
        TableVersion v = new Mutation.Sequence(Mutation.standard()).applyTo(TableVersion.base(4, 3000), 9);
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
        assertThrows(IllegalArgumentException.class, () -> TableVersion.base(1, 0));
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
